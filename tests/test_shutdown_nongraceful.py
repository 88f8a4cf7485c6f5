"""Non-graceful node shutdown (KEP-2268, reference §6): a StatefulSet replica and its volume on a
powered-off node, with and without the out-of-service taint."""

from conftest import events, make_sim, nodes_toml

from playground.engine import Operation
from playground.engine.attachdetach import MAX_WAIT_FOR_UNMOUNT_MS

OOS = "node.kubernetes.io/out-of-service=nodeshutdown:NoExecute"
CLUSTER = nodes_toml("n-", 3) + """
[[statefulSets]]
name = "db"
replicas = 2
template = { labels = { app = "db" }, requests = { cpu = "100m" } }
"""


def start(text: str = CLUSTER):
    sim = make_sim(text)
    sim.run_until(59)
    node = sim.store.pods["default/db-0"].node_name
    sim.apply(Operation("power-off", node=node))
    return sim, node


def test_stable_names_ordered_start_and_one_volume_each():
    sim = make_sim(CLUSTER)
    sim.run_until(0.999)
    assert sorted(sim.store.pods) == ["default/db-0"]  # OrderedReady: db-1 waits for db-0 to be Ready
    sim.run_until(1)
    assert sorted(sim.store.pods) == ["default/db-0", "default/db-1"]
    assert [e.message for e in events(sim, "SuccessfulCreate", "StatefulSet/default/db")] == [
        "create Claim data-db-0 Pod db-0 in StatefulSet db success",
        "create Pod db-0 in StatefulSet db successful",
        "create Claim data-db-1 Pod db-1 in StatefulSet db success",
        "create Pod db-1 in StatefulSet db successful"]
    db0 = sim.store.pods["default/db-0"]
    assert db0.volume_claims == ("data-db-0",) and db0.labels["statefulset.kubernetes.io/pod-name"] == "db-0"
    volume = sim.attachdetach.volumes["default/data-db-0"]
    assert volume.attached_to == db0.node_name and volume.mounted_by_node
    assert [(e.time, e.message) for e in events(sim, "SuccessfulAttachVolume", "Pod/default/db-0")] == [
        (0, 'AttachVolume.Attach succeeded for volume "data-db-0"')]


def test_without_help_the_replica_stays_terminating_and_is_never_replaced():
    sim, node = start()
    sim.run_until(900)
    db0 = sim.store.pods["default/db-0"]
    assert db0.node_name == node and db0.deletion_timestamp == 440_000  # deleted at 410 s, 30 s grace
    assert sim.attachdetach.volumes["default/data-db-0"].attached_to == node
    assert len([p for p in sim.store.pods.values() if p.name == "db-0"]) == 1


def test_out_of_service_taint_force_deletes_and_detaches_at_once():
    sim, node = start()
    sim.run_until(130)
    sim.apply(Operation("taint", node=node, taint=OOS))
    sim.run_until(130)
    assert sim.store.pods["default/db-0"].deletion_timestamp == 160_000  # the taint is not tolerated
    sim.run_until(139.999)
    assert sim.store.pods["default/db-0"].node_name == node
    sim.run_until(140)  # PodGC's pass: Failed, then force-deleted; the StatefulSet creates db-0 again
    db0 = sim.store.pods["default/db-0"]
    assert db0.node_name not in (None, node) and db0.deletion_timestamp is None
    detach = events(sim, "DetachVolume")
    assert [(e.time, e.message) for e in detach] == [
        (140_000, "attacherDetacher.DetachVolume started: node has out-of-service taint, force detaching: "
                  f"volume data-db-0 detached from node {node}")]
    volume = sim.attachdetach.volumes["default/data-db-0"]
    assert volume.attached_to is None  # attached in the next reconciler pass
    sim.run_until(140.1)
    assert volume.attached_to == db0.node_name
    sim.run_until(141.1)
    assert db0.is_ready()


def test_force_deleting_by_hand_waits_six_minutes_for_the_volume():
    sim, node = start()
    sim.run_until(130)
    sim.apply(Operation("delete-pod", pod="db-0", grace_period_seconds=0))
    sim.run_until(130)
    db0 = sim.store.pods["default/db-0"]
    assert db0.node_name not in (None, node)
    volume = sim.attachdetach.volumes["default/data-db-0"]
    assert volume.detach_requested_at == 130_000 and volume.mounted_by_node  # the dead node never unmounted
    sim.run_until(130.1)
    assert [(e.time, e.message) for e in events(sim, "FailedAttachVolume", "Pod/default/db-0")] == [
        (130_100, 'Multi-Attach error for volume "data-db-0" Volume is already exclusively attached to one node '
                  "and can't be attached to another")]
    assert sim.attachdetach.force_detach_at(volume) == 490_100
    sim.run_until(490)
    assert volume.attached_to == node  # elapsed 6 min exactly is not yet "more than" 6 min
    sim.run_until(490.1)
    assert volume.attached_to is None
    assert "maxWaitForUnmountDuration expired, force detaching" in events(sim, "DetachVolume")[0].message
    sim.run_until(490.2)
    assert volume.attached_to == db0.node_name and not db0.is_ready()
    sim.run_until(491.2)
    assert db0.is_ready()
    assert MAX_WAIT_FOR_UNMOUNT_MS == 360_000


def test_graceful_shutdown_unmounts_so_the_volume_follows_at_once():
    sim = make_sim(CLUSTER.replace("[[statefulSets]]", '[kubelet]\nshutdownGracePeriod = "20s"\n\n[[statefulSets]]'))
    sim.run_until(59)
    node = sim.store.pods["default/db-0"].node_name
    sim.apply(Operation("shutdown", node=node))
    sim.run_until(59)
    assert sim.attachdetach.volumes["default/data-db-0"].mounted_by_node
    sim.run_until(79)  # killed with min(30, 20) s: Failed at 79 s, deleted and re-created by the StatefulSet
    db0 = sim.store.pods["default/db-0"]
    assert db0.node_name not in (None, node) and db0.phase == "Pending"
    assert [e.message for e in events(sim, "SuccessfulDelete", "StatefulSet/default/db")] == [
        "delete Pod db-0 in StatefulSet db successful"]
    detach = events(sim, "DetachVolume")
    assert [(e.time, e.message) for e in detach] == [
        (79_000, f"attacherDetacher.DetachVolume started: volume data-db-0 detached from node {node}")]
    sim.run_until(79.1)
    assert sim.attachdetach.volumes["default/data-db-0"].attached_to == db0.node_name
