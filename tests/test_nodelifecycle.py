"""Node lifecycle controller, reference §1–2, with exact times on the virtual clock."""

from conftest import events, make_sim, nodes_toml

from playground.engine import Operation
from playground.engine.nodelifecycle import (
    FULL, NORMAL, PARTIAL, NodeLifecycleController, TokenBucket,
)

UNREACHABLE_NE = "node.kubernetes.io/unreachable:NoExecute"
UNREACHABLE_NS = "node.kubernetes.io/unreachable:NoSchedule"
NOT_READY_NE = "node.kubernetes.io/not-ready:NoExecute"


def power_off(sim, *names):
    for name in names:
        assert sim.apply(Operation("power-off", node=name)).ok


def ready(sim, name):
    return sim.store.nodes[name].ready_status()


def taints(sim, name):
    return sim.store.nodes[name].taint_strings()


def first_time(sim, predicate, limit_s=3600):
    """The first tick (in ms) at which predicate(sim) holds."""
    while sim.clock.now <= limit_s * 1000:
        if predicate(sim):
            return sim.clock.now
        sim.step()
    raise AssertionError("never happened")


def test_lease_renewed_every_quarter_of_its_duration():
    sim = make_sim(nodes_toml("n-", 1))
    sim.run_until(37)
    sim.kubelets["n-1"].catch_up()
    assert sim.kubelets["n-1"].lease_renew_time == 30_000
    lease = sim.store.leases["n-1"]
    assert (lease.namespace, lease.holder_identity, lease.lease_duration_seconds) == ("kube-node-lease", "n-1", 40)
    sim2 = make_sim(nodes_toml("n-", 1) + "\n[kubelet]\nnodeLeaseDurationSeconds = 20\n")
    sim2.run_until(37)
    sim2.kubelets["n-1"].catch_up()
    assert sim2.kubelets["n-1"].lease_renew_time == 35_000  # every 5 s


def test_status_heartbeat_every_report_period_and_backward_compatibility():
    sim = make_sim(nodes_toml("n-", 1))
    sim.run_until(299)
    sim.kubelets["n-1"].catch_up()
    assert sim.store.nodes["n-1"].conditions["Ready"].last_heartbeat_time == 0
    sim.run_until(300)
    sim.kubelets["n-1"].catch_up()
    assert sim.store.nodes["n-1"].conditions["Ready"].last_heartbeat_time == 300_000
    # nodeStatusUpdateFrequency set alone: nodeStatusReportFrequency follows it.
    sim2 = make_sim(nodes_toml("n-", 1) + '\n[kubelet]\nnodeStatusUpdateFrequency = "20s"\n')
    assert sim2.kubelets["n-1"].config.node_status_report_frequency == 20_000
    sim2.run_until(45)
    sim2.kubelets["n-1"].catch_up()
    assert sim2.store.nodes["n-1"].conditions["Ready"].last_heartbeat_time == 40_000


def test_healthy_node_conditions_as_the_kubelet_posts_them():
    sim = make_sim(nodes_toml("n-", 1))
    sim.run_until(1)
    conds = sim.store.nodes["n-1"].conditions
    assert (conds["Ready"].status, conds["Ready"].reason, conds["Ready"].message) == (
        "True", "KubeletReady", "kubelet is posting ready status")
    assert (conds["MemoryPressure"].status, conds["MemoryPressure"].reason) == ("False", "KubeletHasSufficientMemory")
    assert (conds["DiskPressure"].reason, conds["PIDPressure"].reason) == ("KubeletHasNoDiskPressure", "KubeletHasSufficientPID")
    assert events(sim, "RegisteredNode")[0].message == "Node n-1 event: Registered Node n-1 in Controller"


