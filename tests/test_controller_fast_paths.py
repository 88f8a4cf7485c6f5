"""Fast paths for big clusters against their plain reference: same event log, same states.

- The node lifecycle controller leaves settled dead nodes out of its monitor pass; the reference
  (`skip_settled = False`) visits every watched node every pass.
- Pod conditions are copy-on-write dicts shared between pods with equal conditions; the reference
  writes a private dict per pod.

HYPOTHESIS_EXAMPLES raises the number of examples for a longer run.
"""

import os

from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import apply_operation, make_sim, nodes_toml

from playground.engine import Operation
from playground.engine.objects import NO_CONDITIONS, Condition, ConditionCache, Pod

EXAMPLES = int(os.environ.get("HYPOTHESIS_EXAMPLES", "20"))

NODES = ["a-1", "a-2", "a-3", "a-4", "b-1", "b-2", "c-1"]
CLUSTER = (nodes_toml("a-", 4, cpu="4", memory="8Gi") + nodes_toml("b-", 2, zone="zone-b", cpu="4", memory="8Gi")
           + nodes_toml("c-", 1, zone="zone-c", cpu="4", memory="8Gi") + """
[[deployments]]
name = "web"
replicas = 8
template = { labels = { app = "web" }, requests = { cpu = "250m", memory = "256Mi" }, stopDuration = "2s" }

[[deployments]]
name = "batch"
replicas = 4
template = { labels = { app = "batch" }, requests = { cpu = "100m" }, tolerations = [ { key = "node.kubernetes.io/unreachable", operator = "Exists", effect = "NoExecute", tolerationSeconds = 30 } ] }
""")

node_ops = st.sampled_from(["power-off", "power-off", "power-off", "power-on", "partition", "heal", "stop-kubelet", "start-kubelet",
                            "restart-kubelet", "shutdown", "cordon", "uncordon", "delete-node"])
operation = st.one_of(
    st.tuples(node_ops, st.sampled_from(NODES)),
    st.tuples(st.just("untaint"), st.sampled_from(NODES)),
    st.tuples(st.just("scale"), st.integers(0, 12)),
)
plans = st.lists(st.tuples(st.integers(1, 400), operation), min_size=1, max_size=10)
# A slow eviction rate keeps dead nodes waiting in their zone queue for many passes.
rates = st.sampled_from(["0.1", "0.02"])
# 0.9 keeps a zone with three of four nodes down Normal (tainted at the normal rate, many waiting).
thresholds = st.sampled_from(["0.55", "0.9"])


def snapshot(sim) -> tuple:
    store = sim.store
    nodes = {name: (sorted((c.type, c.status, c.reason, c.message, c.last_heartbeat_time, c.last_transition_time)
                           for c in node.conditions.values()),
                    [str(t) + f"@{t.time_added}" for t in node.taints])
             for name, node in store.nodes.items()}
    pods = {key: (p.phase, p.node_name, p.deletion_timestamp,
                  [(c.type, c.status, c.reason, c.last_transition_time) for c in p.conditions.values()])
            for key, p in store.pods.items()}
    events = [e.as_dict() for e in store.recorder.events]
    return events, nodes, pods, dict(sim.nodelifecycle.zone_states), sim.nodelifecycle.evictions_total


def run_plan(plan, skip_settled: bool, rate: str = "0.1", threshold: str = "0.55"):
    sim = make_sim(f"[controllerManager]\nnode-eviction-rate = {rate}\nunhealthy-zone-threshold = {threshold}\n"
                   + CLUSTER)
    sim.nodelifecycle.skip_settled = skip_settled
    sim.run_until(5)
    for delay, (kind, arg) in plan:
        sim.run_until(sim.clock.now / 1000 + delay)
        if kind == "wait":
            continue
        if kind == "scale":
            sim.apply(Operation("scale", deployment="web", replicas=arg))
        elif kind == "untaint":
            sim.apply(Operation("untaint", node=arg, taint="node.kubernetes.io/unreachable:NoExecute"))
        else:
            sim.apply(Operation(kind, node=arg))
    sim.run_until(sim.clock.now / 1000 + 1200)
    return sim


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plans, rates, thresholds)
def test_skipping_settled_nodes_changes_nothing(plan, rate, threshold):
    fast = run_plan(plan, skip_settled=True, rate=rate, threshold=threshold)
    reference = run_plan(plan, skip_settled=False, rate=rate, threshold=threshold)
    assert snapshot(fast) == snapshot(reference)
    assert queue_order(fast) == queue_order(reference)


