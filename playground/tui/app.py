"""The Cluster Playground terminal UI.

The app reads the engine and changes it only through `sim.apply(Operation(...))` (design rules 1 and
5). A timer runs frames at `refresh_hz`; each frame lets the runner advance the engine within its
budget (in a worker thread) and then updates the views from the merged ChangeSet.

Construct it as the CLI does: `PlaygroundApp(scenario, path=path, paused=paused).run()`. Tests use the
keyword arguments: `paused=True`, `threaded=False`, `keymap_file=None`, and step explicitly with
`await app.advance(ticks)` (timecontrol.py).

What lives where: keys (bindings.py, actions.py), the clock controls (timecontrol.py), the palette
(commands.py), operation flows with their dialogs (flows.py), scenario files (files.py), the views
(widgets/views.py) and the dialogs (screens/dialogs.py).
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from datetime import datetime
from pathlib import Path
from typing import Callable

from rich.text import Text
from textual import events, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.reactive import Reactive, reactive
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import ContentSwitcher

from ..engine import Operation, OperationResult, Simulation
from ..engine.manifests import node_manifest, pod_manifest, to_yaml
from ..engine.openstate import OpenStateCache
from ..engine.simulation import freeze_heap
from ..scenario import Scenario
from ..units import format_duration
from . import format as fmt
from .actions import VIEW_ALIASES
from .bindings import binding_groups, global_bindings
from .commands import PaletteCommand, PlaygroundCommands, palette_commands
from .describe import describe_node, describe_pod
from .files import ScenarioFiles
from .flows import OperationFlows
from .keymap import KeymapError, default_keymap_path, load_keymap
from .runner import EngineRunner, FrameResult
from .strips import install as install_strips
from .screens.dialog import ConfirmDialog
from .screens.help import HelpScreen
from .screens.object_view import ObjectScreen
from .screens.view_prompt import ViewPrompt
from .timecontrol import TimeControl
from .widgets.footer import KeyFooter
from .widgets.plot import PlotStrip
from .widgets.header import ClusterHeader, ViewTabs
from .widgets.opening import OpeningProgress
from .widgets.views import VIEW_CLASSES, VIEW_TITLES, EventsView, NodesView, TableView, has_pdbs

install_strips()  # painted lines freed without the garbage collector (strips.py)

_DEFAULT = object()


KEY_REPAINT = 1 / 60  # seconds: a frame cut short by a key resumes after one repaint of the screen
# Frames a second while the user is at the keys (a key or a click less than INPUT_QUIET seconds ago)
# or the clock is paused; otherwise `refresh_hz` (60). Measured with benchmarks/tui_frames.py at
# x1000 on 150,000 pods: 60 frames a second keep the frame's p95 at 15-16 ms watching (30 a second:
# 18-19 ms), but with a key every 0.25 s they cost speed (x958-978, against x982-991 at 30 a second):
# each frame's updates and paints add up. Paused, a frame has nothing to show that 30 a second would
# not show, and each tick of a frame timer costs ~0.5 ms of CPU even when it does nothing: the slow
# rate is a second timer, and only one of the two runs.
SLOW_HZ = 30.0
INPUT_QUIET = 1.0
# After a key or a click, the screen paints as soon as it is dirty instead of on Textual's next
# update tick (MainScreen._on_idle), until the first paint after an action ran for it (run_action) or
# for ANSWER_WINDOW seconds (typing runs no action). tui_frames.py at x1000 on 150,000 pods, a key
# every 0.25 s, ten interleaved pairs against the timer's paints: key shown p95 39.5-56.7 ->
# 26.0-42.1 ms, the speed the same. Painting every change for the whole window made 4.4 paints a
# key; ending at the action's paint, 1.9, the keys as fast (benchmarks/HISTORY.md, Session 52).
ANSWER_WINDOW = 0.05


class MainScreen(Screen):
    """The playground's screen. A focus change does not repaint all of it: focus moves from table
    to table on every view switch, and the widgets whose look depends on focus repaint themselves
    (Widget._on_focus and _on_blur). Textual's Screen repaints the whole screen for it, a second
    full paint a switch, which cost about a tenth of a switch's UI time at 160 x 48."""

    focused: Reactive[Widget | None] = Reactive(None, repaint=False)

    async def _on_idle(self, event: events.Idle) -> None:
        # Textual paints a dirty screen on its next 60 Hz update tick, 0-16.7 ms after the widgets
        # changed; the answer to a key is painted as soon as it is there (Screen._on_idle, which
        # runs after this, then finds nothing left to paint).
        app = self.app
        if (time.monotonic() < app._answer_until and self.is_current and not app._batch_count
                and (self._layout_required or self._scroll_required or self._repaint_required
                     or self._dirty_widgets)):
            self._on_timer_update()
            if app._answered:  # that paint showed what the key's action did
                app._answer_until = float("-inf")


