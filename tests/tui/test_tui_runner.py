"""The runner: speed to ticks, the frame budget, the carried backlog, pause and single steps."""

from __future__ import annotations

from playground.engine import Simulation
from playground.engine.store import ChangeSet
from playground.scenario import load_scenario
from playground.tui.runner import COSTLY, MAX_SHARED, SPEEDS, EngineRunner, TickForecast, merge_changes, shared

from tui_helpers import SMALL


class FakeClock:
    """Wall time that moves only when told, and a bit on every reading (so a budget can run out)."""

    def __init__(self, per_read: float = 0.0) -> None:
        self.now = 100.0
        self.per_read = per_read

    def __call__(self) -> float:
        self.now += self.per_read
        return self.now


def runner(**kwargs) -> tuple[EngineRunner, FakeClock]:
    clock = FakeClock(kwargs.pop("per_read", 0.0))
    sim = Simulation(load_scenario(SMALL), event_limit=500)
    # The engine thread's CPU time moves with the wall time, less the cost of reading the clock.
    return EngineRunner(sim, threaded=False, clock=clock, cpu_clock=lambda: clock.now, **kwargs), clock


async def test_paused_runs_nothing_and_steps_run_one_tick_each():
    r, clock = runner(paused=True)
    clock.now += 5
    result = await r.frame()
    assert result.ticks == 0 and r.sim.clock.now == 0
    r.request_steps(3)
    result = await r.frame()
    assert result.ticks == 3 and r.sim.clock.now == 3 * r.sim.tick


async def test_speed_sets_ticks_per_wall_second():
    r, clock = runner(paused=False, speed=10)
    await r.frame()  # the first frame only starts the wall clock
    clock.now += 0.5
    result = await r.frame()
    assert result.ticks == 5  # ×10 with 1 s ticks: 10 ticks per wall second
    clock.now += 0.25
    result = await r.frame()
    assert result.ticks == 2 and abs(r.owed - 0.5) < 1e-9  # the half tick is carried


async def test_budget_bounds_a_frame_and_the_rest_is_carried():
    # Every clock reading costs 1 ms: with a 5 ms budget a frame runs only a few ticks.
    r, clock = runner(paused=False, speed=1000, budget=0.005, per_read=0.001)
    await r.frame()
    start = r._last_wall
    clock.now += 0.1  # 100 ticks owed at ×1000
    result = await r.frame()
    assert 1 <= result.ticks < 10
    assert r.owed > 80
    total = result.ticks
    for _ in range(5):
        total += (await r.frame()).ticks
    # Nothing is lost: what ran plus what is carried is what the wall time asked for.
    assert abs(total + r.owed - (r._last_wall - start) * 1000) < 1e-6
    assert r.sim.clock.now == total * r.sim.tick


async def test_backlog_is_bounded_when_the_speed_cannot_be_reached():
    r, clock = runner(paused=False, speed=1000, budget=0.001, per_read=0.001)
    await r.frame()
    clock.now += 30  # a long stall: 30,000 ticks would be owed
    await r.frame()
    assert r.owed <= 1000 * 0.5


def test_speeds_go_up_and_down_within_the_list():
    r, _ = runner(paused=True)
    assert r.speed == 1
    assert r.slower() == 1
    seen = [r.faster() for _ in range(len(SPEEDS) + 2)]
    assert seen[-1] == 1000 and seen[0] == 2
    assert r.slower() == 500


async def test_operation_changes_reach_the_next_frame():
    from playground.engine import Operation

    r, _ = runner(paused=True)
    r.apply(Operation("cordon", node="a-1"))
    result = await r.frame()
    assert "a-1" in result.changes.nodes


def test_merge_changes_unions_every_field():
    a = ChangeSet(nodes={"a"}, events=2)
    b = ChangeSet(nodes={"b"}, pods={"ns/p"}, zones=True, events=3)
    merged = merge_changes(a, b)
    assert merged.nodes == {"a", "b"} and merged.pods == {"ns/p"} and merged.zones and merged.events == 5


async def test_threaded_frames_give_the_same_simulation():
    """Stepping in the worker thread changes nothing but where the work runs."""
    threaded = EngineRunner(Simulation(load_scenario(SMALL), event_limit=500), paused=True, threaded=True)
    inline = EngineRunner(Simulation(load_scenario(SMALL), event_limit=500), paused=True, threaded=False)
    for r in (threaded, inline):
        await r.run_ticks(30)
    threaded.close()
    events = lambda r: [(e.time, e.reason, e.object, e.message) for e in r.sim.store.recorder.events]  # noqa: E731
    assert threaded.sim.clock.now == inline.sim.clock.now == 30_000
    assert events(threaded) == events(inline)


