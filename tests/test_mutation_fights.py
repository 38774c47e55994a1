"""Direct tests of tracker.play.fights: a campaign's fights started with the party as it
stands, ended (the party's state goes back) and an end taken back (the module docstring
and docs/campaigns.md, docs/decisions/0050 and 0051).

The campaign is The Long Road (freeform): Ann (hp 10, speed 3, side party) and Bo (hp 8).
Every file written is read again from its folder.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tracker.engine import Encounter, Event, Setup
from tracker.engine.errors import RuleRefusal, TrackerError
from tracker.persistence.campaign import PC
from tracker.persistence.campaign_file import CampaignFile
from tracker.persistence.store import EncounterFile
from tracker.play import fights
from tracker.play.fights import Change, Preview
from tests.campaign_ui import play
from tests.test_ui_declare import gamble  # noqa: F401 (a fixture: the Gamble game installed)

ANN = {"pc": "pc1", "name": "Ann", "resources": {"hp": 10}, "stats": {"speed": 3}, "side": "party"}
BO = {"pc": "pc2", "name": "Bo", "resources": {"hp": 8}}


def road(folder: Path, *joins: dict[str, Any], ruleset: str = "freeform", house_rules: str = "") -> Path:
    path = folder / "road.campaign.toml"
    store = CampaignFile.create(path, "The Long Road", ruleset, house_rules)
    with store.transaction() as camp:
        for join in joins or (ANN, BO):
            camp.apply(Event("join", join))
    return path




def change_fight(fight: Path, *changes: Any) -> None:
    """Changes made to a fight file by hand (a crash between the two files, another
    campaign's end): each a function of the encounter giving the event to apply."""
    store = EncounterFile(fight)
    held = [store.load().encounter]
    with store.transaction(held[0], lambda e: held.__setitem__(0, e)) as enc:
        for change in changes:
            enc.apply(change(enc))


def revision_of(fight: Path) -> int:
    store = EncounterFile(fight)
    store.load()
    return store.revision


def camp_of(path: Path) -> Any:
    return CampaignFile(path).load()


def fight_of(path: Path) -> Encounter:
    return EncounterFile(path).load().encounter


# ------------------------------------------------------------------ naming
def test_a_campaign_named_is_a_path_or_a_name_in_the_saves_folder(tmp_path: Path) -> None:
    saves = tmp_path / "saves"
    assert fights.campaign_path("road", saves) == saves / "road.campaign.toml"
    assert fights.campaign_path("road.campaign.toml", saves) == Path("road.campaign.toml")
    assert fights.campaign_path("old/road", saves) == Path("old/road.campaign.toml")
    assert fights.campaign_path("old/road.campaign.toml", saves) == Path("old/road.campaign.toml")
    assert fights.campaign_path(str(tmp_path / "road"), saves) == tmp_path / "road.campaign.toml"
    assert fights.campaign_path("road.toml", saves) == saves / "road.toml.campaign.toml"


def test_the_game_is_the_campaigns_with_its_house_rules_read_beside_it(tmp_path: Path) -> None:
    path = road(tmp_path)
    camp = camp_of(path)
    assert fights.ruleset_of(camp, tmp_path).id == "freeform"
    camp.house_rules = "rules.toml"  # named, not there: read, so refused by name
    with pytest.raises(TrackerError, match=r"^The Long Road: house_rules: .*rules\.toml: file not found$"):
        fights.ruleset_of(camp, tmp_path)


def test_the_house_rules_are_read_from_the_campaigns_folder_wherever_the_app_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/guide/saves.md: a house-rules file's rows replace the shipped ones (OGS's attack PT 10 made 7)."""
    folder = tmp_path / "campaigns"
    folder.mkdir()
    (folder / "house.toml").write_text("[time]\nattack = 7\n", encoding="utf-8")
    camp = CampaignFile.create(folder / "road.campaign.toml", "Road", "ogs", "house.toml").load()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # no house.toml here
    game = fights.ruleset_of(camp, folder)
    assert game.id == "ogs" and game.template("attack").pt == 7


def test_a_fight_names_its_campaign_or_is_a_fight_of_its_own(tmp_path: Path) -> None:
    alone = Encounter(Setup("skirmish", "freeform", fights.ruleset_of(camp_of(road(tmp_path)), tmp_path).time, ("hp",), {}, []))
    with pytest.raises(RuleRefusal, match=r"^skirmish\.toml is a fight of its own, not of a campaign \(rule: campaign\)$"):
        fights.campaign_of(tmp_path / "skirmish.toml", alone)
    alone.setup.campaign = "road.campaign.toml"
    assert fights.campaign_of(tmp_path / "skirmish.toml", alone) == tmp_path / "road.campaign.toml"


# ------------------------------------------------------------------ a character brought in
def test_a_character_comes_into_a_fight_as_they_stand() -> None:
    pc = PC("pc1", "Ann", stats={"speed": 3, "wits": 2}, sheet={"speed": 4, "wits": 2, "luck": 1},
            maxima={"hp": 10, "mp": 5}, resources={"hp": 6, "mp": 5}, conditions={"poisoned": 20}, side="party")
    event = fights.entry_event(pc)
    assert event.kind == "add"
    # The sheet's stats and resources (the maxima), then what differs now: hp 6, speed 3.
    assert event.args == {
        "name": "Ann", "stats": {"speed": 4, "wits": 2, "luck": 1}, "resources": {"hp": 10, "mp": 5}, "pc": "pc1", "side": "party",
        "current": {"hp": 6, "speed": 3}, "conditions": {"poisoned": 20},
    }
    fresh = fights.entry_event(PC("pc2", "Bo", maxima={"hp": 8}, resources={"hp": 8}))
    assert fresh.args == {"name": "Bo", "stats": {}, "resources": {"hp": 8}, "pc": "pc2"}
    # A stat the sheet lacks stands as it is (nothing to differ from).
    extra = fights.entry_event(PC("pc3", "Cy", stats={"rage": 2}, maxima={"hp": 4}, resources={"hp": 4}))
    assert extra.args == {"name": "Cy", "stats": {"rage": 2}, "resources": {"hp": 4}, "pc": "pc3"}
    pc.conditions["poisoned"] = 5
    assert event.args["conditions"] == {"poisoned": 20}  # a copy, not the campaign's own


def test_a_characters_state_in_the_fight_is_read_at_its_present(tmp_path: Path) -> None:
    path = road(tmp_path)
    _, enc = fights.start(path, tmp_path / "road-1.toml", "road 1")
    assert fights.state_in(enc, "pc1") == {"name": "Ann", "stats": {"speed": 3}, "maxima": {"hp": 10}, "resources": {"hp": 10}, "conditions": {}}
    session = play(tmp_path / "road-1.toml", "damage Ann 4", "condition Ann blessed 30", "condition Ann dazed 3", "set Ann mp 2",
                   "rename Ann Anna", "step 5")
    enc = session.encounter
    # blessed until segment 30, seen at segment 5: 25 left; dazed ended at 3.
    state = fights.state_in(enc, "pc1")
    assert state == {"name": "Anna", "stats": {"speed": 3}, "maxima": {"hp": 10, "mp": 0}, "resources": {"hp": 6, "mp": 2},
                     "conditions": {"blessed": 25}}
    assert fights.state_in(enc, "pc9") is None
    play(tmp_path / "road-1.toml", "remove Bo")
    assert fights.state_in(fight_of(tmp_path / "road-1.toml"), "pc2") is None


def test_a_condition_ending_at_the_present_is_over(tmp_path: Path) -> None:
    path = road(tmp_path)
    fights.start(path, tmp_path / "road-1.toml", "road 1")
    session = play(tmp_path / "road-1.toml", "condition Bo dazed 3", "step 2")
    assert fights.state_in(session.encounter, "pc2")["conditions"] == {"dazed": 1}  # type: ignore[index]
    session.execute("step 1")
    assert fights.state_in(session.encounter, "pc2")["conditions"] == {}  # type: ignore[index]


# ------------------------------------------------------------------ starting
def test_a_fight_starts_with_the_party_and_is_recorded_in_the_campaign(tmp_path: Path) -> None:
    path = road(tmp_path)
    camp, enc = fights.start(path, tmp_path / "road-1.toml", "road 1", by="gm:me", settings={})
    saved = fight_of(tmp_path / "road-1.toml")
    assert saved.setup.name == "road 1" and saved.setup.ruleset == "freeform" and saved.setup.campaign == "road.campaign.toml"
    assert [(e.kind, e.args, e.by) for e in saved.events] == [
        ("add", {"name": "Ann", "stats": {"speed": 3}, "resources": {"hp": 10}, "pc": "pc1", "side": "party"}, "gm:me"),
        ("add", {"name": "Bo", "stats": {}, "resources": {"hp": 8}, "pc": "pc2"}, "gm:me"),
    ]
    assert [(c.name, c.pc) for c in enc.combatants.values()] == [("Ann", "pc1"), ("Bo", "pc2")]
    reread = camp_of(path)
    event = reread.events[-1]
    assert event.kind == "fight" and event.by == "gm:me"
    assert {k: v for k, v in event.args.items() if k != "at"} == {"file": "road-1.toml", "name": "road 1", "pcs": ["pc1", "pc2"]}
    assert event.args["at"]
    assert [(f.file, f.name, f.pcs, f.open) for f in reread.fights] == [("road-1.toml", "road 1", ("pc1", "pc2"), True)]
    assert camp.fights[0].file == "road-1.toml"


def test_a_fight_started_unsigned_and_its_end_and_walks_are_signed_with_nobody(tmp_path: Path) -> None:
    path = road(tmp_path)
    _, enc = fights.start(path, tmp_path / "road-1.toml", "road 1")
    assert enc.time.clock(enc.now) == fight_of(tmp_path / "road-1.toml").time.clock(0)  # the game's own time
    assert {e.by for e in fight_of(tmp_path / "road-1.toml").events} == {""} and camp_of(path).events[-1].by == ""
    fights.end(tmp_path / "road-1.toml")
    assert fight_of(tmp_path / "road-1.toml").events[-1].by == "" and camp_of(path).events[-1].by == ""
    assert camp_of(path).events[-1].args["outcome"] == "2 of 2 of the party standing"
    fights.walk(path, "undo")
    assert fight_of(tmp_path / "road-1.toml").events[-1].by == "" and camp_of(path).events[-1].by == ""


def test_a_campaign_with_house_rules_starts_its_fight_wherever_the_app_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "campaigns"
    folder.mkdir()
    (folder / "house.toml").write_text("", encoding="utf-8")
    path = road(folder, house_rules="house.toml")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    fights.start(path, folder / "road-1.toml", "road 1")
    monkeypatch.chdir(folder)  # a fight file names its house rules, read beside it
    assert EncounterFile(folder / "road-1.toml").load().house_rules == "house.toml"


def test_a_fights_settings_are_the_games_checked(tmp_path: Path) -> None:
    path = road(tmp_path)
    with pytest.raises(TrackerError) as refused:
        fights.start(path, tmp_path / "road-1.toml", "road 1", settings={"no_such_setting": 1})
    assert str(refused.value).startswith("settings.no_such_setting: expected one of the known keys (")
    assert not (tmp_path / "road-1.toml").exists() and camp_of(path).fights == []
    fights.start(path, tmp_path / "road-1.toml", "road 1", settings={"player_declarations": "approval"})
    assert fight_of(tmp_path / "road-1.toml").setup.settings["player_declarations"] == "approval"


def test_a_fight_lives_beside_its_campaign_under_a_fights_name(tmp_path: Path) -> None:
    path = road(tmp_path)
    elsewhere = tmp_path / "other"
    elsewhere.mkdir()
    with pytest.raises(TrackerError) as refused:
        fights.start(path, elsewhere / "x.toml", "x")
    assert str(refused.value) == f"{elsewhere / 'x.toml'}: a campaign's fights live beside its file, in {tmp_path}"
    with pytest.raises(TrackerError) as refused:
        fights.start(path, tmp_path / "x.campaign.toml", "x")
    assert str(refused.value) == f"{tmp_path / 'x.campaign.toml'}: a fight's file name may not end with .campaign.toml (that is a campaign's)"
    assert not (elsewhere / "x.toml").exists() and not (tmp_path / "x.campaign.toml").exists()
    assert camp_of(path).fights == []
    fights.start(path, tmp_path / "sub" / ".." / "x.toml", "x")  # the same folder, however named
    assert (tmp_path / "x.toml").exists()


def test_one_fight_at_a_time_and_only_with_a_party(tmp_path: Path) -> None:
    path = road(tmp_path)
    fights.start(path, tmp_path / "road-1.toml", "road 1")
    with pytest.raises(RuleRefusal) as refused:
        fights.start(path, tmp_path / "road-2.toml", "road 2")
    assert str(refused.value) == "the fight road 1 (road-1.toml) is still under way: end it first (tracker campaign end road-1.toml) (rule: campaign)"
    assert not (tmp_path / "road-2.toml").exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    store = CampaignFile.create(empty / "lonely.campaign.toml", "Lonely", "freeform")
    with pytest.raises(RuleRefusal) as refused:
        fights.start(store.path, empty / "f.toml", "f")
    assert str(refused.value) == "the campaign Lonely has nobody in its party yet: tracker campaign add lonely NAME key=value ... (rule: campaign)"
    assert not (empty / "f.toml").exists()


def test_the_foes_come_from_another_fights_roster_at_full_strength(tmp_path: Path) -> None:
    path = road(tmp_path)
    EncounterFile.create(tmp_path / "wolves.toml", "wolves", "freeform")
    play(tmp_path / "wolves.toml", "add Wolf hp=4 side=wolves", "add ann hp=99", "add Shade hp=3", "hide Shade", "damage Wolf 3")
    fights.start(path, tmp_path / "road-1.toml", "road 1", by="gm:me", foes=tmp_path / "wolves.toml")
    saved = fight_of(tmp_path / "road-1.toml")
    assert [(e.args["name"], e.by) for e in saved.events] == [("Ann", "gm:me"), ("Bo", "gm:me"), ("Wolf", "gm:me"), ("Shade", "gm:me")]
    assert saved.events[2].args == {"name": "Wolf", "stats": {}, "resources": {"hp": 4}, "side": "wolves"}  # full strength
    assert saved.events[3].args == {"name": "Shade", "stats": {}, "resources": {"hp": 3}, "hidden": True}
    assert saved.combatants["Shade"].hidden and saved.combatants["Wolf"].resources["hp"] == 4


def test_a_campaigns_characters_in_the_other_roster_are_not_foes(tmp_path: Path) -> None:
    path = road(tmp_path)
    fights.start(path, tmp_path / "road-1.toml", "road 1")
    play(tmp_path / "road-1.toml", "add Wolf hp=4")
    fights.end(tmp_path / "road-1.toml")
    fights.start(path, tmp_path / "road-2.toml", "road 2", foes=tmp_path / "road-1.toml")
    assert [(c.name, c.pc) for c in fight_of(tmp_path / "road-2.toml").combatants.values()] == [("Ann", "pc1"), ("Bo", "pc2"), ("Wolf", "")]


def test_foes_of_another_game_are_refused(tmp_path: Path) -> None:
    path = road(tmp_path)
    EncounterFile.create(tmp_path / "orcs.toml", "orcs", "ogs")
    with pytest.raises(RuleRefusal) as refused:
        fights.start(path, tmp_path / "road-1.toml", "road 1", foes=tmp_path / "orcs.toml")
    assert str(refused.value) == "orcs.toml plays ogs; the campaign The Long Road plays freeform (rule: campaign)"
    assert not (tmp_path / "road-1.toml").exists() and camp_of(path).fights == []


# ------------------------------------------------------------------ what goes back
def _state(name: str = "Ann", **kw: Any) -> dict[str, Any]:
    state: dict[str, Any] = {"name": name, "stats": {}, "maxima": {}, "resources": {}, "conditions": {}}
    state.update(kw)
    return state


def test_a_characters_change_is_said_figure_by_figure() -> None:
    before = _state(stats={"speed": 3, "wits": 2}, maxima={"hp": 10, "mp": 4}, resources={"hp": 10, "mp": 4, "luck": 2},
                    conditions={"poisoned": 20, "blessed": 5})
    after = _state("Anna", stats={"speed": 2, "wits": 2}, maxima={"hp": 12, "mp": 4}, resources={"hp": 6.5, "mp": 4, "luck": 3},
                   conditions={"poisoned": 20, "dazed": 3})
    assert Change("pc1", before, after).lines() == [
        "Ann: now called Anna; hp 10 -> 6.5 of 12 (-3.5); luck 2 -> 3 (+1); speed 3 -> 2; hp maximum 10 -> 12; dazed (3 segments left); no longer blessed"
    ]


def test_a_characters_change_of_nothing_is_unchanged_and_a_leaver_keeps_their_state() -> None:
    same = _state(stats={"speed": 3}, maxima={"hp": 10}, resources={"hp": 10}, conditions={"poisoned": 4})
    assert Change("pc1", same, dict(same)).lines() == ["Ann: unchanged"]
    assert Change("pc1", same, None).lines() == ["Ann: left the fight; their state stays as it was"]
    # A figure the fight no longer has is unchanged; a condition's time left changed is said.
    after = _state(stats={}, maxima={}, resources={}, conditions={"poisoned": 2})
    assert Change("pc1", same, after).lines() == ["Ann: poisoned (2 segments left)"]
    healed = _state(resources={"hp": 9}, maxima={"hp": 10})
    assert Change("pc1", _state(resources={"hp": 4}, maxima={"hp": 10}), healed).lines() == ["Ann: hp 4 -> 9 of 10 (+5)"]


def test_the_preview_says_the_fight_its_outcome_and_each_change(tmp_path: Path) -> None:
    preview = Preview(tmp_path / "road-1.toml", tmp_path / "road.campaign.toml", "The Long Road", "road 1", 7, 3, "we won", [
        Change("pc1", _state(resources={"hp": 10}, maxima={"hp": 10}), _state(resources={"hp": 7}, maxima={"hp": 10})),
        Change("pc2", _state("Bo"), None),
    ])
    assert preview.text() == "\n".join([
        "End road 1 (road-1.toml) at segment 7: we won",
        "The party's state goes back to the campaign The Long Road:",
        "  Ann: hp 10 -> 7 of 10 (-3)",
        "  Bo: left the fight; their state stays as it was",
    ])
    assert preview.party() == {"pc1": _state(resources={"hp": 7}, maxima={"hp": 10})}
    assert preview.key() == (3, repr([("pc1", _state(resources={"hp": 7}, maxima={"hp": 10}))]))
    assert Preview(tmp_path, tmp_path, "c", "n", 0, 0, "").changes == []


def test_the_outcome_counts_who_is_still_standing(tmp_path: Path) -> None:
    path = road(tmp_path)
    _, enc = fights.start(path, tmp_path / "road-1.toml", "road 1")
    assert fights.outcome_of(enc) == "2 of 2 of the party standing"
    session = play(tmp_path / "road-1.toml", "damage Bo 8", "add Goblin hp=5", "add Orc hp=5", "damage Orc 5")
    assert fights.outcome_of(session.encounter) == "1 of 2 of the party standing, 1 of 2 others"


def test_ending_shows_first_what_goes_back(tmp_path: Path) -> None:
    path = road(tmp_path)
    fights.start(path, tmp_path / "road-1.toml", "road 1")
    play(tmp_path / "road-1.toml", "damage Ann 3", "condition Bo dazed 10", "step 4")
    before = (tmp_path / "road-1.toml").read_bytes(), path.read_bytes()
    preview = fights.preview(tmp_path / "road-1.toml")
    assert preview.text().splitlines() == [
        "End road 1 (road-1.toml) at segment 4: 2 of 2 of the party standing",
        "The party's state goes back to the campaign The Long Road:",
        "  Ann: hp 10 -> 7 of 10 (-3)",
        "  Bo: dazed (6 segments left)",
    ]
    assert (preview.fight, preview.campaign, preview.campaign_name, preview.name, preview.segment) == (
        tmp_path / "road-1.toml", tmp_path / "road.campaign.toml", "The Long Road", "road 1", 4)
    assert preview.revision == revision_of(tmp_path / "road-1.toml")
    assert fights.preview(tmp_path / "road-1.toml", "  a rout  ").outcome == "a rout"
    assert fights.preview(tmp_path / "road-1.toml", "   ").outcome == "2 of 2 of the party standing"
    assert ((tmp_path / "road-1.toml").read_bytes(), path.read_bytes()) == before  # nothing written


def test_a_character_who_left_the_campaign_is_not_in_the_preview(tmp_path: Path) -> None:
    path = road(tmp_path)
    fights.start(path, tmp_path / "road-1.toml", "road 1")
    camp = camp_of(path)
    fight = camp.fights[0]
    del camp.pcs["pc1"]
    enc = fight_of(tmp_path / "road-1.toml")
    found = fights._preview(camp, fight, tmp_path / "road-1.toml", path, enc, 5, "")
    assert [c.pc for c in found.changes] == ["pc2"] and found.revision == 5  # the others still there


def test_an_end_sends_the_party_back_and_closes_the_fight(tmp_path: Path) -> None:
    path = road(tmp_path)
    fights.start(path, tmp_path / "road-1.toml", "road 1")
    play(tmp_path / "road-1.toml", "damage Ann 3", "condition Bo dazed 10", "step 4")
    camp, found = fights.end(tmp_path / "road-1.toml", by="gm:me", outcome="a rout")
    assert found.outcome == "a rout" and found.segment == 4
    assert (found.fight, found.campaign, found.campaign_name) == (tmp_path / "road-1.toml", path, "The Long Road")
    fight = fight_of(tmp_path / "road-1.toml")
    assert fight.ended == "The Long Road"
    assert fight.events[-1].kind == "end" and fight.events[-1].by == "gm:me"
    assert fight.events[-1].args == {"campaign": "The Long Road", "outcome": "a rout"}
    reread = camp_of(path)
    event = reread.events[-1]
    assert event.kind == "end" and event.by == "gm:me"
    assert event.args["file"] == "road-1.toml" and event.args["segment"] == 4 and event.args["outcome"] == "a rout"
    assert event.args["revision"] == revision_of(tmp_path / "road-1.toml")  # the fight file's, its end written
    assert event.args["party"] == {"pc1": {"resources": {"hp": 7}}, "pc2": {"conditions": {"dazed": 6}}}
    assert event.args["at"]
    assert reread.pc("Ann").resources == {"hp": 7} and reread.pc("Bo").conditions == {"dazed": 6}
    assert not reread.fights[0].open and camp.pc("Ann").resources == {"hp": 7}
    with pytest.raises(RuleRefusal) as refused:
        fights.end(tmp_path / "road-1.toml")
    assert str(refused.value) == (f"the fight road 1 (road-1.toml) has already ended (campaign change {reread.events[-1].seq}); "
                                  "`tracker campaign undo` reopens it (rule: campaign)")


def test_an_end_confirmed_is_refused_if_the_fight_changed_since(tmp_path: Path) -> None:
    path = road(tmp_path)
    fights.start(path, tmp_path / "road-1.toml", "road 1")
    play(tmp_path / "road-1.toml", "damage Ann 3")
    shown = fights.preview(tmp_path / "road-1.toml")
    play(tmp_path / "road-1.toml", "damage Ann 1")
    with pytest.raises(RuleRefusal) as refused:
        fights.end(tmp_path / "road-1.toml", expect=shown)
    assert str(refused.value) == "road-1.toml changed since its end was shown: look again (tracker campaign end road-1.toml) (rule: campaign)"
    assert camp_of(path).fights[0].open and not fight_of(tmp_path / "road-1.toml").ended
    again = fights.preview(tmp_path / "road-1.toml")
    _, found = fights.end(tmp_path / "road-1.toml", expect=again)
    assert found.key() == again.key() and camp_of(path).pc("Ann").resources == {"hp": 6}


def test_an_end_recorded_in_the_fight_only_is_recorded_in_the_campaign_again(tmp_path: Path) -> None:
    """A crash between the two files: the fight ended in its file, the campaign still
    has it under way; `campaign end` again records it (the module docstring)."""
    path = road(tmp_path)
    fights.start(path, tmp_path / "road-1.toml", "road 1")
    play(tmp_path / "road-1.toml", "damage Ann 2")
    change_fight(tmp_path / "road-1.toml", lambda enc: Event("end", {"campaign": "The Long Road", "outcome": "crashed"}))
    events = len(fight_of(tmp_path / "road-1.toml").events)
    _, found = fights.end(tmp_path / "road-1.toml", outcome="crashed")
    assert len(fight_of(tmp_path / "road-1.toml").events) == events  # no second end in the fight
    assert not camp_of(path).fights[0].open and camp_of(path).pc("Ann").resources == {"hp": 8}


def test_a_fight_ended_by_another_campaign_is_not_this_ones_to_end(tmp_path: Path) -> None:
    path = road(tmp_path)
    fights.start(path, tmp_path / "road-1.toml", "road 1")
    change_fight(tmp_path / "road-1.toml", lambda enc: Event("end", {"campaign": "The Short Road", "outcome": ""}))
    with pytest.raises(RuleRefusal) as refused:
        fights.end(tmp_path / "road-1.toml")
    assert str(refused.value) == "road-1.toml was ended by the campaign The Short Road, not The Long Road (rule: campaign)"
    assert camp_of(path).fights[0].open


# ------------------------------------------------------------------ a fight's figures kept
def test_a_fights_figures_are_kept_per_character_as_the_gm_and_the_viewers_see_them(tmp_path: Path) -> None:
    path = road(tmp_path)
    fights.start(path, tmp_path / "road-1.toml", "road 1")
    play(tmp_path / "road-1.toml", "add Goblin hp=5", "declare Ann attack target=Goblin pt=3 damage=2", "step 3", "damage Bo 8", "step 2")
    enc = fight_of(tmp_path / "road-1.toml")
    ann = {"declared": 1, "no_roll": 1, "dealt": {"hp": 2}, "acting": 3, "idle": 2}
    bo = {"taken": {"hp": 8}, "idle": 3, "down": 2}
    assert fights.stats_of(enc) == {"pc1": {"gm": ann, "viewer": ann}, "pc2": {"gm": bo, "viewer": bo}}  # no Goblin: not the campaign's
    fights.end(tmp_path / "road-1.toml")
    assert camp_of(path).events[-1].args["stats"] == {"pc1": {"gm": ann, "viewer": ann}, "pc2": {"gm": bo, "viewer": bo}}


def test_luck_is_kept_as_rolls_and_successes_by_chance(tmp_path: Path, gamble: None) -> None:
    """Seed: "17/20" -> [rolls, successes]. Gamble's swing at target 4 is 1/2, at 6 is 1/6."""
    path = road(tmp_path, {"pc": "pc1", "name": "Ann", "resources": {"hp": 10}}, {"pc": "pc2", "name": "Bob", "resources": {"hp": 10}},
                ruleset="gamble")
    fights.start(path, tmp_path / "road-1.toml", "road 1")
    session = play(tmp_path / "road-1.toml")
    session.declare("Ann", "swing", ["Bob"], faces=[6, 1])  # 1/2: a hit
    session.execute("step 5")
    session.declare("Ann", "swing", ["Bob"], faces=[1])  # 1/2: a miss
    session.execute("step 5")
    session.declare("Ann", "swing", ["Bob"], faces=[2], params={"target": "6"})  # 1/6: a miss
    session.declare("Bob", "swing", ["Ann"], faces=[5, 4], secret=True)  # the viewers see no figures of it
    session.execute("step 5")
    stats = fights.stats_of(fight_of(tmp_path / "road-1.toml"))
    assert stats["pc1"]["gm"]["luck"] == {"1/2": [2, 1], "1/6": [1, 0]}
    assert stats["pc1"]["gm"]["declared"] == 3 and stats["pc1"]["gm"]["succeeded"] == 1 and stats["pc1"]["gm"]["missed"] == 2
    assert stats["pc1"]["viewer"] == stats["pc1"]["gm"]
    # Bob's secret hit: the GM's figures hold its luck; the viewers' only that a secret roll was made.
    assert stats["pc2"]["gm"]["luck"] == {"1/2": [1, 1]} and stats["pc2"]["gm"]["succeeded"] == 1 and "secret" not in stats["pc2"]["gm"]
    assert stats["pc2"]["viewer"]["secret"] == 1 and "luck" not in stats["pc2"]["viewer"] and "succeeded" not in stats["pc2"]["viewer"]
    assert "unrecorded" not in stats["pc1"]["gm"] and "no_roll" not in stats["pc1"]["gm"]


