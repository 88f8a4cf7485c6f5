"""PodTopologySpread: kube-scheduler's table-driven unit tests transcribed as data
(podtopologyspread/filtering_test.go TestSingleConstraint, scoring_test.go TestPodTopologySpreadScore),
each run through the plain per-node reference and the vectorised columns, which must agree with the
expected codes and scores; then the system default constraints, validation and whole scenarios."""

from __future__ import annotations

import pytest

from conftest import make_sim, nodes_toml

from playground.engine.objects import (
    LabelSelector,
    LabelSelectorRequirement,
    Node,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    OwnerRef,
    Pod,
    TopologySpreadConstraint,
)
from playground.engine.scheduler import podtopologyspread as pts
from playground.engine.scheduler.framework import SUCCESS, UNSCHEDULABLE, UNSCHEDULABLE_AND_UNRESOLVABLE
from playground.scenario import parse_scenario
from playground.scenario.loader import ScenarioError

GI = 1024**3
HOST = "kubernetes.io/hostname"
S, U, UU = SUCCESS, UNSCHEDULABLE, UNSCHEDULABLE_AND_UNRESOLVABLE
FOO = LabelSelector((), (LabelSelectorRequirement("foo", "Exists"),))
BAR = LabelSelector((), (LabelSelectorRequirement("bar", "Exists"),))


# ---------------------------------------------------------------- a cluster from data

def cluster(nodes, pods):
    """A simulation holding exactly `nodes` [(name, labels)] and bound `pods`
    [(name, node, labels, namespace, terminating, anti-affinity terms...)]."""
    sim = make_sim("")
    store = sim.store
    for name, labels in nodes:
        store.add_node(Node(name, f"uid-{name}", dict(labels), 4000, 8 * GI, 110, 4000, 8 * GI, 110, 0))
    for spec in pods:
        name, node, labels = spec[0], spec[1], spec[2]
        namespace = spec[3] if len(spec) > 3 else "default"
        pod = Pod(name=name, namespace=namespace, uid=f"uid-{name}", labels=dict(labels), creation_time=0,
                  node_name=node, **(spec[5] if len(spec) > 5 else {}))
        store.add_pod(pod)
        if len(spec) > 4 and spec[4]:
            store.mark_pod_deleting(pod, 30)
    scheduler = sim.scheduler
    scheduler.columns.sync(scheduler.node_order(), scheduler.filters)
    return sim


def incoming(labels, *constraints, namespace="default", **fields):
    return Pod(name="p", namespace=namespace, uid="uid-p", labels=dict(labels), creation_time=0,
               topology_spread_constraints=tuple(constraints), **fields)


def filter_codes(sim, pod) -> dict[str, int]:
    """{node: code} by the reference and by the columns (asserted equal)."""
    scheduler = sim.scheduler
    constraints = pts.pod_constraints(pod, pts.DO_NOT_SCHEDULE, None)
    store = sim.store
    state = pts.prefilter_reference(pod, constraints, store.nodes.values(), store.pods_on)
    reference = {n.name: pts.filter_reference(pod, state, n).code for n in store.nodes.values()}
    columns = scheduler.columns
    verdict = pts.filter_columns(columns, scheduler.topology.counts, pod, constraints)
    codes = {0: S, 1: UU, 2: U}
    vectorised = {node.name: codes[int(verdict[i])] for i, node in enumerate(columns.nodes)}
    assert vectorised == reference
    return reference


def scores(sim, pod, candidates, require_all=True) -> dict[str, int]:
    import numpy as np

    scheduler = sim.scheduler
    store = sim.store
    constraints = pts.pod_constraints(pod, pts.SCHEDULE_ANYWAY, lambda p: pts.default_selector(sim, p))
    filtered = [store.nodes[name] for name in candidates]
    reference = pts.score_reference(pod, constraints, require_all, filtered, store.nodes.values(), store.pods_on)
    columns = scheduler.columns
    rows = np.array([columns.index[name] for name in candidates], dtype=np.int64)
    vectorised = pts.score_columns(columns, scheduler.topology.counts, pod, constraints, require_all, rows).tolist()
    assert vectorised == reference
    return dict(zip(candidates, reference))


