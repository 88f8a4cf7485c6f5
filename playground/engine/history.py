"""Time travel: step back, rewind, seek, forward along the recorded future, and forks.

Built on determinism (design rules 2 and 6): the same scenario, seed and operations give the same
state. So the history keeps only

- checkpoints: the whole simulation state pickled to bytes (plain data) at some instants, and
- the operation log: every live operation of the current branch with its instant, in order.

Going to an instant t restores the last checkpoint at or before t and replays from there: timers run
as they did, and the logged operations are applied again at their instants, after the controllers of
the instant, exactly as `Simulation.apply` applied them live. Stepping forward after going back
follows the recorded future the same way until a new operation is applied: that operation forks a new
future, and the old one (its operations and how far it reached) is kept as a named branch that can be
switched to or saved (`save_branch`).

Which instant: the state "at t" is the state a user saw at t: every timer due at or before t has run
and every operation applied live at t has been applied.

Checkpoints are taken while the simulation advances, every `interval` of virtual time: ten ticks, or
more for large clusters (a tick more per 2,000 objects) so that pickling stays a small share of the
work; replaying from the last checkpoint is then at most `interval` of simulation. Their memory is
bounded by `budget` bytes: past it, the checkpoint whose neighbours are closest together is dropped
(the first and the newest few are kept), so recent history stays dense and old history thins out; an
instant before every kept checkpoint is reached from the scenario (a fresh build) plus the log.

A checkpoint is restored into the live Simulation object (the TUI and the API keep their reference):
the pickled graph refers to the simulation through `_live_simulation`, so unpickling rebuilds every
component pointing at the live object and then replaces its attributes. Clock handlers and the
operations' dispatch table are wiring, not state: a handler that is a component's method is pickled
as that method of the restored component, the simulation's own lambdas and the operations' dispatch
table are rebuilt.
"""

from __future__ import annotations

import copyreg
import gc
import io
import mmap
import operator
import os
import pickle
import signal
import sys
import tempfile
import time
import types
import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .clock import Clock
from .metrics import ClusterCounts, Series
from .objects import set_attributes
from .operations import Operation, Operations

if TYPE_CHECKING:
    from .simulation import Simulation

DEFAULT_BUDGET = 256 * 2**20  # bytes of checkpoints kept
KEEP_NEWEST = 4  # checkpoints never thinned, so the last minutes stay cheap to step back through
# The size (pods, and nodes counted as NODE_WEIGHT pods each) from which a checkpoint is written by a
# forked child (see _Writer): below it, pickling in-process costs the engine thread less than a fork.
# A node brings its Node, Lease and kubelet: pickling 5,000 nodes without pods (the TUI's first
# checkpoint, before the open) took 0.15-0.2 s, as long as about 15,000 pods. Measured (engine thread
# CPU a checkpoint): 100 nodes and 1,000 pods, 10 ms in-process against 1.7 ms for the fork; 1,000
# nodes and 10,000 pods, 120-240 ms against 4 ms. But in-process checkpoints are spaced by their size
# (IN_PROCESS_PER_TICK) and a child's as soon as the previous child is done: at x1000 in the TUI, 200
# nodes and 1,000 pods cost the engine thread 0.6-0.7 s in 10 s pickled in-process against 1.1-1.2 s
# forked (and the children a core). Pickling in-process also leaves the live components' attributes
# in their __dict__ (see objects.set_attributes), which a child's does not.
FORK_FROM = 3_000
NODE_WEIGHT = 4
# Below FORK_FROM, a tick more between checkpoints per this many of that size: a checkpoint pickled
# in-process costs the engine about 8-14 us per unit, so checkpoints cost it about 0.05 ms a tick
# whatever the size (some 50-70 ms a second at x1000), and going back replays at most size / 5 ticks.
# The smallest clusters keep a checkpoint every ten ticks. Without a fork (not Linux, or after a child
# failed) a large cluster's checkpoints are pickled in-process too, IN_PROCESS_MAX_TICKS apart at
# most, so that going back does not replay hours: at 150,000 pods each then stalls the engine for
# about 2 s.
IN_PROCESS_PER_TICK = 5
IN_PROCESS_MAX_TICKS = 600
# Attributes of a Simulation that are not its state: the scenario (read-only, shared) and the history.
NOT_STATE = ("scenario", "history", "open_cache")

