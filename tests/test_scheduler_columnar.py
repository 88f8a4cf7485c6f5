"""The vectorised scheduling cycle (scheduler/snapshot.py) against a plain per-node reference built
from the plugin classes: on random clusters (taints incl. PreferNoSchedule, cordons, labels,
selectors, required and preferred node affinity, nominated pods, mixed priorities, overfull nodes)
the same feasible nodes in the same order, the same statuses and FitError text, the same next_start,
the same scores, the same chosen node for the same RNG state, and the same nodes where preemption
might help."""

from __future__ import annotations

import os

import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import make_sim

from playground.engine.objects import (
    NO_EXECUTE,
    NO_SCHEDULE,
    PREFER_NO_SCHEDULE,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PodDisruptionBudget,
    PodTemplate,
    PreferredSchedulingTerm,
    Taint,
    Toleration,
)
from playground.engine.scheduler import equivalence, fit_error_message, num_feasible_nodes_to_find
from playground.engine.scheduler.framework import ERROR, UNSCHEDULABLE, UNSCHEDULABLE_AND_UNRESOLVABLE, NodeInfo
from playground.engine.scheduler.preemption import (NO_VICTIMS, earliest_start_of_highest_priority,
                                                  filter_pods_with_pdb_violation)
from playground.engine.scheduler.snapshot import class_key, local_score
from playground.engine.scheduler.plugins import DEFAULT_FILTERS, DEFAULT_SCORES, NODE_AFFINITY
from playground.engine.workloads import pod_from_template

MI = 1024**2
GI = 1024**3
EXAMPLES = int(os.environ.get("COLUMNAR_EXAMPLES", "40"))

TAINTS = (Taint("dedicated", NO_SCHEDULE, "gpu"), Taint("dedicated", NO_SCHEDULE, "db"),
          Taint("spot", PREFER_NO_SCHEDULE, "true"), Taint("old", PREFER_NO_SCHEDULE, ""),
          Taint("maintenance", NO_EXECUTE, ""))
TOLERATIONS = (Toleration("dedicated", "Equal", "gpu", NO_SCHEDULE), Toleration("dedicated", "Exists"),
               Toleration("spot", "Exists", "", PREFER_NO_SCHEDULE), Toleration("", "Exists"),
               Toleration("node.kubernetes.io/unschedulable", "Exists", "", NO_SCHEDULE),
               Toleration("maintenance", "Exists", "", NO_EXECUTE))
REQUIRED = (
    None,
    (NodeSelectorTerm((NodeSelectorRequirement("disk", "In", ("ssd",)),)),),
    (NodeSelectorTerm((NodeSelectorRequirement("disk", "NotIn", ("hdd",)),)),
     NodeSelectorTerm((NodeSelectorRequirement("gen", "Gt", ("2",)),))),
)
PREFERRED = (
    (),
    (PreferredSchedulingTerm(10, NodeSelectorTerm((NodeSelectorRequirement("disk", "In", ("ssd",)),))),),
    (PreferredSchedulingTerm(5, NodeSelectorTerm((NodeSelectorRequirement("gen", "Exists"),))),
     PreferredSchedulingTerm(30, NodeSelectorTerm((NodeSelectorRequirement("disk", "In", ("hdd",)),)))),
)

pool = st.tuples(st.integers(1, 70),  # nodes
                 st.sampled_from(["zone-a", "zone-b", "zone-c"]),
                 st.sampled_from(["", "ssd", "hdd"]),  # disk label
                 st.sampled_from(["", "1", "3"]),  # gen label
                 st.sampled_from([("4", "8Gi"), ("2", "16Gi"), ("8", "4Gi")]),
                 st.sampled_from([110, 3]))  # pods