# ------------------------------------------------------------------ undo and redo
def test_undo_of_an_end_reopens_the_fight_and_redo_closes_it(tmp_path: Path) -> None:
    path = road(tmp_path)
    fights.start(path, tmp_path / "road-1.toml", "road 1")
    play(tmp_path / "road-1.toml", "damage Ann 3")
    fights.end(tmp_path / "road-1.toml")
    end_seq = camp_of(path).events[-1].seq
    camp, said = fights.walk(path, "undo", by="gm:me")
    assert said == "undo: the fight road-1.toml ends"
    fight = fight_of(tmp_path / "road-1.toml")
    assert not fight.ended and fight.events[-1].kind == "undo" and fight.events[-1].by == "gm:me"
    event = camp_of(path).events[-1]
    assert event.kind == "undo" and event.by == "gm:me" and event.args["target"] == end_seq and event.args["at"]
    assert event.args["revision"] == revision_of(tmp_path / "road-1.toml")
    assert camp_of(path).pc("Ann").resources == {"hp": 10} and camp_of(path).fights[0].open and camp.fights[0].open
    camp, said = fights.walk(path, "redo")
    assert said == "redo: the fight road-1.toml ends"
    assert fight_of(tmp_path / "road-1.toml").ended == "The Long Road" and camp_of(path).pc("Ann").resources == {"hp": 7}


