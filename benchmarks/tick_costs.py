"""What the ticks of a zone outage cost, by the first timer due in each, and how well two guesses
of the next tick's cost do: the tick just run, and what the ticks of the same kind cost lately (the
TUI runner's TickForecast, which ends a frame before a tick that would likely take it past its
budget). Headless, tui_frames.py's cluster (5,000 nodes, 150,000 pods), a whole zone powered off at
once after the open, CPU time of each tick (time.thread_time). Prints figures, asserts nothing.

    .venv/bin/python benchmarks/tick_costs.py [--nodes 5000] [--deployments 50] [--replicas 3000]
                                              [--ticks 20000] [--src=DIR]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from collections import defaultdict

from checkout import use_checkout  # noqa: E402

use_checkout()

from playground.engine import Operation, Simulation  # noqa: E402
from playground.tui.runner import TickForecast  # noqa: E402

from tui_frames import pct, scenario  # noqa: E402


def measure(nodes: int, deployments: int, replicas: int, ticks: int) -> list[tuple[str | None, float]]:
    sim = Simulation(scenario(nodes, deployments, replicas), event_limit=5000)
    sim.run_until(5)
    gc.freeze()  # as the playground keeps the opened cluster out of the collector's sight
    for node in sorted(sim.store.nodes_by_zone["zone-0"]):
        sim.apply(Operation("power-off", node=node))
    rows = []
    for _ in range(ticks):
        kind = TickForecast.kind(sim.clock, sim.tick)
        start = time.thread_time()
        sim.step()
        rows.append((kind, time.thread_time() - start))
    return rows


def misses(rows: list[tuple[str | None, float]], guess) -> tuple[float, int]:
    """Mean absolute error of a guess and how often it fell short by more than a millisecond."""
    errors, short, last = [], 0, 0.0
    forecast = TickForecast()
    for kind, cost in rows:
        expected = guess(forecast, kind, last)
        errors.append(abs(expected - cost))
        short += cost - expected > 0.001
        forecast.learn(kind, cost)
        last = cost
    return statistics.mean(errors), short


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--deployments", type=int, default=50)
    parser.add_argument("--replicas", type=int, default=3000)
    parser.add_argument("--ticks", type=int, default=20000)
    parser.add_argument("--src", default=None, help="run another checkout of the code (path)")
    args = parser.parse_args()
    rows = measure(args.nodes, args.deployments, args.replicas, args.ticks)
    total = sum(cost for _, cost in rows)
    print(f"{len(rows)} ticks of 1 s after a zone of {args.nodes // 5} nodes lost power: {total:.2f} s of CPU")
    by_kind: dict[str | None, list[float]] = defaultdict(list)
    for kind, cost in rows:
        by_kind[kind].append(cost)
    for kind, costs in sorted(by_kind.items(), key=lambda item: -sum(item[1])):
        print(f"  {kind or '(nothing due)':32} {len(costs):6} ticks  mean {statistics.mean(costs) * 1000:7.3f} ms"
              f"  p90 {pct(costs, .9) * 1000:7.3f} ms  max {max(costs) * 1000:8.3f} ms"
              f"  {sum(costs) / total:6.1%} of the CPU")
    for name, guess in (("the tick just run", lambda forecast, kind, last: last),
                        ("the ticks of its kind (TickForecast)", lambda forecast, kind, last: forecast.expect(kind))):
        error, short = misses(rows, guess)
        print(f"  guessed by {name}: mean error {error * 1000:.3f} ms, short by more than 1 ms {short} times")


if __name__ == "__main__":
    main()
