"""The scenario file format: a pydantic schema whose keys are Kubernetes' own field and flag names.

Durations are held in milliseconds and quantities in millicores / bytes, and written back in
Kubernetes notation, so load -> save -> load gives the same scenario.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic_core import PydanticCustomError
from pydantic import (AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, PlainSerializer, field_validator,
                      model_validator)

from ..units import format_cpu, format_duration, format_memory, parse_count, parse_cpu, parse_duration, parse_memory
from .validation import (DNS1123_SUBDOMAIN, EFFECTS, MAX_NODE_POOL, MAX_REPLICAS, MAX_TIME_MS, label_error,
                         label_value_error, labels_error, parse_taint_spec, qualified_name_error, removal_spec,
                         replicas_error, subdomain_error, taint_text, unique_taints_error)

Duration = Annotated[int, BeforeValidator(parse_duration), PlainSerializer(format_duration, return_type=str)]
Cpu = Annotated[int, BeforeValidator(parse_cpu), PlainSerializer(format_cpu, return_type=str)]
Memory = Annotated[int, BeforeValidator(parse_memory), PlainSerializer(format_memory, return_type=str)]
Count = Annotated[int, BeforeValidator(parse_count)]

def parse_taint(text: str) -> tuple[str, str, str]:
    """"key=value:Effect" or "key:Effect" -> (key, value, effect)."""
    key, value, effect, _remove = parse_taint_spec(taint_text(text))
    assert effect is not None
    return key, value, effect


def _checked(check):
    def validate(value):
        error = check(value)
        if error:
            raise ValueError(error)
        return value
    return validate


TaintString = Annotated[str, BeforeValidator(taint_text)]
NodeTaints = Annotated[list[TaintString], AfterValidator(_checked(unique_taints_error))]
Name = Annotated[str, BeforeValidator(_checked(subdomain_error))]
Namespace = Annotated[str, BeforeValidator(_checked(label_error))]
# apps/v1 StatefulSet names are DNS-1123 labels (pkg/apis/apps/validation, ValidateStatefulSetName)
StatefulSetName = Annotated[str, BeforeValidator(_checked(lambda value: label_error(value, "StatefulSet name")))]
Labels = Annotated[dict[str, str], AfterValidator(_checked(labels_error))]
Replicas = Annotated[int, Field(strict=True, ge=0), AfterValidator(_checked(replicas_error))]
# `duration` and every `at`: within the playground's limit (MAX_TIME_MS, 7 days)
Time = Annotated[int, BeforeValidator(parse_duration), AfterValidator(_checked(
    lambda ms: f"must be at most {format_duration(MAX_TIME_MS)} (the playground's limit), got {format_duration(ms)}"
    if ms > MAX_TIME_MS else None)), PlainSerializer(format_duration, return_type=str)]


def _pod_ref(value: object) -> object:
    """A pod name, or "namespace/name" as kubectl and the TUI write it."""
    if isinstance(value, str) and "/" in value:
        namespace, _, name = value.partition("/")
        error = label_error(namespace) or subdomain_error(name, "pod name")
    else:
        error = subdomain_error(value, "pod name")
    if error:
        raise ValueError(error)
    return value


PodRef = Annotated[str, BeforeValidator(_pod_ref)]


def _releases():
    # imported when used: the engine package imports this schema
    from ..engine import releases
    return releases


class Strict(BaseModel):
    # strict: a TOML boolean is not a number, a number not a string; no inf or nan anywhere
    model_config = ConfigDict(extra="forbid", populate_by_name=True, strict=True, allow_inf_nan=False)


class ScenarioMeta(Strict):
    name: str
    description: str = ""
    seed: int = 0
    tick: Duration = 1000
    duration: Time = 15 * 60_000
    # The Kubernetes release whose defaults and texts the cluster follows (engine/releases.py).
    kubernetesVersion: str = Field(default_factory=lambda: _releases().DEFAULT)

    @field_validator("kubernetesVersion", mode="before")
    @classmethod
    def _version(cls, value: object) -> str:
        releases = _releases()
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            raise ValueError(f'must be a quoted string such as "{releases.DEFAULT}", got the number {value}')
        text = value.strip().removeprefix("v") if isinstance(value, str) else value
        if text not in releases.SUPPORTED:
            raise ValueError(f"{value!r} is not a supported Kubernetes release; use one of "
                             f"{', '.join(releases.SUPPORTED)} (default {releases.DEFAULT})")
        return text

    @field_validator("tick")
    @classmethod
    def _tick(cls, value: int) -> int:
        if value < 100 or value > 60_000:
            raise ValueError(f"tick must be between 100ms and 1m, got {format_duration(value)}")
        return value


class ControllerManager(Strict):
    """kube-controller-manager flags, spelled as on its command line."""

    node_monitor_period: Duration = Field(5000, alias="node-monitor-period")
    node_monitor_grace_period: Duration = Field(50_000, alias="node-monitor-grace-period")
    node_startup_grace_period: Duration = Field(60_000, alias="node-startup-grace-period")
    node_eviction_rate: float = Field(0.1, alias="node-eviction-rate", ge=0)
    secondary_node_eviction_rate: float = Field(0.01, alias="secondary-node-eviction-rate", ge=0)
    large_cluster_size_threshold: int = Field(50, alias="large-cluster-size-threshold", ge=0)
    unhealthy_zone_threshold: float = Field(0.55, alias="unhealthy-zone-threshold", gt=0, le=1)
    terminated_pod_gc_threshold: int = Field(12500, alias="terminated-pod-gc-threshold", ge=0)

    @field_validator("node_monitor_period")
    @classmethod
    def _period(cls, value: int) -> int:
        if value <= 0:
            raise ValueError("node-monitor-period must be greater than 0s")
        return value


class APIServerFlags(Strict):
    default_not_ready_toleration_seconds: int = Field(300, alias="default-not-ready-toleration-seconds", ge=0)
    default_unreachable_toleration_seconds: int = Field(300, alias="default-unreachable-toleration-seconds", ge=0)


class SchedulerSettings(Strict):
    """KubeSchedulerConfiguration fields, plus attemptsPerTick (simulation only)."""

    percentageOfNodesToScore: int = Field(0, ge=0, le=100)
    podInitialBackoffSeconds: int = Field(1, ge=1)
    podMaxBackoffSeconds: int = Field(10, ge=1)
    minCandidateNodesPercentage: int = Field(10, ge=0, le=100)
    minCandidateNodesAbsolute: int = Field(100, ge=0)
    attemptsPerTick: int = Field(100, ge=1, description="simulation only: scheduling cycles per tick")

    @model_validator(mode="after")
    def _backoff(self) -> "SchedulerSettings":
        if self.podMaxBackoffSeconds < self.podInitialBackoffSeconds:
            raise ValueError("podMaxBackoffSeconds must be at least podInitialBackoffSeconds")
        return self


class PriorityGroup(Strict):
    priority: int
    shutdownGracePeriodSeconds: int = Field(ge=0)


class KubeletSettings(Strict):
    """KubeletConfiguration fields. Unset fields fall back to the cluster-wide [kubelet] table."""

    nodeStatusUpdateFrequency: Duration | None = None
    nodeStatusReportFrequency: Duration | None = None
    nodeLeaseDurationSeconds: int | None = Field(None, gt=0)
    shutdownGracePeriod: Duration | None = None
    shutdownGracePeriodCriticalPods: Duration | None = None
    shutdownGracePeriodByPodPriority: list[PriorityGroup] | None = None
    maxPods: int | None = Field(None, gt=0)

    @model_validator(mode="after")
    def _checks(self) -> "KubeletSettings":
        if self.nodeStatusUpdateFrequency is not None and self.nodeStatusUpdateFrequency <= 0:
            raise ValueError("nodeStatusUpdateFrequency must be greater than 0s")
        total, critical = self.shutdownGracePeriod, self.shutdownGracePeriodCriticalPods
        if total is not None and critical is not None and critical > total:
            raise ValueError(
                f"shutdownGracePeriodCriticalPods ({format_duration(critical)}) must not exceed shutdownGracePeriod "
                f"({format_duration(total)}); the kubelet would refuse this as a wrong configuration"
            )
        if self.shutdownGracePeriodByPodPriority and (total or critical):
            raise ValueError(
                "shutdownGracePeriodByPodPriority cannot be combined with shutdownGracePeriod or shutdownGracePeriodCriticalPods"
            )
        return self


class PriorityClassSpec(Strict):
    name: Name
    value: int = Field(ge=-2_147_483_648)
    globalDefault: bool = False
    preemptionPolicy: Literal["PreemptLowerPriority", "Never"] = "PreemptLowerPriority"
    description: str = ""

    @model_validator(mode="after")
    def _user_class(self) -> "PriorityClassSpec":
        if self.name.startswith("system-"):
            raise ValueError(f"priority class names starting with \"system-\" are reserved, got {self.name!r}")
        if self.value > 1_000_000_000:
            raise ValueError(f"user priority classes may have a value of at most 1000000000, got {self.value}")
        return self


class Capacity(Strict):
    cpu: Cpu
    memory: Memory
    pods: Count = 110


class Requests(Strict):
    cpu: Cpu = 0
    memory: Memory = 0


class TolerationSpec(Strict):
    key: str = ""
    operator: Literal["Equal", "Exists"] = "Equal"
    value: str = ""
    effect: Literal["", "NoSchedule", "PreferNoSchedule", "NoExecute"] = ""
    tolerationSeconds: int | None = None

    @model_validator(mode="after")
    def _shape(self) -> "TolerationSpec":
        # pkg/apis/core/validation, validateTolerations: its checks, order and messages
        error = qualified_name_error(self.key, "toleration key") if self.key else None
        if error:
            raise ValueError(error)
        if not self.key and self.operator != "Exists":
            raise ValueError("operator must be Exists when `key` is empty, which means \"match all values and all "
                             "keys\"")
        if self.tolerationSeconds is not None and self.effect != "NoExecute":
            raise ValueError("effect must be 'NoExecute' when `tolerationSeconds` is set")
        if self.operator == "Exists" and self.value:
            raise ValueError("value must be empty when `operator` is 'Exists'")
        error = label_value_error(self.value, "toleration value") if self.operator == "Equal" else None
        if error:
            raise ValueError(error)
        return self


class NodeSelectorRequirementSpec(Strict):
    """v1.NodeSelectorRequirement, validated as the API server does."""

    key: str = Field(min_length=1)
    operator: Literal["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"]
    values: list[str] = []

    @model_validator(mode="after")
    def _values(self) -> "NodeSelectorRequirementSpec":
        if self.operator in ("In", "NotIn") and not self.values:
            raise ValueError(f"operator {self.operator} needs at least one value")
        if self.operator in ("Exists", "DoesNotExist") and self.values:
            raise ValueError(f"operator {self.operator} must not have values")
        if self.operator in ("Gt", "Lt"):
            if len(self.values) != 1 or not re.fullmatch(r"-?\d+", self.values[0].strip()):
                raise ValueError(f"operator {self.operator} needs exactly one integer value, e.g. values = [\"4\"]")
        return self


class NodeSelectorTermSpec(Strict):
    """Requirements ANDed; matchFields may only name metadata.name (operators In / NotIn, one value)."""

    matchExpressions: list[NodeSelectorRequirementSpec] = []
    matchFields: list[NodeSelectorRequirementSpec] = []

    @model_validator(mode="after")
    def _fields(self) -> "NodeSelectorTermSpec":
        for req in self.matchFields:
            if req.key != "metadata.name":
                raise ValueError(f"matchFields supports only the key metadata.name, got {req.key!r}")
            if req.operator not in ("In", "NotIn") or len(req.values) != 1:
                raise ValueError("a metadata.name field selector needs operator In or NotIn and exactly one value")
        return self


class NodeSelectorSpec(Strict):
    nodeSelectorTerms: list[NodeSelectorTermSpec] = Field(min_length=1)


class PreferredSchedulingTermSpec(Strict):
    weight: int = Field(ge=1, le=100)
    preference: NodeSelectorTermSpec


class NodeAffinitySpec(Strict):
    requiredDuringSchedulingIgnoredDuringExecution: NodeSelectorSpec | None = None
    preferredDuringSchedulingIgnoredDuringExecution: list[PreferredSchedulingTermSpec] = []


class LabelSelectorRequirementSpec(Strict):
    """metav1.LabelSelectorRequirement, validated as ValidateLabelSelectorRequirement does."""

    key: str
    operator: Literal["In", "NotIn", "Exists", "DoesNotExist"]
    values: list[str] = []

    @model_validator(mode="after")
    def _shape(self) -> "LabelSelectorRequirementSpec":
        error = qualified_name_error(self.key, "key")
        if error:
            raise ValueError(error)
        if self.operator in ("In", "NotIn") and not self.values:
            raise ValueError("values: must be specified when `operator` is 'In' or 'NotIn'")
        if self.operator in ("Exists", "DoesNotExist") and self.values:
            raise ValueError("values: may not be specified when `operator` is 'Exists' or 'DoesNotExist'")
        for value in self.values:
            error = label_value_error(value, "values")
            if error:
                raise ValueError(error)
        return self


class LabelSelectorSpec(Strict):
    """metav1.LabelSelector: matchLabels and matchExpressions, ANDed; {} selects every pod."""

    matchLabels: Labels = {}
    matchExpressions: list[LabelSelectorRequirementSpec] = []


class PodAffinityTermSpec(Strict):
    """v1.PodAffinityTerm. namespaceSelector is refused: the playground models no Namespace objects
    (and so no namespace labels); list the namespaces in `namespaces` instead."""

    labelSelector: LabelSelectorSpec | None = None
    namespaces: list[str] = []
    namespaceSelector: dict[str, Any] | None = None
    topologyKey: str = ""

    @model_validator(mode="after")
    def _shape(self) -> "PodAffinityTermSpec":
        # pkg/apis/core/validation, validatePodAffinityTerm
        if self.namespaceSelector is not None:
            raise ValueError("namespaceSelector: not supported: the playground models no Namespace objects or "
                             "their labels; list the namespaces in `namespaces` instead")
        for namespace in self.namespaces:
            error = label_error(namespace, "namespaces")
            if error:
                raise ValueError(error)
        if not self.topologyKey:
            raise ValueError("topologyKey: Required value: can not be empty")
        error = qualified_name_error(self.topologyKey, "topologyKey")
        if error:
            raise ValueError(error)
        return self


class WeightedPodAffinityTermSpec(Strict):
    weight: int
    podAffinityTerm: PodAffinityTermSpec

    @field_validator("weight")
    @classmethod
    def _weight(cls, value: int) -> int:
        if not 1 <= value <= 100:
            raise ValueError(f"weight: Invalid value: {value}: must be in the range 1-100")
        return value


class PodAffinitySpec(Strict):
    """v1.PodAffinity / v1.PodAntiAffinity: required terms (ANDed) and weighted preferred terms."""

    requiredDuringSchedulingIgnoredDuringExecution: list[PodAffinityTermSpec] = []
    preferredDuringSchedulingIgnoredDuringExecution: list[WeightedPodAffinityTermSpec] = []


class AffinitySpec(Strict):
    """spec.affinity: nodeAffinity, podAffinity and podAntiAffinity."""

    nodeAffinity: NodeAffinitySpec | None = None
    podAffinity: PodAffinitySpec | None = None
    podAntiAffinity: PodAffinitySpec | None = None


class TopologySpreadConstraintSpec(Strict):
    """v1.TopologySpreadConstraint, validated as ValidateTopologySpreadConstraints does (its checks
    and messages)."""

    maxSkew: int
    topologyKey: str = ""
    whenUnsatisfiable: str = ""
    labelSelector: LabelSelectorSpec | None = None
    minDomains: int | None = None
    nodeAffinityPolicy: str | None = None
    nodeTaintsPolicy: str | None = None
    matchLabelKeys: list[str] = []

    @model_validator(mode="after")
    def _shape(self) -> "TopologySpreadConstraintSpec":
        if self.maxSkew <= 0:
            raise ValueError(f"maxSkew: Invalid value: {self.maxSkew}: must be greater than zero")
        if not self.topologyKey:
            raise ValueError("topologyKey: Required value: can not be empty")
        error = qualified_name_error(self.topologyKey, "topologyKey")
        if error:
            raise ValueError(error)
        if self.whenUnsatisfiable not in ("DoNotSchedule", "ScheduleAnyway"):
            raise ValueError(f"whenUnsatisfiable: Unsupported value: {self.whenUnsatisfiable!r}: supported values: "
                             "\"DoNotSchedule\", \"ScheduleAnyway\"")
        if self.minDomains is not None:
            if self.minDomains <= 0:
                raise ValueError(f"minDomains: Invalid value: {self.minDomains}: must be greater than zero")
            if self.whenUnsatisfiable != "DoNotSchedule":
                raise ValueError(f"minDomains: Invalid value: {self.minDomains}: can only use minDomains if "
                                 f"whenUnsatisfiable=DoNotSchedule, not {self.whenUnsatisfiable}")
        for name in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
            value = getattr(self, name)
            if value is not None and value not in ("Honor", "Ignore"):
                raise ValueError(f"{name}: Unsupported value: {value!r}: supported values: \"Honor\", \"Ignore\"")
        if self.matchLabelKeys:
            if self.labelSelector is None:
                raise ValueError("matchLabelKeys: Forbidden: must not be specified when labelSelector is not set")
            seen = set()
            for key in self.matchLabelKeys:
                error = qualified_name_error(key, "matchLabelKeys")
                if error:
                    raise ValueError(error)
                if key in self.labelSelector.matchLabels or any(
                        r.key == key for r in self.labelSelector.matchExpressions):
                    raise ValueError(f"matchLabelKeys: Invalid value: {key!r}: exists in both matchLabelKeys and "
                                     "labelSelector")
                if key in seen:
                    raise ValueError(f"matchLabelKeys: Duplicate value: {key!r}")
                seen.add(key)
        return self


class PodSpecFields(Strict):
    """What a pod template may say (a subset of the Pod spec, plus two simulation-only timings)."""

    labels: Labels = {}
    priorityClassName: str = ""
    priority: int | None = None
    requests: Requests = Requests()
    tolerations: list[TolerationSpec] = []
    nodeSelector: Labels = {}
    affinity: AffinitySpec | None = None
    topologySpreadConstraints: list[TopologySpreadConstraintSpec] = []
    terminationGracePeriodSeconds: int = Field(30, ge=0)
    startDuration: Duration = Field(1000, description="simulation only: how long the containers take to start")
    stopDuration: Duration | None = Field(None, description="simulation only: how long the app takes to exit after SIGTERM")
    emptyDir: bool = False

    @model_validator(mode="after")
    def _priority(self) -> "PodSpecFields":
        if self.priority is not None and self.priorityClassName:
            raise ValueError("give either priorityClassName or priority, not both")
        return self

    @model_validator(mode="after")
    def _spread_pairs(self) -> "PodSpecFields":
        # ValidateTopologySpreadConstraints: a {topologyKey, whenUnsatisfiable} pair at most once
        seen = set()
        for i, c in enumerate(self.topologySpreadConstraints):
            pair = (c.topologyKey, c.whenUnsatisfiable)
            if pair in seen:
                raise ValueError(f"topologySpreadConstraints[{i}]: Duplicate value: "
                                 f"\"{{{c.topologyKey}, {c.whenUnsatisfiable}}}\"")
            seen.add(pair)
        return self


class NodeSpec(Strict):
    # factories, not default values: pydantic deep-copies a mutable default for each of 5,000 nodes
    name: Name
    # the [[nodeShapes]] entry this node is made of: then it gives nothing else but its name
    shape: str | None = None
    labels: Labels = Field(default_factory=dict)
    capacity: Capacity | None = Field(None, validate_default=True)
    allocatable: Capacity | None = None
    taints: NodeTaints = Field(default_factory=list)
    unschedulable: bool = False
    kubelet: KubeletSettings = Field(default_factory=KubeletSettings)

    @field_validator("capacity")
    @classmethod
    def _capacity(cls, value: "Capacity | None", info) -> "Capacity | None":
        if value is None and info.data.get("shape") is None:
            raise PydanticCustomError("missing", "Field required")  # a node of its own needs a capacity
        return value

    @model_validator(mode="after")
    def _shape_alone(self) -> "NodeSpec":
        if self.shape is not None and len(self.model_fields_set) > 2:  # (name and shape)
            own = [key for key in NodeSpec.model_fields if key not in ("name", "shape") and key in self.model_fields_set]
            raise ValueError(f"a node with `shape` takes {', '.join(own)} from its [[nodeShapes]] entry: give them "
                             "there, or drop `shape` and give every key here")
        return self


class NodeShapeSpec(Strict):
    """What the nodes of one shape share (a node group's machine type, labels, zone, taints and
    kubelet settings): a [[nodes]] entry with `shape = "<name>"` is a node of this shape. `playground
    import` writes a big cluster's nodes so, each in its place in the list, in one line of its own."""

    name: Name
    labels: Labels = Field(default_factory=dict)
    capacity: Capacity
    allocatable: Capacity | None = None
    taints: NodeTaints = Field(default_factory=list)
    unschedulable: bool = False
    kubelet: KubeletSettings = Field(default_factory=KubeletSettings)


