"""One announcement per API update, and watchers called only for the changes they react to, against
the plain reference: every field write announced on its own, every watcher told of every change.

- Binding sets spec.nodeName and PodScheduled=True in one update (setPodNodeAndMetadata); the
  kubelet's status patch sets phase Running, ContainersReady and Ready in one. The store announces
  each once (`Store.one_write_per_update`); the reference announces each field as it is set.
- Pod watchers marked with `watches` hear only those kinds of change (`Store.dispatch_by_kind`).
- A ReplicaSet's slow-start batch of creates goes into the store together, each watcher told of
  every pod before the next watcher (`WorkloadControllers.create_together`, `Store.add_pods`); the
  reference creates one pod after another.
- Changes written together reach a watcher with a handler of many pods through it
  (`Store.watch_together`); the reference tells it of one pod after another.

Both must leave the same event log and the same state (the whole `sim --json` snapshot) on every
shipped scenario and on random clusters with random operations. HYPOTHESIS_EXAMPLES raises the
number of examples for a longer run.
"""

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import apply_operation, make_sim, nodes_toml
from scale_scenarios import scale_scenario

from playground.engine import Operation, Simulation
from playground.engine.report import snapshot
from playground.engine.store import Store, watches
from playground.engine.workloads import WorkloadControllers
from playground.scenario import load_scenario, parse_scenario

EXAMPLES = int(os.environ.get("HYPOTHESIS_EXAMPLES", "15"))
SCENARIOS = sorted((Path(__file__).resolve().parent.parent / "scenarios").glob("*.toml"))


def reference_mode(on: bool) -> None:
    Store.one_write_per_update = not on
    Store.dispatch_by_kind = not on
    Store.watch_together = not on
    WorkloadControllers.create_together = not on


def run(build, plan=(), until: float = 0, reference: bool = False) -> dict:
    reference_mode(reference)
    try:
        sim = build()
        for delay, operation in plan:
            sim.run_until(sim.clock.now / 1000 + delay)
            apply_operation(sim, operation)
        sim.run_until(max(until, sim.clock.now / 1000 + 120))
        return snapshot(sim)
    finally:
        reference_mode(False)


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_shipped_scenarios_equal_the_reference(path):
    scenario = load_scenario(path)
    fast = run(lambda: Simulation(scenario), until=scenario.scenario.duration / 1000)
    assert fast == run(lambda: Simulation(scenario), until=scenario.scenario.duration / 1000, reference=True)


CLUSTER = nodes_toml("a-", 3, cpu="4", memory="8Gi") + nodes_toml("b-", 3, zone="zone-b", cpu="4", memory="8Gi") + """
[[priorityClasses]]
name = "high"
value = 1000

[[deployments]]
name = "web"
replicas = 10
template = { labels = { app = "web" }, requests = { cpu = "500m", memory = "256Mi" }, stopDuration = "3s" }

[[deployments]]
name = "urgent"
replicas = 0
template = { priorityClassName = "high", labels = { app = "urgent" }, requests = { cpu = "2" } }

[[podDisruptionBudgets]]
name = "web"
selector = { app = "web" }
maxUnavailable = 1

[[daemonSets]]
name = "agent"
template = { labels = { app = "agent" }, requests = { cpu = "50m" } }

[[statefulSets]]
name = "db"
replicas = 3
template = { labels = { app = "db" }, requests = { cpu = "250m" } }
volumeClaimTemplate = "data"
"""

node_ops = st.sampled_from(["power-off", "power-on", "partition", "heal", "restart-kubelet", "shutdown",
                            "cordon", "uncordon", "delete-node", "taint", "drain"])
operation = st.one_of(
    st.tuples(node_ops, st.integers(0, 20)),
    st.tuples(st.just("delete-pod"), st.integers(0, 100)),
    st.tuples(st.just("scale"), st.tuples(st.sampled_from(["web", "urgent", "app-0"]), st.integers(0, 14))),
)
plans = st.lists(st.tuples(st.integers(0, 90), operation), max_size=8)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plans)
def test_random_operations_equal_the_reference(plan):
    assert run(lambda: make_sim(CLUSTER), plan) == run(lambda: make_sim(CLUSTER), plan, reference=True)