_live: "weakref.WeakValueDictionary[int, Simulation]" = weakref.WeakValueDictionary()


def _live_simulation(token: int) -> "Simulation":
    return _live[token]


def _new_clock() -> Clock:
    return Clock()


def _new_operations(sim: "Simulation", history: list) -> Operations:
    ops = Operations(sim)
    ops.history = history
    return ops


# ---------------------------------------------------------------- slotted objects as value tuples

# A slotted object is pickled by default as its class plus a dict {slot name: value}, which loading
# builds and then applies one setattr at a time: at 150,000 pods (35 slots each) that is most of the
# cost of going back. Instead the object is created empty (NEWOBJ, memoized first, so cycles stay
# fine) and its values, one tuple in slot order, are assigned by a function compiled once per class
# (`o.a, o.b, ... = values`: specialised slot stores). Loading pods this way is about 3 times faster.
_SLOT_WRITERS: dict[type, types.FunctionType] = {}
_WRITER_CLASS: dict[types.FunctionType, type] = {}
# How objects of a class are pickled: None (the default way), (reader of the slot values, writer), or
# _DICT (their __dict__, set again one attribute at a time).
_PLANS: dict[type, "tuple[operator.attrgetter, types.FunctionType] | str | None"] = {}


def _slot_writer(cls: type) -> types.FunctionType:
    """The function that assigns a tuple of values to the slots of a `cls` object, in slot order
    (the pickled form of that function, so a checkpoint holds it once per class)."""
    writer = _SLOT_WRITERS.get(cls)
    if writer is None:
        targets = "".join(f"o.{name}, " for name in copyreg._slotnames(cls))
        namespace: dict = {}
        exec(f"def write_slots(o, values):\n    {targets}= values\n", namespace)  # noqa: S102
        writer = _SLOT_WRITERS[cls] = namespace["write_slots"]
        _WRITER_CLASS[writer] = cls
    return writer


_DICT = "dict"  # the plan of a plain class whose objects keep their attributes in their own __dict__
_HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class defined in Python, not a built-in type


def _plan(cls: type) -> "tuple[operator.attrgetter, types.FunctionType] | str | None":
    """Values in slot order for a plain slotted class; _DICT for a plain class without slots; None
    when its objects keep the default pickling: slots and a __dict__ mixed, a built-in type or a
    subclass of one (a dict subclass pickles its items too), a class that pickles or sets attributes
    its own way (frozen dataclasses, __getstate__, __reduce__, __getnewargs__), or one slot."""
    own_way = not (cls.__setattr__ is object.__setattr__
                   and cls.__reduce_ex__ is object.__reduce_ex__ and cls.__reduce__ is object.__reduce__
                   and cls.__getstate__ is object.__getstate__ and not hasattr(cls, "__setstate__"))
    if own_way or not all(c is object or c.__flags__ & _HEAPTYPE for c in cls.__mro__):
        return None
    if not any("__slots__" in c.__dict__ for c in cls.__mro__[:-1]):
        no_args = not hasattr(cls, "__getnewargs_ex__") and not hasattr(cls, "__getnewargs__")
        return _DICT if no_args and cls.__dictoffset__ != 0 else None
    names = copyreg._slotnames(cls)
    slotted = all("__slots__" in c.__dict__ for c in cls.__mro__[:-1]) and cls.__dictoffset__ == 0
    if slotted and len(names) > 1:  # attrgetter of one name returns the value, not a tuple
        return operator.attrgetter(*names), _slot_writer(cls)
    return None


