"""InterPodAffinity: kube-scheduler's TestRequiredAffinitySingleNode (interpodaffinity/filtering_test.go)
transcribed as data, through the plain reference and the vectorised columns; worked score examples;
and the plugin in whole scheduling cycles (reasons, the symmetric check, preemption)."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import make_sim, nodes_toml
from test_topologyspread import cluster

from playground.engine.objects import (
    LabelSelector,
    LabelSelectorRequirement,
    Pod,
    PodAffinityTerm,
    WeightedPodAffinityTerm,
)
from playground.engine.scheduler import interpodaffinity as ipa
from playground.engine.scheduler.framework import UNSCHEDULABLE, UNSCHEDULABLE_AND_UNRESOLVABLE
from playground.engine.scheduler.topology import affinity_state

NS1 = "ns1"
SCAN = {"service": "securityscan"}
SECURITY = {"security": "S1"}
NODE1 = [("node1", {"region": "r1", "zone": "z11"})]


def term(key, op, values, topology, namespaces=()):
    return PodAffinityTerm(LabelSelector((), (LabelSelectorRequirement(key, op, tuple(values)),)), topology,
                           tuple(namespaces))


def pod(labels, namespace="default", affinity=(), anti=(), preferred=(), preferred_anti=(), name="podToPlace"):
    return Pod(name=name, namespace=namespace, uid=f"uid-{name}", labels=dict(labels), creation_time=0,
               required_pod_affinity=tuple(affinity), required_pod_anti_affinity=tuple(anti),
               preferred_pod_affinity=tuple(preferred), preferred_pod_anti_affinity=tuple(preferred_anti))


def existing(name, node, labels, namespace="default", anti=(), affinity=(), preferred=(), preferred_anti=()):
    fields = {"required_pod_anti_affinity": tuple(anti), "required_pod_affinity": tuple(affinity),
              "preferred_pod_affinity": tuple(preferred), "preferred_pod_anti_affinity": tuple(preferred_anti)}
    return (name, node, labels, namespace, False, fields)


def statuses(sim, incoming) -> dict[str, object]:
    """{node: status} by the reference and the columns (asserted equal)."""
    store = sim.store
    scheduler = sim.scheduler
    state = ipa.prefilter_reference(incoming, store.nodes.values(), store.pods_on)
    reference = {n.name: ipa.filter_reference(state, n) for n in store.nodes.values()}
    columns = scheduler.columns
    verdict = ipa.filter_columns(columns, scheduler.topology.counts, incoming, store.nodes)
    table = (None, ipa.AFFINITY_STATUS, ipa.ANTI_AFFINITY_STATUS, ipa.EXISTING_ANTI_AFFINITY_STATUS)
    for i, node in enumerate(columns.nodes):
        code = 0 if verdict is None else int(verdict[i])
        want = reference[node.name]
        assert (code == 0) == want.ok, node.name
        if code:
            assert table[code] is want
    # the state the per-node filter reads, built from the columns, is the reference's
    built = affinity_state(columns, scheduler.topology.counts, incoming, store.nodes)
    clean = lambda d: {k: v for k, v in d.items() if v}  # noqa: E731
    assert (clean(built.existing_anti), clean(built.affinity), clean(built.anti)) == \
        (clean(state.existing_anti), clean(state.affinity), clean(state.anti))
    return reference


POD1 = existing("pod1", "node1", SCAN, NS1)

SINGLE_NODE = [
    ("A pod that has no required pod affinity scheduling rules can schedule onto a node with no existing pods",
     pod({}), [], True),
    ("satisfies the pod with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using In operator "
     "that matches the existing pod",
     pod(SECURITY, NS1, affinity=[term("service", "In", ["securityscan", "value2"], "region")]), [POD1], True),
    ("satisfies the pod with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using not in operator "
     "in labelSelector that matches the existing pod",
     pod(SECURITY, NS1, affinity=[term("service", "NotIn", ["securityscan3", "value3"], "region")]), [POD1], True),
    ("Does not satisfy the PodAffinity with labelSelector because of diff Namespace",
     pod(SECURITY, affinity=[term("service", "In", ["securityscan", "value2"], "", ["DiffNameSpace"])]),
     [existing("pod0", "node1", SCAN, "ns")], False),
    ("Doesn't satisfy the PodAffinity because of unmatching labelSelector with the existing pod",
     pod(SCAN, affinity=[term("service", "In", ["antivirusscan", "value2"], "")]), [POD1], False),
    ("satisfies the PodAffinity with different label Operators in multiple RequiredDuringScheduling terms",
     pod(SECURITY, NS1, affinity=[
         PodAffinityTerm(LabelSelector((), (LabelSelectorRequirement("service", "Exists"),
                                            LabelSelectorRequirement("wrongkey", "DoesNotExist"))), "region"),
         PodAffinityTerm(LabelSelector((), (LabelSelectorRequirement("service", "In", ("securityscan",)),
                                            LabelSelectorRequirement("service", "NotIn", ("WrongValue",)))), "region")]),
     [POD1], True),
    ("The labelSelector requirements(items of matchExpressions) are ANDed, the pod cannot schedule onto the node "
     "because one of the matchExpression item don't match.",
     pod(SECURITY, affinity=[
         PodAffinityTerm(LabelSelector((), (LabelSelectorRequirement("service", "Exists"),
                                            LabelSelectorRequirement("wrongkey", "DoesNotExist"))), "region"),
         PodAffinityTerm(LabelSelector((), (LabelSelectorRequirement("service", "In", ("securityscan2",)),
                                            LabelSelectorRequirement("service", "NotIn", ("WrongValue",)))), "region")]),
     [POD1], False),
    ("satisfies the PodAffinity and PodAntiAffinity with the existing pod",
     pod(SECURITY, NS1, affinity=[term("service", "In", ["securityscan", "value2"], "region")],
         anti=[term("service", "In", ["antivirusscan", "value2"], "node")]), [POD1], True),
    ("satisfies the PodAffinity and PodAntiAffinity and PodAntiAffinity symmetry with the existing pod",
     pod(SECURITY, affinity=[term("service", "In", ["securityscan", "value2"], "region")],
         anti=[term("service", "In", ["antivirusscan", "value2"], "node")]),
     [existing("pod1", "node1", SCAN, anti=[term("service", "In", ["antivirusscan", "value2"], "node")])], True),
    ("satisfies the PodAffinity but doesn't satisfy the PodAntiAffinity with the existing pod",
     pod(SECURITY, affinity=[term("service", "In", ["securityscan", "value2"], "region")],
         anti=[term("service", "In", ["securityscan", "value2"], "zone")]),
     [existing("pod1", "node1", SCAN)], False),
    ("satisfies the PodAffinity and PodAntiAffinity but doesn't satisfy PodAntiAffinity symmetry with the existing pod",
     pod(SCAN, affinity=[term("service", "In", ["securityscan", "value2"], "region")],
         anti=[term("service", "In", ["antivirusscan", "value2"], "node")]),
     [existing("pod1", "node1", SCAN, anti=[term("service", "In", ["securityscan", "value2"], "zone")])], False),
    ("pod matches its own Label in PodAffinity and that matches the existing pod Labels",
     pod(SCAN, affinity=[term("service", "NotIn", ["securityscan", "value2"], "region")]),
     [existing("pod1", "node2", SCAN)], False),
    ("verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints. doesn't "
     "satisfy PodAntiAffinity symmetry with the existing pod",
     pod(SCAN), [existing("pod1", "node1", SCAN, anti=[term("service", "In", ["securityscan", "value2"], "zone")])],
     False),
    ("verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints. satisfy "
     "PodAntiAffinity symmetry with the existing pod",
     pod(SCAN), [existing("pod1", "node1", SCAN, anti=[term("service", "NotIn", ["securityscan", "value2"], "zone")])],
     True),
    ("satisfies the PodAntiAffinity with existing pod but doesn't satisfy PodAntiAffinity symmetry with incoming pod",
     pod(SCAN, anti=[term("service", "Exists", [], "region"), term("security", "Exists", [], "region")]),
     [existing("pod1", "node1", SECURITY, anti=[term("security", "Exists", [], "zone")])], False),
    ("PodAntiAffinity symmetry check a1: incoming pod and existing pod partially match each other on AffinityTerms",
     pod(SCAN, anti=[term("service", "Exists", [], "zone"), term("security", "Exists", [], "zone")]),
     [existing("pod1", "node1", SECURITY, anti=[term("security", "Exists", [], "zone")])], False),
    ("PodAntiAffinity symmetry check a2: incoming pod and existing pod partially match each other on AffinityTerms",
     pod(SECURITY, anti=[term("security", "Exists", [], "zone")]),
     [existing("pod1", "node1", SCAN, anti=[term("service", "Exists", [], "zone"),
                                            term("security", "Exists", [], "zone")])], False),
    ("PodAntiAffinity symmetry check b1: incoming pod and existing pod partially match each other on AffinityTerms",
     pod({"abc": "", "xyz": ""}, anti=[term("abc", "Exists", [], "zone"), term("def", "Exists", [], "zone")]),
     [existing("pod1", "node1", {"def": "", "xyz": ""}, anti=[term("abc", "Exists", [], "zone"),
                                                              term("def", "Exists", [], "zone")])], False),
    ("PodAntiAffinity symmetry check b2: incoming pod and existing pod partially match each other on AffinityTerms",
     pod({"def": "", "xyz": ""}, anti=[term("abc", "Exists", [], "zone"), term("def", "Exists", [], "zone")]),
     [existing("pod1", "node1", {"abc": "", "xyz": ""}, anti=[term("abc", "Exists", [], "zone"),
                                                              term("def", "Exists", [], "zone")])], False),
]


@pytest.mark.parametrize("name,incoming,pods,placed", SINGLE_NODE, ids=[c[0][:60] for c in SINGLE_NODE])
def test_required_affinity_single_node(name, incoming, pods, placed):
    sim = cluster(NODE1, pods)
    assert statuses(sim, incoming)["node1"].ok is placed


def test_reasons_and_codes_in_the_plugins_order():
    """Affinity first (UnschedulableAndUnresolvable), then the pod's anti-affinity, then the existing
    pods' (both Unschedulable: preemption may help)."""
    nodes = [("a", {"zone": "z1"}), ("b", {"zone": "z2"}), ("c", {})]
    sim = cluster(nodes, [existing("db", "a", {"app": "db"}),
                          existing("web", "b", {"app": "web"}, anti=[term("app", "In", ["cache"], "zone")])])
    cache = pod({"app": "cache"}, affinity=[term("app", "In", ["db", "web"], "zone")],
                anti=[term("app", "In", ["db"], "zone")])
    got = statuses(sim, cache)
    assert (got["a"].code, got["a"].reasons) == (UNSCHEDULABLE, ("node(s) didn't match pod anti-affinity rules",))
    assert (got["b"].code, got["b"].reasons) == (UNSCHEDULABLE,
                                                 ("node(s) didn't satisfy existing pods anti-affinity rules",))
    assert (got["c"].code, got["c"].reasons) == (UNSCHEDULABLE_AND_UNRESOLVABLE,
                                                 ("node(s) didn't match pod affinity rules",))