class NodePoolSpec(Strict):
    namePrefix: str  # checked with count by the loader (validation.prefix_error), to name the key
    count: int = Field(gt=0, le=MAX_NODE_POOL)
    labels: Labels = Field(default_factory=dict)
    capacity: Capacity
    allocatable: Capacity | None = None
    taints: NodeTaints = Field(default_factory=list)
    unschedulable: bool = False
    kubelet: KubeletSettings = Field(default_factory=KubeletSettings)

    def names(self) -> list[str]:
        return [f"{self.namePrefix}{i}" for i in range(1, self.count + 1)]


class DeploymentSpec(Strict):
    name: Name
    namespace: Namespace = "default"
    replicas: Replicas
    template: PodSpecFields
    # apps/v1 DeploymentSpec fields, with the API server's defaults
    strategy: DeploymentStrategySpec = Field(default_factory=lambda: DeploymentStrategySpec())
    minReadySeconds: int = Field(0, ge=0)
    progressDeadlineSeconds: int | None = Field(600, ge=1)
    revisionHistoryLimit: int = Field(10, ge=0)
    paused: bool = False

    @model_validator(mode="after")
    def _deadline(self) -> "DeploymentSpec":
        if self.progressDeadlineSeconds is not None and self.progressDeadlineSeconds <= self.minReadySeconds:
            raise ValueError("progressDeadlineSeconds must be greater than minReadySeconds")
        return self


