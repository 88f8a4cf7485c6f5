"""How the TUI copes with a big cluster: frame times and ticks per second, headless.

    .venv/bin/python benchmarks/tui_frames.py [--nodes 5000] [--deployments 50] [--replicas 3000]
                                              [--seconds 20] [--speed 1000] [--power-off node|zone]
                                              [--open-in-app] [--src=DIR]

Builds a 5,000-node / 150,000-pod scenario in memory (nodePools in 5 zones, 32 cpu / 128Gi / 110 pods
per node; 50 Deployments x 3,000 replicas of 100m / 128Mi), places the pods headless first (every pod at
t=0 through the scheduler, as the playground opens a scenario; that placement is the engine's cost,
reported apart), then runs the app with `run_test` at high speed with a whole zone (or
one node) powered off, while a "user" presses keys: moving the cursor, switching to the
150,000-row pods view, paging, filtering and back.

Prints, per refresh cycle ("frame"): the time stepping the engine (bounded by the frame budget, which
grows while the engine falls behind the speed: see playground/tui/runner.py), the
time updating widgets from the ChangeSet, and their sum; the ticks run per wall second; the latency
of key presses (until a paint shows the answer); the one-off costs (loading 150,000 rows, filtering them); and the
process's memory at the end (RSS, its peak, and what time travel's checkpoints hold). It prints figures and
asserts nothing about timing.

The breakdown of where the wall time went: the event loop's lag (how late a 5 ms sleep wakes up:
what a key or a repaint waits for, whether the UI is busy or waits for the GIL), the garbage
collector's pauses (gc.callbacks), the time-travel checkpoints taken in the engine thread (a long
pickle holds the GIL), the process's CPU time against the wall time, and the machine's load.
`--no-history` runs without time travel's recording, to separate its cost; `--no-checkpoints` records
but takes no checkpoint after the first, to separate the checkpoints' cost from the rest of the
recording. `--open-in-app` lets the app build and open the cluster as `playground FILE` does (time
travel's first checkpoint is then taken before the open, with 5,000 nodes and no pod) instead of
placing it headless first.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import statistics
import sys
import time

from checkout import use_checkout  # noqa: E402

use_checkout()  # --src=DIR runs another checkout of the code (the base revision, for before/after figures)

from playground.engine import Operation, Simulation  # noqa: E402
from playground.scenario import Scenario  # noqa: E402



def scenario(nodes: int, deployments: int, replicas: int, zones: int = 5) -> Scenario:
    per_zone = nodes // zones
    return Scenario.model_validate({
        "scenario": {"name": f"bench-{nodes}-nodes", "seed": 1},
        # Place 150,000 pods in one go: many cycles per tick, and the 100-node floor of
        # numFeasibleNodesToFind (percentageOfNodesToScore 1) as large clusters configure it.
        "scheduler": {"attemptsPerTick": deployments * replicas, "percentageOfNodesToScore": 1},
        "nodePools": [{"namePrefix": f"z{z}-", "count": per_zone,
                       "labels": {"topology.kubernetes.io/zone": f"zone-{z}"},
                       "capacity": {"cpu": "32", "memory": "128Gi", "pods": 110}} for z in range(zones)],
        "deployments": [{"name": f"app-{i}", "replicas": replicas,
                         "template": {"labels": {"app": f"app-{i}"},
                                      "requests": {"cpu": "100m", "memory": "128Mi"}}}
                        for i in range(deployments)],
    })


def _state(app) -> tuple:
    table = app.views[app.current_view].table
    return app.current_view, table.cursor_index


class KeyWatch:
    """The key press being answered: the view and cursor before it, and when the first paint that
    started after the app had acted on it ended (the screen shows the answer)."""

    def __init__(self, app) -> None:
        self.app = app
        self.before: tuple | None = None
        self.shown_at: float | None = None

    def watch_paints(self) -> None:
        from textual.screen import Screen

        refresh = Screen._compositor_refresh

        def watched(screen) -> None:
            answered = self.before is not None and self.shown_at is None and _state(self.app) != self.before
            refresh(screen)
            if answered:
                self.shown_at = time.perf_counter()
        Screen._compositor_refresh = watched


async def press_and_wait(app, key: str, watch: KeyWatch, timeout: float = 10.0) -> tuple[float, float] | None:
    """Inject a key as the terminal driver would and time it until the app has acted on it (the view
    or the cursor changed) and until a paint has put that on the screen: the latency a user feels,
    whatever the engine is doing meanwhile. (acted, shown) in seconds, or None."""
    from textual import events

    before = watch.before = _state(app)
    watch.shown_at = None
    start = time.perf_counter()
    acted = None
    character = key if len(key) == 1 else None
    app.post_message(events.Key(key, character))
    try:
        while time.perf_counter() - start < timeout:
            await asyncio.sleep(0.0005)
            if acted is None and _state(app) != before:
                acted = time.perf_counter() - start
            if acted is not None and watch.shown_at is not None:
                return acted, watch.shown_at - start
        return None
    finally:
        watch.before = None


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def ms(value: float) -> str:
    return f"{value * 1000:7.1f} ms"


class Pauses:
    """Wall time of the garbage collector's collections and of time travel's checkpoints."""

    def __init__(self) -> None:
        self.gc: list[float] = []
        self.gc_by_generation: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self.checkpoints: list[float] = []
        self._gc_start = 0.0

    def on_gc(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._gc_start = time.perf_counter()
        else:
            pause = time.perf_counter() - self._gc_start
            self.gc.append(pause)
            self.gc_by_generation[info["generation"]].append(pause)

    def watch_checkpoints(self, history) -> None:
        cls = type(history)  # slotted: wrap the class's method (this process runs one simulation)
        take = cls._checkpoint

        def timed(self_) -> None:
            start = time.perf_counter()
            take(self_)
            self.checkpoints.append(time.perf_counter() - start)
        cls._checkpoint = timed


async def loop_lag(samples: list[float], stop: asyncio.Event) -> None:
    """How late the event loop wakes from a 5 ms sleep: the wait a key press or a repaint sees."""
    while not stop.is_set():
        start = time.perf_counter()
        await asyncio.sleep(0.005)
        samples.append(time.perf_counter() - start - 0.005)


def summary(values: list[float]) -> str:
    if not values:
        return "none"
    return f"{len(values)}: p50 {ms(pct(values, .5))}  p95 {ms(pct(values, .95))}  max {ms(max(values))}  sum {sum(values):.2f} s"


async def run(args: argparse.Namespace) -> None:
    from playground.tui.app import PlaygroundApp

    t0 = time.perf_counter()
    if args.open_in_app:
        # As `playground FILE` opens it: the app builds the cluster, takes time travel's first
        # checkpoint, then opens it (every pod placed at t=0) in its engine thread.
        app = PlaygroundApp(scenario(args.nodes, args.deployments, args.replicas), paused=True,
                            keymap_file=None, speed=args.speed)
        sim = app.sim
        print(f"cluster: {len(sim.store.nodes)} nodes; built by the app in {time.perf_counter() - t0:.1f} s, "
              f"opened by the app (below)")
    else:
        sim = Simulation(scenario(args.nodes, args.deployments, args.replicas), event_limit=5000)
        built = time.perf_counter() - t0
        t0 = time.perf_counter()
        sim.run_until(5)  # every pod is placed at t=0, as the playground opens a scenario
        placed = time.perf_counter() - t0
        bound = sum(1 for p in sim.store.pods.values() if p.node_name)
        print(f"cluster: {len(sim.store.nodes)} nodes, {len(sim.store.pods)} pods ({bound} bound); "
              f"built in {built:.1f} s, placed headless in {placed:.1f} s (engine cost, before the UI starts)")
        app = PlaygroundApp(sim.scenario, paused=True, simulation=sim, keymap_file=None, speed=args.speed)
    if args.no_history:
        sim.history = None  # no time travel recording: what the checkpoints cost, by difference
    elif args.no_checkpoints:
        # Recording (the operations, the figures) without a checkpoint after the first: what the
        # checkpoints cost apart from the rest of the recording, by difference.
        sim.history.interval, sim.history.fixed_interval = 2**62, True
    pauses = Pauses()
    engine_cpu: list[float] = []  # the engine thread's CPU time per frame (time.thread_time)
    run_ticks = app.runner._run_ticks

    def timed_ticks(*a):
        start = time.thread_time()
        try:
            return run_ticks(*a)
        finally:
            engine_cpu.append(time.thread_time() - start)
    app.runner._run_ticks = timed_ticks
    # The screen's own work: Textual lays out and paints what the widgets refreshed on its update timer
    # (not inside app.frame). Each frame's UI work is its widget update plus the paints since the last.
    from textual.screen import Screen

    paints: list[float] = []
    frame_ui: list[float] = []
    painted = [0.0]
    on_update = Screen._on_timer_update

    def timed_update(screen) -> None:
        start = time.perf_counter()
        try:
            on_update(screen)
        finally:
            paints.append(time.perf_counter() - start)
            painted[0] += paints[-1]
    Screen._on_timer_update = timed_update
    update_views = app.update_views

    def timed_views(result) -> None:
        start = time.perf_counter()
        try:
            update_views(result)
        finally:
            frame_ui.append(time.perf_counter() - start + painted[0])
            painted[0] = 0.0
    app.update_views = timed_views
    if sim.history is not None:
        pauses.watch_checkpoints(sim.history)
    key_watch = KeyWatch(app)
    key_watch.watch_paints()
    t0 = time.perf_counter()
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        if args.open_in_app:
            await app.timecontrol.opened()
            await pilot.pause()
        mounted = time.perf_counter() - t0
        if args.view != app.current_view:
            app.action_view(args.view)
            await pilot.pause()
        print(f"app mounted ({len(sim.store.nodes)} nodes, {len(sim.store.pods)} pods; the Pods table holds "
              f"{app.views['pods'].table.total_count} rows: hidden, it fills when shown or once the keys are quiet) "
              f"in {mounted:.2f} s")
        # The first node, or the whole first zone, loses power.
        targets = ["z0-1"] if args.power_off == "node" else sorted(sim.store.nodes_by_zone["zone-0"])
        for node in targets:
            sim.apply(Operation("power-off", node=node))
        app._apply_now()
        app.ui_seconds.clear()
        app.step_seconds.clear()
        app.frame_ticks.clear()
        paints.clear()
        frame_ui.clear()

        lags: list[float] = []
        stop_lag = asyncio.Event()
        lag_task = asyncio.ensure_future(loop_lag(lags, stop_lag))
        gc.callbacks.append(pauses.on_gc)
        pauses.checkpoints.clear()
        profile = None
        if args.profile:
            import cProfile

            profile = cProfile.Profile()  # the event loop's thread only: what the UI costs
            profile.enable()
        app.action_toggle_pause()  # run at the chosen speed
        sim_start, wall_start, cpu_start = sim.clock.now, time.perf_counter(), time.process_time()
        ui_cpu_start = time.thread_time()  # this thread is the event loop's: every UI cost is in it
        engine_cpu.clear()
        load_start = os.getloadavg()[0]
        latencies: list[tuple[str, float, float]] = []  # (key, acted, shown)
        slowest: list[tuple[float, str, float, int]] = []  # (shown, key, wall s into the run, simulated s)
        one_off: list[tuple[str, float]] = []
        script = ["down", "down", "down", "2", "pagedown", "pagedown", "end", "home", "3", "4", "5", "1", "down"]
        step = 0
        while time.perf_counter() - wall_start < args.seconds:
            if not args.key_interval:  # a user watching, no keys
                await asyncio.sleep(0.25)
                continue
            await asyncio.sleep(args.key_interval)
            key = script[step % len(script)]
            step += 1
            answered = await press_and_wait(app, key, key_watch)
            if answered is not None:
                latencies.append((key, *answered))
                slowest.append((answered[1], key, time.perf_counter() - wall_start, sim.clock.now // 1000))
            if step == len(script):
                # A filter over the 150,000-row pods view, then clearing it (one-off O(rows) passes).
                app.action_view("pods")
                await pilot.pause()
                table = app.views["pods"].table
                await app.wait_idle()
                start = time.perf_counter()
                table.set_filter("app-7-")
                one_off.append((f"filter 150k pods -> {table.row_count} rows", time.perf_counter() - start))
                await pilot.pause()
                await app.wait_idle()
                start = time.perf_counter()
                table.set_filter("")
                one_off.append(("clear the filter", time.perf_counter() - start))
                app.action_view("nodes")
        wall = time.perf_counter() - wall_start
        cpu = time.process_time() - cpu_start
        ui_cpu = time.thread_time() - ui_cpu_start
        if profile is not None:
            profile.disable()
            profile.dump_stats(args.profile)
        gc.callbacks.remove(pauses.on_gc)
        stop_lag.set()
        await lag_task
        app.action_toggle_pause()
        await app.wait_idle()  # a frame may still be running its ticks
        await pilot.pause()
        simulated = (sim.clock.now - sim_start) / 1000

    steps = list(app.step_seconds)
    uis = list(app.ui_seconds)
    totals = [a + b for a, b in zip(steps, uis)]
    ticks = sum(app.frame_ticks)
    print(f"ran {wall:.1f} wall s at ×{args.speed}: {len(totals)} frames ({len(totals) / wall:.1f}/s), "
          f"{ticks} ticks ({ticks / wall:.0f} ticks/s), {simulated:.0f} simulated s "
          f"(actual ×{simulated / wall:.0f}); powered off: {len(targets)} node(s)")
    print(f"  CPU time of the process: {cpu:.1f} s in {wall:.1f} wall s ({cpu / wall:.0%} of one core); "
          f"machine load average {load_start:.1f} -> {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    frames = len(app.frame_ticks)
    engine_total = sum(engine_cpu)
    print(f"  CPU by thread: UI (event loop) {ui_cpu:.2f} s = {ui_cpu / max(frames, 1) * 1000:.1f} ms per frame, "
          f"{ui_cpu / wall:.0%} of the wall time; engine {engine_total:.2f} s for {simulated:.0f} simulated s "
          f"(×{simulated / engine_total if engine_total else float('nan'):.0f} per engine CPU s)")
    print(f"  event loop lag (5 ms sleeps):   {summary(lags)}")
    print(f"  garbage collector pauses:       {summary(pauses.gc)}")
    print("    by generation: " + ", ".join(f"{g}: {len(v)} sum {sum(v):.2f} s"
                                           for g, v in pauses.gc_by_generation.items()))
    print(f"  time-travel checkpoints:        {summary(pauses.checkpoints)}"
          + ("  (history off)" if args.no_history else "  (none after the first)" if args.no_checkpoints else ""))
    over = sum(1 for t in totals if t > 1 / 60)
    print(f"  frame total (step + UI): p50 {ms(pct(totals, .5))}  p95 {ms(pct(totals, .95))}  max {ms(max(totals))}"
          f"  ({over} frames past 16.7 ms: {over / len(totals):.1%})")
    behind = getattr(sys.modules[type(app.runner).__module__], "MAX_BUDGET", None)  # absent on old revisions
    grows = f", up to {behind * 1000:.0f} ms while behind" if behind else ""
    print(f"  engine step per frame:   p50 {ms(pct(steps, .5))}  p95 {ms(pct(steps, .95))}  max {ms(max(steps))}"
          f"  (budget {app.runner.budget * 1000:.0f} ms{grows}; runs in a worker thread)")
    print(f"  widget update per frame: p50 {ms(pct(uis, .5))}  p95 {ms(pct(uis, .95))}  max {ms(max(uis))}")
    print(f"  screen update (layout + paint): {summary(paints)}")
    print(f"  UI work per frame (widget update + the paints since the previous frame): "
          f"p50 {ms(pct(frame_ui, .5))}  p95 {ms(pct(frame_ui, .95))}  max {ms(max(frame_ui))}")
    acted = [a for _, a, _ in latencies] or [float("nan")]
    shown = [b for _, _, b in latencies] or [float("nan")]
    print(f"  key press latency ({len(latencies)} presses), until the screen shows the answer: p50 {ms(pct(shown, .5))}  "
          f"p95 {ms(pct(shown, .95))}  max {ms(max(shown))}")
    print(f"    until the app had acted (the view or cursor changed, as the polling saw it): p50 {ms(pct(acted, .5))}  "
          f"p95 {ms(pct(acted, .95))}  max {ms(max(acted))}")
    by_key: dict[str, list[float]] = {}
    for key, _acted, lat in latencies:
        by_key.setdefault(key, []).append(lat)
    print("    shown, by key (median/max): " + ", ".join(f"{key} {statistics.median(v) * 1000:.0f}/{max(v) * 1000:.0f} ms" for key, v in by_key.items()))
    if slowest:
        print("    slowest shown (key at wall s / simulated s): " + ", ".join(
            f"{key} {lat * 1000:.0f} ms at {wall:.1f} s / {simulated} s" for lat, key, wall, simulated in sorted(slowest)[-5:]))
    for what, seconds in one_off:
        print(f"  one-off: {what}: {seconds * 1000:.0f} ms")
    with open("/proc/self/statm") as f:
        rss = int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    import resource

    held = sim.history.memory() if sim.history is not None else None
    print(f"  memory: RSS at the end {rss:.0f} MiB, peak {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB"
          + (f"; time travel holds {held.checkpoints} checkpoints, {held.checkpoint_bytes / 2**20:.0f} MiB" if held else ""))
    print(f"  state at the end: {len(sim.store.pods)} pods, "
          f"{sum(1 for p in sim.store.pods.values() if not p.node_name)} pending, events total {sim.store.recorder.total}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--deployments", type=int, default=50)
    parser.add_argument("--replicas", type=int, default=3000)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--speed", type=int, default=1000)
    parser.add_argument("--power-off", choices=("node", "zone"), default="zone")
    parser.add_argument("--key-interval", type=float, default=0.25,
                        help="wall seconds between the scripted key presses (0: none, a user watching the Nodes view)")
    parser.add_argument("--view", default="nodes", help="the view shown at the start (the one watched with --key-interval 0)")
    parser.add_argument("--profile", default=None, help="write a cProfile of the UI thread to this file")
    parser.add_argument("--no-history", action="store_true", help="run without time travel's recording")
    parser.add_argument("--no-checkpoints", action="store_true",
                        help="record time travel's operations and figures but take no checkpoint after the first")
    parser.add_argument("--open-in-app", action="store_true",
                        help="let the app build and open the cluster, as `playground FILE` does (time travel's "
                             "first checkpoint then comes before the open), instead of placing it headless first")
    parser.add_argument("--src", default=None, help="run another checkout of the code (path)")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
