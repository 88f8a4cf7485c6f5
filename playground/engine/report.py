"""Read-only views of a simulation: the JSON document `playground sim --json` prints, and the text
event log. Keys of the JSON document are a stable interface: add freely, never rename.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from itertools import islice
from typing import TYPE_CHECKING, Any

import msgspec

from ..units import format_duration
from .objects import Event, Node, Pod

if TYPE_CHECKING:
    from .simulation import Simulation


def seconds(ms: int | None) -> float | None:
    return None if ms is None else ms / 1000


def node_power(sim: "Simulation", node: Node) -> str:
    kubelet = sim.kubelets.get(node.name)
    return kubelet.power if kubelet else "on"


def lease_view(sim: "Simulation", name: str) -> dict[str, Any] | None:
    lease = sim.store.leases.get(name)
    kubelet = sim.kubelets.get(name)
    if lease is None:
        return None
    if kubelet is not None:
        kubelet.catch_up()
    renew = kubelet.lease_renew_time if kubelet is not None else None
    return {
        "holder": lease.holder_identity,
        "renewTime": seconds(renew),
        "leaseDurationSeconds": lease.lease_duration_seconds,
    }


def node_json(sim: "Simulation", node: Node) -> dict[str, Any]:
    kubelet = sim.kubelets.get(node.name)
    if kubelet is not None:
        kubelet.catch_up()
    return {
        "name": node.name,
        "zone": node.zone,
        "unschedulable": node.unschedulable,
        "power": node_power(sim, node),
        "state": kubelet.state_label() if kubelet else "",
        "conditions": {c.type: c.status for c in node.conditions.values()},
        "conditionDetails": {
            c.type: {
                "status": c.status, "reason": c.reason, "message": c.message,
                "lastHeartbeatTime": seconds(c.last_heartbeat_time),
                "lastTransitionTime": seconds(c.last_transition_time),
            }
            for c in node.conditions.values()
        },
        "taints": node.taint_strings(),
        "lease": lease_view(sim, node.name),
        "pods": sorted(p.name for p in sim.store.pods_on(node.name)),
        "allocatable": {"cpu": node.allocatable_cpu, "memory": node.allocatable_memory, "pods": node.allocatable_pods},
        "requested": {"cpu": node.requested_cpu, "memory": node.requested_memory, "pods": node.pod_count},
        # the pods whose containers run on the machine, whatever the API says (a partitioned node's
        # containers outlive their deleted pods)
        "containers": sorted(c.pod_key for c in kubelet.containers.values()) if kubelet else [],
    }


def drain_json(sim: "Simulation", status) -> dict[str, Any]:
    return {
        "node": status.node,
        "state": status.state,
        "startedAt": seconds(status.started_at),
        "finishedAt": seconds(status.finished_at),
        "error": status.error or None,
        "warnings": status.warnings or None,
        "ignored": list(status.ignored),
        "remaining": [p.key for p in status.remaining],
        "nextRetry": seconds(status.next_retry),
        "pods": [
            {"pod": p.key, "state": p.state, "attempts": p.attempts, "refusals": p.refusals,
             "blockedBy": p.blocked_by, "message": p.message or None, "cause": p.cause or None,
             "nextRetry": seconds(p.next_retry), "finishedAt": seconds(p.finished_at)}
            for p in status.pods.values()
        ],
        "output": [{"time": seconds(t), "stream": stream, "line": line} for t, stream, line in status.output],
    }


def pdb_json(pdb) -> dict[str, Any]:
    cond = pdb.conditions.get("DisruptionAllowed")
    return {
        "name": pdb.name,
        "namespace": pdb.namespace,
        "selector": dict(pdb.selector),
        "minAvailable": pdb.min_available,
        "maxUnavailable": pdb.max_unavailable,
        "currentHealthy": pdb.current_healthy,
        "desiredHealthy": pdb.desired_healthy,
        "disruptionsAllowed": pdb.disruptions_allowed,
        "expectedPods": pdb.expected_pods,
        "disruptedPods": {name: seconds(t) for name, t in sorted(pdb.disrupted_pods.items())},
        "disruptionAllowed": {"status": cond.status, "reason": cond.reason, "message": cond.message} if cond else None,
    }


def volume_json(sim: "Simulation", volume) -> dict[str, Any]:
    return {
        "name": volume.name,
        "namespace": volume.namespace,
        "attachedTo": volume.attached_to,
        "inUse": volume.mounted_by_node if volume.attached_to else False,
        "detachRequestedAt": seconds(volume.detach_requested_at),
        "forceDetachAt": seconds(sim.attachdetach.force_detach_at(volume)),
    }


def pod_json(sim: "Simulation", pod: Pod) -> dict[str, Any]:
    return {
        "name": pod.name,
        "namespace": pod.namespace,
        "node": pod.node_name,
        "phase": pod.phase,
        "priority": pod.priority,
        "priorityClassName": pod.priority_class_name,
        "nominatedNodeName": pod.nominated_node_name or None,
        "deleting": pod.deletion_timestamp is not None,
        "deletionTimestamp": seconds(pod.deletion_timestamp),
        "gracePeriodSeconds": pod.deletion_grace_period_seconds
        if pod.deletion_grace_period_seconds is not None else pod.termination_grace_period_seconds,
        "reason": pod.reason,
        "message": pod.message,
        "conditions": {c.type: c.status for c in pod.conditions.values()},
        "owner": f"{pod.owner.kind}/{pod.owner.name}" if pod.owner else None,
        "volumes": list(pod.volume_claims),
        "startTime": seconds(pod.start_time),
        "preemptionPolicy": pod.preemption_policy,
        "scheduling": scheduling_json(sim, pod),
    }


def deployment_json(sim: "Simulation", d) -> dict[str, Any]:
    """What `kubectl get deploy -o json` shows of the rollout: the status counts, the conditions
    and the current revision, plus the ReplicaSets (newest first, as kubectl describe lists them)."""
    from .deployment import rollout_status

    replicasets = sorted(sim.workloads.replicasets_of(d.name), key=lambda rs: (rs.creation_time, rs.name), reverse=True)
    return {
        "name": d.name,
        "namespace": d.namespace,
        "replicas": d.replicas,
        "strategy": d.strategy,
        "maxSurge": d.max_surge if d.strategy == "RollingUpdate" else None,
        "maxUnavailable": d.max_unavailable if d.strategy == "RollingUpdate" else None,
        "paused": d.paused,
        "generation": d.generation,
        "observedGeneration": d.observed_generation,
        "statusReplicas": d.status_replicas,
        "updatedReplicas": d.updated_replicas,
        "readyReplicas": d.ready_replicas,
        "availableReplicas": d.available_replicas,
        "unavailableReplicas": d.unavailable_replicas,
        "conditions": {c.type: {"status": c.status, "reason": c.reason, "message": c.message,
                                "lastUpdateTime": seconds(c.last_update_time),
                                "lastTransitionTime": seconds(c.last_transition_time)}
                       for c in d.conditions.values()},
        "revision": d.revision,
        "rolloutStatus": rollout_status(d)[0],
        "progressCheckAt": seconds(sim.workloads.deployments.deadline_at(d.name)),
        "replicaSets": [
            {"name": rs.name, "revision": rs.revision, "replicas": rs.replicas, "readyReplicas": rs.ready_replicas,
             "availableReplicas": rs.available_replicas, "statusReplicas": rs.status_replicas}
            for rs in replicasets
        ],
    }


def scheduling_json(sim: "Simulation", pod: Pod) -> dict[str, Any] | None:
    """Where a pending pod stands in the scheduling queue and why its last attempt failed."""
    where, backoff_until = sim.scheduler.queue_state(pod)
    attempt = sim.scheduler.last_attempt.get(pod.key)
    if not where and attempt is None:
        return None
    return {
        "queue": where or None,  # active | backoff | unschedulable | scheduling
        "backoffUntil": seconds(backoff_until),
        "lastAttempt": seconds(attempt.time) if attempt else None,
        "message": attempt.message if attempt else None,
        "unschedulablePlugins": sorted(attempt.unschedulable_plugins) if attempt else [],
    }


LONG_LISTS = ("events", "nodes", "pods")


def snapshot(sim: "Simulation", events: list[Event] | None = None) -> dict[str, Any]:
    document = snapshot_lazily(sim, events)
    for key in LONG_LISTS:
        document[key] = list(document[key])
    return document


def snapshot_lazily(sim: "Simulation", events: list[Event] | None = None) -> dict[str, Any]:
    """`snapshot` with its long lists (LONG_LISTS) as iterators, each item made as it is written
    (`json_pieces`): at 150,000 pods the whole document's dicts and text took 550 MiB at once."""
    store = sim.store
    events = list(store.recorder.events) if events is None else events
    return {
        "time": sim.clock.now / 1000,
        "scenario": sim.scenario.scenario.name,
        "kubernetesVersion": sim.release.version,
        "events": (e.as_dict() for e in events),
        "zones": {zone or "": state for zone, state in sorted(sim.nodelifecycle.zone_states.items())},
        "allZonesDown": sim.nodelifecycle.all_zones_down,
        "nodes": (node_json(sim, n) for n in store.nodes.values()),
        "pods": (pod_json(sim, p) for p in sorted(store.pods.values(), key=lambda p: p.key)),
        "deployments": [deployment_json(sim, d) for _, d in sorted(store.deployments.items())],
        "drains": [drain_json(sim, d) for _, d in sorted(sim.drain.status.items())],
        "podDisruptionBudgets": [pdb_json(p) for _, p in sorted(store.pdbs.items())],
        "volumes": [volume_json(sim, v) for _, v in sorted(sim.attachdetach.volumes.items())],
        "expectations": [
            {"index": r.index, "time": r.time / 1000, "description": r.description, "passed": r.passed,
             "checks": [{"what": w, "expected": e, "actual": a, "passed": ok} for w, e, a, ok in r.checks]}
            for r in sim.expectation_results
        ],
    }


