"""DefaultPreemption: the worked examples of reference A.1-A.5 (TestDryRunPreemption,
TestSelectBestCandidate, TestPreempt, TestPodEligibleToPreemptOthers) through the engine API, then the
rules they do not cover: PDB-aware reprieve and node choice, the candidate count and random offset,
nominations, victims' grace periods, in-flight events, unresolvable nodes."""

from __future__ import annotations

import pytest
from conftest import BASE, events, make_sim

from playground.engine import Operation
from playground.engine.kubelet import Kubelet
from playground.engine.objects import TRUE, PodDisruptionBudget, PodTemplate, uid_text
from playground.engine.scheduler.preemption import (
    NOT_ELIGIBLE_NEVER,
    NOT_ELIGIBLE_TERMINATING,
    filter_pods_with_pdb_violation,
)
from playground.engine.scheduler.framework import UNSCHEDULABLE_AND_UNRESOLVABLE, Status
from playground.engine.workloads import pod_from_template

# A.0 fixtures: (cpu millicores, memory bytes)
SMALL, MEDIUM, LARGE, VERY_LARGE = (100, 100), (200, 200), (300, 300), (500, 500)
RES = {"small": SMALL, "medium": MEDIUM, "large": LARGE, "veryLarge": VERY_LARGE}


class AdmitsAll(Kubelet):
    """A kubelet without admission (its slots are Kubelet's: an instance can take this class)."""

    __slots__ = ()

    def admit(self, pod):
        return None


def fixture_cluster(nodes: list[str], pods: list[tuple], seed: int = 1, extra: str = ""):
    """Nodes of veryLarge capacity (500m / 500 bytes, 32 pods) and pods pinned to them:
    (name, node, priority, resource name[, start second]). A pod's start time is its creation time."""
    body = [f'[scenario]\nname = "a0"\nseed = {seed}\n']
    for node in nodes:
        body.append(f'[[nodes]]\nname = "{node}"\ncapacity = {{ cpu = "500m", memory = "500", pods = 32 }}\n')
    for name, node, priority, res, *start in pods:
        cpu, memory = RES[res]
        at = f'at = "{start[0]}s"\n' if start else ""
        body.append(f'[[pods]]\nname = "{name}"\nnodeName = "{node}"\npriority = {priority}\n{at}'
                    f'labels = {{ app = "{name.split(".")[0]}" }}\n'
                    f'requests = {{ cpu = "{cpu}m", memory = "{memory}" }}\n')
    sim = make_sim(extra, header="\n".join(body))
    for kubelet in sim.kubelets.values():
        # upstream's tables build NodeInfo directly (some overcommit a node): no kubelet admission
        kubelet.__class__ = AdmitsAll
    sim.run_until(10)
    return sim


def preemptor(sim, priority: int, res: str, name: str = "p", policy: str | None = None):
    cpu, memory = RES[res]
    pod = pod_from_template(sim, name, "default", PodTemplate(labels={"app": name}, cpu=cpu, memory=memory,
                                                              priority=priority), None)
    if policy is not None:
        pod.preemption_policy = policy
    return pod


def dry_run(sim, pod) -> dict[str, tuple[list[str], int]]:
    scheduler = sim.scheduler
    feasible, diagnosis = scheduler.find_nodes_that_fit(pod)
    assert not feasible
    candidates, _ = scheduler.preemption.find_candidates(pod, diagnosis)
    return {c.node: (sorted(v.name for v in c.victims), c.num_pdb_violations) for c in candidates}


def best_node(sim, pod) -> str:
    scheduler = sim.scheduler
    _, diagnosis = scheduler.find_nodes_that_fit(pod)
    candidates, _ = scheduler.preemption.find_candidates(pod, diagnosis)
    return scheduler.preemption.select_candidate(candidates).node


# ---------------------------------------------------------------- A.1 TestDryRunPreemption

def test_d1_a_pod_that_fits_on_both_nodes_when_lower_priority_pods_are_preempted():
    sim = fixture_cluster(["node1", "node2"], [("p1", "node1", 100, "large"), ("p2", "node2", 100, "large")])
    assert dry_run(sim, preemptor(sim, 1000, "large")) == {"node1": (["p1"], 0), "node2": (["p2"], 0)}


