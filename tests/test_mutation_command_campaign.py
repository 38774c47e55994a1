"""Direct tests of tracker.command.campaign: what each `tracker campaign ...` subcommand
does and says (docs/campaigns.md, "The command line"; docs/guide/campaigns.md).

Each test runs the `tracker` command in-process in its own saves folder and reads every
file it wrote back with a fresh load (tests.test_campaign's helpers).
"""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path

import pytest

from tracker.command.cli import main
from tracker.engine.errors import TrackerError
from tracker.reading.roles import Role, account
from tests.test_campaign import campaign, fight, play, refused, road, run, saves  # noqa: F401 (road, saves: fixtures, The Long Road of Ann and Bo)


class _Terminal(io.StringIO):
    """Standard input typed at a terminal."""

    def isatty(self) -> bool:
        return True


def _at_terminal(saves: Path, typed: str, *argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(["--saves", str(saves), *argv], stdin=_Terminal(typed), stdout=out)
    return code, out.getvalue()


# ------------------------------------------------------------------ new, list
def test_new_names_the_campaign_after_its_file_unless_given_a_title(saves: Path) -> None:
    out = run(saves, "campaign", "new", "city_nights-x", "--ruleset", "freeform")
    path = saves / "city_nights-x.campaign.toml"
    assert out == f"created {path} (freeform)\n"
    camp = campaign(saves, "city_nights-x")
    assert (camp.name, camp.ruleset) == ("city nights x", "freeform")  # '-' and '_' read as spaces
    run(saves, "campaign", "new", "road", "--ruleset", "d6", "--title", "The Long Road")
    assert (campaign(saves).name, campaign(saves).ruleset) == ("The Long Road", "d6")


def test_new_refuses_an_unknown_game_and_a_bad_title_and_writes_nothing(saves: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert "nosuchgame" in refused(saves, capsys, "campaign", "new", "road", "--ruleset", "nosuchgame")
    said = refused(saves, capsys, "campaign", "new", "road", "--ruleset", "freeform", "--title", "bad\x1b[2Jtitle")
    assert "--title: control characters are not allowed" in said
    assert list(saves.iterdir()) == []


def test_new_reads_the_house_rules_beside_the_file_before_writing_it(saves: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/campaigns.md: "its ruleset and house rules are the campaign's"; a refusal
    changes nothing, so the same command runs again once the house rules are there."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "house.toml").write_text("", encoding="utf-8")
    monkeypatch.chdir(elsewhere)  # read beside the campaign, never from the working folder
    said = refused(saves, capsys, "campaign", "new", "road", "--ruleset", "freeform", "--house-rules", "house.toml")
    assert f"{saves / 'road.campaign.toml'}: house_rules: {saves / 'house.toml'}: file not found" in said
    assert not (saves / "road.campaign.toml").exists()
    (saves / "house.toml").write_text("x = [\n", encoding="utf-8")
    assert "not valid TOML" in refused(saves, capsys, "campaign", "new", "road", "--ruleset", "freeform", "--house-rules", "house.toml")
    assert not (saves / "road.campaign.toml").exists()
    (saves / "house.toml").write_text("", encoding="utf-8")
    assert run(saves, "campaign", "new", "road", "--ruleset", "freeform", "--house-rules", "house.toml").startswith("created ")
    assert campaign(saves).house_rules == "house.toml"


def test_new_checks_the_house_rules_tables_by_the_game(saves: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """tables.toml: a house-rules file has the shape of the game's tables; Brand X's
    [square] holds rows, so `square = 3` is refused by name and no campaign is written."""
    (saves / "house.toml").write_text("square = 3\n", encoding="utf-8")
    said = refused(saves, capsys, "campaign", "new", "road", "--ruleset", "brandx", "--house-rules", "house.toml")
    assert f"{saves / 'road.campaign.toml'}: house rules house.toml: " in said and "[square]" in said and "got 3" in said
    assert not (saves / "road.campaign.toml").exists()


def test_list_names_each_campaign_and_each_file_it_refuses(road: Path) -> None:
    run(road, "campaign", "new", "city", "--ruleset", "d6", "--title", "City Nights")
    run(road, "new", "road-1", "--campaign", "road")
    (road / "bad.campaign.toml").write_text("junk\n", encoding="utf-8")
    lines = run(road, "campaign", "list").splitlines()
    assert lines[0].startswith(f"bad.campaign.toml: refused: {road / 'bad.campaign.toml'}")
    assert lines[1:] == ["city.campaign.toml: City Nights (d6), 0 in the party, 0 fights",
                         "road.campaign.toml: The Long Road (freeform), 2 in the party, 1 fights"]


# ------------------------------------------------------------------ add, set, remove, note
def test_add_takes_a_sheet_from_the_library_in_the_saves_folder(road: Path) -> None:
    run(road, "new", "scratch", "--ruleset", "freeform")
    play(road, "scratch", "add Cy hp=12", "library save Cy")
    assert run(road, "campaign", "add", "road", "Cy", "from=Cy") == "Cy joins the party of The Long Road (pc3)\n"
    assert campaign(road).pc("Cy").maxima == {"hp": 12}


def test_add_says_who_joins_with_the_id_the_campaign_gave(road: Path) -> None:
    assert run(road, "campaign", "add", "road", "Cy", "hp=12") == "Cy joins the party of The Long Road (pc3)\n"
    cy = campaign(road).pc("Cy")
    assert (cy.id, cy.resources) == ("pc3", {"hp": 12})


@pytest.mark.parametrize("values, said", [
    (["hp"], "campaign add: expected KEY=VALUE, got 'hp'"),
    (["=5"], "campaign add: expected KEY=VALUE, got '=5'"),
    (["hp=5", "hp=6"], "campaign add: hp given twice"),
    (["h\x07p=5"], "campaign add: key: control characters are not allowed"),
    (["hp=5\x1b[2J"], "campaign add: hp: control characters are not allowed"),
])
def test_add_refuses_a_value_not_key_equals_value_by_name(road: Path, capsys: pytest.CaptureFixture[str], values: list[str], said: str) -> None:
    before = (road / "road.campaign.toml").read_bytes()
    assert said in refused(road, capsys, "campaign", "add", "road", "Cy", *values)
    assert (road / "road.campaign.toml").read_bytes() == before


def test_set_says_the_character_as_it_now_stands(road: Path) -> None:
    assert run(road, "campaign", "set", "road", "Ann", "hp=7") == "Ann: hp 7/10\n"
    assert run(road, "campaign", "set", "road", "Ann", "name=Anna") == "Anna: hp 7/10\n"
    assert campaign(road).pc("Anna").resources == {"hp": 7}


def test_set_names_the_subcommand_when_a_value_is_refused(road: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert "campaign set: hp given twice" in refused(road, capsys, "campaign", "set", "road", "Bo", "hp=1", "hp=2")


def test_remove_leaves_by_default_and_dies_when_told(road: Path) -> None:
    assert run(road, "campaign", "remove", "road", "Ann") == "Ann leaves the party\n"
    assert run(road, "campaign", "remove", "road", "Bo", "died=true", "note=the bridge=broken") == "Bo dies\n"
    camp = campaign(road)
    leaves = [{k: e.args.get(k) for k in ("pc", "reason", "note")} for e in camp.events if e.kind == "leave"]
    assert leaves == [{"pc": "pc1", "reason": "left", "note": None}, {"pc": "pc2", "reason": "died", "note": "the bridge=broken"}]
    data = json.loads(run(road, "campaign", "show", "road", "--json"))
    assert [(p["name"], p["status"]) for p in data["former"]] == [("Ann", "left"), ("Bo", "died")]


def test_remove_refuses_what_it_does_not_know(road: Path, capsys: pytest.CaptureFixture[str]) -> None:
    said = refused(road, capsys, "campaign", "remove", "road", "Ann", "note=x", "zeal=1", "alive=no")
    assert "campaign remove: unknown option 'alive' (died=true, note=TEXT)" in said
    assert "died: expected true or false (or yes or no), got 'perhaps'" in refused(road, capsys, "campaign", "remove", "road", "Ann", "died=perhaps")
    assert "campaign remove: expected KEY=VALUE" in refused(road, capsys, "campaign", "remove", "road", "Ann", "died")
    assert [p.name for p in campaign(road).party()] == ["Ann", "Bo"]


def test_a_note_is_the_words_joined_and_signed_by_the_gm(road: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(road, "campaign", "note", "road", "the party", "sets out") == "note: the party sets out\n"
    camp = campaign(road)
    assert camp.notes[-1][1] == "the party sets out"
    assert {e.by for e in camp.events} == {Role.gm().signature(account())}
    assert "note: control characters are not allowed" in refused(road, capsys, "campaign", "note", "road", "bad\x1b[2J")
    assert campaign(road).notes[-1][1] == "the party sets out"


def test_undo_and_redo_say_what_they_took_back_and_brought_back(road: Path) -> None:
    run(road, "campaign", "note", "road", "hello")
    assert run(road, "campaign", "undo", "road") == "undo: note: hello\n"
    assert campaign(road).notes == []
    assert run(road, "campaign", "redo", "road") == "redo: note: hello\n"
    camp = campaign(road)
    assert camp.notes[-1][1] == "hello"
    assert [(e.kind, e.by) for e in camp.events][-2:] == [("undo", Role.gm().signature(account())), ("redo", Role.gm().signature(account()))]


# ------------------------------------------------------------------ show, stats, export
def test_show_prints_text_or_json_looking_at_the_fights_beside_the_file(road: Path) -> None:
    run(road, "new", "road-1", "--campaign", "road")
    text = run(road, "campaign", "show", "road")
    assert text.startswith("The Long Road (freeform)\n") and text.endswith("\n") and "under way" in text
    said = run(road, "campaign", "show", "road", "--json")
    data = json.loads(said)
    assert said == json.dumps(data, indent=2) + "\n"  # indented by two, as every --json
    assert [p["name"] for p in data["party"]] == ["Ann", "Bo"]
    assert [(f["file"], f["status"]) for f in data["fights"]] == [("road-1.toml", "under way")]


def test_stats_prints_text_or_json_as_the_gm_or_the_viewers_see_it(road: Path) -> None:
    assert run(road, "campaign", "stats", "road") == "The Long Road: 0 fights ended\n"
    assert run(road, "campaign", "stats", "road", "--viewer") == "The Long Road: 0 fights ended (as viewers see it)\n"
    said = run(road, "campaign", "stats", "road", "--json")
    data = json.loads(said)
    assert said == json.dumps(data, indent=2) + "\n"
    assert (data["campaign"], data["viewer"], data["fights"]) == ("The Long Road", False, 0)
    assert json.loads(run(road, "campaign", "stats", "road", "--json", "--viewer"))["viewer"] is True


def test_export_reads_the_fights_beside_the_file_and_passes_on_viewer(road: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tracker.reading import campaign_export

    real, seen = campaign_export.export, []

    def spy(camp: object, folder: Path, fmt: str, viewer: bool = False) -> str:
        seen.append((folder, fmt, viewer))
        return real(camp, folder, fmt, viewer=viewer)  # type: ignore[arg-type]

    monkeypatch.setattr(campaign_export, "export", spy)
    run(road, "new", "road-1", "--campaign", "road")
    assert "under way" in run(road, "campaign", "export", "road", "--format", "md")
    run(road, "campaign", "export", "road", "--format", "html", "--viewer")
    assert seen == [(road, "md", False), (road, "html", True)]


def test_export_prints_the_page_or_writes_it_to_a_file(road: Path, tmp_path: Path) -> None:
    md = run(road, "campaign", "export", "road", "--format", "md")
    assert md.startswith("# The Long Road\n")
    page = run(road, "campaign", "export", "road", "--format", "html")
    assert page.startswith("<!DOCTYPE html>")
    target = tmp_path / "road.md"
    assert run(road, "campaign", "export", "road", "--format", "md", "--output", str(target)) == f"wrote {target}\n"
    assert target.read_text(encoding="utf-8") == md


# ------------------------------------------------------------------ rest
def test_a_rest_is_eight_hours_unless_told_and_full_restores_everyone(road: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(road, "campaign", "set", "road", "Ann", "hp=3")
    out = run(road, "campaign", "rest", "road", "Ann.hp=2", "--note", "by the fire")
    assert out.splitlines()[-1] == "  Bo: nothing to recover" and out.endswith("recover\n")
    assert out.startswith("The Long Road: the party rests 8 hours (stated by the GM)\n") and "Ann: hp 3 -> 5" in out
    rest = campaign(road).rests[-1].args
    assert (rest["hours"], rest["note"]) == (8, "by the fire")
    run(road, "campaign", "rest", "road", "hours=1")
    assert campaign(road).pc("Ann").resources == {"hp": 5}  # nothing stated, nothing healed
    run(road, "campaign", "rest", "road", "hours=1", "full=true")
    assert campaign(road).pc("Ann").resources == {"hp": 10}
    rests = len(campaign(road).rests)
    assert "campaign rest: hours: expected a number, got 'long'" in refused(road, capsys, "campaign", "rest", "road", "hours=long")
    assert "full: expected true or false" in refused(road, capsys, "campaign", "rest", "road", "full=perhaps")
    assert "--note: control characters are not allowed" in refused(road, capsys, "campaign", "rest", "road", "--note", "x\x1b[2J")
    assert "campaign rest: hours given twice" in refused(road, capsys, "campaign", "rest", "road", "hours=1", "hours=2")
    assert len(campaign(road).rests) == rests


@pytest.fixture
def heroes(saves: Path) -> Path:
    """Brand X's Seraph, 5 DP down: an hour's rest makes one Healing Roll (seed 004)."""
    run(saves, "campaign", "new", "heroes", "--ruleset", "brandx")
    run(saves, "campaign", "add", "heroes", "Seraph", "constitution=10", "strength=11", "agility=22", "vp=43", "dp=15", "ep=74")
    run(saves, "new", "bank", "--campaign", "heroes")
    play(saves, "bank", "damage Seraph 5 resource=dp")
    run(saves, "campaign", "end", "bank", "--yes")
    return saves


def test_a_rest_rolls_the_dice_typed_or_a_seeded_roll_again_alike(heroes: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Sphere(10) 9 + pool 10 (+9) = 18; 5 + 4 = 9: Q 9 heals DP 10 -> 15.
    out = run(heroes, "campaign", "rest", "heroes", "hours=1", "--faces", "5,4")
    assert "rolled 5+4 = 9: Q 9: dp +5" in out
    assert campaign(heroes, "heroes").rests[-1].args["rolls"][0]["dice"] == [5, 4]
    run(heroes, "campaign", "undo", "heroes")
    said = refused(heroes, capsys, "campaign", "rest", "heroes", "hours=2", "--faces", "10,10")
    assert "--faces: the roll needs more dice than the 2 typed" in said  # hour 2 rolls again
    run(heroes, "campaign", "rest", "heroes", "hours=1", "--faces", "5,4")
    # Healed: a second rest rolls nothing, and dice typed for it are named as unused.
    said = refused(heroes, capsys, "campaign", "rest", "heroes", "hours=1", "--faces", "5,4")
    assert "--faces: 2 typed but the roll used 0; unused: 5, 4" in said
    run(heroes, "campaign", "undo", "heroes")
    seen = set()
    for _ in range(3):
        seen.add(run(heroes, "campaign", "rest", "heroes", "hours=5", "--seed", "11"))
        run(heroes, "campaign", "undo", "heroes")
    assert len(seen) == 1


# ------------------------------------------------------------------ end
def test_end_shows_asks_at_a_terminal_and_ends_on_yes(road: Path) -> None:
    run(road, "new", "road-1", "--campaign", "road")
    play(road, "road-1", "damage Ann 3")
    code, out = _at_terminal(road, "n\n", "campaign", "end", "road-1")
    assert code == 1
    assert out.endswith("End the fight and send this back to the campaign? [y/N] not ended\n")
    assert out.startswith("End road 1 (road-1.toml) at segment 0: 2 of 2 of the party standing\n")
    assert not fight(road, "road-1").ended and campaign(road).fights[0].open
    code, out = _at_terminal(road, " YES \n", "campaign", "end", "road-1", "--outcome", "they ran")
    assert code == 0
    assert out.startswith("End road 1 (road-1.toml) at segment 0: they ran\n")  # the outcome shown is the one sent
    assert out.endswith("? [y/N] ended road-1.toml; the party of The Long Road goes on as shown\n")
    camp = campaign(road)
    assert fight(road, "road-1").ended and camp.pc("Ann").resources == {"hp": 7}
    assert camp.fights[0].outcome == "they ran"


def test_end_at_a_terminal_takes_y(road: Path) -> None:
    run(road, "new", "road-1", "--campaign", "road")
    code, _ = _at_terminal(road, "y\n", "campaign", "end", "road-1")
    assert code == 0 and fight(road, "road-1").ended


def test_end_without_a_terminal_needs_yes_and_refuses_a_bad_outcome(road: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(road, "new", "road-1", "--campaign", "road")
    said = refused(road, capsys, "campaign", "end", "road-1", stdin="y\n")
    assert "tracker: campaign end: say --yes to end it without asking (standard input is not a terminal)" in said
    assert "--outcome: control characters are not allowed" in refused(road, capsys, "campaign", "end", "road-1", "--yes", "--outcome", "x\x1b[2J")
    assert not fight(road, "road-1").ended
    out = run(road, "campaign", "end", "road-1", "--yes")
    assert out.splitlines()[-1] == "ended road-1.toml; the party of The Long Road goes on as shown"
    assert out.endswith("\nended road-1.toml; the party of The Long Road goes on as shown\n") and "[y/N]" not in out


def test_end_is_refused_if_the_fight_changed_while_the_gm_read_it(road: Path) -> None:
    """What the GM confirmed is what goes back: a change made to the fight while the
    question was on screen refuses the end, and nothing is ended."""
    run(road, "new", "road-1", "--campaign", "road")

    class Meanwhile(_Terminal):
        def readline(self, size: int | None = -1) -> str:
            play(road, "road-1", "damage Ann 2")
            return "y\n"

    out = io.StringIO()
    code = main(["--saves", str(road), "campaign", "end", "road-1"], stdin=Meanwhile(""), stdout=out)
    assert code == 1
    assert not fight(road, "road-1").ended and campaign(road).fights[0].open


def test_an_unknown_subcommand_is_refused_by_name(road: Path) -> None:
    from tracker.command.campaign import run as campaign_run

    args = argparse.Namespace(campaign_command="bogus", name="road")
    with pytest.raises(TrackerError, match="unknown campaign command 'bogus'"):
        campaign_run(args, road, io.StringIO(), io.StringIO())


def test_every_change_is_signed_with_the_os_account_as_the_gm(road: Path) -> None:
    """docs/campaigns.md: "Every change is signed with who made it (the OS account, as a
    fight's changes are)"."""
    run(road, "campaign", "set", "road", "Ann", "hp=7")
    run(road, "campaign", "rest", "road", "hours=1", "full=true")
    run(road, "new", "road-1", "--campaign", "road")
    run(road, "campaign", "end", "road-1", "--yes")
    run(road, "campaign", "remove", "road", "Bo")
    kinds = [(e.kind, e.by) for e in campaign(road).events]
    me = Role.gm().signature(account())
    assert kinds == [("join", me), ("join", me), ("set", me), ("rest", me), ("fight", me), ("end", me), ("leave", me)]


def test_a_campaign_with_house_rules_reads_them_beside_its_file_for_every_change(saves: Path, tmp_path: Path,
                                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    (saves / "house.toml").write_text("", encoding="utf-8")
    run(saves, "campaign", "new", "road", "--ruleset", "freeform", "--house-rules", "house.toml")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # no house.toml here: only the campaign's folder has it
    run(saves, "campaign", "add", "road", "Ann", "hp=10")
    assert run(saves, "campaign", "set", "road", "Ann", "hp=4") == "Ann: hp 4/10\n"
    assert "Ann: hp 4 -> 10" in run(saves, "campaign", "rest", "road", "full=true")
