"""Runs of equivalent pods (scheduler/equivalence.py and its compiled loop, _placement.c) place every
pod where the ordinary cycle, one pod after another, places it: the same nodes, events, generator
state and next_start, on random clusters built to reach every branch of the loop (full nodes mid-run,
PreferNoSchedule taints, preferred node affinity, pods without requests, user spread constraints of
the system defaults' shape, taints and failures while pods are pending) and on every shipped
scenario, with runs allowed from two pods on one node."""

from __future__ import annotations

import json
import os
import random
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from conftest import make_sim, nodes_toml

from playground.engine import Operation, Simulation
from playground.engine import scheduler as scheduler_module
from playground.engine.objects import (RUNNING, LabelSelector, NodeSelectorTerm, OwnerRef, Pod, PodAffinityTerm,
                                       PreferredSchedulingTerm, Toleration, TopologySpreadConstraint,
                                       WeightedPodAffinityTerm)
from playground.engine.report import snapshot
from playground.engine.scheduler import equivalence, interpodaffinity
from playground.scenario import load_scenario, parse_scenario

# PLAYGROUND_EQUIVALENCE_SEEDS=400 for a longer run of the random clusters (the default suits CI).
SEEDS = int(os.environ.get("PLAYGROUND_EQUIVALENCE_SEEDS", "40"))
SCENARIOS = sorted((Path(__file__).resolve().parent.parent / "scenarios").glob("*.toml"))
ZONE = "topology.kubernetes.io/zone"


def test_the_compiled_loop_is_built() -> None:
    """`pip install -e .` builds it (setup.py); without it every pod takes the ordinary cycle."""
    assert equivalence.LOOP is not None


def random_cluster(seed: int) -> str:
    rng = random.Random(seed)
    out = [f'[scenario]\nname = "runs-{seed}"\nseed = {seed}\nduration = "3m"\n',
           '[[priorityClasses]]\nname = "high"\nvalue = 1000\n',
           '[[priorityClasses]]\nname = "top"\nvalue = 2000\n']
    names = []
    for p in range(rng.randint(2, 6)):
        count = rng.randint(2, 12)
        zone = f"zone-{rng.randint(0, 3)}"
        taint = rng.choice(['', '', '"spot=true:PreferNoSchedule"', '"dedicated=db:NoSchedule"',
                            '"noisy=yes:PreferNoSchedule", "other=x:PreferNoSchedule"']) if p else ''  # one plain pool
        cpu, memory = rng.choice([("2", "4Gi"), ("4", "16Gi"), ("8", "8Gi"), ("1", "64Gi")])
        out.append(f'[[nodePools]]\nnamePrefix = "p{p}-"\ncount = {count}\n'
                   f'labels = {{ "{ZONE}" = "{zone}", disk = "{rng.choice(["ssd", "hdd"])}" }}\n'
                   f'capacity = {{ cpu = "{cpu}", memory = "{memory}", pods = {rng.randint(3, 14)} }}\n'
                   f'taints = [{taint}]\nunschedulable = {"true" if p and rng.random() < 0.1 else "false"}\n')
        names += [f"p{p}-{i}" for i in range(1, count + 1)]
    # placed first (the highest priority) on the empty cluster: every cluster has a run
    out.append('[[deployments]]\nname = "first"\nreplicas = 6\n'
               'template = { priorityClassName = "top", labels = { app = "first" }, requests = { cpu = "50m" } }\n')
    for d in range(rng.randint(2, 6)):
        requests = rng.choice(['', 'requests = { cpu = "100m" }, ', 'requests = { memory = "256Mi" }, ',
                               'requests = { cpu = "250m", memory = "512Mi" }, ',
                               'requests = { cpu = "700m", memory = "3Gi" }, '])
        extra = rng.choice([
            '', '', 'tolerations = [{ key = "dedicated", operator = "Exists" }], ',
            'tolerations = [{ key = "spot", operator = "Exists", effect = "PreferNoSchedule" }], ',
            'nodeSelector = { disk = "ssd" }, ',
            'affinity = { nodeAffinity = { preferredDuringSchedulingIgnoredDuringExecution = [{ weight = 30, '
            'preference = { matchExpressions = [{ key = "disk", operator = "In", values = ["hdd"] }] } }] } }, ',
            f'topologySpreadConstraints = [{{ maxSkew = 2, topologyKey = "kubernetes.io/hostname", '
            f'whenUnsatisfiable = "ScheduleAnyway", labelSelector = {{ matchLabels = {{ app = "app-{d}" }} }} }}, '
            f'{{ maxSkew = 1, topologyKey = "{ZONE}", whenUnsatisfiable = "ScheduleAnyway", '
            f'labelSelector = {{ matchLabels = {{ app = "app-{d}" }} }} }}], ',
            # DoNotSchedule: the rows the constraint rejects leave the window (place_one, as _find_rows)
            f'topologySpreadConstraints = [{{ maxSkew = 1, topologyKey = "{ZONE}", whenUnsatisfiable = "DoNotSchedule", '
            f'labelSelector = {{ matchLabels = {{ app = "app-{d}" }} }} }}], ',
            f'topologySpreadConstraints = [{{ maxSkew = 1, topologyKey = "kubernetes.io/hostname", '
            f'whenUnsatisfiable = "DoNotSchedule", labelSelector = {{ matchLabels = {{ app = "app-{d}" }} }} }}], ',
            f'nodeSelector = {{ disk = "hdd" }}, topologySpreadConstraints = [{{ maxSkew = 2, '
            f'topologyKey = "kubernetes.io/hostname", whenUnsatisfiable = "DoNotSchedule", minDomains = 3, '
            f'labelSelector = {{ matchLabels = {{ app = "app-{d}" }} }} }}], ',
            # the zone DoNotSchedule + hostname ScheduleAnyway pair (HOST_ONLY's score beside the skew)
            f'topologySpreadConstraints = [{{ maxSkew = 1, topologyKey = "{ZONE}", whenUnsatisfiable = "DoNotSchedule", '
            f'labelSelector = {{ matchLabels = {{ app = "app-{d}" }} }} }}, {{ maxSkew = {rng.randint(1, 3)}, '
            f'topologyKey = "kubernetes.io/hostname", whenUnsatisfiable = "ScheduleAnyway", '
            f'labelSelector = {{ matchLabels = {{ app = "app-{d}" }} }} }}], ',
            # the system defaults' pair the other way round (ZONE_HOST: the terms added in the other order)
            f'topologySpreadConstraints = [{{ maxSkew = {rng.randint(1, 3)}, topologyKey = "{ZONE}", '
            f'whenUnsatisfiable = "ScheduleAnyway", labelSelector = {{ matchLabels = {{ app = "app-{d}" }} }} }}, '
            f'{{ maxSkew = 1, topologyKey = "kubernetes.io/hostname", whenUnsatisfiable = "ScheduleAnyway", '
            f'labelSelector = {{ matchLabels = {{ app = "app-{d}" }} }} }}], ',
            # a lone hostname ScheduleAnyway constraint on a pod that selects nodes (place_one takes it)
            f'nodeSelector = {{ disk = "ssd" }}, topologySpreadConstraints = [{{ maxSkew = 1, '
            f'topologyKey = "kubernetes.io/hostname", whenUnsatisfiable = "ScheduleAnyway", '
            f'labelSelector = {{ matchLabels = {{ app = "app-{d}" }} }} }}], ',
            # ... and against a preferred node affinity: the spread score's size decides where they overflow
            'affinity = { nodeAffinity = { preferredDuringSchedulingIgnoredDuringExecution = [{ weight = 20, '
            'preference = { matchExpressions = [{ key = "disk", operator = "In", values = ["hdd"] }] } }] } }, '
            f'topologySpreadConstraints = [{{ maxSkew = 1, topologyKey = "kubernetes.io/hostname", '
            f'whenUnsatisfiable = "ScheduleAnyway", labelSelector = {{ matchLabels = {{ app = "app-{d}" }} }} }}], ',
            # preferred anti-affinity against its own pods on the nodes (charts' soft preset): runs model it
            f'affinity = {{ podAntiAffinity = {{ preferredDuringSchedulingIgnoredDuringExecution = [{{ weight = '
            f'{rng.randint(1, 100)}, podAffinityTerm = {{ labelSelector = {{ matchLabels = {{ app = "app-{d}" }} }}, '
            f'topologyKey = "kubernetes.io/hostname" }} }}] }} }}, ',
            # preferred affinity to the first Deployment's nodes, and against its own zone (not modelled: cycles)
            f'affinity = {{ podAffinity = {{ preferredDuringSchedulingIgnoredDuringExecution = [{{ weight = 40, '
            f'podAffinityTerm = {{ labelSelector = {{ matchLabels = {{ app = "first" }} }}, '
            f'topologyKey = "kubernetes.io/hostname" }} }}] }}, podAntiAffinity = {{ '
            f'preferredDuringSchedulingIgnoredDuringExecution = [{{ weight = 10, podAffinityTerm = {{ labelSelector = '
            f'{{ matchLabels = {{ app = "app-{d}" }} }}, topologyKey = "{rng.choice([ZONE, "kubernetes.io/hostname"])}" }} }}] }} }}, ',
            # pod anti-affinity against its own pods only: the other Deployments' pods keep their runs
            f'affinity = {{ podAntiAffinity = {{ requiredDuringSchedulingIgnoredDuringExecution = [{{ '
            f'labelSelector = {{ matchLabels = {{ app = "app-{d}" }} }}, topologyKey = "kubernetes.io/hostname" }}] }} }}, '])
        priority = 'priorityClassName = "high", ' if rng.random() < 0.2 else ''
        out.append(f'[[deployments]]\nname = "app-{d}"\nreplicas = {rng.randint(4, 60)}\n'
                   f'template = {{ {requests}{extra}{priority}labels = {{ app = "app-{d}" }} }}\n')
    out.append(f'[[timeline]]\nat = "20s"\ndo = "power-off"\nnode = "{rng.choice(names)}"\n')
    out.append(f'[[timeline]]\nat = "30s"\ndo = "scale"\ndeployment = "app-0"\nreplicas = {rng.randint(20, 120)}\n')
    out.append(f'[[timeline]]\nat = "40s"\ndo = "taint"\nnode = "{rng.choice(names)}"\n'
               'taint = "maint=yes:PreferNoSchedule"\n')
    out.append(f'[[timeline]]\nat = "50s"\ndo = "cordon"\nnode = "{rng.choice(names)}"\n')
    return "\n".join(out)


