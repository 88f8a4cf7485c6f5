"""Time travel (engine/history.py): going back and forward gives exactly the state and event log of a
straight run; a new operation after going back forks, and what is saved then replays what the user
sees; the figures over time follow a plain recount of the store.

Hypothesis profiles (env PLAYGROUND_HYPOTHESIS_PROFILE): "ci" (default) and "long".
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from playground.engine import Operation, Simulation
from playground.engine.objects import PENDING, RUNNING, TRUE
from playground.engine.report import format_event, snapshot
from playground.scenario import load_scenario

from test_save_replay import any_op

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = sorted(p.stem for p in (ROOT / "scenarios").glob("*.toml"))
_LOADED = {name: load_scenario(ROOT / "scenarios" / f"{name}.toml") for name in SCENARIOS}

settings.register_profile("tt-ci", max_examples=120, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("tt-long", max_examples=1500, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
PROFILE = "tt-long" if os.environ.get("PLAYGROUND_HYPOTHESIS_PROFILE") == "long" else "tt-ci"


def document(sim: Simulation) -> str:
    return json.dumps(snapshot(sim), indent=1)


def event_log(sim: Simulation) -> list[str]:
    return [format_event(e) for e in sim.store.recorder.events]


def straight(name: str, until: int, ops: list[tuple[int, Operation]] = ()) -> Simulation:
    """The reference: a plain run without history, operations applied live at their instants."""
    sim = Simulation(_LOADED[name])
    for time, op in ops:
        sim.run_until_ms(time)
        sim.apply(op)
    sim.run_until_ms(until)
    return sim


@pytest.mark.parametrize("name", SCENARIOS)
def test_rewind_then_forward_equals_a_straight_run(name):
    sim = Simulation(_LOADED[name])
    sim.enable_history()
    for _ in range(400):
        sim.step()
    sim.rewind(1)
    assert sim.now == 399_000
    assert document(sim) == document(straight(name, 399_000))
    sim.rewind(137)
    sim.seek(90)
    reference = straight(name, 90_000)
    assert (document(sim), event_log(sim)) == (document(reference), event_log(reference))
    sim.run_until_ms(600_000)  # forward past the furthest instant reached, live from 400 s on
    reference.run_until_ms(600_000)
    assert (document(sim), event_log(sim)) == (document(reference), event_log(reference))


def test_forward_follows_the_recorded_operations_and_stops_at_the_furthest_instant():
    sim = Simulation(_LOADED["drain-pdb"])
    sim.enable_history()
    sim.run_until(20)
    sim.apply(Operation("drain", node="n-3", ignore_daemonsets=True))
    sim.run_until(50)
    sim.apply(Operation("power-off", node="n-1"))
    sim.run_until(120)
    sim.seek(10)
    assert sim.history.future() and len(sim.operations.history) < 3 + len(sim.history.future())
    sim.forward(60)
    ops = [(20_000, Operation("drain", node="n-3", ignore_daemonsets=True)), (50_000, Operation("power-off", node="n-1"))]
    assert document(sim) == document(straight("drain-pdb", 70_000, ops))
    sim.forward(600)
    assert sim.now == 120_000  # not past what was recorded
    assert document(sim) == document(straight("drain-pdb", 120_000, ops))


def test_an_operation_after_going_back_forks_and_the_save_replays_what_is_seen(tmp_path):
    sim = Simulation(_LOADED["zone-outage"])
    sim.enable_history()
    sim.run_until(30)
    sim.apply(Operation("cordon", node="a-1"))
    sim.run_until(200)
    sim.seek(45)
    sim.apply(Operation("drain", node="c-1", ignore_daemonsets=True))  # the fork
    sim.run_until(100)
    ops = [(30_000, Operation("cordon", node="a-1")), (45_000, Operation("drain", node="c-1", ignore_daemonsets=True))]
    assert document(sim) == document(straight("zone-outage", 100_000, ops))
    assert sim.history.head == 100_000 and not sim.history.future()
    [branch] = sim.history.branches.values()
    assert (branch.head, branch.forked_at, len(branch.operations)) == (200_000, 45_000, 1)

    sim.save(tmp_path / "fork.toml")
    replay = Simulation(load_scenario(tmp_path / "fork.toml"))
    replay.run_until_ms(sim.now)
    assert document(replay) == document(sim)

    sim.history.save_branch(branch.name, tmp_path / "old.toml")
    old = Simulation(load_scenario(tmp_path / "old.toml"))
    old.run_until_ms(200_000)
    assert document(old) == document(straight("zone-outage", 200_000, ops[:1]))


def test_switching_to_a_kept_branch_restores_its_future():
    sim = Simulation(_LOADED["node-failure"])
    sim.enable_history()
    sim.run_until(40)
    sim.apply(Operation("power-off", node=sorted(sim.kubelets)[0]))
    sim.run_until(150)
    sim.seek(20)
    sim.apply(Operation("cordon", node=sorted(sim.kubelets)[1]))
    sim.run_until(60)
    [name] = sim.history.branches
    sim.history.switch(name)
    assert sim.now == 150_000
    expected = straight("node-failure", 150_000, [(40_000, Operation("power-off", node=sorted(sim.kubelets)[0]))])
    assert document(sim) == document(expected)
    assert list(sim.history.branches) == ["branch-2"]  # the cordon's future is kept in its place
    sim.seek(100)  # no checkpoint of the cordon's future may serve this branch
    assert document(sim) == document(straight("node-failure", 100_000,
                                              [(40_000, Operation("power-off", node=sorted(sim.kubelets)[0]))]))
    sim.history.switch("branch-2")
    assert sim.now == 60_000 and list(sim.history.branches) == ["branch-3"]
    expected = straight("node-failure", 60_000, [(20_000, Operation("cordon", node=sorted(sim.kubelets)[1]))])
    assert document(sim) == document(expected)


def test_memory_is_bounded_and_going_back_past_every_checkpoint_rebuilds_from_the_scenario():
    sim = Simulation(_LOADED["zone-outage"])
    history = sim.enable_history(budget=400_000)
    sim.run_until(900)
    memory = history.memory()
    assert memory.checkpoint_bytes <= 400_000 or memory.checkpoints == 1
    assert history.dropped > 0
    times = [cp.time for cp in history.checkpoints]
    gaps = [b - a for a, b in zip(times, times[1:])]
    assert gaps[-1] <= gaps[0]  # recent history is kept denser than old history
    sim.seek(5)
    assert document(sim) == document(straight("zone-outage", 5_000))


def test_switching_to_a_branch_forked_at_instant_0_once_its_checkpoint_is_gone():
    """A cordon at instant 0 after going back there forks the old future; once the checkpoints are
    thinned past instant 0 (a small budget), switching back to that future rebuilds the scenario and
    runs instant 0 with the branch's operations (none), not the cordon of the future left. Found by
    the random travel below."""
    sim = Simulation(_LOADED["drain-pdb"])
    history = sim.enable_history(budget=50_000)
    sim.step()
    sim.rewind(1)
    assert sim.apply(Operation("cordon", node="n-1")).ok
    sim.run_until(31)
    assert all(cp.time > 0 for cp in history.checkpoints)
    history.switch("branch-1")
    assert sim.now == 1_000 and not sim.store.nodes["n-1"].unschedulable
    assert (document(sim), event_log(sim)) == (document(straight("drain-pdb", 1_000)),
                                               event_log(straight("drain-pdb", 1_000)))
    history.switch("branch-2")
    expected = straight("drain-pdb", 31_000, [(0, Operation("cordon", node="n-1"))])
    assert sim.now == 31_000 and (document(sim), event_log(sim)) == (document(expected), event_log(expected))


def test_a_refused_invalid_operation_does_not_fork():
    sim = Simulation(_LOADED["node-failure"])
    sim.enable_history()
    sim.run_until(60)
    sim.seek(30)
    result = sim.apply(Operation("cordon", node="ghost"))
    assert not result.ok
    assert sim.history.head == 60_000 and not sim.history.branches


@settings.get_profile(PROFILE)
@given(data=st.data())
def test_random_travel_equals_a_straight_run_of_the_surviving_operations(data):
    """Random steps, operations (valid, refused and invalid), seeks back and forward, switches to a
    kept branch: the state is always the straight run of the operations of the current branch."""
    name = data.draw(st.sampled_from(["drain-pdb", "node-failure", "preemption-pdb", "rollout-drain-pdb",
                                      "zone-outage"]), label="scenario")
    sim = Simulation(_LOADED[name])
    sim.enable_history(budget=data.draw(st.sampled_from([50_000, 10**9]), label="budget"))
    for _ in range(data.draw(st.integers(1, 8), label="moves")):
        move = data.draw(st.sampled_from(["steps", "op", "back", "seek", "forward", "switch"]))
        if move == "switch" and sim.history.branches:
            sim.history.switch(data.draw(st.sampled_from(sorted(sim.history.branches))))
            continue
        if move == "steps":
            for _ in range(data.draw(st.sampled_from([1, 5, 30]))):
                sim.step()
        elif move == "op":
            sim.apply(any_op(data, sim))
        elif move == "back":
            sim.rewind(data.draw(st.sampled_from([1, 7, 60])))
        elif move == "seek":
            sim.seek(data.draw(st.integers(0, max(1, sim.history.head // 1000))))
        elif move == "forward":
            sim.forward(data.draw(st.sampled_from([1, 60])))
    sim.run_until_ms(sim.now)  # finish the instant of the last operation, as the reference does
    history = sim.history
    done = history.operations[:history.applied]
    reference = straight(name, sim.now, done)
    assert (document(sim), event_log(sim)) == (document(reference), event_log(reference))


# ---------------------------------------------------------------- the figures over time


def recount(sim: Simulation) -> tuple:
    """A plain count over the whole store, the reference for the watcher-kept ClusterCounts."""
    ready: dict[str, int] = {zone: 0 for zone in sim.metrics.ready_by_zone}
    for node in sim.store.nodes.values():
        cond = node.conditions.get("Ready")
        ready[node.zone] = ready.get(node.zone, 0) + (cond is not None and cond.status == TRUE)
    pods = sim.store.pods.values()
    return (tuple(sorted(ready.items())), sum(p.phase == PENDING for p in pods), sum(p.phase == RUNNING for p in pods))


@settings.get_profile(PROFILE)
@given(data=st.data())
def test_the_counts_equal_a_recount_of_the_store(data):
    name = data.draw(st.sampled_from(["drain-pdb", "zone-outage", "preemption-pdb", "non-graceful-shutdown"]))
    sim = Simulation(_LOADED[name])
    sim.enable_history()
    for _ in range(data.draw(st.integers(1, 6))):
        for _ in range(data.draw(st.sampled_from([1, 10, 60]))):
            sim.step()
            assert sim.metrics.sample()[:3] == recount(sim)
        sim.apply(any_op(data, sim))
        assert sim.metrics.sample()[:3] == recount(sim)


def test_evictions_count_each_disrupted_pod_once():
    sim = Simulation(_LOADED["zone-outage"])
    sim.enable_history()
    sim.run_until(900)
    evicted = {e.object for e in sim.store.recorder.events if e.reason == "TaintManagerEviction"
               and e.message.startswith("Marking for deletion")}
    assert evicted and sim.metrics.evictions == len(evicted)
    series = sim.history.series
    assert series.values("evictions", [0, 900_000]) == [0.0, float(len(evicted))]
    assert series.values("ready:zone-b", [0, 900_000]) == [3.0, 0.0]


@pytest.mark.parametrize("name", ["zone-outage", "drain-pdb", "preemption-pdb", "non-graceful-shutdown"])
def test_counts_attached_to_a_full_store_equal_counting_each_pod_as_added(name):
    """Attaching to a store that holds pods already (a restored state) counts them in one loop
    (ClusterCounts._count_added): the same figures and the same per-pod records as telling the
    watcher of each pod in turn, evicted pods included."""
    from playground.engine.metrics import ClusterCounts

    sim = Simulation(_LOADED[name])
    sim.enable_history()
    for until in (60, 400, 900):
        sim.run_until(until)
        attached = ClusterCounts()
        attached.attach(sim.store)
        told = ClusterCounts()
        for node in sim.store.nodes.values():
            told.on_node("added", node)
        for pod in sim.store.pods.values():
            told.on_pod("added", pod)
        assert attached.sample() == told.sample() and attached.sample()[:3] == recount(sim)
        assert (attached._phase, attached._disrupted) == (told._phase, told._disrupted)
    assert name != "zone-outage" or attached.evictions > 0


# ---------------------------------------------------------------- playground sim --plot


def test_sim_plot_writes_the_same_svg_each_time_and_leaves_the_json_unchanged(tmp_path, capsys):
    from playground.cli import main

    scenario = str(ROOT / "scenarios" / "zone-outage.toml")
    assert main(["sim", scenario, "--until", "10m", "--json"]) == 0
    plain = capsys.readouterr().out
    assert main(["sim", scenario, "--until", "10m", "--json", "--plot", str(tmp_path / "a.svg")]) == 0
    assert capsys.readouterr().out == plain
    assert main(["sim", scenario, "--until", "10m", "--plot", str(tmp_path / "b.svg")]) == 0
    svg = (tmp_path / "a.svg").read_text()
    assert svg == (tmp_path / "b.svg").read_text()
    assert "Ready nodes zone-b" in svg and "Evictions" in svg and "zone-outage at 10m" in svg
    assert main(["sim", scenario, "--until", "1m", "--plot", str(tmp_path / "c.png")]) == 0
    assert (tmp_path / "c.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("zones", [1, 3, 10])
def test_the_plot_s_title_stays_above_its_first_panel(zones):
    """With ten zones (thirteen panels, a figure 17 inches high) the title, placed at a fraction of
    the height, was drawn inside the first panel."""
    import matplotlib.pyplot as plt

    from playground.plot import plot_figure
    from playground.scenario import Scenario

    nodes = [{"name": f"n{z}", "labels": {"topology.kubernetes.io/zone": f"zone-{z}"},
              "capacity": {"cpu": "4", "memory": "8Gi"}} for z in range(zones)]
    sim = Simulation(Scenario.model_validate({"scenario": {"name": "zones"}, "nodes": nodes}))
    sim.enable_history()
    sim.run_until_ms(60_000)
    fig = plot_figure(sim.history.series, sim.clock.now, "zones")
    try:
        renderer = fig.canvas.get_renderer()
        title = fig.texts[0].get_window_extent(renderer)
        first = fig.axes[0].get_tightbbox(renderer)
        assert len(fig.axes) == zones + 3
        assert title.y0 >= first.y1 and title.y1 <= fig.bbox.y1
    finally:
        plt.close(fig)


@pytest.mark.parametrize("out, message", [("plot.txt", "must end in .svg or .png"),
                                          ("missing/plot.svg", "does not exist")])
def test_sim_plot_refuses_a_bad_file_name_with_status_2(tmp_path, capsys, out, message):
    from playground.cli import main

    assert main(["sim", str(ROOT / "scenarios" / "zone-outage.toml"), "--plot", str(tmp_path / out)]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_a_restored_condition_cache_indexes_its_own_shared_dicts():
    """The pod-condition cache keys contents by id(): after a restore it must know the new dicts, not
    the ids of the old ones (a reused id would hand a pod another dict's conditions)."""
    sim = Simulation(_LOADED["zone-outage"])
    sim.enable_history()
    sim.run_until(400)
    sim.rewind(100)
    cache = sim.store.pod_conditions
    assert cache._dicts and cache._content == {id(shared): content for content, shared in cache._dicts.items()}
    shared = {id(d) for d in cache._dicts.values()}
    assert all(id(pod.conditions) in shared or not pod.conditions for pod in sim.store.pods.values()
               if id(pod.conditions) in cache._content)


FORKED = ["zone-outage", "rollout-drain-pdb", "spread-zone-outage", "shutdown-by-priority"]


def _forked_checkpoint(sim: Simulation):
    """Every checkpoint written by a child from now on (History.fork_from 0); after 40 ticks, one
    taken and collected: (the history, that checkpoint, the bytes an in-process dump gives then)."""
    history = sim.enable_history()
    history.fork_from = 0
    for _ in range(40):
        sim.step()
    if history.writer is not None:
        history._collect(block=True)
    history._checkpoint()
    writing = history.writer.checkpoint
    in_process = history._dump(sim)  # the state the child pickles: nothing ran since the fork
    assert history._collect(block=True) is True
    return history, writing, in_process


@pytest.mark.parametrize("name", FORKED)
def test_checkpoints_written_by_a_forked_child_restore_exactly(name):
    """Large clusters write checkpoints in a forked child (History.fork_from): forced here on small
    scenarios, the bytes are those an in-process dump gives, and going back replays exactly."""
    sim = Simulation(_LOADED[name])
    history, writing, in_process = _forked_checkpoint(sim)
    assert writing.data == in_process and history.child_cpu > 0
    for _ in range(300):
        sim.step()
        if history.writer is not None:
            history._collect(block=True)  # as if the child were quick: a checkpoint every interval
    assert len(history.checkpoints) > 3 and history.fork_from == 0
    mid = (history.checkpoints[1].time + history.checkpoints[2].time) // 2
    sim.seek(mid / 1000)
    sim.seek(300 * sim.tick / 1000)
    reference = straight(name, sim.now)
    assert document(sim) == document(reference)
    assert event_log(sim) == event_log(reference)


def _open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_a_large_childs_checkpoint_stays_in_its_file_and_restores_exactly(monkeypatch):
    """A child's checkpoint from MAP_FROM bytes is kept as a read-only map of the file it wrote
    (forced here on a small scenario): the same bytes an in-process dump gives, restored more than
    once, and a map dropped by the budget takes its file descriptor with it."""
    import mmap

    from playground.engine import history as history_module

    monkeypatch.setattr(history_module, "MAP_FROM", 1)
    sim = Simulation(_LOADED["zone-outage"])
    history, writing, in_process = _forked_checkpoint(sim)
    assert isinstance(writing.data, mmap.mmap) and writing.data[:] == in_process
    history.budget = 6 * len(in_process)  # the budget drops all but about six checkpoints
    descriptors = _open_descriptors()
    for _ in range(300):
        sim.step()
        if history.writer is not None:
            history._collect(block=True)
    kept = [cp for cp in history.checkpoints if isinstance(cp.data, mmap.mmap)]
    assert history.dropped > 5 and len(kept) >= history_module.KEEP_NEWEST
    assert _open_descriptors() <= descriptors + len(kept)
    for _ in range(2):  # the map's pages given back after the first restore are read again
        sim.seek(kept[-2].time / 1000)
        assert document(sim) == document(straight("zone-outage", kept[-2].time))
    sim.seek(300 * sim.tick / 1000)
    assert document(sim) == document(straight("zone-outage", 300 * sim.tick))
    assert event_log(sim) == event_log(straight("zone-outage", 300 * sim.tick))


def test_a_failed_child_drops_its_checkpoint_and_later_ones_are_pickled_in_process(monkeypatch):
    sim = Simulation(_LOADED["zone-outage"])
    history = sim.enable_history()
    history.fork_from = 0
    def no_memory(self, sim, out=None):
        raise MemoryError

    monkeypatch.setattr(type(history), "_dump", no_memory)  # only the child runs it
    while history.writer is None:
        sim.step()
    monkeypatch.undo()
    assert history._collect(block=True) is False
    assert history.fork_from is None and history.writer is None
    assert [cp.time for cp in history.checkpoints] == [0]
    for _ in range(30):
        sim.step()
    assert history.writer is None and history.checkpoints[-1].data
    sim.rewind(1)
    sim.seek(60 * sim.tick / 1000)
    assert document(sim) == document(straight("zone-outage", 60 * sim.tick))


def test_a_fork_discards_the_checkpoint_a_child_is_writing_for_the_old_future():
    sim = Simulation(_LOADED["zone-outage"])
    history = sim.enable_history()
    history.fork_from = 0
    for _ in range(25):
        sim.step()
    assert history.writer is not None
    writing = history.writer.checkpoint
    sim.seek(writing.time / 1000 - 1)
    sim.apply(Operation("cordon", node=sorted(sim.store.nodes)[0]))
    assert history.writer is None and writing not in history.checkpoints
    assert all(cp.data for cp in history.checkpoints)


def test_a_checkpoint_due_while_the_child_still_writes_waits_and_the_engine_never_does(monkeypatch, tmp_path):
    """At x1000 on 150,000 pods a child takes longer to write a checkpoint than the engine takes to
    run an interval: the next checkpoint waits for the child while the clock runs on, however far
    (the engine never waits for it), and is taken at the first instant with work after the child is
    done. Going back over that stretch still replays exactly."""
    import time as wall

    sim = Simulation(_LOADED["zone-outage"])
    history = sim.enable_history()
    history.fork_from = 0
    dump = type(history)._dump

    release = tmp_path / "release"

    def slow(self, state, out=None):
        give_up = wall.monotonic() + 60  # a parent that waits for the child fails below, not hangs
        while out is not None and not release.exists() and wall.monotonic() < give_up:
            wall.sleep(0.01)  # the child only: until the test lets it go
        return dump(self, state, out)

    monkeypatch.setattr(type(history), "_dump", slow)
    for _ in range(history.interval // sim.tick):
        sim.step()
    writing = history.writer.checkpoint
    while sim.now < writing.time + 6 * history.interval:  # five intervals overdue: still no wait
        sim.step()
        # waiting would have hung here, or collected this child and started the next one
        assert history.writer.checkpoint is writing and history.checkpoints[-1] is writing
    release.touch()
    assert history._collect(block=True) is True
    first_work = sim.clock.next_due()
    while history.writer is None:  # the next instant with work takes the postponed checkpoint
        sim.step()
    assert history.writer.checkpoint.time == first_work
    history._collect(block=True)
    sim.seek((writing.time + 3 * history.interval) / 1000)
    assert document(sim) == document(straight("zone-outage", writing.time + 3 * history.interval))


def test_a_writer_dropped_while_its_child_writes_leaves_no_child_behind():
    """A history dropped with its simulation (another scenario loaded) drops its writer: the child is
    killed and reaped then, not left running or as a zombie."""
    sim = Simulation(_LOADED["zone-outage"])
    history = sim.enable_history()
    history.fork_from = 0
    while history.writer is None:
        sim.step()
    writer, history.writer = history.writer, None
    history.checkpoints.remove(writer.checkpoint)
    pid = writer.pid
    del writer
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # killed and reaped: no such child any more


def test_a_long_replay_takes_its_checkpoint_near_where_it_stops(monkeypatch):
    """Going back far (checkpoints sparse, as at 150,000 pods at x1000): the replay takes its
    checkpoint within the last interval before the instant it stops at, not at its start, so the
    next steps back restore that one and replay a little."""
    sim = Simulation(_LOADED["zone-outage"])
    history = sim.enable_history()
    history.fork_from = None
    history.fixed_interval = True
    history.interval = 1000 * sim.tick  # sparse while running: only the first checkpoint
    for _ in range(90):
        sim.step()
    assert [cp.time for cp in history.checkpoints] == [0]
    history.interval = 10 * sim.tick
    target = 85 * sim.tick
    sim.seek(target / 1000)
    later = [cp.time for cp in history.checkpoints[1:]]
    assert later and all(target - history.interval <= t <= target for t in later)  # none from 0 to 75 s
    loaded = []
    load = type(history)._load
    monkeypatch.setattr(type(history), "_load", lambda self, cp, *a, **k: (loaded.append(cp.time), load(self, cp, *a, **k)))
    sim.seek((target - sim.tick) / 1000)
    assert loaded == [max(t for t in later if t < target)]  # the step back starts from one of them
    assert document(sim) == document(straight("zone-outage", target - sim.tick))


# ---------------------------------------------------------------- restored objects stay compact

def _attributes_in_a_dict(obj, name: str) -> bool:
    """Does `obj` keep its attributes in a separate __dict__ (CPython: once a __dict__ was asked for,
    reading an attribute costs about twice as much) rather than in the object itself? Asked without
    asking for the __dict__: what the collector sees the object refer to is the dict, or the values."""
    import gc

    refs = [r for r in gc.get_referents(obj) if r is not type(obj)]
    return len(refs) == 1 and type(refs[0]) is dict and name in refs[0]


def _detects_a_dict() -> bool:
    class Probe:
        def __init__(self) -> None:
            self.first, self.second = 1, 2

    inline, asked = Probe(), Probe()
    asked.__dict__  # noqa: B018 - asking is the point
    return not _attributes_in_a_dict(inline, "first") and _attributes_in_a_dict(asked, "first")


needs_compact_objects = pytest.mark.skipif(not _detects_a_dict(),
                                           reason="this interpreter keeps no attributes in the object itself")


def _components(sim: Simulation) -> dict[str, tuple[object, str]]:
    """Objects the engine reads on every tick, each with the name of one of its attributes."""
    return {"store": (sim.store, "pods"), "kubelet": (next(iter(sim.kubelets.values())), "node_name"),
            "scheduler": (sim.scheduler, "queue"), "queue": (sim.scheduler.queue, "infos"),
            "pod counts": (sim.scheduler.topology.counts, "classes"), "workloads": (sim.workloads, "replicasets"),
            "node lifecycle": (sim.nodelifecycle, "sim")}


@needs_compact_objects
def test_a_restored_state_keeps_its_components_attributes_in_the_objects():
    """Going back restores the components from a checkpoint: each gets its attributes one by one
    (objects.set_attributes), not through its __dict__ as pickle's default would, so the restored
    engine reads them as fast as a freshly built one (a restored simulation ran about 10 % slower)."""
    sim = Simulation(_LOADED["zone-outage"])
    sim.enable_history()
    for _ in range(60):
        sim.step()
    sim.rewind(1)
    assert sim.now < 60 * sim.tick
    assert {name: _attributes_in_a_dict(obj, attr) for name, (obj, attr) in _components(sim).items()} == \
        dict.fromkeys(_components(sim), False)
    sim.seek(60 * sim.tick / 1000)
    assert document(sim) == document(straight("zone-outage", 60 * sim.tick))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="checkpoints are written by a child on Linux only")
def test_the_first_checkpoint_of_five_thousand_nodes_is_written_by_a_child():
    """The TUI's first checkpoint is taken before the open, with every node and no pod yet: at 5,000
    nodes, pickled in-process it took 0.15-0.2 s and left the live components' attributes in their
    __dict__ (objects.set_attributes). A node weighs NODE_WEIGHT pods in the choice to fork."""
    from playground.engine import history as history_module
    from playground.scenario import parse_scenario

    scenario = parse_scenario(
        '[scenario]\nname = "five-thousand"\n\n[[nodePools]]\nnamePrefix = "n"\ncount = 5000\n'
        '[nodePools.capacity]\ncpu = "8"\nmemory = "32Gi"\npods = 110\n')
    sim = Simulation(scenario)
    history = sim.enable_history()
    assert len(sim.store.nodes) == 5000 and not sim.store.pods
    assert history.writer is not None
    assert history._collect(block=True) is True
    assert history.checkpoints[0].data == history._dump(sim)
    nodes = len(sim.store.nodes)
    for fork_from, forked in ((nodes * history_module.NODE_WEIGHT, True), (nodes * history_module.NODE_WEIGHT + 1, False)):
        other = Simulation(scenario)
        other.history = history_module.History(other, fork_from=fork_from)
        other.history.start()  # (enable_history, with another threshold)
        assert (other.history.writer is not None) is forked
        if forked:
            other.history._collect(block=True)


@needs_compact_objects
def test_a_checkpoint_written_by_a_child_leaves_the_live_components_as_they_were():
    """A forked child pickles its copy of the state: the parent's objects are not asked for their
    __dict__, however many checkpoints the run takes."""
    from playground.engine import history as history_module

    sim = Simulation(_LOADED["zone-outage"])
    history = sim.history = history_module.History(sim, fork_from=0)  # every checkpoint by a child
    history.start()
    for _ in range(200):
        sim.step()
        if history.writer is not None:
            history._collect(block=True)
    assert len(history.checkpoints) > 3 and all(cp.data for cp in history.checkpoints)
    assert not any(_attributes_in_a_dict(obj, attr) for obj, attr in _components(sim).values())


def _cluster(nodes: int, replicas: int):
    """`nodes` nodes in three zones and one Deployment of `replicas` small pods."""
    from playground.scenario import parse_scenario

    return parse_scenario(
        f'[scenario]\nname = "sized"\n\n'
        + "".join(f'[[nodePools]]\nnamePrefix = "z{z}-"\ncount = {nodes // 3}\n'
                  f'labels = {{ "topology.kubernetes.io/zone" = "zone-{z}" }}\n'
                  f'capacity = {{ cpu = "8", memory = "32Gi", pods = 110 }}\n\n' for z in range(3))
        + f'[[deployments]]\nname = "web"\nreplicas = {replicas}\n'
          f'template = {{ labels = {{ app = "web" }}, requests = {{ cpu = "10m", memory = "16Mi" }} }}\n')


def _pickled_in_process(sim: Simulation, ticks: int, monkeypatch, **options) -> tuple[int, int]:
    """Pods and nodes (a node weighing NODE_WEIGHT pods) that the engine pickled itself for time
    travel's checkpoints: the first checkpoint's, then in `ticks` ticks (a forked child's pickling
    is done in its own process: not counted here)."""
    from playground.engine import history as history_module

    dumps = []
    dump = history_module.History._dump
    monkeypatch.setattr(history_module.History, "_dump", lambda self, *args: dumps.append(1) or dump(self, *args))
    history = sim.history = history_module.History(sim, **options)
    history.start()
    weight = len(sim.store.pods) + history_module.NODE_WEIGHT * len(sim.store.nodes)
    at_start = len(dumps) * weight
    dumps.clear()
    for _ in range(ticks):
        sim.step()
        if history.writer is not None:
            history._collect(block=True)  # as if the child were quick: a checkpoint every interval
    return at_start, len(dumps) * weight


def test_checkpoints_pickled_in_process_cost_a_bounded_amount_a_tick_whatever_the_size(monkeypatch):
    """Below the size from which a child writes them, checkpoints are pickled by the engine itself:
    the bigger the cluster, the further apart, so that the engine pickles about as much a tick at
    any size (at x1000, 100 nodes and 400 pods ran at x760 in the TUI when every tenth tick was
    pickled). The smallest clusters keep a checkpoint every ten ticks."""
    from playground.engine import history as history_module

    per_tick = {}
    ticks = 400
    for nodes, replicas in ((6, 12), (60, 180), (150, 350)):
        sim = Simulation(_cluster(nodes, replicas))
        sim.run_until(1)
        weight = len(sim.store.pods) + history_module.NODE_WEIGHT * len(sim.store.nodes)
        per_tick[weight] = _pickled_in_process(sim, ticks, monkeypatch, fork_from=None)[1] / ticks
    smallest = min(per_tick)
    assert per_tick[smallest] == pytest.approx(smallest / 10, rel=0.1)  # every ten ticks
    for weight, pickled in per_tick.items():
        assert pickled <= max(smallest / 10, history_module.IN_PROCESS_PER_TICK) * 1.1, (weight, pickled)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="checkpoints are written by a child on Linux only")
