"""The API objects the simulation holds: plain slotted dataclasses with Kubernetes field names.

Times are integer milliseconds of virtual time since the scenario start; resources are millicores and
bytes. Objects hold no behaviour beyond small predicates that Kubernetes helpers also provide.
"""

from __future__ import annotations

from dataclasses import dataclass, field

NOT_READY_TAINT = "node.kubernetes.io/not-ready"
UNREACHABLE_TAINT = "node.kubernetes.io/unreachable"
UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"
OUT_OF_SERVICE_TAINT = "node.kubernetes.io/out-of-service"
MEMORY_PRESSURE_TAINT = "node.kubernetes.io/memory-pressure"
DISK_PRESSURE_TAINT = "node.kubernetes.io/disk-pressure"
PID_PRESSURE_TAINT = "node.kubernetes.io/pid-pressure"
NETWORK_UNAVAILABLE_TAINT = "node.kubernetes.io/network-unavailable"
ZONE_LABEL = "topology.kubernetes.io/zone"
REGION_LABEL = "topology.kubernetes.io/region"
BETA_ZONE_LABEL = "failure-domain.beta.kubernetes.io/zone"
BETA_REGION_LABEL = "failure-domain.beta.kubernetes.io/region"
EXCLUDE_DISRUPTION_LABEL = "node.kubernetes.io/exclude-disruption"
HOSTNAME_LABEL = "kubernetes.io/hostname"
POD_TEMPLATE_HASH_LABEL = "pod-template-hash"  # apps/v1 DefaultDeploymentUniqueLabelKey

NO_SCHEDULE = "NoSchedule"
PREFER_NO_SCHEDULE = "PreferNoSchedule"
NO_EXECUTE = "NoExecute"
EFFECTS = (NO_SCHEDULE, PREFER_NO_SCHEDULE, NO_EXECUTE)

TRUE, FALSE, UNKNOWN = "True", "False", "Unknown"

PENDING, RUNNING, SUCCEEDED, FAILED = "Pending", "Running", "Succeeded", "Failed"

DEFAULT_NAMESPACE = "default"


@dataclass(slots=True)
class Taint:
    key: str
    effect: str
    value: str = ""
    time_added: int | None = None

    def __str__(self) -> str:
        if self.value:
            return f"{self.key}={self.value}:{self.effect}"
        return f"{self.key}:{self.effect}"

    def matches(self, other: "Taint") -> bool:
        """Same key and effect: the identity Kubernetes uses when adding or removing taints."""
        return self.key == other.key and self.effect == other.effect


@dataclass(slots=True, frozen=True)
class Toleration:
    key: str = ""
    operator: str = "Equal"
    value: str = ""
    effect: str = ""
    toleration_seconds: int | None = None

    def tolerates(self, taint: Taint) -> bool:
        """v1.Toleration.ToleratesTaint."""
        if self.effect and self.effect != taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        if self.operator == "Exists":
            return True
        # Equal (or empty operator): an empty key with Equal matches nothing but an empty key taint.
        return self.value == taint.value

    def __str__(self) -> str:
        text = self.key or "*"
        if self.operator == "Exists":
            text += " Exists"
        elif self.value:
            text += f"={self.value}"
        if self.effect:
            text += f":{self.effect}"
        if self.toleration_seconds is not None:
            text += f" for {self.toleration_seconds}s"
        return text


def tolerates_all(tolerations: tuple[Toleration, ...], taint: Taint) -> bool:
    return any(t.tolerates(taint) for t in tolerations)


@dataclass(slots=True)
class Condition:
    type: str
    status: str
    reason: str = ""
    message: str = ""
    last_heartbeat_time: int | None = None
    last_transition_time: int | None = None


@dataclass(slots=True)
class Lease:
    """coordination.k8s.io/v1 Lease in kube-node-lease. renewTime is derived by the kubelet."""

    name: str
    holder_identity: str
    lease_duration_seconds: int
    namespace: str = "kube-node-lease"


def uid_text(uid: int) -> str:
    """An object's uid as the playground shows it ("uid-00000042")."""
    return f"uid-{uid:08d}"


