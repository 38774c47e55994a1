"""Direct tests of tracker.command.cli: what each `tracker` subcommand does and prints,
and its exit codes (docs/guide/commands.md and the pages it links: saves, config,
replay, stats, players, export; the module docstring's contract: 0 ok, 1 bad input with
a message, 2 usage, 3 a bug said in one line; everything printed made visible).

Each test runs the command in-process (`main(argv, stdin=..., stdout=...)`) with
`--saves` naming its own folder while `TRACKER_SAVES` names another, empty one (a
command that ignored `--saves` would write there), and its own config file; every save
written is loaded again. The fight is the user guide's first one (docs/guide/first-fight.md,
freeform): Ann (hp 20), Bo (hp 15, a foe); Ann's sword (PT 8, 4 damage) and Bo's dodge
(passive, PT 3) declared on segment 0; the dodge completes on 3, the sword lands on 8.
"""

from __future__ import annotations

import argparse
import gc
import io
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from rulesets import registry
from tracker.command import campaign, completion, extras  # noqa: F401 (loaded once here, as the modules below)
from tracker.command.cli import main
from tracker.persistence.campaign_file import CampaignFile
from tracker.persistence.store import EncounterFile
from tracker.reading import charts, export, report, stats  # noqa: F401
from tracker.ui import app, commands, settings  # noqa: F401

# What each command imports when it runs, imported once here: a run of this file in
# processes forked from one collection (benchmarks/mutation_direct.py) does not import the
# app's modules and every game again in each. How this install adds an extra: read once.
registry.available()
INSTALL = extras.running()

FIRST_FIGHT = """\
add Ann hp=20
add Bo hp=15 side=foes
declare Ann sword target=Bo pt=8 damage=4
declare Bo dodge mode=passive pt=3
"""


class Ran:
    """One run of `tracker`: its exit code, what it printed, what it said on stderr."""

    def __init__(self, code: int, out: str, err: str) -> None:
        self.code, self.out, self.err = code, out, err

    def __repr__(self) -> str:
        return f"Ran({self.code}, out={self.out!r}, err={self.err!r})"


