"""Crash-safe replacement of a file: a reader sees the old bytes or the new, never a mix."""

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
    folder = path.parent
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
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
        os.chmod(tmp_name, mode)
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):  # never created, or already renamed
            os.unlink(tmp_name)
        raise
    _fsync_dir(folder)
