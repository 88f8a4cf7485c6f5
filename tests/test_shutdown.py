"""Graceful node shutdown: the kubelet's shutdown manager (reference §5, test cases C.1-C.2)."""

import textwrap

import pytest

from conftest import events, make_sim

from playground.engine import Operation
from playground.engine.kubelet import KubeletConfig
from playground.engine.nodeshutdown import (
    REJECT_MESSAGE,
    SHUTDOWN_MESSAGE,
    ShutdownGroup,
    group_index,
    migrate_config,
    shutdown_groups,
)
from playground.scenario import ScenarioError, parse_scenario

# ---------------------------------------------------------------- C.1 Test_migrateConfig


@pytest.mark.parametrize("total, critical, expected", [
    (300, 120, [ShutdownGroup(0, 180), ShutdownGroup(2_000_000_000, 120)]),  # G1
    (100, 0, [ShutdownGroup(0, 100), ShutdownGroup(2_000_000_000, 0)]),  # G2
    (0, 0, []),  # G3: graceful shutdown disabled
    (1, 100, []),  # G4: "wrong configuration"
])
def test_migrate_config(total, critical, expected):
    assert migrate_config(total * 1000, critical * 1000) == expected


# ---------------------------------------------------------------- C.2 Test_groupByPriority


def test_group_by_priority_migrated_config():  # G5
    groups = migrate_config(300_000, 120_000)
    pods = {"normal-pod": 0, "highest-user-definable-pod": 1_000_000_000, "critical-pod": 2_000_000_000}
    assigned = {name: groups[group_index(groups, prio)] for name, prio in pods.items()}
    assert assigned == {"normal-pod": ShutdownGroup(0, 180), "highest-user-definable-pod": ShutdownGroup(0, 180),
                        "critical-pod": ShutdownGroup(2_000_000_000, 120)}


def test_group_by_priority_custom_groups():  # G6
    config = KubeletConfig(shutdown_grace_period_by_pod_priority=[(3, 30), (1, 10), (4, 40), (2, 20)])
    groups = shutdown_groups(config)
    assert groups == [ShutdownGroup(1, 10), ShutdownGroup(2, 20), ShutdownGroup(3, 30), ShutdownGroup(4, 40)]
    assigned = {f"pod-{p}": groups[group_index(groups, p)].priority for p in range(6)}
    assert assigned == {"pod-0": 1, "pod-1": 1, "pod-2": 2, "pod-3": 3, "pod-4": 4, "pod-5": 4}


# ---------------------------------------------------------------- configuration errors


def _problems(text: str) -> list[str]:
    with pytest.raises(ScenarioError) as info:
        parse_scenario(textwrap.dedent(text), "bad.toml")
    return [p.format("bad.toml") for p in info.value.problems]


NODE = """
[scenario]
name = "x"

[kubelet]
shutdownGracePeriod = "10s"

[[nodes]]
name = "n-1"
capacity = { cpu = "1", memory = "1Gi" }
kubelet = { shutdownGracePeriodCriticalPods = "20s" }
"""


def test_critical_longer_than_total_across_levels_is_refused():
    # Each table alone is valid; the node's effective configuration is not.
    out = _problems(NODE)
    assert out == ["bad.toml:11: nodes[0].kubelet: shutdownGracePeriodCriticalPods (20s) must not exceed "
                   "shutdownGracePeriod (10s) once the cluster-wide [kubelet] settings are applied; the kubelet would "
                   "refuse this as a wrong configuration"]


def test_by_pod_priority_with_a_cluster_wide_total_is_refused():
    out = _problems(NODE.replace('kubelet = { shutdownGracePeriodCriticalPods = "20s" }',
                                 "kubelet = { shutdownGracePeriodByPodPriority = "
                                 "[{ priority = 0, shutdownGracePeriodSeconds = 5 }] }"))
    assert len(out) == 1 and "nodes[0].kubelet: shutdownGracePeriodByPodPriority cannot be combined" in out[0]


def test_critical_longer_than_total_in_one_table_is_refused():
    out = _problems(NODE.replace('kubelet = { shutdownGracePeriodCriticalPods = "20s" }', "")
                    .replace('shutdownGracePeriod = "10s"', 'shutdownGracePeriod = "10s"\n'
                                                            'shutdownGracePeriodCriticalPods = "11s"'))
    assert len(out) == 1 and "shutdownGracePeriodCriticalPods (11s) must not exceed shutdownGracePeriod (10s)" in out[0]


# ---------------------------------------------------------------- the shutdown sequence

MIGRATED = """
[kubelet]
shutdownGracePeriod = "30s"
shutdownGracePeriodCriticalPods = "10s"

[[nodes]]
name = "n-1"
capacity = { cpu = "4", memory = "8Gi" }

[[nodes]]
name = "n-2"
capacity = { cpu = "4", memory = "8Gi" }

[[pods]]
name = "web"
nodeName = "n-1"

[[pods]]
name = "fast"
nodeName = "n-1"
terminationGracePeriodSeconds = 5

[[pods]]
name = "agent"
nodeName = "n-1"
priorityClassName = "system-node-critical"
"""


