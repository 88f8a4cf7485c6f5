"""SortedRows (a table's rows kept in blocks) against the plain computation: a Python list kept
sorted, with every operation the table makes of it. Small blocks make every insert split one and
removals empty them."""

from __future__ import annotations

from bisect import bisect_left

import pytest
from hypothesis import given, settings, strategies as st

from playground.tui.widgets.sortedrows import SortedRows

KEYS = st.integers(0, 80).map(lambda n: f"ns/pod-{n}")
ROW = st.tuples(st.integers(0, 5), KEYS, st.sampled_from(["", "a", "b"]))

OPERATIONS = st.one_of(
    st.tuples(st.just("insert"), st.lists(ROW, max_size=12)),
    st.tuples(st.just("remove"), st.lists(ROW, max_size=12)),
    st.tuples(st.just("set"), st.integers(0, 200), st.sampled_from(["", "x", "y"])),
    st.tuples(st.just("replace"), st.lists(st.tuples(KEYS, st.sampled_from(["", "z"])), max_size=10)),
)


def plain_insert(rows: list[tuple], new: list[tuple]) -> None:
    for row in new:
        rows.insert(bisect_left(rows, row), row)


def plain_remove(rows: list[tuple], gone: list[tuple]) -> None:
    for row in gone:
        index = bisect_left(rows, (row[0], row[1]))
        if index < len(rows) and rows[index][1] == row[1]:
            del rows[index]


def check_reads(rows: SortedRows, plain: list[tuple], probes: list[tuple]) -> None:
    assert len(rows) == len(plain)
    assert list(rows) == plain and rows == plain and plain == rows
    for index in range(-len(plain), len(plain)):
        assert rows[index] == plain[index]
    for start in range(0, len(plain) + 2, 3):
        for stop in (start, start + 1, start + 7, len(plain) + 5):
            assert rows[start:stop] == plain[start:stop]
    for probe in probes:
        assert rows.bisect_left(probe) == bisect_left(plain, probe)
        index = bisect_left(plain, (probe[0], probe[1]))
        found = index if index < len(plain) and plain[index][1] == probe[1] else None
        assert rows.find(probe[0], probe[1]) == found
    with pytest.raises(IndexError):
        rows[len(plain)]


@settings(max_examples=400, deadline=None)
@given(st.lists(ROW, max_size=40), st.lists(OPERATIONS, max_size=12), st.sampled_from([1, 2, 3, 512]),
       st.lists(ROW, min_size=1, max_size=6))
def test_sorted_rows_read_and_change_as_a_sorted_list_does(start, operations, block, probes):
    unique = {}
    for row in start:  # a table holds a key once
        unique.setdefault(row[1], row)
    plain = sorted(unique.values())
    rows = SortedRows(plain, block)
    check_reads(rows, plain, probes)
    for operation in operations:
        kind = operation[0]
        if kind == "insert":
            new = [row for row in dict((row[1], row) for row in operation[1]).values()
                   if all(row[1] != other[1] for other in plain)]
            plain_insert(plain, new)
            rows.insert(new)
        elif kind == "remove":
            plain_remove(plain, operation[1])
            rows.remove(operation[1])
        elif kind == "set" and plain:
            index = operation[1] % len(plain)
            row = (*plain[index][:2], operation[2])
            plain[index] = row
            rows[index] = row
        elif kind == "replace":
            by_key = {row[1]: row for row in plain}
            new = {key: (*by_key[key][:2], text) for key, text in operation[1] if key in by_key}
            plain[:] = [new.get(row[1], row) for row in plain]
            rows.replace(new)
        check_reads(rows, plain, probes)
