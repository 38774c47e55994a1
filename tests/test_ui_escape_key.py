"""Esc pressed just before another key reaches the app as that key after Esc.

A terminal sends Esc as ESC and alt+KEY as ESC then KEY; read together (over SSH, or a
quick GM), Textual parses Esc then `?` as alt+question_mark. The app binds no alt keys,
so it takes such a key as escape then the key (tracker/ui/guard.py, `split_escape`).
Tested on the parser, through Pilot, and on a real pseudo-terminal at 80x24.
"""

from __future__ import annotations

import pytest

import os
import shutil
import sys
from pathlib import Path

from textual import events

from tracker.persistence.store import EncounterFile
from tracker.ui import guard
from tracker.ui.app import TrackerApp
from tracker.ui.screens.declare import DeclareScreen
from tracker.ui.screens.encounter import EncounterScreen
from tracker.ui.screens.help import HelpScreen
from tracker.ui.textual_private import EscapeParser, driver_of, install_key_readers

from tests.helpers import pty_session
from tests.test_ui_declare import SAVES, SIZE
from tests.ui import press, settle, wait_for

pytestmark = pytest.mark.ui


def parsed(data: str, parser_class: type = EscapeParser) -> list[events.Key]:
    parser = parser_class()
    keys = [e for e in parser.feed(data) if isinstance(e, events.Key)]
    keys += [e for e in parser.feed("") if isinstance(e, events.Key)]  # end of input
    return keys


def test_the_parser_reads_escape_then_a_key_as_alt() -> None:
    """One read holding ESC and `a`, `?` or Enter is alt+KEY to the app's parser (to
    Textual's own, ESC then `?` or Enter loses the Esc: tests/test_textual_private.py)."""
    assert [k.key for k in parsed("\x1ba")] == ["alt+a"]
    assert [k.key for k in parsed("\x1b?")] == ["alt+question_mark"]
    assert [k.key for k in parsed("\x1b\r")] == ["alt+enter"]
    assert [k.key for k in parsed("\x1b")] == ["escape"]
    assert [k.key for k in parsed("\x1b[A")] == ["up"]


def test_split_escape() -> None:
    unbound = lambda key: False  # noqa: E731
    for data, keys in [("\x1ba", ["escape", "a"]), ("\x1b?", ["escape", "question_mark"]), ("\x1bA", ["escape", "A"]), ("\x1b:", ["escape", "colon"]), ("\x1b\r", ["escape", "enter"])]:
        (alt,) = parsed(data)
        split = guard.split_escape(alt, unbound)
        assert split is not None and [k.key for k in split] == keys, data
        assert split[1].character == (data[1] if data[1] != "\r" else split[1].character)
    assert guard.split_escape(events.Key("a", "a"), unbound) is None
    assert guard.split_escape(events.Key("alt+a", "a"), lambda key: key == "alt+a") is None  # a real alt binding


async def test_escape_then_a_key_in_one_read_closes_the_form_then_acts(saves: Path) -> None:
    path = saves / "seraph-vs-sphinx.toml"
    shutil.copy(SAVES / path.name, path)
    before = path.read_bytes()
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, EncounterScreen), "the encounter screen")
        await press(pilot, "a")
        await wait_for(pilot, lambda: isinstance(app.screen, DeclareScreen) and app.screen.focused is not None, "the form")
        first = app.screen
        await press(pilot, "x")  # something typed, then the GM changes their mind
        for key in parsed("\x1ba"):  # Esc then `a`: the form closes and a fresh one opens
            driver_of(app).send_message(key)
        await wait_for(pilot, lambda: isinstance(app.screen, DeclareScreen) and app.screen is not first and app.screen.focused is not None, "a fresh form")
        assert app.screen_stack[-2:][0].__class__ is EncounterScreen
        for key in parsed("\x1b?"):  # Esc then `?`: the form closes, the help opens
            driver_of(app).send_message(key)
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        await settle(app)
        assert len(app.screen_stack) == 3 and isinstance(app.screen_stack[1], EncounterScreen)
        assert not app.errors
    assert path.read_bytes() == before
    EncounterFile(path).load()



def test_escape_then_a_key_through_a_real_terminal(saves: Path) -> None:
    path = saves / "seraph-vs-sphinx.toml"
    shutil.copy(SAVES / path.name, path)
    env = dict(os.environ, TERM="xterm-256color", TRACKER_SAVES=str(saves))
    steps = [
        (b"Combat log", b"a"),
        (b"Declare an action", b"\x1b?"),  # Esc then ? in one write: the form closes, the help opens
        (b"keys (esc closes)", b"\x1b"),
    ]
    pty_session([sys.executable, "-m", "tracker", "open", str(path)], env, steps)


def test_bytes_that_are_not_utf8_are_read_as_a_replacement_character() -> None:
    from textual.drivers import linux_driver

    install_key_readers()
    decode = linux_driver.getincrementaldecoder("utf-8")().decode
    assert decode(b"\xc3(") == "\ufffd("  # a broken sequence: replaced, the next byte kept
    assert decode(b"\xe2\x82") == ""  # half a character waits for the rest...
    assert decode(b"\xac") == "\u20ac"  # ...and is whole when it comes


def test_a_stray_byte_through_a_real_terminal_does_not_end_the_app(saves: Path) -> None:
    path = saves / "seraph-vs-sphinx.toml"
    shutil.copy(SAVES / path.name, path)
    env = dict(os.environ, TERM="xterm-256color", TRACKER_SAVES=str(saves))
    steps = [
        (b"Combat log", b"\xc3(\xff\xfe"),  # not UTF-8: ended the app before
        (b"", b"?"),
        (b"keys (esc closes)", b"\x1b"),
    ]
    out = pty_session([sys.executable, "-m", "tracker", "open", str(path)], env, steps)
    assert b"UnicodeDecodeError" not in out and b"Traceback" not in out