def test_d2_other_pods_are_higher_priority_no_preemption():
    sim = fixture_cluster(["node1", "node2"], [("p1", "node1", 100, "large"), ("p2", "node2", 100, "large")])
    assert dry_run(sim, preemptor(sim, 0, "large")) == {}


def test_d3_medium_priority_pod_is_preempted_but_small_lower_one_stays():
    sim = fixture_cluster(["node1", "node2"], [("p1.1", "node1", 0, "small"), ("p1.2", "node1", 100, "large"),
                                               ("p2", "node2", 100, "large")])
    assert dry_run(sim, preemptor(sim, 1000, "large")) == {"node1": (["p1.2"], 0), "node2": (["p2"], 0)}


def test_d4_mixed_priority_pods_are_preempted():
    sim = fixture_cluster(["node1", "node2"], [
        ("p1.1", "node1", 100, "small"), ("p1.2", "node1", 0, "small"), ("p1.3", "node1", 100, "medium"),
        ("p1.4", "node1", 1000, "small"), ("p2", "node2", 1000, "large")])
    assert dry_run(sim, preemptor(sim, 1000, "large")) == {"node1": (["p1.2", "p1.3"], 0)}


def test_d5_equal_priorities_pick_the_later_start_time():
    sim = fixture_cluster(["node1", "node2"], [
        ("p1.1", "node1", 0, "small", 5), ("p1.2", "node1", 0, "small", 4), ("p1.3", "node1", 100, "medium", 3),
        ("p1.4", "node1", 1000, "small", 2), ("p2", "node2", 1000, "large", 1)])
    assert dry_run(sim, preemptor(sim, 1000, "large")) == {"node1": (["p1.1", "p1.3"], 0)}


def test_filter_calls_on_a_node_copy_agree_with_the_arithmetic_fast_path():
    """SelectVictimsOnNode runs filters on a NodeInfo copy when more than resources could reject the
    pod (here: a PreferNoSchedule taint on every node); the victims are the same."""
    d4 = [("p1.1", "node1", 100, "small"), ("p1.2", "node1", 0, "small"), ("p1.3", "node1", 100, "medium"),
          ("p1.4", "node1", 1000, "small"), ("p2", "node2", 1000, "large")]
    d5 = [("p1.1", "node1", 0, "small", 5), ("p1.2", "node1", 0, "small", 4), ("p1.3", "node1", 100, "medium", 3),
          ("p1.4", "node1", 1000, "small", 2), ("p2", "node2", 1000, "large", 1)]
    for pods, expected in ((d4, {"node1": (["p1.2", "p1.3"], 0)}), (d5, {"node1": (["p1.1", "p1.3"], 0)})):
        sim = fixture_cluster(["node1", "node2"], pods)
        for node in ("node1", "node2"):
            sim.apply(Operation("taint", node=node, taint="soft=x:PreferNoSchedule"))
        pod = preemptor(sim, 1000, "large")
        assert not sim.scheduler.resources_only(pod, sim.store.nodes["node1"])
        assert dry_run(sim, pod) == expected


# ---------------------------------------------------------------- A.2 TestSelectBestCandidate

def test_s1_both_nodes_possible_and_the_choice_is_seeded():
    pods = [("p1", "node1", 100, "large"), ("p2", "node2", 100, "large")]

    def pick(seed: int) -> str:
        sim = fixture_cluster(["node1", "node2"], pods, seed=seed)
        return best_node(sim, preemptor(sim, 1000, "large"))

    picks = [pick(seed) for seed in range(12)]
    assert set(picks) == {"node1", "node2"}  # a fair tie: either node, by the seeded RNG
    assert [pick(seed) for seed in range(12)] == picks  # the same seed makes the same choice


def test_s2_node_with_min_highest_priority_pod_is_picked():
    sim = fixture_cluster(["node1", "node2", "node3"], [
        ("p1.1", "node1", 100, "medium"), ("p1.2", "node1", 100, "large"),
        ("p2.1", "node2", 100, "medium"), ("p2.2", "node2", 0, "medium"),
        ("p3.1", "node3", 0, "medium"), ("p3.2", "node3", 0, "medium")])
    assert best_node(sim, preemptor(sim, 1000, "veryLarge")) == "node3"