@settings(max_examples=max(2, EXAMPLES // 5), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), plans)
def test_generated_clusters_equal_the_reference(seed, plan):
    text = scale_scenario(40, seed)
    fast = run(lambda: Simulation(parse_scenario(text)), plan)
    assert fast == run(lambda: Simulation(parse_scenario(text)), plan, reference=True)


def test_a_bound_pod_is_announced_once_per_update():
    sim = make_sim(nodes_toml("n-", 1) + """
[[deployments]]
name = "web"
replicas = 1
template = { labels = { app = "web" } }
""")
    heard = []
    sim.store.pod_watchers.append(lambda what, pod: heard.append((sim.clock.now, what)))
    sim.run_until(5)
    # created; bound with PodScheduled (the kubelet, an earlier watcher, hears it first and writes
    # Initialized, announced within); Running with ContainersReady and Ready
    assert heard == [(0, "added"), (0, "condition"), (0, "bound"), (1000, "phase")]
    pod = next(iter(sim.store.pods.values()))
    assert [(c.type, c.status, c.last_transition_time) for c in pod.conditions.values()] == [
        ("PodScheduled", "True", 0), ("Initialized", "True", 0), ("ContainersReady", "True", 1000),
        ("Ready", "True", 1000)]


def test_a_marked_watcher_hears_only_its_changes():
    sim = make_sim(nodes_toml("n-", 1) + """
[[deployments]]
name = "web"
replicas = 2
template = { labels = { app = "web" } }
""")
    heard = []

    @watches("bound", "removed")
    def watcher(what, pod):
        heard.append(what)

    sim.store.pod_watchers.append(watcher)
    sim.run_until(5)
    sim.apply(Operation("scale", deployment="web", replicas=0))
    sim.run_until(60)
    assert heard == ["bound", "bound", "removed", "removed"]
    with pytest.raises(ValueError):
        watches("bond")


def test_idle_watchers_are_left_out_until_they_wake():
    """The disruption controller (no PodDisruptionBudget), the StatefulSet controller (no
    StatefulSet) and the attach/detach controller (no claim) would do nothing for any pod change:
    the store does not call them. A component
    that wakes (a PDB added) hears changes again, in its place among the watchers."""
    sim = make_sim(nodes_toml("n-", 1) + """
[[deployments]]
name = "web"
replicas = 2
template = { labels = { app = "web" } }
""")
    store = sim.store
    sim.run_until(1)
    everyone = set(store._pod_dispatch["added"]) | set(store._pod_dispatch["phase"])
    assert sim.disruption._on_pod_event not in everyone
    assert sim.statefulsets._on_pod_event not in everyone
    assert sim.attachdetach._on_pod_event not in everyone
    assert sim.scheduler._on_pod_event in everyone
    from playground.engine.objects import PodDisruptionBudget
    sim.disruption.add_pdb(PodDisruptionBudget("web", "default", {"app": "web"}, min_available=1))
    sim.apply(Operation("scale", deployment="web", replicas=3))
    sim.run_until(10)
    order = store._pod_dispatch["added"]
    assert sim.disruption._on_pod_event in order
    assert order.index(sim.disruption._on_pod_event) == [w for w in store.pod_watchers
                                                         if w in order].index(sim.disruption._on_pod_event)
    assert len(sim.disruption.pods_by_pdb["default/web"]) == 3


def test_a_statefulset_wakes_its_controller_and_the_volumes():
    """A scenario with a StatefulSet: both controllers hear pod changes from the start (the
    StatefulSet and its claims exist before its pods), and its pods run with their volumes, as the
    reference (every watcher told of every change) has them."""
    text = nodes_toml("n-", 2) + """
[[statefulSets]]
name = "db"
replicas = 2
template = { labels = { app = "db" } }
"""
    fast = run(lambda: make_sim(text), until=60)
    plain = run(lambda: make_sim(text), until=60, reference=True)
    assert fast == plain
    sim = make_sim(text)
    sim.run_until(60)
    assert sim.statefulsets._on_pod_event in sim.store._pod_dispatch["phase"]
    assert sim.attachdetach._on_pod_event in sim.store._pod_dispatch["bound"]
    assert sorted(p.phase for p in sim.store.pods.values()) == ["Running", "Running"]
    assert len(sim.attachdetach.volumes) == 2


TWO_BUDGETS = CLUSTER + """
[[podDisruptionBudgets]]
name = "web-too"
selector = { app = "web" }
minAvailable = 1
"""


def test_creates_together_where_a_pod_gets_two_budgets_events_are_in_order_as_one_by_one():
    """Two budgets select web's pods: the disruption controller writes an event for each new pod, so
    web's creates go one by one (each pod's MultiplePodDisruptionBudgets event, then its
    SuccessfulCreate, as the ReplicaSet controller and the informer order them); the other
    Deployments' batches go together. Both modes give the same log and state."""
    plan = [(5, ("scale", ("web", 14))), (20, ("scale", ("urgent", 3))), (30, ("power-off", 1))]

    def outcome(together: bool) -> dict:
        WorkloadControllers.create_together = together
        try:
            sim = make_sim(TWO_BUDGETS)
            for delay, operation in plan:
                sim.run_until(sim.clock.now / 1000 + delay)
                apply_operation(sim, operation)
            sim.run_until(sim.clock.now / 1000 + 120)
            return snapshot(sim)
        finally:
            WorkloadControllers.create_together = True

    together = outcome(True)
    assert together == outcome(False)
    events = [e for e in together["events"] if e["reason"] in ("SuccessfulCreate", "MultiplePodDisruptionBudgets")]
    web = [(i, e) for i, e in enumerate(events) if e["message"].startswith("Created pod: web-")]
    assert len(web) >= 14
    for i, created in web:
        name = created["message"].removeprefix("Created pod: ")
        before = events[i - 1]
        assert before["reason"] == "MultiplePodDisruptionBudgets" and before["object"] == f"Pod/default/{name}"


def test_changes_told_together_reach_each_watcher_in_its_place_in_pod_order():
    """Store._pods_changed (a batch of creates or of Running reports): each watcher, in registration
    order, hears every pod whose kind of change it watches, in the pods' order, with that kind."""
    sim = make_sim(nodes_toml("n-", 1) + """
[[deployments]]
name = "web"
replicas = 3
template = { labels = { app = "web" } }
""")
    sim.run_until(5)
    heard = []

    @watches("phase")
    def first(what, pod):
        heard.append(("first", what, pod.name))

    @watches("phase", "condition")
    def second(what, pod):
        heard.append(("second", what, pod.name))

    sim.store.pod_watchers += [first, second]
    a, b, c = sorted(sim.store.pods.values(), key=lambda p: p.name)
    sim.store._pods_changed([a, b, c], ["phase", "condition", "phase"])
    assert heard == [("first", "phase", a.name), ("first", "phase", c.name),
                     ("second", "phase", a.name), ("second", "condition", b.name), ("second", "phase", c.name)]