pod_spec = st.tuples(
    st.sampled_from([0, 100, 500, 1000, 1500, 2000, 5000]),  # millicores
    st.sampled_from([0, 256 * MI, 2 * GI, 4 * GI, 8 * GI, 20 * GI]),
    st.sampled_from([0, 10, 1000]),  # priority
    st.lists(st.sampled_from(TOLERATIONS), max_size=2, unique=True),
    st.sampled_from([{}, {"disk": "ssd"}, {"gen": "3"}]),
    st.sampled_from(REQUIRED),
    st.sampled_from(PREFERRED),
)
cluster = st.fixed_dictionaries({
    "pools": st.lists(pool, min_size=1, max_size=5),
    "percentage": st.sampled_from([0, 0, 30, 100]),
    "taints": st.lists(st.tuples(st.integers(0, 10_000), st.sampled_from(TAINTS)), max_size=40),
    "cordons": st.lists(st.integers(0, 10_000), max_size=10),
    "placed": st.lists(st.tuples(st.integers(0, 10_000), pod_spec), max_size=120),
    "nominated": st.lists(st.tuples(st.integers(0, 10_000), pod_spec), max_size=6),
    "pods": st.lists(st.tuples(pod_spec, st.integers(0, 10_000)), min_size=1, max_size=6),
    "pdbs": st.lists(st.tuples(st.integers(0, 9), st.integers(0, 3)), max_size=3),  # (app group, allowed)
    "started": st.lists(st.integers(0, 5000), max_size=120),  # start times of the placed pods
})


def build(data):
    body = [f"[scheduler]\npercentageOfNodesToScore = {data['percentage']}\n"]
    for i, (count, zone, disk, gen, (cpu, memory), pods) in enumerate(data["pools"]):
        labels = f'"topology.kubernetes.io/zone" = "{zone}"'
        labels += f', disk = "{disk}"' if disk else ""
        labels += f', gen = "{gen}"' if gen else ""
        body.append(f'[[nodePools]]\nnamePrefix = "p{i}-"\ncount = {count}\nlabels = {{ {labels} }}\n'
                    f'capacity = {{ cpu = "{cpu}", memory = "{memory}", pods = {pods} }}\n')
    sim = make_sim("".join(body))
    store = sim.store
    names = sorted(store.nodes)
    for index, taint in data["taints"]:
        store.update_taints(store.nodes[names[index % len(names)]], add=[taint])
    for index in data["cordons"]:
        store.set_unschedulable(store.nodes[names[index % len(names)]], True)
    started = data.get("started", [])
    for i, (index, spec) in enumerate(data["placed"]):
        pod = make_pod(sim, f"placed-{i}", spec)
        pod.labels["group"] = str(i % 10)
        pod.node_name = names[index % len(names)]
        if i < len(started):
            pod.start_time = started[i]
        store.add_pod(pod)
    for group, allowed in data.get("pdbs", []):
        pdb = PodDisruptionBudget(f"pdb-{group}", "default", {"group": str(group)})
        pdb.disruptions_allowed = allowed
        store.pdbs[pdb.key] = pdb
    for i, (index, spec) in enumerate(data["nominated"]):
        pod = make_pod(sim, f"nominated-{i}", spec)
        store.add_pod(pod)
        store.set_nominated_node(pod, names[index % len(names)])
    return sim, names


def make_pod(sim, name, spec):
    cpu, memory, priority, tolerations, selector, required, preferred = spec
    template = PodTemplate(labels={"app": name}, cpu=cpu, memory=memory, priority=priority,
                           tolerations=tuple(tolerations), node_selector=dict(selector),
                           required_node_affinity=required, preferred_node_affinity=preferred)
    return pod_from_template(sim, name, "default", template, None)


# ---------------------------------------------------------------- the plain reference

def plain_filters(scheduler, pod, node):
    """RunFilterPluginsWithNominatedPods with every default filter plugin, one node."""
    target = node
    extra = [p for p in scheduler.nominated.get(node.name, {}).values()
             if p.priority >= pod.priority and p.key != pod.key]
    if extra:
        target = NodeInfo(node)
        for other in extra:
            target.add_pod(other)
    for plugin in DEFAULT_FILTERS:
        status = plugin.filter(pod, target)
        if not status.ok:
            return status
    return status


def plain_find(scheduler, pod, start):
    if pod.nominated_node_name:
        node = scheduler.sim.store.nodes.get(pod.nominated_node_name)
        if node is not None and plain_filters(scheduler, pod, node).ok:
            return [node.name], {}, start
    order = scheduler.node_order()
    count = len(order)
    to_find = num_feasible_nodes_to_find(count, scheduler.config.percentage_of_nodes_to_score)
    feasible, statuses, processed = [], {}, 0
    for i in range(count):
        node = order[(start + i) % count]
        processed += 1
        status = plain_filters(scheduler, pod, node)
        if status.ok:
            feasible.append(node.name)
            if len(feasible) >= to_find:
                break
        else:
            statuses[node.name] = status
    return feasible, statuses, (start + processed) % count


