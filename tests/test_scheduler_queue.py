"""The scheduling queue: activeQ order, backoff, unschedulablePods and the cluster events (with
queueing hints) that move pods out of it, the 5-minute leftover flush, attemptsPerTick."""

from __future__ import annotations

from conftest import BASE, events, make_sim, nodes_toml, occurrence_times

from playground.engine import Operation
from playground.engine.objects import PodTemplate
from playground.engine.scheduler.queue import SchedulingQueue
from playground.scenario.schema import NodeSpec


def test_active_queue_orders_by_priority_then_queue_time():
    queue = SchedulingQueue()
    queue.add("a", 0, 100)
    queue.add("b", 10, 300)
    queue.add("c", 10, 200)
    queue.add("d", -5, 0)
    assert [queue.pop().key for _ in range(4)] == ["c", "b", "a", "d"]
    assert queue.pop() is None


def test_backoff_doubles_from_initial_to_max():
    queue = SchedulingQueue(1000, 10_000)
    assert [queue.backoff_duration(n) for n in range(7)] == [0, 1000, 2000, 4000, 8000, 10_000, 10_000]
    queue = SchedulingQueue(3000, 20_000)
    assert [queue.backoff_duration(n) for n in range(1, 5)] == [3000, 6000, 12_000, 20_000]


def test_pods_of_the_same_instant_are_scheduled_by_priority():
    body = nodes_toml("n-", 1, cpu="1", memory="1Gi") + """
[[pods]]
name = "low"
priority = 1
requests = { cpu = "1" }

[[pods]]
name = "high"
priority = 100
requests = { cpu = "1" }
"""
    sim = make_sim(body)
    sim.run_until(0)
    assert sim.store.pods["default/high"].node_name == "n-1"
    assert sim.store.pods["default/low"].node_name is None


FULL = nodes_toml("n-", 1, cpu="2", memory="4Gi") + """
[[pods]]
name = "blocker"
nodeName = "n-1"
requests = { cpu = "1500m" }

[[pods]]
name = "filler-1"
nodeName = "n-1"
terminationGracePeriodSeconds = 0
requests = { cpu = "100m" }

[[pods]]
name = "filler-2"
nodeName = "n-1"
terminationGracePeriodSeconds = 0
requests = { cpu = "100m" }

[[pods]]
name = "filler-3"
nodeName = "n-1"
terminationGracePeriodSeconds = 0
requests = { cpu = "100m" }

[[pods]]
name = "waiting"
at = "10s"
requests = { cpu = "1" }
"""


def attempt_times(sim, name="waiting"):
    return occurrence_times(sim, "FailedScheduling", f"Pod/default/{name}")


def delete_at(sim, seconds: float, pod: str) -> None:
    """Delete a pod at `seconds` and let that instant finish (the scheduler sees the event)."""
    sim.run_until(seconds)
    assert sim.apply(Operation("delete-pod", pod=pod)).ok
    sim.run_until(seconds)


def versioned(version: str) -> str:
    return BASE + f'kubernetesVersion = "{version}"\n'


def test_a_helpful_event_moves_a_pod_through_backoff_that_doubles():
    # up to 1.32: a pod moved to backoffQ waits there until its backoff is over
    sim = make_sim(FULL, header=versioned("1.32"))
    sim.run_until(10)
    pod = sim.store.pods["default/waiting"]
    assert attempt_times(sim) == [10_000] and sim.scheduler.queue_state(pod) == ("unschedulable", None)
    delete_at(sim, 10.5, "filler-1")  # an assigned pod deleted: NodeResourcesFit says it may help
    assert sim.scheduler.queue_state(pod) == ("backoff", 11_000)  # 1 s after the first attempt
    sim.run_until(11)
    assert attempt_times(sim) == [10_000, 11_000]  # still too little room
    delete_at(sim, 11.2, "filler-2")
    assert sim.scheduler.queue_state(pod) == ("backoff", 13_000)  # 2 s after the second attempt
    sim.run_until(12.9)
    assert attempt_times(sim) == [10_000, 11_000]
    sim.run_until(13)
    assert attempt_times(sim) == [10_000, 11_000, 13_000]
    delete_at(sim, 30, "filler-3")  # its 4 s backoff is long over: retried at once, still no room
    assert attempt_times(sim) == [10_000, 11_000, 13_000, 30_000]
    assert sim.scheduler.queue_state(pod) == ("unschedulable", None)


