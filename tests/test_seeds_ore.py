"""One-Roll Engine (seed 003): each core sentence of the rules, quoted, with sets and
odds worked by hand. The seed's worked rolls and the combat rules are in
tests/test_ore.py, number for number."""

from __future__ import annotations

from fractions import Fraction

import pytest

from rulesets.dice import TypedFaces
from rulesets.ore import odds
from rulesets.ore.pool import (
    Outcome,
    Pool,
    contest,
    narrower_succeeds,
    parse,
    penalise,
    roll,
)
from tests.helpers import cli_json
from tracker.engine.errors import TrackerError


def test_matching_dice_are_a_set_of_width_by_height() -> None:
    """Seed: "We abbreviate the results as "width x height"—so if three dice come up
    "5," that's 3x5. If two dice come up "7," it's 2x7."

    By hand: 5, 5, 5, 7, 7, 2 holds 3x5 and 2x7, with the 2 loose."""
    out = Outcome([5, 5, 5, 7, 7, 2])
    assert sorted(out.sets()) == [(2, 7), (3, 5)] and out.loose() == [2]


def test_any_set_succeeds_and_no_set_fails() -> None:
    """Seed: "If you have any matching sets in your roll, the action succeeds. If you
    don't roll any matching sets, your attempt fails." By hand: 1, 1, 9 succeeds with
    2x1 (the lowest height: "you just barely succeeded"); 1, 2, 3, 4, 5 fails."""
    assert cli_json("roll", "ore", "3d", "--faces", "1,1,9")["success"] is True
    assert cli_json("roll", "ore", "5d", "--faces", "1,2,3,4,5")["success"] is False


def test_the_pool_is_stat_plus_skill_dice() -> None:
    """Seed: "Add the stat and skill dice together to get your dice pool, or how many
    dice to roll." By hand: Body 3d + Brawling 2d is five dice."""
    assert parse("3d") + parse("2d") == Pool(5, 0, 0)
    assert parse("3d+2d").size == 5


def test_a_hard_die_is_a_ten_without_rolling() -> None:
    """Seed: "A hard die is automatically set to "10." You don't even need to roll it;
    just set it at 10 and roll the normal dice to go along with it." By hand: 2d + 1hd
    with the two dice showing 10 and 3 is 2x10; only two faces are typed."""
    out = roll(parse("2d+1hd"), TypedFaces([10, 3]))
    assert out.sets() == [(2, 10)]


def test_a_wiggle_die_makes_a_set_with_only_one_other_die() -> None:
    """Seed: "A wiggle die can be set to whatever number you want, after you roll your
    other dice. That means you can have a matching set whenever you want, even with only
    one other die." By hand: 1d + 1wd, the die showing 4: the wiggle die is set to 4:
    2x4, a success."""
    out = roll(parse("1d+1wd"), TypedFaces([4]))
    assert out.best() == (2, 4)


def test_the_height_must_equal_or_beat_the_difficulty() -> None:
    """Seed: "If your roll's height doesn't equal or beat the Difficulty, it fails." By
    hand: 2x5 meets a Difficulty of 5 and of 4, fails one of 6."""
    assert cli_json("roll", "ore", "3d", "--difficulty", "5", "--faces", "5,5,1")["success"] is True
    assert cli_json("roll", "ore", "3d", "--difficulty", "4", "--faces", "5,5,1")["success"] is True
    assert cli_json("roll", "ore", "3d", "--difficulty", "6", "--faces", "5,5,1")["success"] is False
    # A Difficulty is a height: 1 to 10. 10 is met by a set of tens; 11 and 0 are no height.
    assert roll(parse("2d"), TypedFaces([10, 10]), difficulty=10).best() == (2, 10)
    for bad in (0, 11):
        with pytest.raises(TrackerError, match="height from 1 to 10"):
            roll(parse("2d"), TypedFaces([10, 10]), difficulty=bad)


def test_penalty_dice_drop_hard_then_normal_then_wiggle() -> None:
    """Seed: "Drop hard dice first (they're inflexible, remember), then normal dice, then
    wiggle dice." By hand: 2d + 1hd + 1wd losing 1 keeps 2d + 1wd; losing 2 keeps 1d +
    1wd; losing 3 keeps the wiggle die alone; losing 4 leaves nothing."""
    pool = parse("2d+1hd+1wd")
    assert [penalise(pool, n).pool for n in (1, 2, 3, 4)] == [Pool(2, 0, 1), Pool(1, 0, 1), Pool(0, 0, 1), Pool(0, 0, 0)]


