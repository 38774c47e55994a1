"""Direct tests of rulesets.ogs.sheet: the dice fields of an OGS sheet and its declare
modifiers, as the module's docstring and `DiceField`'s describe them.

Seed 002 names the parts of an Action Check: "The first die is the stat die ... The
second die is either the skill or force die ... the dice pool is generally referred to
as the Enhancement Die", and "the flat bonus is added directly to the total". So a
field for one die takes one die (or the pool a Die Increase makes of one die, "[d8 +
d6]"), a pool field takes any dice, and a flat number belongs in `flat`, not in dice.
Each refusal is a `FieldError` reading "WHERE: expected WHAT, got RAW".
"""

from __future__ import annotations

import pytest

from rulesets.fields import FieldError
from rulesets.ogs.notation import DiceSpec, DiceSteps
from rulesets.ogs.sheet import SHEET, DiceField, dice_of
from tracker.engine.errors import TrackerError

SEED_DICE = "d4, d6, d8, d10, d12"  # seed 002: "d4, d6, d8, d10, and d12"
ONE_DIE = f"one die ({SEED_DICE}) or a pool like [d8+d6]"
ANY_DICE = f"dice such as d8, 2d6 or d8+[d8+d6] ({SEED_DICE})"

STAT = DiceField("stat", "str", "d6", single=True)
POOL = DiceField("enhancement", "str", "d4")


def refusal(field: DiceField, raw: object, where: str | None = None) -> FieldError:
    with pytest.raises(FieldError) as refused:
        field.coerce(raw, where)
    return refused.value


def test_the_sheet_holds_the_parts_of_an_action_check_with_one_die_where_the_seed_says_die() -> None:
    fields = {f.name: f for f in SHEET}
    assert [name for name, f in fields.items() if isinstance(f, DiceField) and f.single] == ["stat", "skill", "force"]
    assert isinstance(fields["enhancement"], DiceField) and not fields["enhancement"].single
    assert isinstance(fields["damage"], DiceField) and not fields["damage"].single


@pytest.mark.parametrize("raw", [5, None, True, 8.0, ["d8"]])
def test_anything_but_text_is_refused_in_the_fields_words(raw: object) -> None:
    error = refusal(STAT, raw)
    assert str(error) == f"stat: expected {ONE_DIE}, got {raw!r}"
    assert error.where == "stat" and error.expected == ONE_DIE


def test_a_refusal_names_the_place_it_was_given_for() -> None:
    error = refusal(POOL, 7, "add Michael.enhancement")
    assert str(error) == f"add Michael.enhancement: expected {ANY_DICE}, got 7"


@pytest.mark.parametrize("raw", ["", " ", "   "])
def test_empty_or_blank_means_no_dice(raw: str) -> None:
    # The docstring: "An empty value means none (e.g. no force die)".
    assert STAT.coerce(raw) == "" and POOL.coerce(raw) == ""


@pytest.mark.parametrize(("raw", "single", "expected"), [
    ("d8", True, "d8"),
    ("D8", True, "d8"),
    (" d 1 2 ", True, "d12"),
    ("[d8 + d6]", True, "[d8+d6]"),  # the seed's pool past d12, one die's place
    ("d8 + d6", False, "d8+d6"),
    ("2D6", False, "d6+d6"),
    ("d8 + [D8+d6]", False, "d8+[d8+d6]"),
])
def test_dice_are_taken_in_any_case_and_spacing_and_written_back_in_notation(raw: str, single: bool, expected: str) -> None:
    assert (STAT if single else POOL).coerce(raw) == expected


@pytest.mark.parametrize("raw", ["d7", "d8+d5", "x", "[d8"])
def test_what_is_not_ogs_dice_is_refused_with_what_was_typed(raw: str) -> None:
    assert str(refusal(POOL, raw)) == f"enhancement: expected {ANY_DICE}, got {raw!r}"


@pytest.mark.parametrize("raw", ["d8+2", "d8-1", "3", "0", "-2"])
def test_a_flat_bonus_is_refused_in_dice_and_pointed_to_flat(raw: str) -> None:
    # Seed 002: a flat bonus "is added directly to the total"; the sheet keeps it in `flat`.
    error = refusal(POOL, raw, "Guard.enhancement")
    assert str(error) == f"Guard.enhancement: expected {ANY_DICE} (flat bonuses go in `flat`), got {raw!r}"


@pytest.mark.parametrize("raw", ["2d8", "d8+d6", "d8+[d8+d6]"])
def test_a_single_die_field_refuses_two_dice_but_the_pool_field_takes_them(raw: str) -> None:
    assert str(refusal(STAT, raw, "Michael.skill")) == f"Michael.skill: expected {ONE_DIE}, got {raw!r}"
    assert POOL.coerce(raw)


def test_dice_of_reads_notation_and_empty_is_no_dice() -> None:
    steps = DiceSteps()
    assert dice_of("d8+[d8+d6]", steps, "Michael.damage").sides == (8, 8, 6)
    assert dice_of("", steps, "Michael.force") == DiceSpec(())


def test_dice_of_names_the_field_a_bad_value_came_from() -> None:
    with pytest.raises(TrackerError) as refused:
        dice_of("d7", DiceSteps(), "Michael.damage")
    assert str(refused.value).startswith("Michael.damage 'd7': ")
    with pytest.raises(TrackerError) as refused:
        dice_of("d6", DiceSteps(steps=(4, 8), overflow=(8, 4), overflow_target=1), "Guard.stat")
    assert "Guard.stat" in str(refused.value) and "ogs dice" not in str(refused.value)
