"""kubectl drain: cordon, kubectl's pod filters, evictions through PodDisruptionBudgets, retries every
5 s, --timeout, --disable-eviction, --grace-period, --pod-selector, --skip-wait-for-delete-timeout
(reference §4), and a property test: a drain never takes a budget below its desired healthy pods."""

from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import events, make_sim, nodes_toml

from playground.engine import Operation
from playground.engine.drain import go_duration, parse_pod_selector
from playground.engine.operations import OPERATION_INFO

FILTERS = nodes_toml("n-", 2) + """
[[daemonSets]]
name = "agent"
template = { labels = { app = "agent" } }

[[deployments]]
name = "cache"
replicas = 1
template = { labels = { app = "cache" }, emptyDir = true, nodeSelector = { "kubernetes.io/hostname" = "n-1" } }

[[pods]]
name = "bare"
nodeName = "n-1"
"""


def output(sim, node="n-1"):
    return [(t, stream, line) for t, stream, line in sim.drain.status[node].output]


def names(sim, node):
    return {p.key: p for p in sim.store.pods_on(node)}


def test_go_durations_and_selectors():
    assert [go_duration(ms) for ms in (5000, 60_000, 90_000, 3_600_000, 1500, 500, 0)] == [
        "5s", "1m0s", "1m30s", "1h0m0s", "1.5s", "500ms", "0s"]
    assert parse_pod_selector("app=web, tier!=db,env==prod") == [("app", "=", "web"), ("tier", "!=", "db"),
                                                                 ("env", "=", "prod")]


def test_operation_info_lists_the_drain_flags():
    info = OPERATION_INFO["drain"]
    assert [(o.field, o.key, o.flag) for o in info.options] == [
        ("ignore_daemonsets", "ignoreDaemonsets", "--ignore-daemonsets"),
        ("delete_emptydir_data", "deleteEmptydirData", "--delete-emptydir-data"),
        ("force", "force", "--force"),
        ("grace_period_seconds", "gracePeriodSeconds", "--grace-period"),
        ("timeout", "timeout", "--timeout"),
        ("disable_eviction", "disableEviction", "--disable-eviction"),
        ("pod_selector", "podSelector", "--pod-selector"),
        ("skip_wait_for_delete_timeout", "skipWaitForDeleteTimeout", "--skip-wait-for-delete-timeout"),
    ]
    assert {"cancel-drain", "delete-node", "restart-kubelet"} <= set(OPERATION_INFO)


def test_filter_errors_abort_before_anything_is_evicted():
    sim = make_sim(FILTERS)
    sim.run_until(10)
    pods = names(sim, "n-1")
    agent = next(k for k in pods if k.startswith("default/agent-"))
    cache = next(k for k in pods if k.startswith("default/cache-"))
    result = sim.apply(Operation("drain", node="n-1"))
    error = ("[cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): " + agent
             + ", cannot delete Pods that declare no controller (use --force to override): default/bare"
             + ", cannot delete Pods with local storage (use --delete-emptydir-data to override): " + cache + "]")
    assert not result.ok and result.message == f'unable to drain node "n-1" due to error: {error}'
    assert output(sim) == [
        (10_000, "out", "node/n-1 cordoned"),
        (10_000, "err", f'error: unable to drain node "n-1" due to error: {error}, continuing command...'),
        (10_000, "err", "There are pending nodes to be drained:"),
        (10_000, "err", " n-1"),
        (10_000, "err", f"error: {error}"),
    ]
    assert sim.store.nodes["n-1"].unschedulable  # the cordon stays
    assert all(p.deletion_timestamp is None for p in sim.store.pods.values())
    assert sim.drain.status["n-1"].state == "Failed"


