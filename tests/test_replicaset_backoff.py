"""ReplicaSet realism (pkg/controller/replicaset/replica_set.go): a sync whose create failed is
retried with the default controller rate limiter's per-item backoff (5 ms doubled per failure, at
most 1000 s), creates go in slow-start batches (1, 2, 4, ...) and a sync creates or deletes at
most burstReplicas (500) pods."""

from conftest import events, make_sim, nodes_toml, occurrence_times

from playground.engine.objects import Deployment, PodTemplate, PriorityClass
from playground.engine import workloads
from playground.engine.workloads import BURST_REPLICAS, RATE_LIMIT_MAX_MS


def failing_deployment(sim, replicas=2):
    template = PodTemplate(labels={"app": "web"}, priority_class_name="gone")
    sim.workloads.add_deployment(Deployment("web", "default", replicas, template))
    sim.run_until(0)
    return sim.workloads.replicasets_of("web")[0]


def test_failed_create_is_retried_on_the_rate_limited_backoff():
    sim = make_sim(nodes_toml("n-", 1))
    rs = failing_deployment(sim)
    sim.run_until(2)
    times = occurrence_times(sim, "FailedCreate", f"ReplicaSet/default/{rs.name}")
    # one refused create per sync (the first slow-start batch is one pod), then 5 ms, 10 ms, 20 ms ...
    expected, t, delay = [], 0, 5
    while t <= 2000:
        expected.append(t)
        t += delay
        delay *= 2
    assert times == expected
    assert sim.workloads.retry_due(rs.name) == t


def test_the_backoff_is_capped_at_1000_seconds():
    sim = make_sim(nodes_toml("n-", 1))
    rs = failing_deployment(sim)
    sim.run_until(3600)
    times = occurrence_times(sim, "FailedCreate", f"ReplicaSet/default/{rs.name}")
    gaps = [b - a for a, b in zip(times, times[1:])]
    assert gaps[:3] == [5, 10, 20] and max(gaps) == RATE_LIMIT_MAX_MS
    assert gaps[-1] == RATE_LIMIT_MAX_MS and gaps[-2] == RATE_LIMIT_MAX_MS


def test_a_successful_sync_resets_the_backoff_and_the_pods_come():
    sim = make_sim(nodes_toml("n-", 1))
    rs = failing_deployment(sim)
    sim.run_until(100)
    sim.store.priority_classes["gone"] = PriorityClass("gone", 1000)
    due = sim.workloads.retry_due(rs.name)
    assert due is not None
    sim.run_until(due / 1000)
    created = events(sim, "SuccessfulCreate", f"ReplicaSet/default/{rs.name}")
    assert len(created) == 2 and {e.time for e in created} == {due}
    assert sim.workloads.retry_due(rs.name) is None
    assert len(sim.store.owned_pods("ReplicaSet", rs.name)) == 2


def test_slow_start_batches_stop_at_the_batch_with_a_failure(monkeypatch):
    sim = make_sim(nodes_toml("n-", 1))
    attempts = []
    real = sim.workloads._create

    def create(pod, ref, source):
        attempts.append(pod.name)
        if len(attempts) >= 5:  # from the second pod of the third batch (1, 2, 4) on, refused
            sim.store.event("Warning", "FailedCreate", ref, "Error creating: refused", source)
            return False
        return real(pod, ref, source)

    monkeypatch.setattr(sim.workloads, "_create", create)
    # (the failures are injected into each create: the batches go one create after another, as
    # they do whenever a create could be refused)
    monkeypatch.setattr(sim.workloads, "create_together", False)
    sim.workloads.add_deployment(Deployment("web", "default", 20, PodTemplate(labels={"app": "web"})))
    sim.run_until(0)
    rs = sim.workloads.replicasets_of("web")[0]
    # batches of 1 and 2 done; the batch of 4 is tried whole (its creates run concurrently) and is
    # the last: 7 attempts, 4 pods. Observing those 4 pods syncs the ReplicaSet again at once (the
    # informer's add, not the rate limiter): its first batch of 1 fails. Next try 5 ms after the
    # first failure (the second failure's 10 ms retry would come later).
    assert len(attempts) == 8
    assert len(sim.store.owned_pods("ReplicaSet", rs.name)) == 4
    assert sim.workloads.retry_due(rs.name) == 5
    sim.run_until(0.005)
    assert len(attempts) == 9 and sim.workloads.retry_due(rs.name) == 5 + 20


def test_a_sync_creates_at_most_burst_replicas(monkeypatch):
    monkeypatch.setattr(workloads, "BURST_REPLICAS", 3)
    sim = make_sim(nodes_toml("n-", 1))
    synced = []
    real = sim.workloads._slow_start_create

    def spy(rs, count, owner, ref):
        synced.append(count)
        return real(rs, count, owner, ref)

    monkeypatch.setattr(sim.workloads, "_slow_start_create", spy)
    sim.workloads.add_deployment(Deployment("web", "default", 7, PodTemplate(labels={"app": "web"})))
    sim.run_until(0)
    assert synced == [3, 3, 1] and BURST_REPLICAS == 500
    rs = sim.workloads.replicasets_of("web")[0]
    assert len(sim.store.owned_pods("ReplicaSet", rs.name)) == 7