def plain_scores(pod, nodes):
    totals = [0] * len(nodes)
    for plugin in DEFAULT_SCORES:
        raw = [plugin.score(pod, node) for node in nodes]
        if plugin is NODE_AFFINITY and not pod.preferred_node_affinity:
            raw = [0] * len(nodes)
        totals = [t + v * plugin.weight for t, v in zip(totals, plugin.normalize(raw))]
    return totals


def sequential_pick(candidates, now):
    """pickOneNodeForPreemption as written: keep the best of each criterion in turn."""
    remaining = list({c.node: c for c in candidates}.values())
    for func in (lambda c: -c.num_pdb_violations, lambda c: -c.victims[0].priority,
                 lambda c: -sum(v.priority + 2**31 for v in c.victims), lambda c: -len(c.victims),
                 lambda c: earliest_start_of_highest_priority(c.victims, now)):
        scores = [func(c) for c in remaining]
        remaining = [c for c, score in zip(remaining, scores) if score == max(scores)]
        if len(remaining) == 1:
            return remaining
    return remaining


def candidate_tuples(candidates):
    return [(c.node, [v.key for v in c.victims], c.num_pdb_violations) for c in candidates]


def plain_select_victims(scheduler, pod, node, pdbs, now):
    """SelectVictimsOnNode as written: remove every lower-priority pod from a NodeInfo, run every
    filter plugin (nominated pods counted), reprieve in importance order, PDB violators first."""
    potential = [p for p in scheduler.sim.store.pods_on(node.name) if not p.is_terminal() and p.priority < pod.priority]
    if not potential:
        return [], 0, (UNSCHEDULABLE_AND_UNRESOLVABLE, (NO_VICTIMS,), "DefaultPreemption")
    info = NodeInfo(node)
    for victim in potential:
        info.remove_pod(victim)
    status = plain_filters(scheduler, pod, info)
    if not status.ok:
        return [], 0, (status.code, status.reasons, status.plugin)
    potential.sort(key=lambda p: (-p.priority, p.start_time if p.start_time is not None else now))
    violating, non_violating = filter_pods_with_pdb_violation(potential, pdbs)
    victims, violations = [], 0
    for group, counts in ((violating, 1), (non_violating, 0)):
        for victim in group:
            info.add_pod(victim)
            if plain_filters(scheduler, pod, info).ok:
                continue
            info.remove_pod(victim)
            victims.append(victim)
            violations += counts
    victims.sort(key=lambda p: (-p.priority, p.start_time if p.start_time is not None else now))
    if not victims:
        return [], 0, (ERROR, (f'expected at least one victim pod on node "{node.name}"',), "DefaultPreemption")
    return victims, violations, None


def plain_dry_run(scheduler, pod, potential, pdbs, offset, num_candidates):
    """DryRunPreemption node by node on plain_select_victims: (candidate tuples, {node: status})."""
    non_violating, violating, statuses = [], [], {}
    now = scheduler.sim.now
    for i in range(len(potential)):
        node = potential[(offset + i) % len(potential)]
        victims, violations, status = plain_select_victims(scheduler, pod, node, pdbs, now)
        if victims:
            target = non_violating if violations == 0 else violating
            if len(target) < num_candidates:
                target.append((node.name, [v.key for v in victims], violations))
            if non_violating and len(non_violating) + len(violating) >= num_candidates:
                break
        else:
            statuses[node.name] = status
    return non_violating + violating, statuses


def check_preemption(sim, pod, diagnosis, potential):
    """The columnar dry run (twice: the second from the victim cache) against the node-by-node one
    on the same offset draw and against a plain dry run on the filter plugins, and the pick (the
    rank columns' and select_candidate's) against the sequential criteria."""
    preemption = sim.scheduler.preemption
    pdbs = list(sim.store.pdbs.values())
    state = first = sim.rng.getstate()
    if potential:
        offset = sim.rng.randrange(len(potential))
        num_candidates = preemption.calculate_num_candidates(len(potential))
        want, want_statuses = preemption.dry_run_preemption(pod, potential, pdbs, offset, num_candidates)
        plain, plain_statuses = plain_dry_run(sim.scheduler, pod, potential, pdbs, offset, num_candidates)
        assert candidate_tuples(want) == plain
        assert [(name, s.code, s.reasons, s.plugin) for name, s in want_statuses.items()] == \
            [(name, *status) for name, status in plain_statuses.items()]
    else:
        want, want_statuses = [], {}
    after = sim.rng.getstate()
    for _ in range(2):
        sim.rng.setstate(state)
        candidates, statuses = preemption.find_candidates(pod, diagnosis)
        assert sim.rng.getstate() == after
        assert candidate_tuples(candidates) == candidate_tuples(want)
        assert as_tuples(statuses) == as_tuples(want_statuses)
    if len(candidates) > 1:
        best = sequential_pick(want, sim.now)
        state = sim.rng.getstate()
        picked = preemption.select_candidate(candidates)
        sim.rng.setstate(state)
        expected = best[0] if len(best) == 1 else best[sim.rng.randrange(len(best))]
        assert picked.node == expected.node
        end = sim.rng.getstate()
        sim.rng.setstate(first)
        scan = preemption._columnar_scan(pod, diagnosis)
        if scan is not None:
            assert sim.scheduler.node_order()[preemption.pick_row(scan, scan.candidate_rows())].name == expected.node
            assert sim.rng.getstate() == end


