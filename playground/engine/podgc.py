"""The pod garbage collector (pkg/controller/podgc/gc_controller.go).

Every gcCheckPeriod (20 s, from controller start) one pass runs, in the source's order:

1. gcTerminated: when more than --terminated-pod-gc-threshold pods are terminated (phase neither
   Pending, Running nor Unknown), the excess is force-deleted, kubelet-evicted first, then oldest.
2. gcTerminating: pods with a deletionTimestamp on a node that is not Ready and carries the
   node.kubernetes.io/out-of-service taint (any value or effect) are marked Failed and force-deleted
   (grace 0), evicted first, then oldest (the non-graceful node shutdown of KEP-2268).
3. gcOrphaned: a node name that pods are bound to but that has no Node object is quarantined for
   40 s; if it is still missing at a pass after that, its pods get DisruptionTarget=True
   DeletionByPodGC "PodGC: node no longer exists", phase Failed and are force-deleted.
4. gcUnscheduledTerminating: unbound pods with a deletionTimestamp are force-deleted (the simulated
   API server deletes unbound pods at once, so this never finds any).

PodGC writes no Kubernetes events; its log line "PodGC is force deleting Pod" is recorded as an event
with reason PodGC so the log shows who removed the pod.

Cost follows work: the pass reads indexes kept from the store's watchers (terminating pods by node,
terminated pods, node names without a Node object, nodes with the out-of-service taint), never the
list of all pods, nor every node that has terminating pods.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .clock import PHASE_PODGC
from .objects import FAILED, OUT_OF_SERVICE_TAINT, SUCCEEDED, TRUE, Node, Pod
from .store import watches

if TYPE_CHECKING:
    from .simulation import Simulation

GC_CHECK_PERIOD_MS = 20_000
QUARANTINE_MS = 40_000
SOURCE = "pod-garbage-collector"


def gc_order(pod: Pod) -> tuple:
    """byEvictionAndCreationTimestamp: kubelet-evicted pods first, then oldest, then by name."""
    evicted = pod.phase == FAILED and pod.reason == "Evicted"
    return (not evicted, pod.creation_time, pod.name)


class PodGC:
    def __init__(self, sim: "Simulation", terminated_pod_threshold: int = 12500) -> None:
        self.sim = sim
        self.terminated_pod_threshold = terminated_pod_threshold
        self.terminating_by_node: dict[str, dict[str, Pod]] = {}
        self.terminated: dict[str, Pod] = {}
        self.missing_nodes: set[str] = set()  # node names of deleted Node objects pods may still be bound to
        self.quarantine: dict[str, int] = {}  # node name -> when it is ready to be checked (delaying queue)
        # Nodes carrying the out-of-service taint: the only ones gcTerminating can act on, so a pass
        # looks at them, not at every node with terminating pods (a dead zone has 1,000 of those).
        self.out_of_service: set[str] = set()
        sim.store.pod_watchers.append(self._on_pod_event)
        sim.store.together_watchers[self._on_pod_event] = self._on_pods_event
        sim.store.node_watchers.append(self._on_node_event)

    def start(self) -> None:
        """wait.UntilWithContext(gc, 20s): a pass at start and every 20 s."""
        self.sim.clock.call_at(0, PHASE_PODGC, "podgc.gc")

    # ---------------------------------------------------------------- informers

    @watches("added", "bound", "phase", "deleting", "removed")
    def _on_pod_event(self, what: str, pod: Pod) -> None:
        key = pod.key
        if what == "removed":
            self.terminated.pop(key, None)
            if pod.node_name:
                self.terminating_by_node.get(pod.node_name, {}).pop(key, None)
            return
        if pod.deletion_timestamp is not None and pod.node_name:
            terminating = self.terminating_by_node.get(pod.node_name)
            if terminating is None:
                terminating = self.terminating_by_node[pod.node_name] = {}
            terminating[key] = pod
        if pod.phase in (SUCCEEDED, FAILED):
            self.terminated[key] = pod

    def _on_pods_event(self, what: str, pods: list[Pod]) -> None:
        """_on_pod_event for each of `pods` in turn (Store._pods_changed): outside a removal, only a
        pod being deleted or finished is indexed, and a batch of creates, binds or Running reports
        has none."""
        on_pod = self._on_pod_event
        if what == "removed":
            for pod in pods:
                on_pod(what, pod)
            return
        for pod in pods:
            if pod.deletion_timestamp is not None or pod.phase == SUCCEEDED or pod.phase == FAILED:
                on_pod(what, pod)

    def _on_node_event(self, what: str, node: Node) -> None:
        if what == "removed":
            self.missing_nodes.add(node.name)
            self.out_of_service.discard(node.name)
            return
        if what == "added":
            self.missing_nodes.discard(node.name)
            self.quarantine.pop(node.name, None)
        if any(t.key == OUT_OF_SERVICE_TAINT for t in node.taints):
            self.out_of_service.add(node.name)
        else:
            self.out_of_service.discard(node.name)

    # ---------------------------------------------------------------- the pass

    def gc(self) -> None:
        now = self.sim.clock.now
        self.sim.clock.call_at(now + GC_CHECK_PERIOD_MS, PHASE_PODGC, "podgc.gc")
        if self.terminated_pod_threshold > 0:
            self._gc_terminated()
        self._gc_terminating()
        self._gc_orphaned(now)

    def _gc_terminated(self) -> None:
        excess = len(self.terminated) - self.terminated_pod_threshold
        if excess <= 0:
            return
        for pod in sorted(self.terminated.values(), key=gc_order)[:excess]:
            self._mark_failed_and_delete(pod)

    def _gc_terminating(self) -> None:
        store = self.sim.store
        doomed: list[Pod] = []
        for node_name in sorted(self.out_of_service.intersection(self.terminating_by_node)):
            pods = self.terminating_by_node[node_name]
            if not pods:
                del self.terminating_by_node[node_name]
                continue
            node = store.nodes.get(node_name)
            if node is None:
                continue
            if node.ready_status() != TRUE and any(t.key == OUT_OF_SERVICE_TAINT for t in node.taints):
                doomed.extend(pods.values())
        for pod in sorted(doomed, key=gc_order):
            self._mark_failed_and_delete(pod)

    def _gc_orphaned(self, now: int) -> None:
        store = self.sim.store
        for name in sorted(self.missing_nodes):
            if name in store.nodes:
                self.missing_nodes.discard(name)
                continue
            if not store.pods_by_node.get(name):
                self.missing_nodes.discard(name)
                self.quarantine.pop(name, None)
                continue
            # AddAfter keeps the earliest ready time of a key already waiting.
            self.quarantine.setdefault(name, now + QUARANTINE_MS)
        deleted = [name for name, ready in sorted(self.quarantine.items()) if ready <= now]
        for name in deleted:
            del self.quarantine[name]
            if name in store.nodes:
                continue
            for pod in sorted(store.pods_on(name), key=lambda p: p.key):
                self._mark_failed_and_delete(pod, condition=("DeletionByPodGC", "PodGC: node no longer exists"))

    def _mark_failed_and_delete(self, pod: Pod, condition: tuple[str, str] | None = None) -> None:
        """markFailedAndDeletePodWithCondition: phase Failed (and the condition) unless already
        terminal, then DELETE with grace 0."""
        store = self.sim.store
        if store.pods.get(pod.key) is not pod:
            return
        store.event("Normal", "PodGC", pod.ref, f"PodGC is force deleting Pod {pod.key}", SOURCE)
        if pod.phase not in (SUCCEEDED, FAILED):
            if condition is not None:
                store.set_pod_condition(pod, "DisruptionTarget", TRUE, condition[0], condition[1])
            store.set_pod_phase(pod, FAILED)
        self.sim.apiserver.delete_pod(pod, 0)

    # ---------------------------------------------------------------- explanations

    def next_pass(self) -> int:
        now = self.sim.clock.now
        return -(-now // GC_CHECK_PERIOD_MS) * GC_CHECK_PERIOD_MS

    def orphan_deadline(self, node_name: str) -> int | None:
        """When the pods of a deleted node will be removed, once PodGC has quarantined the name."""
        ready = self.quarantine.get(node_name)
        if ready is None:
            return None
        return -(-ready // GC_CHECK_PERIOD_MS) * GC_CHECK_PERIOD_MS
