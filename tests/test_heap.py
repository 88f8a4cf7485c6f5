"""After a scenario opens, the playground and `sim` keep the opened cluster out of the garbage
collector's sight and collect less often (simulation.freeze_heap); what an earlier open froze and
nobody holds any more is collected at the next open."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

import pytest

from playground.cli import main
from playground.engine.simulation import COLLECTOR_THRESHOLDS, freeze_heap

ROOT = Path(__file__).resolve().parent.parent


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
    class Cycle:
        pass

    old = Cycle()
    old.me = old  # garbage only the cyclic collector can free
    ref = weakref.ref(old)
    freeze_heap()
    del old
    gc.collect()
    assert ref() is not None  # frozen: not scanned
    freeze_heap()
    assert ref() is None
