"""The scheduling cycle with PodTopologySpread and InterPodAffinity against a plain per-node
reference, on random clusters (zones, racks, taints, cordons, matching pods spread at random, some
terminating, some with required or preferred pod affinity and anti-affinity, nominated pods, mixed
priorities): the same feasible nodes in the same order, the same statuses and FitError text, the
same next_start, the same scores (so the same chosen node for one RNG state), and the same
preemption candidates and victims for the same offset.

The reference computes PreFilter states from the pods themselves (`prefilter_reference`), applies
nominated pods and victims with AddPod / RemovePod on copies, and runs each plugin's plain filter
and score; the scheduler reads the incrementally kept per-node counts through numpy.

COLUMNAR_EXAMPLES sets the number of examples (default 40; e.g. 1000 for a long run)."""

from __future__ import annotations

import math
import os

import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import make_sim

from playground.engine.objects import (
    NO_SCHEDULE,
    OwnerRef,
    ReplicaSet,
    LabelSelector,
    LabelSelectorRequirement,
    PodAffinityTerm,
    PodTemplate,
    Taint,
    Toleration,
    TopologySpreadConstraint,
    WeightedPodAffinityTerm,
)
from playground.engine.scheduler import fit_error_message, num_feasible_nodes_to_find
from playground.engine.scheduler import interpodaffinity as ipa
from playground.engine.scheduler import podtopologyspread as pts
from playground.engine.scheduler.framework import OK, UNSCHEDULABLE, UNSCHEDULABLE_AND_UNRESOLVABLE, NodeInfo
from playground.engine.scheduler.plugins import DEFAULT_FILTERS, DEFAULT_SCORES, NODE_AFFINITY
from playground.engine.scheduler.preemption import filter_pods_with_pdb_violation, importance_key
from playground.engine.workloads import pod_from_template

EXAMPLES = int(os.environ.get("COLUMNAR_EXAMPLES", "40"))
ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"
APPS = ("web", "db", "cache")


def selector(app):
    if app == "any":
        return LabelSelector((), (LabelSelectorRequirement("app", "Exists"),))
    return LabelSelector((("app", app),))


terms = st.builds(lambda app, key: PodAffinityTerm(selector(app), key),
                  st.sampled_from(APPS + ("any",)), st.sampled_from([ZONE, HOST, "rack"]))
constraint = st.builds(
    lambda skew, key, when, app, min_domains, affinity, taints: TopologySpreadConstraint(
        skew, key, when, selector(app), min_domains if when == "DoNotSchedule" else 1, affinity, taints),
    st.integers(1, 3), st.sampled_from([ZONE, HOST, "rack"]), st.sampled_from(["DoNotSchedule", "ScheduleAnyway"]),
    st.sampled_from(APPS + ("any",)), st.sampled_from([1, 1, 3, 5]), st.sampled_from(["Honor", "Ignore"]),
    st.sampled_from(["Ignore", "Ignore", "Honor"]))
affinity = st.fixed_dictionaries({
    "required_pod_affinity": st.lists(terms, max_size=2).map(tuple),
    "required_pod_anti_affinity": st.lists(terms, max_size=2).map(tuple),
    "preferred_pod_affinity": st.lists(st.builds(WeightedPodAffinityTerm, st.integers(1, 100), terms),
                                       max_size=2).map(tuple),
    "preferred_pod_anti_affinity": st.lists(st.builds(WeightedPodAffinityTerm, st.integers(1, 100), terms),
                                            max_size=2).map(tuple),
})
no_affinity = st.just({"required_pod_affinity": (), "required_pod_anti_affinity": (), "preferred_pod_affinity": (),
                       "preferred_pod_anti_affinity": ()})
placed_pod = st.tuples(st.integers(0, 10_000), st.sampled_from(APPS), st.sampled_from([0, 500, 1500]),
                       st.sampled_from([0, 10]), st.one_of(no_affinity, no_affinity, affinity), st.booleans())
