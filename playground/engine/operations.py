"""What a user can do to the cluster: the one operations API that keys, timelines, the CLI and tests
all call (design rule 1).

Every operation a user applies (`Operations.apply` with origin "user": keys, dialogs, the palette, the
Python API) is first validated by the same rules as a scenario file's timeline entry
(`playground/scenario/validation.py` through the schema): an invalid operation (a bad name, a
malformed taint, a negative grace period, replicas out of range, a node the scenario does not have)
is refused with a message, changes nothing, records no event and never enters the history, so it can
never make a session unsaveable. A valid operation the cluster refuses (a pod that does not exist, a
drain already running, a drain refused by its filters after cordoning) is answered with a result that
says so and a Warning event, never an exception, and is kept in the history: it is part of what the
user saw, so a saved session replays it too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from ..scenario.validation import parse_taint_spec, removal_spec, unknown_name_error
from .apiserver import AdmissionError
from .drain import DrainOptions, parse_pod_selector
from .objects import Node, PodTemplate, Taint
from .workloads import pod_from_template

if TYPE_CHECKING:
    from .simulation import Simulation

SOURCE = "playground"


@dataclass(slots=True)
class Operation:
    do: str
    node: str | None = None
    taint: str | None = None
    pod: str | None = None
    namespace: str = "default"
    deployment: str | None = None
    replicas: int | None = None
    grace_period_seconds: int | None = None
    template: PodTemplate | None = None
    pod_node_name: str | None = None
    # kubectl drain's flags (timeline keys in parentheses)
    ignore_daemonsets: bool = False  # --ignore-daemonsets (ignoreDaemonsets)
    delete_emptydir_data: bool = False  # --delete-emptydir-data (deleteEmptydirData)
    force: bool = False  # --force (force)
    timeout: int | None = None  # --timeout in ms, None or 0 = forever (timeout)
    disable_eviction: bool = False  # --disable-eviction (disableEviction)
    pod_selector: str | None = None  # --pod-selector (podSelector)
    skip_wait_for_delete_timeout: int | None = None  # --skip-wait-for-delete-timeout seconds (skipWaitForDeleteTimeout)
    overwrite: bool = False  # kubectl taint --overwrite (overwrite)
    # rollout: the pod fields to change, as scenario keys (none: kubectl rollout restart); set-strategy:
    # spec.strategy as a scenario writes it (engine/rollout.py)
    pod_spec: dict | None = None
    strategy: dict | None = None

    def describe(self) -> str:
        target = self.node or self.pod or self.deployment or ""
        extra = f" {self.taint}" if self.taint else ""
        if self.replicas is not None:
            extra += f" to {self.replicas}"
        return f"{self.do} {target}{extra}".strip()


@dataclass(slots=True)
class OperationResult:
    ok: bool
    message: str
    operation: Operation | None = None
    time: int = 0
    origin: str = "user"  # "user" (keys, API, tests), "timeline" or "scenario"
    # applied by Simulation.apply, after the controllers of its instant (saved as afterControllers)
    after_controllers: bool = False


@dataclass(frozen=True, slots=True)
class OperationOption:
    """An option of an operation, for dialogs: the Operation field, the timeline key, kubectl's flag."""

    field: str
    key: str
    flag: str
    kind: str  # "bool", "int" (seconds), "duration" (ms in the Operation, "1m" in a timeline), "str"
    help: str


@dataclass(frozen=True, slots=True)
class OperationInfo:
    name: str
    title: str
    target: str  # "node", "pod", "deployment"
    help: str
    options: tuple[OperationOption, ...] = ()


DRAIN_OPTIONS = (
    OperationOption("ignore_daemonsets", "ignoreDaemonsets", "--ignore-daemonsets", "bool",
                    "Ignore DaemonSet-managed pods (they are left running)."),
    OperationOption("delete_emptydir_data", "deleteEmptydirData", "--delete-emptydir-data", "bool",
                    "Continue even if there are pods using emptyDir (local data that will be deleted)."),
    OperationOption("force", "force", "--force", "bool", "Continue even if there are pods that do not declare a controller."),
    OperationOption("grace_period_seconds", "gracePeriodSeconds", "--grace-period", "int",
                    "Seconds each pod gets to terminate; empty: the pod's terminationGracePeriodSeconds."),
    OperationOption("timeout", "timeout", "--timeout", "duration", "Give up after this long; empty or 0: wait forever."),
    OperationOption("disable_eviction", "disableEviction", "--disable-eviction", "bool",
                    "Delete instead of evict: bypasses PodDisruptionBudgets."),
    OperationOption("pod_selector", "podSelector", "--pod-selector", "str", "Only pods matching this label selector."),
    OperationOption("skip_wait_for_delete_timeout", "skipWaitForDeleteTimeout", "--skip-wait-for-delete-timeout", "int",
                    "Stop waiting for pods whose deletionTimestamp is older than this many seconds."),
)


