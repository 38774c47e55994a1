"""D6 actions (rulesets/d6/actions.py, after seed 001): several actions in a round, which
active defence stands, the last wound level, and resistance under Body Points.

Seed: "All Modifiers apply to the roll. No modifiers are applied to the difficulty." and
"One-fifth of the result points from an attack roll can be included as bonus to damage.
(Round fractions up.)" The module's choices (its docstring): a round is 10 segments; N
actions take 10 // N segments each and every roll that round is at -(N-1)D; a dodge or
parry replaces the difficulty to hit for one round from its start; damage over
resistance sets the wound level, a further wound raising it by one.

The faces below avoid the Wild Die (off by default), so each roll is the plain sum.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from rulesets.d6 import D6Ruleset
from tests.helpers import session_for
from tests.test_rules_seeds import faces_for
from tracker.engine.errors import TrackerError


def d6(*lines: str, **settings: Any) -> Any:
    return session_for(D6Ruleset(), *lines, **settings)


def test_ten_actions_take_one_segment_each() -> None:
    """By hand: ten actions in a 10-segment round take 10 // 10 = 1 segment each."""
    s = d6("add A")
    s.execute("declare A move actions=10")
    assert s.encounter.actions[-1].pt == 1


@pytest.mark.parametrize("actions,segments,dice", [(3, 3, 3), (4, 2, 2)])
def test_several_actions_share_the_round_and_each_roll_loses_a_die_per_extra_action(actions: int, segments: int, dice: int) -> None:
    """By hand, Reflexes 5D: three actions take 10 // 3 = 3 segments each and roll
    5D - 2D = 3D; four take 10 // 4 = 2 segments and roll 5D - 3D = 2D. The dice typed
    are 2s: 3D is 6, 2D is 4, against Very Easy (1)."""
    s = d6("add A reflexes=5D")
    s.execute(f"declare A check difficulty=1 actions={actions} faces={','.join(['2'] * dice)}")
    action = s.encounter.actions[-1]
    assert action.pt == segments
    assert action.resolution.details["total"] == 2 * dice
    assert f"{actions} actions -{actions - 1}D = {5 - (actions - 1)}D" in action.resolution.summary


def test_the_latest_active_defence_is_the_one_that_stands() -> None:
    """A dodge replaces the difficulty to hit for a round from its start; a later dodge
    within that round replaces the earlier one. By hand: Merc (dodge 3D, two actions:
    2D, 5 segments each) dodges on segment 0 with 3 + 4 = 7, and again on segment 5
    with 6 + 6 = 12: Hero's shot on segment 5 needs 12, not 7."""
    s = d6("add Hero marksmanship=3D weapon=4D", "add Merc dodge=3D")
    s.execute("declare Merc dodge actions=2 faces=3,4")
    s.execute("step 5")
    s.execute("declare Merc dodge actions=2 faces=6,6")
    s.execute("declare Hero shoot target=Merc faces=5,5,5,1,1,1,1,1,1,1")
    res = s.encounter.actions[-1].resolution
    assert res.details["difficulty"] == 12 and "Merc's active dodge 12 (segment 5)" in res.summary


def test_an_active_defence_still_stands_on_the_last_segment_of_its_round() -> None:
    """A full dodge of 3 + 4 + 10 = 17 on segment 0 stands for segments 0-9: a shot
    declared on segment 9 needs 17; on segment 10 (tests/test_d6.py) the passive 10."""
    s = d6("add Hero marksmanship=3D weapon=4D", "add Merc dodge=2D")
    s.execute("declare Merc dodge full=true faces=3,4")
    s.execute("step 9")
    s.execute("declare Hero shoot target=Merc faces=5,5,5,1,1,1,1,1,1,1")
    assert s.encounter.actions[-1].resolution.details["difficulty"] == 17


def test_a_further_wound_past_mortally_wounded_is_dead_and_dead_is_the_last_level() -> None:
    """tables.toml: "Later damage that would give the same or a lower level raises it by
    one"; Dead (rank 6) is the last level. By hand: A (brawling 3D, no weapon: Strength
    Damage of Physique 3D is 2D) hits B (Physique 1D, Mortally Wounded: wounds -1) with
    4 + 4 + 4 = 12 against 10: 2 result points, +1 damage. Damage 1 + 1 + 1 = 3 against
    B's 2: 1 over, Stunned on its own, so Mortally Wounded goes up one: Dead (wounds -2).
    The same blow again finds nothing past Dead: B stays Dead, wounds -2."""
    s = d6("add A brawling=3D", "add B physique=1D wounds=-1")
    s.execute("declare A strike skill=brawling target=B faces=4,4,4,1,1,2")
    assert "1 over: B is Dead (a further wound raises the level by one)" in s.encounter.actions[-1].resolution.summary
    s.execute("next")
    assert s.encounter.combatants["B"].resources["wounds"] == -2
    assert _landing(s).endswith("1 over: B is Dead (a further wound raises the level by one)")
    s.execute("declare A strike skill=brawling target=B faces=4,4,4,1,1,2")
    assert "1 over: B is Dead" in s.encounter.actions[-1].resolution.summary
    s.execute("next")
    assert s.encounter.combatants["B"].resources["wounds"] == -2
    assert s.encounter.log[-1].text == "B is Dead"