def as_tuples(statuses):
    return [(name, s.code, s.reasons, s.plugin) for name, s in statuses.items()]


# ---------------------------------------------------------------- the property

@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cluster)
def test_vectorised_cycle_matches_the_plain_plugins(data):
    sim, names = build(data)
    scheduler = sim.scheduler
    for i, (spec, nominated_to) in enumerate(data["pods"]):
        pod = make_pod(sim, f"pod-{i}", spec)
        if nominated_to % 3 == 0:
            pod.nominated_node_name = names[nominated_to % len(names)]
        start = scheduler.next_start
        want_nodes, want_statuses, want_next = plain_find(scheduler, pod, start)
        nodes, diagnosis = scheduler.find_nodes_that_fit(pod)
        assert [n.name for n in nodes] == want_nodes
        assert scheduler.next_start == want_next
        num = len(sim.store.nodes)
        assert diagnosis.message(num) == fit_error_message(num, want_statuses)
        if not nodes:
            potential = scheduler.preemption.potential_nodes(diagnosis)
            order = scheduler.node_order()
            want_potential = [n for n in order
                              if n.name in want_statuses and want_statuses[n.name].code == UNSCHEDULABLE]
            assert [n.name for n in potential] == [n.name for n in want_potential]
            check_preemption(sim, pod, diagnosis, want_potential)
        # NodeToStatus.Get on the columns (the preemptor's nominated node is asked), before the
        # statuses are built
        for name in [pod.nominated_node_name, "no-such-node", *names[:3], *names[-3:]]:
            status = diagnosis.get(name)
            want = want_statuses.get(name)
            assert (status.code, status.reasons) == \
                ((want.code, want.reasons) if want is not None else (UNSCHEDULABLE_AND_UNRESOLVABLE, ()))
        assert as_tuples(diagnosis.statuses) == as_tuples(want_statuses)
        assert diagnosis.plugins == {s.plugin for s in want_statuses.values()}
        if len(nodes) > 1:
            want_scores = plain_scores(pod, nodes)
            # The columnar cycle on the same start: same rows, same scores, same pick for one RNG state.
            scheduler.next_start = start
            rows, _, placement = scheduler._find_rows(pod, scheduler.node_order())
            if not pod.nominated_node_name or [n.name for n in nodes] != [pod.nominated_node_name]:
                assert [scheduler.node_order()[r].name for r in rows] == [n.name for n in nodes]
                scores = scheduler.columns.score(pod, placement, rows)
                assert scores.tolist() == want_scores
                state = sim.rng.getstate()
                picked = scheduler.node_order()[scheduler.select_row(rows, scores)].name
                after = sim.rng.getstate()
                sim.rng.setstate(state)
                assert picked == scheduler.select_host(nodes, want_scores).name
                assert sim.rng.getstate() == after
                # The compiled cycle (where it models this one): the same node, draw and next_start.
                sim.rng.setstate(state)
                scheduler.next_start = start
                row = equivalence.place_one(scheduler, pod, scheduler.node_order())
                if row is not None:
                    assert scheduler.node_order()[row].name == picked
                    assert (sim.rng.getstate(), scheduler.next_start) == (after, want_next)
                sim.rng.setstate(after)
            scheduler.next_start = want_next
        # Bind to the first feasible node so the next pod sees changed requests.
        if nodes:
            sim.store.add_pod(pod)
            sim.store.bind_pod(pod, nodes[0].name)