def test_flags_turn_errors_into_warnings_and_daemonset_pods_stay():
    sim = make_sim(FILTERS)
    sim.run_until(10)
    pods = names(sim, "n-1")
    agent = next(k for k in pods if k.startswith("default/agent-"))
    cache = pods[next(k for k in pods if k.startswith("default/cache-"))]
    result = sim.apply(Operation("drain", node="n-1", ignore_daemonsets=True, delete_emptydir_data=True, force=True,
                                 grace_period_seconds=3))
    assert result.ok and result.message == "node/n-1 draining: 2 pod(s) to evict"
    # The local-storage warning of the cache pod is replaced by the unreplicated filter's Okay, as in kubectl.
    assert output(sim) == [
        (10_000, "out", "node/n-1 cordoned"),
        (10_000, "err", f"Warning: ignoring DaemonSet-managed Pods: {agent}; "
                        "deleting Pods that declare no controller: default/bare"),
        (10_000, "out", "evicting pod default/bare"),
        (10_000, "out", f"evicting pod default/{cache.name}"),
    ]
    assert sim.store.pods["default/bare"].deletion_grace_period_seconds == 3  # --grace-period
    sim.run_until(20)
    assert output(sim)[4:] == [(14_000, "out", "pod/bare evicted"), (14_000, "out", f"pod/{cache.name} evicted"),
                               (14_000, "out", "node/n-1 drained")]
    status = sim.drain.status["n-1"]
    assert status.state == "Drained" and status.ignored == [agent] and status.finished_at == 14_000
    assert agent in sim.store.pods and sim.store.pods[agent].phase == "Running"
    drain_events = events(sim, "Drain", "Node/n-1")
    assert [(e.time, e.type, e.source) for e in drain_events][-1] == (14_000, "Normal", "kubectl")


def test_mirror_pods_are_skipped_and_pod_selector_narrows_the_list():
    sim = make_sim(nodes_toml("n-", 2) + """
[[pods]]
name = "static"
nodeName = "n-1"

[[pods]]
name = "keep"
nodeName = "n-1"
labels = { tier = "keep" }

[[pods]]
name = "go"
nodeName = "n-1"
labels = { tier = "go" }
terminationGracePeriodSeconds = 0
""")
    sim.run_until(5)
    sim.store.pods["default/static"].mirror = True
    result = sim.apply(Operation("drain", node="n-1", force=True, pod_selector="tier!=keep"))
    assert result.ok and result.message == "node/n-1 drained"  # grace 0: gone at the immediate poll
    status = sim.drain.status["n-1"]
    assert status.skipped == ["default/static"] and list(status.pods) == ["default/go"]
    assert sorted(names(sim, "n-1")) == ["default/keep", "default/static"]
    refused = sim.apply(Operation("drain", node="n-2", pod_selector="tier in (a)"))
    assert not refused.ok and refused.message.startswith("podSelector 'tier in (a)' is not a label selector")


BLOCKED = """
[[nodePools]]
namePrefix = "n-"
count = 2
capacity = { cpu = "4", memory = "8Gi" }

[[nodes]]
name = "spare"
capacity = { cpu = "4", memory = "8Gi" }
taints = ["dedicated=spare:NoSchedule"]

[[deployments]]
name = "web"
replicas = 4
template = { labels = { app = "web" }, requests = { cpu = "100m" }, terminationGracePeriodSeconds = 10 }

[[podDisruptionBudgets]]
name = "web"
selector = { app = "web" }
minAvailable = 4
"""