def test_power_off_ready_unknown_55s_after_last_renewal_then_noexecute_one_pass_later():
    sim = make_sim(nodes_toml("n-", 3))
    sim.run_until(60)
    power_off(sim, "n-2")  # last renewal was at 50 s
    unknown_at = first_time(sim, lambda s: ready(s, "n-2") == "Unknown")
    assert unknown_at == 105_000
    node = sim.store.nodes["n-2"]
    for ctype in ("Ready", "MemoryPressure", "DiskPressure", "PIDPressure"):
        cond = node.conditions[ctype]
        assert (cond.status, cond.reason, cond.message) == ("Unknown", "NodeStatusUnknown",
                                                             "Kubelet stopped posting node status.")
        assert cond.last_transition_time == 105_000
    assert node.conditions["Ready"].last_heartbeat_time == 0  # untouched: the last status post
    assert taints(sim, "n-2") == [UNREACHABLE_NS]
    [event] = events(sim, "NodeNotReady", "Node/n-2")
    assert (event.time, event.message, event.source) == (105_000, "Node n-2 status is now: NodeNotReady",
                                                          "node-controller")
    tainted_at = first_time(sim, lambda s: UNREACHABLE_NE in taints(s, "n-2"))
    assert tainted_at == 110_000
    assert sim.store.nodes["n-2"].taints[-1].time_added == 110_000


def test_grace_period_is_a_setting_older_default_40s():
    sim = make_sim(nodes_toml("n-", 2) + '\n[controllerManager]\nnode-monitor-grace-period = "40s"\n')
    sim.run_until(60)
    power_off(sim, "n-1")
    assert first_time(sim, lambda s: ready(s, "n-1") == "Unknown") == 95_000


def test_pods_marked_not_ready_when_node_goes_unknown():
    sim = make_sim(nodes_toml("n-", 2) + """
[[pods]]
name = "p"
nodeName = "n-1"
""")
    sim.run_until(60)
    assert sim.store.pods["default/p"].condition_status("Ready") == "True"
    power_off(sim, "n-1")
    sim.run_until(104)
    assert sim.store.pods["default/p"].condition_status("Ready") == "True"
    sim.run_until(105)
    assert sim.store.pods["default/p"].condition_status("Ready") == "False"


def test_three_dead_nodes_of_one_zone_tainted_10s_apart_in_a_normal_cluster():
    sim = make_sim(nodes_toml("a-", 8) + nodes_toml("b-", 8, zone="zone-b"))
    sim.run_until(60)
    power_off(sim, "a-1", "a-2", "a-3")  # 3 of 8: zone a stays Normal
    times = {}
    for name in ("a-1", "a-2", "a-3"):
        times[name] = first_time(sim, lambda s, n=name: UNREACHABLE_NE in taints(s, n))
    assert times == {"a-1": 110_000, "a-2": 120_000, "a-3": 130_000}
    assert sim.nodelifecycle.zone_states["zone-a"] == NORMAL
    assert sim.nodelifecycle.evictions_total["zone-a"] == 3


def test_small_zone_in_partial_disruption_is_never_tainted():
    sim = make_sim(nodes_toml("a-", 4) + nodes_toml("b-", 3, zone="zone-b"))
    sim.run_until(60)
    power_off(sim, "a-1", "a-2", "a-3")
    sim.run_until(105)
    assert sim.nodelifecycle.zone_states["zone-a"] == PARTIAL
    sim.run_until(1800)
    for name in ("a-1", "a-2", "a-3"):
        assert UNREACHABLE_NE not in taints(sim, name)
        assert UNREACHABLE_NS in taints(sim, name)


def test_large_zone_in_partial_disruption_uses_the_secondary_rate():
    sim = make_sim(nodes_toml("a-", 60) + nodes_toml("b-", 3, zone="zone-b"))
    sim.run_until(60)
    power_off(sim, *[f"a-{i}" for i in range(1, 41)])  # 40 of 60 > 55 %
    sim.run_until(105)
    assert sim.nodelifecycle.zone_states["zone-a"] == PARTIAL
    # The Normal -> Partial swap at 105 s happens with a full bucket: the first node is tainted at
    # once at 110 s, the next one a token later at 0.01 nodes/s = 100 s.
    first = first_time(sim, lambda s: sum(UNREACHABLE_NE in taints(s, f"a-{i}") for i in range(1, 41)) == 1)
    second = first_time(sim, lambda s: sum(UNREACHABLE_NE in taints(s, f"a-{i}") for i in range(1, 41)) == 2)
    assert (first, second) == (110_000, 210_000)