def test_columns_follow_binds_deletes_taints_cordons_and_new_nodes():
    data = {"pools": [(30, "zone-a", "ssd", "", ("4", "8Gi"), 110), (30, "zone-b", "", "3", ("2", "16Gi"), 110)],
            "percentage": 0, "taints": [], "cordons": [], "placed": [], "nominated": [], "pods": []}
    sim, names = build(data)
    scheduler = sim.scheduler
    spec = (1500, 2 * GI, 0, [], {}, None, PREFERRED[1])
    pods = []
    for i in range(40):
        pod = make_pod(sim, f"p-{i}", spec)
        sim.store.add_pod(pod)
        nodes, _ = scheduler.find_nodes_that_fit(pod)
        sim.store.bind_pod(pod, nodes[0].name)
        pods.append(pod)
    sim.store.remove_pod(pods[3])
    sim.store.update_taints(sim.store.nodes[names[5]], add=[TAINTS[0], TAINTS[2]])
    sim.store.set_unschedulable(sim.store.nodes[names[7]], True)
    sim.register_node(names[9])  # a node object re-created under the same name
    sim.store.update_taints(sim.store.nodes[names[5]], remove=[TAINTS[0]])
    for i in range(10):
        pod = make_pod(sim, f"q-{i}", spec)
        start = scheduler.next_start
        want, want_statuses, want_next = plain_find(scheduler, pod, start)
        nodes, diagnosis = scheduler.find_nodes_that_fit(pod)
        assert [n.name for n in nodes] == want and scheduler.next_start == want_next
        assert as_tuples(diagnosis.statuses) == as_tuples(want_statuses)
        columns = scheduler.columns
        for row, node in enumerate(scheduler.node_order()):
            assert (int(columns.req_cpu[row]), int(columns.nz_memory[row]), int(columns.pod_count[row])) == \
                (node.requested_cpu, node.nonzero_memory, node.pod_count)
        if nodes:
            assert plain_scores(pod, nodes) == scheduler.score(pod, nodes)
            sim.store.add_pod(pod)
            sim.store.bind_pod(pod, nodes[-1].name)


def test_statuses_of_a_failed_cycle_are_kept_when_requests_change_later():
    data = {"pools": [(5, "zone-a", "", "", ("2", "16Gi"), 110)], "percentage": 0, "taints": [], "cordons": [],
            "placed": [], "nominated": [], "pods": []}
    sim, names = build(data)
    pod = make_pod(sim, "big", (1500, 0, 0, [], {}, None, ()))
    for i, name in enumerate(names):
        filler = make_pod(sim, f"f-{i}", (1000, 0, 0, [], {}, None, ()))
        filler.node_name = name
        sim.store.add_pod(filler)
    _, diagnosis = sim.scheduler.find_nodes_that_fit(pod)
    for filler in list(sim.store.pods.values()):
        sim.store.remove_pod(filler)
    assert {name: s.reasons for name, s in diagnosis.statuses.items()} == {n: ("Insufficient cpu",) for n in names}
    assert diagnosis.message(5) == "0/5 nodes are available: 5 Insufficient cpu."


