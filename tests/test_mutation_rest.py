"""`tracker.play.rest`, as the module docstring and docs/campaigns.md ("Rests") say a rest
goes: Brand X's Healing Roll (seed 004) each round and each hour in a scratch fight, the
hours counting conditions down where a segment has a length, then the GM's amounts; what
changed and the rolls kept in the `rest` event; and what is refused, by name.

Seed 004, "Healing Roll": "The roll is vs. Constitution (Sphere Chart). The character's
current Body DP is added to the Bonus Pool." "Half this (round up) for the VP that is
restored each round. The same amount of EP (round down) are restored each round."
"Physical Healing Roll Q is automatically applied to healing DP, strength, agility,
constitution, and EP, in that order." The numbers (as in tests/test_campaign_rest.py):
Sphere(10) = 9, so Constitution 10 gives 9 and a Body DP of 10 in the pool +9: the
Healing Roll is 18, and a round of rest heals 9 VP and 9 EP. 2d10 at or under 18 fails
only on 19 and 20: 97/100. A Brand X round is 12 s: 300 rounds an hour; a segment
0.24 s: 15,000 segments an hour.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from rulesets import registry
from rulesets.dice import DiceNeeded, PromptingFaces, RandomDice, TypedFaces
from tracker.engine.errors import RuleRefusal, TrackerError
from tracker.engine.model import Event
from tracker.persistence.campaign import Campaign
from tracker.persistence.campaign_file import CampaignFile
from tracker.play import rest as resting

BRANDX = "Brand X's Healing Roll (seed 004)"
SHEET = {"constitution": 10, "strength": 11, "agility": 22}
POOLS = {"vp": 43, "dp": 15, "ep": 74}


def heroes(**now: Any) -> Campaign:
    """Seraph (Brand X), as `now` leaves her: resources, stats, conditions."""
    camp = Campaign("Heroes", "brandx")
    camp.apply(Event("join", {"pc": "pc1", "name": "Seraph", "stats": SHEET, "resources": POOLS}))
    change = {k: v for k, v in (("resources", now.get("resources")), ("conditions", now.get("conditions"))) if v}
    if change:
        camp.apply(Event("set", {"pc": "pc1", **change}))
    if now.get("stats"):  # a stat lowered in a fight (Extra Effort): the sheet stays
        camp.apply(Event("fight", {"file": "f.toml", "name": "F", "pcs": ["pc1"]}))
        camp.apply(Event("end", {"file": "f.toml", "revision": 1, "party": {"pc1": {"stats": now["stats"]}}}))
    return camp


def brandx() -> Any:
    return registry.get("brandx")


def freeform() -> Any:
    return registry.get("freeform")


def road() -> Campaign:
    """Freeform: Ann (hp 4 of 10, str 10 of the sheet's 12, poisoned) and Bo (hp 8, mp 0 of 3)."""
    camp = Campaign("Road", "freeform")
    camp.apply(Event("join", {"pc": "pc1", "name": "Ann", "resources": {"hp": 10}, "stats": {"str": 12}}))
    camp.apply(Event("join", {"pc": "pc2", "name": "Bo", "resources": {"hp": 8, "mp": 3}}))
    camp.apply(Event("set", {"pc": "pc1", "resources": {"hp": 4}, "conditions": {"poisoned": 30}}))
    camp.apply(Event("set", {"pc": "pc2", "resources": {"mp": 0}}))
    camp.apply(Event("fight", {"file": "f.toml", "name": "F", "pcs": ["pc1"]}))
    camp.apply(Event("end", {"file": "f.toml", "revision": 1, "party": {"pc1": {"stats": {"str": 10}}}}))
    return camp


# ------------------------------------------------------------------ Brand X's rule
def test_an_hour_heals_vp_by_the_round_and_dp_by_the_healing_rolls_q() -> None:
    camp = heroes(resources={"vp": 17, "dp": 10})
    rested = resting.rest(camp, brandx(), 1, TypedFaces([5, 4]))
    # VP: 9 a round, 300 rounds: back to 43. The roll 5 + 4 = 9 against 18: Q 9, DP 10 -> 15.
    assert (rested.hours, rested.rule) == (1, BRANDX)
    assert rested.party == {"pc1": {"resources": {"vp": 43, "dp": 15}}}
    assert rested.rolls == [{"pc": "pc1", "label": "Seraph: heal (period=hour), hour 1", "dice": [5, 4], "chance": "97/100",
                             "summary": "physical Healing Roll (hour): Sphere(constitution 10) 9 + pool 10 (+9) = 18; rolled 5+4 = 9: Q 9: dp +5"}]
    assert rested.lines == ["Seraph: vp 17 -> 43; dp 10 -> 15"]
    assert rested.said("Heroes") == [
        "Heroes: the party rests 1 hour (Brand X's Healing Roll (seed 004))",
        "  Seraph: heal (period=hour), hour 1 (97.00%): physical Healing Roll (hour): Sphere(constitution 10) 9 + pool 10 (+9) = 18; rolled 5+4 = 9: Q 9: dp +5",
        "  Seraph: vp 17 -> 43; dp 10 -> 15",
    ]
    event = rested.event()
    assert (event.kind, event.args) == ("rest", {"hours": 1, "rule": BRANDX, "party": rested.party, "rolls": rested.rolls})
    assert rested.event("at the inn").args["note"] == "at the inn"
    assert camp.pc("Seraph").resources == {"vp": 17, "dp": 10, "ep": 74}  # nothing is changed until the event is applied


def test_a_few_rounds_heal_by_the_round_only_and_no_hourly_roll() -> None:
    # 0.01 hours: 36 s, 3 rounds of 12 s: VP and EP +27 each; no hour has passed, no dice.
    rested = resting.rest(heroes(resources={"vp": 10, "dp": 10, "ep": 40}), brandx(), 0.01, TypedFaces([]))
    assert rested.party == {"pc1": {"resources": {"vp": 37, "ep": 67}}}
    assert rested.rolls == [] and rested.lines == ["Seraph: vp 10 -> 37; ep 40 -> 67"]
    assert rested.said("Heroes")[0] == "Heroes: the party rests 0.01 hours (Brand X's Healing Roll (seed 004))"


def test_an_hour_and_a_half_rolls_once_and_heals_the_half_hours_rounds() -> None:
    # Hour 1: 300 rounds (VP back to 43 from 1: 42 healed), the roll 10 + 10 misses; the
    # half hour: 150 more rounds, no roll (two faces typed: a second roll would ask for more).
    rested = resting.rest(heroes(resources={"vp": 1, "dp": 10}), brandx(), 1.5, TypedFaces([10, 10]))
    assert [r["label"] for r in rested.rolls] == ["Seraph: heal (period=hour), hour 1"]
    assert "missed by 2: no healing" in rested.rolls[0]["summary"]
    assert rested.party == {"pc1": {"resources": {"vp": 43}}}


def test_each_hour_rolls_again_while_something_is_to_heal() -> None:
    rested = resting.rest(heroes(resources={"dp": 10}), brandx(), 2, TypedFaces([10, 10, 9, 8]))
    assert [r["label"] for r in rested.rolls] == ["Seraph: heal (period=hour), hour 1", "Seraph: heal (period=hour), hour 2"]
    assert [r["dice"] for r in rested.rolls] == [[10, 10], [9, 8]]
    assert rested.party == {"pc1": {"resources": {"dp": 11}}}  # hour 2: 17 against 18, Q 1


def test_a_stat_below_the_sheet_is_healed_by_the_q_after_dp() -> None:
    # Everything else full: the Q (2 + 3 = 5 against at least 9) passes over DP to strength.
    rested = resting.rest(heroes(stats={"strength": 8}), brandx(), 1, TypedFaces([2, 3]))
    assert rested.party == {"pc1": {"stats": {"strength": 11}}}
    assert rested.lines == ["Seraph: strength 8 -> 11"]


def test_nothing_to_heal_rolls_nothing_all_day() -> None:
    # A full character: no hourly roll, and the day's roll (penetrating DP) finds none off.
    rested = resting.rest(heroes(), brandx(), 24, TypedFaces([]))
    assert rested.rolls == [] and rested.party == {"pc1": {}}
    assert rested.lines == ["Seraph: nothing to recover"]


def test_ep_alone_below_its_maximum_is_something_to_heal() -> None:
    # EP 70 of 74: the rounds of the first hour heal it before the roll, so the roll finds
    # nothing; a resource the rule does not heal by the round (DP) keeps the roll.
    rested = resting.rest(heroes(resources={"ep": 70}), brandx(), 1, TypedFaces([]))
    assert rested.rolls == [] and rested.party == {"pc1": {"resources": {"ep": 74}}}


def test_the_dice_a_rest_still_needs_say_whose_roll_and_its_exact_chance() -> None:
    with pytest.raises(DiceNeeded) as need:
        resting.rest(heroes(resources={"dp": 10}), brandx(), 1, PromptingFaces([]))
    assert need.value.chance == Fraction(97, 100)  # type: ignore[attr-defined]
    assert need.value.label == "Seraph: heal (period=hour), hour 1"  # type: ignore[attr-defined]
    assert need.value.group.who == "Seraph"  # the form asks for Seraph's dice


def test_the_rounds_of_each_hour_heal_by_the_round_not_more() -> None:
    # VP 0 of 5,000: 300 rounds of 9 heal 2,700 in the hour; the roll (10 + 10) misses.
    camp = heroes(resources={"vp": 0, "dp": 10})
    camp.apply(Event("set", {"pc": "pc1", "maxima": {"vp": 5000}}))
    rested = resting.rest(camp, brandx(), 1, TypedFaces([10, 10]))
    assert rested.party == {"pc1": {"resources": {"vp": 2700}}}


def test_a_healing_roll_of_1_heals_1_vp_a_round() -> None:
    # Constitution 1: Sphere(1) = 1, and DP 0 adds nothing: the roll is 1, so a round heals
    # 1 VP (half, rounded up) and no EP (rounded down): 3 rounds, VP 10 -> 13.
    camp = Campaign("Heroes", "brandx")
    camp.apply(Event("join", {"pc": "pc1", "name": "Frail", "stats": {**SHEET, "constitution": 1}, "resources": POOLS}))
    camp.apply(Event("set", {"pc": "pc1", "resources": {"vp": 10, "dp": 0, "ep": 70}}))
    rested = resting.rest(camp, brandx(), 0.01, TypedFaces([]))
    assert rested.party == {"pc1": {"resources": {"vp": 13}}}


def test_one_point_short_is_healed_by_the_rounds() -> None:
    rested = resting.rest(heroes(resources={"vp": 42}), brandx(), 0.01, TypedFaces([]))
    assert rested.party == {"pc1": {"resources": {"vp": 43}}}


def test_each_character_rolls_for_their_own_wounds() -> None:
    # Seraph has nothing to heal; Nyx (after her) has, and rolls.
    camp = heroes()
    camp.apply(Event("join", {"pc": "pc2", "name": "Nyx", "stats": SHEET, "resources": POOLS}))
    camp.apply(Event("set", {"pc": "pc2", "resources": {"dp": 10}}))
    rested = resting.rest(camp, brandx(), 1, TypedFaces([5, 4]))
    assert [r["label"] for r in rested.rolls] == ["Nyx: heal (period=hour), hour 1"]
    assert rested.party == {"pc1": {}, "pc2": {"resources": {"dp": 15}}}


def penetrated() -> Campaign:
    """Seraph with DP 10 of 15, all 5 lost penetrating (healed by the day, not the hour)."""
    camp = Campaign("Heroes", "brandx")
    camp.apply(Event("join", {"pc": "pc1", "name": "Seraph", "stats": SHEET, "resources": {**POOLS, "penetrating_dp": 0}}))
    camp.apply(Event("set", {"pc": "pc1", "resources": {"dp": 10, "penetrating_dp": 5}}))
    return camp


def test_a_day_of_rest_rolls_each_hour_and_at_the_24th_the_days_roll_for_penetrating_dp() -> None:
    # 24 hourly rolls (10 + 10: each misses, and would heal no penetrating DP anyway), then
    # the day's roll: 2 + 3 = 5 against 18, Q 13: the 5 penetrating DP healed.
    rested = resting.rest(penetrated(), brandx(), 24, TypedFaces([10, 10] * 24 + [2, 3]))
    labels = [r["label"] for r in rested.rolls]
    assert labels == [f"Seraph: heal (period=hour), hour {h}" for h in range(1, 25)] + ["Seraph: heal (period=day), hour 24"]
    assert rested.rolls[-1]["summary"].startswith("physical Healing Roll (day): ")
    assert rested.party == {"pc1": {"resources": {"dp": 15, "penetrating_dp": 0}}}


def test_no_days_roll_without_penetrating_dp_to_heal() -> None:
    # DP low all day (every hourly roll misses) but none of it penetrating: 48 faces, no more.
    rested = resting.rest(heroes(resources={"dp": 10}), brandx(), 24, TypedFaces([10, 10] * 24))
    assert len(rested.rolls) == 24 and rested.party == {"pc1": {}}


def test_a_roll_with_no_chance_known_is_said_without_one() -> None:
    rested = resting.Rested(2, "a house rule", rolls=[{"label": "Ann: mend", "chance": "", "summary": "healed 2"},
                                                      {"label": "Bo: mend", "chance": "1/8", "summary": "no luck"}])
    assert rested.said("Road") == ["Road: the party rests 2 hours (a house rule)", "  Ann: mend: healed 2", "  Bo: mend (12.50%): no luck"]


def test_a_seeded_rest_is_the_same_rest_again() -> None:
    one = resting.rest(heroes(resources={"dp": 9, "vp": 20}), brandx(), 3, RandomDice(11))
    two = resting.rest(heroes(resources={"dp": 9, "vp": 20}), brandx(), 3, RandomDice(11))
    assert one.rolls == two.rolls and one.party == two.party and len(one.rolls) >= 1


def test_the_hours_count_conditions_down_where_a_segment_has_a_length() -> None:
    # An hour is 15,000 Brand X segments: dazed for 100 ends, stunned for 20,000 keeps 5,000.
    rested = resting.rest(heroes(conditions={"dazed": 100, "stunned": 20000}), brandx(), 1, TypedFaces([]))
    assert rested.party == {"pc1": {"conditions": {"dazed": 0, "stunned": 5000}}}
    assert rested.lines == ["Seraph: no longer dazed"]


def test_a_character_down_heals_at_rest() -> None:
    # DP 0: an empty pool adds nothing: the Healing Roll is 9; 2 + 3 = 5, Q 4: DP 0 -> 4.
    rested = resting.rest(heroes(resources={"dp": 0}), brandx(), 1, TypedFaces([2, 3]))
    assert rested.rolls[0]["summary"] == "physical Healing Roll (hour): Sphere(constitution 10) 9 = 9; rolled 2+3 = 5: Q 4: dp +4"
    assert rested.party["pc1"]["resources"]["dp"] == 4


# ------------------------------------------------------------------ the GM's amounts
def test_a_game_without_a_rule_rests_by_the_gms_amounts_up_to_the_maximum() -> None:
    camp = road()
    rested = resting.rest(camp, freeform(), 8, TypedFaces([]), {"pc1": {"hp": 9}, "pc2": {"mp": 2, "hp": -3}})
    assert (rested.rule, rested.rolls) == ("stated by the GM", [])
    assert rested.party == {"pc1": {"resources": {"hp": 10}}, "pc2": {"resources": {"hp": 5, "mp": 2}}}
    assert rested.lines == ["Ann: hp 4 -> 10", "Bo: hp 8 -> 5; mp 0 -> 2"]
    assert rested.said("Road") == ["Road: the party rests 8 hours (stated by the GM)", "  Ann: hp 4 -> 10", "  Bo: hp 8 -> 5; mp 0 -> 2"]


def test_without_a_segment_length_conditions_stay() -> None:
    rested = resting.rest(road(), freeform(), 100, TypedFaces([]))
    assert rested.party == {"pc1": {}, "pc2": {}}
    assert rested.lines == ["Ann: nothing to recover", "Bo: nothing to recover"]


def test_full_restores_one_or_everyone() -> None:
    rested = resting.rest(road(), freeform(), 8, TypedFaces([]), full={"pc1"})
    assert rested.party == {"pc1": {"stats": {"str": 12}, "resources": {"hp": 10}, "conditions": {"poisoned": 0}}, "pc2": {}}
    assert rested.lines == ["Ann: hp 4 -> 10; str 10 -> 12; no longer poisoned", "Bo: nothing to recover"]
    everyone = resting.rest(road(), freeform(), 8, TypedFaces([]), everyone_full=True)
    assert everyone.party["pc2"] == {"resources": {"mp": 3}}
    assert everyone.party["pc1"] == rested.party["pc1"]


def test_a_resource_above_its_maximum_is_hurt_from_where_it_stands_and_never_lowered_by_healing() -> None:
    camp = road()
    camp.apply(Event("set", {"pc": "pc2", "resources": {"hp": 12}}))  # 12 of 8, set by the GM
    assert resting.rest(camp, freeform(), 1, TypedFaces([]), {"pc2": {"hp": -1}}).party["pc2"] == {"resources": {"hp": 11}}
    assert resting.rest(camp, freeform(), 1, TypedFaces([]), {"pc2": {"hp": 2}}).party["pc2"] == {}


def test_healing_a_full_resource_leaves_it_full() -> None:
    camp = road()
    assert resting.rest(camp, freeform(), 1, TypedFaces([]), {"pc2": {"hp": 1, "mp": 0.5}}).party["pc2"] == {"resources": {"mp": 0.5}}
    camp.apply(Event("set", {"pc": "pc2", "resources": {"mp": 3}}))
    assert resting.rest(camp, freeform(), 1, TypedFaces([]), {"pc2": {"hp": 1, "mp": 0.5}}).party["pc2"] == {}


def test_the_gms_amounts_come_after_full() -> None:
    rested = resting.rest(road(), freeform(), 8, TypedFaces([]), {"pc1": {"hp": -2}}, full={"pc1"})
    assert rested.party["pc1"]["resources"] == {"hp": 8}


def test_an_amount_of_a_resource_the_character_lacks_is_refused_by_name() -> None:
    with pytest.raises(TrackerError) as said:
        resting.rest(road(), freeform(), 8, TypedFaces([]), {"pc2": {"hp": 1, "vp": 2}})
    assert str(said.value) == "rest: Bo.vp: not one of Bo's resources (hp, mp)"
    camp = Campaign("Bare", "freeform")
    camp.apply(Event("join", {"pc": "pc1", "name": "Cy"}))
    with pytest.raises(TrackerError, match=r"^rest: Cy\.hp: not one of Cy's resources \(none\)$"):
        resting.rest(camp, freeform(), 8, TypedFaces([]), {"pc1": {"hp": 1}})


# ------------------------------------------------------------------ refused
@pytest.mark.parametrize("hours", [0, -1, resting.MAX_HOURS + 0.5])
def test_hours_out_of_range_are_refused(hours: float) -> None:
    with pytest.raises(TrackerError) as said:
        resting.rest(road(), freeform(), hours, TypedFaces([]))
    assert str(said.value).startswith("rest: hours: expected more than 0 and at most 8,784, got ")
    assert str(said.value).endswith(f"got {hours:g}")


def test_a_year_of_rest_is_allowed() -> None:
    assert resting.MAX_HOURS == 8784
    assert resting.rest(road(), freeform(), resting.MAX_HOURS, TypedFaces([])).hours == 8784


def test_a_party_of_nobody_does_not_rest() -> None:
    camp = Campaign("Empty", "freeform")
    with pytest.raises(RuleRefusal, match=r"^the campaign Empty has nobody in its party to rest \(rule: campaign\)$"):
        resting.rest(camp, freeform(), 8, TypedFaces([]))
    camp.apply(Event("join", {"pc": "pc1", "name": "Ann"}))
    camp.apply(Event("leave", {"pc": "pc1"}))
    with pytest.raises(RuleRefusal, match="nobody in its party"):
        resting.rest(camp, freeform(), 8, TypedFaces([]))


def test_a_party_in_a_fight_under_way_does_not_rest() -> None:
    camp = road()
    camp.apply(Event("fight", {"file": "road-2.toml", "name": "The roof", "pcs": ["pc2"]}))
    with pytest.raises(RuleRefusal) as said:
        resting.rest(camp, freeform(), 8, TypedFaces([]))
    assert str(said.value) == "the party is in the fight The roof (road-2.toml), still under way: end it first (tracker campaign end road-2.toml) (rule: campaign)"


def test_a_fight_under_way_without_the_party_does_not_stop_a_rest() -> None:
    camp = road()
    camp.apply(Event("fight", {"file": "road-2.toml", "name": "Elsewhere", "pcs": []}))
    assert resting.rest(camp, freeform(), 8, TypedFaces([]), {"pc1": {"hp": 1}}).party["pc1"] == {"resources": {"hp": 5}}


# ------------------------------------------------------------------ recorded
@pytest.fixture
def road_file(tmp_path: Path) -> Path:
    path = tmp_path / "road.campaign.toml"
    store = CampaignFile.create(path, "Road", "freeform")
    store.change(lambda camp: road().events[:4])
    return path


def test_a_rest_is_recorded_with_the_gms_amounts_and_read_back(road_file: Path) -> None:
    camp, rested = resting.record(road_file, 8, TypedFaces([]), {"Ann.hp": "3", "bo.full": "true", "Ann.full": "no"}, note="at the inn", by="gm")
    assert rested.party == {"pc1": {"resources": {"hp": 7}}, "pc2": {"resources": {"mp": 3}}}
    again = CampaignFile(road_file).load()
    event = again.rests[-1]
    assert event.args["hours"] == 8 and event.args["rule"] == "stated by the GM" and event.args["note"] == "at the inn"
    assert again.events[-1].by == "gm"
    assert (again.pc("Ann").resources, again.pc("Bo").resources) == ({"hp": 7}, {"hp": 8, "mp": 3})
    assert camp.pc("Ann").resources == {"hp": 7}


def test_everyone_full_is_recorded(road_file: Path) -> None:
    _, rested = resting.record(road_file, 1, TypedFaces([]), {}, everyone=True)
    assert rested.party["pc1"] == {"resources": {"hp": 10}, "conditions": {"poisoned": 0}}
    assert "note" not in CampaignFile(road_file).load().rests[-1].args


@pytest.mark.parametrize(("words", "said"), [
    ({"hp": "3"}, "rest: hp: expected hours=N, full=true, PC.KEY=N or PC.full=true"),
    ({"Ann.hp": "lots"}, "rest: Ann.hp: expected a number, got 'lots'"),
    ({"Ann.full": "maybe"}, "Ann.full"),
    ({"Dee.hp": "1"}, "no character 'Dee' in the campaign Road"),
])
def test_words_a_rest_cannot_read_are_refused_and_nothing_is_recorded(road_file: Path, words: dict[str, str], said: str) -> None:
    with pytest.raises(TrackerError) as refused:
        resting.record(road_file, 8, TypedFaces([]), words)
    assert said in str(refused.value)
    assert CampaignFile(road_file).load().rests == []


def test_faces_typed_that_the_rest_did_not_use_record_nothing(road_file: Path) -> None:
    with pytest.raises(TrackerError, match=r"^--faces: 2 typed but the roll used 0; unused: 5, 4$"):
        resting.record(road_file, 8, TypedFaces([5, 4], "--faces"), {"Ann.hp": "1"})
    assert CampaignFile(road_file).load().rests == []