OPERATION_INFO = {
    info.name: info
    for info in (
        OperationInfo("cordon", "Cordon", "node", "Mark the node unschedulable (kubectl cordon)."),
        OperationInfo("uncordon", "Uncordon", "node", "Mark the node schedulable again (kubectl uncordon)."),
        OperationInfo("drain", "Drain", "node",
                      "Cordon the node and evict its pods through the Eviction API, honouring PodDisruptionBudgets "
                      "(kubectl drain).", DRAIN_OPTIONS),
        OperationInfo("cancel-drain", "Cancel drain", "node",
                      "Interrupt a running drain (Ctrl-C): accepted evictions stand, the node stays cordoned."),
        OperationInfo("delete-node", "Delete node", "node",
                      "Delete the Node object (kubectl delete node): its pods are orphans PodGC removes after 40 s; "
                      "a kubelet that starts again re-registers it."),
        OperationInfo("shutdown", "Graceful shutdown", "node",
                      "Shut the machine down: the kubelet's shutdown manager stops pods by priority, then it powers off."),
        OperationInfo("power-off", "Power off", "node", "Pull the plug: no lease, no status, containers gone."),
        OperationInfo("power-on", "Power on", "node", "Boot the machine: the kubelet rejoins and reconciles its pods."),
        OperationInfo("partition", "Partition", "node",
                      "Cut the node off from the API server: the kubelet lives and containers keep running."),
        OperationInfo("heal", "Heal partition", "node", "Reconnect the node to the API server."),
        OperationInfo("stop-kubelet", "Stop kubelet", "node", "Stop the kubelet process; containers keep running."),
        OperationInfo("start-kubelet", "Start kubelet", "node", "Start the kubelet process again."),
        OperationInfo("restart-kubelet", "Restart kubelet", "node",
                      "Restart the kubelet process (systemctl restart kubelet): it registers again, re-creating a "
                      "deleted Node object, and cleans up pods deleted meanwhile."),
        OperationInfo("taint", "Taint", "node", "Add a taint \"key=value:Effect\" (kubectl taint)."),
        OperationInfo("untaint", "Remove taint", "node", "Remove a taint by \"key:Effect\" or by key."),
        OperationInfo("create-pod", "Create pod", "pod", "Create a bare pod."),
        OperationInfo("delete-pod", "Delete pod", "pod", "Delete a pod (kubectl delete pod)."),
        OperationInfo("scale", "Scale deployment", "deployment", "Set a Deployment's replicas (kubectl scale)."),
    )
}


def parse_taint_text(text: str) -> tuple[str, str, str | None]:
    """"key=value:Effect", "key:Effect" or, to remove, "key:Effect-" / "key-" -> (key, value, effect or
    None), as kubectl taint reads them; raises ValueError."""
    spec = text.strip()
    key, value, effect, _remove = parse_taint_spec(spec if spec.endswith("-") or ":" in spec else removal_spec(spec))
    return key, value, effect


