"""The event recorder's index (events found by the hash of their key, checked against the Event's
own fields, with a side table for keys whose hash another key took) against the plain reference:
a dict from the whole key to its Event number, as the recorder kept before. Same Events, counts,
times and log, bounded or not, with and without forced hash collisions, also when Events recorded
once at most (record_once: a pod's Scheduled event) are left out of the index."""

from collections import deque

from hypothesis import given, settings, strategies as st

from playground.engine import store
from playground.engine.objects import Event
from playground.engine.store import EventRecorder


class PlainRecorder:
    def __init__(self, limit):
        self.limit = limit
        self.events = deque(maxlen=limit)
        self.total = 0
        self.seq = {}
        self.by_key = {}

    def record(self, now, key):
        seq = self.seq.get(key)
        if seq is not None and seq > self.total - len(self.events):
            event = self.by_key[key]
            event.count += 1
            event.last_time = now
            return event
        source, instance, obj, uid, type_, reason, message = key
        event = Event(now, type_, reason, obj, message, source)
        self.events.append(event)
        self.total += 1
        self.seq[key] = self.total
        self.by_key[key] = event
        return event


# few distinct keys, so that keys repeat, leave a short log and come back
keys = st.tuples(st.sampled_from(["kubelet", "default-scheduler"]), st.sampled_from(["", "n-1#0", "n-1#1"]),
                 st.sampled_from(["Pod/default/a", "Node/n-1"]), st.sampled_from(["", "uid-1"]),
                 st.just("Normal"), st.sampled_from(["Killing", "Scheduled"]), st.just("m"))


@settings(max_examples=300, deadline=None)
@given(st.lists(keys, max_size=60), st.sampled_from([None, 1, 2, 3, 5]), st.sampled_from([None, 1, 3]))
def test_recorder_index_equals_a_dict_of_whole_keys(writes, limit, buckets):
    replay(writes, limit, buckets)


def test_a_collided_key_back_after_leaving_the_log_keeps_the_other_keys_event():
    x, k, f1, f2 = (("kubelet", "", obj, "", "Normal", "Killing", "m") for obj in ("Pod/x", "Pod/k", "Pod/f1", "Pod/f2"))
    replay([x, k, f1, f2, x, k, x], limit=3, buckets=1)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(keys, st.booleans()), max_size=60), st.sampled_from([None, 1, 2, 3, 5]),
       st.sampled_from([None, 1, 3]))
def test_events_recorded_once_left_out_of_the_index_change_nothing(writes, limit, buckets):
    # an Event recorded once has a key of its own: its object's uid is used by no other write
    replay([(("default-scheduler", "", key[2], f"once-{i}", *key[4:]) if once else key, once)
            for i, (key, once) in enumerate(writes)], limit, buckets)


def replay(writes, limit, buckets):
    """`writes`: keys, or (key, recorded once) pairs."""
    now = [0]
    recorder = EventRecorder(lambda: now[0], limit)
    plain = PlainRecorder(limit)
    if buckets:  # a hash of one or three values: keys share theirs with others
        store.key_hash = lambda key: hash(key) % buckets
    try:
        for time, write in enumerate(writes):
            now[0] = time
            key, once = write if isinstance(write[1], bool) else (write, False)
            source, instance, obj, uid, type_, reason, message = key
            if once:
                got = recorder.record_once(type_, reason, obj, message, source, uid)
            else:
                got = recorder.record(type_, reason, obj, message, source, uid, instance)
            want = plain.record(time, key)
            assert (got.time, got.count, got.last_time) == (want.time, want.count, want.last_time)
            assert [e.as_dict() for e in recorder.events] == [e.as_dict() for e in plain.events]
            assert recorder.total == plain.total
    finally:
        store.key_hash = hash


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 30), st.integers(0, 60), st.integers(-5, 70))
def test_since_gives_the_events_recorded_after_those_seen(limit, recorded, seen):
    """`since(seen)`: the Events recorded after the first `seen`, oldest first, as many as the bounded
    log still holds (the plain reference: the log's tail)."""
    recorder = EventRecorder(lambda: 0, limit)
    for i in range(recorded):
        recorder.record("Normal", "R", f"Pod/ns/p{i}", "m", "test")
    new = recorder.total - seen
    expected = [] if new <= 0 else list(recorder.events)[-min(new, len(recorder.events)):]
    assert [id(e) for e in recorder.since(seen)] == [id(e) for e in expected]


# Events of many keys (names from a pool larger than the log) recorded alone, once, or in a
# ReplicaSet's batch of creates (no larger than the log): the bounded log's indexes forget what
# leaves it as it goes, and are never built again.
writes_of_many_keys = st.lists(st.one_of(
    st.tuples(st.just("one"), st.integers(0, 40)),
    st.tuples(st.just("once"), st.integers(0, 40)),
    st.tuples(st.just("batch"), st.lists(st.integers(0, 40), min_size=1, max_size=6, unique=True))), max_size=80)


@settings(max_examples=300, deadline=None)
@given(writes_of_many_keys, st.sampled_from([1, 2, 3, 5, 8]))
def test_a_bounded_logs_indexes_hold_its_keys_without_being_built_again(writes, limit):
    recorder = EventRecorder(lambda: 0, limit)

    def rebuild():
        raise AssertionError("the indexes were built again: without shared hashes, forgetting keeps them small")
    recorder._rebuild_indexes = rebuild
    for uid, (kind, what) in enumerate(writes, 1):
        total = recorder.total
        if kind == "one":
            recorder.record("Warning", "FailedScheduling", f"Pod/default/p-{what}", "0/3 nodes", "default-scheduler")
        elif kind == "once":
            recorder.record_once("Normal", "Scheduled", f"Pod/default/p-{what}", "assigned", "default-scheduler", uid)
            continue  # (what it pushed out of the log is forgotten at the next new Event indexed)
        else:
            recorder.record_run("Normal", "SuccessfulCreate", "ReplicaSet/default/rs", "Created pod: {0}",
                                [f"p-{i}" for i in what[:limit]], "replicaset-controller")
        assert len(recorder._by_hash) + len(recorder._collided) <= limit
        # (a batch's entries go once all of its Events left)
        assert len(recorder._by_hash) + len(recorder._collided) + recorder._run_entries < 2 * limit
        if recorder.total == total:
            continue  # a repeat, counted: nothing new entered
        indexed = [event for event in recorder.events.plain() if event.reason != "Scheduled"]  # (not once)
        assert len(recorder._by_hash) == len(indexed)
        for pair in [("default-scheduler", "FailedScheduling"), ("replicaset-controller", "SuccessfulCreate")]:
            assert (pair in recorder._sources) == any((e.source, e.reason) == pair for e in indexed)
