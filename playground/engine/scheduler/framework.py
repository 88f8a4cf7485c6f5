"""Scheduling framework types (pkg/scheduler/framework): statuses, NodeInfo, plugin interfaces.

Filters and scores accept either a Node (whose request totals the store keeps) or a NodeInfo: a
node with pods added or removed for one evaluation (nominated pods, preemption dry runs).
"""

from __future__ import annotations

from typing import Protocol

from ..objects import Node, Pod, Taint
from ..store import DEFAULT_MEMORY_REQUEST, DEFAULT_MILLI_CPU_REQUEST

SUCCESS = 0
ERROR = 1
UNSCHEDULABLE = 2
UNSCHEDULABLE_AND_UNRESOLVABLE = 3
MAX_NODE_SCORE = 100

# Cluster events that may make an unschedulable pod schedulable (framework.ClusterEvent).
NODE_ADD = "Node/Add"
NODE_TAINT_UPDATE = "Node/UpdateNodeTaint"  # a taint or spec.unschedulable changed
ASSIGNED_POD_DELETE = "AssignedPod/Delete"  # deleted, or finished (Succeeded/Failed): its room is free
ASSIGNED_POD_ADD = "AssignedPod/Add"  # a pod was bound (PodTopologySpread, InterPodAffinity)


class ClusterEvent:
    """One event for the queueing hints: the node involved and, for an update, what it had before."""

    __slots__ = ("kind", "node", "old_taints", "old_unschedulable", "pod")

    def __init__(self, kind: str, node: str = "", old_taints: tuple[Taint, ...] = (),
                 old_unschedulable: bool = False, pod: Pod | None = None) -> None:
        self.kind = kind
        self.node = node
        self.old_taints = old_taints
        self.old_unschedulable = old_unschedulable
        self.pod = pod  # the assigned pod of a pod event

    def __repr__(self) -> str:
        return f"ClusterEvent({self.kind}, {self.node})"


class Status:
    __slots__ = ("code", "reasons", "plugin")

    def __init__(self, code: int, reasons: tuple[str, ...] = (), plugin: str = "") -> None:
        self.code = code
        self.reasons = reasons
        self.plugin = plugin

    @property
    def ok(self) -> bool:
        return self.code == SUCCESS

    def __repr__(self) -> str:
        names = {SUCCESS: "Success", ERROR: "Error", UNSCHEDULABLE: "Unschedulable",
                 UNSCHEDULABLE_AND_UNRESOLVABLE: "UnschedulableAndUnresolvable"}
        return f"Status({names.get(self.code, self.code)}, {list(self.reasons)}, {self.plugin})"


OK = Status(SUCCESS)


class NodeInfo:
    """A node as one evaluation sees it, with pods added or removed."""

    __slots__ = ("node", "requested_cpu", "requested_memory", "nonzero_cpu", "nonzero_memory", "pod_count",
                 "removed", "added")

    def __init__(self, node: Node) -> None:
        self.node = node
        self.requested_cpu = node.requested_cpu
        self.requested_memory = node.requested_memory
        self.nonzero_cpu = node.nonzero_cpu
        self.nonzero_memory = node.nonzero_memory
        self.pod_count = node.pod_count
        self.removed: set[str] = set()
        self.added: list[Pod] = []

    def copy(self) -> "NodeInfo":
        other = NodeInfo(self.node)
        for name in ("requested_cpu", "requested_memory", "nonzero_cpu", "nonzero_memory", "pod_count"):
            setattr(other, name, getattr(self, name))
        other.removed = set(self.removed)
        other.added = list(self.added)
        return other

    def _apply(self, pod: Pod, sign: int) -> None:
        self.requested_cpu += sign * pod.cpu
        self.requested_memory += sign * pod.memory
        self.nonzero_cpu += sign * (pod.cpu or DEFAULT_MILLI_CPU_REQUEST)
        self.nonzero_memory += sign * (pod.memory or DEFAULT_MEMORY_REQUEST)
        self.pod_count += sign

    def add_pod(self, pod: Pod) -> None:
        self._apply(pod, +1)
        if pod.key in self.removed:
            self.removed.discard(pod.key)
        else:
            self.added.append(pod)

    def remove_pod(self, pod: Pod) -> None:
        self._apply(pod, -1)
        self.removed.add(pod.key)

    # The Node fields filters read.
    @property
    def name(self) -> str:
        return self.node.name

    @property
    def labels(self) -> dict[str, str]:
        return self.node.labels

    @property
    def taints(self) -> list[Taint]:
        return self.node.taints

    @property
    def unschedulable(self) -> bool:
        return self.node.unschedulable

    @property
    def allocatable_cpu(self) -> int:
        return self.node.allocatable_cpu

    @property
    def allocatable_memory(self) -> int:
        return self.node.allocatable_memory

    @property
    def allocatable_pods(self) -> int:
        return self.node.allocatable_pods


class FilterPlugin(Protocol):
    name: str

    def filter(self, pod: Pod, node: Node | NodeInfo) -> Status: ...


class ScorePlugin(Protocol):
    name: str
    weight: int

    def score(self, pod: Pod, node: Node) -> int: ...

    def normalize(self, scores: list[int]) -> list[int]: ...


def default_normalize(scores: list[int], reverse: bool) -> list[int]:
    """helper.DefaultNormalizeScore."""
    highest = max(scores, default=0)
    if highest == 0:
        return [MAX_NODE_SCORE] * len(scores) if reverse else scores
    out = []
    for score in scores:
        score = MAX_NODE_SCORE * score // highest
        out.append(MAX_NODE_SCORE - score if reverse else score)
    return out
