"""`playground export`: a scenario as the manifests a real API server accepts, for a kwok (or kind)
cluster, and its timeline as the kubectl commands a user would type.

Nodes are kwok's fake nodes: the annotation kwok.x-k8s.io/node=fake (kwokctl runs kwok with
--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake) and their capacity and allocatable
in status, as kwok's docs create them. Containers run registry.k8s.io/pause and request what the
scenario's pods request; simulation-only timings travel as annotations so that an import of the
export gives the scenario back. A bare `priority` becomes a PriorityClass of that value (the
API server's Priority admission only takes a priority from a class).
"""

from __future__ import annotations

import shlex
from pathlib import Path

import yaml

try:  # libyaml's emitter: 5,000 Nodes took 3 s to write with PyYAML's own
    from yaml import CSafeDumper as SafeDumper
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    from yaml import SafeDumper

from ..scenario.schema import PodSpecFields, Scenario
from ..units import format_cpu, format_duration, format_memory
from .importer import PRIORITY_ANNOTATION, START_ANNOTATION, STOP_ANNOTATION

PAUSE_IMAGE = "registry.k8s.io/pause:3.10"
KWOK_ANNOTATION = "kwok.x-k8s.io/node"
MANAGED_BY = {"app.kubernetes.io/managed-by": "cluster-playground"}
DEFAULT_START = 1000
CLAIM_SIZE = "1Gi"
NO_DEADLINE = 2**31 - 1  # deploymentutil.HasProgressDeadline: math.MaxInt32 means no deadline


def priority_class_name(value: int) -> str:
    return f"priority-{value}" if value >= 0 else f"priority-minus-{-value}"


def _drop_empty(mapping: dict) -> dict:
    return {k: v for k, v in mapping.items() if v not in (None, {}, [], "")}


def pod_spec(fields: PodSpecFields, node_name: str | None = None) -> tuple[dict, dict, dict]:
    """(labels, annotations, pod spec) of a scenario pod template."""
    data = fields.model_dump(by_alias=True, exclude_none=True)
    container: dict = {"name": "app", "image": PAUSE_IMAGE}
    requests = {}
    if fields.requests.cpu:
        requests["cpu"] = format_cpu(fields.requests.cpu)
    if fields.requests.memory:
        requests["memory"] = format_memory(fields.requests.memory)
    if requests:
        container["resources"] = {"requests": requests}
    spec: dict = {}
    if node_name:
        spec["nodeName"] = node_name
    spec["containers"] = [container]
    if fields.priorityClassName:
        spec["priorityClassName"] = fields.priorityClassName
    elif fields.priority is not None:
        spec["priorityClassName"] = priority_class_name(fields.priority)
    if fields.tolerations:
        spec["tolerations"] = [_drop_empty(t) for t in data["tolerations"]]
    if fields.nodeSelector:
        spec["nodeSelector"] = dict(fields.nodeSelector)
    if fields.affinity is not None:
        affinity = _drop_empty(data["affinity"])
        if affinity:
            spec["affinity"] = affinity
    if "topologySpreadConstraints" in data and data["topologySpreadConstraints"]:
        spec["topologySpreadConstraints"] = data["topologySpreadConstraints"]
    spec["terminationGracePeriodSeconds"] = fields.terminationGracePeriodSeconds
    if fields.emptyDir:
        spec["volumes"] = [{"name": "scratch", "emptyDir": {}}]
        container["volumeMounts"] = [{"name": "scratch", "mountPath": "/scratch"}]
    annotations = {}
    if fields.startDuration != DEFAULT_START:
        annotations[START_ANNOTATION] = format_duration(fields.startDuration)
    if fields.stopDuration is not None:
        annotations[STOP_ANNOTATION] = format_duration(fields.stopDuration)
    return dict(fields.labels), annotations, spec


def _template(fields: PodSpecFields, selector: dict) -> dict:
    labels, annotations, spec = pod_spec(fields)
    metadata: dict = {"labels": {**selector, **labels}}
    if annotations:
        metadata["annotations"] = annotations
    return {"metadata": metadata, "spec": spec}


def selector_of(name: str, fields: PodSpecFields) -> dict:
    """A workload's selector: its template's labels (the scenario selects by them); a template
    without labels gets app.kubernetes.io/name, as a selector must not be empty."""
    return dict(fields.labels) or {"app.kubernetes.io/name": name}


def _meta(name: str, namespace: str | None = None, **extra) -> dict:
    meta: dict = {"name": name}
    if namespace is not None:
        meta["namespace"] = namespace
    meta.update(extra)
    return meta


def node_manifest(name: str, spec) -> dict:
    taints = []
    for text in spec.taints:
        from ..scenario.schema import parse_taint

        key, value, effect = parse_taint(text)
        taint = {"key": key, "effect": effect}
        if value:
            taint["value"] = value
        taints.append(taint)
    node_spec: dict = {}
    if taints:
        node_spec["taints"] = taints
    if spec.unschedulable:
        node_spec["unschedulable"] = True

    def resources(cap) -> dict:
        return {"cpu": format_cpu(cap.cpu), "memory": format_memory(cap.memory), "pods": str(cap.pods)}

    manifest = {
        "apiVersion": "v1", "kind": "Node",
        "metadata": _meta(name, annotations={KWOK_ANNOTATION: "fake", "node.alpha.kubernetes.io/ttl": "0"},
                          labels={"kubernetes.io/hostname": name, **spec.labels}),
        "spec": node_spec,
        "status": {"capacity": resources(spec.capacity),
                   "allocatable": resources(spec.allocatable or spec.capacity)},
    }
    if not node_spec:
        del manifest["spec"]
    return manifest