cluster = st.fixed_dictionaries({
    "pools": st.lists(st.tuples(st.integers(1, 12), st.sampled_from(["zone-a", "zone-b", "zone-c"]),
                                st.sampled_from(["", "r1", "r2"]), st.sampled_from(["4", "2"])),
                      min_size=1, max_size=5),
    "percentage": st.sampled_from([0, 100, 30]),
    "taints": st.lists(st.integers(0, 10_000), max_size=4),
    "cordons": st.lists(st.integers(0, 10_000), max_size=3),
    "placed": st.lists(placed_pod, max_size=60),
    "removed": st.lists(st.integers(0, 10_000), max_size=4),
    "terminating": st.lists(st.integers(0, 10_000), max_size=5),
    "nominated": st.lists(st.tuples(st.integers(0, 10_000), st.sampled_from(APPS), st.sampled_from([0, 100, 1000])),
                          max_size=3),
    "pod": st.tuples(st.sampled_from(APPS), st.sampled_from([0, 500, 1000, 3000]), st.sampled_from([1000, 1000, 0, 100]),
                     st.lists(constraint, max_size=3, unique_by=lambda c: (c.topology_key, c.when_unsatisfiable)),
                     st.one_of(no_affinity, affinity), st.booleans()),
})


def build(data):
    body = [f"[scheduler]\npercentageOfNodesToScore = {data['percentage']}\n"]
    for i, (count, zone, rack, cpu) in enumerate(data["pools"]):
        labels = f'"{ZONE}" = "{zone}"' + (f', rack = "{rack}"' if rack else "")
        body.append(f'[[nodePools]]\nnamePrefix = "p{i}-"\ncount = {count}\nlabels = {{ {labels} }}\n'
                    f'capacity = {{ cpu = "{cpu}", memory = "8Gi", pods = 6 }}\n')
    sim = make_sim("".join(body))
    store = sim.store
    names = sorted(store.nodes)
    for index in data["taints"]:
        store.update_taints(store.nodes[names[index % len(names)]], add=[Taint("dedicated", NO_SCHEDULE, "x")])
    for index in data["cordons"]:
        store.set_unschedulable(store.nodes[names[index % len(names)]], True)
    placed = []
    for i, (index, app, cpu, priority, fields, other_ns) in enumerate(data["placed"]):
        template = PodTemplate(labels={"app": app}, cpu=cpu, priority=priority, **fields)
        pod = pod_from_template(sim, f"placed-{i}", "other" if other_ns else "default", template, None)
        pod.node_name = names[index % len(names)]
        pod.start_time = i
        store.add_pod(pod)
        placed.append(pod)
    for index in data["removed"]:  # (the counts, pod affinity's groups too, follow a delete)
        if placed:
            gone = placed.pop(index % len(placed))
            store.remove_pod(gone)
    for index in data["terminating"]:
        if placed:
            store.mark_pod_deleting(placed[index % len(placed)], 30)
    for i, (index, app, priority) in enumerate(data["nominated"]):
        pod = pod_from_template(sim, f"nominated-{i}", "default",
                                PodTemplate(labels={"app": app}, cpu=500, priority=priority), None)
        store.add_pod(pod)
        store.set_nominated_node(pod, names[index % len(names)])
    app, cpu, priority, constraints, fields, tolerates = data["pod"]
    template = PodTemplate(labels={"app": app}, cpu=cpu, priority=priority,
                           topology_spread_constraints=tuple(constraints), **fields,
                           tolerations=(Toleration("dedicated", "Exists"),) if tolerates else ())
    pod = pod_from_template(sim, "incoming", "default", template, None)
    store.add_pod(pod)
    return sim, pod


# ---------------------------------------------------------------- the plain reference