class _CheckpointPickler(pickle.Pickler):
    """Called for every object but the plain containers, strings and numbers: kept short."""

    def __init__(self, file, dispatch_table: dict) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.dispatch_table = dispatch_table
        self.plans = _PLANS | dict.fromkeys(dispatch_table)  # the table's own reducers come first

    def reducer_override(self, obj):
        cls = type(obj)
        try:
            plan = self.plans[cls]
        except KeyError:
            plan = self.plans[cls] = _PLANS[cls] = _plan(cls)
        if plan is None:
            if cls is types.FunctionType and obj in _WRITER_CLASS:
                return _slot_writer, (_WRITER_CLASS[obj],)
            return NotImplemented
        if plan is _DICT:
            # (this asks for the object's __dict__: see set_attributes; a forked child's asking
            # leaves the parent's objects as they are)
            return copyreg.__newobj__, (cls,), obj.__dict__, None, None, set_attributes
        try:
            values = plan[0](obj)
        except AttributeError:  # a slot never set: the default pickling leaves it unset too
            return NotImplemented
        return copyreg.__newobj__, (cls,), values, None, None, plan[1]


# A child's checkpoint of at least this many bytes stays in its file, mapped (see _kept).
MAP_FROM = 8 * 2**20


@dataclass(slots=True)
class Checkpoint:
    time: int
    applied: int  # how many logged operations the state includes
    # The pickled state: bytes, or a read-only map of the file a child wrote (_kept); empty while
    # a forked child is still writing it (History.writer)
    data: "bytes | mmap.mmap"


def _kept(file) -> "bytes | mmap.mmap":
    """A child's checkpoint, from the unlinked file it wrote. A large one stays in that file, mapped
    read-only: read back, 51 MB at 150,000 pods took the engine thread a copy and some 12,500 page
    faults, and five of them (the budget) held 250 MB of the process's memory (the TUI's RSS at
    x1000 on that cluster: 565 MiB after 20 s, 328 MiB mapped). The kernel keeps the bytes in its page
    cache (on disk under memory pressure, in memory on a tmpfs), and a restore reads them from the
    map. A small one is read back into bytes: a map holds a file descriptor, and small checkpoints
    are many (the budget's worth)."""
    size = os.fstat(file.fileno()).st_size
    if size >= MAP_FROM:
        try:
            return mmap.mmap(file.fileno(), size, access=mmap.ACCESS_READ)
        except (OSError, ValueError):  # a temporary directory whose files cannot be mapped
            pass
    file.seek(0)
    return file.read()


class _Writer:
    """A checkpoint being written by a forked child, so that the engine thread does not stall.

    At 150,000 pods pickling the state takes seconds of CPU. After fork() the child holds a
    copy-on-write image of the state at this instant: it pickles that image into an unlinked temporary
    file and exits, while the parent runs on. The parent collects the bytes when the child has exited
    (polled once per instant with work, or waited for when a restore needs that checkpoint; the next
    checkpoint waits for the child, the engine does not: see History._run). Only the forking
    thread exists in the child, and it touches nothing but the state and the file, so the other
    threads' locks (the TUI's) do not matter; it leaves with os._exit (no atexit, no stdio flush)."""

    __slots__ = ("checkpoint", "pid", "file", "child_cpu")

    def __init__(self, checkpoint: Checkpoint, dump) -> None:
        self.checkpoint = checkpoint
        self.file = tempfile.TemporaryFile()
        self.child_cpu = 0.0
        self.pid = os.fork()
        if self.pid == 0:  # the child
            status = 1
            try:
                gc.disable()  # a collection would only copy pages the parent still shares
                with open(self.file.fileno(), "wb", closefd=False) as out:
                    dump(out)
                status = 0
            finally:
                os._exit(status)

    def collect(self, block: bool) -> bool | None:
        """None while the child runs (block False); then True once the bytes are in the checkpoint,
        False if the child failed."""
        pid, status, usage = os.wait4(self.pid, 0 if block else os.WNOHANG)
        if pid == 0:
            return None
        self.pid = 0
        self.child_cpu = usage.ru_utime + usage.ru_stime
        ok = os.waitstatus_to_exitcode(status) == 0
        if ok:
            self.checkpoint.data = _kept(self.file)
        self.file.close()
        return ok

    def cancel(self) -> None:
        pid, self.pid = self.pid, 0
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        self.file.close()

    def __del__(self) -> None:
        # a history dropped while its child writes (another scenario loaded): no child left behind
        if self.pid:
            try:
                self.cancel()
            except OSError:
                pass