def test_first_pod_of_a_self_affine_group_is_not_stuck():
    sim = cluster([("a", {"zone": "z1"}), ("b", {"zone": "z2"})], [existing("x", "a", {"app": "other"})])
    first = pod({"app": "web"}, affinity=[term("app", "In", ["web"], "zone")])
    assert all(s.ok for s in statuses(sim, first).values())
    stranger = pod({"app": "api"}, affinity=[term("app", "In", ["web"], "zone")])
    assert not any(s.ok for s in statuses(sim, stranger).values())


def test_terminating_pods_still_count():
    sim = cluster([("a", {"zone": "z1"}), ("b", {"zone": "z2"})], [("db", "a", {"app": "db"}, "default", True)])
    assert {n: s.ok for n, s in statuses(sim, pod({}, anti=[term("app", "In", ["db"], "zone")])).items()} == \
        {"a": False, "b": True}


# ---------------------------------------------------------------- scores (worked examples)

def score(sim, incoming, candidates):
    store = sim.store
    scheduler = sim.scheduler
    filtered = [store.nodes[n] for n in candidates]
    reference = ipa.score_reference(incoming, filtered, store.nodes.values(), store.pods_on)
    rows = np.array([scheduler.columns.index[n] for n in candidates], dtype=np.int64)
    vectorised = ipa.score_columns(scheduler.columns, scheduler.topology.counts, incoming, store.nodes, rows).tolist()
    assert vectorised == reference
    return dict(zip(candidates, reference))


