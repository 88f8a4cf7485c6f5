"""binds (engine/_binds.c): the compiled per-pod loops of a run bound together and of its
containers' starts do what their plain Python (binds.PLAIN) does: the same answers, the same
objects written in the same way, the same callbacks asked in the same order, on random inputs; and a
whole simulation with the plain loops leaves the same `sim --json` document as with the compiled
ones. (tests/test_bind_together.py compares the run's binds, through these loops, with one bind
after another; tests/test_controller_fast_paths.py the batched starts with a timer per start.)
HYPOTHESIS_EXAMPLES raises the number of random examples for a longer run."""

from __future__ import annotations

import copy
import json
import os
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import apply_operation
from test_bind_together import binding, operations, random_cluster

from playground.engine import Simulation, binds
from playground.engine.kubelet import Container, Kubelet
from playground.engine.objects import Condition, Node, OwnerRef, Pod
from playground.engine.report import snapshot
from playground.scenario import load_scenario, parse_scenario

EXAMPLES = int(os.environ.get("HYPOTHESIS_EXAMPLES", "40"))
SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"
NAMES = ["n-0", "n-1", "n-2", "n-3", None, ""]
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])

compiled = pytest.mark.skipif(not binds.COMPILED, reason="the compiled binds are not built")


def test_the_compiled_binds_are_built() -> None:
    """`pip install -e .` builds it (setup.py); without it the plain loops run (the same, slower)."""
    assert binds.COMPILED


def pod(i: int, node_name, cpu: int = 0, memory: int = 0, claims=(), start_duration: int = 1000) -> Pod:
    made = Pod(f"p-{i}", "default", 100 + i, {"app": "a"}, 0, cpu=cpu, memory=memory, node_name=node_name,
               volume_claims=claims, start_duration=start_duration)
    return made


def both(name: str, make_inputs, call):
    """`call(function, inputs)` with the plain and with the compiled function, each on its own
    deep copy of `make_inputs()`: (answer, inputs after) for each, or the exception's type."""
    results = []
    for function in (binds.PLAIN[name], getattr(binds._binds, name)):
        inputs = copy.deepcopy(make_inputs())
        try:
            answer = call(function, inputs)
        except Exception as error:  # noqa: BLE001 (both must fail alike)
            answer = type(error)
        results.append((answer, inputs))
    return results


# ---------------------------------------------------------------- account_bound

node_totals = st.tuples(*(st.integers(0, 5000) for _ in range(5)))


@compiled
@SETTINGS
@given(st.lists(st.tuples(st.sampled_from(NAMES), st.integers(0, 2000), st.integers(0, 2**33)), max_size=40),
       st.dictionaries(st.sampled_from(NAMES[:4]), node_totals, max_size=4),
       st.sets(st.sampled_from(NAMES), max_size=3))
def test_account_bound_as_plain(pods, nodes, listed):
    def make_inputs():
        made = [pod(i, name, cpu, memory) for i, (name, cpu, memory) in enumerate(pods)]
        node_objects = {name: Node(name, 1, {}, 0, 0, 0, 0, 0, 0, 0, requested_cpu=t[0], requested_memory=t[1],
                                   nonzero_cpu=t[2], nonzero_memory=t[3], pod_count=t[4])
                        for name, t in nodes.items()}
        by_node = {name: {"default/other": None} for name in listed}
        return made, by_node, node_objects

    def call(function, inputs):
        made, by_node, node_objects = inputs
        return [node.name for node in function(made, by_node, node_objects, 100, 200 * 2**20)]

    (plain, (_, by_plain, nodes_plain)), (ours, (_, by_ours, nodes_ours)) = both("account_bound", make_inputs, call)
    assert plain == ours
    assert {n: list(listed) for n, listed in by_plain.items()} == {n: list(listed) for n, listed in by_ours.items()}
    assert list(by_plain) == list(by_ours)
    assert nodes_plain == nodes_ours


# ---------------------------------------------------------------- admit_all

class FakeKubelet:
    """What the loops read of a kubelet: its node name, its containers, whether it can write, its
    shutdown."""

    def __init__(self, node_name: str, containers: dict, signalling: bool = True, shutdown=None) -> None:
        self.node_name, self.containers, self.shutdown = node_name, containers, shutdown
        self._signalling = signalling
        self.asked = 0

    @property
    def signalling(self) -> bool:
        self.asked += 1
        return self._signalling


kubelet_states = st.sampled_from(["writes", "quiet", "shutting down", "missing"])
# (pods, cpu, memory) requested against allocatable (4, 4000, 4000): some over
totals = st.tuples(st.integers(3, 5), st.integers(3900, 4100), st.integers(3900, 4100))


