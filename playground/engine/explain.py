"""What happens next, and why: countdowns and reasons the UI shows, read from the controllers' own
timers and queues (nothing here changes state)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..units import format_duration
from .objects import NO_EXECUTE, NOT_READY_TAINT, OUT_OF_SERVICE_TAINT, UNKNOWN, UNREACHABLE_TAINT, Pod

if TYPE_CHECKING:
    from .simulation import Simulation


def _in(ms: int) -> str:
    return format_duration(max(0, ms // 1000 * 1000)) if ms >= 1000 else format_duration(max(0, ms))


def node_outlook(sim: "Simulation", node_name: str) -> list[str]:
    """Countdowns for one node: Ready going Unknown, NoExecute tainting, pod deletions, shutdown."""
    store = sim.store
    node = store.nodes.get(node_name)
    if node is None:
        return []
    now = sim.clock.now
    lines: list[str] = []
    nlc = sim.nodelifecycle
    kubelet = sim.kubelets.get(node_name)
    if kubelet is not None and kubelet.shutdown is not None:
        state = kubelet.shutdown
        if 0 <= state.index < len(state.groups):
            group = state.groups[state.index]
            left = (state.group_ends_at or now) - now
            lines.append(f"shutdown: priority-{group.priority} group ends in {_in(left)} "
                         f"({len(state.waiting)} pod(s) still stopping)")
            later = [g for g in state.groups[state.index + 1:]]
            if later:
                lines.append("shutdown: then " + ", ".join(f"priority-{g.priority} ({g.seconds}s)" for g in later)
                             + ", then power off")
            else:
                lines.append("shutdown: then power off")
    deadline = nlc.ready_deadline(node)
    if deadline is not None:
        lines.append(f"Ready→Unknown in {_in(deadline - now)} (node-monitor-grace-period "
                     f"{format_duration(nlc.config.node_monitor_grace_period)}, no lease renewal since "
                     f"{format_duration(kubelet.lease_renew_time or 0) if kubelet else '?'})")
    position = nlc.queue_position(node)
    if position is not None:
        place, token_at = position
        zone = node.zone or '""'
        if token_at is None:
            state = nlc.zone_states.get(node.zone, "")
            why = "all zones are down" if nlc.all_zones_down else f"zone is {state}, eviction rate 0"
            lines.append(f"NoExecute taint queued in {zone} (#{place}), tainting stopped: {why}")
        else:
            lines.append(f"NoExecute taint queued in {zone} (#{place}), next token in {_in(max(0, token_at - now))}")
    elif node.ready_status() not in (None, "True") and not (
        node.has_taint(NOT_READY_TAINT, NO_EXECUTE) or node.has_taint(UNREACHABLE_TAINT, NO_EXECUTE)
    ):
        if node.ready_status() == UNKNOWN or node.ready_status() == "False":
            lines.append("NoExecute taint: queued at the next monitor pass "
                         f"(every {format_duration(nlc.config.node_monitor_period)})")
    deletions = []
    for pod in store.pods_on(node_name):
        at = sim.tainteviction.deletion_at(pod)
        if at is not None:
            deletions.append((at, pod))
    deletions.sort(key=lambda item: (item[0], item[1].name))
    for at, pod in deletions[:5]:
        lines.append(f"{pod.name} deleted in {_in(at - now)} (tolerationSeconds of its NoExecute toleration)")
    if len(deletions) > 5:
        lines.append(f"… and {len(deletions) - 5} more pod deletion(s) scheduled")
    terminating = [p for p in store.pods_on(node_name) if p.deletion_timestamp is not None]
    out_of_service = any(t.key == OUT_OF_SERVICE_TAINT for t in node.taints)
    if terminating and out_of_service and node.ready_status() != "True":
        at = sim.podgc.next_pass()
        lines.append(f"{len(terminating)} Terminating pod(s) force-deleted by PodGC in {_in(at - now)} "
                     "(out-of-service taint on a node that is not Ready)")
    elif terminating and kubelet is not None and not kubelet.signalling:
        lines.append(f"{len(terminating)} pod(s) Terminating until the kubelet returns, the Node is deleted "
                     "or the node gets the out-of-service taint")
    lines.extend(drain_outlook(sim, node_name))
    for volume in sorted(sim.attachdetach.volumes.values(), key=lambda v: v.key):
        if volume.attached_to != node_name or volume.detach_requested_at is None:
            continue
        if out_of_service:
            lines.append(f"volume {volume.name}: detached at the next reconciler pass (out-of-service taint)")
        elif volume.mounted_by_node:
            force = sim.attachdetach.force_detach_at(volume)
            why = ("node not Ready" if node.ready_status() != "True"
                   else "only once the node is not Ready or unmounts it")
            lines.append(f"volume {volume.name}: still reported mounted; force-detached in "
                         f"{_in((force or now) - now)} (maxWaitForUnmountDuration 6m, {why})")
    return lines


def drain_outlook(sim: "Simulation", node_name: str) -> list[str]:
    """Where the node's drain stands: pods left, which budget blocks which pod, the next retry."""
    status = sim.drain.status.get(node_name)
    if status is None:
        return []
    now = sim.clock.now
    if status.phase != "Running":
        text = f"drain: {status.state}"
        if status.error:
            text += f": {status.error}"
        return [text]
    remaining = status.remaining
    lines = [f"drain: {status.state}, {len(remaining)} pod(s) left"]
    blocked: dict[str, list[str]] = {}
    for entry in remaining:
        if entry.state == "Blocked":
            blocked.setdefault(entry.blocked_by or "?", []).append(entry.name)
    for pdb, pods in sorted(blocked.items()):
        budget = sim.store.pdbs.get(pdb)
        detail = (f" ({budget.current_healthy} healthy, {budget.desired_healthy} desired)" if budget is not None
                  else "")
        lines.append(f"drain: {len(pods)} eviction(s) refused by PodDisruptionBudget {pdb}{detail}")
    retry = status.next_retry
    if retry is not None:
        lines.append(f"drain: next retry in {_in(retry - now)}")
    waiting = [e for e in remaining if e.state == "Terminating"]
    if waiting:
        lines.append(f"drain: waiting for {len(waiting)} evicted pod(s) to terminate")
    return lines