def test_the_wider_roll_goes_first_and_the_narrower_must_beat_its_height() -> None:
    """Seed: "In a dynamic contest, the wider roll goes first and takes effect as normal.
    The roll that goes afterward—was less wide—must beat the wider roll's height as a
    Difficulty number. If it doesn't matter who goes first, or if width is a tie, just
    look at the height of the rolls; the higher roll wins."

    By hand: 3x4 against 2x7: the 3x4 goes first; the 2x7 beats height 4 and succeeds
    afterwards. 3x8 against 2x7: the 2x7 does not beat 8. 2x5 against 2x8, tied width:
    the 8 wins. Where order does not matter, 3x4 against 2x7 is the 2x7's (higher)."""
    assert contest((3, 4), (2, 7)) == "self" and narrower_succeeds((3, 4), (2, 7))
    assert contest((3, 8), (2, 7)) == "self" and not narrower_succeeds((3, 8), (2, 7))
    assert contest((2, 5), (2, 8)) == "rival"
    assert contest((3, 4), (2, 7), first_matters=False) == "rival"


def test_the_chance_of_a_set_by_hand() -> None:
    """Seed: "If you have any matching sets in your roll, the action succeeds." By hand:
    2d matches 10 times in 100: 1/10; 3d fails only when all three differ, 10 x 9 x 8 of
    1000, so it succeeds 280/1000 = 7/25; against Difficulty 6, 2d needs a pair of 6 to 10:
    5/100 = 1/20. 1d + 1wd always has a set: 1."""
    assert odds.success(parse("2d")) == Fraction(1, 10)
    assert odds.success(parse("3d")) == Fraction(7, 25)
    assert odds.success(parse("2d"), 6) == Fraction(1, 20)
    assert odds.success(parse("1d+1wd")) == 1
    assert cli_json("odds", "ore", "3d")["fraction"] == "7/25"


def test_the_narrower_set_is_the_one_that_goes_afterwards_from_either_side() -> None:
    """Seed: "The roll that goes afterward—was less wide—must beat the wider roll's
    height as a Difficulty number." By hand: whichever side is narrower goes afterwards:
    2x7 after 3x4 succeeds whether it is the first or the second roll named; 2x3 after
    3x4 does not. With equal widths neither goes afterwards (the heights decide), and
    with no set there is nothing to play afterwards."""
    assert narrower_succeeds((3, 4), (2, 7)) and narrower_succeeds((2, 7), (3, 4))
    assert not narrower_succeeds((3, 4), (2, 3)) and not narrower_succeeds((2, 3), (3, 4))
    assert not narrower_succeeds((2, 4), (2, 9)) and not narrower_succeeds((2, 9), (2, 4))
    assert not narrower_succeeds(None, (2, 9)) and not narrower_succeeds((2, 9), None)
    assert not narrower_succeeds(None, None)


def test_a_stated_wiggle_die_must_be_a_face_of_a_d10() -> None:
    """Seed: "A wiggle die can be set to whatever number you want" (a face of the d10:
    1 to 10). By hand: 1d + 1wd with the die showing 1 and the wiggle die set to 1 is 2x1;
    set to 10 with the die showing 10, 2x10; 0 or 11 is refused."""
    assert roll(parse("1d+1wd"), TypedFaces([1]), wiggle=[1]).best() == (2, 1)
    assert roll(parse("1d+1wd"), TypedFaces([10]), wiggle=[10]).best() == (2, 10)
    for bad in (0, 11):
        with pytest.raises(TrackerError, match="wiggle"):
            roll(parse("1d+1wd"), TypedFaces([5]), wiggle=[bad])


def test_the_odds_of_the_set_wiggle_dice_make_with_the_rolled_dice() -> None:
    """Seed: "A wiggle die can be set to whatever number you want, after you roll your
    other dice. That means you can have a matching set whenever you want, even with only
    one other die."

    By hand, the best (highest) set:
    - 1d+1wd: the wiggle die matches the rolled die: 2 wide at its face, each face 1/10.
    - 1d+2wd: the two wiggle dice make 2x10 whatever shows; a rolled 10 joins them
      (3x10, 1/10), any other face leaves 2x10 (9/10); a hard die (always 10) adds one.
    The widest set of 2d (no hard or wiggle dice): a pair, 2 wide at each face with
    1/100 each; no set at all 90/100, read as (0, 0)."""
    from rulesets.ore.pool import Pool

    assert odds.highest_set(Pool(1, 0, 1)) == {(face, 2): Fraction(1, 10) for face in range(1, 11)}
    assert odds.highest_set(Pool(1, 0, 2)) == {(10, 3): Fraction(1, 10), (10, 2): Fraction(9, 10)}
    # A hard die always shows 10: 1d+1hd+2wd is 4x10 with a rolled 10, else 3x10.
    assert odds.highest_set(Pool(1, 1, 2)) == {(10, 4): Fraction(1, 10), (10, 3): Fraction(9, 10)}
    widest = {(2, face): Fraction(1, 100) for face in range(1, 11)}
    widest[(0, 0)] = Fraction(90, 100)
    assert odds.widest_set(Pool(2)) == widest