def spread(skew, key, when, selector=FOO, **kw):
    return TopologySpreadConstraint(skew, key, when, selector, **kw)


# ---------------------------------------------------------------- filtering_test.go: TestSingleConstraint

ZONES4 = [("node-a", {"zone": "zone1", "node": "node-a"}), ("node-b", {"zone": "zone1", "node": "node-b"}),
          ("node-x", {"zone": "zone2", "node": "node-x"}), ("node-y", {"zone": "zone2", "node": "node-y"})]
SPREAD_2103 = [("p-a1", "node-a", {"foo": ""}), ("p-a2", "node-a", {"foo": ""}), ("p-b1", "node-b", {"foo": ""}),
               ("p-y1", "node-y", {"foo": ""}), ("p-y2", "node-y", {"foo": ""}), ("p-y3", "node-y", {"foo": ""})]

SINGLE_CONSTRAINT = [
    ("no existing pods", {"foo": ""}, spread(1, "zone", "DoNotSchedule"), ZONES4, [],
     {"node-a": S, "node-b": S, "node-x": S, "node-y": S}),
    ("no existing pods, incoming pod doesn't match itself", {"foo": ""}, spread(1, "zone", "DoNotSchedule", BAR),
     ZONES4, [], {"node-a": S, "node-b": S, "node-x": S, "node-y": S}),
    ("existing pods in a different namespace do not count", {"foo": ""}, spread(1, "zone", "DoNotSchedule"), ZONES4,
     [("p-a1", "node-a", {"foo": ""}, "ns1"), ("p-b1", "node-a", {"foo": ""}, "ns2"),
      ("p-x1", "node-x", {"foo": ""}), ("p-y1", "node-y", {"foo": ""})],
     {"node-a": S, "node-b": S, "node-x": U, "node-y": U}),
    ("pods spread across zones as 3/3, all nodes fit", {"foo": ""}, spread(1, "zone", "DoNotSchedule"), ZONES4,
     SPREAD_2103, {"node-a": S, "node-b": S, "node-x": S, "node-y": S}),
    ("pods spread across zones as 1/2 due to absence of label 'zone' on node-b", {"foo": ""},
     spread(1, "zone", "DoNotSchedule"),
     [ZONES4[0], ("node-b", {"zon": "zone1", "node": "node-b"}), ZONES4[2], ZONES4[3]],
     [("p-a1", "node-a", {"foo": ""}), ("p-b1", "node-b", {"foo": ""}), ("p-x1", "node-x", {"foo": ""}),
      ("p-y1", "node-y", {"foo": ""})],
     {"node-a": S, "node-b": UU, "node-x": U, "node-y": U}),
    ("pod cannot be scheduled as all nodes don't have label 'rack'", {"foo": ""}, spread(1, "rack", "DoNotSchedule"),
     [ZONES4[0], ZONES4[2]], [], {"node-a": UU, "node-x": UU}),
    ("pods spread across nodes as 2/1/0/3, only node-x fits", {"foo": ""}, spread(1, "node", "DoNotSchedule"),
     ZONES4, SPREAD_2103, {"node-a": U, "node-b": U, "node-x": S, "node-y": U}),
    ("pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit", {"foo": ""},
     spread(2, "node", "DoNotSchedule"), ZONES4, SPREAD_2103, {"node-a": U, "node-b": S, "node-x": S, "node-y": U}),
    ("pods spread across nodes as 2/1/0/3, but pod doesn't match itself", {"bar": ""},
     spread(1, "node", "DoNotSchedule"), ZONES4, SPREAD_2103, {"node-a": U, "node-b": S, "node-x": S, "node-y": U}),
    ("terminating Pods should be excluded", {"foo": ""}, spread(1, "node", "DoNotSchedule"),
     [("node-a", {"node": "node-a"}), ("node-b", {"node": "node-b"})],
     [("p-a", "node-a", {"foo": ""}, "default", True), ("p-b", "node-b", {"foo": ""})],
     {"node-a": S, "node-b": U}),
]