@dataclass(slots=True)
class Node:
    name: str
    uid: int  # shown by uid_text
    labels: dict[str, str]
    capacity_cpu: int
    capacity_memory: int
    capacity_pods: int
    allocatable_cpu: int
    allocatable_memory: int
    allocatable_pods: int
    creation_time: int
    unschedulable: bool = False
    taints: list[Taint] = field(default_factory=list)
    conditions: dict[str, Condition] = field(default_factory=dict)
    zone: str = ""
    # Running totals of the requests of the pods bound here (kube-scheduler's NodeInfo.Requested),
    # kept by the store so that the scheduler never sums pods.
    requested_cpu: int = 0
    requested_memory: int = 0
    nonzero_cpu: int = 0
    nonzero_memory: int = 0
    pod_count: int = 0

    def ready_status(self) -> str | None:
        cond = self.conditions.get("Ready")
        return cond.status if cond else None

    def has_taint(self, key: str, effect: str) -> bool:
        return any(t.key == key and t.effect == effect for t in self.taints)

    def taint_strings(self) -> list[str]:
        return [str(t) for t in self.taints]


def zone_key(labels: dict[str, str]) -> str:
    """nodetopology.GetZoneKey, written readably: "region/zone", or just "zone" without a region."""
    zone = labels.get(ZONE_LABEL) or labels.get(BETA_ZONE_LABEL) or ""
    region = labels.get(REGION_LABEL) or labels.get(BETA_REGION_LABEL) or ""
    if region and zone:
        return f"{region}/{zone}"
    return zone or region


def set_operator_matches(key: str, op: str, values: tuple[str, ...], labels: dict[str, str]) -> bool:
    """In, NotIn, Exists and DoesNotExist as labels.Selector evaluates them (node and pod selectors alike)."""
    if op == "Exists":
        return key in labels
    if op == "DoesNotExist":
        return key not in labels
    value = labels.get(key)
    if op == "In":
        return value is not None and value in values
    return value is None or value not in values  # NotIn


@dataclass(slots=True, frozen=True)
class NodeSelectorRequirement:
    """v1.NodeSelectorRequirement: key, operator (In, NotIn, Exists, DoesNotExist, Gt, Lt), values."""

    key: str
    operator: str
    values: tuple[str, ...] = ()

    def matches(self, labels: dict[str, str]) -> bool:
        """labels.Selector semantics as nodeaffinity.NewNodeSelector builds them."""
        op = self.operator
        if op != "Gt" and op != "Lt":
            return set_operator_matches(self.key, op, self.values, labels)
        value = labels.get(self.key)
        if value is None or len(self.values) != 1:
            return False
        try:
            have, want = int(value), int(self.values[0])
        except ValueError:
            return False
        return have > want if op == "Gt" else have < want


@dataclass(slots=True, frozen=True)
class NodeSelectorTerm:
    """Requirements ANDed. matchFields supports metadata.name only, as Kubernetes does. A term with
    no requirement at all matches no node."""

    match_expressions: tuple[NodeSelectorRequirement, ...] = ()
    match_fields: tuple[NodeSelectorRequirement, ...] = ()

    def matches(self, name: str, labels: dict[str, str]) -> bool:
        if not self.match_expressions and not self.match_fields:
            return False
        if any(not r.matches(labels) for r in self.match_expressions):
            return False
        fields = {"metadata.name": name}
        return all(r.matches(fields) for r in self.match_fields)


@dataclass(slots=True, frozen=True)
class PreferredSchedulingTerm:
    weight: int
    preference: NodeSelectorTerm


def node_selector_matches(terms: tuple[NodeSelectorTerm, ...], name: str, labels: dict[str, str]) -> bool:
    """requiredDuringSchedulingIgnoredDuringExecution: the terms are ORed."""
    return any(term.matches(name, labels) for term in terms)


@dataclass(slots=True, frozen=True)
class LabelSelectorRequirement:
    """metav1.LabelSelectorRequirement: key, operator (In, NotIn, Exists, DoesNotExist), values."""

    key: str
    operator: str
    values: tuple[str, ...] = ()

    def matches(self, labels: dict[str, str]) -> bool:
        return set_operator_matches(self.key, self.operator, self.values, labels)


