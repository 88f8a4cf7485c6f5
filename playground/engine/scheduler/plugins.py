"""The default kube-scheduler plugins the simulation models (pkg/scheduler/framework/plugins).

Filters, in the default profile's order: NodeUnschedulable, NodeName, TaintToleration, NodeAffinity,
NodeResourcesFit. Scores with their default weights: TaintToleration 3, NodeAffinity 2,
NodeResourcesFit (LeastAllocated) 1, NodeResourcesBalancedAllocation 1.
"""

from __future__ import annotations

from ..objects import NO_SCHEDULE, PREFER_NO_SCHEDULE, UNSCHEDULABLE_TAINT, Node, Pod, Taint
from ..store import DEFAULT_MEMORY_REQUEST, DEFAULT_MILLI_CPU_REQUEST
from .framework import (
    MAX_NODE_SCORE,
    OK,
    UNSCHEDULABLE,
    UNSCHEDULABLE_AND_UNRESOLVABLE,
    NodeInfo,
    Status,
    default_normalize,
)

UNSCHEDULABLE_NOSCHEDULE = Taint(UNSCHEDULABLE_TAINT, NO_SCHEDULE)


class NodeUnschedulable:
    name = "NodeUnschedulable"

    def filter(self, pod: Pod, node: Node | NodeInfo) -> Status:
        if node.unschedulable and not any(t.tolerates(UNSCHEDULABLE_NOSCHEDULE) for t in pod.tolerations):
            return Status(UNSCHEDULABLE_AND_UNRESOLVABLE, ("node(s) were unschedulable",), self.name)
        return OK


class NodeName:
    name = "NodeName"

    def filter(self, pod: Pod, node: Node | NodeInfo) -> Status:
        if pod.node_name and pod.node_name != node.name:
            return Status(UNSCHEDULABLE_AND_UNRESOLVABLE, ("node(s) didn't match the requested node name",), self.name)
        return OK


class TaintToleration:
    name = "TaintToleration"
    weight = 3

    def filter(self, pod: Pod, node: Node | NodeInfo) -> Status:
        for taint in node.taints:
            if taint.effect == PREFER_NO_SCHEDULE:
                continue
            if not any(t.tolerates(taint) for t in pod.tolerations):
                reason = f"node(s) had untolerated taint {{{taint.key}: {taint.value}}}"
                return Status(UNSCHEDULABLE_AND_UNRESOLVABLE, (reason,), self.name)
        return OK

    def score(self, pod: Pod, node: Node) -> int:
        tolerations = [t for t in pod.tolerations if t.effect in ("", PREFER_NO_SCHEDULE)]
        return sum(
            1 for taint in node.taints
            if taint.effect == PREFER_NO_SCHEDULE and not any(t.tolerates(taint) for t in tolerations)
        )

    def normalize(self, scores: list[int]) -> list[int]:
        return default_normalize(scores, reverse=True)


class NodeAffinity:
    name = "NodeAffinity"
    weight = 2

    def filter(self, pod: Pod, node: Node | NodeInfo) -> Status:
        if pod.affinity_node_name is not None and pod.affinity_node_name != node.name:
            return Status(UNSCHEDULABLE_AND_UNRESOLVABLE, ("node(s) didn't match Pod's node affinity/selector",), self.name)
        labels = node.labels
        for key, value in pod.node_selector.items():
            if labels.get(key) != value:
                return Status(UNSCHEDULABLE_AND_UNRESOLVABLE, ("node(s) didn't match Pod's node affinity/selector",), self.name)
        return OK


class NodeResourcesFit:
    """fitsRequest; since kubernetes#131345 a request larger than the whole node is unresolvable."""

    name = "NodeResourcesFit"
    weight = 1

    def filter(self, pod: Pod, node: Node | NodeInfo) -> Status:
        reasons = []
        unresolvable = False
        if node.pod_count + 1 > node.allocatable_pods:
            reasons.append("Too many pods")
            unresolvable |= node.allocatable_pods < 1
        if pod.cpu > 0 and pod.cpu > node.allocatable_cpu - node.requested_cpu:
            reasons.append("Insufficient cpu")
            unresolvable |= pod.cpu > node.allocatable_cpu
        if pod.memory > 0 and pod.memory > node.allocatable_memory - node.requested_memory:
            reasons.append("Insufficient memory")
            unresolvable |= pod.memory > node.allocatable_memory
        if not reasons:
            return OK
        return Status(UNSCHEDULABLE_AND_UNRESOLVABLE if unresolvable else UNSCHEDULABLE, tuple(reasons), self.name)

    def score(self, pod: Pod, node: Node) -> int:
        """LeastAllocated over cpu and memory (weight 1 each) with non-zero requests."""
        cpu = _least_allocated(node.nonzero_cpu + (pod.cpu or DEFAULT_MILLI_CPU_REQUEST), node.allocatable_cpu)
        memory = _least_allocated(node.nonzero_memory + (pod.memory or DEFAULT_MEMORY_REQUEST), node.allocatable_memory)
        return (cpu + memory) // 2

    def normalize(self, scores: list[int]) -> list[int]:
        return scores


def _least_allocated(requested: int, allocatable: int) -> int:
    if allocatable == 0 or requested > allocatable:
        return 0
    return (allocatable - requested) * MAX_NODE_SCORE // allocatable


class NodeResourcesBalancedAllocation:
    name = "NodeResourcesBalancedAllocation"
    weight = 1

    def score(self, pod: Pod, node: Node) -> int:
        cpu = _fraction(node.requested_cpu + pod.cpu, node.allocatable_cpu)
        memory = _fraction(node.requested_memory + pod.memory, node.allocatable_memory)
        std = abs(cpu - memory) / 2
        return int((1 - std) * MAX_NODE_SCORE)

    def normalize(self, scores: list[int]) -> list[int]:
        return scores


def _fraction(requested: int, allocatable: int) -> float:
    if allocatable == 0:
        return 1.0
    return min(requested / allocatable, 1.0)


DEFAULT_FILTERS = (NodeUnschedulable(), NodeName(), TaintToleration(), NodeAffinity(), NodeResourcesFit())
DEFAULT_SCORES = (TaintToleration(), NodeResourcesFit(), NodeResourcesBalancedAllocation())