@pytest.mark.parametrize("name,labels,constraint,nodes,pods,want", SINGLE_CONSTRAINT,
                         ids=[case[0] for case in SINGLE_CONSTRAINT])
def test_single_constraint(name, labels, constraint, nodes, pods, want):
    sim = cluster(nodes, pods)
    assert filter_codes(sim, incoming(labels, constraint)) == want


def test_incoming_node_affinity_narrows_the_domains():
    """"incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits": only node-a and
    node-y count (nodeAffinityPolicy Honor); node-b and node-x pass this filter (NodeAffinity rejects
    them in a real cycle)."""
    sim = cluster(ZONES4, SPREAD_2103)
    affinity = (NodeSelectorTerm((NodeSelectorRequirement("node", "In", ("node-a", "node-y")),)),)
    pod = incoming({"foo": ""}, spread(1, "node", "DoNotSchedule"), required_node_affinity=affinity)
    assert filter_codes(sim, pod) == {"node-a": S, "node-b": S, "node-x": S, "node-y": U}
    ignore = incoming({"foo": ""}, spread(1, "node", "DoNotSchedule", node_affinity_policy="Ignore"),
                      required_node_affinity=affinity)
    assert filter_codes(sim, ignore) == {"node-a": U, "node-b": U, "node-x": S, "node-y": U}


def test_min_domains_treats_the_global_minimum_as_zero():
    """Zones hold 3 and 3 matching pods; with minDomains 3 > 2 eligible domains the global minimum
    is 0, so 3 + 1 - 0 exceeds maxSkew 1 everywhere and fits maxSkew 4 everywhere."""
    sim = cluster(ZONES4, SPREAD_2103)
    pod = incoming({"foo": ""}, spread(1, "zone", "DoNotSchedule", min_domains=3))
    # zones 3/3 with 2 domains < 3: minimum 0, 3 + 1 - 0 > 1 everywhere
    assert filter_codes(sim, pod) == {"node-a": U, "node-b": U, "node-x": U, "node-y": U}
    pod = incoming({"foo": ""}, spread(4, "zone", "DoNotSchedule", min_domains=3))
    assert filter_codes(sim, pod) == {"node-a": S, "node-b": S, "node-x": S, "node-y": S}


def test_min_domains_met_exactly_keeps_the_global_minimum():
    """Zones hold 3 and 3 matching pods and minDomains is 2, exactly the domains there are: the
    global minimum stays 3, so 3 + 1 - 3 fits maxSkew 1 everywhere (every node has the key and
    counts: the columns' path over the kept per-domain sums)."""
    sim = cluster(ZONES4, SPREAD_2103)
    pod = incoming({"foo": ""}, spread(1, "zone", "DoNotSchedule", min_domains=2))
    assert filter_codes(sim, pod) == {"node-a": S, "node-b": S, "node-x": S, "node-y": S}


def test_taints_policy_honor_drops_a_tainted_node_from_the_domains():
    from playground.engine.objects import NO_SCHEDULE, Taint

    sim = cluster(ZONES4, SPREAD_2103)
    sim.store.update_taints(sim.store.nodes["node-x"], add=[Taint("dedicated", NO_SCHEDULE, "gpu")])
    sim.scheduler.columns.sync(sim.scheduler.node_order(), sim.scheduler.filters)
    ignore = incoming({"foo": ""}, spread(1, "node", "DoNotSchedule"))
    assert filter_codes(sim, ignore) == {"node-a": U, "node-b": U, "node-x": S, "node-y": U}
    honor = incoming({"foo": ""}, spread(1, "node", "DoNotSchedule", node_taints_policy="Honor"))
    # node-x is no domain any more: the minimum is node-b's 1, so node-b (1 + 1 - 1) passes, node-a
    # (2 + 1 - 1) does not, and node-x (no count of its own: 0 + 1 - 1) passes this filter
    assert filter_codes(sim, honor) == {"node-a": U, "node-b": S, "node-x": S, "node-y": U}


