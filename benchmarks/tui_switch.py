"""What switching views costs the TUI: the UI thread's CPU per view key, paused, headless at 160 x 48.

Builds tui_frames.py's cluster (nodePools in 5 zones, Deployments of 100m / 128Mi), runs it a few
seconds, and presses the view keys 1-5 in turn (`--rounds` times), each key followed by the pilot's
wait for the screen to catch up. Prints, per key and over all keys, the median and p90 of the UI
thread's CPU (time.thread_time) from the press to the end of that wait, and the same for a key bound
to nothing: what the test pilot itself costs a key, to subtract. Asserts nothing.

    .venv/bin/python benchmarks/tui_switch.py [--nodes 100] [--pods 1800] [--rounds 20] [--src=DIR]

The cost of a switch hardly depends on the cluster's size (about the same at 100 and 5,000 nodes):
it is Textual laying the screen out and painting it, the focus moving from table to table, and the
views' own redraw. --src runs another checkout of the code (the base revision, for before / after).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from checkout import use_checkout  # noqa: E402

use_checkout()

from playground.engine import Simulation  # noqa: E402

from tui_frames import scenario  # noqa: E402

VIEW_KEYS = "12345"
UNBOUND = "§"  # no binding anywhere: the pilot's own cost of a key


async def measure(nodes: int, pods: int, rounds: int) -> dict[str, list[float]]:
    from playground.tui.app import PlaygroundApp

    deployments = 50 if pods >= 50 * 60 else max(1, pods // 60)
    sim = Simulation(scenario(nodes, deployments, pods // deployments), event_limit=5000)
    sim.run_until(5)
    app = PlaygroundApp(sim.scenario, paused=True, simulation=sim, keymap_file=None, speed=1000)
    costs: dict[str, list[float]] = {key: [] for key in VIEW_KEYS + UNBOUND}
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause(0.3)
        for _ in range(rounds):
            for key in VIEW_KEYS + UNBOUND:
                start = time.thread_time()
                await pilot.press(key)
                await pilot.pause()
                costs[key].append((time.thread_time() - start) * 1000)
    return costs


def p90(values: list[float]) -> float:
    return sorted(values)[int(0.9 * len(values))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=100)
    parser.add_argument("--pods", type=int, default=1800)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--src", default=None, help="run another checkout of the code (path)")
    args = parser.parse_args()
    costs = asyncio.run(measure(args.nodes, args.pods, args.rounds))
    switches = [cost for key in VIEW_KEYS for cost in costs[key]]
    print(f"{args.nodes} nodes, {args.pods} pods, paused, 160 x 48, {args.rounds} rounds of the keys "
          f"{' '.join(VIEW_KEYS)}: UI thread CPU per key, ms")
    for key in VIEW_KEYS:
        print(f"  view {key}: median {statistics.median(costs[key]):5.1f}   p90 {p90(costs[key]):5.1f}")
    print(f"  every switch: median {statistics.median(switches):5.1f}   p90 {p90(switches):5.1f}")
    print(f"  a key bound to nothing (the test pilot's own cost): median "
          f"{statistics.median(costs[UNBOUND]):5.1f}   p90 {p90(costs[UNBOUND]):5.1f}")


if __name__ == "__main__":
    main()