def test_the_fight_file_revision_is_recorded_with_the_walk(tmp_path: Path) -> None:
    path = road(tmp_path)
    fights.start(path, tmp_path / "road-1.toml", "road 1")
    fights.end(tmp_path / "road-1.toml")
    file = EncounterFile(tmp_path / "road-1.toml")
    file.load()
    ended_at = file.revision
    fights.walk(path, "undo")
    file.load()
    assert camp_of(path).events[-1].args["revision"] == file.revision == ended_at + 1


def test_nothing_to_walk_and_a_walk_of_another_change_are_refused(tmp_path: Path) -> None:
    path = road(tmp_path)
    camp = camp_of(path)
    latest = camp.events[-1].seq
    with pytest.raises(RuleRefusal) as refused:
        fights.walk(path, "redo")
    assert str(refused.value) == "nothing to redo in the campaign The Long Road (rule: redo)"
    with pytest.raises(RuleRefusal) as refused:
        fights.walk(path, "undo", target=latest - 1)
    assert str(refused.value) == (f"the campaign The Long Road has changed: its latest change is now {latest} "
                                  f"({camp.describe(camp.events[-1])}), not {latest - 1} (rule: undo)")
    assert len(camp_of(path).events) == len(camp.events)
    _, said = fights.walk(path, "undo", target=latest)
    assert said == f"undo: {camp.describe(camp.events[-1])}" and "pc2" not in camp_of(path).pcs


