"""ReplicaSet (Deployment) and DaemonSet semantics, and the kubelet's pod lifecycle."""

import random

from hypothesis import assume, given, settings, strategies as st

from conftest import events, make_sim, nodes_toml

from playground.engine import Operation
from playground.engine.workloads import NAME_ALPHABET, random_suffix

WEB = """
[[deployments]]
name = "web"
replicas = 4
template = { labels = { app = "web" }, requests = { cpu = "500m", memory = "256Mi" }, startDuration = "3s", stopDuration = "2s" }
"""


def web_pods(sim, active_only=True):
    pods = [p for p in sim.store.pods.values() if p.labels.get("app") == "web"]
    return [p for p in pods if p.is_active()] if active_only else pods


def test_deployment_pods_start_after_their_start_duration():
    sim = make_sim(nodes_toml("n-", 2) + WEB)
    sim.run_until(0)
    pods = web_pods(sim)
    assert len(pods) == 4 and all(p.node_name for p in pods)
    assert all(p.phase == "Pending" and p.start_time == 0 for p in pods)
    sim.run_until(2.9)
    assert all(p.phase == "Pending" for p in pods)
    sim.run_until(3)
    assert all(p.phase == "Running" and p.is_ready() for p in pods)
    assert len(events(sim, "SuccessfulCreate")) == 4 and len(events(sim, "Scheduled")) == 4
    assert all(p.name.startswith(sim.workloads.replicasets_of("web")[0].name + "-") for p in pods)


def test_deleted_pod_is_replaced_at_once_and_terminates_after_its_stop_duration():
    sim = make_sim(nodes_toml("n-", 2) + WEB)
    sim.run_until(10)
    victim = web_pods(sim)[0]
    assert sim.apply(Operation("delete-pod", pod=victim.name)).ok
    assert victim.deletion_timestamp == 40_000 and victim.deletion_grace_period_seconds == 30
    sim.run_until(10)
    assert len(web_pods(sim)) == 4  # the replacement exists while the victim terminates
    [kill] = events(sim, "Killing", victim.ref)
    assert kill.time == 10_000
    sim.run_until(11.9)
    assert victim.key in sim.store.pods
    sim.run_until(12)
    assert victim.key not in sim.store.pods  # stopDuration 2 s < grace 30 s


def test_grace_period_override_and_app_that_ignores_sigterm():
    sim = make_sim(nodes_toml("n-", 1) + '\n[[pods]]\nname = "stubborn"\nnodeName = "n-1"\nterminationGracePeriodSeconds = 45\n')
    sim.run_until(5)
    sim.apply(Operation("delete-pod", pod="stubborn"))
    sim.run_until(49.9)
    assert "default/stubborn" in sim.store.pods
    sim.run_until(50)
    assert "default/stubborn" not in sim.store.pods
    sim2 = make_sim(nodes_toml("n-", 1) + '\n[[pods]]\nname = "p"\nnodeName = "n-1"\n')
    sim2.run_until(5)
    sim2.apply(Operation("delete-pod", pod="p", grace_period_seconds=0))
    assert "default/p" not in sim2.store.pods and not sim2.kubelets["n-1"].containers


def test_scale_up_and_down_deletes_not_ready_pods_first():
    sim = make_sim(nodes_toml("n-", 2) + WEB)
    sim.run_until(10)
    assert sim.apply(Operation("scale", deployment="web", replicas=6)).message == "deployment.apps/web scaled"
    sim.run_until(11)
    assert len(web_pods(sim)) == 6
    young = {p.key for p in web_pods(sim) if not p.is_ready()}
    assert len(young) == 2
    sim.apply(Operation("scale", deployment="web", replicas=4))
    sim.run_until(11)
    deleting = {p.key for p in web_pods(sim, active_only=False) if p.deletion_timestamp is not None}
    assert deleting == young