def test_under_body_points_resistance_is_the_armour_alone_and_none_without_it() -> None:
    """The module: "with Body Points, the armour dice only (0 without armour)". By hand:
    Hero's 4D shot 4 + 4 + 4 + 4 = 16 against 10: 6 result points, +2 damage (6 / 5
    rounded up); damage 3D 3 + 3 + 3 = 9 + 2 = 11; the Orc has no armour: resistance 0,
    11 Body Points of 20 lost, 9 left."""
    s = d6("add Hero marksmanship=4D weapon=3D", "add Orc body_points=20", damage_system="body_points")
    s.execute("declare Hero shoot target=Orc faces=4,4,4,4,3,3,3")
    res = s.encounter.actions[-1].resolution
    assert res.details["resistance"] == 0 and "resistance no armour: 0" in res.summary
    s.execute("next")
    assert s.encounter.combatants["Orc"].resources["body_points"] == 9
    assert _landing(s).endswith("hit, result points 6; damage 11 (+2 from the result points); 11 over: 11 Body Points")


def test_a_weapon_code_is_the_damage_and_a_shot_needs_a_weapon() -> None:
    """The sheet: a weapon written "4D" is the damage itself (a "+" code adds to
    Strength Damage); shooting needs a weapon and one target. By hand: Hero (Physique 4D, weapon 2D)
    hits 4 + 4 + 4 = 12 against 10: 2 result points, +1; damage 2D 3 + 3 = 6 + 1 = 7,
    not Strength Damage 2D more."""
    s = d6("add Hero marksmanship=3D physique=4D weapon=2D", "add Merc physique=1D")
    s.execute("declare Hero shoot target=Merc faces=4,4,4,3,3,1")
    res = s.encounter.actions[-1].resolution
    assert res.details["damage"] == 7 and "damage weapon 2D" in res.summary
    with pytest.raises(TrackerError, match="Merc has no weapon to shoot with"):
        s.execute("declare Merc shoot target=Hero faces=4,4,4,3,3,1")
    s.execute("add Gunner weapon=4D")
    with pytest.raises(TrackerError, match=r"^shoot needs one target \(target=NAME\)$"):
        s.execute("declare Gunner shoot faces=4,4,4,3,3,1")


def test_a_dodge_or_parry_rolls_its_skill_and_holds_for_a_round() -> None:
    """The module: "the roll (+10 for `full=true` [...]) replaces the combat difficulty
    for attacks against this combatant for one round from its initiation"; a parry rolls
    melee or brawling. By hand: A (melee 4D, dodge 1D) parries on segment 0 with melee
    2 + 2 + 2 + 2 = 8: attacks need 8 until segment 10; the dice prompt asks for
    "parry (melee)". B dodges with 3 + 4 = 7 (dodge 2D, not full): 7, "dodge"."""
    s = d6("add A melee=4D dodge=1D", "add B dodge=2D")
    labels: list[str] = []
    faces_for(s, "A", "parry", [], lambda group, sides: labels.append(group) or 2)
    assert len(labels) == 4 and all(label.startswith("A's parry (melee) 4D") for label in labels)
    s.execute("declare A parry faces=2,2,2,2")
    res = s.encounter.actions[-1].resolution
    assert res.details["defense"] == 8 and res.summary.endswith("attacks on A need 8 until segment 10")
    labels.clear()
    faces_for(s, "B", "dodge", [], lambda group, sides: labels.append(group) or 3)
    assert len(labels) == 2 and all(label.startswith("B's dodge 2D") for label in labels)
    s.execute("declare B dodge faces=3,4")
    res = s.encounter.actions[-1].resolution
    assert res.details["defense"] == 7 and res.summary.endswith("attacks on B need 7 until segment 10")


def test_a_single_result_point_carries_one_and_none_carry_without_an_earlier_roll() -> None:
    """Seed: "The gamemaster may allow a player to add one-half of the result points
    (rounded up) as a bonus to another skill roll". By hand: 2 + 2 + 3 = 7 against 6 is
    1 result point; half of 1 rounded up is 1: the next roll 2 + 2 + 2 = 6 + 1 = 7. With
    no earlier roll there is nothing to carry: refused, naming carry."""
    s = d6("add Han reflexes=3D", "add Leia")
    s.execute("declare Han check difficulty=6 faces=2,2,3")
    s.execute("next")
    s.execute("declare Han check difficulty=20 carry=true faces=2,2,2")
    assert s.encounter.actions[-1].resolution.details["total"] == 7
    with pytest.raises(TrackerError, match="carry: Leia has no earlier roll whose result points could carry over"):
        s.execute("declare Leia check difficulty=6 carry=true faces=2,2,2")