def test_three_thousand_pods_and_nodes_have_their_checkpoints_written_by_a_child(monkeypatch):
    """From FORK_FROM (3,000 pods, a node weighing NODE_WEIGHT), the engine pickles no checkpoint
    itself: a forked child does, off the engine thread. At 1,000 nodes and 10,000 pods pickling
    in-process took 120-240 ms a checkpoint, against 4 ms for the fork, and held the TUI to x79."""
    from playground.engine import history as history_module

    for nodes, replicas, forked in ((501, 996, True), (501, 995, False)):
        sim = Simulation(_cluster(nodes, replicas))
        sim.run_until(1)
        weight = len(sim.store.pods) + history_module.NODE_WEIGHT * len(sim.store.nodes)
        assert (weight >= history_module.FORK_FROM) is forked
        at_start, later = _pickled_in_process(sim, 100, monkeypatch)
        if forked:
            assert at_start == later == 0
            assert len(sim.history.checkpoints) > 5 and all(cp.data for cp in sim.history.checkpoints)
        else:
            assert at_start == weight


def test_without_a_fork_a_large_cluster_keeps_its_checkpoints_at_most_ten_minutes_apart(monkeypatch):
    """Where no child can write them (not Linux, or after a child failed), a large cluster's
    checkpoints are pickled by the engine itself, spaced by its size but IN_PROCESS_MAX_TICKS
    apart at most: going back replays at most that much."""
    from playground.engine import history as history_module

    sim = Simulation(_cluster(801, 300))
    sim.run_until(1)
    weight = len(sim.store.pods) + history_module.NODE_WEIGHT * len(sim.store.nodes)
    assert weight // history_module.IN_PROCESS_PER_TICK > history_module.IN_PROCESS_MAX_TICKS
    ticks = history_module.IN_PROCESS_MAX_TICKS + 50
    at_start, later = _pickled_in_process(sim, ticks, monkeypatch, fork_from=None)
    assert at_start == weight and later == weight  # the first, then one IN_PROCESS_MAX_TICKS later
    times = [cp.time for cp in sim.history.checkpoints]
    spacing = history_module.IN_PROCESS_MAX_TICKS * sim.tick
    assert len(times) == 2 and spacing <= times[1] - times[0] < spacing + 10 * sim.tick  # (an instant with work)
    sim.seek((times[1] + 40 * sim.tick) / 1000)
    assert sim.now == times[1] + 40 * sim.tick


def test_a_large_checkpoint_that_cannot_be_mapped_is_read_back(monkeypatch):
    """Where the temporary directory's files cannot be mapped, a large checkpoint is read back into
    bytes, and going back to it still replays exactly."""
    import mmap
    import types

    from playground.engine import history as history_module

    class Unmappable:
        def __init__(self, *args, **kwargs):
            raise OSError(19, "No such device")

    monkeypatch.setattr(history_module, "MAP_FROM", 1)
    monkeypatch.setattr(history_module, "mmap", types.SimpleNamespace(mmap=Unmappable, ACCESS_READ=mmap.ACCESS_READ))
    sim = Simulation(_LOADED["zone-outage"])
    history, writing, in_process = _forked_checkpoint(sim)
    assert isinstance(writing.data, bytes) and writing.data == in_process
    for _ in range(30):
        sim.step()
    sim.seek(writing.time / 1000)
    assert document(sim) == document(straight("zone-outage", writing.time))
