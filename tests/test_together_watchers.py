"""A watcher's handler of many pods (`Store.together_watchers`) does what the watcher does for each of
them in turn: for every kind of change, on pods of any owner, phase, deletion state and node (tainted
or not), the handler and the plain loop over the watcher leave the component, and the clock, in the
same state, down to the order of its indexes and the ids of its timers. Pods are edited behind the
watchers' backs (a phase, a deletion, another node or none) so that the inputs reach every branch:
pods nominated by preemption, pods waiting for a taint's tolerationSeconds on a node whose taints
were taken off, finished pods, pods being deleted.

The handlers are the ReplicaSets' pod informer (WorkloadControllers), PodGC's, taint eviction's,
the scheduler's and the kubelets' (Simulation._kubelet_watch: their containers compared too). The
whole-run comparison (test_store_updates.py, `Store.watch_together`) never meets most of these
inputs: the store writes only creates, binds and Running reports together.
TOGETHER_EXAMPLES raises the number of examples for a longer run."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import apply_operation, make_sim, nodes_toml

from playground.engine.objects import FAILED, PENDING, RUNNING, SUCCEEDED, Pod
from playground.engine.store import POD_CHANGES

EXAMPLES = int(os.environ.get("TOGETHER_EXAMPLES", "8"))

CLUSTER = nodes_toml("a-", 3, cpu="4", memory="8Gi") + nodes_toml("b-", 2, zone="zone-b", cpu="4", memory="8Gi") + """
[[deployments]]
name = "web"
replicas = 6
template = { labels = { app = "web" }, requests = { cpu = "500m", memory = "256Mi" } }

[[deployments]]
name = "api"
replicas = 4
template = { labels = { app = "api" }, requests = { cpu = "250m" }, tolerations = [{ key = "maint", operator = "Exists", effect = "NoExecute", tolerationSeconds = 30 }] }

[[daemonSets]]
name = "agent"
template = { labels = { app = "agent" }, requests = { cpu = "50m" } }

[[priorityClasses]]
name = "high"
value = 1000

[[deployments]]
name = "urgent"
replicas = 0
template = { priorityClassName = "high", labels = { app = "urgent" }, requests = { cpu = "3" } }