def test_a_dodge_under_the_wild_die_records_a_critical_failure() -> None:
    """With the table setting `wild_die`, "one die of every roll" is the Wild Die; a 1 on
    it is a Critical Failure (rulesets/d6/rolls.py), under the default "cancel" the 1 and
    the highest other die are dropped. By hand: dodge 3D with the Wild Die 1 and dice 4,
    2: 1 and 4 dropped, 2 left: attacks need 2, and the action records the Critical
    Failure for the log."""
    s = d6("add B dodge=3D", wild_die=True)
    s.execute("declare B dodge faces=1,4,2")
    res = s.encounter.actions[-1].resolution
    assert res.details["defense"] == 2 and res.details["wild"] == "critical_failure"


def test_a_blow_at_a_target_that_has_left_the_fight_lapses() -> None:
    """docs/contributing/design.md#judged-on-landing: a blow is judged when it lands, against the target as it stands then. A
    target removed before the shot lands is not hit: the blow lapses, said in the log."""
    s = d6("add Hero marksmanship=3D weapon=4D", "add Merc")
    s.execute("declare Hero shoot target=Merc faces=5,5,5,1,1,1,1,1,1,1")
    s.execute("remove Merc")
    s.execute("next")
    assert s.encounter.log[-1].text == "Hero's shoot at Merc lapses: not in the fight"


def _landing(s: Any) -> str:
    """The judge's line for the blow that has just landed."""
    return next(e.text for e in reversed(s.encounter.log) if " lands: " in e.text)


def test_one_fifth_of_the_result_points_rounded_up_is_added_when_the_blow_lands() -> None:
    """Seed: "One-fifth of the result points from an attack roll can be included as bonus
    to damage. (Round fractions up.)" By hand, Hero (marksmanship 3D, weapon 3D) at Merc
    (Physique 1D):
    - 3 + 4 + 4 = 11 against 10: 1 result point, one fifth rounded up is 1: damage
      2 + 2 + 2 = 6 + 1 = 7 against 6: 1 over, Stunned;
    - 4 + 3 + 3 = 10 against 10: no result points, no bonus: damage 6 against 6 is
      resisted, no wound."""
    s = d6("add Hero marksmanship=3D weapon=3D", "add Merc physique=1D")
    s.execute("declare Hero shoot target=Merc faces=3,4,4,2,2,2,6")
    s.execute("next")
    assert "hit, result points 1; damage 7 (+1 from the result points)" in _landing(s)
    assert s.encounter.combatants["Merc"].resources["wounds"] == 3
    s = d6("add Hero marksmanship=3D weapon=3D", "add Merc physique=1D")
    s.execute("declare Hero shoot target=Merc faces=4,3,3,2,2,2,6")
    assert "Merc resists: no damage" in s.encounter.actions[-1].resolution.summary  # as things stand
    s.execute("next")
    assert _landing(s).endswith("hit, result points 0; damage 6; Merc resists: no damage")
    assert s.encounter.combatants["Merc"].resources["wounds"] == 4


def test_the_damage_bonus_is_optional_and_its_divisor_is_the_gms(tmp_path: Any) -> None:
    """Seed: "can be included" -- the encounter setting damage_bonus (on by default)
    turns it off; tables.toml [defense] damage_bonus_divisor (5) may be a house rule. By
    hand: 5 + 5 + 5 = 15 against 10 is 5 result points: +1, but with damage_bonus off
    damage 6 against 6 is resisted. With a divisor of 2, 4 + 4 + 5 = 13 is 3 result
    points, 3 / 2 rounded up = +2: damage 6 + 2 = 8."""
    s = d6("add Hero marksmanship=3D weapon=3D", "add Merc physique=1D", damage_bonus=False)
    s.execute("declare Hero shoot target=Merc faces=5,5,5,2,2,2,6")
    s.execute("next")
    assert _landing(s).endswith("hit, result points 5; damage 6; Merc resists: no damage")
    rules = tmp_path / "house.toml"
    rules.write_text("[defense]\ndamage_bonus_divisor = 2\n", encoding="utf-8")
    s = session_for(D6Ruleset(rules), "add Hero marksmanship=3D weapon=3D", "add Merc physique=1D")
    s.execute("declare Hero shoot target=Merc faces=4,4,5,2,2,2,6")
    s.execute("next")
    assert "hit, result points 3; damage 8 (+2 from the result points)" in _landing(s)