outages = st.tuples(
    st.lists(st.tuples(st.integers(0, 15), st.sampled_from(["power-off", "partition", "stop-kubelet"]),
                       st.sampled_from(NODES[:4])), min_size=2, max_size=4),
    st.lists(st.tuples(st.integers(0, 300), st.sampled_from(["power-on", "heal", "start-kubelet", "cordon",
                                                              "delete-node", "power-off"]),
                       st.sampled_from(NODES)), max_size=4))


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(outages, rates)
def test_skipping_waiting_nodes_keeps_the_taint_order(outage, rate):
    """Several nodes of one zone die within seconds and wait for their taints; some come back."""
    down, later = outage
    plan = [(delay, (kind, node)) for delay, kind, node in down] + [(70, ("wait", None))]
    plan += [(delay, (kind, node)) for delay, kind, node in later]
    fast = run_plan(plan, skip_settled=True, rate=rate, threshold="0.9")
    reference = run_plan(plan, skip_settled=False, rate=rate, threshold="0.9")
    assert snapshot(fast) == snapshot(reference)
    assert queue_order(fast) == queue_order(reference)


def queue_order(sim) -> dict:
    """Each zone queue's entries in the order the taint pass would take them."""
    nlc = sim.nodelifecycle
    return {zone: sorted((queue.processing_at(name, nlc.last_pass), name) for name in queue.queued)
            for zone, queue in nlc.zone_queues.items()}


def test_nodes_waiting_for_their_taint_leave_the_pass():
    """A dead zone waits for its taints at 0.02 node/s: the waiting nodes float in the queue instead
    of being visited every pass, and are tainted at the same times as with the full pass."""
    plan = [(5, ("power-off", "a-3")), (1, ("power-off", "a-1")), (0, ("power-off", "a-4")),
            (2, ("power-off", "a-2")), (200, ("power-on", "a-3"))]
    fast = run_plan(plan, skip_settled=True, rate="0.02")
    reference = run_plan(plan, skip_settled=False, rate="0.02")
    assert snapshot(fast) == snapshot(reference)
    # Three of zone a's four nodes down stays a Normal zone with this threshold: 0.02 node/s.
    sim = make_sim("[controllerManager]\nnode-eviction-rate = 0.02\nunhealthy-zone-threshold = 0.9\n" + CLUSTER)
    sim.run_until(10)
    for name in ("a-1", "a-2", "a-3", "b-1"):
        sim.apply(Operation("power-off", node=name))
    sim.run_until(100)  # Unknown at ~55 s; one taint per zone, the next waits 50 s
    queue = sim.nodelifecycle.zone_queues["zone-a"]
    assert queue.floating == ["a-2", "a-3"] and not {"a-2", "a-3"} & sim.nodelifecycle.watched
    sim.run_until(200)
    added = [next(t.time_added for t in sim.store.nodes[n].taints if t.key == "node.kubernetes.io/unreachable"
                  and t.effect == "NoExecute") for n in ("a-1", "a-2", "a-3")]
    assert added[1] - added[0] == 50_000 and added[2] - added[1] == 50_000  # in name order, 0.02 node/s


def test_a_dead_zone_leaves_the_monitor_pass():
    """Once tainted, powered-off nodes are no longer visited; powering one on brings it back."""
    sim = make_sim(CLUSTER)
    sim.run_until(10)
    for name in ("b-1", "b-2"):
        sim.apply(Operation("power-off", node=name))
    sim.run_until(200)
    assert all(sim.store.nodes[n].has_taint("node.kubernetes.io/unreachable", "NoExecute") for n in ("b-1", "b-2"))
    assert not {"b-1", "b-2"} & sim.nodelifecycle.watched
    sim.apply(Operation("power-on", node="b-1"))
    assert "b-1" in sim.nodelifecycle.watched
    sim.run_until(230)
    assert sim.store.nodes["b-1"].ready_status() == "True"
    assert not sim.store.nodes["b-1"].has_taint("node.kubernetes.io/unreachable", "NoExecute")