@dataclass(slots=True)
class Branch:
    """A future left behind by a fork: its operations (the shared past included) and how far it ran."""

    name: str
    operations: list[tuple[int, Operation]]
    head: int
    forked_at: int


@dataclass(slots=True)
class HistoryMemory:
    checkpoints: int
    checkpoint_bytes: int
    series_bytes: int
    budget: int

    @property
    def total(self) -> int:
        return self.checkpoint_bytes + self.series_bytes


@dataclass(slots=True)
class History:
    sim: "Simulation"
    budget: int = DEFAULT_BUDGET
    interval: int = 0  # ms of virtual time between checkpoints, chosen from the cluster's size
    fixed_interval: bool = False  # True: keep `interval` as given
    checkpoints: list[Checkpoint] = field(default_factory=list)
    operations: list[tuple[int, Operation]] = field(default_factory=list)
    applied: int = 0  # operations of the log the current state includes
    head: int = 0  # the furthest instant this branch has reached
    branches: dict[str, Branch] = field(default_factory=dict)
    series: Series = field(default_factory=Series)
    restored: int = 0  # restores so far: a reader that caches the state (the TUI) redraws it all
    dropped: int = 0  # checkpoints thinned out
    forks: int = 0  # branches named so far (branch-1, branch-2, …)
    # States replaced by a restore, freed by free_retired(): at once, or (defer_free) when the caller
    # says so, e.g. the TUI on its event loop once no widget can be reading the old objects.
    retired: list = field(default_factory=list)
    defer_free: bool = False
    # Checkpoints of at least this many pods and nodes are written by a forked child (None: never;
    # set to None after a child failed). Linux only: elsewhere fork() with threads is not safe.
    fork_from: int | None = FORK_FROM if sys.platform.startswith("linux") else None
    writer: _Writer | None = None  # the checkpoint a child is writing
    child_cpu: float = 0.0  # CPU seconds the children spent writing checkpoints
    checkpoint_seconds: float = 0.0  # wall seconds the last checkpoint took here (the fork, or the pickling)

    # ---------------------------------------------------------------- set up

    def start(self) -> None:
        """Attach to the simulation in its current state (before any live operation)."""
        sim = self.sim
        counts = ClusterCounts()
        counts.attach(sim.store)
        sim.metrics = counts
        self.head = sim.clock.now
        self.series.record(sim.clock.now, counts.sample())
        self._checkpoint()

    # ---------------------------------------------------------------- moving in time

    @property
    def now(self) -> int:
        return self.sim.clock.now

    def future(self) -> list[tuple[int, Operation]]:
        """The recorded operations not yet applied in the current state."""
        return self.operations[self.applied:]

    def advance(self, until: int) -> None:
        """Run to `until`, applying the recorded future's operations at their instants, sampling
        the figures after each instant with work and taking checkpoints on the way."""
        sim = self.sim
        clock = sim.clock
        # Replaying what was recorded (after going back): a checkpoint near where the replay stops
        # serves the next step back; one near where it started, which would keep the child busy for
        # the rest of a long replay at 150,000 pods, would not.
        quiet_until = until - self.interval if until <= self.head else None
        while True:
            op_due = self.operations[self.applied][0] if self.applied < len(self.operations) else None
            stop = until if op_due is None or op_due > until else op_due
            self._run(stop, quiet_until)
            if op_due is None or op_due > until:
                break
            clock.run_due(op_due)
            sim.operations.apply(self.operations[self.applied][1], after_controllers=True)
            self.applied += 1
            self._sample()
        clock.run_due(until)
        if until > self.head:
            self.head = until

    def _run(self, until: int, quiet_until: int | None = None) -> None:
        """Run the timers due up to `until`, sampling and taking checkpoints (none before
        `quiet_until`)."""
        clock = self.sim.clock
        while True:
            due = clock.next_due()
            if due is None or due > until:
                break
            clock.run_due(due)
            self._sample()
            if self.writer is not None:
                self._collect(block=False)
            # A checkpoint due while a child still writes the previous one waits for it, the clock
            # running on: it is taken at the first instant with work after the child is done. The
            # engine never waits for a child here, so at x1000 on 150,000 pods the run is not held
            # to the child's pace (about 2 s a checkpoint), and going back replays at most an
            # interval plus what ran while one child wrote: about the engine time of one write,
            # whatever the speed. How far apart large checkpoints are thus depends on the child's
            # speed; the state reached never does.
            if self.writer is None and self._interval_passed(due) and (quiet_until is None or due >= quiet_until):
                self._checkpoint()

    def _sample(self) -> None:
        self.series.record(self.sim.clock.now, self.sim.metrics.sample())

    def record(self, op: Operation, entered: bool) -> None:
        """A live operation was just applied at now (`entered`: it is in the operations history,
        i.e. it was valid). Applied before the end of the recorded future, it forks."""
        if not entered:
            return
        if self.applied < len(self.operations) or self.head > self.now:
            self._fork()
        self.operations.append((self.now, op))
        self.applied = len(self.operations)
        self._sample()

    def seek(self, time: int) -> None:
        """Go to instant `time` (ms): back by restoring and replaying, forward by replaying."""
        time = max(0, time)
        if time < self.now:
            self._restore_before(time)
        self.advance(time)

    def forward(self, ms: int) -> None:
        """Forward along the recorded future, never past the furthest instant reached."""
        self.seek(min(self.now + ms, max(self.head, self.now)))

    # ---------------------------------------------------------------- forks and branches

    def _keep_branch(self, forked_at: int) -> str:
        self.forks += 1
        name = f"branch-{self.forks}"
        self.branches[name] = Branch(name, list(self.operations), self.head, forked_at)
        return name

    def _forget_future(self) -> None:
        """What was recorded after now on the current branch no longer holds."""
        self.head = self.now
        self.series.truncate_after(self.now)
        self.checkpoints = [cp for cp in self.checkpoints if cp.time <= self.now and cp.applied <= self.applied]
        if self.writer is not None and self.writer.checkpoint not in self.checkpoints:
            self.writer.cancel()
            self.writer = None

    def _fork(self) -> None:
        self._keep_branch(self.now)
        del self.operations[self.applied:]
        self._forget_future()

    def switch(self, name: str) -> None:
        """Make branch `name` current at its furthest instant; the current future becomes a branch."""
        branch = self.branches.pop(name)
        common = _common_prefix(self.operations, branch.operations)
        # the first instant at which the two futures can differ: the first operation not shared
        differs = min([ops[common][0] for ops in (self.operations, branch.operations) if common < len(ops)]
                      + [branch.forked_at])
        self._keep_branch(differs)
        # The branch's operations before the restore: restoring from before every checkpoint kept
        # rebuilds the scenario and runs instant 0, which applies the operations recorded for it.
        self.operations = list(branch.operations)
        self._restore_before(min(differs, self.now), max_applied=common)
        self._forget_future()
        self.advance(branch.head)

    def branch_scenario(self, name: str):
        """Branch `name` as a scenario whose timeline replays it (what Simulation.save writes)."""
        branch = self.branches[name]
        from .simulation import entry_from_operation

        entries = []
        for time, op in branch.operations:
            entry = entry_from_operation(op, time)
            entry["afterControllers"] = True
            entries.append(entry)
        return self.sim.scenario_with(entries, branch.head)

    def save_branch(self, name: str, path):
        """Write branch `name` as a scenario file that replays it (as Simulation.save does)."""
        return self.sim.save(path, self.branch_scenario(name))

    # ---------------------------------------------------------------- checkpoints

    def _restore_before(self, time: int, max_applied: int | None = None) -> None:
        limit = self.applied if max_applied is None else max_applied
        for cp in list(reversed(self.checkpoints)):
            if cp.time <= time and cp.applied <= limit:
                if self.writer is not None and cp is self.writer.checkpoint and not self._collect(block=True):
                    continue  # the child failed: that checkpoint is gone, an older one will do
                self._load(cp)
                self.applied = cp.applied
                break
        else:
            self._rebuild()
        self.restored += 1

    def _rebuild(self) -> None:
        """The scenario built afresh and opened, for instants older than every checkpoint kept:
        instant 0 runs as any open does (restored from the kept opened state when there is one,
        openstate.py), and the simulation counts as opened, so that running on does not open it
        again."""
        from .simulation import Simulation

        sim = self.sim
        fresh = Simulation(sim.scenario, sim.store.recorder.events.maxlen)
        counts = ClusterCounts()
        counts.attach(fresh.store)
        fresh.metrics = counts
        self._load(Checkpoint(0, 0, self._dump(fresh)), source=fresh)
        self.applied = 0
        sim.open_now()

    def _checkpoint(self) -> None:
        sim = self.sim
        if self.writer is not None:
            self._collect(block=True)
        start = time.perf_counter()
        cp = Checkpoint(sim.clock.now, self.applied, b"")
        weight = len(sim.store.pods) + NODE_WEIGHT * len(sim.store.nodes)
        if self.fork_from is not None and weight >= self.fork_from:
            try:
                self.writer = _Writer(cp, lambda out: self._dump(sim, out))
            except OSError:  # no fork here after all (e.g. no memory for the page tables)
                self.fork_from = None
        if self.writer is None:
            cp.data = self._dump(sim)
        self.checkpoint_seconds = time.perf_counter() - start
        self.checkpoints.append(cp)
        self._thin()
        if not self.fixed_interval:
            # Pickling costs about what restoring does, in proportion to the objects held: ten ticks
            # apart for the smallest clusters, a tick more per IN_PROCESS_PER_TICK of the size, so
            # that checkpoints stay a small share of the run. A forked child pickles off the engine
            # thread, leaving the parent the fork (page tables) and reading the bytes back: a tick
            # more per 5,000 pods and nodes (31 s at 150,000 pods), and no sooner than the child is
            # done (_run). Recomputed as the cluster grows or shrinks.
            if self.writer is not None:
                ticks = (len(sim.store.pods) + len(sim.store.nodes)) // 5000
            else:
                ticks = min(weight // IN_PROCESS_PER_TICK, IN_PROCESS_MAX_TICKS)
            self.interval = sim.tick * max(10, ticks)

    def checkpoint_due_by(self, until: int) -> bool:
        """Whether advancing to `until` would take a checkpoint at its next instant with work, as
        _run takes them (a child still writing the last one is asked whether it is done). The TUI's
        runner starts a frame with one that would take its frame past its budget (judged by
        `checkpoint_seconds`)."""
        due = self.sim.clock.next_due()
        if due is None or due > until:
            return False
        if self.writer is not None and self._collect(block=False) is None:
            return False
        return self._interval_passed(due)

    def _interval_passed(self, due: int) -> bool:
        return not self.checkpoints or due >= self.checkpoints[-1].time + self.interval

    def _collect(self, block: bool) -> bool | None:
        """Take the bytes the child wrote into their checkpoint (see _Writer.collect)."""
        writer = self.writer
        done = writer.collect(block)
        if done is None:
            return None
        self.writer = None
        self.child_cpu += writer.child_cpu
        if not done:  # forking does not work here (e.g. out of memory): pickle in-process from now on
            self.fork_from = None
            self.checkpoints = [cp for cp in self.checkpoints if cp is not writer.checkpoint]
        self._thin()
        return done

    def _thin(self) -> None:
        cps = self.checkpoints
        while sum(len(cp.data) for cp in cps) > self.budget and len(cps) > KEEP_NEWEST + 1:
            candidates = range(1, len(cps) - KEEP_NEWEST)
            drop = min(candidates, key=lambda i: (cps[i + 1].time - cps[i - 1].time, i))
            del cps[drop]
            self.dropped += 1
        if sum(len(cp.data) for cp in cps) > self.budget and len(cps) > 1:
            del cps[0]  # even the newest few exceed the budget: the oldest goes
            self.dropped += 1

    def _dump(self, sim: "Simulation", out=None) -> bytes | None:
        """The state pickled: returned as bytes, or written to the file `out`."""
        token = id(sim)
        _live[token] = sim
        buffer = io.BytesIO() if out is None else out
        table = copyreg.dispatch_table.copy()
        table[type(sim)] = lambda s: (_live_simulation, (token,), {k: v for k, v in s.__dict__.items()
                                                                  if k not in NOT_STATE})
        table[Clock] = lambda c: (_new_clock, (), (None, {s: getattr(c, s) if s != "_handlers" else _methods(c._handlers)
                                                          for s in Clock.__slots__}))
        table[Operations] = lambda o: (_new_operations, (o.sim, o.history))
        pickler = _CheckpointPickler(buffer, table)
        progress, sim.scheduler.progress = sim.scheduler.progress, None  # a caller's callback, not state
        try:
            pickler.dump(sim)
        finally:
            sim.scheduler.progress = progress
        return buffer.getvalue() if out is None else None

    def _load(self, cp: Checkpoint, source: "Simulation | None" = None, token: int | None = None) -> None:
        """Replace the live simulation's state by the checkpoint's (pickled from `source`, or from
        the live simulation itself, or in another process from the simulation whose id was `token`)."""
        sim = self.sim
        if token is None:
            token = id(source if source is not None else sim)
        progress = sim.scheduler.progress
        _live[token] = sim  # the pickled graph's simulation becomes the live one
        collecting = gc.isenabled()
        gc.disable()  # millions of new objects, none of them garbage: the collector would only rescan them
        old = [v for k, v in sim.__dict__.items() if k not in NOT_STATE]
        try:
            # Replaces the attributes of the live simulation in one C-level update at the end (the
            # reduce of _live_simulation): a reader in another thread sees the old state or the new.
            pickle.loads(cp.data)
            if isinstance(cp.data, mmap.mmap) and hasattr(mmap, "MADV_DONTNEED"):
                cp.data.madvise(mmap.MADV_DONTNEED)  # read: its pages leave this process's RSS, not the cache
        finally:
            self.retired.append(old)
            if not self.defer_free:
                self.free_retired()
            if collecting:
                gc.enable()
        if gc.get_freeze_count():
            gc.freeze()  # the caller keeps the state out of the collector's sight (the TUI): so do we
            if source is not None:
                _live[token] = source
        sim._register_handlers()
        sim.scheduler.progress = progress

    def free_retired(self) -> None:
        retired, self.retired = self.retired, []
        for components in retired:
            _retire(components)

    def memory(self) -> HistoryMemory:
        return HistoryMemory(len(self.checkpoints), sum(len(cp.data) for cp in self.checkpoints),
                             self.series.memory_bytes(), self.budget)


def _retire(components) -> None:
    """Break the cycles of a replaced state (components refer to each other through watchers and
    timer handlers), so that reference counting frees it at once instead of a full collection."""
    for obj in components:
        if hasattr(obj, "__dict__") and not isinstance(obj, type):
            obj.__dict__.clear()
        elif isinstance(obj, dict):
            for value in obj.values():
                if hasattr(value, "__dict__"):
                    value.__dict__.clear()
    if isinstance(components, list):
        components.clear()


def _methods(handlers: dict) -> dict:
    """The timer handlers that are bound methods (they pickle as the method of the restored
    component); the simulation's own lambdas are registered again after loading."""
    return {name: h for name, h in handlers.items() if isinstance(h, types.MethodType)}


def _common_prefix(a: list, b: list) -> int:
    n = 0
    for x, y in zip(a, b):
        if x[0] != y[0] or x[1] is not y[1]:
            break
        n += 1
    return n


def format_bytes(n: int) -> str:
    for unit in ("B", "KiB", "MiB"):
        if n < 1024:
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"
