"""The opening bar: while the engine thread places the pods created at t=0, the app shows the
scheduler's progress (the figures headless `sim` prints on stderr) and hides the bar once the step
is done. The engine is held at a known point by a gate in the progress callback (a fake slow build),
so the test asserts the bar's states, never wall time."""

from __future__ import annotations

import asyncio
import gc
import threading

from textual.widgets import Label, ProgressBar

from playground.engine.objects import Pod

from tui_helpers import HERE, SIZE, make_app

OPENING = HERE / "scenarios" / "opening.toml"


def gated_app(threshold: int = 100):
    """The opening scenario (1,200 pods at t=0), its bar's threshold lowered, and the engine made to
    wait in the progress callback after 1,000 placements until the test releases it."""
    app = make_app(OPENING)
    app.opening.min_pods = threshold
    reached, release = threading.Event(), threading.Event()
    report = app.sim.scheduler.progress

    def gated(done: int, total: int) -> None:
        report(done, total)
        if done == 1000:
            reached.set()
            release.wait(30)

    app.sim.scheduler.progress = gated
    return app, reached, release


async def wait_for(event: threading.Event) -> None:
    while not event.is_set():
        await asyncio.sleep(0.01)


def bar_state(app) -> tuple[bool, str, float | None, float]:
    bar = app.opening.query_one(ProgressBar)
    label = app.opening.query_one(Label)
    return app.opening.display, str(label.content), bar.total, bar.progress


async def test_the_bar_shows_placement_while_it_runs_and_hides_after():
    app, reached, release = gated_app()
    async with app.run_test(size=SIZE) as pilot:
        assert app.opening.display is False
        step = asyncio.ensure_future(app.advance(1))  # the first tick: creates and places 1,200 pods
        await wait_for(reached)
        assert app.runner.busy
        app.refresh_progress()
        await pilot.pause()
        assert bar_state(app) == (True, "Placing the pods created at t=0: 1,000 of 1,200", 1200, 1000)
        release.set()
        await step
        await pilot.pause()
        assert app.opening.display is False
        assert sum(1 for pod in app.sim.store.pods.values() if pod.node_name) == 1200
        assert app.view_count("pods") == 1200
        app.action_view("pods")
        assert app.views["pods"].table.total_count == 1200


async def test_below_the_threshold_no_bar():
    app, reached, release = gated_app(threshold=5000)
    app.runner.clock = lambda: 100.0  # the runner's wall clock stands still: the step is not long
    async with app.run_test(size=SIZE) as pilot:
        step = asyncio.ensure_future(app.advance(1))
        await wait_for(reached)
        app.refresh_progress()
        await pilot.pause()
        assert app.opening.placing is None
        assert app.opening.display is False
        release.set()
        await step


async def test_a_long_first_step_without_figures_shows_an_indeterminate_bar():
    app, reached, release = gated_app(threshold=5000)
    now = [100.0]
    app.runner.clock = lambda: now[0]  # the runner's wall clock, moved by hand
    async with app.run_test(size=SIZE) as pilot:
        step = asyncio.ensure_future(app.advance(1))
        await wait_for(reached)
        now[0] += 2.0  # the step of instant 0 has run two seconds
        app.refresh_progress()
        await pilot.pause()
        shown, label, total, _ = bar_state(app)
        assert (shown, label, total) == (True, "Opening the scenario: creating its pods…", None)
        release.set()
        await step
        await pilot.pause()
        assert app.opening.display is False


async def test_the_count_grows_without_laying_the_screen_out_again():
    """The label is as wide as its widest count for this total: while the count grows, only the bar
    and the label are painted again; the screen is laid out when the text's width class changes."""
    app = make_app(OPENING)
    async with app.run_test(size=SIZE) as pilot:
        await app.timecontrol.opened()
        label = app.opening.query_one(Label)
        layouts = []
        original = app.screen._refresh_layout

        def counted(*args, **kwargs):
            layouts.append(1)
            return original(*args, **kwargs)
        app.screen._refresh_layout = counted
        app.opening.show((0, None))
        await pilot.pause()
        creating = len(layouts)
        app.opening.show((5, 150_000))
        await pilot.pause()
        width = label.size.width
        started = len(layouts)
        for done in (50, 5_000, 75_000, 149_999, 150_000):
            app.opening.show((done, 150_000))
            await pilot.pause()
            assert label.size.width == width == len("Placing the pods created at t=0: 150,000 of 150,000")
            assert str(label.content).endswith(f"{done:,} of 150,000")
        assert len(layouts) == started  # the count grew five times: no layout
        assert creating >= 1 and started > creating  # shown, then another text: laid out


def test_opening_bar_snapshot(snap_compare):
    app = make_app(OPENING)

    async def before(pilot):
        await app.timecontrol.opened()  # the bar over the opened cluster, whichever comes first
        app.opening.show((450, 1200))
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=before)


async def test_a_paused_start_shows_the_opened_cluster_at_0s():
    """A scenario opens in its steady state: started paused, the app shows T+0s with every pod of
    instant 0 placed (the state going back to 0 s gives), not the cluster before its first step."""
    app = make_app(OPENING)
    async with app.run_test(size=SIZE) as pilot:
        await app.timecontrol.opened()
        await pilot.pause()
        assert app.sim.clock.now == 0 and app.sim.opened
        assert sum(1 for pod in app.sim.store.pods.values() if pod.node_name) == 1200
        assert app.view_count("pods") == 1200
        assert "T+0s" in str(app.header.render())
        await app.advance(1)
        assert app.sim.clock.now == 1000
        app.timecontrol.seek(0)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.sim.clock.now == 0 and app.view_count("pods") == 1200


async def test_the_app_opens_the_cluster_frozen_out_of_the_collectors_sight():
    """The open freezes what instant 0 makes before any collection walks it (Simulation.open_now with
    `freeze`), and after filling the tables the app collects and freezes only what is new
    (freeze_heap without release): no collection ever walks an opened pod."""
    thresholds = gc.get_threshold()
    app = make_app(OPENING)
    walked_pods: list[bool] = []

    def on_gc(phase: str, info: dict) -> None:
        pods = app.sim.store.pods
        if phase == "start" and pods:
            walked = (o for g in range(info["generation"] + 1) for o in gc.get_objects(g))
            walked_pods.append(any(isinstance(o, Pod) and pods.get(o.key) is o for o in walked))

    gc.callbacks.append(on_gc)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await app.timecontrol.opened()
            await pilot.pause()
            gc.collect()
            assert app.sim.opened and len(app.sim.store.pods) == 1200
            assert walked_pods and not any(walked_pods)
    finally:
        gc.callbacks.remove(on_gc)
        gc.unfreeze()
        gc.set_threshold(*thresholds)
