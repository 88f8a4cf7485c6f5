"""kubectl drain (staging/src/k8s.io/kubectl/pkg/drain and pkg/cmd/drain), run on the virtual clock.

A drain cordons the node, lists its pods (optionally narrowed by --pod-selector) and runs kubectl's
filters in order: skipDeleted (--skip-wait-for-delete-timeout), daemonSet (needs
--ignore-daemonsets; the pods are left running), mirror (skipped), localStorage (emptyDir needs
--delete-emptydir-data) and unreplicated (pods without a controller need --force). Any error aborts
the drain before anything is evicted, with kubectl's "cannot delete ..." message; the node stays
cordoned.

Then every pod is evicted concurrently through the Eviction API (disruption.py): a 429 from a
PodDisruptionBudget is printed and retried every 5 s (EvictErrorRetryDelay), forever or until
--timeout; an accepted eviction is followed by a wait, polling every second, until the pod is gone
or its UID changed. --disable-eviction deletes the pods instead (no budgets) and waits for them all.

Every line kubectl would print is kept in the drain's `output`, and recorded as an event with reason
"Drain" from source "kubectl" (kubectl itself writes no Kubernetes events; identical lines of one
drain, such as the retry every 5 s, are recorded once and counted in the status instead).
`Drainer.status[node]` is the drain status the UI reads: pods remaining, which budget blocks which
pod, the next retry.

Cost follows work: a blocked pod costs one timer per retry; a pod being deleted costs nothing until
its removal is observed, when one timer marks the poll that sees it.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .clock import PHASE_OPERATIONS
from .objects import FAILED, SUCCEEDED, Pod
from .store import watches

if TYPE_CHECKING:
    from .simulation import Simulation

SOURCE = "kubectl"
REASON = "Drain"
EVICT_ERROR_RETRY_DELAY_MS = 5000
POLL_INTERVAL_MS = 1000
OUTPUT_LIMIT = 1000

DAEMONSET_FATAL = "DaemonSet-managed Pods (use --ignore-daemonsets to ignore)"
DAEMONSET_WARNING = "ignoring DaemonSet-managed Pods"
LOCAL_STORAGE_FATAL = "Pods with local storage (use --delete-emptydir-data to override)"
LOCAL_STORAGE_WARNING = "deleting Pods with local storage"
UNMANAGED_FATAL = "Pods that declare no controller (use --force to override)"
UNMANAGED_WARNING = "deleting Pods that declare no controller"

# Pod states in a drain.
BLOCKED, TERMINATING, EVICTED, DELETED, SKIPPED, FAILED_POD, GONE = (
    "Blocked", "Terminating", "Evicted", "Deleted", "Skipped", "Failed", "Gone")
DONE_STATES = (EVICTED, DELETED, SKIPPED, FAILED_POD, GONE)


def go_duration(ms: int) -> str:
    """time.Duration.String(): 5s, 1m0s, 1h30m0s, 1.5s, 500ms."""
    if ms == 0:
        return "0s"
    if ms < 1000:
        return f"{ms}ms"
    hours, rest = divmod(ms, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    seconds = f"{rest // 1000}.{rest % 1000:03d}".rstrip("0").rstrip(".") + "s"
    if hours:
        return f"{hours}h{minutes}m{seconds}"
    if minutes:
        return f"{minutes}m{seconds}"
    return seconds


_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][-A-Za-z0-9_./]*)\s*(==|=|!=)\s*([-A-Za-z0-9_.]*)\s*$")


def parse_pod_selector(text: str) -> list[tuple[str, str, str]]:
    """An equality-based label selector ("app=web,tier!=db"); ValueError if it is not one."""
    if not text.strip():
        return []
    out = []
    for part in text.split(","):
        match = _REQUIREMENT.match(part)
        if not match:
            raise ValueError(part)
        key, op, value = match.groups()
        out.append((key, "!=" if op == "!=" else "=", value))
    return out


def selector_matches(requirements: list[tuple[str, str, str]], labels: dict[str, str]) -> bool:
    for key, op, value in requirements:
        if op == "=" and labels.get(key) != value:
            return False
        if op == "!=" and labels.get(key) == value:
            return False
    return True


@dataclass(slots=True)
class DrainOptions:
    """kubectl drain's flags (drain.Helper fields)."""

    ignore_daemonsets: bool = False  # --ignore-daemonsets
    delete_emptydir_data: bool = False  # --delete-emptydir-data
    force: bool = False  # --force
    grace_period_seconds: int = -1  # --grace-period (negative: the pod's own)
    timeout: int = 0  # --timeout in ms (0: forever)
    disable_eviction: bool = False  # --disable-eviction
    pod_selector: str = ""  # --pod-selector
    skip_wait_for_delete_timeout: int = 0  # --skip-wait-for-delete-timeout in seconds