def outcome(scenario, until_ms: int, runs: bool, monkeypatch, one: bool | None = None) -> tuple[str, tuple, int, int]:
    """(sim --json's document, the generator's state, next_start, pods placed by runs, or by the
    compiled cycle of one pod with `one` and no runs). `one` (the compiled cycle of a pod alone,
    equivalence.place_one) is on with the runs unless told; with neither, every pod takes the numpy
    cycle."""
    monkeypatch.setattr(scheduler_module, "RUN_NODES", 1 if runs else 1 << 62)
    monkeypatch.setattr(scheduler_module, "RUN_PODS", 2)
    monkeypatch.setattr(scheduler_module.Scheduler, "compiled_cycle", runs if one is None else one)
    placed = 0
    place_run, place_one = equivalence.place_run, equivalence.place_one

    def counted(*args):
        nonlocal placed
        bound = place_run(*args)
        placed += bound
        return bound

    def counted_one(*args):
        nonlocal placed
        row = place_one(*args)
        placed += row is not None and not runs
        return row

    monkeypatch.setattr(equivalence, "place_run", counted)
    monkeypatch.setattr(equivalence, "place_one", counted_one)
    sim = Simulation(scenario)
    sim.run_until_ms(until_ms)
    monkeypatch.setattr(equivalence, "place_run", place_run)
    monkeypatch.setattr(equivalence, "place_one", place_one)
    return json.dumps(snapshot(sim), indent=1), sim.rng.getstate(), sim.scheduler.next_start, placed


def count_early_ends(monkeypatch) -> list[int]:
    """A one-item list counting the runs whose binds stopped before every pod the loop placed."""
    ends = [0]
    bind = equivalence._bind

    def counted(*args):
        bound = bind(*args)
        placed = args[2]
        ends[0] += bound < placed
        return bound

    monkeypatch.setattr(equivalence, "_bind", counted)
    return ends


@pytest.mark.parametrize("seed", range(SEEDS))
def test_runs_place_as_cycles_on_random_clusters(seed: int, monkeypatch) -> None:
    scenario = parse_scenario(random_cluster(seed))
    document, state, start, placed = outcome(scenario, 180_000, True, monkeypatch)
    assert placed > 0  # the first Deployment's pods at least
    assert (document, state, start) == outcome(scenario, 180_000, False, monkeypatch)[:3]