def test_a_budget_blocks_the_drain_which_retries_every_five_seconds_until_it_can():
    sim = make_sim(BLOCKED)
    sim.run_until(30)
    on_node = sorted(k for k, p in names(sim, "n-1").items() if not p.is_terminal())
    assert len(on_node) == 2
    first, second = on_node
    sim.apply(Operation("drain", node="n-1"))
    status = sim.drain.status["n-1"]
    message = "Cannot evict pod as it would violate the pod's disruption budget."
    name = first.split("/")[1]
    assert (30_000, "err", f'error when evicting pods/"{name}" -n "default" (will retry after 5s): {message}') \
        in output(sim)
    assert status.state == "Blocked" and status.blocked == {first: "default/web", second: "default/web"}
    assert status.next_retry == 35_000
    entry = status.pods[first]
    assert entry.cause == "The disruption budget web needs 4 healthy pods and has 4 currently"
    sim.run_until(59.999)
    assert (entry.attempts, entry.refusals, entry.next_retry) == (6, 6, 60_000)  # 30, 35, ... 55 s
    # The 429 line is printed at every retry but logged as an event once per pod.
    assert len([e for e in events(sim, "Drain") if e.type == "Warning"]) == 2
    assert len([line for _, stream, line in output(sim) if stream == "err"]) == 12
    # One more replica: five healthy, one disruption allowed.
    sim.apply(Operation("scale", deployment="web", replicas=5))
    sim.run_until(61)
    assert sim.store.pdbs["default/web"].disruptions_allowed == 1
    sim.run_until(65)
    assert sim.store.pods[first].deletion_timestamp == 75_000  # evicted at the 65 s retry
    assert status.pods[second].state == "Blocked"  # same instant, the budget is spent
    sim.run_until(70)
    assert sim.store.pods[second].deletion_timestamp == 80_000  # the first one's replacement is Ready
    sim.run_until(81)
    assert status.state == "Drained" and status.finished_at == 81_000  # removed at 80 s, seen by the poll at 81 s
    assert output(sim)[-3:] == [(76_000, "out", f"pod/{name} evicted"),
                                (81_000, "out", f"pod/{second.split('/')[1]} evicted"),
                                (81_000, "out", "node/n-1 drained")]


def test_timeout_gives_up_with_kubectls_errors():
    sim = make_sim(BLOCKED)
    sim.run_until(30)
    blocked = sorted(k for k in names(sim, "n-1"))
    sim.apply(Operation("drain", node="n-1", timeout=12_000))
    sim.run_until(45)
    status = sim.drain.status["n-1"]
    # The retries at 35 s and 40 s are refused; the one at 45 s finds the deadline (42 s) passed.
    error = ", ".join(f'error when evicting pods/"{k.split("/")[1]}" -n "default": global timeout reached: 12s'
                      for k in blocked)
    assert status.state == "Failed" and status.error == f"[{error}]" and status.finished_at == 45_000
    lines = [line for _, _, line in output(sim)][-7:]
    assert lines == [f'There are pending pods in node "n-1" when an error occurred: [{error}]',
                     *[f"pod/{k.split('/')[1]}" for k in blocked],
                     f'error: unable to drain node "n-1" due to error: [{error}], continuing command...',
                     "There are pending nodes to be drained:", " n-1", f"error: [{error}]"]
    assert sim.store.nodes["n-1"].unschedulable and not any(p.deletion_timestamp for p in sim.store.pods.values())


def test_timeout_while_waiting_for_a_pod_to_terminate():
    sim = make_sim(BLOCKED.replace("minAvailable = 4", "minAvailable = 1"))
    sim.run_until(30)
    pods = sorted(names(sim, "n-1"))
    sim.apply(Operation("power-off", node="n-1"))
    sim.apply(Operation("drain", node="n-1", timeout=60_000))
    sim.run_until(90)
    status = sim.drain.status["n-1"]
    error = ", ".join(f'error when waiting for pod "{k.split("/")[1]}" in namespace "default" to terminate: '
                      "context deadline exceeded" for k in pods)
    assert status.state == "Failed" and status.finished_at == 90_000 and status.error == f"[{error}]"
    assert all(sim.store.pods[k].deletion_timestamp == 40_000 for k in pods)  # Terminating: no kubelet


def test_disable_eviction_deletes_through_the_budget():
    sim = make_sim(BLOCKED)
    sim.run_until(30)
    pods = sorted(names(sim, "n-1"))
    result = sim.apply(Operation("drain", node="n-1", disable_eviction=True))
    assert result.ok
    assert all(sim.store.pods[k].deletion_timestamp == 40_000 for k in pods)
    assert all("DisruptionTarget" not in sim.store.pods[k].conditions for k in pods)  # a plain DELETE
    assert not [line for _, _, line in output(sim) if line.startswith("evicting")]
    sim.run_until(41)
    assert sim.drain.status["n-1"].state == "Drained"
    assert [line for _, _, line in output(sim)][-1] == "node/n-1 drained"
    assert sorted(line for _, _, line in output(sim) if line.endswith("deleted")) == sorted(
        f"pod/{k.split('/')[1]} deleted" for k in pods)