def test_match_label_keys_narrows_the_selector_to_the_pods_value():
    sim = cluster(ZONES4, [("p-a1", "node-a", {"foo": "", "rev": "1"}), ("p-a2", "node-a", {"foo": "", "rev": "1"}),
                           ("p-x1", "node-x", {"foo": "", "rev": "2"})])
    plain = incoming({"foo": "", "rev": "2"}, spread(1, "node", "DoNotSchedule"))
    assert filter_codes(sim, plain) == {"node-a": U, "node-b": S, "node-x": U, "node-y": S}
    keyed = incoming({"foo": "", "rev": "2"}, spread(1, "node", "DoNotSchedule", match_label_keys=("rev",)))
    assert filter_codes(sim, keyed) == {"node-a": S, "node-b": S, "node-x": U, "node-y": S}


# ---------------------------------------------------------------- scoring_test.go: TestPodTopologySpreadScore

HOSTS4 = [(n, {HOST: n}) for n in ("node-a", "node-b", "node-c", "node-d")]


def foo_pods(counts: dict[str, int]):
    return [(f"p-{node[-1]}{i}", node, {"foo": ""}) for node, n in counts.items() for i in range(1, n + 1)]


SCORE_CASES = [
    ("one constraint on node, no existing pods", spread(1, HOST, "ScheduleAnyway"), HOSTS4[:2], [],
     ["node-a", "node-b"], {"node-a": 100, "node-b": 100}),
    ("one constraint on node, only one node is candidate", spread(1, HOST, "ScheduleAnyway"), HOSTS4[:2],
     foo_pods({"node-a": 2, "node-b": 1}), ["node-a"], {"node-a": 100}),
    ("one constraint on node, all nodes have the same number of matching pods", spread(1, HOST, "ScheduleAnyway"),
     HOSTS4[:2], foo_pods({"node-a": 1, "node-b": 1}), ["node-a", "node-b"], {"node-a": 100, "node-b": 100}),
    ("one constraint on node, all 4 nodes are candidates", spread(1, HOST, "ScheduleAnyway"), HOSTS4,
     foo_pods({"node-a": 2, "node-b": 1, "node-d": 3}), [n for n, _ in HOSTS4],
     {"node-a": 20, "node-b": 60, "node-c": 100, "node-d": 0}),
    ("one constraint on node, null selector", spread(1, HOST, "ScheduleAnyway", None), HOSTS4,
     foo_pods({"node-a": 2, "node-b": 1, "node-d": 3}), [n for n, _ in HOSTS4],
     {"node-a": 100, "node-b": 100, "node-c": 100, "node-d": 100}),
    ("one constraint on node, all 4 nodes are candidates, maxSkew=2", spread(2, HOST, "ScheduleAnyway"), HOSTS4,
     foo_pods({"node-a": 2, "node-b": 1, "node-d": 3}), [n for n, _ in HOSTS4],
     {"node-a": 33, "node-b": 66, "node-c": 100, "node-d": 16}),
    ("one constraint on node, all 4 nodes are candidates, maxSkew=3", spread(3, HOST, "ScheduleAnyway"), HOSTS4,
     foo_pods({"node-a": 4, "node-b": 3, "node-c": 2, "node-d": 1}), [n for n, _ in HOSTS4],
     {"node-a": 44, "node-b": 66, "node-c": 77, "node-d": 100}),
    ("one constraint on node, 3 out of 4 nodes are candidates", spread(1, HOST, "ScheduleAnyway"),
     [(n, {HOST: n}) for n in ("node-a", "node-b", "node-x", "node-y")],
     foo_pods({"node-a": 4, "node-b": 2, "node-x": 1, "node-y": 3}), ["node-a", "node-b", "node-x"],
     {"node-a": 33, "node-b": 83, "node-x": 100}),
    ("one constraint on zone, 3 out of 4 nodes are candidates", spread(1, "zone", "ScheduleAnyway"),
     [("node-a", {"zone": "zone1", HOST: "node-a"}), ("node-b", {"zone": "zone1", HOST: "node-b"}),
      ("node-x", {"zone": "zone2", HOST: "node-x"}), ("node-y", {"zone": "zone2", HOST: "node-y"})],
     foo_pods({"node-a": 4, "node-b": 2, "node-x": 1, "node-y": 3}), ["node-a", "node-b", "node-x"],
     {"node-a": 75, "node-b": 75, "node-x": 100}),
]


