"""Property tests of scheduling and preemption under random arrivals and deletions: no pod is ever
preempted by one of equal or lower priority, nodes are never overcommitted, the nomination index
agrees with the pods, and every pending pod is queued with an explanation."""

from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import make_sim, nodes_toml

from playground.engine import Operation
from playground.engine.objects import PodTemplate, uid_text

arrival = st.tuples(
    st.integers(0, 90),  # second
    st.sampled_from([0, 10, 100, 1000]),  # priority
    st.sampled_from([250, 500, 1000, 1500]),  # millicores
    st.sampled_from(["PreemptLowerPriority", "Never"]),
    st.sampled_from([0, 5, 30]),  # terminationGracePeriodSeconds
)
deletion = st.tuples(st.integers(0, 90), st.integers(0, 30))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(arrival, min_size=1, max_size=25), st.lists(deletion, max_size=6))
def test_preemption_invariants(arrivals, deletions):
    sim = make_sim(nodes_toml("a-", 2, cpu="2", memory="4Gi") + nodes_toml("b-", 1, zone="zone-b", cpu="2", memory="4Gi"))
    priority_of: dict[str, int] = {}
    actions = sorted([(t, 0, i, a) for i, (t, *a) in enumerate(arrivals)] + [(t, 1, i, (n,)) for i, (t, n) in enumerate(deletions)])
    for t, kind, i, data in actions:
        sim.run_until(t)
        if kind == 0:
            priority, cpu, policy, grace = data
            template = PodTemplate(labels={"app": f"p{i}"}, cpu=cpu, memory=64 << 20, priority=priority,
                                   termination_grace_period_seconds=grace)
            sim.apply(Operation("create-pod", pod=f"p{i}", template=template))
            pod = sim.store.pods[f"default/p{i}"]
            pod.preemption_policy = policy
            priority_of[uid_text(pod.uid)] = priority_of[pod.name] = priority
        else:
            names = sorted(sim.store.pods)
            if names:
                sim.apply(Operation("delete-pod", pod=names[data[0] % len(names)].split("/")[1]))
        check(sim, priority_of)
    sim.run_until(400)
    check(sim, priority_of)


def check(sim, priority_of):
    store = sim.store
    for event in store.recorder.events:
        if event.reason != "Preempted":
            continue
        uid = event.message.split()[3]
        assert priority_of[event.object.split("/")[-1]] < priority_of[uid]
    for node in store.nodes.values():
        assert node.requested_cpu <= node.allocatable_cpu
        assert node.pod_count <= node.allocatable_pods
    for node_name, nominated in sim.scheduler.nominated.items():
        for key, pod in nominated.items():
            assert store.pods.get(key) is pod and pod.node_name is None and pod.nominated_node_name == node_name
    for pod in store.pods.values():
        if pod.nominated_node_name:
            assert pod.key in sim.scheduler.nominated.get(pod.nominated_node_name, {})
        if pod.node_name is None and pod.deletion_timestamp is None:
            where, _ = sim.scheduler.queue_state(pod)
            assert where in ("active", "backoff", "unschedulable")
            if where in ("backoff", "unschedulable"):
                assert pod.key in sim.scheduler.last_attempt
        # preemptionPolicy Never pods never cause a preemption
        if pod.preemption_policy == "Never":
            assert not any(e.reason == "Preempted" and uid_text(pod.uid) in e.message for e in store.recorder.events)
