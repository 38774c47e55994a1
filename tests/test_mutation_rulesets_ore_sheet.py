"""ORE's sheet (`rulesets/ore/sheet.py`), tested directly for the mutation run.

The numbers come from the CyberORE seed (`seeds/003_...`): "Each stat has at least 1d
and no more than 5d", a skill is "rated from 0 dice to 5d", hard (hd) and wiggle (wd)
dice; from the module's docstring (weapons are damage formulas of width, `har`/`lar`
heavy and light armour, wound boxes per location from the `wound_boxes` table) and from
`rulesets/ore/tables.py`'s (`[wound_boxes]`: 1 to 50 boxes a location).

`_sheet()` is run when the module is imported, before a mutant is switched on, so the
sheet is made again here to reach its mutants.
"""

from __future__ import annotations

from typing import Any

import pytest

from rulesets.fields import RESOURCE, STAT, Field, FieldError
from rulesets.ore.pool import parse
from rulesets.ore.sheet import SHIPPED, DamageField, PoolField, _sheet

SEED_STATS = ("body", "coordination", "sense", "brains", "command", "cool")  # the seed's six, in its order
WILD_TALENTS_SKILLS = ("brawling", "melee", "ranged", "dodge", "block")  # the docstring's combat skills
# The `wound_boxes` table's comment: "Reign: limbs 5, torso 10, head 4".
REIGN_BOXES = {"left_leg": 5, "right_leg": 5, "left_arm": 5, "right_arm": 5, "torso": 10, "head": 4}


def refusal(field: Field, raw: Any, where: str | None = None) -> FieldError:
    with pytest.raises(FieldError) as caught:
        field.coerce(raw, where)
    return caught.value


def by_name() -> dict[str, Field]:
    return {f.name: f for f in _sheet()}


# ---------------------------------------------------------------- PoolField

def test_a_pool_is_taken_in_any_case_and_spacing_and_given_back_as_the_pool_reads() -> None:
    stat = PoolField("body", "str", "2d", low=1, high=5)
    assert stat.coerce(" 2D+1HD ") == "2d+1hd"
    assert stat.coerce("1d+1wd") == "1d+1wd"
    assert stat.coerce(3) == "3d"  # a bare number of dice means normal dice
    assert stat.coerce("4") == "4d"


def test_an_empty_skill_is_no_dice() -> None:
    skill = PoolField("melee", "str", "0d")
    assert skill.coerce("") == "0d"
    assert skill.coerce("  ") == "0d"


def test_a_stat_from_1d_to_5d_and_no_further() -> None:
    """The seed: "Each stat has at least 1d and no more than 5d"."""
    stat = PoolField("cool", "str", "2d", low=1, high=5)
    assert stat.coerce("1d") == "1d" and stat.coerce("5d") == "5d" and stat.coerce("4d+1hd") == "4d+1hd"
    for raw in ("0d", "", "6d", "5d+1wd"):
        error = refusal(stat, raw)
        assert (error.where, error.expected) == ("cool", "a pool of 1 to 5 dice such as 3d or 2d+1hd or 1d+1wd")
        assert repr(raw) in str(error)


def test_a_refusal_names_where_it_was_given_the_words_expected_and_the_value() -> None:
    skill = PoolField("ranged", "str", "0d")
    words = "a pool of 0 to 5 dice such as 3d or 2d+1hd or 1d+1wd"
    for raw in (True, 2.5, None, ["3d"], "3x", "2d+", "6d"):
        for where in (None, "Vex.ranged"):
            error = refusal(skill, raw, where)
            assert error.where == (where or "ranged")
            assert error.expected == words
            assert str(error) == f"{where or 'ranged'}: expected {words}, got {raw!r}"


# ---------------------------------------------------------------- DamageField

def test_damage_is_a_formula_of_width_kept_in_lower_case() -> None:
    weapon = DamageField("weapon", "str", "width killing")
    assert weapon.coerce("  Width+1 KILLING ") == "width+1 killing"
    assert weapon.coerce("1 killing + width shock") == "1 killing + width shock"
    assert weapon.expected().startswith("damage such as") and "'width+1 killing'" in weapon.expected()