def test_an_excess_of_exactly_4_when_the_blow_lands_is_wounded() -> None:
    """tables.toml [wound_levels]: Wounded from an excess of 4 (Stunned 1-3). By hand:
    Hero's 3D shot 4 + 3 + 3 = 10 against 10, no bonus; damage 3D 3 + 3 + 3 = 9 against
    Merc's Physique 1D showing 5: 4 over, Wounded (wounds 2)."""
    s = d6("add Hero marksmanship=3D weapon=3D", "add Merc physique=1D")
    s.execute("declare Hero shoot target=Merc faces=4,3,3,3,3,3,5")
    assert s.encounter.actions[-1].resolution.summary.endswith("4 over: Merc is Wounded; judged when it lands")
    s.execute("next")
    assert _landing(s).endswith("4 over: Merc is Wounded")
    assert s.encounter.combatants["Merc"].resources["wounds"] == 2


def test_a_blow_landing_after_the_round_of_a_dodge_meets_the_passive_defence() -> None:
    """A dodge holds for one round from its start: Merc's full dodge of 3 + 4 + 10 = 17
    on segment 0 holds for segments 0-9 (and a blow landing at the start of segment 10,
    before the dodge's completion takes effect). Hero's shot declared on segment 1 takes
    10 segments and lands on segment 11: the dodge is over, the passive 10 stands. By
    hand: 5 + 5 + 5 = 15 is short of 17 as things stand, a hit by 5 when it lands."""
    s = d6("add Hero marksmanship=3D weapon=4D", "add Merc dodge=2D")
    s.execute("declare Merc dodge full=true faces=3,4")
    s.execute("step 1")
    s.execute("declare Hero shoot target=Merc faces=5,5,5,1,1,1,1,1,1,1")
    assert s.encounter.actions[-1].resolution.details["difficulty"] == 17
    s.execute("step 10")
    assert "lands: 15 vs Merc's passive defence 10: hit, result points 5" in _landing(s)


def test_armour_adds_its_dice_to_physique_to_resist_damage() -> None:
    """The module: "Resistance: with wound levels, Physique + armour dice". By hand:
    Hero's 3D shot 4 + 3 + 3 = 10 against 10, no bonus; damage 3D 3 + 3 + 3 = 9. Merc
    (Physique 1D, armour 1D) resists with 2D, 2 + 3 = 5: 4 over, Wounded. Without
    armour, Merc's Physique 1D alone shows 5: the same 4 over."""
    s = d6("add Hero marksmanship=3D weapon=3D", "add Merc physique=1D armor=1D")
    s.execute("declare Hero shoot target=Merc faces=4,3,3,3,3,3,2,3")
    res = s.encounter.actions[-1].resolution
    assert res.details["resistance"] == 5 and "resistance Physique 1D + armour 1D = 2D: dice 2, 3 = 5" in res.summary
    s = d6("add Hero marksmanship=3D weapon=3D", "add Merc physique=1D")
    s.execute("declare Hero shoot target=Merc faces=4,3,3,3,3,3,5")
    res = s.encounter.actions[-1].resolution
    assert res.details["resistance"] == 5 and "resistance Physique 1D: dice 5 = 5" in res.summary


def test_a_check_reports_its_level_and_an_automatic_one_says_no_roll_is_needed() -> None:
    """Seed: "Solid (1-4): The action was performed completely" and "Automatic (0):
    Almost anyone can perform this action; there is no need to roll." By hand: 3D
    showing 3, 4, 5 = 12 against Moderate (11) is 1 result point: Solid; a failed check
    (2, 2, 2 = 6) is a Failure; level=automatic rolls nothing and succeeds."""
    s = d6("add Han reflexes=3D", "add Leia", "add Luke")
    s.execute("declare Han check level=moderate faces=3,4,5")
    assert s.encounter.actions[-1].resolution.details["level"] == "solid"
    s.execute("declare Leia check level=moderate faces=2,2,2")
    assert s.encounter.actions[-1].resolution.details["level"] == "failure"
    s.execute("declare Luke check level=automatic")
    res = s.encounter.actions[-1].resolution
    assert res.details == {"difficulty": 0, "automatic": True} and res.summary == "Automatic (0): no need to roll"


@pytest.mark.parametrize("wounds,level,dice", [(3, "Stunned -1D", 2), (1, "Severely Wounded -2D", 1)])
def test_a_wounded_character_rolls_with_its_levels_penalty(wounds: int, level: str, dice: int) -> None:
    """rulesets/d6/sheet.py: "The level's penalty (tables.toml [wound_levels]) applies to
    the combatant's rolls until the GM heals it": Stunned -1D, Severely Wounded -2D. By
    hand: Reflexes 3D Stunned rolls 2D, 2 + 2 = 4; Severely Wounded rolls 1D, 2."""
    s = d6(f"add B reflexes=3D wounds={wounds}")
    s.execute(f"declare B check difficulty=1 faces={','.join(['2'] * dice)}")
    res = s.encounter.actions[-1].resolution
    assert res.details["total"] == 2 * dice and f"{level} = {dice}D" in res.summary


