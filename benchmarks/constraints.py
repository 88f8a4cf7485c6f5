"""Opening a cluster whose pods carry the constraints production clusters use: a DaemonSet on every
node, Deployments spread over the zones with a DoNotSchedule constraint (maxSkew 1), one with
required pod anti-affinity on kubernetes.io/hostname (one replica a node) and one with its
preferred form, and optionally plain Deployments beside them. Prints CPU seconds (min and median
of the runs) to open it from its TOML file as `playground sim` does (parse, build, every pod placed
at t=0 through the scheduler, the first tick) and the pods placed; asserts nothing.

    .venv/bin/python benchmarks/constraints.py [--nodes 5000] [--spread 10] [--spread-replicas 3000]
        [--anti 1000] [--preferred 2000] [--plain 0] [--host-anyway] [--runs 3] [--outage HOURS] [--src=DIR]
        [--profile]

The defaults are 38,000 pods on 5,000 nodes (5 zones). --plain N adds N pods in 20 Deployments
without constraints (their runs of equivalent pods stay while the anti-affinity pods exist).
--host-anyway gives the zone-spread Deployments a second constraint, on kubernetes.io/hostname with
whenUnsatisfiable ScheduleAnyway (maxSkew 1): the pair many charts ship ("spread over the zones, and
over the nodes where it can").
--outage HOURS then powers off the first zone's nodes at 5 m and runs to HOURS simulated hours,
printing simulated seconds per CPU second every 10 simulated minutes and in all, and the pods left
Pending (the zone-spread replacements stay Pending: nodeTaintsPolicy Ignore counts the dead zone, so
each is retried as its queueing hints say, and its preemption finds no pod of lower priority).
--src=DIR runs another checkout of the code (the base revision, for before / after figures).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import tempfile
import time
from pathlib import Path

from checkout import use_checkout  # noqa: E402

use_checkout()

from clusters import deployments_toml, node_pools_toml, open_as_the_cli_does  # noqa: E402
from profiling import print_profile  # noqa: E402

from playground.engine import Operation, Simulation  # noqa: E402
from playground.scenario import load_scenario  # noqa: E402

ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"
TERM = f'labelSelector = {{ matchLabels = {{ app = "%s" }} }}, topologyKey = "{HOST}"'


def deployment_toml(name: str, replicas: int, cpu: str, memory: str, rule: str) -> str:
    """A Deployment of `replicas` pods labelled app=`name` whose template also holds `rule`."""
    return f"""
[[deployments]]
name = "{name}"
replicas = {replicas}
template.labels = {{ app = "{name}" }}
template.requests = {{ cpu = "{cpu}", memory = "{memory}" }}
template.{rule}
"""


def spread_rule(name: str, host_anyway: bool) -> str:
    """The zone DoNotSchedule constraint of a spread Deployment, and with `host_anyway` a hostname
    ScheduleAnyway one after it."""
    selector = f'labelSelector = {{ matchLabels = {{ app = "{name}" }} }}'
    rules = [f'{{ maxSkew = 1, topologyKey = "{ZONE}", whenUnsatisfiable = "DoNotSchedule", {selector} }}']
    if host_anyway:
        rules.append(f'{{ maxSkew = 1, topologyKey = "{HOST}", whenUnsatisfiable = "ScheduleAnyway", {selector} }}')
    return "topologySpreadConstraints = [\n" + "".join(f"  {rule},\n" for rule in rules) + "]"


def scenario_toml(nodes: int, spread: int, spread_replicas: int, anti: int, preferred: int, plain: int,
                  host_anyway: bool = False) -> str:
    parts = ['[scenario]\nname = "constraints"\nseed = 1\n', node_pools_toml(nodes, 5, "32", "128Gi"), """
