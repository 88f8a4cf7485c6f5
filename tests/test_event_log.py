"""The event recorder's log with runs of Events kept as their parts (eventlog.EventLog, EventRun,
EventRecorder.record_run) against the plain reference: a deque of Events, each recorded with
record_once. Same Events (every field, the numbers included), in the same order, read forwards,
backwards, by index and by `since`, bounded or not, with runs cut by the bound, mixed with Events
recorded and counted again one by one; a run's Event is the same object on every read."""

from itertools import islice

import pytest
from hypothesis import given, settings, strategies as st

from playground.engine import store
from playground.engine.eventlog import EventLog
from playground.engine.objects import Event
from playground.engine.store import EventRecorder

# A write: a run of Scheduled events (pods p<i> to nodes), one Event recorded once, or one recorded
# with the repeat index (few keys, so that some are counted again).
writes = st.lists(st.one_of(
    st.tuples(st.just("run"), st.integers(0, 7)),
    st.tuples(st.just("once"), st.integers(0, 3)),
    st.tuples(st.just("record"), st.integers(0, 2))), max_size=40)


def play(recorder: EventRecorder, plan: list, runs: bool) -> None:
    pod = 0
    for time, (kind, size) in enumerate(plan):
        recorder._now = lambda time=time: time * 1000
        if kind == "run":
            keys = [f"default/p{pod + i}" for i in range(size)]
            nodes = [f"n-{(pod + i) % 3}" for i in range(size)]
            uids = [100 + pod + i for i in range(size)]
            pod += size
            if runs:
                recorder.record_once_run("Normal", "Scheduled", "default-scheduler", "Pod/{0}",
                                    "Successfully assigned {0} to {1}", (keys, nodes), uids)
            else:
                for key, node, uid in zip(keys, nodes, uids):
                    recorder.record_once("Normal", "Scheduled", f"Pod/{key}", f"Successfully assigned {key} to {node}",
                                         "default-scheduler", uid)
        elif kind == "once":
            recorder.record_once("Normal", "Started", f"Pod/default/q{size}", "Started container", "kubelet",
                                 500 + time)
        else:
            recorder.record("Warning", "NodeNotReady", f"Node/n-{size}", "Node is not ready", "node-controller")


def fields(events) -> list[dict]:
    return [e.as_dict() | {"seq": e.seq, "uid": e.uid} for e in events]


@settings(max_examples=300, deadline=None)
@given(writes, st.sampled_from([None, 1, 2, 3, 5, 8]))
def test_a_log_with_runs_reads_as_the_events_recorded_one_by_one(plan, limit):
    with_runs, plain = EventRecorder(lambda: 0, limit), EventRecorder(lambda: 0, limit)
    play(with_runs, plan, runs=True)
    play(plain, plan, runs=False)
    log, reference = with_runs.events, plain.events
    newest = list(islice(reversed(log), 2))  # some Events of a run made before the rest
    assert (len(log), log.maxlen, with_runs.total, with_runs.repeats) == (
        len(reference), reference.maxlen, plain.total, plain.repeats)
    assert fields(log) == fields(reference)
    assert fields(reversed(log)) == fields(reversed(reference))
    for i in range(-len(reference), len(reference)):
        assert fields([log[i]]) == fields([reference[i]])
    for seen in range(-1, plain.total + 2):
        assert fields(with_runs.since(seen)) == fields(plain.since(seen))
    assert [id(e) for e in log] == [id(e) for e in log] == [id(e) for e in reversed(log)][::-1]
    assert [id(e) for e in newest] == [id(e) for e in list(log)[::-1][:len(newest)]]


def test_a_run_cut_by_the_bound_keeps_its_newest_events():
    recorder = EventRecorder(lambda: 0, 3)
    recorder.record_once_run("Normal", "Scheduled", "default-scheduler", "Pod/{0}", "to {1}",
                        (["a", "b", "c", "d", "e"], ["n1", "n2", "n3", "n4", "n5"]), [1, 2, 3, 4, 5])
    assert [(e.object, e.message, e.uid, e.seq) for e in recorder.events] == [
        ("Pod/c", "to n3", 3, 3), ("Pod/d", "to n4", 4, 4), ("Pod/e", "to n5", 5, 5)]
    recorder.record("Normal", "R", "Node/n1", "m", "x")
    assert [e.object for e in recorder.events] == ["Pod/d", "Pod/e", "Node/n1"]
    assert recorder.total == 6


def test_the_log_is_indexed_by_ints_only():
    log = EventLog()
    log.append(Event(0, "Normal", "R", "Node/n", "m", "x"))
    with pytest.raises(IndexError):
        log[1]
    with pytest.raises(TypeError):
        log[0:1]


def test_a_run_of_events_needs_their_objects():
    with pytest.raises(ValueError):
        EventRecorder(lambda: 0).record_once_run("Normal", "R", "x", "Pod/{0}", "m", (["a"],), [0])


