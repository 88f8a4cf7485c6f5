"""The disruption controller (pkg/controller/disruption/disruption.go) and the Eviction API
(pkg/registry/core/pod/storage/eviction.go).

Disruption controller: each PodDisruptionBudget's status is recomputed when one of its pods changes
(informer-driven, in the disruption phase of the instant):

- expectedPods / desiredHealthy: an integer minAvailable counts the matching pods (any phase) and
  desires that many; a percentage minAvailable or any maxUnavailable takes the sum of the scale of
  the pods' controllers (Deployment, or StatefulSet) and rounds the percentage up. Pods without a
  controller are "unmanaged" (event UnmanagedPods); a controller without a scale subresource
  (DaemonSet) is an error: the status fails safe (disruptionsAllowed 0, DisruptionAllowed=False
  SyncFailed).
- currentHealthy: Ready pods that are neither being deleted nor listed in disruptedPods for less
  than DeletionTimeout (2 min).
- disruptionsAllowed = currentHealthy - desiredHealthy, never below 0, and 0 while no pod is expected.
- disruptedPods entries are dropped once the pod is being deleted or gone; an entry older than
  2 min is dropped with a NotDeleted event, and the PDB is re-checked when the next entry expires.

Eviction API (`evict`): terminal, Pending and already-deleting pods are deleted without looking at
budgets; a pod covered by more than one PDB is refused with 500; an unready pod is deleted without
spending the budget when the PDB is already satisfied (IfHealthyBudget) or always (AlwaysAllow);
otherwise checkAndDecrement answers 429 while the status is stale or disruptionsAllowed is 0, else
decrements it, records the pod in disruptedPods and deletes the pod (DisruptionTarget
EvictionByEvictionAPI, the eviction's grace period).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .clock import PHASE_DISRUPTION, Wakeup
from .objects import FAILED, PENDING, SUCCEEDED, TRUE, Condition, Pod, PodDisruptionBudget
from .store import watches

if TYPE_CHECKING:
    from .simulation import Simulation

DELETION_TIMEOUT_MS = 120_000
MAX_DISRUPTED_POD_SIZE = 2000
SOURCE = "controllermanager"  # the disruption controller's event source component

TOO_MANY_REQUESTS = "Cannot evict pod as it would violate the pod's disruption budget."
MORE_THAN_ONE_PDB = "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."


def scaled_value(value: int | str, total: int) -> int:
    """intstr.GetScaledValueFromIntOrPercent(value, total, roundUp=true)."""
    if isinstance(value, int):
        return value
    percent = int(value.strip().rstrip("%"))
    return math.ceil(percent * total / 100)


def selector_string(selector: dict[str, str]) -> str:
    """How Go prints a *metav1.LabelSelector with %v (its generated String())."""
    labels = "".join(f"{k}: {v}," for k, v in sorted(selector.items()))
    return f"&LabelSelector{{MatchLabels:map[string]string{{{labels}}},MatchExpressions:[]LabelSelectorRequirement{{}},}}"


class SyncError(Exception):
    """A PDB whose status cannot be computed (the controller then fails safe)."""


@dataclass(slots=True)
class EvictionResult:
    """The answer to POST pods/<name>/eviction."""

    code: int  # 201 evicted (or deleted), 404, 429, 403, 500
    message: str = ""
    cause: str = ""  # the DisruptionBudget cause of a 429 / 403
    pdb: str | None = None  # "ns/name" of the budget that decided

    @property
    def ok(self) -> bool:
        return self.code == 201


class DisruptionController:
    def __init__(self, sim: "Simulation") -> None:
        self.sim = sim
        # Informer-style indexes: the pods each PDB selects and the PDBs each pod is selected by.
        self.pods_by_pdb: dict[str, dict[str, Pod]] = {}
        self.pdbs_by_pod: dict[str, tuple[str, ...]] = {}
        self.dirty: set[str] = set()
        self._wakeup = Wakeup(sim.clock, PHASE_DISRUPTION, "disruption.sync")
        self._recheck: dict[str, tuple[int, int]] = {}  # pdb key -> (due, timer id)
        self._last_event: dict[tuple[str, str], str] = {}  # (pdb key, reason) -> last message
        sim.store.pod_watchers.append(self._on_pod_event)

    # ---------------------------------------------------------------- informers

    def add_pdb(self, pdb: PodDisruptionBudget) -> None:
        """addDB: index the pods it selects and sync it."""
        store = self.sim.store
        store.pdbs[pdb.key] = pdb
        selected = {key: pod for key, pod in store.pods.items() if pdb.matches(pod)}
        if not self.pods_by_pdb:
            store.pod_watcher_woke()
        self.pods_by_pdb[pdb.key] = selected
        for key in selected:
            self.pdbs_by_pod[key] = self.pdbs_by_pod.get(key, ()) + (pdb.key,)
        self.enqueue(pdb.key)

    def pod_watch_idle(self) -> bool:
        """No PodDisruptionBudget exists (none is ever removed): no pod change concerns this
        controller, so the store does not call it (see store._idle)."""
        return not self.pods_by_pdb

    def ignores(self, pod: Pod) -> bool:
        """No budget selects `pod`: none of its changes but its creation concerns this controller (nor
        those of another pod of its labels and namespace, which the same budgets select)."""
        return not self.pods_by_pdb or pod.key not in self.pdbs_by_pod

    @watches("added", "bound", "phase", "condition", "deleting", "removed")
    def _on_pod_event(self, what: str, pod: Pod) -> None:
        if what == "nominated" or not self.pods_by_pdb:
            return  # no PodDisruptionBudget exists (none is ever removed): no pod has one
        key = pod.key
        if what == "added":
            matched = self.budgets_of(pod.namespace, pod.labels)
            if not matched:
                return
            self.pdbs_by_pod[key] = matched
            for pdb_key in matched:
                self.pods_by_pdb[pdb_key][key] = pod
            if len(matched) > 1:
                first = self.sim.store.pdbs[matched[0]].name
                self.sim.store.event(
                    "Warning", "MultiplePodDisruptionBudgets", pod.ref,
                    f'Pod "{pod.namespace}"/"{pod.name}" matches multiple PodDisruptionBudgets.  Chose "{first}" '
                    "arbitrarily.", SOURCE)
        matched = self.pdbs_by_pod.get(key, ())
        if what == "removed":
            self.pdbs_by_pod.pop(key, None)
            for pdb_key in matched:
                self.pods_by_pdb.get(pdb_key, {}).pop(key, None)
        for pdb_key in matched:
            self.enqueue(pdb_key)

    def budgets_of(self, namespace: str, labels: dict[str, str]) -> tuple[str, ...]:
        """The budgets that select a pod of these labels in this namespace (a pod that two select
        gets a MultiplePodDisruptionBudgets event when it is added)."""
        return tuple(k for k, pdb in self.sim.store.pdbs.items()
                     if k in self.pods_by_pdb and pdb.matches_labels(namespace, labels))

    def enqueue(self, pdb_key: str) -> None:
        self.dirty.add(pdb_key)
        self._wakeup.arm(self.sim.clock.now)

    def recheck(self, pdb_key: str) -> None:
        self._recheck.pop(pdb_key, None)
        self.enqueue(pdb_key)

    # ---------------------------------------------------------------- sync

    def sync(self) -> None:
        self._wakeup.fired()
        keys, self.dirty = sorted(self.dirty), set()
        for key in keys:
            pdb = self.sim.store.pdbs.get(key)
            if pdb is None:
                continue
            try:
                self._try_sync(pdb)
            except SyncError as exc:
                self._fail_safe(pdb, str(exc))

    def _try_sync(self, pdb: PodDisruptionBudget) -> None:
        pods = sorted(self.pods_by_pdb.get(pdb.key, {}).values(), key=lambda p: p.name)
        if not pods:
            self._event(pdb, "Normal", "NoPods", "No matching pods found")
        try:
            expected, desired, unmanaged = self.expected_pod_count(pdb, pods)
        except SyncError as exc:
            self._event(pdb, "Warning", "CalculateExpectedPodCountFailed",
                        f"Failed to calculate the number of expected pods: {exc}")
            raise
        if unmanaged:
            self._event(pdb, "Warning", "UnmanagedPods",
                        f"Pods selected by this PodDisruptionBudget (selector: {selector_string(pdb.selector)}) were "
                        "found to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, "
                        "which may result in undefined behavior. To account for these pods please set "
                        "\".spec.minAvailable\" field of the PDB to an integer value.")
        now = self.sim.clock.now
        disrupted, recheck_at = self._build_disrupted_pod_map(pods, pdb, now)
        healthy = self._count_healthy(pods, disrupted, now)
        self._update_status(pdb, healthy, desired, expected, disrupted)
        if recheck_at is not None:
            self._schedule_recheck(pdb.key, recheck_at)

    def expected_pod_count(self, pdb: PodDisruptionBudget, pods: list[Pod]) -> tuple[int, int, list[str]]:
        """getExpectedPodCount: (expectedCount, desiredHealthy, unmanaged pod names)."""
        if pdb.max_unavailable is not None:
            expected, unmanaged = self._expected_scale(pods)
            desired = max(0, expected - scaled_value(pdb.max_unavailable, expected))
            return expected, desired, unmanaged
        if isinstance(pdb.min_available, int):
            return len(pods), pdb.min_available, []
        if pdb.min_available is not None:
            expected, unmanaged = self._expected_scale(pods)
            return expected, scaled_value(pdb.min_available, expected), unmanaged
        return 0, 0, []

    def _expected_scale(self, pods: list[Pod]) -> tuple[int, list[str]]:
        """getExpectedScale: the sum of the scale of the pods' controllers."""
        store = self.sim.store
        scales: dict[tuple[str, str], int] = {}
        unmanaged: list[str] = []
        for pod in pods:
            owner = pod.owner
            if owner is None:
                unmanaged.append(pod.name)
                continue
            if owner.kind == "ReplicaSet":
                deployment = self.sim.workloads.deployment_of(owner.name)
                if deployment is None:
                    raise SyncError(f'found no controllers for pod "{pod.name}"')
                scales[("Deployment", deployment.name)] = deployment.replicas
            elif owner.kind == "StatefulSet":
                statefulset = store.statefulsets.get(f"{pod.namespace}/{owner.name}")
                if statefulset is None:
                    raise SyncError(f'found no controllers for pod "{pod.name}"')
                scales[("StatefulSet", statefulset.name)] = statefulset.replicas
            elif owner.kind == "DaemonSet":
                raise SyncError("daemonsets.apps does not implement the scale subresource")
            else:
                raise SyncError(f'found no controllers for pod "{pod.name}"')
        return sum(scales.values()), unmanaged

    def _build_disrupted_pod_map(self, pods: list[Pod], pdb: PodDisruptionBudget,
                                 now: int) -> tuple[dict[str, int], int | None]:
        """buildDisruptedPodMap: keep entries of pods not yet being deleted and not expired."""
        result: dict[str, int] = {}
        recheck_at: int | None = None
        if not pdb.disrupted_pods:
            return result, None
        for pod in pods:
            if pod.deletion_timestamp is not None:
                continue
            at = pdb.disrupted_pods.get(pod.name)
            if at is None:
                continue
            expected_deletion = at + DELETION_TIMEOUT_MS
            if expected_deletion <= now:
                # The source drops an entry strictly after the timeout; on a millisecond clock the
                # recheck runs at the expiry itself, where countHealthyPods already counts the pod.
                self.sim.store.event("Warning", "NotDeleted", pod.ref,
                                     f"Pod was expected by PDB {pdb.namespace}/{pdb.namespace} to be deleted but it "
                                     "wasn't", SOURCE)
            else:
                recheck_at = expected_deletion if recheck_at is None else min(recheck_at, expected_deletion)
                result[pod.name] = at
        return result, recheck_at

    @staticmethod
    def _count_healthy(pods: list[Pod], disrupted: dict[str, int], now: int) -> int:
        healthy = 0
        for pod in pods:
            if pod.deletion_timestamp is not None:
                continue
            at = disrupted.get(pod.name)
            if at is not None and at + DELETION_TIMEOUT_MS > now:
                continue
            if pod.is_ready():
                healthy += 1
        return healthy

    def _update_status(self, pdb: PodDisruptionBudget, healthy: int, desired: int, expected: int,
                       disrupted: dict[str, int]) -> None:
        allowed = healthy - desired
        if expected <= 0 or allowed <= 0:
            allowed = 0
        before = (pdb.current_healthy, pdb.desired_healthy, pdb.expected_pods, pdb.disruptions_allowed,
                  dict(pdb.disrupted_pods), pdb.observed_generation, self._condition_key(pdb))
        pdb.current_healthy, pdb.desired_healthy, pdb.expected_pods = healthy, desired, expected
        pdb.disruptions_allowed = allowed
        pdb.disrupted_pods = disrupted
        pdb.observed_generation = pdb.generation
        update_disruption_allowed_condition(pdb, self.sim.clock.now)
        after = (healthy, desired, expected, allowed, disrupted, pdb.observed_generation, self._condition_key(pdb))
        if before != after:
            self.sim.store.changes.pdbs.add(pdb.key)

    @staticmethod
    def _condition_key(pdb: PodDisruptionBudget) -> tuple:
        cond = pdb.conditions.get("DisruptionAllowed")
        return (cond.status, cond.reason, cond.message) if cond else ()

    def _fail_safe(self, pdb: PodDisruptionBudget, error: str) -> None:
        """failSafe: disruptionsAllowed 0 and DisruptionAllowed=False SyncFailed with the error."""
        pdb.disruptions_allowed = 0
        set_condition(pdb, "False", "SyncFailed", error, self.sim.clock.now)
        self.sim.store.changes.pdbs.add(pdb.key)

    def _schedule_recheck(self, pdb_key: str, due: int) -> None:
        current = self._recheck.get(pdb_key)
        if current is not None and current[0] <= due:
            return
        if current is not None:
            self.sim.clock.cancel(current[1])
        timer = self.sim.clock.call_at(due, PHASE_DISRUPTION, "disruption.recheck", pdb_key)
        self._recheck[pdb_key] = (due, timer)

    def _event(self, pdb: PodDisruptionBudget, type_: str, reason: str, message: str) -> None:
        """Events of one reason are recorded when their message changes (the recorder would count
        repeats of an identical event rather than log them again)."""
        if self._last_event.get((pdb.key, reason)) == message:
            return
        self._last_event[(pdb.key, reason)] = message
        self.sim.store.event(type_, reason, f"PodDisruptionBudget/{pdb.key}", message, SOURCE)

    # ---------------------------------------------------------------- the Eviction API

    def pdbs_for(self, pod: Pod) -> list[PodDisruptionBudget]:
        """getPodDisruptionBudgets: the PDBs in the pod's namespace whose non-empty selector matches."""
        return [pdb for key, pdb in sorted(self.sim.store.pdbs.items()) if pdb.matches(pod)]

    def evict(self, pod: Pod | None, grace_seconds: int | None = None, name: str = "") -> EvictionResult:
        """POST pods/<name>/eviction with DeleteOptions.gracePeriodSeconds."""
        store = self.sim.store
        if pod is None or store.pods.get(pod.key) is not pod:
            return EvictionResult(404, f'pods "{pod.name if pod is not None else name}" not found')
        if can_ignore_pdb(pod):
            self._delete(pod, grace_seconds)
            return EvictionResult(201)
        pdbs = self.pdbs_for(pod)
        if len(pdbs) > 1:
            return EvictionResult(500, MORE_THAN_ONE_PDB)
        if not pdbs:
            self._delete(pod, grace_seconds)
            return EvictionResult(201)
        pdb = pdbs[0]
        if not pod.is_ready():
            if pdb.unhealthy_pod_eviction_policy == "AlwaysAllow" or (
                    pdb.current_healthy >= pdb.desired_healthy and pdb.desired_healthy > 0):
                self._delete(pod, grace_seconds)
                return EvictionResult(201, pdb=pdb.key)
        refusal = self._check_and_decrement(pod, pdb)
        if refusal is not None:
            return refusal
        self._delete(pod, grace_seconds)
        return EvictionResult(201, pdb=pdb.key)

    def _check_and_decrement(self, pod: Pod, pdb: PodDisruptionBudget) -> EvictionResult | None:
        if pdb.observed_generation < pdb.generation:
            return EvictionResult(429, TOO_MANY_REQUESTS,
                                  f"The disruption budget {pdb.name} is still being processed by the server.", pdb.key)
        if pdb.disruptions_allowed < 0:
            return EvictionResult(403, f'poddisruptionbudgets.policy "{pdb.name}" is forbidden: '
                                       "pdb disruptions allowed is negative", pdb=pdb.key)
        if len(pdb.disrupted_pods) > MAX_DISRUPTED_POD_SIZE:
            return EvictionResult(403, f'poddisruptionbudgets.policy "{pdb.name}" is forbidden: DisruptedPods map too '
                                       "big - too many evictions not confirmed by PDB controller", pdb=pdb.key)
        if pdb.disruptions_allowed == 0:
            return EvictionResult(429, TOO_MANY_REQUESTS, budget_cause(pdb), pdb.key)
        pdb.disruptions_allowed -= 1
        if pdb.disruptions_allowed == 0:
            update_disruption_allowed_condition(pdb, self.sim.clock.now)
        pdb.disrupted_pods = {**pdb.disrupted_pods, pod.name: self.sim.clock.now}
        self.sim.store.changes.pdbs.add(pdb.key)
        # The controller hears about the status update like any other PDB update.
        self.enqueue(pdb.key)
        return None

    def _delete(self, pod: Pod, grace_seconds: int | None) -> None:
        """addConditionAndDeletePod."""
        self.sim.store.set_pod_condition(pod, "DisruptionTarget", TRUE, "EvictionByEvictionAPI", "Eviction API: evicting")
        self.sim.apiserver.delete_pod(pod, grace_seconds)


