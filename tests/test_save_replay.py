"""Live equals replay: a session of random operations (every kind, several in one instant, refused and
invalid ones) saved with Simulation.save and loaded again gives the same `sim --json` document, byte
for byte, at the save time and later.

Hypothesis profiles (env PLAYGROUND_HYPOTHESIS_PROFILE): "ci" (default, 600 sessions, under a minute
on this machine) and "long" (3,000 sessions). The long run's figures are in the issue note.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from playground.engine import Simulation
from playground.engine.objects import PodTemplate, Toleration
from playground.engine.operations import Operation
from playground.engine.report import snapshot
from playground.scenario import load_scenario
from playground.scenario.validation import MAX_REPLICAS

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ["drain-pdb", "node-failure", "preemption-pdb", "non-graceful-shutdown", "pending-explained",
             "rollout-drain-pdb"]
_LOADED = {name: load_scenario(ROOT / "scenarios" / f"{name}.toml") for name in SCENARIOS}

settings.register_profile("ci", max_examples=600, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("long", max_examples=3000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
PROFILE = os.environ.get("PLAYGROUND_HYPOTHESIS_PROFILE", "ci")

NODE_OPS = ("cordon", "uncordon", "drain", "cancel-drain", "delete-node", "shutdown", "power-off", "power-on",
            "partition", "heal", "stop-kubelet", "start-kubelet", "restart-kubelet")
GOOD_TAINTS = ["k=v:NoSchedule", "k=w:NoSchedule", "k:NoExecute", "k:NoExecute-", "k-", "k:NoSchedule-",
               "node.kubernetes.io/out-of-service=nodeshutdown:NoExecute"]
BAD_TAINTS = ["bad key:NoSchedule", "k=v:Bogus", "a:b:c", ""]


def document(sim: Simulation) -> str:
    return json.dumps(snapshot(sim), indent=1)


def pick(data, good: list, bad: list):
    """Mostly a valid value, one time in twelve an invalid one (the operation is then refused)."""
    if bad and data.draw(st.integers(0, 11)) == 0:
        return data.draw(st.sampled_from(bad))
    return data.draw(st.sampled_from(good))


def node_op(data, sim: Simulation) -> Operation:
    node = pick(data, sorted(sim.kubelets), ["ghost", "Bad_Node"])
    do = data.draw(st.sampled_from(NODE_OPS + ("drain", "drain")))
    if do != "drain":
        return Operation(do, node=node)
    return Operation(
        "drain", node=node,
        ignore_daemonsets=data.draw(st.booleans()), delete_emptydir_data=data.draw(st.booleans()),
        force=data.draw(st.booleans()), disable_eviction=data.draw(st.booleans()),
        grace_period_seconds=pick(data, [None, 0, 2, 30], [-1]),
        timeout=pick(data, [None, 0, 7_000, 60_000], [-5]),
        pod_selector=pick(data, [None, "", "app=web", "app!=web"], ["tier in (a)"]),
        skip_wait_for_delete_timeout=pick(data, [None, 0, 5], [-2]),
    )


def taint_op(data, sim: Simulation) -> Operation:
    node = pick(data, sorted(sim.kubelets), ["ghost"])
    do = data.draw(st.sampled_from(["taint", "untaint"]))
    taint = pick(data, GOOD_TAINTS, BAD_TAINTS)
    return Operation(do, node=node, taint=taint, overwrite=do == "taint" and data.draw(st.booleans()))


def pod_op(data, sim: Simulation) -> Operation:
    if data.draw(st.booleans()):
        pods = sorted(sim.store.pods) or ["default/none"]
        key = pick(data, pods, ["default/ghost"])
        namespace, _, name = key.partition("/")
        return Operation("delete-pod", pod=name, namespace=namespace,
                         grace_period_seconds=pick(data, [None, 0, 3], [-1]))
    template = PodTemplate(
        labels=pick(data, [{}, {"app": "web"}], [{"bad key": "x"}]),
        cpu=pick(data, [0, 100, 2000], [-1]),
        memory=data.draw(st.sampled_from([0, 64 * 1024 * 1024])),
        priority_class_name=pick(data, [""] + sorted(sim.store.priority_classes), ["nope"]),
        termination_grace_period_seconds=pick(data, [0, 3, 30], [-5]),
        tolerations=data.draw(st.sampled_from([(), (Toleration("k", "Exists", "", "NoExecute", 5),)])),
    )
    return Operation("create-pod", pod=pick(data, ["p-1", "p-2"], ["Bad Name", ""]),
                     namespace=pick(data, ["default", "team-a"], ["Bad NS"]), template=template,
                     pod_node_name=pick(data, [None, None] + sorted(sim.kubelets), ["ghost"]))


def scale_op(data, sim: Simulation) -> Operation:
    name = pick(data, sorted(sim.store.deployments) or ["ghost"], ["ghost"])
    return Operation("scale", deployment=name, replicas=pick(data, [0, 1, 3, 6], [-1, MAX_REPLICAS + 1, True]))


ROLLOUT_SPECS = [None, {"labels": {"app": "web", "v": "2"}}, {"requests": {"cpu": "150m"}}]
STRATEGIES = [{"rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}}, {"type": "Recreate"},
              {"rollingUpdate": {"maxSurge": "50%", "maxUnavailable": "0%"}}]
BAD_STRATEGIES = [{"rollingUpdate": {"maxSurge": 0, "maxUnavailable": 0}}, {"type": "Bogus"}]


def rollout_op(data, sim: Simulation) -> Operation:
    name = pick(data, sorted(sim.store.deployments) or ["ghost"], ["ghost"])
    do = data.draw(st.sampled_from(["rollout", "rollout", "rollout-undo", "pause-rollout", "resume-rollout",
                                    "set-strategy"]))
    if do == "rollout":
        return Operation(do, deployment=name, pod_spec=data.draw(st.sampled_from(ROLLOUT_SPECS)))
    if do == "set-strategy":
        return Operation(do, deployment=name, strategy=pick(data, STRATEGIES, BAD_STRATEGIES))
    return Operation(do, deployment=name)


def any_op(data, sim: Simulation) -> Operation:
    kind = data.draw(st.sampled_from(["node", "node", "node", "taint", "pod", "pod", "scale", "rollout", "bogus"]))
    if kind == "bogus":
        return Operation("bogus", node=sorted(sim.kubelets)[0])
    return {"node": node_op, "taint": taint_op, "pod": pod_op, "scale": scale_op,
            "rollout": rollout_op}[kind](data, sim)


@settings.get_profile(PROFILE)
@given(data=st.data())
def test_a_saved_session_replays_exactly(data):
    name = data.draw(st.sampled_from(SCENARIOS), label="scenario")
    live = Simulation(load_scenario(ROOT / "scenarios" / f"{name}.toml"))
    steps = data.draw(st.integers(1, 12), label="steps")
    for _ in range(steps):
        # 0 ticks: another operation in the same instant (and, at first, at 0 s before any step)
        for _ in range(data.draw(st.sampled_from([0, 0, 1, 1, 3, 10, 40]))):
            live.step()
        op = any_op(data, live)
        before = len(live.operations.history)
        result = live.apply(op)
        kept = any(r is result for r in live.operations.history[before:])
        event(f"{op.do}: {'applied' if result.ok else 'refused by the cluster' if kept else 'invalid'}")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "session.toml"
        live.save(path)
        assert os.listdir(folder) == ["session.toml"]
        saved = load_scenario(path)
    assert saved.scenario.duration >= live.now
    replay = Simulation(saved)
    # `sim --until T` is the state once everything due at or before T ran, the last operations'
    # immediate consequences included; the live session gets there by finishing its instant
    live.run_until_ms(live.now)
    replay.run_until_ms(live.now)
    assert document(replay) == document(live)
    later = live.now + data.draw(st.sampled_from([1_000, 30_000, 120_000]), label="later")
    live.run_until_ms(later)
    replay.run_until_ms(later)
    assert document(replay) == document(live)


# ---------------------------------------------------------------- worked cases from the issue


def _sim(name: str) -> Simulation:
    return Simulation(_LOADED[name])


def test_drain_at_zero_live_and_replayed_evict_the_same_pods(tmp_path):
    live = _sim("drain-pdb")
    result = live.apply(Operation("drain", node="n-3", ignore_daemonsets=True))
    path = tmp_path / "s.toml"
    live.save(path)
    text = path.read_text()
    assert "afterControllers = true" in text
    replay = Simulation(load_scenario(path))
    for sim in (live, replay):
        sim.run_until_ms(600_000)
    assert document(replay) == document(live)
    [replayed] = [r for r in replay.operations.history if r.after_controllers]
    assert (replayed.time, replayed.message) == (0, result.message)
    assert "draining" in result.message  # it evicts through the budget, as seen live


def test_a_drain_refused_by_its_filters_is_saved_with_its_cordon(tmp_path):
    live = Simulation(load_scenario(ROOT / "tests" / "tui" / "scenarios" / "small.toml"))
    live.run_until(5)
    live.apply(Operation("create-pod", pod="bare", pod_node_name="a-1"))
    live.step()
    result = live.apply(Operation("drain", node="a-1"))
    assert not result.ok and "cannot delete" in result.message
    assert live.store.nodes["a-1"].unschedulable
    live.save(tmp_path / "s.toml")
    saved = load_scenario(tmp_path / "s.toml")
    assert [e.do for e in saved.timeline] == ["create-pod", "drain"]
    replay = Simulation(saved)
    replay.run_until_ms(live.now)
    assert replay.store.nodes["a-1"].unschedulable
    assert document(replay) == document(live)


@pytest.mark.parametrize("op", [
    Operation("taint", node="a-1", taint="bad key=v:NoSchedule"),
    Operation("drain", node="a-1", grace_period_seconds=-1),
    Operation("delete-pod", pod="x", grace_period_seconds=-1),
    Operation("scale", deployment="web", replicas=-1),
    Operation("scale", deployment="web", replicas=MAX_REPLICAS + 1),
    Operation("scale", deployment="web", replicas=True),
    Operation("create-pod", pod=""),
    Operation("create-pod", pod="p", namespace="Bad NS"),
    Operation("create-pod", pod="p", template=PodTemplate(labels={}, termination_grace_period_seconds=-5)),
    Operation("cordon", node="ghost"),
    Operation("cordon", node="a-1", replicas=3),
])
def test_invalid_operations_are_refused_and_never_make_a_session_unsaveable(tmp_path, op):
    sim = Simulation(load_scenario(ROOT / "tests" / "tui" / "scenarios" / "small.toml"))
    sim.run_until(3)
    before = document(sim)
    result = sim.apply(op)
    assert not result.ok and result.message
    assert document(sim) == before  # nothing changed, no event
    assert [r for r in sim.operations.history if r.origin == "user"] == []
    sim.apply(Operation("cordon", node="a-2"))
    sim.save(tmp_path / "s.toml")
    assert [e.do for e in load_scenario(tmp_path / "s.toml").timeline] == ["cordon"]


def test_the_removal_suffix_removes_a_taint_as_kubectl_does():
    sim = Simulation(load_scenario(ROOT / "tests" / "tui" / "scenarios" / "small.toml"))
    assert sim.apply(Operation("taint", node="a-1", taint="k=v:NoExecute")).ok
    again = sim.apply(Operation("taint", node="a-1", taint="k=w:NoExecute"))
    assert not again.ok and again.message == ("node a-1 already has k taint(s) with same effect(s) and --overwrite "
                                              "is false")
    assert sim.apply(Operation("taint", node="a-1", taint="k=w:NoExecute", overwrite=True)).ok
    assert "k=w:NoExecute" in sim.store.nodes["a-1"].taint_strings()
    assert sim.apply(Operation("taint", node="a-1", taint="k=v:NoExecute-")).ok
    assert "k=w:NoExecute" not in sim.store.nodes["a-1"].taint_strings()
    missing = sim.apply(Operation("taint", node="a-1", taint="k-"))
    assert not missing.ok and missing.message == 'taint "k" not found'


# ---------------------------------------------------------------- saving


def _session(tmp_path) -> Simulation:
    sim = Simulation(load_scenario(ROOT / "tests" / "tui" / "scenarios" / "small.toml"))
    sim.run_until(20 * 60)
    sim.apply(Operation("cordon", node="a-1"))
    return sim


def test_saved_duration_covers_the_session(tmp_path):
    sim = _session(tmp_path)
    sim.save(tmp_path / "s.toml")
    assert load_scenario(tmp_path / "s.toml").scenario.duration == 20 * 60_000


def test_save_keeps_mode_and_writes_through_a_symlink(tmp_path):
    sim = _session(tmp_path)
    real = tmp_path / "real.toml"
    real.write_text("old")
    real.chmod(0o640)
    link = tmp_path / "link.toml"
    link.symlink_to("real.toml")
    written = sim.save(link)
    assert written == real and link.is_symlink() and os.readlink(link) == "real.toml"
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    assert load_scenario(link).timeline[-1].do == "cordon"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.toml", "real.toml"]


def test_a_failed_save_leaves_no_temporary_file_and_the_old_file_intact(tmp_path, monkeypatch):
    sim = _session(tmp_path)
    target = tmp_path / "s.toml"
    target.write_text("original")

    def fail(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", fail)
    with pytest.raises(OSError):
        sim.save(target)
    monkeypatch.undo()
    assert target.read_text() == "original"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.toml"]


def test_a_stale_temporary_file_of_a_killed_save_is_removed_by_the_next_save(tmp_path):
    import subprocess
    import sys

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stale = tmp_path / f".s.toml.{int(dead.stdout)}.0badc0de.tmp"
    stale.write_text("half a scena")
    other = tmp_path / f".other.toml.{int(dead.stdout)}.0badc0de.tmp"
    other.write_text("not ours")
    _session(tmp_path).save(tmp_path / "s.toml")
    assert sorted(p.name for p in tmp_path.iterdir()) == [other.name, "s.toml"]


def test_a_new_file_gets_the_usual_permissions(tmp_path):
    mask = os.umask(0o022)
    try:
        _session(tmp_path).save(tmp_path / "new.toml")
    finally:
        os.umask(mask)
    assert stat.S_IMODE((tmp_path / "new.toml").stat().st_mode) == 0o644
