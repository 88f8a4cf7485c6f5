"""InterPodAffinity (pkg/scheduler/framework/plugins/interpodaffinity: filtering.go, scoring.go).

A term selects pods (its labelSelector, in its `namespaces` or else the namespace of the pod that
holds the term) and a topology key. Existing pods are every pod bound to a node and not finished,
terminating ones included (the scheduler cache keeps them until they are gone).

PreFilter counts, per (topology key, value):
- existing anti-affinity: existing pods' required anti-affinity terms that select the incoming pod;
- affinity: existing pods that match ALL the incoming pod's required affinity terms (once per term);
- anti-affinity: existing pods that match each of the incoming pod's required anti-affinity terms.
Filter, in this order: every required affinity term's key on the node with a count > 0 (else
UnschedulableAndUnresolvable "node(s) didn't match pod affinity rules"; a node without a key fails;
the first pod of a group whose terms select itself passes when no pod matches anywhere); no
anti-affinity count on the node's values of the pod's terms' keys (Unschedulable "node(s) didn't
match pod anti-affinity rules"); no existing anti-affinity count on any of the node's labels
(Unschedulable "node(s) didn't satisfy existing pods anti-affinity rules"). AddPod / RemovePod keep
the counts for preemption's dry runs. Skipped when there are no required terms and no existing
anti-affinity count.

Score (weight 2): per (key, value), + the weight of each incoming preferred affinity term an existing
pod matches, - each preferred anti-affinity term, + hardPodAffinityWeight (1) for each existing pod's
required affinity term the incoming pod matches, +/- existing pods' preferred terms; a node scores
the sum over the keys it has; normalized `int(100 * (s - min) / (max - min))` (0 when all equal).

The `*_reference` functions are the plain reference; the scheduler reads the incoming pod's term
counts from the node columns (`filter_columns`, `score_columns`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

import numpy as np

from ..objects import Node, Pod, PodAffinityTerm
from .framework import MAX_NODE_SCORE, OK, UNSCHEDULABLE, UNSCHEDULABLE_AND_UNRESOLVABLE, Status
from .podcounts import PodMatcher

NAME = "InterPodAffinity"
WEIGHT = 2
HARD_POD_AFFINITY_WEIGHT = 1  # InterPodAffinityArgs default
ERR_AFFINITY = "node(s) didn't match pod affinity rules"
ERR_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules"
ERR_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules"

AFFINITY_STATUS = Status(UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_AFFINITY,), NAME)
ANTI_AFFINITY_STATUS = Status(UNSCHEDULABLE, (ERR_ANTI_AFFINITY,), NAME)
EXISTING_ANTI_AFFINITY_STATUS = Status(UNSCHEDULABLE, (ERR_EXISTING_ANTI_AFFINITY,), NAME)


@dataclass(slots=True, frozen=True)
class Term:
    """framework.AffinityTerm: the term's namespaces resolved against the pod holding it."""

    matcher: PodMatcher
    topology_key: str
    weight: int = 0


def term_of(owner: Pod, term: PodAffinityTerm, weight: int = 0) -> Term:
    return term_in(owner.namespace, term, weight)


def term_in(namespace: str, term: PodAffinityTerm, weight: int = 0) -> Term:
    """The term as a pod of `namespace` holds it."""
    namespaces = frozenset(term.namespaces) if term.namespaces else frozenset((namespace,))
    return Term(PodMatcher(namespaces, (term.selector,)), term.topology_key, weight)


def required_terms(pod: Pod) -> tuple[tuple[Term, ...], tuple[Term, ...]]:
    return (tuple(term_of(pod, t) for t in pod.required_pod_affinity),
            tuple(term_of(pod, t) for t in pod.required_pod_anti_affinity))


def matches_all(pod: Pod, terms: tuple[Term, ...]) -> bool:
    """podMatchesAllAffinityTerms."""
    return bool(terms) and all(t.matcher.matches(pod) for t in terms)


def _add(counts: dict[tuple[str, str], int], key: str, node: Node, delta: int) -> None:
    value = node.labels.get(key)
    if value is not None:
        pair = (key, value)
        counts[pair] = counts.get(pair, 0) + delta


# ---------------------------------------------------------------- reference (per node)

