"""No stored ESC byte reaches a terminal: a save holding escape sequences in a name and a
note (written by hand, since the app refuses them at the door) is opened by the GM and by
a viewer on a real pseudo-terminal at 80x24, and printed by `tracker show`; the injected
sequences never appear in what the terminal receives, their stand-ins do. The same for
every route of the `tracker` command: check, show, export, play's output, refusals and
echoed lines, file and folder names, usage errors."""

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


# ------------------------------------------------ every CLI route, through one writer
OSC = "\x1b]52;c;UFdORUQ=\x07"  # the BEL-ended form of the same clipboard write


@pytest.fixture
def osc_fight(tmp_path: Path) -> Path:
    """A save whose combatant is named with an OSC 52 sequence, as a hand edit would leave
    it (the name is put past the door, straight into an event), in a saves folder."""
    from rulesets import registry
    from rulesets.dice import RandomDice
    from tracker.engine import Event
    from tracker.persistence.store import EncounterFile
    from tracker.play.session import Session

    saves = tmp_path / "saves"
    saves.mkdir()
    store, _ = EncounterFile.create(saves / "fight.toml", "fight", "freeform")
    s = Session(store.load().encounter, registry.get("freeform"), RandomDice(1), store)
    s.submit(lambda enc: Event("add", {"name": CLIPBOARD, "resources": {"hp": 10}}))
    s.execute("add Bo hp=5")
    s.declare(CLIPBOARD, "slash", ["Bo"], pt=2, params={"damage": 1})
    return saves / "fight.toml"


def _tracker(saves: Path, *argv: str | Path, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([*TRACKER, "--saves", str(saves), *map(str, argv)], input=stdin, capture_output=True, timeout=60)


# (what is tried, the arguments, standard input, exit code, what must be shown instead)
ROUTES = [
    ("check, a file name", ["check", "{named}"], b"", 0, "E␛]52;c;UFdORUQ=␛\\X.toml: ok"),
    ("show", ["show", "fight"], b"", 0, "E␛]52;c;UFdORUQ=␛\\X"),
    ("show, a viewer", ["show", "fight", "--viewer", "--log", "50"], b"", 0, "E␛]52"),
    ("export md", ["export", "fight"], b"", 0, "E␛\\]52;c;UFdORUQ="),  # Markdown escapes the bracket
    ("export html", ["export", "fight", "--format", "html"], b"", 0, "E␛]52"),
    ("export -o, a file name", ["export", "fight", "-o", "{saves}/" + CLIPBOARD + ".md"], b"", 0, "wrote "),
    ("play, its output", ["play", "fight"], b"next\n", 0, "[2] E␛]52"),
    ("play, a refusal naming the combatants", ["play", "fight"], b"damage Nobody 1\n", 1, "combatants: E␛]52"),
    ("play, a refused line echoed", ["play", "fight"], ("note hi " + OSC + "\n").encode(), 1, "line 1 (note hi ␛]52;c;UFdORUQ=␇)"),
    ("play --script, a refused line echoed", ["play", "fight", "--script", "{script}"], b"", 1, "line 2 (note hi ␛]52;c;UFdORUQ=␇)"),
    ("an error quoting a file name", ["show", "E" + OSC + "missing"], b"", 1, "E␛]52;c;UFdORUQ=␇missing"),
    ("a usage error quoting an argument", ["show", "fight", "--x" + OSC], b"", 2, "--x␛]52"),
    ("--player, refused", ["show", "fight", "--player", "E" + OSC], b"", 1, "--player: control characters"),
    ("the saves folder's name", ["--saves", "{odd_saves}", "check", "fight"], b"", 0, "saves␛]52;c;UFdORUQ=␇/fight.toml: ok"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("argv", "stdin", "code", "shown"), [r[1:] for r in ROUTES], ids=[r[0] for r in ROUTES])
def test_no_escape_reaches_the_terminal_through_any_cli_route(osc_fight: Path, argv: list[str], stdin: bytes, code: int, shown: str) -> None:
    saves = osc_fight.parent
    named = saves / f"{CLIPBOARD}.toml"
    named.write_bytes(osc_fight.read_bytes())
    script = saves / "fight.txt"
    script.write_text(f"step\nnote hi {OSC}\n", encoding="utf-8")
    odd_saves = saves.parent / f"saves{OSC}"
    odd_saves.mkdir()
    (odd_saves / "fight.toml").write_bytes(osc_fight.read_bytes())
    filled = [a.format(named=named, saves=saves, script=script, odd_saves=odd_saves) for a in argv]
    done = _tracker(saves, *filled, stdin=stdin)
    said = done.stdout + done.stderr
    assert b"\x1b" not in said and b"\x07" not in said
    assert done.returncode == code, said.decode()
    assert shown.encode() in said
    assert b"Traceback" not in said
    if "-o" in argv:
        assert b"\x1b" not in (saves / f"{CLIPBOARD}.md").read_bytes()