async def test_an_interrupt_ends_the_frame_after_its_tick_and_the_rest_stays_owed():
    r, clock = runner(paused=False, speed=100)  # the clock does not move while ticking: no budget cut
    await r.frame()
    clock.now += 0.4  # 40 ticks owed (1 s ticks at ×100)
    step = r.sim.step
    calls = []

    def step_and_press_a_key():
        calls.append(1)
        if len(calls) == 3:
            r.interrupt()  # what the app does when a key arrives while the engine runs
        return step()

    r.sim.step = step_and_press_a_key
    result = await r.frame()
    assert result.ticks == 3 and r.sim.clock.now == 3 * r.sim.tick
    assert abs(r.owed - 37) < 1e-9
    result = await r.frame()  # the next frame is not interrupted: it runs what is owed
    assert result.ticks == 37


async def test_an_interrupt_while_idle_changes_nothing():
    r, clock = runner(paused=False, speed=100)
    await r.frame()
    r.interrupt()
    clock.now += 0.25
    result = await r.frame()
    assert result.ticks == 25


async def test_a_frame_behind_the_speed_gives_the_engine_its_share_of_the_wall_time():
    from playground.tui.runner import ENGINE_SHARE, MAX_BUDGET

    r, clock = runner(paused=False, speed=1000, budget=0.005, per_read=0.001)
    await r.frame()
    assert r.frame_budget() == 0.005  # keeping up (nothing owed yet): the plain budget
    clock.now += 0.1
    result = await r.frame()
    assert result.ticks < 100 and r.owed > 0  # ended on its budget: behind
    clock.now += 0.001  # the UI had about 1 ms (updating, repainting) before the next frame
    gap = clock.now + clock.per_read - r._step_end  # the budget's own clock reading costs 1 ms
    assert 0.002 < gap < 0.0035 and abs(r.frame_budget() - gap * ENGINE_SHARE / (1 - ENGINE_SHARE)) < 1e-9
    assert 0.005 < r.frame_budget() < MAX_BUDGET  # the UI's 1 ms buys the engine more than its plain budget
    clock.now += 1.0  # a long pause of the UI: the budget stays bounded
    assert r.frame_budget() == MAX_BUDGET
    r.interrupt()  # not busy: a no-op
    result = await r.frame()
    assert result.ticks > 0
    r.set_speed(r.speed)  # a speed change starts over from the plain budget
    assert r.frame_budget() == 0.005


async def test_a_frame_cut_by_a_key_leaves_the_next_frame_the_plain_budget():
    r, clock = runner(paused=False, speed=1000, budget=0.005, per_read=0.001)
    await r.frame()
    clock.now += 0.1
    r._behind, r._step_end = True, clock.now  # as after a frame that ended on its budget
    original = r._run_ticks

    def interrupted(sim, count, budget):
        r._interrupted.set()  # a key arrived during the first tick
        return original(sim, count, budget)

    r._run_ticks = interrupted
    result = await r.frame()
    assert result.ticks == 1
    assert r.frame_budget() == 0.005


class EveryTenth(TickForecast):
    """The ticks of a zone outage, in small: every tenth tick begins with a costly timer (the node
    lifecycle controller's taint pass), the others with nothing due."""

    __slots__ = ()

    @staticmethod
    def kind(clock, tick: int) -> str | None:
        return "taint_pass" if (clock.now + tick) // tick % 10 == 0 else None


def ticks_of_every_tenth(r: EngineRunner, clock: FakeClock, cheap_ms: float, costly_ms: float) -> None:
    """Each tick of the runner's simulation takes `cheap_ms` of wall time, every tenth `costly_ms`,
    and the runner forecasts by the kinds of EveryTenth."""
    step = r.sim.step
    sim_clock, tick = r.sim.clock, r.sim.tick

    def timed_step():
        clock.now += (costly_ms if EveryTenth.kind(sim_clock, tick) else cheap_ms) / 1000
        return step()

    r.sim.step = timed_step
    r.forecast = EveryTenth()


def test_the_forecast_is_what_ticks_of_the_same_kind_cost_lately():
    forecast = TickForecast()
    assert forecast.expect("nodelifecycle.taint_pass") == 0.0  # nothing known: the tick runs
    forecast.learn("nodelifecycle.taint_pass", 0.004)
    forecast.learn(None, 0.000002)
    assert forecast.expect("nodelifecycle.taint_pass") == 0.004
    forecast.learn("nodelifecycle.taint_pass", 0.002)  # half the last, half what was known
    assert abs(forecast.expect("nodelifecycle.taint_pass") - 0.003) < 1e-12
    assert forecast.expect(None) == 0.000002


