"""Crash-safe replacement of a file: a reader sees the old bytes or the new, never a mix.

Used only for whole writes (creating a save, migrating a first-format one); changes are
appended (see store). A writer killed between creating its temporary file and renaming
it leaves `.NAME.toml.XXXX.tmp` behind; the next writer of that save, holding the lock
(so no live writer can be using one), removes them (`remove_orphans`).
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        # Some filesystems refuse fsync on a directory; the rename is still atomic.
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write(path: Path, data: bytes, default_mode: int | None = None) -> None:
    """Write to a temp file in the same folder, fsync, rename over `path`, fsync the folder.

    The file keeps its permissions (a group-shared saves folder stays shared) rather than
    the 0600 a temp file is created with; a new file gets the umask's default.
    """
    path = Path(os.path.realpath(path))  # a symbolic link is written through to its target
    folder = path.parent
    gid = None
    try:
        st = os.stat(path)
        mode, gid = stat.S_IMODE(st.st_mode), st.st_gid
    except FileNotFoundError:
        if default_mode is None:
            umask = os.umask(0)
            os.umask(umask)
            default_mode = 0o666 & ~umask
        mode = default_mode
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if gid is not None and os.stat(tmp_name).st_gid != gid:
            with contextlib.suppress(OSError):  # keep the save's group where we may
                os.chown(tmp_name, -1, gid)
        os.chmod(tmp_name, mode)
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):  # never created, or already renamed
            os.unlink(tmp_name)
        raise
    _fsync_dir(folder)


def remove_orphans(path: Path) -> int:
    """Remove temporary files a crashed writer of `path` left; call with its lock held."""
    path = Path(os.path.realpath(path))
    prefix, removed = f".{path.name}.", 0
    try:
        entries = list(os.scandir(path.parent))
    except OSError:
        return 0
    for entry in entries:
        name = entry.name
        if name.startswith(prefix) and name.endswith(".tmp") and len(name) > len(prefix) + 4:
            with contextlib.suppress(OSError):
                if entry.is_file(follow_symlinks=False):
                    os.unlink(entry.path)
                    removed += 1
    return removed
