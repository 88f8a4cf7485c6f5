"""The disruption controller (PodDisruptionBudget status) and the Eviction API (reference §4.3)."""

import pytest

from conftest import events, make_sim, nodes_toml

from playground.engine import Operation
from playground.engine.disruption import TOO_MANY_REQUESTS, scaled_value, selector_string


def web(replicas: int, budget: str, extra: str = "", nodes: str = nodes_toml("n-", 2)) -> str:
    return nodes + f"""
[[deployments]]
name = "web"
replicas = {replicas}
template = {{ labels = {{ app = "web" }}, requests = {{ cpu = "100m" }} }}

[[podDisruptionBudgets]]
name = "web"
selector = {{ app = "web" }}
{budget}
{extra}
"""


def status(pdb) -> tuple[int, int, int, int]:
    return pdb.expected_pods, pdb.desired_healthy, pdb.current_healthy, pdb.disruptions_allowed


def web_pods(sim):
    return sorted((p for p in sim.store.pods.values() if p.labels.get("app") == "web"), key=lambda p: p.name)


def test_scaled_values_round_up():
    assert [scaled_value("50%", 3), scaled_value("30%", 4), scaled_value("100%", 7), scaled_value(2, 9)] == [2, 2, 7, 2]
    assert selector_string({"tier": "db", "app": "web"}) == (
        "&LabelSelector{MatchLabels:map[string]string{app: web,tier: db,},"
        "MatchExpressions:[]LabelSelectorRequirement{},}")


@pytest.mark.parametrize("budget, expected", [
    ("minAvailable = 3", (4, 3, 4, 1)),
    ('minAvailable = "50%"', (4, 2, 4, 2)),
    ('minAvailable = "60%"', (4, 3, 4, 1)),  # 2.4 rounds up to 3
    ("maxUnavailable = 1", (4, 3, 4, 1)),
    ('maxUnavailable = "30%"', (4, 2, 4, 2)),  # 1.2 rounds up to 2 unavailable
    ("minAvailable = 5", (4, 5, 4, 0)),
])
def test_status_once_the_pods_are_ready(budget, expected):
    sim = make_sim(web(4, budget))
    pdb = sim.store.pdbs["default/web"]
    sim.run_until(0.999)
    assert status(pdb)[2:] == (0, 0)  # created at 0 s, Ready after their 1 s start
    # The controller's first sync ran before the ReplicaSet created the pods.
    assert [(e.time, e.message) for e in events(sim, "NoPods")] == [(0, "No matching pods found")]
    sim.run_until(1)
    assert status(pdb) == expected
    cond = pdb.conditions["DisruptionAllowed"]
    allowed = expected[3] > 0
    assert (cond.status, cond.reason) == (("True", "SufficientPods") if allowed else ("False", "InsufficientPods"))


def test_percentages_use_the_controllers_scale_and_integers_count_pods():
    # One node fits two 500m pods: two of four replicas stay Pending.
    nodes = nodes_toml("n-", 1, cpu="1")
    sim = make_sim(web(4, 'maxUnavailable = "25%"', nodes=nodes).replace('cpu = "100m"', 'cpu = "500m"'))
    sim.run_until(2)
    assert status(sim.store.pdbs["default/web"]) == (4, 3, 2, 0)
    sim.apply(Operation("scale", deployment="web", replicas=2))
    sim.run_until(3)
    assert status(sim.store.pdbs["default/web"]) == (2, 1, 2, 1)  # 25% of 2 rounds up to 1
    sim = make_sim(web(4, "minAvailable = 1", nodes=nodes).replace('cpu = "100m"', 'cpu = "500m"'))
    sim.run_until(2)
    assert status(sim.store.pdbs["default/web"]) == (4, 1, 2, 1)  # expectedPods = matching pods, Pending too


def test_no_matching_pods_and_unmanaged_pods_are_reported():
    sim = make_sim(nodes_toml("n-", 1) + """
[[pods]]
name = "bare"
labels = { app = "bare" }

[[podDisruptionBudgets]]
name = "bare"
selector = { app = "bare" }
minAvailable = "50%"
""")
    sim.run_until(2)
    assert not events(sim, "NoPods")  # scenario pods exist before the controller's first sync
    unmanaged = events(sim, "UnmanagedPods", "PodDisruptionBudget/default/bare")
    assert unmanaged[0].type == "Warning" and unmanaged[0].message == (
        "Pods selected by this PodDisruptionBudget (selector: &LabelSelector{MatchLabels:map[string]string{app: bare,},"
        "MatchExpressions:[]LabelSelectorRequirement{},}) were found to be unmanaged. As a result, the status of the "
        "PDB cannot be calculated correctly, which may result in undefined behavior. To account for these pods please "
        "set \".spec.minAvailable\" field of the PDB to an integer value.")
    # No controller, no scale: nothing is expected, so nothing may be disrupted.
    assert status(sim.store.pdbs["default/bare"]) == (0, 0, 1, 0)


def test_daemonset_pods_make_the_status_fail_safe():
    sim = make_sim(nodes_toml("n-", 2) + """
[[daemonSets]]
name = "agent"
template = { labels = { app = "agent" } }

[[podDisruptionBudgets]]
name = "agent"
selector = { app = "agent" }
maxUnavailable = 1
""")
    sim.run_until(2)
    pdb = sim.store.pdbs["default/agent"]
    cond = pdb.conditions["DisruptionAllowed"]
    assert pdb.disruptions_allowed == 0
    assert (cond.status, cond.reason, cond.message) == (
        "False", "SyncFailed", "daemonsets.apps does not implement the scale subresource")
    assert [e.message for e in events(sim, "CalculateExpectedPodCountFailed")] == [
        "Failed to calculate the number of expected pods: daemonsets.apps does not implement the scale subresource"]
    pod = next(p for p in sim.store.pods.values() if p.node_name == "n-1")
    result = sim.disruption.evict(pod)
    assert (result.code, result.message) == (429, TOO_MANY_REQUESTS)
    assert result.cause == ("The disruption budget agent does not allow evicting pods currently because it failed "
                            "sync: daemonsets.apps does not implement the scale subresource")


