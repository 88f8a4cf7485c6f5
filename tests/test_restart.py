"""Restart and rejoin: a rebooted node re-registers, its conditions recover, its taints go, pending
taint-based evictions are cancelled; a deleted Node object is re-created by a restarted kubelet."""

from conftest import events, make_sim, nodes_toml

from playground.engine import Operation

CLUSTER = nodes_toml("n-", 3) + """
[[daemonSets]]
name = "agent"
template = { labels = { app = "agent" }, requests = { cpu = "100m" } }

[[pods]]
name = "p"
nodeName = "n-1"
requests = { cpu = "500m" }
"""


def test_power_on_before_the_eviction_cancels_it_and_the_pods_restart():
    sim = make_sim(CLUSTER)
    sim.run_until(60)
    sim.apply(Operation("power-off", node="n-1"))
    sim.run_until(200)
    node = sim.store.nodes["n-1"]
    assert node.ready_status() == "Unknown"
    assert sorted(node.taint_strings()) == ["node.kubernetes.io/unreachable:NoExecute",
                                            "node.kubernetes.io/unreachable:NoSchedule"]
    assert sim.tainteviction.deletion_at(sim.store.pods["default/p"]) == 410_000
    assert sim.apply(Operation("power-on", node="n-1")).ok
    # Registration posts Ready at once: the NoSchedule taint goes with the condition update...
    assert node.ready_status() == "True" and node.taint_strings() == ["node.kubernetes.io/unreachable:NoExecute"]
    # ...and the node lifecycle controller's next pass (the one at 200 s already ran) removes the
    # NoExecute taint, which cancels the pending deletions.
    sim.run_until(204.999)
    assert node.taint_strings() == ["node.kubernetes.io/unreachable:NoExecute"]
    sim.run_until(205)
    assert node.taint_strings() == []
    cancelled = [(e.time, e.object, e.message) for e in events(sim, "TaintManagerEviction")]
    assert sorted(cancelled) == [(205_000, "Pod/default/p", "Cancelling deletion of Pod default/p")]
    p = sim.store.pods["default/p"]
    assert p.deletion_timestamp is None and sim.tainteviction.deletion_at(p) is None
    sim.run_until(201)
    assert p.is_ready() and sim.kubelets["n-1"].containers["default/p"].started
    sim.run_until(900)
    assert "default/p" in sim.store.pods and p.deletion_timestamp is None


def test_a_deleted_node_is_registered_again_by_its_restarted_kubelet():
    sim = make_sim(CLUSTER)
    sim.run_until(60)
    old = sim.store.nodes["n-1"]
    daemon = next(p for p in sim.store.pods_on("n-1") if p.labels.get("app") == "agent")
    sim.apply(Operation("delete-node", node="n-1"))
    assert "n-1" not in sim.store.nodes and "n-1" not in sim.store.leases
    # The kubelet keeps running: PodGC's orphan pass deletes the pods (the 60 s pass had run; the
    # 80 s pass quarantines the name until 120 s), and the kubelet, which still watches its pods,
    # stops their containers.
    sim.run_until(119.999)
    assert "default/p" in sim.store.pods and sim.podgc.quarantine == {"n-1": 120_000}
    sim.run_until(120)
    assert "default/p" not in sim.store.pods and daemon.key not in sim.store.pods
    assert sim.kubelets["n-1"].containers == {}
    assert sim.apply(Operation("restart-kubelet", node="n-1")).ok
    node = sim.store.nodes["n-1"]
    assert node is not old and node.uid != old.uid and node.creation_time == 120_000
    assert node.ready_status() == "True" and "n-1" in sim.store.leases
    sim.run_until(125)
    assert [(e.time, e.object) for e in events(sim, "RegisteredNode", "Node/n-1")] == [(0, "Node/n-1"),
                                                                                         (125_000, "Node/n-1")]
    sim.run_until(126)
    agent = [p for p in sim.store.pods_on("n-1") if p.labels.get("app") == "agent"]
    assert len(agent) == 1 and agent[0].is_ready()  # the DaemonSet came back with the node
    assert (node.pod_count, node.requested_cpu) == (1, 100)


def test_a_node_registered_again_before_podgc_keeps_its_pods():
    sim = make_sim(CLUSTER)
    sim.run_until(60)
    sim.apply(Operation("delete-node", node="n-1"))
    sim.run_until(70)
    sim.apply(Operation("restart-kubelet", node="n-1"))
    node = sim.store.nodes["n-1"]
    # The pods bound to the name count against the new Node object at once.
    assert (node.pod_count, node.requested_cpu) == (2, 600)
    sim.run_until(200)
    assert "default/p" in sim.store.pods and sim.store.pods["default/p"].is_ready()
    assert not events(sim, "PodGC") and not sim.podgc.quarantine
