"""Cluster figures over time for the plots: Ready nodes per zone, pending and running pods, evictions.

The counts are kept by store watchers, as an informer-fed metrics collector would, so that a sample
costs O(zones) whatever the cluster size (design rule 4): a node's Ready condition or a pod's phase is
looked at only when the store reports that object changed. An eviction is counted once per pod, when
the pod first gets the DisruptionTarget=True condition that Kubernetes sets on every pod it
disrupts (reasons DeletionByTaintManager, EvictionByEvictionAPI, PreemptionByScheduler,
TerminationByKubelet, DeletionByPodGC). Pending and running are the pods whose status.phase is
Pending or Running (a terminating pod counts under its phase until it is gone, as the API lists it).

`ClusterCounts` is part of the simulation's state (it travels with checkpoints, see history.py);
`Series` is the record of samples over time, kept outside the state by the history.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field

from .objects import PENDING, RUNNING, TRUE, Node, Pod
from .store import watches

DISRUPTION_TARGET = "DisruptionTarget"


class ClusterCounts:
    """The current figures, kept current by store watchers."""

    __slots__ = ("ready_by_zone", "_ready_zone", "_phase", "pending", "running", "evictions", "_disrupted")

    def __init__(self) -> None:
        self.ready_by_zone: dict[str, int] = {}
        self._ready_zone: dict[str, str] = {}  # Ready node -> its zone
        self._phase: dict[str, str] = {}  # pod key -> the phase it is counted under
        self.pending = 0
        self.running = 0
        self.evictions = 0
        self._disrupted: set[str] = set()  # pod keys already counted as evicted

    def attach(self, store) -> None:
        """Count what the store holds now, then follow its changes (a new ClusterCounts, once)."""
        for zone in store.nodes_by_zone:
            self.ready_by_zone.setdefault(zone, 0)
        for node in store.nodes.values():
            self.on_node("added", node)
        self._count_added(store.pods.values())
        store.node_watchers.append(self.on_node)
        store.pod_watchers.append(self.on_pod)

    def on_node(self, what: str, node: Node) -> None:
        self.ready_by_zone.setdefault(node.zone, 0)
        cond = node.conditions.get("Ready")
        ready = what != "removed" and cond is not None and cond.status == TRUE
        counted = self._ready_zone.get(node.name)
        if counted is not None and (not ready or counted != node.zone):
            del self._ready_zone[node.name]
            self.ready_by_zone[counted] -= 1
            counted = None
        if ready and counted is None:
            self._ready_zone[node.name] = node.zone
            self.ready_by_zone[node.zone] += 1

    @watches("added", "phase", "condition", "removed")
    def on_pod(self, what: str, pod: Pod) -> None:
        # A binding, a nomination or a deletionTimestamp changes neither the phase nor the
        # conditions; a phase change is announced as one ("phase"), so a condition change leaves the
        # phase as counted. (Opening 150,000 pods in the TUI told this watcher 300,000 changes.)
        key = pod.key
        if what == "condition":
            if key not in self._disrupted:
                self._count_disruption(key, pod)
            return
        phase = "" if what == "removed" else pod.phase
        old = self._phase.get(key, "")
        if old != phase:
            self._count(old, -1)
            self._count(phase, +1)
            if phase in (PENDING, RUNNING):
                self._phase[key] = phase
            else:
                self._phase.pop(key, None)
        if what == "removed":
            self._disrupted.discard(key)
        elif key not in self._disrupted:
            self._count_disruption(key, pod)

    def _count_added(self, pods) -> None:
        """on_pod("added", pod) for each of `pods` while none is counted yet, in one loop: attaching
        to a restored store of 150,000 pods (the TUI reopening a kept state) took 90 ms pod by pod."""
        phases, disrupted = self._phase, self._disrupted
        pending = running = 0
        for pod in pods:
            phase = pod.phase
            if phase == PENDING:
                pending += 1
                phases[pod.key] = phase
            elif phase == RUNNING:
                running += 1
                phases[pod.key] = phase
            cond = pod.conditions.get(DISRUPTION_TARGET)
            if cond is not None and cond.status == TRUE:
                disrupted.add(pod.key)
        self.pending += pending
        self.running += running
        self.evictions += len(disrupted)

    def _count_disruption(self, key: str, pod: Pod) -> None:
        cond = pod.conditions.get(DISRUPTION_TARGET)
        if cond is not None and cond.status == TRUE:
            self._disrupted.add(key)
            self.evictions += 1

    def _count(self, phase: str, sign: int) -> None:
        if phase == PENDING:
            self.pending += sign
        elif phase == RUNNING:
            self.running += sign

    def sample(self) -> tuple:
        return (tuple(sorted(self.ready_by_zone.items())), self.pending, self.running, self.evictions)


@dataclass(slots=True)
class Series:
    """Samples (time ms, ((zone, ready nodes), ...), pending, running, evictions), one per instant at
    which a figure changed, in time order."""

    samples: list[tuple] = field(default_factory=list)
    times: list[int] = field(default_factory=list)  # samples' times, for bisection

    def record(self, time: int, sample: tuple) -> None:
        samples = self.samples
        if samples and samples[-1][0] >= time:
            return  # replaying the recorded past: the figures are the same ones
        if samples and samples[-1][1:] == sample:
            return
        samples.append((time, *sample))
        self.times.append(time)

    def truncate_after(self, time: int) -> None:
        cut = bisect_right(self.times, time)
        del self.samples[cut:]
        del self.times[cut:]

    def at(self, time: int) -> tuple | None:
        """The sample in force at `time` (the last at or before it)."""
        index = bisect_right(self.times, time) - 1
        return self.samples[index] if index >= 0 else None

    def zones(self) -> list[str]:
        names: set[str] = set()
        for sample in self.samples:
            names.update(zone for zone, _count in sample[1])
        return sorted(names)

    def values(self, metric: str, times: list[int]) -> list[float]:
        """The value of `metric` ("pending", "running", "evictions" or "ready:<zone>") at each of
        `times`: the last sample at or before each time, 0 before the first. O(len(times) log n)."""
        out: list[float] = []
        for time in times:
            sample = self.at(time)
            out.append(0.0 if sample is None else float(metric_value(sample, metric)))
        return out

    def peak(self, metric: str) -> int:
        return max((metric_value(s, metric) for s in self.samples), default=0)

    def metrics(self) -> list[str]:
        return [*(f"ready:{zone}" for zone in self.zones()), "pending", "running", "evictions"]

    def memory_bytes(self) -> int:
        # a sample is a tuple of 5 plus its zone tuples: about 120 bytes + 64 per zone
        zones = len(self.samples[-1][1]) if self.samples else 0
        return len(self.samples) * (128 + 64 * zones)


def metric_value(sample: tuple, metric: str) -> int:
    _time, ready, pending, running, evictions = sample
    if metric == "pending":
        return pending
    if metric == "running":
        return running
    if metric == "evictions":
        return evictions
    zone = metric.removeprefix("ready:")
    return dict(ready).get(zone, 0)


def metric_title(metric: str) -> str:
    if metric.startswith("ready:"):
        zone = metric.removeprefix("ready:")
        return f"Ready nodes {zone or '(no zone)'}"
    return {"pending": "Pending pods", "running": "Running pods", "evictions": "Evictions"}[metric]
