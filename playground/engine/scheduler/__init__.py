"""kube-scheduler: one scheduling cycle per pod (pkg/scheduler/schedule_one.go).

Each cycle tries the pod's nominated node first, then filters nodes from a round-robin start (nodes
listed zone by zone, interleaved, as the scheduler's node tree does) until numFeasibleNodesToFind
feasible nodes are found, scores them, and picks the best with a seeded reservoir-sampling
tie-break. A failure records the per-node reasons in kube-scheduler's words, runs PostFilter
(DefaultPreemption, `preemption.py`), writes the FailedScheduling event and the PodScheduled
condition, and parks the pod in unschedulablePods.

Cluster events (a node added, a node's taints or spec.unschedulable changed, an assigned pod deleted
or finished) move unschedulable pods back to backoffQ / activeQ when a plugin that rejected the pod
says, through its queueing hint, that the event may help (`plugins.py`). Events that arrive while a
pod is being scheduled (its own preemption deleting a victim at once) are checked against that pod
when its attempt fails, as the queue's in-flight event list does. backoffQ is flushed on the 1 s
ticker; unschedulablePods leftovers after 5 minutes on the 30 s ticker.

`attemptsPerTick` (simulation only) bounds how many cycles fit in one tick: the scheduler's
throughput. It does not apply at t=0: a scenario opens in its steady state, every pod created at
t=0 placed at t=0, one cycle after another in queue order exactly as without a bound (the same
nodes, the same RNG draws), however many there are. Within one instant the scheduler runs after
every other component (see simulation.py).

Filters and scores run on columnar node state (`snapshot.py`): every node's verdict and score as
numpy vector operations, with the same statuses, window, next_start, scores and tie-break draws as
the per-node plugins in `plugins.py`, which stay the reference (tests/test_scheduler_columnar.py).
On 256 nodes or more, consecutive pods of one template are placed by one compiled loop that runs
their cycles on those columns to the same nodes and draws (`equivalence.py`); a pod alone has its
cycle read by the same compiled code in one call (`equivalence.place_one`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

import numpy as np

from ..clock import PHASE_SCHEDULER, Wakeup
from ..objects import FAILED, FALSE, PREFER_NO_SCHEDULE, SUCCEEDED, TRUE, Node, Pod, Taint, set_attributes
from ..store import DEFAULT_MEMORY_REQUEST, DEFAULT_MILLI_CPU_REQUEST, watches
from .framework import (
    ASSIGNED_POD_ADD,
    ASSIGNED_POD_DELETE,
    MAX_NODE_SCORE,
    NODE_ADD,
    NODE_TAINT_UPDATE,
    OK,
    UNSCHEDULABLE_AND_UNRESOLVABLE,
    ClusterEvent,
    NodeInfo,
    Status,
    default_normalize,
)
from .plugins import (
    DEFAULT_FILTERS,
    DEFAULT_SCORES,
    FILTERS_BY_NAME,
    NODE_AFFINITY,
    NODE_RESOURCES_FIT,
    TAINT_TOLERATION,
    balanced_score,
)
from .preemption import DefaultPreemption
from .queue import SchedulingQueue
from .snapshot import FIT_KEYS, ROWS, NodeColumns, fit_status_table
from .topology import HINT_EVENTS, Cycle, Topology

if TYPE_CHECKING:
    from ..simulation import Simulation

MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5
BACKOFF_FLUSH_PERIOD_MS = 1000
UNSCHEDULABLE_FLUSH_PERIOD_MS = 30_000
NO_NODES_AVAILABLE = "no nodes available to schedule pods"
NOTE_LENGTH_LIMIT = 1024
# Runs of equivalent pods (equivalence.py) from this many nodes and pods: on fewer, one cycle costs
# less than copying the columns for the compiled loop.
RUN_NODES = 256
RUN_PODS = 4


@dataclass(slots=True)
class SchedulerConfig:
    scheduler_name: str = "default-scheduler"
    percentage_of_nodes_to_score: int = 0
    pod_initial_backoff_seconds: int = 1
    pod_max_backoff_seconds: int = 10
    attempts_per_tick: int = 100
    min_candidate_nodes_percentage: int = 10
    min_candidate_nodes_absolute: int = 100


def num_feasible_nodes_to_find(num_all_nodes: int, percentage: int) -> int:
    """numFeasibleNodesToFind: all nodes below 100; else the percentage (adaptive when 0:
    50 - nodes/125, at least 5 %), at least 100 nodes."""
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND or percentage >= 100:
        return num_all_nodes
    adaptive = percentage
    if adaptive <= 0:
        adaptive = 50 - num_all_nodes // 125
        if adaptive < MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND:
            adaptive = MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND
    num = num_all_nodes * adaptive // 100
    return max(num, MIN_FEASIBLE_NODES_TO_FIND)


def feasible_window(feasible: np.ndarray, start: int, to_find: int) -> tuple[np.ndarray, int]:
    """The rows findNodesThatPassFilters keeps: from `start`, round-robin over the rows, the first
    `to_find` feasible ones; and how many rows that took (all of them when fewer are feasible).
    The common case (a window of feasible rows that does not wrap) is a slice of one range.
    (`a.nonzero()[0]`, not np.flatnonzero: the same array for one call, not three.)"""
    count = len(feasible)
    end = start + to_find
    if end <= count and np.count_nonzero(feasible[start:end]) == to_find:
        return ROWS[start:end] if end <= len(ROWS) else np.arange(start, end), to_find
    # Some rows in reach are rejected (a tainted zone's, full nodes): most windows still end within
    # twice their size.
    after = feasible[start:start + 2 * to_find].nonzero()[0]
    if len(after) < to_find and start + 2 * to_find < count:
        after = feasible[start:].nonzero()[0]  # many rejected rows: every feasible one from start on
    after += start
    if len(after) >= to_find:
        rows = after[:to_find]
        return rows, int(rows[-1]) - start + 1
    # The window wraps past the last row to the first ones.
    rows = np.concatenate((after, feasible[:start].nonzero()[0][:to_find - len(after)]))
    if len(rows) == to_find:
        return rows, (int(rows[-1]) - start) % count + 1
    return rows, count


def fit_error_message(num_all_nodes: int, statuses: dict[str, Status], post_filter_message: str = "",
                      absent: Status | None = None) -> str:
    """FitError.Error(): "0/N nodes are available: <sorted histogram>. <post filter message>."

    `statuses` holds the nodes with their own status; the others (absent) count with `absent`'s
    reasons. Each part is appended as " %v.", so a PostFilter message that is itself a FitError ends
    in "..", exactly as kube-scheduler prints it.
    """
    histogram: dict[str, int] = {}
    for status in statuses.values():
        for reason in status.reasons:
            histogram[reason] = histogram.get(reason, 0) + 1
    return format_fit_error(num_all_nodes, histogram, len(statuses), post_filter_message, absent)


def format_fit_error(num_all_nodes: int, histogram: dict[str, int], num_statuses: int, post_filter_message: str,
                     absent: Status | None, reason_text: Callable[[str], str] | None = None) -> str:
    missing = num_all_nodes - num_statuses
    if missing > 0 and absent is not None:
        for reason in absent.reasons:
            histogram[reason] = histogram.get(reason, 0) + missing
    if reason_text is not None:
        # the release's wording of a reason; reasons that read the same are counted together
        merged: dict[str, int] = {}
        for reason, count in histogram.items():
            text = reason_text(reason)
            merged[text] = merged.get(text, 0) + count
        histogram = merged
    message = f"0/{num_all_nodes} nodes are available:"
    parts = sorted(f"{count} {reason}" for reason, count in histogram.items())
    if parts:
        message += " " + ", ".join(parts) + "."
    if post_filter_message:
        message += " " + post_filter_message + "."
    return message


def truncate_message(message: str) -> str:
    """truncateMessage: an event note is at most NoteLengthLimit (1024) characters; the PodScheduled
    condition keeps the whole message."""
    if len(message) <= NOTE_LENGTH_LIMIT:
        return message
    return message[:NOTE_LENGTH_LIMIT - 4] + " ..."


class Diagnosis:
    """framework.Diagnosis: per-node statuses, the status of the nodes not listed (PreFilter), and the
    plugins that rejected the pod (UnschedulablePlugins).

    The vectorised cycle records its rejected nodes as columns (rows in node-tree order, each an
    index into a table of statuses); `statuses` is then built on first use, in the order the nodes
    were evaluated, and the FitError histogram, the plugins and preemption's node codes come from
    the count of each table entry."""

    __slots__ = ("_statuses", "absent", "_plugins", "_nodes", "_rows", "_ids", "_table", "_counts", "_index")

    def __init__(self) -> None:
        self._statuses: dict[str, Status] | None = {}
        self.absent: Status | None = None
        self._plugins: set[str] | None = set()
        self._nodes: list[Node] | None = None
        self._rows: np.ndarray | None = None
        self._ids: np.ndarray | None = None
        self._table: list[Status] = []
        self._counts: list[int] | None = None
        self._index: dict[str, int] | None = None

    def set_rejected(self, nodes: list[Node], rows: np.ndarray, ids: np.ndarray, table: list[Status],
                     index: dict[str, int] | None = None) -> None:
        """`index`: the row of each node name in `nodes`, when known."""
        self._nodes, self._rows, self._ids, self._table, self._index = nodes, rows, ids, table, index
        self._statuses = None
        self._plugins = None
        self._counts = None

    def _table_counts(self) -> list[int]:
        """How many rejected nodes have each table entry."""
        if self._counts is None:
            self._counts = np.bincount(self._ids, minlength=len(self._table)).tolist()
        return self._counts

    @property
    def statuses(self) -> dict[str, Status]:
        if self._statuses is None:
            nodes, table = self._nodes, self._table
            self._statuses = {nodes[r].name: table[i] for r, i in zip(self._rows.tolist(), self._ids.tolist())}
        return self._statuses

    @property
    def plugins(self) -> set[str]:
        if self._plugins is None:
            table = self._table
            self._plugins = {table[i].plugin for i, count in enumerate(self._table_counts()) if count}
        return self._plugins

    def num_statuses(self) -> int:
        return len(self._rows) if self._statuses is None else len(self._statuses)

    def get(self, node_name: str) -> Status:
        """NodeToStatus.Get: a node without its own status has the absent status (by default
        UnschedulableAndUnresolvable)."""
        if self._statuses is not None:
            status = self._statuses.get(node_name)
        else:
            status = self._get_columnar(node_name) if node_name else None
        if status is not None:
            return status
        return self.absent if self.absent is not None else Status(UNSCHEDULABLE_AND_UNRESOLVABLE)

    def _get_columnar(self, node_name: str) -> Status | None:
        if self._index is not None:
            row = self._index.get(node_name)
            if row is None:
                return None
            found = np.flatnonzero(self._rows == row)
            return self._table[int(self._ids[found[0]])] if len(found) else None
        for j, row in enumerate(self._rows.tolist()):
            if self._nodes[row].name == node_name:
                return self._table[int(self._ids[j])]
        return None

    def message(self, num_all_nodes: int, post_filter_message: str = "",
                reason_text: Callable[[str], str] | None = None) -> str:
        """FitError.Error() of this diagnosis."""
        if self._statuses is not None:
            histogram: dict[str, int] = {}
            for status in self._statuses.values():
                for reason in status.reasons:
                    histogram[reason] = histogram.get(reason, 0) + 1
            return format_fit_error(num_all_nodes, histogram, len(self._statuses), post_filter_message, self.absent,
                                    reason_text)
        histogram = {}
        for status, count in zip(self._table, self._table_counts()):
            if count:
                for reason in status.reasons:
                    histogram[reason] = histogram.get(reason, 0) + count
        return format_fit_error(num_all_nodes, histogram, len(self._rows), post_filter_message, self.absent,
                                reason_text)

    def count_with_code(self, order: list[Node], code: int) -> int | None:
        """How many rows rows_with_code would give, from the counts per status (no pass over the
        rows); None when this diagnosis is not columnar over `order`."""
        if self._statuses is not None or self._nodes is not order:
            return None
        return sum(count for status, count in zip(self._table, self._table_counts()) if status.code == code)

    def rows_with_code(self, order: list[Node], code: int) -> np.ndarray | None:
        """The rows of `order` whose status has `code`, ascending (node-tree order); None when this
        diagnosis is not columnar over `order`."""
        if self._statuses is not None or self._nodes is not order:
            return None
        table, rows = self._table, self._rows
        matches = [status.code == code for status in table]
        used = [count > 0 for count in self._table_counts()]
        if not any(m and u for m, u in zip(matches, used)):
            return np.zeros(0, dtype=np.int64)
        mask = np.zeros(len(order), dtype=bool)
        if all(m or not u for m, u in zip(matches, used)):  # every rejected node has it
            if len(rows) == len(order):
                return np.arange(len(order))
            mask[rows] = True
        else:
            mask[rows[np.array(matches)[self._ids]]] = True
        return np.flatnonzero(mask)


@dataclass(slots=True)
class Attempt:
    """The last scheduling attempt of a pod, kept so the UI can say why it is pending."""

    time: int
    message: str
    diagnosis: Diagnosis
    post_filter_message: str = ""
    nominated_node: str = ""
    unschedulable_plugins: frozenset[str] = frozenset()

    @property
    def statuses(self) -> dict[str, Status]:
        return self.diagnosis.statuses


class Scheduler:
    # A pod's cycle on the node columns runs compiled where the compiled code models it
    # (equivalence.place_one); False runs every one in numpy (the reference its test compares with).
    compiled_cycle = True

    def __init__(self, sim: "Simulation", config: SchedulerConfig) -> None:
        self.sim = sim
        self.config = config
        self.queue = SchedulingQueue(config.pod_initial_backoff_seconds * 1000, config.pod_max_backoff_seconds * 1000,
                                     sim.release.pop_from_backoff_q)
        # SchedulerPopFromBackoffQ: pods popped from backoffQ at this instant (each at most once an
        # instant, where kube-scheduler would retry it a cycle later)
        self._popped_backoff: tuple[int, set[str]] = (-1, set())
        self.filters = DEFAULT_FILTERS
        self.scores = DEFAULT_SCORES
        self.next_start = 0
        self._order: list[Node] | None = None
        self.nominated: dict[str, dict[str, Pod]] = {}  # node -> pods nominated to it (the nominator)
        self._nominated_at: dict[str, str] = {}  # pod key -> node it is indexed under
        self.last_attempt: dict[str, Attempt] = {}
        self._run = Wakeup(sim.clock, PHASE_SCHEDULER, "scheduler.run")
        self._leftover_timer: int | None = None
        self._budget_tick = -1
        self._budget_used = 0
        self._events: list[ClusterEvent] = []
        self._in_run = False
        # What each node's taints and spec.unschedulable were, to tell an update's old and new state.
        self._node_seen: dict[str, tuple[tuple[Taint, ...], bool]] = {}
        # Nodes with a PreferNoSchedule taint: only then does TaintToleration's score vary.
        self._prefer_no_schedule: set[str] = set()
        # Per-node columns for the vectorised filter and score (snapshot.py).
        self.columns = NodeColumns(sim.store, self.nominated)
        # PodTopologySpread and InterPodAffinity (topology.py): counts of matching pods per node, and
        # the current attempt's cycle state.
        self.topology = Topology(sim, self.columns, self.node_order, self.current_filters)
        self._cycle: Cycle | None = None
        # Cycles that fitted nowhere, by (namespace, id(labels)): (labels, run key, what it read, its
        # Diagnosis); see _no_fit_again.
        self._no_fit: dict[tuple[str, int], tuple] = {}
        # unschedulablePods grouped for the hints (_unschedulable_groups), with the queue's
        # unschedulable_version it was made at; None once a pod of it changed.
        self._hint_groups: tuple[int, list] | None = None
        # PostFilter: DefaultPreemption (set to None to run without preemption).
        self.preemption: DefaultPreemption | None = DefaultPreemption(self)
        # SchedulerAsyncPreemption: the candidates a failing cycle's PostFilter chose, prepared (victims
        # deleted) once the cycle has written its failure (None outside a failure's handling).
        self._async_candidates: list | None = None
        # Told (placed, pods to place) while the pods created at t=0 are placed: a large scenario
        # takes a while to open, and the CLI and the TUI show how far it got.
        self.progress: Callable[[int, int], None] | None = None
        sim.store.pod_watchers.append(self._on_pod_event)
        sim.store.together_watchers[self._on_pod_event] = self._on_pods_event
        sim.store.node_watchers.append(self._on_node_event)

    # ---------------------------------------------------------------- informers

    @watches("added", "bound", "phase", "deleting", "nominated", "removed")
    def _on_pod_event(self, what: str, pod: Pod) -> None:
        if self._hint_groups is not None and pod.key in self.queue.unschedulable:
            self._hint_groups = None  # (what the grouping read of the pod may have changed)
        if what == "nominated":
            self._index_nomination(pod)
            return
        if what == "removed" or (what == "deleting" and not pod.node_name):
            self._forget_nomination(pod)
            self.queue.delete(pod.key)
            self.last_attempt.pop(pod.key, None)
            if what == "removed" and pod.node_name and not pod.is_terminal():
                self._cluster_event(ClusterEvent(ASSIGNED_POD_DELETE, pod.node_name, pod=pod))
            return
        if what == "added" and not pod.node_name and not pod.is_terminal():
            self.queue.add(pod.key, pod.priority, self.sim.clock.now)
            self._kick(self.sim.clock.now)
        elif what == "bound":
            self._forget_nomination(pod)
            self.queue.done(pod.key)
            if self.topology.rejected:
                self._cluster_event(ClusterEvent(ASSIGNED_POD_ADD, pod.node_name, pod=pod))
        elif what == "phase" and pod.is_terminal():
            if pod.node_name:
                # A finished pod no longer holds its requests: as good as deleted for the others.
                self._cluster_event(ClusterEvent(ASSIGNED_POD_DELETE, pod.node_name, pod=pod))
            else:
                self._forget_nomination(pod)
                self.queue.delete(pod.key)

    def _on_pods_event(self, what: str, pods: list[Pod]) -> None:
        """_on_pod_event for each of `pods` in turn: pods created together (a ReplicaSet's batch)
        join the queue and the scheduler is woken once, as the first of them woke it (the same
        instant; the others found it woken); a run bound together leaves the queue and the
        nominator without a call per pod."""
        if self._hint_groups is not None and not self.queue.unschedulable.keys().isdisjoint([p.key for p in pods]):
            self._hint_groups = None  # (as _on_pod_event drops it)
        if what == "bound" and not self.topology.rejected:
            # (a run bound together: no pod the topology plugins rejected waits for these binds)
            # (the nominator and the queue share nothing: each is told of the whole run in turn)
            keys = [pod.key for pod in pods]
            nominated_at = self._nominated_at
            if nominated_at and not nominated_at.keys().isdisjoint(keys):
                for pod in pods:
                    if pod.key in nominated_at:
                        self._forget_nomination(pod)
            self.queue.done_many(keys)
            return
        if what == "phase":  # (a Running report concerns the scheduler only for a pod that finished)
            for pod in pods:
                if pod.phase == SUCCEEDED or pod.phase == FAILED:
                    self._on_pod_event(what, pod)
            return
        if what != "added":
            for pod in pods:
                self._on_pod_event(what, pod)
            return
        now = self.sim.clock.now
        waiting = [pod for pod in pods if not pod.node_name and pod.phase != SUCCEEDED and pod.phase != FAILED]
        if waiting:
            self.queue.add_many([pod.key for pod in waiting], [pod.priority for pod in waiting], now)
            self._kick(now)

    def _on_node_event(self, what: str, node: Node) -> None:
        if what in ("added", "taints"):
            if any(t.effect == PREFER_NO_SCHEDULE for t in node.taints):
                self._prefer_no_schedule.add(node.name)
            else:
                self._prefer_no_schedule.discard(node.name)
        elif what == "removed":
            self._prefer_no_schedule.discard(node.name)
        if what in ("added", "removed"):
            self.columns.invalidate()
        elif what in ("taints", "spec"):
            self.columns.node_changed(node.name)
        if what == "added":
            self._order = None
            self._node_seen[node.name] = (tuple(node.taints), node.unschedulable)
            self._cluster_event(ClusterEvent(NODE_ADD, node.name))
        elif what == "removed":
            self._order = None
            self._node_seen.pop(node.name, None)
        elif what in ("taints", "spec"):
            old = self._node_seen.get(node.name, ((), False))
            new = (tuple(node.taints), node.unschedulable)
            if new != old:
                self._node_seen[node.name] = new
                self._cluster_event(ClusterEvent(NODE_TAINT_UPDATE, node.name, old[0], old[1]))

    def _cluster_event(self, event: ClusterEvent) -> None:
        """Record an event for the queueing hints, processed at the scheduler's next run at this
        instant (even when this tick's cycle budget is spent) or, for a pod being scheduled, when
        its attempt ends."""
        if self._in_run:
            self._events.append(event)
        elif self.queue.unschedulable:
            self._events.append(event)
            self._kick(self.sim.clock.now, force=True)

    def _index_nomination(self, pod: Pod) -> None:
        self._forget_nomination(pod)
        if pod.nominated_node_name and not pod.node_name:
            self.nominated.setdefault(pod.nominated_node_name, {})[pod.key] = pod
            self._nominated_at[pod.key] = pod.nominated_node_name
            self.columns.nominated_changed(pod.nominated_node_name)

    def _forget_nomination(self, pod: Pod) -> None:
        """Drop the pod from the nominator (by where it was indexed: binding clears the field first)."""
        node_name = self._nominated_at.pop(pod.key, None)
        if node_name is not None:
            pods = self.nominated.get(node_name)
            if pods is not None:
                pods.pop(pod.key, None)
                if not pods:
                    del self.nominated[node_name]
            self.columns.nominated_changed(node_name)

    def nominated_pods(self, node_name: str) -> list[Pod]:
        """NominatedPodsForNode."""
        return list(self.nominated.get(node_name, {}).values())

    # ---------------------------------------------------------------- queueing hints

    # Pods that share a template and their rejecting plugins share the hints' answer to a batch of
    # events (_process_events); False asks for each pod (the reference the tests compare with).
    memo_hints = True

    def worth_requeuing(self, pod: Pod, plugins: frozenset[str], events: list[ClusterEvent]) -> bool:
        """isPodWorthRequeuing over a batch of events: a pod rejected by no plugin goes back on any
        event; otherwise some rejecting plugin registered for the event must say Queue."""
        if not plugins:
            return True
        nodes = self.sim.store.nodes
        for event in events:
            node = nodes.get(event.node) if event.node else None
            for name in plugins:
                plugin = FILTERS_BY_NAME.get(name)
                if plugin is not None and event.kind in plugin.events and plugin.hint(pod, event, node):
                    return True
                if name in HINT_EVENTS and event.kind in HINT_EVENTS[name] and self.topology.hint(name, pod, event):
                    return True
        return False

    def _process_events(self, now: int) -> None:
        """Deliver the recorded cluster events to the pods in unschedulablePods."""
        if not self._events:
            return
        events, self._events = self._events, []
        if not self.queue.unschedulable:
            return
        pods = self.sim.store.pods
        if not self.memo_hints:
            def worth(info) -> bool:
                pod = pods.get(info.key)
                return pod is None or self.worth_requeuing(pod, info.unschedulable_plugins, events)

            self.queue.move_matching(now, worth)
            return
        # The hints read of a pod only what a cycle does (equivalence's run key, its labels): pods
        # of one template rejected by the same plugins get one answer for these events (thousands
        # of Pending replacements during an outage, each told of every bind that may help).
        moving = []
        for first, plugins, keys in self._unschedulable_groups():
            pod = pods.get(first)
            if pod is None or self.worth_requeuing(pod, plugins, events):
                moving += keys
        self.queue.move_keys(now, moving)

    def _unschedulable_groups(self) -> list[tuple[str, frozenset[str], list[str]]]:
        """The pods of unschedulablePods as (first key, rejecting plugins, keys) by template: one
        namespace, labels dict and run key (equivalence._RUN_KEY), the same plugins; a pod gone
        alone. Kept while no pod joins or leaves unschedulablePods (the queue's
        unschedulable_version) and no pod of it changes (_on_pod_event): while pods that fit
        nowhere wait, each bind of the others delivers its event to all of them."""
        queue = self.queue
        if self._hint_groups is not None and self._hint_groups[0] == queue.unschedulable_version:
            return self._hint_groups[1]
        pods, run_key = self.sim.store.pods, _equivalence._RUN_KEY
        groups: list[tuple[str, frozenset[str], list[str]]] = []
        by_template: dict[tuple, list[tuple]] = {}
        for key, info in queue.unschedulable.items():
            pod = pods.get(key)
            plugins = info.unschedulable_plugins
            if pod is None:
                groups.append((key, plugins, [key]))
                continue
            shape, labels = run_key(pod), pod.labels
            alike = by_template.setdefault((pod.namespace, id(labels), plugins), [])
            for seen_labels, seen_shape, keys in alike:
                if seen_labels is labels and seen_shape == shape:
                    keys.append(key)
                    break
            else:
                keys = [key]
                alike.append((labels, shape, keys))
                groups.append((key, plugins, keys))
        self._hint_groups = (queue.unschedulable_version, groups)
        return groups

    # ---------------------------------------------------------------- run loop

    def _attempts(self, now: int) -> int:
        """Cycles allowed in this tick: attemptsPerTick, unbounded at t=0 (the scenario opens in its
        steady state)."""
        return self.config.attempts_per_tick if now > 0 else 1 << 62

    def _kick(self, due: int, force: bool = False) -> None:
        tick = self.sim.tick
        if not force and due // tick == self._budget_tick and self._budget_used >= self._attempts(due):
            due = (due // tick + 1) * tick
        self._run.arm(due)

    def run(self) -> None:
        self._run.fired()
        now = self.sim.clock.now
        queue = self.queue
        progress = self.progress if now == 0 else None
        self._in_run = True
        try:
            self._process_events(now)
            if now % BACKOFF_FLUSH_PERIOD_MS == 0:
                queue.flush_backoff(now)
            tick_index = now // self.sim.tick
            if tick_index != self._budget_tick:
                self._budget_tick, self._budget_used = tick_index, 0
            pods = self.sim.store.pods
            attempts = self._attempts(now)
            total = len(queue.infos) if progress is not None else 0
            cycles = reported = 0
            place_run = None
            while self._budget_used < attempts:
                info = queue.pop()
                if info is None and queue.pop_from_backoff:
                    info = self._pop_backoff(now)
                if info is None:
                    break
                if progress is not None and cycles >= reported:
                    progress(cycles, total)
                    reported = cycles // 1000 * 1000 + 1000
                pod = pods.get(info.key)
                if pod is None or pod.node_name or pod.deletion_timestamp is not None or pod.is_terminal():
                    queue.done(info.key)
                    continue
                left = attempts - self._budget_used
                known = self._no_fit_again(pod) if self._no_fit and self.memo_no_fit else None
                if known is None and left >= RUN_PODS and len(self.node_order()) >= RUN_NODES:
                    if place_run is None:
                        from .equivalence import place_run  # here: equivalence imports this module
                    placed = place_run(self, pod, info, left, RUN_PODS)
                    if placed:
                        cycles += placed
                        continue
                self._budget_used += 1
                cycles += 1
                if known is not None:  # (a run would not start: its first pod fits nowhere)
                    self._fail(pod, info, known)
                else:
                    self.schedule_one(pod, info)
                if self._events:
                    self._process_events(now)
        finally:
            self._in_run = False
        if now == 0:
            # The t=0 placement spends at most this tick's budget: later instants of tick 0 are bounded.
            self._budget_used = min(self._budget_used, self.config.attempts_per_tick)
            if progress is not None:
                progress(cycles, total)
        self._rearm(now)

    def _pop_backoff(self, now: int):
        """activeQ is empty: the next pod of backoffQ (SchedulerPopFromBackoffQ)."""
        if self._popped_backoff[0] != now:
            self._popped_backoff = (now, set())
        popped = self._popped_backoff[1]
        info = self.queue.pop_backoff(popped)
        if info is not None:
            popped.add(info.key)
        return info

    def _rearm(self, now: int) -> None:
        if self.queue.has_active():
            self._kick(now)
        elif self.queue.pop_from_backoff and self.queue.has_backoff():
            # only pods already retried at this instant are left in backoffQ: the next tick
            self._kick((now // self.sim.tick + 1) * self.sim.tick)
        else:
            expiry = self.queue.next_backoff_expiry()
            if expiry is not None:
                # The first tick of the 1 s backoff flush at which the pod's backoff is over.
                due = max(expiry, now + 1)
                self._kick(-(-due // BACKOFF_FLUSH_PERIOD_MS) * BACKOFF_FLUSH_PERIOD_MS)
        if self.queue.unschedulable and self._leftover_timer is None:
            self._leftover_timer = self.sim.clock.call_at(
                -(-(now + 1) // UNSCHEDULABLE_FLUSH_PERIOD_MS) * UNSCHEDULABLE_FLUSH_PERIOD_MS,
                PHASE_SCHEDULER, "scheduler.flush_unschedulable")

    def flush_unschedulable(self) -> None:
        self._leftover_timer = None
        now = self.sim.clock.now
        if self.queue.flush_unschedulable_leftover(now):
            self._kick(now)
        self._rearm(now)

    # ---------------------------------------------------------------- one cycle

    def node_order(self) -> list[Node]:
        """nodeTree.list(): one node from each zone in turn."""
        if self._order is None:
            zones = [list(nodes.values()) for nodes in self.sim.store.nodes_by_zone.values()]
            order: list[Node] = []
            depth = 0
            while True:
                row = [nodes[depth] for nodes in zones if depth < len(nodes)]
                if not row:
                    break
                order.extend(row)
                depth += 1
            self._order = order
        return self._order

    def run_filters(self, pod: Pod, node: Node | NodeInfo, with_nominated: bool = True) -> Status:
        """RunFilterPluginsWithNominatedPods: nominated pods of equal or higher priority count as if
        they ran on the node (lower-priority ones are ignored: the pod may take room freed for
        them). Kubernetes runs the filters with and without them; with our filters, passing with
        them implies passing without."""
        target: Node | NodeInfo = node
        if with_nominated:
            nominated = self.nominated.get(node.name)
            if nominated:
                extra = [p for p in nominated.values() if p.priority >= pod.priority and p.key != pod.key]
                if extra:
                    target = node.copy() if isinstance(node, NodeInfo) else NodeInfo(node)
                    for other in extra:
                        target.add_pod(other)
        if (self.filters is DEFAULT_FILTERS and not target.taints and not target.unschedulable
                and not pod.node_name and not pod.node_selector and pod.required_node_affinity is None
                and pod.affinity_node_name is None):
            # NodeUnschedulable, NodeName, TaintToleration and NodeAffinity cannot reject here.
            status = NODE_RESOURCES_FIT.filter(pod, target)
        else:
            status = OK
            for plugin in self.filters:
                status = plugin.filter(pod, target)
                if not status.ok:
                    break
        if not status.ok or self.filters is not DEFAULT_FILTERS:
            return status
        # PodTopologySpread and InterPodAffinity come after NodeResourcesFit in the default profile.
        cycle = self._cycle
        if cycle is None or cycle.pod is not pod:
            cycle = self.topology.cycle(pod)
        return cycle.filter(target) if cycle.filters else status

    def cycle_of(self, pod: Pod) -> Cycle:
        """The current attempt's cycle state for `pod` (a fresh one outside an attempt)."""
        cycle = self._cycle
        if cycle is None or cycle.pod is not pod:
            cycle = self.topology.cycle(pod)
        return cycle

    def resources_only(self, pod: Pod, node: Node) -> bool:
        """True when only NodeResourcesFit can reject `pod` on `node` and no nominated pod counts."""
        return (self.filters is DEFAULT_FILTERS and not node.taints and not node.unschedulable
                and not pod.node_name and not pod.node_selector and pod.required_node_affinity is None
                and pod.affinity_node_name is None and node.name not in self.nominated
                and not self.cycle_of(pod).filters)

    def prefilter_node_names(self, pod: Pod) -> set[str] | None:
        """NodeAffinity PreFilter: required affinity to specific node names (metadata.name In, as
        DaemonSet pods have) narrows the nodes to evaluate; None means all nodes."""
        names: set[str] | None = None
        if pod.affinity_node_name is not None:
            names = {pod.affinity_node_name}
        required = pod.required_node_affinity
        if required is not None:
            union: set[str] | None = set()
            for term in required:
                term_names: set[str] | None = None
                for req in term.match_fields:
                    if req.key == "metadata.name" and req.operator == "In":
                        values = set(req.values)
                        term_names = values if term_names is None else term_names & values
                if term_names is None:
                    union = None
                    break
                union |= term_names
            if union is not None:
                names = union if names is None else names & union
        return names

    def find_nodes_that_fit(self, pod: Pod) -> tuple[list[Node], Diagnosis]:
        if pod.nominated_node_name:
            # evaluateNominatedNode: the node preemption made room on is tried first.
            node = self.sim.store.nodes.get(pod.nominated_node_name)
            if node is not None and self.run_filters(pod, node).ok:
                return [node], Diagnosis()
        order = self.node_order()
        names = self.prefilter_node_names(pod)
        if names is not None or self.filters is not DEFAULT_FILTERS or not order:
            return self._find_nodes_one_by_one(pod, order, names)
        rows, diagnosis, _ = self._find_rows(pod, order)
        return [order[r] for r in rows.tolist()], diagnosis

    def _find_rows(self, pod: Pod, order: list[Node], diagnose: bool = True):
        """findNodesThatPassFilters on the columns: every node's verdict at once, then the
        round-robin window: from next_start, nodes in order until numFeasibleNodesToFind feasible
        ones; next_start moves on by the nodes that window covered (feasible and rejected).

        Without `diagnose`, the rejected nodes' statuses are recorded only when no node fits: a
        cycle that binds drops its Diagnosis unread (a tainted zone rejects rows in every window)."""
        columns = self.columns
        columns.sync(order, self.filters)
        cls = columns.pod_class(pod, self.filters)
        placement = columns.placement(pod, cls)
        feasible = placement.feasible
        overrides: dict[int, Status] = {}
        counted = None
        cycle = self.cycle_of(pod)
        extra = cycle.verdict() if cycle.filters else None
        if extra is not None:
            feasible = feasible & (extra[0] == 0)
        if self.nominated:
            # Nodes with nominated pods of equal or higher priority: with them counted, from their
            # sums where all of them count; one by one (the plain filters) where only some do and on
            # the pod's own nominated node (it does not count itself).
            feasible = feasible.copy()
            has = columns.nom_count > 0
            counted = has & (columns.nom_min_priority >= pod.priority)
            some = has & ~counted & (columns.nom_max_priority >= pod.priority)
            own = columns.index.get(pod.nominated_node_name) if pod.nominated_node_name else None
            if own is not None and has[own]:
                counted[own] = False
                some[own] = True
            if extra is not None:  # nominated pods change the spread and affinity counts: per node
                some |= counted
                counted[:] = False
            rows = np.flatnonzero(counted)
            if len(rows):
                feasible[rows] = cls.ok[rows] & columns.fits_with_nominated(pod, rows)
            for i in np.flatnonzero(some).tolist():
                status = overrides[i] = self.run_filters(pod, order[i])
                feasible[i] = status.ok
        count = len(order)
        to_find = num_feasible_nodes_to_find(count, self.config.percentage_of_nodes_to_score)
        start = self.next_start % count
        rows, processed = feasible_window(feasible, start, to_find)
        self.next_start = (self.next_start + processed) % count
        diagnosis = Diagnosis()
        if processed > len(rows) and (diagnose or not len(rows)):
            window = np.arange(start, start + processed) % count
            self._record_rejected(diagnosis, pod, order, cls, window[~feasible[window]], overrides, counted, extra)
        return rows, diagnosis, placement

    def _record_rejected(self, diagnosis: Diagnosis, pod: Pod, order: list[Node], cls, rejected: np.ndarray,
                         overrides: dict[int, Status], counted: np.ndarray | None, extra=None) -> None:
        """Each rejected node's status: its class's first failing filter, else NodeResourcesFit's
        failed checks (one shared status per combination), else (nominated pods counted) its own.
        As ids into a table: NodeResourcesFit's statuses by fit_codes key, then the class's
        statuses, then PodTopologySpread's / InterPodAffinity's, then the nodes' own."""
        if len(cls.table) == 1:  # no node rejects this class before NodeResourcesFit
            static = by_fit = None
            fit_rows = rejected
        else:
            static = cls.status[rejected]
            by_fit = static == 0
            fit_rows = rejected[by_fit] if by_fit.any() else None
        if fit_rows is None:  # every one fails a filter before NodeResourcesFit (a tainted zone)
            table = list(cls.table)
            ids = static
        else:
            table = fit_status_table()
            ids = self._fit_ids(pod, order, cls, table, fit_rows, static, by_fit, counted)
        if extra is not None:  # fits: rejected by PodTopologySpread or InterPodAffinity
            passed = np.flatnonzero(ids == 0)
            if len(passed):
                extra_ids, extra_table = extra
                ids[passed] = extra_ids[rejected[passed]] + (len(table) - 1)
                table.extend(extra_table[1:])
        if overrides:
            position = np.full(len(order), -1, dtype=np.int64)
            position[rejected] = np.arange(len(rejected))
            for row, status in overrides.items():
                j = int(position[row])
                if j >= 0:
                    ids[j] = len(table)
                    table.append(status)
        diagnosis.set_rejected(order, rejected, ids, table, self.columns.index if self.columns.nodes is order else None)

    def _fit_ids(self, pod: Pod, order: list[Node], cls, table: list[Status], fit_rows: np.ndarray,
                 static: np.ndarray | None, by_fit: np.ndarray | None, counted: np.ndarray | None) -> np.ndarray:
        """_record_rejected's ids where some rejected nodes pass the class's filters: their
        NodeResourcesFit key (an index into `table`, which gets the class's statuses after it)."""
        if 2 * len(fit_rows) >= len(order):
            # (fit_keys counts nominated pods as `counted` does on every row not in `overrides`)
            keys = self.columns.fit_keys(pod)[fit_rows]
        else:
            keys = self.columns.fit_codes(pod, fit_rows, counted[fit_rows] if counted is not None else None)
        if by_fit is None:
            return keys
        table.extend(cls.table[1:])
        ids = static + (FIT_KEYS - 1)
        ids[by_fit] = keys
        return ids

    def _find_nodes_one_by_one(self, pod: Pod, order: list[Node], names: set[str] | None
                               ) -> tuple[list[Node], Diagnosis]:
        """The same search one node at a time: for PreFilter-narrowed node sets (DaemonSet pods) and
        non-default filter lists."""
        store = self.sim.store
        diagnosis = Diagnosis()
        total = len(order)
        if names is not None:
            nodes = [store.nodes[n] for n in sorted(names) if n in store.nodes]
            diagnosis.absent = Status(UNSCHEDULABLE_AND_UNRESOLVABLE,
                                      (f"node(s) didn't satisfy plugin(s) [{NODE_AFFINITY.name}]",), NODE_AFFINITY.name)
            diagnosis.plugins.add(NODE_AFFINITY.name)
        else:
            nodes = order
        count = len(nodes)
        if count == 0:
            return [], diagnosis
        to_find = num_feasible_nodes_to_find(count, self.config.percentage_of_nodes_to_score)
        feasible: list[Node] = []
        statuses = diagnosis.statuses
        processed = 0
        start = self.next_start
        for i in range(count):
            node = nodes[(start + i) % count]
            processed += 1
            status = self.run_filters(pod, node)
            if status.ok:
                feasible.append(node)
                if len(feasible) >= to_find:
                    break
            else:
                statuses[node.name] = status
                diagnosis.plugins.add(status.plugin)
        self.next_start = (start + processed) % total
        return feasible, diagnosis

    def score(self, pod: Pod, nodes: list[Node]) -> list[int]:
        """Σ weight × normalized score of TaintToleration (3), NodeAffinity (2), NodeResourcesFit
        LeastAllocated (1) and NodeResourcesBalancedAllocation (1), computed in one pass (the
        arithmetic of plugins.least_allocated and plugins.balanced_score, inlined)."""
        # TaintToleration: untolerated PreferNoSchedule taints, normalized in reverse.
        prefer = self._prefer_no_schedule
        if prefer and any(node.name in prefer for node in nodes):
            raw = [TAINT_TOLERATION.score(pod, node) for node in nodes]
            base = [v * TAINT_TOLERATION.weight for v in default_normalize(raw, reverse=True)]
            constant = 0
        else:
            base = None
            constant = MAX_NODE_SCORE * TAINT_TOLERATION.weight  # no such taint: MaxNodeScore everywhere
        # NodeAffinity: preferred terms' weights (PreScore skips pods without preferred terms).
        if pod.preferred_node_affinity:
            raw = [NODE_AFFINITY.score(pod, node) for node in nodes]
            affinity = [v * NODE_AFFINITY.weight for v in default_normalize(raw, reverse=False)]
            base = affinity if base is None else [a + b for a, b in zip(base, affinity)]
        pod_cpu, pod_memory = pod.cpu, pod.memory
        cpu = pod_cpu or DEFAULT_MILLI_CPU_REQUEST
        memory = pod_memory or DEFAULT_MEMORY_REQUEST
        best_effort = pod_cpu == 0 and pod_memory == 0
        totals = []
        append = totals.append
        for node in nodes:
            alloc_cpu = node.allocatable_cpu
            alloc_memory = node.allocatable_memory
            requested = node.nonzero_cpu + cpu
            fit = (alloc_cpu - requested) * MAX_NODE_SCORE // alloc_cpu if alloc_cpu and requested <= alloc_cpu else 0
            requested = node.nonzero_memory + memory
            fit += (alloc_memory - requested) * MAX_NODE_SCORE // alloc_memory \
                if alloc_memory and requested <= alloc_memory else 0
            score = constant + fit // 2
            if not best_effort:
                if alloc_cpu and alloc_memory:
                    f_cpu = (node.requested_cpu + pod_cpu) / alloc_cpu
                    f_memory = (node.requested_memory + pod_memory) / alloc_memory
                    diff = (f_cpu if f_cpu < 1.0 else 1.0) - (f_memory if f_memory < 1.0 else 1.0)
                    score += int((1 - (diff if diff >= 0 else -diff) / 2) * MAX_NODE_SCORE)
                else:
                    score += balanced_score(node.requested_cpu + pod_cpu, alloc_cpu,
                                            node.requested_memory + pod_memory, alloc_memory)
            append(score)
        if base is not None:
            totals = [t + b for t, b in zip(totals, base)]
        return totals

    def score_by_plugin(self, pod: Pod, nodes: list[Node]) -> dict[str, list[int]]:
        """Each score plugin's normalized, weighted scores (for explanations and tests)."""
        out: dict[str, list[int]] = {}
        for plugin in self.scores:
            raw = [plugin.score(pod, node) for node in nodes]
            if plugin is NODE_AFFINITY and not pod.preferred_node_affinity:
                raw = [0] * len(nodes)
            out[plugin.name] = [v * plugin.weight for v in plugin.normalize(raw)]
        return out

    def select_host(self, nodes: list[Node], scores: list[int]) -> Node:
        """selectHost: the best score, ties broken uniformly at random. Kubernetes samples a
        reservoir (one random draw per tie); one draw over all the tied nodes gives each the same
        chance and costs one call of the seeded RNG."""
        best = max(scores)
        ties = [i for i, score in enumerate(scores) if score == best]
        if len(ties) == 1:
            return nodes[ties[0]]
        return nodes[ties[self.sim.rng.randrange(len(ties))]]

    def __setstate__(self, state: dict) -> None:
        # A restored checkpoint holds copies of the default tuples; the fast paths test identity.
        set_attributes(self, state)  # (not through __dict__: see objects.set_attributes)
        if self.filters == DEFAULT_FILTERS:
            self.filters = DEFAULT_FILTERS
        if self.scores == DEFAULT_SCORES:
            self.scores = DEFAULT_SCORES

    def current_filters(self) -> tuple:
        # a bound method, not a lambda: time travel pickles the scheduler with its topology
        return self.filters

    def select_row(self, rows: np.ndarray, scores: np.ndarray) -> int:
        """select_host on columns: the same draw (one, only when there are ties)."""
        ties = (scores == scores[scores.argmax()]).nonzero()[0]  # argmax: a cheaper call than max
        if len(ties) == 1:
            return int(rows[ties[0]])
        return int(rows[ties[self.sim.rng.randrange(len(ties))]])

    def schedule_one(self, pod: Pod, info) -> None:
        self._cycle = self.topology.cycle(pod)
        try:
            self._schedule_one(pod, info)
        finally:
            self._cycle = None

    # A cycle that fits nowhere is remembered (`_no_fit`, one a template), and a later pod its cycle
    # cannot tell apart, with nothing it reads changed, gets its Diagnosis without the filters running again:
    # the same statuses, next_start unchanged (such a cycle covers every node). Thousands of
    # Pending replacements of one template are retried during an outage. False: every cycle runs
    # (the reference the tests compare with).
    memo_no_fit = True

    def _no_fit_state(self) -> tuple:
        """What a cycle that fits nowhere read besides the pod: the node columns (their rows, and
        the change log every bind, request, taint, cordon and nomination writes), the topology
        plugins' pod counts, next_start and the filters."""
        columns, counts = self.columns, self.topology.counts
        return (columns.nodes, columns.generation, columns.log_end, counts, counts.version, self.next_start,
                self.filters)

    def _no_fit_applies(self, pod: Pod) -> bool:
        """No nominated pod (a cycle counts them on their nodes), no volume, no bind held uncounted."""
        return not (self.nominated or pod.volume_claims or self.topology.counts.held())

    def _no_fit_again(self, pod: Pod) -> Diagnosis | None:
        """The remembered Diagnosis when `pod`'s cycle would repeat the last cycle of its template that
        fitted nowhere (the pods then share one Diagnosis object: their last attempts hold it)."""
        memo = self._no_fit.get((pod.namespace, id(pod.labels)))
        if memo is None or memo[0] is not pod.labels or not self._no_fit_applies(pod):
            return None
        order = self.node_order()
        self.columns.sync(order, self.filters)
        if self.columns.nodes is not order:
            return None
        state = self._no_fit_state()
        if memo[1] != _equivalence._RUN_KEY(pod) or any(a is not b and a != b for a, b in zip(memo[2], state)):
            return None
        return memo[3]

    def _remember_no_fit(self, pod: Pod, diagnosis: Diagnosis) -> None:
        if not self._no_fit_applies(pod):
            return
        state = self._no_fit_state()
        memo = self._no_fit
        if len(memo) >= 64 or any(entry[2][2] != state[2] for entry in memo.values()):
            memo.clear()  # (entries that read another state are no use: one change ends them all)
        memo[(pod.namespace, id(pod.labels))] = (pod.labels, _equivalence._RUN_KEY(pod), state, diagnosis)

    def _schedule_one(self, pod: Pod, info) -> None:
        if not self.sim.store.nodes:
            self._fail(pod, info, Diagnosis(), error=NO_NODES_AVAILABLE)
            return
        order = self.node_order()
        if pod.nominated_node_name or self.filters is not DEFAULT_FILTERS \
                or self.prefilter_node_names(pod) is not None:
            feasible, diagnosis = self.find_nodes_that_fit(pod)
            if feasible:
                if len(feasible) == 1:
                    node = feasible[0]
                else:
                    scores = self.score(pod, feasible)
                    cycle = self.cycle_of(pod)
                    if cycle.scores:
                        scores = [a + b for a, b in zip(scores, cycle.score_nodes(feasible))]
                    node = self.select_host(feasible, scores)
                self.bind(pod, node)
                return
            self._fail(pod, info, diagnosis)
            return
        if self.compiled_cycle:
            row = _equivalence.place_one(self, pod, order)
            if row is not None:
                self.bind(pod, order[row])
                return
        rows, diagnosis, placement = self._find_rows(pod, order, diagnose=False)
        if len(rows):
            if len(rows) == 1:
                row = int(rows[0])
            else:
                scores = self.columns.score(pod, placement, rows)
                cycle = self.cycle_of(pod)
                if cycle.scores:
                    scores += cycle.score(rows)
                row = self.select_row(rows, scores)
            self.bind(pod, order[row])
            return
        if self.memo_no_fit:
            self._remember_no_fit(pod, diagnosis)
        self._fail(pod, info, diagnosis)

    def _fail(self, pod: Pod, info, diagnosis: Diagnosis, error: str = "") -> None:
        """handleSchedulingFailure: PostFilter, the pod's nomination, the FailedScheduling event and
        PodScheduled condition, and back to the queue."""
        now = self.sim.clock.now
        store = self.sim.store
        num_nodes = len(store.nodes)
        post_message = ""
        nominate: str | None = "" if error else None  # None: leave the nomination as it is
        prepared: list = []
        if not error and self.preemption is not None:
            self._async_candidates = prepared if self.sim.release.async_preemption else None
            try:
                nominate, post_message = self.preemption.post_filter(pod, diagnosis)
            finally:
                self._async_candidates = None
            if post_message:
                post_message = self.sim.release.post_filter_message(post_message)
        message = error or diagnosis.message(num_nodes, post_message, self.sim.release.reason_text)
        plugins = frozenset(diagnosis.plugins)
        if HINT_EVENTS.keys() & plugins:
            self.topology.rejected = True
        self.last_attempt[pod.key] = Attempt(now, message, diagnosis, post_message,
                                             nominate if nominate is not None else pod.nominated_node_name, plugins)
        store.event("Warning", "FailedScheduling", pod.ref, truncate_message(message), self.config.scheduler_name)
        if nominate is not None and store.pods.get(pod.key) is pod:
            store.set_nominated_node(pod, nominate)
        store.set_pod_condition(pod, "PodScheduled", FALSE, "Unschedulable", message)
        info.unschedulable_plugins = plugins
        # Events of this cycle reach the pods already waiting, then this pod (its in-flight events).
        events, self._events = self._events, []
        if events and self.queue.unschedulable:
            self._events = events
            self._process_events(now)
        if store.pods.get(pod.key) is pod:
            if not plugins or (events and self.worth_requeuing(pod, plugins, events)):
                self.queue.requeue_backoff(info, now)
            else:
                self.queue.add_unschedulable(info, now)
        for candidate, preemptor in prepared:
            self._prepare_candidate_async(candidate, preemptor)

    def prepare_candidate(self, candidate, preemptor: Pod) -> None:
        """DefaultPreemption acts on its chosen candidate: at once (prepareCandidate), or with
        SchedulerAsyncPreemption (1.33+) in prepareCandidateAsync's goroutine, which starts once
        the failed cycle has written the preemptor's FailedScheduling event, nominatedNodeName and
        PodScheduled condition. The goroutine's API calls take no time here: the victims go at
        the same instant, after the preemptor's event."""
        if self._async_candidates is not None:
            self._async_candidates.append((candidate, preemptor))
        else:
            self.preemption.prepare_candidate(candidate, preemptor)

    def _prepare_candidate_async(self, candidate, preemptor: Pod) -> None:
        """prepareCandidateAsync's goroutine: lower-priority pods nominated to the node lose their
        nomination first, then the victims are deleted."""
        store = self.sim.store
        for other in self.nominated_pods(candidate.node):
            if other.priority < preemptor.priority and other.key != preemptor.key:
                store.set_nominated_node(other, "")
        self.preemption.prepare_candidate(candidate, preemptor)

    def bind(self, pod: Pod, node: Node) -> None:
        store = self.sim.store
        # (the queue forgets the pod when this scheduler's informer hears it bound: _on_pod_event)
        self.last_attempt.pop(pod.key, None)
        # A pod is bound once: its Scheduled event is never repeated.
        store.event_once("Normal", "Scheduled", pod, f"Successfully assigned {pod.key} to {node.name}",
                         self.config.scheduler_name)
        store.assign_pod(pod, node.name)

    def bind_together(self, pods: list[Pod], names: list[str]) -> None:
        """`bind` for each of `pods` to the node named beside it, when no component reacts to one of
        these binds before the next (equivalence.quiet_binds): the Scheduled events, then one store
        write (Store.assign_pods)."""
        keys = [pod.key for pod in pods]
        last_attempt = self.last_attempt
        if last_attempt and not last_attempt.keys().isdisjoint(keys):
            for key in keys:
                last_attempt.pop(key, None)
        # (as `bind` writes each: pod.ref is "Pod/" + its key)
        self.sim.store.event_once_run("Normal", "Scheduled", self.config.scheduler_name, "Pod/{0}",
                                      "Successfully assigned {0} to {1}", (keys, names), [pod.uid for pod in pods])
        self.sim.store.assign_pods(pods, names)

    # ---------------------------------------------------------------- explanations

    def queue_state(self, pod: Pod) -> tuple[str, int | None]:
        """(active | backoff | unschedulable | scheduling, backoff expiry) for the UI."""
        info = self.queue.infos.get(pod.key)
        if info is None:
            return "", None
        expiry = self.queue.backoff_over(self.queue.backoff_expiry(info)) if info.where == "backoff" else None
        return info.where, expiry


# Imported last: equivalence imports this module (one cycle and runs of cycles, compiled).
from . import equivalence as _equivalence  # noqa: E402

__all__ = ["Scheduler", "SchedulerConfig", "Attempt", "Diagnosis", "fit_error_message", "num_feasible_nodes_to_find"]