@compiled
@SETTINGS
@given(st.lists(st.tuples(st.sampled_from(NAMES), st.booleans(), st.booleans()), max_size=30),
       st.dictionaries(st.sampled_from(["n-0", "n-1", "n-2", "n-3", ""]), kubelet_states),
       st.dictionaries(st.sampled_from(["n-0", "n-1", "n-2", "n-3"]), totals))
def test_admit_all_as_plain(pods, kubelet_states, node_totals):
    results = []
    for function in (binds.PLAIN["admit_all"], binds._binds.admit_all):
        kubelets = {name: FakeKubelet(name, {}, state != "quiet", object() if state == "shutting down" else None)
                    for name, state in kubelet_states.items() if state != "missing"}
        nodes = {name: Node(name, 1, {}, 0, 0, 0, 4000, 4000, 4, 0, requested_cpu=cpu, requested_memory=memory,
                            pod_count=count)
                 for name, (count, cpu, memory) in node_totals.items()}
        made = [pod(i, name, claims=("data",) if claims else ()) for i, (name, claims, _held) in enumerate(pods)]
        for p, (name, _claims, held) in zip(made, pods):
            if held and (name or "") in kubelets:
                kubelets[name or ""].containers[p.key] = "held"
        admitted = function(made, kubelets, nodes)
        results.append((None if admitted is None else [(k.node_name, p.key) for k, p in admitted],
                        {name: k.asked for name, k in kubelets.items()}))
    (plain, plain_asked), (compiled_admitted, compiled_asked) = results
    assert plain == compiled_admitted
    asked_nodes = {name or "" for name, _claims, _held in pods}
    assert all(asked <= 1 for asked in [*plain_asked.values(), *compiled_asked.values()])
    if plain is not None:  # every node of a pod asked once (None: the compiled loop, in kubelet order, asks others first)
        assert plain_asked == compiled_asked == {name: int(name in asked_nodes) for name in plain_asked}


@compiled
def test_admit_all_passes_on_what_a_kubelet_raises():
    class Broken(FakeKubelet):
        @property
        def signalling(self) -> bool:
            raise KeyError(self.node_name)

    for function in (binds.PLAIN["admit_all"], binds._binds.admit_all):
        with pytest.raises(KeyError):
            function([pod(0, "n-0")], {"n-0": Broken("n-0", {})}, {})


@compiled
@SETTINGS
@given(totals)
def test_totals_fit_as_the_kubelet_reads_them(total):
    count, cpu, memory = total
    node = Node("n-0", 1, {}, 0, 0, 0, 4000, 4000, 4, 0, requested_cpu=cpu, requested_memory=memory, pod_count=count)
    kubelet = FakeKubelet("n-0", {})
    admitted = binds._binds.admit_all([pod(0, "n-0")], {"n-0": kubelet}, {"n-0": node})
    assert (admitted is not None) == Kubelet.totals_fit(node) == (count <= 4 and cpu <= 4000 and memory <= 4000)


# ---------------------------------------------------------------- add_containers

class FakeStarts:
    """ContainerStarts' add and open_batch, with a timer set between two adds where `between` says."""

    def __init__(self, between: set[int]) -> None:
        self.batches: dict[int, list] = {}
        self.open = None
        self.open_due = None
        self.calls = 0
        self.between = between
        self.log: list = []

    def add(self, node_name, container, due):
        self.calls += 1
        self.log.append(("add", node_name, container.pod_key, due))
        if self.open is None or self.open_due != due or self.calls in self.between:
            self.open, self.open_due = len(self.batches) + 1, due
            self.batches[self.open] = []
        self.batches[self.open].append((node_name, container.pod_key))
        container.timer = -self.open

    def open_batch(self):
        self.log.append(("open_batch",))
        return self.batches[self.open]


@compiled
@SETTINGS
@given(st.lists(st.tuples(st.sampled_from(NAMES[:4]), st.sampled_from([0, 1000, 3000])), max_size=30),
       st.sets(st.integers(1, 30), max_size=5))
def test_add_containers_as_plain(pods, between):
    results = []
    for function in (binds.PLAIN["add_containers"], binds._binds.add_containers):
        kubelets = {name: FakeKubelet(name, {}) for name in NAMES[:4]}
        made = [pod(i, name, start_duration=duration) for i, (name, duration) in enumerate(pods)]
        admitted = [(kubelets[p.node_name], p) for p in made]
        containers = [Container(p.key, p.uid) for p in made]
        starts = FakeStarts(between)
        function(admitted, containers, 5000, starts.add, starts.open_batch)
        results.append((starts.batches, starts.log, [c.timer for c in containers],
                        {name: {key: c.pod_key for key, c in k.containers.items()} for name, k in kubelets.items()}))
    assert results[0] == results[1]