def test_backoff_flush_runs_on_the_one_second_ticker():
    sim = make_sim(FULL.replace('at = "10s"', 'at = "10200ms"'), header=versioned("1.32"))
    sim.run_until(10.2)
    assert attempt_times(sim) == [10_200]
    delete_at(sim, 10.5, "filler-1")
    pod = sim.store.pods["default/waiting"]
    assert sim.scheduler.queue_state(pod) == ("backoff", 11_200)
    sim.run_until(11.9)
    assert attempt_times(sim) == [10_200]  # backoff over at 11.2 s, but the flush ticks on whole seconds
    sim.run_until(12)
    assert attempt_times(sim) == [10_200, 12_000]


def test_from_1_33_a_pod_moved_to_backoffq_is_popped_at_once_when_activeq_is_empty():
    # SchedulerPopFromBackoffQ: the same events as above, each retry at the event's instant
    sim = make_sim(FULL, header=versioned("1.33"))
    sim.run_until(10)
    pod = sim.store.pods["default/waiting"]
    assert attempt_times(sim) == [10_000] and sim.scheduler.queue_state(pod) == ("unschedulable", None)
    delete_at(sim, 10.5, "filler-1")
    assert attempt_times(sim) == [10_000, 10_500]  # not 11 s: backoffQ is popped while activeQ is empty
    assert sim.scheduler.queue_state(pod) == ("unschedulable", None)
    delete_at(sim, 11.2, "filler-2")
    assert attempt_times(sim) == [10_000, 10_500, 11_200]  # its 2 s backoff would end at 12.5 s
    delete_at(sim, 30, "filler-3")
    assert attempt_times(sim) == [10_000, 10_500, 11_200, 30_000]


def test_from_1_33_pods_of_activeq_go_first_and_backoff_ends_in_whole_second_windows():
    # A pod of backoffQ waits while activeQ has pods; its backoff (10.2 s + 1 s = 11.2 s) falls in
    # the window [11 s, 12 s), which the flush at 12 s releases (1.32: the flush at 12 s too, as the
    # expiry is not a whole second; see the next test).
    queue = SchedulingQueue(1000, 10_000, pop_from_backoff=True)
    queue.add("a", 0, 10_200)
    info = queue.pop()
    info.unschedulable_plugins = frozenset({"NodeResourcesFit"})
    queue.add_unschedulable(info, 10_200)
    queue.move_all(10_500)
    assert info.where == "backoff" and queue.backoff_expiry(info) == 11_000
    assert queue.backing_off(info, 11_999) and not queue.backing_off(info, 12_000)
    assert queue.next_backoff_expiry() == 12_000
    assert queue.flush_backoff(11_999) == 0 and queue.flush_backoff(12_000) == 1
    assert queue.pop().key == "a"


def test_from_1_33_a_backoff_ending_on_a_whole_second_waits_for_the_next_flush():
    def expiry_released(pop_from_backoff: bool) -> int:
        queue = SchedulingQueue(1000, 10_000, pop_from_backoff=pop_from_backoff)
        queue.add("a", 0, 10_000)
        info = queue.pop()
        info.unschedulable_plugins = frozenset({"NodeResourcesFit"})
        queue.add_unschedulable(info, 10_000)
        queue.move_all(10_000)
        for now in range(10_000, 20_000, 1000):
            if queue.flush_backoff(now):
                return now
        return -1

    # failed at 10 s, 1 s backoff: 1.32's flush at 11 s releases it; from 1.33 its window is
    # [11 s, 12 s) and it is still backing off until 12 s
    assert expiry_released(False) == 11_000
    assert expiry_released(True) == 12_000


def test_from_1_33_backoffq_is_ordered_by_window_then_priority_and_error_pods_wait():
    queue = SchedulingQueue(1000, 10_000, pop_from_backoff=True)
    for key, priority, failed in (("low", 0, 10_100), ("high", 100, 10_800), ("later", 1000, 11_100),
                                  ("error", 5000, 10_000)):
        queue.add(key, priority, failed)
        info = queue.pop()
        if key != "error":
            info.unschedulable_plugins = frozenset({"NodeResourcesFit"})
            queue.add_unschedulable(info, failed)
        else:  # an error (no rejecting plugin): podErrorBackoffQ
            queue.requeue_backoff(info, failed)
    queue.move_all(11_150)
    assert queue.pop() is None
    # low's backoff ends at 11.1 s, high's at 11.8 s: the same window, so priority decides
    assert [queue.pop_backoff().key for _ in range(3)] == ["high", "low", "later"]
    assert queue.pop_backoff() is None and not queue.has_backoff()
    assert queue.flush_backoff(11_999) == 0 and queue.flush_backoff(12_000) == 1  # error: window 11 s
    assert queue.pop().key == "error"