def test_migrated_groups_shut_down_in_order_then_the_machine_powers_off():
    sim = make_sim(MIGRATED)
    sim.run_until(60)
    result = sim.apply(Operation("shutdown", node="n-1"))
    assert result.ok and result.message == "node n-1 is shutting down gracefully"
    node = sim.store.nodes["n-1"]
    ready = node.conditions["Ready"]
    assert (ready.status, ready.reason, ready.message) == ("False", "KubeletNotReady", "node is shutting down")
    assert [(e.time, e.message) for e in events(sim, "NodeShutdown", "Node/n-1")] == [
        (60_000, "Shutdown manager detected shutdown event")]
    # Group 0 (priority 0, 20 s): both pods at once, each with min(terminationGracePeriodSeconds, 20).
    assert [(e.time, e.object) for e in events(sim, "Killing")] == [(60_000, "Pod/default/fast"),
                                                                    (60_000, "Pod/default/web")]
    pods = sim.store.pods
    sim.run_until(64.999)
    assert pods["default/fast"].phase == "Running"  # the status waits for the containers to stop
    sim.run_until(65)
    fast = pods["default/fast"]
    assert (fast.phase, fast.reason, fast.message) == ("Failed", "Terminated", SHUTDOWN_MESSAGE)
    target = fast.conditions["DisruptionTarget"]
    assert (target.status, target.reason, target.message) == ("True", "TerminationByKubelet", SHUTDOWN_MESSAGE)
    assert fast.condition_status("Ready") == "False"
    assert pods["default/web"].phase == "Running" and pods["default/agent"].phase == "Running"
    sim.run_until(80)
    assert pods["default/web"].phase == "Failed"  # SIGKILL at the group's 20 s
    # The critical group (priority 2000000000, 10 s) starts when group 0 is done.
    assert [(e.time, e.object) for e in events(sim, "Killing")][-1] == (80_000, "Pod/default/agent")
    sim.run_until(89.999)
    assert sim.kubelets["n-1"].power == "on" and node.ready_status() == "False"
    sim.run_until(90)
    assert pods["default/agent"].phase == "Failed"
    assert sim.kubelets["n-1"].power == "off"
    assert sorted(pods) == ["default/agent", "default/fast", "default/web"]  # the kubelet deletes nothing
    # The lease stopped at its last renewal before the power-off (80 s): Unknown 55 s later.
    sim.run_until(134.999)
    assert node.ready_status() == "False"
    sim.run_until(135)
    ready = node.conditions["Ready"]
    assert (ready.status, ready.reason, ready.last_transition_time) == ("Unknown", "NodeStatusUnknown", 135_000)
    # Tainted not-ready:NoExecute while it posted Ready=False; swapped one monitor pass after Unknown.
    assert "node.kubernetes.io/not-ready:NoExecute" in node.taint_strings()
    sim.run_until(140)
    assert "node.kubernetes.io/unreachable:NoExecute" in node.taint_strings()
    assert "node.kubernetes.io/not-ready:NoExecute" not in node.taint_strings()


PRIORITY_TABLE = """
[kubelet]
shutdownGracePeriodByPodPriority = [
  { priority = 100000, shutdownGracePeriodSeconds = 10 },
  { priority = 10000, shutdownGracePeriodSeconds = 180 },
  { priority = 1000, shutdownGracePeriodSeconds = 120 },
  { priority = 0, shutdownGracePeriodSeconds = 60 },
]

[[priorityClasses]]
name = "custom-class-a"
value = 100000

[[priorityClasses]]
name = "custom-class-b"
value = 10000

[[priorityClasses]]
name = "custom-class-c"
value = 1000

[[nodes]]
name = "n-1"
capacity = { cpu = "4", memory = "8Gi" }

[[pods]]
name = "a"
nodeName = "n-1"
priorityClassName = "custom-class-a"
terminationGracePeriodSeconds = 600

[[pods]]
name = "b"
nodeName = "n-1"
priorityClassName = "custom-class-b"
terminationGracePeriodSeconds = 600
stopDuration = "30s"

[[pods]]
name = "c"
nodeName = "n-1"
priorityClassName = "custom-class-c"
terminationGracePeriodSeconds = 600

[[pods]]
name = "regular"
nodeName = "n-1"
terminationGracePeriodSeconds = 600
"""


def test_the_documentation_example_of_four_priority_classes():
    sim = make_sim(PRIORITY_TABLE)
    sim.run_until(60)
    sim.apply(Operation("shutdown", node="n-1"))
    sim.run_until(600)
    failed_at = {}
    for e in events(sim, "Killing"):
        failed_at.setdefault(e.object, e.time)
    # Ascending priority: regular 60 s, then c 120 s, then b (its app exits after 30 s of its 180 s),
    # then a 10 s.
    assert failed_at == {"Pod/default/regular": 60_000, "Pod/default/c": 120_000, "Pod/default/b": 240_000,
                         "Pod/default/a": 270_000}
    assert sim.kubelets["n-1"].power == "off"
    assert all(p.phase == "Failed" and p.reason == "Terminated" for p in sim.store.pods.values())