class DaemonSetSpec(Strict):
    name: Name
    namespace: Namespace = "default"
    template: PodSpecFields


class StatefulSetSpec(Strict):
    """apps/v1 StatefulSet: pods <name>-0 .. <name>-(replicas-1), each with its own ReadWriteOnce
    volume, the claim <volumeClaimTemplate>-<pod name> (no volume when volumeClaimTemplate = "")."""

    name: StatefulSetName
    namespace: Namespace = "default"
    replicas: Replicas
    template: PodSpecFields
    volumeClaimTemplate: str = "data"
    podManagementPolicy: Literal["OrderedReady", "Parallel"] = "OrderedReady"


OWNER_PATTERN = r"^(Deployment|DaemonSet|StatefulSet)/[a-z0-9]([-a-z0-9.]*[a-z0-9])?$"


class PodSpec(PodSpecFields):
    name: Name
    namespace: Namespace = "default"
    nodeName: str | None = None
    at: Time | None = None
    # An existing pod of a workload ("Deployment/web", "DaemonSet/fluentd", "StatefulSet/db", in the pod's
    # namespace), as `playground import` writes it: the controller counts it as one of its replicas
    # instead of creating one. Without pod fields of its own it takes the workload's template.
    owner: str | None = Field(None, pattern=OWNER_PATTERN)
    # a static pod's mirror (annotation kubernetes.io/config.mirror): kubectl drain skips it
    mirror: bool = False