@pytest.mark.parametrize("seed", range(SEEDS))
def test_one_pod_cycles_compiled_as_in_numpy_on_random_clusters(seed: int, monkeypatch) -> None:
    """Without runs, every pod's cycle that the compiled code models (equivalence.place_one) goes to
    the node, next_start and draw of the numpy cycle: ties among identical nodes drawn from the
    simulation's generator, PreferNoSchedule taints, preferred node affinity, user constraints of
    the system defaults' shape, full nodes, and cycles where no node fits (the numpy cycle's)."""
    scenario = parse_scenario(random_cluster(seed))
    document, state, start, chosen = outcome(scenario, 180_000, False, monkeypatch, one=True)
    assert chosen > 0
    assert (document, state, start) == outcome(scenario, 180_000, False, monkeypatch, one=False)[:3]


# ScheduleAnyway constraints of the system defaults' shape over the pods of two Deployments.
SHARED_SPREAD = ('topologySpreadConstraints = [{ maxSkew = 2, topologyKey = "kubernetes.io/hostname", '
                 'whenUnsatisfiable = "ScheduleAnyway", labelSelector = { matchLabels = { app = "shared" } } }, '
                 f'{{ maxSkew = 1, topologyKey = "{ZONE}", whenUnsatisfiable = "ScheduleAnyway", '
                 'labelSelector = { matchLabels = { app = "shared" } } }], ')


def test_a_pod_that_selects_nodes_counts_its_zone_over_them(monkeypatch) -> None:
    """Two Deployments spread over the pods of both (their constraints select a label they share);
    one selects ssd nodes, the other hdd nodes. PodTopologySpread counts a zone's pods over the
    nodes a pod may run on (nodeAffinityPolicy Honor), and so does the compiled cycle of one pod
    (its zone sums taken over those nodes). Counted over every node instead, the 40 pods on hdd
    nodes in zone b would send most ssd pods to zone a (23 of 30); over the ssd nodes, they split
    evenly."""
    pools = "".join(
        f'[[nodePools]]\nnamePrefix = "{disk}-{zone}-"\ncount = {count}\n'
        f'labels = {{ "{ZONE}" = "{zone}", disk = "{disk}" }}\ncapacity = {{ cpu = "8", memory = "16Gi", pods = 30 }}\n'
        for disk, zone, count in (("ssd", "a", 1), ("ssd", "b", 1), ("hdd", "b", 6)))
    deployments = "".join(
        f'[[deployments]]\nname = "on-{disk}"\nreplicas = {replicas}\ntemplate = {{ labels = {{ app = "shared" }}, '
        f'nodeSelector = {{ disk = "{disk}" }}, {SHARED_SPREAD}requests = {{ cpu = "100m" }} }}\n'
        for disk, replicas in (("hdd", 40), ("ssd", 30)))
    scenario = parse_scenario('[scenario]\nname = "shared-labels"\nseed = 3\n' + pools + deployments)
    compiled = outcome(scenario, 10_000, False, monkeypatch, one=True)
    assert compiled[3] == 70  # every pod's cycle was compiled
    assert compiled[:3] == outcome(scenario, 10_000, False, monkeypatch, one=False)[:3]
    on_ssd = [pod["node"] for pod in json.loads(compiled[0])["pods"] if pod["name"].startswith("on-ssd")]
    assert sorted(Counter(on_ssd).values()) == [15, 15]


def test_the_compiled_cycle_of_one_pod_checks_what_it_reads() -> None:
    """choose_one refuses arrays of the wrong type or size and indexes out of range (a bug in the
    caller, not a cycle to run)."""
    choose = equivalence.CHOOSE_ONE
    feasible, local = np.ones(4, dtype=bool), np.zeros(4, dtype=np.int64)
    logs, tied = equivalence.log_table(4), np.zeros(4, dtype=np.int64)
    args = (None, None, None, None, None, logs, tied, 1, 4, 3, 0, 2, 0, 0, 0, 0)
    assert choose(feasible, local, *args) == (4, 4, -1, 4)  # four equal rows from row 1: a draw
    assert tied.tolist() == [1, 2, 3, 0]
    assert choose(np.array([False, True, False, False]), local, *args) == (4, 1, 1, 1)
    with pytest.raises(ValueError, match="local has the wrong type"):
        choose(feasible, local.astype(np.int32), *args)
    with pytest.raises(ValueError, match="tied has the wrong type or size"):
        choose(feasible, local, *args[:6], np.zeros(2, dtype=np.int64), *args[7:])
    zone_ids, host_live = np.array([0, 1, 0, 5]), np.zeros(4, dtype=np.int64)
    with pytest.raises(ValueError, match="zone id or host count is out of range"):
        choose(feasible, local, None, None, host_live, zone_ids, np.zeros(2, dtype=np.int64), logs, tied,
               0, 4, 3, 0, 2, 0, 2, 0, 0)


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_runs_place_as_cycles_on_shipped_scenarios(path: Path, monkeypatch) -> None:
    scenario = load_scenario(path)
    with_runs = outcome(scenario, 1_800_000, True, monkeypatch)
    assert with_runs[:3] == outcome(scenario, 1_800_000, False, monkeypatch)[:3]


def test_a_run_ends_where_a_kubelet_rejects_a_pod(monkeypatch) -> None:
    """The fourth bind of the run is rejected at admission (its row gets its requests back): the run
    ends after it, the rest of the run returns to the queue, and every pod lands where cycles put it.
    (A rejection that admission's totals do not foresee: the binds go one by one, as
    quiet_binds sends them when a kubelet would not admit the run.)"""
    from playground.engine.kubelet import Kubelet

    monkeypatch.setattr(equivalence, "BIND_TOGETHER", False)

    text = random_cluster(7).replace('unschedulable = true', 'unschedulable = false')
    binds = 0
    admit = Kubelet.admit

    def reject_fourth(self, pod):
        nonlocal binds
        binds += 1
        return ("OutOfcpu", "Node didn't have enough resource: cpu") if binds == 4 else admit(self, pod)

    monkeypatch.setattr(Kubelet, "admit", reject_fourth)
    ends = count_early_ends(monkeypatch)
    scenario = parse_scenario(text)
    document, state, start, placed = outcome(scenario, 60_000, True, monkeypatch)
    assert placed > 4 and ends[0] > 0 and '"OutOfcpu"' in document
    binds = 0
    assert (document, state, start) == outcome(scenario, 60_000, False, monkeypatch)[:3]


