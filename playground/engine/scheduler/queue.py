"""The scheduling queue (pkg/scheduler/backend/queue): activeQ, backoffQ and unschedulablePods.

activeQ is ordered by PrioritySort (priority, then the time the pod was queued). A pod that failed
goes to unschedulablePods; a cluster event that may help moves it to backoffQ (if its backoff has
not expired) or activeQ; backoffQ is flushed every second; pods left in unschedulablePods for
5 minutes are moved by a flush every 30 s. Backoff doubles from podInitialBackoffSeconds to
podMaxBackoffSeconds with the number of attempts.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import Callable

ACTIVE, BACKOFF, UNSCHEDULABLE, IN_FLIGHT = "active", "backoff", "unschedulable", "scheduling"
MAX_IN_UNSCHEDULABLE_MS = 5 * 60_000


@dataclass(slots=True)
class QueuedPodInfo:
    key: str
    priority: int
    timestamp: int
    initial_attempt: int | None = None
    attempts: int = 0
    where: str = ACTIVE
    token: int = 0
    unschedulable_since: int | None = None
    # The plugins that rejected the pod in its last attempt (QueuedPodInfo.UnschedulablePlugins).
    unschedulable_plugins: frozenset[str] = frozenset()


class SchedulingQueue:
    def __init__(self, initial_backoff_ms: int = 1000, max_backoff_ms: int = 10_000) -> None:
        self.initial_backoff = initial_backoff_ms
        self.max_backoff = max_backoff_ms
        self.infos: dict[str, QueuedPodInfo] = {}
        self._active: list[tuple[int, int, int, str]] = []
        self._backoff: list[tuple[int, int, str]] = []
        self.unschedulable: dict[str, QueuedPodInfo] = {}
        self._token = 0

    def __len__(self) -> int:
        return len(self.infos)

    def counts(self) -> dict[str, int]:
        out = {ACTIVE: 0, BACKOFF: 0, UNSCHEDULABLE: 0, IN_FLIGHT: 0}
        for info in self.infos.values():
            out[info.where] += 1
        return out

    def backoff_duration(self, attempts: int) -> int:
        """calculateBackoffDuration."""
        if attempts == 0:
            return 0
        duration = self.initial_backoff
        for _ in range(1, attempts):
            if duration > self.max_backoff - duration:
                return self.max_backoff
            duration += duration
        return duration

    def backoff_expiry(self, info: QueuedPodInfo) -> int:
        return info.timestamp + self.backoff_duration(info.attempts)

    def _next_token(self) -> int:
        self._token += 1
        return self._token

    def _push_active(self, info: QueuedPodInfo) -> None:
        info.where = ACTIVE
        info.token = self._next_token()
        heapq.heappush(self._active, (-info.priority, info.timestamp, info.token, info.key))

    def _push_backoff(self, info: QueuedPodInfo) -> None:
        info.where = BACKOFF
        info.token = self._next_token()
        heapq.heappush(self._backoff, (self.backoff_expiry(info), info.token, info.key))

    # ---------------------------------------------------------------- API

    def add(self, key: str, priority: int, now: int) -> None:
        if key in self.infos:
            return
        info = QueuedPodInfo(key, priority, now)
        self.infos[key] = info
        self._push_active(info)

    def delete(self, key: str) -> None:
        info = self.infos.pop(key, None)
        if info is not None:
            self.unschedulable.pop(key, None)

    def has_active(self) -> bool:
        self._clean(self._active, ACTIVE, 2)
        return bool(self._active)

    def pop(self) -> QueuedPodInfo | None:
        while self._active:
            _, _, token, key = heapq.heappop(self._active)
            info = self.infos.get(key)
            if info is not None and info.token == token and info.where == ACTIVE:
                info.where = IN_FLIGHT
                info.attempts += 1
                return info
        return None

    def done(self, key: str) -> None:
        """The pod was bound (or left the scheduler): forget it."""
        self.infos.pop(key, None)
        self.unschedulable.pop(key, None)

    def add_unschedulable(self, info: QueuedPodInfo, now: int) -> None:
        """AddUnschedulableIfNotPresent after a failed attempt."""
        if info.key not in self.infos:
            return
        info.timestamp = now
        if info.initial_attempt is None:
            info.initial_attempt = now
        info.where = UNSCHEDULABLE
        info.unschedulable_since = now
        self.unschedulable[info.key] = info

    def requeue_backoff(self, info: QueuedPodInfo, now: int) -> None:
        """A failed pod that goes back after its backoff at once: it was rejected by no plugin (an
        error), or an event that may help arrived while it was being scheduled."""
        if info.key not in self.infos:
            return
        info.timestamp = now
        if info.initial_attempt is None:
            info.initial_attempt = now
        info.unschedulable_since = None
        self._requeue(info, now)

    def move_matching(self, now: int, worth: Callable[[QueuedPodInfo], bool]) -> int:
        """Move the unschedulable pods for which `worth` says yes (a queueing hint returned Queue)
        to backoffQ or activeQ; in the order they became unschedulable."""
        moved = 0
        for key in sorted(self.unschedulable, key=lambda k: (self.infos[k].timestamp, k)):
            info = self.unschedulable[key]
            if worth(info):
                del self.unschedulable[key]
                self._requeue(info, now)
                moved += 1
        return moved

    def move_all(self, now: int) -> int:
        """MoveAllToActiveOrBackoffQueue for a cluster event that may make pods schedulable."""
        moved = 0
        for key in sorted(self.unschedulable, key=lambda k: (self.infos[k].timestamp, k)):
            info = self.unschedulable.pop(key)
            self._requeue(info, now)
            moved += 1
        return moved

    def _requeue(self, info: QueuedPodInfo, now: int) -> None:
        info.unschedulable_since = None
        if self.backoff_expiry(info) > now:
            self._push_backoff(info)
        else:
            self._push_active(info)

    def flush_backoff(self, now: int) -> int:
        moved = 0
        heap = self._backoff
        while heap:
            expiry, token, key = heap[0]
            info = self.infos.get(key)
            if info is None or info.token != token or info.where != BACKOFF:
                heapq.heappop(heap)
                continue
            if expiry > now:
                break
            heapq.heappop(heap)
            self._push_active(info)
            moved += 1
        return moved

    def next_backoff_expiry(self) -> int | None:
        self._clean(self._backoff, BACKOFF, 1)
        return self._backoff[0][0] if self._backoff else None

    def flush_unschedulable_leftover(self, now: int) -> int:
        stale = [k for k, info in self.unschedulable.items()
                 if info.unschedulable_since is not None and now - info.unschedulable_since > MAX_IN_UNSCHEDULABLE_MS]
        for key in stale:
            self._requeue(self.unschedulable.pop(key), now)
        return len(stale)

    def _clean(self, heap: list, where: str, token_index: int) -> None:
        while heap:
            entry = heap[0]
            info = self.infos.get(entry[-1])
            if info is not None and info.token == entry[token_index] and info.where == where:
                return
            heapq.heappop(heap)
