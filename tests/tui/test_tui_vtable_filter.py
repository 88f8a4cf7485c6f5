"""The virtual table's kept match texts, narrowing filter and column sort against a plain reference:
on any sequence of inserts, changes, removals, filters and sorts the shown rows are exactly the rows
whose current text matches, in the chosen order. HYPOTHESIS_EXAMPLES raises the number of examples
for a longer run."""

from __future__ import annotations

import asyncio
import os

from hypothesis import HealthCheck, example, given, settings, strategies as st
from textual.app import App, ComposeResult

from playground.tui.widgets.vtable import Column, VirtualTable, natural_text_key

EXAMPLES = int(os.environ.get("HYPOTHESIS_EXAMPLES", "20"))


class StableSource:
    """A source whose match text changes only with its row (the table may keep the texts)."""

    stable_match_text = True

    def __init__(self) -> None:
        self.values: dict[str, str] = {}

    def readable(self) -> bool:
        return True

    def sort_key(self, key):
        return key

    def cells(self, key):
        return [key, self.values.get(key, "")]

    def match_text(self, key):
        return f"{key} {self.values.get(key, '')}"


class TableApp(App):
    def __init__(self, source) -> None:
        super().__init__()
        self.source = source

    def compose(self) -> ComposeResult:
        yield VirtualTable([Column("name", "NAME", 8, 20), Column("value", "VALUE", 10, 40, flex=True)],
                           self.source, id="t")


names = st.text("abc", min_size=1, max_size=3)
values = st.sampled_from(["Running", "Pending", "Terminating", "zone-a", "zone-b", "A-B"])
ops = st.lists(st.one_of(
    st.tuples(st.just("add"), st.lists(st.tuples(names, values), max_size=80)),
    st.tuples(st.just("change"), st.lists(st.tuples(names, values), max_size=10)),
    st.tuples(st.just("remove"), st.lists(names, max_size=10)),
    st.tuples(st.just("filter"), st.sampled_from(["", "a", "ab", "abc", "b", "run", "running", "!a", "!ab",
                                                   "zone", "zone-b", "a-b", "!"])),
    st.tuples(st.just("cursor"), st.integers(0, 50)),
    st.tuples(st.just("sort"), st.sampled_from([None, ("name", False), ("name", True), ("value", False),
                                                 ("value", True)])),
), max_size=25)


def expected(source: StableSource, needle: str, sort=None) -> list[str]:
    negate = needle.startswith("!")
    text = needle[1:] if negate else needle
    keys = sorted(k for k in source.values
                  if not text or (text in source.match_text(k).lower()) != negate)
    if sort is not None:
        column, descending = sort
        # Python's sort is stable, also reversed: equal values keep the keys' ascending order.
        keys.sort(key=lambda k: natural_text_key(k if column == "name" else source.values[k]), reverse=descending)
    return keys


async def play(plan) -> None:
    source = StableSource()
    app = TableApp(source)
    async with app.run_test(size=(60, 12)):
        table = app.query_one(VirtualTable)
        needle = ""
        sort = None
        for kind, arg in plan:
            if kind in ("add", "change"):
                changed = []
                for key, value in arg:
                    if kind == "change" and key not in source.values:
                        continue
                    source.values[key] = value
                    changed.append(key)
                table.upsert(changed)
            elif kind == "remove":
                gone = [k for k in dict.fromkeys(arg) if k in source.values]
                for key in gone:
                    del source.values[key]
                table.remove(gone)
            elif kind == "filter":
                table.set_filter(arg)
                needle = arg
            elif kind == "sort":
                table.sort_by(*arg) if arg else table.sort_by(None)
                sort = arg
            else:
                table.move_cursor(arg)
            want = expected(source, needle, sort)
            assert table.keys() == want
            assert table.row_count == len(want) and table.total_count == len(source.values)
            assert table.cursor_key in (want or [None])
            for key in list(source.values)[:5]:
                assert table.is_shown(key) == (key in want)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops)
# a row changed without a change of its text keeps its entry; one whose text changed is filtered anew
@example([("add", [("a", "Running"), ("b", "Pending")]), ("filter", "run"), ("change", [("a", "Running")]),
          ("change", [("b", "Running")]), ("change", [("a", "Pending")]), ("filter", "")])
def test_filter_and_sort_with_kept_texts_equal_a_full_refilter_and_resort(plan):
    asyncio.run(play(plan))


async def play_large(seed: int, count: int, sort) -> None:
    """Many rows (several of the sorted rows' blocks), added in a random order and some changed, so
    that the texts by key lie in another order than the rows: filters that keep few rows (found in
    the texts, then ordered), many, or none."""
    import random

    rng = random.Random(seed)
    source = StableSource()
    app = TableApp(source)
    async with app.run_test(size=(60, 12)):
        table = app.query_one(VirtualTable)
        if sort is not None:
            table.sort_by(*sort)
        keys = [f"p-{i:04d}" for i in range(count)]
        rng.shuffle(keys)
        for start in range(0, count, 250):
            for key in keys[start:start + 250]:
                source.values[key] = rng.choice(["Running"] * 30 + ["Pending", "zone-a"])
            table.upsert(keys[start:start + 250])
        changed = rng.sample(keys, count // 10)
        for key in changed:
            source.values[key] = rng.choice(["Running", "Pending", "Terminating"])
        table.upsert(changed)
        for needle in ["pending", "p-00", "zone-a", "running", "p-01", "nothing", "", "p-1"]:
            table.set_filter(needle)
            assert table.keys() == expected(source, needle, sort)


@settings(max_examples=max(5, EXAMPLES // 2), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32), st.sampled_from([600, 1500, 3000]),
       st.sampled_from([None, ("name", False), ("name", True), ("value", False), ("value", True)]))
def test_a_filter_of_few_rows_of_many_equals_a_full_refilter(seed, count, sort):
    asyncio.run(play_large(seed, count, sort))
