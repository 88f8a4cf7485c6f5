"""PodTopologySpread and InterPodAffinity in the scheduling cycle: what one cycle of one pod needs
of them (constraints, PreFilter states, the vectorised filter verdicts and scores), their place
after NodeResourcesFit in the default profile's filter order, and their queueing hints.

`Topology.cycle(pod)` is fresh per scheduling attempt, as kube-scheduler's CycleState. The
PreFilter states the per-node filters read (nominated pods, preemption's dry runs) are built from
the same node columns and counts as the vectorised verdicts; `podtopologyspread.prefilter_reference`
and `interpodaffinity.prefilter_reference` build them from the pods themselves (the tests compare).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..objects import Node, Pod
from . import interpodaffinity as ipa
from . import podtopologyspread as pts
from .framework import ASSIGNED_POD_ADD, ASSIGNED_POD_DELETE, NODE_ADD, NODE_TAINT_UPDATE, OK, ClusterEvent, NodeInfo, Status
from .podcounts import PodCounts

if TYPE_CHECKING:
    from ..simulation import Simulation

SPREAD_TABLE = (OK, pts.LABEL_STATUS, pts.SKEW_STATUS)
AFFINITY_TABLE = (OK, ipa.AFFINITY_STATUS, ipa.ANTI_AFFINITY_STATUS, ipa.EXISTING_ANTI_AFFINITY_STATUS)


class Cycle:
    """One attempt of one pod."""

    __slots__ = ("topology", "pod", "filter_constraints", "affinity_active", "_score_constraints",
                 "_spread_state", "_affinity_state", "_affinity_verdict", "_verdict", "filters")

    def __init__(self, topology: "Topology", pod: Pod) -> None:
        self.topology = topology
        self.pod = pod
        self.filter_constraints = topology.constraints(pod, pts.DO_NOT_SCHEDULE)
        self.affinity_active = ipa.active(pod, topology.counts)
        self._score_constraints = None
        self._spread_state = None
        self._affinity_state = None
        self._affinity_verdict: np.ndarray | None | bool = False
        self._verdict: tuple[np.ndarray, list[Status]] | None = None
        # Whether either plugin may reject a node for this pod (PreFilter did not Skip).
        self.filters = bool(self.filter_constraints) or (self.affinity_active and self.affinity_verdict() is not None)

    @property
    def score_constraints(self):
        if self._score_constraints is None:
            self._score_constraints = self.topology.constraints(self.pod, pts.SCHEDULE_ANYWAY)
        return self._score_constraints

    @property
    def scores(self) -> bool:
        return bool(self.score_constraints) or self.affinity_active

    # ---------------------------------------------------------------- vectorised

    def affinity_verdict(self) -> np.ndarray | None:
        if self._affinity_verdict is False:
            t = self.topology
            t.columns.sync(t.order(), t.filters())
            self._affinity_verdict = ipa.filter_columns(t.columns, t.counts, self.pod, t.sim.store.nodes) \
                if self.affinity_active else None
        return self._affinity_verdict

    def verdict(self) -> tuple[np.ndarray, list[Status]]:
        """Per row: an index into the returned table (0 passes): PodTopologySpread first, then
        InterPodAffinity, as the default profile orders them. Computed once an attempt (the compiled
        cycle of one pod and the numpy one both read it; nothing changes between them)."""
        if self._verdict is None:
            self._verdict = self._compute_verdict()
        return self._verdict

    def _compute_verdict(self) -> tuple[np.ndarray, list[Status]]:
        t = self.topology
        n = len(t.columns.nodes)
        ids = np.zeros(n, dtype=np.int64)
        table: list[Status] = [OK]
        if self.filter_constraints:
            spread = pts.filter_columns(t.columns, t.counts, self.pod, self.filter_constraints)
            table.extend(SPREAD_TABLE[1:])
            ids = spread.astype(np.int64)
        affinity = self.affinity_verdict() if self.affinity_active else None
        if affinity is not None:
            base = len(table) - 1
            table.extend(AFFINITY_TABLE[1:])
            undecided = (ids == 0) & (affinity > 0)
            ids[undecided] = affinity[undecided].astype(np.int64) + base
        return ids, table

    def score(self, rows: np.ndarray) -> np.ndarray:
        """PodTopologySpread and InterPodAffinity, normalized and weighted, on `rows`."""
        t = self.topology
        total = None
        constraints = self.score_constraints
        if constraints:
            require_all = bool(self.pod.topology_spread_constraints)  # or the defaults were not System
            total = pts.score_columns(t.columns, t.counts, self.pod, constraints, require_all, rows, pts.WEIGHT)
        if self.affinity_active:
            affinity = ipa.WEIGHT * ipa.score_columns(t.columns, t.counts, self.pod, t.sim.store.nodes, rows)
            total = affinity if total is None else total + affinity
        return total if total is not None else np.zeros(len(rows), dtype=np.int64)

    # ---------------------------------------------------------------- per node (PreFilter states)

    def states(self) -> tuple["pts.SpreadState | None", "ipa.AffinityState | None"]:
        t = self.topology
        if self._spread_state is None and self.filter_constraints:
            t.columns.sync(t.order(), t.filters())
            self._spread_state = spread_state(t.columns, t.counts, self.pod, self.filter_constraints)
        if self._affinity_state is None and self.affinity_active and self.affinity_verdict() is not None:
            self._affinity_state = affinity_state(t.columns, t.counts, self.pod, t.sim.store.nodes)
        return self._spread_state, self._affinity_state

    def filter(self, target: Node | NodeInfo, added: list[Pod] = ()) -> Status:
        """Both filters on one node, with `added` (nominated pods) and the NodeInfo's removed and
        added pods applied to copies of the PreFilter states (AddPod / RemovePod)."""
        if not self.filters:
            return OK
        spread, affinity = self.states()
        node = target.node if isinstance(target, NodeInfo) else target
        removed: list[Pod] = []
        extra = list(added)
        if isinstance(target, NodeInfo):
            pods = self.topology.sim.store.pods
            removed = [pods[key] for key in target.removed if key in pods]
            extra.extend(target.added)
        if removed or extra:
            spread = spread.copy() if spread is not None else None
            affinity = affinity.copy() if affinity is not None else None
            for other, delta in [(p, -1) for p in removed] + [(p, 1) for p in extra]:
                if spread is not None:
                    spread.update(other, self.pod, node, delta)
                if affinity is not None:
                    affinity.update(other, node, delta)
        if spread is not None:
            status = pts.filter_reference(self.pod, spread, node)
            if not status.ok:
                return status
        if affinity is not None:
            return ipa.filter_reference(affinity, node)
        return OK

    def score_nodes(self, nodes: list[Node]) -> list[int]:
        """score() for a list of nodes (the one-by-one search), by the reference functions."""
        t = self.topology
        store = t.sim.store
        totals = [0] * len(nodes)
        constraints = self.score_constraints
        if constraints:
            require_all = bool(self.pod.topology_spread_constraints)
            scores = pts.score_reference(self.pod, constraints, require_all, nodes, store.nodes.values(), store.pods_on)
            totals = [a + pts.WEIGHT * b for a, b in zip(totals, scores)]
        if self.affinity_active:
            scores = ipa.score_reference(self.pod, nodes, store.nodes.values(), store.pods_on)
            totals = [a + ipa.WEIGHT * b for a, b in zip(totals, scores)]
        return totals


def spread_state(columns, counts, pod: Pod, constraints) -> pts.SpreadState:
    """The PreFilter state from the columns."""
    present_all = pts.keys_present(columns, constraints)
    out = []
    for c in constraints:
        ids, _has, count_values = columns.domains(c.topology_key)
        values = [None] * count_values
        for value, vid in columns._domains[c.topology_key][3].items():
            values[vid] = value
        eligible = pts.eligible_rows(columns, pod, c, present_all)
        live = counts.counts(c.matcher).live
        sums = np.bincount(ids[eligible], weights=live[eligible], minlength=count_values).astype(np.int64)
        present = np.bincount(ids[eligible], minlength=count_values) > 0
        out.append({values[v]: int(sums[v]) for v in np.flatnonzero(present).tolist()})
    return pts.SpreadState(constraints, out)


def affinity_state(columns, counts, pod: Pod, nodes_by_name) -> ipa.AffinityState:
    state = ipa.AffinityState(pod)
    state.existing_anti = ipa.existing_anti_counts(pod, counts, nodes_by_name)
    for terms, target, conjunction in ((state.affinity_terms, state.affinity, True), (state.anti_terms, state.anti, False)):
        if not terms:
            continue
        both = None
        if conjunction:
            both = ipa.PodMatcher(frozenset.intersection(*(t.matcher.namespaces for t in terms)),
                                  tuple(s for t in terms for s in t.matcher.selectors))
        for term in terms:
            ids, has, count_values = columns.domains(term.topology_key)
            per_row = counts.counts(both or term.matcher).all
            sums = np.bincount(ids[has], weights=per_row[has], minlength=count_values).astype(np.int64)
            for value, vid in columns._domains[term.topology_key][3].items():
                if sums[vid]:
                    pair = (term.topology_key, value)
                    target[pair] = target.get(pair, 0) + int(sums[vid])
    return state


class Topology:
    """The two plugins' part of the scheduler: counts, constraints, cycles and queueing hints."""

    def __init__(self, sim: "Simulation", columns, order, filters) -> None:
        self.sim = sim
        self.columns = columns
        self.order = order  # Scheduler.node_order
        self.filters = filters  # () -> the scheduler's filter list
        self.counts = PodCounts(sim.store, columns)
        self._constraints: dict[tuple, tuple] = {}
        self.rejected = False  # some pod was rejected by one of the two plugins: watch pod adds

    def constraints(self, pod: Pod, action: str) -> tuple:
        if not pod.topology_spread_constraints and (action != pts.SCHEDULE_ANYWAY or pod.owner is None):
            return ()
        owner = (pod.owner.kind, pod.owner.name) if pod.owner is not None else None
        key = (action, pod.namespace, id(pod.labels), owner, pod.topology_spread_constraints)
        entry = self._constraints.get(key)
        if entry is None or entry[0] is not pod.labels:
            if len(self._constraints) >= 4096:
                self._constraints.clear()
            result = pts.pod_constraints(pod, action, lambda p: pts.default_selector(self.sim, p))
            entry = self._constraints[key] = (pod.labels, result)
        return entry[1]

    def cycle(self, pod: Pod) -> Cycle:
        return Cycle(self, pod)

    # ---------------------------------------------------------------- queueing hints

    def hint(self, plugin: str, pod: Pod, event: ClusterEvent) -> bool:
        if event.kind == NODE_ADD:
            return True
        other = event.pod
        if plugin == pts.NAME:
            if event.kind == NODE_TAINT_UPDATE:
                return any(c.honor_taints for c in self.constraints(pod, pts.DO_NOT_SCHEDULE))
            return other is not None and any(c.matcher.matches(other)
                                             for c in self.constraints(pod, pts.DO_NOT_SCHEDULE))
        if other is None:
            return False
        affinity, anti = ipa.required_terms(pod)
        if event.kind == ASSIGNED_POD_ADD:
            return any(t.matcher.matches(other) for t in affinity)
        return any(t.matcher.matches(other) for t in anti) or any(
            ipa.term_of(other, t).matcher.matches(pod) for t in other.required_pod_anti_affinity)


HINT_EVENTS = {
    pts.NAME: frozenset({NODE_ADD, NODE_TAINT_UPDATE, ASSIGNED_POD_ADD, ASSIGNED_POD_DELETE}),
    ipa.NAME: frozenset({NODE_ADD, ASSIGNED_POD_ADD, ASSIGNED_POD_DELETE}),
}
