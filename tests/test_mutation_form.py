"""Direct tests of tracker.play.form: the declare form's text (module docstring: the
chance line, an action's summary, a field's value as typed) and where the form stands.
The chance is exact (docs/contributing/design.md: probabilities exact, never Monte
Carlo), so the line gives the fraction beside its percentage."""

from __future__ import annotations

from fractions import Fraction

import pytest

from rulesets.base import ActionTemplate
from rulesets.fields import Field, FieldError
from tracker.engine import CommandError
from tracker.play.form import (
    FieldChange,
    FormStage,
    Shown,
    chance_text,
    default_text,
    field_text,
    int_at_least_1,
    secret_yes_no,
    split_names,
    template_text,
)


def test_the_chance_line_gives_the_percentage_and_the_exact_fraction() -> None:
    assert chance_text(None) == "chance of success: no roll"
    assert chance_text(None, "a note") == "chance of success: no roll"
    assert chance_text(Fraction(1, 3)) == "chance of success: 33.33% (1/3)"
    assert chance_text(Fraction(1, 1)) == "chance of success: 100.00% (1/1)"
    assert chance_text(Fraction(7, 8), "with a reroll") == "chance of success: 87.50% (7/8) · with a reroll"


def test_an_actions_summary_says_only_what_it_has() -> None:
    assert template_text(ActionTemplate("wait", "passive", 1), False) == "wait: passive, PT 1"
    full = ActionTemplate("punch", "active", 4, "a blow", rolls="2d10", cost="1 EP")
    assert template_text(full, True) == "punch: active, PT 4, maintainable, rolls 2d10, cost 1 EP; a blow"
    assert template_text(full, False) == "punch: active, PT 4, rolls 2d10, cost 1 EP; a blow"
    assert template_text(ActionTemplate("dodge", "active", 2, cost="2 EP"), False) == "dodge: active, PT 2, cost 2 EP"


def test_pt_is_a_whole_number_of_at_least_one_segment() -> None:
    assert int_at_least_1("1") == 1
    assert int_at_least_1(" 12 ") == 12
    with pytest.raises(CommandError, match="^pt: expected at least 1 segment, got 0$"):
        int_at_least_1("0")
    with pytest.raises(CommandError, match="^pt: expected a whole number of segments, got 'soon'$"):
        int_at_least_1("soon")


def test_secret_is_yes_or_no_and_an_emptied_field_is_not_secret() -> None:
    assert secret_yes_no("") is False
    assert secret_yes_no("   ") is False
    assert secret_yes_no(" Yes ") is True
    assert secret_yes_no("false") is False
    with pytest.raises(FieldError, match=r"^secret: expected true or false \(or yes or no\), got 'maybe'$"):
        secret_yes_no("maybe")


def test_a_value_is_shown_as_typed() -> None:
    assert field_text(None) == ""
    assert field_text(True) == "true" and field_text(False) == "false"
    assert field_text(0) == "0" and field_text(2.5) == "2.5"
    assert field_text("Sphinx") == "Sphinx"  # text keeps its case
    assert default_text(Field("bonus", "int", 2)) == "2"
    assert default_text(Field("aimed", "bool", False)) == "false"
    assert default_text(Field("style", "str")) == ""


def test_names_typed_with_commas_are_split_and_blanks_dropped() -> None:
    assert split_names("Ann, Bo ,, Cy the Tall ,") == ["Ann", "Bo", "Cy the Tall"]
    assert split_names("") == [] and split_names(" , ") == []


def test_a_field_change_by_default_shows_nothing_more() -> None:
    change = FieldChange("bad")
    assert (change.error, change.shown, change.title, change.chance) == ("bad", None, False, False)
    assert [s.value for s in FormStage] == ["setup", "dice", "result"]
    assert Shown.COMMITTED.value == "committed"
