"""Opening a production-sized cluster in the terminal UI, as `playground FILE` does, cold: from the
process's start until the screen shows the opened cluster (every table filled, the first paint
after the open done). Two files of 5,000 nodes / 150,000 pods: an SRE's production copy (a
`kubectl get -o json` dump imported with `playground import`, as production_copy.py makes it) and
load.py's scenario of nodePools and Deployments (every pod placed through the scheduler at t=0).

Each open is a fresh process with nothing kept (PLAYGROUND_CACHE_DIR=off), run headless at 160 x 48
(`App.run_test`, whose screen updates lay out and render as a terminal's do). Prints, per stage, the
process's CPU seconds since it started (min and median of the runs; imports included, as a user
waits for them) and the wall seconds to the first paint; asserts nothing.

    python benchmarks/tui_open.py [--nodes 5000] [--pods 150000] [--runs 3] [--which copy|deployments|both]
                                  [--src DIR]

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
STAGES = ("imports", "read", "app built", "mounted", "shown")


def _code(src: str | None) -> None:
    sys.path.insert(0, str(HERE))
    sys.path.insert(0, str(Path(src).resolve() if src else HERE.parent))


def wall_since_start() -> float:
    """Wall seconds since this process started (/proc: the kernel's start time, in clock ticks)."""
    with open("/proc/self/stat") as f:
        start_ticks = int(f.read().rsplit(")", 1)[1].split()[19])
    with open("/proc/uptime") as f:
        uptime = float(f.read().split()[0])
    return uptime - start_ticks / os.sysconf("SC_CLK_TCK")


def open_once(path: str) -> dict[str, float]:
    """One open in this process: CPU seconds since the process started at each stage."""
    import asyncio

    marks: dict[str, float] = {}
    from playground.manifests import read_scenario_file, save_path_for
    from playground.tui.app import PlaygroundApp
    from textual.screen import Screen

    marks["imports"] = time.process_time()
    scenario, _lines = read_scenario_file(Path(path))
    marks["read"] = time.process_time()
    painted = asyncio.Event()
    watching = [False]
    refresh = Screen._compositor_refresh

    def watched(screen) -> None:
        refresh(screen)
        if watching[0]:
            painted.set()
    Screen._compositor_refresh = watched

    async def run() -> None:
        app = PlaygroundApp(scenario, path=save_path_for(Path(path)), paused=True, keymap_file=None)
        marks["app built"] = time.process_time()
        async with app.run_test(size=(160, 48)) as pilot:
            await pilot.pause()
            marks["mounted"] = time.process_time()
            await app.timecontrol.opened()
            watching[0] = True
            app.screen.refresh()  # (a paint that starts after the open: the screen shows the tables)
            await asyncio.wait_for(painted.wait(), 30)
            marks["shown"] = time.process_time()
            marks["wall"] = wall_since_start()
            marks["pods"] = len(app.sim.store.pods)
            marks["rows"] = app.views["pods"].table.total_count

    asyncio.run(run())
    return marks


def run_one(args: argparse.Namespace, path: Path) -> dict[str, float]:
    env = dict(os.environ, PLAYGROUND_CACHE_DIR="off")
    forwarded = [f"--src={args.src}"] if args.src else []
    out = subprocess.run([sys.executable, __file__, *forwarded, "--one", str(path)], capture_output=True,
                         text=True, check=True, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def report(title: str, runs: list[dict]) -> None:
    print(f"{title}: {runs[0]['pods']:.0f} pods ({runs[0]['rows']:.0f} rows in the Pods view); "
          f"CPU s since the process started, over {len(runs)} runs:")
    for stage in (*STAGES, "wall"):
        values = [r[stage] for r in runs]
        label = "wall s to the paint" if stage == "wall" else stage
        print(f"  {label:20s} min {min(values):6.2f}   median {statistics.median(values):6.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pods", type=int, default=150_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--which", choices=("copy", "deployments", "both"), default="both")
    parser.add_argument("--src", default=None)
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    _code(args.src)
    if args.one:
        print(json.dumps(open_once(args.one)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        if args.which in ("copy", "both"):
            from import_dump import dump
            from production_copy import import_to

            dump_path, copy_path = Path(tmp) / "cluster.json", Path(tmp) / "copy.toml"
            dump_path.write_text(json.dumps(dump(args.nodes, args.pods)))
            import_to(str(dump_path), str(copy_path))
            files.append(("the production copy (imported dump)", copy_path))
        if args.which in ("deployments", "both"):
            from load import scenario_toml

            load_path = Path(tmp) / "load.toml"
            load_path.write_text(scenario_toml(args.nodes, args.pods))
            files.append(("nodePools and Deployments (load.py's scenario)", load_path))
        for title, path in files:
            report(title, [run_one(args, path) for _ in range(args.runs)])


if __name__ == "__main__":
    main()
