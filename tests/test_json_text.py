"""`playground sim --json` is written by msgspec (report.json_text) to the very text the json module
writes with indent=1, which stays the plain reference: every shipped scenario's document, the
characters msgspec writes otherwise, and random documents of the values a document holds."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from playground.cli import main
from playground.engine import Simulation
from playground.engine.report import PLAIN_FLOATS, json_pieces, json_text, snapshot, snapshot_lazily
from playground.scenario import load_scenario

SCENARIOS = sorted((Path(__file__).parent.parent / "scenarios").glob("*.toml"))


def reference(document) -> bytes:
    return json.dumps(document, indent=1).encode()


def floats(value):
    if isinstance(value, float):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from floats(item)
    elif isinstance(value, list):
        for item in value:
            yield from floats(item)


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_every_shipped_scenario_s_document_is_the_json_module_s_text(path):
    sim = Simulation(load_scenario(path))
    sim.run_until_ms(10 * 60_000)
    document = snapshot(sim)
    assert json_text(document) == reference(document)
    # json_text's promise holds for floats in this range: the document's are seconds from milliseconds
    low, high = PLAIN_FLOATS
    assert all(x == 0 or low <= abs(x) < high for x in floats(document))


@pytest.mark.parametrize("path", SCENARIOS[::3], ids=lambda p: p.stem)
@pytest.mark.parametrize("chunk", [1, 3, 2_000])
def test_the_document_written_in_pieces_is_the_json_module_s_text(path, chunk):
    """`sim --json` writes the document piece by piece, its long lists made as they are written."""
    sim = Simulation(load_scenario(path))
    sim.run_until_ms(5 * 60_000)
    assert b"".join(json_pieces(snapshot_lazily(sim), chunk)) == reference(snapshot(sim))


def test_sim_json_prints_the_json_module_s_text(capsys):
    path = "scenarios/zone-outage.toml"
    assert main(["sim", path, "--until", "3m", "--json"]) == 0
    printed = capsys.readouterr().out
    sim = Simulation(load_scenario(path))
    sim.open_now()
    sim.run_until_ms(3 * 60_000)
    assert printed == reference(snapshot(sim)).decode() + "\n"


@pytest.mark.parametrize("document", [
    {"scenario": "zone-b → down", "description": "café", "emoji": "😀"},  # escaped as \uXXXX, a surrogate pair
    {"control": "a\nb\tc\r\x08\x0c\x00\x1f", "del": "\x7f", "quote": "\"/\\"},
    {"times": [0.001, 0.0001, 9999999999999998.0, 86400.001], "zero": [0.0, -0.0], "negative": -2.5},
    {"empty": [[], {}, ""], "nested": {"a": {"b": []}}, "int": 2**63 - 1, "none": None, "bool": False},
    {"time": 86400.001, "count": 3, "ratio": 0.5},
], ids=["non-ascii", "control-characters", "floats", "empty-and-nested", "plain"])
def test_what_msgspec_writes_otherwise_is_written_as_the_json_module_writes_it(document):
    assert json_text(document) == reference(document)


def test_a_type_msgspec_does_not_write_is_left_to_the_json_module():
    document = {"big": 2**70, "tuple": (1, "a")}
    assert json_text(document) == reference(document)


plain_floats = st.just(0.0) | st.floats(PLAIN_FLOATS[0], PLAIN_FLOATS[1], exclude_max=True).flatmap(
    lambda x: st.sampled_from([x, -x]))
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | plain_floats | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=30)

# CI profile: 200 examples; a longer run: JSON_TEXT_EXAMPLES=20000 pytest tests/test_json_text.py
EXAMPLES = int(os.environ.get("JSON_TEXT_EXAMPLES", "200"))


@settings(max_examples=EXAMPLES, deadline=None)
@given(json_values)
def test_random_documents_are_written_as_the_json_module_writes_them(document):
    assert json_text(document) == reference(document)


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.dictionaries(st.text(max_size=8), json_values | st.lists(json_values, max_size=6), max_size=5),
       st.integers(1, 4), st.data())
def test_random_documents_with_lists_made_as_they_are_written_are_written_as_the_json_module_writes_them(
        document, chunk, data):
    lazily = {key: iter(value) if isinstance(value, list) and data.draw(st.booleans()) else value
              for key, value in document.items()}
    assert b"".join(json_pieces(lazily, chunk)) == reference(document)
