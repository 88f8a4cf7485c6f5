"""Live objects in Kubernetes' own shape (apiVersion, kind, metadata, spec, status), as
`kubectl get -o yaml` prints them, and a small YAML writer for them.

Plain data in, plain data out: the TUI's YAML view uses it, and so can anything headless. Times are
RFC 3339 at a fixed epoch plus the simulated time (the engine never reads the wall clock). Keys come
out sorted, as kubectl's printer sorts them (it goes through JSON maps); fields the simulation does
not model (container images, IPs, nodeInfo) are left out rather than invented, except the one
container every simulated pod stands for.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

from ..units import format_cpu, format_memory
from .objects import uid_text

if TYPE_CHECKING:
    from .objects import Condition, Node, Pod, Taint, Toleration
    from .simulation import Simulation

EPOCH = datetime(2026, 1, 1, tzinfo=timezone.utc)  # the TUI's clock starts here too
CONTAINER = "app"  # the one container a simulated pod stands for
PAUSE_IMAGE = "registry.k8s.io/pause:3.10"


def timestamp(ms: int, epoch: datetime = EPOCH) -> str:
    """metav1.Time as the API serialises it: RFC 3339, whole seconds, UTC."""
    return (epoch + timedelta(milliseconds=ms)).strftime("%Y-%m-%dT%H:%M:%SZ")


def _taint(taint: "Taint", epoch: datetime) -> dict:
    out: dict[str, Any] = {"key": taint.key, "effect": taint.effect}
    if taint.value:
        out["value"] = taint.value
    if taint.time_added is not None:
        out["timeAdded"] = timestamp(taint.time_added, epoch)
    return out


def _toleration(toleration: "Toleration") -> dict:
    out: dict[str, Any] = {}
    if toleration.key:
        out["key"] = toleration.key
    out["operator"] = toleration.operator
    if toleration.value:
        out["value"] = toleration.value
    if toleration.effect:
        out["effect"] = toleration.effect
    if toleration.toleration_seconds is not None:
        out["tolerationSeconds"] = toleration.toleration_seconds
    return out


def _condition(condition: "Condition", epoch: datetime, heartbeat: bool) -> dict:
    out: dict[str, Any] = {"type": condition.type, "status": condition.status}
    if heartbeat and condition.last_heartbeat_time is not None:
        out["lastHeartbeatTime"] = timestamp(condition.last_heartbeat_time, epoch)
    if not heartbeat:
        out["lastProbeTime"] = None  # the API server keeps this null for pods
    if condition.last_transition_time is not None:
        out["lastTransitionTime"] = timestamp(condition.last_transition_time, epoch)
    if condition.reason:
        out["reason"] = condition.reason
    if condition.message:
        out["message"] = condition.message
    return out


def node_manifest(sim: "Simulation", name: str, epoch: datetime = EPOCH) -> dict | None:
    """The Node as the API server holds it now; None when there is no Node object."""
    node: Node | None = sim.store.nodes.get(name)
    if node is None:
        return None
    spec: dict[str, Any] = {}
    if node.taints:
        spec["taints"] = [_taint(t, epoch) for t in node.taints]
    if node.unschedulable:
        spec["unschedulable"] = True
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": node.name,
            "uid": uid_text(node.uid),
            "creationTimestamp": timestamp(node.creation_time, epoch),
            "labels": {"kubernetes.io/hostname": node.name, **node.labels},
        },
        "spec": spec,
        "status": {
            "capacity": {"cpu": format_cpu(node.capacity_cpu), "memory": format_memory(node.capacity_memory),
                         "pods": str(node.capacity_pods)},
            "allocatable": {"cpu": format_cpu(node.allocatable_cpu),
                            "memory": format_memory(node.allocatable_memory), "pods": str(node.allocatable_pods)},
            "conditions": [_condition(c, epoch, heartbeat=True) for c in node.conditions.values()],
        },
    }


def qos_class(pod: "Pod") -> str:
    """The pod's QoS class (requests only, no limits, in the simulation): Burstable or BestEffort."""
    return "Burstable" if pod.cpu or pod.memory else "BestEffort"