# ---------------------------------------------------------------- shared pod conditions

condition_writes = st.lists(
    st.tuples(st.integers(0, 3),  # which pod
              st.sampled_from(["PodScheduled", "Initialized", "ContainersReady", "Ready", "DisruptionTarget"]),
              st.sampled_from(["True", "False"]),
              st.sampled_from(["", "DeletionByTaintManager"]),
              st.integers(0, 3)),  # the time of the write
    max_size=40)


def plain_set(conditions: dict, ctype, status, reason, message, now) -> None:
    """The store's per-pod write before conditions were shared."""
    current = conditions.get(ctype)
    if current and current.status == status and current.reason == reason and current.message == message:
        return
    transition = current.last_transition_time if current and current.status == status else now
    conditions[ctype] = Condition(ctype, status, reason, message, None, transition)


@settings(max_examples=EXAMPLES * 10, deadline=None)
@given(condition_writes, st.integers(1, 8))
def test_shared_conditions_equal_private_ones(writes, limit):
    cache = ConditionCache(limit=limit)
    pods = [Pod(f"p-{i}", "default", f"uid-{i}", {}, 0) for i in range(4)]
    reference = [{} for _ in range(4)]
    for index, ctype, status, reason, now in writes:
        pod = pods[index]
        before = {id(p.conditions): dict(p.conditions) for p in pods}
        cache.set(pod, ctype, status, reason, "", now)
        plain_set(reference[index], ctype, status, reason, "", now)
        for p, want in zip(pods, reference):
            assert list(p.conditions.items()) == list(want.items())  # same content, same order
        # A write never shows through another pod's (shared) dict.
        for p in pods:
            if p is not pod and id(p.conditions) in before:
                assert p.conditions == before[id(p.conditions)]


many_writes = st.lists(
    st.tuples(st.integers(0, 3),  # which pod
              st.sampled_from([("ContainersReady", "Ready"), ("Ready",), ("Initialized", "Ready"),
                               ("PodScheduled",)]),
              st.sampled_from(["True", "False"]),
              st.booleans(),  # set_many (True) or one write of the first type with a reason (False)
              st.integers(0, 3)),  # the time of the write
    max_size=40)


@settings(max_examples=EXAMPLES * 10, deadline=None)
@given(many_writes, st.integers(1, 8))
def test_remembered_multi_writes_equal_plain_writes(writes, limit):
    """ConditionCache.set_many (the kubelet's Running report, remembered per start dict, types,
    status and time) equals the plain writes one after another, its result (changed or not) too,
    also while the bounded cache clears itself."""
    cache = ConditionCache(limit=limit)
    pods = [Pod(f"p-{i}", "default", f"uid-{i}", {}, 0) for i in range(4)]
    for pod in pods:
        pod.conditions = NO_CONDITIONS
    reference = [{} for _ in range(4)]
    for index, ctypes, status, many, now in writes:
        pod, plain = pods[index], reference[index]
        if many:
            before = [(c.type, c.status, c.reason, c.last_transition_time) for c in plain.values()]
            for ctype in ctypes:
                plain_set(plain, ctype, status, "", "", now)
            after = [(c.type, c.status, c.reason, c.last_transition_time) for c in plain.values()]
            assert cache.set_many(pod, ctypes, status, now) == (before != after)
        else:
            cache.set(pod, ctypes[0], status, "Because", "", now)
            plain_set(plain, ctypes[0], status, "Because", "", now)
        for p, want in zip(pods, reference):
            assert list(p.conditions.items()) == list(want.items())


def test_pods_of_one_template_share_their_data():
    sim = make_sim(CLUSTER)
    sim.run_until(10)
    web = [p for p in sim.store.pods.values() if p.labels.get("app") == "web"]
    assert len(web) == 8
    assert len({id(p.labels) for p in web}) == 1
    assert len({id(p.tolerations) for p in web}) == 1
    assert len({id(p.conditions) for p in web}) < len(web)  # started at the same instant
    assert all(p.key == f"{p.namespace}/{p.name}" for p in web)


# ---------------------------------------------------------------- PodGC's out-of-service index