def test_skip_wait_for_delete_timeout_on_a_dead_node():
    sim = make_sim(BLOCKED.replace("minAvailable = 4", "minAvailable = 1"))
    sim.run_until(30)
    pods = sorted(names(sim, "n-1"))
    sim.apply(Operation("power-off", node="n-1"))
    sim.apply(Operation("drain", node="n-1", skip_wait_for_delete_timeout=5))
    # deletionTimestamp 40 s; skipped once it is more than 5 whole seconds old: the poll at 46 s.
    sim.run_until(45.999)
    assert sim.drain.status["n-1"].state == "Draining"
    sim.run_until(46)
    status = sim.drain.status["n-1"]
    assert status.state == "Drained" and status.finished_at == 46_000
    assert [line for _, _, line in output(sim)][-3:] == [
        *[f'pod "{k.split("/")[1]}" has DeletionTimestamp older than 5 seconds, skipping' for k in pods],
        "node/n-1 drained"]


def test_cancel_and_second_drain():
    sim = make_sim(BLOCKED)
    sim.run_until(30)
    assert sim.apply(Operation("drain", node="n-1")).ok
    refused = sim.apply(Operation("drain", node="n-1"))
    assert not refused.ok and refused.message == "a drain of node n-1 is already running"
    assert sim.apply(Operation("cancel-drain", node="n-1")).ok
    assert sim.drain.status["n-1"].state == "Cancelled" and sim.store.nodes["n-1"].unschedulable
    sim.run_until(60)
    assert sim.drain.status["n-1"].pods and all(p.attempts == 1 for p in sim.drain.status["n-1"].pods.values())
    assert not sim.apply(Operation("cancel-drain", node="n-1")).ok


def test_drain_from_a_timeline_with_kubectl_flags():
    sim = make_sim(FILTERS + """
[[timeline]]
at = "10s"
do = "drain"
node = "n-1"
ignoreDaemonsets = true
deleteEmptydirData = true
force = true
gracePeriodSeconds = 3
timeout = "2m"

[[expect]]
at = "13s"
node = "n-1"
drain = "Draining"
drainRemaining = 2
unschedulable = true

[[expect]]
at = "14s"
node = "n-1"
drain = "Drained"
drainRemaining = 0
""")
    sim.run_until(20)
    assert [r.passed for r in sim.expectation_results] == [True, True]
    assert sim.drain.status["n-1"].options.timeout == 120_000
    replay = sim.replay_scenario()
    assert replay.timeline[0].ignoreDaemonsets and replay.timeline[0].timeout == 120_000


# ---------------------------------------------------------------- property: never below the budget

PROPERTY_CLUSTER = nodes_toml("n-", 4, cpu="2") + """
[[deployments]]
name = "web"
replicas = 6
template = { labels = { app = "web" }, requests = { cpu = "300m" }, terminationGracePeriodSeconds = 5 }

[[deployments]]
name = "api"
replicas = 4
template = { labels = { app = "api" }, requests = { cpu = "300m" }, terminationGracePeriodSeconds = 3 }

[[daemonSets]]
name = "agent"
template = { labels = { app = "agent" } }

[[podDisruptionBudgets]]
name = "web"
selector = { app = "web" }
minAvailable = 4

[[podDisruptionBudgets]]
name = "api"
selector = { app = "api" }
maxUnavailable = "25%"
"""

drain_step = st.tuples(
    st.integers(0, 40),
    st.sampled_from(["drain", "drain", "uncordon", "cancel-drain", "scale"]),
    st.sampled_from(["n-1", "n-2", "n-3", "n-4"]),
    st.integers(2, 8),
)


def _healthy(sim, pdb):
    return [p for p in sim.store.pods.values() if pdb.matches(p) and p.is_ready() and p.deletion_timestamp is None
            and p.name not in pdb.disrupted_pods]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(drain_step, min_size=1, max_size=10))