def test_a_listener_hears_each_event_of_a_run():
    recorder = EventRecorder(lambda: 7)
    heard = []
    recorder.listeners.append(lambda now, event: heard.append((now, event.object, event.seq)))
    recorder.record_once_run("Normal", "Scheduled", "s", "Pod/{0}", "m {0}", (["a", "b"],), [1, 2])
    assert heard == [(7, "Pod/a", 1), (7, "Pod/b", 2)]
    assert list(islice(reversed(recorder.events), 1))[0].object == "Pod/b"



# Counted runs (record_run: a ReplicaSet's batch of creates) and single records of the same kind of
# Event, with pod names from a small pool so that Events repeat: within a batch, across batches,
# between a batch and single records, before and after leaving a bounded log.
NAMES = ["a", "b", "c", "d", "e"]
creates = st.lists(st.one_of(
    st.tuples(st.just("batch"), st.lists(st.sampled_from(NAMES), max_size=4)),
    st.tuples(st.just("one"), st.sampled_from(NAMES)),
    st.tuples(st.just("other"), st.sampled_from(["rs-1", "rs-2"]))), max_size=30)


def create(recorder: EventRecorder, plan: list, runs: bool) -> list:
    """Plays `plan`; the Events counted again, as each step left them (take_repeated)."""
    taken = []
    for time, (kind, what) in enumerate(plan):
        recorder._now = lambda time=time: time * 1000
        if kind == "batch" and runs:
            recorder.record_run("Normal", "SuccessfulCreate", "ReplicaSet/default/rs-1", "Created pod: {0}", what,
                                "replicaset-controller")
        elif kind == "batch":
            for name in what:
                recorder.record("Normal", "SuccessfulCreate", "ReplicaSet/default/rs-1", f"Created pod: {name}",
                                "replicaset-controller")
        elif kind == "one":
            recorder.record("Normal", "SuccessfulCreate", "ReplicaSet/default/rs-1", f"Created pod: {what}",
                            "replicaset-controller")
        else:  # another object, another reason: other keys
            recorder.record("Normal", "SuccessfulDelete", f"ReplicaSet/default/{what}", "Deleted pod: a",
                            "replicaset-controller")
        repeated = recorder.take_repeated()
        taken.append(None if repeated is None else fields(repeated))
    return taken


@settings(max_examples=400, deadline=None)
@given(creates, st.sampled_from([None, 1, 2, 3, 5, 8]), st.sampled_from([None, 1, 3]))
def test_counted_runs_count_and_keep_as_events_recorded_one_by_one(plan, limit, buckets):
    if buckets:  # a hash of one or three values: keys share theirs with others
        store.key_hash = lambda key: hash(key) % buckets
    try:
        with_runs, plain = EventRecorder(lambda: 0, limit), EventRecorder(lambda: 0, limit)
        assert create(with_runs, plan, runs=True) == create(plain, plan, runs=False)
    finally:
        store.key_hash = hash
    assert (with_runs.total, with_runs.repeats) == (plain.total, plain.repeats)
    assert fields(with_runs.events) == fields(plain.events)
    assert fields(reversed(with_runs.events)) == fields(reversed(plain.events))


def test_a_repeat_of_an_event_in_a_run_counts_that_event():
    recorder = EventRecorder(lambda: 0)
    recorder.record_run("Normal", "SuccessfulCreate", "ReplicaSet/default/rs", "Created pod: {0}", ["x", "y"], "rc")
    again = recorder.record("Normal", "SuccessfulCreate", "ReplicaSet/default/rs", "Created pod: y", "rc")
    assert again is recorder.events[1] and (again.count, again.seq, recorder.total) == (2, 2, 2)


def test_a_batch_repeats_an_event_recorded_alone_or_in_a_run():
    """A batch is recorded as one run unless it repeats an Event: one recorded alone (its source
    and reason noted, EventRecorder._repeats_any) or one in an earlier run (found in the run
    index)."""
    recorder = EventRecorder(lambda: 0)
    rs, other = "ReplicaSet/default/rs", "ReplicaSet/default/other"
    recorder.record("Normal", "SuccessfulCreate", rs, "Created pod: x", "rc")
    recorder.record_run("Normal", "SuccessfulCreate", other, "Created pod: {0}", ["x"], "rc2")  # another source
    recorder.record_run("Normal", "SuccessfulCreate", rs, "Created pod: {0}", ["y", "x"], "rc")
    recorder.record_run("Normal", "SuccessfulCreate", rs, "Created pod: {0}", ["z"], "rc")
    recorder.record_run("Normal", "SuccessfulCreate", rs, "Created pod: {0}", ["w", "z"], "rc")
    recorder.record_run("Normal", "SuccessfulCreate", other, "Created pod: {0}", ["v", "x"], "rc2")  # in a run
    assert [(e.object, e.message, e.count) for e in recorder.events] == [
        (rs, "Created pod: x", 2), (other, "Created pod: x", 2), (rs, "Created pod: y", 1),
        (rs, "Created pod: z", 2), (rs, "Created pod: w", 1), (other, "Created pod: v", 1)]
    assert (recorder.total, recorder.repeats) == (6, 3)


def test_a_run_format_has_one_argument():
    with pytest.raises(ValueError):
        EventRecorder(lambda: 0).record_run("Normal", "R", "x", "Created {0} on {1}", ["a"], "rc")
