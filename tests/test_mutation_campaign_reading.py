"""`tracker.reading.campaign`, read back as the reference says (docs/campaigns.md, "What is
listed", "Statistics and exports", and `campaign show --json`'s keys): each fight's file
looked at only for whether it is still as it ended, the party and the fights as text and
JSON, and the statistics summed over the ended fights without replaying any.

The campaigns are built from their events in memory; the fight files are written by hand
(only their last `# revision N` mark is read).
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from tracker.engine.model import Event
from tracker.persistence.campaign import Campaign, Fight
from tracker.reading import campaign as reading
from tracker.reading.stats import luck_of

AT1, AT2, AT3 = "2026-01-02T20:00:00Z", "2026-01-02T21:30:00Z", "2026-01-03T19:00:00Z"


def party_of_three() -> Campaign:
    """Ann (hp 10, str 12), Bo (hp 8) and Cy (mp 4), all of the party."""
    camp = Campaign("The Road", "freeform")
    camp.apply(Event("join", {"pc": "pc1", "name": "Ann", "resources": {"hp": 10}, "stats": {"str": 12}, "side": "party", "at": AT1}, by="gm"))
    camp.apply(Event("join", {"pc": "pc2", "name": "Bo", "resources": {"hp": 8}, "side": "party"}))
    camp.apply(Event("join", {"pc": "pc3", "name": "Cy", "resources": {"mp": 4}}))
    return camp


def tally(**figures: Any) -> dict[str, Any]:
    return dict(figures)


# ------------------------------------------------------------------ fight_status
def fight_of(file: str = "road-1.toml", revision: int = 3, ended: bool = True) -> Fight:
    return Fight(file, "The docks", 1, AT1, ("pc1",), ended=5 if ended else 0, revision=revision)


def test_a_fight_whose_file_is_gone_is_missing_ended_or_not(tmp_path: Path) -> None:
    assert reading.fight_status(tmp_path, fight_of()) == reading.MISSING == "missing"
    assert reading.fight_status(tmp_path, fight_of(ended=False)) == reading.MISSING


def test_an_ended_fight_whose_last_mark_is_the_recorded_revision_is_ended(tmp_path: Path) -> None:
    (tmp_path / "road-1.toml").write_bytes(b"# revision 3\n")  # the mark alone: its first byte counts
    assert reading.fight_status(tmp_path, fight_of(revision=3)) == reading.ENDED == "ended"
    assert reading.fight_status(tmp_path, fight_of(revision=2)) == reading.CHANGED == "changed since it ended"


def test_only_the_last_mark_of_a_long_file_counts(tmp_path: Path) -> None:
    body = b"# revision 2\n" + b"# " + b"x" * 900 + b"\n" + b"# revision 7\n"
    (tmp_path / "road-1.toml").write_bytes(body)
    assert reading.fight_status(tmp_path, fight_of(revision=7)) == reading.ENDED
    assert reading.fight_status(tmp_path, fight_of(revision=2)) == reading.CHANGED


def test_a_torn_tail_after_the_recorded_mark_is_a_change(tmp_path: Path) -> None:
    (tmp_path / "road-1.toml").write_bytes(b"# revision 3\n[[events]]\nkind = ")
    assert reading.fight_status(tmp_path, fight_of(revision=3)) == reading.CHANGED


def test_a_fight_under_way_is_under_way_whatever_its_marks(tmp_path: Path) -> None:
    (tmp_path / "road-1.toml").write_bytes(b"# revision 9\ntorn")
    assert reading.fight_status(tmp_path, fight_of(ended=False)) == reading.OPEN == "under way"


def test_a_fight_file_that_is_not_a_regular_file_is_unreadable(tmp_path: Path) -> None:
    (tmp_path / "road-1.toml").mkdir()
    assert reading.fight_status(tmp_path, fight_of()) == reading.UNREADABLE == "unreadable"
    assert reading.fight_status(tmp_path, fight_of(ended=False)) == reading.UNREADABLE


def test_a_fight_file_over_a_saves_limit_is_unreadable(tmp_path: Path) -> None:
    # A save is at most 24 MiB (decision 0044): one bigger is refused unread, its mark too.
    path = tmp_path / "road-1.toml"
    with path.open("wb") as out:
        out.truncate(24 * 1024 * 1024 + 1 - len(b"\n# revision 3\n"))
        out.seek(0, 2)
        out.write(b"\n# revision 3\n")
    assert reading.fight_status(tmp_path, fight_of(revision=3)) == reading.UNREADABLE
    with path.open("r+b") as out:
        out.truncate(24 * 1024 * 1024 - 1 - len(b"\n# revision 3\n"))
        out.seek(0, 2)
        out.write(b"\n# revision 3\n")
    assert reading.fight_status(tmp_path, fight_of(revision=3)) == reading.ENDED


# ------------------------------------------------------------------ show
def played() -> Campaign:
    """Two fights ended (the second left Ann hurt, lowered and poisoned), Bo dead, a rest,
    and a third fight under way."""
    camp = party_of_three()
    camp.apply(Event("fight", {"file": "road-1.toml", "name": "The docks", "pcs": ["pc1", "pc2"], "at": AT1}))
    camp.apply(Event("end", {"file": "road-1.toml", "revision": 4, "segment": 45, "outcome": "the thugs flee",
                             "party": {"pc1": {"resources": {"hp": 6}, "stats": {"str": 10}, "conditions": {"poisoned": 20}}}, "at": AT2}))
    camp.apply(Event("leave", {"pc": "pc2", "reason": "died", "note": "fell at the docks"}))
    camp.apply(Event("rest", {"hours": 8, "rule": "stated by the GM", "party": {}, "rolls": [], "note": "at the inn"}))
    camp.apply(Event("rest", {"hours": 1, "rule": "stated by the GM", "party": {}, "rolls": []}))
    camp.apply(Event("fight", {"file": "road-2.toml", "name": "The roof", "pcs": ["pc1", "pc3"], "at": AT3}))
    return camp


def test_a_character_as_show_json_gives_a_combatant_with_its_id_sheet_and_status() -> None:
    camp = played()
    ann = camp.pc("Ann")
    assert reading.pc_json(ann) == {
        "name": "Ann", "pc": "pc1", "side": "party", "status": "active",
        "resources": {"hp": 6}, "maxima": {"hp": 10}, "stats": {"str": 10}, "sheet": {"str": 12},
        "conditions": {"poisoned": 20},
    }
    out = reading.pc_json(ann)
    out["resources"]["hp"] = 0
    out["maxima"]["hp"] = 0
    out["stats"]["str"] = 0
    out["sheet"]["str"] = 0
    out["conditions"]["poisoned"] = 0
    assert (ann.resources, ann.maxima, ann.stats, ann.sheet, ann.conditions) == ({"hp": 6}, {"hp": 10}, {"str": 10}, {"str": 12}, {"poisoned": 20})


def test_a_fight_in_json_ended_and_under_way() -> None:
    camp = played()
    first, second = camp.fights
    assert reading.fight_json(camp, first, reading.ENDED) == {
        "file": "road-1.toml", "name": "The docks", "status": "ended", "ended": True,
        "started_at": AT1, "ended_at": AT2, "outcome": "the thugs flee", "segments": 45, "party": ["Ann", "Bo"],
    }
    assert reading.fight_json(camp, second, reading.OPEN) == {
        "file": "road-2.toml", "name": "The roof", "status": "under way", "ended": False,
        "started_at": AT3, "ended_at": None, "outcome": None, "segments": None, "party": ["Ann", "Cy"],
    }


def test_an_ended_fight_with_no_words_has_no_outcome_nor_end_time_and_its_unknown_names_are_left_out() -> None:
    camp = party_of_three()
    fight = Fight("road-9.toml", "Quiet", 4, "", ("pc9", "pc2"), ended=5, segment=0)
    assert reading.fight_json(camp, fight, reading.MISSING) == {
        "file": "road-9.toml", "name": "Quiet", "status": "missing", "ended": True, "started_at": "",
        "ended_at": None, "outcome": None, "segments": 0, "party": ["Bo"],
    }


def test_show_json_lists_party_former_fights_events_and_undo(tmp_path: Path) -> None:
    camp = played()
    (tmp_path / "road-1.toml").write_bytes(b"# revision 4\n")
    out = reading.to_json(camp, tmp_path)
    assert list(out) == ["name", "ruleset", "house_rules", "party", "former", "fights", "events", "can_undo", "can_redo"]
    assert (out["name"], out["ruleset"], out["house_rules"]) == ("The Road", "freeform", None)
    assert [p["name"] for p in out["party"]] == ["Ann", "Cy"]
    assert [(p["name"], p["status"]) for p in out["former"]] == [("Bo", "died")]
    assert [(f["file"], f["status"]) for f in out["fights"]] == [("road-1.toml", "ended"), ("road-2.toml", "missing")]
    assert out["events"][0] == {"seq": 1, "kind": "join", "by": "gm", "at": AT1, "what": "Ann joins the party"}
    assert out["events"][5] == {"seq": 6, "kind": "leave", "by": "", "at": None, "what": "Bo dies"}
    assert [e["seq"] for e in out["events"]] == list(range(1, 10))
    assert (out["can_undo"], out["can_redo"]) == (True, False)
    camp.apply(Event("undo", {}))
    after = reading.to_json(camp, tmp_path)
    assert (after["can_undo"], after["can_redo"]) == (True, True)
    assert reading.to_json(Campaign("Empty", "d6", "house.toml"), tmp_path) == {
        "name": "Empty", "ruleset": "d6", "house_rules": "house.toml", "party": [], "former": [], "fights": [],
        "events": [], "can_undo": False, "can_redo": False,
    }


def test_show_text_the_party_the_gone_the_fights_with_their_state_and_the_rests(tmp_path: Path) -> None:
    camp = played()
    (tmp_path / "road-1.toml").write_bytes(b"# revision 5\n")  # changed since it ended
    (tmp_path / "road-2.toml").write_bytes(b"# revision 1\n")
    assert reading.to_text(camp, tmp_path).splitlines() == [
        "The Road (freeform)",
        "",
        "The party:",
        "  Ann: hp 6/10, str 10 (sheet 12), poisoned (20 segments left)",
        "  Cy: mp 4/4",
        "Gone:",
        "  Bo (died: fell at the docks)",
        "",
        "Fights:",
        "  1. The docks (road-1.toml): the thugs flee, 45 segments [changed since it ended]",
        "  2. The roof (road-2.toml): under way",
        "",
        "Rests:",
        "  8 hours (stated by the GM): at the inn",
        "  1 hour (stated by the GM)",
    ]
    (tmp_path / "road-1.toml").write_bytes(b"# revision 4\n")
    assert "  1. The docks (road-1.toml): the thugs flee, 45 segments" in reading.to_text(camp, tmp_path).splitlines()


def test_show_text_of_a_new_campaign_with_house_rules_and_one_who_left() -> None:
    camp = Campaign("Empty", "d6", "house.toml")
    assert reading.to_text(camp, Path("/nonexistent")).splitlines() == [
        "Empty (d6, house rules house.toml)", "", "The party:", "  nobody yet", "", "Fights:", "  none yet",
    ]
    camp.apply(Event("join", {"pc": "pc1", "name": "Dee", "resources": {"hp": 0, "luck": 3}}))
    camp.apply(Event("leave", {"pc": "pc1"}))
    assert reading.to_text(camp, Path("/nonexistent")).splitlines() == [
        "Empty (d6, house rules house.toml)", "", "The party:", "  nobody yet", "Gone:", "  Dee (left)", "", "Fights:", "  none yet",
    ]


def test_a_fights_missing_file_is_flagged_under_way_or_ended(tmp_path: Path) -> None:
    camp = played()
    lines = reading.to_text(camp, tmp_path).splitlines()
    assert "  1. The docks (road-1.toml): the thugs flee, 45 segments [missing]" in lines
    assert "  2. The roof (road-2.toml): under way [missing]" in lines


def test_figures_a_resource_of_no_maximum_at_zero_and_one_above_it() -> None:
    camp = Campaign("Sheet", "freeform")
    camp.apply(Event("join", {"pc": "pc1", "name": "Eve", "resources": {"hp": 5, "shield": 0, "grit": 0}, "stats": {"wits": 3, "luck": 2.5}}))
    camp.apply(Event("set", {"pc": "pc1", "resources": {"grit": 2, "hp": 2.5}, "conditions": {"blind": 3, "slow": 1}}))
    camp.apply(Event("fight", {"file": "f.toml", "name": "F", "pcs": ["pc1"]}))
    camp.apply(Event("end", {"file": "f.toml", "revision": 1, "party": {"pc1": {"stats": {"luck": 1.5}}}}))
    assert reading.to_text(camp, Path("/nonexistent")).splitlines()[3] == (
        "  Eve: hp 2.5/5, shield 0, grit 2/0, luck 1.5 (sheet 2.5), blind (3 segments left), slow (1 segments left)"
    )


def test_what_show_prints_is_printable(tmp_path: Path) -> None:
    camp = Campaign("Bell\x07", "freeform")
    assert "\x07" not in reading.to_text(camp, tmp_path)
    assert reading.to_text(camp, tmp_path).splitlines()[0].startswith("Bell")


# ------------------------------------------------------------------ statistics
GM1 = tally(declared=3, succeeded=2, missed=1, no_roll=0, secret=0, aborted=1, interrupted=0, acting=12, idle=4, down=2, unrecorded=1,
            dealt={"hp": 7}, taken={"hp": 4}, healed={}, costs={"ep": 2.5}, luck={"1/2": [2, 1], "3/4": [1, 1]})
VIEW1 = tally(declared=3, succeeded=1, missed=1, secret=1, acting=12, idle=4, down=2, dealt={"hp": 7}, taken={"hp": 4}, luck={"1/2": [1, 1]})
GM2 = tally(declared=2, succeeded=0, missed=2, no_roll=1, interrupted=1, acting=6, idle=1, down=0,
            dealt={"hp": 3, "stun": 2}, taken={}, healed={"hp": 1}, costs={"ep": 1}, luck={"1/2": [2, 0]})


def stats_campaign() -> Campaign:
    camp = party_of_three()
    camp.apply(Event("fight", {"file": "f1.toml", "name": "One", "pcs": ["pc1", "pc2"]}))
    camp.apply(Event("end", {"file": "f1.toml", "revision": 2, "segment": 30, "outcome": "won",
                             "stats": {"pc1": {"gm": GM1, "viewer": VIEW1}, "pc2": {"gm": tally(declared=1, succeeded=1)}}}))
    camp.apply(Event("fight", {"file": "f2.toml", "name": "Two", "pcs": ["pc1"]}))
    camp.apply(Event("end", {"file": "f2.toml", "revision": 3, "segment": 12, "outcome": "fled", "stats": {"pc1": {"gm": GM2, "viewer": GM2}}}))
    camp.apply(Event("fight", {"file": "f3.toml", "name": "Three", "pcs": ["pc1"]}))
    return camp


def test_a_total_sums_counts_tables_and_luck_over_fights() -> None:
    total = reading.Total("Ann", "pc1")
    total.add(GM1)
    total.add(GM2)
    assert total.fights == 2
    assert total.counts == {"declared": 5, "succeeded": 2, "missed": 3, "no_roll": 1, "secret": 0, "aborted": 1,
                            "interrupted": 1, "acting": 18, "idle": 5, "down": 2, "unrecorded": 1}
    assert total.tables == {"dealt": {"hp": 10, "stun": 2}, "taken": {"hp": 4}, "healed": {"hp": 1}, "costs": {"ep": 3.5}}
    half, most = Fraction(1, 2), Fraction(3, 4)
    assert total.chances == [half, half, most, half, half]
    assert total.outcomes == [True, False, True, False, False]
    out = total.to_json()
    assert list(out) == ["name", "pc", "fights", "declared", "succeeded", "missed", "no_roll", "rolled_in_secret", "aborted",
                         "interrupted", "acting", "idle", "down", "dealt", "taken", "healed", "costs", "luck"]
    assert (out["name"], out["pc"], out["fights"], out["declared"], out["rolled_in_secret"]) == ("Ann", "pc1", 2, 5, 0)
    assert out["luck"] == luck_of([half, half, most, half, half], [True, False, True, False, False], 1).to_json()
    assert (out["luck"]["rolls"], out["luck"]["successes"], out["luck"]["expected_fraction"], out["luck"]["unrecorded"]) == (5, 2, "11/4", 1)


def test_a_totals_luck_past_the_limit_is_counted_not_listed_and_not_weighed() -> None:
    """Luck is weighed over at most 5,000 rolls (rulesets/limits.py); a campaign's end
    can hold any count (a hand-edited file had 300,000,000 rolls at 1/2: "internal error:
    MemoryError"), which is added up, never made into a list of every roll, and said not
    weighed. (50,000 here: the same path, and a list of them would not hurt the machine.)"""
    huge = reading.Total("Ann", "pc1")
    huge.add({"luck": {"1/2": [50_000, 0]}})
    assert huge.chances == [] and huge.counted == (50_000, 0, Fraction(25_000))
    luck = huge.to_json()["luck"]
    assert (luck["rolls"], luck["successes"], luck["expected_fraction"], luck["weighed"], luck["tail"]) == (50_000, 0, "25000/1", False, None)
    assert luck["verdict"] == "not weighed (more than 5,000 rolls)"
    # Over two fights: 4,000 then 1,001 at 3/4 (3,000 and 751 hit) is past the limit; the
    # first fight's rolls are counted in with the second's.
    two = reading.Total("Bo", "pc2")
    two.add({"luck": {"3/4": [4000, 3000]}})
    assert len(two.chances or []) == 4000 and two.counted is None
    two.add({"luck": {"3/4": [1001, 751]}})
    assert two.counted == (5001, 3751, Fraction(3, 4) * 5001) and two.chances == []
    assert two.to_json()["luck"]["successes"] == 3751
    two.add({"luck": {"1/2": [2, 2]}})
    assert two.counted == (5003, 3753, Fraction(3, 4) * 5001 + 1)
    at = reading.Total("Cy", "pc3")
    at.add({"luck": {"1/2": [5000, 2500]}})
    assert at.counted is None and at.to_json()["luck"]["weighed"] is True  # 5,000 is weighed


def test_a_total_of_nothing_counts_zero_and_has_no_rolls() -> None:
    total = reading.Total("Bo", "pc2")
    out = total.to_json()
    assert out == {"name": "Bo", "pc": "pc2", "fights": 0, "declared": 0, "succeeded": 0, "missed": 0, "no_roll": 0,
                   "rolled_in_secret": 0, "aborted": 0, "interrupted": 0, "acting": 0, "idle": 0, "down": 0,
                   "dealt": {}, "taken": {}, "healed": {}, "costs": {}, "luck": luck_of([], [], 0).to_json()}
    assert out["luck"]["verdict"] == "no rolls"
    total.add({"declared": None, "dealt": None, "luck": None, "unrecorded": 2})
    out = total.to_json()
    assert (out["fights"], out["declared"], out["dealt"], out["luck"]["rolls"], out["luck"]["unrecorded"]) == (1, 0, {}, 0, 2)
    assert out["luck"]["verdict"] == "no chances recorded"


def test_a_totals_tables_are_its_own() -> None:
    total = reading.Total("Ann", "pc1")
    total.add(GM1)
    total.to_json()["dealt"]["hp"] = 99
    assert total.tables is not None and total.tables["dealt"] == {"hp": 7}
    assert GM1["dealt"] == {"hp": 7}


def test_campaign_stats_per_character_over_the_ended_fights_as_the_gm_sees_them() -> None:
    figures = reading.stats(stats_campaign())
    assert (figures["campaign"], figures["ruleset"], figures["viewer"], figures["fights"]) == ("The Road", "freeform", False, 2)
    assert list(figures) == ["campaign", "ruleset", "viewer", "fights", "party", "per_fight"]
    ann, bo = figures["party"]  # Cy fought no fight: not listed
    assert (ann["name"], ann["pc"], ann["fights"], ann["declared"], ann["missed"], ann["dealt"]) == ("Ann", "pc1", 2, 5, 3, {"hp": 10, "stun": 2})
    assert (bo["name"], bo["fights"], bo["declared"], bo["succeeded"]) == ("Bo", 1, 1, 1)
    one, two = figures["per_fight"]
    assert {k: one[k] for k in ("file", "name", "segments", "outcome")} == {"file": "f1.toml", "name": "One", "segments": 30, "outcome": "won"}
    assert list(one["party"]) == ["pc1", "pc2"] and list(two["party"]) == ["pc1"]
    assert (one["party"]["pc1"]["fights"], one["party"]["pc1"]["declared"], one["party"]["pc1"]["dealt"]) == (1, 3, {"hp": 7})
    assert (two["file"], two["segments"], two["outcome"], two["party"]["pc1"]["missed"]) == ("f2.toml", 12, "fled", 2)


def test_campaign_stats_as_viewers_see_them_count_a_secret_roll_as_secret() -> None:
    figures = reading.stats(stats_campaign(), viewer=True)
    assert (figures["viewer"], figures["fights"]) == (True, 2)
    (ann,) = figures["party"]  # Bo's fight kept only the GM's view
    assert (ann["fights"], ann["declared"], ann["succeeded"], ann["rolled_in_secret"]) == (2, 5, 1, 1)
    assert (ann["luck"]["rolls"], ann["luck"]["successes"]) == (3, 1)
    assert list(figures["per_fight"][0]["party"]) == ["pc1"]


def test_campaign_stats_skip_figures_of_someone_not_in_the_campaign_or_not_a_table() -> None:
    camp = party_of_three()
    camp.apply(Event("fight", {"file": "f1.toml", "name": "One", "pcs": ["pc1", "pc2"]}))
    # Bo's figures come first and hold only the viewers' view: the GM's skips him, not Ann.
    camp.apply(Event("end", {"file": "f1.toml", "revision": 2, "stats": {"pc2": {"viewer": tally(declared=4)}, "pc1": {"gm": tally(declared=2)}}}))
    camp.fights[0].stats["pc7"] = {"gm": tally(declared=5)}
    camp.fights[0].stats["pc3"] = {"gm": "not a table"}
    camp.fights[0].stats["pc4"] = "not a table"
    figures = reading.stats(camp)
    assert [(p["pc"], p["declared"]) for p in figures["party"]] == [("pc1", 2)]
    assert list(figures["per_fight"][0]["party"]) == ["pc1"]
    assert [(p["pc"], p["declared"]) for p in reading.stats(camp, viewer=True)["party"]] == [("pc2", 4)]


def test_a_fights_row_names_each_character_as_the_campaign_does() -> None:
    one = reading.stats(stats_campaign())["per_fight"][0]["party"]
    assert [(p["name"], p["pc"], p["fights"]) for p in one.values()] == [("Ann", "pc1", 1), ("Bo", "pc2", 1)]


def test_stats_text_one_block_a_character() -> None:
    text = reading.stats_text(reading.stats(stats_campaign()))
    luck = luck_of([Fraction(1, 2)] * 2 + [Fraction(3, 4)] + [Fraction(1, 2)] * 2, [True, False, True, False, False], 1)
    assert text.splitlines() == [
        "The Road: 2 fights ended",
        "  Ann (2 fights): 5 actions, 2 succeeded, 3 missed",
        "    dealt hp 10, stun 2; taken hp 4; costs ep 3.5",
        "    acting 18, idle 5, down 2 segments",
        f"    luck: 2 successes of 5 rolls, 2.75 expected: {luck.verdict}",
        "  Bo (1 fight): 1 action, 1 succeeded, 0 missed",
        "    dealt none; taken none; costs none",
        "    acting 0, idle 0, down 0 segments",
        "    luck: 0 successes of 0 rolls, 0.00 expected: no rolls",
    ]
    assert luck.verdict == "unluckier than expected" or luck.verdict == "about as expected"


def test_stats_text_lists_every_resource_taken_and_paid() -> None:
    camp = party_of_three()
    camp.apply(Event("fight", {"file": "f1.toml", "name": "One", "pcs": ["pc1"]}))
    figures = tally(declared=1, taken={"hp": 3, "stun": 1.5}, costs={"ep": 2, "mp": 1})
    camp.apply(Event("end", {"file": "f1.toml", "revision": 2, "stats": {"pc1": {"gm": figures}}}))
    assert reading.stats_text(reading.stats(camp)).splitlines()[2] == "    dealt none; taken hp 3, stun 1.5; costs ep 2, mp 1"


def test_stats_text_as_viewers_see_it_and_of_one_fight() -> None:
    camp = party_of_three()
    camp.apply(Event("fight", {"file": "f1.toml", "name": "One", "pcs": ["pc1"]}))
    camp.apply(Event("end", {"file": "f1.toml", "revision": 2, "stats": {"pc1": {"viewer": tally(declared=1, luck={"1/3": [3, 3]})}}}))
    lines = reading.stats_text(reading.stats(camp, viewer=True)).splitlines()
    assert lines[0] == "The Road: 1 fight ended (as viewers see it)"
    assert lines[1] == "  Ann (1 fight): 1 action, 0 succeeded, 0 missed"
    assert lines[4] == "    luck: 3 successes of 3 rolls, 1.00 expected: " + luck_of([Fraction(1, 3)] * 3, [True] * 3).verdict


@pytest.mark.parametrize("name", ["Ann\x1b[31m", "Ann\x07"])
def test_stats_text_prints_no_control_character(name: str) -> None:
    camp = Campaign("The Road", "freeform")
    camp.apply(Event("join", {"pc": "pc1", "name": name}))
    camp.apply(Event("fight", {"file": "f1.toml", "name": "One", "pcs": ["pc1"]}))
    camp.apply(Event("end", {"file": "f1.toml", "revision": 2, "stats": {"pc1": {"gm": tally(declared=1)}}}))
    text = reading.stats_text(reading.stats(camp))
    assert "\x1b" not in text and "\x07" not in text
