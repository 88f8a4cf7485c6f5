"""The kubelet's graceful node shutdown manager (pkg/kubelet/nodeshutdown).

shutdownGracePeriod / shutdownGracePeriodCriticalPods migrate to two priority groups
(migrateConfig: [{0, total - critical}, {2000000000, critical}]; nothing when total is 0 or critical
exceeds total); a shutdownGracePeriodByPodPriority list is used as given, sorted by priority.

On a shutdown (logind PrepareForShutdown) the kubelet records NodeShutdown "Shutdown manager detected
shutdown event", posts Ready=False KubeletNotReady "node is shutting down" and rejects new pods
(Failed, reason NodeShutdown, and kubelet.rejectPod's "Pod was rejected: " before the handler's
message). The active pods are assigned to groups once (groupByPriority: the
group with the largest priority <= the pod's, the lowest group for pods below it); the groups run in
ascending priority, skipping empty ones: every pod of a group is killed at once with
min(terminationGracePeriodSeconds, group seconds), and the next group starts when they have all
stopped or the group's seconds have passed. A pod's status reaches the API server only when its
containers have stopped (the status manager holds back a terminal phase while containers may run):
phase Failed (unless Succeeded), reason Terminated, message "Pod was terminated in response to
imminent node shutdown.", DisruptionTarget=True TerminationByKubelet, Ready=False. Pods are not
deleted. After the last group the inhibitor lock is released and the machine powers off: the lease
stops and the node lifecycle controller turns Ready Unknown. With no groups the power-off is
immediate. A kubelet that cannot reach the API server (partitioned) still stops its pods but can
post none of this.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .clock import PHASE_KUBELET
from .objects import FAILED, FALSE, SUCCEEDED, TRUE, Pod

if TYPE_CHECKING:
    from .kubelet import Kubelet, KubeletConfig
    from .simulation import Simulation

SYSTEM_CRITICAL_PRIORITY = 2_000_000_000
SHUTDOWN_MESSAGE = "Pod was terminated in response to imminent node shutdown."
REJECT_MESSAGE = "Pod was rejected as the node is shutting down."
SOURCE = "kubelet"


@dataclass(slots=True, frozen=True)
class ShutdownGroup:
    priority: int
    seconds: int


@dataclass(slots=True)
class ShutdownState:
    groups: list[ShutdownGroup]
    members: list[list[str]] = field(default_factory=list)  # pod keys per group, fixed at the start
    index: int = -1
    waiting: set[str] = field(default_factory=set)  # pods of the current group still stopping
    killed: set[str] = field(default_factory=set)  # pods killed by the shutdown, status not yet posted
    started_at: int = 0
    group_started_at: int | None = None
    group_ends_at: int | None = None
    timer: int | None = None


def migrate_config(total_ms: int, critical_ms: int) -> list[ShutdownGroup]:
    """migrateConfig: [] when disabled (total 0) or misconfigured (critical > total)."""
    if total_ms == 0:
        return []
    default = total_ms - critical_ms
    if default < 0:
        return []
    return [ShutdownGroup(0, default // 1000), ShutdownGroup(SYSTEM_CRITICAL_PRIORITY, critical_ms // 1000)]


def shutdown_groups(config: "KubeletConfig") -> list[ShutdownGroup]:
    if config.shutdown_grace_period_by_pod_priority:
        groups = [ShutdownGroup(p, s) for p, s in config.shutdown_grace_period_by_pod_priority]
    else:
        groups = migrate_config(config.shutdown_grace_period, config.shutdown_grace_period_critical_pods)
    return sorted(groups, key=lambda g: g.priority)


def group_index(groups: list[ShutdownGroup], priority: int) -> int:
    """groupByPriority: the group with the largest priority <= the pod's, else the lowest group."""
    index = next((i for i, g in enumerate(groups) if g.priority >= priority), len(groups))
    if index == len(groups):
        return len(groups) - 1
    if index > 0 and groups[index].priority > priority:
        return index - 1
    return index