@dataclass(slots=True)
class DrainPod:
    """One pod of a drain: kubectl's goroutine for it."""

    key: str
    name: str
    namespace: str
    uid: int
    state: str = ""
    attempts: int = 0  # eviction requests sent
    refusals: int = 0  # of which refused (429)
    blocked_by: str | None = None  # "ns/name" of the PodDisruptionBudget behind the last 429
    message: str = ""  # the last error
    cause: str = ""  # the last 429's DisruptionBudget cause
    next_retry: int | None = None
    accepted_at: int | None = None  # eviction or deletion accepted; polls every second from here
    finished_at: int | None = None
    timer: int | None = None

    @property
    def done(self) -> bool:
        return self.state in DONE_STATES


@dataclass(slots=True)
class DrainStatus:
    node: str
    options: DrainOptions
    started_at: int
    run: int
    phase: str = "Running"  # Running, Drained, Failed, Cancelled
    pods: dict[str, DrainPod] = field(default_factory=dict)
    ignored: list[str] = field(default_factory=list)  # DaemonSet pods left running
    skipped: list[str] = field(default_factory=list)  # mirror pods, long-deleted pods
    warnings: str = ""
    error: str = ""
    errors: list[str] = field(default_factory=list)
    finished_at: int | None = None
    output: deque = field(default_factory=lambda: deque(maxlen=OUTPUT_LIMIT))  # (time, "out"|"err", line)
    printed: set[str] = field(default_factory=set)
    deadline: int | None = None
    deadline_timer: int | None = None

    @property
    def state(self) -> str:
        """Draining, Blocked (a budget refused the last eviction of some pod), Drained, Failed, Cancelled."""
        if self.phase != "Running":
            return self.phase
        return "Blocked" if any(p.state == BLOCKED for p in self.pods.values()) else "Draining"

    @property
    def remaining(self) -> list[DrainPod]:
        return [p for p in self.pods.values() if not p.done]

    @property
    def blocked(self) -> dict[str, str]:
        """pod key -> the PodDisruptionBudget that refused its last eviction."""
        return {p.key: p.blocked_by or "" for p in self.pods.values() if p.state == BLOCKED}

    @property
    def next_retry(self) -> int | None:
        times = [p.next_retry for p in self.pods.values() if p.state == BLOCKED and p.next_retry is not None]
        return min(times) if times else None

    @property
    def using_eviction(self) -> bool:
        return not self.options.disable_eviction


