"""Property tests: invariants that hold under any sequence of operations."""

from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import make_sim, nodes_toml

from playground.engine import Operation

NODES = ["a-1", "a-2", "a-3", "b-1", "b-2"]
CLUSTER = nodes_toml("a-", 3, cpu="2", memory="4Gi") + nodes_toml("b-", 2, zone="zone-b", cpu="2", memory="4Gi") + """
[[deployments]]
name = "web"
replicas = 6
template = { labels = { app = "web" }, requests = { cpu = "500m", memory = "512Mi" }, stopDuration = "3s" }

[[daemonSets]]
name = "agent"
template = { labels = { app = "agent" }, requests = { cpu = "50m" } }
"""

node_ops = st.sampled_from(["power-off", "power-on", "partition", "heal", "cordon", "uncordon", "stop-kubelet",
                            "start-kubelet", "shutdown"])
operation = st.one_of(
    st.tuples(node_ops, st.sampled_from(NODES)),
    st.tuples(st.just("scale"), st.integers(0, 10)),
    st.tuples(st.just("delete-pod"), st.integers(0, 20)),
    st.tuples(st.just("taint"), st.sampled_from(NODES)),
)
steps = st.lists(st.tuples(st.integers(1, 120), operation), min_size=1, max_size=12)


def check_invariants(sim):
    store = sim.store
    # Indexes agree with the objects, and request totals with the pods bound to each node.
    for name, node in store.nodes.items():
        listed = store.pods_by_node.get(name, {})
        for key, pod in listed.items():
            assert store.pods.get(key) is pod and pod.node_name == name
        live = [p for p in listed.values() if not p.is_terminal()]
        assert node.pod_count == len(live)
        assert node.requested_cpu == sum(p.cpu for p in live)
        assert node.requested_memory == sum(p.memory for p in live)
        # The scheduler never overcommits (no pod here is pinned by nodeName).
        assert node.requested_cpu <= node.allocatable_cpu and node.pod_count <= node.allocatable_pods
    for key, pod in store.pods.items():
        if pod.node_name:
            assert key in store.pods_by_node[pod.node_name]
    # A pod's containers run on at most one machine, and only the one it is bound to.
    seen = {}
    for name, kubelet in sim.kubelets.items():
        for key, container in kubelet.containers.items():
            assert key not in seen, f"{key} runs on {seen[key]} and {name}"
            seen[key] = name
            pod = store.pods.get(key)
            if pod is not None and pod.uid == container.uid:
                assert pod.node_name == name
    # No eviction happens while every zone is fully disrupted.
    if sim.nodelifecycle.all_zones_down:
        assert not any(n.has_taint("node.kubernetes.io/unreachable", "NoExecute")
                       or n.has_taint("node.kubernetes.io/not-ready", "NoExecute") for n in store.nodes.values())
    # Nothing lost: the ReplicaSet keeps its active replicas at the desired count after it synced.
    web = store.deployments["web"]
    rs_name = sim.workloads.replicasets_of("web")[0].name
    active = [p for p in store.owned_pods("ReplicaSet", rs_name) if p.is_active()]
    assert len(active) == web.replicas


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps)
def test_invariants_under_random_operations(plan):
    sim = make_sim(CLUSTER)
    sim.run_until(5)
    for delay, (kind, arg) in plan:
        target = sim.clock.now + delay * 1000
        while sim.clock.now < target:
            sim.step()
            check_invariants(sim)
        if kind == "scale":
            sim.apply(Operation("scale", deployment="web", replicas=arg))
        elif kind == "delete-pod":
            pods = sorted(sim.store.pods)
            if pods:
                ns, name = pods[arg % len(pods)].split("/")
                sim.apply(Operation("delete-pod", pod=name, namespace=ns))
        elif kind == "taint":
            sim.apply(Operation("taint", node=arg, taint="maint=x:NoExecute"))
        else:
            sim.apply(Operation(kind, node=arg))
        sim.run_until(sim.clock.now / 1000)  # let same-instant reactions (ReplicaSet sync) run
        check_invariants(sim)
    sim.run_until(sim.clock.now / 1000 + 900)
    check_invariants(sim)
