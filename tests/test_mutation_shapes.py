"""Direct tests of tracker.engine.shapes: what each key of a saved event expects. Expected
values are worked from the module's docstrings and comments: numbers TOML can hold (a
64-bit integer or a finite float; bools are fine where any value is), a chance written
"n/d" from 0 to 1, a damage event's further targets as tables of strings."""

from __future__ import annotations

from enum import IntEnum
from typing import Any

from tracker.engine import shapes
from tracker.engine.shapes import (ANY, BOOL, CHANCE, DAMAGE_ALSO, DICE_MARK, INT, INT_MAX, INT_MIN, MODE, NUM, PROPOSED, STR,
                                   STRS, TABLE, fits, is_chance, is_int, is_ints, is_num, is_tables)

BIG = 2**63


class Face(IntEnum):
    SIX = 6


def test_the_64_bit_bounds() -> None:
    assert (INT_MIN, INT_MAX) == (-BIG, BIG - 1)


def test_fits_holds_what_toml_can() -> None:
    assert [fits(v) for v in (True, False, 0, BIG - 1, -BIG, BIG, -BIG - 1, 1.5, float("inf"), float("nan"), "x", None)] == [
        True, True, True, True, True, False, False, True, False, False, True, True]


def test_integers_and_numbers() -> None:
    assert [is_int(v) for v in (0, -BIG, BIG - 1, BIG, -BIG - 1, True, 1.0, "1")] == [True, True, True, False, False, False, False, False]
    assert [is_num(v) for v in (0, 2.5, BIG - 1, BIG, float("inf"), float("nan"), True, "1")] == [
        True, True, True, False, False, False, False, False]


def test_the_plain_shapes_and_their_words() -> None:
    assert STR == ("text", shapes.is_str) and STR[1]("x") and not STR[1](1)
    assert INT[0] == "an integer" and NUM[0] == "a finite number" and BOOL[0] == "true or false"
    assert BOOL[1](False) and not BOOL[1](0)
    assert TABLE[0] == "a table" and TABLE[1]({}) and not TABLE[1]([])
    assert STRS[0] == "a list of names"
    assert ANY[0] == "a value" and ANY[1](None)
    assert MODE[0] == "active or passive" and MODE[1]("active") and MODE[1]("passive") and not MODE[1]("Active")
    assert DICE_MARK[0] == "typed, app or typed+app"
    assert [DICE_MARK[1](v) for v in ("typed", "app", "typed+app", "app+typed", "")] == [True, True, True, False, False]


def test_lists_of_names_integers_and_tables() -> None:
    assert [STRS[1](v) for v in ([], ["a", "b"], ["a", 1], ("a",), "ab")] == [True, True, False, False, False]
    assert [is_ints(v) for v in ([], [1, -2], [BIG - 1, -BIG], [BIG], [1, -BIG - 1], [True], [1.0], (1,), None)] == [
        True, True, True, False, False, False, False, False, False]
    assert is_ints([Face.SIX, 2])  # an integer of a subclass is an integer
    assert not is_ints([Face.SIX, 2**63])
    tables: tuple[Any, ...] = ([], [{}, {"a": 1}], [{}, []], ({},))
    assert [is_tables(v) for v in tables] == [True, True, False, False]


def test_a_chance_is_n_over_d_from_0_to_1() -> None:
    assert CHANCE[0] == 'a chance written "n/d", from 0 to 1'
    good = ("0/1", "1/1", "1/3", "35/36", "036/36", "0/10")
    bad = ("2/1", "1/0", "1/03", "-1/2", "1 / 2", "1/2 ", "1/", "/2", "0.5", "1/2/3", "", 1, None)
    assert [is_chance(v) for v in good] == [True] * len(good)
    assert [is_chance(v) for v in bad] == [False] * len(bad)


def test_a_proposal_holds_only_optional_keys_of_their_shapes() -> None:
    assert {k: (shape[0], required) for k, (shape, required) in PROPOSED.items()} == {
        "actor": ("text", False), "params": ("a table", False), "pt": ("an integer", False),
        "template": ("text", False), "mode": ("active or passive", False), "targets": ("a list of names", False),
        "companions": ("a list of names", False), "maintainable": ("true or false", False),
        "secret": ("true or false", False), "chance": ('a chance written "n/d", from 0 to 1', False),
        "resolution": ("a table", False), "dice": ("typed, app or typed+app", False), "draw": ("an integer", False),
        "faces": ("a list of integers", False)}
    faces = PROPOSED["faces"][0][1]
    assert [faces(v) for v in ([], [1, 6], [1, True], [1.0], (1,))] == [True, True, False, False, False]


def test_a_damage_events_further_targets() -> None:
    ok = DAMAGE_ALSO[1]
    assert DAMAGE_ALSO[0] == "a list of tables with a target, a resource and maybe an overflow (strings)"
    assert ok([]) and ok([{"target": "Bo", "resource": "hp"}, {"target": "Cy", "resource": "ep", "overflow": "hp"}])
    for bad in ([{"target": "Bo"}], [{"resource": "hp"}], [{"target": "Bo", "resource": "hp", "amount": "3"}],
                [{"target": "Bo", "resource": 3}], ["Bo"], {"target": "Bo", "resource": "hp"}, ({"target": "Bo", "resource": "hp"},)):
        assert not ok(bad), bad