def test_fully_disrupted_zone_is_still_tainted_at_normal_rate_while_others_live():
    sim = make_sim(nodes_toml("a-", 2) + nodes_toml("b-", 3, zone="zone-b"))
    sim.run_until(60)
    power_off(sim, "a-1", "a-2")
    sim.run_until(105)
    assert sim.nodelifecycle.zone_states["zone-a"] == FULL
    assert first_time(sim, lambda s: UNREACHABLE_NE in taints(s, "a-2")) == 120_000


def test_exclude_disruption_label_keeps_a_node_out_of_zone_state():
    extra = 'labels = { "topology.kubernetes.io/zone" = "zone-a", "node.kubernetes.io/exclude-disruption" = "" }'
    sim = make_sim(nodes_toml("a-", 1) + f"""
[[nodes]]
name = "x-1"
{extra}
capacity = {{ cpu = "1", memory = "1Gi" }}
""" + nodes_toml("b-", 1, zone="zone-b"))
    sim.run_until(60)
    power_off(sim, "a-1")
    sim.run_until(106)
    # x-1 is Ready but excluded: zone a counts only a-1, which is down.
    assert sim.nodelifecycle.zone_states["zone-a"] == FULL


def test_all_zones_down_enters_and_exits_master_disruption_mode():
    sim = make_sim(nodes_toml("a-", 2) + nodes_toml("b-", 2, zone="zone-b"))
    sim.run_until(60)
    power_off(sim, "a-1", "a-2", "b-1", "b-2")
    sim.run_until(105)
    [enter] = events(sim, "MasterDisruptionMode")
    assert enter.time == 105_000 and "Entering master disruption mode" in enter.message
    assert sim.nodelifecycle.all_zones_down
    sim.run_until(399)
    assert all(UNREACHABLE_NE not in taints(sim, n) for n in ("a-1", "a-2", "b-1", "b-2"))
    assert sim.apply(Operation("power-on", node="b-1")).ok
    sim.run_until(400)
    exits = events(sim, "MasterDisruptionMode")
    assert exits[-1].time == 400_000 and "Exiting master disruption mode" in exits[-1].message
    assert not sim.nodelifecycle.all_zones_down
    # The restored limiters start without a token: first taint 10 s after the exit.
    assert first_time(sim, lambda s: UNREACHABLE_NE in taints(s, "a-1")) == 410_000


def test_master_disruption_mode_removes_taints_already_applied():
    sim = make_sim(nodes_toml("a-", 2) + nodes_toml("b-", 2, zone="zone-b"))
    sim.run_until(60)
    power_off(sim, "a-1", "a-2", "b-1")
    sim.run_until(111)
    assert UNREACHABLE_NE in taints(sim, "a-1")
    power_off(sim, "b-2")  # last renewal at 110 s: Unknown at 165 s, then every zone is down
    sim.run_until(165)
    assert sim.nodelifecycle.all_zones_down
    assert not any(UNREACHABLE_NE in taints(sim, n) for n in ("a-1", "a-2", "b-1", "b-2"))


def test_recovered_node_loses_its_taints():
    sim = make_sim(nodes_toml("n-", 3))
    sim.run_until(60)
    power_off(sim, "n-1")
    sim.run_until(120)
    assert UNREACHABLE_NE in taints(sim, "n-1")
    assert sim.apply(Operation("power-on", node="n-1")).ok
    sim.run_until(120)
    assert ready(sim, "n-1") == "True"
    assert UNREACHABLE_NS not in taints(sim, "n-1")  # NoSchedule follows the condition at once
    sim.run_until(125)
    assert taints(sim, "n-1") == []  # NoExecute goes on the next monitor pass