# The characters msgspec writes otherwise than the json module: it writes non-ASCII and DEL as they
# are, where `json.dumps` escapes them as \uXXXX.
_NOT_ASCII = re.compile(r"[^\x00-\x7e]")
PLAIN_FLOATS = (1e-4, 1e16)


def json_text(document: Any) -> bytes:
    """`json.dumps(document, indent=1)`, character for character (ASCII, as bytes), for a document
    of dicts (string keys), lists, strings, ints, bools, None and floats that are zero or between
    PLAIN_FLOATS in magnitude (those of `snapshot` are seconds from integer milliseconds): msgspec
    writes it, and the characters it writes otherwise are escaped as the json module escapes them.
    Outside that range msgspec writes floats in another exponent form (1e16 for 1e+16, 0.00001 for
    1e-05) and NaN as null: still JSON, not the same text. The json module writes with indent in
    pure Python (its C encoder does not indent): at 150,000 pods it took 6-8 s of CPU, and kept a
    list of millions of pieces."""
    try:
        data = msgspec.json.format(msgspec.json.encode(document), indent=1)
    except (TypeError, ValueError, OverflowError):  # a type msgspec does not write (a 70-bit int)
        return json.dumps(document, indent=1).encode()
    if not data.isascii() or b"\x7f" in data:
        data = _NOT_ASCII.sub(_ascii_escape, data.decode()).encode()
    return data