def test_s3_same_highest_priority_then_minimum_sum_of_priorities():
    sim = fixture_cluster(["node1", "node2", "node3"], [
        ("p1.1", "node1", 100, "medium"), ("p1.2", "node1", 100, "large"),
        ("p2.1", "node2", 100, "large"), ("p2.2", "node2", 0, "medium"),
        ("p3.1", "node3", 100, "medium"), ("p3.2", "node3", 100, "medium")])
    assert best_node(sim, preemptor(sim, 1000, "veryLarge")) == "node2"


def test_s4_same_highest_priority_and_sum_then_fewest_pods():
    sim = fixture_cluster(["node1", "node2", "node3"], [
        ("p1.1", "node1", 100, "small"), ("p1.2", "node1", -100, "small"), ("p1.3", "node1", 100, "small"),
        ("p1.4", "node1", -100, "small"),
        ("p2.1", "node2", 100, "large"), ("p2.2", "node2", -100, "medium"),
        ("p3.1", "node3", 100, "medium"), ("p3.2", "node3", -100, "small"), ("p3.3", "node3", 0, "small")])
    assert best_node(sim, preemptor(sim, 1000, "veryLarge")) == "node2"


def test_s5_sum_of_adjusted_priorities_is_considered():
    sim = fixture_cluster(["node1", "node2", "node3"], [
        ("p1.1", "node1", 100, "small"), ("p1.2", "node1", -100, "small"), ("p1.3", "node1", -100, "small"),
        ("p2.1", "node2", 100, "large"), ("p2.2", "node2", -100, "medium"),
        ("p3.1", "node3", 100, "medium"), ("p3.2", "node3", -100, "small"), ("p3.3", "node3", 0, "small")])
    assert best_node(sim, preemptor(sim, 1000, "veryLarge")) == "node2"


def test_latest_start_of_the_highest_priority_victims_breaks_a_tie():
    sim = fixture_cluster(["node1", "node2", "node3"], [
        ("p1", "node1", 100, "veryLarge", 1), ("p2", "node2", 100, "veryLarge", 3),
        ("p3", "node3", 100, "veryLarge", 2)])
    assert best_node(sim, preemptor(sim, 1000, "veryLarge")) == "node2"


# ---------------------------------------------------------------- A.3 TestPreempt (full flow)

P_PODS = [("p1.1", "node1", 0, "small"), ("p1.2", "node1", 0, "small"), ("p2.1", "node2", 1000, "large"),
          ("p3.1", "node3", 100, "medium")]


def create_preemptor(sim, name: str = "p", priority: int = 1000, cpu: str = "500m", memory: str = "500",
                     policy: str | None = None, **template):
    tmpl = PodTemplate(labels={"app": name}, cpu=int(cpu[:-1]) if cpu.endswith("m") else int(cpu) * 1000,
                       memory=int(memory), priority=priority, **template)
    result = sim.apply(Operation("create-pod", pod=name, template=tmpl))
    assert result.ok
    pod = sim.store.pods[f"default/{name}"]
    if policy is not None:
        pod.preemption_policy = policy
    return pod


@pytest.mark.parametrize("policy", ["PreemptLowerPriority", None], ids=["P1-basic", "P3-policy-unset"])
def test_p1_p3_preempt_nominates_node1_and_deletes_both_victims(policy):
    sim = fixture_cluster(["node1", "node2", "node3"], P_PODS)
    pod = create_preemptor(sim, policy=policy)
    sim.run_until(10)
    assert pod.nominated_node_name == "node1" and pod.node_name is None
    for name in ("p1.1", "p1.2"):
        victim = sim.store.pods[f"default/{name}"]
        cond = victim.conditions["DisruptionTarget"]
        assert (cond.status, cond.reason, cond.message) == (
            TRUE, "PreemptionByScheduler", "default-scheduler: preempting to accommodate a higher priority pod")
        assert victim.deletion_timestamp == 40_000  # deleted with its own 30 s grace period
        [event] = events(sim, "Preempted", victim.ref)
        assert event.message == f"Preempted by pod {uid_text(pod.uid)} on node node1" and event.time == 10_000
        assert event.type == "Normal" and event.source == "default-scheduler"
    assert [p.name for p in sim.store.pods.values() if p.deletion_timestamp is not None] == ["p1.1", "p1.2"]
    # Called again while the victims terminate: not eligible, nothing more is preempted.
    _, diagnosis = sim.scheduler.find_nodes_that_fit(pod)
    assert sim.scheduler.preemption.preempt(pod, diagnosis) == (None, NOT_ELIGIBLE_TERMINATING)
    sim.run_until(39.9)
    assert len(events(sim, "Preempted")) == 2 and pod.node_name is None
    sim.run_until(40)
    [scheduled] = events(sim, "Scheduled", pod.ref)
    assert scheduled.time == 40_000 and pod.node_name == "node1"


