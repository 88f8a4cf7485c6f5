"""A whole zone loses power: 5,000 nodes / 150,000 pods in 5 zones, the 1,000 nodes of one zone
powered off at 5 m, run through 3 simulated hours (the zone tainted at 0.1 node/s, every evicted pod
replaced by its ReplicaSet and placed by the scheduler). Prints, for each run, simulated seconds per
CPU second of the outage, the process's peak RSS and memory once the cluster is built, and the time
the garbage collector paused; then the min and median over the runs. Asserts nothing.

Each run is a fresh process (peak RSS is per process).

    .venv/bin/python benchmarks/zone_outage.py [--nodes 5000] [--pods 150000] [--hours 3] [--runs 3]
                                               [--src DIR] [--profile FILE]

--src runs another checkout of the code (e.g. the base revision) with this same script.
--profile writes a cProfile of the outage part of one run (use with --runs 1).
"""

from __future__ import annotations

import argparse
import gc
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def build_scenario_text(nodes: int, pods: int, zones: int, deployments: int) -> str:
    from clusters import cluster_toml

    return cluster_toml("zone-outage-bench", nodes, pods, zones, deployments)


def place_initial_pods(sim) -> None:
    """Open the scenario in its steady state, as the playground does: every pod the ReplicaSets
    create at instant 0 is placed at instant 0 through the scheduler's own cycles."""
    sim.clock.run_due(0)


class GCTimer:
    """Wall time spent inside the garbage collector (gc.callbacks)."""

    def __init__(self) -> None:
        self.total = 0.0
        self.longest = 0.0
        self.collections = 0
        self._start = 0.0
        gc.callbacks.append(self._callback)

    def _callback(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._start = time.perf_counter()
        else:
            pause = time.perf_counter() - self._start
            self.total += pause
            self.longest = max(self.longest, pause)
            self.collections += 1


def rss_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20


def one_run(args: argparse.Namespace) -> dict:
    sys.path.insert(0, str(HERE))
    sys.path.insert(0, str(Path(args.src).resolve() if args.src else HERE.parent))
    from playground.engine import Operation, Simulation
    from playground.scenario import parse_scenario

    gc_timer = GCTimer()
    c0 = time.process_time()
    scenario = parse_scenario(build_scenario_text(args.nodes, args.pods, args.zones, 50))
    sim = Simulation(scenario, event_limit=10_000)
    place_initial_pods(sim)
    sim.run_until(10)  # containers start
    if not args.no_freeze:
        # As the playground does once a scenario is open (simulation.freeze_heap): the collector stops
        # walking the cluster's objects, which are long-lived, and collects less often.
        try:
            from playground.engine.simulation import freeze_heap
        except ImportError:  # an older revision (--src): freeze only
            gc.collect()
            gc.freeze()
        else:
            freeze_heap()
    build_cpu = time.process_time() - c0
    built_rss = rss_mib()
    build_gc = gc_timer.total

    sim.run_until(300)
    zone = sorted(sim.store.nodes_by_zone)[0]
    victims = sorted(sim.store.nodes_by_zone[zone])
    gc_timer.total = gc_timer.longest = 0.0
    gc_timer.collections = 0
    profiler = None
    if args.profile:
        import cProfile
        profiler = cProfile.Profile()
        profiler.enable()
    c1 = time.process_time()
    for name in victims:
        sim.apply(Operation("power-off", node=name))
    end = int(args.hours * 3600 * 1000)
    while sim.clock.now < end:
        sim.step()
    cpu = time.process_time() - c1
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(args.profile)
    simulated = (end - 300_000) / 1000
    store = sim.store
    tainted = sum(1 for n in victims if store.nodes[n].has_taint("node.kubernetes.io/unreachable", "NoExecute"))
    left = sum(len(store.pods_by_node.get(n, {})) for n in victims)
    pending = sum(1 for p in store.pods.values() if not p.node_name)
    return {
        "build_cpu": build_cpu, "built_rss": built_rss, "build_gc": build_gc,
        "cpu": cpu, "speed": simulated / cpu, "peak_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "gc": gc_timer.total, "gc_longest": gc_timer.longest, "gc_count": gc_timer.collections,
        "pods": len(store.pods), "tainted": tainted, "victims": len(victims), "left_on_zone": left,
        "pending": pending, "events": store.recorder.total,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pods", type=int, default=150_000)
    parser.add_argument("--zones", type=int, default=5)
    parser.add_argument("--hours", type=float, default=3.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--src", default=None)
    parser.add_argument("--profile", default=None)
    parser.add_argument("--no-freeze", action="store_true", help="no gc.freeze() after the build")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one_run(args)))
        return
    results = []
    forwarded = [f"--nodes={args.nodes}", f"--pods={args.pods}", f"--zones={args.zones}", f"--hours={args.hours}"]
    forwarded += [f"--src={args.src}"] if args.src else []
    forwarded += [f"--profile={args.profile}"] if args.profile else []
    forwarded += ["--no-freeze"] if args.no_freeze else []
    for i in range(args.runs):
        out = subprocess.run([sys.executable, __file__, "--one", *forwarded], check=True,
                             capture_output=True, text=True).stdout
        r = json.loads(out.strip().splitlines()[-1])
        results.append(r)
        print(f"run {i + 1}: outage {r['speed']:,.0f} simulated s per CPU s ({r['cpu']:.1f} CPU s); "
              f"build {r['build_cpu']:.1f} CPU s, RSS {r['built_rss']:.0f} MiB built, peak {r['peak_rss']:.0f} MiB; "
              f"GC {r['gc']:.2f} s in {r['gc_count']} collections (longest {r['gc_longest'] * 1000:.0f} ms); "
              f"{r['tainted']}/{r['victims']} tainted, {r['left_on_zone']} pods left on the zone, "
              f"{r['pending']} pending, {r['pods']} pods, {r['events']} events", flush=True)

    def summary(key: str, fmt: str) -> str:
        values = [r[key] for r in results]
        return f"min {format(min(values), fmt)} / median {format(statistics.median(values), fmt)}"

    print(f"outage x per CPU s: {summary('speed', ',.0f')}")
    print(f"outage CPU s:       {summary('cpu', '.1f')}")
    print(f"RSS once built MiB: {summary('built_rss', '.0f')}")
    print(f"peak RSS MiB:       {summary('peak_rss', '.0f')}")
    print(f"GC pause s:         {summary('gc', '.2f')}   longest: {summary('gc_longest', '.2f')}")


if __name__ == "__main__":
    main()
