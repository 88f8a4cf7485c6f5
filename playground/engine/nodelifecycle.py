"""The node lifecycle controller (pkg/controller/nodelifecycle/node_lifecycle_controller.go).

monitorNodeHealth runs every node-monitor-period. For each node it keeps a probe timestamp in
controller time, marks Ready/MemoryPressure/DiskPressure/PIDPressure Unknown once
now > probe + grace, queues NoExecute tainting per zone using the condition it *observed* before its
own update (so its own flip is tainted one pass later), records NodeNotReady and marks the pods not
ready. handleDisruption then computes zone states and sets each zone's token bucket.
doNoScheduleTaintingPass runs on every node update; doNoExecuteTaintingPass drains the zone queues on
a 100 ms grid, subject to each zone's limiter.

Cost follows work: a pass visits only the nodes that are not quietly healthy (`watch`). A healthy
node's probe timestamp is the first pass at or after its newest lease renewal or heartbeat, which is
what a controller visiting it every pass would have recorded, so skipping it changes nothing. A dead
node that is settled (Unknown, tainted, in its zone queue, nothing new from its kubelet) is skipped
too, until a node update, its kubelet or its queue concerns it again (`_settled`): a zone outage of
1,000 nodes costs the passes nothing once they are all tainted.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left, insort
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .clock import PHASE_NODE_LIFECYCLE, Wakeup
from .objects import (
    DISK_PRESSURE_TAINT,
    EXCLUDE_DISRUPTION_LABEL,
    FALSE,
    MEMORY_PRESSURE_TAINT,
    NETWORK_UNAVAILABLE_TAINT,
    NO_EXECUTE,
    NO_SCHEDULE,
    NOT_READY_TAINT,
    PID_PRESSURE_TAINT,
    TRUE,
    UNKNOWN,
    UNREACHABLE_TAINT,
    UNSCHEDULABLE_TAINT,
    Condition,
    Node,
    Taint,
)

if TYPE_CHECKING:
    from .simulation import Simulation

INITIAL, NORMAL, PARTIAL, FULL = "Initial", "Normal", "PartialDisruption", "FullDisruption"
NODE_EVICTION_PERIOD_MS = 100
RETRY_NO_READY_MS = 50

NOT_READY_NO_EXECUTE = Taint(NOT_READY_TAINT, NO_EXECUTE)
UNREACHABLE_NO_EXECUTE = Taint(UNREACHABLE_TAINT, NO_EXECUTE)

# nodeConditionToTaintKeyStatusMap
CONDITION_TAINTS = {
    ("Ready", FALSE): NOT_READY_TAINT,
    ("Ready", UNKNOWN): UNREACHABLE_TAINT,
    ("MemoryPressure", TRUE): MEMORY_PRESSURE_TAINT,
    ("DiskPressure", TRUE): DISK_PRESSURE_TAINT,
    ("NetworkUnavailable", TRUE): NETWORK_UNAVAILABLE_TAINT,
    ("PIDPressure", TRUE): PID_PRESSURE_TAINT,
}
NO_SCHEDULE_KEYS = frozenset(CONDITION_TAINTS.values()) | {UNSCHEDULABLE_TAINT}
HEALTH_CONDITIONS = ("Ready", "MemoryPressure", "DiskPressure", "PIDPressure")


@dataclass(slots=True)
class NodeLifecycleConfig:
    node_monitor_period: int = 5_000
    node_monitor_grace_period: int = 50_000
    node_startup_grace_period: int = 60_000
    node_eviction_rate: float = 0.1
    secondary_node_eviction_rate: float = 0.01
    large_cluster_size_threshold: int = 50
    unhealthy_zone_threshold: float = 0.55


@dataclass(slots=True)
class NodeHealth:
    """nodeHealthData, with the probe kept as a floor plus the newest signal seen."""

    probe_floor: int
    ready_transition: int
    signal: int = -1
    heartbeat: int | None = None
    transition: int | None = None


class TokenBucket:
    """golang.org/x/time/rate with burst 1, as flowcontrol.NewTokenBucketRateLimiter; qps 0 never accepts."""

    __slots__ = ("qps", "tokens", "last")

    def __init__(self, qps: float, now: int) -> None:
        self.qps = qps
        self.tokens = 1.0
        self.last = now

    def _refill(self, now: int) -> None:
        if self.qps > 0 and now > self.last:
            self.tokens = min(1.0, self.tokens + (now - self.last) * self.qps / 1000)
        self.last = max(self.last, now)

    def try_accept(self, now: int) -> bool:
        if self.qps <= 0:
            return False
        self._refill(now)
        if self.tokens >= 1.0 - 1e-9:
            self.tokens -= 1.0
            return True
        return False

    def next_token_at(self, now: int) -> int | None:
        if self.qps <= 0:
            return None
        self._refill(now)
        if self.tokens >= 1.0 - 1e-9:
            return now
        return now + int(-(-(1.0 - self.tokens) * 1000 // self.qps))


FLOATING = -1  # ZoneQueue.queued value of a floating member (see ZoneQueue)


@dataclass(slots=True)
class ZoneQueue:
    """RateLimitedTimedQueue: a heap by ProcessAt plus the set of names ever added and not Removed.

    Entries are ordered by (ProcessAt, name). Every entry at one ProcessAt comes from one monitor pass,
    which visits nodes in name order, so this is the order in which they were added.

    Floating members: a node waiting for its NoExecute taint is Removed and Added again by every
    monitor pass (markNodeForTainting), so its entry is always (time of the last pass, name). Such a
    node leaves the pass (`NodeLifecycleController._waiting`) and its entry is kept implicitly in
    `floating` (sorted names, ProcessAt = the last pass), not re-pushed 2,000 times an hour."""

    limiter: TokenBucket
    heap: list[tuple[int, str, int]] = field(default_factory=list)  # (ProcessAt, name, seq)
    members: set[str] = field(default_factory=set)
    queued: dict[str, int] = field(default_factory=dict)  # name -> seq of its live heap entry, or FLOATING
    floating: list[str] = field(default_factory=list)

    def add(self, name: str, now: int, seq: int) -> bool:
        if name in self.members:
            return False
        self.members.add(name)
        self.queued[name] = seq
        heapq.heappush(self.heap, (now, name, seq))
        return True

    def remove(self, name: str) -> None:
        self.members.discard(name)
        if self.queued.pop(name, None) == FLOATING:
            self._unfloat(name)

    def float(self, name: str) -> None:
        """A queued member whose entry is re-added at every pass from now on."""
        self.queued[name] = FLOATING
        insort(self.floating, name)

    def _unfloat(self, name: str) -> None:
        index = bisect_left(self.floating, name)
        del self.floating[index]

    def head(self, last_pass: int) -> tuple[int, str] | None:
        """(ProcessAt, name) of the first entry; floating members are at `last_pass`."""
        heap = self.heap
        while heap and self.queued.get(heap[0][1]) != heap[0][2]:
            heapq.heappop(heap)
        first = (heap[0][0], heap[0][1]) if heap else None
        if self.floating:
            floating = (last_pass, self.floating[0])
            if first is None or floating < first:
                return floating
        return first

    def pop(self, name: str) -> None:
        """Take the head entry (`name`, as head() returned it) out; the name stays a member."""
        if self.queued.get(name) == FLOATING:
            self._unfloat(name)
        else:
            heapq.heappop(self.heap)

    def processing_at(self, name: str, last_pass: int) -> int | None:
        seq = self.queued.get(name)
        if seq == FLOATING:
            return last_pass
        for at, n, s in self.heap:
            if s == seq and n == name:
                return at
        return None


class NodeLifecycleController:
    # A node's pods get Ready=False in one store write when that is one write after another
    # (_may_mark_together); False writes them one by one (the reference its test compares with).
    mark_together = True

    def __init__(self, sim: "Simulation", config: NodeLifecycleConfig) -> None:
        self.sim = sim
        self.config = config
        self.health: dict[str, NodeHealth] = {}
        self.watched: set[str] = set()
        # The most nodes `watched` held at a pass since it was last compacted (see monitor).
        self._watched_high = 0
        self.zone_states: dict[str, str] = {}
        self.zone_queues: dict[str, ZoneQueue] = {}
        # zone -> [counted nodes, ready nodes]; kept on every node change instead of a scan per pass.
        self.zone_counts: dict[str, list[int]] = {}
        self._counted: dict[str, tuple[str, bool]] = {}
        self.all_zones_down = False
        self._seq = 0
        self._taint_pass = Wakeup(sim.clock, PHASE_NODE_LIFECYCLE, "nodelifecycle.taint_pass")
        self.evictions_total: dict[str, int] = {}
        # Leave settled dead nodes out of the monitor pass (see `_settled`); False runs the full pass
        # over them, as the equivalence test does.
        self.skip_settled = True
        self.last_pass = 0  # time of the latest monitor pass (floating queue members are at it)
        sim.store.node_watchers.append(self._on_node_event)

    def start(self) -> None:
        self.sim.clock.call_at(0, PHASE_NODE_LIFECYCLE, "nodelifecycle.monitor")

    def watch(self, name: str) -> None:
        self.watched.add(name)

    # ---------------------------------------------------------------- informer

    def _on_node_event(self, what: str, node: Node) -> None:
        if what == "removed":
            self._count(node.name, None)
            self.health.pop(node.name, None)
            for queue in self.zone_queues.values():
                queue.remove(node.name)
            self.sim.store.event("Normal", "RemovingNode", f"Node/{node.name}",
                                 f"Node {node.name} event: Removing Node {node.name} from Controller",
                                 "node-controller")
            self.watched.discard(node.name)
            return
        self._count(node.name, node)
        self.watched.add(node.name)
        if what in ("added", "conditions", "spec"):
            self.no_schedule_tainting_pass(node)

    def _count(self, name: str, node: Node | None) -> None:
        old = self._counted.pop(name, None)
        if old is not None:
            counts = self.zone_counts[old[0]]
            counts[0] -= 1
            counts[1] -= old[1]
        if node is None or EXCLUDE_DISRUPTION_LABEL in node.labels:
            return
        ready = node.ready_status() == TRUE
        counts = self.zone_counts.setdefault(node.zone, [0, 0])
        counts[0] += 1
        counts[1] += ready
        self._counted[name] = (node.zone, ready)

    # ---------------------------------------------------------------- NoSchedule taints

    def no_schedule_tainting_pass(self, node: Node) -> None:
        wanted = {CONDITION_TAINTS[(c.type, c.status)] for c in node.conditions.values()
                  if (c.type, c.status) in CONDITION_TAINTS}
        if node.unschedulable:
            wanted.add(UNSCHEDULABLE_TAINT)
        have = {t.key for t in node.taints if t.effect == NO_SCHEDULE and t.key in NO_SCHEDULE_KEYS}
        if wanted == have:  # (most passes: a node's status report that moved no condition's taint)
            return
        add = [Taint(k, NO_SCHEDULE) for k in sorted(wanted - have)]
        remove = [Taint(k, NO_SCHEDULE) for k in sorted(have - wanted)]
        if add or remove:
            self.sim.store.update_taints(node, add, remove)

    # ---------------------------------------------------------------- monitorNodeHealth

    def monitor(self) -> None:
        now = self.sim.clock.now
        self.sim.clock.call_at(now + self.config.node_monitor_period, PHASE_NODE_LIFECYCLE, "nodelifecycle.monitor")
        self.last_pass = now
        store = self.sim.store
        self._watched_high = max(self._watched_high, len(self.watched))
        visited = sorted(self.watched)
        for name in visited:
            node = store.nodes.get(name)
            if node is None:
                self.watched.discard(name)
                continue
            self._monitor_node(node)
        self._handle_disruption()
        for name in list(self.watched):
            node = store.nodes.get(name)
            if node is not None and (self._quiet(node) or (self.skip_settled and self._settled(node))):
                self.watched.discard(name)
        if self.skip_settled:
            for name in visited:
                node = store.nodes.get(name)
                if node is not None and name in self.watched and self._waiting(node):
                    self.watched.discard(name)
                    self._queue(node.zone).float(name)
        if self._watched_high > 64 and len(self.watched) * 8 < self._watched_high:
            # A set keeps the table it grew to (every node is watched at registration, a zone when it
            # goes down): iterating it costs that size, every pass, after most nodes have left.
            self.watched = set(self.watched)
            self._watched_high = len(self.watched)
        self._arm_taint_pass()

    def _quiet(self, node: Node) -> bool:
        kubelet = self.sim.kubelets.get(node.name)
        return (
            node.ready_status() == TRUE
            and kubelet is not None and kubelet.signalling
            and not node.has_taint(NOT_READY_TAINT, NO_EXECUTE)
            and not node.has_taint(UNREACHABLE_TAINT, NO_EXECUTE)
            and node.name not in self._queue(node.zone).members
        )

    def _silent_and_unknown(self, node: Node) -> bool:
        """Its kubelet is silent and every signal it sent has been seen; its health conditions are all
        Unknown and the controller has seen their transition: a pass changes nothing in its health."""
        kubelet = self.sim.kubelets.get(node.name)
        if kubelet is not None and kubelet.signalling:
            return False
        health = self.health.get(node.name)
        conditions = node.conditions
        ready = conditions.get("Ready")
        if health is None or ready is None or ready.last_transition_time != health.transition:
            return False
        if any((c := conditions.get(t)) is None or c.status != UNKNOWN for t in HEALTH_CONDITIONS):
            return False
        return kubelet is None or kubelet.last_signal() <= health.signal

    def _waiting(self, node: Node) -> bool:
        """Silent, Unknown, not tainted NoExecute yet and (re-)added to its zone queue by this pass: every
        further pass only Removes and Adds it again (ZoneQueue's floating members), until something
        concerns it again (as for `_settled`) or the taint pass takes it."""
        if node.has_taint(UNREACHABLE_TAINT, NO_EXECUTE) or node.has_taint(NOT_READY_TAINT, NO_EXECUTE):
            return False
        seq = self._queue(node.zone).queued.get(node.name)
        return seq is not None and seq != FLOATING and self._silent_and_unknown(node)

    def _settled(self, node: Node) -> bool:
        """A dead node the controller has finished with: its kubelet is silent and every signal it
        sent has been seen, its health conditions are all Unknown, it carries the unreachable
        NoExecute taint and its zone queue has it as a member. A pass over it changes nothing (it
        only re-adds it to the queue, a no-op), so it leaves the pass until something concerns it
        again: any node update (conditions, taints, spec), its kubelet signalling again (register,
        reconnect), or leaving its zone queue -- each of which puts it back in `watched`."""
        return (node.has_taint(UNREACHABLE_TAINT, NO_EXECUTE) and not node.has_taint(NOT_READY_TAINT, NO_EXECUTE)
                and node.name in self._queue(node.zone).members and self._silent_and_unknown(node))

    def _monitor_node(self, node: Node) -> None:
        health = self.health.get(node.name)
        if health is None:
            self.sim.store.event("Normal", "RegisteredNode", f"Node/{node.name}",
                                 f"Node {node.name} event: Registered Node {node.name} in Controller",
                                 "node-controller")
            self._zone_seen(node.zone)
            self.mark_node_as_reachable(node)
        observed, current = self._try_update_node_health(node)
        self._process_taint_based_eviction(node, observed)
        if current != TRUE and observed == TRUE:
            self.sim.store.event("Normal", "NodeNotReady", f"Node/{node.name}",
                                 f"Node {node.name} status is now: NodeNotReady", "node-controller")
            self._mark_pods_not_ready(node)

    def _pass_ceil(self, t: int) -> int:
        period = self.config.node_monitor_period
        return -(-t // period) * period

    def _try_update_node_health(self, node: Node) -> tuple[str, str]:
        now = self.sim.clock.now
        kubelet = self.sim.kubelets.get(node.name)
        signal = kubelet.last_signal() if kubelet is not None else -1  # also brings heartbeats up to date
        ready = node.conditions.get("Ready")
        health = self.health.get(node.name)
        if ready is None:
            grace = self.config.node_startup_grace_period
            observed = UNKNOWN
            if health is None:
                health = NodeHealth(node.creation_time, node.creation_time)
        else:
            grace = self.config.node_monitor_grace_period
            observed = ready.status
            if health is None:
                health = NodeHealth(now, now, heartbeat=ready.last_heartbeat_time, transition=ready.last_transition_time)
            elif ready.last_transition_time != health.transition:
                health.transition = ready.last_transition_time
                health.ready_transition = now
        self.health[node.name] = health
        if signal > health.signal:
            # A newer lease renewTime or heartbeat: probeTimestamp is the pass that first saw it.
            health.signal = signal
            health.probe_floor = max(health.probe_floor, self._pass_ceil(signal))
        if now > health.probe_floor + grace and self._mark_unknown(node):
            health.ready_transition = now
            health.transition = now
        current = node.ready_status() or UNKNOWN
        return observed, current

    def _mark_unknown(self, node: Node) -> bool:
        """Set the health conditions Unknown; True if Ready changed."""
        now = self.sim.clock.now
        conditions = dict(node.conditions)
        before = conditions.get("Ready")
        ready_changed = before is None or before.status != UNKNOWN
        changed = False
        for ctype in HEALTH_CONDITIONS:
            cond = conditions.get(ctype)
            if cond is None:
                conditions[ctype] = Condition(ctype, UNKNOWN, "NodeStatusNeverUpdated",
                                              "Kubelet never posted node status.", node.creation_time, now)
                changed = True
            elif cond.status != UNKNOWN:
                conditions[ctype] = Condition(ctype, UNKNOWN, "NodeStatusUnknown",
                                              "Kubelet stopped posting node status.", cond.last_heartbeat_time, now)
                changed = True
        if changed:
            self.sim.store.set_node_conditions(node, conditions)
        return ready_changed

    def _mark_pods_not_ready(self, node: Node) -> None:
        """MarkPodsNotReady: Ready=False on the node's pods; a pod whose Ready condition this
        changed gets the Warning NodeNotReady event (recorded after its status update)."""
        store = self.sim.store
        if self.mark_together:
            marked = [pod for pod in store.pods_on(node.name)
                      if pod.condition_status("Ready") != FALSE and not pod.is_terminal()]
            if len(marked) > 1 and self._may_mark_together(marked):
                told = [pod for pod in marked if pod.condition_status("Ready") is not None]
                store.set_pods_condition(marked, "Ready", FALSE)
                store.pod_events("Warning", "NodeNotReady", told, "Node is not ready", "node-controller")
                return
        for pod in store.pods_on(node.name):
            status = pod.condition_status("Ready")
            if status != FALSE and not pod.is_terminal():
                store.set_pod_condition(pod, "Ready", FALSE)
                if status is not None:
                    store.event("Warning", "NodeNotReady", pod.ref, "Node is not ready", "node-controller")

    def _may_mark_together(self, pods: list) -> bool:
        """Whether Ready=False written to all of `pods` (Store.set_pods_condition: each watcher of a
        condition change hears of every pod before the next watcher hears of any), then their Events,
        is what a write and an Event after another does. The watchers of a condition change (the
        workload, disruption and StatefulSet controllers, the figures) keep indexes of their own,
        write no pod and record no Event, so each ends as it would pod after pod, the pods' statuses
        read before the writes are those each would have had, and the Events, recorded in the same
        order, interleave with nothing. What could differ is which of them arms its wakeup first,
        that is the ids of their timers, and the StatefulSet controller's shares the workload
        controllers' phase, so two wakeups could run in the other order: so together only where the
        ReplicaSets' is the only one that a change of these pods can arm (no pod of a StatefulSet, none
        that a PodDisruptionBudget covers)."""
        covered = self.sim.disruption.pdbs_by_pod
        for pod in pods:
            owner = pod.owner
            if (owner is not None and owner.kind == "StatefulSet") or pod.key in covered:
                return False
        return True

    # ---------------------------------------------------------------- NoExecute tainting

    def _queue(self, zone: str) -> ZoneQueue:
        queue = self.zone_queues.get(zone)
        if queue is None:
            queue = ZoneQueue(TokenBucket(self.config.node_eviction_rate, self.sim.clock.now))
            self.zone_queues[zone] = queue
        return queue

    def _zone_seen(self, zone: str) -> None:
        if zone not in self.zone_states:
            self.zone_states[zone] = INITIAL
            self._queue(zone)
            self.sim.store.changes.zones = True

    def _process_taint_based_eviction(self, node: Node, observed: str) -> None:
        store = self.sim.store
        if observed == FALSE:
            if node.has_taint(UNREACHABLE_TAINT, NO_EXECUTE):
                store.update_taints(node, [Taint(NOT_READY_TAINT, NO_EXECUTE)], [UNREACHABLE_NO_EXECUTE])
            else:
                self._mark_for_tainting(node, NOT_READY_TAINT)
        elif observed == UNKNOWN:
            if node.has_taint(NOT_READY_TAINT, NO_EXECUTE):
                store.update_taints(node, [Taint(UNREACHABLE_TAINT, NO_EXECUTE)], [NOT_READY_NO_EXECUTE])
            else:
                self._mark_for_tainting(node, UNREACHABLE_TAINT)
        else:
            self.mark_node_as_reachable(node)

    def _mark_for_tainting(self, node: Node, key: str) -> None:
        queue = self._queue(node.zone)
        if not node.has_taint(key, NO_EXECUTE):
            queue.remove(node.name)
        self._seq += 1
        queue.add(node.name, self.sim.clock.now, self._seq)

    def mark_node_as_reachable(self, node: Node) -> None:
        self.sim.store.update_taints(node, remove=[NOT_READY_NO_EXECUTE, UNREACHABLE_NO_EXECUTE])
        queue = self._queue(node.zone)
        if node.name in queue.members:
            self.watched.add(node.name)  # out of the queue: no longer settled
        queue.remove(node.name)

    def _arm_taint_pass(self) -> None:
        """Run doNoExecuteTaintingPass at the first 100 ms tick where some zone can make progress."""
        now = self.sim.clock.now
        due = None
        for queue in self.zone_queues.values():
            head = queue.head(self.last_pass)
            if head is None:
                continue
            token = queue.limiter.next_token_at(now)
            if token is None:
                continue
            at = max(token, head[0], now)
            due = at if due is None else min(due, at)
        if due is None:
            return
        self._taint_pass.arm(-(-due // NODE_EVICTION_PERIOD_MS) * NODE_EVICTION_PERIOD_MS)

    def taint_pass(self) -> None:
        self._taint_pass.fired()
        now = self.sim.clock.now
        for zone in sorted(self.zone_queues):
            queue = self.zone_queues[zone]
            while (head := queue.head(self.last_pass)) is not None:
                if not queue.limiter.try_accept(now):
                    break
                if now < head[0]:
                    break
                name = head[1]
                queue.pop(name)
                ok, wait = self._taint_one(name)
                if ok:
                    queue.queued.pop(name, None)
                else:
                    self._seq += 1
                    queue.queued[name] = self._seq
                    heapq.heappush(queue.heap, (now + wait + 1, name, self._seq))
        self._arm_taint_pass()

    def _taint_one(self, name: str) -> tuple[bool, int]:
        node = self.sim.store.nodes.get(name)
        if node is None:
            return True, 0
        status = node.ready_status()
        if status is None:
            return False, RETRY_NO_READY_MS
        if status == FALSE:
            add, opposite = NOT_READY_TAINT, UNREACHABLE_TAINT
        elif status == UNKNOWN:
            add, opposite = UNREACHABLE_TAINT, NOT_READY_TAINT
        else:
            return True, 0
        self.sim.store.update_taints(node, [Taint(add, NO_EXECUTE)], [Taint(opposite, NO_EXECUTE)])
        self.evictions_total[node.zone] = self.evictions_total.get(node.zone, 0) + 1
        self.watched.add(name)
        return True, 0

    # ---------------------------------------------------------------- zones

    def compute_zone_state(self, zone: str) -> str:
        total, ready = self.zone_counts.get(zone, (0, 0))
        not_ready = total - ready
        if ready == 0 and not_ready > 0:
            return FULL
        if not_ready > 2 and not_ready / total >= self.config.unhealthy_zone_threshold:
            return PARTIAL
        return NORMAL

    def _zone_qps(self, zone: str, state: str) -> float:
        if state == PARTIAL:
            size = self.zone_counts.get(zone, (0, 0))[0]
            return self.config.secondary_node_eviction_rate if size > self.config.large_cluster_size_threshold else 0.0
        return self.config.node_eviction_rate  # Normal and FullDisruption (HealthyQPSFunc)

    def _set_limiter(self, zone: str, state: str) -> None:
        self._swap_limiter(zone, self._zone_qps(zone, state))

    def _swap_limiter(self, zone: str, qps: float) -> None:
        """SwapLimiter: a new bucket; drained of its token if the old one had none left."""
        queue = self._queue(zone)
        if queue.limiter.qps == qps:
            return
        now = self.sim.clock.now
        fresh = TokenBucket(qps, now)
        if qps > 0 and not queue.limiter.try_accept(now):
            fresh.try_accept(now)
        if qps <= 0:
            fresh.tokens = 0.0
        queue.limiter = fresh

    def _handle_disruption(self) -> None:
        zones = [z for z, (total, _ready) in self.zone_counts.items() if total > 0]
        new_states = {z: self.compute_zone_state(z) for z in zones}
        all_are = bool(new_states) and all(s == FULL for s in new_states.values())
        for zone in list(self.zone_states):
            if zone not in new_states:
                del self.zone_states[zone]
                self.sim.store.changes.zones = True
        all_was = bool(self.zone_states) and all(s == FULL for s in self.zone_states.values())
        for zone in new_states:
            self.zone_states.setdefault(zone, INITIAL)
        if all_are and all_was:
            return
        store = self.sim.store
        if all_are:
            self.all_zones_down = True
            store.event("Warning", "MasterDisruptionMode", "Cluster",
                        "Controller detected that all Nodes are not-Ready. Entering master disruption mode",
                        "node-controller")
            for node in list(store.nodes.values()):
                self.mark_node_as_reachable(node)
            for zone in self.zone_states:
                self._swap_limiter(zone, 0.0)
                self.zone_states[zone] = FULL
            store.changes.zones = True
            return
        if all_was:
            self.all_zones_down = False
            store.event("Normal", "MasterDisruptionMode", "Cluster",
                        "Controller detected that some Nodes are Ready. Exiting master disruption mode",
                        "node-controller")
            now = self.sim.clock.now
            for name, health in self.health.items():
                health.probe_floor = now
                health.ready_transition = now
                self.watched.add(name)
            for zone, state in new_states.items():
                self._set_limiter(zone, state)
                self.zone_states[zone] = state
            store.changes.zones = True
            return
        for zone, state in new_states.items():
            if self.zone_states.get(zone) != state:
                self._set_limiter(zone, state)
                self.zone_states[zone] = state
                store.changes.zones = True

    # ---------------------------------------------------------------- explanations

    def ready_deadline(self, node: Node) -> int | None:
        """When this controller will mark the node Unknown if it hears nothing more (for the UI)."""
        health = self.health.get(node.name)
        if health is None or node.ready_status() == UNKNOWN:
            return None
        kubelet = self.sim.kubelets.get(node.name)
        if kubelet is not None and kubelet.signalling:
            return None
        floor = health.probe_floor
        if kubelet is not None:
            floor = max(floor, self._pass_ceil(kubelet.last_signal()))
        grace = self.config.node_monitor_grace_period if node.conditions.get("Ready") else self.config.node_startup_grace_period
        # The first pass strictly after floor + grace.
        return self._pass_ceil(floor + grace + 1)

    def queue_position(self, node: Node) -> tuple[int, int | None] | None:
        """(place in its zone's taint queue, when the next token comes) if the node is waiting."""
        queue = self.zone_queues.get(node.zone)
        if queue is None or node.name not in queue.queued:
            return None
        ahead = sorted((at, name) for name in queue.queued
                       for at in [queue.processing_at(name, self.last_pass)] if at is not None)
        mine = (queue.processing_at(node.name, self.last_pass), node.name)
        place = ahead.index(mine) + 1 if mine in ahead else 1
        return place, queue.limiter.next_token_at(self.sim.clock.now)