def test_a_fights_start_is_undone_only_while_nobody_played_it(tmp_path: Path) -> None:
    path = road(tmp_path)
    fights.start(path, tmp_path / "road-1.toml", "road 1")
    play(tmp_path / "road-1.toml", "damage Ann 1", "step 2")
    with pytest.raises(RuleRefusal) as refused:
        fights.walk(path, "undo")
    assert str(refused.value) == ("the fight road 1 (road-1.toml) has been played (2 changes): "
                                  "end it (tracker campaign end road-1.toml) rather than undo its start (rule: undo)")
    assert camp_of(path).fights
    fights.end(tmp_path / "road-1.toml")
    fights.start(path, tmp_path / "road-2.toml", "road 2")
    _, said = fights.walk(path, "undo")
    assert said == "undo: the fight road 2 begins"
    assert [f.file for f in camp_of(path).fights] == ["road-1.toml"] and (tmp_path / "road-2.toml").exists()
    fights.walk(path, "redo")  # a start brought back: the file is as it was
    assert [f.file for f in camp_of(path).fights] == ["road-1.toml", "road-2.toml"]
    (tmp_path / "road-2.toml").unlink()  # missing: the campaign only forgets it
    _, said = fights.walk(path, "undo")
    assert said == "undo: the fight road 2 begins"


