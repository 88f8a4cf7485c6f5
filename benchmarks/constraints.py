"""Opening a cluster whose pods carry the constraints production clusters use: a DaemonSet on every
node, Deployments spread over the zones with a DoNotSchedule constraint (maxSkew 1), one with
required pod anti-affinity on kubernetes.io/hostname (one replica a node) and one with its
preferred form, and optionally plain Deployments beside them. Prints CPU seconds (min and median
of the runs) to open it from its TOML file as `playground sim` does (parse, build, every pod placed
at t=0 through the scheduler, the first tick) and the pods placed; asserts nothing.

    .venv/bin/python benchmarks/constraints.py [--nodes 5000] [--spread 10] [--spread-replicas 3000]
        [--anti 1000] [--preferred 2000] [--plain 0] [--runs 3] [--src=DIR] [--profile]

The defaults are 38,000 pods on 5,000 nodes (5 zones). --plain N adds N pods in 20 Deployments
without constraints (their runs of equivalent pods stay while the anti-affinity pods exist).
--src=DIR runs another checkout of the code (the base revision, for before / after figures).
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
import statistics
import tempfile
import time
from pathlib import Path

from checkout import use_checkout  # noqa: E402

use_checkout()

from clusters import deployments_toml, node_pools_toml, open_as_the_cli_does  # noqa: E402

from playground.engine import Simulation  # noqa: E402
from playground.scenario import load_scenario  # noqa: E402

ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"


def scenario_toml(nodes: int, spread: int, spread_replicas: int, anti: int, preferred: int, plain: int) -> str:
    parts = ['[scenario]\nname = "constraints"\nseed = 1\n', node_pools_toml(nodes, 5, "32", "128Gi"), """
[[daemonSets]]
name = "node-exporter"
namespace = "monitoring"
template = { labels = { app = "node-exporter" }, requests = { cpu = "100m", memory = "64Mi" } }
"""]
    for i in range(spread):
        parts.append(f"""
[[deployments]]
name = "spread-{i}"
replicas = {spread_replicas}
template.labels = {{ app = "spread-{i}" }}
template.requests = {{ cpu = "100m", memory = "128Mi" }}
template.topologySpreadConstraints = [
  {{ maxSkew = 1, topologyKey = "{ZONE}", whenUnsatisfiable = "DoNotSchedule", labelSelector = {{ matchLabels = {{ app = "spread-{i}" }} }} }},
]
""")
    if anti:
        parts.append(f"""
[[deployments]]
name = "cache"
replicas = {anti}
template.labels = {{ app = "cache" }}
template.requests = {{ cpu = "250m", memory = "256Mi" }}
template.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution = [
  {{ labelSelector = {{ matchLabels = {{ app = "cache" }} }}, topologyKey = "{HOST}" }},
]
""")
    if preferred:
        parts.append(f"""
[[deployments]]
name = "web"
replicas = {preferred}
template.labels = {{ app = "web" }}
template.requests = {{ cpu = "250m", memory = "256Mi" }}
template.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution = [
  {{ weight = 100, podAffinityTerm = {{ labelSelector = {{ matchLabels = {{ app = "web" }} }}, topologyKey = "{HOST}" }} }},
]
""")
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--spread", type=int, default=10, help="Deployments with a zone DoNotSchedule constraint")
    parser.add_argument("--spread-replicas", type=int, default=3000)
    parser.add_argument("--anti", type=int, default=1000, help="replicas with required hostname anti-affinity")
    parser.add_argument("--preferred", type=int, default=2000, help="replicas with preferred hostname anti-affinity")
    parser.add_argument("--plain", type=int, default=0, help="pods in 20 Deployments without constraints")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="print a cProfile summary of one run")
    parser.add_argument("--src", help="another checkout's directory, given as --src=DIR")
    args = parser.parse_args()
    text = scenario_toml(args.nodes, args.spread, args.spread_replicas, args.anti, args.preferred, args.plain)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "constraints.toml"
        path.write_text(text)
        if args.profile:
            profiler = cProfile.Profile()
            profiler.enable()
            open_once(path)
            profiler.disable()
            pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
            return
        seconds = []
        for _ in range(args.runs):
            gc.unfreeze()  # the previous run's cluster, frozen by its open: collected here
            gc.collect()
            spent, bound = open_once(path)
            seconds.append(spent)
    pods = args.nodes + args.spread * args.spread_replicas + args.anti + args.preferred + args.plain
    print(f"open {args.nodes} nodes / {pods} pods with constraints ({bound} bound at t=0), CPU s over "
          f"{args.runs} runs: min {min(seconds):.2f}  median {statistics.median(seconds):.2f}")


if __name__ == "__main__":
    main()