def test_an_approved_disruption_not_followed_by_a_deletion_expires_after_two_minutes():
    sim = make_sim(web(4, "minAvailable = 2"))
    sim.run_until(10)
    pdb = sim.store.pdbs["default/web"]
    pod = web_pods(sim)[0]
    # The Eviction API approves (checkAndDecrement) but the pod is never deleted.
    assert sim.disruption._check_and_decrement(pod, pdb) is None
    assert pdb.disrupted_pods == {pod.name: 10_000} and pdb.disruptions_allowed == 1
    sim.run_until(10)
    assert status(pdb) == (4, 2, 3, 1)  # the pod counts as unhealthy while it is expected to go
    sim.run_until(129.999)
    assert status(pdb) == (4, 2, 3, 1) and pdb.disrupted_pods == {pod.name: 10_000}
    sim.run_until(130)
    assert status(pdb) == (4, 2, 4, 2) and pdb.disrupted_pods == {}
    assert [(e.time, e.object, e.message) for e in events(sim, "NotDeleted")] == [
        (130_000, pod.ref, "Pod was expected by PDB default/default to be deleted but it wasn't")]


def test_eviction_decrements_the_budget_and_marks_the_pod():
    sim = make_sim(web(4, "minAvailable = 2"))
    sim.run_until(10)
    pdb = sim.store.pdbs["default/web"]
    first, second, third = web_pods(sim)[:3]
    result = sim.disruption.evict(first, 5)
    assert result.ok and result.pdb == "default/web"
    target = first.conditions["DisruptionTarget"]
    assert (target.status, target.reason, target.message) == ("True", "EvictionByEvictionAPI", "Eviction API: evicting")
    assert first.deletion_timestamp == 15_000 and first.deletion_grace_period_seconds == 5
    assert pdb.disruptions_allowed == 1 and pdb.disrupted_pods == {first.name: 10_000}
    assert sim.disruption.evict(second).ok
    refused = sim.disruption.evict(third)
    # The status still says 4 healthy (the controller has not run yet): the newest cause text.
    assert (refused.code, refused.message, refused.cause) == (
        429, TOO_MANY_REQUESTS, "The disruption budget web does not allow evicting pods currently")
    sim.run_until(10)  # the controller catches up: both evicted pods are being deleted
    # Terminating pods and the ReplicaSet's two new Pending pods all count for an integer minAvailable.
    assert status(pdb) == (6, 2, 2, 0) and pdb.disrupted_pods == {}
    refused = sim.disruption.evict(third)
    assert refused.cause == "The disruption budget web needs 2 healthy pods and has 2 currently"


def test_eviction_paths_that_ignore_or_refuse_the_budget():
    sim = make_sim(web(3, "minAvailable = 3", extra="""
[[podDisruptionBudgets]]
name = "all-web"
selector = { app = "web" }
maxUnavailable = 1
"""))
    sim.run_until(5)
    pod = web_pods(sim)[0]
    result = sim.disruption.evict(pod)
    assert (result.code, result.message) == (
        500, "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.")
    assert pod.deletion_timestamp is None
    warned = events(sim, "MultiplePodDisruptionBudgets", pod.ref)
    assert [(e.time, e.type, e.message) for e in warned] == [
        (0, "Warning", f'Pod "default"/"{pod.name}" matches multiple PodDisruptionBudgets.  Chose "web" arbitrarily.')]
    assert sim.disruption.evict(None, name="ghost").message == 'pods "ghost" not found'


def test_pending_and_unready_pods_are_deleted_without_spending_the_budget():
    nodes = nodes_toml("n-", 1, cpu="1")
    sim = make_sim(web(3, "minAvailable = 2", nodes=nodes).replace('cpu = "100m"', 'cpu = "500m"'))
    sim.run_until(5)
    pdb = sim.store.pdbs["default/web"]
    assert status(pdb) == (3, 2, 2, 0)
    pending = next(p for p in web_pods(sim) if p.phase == "Pending")
    assert sim.disruption.evict(pending).ok and pending.key not in sim.store.pods  # unbound: gone at once
    # A running pod that is not Ready, while the budget is met: deleted, budget untouched.
    sim.run_until(5)
    running = [p for p in web_pods(sim) if p.phase == "Running"]
    sim.store.set_pod_condition(running[0], "Ready", "False")
    sim.run_until(6)
    assert status(pdb) == (3, 2, 1, 0)
    assert not sim.disruption.evict(running[0]).ok  # budget not met (1 < 2): checkAndDecrement says no
    pdb.unhealthy_pod_eviction_policy = "AlwaysAllow"
    assert sim.disruption.evict(running[0]).ok and pdb.disruptions_allowed == 0 and pdb.disrupted_pods == {}


def test_a_stale_budget_answers_429_until_the_controller_saw_it():
    sim = make_sim(web(4, "minAvailable = 1"))
    sim.run_until(5)
    pdb = sim.store.pdbs["default/web"]
    pdb.generation += 1  # a spec update the controller has not processed yet
    result = sim.disruption.evict(web_pods(sim)[0])
    assert (result.code, result.cause) == (429, "The disruption budget web is still being processed by the server.")
    sim.disruption.enqueue(pdb.key)
    sim.run_until(5)
    assert pdb.observed_generation == 2 and sim.disruption.evict(web_pods(sim)[0]).ok
