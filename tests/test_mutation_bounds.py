"""Direct tests of tracker.engine.bounds, each written for a mutant that survived the rule
tests; expected values are worked from the module's docstring (amounts finite and at most
10^12 in size, segments whole numbers from 0 to 10^12, computed values kept within
±10^15) and the user guide ("Numbers must be finite and at most 10^12", docs/guide/verbs.md);
every refusal names the field it refuses."""

from __future__ import annotations

import pytest

from tracker.engine.bounds import MAX_AMOUNT, MAX_SEGMENT, MAX_STORED, clamp, count, number, resolution, segment, sheet, value
from tracker.engine.effects import Adjust, Condition, Damage, Note, Resolution, Throwback, Upkeep
from tracker.engine.errors import TrackerError


def test_the_bounds_are_the_docstrings() -> None:
    assert (MAX_AMOUNT, MAX_SEGMENT, MAX_STORED) == (10**12, 10**12, 10**15)


@pytest.mark.parametrize("ok", [0, -3, 2.5, MAX_AMOUNT, -MAX_AMOUNT, float(MAX_AMOUNT)])
def test_a_finite_number_up_to_the_bound_is_taken_as_it_is(ok: float) -> None:
    assert number(ok, "hp") == ok
    assert value(ok, "hp") == ok


@pytest.mark.parametrize(("bad", "words"), [
    (True, "expected a number, got True"),
    ("5", "expected a number, got '5'"),
    (None, "expected a number, got None"),
    (float("nan"), "expected a finite number, got nan"),
    (float("-inf"), "expected a finite number, got -inf"),
    (MAX_AMOUNT + 1, "expected a number of at most 1,000,000,000,000 in size, got 1e+12"),
    (-MAX_AMOUNT - 1, "expected a number of at most 1,000,000,000,000 in size, got -1e+12"),
    (1.5e12, "expected a number of at most 1,000,000,000,000 in size, got 1.5e+12"),
])
def test_anything_else_is_refused_naming_the_field(bad: object, words: str) -> None:
    with pytest.raises(TrackerError) as refused:
        number(bad, "Ann: hp")
    assert str(refused.value) == f"Ann: hp: {words}"


def test_a_stat_may_be_yes_no_or_text_a_resource_only_a_number() -> None:
    assert value(True, "x") is True and value("sly", "x") == "sly"
    sheet({"brave": True, "motto": "onward", "str": 12}, {"hp": 10, "ep": 2.5}, "Ann")
    with pytest.raises(TrackerError, match=r"^Ann: str: expected a finite number, got nan$"):
        sheet({"str": float("nan")}, {}, "Ann")
    with pytest.raises(TrackerError, match=r"^Ann: hp: expected a number, got 'ten'$"):
        sheet({}, {"hp": "ten"}, "Ann")
    with pytest.raises(TrackerError, match=r"^Ann: hp: expected a number, got True$"):
        sheet({}, {"hp": True}, "Ann")


@pytest.mark.parametrize(("ok", "minimum"), [(0, 0), (MAX_SEGMENT, 0), (1, 1), (7, 7)])
def test_a_segment_from_the_minimum_to_the_bound_is_taken(ok: int, minimum: int) -> None:
    assert segment(ok, "to", minimum) == ok


@pytest.mark.parametrize(("bad", "minimum", "words"), [
    (True, 0, "expected a whole number of segments, got True"),
    (2.0, 0, "expected a whole number of segments, got 2.0"),
    ("3", 0, "expected a whole number of segments, got '3'"),
    (-1, 0, "expected a whole number from 0 to 1,000,000,000,000, got -1"),
    (0, 1, "expected a whole number from 1 to 1,000,000,000,000, got 0"),
    (MAX_SEGMENT + 1, 0, "expected a whole number from 0 to 1,000,000,000,000, got 1000000000001"),
])
def test_a_segment_out_of_bounds_is_refused_with_the_bounds(bad: object, minimum: int, words: str) -> None:
    with pytest.raises(TrackerError) as refused:
        segment(bad, "to", minimum)
    assert str(refused.value) == f"to: {words}"


def test_a_segment_starts_at_zero_unless_told() -> None:
    assert segment(0, "to") == 0
    with pytest.raises(TrackerError, match="from 0 to"):
        segment(-1, "to")


def test_a_draw_of_dice_is_a_whole_number_from_zero_to_the_bound() -> None:
    assert count(0, "draw") == 0 and count(MAX_AMOUNT, "draw") == MAX_AMOUNT
    for bad, shown in ((-1, "-1"), (MAX_AMOUNT + 1, "1000000000001"), (True, "True"), (2.0, "2.0"), ("2", "'2'")):
        with pytest.raises(TrackerError) as refused:
            count(bad, "draw")
        assert str(refused.value) == f"draw: expected a whole number from 0 to 1,000,000,000,000, got {shown}"