def test_up_to_1_32_backoffq_is_ordered_by_expiry():
    queue = SchedulingQueue(1000, 10_000)
    for key, priority, failed in (("low", 0, 10_100), ("high", 100, 10_800)):
        queue.add(key, priority, failed)
        info = queue.pop()
        info.unschedulable_plugins = frozenset({"NodeResourcesFit"})
        queue.add_unschedulable(info, failed)
    queue.move_all(11_000)
    assert queue.next_backoff_expiry() == 11_100
    assert queue.flush_backoff(11_100) == 1 and queue.pop().key == "low"


def test_unhelpful_events_leave_the_pod_parked():
    sim = make_sim(FULL + '\n[[nodes]]\nname = "t-1"\ncapacity = { cpu = "8", memory = "8Gi" }\n'
                          'taints = ["dedicated=db:NoSchedule"]\n')
    sim.run_until(10)
    pod = sim.store.pods["default/waiting"]
    assert sim.scheduler.last_attempt[pod.key].unschedulable_plugins == {"NodeResourcesFit", "TaintToleration"}
    # A taint change the pod still does not tolerate, a new node too small for it and tainted, a new
    # cordon: neither plugin's hint says the event may help; no retry.
    sim.apply(Operation("taint", node="t-1", taint="other=x:NoSchedule"))
    sim.run_until(20)
    tiny = NodeSpec(name="tiny", capacity={"cpu": "500m", "memory": "1Gi"}, taints=["x=y:NoSchedule"])
    sim.add_node("tiny", tiny, tiny.kubelet)
    sim.run_until(30)
    sim.apply(Operation("cordon", node="n-1"))
    sim.run_until(40)
    assert attempt_times(sim) == [10_000] and sim.scheduler.queue_state(pod) == ("unschedulable", None)
    # Removing one untolerated taint out of two is not enough for TaintToleration's hint either.
    sim.apply(Operation("untaint", node="t-1", taint="other"))
    sim.run_until(50)
    assert attempt_times(sim) == [10_000]
    # Removing the last one is.
    sim.apply(Operation("untaint", node="t-1", taint="dedicated"))
    sim.run_until(50)
    [scheduled] = events(sim, "Scheduled", pod.ref)
    assert scheduled.time == 50_000 and pod.node_name == "t-1"


def test_a_node_that_fits_is_added():
    sim = make_sim(FULL)
    sim.run_until(20)
    spec = NodeSpec(name="big", capacity={"cpu": "4", "memory": "8Gi"})
    sim.add_node("big", spec, spec.kubelet)
    sim.run_until(20)
    pod = sim.store.pods["default/waiting"]
    assert events(sim, "Scheduled", pod.ref)[0].time == 20_000 and pod.node_name == "big"


def test_uncordon_moves_pods_rejected_by_node_unschedulable():
    body = nodes_toml("n-", 1, extra="unschedulable = true") + '\n[[pods]]\nname = "p"\nat = "5s"\n'
    sim = make_sim(body)
    sim.run_until(5)
    pod = sim.store.pods["default/p"]
    assert events(sim, "FailedScheduling", pod.ref)[0].message.startswith(
        "0/1 nodes are available: 1 node(s) were unschedulable.")
    sim.run_until(40)
    sim.apply(Operation("uncordon", node="n-1"))
    sim.run_until(40)
    assert events(sim, "Scheduled", pod.ref)[0].time == 40_000