class Drainer:
    def __init__(self, sim: "Simulation") -> None:
        self.sim = sim
        self.status: dict[str, DrainStatus] = {}
        self._run = 0
        self._waiting: dict[str, tuple[str, int]] = {}  # pod key -> (node, run) waiting for it to go
        sim.store.pod_watchers.append(self._on_pod_event)

    # ---------------------------------------------------------------- output

    def _print(self, status: DrainStatus, line: str, stream: str = "out") -> None:
        status.output.append((self.sim.clock.now, stream, line))
        self.sim.store.changes.drains.add(status.node)
        if line in status.printed:
            return
        status.printed.add(line)
        self.sim.store.event("Warning" if stream == "err" else "Normal", REASON, f"Node/{status.node}", line, SOURCE)

    # ---------------------------------------------------------------- start

    def running(self, node: str) -> DrainStatus | None:
        status = self.status.get(node)
        return status if status is not None and status.phase == "Running" else None

    def start(self, node_name: str, options: DrainOptions, cordon_line: str) -> DrainStatus:
        """RunDrain after the cordon: filter the node's pods, then evict or delete them."""
        now = self.sim.clock.now
        self._run += 1
        status = DrainStatus(node_name, options, now, self._run)
        old = self.status.get(node_name)
        if old is not None:
            self._forget(old)
        self.status[node_name] = status
        self._print(status, cordon_line)
        if options.timeout > 0:
            status.deadline = now + options.timeout
        selector = parse_pod_selector(options.pod_selector)
        pods = sorted((p for p in self.sim.store.pods_on(node_name) if selector_matches(selector, p.labels)),
                      key=lambda p: p.key)
        to_delete, warnings, errors = self._filter(status, pods)
        if errors:
            status.error = errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"
            self._finish_failed(status, pending=None)
            return status
        if warnings:
            status.warnings = "; ".join(warnings)
            self._print(status, f"Warning: {status.warnings}", "err")
        for pod in to_delete:
            status.pods[pod.key] = DrainPod(pod.key, pod.name, pod.namespace, pod.uid)
        if not to_delete:
            self._finish(status)
            return status
        if status.deadline is not None:
            status.deadline_timer = self.sim.clock.call_at(status.deadline, PHASE_OPERATIONS, "drain.deadline",
                                                           node_name, status.run)
        if options.disable_eviction:
            for entry in list(status.pods.values()):
                self._delete(status, entry)
        else:
            for entry in list(status.pods.values()):
                self._evict(status, entry)
        self._maybe_finish(status)
        return status

    def _filter(self, status: DrainStatus, pods: list[Pod]) -> tuple[list[Pod], list[str], list[str]]:
        """GetPodsForDeletion: kubectl's filters in order; only the last filter's status counts."""
        options = status.options
        warnings: dict[str, list[str]] = {}
        errors: dict[str, list[str]] = {}
        to_delete: list[Pod] = []
        now = self.sim.clock.now
        for pod in pods:
            name = f"{pod.namespace}/{pod.name}"
            finished = pod.phase in (SUCCEEDED, FAILED)
            kind, message = "Okay", ""
            delete = True
            # skipDeletedFilter
            if self._long_deleted(pod, options.skip_wait_for_delete_timeout, now):
                kind, delete = "Skip", False
            # daemonSetFilter
            elif pod.owner is not None and pod.owner.kind == "DaemonSet" and not finished:
                exists = any(d.name == pod.owner.name and d.namespace == pod.namespace
                             for d in self.sim.store.daemonsets.values())
                if not exists:
                    not_found = f'daemonsets.apps "{pod.owner.name}" not found'
                    if options.force:
                        kind, message = "Warning", not_found
                    else:
                        kind, message, delete = "Error", not_found, False
                elif not options.ignore_daemonsets:
                    kind, message, delete = "Error", DAEMONSET_FATAL, False
                else:
                    kind, message, delete = "Warning", DAEMONSET_WARNING, False
            if delete:
                # mirrorPodFilter
                if pod.mirror:
                    kind, message, delete = "Skip", "", False
            if delete:
                # localStorageFilter
                kind, message = "Okay", ""
                if pod.empty_dir and not finished:
                    if not options.delete_emptydir_data:
                        kind, message, delete = "Error", LOCAL_STORAGE_FATAL, False
                    else:
                        kind, message = "Warning", LOCAL_STORAGE_WARNING
            if delete:
                # unreplicatedFilter (its status replaces the local-storage warning, as in kubectl)
                kind, message = "Okay", ""
                if not finished and pod.owner is None:
                    if options.force:
                        kind, message = "Warning", UNMANAGED_WARNING
                    else:
                        kind, message, delete = "Error", UNMANAGED_FATAL, False
            if kind == "Warning":
                warnings.setdefault(message, []).append(name)
            elif kind == "Error":
                errors.setdefault(message, []).append(name)
            if delete:
                to_delete.append(pod)
            elif kind == "Warning" and message == DAEMONSET_WARNING:
                status.ignored.append(pod.key)
            elif kind == "Skip":
                status.skipped.append(pod.key)
        return (to_delete,
                [f"{message}: {', '.join(names)}" for message, names in warnings.items()],
                [f"cannot delete {message}: {', '.join(names)}" for message, names in errors.items()])

    @staticmethod
    def _long_deleted(pod: Pod, seconds: int, now: int) -> bool:
        """shouldSkipPod: the DeletionTimestamp is more than N whole seconds old."""
        return (seconds > 0 and pod.deletion_timestamp is not None
                and (now - pod.deletion_timestamp) // 1000 > seconds)

    # ---------------------------------------------------------------- evict / delete

    def _grace(self, status: DrainStatus) -> int | None:
        grace = status.options.grace_period_seconds
        return grace if grace >= 0 else None

    def _evict(self, status: DrainStatus, entry: DrainPod) -> None:
        """One pass of kubectl's eviction loop for a pod."""
        now = self.sim.clock.now
        entry.timer = None
        entry.next_retry = None
        self._print(status, f"evicting pod {entry.namespace}/{entry.name}")
        if status.deadline is not None and now >= status.deadline:
            self._fail_pod(status, entry, f'error when evicting pods/"{entry.name}" -n "{entry.namespace}": '
                                          f"global timeout reached: {go_duration(status.options.timeout)}")
            return
        pod = self.sim.store.pods.get(entry.key)
        entry.attempts += 1
        result = self.sim.disruption.evict(pod, self._grace(status), name=entry.name)
        if result.code == 201:
            entry.uid = pod.uid if pod is not None else entry.uid
            self._accepted(status, entry)
        elif result.code == 404:
            entry.state = GONE
            entry.finished_at = now
        elif result.code == 429:
            entry.refusals += 1
            entry.state = BLOCKED
            entry.blocked_by = result.pdb
            entry.message = result.message
            entry.cause = result.cause
            entry.next_retry = now + EVICT_ERROR_RETRY_DELAY_MS
            self._print(status, f'error when evicting pods/"{entry.name}" -n "{entry.namespace}" (will retry after '
                                f"{go_duration(EVICT_ERROR_RETRY_DELAY_MS)}): {result.message}", "err")
            entry.timer = self.sim.clock.call_at(entry.next_retry, PHASE_OPERATIONS, "drain.retry",
                                                 status.node, status.run, entry.key)
        else:
            self._fail_pod(status, entry, f'error when evicting pods/"{entry.name}" -n "{entry.namespace}": '
                                          f"{result.message}")
        self.sim.store.changes.drains.add(status.node)

    def _delete(self, status: DrainStatus, entry: DrainPod) -> None:
        pod = self.sim.store.pods.get(entry.key)
        if pod is not None:
            self.sim.apiserver.delete_pod(pod, self._grace(status))
        self._accepted(status, entry)

    def _accepted(self, status: DrainStatus, entry: DrainPod) -> None:
        """The eviction or delete went through: wait for the pod to go (PollImmediate, 1 s)."""
        now = self.sim.clock.now
        entry.state = TERMINATING
        entry.blocked_by = None
        entry.accepted_at = now
        pod = self.sim.store.pods.get(entry.key)
        if pod is None or pod.uid != entry.uid:
            self._gone(status, entry)
            return
        self._waiting[entry.key] = (status.node, status.run)
        self._arm_skip(status, entry, pod)

    def _arm_skip(self, status: DrainStatus, entry: DrainPod, pod: Pod) -> None:
        """--skip-wait-for-delete-timeout: the first poll at which the pod's DeletionTimestamp is
        more than N whole seconds old."""
        seconds = status.options.skip_wait_for_delete_timeout
        if seconds <= 0 or pod.deletion_timestamp is None or entry.accepted_at is None:
            return
        self.sim.clock.cancel(entry.timer)
        due = self._poll_at(entry, pod.deletion_timestamp + (seconds + 1) * 1000)
        entry.timer = self.sim.clock.call_at(due, PHASE_OPERATIONS, "drain.poll", status.node, status.run, entry.key)

    @staticmethod
    def _poll_at(entry: DrainPod, at_least: int) -> int:
        """The first poll of this pod's wait at or after at_least."""
        anchor = entry.accepted_at or 0
        if at_least <= anchor:
            return anchor
        return anchor + -(-(at_least - anchor) // POLL_INTERVAL_MS) * POLL_INTERVAL_MS

    def _gone(self, status: DrainStatus, entry: DrainPod) -> None:
        self._waiting.pop(entry.key, None)
        self.sim.clock.cancel(entry.timer)
        entry.timer = None
        entry.state = EVICTED if status.using_eviction else DELETED
        entry.finished_at = self.sim.clock.now
        self._print(status, f"pod/{entry.name} {'evicted' if status.using_eviction else 'deleted'}")
        self._maybe_finish(status)

    def _fail_pod(self, status: DrainStatus, entry: DrainPod, error: str) -> None:
        self._waiting.pop(entry.key, None)
        self.sim.clock.cancel(entry.timer)
        entry.timer = None
        entry.next_retry = None
        entry.state = FAILED_POD
        entry.message = error
        entry.finished_at = self.sim.clock.now
        status.errors.append(error)
        self._maybe_finish(status)

    # ---------------------------------------------------------------- timers and informers

    def _entry(self, node: str, run: int, pod_key: str) -> tuple[DrainStatus, DrainPod] | None:
        status = self.status.get(node)
        if status is None or status.run != run or status.phase != "Running":
            return None
        entry = status.pods.get(pod_key)
        if entry is None or entry.done:
            return None
        return status, entry

    def retry(self, node: str, run: int, pod_key: str) -> None:
        """After EvictErrorRetryDelay: GET the pod again and send another eviction."""
        found = self._entry(node, run, pod_key)
        if found is None:
            return
        status, entry = found
        self._evict(status, entry)
        self._maybe_finish(status)

    def poll(self, node: str, run: int, pod_key: str) -> None:
        """A poll of waitForDelete that matters: the pod went, or its deletion is old enough to skip."""
        found = self._entry(node, run, pod_key)
        if found is None:
            return
        status, entry = found
        entry.timer = None
        pod = self.sim.store.pods.get(pod_key)
        if pod is None or pod.uid != entry.uid:
            self._gone(status, entry)
            return
        seconds = status.options.skip_wait_for_delete_timeout
        if self._long_deleted(pod, seconds, self.sim.clock.now):
            self._waiting.pop(entry.key, None)
            entry.state = SKIPPED
            entry.finished_at = self.sim.clock.now
            self._print(status, f'pod "{entry.name}" has DeletionTimestamp older than {seconds} seconds, skipping')
            self._maybe_finish(status)
        else:
            self._arm_skip(status, entry, pod)

    def deadline(self, node: str, run: int) -> None:
        """--timeout: the context of the drain is done."""
        status = self.status.get(node)
        if status is None or status.run != run or status.phase != "Running":
            return
        status.deadline_timer = None
        waiting = [e for e in status.pods.values() if e.state == TERMINATING]
        if status.options.disable_eviction:
            for entry in waiting:
                self._fail_pod(status, entry, "context deadline exceeded")
            return
        for entry in waiting:
            self._fail_pod(status, entry, f'error when waiting for pod "{entry.name}" in namespace '
                                          f'"{entry.namespace}" to terminate: context deadline exceeded')
        # Blocked pods find the deadline at their next retry, after the 5 s sleep (as kubectl does).

    @watches("deleting", "removed")
    def _on_pod_event(self, what: str, pod: Pod) -> None:
        if what == "removed":
            waiting = self._waiting.get(pod.key)
            if waiting is None:
                return
            found = self._entry(waiting[0], waiting[1], pod.key)
            if found is None or found[1].uid != pod.uid:
                return
            status, entry = found
            # The next poll sees it: polls run in the operations phase, before anything else of an
            # instant, so a removal at a poll's instant is seen one second later.
            self.sim.clock.cancel(entry.timer)
            due = self._poll_at(entry, self.sim.clock.now + 1)
            entry.timer = self.sim.clock.call_at(due, PHASE_OPERATIONS, "drain.poll", status.node, status.run, pod.key)
        elif what == "deleting" and pod.key in self._waiting:
            found = self._entry(*self._waiting[pod.key], pod.key)
            if found is not None and found[1].uid == pod.uid and found[1].state == TERMINATING:
                self._arm_skip(found[0], found[1], pod)

    # ---------------------------------------------------------------- finishing

    def _maybe_finish(self, status: DrainStatus) -> None:
        if status.phase != "Running" or status.remaining:
            return
        if status.errors:
            errors = status.errors
            error = errors[0] if len(errors) == 1 else "[" + ", ".join(dict.fromkeys(errors)) + "]"
            if status.options.disable_eviction:
                error = "context deadline exceeded"
            status.error = error
            pending = [p for p in status.pods.values() if p.state == FAILED_POD
                       and self.sim.store.pods.get(p.key) is not None]
            self._finish_failed(status, pending)
            return
        self._finish(status)

    def _finish(self, status: DrainStatus) -> None:
        status.phase = "Drained"
        status.finished_at = self.sim.clock.now
        self.sim.clock.cancel(status.deadline_timer)
        self._print(status, f"node/{status.node} drained")

    def _finish_failed(self, status: DrainStatus, pending: list[DrainPod] | None) -> None:
        status.phase = "Failed"
        status.finished_at = self.sim.clock.now
        self.sim.clock.cancel(status.deadline_timer)
        if pending:
            self._print(status, f'There are pending pods in node "{status.node}" when an error occurred: '
                                f"{status.error}", "err")
            for entry in pending:
                self._print(status, f"pod/{entry.name}", "err")
        self._print(status, f'error: unable to drain node "{status.node}" due to error: {status.error}, '
                            "continuing command...", "err")
        self._print(status, "There are pending nodes to be drained:", "err")
        self._print(status, f" {status.node}", "err")
        self._print(status, f"error: {status.error}", "err")

    def cancel(self, node: str) -> DrainStatus | None:
        """Interrupt kubectl (Ctrl-C): evictions already accepted stand, the node stays cordoned."""
        status = self.running(node)
        if status is None:
            return None
        self._forget(status)
        status.phase = "Cancelled"
        status.finished_at = self.sim.clock.now
        self.sim.store.changes.drains.add(node)
        self.sim.store.event("Normal", REASON, f"Node/{node}", f"drain of node/{node} interrupted", SOURCE)
        return status

    def _forget(self, status: DrainStatus) -> None:
        self.sim.clock.cancel(status.deadline_timer)
        for entry in status.pods.values():
            self.sim.clock.cancel(entry.timer)
            entry.timer = None
            if self._waiting.get(entry.key) == (status.node, status.run):
                del self._waiting[entry.key]
