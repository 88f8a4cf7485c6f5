"""What a screen update of the TUI costs while it runs a zone outage at ×1000, and which widgets it
draws: 5,000 nodes / 150,000 pods (tui_frames.py's cluster), the Nodes view shown, a whole zone
powered off; after 3 s of running, 10 s are measured. Prints the screen updates per second, their
CPU time, the UI thread's share of the wall time, and per widget class the CPU, calls and lines of
its `render_lines` per update. It prints figures and asserts nothing.

    .venv/bin/python benchmarks/tui_paint.py [--nodes 5000] [--seconds 10] [--src=DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
_src = next((a.split("=", 1)[1] for a in sys.argv if a.startswith("--src=")), None)
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(Path(_src).resolve() if _src else HERE.parent))

from playground.engine import Operation, Simulation  # noqa: E402

from tui_frames import scenario  # noqa: E402


class Census:
    """CPU time, calls and lines of each widget class's render_lines, and of the screen updates."""

    def __init__(self) -> None:
        self.on = False
        self.cpu: collections.Counter = collections.Counter()
        self.calls: collections.Counter = collections.Counter()
        self.lines: collections.Counter = collections.Counter()
        self.updates = 0
        self.update_cpu = 0.0

    def watch(self) -> None:
        from textual.screen import Screen
        from textual.widget import Widget

        render_lines, on_update = Widget.render_lines, Screen._on_timer_update
        census = self

        def counted_lines(widget, crop):
            if not census.on:
                return render_lines(widget, crop)
            start = time.thread_time()
            try:
                return render_lines(widget, crop)
            finally:
                name = type(widget).__name__ + (f"#{widget.id}" if widget.id else "")
                census.cpu[name] += time.thread_time() - start
                census.calls[name] += 1
                census.lines[name] += crop.height

        def counted_update(screen) -> None:
            start = time.thread_time()
            try:
                on_update(screen)
            finally:
                if census.on:
                    census.updates += 1
                    census.update_cpu += time.thread_time() - start
        Widget.render_lines = counted_lines
        Screen._on_timer_update = counted_update


async def run(args: argparse.Namespace) -> None:
    from playground.tui.app import PlaygroundApp

    sim = Simulation(scenario(args.nodes, 50, args.nodes * 30 // 50), event_limit=5000)
    sim.run_until(5)
    census = Census()
    census.watch()
    app = PlaygroundApp(sim.scenario, paused=True, simulation=sim, keymap_file=None, speed=1000)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause(0.3)
        for node in sorted(sim.store.nodes_by_zone["zone-0"]):
            sim.apply(Operation("power-off", node=node))
        app._apply_now()
        app.action_toggle_pause()
        await asyncio.sleep(3)
        census.on = True
        wall_start, ui_start = time.perf_counter(), time.thread_time()
        await asyncio.sleep(args.seconds)
        census.on = False
        wall, ui = time.perf_counter() - wall_start, time.thread_time() - ui_start
        app.action_toggle_pause()
        await app.wait_idle()
    n = max(census.updates, 1)
    print(f"{census.updates} screen updates in {wall:.1f} wall s ({census.updates / wall:.1f}/s), "
          f"{census.update_cpu / n * 1000:.2f} ms of CPU each; the UI thread's CPU: {ui / wall:.0%} of the wall time")
    for name, cpu in census.cpu.most_common(12):
        print(f"  {name:30s} {cpu / n * 1000:6.2f} ms an update  calls {census.calls[name] / n:5.2f}  "
              f"lines {census.lines[name] / n:6.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--src", default=None, help="run another checkout of the code (path)")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