ZONES = [("a", {"zone": "z1"}), ("b", {"zone": "z1"}), ("c", {"zone": "z2"}), ("d", {"zone": "z3"})]


def test_preferred_affinity_scores_by_matching_pods_in_the_domain():
    """weight 5 towards app=db by zone: z1 holds 2 db pods (10), z2 one (5), z3 none (0): 100/100/50/0."""
    sim = cluster(ZONES, [existing("db1", "a", {"app": "db"}), existing("db2", "b", {"app": "db"}),
                          existing("db3", "c", {"app": "db"})])
    web = pod({"app": "web"}, preferred=[WeightedPodAffinityTerm(5, term("app", "In", ["db"], "zone"))])
    assert score(sim, web, ["a", "b", "c", "d"]) == {"a": 100, "b": 100, "c": 50, "d": 0}


def test_existing_pods_terms_count_symmetrically():
    """As above plus an existing pod in z2 with a preferred anti-affinity (weight 10) against app=web,
    and one in z3 whose required affinity term selects the incoming pod (hardPodAffinityWeight 1);
    normalized as int(100 * (s - min) / (max - min))."""
    sim = cluster(ZONES, [existing("db1", "a", {"app": "db"}), existing("db2", "b", {"app": "db"}),
                          existing("db3", "c", {"app": "db"}),
                          existing("x", "c", {"app": "x"},
                                   preferred_anti=[WeightedPodAffinityTerm(10, term("app", "In", ["web"], "zone"))]),
                          existing("y", "d", {"app": "y"}, affinity=[term("app", "In", ["web"], "zone")])])
    web = pod({"app": "web"}, preferred=[WeightedPodAffinityTerm(5, term("app", "In", ["db"], "zone"))])
    # raw: z1 10, z2 5 - 10 = -5, z3 0 + 1 = 1 -> min -5, max 10: 100, 100, 0, int(100 * 6 / 15) = 40
    assert score(sim, web, ["a", "b", "c", "d"]) == {"a": 100, "b": 100, "c": 0, "d": 40}



