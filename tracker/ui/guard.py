"""Nothing ends the app but quitting: the guard and the key hold.

Guard. Textual ends the app on any exception raised in a message handler (and stops
that widget's message loop first). The app and its screens are guarded (`protect`: the
app as it is made, every screen as it is pushed), which turns an exception in a handler
into a notification naming what failed
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
screen is not set up (see `KeyHold._ready`). So a burst
lands where slow typing would have put it. A key is never held longer than `MAX_HOLD`
seconds after the previous one (a busy or unfocused screen still gets its keys).

Pastes and long bursts. A paste the terminal brackets (Textual turns bracketed paste on)
arrives as one Paste event: it waits in the hold like a key, so it lands after the keys
typed before it, and reaches the field whole, however long. Keys are different: at most
`MAX_HELD` (512) wait. A burst of keys beyond that (a paste the terminal did not bracket,
a stuck key) is refused whole: the keys still held are let go, the rest of the burst
(keys arriving less than `BURST_GAP` seconds apart) too, and one notification says how
many keys were not used. Nothing of it is typed half-way: the final Enter of a long
paste never commits the part that got through, and no tail turns up in the next field.

Escape then a key. A terminal sends Esc as the single byte ESC, and alt+KEY as ESC
followed by the key's byte; Textual can only tell them apart by timing, so an Esc
pressed just before another key, or arriving with it in one read (over SSH, a GM
pressing Esc then `a` quickly), is parsed as alt+a. The app binds no alt keys, so an
alt+KEY that nothing on the screen binds (`Screen.active_bindings`, which includes a
key a user's config binds) is taken as the two keys the GM pressed: escape, then KEY
(`split_escape`), both handed on through the key hold so the second waits for what the
first does (a form closing). A real alt binding, if one is ever made (a user's config
may bind one), keeps its key. Textual's parser marks only letters and digits as alt:
ESC then `?`, `:` or Enter came out as the bare key, the Esc lost (the form stayed
open and `:` was typed into it). `EscapeParser` marks those alt too (alt+question_mark,
alt+enter), so one rule covers every key; `install_key_readers` makes Textual's
terminal and web drivers use it (Textual is pinned to 8.2, whose drivers name the
parser class at module level). ESC then `[` or `O` starts a terminal sequence, and
ESC then Tab is Textual's own shift+tab: those pairs are not recovered.

Bytes that are not UTF-8. Textual's drivers decoded input strictly, so one stray byte
from a client ended the app; they now read it as U+FFFD (`lenient_decoder`), a key
nothing binds.

What this needs of Textual's internals (the parser, the decoder, the message dispatch
and queue) is in tracker.ui.textual_private, with its tests and upstream issues.
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
from tracker.ui.textual_private import ALT, EscapeParser, guard_messages, install_key_readers, lenient_decoder, queued

__all__ = ["EscapeParser", "install_key_readers", "lenient_decoder"]  # what tests and the app take from here

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
    """A field has the focus: where typed keys go once the screen is set up."""
    focused = screen.focused
    return focused is not None and not isinstance(focused, ScrollableContainer)


def busy(app: "App[Any]") -> bool:
    """A message is queued on the app or anywhere on its top screen. (A message being
    handled is out of the queue, but handlers here do not yield to the loop midway, so
    it is never seen half-done.)"""
    if queued(app):
        return True
    screen = app.screen
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

    def wants(self, event: events.Key | events.Paste) -> bool:
        """Hold `event` if keys are held, or the app is busy, or the top screen not ready;
        take it (and let it go) when it belongs to a burst refused for its length."""
        now = monotonic()
        if self.refused and now - self._refused_at < BURST_GAP and isinstance(event, events.Key):
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
        rest of the burst; the GM is told once (see the module docstring)."""
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
        the field the screen asks for. So a field with the focus is ready at once; no
        focus, or a scroll container with it, only once that has lasted `SETTLE`
        seconds (a help page, a question, the encounter screen)."""
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
