"""The app's time control: run and pause, step one tick, faster and slower.

Everything that moves the simulated clock goes through `TimeControl`: the keys (`time_bindings`, whose
actions the app forwards here), the command palette (`palette_commands`) and the tests (`advance`,
`advance_to`). The engine runner (runner.py) does the stepping within a frame's budget; this module
decides when and how much.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.binding import Binding

from .commands import PaletteCommand

if TYPE_CHECKING:
    from .app import PlaygroundApp
    from .runner import EngineRunner, FrameResult

SPEED_GROUP = Binding.Group("Speed", compact=True)

# The help screen's "Simulation" group, in this order.
BINDING_IDS = ("playground.pause", "playground.step", "playground.faster", "playground.slower")

PALETTE_SPEEDS = (1, 10, 100, 1000)


def time_bindings() -> list[Binding]:
    return [
        Binding("space", "toggle_pause", "Pause", id="playground.pause",
                tooltip="Pause or resume the simulated clock"),
        Binding("full_stop", "step", "Step", id="playground.step", tooltip="Advance one tick (pauses first)"),
        Binding("plus,equals_sign", "faster", "Faster", id="playground.faster", group=SPEED_GROUP,
                tooltip="Speed up: ×1 ×2 ×5 … ×1000"),
        Binding("minus", "slower", "Slower", id="playground.slower", group=SPEED_GROUP, tooltip="Slow down"),
    ]


class TimeControl:
    """Run/pause, step and speed of one app; the header shows the result after each change."""

    def __init__(self, app: "PlaygroundApp") -> None:
        self.app = app

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
        result = await self.runner.run_ticks(ticks)
        self.app.update_views(result)
        return result

    async def advance_to(self, ms: int) -> "FrameResult":
        """Step tick by tick until the simulated clock reaches `ms`."""
        sim = self.app.sim
        ticks = max(0, -(-(ms - sim.clock.now) // sim.tick))
        return await self.advance(ticks)

    def palette_commands(self) -> list[PaletteCommand]:
        commands = [
            PaletteCommand("Pause / resume", "Pause or resume the simulated clock (space)", self.toggle_pause),
            PaletteCommand("Step one tick", "Advance the clock by one tick (.)", self.step),
            PaletteCommand("Faster", "Speed up (+)", self.faster),
            PaletteCommand("Slower", "Slow down (-)", self.slower),
        ]
        for speed in PALETTE_SPEEDS:
            commands.append(PaletteCommand(f"Speed ×{speed}", f"Run at {speed} simulated second(s) per second",
                                           lambda s=speed: self.set_speed(s), discover=False))
        return commands
