"""Generated scenarios of 300-1,500 nodes, large enough for the adaptive percentageOfNodesToScore and
the round-robin window to matter: node pools over several zones (some tainted, with PreferNoSchedule
too, some cordoned, labelled), Deployments of several templates (tolerations, nodeSelector,
preferred node affinity, priorities), a PodDisruptionBudget, and a timeline with a scale-up that
has to preempt, cordons, taints and a node failure.

    python tests/scale_scenarios.py NODES SEED > scenario.toml
"""

from __future__ import annotations

import random
import sys

ZONES = ("zone-a", "zone-b", "zone-c", "zone-d")


def scale_scenario(nodes: int, seed: int) -> str:
    rng = random.Random(seed)
    out = [f'[scenario]\nname = "scale-{nodes}-{seed}"\nseed = {seed}\nduration = "8m"\n',
           # Room for every t=0 pod in tick 0, so the base revision (which spread them over ticks)
           # and this one place them at the same instants.
           '[scheduler]\nattemptsPerTick = 100000\n',
           '[[priorityClasses]]\nname = "high"\nvalue = 1000\n',
           '[[priorityClasses]]\nname = "low"\nvalue = 10\n']
    pools = rng.randint(4, 8)
    per_pool = nodes // pools
    names: list[str] = []
    capacity = 0
    for p in range(pools):
        zone = ZONES[p % len(ZONES)]
        taints = rng.choice([[], [], ['"dedicated=db:NoSchedule"'], ['"spot=true:PreferNoSchedule"']])
        disk = rng.choice(["ssd", "hdd"])
        cpu, memory = rng.choice([("4", "16Gi"), ("8", "32Gi"), ("2", "8Gi")])
        out.append(f'[[nodePools]]\nnamePrefix = "p{p}-"\ncount = {per_pool}\n'
                   f'labels = {{ "topology.kubernetes.io/zone" = "{zone}", disk = "{disk}" }}\n'
                   f'capacity = {{ cpu = "{cpu}", memory = "{memory}", pods = 30 }}\n'
                   f'taints = [{", ".join(taints)}]\nunschedulable = {"true" if rng.random() < 0.1 else "false"}\n')
        names += [f"p{p}-{i}" for i in range(1, per_pool + 1)]
        capacity += per_pool * int(cpu) * 1000
    deployments = rng.randint(3, 6)
    for d in range(deployments):
        cpu = rng.choice(["100m", "250m", "500m", "1"])
        millis = int(cpu[:-1]) if cpu.endswith("m") else int(cpu) * 1000
        # Together about 90 % of the cluster's cpu: full enough that the urgent pods must preempt.
        replicas = int(capacity * 0.9 / deployments / millis)
        memory = rng.choice(["128Mi", "512Mi", "1Gi"])
        extra = rng.choice(["", ', tolerations = [{ key = "dedicated", operator = "Exists" }]',
                            ', nodeSelector = { disk = "ssd" }',
                            ', affinity = { nodeAffinity = { preferredDuringSchedulingIgnoredDuringExecution = '
                            '[{ weight = 10, preference = { matchExpressions = [{ key = "disk", operator = "In", '
                            'values = ["hdd"] }] } }] } }'])
        out.append(f'[[deployments]]\nname = "app-{d}"\nreplicas = {replicas}\n'
                   f'template = {{ priorityClassName = "low", labels = {{ app = "app-{d}" }}, '
                   f'requests = {{ cpu = "{cpu}", memory = "{memory}" }}{extra} }}\n')
    out.append('[[podDisruptionBudgets]]\nname = "app-0"\nselector = { app = "app-0" }\nmaxUnavailable = 2\n')
    out.append(f'[[deployments]]\nname = "urgent"\nreplicas = 0\n'
               f'template = {{ priorityClassName = "high", labels = {{ app = "urgent" }}, '
               f'requests = {{ cpu = "2", memory = "2Gi" }} }}\n')
    timeline = [("30s", "cordon", rng.choice(names)), ("45s", "taint", rng.choice(names)),
                ("1m", "power-off", rng.choice(names)), ("90s", "scale", "urgent")]
    for at, do, target in timeline:
        if do == "scale":
            out.append(f'[[timeline]]\nat = "{at}"\ndo = "scale"\ndeployment = "urgent"\nreplicas = {nodes // 5}\n')
        elif do == "taint":
            out.append(f'[[timeline]]\nat = "{at}"\ndo = "taint"\nnode = "{target}"\ntaint = "maint=yes:NoSchedule"\n')
        else:
            out.append(f'[[timeline]]\nat = "{at}"\ndo = "{do}"\nnode = "{target}"\n')
    return "\n".join(out)


if __name__ == "__main__":
    print(scale_scenario(int(sys.argv[1]), int(sys.argv[2])))
