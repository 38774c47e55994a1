"""Direct tests of tracker.command.campaign_arguments: `tracker campaign`'s subcommands,
what each reads into and how its help describes it, against docs/campaigns.md ("The
command line") and docs/guide/campaigns.md."""

from __future__ import annotations

import argparse
from typing import Any

import pytest

from tracker.command.campaign_arguments import fill
from tracker.command.parser import build_parser


# Every subcommand takes `--saves` after it, as every command does (docs/guide/commands.md).
SAVES = "the saves folder (see `tracker --help`)"


def _campaign() -> argparse.ArgumentParser:
    """`tracker campaign`'s parser as the tracker builds it."""
    [commands] = [a for a in build_parser("campaign")._actions if isinstance(a, argparse._SubParsersAction)]
    return commands.choices["campaign"]


def _sub(parser: argparse.ArgumentParser) -> argparse._SubParsersAction:  # type: ignore[type-arg]
    [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return sub


def _read(*argv: str) -> dict[str, Any]:
    """What `tracker campaign ARGV` reads into, less what the top level adds."""
    got = vars(build_parser("campaign").parse_args(["campaign", *argv]))
    assert (got.pop("command"), got.pop("saves")) == ("campaign", None)
    return got


def _refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as stop:
        build_parser("campaign").parse_args(["campaign", *argv])
    assert stop.value.code == 2
    return capsys.readouterr().err


def _helps(name: str) -> dict[str, str | None]:
    """Each argument's help in subcommand `name`, by its option or its name."""
    page = _sub(_campaign()).choices[name]
    return {(a.option_strings[-1] if a.option_strings else a.dest): a.help for a in page._actions if a.dest != "help"}


def _line(name: str) -> str:
    """The subcommand's line in `tracker campaign --help`."""
    [line] = [c.help for c in _sub(_campaign())._choices_actions if c.dest == name]
    return str(line)


def test_the_subcommands_in_the_order_the_guide_gives_them() -> None:
    assert list(_sub(_campaign()).choices) == ["new", "add", "set", "remove", "rest", "end", "show", "stats", "export", "note",
                                               "undo", "redo", "list"]


def test_a_subcommand_is_required(capsys: pytest.CaptureFixture[str]) -> None:
    said = _refused(capsys)
    assert "the following arguments are required: SUBCOMMAND" in said
    page = _campaign().format_help()
    assert "SUBCOMMAND" in page
    assert _sub(_campaign()).help == "what to do (each has --help)"  # each subcommand has its own page


def test_new(capsys: pytest.CaptureFixture[str]) -> None:
    """`tracker campaign new NAME --ruleset R [--house-rules FILE] [--title TEXT]`: a file
    NAME.campaign.toml in the saves folder; --ruleset is required."""
    assert _read("new", "road", "--ruleset", "brandx") == {"campaign_command": "new", "name": "road", "ruleset": "brandx",
                                                           "house_rules": "", "title": None}
    got = _read("new", "city-nights", "--ruleset", "d6", "--house-rules", "house.toml", "--title", "City Nights")
    assert (got["house_rules"], got["title"]) == ("house.toml", "City Nights")
    assert "the following arguments are required: --ruleset" in _refused(capsys, "new", "road")
    assert "the following arguments are required: name, --ruleset" in _refused(capsys, "new")
    assert _line("new") == "create a campaign file (NAME.campaign.toml) in the saves folder"
    assert _helps("new") == {
        "name": "the campaign: a name in the saves folder, or a path ending in .campaign.toml",
        "--ruleset": "the game the campaign plays",
        "--house-rules": "a house-rules file beside the campaign file",
        "--title": "the campaign's title (default: from the name)",
        "--saves": SAVES,
    }
    page = _sub(_campaign()).choices["new"].format_help()
    assert "--ruleset RULESET [--house-rules FILE] [--title TITLE]" in " ".join(page.split())


@pytest.mark.parametrize("verb", ["add", "set"])
def test_add_and_set_take_a_character_and_key_values(verb: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`tracker campaign add NAME PC key=value ... [from=ENTRY] [side=S]`, `set NAME PC
    key=value ...`."""
    assert _read(verb, "road", "Seraph", "vp=43", "side=heroes") == {"campaign_command": verb, "name": "road", "pc": "Seraph",
                                                                     "values": ["vp=43", "side=heroes"]}
    assert _read(verb, "road", "Nyx")["values"] == []
    assert "the following arguments are required: pc" in _refused(capsys, verb, "road")
    helps = _helps(verb)
    assert (helps["name"], helps["pc"], helps["values"]) == ("the campaign", "the character's name", None)
    page = " ".join(_sub(_campaign()).choices[verb].format_help().split())
    assert "name pc [KEY=VALUE ...]" in page


def test_add_and_set_say_what_they_change() -> None:
    """docs/guide/campaigns.md: characters join with a sheet as `add` takes one, or
    `from=ENTRY` of the sheet library; `campaign set` changes them (`KEY=N`, `KEY.max=N`,
    `condition.NAME=SEGMENTS`, `name=`, `side=`)."""
    assert _line("add") == "a character joins the party: a sheet as `add` takes it, or from=ENTRY of the library"
    assert _line("set") == "change a character: KEY=N, KEY.max=N, condition.NAME=SEGMENTS, name=NEW, side=S"


def test_remove(capsys: pytest.CaptureFixture[str]) -> None:
    """`tracker campaign remove NAME PC [died=true] [note=TEXT]`."""
    assert _read("remove", "road", "Nyx", "died=true", "note=fell") == {"campaign_command": "remove", "name": "road", "pc": "Nyx",
                                                                      "values": ["died=true", "note=fell"]}
    assert _read("remove", "road", "Nyx")["values"] == []
    assert "the following arguments are required: pc" in _refused(capsys, "remove", "road")
    assert _line("remove") == "a character leaves the party (died=true: dies)"
    helps = _helps("remove")
    assert (helps["name"], helps["pc"]) == ("the campaign", "the character's name")
    assert "[died=true|note=TEXT ...]" in _sub(_campaign()).choices["remove"].format_help()


def test_rest(capsys: pytest.CaptureFixture[str]) -> None:
    """`tracker campaign rest NAME [hours=N] [PC.KEY=N ...] [full=true] [--faces N,N]
    [--seed N] [--note TEXT]`: dice typed (`--faces`, in the order the rest asks) or
    rolled (`--seed` for a replayable rest)."""
    assert _read("rest", "road") == {"campaign_command": "rest", "name": "road", "values": [], "faces": None, "seed": None, "note": ""}
    got = _read("rest", "road", "hours=1", "Ann.hp=4", "--faces", "9,10", "--seed", "7", "--note", "a night at the inn")
    assert (got["values"], got["faces"], got["seed"], got["note"]) == (["hours=1", "Ann.hp=4"], "9,10", 7, "a night at the inn")
    assert "--seed: invalid int value: 'x'" in _refused(capsys, "rest", "road", "--seed", "x")
    assert _line("rest") == "the party rests: the game's own recovery (Brand X: the Healing Roll), or amounts the GM states"
    assert _helps("rest") == {
        "name": "the campaign",
        "values": None,
        "--faces": "the dice rolled at the table, in the order the rest asks for them",
        "--seed": "seed the app's dice (a replayable rest)",
        "--note": "what the rest was (a night at the inn)",
        "--saves": SAVES,
    }
    page = " ".join(_sub(_campaign()).choices["rest"].format_help().split())
    assert "[hours=N|PC.KEY=N|full=true|PC.full=true ...]" in page
    assert "[--faces FACES] [--seed SEED] [--note NOTE]" in page


def test_end(capsys: pytest.CaptureFixture[str]) -> None:
    """`tracker campaign end FIGHT [--yes] [--outcome TEXT]`: the GM first sees what goes
    back, and confirms (`--yes` in a script); the outcome is who is standing, or the GM's
    words."""
    assert _read("end", "city-nights-3-museum") == {"campaign_command": "end", "fight": "city-nights-3-museum", "yes": False, "outcome": ""}
    got = _read("end", "docks", "--yes", "--outcome", "the thugs flee")
    assert (got["yes"], got["outcome"]) == (True, "the thugs flee")
    assert "the following arguments are required: fight" in _refused(capsys, "end")
    assert _line("end") == "end a campaign's fight: shows what goes back to the party, then asks"
    assert _helps("end") == {
        "fight": "the fight: a name in the saves folder or a path",
        "--yes": "do not ask (scripts): end it as shown",
        "--outcome": "the outcome in words (default: who is still standing)",
        "--saves": SAVES,
    }
    assert "[--yes] [--outcome OUTCOME]" in _sub(_campaign()).choices["end"].format_help()


@pytest.mark.parametrize("verb", ["show", "stats"])
def test_show_and_stats(verb: str) -> None:
    """`tracker campaign show NAME [--json]`, `stats NAME [--json] [--viewer]`; `--json`
    worded as every command's, `--viewer` what viewers may see."""
    assert _read(verb, "road") == {"campaign_command": verb, "name": "road", "json": False, "viewer": False}
    got = _read(verb, "road", "--json", "--viewer")
    assert (got["json"], got["viewer"]) == (True, True)
    assert _helps(verb) == {"name": "the campaign", "--json": "print JSON instead of text", "--viewer": "only what viewers may see",
                            "--saves": SAVES}
    assert "[--json] [--viewer]" in _sub(_campaign()).choices[verb].format_help()


def test_show_and_stats_lines() -> None:
    """`campaign show`: the party and the fights; `campaign stats`: per character, over
    every fight (docs/guide/campaigns.md)."""
    assert _line("show") == "the party and the fights"
    assert _line("stats") == "each character's figures over every fight"


def test_the_json_help_is_the_one_given() -> None:
    parser = argparse.ArgumentParser()
    fill(parser, "the words for --json")
    for verb in ("show", "stats"):
        [json_help] = [a.help for a in _sub(parser).choices[verb]._actions if a.dest == "json"]
        assert json_help == "the words for --json"


def test_export(capsys: pytest.CaptureFixture[str]) -> None:
    """`tracker campaign export NAME --format md|html [--viewer] [--output FILE]`, Markdown
    by default; `-o` as `tracker export`'s."""
    assert _read("export", "road") == {"campaign_command": "export", "name": "road", "format": "md", "viewer": False, "output": None}
    got = _read("export", "road", "--format", "html", "--viewer", "-o", "road.html")
    assert (got["format"], got["viewer"], got["output"]) == ("html", True, "road.html")
    assert _read("export", "road", "--output", "r.md")["output"] == "r.md"
    assert "invalid choice: 'pdf'" in _refused(capsys, "export", "road", "--format", "pdf")
    assert _line("export") == "the campaign as a document: Markdown or HTML with charts"
    assert _helps("export") == {"name": "the campaign", "--format": None, "--viewer": "only what viewers may see",
                                "-o": "write to FILE instead of standard output", "--saves": SAVES}
    page = " ".join(_sub(_campaign()).choices["export"].format_help().split())
    assert "[--format {md,html}] [--viewer] [--output FILE]" in page


def test_note_undo_redo_list(capsys: pytest.CaptureFixture[str]) -> None:
    """`tracker campaign note NAME TEXT`, `undo NAME | redo NAME | list`: undo takes back
    the latest campaign change (an end reopens its fight), redo brings it back."""
    assert _read("note", "road", "the", "bridge", "is", "out") == {"campaign_command": "note", "name": "road", "text": ["the", "bridge", "is", "out"]}
    assert "the following arguments are required: text" in _refused(capsys, "note", "road")
    assert _line("note") == "a note in the campaign's log"
    assert _helps("note") == {"name": "the campaign", "text": None, "--saves": SAVES}
    for verb in ("undo", "redo"):
        assert _read(verb, "road") == {"campaign_command": verb, "name": "road"}
        assert "the following arguments are required: name" in _refused(capsys, verb)
        assert _line(verb) == f"{verb} the campaign's latest change (an end taken back reopens its fight)"
        assert _helps(verb) == {"name": "the campaign", "--saves": SAVES}
    assert _read("list") == {"campaign_command": "list"}
    assert _line("list") == "the campaigns in the saves folder"
