"""Shared helpers: build a simulation from scenario TOML text."""

from __future__ import annotations

import os
import textwrap

import pytest

from playground.engine import Simulation
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
