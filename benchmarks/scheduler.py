"""Scheduler throughput in CPU seconds (time.process_time), min and median of --runs runs. Prints
figures and peak memory; asserts nothing.

1. scheduling: kube-scheduler's scheduler_perf SchedulingBasic shape (5000Nodes_10000Pods): 5,000
   nodes (4 cpu, 32Gi, 110 pods), 1,000 pods already placed, then 10,000 pending pods
   (100m / 500Mi) scheduled one cycle each. Target >= 7,000 pods/s.
2. end to end: a Deployment scaled 0 -> 10,000 on 5,000 nodes: the ReplicaSet creates the pods, the
   scheduler places them, the kubelets start them (until every pod is Running). Target >= 5,000 pods/s.
3. preemption: 5,000 nodes full of low-priority pods (4 x 1 cpu each), then 1,000 high-priority pods
   (1 cpu each) that each have to preempt (one PostFilter cycle each: victims chosen, node
   nominated); victims have a 30 s grace period. Target >= 1,500 pods/s.
4. preemption with retries (no target; the path a real preemption run takes next): the same, but
   the low-priority pods' grace periods are 10, 20 ... 60 s, so victims go one group at a time and
   every deletion sends the waiting preemptors back to a cycle (they fail while their nominated
   node still holds a terminating victim); measured from the first PostFilter cycles until every
   preemptor is bound.

    python benchmarks/scheduler.py [--nodes 5000] [--pods 10000] [--preemptors 1000] [--runs 3]
                                   [--only scheduling|deployment|preemption|retries] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from playground.engine import Operation, Simulation  # noqa: E402
from playground.engine.objects import PodTemplate  # noqa: E402
from playground.engine.workloads import pod_from_template  # noqa: E402
from playground.scenario import parse_scenario  # noqa: E402

from clusters import node_pools_toml  # noqa: E402

GI = 1024**3
MI = 1024**2


def cluster(nodes: int, cpu: str, memory: str, zones: int = 10, attempts: int = 100_000, extra: str = "") -> Simulation:
    parts = ['[scenario]\nname = "bench"\nseed = 1\n', f"[scheduler]\nattemptsPerTick = {attempts}\n",
             '[[priorityClasses]]\nname = "high"\nvalue = 1000\n', node_pools_toml(nodes, zones, cpu, memory), extra]
    return Simulation(parse_scenario("".join(parts)), event_limit=10_000)


def create(sim: Simulation, name: str, template: PodTemplate, node: str | None = None) -> None:
    pod = pod_from_template(sim, name, "default", template, None)
    if node is not None:
        pod.node_name = node
    sim.apiserver.create_pod(pod)


def measured(run, profile: bool) -> float:
    """CPU seconds of run()."""
    gc.collect()
    profiler = cProfile.Profile() if profile else None
    start = time.process_time()
    if profiler:
        profiler.enable()
    run()
    if profiler:
        profiler.disable()
    cpu = time.process_time() - start
    if profiler:
        pstats.Stats(profiler).sort_stats("tottime").print_stats(20)
    return cpu


def bench_scheduling(nodes: int, init_pods: int, pods: int, profile: bool) -> tuple[float, int]:
    sim = cluster(nodes, "4", "32Gi")
    template = PodTemplate(labels={"app": "bench"}, cpu=100, memory=500 * MI)
    names = list(sim.store.nodes)
    for i in range(init_pods):
        create(sim, f"init-{i}", template, names[i % len(names)])
    sim.run_until(5)
    for i in range(pods):
        create(sim, f"pod-{i}", template)
    # The scheduler's run at 5 s places them all (containers start at 6 s, outside the measure).
    cpu = measured(lambda: sim.run_until(5.5), profile)
    bound = sum(1 for p in sim.store.pods.values() if p.node_name and p.name.startswith("pod-"))
    return cpu, bound


def bench_deployment(nodes: int, replicas: int, profile: bool) -> tuple[float, int]:
    extra = """