class Operations:
    def __init__(self, sim: "Simulation") -> None:
        self.sim = sim
        self.history: list[OperationResult] = []
        self._handlers: dict[str, Callable[[Operation], OperationResult]] = {
            "cordon": self._cordon,
            "uncordon": self._uncordon,
            "drain": self._drain,
            "cancel-drain": self._cancel_drain,
            "delete-node": self._delete_node,
            "shutdown": self._shutdown,
            "power-off": self._power_off,
            "power-on": self._power_on,
            "partition": self._partition,
            "heal": self._heal,
            "stop-kubelet": self._stop_kubelet,
            "start-kubelet": self._start_kubelet,
            "restart-kubelet": self._restart_kubelet,
            "taint": self._taint,
            "untaint": self._untaint,
            "create-pod": self._create_pod,
            "delete-pod": self._delete_pod,
            "scale": self._scale,
        }
        self._handlers.update(rollout_handlers(self))

    def apply(self, op: Operation, origin: str = "user", after_controllers: bool = False) -> OperationResult:
        if origin == "user":
            problem = self.problem(op)
            if problem is not None:
                return OperationResult(False, problem, op, self.sim.clock.now, origin)
        handler = self._handlers.get(op.do)
        if handler is None:
            result = self._refuse(op, f"unknown operation {op.do!r}")
        else:
            result = handler(op)
        result.operation = op
        result.time = self.sim.clock.now
        result.origin = origin
        result.after_controllers = after_controllers
        self.history.append(result)
        return result

    def problem(self, op: Operation) -> str | None:
        """Why `op` is not a valid operation, or None: the rules of a timeline entry (it must save as
        one and load back as exactly this operation) and the names the scenario knows."""
        from pydantic import ValidationError

        from ..scenario.loader import problem_text
        from ..scenario.schema import OPERATIONS, ROLLOUT_OPERATIONS, TimelineEntry
        from .simulation import entry_from_operation, operation_from_entry

        if op.do not in OPERATIONS:
            return unknown_name_error("operation", op.do, set(OPERATIONS))
        try:
            entry = TimelineEntry.model_validate(entry_from_operation(op, self.sim.clock.now))
        except ValidationError as exc:
            return "; ".join(problem_text(e) for e in exc.errors())
        except (TypeError, ValueError, ArithmeticError) as exc:  # a field of the wrong type
            return f"invalid operation: {exc}"
        machines = self.sim.kubelets
        if entry.node is not None and entry.node not in machines:
            return f'nodes "{entry.node}" not found'
        if entry.do in ("scale", *ROLLOUT_OPERATIONS) and entry.deployment not in self.sim.store.deployments:
            return f'deployments.apps "{entry.deployment}" not found'
        if entry.spec is not None and entry.spec.priorityClassName:
            name = entry.spec.priorityClassName
            if name not in self.sim.store.priority_classes:
                # the API server's admission message (plugin/pkg/admission/priority)
                return f'pods "{entry.pod}" is forbidden: no PriorityClass with name {name} was found'
        replayed = operation_from_entry(entry)
        if replayed != op:
            fields = [f for f in Operation.__slots__ if getattr(replayed, f) != getattr(op, f)]
            return (f"{', '.join(fields)} cannot be given to operation {op.do!r} (a saved session could not replay "
                    "it)")
        return None

    def _refuse(self, op: Operation, message: str, obj: str | None = None) -> OperationResult:
        target = obj or (f"Node/{op.node}" if op.node else f"Pod/{op.namespace}/{op.pod}" if op.pod else "Cluster")
        self.sim.store.event("Warning", "OperationRefused", target, f"{op.do}: {message}", SOURCE)
        return OperationResult(False, message)

    def _node(self, op: Operation) -> Node | None:
        return self.sim.store.nodes.get(op.node or "")

    def _with_node(self, op: Operation, action: Callable[[Node], OperationResult]) -> OperationResult:
        node = self._node(op)
        if node is None:
            return self._refuse(op, f'nodes "{op.node}" not found')
        return action(node)

    # ---------------------------------------------------------------- kubectl cordon/uncordon/taint

    def _cordon(self, op: Operation) -> OperationResult:
        return self._with_node(op, lambda node: self._set_unschedulable(node, True))

    def _uncordon(self, op: Operation) -> OperationResult:
        return self._with_node(op, lambda node: self._set_unschedulable(node, False))

    def _set_unschedulable(self, node: Node, value: bool) -> OperationResult:
        word = "cordoned" if value else "uncordoned"
        if node.unschedulable == value:
            return OperationResult(True, f"node/{node.name} already {word}")
        self.sim.store.set_unschedulable(node, value)
        reason = "NodeNotSchedulable" if value else "NodeSchedulable"
        self.sim.store.event("Normal", reason, f"Node/{node.name}",
                             f"Node {node.name} status is now: {reason}", "kubelet")
        return OperationResult(True, f"node/{node.name} {word}")

    # ---------------------------------------------------------------- kubectl drain / delete node

    def _drain(self, op: Operation) -> OperationResult:
        def action(node: Node) -> OperationResult:
            drain = self.sim.drain
            if drain.running(node.name) is not None:
                return self._refuse(op, f"a drain of node {node.name} is already running")
            try:
                parse_pod_selector(op.pod_selector or "")
            except ValueError:
                return self._refuse(op, "--pod-selector=<pod_selector> must be a valid label selector")
            options = DrainOptions(
                ignore_daemonsets=op.ignore_daemonsets, delete_emptydir_data=op.delete_emptydir_data, force=op.force,
                grace_period_seconds=op.grace_period_seconds if op.grace_period_seconds is not None else -1,
                timeout=op.timeout or 0, disable_eviction=op.disable_eviction, pod_selector=op.pod_selector or "",
                skip_wait_for_delete_timeout=op.skip_wait_for_delete_timeout or 0,
            )
            cordon = self._set_unschedulable(node, True)
            status = drain.start(node.name, options, cordon.message)
            if status.phase == "Failed":
                return self._refuse(op, f'unable to drain node "{node.name}" due to error: {status.error}')
            if status.phase == "Drained":
                return OperationResult(True, f"node/{node.name} drained")
            return OperationResult(True, f"node/{node.name} draining: {len(status.remaining)} pod(s) to evict")
        return self._with_node(op, action)

    def _cancel_drain(self, op: Operation) -> OperationResult:
        def action(node: Node) -> OperationResult:
            if self.sim.drain.cancel(node.name) is None:
                return self._refuse(op, f"no drain of node {node.name} is running")
            return OperationResult(True, f"drain of node/{node.name} interrupted")
        return self._with_node(op, action)

    def _delete_node(self, op: Operation) -> OperationResult:
        def action(node: Node) -> OperationResult:
            self.sim.store.remove_node(node.name)
            return OperationResult(True, f'node "{node.name}" deleted')
        return self._with_node(op, action)

    def _taint(self, op: Operation) -> OperationResult:
        """kubectl taint (k8s.io/kubectl pkg/cmd/taint: updateTaints, reorganizeTaints): "key=value:Effect"
        adds, refused when the node has a taint with the same key and effect (whatever its value) unless
        --overwrite, which replaces it; a trailing "-" removes. kubectl prints "modified" whenever
        --overwrite is given, else "tainted" or "untainted"."""
        def action(node: Node) -> OperationResult:
            try:
                key, value, effect, remove = parse_taint_spec(op.taint or "")
            except ValueError as exc:
                return self._refuse(op, str(exc))
            if remove:
                return self._remove_taints(op, node, key, effect, op.overwrite)
            existing = next((t for t in node.taints if t.key == key and t.effect == effect), None)
            if existing is not None and not op.overwrite:
                return self._refuse(op, f"node {node.name} already has {key} taint(s) with same effect(s) and "
                                        "--overwrite is false")
            if existing is None or existing.value != value:
                remove_list = [existing] if existing is not None else []
                self.sim.store.update_taints(node, [Taint(key, effect, value)], remove_list)
            return OperationResult(True, f"node/{node.name} {'modified' if op.overwrite else 'tainted'}")
        return self._with_node(op, action)

    def _untaint(self, op: Operation) -> OperationResult:
        def action(node: Node) -> OperationResult:
            try:
                key, _value, effect, _remove = parse_taint_spec(removal_spec(op.taint or ""))
            except ValueError as exc:
                return self._refuse(op, str(exc))
            return self._remove_taints(op, node, key, effect)
        return self._with_node(op, action)

    def _remove_taints(self, op: Operation, node: Node, key: str, effect: str | None,
                       overwrite: bool = False) -> OperationResult:
        """kubectl's deleteTaints: "key:Effect-" removes that key and effect, "key-" every taint with the
        key; none there is an error (Taint.ToString of the key and effect) and changes nothing."""
        gone = [t for t in node.taints if t.key == key and (effect is None or t.effect == effect)]
        if not gone:
            wanted = f"{key}:{effect}" if effect else key
            return self._refuse(op, f'taint "{wanted}" not found')
        self.sim.store.update_taints(node, remove=gone)
        return OperationResult(True, f"node/{node.name} {'modified' if overwrite else 'untainted'}")

    # ---------------------------------------------------------------- machine

    def _kubelet_action(self, op: Operation, check: Callable, act: Callable, done: str) -> OperationResult:
        # Machines outlive their Node objects: a deleted node can still be powered on or have its
        # kubelet started, which registers it again.
        name = op.node or ""
        kubelet = self.sim.kubelets.get(name)
        if kubelet is None:
            return self._refuse(op, f'nodes "{name}" not found')
        refusal = check(kubelet)
        if refusal:
            return self._refuse(op, refusal)
        message = act(kubelet)
        self.sim.store.changes.nodes.add(name)
        return OperationResult(True, message or f"node/{name} {done}")

    def _shutdown(self, op: Operation) -> OperationResult:
        return self._kubelet_action(
            op,
            lambda k: "the node is already powered off" if k.power == "off" else
            "the node is already shutting down" if k.shutdown is not None else None,
            lambda k: self.sim.nodeshutdown.start(k),
            "shutting down",
        )

    def _power_off(self, op: Operation) -> OperationResult:
        return self._kubelet_action(
            op, lambda k: "the node is already powered off" if k.power == "off" else None,
            lambda k: k.power_off(), "powered off")

    def _power_on(self, op: Operation) -> OperationResult:
        return self._kubelet_action(
            op, lambda k: "the node is already powered on" if k.power == "on" else None,
            lambda k: k.power_on(), "powered on")

    def _partition(self, op: Operation) -> OperationResult:
        return self._kubelet_action(
            op, lambda k: "the node is already partitioned" if k.network != "connected" else None,
            lambda k: k.partition(), "partitioned from the API server")

    def _heal(self, op: Operation) -> OperationResult:
        return self._kubelet_action(
            op, lambda k: "the node is not partitioned" if k.network == "connected" else None,
            lambda k: k.heal(), "reconnected to the API server")

    def _stop_kubelet(self, op: Operation) -> OperationResult:
        return self._kubelet_action(
            op, lambda k: "the node is powered off" if k.power == "off" else
            "the kubelet is not running" if not k.running else None,
            lambda k: k.stop_process(), "kubelet stopped")

    def _start_kubelet(self, op: Operation) -> OperationResult:
        return self._kubelet_action(
            op, lambda k: "the node is powered off" if k.power == "off" else
            "the kubelet is already running" if k.running else None,
            lambda k: k.start_process(), "kubelet started")

    def _restart_kubelet(self, op: Operation) -> OperationResult:
        def restart(kubelet) -> str:
            kubelet.stop_process()
            kubelet.start_process()
            return f"node/{kubelet.node_name} kubelet restarted"

        name = op.node or ""
        kubelet = self.sim.kubelets.get(name)
        if kubelet is None:
            return self._refuse(op, f'nodes "{name}" not found')
        if kubelet.power == "off":
            return self._refuse(op, "the node is powered off")
        message = restart(kubelet)
        self.sim.store.changes.nodes.add(name)
        return OperationResult(True, message)

    # ---------------------------------------------------------------- pods and workloads

    def _create_pod(self, op: Operation) -> OperationResult:
        template = op.template or PodTemplate(labels={})
        pod = pod_from_template(self.sim, op.pod or "", op.namespace, template, None)
        if op.pod_node_name:
            if op.pod_node_name not in self.sim.store.nodes:
                return self._refuse(op, f'nodes "{op.pod_node_name}" not found')
            pod.node_name = op.pod_node_name
        try:
            self.sim.apiserver.create_pod(pod)
        except AdmissionError as exc:
            return self._refuse(op, str(exc))
        return OperationResult(True, f"pod/{pod.name} created")

    def _delete_pod(self, op: Operation) -> OperationResult:
        key = op.pod if op.pod and "/" in op.pod else f"{op.namespace}/{op.pod}"
        pod = self.sim.store.pods.get(key)
        if pod is None:
            return self._refuse(op, f'pods "{op.pod}" not found')
        self.sim.apiserver.delete_pod(pod, op.grace_period_seconds)
        return OperationResult(True, f'pod "{pod.name}" deleted')

    def _scale(self, op: Operation) -> OperationResult:
        deployment = self.sim.store.deployments.get(op.deployment or "")
        if deployment is None:
            return self._refuse(op, f'deployments.apps "{op.deployment}" not found', f"Deployment/{op.deployment}")
        replicas = op.replicas or 0
        if deployment.replicas != replicas:
            deployment.replicas = replicas
            self.sim.workloads.spec_updated(deployment)
        else:
            self.sim.workloads.mark_deployment(deployment.name)
        return OperationResult(True, f"deployment.apps/{deployment.name} scaled")


from .rollout import ROLLOUT_INFO, rollout_handlers  # noqa: E402  (rollout.py builds on this module)

OPERATION_INFO.update(ROLLOUT_INFO)