# an owned pod's line: its name and its node, both DNS-1123 subdomains (checked one by one when this
# quick form does not match: subdomain_error then says what is wrong)
_OWNED_LINE = re.compile(r"[ \t]*([a-z0-9][-a-z0-9.]{0,251}[a-z0-9]|[a-z0-9])[ \t]+([a-z0-9][-a-z0-9.]{0,251}[a-z0-9]|[a-z0-9])[ \t]*\r?")
# the same, for every line of a text at once (a line ends at a newline; `$` alone would also match
# before a newline ending the text)
_OWNED_LINES = re.compile(r"^" + _OWNED_LINE.pattern + r"(?:\n|\Z)", re.MULTILINE)
_OWNED_ENTRIES: dict[str, list[tuple[int, str, str]]] = {}


def owned_pod_entries(text: str) -> list[tuple[int, str, str]]:
    """The pods of an [[ownedPods]] list: (line index within the text, pod name, node name) per
    non-blank line. Raises OwnedLineError for a line that is not "<pod name> <node name>". Kept for
    the last few texts: validation, the loader's checks and the engine's build read one list (from
    copies of the text: a long one is hashed once per copy)."""
    cached = _OWNED_ENTRIES.get(text)
    if cached is not None:
        return cached
    entries = _owned_entries_at_once(text)
    if entries is None:
        entries = _owned_entries_by_line(text)
    if len(_OWNED_ENTRIES) >= 64:
        _OWNED_ENTRIES.clear()
    _OWNED_ENTRIES[text] = entries
    return entries


