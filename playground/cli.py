"""Entry points: `playground [FILE]` opens the TUI; `validate`, `sim` and `check` run headless.

Exit status: 0 success, 1 an expectation failed (`check`), 2 bad input (a scenario error, a bad flag).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from itertools import chain, islice
from pathlib import Path

from .scenario import Scenario, ScenarioError, load_scenario
from .scenario.validation import MAX_TIME_MS
from .units import UnitError, format_duration, parse_duration

DEFAULT_SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "default.toml"
COMMANDS = ("validate", "sim", "check", "tui", "import", "export")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="playground",
        description="Rehearse how Kubernetes handles failing nodes, drains and priority.",
        epilog="Without a command, opens the terminal UI on FILE (or on the built-in default scenario).",
    )
    sub = parser.add_subparsers(dest="command")
    validate = sub.add_parser("validate", help="check a scenario file and exit")
    validate.add_argument("file")
    sim = sub.add_parser("sim", help="run a scenario headless and print its event log")
    sim.add_argument("file")
    sim.add_argument("--until", help="how long to run (a duration such as 10m); default: the scenario's duration")
    sim.add_argument("--json", action="store_true", help="print one JSON document instead of the event log")
    sim.add_argument("--plot", metavar="OUT", help="also write the figures over time (Ready nodes per zone, "
                     "pending, running, evictions) to OUT (.svg or .png)")
    check = sub.add_parser("check", help="run a scenario and check its [[expect]] entries")
    check.add_argument("file")
    check.add_argument("--until", help="how long to run; default: the scenario's duration or the last expectation")
    imp = sub.add_parser("import", help="make a scenario of a `kubectl get ... -o yaml|json` dump")
    imp.add_argument("files", nargs="+", metavar="FILE", help="dump files (YAML or JSON); - reads stdin")
    imp.add_argument("-o", "--output", help="the scenario file to write (default: stdout)")
    imp.add_argument("--name", help="the scenario's name (default: the first file's name)")
    exp = sub.add_parser("export", help="write a scenario as Kubernetes manifests and a kubectl timeline")
    exp.add_argument("file")
    exp.add_argument("-o", "--output", required=True, metavar="DIR", help="the folder to write into")
    exp.add_argument("--speed", default="1", help="divide the timeline's times by this (default 1)")
    tui = sub.add_parser("tui", help="open the terminal UI (the default command)")
    tui.add_argument("file", nargs="?")
    tui.add_argument("--paused", action="store_true", help="start paused")
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or (argv[0] not in COMMANDS and argv[0] not in ("-h", "--help")):
        argv = ["tui", *argv]
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    try:
        if args.command == "validate":
            return _validate(args.file)
        if args.command == "sim":
            return _sim(args.file, args.until, args.json, args.plot)
        if args.command == "check":
            return _check(args.file, args.until)
        if args.command == "import":
            return _import(args.files, args.output, args.name)
        if args.command == "export":
            return _export(args.file, args.output, args.speed)
        return _tui(args.file, args.paused)
    except ScenarioError as exc:
        print(exc.format(), file=sys.stderr)
        return 2
    except UnitError as exc:
        print(f"playground: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # a dump that cannot be read (manifests.ManifestError)
        if type(exc).__name__ != "ManifestError":
            raise
        print(f"playground: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader (e.g. `| head`) went away; that is not an error of ours.
        sys.stderr.close()
        return 0


def _until(text: str | None, default: int) -> int:
    if text is None:
        return default
    try:
        until = parse_duration(text)
    except UnitError as exc:
        raise UnitError(f"--until: {exc}") from None
    if until > MAX_TIME_MS:
        raise UnitError(f"--until: must be at most {format_duration(MAX_TIME_MS)} (the playground's limit), got {text}")
    return until


def _read(file: str) -> "Scenario":
    """A scenario file or a kubectl dump (manifests.read_scenario_file), the import's report on
    stderr: every command opens both."""
    from .manifests import read_scenario_file

    scenario, lines = read_scenario_file(Path(file))
    for line in lines:
        print(line, file=sys.stderr)
    return scenario


def _validate(file: str) -> int:
    scenario = _read(file)
    nodes = len(scenario.node_names())
    print(f"{file}: ok ({scenario.scenario.name}: {nodes} nodes, {len(scenario.deployments)} deployments, "
          f"{len(scenario.timeline)} timeline entries, {len(scenario.expect)} expectations)")
    return 0


PROGRESS_MIN_PODS = 5000  # smaller scenarios open in well under a second: no progress line


def _report_progress(sim) -> None:
    """A progress line on stderr while a large scenario's pods are placed at t=0."""

    def report(done: int, total: int) -> None:
        if total >= PROGRESS_MIN_PODS:
            end = "\n" if done >= total else ""
            print(f"\rplacing the pods created at t=0: {done:,} of {total:,}", end=end, file=sys.stderr, flush=True)

    sim.scheduler.progress = report


def _new_simulation(scenario):
    """A simulation of `scenario`, restored from its kept opened state when there is one. The heap is
    frozen first, as the TUI freezes it before an open (simulation.freeze_heap): what an earlier run
    froze is collected, and a restored state is frozen as it is read (history._load), an opened one
    as instant 0 makes it (_open)."""
    from .engine import Simulation
    from .engine.openstate import OpenStateCache
    from .engine.simulation import freeze_heap

    freeze_heap()
    return Simulation(scenario, open_cache=OpenStateCache.default())