def test_score_boundaries_exact_fill_and_exact_fractions():
    """LeastAllocated at requested == allocatable, BalancedAllocation at a fraction difference of
    exactly 0.5 (75.0: truncation must not fall to 74) and with memory capped at 1."""
    data = {"pools": [(4, "zone-a", "", "", ("2", "16Gi"), 110)], "percentage": 0, "taints": [], "cordons": [],
            "placed": [], "nominated": [], "pods": []}
    sim, names = build(data)
    for i, (cpu, memory) in enumerate([(1000, 0), (500, 8 * GI), (0, 16 * GI), (1900, 4 * GI)]):
        filler = make_pod(sim, f"f-{i}", (cpu, memory, 0, [], {}, None, ()))
        filler.node_name = names[i]
        sim.store.add_pod(filler)
    scheduler = sim.scheduler
    for spec in [(1000, 0, 0, [], {}, None, ()), (0, 8 * GI, 0, [], {}, None, ()), (100, 1, 0, [], {}, None, ()),
                 (0, 0, 0, [], {}, None, ()), (1000, 16 * GI, 0, [], {}, None, ()), (0, 16 * GI, 0, [], {}, None, ())]:
        pod = make_pod(sim, "p", spec)
        order = scheduler.node_order()
        rows = np.arange(len(order))
        columns = scheduler.columns
        columns.sync(order, scheduler.filters)
        placement = columns.placement(pod, columns.pod_class(pod, scheduler.filters))
        assert columns.score(pod, placement, rows).tolist() == plain_scores(pod, order)
        assert columns.local_scores(pod, rows).tolist() == [local_score(pod, node) for node in order]
    # cpu (1000 + 0) / 2000 = 0.5, memory 16Gi / 16Gi = 1: balanced 75; LeastAllocated cpu 45, memory 0.
    pod = make_pod(sim, "half", (0, 16 * GI, 0, [], {}, None, ()))
    assert plain_scores(pod, [sim.store.nodes[names[0]]]) == [300 + 45 // 2 + 75]


preemptor = st.tuples(st.sampled_from([1000, 2000, 3000]), st.sampled_from([50, 1000]),
                      st.lists(st.sampled_from(TOLERATIONS), max_size=1), st.booleans())  # remove victims at once


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(pool, min_size=1, max_size=5), st.integers(0, 2**32), st.lists(preemptor, min_size=1, max_size=8),
       st.lists(st.tuples(st.integers(0, 3), st.integers(0, 1)), max_size=3),
       st.lists(st.tuples(st.integers(0, 10_000), st.sampled_from(TAINTS)), max_size=10),
       st.sampled_from([100, 1, 2, 5]))
def test_columnar_preemption_matches_node_by_node(pools, seed, preemptors, pdbs, taints, min_candidates):
    """Full nodes of lower-priority pods (random requests, priorities, start times, PDB groups),
    preemptors that fit nowhere: the same candidates, victims, statuses and pick as the node-by-node
    dry run, while earlier preemptions nominate nodes and delete or remove victims (the victim cache
    must follow). A small minCandidateNodesAbsolute makes the dry run stop early."""
    import random

    data = {"pools": pools, "percentage": 0, "taints": taints, "cordons": [], "placed": [], "nominated": [],
            "pods": [], "pdbs": pdbs}
    sim, names = build(data)
    rng = random.Random(seed)
    store = sim.store
    for n, name in enumerate(names):
        node = store.nodes[name]
        for j in range(rng.randint(1, 4)):
            spec = (rng.choice([500, 1000, 1500]), 0, rng.choice([0, 10, 100]), [], {}, None, ())
            pod = make_pod(sim, f"low-{n}-{j}", spec)
            pod.labels["group"] = str(rng.randint(0, 3))
            pod.start_time = rng.choice([None, 0, 1000, 2000])
            pod.node_name = name
            if node.requested_cpu + pod.cpu <= node.allocatable_cpu:
                store.add_pod(pod)
    scheduler = sim.scheduler
    scheduler.config.min_candidate_nodes_absolute = min_candidates
    for i, (cpu, priority, tolerations, remove) in enumerate(preemptors):
        pod = make_pod(sim, f"high-{i}", (cpu, 0, priority, tolerations, {}, None, ()))
        store.add_pod(pod)
        start = scheduler.next_start
        want_nodes, want_statuses, _ = plain_find(scheduler, pod, start)
        nodes, diagnosis = scheduler.find_nodes_that_fit(pod)
        assert [n.name for n in nodes] == want_nodes
        if nodes:
            store.bind_pod(pod, nodes[0].name)
            continue
        order = scheduler.node_order()
        potential = [n for n in order if n.name in want_statuses and want_statuses[n.name].code == UNSCHEDULABLE]
        check_preemption(sim, pod, diagnosis, potential)
        nominate, _ = scheduler.preemption.post_filter(pod, diagnosis)
        # the failed cycle's reasons (NodeResourcesFit's keys kept across cycles) as the plugins give
        # them; asked for last, as the UI does (per-node statuses built on first use)
        num = len(store.nodes)
        assert diagnosis.message(num) == fit_error_message(num, want_statuses)
        assert diagnosis.plugins == {s.plugin for s in want_statuses.values()}
        assert as_tuples(diagnosis.statuses) == as_tuples(want_statuses)
        if nominate:
            store.set_nominated_node(pod, nominate)
            if remove:
                for victim in [p for p in store.pods_on(nominate) if p.deletion_timestamp is not None]:
                    store.remove_pod(victim)