@dataclass(slots=True, frozen=True)
class LabelSelector:
    """metav1.LabelSelector as LabelSelectorAsSelector reads it: matchLabels and matchExpressions
    ANDed; an empty selector matches every pod. A missing selector (None where one is held) matches
    none."""

    match_labels: tuple[tuple[str, str], ...] = ()
    match_expressions: tuple[LabelSelectorRequirement, ...] = ()

    def matches(self, labels: dict[str, str]) -> bool:
        for key, value in self.match_labels:
            if labels.get(key) != value:
                return False
        for req in self.match_expressions:
            if not req.matches(labels):
                return False
        return True

    def empty(self) -> bool:
        return not self.match_labels and not self.match_expressions


def selector_matches(selector: LabelSelector | None, labels: dict[str, str]) -> bool:
    return selector is not None and selector.matches(labels)


@dataclass(slots=True, frozen=True)
class TopologySpreadConstraint:
    """v1.TopologySpreadConstraint (spec.topologySpreadConstraints), with the API's defaults:
    minDomains 1, nodeAffinityPolicy Honor, nodeTaintsPolicy Ignore."""

    max_skew: int
    topology_key: str
    when_unsatisfiable: str  # DoNotSchedule | ScheduleAnyway
    selector: LabelSelector | None = None
    min_domains: int = 1
    node_affinity_policy: str = "Honor"
    node_taints_policy: str = "Ignore"
    match_label_keys: tuple[str, ...] = ()


@dataclass(slots=True, frozen=True)
class PodAffinityTerm:
    """v1.PodAffinityTerm: pods matching `selector` in `namespaces` (empty: the pod's own
    namespace), on nodes sharing the value of `topology_key`."""

    selector: LabelSelector | None
    topology_key: str
    namespaces: tuple[str, ...] = ()


@dataclass(slots=True, frozen=True)
class WeightedPodAffinityTerm:
    weight: int
    term: PodAffinityTerm


# The conditions of a pod that has none yet: shared, never written in place (see ConditionCache).
NO_CONDITIONS: dict = {}


class ConditionCache:
    """Pod conditions as copy-on-write dicts shared between pods.

    150,000 pods started by one rollout have a handful of distinct condition sets (the same four
    conditions with the same transition times): instead of a dict and four Condition objects per pod
    (~550 bytes), pods with equal conditions share one dict. A write never changes a dict in place:
    it looks up (or makes) the dict with the new content, in the same key order an in-place write
    would give. Only the most recent `limit` contents are remembered, so the cache stays small while
    long-running clusters drift apart."""

    __slots__ = ("limit", "_dicts", "_content", "_next", "_many")

    def __init__(self, limit: int = 4096) -> None:
        self.limit = limit
        self._dicts: dict[tuple, dict] = {}  # content -> the shared dict
        self._content: dict[int, tuple] = {}  # id of a shared dict (alive: held by _dicts) -> content
        # (id of a shared dict or of NO_CONDITIONS, the write) -> the shared dict it leads to: a
        # write that 150,000 pods make in turn is one lookup after the first
        self._next: dict[tuple, dict] = {}
        # (id of a shared dict or of NO_CONDITIONS, condition types, status, now) -> the shared dict
        # `set_many` led to: the kubelet's Running report sets two conditions in one lookup
        self._many: dict[tuple, dict] = {}

    def __reduce__(self):
        # The indexes key dicts by id(): a copy rebuilds them from its own dicts (a stale id could
        # match another dict and corrupt a pod's conditions).
        return (_restored_condition_cache, (self.limit, self._dicts))

    def set(self, pod: "Pod", ctype: str, status: str, reason: str, message: str, now: int) -> bool:
        """The store's pod condition write: the transition time moves only when the status does.
        True if anything changed."""
        conditions = pod.conditions
        current = conditions.get(ctype)
        if current and current.status == status and current.reason == reason and current.message == message:
            return False
        transition = current.last_transition_time if current and current.status == status else now
        write = (id(conditions), ctype, status, reason, message, transition)
        shared = self._next.get(write)
        if shared is not None:
            pod.conditions = shared
            return True
        old = self._content.get(id(conditions))
        known = old is not None or conditions is NO_CONDITIONS
        if old is None:
            old = tuple((c.type, c.status, c.reason, c.message, c.last_heartbeat_time, c.last_transition_time)
                        for c in conditions.values())
        entry = (ctype, status, reason, message, None, transition)
        if current is None:
            new = old + (entry,)
        else:
            new = tuple(entry if e[0] == ctype else e for e in old)
        shared = self._dicts.get(new)
        if shared is None:
            if len(self._dicts) >= self.limit:
                self._dicts.clear()
                self._content.clear()
                self._next.clear()
                self._many.clear()
                known = conditions is NO_CONDITIONS  # the old dict is no longer held: its id may be reused
            shared = dict(conditions)
            shared[ctype] = Condition(ctype, status, reason, message, None, transition)
            self._dicts[new] = shared
            self._content[id(shared)] = new
        if known:
            if len(self._next) >= 4 * self.limit:
                self._next.clear()
            self._next[write] = shared
        pod.conditions = shared
        return True

    def set_each(self, pods: list["Pod"], ctype: str, status: str, now: int) -> list["Pod"]:
        """`set` (no reason or message) for each of `pods` in turn; the pods whose conditions changed.
        `set`'s answer depends on the dict a pod holds and on nothing else, and asking again from the
        same dict gives the same dict and changes nothing in the cache: so pods that hold one dict
        (a run of one template, one after another) take the answer of the first of them."""
        changed = []
        before = after = None
        moved = False
        for pod in pods:
            conditions = pod.conditions
            if conditions is before:
                pod.conditions = after
            else:
                moved = self.set(pod, ctype, status, "", "", now)
                before, after = conditions, pod.conditions
            if moved:
                changed.append(pod)
        return changed

    def set_many(self, pod: "Pod", ctypes: tuple[str, ...], status: str, now: int) -> bool:
        """`set` of each of `ctypes` to `status` (no reason or message), in order; True if any
        changed."""
        conditions = pod.conditions
        write = (id(conditions), ctypes, status, now)
        shared = self._many.get(write)
        if shared is not None:
            pod.conditions = shared
            return shared is not conditions
        changed = False
        for ctype in ctypes:
            changed |= self.set(pod, ctype, status, "", "", now)
        # Remembered only from a dict the cache holds (its id stays its own while held; a clear of
        # the cache clears this too) and to a dict it holds.
        if (conditions is NO_CONDITIONS or id(conditions) in self._content) and id(pod.conditions) in self._content:
            if len(self._many) >= 4 * self.limit:
                self._many.clear()
            self._many[write] = pod.conditions
        return changed