@pytest.mark.parametrize("name,constraint,nodes,pods,candidates,want", SCORE_CASES, ids=[c[0] for c in SCORE_CASES])
def test_score(name, constraint, nodes, pods, candidates, want):
    sim = cluster(nodes, pods)
    assert scores(sim, incoming({"foo": ""}, constraint), candidates) == want


def test_score_ignores_a_candidate_without_the_key():
    """"3 out of 4 nodes are candidates, one node doesn't match topology key": node-b (label `n`, no
    hostname) is ignored (0) and its pods do not count. Our nodes carry kubernetes.io/hostname, so the
    case is played on a custom key with the same shape."""
    nodes = [("node-a", {"h": "node-a"}), ("node-b", {"n": "node-b"}), ("node-x", {"h": "node-x"}),
             ("node-y", {"h": "node-y"})]
    sim = cluster(nodes, foo_pods({"node-a": 4, "node-b": 2, "node-x": 1, "node-y": 3}))
    got = scores(sim, incoming({"foo": ""}, spread(1, "h", "ScheduleAnyway")), ["node-a", "node-b", "node-x"])
    assert got["node-b"] == 0 and got["node-x"] == 100


def test_system_defaulting_scores_like_one_hostname_constraint():
    """"system defaulting, nodes don't have zone, pods match service": the ReplicaSet's selector stands
    in for the Service's; hostname maxSkew 3 gives 44/66/77/100 and the zone constraint adds nothing
    (no zone label: not required with System defaulting)."""
    sim = make_sim("")
    store = sim.store
    for name in ("node-a", "node-b", "node-c", "node-d"):
        store.add_node(Node(name, f"uid-{name}", {HOST: name}, 4000, 8 * GI, 110, 4000, 8 * GI, 110, 0))
    from playground.engine.objects import PodTemplate, ReplicaSet

    rs = ReplicaSet("web-1", "default", "web", PodTemplate(labels={"foo": ""}), "1", 0, 0, 0)
    sim.workloads.replicasets[rs.name] = rs
    for node, n in {"node-a": 4, "node-b": 3, "node-c": 2, "node-d": 1}.items():
        for i in range(n):
            store.add_pod(Pod(name=f"{node}-{i}", namespace="default", uid=f"u-{node}-{i}", labels=rs.template.labels,
                              creation_time=0, node_name=node, owner=OwnerRef("ReplicaSet", "web-1")))
    sim.scheduler.columns.sync(sim.scheduler.node_order(), sim.scheduler.filters)
    pod = Pod(name="p", namespace="default", uid="uid-p", labels=rs.template.labels, creation_time=0,
              owner=OwnerRef("ReplicaSet", "web-1"))
    constraints = pts.pod_constraints(pod, pts.SCHEDULE_ANYWAY, lambda p: pts.default_selector(sim, p))
    assert [(c.topology_key, c.max_skew) for c in constraints] == [(HOST, 3), ("topology.kubernetes.io/zone", 5)]
    assert pts.pod_constraints(pod, pts.DO_NOT_SCHEDULE, lambda p: pts.default_selector(sim, p)) == ()
    got = scores(sim, pod, ["node-a", "node-b", "node-c", "node-d"], require_all=False)
    assert got == {"node-a": 44, "node-b": 66, "node-c": 77, "node-d": 100}
    # a pod without a controller gets no default constraints
    lone = Pod(name="q", namespace="default", uid="uid-q", labels={"foo": ""}, creation_time=0)
    assert pts.pod_constraints(lone, pts.SCHEDULE_ANYWAY, lambda p: pts.default_selector(sim, p)) == ()


