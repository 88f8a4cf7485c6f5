"""Fast paths for big clusters against their plain reference: same event log, same states.

- The node lifecycle controller leaves settled dead nodes out of its monitor pass; the reference
  (`skip_settled = False`) visits every watched node every pass.
- Pod conditions are copy-on-write dicts shared between pods with equal conditions; the reference
  writes a private dict per pod.

HYPOTHESIS_EXAMPLES raises the number of examples for a longer run.
"""

import os

from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import make_sim, nodes_toml

from playground.engine import Operation
from playground.engine.objects import Condition, ConditionCache, Pod

EXAMPLES = int(os.environ.get("HYPOTHESIS_EXAMPLES", "20"))

NODES = ["a-1", "a-2", "b-1", "b-2", "c-1"]
CLUSTER = (nodes_toml("a-", 2, cpu="4", memory="8Gi") + nodes_toml("b-", 2, zone="zone-b", cpu="4", memory="8Gi")
           + nodes_toml("c-", 1, zone="zone-c", cpu="4", memory="8Gi") + """
[[deployments]]
name = "web"
replicas = 8
template = { labels = { app = "web" }, requests = { cpu = "250m", memory = "256Mi" }, stopDuration = "2s" }

[[deployments]]
name = "batch"
replicas = 4
template = { labels = { app = "batch" }, requests = { cpu = "100m" }, tolerations = [ { key = "node.kubernetes.io/unreachable", operator = "Exists", effect = "NoExecute", tolerationSeconds = 30 } ] }
""")

node_ops = st.sampled_from(["power-off", "power-on", "partition", "heal", "stop-kubelet", "start-kubelet",
                            "restart-kubelet", "shutdown", "cordon", "uncordon", "delete-node"])
operation = st.one_of(
    st.tuples(node_ops, st.sampled_from(NODES)),
    st.tuples(st.just("untaint"), st.sampled_from(NODES)),
    st.tuples(st.just("scale"), st.integers(0, 12)),
)
plans = st.lists(st.tuples(st.integers(1, 400), operation), min_size=1, max_size=10)


def snapshot(sim) -> tuple:
    store = sim.store
    nodes = {name: (sorted((c.type, c.status, c.reason, c.message, c.last_heartbeat_time, c.last_transition_time)
                           for c in node.conditions.values()),
                    [str(t) + f"@{t.time_added}" for t in node.taints])
             for name, node in store.nodes.items()}
    pods = {key: (p.phase, p.node_name, p.deletion_timestamp,
                  [(c.type, c.status, c.reason, c.last_transition_time) for c in p.conditions.values()])
            for key, p in store.pods.items()}
    events = [e.as_dict() for e in store.recorder.events]
    return events, nodes, pods, dict(sim.nodelifecycle.zone_states), sim.nodelifecycle.evictions_total


def run_plan(plan, skip_settled: bool):
    sim = make_sim(CLUSTER)
    sim.nodelifecycle.skip_settled = skip_settled
    sim.run_until(5)
    for delay, (kind, arg) in plan:
        sim.run_until(sim.clock.now / 1000 + delay)
        if kind == "scale":
            sim.apply(Operation("scale", deployment="web", replicas=arg))
        elif kind == "untaint":
            sim.apply(Operation("untaint", node=arg, taint="node.kubernetes.io/unreachable:NoExecute"))
        else:
            sim.apply(Operation(kind, node=arg))
    sim.run_until(sim.clock.now / 1000 + 1200)
    return sim


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plans)
def test_skipping_settled_nodes_changes_nothing(plan):
    fast = run_plan(plan, skip_settled=True)
    reference = run_plan(plan, skip_settled=False)
    assert snapshot(fast) == snapshot(reference)


def test_a_dead_zone_leaves_the_monitor_pass():
    """Once tainted, powered-off nodes are no longer visited; powering one on brings it back."""
    sim = make_sim(CLUSTER)
    sim.run_until(10)
    for name in ("b-1", "b-2"):
        sim.apply(Operation("power-off", node=name))
    sim.run_until(200)
    assert all(sim.store.nodes[n].has_taint("node.kubernetes.io/unreachable", "NoExecute") for n in ("b-1", "b-2"))
    assert not {"b-1", "b-2"} & sim.nodelifecycle.watched
    sim.apply(Operation("power-on", node="b-1"))
    assert "b-1" in sim.nodelifecycle.watched
    sim.run_until(230)
    assert sim.store.nodes["b-1"].ready_status() == "True"
    assert not sim.store.nodes["b-1"].has_taint("node.kubernetes.io/unreachable", "NoExecute")


# ---------------------------------------------------------------- shared pod conditions

condition_writes = st.lists(
    st.tuples(st.integers(0, 3),  # which pod
              st.sampled_from(["PodScheduled", "Initialized", "ContainersReady", "Ready", "DisruptionTarget"]),
              st.sampled_from(["True", "False"]),
              st.sampled_from(["", "DeletionByTaintManager"]),
              st.integers(0, 3)),  # the time of the write
    max_size=40)


def plain_set(conditions: dict, ctype, status, reason, message, now) -> None:
    """The store's per-pod write before conditions were shared."""
    current = conditions.get(ctype)
    if current and current.status == status and current.reason == reason and current.message == message:
        return
    transition = current.last_transition_time if current and current.status == status else now
    conditions[ctype] = Condition(ctype, status, reason, message, None, transition)


@settings(max_examples=EXAMPLES * 10, deadline=None)
@given(condition_writes, st.integers(1, 8))
def test_shared_conditions_equal_private_ones(writes, limit):
    cache = ConditionCache(limit=limit)
    pods = [Pod(f"p-{i}", "default", f"uid-{i}", {}, 0) for i in range(4)]
    reference = [{} for _ in range(4)]
    for index, ctype, status, reason, now in writes:
        pod = pods[index]
        before = {id(p.conditions): dict(p.conditions) for p in pods}
        cache.set(pod, ctype, status, reason, "", now)
        plain_set(reference[index], ctype, status, reason, "", now)
        for p, want in zip(pods, reference):
            assert list(p.conditions.items()) == list(want.items())  # same content, same order
        # A write never shows through another pod's (shared) dict.
        for p in pods:
            if p is not pod and id(p.conditions) in before:
                assert p.conditions == before[id(p.conditions)]


def test_pods_of_one_template_share_their_data():
    sim = make_sim(CLUSTER)
    sim.run_until(10)
    web = [p for p in sim.store.pods.values() if p.labels.get("app") == "web"]
    assert len(web) == 8
    assert len({id(p.labels) for p in web}) == 1
    assert len({id(p.tolerations) for p in web}) == 1
    assert len({id(p.conditions) for p in web}) < len(web)  # started at the same instant
    assert all(p.key == f"{p.namespace}/{p.name}" for p in web)
