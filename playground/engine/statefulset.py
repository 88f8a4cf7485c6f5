"""The StatefulSet controller (pkg/controller/statefulset), enough to show stable identity and storage.

Pods are named <set>-0 .. <set>-(replicas-1) and carry the label statefulset.kubernetes.io/pod-name;
each mounts its own claim <volumeClaimTemplate>-<pod> (created once, before the pod, and never
deleted). A replica is re-created under the same name only once the old pod object is gone: a pod
stuck Terminating on a dead node blocks its replacement until it is force-deleted (by PodGC after
the out-of-service taint or after the Node is deleted, or by hand).

processReplica, per ordinal in order: a Failed or Succeeded pod is deleted and re-created on a
later sync; a missing pod is created; with OrderedReady (the default) the controller stops at the
first pod it created, at a terminating pod and at a pod that is not Running and Ready; Parallel goes
on through all ordinals. Scale-down is not modelled (replicas are fixed by the scenario).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .apiserver import AdmissionError
from .clock import PHASE_WORKLOADS, Wakeup
from .objects import RUNNING, OwnerRef, Pod, StatefulSet
from .store import watches
from .workloads import pod_from_template

if TYPE_CHECKING:
    from .simulation import Simulation

SOURCE = "statefulset-controller"
POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name"


def claim_name(statefulset: StatefulSet, pod_name: str) -> str | None:
    if not statefulset.volume_claim_template:
        return None
    return f"{statefulset.volume_claim_template}-{pod_name}"


class StatefulSetController:
    def __init__(self, sim: "Simulation") -> None:
        self.sim = sim
        self.dirty: set[str] = set()
        self._wakeup = Wakeup(sim.clock, PHASE_WORKLOADS, "statefulset.sync")
        self._added = False  # a StatefulSet was added (see pod_watch_idle)
        sim.store.pod_watchers.append(self._on_pod_event)

    def add(self, statefulset: StatefulSet) -> None:
        key = f"{statefulset.namespace}/{statefulset.name}"
        if not self._added:
            self._added = True
            self.sim.store.pod_watcher_woke()
        self.sim.store.statefulsets[key] = statefulset
        self.enqueue(key)

    def pod_watch_idle(self) -> bool:
        """No StatefulSet was ever added, so no pod is owned by one (an imported cluster's pods are
        created after their workloads): the store does not call this controller (store._idle)."""
        return not self._added

    @watches("added", "phase", "condition", "deleting", "removed")
    def _on_pod_event(self, what: str, pod: Pod) -> None:
        if pod.owner is None or pod.owner.kind != "StatefulSet" or what in ("nominated", "bound"):
            return
        self.enqueue(f"{pod.namespace}/{pod.owner.name}")

    def enqueue(self, key: str) -> None:
        self.dirty.add(key)
        self._wakeup.arm(self.sim.clock.now)

    def sync(self) -> None:
        self._wakeup.fired()
        keys, self.dirty = sorted(self.dirty), set()
        for key in keys:
            statefulset = self.sim.store.statefulsets.get(key)
            if statefulset is not None:
                self._sync(statefulset)

    def _sync(self, statefulset: StatefulSet) -> None:
        store = self.sim.store
        pods = {p.name: p for p in store.owned_pods("StatefulSet", statefulset.name)
                if p.namespace == statefulset.namespace}
        monotonic = statefulset.pod_management_policy != "Parallel"
        for ordinal in range(statefulset.replicas):
            name = f"{statefulset.name}-{ordinal}"
            pod = pods.get(name)
            if pod is not None and pod.is_terminal():
                if pod.deletion_timestamp is None:
                    self._event(statefulset, "Normal", "SuccessfulDelete",
                                f"delete Pod {name} in StatefulSet {statefulset.name} successful")
                    self.sim.apiserver.delete_pod(pod)
                # The new pod is created on a later sync, once the old one is gone.
                if monotonic:
                    return
                continue
            if pod is None:
                if not self._create(statefulset, name, ordinal) or monotonic:
                    return
                continue
            if pod.deletion_timestamp is not None and monotonic:
                return  # "StatefulSet is waiting for Pod to Terminate"
            if not (pod.phase == RUNNING and pod.is_ready()) and monotonic:
                return  # "StatefulSet is waiting for Pod to be Running and Ready"

    def _create(self, statefulset: StatefulSet, name: str, ordinal: int) -> bool:
        claim = claim_name(statefulset, name)
        volumes = self.sim.attachdetach
        if claim is not None and not volumes.has_claim(statefulset.namespace, claim):
            volumes.create_claim(statefulset.namespace, claim)
            self._event(statefulset, "Normal", "SuccessfulCreate",
                        f"create Claim {claim} Pod {name} in StatefulSet {statefulset.name} success")
        template = statefulset.template
        pod = pod_from_template(self.sim, name, statefulset.namespace, template,
                                OwnerRef("StatefulSet", statefulset.name))
        pod.labels = {**pod.labels, POD_NAME_LABEL: name}  # the template's labels are shared: a new dict
        if claim is not None:
            pod.volume_claims = (claim,)
        try:
            self.sim.apiserver.create_pod(pod)
        except AdmissionError as exc:
            self._event(statefulset, "Warning", "FailedCreate",
                        f"create Pod {name} in StatefulSet {statefulset.name} failed error: {exc}")
            return False
        self._event(statefulset, "Normal", "SuccessfulCreate",
                    f"create Pod {name} in StatefulSet {statefulset.name} successful")
        return True

    def _event(self, statefulset: StatefulSet, type_: str, reason: str, message: str) -> None:
        self.sim.store.event(type_, reason, f"StatefulSet/{statefulset.namespace}/{statefulset.name}", message, SOURCE)
