"""`playground import`: a kubectl dump -> a scenario whose t=0 is the cluster as it was.

Nodes keep their names, labels, taints, unschedulable, capacity and allocatable. Existing pods keep
their names, namespaces, nodes and specs; a pod of an imported Deployment, DaemonSet or StatefulSet
names it as its `owner`, so that controller counts it as a replica instead of creating one (and a
pod identical to its owner's template writes no spec of its own). Whatever the scenario cannot
hold is counted in the import report, which goes to stderr and, as comments, to the top of the file.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from ..scenario.schema import AffinitySpec, PodSpecFields, ScenarioMeta
from ..units import UnitError, format_cpu, format_memory, parse_count, parse_cpu, parse_memory
from .fastpath import owned_pod_lists
from .reader import Dump, Item, ManifestError
from .resources import pod_requests

BUILTIN_CLASSES = ("system-cluster-critical", "system-node-critical")
SUPPORTED_VERSIONS = ("1.31", "1.32", "1.33", "1.34", "1.35")
# Set by `playground export` on the PriorityClass it makes for a bare `priority` (the API server
# only takes a priority through a class): read back as that priority, not as a class.
PRIORITY_ANNOTATION = "cluster-playground.io/pod-priority"
START_ANNOTATION = "cluster-playground.io/start-duration"
STOP_ANNOTATION = "cluster-playground.io/stop-duration"
MIRROR_ANNOTATION = "kubernetes.io/config.mirror"
# Taints the node lifecycle controller and the kubelet manage from conditions and spec.unschedulable:
# the simulated controllers set them again when the condition holds.
CONDITION_TAINTS = ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable",
                    "node.kubernetes.io/unschedulable", "node.kubernetes.io/memory-pressure",
                    "node.kubernetes.io/disk-pressure", "node.kubernetes.io/pid-pressure",
                    "node.kubernetes.io/network-unavailable", "node.kubernetes.io/out-of-service")
# Labels controllers add to the pods they create (not part of their template)
CONTROLLER_LABELS = ("pod-template-hash", "controller-revision-hash", "pod-template-generation",
                     "statefulset.kubernetes.io/pod-name", "apps.kubernetes.io/pod-index")
# Tolerations the API server (DefaultTolerationSeconds) and the DaemonSet controller add to pods;
# the simulated ones add them again.
ADDED_TOLERATIONS = {
    ("node.kubernetes.io/not-ready", "Exists", "", "NoExecute", 300),
    ("node.kubernetes.io/unreachable", "Exists", "", "NoExecute", 300),
}
DAEMON_TOLERATIONS = {
    ("node.kubernetes.io/not-ready", "Exists", "", "NoExecute", None),
    ("node.kubernetes.io/unreachable", "Exists", "", "NoExecute", None),
    ("node.kubernetes.io/disk-pressure", "Exists", "", "NoSchedule", None),
    ("node.kubernetes.io/memory-pressure", "Exists", "", "NoSchedule", None),
    ("node.kubernetes.io/pid-pressure", "Exists", "", "NoSchedule", None),
    ("node.kubernetes.io/unschedulable", "Exists", "", "NoSchedule", None),
    ("node.kubernetes.io/network-unavailable", "Exists", "", "NoSchedule", None),
}
# Pod spec fields the scenario keeps (the rest are counted in the report)
POD_FIELDS_KEPT = {"containers", "initContainers", "overhead", "priorityClassName", "priority", "tolerations",
                   "nodeSelector", "affinity", "terminationGracePeriodSeconds", "nodeName", "volumes",
                   "topologySpreadConstraints", "preemptionPolicy"}
WORKLOAD_KINDS = ("Deployment", "DaemonSet", "StatefulSet")
# the pod spec fields, besides containers and volumes, that decide what a pod imports as
SIGNATURE_KEYS = ("priorityClassName", "priority", "overhead", "tolerations", "nodeSelector", "affinity",
                  "topologySpreadConstraints", "terminationGracePeriodSeconds", "preemptionPolicy")
SOURCE = "__source"  # the dump object an entry came from, for error messages; removed before validation


@dataclass
class Report:
    """What the import could not carry across: notes, and counts of dropped fields by kind."""

    notes: list[str] = field(default_factory=list)
    counts: Counter = field(default_factory=Counter)
    summary: str = ""

    def note(self, text: str) -> None:
        self.notes.append(text)

    def count(self, what: str, n: int = 1) -> None:
        self.counts[what] += n

    def lines(self) -> list[str]:
        out = [self.summary] if self.summary else []
        if self.notes or self.counts:
            out.append("Not represented (the scenario does not hold these):")
            out.extend(f"  - {note}" for note in self.notes)
            out.extend(f"  - {what}: {n} object{'s' if n != 1 else ''}" for what, n in sorted(self.counts.items()))
        else:
            out.append("Everything in the dump is represented.")
        return out


@lru_cache(maxsize=4096)
def _cpu(text) -> int:
    return parse_cpu(text)


@lru_cache(maxsize=4096)
def _memory(text) -> int:
    return parse_memory(text)


def _quantity(read, value, where: str) -> int:
    try:
        return read(value if not isinstance(value, list) else str(value))
    except UnitError as exc:
        raise ManifestError(f"{where}: {exc}") from None
    except TypeError:
        raise ManifestError(f"{where}: expected a quantity such as \"500m\" or \"8Gi\", got {value!r}") from None


def _mapping(value, where: str) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ManifestError(f"{where}: expected a mapping, got {type(value).__name__}")
    return value


def _labels(value, where: str) -> dict[str, str]:
    return {str(k): "" if v is None else str(v) for k, v in _mapping(value, where).items()}


class Importer:
    def __init__(self, dump: Dump, name: str) -> None:
        self.dump = dump
        self.name = name
        self.report = Report()
        self.by_kind: dict[str, list[Item]] = {k: [] for k in
                                               ("Node", "Pod", "Deployment", "ReplicaSet", "DaemonSet",
                                                "StatefulSet", "PodDisruptionBudget", "PriorityClass")}
        for item in dump.items:
            self.by_kind[item.kind].append(item)
        self.classes: dict[str, int] = {}        # representable PriorityClasses: name -> value
        self.priority_only: dict[str, int] = {}  # classes read back as a bare priority
        self.node_names: set[str] = set()
        self.workloads: dict[tuple[str, str, str], dict] = {}  # (kind, namespace, name) -> scenario entry
        self.templates: dict[tuple[str, str, str], dict] = {}  # the same -> its template, normalised
        self.rs_owner: dict[tuple[str, str], str] = {}          # (namespace, ReplicaSet) -> Deployment
        self._counted: list[tuple] = []  # every (fields, counts, [pods]) of _pod_spec_fields
        self._specs: dict[tuple, list] = {}  # (owner, namespace) -> recent (pod spec signature, (fields, counts))
        self._owners: dict[tuple, tuple] = {}  # (namespace, owner reference, pod-template-hash) -> _owner's answer
        self.has_topology = "topologySpreadConstraints" in PodSpecFields.model_fields
        self.has_pod_affinity = "podAffinity" in AffinitySpec.model_fields

    # ---------------------------------------------------------------- top level

    def run(self) -> dict:
        data: dict = {"scenario": {"name": self.name,
                                   "description": f"Imported with `playground import` from {', '.join(self.dump.files)}"}}
        version = self._version()
        if version:
            data["scenario"]["kubernetesVersion"] = version
        for kind, n in sorted(self.dump.skipped.items()):
            self.report.note(f"{n} {kind} object{'s' if n != 1 else ''}: a kind the playground does not model")
        classes = [self._priority_class(item) for item in self.by_kind["PriorityClass"]]
        if classes := [c for c in classes if c]:
            data["priorityClasses"] = classes
        nodes = [self._node(item) for item in self.by_kind["Node"]]
        single, pools = group_pools(nodes)
        shapes, single = group_shapes(single)
        if shapes:
            data["nodeShapes"] = shapes
        if single:
            data["nodes"] = single
        if pools:
            data["nodePools"] = pools
        for item in self.by_kind["ReplicaSet"]:
            self._replicaset(item)
        for kind, key in (("Deployment", "deployments"), ("DaemonSet", "daemonSets"), ("StatefulSet", "statefulSets")):
            entries = [e for e in (self._workload(item) for item in self.by_kind[kind]) if e]
            if entries:
                data[key] = entries
        pods = [p for p in (self._pod(item) for item in self.by_kind["Pod"]) if p]
        for _fields, counts, hits in self._counted:
            for what in counts:
                self.report.count(what, hits[0])
        bare, owned = owned_pod_lists(pods, SOURCE)
        if bare:
            data["pods"] = bare
        if owned:
            data["ownedPods"] = owned
        pdbs = [p for p in (self._pdb(item) for item in self.by_kind["PodDisruptionBudget"]) if p]
        if pdbs:
            data["podDisruptionBudgets"] = pdbs
        owned = sum(1 for p in pods if "owner" in p)
        shaped = sum(1 for node in data.get("nodes", []) if "shape" in node)
        in_shapes = f" ({shaped} of them in {len(shapes)} shape{'s' if len(shapes) != 1 else ''})" if shapes else ""
        self.report.summary = (
            f"Imported {len(nodes)} nodes{in_shapes}, {len(pods)} pods ({owned} of them owned by a workload), "
            f"{len(data.get('deployments', []))} Deployments, {len(data.get('daemonSets', []))} DaemonSets, "
            f"{len(data.get('statefulSets', []))} StatefulSets, {len(pdbs)} PodDisruptionBudgets, "
            f"{len(data.get('priorityClasses', []))} PriorityClasses.")
        return data

    def _version(self) -> str | None:
        if "kubernetesVersion" not in ScenarioMeta.model_fields:
            return None
        versions = Counter()
        for item in self.by_kind["Node"]:
            info = ((item.obj.get("status") or {}).get("nodeInfo") or {})
            match = re.match(r"v?(\d+)\.(\d+)", str(info.get("kubeletVersion", "")))
            if match:
                versions[f"{match.group(1)}.{match.group(2)}"] += 1
        if not versions:
            return None
        found = versions.most_common(1)[0][0]
        if found in SUPPORTED_VERSIONS:
            return found
        nearest = SUPPORTED_VERSIONS[0] if tuple(map(int, found.split("."))) < (1, 31) else SUPPORTED_VERSIONS[-1]
        self.report.note(f"kubelets report Kubernetes {found}; the playground models {SUPPORTED_VERSIONS[0]}.."
                         f"{SUPPORTED_VERSIONS[-1]} and uses {nearest}")
        return nearest

    # ---------------------------------------------------------------- PriorityClasses

    def _priority_class(self, item: Item) -> dict | None:
        obj = item.obj
        value = obj.get("value")
        if not isinstance(value, int) or isinstance(value, bool):
            raise ManifestError(f"{item.source}: {item.ref}: value: expected a whole number, got {value!r}")
        annotations = _mapping(item.metadata.get("annotations"), f"{item.source}: {item.ref}: metadata.annotations")
        if item.name in BUILTIN_CLASSES:
            return None  # the playground has them built in, with the same values
        if PRIORITY_ANNOTATION in annotations:
            self.priority_only[item.name] = value
            return None
        if item.name.startswith("system-") or value > 1_000_000_000:
            self.priority_only[item.name] = value
            self.report.note(f"{item.ref} (value {value}): only the built-in classes may be system-* or above "
                             f"1000000000; its pods keep its value as `priority`")
            return None
        self.classes[item.name] = value
        entry = {"name": item.name, "value": value, SOURCE: item}
        if obj.get("globalDefault"):
            entry["globalDefault"] = True
        if obj.get("preemptionPolicy", "PreemptLowerPriority") != "PreemptLowerPriority":
            entry["preemptionPolicy"] = obj["preemptionPolicy"]
        if obj.get("description"):
            entry["description"] = str(obj["description"])
        return entry

    # ---------------------------------------------------------------- Nodes

    def _node(self, item: Item) -> dict:
        where = f"{item.source}: {item.ref}"
        spec = _mapping(item.obj.get("spec"), f"{where}: spec")
        status = _mapping(item.obj.get("status"), f"{where}: status")
        capacity = _mapping(status.get("capacity"), f"{where}: status.capacity")
        allocatable = _mapping(status.get("allocatable"), f"{where}: status.allocatable")
        if not capacity and not allocatable:
            raise ManifestError(f"{where}: status.capacity is missing; dump nodes with `kubectl get nodes -o yaml`, "
                                f"which prints their status")
        entry: dict = {"name": item.name, SOURCE: item}
        labels = _labels(item.metadata.get("labels"), f"{where}: metadata.labels")
        if labels.get("kubernetes.io/hostname") == item.name:
            del labels["kubernetes.io/hostname"]  # the simulated kubelet sets it to the node name
        if labels:
            entry["labels"] = labels
        cap = self._resources(capacity or allocatable, f"{where}: status.capacity")
        entry["capacity"] = cap
        if allocatable:
            alloc = self._resources(allocatable, f"{where}: status.allocatable")
            if alloc != cap:
                entry["allocatable"] = alloc
        for key in sorted(set(capacity) | set(allocatable)):
            if key not in ("cpu", "memory", "pods"):
                self.report.count(f"Node status.capacity.{key} (only cpu, memory and pods are modelled)")
        taints = []
        for i, taint in enumerate(spec.get("taints") or []):
            taint = _mapping(taint, f"{where}: spec.taints[{i}]")
            key, effect = taint.get("key"), taint.get("effect")
            if not key or not effect:
                raise ManifestError(f"{where}: spec.taints[{i}]: a taint needs a key and an effect")
            if key in CONDITION_TAINTS:
                self.report.count(f"Node taint {key}:{effect} (set by the node lifecycle controller from "
                                  f"conditions; the simulation sets it again when the condition holds)")
                continue
            value = taint.get("value")
            taints.append(f"{key}={value}:{effect}" if value not in (None, "") else f"{key}:{effect}")
        if taints:
            entry["taints"] = taints
        if spec.get("unschedulable"):
            entry["unschedulable"] = True
        for cond in status.get("conditions") or []:
            if isinstance(cond, dict) and cond.get("type") == "Ready" and cond.get("status") != "True":
                self.report.note(f"{item.ref} was Ready={cond.get('status')} in the dump; it starts Ready here "
                                 f"(add a timeline entry, e.g. power-off at 0s, to start it down)")
        self.node_names.add(item.name)
        return entry

    def _resources(self, values: dict, where: str) -> dict:
        if "cpu" not in values or "memory" not in values:
            raise ManifestError(f"{where}: needs cpu and memory")
        out = {"cpu": format_cpu(_quantity(_cpu, values["cpu"], f"{where}.cpu")),
               "memory": format_memory(_quantity(_memory, values["memory"], f"{where}.memory"))}
        if "pods" in values:
            try:
                out["pods"] = parse_count(values["pods"])
            except UnitError as exc:
                raise ManifestError(f"{where}.pods: {exc}") from None
        return out

    # ---------------------------------------------------------------- pod specs

    def _pod_fields(self, spec: dict, labels: dict, annotations: dict, where: str, counts: list[str]) -> dict:
        """The scenario's pod fields of a pod spec; what they cannot hold goes to `counts`."""
        out: dict = {}
        if labels:
            out["labels"] = labels
        name = spec.get("priorityClassName") or ""
        priority = spec.get("priority")
        if name and (name in self.classes or name in BUILTIN_CLASSES):
            out["priorityClassName"] = name
        elif name and name in self.priority_only:
            out["priority"] = self.priority_only[name]
        elif name:
            if priority is not None:
                out["priority"] = priority
            counts.append(f"Pod priorityClassName {name!r} (no such PriorityClass in the dump; "
                              f"{'the pod keeps its priority' if priority is not None else 'priority 0'})")
        elif priority:
            out["priority"] = priority
        try:
            cpu, memory = pod_requests(spec, where)
        except UnitError as exc:
            raise ManifestError(str(exc)) from None
        if cpu or memory:
            out["requests"] = {"cpu": format_cpu(cpu), "memory": format_memory(memory)}
        if spec.get("initContainers"):
            counts.append("Pod init containers (only their effect on the pod's requests is kept)")
        tolerations = []
        for t in spec.get("tolerations") or []:
            entry = {k: t[k] for k in ("key", "operator", "value", "effect", "tolerationSeconds")
                     if t.get(k) not in (None, "")}
            tolerations.append(entry)
        if tolerations:
            out["tolerations"] = tolerations
        if spec.get("nodeSelector"):
            out["nodeSelector"] = _labels(spec["nodeSelector"], f"{where} spec.nodeSelector")
        affinity = _mapping(spec.get("affinity"), f"{where} spec.affinity")
        kept = {}
        for key, value in affinity.items():
            if key == "nodeAffinity" or (key in ("podAffinity", "podAntiAffinity") and self.has_pod_affinity):
                kept[key] = value
            else:
                counts.append(f"Pod spec.affinity.{key} (not modelled yet)")
        if kept:
            out["affinity"] = kept
        if spec.get("topologySpreadConstraints"):
            if self.has_topology:
                out["topologySpreadConstraints"] = spec["topologySpreadConstraints"]
            else:
                counts.append("Pod spec.topologySpreadConstraints (not modelled yet)")
        grace = spec.get("terminationGracePeriodSeconds")
        if grace is not None and grace != 30:
            out["terminationGracePeriodSeconds"] = grace
        for volume in spec.get("volumes") or []:
            kinds = [k for k in volume if k != "name"]
            if "emptyDir" in kinds:
                out["emptyDir"] = True
            elif "persistentVolumeClaim" in kinds and where.startswith("StatefulSet"):
                continue
            else:
                for kind in kinds:
                    counts.append(f"Pod volume {kind} (only emptyDir and a StatefulSet's claim are modelled)")
        for key in spec:
            if key not in POD_FIELDS_KEPT:
                counts.append(f"Pod spec.{key}")
        if spec.get("preemptionPolicy") not in (None, "PreemptLowerPriority") and not name:
            counts.append("Pod spec.preemptionPolicy without a PriorityClass")
        if START_ANNOTATION in annotations:
            out["startDuration"] = annotations[START_ANNOTATION]
        if STOP_ANNOTATION in annotations:
            out["stopDuration"] = annotations[STOP_ANNOTATION]
        return out

    def _template(self, item: Item, where: str) -> dict:
        spec = _mapping(item.obj.get("spec"), f"{where}: spec")
        template = _mapping(spec.get("template"), f"{where}: spec.template")
        if not template:
            raise ManifestError(f"{where}: spec.template is missing; a {item.kind} needs a pod template")
        meta = _mapping(template.get("metadata"), f"{where}: spec.template.metadata")
        pod_spec = _mapping(template.get("spec"), f"{where}: spec.template.spec")
        if "containers" not in pod_spec:
            raise ManifestError(f"{where}: spec.template.spec.containers is missing")
        labels = _labels(meta.get("labels"), f"{where}: spec.template.metadata.labels")
        annotations = _mapping(meta.get("annotations"), f"{where}: spec.template.metadata.annotations")
        counts: list[str] = []
        fields = self._pod_fields(pod_spec, labels, annotations, f"{item.kind} {item.namespace}/{item.name}", counts)
        self.report.counts.update(counts)
        return fields

    # ---------------------------------------------------------------- workloads

    def _replicaset(self, item: Item) -> None:
        for owner in item.metadata.get("ownerReferences") or []:
            if isinstance(owner, dict) and owner.get("kind") == "Deployment":
                self.rs_owner[(item.namespace, item.name)] = owner.get("name", "")

    def _workload(self, item: Item) -> dict | None:
        where = f"{item.source}: {item.ref}"
        spec = _mapping(item.obj.get("spec"), f"{where}: spec")
        if item.kind == "Deployment" and any(k[0] == "Deployment" and k[2] == item.name for k in self.workloads):
            self.report.note(f"{item.ref}: another namespace has a Deployment of the same name, which the "
                             f"playground cannot tell apart; not imported (its pods are kept as bare pods)")
            return None
        template = self._template(item, where)
        entry: dict = {"name": item.name, SOURCE: item}
        if item.namespace != "default":
            entry["namespace"] = item.namespace
        selector = _mapping(spec.get("selector"), f"{where}: spec.selector")
        if selector.get("matchExpressions"):
            self.report.count(f"{item.kind} spec.selector.matchExpressions (the template's labels select its pods)")
        if item.kind in ("Deployment", "StatefulSet"):
            replicas = spec.get("replicas", 1)
            entry["replicas"] = replicas
        entry["template"] = template
        if item.kind == "Deployment":
            strategy = _mapping(spec.get("strategy"), f"{where}: spec.strategy")
            if strategy:
                out = {"type": strategy.get("type", "RollingUpdate")}
                rolling = strategy.get("rollingUpdate")
                if rolling and out["type"] == "RollingUpdate":
                    out["rollingUpdate"] = {k: rolling[k] for k in ("maxSurge", "maxUnavailable") if k in rolling}
                if out != {"type": "RollingUpdate"}:
                    entry["strategy"] = out
            for key in ("minReadySeconds", "progressDeadlineSeconds", "revisionHistoryLimit"):
                if key in spec:
                    entry[key] = spec[key]
            if entry.get("progressDeadlineSeconds") == 2**31 - 1:
                entry["progressDeadlineSeconds"] = None  # math.MaxInt32: no deadline
            if spec.get("paused"):
                entry["paused"] = True
        if item.kind == "StatefulSet":
            claims = spec.get("volumeClaimTemplates") or []
            entry["volumeClaimTemplate"] = ((claims[0].get("metadata") or {}).get("name", "data")) if claims else ""
            if len(claims) > 1:
                self.report.count("StatefulSet volumeClaimTemplates beyond the first")
            if spec.get("podManagementPolicy") == "Parallel":
                entry["podManagementPolicy"] = "Parallel"
        key = (item.kind, item.namespace, item.name)
        self.workloads[key] = entry
        self.templates[key] = _normal(template, item.kind)
        return entry

    # ---------------------------------------------------------------- pods

    def _owner(self, item: Item) -> tuple[str | None, bool, str | None]:
        """(owner "Kind/name" if it is imported, mirror pod?, the controller's kind when not imported)."""
        meta = item.metadata
        annotations = meta.get("annotations") or {}
        refs = [o for o in meta.get("ownerReferences") or [] if isinstance(o, dict)]
        ref = next((o for o in refs if o.get("controller")), refs[0] if refs else None)
        mirror = MIRROR_ANNOTATION in annotations or (ref is not None and ref.get("kind") == "Node")
        if ref is None or ref.get("kind") == "Node":
            return None, mirror, None
        kind, name = ref.get("kind"), ref.get("name", "")
        cache_key = (item.namespace, kind, name, (meta.get("labels") or {}).get("pod-template-hash"), mirror)
        answer = self._owners.get(cache_key)
        if answer is None:
            answer = self._owners[cache_key] = self._resolve_owner(item, kind, name, cache_key[3], mirror)
        return answer

    def _resolve_owner(self, item: Item, kind: str, name: str, rs_hash: str | None,
                       mirror: bool) -> tuple[str | None, bool, str | None]:
        if kind == "ReplicaSet":
            deployment = self.rs_owner.get((item.namespace, name))
            if deployment is None:
                if rs_hash and name.endswith(f"-{rs_hash}"):
                    deployment = name[: -len(rs_hash) - 1]
            if deployment and ("Deployment", item.namespace, deployment) in self.workloads:
                return f"Deployment/{deployment}", mirror, None
            return None, mirror, "ReplicaSet"
        if kind in ("DaemonSet", "StatefulSet") and (kind, item.namespace, name) in self.workloads:
            return f"{kind}/{name}", mirror, None
        return None, mirror, kind

    def _pod(self, item: Item) -> dict | None:
        obj = item.obj
        status = obj.get("status") or {}
        phase = status.get("phase")
        if phase == "Succeeded" or phase == "Failed":
            self.report.count(f"Pod in phase {phase} (holds no capacity; not imported)")
            return None
        spec = obj.get("spec")
        if not isinstance(spec, dict) or "containers" not in spec:
            raise ManifestError(f"{item.source}: {item.ref}: spec.containers is missing; a Pod needs containers")
        meta = obj["metadata"]
        if meta.get("deletionTimestamp"):
            self.report.count("Pod being deleted at the time of the dump (imported as running)")
        owner, mirror, other = self._owner(item)
        if other:
            self.report.count(f"Pod owned by a {other} that is not in the dump or not modelled (kept as a bare pod)")
        entry: dict = {"name": item.name, SOURCE: item}
        if item.namespace != "default":
            entry["namespace"] = item.namespace
        node = spec.get("nodeName")
        if node:
            if node in self.node_names:
                entry["nodeName"] = node
            else:
                self.report.count("Pod on a node that is not in the dump (imported as Pending)")
        if owner:
            entry["owner"] = owner
        if mirror:
            entry["mirror"] = True
        fields = self._pod_spec_fields(item, spec, meta, owner)
        if fields:
            entry.update(fields)
        return entry

    def _pod_spec_fields(self, item: Item, spec: dict, meta: dict, owner: str | None) -> dict | None:
        """A pod's own fields, or None when it is its owner's template as it is now. Pods of one
        workload share their spec but for names (node, token volume): the work is done once per
        distinct spec, and repeated for the report's counts only."""
        labels = meta.get("labels") or {}
        annotations = meta.get("annotations") or {}
        key = (labels if not owner else [kv for kv in labels.items() if kv[0] not in CONTROLLER_LABELS],
               annotations.get(START_ANNOTATION), annotations.get(STOP_ANNOTATION),
               [(c.get("resources"), c.get("restartPolicy")) for c in spec.get("containers") or ()],
               [(c.get("resources"), c.get("restartPolicy")) for c in spec.get("initContainers") or ()],
               [spec.get(k) for k in SIGNATURE_KEYS],
               {k for v in spec.get("volumes") or () for k in v if k != "name"}, list(spec))
        # a few distinct specs per owner at most (a rollout's two templates): compared, not hashed
        variants = self._specs.setdefault((owner, item.namespace if owner else None), [])
        cached = next((result for seen, result in variants if seen == key), None)
        if cached is None:
            counts: list[str] = []
            labels = {k: v for k, v in _labels(labels, f"{item.source}: {item.ref}: metadata.labels").items()
                      if not owner or k not in CONTROLLER_LABELS}
            where = f"{owner.split('/')[0] if owner else 'Pod'} {item.namespace}/{item.name}"
            fields = self._pod_fields(spec, labels, annotations, where, counts)
            if owner:
                kind, _, name = owner.partition("/")
                if _normal(fields, kind) == self.templates[(kind, item.namespace, name)]:
                    fields = None  # created from the template as it is now
                elif kind == "DaemonSet":
                    fields["tolerations"] = [t for t in fields.get("tolerations", [])
                                             if _tol(t) not in DAEMON_TOLERATIONS]
                    if not fields["tolerations"]:
                        del fields["tolerations"]
            cached = (fields, counts, [0])
            self._counted.append(cached)
            variants.append((key, cached))
            if len(variants) > 8:
                del variants[0]
        fields, counts, hits = cached
        hits[0] += 1  # its counts go to the report once, times the pods (Importer.run)
        return dict(fields) if fields is not None else None

    # ---------------------------------------------------------------- PodDisruptionBudgets

    def _pdb(self, item: Item) -> dict | None:
        where = f"{item.source}: {item.ref}"
        spec = _mapping(item.obj.get("spec"), f"{where}: spec")
        selector = _mapping(spec.get("selector"), f"{where}: spec.selector")
        labels = _labels(selector.get("matchLabels"), f"{where}: spec.selector.matchLabels")
        if selector.get("matchExpressions"):
            self.report.note(f"{item.ref}: spec.selector.matchExpressions are not modelled"
                             + ("; not imported" if not labels else "; only matchLabels kept"))
            if not labels:
                return None
        if not labels:
            self.report.note(f"{item.ref}: an empty selector (every pod of its namespace) is not modelled; not imported")
            return None
        entry: dict = {"name": item.name, SOURCE: item}
        if item.namespace != "default":
            entry["namespace"] = item.namespace
        entry["selector"] = labels
        for key in ("minAvailable", "maxUnavailable"):
            if key in spec and spec[key] is not None:
                entry[key] = spec[key]
        if "minAvailable" not in entry and "maxUnavailable" not in entry:
            raise ManifestError(f"{where}: spec needs minAvailable or maxUnavailable")
        if spec.get("unhealthyPodEvictionPolicy"):
            entry["unhealthyPodEvictionPolicy"] = spec["unhealthyPodEvictionPolicy"]
        return entry


