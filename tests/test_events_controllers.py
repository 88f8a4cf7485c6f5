"""Events and status as the controllers write them (issue 10 item 4): MarkPodsNotReady's NodeNotReady
event on each pod it flips, the taint-eviction controller's cancelWorkWithEvent before a new
deletion and on a pod that is gone, terminal pods left out of a node's re-evaluation, the kubelet's
Rebooted warning, a heartbeat after a heal that carries Ready=True, and a second graceful delete
that moves deletionTimestamp as the API server computes it."""

from conftest import events, make_sim, nodes_toml

from playground.engine import Operation
from playground.engine.objects import FAILED, TRUE


def pod_toml(name, node="n-1", extra=""):
    return f'\n[[pods]]\nname = "{name}"\nnodeName = "{node}"\n{extra}\n'


def test_each_pod_flipped_not_ready_gets_a_node_not_ready_event():
    sim = make_sim(nodes_toml("n-", 2) + pod_toml("a") + pod_toml("b") + pod_toml("elsewhere", node="n-2"))
    sim.run_until(60)
    sim.apply(Operation("power-off", node="n-1"))
    sim.run_until(200)
    [node_event] = [e for e in events(sim, "NodeNotReady") if e.object == "Node/n-1"]
    pod_events = [e for e in events(sim, "NodeNotReady") if e.object.startswith("Pod/")]
    assert sorted(e.object for e in pod_events) == ["Pod/default/a", "Pod/default/b"]
    for event in pod_events:
        assert (event.type, event.message, event.source) == ("Warning", "Node is not ready", "node-controller")
        assert event.time == node_event.time
    assert sim.store.pods["default/a"].condition_status("Ready") == "False"


def test_a_pod_without_a_ready_condition_gets_no_event():
    # A pod bound while the kubelet is stopped never reports Ready: MarkPodsNotReady has no Ready
    # condition of it to flip.
    sim = make_sim(nodes_toml("n-", 1) + """
[[timeline]]
at = "10s"
do = "stop-kubelet"
node = "n-1"

[[timeline]]
at = "11s"
do = "create-pod"
pod = "late"
node = "n-1"
""")
    sim.run_until(200)
    assert not [e for e in events(sim, "NodeNotReady") if e.object == "Pod/default/late"]


def test_a_new_untolerated_taint_cancels_the_waiting_deletion_first():
    sim = make_sim(nodes_toml("n-", 1) + pod_toml(
        "p", extra='tolerations = [{ key = "maint", operator = "Exists", effect = "NoExecute", tolerationSeconds = 60 }]'))
    sim.run_until(10)
    sim.apply(Operation("taint", node="n-1", taint="maint:NoExecute"))
    sim.run_until(20)
    sim.apply(Operation("taint", node="n-1", taint="dedicated=db:NoExecute"))
    sim.run_until(21)
    cancel, mark = events(sim, "TaintManagerEviction", "Pod/default/p")
    assert (cancel.time, cancel.message) == (20_000, "Cancelling deletion of Pod default/p")
    assert (mark.time, mark.message) == (20_000, "Marking for deletion Pod default/p")


def test_a_pod_deleted_while_its_eviction_waits_gets_the_cancel_event():
    sim = make_sim(nodes_toml("n-", 1) + pod_toml(
        "p", extra='tolerations = [{ key = "maint", operator = "Exists", effect = "NoExecute", tolerationSeconds = 60 }]'))
    sim.run_until(10)
    sim.apply(Operation("taint", node="n-1", taint="maint:NoExecute"))
    sim.run_until(20)
    sim.apply(Operation("delete-pod", pod="p", grace_period_seconds=0))
    [cancel] = events(sim, "TaintManagerEviction", "Pod/default/p")
    assert (cancel.time, cancel.message) == (20_000, "Cancelling deletion of Pod default/p")


def test_a_deletion_that_fired_is_not_cancelled_when_the_pod_goes():
    sim = make_sim(nodes_toml("n-", 1) + pod_toml("p", extra="terminationGracePeriodSeconds = 5"))
    sim.run_until(10)
    sim.apply(Operation("taint", node="n-1", taint="dedicated=db:NoExecute"))
    sim.run_until(30)
    assert "default/p" not in sim.store.pods
    assert [e.message for e in events(sim, "TaintManagerEviction")] == ["Marking for deletion Pod default/p"]


