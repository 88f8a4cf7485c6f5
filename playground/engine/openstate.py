"""A big scenario's opened state kept on disk, so that opening it again is a restore instead of
placing every pod again.

Opening places every pod created at t=0 through the scheduler's own cycles (`Simulation._open`): at
5,000 nodes and 150,000 pods that is about 3.5 s of CPU. The outcome depends only on the scenario and
on this code, so it is kept: the state right after instant 0, pickled as a time-travel checkpoint
(history.py), in a file named by a hash of what instant 0 depends on (the validated scenario but
its name, description, duration and the timeline and expectations after t=0:
`Simulation.opening_key`), the event log's limit, the source files of the engine, and the Python and
numpy versions. Opening the same cluster with the same code restores that state (about 1.5 s at
150,000 pods), whatever the scenario scripts after t=0: the restored state takes this scenario's
later timeline and expectations (`Simulation.adopt_script`), as a build of it would have. A change of
what instant 0 depends on, or of the code, is a miss, and a damaged or foreign file is a miss too
(it is removed).

Only scenarios of at least `KEEP_FROM` pods and nodes are kept (a smaller one opens in about half
a second or less). A forked child, as for time travel's checkpoints, pickles and compresses the
state while the parent goes on, and renames the file into place when it is complete (a reader never
sees half a file). The directory holds the `KEEP` newest states. Linux only, like those children.

Where: `$PLAYGROUND_CACHE_DIR`, else `$XDG_CACHE_HOME/cluster-playground`, else
`~/.cache/cluster-playground`; `PLAYGROUND_CACHE_DIR=off` turns it off.
"""

from __future__ import annotations

import gc
import hashlib
import os
import pickle
import stat
import sys
import tempfile
import threading
import zlib
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Callable

import numpy as np
import pydantic

from .history import Checkpoint, History
from .metrics import ClusterCounts

if TYPE_CHECKING:
    from ..scenario import Scenario
    from .simulation import Simulation

KEEP_FROM = 20_000  # pods and nodes
KEEP = 4  # files kept in the directory, newest first
MAGIC = b"cluster-playground opened state 1\n"
# A scenario file or kubectl dump from this size on is also kept as the validated scenario it reads
# as (`read_source`): 150,000 imported pods are a 21 MiB TOML file or a 356 MiB dump, which take 13 s
# and 10 s to read, convert and validate.
SOURCE_KEEP_FROM = 2 * 2**20
SOURCE_MAGIC = b"cluster-playground scenario 1\n"
PACKAGE = Path(__file__).resolve().parent.parent


