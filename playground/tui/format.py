"""Pure formatting of engine objects for the screen: kubectl's words, compact taints, ages.

Nothing here changes engine state or touches a widget; every function takes the simulation (or an
object) and returns strings or rich `Text`, so it is cheap to test on its own.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING

from rich.text import Text

from ..engine.operations import SOURCE as OPERATIONS_SOURCE
from ..units import format_age, format_cpu, format_duration, format_memory_short

if TYPE_CHECKING:
    from ..engine import Simulation
    from ..engine.objects import Node, Pod, Taint

# The wall-style clock shows this instant plus the simulated time; the app never reads the real clock.
SCENARIO_EPOCH = datetime(2026, 1, 1, tzinfo=timezone.utc)

TAINT_PREFIX = "node.kubernetes.io/"
EFFECT_SHORT = {"NoSchedule": "NS", "PreferNoSchedule": "PNS", "NoExecute": "NE"}

ZONE_STYLE = {
    "Initial": "dim",
    "Normal": "green",
    "PartialDisruption": "bold yellow",
    "FullDisruption": "bold red",
}
MACHINE_STYLE = {
    "Running": "green",
    "PoweredOff": "bold red",
    "Partitioned": "bold magenta",
    "ShuttingDown": "bold yellow",
    "KubeletStopped": "bold red",
    "Reconnecting": "cyan",
}


def plain(value: object, style: str = "") -> Text:
    """User-given names as Text, never as markup (a name with "[" would be read as a tag)."""
    return Text(str(value), style=style, end="")


def wall_time(now_ms: int, epoch: datetime = SCENARIO_EPOCH) -> str:
    """The scenario epoch plus simulated time, e.g. "2026-01-01 00:02:13Z"."""
    stamp = epoch + timedelta(milliseconds=now_ms)
    text = stamp.strftime("%Y-%m-%d %H:%M:%S")
    if stamp.microsecond:
        text += f".{stamp.microsecond // 100_000}"
    return text + "Z"


def sim_time(ms: int | None) -> str:
    return "-" if ms is None else format_duration(ms)


def elapsed(ms: int) -> str:
    """Time since (or until) an instant the user watches, to the second at any length: as kubectl's
    ages up to 10 minutes ("65s", "4m12s"), then "12m5s", "1h2m3s" where kubectl's HumanDuration
    drops the seconds. AGE columns keep HumanDuration (units.format_age)."""
    ms = max(0, ms)
    if ms < 600_000:
        return format_age(ms)
    return format_duration(ms // 1000 * 1000)


def ago(now: int, ms: int | None) -> str:
    """"12m5s ago" for a past instant of virtual time."""
    if ms is None:
        return "-"
    return f"{elapsed(now - ms)} ago"


def is_cluster_event(event) -> bool:
    """Kubernetes' own events. The engine also records a refused operation ("OperationRefused", from
    the playground itself): kubectl would print that to the user, so the TUI shows it as a
    notification, never among the cluster's events."""
    return event.source != OPERATIONS_SOURCE


def zone_label(zone: str) -> str:
    """A node without a zone label is in the node lifecycle controller's zone "": say so."""
    return zone or "<none>"


# ---------------------------------------------------------------- nodes


def node_status(node: "Node") -> str:
    """STATUS exactly as `kubectl get nodes` prints it (printNode): Ready/NotReady (the latter for a
    False *or* Unknown Ready condition), Unknown without a Ready condition, ",SchedulingDisabled"."""
    ready = node.conditions.get("Ready")
    if ready is None:
        status = "Unknown"
    elif ready.status == "True":
        status = "Ready"
    else:
        status = "NotReady"
    if node.unschedulable:
        status += ",SchedulingDisabled"
    return status


def node_status_text(node: "Node") -> Text:
    status = node_status(node)
    text = Text(end="")
    head, _, tail = status.partition(",")
    text.append(head, "green" if head == "Ready" else "bold red")
    if tail:
        text.append("," + tail, "yellow")
    return text


