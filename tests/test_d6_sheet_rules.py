"""D6 sheet (seed 001 and rulesets/d6/sheet.py): what a die code on the sheet may be,
which code a roll uses, and where Strength Damage comes from.

Seed: "Each die code (also known as a value) indicates the number of six-sided dice you
roll (1D, 2D, 3D, 4D, 5D, etc.), and sometimes an added bonus of "+1" or "+2" [...]".
The sheet (rulesets/d6/sheet.py): attributes default to 3D; a skill left off the sheet
is rolled on its attribute; a weapon written "+1D" adds to Strength Damage (half the
Physique or lifting dice, rounded up), any other is the damage itself; armour adds dice
to resist damage and may be none (0D).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from rulesets.d6 import D6Ruleset
from rulesets.d6.codes import DieCode, DieCodeError
from rulesets.d6.sheet import canonical, code_of, strength_source
from rulesets.fields import FieldError
from tests.helpers import session_for
from tracker.engine.errors import TrackerError


def d6(*lines: str, **settings: Any) -> Any:
    return session_for(D6Ruleset(), *lines, **settings)


def test_an_attribute_or_skill_needs_a_die_armour_may_be_none() -> None:
    """A roll needs at least one die ("1D, 2D, 3D, ..."): a 1D attribute is kept as
    typed, a 0D+2 one is refused naming the field and "at least 1D". Armour only adds
    dice: 0D is no armour, -1D is refused ("at least 0D")."""
    s = d6("add A physique=1D armor=0D")
    assert s.encounter.combatants["A"].stats["physique"] == "1D"
    assert s.encounter.combatants["A"].stats["armor"] == "0D"
    with pytest.raises(FieldError, match=r"add B\.physique: expected .*\(at least 1D\), got '0D\+2'"):
        d6("add B physique=0D+2")
    with pytest.raises(FieldError, match=r"add C\.armor: expected .*\(at least 0D\), got '-1D'"):
        d6("add C armor=-1D")


def test_a_weapon_code_does_damage_and_keeps_its_plus() -> None:
    """A weapon is a damage code: "4D+1" does 4D+1 itself, "+1D+1" and "+2" add to
    Strength Damage and keep their sign on the sheet. A code that does no damage (0D)
    or takes it away (-1D) is refused, naming the field."""
    s = d6("add A weapon=4d+1", "add B weapon=+1d+1", "add C weapon=+2", "add D weapon=+1")
    stats = {name: c.stats["weapon"] for name, c in s.encounter.combatants.items()}
    assert stats == {"A": "4D+1", "B": "+1D+1", "C": "+2", "D": "+1"}
    for bad in ("0D", "-1D"):
        with pytest.raises(FieldError, match=rf"add X\.weapon: expected a damage code such as 4D or \+1D, got '{bad}'"):
            d6(f"add X weapon={bad}")


def test_a_skill_left_off_the_sheet_is_rolled_on_its_attribute() -> None:
    """The sheet: "A skill left off the sheet is rolled on its attribute (the [skills]
    table says which)"; attributes default to 3D. By hand: dodge falls back on Reflexes,
    so Reflexes 4D gives 4D; with no Reflexes either, 3D; a dodge of 2D on the sheet is
    2D whatever the Reflexes. Rolled: 4D showing 2, 3, 4, 5 is 14."""
    skills = D6Ruleset().data.skills
    assert code_of({"reflexes": "4D"}, "dodge", skills) == DieCode(4, 0)
    assert code_of({}, "dodge", skills) == DieCode(3, 0)
    assert code_of({"reflexes": "4D", "dodge": "2D+1"}, "dodge", skills) == DieCode(2, 1)
    assert code_of({"perception": "5D"}, "search", skills) == DieCode(5, 0)
    s = d6("add A reflexes=4D")
    s.execute("declare A dodge faces=2,3,4,5")
    assert s.encounter.actions[-1].resolution.details["total"] == 14
    with pytest.raises(TrackerError, match=r"skills\.dodge: expected one of reflexes, .*got 'luck'"):
        code_of({}, "dodge", {"dodge": "luck"})


def test_strength_damage_comes_from_lifting_if_listed_else_physique() -> None:
    """The sheet: Strength Damage is "half the Physique or lifting dice, rounded up".
    Lifting wins when the sheet lists it; else Physique, 3D by default. By hand: lifting
    5D gives 3D; Physique 2D gives 1D. A strike without a weapon with lifting 5D (Physique
    2D) rolls 3D: against a 1D target's resistance the faces are attack 4,4,4 (12 vs
    10), damage 3, 3, 3 = 9 + 1 (2 result points / 5, rounded up) = 10."""
    assert strength_source({"lifting": "5D", "physique": "2D"}) == ("lifting", DieCode(5, 0))
    assert strength_source({"physique": "2D"}) == ("physique", DieCode(2, 0))
    assert strength_source({}) == ("physique", DieCode(3, 0))
    s = d6("add A brawling=3D lifting=5D physique=2D", "add B physique=1D")
    s.execute("declare A strike skill=brawling target=B faces=4,4,4,3,3,3,2")
    res = s.encounter.actions[-1].resolution
    assert res.details["damage"] == 10 and "Strength Damage 3D (lifting 5D)" in res.summary


def test_an_attribute_off_the_sheet_is_3d_and_a_skills_table_must_name_its_attribute() -> None:
    """The sheet: "Attributes (D6 Adventure names) default to 3D. A skill left off the
    sheet is rolled on its attribute (the `[skills]` table says which)." By hand: an empty
    sheet rolls Reflexes and Presence at 3D, and a dodge on a sheet with Reflexes 2D+1
    rolls 2D+1. A table with no `[skills]` at all names no attribute for dodge: the roll
    is refused naming `skills.dodge` rather than guessed."""
    skills = D6Ruleset().data.skills
    assert code_of({}, "reflexes", skills) == DieCode(3, 0)
    assert code_of({"physique": "4D"}, "presence", skills) == DieCode(3, 0)
    assert code_of({"reflexes": "2D+1"}, "dodge", skills) == DieCode(2, 1)
    with pytest.raises(TrackerError, match=r"^skills\.dodge: expected one of reflexes, coordination, .*, got None$"):
        code_of({}, "dodge", {})


def test_a_bad_code_reaching_a_roll_names_its_stat() -> None:
    """Die codes "are checked by the die-code parser, so a bad value is reported by name"
    (the sheet's docstring). The codes a roll reads (a skill, lifting, Physique) name
    their stat when they cannot be read, and a code given as a number, not text (a file's
    `physique = 3`), is refused naming the combatant and field and showing the value."""
    skills = D6Ruleset().data.skills
    with pytest.raises(DieCodeError, match=r"^dodge: expected a die code such as 3D, .*got '2X'$"):
        code_of({"dodge": "2X"}, "dodge", skills)
    with pytest.raises(DieCodeError, match=r"^lifting: expected a die code .*got 'x'$"):
        strength_source({"lifting": "x"})
    with pytest.raises(DieCodeError, match=r"^physique: expected a die code .*got 'y'$"):
        strength_source({"physique": "y"})
    with pytest.raises(FieldError, match=r"^party A\.physique: expected a die code such as 3D, 4D\+2 or 2D-1, got 3$"):
        canonical("physique", 3, "party A")


def test_a_code_left_blank_at_creation_is_set_later_checked_as_a_die_code() -> None:
    """A party made without weapons (as the roster editor leaves a blank field) must be
    able to arm itself: `set NAME KEY VALUE` takes any die-code key of the sheet at any
    time, checked and stored as `add` would ("4d" -> "4D"), the refusal naming the field
    and changing nothing; undo takes the value back off the sheet.

    Then the shot by hand: Hero's marksmanship falls back on Coordination 3D, 5 + 5 + 5 =
    15 against Orc's passive defence 10: hit, 5 result points, + 5 / 5 = 1 to damage;
    the weapon 4D rolls 3 + 3 + 3 + 3 = 12, 13 in all; Orc's Physique 2D resists with
    1 + 1 = 2."""
    s = d6("add Hero coordination=3D", "add Orc physique=2D")
    hero = s.encounter.combatants["Hero"]
    assert "weapon" not in hero.stats and "brawling" not in hero.stats
    before = len(s.encounter.events)
    for bad, expected in (("abc", "a damage code such as 4D or \\+1D"), ("[b]", "a damage code such as 4D or \\+1D"),
                          ("0D", "a damage code such as 4D or \\+1D")):
        with pytest.raises(FieldError, match=rf"^set Hero weapon: expected {expected}, got '{re.escape(bad)}'$"):
            s.execute(f"set Hero weapon {bad}")
    with pytest.raises(FieldError, match=r"^set Hero brawling: expected a die code such as 3D, 4D\+2 or 2D-1 \(at least 1D\), got '0D\+2'$"):
        s.execute("set Hero brawling 0D+2")
    assert len(s.encounter.events) == before and "weapon" not in hero.stats and hero.resources == {"wounds": 4}
    s.execute("set Hero weapon 4d")
    s.execute("set Hero brawling 4d+2")
    hero = s.encounter.combatants["Hero"]
    assert (hero.stats["weapon"], hero.stats["brawling"]) == ("4D", "4D+2")
    assert hero.resources == {"wounds": 4}  # a stat, never a resource
    s.execute("declare Hero shoot target=Orc faces=5,5,5,3,3,3,3,1,1")
    res = s.encounter.actions[-1].resolution
    assert (res.details["result_points"], res.details["damage"], res.details["resistance"]) == (5, 13, 2)
    assert "damage weapon 4D" in res.summary
    s.undo()
    s.undo()
    s.undo()
    hero = s.encounter.combatants["Hero"]
    assert "weapon" not in hero.stats and "brawling" not in hero.stats and not s.encounter.actions


def test_the_declare_forms_default_shot_without_a_weapon_is_refused_before_any_dice() -> None:
    """Shooting is the declare form's first action, and "shooting needs a weapon" (the
    adapter's docstring). Without one, the chance line says so as soon as the form opens,
    before a target is named, and going on asks for no dice: the form stays at the
    choices with the reason. Once the weapon is set the same form shows the odds: by
    hand, Coordination 3D against passive defence 10 is 10 or more on 3d6, 135/216 = 5/8."""
    from tracker.play.declaring import DeclareFlow, FormStage, Shown
    from tracker.reading.roles import Role

    s = d6("add Hero coordination=3D", "add Orc")
    flow = DeclareFlow(s, Role.gm(), "Hero")
    assert flow.values["template"] == "shoot"
    reason = "Hero has no weapon to shoot with: give the sheet one (set Hero weapon 4D, or e in the roster), or strike instead"
    assert flow.chance_now() == f"chance of success: - ({reason})"
    flow.set("d", "targets", "Orc")
    assert flow.chance_now() == f"chance of success: - ({reason})"
    assert flow.go() == Shown.REFUSED and flow.stage == FormStage.SETUP and flow.error == reason and flow.faces == []
    assert flow.step is None  # no group of dice was ever asked for
    s.execute("set Hero weapon 4D")
    assert flow.chance_now() == "chance of success: 62.50% (5/8)"


def test_an_effect_without_its_code_says_so_on_the_chance_line() -> None:
    """An effect "rolls its own die code" (actions.py): without `code=` the chance line
    names what is missing, as the roll would, rather than "no roll"."""
    s = d6("add Han")
    with pytest.raises(TrackerError, match=r"^effect needs its die code: code=4D"):
        s.chance("Han", "effect", [], {})
