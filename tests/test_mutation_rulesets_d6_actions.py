"""D6 attacks and chances (`rulesets/d6/actions.py`: `Resolver._attack`, `chance_of`,
`damage_code`), tested directly for the mutation run: the line and record of an attack
as it is declared (a miss, a hit by one result point, the damage bonus on and off), the
dice it asks for by name, a carried bonus, a request whose settings leave the damage
ones out, and the chance of a check or an effect.

From the seed (D6, `seeds/001_...`): "One-fifth of the result points from an attack
roll can be included as bonus to damage. (Round fractions up.)"; result points are "the
difference between the skill total and the difficulty"; Automatic (0) means "there is
no need to roll"; the GM "may allow a player to add one-half of the result points
(rounded up) as a bonus to another skill roll". From the module docstring: the passive
defence is 10; damage and resistance dice are rolled at declaration, hit or miss, in
the order attack, damage, resistance (Physique + armour dice with wound levels, the
default damage system; the bonus is on by default); a miss has no success level. The
faces avoid the Wild Die (off by default), so each roll is the plain sum.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest

from rulesets.d6 import D6Ruleset
from rulesets.dice import TypedFaces, for_actor
from tracker.engine.errors import TrackerError
from tests.helpers import ListeningFaces, session_for


def declared(lines: tuple[str, ...], actor: str, template: str, target: str, faces: list[int],
             params: dict[str, Any] | None = None, settings: dict[str, Any] | None = None) -> tuple[Any, ListeningFaces]:
    """`actor`'s attack at `target` resolved with `faces` (the request's settings replaced
    by `settings` when given)."""
    r = D6Ruleset()
    s = session_for(r, *lines)
    request, _ = s.request(actor, template, [target], params or {})
    if settings is not None:
        request = replace(request, settings=settings)
    dice = ListeningFaces(faces)
    return r.resolve(request, for_actor(dice, actor)), dice


SHOOTER = "add Hero marksmanship=3D weapon=3D"
MERC = "add Merc physique=1D"


def test_a_miss_says_by_how_much_and_adds_no_bonus_to_the_damage_rolled_all_the_same() -> None:
    """Hero (marksmanship 1D, weapon 3D) rolls 2 against Merc's passive 10: a miss by 8,
    no success level. The damage 3D (3, 3, 3 = 9) is rolled all the same, with no bonus:
    the bonus is a fifth of result points, and a miss has none. Merc's Physique 1D shows 1."""
    res, dice = declared(("add Hero marksmanship=1D weapon=3D", MERC), "Hero", "shoot", "Merc", [2, 3, 3, 3, 1])
    # The damage part: the dice and their total once, nothing added.
    assert res.summary == (
        "marksmanship 1D: dice 2 = 2 vs Merc's passive defence 10, as things stand: miss by 8; "
        "damage weapon 3D: dice 3, 3, 3 = 9; resistance Physique 1D: dice 1 = 1; judged when it lands")
    assert (res.success, res.margin, res.details["level"], res.details["result_points"]) == (None, -8, "failure", -8)
    assert "damage" not in res.details
    record = res.details["hits"][0]
    assert (record["target"], record["total"], record["damage_dice"], record["resistance"]) == ("Merc", 2, 9, 1)
    assert dice.groups == ["Hero's shoot (marksmanship) 1D roll: 1d6", "Hero's damage 3D roll: 3d6",
                           "Merc's resistance 1D roll: 1d6"]


def test_one_result_point_adds_one_to_the_damage_as_declared() -> None:
    """3 + 4 + 4 = 11 against 10: 1 result point, a fifth rounded up is 1: damage
    2 + 2 + 2 = 6 + 1 = 7 against Merc's 6: 1 over, Stunned (tables.toml: 1-3 over)."""
    res, _ = declared((SHOOTER, MERC), "Hero", "shoot", "Merc", [3, 4, 4, 2, 2, 2, 6])
    assert "as things stand: hit, result points 1 (Solid); damage weapon 3D: dice 2, 2, 2 = 6 + 1 (result points 1 / 5, " \
           "rounded up) = 7; resistance Physique 1D: dice 6 = 6; 1 over: Merc is Stunned; judged when it lands" in res.summary
    assert (res.details["damage"], res.details["resistance"], res.margin) == (7, 6, 1)


def test_no_result_points_show_no_bonus() -> None:
    """4 + 3 + 3 = 10 against 10: a hit with 0 result points, no bonus shown: damage
    2 + 2 + 2 = 6 against 6, resisted."""
    res, _ = declared((SHOOTER, MERC), "Hero", "shoot", "Merc", [4, 3, 3, 2, 2, 2, 6])
    # The roll's total once: no bonus, no second "= 6".
    assert "damage weapon 3D: dice 2, 2, 2 = 6; resistance Physique 1D: dice 6 = 6; Merc resists: no damage;" in res.summary


