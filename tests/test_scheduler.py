"""kube-scheduler's filters, scores, node sampling, host selection and explanations."""

from __future__ import annotations

import pytest
from conftest import BASE, events, make_sim, nodes_toml

from playground.engine import Operation
from playground.engine.objects import NodeSelectorRequirement, NodeSelectorTerm, PodTemplate, Taint, Toleration
from playground.engine.scheduler import fit_error_message, num_feasible_nodes_to_find
from playground.engine.scheduler.framework import UNSCHEDULABLE, UNSCHEDULABLE_AND_UNRESOLVABLE, Status
from playground.engine.scheduler.plugins import (
    NODE_AFFINITY,
    NODE_NAME,
    NODE_RESOURCES_FIT,
    NODE_UNSCHEDULABLE,
    TAINT_TOLERATION,
)
from playground.engine.workloads import pod_from_template
from playground.scenario import ScenarioError, parse_scenario

MI = 1024**2
GI = 1024**3


def pod_of(sim, name="p", **fields):
    template = PodTemplate(labels={"app": name}, **{k: v for k, v in fields.items()
                                                     if k in PodTemplate.__dataclass_fields__})
    pod = pod_from_template(sim, name, "default", template, None)
    for key, value in fields.items():
        if key not in PodTemplate.__dataclass_fields__:
            setattr(pod, key, value)
    return pod


def one_node(capacity: str = 'cpu = "4", memory = "8Gi"', extra: str = ""):
    sim = make_sim(f'[[nodes]]\nname = "n-1"\ncapacity = {{ {capacity} }}\n{extra}\n')
    return sim, sim.store.nodes["n-1"]


# ---------------------------------------------------------------- filters

def test_node_unschedulable_filter_and_its_toleration():
    sim, node = one_node(extra="unschedulable = true")
    pod = pod_of(sim)
    status = NODE_UNSCHEDULABLE.filter(pod, node)
    assert (status.code, status.reasons) == (UNSCHEDULABLE_AND_UNRESOLVABLE, ("node(s) were unschedulable",))
    pod.tolerations = (Toleration("node.kubernetes.io/unschedulable", "Exists", "", "NoSchedule"),)
    assert NODE_UNSCHEDULABLE.filter(pod, node).ok


def test_node_name_filter():
    sim, node = one_node()
    assert NODE_NAME.filter(pod_of(sim, node_name="n-1"), node).ok
    status = NODE_NAME.filter(pod_of(sim, node_name="n-2"), node)
    assert (status.code, status.reasons) == (UNSCHEDULABLE_AND_UNRESOLVABLE,
                                             ("node(s) didn't match the requested node name",))


def test_taint_toleration_filters_noschedule_and_noexecute_not_prefernoschedule():
    sim, node = one_node()
    pod = pod_of(sim)
    node.taints = [Taint("soft", "PreferNoSchedule", "x")]
    assert TAINT_TOLERATION.filter(pod, node).ok
    for effect in ("NoSchedule", "NoExecute"):
        node.taints = [Taint("soft", "PreferNoSchedule", "x"), Taint("dedicated", effect, "db")]
        status = TAINT_TOLERATION.filter(pod, node)
        assert (status.code, status.reasons) == (UNSCHEDULABLE_AND_UNRESOLVABLE,
                                                 ("node(s) had untolerated taint {dedicated: db}",))
        pod.tolerations = (Toleration("dedicated", "Equal", "db", effect),)
        assert TAINT_TOLERATION.filter(pod, node).ok
        pod.tolerations = ()
    node.taints = [Taint("node.kubernetes.io/unreachable", "NoSchedule")]
    assert TAINT_TOLERATION.filter(pod, node).reasons == ("node(s) had untolerated taint {node.kubernetes.io/unreachable: }",)


def requirement(key, op, *values):
    return NodeSelectorTerm((NodeSelectorRequirement(key, op, values),))