[[daemonSets]]
name = "node-exporter"
namespace = "monitoring"
template = { labels = { app = "node-exporter" }, requests = { cpu = "100m", memory = "64Mi" } }
"""]
    for i in range(spread):
        parts.append(deployment_toml(f"spread-{i}", spread_replicas, "100m", "128Mi", spread_rule(f"spread-{i}", host_anyway)))
    if anti:
        parts.append(deployment_toml("cache", anti, "250m", "256Mi",
                                     'affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution = '
                                     f'[\n  {{ {TERM % "cache"} }},\n]'))
    if preferred:
        parts.append(deployment_toml("web", preferred, "250m", "256Mi",
                                     'affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution = '
                                     f'[\n  {{ weight = 100, podAffinityTerm = {{ {TERM % "web"} }} }},\n]'))
    if plain:
        parts.append(deployments_toml(plain, 20))
    return "".join(parts)


def open_once(path: Path) -> tuple[float, int]:
    start = time.process_time()
    sim = Simulation(load_scenario(path))
    open_as_the_cli_does(sim)
    sim.step()
    seconds = time.process_time() - start
    return seconds, sum(1 for p in sim.store.pods.values() if p.node_name)


def outage(path: Path, hours: float) -> None:
    sim = Simulation(load_scenario(path), event_limit=10_000)
    open_as_the_cli_does(sim)
    sim.run_until(300)
    zone = sorted(sim.store.nodes_by_zone)[0]
    start = time.process_time()
    for name in sorted(sim.store.nodes_by_zone[zone]):
        sim.apply(Operation("power-off", node=name))
    end = int(hours * 3600 * 1000)
    mark, last = sim.clock.now, start
    while sim.clock.now < end:
        sim.step()
        if sim.clock.now - mark >= 600_000 or sim.clock.now >= end:
            now = time.process_time()
            pending = sum(1 for p in sim.store.pods.values() if not p.node_name)
            print(f"  at {sim.clock.now // 1000:6d} s: ×{(sim.clock.now - mark) / 1000 / (now - last):5.0f} per CPU s"
                  f" over the last {(sim.clock.now - mark) // 1000} s, {pending} pods Pending", flush=True)
            mark, last = sim.clock.now, now
    cpu = time.process_time() - start
    print(f"{zone} powered off at 300 s, run to {end // 1000} s: {(end - 300_000) / 1000 / cpu:.0f} simulated s "
          f"per CPU s ({cpu:.1f} s)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--spread", type=int, default=10, help="Deployments with a zone DoNotSchedule constraint")
    parser.add_argument("--spread-replicas", type=int, default=3000)
    parser.add_argument("--anti", type=int, default=1000, help="replicas with required hostname anti-affinity")
    parser.add_argument("--preferred", type=int, default=2000, help="replicas with preferred hostname anti-affinity")
    parser.add_argument("--plain", type=int, default=0, help="pods in 20 Deployments without constraints")
    parser.add_argument("--host-anyway", action="store_true",
                        help="the zone-spread Deployments also spread over the nodes (hostname, ScheduleAnyway)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="print a cProfile summary of one run")
    parser.add_argument("--outage", type=float, default=0, help="then run a zone outage to this many hours")
    parser.add_argument("--src", help="another checkout's directory, given as --src=DIR")
    args = parser.parse_args()
    text = scenario_toml(args.nodes, args.spread, args.spread_replicas, args.anti, args.preferred, args.plain,
                         args.host_anyway)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "constraints.toml"
        path.write_text(text)
        if args.profile:
            print_profile(lambda: open_once(path))
            return
        seconds = []
        for _ in range(args.runs):
            gc.unfreeze()  # the previous run's cluster, frozen by its open: collected here
            gc.collect()
            spent, bound = open_once(path)
            seconds.append(spent)
        pods = args.nodes + args.spread * args.spread_replicas + args.anti + args.preferred + args.plain
        print(f"open {args.nodes} nodes / {pods} pods with constraints ({bound} bound at t=0), CPU s over "
              f"{args.runs} runs: min {min(seconds):.2f}  median {statistics.median(seconds):.2f}", flush=True)
        if args.outage:
            outage(path, args.outage)


if __name__ == "__main__":
    main()