class Reference:
    def __init__(self, sim, pod):
        self.sim, self.pod = sim, pod
        store = sim.store
        self.constraints = pts.pod_constraints(pod, pts.DO_NOT_SCHEDULE, None)
        self.spread = pts.prefilter_reference(pod, self.constraints, store.nodes.values(), store.pods_on)
        self.affinity = ipa.prefilter_reference(pod, store.nodes.values(), store.pods_on)

    def filters(self, node, removed=(), added=()):
        scheduler = self.sim.scheduler
        pod = self.pod
        extra = [p for p in scheduler.nominated.get(node.name, {}).values()
                 if p.priority >= pod.priority and p.key != pod.key] + list(added)
        target = NodeInfo(node)
        for other in removed:
            target.remove_pod(other)
        for other in extra:
            target.add_pod(other)
        for plugin in DEFAULT_FILTERS:
            status = plugin.filter(pod, target)
            if not status.ok:
                return status
        spread, affinity = self.spread.copy(), self.affinity.copy()
        for other, delta in [(p, -1) for p in removed] + [(p, 1) for p in extra]:
            spread.update(other, pod, node, delta)
            affinity.update(other, node, delta)
        status = pts.filter_reference(pod, spread, node) if self.constraints else OK
        if status.ok:
            status = ipa.filter_reference(affinity, node)
        return status

    def find(self, start):
        scheduler = self.sim.scheduler
        order = scheduler.node_order()
        count = len(order)
        to_find = num_feasible_nodes_to_find(count, scheduler.config.percentage_of_nodes_to_score)
        feasible, statuses, processed = [], {}, 0
        for i in range(count):
            node = order[(start + i) % count]
            processed += 1
            status = self.filters(node)
            if status.ok:
                feasible.append(node)
                if len(feasible) >= to_find:
                    break
            else:
                statuses[node.name] = status
        return feasible, statuses, (start + processed) % count

    def scores(self, nodes):
        pod = self.pod
        store = self.sim.store
        totals = [0] * len(nodes)
        for plugin in DEFAULT_SCORES:
            raw = [plugin.score(pod, node) for node in nodes]
            if plugin is NODE_AFFINITY and not pod.preferred_node_affinity:
                raw = [0] * len(nodes)
            totals = [t + v * plugin.weight for t, v in zip(totals, plugin.normalize(raw))]
        constraints = pts.pod_constraints(pod, pts.SCHEDULE_ANYWAY, None)
        spread = pts.score_reference(pod, constraints, True, nodes, store.nodes.values(), store.pods_on)
        affinity = ipa.score_reference(pod, nodes, store.nodes.values(), store.pods_on)
        return [t + 2 * s + 2 * a for t, s, a in zip(totals, spread, affinity)]

    def victims(self, node, pdbs):
        """SelectVictimsOnNode, node by node, with the plain filters."""
        pod, now = self.pod, self.sim.clock.now
        potential = [p for p in self.sim.store.pods_on(node.name) if not p.is_terminal() and p.priority < pod.priority]
        if not potential:
            return None
        if not self.filters(node, removed=potential).ok:
            return None
        potential.sort(key=importance_key(now))
        violating, non_violating = filter_pods_with_pdb_violation(potential, pdbs)
        removed = list(potential)
        victims = []
        for other in violating + non_violating:
            removed.remove(other)
            if not self.filters(node, removed=removed).ok:
                removed.append(other)
                victims.append(other)
        if violating and non_violating:
            victims.sort(key=importance_key(now))
        return [v.key for v in victims] or None


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(cluster, st.integers(0, 10_000))
def test_cycle_matches_the_plain_reference(data, start_seed):
    sim, pod = build(data)
    scheduler = sim.scheduler
    order = scheduler.node_order()
    start = start_seed % len(order)
    scheduler._cycle = scheduler.topology.cycle(pod)
    reference = Reference(sim, pod)
    want_feasible, want_statuses, want_next = reference.find(start)
    scheduler.next_start = start
    feasible, diagnosis = scheduler.find_nodes_that_fit(pod)
    for code in (UNSCHEDULABLE, UNSCHEDULABLE_AND_UNRESOLVABLE):  # (preemption's count of potential nodes)
        counted = diagnosis.count_with_code(order, code)  # (before .statuses turns it into a dict)
        assert counted is None or counted == len(diagnosis.rows_with_code(order, code)) \
            == sum(1 for s in want_statuses.values() if s.code == code)
    assert [n.name for n in feasible] == [n.name for n in want_feasible]
    counts, columns = scheduler.topology.counts, scheduler.columns
    if not ipa.active(pod, counts):  # then the plugin would Skip its filter and score every node 0
        assert ipa.filter_columns(columns, counts, pod, sim.store.nodes) is None
        every_row = __import__("numpy").arange(len(columns.nodes))
        assert not ipa.score_columns(columns, counts, pod, sim.store.nodes, every_row).any()
    assert scheduler.next_start == want_next
    got = {name: (s.code, s.reasons) for name, s in diagnosis.statuses.items()}
    assert got == {name: (s.code, s.reasons) for name, s in want_statuses.items()}
    assert diagnosis.message(len(order)) == fit_error_message(len(order), want_statuses)
    if len(feasible) > 1:
        rows = __import__("numpy").array([scheduler.columns.index[n.name] for n in feasible])
        placement = scheduler.columns.placement(pod, scheduler.columns.pod_class(pod, scheduler.filters))
        got_scores = (scheduler.columns.score(pod, placement, rows) + scheduler._cycle.score(rows)).tolist()
        assert got_scores == reference.scores(feasible)
        plain = scheduler.score(pod, feasible)
        plain = [a + b for a, b in zip(plain, scheduler._cycle.score_nodes(feasible))]
        assert plain == got_scores
    if not feasible:
        # preemption: the same candidates (nodes, victims, PDB violations) from the same offset
        pdbs = list(sim.store.pdbs.values())
        potential = [n for n in order if diagnosis.get(n.name).code == UNSCHEDULABLE]
        preemption = scheduler.preemption
        want = {}
        for node in potential:
            victims = reference.victims(node, pdbs)
            if victims:
                want[node.name] = victims
        for node in potential:
            got_victims, _, status = preemption.select_victims_on_node(pod, node, pdbs)
            assert ([v.key for v in got_victims] or None) == want.get(node.name), node.name
    scheduler._cycle = None


