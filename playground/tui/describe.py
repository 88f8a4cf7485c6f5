"""`kubectl describe node` and `kubectl describe pod` of the simulated objects, as kubectl prints them
(kubernetes/kubectl pkg/describe/describe.go: describeNode, describeNodeResource, describePod,
describeContainers, DescribeEvents), laid out by a Go tabwriter (minwidth 0, tabwidth 8, padding 2).

Plain text from engine state, nothing from Textual: the describe screen shows it, tests read it.
What the simulation does not model prints as kubectl prints an unset field (empty, <none>, <unset>):
addresses other than the hostname, IPs, container IDs, the node's system info.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from ..engine.manifests import CONTAINER, EPOCH, PAUSE_IMAGE, qos_class
from ..units import format_age, format_cpu, format_memory
from .format import is_cluster_event

if TYPE_CHECKING:
    from ..engine import Simulation
    from ..engine.objects import Event, Pod, Taint, Toleration

LEVEL = "  "  # kubectl's PrefixWriter indents each level by two spaces


def rfc1123z(ms: int, epoch: datetime = EPOCH) -> str:
    """time.RFC1123Z: "Thu, 01 Jan 2026 00:01:10 +0000"."""
    return (epoch + timedelta(milliseconds=ms)).strftime("%a, %d %b %Y %H:%M:%S +0000")


# ---------------------------------------------------------------- Go's text/tabwriter


def tabwrite(text: str, padding: int = 2) -> str:
    """text/tabwriter with kubectl's settings: a cell ends at a tab; the cells of one column are padded
    to the widest in their block (consecutive lines that have that column); the last cell of a line
    is not aligned."""
    lines = [line.split("\t") for line in text.split("\n")]
    out: list[str] = []
    widths: list[int] = []

    def write(line0: int, line1: int) -> None:
        for cells in lines[line0:line1]:
            parts = []
            for j, cell in enumerate(cells):
                if j < len(widths) and j < len(cells) - 1:
                    parts.append(cell.ljust(widths[j]))
                else:
                    parts.append(cell)
            out.append("".join(parts).rstrip() if len(cells) > 1 else "".join(parts))

    def fmt(line0: int, line1: int) -> None:
        column = len(widths)
        this = line0
        while this < line1:
            if column >= len(lines[this]) - 1:
                this += 1
                continue
            write(line0, this)
            line0 = this
            width = 0
            while this < line1 and column < len(lines[this]) - 1:
                width = max(width, len(lines[this][column]) + padding)
                this += 1
            widths.append(width)
            fmt(line0, this)
            widths.pop()
            line0 = this
        write(line0, line1)

    fmt(0, len(lines))
    return "\n".join(out)


# ---------------------------------------------------------------- shared parts


def _multiline(title: str, items: list[str]) -> list[str]:
    """printLabelsMultiline and friends: the first item after the title, the others under it."""
    if not items:
        return [f"{title}:\t<none>"]
    return [f"{title}:\t{items[0]}"] + [f"\t{item}" for item in items[1:]]


def _labels(labels: dict[str, str]) -> list[str]:
    return [f"{key}={labels[key]}" for key in sorted(labels)]


def _taint(taint: "Taint") -> str:
    """Taint.ToString: key=value:effect, key:effect."""
    return f"{taint.key}={taint.value}:{taint.effect}" if taint.value else f"{taint.key}:{taint.effect}"


def _toleration(t: "Toleration") -> str:
    text = t.key
    if t.value:
        text += f"={t.value}"
    if t.effect:
        text += f":{t.effect}"
    if t.operator == "Exists" and not t.value:
        text += " op=Exists" if (t.key or t.effect) else "op=Exists"
    if t.toleration_seconds is not None:
        text += f" for {t.toleration_seconds}s"
    return text


def _events(sim: "Simulation", obj: str) -> list[str]:
    """DescribeEvents: the object's events, oldest first, with their age and source component."""
    now = sim.clock.now
    events: list[Event] = [e for e in sim.store.recorder.events if e.object == obj and is_cluster_event(e)]
    if not events:
        return ["Events:\t<none>"]
    lines = ["Events:", f"{LEVEL}Type\tReason\tAge\tFrom\tMessage", f"{LEVEL}----\t------\t----\t----\t-------"]
    for e in sorted(events, key=lambda e: e.time):
        count = getattr(e, "count", 1) or 1
        first = getattr(e, "first_time", e.time)
        age = format_age(now - e.time)
        if count > 1:
            age = f"{age} (x{count} over {format_age(now - first)})"
        lines.append(f"{LEVEL}{e.type}\t{e.reason}\t{age}\t{e.source}\t{e.message.strip()}")
    return lines


def _percent(part: int, whole: int) -> int:
    return int(part / whole * 100) if whole else 0


# ---------------------------------------------------------------- node


