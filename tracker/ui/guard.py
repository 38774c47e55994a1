"""Nothing ends the app but quitting: the guard and the key hold.

Guard. Textual ends the app on any exception raised in a message handler (and stops
that widget's message loop first). The app and its screens dispatch through
`guarded_dispatch` (the app by its own override, every screen through `protect` as it is
pushed), which turns an exception into a notification naming what failed
(`describe`), so the GM keeps the table and the file keeps the last saved change. A
TrackerError is a refusal with a message of its own; anything else is a bug, shown as
"internal error: ..." and kept in `app.errors` for the tests (which assert it stays
empty), never as a traceback on the players' screens.

Key hold. A key typed in a burst (as keys arrive over SSH) can reach the app after a
key that pushed a screen but before that screen is mounted and has focused its first
field: Textual hands such a key to the bare screen, which drops it. `KeyHold` keeps
keys while the top screen is not ready and hands them on, in order, once it is, so a
burst lands where slow typing would have put it. A screen is ready when it is mounted
and has either focused a widget or has nothing to focus; keys are never held longer
than `MAX_HOLD` seconds (a screen that never focuses still gets them).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from time import monotonic
from typing import TYPE_CHECKING, Any

from textual import events

from tracker.engine import TrackerError

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen

MAX_HOLD = 1.0
CHECK_EVERY = 0.01


def describe(error: BaseException) -> str:
    """The message a refusal or a bug becomes (the text is shown as plain text)."""
    if isinstance(error, TrackerError):
        return str(error)
    detail = str(error) or type(error).__name__
    return f"internal error: {type(error).__name__}: {detail} (the app goes on; the last saved change is on disk)"


def report(app: "App[Any]", error: BaseException) -> None:
    """Show `error` as a notification; bugs are also kept in `app.errors`."""
    if not isinstance(error, TrackerError):
        errors = getattr(app, "errors", None)
        if isinstance(errors, list):
            errors.append(error)
    try:
        app.notify(describe(error), severity="error", timeout=8, markup=False)
    except Exception:  # the app is closing: nothing left to show it on
        pass


async def guarded_dispatch(pump: Any, dispatch: Callable[[Any], Awaitable[Any]], message: Any) -> Any:
    try:
        return await dispatch(message)
    except (asyncio.CancelledError, KeyboardInterrupt, SystemExit):
        raise
    except Exception as error:
        report(pump.app, error)
        return None


def protect(pump: Any) -> Any:
    """Make exceptions in `pump`'s handlers (a screen's) messages; returns `pump`.

    Done per instance, as screens are pushed, so every screen is covered, whoever wrote it."""
    if hasattr(pump, "_dispatch_message") and not getattr(pump, "_tracker_guarded", False):
        dispatch = pump._dispatch_message

        async def guarded(message: Any) -> Any:
            return await guarded_dispatch(pump, dispatch, message)

        pump._dispatch_message = guarded
        pump._tracker_guarded = True
    return pump


def screen_ready(screen: "Screen[Any]") -> bool:
    if not screen.is_mounted:
        return False
    if screen.focused is not None:
        return True
    try:
        return not screen.focus_chain
    except Exception:
        return True


class KeyHold:
    """Keys that arrived while the top screen was not ready, in order."""

    def __init__(self, app: "App[Any]", forward: Callable[[events.Key], Awaitable[None]]) -> None:
        self.app = app
        self.forward = forward
        self.keys: list[events.Key] = []
        self.since = 0.0
        self._releasing = False

    def wants(self, event: events.Key) -> bool:
        """Hold `event` if keys are already held or the top screen is not ready."""
        if self.keys or not self._ready():
            if not self.keys:
                self.since = monotonic()
                self.app.set_timer(CHECK_EVERY, self.release)
            self.keys.append(event)
            return True
        return False

    def _ready(self) -> bool:
        try:
            return screen_ready(self.app.screen)
        except Exception:
            return True

    async def release(self) -> None:
        if self._releasing:
            return
        self._releasing = True
        try:
            while self.keys:
                if not self._ready() and monotonic() - self.since < MAX_HOLD:
                    self.app.set_timer(CHECK_EVERY, self.release)
                    return
                event = self.keys.pop(0)
                self.since = monotonic()
                await self.forward(event)
        finally:
            self._releasing = False
