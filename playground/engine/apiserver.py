"""What the kube-apiserver does on the way in and out: admission and graceful deletion.

- Priority admission: the pod's priority and preemptionPolicy come from its PriorityClass (or the
  globalDefault class, or 0).
- DefaultTolerationSeconds admission (plugin/pkg/admission/defaulttolerationseconds): pods without a
  matching toleration get not-ready and unreachable NoExecute tolerations for 300 s.
- Graceful delete (pkg/registry/core/pod/strategy.go CheckGracefulDelete): unbound or terminated pods
  go at once; others get deletionTimestamp = now + grace and wait for their kubelet. A second delete
  with a shorter gracePeriodSeconds moves deletionTimestamp to the first delete's time plus the new
  period (pkg/registry/rest/delete.go BeforeDelete); one without an override changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from .objects import (
    NO_EXECUTE,
    NOT_READY_TAINT,
    UNREACHABLE_TAINT,
    Pod,
    PriorityClass,
    Toleration,
)
from .store import Store

SYSTEM_CLUSTER_CRITICAL = PriorityClass(
    "system-cluster-critical",
    2_000_000_000,
    description="Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.",
)
SYSTEM_NODE_CRITICAL = PriorityClass(
    "system-node-critical",
    2_000_001_000,
    description="Used for system critical pods that must not be moved from their current node.",
)
HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000


@dataclass(slots=True)
class APIServerConfig:
    default_not_ready_toleration_seconds: int = 300
    default_unreachable_toleration_seconds: int = 300


class AdmissionError(Exception):
    """A create the API server refuses; the message is what kubectl would print."""


class APIServer:
    def __init__(self, store: Store, config: APIServerConfig) -> None:
        self.store = store
        self.config = config
        # Shared by every admitted pod: tolerations are immutable.
        self._not_ready = Toleration(NOT_READY_TAINT, "Exists", "", NO_EXECUTE, config.default_not_ready_toleration_seconds)
        self._unreachable = Toleration(UNREACHABLE_TAINT, "Exists", "", NO_EXECUTE,
                                       config.default_unreachable_toleration_seconds)
        self._admitted: dict[tuple[Toleration, ...], tuple[Toleration, ...]] = {}

    # ---------------------------------------------------------------- admission

    def admit_pod(self, pod: Pod) -> None:
        self._admit_priority(pod)
        pod.tolerations = self._default_tolerations(pod.tolerations)

    def admit_pods(self, pods: list[Pod]) -> None:
        """admit_pod for pods of one template: admission reads nothing of a pod but the template's
        priority, class and tolerations, so it runs for the first and the others take its results
        (the same shared tolerations tuple)."""
        first = pods[0]
        self.admit_pod(first)
        admitted = (first.priority, first.priority_class_name, first.preemption_policy, first.tolerations)
        for pod in pods:
            pod.priority, pod.priority_class_name, pod.preemption_policy, pod.tolerations = admitted

    def _admit_priority(self, pod: Pod) -> None:
        classes = self.store.priority_classes
        if pod.priority_class_name:
            pc = classes.get(pod.priority_class_name)
            if pc is None:
                raise AdmissionError(
                    f'pods "{pod.name}" is forbidden: no PriorityClass with name {pod.priority_class_name} was found'
                )
        else:
            pc = None
            for candidate in classes.values():
                if candidate.global_default:
                    pc = candidate
                    break
            if pc is None or pod.priority != 0:
                # The `priority` shortcut of a scenario pod (simulation only: it stands for a class of
                # that value, so it wins over the globalDefault): kept as given, policy stays default.
                # A shortcut of 0 cannot be told from no priority at all and gets the default class.
                return
            pod.priority_class_name = pc.name
        pod.priority = pc.value
        pod.preemption_policy = pc.preemption_policy

    def _default_tolerations(self, tolerations: tuple[Toleration, ...]) -> tuple[Toleration, ...]:
        # Pods of one template come with the template's tuple: they share the admitted one too.
        admitted = self._admitted.get(tolerations)
        if admitted is None:
            admitted = self._admitted[tolerations] = self._add_default_tolerations(tolerations)
        return admitted

    def _add_default_tolerations(self, tolerations: tuple[Toleration, ...]) -> tuple[Toleration, ...]:
        def has(key: str) -> bool:
            return any(t.key in (key, "") and t.effect in (NO_EXECUTE, "") for t in tolerations)

        extra = []
        if not has(NOT_READY_TAINT):
            extra.append(self._not_ready)
        if not has(UNREACHABLE_TAINT):
            extra.append(self._unreachable)
        return tolerations + tuple(extra)

    def create_pod(self, pod: Pod) -> Pod:
        if pod.key in self.store.pods:
            raise AdmissionError(f'pods "{pod.name}" already exists')
        self.admit_pod(pod)
        self.store.add_pod(pod)
        return pod

    # ---------------------------------------------------------------- deletion

    def delete_pod(self, pod: Pod, grace_seconds: int | None = None) -> None:
        """DELETE pods/name with optional DeleteOptions.gracePeriodSeconds."""
        if self.store.pods.get(pod.key) is not pod:
            return
        grace = pod.termination_grace_period_seconds if grace_seconds is None else grace_seconds
        if not pod.node_name or pod.is_terminal() or grace <= 0:
            self.store.remove_pod(pod)
            return
        self.store.mark_pod_deleting(pod, grace, override=grace_seconds is not None)