class AffinityState:
    """preFilterState."""

    __slots__ = ("pod", "affinity_terms", "anti_terms", "existing_anti", "affinity", "anti")

    def __init__(self, pod: Pod) -> None:
        self.pod = pod
        self.affinity_terms, self.anti_terms = required_terms(pod)
        self.existing_anti: dict[tuple[str, str], int] = {}
        self.affinity: dict[tuple[str, str], int] = {}
        self.anti: dict[tuple[str, str], int] = {}

    def copy(self) -> "AffinityState":
        other = AffinityState.__new__(AffinityState)
        other.pod, other.affinity_terms, other.anti_terms = self.pod, self.affinity_terms, self.anti_terms
        other.existing_anti, other.affinity, other.anti = dict(self.existing_anti), dict(self.affinity), dict(self.anti)
        return other

    def skip(self) -> bool:
        return not any(self.existing_anti.values()) and not self.affinity_terms and not self.anti_terms

    def update(self, existing: Pod, node: Node, delta: int) -> None:
        """updateWithPod: `existing` added to (1) or removed from (-1) `node`."""
        for t in existing.required_pod_anti_affinity:
            term = term_of(existing, t)
            if term.matcher.matches(self.pod):
                _add(self.existing_anti, term.topology_key, node, delta)
        if matches_all(existing, self.affinity_terms):
            for term in self.affinity_terms:
                _add(self.affinity, term.topology_key, node, delta)
        for term in self.anti_terms:
            if term.matcher.matches(existing):
                _add(self.anti, term.topology_key, node, delta)


def existing_pods(pods: Iterable[Pod]) -> list[Pod]:
    return [p for p in pods if not p.is_terminal()]


def prefilter_reference(pod: Pod, nodes: Iterable[Node], pods_on: Callable[[str], list[Pod]]) -> AffinityState:
    state = AffinityState(pod)
    for node in nodes:
        for existing in existing_pods(pods_on(node.name)):
            state.update(existing, node, 1)
    return state


def filter_reference(state: AffinityState, node: Node) -> Status:
    labels = node.labels
    exist = True
    for term in state.affinity_terms:
        value = labels.get(term.topology_key)
        if value is None:
            return AFFINITY_STATUS
        if state.affinity.get((term.topology_key, value), 0) <= 0:
            exist = False
    if not exist and not (not any(state.affinity.values()) and matches_all(state.pod, state.affinity_terms)):
        return AFFINITY_STATUS
    for term in state.anti_terms:
        value = labels.get(term.topology_key)
        if value is not None and state.anti.get((term.topology_key, value), 0) > 0:
            return ANTI_AFFINITY_STATUS
    if any(state.existing_anti.values()):
        for key, value in labels.items():
            if state.existing_anti.get((key, value), 0) > 0:
                return EXISTING_ANTI_AFFINITY_STATUS
    return OK


def preferred_terms(pod: Pod) -> tuple[tuple[Term, ...], tuple[Term, ...]]:
    return (tuple(term_of(pod, w.term, w.weight) for w in pod.preferred_pod_affinity),
            tuple(term_of(pod, w.term, w.weight) for w in pod.preferred_pod_anti_affinity))


def existing_pod_score(pod: Pod, existing: Pod, node: Node, topology: dict[tuple[str, str], int]) -> None:
    """processExistingPod, the existing pod's own terms (those selecting the incoming pod)."""
    for t in existing.required_pod_affinity:
        term = term_of(existing, t)
        if term.matcher.matches(pod):
            _add(topology, term.topology_key, node, HARD_POD_AFFINITY_WEIGHT)
    for w in existing.preferred_pod_affinity:
        term = term_of(existing, w.term)
        if term.matcher.matches(pod):
            _add(topology, term.topology_key, node, w.weight)
    for w in existing.preferred_pod_anti_affinity:
        term = term_of(existing, w.term)
        if term.matcher.matches(pod):
            _add(topology, term.topology_key, node, -w.weight)


def normalize(raw: list[int]) -> list[int]:
    if not raw:
        return []
    low, high = min(raw), max(raw)
    diff = high - low
    return [int(MAX_NODE_SCORE * ((s - low) / diff)) if diff > 0 else 0 for s in raw]