def test_a_computed_value_is_kept_within_the_stored_bound() -> None:
    assert clamp(MAX_STORED) == MAX_STORED and clamp(-MAX_STORED) == -MAX_STORED
    assert clamp(MAX_STORED + 1) == MAX_STORED and clamp(-MAX_STORED - 1) == -MAX_STORED
    assert clamp(1e300) == MAX_STORED and clamp(-1e300) == -MAX_STORED
    assert clamp(-7) == -7 and clamp(2.5) == 2.5


def test_a_resolution_in_bounds_passes() -> None:
    resolution(Resolution(1, effects=(
        Damage("Bo", MAX_AMOUNT, "hp", overflow="ep", lead=3), Adjust("Bo", "str", -2, reason="why"),
        Throwback("Bo", 2.0, 1.0, 2), Condition("Bo", "dazed", MAX_SEGMENT), Upkeep("Bo", "hold", "ep", 1),
        Note("fine"), Damage("Bo", 1, "hp", timing="initiate"),
    )), "declare")
    resolution(Resolution(MAX_SEGMENT), "declare")


@pytest.mark.parametrize(("res", "words"), [
    (Resolution(0), "declare: pt: expected a whole number from 1 to 1,000,000,000,000, got 0"),
    (Resolution(MAX_SEGMENT + 1), "declare: pt: expected a whole number from 1 to 1,000,000,000,000, got 1000000000001"),
    (Resolution(2.0), "declare: pt: expected a whole number of segments, got 2.0"),  # type: ignore[arg-type]
    (Resolution(True), "declare: pt: expected a whole number of segments, got True"),
    (Resolution(1, effects=(Damage(5, 1, "hp"),)), "declare: damage effect: target: expected text, got 5"),  # type: ignore[arg-type]
    (Resolution(1, effects=(Damage("Bo", 1, None),)), "declare: damage effect: resource: expected text, got None"),  # type: ignore[arg-type]
    (Resolution(1, effects=(Damage("Bo", 1, "hp", overflow=3),)), "declare: damage effect: overflow: expected text, got 3"),  # type: ignore[arg-type]
    (Resolution(1, effects=(Adjust("Bo", 2, 1),)), "declare: adjust effect: key: expected text, got 2"),  # type: ignore[arg-type]
    (Resolution(1, effects=(Adjust("Bo", "str", 1, reason=0),)), "declare: adjust effect: reason: expected text, got 0"),  # type: ignore[arg-type]
    (Resolution(1, effects=(Condition("Bo", 1, 2),)), "declare: condition effect: name: expected text, got 1"),  # type: ignore[arg-type]
    (Resolution(1, effects=(Note(1),)), "declare: note effect: text: expected text, got 1"),  # type: ignore[arg-type]
    (Resolution(1, effects=(Damage("Bo", 1, "hp", timing="later"),)), "declare: damage effect: timing: expected initiate or complete, got 'later'"),
    (Resolution(1, effects=(Damage("Bo", float("nan"), "hp"),)), "declare: damage effect: amount: expected a finite number, got nan"),
    (Resolution(1, effects=(Adjust("Bo", "str", 1e13),)), "declare: adjust effect: delta: expected a number of at most 1,000,000,000,000 in size, got 1e+13"),
    (Resolution(1, effects=(Throwback("Bo", float("inf"), 1.0, 2),)), "declare: throwback effect: distance: expected a finite number, got inf"),
    (Resolution(1, effects=(Throwback("Bo", 2.0, "fast", 2),)), "declare: throwback effect: speed: expected a number, got 'fast'"),  # type: ignore[arg-type]
    (Resolution(1, effects=(Throwback("Bo", 2.0, 1.0, -1),)), "declare: throwback effect: airborne: expected a whole number from 0 to 1,000,000,000,000, got -1"),
    (Resolution(1, effects=(Condition("Bo", "dazed", 2.5),)), "declare: condition effect: duration: expected a whole number of segments, got 2.5"),  # type: ignore[arg-type]
    (Resolution(1, effects=(Damage("Bo", 1, "hp", lead=MAX_SEGMENT + 1),)), "declare: damage effect: lead: expected a whole number from 0 to 1,000,000,000,000, got 1000000000001"),
])
def test_a_resolution_is_refused_by_its_first_number_or_text_out_of_bounds(res: Resolution, words: str) -> None:
    with pytest.raises(TrackerError) as refused:
        resolution(res, "declare")
    assert str(refused.value) == words
