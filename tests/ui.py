"""Driving the app in Pilot tests: keys as a terminal sends them, and one wait.

Every wait here waits for a condition, with one generous deadline (`DEADLINE`), never a
fixed time: the suite must pass on a busy two-core machine. `settle` is the condition
"everything typed so far has had its effect": no key held by the app's key hold
(tracker/ui/guard.py), no message queued on the app or anywhere on its top screen, no
worker running (the declare form's chance, the start screen's list), no layout or repaint
pending on the top screen (asked of Textual in its one place:
tracker.ui.textual_private.drawing_pending), and every change written to disk by the
write-behind store, on three checks in a row.

`press` posts its keys together, as one read from a terminal over SSH (the app's key
hold makes a burst land where slow typing would), then settles; it is also quicker than
Pilot's own `press`, which waits for the process to idle after every key.
"""

from __future__ import annotations

import asyncio
import unicodedata
from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult

# Textual's own key naming, as Pilot.press uses it: one event per key, named exactly as
# the terminal driver names it (",": "comma"), so bindings and inputs see what they would.
from textual.keys import REPLACED_KEYS

from tracker.ui.settings import character_key
from tracker.ui.guard import busy, screen_mounted
from tracker.ui.textual_private import drawing_pending

DEADLINE = 30.0
"""Seconds any one wait may take before the test fails naming what never happened."""


# The character each printable key types, by its name before Textual shortens it
# ("plus_sign", not "plus"): the reverse of tracker.ui.settings.character_key.
TYPED = {REPLACED_KEYS.get(character_key(chr(c)), character_key(chr(c))): chr(c) for c in range(32, 127)}


def key_event(key: str) -> events.Key:
    """The event a terminal's driver posts for `key` (a name such as "ctrl+s", or one character)."""
    if len(key) == 1 and not key.isalnum():
        key = character_key(key)
    original = REPLACED_KEYS.get(key, key)
    char = TYPED.get(original)
    if char is None:
        try:
            char = unicodedata.lookup(original)  # a control key's alias: "escape", "tab"
        except KeyError:
            char = key if len(key) == 1 else None
    return events.Key(key, char)


def post_keys(app: Any, keys: list[str] | tuple[str, ...]) -> None:
    """Post every key at once, without waiting (one read from a terminal)."""
    for key in keys:
        event = key_event(key)
        event.set_sender(app)
        app.post_message(event)


CONTROL_KEYS = {"\r": "enter", "\t": "tab", "\x1b": "escape", "\x15": "ctrl+u", "\x7f": "backspace"}


def burst(app: Any, text: str) -> None:
    """Post the keys of `text` as a terminal writes them ("\r" is Enter, "\x1b" Esc) at
    once, without waiting; `settle` after it."""
    post_keys(app, [CONTROL_KEYS.get(ch, ch) for ch in text])


def quiet(app: Any) -> bool:
    """Nothing the user typed is still on its way: see the module docstring."""
    if not app.is_running:
        return True  # it has quit: nothing more will happen
    try:
        hold = app.key_hold
        if hold.holding or busy(app) or not screen_mounted(app.screen):
            return False
        if any(worker.is_running for worker in app.workers):
            return False
        if drawing_pending(app.screen):
            return False
        return not getattr(app, "unsaved", False)
    except Exception:  # between screens: nothing to look at yet
        return False


async def settle(pilot: Any, timeout: float = DEADLINE) -> None:
    """Until `quiet` holds on three checks in a row; fail naming what was still going on."""
    app = pilot.app
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    calm = 0
    while calm < 3:
        if loop.time() > deadline:
            raise AssertionError(f"the app never settled: held keys {len(app.key_hold.keys)}, last keys {list(app.key_hold.trace)[-5:]}, errors {getattr(app, 'errors', [])}")
        await asyncio.sleep(0.005)
        calm = calm + 1 if quiet(app) else 0


async def press(pilot: Any, *keys: str) -> None:
    """Keys typed in one burst (names such as "ctrl+s", or single characters), then settle."""
    post_keys(pilot.app, keys)
    await settle(pilot)


async def type_text(pilot: Any, text: str) -> None:
    """`text` as a terminal writes it, in one burst (see `burst`), then settle."""
    burst(pilot.app, text)
    await settle(pilot)


async def wait_for(pilot: Any, condition: Callable[[], bool], what: str, timeout: float = DEADLINE) -> None:
    """Until `condition` holds, the app running meanwhile; fail naming `what` never happened."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if not pilot.app.is_running:  # it stopped (a bug it could not handle): nothing more will happen
            raise AssertionError(f"the app stopped before: {what}")
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for: {what}")
        await pilot.pause(0.02)


class ScreenApp(App[None]):
    """A bare app showing one screen, for the screens' own tests: once the screen closes,
    `closed` is true and `result` is what it returned."""

    def __init__(self, screen: Any) -> None:
        super().__init__()
        self.shown = screen
        self.closed = False
        self.result: Any = None

    def on_mount(self) -> None:
        self.push_screen(self.shown, self._screen_closed)

    def _screen_closed(self, result: Any) -> None:
        self.result, self.closed = result, True


class PaneApp(App[None]):
    """A bare app showing one pane of the encounter screen (a `LivePane`) at `width` x
    `height` cells, for the panes' own tests: what the pane draws, without the screen."""

    def __init__(self, pane: Any, width: int, height: int) -> None:
        super().__init__()
        self.pane = pane
        pane.styles.width, pane.styles.height = width, height

    def compose(self) -> ComposeResult:
        yield self.pane


async def screen_drawn(pilot: Any, timeout: float = DEADLINE) -> None:
    """Until the screen has nothing left to draw, three checks in a row (any app)."""
    for _ in range(3):
        await wait_for(pilot, lambda: not drawing_pending(pilot.app.screen), "the screen drawn", timeout)
        await pilot.pause()


async def drawn(pilot: Any, pane: Any) -> Text:
    """The text `pane` shows once it has drawn itself (its `content`)."""
    await wait_for(pilot, lambda: isinstance(pane.content, Text) and bool(pane.content.plain), "the pane drawn")
    return pane.content