def test_a_plus_weapon_adds_to_strength_damage_and_a_bad_modifier_is_named() -> None:
    """The sheet: "one written with a leading "+" (a knife's "+1D") adds to the wielder's
    Strength Damage". By hand: Physique 3D gives Strength Damage 2D; with a +1D knife,
    3D: the strike 4 + 4 + 4 = 12 against 10 (+1), damage 2 + 2 + 2 = 6 + 1 = 7. A
    modifier that is no die code is refused, naming the modifier."""
    s = d6("add A melee=3D weapon=+1D", "add B physique=1D")
    s.execute("declare A strike target=B faces=4,4,4,2,2,2,1")
    res = s.encounter.actions[-1].resolution
    assert res.details["damage"] == 7 and "Strength Damage 2D (physique 3D) +1D" in res.summary
    with pytest.raises(TrackerError, match=r"^modifier: expected a die code such as 3D, 4D\+2 or 2D-1, got .lots.$"):
        s.execute("declare B check difficulty=5 modifier=lots faces=2,2,2")


def test_an_effect_rolls_its_own_code_and_a_difficulty_judges_it_like_a_check() -> None:
    """Seed: "The gamemaster may allow a player to add one-half of the result points
    (rounded up) as a bonus to another skill roll or Supernatural or Special Ability
    effect"; "Result points refer to the difference between the skill roll and the
    difficulty"; "Moderate (11)", "Solid (1–4)". The module: an effect rolls its own die
    code; "With a difficulty it is judged like a check; without one its total is the
    effect." By hand: Adept's 2D+1 rolling 3, 2 is 3 + 2 + 1 = 6, the effect's total (no
    success or failure). Mystic's 3D at Moderate rolling 5, 5, 4 is 14 - 11 = 3 result
    points, Solid; at difficulty 12 rolling 4, 4, 3 is 11: a failure by 1. "Minimal (0):
    The total was just barely enough": Adept's 2D+1 rolling 3, 2 again is 6 against Easy
    (6), a success with 0 result points. The dice prompt names the effect's roll."""
    s = d6("add Adept", "add Mystic")
    s.execute("declare Adept effect code=2D+1 faces=3,2")
    res = s.encounter.actions[-1].resolution
    assert (res.details["total"], res.margin, res.success, res.dice) == (6, 6, None, (3, 2))
    assert res.summary == "effect 2D+1: dice 3, 2 = 6: the effect's total"
    labels: list[str] = []
    faces_for(s, "Mystic", "effect", [], lambda group, sides: labels.append(group) or 2, {"code": "2D"})
    assert labels == ["Mystic's effect 2D roll: 2d6"] * 2
    s.execute("declare Mystic effect code=3D level=moderate faces=5,5,4")
    res = s.encounter.actions[-1].resolution
    assert (res.success, res.margin, res.details["result_points"], res.details["level"]) == (True, 3, 3, "solid")
    assert res.summary.endswith("= 14 vs Moderate (11): success, result points 3 (Solid)")
    s.execute("next")
    s.execute("declare Mystic effect code=3D difficulty=12 faces=4,4,3")
    res = s.encounter.actions[-1].resolution
    assert (res.success, res.margin, res.details["difficulty"], res.dice) == (False, -1, 12, (4, 4, 3))
    assert res.summary.endswith("= 11 vs difficulty 12 (Moderate): failure, result points -1 (Failure)")
    s.execute("declare Adept effect code=2D+1 level=easy faces=3,2")
    res = s.encounter.actions[-1].resolution
    assert (res.success, res.margin, res.details["level"]) == (True, 0, "minimal")


def test_an_effect_uses_the_wild_die_and_a_bad_code_is_refused_naming_code() -> None:
    """The module: "With the table setting `wild_die`, every roll [...] uses the Wild
    Die", so an effect does too: a 1 on it is a Critical Failure that under "cancel"
    drops the 1 and the highest other die. By hand: 3D showing wild 1, dice 4, 2 keeps
    2: against difficulty 5 a failure by 3. An effect with no code, a code that is not a
    die code, or more dice than one roll may have (40D) is refused, saying which."""
    s = d6("add Mystic", wild_die=True)
    s.execute("declare Mystic effect code=3D difficulty=5 faces=1,4,2")
    res = s.encounter.actions[-1].resolution
    assert (res.details["total"], res.margin, res.details["wild"]) == (2, -3, "critical_failure")
    s.execute("next")
    with pytest.raises(TrackerError, match=r"^effect needs its die code: code=4D \(the Supernatural or Special Ability effect's value\)$"):
        s.execute("declare Mystic effect faces=3,2")
    with pytest.raises(TrackerError, match=r"^code: expected a die code such as 3D, 4D\+2 or 2D-1, got 'x'$"):
        s.execute("declare Mystic effect code=x faces=3,2")
    with pytest.raises(TrackerError, match=r"^Mystic's effect roll: 41D is more than the 40D limit on one roll$"):
        s.execute("declare Mystic effect code=41D")