def test_with_the_damage_bonus_off_the_declared_damage_has_none() -> None:
    """The same hit by 1 with damage_bonus=false: damage 6 against 6, resisted."""
    lines = (SHOOTER, MERC)
    r = D6Ruleset()
    s = session_for(r, *lines, damage_bonus=False)
    request, _ = s.request("Hero", "shoot", ["Merc"], {})
    res = r.resolve(request, for_actor(TypedFaces([3, 4, 4, 2, 2, 2, 6]), "Hero"))
    # The roll's total once: no bonus, no second "= 6".
    assert "damage weapon 3D: dice 2, 2, 2 = 6; resistance Physique 1D: dice 6 = 6; Merc resists: no damage;" in res.summary
    assert res.details["hits"][0]["damage_bonus"] is False


def test_settings_that_leave_the_damage_ones_out_are_wound_levels_with_the_bonus() -> None:
    """A request whose settings do not name damage_system or damage_bonus (an older
    setup): the defaults, wound levels and the bonus on."""
    res, _ = declared((SHOOTER, MERC), "Hero", "shoot", "Merc", [3, 4, 4, 2, 2, 2, 6], settings={})
    assert "dice 2, 2, 2 = 6 + 1 (result points 1 / 5, rounded up) = 7;" in res.summary
    record = res.details["hits"][0]
    assert (record["system"], record["damage_bonus"]) == ("wounds", True)


def test_each_roll_of_an_attack_is_asked_for_by_name_and_roller() -> None:
    """Attack, damage, then the target's resistance (Physique 2D + armour 1D = 3D)."""
    res, dice = declared(("add Hero melee=2D weapon=4D", "add Merc physique=2D armor=1D"), "Hero", "strike", "Merc",
                         [5, 5, 1, 1, 1, 1, 1, 1, 1], {"skill": "melee"})
    assert dice.groups == ["Hero's strike (melee) 2D roll: 2d6", "Hero's damage 4D roll: 4d6",
                           "Merc's resistance 3D roll: 3d6"]
    assert "resistance Physique 2D + armour 1D = 3D: dice 1, 1, 1 = 3" in res.summary


def test_an_attack_carrying_result_points_records_where_they_came_from() -> None:
    """Hero's check of Reflexes 3D (4 + 4 + 4 = 12) against 5 has 7 result points; a shot
    carrying them adds half, rounded up: +4, and records the check as their source."""
    s = session_for(D6Ruleset(), SHOOTER, MERC)
    s.execute("declare Hero check difficulty=5 faces=4,4,4")
    check = s.encounter.actions[-1]
    s.execute("next")
    s.execute("declare Hero shoot target=Merc carry=true faces=1,1,1,1,1,1,1")
    shot = s.encounter.actions[-1].resolution
    assert shot.details["carried_from"] == check.id
    assert shot.details["total"] == 3 + 4


def test_the_chance_of_an_automatic_check_is_certain_and_of_difficulty_1_is_the_dice() -> None:
    """Reflexes 1D-2: "Automatic (0) ... no need to roll": certain, though the die alone
    could total less; against 1 the die needs 3 or more: 4/6 = 2/3."""
    s = session_for(D6Ruleset(), "add Han reflexes=1D-2")
    assert s.chance("Han", "check", [], {"level": "automatic"}) == 1
    assert s.chance("Han", "check", [], {"difficulty": 1}) == Fraction(2, 3)
    # An effect is its own code: 1D-2 against Automatic is not waved through.
    assert s.chance("Han", "effect", [], {"code": "1D-2", "difficulty": 1}) == Fraction(2, 3)


def test_the_chance_of_an_effect_without_the_wild_die_is_the_plain_sum() -> None:
    """Without the Wild Die 1D cannot reach 7 (with it, 1/6: tests/test_d6_combat_rules.py)."""
    s = session_for(D6Ruleset(), "add Han")
    assert s.chance("Han", "effect", [], {"code": "1D", "difficulty": 7}) == 0
    assert s.chance("Han", "effect", [], {"code": "1D", "difficulty": 6}) == Fraction(1, 6)


def refused(call: Any) -> str:
    with pytest.raises(TrackerError) as caught:
        call()
    return str(caught.value)


def test_an_effect_that_cannot_be_rolled_is_named_as_the_effect() -> None:
    """Two actions take 1D from an effect of 1D: none left. 41D is past the 40D limit."""
    s = session_for(D6Ruleset(), "add Han")
    assert refused(lambda: s.chance("Han", "effect", [], {"code": "1D", "difficulty": 5, "actions": 2})) == (
        "Han cannot roll effect 1D, 2 actions -1D: 0D left, and a roll needs at least 1D")
    assert refused(lambda: s.chance("Han", "effect", [], {"code": "41D", "difficulty": 5})) == (
        "Han's effect roll: 41D is more than the 40D limit on one roll")


def test_a_weapon_that_does_not_read_is_refused_naming_the_weapon() -> None:
    """A sheet's weapon is checked when written; one that reached an attack unread (a
    combatant built by hand) is still refused by name, before any die."""
    r = D6Ruleset()
    s = session_for(r, SHOOTER, MERC)
    request, _ = s.request("Hero", "shoot", ["Merc"], {})
    bad = replace(request, actor=replace(request.actor, stats={**request.actor.stats, "weapon": "x"}))
    assert refused(lambda: r.resolve(bad, TypedFaces([]))) == (
        "weapon: expected a die code such as 3D, 4D+2 or 2D-1, got 'x'")
