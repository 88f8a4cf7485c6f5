"""Workload controllers: ReplicaSets (the Deployment controller that sizes them is deployment.py)
and DaemonSets.

ReplicaSet semantics (pkg/controller/replicaset): active pods are those neither terminal nor being
deleted; missing replicas are created in slow-start batches (1, 2, 4, ...; a batch with a failed
create is the last), surplus ones deleted in getPodsToDelete order (unassigned, then pending, then
not ready, then newest), at most burstReplicas (500) per sync either way. A sync whose create failed
(FailedCreate) is retried with the workqueue's rate-limited backoff: 5 ms, doubled per failure in a
row, at most 1000 s; a sync without error resets it. The creations are observed at once, so the
controller's expectations never hold a sync back here. Status: replicas (active pods),
readyReplicas, availableReplicas (ready for minReadySeconds). DaemonSet semantics (pkg/controller/daemon):
one pod per node whose selector and taints allow it, pinned with node affinity and tolerating
not-ready/unreachable forever; failed daemon pods are deleted and replaced.

Both controllers are driven by the objects that changed (a dirty set), never by a scan per tick.
"""

from __future__ import annotations

from dataclasses import MISSING, fields
from typing import TYPE_CHECKING

from . import binds
from .apiserver import AdmissionError
from .clock import PHASE_WORKLOADS, Wakeup
from .copies import copy_each
from .store import watches
from .objects import (
    NO_CONDITIONS,
    DISK_PRESSURE_TAINT,
    FAILED,
    MEMORY_PRESSURE_TAINT,
    NO_EXECUTE,
    NO_SCHEDULE,
    NOT_READY_TAINT,
    PENDING,
    PID_PRESSURE_TAINT,
    SUCCEEDED,
    TRUE,
    UNREACHABLE_TAINT,
    UNSCHEDULABLE_TAINT,
    DaemonSet,
    Deployment,
    Node,
    OwnerRef,
    Pod,
    PodTemplate,
    ReplicaSet,
    Toleration,
    node_selector_matches,
)

if TYPE_CHECKING:
    import random

    from .simulation import Simulation


# rand.SafeEncodeString's alphabet: no vowels, no confusable characters.
NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"

# pkg/controller/replicaset: BurstReplicas, controller.SlowStartInitialBatchSize; the default
# controller rate limiter's per-item exponential backoff (workqueue.DefaultControllerRateLimiter)
BURST_REPLICAS = 500
SLOW_START_INITIAL_BATCH_SIZE = 1
RATE_LIMIT_BASE_MS = 5
RATE_LIMIT_MAX_MS = 1_000_000

NOTHING: dict = {}  # an empty index, never written

DAEMON_TOLERATIONS = (
    Toleration(NOT_READY_TAINT, "Exists", "", NO_EXECUTE),
    Toleration(UNREACHABLE_TAINT, "Exists", "", NO_EXECUTE),
    Toleration(DISK_PRESSURE_TAINT, "Exists", "", NO_SCHEDULE),
    Toleration(MEMORY_PRESSURE_TAINT, "Exists", "", NO_SCHEDULE),
    Toleration(PID_PRESSURE_TAINT, "Exists", "", NO_SCHEDULE),
    Toleration(UNSCHEDULABLE_TAINT, "Exists", "", NO_SCHEDULE),
)


def random_suffix(rng: "random.Random", length: int = 5) -> str:
    """rand.String(5): five characters of NAME_ALPHABET, first character first. The draws are
    rng.choice's own (Random._randbelow: getrandbits of the alphabet size's bit length, again until
    below it), made here without its two calls per character: the shared RNG's sequence is
    unchanged (tests/test_workloads.py compares with rng.choice)."""
    bits = rng.getrandbits
    alphabet = NAME_ALPHABET
    size = len(alphabet)
    width = size.bit_length()
    suffix = ""
    for _ in range(length):
        r = bits(width)
        while r >= size:
            r = bits(width)
        suffix += alphabet[r]
    return suffix