def full_gc_terminating(podgc) -> None:
    """gcTerminating over every node with terminating pods (the pass before the index)."""
    from playground.engine.podgc import gc_order

    store = podgc.sim.store
    doomed = []
    for node_name in sorted(podgc.terminating_by_node):
        node = store.nodes.get(node_name)
        pods = podgc.terminating_by_node[node_name]
        if node is not None and pods and node.ready_status() != "True" and any(
                t.key == "node.kubernetes.io/out-of-service" for t in node.taints):
            doomed.extend(pods.values())
    for pod in sorted(doomed, key=gc_order):
        podgc._mark_failed_and_delete(pod)


oos_ops = st.lists(st.tuples(
    st.integers(1, 200),
    st.sampled_from(["power-off", "power-on", "shutdown", "oos", "un-oos", "delete-node"]),
    st.sampled_from(NODES)), min_size=1, max_size=10)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(oos_ops)
def test_podgc_out_of_service_index_equals_a_scan(plan):
    sims = []
    for indexed in (True, False):
        sim = make_sim(CLUSTER)
        if not indexed:
            sim.podgc._gc_terminating = lambda podgc=sim.podgc: full_gc_terminating(podgc)
        sim.run_until(5)
        for delay, kind, node in plan:
            sim.run_until(sim.clock.now / 1000 + delay)
            if kind == "oos":
                sim.apply(Operation("taint", node=node, taint="node.kubernetes.io/out-of-service=nodeshutdown:NoExecute"))
            elif kind == "un-oos":
                sim.apply(Operation("untaint", node=node, taint="node.kubernetes.io/out-of-service:NoExecute"))
            else:
                sim.apply(Operation(kind, node=node))
        sim.run_until(sim.clock.now / 1000 + 600)
        sims.append(sim)
    assert snapshot(sims[0]) == snapshot(sims[1])


# ---------------------------------------------------------------- batched container starts

START_CLUSTER = CLUSTER + """
[[deployments]]
name = "quick"
replicas = 5
template = { labels = { app = "quick" }, requests = { cpu = "50m" }, startDuration = "0s", stopDuration = "0s" }

[[deployments]]
name = "slow"
replicas = 3
template = { labels = { app = "slow" }, requests = { cpu = "50m" }, startDuration = "3s" }
"""

start_ops = st.lists(st.tuples(
    st.integers(0, 30),
    st.one_of(st.tuples(st.sampled_from(["power-off", "power-on", "shutdown", "restart-kubelet", "partition",
                                         "heal", "drain", "delete-node"]), st.sampled_from(NODES)),
              st.tuples(st.sampled_from(["scale-web", "scale-quick", "scale-slow"]), st.integers(0, 15)),
              st.tuples(st.just("delete-pod"), st.integers(0, 40)))), min_size=1, max_size=12)


def run_start_plan(plan, batched: bool):
    from playground.engine.kubelet import Kubelet

    Kubelet.batch_starts = batched
    try:
        sim = make_sim(START_CLUSTER)
        for delay, (kind, arg) in plan:
            sim.run_until(sim.clock.now / 1000 + delay)
            if kind.startswith("scale-"):
                apply_operation(sim, ("scale", (kind[6:], arg)))
            elif kind == "delete-pod":
                apply_operation(sim, (kind, arg))
            else:
                sim.apply(Operation(kind, node=arg))
        sim.run_until(sim.clock.now / 1000 + 400)
        return sim
    finally:
        Kubelet.batch_starts = True


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(start_ops)
def test_batched_container_starts_equal_one_timer_per_start(plan):
    batched = run_start_plan(plan, batched=True)
    reference = run_start_plan(plan, batched=False)
    assert snapshot(batched) == snapshot(reference)
    assert [(p.key, p.start_time) for p in batched.store.pods.values()] == [
        (p.key, p.start_time) for p in reference.store.pods.values()]


def test_pods_bound_in_one_instant_start_with_one_timer():
    sim = make_sim(START_CLUSTER)
    sim.run_until(0)
    pending_before = sim.clock.pending()
    assert len(sim.container_starts.batches) < len(sim.store.pods) / 4
    sim.run_until(5)
    assert all(p.phase == "Running" for p in sim.store.pods.values())
    assert pending_before > 0 and not sim.container_starts.batches