def manifests(scenario: Scenario) -> dict[str, list[dict]]:
    """File name -> the objects it holds, in the order to apply them."""
    classes = []
    for pc in scenario.priorityClasses:
        obj = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": _meta(pc.name),
               "value": pc.value}
        if pc.globalDefault:
            obj["globalDefault"] = True
        if pc.preemptionPolicy != "PreemptLowerPriority":
            obj["preemptionPolicy"] = pc.preemptionPolicy
        if pc.description:
            obj["description"] = pc.description
        classes.append(obj)
    for value in sorted(_bare_priorities(scenario)):
        classes.append({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                        "metadata": _meta(priority_class_name(value), annotations={PRIORITY_ANNOTATION: "true"},
                                          labels=dict(MANAGED_BY)),
                        "value": value,
                        "description": f"priority {value}, given as a bare priority in the scenario"})
    nodes = [node_manifest(name, spec) for name, spec in scenario.node_specs()]
    workloads = []
    for d in scenario.deployments:
        selector = selector_of(d.name, d.template)
        spec: dict = {"replicas": d.replicas, "selector": {"matchLabels": selector},
                      "template": _template(d.template, selector)}
        strategy = d.strategy.model_dump(exclude_none=True)
        if strategy.get("type") == "Recreate":
            strategy.pop("rollingUpdate", None)
        spec["strategy"] = strategy
        spec.update({"minReadySeconds": d.minReadySeconds, "revisionHistoryLimit": d.revisionHistoryLimit})
        # apps/v1 defaults an absent deadline to 600; MaxInt32 is how it says "none"
        spec["progressDeadlineSeconds"] = d.progressDeadlineSeconds if d.progressDeadlineSeconds is not None \
            else NO_DEADLINE
        if d.paused:
            spec["paused"] = True
        workloads.append({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": _meta(d.name, d.namespace),
                          "spec": spec})
    for ds in scenario.daemonSets:
        selector = selector_of(ds.name, ds.template)
        workloads.append({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": _meta(ds.name, ds.namespace),
                          "spec": {"selector": {"matchLabels": selector},
                                   "template": _template(ds.template, selector)}})
    for ss in scenario.statefulSets:
        selector = selector_of(ss.name, ss.template)
        template = _template(ss.template, selector)
        spec = {"serviceName": ss.name, "replicas": ss.replicas, "selector": {"matchLabels": selector},
                "template": template}
        if ss.podManagementPolicy != "OrderedReady":
            spec["podManagementPolicy"] = ss.podManagementPolicy
        if ss.volumeClaimTemplate:
            spec["volumeClaimTemplates"] = [{
                "metadata": {"name": ss.volumeClaimTemplate},
                "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": CLAIM_SIZE}}}}]
            template["spec"]["containers"][0]["volumeMounts"] = [
                *template["spec"]["containers"][0].get("volumeMounts", []),
                {"name": ss.volumeClaimTemplate, "mountPath": "/data"}]
        workloads.append({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": _meta(ss.name, ss.namespace),
                          "spec": spec})
    pdbs = []
    for pdb in scenario.podDisruptionBudgets:
        spec = {"selector": {"matchLabels": dict(pdb.selector)}}
        if pdb.minAvailable is not None:
            spec["minAvailable"] = pdb.minAvailable
        if pdb.maxUnavailable is not None:
            spec["maxUnavailable"] = pdb.maxUnavailable
        if pdb.unhealthyPodEvictionPolicy:
            spec["unhealthyPodEvictionPolicy"] = pdb.unhealthyPodEvictionPolicy
        pdbs.append({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                     "metadata": _meta(pdb.name, pdb.namespace), "spec": spec})
    pods = [pod_manifest(p) for p in scenario.pods if not getattr(p, "owner", None) and not p.at]
    files = {"00-priorityclasses.yaml": classes, "10-nodes.yaml": nodes, "20-workloads.yaml": workloads,
             "30-poddisruptionbudgets.yaml": pdbs, "40-pods.yaml": pods}
    return {name: objs for name, objs in files.items() if objs}


def pod_manifest(spec, name: str | None = None, namespace: str | None = None, node: str | None = None) -> dict:
    labels, annotations, body = pod_spec(spec, node if node is not None else getattr(spec, "nodeName", None))
    meta = _meta(name or spec.name, namespace or getattr(spec, "namespace", "default"))
    if labels:
        meta["labels"] = labels
    if annotations:
        meta["annotations"] = annotations
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": body}


def _bare_priorities(scenario: Scenario) -> set[int]:
    values = set()
    templates = [w.template for w in (*scenario.deployments, *scenario.daemonSets, *scenario.statefulSets)]
    templates += list(scenario.pods)
    templates += [e.spec for e in scenario.timeline if e.spec is not None and e.do == "create-pod"]
    for t in templates:
        if not t.priorityClassName and t.priority is not None:
            values.add(t.priority)
    return values


def to_yaml(objects: list[dict]) -> str:
    return yaml.dump_all(objects, Dumper=SafeDumper, sort_keys=False, default_flow_style=False)


def export(scenario: Scenario, folder: str | Path, speed: float = 1.0) -> list[Path]:
    """Write the manifests and timeline.sh into `folder`; returns the files written."""
    from .timeline import timeline_script

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, objects in manifests(scenario).items():
        path = folder / name
        path.write_text(to_yaml(objects), encoding="utf-8")
        written.append(path)
    script, extra = timeline_script(scenario, speed)
    for name, objects in extra.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(to_yaml(objects), encoding="utf-8")
        written.append(path)
    path = folder / "timeline.sh"
    path.write_text(script, encoding="utf-8")
    path.chmod(0o755)
    written.append(path)
    return written


def shell(*words) -> str:
    return " ".join(shlex.quote(str(w)) for w in words)
