"""The sidecar lock: `NAME.toml.lock` beside the save, held with flock while changing it.

Only accounts that may write the save take its lock, and only they can open the lock
file: flock works on any descriptor, a read-only one too, so an account that could open
the lock could hold it and keep every writer waiting. Readers (viewers, `show`, the
followers) never take it.

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
# Replacing a lock file that others may open (below) needs descriptor-relative calls,
# modes and flock: POSIX.
_POSIX = folder.AT and hasattr(os, "fchmod")

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

    _POSIX = False

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


def lock_mode(file_mode: int) -> int:
    """The lock file's permission bits for a file of `file_mode`: read and write for its
    owner, and for the group and others each only if they may write the file; never a
    setuid, setgid, sticky or execute bit."""
    return 0o600 | (0o060 if file_mode & 0o020 else 0) | (0o006 if file_mode & 0o002 else 0)


def new_file_mode() -> int:
    """The mode a new file gets (folder.replace: the umask's default)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


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


def _writable(save: Spot) -> None:
    """Refuse, before any lock file is made, an account that may not write the file."""
    try:
        os.close(folder.open_at(save, os.O_WRONLY))
    except FileNotFoundError:
        pass  # gone meanwhile: the caller finds out
    except OSError as exc:
        raise TrackerError(f"{save.path}: cannot be written: {exc.strerror}") from None


def _create(save: Spot, name: str, mode: int, gid: int | None) -> int:
    """A new lock file `name` beside the save, with `mode` and (where we may) group `gid`;
    FileExistsError if there is one. The group's bits are dropped where the group could
    not be set: a lock others cannot open is safe, one the wrong group can open is not."""
    fd = os.open(save.beside(name), os.O_WRONLY | os.O_CREAT | os.O_EXCL | _FLAGS, 0o600, dir_fd=save.fd_arg)
    with contextlib.suppress(OSError, AttributeError):  # Windows has neither fchmod nor groups
        if gid is not None and os.fstat(fd).st_gid != gid:
            with contextlib.suppress(OSError):  # not a member of that group
                os.fchown(fd, -1, gid)
            if os.fstat(fd).st_gid != gid:
                mode &= ~0o070
        os.fchmod(fd, mode)
    return fd


def _wanted(save: Spot) -> tuple[int, int | None, int | None]:
    """(mode, group, owner) the lock of the file at `save` should have; group and owner
    None for a file not made yet (a new file and its lock get the folder's defaults)."""
    st = save.lstat()
    if st is None or stat.S_ISLNK(st.st_mode):
        return lock_mode(new_file_mode()), None, None
    return lock_mode(stat.S_IMODE(st.st_mode)), st.st_gid, st.st_uid


def too_open(lock: os.stat_result, mode: int, gid: int | None, uid: int | None) -> bool:
    """Whether accounts that may not write the file could open its lock file `lock` (and
    so hold it), given the mode, group and owner the lock should have (`_wanted`)."""
    bits = stat.S_IMODE(lock.st_mode)
    if bits & 0o7111 or bits & 0o077 & ~mode:
        return True
    if gid is not None and bits & 0o070 and lock.st_gid != gid:
        return True  # another group may open it
    return uid is not None and lock.st_uid != uid and not mode & 0o066  # only the file's owner writes it


def _open_lock(save: Spot, create: bool) -> int:
    name = save.leaf + ".lock"
    sidecar = save.path.with_name(name)
    for _ in range(3):
        try:
            return _checked(os.open(save.beside(name), os.O_RDONLY | _FLAGS, dir_fd=save.fd_arg), sidecar)
        except FileNotFoundError:
            pass
        except PermissionError:
            _writable(save)  # says so if this account may not write the file
            raise TrackerError(
                f"{sidecar}: cannot open the lock file: permission denied (it is made for the accounts that may write {save.leaf}); "
                "if you may write it, the lock file was made by another account: when nobody is changing it, remove the lock file (it is made again)"
            ) from None
        except OSError as exc:
            raise _refuse(sidecar, exc, "open") from None
        found = save.lstat()
        if found is None:
            if not create:
                from tracker.persistence.checks import SaveError

                raise SaveError(f"{save.path}: no such file (moved or deleted?)")
        elif stat.S_ISREG(found.st_mode):
            _writable(save)  # (anything else at the name: the caller refuses it, naming what it is)
        mode, gid, _uid = _wanted(save)
        try:
            return _create(save, name, mode, gid)
        except FileExistsError:
            continue  # another session made it a moment ago
        except OSError as exc:
            raise _refuse(sidecar, exc, "create") from None
    raise TrackerError(f"{sidecar}: the lock file keeps appearing and disappearing; try again")


def _current(fd: int, save: Spot) -> bool:
    """Whether `fd` is still the lock file by its name (it may have been replaced or
    deleted while we waited for it: then the lock held is on a file nobody else uses)."""
    if not _POSIX:
        return True
    try:
        now = os.stat(save.leaf + ".lock", dir_fd=save.dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (now.st_dev, now.st_ino) == (held.st_dev, held.st_ino)


def _narrowed(fd: int, save: Spot) -> int:
    """The lock held on `fd`, on a lock file only the file's writers can open: one that
    others could open (made by an older version with the save's mode, planted, or left
    when the save's mode changed) is replaced, while held, by a fresh file they have
    never opened, so a descriptor they kept of the old one holds nothing anyone waits for.
    Returns the descriptor now held (the new one, or `fd`)."""
    if not _POSIX:
        return fd
    mode, gid, uid = _wanted(save)
    held = os.fstat(fd)
    if not too_open(held, mode, gid, uid):
        if gid is not None and held.st_gid != gid:
            mode &= ~0o070  # another group (the file's could not be given): no group bits, as `_create`
        if stat.S_IMODE(held.st_mode) != mode and held.st_uid == os.geteuid():
            with contextlib.suppress(OSError):
                os.fchmod(fd, mode)  # narrower than it should be: let the other writers in
        return fd
    name = f".{save.leaf}.lock.{os.urandom(4).hex()}.tmp"  # removed by remove_temporaries if we die here
    try:
        fresh = _create(save, name, mode, gid)
    except OSError:
        return fd  # cannot write the folder: keep the one we hold
    try:
        if not _try_lock(fresh):  # nobody else knows the name: cannot happen
            raise OSError(errno.EAGAIN, "the new lock file is held")
        os.replace(name, save.leaf + ".lock", src_dir_fd=save.dir_fd, dst_dir_fd=save.dir_fd)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(name, dir_fd=save.dir_fd)
        os.close(fresh)
        return fd
    _unlock(fd)
    os.close(fd)
    return fresh


def _held_too_long(sidecar: Path, save: Spot, path: Path, timeout: float) -> TrackerError:
    message = f"{path}: another session has held the lock for {timeout:g}s; try again"
    if _POSIX:
        with contextlib.suppress(OSError):
            st = os.stat(save.leaf + ".lock", dir_fd=save.dir_fd, follow_symlinks=False)
            if too_open(st, *_wanted(save)):
                message += (
                    f". Its lock file {sidecar.name} (mode {stat.S_IMODE(st.st_mode):04o}) can be opened by accounts that may"
                    " not write the save (made by an older version?), so one of them may be holding it: when nobody is"
                    " changing the fight, remove it (it is made again for the writers only)"
                )
    return TrackerError(message)


@contextmanager
def locked(path: Path, timeout: float = 10.0, *, create: bool = False) -> Iterator[None]:
    """Hold the exclusive lock for `path`; give up with a clear message after `timeout`.

    `create`: the file may not exist yet (it is about to be made); otherwise a missing
    file is refused before any lock file is made."""
    deadline = time.monotonic() + timeout
    with folder.locate(path.parent, path.name) as spot:
        fd = -1
        try:
            while True:
                fd = _open_lock(spot, create)
                while not _try_lock(fd):
                    if time.monotonic() > deadline:
                        raise _held_too_long(spot.path.with_name(spot.leaf + ".lock"), spot, path, timeout)
                    time.sleep(0.002)
                if _current(fd, spot):
                    break
                _unlock(fd)  # replaced or deleted while we waited: take the new one
                os.close(fd)
                fd = -1
            fd = _narrowed(fd, spot)
            try:
                yield
            finally:
                _unlock(fd)
        finally:
            if fd >= 0:
                os.close(fd)


def delete(path: Path, timeout: float = 10.0) -> None:
    """Delete the save (or library) `path` and its lock file, holding the lock so no
    change is half made. A link at `path` is removed itself: the file it leads to, and
    that file's lock, stay. The lock file goes only if it is a regular file (not a link).
    FileNotFoundError if there is nothing at `path`."""
    with folder.locate(path.parent, path.name, follow=False) as spot:
        st = spot.lstat()
        if st is None:
            raise FileNotFoundError(errno.ENOENT, "no such file", str(path))
        if stat.S_ISLNK(st.st_mode) or not stat.S_ISREG(st.st_mode):
            os.unlink(spot.beside(spot.leaf), dir_fd=spot.fd_arg)
            return
    later = False
    with contextlib.ExitStack() as hold:
        with contextlib.suppress(TrackerError):  # cannot take it (may not write the file, held 10 s): delete all the same
            hold.enter_context(locked(path, timeout))
        with folder.locate(path.parent, path.name, follow=False) as spot:
            os.unlink(spot.beside(spot.leaf), dir_fd=spot.fd_arg)
            try:
                _remove_lock_file(spot)
            except PermissionError:
                if _POSIX:
                    raise
                later = True  # Windows: a file held open cannot be deleted; once let go, it can
    if later:
        with contextlib.suppress(OSError), folder.locate(path.parent, path.name, follow=False) as spot:
            _remove_lock_file(spot)


def _remove_lock_file(save: Spot) -> None:
    """Remove the lock file beside `save` if it is a regular file (a link is left alone)."""
    name = save.leaf + ".lock"
    try:
        st = os.stat(save.beside(name), dir_fd=save.fd_arg, follow_symlinks=False)
    except FileNotFoundError:
        return
    if stat.S_ISREG(st.st_mode):
        os.unlink(save.beside(name), dir_fd=save.fd_arg)