def describe_node(sim: "Simulation", name: str, epoch: datetime = EPOCH) -> str:
    node = sim.store.nodes.get(name)
    if node is None:
        return f'Error from server (NotFound): nodes "{name}" not found'
    now = sim.clock.now
    lines = [f"Name:\t{node.name}"]
    roles = sorted(k.split("/", 1)[1] for k in node.labels if k.startswith("node-role.kubernetes.io/"))
    lines.append(f"Roles:\t{','.join(roles) if roles else '<none>'}")
    lines += _multiline("Labels", _labels({"kubernetes.io/hostname": node.name, **node.labels}))
    lines += _multiline("Annotations", [])
    lines.append(f"CreationTimestamp:\t{rfc1123z(node.creation_time, epoch)}")
    taints = sorted(node.taints, key=lambda t: f"{t.effect},{t.key}")
    lines += _multiline("Taints", [_taint(t) for t in taints])
    lines.append(f"Unschedulable:\t{'true' if node.unschedulable else 'false'}")
    lease = sim.store.leases.get(name)
    kubelet = sim.kubelets.get(name)
    if kubelet is not None:
        kubelet.catch_up_for_reader()
    lines.append("Lease:")
    renew = kubelet.lease_renew_time if kubelet is not None and lease is not None else None
    lines.append(f"{LEVEL}HolderIdentity:\t{lease.holder_identity if lease is not None else '<unset>'}")
    lines.append(f"{LEVEL}AcquireTime:\t<unset>")
    lines.append(f"{LEVEL}RenewTime:\t{rfc1123z(renew, epoch) if renew is not None else '<unset>'}")
    if node.conditions:
        lines.append("Conditions:")
        lines.append(f"{LEVEL}Type\tStatus\tLastHeartbeatTime\tLastTransitionTime\tReason\tMessage")
        lines.append(f"{LEVEL}----\t------\t-----------------\t------------------\t------\t-------")
        for c in node.conditions.values():
            lines.append(f"{LEVEL}{c.type} \t{c.status} \t{rfc1123z(c.last_heartbeat_time or 0, epoch)} \t"
                         f"{rfc1123z(c.last_transition_time or 0, epoch)} \t{c.reason} \t{c.message}")
    lines.append("Addresses:")
    lines.append(f"{LEVEL}Hostname:\t{node.name}")
    for title, cpu, memory, pods in (("Capacity", node.capacity_cpu, node.capacity_memory, node.capacity_pods),
                                     ("Allocatable", node.allocatable_cpu, node.allocatable_memory,
                                      node.allocatable_pods)):
        lines.append(f"{title}:")
        lines.append(f"{LEVEL}cpu:\t{format_cpu(cpu)}")
        lines.append(f"{LEVEL}memory:\t{format_memory(memory)}")
        lines.append(f"{LEVEL}pods:\t{pods}")
    lines.append("System Info:")
    for field in ("Machine ID", "System UUID", "Boot ID", "Kernel Version", "OS Image", "Operating System",
                  "Architecture", "Container Runtime Version", "Kubelet Version"):
        lines.append(f"{LEVEL}{field}:\t")
    pods = [p for p in sorted(sim.store.pods_on(name), key=lambda p: (p.namespace, p.name))
            if p.phase not in ("Succeeded", "Failed")]
    lines.append(f"Non-terminated Pods:\t({len(pods)} in total)")
    lines.append(f"{LEVEL}Namespace\tName\t\tCPU Requests\tCPU Limits\tMemory Requests\tMemory Limits\tAge")
    lines.append(f"{LEVEL}---------\t----\t\t------------\t----------\t---------------\t-------------\t---")
    cpu_total = memory_total = 0
    for pod in pods:
        cpu_total += pod.cpu
        memory_total += pod.memory
        lines.append(f"{LEVEL}{pod.namespace}\t{pod.name}\t\t"
                     f"{format_cpu(pod.cpu)} ({_percent(pod.cpu, node.allocatable_cpu)}%)\t0 (0%)\t"
                     f"{format_memory(pod.memory)} ({_percent(pod.memory, node.allocatable_memory)}%)\t0 (0%)\t"
                     f"{format_age(now - pod.creation_time)}")
    lines.append("Allocated resources:")
    lines.append(f"{LEVEL}(Total limits may be over 100 percent, i.e., overcommitted.)")
    lines.append(f"{LEVEL}Resource\tRequests\tLimits")
    lines.append(f"{LEVEL}--------\t--------\t------")
    lines.append(f"{LEVEL}cpu\t{format_cpu(cpu_total)} ({_percent(cpu_total, node.allocatable_cpu)}%)\t0 (0%)")
    lines.append(f"{LEVEL}memory\t{format_memory(memory_total)} "
                 f"({_percent(memory_total, node.allocatable_memory)}%)\t0 (0%)")
    lines.append(f"{LEVEL}ephemeral-storage\t0 (0%)\t0 (0%)")
    lines += _events(sim, f"Node/{name}")
    return tabwrite("\n".join(lines))


# ---------------------------------------------------------------- pod


