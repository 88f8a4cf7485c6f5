"""The deployment controller: arithmetic and rollout steps transcribed from Kubernetes' own tables
(pkg/controller/deployment rolling_test.go, sync_test.go TestScale, util/deployment_util_test.go),
and rollouts run end to end on the virtual clock (sizes step by step, conditions, event texts)."""

from __future__ import annotations

import pytest

from playground.engine import Operation, Simulation
from playground.engine.deployment import (
    DeploymentStatus,
    deployment_complete,
    deployment_timed_out,
    new_condition,
    new_rs_new_replicas,
    resolve_fenceposts,
    rollout_status,
)
from playground.engine.objects import Deployment, PodTemplate, ReplicaSet
from playground.engine.workloads import template_hash
from playground.scenario import parse_scenario

# ------------------------------------------------------------------ helpers


def bare_sim() -> Simulation:
    return Simulation(parse_scenario('[scenario]\nname = "t"\n'))


def deployment(replicas: int, max_surge=0, max_unavailable=0, strategy="RollingUpdate") -> Deployment:
    """newDeployment of deployment_controller_test.go: RollingUpdate, maxSurge and maxUnavailable 0
    unless given."""
    return Deployment("foo", "default", replicas, PodTemplate(labels={"foo": "bar"}), strategy=strategy,
                      max_surge=max_surge, max_unavailable=max_unavailable)


def rs(name: str, replicas: int, created: int = 0, available: int = 0) -> ReplicaSet:
    return ReplicaSet(name, "default", "foo", PodTemplate(labels={"foo": "bar"}), name, replicas, created, 0,
                      available_replicas=available, status_replicas=replicas)


SCENARIO = """
[scenario]
name = "rollout"
seed = 1

[[nodePools]]
namePrefix = "n-"
count = {nodes}
capacity = {{ cpu = "{cpu}", memory = "16Gi" }}
{extra}
[[deployments]]
name = "web"
replicas = {replicas}
template = {{ labels = {{ app = "web" }}, requests = {{ cpu = "500m", memory = "256Mi" }}, stopDuration = "2s" }}
{deployment_extra}
"""


def sim_with(replicas=4, nodes=3, cpu="8", extra="", deployment_extra="") -> Simulation:
    return Simulation(parse_scenario(SCENARIO.format(replicas=replicas, nodes=nodes, cpu=cpu, extra=extra,
                                                     deployment_extra=deployment_extra)))


def scaling_events(sim: Simulation) -> list[tuple[float, str]]:
    return [(e.time / 1000, e.message) for e in sim.store.recorder.events if e.reason == "ScalingReplicaSet"]


def names(sim: Simulation) -> list[str]:
    """The web ReplicaSets, oldest first."""
    return [r.name for r in sim.workloads.deployments.replica_sets(sim.store.deployments["web"])]


# ------------------------------------------------------------------ deployment_util_test.go


@pytest.mark.parametrize("surge, unavailable, desired, expected", [
    # TestResolveFenceposts
    ("0%", "0%", 0, (0, 1)),
    ("39%", "39%", 10, (4, 3)),
    (0, "39%", 10, (0, 3)),
    ("39%", 0, 10, (4, 0)),
    (0, 0, 10, (0, 1)),
    # the API defaults, 25 % / 25 %: surge rounds up, unavailable down
    ("25%", "25%", 3, (1, 0)),
    ("25%", "25%", 4, (1, 1)),
    ("25%", "25%", 10, (3, 2)),
    ("25%", "25%", 1, (1, 0)),
])
def test_resolve_fenceposts(surge, unavailable, desired, expected):
    assert resolve_fenceposts(surge, unavailable, desired) == expected


@pytest.mark.parametrize("strategy, replicas, new_replicas, max_surge, old, expected", [
    # TestNewRSNewReplicas
    ("RollingUpdate", 1, 5, 1, 0, 5),   # can not scale up - to newRSReplicas
    ("RollingUpdate", 6, 2, 10, 0, 6),  # scale up - to depReplicas
    ("Recreate", 3, 1, 1, 0, 3),
    ("Recreate", 3, 3, 1, 0, 3),
])
def test_new_rs_new_replicas(strategy, replicas, new_replicas, max_surge, old, expected):
    d = deployment(replicas, max_surge=max_surge, strategy=strategy)
    new = rs("foo-v2", new_replicas)
    assert new_rs_new_replicas(d, [new, rs("foo-v1", old)], new) == expected


