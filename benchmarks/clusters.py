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


def deployments_toml(pods: int, deployments: int, sizes: tuple[tuple[str, str], ...] = (("100m", "128Mi"),)) -> str:
    """`deployments` Deployments app-0 … sharing `pods` replicas, their requests cycling through `sizes`."""
    per_deployment = pods // deployments
    parts = []
    for d in range(deployments):
        cpu, memory = sizes[d % len(sizes)]
        parts.append(f"""
[[deployments]]
name = "app-{d}"
replicas = {per_deployment}
template = {{ labels = {{ app = "app-{d}" }}, requests = {{ cpu = "{cpu}", memory = "{memory}" }} }}
""")
    return "".join(parts)


def cluster_toml(name: str, nodes: int, pods: int, zones: int, deployments: int,
                 sizes: tuple[tuple[str, str], ...] = (("100m", "128Mi"),), attempts_per_tick: int | None = 1000) -> str:
    """A whole benchmark scenario: nodePools of 32 cpu / 128Gi nodes and Deployments."""
    head = f'[scenario]\nname = "{name}"\nseed = 1\n'
    if attempts_per_tick is not None:
        head += f"[scheduler]\nattemptsPerTick = {attempts_per_tick}\n"
    return head + node_pools_toml(nodes, zones, "32", "128Gi") + deployments_toml(pods, deployments, sizes)


def open_as_the_cli_does(sim) -> None:
    """Instant 0 as `playground sim` and the TUI run it, keeping the opened cluster out of the garbage
    collector's sight (a revision without playground.cli._open: instant 0 alone)."""
    try:
        from playground.cli import _open
    except ImportError:
        sim.run_until_ms(0)
    else:
        _open(sim)


def new_simulation_as_the_cli_does(scenario):
    """The simulation `playground sim` makes, with the scenario's kept opened state when there is one
    (PLAYGROUND_CACHE_DIR): the heap frozen first (playground.cli._new_simulation), so that a
    restored state is frozen as it is read (a revision without it: the simulation alone)."""
    try:
        from playground.cli import _new_simulation
    except ImportError:
        from playground.engine import Simulation
        from playground.engine.openstate import OpenStateCache

        return Simulation(scenario, open_cache=OpenStateCache.default())
    return _new_simulation(scenario)
