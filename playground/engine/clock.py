"""Virtual time and the timer heap.

A timer names a handler and its arguments (design rule 6), never a closure, so the whole heap is
plain data. Timers are ordered by (due time, phase, sequence): the phase puts the components of one
instant in the documented order (operations, kubelets, node lifecycle, taint eviction, PodGC,
disruption, workloads, scheduler) and the sequence keeps equal keys in insertion order, as SimPy does.
"""

from __future__ import annotations

import heapq
from typing import Any, Callable

# The order of work inside one instant of virtual time.
PHASE_OPERATIONS = 0
PHASE_KUBELET = 1
PHASE_NODE_LIFECYCLE = 2
PHASE_TAINT_EVICTION = 3
PHASE_PODGC = 4
PHASE_DISRUPTION = 5
PHASE_WORKLOADS = 6
PHASE_SCHEDULER = 7

PHASE_NAMES = {
    PHASE_OPERATIONS: "operations",
    PHASE_KUBELET: "kubelet",
    PHASE_NODE_LIFECYCLE: "node-lifecycle-controller",
    PHASE_TAINT_EVICTION: "taint-eviction-controller",
    PHASE_PODGC: "pod-garbage-collector",
    PHASE_DISRUPTION: "disruption-controller",
    PHASE_WORKLOADS: "workload-controllers",
    PHASE_SCHEDULER: "scheduler",
}


class Clock:
    """The engine's only clock: `now` in milliseconds and a heap of due timers."""

    __slots__ = ("now", "_heap", "_seq", "_handlers", "_cancelled", "_live")
    # _live holds the ids of timers not yet run or cancelled, so that cancelling a timer that has
    # already fired is harmless.

    def __init__(self) -> None:
        self.now = 0
        self._heap: list[tuple[int, int, int, str, tuple]] = []
        self._seq = 0
        self._handlers: dict[str, Callable[..., Any]] = {}
        self._cancelled: set[int] = set()
        self._live: set[int] = set()

    def register(self, name: str, handler: Callable[..., Any]) -> None:
        self._handlers[name] = handler

    def call_at(self, due: int, phase: int, handler: str, *args: Any) -> int:
        """Schedule handler(*args) at `due` (never in the past); returns the timer id."""
        if handler not in self._handlers:
            raise KeyError(f"no timer handler named {handler!r}")
        self._seq += 1
        heapq.heappush(self._heap, (max(due, self.now), phase, self._seq, handler, args))
        self._live.add(self._seq)
        return self._seq

    def reserve(self, count: int) -> int:
        """Set aside `count` timer ids for `call_with_id`; returns the first. Timers added later
        with them are ordered as if they had been added now."""
        first = self._seq + 1
        self._seq += count
        return first

    def call_with_id(self, timer_id: int, due: int, phase: int, handler: str, *args: Any) -> int:
        """call_at with an id set aside by `reserve` (never one already used)."""
        if handler not in self._handlers:
            raise KeyError(f"no timer handler named {handler!r}")
        heapq.heappush(self._heap, (max(due, self.now), phase, timer_id, handler, args))
        self._live.add(timer_id)
        return timer_id

    def newest_id(self) -> int:
        """The id of the newest timer added with call_at (or the last id reserved)."""
        return self._seq

    def remove(self, keep: Callable[[tuple], bool]) -> None:
        """Drop the pending timers `keep` refuses (given each heap entry: due, phase, id, handler,
        args)."""
        dropped = [entry for entry in self._heap if not keep(entry)]
        if dropped:
            self._heap = [entry for entry in self._heap if keep(entry)]
            heapq.heapify(self._heap)
            for entry in dropped:
                self._live.discard(entry[2])
                self._cancelled.discard(entry[2])

    def cancel(self, timer_id: int | None) -> None:
        if timer_id is not None and timer_id in self._live:
            self._live.discard(timer_id)
            self._cancelled.add(timer_id)

    def next_due(self) -> int | None:
        self._drop_cancelled()
        return self._heap[0][0] if self._heap else None

    def first_due_by(self, until: int) -> str | None:
        """The handler of the heap's first timer if it is due at or before `until`, else None: what
        a tick to `until` begins with, for the TUI's runner to forecast what the tick costs. A hint
        only: it reads the heap without changing it, so the timer may be one since cancelled."""
        heap = self._heap
        return heap[0][3] if heap and heap[0][0] <= until else None

    def pending(self) -> int:
        return len(self._live)

    def run_due(self, until: int) -> int:
        """Run every timer due at or before `until`, advancing `now` to each; returns how many ran."""
        ran = 0
        heap = self._heap
        while heap:
            due, _phase, seq, handler, args = heap[0]
            if due > until:
                break
            heapq.heappop(heap)
            if seq in self._cancelled:
                self._cancelled.discard(seq)
                continue
            self._live.discard(seq)
            self.now = due
            self._handlers[handler](*args)
            ran += 1
        self.now = max(self.now, until)
        return ran

    def _drop_cancelled(self) -> None:
        heap = self._heap
        while heap and heap[0][2] in self._cancelled:
            self._cancelled.discard(heapq.heappop(heap)[2])


class Wakeup:
    """A controller's one pending run: `arm(due)` keeps an earlier pending run and otherwise moves it
    to `due`, so a controller poked many times in an instant runs once, at the earliest time asked.
    The handler calls `fired()` first."""

    __slots__ = ("clock", "phase", "handler", "at", "timer")

    def __init__(self, clock: Clock, phase: int, handler: str) -> None:
        self.clock = clock
        self.phase = phase
        self.handler = handler
        self.at: int | None = None
        self.timer: int | None = None

    def arm(self, due: int) -> None:
        if self.at is not None and self.at <= due:
            return
        self.clock.cancel(self.timer)
        self.at = due
        self.timer = self.clock.call_at(due, self.phase, self.handler)

    def fired(self) -> None:
        self.at = None
        self.timer = None
