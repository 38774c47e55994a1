"""The sidecar lock: `NAME.toml.lock` beside the save, held with flock while changing it.

The lock file is never deleted (deleting it would let two writers hold locks on two
different inodes); it is created group-writable like the save it guards.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tracker.engine.errors import TrackerError


def lock_path(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


@contextmanager
def locked(path: Path, timeout: float = 10.0) -> Iterator[None]:
    """Hold the exclusive lock for `path`; give up with a clear message after `timeout`."""
    sidecar = lock_path(path)
    try:
        fd = os.open(sidecar, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError as exc:
        raise TrackerError(f"{sidecar}: cannot open the lock file: {exc.strerror}") from None
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise TrackerError(f"{path}: another session has held the lock for {timeout:g}s; try again") from None
                time.sleep(0.005)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