def replicaset_cluster(zones: int, per_zone: int, pods: int = 110):
    """`zones` zones of `per_zone` nodes and a ReplicaSet whose pods get the system default spread."""
    body = "".join(f'[[nodePools]]\nnamePrefix = "z{z}-"\ncount = {per_zone}\nlabels = {{ "{ZONE}" = "z{z}" }}\n'
                   f'capacity = {{ cpu = "64", memory = "64Gi", pods = "{pods}" }}\n' for z in range(zones))
    sim = make_sim(body)
    rs = ReplicaSet("web-1", "default", "web", PodTemplate(labels={"app": "web", "pod-template-hash": "1"}), "1",
                    0, 0, 0)
    sim.workloads.replicasets[rs.name] = rs
    return sim, rs


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 6)), max_size=60),
       st.lists(st.integers(0, 10_000), min_size=1, max_size=40), st.integers(1, 4), st.integers(1, 8))
def test_system_default_scores_match_the_reference(placed, scored, zones, per_zone):
    """The system defaults' fast path (pairs of matching pods and zone, HostZoneTable) against the
    plain score on ReplicaSet pods spread at random; some pods terminating."""
    sim, rs = replicaset_cluster(zones, per_zone)
    store = sim.store
    names = sorted(store.nodes)
    for i, (index, copies) in enumerate(placed):
        for j in range(copies):
            pod = pod_from_template(sim, f"w-{i}-{j}", "default", rs.template, OwnerRef("ReplicaSet", rs.name))
            pod.node_name = names[index % len(names)]
            store.add_pod(pod)
            if (i + j) % 7 == 3:
                store.mark_pod_deleting(pod, 30)
    scheduler = sim.scheduler
    scheduler.columns.sync(scheduler.node_order(), scheduler.filters)
    incoming = pod_from_template(sim, "new", "default", rs.template, OwnerRef("ReplicaSet", rs.name))
    constraints = scheduler.topology.constraints(incoming, pts.SCHEDULE_ANYWAY)
    assert [c.topology_key for c in constraints] == [HOST, ZONE]
    rows = sorted({i % len(names) for i in scored})
    order = scheduler.node_order()
    nodes = [order[r] for r in rows]
    import numpy as np

    got = pts.score_columns(scheduler.columns, scheduler.topology.counts, incoming, constraints, False,
                            np.array(rows, dtype=np.int64)).tolist()
    assert got == pts.score_reference(incoming, constraints, False, nodes, store.nodes.values(), store.pods_on)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.sampled_from(["bind", "bind", "delete", "terminate", "score"]), st.integers(0, 10_000),
                          st.lists(st.integers(0, 10_000), min_size=1, max_size=30)), min_size=1, max_size=40),
       st.integers(1, 4), st.integers(1, 6))
