"""`[scenario] kubernetesVersion` and the one table of what changes by release (engine/releases.py):
the node-monitor-grace-period default, TaintToleration's reason, DynamicResources' PostFilter line,
and the release in `sim --json`."""

import json

import pytest

from conftest import BASE, events, make_sim, nodes_toml

from playground.cli import main
from playground.engine import Operation
from playground.engine.releases import DEFAULT, SUPPORTED, release
from playground.engine.report import snapshot


def versioned(version: str) -> str:
    return BASE + f'kubernetesVersion = "{version}"\n'


def test_the_default_release_is_1_35():
    sim = make_sim(nodes_toml("n-", 1))
    assert DEFAULT == "1.35" and sim.release.version == "1.35"
    assert snapshot(sim)["kubernetesVersion"] == "1.35"
    assert SUPPORTED == ("1.31", "1.32", "1.33", "1.34", "1.35")


@pytest.mark.parametrize("version, grace", [("1.31", 40_000), ("1.32", 50_000), ("1.35", 50_000)])
def test_node_monitor_grace_period_default_by_release(version, grace):
    sim = make_sim(nodes_toml("n-", 1), header=versioned(version))
    assert sim.nodelifecycle.config.node_monitor_grace_period == grace


def test_a_flag_in_the_file_wins_over_the_release_default():
    sim = make_sim(nodes_toml("n-", 1) + '\n[controllerManager]\nnode-monitor-grace-period = "50s"\n',
                   header=versioned("1.31"))
    assert sim.nodelifecycle.config.node_monitor_grace_period == 50_000


@pytest.mark.parametrize("version, unknown_at", [("1.31", 75_000), ("1.35", 85_000)])
def test_a_powered_off_node_turns_unknown_after_the_release_grace(version, unknown_at):
    # last renewal at 30 s, seen on the 30 s pass; Unknown on the first 5 s pass after 30 s + grace
    sim = make_sim(nodes_toml("n-", 2), header=versioned(version))
    sim.run_until(35)
    sim.apply(Operation("power-off", node="n-1"))
    sim.run_until(200)
    [event] = [e for e in events(sim, "NodeNotReady") if e.object == "Node/n-1"]
    assert event.time == unknown_at
    assert sim.store.nodes["n-1"].conditions["Ready"].last_transition_time == unknown_at


TAINTED = """
[[nodes]]
name = "a"
capacity = { cpu = "4", memory = "8Gi" }
taints = ["dedicated=db:NoSchedule"]

[[nodes]]
name = "b"
capacity = { cpu = "4", memory = "8Gi" }
taints = ["gpu=yes:NoExecute"]

[[nodes]]
name = "c"
capacity = { cpu = "1", memory = "8Gi" }

[[pods]]
name = "p"
requests = { cpu = "2" }
"""


@pytest.mark.parametrize("version, expected", [
    ("1.31", "0/3 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint {dedicated: db}, "
             "1 node(s) had untolerated taint {gpu: yes}. preemption: 0/3 nodes are available: "
             "3 Preemption is not helpful for scheduling.."),
    ("1.33", "0/3 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint {dedicated: db}, "
             "1 node(s) had untolerated taint {gpu: yes}. preemption: 0/3 nodes are available: "
             "3 Preemption is not helpful for scheduling.."),
    ("1.34", "0/3 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint {dedicated: db}, "
             "1 node(s) had untolerated taint {gpu: yes}. no new claims to deallocate, preemption: 0/3 nodes are "
             "available: 3 Preemption is not helpful for scheduling.."),
    # from 1.35 the taint is not named: both tainted nodes count under one reason
    ("1.35", "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint(s). "
             "no new claims to deallocate, preemption: 0/3 nodes are available: "
             "3 Preemption is not helpful for scheduling.."),
])
def test_failed_scheduling_words_by_release(version, expected):
    sim = make_sim(TAINTED, header=versioned(version))
    sim.run_until(0)
    pod = sim.store.pods["default/p"]
    [event] = events(sim, "FailedScheduling", pod.ref)
    assert event.message == expected
    assert pod.conditions["PodScheduled"].message == expected