@pytest.mark.parametrize("term,matches", [
    (requirement("zone", "In", "a", "b"), True),
    (requirement("zone", "In", "c"), False),
    (requirement("zone", "NotIn", "c"), True),
    (requirement("zone", "NotIn", "a"), False),
    (requirement("missing", "NotIn", "a"), True),
    (requirement("zone", "Exists"), True),
    (requirement("missing", "Exists"), False),
    (requirement("missing", "DoesNotExist"), True),
    (requirement("zone", "DoesNotExist"), False),
    (requirement("gen", "Gt", "2"), True),
    (requirement("gen", "Gt", "3"), False),
    (requirement("gen", "Lt", "4"), True),
    (requirement("gen", "Lt", "3"), False),
    (requirement("zone", "Gt", "1"), False),  # not an integer label
    (NodeSelectorTerm(), False),  # a term without requirements matches nothing
    (NodeSelectorTerm(match_fields=(NodeSelectorRequirement("metadata.name", "In", ("n-1",)),)), True),
    (NodeSelectorTerm(match_fields=(NodeSelectorRequirement("metadata.name", "NotIn", ("n-1",)),)), False),
])
def test_node_affinity_operators(term, matches):
    sim, node = one_node()
    node.labels.update({"zone": "a", "gen": "3"})
    pod = pod_of(sim, required_node_affinity=(term,))
    status = NODE_AFFINITY.filter(pod, node)
    assert status.ok is matches
    if not matches:
        assert (status.code, status.reasons) == (UNSCHEDULABLE_AND_UNRESOLVABLE,
                                                 ("node(s) didn't match Pod's node affinity/selector",))


def test_required_terms_are_ored_and_node_selector_is_anded():
    sim, node = one_node()
    node.labels.update({"zone": "a"})
    pod = pod_of(sim, required_node_affinity=(requirement("zone", "In", "b"), requirement("zone", "In", "a")))
    assert NODE_AFFINITY.filter(pod, node).ok
    pod.node_selector = {"disk": "ssd"}
    assert not NODE_AFFINITY.filter(pod, node).ok
    node.labels["disk"] = "ssd"
    assert NODE_AFFINITY.filter(pod, node).ok


def test_node_resources_fit_statuses():
    sim, node = one_node('cpu = "2", memory = "2Gi", pods = 2')
    small = pod_of(sim, cpu=500, memory=GI)
    assert NODE_RESOURCES_FIT.filter(small, node).ok
    node.requested_cpu, node.requested_memory, node.pod_count = 1800, 1536 * MI, 2
    status = NODE_RESOURCES_FIT.filter(small, node)
    assert status.code == UNSCHEDULABLE
    assert status.reasons == ("Too many pods", "Insufficient cpu", "Insufficient memory")
    # A request beyond the node's whole allocatable cannot be helped by preemption (kubernetes#131345).
    huge = pod_of(sim, cpu=3000)
    node.requested_cpu, node.requested_memory, node.pod_count = 0, 0, 0
    status = NODE_RESOURCES_FIT.filter(huge, node)
    assert (status.code, status.reasons) == (UNSCHEDULABLE_AND_UNRESOLVABLE, ("Insufficient cpu",))
    # A pod requesting nothing is only limited by the pod count.
    node.requested_cpu, node.requested_memory = 2000, 2 * GI
    assert NODE_RESOURCES_FIT.filter(pod_of(sim), node).ok


def test_filters_run_in_order_and_the_first_rejection_decides():
    sim, node = one_node('cpu = "1", memory = "1Gi"', extra='unschedulable = true\ntaints = ["a=b:NoSchedule"]')
    pod = pod_of(sim, cpu=2000, node_selector={"x": "y"})
    assert sim.scheduler.run_filters(pod, node).plugin == "NodeUnschedulable"
    node.unschedulable = False
    assert sim.scheduler.run_filters(pod, node).plugin == "TaintToleration"
    node.taints = []
    assert sim.scheduler.run_filters(pod, node).plugin == "NodeAffinity"
    pod.node_selector = {}
    assert sim.scheduler.run_filters(pod, node).plugin == "NodeResourcesFit"


# ---------------------------------------------------------------- scores

