"""A campaign at `tracker serve --campaign NAME`: the table is the campaign's fight.

The server holds the campaign as last read (`ServedCampaign`) and reads it again when its
file changes: a fight started or ended from the command line (`tracker new NEXT
--campaign NAME`, `tracker campaign end`), from the GM's app, or by another GM's
server. Nothing tells the server of a write by another process, so the file is watched:
with inotify on Linux (the saves folder, its events filtered to the campaign's file
name: a change is seen as it is written, with no interval), else by its size and time
every `POLL` seconds. The GM's app nudges it too: a move of the table reads the campaign
first.

What the table does with it, and what a player's key means there:
docs/decisions/0050-serve-campaign.md
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import ctypes.util
import logging
import os
import struct
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tracker.engine import TrackerError

if TYPE_CHECKING:
    from tracker.persistence.campaign import Campaign

log = logging.getLogger("tracker.serve")

POLL = 1.0  # seconds between two looks at the file where inotify is missing

# <sys/inotify.h>
_IN_MODIFY, _IN_ATTRIB, _IN_CLOSE_WRITE, _IN_MOVED_FROM, _IN_MOVED_TO = 0x2, 0x4, 0x8, 0x40, 0x80
_IN_CREATE, _IN_DELETE, _IN_Q_OVERFLOW = 0x100, 0x200, 0x4000
_IN_MASK = _IN_MODIFY | _IN_ATTRIB | _IN_CLOSE_WRITE | _IN_MOVED_FROM | _IN_MOVED_TO | _IN_CREATE | _IN_DELETE
_EVENT = struct.Struct("iIII")  # wd, mask, cookie, len; then the name, NUL-padded


def campaign_label(file_name: str) -> str:
    """A campaign by its file's name, as a fight's `setup.campaign` gives it (`road`)."""
    from tracker.persistence.campaign_file import SUFFIX

    return file_name.removesuffix(SUFFIX)


@dataclass
class ServedCampaign:
    """The campaign the table serves, as last read from its file."""

    path: Path
    campaign: "Campaign"
    revision: int = -1
    table: str = ""  # the fight file the campaign last put the table on ("" : none yet)

    @classmethod
    def open(cls, path: Path) -> "ServedCampaign":
        """Read it (raises TrackerError naming the file)."""
        from tracker.persistence.campaign_file import CampaignFile

        store = CampaignFile(path)
        campaign = store.load()
        current = campaign.current_fight()
        return cls(path, campaign, store.revision, current.file if current is not None else "")

    @property
    def name(self) -> str:
        return self.campaign.name

    def read(self) -> bool:
        """Read the file again (blocking: run it off the event loop); whether it changed.
        A file that no longer loads is logged and the last good state kept."""
        from tracker.persistence.campaign_file import CampaignFile

        store = CampaignFile(self.path)
        try:
            campaign = store.load()
        except TrackerError as exc:
            log.warning("the campaign %s cannot be read; the table stays as it is: %s", self.path, exc)
            return False
        if store.revision == self.revision and len(campaign.events) == len(self.campaign.events):
            return False
        self.campaign, self.revision = campaign, store.revision
        return True

    def moved_on(self) -> "str | None":
        """The campaign's current fight (the one under way, else the latest), if it is not
        where the campaign last put the table: a fight started, or its start taken back
        ("" : no fight left). None if it is still the same."""
        current = self.campaign.current_fight()
        file = current.file if current is not None else ""
        if file == self.table:
            return None
        self.table = file
        return file

    def refusal(self, fight: Path, names: str) -> str:
        """Why `fight` (whose file names the campaign `names`, "" for none) may not be the
        table's, in words naming it; "" if it is one of this campaign's fights."""
        label = campaign_label(names)
        if not names:
            return f"{fight.name} is a fight of its own, not of the campaign {self.name}"
        if names != self.path.name:
            return f"{fight.name} is a fight of the campaign {label}, not of {self.name}"
        if not any(f.file == fight.name for f in self.campaign.fights):
            listed = ", ".join(f.file for f in self.campaign.fights) or "none yet"
            return f"{fight.name} is not among the fights of the campaign {self.name} (its fights: {listed})"
        return ""


class FileWatch:
    """Calls `changed` on the event loop when `path` may have changed."""

    def __init__(self, path: Path, changed: Callable[[], None]) -> None:
        self.path = path
        self.changed = changed
        self._fd = -1
        self._poller: asyncio.Task[None] | None = None
        self._name = os.fsencode(path.name)

    def start(self) -> str:
        """Begin watching; how ("inotify" or "polling")."""
        loop = asyncio.get_running_loop()
        fd = _inotify(self.path.parent) if sys.platform.startswith("linux") else -1
        if fd >= 0:
            self._fd = fd
            loop.add_reader(fd, self._readable)
            return "inotify"
        self._poller = loop.create_task(self._poll())
        return "polling"

    def _readable(self) -> None:
        try:
            data = os.read(self._fd, 64 * 1024)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as exc:
            log.warning("%s: cannot watch any more (%s); looking every %gs instead", self.path, exc, POLL)
            self._close_fd()
            self._poller = asyncio.get_running_loop().create_task(self._poll())
            return
        if any(mask & _IN_Q_OVERFLOW or name == self._name for mask, name in _events(data)):
            self.changed()

    async def _poll(self) -> None:
        seen = await asyncio.to_thread(_stamp, self.path)
        while True:
            await asyncio.sleep(POLL)
            now = await asyncio.to_thread(_stamp, self.path)
            if now != seen:
                seen = now
                self.changed()

    def _close_fd(self) -> None:
        if self._fd >= 0:
            with contextlib.suppress(ValueError, OSError, RuntimeError):
                asyncio.get_running_loop().remove_reader(self._fd)
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = -1

    def stop(self) -> None:
        self._close_fd()
        if self._poller is not None:
            self._poller.cancel()


def _stamp(path: Path) -> tuple[int, ...]:
    try:
        st = os.stat(path)
    except OSError:
        return ()
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def _inotify(folder: Path) -> int:
    """An inotify descriptor watching `folder` (non-blocking, closed on exec), or -1."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        fd = int(libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC))
    except (OSError, AttributeError):
        return -1
    if fd < 0:
        return -1
    if int(libc.inotify_add_watch(fd, os.fsencode(folder), _IN_MASK)) < 0:
        os.close(fd)
        return -1
    return fd


def _events(data: bytes) -> list[tuple[int, bytes]]:
    """(mask, file name) of each inotify event in `data`."""
    found = []
    offset = 0
    while offset + _EVENT.size <= len(data):
        _wd, mask, _cookie, length = _EVENT.unpack_from(data, offset)
        start = offset + _EVENT.size
        found.append((mask, data[start : start + length].rstrip(b"\0")))
        offset = start + length
    return found
