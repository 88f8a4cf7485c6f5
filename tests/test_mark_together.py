"""When nodes go Unknown, the node lifecycle controller writes Ready=False to each node's pods in one
store write (NodeLifecycleController.mark_together) where that is what one write after another does
(_may_mark_together): a whole run with it and a run writing pod after pod leave the same cluster, the
same Events and the same timers, down to their ids, and the components' indexes in the same order.
The runs cover pods of ReplicaSets, DaemonSets and StatefulSets and pods a PodDisruptionBudget
covers on the nodes that fail, so both the write together and its fallback run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import make_sim, nodes_toml
from test_together_watchers import render, state

from playground.engine import Operation, Simulation
from playground.engine.nodelifecycle import NodeLifecycleController
from playground.engine.report import format_event, snapshot
from playground.scenario import load_scenario

ROOT = Path(__file__).resolve().parent.parent
# The shipped scenarios where nodes stop reporting (power off, partition, shutdown, kubelet stop).
SHIPPED = ["all-nodes-down", "default", "imported-node-failure", "node-failure", "non-graceful-delete-node",
           "non-graceful-shutdown", "partial-disruption", "partition-vs-power-off", "spread-zone-outage",
           "zone-outage"]

MIXED = nodes_toml("a-", 5, cpu="8", memory="16Gi") + nodes_toml("b-", 5, zone="zone-b", cpu="8", memory="16Gi") + """
[[deployments]]
name = "web"
replicas = 9
template = { labels = { app = "web" }, requests = { cpu = "250m", memory = "256Mi" } }

[[deployments]]
name = "api"
replicas = 3
template = { labels = { app = "api" }, requests = { cpu = "100m" } }

[[daemonSets]]
name = "agent"
template = { labels = { app = "agent" }, requests = { cpu = "50m" } }

[[statefulSets]]
name = "db"
replicas = 2
podManagementPolicy = "Parallel"
template = { labels = { app = "db" }, requests = { cpu = "100m" } }

[[podDisruptionBudgets]]
name = "api"
selector = { app = "api" }
maxUnavailable = 1
"""


def outcome(sim: Simulation) -> list:
    """Everything a run leaves: the document, every Event, the clock's timers and the components'
    own indexes (the disruption and StatefulSet controllers' too)."""
    return [
        json.dumps(snapshot(sim), indent=1),
        [(format_event(e), e.uid, e.count, e.seq) for e in sim.store.recorder.events],
        sim.store.recorder.total,
        state(sim),
        render({k: v for k, v in vars(sim.disruption).items() if k != "sim"}),
        render({k: v for k, v in vars(sim.statefulsets).items() if k != "sim"}),
    ]


def run(make, until: float, operations, monkeypatch, together: bool) -> tuple[list, list[bool]]:
    """`make()`'s simulation run to `until` seconds with `operations` ((second, Operation)), marking
    pods together or not; also each answer _may_mark_together gave."""
    answers: list[bool] = []
    may = NodeLifecycleController._may_mark_together

    def watched(self, pods):
        answers.append(may(self, pods))
        return answers[-1]

    monkeypatch.setattr(NodeLifecycleController, "mark_together", together)
    monkeypatch.setattr(NodeLifecycleController, "_may_mark_together", watched)
    sim = make()
    for second, operation in operations:
        sim.run_until(second)
        sim.apply(operation)
    sim.run_until(until)
    return outcome(sim), answers


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_scenarios_run_the_same_with_pods_marked_together(name, monkeypatch):
    scenario = load_scenario(ROOT / "scenarios" / f"{name}.toml")
    together, _ = run(lambda: Simulation(scenario), 1800, (), monkeypatch, True)
    one_by_one, answers = run(lambda: Simulation(scenario), 1800, (), monkeypatch, False)
    assert answers == []  # the reference never asks
    assert together == one_by_one


def test_zone_outage_marks_its_nodes_pods_together(monkeypatch):
    scenario = load_scenario(ROOT / "scenarios" / "zone-outage.toml")
    _, answers = run(lambda: Simulation(scenario), 1800, (), monkeypatch, True)
    assert answers and all(answers)


@pytest.mark.parametrize("zone", ["a-", "b-"])
def test_mixed_owners_on_failing_nodes_run_the_same_together_or_not(zone, monkeypatch):
    """A zone of nodes with pods of every owner powered off at 60 s, one node of the other zone
    partitioned at 200 s: nodes whose pods are only ReplicaSets' and DaemonSets' are marked together,
    those with a StatefulSet's pod or a budget's pod one by one."""
    def make():
        return make_sim(MIXED)

    other = "b-" if zone == "a-" else "a-"
    operations = [(60, Operation("power-off", node=f"{zone}{i}")) for i in range(1, 6)]
    operations.append((200, Operation("partition", node=f"{other}1")))
    together, answers = run(make, 900, operations, monkeypatch, True)
    one_by_one, _ = run(make, 900, operations, monkeypatch, False)
    assert True in answers and False in answers
    assert together == one_by_one
