"""The app's time control: run and pause, step one tick, faster and slower; and time travel: step back
one tick, rewind a minute, forward a minute along the recorded future, go to any time or to an event's
instant (engine/history.py does the work; the app's simulation keeps its history from the start).

Everything that moves the simulated clock goes through `TimeControl`: the keys (`time_bindings`, whose
actions the app forwards here), the command palette (`palette_commands`) and the tests (`advance`,
`advance_to`). The engine runner (runner.py) does the stepping within a frame's budget; this module
decides when and how much.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.binding import Binding

from ..engine.history import format_bytes
from ..engine.simulation import freeze_heap
from ..units import format_duration
from .commands import PaletteCommand
from .screens.time_dialogs import BranchesDialog, GoToTimeDialog
from .widgets.plot import PlotStrip

if TYPE_CHECKING:
    from typing import Callable

    from ..engine import Simulation
    from .app import PlaygroundApp
    from .runner import EngineRunner, FrameResult

SPEED_GROUP = Binding.Group("Speed", compact=True)

# The help screen's "Simulation" group, in this order.
BINDING_IDS = ("playground.pause", "playground.step", "playground.faster", "playground.slower",
               "playground.step-back", "playground.rewind", "playground.forward", "playground.goto-time",
               "playground.branches", "playground.plots")

REWIND_MS = 60_000  # `<` and `>` move one minute of virtual time

PALETTE_SPEEDS = (1, 10, 100, 1000)


def time_bindings() -> list[Binding]:
    return [
        Binding("space", "toggle_pause", "Pause", id="playground.pause",
                tooltip="Pause or resume the simulated clock"),
        Binding("full_stop", "step", "Step", id="playground.step", tooltip="Advance one tick (pauses first)"),
        Binding("plus,equals_sign", "faster", "Faster", id="playground.faster", group=SPEED_GROUP,
                tooltip="Speed up: ×1 ×2 ×5 … ×1000"),
        Binding("minus", "slower", "Slower", id="playground.slower", group=SPEED_GROUP, tooltip="Slow down"),
        Binding("comma", "step_back", "Back", show=False, id="playground.step-back",
                tooltip="Go back one tick (pauses first)"),
        Binding("less_than_sign", "rewind", "Rewind", show=False, id="playground.rewind",
                tooltip="Go back one minute"),
        Binding("greater_than_sign", "forward", "Forward", show=False, id="playground.forward",
                tooltip="Forward one minute along the recorded future"),
        Binding("ctrl+g", "goto_time", "Go to time…", show=False, id="playground.goto-time",
                tooltip="Go to any instant (or Enter on an event)"),
        Binding("b", "branches", "Branches…", show=False, id="playground.branches",
                tooltip="The futures kept by forks: switch to one or save it"),
        Binding("ctrl+t", "toggle_plots", "Plots", show=False, id="playground.plots",
                tooltip="Plots: Ready nodes, pending, running, evictions"),
    ]


class TimeControl:
    """Run/pause, step and speed of one app; the header shows the result after each change."""

    def __init__(self, app: "PlaygroundApp") -> None:
        self.app = app
        self.opening = None  # the worker running the scenario's instant 0 (open_scenario)

    @property
    def runner(self) -> "EngineRunner":
        return self.app.runner

    @property
    def paused(self) -> bool:
        return self.runner.paused

    @property
    def speed(self) -> int:
        return self.runner.speed

    def toggle_pause(self) -> None:
        self.set_paused(not self.runner.paused)

    def set_paused(self, paused: bool) -> None:
        self.runner.set_paused(paused)
        self.app.refresh_chrome()

    def step(self) -> None:
        """One tick, in a worker like any frame (a tick can be long at 150,000 pods)."""
        if not self.runner.paused:
            self.runner.set_paused(True)
        self.runner.request_steps(1)
        self.app.run_worker(self.app.frame(), group="frame", name="step")

    def faster(self) -> None:
        self.runner.faster()
        self.app.refresh_chrome()

    def slower(self) -> None:
        self.runner.slower()
        self.app.refresh_chrome()

    def set_speed(self, speed: int) -> None:
        self.runner.set_speed(speed)
        self.app.refresh_chrome()

    async def advance(self, ticks: int = 1) -> "FrameResult":
        """Run exactly `ticks` ticks and update the screen (tests, screenshots)."""
        await self.opened()
        result = await self.runner.run_ticks(ticks)
        self.app.update_views(result)
        return result

    async def advance_to(self, ms: int) -> "FrameResult":
        """Step tick by tick until the simulated clock reaches `ms`."""
        sim = self.app.sim
        ticks = max(0, -(-(ms - sim.clock.now) // sim.tick))
        return await self.advance(ticks)

    def open_scenario(self) -> None:
        """A scenario opens in its steady state: its instant 0 runs as soon as it is loaded (in the
        engine thread, under the opening bar), not at the first step, so that T+0s shows the opened
        cluster, the state going back to 0 s shows too, also when the app starts paused."""
        if not self.app.sim.opened:
            self.opening = self.app.run_worker(self._open(), group="frame", name="open")

    async def opened(self) -> None:
        """Wait for the scenario's opening, so that frames step from the opened state, after its
        redraw (never before it: the tables would be filled twice, in an order that varies)."""
        opening = self.opening
        if opening is not None and not opening.is_finished:
            await opening.wait()

    async def _open(self) -> None:
        app = self.app
        sim = app.sim
        await self.runner.run_job(sim.open_now, True)  # (freeze: see Simulation._open)
        if sim is not app.sim:  # another scenario was loaded meanwhile
            return
        sim.history.free_retired()  # a restored opened state replaced the built one
        sim.store.take_changes()
        self.redraw_all()
        freeze_heap(release=False)  # the open froze the cluster: only the tables' rows are new

    # ---------------------------------------------------------------- time travel

    def step_back(self) -> None:
        self.travel(lambda sim: sim.history.seek(sim.clock.now - sim.tick))

    def rewind(self) -> None:
        self.travel(lambda sim: sim.history.seek(sim.clock.now - REWIND_MS))

    def forward(self) -> None:
        self.travel(lambda sim: sim.history.forward(REWIND_MS))

    def seek(self, ms: int) -> None:
        self.travel(lambda sim: sim.history.seek(ms))

    def jump_to_event(self, event_time: int, key=None) -> None:
        """Enter on an event: the instant it was recorded at, the cursor kept on it."""
        self.travel(lambda sim: sim.history.seek(event_time), keep_event=key)

    def switch_branch(self, name: str) -> None:
        self.travel(lambda sim: sim.history.switch(name))

    def travel(self, move: "Callable[[Simulation], None]", keep_event=None) -> None:
        """Pause, then move in time on the engine (a worker: seconds at 150,000 pods) and redraw."""
        self.set_paused(True)
        self.app.run_worker(self._travel(move, keep_event), group="frame", name="travel")

    async def _travel(self, move: "Callable[[Simulation], None]", keep_event=None) -> None:
        app = self.app
        await app.wait_idle()
        sim = app.sim
        sim.enable_history()
        await self.runner.run_job(move, sim)
        if sim is not app.sim:  # a scenario was loaded meanwhile
            return
        sim.history.free_retired()  # here, on the event loop: no widget is reading the old state now
        sim.store.take_changes()
        self.redraw_all(keep_event)

    def redraw_all(self, keep_event=None) -> None:
        """After going back or forward the state is another one: every table is filled again, each
        cursor kept on its row where that row still exists."""
        app = self.app
        for name, view in app.views.items():
            key = view.table.cursor_key if name != "events" else keep_event
            view.load()
            if key is not None:
                view.table.select_key(key)
            view.update_title()
        app.views[app.current_view].frame(True)
        app.refresh_chrome()
        self.refresh_plots()

    @staticmethod
    def start_history(sim: "Simulation") -> None:
        """The app's simulations record their history from the start; the restored state is freed by
        the app (free_retired), on its event loop."""
        sim.enable_history().defer_free = True

    def history_text(self) -> str:
        sim = self.app.sim
        history = sim.history
        if history is None:
            return "time travel off"
        memory = history.memory()
        text = (f"{memory.checkpoints} checkpoints, {format_bytes(memory.total)} of "
                f"{format_bytes(memory.budget)}")
        if history.branches:
            text += f", {len(history.branches)} branch(es)"
        return text

    # ---------------------------------------------------------------- the plot strip

    @property
    def plots(self) -> "PlotStrip":
        return self.app.query_one(PlotStrip)

    def toggle_plots(self) -> None:
        self.plots.toggle_class("-shown")
        self.refresh_plots()

    def refresh_plots(self) -> None:
        if not self.app.runner.busy:
            self.plots.refresh_from(self.app.sim)

    def goto_time_dialog(self) -> None:
        async def flow() -> None:
            await self.app.wait_idle()
            history = self.app.sim.history
            head = history.head if history is not None else self.app.sim.clock.now
            ms = await self.app.push_screen_wait(GoToTimeDialog(self.app.sim.clock.now, head))
            if ms is not None:
                self.seek(ms)
        self.app.run_worker(flow(), group="dialogs", name="go to time")

    def branches_dialog(self) -> None:
        """b: the kept branches; switch to one or save it (also in the palette, one command each)."""
        app = self.app

        async def flow() -> None:
            await app.wait_idle()
            history = app.sim.history
            if history is None or not history.branches:
                app.notify(Text("No branches yet: after going back, a new operation starts a new future and "
                                "keeps the old one as a branch."), title="Branches")
                return
            branches = [(name, b.forked_at, b.head, len(b.operations)) for name, b in history.branches.items()]
            choice = await app.push_screen_wait(BranchesDialog(app.sim.clock.now, branches))
            if choice is None:
                return
            what, name = choice
            if name not in history.branches:  # gone meanwhile (another switch)
                return
            if what == "switch":
                self.switch_branch(name)
            else:
                self.save_branch_dialog(name)
        app.run_worker(flow(), group="dialogs", name="branches")

    def palette_commands(self) -> list[PaletteCommand]:
        commands = [
            PaletteCommand("Pause / resume", "Pause or resume the simulated clock (space)", self.toggle_pause),
            PaletteCommand("Step one tick", "Advance the clock by one tick (.)", self.step),
            PaletteCommand("Faster", "Speed up (+)", self.faster),
            PaletteCommand("Slower", "Slow down (-)", self.slower),
            PaletteCommand("Step back one tick", "Time travel: go back one tick (,)", self.step_back),
            PaletteCommand("Rewind one minute", "Time travel: go back one minute (<)", self.rewind),
            PaletteCommand("Forward one minute", "Along the recorded future (>)", self.forward),
            PaletteCommand("Go to time…", "Any instant of this session (ctrl+g)", self.goto_time_dialog),
            PaletteCommand("Branches…", "The futures kept by forks: switch to one or save it (b)",
                           self.branches_dialog),
            PaletteCommand("Show / hide plots", "Ready nodes per zone, pending, running, evictions (ctrl+t)",
                           self.toggle_plots),
        ]
        history = self.app.sim.history
        for name, branch in (history.branches.items() if history is not None else ()):
            commands.append(PaletteCommand(
                f"Switch to {name}", f"The future left at {format_duration(branch.forked_at)} by a new operation, "
                f"recorded to {format_duration(branch.head)}", lambda n=name: self.switch_branch(n)))
            commands.append(PaletteCommand(
                f"Save {name}…", "Write that future as a scenario that replays it",
                lambda n=name: self.save_branch_dialog(n)))
        for speed in PALETTE_SPEEDS:
            commands.append(PaletteCommand(f"Speed ×{speed}", f"Run at {speed} simulated second(s) per second",
                                           lambda s=speed: self.set_speed(s), discover=False))
        return commands

    def save_branch_dialog(self, name: str) -> None:
        from .screens.file_dialogs import SaveDialog

        app = self.app

        def save(path) -> str:
            app.sim.history.save_branch(name, path)
            return f"wrote {path} with {name} (its operations as timeline entries)"

        async def flow() -> None:
            await app.wait_idle()
            default = app.default_save_path().with_name(f"{app.default_save_path().stem}-{name}.toml")
            message = await app.push_screen_wait(SaveDialog(default, save))
            if message:
                app.notify(message, title="Saved")
        app.run_worker(flow(), group="dialogs", name=f"save {name}")