def test_system_default_scores_follow_binds_and_deletes(steps, zones, per_zone):
    """The raw-score table of the system defaults' fast path is kept across cycles (a bind or a
    deletion changes one domain's sum, some pods pile up on one node): after every change, the
    scores of random windows equal the plain score."""
    sim, rs = replicaset_cluster(zones, per_zone, pods=500)
    store = sim.store
    names = sorted(store.nodes)
    scheduler = sim.scheduler
    order = scheduler.node_order()
    incoming = pod_from_template(sim, "new", "default", rs.template, OwnerRef("ReplicaSet", rs.name))
    placed = []
    import numpy as np

    for i, (action, where, scored) in enumerate(steps):
        if action == "bind":
            for j in range(1 + where % 4):  # several on one node: the table grows a row
                pod = pod_from_template(sim, f"w-{i}-{j}", "default", rs.template, OwnerRef("ReplicaSet", rs.name))
                store.add_pod(pod)
                store.bind_pod(pod, names[where % len(names)])
                placed.append(pod)
        elif action in ("delete", "terminate") and placed:
            pod = placed.pop(where % len(placed))
            if action == "delete":
                store.remove_pod(pod)
            else:
                store.mark_pod_deleting(pod, 30)
        scheduler.columns.sync(order, scheduler.filters)
        constraints = scheduler.topology.constraints(incoming, pts.SCHEDULE_ANYWAY)
        start = where % len(order)
        rows = sorted({(start + k) % len(order) for k in range(1 + len(scored))}) if action == "score" \
            else sorted({k % len(order) for k in scored})
        got = pts.score_columns(scheduler.columns, scheduler.topology.counts, incoming, constraints, False,
                                np.array(rows, dtype=np.int64)).tolist()
        want = pts.score_reference(incoming, constraints, False, [order[r] for r in rows], store.nodes.values(),
                                   store.pods_on)
        assert got == want, (i, action)


# ---------------------------------------------------------------- the raw table's array path

@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.floats(0, 1e9, allow_nan=False),
                          st.integers(0, 10**6).map(lambda n: n + 0.5),  # exact halves
                          st.integers(0, 10**6).map(lambda n: n + 0.49999999999999994)), min_size=1, max_size=50))
def test_go_round_array_is_go_round_on_every_value(values):
    assert pts.go_round_array(np.array(values, dtype=np.float64)).tolist() == [float(pts.go_round(v)) for v in values]


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 200), st.integers(1, 12), st.integers(0, 3), st.integers(0, 3),
       st.lists(st.lists(st.integers(0, 5000), min_size=1, max_size=12), min_size=1, max_size=6))
def test_a_column_scored_with_arrays_is_the_column_scored_per_row(rows, nodes_per_domain, h_extra, z_extra, sums_seq):
    """_score_domains with arrays (ARRAY_FROM rows and more) against the per-row list, over a sequence
    of domain sums, as binds change one domain after another."""
    domains = len(sums_seq[0])
    weights = (math.log(rows * nodes_per_domain + 2), math.log(domains + 2), h_extra, z_extra)
    tables = []
    for array_from in (1 << 30, 0):  # per row, then arrays
        entry = pts.RawTable(rows, domains)
        entry.host_terms = [h * weights[0] + h_extra for h in range(rows)]
        entry.host_array = np.array(entry.host_terms, dtype=np.float64)
        seen = []
        old_from, pts.ARRAY_FROM = pts.ARRAY_FROM, array_from
        try:
            for sums in sums_seq:
                current = (sums + [0] * domains)[:domains]
                pts._score_domains(entry, weights, current)
                seen.append(entry.table.copy())
        finally:
            pts.ARRAY_FROM = old_from
        tables.append(seen)
    assert all((a == b).all() for a, b in zip(*tables))