def test_a_tick_is_known_by_the_first_timer_due_in_it():
    """The kind is the handler of the heap's first timer if it falls in the tick, read without
    changing the heap (so the run is the same as without the forecast)."""
    sim = Simulation(load_scenario(SMALL), event_limit=500)
    sim.run_until(1)
    clock = sim.clock
    due = clock.next_due()
    heap = list(clock._heap)
    kind = TickForecast.kind(clock, due - clock.now)
    assert kind == clock._heap[0][3] and kind in clock._handlers
    assert TickForecast.kind(clock, due - clock.now - 1) is None  # a tick that ends before it: nothing due
    assert clock._heap == heap


async def test_a_tick_is_judged_by_its_own_work_not_by_the_wall_time_it_waited():
    """The forecast learns the engine thread's CPU time: a paint of the UI holding the interpreter's
    lock during a tick lengthens that tick's wall time (and spends the frame's budget), not what
    ticks of its kind are expected to cost."""
    wall, cpu = FakeClock(), [0.0]
    r = EngineRunner(Simulation(load_scenario(SMALL), event_limit=500), threaded=False, clock=wall,
                     cpu_clock=lambda: cpu[0], paused=False, speed=1000, budget=0.008)
    await r.frame()
    step = r.sim.step

    def waiting_for_the_ui():
        wall.now += 0.006
        cpu[0] += 0.0005
        return step()

    r.sim.step = waiting_for_the_ui
    wall.now += 0.1
    result = await r.frame()
    assert result.ticks == 2 and abs(result.seconds - 0.012) < 1e-9  # the budget is wall time
    assert r.forecast.costs and all(abs(c - 0.0005) < 1e-12 for c in r.forecast.costs.values())


def every_tenth_frame(stretch: float, costly_cpu: float, cheap_cpu: float = 0.0002) -> list[int]:
    """The ticks of three frames (10 ms budget, 40 ticks asked) whose ticks each cost `cheap_cpu` of
    CPU time, every tenth `costly_cpu`, and take `stretch` times as long in wall time (a paint of
    the UI sharing the interpreter); the forecast knows both kinds already."""
    wall, cpu = FakeClock(), [0.0]
    r = EngineRunner(Simulation(load_scenario(SMALL), event_limit=500), threaded=False, clock=wall,
                     cpu_clock=lambda: cpu[0], paused=False, speed=1000, budget=0.010)
    step = r.sim.step
    sim_clock, tick = r.sim.clock, r.sim.tick

    def shared_step():
        spent = costly_cpu if EveryTenth.kind(sim_clock, tick) else cheap_cpu
        cpu[0] += spent
        wall.now += spent * stretch
        return step()

    r.sim.step = shared_step
    r.forecast = EveryTenth()
    r.forecast.learn("taint_pass", costly_cpu)
    r.forecast.learn(None, cheap_cpu)
    return [r._run_ticks(r.sim, 40, 0.010).ticks for _ in range(3)]


def test_a_frame_shared_with_the_uis_paints_ends_before_a_costly_tick_sooner():
    """While the UI paints, a tick takes longer in wall time than its CPU time (the engine thread
    shares the interpreter): judged by the frame so far, the next tick's forecast grows by that
    share (at most MAX_SHARED times), so that the frame ends before a tick it would now run past its
    budget; unshared, the same frame runs it."""
    # A tenth tick of 2 ms (under a quarter of the budget). Unshared: 9 ticks of 0.2 ms, the tenth
    # expected to end at 3.8 ms: it runs, and more after it. Shared three times: 5.4 ms in, the
    # tenth expected to take 6 ms: the frame ends before it, and the next frame begins with it.
    assert every_tenth_frame(1.0, 0.002)[0] > 10
    assert every_tenth_frame(3.0, 0.002)[:2] == [9, 7]  # (6 ms, then cheap ones of 0.6 ms to the budget)
    assert every_tenth_frame(1.5, 0.002)[0] > 10  # 2.7 + 3 ms: it fits
    assert shared(0.006, 0.002) == 3.0 and shared(0.030, 0.001) == MAX_SHARED and shared(0.001, 0.0) == 1.0