@pytest.fixture
def saves(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "saves"
    folder.mkdir()
    decoy = tmp_path / "not-these-saves"
    decoy.mkdir()
    monkeypatch.setenv("TRACKER_SAVES", str(decoy))
    monkeypatch.setenv("TRACKER_CONFIG", str(tmp_path / "config" / "config.toml"))
    monkeypatch.delenv("TRACKER_DEBUG", raising=False)
    monkeypatch.delenv("_ARGCOMPLETE", raising=False)
    return folder


@pytest.fixture
def config_file(saves: Path, tmp_path: Path) -> Path:
    return tmp_path / "config" / "config.toml"


@pytest.fixture
def tracker(saves: Path, capsys: pytest.CaptureFixture[str]) -> Any:
    def run(*argv: str, stdin: Any = "", saves_folder: bool = True) -> Ran:
        capsys.readouterr()
        out = io.StringIO()
        given = io.StringIO(stdin) if isinstance(stdin, str) else stdin
        code = main([*(["--saves", str(saves)] if saves_folder else []), *argv], stdin=given, stdout=out)
        return Ran(code, out.getvalue(), capsys.readouterr().err)

    return run


def _ok(ran: Ran) -> str:
    assert ran.code == 0, ran
    return ran.out


def _refused(ran: Ran) -> str:
    """Bad input: exit 1, nothing on standard output, one line `tracker: ...` on stderr."""
    assert ran.code == 1 and ran.out == "", ran
    assert ran.err.startswith("tracker: ") and ran.err.endswith("\n"), ran
    return ran.err


def _duel(tracker: Any, saves: Path, name: str = "duel", more: str = "") -> Path:
    assert _ok(tracker("new", name, "--ruleset", "freeform")) == f"created {saves / (name + '.toml')} (freeform)\n"
    _ok(tracker("play", name, stdin=FIRST_FIGHT + more))
    return saves / f"{name}.toml"


# ------------------------------------------------------------------ which command runs
def test_only_open_and_no_command_start_the_app(tracker: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """First in this file: a command run as the app would wait on a screen no one sees."""
    started: list[str] = []
    monkeypatch.setattr(app, "run", lambda **_: started.append("app") or 0)
    assert _ok(tracker("chart", "sphere", "42")) == "13\n"
    assert _ok(tracker("rulesets")).startswith("brandx ")
    assert started == []
    assert tracker().code == 0 and started == ["app"]
    gc.unfreeze()


# ------------------------------------------------------------------ the saves folder
def test_only_the_commands_that_use_the_saves_folder_make_it(tracker: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/guide/commands.md: without --saves, TRACKER_SAVES or a marked ./saves, the saves
    folder is the data folder's, which every command that uses it creates holding the
    worked examples; the module docstring: only the commands that use it resolve it."""
    data = tmp_path / "data"
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    monkeypatch.delenv("TRACKER_SAVES")
    monkeypatch.chdir(tmp_path)
    for argv in (["roll", "d6", "1D", "--faces", "2"], ["odds", "d6", "1D", "--difficulty", "2"], ["chart", "sphere", "42"], ["rulesets"],
                 ["config"], ["completion", "bash"]):
        _ok(tracker(*argv, saves_folder=False))
        assert not data.exists(), argv
    said = _ok(tracker("show", "seraph-vs-sphinx", "--log", "1", saves_folder=False))
    assert said.startswith("Seraph vs Sphinx (brandx)")
    assert (data / "segment-tracker" / "saves" / "seraph-vs-sphinx.toml").is_file()


# ------------------------------------------------------------------ exit codes, streams
def test_a_refusal_exits_1_with_one_line_and_a_usage_error_exits_2(tracker: Any, saves: Path) -> None:
    said = _refused(tracker("show", "nowhere"))
    assert "nowhere" in said and said.count("\n") == 1
    usage = tracker("frobnicate")
    assert usage.code == 2 and "invalid choice: 'frobnicate'" in usage.err and usage.out == ""
    assert tracker("show").code == 2  # FILE missing
    assert list(saves.parent.joinpath("not-these-saves").iterdir()) == []


def test_help_and_version_exit_0(tracker: Any, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["--help"], stdin=io.StringIO(), stdout=io.StringIO()) == 0
    assert "COMMAND" in capsys.readouterr().out
    assert main(["show", "--help"], stdin=io.StringIO(), stdout=io.StringIO()) == 0
    assert main(["--version"], stdin=io.StringIO(), stdout=io.StringIO()) == 0


def test_what_a_command_prints_and_says_is_made_visible(tracker: Any, saves: Path) -> None:
    """The module docstring: a name holding an escape sequence reaches the terminal made
    visible, in results (a file name in `check`'s line) and in messages alike."""
    odd = "a\x1b[2Jb"
    _ok(tracker("new", odd, "--ruleset", "freeform", "--name", "Odd"))
    assert (saves / f"{odd}.toml").exists()
    said = _ok(tracker("check", odd))
    assert said.startswith(str(saves / "a")) and "\x1b" not in said and "[2Jb.toml: ok (freeform" in said
    err = _refused(tracker("show", "x\x1b]0;title\x07"))
    assert "\x1b" not in err and "\x07" not in err


def test_the_streams_are_put_back_after_every_run(tracker: Any) -> None:
    before = sys.stdout, sys.stderr
    tracker("rulesets")
    _refused(tracker("show", "nowhere"))
    assert tracker("frobnicate").code == 2
    assert (sys.stdout, sys.stderr) == before


def test_without_a_stdout_the_result_goes_to_the_standard_output(saves: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["chart", "sphere", "42"]) == 0
    assert capsys.readouterr().out == "13\n"  # docs/rulesets/brandx.md: `tracker chart sphere 42` prints 13


def test_without_arguments_the_command_line_is_read(saves: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "argv", ["tracker", "chart", "sphere", "42"])
    out = io.StringIO()
    assert main(stdout=out) == 0 and out.getvalue() == "13\n"
    assert main(["chart", "sphere", "42", "--json"], stdout=out) == 0  # given: the line is not read
    assert json.loads(out.getvalue()[3:])["result"] == 13


def test_play_reads_the_stdin_it_is_given(tracker: Any, saves: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _ok(tracker("new", "duel", "--ruleset", "freeform"))
    monkeypatch.setattr(sys, "stdin", io.StringIO("add Eve\n"))
    _ok(tracker("play", "duel", stdin="add Ann\n"))
    assert list(EncounterFile(saves / "duel.toml").load().encounter.combatants.values())[0].name == "Ann"


def test_the_shell_asking_for_completions_is_answered_only_for_the_real_command_line(saves: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`_ARGCOMPLETE` set: the shell asks `tracker` itself (docs/guide/commands.md, "Shell
    completion"); only a run from the command line (no argv given) answers it."""
    asked: list[Any] = []

    class Answered(Exception):
        pass

    def complete(parser: Any) -> None:
        asked.append(parser)
        raise Answered

    monkeypatch.setattr(completion, "complete", complete)
    monkeypatch.setattr(sys, "argv", ["tracker", "chart", "sphere", "42"])
    out = io.StringIO()
    assert main(stdout=out) == 0 and asked == []  # no _ARGCOMPLETE: the command runs
    monkeypatch.setenv("_ARGCOMPLETE", "1")
    assert main(["chart", "sphere", "42"], stdout=out) == 0 and asked == []
    with pytest.raises(Answered):
        main(stdout=out)
    [parser] = asked
    assert isinstance(parser, argparse.ArgumentParser)
    assert parser.parse_args(["chart", "sphere", "42"]).command == "chart"


@pytest.mark.parametrize(
    ("error", "code", "said"),
    [
        (KeyboardInterrupt(), 130, ""),
        (BrokenPipeError(), 0, ""),
        (RecursionError(), 1, "tracker: the input is nested too deeply to read (RecursionError)\n"),
        (ValueError("boom"), 3, "tracker: internal error: ValueError: boom (set TRACKER_DEBUG=1 for details)\n"),
        (KeyError("gone"), 3, "tracker: internal error: KeyError: 'gone' (set TRACKER_DEBUG=1 for details)\n"),
    ],
)
def test_what_goes_wrong_inside_a_command_is_one_line_and_an_exit_code(tracker: Any, monkeypatch: pytest.MonkeyPatch, error: BaseException,
                                                                       code: int, said: str) -> None:
    def fails() -> Any:
        raise error

    monkeypatch.setattr(registry, "available", fails)
    ran = tracker("rulesets")
    assert (ran.code, ran.out, ran.err) == (code, "", said)


def test_tracker_debug_shows_the_bug_itself(tracker: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    def fails() -> Any:
        raise ValueError("boom")

    monkeypatch.setattr(registry, "available", fails)
    monkeypatch.setenv("TRACKER_DEBUG", "1")
    with pytest.raises(ValueError, match="boom"):
        tracker("rulesets")


def test_an_argument_that_is_not_utf8_is_refused_by_number_before_anything_runs(tracker: Any, saves: Path) -> None:
    """Python reads a byte that is not UTF-8 as a lone surrogate, U+DC80 to U+DCFF."""
    for bad in ("\udc80", "caf\udce9", "x\udcff"):
        said = _refused(tracker("new", bad, "--ruleset", "freeform"))
        assert said.startswith("tracker: argument 4 (") and said.endswith(") is not UTF-8 text; names and file names must be UTF-8\n"), said
        said = _refused(tracker("new", "fine", "--ruleset", "freeform", "--name", bad))
        assert said.startswith("tracker: argument 8 (")
    assert list(saves.iterdir()) == []
    _ok(tracker("new", "café", "--ruleset", "freeform"))  # UTF-8 typed: taken


# ------------------------------------------------------------------ new
def test_new_names_the_fight_after_its_file_and_keeps_its_settings(tracker: Any, saves: Path) -> None:
    said = _ok(tracker("new", "the_long-night", "--ruleset", "freeform", "--set", "player_damage_cap=8"))
    path = saves / "the_long-night.toml"
    assert said == f"created {path} (freeform)\n"
    enc = EncounterFile(path).load().encounter
    assert (enc.setup.name, enc.setup.ruleset) == ("the long night", "freeform")  # '-' and '_' read as spaces
    assert str(enc.setup.settings["player_damage_cap"]) == "8"
    _ok(tracker("new", "other", "--ruleset", "d6", "--name", "The Docks"))
    assert EncounterFile(saves / "other.toml").load().encounter.setup.name == "The Docks"


def test_new_refuses_a_title_with_the_option_it_came_from(tracker: Any, saves: Path) -> None:
    said = _refused(tracker("new", "fine", "--ruleset", "freeform", "--name", "bad\x07name"))
    assert said.startswith("tracker: --name: ")
    long = "x" * 81
    said = _refused(tracker("new", long, "--ruleset", "freeform"))
    assert said.startswith(f"tracker: the title from the file name ({long}; --name gives another): ")
    _refused(tracker("new", "fine", "--ruleset", "freeform", "--set", "player_damage_cap"))
    assert list(saves.iterdir()) == []
    # A title has a line of its own: 80 cells, where a combatant's name has 40.
    _ok(tracker("new", "x" * 80, "--ruleset", "freeform"))
    _ok(tracker("new", "fine", "--ruleset", "freeform", "--name", "y" * 80))
    assert EncounterFile(saves / "fine.toml").load().encounter.setup.name == "y" * 80


def test_a_set_without_a_value_is_refused_by_name(tracker: Any, saves: Path) -> None:
    assert _refused(tracker("new", "fine", "--ruleset", "freeform", "--set", "player_damage_cap")) == "tracker: --set player_damage_cap: expected KEY=VALUE\n"
    assert _refused(tracker("roll", "d6", "2D", "--set", "wild_die", "--faces", "3,4")) == "tracker: --set wild_die: expected KEY=VALUE\n"


def test_a_set_value_may_hold_an_equals_sign(tracker: Any, saves: Path) -> None:
    """KEY=VALUE: the key ends at the first "=", the rest is the value as typed."""
    said = _refused(tracker("new", "fine", "--ruleset", "freeform", "--set", "player_damage_cap=8=9"))
    assert said == "tracker: settings.player_damage_cap: expected none or a whole number from 0 to 1000000000, got '8=9'\n"


def test_new_without_a_ruleset_takes_the_configs_default(tracker: Any, saves: Path, config_file: Path) -> None:
    ran = tracker("new", "fight")
    assert ran.code == 2 and ran.out == ""
    assert ran.err == f"tracker new: --ruleset is required (or --from OTHER, or default_ruleset in {config_file})\n"
    assert list(saves.iterdir()) == []
    config_file.parent.mkdir()
    config_file.write_text('default_ruleset = "d6"\n', encoding="utf-8")
    assert _ok(tracker("new", "fight")) == f"created {saves / 'fight.toml'} (d6)\n"
    assert EncounterFile(saves / "fight.toml").load().encounter.setup.ruleset == "d6"
    assert _ok(tracker("new", "other", "--ruleset", "freeform")).endswith("(freeform)\n")  # given: the default is not used
    config_file.write_text('default_ruleset = "chess"\n', encoding="utf-8")
    assert "chess" in _refused(tracker("new", "third"))


def test_new_from_another_fight_takes_its_roster_without_a_ruleset(tracker: Any, saves: Path) -> None:
    _duel(tracker, saves)
    assert _ok(tracker("new", "again", "--from", "duel")) == f"created {saves / 'again.toml'} (the roster of duel)\n"
    enc = EncounterFile(saves / "again.toml").load().encounter
    assert enc.setup.name == "again" and enc.setup.ruleset == "freeform"
    assert {c.name: c.resources["hp"] for c in enc.combatants.values()} == {"Ann": 20, "Bo": 15}  # fresh, no log
    assert len(enc.log) == 0


def test_new_for_a_campaign_brings_the_party_in(tracker: Any, saves: Path) -> None:
    _ok(tracker("campaign", "new", "road", "--ruleset", "freeform", "--title", "The Long Road"))
    _ok(tracker("campaign", "add", "road", "Ann", "hp=10", "side=party"))
    _ok(tracker("campaign", "add", "road", "Bo", "hp=8", "side=party"))
    said = _ok(tracker("new", "road-1", "--campaign", "road"))
    assert said == f"created {saves / 'road-1.toml'}: the next fight of The Long Road, with Ann, Bo\n"
    enc = EncounterFile(saves / "road-1.toml").load().encounter
    assert enc.setup.name == "road 1" and [c.name for c in enc.combatants.values()] == ["Ann", "Bo"]
    from tracker.reading.roles import Role, account

    start = CampaignFile(saves / "road.campaign.toml").load().events[-1]
    assert start.by == Role.gm().signature(account())  # the campaign's change signed by the account, as a GM
    assert _refused(tracker("new", "road-2", "--campaign", "road", "--ruleset", "freeform")) == \
        "tracker: new --campaign: the campaign says the game (leave out --ruleset)\n"
    assert not (saves / "road-2.toml").exists()


def test_new_for_a_campaign_with_foes_from_another_fight_and_its_settings(tracker: Any, saves: Path, config_file: Path) -> None:
    config_file.parent.mkdir()
    config_file.write_text('default_ruleset = "d6"\n', encoding="utf-8")  # never asked for: the campaign says the game
    _ok(tracker("new", "thugs", "--ruleset", "freeform"))
    _ok(tracker("play", "thugs", stdin="add Thug hp=5 side=foes\n"))
    _ok(tracker("campaign", "new", "road", "--ruleset", "freeform"))
    _ok(tracker("campaign", "add", "road", "Ann", "hp=10", "side=party"))
    said = _ok(tracker("new", "road-1", "--campaign", "road", "--from", "thugs", "--set", "player_damage_cap=3"))
    assert said.endswith(": the next fight of road, with Ann, Thug\n")
    enc = EncounterFile(saves / "road-1.toml").load().encounter
    assert enc.setup.ruleset == "freeform" and str(enc.setup.settings["player_damage_cap"]) == "3"


# ------------------------------------------------------------------ rulesets, roll, odds, chart
def test_rulesets_lists_each_game_with_its_time(tracker: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    rows = json.loads(_ok(tracker("rulesets", "--json")))
    d6 = next(r for r in rows if r["id"] == "d6")
    # docs/rulesets/d6.md: a round is 10 segments, 5 seconds.
    assert d6["name"] == "D6 System" and d6["segments_per_round"] == 10 and "half a second" in d6["segment_means"]
    assert d6["description"].startswith("D6 System (OpenD6)")
    assert [r["id"] for r in rows] == sorted(r["id"] for r in rows) and {"brandx", "d6", "freeform", "ogs", "ore", "usor"} <= {r["id"] for r in rows}
    text = _ok(tracker("rulesets")).splitlines()
    assert f"d6         {d6['description']}" in text
    assert len(text) == len(rows)
    monkeypatch.setattr(registry, "failures", lambda: {"zz": "ImportError: no module named \x1b[31mzz"})
    text = _ok(tracker("rulesets")).splitlines()
    assert text[-1].startswith("zz         cannot be loaded: ImportError: no module named ") and "\x1b" not in text[-1]
    rows = json.loads(_ok(tracker("rulesets", "--json")))
    assert rows[-1] == {"id": "zz", "error": "ImportError: no module named \x1b[31mzz"}


def test_json_is_indented_by_two(tracker: Any) -> None:
    said = _ok(tracker("chart", "sphere", "42", "--json"))
    assert said == json.dumps(json.loads(said), indent=2) + "\n"


def test_roll_with_the_faces_given(tracker: Any) -> None:
    """docs/rulesets/d6.md: a roll is the plain sum of its dice plus pips; the Wild Die a
    table setting (`--set wild_die=true`), rolled first."""
    assert _ok(tracker("roll", "d6", "1D+2", "--faces", "4")) == "1D+2: dice 4 = 6\n"
    data = json.loads(_ok(tracker("roll", "d6", "1D+2", "--faces", "4", "--json")))
    assert (data["ruleset"], data["dice"], data["total"], data["wild_die"]) == ("d6", [4], 6, False)
    assert _ok(tracker("roll", "d6", "2D", "--set", "wild_die=true", "--faces", "3,4")) == "2D: wild 3; dice 4 = 7\n"
    data = json.loads(_ok(tracker("roll", "d6", "2D", "--set", "wild_die=true", "--faces", "3,4", "--json")))
    assert data["wild_die"] is True and data["total"] == 7
    # Two dice of 3 and 4 make 7 against 8: a failure; against the other side's 6: a win by 1.
    assert _ok(tracker("roll", "d6", "2D", "--difficulty", "8", "--faces", "3,4")).startswith("2D: dice 3, 4 = 7 vs 8 (Easy): failure")
    assert _ok(tracker("roll", "d6", "2D", "--vs", "1D", "--faces", "3,4", "--vs-faces", "6")).startswith("2D: dice 3, 4 = 7 vs 1D: dice 6 = 6: self wins")


def test_roll_refuses_faces_left_over_or_missing(tracker: Any) -> None:
    assert _refused(tracker("roll", "d6", "2D", "--faces", "3,4,5")) == "tracker: --faces: 3 typed but the roll used 2; unused: 5\n"
    assert _refused(tracker("roll", "d6", "2D", "--vs", "1D", "--faces", "3,4", "--vs-faces", "6,1")) == \
        "tracker: --vs-faces: 2 typed but the roll used 1; unused: 1\n"
    assert "--faces" in _refused(tracker("roll", "d6", "2D", "--faces", "3"))
    assert "--vs-faces" in _refused(tracker("roll", "d6", "2D", "--vs", "2D", "--faces", "3,4", "--vs-faces", "3"))
    assert _refused(tracker("roll", "d6", "2D", "--faces", "3,x")) == "tracker: --faces: entry 2 ('x') is not a whole number\n"
    assert _refused(tracker("roll", "d6", "2D", "--faces", "3,4", "--vs", "1D", "--vs-faces", "x")) == \
        "tracker: --vs-faces: entry 1 ('x') is not a whole number\n"
    assert _refused(tracker("roll", "d6", "2D", "--faces", "")) == "tracker: --faces: no faces given (leave --faces out to roll random dice)\n"
    assert _refused(tracker("roll", "d6", "2D", "--faces", "3,4", "--vs", "1D", "--vs-faces", " ")) == \
        "tracker: --vs-faces: no faces given (leave --vs-faces out to roll random dice)\n"
    assert _refused(tracker("roll", "d6", "2D", "--faces", "3,4", "--vs-faces", "3")) == \
        "tracker: --vs-faces: there is no other side to roll for (give --vs SPEC, or leave --vs-faces out)\n"


def test_the_other_side_rolls_its_own_dice_unless_typed(tracker: Any) -> None:
    """Faces typed for one side only: the other side's dice are rolled (docs/rulesets/d6.md
    `--vs 3D`; usor.md: `--difficulty RATING` is an event, which rolls dice too)."""
    assert _ok(tracker("roll", "d6", "2D", "--vs", "1D", "--faces", "3,4")).startswith("2D: dice 3, 4 = 7 vs 1D: dice ")
    event = _ok(tracker("roll", "usor", "16", "--difficulty", "20", "--seed", "3"))
    assert "vs event rating 20 (2d12): d12 " in event
    assert _ok(tracker("roll", "usor", "16", "--difficulty", "20", "--seed", "3")) == event


def test_roll_with_the_brandx_pool(tracker: Any) -> None:
    """docs/rulesets/brandx.md: `tracker roll brandx 14 --pool 1 --faces 1,7,6`: the two
    dice, then the reroll."""
    assert _ok(tracker("roll", "brandx", "14", "--pool", "1", "--faces", "1,7,6")) == \
        "2d10 1+7, reroll 6 subtracted = 2 vs target 14 + pool 1 (+1) = 15: success, Q 13\n"
    assert _ok(tracker("roll", "brandx", "14", "--faces", "1,7,6")) == "2d10 1+7, reroll 6 subtracted = 2 vs target 14 = 14: success, Q 12\n"


def test_a_seeded_roll_is_repeatable_and_each_side_has_its_own_dice(tracker: Any) -> None:
    first = json.loads(_ok(tracker("roll", "d6", "10D", "--seed", "7", "--json")))
    assert json.loads(_ok(tracker("roll", "d6", "10D", "--seed", "7", "--json")))["dice"] == first["dice"]
    assert json.loads(_ok(tracker("roll", "d6", "10D", "--seed", "8", "--json")))["dice"] != first["dice"]
    opposed = _ok(tracker("roll", "d6", "10D", "--vs", "10D", "--seed", "7"))
    assert opposed == _ok(tracker("roll", "d6", "10D", "--vs", "10D", "--seed", "7"))
    mine, theirs = opposed.split(" vs ")
    assert mine.split("= ")[0] != theirs.split("= ")[0]  # the other side's dice are not the same ten
    d = _ok(tracker("roll", "d6", "10D", "--difficulty", "30", "--seed", "7"))
    assert d.startswith(f"10D: dice {', '.join(map(str, first['dice']))} = {first['total']} vs 30")
    assert _ok(tracker("roll", "d6", "10D", "--difficulty", "30", "--seed", "0")) == _ok(tracker("roll", "d6", "10D", "--difficulty", "30", "--seed", "0"))


def test_odds_exactly(tracker: Any) -> None:
    """Two six-sided dice reach 7 in 21 of 36 throws: 7/12."""
    assert _ok(tracker("odds", "d6", "2D", "--difficulty", "7")) == "58.33% (7/12)\n"
    assert json.loads(_ok(tracker("odds", "d6", "2D", "--difficulty", "7", "--json"))) == \
        {"ruleset": "d6", "probability": 7 / 12, "fraction": "7/12", "notes": []}
    # 2D against 1D: 7 to 12 always wins, ... an exact count either way (docs/rulesets/d6.md).
    assert _ok(tracker("odds", "d6", "1D", "--vs", "1D")) == "58.33% (7/12)\n"  # ties go to the initiator: 21 of 36
    # Brand X with the pool raises the target by one: 14 + 1 = 15 on 2d10 roll-under.
    assert _ok(tracker("odds", "brandx", "14", "--pool", "1")) != _ok(tracker("odds", "brandx", "14"))


def test_odds_say_where_a_derived_row_was_used(tracker: Any) -> None:
    """docs/rulesets/usor.md: rows outside the official ones are derived and always shown
    as "derived"."""
    data = json.loads(_ok(tracker("odds", "usor", "40", "--vs", "45", "--json")))
    assert [n.split(" = ")[0] for n in data["notes"]] == ["derived row: rating 40", "derived row: rating 45"]
    text = _ok(tracker("odds", "usor", "40", "--vs", "45"))
    assert text == f"{data['probability']:.2%} ({data['fraction']}) [{data['notes'][0]}] [{data['notes'][1]}]\n"
    assert _refused(tracker("odds", "usor", "16")).startswith("tracker: USOR rolls are always opposed")
    event = json.loads(_ok(tracker("odds", "usor", "40", "--difficulty", "45", "--json")))
    assert [n.split(" = ")[0] for n in event["notes"]] == ["derived row: rating 40", "derived row: rating 45"]
    # The table setting glossary_rows: rating 11 is the glossary's 1d6+1d8, not the derived 1d4+1d20.
    assert _ok(tracker("odds", "usor", "11", "--vs", "16")).endswith(" [derived row: rating 11 = 1d4+1d20]\n")
    assert _ok(tracker("odds", "usor", "11", "--vs", "16", "--set", "glossary_rows=true")).endswith(" [glossary row: rating 11 = 1d6+1d8]\n")


def test_chart_reads_brandx_charts_both_ways(tracker: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _ok(tracker("chart", "sphere", "42")) == "13\n"
    back = json.loads(_ok(tracker("chart", "sphere", "13", "--reverse", "--json")))
    assert back["reverse"] is True and back["chart"] == "sphere"
    assert _ok(tracker("chart", "sphere", str(back["result"]))) == "13\n"  # the reverse reading reads forward to 13
    assert json.loads(_ok(tracker("chart", "sphere", "42", "--json")))["reverse"] is False

    class NoCharts:
        pass

    real = registry.get
    monkeypatch.setattr(registry, "get", lambda rid: NoCharts() if rid == "brandx" else real(rid))
    assert _refused(tracker("chart", "sphere", "42")) == "tracker: the Brand X adapter is not installed\n"


def test_an_event_roll_takes_the_other_sides_faces(tracker: Any) -> None:
    """docs/rulesets/usor.md: `--difficulty RATING` is an event, rolled with `--vs-faces`;
    rating 16 is 1d8+1d12, 20 is 2d12, a success is 4 or more: 2 successes against none."""
    said = _ok(tracker("roll", "usor", "16", "--difficulty", "20", "--faces", "8,12", "--vs-faces", "1,2"))
    assert said.endswith("vs event rating 20 (2d12): d12 1, d12 2 -> 0 successes; self wins, NOST 2\n")
    said = _ok(tracker("roll", "usor", "16", "--vs", "20", "--faces", "8,12", "--vs-faces", "1,2"))
    assert said.endswith("vs rival rating 20 (2d12): d12 1, d12 2 -> 0 successes; self wins, NOST 2\n")


class _LooseGame:
    """A third-party game whose roll text is the spec typed, newlines and spaces kept."""

    id = "loose"

    def roll(self, spec: str, dice: Any, **_: Any) -> Any:
        return argparse.Namespace(text=spec, to_json=lambda: {"ruleset": "loose", "spec": spec, "when": Path("x")})


def test_a_result_is_one_line_ended_once_whatever_the_game_writes(tracker: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The text a game gives is printed as it is, ended by exactly one newline; its JSON
    is printed even with a value JSON has no type for (as text)."""
    real = registry.get
    monkeypatch.setattr(registry, "get", lambda rid: _LooseGame() if rid == "loose" else real(rid))
    assert _ok(tracker("roll", "loose", "MAX\n\n")) == "MAX\n"
    assert _ok(tracker("roll", "loose", "\n7 ")) == "\n7 \n"
    assert json.loads(_ok(tracker("roll", "loose", "7", "--json"))) == {"ruleset": "loose", "spec": "7", "when": "x"}
    assert _ok(tracker("roll", "loose", "2d6", "+", "1")) == "2d6 + 1\n"  # the spec's words, one space between


def test_faces_a_game_did_not_read_are_refused_whatever_the_game(tracker: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Typed faces the roll did not use mean a different roll was typed (rulesets.dice's
    `check_all_used`): the command refuses them even for a game that does not check."""
    real = registry.get
    monkeypatch.setattr(registry, "get", lambda rid: _LooseGame() if rid == "loose" else real(rid))
    assert _refused(tracker("roll", "loose", "7", "--faces", "3,4")) == "tracker: --faces: 2 typed but the roll used 0; unused: 3, 4\n"
    assert _refused(tracker("roll", "loose", "7", "--vs", "8", "--vs-faces", "5")) == "tracker: --vs-faces: 1 typed but the roll used 0; unused: 5\n"
    assert _ok(tracker("roll", "loose", "7", "--vs", "8")) == "7\n"


# ------------------------------------------------------------------ play
def test_play_prints_each_line_at_the_segment_it_happened(tracker: Any, saves: Path) -> None:
    """docs/guide/first-fight.md: the dodge completes on 3, the sword lands on 8; a step
    past them still dates each line by its own segment."""
    _ok(tracker("new", "duel", "--ruleset", "freeform"))
    path = saves / "duel.toml"
    said = _ok(tracker("play", "duel", stdin=FIRST_FIGHT + "# both are declared\n\nstep 10\n"))
    assert said.splitlines() == [
        "[0] Ann joins the fight",
        "[0] Bo joins the fight",
        "[0] Ann initiates active sword at Bo, PT 8, completes on segment 8: stated by the GM",
        "[0] Bo initiates passive dodge, PT 3, completes on segment 3",
        "[3] Bo's dodge completes",
        "[8] Ann's sword completes",
        "[8] Bo takes 4 hp (hp 15 -> 11)",
        f"{path}: segment 10 · round 2, segment 0, revision 5",
    ]
    enc = EncounterFile(path).load().encounter
    assert enc.now == 10 and {c.name: c.resources["hp"] for c in enc.combatants.values()} == {"Ann": 20, "Bo": 11}


def test_play_dates_a_line_that_is_not_a_new_log_entry_by_the_time_now(tracker: Any, saves: Path) -> None:
    _ok(tracker("new", "duel", "--ruleset", "freeform"))
    said = _ok(tracker("play", "duel", stdin="add Ann hp=20\nstep 5\nundo\nredo\n"))
    # `step 5` writes no line (nothing happens); `undo` takes the step back: its line is
    # no new log entry, so it is dated by the time it leaves, segment 0.
    assert said.splitlines() == ["[0] Ann joins the fight", "[0] undo: time moves on to segment 5", "[5] redo: time moves on to segment 5",
                                 f"{saves / 'duel.toml'}: segment 5 · round 1, segment 5, revision 4"]


def test_play_as_json_prints_the_fight_once(tracker: Any, saves: Path) -> None:
    _ok(tracker("new", "duel", "--ruleset", "freeform"))
    said = _ok(tracker("play", "duel", "--json", stdin=FIRST_FIGHT + "next\nnext\n"))
    data = json.loads(said)
    assert said == json.dumps(data, indent=2) + "\n"
    assert data["segment"] == 8 and {c["name"]: c["resources"]["hp"] for c in data["combatants"]} == {"Ann": 20, "Bo": 11}
    assert data == json.loads(_ok(tracker("show", "duel", "--json", "--log", "100"))) | {"log": data["log"]}


def test_play_from_a_script_and_a_script_that_cannot_be_read(tracker: Any, saves: Path, tmp_path: Path) -> None:
    _ok(tracker("new", "duel", "--ruleset", "freeform"))
    script = tmp_path / "fight.txt"
    script.write_text(FIRST_FIGHT + "next\n", encoding="utf-8")
    said = _ok(tracker("play", "duel", "--script", str(script), stdin="add Eve\n"))
    assert said.endswith(f"{saves / 'duel.toml'}: segment 3 · round 1, segment 3, revision 5\n")
    assert [c.name for c in EncounterFile(saves / "duel.toml").load().encounter.combatants.values()] == ["Ann", "Bo"]
    missing = tmp_path / "no-such.txt"
    assert _refused(tracker("play", "duel", "--script", str(missing))) == f"tracker: {missing}: cannot be read: No such file or directory\n"
    bad = tmp_path / "bad.txt"
    bad.write_text("add Cy\ndeclare Cy punch pt=10\ndeclare Cy kick pt=3\n", encoding="utf-8")
    ran = tracker("play", "duel", "--script", str(bad))
    assert ran.code == 1 and ran.out == "[3] Cy joins the fight\n[3] Cy initiates active punch, PT 10, completes on segment 13\n"
    said = ran.err
    assert said.startswith(f"tracker: {bad}, line 3 (declare Cy kick pt=3): ")
    assert "Cy" in [c.name for c in EncounterFile(saves / "duel.toml").load().encounter.combatants.values()]  # the lines before it stand


def test_play_refuses_a_line_by_its_number_and_keeps_the_lines_before(tracker: Any, saves: Path) -> None:
    _ok(tracker("new", "duel", "--ruleset", "freeform"))
    ran = tracker("play", "duel", stdin="add A\n\n   \n# note\ndeclare A punch pt=10\ndeclare A kick pt=3\n")
    assert ran.code == 1 and ran.out == "[0] A joins the fight\n[0] A initiates active punch, PT 10, completes on segment 10\n"
    said = ran.err
    assert said.startswith("tracker: <stdin>, line 6 (declare A kick pt=3): ") and "one initiation per segment" in said
    enc = EncounterFile(saves / "duel.toml").load().encounter
    assert len(enc.log) == 2


def test_play_reads_bytes_when_the_stream_has_them(tracker: Any, saves: Path) -> None:
    """The module docstring: `play` reads its commands as bytes, splits them at "\\n"
    only, and refuses a line that is not UTF-8 by number."""
    _ok(tracker("new", "duel", "--ruleset", "freeform"))
    said = _refused(tracker("play", "duel", stdin=io.TextIOWrapper(io.BytesIO(b"add Ann\nnote caf\xe9\n"), encoding="utf-8")))
    assert said == "tracker: <stdin>, line 2: not UTF-8 text (byte 0xE9 at byte 9); save the commands as UTF-8\n"
    assert len(EncounterFile(saves / "duel.toml").load().encounter.log) == 0
    # A lone "\r" stays inside its line (a text stream would end the line there).
    ran = tracker("play", "duel", stdin=io.TextIOWrapper(io.BytesIO("add Zoë hp=3\r\nnote a\rb\n".encode()), encoding="utf-8", newline=None))
    assert ran.code == 1 and ran.out == "[0] Zoë joins the fight\n"
    assert ran.err.startswith("tracker: <stdin>, line 2 (note a␍b): ")


def test_play_with_a_seed_rolls_the_same_dice(tracker: Any, saves: Path) -> None:
    _ok(tracker("new", "one", "--ruleset", "freeform"))
    _ok(tracker("new", "two", "--ruleset", "freeform"))
    first = _ok(tracker("play", "one", "--seed", "11", stdin="roll 12d6\n")).splitlines()[0]
    assert first == _ok(tracker("play", "two", "--seed", "11", stdin="roll 12d6\n")).splitlines()[0]
    assert first != _ok(tracker("play", "two", "--seed", "12", stdin="roll 12d6\n")).splitlines()[0]


def test_play_as_a_player_declares_only_for_their_own_and_signs_it(tracker: Any, saves: Path) -> None:
    """docs/guide/players.md: `tracker play FILE --player NAME`; a change is signed with
    the OS account (docs/decisions/0016)."""
    from tracker.reading.roles import account

    _ok(tracker("new", "duel", "--ruleset", "freeform"))
    _ok(tracker("play", "duel", stdin="add Ann hp=20\nadd Bo hp=15 side=foes\n"))
    said = _refused(tracker("play", "duel", "--player", "Ann", stdin="declare Bo kick target=Ann pt=3\n"))
    assert "not your combatant" in said
    _ok(tracker("play", "duel", "--player", "Ann", stdin="declare Ann kick target=Bo pt=3\n"))
    entry = json.loads(_ok(tracker("show", "duel", "--json")))["log"][-1]
    assert entry["text"].startswith("Ann initiates active kick at Bo") and entry["by"] == f"player:{account()}"
    _ok(tracker("play", "duel", stdin="note the GM's\n"))
    assert json.loads(_ok(tracker("show", "duel", "--json")))["log"][-1]["by"] == ""  # the GM's own run
    assert "no combatant named 'Zed'" in _refused(tracker("play", "duel", "--player", "Zed", stdin="step\n"))


def test_play_keeps_sheets_in_the_library_beside_the_fight(tracker: Any, saves: Path) -> None:
    """docs/guide/verbs.md: `library save NAME [as=ENTRY]` keeps a sheet in
    `saves/library-<ruleset>.toml`; `library add ENTRY [NAME]` brings it back."""
    _ok(tracker("new", "duel", "--ruleset", "freeform"))
    said = _ok(tracker("play", "duel", stdin="add Ann hp=7\nlibrary save Ann as=hero\n"))
    assert "[0] hero: sheet saved in library-freeform.toml\n" in said
    assert (saves / "library-freeform.toml").is_file()
    _ok(tracker("new", "again", "--ruleset", "freeform"))
    _ok(tracker("play", "again", stdin="library add hero Cy\n"))
    [cy] = EncounterFile(saves / "again.toml").load().encounter.combatants.values()
    assert (cy.name, cy.resources["hp"]) == ("Cy", 7)


# ------------------------------------------------------------------ show, check, stats, export
def test_show_prints_the_state_and_the_newest_log_lines(tracker: Any, saves: Path) -> None:
    _duel(tracker, saves, more="next\nnext\n")
    text = _ok(tracker("show", "duel"))
    assert text.startswith("duel (freeform) · segment 8 · round 1, segment 8\n")
    assert "  Bo [foes]: idle; hp 11/15\n" in text and text.endswith("  [8] Bo takes 4 hp (hp 15 -> 11)\n")
    assert "  [0] Ann joins the fight\n" in text
    one = _ok(tracker("show", "duel", "--log", "1"))
    assert one.endswith("Log:\n  [8] Bo takes 4 hp (hp 15 -> 11)\n")
    data = json.loads(_ok(tracker("show", "duel", "--json")))
    assert data["segment"] == 8 and [e["text"] for e in data["log"]][-1] == "Bo takes 4 hp (hp 15 -> 11)"


def test_show_as_a_viewer_and_as_a_player(tracker: Any, saves: Path) -> None:
    _ok(tracker("new", "ambush", "--ruleset", "freeform"))
    _ok(tracker("play", "ambush", stdin="add Ann\nadd Lurker hidden=true side=foes\nadd Bo\n"))
    assert "Lurker" in _ok(tracker("show", "ambush"))
    assert "Lurker" not in _ok(tracker("show", "ambush", "--viewer"))
    viewer = json.loads(_ok(tracker("show", "ambush", "--json", "--viewer")))
    assert [c["name"] for c in viewer["combatants"]] == ["Ann", "Bo"]
    player = json.loads(_ok(tracker("show", "ambush", "--json", "--player", "Lurker")))
    assert [c["name"] for c in player["combatants"]] == ["Ann", "Lurker", "Bo"]  # a player's own, hidden or not
    assert "Lurker" in _ok(tracker("show", "ambush", "--player", "Lurker"))
    assert "Lurker" not in _ok(tracker("show", "ambush", "--player", "Ann"))  # a player sees what a viewer sees
    assert [c["name"] for c in json.loads(_ok(tracker("show", "ambush", "--json", "--player", "Ann, Bo")))["combatants"]] == ["Ann", "Bo"]


def test_a_player_option_is_checked(tracker: Any, saves: Path) -> None:
    _ok(tracker("new", "ambush", "--ruleset", "freeform"))
    _ok(tracker("play", "ambush", stdin="add Ann\nadd Lurker hidden=true\nadd Bo\n"))
    assert _refused(tracker("show", "ambush", "--player", "Ann", "--viewer")) == \
        "tracker: --player and --viewer: choose one (a player also sees what a viewer sees)\n"
    said = _refused(tracker("show", "ambush", "--player", "Ann\x1b[2J"))
    assert said.startswith("tracker: --player: control characters are not allowed")
    for nobody in (",", " ", ", ,"):
        assert _refused(tracker("show", "ambush", "--player", nobody)) == f"tracker: --player {nobody!r}: expected the names of your combatants, NAME[,NAME]\n"
    # A name not in the fight: the names a viewer may see are offered, never the hidden one.
    assert _refused(tracker("show", "ambush", "--player", "Zed")) == "tracker: --player: no combatant named 'Zed' (combatants: Ann, Bo)\n"
    assert _refused(tracker("show", "ambush", "--player", "Ann,Zed,Yan")) == "tracker: --player: no combatant named 'Zed' (combatants: Ann, Bo)\n"


def test_a_player_is_held_by_identity(tracker: Any, saves: Path) -> None:
    """docs/guide/players.md: `--player Seraph` means the combatant that first carried the
    name; after a rename, the old name still finds it, shown by its new name."""
    _ok(tracker("new", "duel", "--ruleset", "freeform"))
    _ok(tracker("play", "duel", stdin="add Seraph\nadd Nyx hidden=true\nrename Seraph Angel\n"))
    data = json.loads(_ok(tracker("show", "duel", "--json", "--player", "Seraph")))
    assert [c["name"] for c in data["combatants"]] == ["Angel"]
    data = json.loads(_ok(tracker("show", "duel", "--json", "--player", "Nyx")))
    assert [c["name"] for c in data["combatants"]] == ["Angel", "Nyx"]


def test_show_at_a_segment(tracker: Any, saves: Path) -> None:
    """docs/guide/replay.md: the fight as it stood at the end of SEGMENT."""
    _duel(tracker, saves, more="next\nnext\n")
    at3 = json.loads(_ok(tracker("show", "duel", "--json", "--at", "3")))
    assert at3["segment"] == 3 and {c["name"]: c["resources"]["hp"] for c in at3["combatants"]} == {"Ann": 20, "Bo": 15}
    assert at3["replay"] == {"segment": 3, "first": 0, "last": 8}
    assert "Replay: the fight as it stood at the end of segment 3 (segments 0 to 8)" in _ok(tracker("show", "duel", "--at", "3"))
    assert _refused(tracker("show", "duel", "--at", "9")) == "tracker: --at 9: this fight's segments run from 0 to 8\n"
    assert "replay" not in json.loads(_ok(tracker("show", "duel", "--json")))


def test_show_at_a_segment_as_a_player_follows_the_name_then(tracker: Any, saves: Path) -> None:
    _ok(tracker("new", "duel", "--ruleset", "freeform"))
    _ok(tracker("play", "duel", stdin="add Seraph\nadd Nyx hidden=true\nstep 2\nrename Seraph Angel\nstep 2\n"))
    data = json.loads(_ok(tracker("show", "duel", "--json", "--player", "Angel", "--at", "1")))
    assert [c["name"] for c in data["combatants"]] == ["Seraph"]


def test_check_says_what_the_save_holds(tracker: Any, saves: Path) -> None:
    path = _duel(tracker, saves, more="next\n")
    assert _ok(tracker("check", "duel")) == f"{path}: ok (freeform, revision 5, 5 events, segment 3 · round 1, segment 3)\n"
    assert json.loads(_ok(tracker("check", "duel", "--json"))) == \
        {"file": str(path), "ok": True, "ruleset": "freeform", "revision": 5, "events": 5, "segment": 3, "combatants": 2}
    path.write_text(path.read_text(encoding="utf-8").replace('ruleset = "freeform"', 'ruleset = "chess"'), encoding="utf-8")
    assert "chess" in _refused(tracker("check", "duel"))


def test_check_reads_a_campaign_as_one(tracker: Any, saves: Path) -> None:
    _ok(tracker("campaign", "new", "road", "--ruleset", "freeform"))
    _ok(tracker("campaign", "add", "road", "Ann", "hp=10", "side=party"))
    _ok(tracker("campaign", "add", "road", "Bo", "hp=8", "side=party"))
    _ok(tracker("new", "road-1", "--campaign", "road"))
    path = saves / "road.campaign.toml"
    book = CampaignFile(path)
    camp = book.load()
    events, fights = len(camp.events), len(camp.fights)
    assert (fights, len(camp.party())) == (1, 2)
    assert _ok(tracker("check", "road.campaign")) == f"{path}: ok (a campaign of freeform, revision {book.revision}, {events} events, 1 fights)\n"
    assert json.loads(_ok(tracker("check", str(path), "--json"))) == \
        {"file": str(path), "ok": True, "campaign": True, "ruleset": "freeform", "revision": book.revision, "events": events, "fights": 1, "party": 2}


def test_stats_fit_the_width_asked_between_40_and_400(tracker: Any, saves: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/guide/stats.md; `--width`: the columns for the text charts (default: the
    terminal's, else 80), kept between 40 and 400."""
    _duel(tracker, saves, more="next\nnext\n")
    at = {w: _ok(tracker("stats", "duel", "--width", str(w))) for w in (10, 40, 41, 399, 400, 1000)}
    assert at[40].startswith("duel (freeform) after segment 8, round 1\n")
    assert max(len(line) for line in at[40].splitlines()) == 40
    assert max(len(line) for line in at[41].splitlines()) <= 41
    assert at[10] == at[40] != at[41]
    assert at[1000] == at[400] != at[399]
    monkeypatch.setenv("COLUMNS", "41")
    assert _ok(tracker("stats", "duel")) == at[41]
    assert _ok(tracker("stats", "duel", "--width", "0")) == at[41]
    monkeypatch.setenv("COLUMNS", "400")
    assert _ok(tracker("stats", "duel")) == at[400]
    # No COLUMNS and an output that is no terminal (a pipe): 80.
    monkeypatch.delenv("COLUMNS")

    def no_terminal(*_: Any) -> Any:
        raise OSError("not a terminal")

    monkeypatch.setattr(os, "get_terminal_size", no_terminal)
    assert _ok(tracker("stats", "duel")) == _ok(tracker("stats", "duel", "--width", "80")) != _ok(tracker("stats", "duel", "--width", "81"))
    data = json.loads(_ok(tracker("stats", "duel", "--json")))
    assert (data["name"], data["ruleset"], data["segment"], data["viewer"]) == ("duel", "freeform", 8, False)
    assert data == json.loads(_ok(tracker("stats", "duel", "--json", "--width", "50")))  # the width is the text's only
    assert json.loads(_ok(tracker("stats", "duel", "--json", "--viewer")))["viewer"] is True


def test_stats_as_a_viewer_leave_out_the_hidden(tracker: Any, saves: Path) -> None:
    _ok(tracker("new", "ambush", "--ruleset", "freeform"))
    _ok(tracker("play", "ambush", stdin="add Ann hp=5\nadd Lurker hidden=true side=foes\ndeclare Lurker stab target=Ann pt=2 damage=1\nnext\n"))
    assert "Lurker" in _ok(tracker("stats", "ambush", "--width", "80"))
    assert "Lurker" not in _ok(tracker("stats", "ambush", "--width", "80", "--viewer"))


def test_export_writes_the_fight_as_a_document(tracker: Any, saves: Path, tmp_path: Path) -> None:
    _duel(tracker, saves, more="next\nnext\n")
    page = _ok(tracker("export", "duel"))
    assert page.startswith("# duel (freeform)\n\nAt segment 8 · round 1, segment 8.\n")
    out = tmp_path / "duel.html"
    _ok(tracker("export", "duel", "-o", str(out)))
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


# ------------------------------------------------------------------ examples, campaign
def test_examples_are_copied_then_kept_unless_forced(tracker: Any, saves: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tracker.persistence import paths

    said = _ok(tracker("examples")).splitlines()
    example = saves / "seraph-vs-sphinx.toml"
    assert f"copied {example}" in said and all(line.startswith(f"copied {saves}") for line in said)
    EncounterFile(example).load()
    said = _ok(tracker("examples")).splitlines()
    assert f"kept {example} (already there; --force replaces it)" in said and not any(line.startswith("copied") for line in said)
    example.write_text("changed", encoding="utf-8")
    said = _ok(tracker("examples", "--force")).splitlines()
    assert f"copied {example}" in said
    EncounterFile(example).load()
    monkeypatch.setattr(paths, "example_files", lambda: [])
    assert _refused(tracker("examples")) == "tracker: no worked examples were found in this installation\n"


class _Terminal(io.StringIO):
    """Standard input typed at a terminal."""

    def isatty(self) -> bool:
        return True


def test_a_campaign_command_reads_the_terminal_it_is_given(tracker: Any, saves: Path) -> None:
    """docs/campaigns.md: `campaign end` shows the fight's end and asks at a terminal."""
    _ok(tracker("campaign", "new", "road", "--ruleset", "freeform"))
    _ok(tracker("campaign", "add", "road", "Ann", "hp=10", "side=party"))
    _ok(tracker("new", "road-1", "--campaign", "road"))
    ran = tracker("campaign", "end", "road-1", stdin=_Terminal("n\n"))
    assert ran.code == 1 and ran.out.endswith("End the fight and send this back to the campaign? [y/N] not ended\n")
    ran = tracker("campaign", "end", "road-1", stdin=_Terminal("y\n"))
    assert ran.code == 0 and ran.out.endswith("? [y/N] ended road-1.toml; the party of road goes on as shown\n")
    assert EncounterFile(saves / "road-1.toml").load().encounter.ended


# ------------------------------------------------------------------ the app, web, serve
@pytest.fixture
def app_run(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """The app's `run`, recorded instead of started (with the streams it was given)."""
    calls: list[dict[str, Any]] = []

    def run(**kwargs: Any) -> int:
        calls.append(kwargs | {"stdout": sys.stdout, "stderr": sys.stderr, "collecting": gc.isenabled()})
        return 0

    monkeypatch.setattr(app, "run", run)
    return calls


def test_the_app_gets_the_real_streams_and_its_file(tracker: Any, saves: Path, app_run: list[dict[str, Any]]) -> None:
    from tracker.engine.text import Shown

    path = _duel(tracker, saves)
    was = gc.isenabled()
    try:
        gc.enable()
        assert tracker("open", "duel").code == 0
        [call] = app_run
        assert not isinstance(call["stdout"], Shown) and not isinstance(call["stderr"], Shown)
        assert (call["saves"], call["file"], call["viewer"], call["role"], call["replay"]) == (saves, path, False, None, None)
        assert call["collector_off"] is True and call["collecting"] is False  # off while the app loads, on again after
        assert gc.isenabled()
        assert tracker("open", "duel", "--viewer", "--replay", "3").code == 0
        assert (app_run[1]["viewer"], app_run[1]["replay"]) == (True, 3)
        assert tracker().code == 0
        assert (app_run[2]["saves"], app_run[2]["file"], app_run[2]["role"], app_run[2]["viewer"], app_run[2]["replay"]) == (saves, None, None, False, None)
        gc.disable()
        assert tracker("open").code == 0
        assert app_run[3]["file"] is None and app_run[3]["collector_off"] is False
        assert not gc.isenabled()
    finally:
        gc.unfreeze()
        if was:
            gc.enable()


def test_the_app_as_a_player_and_a_replay_without_a_fight(tracker: Any, saves: Path, app_run: list[dict[str, Any]]) -> None:
    _duel(tracker, saves)
    try:
        assert tracker("open", "duel", "--player", "Ann").code == 0
        role = app_run[0]["role"]
        assert role.is_player and role.combatants == ("Ann",)
        assert "no combatant named 'Zed'" in _refused(tracker("open", "duel", "--player", "Zed"))
        # The start screen as a player: no fight yet to check the names against.
        assert tracker("open", "--player", "Zed").code == 0
        assert (app_run[1]["file"], app_run[1]["role"].combatants) == (None, ("Zed",))
        ran = tracker("open", "--replay")
        assert ran.code == 2 and ran.err == "tracker open: --replay needs FILE (the fight to replay)\n"
        assert len(app_run) == 2
    finally:
        gc.unfreeze()


def test_a_bad_config_is_named_before_the_app_starts(tracker: Any, saves: Path, config_file: Path, app_run: list[dict[str, Any]]) -> None:
    config_file.parent.mkdir()
    config_file.write_text('theme = 3\n', encoding="utf-8")
    said = _refused(tracker("open"))
    assert str(config_file) in said and "theme" in said
    # A key bound to no command of the app's tables is refused by name too.
    config_file.write_text('[keys]\nfrobnicate = "x"\n', encoding="utf-8")
    assert _refused(tracker("open")).startswith(f"tracker: {config_file}: keys.frobnicate: unknown command (known: ")
    assert _refused(tracker()).startswith(f"tracker: {config_file}: keys.frobnicate: unknown command")
    assert app_run == []


def test_web_and_serve_say_which_extra_is_missing(tracker: Any, saves: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(extras, "running", lambda: INSTALL)
    advice = extras.command("web", INSTALL)
    monkeypatch.setitem(sys.modules, "textual_serve", None)
    assert _refused(tracker("web", "--encounter", "duel")) == \
        f"tracker: web needs the 'web' extra, which is not installed (textual_serve is missing): {advice}\n"
    monkeypatch.setitem(sys.modules, "asyncssh", None)
    advice = extras.command("serve", INSTALL)
    assert _refused(tracker("serve")) == f"tracker: serve needs the 'serve' extra, which is not installed (asyncssh is missing): {advice}\n"
    monkeypatch.setitem(sys.modules, "termios", None)
    assert _refused(tracker("serve")) == \
        "tracker: serve needs a POSIX host (Linux, macOS, BSD): each seat runs in a pseudo-terminal; on Windows, run it under WSL\n"
    assert _refused(tracker("web", "--encounter", "duel")).startswith("tracker: web needs the 'web' extra")  # no POSIX check for web


def test_web_and_serve_start_with_the_saves_folder(tracker: Any, saves: Path, config_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import types

    started: list[tuple[str, Any, Path]] = []
    web = types.ModuleType("tracker.web")
    web.web = lambda args, folder: started.append(("web", args, folder)) or 0  # type: ignore[attr-defined]
    server = types.ModuleType("tracker.serve.server")
    server.serve = lambda args, folder: started.append(("serve", args, folder)) or 0  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "tracker.web", web)
    monkeypatch.setitem(sys.modules, "tracker.serve.server", server)
    for module in ("textual_serve", "asyncssh"):
        monkeypatch.setitem(sys.modules, module, types.ModuleType(module))
    assert tracker("web", "--encounter", "duel", "--port", "0").code == 0
    assert tracker("serve", "--encounter", "duel").code == 0
    [(w, wargs, wfolder), (s, sargs, sfolder)] = started
    assert (w, wargs.encounter, wargs.port, wfolder) == ("web", "duel", 0, saves)
    assert (s, sargs.encounter, sfolder) == ("serve", "duel", saves)
    config_file.parent.mkdir()
    config_file.write_text('theme = 3\n', encoding="utf-8")
    assert "theme" in _refused(tracker("web", "--encounter", "duel"))  # named once, before any tab
    config_file.write_text('[keys]\nfrobnicate = "x"\n', encoding="utf-8")
    assert _refused(tracker("web", "--encounter", "duel")).startswith(f"tracker: {config_file}: keys.frobnicate: unknown command")
    assert len(started) == 2


# ------------------------------------------------------------------ config, completion
def test_config_says_where_the_file_is_and_what_it_sets(tracker: Any, config_file: Path) -> None:
    assert _ok(tracker("config")) == f"{config_file} (not there yet: every setting is the default)\n"
    assert json.loads(_ok(tracker("config", "--json"))) == {"path": str(config_file), "exists": False, "settings": {}}
    config_file.parent.mkdir()
    config_file.write_text("# nothing yet\n", encoding="utf-8")
    assert _ok(tracker("config")) == f"{config_file}\n(nothing set)\n"
    assert json.loads(_ok(tracker("config", "--json"))) == {"path": str(config_file), "exists": True, "settings": {}}
    config_file.write_text('theme = "nord"\nroster_mode = "detail"\n[keys]\nnext = "n,space"\ndeclare = "a"\n', encoding="utf-8")
    assert _ok(tracker("config")).splitlines() == [str(config_file), "theme = 'nord'", "roster_mode = 'detail'", "keys.next = 'n,space'", "keys.declare = 'a'"]
    said = _ok(tracker("config", "--json"))
    assert said == json.dumps(json.loads(said), indent=2) + "\n"
    assert json.loads(said)["settings"] == {"theme": "nord", "roster_mode": "detail", "keys": {"next": "n,space", "declare": "a"}}


def test_config_set_changes_a_setting_and_keeps_the_file(tracker: Any, config_file: Path) -> None:
    config_file.parent.mkdir()
    config_file.write_text("# my settings\ntheme = \"dracula\"  # dark\n", encoding="utf-8")
    ran = tracker("config", "--set", " theme = nord ", "--set", "keys.next=n,space")
    assert ran.code == 0 and ran.err == f"set theme in {config_file}\nset keys.next in {config_file}\n"
    assert ran.out.splitlines() == [str(config_file), "theme = 'nord'", "keys.next = 'n,space'"]
    text = config_file.read_text(encoding="utf-8")
    assert text.startswith("# my settings\ntheme = \"nord\"  # dark\n")
    for bad in ("theme", "=nord", " =nord"):
        said = _refused(tracker("config", "--set", bad))
        assert said == f"tracker: --set {bad}: expected KEY=VALUE (e.g. theme=nord, keys.next=n,space)\n"
    assert config_file.read_text(encoding="utf-8") == text
    _refused(tracker("config", "--set", "keys.declare=n"))  # `n` is next's: refused whole
    said = _refused(tracker("config", "--set", "theme=a=b"))  # the value runs from the first "="
    assert said.startswith(f"tracker: {config_file}: theme: expected one of ") and said.endswith(", got 'a=b'\n")
    assert config_file.read_text(encoding="utf-8") == text


def test_config_names_a_file_that_does_not_load(tracker: Any, config_file: Path) -> None:
    config_file.parent.mkdir()
    config_file.write_text("theme = 3\n", encoding="utf-8")
    ran = tracker("config")
    assert (ran.code, ran.out) == (1, f"{config_file}\n")
    assert ran.err == f"tracker: {config_file}: theme: expected a non-empty string, got 3\n"
    ran = tracker("config", "--json")
    assert ran.code == 1 and json.loads(ran.out) == {"path": str(config_file), "exists": True, "error": f"{config_file}: theme: expected a non-empty string, got 3"}
    assert ran.out == json.dumps(json.loads(ran.out), indent=2) + "\n"
    config_file.write_text('default_ruleset = "chess"\n', encoding="utf-8")
    assert "chess" in tracker("config").err
    config_file.write_text('[keys]\nfrobnicate = "x"\n', encoding="utf-8")  # checked against the app's commands
    ran = tracker("config")
    assert ran.code == 1 and ran.err.startswith(f"tracker: {config_file}: keys.frobnicate: unknown command")


def test_config_messages_are_made_visible(tracker: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    odd = tmp_path / "a\x1b[2Jb" / "config.toml"
    odd.parent.mkdir()
    monkeypatch.setenv("TRACKER_CONFIG", str(odd))
    ran = tracker("config", "--set", "theme=nord")
    assert ran.code == 0 and "\x1b" not in ran.err and "\x1b" not in ran.out and ran.err.startswith("set theme in ")


def test_completion_prints_the_shells_script(tracker: Any) -> None:
    """docs/guide/commands.md: `eval "$(tracker completion bash)"`, zsh's after compinit,
    fish's saved as a file."""
    bash = _ok(tracker("completion", "bash"))
    zsh = _ok(tracker("completion", "zsh"))
    fish = _ok(tracker("completion", "fish"))
    assert bash == zsh  # one script serves both (argcomplete's, whichever version is installed)
    assert "complete -o nospace -o default -o bashdefault -F _python_argcomplete tracker" in bash  # bash's
    assert "compdef _python_argcomplete tracker" in zsh  # zsh's, after compinit
    assert "complete --command tracker" in fish and fish != bash