def test_pods_holding_the_same_terms_are_counted_as_one_group_through_binds_and_deletes():
    """Existing pods of one namespace with equal terms form one group, counted per node and per node
    row; the rows read once follow later binds and deletes (as a rebuild from the counts finds),
    and the scores and verdicts stay the reference's."""
    anti = [term("app", "In", ["cache"], "zone")]
    sim = cluster(ZONES, [existing("c1", "a", {"app": "cache"}, anti=anti),
                          existing("c2", "a", {"app": "cache"}, anti=anti),
                          existing("c3", "c", {"app": "cache"}, anti=anti),
                          existing("w1", "b", {"app": "web"}, preferred_anti=[
                              WeightedPodAffinityTerm(10, term("app", "In", ["web"], "zone"))])])
    counts = sim.scheduler.topology.counts
    groups = {tuple(sorted(g.by_node.items())): g for g in counts.affinity_groups_now()}
    assert set(groups) == {(("a", 2), ("c", 1)), (("b", 1),)}
    cache_group = groups[(("a", 2), ("c", 1))]
    columns = sim.scheduler.columns
    rows, outside = counts.affinity_rows(cache_group)
    assert outside == {} and rows[columns.index["a"]] == 2 and rows[columns.index["c"]] == 1
    store = sim.store
    store.remove_pod(store.pods["default/c3"])
    store.add_pod(Pod(name="c4", namespace="default", uid="uid-c4", labels={"app": "cache"}, creation_time=0,
                      node_name="d", required_pod_anti_affinity=tuple(anti)))
    assert cache_group.by_node == {"a": 2, "d": 1}
    rows, _ = counts.affinity_rows(cache_group)
    assert rows.tolist() == [{"a": 2, "d": 1}.get(node.name, 0) for node in columns.nodes]
    incoming = pod({"app": "cache"})
    assert ipa.active(incoming, counts)
    want = statuses(sim, incoming)
    assert {n for n, s in want.items() if not s.ok} == {"a", "b", "d"}  # z1 and z3 hold cache pods
    for name in ("c1", "c2"):
        store.remove_pod(store.pods[f"default/{name}"])
    assert cache_group.by_node == {"d": 1}
    assert {n for n, s in statuses(sim, incoming).items() if not s.ok} == {"d"}
    web = pod({"app": "web"})
    assert ipa.active(web, counts)  # w1's preferred anti-affinity selects it
    assert score(sim, web, ["a", "b", "c", "d"]) == {"a": 0, "b": 0, "c": 100, "d": 100}


def test_a_pod_no_term_selects_leaves_the_plugin_out():
    """With existing pods holding terms, a pod without terms of its own that none of their terms
    selects: the plugin is not active for it (PreFilter would Skip, every score is 0), so its cycle
    is the one without the plugin and runs of such pods are placed together."""
    anti = [term("app", "In", ["cache"], "kubernetes.io/hostname")]
    sim = cluster(ZONES, [existing("c1", "a", {"app": "cache"}, anti=anti)])
    counts = sim.scheduler.topology.counts
    other = pod({"app": "batch"})
    assert not ipa.active(other, counts)
    assert ipa.filter_columns(sim.scheduler.columns, counts, other, sim.store.nodes) is None
    assert score(sim, other, ["a", "b", "c", "d"]) == {"a": 0, "b": 0, "c": 0, "d": 0}
    assert ipa.active(pod({"app": "cache"}), counts)
    # asked again for pods of the same labels once a pod whose term selects them runs, and once it is gone
    store = sim.store
    store.add_pod(Pod(name="z", namespace="default", uid="uid-z", labels={"app": "z"}, creation_time=0, node_name="c",
                      preferred_pod_affinity=(WeightedPodAffinityTerm(7, term("app", "In", ["batch"], "zone")),)))
    assert ipa.active(other, counts)
    assert score(sim, other, ["a", "b", "c", "d"]) == {"a": 0, "b": 0, "c": 100, "d": 0}
    store.remove_pod(store.pods["default/z"])
    assert not ipa.active(other, counts)


