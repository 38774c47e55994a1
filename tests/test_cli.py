"""The headless command line: new, rulesets, show, play, check, exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import cli as run

ROOT = Path(__file__).resolve().parent.parent


SCRIPT = """\
# the Sun-Ruler timing, freeform
add Sun-Ruler hp=40
add Seraph hp=40 side=heroes
step
declare Sun-Ruler "fire coat" mode=passive pt=10
step 5
declare Sun-Ruler blast target=Seraph pt=20 damage=6 maintainable=true
step 4
declare Sun-Ruler shield mode=passive pt=10
"""


def test_new_play_show_json(saves: Path) -> None:
    assert run("new", "sun", "--ruleset", "freeform")[0] == 0
    assert (saves / "sun.toml").exists()
    code, out = run("play", "sun", stdin=SCRIPT)
    assert code == 0, out
    code, out = run("show", "sun", "--json")
    data = json.loads(out)
    assert data["segment"] == 10 and data["round"] == 2
    assert {c["name"] for c in data["combatants"]} == {"Sun-Ruler", "Seraph"}
    assert all("resources" in c for c in data["combatants"])
    blast = next(a for a in data["actions"] if a["template"] == "blast")
    assert blast == blast | {"actor": "Sun-Ruler", "mode": "active", "start": 6, "completes": 27, "status": "in progress"}
    coat = next(a for a in data["actions"] if a["template"] == "fire coat")
    assert (coat["mode"], coat["start"], coat["completes"]) == ("passive", 1, 12)


def test_play_from_a_script_file_then_maintain(saves: Path, tmp_path: Path) -> None:
    run("new", "sun", "--ruleset", "freeform")
    script = tmp_path / "fight.txt"
    script.write_text(SCRIPT + "next\nnext\nnext\nmaintain Sun-Ruler pt=5 damage=2\n")
    code, out = run("play", "sun", "--script", str(script))
    assert code == 0, out
    assert "maintains blast (link 1)" in out
    data = json.loads(run("show", "sun", "--json")[1])
    seraph = next(c for c in data["combatants"] if c["name"] == "Seraph")
    assert seraph["resources"]["hp"] == 34


def test_text_show_has_both_clocks(saves: Path) -> None:
    run("new", "sun", "--ruleset", "freeform")
    run("play", "sun", stdin=SCRIPT)
    code, out = run("show", "sun")
    assert code == 0
    assert "segment 10 · round 2, segment 0" in out
    assert "Sun-Ruler: active blast, 6 -> 27" in out


def test_refused_command_names_line_and_rule(saves: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run("new", "sun", "--ruleset", "freeform")
    code, _ = run("play", "sun", stdin="add A\ndeclare A punch pt=10\ndeclare A kick pt=3\n")
    err = capsys.readouterr().err
    assert code == 1
    assert "<stdin>, line 3" in err and "rule: one initiation per segment" in err
    data = json.loads(run("show", "sun", "--json")[1])
    assert len(data["actions"]) == 1  # earlier lines were applied and saved


def test_check(saves: Path) -> None:
    run("new", "sun", "--ruleset", "freeform")
    code, out = run("check", "sun", "--json")
    assert code == 0 and json.loads(out)["ok"] is True
    code, _ = run("check", "missing")
    assert code == 1


def test_rulesets_lists_freeform() -> None:
    code, out = run("rulesets", "--json")
    assert code == 0
    assert "freeform" in {r["id"] for r in json.loads(out)}


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert run("new", "x")[0] == 2  # --ruleset is required
    assert run("frobnicate")[0] == 2


def test_new_refuses_to_overwrite_and_unknown_ruleset(saves: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run("new", "a", "--ruleset", "freeform")[0] == 0
    assert run("new", "a", "--ruleset", "freeform")[0] == 1
    assert "already exists" in capsys.readouterr().err
    assert run("new", "b", "--ruleset", "chess")[0] == 1
    assert "unknown ruleset 'chess'" in capsys.readouterr().err


def test_saves_option_and_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TRACKER_SAVES", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    (tmp_path / "saves").mkdir()
    (tmp_path / "saves" / ".tracker-saves").write_text("", encoding="utf-8")  # a ./saves is used by its marker
    assert run("new", "here", "--ruleset", "freeform")[0] == 0
    assert (tmp_path / "saves" / "here.toml").exists()
    assert run("--saves", "elsewhere", "new", "there", "--ruleset", "freeform")[0] == 0
    assert (tmp_path / "elsewhere" / "there.toml").exists()
    monkeypatch.setenv("TRACKER_SAVES", str(tmp_path / "env"))
    assert run("new", "env1", "--ruleset", "freeform")[0] == 0
    assert (tmp_path / "env" / "env1.toml").exists()


def test_console_entry_point_runs_as_a_process(saves: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    made = subprocess.run([sys.executable, "-m", "tracker", "new", "proc", "--ruleset", "freeform"], env=env, capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    bad = subprocess.run([sys.executable, "-m", "tracker", "play", "proc"], input="declare Nobody punch\n", env=env, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 1
    assert "no combatant named 'Nobody'" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_viewer_show_hides_hidden_combatants_and_their_log(saves: Path) -> None:
    run("new", "ambush", "--ruleset", "freeform")
    code, _ = run("play", "ambush", stdin="add Ann\nadd Lurker hidden=true\ndeclare Lurker stab target=Ann pt=4 damage=2\nnext\n")
    assert code == 0
    gm = json.loads(run("show", "ambush", "--json")[1])
    viewer = json.loads(run("show", "ambush", "--json", "--viewer")[1])
    assert {c["name"] for c in gm["combatants"]} == {"Ann", "Lurker"}
    assert {c["name"] for c in viewer["combatants"]} == {"Ann"}
    assert not any("Lurker" in e["text"] for e in viewer["log"])
    assert any("Lurker" in e["text"] for e in gm["log"])
    run("play", "ambush", stdin="unhide Lurker\n")
    viewer = json.loads(run("show", "ambush", "--json", "--viewer")[1])
    assert {c["name"] for c in viewer["combatants"]} == {"Ann", "Lurker"}


def test_secret_rolls_are_hidden_from_viewers(saves: Path) -> None:
    run("new", "secret", "--ruleset", "freeform")
    code, _ = run("play", "secret", stdin="add Ann\nadd Bo\ndeclare Bo scheme pt=5 secret=true note=betrayal\nnext\n")
    assert code == 0
    gm = json.loads(run("show", "secret", "--json")[1])
    viewer = json.loads(run("show", "secret", "--json", "--viewer")[1])
    assert any("stated by the GM" in e["text"] for e in gm["log"])
    assert not any("stated by the GM" in e["text"] or "betrayal" in e["text"] for e in viewer["log"])
    assert any("rolled in secret" in e["text"] for e in viewer["log"])
    assert viewer["actions"][0]["summary"] == "rolled in secret"


# ----------------------------------------------------------------- input, read as data
TRACKER = [sys.executable, "-m", "tracker"]


def _log(saves: Path, name: str = "fight") -> list[str]:
    return [e["text"] for e in json.loads(run("show", name, "--json", "--log", "100")[1])["log"]]


def test_play_splits_lines_at_newline_only(saves: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A note holding U+2028 (or \\x0b, \\x1c, \\x85: `str.splitlines` ends a line at each)
    stays one line: refused as that line, never run as two commands."""
    run("new", "fight", "--ruleset", "freeform")
    for end in ("\u2028", "\u2029", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85"):
        code, _ = run("play", "fight", stdin=f"note one{end}add Eve\nnote two\n")
        err = capsys.readouterr().err
        assert code == 1, repr(end)
        assert err.startswith("tracker: <stdin>, line 1 (note one") and "control characters are not allowed" in err, err
    assert _log(saves) == []


def test_play_takes_crlf_lines(saves: Path) -> None:
    run("new", "fight", "--ruleset", "freeform")
    code, out = run("play", "fight", stdin="add Ann hp=3\r\n\r\ndamage Ann 1\r\n")
    assert code == 0, out
    assert _log(saves) == ["Ann joins the fight", "Ann takes 1 hp (hp 3 -> 2)"]


def test_play_refuses_input_that_is_not_utf8_by_line_before_anything_runs(saves: Path) -> None:
    run("new", "fight", "--ruleset", "freeform")
    done = subprocess.run([*TRACKER, "play", "fight"], input=b"add Ann\nnote caf\xe9\n", capture_output=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr == b"tracker: <stdin>, line 2: not UTF-8 text (byte 0xE9 at byte 9); save the commands as UTF-8\n"
    assert _log(saves) == []


def test_play_script_that_is_not_utf8_is_refused_by_name_and_line(saves: Path, tmp_path: Path) -> None:
    run("new", "fight", "--ruleset", "freeform")
    script = tmp_path / "latin1.txt"
    script.write_bytes("add Zoë\n".encode("latin-1"))
    done = subprocess.run([*TRACKER, "play", "fight", "--script", str(script)], capture_output=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr.decode() == f"tracker: {script}, line 1: not UTF-8 text (byte 0xEB at byte 7); save the commands as UTF-8\n"
    assert _log(saves) == []


@pytest.mark.slow
@pytest.mark.parametrize(
    ("argv", "number"),
    [
        ([b"new", b"\xff", b"--ruleset", b"freeform"], 2),
        ([b"show", b"fight\xe9.toml"], 2),
        ([b"play", b"fight", b"--script", b"\xff.txt"], 4),
        ([b"new", b"fight", b"--ruleset", b"freeform", b"--name", b"Caf\xe9"], 6),
        ([b"--saves", b"\xfe\xff", b"check", b"fight"], 2),
    ],
    ids=["a new file's name", "a file name", "a script's name", "a title", "the saves folder"],
)
def test_an_argument_that_is_not_utf8_is_refused_by_number(saves: Path, argv: list[bytes], number: int) -> None:
    done = subprocess.run([*map(os.fsencode, TRACKER), *argv], capture_output=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr.startswith(f"tracker: argument {number} (".encode()) and b"is not UTF-8 text" in done.stderr
    assert b"<0xFF>" in done.stderr or b"<0xE9>" in done.stderr
    assert list(saves.iterdir()) == []  # nothing was created, not even a lock


@pytest.mark.parametrize("collecting", [True, False])
def test_an_app_that_does_not_start_leaves_the_collector_as_it_found_it(saves: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, collecting: bool) -> None:
    """`tracker` and `tracker open` pause the cyclic garbage collector while the app's
    modules load (tracker.command.cli); a start refused on the way (here a bad config file) turns
    it back on, and leaves it off for a caller that had turned it off."""
    import gc

    config = tmp_path / "conf" / "config.toml"
    config.parent.mkdir()
    config.write_text("theme = 3\n", encoding="utf-8")
    monkeypatch.setenv("TRACKER_CONFIG", str(config))
    if not collecting:
        gc.disable()
    try:
        assert run("open", "--saves", str(saves))[0] == 1
        assert gc.isenabled() is collecting
    finally:
        gc.enable()


def test_every_command_help_line_is_a_whole_phrase() -> None:
    """`tracker --help` lists each command with a phrase that ends as a phrase does, not
    on a word that needs another after it (the serve line once stopped at "the GM's")."""
    import argparse

    from tracker.command.parser import build_parser

    [commands] = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    dangling = {"the", "a", "an", "of", "to", "and", "or", "with", "for", "by", "in", "on", "at", "from", "as"}
    for choice in commands._choices_actions:
        last = choice.help.rstrip(" .)").split()[-1]
        assert last.casefold() not in dangling and not last.endswith(("'s", "’s", ",", ":", ";")), (choice.dest, choice.help)


@pytest.mark.parametrize(
    "argv, command",
    [
        ([], ""),  # the start screen: no command's parser is built
        (["--saves", "open"], ""),  # "open" is the folder here, not the command
        (["--saves", "x", "open", "f"], "open"),
        (["--saves=x", "show", "f"], "show"),
        (["--version"], ""),
        (["-h", "open"], None),  # the top level's help lists every command
        (["open", "-h"], "open"),
        (["opn"], None),  # a typo is told every command's name
        (["--", "open"], None),
    ],
)
def test_the_command_a_line_runs_is_read_before_the_parser_is_built(argv: list[str], command: str | None) -> None:
    from tracker.command.parser import command_in

    assert command_in(argv) == command


def test_a_command_built_alone_takes_the_same_options_as_in_the_whole_parser() -> None:
    """Only the command that runs has its parser built (`build_parser(command)`): each
    reads the same options, defaults and help as in the parser of every command."""
    import argparse

    from tracker.command.parser import COMMANDS, build_parser

    def described(parser: argparse.ArgumentParser, name: str) -> list[tuple[object, ...]]:
        [commands] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        each = commands.choices[name]
        return [(a.dest, tuple(a.option_strings), a.default, a.help, a.nargs, a.choices is not None) for a in each._actions] + [(each.description, each.epilog, each.format_help())]

    whole = build_parser()
    for name in COMMANDS:
        alone = build_parser(name)
        [commands] = [a for a in alone._actions if isinstance(a, argparse._SubParsersAction)]
        assert list(commands.choices) == [name]
        assert described(alone, name) == described(whole, name), name


@pytest.mark.parametrize("argv", [["--saves", "open", "show", "seraph-vs-sphinx", "--log", "2"], ["show", "--saves", "saves", "seraph-vs-sphinx", "--log", "2"]])
def test_saves_named_like_a_command_still_reads_as_a_folder(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(*argv)
    said = out + capsys.readouterr().err
    if argv[1] == "open":  # the folder "open" does not exist
        assert code == 1 and "no such encounter in open (from --saves" in said, said
    else:
        assert code == 0 and "Seraph" in said, said