def compact_taints(taints: list["Taint"]) -> str:
    """"unreachable:NS+NE, dedicated=db:NS": known prefixes dropped, effects abbreviated, one key once."""
    groups: dict[str, list[str]] = {}
    for taint in taints:
        key = taint.key[len(TAINT_PREFIX):] if taint.key.startswith(TAINT_PREFIX) else taint.key
        name = f"{key}={taint.value}" if taint.value else key
        groups.setdefault(name, []).append(EFFECT_SHORT.get(taint.effect, taint.effect))
    return ", ".join(f"{name}:{'+'.join(effects)}" for name, effects in groups.items())


def cpu_pair(requested: int, allocatable: int) -> str:
    return f"{format_cpu(requested)}/{format_cpu(allocatable)}"


def mem_pair(requested: int, allocatable: int) -> str:
    return f"{format_memory_short(requested) if requested else '0'}/{format_memory_short(allocatable)}"


def usage_style(requested: int, allocatable: int) -> str:
    if allocatable <= 0:
        return ""
    ratio = requested / allocatable
    return "bold red" if ratio >= 1 else "yellow" if ratio >= 0.9 else ""


def lease_age(sim: "Simulation", node_name: str) -> int | None:
    """now - renewTime of the node's Lease (the kubelet materialises renewals lazily: catch up first)."""
    kubelet = sim.kubelets.get(node_name)
    if kubelet is None or node_name not in sim.store.leases:
        return None
    kubelet.catch_up_for_reader()
    if kubelet.lease_renew_time is None:
        return None
    return sim.clock.now - kubelet.lease_renew_time


def lease_age_text(sim: "Simulation", node_name: str) -> Text:
    age = lease_age(sim, node_name)
    if age is None:
        return Text("-", end="")
    grace = sim.nodelifecycle.config.node_monitor_grace_period
    kubelet = sim.kubelets.get(node_name)
    renew = kubelet.config.lease_renew_interval if kubelet else 10_000
    style = "bold red" if age > grace else "yellow" if age > renew else ""
    return Text(elapsed(age), style=style, end="")


def machine_description(kubelet) -> str:
    """The machine in words: a powered-off machine has neither network nor a running kubelet."""
    if kubelet.power != "on":
        return "power off: no network, kubelet not running"
    return f"power on, network {kubelet.network}, kubelet {'running' if kubelet.running else 'stopped'}"


def machine_state(sim: "Simulation", node_name: str) -> Text:
    kubelet = sim.kubelets.get(node_name)
    label = kubelet.state_label() if kubelet else "-"
    return Text(label, style=MACHINE_STYLE.get(label, ""), end="")


# ---------------------------------------------------------------- pods


def pod_status(pod: "Pod") -> str:
    """STATUS as `kubectl get pods` prints it, for the states the simulation has."""
    if pod.deletion_timestamp is not None:
        return "Terminating"
    if pod.phase == "Succeeded":
        return "Completed"
    if pod.phase == "Failed":
        return pod.reason or "Error"
    if pod.phase == "Pending":
        if pod.node_name:
            return "ContainerCreating"
        return "Pending"
    if pod.phase == "Running" and pod.condition_status("Ready") != "True" and pod.reason:
        return pod.reason
    return pod.phase


POD_STATUS_STYLE = {
    "Running": "green",
    "Pending": "yellow",
    "ContainerCreating": "cyan",
    "Terminating": "magenta",
    "Completed": "dim",
}


def pod_status_text(pod: "Pod") -> Text:
    status = pod_status(pod)
    return Text(status, style=POD_STATUS_STYLE.get(status, "bold red"), end="")


def pod_ready(pod: "Pod") -> str:
    return "1/1" if pod.condition_status("Ready") == "True" else "0/1"


def priority_label(pod: "Pod") -> str:
    if pod.priority_class_name:
        return f"{pod.priority_class_name} ({pod.priority})"
    return str(pod.priority)


def pod_mem(pod: "Pod") -> str:
    return format_memory_short(pod.memory) if pod.memory else "0"


def pod_cpu(pod: "Pod") -> str:
    return format_cpu(pod.cpu) if pod.cpu else "0"


def is_pending(pod: "Pod") -> bool:
    """Waiting for the scheduler: not bound, not finished, not being deleted."""
    return not pod.node_name and not pod.is_terminal() and pod.deletion_timestamp is None