WAKES_PENDING = """
[scenario]
name = "a run wakes pending pods"
seed = 3
""" + "".join(f"""
[[nodePools]]
namePrefix = "{zone}-"
count = 4
labels = {{ "topology.kubernetes.io/zone" = "{zone}" }}
capacity = {{ cpu = "8", memory = "16Gi", pods = 6 }}
""" for zone in ("zone-a", "zone-b", "zone-c")) + """
[[deployments]]
name = "pinned"
replicas = 6
template.labels = { app = "pinned", tier = "web" }
template.nodeSelector = { "topology.kubernetes.io/zone" = "zone-a" }
template.topologySpreadConstraints = [{ maxSkew = 1, topologyKey = "topology.kubernetes.io/zone", \
whenUnsatisfiable = "DoNotSchedule", nodeAffinityPolicy = "Ignore", labelSelector = { matchLabels = { tier = "web" } } }]

[[deployments]]
name = "web"
replicas = 40
template = { labels = { app = "web", tier = "web" }, requests = { cpu = "100m" } }
"""


def test_a_run_ends_where_a_bind_wakes_a_pending_pod(monkeypatch) -> None:
    """Pods of `pinned` wait in unschedulablePods, rejected by PodTopologySpread; each `web` pod bound
    in zone b or c may let one through (its queueing hint), which moves it back to the queue: the
    run ends there, and the woken pod takes its turn before the rest of the run, as after cycles."""
    ends = count_early_ends(monkeypatch)
    scenario = parse_scenario(WAKES_PENDING)
    document, state, start, placed = outcome(scenario, 60_000, True, monkeypatch)
    assert placed > 0 and ends[0] > 0
    assert (document, state, start) == outcome(scenario, 60_000, False, monkeypatch)[:3]


def test_the_run_key_admits_only_equivalent_pods() -> None:
    """place_run's first test of a pod (its labels are the first pod's, its _RUN_KEY the first's
    run_key) passes for a copy of the first pod's template and never for a pod that `equivalent`
    refuses: each field `equivalent` reads, changed alone, fails it (and `equivalent` decides)."""
    labels = {"app": "web"}
    owner = OwnerRef("ReplicaSet", "web-1")
    first = Pod("web-a", "default", 1, labels, 0, cpu=100, memory=1 << 27, owner=owner,
                tolerations=(Toleration(key="spot", operator="Exists"),))
    key = equivalence.run_key(first)

    def fast(pod) -> bool:
        return pod.labels is labels and equivalence._RUN_KEY(pod) == key

    assert fast(replace(first, name="web-b", uid=2))
    term = PodAffinityTerm(LabelSelector(match_labels=(("app", "web"),)), "kubernetes.io/hostname")
    variants = {
        "labels": {"app": "web"}, "namespace": "other", "cpu": 200, "memory": 1 << 28, "tolerations": (),
        "node_selector": {"disk": "ssd"}, "required_node_affinity": (), "affinity_node_name": "n1",
        "preferred_node_affinity": (PreferredSchedulingTerm(1, NodeSelectorTerm()),),
        "topology_spread_constraints": (TopologySpreadConstraint(1, "kubernetes.io/hostname", "ScheduleAnyway"),),
        "owner": OwnerRef("ReplicaSet", "web-2"), "required_pod_affinity": (term,),
        "preferred_pod_affinity": (WeightedPodAffinityTerm(1, term),), "required_pod_anti_affinity": (term,),
        "preferred_pod_anti_affinity": (WeightedPodAffinityTerm(1, term),), "node_name": "n1",
        "nominated_node_name": "n1", "deletion_timestamp": 5, "phase": RUNNING}
    assert set(variants) == {"labels", *equivalence.RUN_FIELDS}
    for name, value in variants.items():
        pod = replace(first, name="web-b", uid=2, **{name: value})
        assert not fast(pod), name
        if name != "phase":  # (an unbound Running pod is still active: equivalent to first)
            assert not equivalence.equivalent(pod, first), name
    # an owner equal but not the same object: `equivalent` admits it, the fast test leaves it to it
    pod = replace(first, name="web-b", uid=2, owner=OwnerRef("ReplicaSet", "web-1"))
    assert equivalence.equivalent(pod, first) and equivalence._RUN_KEY(pod) == key


def test_a_run_takes_a_pod_equivalent_though_its_run_key_differs(monkeypatch) -> None:
    """place_run takes the first pair's pods in one call (binds.take_run), which stops at a pod its
    run key does not admit; a pod `equivalent` admits all the same (unbound, Running) joins the run,
    and the pods after it are taken by pops() as before: the run is every pod of the Deployment."""
    monkeypatch.setattr(scheduler_module, "RUN_NODES", 1)
    monkeypatch.setattr(scheduler_module, "RUN_PODS", 2)
    sim = Simulation(parse_scenario('[scenario]\nname = "odd"\nseed = 3\n' + nodes_toml("n-", 6, cpu="8")
                                    + '[[deployments]]\nname = "web"\nreplicas = 12\n'
                                      'template = { labels = { app = "web" }, requests = { cpu = "100m" } }\n'))
    place_run, place = equivalence.place_run, equivalence._place
    runs: list[list[str]] = []
    odd: list[str] = []

    def marking(scheduler, first, first_info, limit, least):
        if not odd:  # the fourth pod in the queue: unbound, active, but Running
            infos = [info for info in scheduler.queue.infos.values() if info.key != first.key]
            pod = scheduler.sim.store.pods[infos[3].key]
            pod.phase = RUNNING
            odd.append(pod.key)
        return place_run(scheduler, first, first_info, limit, least)

    def placing(scheduler, run, sig):
        runs.append([pod.key for pod, _info in run])
        return place(scheduler, run, sig)

    monkeypatch.setattr(equivalence, "place_run", marking)
    monkeypatch.setattr(equivalence, "_place", placing)
    sim.run_until(0)
    assert len(runs[0]) == 12 and odd[0] in runs[0]
    assert all(pod.node_name for pod in sim.store.pods.values())


@pytest.mark.parametrize("key, min_domains, pending", [(ZONE, 1, 0), (ZONE, 3, 0), (ZONE, 4, 57),
                                                       ("kubernetes.io/hostname", 1, 0),
                                                       ("kubernetes.io/hostname", 20, 44)])