def test_a_node_that_becomes_ready_again_takes_the_pod():
    body = nodes_toml("n-", 2, cpu="1", memory="1Gi") + """
[[pods]]
name = "blocker"
nodeName = "n-2"
requests = { cpu = "1" }
"""
    sim = make_sim(body)
    sim.run_until(10)
    sim.apply(Operation("power-off", node="n-1"))
    sim.run_until(120)
    assert sim.store.nodes["n-1"].has_taint("node.kubernetes.io/unreachable", "NoSchedule")
    sim.apply(Operation("create-pod", pod="p", template=PodTemplate(labels={}, cpu=500)))
    sim.run_until(121)
    pod = sim.store.pods["default/p"]
    assert "node(s) had untolerated taint(s)" in events(sim, "FailedScheduling")[0].message
    sim.apply(Operation("power-on", node="n-1"))
    sim.run_until(121)
    # Ready again: the node lifecycle controller drops unreachable:NoSchedule at once (the NoExecute
    # taint waits for its next monitor pass, and the pod tolerates it for 300 s anyway).
    assert not sim.store.nodes["n-1"].has_taint("node.kubernetes.io/unreachable", "NoSchedule")
    assert events(sim, "Scheduled", pod.ref)[0].time == 121_000 and pod.node_name == "n-1"


def test_a_finished_pod_frees_room_like_a_deleted_one():
    sim = make_sim(FULL)
    sim.run_until(20)
    blocker = sim.store.pods["default/blocker"]
    sim.store.set_pod_phase(blocker, "Succeeded")
    sim.run_until(20)
    pod = sim.store.pods["default/waiting"]
    assert events(sim, "Scheduled", pod.ref)[0].time == 20_000


def test_leftover_flush_retries_after_more_than_five_minutes():
    sim = make_sim(FULL)
    sim.run_until(600)
    # Failed at 10 s; the 30 s ticker finds it waiting longer than 5 min at 330 s, then 660 s...
    assert attempt_times(sim) == [10_000, 330_000]
    sim.run_until(700)
    assert attempt_times(sim) == [10_000, 330_000, 660_000]


def test_attempts_per_tick_bound_scheduling_throughput_after_t0():
    """Pods created at t=0 are all placed at t=0 (the scenario opens in its steady state); later
    ones at attemptsPerTick per tick."""
    body = nodes_toml("n-", 2) + "\n[scheduler]\nattemptsPerTick = 3\n" + "".join(
        f'\n[[pods]]\nname = "p-{i}"\nrequests = {{ cpu = "100m" }}\n' for i in range(5)) + "".join(
        f'\n[[pods]]\nname = "q-{i}"\nat = "1s"\nrequests = {{ cpu = "100m" }}\n' for i in range(7))
    sim = make_sim(body)
    reports = []
    sim.scheduler.progress = lambda done, total: reports.append((done, total))
    sim.run_until(5)
    times = sorted(e.time for e in events(sim, "Scheduled"))
    assert times == [0] * 5 + [1000, 1000, 1000, 2000, 2000, 2000, 3000]
    assert reports == [(0, 5), (5, 5)]  # reported while the t=0 pods are placed, and when done


# One pod slot, held by "blocker"; "waiting" arrives at 5 s; one scheduling attempt per tick.
ONE_SLOT_BLOCKED = nodes_toml("n-", 1, cpu="1", memory="1Gi") + "\n[scheduler]\nattemptsPerTick = 1\n" + """
[[pods]]
name = "blocker"
nodeName = "n-1"
terminationGracePeriodSeconds = 0
requests = { cpu = "1" }

[[pods]]
name = "waiting"
at = "5s"
requests = { cpu = "1" }
"""


def test_events_are_delivered_even_when_the_ticks_budget_is_spent():
    body = ONE_SLOT_BLOCKED
    sim = make_sim(body, header=versioned("1.32"))
    sim.run_until(5)
    pod = sim.store.pods["default/waiting"]
    assert sim.scheduler.queue_state(pod) == ("unschedulable", None)
    delete_at(sim, 5, "blocker")  # same instant, the budget of this tick is spent
    assert sim.scheduler.queue_state(pod) == ("backoff", 6000)
    sim.run_until(6)
    assert pod.node_name == "n-1" and events(sim, "Scheduled", pod.ref)[0].time == 6000


def test_from_1_33_a_pod_in_backoffq_is_popped_on_the_next_tick_when_the_budget_is_spent():
    body = ONE_SLOT_BLOCKED
    sim = make_sim(body, header=versioned("1.33"))
    sim.run_until(5)
    pod = sim.store.pods["default/waiting"]
    delete_at(sim, 5, "blocker")
    # backoff 5 s + 1 s falls in the window [6 s, 7 s): released by the flush at 7 s at the latest
    assert sim.scheduler.queue_state(pod) == ("backoff", 7000)
    sim.run_until(6)
    # activeQ is empty: the next tick pops it from backoffQ
    assert events(sim, "Scheduled", pod.ref)[0].time == 5000 + sim.tick