def pod_outlook(sim: "Simulation", pod: Pod) -> str:
    """One line on where a pod stands: the scheduler's reason, a pending deletion, termination."""
    now = sim.clock.now
    if pod.deletion_timestamp is not None:
        left = pod.deletion_timestamp - now
        return f"Terminating (grace {pod.deletion_grace_period_seconds}s" + (
            f", {_in(left)} left)" if left > 0 else ", waiting for the kubelet)")
    status = sim.drain.running(pod.node_name or "")
    entry = status.pods.get(pod.key) if status is not None else None
    if entry is not None and entry.state == "Blocked" and entry.uid == pod.uid:
        retry = f", retry in {_in(entry.next_retry - now)}" if entry.next_retry is not None else ""
        return f"drain: eviction refused by PodDisruptionBudget {entry.blocked_by}{retry} ({entry.cause})"
    at = sim.tainteviction.deletion_at(pod)
    if at is not None:
        return f"deleted in {_in(at - now)} by the taint-eviction controller"
    if not pod.node_name:
        where, expiry = sim.scheduler.queue_state(pod)
        attempt = sim.scheduler.last_attempt.get(pod.key)
        text = {"active": "in activeQ", "backoff": "backing off", "unschedulable": "unschedulable",
                "scheduling": "being scheduled"}.get(where, where or "not queued")
        if expiry is not None:
            text += f" for {_in(expiry - now)}"
        if attempt is not None:
            text += f": {attempt.message}"
        return text
    if pod.reason:
        return f"{pod.reason}: {pod.message}"
    return ""