def _restored_condition_cache(limit: int, dicts: dict) -> ConditionCache:
    cache = ConditionCache(limit)
    cache._dicts = dicts
    cache._content = {id(shared): content for content, shared in dicts.items()}
    return cache


@dataclass(slots=True)
class OwnerRef:
    kind: str
    name: str


@dataclass(slots=True)
class Pod:
    name: str
    namespace: str
    uid: int  # shown by uid_text
    labels: dict[str, str]
    creation_time: int
    priority: int = 0
    priority_class_name: str = ""
    preemption_policy: str = "PreemptLowerPriority"
    cpu: int = 0
    memory: int = 0
    tolerations: tuple[Toleration, ...] = ()
    node_selector: dict[str, str] = field(default_factory=dict)
    # Required node affinity on metadata.name, as the DaemonSet controller sets for its pods.
    affinity_node_name: str | None = None
    # spec.affinity.nodeAffinity: required terms (ORed; None = no requirement) and preferred terms.
    required_node_affinity: tuple[NodeSelectorTerm, ...] | None = None
    preferred_node_affinity: tuple[PreferredSchedulingTerm, ...] = ()
    # spec.topologySpreadConstraints and spec.affinity.podAffinity / podAntiAffinity.
    topology_spread_constraints: tuple[TopologySpreadConstraint, ...] = ()
    required_pod_affinity: tuple[PodAffinityTerm, ...] = ()
    preferred_pod_affinity: tuple[WeightedPodAffinityTerm, ...] = ()
    required_pod_anti_affinity: tuple[PodAffinityTerm, ...] = ()
    preferred_pod_anti_affinity: tuple[WeightedPodAffinityTerm, ...] = ()
    node_name: str | None = None
    termination_grace_period_seconds: int = 30
    start_duration: int = 1000
    stop_duration: int | None = None
    owner: OwnerRef | None = None
    empty_dir: bool = False
    mirror: bool = False
    # PersistentVolumeClaims the pod mounts (a StatefulSet's volumeClaimTemplates); one RWO volume each.
    volume_claims: tuple[str, ...] = ()
    phase: str = PENDING
    reason: str = ""
    message: str = ""
    conditions: dict[str, Condition] = field(default_factory=dict)
    start_time: int | None = None
    deletion_timestamp: int | None = None
    deletion_grace_period_seconds: int | None = None
    nominated_node_name: str = ""
    # "namespace/name", made once: every index (pods, pods by node and owner, containers, queues)
    # holds this one string instead of a fresh copy each (150,000 pods x 6 copies).
    key: str = field(init=False, repr=False, compare=False, default="")

    def __post_init__(self) -> None:
        self.key = f"{self.namespace}/{self.name}"

    @property
    def ref(self) -> str:
        return f"Pod/{self.namespace}/{self.name}"

    def is_terminal(self) -> bool:
        return self.phase in (SUCCEEDED, FAILED)

    def is_active(self) -> bool:
        """controller.IsPodActive: not terminal and not being deleted."""
        return not self.is_terminal() and self.deletion_timestamp is None

    def condition_status(self, ctype: str) -> str | None:
        cond = self.conditions.get(ctype)
        return cond.status if cond else None

    def is_ready(self) -> bool:
        return self.condition_status("Ready") == TRUE

    def owned_by(self, kind: str, name: str) -> bool:
        return self.owner is not None and self.owner.kind == kind and self.owner.name == name