def json_pieces(document: dict[str, Any], chunk: int = 2_000) -> Iterator[bytes]:
    """`json_text(document)` in pieces, for a document whose values may be iterators (lists made as
    they are written, `chunk` items at a time). The pieces are the json module's indentation one
    level down: each value is written as at the top and its lines shifted by one space."""
    if not document:
        yield b"{}"
        return
    separator = b"{\n "
    for key, value in document.items():
        yield separator + json_text(key) + b": "
        separator = b",\n "
        if isinstance(value, Iterator):
            yield from _list_pieces(value, chunk)
        else:
            yield json_text(value).replace(b"\n", b"\n ")
    yield b"\n}"


def _list_pieces(items: Iterator, chunk: int) -> Iterator[bytes]:
    opening = b"[\n"
    while batch := list(islice(items, chunk)):
        # "[\n  item,\n  item\n ]" one level down: its items' lines between the brackets
        yield opening + json_text(batch).replace(b"\n", b"\n ")[2:-3]
        opening = b",\n"
    yield b"[]" if opening == b"[\n" else b"\n ]"


def _ascii_escape(match: re.Match) -> str:
    return json.dumps(match.group())[1:-1]  # the json module's escape: \uXXXX, a surrogate pair above U+FFFF


def format_event(event: Event) -> str:
    line = f"{format_duration(event.time):>10}  {event.type:<7}  {event.reason:<22} {event.object:<34} {event.message}"
    if event.count > 1:
        line += f"  (x{event.count}, last {format_duration(event.last_time)})"
    return line
