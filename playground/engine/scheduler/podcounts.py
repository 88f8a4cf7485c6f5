"""Per-node counts of the pods that match a selector, kept as pods come and go (what
PodTopologySpread and InterPodAffinity read of kube-scheduler's NodeInfo.Pods).

Pods that share a labels dict (pods of one template) and a namespace form a label class. Each class
keeps, per node name, how many of its pods count there (bound and not terminal) and how many of
those are being deleted: the store tells every change (`Store.on_account`, the `deleting` pod
event). A matcher (namespaces and selectors) asked for once is watched from then on: two columns
over the scheduler's node rows, every counted pod ("all": InterPodAffinity counts terminating pods)
and those not being deleted ("live": PodTopologySpread skips them, countPodsMatchSelector). A new
matcher is built from the classes it matches, so its cost is the number of pods it matches, not the
size of the cluster; the columns are rebuilt from the classes when the node rows change.

Pods with pod affinity or anti-affinity terms are also counted by node in groups of the terms they
hold (pods of one template hold the same): the symmetric checks and scores read each group's terms
once and its pods' count per node, so an incoming pod costs the groups, not the pods that hold terms
(a Deployment of thousands of replicas, each with the anti-affinity of its siblings).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from operator import attrgetter
from typing import TYPE_CHECKING

import numpy as np

from ..objects import LabelSelector, Pod, set_attributes
from ..store import watches

if TYPE_CHECKING:
    from ..store import Store
    from .snapshot import NodeColumns


_PRIORITY = attrgetter("priority")


@dataclass(slots=True, frozen=True)
class PodMatcher:
    """Pods in one of `namespaces` whose labels match every selector (a None selector matches no pod,
    as LabelSelectorAsSelector(nil) is labels.Nothing())."""

    namespaces: frozenset[str]
    selectors: tuple[LabelSelector | None, ...]

    def matches(self, pod: Pod) -> bool:
        return self.matches_labels(pod.namespace, pod.labels)

    def matches_labels(self, namespace: str, labels: dict[str, str]) -> bool:
        if namespace not in self.namespaces or not self.selectors:
            return False
        for selector in self.selectors:
            if selector is None or not selector.matches(labels):
                return False
        return True


def has_pod_affinity(pod: Pod) -> bool:
    return bool(pod.required_pod_affinity or pod.preferred_pod_affinity or pod.required_pod_anti_affinity
                or pod.preferred_pod_anti_affinity)


class AffinityGroup:
    """Counted pods of one namespace holding the same pod (anti-)affinity terms: how many count on
    each node, and the same over the node rows (`rows`, kept while the rows are those of
    `generation`; `outside`: those on nodes that are not rows). `terms` is for interpodaffinity,
    which builds it from the terms once."""

    __slots__ = ("namespace", "required_affinity", "preferred_affinity", "required_anti_affinity",
                 "preferred_anti_affinity", "by_node", "terms", "rows", "outside", "generation")

    def __init__(self, pod: Pod) -> None:
        self.namespace = pod.namespace
        self.required_affinity = pod.required_pod_affinity
        self.preferred_affinity = pod.preferred_pod_affinity
        self.required_anti_affinity = pod.required_pod_anti_affinity
        self.preferred_anti_affinity = pod.preferred_pod_anti_affinity
        self.by_node: dict[str, int] = {}
        self.terms = None
        self.rows: np.ndarray | None = None
        self.outside: dict[str, int] = {}
        self.generation = -1


def affinity_group_key(pod: Pod) -> tuple:
    return (pod.namespace, pod.required_pod_affinity, pod.preferred_pod_affinity, pod.required_pod_anti_affinity,
            pod.preferred_pod_anti_affinity)


class LabelClass:
    __slots__ = ("namespace", "labels", "by_node", "deleting", "watched")

    def __init__(self, namespace: str, labels: dict[str, str]) -> None:
        self.namespace = namespace
        self.labels = labels  # held so that its id stays this class's
        self.by_node: dict[str, int] = {}
        self.deleting: dict[str, int] = {}
        self.watched: list[Watched] = []


class Watched:
    __slots__ = ("matcher", "all", "live", "generation", "domain_live", "live_max", "pair_keys", "raw_tables")

    def __init__(self, matcher: PodMatcher) -> None:
        self.matcher = matcher
        self.all: np.ndarray = np.zeros(0, dtype=np.int64)
        self.live: np.ndarray = np.zeros(0, dtype=np.int64)
        self.generation = -1
        # topology key -> live counts summed per domain over every node row (kept with `live`)
        self.domain_live: dict[str, np.ndarray] = {}
        self.live_max = 0  # at least the largest value of `live`
        # topology key -> per row `live * domains + domain id` (kept with `live`)
        self.pair_keys: dict[str, np.ndarray] = {}
        # PodTopologySpread's raw scores by pair key, per set of weights (podtopologyspread.raw_table)
        self.raw_tables: dict[tuple, object] = {}


class PodCounts:
    def __init__(self, store: "Store", columns: "NodeColumns") -> None:
        self.store = store
        self.columns = columns
        self.classes: dict[tuple[str, int], LabelClass] = {}
        self.watched: dict[PodMatcher, Watched] = {}
        self.deleting: dict[str, tuple[LabelClass, str]] = {}  # pod key -> (class, node) of counted deleting pods
        # the counted pods that have pod (anti-)affinity terms, by affinity_group_key
        self.affinity_groups: dict[tuple, AffinityGroup] = {}
        self._last: dict[int, tuple[PodMatcher, Watched]] = {}
        # Whether a group's term selects pods of (namespace, id(labels)): (groups_made, labels, answer),
        # good while no group is made or dropped (interpodaffinity.active)
        self.selected: dict[tuple[str, int], tuple[int, dict, bool]] = {}
        self.groups_made = 0  # groups made or dropped so far
        self.by_priority: dict[int, int] = {}  # priority -> counted pods that have it (no entry at 0 pods)
        self.version = 0  # moves on with every change to the counts (Scheduler._no_fit_state)
        # Pods of one label class bound but not counted yet (`hold`), or None when counting at once.
        self._held: list[Pod] | None = None
        store.on_account = self._account
        store.on_account_bound = self._account_bound_run
        store.pod_watchers.append(self._on_pod_event)

    def __setstate__(self, state: dict) -> None:
        # Classes are keyed by the id of the labels they hold; a restored checkpoint (time travel)
        # holds new objects, so the keys are made again from them.
        set_attributes(self, state)  # (not through __dict__: see objects.set_attributes)
        self.classes = {(cls.namespace, id(cls.labels)): cls for cls in state["classes"].values()}
        self._last = {}
        self.selected = {}
        self._held = None

    # ---------------------------------------------------------------- a run's binds, counted together

    def hold(self) -> None:
        """Count the binds that follow together, when something reads or changes the counts or when
        `release` is called (equivalence.py's runs: a thousand pods of one template bound one after
        another). Only pods of one label class, without pod affinity, are held; any other change,
        and every read, counts the held pods first, so nobody sees the difference."""
        self.release()
        self._held = []

    def held(self) -> bool:
        """Binds are held and not counted yet."""
        return bool(self._held)

    def release(self) -> None:
        """Count the held binds, and count at once from now on."""
        held, self._held = self._held, None
        if held:
            self._account_bound(held)

    def _account_bound_run(self, pods: list[Pod]) -> None:
        """_account(pod, +1) for each of `pods`, bound together (Store._account_bound): held in one
        step when the counts are held and every pod would be held."""
        held = self._held
        if held is not None and pods:
            first = held[0] if held else pods[0]
            labels, namespace = first.labels, first.namespace
            for pod in pods:  # (a loop, not all() over a generator: a run is thousands of pods)
                if not (pod.labels is labels and pod.namespace == namespace and pod.node_name
                        and not (pod.required_pod_affinity or pod.preferred_pod_affinity
                                 or pod.required_pod_anti_affinity or pod.preferred_pod_anti_affinity)):
                    break
            else:
                held.extend(pods)
                return
        for pod in pods:
            self._account(pod, +1)

    def _account_bound(self, pods: list[Pod]) -> None:
        """_account(pod, +1) for each of `pods` (one label class, no pod affinity): the class's
        counts by node, then each watched matcher's columns with numpy. A row's live count only
        grows here, so the largest value it reached is its last."""
        self.version += 1
        cls = self._class(pods[0])
        names = [pod.node_name for pod in pods]
        by_priority = self.by_priority
        for priority, count in Counter(map(_PRIORITY, pods)).items():
            by_priority[priority] = by_priority.get(priority, 0) + count
        by_node = cls.by_node
        for name in names:
            by_node[name] = by_node.get(name, 0) + 1
        columns = self.columns
        if not cls.watched or not columns.valid:
            return
        index = columns.index
        rows = np.array([index[name] for name in names if name in index], dtype=np.int64)
        if not len(rows):
            return
        generation = columns.generation
        for watched in cls.watched:
            if watched.generation != generation:
                continue
            np.add.at(watched.all, rows, 1)
            np.add.at(watched.live, rows, 1)
            top = int(watched.live[rows].max())
            if top > watched.live_max:
                watched.live_max = top
            for key, sums in watched.domain_live.items():
                np.add.at(sums, columns._domains[key][0][rows], 1)
            for key, keys in watched.pair_keys.items():
                np.add.at(keys, rows, columns._domains[key][2])

    # ---------------------------------------------------------------- keeping current

    def _class(self, pod: Pod) -> LabelClass:
        key = (pod.namespace, id(pod.labels))
        cls = self.classes.get(key)
        if cls is None:
            cls = self.classes[key] = LabelClass(pod.namespace, pod.labels)
            for watched in self.watched.values():
                if watched.matcher.matches_labels(pod.namespace, pod.labels):
                    cls.watched.append(watched)
        return cls

    def _row(self, node_name: str) -> int | None:
        columns = self.columns
        if not columns.valid:
            return None
        return columns.index.get(node_name)

    def _account(self, pod: Pod, sign: int) -> None:
        held = self._held
        if held is not None:
            if sign > 0 and (not held or (pod.labels is held[0].labels and pod.namespace == held[0].namespace)) \
                    and pod.node_name and not has_pod_affinity(pod):
                held.append(pod)
                return
            self.release()
        self.version += 1
        node_name = pod.node_name or ""
        left = self.by_priority.get(pod.priority, 0) + sign
        if left:
            self.by_priority[pod.priority] = left
        else:
            del self.by_priority[pod.priority]
        cls = self._class(pod)
        count = cls.by_node.get(node_name, 0) + sign
        if count:
            cls.by_node[node_name] = count
        else:
            cls.by_node.pop(node_name, None)
        was_deleting = False
        if sign < 0 and pod.key in self.deleting:
            del self.deleting[pod.key]
            was_deleting = True
            left = cls.deleting.get(node_name, 0) - 1
            if left:
                cls.deleting[node_name] = left
            else:
                cls.deleting.pop(node_name, None)
        if cls.watched:
            row = self._row(node_name)
            if row is not None:
                generation = self.columns.generation
                for watched in cls.watched:
                    if watched.generation == generation:
                        watched.all[row] += sign
                        if not was_deleting:
                            watched.live[row] += sign
                            if sign > 0 and watched.live[row] > watched.live_max:
                                watched.live_max = int(watched.live[row])
                            for key, sums in watched.domain_live.items():
                                sums[self.columns._domains[key][0][row]] += sign
                            for key, keys in watched.pair_keys.items():
                                keys[row] += sign * self.columns._domains[key][2]
        if not cls.by_node and not cls.deleting:
            del self.classes[(pod.namespace, id(pod.labels))]
        if has_pod_affinity(pod):
            self._account_affinity(pod, node_name, sign)

    def _account_affinity(self, pod: Pod, node_name: str, sign: int) -> None:
        key = affinity_group_key(pod)
        group = self.affinity_groups.get(key)
        if group is None:
            group = self.affinity_groups[key] = AffinityGroup(pod)
            self.groups_made += 1
        count = group.by_node.get(node_name, 0) + sign
        if count:
            group.by_node[node_name] = count
        else:
            group.by_node.pop(node_name, None)
            if not group.by_node:
                del self.affinity_groups[key]
                self.groups_made += 1
                return
        if group.rows is not None:
            row = self._row(node_name)
            if row is None or group.generation != self.columns.generation:
                group.rows = None  # built again when read
            else:
                group.rows[row] += sign

    def affinity_rows(self, group: AffinityGroup) -> tuple[np.ndarray, dict[str, int]]:
        """The group's pods counted per node row, and per node name for nodes that are not rows."""
        columns = self.columns
        if group.rows is None or group.generation != columns.generation:
            index = columns.index
            rows = np.zeros(len(columns.nodes), dtype=np.int64)
            outside = {}
            for name, count in group.by_node.items():
                row = index.get(name)
                if row is None:
                    outside[name] = count
                else:
                    rows[row] += count
            group.rows, group.outside, group.generation = rows, outside, columns.generation
        return group.rows, group.outside

    @watches("deleting")
    def _on_pod_event(self, what: str, pod: Pod) -> None:
        if what != "deleting":
            return
        if self._held is not None:
            self.release()
        if not pod.node_name or pod.is_terminal() or pod.key in self.deleting:
            return
        self.version += 1
        node_name = pod.node_name
        cls = self._class(pod)
        self.deleting[pod.key] = (cls, node_name)
        cls.deleting[node_name] = cls.deleting.get(node_name, 0) + 1
        if cls.watched:
            row = self._row(node_name)
            if row is not None:
                generation = self.columns.generation
                for watched in cls.watched:
                    if watched.generation == generation:
                        watched.live[row] -= 1
                        for key, sums in watched.domain_live.items():
                            sums[self.columns._domains[key][0][row]] -= 1
                        for key, keys in watched.pair_keys.items():
                            keys[row] -= self.columns._domains[key][2]

    # ---------------------------------------------------------------- reading

    def counts(self, matcher: PodMatcher) -> Watched:
        """The columns of `matcher` over the current node rows."""
        if self._held is not None:
            self.release()
        hit = self._last.get(id(matcher))
        if hit is not None and hit[0] is matcher and hit[1].generation == self.columns.generation:
            return hit[1]  # the same matcher object as last time (constraints are cached per template)
        watched = self.watched.get(matcher)
        if watched is None:
            watched = self.watched[matcher] = Watched(matcher)
            for cls in self.classes.values():
                if matcher.matches_labels(cls.namespace, cls.labels):
                    cls.watched.append(watched)
        if watched.generation != self.columns.generation:
            self._build(watched)
        if len(self._last) > 4096:
            self._last.clear()
        self._last[id(matcher)] = (matcher, watched)
        return watched

    def _build(self, watched: Watched) -> None:
        columns = self.columns
        n = len(columns.nodes)
        index = columns.index
        total = np.zeros(n, dtype=np.int64)
        deleting = np.zeros(n, dtype=np.int64)
        for cls in self.classes.values():
            if watched not in cls.watched:
                continue
            for name, count in cls.by_node.items():
                row = index.get(name)
                if row is not None:
                    total[row] += count
            for name, count in cls.deleting.items():
                row = index.get(name)
                if row is not None:
                    deleting[row] += count
        watched.all = total
        watched.live = total - deleting
        watched.live_max = int(watched.live.max()) if n else 0
        watched.domain_live = {}
        watched.pair_keys = {}
        watched.raw_tables = {}
        watched.generation = columns.generation

    def domain_live(self, watched: Watched, key: str) -> np.ndarray:
        """`watched.live` summed per domain of `key` over every row (current node rows)."""
        if self._held is not None:
            self.release()
        sums = watched.domain_live.get(key)
        if sums is None:
            ids, _has, count = self.columns.domains(key)
            sums = watched.domain_live[key] = np.bincount(ids, weights=watched.live, minlength=count).astype(np.int64)
        return sums

    def pair_keys(self, watched: Watched, key: str) -> np.ndarray:
        """Per row `watched.live * (domains of key) + domain id of key`: a node's (matching pods,
        domain) pair as one number."""
        if self._held is not None:
            self.release()
        keys = watched.pair_keys.get(key)
        if keys is None:
            ids, _has, count = self.columns.domains(key)
            keys = watched.pair_keys[key] = watched.live * count + ids
        return keys

    def lowest_priority(self) -> int | None:
        """The lowest priority of the counted pods (bound, not finished), None without any."""
        if self._held is not None:
            self.release()
        return min(self.by_priority, default=None)

    def affinity_groups_now(self) -> list[AffinityGroup]:
        """The groups of the counted pods with pod affinity or anti-affinity terms."""
        if self._held is not None:
            self.release()
        return list(self.affinity_groups.values())
