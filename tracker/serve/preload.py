"""The app and the table's fight loaded once in the server, inherited by every forked app.

`preload` imports the app and everything it may show before any fork, then freezes the
collector over it, so the children's collectors leave those objects (and their pages)
alone. `Preloaded` is the table's fight loaded once and kept current (a worker thread
folds in the GM's changes); a forked app starts with it already in memory, shared with
its siblings, instead of reading and replaying the file, then follows the file as any
viewer does. While a refresh is half done, a new app loads the file itself (a fork must
not copy a half-updated state). When the GM moves the table, the server loads the new
fight the same way and lets the old one go (`reload_frozen`).
"""

from __future__ import annotations

import contextlib
import gc
import threading
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tracker.play.live import Live
    from tracker.ui.app import TrackerApp


def preload() -> None:
    """Import the app and everything it may show, once, before any fork (`--spawn fork`);
    then freeze what is there so the children's collectors leave it alone."""
    import importlib
    import pkgutil

    import rulesets
    import tracker.serve.seat  # noqa: F401
    import tracker.ui.app  # noqa: F401
    import tracker.ui.screens

    for package in (tracker.ui.screens, rulesets):
        for info in pkgutil.iter_modules(package.__path__, package.__name__ + "."):
            with contextlib.suppress(Exception):  # a module that fails here fails in the app, with a message
                importlib.import_module(info.name)
    gc.collect()
    gc.freeze()


def release_free_memory() -> None:
    """Give back to the system the memory that loading and the warm-up freed (glibc's
    malloc_trim). Left resident, those free pages would be inherited by every app and
    counted in each one's share of memory; trimmed, they cost nothing. Elsewhere than
    glibc this does nothing."""
    try:
        import ctypes
        import ctypes.util

        name = ctypes.util.find_library("c")
        if name:
            trim = getattr(ctypes.CDLL(name), "malloc_trim", None)
            if trim is not None:
                trim(0)
    except (OSError, AttributeError, ValueError):
        pass  # no C library to ask: the memory stays resident, and only the figure is worse


def reload_frozen() -> None:
    """After the server let a fight go: collect what it left (frozen objects are never
    collected while frozen), give the memory back, and freeze what stays."""
    gc.unfreeze()
    gc.collect()
    release_free_memory()
    gc.freeze()


class Preloaded:
    """The table's fight loaded once in the server, kept current, inherited by every fork."""

    def __init__(self, path: Path, saves: Path) -> None:
        from tracker.play.live import Live

        self.path = path
        self.saves = saves
        self.live = Live.open(path, viewer=True)
        self.name = self.live.encounter.setup.name
        self.busy = threading.Lock()  # held while the worker thread folds in a change

    def refresh(self) -> None:
        with self.busy:
            self.live.poll()

    def changed(self) -> bool:
        return self.live.store.file.changed_on_disk()

    def usable(self, fight: Path) -> "Live | None":
        """The loaded fight for a new app on `fight`, or None (another fight, or a refresh
        half done: the app opens the file itself)."""
        if fight != self.path or self.busy.locked():
            return None
        return self.live

    def viewer_app(self, notice: str) -> "TrackerApp":
        """A viewer's app on the inherited fight, in a process shared by several viewers
        (viewer_host): one fight, one follower, for all of them."""
        from tracker.serve.keys import VIEWER
        from tracker.serve.seat import SeatInfo, build_app

        info = SeatInfo(VIEWER, fight=str(self.path), fight_name=self.name, notice=notice, saves=str(self.saves))
        return build_app(info, self.live)