def can_ignore_pdb(pod: Pod) -> bool:
    return pod.phase in (SUCCEEDED, FAILED, PENDING) or pod.deletion_timestamp is not None


def budget_cause(pdb: PodDisruptionBudget) -> str:
    """The DisruptionBudget cause of a 429 when no disruption is allowed (newest eviction.go)."""
    cond = pdb.conditions.get("DisruptionAllowed")
    failed = cond if cond is not None and cond.status == "False" and cond.message else None
    if failed is not None and failed.reason == "SyncFailed":
        return (f"The disruption budget {pdb.name} does not allow evicting pods currently because it failed sync: "
                f"{failed.message}")
    if pdb.current_healthy <= pdb.desired_healthy:
        return f"The disruption budget {pdb.name} needs {pdb.desired_healthy} healthy pods and has " \
               f"{pdb.current_healthy} currently"
    if failed is not None:
        return f"The disruption budget {pdb.name} does not allow evicting pods currently ({failed.reason}): " \
               f"{failed.message}"
    return f"The disruption budget {pdb.name} does not allow evicting pods currently"


def set_condition(pdb: PodDisruptionBudget, status: str, reason: str, message: str, now: int) -> None:
    """apimeta.SetStatusCondition: the transition time moves only when the status flips."""
    old = pdb.conditions.get("DisruptionAllowed")
    transition = old.last_transition_time if old is not None and old.status == status else now
    pdb.conditions = {**pdb.conditions,
                      "DisruptionAllowed": Condition("DisruptionAllowed", status, reason, message, None, transition)}


def update_disruption_allowed_condition(pdb: PodDisruptionBudget, now: int) -> None:
    """pdbhelper.UpdateDisruptionAllowedCondition."""
    if pdb.disruptions_allowed > 0:
        set_condition(pdb, TRUE, "SufficientPods", "", now)
    else:
        set_condition(pdb, "False", "InsufficientPods", "", now)