def _open(sim) -> None:
    """Run instant 0 (the scenario opens in its steady state), keeping the opened cluster out of the
    garbage collector's sight as the TUI does (Simulation.open_now, simulation.freeze_heap)."""
    sim.open_now(freeze=True)
    sim.run_until_ms(0)


def _sim(file: str, until: str | None, as_json: bool, plot: str | None = None) -> int:
    from .engine.report import format_event, json_pieces, snapshot_lazily

    if plot is not None:
        from .plot import plot_problem

        problem = plot_problem(plot)
        if problem is not None:
            print(f"playground: {problem}", file=sys.stderr)
            return 2
    sim = _new_simulation(_read(file))
    _report_progress(sim)
    end = _until(until, sim.duration)
    if plot is not None:
        sim.enable_history()  # records the figures over time; the run itself is the same
    else:
        _open(sim)
    sim.run_until_ms(end)
    if plot is not None:
        from .plot import write_plot

        write_plot(sim.history.series, sim.clock.now, plot, sim.scenario.scenario.name)
    if as_json:
        _write_bytes(chain(json_pieces(snapshot_lazily(sim)), [b"\n"]))
        return 0
    # Lines written a thousand at a time: a print a line was a system call a line when stdout is
    # unbuffered (0.4 s of system time for 300,000 Events).
    lines = (f"{format_event(event)}\n" for event in sim.store.recorder.events)
    while chunk := "".join(islice(lines, 1000)):
        sys.stdout.write(chunk)
    print(f"-- {sim.scenario.scenario.name} at {format_duration(sim.clock.now)}: "
          f"zones {', '.join(f'{z or chr(34) * 2}={s}' for z, s in sorted(sim.nodelifecycle.zone_states.items()))}")
    return 0


def _write_bytes(parts: Iterable[bytes]) -> None:
    """Large pieces to stdout, as bytes: json.dump wrote every token on its own, a system call each
    when the output is unbuffered (PYTHONUNBUFFERED, as in many containers: 28 s of 50 at 150,000
    pods), and text would copy 190 MiB of JSON again."""
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:  # a stdout without bytes underneath
        for part in parts:
            sys.stdout.write(part.decode())
        return
    sys.stdout.flush()
    for part in parts:
        buffer.write(part)
    buffer.flush()


def _check(file: str, until: str | None) -> int:
    scenario = _read(file)
    sim = _new_simulation(scenario)
    _report_progress(sim)
    _open(sim)
    last = max((e.at for e in scenario.expect), default=0)
    sim.run_until_ms(_until(until, max(sim.duration, last)))
    if not scenario.expect:
        print(f"{file}: no [[expect]] entries to check")
        return 0
    failed = 0
    for result in sim.expectation_results:
        head = f"{'PASS' if result.passed else 'FAIL'} at {format_duration(result.time)}"
        if result.description:
            head += f": {result.description}"
        print(head)
        for what, expected, actual, ok in result.checks:
            mark = "ok " if ok else "BAD"
            print(f"    {mark} {what}: expected {expected}, got {actual}")
        failed += not result.passed
    missing = len(scenario.expect) - len(sim.expectation_results)
    if missing:
        print(f"{missing} expectation(s) lie beyond the end of the run and were not checked")
    total = len(sim.expectation_results)
    print(f"{total - failed} passed, {failed} failed")
    return 1 if failed or missing else 0


def _import(files: list[str], output: str | None, name: str | None) -> int:
    from .manifests import import_files, scenario_text
    from .scenario.saving import write_atomically

    imported = import_files(files, name)
    text = scenario_text(imported)
    for line in imported.report.lines():
        print(line, file=sys.stderr)
    if output:
        write_atomically(output, text)
        print(f"wrote {output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    from .scenario.validation import MAX_FILE_BYTES

    if len(text.encode()) > MAX_FILE_BYTES:
        print(f"note: the scenario is larger than the {MAX_FILE_BYTES // 2**20} MiB a scenario file may have; "
              f"open the dump itself instead: playground {files[0]}", file=sys.stderr)
    return 0


def _export(file: str, output: str, speed_text: str) -> int:
    from .manifests.exporter import export

    try:
        speed = float(speed_text)
    except ValueError:
        speed = -1.0
    if not speed > 0 or speed == float("inf"):
        raise UnitError(f"--speed: expected a positive number such as 1 or 10, got {speed_text!r}")
    scenario = _read(file)
    try:
        written = export(scenario, output, speed)
    except OSError as exc:
        raise UnitError(f"{output}: cannot write: {exc.strerror or exc}") from None
    for path in written:
        print(path)
    return 0


def _tui(file: str | None, paused: bool) -> int:
    from .manifests import save_path_for

    path = Path(file) if file else DEFAULT_SCENARIO
    scenario = _read(str(path))
    path = save_path_for(path)
    try:
        from .tui.app import PlaygroundApp
    except ImportError as exc:  # pragma: no cover - textual is a hard dependency
        print(f"playground: the terminal UI is unavailable: {exc}", file=sys.stderr)
        return 2
    PlaygroundApp(scenario, path=path, paused=paused).run()
    return 0
