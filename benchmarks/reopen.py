"""Opening a big scenario again: the opened state kept on disk (playground/engine/openstate.py) is
restored instead of placing every pod again. Builds the same 5,000-node / 150,000-pod scenario as
load.py, opens it once cold (writing the state into a temporary cache directory, in this process),
then opens it --runs times, each in a fresh process, and prints CPU seconds (min and median) of
parse, restore (the Simulation made from the kept state: the cluster is not built first) and the
first instant, each open made as `playground sim` makes it (benchmarks/clusters.py), the size of the
kept state and the cold open for comparison. Asserts nothing.

    python benchmarks/reopen.py [--nodes 5000] [--pods 150000] [--runs 3]
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
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))


def open_once(path: str, directory: str, fork: bool) -> dict[str, float]:
    """One open keeping its state in `directory`: in this process, writing the state before it returns
    (`fork` False: the cold open), or as `playground sim` opens (PLAYGROUND_CACHE_DIR=directory)."""
    from clusters import new_simulation_as_the_cli_does, open_as_the_cli_does
    from playground import cli  # noqa: F401 - imported before the clock starts, as the CLI has
    from playground.engine import Simulation
    from playground.engine.openstate import OpenStateCache
    from playground.scenario import load_scenario

    times = {}
    start = time.process_time()
    scenario = load_scenario(path)
    times["parse"] = time.process_time() - start
    start = time.process_time()
    if fork:
        sim = new_simulation_as_the_cli_does(scenario)  # restores the kept state instead of building
    else:
        sim = Simulation(scenario, open_cache=OpenStateCache(Path(directory), fork=False))
    restored = sim.open_cache.restored
    times["build" if not restored else "restore"] = time.process_time() - start
    start = time.process_time()
    open_as_the_cli_does(sim)
    times["open" if not restored else "first instant"] = time.process_time() - start
    times["total"] = sum(times.values())
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pods", type=int, default=150_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--one", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(open_once(*args.one, fork=True)))
        return
    from load import scenario_toml

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "load.toml"
        path.write_text(scenario_toml(args.nodes, args.pods))
        directory = Path(tmp) / "states"
        cold = open_once(str(path), str(directory), fork=False)
        (state,) = directory.glob("*.state")
        size = state.stat().st_size
        runs = []
        for _ in range(args.runs):
            out = subprocess.run([sys.executable, __file__, "--one", str(path), str(directory)],
                                 capture_output=True, text=True, check=True,
                                 env=dict(os.environ, PLAYGROUND_CACHE_DIR=str(directory)))
            runs.append(json.loads(out.stdout))
    print(f"open {args.nodes} nodes / {args.pods} pods again from its kept state "
          f"({size / 2**20:.0f} MiB), CPU s over {args.runs} runs:")
    for stage in ("parse", "restore", "first instant", "total"):
        values = [r[stage] for r in runs]
        print(f"  {stage:13s} min {min(values):6.2f}   median {statistics.median(values):6.2f}")
    print(f"the cold open that kept it: {cold['total']:.2f} s (placing the pods and writing the state in this process: "
          f"{cold['open']:.2f} s)")


if __name__ == "__main__":
    main()