def pod_manifest(sim: "Simulation", key: str, epoch: datetime = EPOCH) -> dict | None:
    """The Pod ("namespace/name") as the API server holds it now; None when it is gone."""
    pod: Pod | None = sim.store.pods.get(key)
    if pod is None:
        return None
    metadata: dict[str, Any] = {
        "name": pod.name,
        "namespace": pod.namespace,
        "uid": uid_text(pod.uid),
        "creationTimestamp": timestamp(pod.creation_time, epoch),
    }
    if pod.labels:
        metadata["labels"] = dict(pod.labels)
    if pod.owner is not None:
        api = "v1" if pod.owner.kind == "Node" else "apps/v1"
        metadata["ownerReferences"] = [{"apiVersion": api, "kind": pod.owner.kind, "name": pod.owner.name,
                                        "controller": True, "blockOwnerDeletion": True}]
    if pod.deletion_timestamp is not None:
        metadata["deletionTimestamp"] = timestamp(pod.deletion_timestamp, epoch)
        if pod.deletion_grace_period_seconds is not None:
            metadata["deletionGracePeriodSeconds"] = pod.deletion_grace_period_seconds
    container: dict[str, Any] = {"name": CONTAINER, "image": PAUSE_IMAGE}
    requests = {}
    if pod.cpu:
        requests["cpu"] = format_cpu(pod.cpu)
    if pod.memory:
        requests["memory"] = format_memory(pod.memory)
    container["resources"] = {"requests": requests} if requests else {}
    spec: dict[str, Any] = {
        "containers": [container],
        "priority": pod.priority,
        "preemptionPolicy": pod.preemption_policy,
        "schedulerName": "default-scheduler",
        "terminationGracePeriodSeconds": pod.termination_grace_period_seconds,
    }
    if pod.priority_class_name:
        spec["priorityClassName"] = pod.priority_class_name
    if pod.node_name:
        spec["nodeName"] = pod.node_name
    if pod.node_selector:
        spec["nodeSelector"] = dict(pod.node_selector)
    if pod.tolerations:
        spec["tolerations"] = [_toleration(t) for t in pod.tolerations]
    if pod.empty_dir:
        spec["volumes"] = [{"name": "scratch", "emptyDir": {}}]
    status: dict[str, Any] = {"phase": pod.phase, "qosClass": qos_class(pod)}
    if pod.conditions:
        status["conditions"] = [_condition(c, epoch, heartbeat=False) for c in pod.conditions.values()]
    if pod.reason:
        status["reason"] = pod.reason
    if pod.message:
        status["message"] = pod.message
    if pod.nominated_node_name:
        status["nominatedNodeName"] = pod.nominated_node_name
    if pod.start_time is not None:
        status["startTime"] = timestamp(pod.start_time, epoch)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec, "status": status}


# ---------------------------------------------------------------- YAML

_PLAIN = re.compile(r"^[A-Za-z0-9_./][A-Za-z0-9_./ :=+-]*$")
_SPECIAL = {"", "null", "Null", "NULL", "~", "true", "True", "TRUE", "false", "False", "FALSE", "yes", "Yes",
            "no", "No", "on", "On", "off", "Off", "y", "Y", "n", "N"}
_NUMBER = re.compile(r"^[-+]?(\d[\d_]*(\.\d*)?([eE][-+]?\d+)?|\.\d+|0x[0-9a-fA-F]+|0o[0-7]+|\.inf|\.nan)$")
_TIMESTAMP = re.compile(r"^\d{4}-\d\d?-\d\d?([Tt ]|$)")  # YAML 1.1 would read a date or a time


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    text = str(value)
    if (_PLAIN.match(text) and text not in _SPECIAL and not _NUMBER.match(text) and not _TIMESTAMP.match(text)
            and not text.endswith(":")
            and ": " not in text and " #" not in text and not text.endswith(" ")):
        return text
    return json.dumps(text, ensure_ascii=False)  # a double-quoted YAML scalar


def _lines(value: Any, indent: int) -> list[str]:
    pad = "  " * indent
    out: list[str] = []
    if isinstance(value, dict):
        for key in sorted(value):
            item = value[key]
            if isinstance(item, dict) and item:
                out.append(f"{pad}{_scalar(key)}:")
                out.extend(_lines(item, indent + 1))
            elif isinstance(item, list) and item:
                out.append(f"{pad}{_scalar(key)}:")
                out.extend(_lines(item, indent))  # kubectl: list items at the key's indent
            else:
                out.append(f"{pad}{_scalar(key)}: {_inline(item)}")
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, (dict, list)) and item:
                inner = _lines(item, indent + 1)
                out.append(f"{pad}- {inner[0].lstrip()}")
                out.extend(inner[1:])
            else:
                out.append(f"{pad}- {_inline(item)}")
    else:
        out.append(f"{pad}{_inline(value)}")
    return out


def _inline(value: Any) -> str:
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, list):
        return "[]"
    return _scalar(value)


def to_yaml(obj: dict) -> str:
    """One object as YAML in kubectl's layout: keys sorted, two-space indent, list items under their
    key, strings quoted only where YAML would read them otherwise."""
    return "\n".join(_lines(obj, 0)) + "\n"
