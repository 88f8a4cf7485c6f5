"""The default kube-scheduler plugins the simulation models (pkg/scheduler/framework/plugins).

Filters, in the default profile's order: NodeUnschedulable, NodeName, TaintToleration, NodeAffinity,
NodeResourcesFit. The first filter that rejects a node decides its status. Scores with their default
weights: TaintToleration 3, NodeAffinity 2, NodeResourcesFit (LeastAllocated) 1,
NodeResourcesBalancedAllocation 1; each normalized to 0..100 (MaxNodeScore), multiplied by its weight
and summed.

Each filter also registers the cluster events that may make a pod it rejected schedulable, with a
QueueingHint (`hint`) deciding per pod whether the event is worth a retry, as the plugins'
EventsToRegister / isSchedulableAfter* functions do with queueing hints enabled (the default since
v1.32): Node/Add for every filter, Node/UpdateNodeTaint (a taint or spec.unschedulable change) for
NodeUnschedulable and TaintToleration, AssignedPod/Delete for NodeResourcesFit. Node label and
allocatable updates do not happen in the simulation.
"""

from __future__ import annotations

from ..objects import (
    NO_SCHEDULE,
    PREFER_NO_SCHEDULE,
    UNSCHEDULABLE_TAINT,
    Node,
    Pod,
    Taint,
    Toleration,
    node_selector_matches,
)
from ..store import DEFAULT_MEMORY_REQUEST, DEFAULT_MILLI_CPU_REQUEST
from .framework import (
    ASSIGNED_POD_DELETE,
    MAX_NODE_SCORE,
    NODE_ADD,
    NODE_TAINT_UPDATE,
    OK,
    UNSCHEDULABLE,
    UNSCHEDULABLE_AND_UNRESOLVABLE,
    ClusterEvent,
    NodeInfo,
    Status,
    default_normalize,
)

UNSCHEDULABLE_NOSCHEDULE = Taint(UNSCHEDULABLE_TAINT, NO_SCHEDULE)

ERR_UNSCHEDULABLE = "node(s) were unschedulable"
ERR_NODE_NAME = "node(s) didn't match the requested node name"
ERR_NODE_AFFINITY = "node(s) didn't match Pod's node affinity/selector"


def untolerated_taint(taints: list[Taint] | tuple[Taint, ...], tolerations: tuple[Toleration, ...]) -> Taint | None:
    """v1helper.FindMatchingUntoleratedTaint with DoNotScheduleTaintsFilterFunc: the first NoSchedule
    or NoExecute taint no toleration tolerates."""
    for taint in taints:
        if taint.effect == PREFER_NO_SCHEDULE:
            continue
        if not any(t.tolerates(taint) for t in tolerations):
            return taint
    return None


class NodeUnschedulable:
    name = "NodeUnschedulable"
    events = frozenset({NODE_ADD, NODE_TAINT_UPDATE})

    def filter(self, pod: Pod, node: Node | NodeInfo) -> Status:
        if node.unschedulable and not any(t.tolerates(UNSCHEDULABLE_NOSCHEDULE) for t in pod.tolerations):
            return Status(UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_UNSCHEDULABLE,), self.name)
        return OK

    def hint(self, pod: Pod, event: ClusterEvent, node: Node | None) -> bool:
        """Queue when a schedulable node is added or a node turns from unschedulable to schedulable."""
        if node is None or node.unschedulable:
            return False
        return event.kind == NODE_ADD or bool(event.old_unschedulable)


class NodeName:
    name = "NodeName"
    events = frozenset({NODE_ADD})

    def filter(self, pod: Pod, node: Node | NodeInfo) -> Status:
        if pod.node_name and pod.node_name != node.name:
            return Status(UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_NODE_NAME,), self.name)
        return OK

    def hint(self, pod: Pod, event: ClusterEvent, node: Node | None) -> bool:
        return node is not None and (not pod.node_name or pod.node_name == node.name)