def _tol(t: dict) -> tuple:
    return (t.get("key", ""), t.get("operator", "Equal"), t.get("value", ""), t.get("effect", ""),
            t.get("tolerationSeconds"))


def _normal(fields: dict, kind: str) -> dict:
    """Pod fields without what the API server and controllers add, to compare a pod with its template."""
    out = dict(fields)
    tolerations = [t for t in out.get("tolerations", []) if _tol(t) not in ADDED_TOLERATIONS
                   and not (kind == "DaemonSet" and _tol(t) in DAEMON_TOLERATIONS)]
    if tolerations:
        out["tolerations"] = tolerations
    else:
        out.pop("tolerations", None)
    if "labels" in out:
        out["labels"] = {k: v for k, v in out["labels"].items() if k not in CONTROLLER_LABELS}
        if not out["labels"]:
            del out["labels"]
    return out


def group_pools(nodes: list[dict]) -> tuple[list[dict], list[dict]]:
    """Identical nodes named <prefix>1 .. <prefix>N become one [[nodePools]]; every other node
    stays a [[nodes]] entry, so every name survives."""
    groups: dict[tuple, list[dict]] = {}
    for node in nodes:
        match = re.fullmatch(r"(.*?)([1-9][0-9]*)", node["name"])
        if not match:
            continue
        key = (match.group(1), repr(sorted((k, v) for k, v in node.items() if k not in ("name", SOURCE))))
        groups.setdefault(key, []).append(node)
    pooled: set[str] = set()
    pools = []
    for (prefix, _), members in groups.items():
        numbers = sorted(int(m["name"][len(prefix):]) for m in members)
        if len(members) < 2 or numbers != list(range(1, len(members) + 1)):
            continue
        pool = {"namePrefix": prefix, "count": len(members)}
        pool.update({k: v for k, v in members[0].items() if k != "name"})
        pool[SOURCE] = members[0][SOURCE]
        pools.append(pool)
        pooled.update(m["name"] for m in members)
    return [n for n in nodes if n["name"] not in pooled], pools