def test_failed_pods_are_replaced():
    sim = make_sim(nodes_toml("n-", 2) + WEB)
    sim.run_until(10)
    pod = web_pods(sim)[0]
    sim.store.set_pod_phase(pod, "Failed", "Error", "boom")
    sim.run_until(10)
    assert len(web_pods(sim)) == 4 and pod.key in sim.store.pods


def test_daemonset_runs_one_pod_per_eligible_node():
    sim = make_sim(nodes_toml("n-", 3) + """
[[nodes]]
name = "gpu-1"
capacity = { cpu = "8", memory = "32Gi" }
taints = ["gpu=true:NoSchedule"]

[[daemonSets]]
name = "agent"
namespace = "monitoring"
template = { labels = { app = "agent" }, requests = { cpu = "100m" } }
""")
    sim.run_until(5)
    agents = [p for p in sim.store.pods.values() if p.labels.get("app") == "agent"]
    assert sorted(p.node_name for p in agents) == ["n-1", "n-2", "n-3"]
    tol_keys = {t.key for t in agents[0].tolerations}
    assert {"node.kubernetes.io/unreachable", "node.kubernetes.io/not-ready",
            "node.kubernetes.io/unschedulable"} <= tol_keys
    sim.apply(Operation("cordon", node="n-1"))
    sim.apply(Operation("delete-pod", pod=next(p for p in agents if p.node_name == "n-1").name,
                        namespace="monitoring", grace_period_seconds=0))
    sim.run_until(6)
    replacement = [p for p in sim.store.pods_on("n-1") if p.labels.get("app") == "agent"]
    assert len(replacement) == 1  # tolerates unschedulable


def test_unknown_priority_class_is_refused_with_the_admission_message_and_no_event():
    sim = make_sim(nodes_toml("n-", 1))
    result = sim.apply(Operation("create-pod", pod="x"))
    assert result.ok
    from playground.engine.objects import PodTemplate

    bad = sim.apply(Operation("create-pod", pod="y", template=PodTemplate(labels={}, priority_class_name="nope")))
    assert not bad.ok and bad.message == 'pods "y" is forbidden: no PriorityClass with name nope was found'
    assert events(sim, "OperationRefused") == [] and "default/y" not in sim.store.pods


def test_refused_operations_are_messages_not_exceptions():
    sim = make_sim(nodes_toml("n-", 1))
    for op in (Operation("cordon", node="ghost"), Operation("power-on", node="n-1"),
               Operation("heal", node="n-1"), Operation("delete-pod", pod="ghost"),
               Operation("scale", deployment="ghost", replicas=1), Operation("untaint", node="n-1", taint="x"),
               Operation("taint", node="n-1", taint="novalue"), Operation("bogus", node="n-1")):
        result = sim.apply(op)
        assert not result.ok and result.message
    # invalid operations (unknown node or deployment, a malformed taint, an unknown operation) are
    # refused without an event; the cluster's refusals of valid ones are Warning events
    assert len(events(sim, "OperationRefused")) == 4
    assert [r.operation.do for r in sim.operations.history] == ["power-on", "heal", "delete-pod", "untaint"]


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**32), st.integers(1, 40))
def test_pod_name_suffixes_draw_as_rng_choice_does(seed, names):
    """random_suffix makes rng.choice's draws itself: the same suffixes, and the shared RNG is left
    in the same state (pod names, tie-breaks and preemption offsets after it are unchanged)."""
    fast, plain = random.Random(seed), random.Random(seed)
    for _ in range(names):
        assert random_suffix(fast) == "".join(plain.choice(NAME_ALPHABET) for _ in range(5))
    assert fast.random() == plain.random()


