"""copies.copy_each (engine/_copies.c): copies of one slotted object with a few fields changed are
the objects their constructor makes, and the batches built from them (a ReplicaSet's pods, their
queue entries) equal the ones built one object at a time."""

from __future__ import annotations

import dataclasses
import random

import pytest

from playground.engine.copies import copy_each
from playground.engine.objects import NO_CONDITIONS, OwnerRef, Pod
from playground.engine.scheduler.queue import QueuedPodInfo, SchedulingQueue

compiled = pytest.mark.skipif(copy_each is None, reason="the compiled copies are not built")


def slots(obj) -> dict:
    return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}


def test_the_compiled_copies_are_built() -> None:
    """`pip install -e .` builds it (setup.py); without it each object is constructed (the same, slower)."""
    assert copy_each is not None


@compiled
def test_a_copy_holds_the_originals_references_and_its_own_fields() -> None:
    labels = {"app": "web"}
    original = Pod("web-aaaaa", "default", 7, labels, 1000, owner=OwnerRef("ReplicaSet", "web"),
                   conditions=NO_CONDITIONS)
    copies = copy_each(original, ("name", "uid", "key"), (["web-b", "web-c"], range(8, 10), ["default/web-b", "default/web-c"]))
    for copy, name, uid in zip(copies, ("web-b", "web-c"), (8, 9)):
        made = Pod(name, "default", uid, labels, 1000, owner=original.owner, conditions=NO_CONDITIONS)
        assert slots(copy) == slots(made)
        assert copy.labels is labels and copy.owner is original.owner and copy is not original
    assert slots(original)["name"] == "web-aaaaa"  # the original is left as it was


@compiled
def test_copy_each_refuses_what_it_cannot_copy() -> None:
    class Plain:
        pass

    with pytest.raises(TypeError):
        copy_each(Plain(), ("x",), ([1],))
    info = QueuedPodInfo("a", 0, 0)
    with pytest.raises(ValueError):
        copy_each(info, ("key", "token"), (["a", "b"], [1]))
    with pytest.raises(AttributeError):
        copy_each(info, ("no_such_field",), ([1],))


@pytest.mark.parametrize("seed", range(20))
@compiled
def test_a_queue_batch_of_copies_equals_one_add_after_another(seed, monkeypatch) -> None:
    rng = random.Random(seed)
    count = rng.randint(2, 60)
    keys = [f"ns/p{i}" for i in rng.sample(range(1000), count)]
    priority = rng.choice((0, 10, -5))
    plain, fast = SchedulingQueue(), SchedulingQueue()
    for queue in (plain, fast):
        queue.add("ns/first", 3, 0)
    for key in keys:
        plain.add(key, priority, 500)
    fast.add_many(keys, [priority] * count, 500)
    assert {k: slots(v) for k, v in fast.infos.items()} == {k: slots(v) for k, v in plain.infos.items()}
    popped = [[(q.pop().key) for _ in range(count + 1)] for q in (plain, fast)]
    assert popped[0] == popped[1]


@pytest.mark.parametrize("name", ["zone-outage", "rollout-stuck", "preemption-full-cluster", "spread-zone-outage"])
@compiled
def test_a_scenario_runs_the_same_with_copies_and_without(name, monkeypatch) -> None:
    """The open and ten simulated minutes of a shipped scenario: every pod and queue entry the same,
    field by field, whether the batches are copies or constructed one by one."""
    from pathlib import Path

    from playground.engine import Simulation
    from playground.engine import kubelet, workloads
    from playground.engine.scheduler import queue
    from playground.scenario import load_scenario

    path = Path(__file__).resolve().parent.parent / "scenarios" / f"{name}.toml"

    def run() -> tuple:
        sim = Simulation(load_scenario(path))
        sim.run_until(600)
        pods = {key: slots(pod) for key, pod in sim.store.pods.items()}
        infos = {key: slots(info) for key, info in sim.scheduler.queue.infos.items()}
        containers = {(name, key): slots(container) for name, kubelet in sim.kubelets.items()
                      for key, container in kubelet.containers.items()}
        events = [repr(e) for e in sim.store.recorder.events]
        return pods, infos, containers, events

    fast = run()
    assert fast[2]  # the kubelets run containers (made as copies)
    monkeypatch.setattr(workloads, "copy_each", None)
    monkeypatch.setattr(queue, "copy_each", None)
    monkeypatch.setattr(kubelet, "copy_each", None)
    assert run() == fast


@compiled
def test_the_containers_of_a_run_are_the_ones_their_constructor_makes(monkeypatch) -> None:
    """A run's pods start together (kubelet._start_admitted) in containers copied from one: each has
    its own pod's key, uid, grace period and stop duration, and every other field as constructed."""
    from playground.engine import Simulation, kubelet
    from playground.scenario import Scenario

    scenario = Scenario.model_validate({
        "scenario": {"name": "copies", "seed": 3},
        # (runs from 256 nodes, in zones: the system defaults' spread pair)
        "nodePools": [{"namePrefix": f"{zone}-", "count": 150, "labels": {"topology.kubernetes.io/zone": zone},
                       "capacity": {"cpu": "8", "memory": "16Gi", "pods": 110}} for zone in ("a", "b")],
        "deployments": [
            {"name": "web", "replicas": 40, "template": {
                "labels": {"app": "web"}, "requests": {"cpu": "100m"}, "terminationGracePeriodSeconds": 45,
                "stopDuration": "3s"}},
            {"name": "api", "replicas": 25, "template": {"labels": {"app": "api"}, "requests": {"memory": "64Mi"}}},
        ],
    })
    copied = []
    real = kubelet._new_containers
    monkeypatch.setattr(kubelet, "_new_containers", lambda pods: copied.extend(pods) or real(pods))

    def containers() -> dict:
        sim = Simulation(scenario)
        sim.run_until(30)
        return {(name, key): slots(container) for name, k in sim.kubelets.items()
                for key, container in k.containers.items()}

    fast = containers()
    assert len(copied) == 65 and len(fast) == 65
    assert {c["grace_seconds"] for c in fast.values()} == {45, 30}
    monkeypatch.setattr(kubelet, "copy_each", None)
    assert containers() == fast