class TaintToleration:
    name = "TaintToleration"
    weight = 3
    events = frozenset({NODE_ADD, NODE_TAINT_UPDATE})

    def filter(self, pod: Pod, node: Node | NodeInfo) -> Status:
        taint = untolerated_taint(node.taints, pod.tolerations)
        if taint is not None:
            reason = f"node(s) had untolerated taint {{{taint.key}: {taint.value}}}"
            return Status(UNSCHEDULABLE_AND_UNRESOLVABLE, (reason,), self.name)
        return OK

    def hint(self, pod: Pod, event: ClusterEvent, node: Node | None) -> bool:
        """Queue when the node's taints went from untolerated to tolerated (or a tolerated node was added)."""
        if node is None or untolerated_taint(node.taints, pod.tolerations) is not None:
            return False
        if event.kind == NODE_ADD:
            return True
        return untolerated_taint(event.old_taints, pod.tolerations) is not None

    def score(self, pod: Pod, node: Node) -> int:
        """The number of PreferNoSchedule taints not tolerated by a toleration with effect
        PreferNoSchedule or empty."""
        count = 0
        for taint in node.taints:
            if taint.effect != PREFER_NO_SCHEDULE:
                continue
            if not any(t.effect in ("", PREFER_NO_SCHEDULE) and t.tolerates(taint) for t in pod.tolerations):
                count += 1
        return count

    def normalize(self, scores: list[int]) -> list[int]:
        return default_normalize(scores, reverse=True)


class NodeAffinity:
    """spec.nodeSelector and required node affinity filter; preferred node affinity scores."""

    name = "NodeAffinity"
    weight = 2
    events = frozenset({NODE_ADD})

    def filter(self, pod: Pod, node: Node | NodeInfo) -> Status:
        if pod.affinity_node_name is not None and pod.affinity_node_name != node.name:
            return Status(UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_NODE_AFFINITY,), self.name)
        labels = node.labels
        for key, value in pod.node_selector.items():
            if labels.get(key) != value:
                return Status(UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_NODE_AFFINITY,), self.name)
        required = pod.required_node_affinity
        if required is not None and not node_selector_matches(required, node.name, labels):
            return Status(UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_NODE_AFFINITY,), self.name)
        return OK

    def hint(self, pod: Pod, event: ClusterEvent, node: Node | None) -> bool:
        return node is not None and self.filter(pod, node).ok

    def score(self, pod: Pod, node: Node) -> int:
        """The sum of the weights of the preferred terms the node matches."""
        total = 0
        for term in pod.preferred_node_affinity:
            if term.preference.matches(node.name, node.labels):
                total += term.weight
        return total

    def normalize(self, scores: list[int]) -> list[int]:
        return default_normalize(scores, reverse=False)


class NodeResourcesFit:
    """fitsRequest; since kubernetes#131345 (v1.34) a request larger than the node's whole allocatable
    is UnschedulableAndUnresolvable (even an empty node could not take it, so preemption cannot help)."""

    name = "NodeResourcesFit"
    weight = 1
    events = frozenset({NODE_ADD, ASSIGNED_POD_DELETE})

    def __init__(self) -> None:
        self._statuses: dict[tuple, Status] = {}

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
        key = (unresolvable, *reasons)
        status = self._statuses.get(key)
        if status is None:  # statuses are never changed once made: share one per outcome
            code = UNSCHEDULABLE_AND_UNRESOLVABLE if unresolvable else UNSCHEDULABLE
            status = self._statuses[key] = Status(code, tuple(reasons), self.name)
        return status

    def hint(self, pod: Pod, event: ClusterEvent, node: Node | None) -> bool:
        """Any deleted assigned pod may free room; an added node helps if the pod fits it empty."""
        if event.kind == ASSIGNED_POD_DELETE:
            return True
        return node is not None and fits_empty(pod, node)

    def score(self, pod: Pod, node: Node) -> int:
        """LeastAllocated over cpu and memory (weight 1 each) with non-zero requests."""
        cpu = least_allocated(node.nonzero_cpu + (pod.cpu or DEFAULT_MILLI_CPU_REQUEST), node.allocatable_cpu)
        memory = least_allocated(node.nonzero_memory + (pod.memory or DEFAULT_MEMORY_REQUEST), node.allocatable_memory)
        return (cpu + memory) // 2

    def normalize(self, scores: list[int]) -> list[int]:
        return scores