def _owned_entries_at_once(text: str) -> list[tuple[int, str, str]] | None:
    """owned_pod_entries of a list as `playground import` writes it (every line a pod, but blank
    lines at its end), with two passes of the regular expression over the whole text instead of
    three matches a line; None for any other list (then _owned_entries_by_line decides). A name that
    _OWNED_LINE accepts is a DNS-1123 subdomain unless it holds "..", ".-" or "-." (a label empty,
    or starting or ending with "-"): absent from the whole text, no name needs its own check."""
    end = text.find("\n", len(text.rstrip(" \t\r\n")))  # the blank lines at the end left out
    body = text if end < 0 else text[:end]
    if not body.strip() or ".." in body or ".-" in body or "-." in body:
        return None
    pairs = _OWNED_LINES.findall(body)
    if len(pairs) != body.count("\n") + 1:
        return None  # a line the quick form does not match, or a blank one inside the list
    return [(index, name, node) for index, (name, node) in enumerate(pairs)]


def _owned_entries_by_line(text: str) -> list[tuple[int, str, str]]:
    entries: list[tuple[int, str, str]] = []
    append = entries.append
    fullmatch = _OWNED_LINE.fullmatch
    subdomain = DNS1123_SUBDOMAIN.fullmatch
    for index, line in enumerate(text.split("\n")):
        match = fullmatch(line)
        if match is not None:
            name, node = match.group(1, 2)
            if subdomain(name) and subdomain(node):
                append((index, name, node))
                continue
        elif not line.strip(" \t\r"):
            continue
        raise OwnedLineError(index, _owned_line_error(line))
    return entries


