"""DefaultTolerationSeconds admission and the taint-eviction controller, reference §3."""

from conftest import events, make_sim, nodes_toml

from playground.engine import Operation
from playground.engine.objects import Taint, Toleration
from playground.engine.tainteviction import matching_tolerations, min_toleration_seconds

UNREACHABLE_NE = "node.kubernetes.io/unreachable:NoExecute"


def pod_toml(name, node="n-1", extra=""):
    return f'\n[[pods]]\nname = "{name}"\nnodeName = "{node}"\n{extra}\n'


def test_default_toleration_seconds_added_unless_present():
    sim = make_sim(nodes_toml("n-", 1) + pod_toml("plain") + pod_toml(
        "own", extra='tolerations = [{ key = "node.kubernetes.io/unreachable", operator = "Exists", '
                     'effect = "NoExecute", tolerationSeconds = 20 }]') + pod_toml(
        "all", extra='tolerations = [{ operator = "Exists" }]'))
    sim.run_until(0)
    plain = sim.store.pods["default/plain"].tolerations
    assert Toleration("node.kubernetes.io/not-ready", "Exists", "", "NoExecute", 300) in plain
    assert Toleration("node.kubernetes.io/unreachable", "Exists", "", "NoExecute", 300) in plain
    own = sim.store.pods["default/own"].tolerations
    assert [t.toleration_seconds for t in own if t.key == "node.kubernetes.io/unreachable"] == [20]
    assert len([t for t in own if t.key == "node.kubernetes.io/not-ready"]) == 1
    # An empty-key Exists toleration matches everything: nothing is added.
    assert sim.store.pods["default/all"].tolerations == (Toleration("", "Exists"),)


def test_apiserver_flags_change_the_defaults():
    sim = make_sim(nodes_toml("n-", 1) + pod_toml("p") + "\n[apiServer]\ndefault-unreachable-toleration-seconds = 30\n")
    sim.run_until(0)
    secs = {t.key: t.toleration_seconds for t in sim.store.pods["default/p"].tolerations}
    assert secs["node.kubernetes.io/unreachable"] == 30 and secs["node.kubernetes.io/not-ready"] == 300


def test_pods_deleted_toleration_seconds_after_the_taint_and_stay_terminating():
    sim = make_sim(nodes_toml("n-", 2) + pod_toml("web") + pod_toml(
        "short", extra='tolerations = [{ key = "node.kubernetes.io/unreachable", operator = "Exists", '
                       'effect = "NoExecute", tolerationSeconds = 10 }]'))
    sim.run_until(60)
    sim.apply(Operation("power-off", node="n-1"))
    sim.run_until(110)
    assert UNREACHABLE_NE in sim.store.nodes["n-1"].taint_strings()
    assert sim.tainteviction.deletion_at(sim.store.pods["default/web"]) == 410_000
    sim.run_until(119.9)
    assert sim.store.pods["default/short"].deletion_timestamp is None
    sim.run_until(120)
    short = sim.store.pods["default/short"]
    assert short.deletion_timestamp == 150_000 and short.deletion_grace_period_seconds == 30
    cond = short.conditions["DisruptionTarget"]
    assert (cond.status, cond.reason, cond.message) == ("True", "DeletionByTaintManager",
                                                        "Taint manager: deleting due to NoExecute taint")
    [mark] = events(sim, "TaintManagerEviction", "Pod/default/short")
    assert (mark.time, mark.message) == (120_000, "Marking for deletion Pod default/short")
    sim.run_until(409.9)
    assert sim.store.pods["default/web"].deletion_timestamp is None
    sim.run_until(1000)
    # The kubelet is gone: nobody confirms the deletion, so the pods stay Terminating.
    assert sim.store.pods["default/web"].deletion_timestamp == 410_000 + 30_000
    assert "default/short" in sim.store.pods


