"""Shared helpers: build a simulation from scenario TOML text."""

from __future__ import annotations

import os
import textwrap

import pytest

from playground.engine import Operation, Simulation
from playground.scenario import parse_scenario

BASE = """
[scenario]
name = "test"
seed = 1
"""


def make_sim(body: str, header: str = BASE) -> Simulation:
    sim = Simulation(parse_scenario(textwrap.dedent(header) + textwrap.dedent(body)))
    # every occurrence of an event, repeats too (the recorder folds repeats into one Event)
    sim.occurrences = []
    sim.store.recorder.listeners.append(lambda time, event: sim.occurrences.append((time, event)))
    return sim


def occurrence_times(sim: Simulation, reason: str, obj: str | None = None) -> list[int]:
    return [t for t, e in sim.occurrences if e.reason == reason and (obj is None or e.object == obj)]


def nodes_toml(prefix: str, count: int, zone: str = "zone-a", cpu: str = "4", memory: str = "8Gi",
               extra: str = "") -> str:
    return f"""
[[nodePools]]
namePrefix = "{prefix}"
count = {count}
labels = {{ "topology.kubernetes.io/zone" = "{zone}" }}
capacity = {{ cpu = "{cpu}", memory = "{memory}" }}
{extra}
"""


def events(sim: Simulation, reason: str | None = None, obj: str | None = None) -> list:
    return [e for e in sim.store.recorder.events
            if (reason is None or e.reason == reason) and (obj is None or e.object == obj)]


@pytest.fixture
def sim_factory():
    return make_sim


# Tests never keep opened states in the user's cache (openstate.py); tests/test_openstate.py uses
# its own directory.
os.environ["PLAYGROUND_CACHE_DIR"] = "off"


def apply_operation(sim: Simulation, operation: tuple) -> None:
    """An operation of a random plan: ("scale", (deployment, replicas)), ("delete-pod", i: the i-th pod
    in key order, modulo), or (kind, i) on the i-th node in name order, modulo: "taint" (maint=yes:
    NoExecute), "drain" or any node operation by its name."""
    kind, arg = operation
    if kind == "scale":
        deployment, replicas = arg
        if deployment in sim.store.deployments:
            sim.apply(Operation("scale", deployment=deployment, replicas=replicas))
    elif kind == "delete-pod":
        pods = sorted(sim.store.pods)
        if pods:
            ns, name = pods[arg % len(pods)].split("/")
            sim.apply(Operation("delete-pod", pod=name, namespace=ns))
    else:
        nodes = sorted(sim.store.nodes)
        if not nodes:
            return
        node = nodes[arg % len(nodes)]
        if kind == "taint":
            sim.apply(Operation("taint", node=node, taint="maint=yes:NoExecute"))
        elif kind == "drain":
            sim.apply(Operation("drain", node=node, ignore_daemonsets=True, delete_emptydir_data=True))
        else:
            sim.apply(Operation(kind, node=node))
