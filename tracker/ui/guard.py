"""Nothing ends the app but quitting: the guard and the key hold.

Guard. Textual ends the app on any exception raised in a message handler (and stops
that widget's message loop first). The app and its screens are guarded (`protect`: the
app as it is made, every screen as it is pushed), which turns an exception in a handler
into a notification naming what failed
(`describe`), so the GM keeps the table and the file keeps the last saved change. A
TrackerError is a refusal with a message of its own; anything else is a bug, shown as
"internal error: ..." and kept in `app.errors` for the tests (which assert it stays
empty), never as a traceback on the players' screens.

What this needs of Textual's internals (the parser, the decoder, the message dispatch
and queue) is in tracker.ui.textual_private, with its tests and upstream issues.

Decisions: docs/decisions/0005-key-hold.md, docs/decisions/0004-escape-then-key.md
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable
from time import monotonic
from typing import TYPE_CHECKING, Any

from textual import events
from textual.widget import Widget
from textual.containers import ScrollableContainer

from tracker.engine import TrackerError
from tracker.ui.textual_private import ALT, guard_messages, queued

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen

# Seconds a held key may wait for the screen to be ready. A safety net for a screen that
# never settles, so it is generous: on a shared host with twenty viewers the GM's process
# may get a fraction of a core, and opening a form then takes seconds, not milliseconds
# (at 1 s, keys of a burst reached the screen they were typed past with eight busy
# processes on two cores).
MAX_HOLD = 3.0
SETTLE = 0.1
MAX_HELD = 512
BURST_GAP = 0.3  # seconds between keys of one burst: a refused burst ends after such a pause
CHECK_EVERY = 0.005


def error_line(error: BaseException) -> str:
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
        app.notify(error_line(error), severity="error", timeout=8, markup=False)
    except Exception:  # the app is closing: nothing left to show it on
        pass


def protect(pump: Any) -> Any:
    """Make exceptions in `pump`'s handlers (the app's, a screen's) messages; returns
    `pump`. Done per instance, the app as it is made and each screen as it is pushed, so
    every screen is covered, whoever wrote it."""
    from textual.app import App

    app = pump if isinstance(pump, App) else None  # the app reports on itself, whichever is active

    return guard_messages(pump, lambda error: report(app or pump.app, error))


def split_escape(event: events.Key, bound: "Callable[[str], bool]") -> list[events.Key] | None:
    """alt+KEY that nothing binds -> [escape, KEY], as typed; None when it stays as it is.

    `bound(key)` says whether the screen binds a key (then alt+KEY is a real alt key)."""
    key = event.key
    if not key.startswith(ALT) or len(key) == len(ALT) or bound(key):
        return None
    rest = key[len(ALT) :]
    char = event.character
    if rest.startswith("shift+") and char is not None and len(char) == 1 and char.isupper():
        rest = char  # Esc then "A": the plain key is "A", not shift+a
    return [events.Key("escape", "\x1b"), events.Key(rest, char)]


def screen_mounted(screen: "Screen[Any]") -> bool:
    return screen.is_mounted and all(widget.is_mounted for widget in screen.walk_children(Widget))


def settled_focus(screen: "Screen[Any]") -> bool:
    """A widget that is not a scroll view has the focus (a button, a checkbox): where
    typed keys go once the screen is set up. Textual's text fields, lists and tables are
    scroll views too, so a focused one counts as not settled yet (see `KeyHold._ready`)."""
    focused = screen.focused
    return focused is not None and not isinstance(focused, ScrollableContainer)


def busy(app: "App[Any]") -> bool:
    """A message is queued on the app or anywhere on its top screen, or the top screen's
    work is on a thread (`working`). (A message being handled is out of the queue, but
    handlers here do not yield to the loop midway, so it is never seen half-done.)"""
    if queued(app):
        return True
    screen = app.screen
    if getattr(screen, "working", False):
        return True  # its file work is on a thread (tracker.ui.background): keys wait for it
    return any(queued(node) for node in (screen, *screen.walk_children()))


class KeyHold:
    """Keys that arrived while the top screen was not ready, in order."""

    def __init__(self, app: "App[Any]", forward: Callable[[events.Key | events.Paste], Awaitable[None]]) -> None:
        self.app = app
        self.forward = forward
        self.keys: list[events.Key | events.Paste] = []
        # A burst refused for its length: how many of its keys were let go, and when the
        # last one arrived (the refusal lasts until the burst pauses).
        self.refused = 0
        self._refused_at = 0.0
        self.since = 0.0
        self._releasing = False
        self._calm = 0
        self._state: tuple[int, int] = (0, 0)
        self._state_since = 0.0
        # The last keys handed on, with the screen and focus they met (for bug reports).
        self.trace: deque[tuple[str, str, str]] = deque(maxlen=40)

    @property
    def holding(self) -> bool:
        """Keys are held, or being handed on to the screen now."""
        return bool(self.keys) or self._releasing

    @property
    def refusing(self) -> bool:
        """A burst refused for its length has not paused yet: a key now is refused too."""
        return bool(self.refused) and monotonic() - self._refused_at < BURST_GAP

    def wants(self, event: events.Key | events.Paste) -> bool:
        """Hold `event` if keys are held, or the app is busy, or the top screen not ready;
        take it (and let it go) when it belongs to a burst refused for its length."""
        now = monotonic()
        if self.refusing and isinstance(event, events.Key):
            self.refused += 1
            self._refused_at = now
            return True
        self.refused = 0
        if self.keys or not self._ready():
            if not self.keys:
                self.since = now
                self._check_soon()
            elif not self._releasing and now - self.since > MAX_HOLD:
                self._check_soon()  # never strand held keys
            if len(self.keys) < MAX_HELD or isinstance(event, events.Paste):
                self.keys.append(event)
            else:
                self._refuse(now)
            return True
        return False

    def _refuse(self, now: float) -> None:
        """A burst longer than `MAX_HELD` keys: none of what is still held is used, nor the
        rest of the burst; the GM is told once (docs/decisions/0005-key-hold.md)."""
        dropped = sum(isinstance(k, events.Key) for k in self.keys) + 1
        self.keys = [k for k in self.keys if isinstance(k, events.Paste)]
        self.refused, self._refused_at = dropped, now
        self.app.notify(
            f"more than the {MAX_HELD} keys the app holds arrived in one burst: the keys of it "
            "still waiting were not used (none will turn up later). Paste with your terminal's "
            "own paste (bracketed), or in smaller pieces.",
            severity="warning", timeout=8,
        )

    def hold(self, keys: list[events.Key]) -> None:
        """Keys to hand on in order, each after the previous one has had its effect."""
        if not self.keys:
            self.since = monotonic()
            self._check_soon()
        room = MAX_HELD - len(self.keys)
        self.keys.extend(keys[: max(room, 0)])

    def _check_soon(self) -> None:
        """Run `release` on the app's message loop in `CHECK_EVERY` seconds.

        Not `App.set_timer`: Textual's one-shot timer (8.2) skips late ticks, and its only
        tick counts as late when the process is held up for longer than the delay between
        the timer task's first two clock readings; the timer then ends without firing. On
        a loaded host that stranded held keys until the next key arrived (seen about once
        in 200 bursts with two busy processes beside the app). asyncio's own `call_later`
        never skips."""
        try:
            asyncio.get_running_loop().call_later(CHECK_EVERY, self._due)
        except RuntimeError:  # no running loop: the app is not running, nothing to release
            pass

    def _due(self) -> None:
        try:
            self.app.call_next(self.release)
        except Exception:  # the app has closed: nothing left to hand keys to
            pass

    def _ready(self) -> bool:
        """The top screen is set up and nothing is in flight.

        Textual first focuses the first focusable widget (often a dialog's scrolling
        body), or nothing while the dialog's fields are still being mounted, and then
        the field the screen asks for, and that first guess may be a text field of the
        form, not the one it asks for. So a focused button or checkbox is ready at once;
        no focus, or a scroll container (a dialog's body, and to Textual a text field or
        a list is one) with it, only once that has lasted `SETTLE` seconds (a form's
        field, a help page, a question, the encounter screen)."""
        try:
            screen = self.app.screen
            if not screen_mounted(screen) or busy(self.app):
                return False
            state = (id(screen), id(screen.focused))
            if state != self._state:
                self._state, self._state_since = state, monotonic()
            return settled_focus(screen) or monotonic() - self._state_since >= SETTLE
        except Exception:
            return True

    async def release(self) -> None:
        if self._releasing:
            return
        self._releasing = True
        try:
            while self.keys:
                # Calm on two checks in a row: a message posted by the last one (a Focus,
                # a focus callback) is handled before the next key goes out.
                self._calm = self._calm + 1 if self._ready() else 0
                if self._calm < 2 and monotonic() - self.since < MAX_HOLD:
                    self._check_soon()
                    return
                event = self.keys.pop(0)
                self.since = monotonic()
                self._calm = 0
                try:
                    self.trace.append((getattr(event, "key", "paste"), type(self.app.screen).__name__, type(self.app.screen.focused).__name__))
                except Exception:  # between screens: no screen to name
                    self.trace.append((getattr(event, "key", "paste"), "", ""))
                try:
                    await self.forward(event)
                except (asyncio.CancelledError, KeyboardInterrupt, SystemExit):
                    raise
                except Exception as error:  # a bug in what the key set off: the keys after it still go
                    report(self.app, error)
        finally:
            self._releasing = False