SUFFIX_LENGTH = 5
# A draw is the top bits of a 32-bit word (Random._randbelow's getrandbits(width)): the top bits of the
# word's last byte. As bytes.translate tables over that byte: its character, and the bytes whose
# draw is rejected (not below the alphabet's size), deleted.
_DRAW_SHIFT = 8 - len(NAME_ALPHABET).bit_length()
_SUFFIX_CHARACTERS = bytes(NAME_ALPHABET.encode()[min(b >> _DRAW_SHIFT, len(NAME_ALPHABET) - 1)]
                           for b in range(256))
_REJECTED_DRAWS = bytes(b for b in range(256) if b >> _DRAW_SHIFT >= len(NAME_ALPHABET))


def unique_names(rng: "random.Random", base: str, namespace: str, count: int,
                 pods: dict) -> tuple[list[str], list[str]]:
    """`count` names `base`-suffix, each unique among `pods` (keys) and the names before it, and
    their keys (`namespace`/name, the strings the check made: the pods' own keys): the draws
    of `count` calls of _unique_name in a row, a name taken drawn again, with the same RNG sequence.
    getrandbits(k) takes the top k bits of one 32-bit word of the generator, and getrandbits(32 * n)
    the next n words, first word lowest: so the words are drawn n at a time, for the characters still
    needed at least (a word makes at most one), read with bytes.translate (a numpy round cost more than
    the draws of a slow-start batch), and cut into suffixes in order; a draw rejected by
    random_suffix, or a name taken, only asks for more words. Never a word more than one name after
    another draws (tests/test_workloads.py compares both, collisions forced)."""
    prefix, key_prefix = f"{base}-", f"{namespace}/{base}-"
    names: list[str] = []
    keys: list[str] = []
    taken: set[str] = set()
    pending = ""  # characters drawn, not yet in a name
    while len(names) < count:
        need = SUFFIX_LENGTH * (count - len(names)) - len(pending)
        top_bytes = rng.getrandbits(32 * need).to_bytes(4 * need, "little")[3::4]
        pending += top_bytes.translate(_SUFFIX_CHARACTERS, _REJECTED_DRAWS).decode()
        used = 0
        while used + SUFFIX_LENGTH <= len(pending) and len(names) < count:
            suffix = pending[used:used + SUFFIX_LENGTH]
            used += SUFFIX_LENGTH
            key = key_prefix + suffix
            if key not in pods and key not in taken:
                taken.add(key)
                keys.append(key)
                names.append(prefix + suffix)
        pending = pending[used:]
    return names, keys


def template_hash(template: PodTemplate) -> str:
    """pod-template-hash: controller.ComputeHash's FNV-32a over the pod template, written out as
    rand.SafeEncodeString writes the decimal value. Kubernetes feeds the hasher the template's
    deep-printed Go struct; we feed it the template fields that differ from their defaults, so a
    field added later with a default changes no existing hash."""
    digest = 0x811C9DC5
    for byte in canonical_template(template).encode():
        digest = ((digest ^ byte) * 0x01000193) & 0xFFFFFFFF
    return "".join(NAME_ALPHABET[ord(c) % len(NAME_ALPHABET)] for c in str(digest))


def canonical_template(template: PodTemplate) -> str:
    lines = []
    for f in fields(template):
        value = getattr(template, f.name)
        default = f.default_factory() if f.default_factory is not MISSING else f.default
        if value != default:
            lines.append(f"{f.name}={_canonical(value)}")
    return "\n".join(lines)


def _canonical(value) -> str:
    if isinstance(value, dict):
        return "{" + ",".join(f"{k!r}:{_canonical(v)}" for k, v in sorted(value.items())) + "}"
    if isinstance(value, (tuple, list)):
        return "(" + ",".join(_canonical(v) for v in value) + ")"
    return repr(value)