[[deployments]]
name = "web"
replicas = 0
template = { labels = { app = "web" }, requests = { cpu = "100m", memory = "128Mi" } }
"""
    sim = cluster(nodes, "4", "32Gi", extra=extra)
    sim.run_until(5)

    def scale_and_start() -> None:
        sim.apply(Operation("scale", deployment="web", replicas=replicas))
        while True:
            sim.run_until(sim.now / 1000 + 1)
            if sim.now > 600_000 or all(p.phase == "Running" for p in sim.store.pods.values()):
                break

    cpu = measured(scale_and_start, profile)
    running = sum(1 for p in sim.store.pods.values() if p.phase == "Running")
    return cpu, running


def full_cluster(nodes: int, preemptors: int, graces: tuple[int, ...] = (30,)) -> Simulation:
    """Nodes full of low-priority pods (4 x 1 cpu, grace periods cycling through `graces`) and
    `preemptors` pending high-priority pods, at 5 s."""
    sim = cluster(nodes, "4", "16Gi")
    lows = [PodTemplate(labels={"app": "low"}, cpu=1000, memory=1 * GI, priority=0,
                        termination_grace_period_seconds=grace) for grace in graces]
    names = list(sim.store.nodes)
    for n, name in enumerate(names):
        for j in range(4):
            create(sim, f"low-{name}-{j}", lows[(n + j) % len(lows)], name)
    sim.run_until(5)
    high = PodTemplate(labels={"app": "high"}, cpu=1000, memory=1 * GI, priority_class_name="high")
    for i in range(preemptors):
        create(sim, f"high-{i}", high)
    return sim


def bench_preemption(nodes: int, preemptors: int, profile: bool) -> tuple[float, int, int]:
    sim = full_cluster(nodes, preemptors)
    # every preemptor gets one cycle: PostFilter picks victims and nominates a node
    cpu = measured(lambda: sim.run_until(6), profile)
    nominated = sum(1 for p in sim.store.pods.values() if p.nominated_node_name)
    victims = sum(1 for p in sim.store.pods.values() if p.deletion_timestamp is not None)
    return cpu, nominated, victims


def bench_retries(nodes: int, preemptors: int, profile: bool) -> tuple[float, int]:
    sim = full_cluster(nodes, preemptors, graces=(10, 20, 30, 40, 50, 60))
    sim.run_until(5.5)  # the first PostFilter cycles (not measured: that is bench_preemption)
    cpu = measured(lambda: sim.run_until(70), profile)
    bound = sum(1 for p in sim.store.pods.values() if p.node_name and p.name.startswith("high-"))
    return cpu, bound


def report(label: str, count: int, cpus: list[float], target: int, extra: str = "") -> None:
    rates = sorted(count / c for c in cpus)
    print(f"{label}: {count} pods{extra}; CPU s min {min(cpus):.3f} median {statistics.median(cpus):.3f} "
          f"= {rates[-1]:,.0f} pods/s best, {statistics.median(rates):,.0f} median (target >= {target:,})")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--init-pods", type=int, default=1000)
    parser.add_argument("--pods", type=int, default=10_000)
    parser.add_argument("--replicas", type=int, default=10_000)
    parser.add_argument("--preemptors", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="print a cProfile summary of the measured part")
    parser.add_argument("--only", choices=("scheduling", "deployment", "preemption", "retries"))
    args = parser.parse_args()
    if args.only in (None, "scheduling"):
        results = [bench_scheduling(args.nodes, args.init_pods, args.pods, args.profile) for _ in range(args.runs)]
        report(f"scheduling, {args.nodes} nodes, {args.init_pods} placed + {args.pods} pending", results[0][1],
                [r[0] for r in results], 7000)
    if args.only in (None, "deployment"):
        results = [bench_deployment(args.nodes, args.replicas, args.profile) for _ in range(args.runs)]
        report(f"end to end, Deployment 0 -> {args.replicas} on {args.nodes} nodes", results[0][1],
               [r[0] for r in results], 5000, " Running")
    if args.only in (None, "preemption"):
        results = [bench_preemption(args.nodes, args.preemptors, args.profile) for _ in range(args.runs)]
        report(f"preemption, {args.nodes} full nodes, {args.preemptors} high-priority", args.preemptors,
               [r[0] for r in results], 1500, f" ({results[0][1]} nominated, {results[0][2]} victims)")
    if args.only in (None, "retries"):
        results = [bench_retries(args.nodes, args.preemptors, args.profile) for _ in range(args.runs)]
        cpus = [r[0] for r in results]
        print(f"preemption retries, {args.nodes} full nodes, victims' grace 10-60 s: {results[0][1]} of "
              f"{args.preemptors} preemptors bound; CPU s min {min(cpus):.3f} median {statistics.median(cpus):.3f}")
    print(f"peak memory (max RSS): {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MiB")


if __name__ == "__main__":
    main()