def _owned_line_error(line: str) -> str:
    fields = line.split()
    if len(fields) != 2:
        return f"{line.strip()!r}: expected a pod name and its node name, separated by spaces"
    return subdomain_error(fields[0], "pod name") or subdomain_error(fields[1], "node name") or "invalid line"


class OwnedLineError(ValueError):
    def __init__(self, index: int, message: str) -> None:
        super().__init__(message)
        self.index = index


class OwnedPodsSpec(Strict):
    """Existing pods of one workload, compactly, as `playground import` writes a cluster's pods: one
    pod a line in `pods`, its name and its node. Each is created at t=0, after the [[pods]] entries,
    as a [[pods]] entry of that name, namespace, nodeName and owner would be."""

    owner: str = Field(pattern=OWNER_PATTERN)
    namespace: Namespace = "default"
    pods: str

    @field_validator("pods")
    @classmethod
    def _lines(cls, value: str) -> str:
        if value.count("\n") > MAX_REPLICAS + 1000:  # (blank lines allowed) before parsing a huge list
            raise ValueError(f"at most {MAX_REPLICAS} pods a list, as a workload has at most that many replicas")
        try:
            entries = owned_pod_entries(value)
        except OwnedLineError as exc:
            raise PydanticCustomError("owned_pod_line", "{message}", {"message": str(exc), "line": exc.index}) \
                from None
        if len(entries) > MAX_REPLICAS:
            raise ValueError(f"{len(entries)} pods: at most {MAX_REPLICAS} a list, as a workload has at most that "
                             "many replicas")
        return value

    def entries(self) -> list[tuple[int, str, str]]:
        return owned_pod_entries(self.pods)

    def pod_specs(self) -> list["PodSpec"]:
        """The [[pods]] entries these lines stand for."""
        return [PodSpec(name=name, namespace=self.namespace, nodeName=node, owner=self.owner)
                for _index, name, node in self.entries()]


def _int_or_percent(value: int | str) -> int | str:
    if isinstance(value, bool):
        raise ValueError("expected a number of pods or a percentage such as \"50%\"")
    if isinstance(value, int):
        if value < 0:
            raise ValueError("must not be negative")
        return value
    if isinstance(value, str) and re.fullmatch(r"\d{1,3}%", value.strip()) and int(value.strip()[:-1]) <= 100:
        return value.strip()
    raise ValueError(f"{value!r} is neither a number of pods nor a percentage such as \"50%\"")


IntOrPercent = Annotated[int | str, BeforeValidator(_int_or_percent)]


class RollingUpdateSpec(Strict):
    maxSurge: IntOrPercent = "25%"
    maxUnavailable: IntOrPercent = "25%"

    @model_validator(mode="after")
    def _not_both_zero(self) -> "RollingUpdateSpec":
        if self.maxSurge in (0, "0%") and self.maxUnavailable in (0, "0%"):
            raise ValueError("maxUnavailable may not be 0 when maxSurge is 0 (the rollout could never make progress)")
        return self


class DeploymentStrategySpec(Strict):
    """spec.strategy: RollingUpdate (maxSurge / maxUnavailable, counts or percentages) or Recreate."""

    type: Literal["RollingUpdate", "Recreate"] = "RollingUpdate"
    rollingUpdate: RollingUpdateSpec | None = None

    @model_validator(mode="after")
    def _recreate(self) -> "DeploymentStrategySpec":
        if self.type == "Recreate" and self.rollingUpdate is not None:
            raise ValueError("rollingUpdate may not be given when the strategy type is Recreate")
        return self


class PodDisruptionBudgetSpec(Strict):
    name: Name
    namespace: Namespace = "default"
    selector: Labels
    minAvailable: IntOrPercent | None = None
    maxUnavailable: IntOrPercent | None = None
    unhealthyPodEvictionPolicy: Literal["IfHealthyBudget", "AlwaysAllow"] | None = None

    @model_validator(mode="after")
    def _one_of(self) -> "PodDisruptionBudgetSpec":
        if (self.minAvailable is None) == (self.maxUnavailable is None):
            raise ValueError("give exactly one of minAvailable and maxUnavailable")
        if not self.selector:
            raise ValueError("a PodDisruptionBudget with an empty selector matches no pods; give a selector")
        return self


OPERATIONS = (
    "power-off", "power-on", "shutdown", "partition", "heal", "stop-kubelet", "start-kubelet", "restart-kubelet",
    "cordon", "uncordon", "drain", "cancel-drain", "delete-node", "taint", "untaint", "create-pod", "delete-pod",
    "scale", "rollout", "rollout-undo", "pause-rollout", "resume-rollout", "set-strategy",
)
ROLLOUT_OPERATIONS = ("rollout", "rollout-undo", "pause-rollout", "resume-rollout", "set-strategy")
_SELECTOR_PART = re.compile(r"^\s*[A-Za-z0-9][-A-Za-z0-9_./]*\s*(==|=|!=)\s*[-A-Za-z0-9_.]*\s*$")
DRAIN_KEYS = ("ignoreDaemonsets", "deleteEmptydirData", "force", "timeout", "disableEviction", "podSelector",
              "skipWaitForDeleteTimeout")