def scores(sim, pod, names):
    nodes = [sim.store.nodes[n] for n in names]
    return sim.scheduler.score_by_plugin(pod, nodes), sim.scheduler.score(pod, nodes)


def test_least_allocated_uses_non_zero_requests_and_balanced_allocation_real_ones():
    sim = make_sim(nodes_toml("n-", 1, cpu="4", memory="8Gi"))
    node = sim.store.nodes["n-1"]
    best_effort = pod_of(sim)
    by_plugin, total = scores(sim, best_effort, ["n-1"])
    # (4000-100)*100//4000 = 97 and (8Gi-200Mi)*100//8Gi = 97; BalancedAllocation skips best-effort pods.
    assert by_plugin["NodeResourcesFit"] == [97]
    assert by_plugin["NodeResourcesBalancedAllocation"] == [0]
    assert by_plugin["TaintToleration"] == [300] and by_plugin["NodeAffinity"] == [0]
    assert total == [300 + 97]
    pod = pod_of(sim, cpu=1000, memory=GI)
    node.requested_cpu, node.nonzero_cpu = 1000, 1000
    by_plugin, total = scores(sim, pod, ["n-1"])
    # cpu (4000-2000)*100//4000 = 50, memory (8Gi-1Gi-200Mi... no: nonzero memory 0 + 1Gi) = 87 -> 68.
    assert by_plugin["NodeResourcesFit"] == [(50 + (8 * GI - GI) * 100 // (8 * GI)) // 2]
    # fractions 0.5 and 0.125: std 0.1875 -> int(81.25) = 81.
    assert by_plugin["NodeResourcesBalancedAllocation"] == [81]
    assert total == [300 + 68 + 81]


def test_prefer_no_schedule_taint_scores_in_reverse_with_weight_3():
    sim = make_sim(nodes_toml("n-", 3))
    sim.apply(Operation("taint", node="n-2", taint="soft=x:PreferNoSchedule"))
    sim.store.update_taints(sim.store.nodes["n-3"], [Taint("soft", "PreferNoSchedule", "x"),
                                                      Taint("soft2", "PreferNoSchedule", "y")])
    pod = pod_of(sim, cpu=100)
    by_plugin, total = scores(sim, pod, ["n-1", "n-2", "n-3"])
    assert by_plugin["TaintToleration"] == [300, 150, 0]
    pod.tolerations = (Toleration("soft", "Exists", "", "PreferNoSchedule"),)
    assert scores(sim, pod, ["n-1", "n-2", "n-3"])[0]["TaintToleration"] == [300, 300, 0]
    pod.tolerations = ()
    sim.run_until(1)
    created = sim.apply(Operation("create-pod", pod="q", template=PodTemplate(labels={}, cpu=100)))
    sim.run_until(2)
    assert created.ok and sim.store.pods["default/q"].node_name == "n-1"


def test_preferred_node_affinity_is_normalized_with_weight_2():
    sim = make_sim(nodes_toml("n-", 3))
    sim.store.nodes["n-1"].labels["disk"] = "ssd"
    sim.store.nodes["n-2"].labels["disk"] = "hdd"
    from playground.engine.objects import PreferredSchedulingTerm

    pod = pod_of(sim, cpu=100, preferred_node_affinity=(
        PreferredSchedulingTerm(80, requirement("disk", "In", "ssd")),
        PreferredSchedulingTerm(20, requirement("disk", "Exists"))))
    by_plugin, _ = scores(sim, pod, ["n-1", "n-2", "n-3"])
    assert by_plugin["NodeAffinity"] == [200, 2 * (100 * 20 // 100), 0]


def test_scheduling_uses_the_default_weights_end_to_end():
    body = nodes_toml("n-", 2, cpu="8", memory="16Gi") + """
[[pods]]
name = "busy"
nodeName = "n-2"
requests = { cpu = "4", memory = "1Gi" }

[[pods]]
name = "prefers-n-2"
at = "5s"
requests = { cpu = "100m", memory = "100Mi" }
affinity = { nodeAffinity = { preferredDuringSchedulingIgnoredDuringExecution = [{ weight = 1, preference = { matchExpressions = [{ key = "kubernetes.io/hostname", operator = "In", values = ["n-2"] }] } }] } }
"""
    sim = make_sim(body)
    sim.run_until(5)
    # NodeAffinity 2 x 100 outweighs the less allocated n-1 (LeastAllocated and Balanced, weight 1 each).
    assert sim.store.pods["default/prefers-n-2"].node_name == "n-2"


# ---------------------------------------------------------------- sampling and host selection

def test_num_feasible_nodes_to_find_adaptive_percentage():
    assert num_feasible_nodes_to_find(50, 0) == 50
    assert num_feasible_nodes_to_find(99, 10) == 99
    assert num_feasible_nodes_to_find(100, 0) == 100  # 50 % of 100 is 50, at least 100
    assert num_feasible_nodes_to_find(1000, 0) == 420  # 50 - 1000/125 = 42 %
    assert num_feasible_nodes_to_find(5000, 0) == 500  # 10 %
    assert num_feasible_nodes_to_find(6000, 0) == 300  # 50 - 48 = 2 % -> at least 5 %
    assert num_feasible_nodes_to_find(1000, 30) == 300
    assert num_feasible_nodes_to_find(150, 10) == 100
    assert num_feasible_nodes_to_find(1000, 100) == 1000


def test_filtering_stops_at_the_feasible_count_and_resumes_round_robin():
    body = nodes_toml("a-", 100) + nodes_toml("b-", 100, zone="zone-b") + "\n[scheduler]\npercentageOfNodesToScore = 30\n"
    sim = make_sim(body)
    order = [n.name for n in sim.scheduler.node_order()]
    assert order[:4] == ["a-1", "b-1", "a-2", "b-2"]  # zones interleaved, as the node tree lists them
    pod = pod_of(sim, cpu=100)
    first, _ = sim.scheduler.find_nodes_that_fit(pod)
    assert [n.name for n in first] == order[:100] and sim.scheduler.next_start == 100
    second, _ = sim.scheduler.find_nodes_that_fit(pod)
    assert [n.name for n in second] == order[100:200] and sim.scheduler.next_start == 0
    sim.apply(Operation("cordon", node=order[0]))
    third, diagnosis = sim.scheduler.find_nodes_that_fit(pod)
    assert [n.name for n in third] == order[1:101] and list(diagnosis.statuses) == [order[0]]
    assert sim.scheduler.next_start == 101  # processed = feasible + rejected


def test_equal_scores_are_broken_by_the_seeded_rng():
    def placement(seed: int) -> str:
        sim = make_sim(nodes_toml("n-", 5), header=f'[scenario]\nname = "t"\nseed = {seed}\n')
        sim.apply(Operation("create-pod", pod="p", template=PodTemplate(labels={}, cpu=100)))
        sim.run_until(0)
        return sim.store.pods["default/p"].node_name

    picks = [placement(seed) for seed in range(10)]
    assert len(set(picks)) > 2
    assert [placement(seed) for seed in range(10)] == picks


def test_select_host_takes_the_best_score():
    sim = make_sim(nodes_toml("n-", 3))
    nodes = list(sim.store.nodes.values())
    assert sim.scheduler.select_host(nodes, [5, 9, 7]) is nodes[1]


# ---------------------------------------------------------------- explanations

def test_fit_error_message_format():
    statuses = {"a": Status(UNSCHEDULABLE, ("Insufficient cpu",)), "b": Status(UNSCHEDULABLE, ("Insufficient cpu",)),
                "c": Status(UNSCHEDULABLE_AND_UNRESOLVABLE, ("node(s) had untolerated taint {key: value}",))}
    # The histogram is sorted as strings, counts included.
    assert fit_error_message(3, statuses) == (
        "0/3 nodes are available: 1 node(s) had untolerated taint {key: value}, 2 Insufficient cpu.")
    absent = Status(UNSCHEDULABLE_AND_UNRESOLVABLE, ("Preemption is not helpful for scheduling",))
    inner = fit_error_message(6, dict(list(statuses.items())[:2]), "", absent)
    assert inner == "0/6 nodes are available: 2 Insufficient cpu, 4 Preemption is not helpful for scheduling."
    assert fit_error_message(3, statuses, "preemption: " + inner).endswith("scheduling..")


def test_failed_scheduling_event_condition_and_last_attempt():
    body = nodes_toml("n-", 2, cpu="1", memory="1Gi") + """
[[nodes]]
name = "t-1"
capacity = { cpu = "8", memory = "8Gi" }
taints = ["key=value:NoSchedule"]

[[pods]]
name = "big"
requests = { cpu = "2", memory = "512Mi" }
"""
    sim = make_sim(body)
    sim.run_until(0)
    pod = sim.store.pods["default/big"]
    expected = ("0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. "
                "no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling..")
    [event] = events(sim, "FailedScheduling", pod.ref)
    assert (event.type, event.message, event.source, event.time) == ("Warning", expected, "default-scheduler", 0)
    cond = pod.conditions["PodScheduled"]
    assert (cond.status, cond.reason, cond.message) == ("False", "Unschedulable", expected)
    attempt = sim.scheduler.last_attempt[pod.key]
    assert attempt.message == expected and set(attempt.statuses) == {"n-1", "n-2", "t-1"}
    assert attempt.unschedulable_plugins == {"NodeResourcesFit", "TaintToleration"}
    assert attempt.post_filter_message.startswith("no new claims to deallocate, preemption: 0/3")
    assert sim.scheduler.queue_state(pod) == ("unschedulable", None)
    sim.apply(Operation("untaint", node="t-1", taint="key"))
    sim.run_until(0)
    # the hint moved it to backoffQ; activeQ is empty, so it is popped at once (SchedulerPopFromBackoffQ)
    [scheduled] = events(sim, "Scheduled", pod.ref)
    assert scheduled.message == "Successfully assigned default/big to t-1" and scheduled.time == 0
    assert pod.conditions["PodScheduled"].status == "True" and pod.key not in sim.scheduler.last_attempt


def test_daemonset_style_node_name_affinity_reports_the_other_nodes_as_prefilter_rejects():
    sim = make_sim(nodes_toml("n-", 3, cpu="1", memory="1Gi"))
    pod = pod_of(sim, cpu=2000, affinity_node_name="n-2")
    feasible, diagnosis = sim.scheduler.find_nodes_that_fit(pod)
    assert feasible == [] and list(diagnosis.statuses) == ["n-2"]
    assert fit_error_message(3, diagnosis.statuses, "", diagnosis.absent) == (
        "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) [NodeAffinity].")
    assert diagnosis.get("n-1").code == UNSCHEDULABLE_AND_UNRESOLVABLE


def test_no_nodes_at_all():
    sim = make_sim("")
    sim.apply(Operation("create-pod", pod="p", template=PodTemplate(labels={})))
    sim.run_until(0)
    pod = sim.store.pods["default/p"]
    [event] = events(sim, "FailedScheduling")
    assert event.message == "no nodes available to schedule pods"
    # rejected by no plugin: podErrorBackoffQ, never popped early; 0 s + 1 s is in the window
    # [1 s, 2 s), released by the flush at 2 s
    assert sim.scheduler.queue_state(pod) == ("backoff", 2000)
    sim.run_until(2)
    [event] = events(sim, "FailedScheduling")  # the same message again: one Event, counted
    assert (event.count, event.time, event.last_time) == (2, 0, 2000)
    assert sim.scheduler.queue_state(pod) == ("backoff", 5000)  # 2 s + 2 s: window [4 s, 5 s)


# ---------------------------------------------------------------- scenario format

AFFINITY_POD = """
[scenario]
name = "a"

[[nodes]]
name = "n-1"
capacity = {{ cpu = "1", memory = "1Gi" }}

[[pods]]
name = "p"
affinity = {{ nodeAffinity = {{ requiredDuringSchedulingIgnoredDuringExecution = {{ nodeSelectorTerms = [{{ matchExpressions = [{expr}] }}] }} }} }}
"""


@pytest.mark.parametrize("expr,error", [
    ('{ key = "a", operator = "In" }', "operator In needs at least one value"),
    ('{ key = "a", operator = "Exists", values = ["x"] }', "operator Exists must not have values"),
    ('{ key = "a", operator = "Gt", values = ["x"] }', "operator Gt needs exactly one integer value"),
    ('{ key = "a", operator = "Lt", values = ["1", "2"] }', "operator Lt needs exactly one integer value"),
    ('{ key = "a", operator = "Near", values = ["1"] }', "Input should be 'In', 'NotIn', 'Exists'"),
])
def test_bad_affinity_is_answered_with_its_key_path(expr, error):
    with pytest.raises(ScenarioError) as info:
        parse_scenario(AFFINITY_POD.format(expr=expr), "bad.toml")
    [problem] = info.value.problems
    assert problem.path.startswith("pods[0].affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution")
    assert error in problem.message


def test_affinity_reaches_the_pod_and_survives_a_save():
    from playground.scenario import dump_scenario

    text = AFFINITY_POD.format(expr='{ key = "gen", operator = "Gt", values = ["2"] }')
    scenario = parse_scenario(text)
    assert parse_scenario(dump_scenario(scenario)) == scenario
    from playground.engine import Simulation

    sim = Simulation(scenario)
    sim.run_until(0)
    pod = sim.store.pods["default/p"]
    assert pod.required_node_affinity == (requirement("gen", "Gt", "2"),)
    assert sim.store.recorder.events[-1].reason == "FailedScheduling"
    from playground.engine.simulation import spec_from_template

    template = PodTemplate(labels={}, required_node_affinity=(requirement("gen", "Gt", "2"),))
    assert spec_from_template(template)["affinity"] == {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [{"key": "gen", "operator": "Gt", "values": ["2"]}]}]}}}