@pytest.mark.parametrize("template,targets,params,faces", [
    ("check", [], {"difficulty": 6}, [2, 2, 2, 2]),
    ("dodge", [], {}, [3, 4]),
    ("parry", [], {}, [3, 4, 5, 6]),
    ("shoot", ["Merc"], {}, [5, 5, 5, 5, 1, 1, 1, 1, 1, 1, 1]),
    ("strike", ["Merc"], {}, [5, 5, 5, 1, 1, 1, 1, 1, 1, 1]),
    ("effect", [], {"code": "2D", "difficulty": 6}, [3, 2]),
    ("move", [], {}, []),
])
def test_a_request_that_leaves_a_parameter_out_resolves_as_its_declared_default(
        template: str, targets: list[str], params: dict[str, Any], faces: list[int]) -> None:
    """The adapter contract lets a request carry only the parameters given (ActionRequest's
    params default to none): each one left out counts as the default its field declares
    (a check rolls Reflexes, a dodge dodge, a parry melee, a shot marksmanship at short
    range, a strike melee, no cover, one action this round: 10 segments, no -1D), the
    same as a declaration that fills them in. Hero's parry rolls melee 3D (3 + 4 + 5 =
    12), not dodge 2D; the chance of a strike is melee 3D's, not marksmanship 4D's."""
    from rulesets.base import ActionRequest
    from rulesets.dice import TypedFaces

    r = D6Ruleset()
    s = session_for(r, "add Hero marksmanship=4D melee=3D dodge=2D reflexes=4D weapon=4D", "add Merc")
    filled, _ = s.request("Hero", template, targets, params)
    assert set(filled.params) > set(params)
    bare = ActionRequest(filled.template, filled.actor, filled.targets, dict(params), filled.segment, filled.settings)
    got, want = r.resolve(bare, TypedFaces(faces)), r.resolve(filled, TypedFaces(faces))
    assert got == want
    assert got.pt == 10
    assert r.chance_of(bare) == r.chance_of(filled)
    if template == "parry":
        assert got.details["defense"] == 12


def test_the_check_line_names_each_part_of_the_pool_and_says_success_or_failure() -> None:
    """Seed: "All Modifiers apply to the roll"; "Result points refer to the difference
    between the skill roll and the difficulty"; "Moderate (11)", "Good (5–8)". By hand:
    Han (Reflexes 3D) with a +1D modifier, slightly advantaged (+3): 4D+3, dice 3, 4, 5, 2
    = 14 + 3 = 17 against 12 (a Moderate number): success, 5 result points, Good. Leia has
    no dodge on her sheet, so it is rolled on Reflexes (3D by default) and the line says
    so: 2 + 2 + 2 = 6 against 11, a failure by 5, and her dice prompt asks for "dodge 3D".
    An automatic check succeeds with 0 result points. A check with no difficulty is
    refused, listing the levels."""
    s = d6("add Han reflexes=3D", "add Leia", "add Luke", "add Obi")
    s.execute("declare Han check difficulty=12 modifier=+1D situation=slightly_advantaged faces=3,4,5,2")
    res = s.encounter.actions[-1].resolution
    assert res.summary == ("reflexes 3D, modifier +1D, slightly advantaged +3 = 4D+3: dice 3, 4, 5, 2 = 17"
                           " vs difficulty 12 (Moderate): success, result points 5 (Good)")
    assert (res.success, res.margin, res.dice) == (True, 5, (3, 4, 5, 2))
    labels: list[str] = []
    faces_for(s, "Leia", "check", [], lambda group, sides: labels.append(group) or 2, {"skill": "dodge", "difficulty": 11})
    assert labels == ["Leia's dodge 3D roll: 3d6"] * 3
    s.execute("declare Leia check skill=dodge difficulty=11 faces=2,2,2")
    res = s.encounter.actions[-1].resolution
    assert res.summary == "dodge (reflexes) 3D: dice 2, 2, 2 = 6 vs difficulty 11 (Moderate): failure, result points -5 (Failure)"
    assert (res.success, res.margin) == (False, -5)
    s.execute("declare Luke check level=automatic")
    res = s.encounter.actions[-1].resolution
    assert (res.success, res.margin) == (True, 0)
    with pytest.raises(TrackerError, match=r"^check needs a difficulty: difficulty=N or level=moderate \(levels: automatic, "
                                           r"very_easy, easy, moderate, difficult, very_difficult, heroic, legendary\)$"):
        s.execute("declare Obi check faces=2,2,2")