def test_p2_preemption_policy_never_preempts_nothing():
    sim = fixture_cluster(["node1", "node2", "node3"], P_PODS)
    pod = create_preemptor(sim, policy="Never")
    _, diagnosis = sim.scheduler.find_nodes_that_fit(pod)
    assert sim.scheduler.preemption.preempt(pod, diagnosis) == (None, NOT_ELIGIBLE_NEVER)
    sim.run_until(60)
    assert not events(sim, "Preempted") and pod.nominated_node_name == "" and pod.node_name is None
    assert all(p.deletion_timestamp is None for p in sim.store.pods.values())
    [failed] = events(sim, "FailedScheduling", pod.ref)
    assert failed.message == ("0/3 nodes are available: 3 Insufficient cpu, 3 Insufficient memory. "
                              "no new claims to deallocate, preemption: not eligible due to preemptionPolicy=Never..")


# ---------------------------------------------------------------- A.5 TestPodEligibleToPreemptOthers

def eligible(sim, pod, status=None) -> bool:
    return sim.scheduler.preemption.pod_eligible_to_preempt_others(pod, status)[0]


def terminating_p1(with_condition: bool):
    sim = fixture_cluster(["node1"], [("p1", "node1", 0, "small")])
    victim = sim.store.pods["default/p1"]
    if with_condition:
        sim.store.set_pod_condition(victim, "DisruptionTarget", TRUE, "PreemptionByScheduler", "x")
    sim.apiserver.delete_pod(victim)
    assert victim.deletion_timestamp is not None
    pod = preemptor(sim, 1000, "large")
    pod.nominated_node_name = "node1"
    return sim, pod


def test_e1_nominated_node_unschedulable_and_unresolvable_is_eligible():
    sim, pod = terminating_p1(with_condition=True)
    assert eligible(sim, pod, Status(UNSCHEDULABLE_AND_UNRESOLVABLE, ("node(s) had untolerated taint {a: b}",)))


def test_e2_pod_without_nominated_node_is_eligible():
    sim = fixture_cluster(["node1"], [])
    assert eligible(sim, preemptor(sim, 1000, "large"))


def test_e3_preempt_never_is_not_eligible():
    sim = fixture_cluster(["node1"], [])
    pod = preemptor(sim, 1000, "large", policy="Never")
    assert sim.scheduler.preemption.pod_eligible_to_preempt_others(pod, None) == (False, NOT_ELIGIBLE_NEVER)


def test_e4_victim_terminating_by_preemption_is_not_eligible():
    sim, pod = terminating_p1(with_condition=True)
    assert sim.scheduler.preemption.pod_eligible_to_preempt_others(pod, None) == (False, NOT_ELIGIBLE_TERMINATING)


def test_e5_non_victim_terminating_pod_does_not_block():
    sim, pod = terminating_p1(with_condition=False)
    assert eligible(sim, pod)


# ---------------------------------------------------------------- PodDisruptionBudgets

def pdb(name: str, app: str, allowed: int, disrupted: dict | None = None) -> PodDisruptionBudget:
    budget = PodDisruptionBudget(name, "default", {"app": app}, min_available=1)
    budget.disruptions_allowed = allowed
    budget.disrupted_pods = dict(disrupted or {})
    return budget


def test_filter_pods_with_pdb_violation_spends_the_budget_in_order():
    sim = fixture_cluster(["node1"], [("a.1", "node1", 0, "small"), ("a.2", "node1", 0, "small"),
                                      ("b.1", "node1", 0, "small")])
    pods = [sim.store.pods[f"default/{n}"] for n in ("a.1", "a.2", "b.1")]
    violating, ok = filter_pods_with_pdb_violation(pods, [pdb("a", "a", 1)])
    assert [p.name for p in violating] == ["a.2"] and [p.name for p in ok] == ["a.1", "b.1"]
    # A pod already in disruptedPods does not spend the budget; a PDB in another namespace matches nothing.
    violating, _ = filter_pods_with_pdb_violation(pods, [pdb("a", "a", 1, {"a.1": 0})])
    assert violating == []
    other = PodDisruptionBudget("a", "other", {"app": "a"}, min_available=1)
    assert filter_pods_with_pdb_violation(pods, [other])[0] == []
    pods[0].labels = {}
    violating, _ = filter_pods_with_pdb_violation(pods, [pdb("a", "a", 0)])
    assert [p.name for p in violating] == ["a.2"]  # a pod without labels matches no PDB


