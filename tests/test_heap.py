"""After a scenario opens, the playground and `sim` keep the opened cluster out of the garbage
collector's sight and collect less often (simulation.freeze_heap); what an earlier open froze and
nobody holds any more is collected at the next open, before it. The open freezes what it makes
before the collector walks it (Simulation.open_now with `freeze`)."""

from __future__ import annotations

import gc
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


LOW_THRESHOLDS = (50, 10, 10)


def opened_scenario_pods_walked(freeze: bool) -> tuple[Simulation, list[int]]:
    """Open node-failure.toml; the pods that existed at each collection during its instant 0."""
    sim = Simulation(load_scenario(ROOT / "scenarios" / "node-failure.toml"))
    walked: list[int] = []
    # Collections while instant 0 runs: the one that may follow at once when the pause ends (without
    # `freeze`, nothing keeps the new objects out of it) is not the open's.
    running = [False]
    run_instant_zero = sim._run_instant_zero

    def instant_zero() -> None:
        running[0] = True
        try:
            run_instant_zero()
        finally:
            running[0] = False

    sim._run_instant_zero = instant_zero

    def on_gc(phase: str, info: dict) -> None:
        if phase == "start" and running[0]:
            walked.append(len(sim.store.pods))

    # A low threshold, so that an instant 0 the collector is not paused for collects within its
    # first objects (node-failure.toml's makes fewer than the usual 700).
    before = gc.get_threshold()
    gc.set_threshold(*LOW_THRESHOLDS)
    gc.collect()
    gc.callbacks.append(on_gc)
    try:
        sim.open_now(freeze=freeze)
    finally:
        gc.callbacks.remove(on_gc)
        if gc.get_threshold() == LOW_THRESHOLDS:  # (an open with `freeze` sets its own)
            gc.set_threshold(*before)
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
