"""Writing a file so that nothing is ever half-written or lost (README, "Saving").

The text goes to a temporary file in the target's own folder (same file system, so the rename is
atomic), is flushed and fsynced, gets the target's permission bits, and is renamed over the target.
A symlink is followed: its target is replaced and the link stays a link. Every failure that can be
caught removes the temporary file; a temporary file left by a process that was killed mid-save
(its name carries the dead process's id) is removed by the next save to the same target.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

_TEMP = re.compile(r"^\.(?P<name>.+)\.(?P<pid>\d+)\.[0-9a-f]{8}\.tmp$")


def resolve_target(path: str | os.PathLike) -> Path:
    """The file a save really writes: the end of a chain of symlinks (a dangling link's target too)."""
    path = Path(path)
    seen = 0
    while path.is_symlink() and seen < 40:
        link = Path(os.readlink(path))
        path = link if link.is_absolute() else path.parent / link
        seen += 1
    return path


def _temp_name(target: Path) -> Path:
    return target.parent / f".{target.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp"


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, owned by someone else
        return True
    return True


def remove_stale_temps(target: Path) -> list[Path]:
    """Temporary files of earlier saves to `target` whose process is gone."""
    removed = []
    try:
        entries = list(os.scandir(target.parent))
    except OSError:
        return removed
    for entry in entries:
        match = _TEMP.match(entry.name)
        if match and match.group("name") == target.name and not _alive(int(match.group("pid"))):
            try:
                os.unlink(entry.path)
                removed.append(Path(entry.path))
            except OSError:
                pass
    return removed


def _new_file_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def write_atomically(path: str | os.PathLike, text: str) -> Path:
    """Replace the file at `path` (through any symlink) by `text`; returns the file written."""
    target = resolve_target(path)
    remove_stale_temps(target)
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = _new_file_mode()
    temp = _temp_name(target)
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        try:
            data = text.encode("utf-8")
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, target)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise
    _sync_folder(target.parent)
    return target


def _sync_folder(folder: Path) -> None:
    # the rename itself is durable only once the folder is synced; not every system allows it
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
