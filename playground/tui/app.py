"""The Cluster Playground terminal UI.

The app reads the engine and changes it only through `sim.apply(Operation(...))` (design rules 1 and
5). A timer runs frames at `refresh_hz`; each frame lets the runner advance the engine within its
budget (in a worker thread) and then updates the views from the merged ChangeSet.

Construct it as the CLI does: `PlaygroundApp(scenario, path=path, paused=paused).run()`. Tests use the
keyword arguments: `paused=True`, `threaded=False`, `keymap_file=None`, and step explicitly with
`await app.advance(ticks)`.
"""

from __future__ import annotations

import dataclasses
import gc
import time
from collections import deque
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, NamedTuple

from rich.text import Text
from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import ContentSwitcher, Footer

from ..engine import Operation, OperationResult, Simulation
from ..engine.objects import PodTemplate
from ..engine.operations import OPERATION_INFO
from ..scenario import Scenario, load_scenario
from ..units import format_duration
from . import format as fmt
from .actions import (
    OUT_OF_SERVICE,
    POD_BINDINGS,
    VIEW_ALIASES,
    extra_operations,
    node_action,
    node_actions,
    node_bindings,
)
from .commands import PlaygroundCommands
from .keymap import KeymapError, default_keymap_path, load_keymap
from .runner import EngineRunner, FrameResult
from .screens.dialogs import (
    ConfirmDialog,
    CreatePodDialog,
    DeletePodDialog,
    LoadDialog,
    OptionsDialog,
    PickerDialog,
    SaveDialog,
    ScaleDialog,
    TaintDialog,
    UntaintDialog,
    ViewPrompt,
)
from .screens.help import HelpScreen
from .widgets.header import ClusterHeader, ViewTabs
from .widgets.views import VIEW_CLASSES, VIEW_TITLES, EventsView, NodesView, TableView, has_pdbs, natural_key
from .widgets.vtable import VirtualTable
from .widgets.deployments import DEPLOYMENT_BINDINGS, palette_commands as deployment_palette_commands

PROJECT_SCENARIOS = Path(__file__).resolve().parent.parent.parent / "scenarios"
_DEFAULT = object()

SPEED_GROUP = Binding.Group("Speed", compact=True)
VIEW_GROUP = Binding.Group("Views", compact=True)


class PaletteCommand(NamedTuple):
    title: str
    help: str
    callback: Callable[[], Any]
    discover: bool = True


def _global_bindings() -> list[Binding]:
    views = [
        Binding(str(i), f"view('{name}')", VIEW_TITLES[name], show=False, id=f"playground.view.{name}",
                group=VIEW_GROUP, tooltip=f"Show the {VIEW_TITLES[name]} view")
        for i, name in enumerate(VIEW_CLASSES, 1)
    ]
    return [
        Binding("question_mark", "help", "Help", id="playground.help", tooltip="List every key and its binding id"),
        Binding("space", "toggle_pause", "Pause", id="playground.pause",
                tooltip="Pause or resume the simulated clock"),
        Binding("full_stop", "step", "Step", id="playground.step", tooltip="Advance one tick (pauses first)"),
        Binding("plus,equals_sign", "faster", "Faster", id="playground.faster", group=SPEED_GROUP,
                tooltip="Speed up: ×1 ×2 ×5 … ×1000"),
        Binding("minus", "slower", "Slower", id="playground.slower", group=SPEED_GROUP, tooltip="Slow down"),
        *views,
        Binding("colon", "view_prompt", "Go to view…", show=False, id="playground.view-prompt",
                tooltip="k9s-style prompt: :nodes, :pods, :pending, :leases, :events, :deploy, :q"),
        Binding("slash", "filter", "Filter", id="playground.filter", tooltip="Filter the current view"),
        Binding("escape", "clear_filter", "Clear filter", show=False, id="playground.clear-filter",
                tooltip="Clear the current view's filter"),
        Binding("a", "create_pod", "Create pod", show=False, id="playground.create-pod",
                tooltip="Create a bare pod (kubectl run)"),
        Binding("r", "scale", "Scale", show=False, id="playground.scale",
                tooltip="Scale a Deployment (kubectl scale)"),
        Binding("ctrl+o", "load", "Load", show=False, id="playground.load", tooltip="Load a scenario file"),
        Binding("ctrl+s", "save", "Save", show=False, id="playground.save",
                tooltip="Save the scenario with this session's operations"),
        Binding("ctrl+p", "command_palette", "Palette", show=False, priority=True, id="playground.palette",
                tooltip="Find any command by name"),
        Binding("q", "quit", "Quit", id="playground.quit", tooltip="Quit"),
    ]