def test_a_class_is_re_evaluated_after_its_first_pod_was_bound():
    """The rows of a pod class are recomputed when a node's taints change; the first pod of the class
    may be bound by then (regression: its spec.nodeName made NodeName reject every other node)."""
    data = {"pools": [(4, "zone-a", "", "", ("4", "8Gi"), 110)], "percentage": 0, "taints": [], "cordons": [],
            "placed": [], "nominated": [], "pods": []}
    sim, names = build(data)
    spec = (100, 0, 0, [], {}, None, ())
    first = make_pod(sim, "first", spec)
    sim.store.add_pod(first)
    nodes, _ = sim.scheduler.find_nodes_that_fit(first)
    sim.store.bind_pod(first, nodes[0].name)
    sim.store.update_taints(sim.store.nodes[names[2]], add=[TAINTS[0]])
    second = make_pod(sim, "second", spec)
    _, diagnosis = sim.scheduler.find_nodes_that_fit(second)
    want = plain_find(sim.scheduler, second, 0)[1]
    assert as_tuples(diagnosis.statuses) == as_tuples(want)
    assert [s.reasons for s in diagnosis.statuses.values()] == [("node(s) had untolerated taint {dedicated: gpu}",)]


def test_dry_run_stopping_point_past_the_first_window():
    """Sparse candidates (most nodes hold only pods of the preemptor's priority): the dry run's
    stopping point, or no stopping point at all, lies past the window of the scan order the columnar
    dry run looks at first; candidates, statuses and pick stay the node-by-node ones."""
    for spacing, percentage, absolute in [(90, 0, 1), (40, 0, 3), (37, 10, 1), (7, 0, 40), (150, 10, 100)]:
        data = {"pools": [(150, "zone-a", "", "", ("2", "16Gi"), 110), (150, "zone-b", "", "", ("2", "16Gi"), 110)],
                "percentage": 0, "taints": [], "cordons": [], "placed": [], "nominated": [], "pods": []}
        sim, names = build(data)
        store, scheduler = sim.store, sim.scheduler
        scheduler.config.min_candidate_nodes_percentage = percentage
        scheduler.config.min_candidate_nodes_absolute = absolute
        for i, name in enumerate(names):
            filler = make_pod(sim, f"f-{i}", (2000, 0, 0 if i % spacing == 0 else 1000, [], {}, None, ()))
            filler.node_name = name
            store.add_pod(filler)
        for j in range(4):
            pod = make_pod(sim, f"high-{j}", (1000, 0, 1000, [], {}, None, ()))
            store.add_pod(pod)
            want_nodes, want_statuses, _ = plain_find(scheduler, pod, scheduler.next_start)
            nodes, diagnosis = scheduler.find_nodes_that_fit(pod)
            assert nodes == [] and want_nodes == []
            order = scheduler.node_order()
            potential = [n for n in order if want_statuses[n.name].code == UNSCHEDULABLE]
            check_preemption(sim, pod, diagnosis, potential)
            nominate, _ = scheduler.preemption.post_filter(pod, diagnosis)
            assert nominate
            store.set_nominated_node(pod, nominate)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.sampled_from(["", "zone-a"]), st.sampled_from(["", "n-0"]),
                          st.booleans()), min_size=1, max_size=30))
def test_the_kept_last_class_is_the_class_of_the_pods_key(pods):
    """pod_class keeps the last class of a pod whose key is only its tolerations, by the identity of
    its tolerations tuple: on a run of pods of a few templates (shared tuples, equal copies, the
    empty tuple, node selectors, bound pods) every pod gets the class its key gives."""
    from playground.engine.objects import Pod

    sim = make_sim("""
[[nodePools]]
namePrefix = "n-"
count = 3
labels = { "topology.kubernetes.io/zone" = "zone-a" }
capacity = { cpu = "4", memory = "8Gi" }
""")
    scheduler = sim.scheduler
    columns = scheduler.columns
    columns.sync(scheduler.node_order(), scheduler.filters)
    shared = [(), TOLERATIONS[:1], TOLERATIONS[1:2], TOLERATIONS[:2]]
    for i, (which, zone, node_name, copy) in enumerate(pods):
        tolerations = tuple(list(shared[which])) if copy and shared[which] else shared[which]
        pod = Pod(name=f"p{i}", namespace="default", uid=f"u{i}", labels={}, creation_time=0,
                  tolerations=tolerations, node_selector={"topology.kubernetes.io/zone": zone} if zone else {},
                  node_name=node_name)
        got = columns.pod_class(pod, scheduler.filters)
        assert got is columns.classes[class_key(pod)]