@pytest.mark.parametrize("desired, current, updated, available, expected", [
    # TestDeploymentComplete
    (5, 5, 5, 4, False),  # min but not all pods become available
    (5, 5, 5, 3, False),  # min availability is not honored
    (5, 5, 5, 5, True),
    (5, 5, 4, 5, False),  # all pods are available but not updated
    (1, 2, 1, 1, False),  # still running old pods
    (1, 1, 1, 0, False),  # one replica deployment never comes up
])
def test_deployment_complete(desired, current, updated, available, expected):
    d = deployment(desired)
    status = DeploymentStatus(observed_generation=1, replicas=current, updated_replicas=updated,
                              available_replicas=available)
    assert deployment_complete(d, status) is expected


@pytest.mark.parametrize("deadline, last_update, expected", [
    # TestDeploymentTimedOut: now is 00:01:20
    (None, 69, False),  # no progressDeadlineSeconds
    (10, 69, True),     # 80 - 69 = 11 s > 10 s
    (10, 71, False),    # 80 - 71 = 9 s
    (10, 70, False),    # exactly at the deadline: not yet (lastUpdateTime + deadline must be before now)
])
def test_deployment_timed_out(deadline, last_update, expected):
    d = deployment(1)
    d.progress_deadline_seconds = deadline
    status = DeploymentStatus(conditions={
        "Progressing": new_condition("Progressing", "True", "ReplicaSetUpdated", "", last_update * 1000)})
    assert deployment_timed_out(d, status, 80_000) is expected


# ------------------------------------------------------------------ rolling_test.go


@pytest.mark.parametrize("replicas, surge, old, new, expected", [
    # TestDeploymentController_reconcileNewReplicaSet (maxUnavailable 0)
    (10, 0, 10, 0, None),  # should not scale up
    (10, 2, 10, 0, 2),
    (10, 2, 5, 0, 7),
    (10, 2, 10, 2, None),
    (10, 2, 2, 11, 10),  # should scale down
])
def test_reconcile_new_replica_set(replicas, surge, old, new, expected):
    sim = bare_sim()
    d = deployment(replicas, max_surge=surge)
    new_rs, old_rs = rs("foo-v2", new), rs("foo-v1", old)
    scaled = sim.workloads.deployments.reconcile_new_replica_set([new_rs, old_rs], new_rs, d)
    assert scaled is (expected is not None)
    assert new_rs.replicas == (new if expected is None else expected)


@pytest.mark.parametrize("replicas, unavailable, old, new, ready_old, ready_new, expected_old", [
    # TestDeploymentController_reconcileOldReplicaSets (maxSurge 0)
    (10, 0, 10, 0, 10, 0, 9),
    (10, 2, 10, 0, 10, 0, 8),
    (10, 2, 10, 0, 8, 0, 8),  # the unhealthy replicas of old ReplicaSets are cleaned up
    (10, 2, 10, 0, 9, 0, 8),  # 1 unhealthy cleaned up and 1 ready scaled down
    (10, 2, 8, 2, 8, 0, None),  # the new ReplicaSet's unavailable pods stop a further step
])
def test_reconcile_old_replica_sets(replicas, unavailable, old, new, ready_old, ready_new, expected_old):
    sim = bare_sim()
    d = deployment(replicas, max_unavailable=unavailable)
    new_rs, old_rs = rs("foo-new", new, available=ready_new), rs("foo-old", old, available=ready_old)
    scaled = sim.workloads.deployments.reconcile_old_replica_sets([old_rs, new_rs], [old_rs], new_rs, d)
    assert scaled is (expected_old is not None)
    assert old_rs.replicas == (old if expected_old is None else expected_old)