def test_starts_cancelled_within_their_batch_match_one_timer_per_start():
    """Pods deleted, nodes powered off and kubelets restarted while a batch of starts is pending."""
    for plan in (
        [(10, ("scale-slow", 12)), (1, ("delete-pod", 3)), (0, ("delete-pod", 7)), (1, ("power-off", "a-2"))],
        [(10, ("scale-slow", 12)), (0, ("restart-kubelet", "a-1")), (1, ("shutdown", "b-1")),
         (0, ("scale-quick", 0)), (2, ("power-on", "b-1"))],
        [(10, ("scale-slow", 15)), (2, ("scale-slow", 1)), (0, ("scale-slow", 15)), (0, ("partition", "a-3")),
         (1, ("heal", "a-3"))],
    ):
        batched = run_start_plan(plan, batched=True)
        reference = run_start_plan(plan, batched=False)
        assert snapshot(batched) == snapshot(reference)


# ---------------------------------------------------------------- settled Deployments

DEPLOYMENT_CLUSTER = nodes_toml("a-", 3, cpu="2", memory="8Gi") + nodes_toml("b-", 2, zone="zone-b", cpu="2",
                                                                             memory="8Gi") + """
[[deployments]]
name = "web"
replicas = 6
progressDeadlineSeconds = 60
template = { labels = { app = "web" }, requests = { cpu = "250m", memory = "256Mi" }, stopDuration = "3s" }

[[deployments]]
name = "api"
replicas = 3
minReadySeconds = 5
template = { labels = { app = "api" }, requests = { cpu = "500m" } }

[[deployments]]
name = "batch"
replicas = 2
strategy = { type = "Recreate" }
template = { labels = { app = "batch" }, requests = { cpu = "100m" } }
"""
DEPLOYMENT_NODES = ["a-1", "a-2", "a-3", "b-1", "b-2"]
deployment_op = st.one_of(
    st.tuples(st.sampled_from(["power-off", "power-on", "cordon", "uncordon", "drain"]),
              st.sampled_from(DEPLOYMENT_NODES)),
    st.tuples(st.just("scale"), st.tuples(st.sampled_from(["web", "api", "batch"]), st.integers(0, 12))),
    st.tuples(st.sampled_from(["rollout", "rollout-undo", "pause-rollout", "resume-rollout"]),
              st.sampled_from(["web", "api", "batch"])),
    st.tuples(st.just("rollout-cpu"), st.tuples(st.sampled_from(["web", "api"]), st.sampled_from(["300m", "2500m"]))),
    st.tuples(st.just("set-strategy"), st.sampled_from([(0, 1), (2, 0), ("50%", "50%")])),
    st.tuples(st.just("delete-pod"), st.integers(0, 1000)),
)
deployment_plans = st.lists(st.tuples(st.integers(0, 120), deployment_op), min_size=1, max_size=10)


def record_calls(sim, controller, method: str, into: list, when=lambda answer: True) -> None:
    """Wrap controller.<method>(deployment): append (time, Deployment) to `into` for each call whose
    answer satisfies `when`."""
    wrapped = getattr(controller, method)

    def spy(d):
        answer = wrapped(d)
        if when(answer):
            into.append((sim.now, d.name))
        return answer

    setattr(controller, method, spy)


def run_deployment_plan(plan, skip_settled: bool, skipped: list | None = None):
    """`skipped` collects (time, Deployment) of each sync skipped."""
    sim = make_sim(DEPLOYMENT_CLUSTER)
    controller = sim.workloads.deployments
    controller.skip_settled = skip_settled
    if skipped is not None:
        record_calls(sim, controller, "settled", skipped, when=bool)
    sim.run_until(5)
    for delay, (kind, arg) in plan:
        sim.run_until(sim.clock.now / 1000 + delay)
        if kind == "scale":
            sim.apply(Operation("scale", deployment=arg[0], replicas=arg[1]))
        elif kind == "rollout-cpu":
            sim.apply(Operation("rollout", deployment=arg[0], pod_spec={"requests": {"cpu": arg[1]}}))
        elif kind in ("rollout", "rollout-undo", "pause-rollout", "resume-rollout"):
            sim.apply(Operation(kind, deployment=arg))
        elif kind == "set-strategy":
            sim.apply(Operation("set-strategy", deployment="web",
                                strategy={"rollingUpdate": {"maxSurge": arg[0], "maxUnavailable": arg[1]}}))
        elif kind == "delete-pod":
            pods = sorted(sim.store.pods)
            if pods:
                namespace, name = pods[arg % len(pods)].split("/", 1)
                sim.apply(Operation("delete-pod", pod=name, namespace=namespace))
        else:
            sim.apply(Operation(kind, node=arg))
    sim.run_until(sim.clock.now / 1000 + 600)
    return sim