def score_reference(pod: Pod, filtered: list[Node], all_nodes: Iterable[Node],
                    pods_on: Callable[[str], list[Pod]]) -> list[int]:
    """PreScore + Score + NormalizeScore (not yet multiplied by the weight)."""
    affinity, anti = preferred_terms(pod)
    topology: dict[tuple[str, str], int] = {}
    for node in all_nodes:
        if not node.labels:
            continue
        for existing in existing_pods(pods_on(node.name)):
            for term in affinity:
                if term.matcher.matches(existing):
                    _add(topology, term.topology_key, node, term.weight)
            for term in anti:
                if term.matcher.matches(existing):
                    _add(topology, term.topology_key, node, -term.weight)
            existing_pod_score(pod, existing, node, topology)
    raw = [sum(topology.get((key, value), 0) for key, value in node.labels.items()) for node in filtered]
    return normalize(raw)


# ---------------------------------------------------------------- on the node columns

def active(pod: Pod, counts) -> bool:
    """Whether the plugin can do anything for `pod`: it has pod (anti-)affinity terms, or a term of
    some counted pod selects it. Otherwise its PreFilter would Skip (no term of its own, no existing
    anti-affinity count) and every node would score 0: the cycle is the one without the plugin
    (and a pod of a template no term selects keeps the runs of equivalent pods)."""
    if pod.required_pod_affinity or pod.required_pod_anti_affinity or pod.preferred_pod_affinity \
            or pod.preferred_pod_anti_affinity:
        return True
    if not counts.affinity_groups:
        return False
    # (pods of one template share their labels dict: asked once while the groups stay the same)
    key = (pod.namespace, id(pod.labels))
    hit = counts.selected.get(key)
    if hit is not None and hit[0] == counts.groups_made and hit[1] is pod.labels:
        return hit[2]
    answer = _selected(pod, counts)
    if len(counts.selected) > 4096:
        counts.selected.clear()
    counts.selected[key] = (counts.groups_made, pod.labels, answer)
    return answer


def _selected(pod: Pod, counts) -> bool:
    """A term of a group of counted pods selects `pod`."""
    for group in counts.affinity_groups.values():  # (held pods have no terms: nothing to release)
        for terms in group_terms(group):
            for term, _weight in terms:
                if term.matcher.matches(pod):
                    return True
    return False


FILTERING, SCORING = 0, 1  # group_terms' two lists


def group_terms(group) -> tuple[tuple[tuple[Term, int], ...], tuple[tuple[Term, int], ...]]:
    """An AffinityGroup's terms as its pods hold them, with their weights: the required
    anti-affinity terms (the existing pods' anti-affinity of the filter; weight 1), and the terms
    existing_pod_score adds with their signed weights, in its order."""
    if group.terms is None:
        namespace = group.namespace
        scoring = [(term_in(namespace, t), HARD_POD_AFFINITY_WEIGHT) for t in group.required_affinity]
        scoring += [(term_in(namespace, w.term), w.weight) for w in group.preferred_affinity]
        scoring += [(term_in(namespace, w.term), -w.weight) for w in group.preferred_anti_affinity]
        group.terms = (tuple((term_in(namespace, t), 1) for t in group.required_anti_affinity), tuple(scoring))
    return group.terms


def _group_terms_selecting(counts, pod: Pod, which: int):
    """(term, weight, group) for each term of the counted pods' groups (group_terms' FILTERING or
    SCORING list) that selects `pod`."""
    for group in counts.affinity_groups_now():
        for term, weight in group_terms(group)[which]:
            if term.matcher.matches(pod):
                yield term, weight, group


def _pair_mask(columns, pairs: dict[tuple[str, str], int]) -> np.ndarray:
    """Rows whose label key has a value with a count > 0 in `pairs`."""
    mask = np.zeros(len(columns.nodes), dtype=bool)
    values_of: dict[str, list[str]] = {}
    for (key, value), count in pairs.items():
        if count > 0:
            values_of.setdefault(key, []).append(value)
    for key, values in values_of.items():
        ids, has, count_values = columns.domains(key)
        flagged = np.zeros(count_values, dtype=bool)
        for value in values:
            vid = columns.domain_id(key, value)
            if vid is not None:
                flagged[vid] = True
        mask |= has & flagged[ids]
    return mask


