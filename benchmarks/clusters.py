"""Scenario text for the large clusters the benchmarks build."""

from __future__ import annotations


def node_pools_toml(nodes: int, zones: int, cpu: str, memory: str, pods: int = 110) -> str:
    """`nodes` nodes in `zones` zones named z<zone>-n<i>."""
    per_zone = nodes // zones
    return "".join(f"""
[[nodePools]]
namePrefix = "z{z}-n"
count = {per_zone}
labels = {{ "topology.kubernetes.io/zone" = "zone-{z}" }}
capacity = {{ cpu = "{cpu}", memory = "{memory}", pods = {pods} }}
""" for z in range(zones))