class NodeShutdownManager:
    def __init__(self, sim: "Simulation") -> None:
        self.sim = sim
        # The nodes whose kubelet has a shutdown under way, and perhaps some whose kubelet has none
        # (a node removed during its shutdown): what the scheduler checks before binding a run.
        self.shutting_down: set[str] = set()

    def start(self, kubelet: "Kubelet") -> str:
        """The machine was asked to shut down (logind PrepareForShutdown)."""
        if kubelet.power == "off":
            return f"node {kubelet.node_name} is already powered off"
        if kubelet.shutdown is not None:
            return f"node {kubelet.node_name} is already shutting down"
        groups = shutdown_groups(kubelet.config)
        if not groups or not kubelet.running:
            kubelet.power_off()
            why = "graceful node shutdown is not configured" if not groups else "the kubelet is not running"
            return f"node {kubelet.node_name} shut down immediately ({why})"
        store = self.sim.store
        if kubelet.signalling:
            kubelet.event("Normal", "NodeShutdown", f"Node/{kubelet.node_name}",
                          "Shutdown manager detected shutdown event")
        state = ShutdownState(groups, started_at=self.sim.clock.now)
        state.members = [[] for _ in groups]
        for pod in sorted(store.pods_on(kubelet.node_name), key=lambda p: p.key):
            if not pod.is_terminal():
                state.members[group_index(groups, pod.priority)].append(pod.key)
        kubelet.shutdown = state
        self.shutting_down.add(kubelet.node_name)
        store.changes.nodes.add(kubelet.node_name)
        kubelet.sync_status()
        self._next_group(kubelet)
        return f"node {kubelet.node_name} is shutting down gracefully"

    def reject_pod(self, kubelet: "Kubelet", pod: Pod) -> bool:
        """The shutdown manager's admit handler."""
        if kubelet.shutdown is None:
            return False
        kubelet.reject_pod(pod, "NodeShutdown", REJECT_MESSAGE)
        return True

    def _next_group(self, kubelet: "Kubelet") -> None:
        state = kubelet.shutdown
        store = self.sim.store
        while state is not None:
            self.sim.clock.cancel(state.timer)
            state.timer = None
            state.index += 1
            if state.index >= len(state.groups):
                # The inhibitor lock is released and the OS powers the machine off.
                kubelet.power_off()
                store.changes.nodes.add(kubelet.node_name)
                return
            group = state.groups[state.index]
            pods = [p for key in state.members[state.index]
                    if (p := store.pods.get(key)) is not None and not p.is_terminal()]
            if not pods:
                continue  # empty groups are skipped without waiting
            now = self.sim.clock.now
            state.waiting = set()
            state.group_started_at = now
            state.group_ends_at = now + group.seconds * 1000
            for pod in pods:
                self._kill(kubelet, pod, group)
            if not state.waiting:
                continue
            state.timer = self.sim.clock.call_at(state.group_ends_at, PHASE_KUBELET,
                                                 "nodeshutdown.group_timeout", kubelet.node_name, state.index)
            return

    def _kill(self, kubelet: "Kubelet", pod: Pod, group: ShutdownGroup) -> None:
        """killPodFunc with gracePeriodOverride = min(terminationGracePeriodSeconds, group seconds)."""
        grace = min(pod.termination_grace_period_seconds, group.seconds)
        state = kubelet.shutdown
        container = kubelet.containers.get(pod.key)
        state.killed.add(pod.key)
        if container is None or container.uid != pod.uid:
            self._post_status(kubelet, pod)
            return
        state.waiting.add(pod.key)
        kubelet.stop_container(container, grace * 1000, pod)

    def _post_status(self, kubelet: "Kubelet", pod: Pod) -> None:
        """The status function of the kill, sent once the containers are gone."""
        state = kubelet.shutdown
        if state is not None:
            state.killed.discard(pod.key)
        if not kubelet.signalling:
            return
        store = self.sim.store
        phase = pod.phase if pod.phase == SUCCEEDED else FAILED
        store.set_pod_phase(pod, phase, "Terminated", SHUTDOWN_MESSAGE)
        store.set_pod_condition(pod, "DisruptionTarget", TRUE, "TerminationByKubelet", SHUTDOWN_MESSAGE)
        reason = "PodCompleted" if phase == SUCCEEDED else "PodFailed"
        store.set_pod_condition(pod, "ContainersReady", FALSE, reason)
        store.set_pod_condition(pod, "Ready", FALSE, reason)

    def container_stopped(self, kubelet: "Kubelet", pod: Pod) -> None:
        state = kubelet.shutdown
        if state is None or pod.key not in state.killed:
            return
        self._post_status(kubelet, pod)
        if pod.key in state.waiting:
            state.waiting.discard(pod.key)
            if not state.waiting:
                self._next_group(kubelet)

    def group_timeout(self, node_name: str, index: int) -> None:
        """"Shutdown manager pod killing time out": go on to the next group."""
        kubelet = self.sim.kubelets.get(node_name)
        if kubelet is None or kubelet.shutdown is None or kubelet.shutdown.index != index:
            return
        kubelet.shutdown.timer = None
        kubelet.shutdown.waiting.clear()
        self._next_group(kubelet)
