"""A run of equivalent pods bound with one store write (equivalence._bind_together,
Scheduler.bind_together, Store.assign_pods) against the reference: the same run bound one pod after
another through the scheduler's ordinary bind (`equivalence.BIND_TOGETHER = False`).

Binding together is taken only where no component reacts to a bind of the run beyond that pod's own
bookkeeping (`quiet_binds`): a kubelet shutting down, a tainted node, a PodDisruptionBudget, a pod the
topology plugins rejected or a nomination send the run back to one bind after another (a volume
would too, but only a StatefulSet's pods have volumes, and each has labels of its own: no run).
Both must leave the same `sim --json` document (the event log with it), the same random generator
and the same round-robin start, on every shipped scenario and on random clusters where nodes shut
down, fail, get NoExecute taints and drain while Deployments with budgets and a StatefulSet with
volumes scale. HYPOTHESIS_EXAMPLES raises the number of random examples for a longer run.
"""

from __future__ import annotations

import json
import os
import random
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import apply_operation

from playground.engine import Simulation
from playground.engine import scheduler as scheduler_module
from playground.engine.report import snapshot
from playground.engine.scheduler import equivalence
from playground.scenario import load_scenario, parse_scenario

EXAMPLES = int(os.environ.get("HYPOTHESIS_EXAMPLES", "25"))
SCENARIOS = sorted((Path(__file__).resolve().parent.parent / "scenarios").glob("*.toml"))
ZONE = "topology.kubernetes.io/zone"

pytestmark = pytest.mark.skipif(equivalence.LOOP is None, reason="the compiled placement loop is not built")


@contextmanager
def binding(together: bool, counts: dict | None = None):
    """Runs from two pods on any cluster; a run's binds together or one by one. `counts` gets how
    many runs were bound together and how many one by one."""
    saved = (scheduler_module.RUN_NODES, scheduler_module.RUN_PODS, equivalence.BIND_TOGETHER,
             equivalence._bind_together, equivalence._bind_each)
    scheduler_module.RUN_NODES, scheduler_module.RUN_PODS = 1, 2
    equivalence.BIND_TOGETHER = together
    if counts is not None:
        counts.setdefault("together", 0)
        counts.setdefault("each", 0)
        bind_together, bind_each = equivalence._bind_together, equivalence._bind_each

        def counted_together(*args):
            bound = bind_together(*args)
            counts["together"] += bound > 0
            return bound

        def counted_each(*args):
            counts["each"] += 1
            return bind_each(*args)

        equivalence._bind_together, equivalence._bind_each = counted_together, counted_each
    try:
        yield
    finally:
        (scheduler_module.RUN_NODES, scheduler_module.RUN_PODS, equivalence.BIND_TOGETHER,
         equivalence._bind_together, equivalence._bind_each) = saved


def outcome(build, plan=(), until: float = 180, together: bool = True, counts: dict | None = None) -> tuple:
    with binding(together, counts):
        sim = build()
        for delay, operation in plan:
            sim.run_until(sim.clock.now / 1000 + delay)
            apply_operation(sim, operation)
        sim.run_until(max(until, sim.clock.now / 1000 + 120))
        return json.dumps(snapshot(sim), indent=1), sim.rng.getstate(), sim.scheduler.next_start


def random_cluster(seed: int) -> str:
    """Three zones of node pools (one tainted NoExecute, tolerated by some pods for a while),
    kubelets with a graceful shutdown period, Deployments of several templates (some under a
    PodDisruptionBudget), a StatefulSet whose pods mount volumes."""
    rng = random.Random(seed)
    out = [f'[scenario]\nname = "bind-together-{seed}"\nseed = {seed}\n',
           '[kubelet]\nshutdownGracePeriod = "30s"\nshutdownGracePeriodCriticalPods = "10s"\n']
    for p in range(rng.randint(2, 4)):
        taint = 'taints = ["dedicated=batch:NoExecute"]\n' if p == 1 else ""
        out.append(f'[[nodePools]]\nnamePrefix = "p{p}-"\ncount = {rng.randint(2, 6)}\n'
                   f'labels = {{ "{ZONE}" = "zone-{p % 3}" }}\n'
                   f'capacity = {{ cpu = "{rng.choice([2, 4, 8])}", memory = "16Gi", pods = {rng.choice([8, 20])} }}\n'
                   f'{taint}')
    for d in range(rng.randint(2, 5)):
        cpu = rng.choice(["100m", "250m", "500m", "1"])
        tolerations = ('tolerations = [{ key = "dedicated", operator = "Exists", effect = "NoExecute", '
                       f'tolerationSeconds = {rng.choice([0, 5, 60])} }}], ') if rng.random() < 0.4 else ""
        out.append(f'[[deployments]]\nname = "app-{d}"\nreplicas = {rng.randint(3, 30)}\n'
                   f'template = {{ {tolerations}labels = {{ app = "app-{d}" }}, requests = {{ cpu = "{cpu}" }} }}\n')
        if rng.random() < 0.4:
            out.append(f'[[podDisruptionBudgets]]\nname = "app-{d}"\nselector = {{ app = "app-{d}" }}\n'
                       f'minAvailable = {rng.randint(1, 4)}\n')
    if rng.random() < 0.6:
        out.append(f'[[statefulSets]]\nname = "db"\nreplicas = {rng.randint(2, 5)}\npodManagementPolicy = "Parallel"\n'
                   'template = { labels = { app = "db" }, requests = { cpu = "250m" } }\n')
    return "\n".join(out)


