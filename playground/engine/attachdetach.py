"""The attach/detach controller (pkg/controller/volume/attachdetach), for ReadWriteOnce volumes.

A claim is one volume (named after the claim) that can be attached to one node at a time. The
desired state of the world holds, per volume, the nodes that scheduled, not yet terminated pods
using it need; the actual state holds where it is attached and whether that node still reports it
in use (node.status.volumesInUse, written by its kubelet). The reconciler runs on a 100 ms grid,
detaches before it attaches, and in one pass:

- detaches a volume no longer desired on its node when the node no longer reports it mounted;
  otherwise only when the node has the node.kubernetes.io/out-of-service taint (at once), or when
  the node is not Ready and more than maxWaitForUnmountDuration (6 min) have passed since the detach
  was first requested (force detach);
- attaches a desired volume that is attached nowhere (a volume detached in this pass is attached in
  the next one: the detach operation is still pending); a volume attached to another node gets one
  FailedAttachVolume "Multi-Attach error" event per pod and node;
- marks a newly attached volume as mounted until its node says otherwise ("assume mounted").

The kubelet mounts a pod's volumes only once they are attached to its node and starts the
containers after that; it unmounts when the containers are gone and reports that only while it can
reach the API server, so a powered-off or partitioned node keeps its volumes "in use".

Simplified: attach and detach complete within the pass that starts them (no cloud latency); volumes
have no zone (any node can attach them); PV names are the claim names.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .clock import PHASE_WORKLOADS, Wakeup
from .objects import OUT_OF_SERVICE_TAINT, TRUE, Node, Pod
from .store import watches

if TYPE_CHECKING:
    from .simulation import Simulation

RECONCILER_LOOP_PERIOD_MS = 100
MAX_WAIT_FOR_UNMOUNT_MS = 6 * 60_000
SOURCE = "attachdetach-controller"


@dataclass(slots=True)
class Volume:
    """A PersistentVolumeClaim bound to its ReadWriteOnce PersistentVolume, and where it is attached."""

    namespace: str
    name: str
    attached_to: str | None = None
    mounted_by_node: bool = False  # the node lists it in status.volumesInUse
    detach_requested_at: int | None = None
    attached_at: int | None = None
    detached_at: int | None = None
    multi_attach_reported: set[str] = field(default_factory=set)  # nodes whose pods got the event

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


class AttachDetachController:
    def __init__(self, sim: "Simulation") -> None:
        self.sim = sim
        self.volumes: dict[str, Volume] = {}
        # desired state of the world: volume key -> node -> pods scheduled there that use it
        self.desired: dict[str, dict[str, set[str]]] = {}
        self._by_pod: dict[str, tuple[str, tuple[str, ...]]] = {}  # pod key -> (node, volume keys)
        self._attached_on: dict[str, set[str]] = {}  # node -> volume keys attached there
        self._pass = Wakeup(sim.clock, PHASE_WORKLOADS, "attachdetach.reconcile")
        self._last_pass: int | None = None
        sim.store.pod_watchers.append(self._on_pod_event)
        sim.store.node_watchers.append(self._on_node_event)

    # ---------------------------------------------------------------- claims

    def has_claim(self, namespace: str, name: str) -> bool:
        return f"{namespace}/{name}" in self.volumes

    def create_claim(self, namespace: str, name: str) -> Volume:
        volume = Volume(namespace, name)
        if not self.volumes:
            self.sim.store.pod_watcher_woke()
        self.volumes[volume.key] = volume
        self.sim.store.changes.volumes.add(volume.key)
        return volume

    def attached(self, volume_key: str, node_name: str) -> bool:
        volume = self.volumes.get(volume_key)
        return volume is not None and volume.attached_to == node_name

    # ---------------------------------------------------------------- desired state (informers)

    @staticmethod
    def volume_keys(pod: Pod) -> tuple[str, ...]:
        if not pod.volume_claims:
            return ()
        return tuple(f"{pod.namespace}/{claim}" for claim in pod.volume_claims)

    def pod_watch_idle(self) -> bool:
        """No claim exists (claims are created before the pods that mount them, and never deleted):
        no pod has a volume, so the store does not call this controller (store._idle)."""
        return not self.volumes

    @watches("added", "bound", "phase", "deleting", "removed")  # a condition moves no volume
    def _on_pod_event(self, what: str, pod: Pod) -> None:
        if not pod.volume_claims:
            return
        key = pod.key
        wanted = what != "removed" and bool(pod.node_name) and not pod.is_terminal()
        current = self._by_pod.get(key)
        if wanted and current is not None and current[0] == pod.node_name:
            return
        if not wanted and current is None:
            return
        if current is not None:
            node, volumes = current
            for volume in volumes:
                nodes = self.desired.get(volume, {})
                nodes.get(node, set()).discard(key)
                if not nodes.get(node):
                    nodes.pop(node, None)
            del self._by_pod[key]
        if wanted:
            volumes = self.volume_keys(pod)
            self._by_pod[key] = (pod.node_name, volumes)
            for volume in volumes:
                self.desired.setdefault(volume, {}).setdefault(pod.node_name, set()).add(key)
        self.kick()

    def _on_node_event(self, what: str, node: Node) -> None:
        if self._attached_on.get(node.name) and what in ("taints", "conditions", "removed"):
            self.kick()

    def volumes_in_use(self, node_name: str, in_use: set[str]) -> None:
        """The node's kubelet reported status.volumesInUse."""
        changed = False
        for key in self._attached_on.get(node_name, set()):
            volume = self.volumes[key]
            mounted = key in in_use
            if volume.mounted_by_node != mounted:
                volume.mounted_by_node = mounted
                self.sim.store.changes.volumes.add(key)
                changed = True
        if changed:
            self.kick()

    # ---------------------------------------------------------------- the reconciler

    def kick(self, at: int | None = None) -> None:
        now = self.sim.clock.now
        due = -(-max(now, at if at is not None else now) // RECONCILER_LOOP_PERIOD_MS) * RECONCILER_LOOP_PERIOD_MS
        if self._last_pass is not None and due < self._last_pass + RECONCILER_LOOP_PERIOD_MS:
            due = self._last_pass + RECONCILER_LOOP_PERIOD_MS  # one pass per loop period
        self._pass.arm(due)

    def reconcile(self) -> None:
        self._pass.fired()
        now = self.sim.clock.now
        self._last_pass = now
        store = self.sim.store
        busy: set[str] = set()  # volumes with an operation started in this pass
        wake: int | None = None
        for key in sorted(k for node in self._attached_on.values() for k in node):
            volume = self.volumes[key]
            node_name = volume.attached_to
            if node_name is None or node_name in self.desired.get(key, {}):
                if volume.detach_requested_at is not None:
                    volume.detach_requested_at = None  # ResetDetachRequestTime
                continue
            if volume.detach_requested_at is None:
                volume.detach_requested_at = now
            elapsed = now - volume.detach_requested_at
            node = store.nodes.get(node_name)
            healthy = node is not None and node.ready_status() == TRUE
            force = not healthy and elapsed > MAX_WAIT_FOR_UNMOUNT_MS
            out_of_service = node is not None and any(t.key == OUT_OF_SERVICE_TAINT for t in node.taints)
            if volume.mounted_by_node and not force and not out_of_service:
                if not healthy:
                    at = volume.detach_requested_at + MAX_WAIT_FOR_UNMOUNT_MS + 1
                    wake = at if wake is None else min(wake, at)
                continue
            if not volume.mounted_by_node:
                how = "attacherDetacher.DetachVolume started"
            elif out_of_service and not force:
                how = "attacherDetacher.DetachVolume started: node has out-of-service taint, force detaching"
            else:
                how = ("attacherDetacher.DetachVolume started: this volume is not safe to detach, but "
                       f"maxWaitForUnmountDuration expired, force detaching (duration 6m0s)")
            self._detach(volume, how)
            busy.add(key)
        for key in sorted(self.desired):
            nodes = self.desired[key]
            volume = self.volumes.get(key)
            if volume is None or not nodes or key in busy:
                if key in busy:
                    wake = now + 1 if wake is None else min(wake, now + 1)
                continue
            for node_name in sorted(nodes):
                if volume.attached_to == node_name:
                    continue
                if volume.attached_to is not None:
                    self._report_multi_attach(volume, node_name, nodes[node_name])
                    continue
                self._attach(volume, node_name, nodes[node_name])
        if wake is not None:
            self.kick(wake)

    def _detach(self, volume: Volume, how: str) -> None:
        node_name = volume.attached_to or ""
        self._attached_on.get(node_name, set()).discard(volume.key)
        volume.attached_to = None
        volume.mounted_by_node = False
        volume.detach_requested_at = None
        volume.detached_at = self.sim.clock.now
        volume.multi_attach_reported.clear()
        self.sim.store.changes.volumes.add(volume.key)
        # The controller only logs this; the playground shows its log line.
        self.sim.store.event("Normal", "DetachVolume", f"Volume/{volume.key}",
                             f"{how}: volume {volume.name} detached from node {node_name}", SOURCE)

    def _attach(self, volume: Volume, node_name: str, pods: set[str]) -> None:
        volume.attached_to = node_name
        volume.mounted_by_node = True  # "Assume mounted, until proven otherwise"
        volume.attached_at = self.sim.clock.now
        volume.multi_attach_reported.clear()
        self._attached_on.setdefault(node_name, set()).add(volume.key)
        self.sim.store.changes.volumes.add(volume.key)
        store = self.sim.store
        for pod_key in sorted(pods):
            pod = store.pods.get(pod_key)
            if pod is not None:
                store.event("Normal", "SuccessfulAttachVolume", pod.ref,
                            f'AttachVolume.Attach succeeded for volume "{volume.name}"', SOURCE)
        kubelet = self.sim.kubelets.get(node_name)
        if kubelet is not None:
            kubelet.volume_attached(volume.key)

    def _report_multi_attach(self, volume: Volume, node_name: str, pods: set[str]) -> None:
        """reportMultiAttachError, once per volume and node."""
        if node_name in volume.multi_attach_reported:
            return
        volume.multi_attach_reported.add(node_name)
        store = self.sim.store
        others = sorted(p for n, ps in self.desired.get(volume.key, {}).items() if n != node_name for p in ps)
        for pod_key in sorted(pods):
            pod = store.pods.get(pod_key)
            if pod is None:
                continue
            local = [k.split("/", 1)[1] for k in others if k.split("/", 1)[0] == pod.namespace]
            elsewhere = len(others) - len(local)
            if not others:
                detail = "Volume is already exclusively attached to one node and can't be attached to another"
            elif local:
                detail = f"Volume is already used by pod(s) {', '.join(local)}"
                if elsewhere:
                    detail += f" and {elsewhere} pod(s) in different namespaces"
            else:
                detail = f"Volume is already used by {elsewhere} pod(s) in different namespaces"
            store.event("Warning", "FailedAttachVolume", pod.ref,
                        f'Multi-Attach error for volume "{volume.name}" {detail}', SOURCE)

    # ---------------------------------------------------------------- explanations

    def force_detach_at(self, volume: Volume) -> int | None:
        """When the reconciler will force-detach a volume still reported mounted (for the UI)."""
        if volume.detach_requested_at is None or volume.attached_to is None:
            return None
        at = volume.detach_requested_at + MAX_WAIT_FOR_UNMOUNT_MS + 1
        return -(-at // RECONCILER_LOOP_PERIOD_MS) * RECONCILER_LOOP_PERIOD_MS