def deployment_snapshot(sim) -> tuple:
    deployments = {name: (d.replicas, d.observed_generation, d.status_replicas, d.updated_replicas, d.ready_replicas,
                          d.available_replicas, d.unavailable_replicas, d.revision,
                          [(c.type, c.status, c.reason, c.message, c.last_update_time, c.last_transition_time)
                           for c in d.conditions.values()],
                          sim.workloads.deployments.deadline_at(name))
                   for name, d in sim.store.deployments.items()}
    replicasets = {name: (rs.replicas, rs.desired_replicas, rs.max_replicas, rs.status_replicas, rs.ready_replicas,
                          rs.available_replicas, rs.revision)
                   for name, rs in sim.workloads.replicasets.items()}
    return snapshot(sim)[:3], deployments, replicasets


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(deployment_plans)
def test_skipping_settled_deployments_changes_nothing(plan):
    """Settled Deployments are not synced again until something their sync reads changes; the
    reference syncs on every ReplicaSet pod event. Same events (ScalingReplicaSet, pod creates and
    deletes, in order), same Deployment and ReplicaSet status, conditions and progress timers."""
    fast = run_deployment_plan(plan, True)
    plain = run_deployment_plan(plan, False)
    assert deployment_snapshot(fast) == deployment_snapshot(plain)


def test_a_settled_deployment_skips_its_syncs_but_times_out_on_time():
    """While pods move after a node loss, syncs of the settled Deployment are skipped; a rollout that
    cannot progress still times out at its deadline + 1 s (Progressing False, ProgressDeadlineExceeded
    written at the same instant as without skipping)."""
    plan = [(30, ("power-off", "a-1")), (400, ("rollout-cpu", ("web", "2500m")))]
    skipped: list = []
    fast = run_deployment_plan(plan, True, skipped)
    plain = run_deployment_plan(plan, False)
    assert deployment_snapshot(fast) == deployment_snapshot(plain)
    assert any(name == "web" for _, name in skipped)
    web = fast.store.deployments["web"]
    progressing = web.conditions["Progressing"]
    assert (progressing.status, progressing.reason) == ("False", "ProgressDeadlineExceeded")
    assert progressing.last_update_time == \
        plain.store.deployments["web"].conditions["Progressing"].last_update_time


def test_a_sync_asked_for_after_the_deadline_writes_the_timeout_at_once():
    """Pods that stay Pending keep a settled Deployment short of complete; a sync asked for after
    its progress deadline but before the deadline's timer (lastUpdate + deadline + 1 s) writes the
    timeout then, skipping or not."""
    def run(skip_settled: bool):
        sim = make_sim(nodes_toml("a-", 2, cpu="2", memory="8Gi") + """
[[deployments]]
name = "web"
replicas = 6
progressDeadlineSeconds = 60
template = { labels = { app = "web" }, requests = { cpu = "1" } }
""")
        controller = sim.workloads.deployments
        controller.skip_settled = skip_settled
        sim.run_until(30)
        web = sim.store.deployments["web"]
        last_update = web.conditions["Progressing"].last_update_time
        sim.run_until((last_update + 60_500) / 1000)
        assert web.conditions["Progressing"].reason != "ProgressDeadlineExceeded"
        if skip_settled:
            assert controller._settled.get("web") is not None  # settled, yet due for the timeout
            assert not controller.settled(web)
        sim.workloads.mark_deployment("web")  # an informer event
        sim.run_until((last_update + 60_600) / 1000)
        return web.conditions["Progressing"], last_update

    (fast, last_update), (plain, _) = run(True), run(False)
    assert (fast.reason, fast.last_update_time) == (plain.reason, plain.last_update_time) == \
        ("ProgressDeadlineExceeded", last_update + 60_500)