def test_kubelet_reporting_not_ready_is_queued_in_the_same_pass():
    sim = make_sim(nodes_toml("n-", 3) + '\n[kubelet]\nshutdownGracePeriod = "120s"\nshutdownGracePeriodCriticalPods = "0s"\n'
                   + '\n[[pods]]\nname = "p"\nnodeName = "n-1"\nterminationGracePeriodSeconds = 100\n')
    sim.run_until(61)
    assert sim.apply(Operation("shutdown", node="n-1")).ok
    assert ready(sim, "n-1") == "False"
    assert "node.kubernetes.io/not-ready:NoSchedule" in taints(sim, "n-1")
    # Observed False at the 65 s pass: tainted in that pass.
    assert first_time(sim, lambda s: NOT_READY_NE in taints(s, "n-1")) == 65_000


def test_cordon_adds_the_unschedulable_taint_through_the_controller():
    sim = make_sim(nodes_toml("n-", 1))
    sim.run_until(10)
    result = sim.apply(Operation("cordon", node="n-1"))
    assert result.message == "node/n-1 cordoned"
    assert taints(sim, "n-1") == ["node.kubernetes.io/unschedulable:NoSchedule"]
    assert sim.apply(Operation("cordon", node="n-1")).message == "node/n-1 already cordoned"
    assert sim.apply(Operation("uncordon", node="n-1")).message == "node/n-1 uncordoned"
    assert taints(sim, "n-1") == []


def test_token_bucket_burst_one_and_swap_drains_when_exhausted():
    bucket = TokenBucket(0.1, 0)
    assert bucket.try_accept(0) and not bucket.try_accept(9_999) and bucket.try_accept(10_000)
    assert TokenBucket(0.0, 0).next_token_at(5) is None


def test_zone_state_rules():
    class Fake:
        def __init__(self, counts):
            self.zone_counts = {"z": counts}
            self.config = type("C", (), {"unhealthy_zone_threshold": 0.55})()

    compute = NodeLifecycleController.compute_zone_state
    assert compute(Fake([3, 0]), "z") == FULL
    assert compute(Fake([4, 1]), "z") == PARTIAL      # 3 not ready of 4
    assert compute(Fake([5, 3]), "z") == NORMAL       # only 2 not ready
    assert compute(Fake([10, 5]), "z") == NORMAL      # 50 % < 55 %
    assert compute(Fake([20, 9]), "z") == PARTIAL     # 55 %


def test_node_that_never_posted_status_gets_startup_grace_and_never_updated_reason():
    from playground.engine.objects import Node

    sim = make_sim(nodes_toml("n-", 2))
    sim.run_until(12)
    # A Node object whose kubelet never posts status (no kubelet behind it).
    ghost = Node("ghost", "uid-ghost", {"topology.kubernetes.io/zone": "zone-a"}, 1000, 2**30, 10, 1000, 2**30, 10,
                 creation_time=12_000, zone="zone-a")
    sim.store.add_node(ghost)
    sim.run_until(72)  # 12 s + 60 s startup grace: not yet past it
    assert ghost.conditions == {}
    sim.run_until(75)
    cond = ghost.conditions["Ready"]
    assert (cond.status, cond.reason, cond.message) == ("Unknown", "NodeStatusNeverUpdated",
                                                        "Kubelet never posted node status.")
    assert (cond.last_heartbeat_time, cond.last_transition_time) == (12_000, 75_000)
    assert set(ghost.conditions) == {"Ready", "MemoryPressure", "DiskPressure", "PIDPressure"}
    assert "node.kubernetes.io/unreachable:NoSchedule" in ghost.taint_strings()
    # Never Ready, so never "became NotReady": no NodeNotReady event. It was queued for tainting from
    # its first pass, but every attempt without a Ready condition is retried and spends the zone's
    # token (one per 10 s): the attempt at 75 s ran before the monitor pass set Ready, so the taint
    # lands with the next token.
    assert not events(sim, "NodeNotReady", "Node/ghost")
    sim.run_until(84.9)
    assert "node.kubernetes.io/unreachable:NoExecute" not in ghost.taint_strings()
    sim.run_until(85)
    assert "node.kubernetes.io/unreachable:NoExecute" in ghost.taint_strings()