PREEMPTION = """
[[nodes]]
name = "n-1"
capacity = { cpu = "2", memory = "4Gi" }

[[pods]]
name = "victim"
nodeName = "n-1"
priority = 0
terminationGracePeriodSeconds = 0
requests = { cpu = "2" }

[[pods]]
name = "p"
priority = 100
requests = { cpu = "2" }
"""


def test_a_successful_preemption_has_no_post_filter_message():
    sim = make_sim(PREEMPTION, header=versioned("1.35"))
    sim.run_until(0)
    [event] = events(sim, "FailedScheduling", "Pod/default/p")
    assert event.message == "0/1 nodes are available: 1 Insufficient cpu."


def test_release_rows():
    assert [release(v).dra_post_filter for v in SUPPORTED] == [False, False, False, True, True]
    assert [release(v).taint_reason_shows_taint for v in SUPPORTED] == [True, True, True, True, False]
    assert [release(v).pop_from_backoff_q for v in SUPPORTED] == [False, False, True, True, True]
    with pytest.raises(ValueError):
        release("1.30")


def test_sim_json_names_the_release(tmp_path, capsys):
    path = tmp_path / "s.toml"
    path.write_text('[scenario]\nname = "s"\nkubernetesVersion = "v1.32"\n' + nodes_toml("n-", 1))
    assert main(["sim", str(path), "--until", "1s", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["kubernetesVersion"] == "1.32"




@pytest.mark.parametrize("version, order, bound_at", [
    # up to 1.32 the victims are deleted inside the preemptor's cycle, before its FailedScheduling;
    # the deletion, seen while the pod was being scheduled, sends it through its 1 s backoff
    ("1.32", ["Preempted Pod/default/victim", "FailedScheduling Pod/default/p"], 1000),
    # from 1.33 (SchedulerAsyncPreemption) prepareCandidateAsync deletes them after the cycle has
    # written the preemptor's failure; the deletion then moves the parked pod to backoffQ, which
    # is popped at once while activeQ is empty (SchedulerPopFromBackoffQ)
    ("1.33", ["FailedScheduling Pod/default/p", "Preempted Pod/default/victim"], 0),
    ("1.35", ["FailedScheduling Pod/default/p", "Preempted Pod/default/victim"], 0),
])
def test_async_preemption_writes_the_preemptors_failure_before_the_victims_go(version, order, bound_at):
    sim = make_sim(PREEMPTION, header=versioned(version))
    sim.run_until(0)
    at_zero = [f"{e.reason} {e.object}" for t, e in sim.occurrences
               if t == 0 and e.reason in ("Preempted", "FailedScheduling")]
    assert at_zero == order
    pod = sim.store.pods["default/p"]
    assert "default/victim" not in sim.store.pods  # deleted at 0 s in both (no grace period)
    if bound_at:
        assert pod.nominated_node_name == "n-1" and not pod.node_name
    sim.run_until(2)
    [scheduled] = events(sim, "Scheduled", pod.ref)
    assert scheduled.time == bound_at and pod.node_name == "n-1"


def test_async_preemption_clears_lower_priority_nominations_on_the_node():
    body = """
[[nodes]]
name = "n-1"
capacity = { cpu = "2", memory = "4Gi" }

[[pods]]
name = "victim"
nodeName = "n-1"
priority = 0
terminationGracePeriodSeconds = 30
requests = { cpu = "2" }

[[pods]]
name = "mid"
priority = 50
requests = { cpu = "2" }

[[pods]]
name = "top"
at = "5s"
priority = 100
requests = { cpu = "2" }
"""
    for version in ("1.32", "1.35"):
        sim = make_sim(body, header=versioned(version))
        sim.run_until(0)
        mid = sim.store.pods["default/mid"]
        assert mid.nominated_node_name == "n-1"  # preempted the victim, waits for its 30 s grace
        sim.run_until(5)
        top = sim.store.pods["default/top"]
        # top preempts nothing new (the victim is already going) but is nominated to n-1: mid's
        # lower-priority nomination is cleared, by the goroutine from 1.33
        assert top.nominated_node_name == "n-1" and mid.nominated_node_name in ("", None), version