@dataclass(slots=True)
class PodTemplate:
    """What a workload stamps its pods from (a parsed scenario template)."""

    labels: dict[str, str]
    cpu: int = 0
    memory: int = 0
    priority_class_name: str = ""
    priority: int | None = None
    tolerations: tuple[Toleration, ...] = ()
    node_selector: dict[str, str] = field(default_factory=dict)
    termination_grace_period_seconds: int = 30
    start_duration: int = 1000
    stop_duration: int | None = None
    empty_dir: bool = False
    required_node_affinity: tuple[NodeSelectorTerm, ...] | None = None
    preferred_node_affinity: tuple[PreferredSchedulingTerm, ...] = ()
    topology_spread_constraints: tuple[TopologySpreadConstraint, ...] = ()
    required_pod_affinity: tuple[PodAffinityTerm, ...] = ()
    preferred_pod_affinity: tuple[WeightedPodAffinityTerm, ...] = ()
    required_pod_anti_affinity: tuple[PodAffinityTerm, ...] = ()
    preferred_pod_anti_affinity: tuple[WeightedPodAffinityTerm, ...] = ()
    # metadata.annotations of the template (kubectl rollout restart sets kubectl.kubernetes.io/restartedAt)
    annotations: dict[str, str] = field(default_factory=dict)


ROLLING_UPDATE, RECREATE = "RollingUpdate", "Recreate"


@dataclass(slots=True)
class DeploymentCondition:
    """apps/v1 DeploymentCondition: lastUpdateTime moves on every update of the same reason (the
    progress deadline counts from it), lastTransitionTime only when the status changes."""

    type: str
    status: str
    reason: str
    message: str
    last_update_time: int
    last_transition_time: int


@dataclass(slots=True)
class Deployment:
    """apps/v1 Deployment. Spec fields carry the API server's defaults; the deployment controller
    keeps the status fields."""

    name: str
    namespace: str
    replicas: int
    template: PodTemplate
    strategy: str = ROLLING_UPDATE
    max_surge: int | str = "25%"  # rollingUpdate.maxSurge: a count or a percentage
    max_unavailable: int | str = "25%"
    min_ready_seconds: int = 0
    progress_deadline_seconds: int | None = 600
    revision_history_limit: int | None = 10
    paused: bool = False
    generation: int = 1
    creation_time: int = 0
    revision: int = 0  # the deployment.kubernetes.io/revision annotation
    # status
    observed_generation: int = 0
    status_replicas: int = 0
    updated_replicas: int = 0
    ready_replicas: int = 0
    available_replicas: int = 0
    unavailable_replicas: int = 0
    conditions: dict[str, DeploymentCondition] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


@dataclass(slots=True)
class ReplicaSet:
    """apps/v1 ReplicaSet owned by a Deployment: <deployment>-<pod-template-hash>. The annotations
    the deployment controller keeps are fields here (revision, desired-replicas, max-replicas)."""

    name: str
    namespace: str
    deployment: str
    template: PodTemplate
    template_hash: str
    replicas: int
    creation_time: int
    sequence: int  # creation order among ReplicaSets created at the same instant
    min_ready_seconds: int = 0
    revision: int = 0
    revision_history: tuple[int, ...] = ()
    desired_replicas: int | None = None
    max_replicas: int | None = None
    # status, from the ReplicaSet controller
    status_replicas: int = 0
    ready_replicas: int = 0
    available_replicas: int = 0

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


