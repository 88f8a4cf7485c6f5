"""The taint-eviction controller (pkg/controller/tainteviction/taint_eviction.go).

Pods on a node with NoExecute taints are deleted at once if some taint is not tolerated, after the
smallest tolerationSeconds of the tolerations used otherwise, or never if every used toleration is
infinite. The clock starts when the controller first sees the taint and a re-evaluation never pushes
an existing deadline later. Removing the taints cancels pending deletions. A deletion sets
DisruptionTarget (DeletionByTaintManager) and deletes with the pod's own grace period.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .clock import PHASE_TAINT_EVICTION
from .objects import NO_EXECUTE, TRUE, Node, Pod, Taint, Toleration
from .store import watches

if TYPE_CHECKING:
    from .simulation import Simulation

SOURCE = "taint-eviction-controller"


@dataclass(slots=True)
class ScheduledDeletion:
    created_at: int
    fire_at: int
    timer: int
    uid: int


def matching_tolerations(taints: list[Taint], tolerations: tuple[Toleration, ...]) -> tuple[bool, list[Toleration]]:
    """GetMatchingTolerations: every taint needs a toleration; the first match of each is used."""
    used = []
    for taint in taints:
        match = next((t for t in tolerations if t.tolerates(taint)), None)
        if match is None:
            return False, []
        used.append(match)
    return True, used


def min_toleration_seconds(used: list[Toleration]) -> int:
    """getMinTolerationTime in ms: 0 when none or any <= 0, -1 when all are infinite."""
    if not used:
        return 0
    seconds = [t.toleration_seconds for t in used if t.toleration_seconds is not None]
    if not seconds:
        return -1
    if any(s <= 0 for s in seconds):
        return 0
    return min(seconds) * 1000


class TaintEvictionController:
    def __init__(self, sim: "Simulation") -> None:
        self.sim = sim
        self.scheduled: dict[str, ScheduledDeletion] = {}
        # node name -> its NoExecute taints as last seen, for the nodes that have any
        self._node_taints: dict[str, tuple[str, ...]] = {}
        sim.store.node_watchers.append(self._on_node_event)
        sim.store.pod_watchers.append(self._on_pod_event)
        sim.store.together_watchers[self._on_pod_event] = self._on_pods_event

    @staticmethod
    def no_execute_taints(node: Node) -> list[Taint]:
        return [t for t in node.taints if t.effect == NO_EXECUTE]

    def _on_node_event(self, what: str, node: Node) -> None:
        if what == "removed":
            self._node_taints.pop(node.name, None)
            return
        taints = self.no_execute_taints(node)
        signature = tuple(sorted(str(t) for t in taints)) if taints else ()
        if self._node_taints.get(node.name, ()) == signature:
            return
        if signature:
            self._node_taints[node.name] = signature
        else:
            self._node_taints.pop(node.name, None)
        # getPodsAssignedToNode: the spec.nodeName index leaves terminal pods out, so a deletion
        # scheduled for a pod that has finished since is neither re-evaluated nor cancelled here.
        if not taints:
            for pod in self.sim.store.pods_on(node.name):
                if not pod.is_terminal():
                    self._cancel(pod, emit=True)
            return
        # Pods of one template share their tolerations tuple: match it against the taints once.
        matches: dict[int, tuple] = {}
        for pod in self.sim.store.pods_on(node.name):
            self._process_pod(pod, taints, matches)

    @watches("added", "bound", "removed")
    def _on_pod_event(self, what: str, pod: Pod) -> None:
        if what == "removed":
            # handlePodUpdate on a pod that is gone: cancelWorkWithEvent
            self._cancel(pod, emit=True)
        elif what in ("bound", "added") and pod.node_name:
            node = self.sim.store.nodes.get(pod.node_name)
            if node is not None:
                if not node.taints and pod.key not in self.scheduled:
                    return  # nothing to schedule, nothing to cancel (most bindings)
                self._process_pod(pod, self.no_execute_taints(node))

    def _on_pods_event(self, what: str, pods: list[Pod]) -> None:
        """_on_pod_event for each of `pods` in turn (Store._pods_changed): a batch of binds to
        untainted nodes, the open's, concerns no pod here. A pod concerns _process_pod only on a node
        with a NoExecute taint or with a deletion scheduled (otherwise it has nothing to cancel): with
        neither anywhere, no pod of the batch does."""
        if what != "bound" and what != "added":
            for pod in pods:
                self._on_pod_event(what, pod)
            return
        if not self.scheduled and not self._node_taints:
            return
        nodes, scheduled = self.sim.store.nodes, self.scheduled
        for pod in pods:
            node_name = pod.node_name
            if node_name:
                node = nodes.get(node_name)
                if node is not None and (node.taints or pod.key in scheduled):
                    self._process_pod(pod, self.no_execute_taints(node))

    def _process_pod(self, pod: Pod, taints: list[Taint], matches: dict[int, tuple] | None = None) -> None:
        """`matches`: id of a tolerations tuple -> (the tuple, tolerated, minimum), for these taints."""
        if pod.deletion_timestamp is not None or pod.is_terminal():
            return
        if not taints:
            self._cancel(pod, emit=True)
            return
        now = self.sim.clock.now
        match = matches.get(id(pod.tolerations)) if matches is not None else None
        if match is None or match[0] is not pod.tolerations:
            tolerated, used = matching_tolerations(taints, pod.tolerations)
            match = (pod.tolerations, tolerated, min_toleration_seconds(used) if tolerated else 0)
            if matches is not None:
                matches[id(pod.tolerations)] = match
        _, tolerated, minimum = match
        if not tolerated:
            # cancelWorkWithEvent: a deletion waiting on tolerationSeconds is cancelled (with its
            # event) before the immediate one is queued
            self._cancel(pod, emit=True)
            self._schedule(pod, now, now)
            return
        if minimum < 0:
            self._cancel(pod, emit=True)
            return
        existing = self.scheduled.get(pod.key)
        trigger = now + minimum
        if existing is not None:
            if existing.created_at + minimum < trigger:
                return
            self._cancel(pod, emit=True)
            self._schedule(pod, existing.created_at, trigger)
            return
        self._schedule(pod, now, trigger)

    def _schedule(self, pod: Pod, created_at: int, fire_at: int) -> None:
        timer = self.sim.clock.call_at(fire_at, PHASE_TAINT_EVICTION, "tainteviction.fire", pod.key, pod.uid)
        self.scheduled[pod.key] = ScheduledDeletion(created_at, fire_at, timer, pod.uid)

    def _cancel(self, pod: Pod, emit: bool) -> None:
        work = self.scheduled.pop(pod.key, None)
        if work is None:
            return
        self.sim.clock.cancel(work.timer)
        if emit:
            self.sim.store.event("Normal", "TaintManagerEviction", pod.ref,
                                 f"Cancelling deletion of Pod {pod.key}", SOURCE)

    def fire(self, pod_key: str, uid: int) -> None:
        work = self.scheduled.get(pod_key)
        if work is None or work.uid != uid:
            return
        del self.scheduled[pod_key]
        pod = self.sim.store.pods.get(pod_key)
        if pod is None or pod.uid != uid or pod.deletion_timestamp is not None:
            return
        store = self.sim.store
        store.event("Normal", "TaintManagerEviction", pod.ref, f"Marking for deletion Pod {pod.key}", SOURCE)
        store.set_pod_condition(pod, "DisruptionTarget", TRUE, "DeletionByTaintManager",
                                "Taint manager: deleting due to NoExecute taint")
        self.sim.apiserver.delete_pod(pod)

    def deletion_at(self, pod: Pod) -> int | None:
        work = self.scheduled.get(pod.key)
        return work.fire_at if work is not None and work.uid == pod.uid else None
