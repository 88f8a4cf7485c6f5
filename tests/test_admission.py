"""Kubelet admission (pkg/kubelet/lifecycle/predicate.go, kubelet.rejectPod): a pod bound to a node
that cannot hold it next to the pods the kubelet already admitted is rejected: a Warning event
OutOf<resource> with InsufficientResourceError's text, phase Failed with "Pod was rejected: " before
it. Fits checks pods, then cpu, then memory, and reports the first shortfall."""

from conftest import events, make_sim

from playground.engine.objects import FAILED, RUNNING

NODE = """
[[nodes]]
name = "n-1"
capacity = { cpu = "4", memory = "8Gi", pods = 3 }

[[pods]]
name = "big"
nodeName = "n-1"
requests = { cpu = "3", memory = "6Gi" }
"""


def pinned(name: str, cpu: str = "100m", memory: str = "64Mi", at: str = "10s") -> str:
    return f"""
[[timeline]]
at = "{at}"
do = "create-pod"
pod = "{name}"
node = "n-1"
spec = {{ requests = {{ cpu = "{cpu}", memory = "{memory}" }} }}
"""


def test_a_pod_that_does_not_fit_the_cpu_left_is_rejected_with_outofcpu():
    sim = make_sim(NODE + pinned("late", cpu="2"))
    sim.run_until(30)
    pod = sim.store.pods["default/late"]
    message = "Node didn't have enough resource: cpu, requested: 2000, used: 3000, capacity: 4000"
    assert (pod.phase, pod.reason, pod.message) == (FAILED, "OutOfcpu", "Pod was rejected: " + message)
    [event] = events(sim, "OutOfcpu", "Pod/default/late")
    assert (event.time, event.type, event.message, event.source) == (10_000, "Warning", message, "kubelet")
    # the rejected pod holds nothing on the node
    node = sim.store.nodes["n-1"]
    assert (node.requested_cpu, node.pod_count) == (3000, 1)
    assert sim.store.pods["default/big"].phase == RUNNING


def test_memory_is_checked_after_cpu_and_reported_in_bytes():
    sim = make_sim(NODE + pinned("mem", cpu="500m", memory="4Gi"))
    sim.run_until(30)
    pod = sim.store.pods["default/mem"]
    assert pod.reason == "OutOfmemory"
    assert pod.message == ("Pod was rejected: Node didn't have enough resource: memory, requested: 4294967296, "
                           "used: 6442450944, capacity: 8589934592")


def test_the_pod_count_is_checked_first():
    body = NODE + pinned("a", at="5s") + pinned("b", at="6s") + pinned("c", cpu="2", at="7s")
    sim = make_sim(body)
    sim.run_until(30)
    assert sim.store.pods["default/a"].phase == RUNNING
    assert sim.store.pods["default/b"].phase == RUNNING
    c = sim.store.pods["default/c"]
    # three pods admitted already; c would also be short of cpu, but pods come first
    assert (c.phase, c.reason) == (FAILED, "OutOfpods")
    assert c.message == "Pod was rejected: Node didn't have enough resource: pods, requested: 1, used: 3, capacity: 3"


def test_a_pod_that_fits_is_admitted_and_runs():
    sim = make_sim(NODE + pinned("small", cpu="1", memory="2Gi"))
    sim.run_until(30)
    pod = sim.store.pods["default/small"]
    assert pod.phase == RUNNING and not events(sim, "OutOfcpu")


def test_only_pods_the_kubelet_admitted_count_as_used():
    # Both arrive while the kubelet is stopped; when it starts it admits the first and rejects the
    # second, whose request only fits next to pods that are not there.
    body = NODE + pinned("first", cpu="1", at="20s") + pinned("second", cpu="1", at="21s") + """
[[timeline]]
at = "15s"
do = "stop-kubelet"
node = "n-1"

[[timeline]]
at = "30s"
do = "start-kubelet"
node = "n-1"
"""
    sim = make_sim(body)
    sim.run_until(25)
    assert sim.store.pods["default/first"].phase == "Pending"
    sim.run_until(40)
    assert sim.store.pods["default/first"].phase == RUNNING
    second = sim.store.pods["default/second"]
    assert second.reason == "OutOfcpu"
    assert second.message.endswith("cpu, requested: 1000, used: 4000, capacity: 4000")
    [event] = events(sim, "OutOfcpu")
    assert event.time == 30_000


def test_a_replicaset_replaces_a_pod_its_kubelet_rejected():
    sim = make_sim("""
[[nodes]]
name = "n-1"
capacity = { cpu = "2", memory = "8Gi" }

[[nodes]]
name = "n-2"
capacity = { cpu = "2", memory = "8Gi" }

[[deployments]]
name = "web"
replicas = 3
template = { labels = { app = "web" }, requests = { cpu = "1500m" } }
""")
    sim.run_until(10)
    [pending] = [p for p in sim.store.pods.values() if p.node_name is None]
    # A binding from a scheduler whose cache lagged (the race admission guards against): n-1 is full.
    sim.store.bind_pod(pending, "n-1")
    assert (pending.phase, pending.reason) == (FAILED, "OutOfcpu")
    sim.run_until(11)
    owner = f"ReplicaSet/default/{pending.owner.name}"
    created = [e for e in events(sim, "SuccessfulCreate", owner) if e.time == 10_000]
    assert len(created) == 1
    active = [p for p in sim.store.pods.values() if p.is_active()]
    assert len(active) == 3 and pending not in active


def test_shutdown_rejection_carries_the_prefix():
    sim = make_sim("""
[kubelet]
shutdownGracePeriod = "30s"
shutdownGracePeriodCriticalPods = "10s"

[[nodes]]
name = "n-1"
capacity = { cpu = "4", memory = "8Gi" }

[[pods]]
name = "sleeper"
nodeName = "n-1"
terminationGracePeriodSeconds = 60

[[timeline]]
at = "10s"
do = "shutdown"
node = "n-1"

[[timeline]]
at = "12s"
do = "create-pod"
pod = "late"
node = "n-1"
""")
    sim.run_until(15)
    late = sim.store.pods["default/late"]
    assert (late.phase, late.reason) == (FAILED, "NodeShutdown")
    assert late.message == "Pod was rejected: Pod was rejected as the node is shutting down."
    [event] = events(sim, "NodeShutdown", "Pod/default/late")
    assert event.message == "Pod was rejected as the node is shutting down."