def names_one_after_another(rng, base, namespace, count, pods) -> list[str]:
    """The reference: one random_suffix after another, a name taken (by a pod or an earlier name)
    drawn again, as WorkloadControllers._unique_name draws a single name."""
    names, keys = [], set()
    while len(names) < count:
        name = f"{base}-{random_suffix(rng)}"
        key = f"{namespace}/{name}"
        if key not in pods and key not in keys:
            keys.add(key)
            names.append(name)
    return names


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.integers(1, 600), st.integers(0, 400), st.integers(0, 3))
def test_a_batch_of_names_draws_as_one_name_after_another(seed, count, known, repeats):
    """unique_names (a ReplicaSet's batch) against the reference: the same names and the RNG left in
    the same state. Collisions are forced: `known` of the names the reference would draw are pods
    already, and the generator is rewound `repeats` times so that a batch draws names it drew before."""
    from playground.engine.workloads import unique_names

    pods = {}
    probe = random.Random(seed)
    for name in names_one_after_another(probe, "web-abc", "default", known, {}):
        pods[f"default/{name}"] = None
    for _ in range(repeats + 1):
        fast, plain = random.Random(seed), random.Random(seed)
        fast_names, fast_keys = unique_names(fast, "web-abc", "default", count, pods)
        assert fast_keys == [f"default/{name}" for name in fast_names]
        assert fast_names == names_one_after_another(plain, "web-abc", "default", count, pods)
        assert fast.getstate() == plain.getstate()
        pods.update((f"default/{name}", None) for name in fast_names[: count // 2])


class CyclicWords(random.Random):
    """A generator whose 32-bit words repeat with a short period, drawn as CPython's getrandbits
    draws them (k <= 32: the top k bits of one word; 32 * n: n words, the first lowest), so that a
    batch draws the same name again and again."""

    def __init__(self, words: list[int]) -> None:
        super().__init__(0)
        self.words, self.drawn = words, 0

    def _word(self) -> int:
        word = self.words[self.drawn % len(self.words)]
        self.drawn += 1
        return word

    def getrandbits(self, k: int) -> int:
        if k <= 32:
            return self._word() >> (32 - k)
        assert k % 32 == 0
        return sum(self._word() << (32 * i) for i in range(k // 32))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 2**32 - 1), min_size=6, max_size=40), st.integers(1, 30))
def test_a_batch_that_draws_its_own_names_again_draws_as_one_name_after_another(words, count):
    from playground.engine.workloads import unique_names

    accepted = [NAME_ALPHABET[w >> 27] for w in words if w >> 27 < len(NAME_ALPHABET)]
    assume(accepted)
    # the names the cycle can make: a suffix starts at every 5th character of the periodic stream
    stream = "".join(accepted) * 6
    names = {stream[i:i + 5] for i in range(0, 5 * len(accepted), 5)}
    count = min(count, len(names))
    fast, plain = CyclicWords(words), CyclicWords(words)
    names, keys = unique_names(fast, "db", "prod", count, {})
    assert names == names_one_after_another(plain, "db", "prod", count, {})
    assert keys == [f"prod/{name}" for name in names]
    assert fast.drawn == plain.drawn


def test_pod_from_template_fills_every_field_by_name():
    """pod_from_template passes Pod's fields positionally: each template field lands in the Pod field
    of its name (a distinct marker per field finds a shifted or swapped position)."""
    from dataclasses import fields

    from playground.engine.objects import NO_CONDITIONS, OwnerRef, Pod, PodTemplate
    from playground.engine.workloads import pod_from_template

    template = PodTemplate(**{f.name: f"marker-{f.name}" for f in fields(PodTemplate)})
    sim = make_sim(nodes_toml("n", 1))
    owner = OwnerRef("ReplicaSet", "web-1")
    pod = pod_from_template(sim, "web-1-abcde", "team", template, owner)
    shared = {f.name for f in fields(Pod)} & {f.name for f in fields(PodTemplate)}
    expected = Pod(name="web-1-abcde", namespace="team", uid=pod.uid, labels=template.labels,
                   creation_time=sim.clock.now, owner=owner,
                   **{name: getattr(template, name) for name in shared if name != "labels"})
    expected.conditions = NO_CONDITIONS
    assert pod == expected
    assert pod.key == "team/web-1-abcde" and pod.conditions is NO_CONDITIONS
    assert pod.node_name is None and pod.affinity_node_name is None and not pod.mirror