@compiled
def test_add_containers_wants_a_container_for_each_pod():
    kubelet = FakeKubelet("n-0", {})
    p = pod(0, "n-0")
    with pytest.raises(ValueError):
        binds._binds.add_containers([(kubelet, p)], [], 0, print, list)
    with pytest.raises(ValueError):
        binds.PLAIN["add_containers"]([(kubelet, p)], [], 0, print, list)


# ---------------------------------------------------------------- index_replicaset_pods

OWNERS = [None, ("ReplicaSet", "r-0"), ("ReplicaSet", "r-1"), ("ReplicaSet", "r-2"), ("DaemonSet", "d-0")]
CONDITION_SETS = [{}, {"Ready": ("True",)}, {"Ready": ("False",)}, {"PodScheduled": ("True",)}]


@compiled
@pytest.mark.parametrize("what", ["added", "phase", "condition", "deleting", "removed"])
@SETTINGS
@given(st.lists(st.tuples(st.integers(0, len(OWNERS) - 1), st.sampled_from(["Pending", "Running", "Succeeded", "Failed"]),
                          st.booleans(), st.integers(0, len(CONDITION_SETS) - 1), st.integers(0, 5)), max_size=30),
       st.sets(st.sampled_from(["r-0", "r-1", "r-2"])),
       st.dictionaries(st.sampled_from(["r-0", "r-1", "r-2"]), st.tuples(st.sets(st.integers(0, 5)),
                                                                         st.sets(st.integers(0, 5)))))
def test_index_replicaset_pods_as_plain(what, states, known, before):
    results = []
    for function in (binds.PLAIN["index_replicaset_pods"], binds._binds.index_replicaset_pods):
        owners = [None if o is None else OwnerRef(*o) for o in OWNERS]
        conditions = [{t: Condition(t, *rest) for t, rest in c.items()} for c in CONDITION_SETS]
        made = []
        for owner, phase, deleting, held, number in states:
            p = pod(number, "n-0")  # (the same number: the same key and uid, a pod told twice)
            p.owner, p.phase, p.conditions = owners[owner], phase, conditions[held]
            p.deletion_timestamp = 1000 if deleting else None
            made.append(p)
        replicasets = {name: f"rs {name}" for name in known}
        # (the controller makes a ReplicaSet's two indexes together)
        actives = {name: {f"default/p-{i}": None for i in sorted(keys)} for name, (keys, _uids) in before.items()}
        readies = {name: {100 + i: None for i in sorted(uids)} for name, (_keys, uids) in before.items()}
        told, marked = [], []
        function(what, made, replicasets, actives, readies, lambda w, p: told.append((w, p.key)), marked.append,
                 ("Succeeded", "Failed", "True"))
        results.append(({name: [(key, p is None) for key, p in index.items()] for name, index in actives.items()},
                        {name: [(uid, p is None) for uid, p in index.items()] for name, index in readies.items()},
                        told, marked))
    assert results[0] == results[1]


# ---------------------------------------------------------------- start_batch

@compiled
@SETTINGS
@given(st.lists(st.tuples(st.sampled_from(NAMES[:4]), st.integers(0, 12)), max_size=30),
       st.dictionaries(st.sampled_from(NAMES[:4]), st.sampled_from(["writes", "quiet", "gone"])),
       st.lists(st.sampled_from(["due", "other", "none", "missing"]), min_size=13, max_size=13),
       st.lists(st.sampled_from(["same", "other uid", "gone"]), min_size=13, max_size=13))
def test_start_batch_as_plain(batch, machines, containers, pods):
    number = 7
    results = []
    for function in (binds.PLAIN["start_batch"], binds._binds.start_batch):
        held = {name: {} for name in NAMES[:4]}
        store_pods = {}
        for i, (container, pod_state) in enumerate(zip(containers, pods)):
            key = f"default/p-{i}"
            if container != "missing":
                timer = {"due": -number, "other": -3, "none": None}[container]
                for name in NAMES[:4]:
                    held[name][key] = Container(key, 100 + i, timer=timer)
            if pod_state != "gone":
                store_pods[key] = pod(i, "n-0")
                if pod_state == "other uid":
                    store_pods[key].uid += 1000
        asked = []

        def machine_of(name):
            asked.append(name)
            state = machines.get(name, "writes")
            return ({}, False) if state == "gone" else (held[name], state == "writes")

        entries = [(name, f"default/p-{i}") for name, i in batch]
        running = function(entries, machine_of, store_pods, number)
        results.append(([p.key for p in running], asked,
                        {name: {k: (c.timer, c.started) for k, c in cs.items()} for name, cs in held.items()}))
    assert results[0] == results[1]