def test_pdb_violating_victims_are_reprieved_first():
    # Two equal pods; one is guarded by a PDB with no disruption allowed. The preemptor needs room for
    # one: the guarded pod is tried first and stays; the other goes.
    sim = fixture_cluster(["node1"], [("guarded", "node1", 0, "medium", 1), ("free", "node1", 0, "medium", 2),
                                      ("keep", "node1", 1000, "small")])
    sim.store.pdbs["default/g"] = pdb("g", "guarded", 0)
    assert dry_run(sim, preemptor(sim, 1000, "medium")) == {"node1": (["free"], 0)}
    # Without the PDB the more important (earlier) pod is reprieved first: the same victim here, but
    # when both must go the violation is counted.
    assert dry_run(sim, preemptor(sim, 1000, "large")) == {"node1": (["free", "guarded"], 1)}


def test_fewest_pdb_violations_beat_lower_victim_priority():
    sim = fixture_cluster(["node1", "node2"], [("web", "node1", 0, "veryLarge"), ("batch", "node2", 50, "veryLarge")])
    pod = preemptor(sim, 1000, "veryLarge")
    assert best_node(sim, pod) == "node1"  # without a PDB: the lower victim priority
    sim.store.pdbs["default/web"] = pdb("web", "web", 0)
    assert dry_run(sim, pod) == {"node2": (["batch"], 0), "node1": (["web"], 1)}
    assert best_node(sim, pod) == "node2"
    sim.store.pdbs["default/web"].disruptions_allowed = 1
    assert best_node(sim, pod) == "node1"


def test_pdb_scenario_reads_the_disruption_controllers_status():
    from pathlib import Path

    from playground.engine import Simulation
    from playground.scenario import load_scenario

    path = Path(__file__).resolve().parent.parent / "scenarios" / "preemption-pdb.toml"
    sim = Simulation(load_scenario(path))
    sim.run_until(59)
    web = sim.store.pdbs["default/web"]
    assert (web.current_healthy, web.desired_healthy, web.disruptions_allowed) == (1, 1, 0)
    sim.run_until(60)
    [victim] = [p for p in sim.store.pods.values() if p.deletion_timestamp is not None]
    assert victim.name == "batch"
    # The same cluster without the budget loses web instead.
    scenario = load_scenario(path)
    scenario.podDisruptionBudgets = []
    scenario.expect = []
    sim = Simulation(scenario)
    sim.run_until(60)
    [victim] = [p for p in sim.store.pods.values() if p.deletion_timestamp is not None]
    assert victim.labels["app"] == "web"


# ---------------------------------------------------------------- candidates

def test_calculate_num_candidates():
    sim = fixture_cluster(["node1"], [])
    calc = sim.scheduler.preemption.calculate_num_candidates
    assert [calc(n) for n in (1, 50, 100, 500, 999, 1000, 2000, 5000)] == [1, 50, 100, 100, 100, 100, 200, 500]
    sim.scheduler.config.min_candidate_nodes_absolute = 10
    sim.scheduler.config.min_candidate_nodes_percentage = 20
    assert [calc(n) for n in (5, 30, 100)] == [5, 10, 20]


def many_full_nodes(count: int, seed: int = 1):
    body = f"""
[[nodePools]]
namePrefix = "n-"
count = {count}
capacity = {{ cpu = "1", memory = "1Gi" }}

[[deployments]]
name = "low"
replicas = {count}
template = {{ labels = {{ app = "low" }}, requests = {{ cpu = "1", memory = "256Mi" }} }}
"""
    sim = make_sim(body, header=f'[scenario]\nname = "many"\nseed = {seed}\n')
    sim.run_until(5)
    assert all(p.node_name for p in sim.store.pods.values())
    return sim


