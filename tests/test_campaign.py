"""Campaigns from the command line (docs/campaigns.md): the party carried from fight to
fight, its file's guarantees, ending and reopening fights, and what is refused by name.

Each test works in its own saves folder with the `tracker` command run in-process
(`tests.helpers.cli`); every file the tracker writes is read back with a fresh load.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from tracker.persistence.campaign_file import CampaignError, CampaignFile
from tracker.persistence.store import EncounterFile
from tracker.reading.roles import Role, account
from tests.helpers import cli


def run(saves: Path, *argv: str, stdin: str = "") -> str:
    code, out = cli("--saves", str(saves), *argv, stdin=stdin)
    assert code == 0, out
    return out


def refused(saves: Path, capsys: pytest.CaptureFixture[str], *argv: str, stdin: str = "") -> str:
    capsys.readouterr()
    code, _ = cli("--saves", str(saves), *argv, stdin=stdin)
    assert code == 1
    return capsys.readouterr().err


def campaign(saves: Path, name: str = "road") -> Any:
    return CampaignFile(saves / f"{name}.campaign.toml").load()


def fight(saves: Path, name: str) -> Any:
    return EncounterFile(saves / f"{name}.toml").load().encounter


@pytest.fixture
def saves(tmp_path: Path) -> Path:
    folder = tmp_path / "saves"
    folder.mkdir()
    return folder


@pytest.fixture
def road(saves: Path) -> Path:
    """A freeform campaign of two characters: Ann (hp 10) and Bo (hp 8)."""
    run(saves, "campaign", "new", "road", "--ruleset", "freeform", "--title", "The Long Road")
    run(saves, "campaign", "add", "road", "Ann", "hp=10", "side=party")
    run(saves, "campaign", "add", "road", "Bo", "hp=8", "side=party")
    return saves


def play(saves: Path, name: str, *lines: str) -> str:
    return run(saves, "play", name, stdin="\n".join(lines) + "\n")


def ended(saves: Path, name: str) -> str:
    return run(saves, "campaign", "end", name, "--yes")


# ------------------------------------------------------------------ the party goes on
def test_the_party_carries_its_wounds_and_conditions_into_the_next_fight(road: Path) -> None:
    run(road, "new", "road-1", "--campaign", "road")
    first = fight(road, "road-1")
    assert [(c.name, c.pc, c.resources["hp"]) for c in first.combatants.values()] == [("Ann", "pc1", 10), ("Bo", "pc2", 8)]
    play(road, "road-1", "add Goblin hp=5 side=foes", "damage Ann 4", "condition Bo poisoned 30", "step 10")
    out = ended(road, "road-1")
    assert "Ann: hp 10 -> 6 of 10 (-4)" in out and "Bo: poisoned (20 segments left)" in out
    camp = campaign(road)
    assert camp.pc("Ann").resources == {"hp": 6} and camp.pc("Bo").conditions == {"poisoned": 20}
    run(road, "new", "road-2", "--campaign", "road")
    second = fight(road, "road-2")
    ann, bo = second.combatant("Ann"), second.combatant("Bo")
    assert (ann.resources["hp"], ann.maxima["hp"]) == (6, 10)  # wounds kept, maximum as the sheet says
    assert bo.conditions == {"poisoned": 20}  # time left, from segment 0 of the new fight
    assert "Goblin" not in second.combatants  # foes are the GM's to add, fight by fight


def test_show_json_lists_the_party_as_show_lists_combatants_and_the_fights_in_order(road: Path) -> None:
    run(road, "new", "road-1", "--campaign", "road")
    play(road, "road-1", "damage Bo 3", "step 7")
    ended(road, "road-1")
    run(road, "new", "road-2", "--campaign", "road")
    data = json.loads(run(road, "campaign", "show", "road", "--json"))
    assert [p["name"] for p in data["party"]] == ["Ann", "Bo"]
    assert data["party"][1]["resources"] == {"hp": 5} and data["party"][1]["maxima"] == {"hp": 8}
    assert [(f["file"], f["ended"], f["segments"]) for f in data["fights"]] == [("road-1.toml", True, 7), ("road-2.toml", False, None)]
    assert data["fights"][0]["outcome"] == "2 of 2 of the party standing"
    assert [e["kind"] for e in data["events"]] == ["join", "join", "fight", "end", "fight"]
    me = Role.gm().signature(account())
    assert {e["by"] for e in data["events"]} == {me}  # every change signed with who made it


def test_only_one_fight_is_under_way_and_it_lives_beside_the_campaign(road: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    run(road, "new", "road-1", "--campaign", "road")
    said = refused(road, capsys, "new", "road-2", "--campaign", "road")
    assert "the fight road 1 (road-1.toml) is still under way: end it first" in said
    elsewhere = tmp_path / "other"
    elsewhere.mkdir()
    said = refused(road, capsys, "new", str(elsewhere / "x.toml"), "--campaign", "road")
    assert "a campaign's fights live beside its file" in said
    assert refused(road, capsys, "new", "road-3", "--campaign", "road", "--ruleset", "d6").count("the campaign says the game") == 1
    assert not (road / "road-2.toml").exists()


def test_a_fight_of_another_game_is_refused_by_name_as_the_foes_source(road: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(road, "new", "orcs", "--ruleset", "ogs")
    said = refused(road, capsys, "new", "road-1", "--campaign", "road", "--from", "orcs")
    assert "orcs.toml plays ogs; the campaign The Long Road plays freeform" in said
    run(road, "new", "wolves", "--ruleset", "freeform")
    play(road, "wolves", "add Wolf x2 hp=4 side=wolves", "add Ann hp=99")
    run(road, "new", "road-1", "--campaign", "road", "--from", "wolves")
    names = [(c.name, c.pc) for c in fight(road, "road-1").combatants.values()]
    assert names == [("Ann", "pc1"), ("Bo", "pc2"), ("Wolf 1", ""), ("Wolf 2", "")]  # the other Ann is not ours


# ------------------------------------------------------------------ ending
def test_ending_shows_what_goes_back_then_asks_and_closes_the_fight(road: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(road, "new", "road-1", "--campaign", "road")
    play(road, "road-1", "damage Ann 3")
    said = refused(road, capsys, "campaign", "end", "road-1")
    assert "say --yes" in said
    assert campaign(road).fights[0].open and not fight(road, "road-1").ended  # nothing changed
    out = ended(road, "road-1")
    assert out.splitlines()[:3] == [
        "End road 1 (road-1.toml) at segment 0: 2 of 2 of the party standing",
        "The party's state goes back to the campaign The Long Road:",
        "  Ann: hp 10 -> 7 of 10 (-3)",
    ]
    assert "refused" not in out
    said = refused(road, capsys, "play", "road-1", stdin="damage Bo 1\n")
    assert "this fight has ended (campaign The Long Road)" in said
    said = refused(road, capsys, "campaign", "end", "road-1", "--yes")
    assert "has already ended" in said and "campaign undo" in said


def test_undo_of_an_end_reopens_the_fight_and_redo_closes_it_again(road: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(road, "new", "road-1", "--campaign", "road")
    play(road, "road-1", "damage Ann 3")
    ended(road, "road-1")
    assert run(road, "campaign", "undo", "road") == "undo: the fight road-1.toml ends\n"
    assert campaign(road).pc("Ann").resources == {"hp": 10} and campaign(road).fights[0].open
    assert not fight(road, "road-1").ended
    run(road, "campaign", "redo", "road")
    assert campaign(road).pc("Ann").resources == {"hp": 7} and fight(road, "road-1").ended
    run(road, "campaign", "undo", "road")
    play(road, "road-1", "damage Ann 1")  # the reopened fight goes on
    said = refused(road, capsys, "campaign", "redo", "road")
    assert "nothing to redo" in said or "has changed since it was reopened" in said
    ended(road, "road-1")
    assert campaign(road).pc("Ann").resources == {"hp": 6}


def test_an_end_cannot_be_undone_once_something_later_depends_on_it(road: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(road, "new", "road-1", "--campaign", "road")
    play(road, "road-1", "damage Ann 3")
    ended(road, "road-1")
    run(road, "campaign", "rest", "road", "hours=8", "Ann.hp=2")
    said = refused(road, capsys, "play", "road-1", stdin="undo\n")
    assert "this fight's end belongs to its campaign The Long Road" in said  # never reopened behind the campaign's back
    assert run(road, "campaign", "undo", "road").startswith("undo: the party rests 8 hours")
    assert fight(road, "road-1").ended  # the rest went first; the end is now the latest
    run(road, "campaign", "undo", "road")
    assert not fight(road, "road-1").ended


def test_undo_of_a_fight_start_only_while_nobody_played_it(road: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(road, "new", "road-1", "--campaign", "road")
    play(road, "road-1", "damage Ann 1")
    said = refused(road, capsys, "campaign", "undo", "road")
    assert "has been played (1 changes)" in said and campaign(road).fights
    run(road, "new", "road-2", "--campaign", "road") if False else None
    run(road, "campaign", "end", "road-1", "--yes")
    run(road, "new", "road-2", "--campaign", "road")
    assert run(road, "campaign", "undo", "road") == "undo: the fight road 2 begins\n"
    assert [f.file for f in campaign(road).fights] == ["road-1.toml"]
    assert (road / "road-2.toml").exists()  # kept: it opens as a fight of its own


# ------------------------------------------------------------------ between fights
def test_stated_rest_heals_up_to_the_maximum_and_counts_for_every_character(road: Path) -> None:
    run(road, "new", "road-1", "--campaign", "road")
    play(road, "road-1", "damage Ann 6", "damage Bo 5")
    ended(road, "road-1")
    out = run(road, "campaign", "rest", "road", "hours=8", "Ann.hp=4", "Bo.hp=20", "--note", "a night at the inn")
    assert "stated by the GM" in out and "Ann: hp 4 -> 8" in out and "Bo: hp 3 -> 8" in out
    camp = campaign(road)
    assert (camp.pc("Ann").resources, camp.pc("Bo").resources) == ({"hp": 8}, {"hp": 8})
    assert camp.rests[-1].args["note"] == "a night at the inn"
    run(road, "campaign", "rest", "road", "hours=1", "full=true")
    assert campaign(road).pc("Ann").resources == {"hp": 10}


def test_characters_join_leave_and_die_and_a_fight_takes_only_the_party(road: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(road, "new", "road-1", "--campaign", "road")
    said = refused(road, capsys, "campaign", "remove", "road", "Bo", "died=true")
    assert "Bo is in the fight road 1 (road-1.toml), still under way" in said
    ended(road, "road-1")
    run(road, "campaign", "remove", "road", "Bo", "died=true", "note=the bridge")
    run(road, "campaign", "add", "road", "Cy", "hp=12")
    run(road, "campaign", "set", "road", "Ann", "hp.max=14", "name=Anna", "condition.blessed=40")
    run(road, "new", "road-2", "--campaign", "road")
    entered = fight(road, "road-2").combatants
    assert list(entered) == ["Anna", "Cy"]
    assert entered["Anna"].maxima == {"hp": 14} and entered["Anna"].conditions == {"blessed": 40}
    data = json.loads(run(road, "campaign", "show", "road", "--json"))
    assert [(p["name"], p["status"]) for p in data["former"]] == [("Bo", "died")]
    said = refused(road, capsys, "campaign", "add", "road", "anna", "hp=3")
    assert "already a character named 'Anna'" in said


def test_a_character_from_the_library_and_the_sheet_checked_by_the_game(saves: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(saves, "campaign", "new", "heroes", "--ruleset", "brandx")
    run(saves, "new", "scratch", "--ruleset", "brandx")
    play(saves, "scratch", "add Seraph agility=22 strength=11 vp=43 dp=15 ep=74", "library save Seraph")
    run(saves, "campaign", "add", "heroes", "Seraph", "from=Seraph")
    pc = campaign(saves, "heroes").pc("Seraph")
    assert (pc.stats["agility"], pc.maxima["vp"]) == (22, 43)
    said = refused(saves, capsys, "campaign", "add", "heroes", "Bad", "agility=lots")
    assert "agility" in said
    said = refused(saves, capsys, "campaign", "set", "heroes", "Seraph", "vp.max=-3x")
    assert "vp" in said


# ------------------------------------------------------------------ the file
def test_the_campaign_file_is_appended_to_never_rewritten(road: Path) -> None:
    path = road / "road.campaign.toml"
    before = path.read_bytes()
    run(road, "campaign", "note", "road", "the party sets out")
    after = path.read_bytes()
    assert after.startswith(before) and after.endswith(b"# revision 3\n")
    assert b'text = "the party sets out"' in after


def test_a_torn_append_is_ignored_and_cut_by_the_next_change(road: Path) -> None:
    path = road / "road.campaign.toml"
    with path.open("ab") as f:
        f.write(b'\n[[events]]\nseq = 3\nkind = "note"\ntext = "half')
    assert len(campaign(road).events) == 2  # the torn tail is not read
    run(road, "campaign", "note", "road", "whole")
    text = path.read_text()
    assert "half" not in text and campaign(road).notes[-1][1] == "whole"


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda t: t.replace('name = "Bo"', "name = 5"), ":23: event 2 (join).name: expected text, got 5"),
        (lambda t: t.replace('kind = "join"\nby', 'kind = "jion"\nby', 1), ":10: event 1: kind: expected one of join, leave"),
        (lambda t: t.replace('pc = "pc2"', 'pc = "pc2"\nnick = "B"', 1), ":23: event 2 (join): unexpected key 'nick'"),
        (lambda t: t.replace("schema_version = 1", "schema_version = 9"), "schema_version: expected 1, got 9"),
        (lambda t: t.replace('kind = "campaign"', 'kind = "fight"'), 'kind: expected "campaign"'),
        (lambda t: t.replace("\n[[events]]\nseq = 1", "\n[[events]\nseq = 1", 1), "not valid TOML: Expected ']]' at the end of an array declaration (at line 10, column 9)"),
    ],
)
def test_a_hand_broken_campaign_file_is_refused_naming_file_line_and_field(road: Path, capsys: pytest.CaptureFixture[str], change: Any, said: str) -> None:
    path = road / "road.campaign.toml"
    path.write_text(change(path.read_text()))
    before = path.read_bytes()
    message = refused(road, capsys, "campaign", "show", "road")
    assert str(path) in message and said in message, message
    assert refused(road, capsys, "campaign", "note", "road", "x")  # never written while it does not load
    assert path.read_bytes() == before


def test_links_fifos_and_huge_files_are_refused(road: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    secret = tmp_path / "secret.campaign.toml"
    secret.write_text((road / "road.campaign.toml").read_text())
    (road / "link.campaign.toml").symlink_to(secret)
    assert "outside" in refused(road, capsys, "campaign", "show", "link")
    os.mkfifo(road / "pipe.campaign.toml")
    assert "FIFO" in refused(road, capsys, "campaign", "show", "pipe")
    (road / "huge.campaign.toml").write_bytes(b"#" * (4 * 1024 * 1024 + 1))
    assert "over" in refused(road, capsys, "campaign", "show", "huge")


def test_a_viewer_session_changes_no_campaign(road: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACKER_READ_ONLY", "1")
    before = (road / "road.campaign.toml").read_bytes()
    assert "read-only" in refused(road, capsys, "campaign", "note", "road", "x")
    assert (road / "road.campaign.toml").read_bytes() == before


def test_a_missing_or_changed_fight_is_listed_as_such_and_nothing_else_is_lost(road: Path) -> None:
    run(road, "new", "road-1", "--campaign", "road")
    play(road, "road-1", "damage Ann 2")
    ended(road, "road-1")
    run(road, "new", "road-2", "--campaign", "road")
    play(road, "road-2", "damage Bo 2")
    ended(road, "road-2")
    with (road / "road-1.toml").open("a") as f:  # a hand edit after the end
        f.write("\n# a stray comment\n# revision 99\n")
    (road / "road-2.toml").unlink()
    data = json.loads(run(road, "campaign", "show", "road", "--json"))
    assert [f["status"] for f in data["fights"]] == ["changed since it ended", "missing"]
    assert [p["resources"] for p in data["party"]] == [{"hp": 8}, {"hp": 6}]
    assert "[missing]" in run(road, "campaign", "show", "road")


def test_a_file_that_is_not_a_campaign_is_refused(saves: Path) -> None:
    path = saves / "x.campaign.toml"
    path.write_text('schema_version = 1\nname = "x"\nruleset = "freeform"\n# revision 0\n')
    with pytest.raises(CampaignError, match='kind: expected "campaign"'):
        CampaignFile(path).load()


# ------------------------------------------------------------------ statistics
def test_campaign_stats_sum_every_fight_and_weigh_luck_over_all_of_them(saves: Path) -> None:
    run(saves, "campaign", "new", "heroes", "--ruleset", "brandx")
    run(saves, "campaign", "add", "heroes", "Seraph", "agility=22", "strength=11", "vp=43", "dp=15", "ep=74", "side=heroes")
    per_fight = []
    for n, (faces, secret) in enumerate(((("5,4", "9,9"), False), (("3,3", "10,10"), True)), 1):
        run(saves, "new", f"f{n}", "--campaign", "heroes")
        play(saves, f"f{n}", "add Sphinx agility=15 strength=14 vp=40 dp=14 ep=60 side=foes",
             f"declare Seraph punch target=Sphinx throwback=false faces={faces[0]}", "step 20",
             f"declare Seraph punch target=Sphinx throwback=false faces={faces[1]}" + (" secret=true" if secret else ""), "step 20")
        per_fight.append(json.loads(run(saves, "stats", f"f{n}", "--json")))
        ended(saves, f"f{n}")
    gm = json.loads(run(saves, "campaign", "stats", "heroes", "--json"))
    seraph = gm["party"][0]
    own = [next(c for c in f["combatants"] if c["name"] == "Seraph") for f in per_fight]
    assert seraph["fights"] == 2 and seraph["declared"] == 4 == sum(o["declared"] for o in own)
    assert seraph["succeeded"] == sum(o["succeeded"] for o in own) and seraph["missed"] == sum(o["missed"] for o in own)
    assert seraph["dealt"] == {"vp": sum(o["dealt"].get("vp", 0) for o in own)}
    luck = seraph["luck"]
    assert luck["rolls"] == 4 and luck["successes"] == sum(o["luck"]["successes"] for o in own)
    assert luck["expected"] == pytest.approx(sum(o["luck"]["expected"] for o in own))
    assert luck["tail_exact"] is True
    viewers = json.loads(run(saves, "campaign", "stats", "heroes", "--json", "--viewer"))["party"][0]
    assert viewers["rolled_in_secret"] == 1 and viewers["luck"]["rolls"] == 3  # the secret roll's outcome stays hidden
    assert "Seraph (2 fights): 4 actions" in run(saves, "campaign", "stats", "heroes")


def test_the_campaign_export_holds_the_party_fights_and_two_charts(road: Path) -> None:
    run(road, "new", "road-1", "--campaign", "road")
    play(road, "road-1", "damage Ann 4", "step 3")
    ended(road, "road-1")
    run(road, "campaign", "set", "road", "Bo", "name=<i>Bo|x</i>")
    page = run(road, "campaign", "export", "road", "--format", "html")
    assert page.count("<svg") == 2 and "<script" not in page
    assert "&lt;i&gt;Bo|x&lt;/i&gt;" in page and "<i>Bo" not in page  # a name is text, never markup
    assert "hp 10 -&gt; 6" in page
    md = run(road, "campaign", "export", "road", "--format", "md")
    assert "\\<i\\>Bo\\|x\\</i\\>" in md and "| 1 | road 1 | road-1.toml |" in md


@pytest.mark.parametrize(("tally", "said"), [
    ({"luck": {"3/2": [1, 1]}}, "'3/2': expected a chance written n/d, from 0 to 1"),
    ({"luck": {"1/2": [1, 2]}}, "luck.1/2: expected [rolls, successes], successes at most rolls, got [1, 2]"),
    ({"declared": -1}, "gm.declared: expected a whole number of at least 0, got -1"),
    ({"dealt": {"hp": "lots"}}, "gm.dealt.hp: expected a number"),
])
def test_a_fights_figures_in_the_campaign_are_checked_by_name(road: Path, tally: dict[str, Any], said: str) -> None:
    from tracker.engine import Event as _Event, TrackerError

    run(road, "new", "road-1", "--campaign", "road")
    camp = campaign(road)
    with pytest.raises(TrackerError, match=re.escape(said)):
        camp.apply(_Event("end", {"file": "road-1.toml", "revision": 1, "stats": {"pc1": {"gm": tally}}}))
    assert camp.fights[0].open  # refused whole


def test_an_end_undone_and_redone_is_listed_as_ended_not_changed(road: Path) -> None:
    run(road, "new", "road-1", "--campaign", "road")
    ended(road, "road-1")
    run(road, "campaign", "undo", "road")
    run(road, "campaign", "redo", "road")
    data = json.loads(run(road, "campaign", "show", "road", "--json"))
    assert data["fights"][0]["status"] == "ended"
    run(road, "campaign", "note", "road", "later")  # a refold after it keeps the redo's revision
    run(road, "campaign", "undo", "road")
    assert json.loads(run(road, "campaign", "show", "road", "--json"))["fights"][0]["status"] == "ended"