def test_a_group_waits_its_seconds_at_most_then_the_next_group_starts():
    text = PRIORITY_TABLE.replace('name = "regular"\nnodeName = "n-1"\nterminationGracePeriodSeconds = 600',
                                  'name = "regular"\nnodeName = "n-1"\nterminationGracePeriodSeconds = 20')
    sim = make_sim(text)
    sim.run_until(60)
    sim.apply(Operation("shutdown", node="n-1"))
    sim.run_until(80)
    # terminationGracePeriodSeconds 20 < the group's 60 s: the pod is done at 80 s and so is its group.
    assert sim.store.pods["default/regular"].phase == "Failed"
    assert [e.time for e in events(sim, "Killing", "Pod/default/c")] == [80_000]
    state = sim.kubelets["n-1"].shutdown
    assert (state.groups[state.index], state.group_ends_at) == (ShutdownGroup(1000, 120), 200_000)


def test_new_pods_are_rejected_while_the_node_shuts_down():
    sim = make_sim(PRIORITY_TABLE)
    sim.run_until(60)
    sim.apply(Operation("shutdown", node="n-1"))
    sim.run_until(70)
    sim.apply(Operation("create-pod", pod="late", pod_node_name="n-1"))
    late = sim.store.pods["default/late"]
    assert (late.phase, late.reason, late.message) == ("Failed", "NodeShutdown", "Pod was rejected: " + REJECT_MESSAGE)
    assert [(e.time, e.type, e.message) for e in events(sim, "NodeShutdown", "Pod/default/late")] == [
        (70_000, "Warning", REJECT_MESSAGE)]
    assert "default/late" not in sim.kubelets["n-1"].containers


def test_zero_settings_power_off_at_once():
    sim = make_sim("""
[[nodes]]
name = "n-1"
capacity = { cpu = "4", memory = "8Gi" }

[[pods]]
name = "p"
nodeName = "n-1"
""")
    sim.run_until(60)
    result = sim.apply(Operation("shutdown", node="n-1"))
    assert result.message == "node n-1 shut down immediately (graceful node shutdown is not configured)"
    assert sim.kubelets["n-1"].power == "off" and not sim.kubelets["n-1"].containers
    assert not events(sim, "NodeShutdown") and not events(sim, "Killing")
    assert sim.store.pods["default/p"].phase == "Running"  # nobody told the API server


def test_empty_groups_are_skipped_without_waiting():
    sim = make_sim(MIGRATED.replace('[[pods]]\nname = "web"\nnodeName = "n-1"\n\n', "")
                   .replace('[[pods]]\nname = "fast"\nnodeName = "n-1"\nterminationGracePeriodSeconds = 5\n\n', ""))
    sim.run_until(60)
    sim.apply(Operation("shutdown", node="n-1"))
    # No pod in the priority-0 group: the critical group starts at once.
    assert [(e.time, e.object) for e in events(sim, "Killing")] == [(60_000, "Pod/default/agent")]
    sim.run_until(70)
    assert sim.kubelets["n-1"].power == "off"


def test_replicaset_replaces_pods_failed_by_the_shutdown():
    sim = make_sim(MIGRATED + """
[[deployments]]
name = "api"
replicas = 2
template = { labels = { app = "api" }, nodeSelector = { "kubernetes.io/hostname" = "n-1" } }
""")
    sim.run_until(60)
    sim.apply(Operation("shutdown", node="n-1"))
    sim.run_until(80)
    api = [p for p in sim.store.pods.values() if p.labels.get("app") == "api"]
    failed = [p for p in api if p.phase == "Failed"]
    pending = [p for p in api if p.phase == "Pending"]
    assert len(failed) == 2 and len(pending) == 2  # replacements, unschedulable: n-1 is not ready
    assert all(p.node_name is None for p in pending)


def test_a_partitioned_node_stops_its_pods_but_cannot_report_it():
    sim = make_sim(MIGRATED)
    sim.run_until(55)
    sim.apply(Operation("partition", node="n-1"))
    sim.run_until(60)
    sim.apply(Operation("shutdown", node="n-1"))
    sim.run_until(100)
    assert sim.kubelets["n-1"].power == "off"
    assert all(p.phase == "Running" for p in sim.store.pods.values())
    assert not events(sim, "NodeShutdown")
    assert sim.store.nodes["n-1"].ready_status() == "True"  # still within the grace period


def test_stopping_the_kubelet_during_a_shutdown_releases_the_inhibitor_lock():
    sim = make_sim(MIGRATED)
    sim.run_until(60)
    sim.apply(Operation("shutdown", node="n-1"))
    sim.run_until(62)
    assert sim.apply(Operation("stop-kubelet", node="n-1")).ok
    assert sim.kubelets["n-1"].power == "off" and sim.kubelets["n-1"].shutdown is None
    assert sim.store.pods["default/web"].phase == "Running"  # killed by the OS, never reported
