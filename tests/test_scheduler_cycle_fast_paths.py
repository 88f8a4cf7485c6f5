"""Fast paths of the scheduling cycle against plain code: findNodesThatPassFilters' round-robin
window on the node columns (`feasible_window`, with its slice fast path for a run of feasible rows)
against a walk over the nodes; BalancedAllocation's two-resource branch against the loop over
resources it short-cuts."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from conftest import make_sim

from playground.engine.scheduler import Scheduler, feasible_window
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


def tainted_zone_cluster() -> str:
    """Three zones of 50 nodes, one of them tainted NoSchedule (a row in three of every window is
    rejected), 400 pods of a Deployment and, once they run, a pod that fits nowhere."""
    pools = "".join(f"""
[[nodePools]]
namePrefix = "z{z}-"
count = 50
labels = {{ "topology.kubernetes.io/zone" = "z{z}" }}
capacity = {{ cpu = "4", memory = "16Gi", pods = 20 }}
{'taints = ["example.com/down:NoSchedule"]' if z == 0 else ''}
""" for z in range(3))
    return pools + """
[[deployments]]
name = "web"
replicas = 400
template = { labels = { app = "web" }, requests = { cpu = "100m", memory = "128Mi" } }

[[pods]]
name = "huge"
requests = { cpu = "64", memory = "1Gi" }
at = "30s"
"""


def test_a_cycle_that_binds_records_no_rejected_nodes(monkeypatch):
    """A cycle that binds drops its Diagnosis unread, so the columnar cycle records the rejected
    nodes' statuses only when no node fits. Every event, binding and message (the FitError of the
    pod that fits nowhere) is the same as when every cycle records them. (The numpy cycle: the
    compiled one records nothing either way, and a cycle that fits nowhere goes to the numpy one.)"""
    monkeypatch.setattr(Scheduler, "compiled_cycle", False)
    recorded = []
    original = Scheduler._record_rejected

    def counting(self, diagnosis, pod, *args, **kwargs):
        recorded.append(pod.name)
        return original(self, diagnosis, pod, *args, **kwargs)

    monkeypatch.setattr(Scheduler, "_record_rejected", counting)
    lazy = make_sim(tainted_zone_cluster())
    lazy.run_until_ms(60_000)
    lazy_recorded = list(recorded)
    recorded.clear()
    find_rows = Scheduler._find_rows
    monkeypatch.setattr(Scheduler, "_find_rows", lambda self, pod, order, diagnose=True: find_rows(self, pod, order))
    eager = make_sim(tainted_zone_cluster())
    eager.run_until_ms(60_000)

    assert [e.as_dict() for e in lazy.store.recorder.events] == [e.as_dict() for e in eager.store.recorder.events]
    assert {k: p.node_name for k, p in lazy.store.pods.items()} == {k: p.node_name for k, p in eager.store.pods.items()}
    assert lazy.rng.getstate() == eager.rng.getstate()
    assert set(lazy_recorded) == {"huge"}  # only the cycles that found no node
    assert len(recorded) > 400  # every bind of the Deployment's pods crossed the tainted zone's rows
    failed = [e for e in lazy.store.recorder.events if e.reason == "FailedScheduling"]
    assert failed and "50 node(s) had untolerated taint" in failed[0].message
