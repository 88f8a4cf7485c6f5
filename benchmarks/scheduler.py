"""Scheduler throughput: pods scheduled (and preemptions made) per wall second. Prints figures and
peak memory; asserts nothing.

1. scheduling: kube-scheduler's scheduler_perf SchedulingBasic shape (5000Nodes_10000Pods): 5,000
   nodes (4 cpu, 32Gi, 110 pods), 1,000 pods already placed, then 10,000 pending pods
   (100m / 500Mi) scheduled one cycle each.
2. preemption: 5,000 nodes full of low-priority pods (4 × 1 cpu each), then a stream of
   high-priority pods (1 cpu each) that each have to preempt; victims have a 30 s grace period.

    python benchmarks/scheduler.py [--nodes 5000] [--pods 10000] [--preemptors 500] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
import resource
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from playground.engine import Simulation  # noqa: E402
from playground.engine.objects import PodTemplate  # noqa: E402
from playground.engine.workloads import pod_from_template  # noqa: E402
from playground.scenario import parse_scenario  # noqa: E402

from clusters import node_pools_toml  # noqa: E402

GI = 1024**3
MI = 1024**2


def cluster(nodes: int, cpu: str, memory: str, zones: int = 10, attempts: int = 100_000) -> Simulation:
    parts = ['[scenario]\nname = "bench"\nseed = 1\n', f"[scheduler]\nattemptsPerTick = {attempts}\n",
             '[[priorityClasses]]\nname = "high"\nvalue = 1000\n', node_pools_toml(nodes, zones, cpu, memory)]
    return Simulation(parse_scenario("".join(parts)), event_limit=10_000)


def create(sim: Simulation, name: str, template: PodTemplate, node: str | None = None) -> None:
    pod = pod_from_template(sim, name, "default", template, None)
    if node is not None:
        pod.node_name = node
    sim.apiserver.create_pod(pod)


def bench_scheduling(nodes: int, init_pods: int, pods: int, profile: bool) -> None:
    sim = cluster(nodes, "4", "32Gi")
    template = PodTemplate(labels={"app": "bench"}, cpu=100, memory=500 * MI)
    names = list(sim.store.nodes)
    for i in range(init_pods):
        create(sim, f"init-{i}", template, names[i % len(names)])
    sim.run_until(5)
    for i in range(pods):
        create(sim, f"pod-{i}", template)
    gc.collect()
    profiler = cProfile.Profile() if profile else None
    start = time.perf_counter()
    if profiler:
        profiler.enable()
    sim.run_until(6)
    if profiler:
        profiler.disable()
    wall = time.perf_counter() - start
    bound = sum(1 for p in sim.store.pods.values() if p.node_name and p.name.startswith("pod-"))
    print(f"scheduling: {nodes} nodes, {init_pods} placed + {pods} pending pods: {bound} scheduled in {wall:.2f} s "
          f"wall = {bound / wall:,.0f} pods/s ({wall / max(bound, 1) * 1e3:.2f} ms per cycle)")
    if profiler:
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(18)


def bench_preemption(nodes: int, preemptors: int, profile: bool) -> None:
    sim = cluster(nodes, "4", "16Gi", attempts=100_000)
    low = PodTemplate(labels={"app": "low"}, cpu=1000, memory=1 * GI, priority=0)
    names = list(sim.store.nodes)
    for name in names:
        for j in range(4):
            create(sim, f"low-{name}-{j}", low, name)
    sim.run_until(5)
    high = PodTemplate(labels={"app": "high"}, cpu=1000, memory=1 * GI, priority_class_name="high")
    for i in range(preemptors):
        create(sim, f"high-{i}", high)
    gc.collect()
    profiler = cProfile.Profile() if profile else None
    start = time.perf_counter()
    if profiler:
        profiler.enable()
    sim.run_until(6)  # every preemptor gets one cycle: PostFilter picks victims and nominates a node
    if profiler:
        profiler.disable()
    wall = time.perf_counter() - start
    nominated = sum(1 for p in sim.store.pods.values() if p.nominated_node_name)
    victims = sum(1 for p in sim.store.pods.values() if p.deletion_timestamp is not None)
    print(f"preemption: {nodes} nodes full of low-priority pods, {preemptors} high-priority pods: {nominated} "
          f"nominated, {victims} victims, in {wall:.2f} s wall = {preemptors / wall:,.1f} preemptions/s "
          f"({wall / max(preemptors, 1) * 1e3:.1f} ms per preempting cycle)")
    if profiler:
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(18)
    start = time.perf_counter()
    sim.run_until(60)
    wall = time.perf_counter() - start
    bound = sum(1 for p in sim.store.pods.values() if p.node_name and p.name.startswith("high-"))
    print(f"            after the victims' 30 s grace: {bound} of {preemptors} high-priority pods bound "
          f"(simulating 6 s..60 s took {wall:.2f} s wall)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--init-pods", type=int, default=1000)
    parser.add_argument("--pods", type=int, default=10_000)
    parser.add_argument("--preemptors", type=int, default=500)
    parser.add_argument("--profile", action="store_true", help="print a cProfile summary of the measured part")
    parser.add_argument("--only", choices=("scheduling", "preemption"))
    parser.add_argument("--tracemalloc", action="store_true", help="peak traced Python memory (slower)")
    args = parser.parse_args()
    if args.tracemalloc:
        tracemalloc.start()
    if args.only in (None, "scheduling"):
        bench_scheduling(args.nodes, args.init_pods, args.pods, args.profile)
    if args.only in (None, "preemption"):
        bench_preemption(args.nodes, args.preemptors, args.profile)
    if args.tracemalloc:
        _, peak = tracemalloc.get_traced_memory()
        print(f"peak traced memory: {peak / MI:,.0f} MiB")
    print(f"peak memory (max RSS): {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MiB")


if __name__ == "__main__":
    main()