# ---------------------------------------------------------------- Deployment syncs during a zone outage

OUTAGE_CLUSTER = (nodes_toml("a-", 6, cpu="8", memory="32Gi") + nodes_toml("b-", 6, zone="zone-b", cpu="8", memory="32Gi")
                  + nodes_toml("c-", 6, zone="zone-c", cpu="8", memory="32Gi") + "".join(f"""
[[deployments]]
name = "app-{i}"
replicas = {12 + 3 * i}
{'progressDeadlineSeconds = 120' if i % 2 else ''}
template = {{ labels = {{ app = "app-{i}" }}, requests = {{ cpu = "100m", memory = "128Mi" }}{tolerations} }}
""" for i, tolerations in enumerate(["", "", ", tolerations = [ { key = \"node.kubernetes.io/unreachable\", "
                                      "operator = \"Exists\", effect = \"NoExecute\", tolerationSeconds = 40 } ]", "", ""])))


def run_outage(skip_settled: bool, syncs: list | None = None):
    """Zone a loses power at 60 s, comes back at 15 m; `syncs` collects (time, Deployment) of every
    deployment sync that ran."""
    sim = make_sim(OUTAGE_CLUSTER)
    controller = sim.workloads.deployments
    controller.skip_settled = skip_settled
    if syncs is not None:
        record_calls(sim, controller, "sync_deployment", syncs)
    sim.run_until(60)
    for name in sorted(sim.store.nodes_by_zone["zone-a"]):
        sim.apply(Operation("power-off", node=name))
    sim.run_until(900)
    for name in sorted(sim.store.nodes_by_zone["zone-a"]):
        sim.apply(Operation("power-on", node=name))
    sim.run_until(1500)
    return sim


def test_a_zone_outage_syncs_deployments_only_for_work_due_with_the_same_event_log():
    """A zone outage replaces a third of every Deployment's pods: each pod marked not ready, evicted
    and replaced changes its ReplicaSet's status, which the deployment sync then writes. Syncing a
    settled Deployment's ReplicaSet first, running the deployment sync only when that status changed
    and not syncing again for the sync's own creates, gives the same full event log, pod, Deployment
    and ReplicaSet state as syncing everything on every pod event, with far fewer deployment syncs."""
    fast_syncs: list = []
    plain_syncs: list = []
    fast = run_outage(True, fast_syncs)
    plain = run_outage(False, plain_syncs)
    assert deployment_snapshot(fast) == deployment_snapshot(plain)
    assert [e.as_dict() for e in fast.store.recorder.events] == [e.as_dict() for e in plain.store.recorder.events]
    assert fast.rng.random() == plain.rng.random()  # the same draws, in the same order
    # the outage did its work: pods were evicted and replaced in every Deployment
    evicted = {e.object for e in fast.store.recorder.events if e.reason == "TaintManagerEviction"}
    assert len(evicted) >= 30
    assert all(d.ready_replicas == d.replicas for d in fast.store.deployments.values())
    # far fewer deployment syncs than pod events asking for one
    assert len(fast_syncs) * 2 < len(plain_syncs)


def test_a_sync_does_not_run_again_for_its_own_creates():
    """A settled Deployment whose pod is deleted: the ReplicaSet creates the replacement (its own
    pod event asks for a sync) and the deployment sync writes the new status once; no second sync
    in that instant."""
    sim = make_sim(OUTAGE_CLUSTER)
    controller = sim.workloads.deployments
    sim.run_until(30)
    syncs: list = []
    sync_deployment = controller.sync_deployment

    def spy(d):
        syncs.append((sim.now, d.name))
        sync_deployment(d)

    controller.sync_deployment = spy
    pod = min((p for p in sim.store.pods.values() if p.labels["app"] == "app-0"), key=lambda p: p.name)
    sim.apply(Operation("delete-pod", pod=pod.name, namespace=pod.namespace))
    sim.run_until(31)
    at_delete = [t for t, name in syncs if name == "app-0" and t == 30_000]
    assert len(at_delete) == 1
    created = [e for e in sim.store.recorder.events if e.reason == "SuccessfulCreate" and e.time == 30_000]
    assert len(created) == 1
    assert sim.store.deployments["app-0"].status_replicas == 12