class PlaygroundApp(App):
    TITLE = "Cluster Playground"
    CSS_PATH = "app.tcss"
    COMMANDS = App.COMMANDS | {PlaygroundCommands}
    BINDINGS = _global_bindings()

    def __init__(
        self,
        scenario: Scenario,
        path: str | Path | None = None,
        paused: bool = False,
        *,
        event_limit: int = 5000,
        speed: int = 1,
        refresh_hz: float = 12.0,
        frame_budget: float = 0.020,
        threaded: bool = True,
        keymap: dict[str, str] | None = None,
        keymap_file: Path | None | object = _DEFAULT,
        epoch: datetime = fmt.SCENARIO_EPOCH,
        view: str = "nodes",
        simulation: Simulation | None = None,
        auto_frames: bool = True,
    ) -> None:
        super().__init__()
        self.scenario_path = Path(path) if path is not None else None
        self.event_limit = event_limit
        self.sim = simulation if simulation is not None else Simulation(scenario, event_limit=event_limit)
        self.runner = EngineRunner(self.sim, paused=paused, speed=speed, budget=frame_budget, threaded=threaded)
        self.refresh_hz = refresh_hz
        self.epoch = epoch
        self.current_view = view if view in VIEW_CLASSES else "nodes"
        self.auto_frames = auto_frames
        self._keymap_file = default_keymap_path() if keymap_file is _DEFAULT else keymap_file
        self._keymap_extra = dict(keymap or {})
        self.views: dict[str, TableView] = {
            name: cls(self, id=name) for name, cls in VIEW_CLASSES.items() if name != "pdbs" or has_pdbs(self.sim)}
        # Wall time spent per frame updating widgets and stepping (the benchmark reads these).
        self.ui_seconds: deque[float] = deque(maxlen=10_000)
        self.step_seconds: deque[float] = deque(maxlen=10_000)
        self.frame_ticks: deque[int] = deque(maxlen=10_000)
        self.last_result: OperationResult | None = None
        self.messages: deque[tuple[str, str, str]] = deque(maxlen=200)  # (severity, title, message) shown

    # ---------------------------------------------------------------- layout

    def compose(self) -> ComposeResult:
        self.header = ClusterHeader(id="cluster-header")
        self.tabs = ViewTabs(id="view-tabs")
        yield self.header
        yield self.tabs
        with ContentSwitcher(initial=self.current_view, id="views"):
            yield from self.views.values()
        yield Footer()

    def on_mount(self) -> None:
        keymap: dict[str, str] = {}
        try:
            keymap.update(load_keymap(self._keymap_file))  # type: ignore[arg-type]
        except KeymapError as exc:
            self.notify(str(exc), title="Keymap not loaded", severity="error", timeout=10)
        keymap.update(self._keymap_extra)
        if keymap:
            self.set_keymap(keymap)
        for view in self.views.values():
            view.load()
            view.update_title()
        self.refresh_chrome()
        self.views[self.current_view].frame(True)
        self.views[self.current_view].table.focus()
        self._freeze_heap()
        if self.auto_frames:
            self.set_interval(1 / self.refresh_hz, self._timer_frame, name="frame")
            self.set_interval(0.5, self._busy_chrome, name="busy")

    @staticmethod
    def _freeze_heap() -> None:
        """Move the freshly built cluster out of the garbage collector's sight: with 150,000 pods a
        full collection scans millions of objects and stalls the event loop for up to a second.
        The objects stay alive as usual; they are only not scanned for cycles. Unfreezing first lets a
        replaced simulation (loading a scenario) be collected."""
        gc.unfreeze()
        gc.collect()
        gc.freeze()

    def on_unmount(self) -> None:
        self.runner.close()

    def notify(self, message: str | Text, *, title: str = "", severity: str = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        """Messages built from user-given names come as Text: never read them as markup."""
        if isinstance(message, Text):
            message, markup = message.plain, False
        self.messages.append((severity, title, message))
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)  # type: ignore[arg-type]

    # ---------------------------------------------------------------- state the widgets read

    @property
    def engine_idle(self) -> bool:
        return not self.runner.busy

    @property
    def view_names(self) -> list[str]:
        return list(self.views)

    def view_title(self, view: str) -> str:
        return VIEW_TITLES.get(view, view)

    def view_count(self, view: str) -> int | None:
        widget = self.views.get(view)
        return widget.table.total_count if widget is not None else None

    @property
    def nodes_view(self) -> NodesView:
        return self.views["nodes"]  # type: ignore[return-value]

    @property
    def events_view(self) -> EventsView:
        return self.views["events"]  # type: ignore[return-value]

    def selected_node(self) -> str | None:
        key = self.nodes_view.table.cursor_key
        return str(key) if key is not None else None

    def selected_pod(self) -> str | None:
        view = self.views.get(self.current_view)
        if self.current_view in ("pods", "pending") and view is not None:
            key = view.table.cursor_key
            return str(key) if key is not None else None
        return None

    # ---------------------------------------------------------------- frames

    async def _timer_frame(self) -> None:
        await self.frame()

    async def frame(self) -> FrameResult:
        """Advance the engine as the speed asks (within the budget), then update the widgets."""
        result = await self.runner.frame()
        self.step_seconds.append(result.seconds)
        self.frame_ticks.append(result.ticks)
        start = time.perf_counter()
        self.update_views(result)
        self.ui_seconds.append(time.perf_counter() - start)
        return result

    async def advance(self, ticks: int = 1) -> FrameResult:
        """Run exactly `ticks` ticks and update the screen (tests, screenshots)."""
        result = await self.runner.run_ticks(ticks)
        self.update_views(result)
        return result

    async def advance_to(self, ms: int) -> FrameResult:
        """Step tick by tick until the simulated clock reaches `ms`."""
        ticks = max(0, -(-(ms - self.sim.clock.now) // self.sim.tick))
        return await self.advance(ticks)

    def update_views(self, result: FrameResult) -> None:
        if self.runner.busy:
            return
        changes = result.changes
        moved = result.ticks > 0 or bool(changes)
        if moved:
            for view in self.views.values():
                view.apply(changes)
            self.views[self.current_view].frame(True)
        self.refresh_chrome()

    def _busy_chrome(self) -> None:
        """While one long tick runs in the engine thread, say so (the header reads only plain values)."""
        if self.runner.busy:
            self.refresh_chrome()

    def refresh_chrome(self) -> None:
        self.header.refresh_from(self)
        self.tabs.refresh_from(self)

    def _apply_now(self) -> None:
        """Show what an operation changed at once, without waiting for the next frame."""
        self.update_views(FrameResult(changes=self.sim.store.take_changes()))

    # ---------------------------------------------------------------- simulation controls

    def action_toggle_pause(self) -> None:
        self.runner.set_paused(not self.runner.paused)
        self.refresh_chrome()

    def action_step(self) -> None:
        if not self.runner.paused:
            self.runner.set_paused(True)
        self.runner.request_steps(1)
        self.run_worker(self.frame(), group="frame", name="step")

    def action_faster(self) -> None:
        self.runner.faster()
        self.refresh_chrome()

    def action_slower(self) -> None:
        self.runner.slower()
        self.refresh_chrome()

    def set_speed(self, speed: int) -> None:
        self.runner.set_speed(speed)
        self.refresh_chrome()

    # ---------------------------------------------------------------- views

    def action_view(self, name: str) -> None:
        if name not in self.views:
            self.notify(f"no {name} view", severity="warning")
            return
        self.current_view = name
        self.query_one("#views", ContentSwitcher).current = name
        view = self.views[name]
        if self.engine_idle:
            view.frame(True)
        view.table.focus()
        self.refresh_chrome()
        self.refresh_bindings()

    @work(group="dialogs")
    async def action_view_prompt(self) -> None:
        choice = await self.push_screen_wait(ViewPrompt(VIEW_ALIASES))
        if choice == "quit":
            self.exit()
        elif choice:
            self.action_view(choice)

    def action_filter(self) -> None:
        self.views[self.current_view].open_filter()

    def action_clear_filter(self) -> None:
        self.views[self.current_view].clear_filter()

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    # ---------------------------------------------------------------- operations

    async def wait_idle(self) -> None:
        await self.runner.wait_idle()

    def apply_operation(self, op: Operation) -> OperationResult:
        """The one place the UI changes the cluster. Call only while the engine is idle."""
        result = self.sim.apply(op)
        self.last_result = result
        if result.ok:
            self.notify(Text(result.message), title=op.describe())
        else:
            self.notify(Text(result.message), title=f"Refused: {op.describe()}", severity="warning", timeout=8)
        self._apply_now()
        return result

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
        if obj is None:
            self.notify(Text(f'nodes "{node}" not found'), severity="warning")
            return
        extra: dict[str, Any] = {}
        if op == "out-of-service":
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
        if action is not None and action.confirm:
            kubelet = self.sim.kubelets.get(node)
            info = OPERATION_INFO.get(op)
            message = Text(f"{info.help if info else ''}\n\n{obj.pod_count} pod(s) are bound to {node}"
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
            values = await self.push_screen_wait(OptionsDialog(f"{info.title} node {node}", info.help, options))
            if values is None:
                return
            extra.update(values)
        # The dialog may have been open a while: look again before acting.
        await self.wait_idle()
        obj = self.sim.store.nodes.get(node)
        if obj is None:
            self.notify(Text(f"node {node} is gone"), severity="warning")
            return
        if op == "untaint" and extra.get("taint") not in obj.taint_strings():
            self.notify(Text(f"{node} no longer has the taint {extra.get('taint')}"), severity="warning")
            return
        self.apply_operation(Operation(op, node=node, **extra))

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
        for name in sorted(nodes, key=natural_key):
            if query and query not in name.lower():
                continue
            node = nodes.get(name)
            label = name if node is None else f"{name}   {fmt.node_status(node)}   {node.zone}"
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

    # ---------------------------------------------------------------- files

    def scenario_files(self) -> list[Path]:
        folders = [PROJECT_SCENARIOS, Path.cwd() / "scenarios"]
        if self.scenario_path is not None:
            folders.insert(0, self.scenario_path.resolve().parent)
        seen: dict[Path, Path] = {}
        for folder in folders:
            if folder.is_dir():
                for path in sorted(folder.glob("*.toml")):
                    seen.setdefault(path.resolve(), _relative(path))
        return list(seen.values())

    @work(group="dialogs")
    async def action_load(self) -> None:
        choice = await self.push_screen_wait(LoadDialog(self.scenario_files(), load_scenario, self.scenario_path))
        if choice is None:
            return
        scenario, path = choice
        self.load(scenario, path)

    def load(self, scenario: Scenario, path: Path | None = None) -> None:
        """Replace the running simulation (the old one is dropped, even mid-tick)."""
        self.sim = Simulation(scenario, event_limit=self.event_limit)
        self.scenario_path = Path(path) if path is not None else None
        self.runner.replace(self.sim)
        for view in self.views.values():
            view.load()
            view.update_title()
        self.views[self.current_view].frame(True)
        self.refresh_chrome()
        self._freeze_heap()
        self.notify(Text(f"{scenario.scenario.name}: {len(self.sim.store.nodes)} nodes"),
                    title=f"Loaded {path.name if path else 'scenario'}")

    def default_save_path(self) -> Path:
        stem = self.scenario_path.stem if self.scenario_path is not None else self.sim.scenario.scenario.name
        folder = self.scenario_path.parent if self.scenario_path is not None else Path.cwd()
        at = format_duration(self.sim.clock.now // 1000 * 1000)
        return _relative(folder / f"{stem}-at-{at}.toml")

    def save_to(self, path: Path) -> str:
        existed = path.exists()
        self.sim.save(path)
        operations = len(self.sim.session_entries())
        return (f"{'overwrote' if existed else 'wrote'} {path} with {operations} operation(s) of this session "
                "as timeline entries")

    @work(group="dialogs")
    async def action_save(self) -> None:
        await self.wait_idle()
        message = await self.push_screen_wait(SaveDialog(self.default_save_path(), self.save_to))
        if message:
            self.notify(Text(message), title="Saved")

    # ---------------------------------------------------------------- palette

    def palette_commands(self, query: str) -> list[PaletteCommand]:
        commands = [
            PaletteCommand("Pause / resume", "Pause or resume the simulated clock (space)", self.action_toggle_pause),
            PaletteCommand("Step one tick", "Advance the clock by one tick (.)", self.action_step),
            PaletteCommand("Faster", "Speed up (+)", self.action_faster),
            PaletteCommand("Slower", "Slow down (-)", self.action_slower),
        ]
        for speed in (1, 10, 100, 1000):
            commands.append(PaletteCommand(f"Speed ×{speed}", f"Run at {speed} simulated second(s) per second",
                                           lambda s=speed: self.set_speed(s), discover=False))
        for name in self.views:
            commands.append(PaletteCommand(f"View: {self.view_title(name)}", f"Show the {name} view",
                                           lambda n=name: self.action_view(n)))
        commands += [
            PaletteCommand("Filter the current view", "/ then text; !text inverts", self.action_filter),
            PaletteCommand("Load a scenario…", "Open a scenario file (ctrl+o)", self.action_load),
            PaletteCommand("Save the scenario…", "Save with this session's operations (ctrl+s)", self.action_save),
            PaletteCommand("Keys (help)", "Every key and binding id (?)", self.action_help),
        ]
        for action in node_actions():
            commands.append(PaletteCommand(f"{action.title} node…", action.help,
                                           lambda op=action.op: self.pick_node_then(op)))
        if "create-pod" in OPERATION_INFO:
            commands.append(PaletteCommand("Create pod…", OPERATION_INFO["create-pod"].help, self.action_create_pod))
        if "delete-pod" in OPERATION_INFO:
            commands.append(PaletteCommand("Delete pod…", OPERATION_INFO["delete-pod"].help,
                                           self.pick_pod_then_delete))
        if "scale" in OPERATION_INFO:
            commands.append(PaletteCommand("Scale deployment…", OPERATION_INFO["scale"].help, self.action_scale))
        commands += deployment_palette_commands(self)
        for name in extra_operations():
            info = OPERATION_INFO[name]
            commands.append(PaletteCommand(f"{info.title}…", info.help, lambda n=name: self.generic_operation(n)))
        # "power off b-2": direct commands for the nodes the query names (bounded, whatever the cluster size).
        words = query.lower().split()
        if words:
            nodes = self.sim.store.nodes

            def named_in_query(name: str) -> bool:
                lower = name.lower()
                return any(lower.startswith(w) or (len(w) >= 2 and w in lower) for w in words)
            named = [n for n in sorted(nodes, key=natural_key) if named_in_query(n)][:12]
            selected = self.selected_node()
            if selected and selected not in named:
                named.append(selected)
            for node in sorted(named, key=natural_key):
                for action in node_actions():
                    commands.append(PaletteCommand(f"{action.title} {node}", action.help,
                                                   lambda op=action.op, n=node: self.node_op(op, n), discover=False))
        return commands

    # ---------------------------------------------------------------- keys, for the help screen

    def keymap_keys(self, binding: Binding) -> list[str]:
        keys = self._keymap.get(binding.id or "") if binding.id else None
        return (keys or binding.key).split(",")

    def binding_groups(self) -> list[tuple[str, list[Binding]]]:
        own = {b.id: b for b in _global_bindings()}

        def pick(*ids: str) -> list[Binding]:
            return [own[i] for i in ids if i in own]

        views = [b for b in own.values() if b.id and b.id.startswith("playground.view.")]
        return [
            ("Simulation", pick("playground.pause", "playground.step", "playground.faster", "playground.slower")),
            ("Views", [*views, *pick("playground.view-prompt", "playground.filter", "playground.clear-filter")]),
            ("Nodes view: on the selected node (palette: on any node by name)", list(node_bindings())),
            ("Pods and Pending views: on the selected pod", list(POD_BINDINGS)),
            ("Deployments view: on the selected Deployment (palette: Roll out…, Edit strategy…)",
             list(DEPLOYMENT_BINDINGS)),
            ("Cluster", pick("playground.create-pod", "playground.scale")),
            ("Scenario files", pick("playground.load", "playground.save")),
            ("App", pick("playground.help", "playground.palette", "playground.quit")),
            ("Tables", list(VirtualTable.BINDINGS)),  # type: ignore[arg-type]
        ]


def _relative(path: Path) -> Path:
    try:
        return path.resolve().relative_to(Path.cwd())
    except ValueError:
        return path