_OPERATION_KEYS = {
    "create-pod": ("pod", "namespace", "node", "spec"),
    "delete-pod": ("pod", "namespace", "gracePeriodSeconds"),
    "scale": ("deployment", "namespace", "replicas"),
    "taint": ("node", "taint", "overwrite"),
    "untaint": ("node", "taint"),
    "drain": ("node", "gracePeriodSeconds") + DRAIN_KEYS,
    "rollout": ("deployment", "namespace", "spec"),
    "rollout-undo": ("deployment", "namespace"),
    "pause-rollout": ("deployment", "namespace"),
    "resume-rollout": ("deployment", "namespace"),
    "set-strategy": ("deployment", "namespace", "strategy"),
}


class TimelineEntry(Strict):
    at: Time
    do: str
    node: Name | None = None
    taint: str | None = None
    # kubectl taint --overwrite: replace a taint with the same key and effect
    overwrite: bool | None = None
    pod: PodRef | None = None
    namespace: Namespace = "default"
    deployment: Name | None = None
    replicas: Replicas | None = None
    gracePeriodSeconds: int | None = Field(None, ge=0)
    spec: PodSpecFields | None = None
    # A live operation of a saved session: it takes effect at `at` after that instant's controllers
    # (after every timer due at `at`), where the user applied it, instead of before them.
    afterControllers: bool | None = None
    # kubectl drain's flags, camelCased (--ignore-daemonsets is ignoreDaemonsets, --grace-period is the
    # gracePeriodSeconds above, --timeout a duration, --skip-wait-for-delete-timeout seconds).
    ignoreDaemonsets: bool | None = None
    deleteEmptydirData: bool | None = None
    force: bool | None = None
    timeout: Duration | None = None
    disableEviction: bool | None = None
    podSelector: str | None = None
    skipWaitForDeleteTimeout: int | None = Field(None, ge=0)
    strategy: DeploymentStrategySpec | None = None  # set-strategy: the new spec.strategy

    @model_validator(mode="after")
    def _rollout_needs(self) -> "TimelineEntry":
        if self.do in ROLLOUT_OPERATIONS and not self.deployment:
            raise ValueError(f"operation {self.do!r} needs a deployment")
        if (self.do == "set-strategy") != (self.strategy is not None):
            raise ValueError("operation 'set-strategy' needs a strategy, and only it takes one")
        return self

    @model_validator(mode="after")
    def _needs(self) -> "TimelineEntry":
        from difflib import get_close_matches

        if self.do not in OPERATIONS:
            close = get_close_matches(self.do, OPERATIONS, n=1)
            hint = f"; did you mean \"{close[0]}\"?" if close else f"; one of: {', '.join(OPERATIONS)}"
            raise ValueError(f"unknown operation {self.do!r}{hint}")
        needs_node = {"power-off", "power-on", "shutdown", "partition", "heal", "stop-kubelet", "start-kubelet",
                      "restart-kubelet", "cordon", "uncordon", "drain", "cancel-drain", "delete-node", "taint",
                      "untaint"}
        if self.do in needs_node and not self.node:
            raise ValueError(f"operation {self.do!r} needs a node")
        if self.do in ("taint", "untaint") and not self.taint:
            raise ValueError(f"operation {self.do!r} needs a taint such as \"dedicated=db:NoSchedule\"")
        if self.do == "taint":
            parse_taint_spec(self.taint or "")
        if self.do == "untaint":
            parse_taint_spec(removal_spec(self.taint or ""))
        if self.do in ("create-pod", "delete-pod") and not self.pod:
            raise ValueError(f"operation {self.do!r} needs a pod name")
        if self.do == "scale" and (not self.deployment or self.replicas is None):
            raise ValueError("operation 'scale' needs a deployment and replicas")
        uses = _OPERATION_KEYS.get(self.do, ("node",))
        given = [key for key in self.model_fields_set - {"at", "do", "afterControllers"}
                 if getattr(self, key) is not None and key not in uses
                 and not (key == "namespace" and self.namespace == "default")]
        if given:
            raise ValueError(f"{', '.join(sorted(given))} {'does' if len(given) == 1 else 'do'} not apply to operation "
                             f"{self.do!r} (it takes {', '.join(uses)})")
        if self.podSelector is not None and self.podSelector.strip() and not all(
                _SELECTOR_PART.match(part) for part in self.podSelector.split(",")):
            raise ValueError(f"podSelector {self.podSelector!r} is not a label selector such as \"app=web,tier!=db\"")
        return self


class EventMatch(Strict):
    reason: str
    object: str | None = None
    type: Literal["Normal", "Warning"] | None = None
    message: str | None = None
    time: Duration | None = None


class PodsMatch(Strict):
    selector: dict[str, str] = {}
    namespace: str | None = None
    node: str | None = None
    notNode: str | None = None
    phase: Literal["Pending", "Running", "Succeeded", "Failed"] | None = None
    deleting: bool | None = None
    ready: bool | None = None
    count: int = Field(ge=0)