def pod_from_template(sim: "Simulation", name: str, namespace: str, template: PodTemplate,
                      owner: OwnerRef | None) -> Pod:
    # Pods of one template share its labels, node selector, tolerations and affinity: no code writes
    # them in place (a StatefulSet's pod-name label makes a new dict), so 150,000 pods hold one copy.
    # The fields are given in Pod's order, positionally: matching 24 keywords cost about as much as
    # the rest of a pod's creation (tests/test_workloads.py checks the order against the keywords).
    return Pod(
        name, namespace, sim.store.new_uid(), template.labels, sim.clock.now,
        template.priority or 0, template.priority_class_name, "PreemptLowerPriority",
        template.cpu, template.memory, template.tolerations, template.node_selector,
        None,  # affinity_node_name
        template.required_node_affinity, template.preferred_node_affinity,
        template.topology_spread_constraints, template.required_pod_affinity, template.preferred_pod_affinity,
        template.required_pod_anti_affinity, template.preferred_pod_anti_affinity,
        None,  # node_name
        template.termination_grace_period_seconds, template.start_duration, template.stop_duration,
        owner, template.empty_dir,
        False, (), PENDING, "", "",  # mirror, volume_claims, phase, reason, message
        NO_CONDITIONS,
    )


def _admitted_copies(sim: "Simulation", names: list[str], keys: list[str], namespace: str,
                     template: PodTemplate, owner: OwnerRef | None) -> list[Pod]:
    """pod_from_template for each of `names` (their keys: `keys`), admitted (APIServer.admit_pods):
    the first is made and admitted, the others are copies of it with their own name, uid and key.
    Admission reads nothing of a pod but its template's fields, and the pods of a template differ
    in nothing else."""
    first = pod_from_template(sim, names[0], namespace, template, owner)
    sim.apiserver.admit_pod(first)
    rest = names[1:]
    return [first, *copy_each(first, ("name", "uid", "key"), (rest, sim.store.new_uids(len(rest)), keys[1:]))]