# ---------------------------------------------------------------- whole cycles

def test_deployment_replicas_spread_by_the_system_defaults():
    """Without spreading, LeastAllocated alone puts every replica on the big node (it stays the least
    allocated); the system default hostname constraint (maxSkew 3, weight 2) pulls replicas onto the
    small nodes as the big one fills with matching pods."""
    body = nodes_toml("big-", 1, cpu="64", memory="256Gi") + nodes_toml("small-", 2, cpu="4", memory="16Gi") + """
[[deployments]]
name = "web"
replicas = 6
template = { labels = { app = "web" }, requests = { cpu = "100m", memory = "128Mi" } }
"""
    sim = make_sim(body)
    sim.run_until(1000)
    nodes = sorted(p.node_name for p in sim.store.pods.values())
    assert nodes.count("big-1") < 6
    from playground.engine.scheduler import podtopologyspread

    saved = podtopologyspread.SYSTEM_DEFAULT_CONSTRAINTS
    podtopologyspread.SYSTEM_DEFAULT_CONSTRAINTS = ()
    try:
        plain = make_sim(body)
        plain.run_until(1000)
    finally:
        podtopologyspread.SYSTEM_DEFAULT_CONSTRAINTS = saved
    assert sorted(p.node_name for p in plain.store.pods.values()) == ["big-1"] * 6


def test_do_not_schedule_rejects_with_the_reason_and_preemption_picks_a_matching_victim():
    """Two zones of one node each; zone a holds two low-priority `app=web` pods, zone b one. A
    high-priority web pod with maxSkew 1 by zone fits neither by spread (a: 2 + 1 - 1 > 1) nor, on b,
    by cpu; preemption on a (the skew is Unschedulable) removes one matching pod and the pod is
    nominated there."""
    body = nodes_toml("a-", 1, zone="zone-a", cpu="2") + nodes_toml("b-", 1, zone="zone-b", cpu="2") + """
[[priorityClasses]]
name = "high"
value = 1000

[[pods]]
name = "w1"
nodeName = "a-1"
labels = { app = "web" }
requests = { cpu = "500m" }

[[pods]]
name = "w2"
nodeName = "a-1"
labels = { app = "web" }
requests = { cpu = "500m" }

[[pods]]
name = "w3"
nodeName = "b-1"
labels = { app = "web" }
requests = { cpu = "2" }

[[pods]]
name = "new"
at = "10s"
priorityClassName = "high"
labels = { app = "web" }
requests = { cpu = "500m" }
topologySpreadConstraints = [ { maxSkew = 1, topologyKey = "topology.kubernetes.io/zone", whenUnsatisfiable = "DoNotSchedule", labelSelector = { matchLabels = { app = "web" } } } ]
"""
    sim = make_sim(body)
    sim.run_until(60_000)
    seen = [(e.time, e.reason, e.object, e.message) for e in sim.store.recorder.events
            if e.reason in ("FailedScheduling", "Preempted", "Scheduled") and e.time > 0]
    # a-1: w1 and w2 removed, a = 0, min 0: fits; w1 reprieved (1 + 1 - 1 <= 1), w2 is the victim.
    # b-1: w3 must go for cpu. One victim of priority 0 each: the seeded tie-break picks a-1.
    # Async preemption (1.33+): the preemptor's FailedScheduling is written before the victim goes.
    assert seen == [
        (10_000, "FailedScheduling", "Pod/default/new", "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) "
                                                        "didn't match pod topology spread constraints."),
        (10_000, "Preempted", "Pod/default/w2", "Preempted by pod uid-00000006 on node a-1"),
        (40_000, "Scheduled", "Pod/default/new", "Successfully assigned default/new to a-1"),
    ]