@pytest.mark.parametrize("old, ready, max_cleanup, expected", [
    # TestDeploymentController_cleanupUnhealthyReplicas (maxSurge 2, maxUnavailable 2)
    (10, 8, 1, 1),
    (10, 8, 3, 2),
    (10, 8, 0, 0),
    (10, 10, 3, 0),
])
def test_cleanup_unhealthy_replicas(old, ready, max_cleanup, expected):
    sim = bare_sim()
    d = deployment(10, max_surge=2, max_unavailable=2)
    old_rs = rs("foo-v2", old, available=ready)
    _, cleaned = sim.workloads.deployments.cleanup_unhealthy_replicas([old_rs], d, max_cleanup)
    assert cleaned == expected
    assert old_rs.replicas == old - expected


@pytest.mark.parametrize("replicas, unavailable, ready, old, expected_old", [
    # TestDeploymentController_scaleDownOldReplicaSetsForRollingUpdate (maxSurge 0)
    (10, 0, 10, 10, 9),
    (10, 2, 10, 10, 8),
    (10, 2, 8, 10, None),
    (10, 2, 10, 0, None),
    (10, 2, 1, 10, None),
])
def test_scale_down_old_replica_sets_for_rolling_update(replicas, unavailable, ready, old, expected_old):
    sim = bare_sim()
    d = deployment(replicas, max_unavailable=unavailable)
    old_rs = rs("foo-v2", old, available=ready)
    scaled = sim.workloads.deployments.scale_down_old_replica_sets_for_rolling_update([old_rs], [old_rs], d)
    assert (scaled > 0) is (expected_old is not None)
    assert old_rs.replicas == (old if expected_old is None else expected_old)


# ------------------------------------------------------------------ sync_test.go TestScale

NEW, OLD, OLDER = 2, 1, 0  # creation times


@pytest.mark.parametrize("name, replicas, old_replicas, surge, old_surge, new, olds, expected_new, expected_olds", [
    ("normal scaling event: 10 -> 12", 12, 10, 0, 0, 10, [], 12, []),
    ("normal scaling event: 10 -> 5", 5, 10, 0, 0, 10, [], 5, []),
    ("proportional scaling: 5 -> 10", 10, 5, 0, 0, 2, [3], 4, [6]),
    ("proportional scaling: 5 -> 3", 3, 5, 0, 0, 2, [3], 1, [2]),
    ("proportional scaling: 9 -> 4", 4, 9, 0, 0, 8, [1], 4, [0]),
    ("proportional scaling: 7 -> 10", 10, 7, 0, 0, 2, [3, 2], 3, [4, 3]),
    ("proportional scaling: 13 -> 8", 8, 13, 0, 0, 2, [8, 3], 1, [5, 2]),
    ("leftover distribution: 3 -> 4", 4, 3, 0, 0, 1, [1, 1], 2, [1, 1]),
    ("leftover distribution: 3 -> 2", 2, 3, 0, 0, 1, [1, 1], 1, [1, 0]),
    ("proportional scaling (no new rs): 4 -> 5", 5, 4, 0, 0, None, [2, 2], None, [3, 2]),
    ("proportional scaling: 6 -> 0", 0, 6, 0, 0, 3, [2, 1], 0, [0, 0]),
    ("proportional scaling: 0 -> 6", 6, 6, 0, 0, 0, [0, 0], 6, [0, 0]),
    ("deployment with surge pods", 20, 10, 2, 2, 6, [6], 11, [11]),
    ("change both surge and size", 50, 10, 6, 3, 5, [8], 22, [34]),
])
def test_proportional_scaling(name, replicas, old_replicas, surge, old_surge, new, olds, expected_new, expected_olds):
    sim = bare_sim()
    d = deployment(replicas, max_surge=surge)
    # the replicas annotations the ReplicaSets got under the old size (SetReplicasAnnotations)
    before = old_replicas + resolve_fenceposts(old_surge, 0, old_replicas)[0]
    new_rs = rs("foo-v9", new, NEW) if new is not None else None
    old_rss = [rs(f"foo-v{len(olds) - i}", n, OLD if i == 0 else OLDER) for i, n in enumerate(olds)]
    for r in [new_rs, *old_rss]:
        if r is not None:
            r.desired_replicas, r.max_replicas = old_replicas, before
    sim.workloads.deployments.scale(d, new_rs, old_rss)
    if new_rs is not None:
        assert new_rs.replicas == expected_new, name
    assert [r.replicas for r in old_rss] == expected_olds, name


