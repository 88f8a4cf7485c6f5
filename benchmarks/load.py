"""Opening a large scenario from a TOML file: 5,000 nodes (nodePools) and 150,000 pods (Deployments).
Prints CPU seconds (min and median of the runs) for parse, build, placing every initial pod through
the scheduler's semantics, and the first tick, and the process's memory once opened (RSS) and at its
peak; asserts nothing.

The scenario opens in its steady state: every pod created at t=0 is placed at t=0 (see the scheduler's
docstring), as `playground sim` and the TUI open it (playground.cli._open: the opened cluster kept out
of the garbage collector's sight). On a revision without that, "place" runs ticks until no pod is
pending.

    python benchmarks/load.py [--nodes 5000] [--pods 150000] [--runs 3] [--profile] [--pipeline]

--pipeline measures the per-pod pipeline around the scheduling cycle alone: each pod is bound to the
next node of the scheduler's node order instead of running a cycle, so "place + first tick" is what
creating, admitting, binding and starting the pods costs (the ReplicaSets' creates and events, the
store's informers, the kubelets, the Running reports at t=1 s), the scheduler's queue and per-node
bookkeeping included. The placement differs from the real one: compare this figure only with itself.
"""

from __future__ import annotations

import argparse
import gc
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from playground.engine import Simulation  # noqa: E402
from playground.scenario import load_scenario  # noqa: E402

from clusters import cluster_toml, open_as_the_cli_does  # noqa: E402
from profiling import print_profile  # noqa: E402


def scenario_toml(nodes: int, pods: int, zones: int = 10, deployments: int = 30) -> str:
    """nodePools over `zones` zones and `deployments` Deployments of three sizes of requests."""
    sizes = (("100m", "128Mi"), ("250m", "512Mi"), ("500m", "1Gi"))
    return cluster_toml("load", nodes, pods, zones, deployments, sizes, attempts_per_tick=None)


def read_scenario(nodes: int, pods: int):
    """This scenario read from its TOML file, as `playground FILE` reads one."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "load.toml"
        path.write_text(scenario_toml(nodes, pods))
        return load_scenario(path)


def size_arguments() -> argparse.ArgumentParser:
    """The arguments of the benchmarks that read this scenario: its size, the runs, --src=DIR."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pods", type=int, default=150_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--src", help="another checkout's directory, given as --src=DIR")
    return parser


def rss_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20


def open_once(path: Path, progress: bool) -> tuple[dict[str, float], Simulation]:
    times: dict[str, float] = {}
    start = time.process_time()
    scenario = load_scenario(path)
    times["parse"] = time.process_time() - start
    start = time.process_time()
    sim = Simulation(scenario)
    times["build"] = time.process_time() - start
    start = time.process_time()
    open_as_the_cli_does(sim)  # instant 0: the ReplicaSets create their pods, the scheduler places them
    sim.step()  # the first tick
    pending = sum(1 for p in sim.store.pods.values() if not p.node_name)
    while pending:  # a revision that places attemptsPerTick pods per tick needs more ticks
        sim.step()
        pending = sum(1 for p in sim.store.pods.values() if not p.node_name)
        if progress:
            print(f"\r  {sim.now // 1000} s simulated, {pending} pending", end="", file=sys.stderr)
    times["place + first tick"] = time.process_time() - start
    times["total"] = sum(times.values())
    return times, sim


def round_robin_binds() -> None:
    """Replace the scheduling cycle by a bind to the next node of the scheduler's order (--pipeline)."""
    from playground.engine.scheduler import Scheduler

    count = 0

    def bind_next(self, pod, info) -> None:
        nonlocal count
        order = self.node_order()
        count += 1
        self.bind(pod, order[count % len(order)])

    Scheduler._schedule_one = bind_next


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pods", type=int, default=150_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="print a cProfile summary of one run")
    parser.add_argument("--progress", action="store_true")
    parser.add_argument("--pipeline", action="store_true",
                        help="bind each pod to the next node instead of running a scheduling cycle")
    args = parser.parse_args()
    if args.pipeline:
        round_robin_binds()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "load.toml"
        path.write_text(scenario_toml(args.nodes, args.pods))
        if args.profile:
            print_profile(lambda: open_once(path, args.progress))
            return
        runs: list[dict[str, float]] = []
        opened_rss: list[float] = []
        for _ in range(args.runs):
            gc.unfreeze()  # the previous run's cluster, frozen by its open: collected here, not in the next open
            gc.collect()
            times, sim = open_once(path, args.progress)
            opened_rss.append(rss_mib())
            bound = sum(1 for p in sim.store.pods.values() if p.node_name)
            runs.append(times)
            del sim
        print(f"open {args.nodes} nodes / {args.pods} pods from TOML ({bound} bound at "
              f"t=0), CPU s over {args.runs} runs:")
        for key in runs[0]:
            values = [r[key] for r in runs]
            print(f"  {key:20s} min {min(values):7.2f}   median {statistics.median(values):7.2f}")
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"memory once opened (RSS) min {min(opened_rss):.0f} MiB, median {statistics.median(opened_rss):.0f} MiB; "
              f"peak RSS of the process {peak:.0f} MiB")


if __name__ == "__main__":
    main()