def test_dry_run_stops_at_num_candidates_from_a_seeded_random_offset():
    sim = many_full_nodes(250)
    pod = preemptor(sim, 1000, "large")
    pod.cpu, pod.memory = 1000, 256
    _, diagnosis = sim.scheduler.find_nodes_that_fit(pod)
    candidates, statuses = sim.scheduler.preemption.find_candidates(pod, diagnosis)
    assert len(candidates) == 100 and statuses == {}  # max(10 % of 250, 100)
    order = [n.name for n in sim.scheduler.node_order()]
    start = order.index(candidates[0].node)
    assert [c.node for c in candidates] == [order[(start + i) % 250] for i in range(100)]
    other = many_full_nodes(250, seed=2)
    _, diagnosis = other.scheduler.find_nodes_that_fit(pod)
    assert other.scheduler.preemption.find_candidates(pod, diagnosis)[0][0].node != candidates[0].node


def test_unresolvable_nodes_are_never_candidates():
    sim = fixture_cluster(["node1", "node2", "node3", "node4"],
                          [("a", "node1", 0, "veryLarge"), ("b", "node2", 0, "veryLarge"),
                           ("c", "node3", 0, "veryLarge"), ("d", "node4", 0, "small")])
    sim.apply(Operation("taint", node="node1", taint="dedicated=x:NoSchedule"))
    sim.apply(Operation("cordon", node="node2"))
    sim.store.nodes["node3"].labels["disk"] = "hdd"
    pod = preemptor(sim, 1000, "large")
    pod.node_selector = {"disk": "hdd"}
    assert dry_run(sim, pod) == {"node3": (["c"], 0)}
    pod.node_selector = {}
    pod.cpu = 600  # more than any node's allocatable: UnschedulableAndUnresolvable everywhere
    _, diagnosis = sim.scheduler.find_nodes_that_fit(pod)
    nominate, message = sim.scheduler.preemption.preempt(pod, diagnosis)
    assert nominate == "" and message == ("0/4 nodes are available: 4 Preemption is not helpful for scheduling.")


def test_nodes_where_the_pod_still_does_not_fit_report_their_reason():
    sim = fixture_cluster(["node1", "node2"], [("a", "node1", 0, "small"), ("b", "node1", 1000, "veryLarge"),
                                               ("c", "node2", 1000, "veryLarge")])
    pod = preemptor(sim, 1000, "large")
    _, diagnosis = sim.scheduler.find_nodes_that_fit(pod)
    assert sim.scheduler.preemption.preempt(pod, diagnosis) == (
        "", "0/2 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, "
            "1 No preemption victims found for incoming pod.")


# ---------------------------------------------------------------- nominations and the flow

NOMINATION = """
[[nodes]]
name = "n-1"
capacity = { cpu = "2", memory = "4Gi" }

[[pods]]
name = "victim"
nodeName = "n-1"
priority = 0
terminationGracePeriodSeconds = 60
requests = { cpu = "2", memory = "1Gi" }
"""


def test_lower_priority_nominations_on_the_chosen_node_are_cleared():
    sim = make_sim(NOMINATION)
    sim.run_until(10)
    low = create_preemptor(sim, "low", priority=10, cpu="2")
    sim.run_until(10)
    assert low.nominated_node_name == "n-1" and len(events(sim, "Preempted")) == 1
    sim.run_until(11)
    high = create_preemptor(sim, "high", priority=100, cpu="2")
    sim.run_until(11)
    # The lower nomination is ignored when filtering `high`; the victim is already terminating, so no
    # new Preempted event, and `low` loses its nomination.
    assert high.nominated_node_name == "n-1" and low.nominated_node_name == ""
    assert len(events(sim, "Preempted")) == 1
    assert sim.scheduler.nominated_pods("n-1") == [high]
    sim.run_until(70)
    assert high.node_name == "n-1" and events(sim, "Scheduled", high.ref)[0].time == 70_000
    assert low.node_name is None


def test_nominated_pods_of_equal_or_higher_priority_hold_their_room():
    sim = make_sim(NOMINATION.replace('cpu = "2", memory = "4Gi"', 'cpu = "4", memory = "4Gi"', 1))
    sim.run_until(10)
    sim.scheduler.config.attempts_per_tick = 0  # keep the next pods pending
    held = create_preemptor(sim, "held", priority=100, cpu="2")
    sim.store.set_nominated_node(held, "n-1")
    node = sim.store.nodes["n-1"]
    lower = preemptor(sim, 50, "small")
    lower.cpu = 1000
    assert sim.scheduler.run_filters(lower, node).reasons == ("Insufficient cpu",)
    equal = preemptor(sim, 100, "small")
    equal.cpu = 1000
    assert sim.scheduler.run_filters(equal, node).reasons == ("Insufficient cpu",)
    higher = preemptor(sim, 200, "small")
    higher.cpu = 1000
    assert sim.scheduler.run_filters(higher, node).ok
    assert sim.scheduler.run_filters(held, node).ok  # its own nomination does not count against it