def test_runs_of_zone_spread_pods_place_as_cycles(key, min_domains, pending, monkeypatch) -> None:
    """A Deployment with one DoNotSchedule constraint (maxSkew 1) by zone (three zones of uneven
    size) or by node (16) is placed by runs (each pod's window skips the domains the skew rules out,
    the domain's count rising with each bind, the lowest counted again when its last domain rises)
    exactly as one cycle after another; with minDomains above the domains there are, the minimum
    counts as 0 and each domain takes one pod, the rest stay Pending."""
    pools = "".join(f'[[nodePools]]\nnamePrefix = "{z}-"\ncount = {count}\nlabels = {{ "{ZONE}" = "{z}" }}\n'
                    f'capacity = {{ cpu = "8", memory = "32Gi", pods = 20 }}\n'
                    for z, count in (("a", 3), ("b", 5), ("c", 8)))
    text = (f'[scenario]\nname = "zone-runs"\nseed = 5\n{pools}[[deployments]]\nname = "web"\nreplicas = 60\n'
            'template = { labels = { app = "web" }, requests = { cpu = "100m" }, topologySpreadConstraints = [{ '
            f'maxSkew = 1, topologyKey = "{key}", whenUnsatisfiable = "DoNotSchedule", minDomains = {min_domains}, '
            'labelSelector = { matchLabels = { app = "web" } } }] }\n')
    scenario = parse_scenario(text)
    document, state, start, placed = outcome(scenario, 10_000, True, monkeypatch)
    assert placed == 60 - pending  # every pod that can be placed, by the runs
    assert (document, state, start) == outcome(scenario, 10_000, False, monkeypatch)[:3]
    pods = json.loads(document)["pods"]
    assert sum(1 for p in pods if not p.get("node")) == pending


@pytest.mark.parametrize("zone_rule", ["DoNotSchedule", "ScheduleAnyway", None])
def test_runs_spread_over_the_nodes_with_a_hostname_preference_as_cycles(zone_rule, monkeypatch) -> None:
    """The pair many charts ship, a zone DoNotSchedule constraint and a hostname ScheduleAnyway one
    (or the hostname one alone, or after a zone ScheduleAnyway one), is placed by runs exactly as one
    cycle after another: the loop scores the hostname constraint as the system defaults' pair with a
    zone term of 0 (or as that pair, its terms added the other way round). On identical nodes the
    preference spreads each zone's pods evenly over its nodes."""
    pools = "".join(f'[[nodePools]]\nnamePrefix = "{z}-"\ncount = {count}\nlabels = {{ "{ZONE}" = "{z}" }}\n'
                    f'capacity = {{ cpu = "8", memory = "32Gi", pods = 20 }}\n'
                    for z, count in (("a", 3), ("b", 5), ("c", 8)))
    selector = 'labelSelector = { matchLabels = { app = "web" } }'
    rules = [f'{{ maxSkew = 1, topologyKey = "kubernetes.io/hostname", whenUnsatisfiable = "ScheduleAnyway", {selector} }}']
    if zone_rule:
        rules.insert(0, f'{{ maxSkew = 1, topologyKey = "{ZONE}", whenUnsatisfiable = "{zone_rule}", {selector} }}')
    text = (f'[scenario]\nname = "host-runs"\nseed = 5\n{pools}[[deployments]]\nname = "web"\nreplicas = 60\n'
            'template = { labels = { app = "web" }, requests = { cpu = "100m" }, topologySpreadConstraints = ['
            + ", ".join(rules) + '] }\n')
    scenario = parse_scenario(text)
    document, state, start, placed = outcome(scenario, 10_000, True, monkeypatch)
    assert placed == 60  # every pod, by the runs
    assert (document, state, start) == outcome(scenario, 10_000, False, monkeypatch)[:3]
    by_node: dict[str, int] = {}
    for pod in json.loads(document)["pods"]:
        by_node[pod["node"]] = by_node.get(pod["node"], 0) + 1
    per_zone = {z: [by_node.get(f"{z}-{i}", 0) for i in range(1, count + 1)] for z, count in (("a", 3), ("b", 5), ("c", 8))}
    assert all(max(counts) - min(counts) <= 1 for counts in per_zone.values()), per_zone
    if zone_rule == "DoNotSchedule":
        assert [sum(counts) for counts in per_zone.values()] == [20, 20, 20]
    elif zone_rule:  # the zone preference pulls pods to the small zone: more than its 3 of 16 nodes' share
        a, _b, c = (sum(counts) for counts in per_zone.values())
        assert a > 60 * 3 // 16 and c < 60 * 8 // 16
    else:
        assert max(by_node.values()) - min(by_node.values()) <= 1, by_node


def test_runs_weigh_a_hostname_preference_against_node_affinity_as_cycles(monkeypatch) -> None:
    """Pods that prefer ssd nodes (preferred node affinity) and spreading over the nodes (hostname,
    ScheduleAnyway, maxSkew 1) pile on the ssd nodes until the spread score outweighs the affinity,
    then overflow to the hdd ones: where that happens depends on every point of both normalized
    scores, and the runs place them where one cycle after another does."""
    pools = "".join(f'[[nodePools]]\nnamePrefix = "{d}-"\ncount = 4\nlabels = {{ "{ZONE}" = "a", disk = "{d}" }}\n'
                    'capacity = { cpu = "8", memory = "32Gi", pods = 30 }\n' for d in ("ssd", "hdd"))
    text = (f'[scenario]\nname = "host-affinity"\nseed = 5\n{pools}[[deployments]]\nname = "web"\nreplicas = 60\n'
            'template = { labels = { app = "web" }, requests = { cpu = "100m" }, '
            'affinity = { nodeAffinity = { preferredDuringSchedulingIgnoredDuringExecution = [{ weight = 50, '
            'preference = { matchExpressions = [{ key = "disk", operator = "In", values = ["ssd"] }] } }] } }, '
            'topologySpreadConstraints = [{ maxSkew = 1, topologyKey = "kubernetes.io/hostname", '
            'whenUnsatisfiable = "ScheduleAnyway", labelSelector = { matchLabels = { app = "web" } } }] }\n')
    scenario = parse_scenario(text)
    document, state, start, placed = outcome(scenario, 10_000, True, monkeypatch)
    assert placed == 60
    assert (document, state, start) == outcome(scenario, 10_000, False, monkeypatch)[:3]
    on_ssd = sum(1 for pod in json.loads(document)["pods"] if pod["node"].startswith("ssd-"))
    assert 30 < on_ssd < 60