# ---------------------------------------------------------------- the file format

BASE = """
[scenario]
name = "t"

[[nodes]]
name = "n1"
capacity = { cpu = "1", memory = "1Gi" }

[[pods]]
name = "p"
"""


@pytest.mark.parametrize("field,message", [
    ("topologySpreadConstraints = [ { maxSkew = 0, topologyKey = \"zone\", whenUnsatisfiable = \"DoNotSchedule\" } ]",
     "maxSkew: Invalid value: 0: must be greater than zero"),
    ("topologySpreadConstraints = [ { maxSkew = 1, topologyKey = \"zone\", whenUnsatisfiable = \"Sometimes\" } ]",
     "whenUnsatisfiable: Unsupported value: 'Sometimes': supported values: \"DoNotSchedule\", \"ScheduleAnyway\""),
    ("topologySpreadConstraints = [ { maxSkew = 1, topologyKey = \"zone\", whenUnsatisfiable = \"ScheduleAnyway\", "
     "minDomains = 2 } ]",
     "minDomains: Invalid value: 2: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway"),
    ("topologySpreadConstraints = [ { maxSkew = 1, whenUnsatisfiable = \"DoNotSchedule\" } ]",
     "topologyKey: Required value: can not be empty"),
    ("topologySpreadConstraints = [ { maxSkew = 1, topologyKey = \"zone\", whenUnsatisfiable = \"DoNotSchedule\", "
     "nodeTaintsPolicy = \"Always\" } ]", "nodeTaintsPolicy: Unsupported value: 'Always'"),
    ("topologySpreadConstraints = [ { maxSkew = 1, topologyKey = \"zone\", whenUnsatisfiable = \"DoNotSchedule\", "
     "matchLabelKeys = [\"app\"] } ]", "matchLabelKeys: Forbidden: must not be specified when labelSelector is not set"),
    ("topologySpreadConstraints = [ { maxSkew = 1, topologyKey = \"zone\", whenUnsatisfiable = \"DoNotSchedule\" }, "
     "{ maxSkew = 2, topologyKey = \"zone\", whenUnsatisfiable = \"DoNotSchedule\" } ]",
     "Duplicate value: \"{zone, DoNotSchedule}\""),
])
def test_bad_constraints_get_the_api_servers_message(field, message):
    with pytest.raises(ScenarioError) as err:
        parse_scenario(BASE + field + "\n")
    assert message in str(err.value)


def test_constraints_and_pod_affinity_survive_save_and_load():
    from playground.engine import Simulation
    from playground.engine.simulation import spec_from_template, template_from_spec
    from playground.scenario.schema import PodSpecFields

    spec = PodSpecFields.model_validate({
        "labels": {"app": "web"},
        "topologySpreadConstraints": [{"maxSkew": 2, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
                                       "labelSelector": {"matchLabels": {"app": "web"}}, "minDomains": 3,
                                       "nodeTaintsPolicy": "Honor", "matchLabelKeys": ["pod-template-hash"]}],
        "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["web"]}]},
             "topologyKey": HOST, "namespaces": ["default", "other"]}]},
            "podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 10, "podAffinityTerm": {"labelSelector": {"matchLabels": {"tier": "db"}},
                                                   "topologyKey": "zone"}}]}},
    })
    template = template_from_spec(spec)
    assert template.topology_spread_constraints[0].min_domains == 3
    assert template.required_pod_anti_affinity[0].namespaces == ("default", "other")
    again = template_from_spec(PodSpecFields.model_validate(spec_from_template(template)))
    assert again == template
    assert Simulation  # the engine imports cleanly with the new fields
