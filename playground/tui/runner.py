"""Drives the engine from the UI: speed, pause, single steps, and a frame budget.

The UI never blocks on the engine (design rule 5):

* Each frame (`refresh_hz` times a wall second; while the engine falls behind, one after another,
  keys and paints in between) the runner works out how many ticks the speed asks for since the last
  frame, and runs as many as fit in `budget` seconds; the rest are carried to the next frame (a
  backlog bounded to half a second of simulated time at the current speed, so a speed the machine
  cannot reach shows up as a lower actual speed instead of an ever-growing debt).
* The ticks run in a worker thread while the event loop keeps handling keys. While the engine is busy
  the UI does not read it: tables show their last rendered lines, and operations chosen meanwhile are
  queued and applied before the next tick. One tick that takes long (placing 150,000 pods at time 0)
  therefore freezes the picture, not the keyboard.
* While the engine falls behind the speed (a frame ended on its budget), the frames follow one
  another and the next frame's budget is 7/3 of the wall time the UI had since the last step,
  between `budget` (8 ms) and `MAX_BUDGET` (10 ms): the engine gets up to about 70 % of the wall
  time (×1000 in a zone outage at 150,000 pods needs about 30 % of it for the engine's CPU; the
  rest absorbs the ticks that cost more) in short steps, so the picture moves 30 to 40 times a
  second. A frame cut short by a key goes back to `budget`.
* A frame's ticks end before a tick that would likely end past the budget (`TickForecast`: what the
  ticks that began with the same timer cost lately, in CPU time, stretched by how much longer in
  wall time the frame took so far while the UI's paints shared the interpreter: `shared`), so that
  a frame is about its budget instead of its budget plus most of a tick, and before a tick expected
  to cost a quarter of the budget or more (COSTLY) after cheaper ones: it begins the next frame.
  While the user watches (no key lately: frames 60 a second), a frame behind the speed may take up
  to MAX_WATCHING_BUDGET.
* A frame ends before a tick that would take time travel's checkpoint (a fork, or pickling in the
  engine thread: `History.checkpoint_due_by`) when the checkpoint would take it past its budget
  (judged by what the last one cost), and the next frame starts with it, so that a frame is its
  budget or a checkpoint, not both.
* The ChangeSets of the ticks of one frame are merged, so the tables update once per frame, only for
  the rows that changed.
* The engine thread and the UI share the GIL. A key press ends the running frame's ticks after the
  current tick (`interrupt`), so the key's action and the repaint that follows run without the
  engine competing for the interpreter, and read the engine's state instead of placeholders (the
  frames resume one repaint later, app.KEY_REPAINT); and
  while the engine thread runs, the interpreter's switch interval is short (`SWITCH_INTERVAL`), so
  the event loop gets the GIL within a millisecond when input arrives instead of five.

The engine's tick counter is the only clock of the simulation; the wall clock only paces it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import queue
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable

from ..engine import Operation, OperationResult, Simulation
from ..engine.store import ChangeSet

SPEEDS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)
BACKLOG_SECONDS = 0.5
# While the engine cannot keep up with the speed, a frame's budget grows so that the engine gets
# this share of the wall time (the UI keeps the rest: updates, repaints, keys), up to MAX_BUDGET.
# Measured with benchmarks/tui_frames.py (5,000 nodes, 150,000 pods, ×1000, a zone powered off):
# 12 frames a second with up to 250 ms of ticks in one (a share of 0.9, when ×1000 needed 87 % of
# the wall time) put the frame's p95 at 95-130 ms; 30 a second with a 15 ms budget and up to 50 ms
# kept ×992-998 with a key every 0.25 s and a p95 of 42-54 ms (28 ms watching). An 8 ms budget and
# up to 10 ms: ×982-990 and 23-25 ms (18-19 ms watching). The frames follow one another while the
# engine is behind, so it still gets most of the wall time; a frame is its budget plus the tick that
# crosses it plus the UI's work.
ENGINE_SHARE = 0.7
MAX_BUDGET = 0.010
# While the user watches (`watching`: frames 60 a second), a frame behind the speed may take up to
# MAX_WATCHING_BUDGET. Every frame's ticks end before one that would likely end past the budget
# (TickForecast). Ending on the budget instead, a frame was its budget plus most of the tick that
# crossed it: watching the Nodes view of the outage above, the engine step's p95 was 14-15 ms for an
# 8-10 ms budget and the frame's 17-18 ms; ending before it (judged then by the tick just run),
# 10.4-11.5 ms and 12.7-14.7 ms, at the same speed (four runs each). At the keys, judged by the
# tick just run, shorter steps meant more frames and slower keys (key p95 61-74 ms against 48-52),
# as that guess was often wrong in both directions; judged by the kind of the tick (session 47),
# frame p95 at the keys 15.9-16.3 ms against 21.7-23.7 ms ending on the budget (four pairs), keys
# and speed the same (benchmarks/HISTORY.md).
MAX_WATCHING_BUDGET = 0.012
SWITCH_INTERVAL = 0.001  # seconds; CPython's default is 0.005
# A tick's forecast is its CPU time (TickForecast) times how much longer in wall time than in CPU
# time the frame took so far (`shared`), at most MAX_SHARED: while the UI paints, the engine thread
# has the interpreter about half of the time, and a taint pass forecast at 3 ms took 6-14 ms of the
# frame (tui_frames.py at the keys). And a tick expected to cost COSTLY of the budget or more is not
# run after a cheaper one: it begins the next frame, cheap ticks filling the rest (costly ticks
# one after another still share a frame): its cost varies the most (a taint pass with 30 evictions
# 3-6 ms of CPU, one without 0.1 ms), and a frame that ran it after cheap ones was how frames ended
# far past their budget. Session 51, tui_frames.py with a key every 0.25 s, interleaved pairs: the
# two rules against session 50's main (b9d6dec), frame p95 12.7-16.7 against 16.8-20.0 ms (four
# pairs), the speed x710-991 against x813-993 (more frames a second, 71-76 against about 52, cost
# the UI more CPU); see benchmarks/HISTORY.md, Session 51, for the steps between.
MAX_SHARED = 3.0
COSTLY = 0.25


_CHANGE_FIELDS = [(f.name, f.default_factory is set) for f in dataclasses.fields(ChangeSet)]


def merge_changes(into: ChangeSet, more: ChangeSet) -> ChangeSet:
    """Union of two change sets (whatever fields the engine's ChangeSet has: sets, flags, counts)."""
    for name, is_set in _CHANGE_FIELDS:
        value = getattr(more, name)
        if not value:
            continue
        if is_set:
            getattr(into, name).update(value)
        elif isinstance(value, bool):
            setattr(into, name, True)
        else:
            setattr(into, name, getattr(into, name) + value)
    return into


@dataclass(slots=True)
class FrameResult:
    ticks: int = 0
    seconds: float = 0.0  # wall time spent stepping
    changes: ChangeSet = field(default_factory=ChangeSet)
    error: BaseException | None = None


class EngineThread:
    """One daemon thread that runs engine work handed to it, one job at a time.

    A daemon thread, not the default executor: quitting while a long tick runs must not wait for it.
    """

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._loop, name="playground-engine", daemon=True)
        self._thread.start()
        self._switch_interval = sys.getswitchinterval()
        sys.setswitchinterval(min(self._switch_interval, SWITCH_INTERVAL))

    def _loop(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            loop, future, fn, args = job
            try:
                result = fn(*args)
            except BaseException as exc:  # handed back to the event loop
                self._deliver(loop, future, None, exc)
            else:
                self._deliver(loop, future, result, None)

    @staticmethod
    def _deliver(loop, future, result, exc) -> None:
        def settle() -> None:
            if future.done():
                return
            if exc is not None:
                future.set_exception(exc)
            else:
                future.set_result(result)
        try:
            loop.call_soon_threadsafe(settle)
        except RuntimeError:  # the loop is closed: the app has quit
            pass

    async def run(self, fn: Callable[..., Any], *args: Any) -> Any:
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self._jobs.put((loop, future, fn, args))
        return await future

    def stop(self) -> None:
        self._jobs.put(None)
        sys.setswitchinterval(self._switch_interval)


class TickForecast:
    """What the next tick will likely cost: the engine thread's CPU time that the ticks that began
    with the same timer took lately (half the last one, half what was known before), nothing for a
    kind not seen yet. A tick's cost is its timers': in a zone outage at 150,000 pods three ticks in
    four run none (a microsecond), and the rest cost what their first timer says (the node lifecycle
    controller's taint pass 2.5 ms on average, the kubelets' container starts 0.5 ms, its monitor
    pass 0.1 ms). The tick just run was a poor guess for the next: over 20,000 ticks of that outage
    it fell short by more than a millisecond 1,014 times, the first timer's kind 76 times. CPU time,
    not wall time: a paint of the UI that holds the interpreter's lock meanwhile is no cost of the
    tick's kind (learnt from wall time, the forecasts grew with the Pods view's paints, frames ended
    early and came more often, and the speed fell to x839-947 where it was x926-995)."""

    __slots__ = ("costs",)

    def __init__(self) -> None:
        self.costs: dict[str | None, float] = {}

    @staticmethod
    def kind(clock, tick: int) -> str | None:
        return clock.first_due_by(clock.now + tick)

    def expect(self, kind: str | None) -> float:
        return self.costs.get(kind, 0.0)

    def learn(self, kind: str | None, seconds: float) -> None:
        known = self.costs.get(kind)
        self.costs[kind] = seconds if known is None else (known + seconds) / 2


def shared(wall: float, cpu: float) -> float:
    """How much longer in wall time than in the engine thread's CPU time the frame took so far (1 to
    MAX_SHARED): what the next tick will likely take of the frame for each CPU second it costs, while
    the UI's paints share the interpreter with it."""
    return min(MAX_SHARED, wall / cpu) if cpu > 0 and wall > cpu else 1.0


class EngineRunner:
    def __init__(
        self,
        sim: Simulation,
        *,
        paused: bool = False,
        speed: int = 1,
        budget: float = 0.008,
        threaded: bool = True,
        clock: Callable[[], float] = time.perf_counter,
        cpu_clock: Callable[[], float] = time.thread_time,
    ) -> None:
        self.sim = sim
        self.paused = paused
        self.speed = speed
        self.budget = budget
        self.clock = clock
        self.cpu_clock = cpu_clock  # the engine thread's CPU time: what a tick's own work costs
        self.owed = 0.0  # ticks the speed asks for that have not run yet
        self.requested = 0  # explicit single steps
        self.busy = False
        self.busy_since = 0.0  # wall clock when the running step began
        self._interrupted = threading.Event()  # set by the UI: end this frame's ticks after the current one
        self.queued: list[tuple[Operation, Callable[[OperationResult], None] | None]] = []
        self._last_wall: float | None = None
        self._thread = EngineThread() if threaded else None
        self._lock = asyncio.Lock()
        self._idle_event: asyncio.Event | None = None
        # (wall time, simulated ms) samples for the actual speed shown when we fall behind.
        self._samples: deque[tuple[float, int]] = deque(maxlen=48)
        self.frames = 0
        self.last_frame = FrameResult()
        self._behind = False  # the last frame ended on its budget with ticks still owed
        self._cut = False  # the last frame was cut short by a key with ticks still owed
        self._step_end: float | None = None  # wall clock when the last frame's ticks ended
        self.watching = False  # set by the app: the user watches (no key lately), frames 60 a second
        self.forecast = TickForecast()

    # ---------------------------------------------------------------- controls

    @property
    def behind(self) -> bool:
        """The last frame ended on its budget with ticks still owed (not cut short by a key)."""
        return self._behind and not self.paused

    @property
    def cut_short(self) -> bool:
        """The last frame was cut short by a key with ticks still owed."""
        return self._cut and not self.paused

    def redraw_due(self, drawn_at: float, period: float) -> bool:
        """Draw again something drawn at `drawn_at` (this runner's clock) that changes with simulated
        time alone? At once while paused or stepping; while the clock runs, every `period` wall seconds."""
        return self.paused or bool(self.requested) or self.clock() - drawn_at >= period

    def busy_for(self) -> float:
        """Wall seconds the running step has taken so far (0 when idle)."""
        return self.clock() - self.busy_since if self.busy else 0.0

    @property
    def idle(self) -> bool:
        return not self.busy

    async def wait_idle(self) -> None:
        """Return once no tick runs (at once when idle). Never called from the engine thread."""
        while self.busy:
            if self._idle_event is None:
                self._idle_event = asyncio.Event()
            self._idle_event.clear()
            await self._idle_event.wait()

    def _set_busy(self, busy: bool) -> None:
        if busy and not self.busy:
            self.busy_since = self.clock()
        self.busy = busy
        if not busy and self._idle_event is not None:
            self._idle_event.set()

    def set_paused(self, paused: bool) -> None:
        self.paused = paused
        self._behind = self._cut = False
        self.owed = 0.0
        self._last_wall = None
        self._samples.clear()

    def set_speed(self, speed: int) -> None:
        self.speed = speed
        self._behind = self._cut = False
        self.owed = min(self.owed, 1.0)
        self._samples.clear()

    def faster(self) -> int:
        bigger = [s for s in SPEEDS if s > self.speed]
        self.set_speed(bigger[0] if bigger else self.speed)
        return self.speed

    def slower(self) -> int:
        smaller = [s for s in SPEEDS if s < self.speed]
        self.set_speed(smaller[-1] if smaller else self.speed)
        return self.speed

    def interrupt(self) -> None:
        """The UI has input to answer: the running frame stops after its current tick (what it did
        not run stays owed). A no-op while idle."""
        if self.busy:
            self._interrupted.set()

    def request_steps(self, count: int = 1) -> None:
        self.requested += count

    def replace(self, sim: Simulation) -> None:
        """A new scenario: forget everything owed to the old one."""
        self.sim = sim
        self.forecast = TickForecast()
        self._behind = self._cut = False
        self.owed = 0.0
        self.requested = 0
        self.queued.clear()
        self._last_wall = None
        self._samples.clear()

    def ticks_per_second(self) -> float:
        return self.speed * 1000 / self.sim.tick

    def actual_speed(self) -> float | None:
        """Simulated seconds per wall second over the last samples, or None if not measured."""
        if self.paused or len(self._samples) < 2 or self.ticks_per_second() < 5:
            return None  # at a few ticks per second the clock moves in steps: nothing to measure
        (w0, s0), (w1, s1) = self._samples[0], self._samples[-1]
        if w1 - w0 < 2.0:
            return None
        return (s1 - s0) / 1000 / (w1 - w0)

    # ---------------------------------------------------------------- operations

    def apply(self, op: Operation, done: Callable[[OperationResult], None] | None = None) -> OperationResult | None:
        """Apply now if the engine is idle (returns the result), else queue it for the next frame."""
        if self.busy:
            self.queued.append((op, done))
            return None
        result = self.sim.apply(op)
        if done is not None:
            done(result)
        return result

    def _apply_queued(self) -> None:
        queued, self.queued = self.queued, []
        for op, done in queued:
            result = self.sim.apply(op)
            if done is not None:
                done(result)

    # ---------------------------------------------------------------- frames

    def _owe(self) -> None:
        now = self.clock()
        if self.paused:
            self._last_wall = None
            return
        if self._last_wall is not None:
            elapsed = max(0.0, now - self._last_wall)
            per_second = self.ticks_per_second()
            self.owed = min(self.owed + elapsed * per_second, max(1.0, per_second * BACKLOG_SECONDS))
        self._last_wall = now

    def frame_budget(self) -> float:
        """This frame's budget: `budget` while the engine keeps up; while it falls behind, enough
        for ENGINE_SHARE of the wall time, judged by the time the UI had since the last step."""
        if not self._behind or self._step_end is None:
            return self.budget
        gap = max(0.0, self.clock() - self._step_end)
        most = MAX_WATCHING_BUDGET if self.watching else MAX_BUDGET
        return min(most, max(self.budget, gap * ENGINE_SHARE / (1 - ENGINE_SHARE)))

    def _run_ticks(self, sim: Simulation, count: int, budget: float) -> FrameResult:
        """Run up to `count` ticks, stopping before a tick that would likely end past `budget`
        seconds (`TickForecast`), and once the budget is spent; at least one tick runs."""
        result = FrameResult()
        start = before = self.clock()
        changes = result.changes
        interrupted = self._interrupted
        forecast, cpu_clock = self.forecast, self.cpu_clock
        history = sim.history
        sim_clock = sim.clock  # (self.clock is the wall clock)
        kind = forecast.kind(sim_clock, sim.tick)
        cpu_start = cpu_clock()
        costly = budget * COSTLY
        cheap_ran = False  # a tick that cost less than `costly` ran in this frame
        while result.ticks < count:
            if result.ticks and history is not None and before - start + history.checkpoint_seconds >= budget \
                    and history.checkpoint_due_by(sim_clock.now + sim.tick):
                # Time travel's checkpoint (a fork, or pickling in this thread) that would take the
                # frame past its budget (judged by the last one's cost) starts the next frame instead:
                # a frame is its budget or a checkpoint, not both (at 1,000 nodes and 10,000 pods at
                # x1000, frame p95 25-28 ms with the fork wherever it fell, 19-21 ms so). A small
                # cluster's, about a millisecond every ten ticks, is taken where it falls.
                break
            cpu = cpu_clock()
            merge_changes(changes, sim.step())
            after = cpu_clock()
            forecast.learn(kind, after - cpu)
            cheap_ran = cheap_ran or after - cpu < costly
            result.ticks += 1
            now = self.clock()
            kind = forecast.kind(sim_clock, sim.tick)
            expected = forecast.expect(kind)
            if now - start + expected * shared(now - start, after - cpu_start) >= budget \
                    or (expected >= costly and cheap_ran) or interrupted.is_set():
                break
            before = now
        result.seconds = self.clock() - start
        return result

    async def frame(self) -> FrameResult:
        """Advance the engine as the speed (and any single steps) ask, within the budget."""
        async with self._lock:
            self._apply_queued()
            self._owe()
            count = self.requested + int(self.owed)
            result = FrameResult()
            pending = self.sim.store.take_changes()  # what operations changed since the last frame
            if count > 0:
                sim = self.sim
                budget = self.frame_budget()
                self._interrupted.clear()
                self._set_busy(True)
                try:
                    if self._thread is not None:
                        result = await self._thread.run(self._run_ticks, sim, count, budget)
                    else:
                        result = self._run_ticks(sim, count, budget)
                finally:
                    self._set_busy(False)
                self._step_end = self.clock()
                self._behind = result.ticks < count and not self._interrupted.is_set()
                self._cut = result.ticks < count and self._interrupted.is_set()
                if sim is not self.sim:  # a scenario was loaded meanwhile: drop the old one's work
                    return FrameResult()
                explicit = min(self.requested, result.ticks)
                self.requested -= explicit
                self.owed = max(0.0, self.owed - (result.ticks - explicit))
                self._apply_queued()
                merge_changes(pending, self.sim.store.take_changes())
            result.changes = merge_changes(pending, result.changes)
            self.frames += 1
            if not self.paused:
                self._samples.append((self.clock(), self.sim.clock.now))
            self.last_frame = result
            return result

    async def run_job(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run fn(*args) on the engine as a frame would (under the frame lock, busy meanwhile, in the
        engine thread when threaded): time travel, which can take seconds at 150,000 pods."""
        async with self._lock:
            self._apply_queued()
            self._set_busy(True)
            try:
                if self._thread is not None:
                    return await self._thread.run(fn, *args)
                return fn(*args)
            finally:
                self._set_busy(False)

    async def run_ticks(self, count: int) -> FrameResult:
        """Run exactly `count` ticks (tests, screenshots), however long they take, in one result."""
        total = FrameResult()
        self.request_steps(count)
        while self.requested > 0:
            result = await self.frame()
            total.ticks += result.ticks
            total.seconds += result.seconds
            merge_changes(total.changes, result.changes)
        return total

    def close(self) -> None:
        if self._thread is not None:
            self._thread.stop()
