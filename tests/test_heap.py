"""After a scenario opens, the playground and `sim` keep the opened cluster out of the garbage
collector's sight and collect less often (simulation.freeze_heap); what an earlier open froze and
nobody holds any more is collected at the next open, before it. The open freezes what it makes
before the collector walks it (Simulation.open_now with `freeze`)."""

from __future__ import annotations

import gc
import threading
import weakref
from pathlib import Path

import pytest

from playground.cli import main
from playground.engine import Simulation
from playground.engine.simulation import COLLECTOR_THRESHOLDS, freeze_heap
from playground.scenario import load_scenario

ROOT = Path(__file__).resolve().parent.parent


class Cycle:
    """Garbage only the cyclic collector can free, once nobody holds it."""

    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def collector():
    # The collector is one per process: an engine thread an earlier TUI test left finishing its last
    # job (runner.EngineThread, stopped when its app closed) could turn it back on at the end of its
    # own pause (gcpause.no_gc) in the middle of an open here. Let such threads end first.
    for thread in threading.enumerate():
        if thread.name == "playground-engine":
            thread.join(timeout=60)
    thresholds = gc.get_threshold()
    gc.unfreeze()
    gc.set_threshold(700, 10, 10)
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


def test_sim_freezes_the_opened_cluster_and_collects_less_often(collector, capsys):
    assert gc.get_freeze_count() == 0
    assert main(["sim", str(ROOT / "scenarios" / "node-failure.toml"), "--until", "1m"]) == 0
    assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == COLLECTOR_THRESHOLDS


def test_what_an_earlier_open_froze_is_collected_at_the_next(collector):
    old = Cycle()
    ref = weakref.ref(old)
    freeze_heap()
    del old
    gc.collect()
    assert ref() is not None  # frozen: not scanned
    freeze_heap()
    assert ref() is None


def opened_scenario_pods_walked(freeze: bool) -> tuple[Simulation, list[int]]:
    """Open node-failure.toml; the pods that existed at each collection during the open."""
    sim = Simulation(load_scenario(ROOT / "scenarios" / "node-failure.toml"))
    walked: list[int] = []

    def on_gc(phase: str, info: dict) -> None:
        if phase == "start":
            walked.append(len(sim.store.pods))

    gc.callbacks.append(on_gc)
    try:
        sim.open_now(freeze=freeze)
    finally:
        gc.callbacks.remove(on_gc)
    return sim, walked


def test_the_open_freezes_the_cluster_it_makes_without_walking_it(collector):
    sim, walked = opened_scenario_pods_walked(freeze=True)
    assert walked == []  # no collection during the open
    pod = next(iter(sim.store.pods.values()))
    assert not any(o is pod for o in gc.get_objects())  # in no generation the collector walks
    assert gc.get_threshold() == COLLECTOR_THRESHOLDS


def test_an_open_without_freeze_leaves_the_collector_alone(collector):
    sim, walked = opened_scenario_pods_walked(freeze=False)
    assert walked == [] and sim.store.pods
    assert gc.get_freeze_count() == 0
    assert gc.get_threshold() == (700, 10, 10)


def test_sim_collects_what_an_earlier_run_froze_before_it_opens(collector, capsys):
    old = Cycle()
    ref = weakref.ref(old)
    freeze_heap()
    del old
    assert main(["sim", str(ROOT / "scenarios" / "node-failure.toml"), "--until", "1m"]) == 0
    assert ref() is None


def test_freeze_heap_without_release_keeps_what_is_frozen_and_freezes_what_is_new(collector):
    frozen = Cycle()
    frozen_ref = weakref.ref(frozen)
    freeze_heap()
    new = Cycle()
    new_ref = weakref.ref(new)
    newer = Cycle()
    del frozen, new
    freeze_heap(release=False)
    assert frozen_ref() is not None  # still frozen: not walked
    assert new_ref() is None  # unfrozen garbage: collected
    assert not any(o is newer for o in gc.get_objects())  # alive, and frozen now
