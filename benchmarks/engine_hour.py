"""Engine throughput on a large cluster: 5,000 nodes, 150,000 pods, one simulated hour with a node
failure. Prints simulated seconds per wall second and peak memory; asserts nothing.

The initial 150,000 pods are placed at t=0 through the scheduler, as the playground opens a scenario
(benchmarks/load.py measures that part); everything after that -- the failure, tainting, eviction,
replacement pods and their scheduling -- runs as usual.

    python benchmarks/engine_hour.py [--nodes 5000] [--pods 150000] [--hours 1]
"""

from __future__ import annotations

import argparse
import gc
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from playground.engine import Operation, Simulation  # noqa: E402
from playground.scenario import parse_scenario  # noqa: E402

from clusters import cluster_toml  # noqa: E402
from zone_outage import place_initial_pods  # noqa: E402


def build_scenario(nodes: int, pods: int, zones: int = 10, deployments: int = 50) -> str:
    return cluster_toml("bench", nodes, pods, zones, deployments)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pods", type=int, default=150_000)
    parser.add_argument("--hours", type=float, default=1.0)
    args = parser.parse_args()

    t0 = time.perf_counter()
    scenario = parse_scenario(build_scenario(args.nodes, args.pods))
    sim = Simulation(scenario, event_limit=10_000)
    place_initial_pods(sim)
    sim.run_until(10)  # containers start
    gc.collect()
    build = time.perf_counter() - t0
    running = sum(1 for p in sim.store.pods.values() if p.phase == "Running")
    print(f"cluster: {len(sim.store.nodes)} nodes, {len(sim.store.pods)} pods ({running} running), "
          f"built in {build:.1f} s wall")

    victim = next(iter(sim.store.nodes))
    sim.run_until(60)
    sim.apply(Operation("power-off", node=victim))
    end = args.hours * 3600
    t1 = time.perf_counter()
    steps = 0
    while sim.clock.now < end * 1000:
        sim.step()
        steps += 1
    wall = time.perf_counter() - t1
    simulated = end - 60
    deleting = sum(1 for p in sim.store.pods_on(victim) if p.deletion_timestamp is not None)
    pending = sum(1 for p in sim.store.pods.values() if not p.node_name)
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"node {victim} powered off at 60 s: Ready={sim.store.nodes[victim].ready_status()}, "
          f"{deleting} of its pods Terminating, {pending} pods pending at the end")
    print(f"simulated {simulated:.0f} s in {steps} ticks and {wall:.2f} s wall: "
          f"{simulated / wall:,.0f} simulated s per wall s ({wall / steps * 1e3:.2f} ms per tick)")
    print(f"peak memory (max RSS): {peak_mib:,.0f} MiB")


if __name__ == "__main__":
    main()