class Expectation(Strict):
    at: Time
    description: str = ""
    node: str | None = None
    conditions: dict[str, Literal["True", "False", "Unknown"]] | None = None
    taints: list[TaintString] | None = None
    noTaints: list[TaintString] | None = None
    unschedulable: bool | None = None
    power: Literal["on", "off"] | None = None
    podCount: int | None = None
    zones: dict[str, Literal["Initial", "Normal", "PartialDisruption", "FullDisruption"]] | None = None
    pod: str | None = None
    namespace: str = "default"
    phase: Literal["Pending", "Running", "Succeeded", "Failed", "Gone"] | None = None
    deleting: bool | None = None
    podNode: str | None = None
    nominatedNodeName: str | None = None
    reason: str | None = None
    message: str | None = None
    podConditions: dict[str, Literal["True", "False", "Unknown"]] | None = None
    event: EventMatch | None = None
    noEvent: EventMatch | None = None
    pods: PodsMatch | None = None
    # the drain of `node`: its state, the pods it still waits for, the budget blocking it
    drain: Literal["Draining", "Blocked", "Drained", "Failed", "Cancelled", "None"] | None = None
    drainRemaining: int | None = Field(None, ge=0)
    drainBlockedBy: str | None = None
    containers: int | None = Field(None, ge=0)  # pods whose containers run on the node's machine
    # a PodDisruptionBudget's status ("name" in `namespace`, or "ns/name")
    pdb: str | None = None
    disruptionsAllowed: int | None = None
    currentHealthy: int | None = None
    desiredHealthy: int | None = None
    expectedPods: int | None = None
    # a volume (a claim: "name" in `namespace`, or "ns/name"): the node it is attached to ("" when detached)
    volume: str | None = None
    attachedTo: str | None = None
    # a Deployment's rollout: condition reasons by type ({ Progressing = "ProgressDeadlineExceeded" }),
    # status counts, the revision
    deployment: str | None = None
    deploymentConditions: dict[str, str] | None = None
    updatedReplicas: int | None = Field(None, ge=0)
    availableReplicas: int | None = Field(None, ge=0)
    revision: int | None = Field(None, ge=0)

    @model_validator(mode="after")
    def _deployment_subject(self) -> "Expectation":
        fields = [self.deploymentConditions, self.updatedReplicas, self.availableReplicas, self.revision]
        if any(v is not None for v in fields) != (self.deployment is not None):
            raise ValueError("deploymentConditions, updatedReplicas, availableReplicas and revision go with "
                             "`deployment`, which needs at least one of them")
        return self

    @model_validator(mode="after")
    def _subject(self) -> "Expectation":
        node_fields = [self.conditions, self.taints, self.noTaints, self.unschedulable, self.power, self.podCount,
                       self.drain, self.drainRemaining, self.drainBlockedBy, self.containers]
        pod_fields = [self.phase, self.deleting, self.podNode, self.nominatedNodeName, self.reason, self.message,
                      self.podConditions]
        pdb_fields = [self.disruptionsAllowed, self.currentHealthy, self.desiredHealthy, self.expectedPods]
        if any(v is not None for v in node_fields) and not self.node:
            raise ValueError("conditions, taints, noTaints, unschedulable, power, podCount and drain need `node`")
        if any(v is not None for v in pod_fields) and not self.pod:
            raise ValueError("phase, deleting, podNode, nominatedNodeName, reason, message and podConditions need `pod`")
        if any(v is not None for v in pdb_fields) and not self.pdb:
            raise ValueError("disruptionsAllowed, currentHealthy, desiredHealthy and expectedPods need `pdb`")
        if self.pdb is not None and all(v is None for v in pdb_fields):
            raise ValueError("`pdb` needs a status field to check: disruptionsAllowed, currentHealthy, desiredHealthy "
                             "or expectedPods")
        if (self.volume is None) != (self.attachedTo is None):
            raise ValueError("`volume` and `attachedTo` go together")
        checks = node_fields + pod_fields + pdb_fields + [self.zones, self.event, self.noEvent, self.pods,
                                                          self.attachedTo, self.deployment]
        if all(v is None for v in checks):
            raise ValueError("an expectation must check something: e.g. conditions, taints, zones, event, pods or phase")
        return self


class Scenario(Strict):
    scenario: ScenarioMeta
    controllerManager: ControllerManager = ControllerManager()
    apiServer: APIServerFlags = APIServerFlags()
    scheduler: SchedulerSettings = SchedulerSettings()
    kubelet: KubeletSettings = KubeletSettings()
    priorityClasses: list[PriorityClassSpec] = []
    nodeShapes: list[NodeShapeSpec] = []
    nodes: list[NodeSpec] = []
    nodePools: list[NodePoolSpec] = []
    deployments: list[DeploymentSpec] = []
    daemonSets: list[DaemonSetSpec] = []
    statefulSets: list[StatefulSetSpec] = []
    pods: list[PodSpec] = []
    ownedPods: list[OwnedPodsSpec] = []
    podDisruptionBudgets: list[PodDisruptionBudgetSpec] = []
    timeline: list[TimelineEntry] = []
    expect: list[Expectation] = []

    def pod_specs(self) -> list[PodSpec]:
        """Every pod entry: the [[pods]] entries, then those the [[ownedPods]] lines stand for (the
        order the cluster creates them in)."""
        return [*self.pods, *(spec for group in self.ownedPods for spec in group.pod_specs())]

    def node_specs(self) -> list[tuple[str, "NodeSpec | NodeShapeSpec | NodePoolSpec"]]:
        """Every node, in the order the cluster registers them, with the entry that gives its labels,
        capacity, taints and kubelet settings: its own, its shape's or its pool's."""
        shapes = {shape.name: shape for shape in self.nodeShapes}
        specs: list[tuple[str, NodeSpec | NodeShapeSpec | NodePoolSpec]] = [
            (node.name, shapes[node.shape] if node.shape is not None else node) for node in self.nodes]
        for pool in self.nodePools:
            specs.extend((name, pool) for name in pool.names())
        return specs

    def node_names(self) -> list[str]:
        return [name for name, _spec in self.node_specs()]

    def to_toml_dict(self) -> dict[str, Any]:
        return self.model_dump(by_alias=True, exclude_unset=True, exclude_none=True)