def test_long_explanations_are_truncated_in_the_event_only():
    body = "".join(f'\n[[nodes]]\nname = "n-{i}"\ncapacity = {{ cpu = "1", memory = "1Gi" }}\n'
                   f'taints = ["team-{i:03d}-with-a-long-key=value-{i}:NoSchedule"]\n' for i in range(30))
    # up to 1.34 the reason names each taint, so 30 taints make a long message
    sim = make_sim(body + '\n[[pods]]\nname = "p"\n', header=BASE + 'kubernetesVersion = "1.34"\n')
    sim.run_until(0)
    pod = sim.store.pods["default/p"]
    [event] = events(sim, "FailedScheduling", pod.ref)
    full = pod.conditions["PodScheduled"].message
    assert len(full) > 1024 and len(event.message) == 1024
    assert event.message == full[:1020] + " ..."


def test_the_one_pass_score_equals_the_sum_of_the_plugins_scores():
    import random

    from playground.engine.objects import PreferredSchedulingTerm

    rng = random.Random(4)
    sim = make_sim(nodes_toml("n-", 12, cpu="4", memory="8Gi"))
    nodes = list(sim.store.nodes.values())
    for node in nodes:
        node.requested_cpu = rng.randrange(0, 4000, 100)
        node.nonzero_cpu = node.requested_cpu + rng.choice([0, 100, 200])
        node.requested_memory = rng.randrange(0, 8 * GI, 64 * MI)
        node.nonzero_memory = node.requested_memory + rng.choice([0, 200 * MI])
        node.labels["disk"] = rng.choice(["ssd", "hdd"])
    sim.store.update_taints(nodes[3], [Taint("soft", "PreferNoSchedule")])
    pods = [pod_of(sim), pod_of(sim, cpu=500), pod_of(sim, memory=GI), pod_of(sim, cpu=1500, memory=3 * GI),
            pod_of(sim, cpu=100, preferred_node_affinity=(PreferredSchedulingTerm(7, requirement("disk", "In", "ssd")),))]
    for pod in pods:
        by_plugin = sim.scheduler.score_by_plugin(pod, nodes)
        expected = [sum(values[i] for values in by_plugin.values()) for i in range(len(nodes))]
        assert sim.scheduler.score(pod, nodes) == expected
