"""The kubelet's graceful node shutdown manager (pkg/kubelet/nodeshutdown).

shutdownGracePeriod / shutdownGracePeriodCriticalPods migrate to two priority groups; a
shutdownGracePeriodByPodPriority list is used as given. On a shutdown the node reports
Ready=False "node is shutting down", new pods are rejected, and the groups are killed in ascending
priority, each pod with min(terminationGracePeriodSeconds, group seconds), each group waiting for its
pods or its seconds. Killed pods end Failed/Terminated with DisruptionTarget TerminationByKubelet and
are not deleted. Then the machine powers off. With no groups the shutdown is immediate.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .clock import PHASE_KUBELET
from .objects import FAILED, SUCCEEDED, TRUE, Pod

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
    index: int = -1
    waiting: set[str] = field(default_factory=set)
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

    def start(self, kubelet: "Kubelet") -> str:
        """The machine was asked to shut down (logind PrepareForShutdown)."""
        if kubelet.power == "off":
            return f"node {kubelet.node_name} is already powered off"
        if kubelet.shutdown is not None:
            return f"node {kubelet.node_name} is already shutting down"
        groups = shutdown_groups(kubelet.config)
        if not groups or not kubelet.running:
            kubelet.power_off()
            return f"node {kubelet.node_name} shut down immediately (graceful node shutdown is not configured)"
        store = self.sim.store
        store.event("Normal", "NodeShutdown", f"Node/{kubelet.node_name}",
                    "Shutdown manager detected shutdown event", SOURCE)
        kubelet.shutdown = ShutdownState(groups)
        store.changes.nodes.add(kubelet.node_name)
        kubelet.sync_status()
        self._next_group(kubelet)
        return f"node {kubelet.node_name} is shutting down gracefully"

    def reject_pod(self, kubelet: "Kubelet", pod: Pod) -> bool:
        if kubelet.shutdown is None:
            return False
        self.sim.store.set_pod_phase(pod, FAILED, "NodeShutdown", REJECT_MESSAGE)
        return True

    def _next_group(self, kubelet: "Kubelet") -> None:
        state = kubelet.shutdown
        store = self.sim.store
        while state is not None:
            state.index += 1
            if state.index >= len(state.groups):
                kubelet.power_off()
                store.changes.nodes.add(kubelet.node_name)
                return
            group = state.groups[state.index]
            pods = [p for p in store.pods_on(kubelet.node_name)
                    if not p.is_terminal() and group_index(state.groups, p.priority) == state.index]
            if not pods:
                continue
            now = self.sim.clock.now
            state.waiting = set()
            for pod in pods:
                self._kill(kubelet, pod, group)
            state.group_ends_at = now + group.seconds * 1000
            state.timer = self.sim.clock.call_at(state.group_ends_at, PHASE_KUBELET,
                                                 "nodeshutdown.group_timeout", kubelet.node_name, state.index)
            if state.waiting:
                return

    def _kill(self, kubelet: "Kubelet", pod: Pod, group: ShutdownGroup) -> None:
        grace = min(pod.termination_grace_period_seconds, group.seconds)
        store = self.sim.store
        if pod.phase != SUCCEEDED:
            store.set_pod_phase(pod, FAILED, "Terminated", SHUTDOWN_MESSAGE)
        store.set_pod_condition(pod, "DisruptionTarget", TRUE, "TerminationByKubelet", SHUTDOWN_MESSAGE)
        store.set_pod_condition(pod, "Ready", "False")
        container = kubelet.containers.get(pod.key)
        if container is None:
            return
        kubelet.shutdown.waiting.add(pod.key)
        kubelet.stop_container(container, grace * 1000, pod)

    def container_stopped(self, kubelet: "Kubelet", pod: Pod) -> None:
        state = kubelet.shutdown
        if state is None or pod.key not in state.waiting:
            return
        state.waiting.discard(pod.key)
        if not state.waiting:
            self.sim.clock.cancel(state.timer)
            self._next_group(kubelet)

    def group_timeout(self, node_name: str, index: int) -> None:
        kubelet = self.sim.kubelets.get(node_name)
        if kubelet is None or kubelet.shutdown is None or kubelet.shutdown.index != index:
            return
        kubelet.shutdown.waiting.clear()
        self._next_group(kubelet)
