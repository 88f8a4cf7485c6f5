"""The ChangeSet of a scenario's instant 0 (Store.changing_everything): every pod and node the store
holds afterwards, with the pods' nodes, instead of the keys noted one change at a time. Against the
reference (changes noted key by key through the open) on every shipped scenario and on generated
clusters: a superset of what the reference noted, exactly the store's pods and nodes plus what was
removed, the same removals, events and zone flag, and the same cluster."""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path

import pytest

from scale_scenarios import scale_scenario

from playground.engine import Simulation
from playground.engine.report import snapshot
from playground.engine.store import Store
from playground.scenario import load_scenario
from playground.scenario.loader import parse_scenario

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = sorted(p.stem for p in (ROOT / "scenarios").glob("*.toml"))


def opened(scenario, key_by_key: bool, monkeypatch):
    with monkeypatch.context() as patch:
        if key_by_key:
            patch.setattr(Store, "changing_everything", lambda self: nullcontext())
        sim = Simulation(scenario)
        sim.open_now()
        return sim, sim.store.take_changes()


def check(scenario, monkeypatch) -> None:
    sim, changes = opened(scenario, False, monkeypatch)
    reference_sim, reference = opened(scenario, True, monkeypatch)
    assert snapshot(sim) == snapshot(reference_sim)
    store = sim.store
    pod_nodes = {pod.node_name for pod in store.pods.values() if pod.node_name}
    assert changes.pods == set(store.pods) | reference.pods
    assert changes.pod_fields == set(store.pods) | reference.pod_fields
    assert changes.nodes == set(store.nodes) | pod_nodes | reference.nodes
    assert reference.pods <= changes.pods and reference.pod_fields <= changes.pod_fields
    assert reference.nodes <= changes.nodes
    assert set(store.pods) <= changes.pods and set(store.nodes) <= changes.nodes
    assert changes.removed_pods == reference.removed_pods
    assert changes.removed_nodes == reference.removed_nodes
    assert (changes.events, changes.zones) == (reference.events, reference.zones)
    # after the open, changes are noted key by key again
    assert not store._everything_changes
    sim.step()
    reference_sim.step()
    assert sim.store.take_changes() == reference_sim.store.take_changes()


@pytest.mark.parametrize("name", SHIPPED)
def test_the_open_of_each_shipped_scenario_notes_every_pod_and_node(name, monkeypatch):
    check(load_scenario(ROOT / "scenarios" / f"{name}.toml"), monkeypatch)


@pytest.mark.parametrize("seed", range(4))
def test_the_open_of_generated_clusters_notes_every_pod_and_node(seed, monkeypatch):
    check(parse_scenario(scale_scenario(60, seed)), monkeypatch)
