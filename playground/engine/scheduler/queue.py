"""The scheduling queue (pkg/scheduler/backend/queue): activeQ, backoffQ and unschedulablePods.

activeQ is ordered by PrioritySort (priority, then the time the pod was queued). A pod that failed
goes to unschedulablePods; a cluster event that may help moves it to backoffQ (if its backoff has
not expired) or activeQ; backoffQ is flushed every second; pods left in unschedulablePods for
5 minutes are moved by a flush every 30 s. Backoff doubles from podInitialBackoffSeconds to
podMaxBackoffSeconds with the number of attempts.

SchedulerPopFromBackoffQ (on from 1.33, KEP-5142; backoff_queue.go, active_queue.go): a backoff
expiry is truncated to its 1 s ordering window and a pod counts as backing off until the window
after it (so the flush at the whole second T releases the windows before T); backoffQ is ordered by
window, then as activeQ orders pods; and when activeQ is empty the scheduler pops the next pod of
backoffQ at once, backoff or not. Pods that failed with an error (no rejecting plugin) wait in their
own backoffQ (podErrorBackoffQ), which is never popped early.
"""

from __future__ import annotations

import heapq
from bisect import insort
from collections import deque
from dataclasses import dataclass
from typing import Callable, Iterator

from ..copies import copy_each

