"""activeQ keeps the pods queued with one (priority, queue time) together and pops them in token
order (SchedulingQueue._active_runs): the same order as one heap of (-priority, queue time, token)
entries, the reference here, through adds (one or many at once), pops (one by one or taken from
`pops`, as a run of equivalent pods takes them), pods put back, binds, deletes and requeues.

QUEUE_EXAMPLES raises the number of examples for a longer run."""

from __future__ import annotations

import heapq
import os
from itertools import islice

from hypothesis import HealthCheck, given, settings, strategies as st

from playground.engine.scheduler.queue import ACTIVE, BACKOFF, SchedulingQueue

EXAMPLES = int(os.environ.get("QUEUE_EXAMPLES", "300"))


class HeapQueue(SchedulingQueue):
    """activeQ as one heap of (-priority, queue time, token, key), stale entries dropped on top."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._heap: list[tuple[int, int, int, str]] = []

    def _push_active(self, info) -> None:
        info.where = ACTIVE
        info.token = self._next_token()
        heapq.heappush(self._heap, (-info.priority, info.timestamp, info.token, info.key))

    def _first_active(self, take: bool):
        while self._heap:
            _, _, token, key = self._heap[0]
            info = self.infos.get(key)
            if info is not None and info.token == token and info.where == ACTIVE:
                if take:
                    heapq.heappop(self._heap)
                return info
            heapq.heappop(self._heap)
        return None

    def add_many(self, keys, priorities, now) -> None:
        for key, priority in zip(keys, priorities):
            self.add(key, priority, now)

    def pops(self):
        while (info := self.pop()) is not None:
            yield info

    def restore(self, info) -> None:
        info.where = ACTIVE
        info.attempts -= 1
        heapq.heappush(self._heap, (-info.priority, info.timestamp, info.token, info.key))


KEYS = [f"ns/p{i}" for i in range(12)]
# mostly one priority and one instant, so that runs hold several pods
operations = st.lists(st.one_of(
    st.tuples(st.just("add"), st.sampled_from(KEYS), st.sampled_from([0, 0, 0, 10, -5]),
              st.sampled_from([0, 0, 0, 2])),
    st.tuples(st.just("add many"), st.lists(st.tuples(st.sampled_from(KEYS), st.sampled_from([0, 0, 10])), max_size=6),
              st.sampled_from([0, 0, 2])),
    st.tuples(st.just("pop"), st.integers(1, 4)),
    st.tuples(st.just("pops"), st.integers(0, 14)),
    st.tuples(st.just("put back"), st.randoms(use_true_random=False)),
    st.tuples(st.just("done"), st.sampled_from(KEYS)),
    st.tuples(st.just("delete"), st.sampled_from(KEYS)),
    st.tuples(st.just("fail"), st.booleans()),
    st.tuples(st.just("move all"), st.integers(0, 3)),
    st.tuples(st.just("flush"), st.integers(0, 3)),
    st.tuples(st.just("peek")),
    st.tuples(st.just("has active")),
), max_size=60)


def replay(queue: SchedulingQueue, ops: list) -> list:
    """What the queue answers to `ops`; pods popped and not yet answered for are held, as the
    scheduler's run of equivalent pods holds them before it puts some back."""
    seen, held, now = [], [], 0
    for op in ops:
        kind = op[0]
        if kind == "add":
            now += op[3]
            queue.add(op[1], op[2], now)
        elif kind == "add many":  # (a ReplicaSet's batch of creates; repeated keys are left as add leaves them)
            now += op[2]
            queue.add_many([key for key, _ in op[1]], [priority for _, priority in op[1]], now)
        elif kind == "pop":
            for _ in range(op[1]):
                info = queue.pop()
                seen.append(("pop", info and info.key))
                if info is not None:
                    held.append(info)
        elif kind == "pops":
            for info in islice(queue.pops(), op[1]):
                seen.append(("pop", info.key))
                held.append(info)
        elif kind == "put back":
            op[1].shuffle(held)
            for info in held:
                queue.restore(info)
            held = []
        elif kind in ("done", "delete"):
            held = [info for info in held if info.key != op[1]]
            (queue.done if kind == "done" else queue.delete)(op[1])
        elif kind == "fail" and held:
            info = held.pop(0)
            if op[1]:
                queue.add_unschedulable(info, now)
            else:
                queue.requeue_backoff(info, now)
        elif kind == "move all":
            now += op[1] * 1000
            seen.append(("moved", queue.move_all(now)))
        elif kind == "flush":
            now += op[1] * 1000
            seen.append(("flushed", queue.flush_backoff(now)))
        elif kind == "peek":
            info = queue.peek()
            seen.append(("peek", info and info.key))
        elif kind == "has active":
            seen.append(("has active", queue.has_active()))
    while (info := queue.pop()) is not None:
        seen.append(("drain", info.key, info.attempts))
    seen.append(sorted((key, info.where) for key, info in queue.infos.items() if info.where != BACKOFF))
    return seen


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=operations, pop_from_backoff=st.booleans())
def test_active_queue_runs_pop_in_the_heap_order(ops, pop_from_backoff):
    assert replay(SchedulingQueue(pop_from_backoff=pop_from_backoff), ops) == \
        replay(HeapQueue(pop_from_backoff=pop_from_backoff), ops)


def test_pods_put_back_in_any_order_keep_their_places():
    queue = SchedulingQueue()
    for key in ("a", "b", "c", "d"):
        queue.add(key, 0, 0)
    popped = [queue.pop() for _ in range(3)]
    for info in (popped[2], popped[0], popped[1]):
        queue.restore(info)
    assert [queue.pop().key for _ in range(4)] == ["a", "b", "c", "d"]