SOFT_ANTI = ('affinity = {{ podAntiAffinity = {{ preferredDuringSchedulingIgnoredDuringExecution = [{{ weight = {weight}, '
             'podAffinityTerm = {{ labelSelector = {{ matchLabels = {{ app = "{app}" }} }}, '
             'topologyKey = "kubernetes.io/hostname" }} }}] }} }}')


@pytest.mark.parametrize("weight, beside", [(100, ""), (1, ""), (50, "affine"), (50, "repelling")])
def test_runs_of_pods_with_soft_anti_affinity_place_as_cycles(weight, beside, monkeypatch) -> None:
    """A Deployment whose pods prefer not to share a node (preferred anti-affinity on the hostname
    against their own pods, as charts' soft preset writes it) is placed by runs exactly as one cycle
    after another, on nodes of three sizes: each bind lowers the bound node's raw score by twice
    the weight (the pod counts for the others' term and its own term counts it). Beside it,
    "affine": a Deployment placed first whose pods prefer this one's nodes (their terms select
    this one's pods: a static part of the raw score); "repelling": the same with required
    anti-affinity, whose filter rules out the side pods' nodes for every cycle of a run."""
    pools = "".join(f'[[nodePools]]\nnamePrefix = "{z}-"\ncount = {count}\nlabels = {{ "{ZONE}" = "{z}" }}\n'
                    f'capacity = {{ cpu = "{cpu}", memory = "32Gi", pods = 20 }}\n'
                    for z, count, cpu in (("a", 3, "4"), ("b", 5, "8"), ("c", 8, "16")))
    other = ""
    if beside:
        rule = "requiredDuringSchedulingIgnoredDuringExecution = [{ " if beside == "repelling" else \
            "preferredDuringSchedulingIgnoredDuringExecution = [{ weight = 30, podAffinityTerm = { "
        close = " }]" if beside == "repelling" else " } }]"
        kind = "podAntiAffinity" if beside == "repelling" else "podAffinity"
        other = ('[[deployments]]\nname = "side"\nreplicas = 5\ntemplate = { priorityClassName = "top", '
                 'labels = { app = "side" }, requests = { cpu = "100m" }, affinity = { ' + kind + ' = { ' + rule
                 + 'labelSelector = { matchLabels = { app = "web" } }, topologyKey = "kubernetes.io/hostname"'
                 + close + ' } } }\n')
    text = (f'[scenario]\nname = "soft-anti"\nseed = 3\n[[priorityClasses]]\nname = "top"\nvalue = 2000\n{pools}'
            f'{other}[[deployments]]\nname = "web"\nreplicas = 60\n'
            'template = { labels = { app = "web" }, requests = { cpu = "100m" }, '
            + SOFT_ANTI.format(weight=weight, app="web") + ' }\n')
    scenario = parse_scenario(text)
    document, state, start, placed = outcome(scenario, 10_000, True, monkeypatch)
    assert placed == {"": 60, "affine": 65, "repelling": 65}[beside]  # (the side pods' own terms select no side pod)
    assert (document, state, start) == outcome(scenario, 10_000, False, monkeypatch)[:3]
    by_node: dict[str, int] = {}
    for pod in json.loads(document)["pods"]:
        if pod["name"].startswith("web-"):
            by_node[pod["node"]] = by_node.get(pod["node"], 0) + 1
    if weight == 100 and not beside:  # the preference outweighs the nodes' sizes: 60 pods over 16 nodes
        assert len(by_node) == 16 and max(by_node.values()) - min(by_node.values()) <= 1, by_node


HARD_ANTI = ('affinity = {{ podAntiAffinity = {{ requiredDuringSchedulingIgnoredDuringExecution = [{{ '
             'labelSelector = {{ matchLabels = {{ app = "{app}" }} }}, topologyKey = "kubernetes.io/hostname" }}]{preferred} }} }}')


@pytest.mark.parametrize("soft", [False, True])
def test_runs_of_pods_with_hard_anti_affinity_place_as_cycles(soft, monkeypatch) -> None:
    """A Deployment whose pods may not share a node (required anti-affinity on the hostname against
    their own pods: charts' hard preset), 20 replicas on 16 nodes of three sizes, one node already
    holding one of its pods' kind (a pod of another Deployment with the same label): runs place one
    pod a node on the other 15, each bind ruling its node out for the next cycle, exactly as one
    cycle after another, and the 5 left over fail as their cycles say. With `soft`, the pods also
    prefer nodes without the "side" Deployment's pods (a preferred anti-affinity term that does not
    select them: a static part of the raw score, which changes the order the nodes are taken in)."""
    pools = "".join(f'[[nodePools]]\nnamePrefix = "{z}-"\ncount = {count}\nlabels = {{ "{ZONE}" = "{z}" }}\n'
                    f'capacity = {{ cpu = "{cpu}", memory = "32Gi", pods = 20 }}\n'
                    for z, count, cpu in (("a", 3, "4"), ("b", 5, "8"), ("c", 8, "16")))
    preferred = (', preferredDuringSchedulingIgnoredDuringExecution = [{ weight = 60, podAffinityTerm = { '
                 'labelSelector = { matchLabels = { app = "side" } }, topologyKey = "kubernetes.io/hostname" } }]'
                 if soft else '')
    text = (f'[scenario]\nname = "hard-anti"\nseed = 4\n[[priorityClasses]]\nname = "top"\nvalue = 2000\n{pools}'
            '[[deployments]]\nname = "side"\nreplicas = 6\ntemplate = { priorityClassName = "top", '
            'labels = { app = "side" }, requests = { cpu = "100m" } }\n'
            '[[deployments]]\nname = "early"\nreplicas = 1\ntemplate = { priorityClassName = "top", '
            'labels = { app = "cache" }, requests = { cpu = "100m" } }\n'
            '[[deployments]]\nname = "cache"\nreplicas = 20\n'
            'template = { labels = { app = "cache" }, requests = { cpu = "200m" }, '
            + HARD_ANTI.format(app="cache", preferred=preferred) + ' }\n')
    scenario = parse_scenario(text)
    document, state, start, placed = outcome(scenario, 10_000, True, monkeypatch)
    assert placed >= 6 + 15  # the side pods and every cache pod that fits: the runs (the one early pod takes a cycle)
    assert (document, state, start) == outcome(scenario, 10_000, False, monkeypatch)[:3]
    pods = json.loads(document)["pods"]
    cache_nodes = [pod["node"] for pod in pods if pod["name"].startswith("cache-") and pod["node"]]
    early_node = next(pod["node"] for pod in pods if pod["name"].startswith("early-"))
    assert len(cache_nodes) == len(set(cache_nodes)) == 15 and early_node not in cache_nodes
    pending = [pod for pod in pods if pod["name"].startswith("cache-") and not pod["node"]]
    assert len(pending) == 5
    assert "0/16 nodes are available: 16 node(s) didn't match pod anti-affinity rules." in json.dumps(pending)


