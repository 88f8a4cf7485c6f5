"""kube-scheduler: one scheduling cycle per pod (pkg/scheduler/schedule_one.go).

Each cycle tries the nominated node first, then filters nodes from a round-robin start (nodes listed
zone by zone, interleaved, as the scheduler's node tree does) until numFeasibleNodesToFind feasible
nodes are found, scores them, and picks the best with a seeded reservoir-sampling tie-break. A
failure records the per-node reasons in kube-scheduler's words, runs PostFilter (preemption) and
parks the pod in unschedulablePods. `attemptsPerTick` bounds how many cycles fit in one tick.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..clock import PHASE_SCHEDULER
from ..objects import TRUE, FALSE, Node, Pod
from .framework import UNSCHEDULABLE_AND_UNRESOLVABLE, NodeInfo, Status
from .plugins import DEFAULT_FILTERS, DEFAULT_SCORES
from .queue import SchedulingQueue

if TYPE_CHECKING:
    from ..simulation import Simulation

MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5
BACKOFF_FLUSH_PERIOD_MS = 1000
UNSCHEDULABLE_FLUSH_PERIOD_MS = 30_000


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
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND or percentage >= 100:
        return num_all_nodes
    adaptive = percentage
    if adaptive <= 0:
        adaptive = 50 - num_all_nodes // 125
        if adaptive < MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND:
            adaptive = MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND
    num = num_all_nodes * adaptive // 100
    return max(num, MIN_FEASIBLE_NODES_TO_FIND)


def fit_error_message(num_all_nodes: int, statuses: dict[str, Status], post_filter_message: str = "") -> str:
    """FitError.Error(): "0/N nodes are available: <sorted histogram>. <post filter message>." """
    histogram: dict[str, int] = {}
    for status in statuses.values():
        for reason in status.reasons:
            histogram[reason] = histogram.get(reason, 0) + 1
    message = f"0/{num_all_nodes} nodes are available"
    parts = sorted(f"{count} {reason}" for reason, count in histogram.items())
    if parts:
        message += ": " + ", ".join(parts) + "."
    if post_filter_message:
        message += " " + post_filter_message + "."
    return message


@dataclass(slots=True)
class Attempt:
    """The last scheduling attempt of a pod, kept so the UI can say why it is pending."""

    time: int
    message: str
    statuses: dict[str, Status]


class Scheduler:
    def __init__(self, sim: "Simulation", config: SchedulerConfig) -> None:
        self.sim = sim
        self.config = config
        self.queue = SchedulingQueue(config.pod_initial_backoff_seconds * 1000, config.pod_max_backoff_seconds * 1000)
        self.filters = DEFAULT_FILTERS
        self.scores = DEFAULT_SCORES
        self.next_start = 0
        self._order: list[Node] | None = None
        self.nominated: dict[str, dict[str, Pod]] = {}
        self.last_attempt: dict[str, Attempt] = {}
        self._move_requested = False
        self._run_at: int | None = None
        self._run_timer: int | None = None
        self._leftover_timer: int | None = None
        self._budget_tick = -1
        self._budget_used = 0
        self.preemption = None  # set by Simulation when DefaultPreemption is wired in
        sim.store.pod_watchers.append(self._on_pod_event)
        sim.store.node_watchers.append(self._on_node_event)

    # ---------------------------------------------------------------- informers

    def _on_pod_event(self, what: str, pod: Pod) -> None:
        now = self.sim.clock.now
        if what == "nominated":
            self._index_nomination(pod)
            return
        if what == "removed" or (what == "deleting" and not pod.node_name):
            self._forget_nomination(pod)
            self.queue.delete(pod.key)
            self.last_attempt.pop(pod.key, None)
            if pod.node_name:
                self._request_move()
            return
        if what == "added" and not pod.node_name and not pod.is_terminal():
            self.queue.add(pod.key, pod.priority, now)
            self._kick(now)
        elif what == "bound":
            self._forget_nomination(pod)
            self.queue.done(pod.key)
        elif what == "phase" and pod.node_name and pod.is_terminal():
            self._request_move()
        elif what == "phase" and not pod.node_name and pod.is_terminal():
            self.queue.delete(pod.key)

    def _on_node_event(self, what: str, node: Node) -> None:
        if what in ("added", "removed"):
            self._order = None
        if what in ("added", "taints", "spec", "removed"):
            self._request_move()

    def _request_move(self) -> None:
        if self.queue.unschedulable:
            self._move_requested = True
            self._kick(self.sim.clock.now)

    def _index_nomination(self, pod: Pod) -> None:
        for pods in self.nominated.values():
            pods.pop(pod.key, None)
        if pod.nominated_node_name and not pod.node_name:
            self.nominated.setdefault(pod.nominated_node_name, {})[pod.key] = pod

    def _forget_nomination(self, pod: Pod) -> None:
        if pod.nominated_node_name:
            self.nominated.get(pod.nominated_node_name, {}).pop(pod.key, None)

    # ---------------------------------------------------------------- run loop

    def _kick(self, due: int) -> None:
        tick = self.sim.tick
        if due // tick == self._budget_tick and self._budget_used >= self.config.attempts_per_tick:
            due = (due // tick + 1) * tick
        if self._run_at is not None and self._run_at <= due:
            return
        self.sim.clock.cancel(self._run_timer)
        self._run_at = due
        self._run_timer = self.sim.clock.call_at(due, PHASE_SCHEDULER, "scheduler.run")

    def run(self) -> None:
        self._run_at = None
        self._run_timer = None
        now = self.sim.clock.now
        queue = self.queue
        if self._move_requested:
            self._move_requested = False
            queue.move_all(now)
        queue.flush_backoff(now)
        tick_index = now // self.sim.tick
        if tick_index != self._budget_tick:
            self._budget_tick, self._budget_used = tick_index, 0
        while self._budget_used < self.config.attempts_per_tick:
            info = queue.pop()
            if info is None:
                break
            pod = self.sim.store.pods.get(info.key)
            if pod is None or pod.node_name or pod.deletion_timestamp is not None or pod.is_terminal():
                queue.done(info.key)
                continue
            self._budget_used += 1
            self.schedule_one(pod, info)
        self._rearm(now)

    def _rearm(self, now: int) -> None:
        if self.queue.has_active():
            self._kick(now)
        else:
            expiry = self.queue.next_backoff_expiry()
            if expiry is not None:
                self._kick(-(-expiry // BACKOFF_FLUSH_PERIOD_MS) * BACKOFF_FLUSH_PERIOD_MS)
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
        target: Node | NodeInfo = node
        if with_nominated:
            nominated = self.nominated.get(node.name)
            extra = [p for p in nominated.values() if p.priority >= pod.priority and p.key != pod.key] if nominated else []
            if extra:
                target = node.copy() if isinstance(node, NodeInfo) else NodeInfo(node)
                for other in extra:
                    target.add_pod(other)
        for plugin in self.filters:
            status = plugin.filter(pod, target)
            if not status.ok:
                return status
        return Status(0)

    def find_nodes_that_fit(self, pod: Pod) -> tuple[list[Node], dict[str, Status]]:
        store = self.sim.store
        statuses: dict[str, Status] = {}
        if pod.nominated_node_name:
            node = store.nodes.get(pod.nominated_node_name)
            if node is not None and self.run_filters(pod, node).ok:
                return [node], statuses
        if pod.affinity_node_name is not None:
            # NodeAffinity PreFilter narrows a metadata.name match to that node alone.
            node = store.nodes.get(pod.affinity_node_name)
            others = Status(UNSCHEDULABLE_AND_UNRESOLVABLE, ("node(s) didn't match Pod's node affinity/selector",), "NodeAffinity")
            for name in store.nodes:
                if name != pod.affinity_node_name:
                    statuses[name] = others
            if node is None:
                return [], statuses
            status = self.run_filters(pod, node)
            if status.ok:
                return [node], {}
            statuses[node.name] = status
            return [], statuses
        order = self.node_order()
        total = len(order)
        if total == 0:
            return [], statuses
        to_find = num_feasible_nodes_to_find(total, self.config.percentage_of_nodes_to_score)
        feasible: list[Node] = []
        processed = 0
        start = self.next_start % total
        for i in range(total):
            node = order[(start + i) % total]
            processed += 1
            status = self.run_filters(pod, node)
            if status.ok:
                feasible.append(node)
                if len(feasible) >= to_find:
                    break
            else:
                statuses[node.name] = status
        self.next_start = (start + processed) % total
        return feasible, statuses

    def score(self, pod: Pod, nodes: list[Node]) -> list[int]:
        totals = [0] * len(nodes)
        for plugin in self.scores:
            raw = [plugin.score(pod, node) for node in nodes]
            for i, value in enumerate(plugin.normalize(raw)):
                totals[i] += value * plugin.weight
        return totals

    def select_host(self, nodes: list[Node], scores: list[int]) -> Node:
        """selectHost: the best score, ties broken uniformly by reservoir sampling."""
        rng = self.sim.rng
        best, best_score, count = nodes[0], scores[0], 1
        for node, score in zip(nodes[1:], scores[1:]):
            if score > best_score:
                best, best_score, count = node, score, 1
            elif score == best_score:
                count += 1
                if rng.randrange(count) == 0:
                    best = node
        return best

    def schedule_one(self, pod: Pod, info) -> None:
        feasible, statuses = self.find_nodes_that_fit(pod)
        if feasible:
            node = feasible[0] if len(feasible) == 1 else self.select_host(feasible, self.score(pod, feasible))
            self.bind(pod, node)
            return
        self._fail(pod, info, statuses)

    def _fail(self, pod: Pod, info, statuses: dict[str, Status]) -> None:
        now = self.sim.clock.now
        num_nodes = len(self.sim.store.nodes)
        post_message = ""
        if self.preemption is not None:
            post_message = self.preemption.post_filter(pod, statuses)
        message = fit_error_message(num_nodes, statuses, post_message)
        self.last_attempt[pod.key] = Attempt(now, message, statuses)
        store = self.sim.store
        store.event("Warning", "FailedScheduling", pod.ref, message, self.config.scheduler_name)
        store.set_pod_condition(pod, "PodScheduled", FALSE, "Unschedulable", message)
        if self.sim.store.pods.get(pod.key) is pod:
            self.queue.add_unschedulable(info, now)
            if self._move_requested:
                # An event that may help arrived while this pod was being scheduled.
                self._move_requested = False
                self.queue.move_all(now)

    def bind(self, pod: Pod, node: Node) -> None:
        store = self.sim.store
        self.queue.done(pod.key)
        self.last_attempt.pop(pod.key, None)
        store.event("Normal", "Scheduled", pod.ref, f"Successfully assigned {pod.key} to {node.name}",
                    self.config.scheduler_name)
        store.set_pod_condition(pod, "PodScheduled", TRUE)
        store.bind_pod(pod, node.name)

    # ---------------------------------------------------------------- explanations

    def queue_state(self, pod: Pod) -> tuple[str, int | None]:
        """(active | backoff | unschedulable | scheduling, backoff expiry) for the UI."""
        info = self.queue.infos.get(pod.key)
        if info is None:
            return "", None
        expiry = self.queue.backoff_expiry(info) if info.where == "backoff" else None
        return info.where, expiry