class ViewSwitcher(ContentSwitcher):
    """The views, one shown at a time. Showing another does not repaint the switcher itself:
    showing and hiding the views lays the screen out again, which repaints their area anyway, and
    the switcher's own lines (blank, under the views) stay as they were."""

    current: reactive[str | None] = reactive(None, init=False, repaint=False)


class PlaygroundApp(OperationFlows, ScenarioFiles, App):
    TITLE = "Cluster Playground"
    CSS_PATH = "app.tcss"
    COMMANDS = App.COMMANDS | {PlaygroundCommands}
    BINDINGS = global_bindings()

    def __init__(
        self,
        scenario: Scenario,
        path: str | Path | None = None,
        paused: bool = False,
        *,
        event_limit: int = 5000,
        speed: int = 1,
        refresh_hz: float = 60.0,
        frame_budget: float = 0.008,
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
        self.timecontrol = TimeControl(self)
        self.sim = simulation if simulation is not None else self._build(scenario)
        self.timecontrol.start_history(self.sim)
        self.runner = EngineRunner(self.sim, paused=paused, speed=speed, budget=frame_budget, threaded=threaded)
        self.opening = OpeningProgress(id="opening")
        self.sim.scheduler.progress = self.opening.report
        self.refresh_hz = refresh_hz
        self._input_at = float("-inf")  # time.monotonic() of the last key or click
        self._answer_until = float("-inf")  # paint without waiting for the update tick until then
        self._answered = False  # an action ran for the input since it came
        self._idle_actions: list[Callable[[], None]] = []  # waiting for the engine (when_engine_idle)
        self._frame_timers: tuple[Timer, Timer] | None = None  # (refresh_hz, SLOW_HZ): one runs
        self._fast_frames = False
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
        self.saved_operations = 0  # this session's operations already in a saved file

    # ---------------------------------------------------------------- layout

    def get_default_screen(self) -> Screen:
        return MainScreen(id="_default")

    def compose(self) -> ComposeResult:
        self.header = ClusterHeader(id="cluster-header")
        self.tabs = ViewTabs(id="view-tabs")
        yield self.header
        yield self.tabs
        yield self.opening
        with ViewSwitcher(initial=self.current_view, id="views"):
            yield from self.views.values()
        yield PlotStrip(id="plots")
        yield KeyFooter()

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
        freeze_heap()
        self.timecontrol.open_scenario()
        if self.auto_frames:
            self._frame_timers = (
                self.set_interval(1 / self.refresh_hz, self._timer_frame, name="frame", pause=True),
                self.set_interval(1 / SLOW_HZ, self._timer_frame, name="frame-slow"))
            self._pick_frame_rate()
            self.set_interval(0.5, self._busy_chrome, name="busy")
            self.set_interval(0.1, self.refresh_progress, name="progress")

    def on_resize(self) -> None:
        # Narrow terminals: the footer's compact style fits more keys before it cuts the rest.
        footer = self.query(KeyFooter)
        if footer:
            footer.first().compact = self.size.width < 120

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, (events.Key, events.MouseDown, events.MouseScrollDown, events.MouseScrollUp)):
            self.runner.interrupt()  # answer the user first: the engine's frame stops after its tick
            self._input_at = time.monotonic()
            self._answer_until = self._input_at + ANSWER_WINDOW
            self._answered = False
            self._pick_frame_rate()
        await super().on_event(event)

    async def run_action(self, action, default_namespace=None) -> bool:
        ran = await super().run_action(action, default_namespace)
        self._answered = True  # a binding's action has changed the widgets: the next paint answers
        return ran

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

    def when_engine_idle(self, action: Callable[[], None]) -> None:
        """Run `action` (it reads the engine's state) now if the engine is idle, else once the running
        frame's ticks end (a key ends them after the current tick): a key pressed while the engine
        runs is answered, not dropped. Actions waiting run in the order they came."""
        if self.engine_idle and not self._idle_actions:
            action()
            return
        self._idle_actions.append(action)
        if len(self._idle_actions) == 1:
            self.run_worker(self._run_idle_actions(), group="idle-actions", name="when idle")

    async def _run_idle_actions(self) -> None:
        while self._idle_actions:
            # Checked again after the wait: another frame may have started before this ran. No frame
            # starts between the check and the actions (both run on this event loop).
            while not self.engine_idle:
                await self.runner.wait_idle()
            actions, self._idle_actions = self._idle_actions, []
            for action in actions:
                action()

    def at_the_keys(self) -> bool:
        """A key or a click less than INPUT_QUIET wall seconds ago: the user is likely to switch views."""
        return time.monotonic() - self._input_at < INPUT_QUIET

    @property
    def view_names(self) -> list[str]:
        return list(self.views)

    def view_title(self, view: str) -> str:
        return VIEW_TITLES.get(view, view)

    def view_count(self, view: str) -> int | None:
        widget = self.views.get(view)
        return widget.live_count() if widget is not None else None

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
        """A frame; while the engine falls behind the speed, the next one as soon as keys and paints
        have had their turn: waiting for the timer's next tick left the engine idle for most of an
        interval after each frame (29 % of the wall time at x1000 on 150,000 pods)."""
        self._pick_frame_rate()
        await self.frame()
        while self.is_running and not self._exit:
            if self.runner.behind:
                await asyncio.sleep(0)
            elif self.runner.cut_short:
                await asyncio.sleep(KEY_REPAINT)  # the key's repaint first, without the engine
            else:
                return
            await self.frame()

    def _pick_frame_rate(self) -> None:
        """`refresh_hz` frames a second while the clock runs and the user watches, SLOW_HZ while
        the user is at the keys or the clock is paused (the other timer waits)."""
        if self._frame_timers is None:
            return
        fast = self.refresh_hz > SLOW_HZ and not self.runner.paused and not self.at_the_keys()
        self.runner.watching = fast
        if fast != self._fast_frames:
            self._fast_frames = fast
            fast_timer, slow_timer = self._frame_timers
            (slow_timer if fast else fast_timer).pause()
            (fast_timer if fast else slow_timer).resume()

    async def frame(self) -> FrameResult:
        """Advance the engine as the speed asks (within the budget), then update the widgets."""
        await self.timecontrol.opened()
        result = await self.runner.frame()
        if self._exit or not self.is_running:  # quitting while the engine ran: the widgets are going
            return result
        self.step_seconds.append(result.seconds)
        self.frame_ticks.append(result.ticks)
        start = time.perf_counter()
        self.update_views(result)
        self.ui_seconds.append(time.perf_counter() - start)
        return result

    async def advance(self, ticks: int = 1) -> FrameResult:
        """Run exactly `ticks` ticks and update the screen (tests, screenshots)."""
        return await self.timecontrol.advance(ticks)

    async def advance_to(self, ms: int) -> FrameResult:
        """Step tick by tick until the simulated clock reaches `ms`."""
        return await self.timecontrol.advance_to(ms)

    def update_views(self, result: FrameResult) -> None:
        self.refresh_progress()
        if self.runner.busy:
            return
        changes = result.changes
        moved = result.ticks > 0 or bool(changes)
        if moved:
            for view in self.views.values():
                view.apply(changes)
            view = self.views[self.current_view]
            view.frame(True)
            # The table reads its changed rows now, while the engine is idle: left to its own turn in
            # the event loop, that read came after the next frame had started the engine, and at
            # x1000 the rows showed placeholders for as long as the engine stayed behind.
            view.table.flush_repaint()
        self.refresh_chrome()

    def _busy_chrome(self) -> None:
        """While one long tick runs in the engine thread, say so (the header reads only plain values)."""
        if self.runner.busy:
            self.refresh_chrome()

    def refresh_progress(self) -> None:
        """The opening bar: the engine thread's latest placement figures while a step runs."""
        self.opening.refresh_from(self, self.runner.busy_for())

    def refresh_chrome(self) -> None:
        self.header.refresh_from(self)
        self.tabs.refresh_from(self)
        self.timecontrol.refresh_plots()

    def _apply_now(self) -> None:
        """Show what an operation changed at once, without waiting for the next frame."""
        self.update_views(FrameResult(changes=self.sim.store.take_changes()))

    # ---------------------------------------------------------------- simulation controls (timecontrol.py)

    def action_toggle_pause(self) -> None:
        self.timecontrol.toggle_pause()

    def action_step(self) -> None:
        self.timecontrol.step()

    def action_faster(self) -> None:
        self.timecontrol.faster()

    def action_slower(self) -> None:
        self.timecontrol.slower()

    def set_speed(self, speed: int) -> None:
        self.timecontrol.set_speed(speed)

    def action_step_back(self) -> None:
        self.timecontrol.step_back()

    def action_rewind(self) -> None:
        self.timecontrol.rewind()

    def action_forward(self) -> None:
        self.timecontrol.forward()

    def action_goto_time(self) -> None:
        self.timecontrol.goto_time_dialog()

    def action_toggle_plots(self) -> None:
        self.timecontrol.toggle_plots()

    def action_branches(self) -> None:
        self.timecontrol.branches_dialog()

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
        choice = await self.push_screen_wait(ViewPrompt(VIEW_ALIASES, list(self.views)))
        if choice == "quit":
            self.action_quit()
        elif choice:
            self.action_view(choice)

    def action_filter(self) -> None:
        self.views[self.current_view].open_filter()

    def selected_object(self) -> tuple[str, str] | None:
        """("node", name) or ("pod", namespace/name) selected in the current view."""
        if self.current_view == "nodes":
            node = self.selected_node()
            return ("node", node) if node is not None else None
        pod = self.selected_pod()
        return ("pod", pod) if pod is not None else None

    def action_describe(self) -> None:
        self.open_object("describe")

    def action_yaml(self) -> None:
        self.open_object("yaml")

    def open_object(self, mode: str) -> None:
        """k9s' describe (v) and YAML (y) views of the selected node or pod."""
        target = self.selected_object()
        if target is None:
            self.notify("Select a node (Nodes view) or a pod (Pods, Pending views) first.", severity="warning")
            return
        kind, name = target

        def produce(mode: str) -> str | None:
            sim = self.sim  # read at each refresh: loading a scenario replaces it
            if mode == "describe":
                return describe_node(sim, name, self.epoch) if kind == "node" else describe_pod(sim, name, self.epoch)
            manifest = node_manifest(sim, name, self.epoch) if kind == "node" else pod_manifest(sim, name, self.epoch)
            return to_yaml(manifest) if manifest is not None else None

        self.push_screen(ObjectScreen(kind, name, mode, produce, lambda: self.engine_idle))

    def action_clear_filter(self) -> None:
        self.views[self.current_view].clear_filter()

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    def unsaved_operations(self) -> int:
        return len(self.sim.session_entries()) - self.saved_operations

    @work(group="dialogs")
    async def action_quit(self) -> None:
        """Quit, but ask first while this session has operations no file holds (they would be lost)."""
        await self.wait_idle()
        unsaved = self.unsaved_operations()
        if unsaved > 0:
            ok = await self.push_screen_wait(ConfirmDialog(
                "Quit without saving?",
                Text(f"{unsaved} operation(s) of this session are not saved. Cancel and press ctrl+s to save the "
                     "scenario with them as timeline entries, or quit and lose them."),
                "Quit"))
            if not ok:
                return
        self.exit()

    # ---------------------------------------------------------------- operations

    async def wait_idle(self) -> None:
        await self.runner.wait_idle()

    def apply_operation(self, op: Operation) -> OperationResult:
        """The one place the UI changes the cluster. Call only while the engine is idle."""
        (result,) = self.apply_operations([op], op.describe())
        return result

    def apply_operations(self, ops: list[Operation], title: str) -> list[OperationResult]:
        """Operations applied one after another at this instant (a zone's nodes), told in one message."""
        history = self.sim.history
        branches = len(history.branches) if history is not None else 0
        results = [self.sim.apply(op) for op in ops]
        if results:
            self.last_result = results[-1]
        if history is not None and len(history.branches) > branches:
            self.notify(Text(f"A new future from {format_duration(self.sim.clock.now)}; the old one is kept as "
                             f"{list(history.branches)[-1]} (b: branches)."), title="Forked")
        refused = [r for r in results if not r.ok]
        if not results:
            self.notify(Text("nothing to do"), title=title, severity="warning")
        elif len(results) == 1:
            result = results[0]
            if result.ok:
                self.notify(Text(result.message), title=title)
            else:
                self.notify(Text(result.message), title=f"Refused: {title}", severity="warning", timeout=8)
        elif refused:
            self.notify(Text(f"{len(results) - len(refused)} of {len(results)} applied; refused: "
                             f"{refused[0].operation.describe()}: {refused[0].message}"
                             + (f" (and {len(refused) - 1} more)" if len(refused) > 1 else "")),
                        title=f"Refused in part: {title}", severity="warning", timeout=8)
        else:
            self.notify(Text(f"{len(results)} operations: {results[0].message} …"), title=title)
        self._apply_now()
        return results

    # ---------------------------------------------------------------- a new simulation (the load dialog: files.py)

    def _build(self, scenario: Scenario) -> Simulation:
        """A simulation of `scenario` that opens from its kept opened state when there is one."""
        sim = Simulation(scenario, event_limit=self.event_limit)
        sim.open_cache = OpenStateCache.default()
        return sim

    def load(self, scenario: Scenario, path: Path | None = None) -> None:
        """Replace the running simulation (the old one is dropped, even mid-tick)."""
        self.sim = self._build(scenario)
        self.sim.scheduler.progress = self.opening.report
        self.timecontrol.start_history(self.sim)
        self.scenario_path = Path(path) if path is not None else None
        self.saved_operations = 0
        self.runner.replace(self.sim)
        for view in self.views.values():
            view.load()
            view.update_title()
        self.views[self.current_view].frame(True)
        self.refresh_chrome()
        freeze_heap()
        self.timecontrol.open_scenario()
        self.notify(Text(f"{scenario.scenario.name}: {len(self.sim.store.nodes)} nodes"),
                    title=f"Loaded {path.name if path else 'scenario'}")

    # ---------------------------------------------------------------- palette (commands.py)

    def palette_commands(self, query: str) -> list[PaletteCommand]:
        return palette_commands(self, query)

    # ---------------------------------------------------------------- keys, for the help screen

    def keymap_keys(self, binding: Binding) -> list[str]:
        keys = self._keymap.get(binding.id or "") if binding.id else None
        return (keys or binding.key).split(",")

    def binding_groups(self) -> list[tuple[str, list[Binding]]]:
        return binding_groups()
