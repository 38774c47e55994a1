"""Direct tests of tracker.command.completion (docs/decisions/0030): which names a shell is
offered for an encounter or a ruleset argument, without a shell (tests/test_completion.py
runs the real shells and is marked slow)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import pytest

from tracker.command import completion


def _folder(path: Path, *names: str) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    for name in names:
        (path / name).write_text("", encoding="utf-8")
    return path


def test_the_saves_option_on_the_line_names_the_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--saves DIR` on the line being completed wins over TRACKER_SAVES; the library of
    sheets, a campaign and hidden files are no encounters; names are sorted and filtered
    by the prefix typed."""
    env = _folder(tmp_path / "env", "from-env.toml")
    monkeypatch.setenv("TRACKER_SAVES", str(env))
    option = _folder(tmp_path / "opt", "zeta.toml", "alpha.toml", "alps.toml", "library-d6.toml",
                     "tour.campaign.toml", ".hidden.toml", "notes.txt")
    line = argparse.Namespace(saves=str(option))
    assert completion.encounter_names("", line) == ["alpha", "alps", "zeta"]
    assert completion.encounter_names("alp", line) == ["alpha", "alps"]
    assert completion.encounter_names("alph", line) == ["alpha"]
    assert completion.encounter_names("x", line) == []
    # no --saves on the line (or no parsed line at all): TRACKER_SAVES
    assert completion.encounter_names("", argparse.Namespace(saves=None)) == ["from-env"]
    assert completion.encounter_names("") == ["from-env"]


def test_an_empty_user_folder_offers_the_examples_the_first_command_copies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Completing never changes anything: a user data folder that does not exist yet is
    not made; its worked examples (saves/ in the package) are offered by name, less the
    campaign file."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TRACKER_SAVES", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    names = completion.encounter_names("", argparse.Namespace(saves=None))
    examples = sorted(p.name.removesuffix(".toml") for p in (Path(__file__).parent.parent / "saves").glob("*.toml"))
    assert names == [name for name in examples if not name.endswith(".campaign")]
    assert "city-nights-1-docks" in names and "ogs-guard" in names
    assert completion.encounter_names("city-nights-", argparse.Namespace(saves=None)) == [
        "city-nights-1-docks", "city-nights-2-roof", "city-nights-3-museum"]
    assert not (tmp_path / "data").exists()  # nothing made


@pytest.mark.parametrize("prefix", ["./", "~/", os.sep, "sub" + os.sep, ".", "~"])
def test_a_prefix_that_looks_like_a_path_completes_as_a_path(prefix: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A prefix starting with ".", "~" or the separator, or holding one, is a path: files
    are offered, not the saves folder's encounters (one of which starts with "~" here)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    _folder(tmp_path / "sub", "inner.toml")
    _folder(tmp_path / "saves-elsewhere", "a-fight.toml", "~odd.toml")
    monkeypatch.setenv("TRACKER_SAVES", str(tmp_path / "saves-elsewhere"))
    offered = completion.encounter_names(prefix, argparse.Namespace(saves=None))
    assert "a-fight" not in offered and "~odd" not in offered
    if prefix.startswith("sub"):
        assert offered == ["sub" + os.sep + "inner.toml"]
    if prefix == ".":
        assert "./" in offered  # the folder itself, as a path
    # the same folder's encounters by name, for a prefix that is no path
    assert completion.encounter_names("", argparse.Namespace(saves=None)) == ["a-fight", "~odd"]


def test_ruleset_ids_are_sorted_and_filtered_by_the_prefix() -> None:
    """The six rulesets the tracker ships (README), in order, filtered by what is typed."""
    every = completion.ruleset_ids("")
    assert every == sorted(every)
    assert {"brandx", "d6", "freeform", "ogs", "ore", "usor"} <= set(every)
    assert completion.ruleset_ids("o") == [rid for rid in every if rid.startswith("o")]
    assert {"ogs", "ore"} <= set(completion.ruleset_ids("o"))
    assert "d6" not in completion.ruleset_ids("o")
    assert completion.ruleset_ids("zzz") == []


def test_every_encounter_and_ruleset_argument_of_every_command_gets_its_completer() -> None:
    """attach: the encounter arguments (`file`, `source`, `encounter`) and the ruleset
    argument, in every subcommand however deep, and no other argument."""
    parser = argparse.ArgumentParser(prog="tracker")
    parser.add_argument("--saves")
    commands = parser.add_subparsers(dest="command")
    show = commands.add_parser("show")
    show.add_argument("file")
    new = commands.add_parser("new")
    new.add_argument("title")
    new.add_argument("--ruleset")
    campaign = commands.add_parser("campaign").add_subparsers(dest="what")
    start = campaign.add_parser("start")
    start.add_argument("source")
    start.add_argument("encounter")
    assert completion.attach(parser) is parser

    def completer(p: argparse.ArgumentParser, dest: str) -> object:
        return next(getattr(a, "completer", None) for a in p._actions if a.dest == dest)

    assert completer(show, "file") is completion.encounter_names
    assert completer(start, "source") is completion.encounter_names
    assert completer(start, "encounter") is completion.encounter_names
    assert completer(new, "ruleset") is completion.ruleset_ids
    assert completer(new, "title") is None
    assert completer(parser, "saves") is None


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_the_script_completes_the_tracker_command(shell: str) -> None:
    code = completion.script(shell)
    assert "tracker" in code and "_ARGCOMPLETE" in code


def test_fish_gets_its_own_script() -> None:
    """Module docstring: eval the script in bash or zsh, save fish's as a fish function."""
    fish = completion.script("fish")
    assert "function __fish_tracker_complete" in fish
    assert fish != completion.script("bash")