def fits_empty(pod: Pod, node: Node) -> bool:
    """isFit: the pod fits the node with nothing on it."""
    return (node.allocatable_pods >= 1 and (pod.cpu == 0 or pod.cpu <= node.allocatable_cpu)
            and (pod.memory == 0 or pod.memory <= node.allocatable_memory))


def least_allocated(requested: int, allocatable: int) -> int:
    """leastRequestedScore."""
    if allocatable == 0 or requested > allocatable:
        return 0
    return (allocatable - requested) * MAX_NODE_SCORE // allocatable


class NodeResourcesBalancedAllocation:
    """balancedResourceScorer with actual (not non-zero) requests. Best-effort pods (no requests at
    all) are skipped at PreScore since kubernetes#129138, i.e. this plugin adds 0 everywhere."""

    name = "NodeResourcesBalancedAllocation"
    weight = 1

    def score(self, pod: Pod, node: Node) -> int:
        if pod.cpu == 0 and pod.memory == 0:
            return 0
        return balanced_score(node.requested_cpu + pod.cpu, node.allocatable_cpu,
                              node.requested_memory + pod.memory, node.allocatable_memory)

    def normalize(self, scores: list[int]) -> list[int]:
        return scores


def balanced_score(cpu_requested: int, cpu_allocatable: int, mem_requested: int, mem_allocatable: int) -> int:
    if cpu_allocatable and mem_allocatable:  # both resources count (every real node): the same arithmetic
        cpu = cpu_requested / cpu_allocatable
        memory = mem_requested / mem_allocatable
        return int((1 - abs((cpu if cpu < 1.0 else 1.0) - (memory if memory < 1.0 else 1.0)) / 2) * MAX_NODE_SCORE)
    fractions = []
    for requested, allocatable in ((cpu_requested, cpu_allocatable), (mem_requested, mem_allocatable)):
        if allocatable == 0:
            continue
        fractions.append(min(requested / allocatable, 1.0))
    std = abs(fractions[0] - fractions[1]) / 2 if len(fractions) == 2 else 0.0
    return int((1 - std) * MAX_NODE_SCORE)


NODE_UNSCHEDULABLE = NodeUnschedulable()
NODE_NAME = NodeName()
TAINT_TOLERATION = TaintToleration()
NODE_AFFINITY = NodeAffinity()
NODE_RESOURCES_FIT = NodeResourcesFit()
BALANCED_ALLOCATION = NodeResourcesBalancedAllocation()



def _by_name(instance) -> str:
    # The plugins hold no state: a pickled scheduler (a time-travel checkpoint) refers to the module's
    # one instance of each, so that identity checks (`filters is DEFAULT_FILTERS`) hold after a restore.
    return PLUGIN_NAMES[type(instance)]


PLUGIN_NAMES = {type(plugin): name for name, plugin in (
    ("NODE_UNSCHEDULABLE", NODE_UNSCHEDULABLE), ("NODE_NAME", NODE_NAME), ("TAINT_TOLERATION", TAINT_TOLERATION),
    ("NODE_AFFINITY", NODE_AFFINITY), ("NODE_RESOURCES_FIT", NODE_RESOURCES_FIT),
    ("BALANCED_ALLOCATION", BALANCED_ALLOCATION))}
for _plugin_type in PLUGIN_NAMES:
    _plugin_type.__reduce__ = _by_name

DEFAULT_FILTERS = (NODE_UNSCHEDULABLE, NODE_NAME, TAINT_TOLERATION, NODE_AFFINITY, NODE_RESOURCES_FIT)
DEFAULT_SCORES = (TAINT_TOLERATION, NODE_AFFINITY, NODE_RESOURCES_FIT, BALANCED_ALLOCATION)
FILTERS_BY_NAME = {plugin.name: plugin for plugin in DEFAULT_FILTERS}