ACTIVE, BACKOFF, UNSCHEDULABLE, IN_FLIGHT = "active", "backoff", "unschedulable", "scheduling"
MAX_IN_UNSCHEDULABLE_MS = 5 * 60_000
ORDERING_WINDOW_MS = 1000  # backoffQOrderingWindowDuration


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
    def __init__(self, initial_backoff_ms: int = 1000, max_backoff_ms: int = 10_000,
                 pop_from_backoff: bool = False) -> None:
        self.initial_backoff = initial_backoff_ms
        self.max_backoff = max_backoff_ms
        self.pop_from_backoff = pop_from_backoff
        self.infos: dict[str, QueuedPodInfo] = {}
        # activeQ, ordered by (-priority, queued at, token): a heap of the (-priority, queued at)
        # pairs, each with its entries (token, key) in token order. Pods queued together (a
        # ReplicaSet's creates, 150,000 at a scenario's open) share a pair, so popping one is a
        # popleft, not a sift through a heap of all of them; the order is the heap's.
        self._active: list[tuple[int, int]] = []
        self._active_runs: dict[tuple[int, int], deque[tuple[int, str]]] = {}
        # (expiry, token, key); with pop_from_backoff (window, -priority, queued at, token, key)
        self._backoff: list[tuple] = []
        self._error_backoff: list[tuple] = []  # podErrorBackoffQ (pop_from_backoff only)
        self.unschedulable: dict[str, QueuedPodInfo] = {}
        # Moved by every change to unschedulablePods (a pod in or out): what the scheduler keeps of
        # its pods' grouping for the hints holds while this stays (Scheduler._hint_groups).
        self.unschedulable_version = 0
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
        """getBackoffTime: with pop_from_backoff the expiry's 1 s window (-1 before any attempt)."""
        if not self.pop_from_backoff:
            return info.timestamp + self.backoff_duration(info.attempts)
        if info.attempts == 0:
            return -1
        expiry = info.timestamp + self.backoff_duration(info.attempts)
        return expiry - expiry % ORDERING_WINDOW_MS

    def backing_off(self, info: QueuedPodInfo, now: int) -> bool:
        """isPodBackingoff."""
        return self._backing_off(self.backoff_expiry(info), now)

    def _backing_off(self, expiry: int, now: int) -> bool:
        if not self.pop_from_backoff:
            return expiry > now
        return expiry >= now - now % ORDERING_WINDOW_MS

    def backoff_over(self, expiry: int) -> int:
        """The first instant at which a pod whose backoff expires at `expiry` no longer backs off."""
        return expiry + ORDERING_WINDOW_MS if self.pop_from_backoff else expiry

    def _next_token(self) -> int:
        self._token += 1
        return self._token

    def _push_active(self, info: QueuedPodInfo) -> None:
        info.where = ACTIVE
        info.token = self._next_token()
        # the newest token: it goes last of its pair's entries
        self._active_run(info).append((info.token, info.key))

    def _active_run(self, info: QueuedPodInfo) -> deque[tuple[int, str]]:
        pair = (-info.priority, info.timestamp)
        run = self._active_runs.get(pair)
        if run is None:
            run = self._active_runs[pair] = deque()
            heapq.heappush(self._active, pair)
        return run

    def _first_active(self, take: bool) -> QueuedPodInfo | None:
        """The first live entry of activeQ (stale entries before it dropped), popped if `take`."""
        active, runs, infos = self._active, self._active_runs, self.infos
        while active:
            pair = active[0]
            run = runs[pair]
            while run:
                token, key = run[0]
                info = infos.get(key)
                if info is not None and info.token == token and info.where == ACTIVE:
                    if take:
                        run.popleft()
                        if not run:
                            heapq.heappop(active)
                            del runs[pair]
                    return info
                run.popleft()
            heapq.heappop(active)
            del runs[pair]
        return None

    def _push_backoff(self, info: QueuedPodInfo) -> None:
        info.where = BACKOFF
        info.token = self._next_token()
        if not self.pop_from_backoff:
            heapq.heappush(self._backoff, (self.backoff_expiry(info), info.token, info.key))
            return
        entry = (self.backoff_expiry(info), -info.priority, info.timestamp, info.token, info.key)
        heapq.heappush(self._backoff if info.unschedulable_plugins else self._error_backoff, entry)

    # ---------------------------------------------------------------- API

    def add(self, key: str, priority: int, now: int) -> None:
        if key in self.infos:
            return
        info = QueuedPodInfo(key, priority, now)
        self.infos[key] = info
        self._push_active(info)

    def add_many(self, keys: list[str], priorities: list[int], now: int) -> None:
        """add for each of `keys` with the priority beside it, in order: a ReplicaSet's batch of
        creates, whose entries all join one (priority, now) run of activeQ."""
        infos = self.infos
        if copy_each is not None and len(keys) > 1 and min(priorities) == max(priorities) \
                and infos.keys().isdisjoint(keys) and len(set(keys)) == len(keys):
            self._add_copies(keys, priorities[0], now)
            return
        run_pair = run = None
        for key, priority in zip(keys, priorities):
            if key in infos:
                continue
            self._token += 1
            info = infos[key] = QueuedPodInfo(key, priority, now, None, 0, ACTIVE, self._token)
            pair = (-priority, now)
            if pair != run_pair:
                run_pair, run = pair, self._active_run(info)
            run.append((info.token, key))

    def _add_copies(self, keys: list[str], priority: int, now: int) -> None:
        """add_many's loop for new, distinct keys of one priority: the entries are copies of the
        first one's with their own key and token, and join the run in one call."""
        tokens = range(self._token + 1, self._token + 1 + len(keys))
        self._token += len(keys)
        first = QueuedPodInfo(keys[0], priority, now, None, 0, ACTIVE, tokens[0])
        self.infos.update(zip(keys, copy_each(first, ("key", "token"), (keys, tokens))))
        self._active_run(first).extend(zip(tokens, keys))

    def delete(self, key: str) -> None:
        info = self.infos.pop(key, None)
        if info is not None and self.unschedulable.pop(key, None) is not None:
            self.unschedulable_version += 1

    def has_active(self) -> bool:
        return self._first_active(False) is not None

    def pop(self) -> QueuedPodInfo | None:
        info = self._first_active(True)
        if info is not None:
            info.where = IN_FLIGHT
            info.attempts += 1
        return info

    def pops(self) -> Iterator[QueuedPodInfo]:
        """pop() again and again until activeQ is empty, as a generator: for a caller that takes
        pods one after another (a run of equivalent pods) and changes the queue only once it stops
        taking (restore). A caller that stops after a run's last pod leaves the run empty in
        activeQ, as stale entries do: the next look at activeQ drops it."""
        active, runs, infos = self._active, self._active_runs, self.infos
        while active:
            pair = active[0]
            run = runs[pair]
            while run:
                token, key = run.popleft()
                info = infos.get(key)
                if info is not None and info.token == token and info.where == ACTIVE:
                    info.where = IN_FLIGHT
                    info.attempts += 1
                    yield info
            heapq.heappop(active)
            del runs[pair]

    @property
    def pushes(self) -> int:
        """Entries pushed into the queues so far (a pod added or moved changes it)."""
        return self._token

    def front_run(self) -> deque[tuple[int, str]] | None:
        """The entries (token, key) of activeQ's first (priority, queued at) pair, which pops() takes
        first, stale ones included: for a caller that takes them as pops() would (binds.take_run)
        and then goes on with pops() for the rest. None while activeQ is empty."""
        return self._active_runs[self._active[0]] if self._active else None

    def peek(self) -> QueuedPodInfo | None:
        """The pod pop() would return next, left in activeQ (stale entries on top are dropped, as
        pop() drops them)."""
        return self._first_active(False)

    def restore(self, info: QueuedPodInfo) -> None:
        """Undo pop(): the pod is back in activeQ where it was (the same entry)."""
        info.where = ACTIVE
        info.attempts -= 1
        run = self._active_run(info)
        entry = (info.token, info.key)
        if not run or entry < run[0]:
            run.appendleft(entry)
        else:  # (pods popped together are put back in any order)
            insort(run, entry)

    def pop_backoff(self, skip: set[str] = frozenset()) -> QueuedPodInfo | None:
        """popBackoff (activeQ is empty): the first pod of backoffQ, backing off or not; never one
        of podErrorBackoffQ. Pods in `skip` stay (already popped so at this instant)."""
        heap = self._backoff
        self._clean(heap, BACKOFF)
        kept = []
        found = None
        while heap:
            entry = heapq.heappop(heap)
            info = self.infos.get(entry[-1])
            if info is None or info.token != entry[-2] or info.where != BACKOFF:
                continue
            if info.key in skip:
                kept.append(entry)
                continue
            found = info
            break
        for entry in kept:
            heapq.heappush(heap, entry)
        if found is not None:
            found.where = IN_FLIGHT
            found.attempts += 1
        return found

    def has_backoff(self) -> bool:
        """backoffQ (not podErrorBackoffQ) holds a pod."""
        self._clean(self._backoff, BACKOFF)
        return bool(self._backoff)

    def done(self, key: str) -> None:
        """The pod was bound (or left the scheduler): forget it."""
        self.infos.pop(key, None)
        if self.unschedulable.pop(key, None) is not None:
            self.unschedulable_version += 1

    def done_many(self, keys: list[str]) -> None:
        """done for each of `keys` (a run bound together)."""
        pop = self.infos.pop
        for key in keys:
            pop(key, None)
        unschedulable = self.unschedulable
        if unschedulable and not unschedulable.keys().isdisjoint(keys):
            for key in keys:
                if unschedulable.pop(key, None) is not None:
                    self.unschedulable_version += 1  # (as done moves it)

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
        self.unschedulable_version += 1

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
        # (`worth` answers each pod on its own, so only the pods that move need sorting: during an
        # outage thousands wait and a batch of events moves few)
        return self.move_keys(now, [key for key, info in self.unschedulable.items() if worth(info)])

    def move_keys(self, now: int, moving: list[str]) -> int:
        """Move these pods of unschedulablePods to backoffQ or activeQ, in the order they became
        unschedulable."""
        if moving:
            self.unschedulable_version += 1
        for key in sorted(moving, key=lambda k: (self.infos[k].timestamp, k)):
            self._requeue(self.unschedulable.pop(key), now)
        return len(moving)

    def move_all(self, now: int) -> int:
        """MoveAllToActiveOrBackoffQueue for a cluster event that may make pods schedulable."""
        moved = 0
        if self.unschedulable:
            self.unschedulable_version += 1
        for key in sorted(self.unschedulable, key=lambda k: (self.infos[k].timestamp, k)):
            info = self.unschedulable.pop(key)
            self._requeue(info, now)
            moved += 1
        return moved

    def _requeue(self, info: QueuedPodInfo, now: int) -> None:
        info.unschedulable_since = None
        if self.backing_off(info, now):
            self._push_backoff(info)
        else:
            self._push_active(info)

    def flush_backoff(self, now: int) -> int:
        """flushBackoffQCompleted: backoffQ, then podErrorBackoffQ."""
        return self._flush(self._backoff, now) + self._flush(self._error_backoff, now)

    def _flush(self, heap: list, now: int) -> int:
        moved = 0
        while heap:
            entry = heap[0]
            info = self.infos.get(entry[-1])
            if info is None or info.token != entry[-2] or info.where != BACKOFF:
                heapq.heappop(heap)
                continue
            if self._backing_off(entry[0], now):
                break
            heapq.heappop(heap)
            self._push_active(info)
            moved += 1
        return moved

    def next_backoff_expiry(self) -> int | None:
        """The earliest instant at which a pod of backoffQ stops backing off."""
        expiries = []
        for heap in (self._backoff, self._error_backoff):
            self._clean(heap, BACKOFF)
            if heap:
                expiries.append(self.backoff_over(heap[0][0]))
        return min(expiries) if expiries else None

    def flush_unschedulable_leftover(self, now: int) -> int:
        stale = [k for k, info in self.unschedulable.items()
                 if info.unschedulable_since is not None and now - info.unschedulable_since > MAX_IN_UNSCHEDULABLE_MS]
        if stale:
            self.unschedulable_version += 1
        for key in stale:
            self._requeue(self.unschedulable.pop(key), now)
        return len(stale)

    def _clean(self, heap: list, where: str) -> None:
        while heap:
            entry = heap[0]
            info = self.infos.get(entry[-1])
            if info is not None and info.token == entry[-2] and info.where == where:
                return
            heapq.heappop(heap)