# ---------------------------------------------------------------- whole cycles

def test_anti_affinity_preemption_removes_the_conflicting_pod():
    """Two nodes; a low-priority `app=cache` pod on each. A high-priority cache pod with required
    anti-affinity on hostname fits nowhere ("didn't match pod anti-affinity rules", Unschedulable);
    preemption removes the one cache pod of the chosen node, not the unrelated pod next to it."""
    body = nodes_toml("n-", 2, cpu="4") + """
[[priorityClasses]]
name = "high"
value = 1000

[[pods]]
name = "c1"
nodeName = "n-1"
labels = { app = "cache" }

[[pods]]
name = "other"
nodeName = "n-1"
labels = { app = "other" }

[[pods]]
name = "c2"
nodeName = "n-2"
labels = { app = "cache" }

[[pods]]
name = "new"
at = "10s"
priorityClassName = "high"
labels = { app = "cache" }
affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution = [ { labelSelector = { matchLabels = { app = "cache" } }, topologyKey = "kubernetes.io/hostname" } ]
"""
    sim = make_sim(body)
    sim.run_until(60_000)
    seen = [(e.time, e.reason, e.object, e.message) for e in sim.store.recorder.events
            if e.reason in ("FailedScheduling", "Preempted", "Scheduled") and e.time > 0]
    # async preemption (1.33+): the preemptor's FailedScheduling, then the victim's Preempted
    assert seen[0][1:3] == ("FailedScheduling", "Pod/default/new")
    assert seen[0][3] == "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules."
    assert seen[1][1] == "Preempted" and seen[1][2] in ("Pod/default/c1", "Pod/default/c2")
    victim_node = "n-1" if seen[1][2] == "Pod/default/c1" else "n-2"
    assert seen[2] == (40_000, "Scheduled", "Pod/default/new", f"Successfully assigned default/new to {victim_node}")
    assert "default/other" in sim.store.pods


def test_a_pending_anti_affine_pod_is_retried_when_the_conflicting_pod_goes():
    """The queueing hint: the deletion of a pod its anti-affinity term selects moves the pod back
    at once (not after the 5-minute leftover flush)."""
    body = nodes_toml("n-", 1) + """
[[pods]]
name = "c1"
nodeName = "n-1"
labels = { app = "cache" }
terminationGracePeriodSeconds = 0

[[pods]]
name = "new"
at = "5s"
labels = { app = "cache" }
affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution = [ { labelSelector = { matchLabels = { app = "cache" } }, topologyKey = "kubernetes.io/hostname" } ]

[[timeline]]
at = "20s"
do = "delete-pod"
pod = "c1"
"""
    sim = make_sim(body)
    sim.run_until(60_000)
    scheduled = [e for e in sim.store.recorder.events if e.reason == "Scheduled" and e.object == "Pod/default/new"]
    assert scheduled and scheduled[0].time < 30_000


def test_domain_sums_where_every_row_is_its_own_domain_and_where_one_row_lacks_the_key():
    """_domain_sums reads a row's own count where every row has its own value of the key (a
    hostname); where the values are as many as the rows but one row lacks the key, or rows share a
    value, it sums by domain, 0 for a row without the key."""
    pools = "".join(f'[[nodePools]]\nnamePrefix = "n{i}-"\ncount = 1\nlabels = {{ {labels} }}\n'
                    'capacity = { cpu = "4", memory = "8Gi" }\n'
                    for i, labels in enumerate(['slot = "a", rack = "r1"', 'slot = "b", rack = "r1"',
                                                'rack = "r2"', 'slot = "c"']))
    sim = make_sim(pools)
    columns = sim.scheduler.columns
    columns.sync(sim.scheduler.node_order(), sim.scheduler.filters)
    per_row = np.array([3, 5, 7, 11], dtype=np.int64)
    labels = [node.labels for node in columns.nodes]
    for key in ("kubernetes.io/hostname", "slot", "rack"):
        want = [sum(c for c, other in zip(per_row.tolist(), labels) if other.get(key) == mine.get(key))
                if key in mine else 0 for mine in labels]
        sums, has = ipa._domain_sums(columns, key, per_row)
        assert sums.tolist() == want and has.tolist() == [key in mine for mine in labels], key
        assert sums is not per_row
