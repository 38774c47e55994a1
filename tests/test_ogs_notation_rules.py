"""OGS dice notation: the terms of a roll and the dice pools among them, worked by hand
from the rules text (seed 002) and the notation's own sentence ("dice (d4, d6, ...),
counts like 3d6, pools in [ ], or whole numbers")."""

from __future__ import annotations

import pytest

from rulesets.ogs.notation import MAX_DICE, DiceSteps, increase_die, parse
from tracker.engine.errors import TrackerError

STEPS = DiceSteps()


def test_a_pool_is_one_group_and_each_single_die_its_own() -> None:
    """ "Dice Pool: Used to refer to multiple dice rolled as a group and added together.
    If an effect states that it affects a die pool, it will only affect a single pool
    even if a roll consists of multiple pools." So two pools are two groups, a pool after
    a die is a group apart from that die, and each die of 3d6 is a die of its own."""
    assert parse("[d8+d6]+d4", STEPS).groups == (0, 0, 1)
    assert parse("d4+[d8+d6]", STEPS).groups == (0, 1, 1)
    assert parse("[d8+d6]+[d4+d4]", STEPS).groups == (0, 0, 1, 1)
    assert parse("3d6+[d8+d6]", STEPS).groups == (0, 1, 2, 3, 3)
    assert parse("d4+3d6", STEPS).groups == (0, 1, 2, 3)


def test_whole_numbers_add_up_wherever_they_stand() -> None:
    spec = parse("d6+2+3", STEPS)
    assert (spec.sides, spec.flat) == ((6,), 5)
    spec = parse("2+d6-1+d8", STEPS)  # a number first: the dice after it still count
    assert (spec.sides, spec.flat) == ((6, 8), 1)


def test_a_roll_holds_at_most_the_named_number_of_dice() -> None:
    assert len(parse(f"{MAX_DICE}d6", STEPS).sides) == MAX_DICE
    assert len(parse(f"{MAX_DICE - 1}d6+[d8]", STEPS).sides) == MAX_DICE
    with pytest.raises(TrackerError, match=f"at most {MAX_DICE} dice, not {MAX_DICE + 1}"):
        parse(f"{MAX_DICE}d6+[d8]", STEPS)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("-[d8+d6]", "ogs dice '-[d8+d6]': term '-[d8+d6]': a pool is written [d8+d6]"),
        ("d4+[d8]x", "ogs dice 'd4+[d8]x': term '[d8]x': a pool is written [d8+d6]"),
        ("d4+[d8", "ogs dice 'd4+[d8': a '[' without its ']'"),
        ("d4+[]", "ogs dice 'd4+[]': pool '[]': expected dice inside, such as [d8+d6]"),
        ("[d8+x]", "ogs dice '[d8+x]': pool '[d8+x]': expected dice inside, such as [d8+d6]"),
        ("[d8-d6]", "ogs dice '[d8-d6]': pool '[d8-d6]': expected dice inside, such as [d8+d6]"),
        ("[d7]", "ogs dice '[d7]': term 'd7': d7 is not an OGS die (dice: d4, d6, d8, d10, d12)"),
        ("d4+x", "ogs dice 'd4+x': term 'x': expected dice (d4, d6, d8, d10, d12), counts like 3d6, pools in [ ], or whole numbers"),
        ("d8-d6", "ogs dice 'd8-d6': term '-d6': dice cannot be subtracted"),
    ],
)
def test_a_bad_term_is_named_with_what_was_expected(spec: str, message: str) -> None:
    with pytest.raises(TrackerError) as refused:
        parse(spec, STEPS)
    assert str(refused.value) == message


def test_past_d12_a_die_becomes_the_pool_and_the_further_stages_go_to_its_target() -> None:
    """ "If a die is affected, it becomes a dice pool. The die pool defaults to [d8 + d6].
    Any further Die Increase effects from the same effect [...] target the d6 by default."
    A GM's table may name another pool ([dice] overflow): every die of it is kept, the
    target grown in its place."""
    assert increase_die(12, 1, STEPS) == [8, 6]
    assert increase_die(12, 2, STEPS) == [8, 8]  # the further stage grows the d6
    three = DiceSteps.from_table({"overflow": [8, 6, 4], "overflow_target": 1})
    assert increase_die(12, 1, three) == [8, 6, 4]
    assert increase_die(12, 3, three) == [8, 10, 4]  # the d6 twice: d8, d10
    with pytest.raises(TrackerError) as refused:
        increase_die(4, -1, STEPS)
    assert str(refused.value) == "a Die Increase has 0 or more stages, not -1"
    with pytest.raises(TrackerError) as refused:
        increase_die(7, 1, STEPS)
    assert str(refused.value) == "d7 is not on the die ladder (d4, d6, d8, d10, d12)"