def test_a_costly_tick_begins_a_frame_of_its_own():
    """A tick expected to cost a quarter of the budget or more (COSTLY: a taint pass with its
    evictions) is not run after cheaper ones in a frame: the frame ends before it even where it
    would fit, and the next frame begins with it and fills the rest with cheap ticks. Its cost
    varies the most (a taint pass without evictions costs a thirtieth of one with them), so running
    it after cheap ones was how frames ended far past their budget. Costly ticks one after another
    still share a frame, as the budget allows."""
    assert every_tenth_frame(1.0, 0.003) == [9, 10, 10]  # 3 ms >= 2.5 ms: 1.8 ms in, it waits
    assert every_tenth_frame(1.0, 0.0024)[0] > 10  # 2.4 ms: under the quarter, run where it falls
    assert every_tenth_frame(1.0, 0.003, cheap_cpu=0.003) == [3, 3, 3]  # all costly: 9 ms a frame
    assert COSTLY == 0.25


async def test_a_frame_ends_before_a_tick_that_would_cross_its_budget():
    """A frame's ticks end before one that, costing what the ticks of its kind cost lately, would
    end past the budget; the next frame starts with it. The tick just run is no guide: in an
    outage three ticks in four run nothing, and the costly ones come with the same timers. At least
    one tick runs, however long."""
    for watching in (False, True):
        r, clock = runner(paused=False, speed=1000, budget=0.008)
        r.watching = watching
        await r.frame()
        ticks_of_every_tenth(r, clock, 0.5, 5.0)
        clock.now += 0.1  # 100 ticks owed
        result = await r.frame()  # ticks 1-9 at 0.5 ms, tick 10 at 5 ms (not known yet: it runs)
        assert result.ticks == 10 and abs(result.seconds - 0.0095) < 1e-9 and r.sim.clock.now == 10_000
        result = await r.frame()  # 11-19 (4.5 ms), then 20 would end at 9.5 ms: it waits
        assert result.ticks == 9 and abs(result.seconds - 0.0045) < 1e-9
        result = await r.frame()  # 20 first (5 ms), then five cheap ones: 26 would reach the budget
        assert result.ticks == 6 and abs(result.seconds - 0.0075) < 1e-9 and r.sim.clock.now == 25_000

    r, clock = runner(paused=False, speed=1000, budget=0.008)
    await r.frame()
    ticks_of_every_tenth(r, clock, 20.0, 20.0)  # one tick longer than the budget still runs
    clock.now += 0.1
    result = await r.frame()
    assert result.ticks == 1 and abs(result.seconds - 0.020) < 1e-9
    result = await r.frame()
    assert result.ticks == 1


async def test_a_watched_frame_behind_the_speed_may_take_up_to_its_own_bound():
    from playground.tui.runner import MAX_BUDGET, MAX_WATCHING_BUDGET

    r, clock = runner(paused=False, speed=1000, budget=0.005, per_read=0.001)
    await r.frame()
    clock.now += 0.1
    await r.frame()
    assert r.behind
    clock.now += 1.0  # a long pause of the UI: the budget reaches its bound
    assert r.frame_budget() == MAX_BUDGET
    r.watching = True
    assert r.frame_budget() == MAX_WATCHING_BUDGET > MAX_BUDGET


async def test_the_runner_is_told_whether_the_user_watches():
    """Frames 60 a second and the runner's `watching` go together: the clock running and no key
    for INPUT_QUIET; at the keys or paused, 30 a second and not watching."""
    from tui_helpers import make_app

    app = make_app(auto_frames=True)
    async with app.run_test(size=(120, 40)) as pilot:
        app._pick_frame_rate()
        assert not app.runner.watching and not app._fast_frames  # paused
        app.runner.set_paused(False)
        app._input_at = -1e9  # no key for a long time
        app._pick_frame_rate()
        assert app.runner.watching and app._fast_frames
        await pilot.press("down")
        app._pick_frame_rate()
        assert not app.runner.watching and not app._fast_frames


async def running_at_1000(app) -> tuple[EngineRunner, FakeClock]:
    """The app's runner on a fake wall clock, running at x1000 with a 5 ms budget, its first frame
    run (it starts the wall clock: nothing owed yet)."""
    r = app.runner
    clock = FakeClock(per_read=0.001)
    r.clock = clock
    r.budget = 0.005
    r.set_speed(1000)
    r.set_paused(False)
    await r.frame()
    return r, clock


