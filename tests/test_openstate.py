"""A big scenario's opened state kept on disk (openstate.py): opening the same scenario again with the
same code restores it, and everything after is what a cold open gives (events, pods, RNG, the JSON
report, time travel); another scenario misses; a damaged file is a miss and is removed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from playground.engine import Operation, Simulation
from playground.engine import openstate
from playground.engine.openstate import OpenStateCache
from playground.engine.report import snapshot
from playground.scenario import load_scenario

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "default.toml"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setattr(openstate, "KEEP_FROM", 0)  # keep the small shipped scenario
    return OpenStateCache(tmp_path / "states", fork=False)


def run(cache: OpenStateCache | None, seed: int | None = None, history: bool = False) -> Simulation:
    scenario = load_scenario(SCENARIO)
    if seed is not None:
        scenario.scenario.seed = seed
    sim = Simulation(scenario)
    sim.open_cache = cache
    if history:
        sim.enable_history()
    sim.run_until(60)
    sim.apply(Operation("power-off", node=sorted(sim.store.nodes)[0]))
    sim.run_until(900)
    return sim


def outcome(sim: Simulation) -> tuple:
    return (json.dumps(snapshot(sim), sort_keys=True), [e.as_dict() for e in sim.store.recorder.events],
            sim.rng.getstate(), sim.clock.now)


def test_a_second_open_restores_the_kept_state_and_runs_as_a_cold_open(cache):
    cold = run(None)
    first = run(cache)
    assert not cache.restored and len(list(cache.directory.glob("*.state"))) == 1
    second = run(cache)
    assert cache.restored
    assert outcome(first) == outcome(cold)
    assert outcome(second) == outcome(cold)


def test_another_scenario_or_code_misses(cache, monkeypatch):
    run(cache)
    run(cache, seed=7)
    assert not cache.restored  # another seed: another scenario
    assert len(list(cache.directory.glob("*.state"))) == 2
    monkeypatch.setattr(openstate, "source_digest", lambda: b"another version of the code")
    run(cache)
    assert not cache.restored


def test_a_damaged_state_is_a_miss_and_is_removed(cache):
    cold = run(None)
    run(cache)
    (path,) = cache.directory.glob("*.state")
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])  # cut short
    sim = run(cache)
    assert not cache.restored
    assert outcome(sim) == outcome(cold)
    path.write_bytes(b"something else\n")
    sim = run(cache)
    assert not cache.restored and outcome(sim) == outcome(cold)


def test_recording_history_from_before_the_open(cache):
    """The TUI records its history from before the open: after a restore the figures follow the
    restored cluster and going back to an instant gives the state a cold open had there."""
    cold = run(None, history=True)
    run(cache)  # kept by a headless open: no figures recorded with it
    sim = run(cache, history=True)
    assert cache.restored
    assert outcome(sim) == outcome(cold)
    assert sim.history.series.samples == cold.history.series.samples
    sim.seek(300)
    cold.seek(300)
    assert outcome(sim) == outcome(cold)


def test_only_the_newest_states_are_kept(cache, monkeypatch):
    monkeypatch.setattr(openstate, "KEEP", 2)
    for seed in (1, 2, 3):
        run(cache, seed=seed)
    assert len(list(cache.directory.glob("*.state"))) == 2


def test_the_default_cache_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("PLAYGROUND_CACHE_DIR", "off")
    assert OpenStateCache.default() is None
    monkeypatch.setenv("PLAYGROUND_CACHE_DIR", str(tmp_path))
    assert OpenStateCache.default().directory == tmp_path
    monkeypatch.delenv("PLAYGROUND_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert OpenStateCache.default().directory == tmp_path / "xdg" / "cluster-playground"


# ---------------------------------------------------------------- a big file's scenario, kept

def counting_reader(path: Path, calls: list):
    def read():
        calls.append(path)
        return load_scenario(path), ["a line of the report"]
    return read


def test_a_big_file_is_read_once_while_its_bytes_and_the_code_stay(cache, monkeypatch, tmp_path):
    monkeypatch.setattr(openstate, "SOURCE_KEEP_FROM", 0)
    path = tmp_path / "cluster.toml"
    path.write_text(SCENARIO.read_text())
    calls: list = []
    first = cache.read_source(path, counting_reader(path, calls))
    assert len(calls) == 1 and not cache.source_restored
    again = cache.read_source(path, counting_reader(path, calls))
    assert len(calls) == 1 and cache.source_restored  # the kept copy: the file is not read again
    assert again[0].model_dump() == first[0].model_dump() and again[1] == ["a line of the report"]
    path.write_text(SCENARIO.read_text() + "\n# edited\n")
    cache.read_source(path, counting_reader(path, calls))
    assert len(calls) == 2 and not cache.source_restored  # other bytes: read again
    monkeypatch.setattr(openstate, "source_digest", lambda: b"another version of the code")
    cache.read_source(path, counting_reader(path, calls))
    assert len(calls) == 3


def test_a_damaged_kept_scenario_is_a_miss_and_a_small_file_is_not_kept(cache, monkeypatch, tmp_path):
    path = tmp_path / "cluster.toml"
    path.write_text(SCENARIO.read_text())
    calls: list = []
    cache.read_source(path, counting_reader(path, calls))
    assert not list(cache.directory.glob("*.scenario"))  # below SOURCE_KEEP_FROM: read every time
    monkeypatch.setattr(openstate, "SOURCE_KEEP_FROM", 0)
    cache.read_source(path, counting_reader(path, calls))
    (kept,) = cache.directory.glob("*.scenario")
    kept.write_bytes(kept.read_bytes()[:40])
    scenario, _ = cache.read_source(path, counting_reader(path, calls))
    assert len(calls) == 3 and scenario.scenario.name == load_scenario(path).scenario.name


def test_sim_of_a_dump_again_reads_its_kept_scenario(monkeypatch, tmp_path, capsys):
    from playground.cli import main
    import playground.manifests as manifests

    dump = Path(__file__).resolve().parent / "data" / "dumps" / "eks-cluster.json"
    monkeypatch.setattr(openstate, "SOURCE_KEEP_FROM", 0)
    monkeypatch.setattr(OpenStateCache, "default", classmethod(lambda cls: cls(tmp_path / "states", fork=False)))
    assert main(["sim", str(dump), "--until", "2m", "--json"]) == 0
    first = capsys.readouterr()

    def no_import(*args, **kwargs):
        raise AssertionError("the dump was read again")

    monkeypatch.setattr(manifests, "import_files", no_import)
    assert main(["sim", str(dump), "--until", "2m", "--json"]) == 0
    second = capsys.readouterr()
    assert second.out == first.out and second.err == first.err  # the same run, the same report


def test_a_simulation_made_with_the_cache_restores_instead_of_building(cache, monkeypatch):
    """`Simulation(scenario, open_cache=...)` (sim, check) restores the kept opened state in place
    of building the cluster, and runs as a cold open does."""
    cold = run(None)
    run(cache)  # keeps the opened state

    def no_build(self):
        raise AssertionError("the cluster was built before the kept state replaced it")

    monkeypatch.setattr(Simulation, "_build", no_build)
    sim = Simulation(load_scenario(SCENARIO), open_cache=cache)
    assert cache.restored and sim.opened
    sim.run_until(60)
    sim.apply(Operation("power-off", node=sorted(sim.store.nodes)[0]))
    sim.run_until(900)
    assert outcome(sim) == outcome(cold)
