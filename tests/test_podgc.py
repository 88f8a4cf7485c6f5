"""PodGC (reference §6): the out-of-service taint's force deletion, orphans of deleted nodes after the
40 s quarantine, and --terminated-pod-gc-threshold; passes every 20 s from the start."""

from conftest import events, make_sim, nodes_toml

from playground.engine import Operation

OOS = "node.kubernetes.io/out-of-service=nodeshutdown:NoExecute"
CLUSTER = nodes_toml("n-", 3) + """
[[pods]]
name = "p"
nodeName = "n-1"

[[pods]]
name = "q"
nodeName = "n-1"
terminationGracePeriodSeconds = 600
"""


def recorder(sim, key):
    seen = []

    def watch(what, pod):
        if pod.key == key:
            seen.append((sim.clock.now, what, pod.phase))
    sim.store.pod_watchers.append(watch)
    return seen


def test_out_of_service_taint_force_deletes_terminating_pods_of_a_dead_node():
    sim = make_sim(CLUSTER)
    sim.run_until(60)
    sim.apply(Operation("power-off", node="n-1"))
    sim.run_until(110)
    assert sim.store.nodes["n-1"].ready_status() == "Unknown"
    seen = recorder(sim, "default/p")
    sim.apply(Operation("taint", node="n-1", taint=OOS))
    sim.run_until(110)
    # Not tolerated: the taint-eviction controller deletes at once; no kubelet will finish it.
    p, q = sim.store.pods["default/p"], sim.store.pods["default/q"]
    assert (p.deletion_timestamp, q.deletion_timestamp) == (140_000, 710_000)
    sim.run_until(119.999)
    assert "default/p" in sim.store.pods and not events(sim, "PodGC")
    sim.run_until(120)  # the next 20 s pass
    assert "default/p" not in sim.store.pods and "default/q" not in sim.store.pods
    assert [(e.time, e.message) for e in events(sim, "PodGC")] == [
        (120_000, "PodGC is force deleting Pod default/p"), (120_000, "PodGC is force deleting Pod default/q")]
    # markFailedAndDeletePod: phase Failed first, then DELETE with grace 0.
    assert seen[-2:] == [(120_000, "phase", "Failed"), (120_000, "removed", "Failed")]
    assert "DisruptionTarget" in p.conditions and p.conditions["DisruptionTarget"].reason == "DeletionByTaintManager"


def test_out_of_service_taint_on_a_ready_node_leaves_the_kubelet_in_charge():
    sim = make_sim(CLUSTER)
    sim.run_until(60)
    sim.apply(Operation("taint", node="n-1", taint=OOS))
    sim.run_until(89.999)
    assert sim.store.pods["default/p"].deletion_timestamp == 90_000 and not events(sim, "PodGC")
    sim.run_until(90)
    assert "default/p" not in sim.store.pods  # removed by its kubelet after the grace period
    assert not events(sim, "PodGC")


def test_pods_of_a_deleted_node_are_orphans_after_a_40s_quarantine():
    sim = make_sim(CLUSTER)
    sim.run_until(60)
    sim.apply(Operation("power-off", node="n-1"))
    sim.run_until(65)
    result = sim.apply(Operation("delete-node", node="n-1"))
    assert result.ok and result.message == 'node "n-1" deleted'
    assert [(e.time, e.message) for e in events(sim, "RemovingNode")] == [
        (65_000, "Node n-1 event: Removing Node n-1 from Controller")]
    seen = recorder(sim, "default/q")
    # The pass at 80 s finds the node name missing and quarantines it until 120 s.
    sim.run_until(80)
    assert sim.podgc.quarantine == {"n-1": 120_000} and sim.podgc.orphan_deadline("n-1") == 120_000
    sim.run_until(119.999)
    assert "default/q" in sim.store.pods
    q = sim.store.pods["default/q"]
    sim.run_until(120)
    assert "default/q" not in sim.store.pods and "default/p" not in sim.store.pods
    target = q.conditions["DisruptionTarget"]
    assert (target.status, target.reason, target.message) == ("True", "DeletionByPodGC", "PodGC: node no longer exists")
    assert seen == [(120_000, "condition", "Running"), (120_000, "phase", "Failed"), (120_000, "removed", "Failed")]
    assert not sim.podgc.quarantine
    sim.run_until(140)
    assert not sim.podgc.missing_nodes  # nothing bound to the name any more


def test_terminated_pods_over_the_threshold_are_deleted_oldest_first():
    sim = make_sim(nodes_toml("n-", 1) + """
[controllerManager]
terminated-pod-gc-threshold = 2

[kubelet]
shutdownGracePeriod = "10s"

[[pods]]
name = "c"
nodeName = "n-1"

[[pods]]
name = "b"
nodeName = "n-1"
at = "2s"

[[pods]]
name = "a"
nodeName = "n-1"
at = "3s"
""")
    sim.run_until(30)
    sim.apply(Operation("shutdown", node="n-1"))
    sim.run_until(39.999)
    assert sorted(p.phase for p in sim.store.pods.values()) == ["Running"] * 3
    sim.run_until(40)
    # Failed at 40 s by the shutdown (10 s); three terminated pods over a threshold of two: the
    # oldest (c, created at 0 s) goes at the pass of the same instant.
    assert sorted(sim.store.pods) == ["default/a", "default/b"]
    assert all(p.phase == "Failed" for p in sim.store.pods.values())
    assert [(e.time, e.message) for e in events(sim, "PodGC")] == [(40_000, "PodGC is force deleting Pod default/c")]
    sim.run_until(100)
    assert sorted(sim.store.pods) == ["default/a", "default/b"]
