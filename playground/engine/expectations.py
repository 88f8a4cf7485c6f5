"""Checking a scenario's [[expect]] entries against the simulation at their time."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..units import format_duration
from .objects import Pod

if TYPE_CHECKING:
    from ..scenario.schema import EventMatch, Expectation, PodsMatch
    from .simulation import Simulation

Check = tuple[str, str, str, bool]


def check(sim: "Simulation", exp: "Expectation") -> list[Check]:
    checks: list[Check] = []
    if exp.node:
        checks += _node_checks(sim, exp)
    if exp.pod:
        checks += _pod_checks(sim, exp)
    if exp.zones:
        for zone, want in exp.zones.items():
            have = sim.nodelifecycle.zone_states.get(zone, "<no such zone>")
            checks.append((f"zone {zone}", want, have, have == want))
    if exp.event is not None:
        found = _events(sim, exp.event)
        actual = _describe_events(found, exp.event.time) if found else "none"
        checks.append((f"event {_describe_match(exp.event)}", "at least one", actual, bool(found)))
    if exp.noEvent is not None:
        found = _events(sim, exp.noEvent)
        actual = _describe_events(found, exp.noEvent.time) if found else "none"
        checks.append((f"no event {_describe_match(exp.noEvent)}", "none", actual, not found))
    if exp.pods is not None:
        count = sum(1 for p in sim.store.pods.values() if _pod_matches(p, exp.pods))
        checks.append((f"pods {_describe_pods(exp.pods)}", str(exp.pods.count), str(count), count == exp.pods.count))
    if exp.pdb is not None:
        checks += _pdb_checks(sim, exp)
    if exp.deployment is not None:
        checks += _deployment_checks(sim, exp)
    if exp.volume is not None:
        key = exp.volume if "/" in exp.volume else f"{exp.namespace}/{exp.volume}"
        volume = sim.attachdetach.volumes.get(key)
        if volume is None:
            checks.append((f"volume {key}", "exists", "not found", False))
        else:
            have = volume.attached_to or ""
            checks.append((f"volume {key} attached to", exp.attachedTo or "<detached>", have or "<detached>",
                           have == exp.attachedTo))
    return checks


def _deployment_checks(sim: "Simulation", exp: "Expectation") -> list[Check]:
    d = sim.store.deployments.get(exp.deployment or "")
    if d is None or d.namespace != exp.namespace:
        return [(f"deployment {exp.namespace}/{exp.deployment}", "exists", "not found", False)]
    out: list[Check] = []
    for ctype, want in (exp.deploymentConditions or {}).items():
        cond = d.conditions.get(ctype)
        have = cond.reason if cond is not None else "<none>"
        out.append((f"deployment {d.name} condition {ctype}", want, have, have == want))
    for name, want, have in (("updatedReplicas", exp.updatedReplicas, d.updated_replicas),
                             ("availableReplicas", exp.availableReplicas, d.available_replicas),
                             ("revision", exp.revision, d.revision)):
        if want is not None:
            out.append((f"deployment {d.name} {name}", str(want), str(have), want == have))
    return out


def _pdb_checks(sim: "Simulation", exp: "Expectation") -> list[Check]:
    key = exp.pdb if "/" in (exp.pdb or "") else f"{exp.namespace}/{exp.pdb}"
    pdb = sim.store.pdbs.get(key)
    if pdb is None:
        return [(f"pdb {key}", "exists", "not found", False)]
    out: list[Check] = []
    for name, want, have in (("disruptionsAllowed", exp.disruptionsAllowed, pdb.disruptions_allowed),
                             ("currentHealthy", exp.currentHealthy, pdb.current_healthy),
                             ("desiredHealthy", exp.desiredHealthy, pdb.desired_healthy),
                             ("expectedPods", exp.expectedPods, pdb.expected_pods)):
        if want is not None:
            out.append((f"pdb {key} {name}", str(want), str(have), want == have))
    return out


def _drain_checks(sim: "Simulation", exp: "Expectation", node_name: str) -> list[Check]:
    status = sim.drain.status.get(node_name)
    out: list[Check] = []
    if exp.drain is not None:
        have = status.state if status is not None else "None"
        out.append((f"node {node_name} drain", exp.drain, have, have == exp.drain))
    if exp.drainRemaining is not None:
        have_n = len(status.remaining) if status is not None else 0
        out.append((f"node {node_name} drain pods remaining", str(exp.drainRemaining), str(have_n),
                    have_n == exp.drainRemaining))
    if exp.drainBlockedBy is not None:
        blockers = sorted({b.split("/", 1)[-1] for b in status.blocked.values()}) if status is not None else []
        have_b = ", ".join(blockers) or "<nothing>"
        out.append((f"node {node_name} drain blocked by", exp.drainBlockedBy or "<nothing>", have_b,
                    exp.drainBlockedBy in blockers if exp.drainBlockedBy else not blockers))
    return out


def _node_checks(sim: "Simulation", exp: "Expectation") -> list[Check]:
    node = sim.store.nodes.get(exp.node or "")
    drain = _drain_checks(sim, exp, exp.node or "")
    node_fields = (exp.conditions, exp.taints, exp.noTaints, exp.unschedulable, exp.power, exp.podCount,
                   exp.containers)
    if node is None:
        if drain and all(v is None for v in node_fields):
            return drain  # a drain outlives a deleted Node object
        return [(f"node {exp.node}", "exists", "not found", False)]
    out: list[Check] = drain
    for ctype, want in (exp.conditions or {}).items():
        have = node.ready_status() if ctype == "Ready" else (node.conditions[ctype].status if ctype in node.conditions else None)
        out.append((f"node {node.name} {ctype}", want, have or "<none>", have == want))
    taints = set(node.taint_strings())
    for taint in exp.taints or []:
        out.append((f"node {node.name} taint {taint}", "present", _taint_list(taints), taint in taints))
    for taint in exp.noTaints or []:
        out.append((f"node {node.name} taint {taint}", "absent", _taint_list(taints), taint not in taints))
    if exp.unschedulable is not None:
        out.append((f"node {node.name} unschedulable", str(exp.unschedulable).lower(),
                    str(node.unschedulable).lower(), node.unschedulable == exp.unschedulable))
    if exp.power is not None:
        power = sim.kubelets[node.name].power
        out.append((f"node {node.name} power", exp.power, power, power == exp.power))
    if exp.containers is not None:
        kubelet = sim.kubelets.get(node.name)
        running = len(kubelet.containers) if kubelet is not None else 0
        out.append((f"node {node.name} containers on the machine", str(exp.containers), str(running),
                    running == exp.containers))
    if exp.podCount is not None:
        count = sum(1 for p in sim.store.pods_on(node.name) if not p.is_terminal())
        out.append((f"node {node.name} pods", str(exp.podCount), str(count), count == exp.podCount))
    return out


def _taint_list(taints: set[str]) -> str:
    return ", ".join(sorted(taints)) or "no taints"


def _pod_checks(sim: "Simulation", exp: "Expectation") -> list[Check]:
    key = exp.pod if "/" in (exp.pod or "") else f"{exp.namespace}/{exp.pod}"
    pod = sim.store.pods.get(key)
    label = f"pod {key}"
    if pod is None:
        if exp.phase == "Gone":
            return [(f"{label} phase", "Gone", "Gone", True)]
        return [(label, "exists", "not found", False)]
    out: list[Check] = []
    if exp.phase is not None:
        out.append((f"{label} phase", exp.phase, pod.phase, pod.phase == exp.phase))
    if exp.deleting is not None:
        deleting = pod.deletion_timestamp is not None
        out.append((f"{label} deleting", str(exp.deleting).lower(), str(deleting).lower(), deleting == exp.deleting))
    if exp.podNode is not None:
        out.append((f"{label} node", exp.podNode, pod.node_name or "<none>", pod.node_name == exp.podNode))
    if exp.nominatedNodeName is not None:
        out.append((f"{label} nominatedNodeName", exp.nominatedNodeName or "<none>",
                    pod.nominated_node_name or "<none>", pod.nominated_node_name == exp.nominatedNodeName))
    if exp.reason is not None:
        out.append((f"{label} reason", exp.reason, pod.reason or "<none>", pod.reason == exp.reason))
    if exp.message is not None:
        actual = _pod_message(sim, pod)
        out.append((f"{label} message", f"contains {exp.message!r}", actual or "<none>", exp.message in actual))
    for ctype, want in (exp.podConditions or {}).items():
        have = pod.condition_status(ctype)
        out.append((f"{label} {ctype}", want, have or "<none>", have == want))
    return out


def _pod_message(sim: "Simulation", pod: Pod) -> str:
    """The pod's status message, or the scheduler's explanation when it is pending."""
    if pod.message:
        return pod.message
    scheduled = pod.conditions.get("PodScheduled")
    return scheduled.message if scheduled and scheduled.message else ""


def _events(sim: "Simulation", match: "EventMatch") -> list:
    found = []
    for event in sim.store.recorder.events:
        if event.reason != match.reason:
            continue
        if match.object is not None and event.object != match.object:
            continue
        if match.type is not None and event.type != match.type:
            continue
        if match.message is not None and match.message not in event.message:
            continue
        if match.time is not None and match.time not in (event.time, event.last_time):
            continue
        found.append(event)
    return found


def _describe_match(match: "EventMatch") -> str:
    text = match.reason
    if match.object:
        text += f" on {match.object}"
    if match.message:
        text += f" containing {match.message!r}"
    if match.time is not None:
        text += f" at {format_duration(match.time)}"
    return text


def _describe_events(events: list, at: int | None = None) -> str:
    shown = ", ".join(_describe_event(e, at) for e in events[:3])
    return shown + (f" (+{len(events) - 3} more)" if len(events) > 3 else "")


def _describe_event(event, at: int | None) -> str:
    """One Event as the check saw it: at the time asked for, or first seen with its count."""
    if at is not None:
        return f"{event.object} at {format_duration(at)}"
    text = f"{event.object} at {format_duration(event.time)}"
    if event.count > 1:
        text += f" (count {event.count}, last {format_duration(event.last_time)})"
    return text


def _pod_matches(pod: Pod, match: "PodsMatch") -> bool:
    if any(pod.labels.get(k) != v for k, v in match.selector.items()):
        return False
    if match.namespace is not None and pod.namespace != match.namespace:
        return False
    if match.node is not None and pod.node_name != match.node:
        return False
    if match.notNode is not None and pod.node_name == match.notNode:
        return False
    if match.phase is not None and pod.phase != match.phase:
        return False
    if match.deleting is not None and (pod.deletion_timestamp is not None) != match.deleting:
        return False
    if match.ready is not None and pod.is_ready() != match.ready:
        return False
    return True


def _describe_pods(match: "PodsMatch") -> str:
    parts = [",".join(f"{k}={v}" for k, v in match.selector.items()) or "all"]
    for name in ("namespace", "node", "notNode", "phase", "deleting", "ready"):
        value = getattr(match, name)
        if value is not None:
            parts.append(f"{name}={str(value).lower() if isinstance(value, bool) else value}")
    return " ".join(parts)