def test_the_loop_normalizes_pod_affinity_in_floats_as_the_plugin_does() -> None:
    """InterPodAffinity's NormalizeScore is int64(100.0 * (float(s - min) / float(max - min))):
    a raw score of 29 out of 0..100 is 100 x 0.29 = 28.999999999999996, so 28, not the 29 of integer
    arithmetic. Three rows: the raw scores 29, 100 and 0, and row 0's local score 144 above row
    1's, so that the two tie (144 + 2 x 28 = 2 x 100) and the loop draws from the generator; with 29
    row 0 would win alone. The plugin's normalizations (columns and reference) give the same."""
    n = 3
    state = np.zeros((len(equivalence.STATE_ROWS), n), dtype=np.int64)
    row = equivalence.ROW
    state[row["ok"]] = state[row["feasible"]] = 1
    state[row["alloc_cpu"]], state[row["alloc_memory"]], state[row["alloc_pods"]] = 64_000, 2**40, 110
    state[row["local"]] = (344, 200, 0)
    state[row["pod_affinity_raw"]] = (29, 100, 0)
    rng = random.Random(7)
    mt, index = equivalence.mt_state(rng)
    params = np.array((1, 0, n, 100, 2**20, 3, 0, 0, *(0,) * 8, *(0,) * 5, 2, 0, 0, index, n), dtype=np.int64)
    out = np.zeros((4, 1), dtype=np.int64)
    placed = equivalence.LOOP(state, np.zeros(1, dtype=np.int64), equivalence.log_table(n), mt, out, params,
                              np.zeros(1, dtype=np.int64))
    assert placed == 1
    assert out[2, 0] == 1  # one word drawn: a tie of two rows
    assert out[0, 0] == (0, 1)[random.Random(7).randrange(2)]
    assert interpodaffinity.normalize_columns(np.array([29, 100, 0])).tolist() == [28, 100, 0]
    assert interpodaffinity.normalize([29, 100, 0]) == [28, 100, 0]  # (the plain reference)


HINT_SCENARIOS = ["spread-zone-outage.toml", "anti-affinity-pending.toml", "pending-explained.toml",
                  "zone-outage.toml", "preemption-full-cluster.toml", "rollout-stuck.toml"]


def hints_shared_and_each(scenario, until_ms: int, monkeypatch) -> tuple[tuple, tuple]:
    """The scenario run to `until_ms` with the hints' answers shared by template, then asked for each
    pod (Scheduler.memo_hints False): each run's (sim --json's document, the generator's state, the
    hints' questions, the pods left without a node)."""
    asked = []
    worth = scheduler_module.Scheduler.worth_requeuing

    def counted(self, *args):
        asked.append(1)
        return worth(self, *args)

    monkeypatch.setattr(scheduler_module.Scheduler, "worth_requeuing", counted)

    def run() -> tuple:
        asked.clear()
        sim = Simulation(scenario)
        sim.run_until_ms(until_ms)
        pending = sum(1 for pod in sim.store.pods.values() if not pod.node_name)
        return json.dumps(snapshot(sim), indent=1), sim.rng.getstate(), len(asked), pending

    shared = run()
    monkeypatch.setattr(scheduler_module.Scheduler, "memo_hints", False)
    return shared, run()


@pytest.mark.parametrize("source", HINT_SCENARIOS + [f"random-{seed}" for seed in range(6)])
def test_hints_answered_once_per_template_as_pod_by_pod(source: str, monkeypatch) -> None:
    """Pods of one template rejected by the same plugins share the queueing hints' answer to a batch
    of cluster events (Scheduler._process_events): the run is the one that asks for every pod."""
    if source.startswith("random-"):
        scenario = parse_scenario(random_cluster(int(source.split("-")[1])))
    else:
        scenario = load_scenario(Path(__file__).resolve().parent.parent / "scenarios" / source)
    shared, each = hints_shared_and_each(scenario, 600_000, monkeypatch)
    assert shared[:2] == each[:2]
    assert shared[2] <= each[2]


@pytest.mark.parametrize("source", HINT_SCENARIOS + ["zone-outage-spread"] + [f"random-{seed}" for seed in range(8)])
def test_cycles_that_fit_nowhere_remembered_as_run_again(source: str, monkeypatch) -> None:
    """A pod whose cycle would repeat the last one of its template that fitted nowhere, nothing it
    reads changed since, gets that cycle's Diagnosis (Scheduler._no_fit_again): the run is the one
    that runs every cycle (Scheduler.memo_no_fit False): the same document, events and messages, the
    same generator and next_start."""
    if source.startswith("random-"):
        scenario = parse_scenario(random_cluster(int(source.split("-")[1])))
    elif source == "zone-outage-spread":
        pools = "".join(f'[[nodePools]]\nnamePrefix = "{z}-"\ncount = 4\nlabels = {{ "{ZONE}" = "{z}" }}\n'
                        'capacity = { cpu = "4", memory = "16Gi", pods = 30 }\n' for z in "abc")
        spread = ('topologySpreadConstraints = [{ maxSkew = 1, topologyKey = "' + ZONE + '", whenUnsatisfiable = '
                  '"DoNotSchedule", labelSelector = { matchLabels = { app = "%s" } } }]')
        apps = "".join(f'[[deployments]]\nname = "{app}"\nreplicas = 30\ntemplate = {{ labels = {{ app = "{app}" }}, '
                       f'requests = {{ cpu = "100m" }}, {spread % app} }}\n' for app in ("web", "api"))
        offs = "".join(f'[[timeline]]\nat = "30s"\ndo = "power-off"\nnode = "a-{i}"\n' for i in range(1, 5))
        scenario = parse_scenario(f'[scenario]\nname = "outage-spread"\nseed = 2\n{pools}{apps}{offs}'
                                  '[[timeline]]\nat = "8m"\ndo = "power-on"\nnode = "a-1"\n')
    else:
        scenario = load_scenario(Path(__file__).resolve().parent.parent / "scenarios" / source)
    hits = []
    again = scheduler_module.Scheduler._no_fit_again

    def counted(self, pod):
        known = again(self, pod)
        hits.append(known is not None)
        return known

    monkeypatch.setattr(scheduler_module.Scheduler, "_no_fit_again", counted)

    def run():
        sim = Simulation(scenario)
        sim.run_until_ms(900_000)
        return json.dumps(snapshot(sim), indent=1), sim.rng.getstate(), sim.scheduler.next_start

    remembered = run()
    found = sum(hits)
    monkeypatch.setattr(scheduler_module.Scheduler, "memo_no_fit", False)
    assert remembered == run()
    if source == "zone-outage-spread":
        assert found > 0  # the zone-spread replacements, retried while zone a is down


