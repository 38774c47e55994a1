"""The sidecar lock: `NAME.toml.lock` beside the save, held with flock while changing it.

Decisions: docs/decisions/0031-sidecar-lock.md
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tracker.engine.errors import TrackerError
from tracker.persistence import folder
from tracker.persistence.folder import Refused, Spot

_FLAGS = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)

try:  # POSIX
    import fcntl

    def _try_lock(fd: int) -> bool:
        """Take the exclusive lock without waiting: False if someone else holds it."""
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)

except ImportError:  # Windows: no fcntl; the lock is on the sidecar's first byte
    import msvcrt

    def _try_lock(fd: int) -> bool:
        os.lseek(fd, 0, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined,unused-ignore]  # typeshed: win32 only
        except OSError:  # held by another process (EACCES / EDEADLOCK)
            return False
        return True

    def _unlock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)  # type: ignore[attr-defined,unused-ignore]


def target(path: Path) -> Path:
    """The file a save path stands for: a link inside its folder is followed."""
    return folder.real(path)


def lock_path(path: Path) -> Path:
    real = target(path)
    return real.with_name(real.name + ".lock")


def _refuse(sidecar: Path, exc: OSError, doing: str) -> TrackerError:
    if exc.errno == errno.ELOOP:
        return Refused(f"{sidecar}: the lock file is a symbolic link; remove it (it is recreated safely)")
    if exc.errno == errno.ENXIO:
        return Refused(f"{sidecar}: the lock file is a FIFO; remove it (it is recreated safely)")
    return TrackerError(f"{sidecar}: cannot {doing} the lock file: {exc.strerror}")


def _checked(fd: int, sidecar: Path) -> int:
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise Refused(f"{sidecar}: the lock file is not a regular file (a FIFO or a device?); remove it (it is recreated safely)")
    return fd


def _open_lock(save: Spot) -> int:
    name = save.leaf + ".lock"
    sidecar = save.path.with_name(name)
    for _ in range(3):
        try:
            return _checked(os.open(save.beside(name), os.O_RDONLY | _FLAGS, dir_fd=save.fd_arg), sidecar)
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise _refuse(sidecar, exc, "open") from None
        st = save.lstat()
        if st is None:
            st = os.fstat(save.dir_fd) if save.dir_fd >= 0 else os.stat(save.path.parent)
        mode = stat.S_IMODE(st.st_mode) & 0o666
        try:
            fd = os.open(save.beside(name), os.O_WRONLY | os.O_CREAT | os.O_EXCL | _FLAGS, 0o600, dir_fd=save.fd_arg)
        except FileExistsError:
            continue  # another session made it a moment ago
        except OSError as exc:
            raise _refuse(sidecar, exc, "create") from None
        with contextlib.suppress(OSError, AttributeError):  # Windows has neither fchmod nor groups
            os.fchmod(fd, mode | 0o400)
            if os.fstat(fd).st_gid != st.st_gid:
                with contextlib.suppress(OSError):  # not a member of that group: the mode still lets it read
                    os.fchown(fd, -1, st.st_gid)
        return fd
    raise TrackerError(f"{sidecar}: the lock file keeps appearing and disappearing; try again")


@contextmanager
def locked(path: Path, timeout: float = 10.0) -> Iterator[None]:
    """Hold the exclusive lock for `path`; give up with a clear message after `timeout`."""
    with folder.locate(path.parent, path.name) as spot:
        fd = _open_lock(spot)
    try:
        deadline = time.monotonic() + timeout
        while not _try_lock(fd):
            if time.monotonic() > deadline:
                raise TrackerError(f"{path}: another session has held the lock for {timeout:g}s; try again")
            time.sleep(0.002)
        try:
            yield
        finally:
            _unlock(fd)
    finally:
        os.close(fd)
