"""The kubelet's lease after a partition: backoffEnsureLease's schedule (reference §1.3)."""

from conftest import events, make_sim, nodes_toml

from playground.engine import Operation
from playground.engine.kubelet import lease_backoff_success


def test_backoff_schedule_doubles_from_200ms_to_7s():
    first_failure = 60_000
    attempts = [lease_backoff_success(first_failure, t) for t in (60_001, 60_201, 60_601, 61_401, 63_001, 66_201, 72_601,
                                                                   79_601)]
    assert attempts == [60_200, 60_600, 61_400, 63_000, 66_200, 72_600, 79_600, 86_600]
    assert lease_backoff_success(first_failure, 86_601) == 93_600  # capped at 7 s


def test_short_partition_renews_on_backoff_and_node_never_goes_unknown():
    sim = make_sim(nodes_toml("n-", 2))
    sim.run_until(55)
    assert sim.apply(Operation("partition", node="n-1")).ok  # last renewal 50 s; 60 s fails
    sim.run_until(90)
    assert sim.apply(Operation("heal", node="n-1")).ok
    kubelet = sim.kubelets["n-1"]
    assert kubelet.state_label() == "Reconnecting"
    sim.run_until(93.5)
    assert kubelet.lease_renew_time == 50_000
    sim.run_until(93.6)
    assert kubelet.lease_renew_time == 93_600 and kubelet.state_label() == "Running"
    sim.run_until(110)
    kubelet.catch_up()
    assert kubelet.lease_renew_time == 103_600  # the renew loop restarts from the successful renewal
    assert sim.store.nodes["n-1"].ready_status() == "True"
    assert not events(sim, "NodeNotReady")


def test_long_partition_recovers_when_the_status_loop_posts_ready():
    sim = make_sim(nodes_toml("n-", 2) + '\n[[pods]]\nname = "p"\nnodeName = "n-1"\n')
    sim.run_until(55)
    sim.apply(Operation("partition", node="n-1"))
    sim.run_until(120)
    node = sim.store.nodes["n-1"]
    assert node.ready_status() == "Unknown"
    assert "node.kubernetes.io/unreachable:NoExecute" in node.taint_strings()
    assert sim.kubelets["n-1"].containers["default/p"].started  # the container kept running
    sim.apply(Operation("heal", node="n-1"))
    sim.run_until(129.9)
    assert node.ready_status() == "Unknown"  # lease back at 121.6 s, status loop next at 130 s
    sim.run_until(130)
    assert node.ready_status() == "True" and node.taint_strings() == []
    # the same kubelet process reports NodeReady again: its recorder counts it on the Event of 0 s
    [ready] = events(sim, "NodeReady", "Node/n-1")
    assert (ready.time, ready.count, ready.last_time) == (0, 2, 130_000)
    assert sim.store.pods["default/p"].is_ready()
    assert [e.message for e in events(sim, "TaintManagerEviction")] == ["Cancelling deletion of Pod default/p"]


def test_the_nodes_of_a_pool_share_one_kubelet_configuration_and_a_node_keeps_its_own():
    """Simulation.add_node makes one KubeletConfig for each node entry's settings: the pool's nodes
    share it (no code writes one after it is made), each over the cluster-wide [kubelet] table."""
    sim = make_sim("""
        [kubelet]
        nodeLeaseDurationSeconds = 20

        [[nodePools]]
        namePrefix = "p-"
        count = 3
        capacity = { cpu = "4", memory = "8Gi", pods = 110 }
        kubelet = { maxPods = 50 }

        [[nodes]]
        name = "solo"
        capacity = { cpu = "4", memory = "8Gi", pods = 110 }
        kubelet = { maxPods = 30 }

        [[nodes]]
        name = "plain"
        capacity = { cpu = "4", memory = "8Gi", pods = 110 }
        """)
    pool = [sim.kubelets[f"p-{i}"].config for i in range(1, 4)]
    assert pool[0] is pool[1] is pool[2]
    assert (pool[0].max_pods, pool[0].node_lease_duration_seconds) == (50, 20)
    solo, plain = sim.kubelets["solo"].config, sim.kubelets["plain"].config
    assert (solo.max_pods, solo.node_lease_duration_seconds) == (30, 20)
    assert (plain.max_pods, plain.node_lease_duration_seconds) == (110, 20)
    assert [sim.store.nodes[name].allocatable_pods for name in ("p-1", "solo", "plain")] == [50, 30, 110]
