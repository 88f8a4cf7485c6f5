"""What the user does to the cluster from the TUI, as flows: pick the target, open the operation's
dialog, look again at the target once the dialog closes (the simulation kept running) and apply the
operation through `PlaygroundApp.apply_operation`, the one place the UI changes the cluster.

`OperationFlows` is a mixin of the app: the key bindings (actions.py) name its actions.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import work

from ..engine import Operation
from ..engine.objects import PodTemplate
from ..engine.operations import OPERATION_INFO
from . import format as fmt
from .actions import OUT_OF_SERVICE, node_action
from .screens.dialog import ConfirmDialog, PickerDialog
from .screens.deployment_dialogs import ScaleDialog
from .screens.node_dialogs import OptionsDialog, TaintDialog, UntaintDialog
from .screens.pod_dialogs import CreatePodDialog, DeletePodDialog
from .widgets.tableview import natural_key

# What acts on the machine rather than on the Node object: usable after `kubectl delete node`.
MACHINE_OPERATIONS = frozenset({"shutdown", "power-off", "power-on", "partition", "heal", "stop-kubelet",
                                "start-kubelet", "restart-kubelet"})
# What a whole zone can suffer at once (the palette's "Power off zone…"): one operation a node.
ZONE_OPERATIONS = ("power-off", "power-on", "partition", "heal", "shutdown")

if TYPE_CHECKING:
    from ..engine import OperationResult, Simulation


class OperationFlows:
    sim: "Simulation"

    if TYPE_CHECKING:  # provided by the app
        def notify(self, *args: Any, **kwargs: Any) -> None: ...
        async def wait_idle(self) -> None: ...
        def apply_operation(self, op: Operation) -> "OperationResult": ...
        def apply_operations(self, ops: list[Operation], title: str) -> list["OperationResult"]: ...
        def selected_node(self) -> str | None: ...
        def selected_pod(self) -> str | None: ...
        async def push_screen_wait(self, screen: Any) -> Any: ...
        def run_worker(self, *args: Any, **kwargs: Any) -> Any: ...

    def action_node_op(self, op: str) -> None:
        node = self.selected_node()
        if node is None:
            self.notify("Select a node in the Nodes view first.", severity="warning")
            return
        self.node_op(op, node)

    def node_op(self, op: str, node: str) -> None:
        self.run_worker(self._node_op_flow(op, node), group="dialogs", name=f"{op} {node}")

    async def _node_op_flow(self, op: str, node: str) -> None:
        action = node_action(op)
        await self.wait_idle()
        obj = self.sim.store.nodes.get(node)
        if obj is None and not self._machine_op(op, node):
            return
        extra: dict[str, Any] = {}
        if obj is None and not (action is not None and action.confirm):
            pass  # a machine whose Node object was deleted: no dialog, the engine decides
        elif op == "out-of-service":
            has = any(str(t) == OUT_OF_SERVICE or (t.key == OUT_OF_SERVICE.split("=")[0] and t.effect == "NoExecute")
                      for t in obj.taints)
            if not has:
                ok = await self.push_screen_wait(ConfirmDialog(
                    f"Add the out-of-service taint to {node}?",
                    Text(f"{OUT_OF_SERVICE}\n\nTells Kubernetes the node is really down (non-graceful node "
                         "shutdown): the NoExecute taint evicts the pods that do not tolerate it, and PodGC "
                         "force-deletes the terminating pods of a not-ready out-of-service node, so they can start "
                         "elsewhere and their volumes detach. Remove it once the node is back (O again)."),
                    "Add taint"))
                if not ok:
                    return
            await self.wait_idle()
            if node not in self.sim.store.nodes:
                self.notify(Text(f"node {node} is gone"), severity="warning")
                return
            taint = OUT_OF_SERVICE if not has else f"{OUT_OF_SERVICE.split('=')[0]}:NoExecute"
            self.apply_operation(Operation("untaint" if has else "taint", node=node, taint=taint))
            return
        elif action is not None and action.confirm:
            kubelet = self.sim.kubelets.get(node)
            info = OPERATION_INFO.get(op)
            message = Text(f"{info.help if info else ''}\n\n{obj.pod_count if obj else 0} pod(s) are bound to {node}"
                           f" (machine: {kubelet.state_label() if kubelet else '?'}).")
            ok = await self.push_screen_wait(ConfirmDialog(f"{action.title} {node}?", message, action.title))
            if not ok:
                return
        elif action is not None and action.dialog == "taint":
            taint = await self.push_screen_wait(TaintDialog(node, obj.taint_strings()))
            if taint is None:
                return
            extra["taint"] = taint
        elif action is not None and action.dialog == "untaint":
            if not obj.taints:
                self.notify(Text(f"{node} has no taints"), severity="warning")
                return
            taint = await self.push_screen_wait(UntaintDialog(node, obj.taint_strings()))
            if taint is None:
                return
            extra["taint"] = taint
        elif action is not None and action.dialog == "options":
            info = OPERATION_INFO[op]
            fields = {f.name for f in dataclasses.fields(Operation)}
            options = [o for o in getattr(info, "options", ()) if o.field in fields]
            warning = fmt.drain_refusals(self.sim, node) if op == "drain" else ""
            values = await self.push_screen_wait(OptionsDialog(f"{info.title} node {node}", info.help, options,
                                                               warning))
            if values is None:
                return
            extra.update(values)
        # The dialog may have been open a while: look again before acting.
        await self.wait_idle()
        obj = self.sim.store.nodes.get(node)
        if obj is None and not self._machine_op(op, node):
            return
        if op == "untaint" and obj is not None and extra.get("taint") not in obj.taint_strings():
            self.notify(Text(f"{node} no longer has the taint {extra.get('taint')}"), severity="warning")
            return
        self.apply_operation(Operation(op, node=node, **extra))

    def _machine_op(self, op: str, node: str) -> bool:
        """The Node object is gone: an operation on its machine (power, network, kubelet) still makes
        sense, since a kubelet that starts again registers the node anew. Says why not otherwise."""
        if node not in self.sim.kubelets:
            self.notify(Text(f'nodes "{node}" not found'), severity="warning")
            return False
        if op not in MACHINE_OPERATIONS:
            self.notify(Text(f'nodes "{node}" not found: the Node object was deleted. Restart its kubelet (e) '
                             "and it registers the node again."), severity="warning")
            return False
        return True

    def action_delete_pod(self) -> None:
        pod = self.selected_pod()
        if pod is None:
            self.notify("Select a pod in the Pods or Pending view first.", severity="warning")
            return
        self.run_worker(self._delete_pod_flow(pod), group="dialogs")

    async def _delete_pod_flow(self, key: str) -> None:
        await self.wait_idle()
        pod = self.sim.store.pods.get(key)
        if pod is None:
            self.notify(Text(f"pod {key} is gone"), severity="warning")
            return
        uid = pod.uid
        choice = await self.push_screen_wait(DeletePodDialog(key, pod.termination_grace_period_seconds))
        if choice is None:
            return
        await self.wait_idle()
        pod = self.sim.store.pods.get(key)
        if pod is None or pod.uid != uid:
            self.notify(Text(f"pod {key} is gone (or was replaced) meanwhile"), severity="warning")
            return
        self.apply_operation(Operation("delete-pod", pod=pod.name, namespace=pod.namespace,
                                       grace_period_seconds=choice["grace"]))

    @work(group="dialogs")
    async def action_create_pod(self) -> None:
        await self.wait_idle()
        classes = sorted(self.sim.store.priority_classes)
        nodes = sorted(self.sim.store.nodes, key=natural_key)
        spec = await self.push_screen_wait(CreatePodDialog(classes, nodes))
        if spec is None:
            return
        await self.wait_idle()
        template = PodTemplate(labels={"run": spec["name"]}, cpu=spec["cpu"], memory=spec["memory"],
                               priority_class_name=spec["priority_class_name"])
        self.apply_operation(Operation("create-pod", pod=spec["name"], namespace=spec["namespace"],
                                       template=template, pod_node_name=spec["node"]))

    @work(group="dialogs")
    async def action_scale(self) -> None:
        await self.wait_idle()
        deployments = {name: d.replicas for name, d in sorted(self.sim.store.deployments.items())}
        if not deployments:
            self.notify("This scenario has no Deployments.", severity="warning")
            return
        choice = await self.push_screen_wait(ScaleDialog(deployments))
        if choice is None:
            return
        await self.wait_idle()
        if choice["deployment"] not in self.sim.store.deployments:
            self.notify(Text(f"deployment {choice['deployment']} is gone"), severity="warning")
            return
        self.apply_operation(Operation("scale", deployment=choice["deployment"], replicas=choice["replicas"]))

    # ---------------------------------------------------------------- pickers (palette)

    def node_choices(self, query: str) -> list[tuple[str, str]]:
        query = query.lower()
        out = []
        nodes = self.sim.store.nodes
        # Machines whose Node object was deleted stay pickable: restarting the kubelet re-creates it.
        names = dict.fromkeys([*nodes, *self.sim.kubelets])
        for name in sorted(names, key=natural_key):
            if query and query not in name.lower():
                continue
            node = nodes.get(name)
            label = (f"{name}   Node deleted (machine {self.sim.kubelets[name].state_label()})" if node is None
                     else f"{name}   {fmt.node_status(node)}   {fmt.zone_label(node.zone)}")
            out.append((name, label))
            if len(out) >= PickerDialog.LIMIT:
                break
        return out

    def pod_choices(self, query: str) -> list[tuple[str, str]]:
        query = query.lower()
        out = []
        for key, pod in list(self.sim.store.pods.items()):
            if query and query not in key.lower():
                continue
            out.append((key, f"{key}   {fmt.pod_status(pod)}   {pod.node_name or '<none>'}"))
            if len(out) >= PickerDialog.LIMIT:
                break
        return out

    def pick_node_then(self, op: str) -> None:
        async def flow() -> None:
            await self.wait_idle()
            title = node_action(op).title if node_action(op) else OPERATION_INFO[op].title
            node = await self.push_screen_wait(PickerDialog(f"{title}: which node?", "", self.node_choices,
                                                            self.selected_node()))
            if node:
                self.node_op(op, node)
        self.run_worker(flow(), group="dialogs")

    def pick_zone_then(self, op: str) -> None:
        """A zone outage (or its end) in one go: pick a zone, confirm, and `op` is applied to every node
        of the zone at this instant, one operation a node, as a timeline of them would."""
        async def flow() -> None:
            await self.wait_idle()
            title = node_action(op).title
            zone = await self.push_screen_wait(PickerDialog(f"{title}: every node of which zone?", "",
                                                            self.zone_choices, self._selected_zone()))
            if zone is not None:
                await self._zone_op_flow(op, zone)
        self.run_worker(flow(), group="dialogs")

    def zone_choices(self, query: str) -> list[tuple[str, str]]:
        query = query.lower()
        return [(zone, f"{fmt.zone_label(zone)}   {len(nodes)} node(s)")
                for zone, nodes in sorted(self.sim.store.nodes_by_zone.items(), key=lambda item: natural_key(item[0]))
                if not query or query in fmt.zone_label(zone).lower()]

    def _selected_zone(self) -> str | None:
        node = self.sim.store.nodes.get(self.selected_node() or "")
        return node.zone if node is not None else None

    async def _zone_op_flow(self, op: str, zone: str) -> None:
        title = node_action(op).title
        nodes = self.sim.store.nodes_by_zone.get(zone, {})
        pods = sum(node.pod_count for node in nodes.values())
        ok = await self.push_screen_wait(ConfirmDialog(
            f"{title} every node of {fmt.zone_label(zone)}?",
            Text(f"{OPERATION_INFO[op].help}\n\n{len(nodes)} node(s) with {pods} pod(s) bound to them: one {op} "
                 "operation a node, at this instant (a saved session replays them)."), title))
        if not ok:
            return
        await self.wait_idle()  # the dialog may have been open a while: the zone's nodes as they are now
        names = sorted(self.sim.store.nodes_by_zone.get(zone, {}), key=natural_key)
        self.apply_operations([Operation(op, node=name) for name in names], f"{title} {fmt.zone_label(zone)}")

    def pick_pod_then_delete(self) -> None:
        async def flow() -> None:
            await self.wait_idle()
            pod = await self.push_screen_wait(PickerDialog("Delete which pod?", "", self.pod_choices,
                                                           self.selected_pod()))
            if pod:
                await self._delete_pod_flow(pod)
        self.run_worker(flow(), group="dialogs")

    def generic_operation(self, name: str) -> None:
        """An engine operation without a dedicated dialog: pick its target and apply it."""
        info = OPERATION_INFO[name]

        async def flow() -> None:
            await self.wait_idle()
            if info.target == "node":
                target = await self.push_screen_wait(PickerDialog(f"{info.title}: which node?", info.help,
                                                                  self.node_choices, self.selected_node()))
                if target:
                    await self.wait_idle()
                    self.apply_operation(Operation(name, node=target))
            elif info.target == "pod":
                target = await self.push_screen_wait(PickerDialog(f"{info.title}: which pod?", info.help,
                                                                  self.pod_choices, self.selected_pod()))
                if target:
                    await self.wait_idle()
                    namespace, _, pod = target.partition("/")
                    self.apply_operation(Operation(name, pod=pod, namespace=namespace))
            else:
                deployments = sorted(self.sim.store.deployments)
                target = await self.push_screen_wait(PickerDialog(
                    f"{info.title}: which {info.target}?", info.help,
                    lambda q: [(d, d) for d in deployments if q.lower() in d.lower()]))
                if target:
                    await self.wait_idle()
                    self.apply_operation(Operation(name, deployment=target))
        self.run_worker(flow(), group="dialogs")
