"""No stored ESC byte reaches a terminal: a save holding escape sequences in a name and a
note (written by hand, since the app refuses them at the door) is opened by the GM and by
a viewer on a real pseudo-terminal at 80x24, and printed by `tracker show`; the injected
sequences never appear in what the terminal receives, their stand-ins do."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import pty_session

CLIPBOARD = "E\x1b]52;c;UFdORUQ=\x1b\\X"  # OSC 52: would set each viewer's clipboard
ANSWERBACK = "\x1b[6n"  # would make the terminal answer with injected input
WIPE = "\x1b[2J"
INJECTED = (b"\x1b]52", b"\x1b[6n", b"\x1b\\X")
TRACKER = [sys.executable, "-m", "tracker"]


def _toml(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\x1b", "\\u001b")


@pytest.fixture
def hostile_save(tmp_path: Path) -> Path:
    run = lambda *a, **k: subprocess.run([*TRACKER, "--saves", str(tmp_path), *a], check=True, capture_output=True, text=True, **k)
    run("new", "fight", "--ruleset", "freeform")
    run("play", "fight", input="add Ann hp=10\nadd Bo hp=5 side=foes\nnote NOTE\ndamage Bo 2\n")
    path = tmp_path / "fight.toml"
    text = path.read_text(encoding="utf-8")
    # Only the TOML strings: the '#' comment lines are never parsed, so leave them be.
    text = text.replace('name = "Ann"', f'name = "{_toml(CLIPBOARD)}"')
    text = text.replace('text = "NOTE"', f'text = "{_toml(ANSWERBACK + " and " + WIPE)}"')
    path.write_text(text, encoding="utf-8")
    subprocess.run([*TRACKER, "check", str(path)], check=True, capture_output=True)
    return path



@pytest.mark.parametrize("viewer", [False, True], ids=["gm", "viewer"])
def test_no_stored_escape_reaches_the_terminal(hostile_save: Path, viewer: bool) -> None:
    env = dict(os.environ, TERM="xterm-256color", TRACKER_SAVES=str(hostile_save.parent))
    argv = [*TRACKER, "open", str(hostile_save)] + (["--viewer"] if viewer else [])
    out = pty_session(argv, env, [(b"Combat log", b"q")], to_the_end=True)
    for sequence in INJECTED:
        assert sequence not in out
    assert "␛]52;c;UFdORUQ=".encode() in out  # the name is shown, made harmless


def test_show_prints_no_stored_escape(hostile_save: Path) -> None:
    for extra in ([], ["--viewer"], ["--json"]):
        out = subprocess.run([*TRACKER, "show", str(hostile_save), *extra], capture_output=True, check=True).stdout
        assert b"\x1b" not in out