# What names a shape: the node group (EKS, GKE, AKS, Karpenter), the machine type, the zone.
SHAPE_LABELS = ("eks.amazonaws.com/nodegroup", "cloud.google.com/gke-nodepool", "kubernetes.azure.com/agentpool",
                "karpenter.sh/nodepool", "node.kubernetes.io/instance-type", "topology.kubernetes.io/zone")


def group_shapes(nodes: list[dict]) -> tuple[list[dict], list[dict]]:
    """Nodes alike in all but their name (a node group's machines in one zone) become [[nodes]]
    entries of a name and a shape, in their places, and the shape one [[nodeShapes]] entry: reading
    a node then costs a line instead of fifteen. A node alike to no other stays whole."""
    members: dict[str, list[dict]] = {}
    for node in nodes:
        members.setdefault(_shape_key(node), []).append(node)
    names: dict[str, str] = {}  # shape key -> the shape's name
    shapes = []
    for key, alike in members.items():
        if len(alike) < 2:
            continue
        first = alike[0]
        names[key] = _shape_name(first, set(names.values()))
        shapes.append({"name": names[key], **{k: v for k, v in first.items() if k not in ("name", SOURCE)},
                       SOURCE: first[SOURCE]})
    out = []
    for node in nodes:
        shape = names.get(_shape_key(node))
        out.append({"name": node["name"], "shape": shape, SOURCE: node[SOURCE]} if shape else node)
    return shapes, out


def _shape_key(node: dict) -> str:
    return repr(sorted((k, v) for k, v in node.items() if k not in ("name", SOURCE)))


def _shape_name(node: dict, taken: set[str]) -> str:
    """The node group, machine type and zone of a node, as one DNS label ("general-m5-8xlarge-
    us-east-1a": whatever the label values hold), made unique; the node's own name when its labels
    hold none of them."""
    labels = node.get("labels", {})
    parts = [labels[key] for key in SHAPE_LABELS if labels.get(key)]
    base = re.sub(r"[^a-z0-9]+", "-", "-".join(parts).lower())[:200].strip("-") or node["name"]
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}-{n}"
    return name


def import_dump(dump: Dump, name: str) -> tuple[dict, Report]:
    importer = Importer(dump, name)
    return importer.run(), importer.report


def scenario_name(paths: list[str]) -> str:
    first = next((p for p in paths if p != "-"), "imported")
    return Path(first).stem or "imported"
