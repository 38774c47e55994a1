"""Direct tests of tracker.command.parser: the `tracker` command's words, as the user
guide (docs/guide/commands.md and the pages it links), DESIGN.md's command-line contract
and docs/campaigns.md give them: which command a line runs, what each option reads into,
its default and its type, the usage line's names for the values, the help pages (every
option described, a default shown after its help unless the help says it, each main
command's examples), `--version` and `play --help`'s command language."""

from __future__ import annotations

import argparse
import re
import shlex
from importlib import metadata
from typing import Any

import pytest

from tracker.command import parser as words
from tracker.engine.errors import TrackerError


def _commands(parser: argparse.ArgumentParser) -> argparse._SubParsersAction:  # type: ignore[type-arg]
    [commands] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return commands


def _parse(*argv: str) -> dict[str, Any]:
    """What the line reads into, with the parser `tracker` builds for it."""
    return vars(words.build_parser(words.command_in(list(argv))).parse_args(list(argv)))


def _refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """A usage error: exit 2 (docs/guide/commands.md, "Exit codes"), and what it said."""
    with pytest.raises(SystemExit) as stop:
        _parse(*argv)
    assert stop.value.code == 2
    return capsys.readouterr().err


def _page(name: str | None = None) -> str:
    """`tracker --help`, or `tracker NAME --help`, as printed."""
    whole = words.build_parser(name)
    return whole.format_help() if name is None else _commands(whole).choices[name].format_help()


def _flat(text: str) -> str:
    return " ".join(text.split())


def _actions(name: str) -> list[argparse.Action]:
    return list(_commands(words.build_parser(name)).choices[name]._actions)


def _help_of(name: str | None, option: str) -> str:
    """One option's help as its page shows it (its default added where the page adds it)."""
    parser = words.build_parser(name)
    each = parser if name is None else _commands(parser).choices[name]
    [action] = [a for a in each._actions if option in a.option_strings or a.dest == option]
    return _flat(each._get_formatter()._expand_help(action))


# ------------------------------------------------------------- which command a line runs
@pytest.mark.parametrize(
    "argv, command",
    [
        ([], ""),
        (["--saves", "open"], ""),  # the folder is called "open"
        (["--saves", "show", "open", "f"], "open"),
        (["--saves=show", "check", "f"], "check"),
        (["--version"], ""),
        (["--json"], ""),
        (["show", "--saves", "open"], "show"),
        (["-h"], None),
        (["--help"], None),
        (["--", "show"], None),
        (["--saves", "x", "-h", "show"], None),
        (["show", "-h"], "show"),
        (["opne", "f"], None),  # not ours: the whole parser names every command
        (["campaign", "show", "road"], "campaign"),
    ],
)
def test_the_command_a_line_runs(argv: list[str], command: str | None) -> None:
    """command_in's docstring: the first word that is no option and not --saves' value;
    None for the top level's help, after `--` or for a word that is not a command; "" for
    none (the start screen)."""
    assert words.command_in(argv) == command


def test_a_command_built_alone_has_only_its_own_parser() -> None:
    """build_parser(command) builds that command alone (decision 0059), the whole parser
    every command in `tracker --help`'s order; the start screen's ("") none."""
    assert list(_commands(words.build_parser("show")).choices) == ["show"]
    assert list(_commands(words.build_parser("completion")).choices) == ["completion"]
    assert list(_commands(words.build_parser("")).choices) == []
    assert list(_commands(words.build_parser()).choices) == list(words.COMMANDS)
    assert list(words.COMMANDS)[:3] == ["open", "new", "rulesets"]


# ------------------------------------------------------------- the top level
def test_no_command_is_the_start_screen_over_the_saves_folder() -> None:
    """`tracker` alone: the start screen (no command), no saves folder named."""
    assert _parse() == {"saves": None, "command": None}
    assert _parse("--saves", "fights") == {"saves": "fights", "command": None}


def test_saves_is_taken_before_or_after_the_command() -> None:
    """docs/guide/commands.md: `--saves DIR` (before or after the command); given after,
    it wins; given before only, the command keeps it."""
    assert _parse("--saves", "a", "show", "f")["saves"] == "a"
    assert _parse("show", "f", "--saves", "b")["saves"] == "b"
    assert _parse("--saves", "a", "show", "f", "--saves", "b")["saves"] == "b"
    assert _parse("show", "f")["saves"] is None


