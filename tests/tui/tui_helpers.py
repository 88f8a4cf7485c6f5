"""Helpers of the TUI tests: a small scenario, an app that starts paused with a fixed seed and is
stepped explicitly (no frame timer, no user keymap file)."""

from __future__ import annotations

from pathlib import Path

from playground.scenario import load_scenario
from playground.tui.app import PlaygroundApp

HERE = Path(__file__).parent
SMALL = HERE / "scenarios" / "small.toml"
SIZE = (160, 48)


def make_app(path: Path = SMALL, **kwargs) -> PlaygroundApp:
    options = dict(paused=True, keymap_file=None, auto_frames=False)
    options.update(kwargs)
    paused = options.pop("paused")
    return PlaygroundApp(load_scenario(path), path=path, paused=paused, **options)


async def settle(pilot, rounds: int = 3) -> None:
    """Let the app process what was pressed: dialog flows run as workers that wait on their dialog,
    so this waits for the step workers and a load dialog's reading only, then for the screen to
    catch up."""
    for _ in range(rounds):
        await pilot.pause()
        steps = [w for w in pilot.app.workers if w.group in ("frame", "load") and not w.is_finished]
        if steps:
            await pilot.app.workers.wait_for_complete(steps)
    await pilot.pause()