class WorkloadControllers:
    # A ReplicaSet's slow-start batch goes into the store together when that is the same as one
    # create after another (_may_create_together); False creates one by one (the reference its
    # test compares with).
    create_together = True

    def __init__(self, sim: "Simulation") -> None:
        from .deployment import DeploymentController

        self.sim = sim
        self.dirty_deployments: set[str] = set()
        self.dirty_daemon_nodes: set[str] = set()
        self._wakeup = Wakeup(sim.clock, PHASE_WORKLOADS, "workloads.sync")
        # ReplicaSet name -> the ReplicaSet; Deployment name -> its ReplicaSets
        self.replicasets: dict[str, ReplicaSet] = {}
        self._by_deployment: dict[str, dict[str, ReplicaSet]] = {}
        # ReplicaSet name -> its active pods (neither terminal nor being deleted) by key, and those of
        # them that are ready by uid, kept from pod events so that a sync costs the replicas it creates or
        # deletes, not a scan of every pod it owns.
        self._active: dict[str, dict[str, Pod]] = {}
        self._ready: dict[str, dict[str, Pod]] = {}
        self._min_ready_due: dict[str, int] = {}
        # ReplicaSet name -> failed syncs in a row (the workqueue's NumRequeues), next retry time
        self._failures: dict[str, int] = {}
        self._retry_at: dict[str, int] = {}
        # (DaemonSet name, node name) -> its pods there, so a node's sync never scans all daemon pods.
        self._daemon_pods: dict[tuple[str, str], dict[str, Pod]] = {}
        # ReplicaSet name -> the ownerReference its pods hold: one object for all of them, so that
        # comparing two pods' owners (the scheduler's run keys) is an identity test.
        self._owners: dict[str, OwnerRef] = {}
        self.deployments = DeploymentController(sim, self)
        sim.store.pod_watchers.append(self._on_pod_event)
        sim.store.together_watchers[self._on_pod_event] = self._on_pods_event
        sim.store.node_watchers.append(self._on_node_event)

    # ---------------------------------------------------------------- informers

    @watches("added", "phase", "condition", "deleting", "removed")
    def _on_pod_event(self, what: str, pod: Pod) -> None:
        self._on_pods_event(what, [pod])  # (a batch of one: its loop is binds.index_replicaset_pods)

    def _on_pods_event(self, what: str, pods: list[Pod]) -> None:
        """_on_pod_event for each of `pods` in turn (Store._pods_changed): a batch of creates, binds
        or Running reports is thousands of pods of a few ReplicaSets, so a ReplicaSet's indexes are
        looked up once for each stretch of its pods, and the Deployment marked and the controller
        woken once (the same instant: the later marks and wakeups of the stretch change nothing):
        binds.index_replicaset_pods, which indexes a ReplicaSet's pods as IsPodActive and readiness
        say and gives the pods of other owners to _on_other_pod."""
        if what == "bound" or what == "nominated":
            return  # (heard only when every watcher hears every change)
        binds.index_replicaset_pods(what, pods, self.replicasets, self._active, self._ready, self._on_other_pod,
                                    self._mark_replicaset, (SUCCEEDED, FAILED, TRUE))

    def _on_other_pod(self, what: str, pod: Pod) -> None:
        """A pod whose owner is not a ReplicaSet: a DaemonSet's pod indexed by its node."""
        if pod.owner.kind == "DaemonSet" and pod.affinity_node_name \
                and what in ("removed", "deleting", "phase", "added"):
            index = self._daemon_pods.setdefault((pod.owner.name, pod.affinity_node_name), {})
            if what == "removed":
                index.pop(pod.key, None)
            else:
                index[pod.key] = pod
            self.dirty_daemon_nodes.add(pod.affinity_node_name)
            self._kick()

    def _mark_replicaset(self, rs: ReplicaSet) -> None:
        self.dirty_deployments.add(rs.deployment)
        self._wakeup.arm(self.sim.clock.now)  # _kick, one call less

    def _on_node_event(self, what: str, node: Node) -> None:
        if self.sim.store.daemonsets and what in ("added", "taints", "removed"):
            self.dirty_daemon_nodes.add(node.name)
            self._kick()

    def add_deployment(self, deployment: Deployment) -> None:
        deployment.creation_time = self.sim.clock.now
        self.sim.store.deployments[deployment.name] = deployment
        self.mark_deployment(deployment.name)

    def add_replicaset(self, rs: ReplicaSet) -> None:
        self.replicasets[rs.name] = rs
        self._by_deployment.setdefault(rs.deployment, {})[rs.name] = rs

    def remove_replicaset(self, rs: ReplicaSet) -> None:
        self.replicasets.pop(rs.name, None)
        self._by_deployment.get(rs.deployment, {}).pop(rs.name, None)
        self._owners.pop(rs.name, None)

    def replicasets_of(self, deployment: str) -> list[ReplicaSet]:
        return list(self._by_deployment.get(deployment, NOTHING).values())

    def sole_replicaset(self, deployment: str) -> ReplicaSet | None:
        """The Deployment's ReplicaSet when it has exactly one."""
        rss = self._by_deployment.get(deployment)
        return next(iter(rss.values())) if rss is not None and len(rss) == 1 else None

    def deployment_of(self, replicaset: str) -> Deployment | None:
        """The Deployment that controls a ReplicaSet (its controller ownerReference)."""
        rs = self.replicasets.get(replicaset)
        return self.sim.store.deployments.get(rs.deployment) if rs is not None else None

    def add_daemonset(self, daemonset: DaemonSet) -> None:
        self.sim.store.daemonsets[daemonset.name] = daemonset
        self.mark_all_daemon_nodes()

    def _kick(self) -> None:
        self._wakeup.arm(self.sim.clock.now)

    def mark_deployment(self, name: str) -> None:
        self.dirty_deployments.add(name)
        self._kick()

    def spec_updated(self, deployment: Deployment) -> None:
        """A write to the Deployment's spec: the API server bumps metadata.generation, the
        deployment controller hears of it."""
        deployment.generation += 1
        self.mark_deployment(deployment.name)

    def mark_replicaset(self, rs: ReplicaSet) -> None:
        self.mark_deployment(rs.deployment)

    def mark_all_daemon_nodes(self) -> None:
        self.dirty_daemon_nodes.update(self.sim.store.nodes)
        self._kick()

    # ---------------------------------------------------------------- sync

    def sync(self) -> None:
        self._wakeup.fired()
        deployments, self.dirty_deployments = sorted(self.dirty_deployments), set()
        dirty = self.dirty_deployments
        for name in deployments:
            deployment = self.sim.store.deployments.get(name)
            if deployment is not None:
                marked_before = name in dirty
                self._sync_deployment(deployment)
                if not marked_before and name in dirty and self._idle(deployment):
                    # The pods this sync created or deleted marked the Deployment again; the sync
                    # already saw them, and a sync now would find nothing to do (a workqueue key
                    # added while its worker still processes it, whose next sync is a no-op).
                    dirty.discard(name)
        nodes, self.dirty_daemon_nodes = sorted(self.dirty_daemon_nodes), set()
        for daemonset in list(self.sim.store.daemonsets.values()):
            for node_name in nodes:
                self._sync_daemon_node(daemonset, node_name)

    def _sync_deployment(self, deployment: Deployment) -> None:
        """The deployment controller sizes the ReplicaSets, the ReplicaSet controller creates and
        deletes pods, and the two answer each other until neither has more to do in this instant."""
        controller = self.deployments
        first = 0
        if controller.settled(deployment):
            # The deployment sync would change nothing (nothing it reads has changed since its last
            # sync): only the ReplicaSet's pods may have moved, so its sync goes first.
            rs = self.sole_replicaset(deployment.name)
            if not self._sync_replicaset(rs) or not self._update_status(rs):
                return
            first = 1
        for _ in range(first, 10):
            controller.sync_deployment(deployment)
            changed = False
            for rs in controller.replica_sets(deployment):
                if not self._sync_replicaset(rs):
                    break
                changed |= self._update_status(rs)
            if not changed:
                controller.remember(deployment)
                return
        controller.forget(deployment)

    def _idle(self, deployment: Deployment) -> bool:
        """Right after its sync: a sync of the Deployment now would change nothing, as its deployment
        sync is settled and its one ReplicaSet has as many active pods as it wants, a status that
        counts them and no failed sync to forget."""
        if not self.deployments.left_settled(deployment):
            return False
        rs = self.sole_replicaset(deployment.name)
        active = self._active.get(rs.name, ())
        ready = self._ready.get(rs.name, ())
        return (len(active) == rs.replicas == rs.status_replicas and len(ready) == rs.ready_replicas
                and rs.available_replicas == len(ready) and not rs.min_ready_seconds
                and rs.name not in self._failures)

    def _update_status(self, rs: ReplicaSet) -> bool:
        """calculateStatus of the ReplicaSet controller; a timer for pods still short of
        minReadySeconds (the controller's AddAfter)."""
        active = self._active.get(rs.name, NOTHING)
        ready = self._ready.get(rs.name, NOTHING)
        available = len(ready)
        if rs.min_ready_seconds and ready:
            now = self.sim.clock.now
            wait = rs.min_ready_seconds * 1000
            pending = [t + wait for t in (self._ready_since(p) for p in ready.values()) if t + wait > now]
            available -= len(pending)
            if pending and self._min_ready_due.get(rs.name, -1) != min(pending):
                self._min_ready_due[rs.name] = min(pending)
                self.sim.clock.call_at(min(pending), PHASE_WORKLOADS, "deployment.resync", rs.deployment)
        status = (len(active), len(ready), available)
        if status == (rs.status_replicas, rs.ready_replicas, rs.available_replicas):
            return False
        rs.status_replicas, rs.ready_replicas, rs.available_replicas = status
        return True

    def _ready_since(self, pod: Pod) -> int:
        cond = pod.conditions.get("Ready")
        return cond.last_transition_time if cond is not None and cond.last_transition_time is not None else 0

    def _sync_replicaset(self, rs: ReplicaSet) -> bool:
        """manageReplicas: create the missing pods in slow-start batches and delete the surplus, at
        most burstReplicas either way; False when a create was refused (the sync's error)."""
        store = self.sim.store
        active = self._active.get(rs.name, NOTHING)
        diff = rs.replicas - len(active)
        if diff > 0:
            owner = self._owners.get(rs.name)
            if owner is None:
                owner = self._owners[rs.name] = OwnerRef("ReplicaSet", rs.name)
            ref = f"ReplicaSet/{rs.namespace}/{rs.name}"
            if not self._slow_start_create(rs, min(diff, BURST_REPLICAS), owner, ref):
                self._requeue_rate_limited(rs)
                return False
        elif diff < 0:
            ref = f"ReplicaSet/{rs.namespace}/{rs.name}"
            for pod in sorted(active.values(), key=self._deletion_rank)[:min(-diff, BURST_REPLICAS)]:
                store.event("Normal", "SuccessfulDelete", ref, f"Deleted pod: {pod.name}", "replicaset-controller")
                self.sim.apiserver.delete_pod(pod)
        self._failures.pop(rs.name, None)  # the queue's Forget after a sync without error
        return True

    def _slow_start_create(self, rs: ReplicaSet, count: int, owner: OwnerRef, ref: str) -> bool:
        """slowStartBatch: batches of 1, 2, 4, ... creates; a batch with a failure is the last."""
        store = self.sim.store
        together: bool | None = None  # asked at the first batch of several pods (most syncs create one)
        remaining, batch = count, min(count, SLOW_START_INITIAL_BATCH_SIZE)
        while batch > 0:
            ok = True
            if batch > 1 and together is None:
                together = self.create_together and self._may_create_together(rs)
            if batch > 1 and together:
                self._create_batch(rs, batch, owner, ref)
            else:
                for _ in range(batch):
                    name = self._unique_name(rs.name, rs.namespace)
                    pod = pod_from_template(self.sim, name, rs.namespace, rs.template, owner)
                    if not self._create(pod, ref, "replicaset-controller"):
                        ok = False
                    elif batch == 1 and count > 1:
                        # (the first create of several: a run of one, as the batches after it are
                        # recorded, so that no SuccessfulCreate is recorded alone and the recorder
                        # checks a batch for repeats in one call: EventRecorder._repeats_any. A run
                        # costs more than an Event, and most syncs create one pod.)
                        store.event_run("Normal", "SuccessfulCreate", ref, "Created pod: {0}", [pod.name],
                                        "replicaset-controller")
                    else:
                        store.event("Normal", "SuccessfulCreate", ref, f"Created pod: {pod.name}",
                                    "replicaset-controller")
            if not ok:
                return False
            remaining -= batch
            batch = min(2 * batch, remaining)
        return True

    def _may_create_together(self, rs: ReplicaSet) -> bool:
        """A slow-start batch may go into the store together (Store.add_pods) when that is what one
        create after another does: no create of it can be refused (its PriorityClass exists, and its
        names are unique by construction), and no other watcher writes an event for a new pod. Taint
        eviction, PodGC and the kubelets do nothing for an unbound pod, the scheduler queues it, and
        this controller counts it: indexes and timers of their own. Only the disruption controller
        writes an event, for a pod that two budgets select: such a batch goes one by one."""
        template = rs.template
        if template.priority_class_name and template.priority_class_name not in self.sim.store.priority_classes:
            return False
        return len(self.sim.disruption.budgets_of(rs.namespace, template.labels)) <= 1

    def _create_batch(self, rs: ReplicaSet, count: int, owner: OwnerRef, ref: str) -> None:
        """`count` creates that all succeed (_may_create_together), made together: the names drawn as
        one create after another draws them, admission once for the template, the store's watchers
        told of the pods together, then one SuccessfulCreate event a pod, in order."""
        store = self.sim.store
        names, keys = unique_names(self.sim.rng, rs.name, rs.namespace, count, store.pods)
        if copy_each is None:
            pods = [pod_from_template(self.sim, name, rs.namespace, rs.template, owner) for name in names]
            self.sim.apiserver.admit_pods(pods)
        else:
            pods = _admitted_copies(self.sim, names, keys, rs.namespace, rs.template, owner)
        store.add_pods(pods)
        store.event_run("Normal", "SuccessfulCreate", ref, "Created pod: {0}", [pod.name for pod in pods],
                        "replicaset-controller")

    def _requeue_rate_limited(self, rs: ReplicaSet) -> None:
        """queue.AddRateLimited after a failed sync: the default controller rate limiter's per-item
        exponential backoff, 5 ms doubled per failure up to 1000 s (its 10 qps bucket never binds
        here). One retry timer per ReplicaSet: an earlier one already set stands."""
        failures = self._failures.get(rs.name, 0)
        self._failures[rs.name] = failures + 1
        delay = min(RATE_LIMIT_BASE_MS * 2 ** min(failures, 40), RATE_LIMIT_MAX_MS)
        due = self.sim.clock.now + delay
        pending = self._retry_at.get(rs.name)
        if pending is not None and self.sim.clock.now < pending <= due:
            return
        self._retry_at[rs.name] = due
        self.sim.clock.call_at(due, PHASE_WORKLOADS, "deployment.resync", rs.deployment)

    def retry_due(self, rs_name: str) -> int | None:
        """When a ReplicaSet whose create failed is synced again (None if none is pending)."""
        due = self._retry_at.get(rs_name)
        return due if due is not None and due > self.sim.clock.now and rs_name in self._failures else None

    def _create(self, pod: Pod, owner_ref: str, source: str) -> bool:
        try:
            self.sim.apiserver.create_pod(pod)
        except AdmissionError as exc:
            self.sim.store.event("Warning", "FailedCreate", owner_ref, f"Error creating: {exc}", source)
            return False
        return True

    def _deletion_rank(self, pod: Pod) -> tuple:
        """controller.ActivePods ordering: the pods to delete first sort first."""
        phase_rank = {"Pending": 0, "Unknown": 1, "Running": 2}.get(pod.phase, 3)
        return (
            pod.node_name is not None,
            phase_rank,
            pod.is_ready(),
            -(pod.start_time if pod.start_time is not None else self.sim.clock.now),
            -pod.creation_time,
            pod.name,
        )

    def _unique_name(self, base: str, namespace: str) -> str:
        """A name no pod has."""
        pods = self.sim.store.pods
        while True:
            name = f"{base}-{random_suffix(self.sim.rng)}"
            if f"{namespace}/{name}" not in pods:
                return name

    # ---------------------------------------------------------------- DaemonSets

    def daemon_pod_on(self, daemonset: DaemonSet, node_name: str) -> list[Pod]:
        return list(self._daemon_pods.get((daemonset.name, node_name), {}).values())

    def should_run(self, daemonset: DaemonSet, node: Node) -> tuple[bool, bool]:
        """(should run a new pod, may keep running an existing one): selector and taint checks."""
        selector = daemonset.template.node_selector
        if any(node.labels.get(k) != v for k, v in selector.items()):
            return False, False
        required = daemonset.template.required_node_affinity
        if required is not None and not node_selector_matches(required, node.name, node.labels):
            return False, False
        tolerations = tuple(daemonset.template.tolerations) + DAEMON_TOLERATIONS
        run = keep = True
        for taint in node.taints:
            if taint.effect not in (NO_SCHEDULE, NO_EXECUTE):
                continue
            if not any(t.tolerates(taint) for t in tolerations):
                run = False
                if taint.effect == NO_EXECUTE:
                    keep = False
        return run, keep

    def _sync_daemon_node(self, daemonset: DaemonSet, node_name: str) -> None:
        store = self.sim.store
        node = store.nodes.get(node_name)
        pods = self.daemon_pod_on(daemonset, node_name)
        live = [p for p in pods if p.deletion_timestamp is None]
        for pod in live:
            if pod.phase == "Failed":
                store.event("Warning", "FailedDaemonPod", f"DaemonSet/{daemonset.namespace}/{daemonset.name}",
                            f"Found failed daemon pod {pod.key} on node {node_name}, will try to kill it",
                            "daemonset-controller")
                self.sim.apiserver.delete_pod(pod)
        live = [p for p in live if p.phase != "Failed"]
        if node is None:
            return
        run, keep = self.should_run(daemonset, node)
        if not live and run and not [p for p in pods if p.deletion_timestamp is not None]:
            name = self._unique_name(daemonset.name, daemonset.namespace)
            pod = pod_from_template(self.sim, name, daemonset.namespace, daemonset.template,
                                    OwnerRef("DaemonSet", daemonset.name))
            pod.affinity_node_name = node_name
            pod.tolerations = pod.tolerations + DAEMON_TOLERATIONS
            if self._create(pod, f"DaemonSet/{daemonset.namespace}/{daemonset.name}", "daemonset-controller"):
                store.event("Normal", "SuccessfulCreate", f"DaemonSet/{daemonset.namespace}/{daemonset.name}",
                            f"Created pod: {pod.name}", "daemonset-controller")
        elif live and not keep:
            for pod in live:
                self.sim.apiserver.delete_pod(pod)