def test_nomination_is_cleared_when_preemption_finds_no_candidate():
    sim = make_sim(NOMINATION)
    sim.run_until(10)
    pod = create_preemptor(sim, "p", priority=100, cpu="2")
    sim.run_until(10)
    assert pod.nominated_node_name == "n-1"
    sim.apply(Operation("taint", node="n-1", taint="dedicated=x:NoSchedule"))
    sim.run_until(70)  # the victim is gone: retried; n-1 is now tainted, nothing else can help
    assert pod.nominated_node_name == "" and pod.node_name is None
    last = events(sim, "FailedScheduling", pod.ref)[-1]
    assert last.time == 70_000 and last.message == (
        "0/1 nodes are available: 1 node(s) had untolerated taint(s). "
        "no new claims to deallocate, preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling..")


def test_victim_deleted_at_once_reaches_the_preemptor_as_an_in_flight_event():
    # synchronous preemption (up to 1.32): the victim goes inside the preemptor's cycle
    sim = make_sim(NOMINATION.replace("terminationGracePeriodSeconds = 60", "terminationGracePeriodSeconds = 0"),
                   header=BASE + 'kubernetesVersion = "1.32"\n')
    sim.run_until(10)
    pod = create_preemptor(sim, "p", priority=100, cpu="2")
    sim.run_until(10)
    assert "default/victim" not in sim.store.pods and pod.nominated_node_name == "n-1"
    assert sim.scheduler.queue_state(pod) == ("backoff", 11_000)  # not parked: the deletion may help
    sim.run_until(11)
    assert events(sim, "Scheduled", pod.ref)[0].time == 11_000 and pod.node_name == "n-1"


def test_equal_or_higher_priority_pods_are_never_preempted():
    sim = fixture_cluster(["node1", "node2"], [("same", "node1", 1000, "veryLarge"),
                                               ("higher", "node2", 2000, "veryLarge")])
    pod = create_preemptor(sim)
    sim.run_until(120)
    assert not events(sim, "Preempted") and pod.node_name is None and pod.nominated_node_name == ""
    assert events(sim, "FailedScheduling", pod.ref)[0].message.endswith(
        "preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod..")


def test_system_node_critical_pods_preempt_user_pods():
    body = NOMINATION + """
[[pods]]
name = "agent"
at = "5s"
priorityClassName = "system-node-critical"
requests = { cpu = "1" }
"""
    sim = make_sim(body)
    sim.run_until(5)
    agent = sim.store.pods["default/agent"]
    assert agent.priority == 2_000_001_000 and agent.nominated_node_name == "n-1"
    sim.run_until(65)
    assert agent.node_name == "n-1"


@pytest.mark.parametrize("scenario", ["spread-zone-outage.toml", "preemption-full-cluster.toml", "node-failure.toml"])
def test_no_lower_priority_pod_anywhere_gives_the_dry_runs_message_and_draw(scenario, monkeypatch):
    """When no running pod has a lower priority than the preemptor, preemption answers without a dry
    run: the same FailedScheduling messages, nominations and generator state as the dry run over
    every node (forced here by pretending a lower-priority pod runs)."""
    from pathlib import Path

    from playground.engine import Simulation
    from playground.engine.scheduler.podcounts import PodCounts
    from playground.scenario import load_scenario

    path = Path(__file__).resolve().parent.parent / "scenarios" / scenario

    def run():
        sim = Simulation(load_scenario(path))
        sim.run_until(600)
        failed = [(e.time, e.object, e.message) for e in sim.store.recorder.events if e.reason == "FailedScheduling"]
        nominated = sorted((p.key, p.nominated_node_name) for p in sim.store.pods.values())
        return failed, nominated, sim.rng.getstate()

    quick = run()
    monkeypatch.setattr(PodCounts, "lowest_priority", lambda self: -(2**62))
    assert quick == run()
    assert any("No preemption victims found" in message for _t, _o, message in quick[0]) \
        or scenario != "spread-zone-outage.toml"