operations = st.lists(st.tuples(
    st.integers(0, 40),
    st.one_of(st.tuples(st.just("scale"), st.tuples(st.sampled_from([f"app-{d}" for d in range(5)]),
                                                    st.integers(0, 120))),
              st.tuples(st.sampled_from(["shutdown", "power-off", "power-on", "taint", "drain", "cordon",
                                         "uncordon", "restart-kubelet", "delete-pod"]), st.integers(0, 500)))),
    max_size=10)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), operations)
def test_binding_together_equals_one_bind_after_another_on_random_clusters(seed, plan):
    scenario = parse_scenario(random_cluster(seed))
    together = outcome(lambda: Simulation(scenario), plan, together=True)
    assert together == outcome(lambda: Simulation(scenario), plan, together=False)


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_binding_together_equals_one_bind_after_another_on_shipped_scenarios(path):
    scenario = load_scenario(path)
    together = outcome(lambda: Simulation(scenario), until=1800, together=True)
    assert together == outcome(lambda: Simulation(scenario), until=1800, together=False)


PLAIN = """
[scenario]
name = "runs"
seed = 4

[[nodePools]]
namePrefix = "n-"
count = 6
labels = { "topology.kubernetes.io/zone" = "zone-a" }
capacity = { cpu = "8", memory = "16Gi", pods = 40 }

[[deployments]]
name = "web"
replicas = 60
template = { labels = { app = "web" }, requests = { cpu = "100m" } }
"""


def counted_runs(text: str, plan=()) -> dict:
    counts: dict = {}
    scenario = parse_scenario(text)
    together = outcome(lambda: Simulation(scenario), plan, together=True, counts=counts)
    assert together == outcome(lambda: Simulation(scenario), plan, together=False)
    return counts


def test_a_plain_run_is_bound_together():
    counts = counted_runs(PLAIN)
    assert counts["together"] > 0 and counts["each"] == 0


@pytest.mark.parametrize("why, text, plan", [
    ("a kubelet shutting down (its pods tolerate its not-ready taint)",
     PLAIN.replace('seed = 4', 'seed = 4\n[kubelet]\nshutdownGracePeriod = "60s"').replace(
         'requests', 'tolerations = [{ key = "node.kubernetes.io/not-ready", operator = "Exists" }], requests'),
     [(5, ("shutdown", 0)), (0, ("scale", ("web", 120)))]),
    ("a node tainted NoExecute, tolerated for a while",
     PLAIN.replace('count = 6', 'count = 6\ntaints = ["maint=yes:NoExecute"]').replace(
         'requests', 'tolerations = [{ key = "maint", operator = "Exists", effect = "NoExecute", tolerationSeconds = 30 }], requests'), ()),
    ("a PodDisruptionBudget", PLAIN + '[[podDisruptionBudgets]]\nname = "web"\nselector = { app = "web" }\n'
     'minAvailable = 3\n', ()),
])
def test_a_run_that_a_component_reacts_to_is_bound_one_by_one(why, text, plan):
    counts = counted_runs(text, plan)
    assert counts["each"] > 0, why


def test_a_run_a_kubelet_would_not_admit_together_is_bound_one_by_one(monkeypatch):
    admitted = equivalence._admitted
    calls = 0

    def not_the_second_run(*args):
        nonlocal calls
        calls += 1
        return calls != 2 and admitted(*args)

    monkeypatch.setattr(equivalence, "_admitted", not_the_second_run)
    counts = counted_runs(PLAIN, [(5, ("scale", ("web", 100))), (5, ("scale", ("web", 120)))])
    assert counts["each"] > 0 and counts["together"] > 0


