"""Event aggregation as `kubectl get events` shows it (client-go tools/record/events_cache.go,
eventLogger): a repeat of an event with the same source, involved object, type, reason and message
is counted on the existing Event (count, firstTimestamp kept, lastTimestamp moved) instead of being
recorded again."""

import json

from conftest import events, make_sim, nodes_toml, occurrence_times

from playground.cli import main
from playground.engine import Operation
from playground.engine.report import format_event, snapshot
from playground.engine.store import EventRecorder

# No node at all: the pod is retried on its backoff, each attempt failing with the same words.
PENDING = """
[[pods]]
name = "big"
requests = { cpu = "2" }
"""


def test_a_repeated_failed_scheduling_is_one_event_with_a_count():
    sim = make_sim(PENDING)
    sim.run_until(60)
    [event] = events(sim, "FailedScheduling", "Pod/default/big")
    times = occurrence_times(sim, "FailedScheduling", "Pod/default/big")
    assert len(times) >= 2
    assert (event.count, event.time, event.last_time) == (len(times), times[0], times[-1])
    doc = event.as_dict()
    assert (doc["count"], doc["firstTimestamp"], doc["lastTimestamp"]) == (len(times), times[0] / 1000, times[-1] / 1000)
    assert doc["time"] == doc["firstTimestamp"]
    assert snapshot(sim)["events"].count(doc) == 1


def test_another_message_is_another_event():
    recorder = EventRecorder(lambda: clock[0])
    clock = [0]
    a = recorder.record("Warning", "FailedScheduling", "Pod/default/p", "one", "default-scheduler")
    clock[0] = 5000
    b = recorder.record("Warning", "FailedScheduling", "Pod/default/p", "two", "default-scheduler")
    clock[0] = 9000
    again = recorder.record("Warning", "FailedScheduling", "Pod/default/p", "one", "default-scheduler")
    assert again is a and a.count == 2 and (a.time, a.last_time) == (0, 9000)
    assert b.count == 1 and recorder.total == 2 and recorder.repeats == 1
    # another source, type or object: other keys
    recorder.record("Normal", "FailedScheduling", "Pod/default/p", "one", "default-scheduler")
    recorder.record("Warning", "FailedScheduling", "Pod/default/q", "one", "default-scheduler")
    recorder.record("Warning", "FailedScheduling", "Pod/default/p", "one", "my-scheduler")
    assert recorder.total == 5


def test_a_restarted_kubelet_records_afresh():
    # NodeReady from the same kubelet process is counted; a new process has an empty cache
    sim = make_sim(nodes_toml("n-", 2))
    sim.run_until(30)
    sim.apply(Operation("partition", node="n-1"))
    sim.run_until(120)
    sim.apply(Operation("heal", node="n-1"))
    sim.run_until(150)
    [ready] = events(sim, "NodeReady", "Node/n-1")
    assert ready.count == 2
    sim.apply(Operation("power-off", node="n-1"))
    sim.run_until(240)
    sim.apply(Operation("power-on", node="n-1"))
    sim.run_until(250)
    ready_events = events(sim, "NodeReady", "Node/n-1")
    assert [(e.count, e.time) for e in ready_events] == [(2, 0), (1, 240_000)]
    assert all(e.count == 1 for e in events(sim, "Starting", "Node/n-1"))


def test_a_pod_recreated_under_its_name_is_another_object():
    recorder_sim = make_sim(nodes_toml("n-", 1) + '\n[[pods]]\nname = "p"\nnodeName = "n-1"\n')
    recorder_sim.run_until(10)
    store = recorder_sim.store
    first = store.event("Normal", "Pulled", "Pod/default/p", "same words", "kubelet")
    pod = store.pods["default/p"]
    pod.uid = "uid-other"  # as a StatefulSet's replacement pod of the same name would have
    second = store.event("Normal", "Pulled", "Pod/default/p", "same words", "kubelet")
    assert first is not second and first.count == second.count == 1


def test_a_bounded_log_counts_while_it_keeps_the_event_and_tells_the_ui():
    clock = [0]
    recorder = EventRecorder(lambda: clock[0], limit=2)
    a = recorder.record("Normal", "R", "Pod/default/a", "m", "s")
    clock[0] = 1000
    assert recorder.record("Normal", "R", "Pod/default/a", "m", "s") is a
    assert recorder.take_repeated() == [a] and recorder.take_repeated() == []
    recorder.record("Normal", "R", "Pod/default/b", "m", "s")
    recorder.record("Normal", "R", "Pod/default/c", "m", "s")  # a drops out of the log
    clock[0] = 2000
    new_a = recorder.record("Normal", "R", "Pod/default/a", "m", "s")
    assert new_a is not a and new_a.count == 1 and new_a.time == 2000
    assert [e.object for e in recorder.events] == ["Pod/default/c", "Pod/default/a"]


def test_text_log_and_json_show_the_count(tmp_path, capsys):
    path = tmp_path / "s.toml"
    path.write_text('[scenario]\nname = "s"\n' + PENDING)
    assert main(["sim", str(path), "--until", "1m", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    [failed] = [e for e in doc["events"] if e["reason"] == "FailedScheduling"]
    assert failed["count"] >= 2 and failed["lastTimestamp"] > failed["firstTimestamp"]
    sim = make_sim(PENDING)
    sim.run_until(60)
    [event] = events(sim, "FailedScheduling")
    assert event.count > 1 and format_event(event).endswith(f"(x{event.count}, last {event.last_time // 1000}s)")


def test_an_expectation_at_a_repeat_matches_the_counted_event():
    sim = make_sim(PENDING + """
[[expect]]
at = "6s"
event = { reason = "FailedScheduling", time = "5s" }
""")
    sim.run_until(60)
    [result] = sim.expectation_results
    assert result.passed, result.checks
