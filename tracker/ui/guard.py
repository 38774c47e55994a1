"""Nothing ends the app but quitting: the guard and the key hold.

Guard. Textual ends the app on any exception raised in a message handler (and stops
that widget's message loop first). The app and its screens dispatch through
`guarded_dispatch` (the app by its own override, every screen through `protect` as it is
pushed), which turns an exception into a notification naming what failed
(`describe`), so the GM keeps the table and the file keeps the last saved change. A
TrackerError is a refusal with a message of its own; anything else is a bug, shown as
"internal error: ..." and kept in `app.errors` for the tests (which assert it stays
empty), never as a traceback on the players' screens.

Key hold. Keys typed in a burst (as they arrive over SSH) reach the app together, and
Textual hands each on (to the focused widget, or the screen, whence a key nobody used
comes back to the app for its binding) before the previous one has had its effect: `:`
then `note x` loses the note (the letters reach the encounter screen before the `:`
binding has pushed the command line), `Seraph`, Tab, `PC` types "SeraphPC" (the letters
after Tab reach the name field before Tab comes back to move the focus), and keys just
after `a` go to a form not yet mounted. `KeyHold` hands keys on one at a time: a key
waits while any message is still being handled on the app or its top screen (the
previous key, or what it set off: a Submitted, a pushed screen), and while the top
screen is not ready (mounted, and focused if it has anything to focus). So a burst
lands where slow typing would have put it. A key is never held longer than `MAX_HOLD`
seconds after the previous one (a busy or unfocused screen still gets its keys).
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

MAX_HOLD = 0.5
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


def _unfinished(pump: Any) -> int:
    # Messages waiting in the pump's queue. (A message being handled is out of the queue,
    # but handlers here do not yield to the loop midway, so it is never seen half-done.)
    return pump._message_queue.qsize()


def busy(app: "App[Any]", in_app: int = 0) -> bool:
    """A message is queued or being handled on the app or anywhere on its top screen."""
    if _unfinished(app) > in_app:
        return True
    screen = app.screen
    return any(_unfinished(node) for node in (screen, *screen.walk_children()))


class KeyHold:
    """Keys that arrived while the top screen was not ready, in order."""

    def __init__(self, app: "App[Any]", forward: Callable[[events.Key], Awaitable[None]]) -> None:
        self.app = app
        self.forward = forward
        self.keys: list[events.Key] = []
        self.since = 0.0
        self._releasing = False

    def wants(self, event: events.Key) -> bool:
        """Hold `event` if keys are held, or the app is busy, or the top screen not ready."""
        if self.keys or not self._ready():
            if not self.keys:
                self.since = monotonic()
                self.app.set_timer(CHECK_EVERY, self.release)
            self.keys.append(event)
            return True
        return False

    def _ready(self, in_app: int = 0) -> bool:
        try:
            return screen_ready(self.app.screen) and not busy(self.app, in_app)
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