def queue_text(sim: "Simulation", pod: "Pod") -> Text:
    """The scheduling queue the pod waits in: active, backoff (with its expiry), unschedulable."""
    where, expiry = sim.scheduler.queue_state(pod)
    now = sim.clock.now
    if where == "backoff" and expiry is not None:
        return Text(f"backoff until {format_duration(expiry)} ({format_duration(max(0, expiry - now))})",
                    style="yellow", end="")
    if where == "unschedulable":
        return Text("unschedulable", style="bold red", end="")
    if where == "active":
        return Text("active", style="cyan", end="")
    if where == "scheduling":
        return Text("scheduling", style="cyan", end="")
    return Text(where or "-", style="dim", end="")


def scheduler_reason(sim: "Simulation", pod: "Pod") -> str:
    attempt = sim.scheduler.last_attempt.get(pod.key)
    if attempt is not None:
        return attempt.message
    return "waiting for its first scheduling attempt"


# ---------------------------------------------------------------- drains and budgets

DRAIN_STYLE = {"Draining": "bold yellow", "Blocked": "bold red", "Drained": "green", "Failed": "bold red",
               "Cancelled": "dim"}


def drain_status(sim: "Simulation", node_name: str):
    """The node's kubectl drain status, if the engine has drains and one ran on this node."""
    drainer = getattr(sim, "drain", None)
    if drainer is None:
        return None
    return drainer.status.get(node_name)


def drain_text(sim: "Simulation", node_name: str) -> Text:
    status = drain_status(sim, node_name)
    if status is None:
        return Text("", end="")
    state = status.state
    return Text(state, style=DRAIN_STYLE.get(state, ""), end="")


def drain_flags(options) -> str:
    """The kubectl drain command line of a drain's options."""
    flags = []
    for name, flag in (("ignore_daemonsets", "--ignore-daemonsets"), ("delete_emptydir_data", "--delete-emptydir-data"),
                       ("force", "--force"), ("disable_eviction", "--disable-eviction")):
        if getattr(options, name, False):
            flags.append(flag)
    grace = getattr(options, "grace_period_seconds", -1)
    if grace is not None and grace >= 0:
        flags.append(f"--grace-period={grace}")
    timeout = getattr(options, "timeout", 0)
    if timeout:
        flags.append(f"--timeout={format_duration(timeout)}")
    selector = getattr(options, "pod_selector", "")
    if selector:
        flags.append(f"--pod-selector={selector}")
    skip = getattr(options, "skip_wait_for_delete_timeout", 0)
    if skip:
        flags.append(f"--skip-wait-for-delete-timeout={skip}")
    return " ".join(flags)


def drain_refusals(sim: "Simulation", node_name: str) -> str:
    """What `kubectl drain NODE` with no flags would refuse on this node, and the flag for each: its
    pre-check (drain.Drainer._filter) fails the whole drain before evicting anything."""
    daemonset, local, bare = [], [], []
    for pod in sim.store.pods_on(node_name):
        if pod.is_terminal() or pod.mirror:
            continue
        if pod.owner is not None and pod.owner.kind == "DaemonSet":
            daemonset.append(pod.key)
        elif pod.empty_dir:
            local.append(pod.key)
        elif pod.owner is None:
            bare.append(pod.key)
    lines = []
    for pods, what, flag in ((daemonset, "DaemonSet-managed", "--ignore-daemonsets"),
                             (local, "with local storage (emptyDir)", "--delete-emptydir-data"),
                             (bare, "that declare no controller", "--force")):
        if pods:
            shown = ", ".join(pods[:3]) + (f" and {len(pods) - 3} more" if len(pods) > 3 else "")
            lines.append(f"{len(pods)} pod(s) {what} ({shown}): tick {flag} or the drain is refused")
    return "\n".join(lines)


def pdb_blocking(sim: "Simulation", pdb_key: str) -> dict[str, list[str]]:
    """node -> pods whose drain eviction this budget refused last (drains are few; pods per drain too)."""
    drainer = getattr(sim, "drain", None)
    out: dict[str, list[str]] = {}
    if drainer is None:
        return out
    for node, status in drainer.status.items():
        if status.phase != "Running":
            continue
        for pod_key, by in status.blocked.items():
            if by == pdb_key:
                out.setdefault(node, []).append(pod_key)
    return out
