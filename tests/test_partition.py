"""Partition versus power-off versus a stopped kubelet: who keeps running containers, and what the
kubelet cleans up when it can see the API server again."""

from conftest import events, make_sim, nodes_toml

from playground.engine import Operation
from playground.engine.kubelet import lease_backoff_success

# One dead node per zone, so that each zone's limiter taints its node at the same pass.
CLUSTER = nodes_toml("a-", 2, zone="zone-a") + nodes_toml("b-", 2, zone="zone-b") + """
[[pods]]
name = "on-a"
nodeName = "a-1"

[[pods]]
name = "on-b"
nodeName = "b-1"
"""


def test_partitioned_containers_outlive_their_pods_powered_off_ones_do_not():
    sim = make_sim(CLUSTER)
    sim.run_until(60)
    sim.apply(Operation("partition", node="a-1"))
    sim.apply(Operation("power-off", node="b-1"))
    sim.run_until(110)
    for name in ("a-1", "b-1"):
        assert "node.kubernetes.io/unreachable:NoExecute" in sim.store.nodes[name].taint_strings()
    sim.run_until(410)  # tolerated for 300 s, then deleted; nobody is there to finish the deletion
    on_a, on_b = sim.store.pods["default/on-a"], sim.store.pods["default/on-b"]
    assert on_a.deletion_timestamp == on_b.deletion_timestamp == 440_000
    sim.run_until(490)
    assert on_a.key in sim.store.pods and on_b.key in sim.store.pods  # Terminating
    assert sim.kubelets["a-1"].containers["default/on-a"].started  # still running behind the partition
    assert sim.kubelets["b-1"].containers == {}  # gone with the power

    sim.apply(Operation("heal", node="a-1"))
    sim.apply(Operation("power-on", node="b-1"))
    # The rebooted kubelet finds nothing running for its deleted pod and confirms the deletion.
    assert on_b.key not in sim.store.pods
    # The partitioned kubelet gets through on its lease backoff, then stops the container within the
    # pod's grace period (30 s) and removes the pod.
    back = lease_backoff_success(60_000, 490_000)
    assert back == 492_600
    sim.run_until(back / 1000)
    container = sim.kubelets["a-1"].containers["default/on-a"]
    assert container.stopping and container.stop_at == back + 30_000
    assert [(e.time, e.object) for e in events(sim, "Killing")] == [(back, "Pod/default/on-a")]
    sim.run_until((back + 29_999) / 1000)
    assert on_a.key in sim.store.pods
    sim.run_until((back + 30_000) / 1000)
    assert on_a.key not in sim.store.pods and not sim.kubelets["a-1"].containers


def test_a_force_deleted_pod_keeps_running_until_the_partition_heals():
    sim = make_sim(CLUSTER)
    sim.run_until(60)
    sim.apply(Operation("partition", node="a-1"))
    sim.run_until(120)
    sim.apply(Operation("delete-pod", pod="on-a", grace_period_seconds=0))
    assert "default/on-a" not in sim.store.pods
    sim.run_until(400)
    assert sim.kubelets["a-1"].containers["default/on-a"].started  # the API forgot it; the machine did not
    sim.apply(Operation("heal", node="a-1"))
    back = lease_backoff_success(60_000, 400_000)
    sim.run_until(back / 1000)
    # The kubelet still knows the pod's spec: its terminationGracePeriodSeconds (30 s) applies.
    assert sim.kubelets["a-1"].containers["default/on-a"].stop_at == back + 30_000
    sim.run_until((back + 30_000) / 1000)
    assert not sim.kubelets["a-1"].containers


def test_a_stopped_kubelet_leaves_containers_running_and_its_successor_kills_strangers_in_1s():
    sim = make_sim(CLUSTER)
    sim.run_until(60)
    sim.apply(Operation("stop-kubelet", node="a-1"))
    sim.run_until(120)
    sim.apply(Operation("delete-pod", pod="on-a", grace_period_seconds=0))
    assert sim.kubelets["a-1"].containers["default/on-a"].started
    sim.run_until(130)
    sim.apply(Operation("start-kubelet", node="a-1"))
    # HandlePodCleanups: a runtime pod the new kubelet process never knew is killed with 1 s.
    assert sim.kubelets["a-1"].containers["default/on-a"].stop_at == 131_000
    sim.run_until(131)
    assert not sim.kubelets["a-1"].containers
    ready = sim.store.nodes["a-1"].conditions["Ready"]  # Unknown since 105 s; the new kubelet posts at once
    assert (ready.status, ready.last_transition_time) == ("True", 130_000)
    assert [e.time for e in events(sim, "Starting", "Node/a-1")] == [130_000]