[[deployments]]
name = "big"
replicas = 3
template = { labels = { app = "big" }, requests = { cpu = "3500m" } }
"""


def render(value):
    """A component's state as plain data, pods by key, in its containers' own order."""
    if isinstance(value, Pod):
        return ("pod", value.key)
    if isinstance(value, dict):
        return [(render(k), render(v)) for k, v in value.items()]
    if isinstance(value, (set, frozenset)):
        return ("set", [render(v) for v in value])
    if isinstance(value, (list, tuple)):
        return [render(v) for v in value]
    if hasattr(value, "__slots__") and not callable(value):
        return (type(value).__name__, [(s, render(getattr(value, s, None))) for s in value.__slots__
                                       if s not in ("sim", "clock")])
    if hasattr(value, "__dict__") and not callable(value) and type(value).__module__.startswith("playground"):
        return (type(value).__name__, [(k, render(v)) for k, v in vars(value).items() if k not in ("sim",)])
    return repr(value)


def state(sim) -> list:
    clock = sim.clock
    scheduler = sim.scheduler
    return [
        render({k: v for k, v in vars(sim.workloads).items() if k not in ("sim", "deployments")}),
        render({k: v for k, v in vars(sim.podgc).items() if k != "sim"}),
        render({k: v for k, v in vars(sim.tainteviction).items() if k != "sim"}),
        render(scheduler.queue),
        render({name: kubelet.containers for name, kubelet in sorted(sim.kubelets.items())}),
        render([scheduler._nominated_at, scheduler.nominated, scheduler._events, scheduler._run.at]),
        sorted(clock._heap), clock._seq, sorted(clock._cancelled),
    ]


def build(plan, edits, bare=False, forget=False):
    """The cluster after `plan`, with `edits` written into some of its pods, if `bare` every node's
    taints taken off, and if `forget` taint eviction's scheduled deletions forgotten (their timers
    left: they find no deletion when they fire), no watcher told."""
    sim = make_sim(CLUSTER)
    for delay, operation in plan:
        sim.run_until(sim.clock.now / 1000 + delay)
        apply_operation(sim, operation)
    sim.run_until(sim.clock.now / 1000 + 1)
    pods = sorted(sim.store.pods.values(), key=lambda p: p.key)
    chosen = []
    nodes = sorted(sim.store.nodes)
    if bare:
        for node in sim.store.nodes.values():
            node.taints = []
    if forget:  # (a pod on a NoExecute node with no deletion scheduled: the handler must schedule it)
        sim.tainteviction.scheduled.clear()
    for index, phase, deleting, node in edits:
        pod = pods[index % len(pods)]
        if phase is not None:
            pod.phase = phase
        if deleting:
            pod.deletion_timestamp = sim.clock.now
        if node is not None:  # unbound, or moved to another node
            pod.node_name = nodes[node % len(nodes)] if node >= 0 and nodes else None
        chosen.append(pod)
    return sim, [sim.store.pods[p.key] for p in chosen]


WATCHERS = {
    "workloads": lambda sim: sim.workloads._on_pod_event,
    "podgc": lambda sim: sim.podgc._on_pod_event,
    "tainteviction": lambda sim: sim.tainteviction._on_pod_event,
    "scheduler": lambda sim: sim.scheduler._on_pod_event,
    "kubelets": lambda sim: sim._kubelet_watch,
}

# Every plan taints a node (pods waiting for their tolerationSeconds) and asks for pods that preempt
# (pods nominated), then does what else it draws.
plans = st.tuples(st.integers(0, 30), st.integers(0, 6), st.integers(0, 30), st.integers(1, 6),
                  st.lists(st.tuples(st.integers(0, 40), st.one_of(
                      st.tuples(st.sampled_from(["power-off", "cordon", "drain", "shutdown", "taint"]),
                                st.integers(0, 6)),
                      st.tuples(st.just("scale"), st.tuples(st.sampled_from(["web", "api", "big", "urgent"]),
                                                            st.integers(0, 9))),
                      st.tuples(st.just("delete-pod"), st.integers(0, 30)),
                  )), max_size=3)).map(
    lambda p: [(p[0], ("taint", p[1])), (p[2], ("scale", ("urgent", p[3])))] + p[4])
edits = st.lists(st.tuples(st.integers(0, 60), st.sampled_from([None, PENDING, RUNNING, SUCCEEDED, FAILED]),
                           st.booleans(), st.one_of(st.none(), st.integers(-1, 6))), min_size=1, max_size=12)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plan=plans, edited=edits, bare=st.booleans(), forget=st.booleans())
@pytest.mark.parametrize("what", POD_CHANGES)
@pytest.mark.parametrize("watcher", sorted(WATCHERS))
def test_a_handler_of_many_pods_is_the_watcher_pod_after_pod(watcher, what, plan, edited, bare, forget):
    together_sim, pods = build(plan, edited, bare, forget)
    handler = together_sim.store.together_watchers[WATCHERS[watcher](together_sim)]
    handler(what, pods)

    one_by_one_sim, pods = build(plan, edited, bare, forget)
    on_pod = WATCHERS[watcher](one_by_one_sim)
    for pod in pods:
        on_pod(what, pod)

    assert state(together_sim) == state(one_by_one_sim)


def test_every_pod_watcher_with_a_handler_is_compared():
    sim = make_sim(CLUSTER)
    compared = {WATCHERS[name](sim).__func__ for name in WATCHERS}
    handled = {watcher.__func__ for watcher in sim.store.together_watchers}
    assert handled == compared  # (the kubelets' batch of binds also in test_bind_together.py)