def test_a_saturated_but_broken_new_replica_set_does_not_affect_old_pods():
    sim = bare_sim()
    d = deployment(2, max_surge=1, max_unavailable=1)
    new_rs, old_rs = rs("foo-v2", 2, NEW, available=0), rs("foo-v1", 1, OLD)
    for r in (new_rs, old_rs):
        r.desired_replicas, r.max_replicas = 2, 3
    sim.workloads.deployments.scale(d, new_rs, [old_rs])
    assert (new_rs.replicas, old_rs.replicas) == (2, 1)


# ------------------------------------------------------------------ pod-template-hash


def test_the_pod_template_hash_follows_the_template_not_the_name():
    a = PodTemplate(labels={"app": "web"}, cpu=500)
    assert template_hash(a) == template_hash(PodTemplate(labels={"app": "web"}, cpu=500))
    assert template_hash(a) != template_hash(PodTemplate(labels={"app": "web"}, cpu=600))
    assert template_hash(a) != template_hash(PodTemplate(labels={"app": "web"}, cpu=500, annotations={"x": "1"}))
    # rand.SafeEncodeString of a 32-bit decimal: at most 10 characters of the safe alphabet
    assert 1 <= len(template_hash(a)) <= 10 and set(template_hash(a)) <= set("bcdfghjklmnpqrstvwxz2456789")


# ------------------------------------------------------------------ rollouts on the virtual clock


def test_a_rolling_update_steps_by_max_surge_and_max_unavailable():
    """4 replicas, 25 %/25 %: surge 1, unavailable 1. Each step waits for the new pods to be available."""
    sim = sim_with(replicas=4)
    sim.run_until(59)
    old = names(sim)[0]
    result = sim.apply(Operation("rollout", deployment="web"))
    assert result.ok and result.message == "deployment.apps/web restarted"
    sim.run_until(120)
    new = names(sim)[1]
    assert scaling_events(sim) == [
        (0.0, f"Scaled up replica set {old} from 0 to 4"),
        (59.0, f"Scaled up replica set {new} from 0 to 1"),
        (59.0, f"Scaled down replica set {old} from 4 to 3"),
        (59.0, f"Scaled up replica set {new} from 1 to 2"),
        (60.0, f"Scaled down replica set {old} from 3 to 1"),
        (60.0, f"Scaled up replica set {new} from 2 to 4"),
        (61.0, f"Scaled down replica set {old} from 1 to 0"),
    ]
    d = sim.store.deployments["web"]
    assert d.revision == 2 and d.generation == 2 and d.observed_generation == 2
    assert (d.status_replicas, d.updated_replicas, d.ready_replicas, d.available_replicas) == (4, 4, 4, 4)
    progressing = d.conditions["Progressing"]
    assert (progressing.status, progressing.reason) == ("True", "NewReplicaSetAvailable")
    assert progressing.message == f'ReplicaSet "{new}" has successfully progressed.'
    assert rollout_status(d) == ('deployment "web" successfully rolled out', True)
    pods = [p for p in sim.store.pods.values() if p.is_active()]
    assert len(pods) == 4 and all(p.owner.name == new and p.labels["pod-template-hash"] in new for p in pods)


def test_max_surge_zero_scales_down_first():
    sim = sim_with(replicas=3, deployment_extra='strategy = { rollingUpdate = { maxSurge = 0, maxUnavailable = 1 } }')
    sim.run_until(10)
    old = names(sim)[0]
    sim.apply(Operation("rollout", deployment="web", pod_spec={"requests": {"cpu": "600m"}}))
    sim.run_until(60)
    new = names(sim)[1]
    assert scaling_events(sim)[1:] == [
        (10.0, f"Scaled down replica set {old} from 3 to 2"),
        (10.0, f"Scaled up replica set {new} from 0 to 1"),
        (11.0, f"Scaled down replica set {old} from 2 to 1"),
        (11.0, f"Scaled up replica set {new} from 1 to 2"),
        (12.0, f"Scaled down replica set {old} from 1 to 0"),
        (12.0, f"Scaled up replica set {new} from 2 to 3"),
    ]