def _term_domain_counts(columns, counts, term: Term, matcher: PodMatcher | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(per row: matching pods in the row's domain of the term's key; has the key)."""
    return _domain_sums(columns, term.topology_key, counts.counts(matcher or term.matcher).all)


def own_domains(columns, key: str) -> bool:
    """Every row has label `key`, each with a value of its own (a hostname): a row's domain is the
    row (the domain ids are then 0..n-1 in row order, snapshot.NodeColumns.domains)."""
    ids, _has, count_values = columns.domains(key)
    return count_values == len(ids) and columns.has_everywhere(key)


def _domain_sums(columns, key: str, per_row: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(per row: `per_row` summed over the row's domain of `key`, 0 without the key; has the key)."""
    ids, has, count_values = columns.domains(key)
    if own_domains(columns, key):
        return per_row.astype(np.int64), has
    sums = np.bincount(ids[has], weights=per_row[has], minlength=count_values).astype(np.int64)
    return np.where(has, sums[ids], 0), has


def _add_pairs(pairs: dict[tuple[str, str], int], by_node: dict[str, int], key: str, weight: int,
               nodes_by_name) -> None:
    """`weight` times a group's pods counted per node name, into the (key, value) pairs of their nodes."""
    for name, count in by_node.items():
        node = nodes_by_name.get(name)
        if node is not None:
            _add(pairs, key, node, weight * count)


def existing_anti_counts(pod: Pod, counts, nodes_by_name) -> dict[tuple[str, str], int]:
    """Per (key, value): the existing pods' required anti-affinity terms that select `pod`."""
    pairs: dict[tuple[str, str], int] = {}
    for term, weight, group in _group_terms_selecting(counts, pod, FILTERING):
        _add_pairs(pairs, group.by_node, term.topology_key, weight, nodes_by_name)
    return pairs


def _existing_anti_mask(columns, counts, pod: Pod, nodes_by_name) -> np.ndarray | None:
    """Rows where an existing pod's required anti-affinity term that selects `pod` counts (a pod
    of the term's domain); None when no such term counts anywhere (existing_anti_counts empty)."""
    mask = None
    outside_pairs: dict[tuple[str, str], int] = {}
    for term, weight, group in _group_terms_selecting(counts, pod, FILTERING):
        rows, outside = counts.affinity_rows(group)
        in_domain, has = _domain_sums(columns, term.topology_key, rows)
        if (has & (rows > 0)).any():
            mask = (in_domain > 0) if mask is None else mask | (in_domain > 0)
        _add_pairs(outside_pairs, outside, term.topology_key, weight, nodes_by_name)  # (not node rows)
    if outside_pairs:
        extra = _pair_mask(columns, outside_pairs)
        mask = extra if mask is None else mask | extra
    return mask


def filter_columns(columns, counts, pod: Pod, nodes_by_name) -> np.ndarray | None:
    """Filter on every row: 0 passes, 1 AFFINITY_STATUS, 2 ANTI_AFFINITY_STATUS, 3
    EXISTING_ANTI_AFFINITY_STATUS; None when the plugin skips."""
    affinity_terms, anti_terms = required_terms(pod)
    existing = _existing_anti_mask(columns, counts, pod, nodes_by_name) if counts.affinity_groups else None
    if existing is None and not affinity_terms and not anti_terms:
        return None
    n = len(columns.nodes)
    verdict = np.zeros(n, dtype=np.int8)
    if affinity_terms:
        # Existing pods matching all the terms: one matcher with every term's selector and namespaces.
        both = PodMatcher(frozenset.intersection(*(t.matcher.namespaces for t in affinity_terms)),
                          tuple(s for t in affinity_terms for s in t.matcher.selectors))
        ok = np.ones(n, dtype=bool)
        missing = np.zeros(n, dtype=bool)
        any_count = False
        for term in affinity_terms:
            in_domain, has = _term_domain_counts(columns, counts, term, both)
            missing |= ~has
            ok &= in_domain > 0
            any_count = any_count or bool(in_domain.any())
        if not any_count and matches_all(pod, affinity_terms):
            ok[:] = True
        verdict[missing | ~ok] = 1
    for term in anti_terms:
        in_domain, has = _term_domain_counts(columns, counts, term)
        verdict[(verdict == 0) & has & (in_domain > 0)] = 2
    if existing is not None:
        verdict[(verdict == 0) & existing] = 3
    return verdict


def score_columns(columns, counts, pod: Pod, nodes_by_name, rows: np.ndarray) -> np.ndarray:
    """score_reference on `rows` (normalized, not yet weighted)."""
    return normalize_columns(raw_scores(columns, counts, pod, nodes_by_name, rows))


def normalize_columns(raw: np.ndarray) -> np.ndarray:
    """NormalizeScore: int64(MaxNodeScore * (float(s - min) / float(max - min))), 0 when all are equal."""
    if not len(raw):
        return raw
    low, high = int(raw.min()), int(raw.max())
    if high == low:
        return np.zeros(len(raw), dtype=np.int64)
    return (MAX_NODE_SCORE * ((raw - low) / (high - low))).astype(np.int64)


def raw_scores(columns, counts, pod: Pod, nodes_by_name, rows: np.ndarray) -> np.ndarray:
    """Each row's sum of the weights of the terms that count there (Score, before NormalizeScore)."""
    affinity, anti = preferred_terms(pod)
    raw = np.zeros(len(rows), dtype=np.int64)
    for term, sign in [(t, 1) for t in affinity] + [(t, -1) for t in anti]:
        in_domain, _ = _term_domain_counts(columns, counts, term)
        raw += sign * term.weight * in_domain[rows]
    # The existing pods' terms that select the incoming pod (existing_pod_score), a group at a time.
    topology: dict[tuple[str, str], int] = {}
    for term, weight, group in _group_terms_selecting(counts, pod, SCORING):
        held, outside = counts.affinity_rows(group)
        in_domain, _ = _domain_sums(columns, term.topology_key, held)
        raw += weight * in_domain[rows]
        _add_pairs(topology, outside, term.topology_key, weight, nodes_by_name)  # (not node rows)
    for (key, value), weight in topology.items():
        if weight:
            ids, has, _ = columns.domains(key)
            vid = columns.domain_id(key, value)
            if vid is not None:
                raw += np.where(has[rows] & (ids[rows] == vid), weight, 0)
    return raw


class RunInputs:
    """What the compiled loop reads of InterPodAffinity for a run (run_inputs): every row's raw
    score, what binding one more pod of the run to a row adds to that row's, whether that bind
    rules the row out for the next (`exclusive`), and the rows the filter passes (None: it skips)."""

    __slots__ = ("raw", "delta", "exclusive", "passes")

    def __init__(self, raw: np.ndarray, delta: int, exclusive: bool, passes: np.ndarray | None) -> None:
        self.raw, self.delta, self.exclusive, self.passes = raw, delta, exclusive, passes


def run_inputs(columns, counts, pod: Pod, nodes_by_name) -> RunInputs | None:
    """For a run of pods equivalent to `pod` (equivalence.py): what a bind of the run changes for the
    next cycle, where that is one row's alone; None where the run does not model the plugin.

    The filter: the pod has no required affinity (a bind could make rows pass). Its required
    anti-affinity terms that select the pod itself are each on a key where every row is its own
    domain (a hostname: charts' hard anti-affinity against their own pods): a bind counts the new
    pod on the bound row alone, for its own terms and, as an existing pod whose terms select the
    next, for the existing pods' check, so the row is ruled out (`exclusive`). Its other terms, and
    the existing pods' that select it, count pods the run does not add to: the filter's verdict
    before the run holds for every cycle of it.

    The score: every term that counts for it (its own preferred terms and the counted pods' that
    select it; required anti-affinity does not score) on such a key: a bind then changes the bound
    row's score alone, by its own terms counting the new pod and the new pod's terms (the same,
    held by its group) selecting the next, each term's signed weight where the term selects the pod."""
    if pod.required_pod_affinity:
        return None
    _affinity_terms, anti_terms = required_terms(pod)
    own_anti = [term for term in anti_terms if term.matcher.matches(pod)]
    affinity, anti = preferred_terms(pod)
    own = [(t, t.weight) for t in affinity] + [(t, -t.weight) for t in anti]
    others = [term for term, _weight, _group in _group_terms_selecting(counts, pod, SCORING)]
    if not all(own_domains(columns, term.topology_key) for term in own_anti + [t for t, _w in own] + others):
        return None
    delta = 2 * sum(weight for term, weight in own if term.matcher.matches(pod))
    verdict = filter_columns(columns, counts, pod, nodes_by_name)
    raw = raw_scores(columns, counts, pod, nodes_by_name, np.arange(len(columns.nodes)))
    return RunInputs(raw, delta, bool(own_anti), None if verdict is None else verdict == 0)