def test_a_terminal_pod_keeps_its_scheduled_deletion_when_the_taint_goes():
    # The spec.nodeName index leaves terminal pods out: removing the taint cancels nothing for a
    # pod that finished meanwhile, and its deletion still fires (the API server removes it at once).
    sim = make_sim(nodes_toml("n-", 1) + pod_toml(
        "job", extra='tolerations = [{ key = "maint", operator = "Exists", effect = "NoExecute", tolerationSeconds = 60 }]'))
    sim.run_until(10)
    sim.apply(Operation("taint", node="n-1", taint="maint:NoExecute"))
    pod = sim.store.pods["default/job"]
    sim.store.set_pod_phase(pod, FAILED, "Error", "")
    sim.run_until(20)
    sim.apply(Operation("untaint", node="n-1", taint="maint:NoExecute"))
    assert not events(sim, "TaintManagerEviction")
    sim.run_until(70)
    [mark] = events(sim, "TaintManagerEviction", "Pod/default/job")
    assert (mark.time, mark.message) == (70_000, "Marking for deletion Pod default/job")
    assert "default/job" not in sim.store.pods


def test_power_on_after_power_off_records_rebooted():
    sim = make_sim(nodes_toml("n-", 1))
    sim.run_until(30)
    sim.apply(Operation("power-off", node="n-1"))
    sim.run_until(120)
    sim.apply(Operation("power-on", node="n-1"))
    [rebooted] = events(sim, "Rebooted", "Node/n-1")
    kubelet = sim.kubelets["n-1"]
    assert rebooted.type == "Warning" and rebooted.time == 120_000 and rebooted.source == "kubelet"
    assert rebooted.message == f"Node n-1 has been rebooted, boot id: {kubelet.boot_id()}"
    # before NodeReady, as the status setters run
    reasons = [e.reason for e in sim.store.recorder.events if e.time == 120_000 and e.object == "Node/n-1"]
    assert reasons.index("Rebooted") < reasons.index("NodeReady")
    # a kubelet restart is no reboot
    sim.run_until(150)
    sim.apply(Operation("restart-kubelet", node="n-1"))
    sim.run_until(180)
    assert len(events(sim, "Rebooted")) == 1


def test_boot_ids_differ_by_boot_and_stay_deterministic():
    a, b = make_sim(nodes_toml("n-", 1)), make_sim(nodes_toml("n-", 1))
    ka, kb = a.kubelets["n-1"], b.kubelets["n-1"]
    first = ka.boot_id()
    ka.boot += 1
    assert ka.boot_id() != first and kb.boot_id() == first and len(first) == 36


def test_no_heartbeat_lands_on_an_unknown_ready_condition_after_a_heal():
    # The kubelet renews its lease every 10 s and reports unchanged status every 5 m. Cut off at
    # 4m50s, the node turns Unknown; the heal lands the lease backoff just before the 5 m report.
    sim = make_sim(nodes_toml("n-", 1))
    sim.run_until(290)
    sim.apply(Operation("partition", node="n-1"))
    sim.run_until(350)
    ready = sim.store.nodes["n-1"].conditions["Ready"]
    assert ready.status == "Unknown"
    stale_heartbeat = ready.last_heartbeat_time
    sim.apply(Operation("heal", node="n-1"))
    kubelet = sim.kubelets["n-1"]
    for _ in range(40):
        sim.step()
        ready = sim.store.nodes["n-1"].conditions["Ready"]
        kubelet.catch_up()
        if ready.status != TRUE:
            assert ready.last_heartbeat_time == stale_heartbeat
    assert ready.status == TRUE


def test_a_second_graceful_delete_shortens_from_the_first_delete():
    sim = make_sim(nodes_toml("n-", 1) + pod_toml("p", extra="terminationGracePeriodSeconds = 120"))
    sim.run_until(10)
    sim.apply(Operation("delete-pod", pod="p", grace_period_seconds=100))
    pod = sim.store.pods["default/p"]
    assert pod.deletion_timestamp == 110_000
    sim.run_until(40)
    sim.apply(Operation("delete-pod", pod="p", grace_period_seconds=50))
    # old timestamp - old period + new period = 10 s + 50 s, not now + 50 s
    assert (pod.deletion_timestamp, pod.deletion_grace_period_seconds) == (60_000, 50)
    sim.apply(Operation("delete-pod", pod="p", grace_period_seconds=80))  # longer: ignored
    assert (pod.deletion_timestamp, pod.deletion_grace_period_seconds) == (60_000, 50)


def test_a_delete_without_grace_period_leaves_a_pending_deletion_alone():
    sim = make_sim(nodes_toml("n-", 1) + pod_toml("p", extra="terminationGracePeriodSeconds = 30"))
    sim.run_until(10)
    sim.apply(Operation("delete-pod", pod="p", grace_period_seconds=100))
    pod = sim.store.pods["default/p"]
    sim.apiserver.delete_pod(pod)  # no DeleteOptions.gracePeriodSeconds: the pod's 30 s is not an override
    assert (pod.deletion_timestamp, pod.deletion_grace_period_seconds) == (110_000, 100)