def test_what_kubelets_admit_together():
    """_admitted: the run's pods per node within the node's totals, and no kubelet that can write
    shutting down where the run binds a pod."""
    sim = Simulation(parse_scenario(PLAIN))  # 6 nodes of 8 cpu and 40 pods, 60 pods of 100m
    sim.run_until(0)
    scheduler = sim.scheduler
    order = scheduler.node_order()
    scheduler.columns.sync(order, scheduler.filters)
    pod = next(iter(sim.store.pods.values()))
    free = [node.allocatable_pods - node.pod_count for node in order]

    def admitted(per_row):
        per_row = np.array(per_row, dtype=np.int64)
        used = np.flatnonzero(per_row)
        return equivalence._admitted(scheduler, pod, used, per_row[used], order)

    assert admitted(free)
    assert not admitted([free[0] + 1] + free[1:])  # one pod too many on the first node
    kubelet = sim.kubelets[order[1].name]
    kubelet.shutdown = object()  # a graceful shutdown under way: its manager rejects new pods
    sim.nodeshutdown.shutting_down.add(kubelet.node_name)  # (as NodeShutdownManager.start notes it)
    assert not admitted([1, 1, 0, 0, 0, 0])
    assert admitted([1, 0, 1, 0, 0, 0])  # no pod of the run on the node shutting down
    kubelet.network = "partitioned"  # it cannot write: it does nothing for a pod bound there
    assert admitted([1, 1, 0, 0, 0, 0])



@pytest.mark.parametrize("requests", ['{ cpu = "100m" }', '{ memory = "300Mi" }', '{}'])
def test_the_columns_hold_the_nodes_totals_after_runs_bound_together(requests):
    """A run bound together writes the rows' requested and non-zero requested cpu and memory as its
    placement computed them (NodeColumns.assumed): every row equals its node's totals, as the store
    counts them, and pods without a request count the scheduler's defaults."""
    text = PLAIN.replace('requests = { cpu = "100m" }', f"requests = {requests}")
    counts = counted_runs(text)
    assert counts["together"] > 0
    with binding(True, {}):
        sim = Simulation(parse_scenario(text))
        sim.run_until(0)
    columns = sim.scheduler.columns
    totals = ("requested_cpu", "requested_memory", "nonzero_cpu", "nonzero_memory", "pod_count")
    rows = [tuple(int(getattr(columns, name)[row]) for name in ("req_cpu", "req_memory", "nz_cpu", "nz_memory",
                                                                   "pod_count")) for row in range(len(columns.nodes))]
    assert rows == [tuple(getattr(node, name) for name in totals) for node in columns.nodes]
    assert all(node.pod_count > 0 for node in columns.nodes)


def test_the_shutdown_manager_notes_the_nodes_shutting_down():
    """NodeShutdownManager.shutting_down, which _admitted reads before it looks at any kubelet, holds
    a node from the start of its graceful shutdown until its machine is off."""
    sim = Simulation(parse_scenario(PLAIN.replace('seed = 4', 'seed = 4\n[kubelet]\nshutdownGracePeriod = "60s"')))
    sim.run_until(5)
    assert sim.nodeshutdown.shutting_down == set()
    apply_operation(sim, ("shutdown", 0))
    [name] = [name for name, kubelet in sim.kubelets.items() if kubelet.shutdown is not None]
    assert sim.nodeshutdown.shutting_down == {name}
    sim.run_until(5 + 61)
    assert sim.kubelets[name].power == "off" and sim.nodeshutdown.shutting_down == set()


@pytest.mark.parametrize("shutting_down", [False, True])
def test_pods_bound_together_start_as_pods_bound_one_by_one(shutting_down):
    """Store.assign_pods and the kubelets' batch (kubelet.start_bound_pods) against one assign_pod
    after another, for new pods bound to nodes whose kubelets admit them, or where one kubelet is
    shutting down (its shutdown manager rejects its pods: the batch goes one pod_bound after
    another)."""
    text = PLAIN.replace('seed = 4', 'seed = 4\n[kubelet]\nshutdownGracePeriod = "60s"')

    def bound(together: bool) -> tuple:
        sim = Simulation(parse_scenario(text))
        sim.run_until(5)
        if shutting_down:
            apply_operation(sim, ("shutdown", 0))
        sim.scheduler.config.attempts_per_tick = 0  # (the new pods wait: this test binds them)
        apply_operation(sim, ("scale", ("web", 66)))
        sim.run_until(sim.clock.now / 1000)
        pods = [pod for pod in sim.store.pods.values() if not pod.node_name]
        names = [f"n-{1 + i % 3}" for i in range(len(pods))]
        assert len(pods) == 6
        if together:
            sim.store.assign_pods(pods, names)
        else:
            for pod, name in zip(pods, names):
                sim.store.assign_pod(pod, name)
        sim.run_until(sim.clock.now / 1000 + 30)
        return json.dumps(snapshot(sim), indent=1)

    together = bound(True)
    assert ('rejected as the node is shutting down' in together) == shutting_down
    assert together == bound(False)
