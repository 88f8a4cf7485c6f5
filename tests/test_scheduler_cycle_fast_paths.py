"""Fast paths of the scheduling cycle against plain code: findNodesThatPassFilters' round-robin
window on the node columns (`feasible_window`, with its slice fast path for a run of feasible rows)
against a walk over the nodes; BalancedAllocation's two-resource branch against the loop over
resources it short-cuts."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from playground.engine.scheduler import feasible_window
from playground.engine.scheduler.plugins import MAX_NODE_SCORE, balanced_score


def window_reference(feasible: list[bool], start: int, to_find: int) -> tuple[list[int], int]:
    """The plain loop: visit nodes from `start`, wrapping, until `to_find` fit or all were seen."""
    rows, processed = [], 0
    for i in range(len(feasible)):
        row = (start + i) % len(feasible)
        processed += 1
        if feasible[row]:
            rows.append(row)
            if len(rows) == to_find:
                break
    return rows, processed


@settings(max_examples=300, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=80), st.data())
def test_window_matches_the_plain_walk(feasible, data):
    start = data.draw(st.integers(0, len(feasible) - 1))
    to_find = data.draw(st.integers(1, len(feasible)))
    rows, processed = feasible_window(np.array(feasible, dtype=bool), start, to_find)
    assert (rows.tolist(), processed) == window_reference(feasible, start, to_find)


def test_all_feasible_window_is_the_next_rows_and_read_only():
    rows, processed = feasible_window(np.ones(5000, dtype=bool), 4200, 500)
    assert rows.tolist() == list(range(4200, 4700)) and processed == 500
    assert not rows.flags.writeable  # a view of the shared range: no caller may write into it
    rows, processed = feasible_window(np.ones(5000, dtype=bool), 4700, 500)  # wraps: the general path
    assert rows.tolist() == list(range(4700, 5000)) + list(range(200)) and processed == 500


def test_one_rejected_row_in_the_window_extends_it():
    feasible = np.ones(1000, dtype=bool)
    feasible[10] = False
    rows, processed = feasible_window(feasible, 0, 100)
    assert rows.tolist() == list(range(10)) + list(range(11, 101)) and processed == 101


def balanced_reference(cpu_requested: int, cpu_allocatable: int, mem_requested: int, mem_allocatable: int) -> int:
    """balancedResourceScorer: the fractions of the resources with allocatable > 0, capped at 1."""
    fractions = [min(requested / allocatable, 1.0)
                 for requested, allocatable in ((cpu_requested, cpu_allocatable), (mem_requested, mem_allocatable))
                 if allocatable != 0]
    std = abs(fractions[0] - fractions[1]) / 2 if len(fractions) == 2 else 0.0
    return int((1 - std) * MAX_NODE_SCORE)


@settings(max_examples=2000, deadline=None)
@given(st.integers(0, 10**6), st.integers(0, 10**6), st.integers(0, 2**40), st.integers(0, 2**40))
def test_balanced_allocation_matches_the_loop_over_resources(cpu, cpu_alloc, memory, memory_alloc):
    assert balanced_score(cpu, cpu_alloc, memory, memory_alloc) == balanced_reference(cpu, cpu_alloc, memory,
                                                                                      memory_alloc)
