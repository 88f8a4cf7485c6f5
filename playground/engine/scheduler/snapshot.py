"""Columnar node state for the scheduler (kube-scheduler's cache snapshot, as numpy columns).

One row per node in node-tree order (zones interleaved, `Scheduler.node_order`): allocatable,
requested and non-zero requested cpu/memory, pod counts, and per pod class what the filters that do
not depend on requests decide. A scheduling cycle then filters and scores every node with a few
vector operations instead of one Python call per node and plugin.

Kept current by:
- the store's request accounting (`Store.on_requests`): bind, delete, a pod turning terminal, a node
  re-created under the name of a deleted one;
- the scheduler's node informer: a node's taints or spec.unschedulable changed (that row of every
  cached pod class is recomputed), a node added or removed (the rows are rebuilt in the new order).

A pod class is what NodeUnschedulable, NodeName, TaintToleration and NodeAffinity read of a pod
(tolerations, spec.nodeName, nodeSelector, required node affinity); pods of one template share one.
Its rows hold the first of those filters' statuses (the reference plugins in plugins.py decide it,
once per node and class), so reasons and their order are the plugins' own. The scores keep
kube-scheduler's arithmetic: integers for LeastAllocated and the normalisations, float64 in the
same order of operations for BalancedAllocation (`score`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..objects import PREFER_NO_SCHEDULE, Node, Pod
from ..store import DEFAULT_MEMORY_REQUEST, DEFAULT_MILLI_CPU_REQUEST
from .framework import MAX_NODE_SCORE, OK, UNSCHEDULABLE, UNSCHEDULABLE_AND_UNRESOLVABLE, Status
from .plugins import NODE_AFFINITY, NODE_RESOURCES_FIT, TAINT_TOLERATION, balanced_score, untolerated_taint
from .plugins import least_allocated as least_allocated_one

if TYPE_CHECKING:
    from ..store import Store

MAX_CLASSES = 512  # pod classes kept; past that the cache starts again (classes are per template)

# NodeResourcesFit's reasons by bit: too many pods 1, cpu 2, memory 4 (the plugin's order).
FIT_REASONS = ("Too many pods", "Insufficient cpu", "Insufficient memory")


def fit_status(bits: int, unresolvable: bool) -> Status:
    """The NodeResourcesFit status for a combination of failed checks, shared as the plugin shares it."""
    reasons = tuple(reason for i, reason in enumerate(FIT_REASONS) if bits & (1 << i))
    key = (unresolvable, *reasons)
    statuses = NODE_RESOURCES_FIT._statuses
    status = statuses.get(key)
    if status is None:
        code = UNSCHEDULABLE_AND_UNRESOLVABLE if unresolvable else UNSCHEDULABLE
        status = statuses[key] = Status(code, reasons, NODE_RESOURCES_FIT.name)
    return status


FIT_KEYS = 16  # fit_codes' keys: 3 bits and unresolvable
_FIT_TABLE: list[Status] = []


def fit_status_table() -> list[Status]:
    """The NodeResourcesFit status of each fit_codes key (OK where a key cannot occur: 0 fits, 1 is
    unresolvable without a failed check)."""
    if not _FIT_TABLE:
        _FIT_TABLE.extend(fit_status(key >> 1, bool(key & 1)) if key >> 1 else OK for key in range(FIT_KEYS))
    return list(_FIT_TABLE)


def static_filters(pod: Pod, node: Node, filters) -> Status:
    """The first status of the filters before NodeResourcesFit (they do not read requests)."""
    for plugin in filters:
        if plugin is NODE_RESOURCES_FIT:
            continue
        status = plugin.filter(pod, node)
        if not status.ok:
            return status
    return OK


NO_CLASS = (object(), None)  # matches no pod's tolerations

ROWS = np.arange(1 << 16, dtype=np.int64)  # a window of consecutive rows is a read-only view of it
ROWS.flags.writeable = False


def class_key(pod: Pod) -> tuple:
    return (pod.tolerations, tuple(pod.node_selector.items()), pod.required_node_affinity,
            pod.affinity_node_name, pod.node_name or "")


def class_pod(pod: Pod) -> Pod:
    """A stand-in with the fields of `pod` the request-independent filters read (and nothing that
    changes when `pod` is bound)."""
    return Pod(name="", namespace="", uid=0, labels={}, creation_time=0, tolerations=pod.tolerations,
               node_selector=dict(pod.node_selector), affinity_node_name=pod.affinity_node_name,
               required_node_affinity=pod.required_node_affinity, node_name=pod.node_name)


class PodClass:
    """What the request-independent filters decide for one pod class on every node."""

    __slots__ = ("pod", "status", "table", "_by_content", "ok", "prefer_raw")

    def __init__(self, pod: Pod, nodes: list[Node], filters, simple: bool, special: np.ndarray) -> None:
        self.pod = class_pod(pod)  # the class's fields only: the pod itself gets bound later
        self.table: list[Status] = [OK]
        self._by_content: dict[tuple, int] = {}
        self.status = np.zeros(len(nodes), dtype=np.int32)  # index into table; 0 passes
        rows = np.flatnonzero(special) if simple else range(len(nodes))
        for i in rows:
            self.update(int(i), nodes[int(i)], filters)
        self.ok = self.status == 0
        self.prefer_raw: np.ndarray | None = None

    def update(self, i: int, node: Node, filters) -> None:
        status = static_filters(self.pod, node, filters)
        if status.ok:
            self.status[i] = 0
            return
        key = (status.code, status.reasons, status.plugin)
        index = self._by_content.get(key)
        if index is None:
            index = self._by_content[key] = len(self.table)
            self.table.append(status)
        self.status[i] = index


class NodeColumns:
    """The columns, in the order of `nodes`."""

    def __init__(self, store: "Store", nominated: dict[str, dict[str, Pod]]) -> None:
        self.store = store
        self.nominated = nominated  # the scheduler's nominator: node -> pods nominated to it
        self.nodes: list[Node] = []
        self.names: list[str] = []  # the nodes' names, row by row
        self.index: dict[str, int] = {}
        self.row_of: dict[int, int] = {}
        self.valid = False
        self.generation = 0  # counts rebuilds: rows of different generations are different nodes
        self.dirty: set[str] = set()  # nodes whose taints or spec changed since the last sync
        self.classes: dict[tuple, PodClass] = {}
        self.last_class: tuple = NO_CLASS  # (tolerations, class) of the last simple class asked for
        self.affinity: dict[tuple, np.ndarray] = {}
        self.placements: dict[tuple, Placement] = {}
        self.fit_cache: dict[tuple, list] = {}  # fit_keys: (cpu, memory, priority) -> [log position, keys]
        # Rows whose requests, taints or cordon changed, in order; a placement catches up from its
        # position in this log (log_base: rows dropped from the front when it grew long).
        self.log: list[int] = []
        self.log_base = 0
        # While a run the scheduler placed is bound together: the rows' requested and non-zero
        # requested cpu and memory after its binds, as the placement computed them (kube-scheduler's
        # cache assumes a pod's requests on its node before the bind). requests_changed_many takes
        # them instead of reading each node; the pod counts it still reads, for the run's check.
        self.assumed: tuple[np.ndarray, ...] | None = None
        self._domains: dict[str, tuple] = {}
        self._domain_bits: dict[str, np.ndarray] = {}
        self.spread_shapes: dict[int, tuple] = {}  # PodTopologySpread's score path per constraints
        self.window_domains: dict[tuple, int] = {}  # distinct_domains of windows that are one slice
        self.spread_plans: dict[int, object] = {}  # podtopologyspread.HostZonePlan per constraints
        self._node_affinity_ok: dict[tuple, np.ndarray] = {}
        store.on_requests = self.requests_changed
        store.on_requests_many = self.requests_changed_many

    # ---------------------------------------------------------------- keeping current

    def rebuild(self, nodes: list[Node]) -> None:
        self.nodes = nodes
        self.names = [node.name for node in nodes]
        self.index = {name: i for i, name in enumerate(self.names)}
        # id of a Node -> its row: the object at that row, as `nodes` holds it (requests_changed_many)
        self.row_of = {id(node): i for i, node in enumerate(nodes)}
        n = len(nodes)

        def column(name: str) -> np.ndarray:
            return np.fromiter((getattr(node, name) for node in nodes), dtype=np.int64, count=n)

        self.alloc_cpu = column("allocatable_cpu")
        self.alloc_memory = column("allocatable_memory")
        self.alloc_pods = column("allocatable_pods")
        self.req_cpu = column("requested_cpu")
        self.req_memory = column("requested_memory")
        self.nz_cpu = column("nonzero_cpu")
        self.nz_memory = column("nonzero_memory")
        self.pod_count = column("pod_count")
        # Sums of the pods nominated to each node, and their lowest and highest priority.
        self.nom_cpu = np.zeros(n, dtype=np.int64)
        self.nom_memory = np.zeros(n, dtype=np.int64)
        self.nom_count = np.zeros(n, dtype=np.int64)
        self.nom_min_priority = np.zeros(n, dtype=np.int64)
        self.nom_max_priority = np.zeros(n, dtype=np.int64)
        for name, pods in self.nominated.items():
            i = self.index.get(name)
            if i is not None:
                self._nominated_row(i, pods)
        self.special = np.zeros(n, dtype=bool)  # tainted or unschedulable
        self.prefer = np.zeros(n, dtype=bool)  # has a PreferNoSchedule taint
        self.prefer_count = 0  # rows with one: none, and TaintToleration scores every row alike
        for i, node in enumerate(nodes):
            self._flags(i, node)
        # Rows where a zero allocatable makes LeastAllocated/BalancedAllocation take their other branch.
        self.zero_alloc = (self.alloc_cpu == 0) | (self.alloc_memory == 0)
        self.any_zero_alloc = bool(self.zero_alloc.any())
        self.safe_cpu = np.where(self.alloc_cpu == 0, 1, self.alloc_cpu)
        self.safe_memory = np.where(self.alloc_memory == 0, 1, self.alloc_memory)
        self.classes.clear()
        self.last_class = NO_CLASS
        self.affinity.clear()
        self.placements.clear()
        self.fit_cache.clear()
        self._domains = {}
        self._domain_bits = {}
        self._node_affinity_ok = {}
        self.spread_shapes = {}
        self.window_domains = {}
        self.spread_plans = {}
        self.log_base += len(self.log)
        self.log = []
        self.dirty.clear()
        self.generation += 1
        self.valid = True

    def _flags(self, i: int, node: Node) -> None:
        self.special[i] = bool(node.taints) or node.unschedulable
        prefer = any(t.effect == PREFER_NO_SCHEDULE for t in node.taints)
        self.prefer_count += int(prefer) - int(self.prefer[i])
        self.prefer[i] = prefer

    def domains(self, key: str) -> tuple[np.ndarray, np.ndarray, int]:
        """(per row: the id of its value of label `key`, "" when missing; per row: has the label;
        number of values). Node labels do not change while a node exists."""
        entry = self._domains.get(key)
        if entry is None:
            ids_of: dict[str, int] = {}
            ids = np.fromiter((ids_of.setdefault(node.labels.get(key, ""), len(ids_of)) for node in self.nodes),
                              dtype=np.int64, count=len(self.nodes))
            has = np.fromiter((key in node.labels for node in self.nodes), dtype=bool, count=len(self.nodes))
            entry = self._domains[key] = (ids, has, len(ids_of), ids_of)
        return entry[0], entry[1], entry[2]

    def has_everywhere(self, key: str) -> bool:
        """Every row has label `key`."""
        self.domains(key)
        entry = self._domains[key]
        if len(entry) == 4:
            entry = self._domains[key] = (*entry, bool(entry[1].all()))
        return entry[4]

    def distinct_domains(self, key: str, rows: np.ndarray) -> int:
        """How many values of label `key` the rows `rows` hold (every row has the label). The
        round-robin window is mostly one slice of the rows (a view of ROWS), and repeats: those
        are kept."""
        contiguous = rows.base is ROWS
        if contiguous:
            first, length = int(rows[0]), len(rows)
            found = self.window_domains.get((key, first, length))
            if found is not None:
                return found
        ids, _has, count = self.domains(key)
        found = int(np.count_nonzero(np.bincount(ids[rows], minlength=count)))
        if contiguous:
            if len(self.window_domains) > 4096:
                self.window_domains.clear()
            self.window_domains[(key, first, length)] = found
        return found

    def domain_bits(self, key: str) -> np.ndarray:
        """Per row: 1 << its domain id of `key` (at most 62 domains), to count the domains of a set
        of rows with one OR."""
        bits = self._domain_bits.get(key)
        if bits is None:
            bits = self._domain_bits[key] = np.left_shift(np.int64(1), self.domains(key)[0])
        return bits

    def domain_id(self, key: str, value: str) -> int | None:
        self.domains(key)
        return self._domains[key][3].get(value)

    def node_affinity_ok(self, pod: Pod) -> np.ndarray:
        """Rows that match the pod's nodeSelector and required node affinity (GetRequiredNodeAffinity)."""
        key = (tuple(pod.node_selector.items()), pod.required_node_affinity, pod.affinity_node_name)
        mask = self._node_affinity_ok.get(key)
        if mask is None:
            if key == ((), None, None):
                mask = np.ones(len(self.nodes), dtype=bool)
            else:
                mask = np.fromiter((NODE_AFFINITY.filter(pod, node).ok for node in self.nodes), dtype=bool,
                                   count=len(self.nodes))
            self._node_affinity_ok[key] = mask
        return mask

    def tolerated(self, pod: Pod) -> np.ndarray:
        """Rows whose NoSchedule / NoExecute taints the pod tolerates."""
        mask = np.ones(len(self.nodes), dtype=bool)
        for i in np.flatnonzero(self.special).tolist():
            mask[i] = untolerated_taint(self.nodes[i].taints, pod.tolerations) is None
        return mask

    def invalidate(self) -> None:
        """A node was added or removed: rows are rebuilt in the new order at the next cycle."""
        self.valid = False

    def node_changed(self, name: str) -> None:
        """A node's taints or spec.unschedulable changed."""
        if self.valid:
            self.dirty.add(name)

    def _nominated_row(self, i: int, pods: dict[str, Pod]) -> None:
        self.nom_cpu[i] = sum(p.cpu for p in pods.values())
        self.nom_memory[i] = sum(p.memory for p in pods.values())
        self.nom_count[i] = len(pods)
        self.nom_min_priority[i] = min((p.priority for p in pods.values()), default=0)
        self.nom_max_priority[i] = max((p.priority for p in pods.values()), default=0)

    def nominated_changed(self, name: str) -> None:
        """The pods nominated to a node changed."""
        i = self.index.get(name) if self.valid else None
        if i is not None:
            self._nominated_row(i, self.nominated.get(name, {}))
            self._logged(i)

    def requests_changed(self, node: Node) -> None:
        i = self.index.get(node.name) if self.valid else None
        if i is None or self.nodes[i] is not node:
            return
        self.req_cpu[i] = node.requested_cpu
        self.req_memory[i] = node.requested_memory
        self.nz_cpu[i] = node.nonzero_cpu
        self.nz_memory[i] = node.nonzero_memory
        self.pod_count[i] = node.pod_count
        self._logged(i)

    def requests_changed_many(self, nodes: list[Node]) -> None:
        """requests_changed for each of `nodes` in turn (a node per pod of a run bound together, so
        with repeats), written together: each row's values once, the log as the calls leave it
        (nobody reads the log in between, so where a long log is cut does not matter)."""
        if not self.valid:
            return
        rows = list(map(self.row_of.get, map(id, nodes)))
        if None in rows:  # (a node that is not the object its row holds)
            for node in nodes:
                self.requests_changed(node)
            return
        distinct = list(dict.fromkeys(rows))
        at = np.array(distinct, dtype=np.int64)
        touched = list(map(self.nodes.__getitem__, distinct))
        if self.assumed is not None:
            req_cpu, req_memory, nz_cpu, nz_memory = self.assumed
            self.req_cpu[at] = req_cpu[at]
            self.req_memory[at] = req_memory[at]
            self.nz_cpu[at] = nz_cpu[at]
            self.nz_memory[at] = nz_memory[at]
        else:
            self.req_cpu[at] = [node.requested_cpu for node in touched]
            self.req_memory[at] = [node.requested_memory for node in touched]
            self.nz_cpu[at] = [node.nonzero_cpu for node in touched]
            self.nz_memory[at] = [node.nonzero_memory for node in touched]
        self.pod_count[at] = [node.pod_count for node in touched]
        self.log.extend(rows)
        if len(self.log) > 8 * len(self.nodes) + 64:
            self.log_base += len(self.log)
            self.log = []

    @property
    def log_end(self) -> int:
        """The change log's position after its newest row: what a cache notes as seen."""
        return self.log_base + len(self.log)

    def changed_since(self, seen: int, limit: int | None = None) -> list[int] | None:
        """The rows changed since log position `seen` (oldest first, repeats kept); None when the log
        no longer reaches back that far or more than `limit` changed: recompute every row."""
        start = seen - self.log_base
        if start < 0 or (limit is not None and len(self.log) - start > limit):
            return None
        return self.log[start:]

    def _logged(self, row: int) -> None:
        log = self.log
        log.append(row)
        if len(log) > 8 * len(self.nodes) + 64:  # placements that lag this far recompute everything
            self.log_base += len(log)
            self.log = []

    def sync(self, order: list[Node], filters) -> None:
        if not self.valid or self.nodes is not order:
            self.rebuild(order)
            return
        if not self.dirty:
            return
        dirty, self.dirty = self.dirty, set()
        for name in dirty:
            i = self.index.get(name)
            if i is None:
                continue
            node = self.nodes[i]
            self._flags(i, node)
            for cls in self.classes.values():
                cls.update(i, node, filters)
                cls.ok[i] = cls.status[i] == 0
                cls.prefer_raw = None
            self._logged(i)

    # ---------------------------------------------------------------- per pod

    def pod_class(self, pod: Pod, filters) -> PodClass:
        # Pods of one template hold one tolerations tuple and come in runs: the last class of a
        # pod with only tolerations in its key is kept by that tuple's identity (no key hashing).
        simple = not pod.node_selector and pod.required_node_affinity is None \
            and pod.affinity_node_name is None and not pod.node_name
        if simple and self.last_class[0] is pod.tolerations:
            return self.last_class[1]
        cls = self._pod_class(pod, filters, simple)
        if simple:
            self.last_class = (pod.tolerations, cls)
        return cls

    def _pod_class(self, pod: Pod, filters, simple: bool) -> PodClass:
        key = class_key(pod)
        cls = self.classes.get(key)
        if cls is None:
            if len(self.classes) >= MAX_CLASSES:
                self.classes.clear()
                self.placements.clear()
                self.last_class = NO_CLASS
            cls = self.classes[key] = PodClass(pod, self.nodes, filters, simple, self.special)
        return cls

    def fits(self, pod: Pod) -> np.ndarray:
        """NodeResourcesFit on every row (True: fits)."""
        ok = self.pod_count < self.alloc_pods
        if pod.cpu > 0:
            ok &= self.req_cpu <= self.alloc_cpu - pod.cpu
        if pod.memory > 0:
            ok &= self.req_memory <= self.alloc_memory - pod.memory
        return ok

    def fits_with_nominated(self, pod: Pod, rows: np.ndarray) -> np.ndarray:
        """NodeResourcesFit on `rows` with every pod nominated there counted (NodeInfo.AddPod)."""
        ok = self.pod_count[rows] + self.nom_count[rows] < self.alloc_pods[rows]
        if pod.cpu > 0:
            ok &= self.req_cpu[rows] + self.nom_cpu[rows] <= self.alloc_cpu[rows] - pod.cpu
        if pod.memory > 0:
            ok &= self.req_memory[rows] + self.nom_memory[rows] <= self.alloc_memory[rows] - pod.memory
        return ok

    def fit_codes(self, pod: Pod, rows: np.ndarray | None, with_nominated: np.ndarray | None = None) -> np.ndarray:
        """NodeResourcesFit on `rows` (every row when None) as one key per row: the failed checks'
        bits (too many pods 1, cpu 2, memory 4) times 2, plus 1 when unresolvable; 0 fits. Where
        `with_nominated` (per row of the result) is set, the pods nominated there count. Over most
        of the rows, whole columns cost less than gathering them."""
        def take(column: np.ndarray) -> np.ndarray:
            return column if rows is None else column[rows]

        def plus(column: np.ndarray, extra: np.ndarray) -> np.ndarray:
            values = take(column)
            return values if with_nominated is None else values + take(extra) * with_nominated

        alloc_pods = take(self.alloc_pods)
        over = plus(self.pod_count, self.nom_count) >= alloc_pods  # count + 1 > allocatable
        keys = over.astype(np.int64) << 1
        unresolvable = over & (alloc_pods < 1)
        if pod.cpu > 0:
            alloc = take(self.alloc_cpu)
            bad = pod.cpu > alloc - plus(self.req_cpu, self.nom_cpu)
            keys |= bad.astype(np.int64) << 2
            unresolvable |= bad & (pod.cpu > alloc)
        if pod.memory > 0:
            alloc = take(self.alloc_memory)
            bad = pod.memory > alloc - plus(self.req_memory, self.nom_memory)
            keys |= bad.astype(np.int64) << 3
            unresolvable |= bad & (pod.memory > alloc)
        keys |= unresolvable
        return keys

    def fit_keys(self, pod: Pod) -> np.ndarray:
        """fit_codes on every row, the pods nominated there counted where all of them have the pod's
        priority or more (as a cycle counts them; rows where only some do are the cycle's own
        overrides). Kept per requests and priority and caught up with the change log, so a burst of
        pods of one template that fit nowhere does not recompute every row each cycle."""
        cache = self.fit_cache
        key = (pod.cpu, pod.memory, pod.priority)
        end = self.log_end
        entry = cache.get(key)
        if entry is not None:
            if entry[0] == end:
                return entry[1]
            changed = self.changed_since(entry[0], 32)  # (a row in plain integers ~1.3 µs, 5,000 rows ~50 µs)
            if changed is not None:
                keys = entry[1]
                for row in set(changed):
                    keys[row] = self._fit_key(pod, row)
                entry[0] = end
                return keys
        if len(cache) >= 64:
            cache.clear()
        counted = (self.nom_count > 0) & (self.nom_min_priority >= pod.priority)
        keys = self.fit_codes(pod, None, counted if counted.any() else None)
        cache[key] = [end, keys]
        return keys

    def _fit_key(self, pod: Pod, i: int) -> int:
        """fit_keys on one row, in plain integers."""
        count, cpu, memory = self.pod_count.item(i), self.req_cpu.item(i), self.req_memory.item(i)
        if self.nom_count.item(i) > 0 and self.nom_min_priority.item(i) >= pod.priority:
            count += self.nom_count.item(i)
            cpu += self.nom_cpu.item(i)
            memory += self.nom_memory.item(i)
        alloc_pods, alloc_cpu, alloc_memory = self.alloc_pods.item(i), self.alloc_cpu.item(i), self.alloc_memory.item(i)
        key = unresolvable = 0
        if count >= alloc_pods:
            key |= 2
            unresolvable |= alloc_pods < 1
        if pod.cpu > 0 and pod.cpu > alloc_cpu - cpu:
            key |= 4
            unresolvable |= pod.cpu > alloc_cpu
        if pod.memory > 0 and pod.memory > alloc_memory - memory:
            key |= 8
            unresolvable |= pod.memory > alloc_memory
        return key | unresolvable

    def prefer_raw(self, cls: PodClass, pod: Pod) -> np.ndarray:
        """TaintToleration's raw score (untolerated PreferNoSchedule taints) on every row."""
        if cls.prefer_raw is None:
            raw = np.zeros(len(self.nodes), dtype=np.int64)
            for i in np.flatnonzero(self.prefer):
                raw[i] = TAINT_TOLERATION.score(pod, self.nodes[int(i)])
            cls.prefer_raw = raw
        return cls.prefer_raw

    def affinity_raw(self, pod: Pod) -> np.ndarray:
        """NodeAffinity's raw score (weights of matching preferred terms) on every row; labels do not
        change while a node exists."""
        key = pod.preferred_node_affinity
        raw = self.affinity.get(key)
        if raw is None:
            if len(self.affinity) >= MAX_CLASSES:
                self.affinity.clear()
            raw = np.fromiter((NODE_AFFINITY.score(pod, node) for node in self.nodes), dtype=np.int64,
                              count=len(self.nodes))
            self.affinity[key] = raw
        return raw

    def placement(self, pod: Pod, cls: PodClass) -> "Placement":
        """The feasibility and request-dependent score of pods of this class and requests on every
        row, brought up to date with the rows changed since it was last used."""
        key = (cls, pod.cpu, pod.memory)
        entry = self.placements.get(key)
        end = self.log_end
        if entry is None:
            if len(self.placements) >= MAX_CLASSES:
                self.placements.clear()
            entry = self.placements[key] = Placement(cls, cls.ok & self.fits(pod), self.local_scores(pod, None), end)
            return entry
        if entry.seen == end:
            return entry
        changed = self.changed_since(entry.seen, 64)
        entry.seen = end
        if changed is None:
            entry.feasible = cls.ok & self.fits(pod)
            entry.local = self.local_scores(pod, None)
            return entry
        nodes, ok, feasible, local = self.nodes, cls.ok, entry.feasible, entry.local
        cpu, memory = pod.cpu, pod.memory
        for row in set(changed):
            node = nodes[row]
            feasible[row] = ok[row] and node.pod_count < node.allocatable_pods \
                and (cpu == 0 or cpu <= node.allocatable_cpu - node.requested_cpu) \
                and (memory == 0 or memory <= node.allocatable_memory - node.requested_memory)
            local[row] = local_score(pod, node)
        return entry

    def local_scores(self, pod: Pod, rows: np.ndarray | None) -> np.ndarray:
        """LeastAllocated (non-zero requests) halved plus BalancedAllocation on `rows` (all when None):
        the part of the score that depends only on the node, not on the other nodes scored."""
        def take(column: np.ndarray) -> np.ndarray:
            return column if rows is None else column[rows]

        pod_cpu, pod_memory = pod.cpu, pod.memory
        alloc_cpu = take(self.alloc_cpu)
        alloc_memory = take(self.alloc_memory)
        safe_cpu, safe_memory = take(self.safe_cpu), take(self.safe_memory)
        fit = least_allocated(take(self.nz_cpu) + (pod_cpu or DEFAULT_MILLI_CPU_REQUEST), alloc_cpu, safe_cpu)
        fit += least_allocated(take(self.nz_memory) + (pod_memory or DEFAULT_MEMORY_REQUEST), alloc_memory,
                               safe_memory)
        total = fit // 2
        if pod_cpu != 0 or pod_memory != 0:
            req_cpu = take(self.req_cpu) + pod_cpu
            req_memory = take(self.req_memory) + pod_memory
            f_cpu = np.minimum(req_cpu / safe_cpu, 1.0)
            f_memory = np.minimum(req_memory / safe_memory, 1.0)
            balanced = ((1 - np.abs(f_cpu - f_memory) / 2) * MAX_NODE_SCORE).astype(np.int64)
            if self.any_zero_alloc:
                for j in np.flatnonzero(take(self.zero_alloc)).tolist():
                    balanced[j] = balanced_score(int(req_cpu[j]), int(alloc_cpu[j]), int(req_memory[j]),
                                                 int(alloc_memory[j]))
            total += balanced
        return total

    def score(self, pod: Pod, entry: "Placement", rows: np.ndarray) -> np.ndarray:
        """Σ weight × normalized score of the default score plugins on `rows` (Scheduler.score):
        TaintToleration and NodeAffinity normalized over `rows`, plus the per-node part."""
        total = entry.local[rows]  # a copy: rows is an index array
        if self.prefer_count and self.prefer[rows].any():
            raw = self.prefer_raw(entry.cls, pod)[rows]
            highest = int(raw.max())
            if highest == 0:
                total += MAX_NODE_SCORE * TAINT_TOLERATION.weight
            else:
                total += (MAX_NODE_SCORE - MAX_NODE_SCORE * raw // highest) * TAINT_TOLERATION.weight
        else:
            total += MAX_NODE_SCORE * TAINT_TOLERATION.weight
        if pod.preferred_node_affinity:
            raw = self.affinity_raw(pod)[rows]
            highest = int(raw.max())
            if highest != 0:
                total += MAX_NODE_SCORE * raw // highest * NODE_AFFINITY.weight
        return total


class Placement:
    """Pods of one class and requests: feasible on each row (filters, NodeResourcesFit) and the
    per-node part of their score, caught up with the change log up to `seen`."""

    __slots__ = ("cls", "feasible", "local", "seen")

    def __init__(self, cls: PodClass, feasible: np.ndarray, local: np.ndarray, seen: int) -> None:
        self.cls = cls
        self.feasible = feasible
        self.local = local
        self.seen = seen


def local_score(pod: Pod, node: Node) -> int:
    """local_scores for one node, in plain integer and float arithmetic (plugins.least_allocated,
    plugins.balanced_score)."""
    pod_cpu, pod_memory = pod.cpu, pod.memory
    fit = least_allocated_one(node.nonzero_cpu + (pod_cpu or DEFAULT_MILLI_CPU_REQUEST), node.allocatable_cpu)
    fit += least_allocated_one(node.nonzero_memory + (pod_memory or DEFAULT_MEMORY_REQUEST), node.allocatable_memory)
    score = fit // 2
    if pod_cpu != 0 or pod_memory != 0:
        score += balanced_score(node.requested_cpu + pod_cpu, node.allocatable_cpu,
                                node.requested_memory + pod_memory, node.allocatable_memory)
    return score


def least_allocated(requested: np.ndarray, allocatable: np.ndarray, safe: np.ndarray) -> np.ndarray:
    """plugins.least_allocated on rows: 0 where allocatable is 0 or the request exceeds it."""
    score = (allocatable - requested) * MAX_NODE_SCORE // safe
    return np.where((allocatable != 0) & (requested <= allocatable), score, 0)