# ---------------------------------------------------------------- take_run

@compiled
@SETTINGS
@given(st.lists(st.tuples(st.integers(0, 11), st.sampled_from(["live", "stale token", "not active", "no info"])),
                max_size=30),
       st.lists(st.sampled_from(["same", "other labels", "other field", "no pod"]), min_size=12, max_size=12),
       st.integers(0, 35))
def test_take_run_as_plain(entries, pod_states, limit):
    from collections import deque

    from playground.engine.scheduler.equivalence import RUN_FIELDS, run_key
    from playground.engine.scheduler.queue import ACTIVE, IN_FLIGHT, QueuedPodInfo

    results = []
    for function in (binds.PLAIN["take_run"], binds._binds.take_run):
        labels = {"app": "a"}
        first = Pod("first", "default", 1, labels, 0)
        infos, pods, run = {}, {}, deque()
        for token, (i, state) in enumerate(entries):
            key = f"default/p-{i}"
            if state != "no info":
                infos[key] = QueuedPodInfo(key, 0, 0, None, 0, ACTIVE if state != "not active" else "backoff",
                                           token + (state == "stale token"))
            run.append((token, key))
        for i, state in enumerate(pod_states):
            if state != "no pod":
                made = Pod(f"p-{i}", "default", 10 + i, labels if state != "other labels" else {"app": "a"}, 0,
                           cpu=100 if state == "other field" else 0)
                pods[made.key] = made
        taken, pending = function(run, infos, pods, limit, labels, RUN_FIELDS, run_key(first), ACTIVE, IN_FLIGHT)
        results.append(([(p.key, i.key) for p, i in taken], None if pending is None else pending.key, list(run),
                        {k: (i.where, i.attempts) for k, i in infos.items()}))
    assert results[0] == results[1]


@compiled
def test_take_run_compares_a_field_of_any_class():
    """A class whose fields are not plain slots is read through getattr, and compared alike."""
    from collections import deque

    from playground.engine.scheduler.queue import ACTIVE, IN_FLIGHT, QueuedPodInfo

    class Plain:
        def __init__(self, key, labels, cpu):
            self.key, self.labels, self.cpu = key, labels, cpu

    labels = {"app": "a"}
    for function in (binds.PLAIN["take_run"], binds._binds.take_run):
        infos = {f"k{i}": QueuedPodInfo(f"k{i}", 0, 0, None, 0, ACTIVE, i) for i in range(3)}
        pods = {"k0": Plain("k0", labels, 1), "k1": Plain("k1", labels, 1), "k2": Plain("k2", labels, 2)}
        taken, pending = function(deque((i, f"k{i}") for i in range(3)), infos, pods, 10, labels, ("cpu",), (1,),
                                  ACTIVE, IN_FLIGHT)
        assert [p.key for p, _ in taken] == ["k0", "k1"] and pending.key == "k2"
        assert [i.where for i in infos.values()] == [IN_FLIGHT] * 3


# ---------------------------------------------------------------- whole simulations

@contextmanager
def plain_binds():
    saved = {name: getattr(binds, name) for name in binds.PLAIN}
    for name, function in binds.PLAIN.items():
        setattr(binds, name, function)
    try:
        yield
    finally:
        for name, function in saved.items():
            setattr(binds, name, function)


def document(scenario, plan=(), until: float = 240) -> str:
    with binding(True):  # runs from two pods: the binds of a run go through the loops
        sim = Simulation(scenario)
        for delay, operation in plan:
            sim.run_until(sim.clock.now / 1000 + delay)
            apply_operation(sim, operation)
        sim.run_until(max(until, sim.clock.now / 1000 + 120))
    return json.dumps(snapshot(sim), indent=1)


@compiled
@SETTINGS
@given(st.integers(0, 10_000), operations)
def test_a_simulation_with_the_plain_loops_is_the_same(seed, plan):
    """Random clusters where nodes shut down, power off, restart their kubelet and drain while
    Deployments (some under budgets) and a StatefulSet with volumes scale (test_bind_together's)."""
    scenario = parse_scenario(random_cluster(seed))
    ours = document(scenario, plan)
    with plain_binds():
        assert document(scenario, plan) == ours


@compiled
def test_the_zone_outage_with_the_plain_loops_is_the_same():
    scenario = load_scenario(SCENARIOS / "zone-outage.toml")
    plan = [(30, ("shutdown", 0)), (20, ("scale", ("web", 9))), (40, ("power-off", 1)), (60, ("power-on", 1)),
            (5, ("restart-kubelet", 2))]
    ours = document(scenario, plan, until=900)
    with plain_binds():
        assert document(scenario, plan, until=900) == ours