def _container_state(pod: "Pod", epoch: datetime) -> list[str]:
    """The one container's state, from the pod's phase and conditions (the simulation keeps no
    container statuses): Waiting while it starts, Running since ContainersReady, Terminated at the end."""
    ready = pod.conditions.get("ContainersReady")
    started = ready.last_transition_time if ready is not None and ready.status == "True" else None
    out = []
    if pod.phase in ("Succeeded", "Failed"):
        out.append(f"{LEVEL * 2}State:\tTerminated")
        out.append(f"{LEVEL * 3}Reason:\t{'Completed' if pod.phase == 'Succeeded' else 'Error'}")
        out.append(f"{LEVEL * 3}Exit Code:\t{0 if pod.phase == 'Succeeded' else 1}")
    elif pod.phase == "Running" and started is not None:
        out.append(f"{LEVEL * 2}State:\tRunning")
        out.append(f"{LEVEL * 3}Started:\t{rfc1123z(started, epoch)}")
    else:
        out.append(f"{LEVEL * 2}State:\tWaiting")
        out.append(f"{LEVEL * 3}Reason:\tContainerCreating")
    out.append(f"{LEVEL * 2}Ready:\t{'True' if ready is not None and ready.status == 'True' else 'False'}")
    out.append(f"{LEVEL * 2}Restart Count:\t0")
    return out


def describe_pod(sim: "Simulation", key: str, epoch: datetime = EPOCH) -> str:
    pod = sim.store.pods.get(key)
    if pod is None:
        namespace, _, name = key.partition("/")
        return f'Error from server (NotFound): pods "{name}" not found'
    lines = [f"Name:\t{pod.name}", f"Namespace:\t{pod.namespace}", f"Priority:\t{pod.priority}"]
    if pod.priority_class_name:
        lines.append(f"Priority Class Name:\t{pod.priority_class_name}")
    lines.append("Service Account:\tdefault")
    lines.append(f"Node:\t{pod.node_name}/" if pod.node_name else "Node:\t<none>")
    if pod.start_time is not None:
        lines.append(f"Start Time:\t{rfc1123z(pod.start_time, epoch)}")
    lines += _multiline("Labels", _labels(pod.labels))
    lines += _multiline("Annotations", [])
    if pod.deletion_timestamp is not None and pod.phase not in ("Succeeded", "Failed"):
        lines.append(f"Status:\tTerminating (lasts {format_age(sim.clock.now - pod.deletion_timestamp)})")
        lines.append(f"Termination Grace Period:\t{pod.deletion_grace_period_seconds or 0}s")
    else:
        lines.append(f"Status:\t{pod.phase}")
    if pod.reason:
        lines.append(f"Reason:\t{pod.reason}")
    if pod.message:
        lines.append(f"Message:\t{pod.message}")
    lines.append("IP:\t")
    lines.append("IPs:\t<none>")
    if pod.owner is not None:
        lines.append(f"Controlled By:\t{pod.owner.kind}/{pod.owner.name}")
    if pod.nominated_node_name:
        lines.append(f"NominatedNodeName:\t{pod.nominated_node_name}")
    lines.append("Containers:")
    lines.append(f"{LEVEL}{CONTAINER}:")
    status = pod.node_name is not None and pod.phase != "Pending" or pod.conditions.get("ContainersReady")
    if status:
        lines.append(f"{LEVEL * 2}Container ID:\t")
    lines.append(f"{LEVEL * 2}Image:\t{PAUSE_IMAGE}")
    if status:
        lines.append(f"{LEVEL * 2}Image ID:\t")
    lines.append(f"{LEVEL * 2}Port:\t<none>")
    lines.append(f"{LEVEL * 2}Host Port:\t<none>")
    if status:
        lines += _container_state(pod, epoch)
    requests = []
    if pod.cpu:
        requests.append(f"{LEVEL * 3}cpu:\t{format_cpu(pod.cpu)}")
    if pod.memory:
        requests.append(f"{LEVEL * 3}memory:\t{format_memory(pod.memory)}")
    if requests:
        lines.append(f"{LEVEL * 2}Requests:")
        lines += requests
    lines.append(f"{LEVEL * 2}Environment:\t<none>")
    if pod.empty_dir:
        lines.append(f"{LEVEL * 2}Mounts:")
        lines.append(f"{LEVEL * 3}/scratch from scratch (rw)")
    else:
        lines.append(f"{LEVEL * 2}Mounts:\t<none>")
    if pod.conditions:
        lines.append("Conditions:")
        lines.append(f"{LEVEL}Type\tStatus")
        for c in pod.conditions.values():
            lines.append(f"{LEVEL}{c.type} \t{c.status} ")
    if pod.empty_dir:
        lines.append("Volumes:")
        lines.append(f"{LEVEL}scratch:")
        lines.append(f"{LEVEL * 2}Type:\tEmptyDir (a temporary directory that shares a pod's lifetime)")
        lines.append(f"{LEVEL * 2}Medium:\t")
        lines.append(f"{LEVEL * 2}SizeLimit:\t<unset>")
    else:
        lines.append("Volumes:\t<none>")
    lines.append(f"QoS Class:\t{qos_class(pod)}")
    lines += _multiline("Node-Selectors", _labels(pod.node_selector))
    tolerations = sorted(pod.tolerations, key=lambda t: t.key)
    lines += _multiline("Tolerations", [_toleration(t) for t in tolerations])
    lines += _events(sim, f"Pod/{pod.namespace}/{pod.name}")
    return tabwrite("\n".join(lines))