def test_a_drain_never_takes_a_budget_below_its_desired_healthy_pods(plan):
    sim = make_sim(PROPERTY_CLUSTER)
    sim.run_until(3)
    evict = sim.disruption.evict
    spent = []

    def checked(pod, grace=None, name=""):
        pdbs = sim.disruption.pdbs_for(pod) if pod is not None else []
        was_healthy = pod is not None and pod.is_ready() and pod.deletion_timestamp is None
        result = evict(pod, grace, name=name)
        if result.ok and pdbs and was_healthy and pod.phase == "Running":
            pdb = pdbs[0]
            _expected, desired, _unmanaged = sim.disruption.expected_pod_count(
                pdb, [p for p in sim.store.pods.values() if pdb.matches(p)])
            spent.append((sim.clock.now, pod.key))
            assert len(_healthy(sim, pdb)) >= desired, (sim.clock.now, pod.key, pdb.key)
        return result

    sim.disruption.evict = checked
    for delay, kind, node, replicas in plan:
        sim.run_until(sim.clock.now / 1000 + delay)
        if kind == "drain":
            sim.apply(Operation("drain", node=node, ignore_daemonsets=True))
        elif kind == "scale":
            sim.apply(Operation("scale", deployment="web", replicas=replicas))
        else:
            sim.apply(Operation(kind, node=node))
    sim.run_until(sim.clock.now / 1000 + 300)
    for status in sim.drain.status.values():
        for entry in status.pods.values():
            assert entry.state != "Blocked" or entry.blocked_by in sim.store.pdbs


def test_the_outlook_explains_what_blocks_a_drain():
    from playground.engine.explain import drain_outlook, pod_outlook

    sim = make_sim(BLOCKED)
    sim.run_until(30)
    sim.apply(Operation("drain", node="n-1"))
    sim.run_until(32)
    assert drain_outlook(sim, "n-1") == [
        "drain: Blocked, 2 pod(s) left",
        "drain: 2 eviction(s) refused by PodDisruptionBudget default/web (4 healthy, 4 desired)",
        "drain: next retry in 3s"]
    pod = sim.store.pods[sorted(names(sim, "n-1"))[0]]
    assert pod_outlook(sim, pod) == ("drain: eviction refused by PodDisruptionBudget default/web, retry in 3s "
                                     "(The disruption budget web needs 4 healthy pods and has 4 currently)")
    sim.apply(Operation("cancel-drain", node="n-1"))
    assert drain_outlook(sim, "n-1") == ["drain: Cancelled"]


def test_draining_a_statefulset_replica_moves_it_with_its_volume():
    sim = make_sim(nodes_toml("n-", 3) + """
[[statefulSets]]
name = "db"
replicas = 3
template = { labels = { app = "db" }, terminationGracePeriodSeconds = 10, stopDuration = "2s" }

[[podDisruptionBudgets]]
name = "db"
selector = { app = "db" }
maxUnavailable = "34%"
""")
    sim.run_until(30)
    pdb = sim.store.pdbs["default/db"]
    assert (pdb.expected_pods, pdb.desired_healthy, pdb.disruptions_allowed) == (3, 1, 2)  # 34% of 3 rounds up to 2
    node = sim.store.pods["default/db-1"].node_name
    sim.apply(Operation("drain", node=node))
    sim.run_until(32)
    # The container exits after 2 s and unmounts; the pod object goes; the StatefulSet re-creates db-1.
    db1 = sim.store.pods["default/db-1"]
    assert db1.node_name not in (None, node)
    assert [e.message for e in events(sim, "DetachVolume")] == [
        f"attacherDetacher.DetachVolume started: volume data-db-1 detached from node {node}"]
    sim.run_until(32.1)
    assert sim.attachdetach.volumes["default/data-db-1"].attached_to == db1.node_name
    sim.run_until(33.1)
    assert db1.is_ready() and sim.drain.status[node].state == "Drained"
    assert sim.drain.status[node].finished_at == 33_000  # removed at 32 s, seen by the poll at 33 s
