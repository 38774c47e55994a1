"""Direct tests of tracker.persistence.checks: a save's values checked, every bad one a
SaveError naming the file, the table and the key, and what was expected; numbers TOML
cannot hold (past 64 bits, nan, infinity) refused wherever they sit (the module
docstring; docs/decisions/0007-save-format.md, 0044-save-limits.md; docs/guide/saves.md's
"Values nested ..., integers past 64 bits, `nan` and infinity are refused with a message
naming the file and key")."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import pytest

from tracker.engine import TrackerError
from tracker.engine.shapes import INT, STR, TABLE
from tracker.persistence.checks import SaveError, as_save_error, check, check_numbers, need, numbers_fit, shown

BIG = 2**63  # one past the largest 64-bit integer
SMALL = -(2**63) - 1  # one below the smallest


def _refusal(thunk: Any) -> str:
    with pytest.raises(SaveError) as refused:
        thunk()
    return str(refused.value)


# ------------------------------------------------------------------ check, need
def test_a_value_of_the_shape_passes_and_one_that_is_not_names_where_what_and_the_value() -> None:
    check("f.toml: name", "Ann", STR)  # no refusal
    check("f.toml: settings", {}, TABLE)
    assert _refusal(lambda: check("f.toml: name", 3, STR)) == "f.toml: name: expected text, got 3"
    assert _refusal(lambda: check("f.toml: settings", [1], TABLE)) == "f.toml: settings: expected a table, got [1]"
    seen: list[Any] = []
    check("w", "v", ("a thing", lambda v: seen.append(v) or True))
    assert seen == ["v"]  # the test is given the value itself


def test_a_refusal_is_a_save_error_and_so_a_tracker_error() -> None:
    with pytest.raises(TrackerError):
        check("f.toml: x", None, INT)


def test_a_missing_key_is_named_with_what_was_expected_at_the_top_and_inside_a_table() -> None:
    assert _refusal(lambda: need({}, "name", STR, "f.toml:")) == "f.toml: missing key 'name' (text)"
    assert _refusal(lambda: need({"pt": 1}, "kind", STR, "f.toml: events[2]")) == "f.toml: events[2]: missing key 'kind' (text)"


def test_a_present_key_is_returned_or_refused_by_its_path() -> None:
    assert need({"name": "Ann", "x": 1}, "name", STR, "f.toml:") == "Ann"
    assert need({"pt": 0}, "pt", INT, "f.toml: events[2]") == 0
    # 'file.toml:' + 'name' -> 'file.toml: name'; 'file.toml: events[2]' + 'pt' -> '...events[2].pt'
    assert _refusal(lambda: need({"name": 5}, "name", STR, "f.toml:")) == "f.toml: name: expected text, got 5"
    assert _refusal(lambda: need({"pt": "x"}, "pt", INT, "f.toml: events[2]")) == "f.toml: events[2].pt: expected an integer, got 'x'"


def test_a_present_key_holding_nothing_is_checked_not_taken_as_missing() -> None:
    assert _refusal(lambda: need({"pt": None}, "pt", INT, "f.toml:")) == "f.toml: pt: expected an integer, got None"
    assert need({"on": False}, "on", ("true or false", lambda v: isinstance(v, bool)), "f.toml:") is False


# ------------------------------------------------------------------ shown
def test_a_value_is_quoted_as_its_repr_up_to_80_characters() -> None:
    assert shown("Ann") == "'Ann'"
    assert shown(3) == "3"
    eighty = "x" * 78  # its repr has the two quotes: 80 characters, kept whole
    assert shown(eighty) == repr(eighty)
    assert len(shown(eighty)) == 80


def test_a_longer_value_is_cut_to_77_characters_and_three_dots() -> None:
    long = "y" * 79  # repr: 81 characters
    assert shown(long) == ("'" + "y" * 76) + "..."
    assert len(shown(long)) == 80
    assert shown(list(range(100))) == repr(list(range(100)))[:77] + "..."


def test_a_quoted_value_is_made_printable() -> None:
    # repr leaves a right-to-left override in a str subclass's own repr: the quote must not
    class Raw(str):
        def __repr__(self) -> str:
            return "A\u202eB\x1b"

    text = shown(Raw("z"))
    assert text.isprintable() and "\u202e" not in text and "\x1b" not in text
    assert text.startswith("A") and "B" in text


# ------------------------------------------------------------------ as_save_error
def test_a_ruleset_refusal_becomes_a_save_error_keeping_its_words() -> None:
    assert as_save_error(lambda: 42) == 42

    def refuse() -> None:
        raise TrackerError("f.toml: roster[0]: hp: expected at least 1, got 0")

    with pytest.raises(SaveError) as refused:
        as_save_error(refuse)
    assert str(refused.value) == "f.toml: roster[0]: hp: expected at least 1, got 0"
    assert refused.value.__cause__ is None and refused.value.__suppress_context__
    # a SaveError passes as it is, and other errors are not turned into one
    original = SaveError("f.toml: name: expected text, got 3")

    def passed_on() -> None:
        raise original

    with pytest.raises(SaveError) as again:
        as_save_error(passed_on)
    assert again.value is original

    def bug() -> None:
        raise KeyError("hp")

    with pytest.raises(KeyError):
        as_save_error(bug)


# ------------------------------------------------------------------ numbers
@pytest.mark.parametrize(
    "value",
    [
        0, 2**63 - 1, -(2**63), 1.5, -0.0, True, False, "text", None,
        {"a": {"b": [1, 2, (3, 4.0)]}}, [[[]]], (), {}, Fraction(1, 3),
    ],
)
def test_numbers_that_fit_a_save_pass_both_checks(value: Any) -> None:
    assert numbers_fit(value) is True
    check_numbers(value, "f.toml: x")  # no refusal


@pytest.mark.parametrize(
    ("value", "where", "message"),
    [
        (BIG, "f.toml: x", f"f.toml: x: {BIG} cannot be saved"),
        (SMALL, "f.toml: x", f"f.toml: x: {SMALL} cannot be saved"),
        (math.nan, "f.toml: x", "f.toml: x: nan cannot be saved"),
        (math.inf, "f.toml: x", "f.toml: x: inf cannot be saved"),
        (-math.inf, "f.toml: x", "f.toml: x: -inf cannot be saved"),
        ({"stats": {"hp": BIG}}, "f.toml: roster[0]", f"f.toml: roster[0].stats.hp: {BIG} cannot be saved"),
        ([1, 2, math.inf], "f.toml: events[3].faces", "f.toml: events[3].faces[2]: inf cannot be saved"),
        ((0, (SMALL,)), "f.toml: t", f"f.toml: t[1][0]: {SMALL} cannot be saved"),
        ({"a": [{"b": (1.0, math.nan)}]}, "s", "s.a[0].b[1]: nan cannot be saved"),
    ],
)
def test_a_number_toml_cannot_hold_is_refused_naming_where_it_sits(value: Any, where: str, message: str) -> None:
    assert numbers_fit(value) is False
    refusal = _refusal(lambda: check_numbers(value, where))
    assert refusal == message + " (integers must fit 64 bits, numbers must be finite)"


def test_a_bool_is_not_an_integer_here_and_other_number_types_are_asked_whether_they_fit() -> None:
    assert numbers_fit([True, False, {"x": True}]) is True

    class Huge(int):
        """An int of another class: its value is still checked."""

    assert numbers_fit([Huge(BIG)]) is False
    assert numbers_fit([Huge(5)]) is True

    class Wide(float):
        pass

    assert numbers_fit({"w": Wide(math.inf)}) is False
    assert numbers_fit({"w": Wide(2.5)}) is True
    assert _refusal(lambda: check_numbers({"w": Wide(math.inf)}, "f.toml: s")).startswith("f.toml: s.w: inf cannot be saved")


def test_every_value_of_a_table_and_every_item_of_a_list_is_looked_at() -> None:
    # the last, the first and a middle value, each the only one that does not fit
    for bad in range(5):
        row = [1] * 5
        row[bad] = BIG
        assert numbers_fit(row) is False
        assert numbers_fit(tuple(row)) is False
        table = {f"k{i}": v for i, v in enumerate(row)}
        assert numbers_fit(table) is False
        assert _refusal(lambda: check_numbers(table, "f")) == f"f.k{bad}: {BIG} cannot be saved (integers must fit 64 bits, numbers must be finite)"
        assert _refusal(lambda: check_numbers(row, "f")) == f"f[{bad}]: {BIG} cannot be saved (integers must fit 64 bits, numbers must be finite)"


def test_the_bounds_are_the_64_bit_ones_exactly() -> None:
    assert numbers_fit(2**63 - 1) and numbers_fit(-(2**63))
    assert not numbers_fit(2**63) and not numbers_fit(-(2**63) - 1)
    assert numbers_fit(1.7976931348623157e308) and numbers_fit(-1.7976931348623157e308)


def test_a_missing_key_drops_only_the_colon_of_a_files_name() -> None:
    assert _refusal(lambda: need({}, "name", STR, "BOX:")) == "BOX: missing key 'name' (text)"
    assert _refusal(lambda: need({}, "seq", INT, "saves/X: events[0]")) == "saves/X: events[0]: missing key 'seq' (an integer)"