def test_the_full_defence_and_attack_lines_show_each_number() -> None:
    """The module: a full defence adds 10 and "replaces the combat difficulty for attacks
    against this combatant for one round"; range raises or lowers the roll ("point_blank
    = +5"); "One-fifth of the result points from an attack roll can be included as bonus
    to damage. (Round fractions up.)" By hand: Merc's full dodge (2D) 3 + 4 = 7 + 10 = 17,
    until segment 10. Hero shoots at point-blank range: marksmanship 3D + 5, dice 6, 6, 6 =
    23 against 17: 6 result points (Good); damage 4D 1, 1, 1, 1 = 4 + 2 (6 / 5 rounded
    up) = 6; Merc's resistance Physique 3D 1, 1, 1 = 3; 3 over: Stunned (1 over or more)."""
    s = d6("add Merc dodge=2D", "add Hero marksmanship=3D weapon=4D")
    s.execute("declare Merc dodge full=true faces=3,4")
    res = s.encounter.actions[-1].resolution
    assert res.summary == "dodge 2D: dice 3, 4 = 7 + 10 full defence; attacks on Merc need 17 until segment 10"
    assert (res.margin, res.dice, res.details) == (17, (3, 4), {"defense": 17, "total": 7})
    s.execute("declare Hero shoot target=Merc range=point_blank faces=6,6,6,1,1,1,1,1,1,1")
    res = s.encounter.actions[-1].resolution
    assert res.summary == (
        "marksmanship 3D, point blank range +5 = 3D+5: dice 6, 6, 6 = 23 vs Merc's active dodge 17 (segment 0),"
        " as things stand: hit, result points 6 (Good); damage weapon 4D: dice 1, 1, 1, 1 = 4 + 2 (result points"
        " 6 / 5, rounded up) = 6; resistance Physique 3D: dice 1, 1, 1 = 3; 3 over: Merc is Stunned; judged when it lands")
    assert (res.success, res.margin, res.dice) == (None, 6, (6, 6, 6, 1, 1, 1, 1, 1, 1, 1))
    assert {k: res.details[k] for k in ("total", "difficulty", "result_points", "level", "damage", "resistance")} == {
        "total": 23, "difficulty": 17, "result_points": 6, "level": "good", "damage": 6, "resistance": 3}


def test_the_chance_shown_for_each_action_is_worked_from_its_pool_and_difficulty() -> None:
    """The chance the declare form shows: the roll's pool (skill, modifiers, range, -1D per
    extra action) reaching the difficulty, or the target's defence for an attack. By
    hand: Reflexes 1D against 4: faces 4, 5, 6, 1/2. Melee 2D+1 against 10 needs 9 on 2D:
    4 + 3 + 2 + 1 = 10 of 36 sums, 5/18, and so does a strike at Merc's passive 10; a
    strike with brawling 1D cannot reach 10: 0.
    An effect of 1D+2 against 7: faces 5, 6, 1/3. A shot with marksmanship 2D at point
    blank (+5) against 10 needs 5 on 2D: all but the six sums of 4 or less, 30/36 = 5/6.
    Two actions take 1D from melee 2D+1: 1D+1 against 4 needs 3 or more, 2/3. "Automatic (0): [...] there is
    no need to roll": 1. No difficulty, no target, a defence or a move: no chance to show.
    With the Wild Die, 1D against 7 needs a 6 and its explosion (any face): 1/6, where
    the plain die cannot reach 7 at all; a shot with marksmanship 1D at Merc's passive 10
    needs the 6 and then 4 or more on the explosion: 1/6 x 3/6 = 1/12."""
    s = d6("add Han reflexes=1D marksmanship=2D melee=2D+1 brawling=1D weapon=4D", "add Merc")
    assert s.chance("Han", "check", [], {"difficulty": 4}) == Fraction(1, 2)
    assert s.chance("Han", "check", [], {"skill": "melee", "difficulty": 10}) == Fraction(5, 18)
    assert s.chance("Han", "check", [], {"skill": "melee", "difficulty": 4, "actions": 2}) == Fraction(2, 3)
    assert s.chance("Han", "strike", ["Merc"]) == Fraction(5, 18)
    assert s.chance("Han", "strike", ["Merc"], {"skill": "brawling"}) == 0
    assert s.chance("Han", "effect", [], {"code": "1D+2", "difficulty": 7}) == Fraction(1, 3)
    assert s.chance("Han", "shoot", ["Merc"], {"range": "point_blank"}) == Fraction(5, 6)
    assert s.chance("Han", "check", [], {"level": "automatic"}) == 1
    assert s.chance("Han", "check", [], {"difficulty": 7}) == 0
    for template, targets, params in [("effect", [], {"code": "1D+2"}), ("shoot", [], {}),
                                      ("dodge", [], {}), ("move", [], {})]:
        assert s.chance("Han", template, targets, params) is None
    # A check needs a difficulty: the chance line says so at once, as the roll would.
    with pytest.raises(TrackerError, match=r"^check needs a difficulty: difficulty=N or level=moderate \(levels: automatic, "):
        s.chance("Han", "check", [], {})
    wild = d6("add Han reflexes=1D marksmanship=1D weapon=4D", "add Merc", wild_die=True)
    assert wild.chance("Han", "shoot", ["Merc"]) == Fraction(1, 12)
    assert wild.chance("Han", "check", [], {"difficulty": 7}) == Fraction(1, 6)
    assert wild.chance("Han", "effect", [], {"code": "1D", "difficulty": 7}) == Fraction(1, 6)