def test_untolerated_taint_deletes_at_once_and_infinite_toleration_never():
    sim = make_sim(nodes_toml("n-", 1) + pod_toml("p") + pod_toml(
        "forever", extra='tolerations = [{ key = "dedicated", operator = "Exists", effect = "NoExecute" }]'))
    sim.run_until(30)
    assert sim.apply(Operation("taint", node="n-1", taint="dedicated=db:NoExecute")).ok
    sim.run_until(30)
    assert sim.store.pods["default/p"].deletion_timestamp == 60_000
    assert "default/forever" in sim.store.pods and sim.store.pods["default/forever"].deletion_timestamp is None
    sim.run_until(31)
    assert sim.store.pods["default/p"].phase == "Running"  # still stopping: the app uses its whole grace
    sim.run_until(60)
    assert "default/p" not in sim.store.pods  # the kubelet confirmed after the grace period
    sim.run_until(3600)
    assert sim.store.pods["default/forever"].deletion_timestamp is None


def test_taint_removed_cancels_pending_deletions_with_an_event():
    sim = make_sim(nodes_toml("n-", 1) + pod_toml(
        "p", extra='tolerations = [{ key = "maint", operator = "Exists", effect = "NoExecute", tolerationSeconds = 60 }]'))
    sim.run_until(10)
    sim.apply(Operation("taint", node="n-1", taint="maint:NoExecute"))
    sim.run_until(40)
    sim.apply(Operation("untaint", node="n-1", taint="maint:NoExecute"))
    [cancel] = events(sim, "TaintManagerEviction", "Pod/default/p")
    assert (cancel.time, cancel.message) == (40_000, "Cancelling deletion of Pod default/p")
    sim.run_until(200)
    assert sim.store.pods["default/p"].deletion_timestamp is None


def test_clock_starts_when_first_seen_and_is_not_pushed_later():
    sim = make_sim(nodes_toml("n-", 1) + pod_toml(
        "p", extra='tolerations = [{ key = "a", operator = "Exists", effect = "NoExecute", tolerationSeconds = 100 }, '
                   '{ key = "b", operator = "Exists", effect = "NoExecute", tolerationSeconds = 50 }]'))
    sim.run_until(10)
    sim.apply(Operation("taint", node="n-1", taint="a:NoExecute"))
    assert sim.tainteviction.deletion_at(sim.store.pods["default/p"]) == 110_000
    sim.run_until(30)
    sim.apply(Operation("taint", node="n-1", taint="b:NoExecute"))
    # processPodOnNode keeps scheduled work whenever createdAt + min < now + min, i.e. whenever
    # the work was created before now: the deadline set at the first sighting stands.
    assert sim.tainteviction.deletion_at(sim.store.pods["default/p"]) == 110_000
    assert not events(sim, "TaintManagerEviction")


def test_matching_and_minimum_toleration_helpers():
    taints = [Taint("a", "NoExecute"), Taint("b", "NoExecute", "x")]
    tols = (Toleration("a", "Exists", "", "NoExecute", 30), Toleration("b", "Equal", "x", "NoExecute", None))
    ok, used = matching_tolerations(taints, tols)
    assert ok and min_toleration_seconds(used) == 30_000
    assert min_toleration_seconds([Toleration("b", "Exists", "", "NoExecute", None)]) == -1
    assert min_toleration_seconds([Toleration("b", "Exists", "", "NoExecute", -5)]) == 0
    assert matching_tolerations([Taint("c", "NoExecute")], tols) == (False, [])


def test_daemonset_pods_are_never_taint_evicted():
    sim = make_sim(nodes_toml("n-", 2) + """
[[daemonSets]]
name = "agent"
template = { labels = { app = "agent" } }
""")
    sim.run_until(60)
    sim.apply(Operation("power-off", node="n-1"))
    sim.run_until(900)
    agent = [p for p in sim.store.pods_on("n-1") if p.labels.get("app") == "agent"]
    assert len(agent) == 1 and agent[0].deletion_timestamp is None
    assert "node.kubernetes.io/unreachable:NoExecute" in sim.store.nodes["n-1"].taint_strings()