@dataclass(slots=True)
class DaemonSet:
    name: str
    namespace: str
    template: PodTemplate


@dataclass(slots=True)
class StatefulSet:
    """apps/v1 StatefulSet: pods <name>-0 .. <name>-(replicas-1), each with its own claim
    <volumeClaimTemplate>-<pod name> (OrderedReady or Parallel pod management)."""

    name: str
    namespace: str
    replicas: int
    template: PodTemplate
    volume_claim_template: str | None = "data"
    pod_management_policy: str = "OrderedReady"


@dataclass(slots=True)
class PodDisruptionBudget:
    """policy/v1 PodDisruptionBudget; the disruption controller keeps the status fields."""

    name: str
    namespace: str
    selector: dict[str, str]
    min_available: int | str | None = None  # a count or a percentage such as "50%"
    max_unavailable: int | str | None = None
    # status
    current_healthy: int = 0
    desired_healthy: int = 0
    disruptions_allowed: int = 0
    expected_pods: int = 0
    disrupted_pods: dict[str, int] = field(default_factory=dict)  # pod name -> time of the eviction (ms)
    # spec.unhealthyPodEvictionPolicy: None (= IfHealthyBudget) or "IfHealthyBudget" / "AlwaysAllow".
    unhealthy_pod_eviction_policy: str | None = None
    # status.conditions, kept by the disruption controller: DisruptionAllowed (SufficientPods,
    # InsufficientPods or SyncFailed with the error).
    conditions: dict[str, "Condition"] = field(default_factory=dict)
    # metadata.generation and status.observedGeneration: the Eviction API answers 429 until the
    # disruption controller has processed the current spec.
    generation: int = 1
    observed_generation: int = 0

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    def matches(self, pod: "Pod") -> bool:
        return self.matches_labels(pod.namespace, pod.labels)

    def matches_labels(self, namespace: str, labels: dict[str, str]) -> bool:
        """A PDB with an empty selector matches nothing (policy/v1 eviction semantics)."""
        if namespace != self.namespace or not self.selector:
            return False
        return all(labels.get(k) == v for k, v in self.selector.items())


@dataclass(slots=True)
class PriorityClass:
    name: str
    value: int
    global_default: bool = False
    preemption_policy: str = "PreemptLowerPriority"
    description: str = ""


@dataclass(slots=True)
class Event:
    """One core/v1 Event: `time` is firstTimestamp; a repeat of the same event (same source, object,
    type, reason and message) raises `count` and moves `last_time` (lastTimestamp)."""

    time: int
    type: str
    reason: str
    object: str
    message: str
    source: str
    count: int = 1
    last_time: int = -1
    # the rest of the recorder's key (EventRecorder): the involved object's uid and the recording
    # process; and the Event's number in the log (1 = first recorded)
    uid: int = 0  # 0: no object, or one that no longer exists
    instance: str = ""
    seq: int = 0

    def __post_init__(self) -> None:
        if self.last_time < 0:
            self.last_time = self.time

    def key(self) -> tuple[str, ...]:
        """The EventRecorder's key: a repeat of the same key is counted on this Event."""
        return (self.source, self.instance, self.object, self.uid, self.type, self.reason, self.message)

    def as_dict(self) -> dict:
        return {
            "time": self.time / 1000,
            "type": self.type,
            "reason": self.reason,
            "object": self.object,
            "message": self.message,
            "source": self.source,
            "count": self.count,
            "firstTimestamp": self.time / 1000,
            "lastTimestamp": self.last_time / 1000,
        }


def set_attributes(obj: object, state: dict) -> None:
    """Give a restored object its attributes one by one. Pickle's default sets them through the
    object's __dict__, and on CPython 3.11+ an object whose __dict__ was asked for keeps its
    attributes in that dict from then on, instead of in the object itself: reading one costs about
    twice as much (an engine whose kubelets, store and controllers had been pickled in-process ran a
    zone outage about 10 % slower). Set one by one, they stay in the object. (Also a component's own
    __setstate__.)"""
    for name, value in state.items():
        object.__setattr__(obj, name, value)