def test_recreate_waits_for_every_old_pod_to_stop():
    sim = sim_with(replicas=3, deployment_extra='strategy = { type = "Recreate" }')
    sim.run_until(10)
    old = names(sim)[0]
    sim.apply(Operation("rollout", deployment="web"))
    sim.run_until(60)
    new = names(sim)[1]
    # the old pods take stopDuration (2 s) to exit: the new ReplicaSet is created only then
    assert scaling_events(sim)[1:] == [
        (10.0, f"Scaled down replica set {old} from 3 to 0"),
        (12.0, f"Scaled up replica set {new} from 0 to 3"),
    ]


def test_a_stuck_rollout_exceeds_its_progress_deadline_on_the_clock():
    """3 replicas on a full cluster: maxUnavailable 25 % rounds down to 0, the surge pod stays Pending."""
    sim = sim_with(replicas=3, nodes=3, cpu="2", extra='''
[[deployments]]
name = "filler"
replicas = 9
template = { labels = { app = "filler" }, requests = { cpu = "500m", memory = "256Mi" } }
''')
    sim.run_until(60)
    sim.apply(Operation("rollout", deployment="web", pod_spec={"requests": {"cpu": "600m"}}))
    sim.run_until(61)
    d = sim.store.deployments["web"]
    new = names(sim)[1]
    assert rollout_status(d)[0] == 'Waiting for deployment "web" rollout to finish: 1 out of 3 new replicas have been updated...'
    assert sim.workloads.deployments.deadline_at("web") == 661_000  # lastUpdateTime 60 s + 600 s + 1 s
    pending = [p for p in sim.store.pods.values() if p.owner.name == new]
    assert len(pending) == 1 and pending[0].phase == "Pending"
    assert sim.scheduler.last_attempt[pending[0].key].message.startswith("0/3 nodes are available: 3 Insufficient cpu.")
    sim.run_until(660)
    assert d.conditions["Progressing"].reason == "ReplicaSetUpdated"
    sim.run_until(661)
    cond = d.conditions["Progressing"]
    assert (cond.status, cond.reason, cond.last_update_time, cond.last_transition_time) == (
        "False", "ProgressDeadlineExceeded", 661_000, 661_000)
    assert cond.message == f'ReplicaSet "{new}" has timed out progressing.'
    assert d.conditions["Available"].reason == "MinimumReplicasAvailable"
    assert rollout_status(d)[0] == 'error: deployment "web" exceeded its progress deadline'
    assert sim.workloads.deployments.deadline_at("web") is None


def test_proportional_scaling_mid_rollout_on_the_clock():
    """Scaling a Deployment in the middle of a stuck rollout shares the new replicas out by size."""
    sim = sim_with(replicas=10, nodes=1, cpu="5500m", deployment_extra='strategy = { rollingUpdate = { maxSurge = 3, maxUnavailable = 0 } }')
    sim.run_until(10)
    sim.apply(Operation("rollout", deployment="web", pod_spec={"requests": {"cpu": "600m"}}))
    sim.run_until(20)
    old, new = (sim.workloads.replicasets[n] for n in names(sim))
    assert (old.replicas, new.replicas) == (10, 3)  # the surge pods cannot be scheduled
    sim.apply(Operation("scale", deployment="web", replicas=20))
    sim.run_until(21)
    # allowed 20 + 3 (maxSurge 3) = 23, 13 running: old gets round(10*23/13) - 10 = 8, new min(round(3*23/13)-3, 2) = 2
    assert (old.replicas, new.replicas) == (18, 5)
    assert scaling_events(sim)[-2:] == [(20.0, f"Scaled up replica set {old.name} from 10 to 18"),
                                        (20.0, f"Scaled up replica set {new.name} from 3 to 5")]


def test_min_ready_seconds_delays_availability():
    sim = sim_with(replicas=2, deployment_extra="minReadySeconds = 30")
    sim.run_until(2)
    d = sim.store.deployments["web"]
    assert (d.ready_replicas, d.available_replicas) == (2, 0)
    assert d.conditions["Available"].reason == "MinimumReplicasUnavailable"
    sim.run_until(31)  # ready at 1 s, available 30 s later
    assert d.available_replicas == 2
    assert d.conditions["Available"].last_transition_time == 31_000


