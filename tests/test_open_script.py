"""An opened state kept for one scenario serves another with the same cluster and another script:
instant 0 does not depend on the timeline and expectations after t=0 (their timers have ids set aside
at the build, Simulation._schedule_script), so a restored state takes the new script's timers with
the ids a build gives them, and runs as a cold open of the new scenario does. What instant 0 depends
on (the cluster, an entry at t=0) is still a miss."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from playground.engine import Simulation
from playground.engine import openstate
from playground.engine.openstate import OpenStateCache
from playground.engine.report import snapshot
from playground.scenario import parse_scenario

BASE = (Path(__file__).resolve().parent.parent / "scenarios" / "default.toml").read_text()
NODE = "a-1"

SCRIPT_A = f"""
[[timeline]]
at = "2m"
do = "power-off"
node = "{NODE}"

[[expect]]
at = "10m"
node = "{NODE}"
taints = ["node.kubernetes.io/unreachable:NoExecute"]
"""

# Another script: other times, an entry more, a live operation of a saved session, other
# expectations, another name and duration.
SCRIPT_B = f"""
[[timeline]]
at = "1m"
do = "cordon"
node = "b-1"

[[timeline]]
at = "3m30s"
do = "power-off"
node = "{NODE}"

[[timeline]]
at = "3m30s"
do = "drain"
node = "b-1"
afterControllers = true

[[expect]]
at = "4m"
node = "b-1"
unschedulable = true

[[expect]]
at = "12m"
node = "{NODE}"
taints = ["node.kubernetes.io/unreachable:NoExecute"]
"""

SCRIPT_AT_ZERO = f"""
[[timeline]]
at = "0s"
do = "cordon"
node = "{NODE}"
"""


def scenario(script: str, name: str = "default", duration: str = "30m"):
    text = BASE.replace('duration = "30m"', f'duration = "{duration}"', 1) + script
    sc = parse_scenario(text)
    sc.scenario.name = name
    return sc


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setattr(openstate, "KEEP_FROM", 0)  # keep the small shipped scenario
    return OpenStateCache(tmp_path / "states", fork=False)


def opened(sc, cache: OpenStateCache | None) -> Simulation:
    sim = Simulation(sc)
    sim.open_cache = cache
    sim.run_until(0)
    return sim


def state(sim: Simulation) -> tuple:
    results = [(r.time, r.passed, r.checks) for r in sim.expectation_results]
    return (json.dumps(snapshot(sim), sort_keys=True), [e.as_dict() for e in sim.store.recorder.events],
            results, sim.rng.getstate(), sim.clock.now, sim.duration)


def outcome(sim: Simulation) -> tuple:
    sim.run_until(15 * 60)
    return state(sim)


def test_the_script_timers_come_between_the_build_and_the_run_whatever_their_number():
    sims = [opened(scenario(s), None) for s in ("", SCRIPT_A, SCRIPT_B)]
    later = [sorted(e[2] for e in sim.clock._heap if e[3] not in ("timeline.apply", "expect.check"))
             for sim in sims]
    assert later[0] == later[1] == later[2]  # the run's own timers have the same ids
    script = sorted(e for e in sims[2].clock._heap if e[3] in ("timeline.apply", "expect.check"))
    build_ids = [e[2] for e in sims[2].clock._heap if e[3] not in ("timeline.apply", "expect.check")]
    assert [e[3:] for e in script] == [("timeline.apply", (0,)), ("timeline.apply", (1,)),
                                      ("timeline.apply", (2,)), ("expect.check", (0,)), ("expect.check", (1,))]
    first = sims[2]._script_ids
    assert sorted(e[2] for e in script) == [first, first + 1, first + 2, first + 3, first + 4]
    assert min(i for i in build_ids if i > first) > first + 4  # the run's timers come after


def test_another_script_restores_the_kept_opening_and_runs_as_its_cold_open(cache):
    opened(scenario(SCRIPT_A), cache)
    assert not cache.restored and len(list(cache.directory.glob("*.state"))) == 1
    b = scenario(SCRIPT_B, name="rehearsal", duration="20m")
    restored = opened(b, cache)
    assert cache.restored
    cold = opened(scenario(SCRIPT_B, name="rehearsal", duration="20m"), None)
    assert sorted(restored.clock._heap) == sorted(cold.clock._heap)
    assert restored.clock._live == cold.clock._live
    result = outcome(restored)
    assert result == outcome(cold)
    assert len(result[2]) == 2 and all(passed for _, passed, _ in result[2])
    assert result[5] == 20 * 60_000  # the duration is the new scenario's


def test_no_script_after_a_script_restores_and_runs_as_its_cold_open(cache):
    opened(scenario(SCRIPT_B), cache)
    restored = opened(scenario(""), cache)
    assert cache.restored
    assert not [e for e in restored.clock._heap if e[3] in ("timeline.apply", "expect.check")]
    assert outcome(restored) == outcome(opened(scenario(""), None))


def test_what_instant_zero_depends_on_is_a_miss(cache):
    opened(scenario(SCRIPT_A), cache)
    opened(scenario(SCRIPT_A + SCRIPT_AT_ZERO), cache)
    assert not cache.restored  # an entry at t=0 runs in instant 0
    sc = scenario(SCRIPT_A)
    sc.nodePools[0].count += 1
    opened(sc, cache)
    assert not cache.restored
    assert len(list(cache.directory.glob("*.state"))) == 3


def test_time_travel_over_another_script_after_a_restore(cache):
    """The TUI records its history from before the open: going back and forth over the new script's
    operations gives the states a cold open of the new scenario had at those instants."""
    opened(scenario(SCRIPT_A), cache)

    def recorded(cache_or_none):
        sim = Simulation(scenario(SCRIPT_B))
        sim.open_cache = cache_or_none
        sim.enable_history()
        sim.run_until(15 * 60)
        return sim

    restored, cold = recorded(cache), recorded(None)
    assert cache.restored
    assert outcome(restored) == outcome(cold)
    for seconds in (200, 30, 0, 600):
        restored.seek(seconds)
        cold.seek(seconds)
        assert restored.clock.now == seconds * 1000
        assert state(restored) == state(cold)
    assert outcome(restored) == outcome(cold)  # and on along the recorded future


def test_rewinding_before_every_kept_checkpoint_opens_from_the_kept_state(cache):
    """An instant older than every checkpoint kept is rebuilt from the scenario: its instant 0 is an
    open like any other (from the kept opened state here), and the rebuilt simulation counts as
    opened, so running on continues from the instant gone back to."""
    sc = scenario(SCRIPT_B)
    opened(sc, cache)  # keeps the opened state
    sim = Simulation(scenario(SCRIPT_B))
    sim.open_cache = cache
    history = sim.enable_history(budget=1)  # every checkpoint but the newest is thinned away
    sim.run_until(10 * 60)
    assert history.checkpoints[0].time > 60_000
    cache.restored = False
    sim.seek(45)
    assert cache.restored and sim.clock.now == 45_000
    cache.restored = False
    sim.run_until(12 * 60)
    assert not cache.restored  # runs on from 45 s: not opened again (restored, then replayed from 0)
    straight = Simulation(scenario(SCRIPT_B))
    straight.run_until(12 * 60)
    assert state(sim) == state(straight)
