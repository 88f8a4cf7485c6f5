"""Time travel: how long going back takes, and how much memory the history holds. Asserts nothing.

For every shipped scenario: run 10 minutes with the history on (as the TUI does), then go back one
tick, then rewind one minute; each figure is CPU time (time.process_time), min and median of 3 runs.
Then the large cluster (5,000 nodes / 150,000 pods in 5 zones, built by clusters.py, zone-a's nodes
powered off at 1 m so the controllers have work): run 3 minutes with the history on, go back one tick
and rewind one minute. Prints the checkpoints, their bytes, and the cost of taking one (in the engine
thread, and in the forked child that writes it at that size).

    .venv/bin/python benchmarks/time_travel.py [--scenarios-only] [--big-only] [--nodes 5000] [--pods 150000]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from playground.engine import Operation, Simulation  # noqa: E402
from playground.engine.history import format_bytes  # noqa: E402
from playground.scenario import load_scenario, parse_scenario  # noqa: E402


def cpu(action) -> float:
    start = time.process_time()
    action()
    return time.process_time() - start


def figures(samples: list[float]) -> str:
    return f"min {min(samples) * 1000:7.1f} ms  median {statistics.median(samples) * 1000:7.1f} ms"


def scenario_runs(runs: int) -> None:
    print("shipped scenarios: 10 m with history, then back one tick / rewind 1 m (CPU, min and median of "
          f"{runs})")
    worst = 0.0
    for path in sorted((HERE.parent / "scenarios").glob("*.toml")):
        back, rewind, memory = [], [], None
        for _ in range(runs):
            sim = Simulation(load_scenario(path), event_limit=10_000)
            sim.enable_history()
            sim.run_until_ms(600_000)
            back.append(cpu(lambda: sim.rewind(sim.tick / 1000)))
            sim.run_until_ms(600_000)
            rewind.append(cpu(lambda: sim.rewind(60)))
            memory = sim.history.memory()
        worst = max(worst, min(back))
        print(f"  {path.stem:28} back 1 tick: {figures(back)}   rewind 1 m: {figures(rewind)}   "
              f"history {memory.checkpoints} checkpoints, {format_bytes(memory.total)}")
    print(f"  worst min for one tick back: {worst * 1000:.1f} ms")


def big_run(args: argparse.Namespace) -> None:
    from clusters import cluster_toml

    text = cluster_toml("time-travel-bench", args.nodes, args.pods, 5, 50)
    text += "\n".join(f'[[timeline]]\nat = "1m"\ndo = "power-off"\nnode = "z0-n{i}"\n'
                      for i in range(1, args.nodes // 5 + 1))
    c0 = time.process_time()
    sim = Simulation(parse_scenario(text), event_limit=10_000)
    sim.clock.run_due(0)
    print(f"\n{args.nodes:,} nodes / {args.pods:,} pods: built and placed in {time.process_time() - c0:.1f} s CPU")
    gc.freeze()  # the cluster as built is long-lived; keep the collector off it, as the TUI does
    c0 = time.process_time()
    sim.enable_history()
    history = sim.history
    forked = history.writer is not None
    print(f"  first checkpoint: {time.process_time() - c0:.2f} s CPU in the engine thread "
          f"({'written by a forked child' if forked else 'pickled in-process'}), interval {history.interval / 1000:.0f} s")
    if forked:
        history._collect(block=True)
        print(f"    the child: {history.child_cpu:.2f} s CPU, {format_bytes(history.memory().checkpoint_bytes)}")
    c0, w0 = time.process_time(), time.perf_counter()
    sim.run_until_ms(180_000)
    memory = sim.history.memory()
    print(f"  3 m with history: {time.process_time() - c0:.1f} s CPU ({time.perf_counter() - w0:.1f} s wall); "
          f"{memory.checkpoints} checkpoints at {[cp.time // 1000 for cp in sim.history.checkpoints]} s, "
          f"{format_bytes(memory.total)}; children writing checkpoints: {sim.history.child_cpu:.1f} s CPU")
    back, rewind = [], []
    for _ in range(args.runs):
        back.append(cpu(lambda: sim.rewind(sim.tick / 1000)))
        sim.run_until_ms(180_000)
    for _ in range(args.runs):
        rewind.append(cpu(lambda: sim.rewind(60)))
        sim.run_until_ms(180_000)
    print(f"  back 1 tick: {figures(back)}")
    print(f"  rewind 1 m:  {figures(rewind)}")
    sim.apply(Operation("power-on", node="z0-n1"))
    print(f"  after a live operation at {sim.now / 1000:.0f} s: {sim.history.memory().checkpoints} checkpoints")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scenarios-only", action="store_true")
    parser.add_argument("--big-only", action="store_true")
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pods", type=int, default=150_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if not args.big_only:
        scenario_runs(args.runs)
    if not args.scenarios_only:
        big_run(args)


if __name__ == "__main__":
    main()
