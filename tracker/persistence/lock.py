"""The sidecar lock: `NAME.toml.lock` beside the save, held with flock while changing it.

The lock file is never deleted (deleting it would let two writers hold locks on two
different inodes). Decisions (issue: a group-shared folder, a hostile folder):
- It takes the save's group and permission bits whatever the writer's umask (for a new
  save, the folder's group and the folder's read/write bits), so every member of a
  shared table can take it; an existing lock file is opened read-only, which is all
  flock needs, so one made with the wrong mode by an older version still works.
- It is never created or opened through a symbolic link (O_NOFOLLOW): a `NAME.toml.lock`
  that is a link is refused with a message naming it.
- A save that is a symbolic link is locked (and written) at its target, so two people
  opening it by different names share one lock.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tracker.engine.errors import TrackerError


def target(path: Path) -> Path:
    """The file a save path stands for: a symbolic link is followed to its target."""
    return Path(os.path.realpath(path))


def lock_path(path: Path) -> Path:
    real = target(path)
    return real.with_name(real.name + ".lock")


def _open_lock(sidecar: Path, save: Path) -> int:
    flags = os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        return os.open(sidecar, os.O_RDONLY | flags)
    except FileNotFoundError:
        pass
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise TrackerError(f"{sidecar}: the lock file is a symbolic link; remove it (it is recreated safely)") from None
        raise TrackerError(f"{sidecar}: cannot open the lock file: {exc.strerror}") from None
    try:
        st = os.stat(save)
    except OSError:
        st = os.stat(sidecar.parent)
    mode = stat.S_IMODE(st.st_mode) & 0o666
    try:
        fd = os.open(sidecar, os.O_WRONLY | os.O_CREAT | os.O_EXCL | flags, 0o600)
    except FileExistsError:
        return _open_lock(sidecar, save)  # another session made it a moment ago
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise TrackerError(f"{sidecar}: the lock file is a symbolic link; remove it (it is recreated safely)") from None
        raise TrackerError(f"{sidecar}: cannot create the lock file: {exc.strerror}") from None
    try:
        os.fchmod(fd, mode | 0o400)
        if os.fstat(fd).st_gid != st.st_gid:
            try:
                os.fchown(fd, -1, st.st_gid)
            except OSError:
                pass  # not a member of that group: the mode still lets the group read it
    except OSError:
        pass
    return fd


@contextmanager
def locked(path: Path, timeout: float = 10.0) -> Iterator[None]:
    """Hold the exclusive lock for `path`; give up with a clear message after `timeout`."""
    sidecar = lock_path(path)
    fd = _open_lock(sidecar, target(path))
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise TrackerError(f"{path}: another session has held the lock for {timeout:g}s; try again") from None
                time.sleep(0.002)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