def test_an_end_whose_fight_cannot_be_read_stays_as_it_is(tmp_path: Path) -> None:
    path = road(tmp_path)
    fights.start(path, tmp_path / "road-1.toml", "road 1")
    fights.end(tmp_path / "road-1.toml")
    (tmp_path / "road-1.toml").write_text("not a save", encoding="utf-8")
    with pytest.raises(RuleRefusal) as refused:
        fights.walk(path, "undo")
    assert str(refused.value).startswith("the fight's file cannot be read, so its end stays as it is: ")
    assert str(refused.value).endswith(" (rule: undo)") and "road-1.toml" in str(refused.value)
    assert not camp_of(path).fights[0].open


def test_a_fight_changed_since_its_end_was_walked_is_refused(tmp_path: Path) -> None:
    path = road(tmp_path)
    fights.start(path, tmp_path / "road-1.toml", "road 1")
    fights.end(tmp_path / "road-1.toml")
    fights.walk(path, "undo")
    play(tmp_path / "road-1.toml", "damage Ann 1")  # the reopened fight goes on
    with pytest.raises(RuleRefusal) as refused:
        fights.walk(path, "redo")
    assert str(refused.value) == "road-1.toml has changed since it was reopened: end it again (tracker campaign end road-1.toml) (rule: redo)"
    fights.end(tmp_path / "road-1.toml")
    change_fight(tmp_path / "road-1.toml", lambda enc: Event("undo", {"target": enc.events[-1].seq}))  # reopened behind the campaign's back
    assert not fight_of(tmp_path / "road-1.toml").ended
    _, said = fights.walk(path, "undo")  # never closed now: nothing to reopen, the campaign's end taken back
    assert said == "undo: the fight road-1.toml ends" and camp_of(path).fights[0].open
    assert "revision" not in camp_of(path).events[-1].args


def test_a_fights_aborted_actions_are_kept_with_its_figures(tmp_path: Path) -> None:
    path = road(tmp_path)
    fights.start(path, tmp_path / "road-1.toml", "road 1")
    play(tmp_path / "road-1.toml", "add Goblin hp=5", "declare Ann attack target=Goblin pt=5 damage=2", "step 1", "abort Ann", "step 1")
    stats = fights.stats_of(fight_of(tmp_path / "road-1.toml"))
    assert stats["pc1"]["gm"]["aborted"] == 1 and stats["pc1"]["viewer"]["aborted"] == 1
