"""The kubelet of each node, and the machine it runs on.

Modelled after pkg/kubelet: the node lease in kube-node-lease renewed every
nodeLeaseDurationSeconds x 0.25, node status computed every nodeStatusUpdateFrequency and posted when
it changed or nodeStatusReportFrequency has passed, pod admission, container start and graceful stop.

Cost follows work: while a kubelet is healthy its periodic lease renewals and unchanged status reports
are not timers. Their times lie on a fixed grid, so `catch_up()` writes the latest renewTime and
heartbeat into the Lease and Node when someone reads them; the values are exactly those a polling
kubelet would have written. Only real changes (start, stop, partition, status changes) run timers.

The machine is separate from the kubelet: `power` (on/off), `network` (connected/partitioned) and
whether the kubelet process runs. Containers live on the machine: a partitioned node keeps running
them, a powered-off one loses them. When the kubelet can see the API server again it stops the
containers of pods deleted meanwhile: with the pod's grace period if this kubelet process knew the
pod, with 1 s if it is a freshly started process meeting containers it never knew (HandlePodCleanups).

Volumes: a pod's containers start only once its volumes are attached to this node (the attach/detach
controller's node.status.volumesAttached); they are mounted while the containers run, and the
kubelet reports them in node.status.volumesInUse whenever it can reach the API server -- a powered-off
or partitioned node keeps reporting what it last reported.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from . import binds
from .clock import PHASE_KUBELET
from .copies import copy_each
from .objects import FAILED, FALSE, TRUE, Condition, Lease, Node, Pod

if TYPE_CHECKING:
    from .simulation import Simulation

LEASE_RENEW_FRACTION = 0.25
# backoffEnsureLease: 100 ms doubled before each sleep, capped at 7 s.
LEASE_BACKOFF_START_MS = 100
LEASE_BACKOFF_MAX_MS = 7000
# kubelet.rejectPod and the predicate admit handler's InsufficientResourcePrefix
REJECTED_PREFIX = "Pod was rejected: "
SOURCE = "kubelet"
ADMISSION_REASON_PREFIX = "OutOf"
# the conditions the status manager sets True once the containers run (one tuple: the store's
# condition cache remembers the write by it)
RUNNING_CONDITIONS = ("ContainersReady", "Ready")
NO_CONTAINERS: dict = {}  # (never written)


@dataclass(slots=True)
class KubeletConfig:
    """KubeletConfiguration fields the simulation uses (durations in ms)."""

    node_status_update_frequency: int = 10_000
    node_status_report_frequency: int = 300_000
    node_lease_duration_seconds: int = 40
    shutdown_grace_period: int = 0
    shutdown_grace_period_critical_pods: int = 0
    shutdown_grace_period_by_pod_priority: list[tuple[int, int]] = field(default_factory=list)
    max_pods: int = 110

    @property
    def lease_renew_interval(self) -> int:
        return int(self.node_lease_duration_seconds * 1000 * LEASE_RENEW_FRACTION)


@dataclass(slots=True)
class Container:
    """The containers of one pod on one machine (the simulation treats a pod's containers as one)."""

    pod_key: str
    uid: int
    started: bool = False
    stopping: bool = False
    timer: int | None = None
    # What the kubelet remembers of the pod's spec, to stop the containers after the API object went.
    grace_seconds: int = 30
    stop_duration: int | None = None
    volumes: tuple[str, ...] = ()  # volume keys ("ns/claim") the pod mounts
    waiting_volumes: bool = False  # not started yet: its volumes are not attached to this node
    stop_at: int | None = None  # when the current stop ends (SIGKILL at the latest)
    known: bool = True  # the running kubelet process has seen this pod (False after a kubelet restart)


_NEW_CONTAINER = Container("", 0)  # the original of _new_containers' copies


class ContainerStarts:
    """Container starts due at one instant share one timer (150,000 pods placed at t=0 start at
    t=1 s: one timer instead of 150,000).

    The order of work stays exactly that of one timer per start: a start joins the open batch only if
    it is due at the same instant and no other timer was created since the batch's (so the starts of
    a batch would have had consecutive timer sequence numbers and run back to back), and a batch is
    closed when it runs. A container in a batch has `timer == -batch number`; cancelling or replacing
    its timer (stop, power-off, force delete) takes it out of the batch, as cancelling its own timer
    would. The timer's arguments are plain data (the batch number; the batch lists node and pod key)."""

    __slots__ = ("sim", "batches", "_open", "_open_due", "_open_timer", "_number")

    def __init__(self, sim: "Simulation") -> None:
        self.sim = sim
        self.batches: dict[int, list[tuple[str, str]]] = {}
        self._open: int | None = None
        self._open_due = 0
        self._open_timer = 0
        self._number = 0

    def add(self, node_name: str, container: "Container", due: int) -> None:
        clock = self.sim.clock
        # The newest timer id unchanged means no timer came between.
        if self._open is None or self._open_due != due or clock.newest_id() != self._open_timer:
            self._number += 1
            self._open = self._number
            self._open_due = due
            self.batches[self._open] = []
            self._open_timer = clock.call_at(due, PHASE_KUBELET, "kubelet.container_starts", self._open)
        self.batches[self._open].append((node_name, container.pod_key))
        container.timer = -self._open

    def open_batch(self) -> list[tuple[str, str]]:
        """The batch the last `add` joined: an add with the same due, before any other timer is set,
        joins it too (kubelet._start_admitted appends its run's starts)."""
        return self.batches[self._open]

    def run(self, number: int) -> None:
        """The batch's containers start, and their pods' Running reports are written together
        (Store.set_pods_running)."""
        if number == self._open:
            self._open = None
        kubelets = self.sim.kubelets

        def machine_of(node_name: str) -> tuple:  # (no start changes what it answers)
            kubelet = kubelets.get(node_name)
            return (kubelet.containers, kubelet.signalling) if kubelet is not None else (NO_CONTAINERS, False)

        # Kubelet.container_running for each, inlined: a batch is every pod started at one instant
        running = binds.start_batch(self.batches.pop(number, []), machine_of, self.sim.store.pods, number)
        if running:
            self.sim.store.set_pods_running(running, RUNNING_CONDITIONS)


def grid_last(anchor: int, period: int, now: int) -> int:
    """The last point anchor + k*period (k >= 0) at or before now."""
    if now <= anchor or period <= 0:
        return anchor
    return anchor + (now - anchor) // period * period


def grid_next(anchor: int, period: int, at_least: int) -> int:
    """The first point anchor + k*period (k >= 0) at or after at_least."""
    if at_least <= anchor or period <= 0:
        return anchor
    return anchor + -(-(at_least - anchor) // period) * period


def lease_backoff_success(first_failure: int, reachable_from: int) -> int:
    """When backoffEnsureLease, retrying since first_failure, first gets through after a heal."""
    attempt, sleep = first_failure, LEASE_BACKOFF_START_MS
    while attempt < reachable_from:
        sleep = min(2 * sleep, LEASE_BACKOFF_MAX_MS)
        attempt += sleep
    return attempt


def start_bound_pods(sim: "Simulation", pods: list[Pod]) -> None:
    """Kubelet.pod_bound for each of `pods`, bound together (Store.assign_pods), in order. When each
    kubelet that can write admits its pods with nothing written but their start (no shutdown under
    way, no volume, and the node's totals, which count every pod of the batch, fit: admit's first
    test, which each pod in turn passes too), their Initialized conditions are written together
    (Store.set_pods_condition) and their containers start, pod after pod: what one pod_bound after
    another does, as what a watcher does for a new pod's Initialized condition depends on that pod
    alone (the binds of a run the scheduler made quiet: no budget, no StatefulSet, no volume,
    equivalence.quiet_binds), and starting a container tells no one. Otherwise one pod_bound after
    another."""
    kubelets = sim.kubelets
    admitted = binds.admit_all(pods, kubelets, sim.store.nodes)
    if admitted is not None:
        _start_admitted(sim, admitted)
        return
    for pod in pods:
        kubelet = kubelets.get(pod.node_name or "")
        if kubelet is not None:
            kubelet.pod_bound(pod)


def _start_admitted(sim: "Simulation", admitted: list) -> None:
    fresh = [pod for _kubelet, pod in admitted if pod.start_time is None]
    sim.store.set_pods_condition(fresh, "Initialized", TRUE)
    now = sim.clock.now
    for pod in fresh:
        pod.start_time = now
    if not Kubelet.batch_starts:
        for kubelet, pod in admitted:
            kubelet._start_container(pod)
        return
    # _start_container and _mount_and_start for each pod (none has volumes), inlined
    starts = sim.container_starts
    binds.add_containers(admitted, _new_containers([pod for _kubelet, pod in admitted]), now, starts.add,
                         starts.open_batch)


def _new_containers(pods: list[Pod]) -> list[Container]:
    """A Container for each of `pods`, not started, without volumes: copies of one (copies.py), each
    with its pod's own fields."""
    if copy_each is None or not pods:
        return [Container(pod.key, pod.uid, False, False, None, pod.termination_grace_period_seconds,
                          pod.stop_duration, ()) for pod in pods]
    return copy_each(_NEW_CONTAINER, ("pod_key", "uid", "grace_seconds", "stop_duration"),
                     ([pod.key for pod in pods], [pod.uid for pod in pods],
                      [pod.termination_grace_period_seconds for pod in pods], [pod.stop_duration for pod in pods]))


class Kubelet:
    """One node's kubelet and machine."""

    # Container starts go through the simulation's ContainerStarts batches; False gives each start its
    # own timer (the reference the equivalence test compares with).
    batch_starts = True

    # Slots: a bind's admission and a container's start read a kubelet a pod (a run's pods each land
    # on a node of their own), in its slots, not in an instance dict (binds.py, _binds.c).
    __slots__ = ("sim", "node_name", "config", "power", "network", "running", "containers", "lease_anchor",
                 "lease_renew_time", "status_anchor", "last_report", "status_timer", "reachable_at", "lost_at",
                 "shutdown", "mounted", "boot", "process", "status_boot")

    def __init__(self, sim: "Simulation", node_name: str, config: KubeletConfig) -> None:
        self.sim = sim
        self.node_name = node_name
        self.config = config
        self.power = "on"
        self.network = "connected"
        self.running = True
        self.containers: dict[str, Container] = {}
        # Lease renewals lie on a grid anchored at lease_anchor while the kubelet can reach the API.
        self.lease_anchor = 0
        self.lease_renew_time: int | None = None
        # Status: the sync loop's grid, the last report the API server got.
        self.status_anchor = 0
        self.last_report = 0
        self.status_timer: int | None = None
        self.reachable_at: int | None = None  # a heal's lease backoff not finished yet
        self.lost_at: int | None = None
        self.shutdown = None  # set by the node shutdown manager while a shutdown runs
        self.mounted: dict[str, str] = {}  # volume key -> pod key: volumes mounted on this machine
        self.boot = 0  # machine boots so far (power-on after power-off)
        self.process = 0  # kubelet processes started so far: each has its own event recorder
        self.status_boot: tuple[int, int] | None = None  # (Node uid, boot) whose bootID the status carries

    # ---------------------------------------------------------------- state

    @property
    def signalling(self) -> bool:
        """Can this kubelet write to the API server right now?"""
        return self.power == "on" and self.running and self.network == "connected" and self.reachable_at is None

    @property
    def node(self) -> Node | None:
        return self.sim.store.nodes.get(self.node_name)

    def state_label(self) -> str:
        if self.power == "off":
            return "PoweredOff"
        if self.shutdown is not None:
            return "ShuttingDown"
        if not self.running:
            return "KubeletStopped"
        if self.network != "connected":
            return "Partitioned"
        if self.reachable_at is not None:
            return "Reconnecting"
        return "Running"

    def event(self, type_: str, reason: str, obj: str, message: str) -> None:
        """An event from this kubelet process (source kubelet, host = the node)."""
        self.sim.store.event(type_, reason, obj, message, SOURCE, instance=f"{self.node_name}#{self.process}")

    # ---------------------------------------------------------------- registration

    def register(self) -> None:
        """Kubelet start: registerWithAPIServer (re-creates the Node object if it was deleted), lease,
        first status, pods."""
        now = self.sim.clock.now
        self.sim.nodelifecycle.watch(self.node_name)  # signalling again
        if self.node is None:
            self.sim.register_node(self.node_name)
        self.lease_anchor = now
        self.status_anchor = now
        store = self.sim.store
        if self.node_name not in store.leases:
            store.leases[self.node_name] = Lease(self.node_name, self.node_name, self.config.node_lease_duration_seconds)
        self.lease_renew_time = now
        self._write_lease()
        self.sync_status(force=True)
        self.reconcile_pods()
        self.report_volumes()

    # ---------------------------------------------------------------- lease and status

    def catch_up(self, before: int | None = None) -> None:
        """Write the periodic lease renewals and status reports due by now, or strictly before
        `before` (see module doc)."""
        if not self.signalling:
            return
        now = self.sim.clock.now if before is None else before - 1
        renew = grid_last(self.lease_anchor, self.config.lease_renew_interval, now)
        if self.lease_renew_time is None or renew > self.lease_renew_time:
            # A periodic renewal is derived data, filled in when read: it does not enter the change
            # set, or every reader (the UI's lease ages) would mark the nodes it reads as changed.
            self.lease_renew_time = renew
        report = self._last_periodic_report(now)
        if report > self.last_report and self._status_current():
            self.last_report = report
            node = self.node
            if node is not None:
                for cond in node.conditions.values():
                    if cond.type != "NetworkUnavailable":
                        cond.last_heartbeat_time = report

    def _status_current(self) -> bool:
        """Does the Node hold the conditions this kubelet would post? Only then is a periodic
        report a heartbeat on them; otherwise (the node lifecycle controller set Unknown while this
        kubelet was cut off) the kubelet's next sync posts its own conditions (sync_status)."""
        node = self.node
        if node is None:
            return True
        for ctype, want in self.desired_conditions().items():
            cond = node.conditions.get(ctype)
            if cond is None or (cond.status, cond.reason, cond.message) != want:
                return False
        return True

    def _last_periodic_report(self, now: int) -> int:
        period = self.config.node_status_update_frequency
        report = self.last_report
        while True:
            nxt = grid_next(self.status_anchor, period, report + self.config.node_status_report_frequency)
            if nxt > now:
                return report
            report = nxt

    def last_signal(self) -> int:
        """The newest of lease renewTime and Ready heartbeat as the API server has them."""
        self.catch_up()
        node = self.node
        ready = node.conditions.get("Ready") if node else None
        heartbeat = ready.last_heartbeat_time if ready and ready.last_heartbeat_time is not None else -1
        return max(self.lease_renew_time if self.lease_renew_time is not None else -1, heartbeat)

    def _write_lease(self) -> None:
        lease = self.sim.store.leases.get(self.node_name)
        if lease is not None:
            self.sim.store.changes.nodes.add(self.node_name)

    def desired_conditions(self) -> dict[str, tuple[str, str, str]]:
        """setters.go: what this kubelet would report now (type -> status, reason, message)."""
        conditions = {
            "MemoryPressure": (FALSE, "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
            "DiskPressure": (FALSE, "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
            "PIDPressure": (FALSE, "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
        }
        if self.shutdown is not None:
            conditions["Ready"] = (FALSE, "KubeletNotReady", "node is shutting down")
        else:
            conditions["Ready"] = (TRUE, "KubeletReady", "kubelet is posting ready status")
        return conditions

    def sync_status(self, force: bool = False) -> None:
        """tryUpdateNodeStatus: patch when anything changed or the report period has passed."""
        self.status_timer = None
        node = self.node
        if node is None or not self.signalling:
            return
        now = self.sim.clock.now
        self.catch_up()
        desired = self.desired_conditions()
        changed = any(
            (c := node.conditions.get(t)) is None or (c.status, c.reason, c.message) != want
            for t, want in desired.items()
        )
        if not (force or changed or now - self.last_report >= self.config.node_status_report_frequency):
            return
        self._check_boot_id(node)
        old_ready = node.ready_status()
        conditions = dict(node.conditions)
        for ctype, (status, reason, message) in desired.items():
            old = node.conditions.get(ctype)
            transition = old.last_transition_time if old and old.status == status else now
            conditions[ctype] = Condition(ctype, status, reason, message, now, transition)
        self.last_report = now
        self.sim.store.set_node_conditions(node, conditions)
        new_ready = conditions["Ready"].status
        if new_ready != old_ready:
            status_event = "NodeReady" if new_ready == TRUE else "NodeNotReady"
            self.event("Normal", status_event, f"Node/{self.node_name}",
                       f"Node {self.node_name} status is now: {status_event}")

    def boot_id(self) -> str:
        """node.status.nodeInfo.bootID: a random UUID per boot on a real machine; here derived from
        the node's name and boot number so that no draw of the simulation's RNG is spent."""
        digest = hashlib.md5(f"{self.node_name}/{self.boot}".encode()).digest()
        return str(uuid.UUID(bytes=digest, version=4))

    def _check_boot_id(self, node: Node) -> None:
        """The MachineInfo status setter: a Node whose status holds another boot's bootID gets the
        Warning Rebooted event (a re-created Node object starts without one)."""
        seen = self.status_boot
        if seen is not None and seen[0] == node.uid and seen[1] != self.boot:
            self.event("Warning", "Rebooted", f"Node/{self.node_name}",
                       f"Node {self.node_name} has been rebooted, boot id: {self.boot_id()}")
        self.status_boot = (node.uid, self.boot)

    def schedule_status_sync(self) -> None:
        """Post at the next tick of the status loop (used after a heal)."""
        if self.status_timer is not None:
            return
        due = grid_next(self.status_anchor, self.config.node_status_update_frequency, self.sim.clock.now)
        self.status_timer = self.sim.clock.call_at(due, PHASE_KUBELET, "kubelet.sync_status", self.node_name)

    # ---------------------------------------------------------------- machine and process

    def catch_up_for_reader(self) -> None:
        """catch_up for a reader between two ticks (the UI): only what is due strictly before now.
        An operation at this instant runs before the kubelets (`_go_silent`), so a renewal due at
        this very instant has not happened yet; written by a reader, it made a power-off that
        followed count it (the node went NotReady one renewal later than a replay of the session)."""
        self.catch_up(before=self.sim.clock.now)

    def _go_silent(self) -> None:
        """Freeze the lease and status where the API server last saw them. An operation runs before
        the kubelets at its instant, so a renewal due at this very instant does not happen."""
        self.catch_up(before=self.sim.clock.now)
        self.lost_at = self.sim.clock.now
        self.sim.clock.cancel(self.status_timer)
        self.status_timer = None
        self.sim.nodelifecycle.watch(self.node_name)

    def power_off(self) -> None:
        if self.signalling:
            self._go_silent()
        self.power = "off"
        self.running = False
        self.reachable_at = None
        for container in self.containers.values():
            self.sim.clock.cancel(container.timer)
        self.containers.clear()
        self.mounted.clear()  # gone with the machine; the API still lists them in use
        self.shutdown = None
        self.sim.nodeshutdown.shutting_down.discard(self.node_name)

    def power_on(self) -> None:
        self.boot += 1
        self.process += 1
        self.power = "on"
        self.running = True
        self.network = "connected"
        self.reachable_at = None
        self.event("Normal", "Starting", f"Node/{self.node_name}", "Starting kubelet.")
        self.register()

    def stop_process(self) -> None:
        if self.signalling:
            self._go_silent()
        self.running = False
        self.reachable_at = None
        for container in self.containers.values():
            container.known = False  # the next kubelet process starts with an empty pod worker
        if self.shutdown is not None:
            # The kubelet held logind's delay inhibitor lock; with the process gone the OS shuts down now.
            self.power_off()

    def start_process(self) -> None:
        self.process += 1
        self.running = True
        self.reachable_at = None
        self.event("Normal", "Starting", f"Node/{self.node_name}", "Starting kubelet.")
        if self.network == "connected":
            self.register()

    def partition(self) -> None:
        if self.signalling:
            self._go_silent()
        self.network = "partitioned"
        self.reachable_at = None

    def heal(self) -> None:
        self.network = "connected"
        if not (self.power == "on" and self.running):
            return
        now = self.sim.clock.now
        first_failure = (self.lease_renew_time or 0) + self.config.lease_renew_interval
        back = lease_backoff_success(first_failure, now) if first_failure < now else first_failure
        self.reachable_at = back
        self.sim.clock.call_at(back, PHASE_KUBELET, "kubelet.reconnected", self.node_name)

    def reconnected(self) -> None:
        """backoffEnsureLease got through: renew, re-anchor the loops, reconcile pods."""
        if self.reachable_at is None or self.network != "connected":
            return
        self.reachable_at = None
        self.sim.nodelifecycle.watch(self.node_name)  # signalling again
        now = self.sim.clock.now
        self.lease_anchor = now
        self.lease_renew_time = now
        self._write_lease()
        self.schedule_status_sync()
        self.reconcile_pods()
        self.report_volumes()

    # ---------------------------------------------------------------- pods

    def pod_bound(self, pod: Pod) -> None:
        if not self.signalling or pod.key in self.containers:
            return
        if self.shutdown is not None and self.sim.nodeshutdown.reject_pod(self, pod):
            return
        rejection = self.admit(pod)
        if rejection is not None:
            self.reject_pod(pod, *rejection)
            return
        if pod.start_time is None:
            self.sim.store.set_pod_condition(pod, "Initialized", TRUE)
            pod.start_time = self.sim.clock.now
        self._start_container(pod)

    totals_fit = staticmethod(binds.totals_fit)

    def admit(self, pod: Pod) -> tuple[str, str] | None:
        """The predicate admit handler (pkg/kubelet/lifecycle/predicate.go): the scheduler's
        NodeResourcesFit against the pods this kubelet has admitted. None, or (reason, message) of
        the first insufficient resource, checked as Fits checks them: pods, cpu, memory."""
        node = self.node
        # The store already counts this pod on the node: when every bound pod fits, it fits too.
        if node is None or self.totals_fit(node):
            return None
        pods = cpu = memory = 0
        store = self.sim.store
        for key, container in self.containers.items():
            other = store.pods.get(key)
            if key == pod.key or other is None or other.uid != container.uid or other.is_terminal():
                continue
            pods += 1
            cpu += other.cpu
            memory += other.memory
        checks = (("pods", 1, pods, node.allocatable_pods, True),
                  ("cpu", pod.cpu, cpu, node.allocatable_cpu, pod.cpu > 0),
                  ("memory", pod.memory, memory, node.allocatable_memory, pod.memory > 0))
        for resource, requested, used, capacity, checked in checks:
            if checked and requested > capacity - used:
                return (ADMISSION_REASON_PREFIX + resource,
                        f"Node didn't have enough resource: {resource}, requested: {requested}, "
                        f"used: {used}, capacity: {capacity}")
        return None

    def reject_pod(self, pod: Pod, reason: str, message: str) -> None:
        """rejectPod: a Warning event with the admit handler's words; the pod Failed with
        "Pod was rejected: " before them."""
        store = self.sim.store
        self.event("Warning", reason, pod.ref, message)
        store.set_pod_phase(pod, FAILED, reason, REJECTED_PREFIX + message)

    def _start_container(self, pod: Pod) -> None:
        volumes = self.sim.attachdetach.volume_keys(pod) if pod.volume_claims else ()
        # positional (pod_key, uid, started, stopping, timer, grace_seconds, stop_duration, volumes):
        # keywords cost a microsecond a pod at 150,000 pods
        container = Container(pod.key, pod.uid, False, False, None, pod.termination_grace_period_seconds,
                              pod.stop_duration, volumes)
        self.containers[pod.key] = container
        if volumes and not all(self.sim.attachdetach.attached(v, self.node_name) for v in volumes):
            container.waiting_volumes = True  # WaitForAttachAndMount
            return
        self._mount_and_start(container, pod)

    def _mount_and_start(self, container: Container, pod: Pod) -> None:
        container.waiting_volumes = False
        if container.volumes:
            for volume in container.volumes:
                self.mounted[volume] = container.pod_key
            self.report_volumes()
        due = self.sim.clock.now + pod.start_duration
        if self.batch_starts:
            self.sim.container_starts.add(self.node_name, container, due)
        else:
            container.timer = self.sim.clock.call_at(due, PHASE_KUBELET, "kubelet.container_started",
                                                     self.node_name, pod.key)

    def volume_attached(self, volume_key: str) -> None:
        """The attach/detach controller attached a volume here (node.status.volumesAttached)."""
        if not self.signalling:
            return
        for container in list(self.containers.values()):
            if not container.waiting_volumes or container.stopping or volume_key not in container.volumes:
                continue
            pod = self.sim.store.pods.get(container.pod_key)
            if pod is None or pod.uid != container.uid:
                continue
            if all(self.sim.attachdetach.attached(v, self.node_name) for v in container.volumes):
                self._mount_and_start(container, pod)

    def _unmount(self, container: Container) -> None:
        released = [v for v in container.volumes if self.mounted.get(v) == container.pod_key]
        for volume in released:
            del self.mounted[volume]
        if released:
            self.report_volumes()

    def report_volumes(self) -> None:
        """node.status.volumesInUse, as far as this kubelet can tell the API server."""
        if self.signalling and self.node is not None:
            self.sim.attachdetach.volumes_in_use(self.node_name, set(self.mounted))

    def container_started(self, pod_key: str) -> None:
        container = self.containers.get(pod_key)
        if container is not None:
            self.started(container)

    def started(self, container: Container) -> None:
        """The containers of a pod run (its start timer fired)."""
        pod = self.container_running(container)
        if pod is not None:
            self._report_running(pod)

    def container_running(self, container: Container) -> Pod | None:
        """Mark the containers of a pod started; the pod whose Running report is due (None when its
        API object went or this kubelet cannot write)."""
        container.timer = None
        container.started = True
        pod = self.sim.store.pods.get(container.pod_key)
        if pod is None or pod.uid != container.uid or not self.signalling:
            return None
        return pod

    def _report_running(self, pod: Pod) -> None:
        self.sim.store.set_pod_running(pod, RUNNING_CONDITIONS)

    def pod_deleting(self, pod: Pod) -> None:
        """The pod got a deletionTimestamp: stop its containers within its grace period."""
        if not self.signalling:
            return
        container = self.containers.get(pod.key)
        if container is None or container.uid != pod.uid:
            self.sim.store.remove_pod(pod)
            return
        grace = (pod.deletion_grace_period_seconds or 0) * 1000
        self.stop_container(container, grace, pod)

    def stop_container(self, container: Container, grace_ms: int, pod: Pod | None) -> None:
        """SIGTERM now; the app exits after its stopDuration, SIGKILL at the end of the grace period.
        A second kill may only bring the end forward (the pod worker lets a grace period shrink)."""
        stop_duration = container.stop_duration if pod is None else pod.stop_duration
        stop_after = grace_ms if stop_duration is None else min(stop_duration, grace_ms)
        if container.waiting_volumes:
            stop_after = 0  # nothing was started
        now = self.sim.clock.now
        if container.stopping and container.timer is not None:
            if container.stop_at is None or now + stop_after >= container.stop_at:
                return
        elif pod is not None:
            self.event("Normal", "Killing", pod.ref, "Stopping container main")
        self.sim.clock.cancel(container.timer)
        container.stopping = True
        container.stop_at = now + stop_after
        container.timer = self.sim.clock.call_at(
            now + stop_after, PHASE_KUBELET, "kubelet.container_stopped", self.node_name, container.pod_key
        )

    def container_stopped(self, pod_key: str) -> None:
        container = self.containers.pop(pod_key, None)
        if container is None:
            return
        self._unmount(container)
        pod = self.sim.store.pods.get(pod_key)
        if pod is None:
            return
        if pod.uid != container.uid:
            # A pod of the same name (a StatefulSet replica) waited for the old containers to go.
            if pod.node_name == self.node_name and not pod.is_terminal() and pod.deletion_timestamp is None:
                self.pod_bound(pod)
            return
        self.sim.nodeshutdown.container_stopped(self, pod)
        if pod.deletion_timestamp is not None and self.signalling:
            # The kubelet's final delete once the containers are gone.
            self.sim.store.remove_pod(pod)

    def pod_removed(self, pod: Pod) -> None:
        """The API object is gone (force delete): kill the containers if the kubelet can see it."""
        container = self.containers.get(pod.key)
        if container is None or container.uid != pod.uid or not self.signalling:
            return
        self.sim.clock.cancel(container.timer)
        del self.containers[pod.key]
        self._unmount(container)

    def reconcile_pods(self) -> None:
        """After (re)connecting: line the machine's containers up with the API's pods."""
        store = self.sim.store
        for key, container in list(self.containers.items()):
            pod = store.pods.get(key)
            if pod is None or pod.uid != container.uid or pod.node_name != self.node_name:
                # Deleted while this kubelet could not see it: killed with the grace period of the spec
                # it remembers, or with 1 s when a restarted kubelet finds containers it never knew
                # (HandlePodCleanups: "Clean up containers for orphaned pod we had not seen before").
                grace = container.grace_seconds if container.known else 1
                self.stop_container(container, grace * 1000, None)
                continue
            container.known = True
        for pod in store.pods_on(self.node_name):
            if pod.is_terminal():
                continue
            if pod.deletion_timestamp is not None:
                self.pod_deleting(pod)
                continue
            container = self.containers.get(pod.key)
            if container is None:
                self.pod_bound(pod)
            elif container.uid == pod.uid and container.started:
                self._report_running(pod)
            elif container.uid == pod.uid and container.waiting_volumes and not container.stopping and all(
                    self.sim.attachdetach.attached(v, self.node_name) for v in container.volumes):
                self._mount_and_start(container, pod)  # attached while this kubelet could not hear of it