def test_a_blow_that_hits_only_when_it_lands_at_a_target_without_body_points_says_so() -> None:
    """With Body Points the damage over resistance "comes off Body Points", which a
    combatant added without `body_points` does not have. Merc's full dodge of 3 + 4 + 10
    = 17 holds for segments 0-9; Hero's shot on segment 1, 5 + 5 + 5 = 15, misses as things
    stand (so nothing is asked of Merc then) and lands on segment 11 against the passive
    10: 5 result points, +1 damage (5 / 5); damage 1 + 1 + 1 + 1 = 4 + 1 = 5 against no
    armour (0): 5 over, which the landing reports and takes from nothing: Merc's wounds
    stay at 4."""
    s = d6("add Hero marksmanship=3D weapon=4D", "add Merc dodge=2D", damage_system="body_points")
    s.execute("declare Merc dodge full=true faces=3,4")
    s.execute("step 1")
    s.execute("declare Hero shoot target=Merc faces=5,5,5,1,1,1,1")
    s.execute("step 10")
    assert _landing(s) == ("Hero's shoot lands: 15 vs Merc's passive defence 10: hit, result points 5; damage 5"
                           " (+1 from the result points); Merc has no body_points to take 5 from")
    assert s.encounter.combatants["Merc"].resources == {"wounds": 4}


def test_a_parry_with_brawling_rolls_brawling() -> None:
    """The declare form: a parry rolls "melee or brawling". By hand: A (melee 4D,
    brawling 2D) parries with brawling, 3 + 4 = 7: attacks on A need 7 until segment 10,
    and the roll's faces are kept on the action."""
    s = d6("add A melee=4D brawling=2D")
    s.execute("declare A parry skill=brawling faces=3,4")
    res = s.encounter.actions[-1].resolution
    assert res.summary == "brawling 2D: dice 3, 4 = 7; attacks on A need 7 until segment 10"
    assert (res.details["defense"], res.dice) == (7, (3, 4))


def test_the_declare_forms_chance_line_says_a_check_needs_a_difficulty() -> None:
    """Seed: "A standard difficulty is a number that the gamemaster assigns to an action
    based on how challenging the gamemaster thinks it is": a check has nothing to reach
    until one is given. The declare form's chance line says
    so as soon as the check is chosen (it said "no roll" until the commit refused); with
    level=moderate (11) Han's reflexes 2D shows its odds. By hand: 2D reaches 11 on 5-6,
    6-5 and 6-6, 3/36 = 8.33%."""
    from tracker.play.declaring import DeclareFlow
    from tracker.reading.roles import Role

    s = d6("add Han reflexes=2D")
    flow = DeclareFlow(s, Role.gm(), None)
    flow.set("d", "actor", "Han")
    flow.set("d", "template", "check")
    assert flow.chance_now().startswith("chance of success: - (check needs a difficulty: difficulty=N or level=moderate")
    flow.set("p", "level", "moderate")
    assert flow.chance_now().startswith("chance of success: 8.33% (1/12)")


def test_an_effects_chance_against_a_standard_level_is_worked_from_its_number() -> None:
    """An effect may name a standard difficulty instead of a number ("Easy (6)"): its
    chance is the chance of its own code reaching that number. By hand: 2D reaches 6 on
    all but the ten totals 2-5 (1+2+3+4 ways), 26/36 = 13/18; with no difficulty at all
    an effect is its total alone, with no chance to show."""
    s = d6("add Han")
    assert s.chance("Han", "effect", [], {"code": "2D", "level": "easy"}) == Fraction(13, 18)
    assert s.chance("Han", "effect", [], {"code": "2D"}) is None
