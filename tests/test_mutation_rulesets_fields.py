"""Direct tests of rulesets.fields: typed fields for sheets, settings and action
modifiers, each value refused with where it was and what was expected (`FieldError`),
yes/no options taking only true/false/yes/no (`yes_no`'s docstring: a typo must not
quietly mean either answer), `coerce_all`'s unknown keys and defaults, and `staged`'s
declare-form stages (MAIN named, AFTER_ROLL named or tested, the rest MORE)."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest

from rulesets import fields
from rulesets.fields import Field, FieldError
from tracker.engine.errors import TrackerError


def _refusal(field: Field, raw: object, where: str | None = None) -> str:
    with pytest.raises(FieldError) as refused:
        field.coerce(raw, where)
    assert isinstance(refused.value, TrackerError)
    return str(refused.value)


def test_field_error_says_where_what_and_got() -> None:
    error = FieldError("sheet.Seraph.Agility", "an integer", "x")
    assert str(error) == "sheet.Seraph.Agility: expected an integer, got 'x'"
    assert error.where == "sheet.Seraph.Agility"
    assert error.expected == "an integer"


@pytest.mark.parametrize("raw", [True, "true", "TRUE", " Yes ", "yes"])
def test_yes_no_yes(raw: object) -> None:
    assert fields.yes_no(raw, "secret") is True


@pytest.mark.parametrize("raw", [False, "false", "No", " no", "FALSE "])
def test_yes_no_no(raw: object) -> None:
    assert fields.yes_no(raw, "secret") is False


@pytest.mark.parametrize("raw", ["ture", "1", "on", "", 1, 0, None, "y"])
def test_yes_no_refuses_anything_else(raw: object) -> None:
    with pytest.raises(FieldError) as refused:
        fields.yes_no(raw, "secret")
    assert str(refused.value) == f"secret: expected true or false (or yes or no), got {raw!r}"


def test_expected_words_per_kind() -> None:
    assert Field("Style", "choice", choices=("fast", "slow")).expected() == "one of fast, slow"
    assert Field("secret", "bool").expected() == "true or false (or yes or no)"
    assert Field("note", "str").expected() == "text"
    assert Field("n").expected() == "an integer"
    assert Field("x", "float").expected() == "a number"
    assert Field("n", minimum=0, maximum=10).expected() == "an integer from 0 to 10"
    assert Field("x", "float", minimum=0.5).expected() == "a number of at least 0.5"
    assert Field("n", maximum=3).expected() == "an integer of at most 3"


def test_int_fields() -> None:
    dice = Field("Dice", minimum=1, maximum=10)
    assert dice.coerce("4") == 4
    assert dice.coerce(" 7 ") == 7
    assert dice.coerce(3) == 3
    assert dice.coerce(5.0) == 5 and isinstance(dice.coerce(5.0), int)
    assert dice.coerce(1) == 1 and dice.coerce(10) == 10
    assert _refusal(dice, 0) == "Dice: expected an integer from 1 to 10, got 0"
    assert _refusal(dice, "11", "sheet.Seraph.Dice") == "sheet.Seraph.Dice: expected an integer from 1 to 10, got '11'"
    assert _refusal(dice, 2.5) == "Dice: expected an integer from 1 to 10, got 2.5"
    assert _refusal(dice, True) == "Dice: expected an integer from 1 to 10, got True"
    assert _refusal(dice, "four") == "Dice: expected an integer from 1 to 10, got 'four'"
    assert _refusal(dice, None) == "Dice: expected an integer from 1 to 10, got None"
    assert Field("n").coerce("-3") == -3


def test_float_fields() -> None:
    weight = Field("Weight", "float", minimum=0, maximum=2.5)
    assert weight.coerce("1.5") == 1.5
    assert weight.coerce(2) == 2.0 and isinstance(weight.coerce(2), float)
    assert weight.coerce(0) == 0.0 and weight.coerce(2.5) == 2.5
    assert _refusal(weight, 2.6) == "Weight: expected a number from 0 to 2.5, got 2.6"
    assert _refusal(weight, -0.1) == "Weight: expected a number from 0 to 2.5, got -0.1"
    assert _refusal(weight, False) == "Weight: expected a number from 0 to 2.5, got False"
    assert _refusal(weight, "heavy") == "Weight: expected a number from 0 to 2.5, got 'heavy'"
    assert _refusal(weight, None) == "Weight: expected a number from 0 to 2.5, got None"


def test_bool_choice_and_text_fields() -> None:
    secret = Field("secret", "bool")
    assert secret.coerce("yes") is True and secret.coerce(False) is False
    assert _refusal(secret, "on") == "secret: expected true or false (or yes or no), got 'on'"
    assert _refusal(secret, "on", "declare.secret") == "declare.secret: expected true or false (or yes or no), got 'on'"
    style = Field("Style", "choice", choices=("fast", "slow"))
    assert style.coerce("slow") == "slow"
    assert _refusal(style, "Fast") == "Style: expected one of fast, slow, got 'Fast'"
    note = Field("note", "str")
    assert note.coerce("hello") == "hello"
    assert note.coerce(3) == "3" and note.coerce(1.5) == "1.5"
    assert _refusal(note, True) == "note: expected text, got True"
    assert _refusal(note, None) == "note: expected text, got None"
    assert _refusal(note, ["a"]) == "note: expected text, got ['a']"


def test_coerce_all_checks_each_key_and_fills_defaults() -> None:
    sheet = (Field("Agility", default=3, minimum=1), Field("Wounds", default=0), Field("note", "str"))
    assert fields.coerce_all(sheet, {"Agility": "4"}, "sheet.Seraph") == {"Agility": 4, "Wounds": 0}
    assert fields.coerce_all(sheet, {"Agility": "4"}, "sheet.Seraph", fill=False) == {"Agility": 4}
    assert fields.coerce_all(sheet, {"Wounds": 2, "note": "x"}, "s") == {"Wounds": 2, "note": "x", "Agility": 3}
    with pytest.raises(FieldError) as refused:
        fields.coerce_all(sheet, {"Agility": "0"}, "sheet.Seraph")
    assert str(refused.value) == "sheet.Seraph.Agility: expected an integer of at least 1, got '0'"
    with pytest.raises(FieldError) as refused:
        fields.coerce_all(sheet, {"Luck": 1}, "sheet.Seraph")
    assert str(refused.value) == "sheet.Seraph.Luck: expected one of the known keys (Agility, Wounds, note), got 'Luck'"
    with pytest.raises(FieldError) as refused:
        fields.coerce_all((), {"Luck": 1}, "settings")
    assert str(refused.value) == "settings.Luck: expected one of the known keys (none), got 'Luck'"
    assert fields.coerce_all(sheet, {"Luck": "x", "Wounds": "1"}, "s", extra_ok=True) == {"Luck": "x", "Wounds": 1, "Agility": 3}


def test_staged_sets_each_fields_stage() -> None:
    given = (Field("target"), Field("aim"), Field("Q"), Field("wiggle"))
    staged = fields.staged(given, main=["target"], after_roll=["Q"])
    assert [(f.name, f.stage) for f in staged] == [("target", "main"), ("aim", "more"), ("Q", "after_roll"), ("wiggle", "more")]
    by_test = fields.staged(given, main=("aim",), after_roll=lambda name: name.startswith("w"))
    assert [f.stage for f in by_test] == ["more", "main", "more", "after_roll"]
    # Named in both: after the roll.
    assert fields.staged((Field("Q"),), main=["Q"], after_roll=["Q"])[0].stage == fields.AFTER_ROLL
    assert [f.stage for f in fields.staged(given)] == [fields.MORE] * 4
    assert isinstance(staged, tuple) and staged[0].name == "target" and staged[0].kind == "int"


def test_int_fields_take_a_whole_number_of_any_size_and_refuse_other_numbers() -> None:
    # Stored data is taken as the number it is: past Python's 4,300-digit limit on
    # reading text, an integer is still the integer.
    huge = 10**5000
    assert Field("n").coerce(huge) == huge
    # A number that is not whole is refused, as 2.5 is, whatever its type.
    assert _refusal(Field("n"), Fraction(7, 2)) == "n: expected an integer, got Fraction(7, 2)"
    assert _refusal(Field("n"), Decimal("2.5")) == "n: expected an integer, got Decimal('2.5')"