def test_saves_is_taken_after_a_campaign_subcommand_too() -> None:
    """`tracker campaign show NAME --saves DIR` as `tracker show FILE --saves DIR`: after
    the command means after its subcommand too (it was refused as an unrecognised
    argument); given before, the subcommand keeps it."""
    assert _parse("campaign", "show", "road", "--saves", "b")["saves"] == "b"
    assert _parse("campaign", "list", "--saves", "b")["saves"] == "b"
    assert _parse("campaign", "--saves", "a", "show", "road")["saves"] == "a"
    assert _parse("--saves", "a", "campaign", "end", "fight", "--yes")["saves"] == "a"
    assert _parse("--saves", "a", "campaign", "--saves", "b", "show", "road", "--saves", "c")["saves"] == "c"
    assert _parse("campaign", "undo", "road")["saves"] is None


@pytest.mark.parametrize("name", sorted(words.COMMANDS))
def test_saves_is_offered_where_the_command_reads_the_folder(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The commands that never read the saves folder (rulesets, roll, odds, chart, config,
    completion) refuse `--saves` after them; the others take it and name it in their
    usage as `--saves DIR`, its long text on the top page only."""
    page = _page(name)
    if name in ("rulesets", "roll", "odds", "chart", "config", "completion"):
        assert "--saves" not in page
        return
    assert "[--saves DIR]" in _flat(page)
    assert "--saves DIR the saves folder (see `tracker --help`)" in _flat(page)
    assert "$TRACKER_SAVES" not in page


def test_the_top_page_says_how_the_saves_folder_is_chosen() -> None:
    """docs/guide/commands.md, "The saves folder": `--saves DIR`, `$TRACKER_SAVES`,
    `./saves` if it holds a `.tracker-saves` marker file, else saves in your data
    folder, holding the worked examples."""
    saves = _help_of(None, "--saves")
    assert saves.startswith("the folder of encounter files (default: $TRACKER_SAVES, else ./saves if it holds a .tracker-saves marker")
    assert "user data folder" in saves and "worked examples" in saves
    assert "(default: None)" not in saves
    top = _flat(_page())
    assert top.startswith("usage: tracker [-h] [--version] [--saves DIR] COMMAND ...")
    # the description's two lines as written (README's first line; DESIGN.md: `tracker`
    # alone is the start screen over the saves folder)
    assert ("\n\nA terminal combat tracker on a segment timeline, for tabletop role-playing games.\n"
            "Without a COMMAND: the start screen over the saves folder.\n\n") in _page()
    # each command listed with the line the guide gives it
    for phrase in ("open open an encounter", "new create an encounter", "show the encounter's state and timeline as text",
                   "play apply timeline commands (one per line)", "check validate a save",
                   "chart Brand X charts: sphere, square, doubles (value -> result)"):
        assert phrase in top, phrase
    assert "examples: tracker the start screen over your saves folder" in top


def test_version_prints_the_installed_version_and_exits(capsys: pytest.CaptureFixture[str]) -> None:
    """`tracker --version` (docs/guide/commands.md): the installed distribution's version."""
    with pytest.raises(SystemExit) as stop:
        words.build_parser("").parse_args(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out == f"tracker {metadata.version('segment-tracker')}\n"
    assert words.version() == metadata.version("segment-tracker")
    assert _help_of(None, "--version") == "print the version and exit"


def test_a_tree_never_installed_has_no_version_to_print(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(words, "DISTRIBUTION", "no-such-distribution-anywhere")
    assert words.version() == "unknown (not installed)"


def test_a_mistyped_command_is_a_usage_error_naming_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    said = _refused(capsys, "opne", "fight")
    assert "invalid choice: 'opne'" in said and "'open'" in said and "'completion'" in said


# ------------------------------------------------------------- help pages
def test_every_option_has_help_that_reads_on_from_its_name() -> None:
    """No option without help (issue 24), and each help reads as argparse's own ("show
    this help message and exit"): it starts in lower case, save a name the guides
    capitalise (Brand X)."""
    parser = words.build_parser()
    pages = [parser] + list(_commands(parser).choices.values())
    for page in pages:
        for action in page._actions:
            if isinstance(action, argparse._SubParsersAction):
                continue
            text = action.help
            assert text and text.strip(), (page.prog, action.dest)
            assert text[0].islower() or text.startswith("Brand X "), (page.prog, action.dest, text)


# The names the guides spell in capitals: never lower-cased in a help.
_NAMES = ("SSH", "JSON", "GM", "Brand X", "HTML", "Markdown")


def test_the_names_the_guides_capitalise_stay_capitalised() -> None:
    parser = words.build_parser()
    for page in [parser] + list(_commands(parser).choices.values()):
        for action in page._actions:
            for name in _NAMES:
                found = re.findall(rf"\b{re.escape(name)}\b", action.help or "", flags=re.IGNORECASE)
                assert all(f == name for f in found), (page.prog, action.dest, action.help)


def test_a_default_follows_the_help_unless_the_help_says_it() -> None:
    """_Help's docstring: each option's default after its help, unless the help already
    says what happens without it; nothing for a switch, a list or no default."""
    assert _help_of("show", "--log") == "the newest N log lines (text output) (default: 15)"
    assert _help_of("web", "--port") == "port to listen on; 0: any free port (printed) (default: 8000)"
    assert _help_of("web", "--max-sessions") == "browser tabs open at once (default: 20)"
    assert _help_of("web", "--host") == "address to bind (default 127.0.0.1: reach it through an SSH tunnel)"
    assert _help_of("show", "--json") == "print JSON instead of text"
    assert _help_of("new", "--set") == "a ruleset setting (repeatable)"
    assert _help_of("show", "--at") == "the fight as it stood at the end of SEGMENT (a replay: 0 to the last segment)"
    page = argparse.ArgumentParser(prog="t", formatter_class=words._Help)
    page.add_argument("where", nargs="?", default="here", help="a place")
    page.add_argument("--size", type=int, default=3)
    page.add_argument("--empty", default="")
    [_, where, size, empty] = page._actions
    formatter = page._get_formatter()
    assert formatter._expand_help(where) == "a place"  # an argument, no option: as written
    assert formatter._expand_help(size) == " (default: 3)"
    assert formatter._expand_help(empty) == " (default: )"


def test_each_command_page_opens_with_its_line_as_a_sentence() -> None:
    """A command's page opens with the line `tracker --help` lists it with, as a
    sentence (DESIGN.md's words: "create an encounter", "validate a save")."""
    assert "\n\nCreate an encounter.\n\n" in _page("new")
    assert "\n\nValidate a save.\n\n" in _page("check")
    assert "\n\nOpen an encounter in the terminal UI.\n\n" in _page("open")
    assert "\n\nList ruleset adapters.\n\n" in _page("rulesets")


@pytest.mark.parametrize("name", sorted(words.COMMANDS))
def test_every_command_has_its_help_page(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    """docs/guide/commands.md: `tracker COMMAND --help` gives each one's options; exit 0."""
    for flag in ("--help", "-h"):
        with pytest.raises(SystemExit) as stop:
            _parse(name, *(["show"] if name == "campaign" else []), flag)
        assert stop.value.code == 0
        assert capsys.readouterr().out.startswith(f"usage: tracker {name} ")


# Every example each page gives, as a command line (docs/guide/commands.md's forms).
_EXAMPLED = (None, "open", "new", "show", "play", "check", "export", "roll", "odds", "web", "config", "completion")


@pytest.mark.parametrize("name", _EXAMPLED)
def test_each_main_command_ends_with_examples_that_it_reads(name: str | None, capsys: pytest.CaptureFixture[str]) -> None:
    """The page's foot: "examples:", then command lines the command takes, each on its own
    line as written (the top page's: `tracker` alone, and other commands)."""
    page = _page(name)
    assert "\nexamples:\n  " in page
    lines = page.split("\nexamples:\n", 1)[1].splitlines()
    read = 0
    for line in filter(None, lines):
        argv = shlex.split(line.strip().split("  ", 1)[0].replace('"$(', "").replace(')"', ""))
        if argv[:1] == ["eval"]:
            argv = argv[1:]
        if argv[:1] == ["printf"]:
            argv = argv[argv.index("|") + 1:]
        argv = argv[: argv.index(">")] if ">" in argv else argv
        assert line.startswith("  ") and argv[0] == "tracker", line
        if argv == ["tracker", "COMMAND", "--help"]:  # the top page's pointer to each page
            continue
        command = _parse(*argv[1:])["command"]
        assert command == name or (name is None and command in (None, *words.COMMANDS)), line
        read += 1
    assert read >= 2


# ------------------------------------------------------------- each command's options
def test_open(capsys: pytest.CaptureFixture[str]) -> None:
    """`tracker open FILE [--viewer]`, `open FILE --replay [SEGMENT]` (default 0),
    `--player NAME` (several: `--player Seraph,Nyx`); without FILE, the start screen."""
    assert _parse("open") == {"saves": None, "command": "open", "file": None, "viewer": False, "player": None, "replay": None}
    got = _parse("open", "duel", "--viewer", "--player", "Seraph,Nyx", "--replay")
    assert (got["file"], got["viewer"], got["player"], got["replay"]) == ("duel", True, "Seraph,Nyx", 0)
    assert _parse("open", "duel", "--replay", "12")["replay"] == 12
    assert "--replay: invalid int value: 'x'" in _refused(capsys, "open", "duel", "--replay", "x")
    usage = _flat(_page("open"))
    assert "[--viewer] [--player NAME[,NAME]] [--replay [SEGMENT]]" in usage and "[file]" in usage
    assert "start in a replay of the fight at SEGMENT (default 0)" in _help_of("open", "--replay")
    assert "esc goes to the fight as it stands now" in _help_of("open", "--replay")
    assert _help_of("open", "--viewer") == "read-only; follows changes; hides hidden combatants"
    assert _help_of("open", "--player").startswith("play these combatants")
    assert "without FILE: choose one on the start screen" in _help_of("open", "file")


def test_new(capsys: pytest.CaptureFixture[str]) -> None:
    """`tracker new FILE [--ruleset ID]`, `--from OTHER`, `--campaign NAME`, `--name`,
    `--set KEY=VALUE` (docs/campaigns.md: `tracker new FIGHT --campaign NAME [--from
    OTHER] [--set KEY=VALUE]`)."""
    assert _parse("new", "duel") == {"saves": None, "command": "new", "file": "duel", "ruleset": None, "source": None,
                                     "name": None, "set": [], "campaign": None}
    got = _parse("new", "rematch", "--ruleset", "brandx", "--from", "duel", "--name", "The docks", "--set", "throwback=no",
                 "--set", "a=1", "--campaign", "city-nights")
    assert (got["ruleset"], got["source"], got["name"], got["set"], got["campaign"]) == (
        "brandx", "duel", "The docks", ["throwback=no", "a=1"], "city-nights")
    assert "the following arguments are required: file" in _refused(capsys, "new")
    usage = _flat(_page("new"))
    assert "[--ruleset RULESET] [--from OTHER] [--name NAME] [--set KEY=VALUE] [--campaign NAME]" in usage
    assert "not with --from" in _help_of("new", "--ruleset")
    assert "start with OTHER's roster (fresh resources, no log)" == _help_of("new", "--from")
    # docs/guide/campaigns.md: a fight started with --campaign holds the party exactly as it
    # stands; foes come with `--from OTHER` (OTHER's combatants, not the characters)
    assert _help_of("new", "--campaign") == "the campaign's next fight: its party comes in as it stands (with --from: OTHER's foes too)"
    assert "the new encounter: a name in the saves folder (NAME.toml) or a path" == _help_of("new", "file")
    assert _help_of("new", "--name") == "the encounter's title (default: from the file name)"


def test_rulesets_chart_examples_check() -> None:
    """`tracker rulesets` (and `--json`), `tracker chart NAME VALUE [--reverse]`,
    `tracker examples [--force]`, `tracker check FILE`."""
    assert _parse("rulesets") == {"saves": None, "command": "rulesets", "json": False}
    assert _parse("rulesets", "--json")["json"] is True
    assert _parse("chart", "sphere", "7") == {"saves": None, "command": "chart", "name": "sphere", "value": "7", "reverse": False, "json": False}
    got = _parse("chart", "result", "12", "--reverse", "--json")
    assert (got["reverse"], got["json"]) == (True, True)
    assert _help_of("chart", "name") == "the chart: sphere, square, doubles, result, or ep (EP per use of a row)"
    assert _help_of("chart", "value") == "the value to read on the chart (with --reverse: the result)"
    assert _help_of("chart", "--reverse") == "result -> chart value"
    assert _parse("examples") == {"saves": None, "command": "examples", "force": False}
    assert _parse("examples", "--force")["force"] is True
    assert "replace files of the same name" == _help_of("examples", "--force")
    assert _parse("check", "f", "--json") == {"saves": None, "command": "check", "file": "f", "json": True}


@pytest.mark.parametrize("command", ["roll", "odds"])
def test_roll_and_odds_read_a_spec_and_its_options(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`tracker roll RULESET SPEC [--vs SPEC] [--difficulty N]`, `odds` the same;
    `--pool N` Brand X's bonus pool; `--set` repeatable."""
    got = _parse(command, "brandx", "14", "--pool", "1", "--difficulty", "15", "--vs", "12", "--set", "a=1", "--set", "b=2", "--json")
    assert (got["ruleset"], got["spec"], got["pool"], got["difficulty"], got["vs"], got["set"], got["json"]) == (
        "brandx", ["14"], 1, 15, "12", ["a=1", "b=2"], True)
    bare = _parse(command, "ogs", "d4+d8", "+2")
    assert (bare["spec"], bare["vs"], bare["difficulty"], bare["pool"], bare["set"], bare["json"]) == (["d4+d8", "+2"], None, None, None, [], False)
    assert "--difficulty: invalid int value: 'x'" in _refused(capsys, command, "d6", "3D", "--difficulty", "x")
    assert "--pool: invalid int value: 'x'" in _refused(capsys, command, "brandx", "14", "--pool", "x")
    assert "the following arguments are required: spec" in _refused(capsys, command, "d6")
    assert "the following arguments are required: ruleset, spec" in _refused(capsys, command)
    assert _help_of(command, "--pool") == "Brand X bonus pool (default: none)"
    assert _help_of(command, "ruleset") == "a ruleset id (`tracker rulesets` lists them)"
    assert _help_of(command, "spec") == "what to roll, in the ruleset's notation"
    assert _help_of(command, "--vs") == "the opposing side, for an opposed roll (default: unopposed)"
    assert _help_of(command, "--difficulty") == "the number to reach, where the ruleset rolls against one (default: the ruleset's own)"
    assert _help_of(command, "--set") == "a ruleset option (repeatable)"
    usage = _flat(_page(command))
    assert "ruleset spec [spec ...]" in usage and "[--set KEY=VALUE]" in usage and "[--pool POOL]" in usage


@pytest.mark.parametrize("command", ["roll", "odds"])
def test_negative_numbers_and_lists_of_them_are_values(command: str) -> None:
    """A TARGET of -3 and `--faces -1,5` are values, not options (`--faces` supplies the
    dice a person rolled: DESIGN.md; D6's modifiers and OGS's faces may be negative)."""
    assert _parse(command, "usor", "-3")["spec"] == ["-3"]
    assert _parse(command, "d6", "-1.5")["spec"] == ["-1.5"]
    assert _parse(command, "d6", "-.5")["spec"] == ["-.5"]
    assert _parse(command, "d6", "3D", "-1,5,2")["spec"] == ["3D", "-1,5,2"]
    assert _parse(command, "d6", "3D", "--difficulty", "-2")["difficulty"] == -2
    if command == "roll":
        assert _parse("roll", "d6", "4D+1", "--faces", "-1,5")["faces"] == "-1,5"


def test_only_roll_takes_the_dice_rolled_and_a_seed(capsys: pytest.CaptureFixture[str]) -> None:
    """`roll ... [--faces N,N] [--seed N]`; `--vs-faces` the other side's dice; `odds`
    rolls nothing."""
    got = _parse("roll", "usor", "16", "--faces", "5,2", "--vs-faces", "3,3", "--seed", "7")
    assert (got["faces"], got["vs_faces"], got["seed"]) == ("5,2", "3,3", 7)
    plain = _parse("roll", "usor", "16")
    assert (plain["faces"], plain["vs_faces"], plain["seed"]) == (None, None, None)
    assert "--seed: invalid int value: 'x'" in _refused(capsys, "roll", "usor", "16", "--seed", "x")
    assert "unrecognized arguments: --faces 5,2" in _refused(capsys, "odds", "usor", "16", "--faces", "5,2")
    assert _help_of("roll", "--faces") == "the dice you rolled, in the order the roll uses them"
    assert _help_of("roll", "--vs-faces") == "the other side's dice, for an opposed roll"
    assert _help_of("roll", "--seed") == "seed the dice for a repeatable roll (default: a fresh random roll)"
    assert "[--faces FACES] [--vs-faces VS_FACES] [--seed SEED]" in _flat(_page("roll"))


def test_show(capsys: pytest.CaptureFixture[str]) -> None:
    """`tracker show FILE [--json] [--viewer]`, `--at SEGMENT`, `--player NAME`
    (docs/guide/replay.md), the newest 15 log lines by default."""
    assert _parse("show", "f") == {"saves": None, "command": "show", "file": "f", "json": False, "viewer": False, "player": None,
                                   "log": 15, "at": None}
    got = _parse("show", "f", "--json", "--viewer", "--player", "Ann,Bo", "--log", "40", "--at", "25")
    assert (got["json"], got["viewer"], got["player"], got["log"], got["at"]) == (True, True, "Ann,Bo", 40, 25)
    assert "--log: invalid int value: 'x'" in _refused(capsys, "show", "f", "--log", "x")
    assert "--at: invalid int value: 'x'" in _refused(capsys, "show", "f", "--at", "x")
    assert "[--json] [--viewer] [--player NAME[,NAME]] [--log N] [--at SEGMENT]" in _flat(_page("show"))
    assert _help_of("show", "file") == "an encounter: a name in the saves folder (NAME, NAME.toml or its title) or a path"
    assert _help_of("show", "--viewer") == "as a viewer sees it"
    assert _help_of("show", "--player") == "as the player of these combatants sees it"


def test_play(capsys: pytest.CaptureFixture[str]) -> None:
    """`tracker play FILE [--script F]` (standard input by default), `--seed`, `--json`,
    `--player NAME`."""
    assert _parse("play", "f") == {"saves": None, "command": "play", "file": "f", "script": None, "seed": None, "json": False, "player": None}
    got = _parse("play", "f", "--script", "round1.txt", "--seed", "7", "--json", "--player", "Ann")
    assert (got["script"], got["seed"], got["json"], got["player"]) == ("round1.txt", 7, True, "Ann")
    assert "--seed: invalid int value: 'x'" in _refused(capsys, "play", "f", "--seed", "x")
    assert _help_of("play", "--script") == "file of commands (default: standard input)"
    assert _help_of("play", "--seed") == "seed the dice for a repeatable run"
    assert _help_of("play", "--json") == "print the final state as JSON"
    assert _help_of("play", "--player") == "as the player of these combatants: only their declarations are accepted"
    assert "[-h] [--script SCRIPT] [--seed SEED] [--json] [--player NAME[,NAME]]" in _flat(_page("play"))


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_play_help_lists_the_command_language_and_each_rulesets_actions(flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    """docs/guide/commands.md, "Scripts": `tracker play --help` lists the command language
    and each ruleset's actions for `declare`; then the examples; exit 0."""
    with pytest.raises(SystemExit) as stop:
        _parse("play", flag)
    assert stop.value.code == 0
    page = capsys.readouterr().out
    assert page.startswith("usage: tracker play [-h]")
    assert "\ncommands (one per line; # starts a comment):\n  add NAME" in page
    assert "\nactions for declare ACTOR TEMPLATE, by ruleset:\n  brandx: punch, strike, blast" in page
    assert "\n  usor: strike, check, contest, move\n\nexamples:\n  printf 'add Ann hp=20" in page
    assert page.rstrip().endswith("tracker play duel --script round1.txt --seed 7")
    assert _help_of("play", "--help") == "show this help (the commands, and each ruleset's actions) and exit"
    assert "-h, --help show this help (the commands, and each ruleset's actions) and exit" in _flat(_page("play"))


class _Game:
    def __init__(self, names: tuple[str, ...] | TrackerError) -> None:
        self.names = names

    def catalogue(self) -> tuple[str, ...]:
        if isinstance(self.names, TrackerError):
            raise self.names
        return self.names


def test_the_command_language_each_verb_then_each_games_actions(monkeypatch: pytest.MonkeyPatch) -> None:
    """play_language: the commands, each with its usage and the GM's help on the next
    line; then the actions `declare` takes, by ruleset id in order, wrapped at 88
    columns under the id; a game with no list takes any name the GM gives; one whose
    list cannot be read says why."""
    from tracker.play.verbs import VERBS
    from tracker.reading.roles import GM

    games = {"zeta": _Game(("a",)), "alpha": _Game(tuple(f"actionnumber{n}" for n in range(11))), "gm": _Game(()),
             "broken": _Game(TrackerError("its table is missing"))}
    monkeypatch.setattr(words.registry, "available", lambda: dict(games))
    monkeypatch.setattr(words.registry, "get", lambda rid: games[rid])
    lines = words.play_language().split("\n")
    assert lines[0] == "commands (one per line; # starts a comment):"
    verbs = lines[1:1 + 2 * len(VERBS)]
    assert verbs[:2] == [f"  {VERBS[0].usage}", f"      {VERBS[0].help_for(GM)}"]
    assert [v.strip() for v in verbs[::2]] == [c.usage for c in VERBS]
    assert [v.strip() for v in verbs[1::2]] == [c.help_for(GM) for c in VERBS]
    rest = lines[1 + 2 * len(VERBS):]
    assert rest == [
        "",
        "actions for declare ACTOR TEMPLATE, by ruleset:",
        "  alpha: actionnumber0, actionnumber1, actionnumber2, actionnumber3, actionnumber4,",
        "      actionnumber5, actionnumber6, actionnumber7, actionnumber8, actionnumber9,",
        "      actionnumber10",
        "  broken: (cannot be listed: its table is missing)",
        "  gm: any name the GM gives (the GM states time and outcome)",
        "  zeta: a",
    ]
    assert max(len(line) for line in rest) <= 88
    assert len(rest[2]) > 80  # filled to the width, not wrapped short
    # one column more than the width: wrapped
    games.clear()
    games["g"] = _Game(("a" * 40, "b" * 42))
    assert words.play_language().split("\n")[-2:] == ["  g: " + "a" * 40 + ",", "      " + "b" * 42]


def test_the_language_tells_the_gms_help_not_a_players() -> None:
    """`play` runs as the GM unless --player: each verb's help is the GM's."""
    from tracker.play.verbs import VERBS
    from tracker.reading.roles import GM

    text = words.play_language()
    for verb in VERBS:
        assert f"  {verb.usage}\n      {verb.help_for(GM)}\n" in text


def test_web(capsys: pytest.CaptureFixture[str]) -> None:
    """docs/guide/web.md: http://127.0.0.1:8000 by default; `--port 0` any free port;
    `--public-url URL`; `--allow-origin https://table.example` adds one; at most
    `--max-sessions N` tabs (default 20); `--encounter` is required (the command says
    so when it runs)."""
    assert _parse("web") == {"saves": None, "command": "web", "host": "127.0.0.1", "port": 8000, "encounter": None,
                             "public_url": None, "allow_origin": [], "max_sessions": 20}
    got = _parse("web", "--host", "0.0.0.0", "--port", "0", "--encounter", "Seraph vs Sphinx", "--public-url", "http://t:1",
                 "--allow-origin", "https://table.example", "--allow-origin", "https://b.example", "--max-sessions", "3")
    assert (got["host"], got["port"], got["encounter"], got["public_url"], got["allow_origin"], got["max_sessions"]) == (
        "0.0.0.0", 0, "Seraph vs Sphinx", "http://t:1", ["https://table.example", "https://b.example"], 3)
    assert "--port: invalid int value: 'x'" in _refused(capsys, "web", "--port", "x")
    assert "--max-sessions: invalid int value: 'x'" in _refused(capsys, "web", "--max-sessions", "x")
    assert ("[--host HOST] [--port PORT] [--encounter NAME] [--public-url URL] [--allow-origin ORIGIN] [--max-sessions N]"
            in _flat(_page("web")))
    assert _help_of("web", "--encounter") == "the fight every tab shows (required)"
    assert _help_of("web", "--public-url") == "the address browsers use (default http://HOST:PORT)"
    assert _help_of("web", "--allow-origin") == "also accept pages from ORIGIN (scheme://host:port); by default only this server's own"


def test_export(capsys: pytest.CaptureFixture[str]) -> None:
    """`tracker export FILE [--format md|html] [--viewer] [-o OUT]` (else from OUT's
    suffix, else Markdown), `--at SEGMENT`."""
    assert _parse("export", "f") == {"saves": None, "command": "export", "file": "f", "format": None, "viewer": False,
                                     "output": None, "at": None}
    got = _parse("export", "f", "--format", "html", "--viewer", "-o", "recap.html", "--at", "25")
    assert (got["format"], got["viewer"], got["output"], got["at"]) == ("html", True, "recap.html", 25)
    assert _parse("export", "f", "--output", "x.md", "--format", "md")["output"] == "x.md"
    assert "invalid choice: 'pdf'" in _refused(capsys, "export", "f", "--format", "pdf")
    assert "--at: invalid int value: 'x'" in _refused(capsys, "export", "f", "--at", "x")
    assert "[--format {md,html}] [--viewer] [-o OUT] [--at SEGMENT]" in _flat(_page("export"))
    assert _help_of("export", "--format") == "default: from OUT's suffix, else md"
    assert _help_of("export", "--viewer") == "only what a viewer may see"
    assert _help_of("export", "--output") == "write to OUT (default: standard output)"
    assert _help_of("export", "--at") == "the fight as it stood at the end of SEGMENT (a replay: 0 to the last segment)"


def test_stats(capsys: pytest.CaptureFixture[str]) -> None:
    """`tracker stats FILE [--json] [--viewer]`, the text charts' `--width`; its FILE
    reads as every other command's encounter argument."""
    assert _parse("stats", "f") == {"saves": None, "command": "stats", "file": "f", "json": False, "viewer": False, "width": None}
    got = _parse("stats", "f", "--json", "--viewer", "--width", "100")
    assert (got["json"], got["viewer"], got["width"]) == (True, True, 100)
    assert "--width: invalid int value: 'x'" in _refused(capsys, "stats", "f", "--width", "x")
    assert _help_of("stats", "file") == _help_of("show", "file") == _help_of("check", "file")
    assert _help_of("stats", "--json") == "the figures and chart series as JSON"
    assert _help_of("stats", "--viewer") == "only what a viewer may see (withheld figures are named)"
    assert _help_of("stats", "--width") == "columns for the text charts (default: the terminal's, else 80)"
    assert "[--json] [--viewer] [--width WIDTH]" in _flat(_page("stats"))


def test_config_and_completion(capsys: pytest.CaptureFixture[str]) -> None:
    """`tracker config [--set KEY=VALUE]` (repeatable: docs/guide/config.md),
    `tracker completion bash|zsh|fish`."""
    assert _parse("config") == {"saves": None, "command": "config", "json": False, "set": []}
    got = _parse("config", "--json", "--set", "theme=nord", "--set", "keys.next=n,space,j")
    assert (got["json"], got["set"]) == (True, ["theme=nord", "keys.next=n,space,j"])
    assert "[--set KEY=VALUE]" in _flat(_page("config"))
    assert "change a setting (theme, default_ruleset, viewer_resources, keys.COMMAND)" in _help_of("config", "--set")
    for shell in ("bash", "zsh", "fish"):
        assert _parse("completion", shell) == {"saves": None, "command": "completion", "shell": shell}
    assert "invalid choice: 'tcsh'" in _refused(capsys, "completion", "tcsh")
    assert _help_of("completion", "shell") == "the shell to complete in"
    assert "{bash,zsh,fish}" in _page("completion")


def test_serve_and_campaign_take_their_own_modules_options() -> None:
    """`tracker serve [--host H] [--port P]` (its options: tracker.serve.arguments);
    `tracker campaign ...` (tracker.command.campaign_arguments), its `--json` worded as
    every other command's."""
    got = _parse("serve", "--port", "2222")
    assert (got["command"], got["port"], got["host"]) == ("serve", 2222, "127.0.0.1")
    assert _parse("campaign", "list") == {"saves": None, "command": "campaign", "campaign_command": "list"}
    campaign = _commands(words.build_parser("campaign")).choices["campaign"]
    show = _commands(campaign).choices["show"]
    [json_help] = [a.help for a in show._actions if a.dest == "json"]
    assert json_help == _help_of("show", "--json") == "print JSON instead of text"