def test_a_pod_starting_to_terminate_ends_what_failed_cycles_remembered(monkeypatch) -> None:
    """Two zone-spread pods (DoNotSchedule, maxSkew 1) Pending: zone c's node is full, so zones a and
    b hold one each. The pod on a-1 starts terminating (grace period 30 s): it no longer counts for
    the skew, though it still holds its requests (no node column changes), and the spread hint
    requeues the Pending pods: one is placed on a-1 at once, as when every cycle runs."""
    text = (f'[scenario]\nname = "terminating-spread"\nseed = 4\n[[priorityClasses]]\nname = "top"\nvalue = 2000\n'
            + "".join(f'[[nodePools]]\nnamePrefix = "{z}-"\ncount = 1\nlabels = {{ "{ZONE}" = "{z}" }}\n'
                      f'capacity = {{ cpu = "{cpu}", memory = "16Gi", pods = 30 }}\n' for z, cpu in (("a", "8"), ("b", "8"), ("c", "1")))
            + '[[pods]]\nname = "blocker"\nnodeName = "c-1"\nrequests = { cpu = "1" }\n'
            '[[deployments]]\nname = "web"\nreplicas = 4\ntemplate = { labels = { app = "web" }, requests = { cpu = "100m" }, '
            f'topologySpreadConstraints = [{{ maxSkew = 1, topologyKey = "{ZONE}", whenUnsatisfiable = "DoNotSchedule", '
            'labelSelector = { matchLabels = { app = "web" } } }] }\n')
    scenario = parse_scenario(text)

    def run():
        sim = Simulation(scenario)
        sim.run_until(60)
        assert sorted(p.node_name or "" for p in sim.store.pods.values() if p.labels.get("app") == "web") == ["", "", "a-1", "b-1"]
        [on_a] = [p for p in sim.store.pods.values() if p.node_name == "a-1"]
        sim.apply(Operation("delete-pod", pod=on_a.name, namespace=on_a.namespace, grace_period_seconds=30))
        sim.run_until(62)
        return (sorted((p.name, p.node_name) for p in sim.store.pods.values()), json.dumps(snapshot(sim), indent=1),
                sim.rng.getstate())

    remembered = run()
    assert sum(1 for _name, node in remembered[0] if node == "a-1") == 2  # the terminating pod and a new one
    monkeypatch.setattr(scheduler_module.Scheduler, "memo_no_fit", False)
    assert remembered == run()


def test_pods_of_one_template_rejected_by_other_plugins_get_their_own_hint() -> None:
    """The hints' shared answer is per template and rejecting plugins: of two pods of one template in
    unschedulablePods, a deleted pod's event moves the one NodeResourcesFit rejected (room may be
    free), not the one TaintToleration rejected (its hint ignores pod deletions)."""
    from playground.engine.objects import PodTemplate
    from playground.engine.scheduler.framework import ASSIGNED_POD_DELETE, ClusterEvent
    from playground.engine.workloads import pod_from_template

    sim = make_sim(nodes_toml("n-", 1))
    scheduler, store = sim.scheduler, sim.store
    template = PodTemplate(labels={"app": "web"}, cpu=100)
    pods = [pod_from_template(sim, name, "default", template, None) for name in ("a", "b")]
    assert pods[0].labels is pods[1].labels
    for pod in pods:
        store.add_pod(pod)
    queue = scheduler.queue
    infos = [queue.pop(), queue.pop()]
    assert [info.key for info in infos] == ["default/a", "default/b"]
    for info, plugin in zip(infos, ("TaintToleration", "NodeResourcesFit")):
        info.unschedulable_plugins = frozenset({plugin})
        queue.add_unschedulable(info, 0)
    scheduler._events = [ClusterEvent(ASSIGNED_POD_DELETE, "n-1", pod=pods[0])]
    scheduler._process_events(0)
    assert sorted(queue.unschedulable) == ["default/a"]


def test_hints_keep_the_grouping_of_pods_that_wait_while_others_bind(monkeypatch) -> None:
    """A hard anti-affinity Deployment with more replicas than nodes: the replicas that fit nowhere
    wait in unschedulablePods while the other Deployments' pods bind one by one, each bind an event
    for their hints. Their grouping by template is kept from one batch of events to the next while
    no pod joins or leaves (Scheduler._unschedulable_groups), and the run is the one that asks for
    every pod, in each batch: the same document and generator, far fewer questions."""
    pools = "".join(f'[[nodePools]]\nnamePrefix = "{z}-"\ncount = 150\nlabels = {{ "{ZONE}" = "{z}" }}\n'
                    'capacity = { cpu = "8", memory = "32Gi", pods = 30 }\n' for z in ("a", "b"))
    text = ('[scenario]\nname = "waiting"\nseed = 6\n' + pools
            + '[[deployments]]\nname = "cache"\nreplicas = 340\ntemplate = { labels = { app = "cache" }, '
            'requests = { cpu = "100m" }, ' + HARD_ANTI.format(app="cache", preferred="")
            + ' }\n'
            + "".join(f'[[deployments]]\nname = "web-{i}"\nreplicas = 60\ntemplate = {{ labels = {{ app = "web-{i}" }}, '
                      'requests = { cpu = "100m" } }\n' for i in range(4))
            + '[[timeline]]\nat = "20s"\ndo = "scale"\ndeployment = "web-0"\nreplicas = 90\n'
            + '[[timeline]]\nat = "40s"\ndo = "power-off"\nnode = "a-7"\n')
    grouped, each = hints_shared_and_each(parse_scenario(text), 120_000, monkeypatch)
    assert grouped[:2] == each[:2]
    assert grouped[3] >= 40  # the replicas beyond one a node wait
    assert grouped[2] * 20 < each[2], (grouped[2], each[2])