def test_damage_that_is_not_a_formula_is_refused_by_name() -> None:
    gun = DamageField("gun", "str", "width+1 killing")
    for raw in (3, None, True, "width", "lots of killing", ""):
        for where in (None, "Vex.gun"):
            error = refusal(gun, raw, where)
            assert error.where == (where or "gun")
            assert error.expected == gun.expected()
            assert str(error) == f"{where or 'gun'}: expected {gun.expected()}, got {raw!r}"


# ---------------------------------------------------------------- the sheet

def test_the_sheet_holds_the_six_stats_the_five_skills_weapons_armour_and_two_box_counts_a_location() -> None:
    names = [f.name for f in _sheet()]
    locations = list(REIGN_BOXES)
    assert names == [*SEED_STATS, *WILD_TALENTS_SKILLS, "weapon", "gun", "har", "lar",
                     *(n for loc in locations for n in (loc, f"{loc}_k"))]
    assert tuple(SHIPPED["wound_boxes"]) == tuple(locations)


def test_stats_are_pools_of_1d_to_5d_that_start_legal() -> None:
    fields = by_name()
    for name in SEED_STATS:
        f = fields[name]
        assert isinstance(f, PoolField) and f.kind == "str" and f.role == STAT
        assert (f.low, f.high) == (1, 5)
        assert f.coerce(f.default) == f.default and 1 <= parse(f.default).size <= 5
        assert f.help.startswith(f"{name} stat pool") and "(1d-5d)" in f.help
        assert f.coerce("5d") == "5d"
        with pytest.raises(FieldError):
            f.coerce("0d")
        with pytest.raises(FieldError):
            f.coerce("6d")


def test_skills_are_pools_of_0d_to_5d_that_start_with_none() -> None:
    fields = by_name()
    for name in WILD_TALENTS_SKILLS:
        f = fields[name]
        assert isinstance(f, PoolField) and f.kind == "str" and f.role == STAT
        assert (f.low, f.high) == (0, 5)
        assert f.default == "0d" and f.coerce(f.default) == "0d"  # an untrained skill
        assert f.help.startswith(f"{name} skill pool") and "(0d-5d)" in f.help
        with pytest.raises(FieldError):
            f.coerce("6d")


def test_weapons_are_damage_formulas_that_start_legal() -> None:
    fields = by_name()
    for name, kind in (("weapon", "melee weapon"), ("gun", "ranged weapon")):
        f = fields[name]
        assert isinstance(f, DamageField) and f.kind == "str" and f.role == STAT
        assert f.coerce(f.default) == f.default and "width" in f.default
        assert f.help.startswith(kind) and f.help.endswith("damage")


def test_armour_is_a_whole_number_none_by_default() -> None:
    fields = by_name()
    for name, words in (("har", "heavy armour"), ("lar", "light armour")):
        f = fields[name]
        assert type(f) is Field and f.kind == "int" and f.role == STAT
        assert f.default == 0 and f.coerce(0) == 0 and f.coerce(3) == 3
        assert f.help.startswith(words)
        with pytest.raises(FieldError):
            f.coerce(-1)
        with pytest.raises(FieldError):
            f.coerce("heavy")


def test_each_location_has_its_boxes_empty_and_free_of_killing_from_the_table() -> None:
    """Wound boxes per location from the `wound_boxes` table, 1 to 50 a location."""
    fields = by_name()
    for loc, boxes in REIGN_BOXES.items():
        for name, words in ((loc, "empty wound boxes"), (f"{loc}_k", "boxes free of Killing")):
            f = fields[name]
            assert type(f) is Field and f.kind == "int" and f.role == RESOURCE
            assert f.default == boxes
            assert f.help == f"{loc}: {words}"
            assert f.coerce(1) == 1 and f.coerce(50) == 50
            for bad in (0, 51):
                with pytest.raises(FieldError):
                    f.coerce(bad)