def test_undo_pause_resume_and_history_limit():
    sim = sim_with(replicas=2, deployment_extra="revisionHistoryLimit = 1")
    sim.run_until(5)
    first = names(sim)[0]
    assert sim.apply(Operation("rollout-undo", deployment="web")).message == 'no rollout history found for deployment "web"'
    sim.apply(Operation("rollout", deployment="web", pod_spec={"requests": {"cpu": "600m"}}))
    sim.run_until(20)
    sim.apply(Operation("rollout", deployment="web", pod_spec={"requests": {"cpu": "700m"}}))
    sim.run_until(40)
    # revisionHistoryLimit 1: the oldest empty ReplicaSet is deleted once the rollout completes
    assert first not in names(sim) and len(names(sim)) == 2
    result = sim.apply(Operation("rollout-undo", deployment="web"))
    assert result.message == "deployment.apps/web rolled back"
    sim.run_until(60)
    d = sim.store.deployments["web"]
    rs2 = sim.workloads.replicasets[names(sim)[0]]
    assert d.template.cpu == 600 and d.revision == 4 and rs2.revision == 4 and rs2.revision_history == (2,)
    assert sim.apply(Operation("pause-rollout", deployment="web")).message == "deployment.apps/web paused"
    assert not sim.apply(Operation("pause-rollout", deployment="web")).ok
    assert sim.apply(Operation("rollout", deployment="web")).message == \
        "can't restart paused deployment (run rollout resume first)"
    sim.apply(Operation("rollout", deployment="web", pod_spec={"requests": {"cpu": "800m"}}))
    sim.run_until(70)
    assert d.conditions["Progressing"].reason == "DeploymentPaused" and d.conditions["Progressing"].status == "Unknown"
    # paused: no new ReplicaSet; both existing ones count as old against the new template, and the
    # cleanup a paused sync does keeps only the live one (revision 4) within revisionHistoryLimit 1
    assert names(sim) == [rs2.name]
    assert sim.apply(Operation("resume-rollout", deployment="web")).message == "deployment.apps/web resumed"
    sim.run_until(71)
    assert len(names(sim)) == 2 and d.template.cpu == 800 and d.revision == 5


def test_set_strategy_unsticks_a_rollout():
    sim = sim_with(replicas=3, nodes=3, cpu="2", extra='''
[[deployments]]
name = "filler"
replicas = 9
template = { labels = { app = "filler" }, requests = { cpu = "500m", memory = "256Mi" } }
''')
    sim.run_until(10)
    sim.apply(Operation("rollout", deployment="web"))
    sim.run_until(30)
    bad = sim.apply(Operation("set-strategy", deployment="web",
                              strategy={"rollingUpdate": {"maxSurge": 0, "maxUnavailable": 0}}))
    assert not bad.ok and "may not be 0 when maxSurge is 0" in bad.message
    ok = sim.apply(Operation("set-strategy", deployment="web",
                             strategy={"rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}}))
    assert ok.message == "deployment.apps/web patched"
    sim.run_until(60)
    d = sim.store.deployments["web"]
    assert rollout_status(d) == ('deployment "web" successfully rolled out', True)


def test_a_complete_deployment_scaled_beyond_capacity_has_no_deadline_to_poll():
    """NewReplicaSetAvailable never times out: no progress timer (Kubernetes requeues it to no effect)."""
    sim = sim_with(replicas=2, nodes=1, cpu="2")
    sim.run_until(10)
    sim.apply(Operation("scale", deployment="web", replicas=10))
    sim.run_until(700)
    d = sim.store.deployments["web"]
    assert d.conditions["Progressing"].reason == "NewReplicaSetAvailable"
    assert (d.replicas, d.available_replicas) == (10, 4)
    assert sim.workloads.deployments.deadline_at("web") is None
    assert rollout_status(d)[0] == 'Waiting for deployment "web" rollout to finish: 4 of 10 updated replicas are available...'