class OpenStateCache:
    def __init__(self, directory: Path, fork: bool = True) -> None:
        self.directory = directory
        self.fork = fork  # False: write in this process (tests)
        self.restored = False  # the last open was a restore
        self.source_restored = False  # the last read_source of a big file was from its kept copy

    @classmethod
    def default(cls) -> "OpenStateCache | None":
        """The user's cache, or None where it is turned off or fork() is not safe."""
        setting = os.environ.get("PLAYGROUND_CACHE_DIR", "")
        if setting == "off" or not sys.platform.startswith("linux"):
            return None
        if setting:
            return cls(Path(setting))
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        return cls(Path(base) / "cluster-playground")

    def path(self, sim: "Simulation") -> Path:
        digest = hashlib.sha256(sim.opening_key())
        digest.update(repr((sim.store.recorder.events.maxlen, sys.version, np.__version__)).encode())
        digest.update(source_digest())
        return self.directory / f"{digest.hexdigest()[:32]}.state"

    def open_sim(self, sim: "Simulation", run_instant_zero: "Callable[[], None]") -> None:
        """Open `sim` (built, not yet opened): restore its kept opened state, or run instant 0 and
        keep the state it opened in."""
        path = self.path(sim)
        if not self.restore(sim, path):
            run_instant_zero()
            self.keep(sim, path)

    def restore(self, sim: "Simulation", path: Path) -> bool:
        """Replace the state of `sim` (not yet opened: built, or only constructed) by its kept
        opened state."""
        self.restored = False
        try:
            with open(path, "rb") as f:
                if f.readline() != MAGIC:
                    raise ValueError("not an opened state")
                token = int(f.readline())
                data = zlib.decompress(f.read())
        except FileNotFoundError:
            return False
        except (OSError, ValueError, zlib.error):
            _remove(path)
            return False
        history = sim.history
        try:
            (history or History(sim))._load(Checkpoint(0, 0, data), token=token)
        except Exception:  # noqa: BLE001 - a file this code cannot read is a miss, never an error
            _remove(path)
            return False
        sim.adopt_script()
        if history is not None and sim.metrics is None:
            # Recording from before the open (the TUI), restoring a state kept without: the figures
            # follow the restored store (instant 0's sample is the one taken before the open).
            counts = ClusterCounts()
            counts.attach(sim.store)
            sim.metrics = counts
        self.restored = True
        return True

    def keep(self, sim: "Simulation", path: Path) -> None:
        """Write the opened state of `sim` (in a forked child, unless `fork` is off): the child's
        copy-on-write image of the state is the opened state."""
        if len(sim.store.pods) + len(sim.store.nodes) < KEEP_FROM or path.exists():
            return
        self._in_child(lambda: self._write(path, MAGIC + b"%d\n" % id(sim), History(sim)._dump(sim), "*.state"))

    def _in_child(self, write: "Callable[[], None]") -> None:
        """Run `write` in a forked child that the parent does not wait for (in this process when
        `fork` is off, as in the tests)."""
        if not self.fork:
            write()
            return
        try:
            pid = os.fork()
        except OSError:
            return
        if pid == 0:
            status = 1
            try:
                gc.disable()  # a collection would only copy pages the parent still shares
                write()
                status = 0
            finally:
                os._exit(status)
        threading.Thread(target=os.waitpid, args=(pid, 0), daemon=True).start()

    def _write(self, path: Path, header: bytes, data: bytes, pattern: str) -> None:
        """`header` and `data` compressed, written whole or not at all, then the oldest files of
        `pattern` beyond KEEP removed."""
        self.directory.mkdir(parents=True, exist_ok=True)
        data = zlib.compress(data, 1)
        fd, temporary = tempfile.mkstemp(dir=self.directory, suffix=".partial")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(header)
                out.write(data)
            os.replace(temporary, path)
        except OSError:
            _remove(Path(temporary))
            return
        self._trim(pattern)

    def _trim(self, pattern: str) -> None:
        states = sorted(self.directory.glob(pattern), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in states[KEEP:]:
            _remove(old)

    # ---------------------------------------------------------------- the scenario a big file reads as

    def read_source(self, file: Path, read: "Callable[[], tuple[Scenario, list[str]]]") -> "tuple[Scenario, list[str]]":
        """What `read` makes of `file` (the validated scenario and the lines to report), from the
        copy kept for the same bytes read by the same code, else from `read`, then kept (from
        SOURCE_KEEP_FROM bytes on). A file that changes while it is read is not kept."""
        try:
            before = file.stat()
        except OSError:
            return read()
        if before.st_size < SOURCE_KEEP_FROM or not stat.S_ISREG(before.st_mode):
            return read()
        path = self._source_path(file)
        kept = self._load_source(path)
        if kept is not None:
            self.source_restored = True
            return kept
        self.source_restored = False
        result = read()
        after = file.stat()
        if (after.st_mtime_ns, after.st_size) == (before.st_mtime_ns, before.st_size):
            self._keep_source(path, result)
        return result

    def _source_path(self, file: Path) -> Path:
        with open(file, "rb") as f:
            digest = hashlib.sha256(hashlib.file_digest(f, "sha256").digest())  # 0.4 s for 356 MiB
        digest.update(repr((file.suffix.lower(), sys.version, pydantic.VERSION)).encode())
        digest.update(source_digest())
        return self.directory / f"{digest.hexdigest()[:32]}.scenario"

    def _load_source(self, path: Path):
        try:
            with open(path, "rb") as f:
                if f.readline() != SOURCE_MAGIC:
                    raise ValueError("not a kept scenario")
                data = zlib.decompress(f.read())
            scenario, lines = pickle.loads(data)
        except FileNotFoundError:
            return None
        except Exception:  # noqa: BLE001 - a file this code cannot read is a miss, never an error
            _remove(path)
            return None
        return scenario, lines

    def _keep_source(self, path: Path, result) -> None:
        """Pickle the scenario (2 s at 150,000 pods) in a forked child."""
        if not path.exists():
            self._in_child(lambda: self._write(path, SOURCE_MAGIC, pickle.dumps(result, pickle.HIGHEST_PROTOCOL),
                                               "*.scenario"))


@lru_cache(maxsize=1)
def source_digest() -> bytes:
    """A hash of every Python and C source of the package: another version of the code is a miss."""
    digest = hashlib.sha256()
    for path in sorted([*PACKAGE.rglob("*.py"), *PACKAGE.rglob("*.c")]):
        digest.update(str(path.relative_to(PACKAGE)).encode())
        digest.update(path.read_bytes())
    return digest.digest()


def _remove(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


__all__ = ["OpenStateCache", "KEEP_FROM"]
