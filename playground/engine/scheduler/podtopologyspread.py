"""PodTopologySpread (pkg/scheduler/framework/plugins/podtopologyspread: common.go, filtering.go,
scoring.go, plugin.go).

Constraints: the pod's own `topologySpreadConstraints` of the action asked (DoNotSchedule for
Filter, ScheduleAnyway for Score), their selector ANDed with the pod's values of `matchLabelKeys`;
a pod with none gets the system defaults (`defaultingType: System`: hostname maxSkew 3 and zone
maxSkew 5, both ScheduleAnyway) with DefaultSelector's selector: its owning ReplicaSet's or
StatefulSet's selector (a Deployment's ReplicaSet selects its template labels plus
pod-template-hash). Services (whose selectors DefaultSelector also merges) are not modelled.

Filter (PreFilter state, per constraint): each eligible node (all the constraints' topology keys
present; nodeAffinityPolicy Honor: it matches the pod's nodeSelector and required node affinity;
nodeTaintsPolicy Honor: the pod tolerates its NoSchedule/NoExecute taints) adds its matching pods
(same namespace, not being deleted, not finished) to its domain; a node passes when
`matching in its domain + self-match - global minimum <= maxSkew` for every constraint, the minimum
taken as 0 while fewer than minDomains domains are eligible. A node without a topology key is
UnschedulableAndUnresolvable ("... (missing required label)"); a skew too large is Unschedulable,
so preemption may remove matching pods to fix it (AddPod / RemovePod update the state).

Score: per node Σ over constraints whose key the node has of `count * log(domains + 2) + maxSkew - 1`
(hostname: the node's own count and the number of scored nodes), rounded, then normalized as
`100 * (max + min - score) / max` (fewer matching pods score higher); nodes missing a key of the
pod's own constraints are ignored (0). Weight 2.

The per-node functions (`*_reference`) are the plain reference; the scheduler runs the same rules as
vector operations over its node columns (`filter_columns`, `score_columns`), compared in
tests/test_topologyspread_properties.py. kube-scheduler keeps only the two smallest domains per
constraint (criticalPaths) in its state; we keep the exact minimum, which is what those two hold
as long as only one node's pods change, as in one preemption dry run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable

import numpy as np

from ..objects import HOSTNAME_LABEL, ZONE_LABEL, LabelSelector, Node, Pod
from .framework import MAX_NODE_SCORE, OK, UNSCHEDULABLE, UNSCHEDULABLE_AND_UNRESOLVABLE, Status
from .plugins import NODE_AFFINITY, untolerated_taint
from .podcounts import PodMatcher

if TYPE_CHECKING:
    from ..simulation import Simulation

NAME = "PodTopologySpread"
WEIGHT = 2
DO_NOT_SCHEDULE = "DoNotSchedule"
SCHEDULE_ANYWAY = "ScheduleAnyway"
ERR_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
ERR_NODE_LABEL_NOT_MATCH = ERR_CONSTRAINTS_NOT_MATCH + " (missing required label)"
MAX_INT32 = 2**31 - 1
# pkg/scheduler/apis/config/v1/defaults.go: systemDefaultConstraints (key, maxSkew), ScheduleAnyway
SYSTEM_DEFAULT_CONSTRAINTS = ((HOSTNAME_LABEL, 3), (ZONE_LABEL, 5))

LABEL_STATUS = Status(UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_NODE_LABEL_NOT_MATCH,), NAME)
SKEW_STATUS = Status(UNSCHEDULABLE, (ERR_CONSTRAINTS_NOT_MATCH,), NAME)


@dataclass(slots=True, frozen=True)
class Constraint:
    """topologySpreadConstraint: a constraint with its selector parsed (and merged)."""

    max_skew: int
    topology_key: str
    matcher: PodMatcher
    min_domains: int = 1
    honor_affinity: bool = True
    honor_taints: bool = False


def default_selector(sim: "Simulation", pod: Pod) -> LabelSelector | None:
    """helper.DefaultSelector without Services: the controlling ReplicaSet's or StatefulSet's
    selector (None when the pod has no such owner or the selector is empty)."""
    owner = pod.owner
    if owner is None:
        return None
    labels = None
    if owner.kind == "ReplicaSet":
        rs = sim.workloads.replicasets.get(owner.name)
        labels = rs.template.labels if rs is not None else None
    elif owner.kind == "StatefulSet":
        sts = sim.store.statefulsets.get(f"{pod.namespace}/{owner.name}")
        labels = sts.template.labels if sts is not None else None
    if not labels:
        return None
    return LabelSelector(tuple(sorted(labels.items())))


def pod_constraints(pod: Pod, action: str, defaults: Callable[[Pod], LabelSelector | None] | None
                    ) -> tuple[Constraint, ...]:
    """getConstraints / filterTopologySpreadConstraints / buildDefaultConstraints."""
    namespaces = frozenset((pod.namespace,))
    if pod.topology_spread_constraints:
        out = []
        for c in pod.topology_spread_constraints:
            if c.when_unsatisfiable != action:
                continue
            selector = c.selector
            if selector is not None and c.match_label_keys:
                extra = tuple((k, pod.labels[k]) for k in c.match_label_keys if k in pod.labels)
                if extra:
                    selector = LabelSelector(extra + selector.match_labels, selector.match_expressions)
            out.append(Constraint(c.max_skew, c.topology_key, PodMatcher(namespaces, (selector,)), c.min_domains,
                                  c.node_affinity_policy == "Honor", c.node_taints_policy == "Honor"))
        return tuple(out)
    if action != SCHEDULE_ANYWAY or defaults is None:
        return ()
    selector = defaults(pod)
    if selector is None:
        return ()
    matcher = PodMatcher(namespaces, (selector,))
    return tuple(Constraint(skew, key, matcher) for key, skew in SYSTEM_DEFAULT_CONSTRAINTS)


def all_keys(labels: dict[str, str], constraints: Iterable[Constraint]) -> bool:
    """nodeLabelsMatchSpreadConstraints."""
    return all(c.topology_key in labels for c in constraints)


def node_included(c: Constraint, pod: Pod, node: Node) -> bool:
    """matchNodeInclusionPolicies."""
    if c.honor_affinity and not NODE_AFFINITY.filter(pod, node).ok:
        return False
    if c.honor_taints and untolerated_taint(node.taints, pod.tolerations) is not None:
        return False
    return True


def count_matching(pods: Iterable[Pod], matcher: PodMatcher) -> int:
    """countPodsMatchSelector: terminating pods are skipped (finished ones hold no place)."""
    return sum(1 for p in pods if p.deletion_timestamp is None and not p.is_terminal() and matcher.matches(p))


# ---------------------------------------------------------------- reference (per node)

class SpreadState:
    """preFilterState: per constraint, matching pods per eligible domain."""

    __slots__ = ("constraints", "counts")

    def __init__(self, constraints: tuple[Constraint, ...], counts: list[dict[str, int]]) -> None:
        self.constraints = constraints
        self.counts = counts

    def copy(self) -> "SpreadState":
        return SpreadState(self.constraints, [dict(c) for c in self.counts])

    def min_match(self, i: int) -> int:
        counts = self.counts[i]
        if len(counts) < self.constraints[i].min_domains:
            return 0
        return min(counts.values()) if counts else MAX_INT32

    def update(self, updated: Pod, preemptor: Pod, node: Node, delta: int) -> None:
        """updateWithPod (AddPod / RemovePod)."""
        if updated.namespace != preemptor.namespace or not all_keys(node.labels, self.constraints):
            return
        for i, c in enumerate(self.constraints):
            if not c.matcher.matches(updated) or not node_included(c, preemptor, node):
                continue
            value = node.labels[c.topology_key]
            self.counts[i][value] = self.counts[i].get(value, 0) + delta


def prefilter_reference(pod: Pod, constraints: tuple[Constraint, ...], nodes: Iterable[Node],
                        pods_on: Callable[[str], list[Pod]]) -> SpreadState:
    counts: list[dict[str, int]] = [{} for _ in constraints]
    for node in nodes:
        if not all_keys(node.labels, constraints):
            continue
        for i, c in enumerate(constraints):
            if not node_included(c, pod, node):
                continue
            value = node.labels[c.topology_key]
            counts[i][value] = counts[i].get(value, 0) + count_matching(pods_on(node.name), c.matcher)
    return SpreadState(constraints, counts)


def filter_reference(pod: Pod, state: SpreadState, node: Node) -> Status:
    for i, c in enumerate(state.constraints):
        value = node.labels.get(c.topology_key)
        if value is None:
            return LABEL_STATUS
        self_match = 1 if c.matcher.matches(pod) else 0
        if state.counts[i].get(value, 0) + self_match - state.min_match(i) > c.max_skew:
            return SKEW_STATUS
    return OK


def go_round(x: float) -> int:
    """math.Round for x >= 0: halves away from zero."""
    whole = math.floor(x)
    return int(whole) + (1 if x - whole >= 0.5 else 0)


def go_round_array(x: np.ndarray) -> np.ndarray:
    """go_round of every value of `x` (>= 0, float64), as floats: the same floor, subtraction and
    comparison, element by element."""
    whole = np.floor(x)
    whole += (x - whole) >= 0.5
    return whole


def normalize(scores: list[int], ignored: list[bool]) -> list[int]:
    """NormalizeScore."""
    valid = [s for s, skip in zip(scores, ignored) if not skip]
    if not valid:
        return [0] * len(scores)
    low, high = min(valid), max(valid)
    out = []
    for s, skip in zip(scores, ignored):
        if skip:
            out.append(0)
        elif high == 0:
            out.append(MAX_NODE_SCORE)
        else:
            out.append(MAX_NODE_SCORE * (high + low - s) // high)
    return out


def score_reference(pod: Pod, constraints: tuple[Constraint, ...], require_all: bool, filtered: list[Node],
                    all_nodes: Iterable[Node], pods_on: Callable[[str], list[Pod]]) -> list[int]:
    """PreScore + Score + NormalizeScore on `filtered` (not yet multiplied by the weight)."""
    if not constraints or not filtered:
        return [0] * len(filtered)
    ignored = [require_all and not all_keys(n.labels, constraints) for n in filtered]
    domains: list[dict[str, int]] = [{} for _ in constraints]
    for node, skip in zip(filtered, ignored):
        if skip:
            continue
        for i, c in enumerate(constraints):
            if c.topology_key != HOSTNAME_LABEL:
                domains[i].setdefault(node.labels.get(c.topology_key, ""), 0)
    weights = []
    for i, c in enumerate(constraints):
        size = len(domains[i]) if c.topology_key != HOSTNAME_LABEL else len(filtered) - sum(ignored)
        weights.append(math.log(size + 2))
    for node in all_nodes:
        if require_all and not all_keys(node.labels, constraints):
            continue
        for i, c in enumerate(constraints):
            if c.topology_key == HOSTNAME_LABEL or not node_included(c, pod, node):
                continue
            value = node.labels.get(c.topology_key, "")
            if value in domains[i]:
                domains[i][value] += count_matching(pods_on(node.name), c.matcher)
    raw = []
    for node, skip in zip(filtered, ignored):
        if skip:
            raw.append(0)
            continue
        score = 0.0
        for i, c in enumerate(constraints):
            value = node.labels.get(c.topology_key)
            if value is None:
                continue
            if c.topology_key == HOSTNAME_LABEL:
                count = count_matching(pods_on(node.name), c.matcher)
            else:
                count = domains[i][value]
            score += count * weights[i] + (c.max_skew - 1)
        raw.append(go_round(score))
    return normalize(raw, ignored)


# ---------------------------------------------------------------- on the node columns

def selects_nodes(pod: Pod) -> bool:
    """The pod has a nodeSelector or required node affinity (what nodeAffinityPolicy Honor reads)."""
    return bool(pod.node_selector) or pod.required_node_affinity is not None or pod.affinity_node_name is not None


def eligible_rows(columns, pod: Pod, c: Constraint, keys_present: np.ndarray) -> np.ndarray:
    mask = keys_present
    if c.honor_affinity:
        mask = mask & columns.node_affinity_ok(pod)
    if c.honor_taints:
        mask = mask & columns.tolerated(pod)
    return mask


def keys_present(columns, constraints: tuple[Constraint, ...]) -> np.ndarray:
    mask = np.ones(len(columns.nodes), dtype=bool)
    for c in constraints:
        mask = mask & columns.domains(c.topology_key)[1]
    return mask


def filter_columns(columns, counts, pod: Pod, constraints: tuple[Constraint, ...]) -> np.ndarray:
    """Filter on every row: 0 passes, 1 missing label (LABEL_STATUS), 2 skew (SKEW_STATUS)."""
    n = len(columns.nodes)
    verdict = np.zeros(n, dtype=np.int8)
    if n and every_row_counts(columns, pod, constraints):
        # Every row has every key and counts for every constraint: a domain's matching pods are the
        # sums kept with the counts (PodCounts.domain_live), every domain is present, and a row
        # fails where its domain's skew would pass maxSkew: one gather over the rows a constraint.
        for c in constraints:
            sums = counts.domain_live(counts.counts(c.matcher), c.topology_key)
            minimum = 0 if len(sums) < c.min_domains else int(sums.min())
            self_match = 1 if c.matcher.matches(pod) else 0
            skewed = sums + self_match - minimum > c.max_skew
            if skewed.any():
                verdict[(verdict == 0) & skewed[columns.domains(c.topology_key)[0]]] = 2
        return verdict
    present_all = keys_present(columns, constraints)
    for c in constraints:
        ids, has, count_values = columns.domains(c.topology_key)
        eligible = eligible_rows(columns, pod, c, present_all)
        live = counts.counts(c.matcher).live
        sums = np.bincount(ids[eligible], weights=live[eligible], minlength=count_values).astype(np.int64)
        present = np.bincount(ids[eligible], minlength=count_values) > 0
        num_domains = int(present.sum())
        if num_domains < c.min_domains:
            minimum = 0
        else:
            minimum = int(sums[present].min()) if num_domains else MAX_INT32
        self_match = 1 if c.matcher.matches(pod) else 0
        match = np.where(present[ids], sums[ids], 0)
        undecided = verdict == 0
        verdict[undecided & ~has] = 1
        verdict[undecided & has & (match + self_match - minimum > c.max_skew)] = 2
    return verdict


def every_row_counts(columns, pod: Pod, constraints: tuple[Constraint, ...]) -> bool:
    """Every node row has every constraint's key and is eligible for each (eligible_rows is all of
    them): the pod selects no nodes where a constraint honors node affinity, and no row is tainted
    where one honors taints."""
    free = not selects_nodes(pod)
    for c in constraints:
        if not columns.has_everywhere(c.topology_key) or (c.honor_affinity and not free) \
                or (c.honor_taints and columns.special.any()):
            return False
    return True


def score_columns(columns, counts, pod: Pod, constraints: tuple[Constraint, ...], require_all: bool,
                  rows: np.ndarray, weight: int = 1) -> np.ndarray:
    """score_reference on the rows `rows`, normalized, times `weight`.

    Every node counts for a constraint when the pod has no required node affinity, the taints
    policy is Ignore and no key can be missing (the system defaults, most pods): then its per-domain
    sums are the ones kept with the counts, and a cycle costs a few gathers over `rows`."""
    if not constraints or not len(rows):
        return np.zeros(len(rows), dtype=np.int64)
    free = not selects_nodes(pod)
    if free and _shape(columns, constraints) is HOST_ZONE:
        plan = HostZoneTable.plan(columns, counts, constraints)
        if plan is not None:
            return plan.score(columns, rows, weight)
    out = _score_columns(columns, counts, pod, constraints, require_all, rows, free)
    return out if weight == 1 else out * weight


def _score_columns(columns, counts, pod: Pod, constraints: tuple[Constraint, ...], require_all: bool,
                   rows: np.ndarray, free: bool) -> np.ndarray:
    everywhere = all(columns.has_everywhere(c.topology_key) for c in constraints)
    if require_all and not everywhere:
        present_all = keys_present(columns, constraints)
        ignored = ~present_all[rows]
        scored = rows[~ignored]
    else:
        present_all = None
        ignored = None
        scored = rows
    if everywhere and all((free or not c.honor_affinity) and not c.honor_taints for c in constraints):
        if len(constraints) == 2 and constraints[0].topology_key == HOSTNAME_LABEL \
                and constraints[1].topology_key != HOSTNAME_LABEL:
            plan = HostZoneTable.plan(columns, counts, constraints)
            if plan is not None:
                return plan.score(columns, rows)
        return _score_every_node_counts(columns, counts, constraints, rows)
    score = None
    for c in constraints:
        key = c.topology_key
        ids, has, count_values = columns.domains(key)
        watched = counts.counts(c.matcher)
        if key == HOSTNAME_LABEL:
            weight = math.log(len(scored) + 2)
            count = watched.live[rows]
        else:
            ids_rows = ids[rows]
            scored_ids = ids_rows if ignored is None else ids_rows[~ignored]
            weight = math.log(int(np.count_nonzero(np.bincount(scored_ids, minlength=count_values))) + 2)
            if (free or not c.honor_affinity) and not c.honor_taints and present_all is None:
                sums = counts.domain_live(watched, key)
            else:
                mask = present_all if present_all is not None else np.ones(len(ids), dtype=bool)
                eligible = eligible_rows(columns, pod, c, mask)
                live = watched.live
                sums = np.bincount(ids[eligible], weights=live[eligible], minlength=count_values).astype(np.int64)
            count = sums[ids_rows]
        term = count * weight + float(c.max_skew - 1)
        if not columns.has_everywhere(key):
            term = np.where(has[rows], term, 0.0)
        score = term if score is None else score + term
    whole = np.floor(score)
    raw = whole.astype(np.int64) + (score - whole >= 0.5)
    if ignored is not None:
        raw[ignored] = 0
        valid = raw[~ignored]
        if not len(valid):
            return np.zeros(len(rows), dtype=np.int64)
    else:
        valid = raw
    low, high = int(valid.min()), int(valid.max())
    if high == 0:
        out = np.full(len(rows), MAX_NODE_SCORE, dtype=np.int64)
    else:
        out = MAX_NODE_SCORE * (high + low - raw) // high
    if ignored is not None:
        out[ignored] = 0
    return out


def _score_every_node_counts(columns, counts, constraints: tuple[Constraint, ...], rows: np.ndarray) -> np.ndarray:
    """score_columns when every node counts for every constraint and has every key: a domain's term
    is computed once per domain and gathered, the sums in place, in the plugin's order. Scores here
    are 0 or at least 1 (a count times a weight >= log 3, plus maxSkew - 1), where truncating
    x + 0.5 is math.Round."""
    score = None
    for c in constraints:
        key = c.topology_key
        watched = counts.counts(c.matcher)
        if key == HOSTNAME_LABEL:
            term = watched.live[rows] * math.log(len(rows) + 2)
            term += float(c.max_skew - 1)
        else:
            ids, _has, count_values = columns.domains(key)
            ids_rows = ids[rows]
            if count_values <= 62:
                size = int(np.bitwise_or.reduce(columns.domain_bits(key)[rows])).bit_count()
            else:
                size = int(np.count_nonzero(np.bincount(ids_rows, minlength=count_values)))
            term = (counts.domain_live(watched, key) * math.log(size + 2) + float(c.max_skew - 1))[ids_rows]
        if score is None:
            score = term
        else:
            score += term
    score += 0.5
    raw = score.astype(np.int64)
    low, high = int(raw.min()), int(raw.max())
    if high == 0:
        return np.full(len(rows), MAX_NODE_SCORE, dtype=np.int64)
    raw -= high + low
    raw *= -MAX_NODE_SCORE
    raw //= high
    return raw


class HostZoneTable:
    """The system defaults' shape (a hostname constraint, then one domain constraint; every node
    counts): a node's raw score depends only on its (matching pods, domain) pair. The raw score of
    every pair is kept in a table indexed by the pair key that the counts keep per node; a bind
    changes one domain's sum, so one column of the table is scored again (in the plugin's float
    arithmetic, in Python, rounded as math.Round). A cycle gathers the raw scores of its rows and
    normalizes them: a few array operations over the rows, whatever the pods."""

    __slots__ = ()

    def __reduce__(self) -> str:
        return "HOST_ZONE"  # the module's one instance, also in a restored checkpoint (`shape is HOST_ZONE`)

    @staticmethod
    def plan(columns, counts, constraints) -> "HostZonePlan | None":
        """What a cycle of these constraints reads, kept on the node columns until their rows
        change; None while the pair table would be too large (many matching pods on one node)."""
        plans = columns.spread_plans
        plan = plans.get(id(constraints))
        if plan is None or plan.constraints is not constraints:
            if len(plans) > 1024:
                plans.clear()
            plan = plans[id(constraints)] = HostZonePlan(columns, counts, constraints)
        if (plan.host.live_max + 1) * plan.domains > MAX_PAIRS:
            return None
        return plan


class HostZonePlan:
    """HOST_ZONE's columns for one constraints object: the matching pods' counts, the pair key per
    row, the domain sums (all kept in place by the counts) and the weights per window shape."""

    __slots__ = ("constraints", "key", "host", "zone", "domains", "pair_keys", "sums", "weights")

    def __init__(self, columns, counts, constraints) -> None:
        host_c, zone_c = constraints
        self.constraints = constraints
        self.key = zone_c.topology_key
        self.host = counts.counts(host_c.matcher)
        self.zone = counts.counts(zone_c.matcher)
        self.domains = columns.domains(self.key)[2]
        self.pair_keys = counts.pair_keys(self.host, self.key)
        self.sums = counts.domain_live(self.zone, self.key)
        self.weights: dict[tuple[int, int], tuple[float, float, int, int]] = {}

    def score(self, columns, rows: np.ndarray, weight: int = 1) -> np.ndarray:
        """The normalized score of `rows` times `weight`: MaxNodeScore x (high + low - raw) // high
        over the rows' raw scores; the table holds raw x MaxNodeScore, so one subtraction makes
        the numerator."""
        shape = (len(rows), columns.distinct_domains(self.key, rows))
        weights = self.weights.get(shape)
        if weights is None:
            host_c, zone_c = self.constraints
            weights = self.weights[shape] = (math.log(shape[0] + 2), math.log(shape[1] + 2),
                                             host_c.max_skew - 1, zone_c.max_skew - 1)
        table = raw_table(self.zone, weights, self.sums, self.host.live_max + 1, self.domains)
        raw = table[self.pair_keys[rows]]
        low, high = int(raw[raw.argmin()]), int(raw[raw.argmax()])  # argmin/argmax: cheaper calls than min/max
        if high == 0:
            return np.full(len(rows), MAX_NODE_SCORE * weight, dtype=np.int64)
        np.subtract(high + low, raw, out=raw)
        raw //= high // MAX_NODE_SCORE
        if weight != 1:
            raw *= weight
        return raw


MAX_PAIRS = 4096  # (matching pods, domain) pairs a raw table holds (and _placement.c's MAX_TABLE)
ARRAY_FROM = 16  # rows of a raw table from which a column is scored with arrays (_score_domains)


class RawTable:
    """HOST_ZONE's raw scores (times MaxNodeScore) of one set of weights by pair key (matching
    pods x domains + domain), for `rows` values of matching pods, and the domain sums they were
    scored with."""

    __slots__ = ("table", "flat", "sums", "host_terms", "host_array")

    def __init__(self, rows: int, domains: int) -> None:
        self.table = np.zeros((rows, domains), dtype=np.int64)
        self.flat = self.table.reshape(-1)  # a view: pair keys index it
        self.sums: list[int] | None = None
        self.host_terms: list[float] = []  # matching pods x the hostname weight + its maxSkew - 1
        self.host_array = np.zeros(0)  # the same, as an array


def raw_table(zone, weights: tuple[float, float, int, int], sums: np.ndarray, rows: int, domains: int) -> np.ndarray:
    """The raw score of every (matching pods below `rows`, domain) pair under `weights` (hostname's
    and the domain's normalizing weights and maxSkew - 1), with the domain sums `sums`: kept per
    weights with the zone constraint's counts and scored again only where a domain's sum changed."""
    tables = zone.raw_tables
    entry = tables.get(weights)
    if entry is None or len(entry.table) < rows:
        if len(tables) >= 16:
            tables.clear()
        entry = tables[weights] = RawTable(max(rows, 2 * len(entry.table) if entry else rows), domains)
        wh, _wz, h_extra, _z_extra = weights
        entry.host_terms = [h * wh + h_extra for h in range(len(entry.table))]
        entry.host_array = np.array(entry.host_terms, dtype=np.float64)
    current = sums.tolist()
    if current != entry.sums:
        _score_domains(entry, weights, current)
    return entry.flat


def _score_domains(entry: RawTable, weights: tuple[float, float, int, int], current: list[int]) -> None:
    """Score again the columns of the domains whose sums changed: in Python for a few rows, with
    arrays from ARRAY_FROM rows (many matching pods on one node), where a column costs one
    go_round_array instead of a call per row. Both add, floor and compare the same float64 values."""
    _wh, wz, _h_extra, z_extra = weights
    old = entry.sums
    terms = entry.host_terms
    for z, total in enumerate(current):
        if old is None or old[z] != total:
            domain_term = total * wz + z_extra
            if len(terms) < ARRAY_FROM:
                entry.table[:, z] = [go_round(term + domain_term) * MAX_NODE_SCORE for term in terms]
            else:
                column = go_round_array(entry.host_array + domain_term)
                column *= MAX_NODE_SCORE
                entry.table[:, z] = column
    entry.sums = current


class ZoneHost:
    """HOST_ZONE's pair written the other way round (the zone constraint first, as charts often
    list them). The plugin adds each constraint's term to a score that starts at 0.0: 0.0 + a is a
    and a + b is b + a in floats, so a node's raw score is HOST_ZONE's of the pair swapped
    (`swapped`)."""

    __slots__ = ()

    def __reduce__(self) -> str:
        return "ZONE_HOST"


def swapped(constraints: tuple[Constraint, ...]) -> tuple[Constraint, ...]:
    """ZONE_HOST's pair as HOST_ZONE's: one tuple per constraints object (the plans and tables
    kept for it are found by its identity)."""
    entry = _SWAPPED.get(id(constraints))
    if entry is None or entry[0] is not constraints:
        if len(_SWAPPED) > 1024:
            _SWAPPED.clear()
        entry = _SWAPPED[id(constraints)] = (constraints, (constraints[1], constraints[0]))
    return entry[1]


_SWAPPED: dict[int, tuple] = {}


class HostOnly:
    """The shape of a lone hostname constraint (a zone DoNotSchedule constraint's usual
    ScheduleAnyway partner). A node's raw score is go_round(matching pods on it x the hostname
    weight + maxSkew - 1) whatever the policies say (Score counts a hostname constraint's pods on
    the node itself), so the compiled code scores it as HOST_ZONE with one domain whose term is
    0 x weight + 0 = 0.0, which adds nothing to any float."""

    __slots__ = ()

    def __reduce__(self) -> str:
        return "HOST_ONLY"


def _shape(columns, constraints: tuple[Constraint, ...]):
    """HOST_ZONE when `constraints` are a hostname constraint then one other, both counting every
    node (no policy that drops nodes) and every node has both keys; ZONE_HOST for the same pair
    the other way round; HOST_ONLY for a lone hostname constraint where every node has the key;
    else None. Cached on the node columns (until their rows change), per constraints object."""
    shapes = columns.spread_shapes
    entry = shapes.get(id(constraints))
    if entry is not None and entry[0] is constraints:
        return entry[1]
    shape = None
    hostname = tuple(c.topology_key == HOSTNAME_LABEL for c in constraints)
    if hostname in ((True, False), (False, True)):
        if all(not c.honor_taints and columns.has_everywhere(c.topology_key) for c in constraints):
            shape = HOST_ZONE if hostname[0] else ZONE_HOST
    elif hostname == (True,) and columns.has_everywhere(HOSTNAME_LABEL):
        shape = HOST_ONLY
    if len(shapes) > 1024:
        shapes.clear()
    shapes[id(constraints)] = (constraints, shape)
    return shape


HOST_ZONE = HostZoneTable()
ZONE_HOST = ZoneHost()
HOST_ONLY = HostOnly()
