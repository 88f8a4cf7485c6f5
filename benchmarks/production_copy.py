"""An SRE's production copy: a 5,000-node / 150,000-pod cluster as `kubectl get -o json` prints it
(import_dump.py's dump), imported with `playground import` into a scenario file, then opened from that
file as `playground FILE` or `playground sim FILE` opens it: read the file (parse and validate), build
the cluster, and its first instant (every pod created, bound to its node as in the dump), the opened
cluster kept out of the garbage collector's sight as both do (playground.cli._open).

Each open is a fresh process. "cold" opens with no kept state (PLAYGROUND_CACHE_DIR=off); "again"
opens after one open has kept the validated scenario and the opened state (openstate.py), as every
open after the first does. Prints CPU seconds (min and median of the runs) per stage and the size of
the scenario file; asserts nothing.

    python benchmarks/production_copy.py [--nodes 5000] [--pods 150000] [--runs 3] [--src DIR]

--src runs another checkout of the code (the base revision, for before / after figures).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _code(src: str | None) -> None:
    sys.path.insert(0, str(HERE))
    sys.path.insert(0, str(Path(src).resolve() if src else HERE.parent))


def import_to(dump_path: str, toml_path: str) -> None:
    from playground.manifests import import_files, scenario_text

    Path(toml_path).write_text(scenario_text(import_files([dump_path])))


def open_once(path: str) -> dict[str, float]:
    from clusters import new_simulation_as_the_cli_does, open_as_the_cli_does
    from playground import cli, engine  # noqa: F401 - imported before the clock starts, as the CLI has
    from playground.manifests import read_scenario_file

    times = {}
    start = time.process_time()
    scenario, _report = read_scenario_file(Path(path))
    times["read"] = time.process_time() - start
    start = time.process_time()
    sim = new_simulation_as_the_cli_does(scenario)
    times["build or restore"] = time.process_time() - start
    start = time.process_time()
    open_as_the_cli_does(sim)
    times["first instant"] = time.process_time() - start
    times["total"] = sum(times.values())
    times["pods"] = len(sim.store.pods)
    return times


def run(args: argparse.Namespace, *command: str, cache: str) -> str:
    env = dict(os.environ, PLAYGROUND_CACHE_DIR=cache)
    forwarded = [f"--src={args.src}"] if args.src else []
    out = subprocess.run([sys.executable, __file__, *forwarded, *command], capture_output=True, text=True,
                         check=True, env=env)
    return out.stdout


def wait_for_kept(directory: Path, timeout: float = 300.0) -> None:
    """The kept scenario and opened state are written by forked children that may outlive the open
    (each appears at once, renamed into place when complete)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(directory.glob("*.state")) and any(directory.glob("*.scenario")):
            return
        time.sleep(0.2)
    raise SystemExit(f"nothing kept in {directory} after {timeout:.0f} s")


def report(title: str, runs: list[dict]) -> None:
    print(f"{title} ({runs[0]['pods']:.0f} pods), CPU s over {len(runs)} runs:")
    for stage in ("read", "build or restore", "first instant", "total"):
        values = [r[stage] for r in runs]
        print(f"  {stage:17s} min {min(values):6.2f}   median {statistics.median(values):6.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pods", type=int, default=150_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--src", default=None)
    parser.add_argument("--one", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    _code(args.src)
    if args.one:
        if args.one[0] == "import":
            import_to(args.one[1], args.one[2])
        else:
            print(json.dumps(open_once(args.one[1])))
        return
    from import_dump import dump

    with tempfile.TemporaryDirectory() as tmp:
        dump_path, toml_path = Path(tmp) / "cluster.json", Path(tmp) / "cluster.toml"
        dump_path.write_text(json.dumps(dump(args.nodes, args.pods)))
        run(args, "--one", "import", str(dump_path), str(toml_path), cache="off")
        size = toml_path.stat().st_size
        cold = [json.loads(run(args, "--one", "open", str(toml_path), cache="off")) for _ in range(args.runs)]
        states = str(Path(tmp) / "states")
        run(args, "--one", "open", str(toml_path), cache=states)  # keeps the scenario and the opened state
        wait_for_kept(Path(states))
        again = [json.loads(run(args, "--one", "open", str(toml_path), cache=states)) for _ in range(args.runs)]
    print(f"the imported scenario file: {size / 2**20:.1f} MiB ({args.nodes} nodes, {args.pods} pods in the dump)")
    report("open it cold", cold)
    report("open it again (kept scenario and opened state)", again)


if __name__ == "__main__":
    main()