async def test_frames_follow_one_another_while_the_engine_is_behind():
    """The frame timer's callback runs the next frame at once while the last one ended on its budget
    (the timer's next tick would leave the engine idle), until the engine keeps up, is paused or a
    key cuts a frame short."""
    from tui_helpers import make_app

    app = make_app(threaded=False)
    async with app.run_test():
        r, clock = await running_at_1000(app)
        frame = r.frame
        seen: list[bool] = []

        async def counted():
            result = await frame()
            if len(seen) == 2:
                r.set_paused(True)  # the user pauses in the third frame: no frame after it
            seen.append(r.behind)
            return result

        r.frame = counted
        clock.now += 0.1  # 100 ticks owed, 5 of them fit a frame
        await app._timer_frame()
        assert seen == [True, True, False]
        assert app.sim.clock.now > 0

        seen.clear()
        r.set_paused(False)
        r.set_speed(1)  # keeping up: one frame a tick of the timer
        await app._timer_frame()
        await app._timer_frame()
        assert seen == [False, False]


async def test_a_frame_cut_short_by_a_key_resumes_after_one_repaint(monkeypatch):
    """A key ends the running frame after its tick (the key's action and repaint go first); the
    frames resume one repaint later (KEY_REPAINT), not at the timer's next tick."""
    import asyncio
    from types import SimpleNamespace

    from tui_helpers import make_app

    from playground.tui import app as app_module

    app = make_app(threaded=False)
    async with app.run_test():
        r, clock = await running_at_1000(app)
        run_ticks, frame = r._run_ticks, r.frame
        seen: list[tuple[bool, bool]] = []
        sleeps: list[float] = []

        def key_during_the_first_tick(sim, count, budget):
            if not seen:
                r.interrupt()
            return run_ticks(sim, count, budget)

        async def counted():
            result = await frame()
            if len(seen) == 1:
                r.set_paused(True)
            seen.append((r.cut_short, r.behind))
            return result

        async def sleep(seconds):
            sleeps.append(seconds)
            await asyncio.sleep(0)

        r._run_ticks, r.frame = key_during_the_first_tick, counted
        monkeypatch.setattr(app_module, "asyncio", SimpleNamespace(sleep=sleep))
        clock.now += 0.1
        await app._timer_frame()
        assert seen == [(True, False), (False, False)]
        assert sleeps == [app_module.KEY_REPAINT]


def test_a_frame_ends_before_a_checkpoint_that_would_take_it_past_its_budget(monkeypatch):
    """Time travel's checkpoint (a fork, or pickling in the engine thread) costs time of its own: a
    frame that it would take past its budget (judged by what the last one cost) ends before the
    tick that takes it, and the next frame's first tick takes it, so that a frame is its budget or
    a checkpoint, not both. A checkpoint that fits is taken where it falls (a small cluster's,
    every ten ticks, would otherwise cut every frame short)."""
    from playground.engine.history import History

    r, clock = runner(paused=False, per_read=0.001)  # 1 ms a clock reading: one a tick
    sim = r.sim
    history = sim.enable_history()
    history.fork_from = None  # pickled in this thread: taken when due, not when a child is done
    assert [cp.time for cp in history.checkpoints] == [0] and history.interval == 10 * sim.tick
    cost = {"seconds": 0.010}  # what the last checkpoint cost: about a fork's at 1,000 nodes
    # (what the runner reads; the checkpoints' own measures are left aside)
    monkeypatch.setattr(History, "checkpoint_seconds", property(lambda self: cost["seconds"], lambda self, _: None))
    frames = []
    for count in (40, 40, 5):
        result = r._run_ticks(sim, count, 0.016)
        frames.append((result.ticks, sim.clock.now // 1000, [cp.time // 1000 for cp in history.checkpoints]))
    assert frames == [
        (9, 9, [0]),  # 9 ms in, a 10 ms checkpoint would end past 16 ms: the frame ends before it
        (10, 19, [0, 10]),  # starts with it; ends before the next one
        (5, 24, [0, 10, 20]),  # five ticks asked for, the first with the checkpoint
    ]
    result = r._run_ticks(sim, 40, 0.016)  # 5 ms in at 30 s: 5 + 10 < 16, taken where it falls
    assert [cp.time // 1000 for cp in history.checkpoints] == [0, 10, 20, 30] and result.ticks > 6
    cost["seconds"] = 0.001  # a small cluster's pickling: taken where it falls, the frame ends on its budget
    result = r._run_ticks(sim, 40, 0.016)
    assert result.ticks == 16 and [cp.time // 1000 for cp in history.checkpoints][-1] > 30
    plain, _ = runner(paused=True)
    for _ in range(sim.clock.now // sim.tick):
        plain.sim.step()
    events = lambda sim: [(e.time, e.reason, e.object, e.message) for e in sim.store.recorder.events]  # noqa: E731
    assert events(sim) == events(plain.sim)
