"""USOR (seed 000): each core sentence of the Event Roll rules, quoted, with numbers worked
by hand from the sentence. The seed's four worked examples are in tests/test_usor.py
(`test_example_1_...` to `test_example_4_...`), number for number."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from rulesets.dice import NotEnoughFaces, TypedFaces
from rulesets.usor import UsorRuleset
from rulesets.usor.odds import chance_to_win, outcome_chances
from rulesets.usor.rolls import (
    DRAW,
    RIVAL,
    SELF,
    EventRoll,
    Exchange,
    contest,
    count_successes,
)
from tests.helpers import cli_json, session_for


def row(rating: int) -> Any:
    return UsorRuleset().chart.row(rating)


def test_each_die_counts_as_one_success_and_one_success_only() -> None:
    """Seed: "Regardless of how many or which dice are used, each die has the potential to
    count as 1 Success and 1 Success ONLY." and "Any roll (regardless of the number of
    sides of the die rolled) that is 4 or greater, counts as a Success."

    By hand: 3, 4, 20, 1, 12 -> the 4, the 20 and the 12 are successes: 3 (a 20 is still
    one). 4 is the least face that counts; 3 does not."""
    assert count_successes([3, 4, 20, 1, 12]) == 3
    assert count_successes([20, 20]) == 2
    assert count_successes([3, 3, 3]) == 0
    assert count_successes([4]) == 1
    # The same through the command line: rating 24 is 2d20 (seed example 1), faces 20 and 3.
    assert cli_json("roll", "usor", "24", "--faces", "20,3")["successes"] == 1


def test_the_rating_is_modified_before_the_roll_and_read_on_the_event_chart() -> None:
    """Seed: "if a character has a Dagger Skill of 12 but because of a certain situation,
    has a +4 modification to the Rating, his/her Event Roll Rating is 16 [...] Looking up
    the Event Rating on the Event Chart, we see the character would roll a 1d8 and a
    1d12." The seed's other rows: 18 is 1d10 + 1d12 (Max), 24 is 2d20 (the boulder), 20
    is 2d12 (Carla), 19 is 1d8 + 1d20, 35 is 1d20 + 2d12, 31 is 3d6 + 1d8."""
    data = cli_json("roll", "usor", "12+4", "--faces", "3,8")
    assert data["rating"] == 16 and data["dice_sizes"] == [8, 12]
    assert sorted(row(16).dice) == [8, 12]
    assert sorted(row(18).dice) == [10, 12]
    assert sorted(row(24).dice) == [20, 20]
    assert sorted(row(20).dice) == [12, 12]
    assert sorted(row(19).dice) == [8, 20]
    assert sorted(row(35).dice) == [12, 12, 20]
    assert sorted(row(31).dice) == [6, 6, 6, 8]
    for rating in (16, 18, 19, 20, 24, 31, 35):
        assert not row(rating).derived


def test_more_successes_wins_fewer_loses_equal_draws() -> None:
    """Seed: "The character wins if his/her Number of Successes is greater than the rival
    Event Roll's [...] loses if [...] less than [...] There is a draw, if the character's
    Number of Successes is equal"."""
    r = row(20)  # 2d12
    assert Exchange(EventRoll(r, (4, 11)), EventRoll(r, (1, 11))).winner == SELF
    assert Exchange(EventRoll(r, (1, 11)), EventRoll(r, (4, 11))).winner == RIVAL
    assert Exchange(EventRoll(r, (4, 3)), EventRoll(r, (3, 9))).winner == DRAW
    assert Exchange(EventRoll(r, (1, 2)), EventRoll(r, (3, 3))).winner == DRAW


def test_nost_is_the_winners_successes_over_the_losers() -> None:
    """Seed: "if your Event Roll resulted in 4 Successes for you and 1 for your opponent,
    your opponent fails and you receive a NOST of 3 (because 4 - 1 = 3). Conversely, if
    you were to receive 2 Successes and your opponent received 3 Successes, he would be
    the victor and his NOST score would be 1 (because 3 - 2 = 1)."

    Rating 31 is 3d6 + 1d8 (seed example 4): 4, 5, 6, 7 is 4 successes; 1, 2, 3, 4 is 1."""
    r = row(31)
    four_to_one = contest(r, r, TypedFaces([4, 5, 6, 7]), TypedFaces([1, 2, 3, 4]), against_event=False)
    assert four_to_one.winner == SELF and four_to_one.nost == 3
    two_to_three = contest(r, r, TypedFaces([4, 5, 1, 1]), TypedFaces([4, 5, 6, 1]), against_event=False)
    assert two_to_three.winner == RIVAL and two_to_three.nost == 1
    # The same on the command line: the NOST is the winner's, from either side.
    data = cli_json("roll", "usor", "31", "--vs", "31", "--faces", "4,5,1,1", "--vs-faces", "4,5,6,1")
    assert data["winner"] == "rival" and data["nost"] == 1


def test_a_draw_between_characters_is_no_win_and_against_an_event_they_roll_again() -> None:
    """Seed: "If two characters are rolling against each other, neither was successful
    against the other [...] If one character is rolling against an event [...] both
    opposing rolls must be made continuously until one is victorious."

    By hand, 2d12 against 2d12: 4, 1 against 5, 2 is one each, a draw; rolled again, 6,
    6 against 1, 1 is two to none: the character wins, NOST 2."""
    r = row(20)
    drawn = contest(r, r, TypedFaces([4, 1]), TypedFaces([5, 2]), against_event=False)
    assert drawn.winner == DRAW and drawn.nost == 0 and len(drawn.exchanges) == 1
    event = contest(r, r, TypedFaces([4, 1, 6, 6]), TypedFaces([5, 2, 1, 1]), against_event=True)
    assert len(event.exchanges) == 2 and event.winner == SELF and event.nost == 2
    # Exact odds: d12 against d12 (rating 2d12 vs 2d12 is symmetric), so a character wins
    # outright less than half the time, and against an event exactly half the time.
    win, draw, lose = outcome_chances((12, 12), (12, 12))
    assert win == lose and win + draw + lose == 1 and win < Fraction(1, 2)
    assert chance_to_win((12, 12), (12, 12), against_event=True) == Fraction(1, 2)


def test_a_single_d6_against_a_single_d6_by_hand() -> None:
    """Seed: "Any roll [...] that is 4 or greater, counts as a Success. The number of
    Successes is totaled up and compared". By hand: one d6 succeeds on 4, 5, 6: 1/2. One
    die each: win = 1/2 x 1/2 = 1/4, lose 1/4, draw 1/2; against an event the draws are
    rolled again: 1/4 / (1 - 1/2) = 1/2. One d4 (only the 4: 1/4) against one d20 (4-20:
    17/20): win 1/4 x 3/20 = 3/80."""
    assert outcome_chances((6,), (6,)) == (Fraction(1, 4), Fraction(1, 2), Fraction(1, 4))
    assert chance_to_win((6,), (6,), against_event=True) == Fraction(1, 2)
    assert chance_to_win((4,), (20,), against_event=False) == Fraction(3, 80)


def declare_padded(s: Any, faces: list[int]) -> Any:
    """Declare A's strike on B with `faces`, then ones for whatever dice the damage roll
    asks for (their number depends on the Damage Rating's chart row)."""
    for extra in range(20):
        try:
            s.declare("A", "strike", ["B"], faces=faces + [1] * extra)
            return s.encounter.actions[-1].resolution
        except NotEnoughFaces:
            continue
    raise AssertionError("the strike never had enough faces")


@pytest.mark.parametrize("nost", [2, 3, 4, 5, 6])
def test_critical_strike_the_higher_the_nost_the_better(nost: int) -> None:
    """Seed: "Characters who have the Critical Strike ability can use NOST to increase
    damage done in combat. A NOST of 1 is sufficient to strike an opponent but a NOST of
    2 adds additional damage to the attack. A NOST of 3 would add even more and a NOST of
    4 would be even greater still, and so on and so forth. Simply put, the higher the
    NOST, the better."

    The seed gives no figures, so the test checks what it does say: nothing at NOST 1
    (or 0), something at 2, and each NOST more than the one before; nothing without the
    ability."""
    r = UsorRuleset()
    s = session_for(r, "add A critical_strike=true", "add P critical_strike=false")
    a, plain = s.encounter.combatant("A"), s.encounter.combatant("P")
    bonus = r._resolver().critical_bonus
    assert bonus(a, 0) == 0 and bonus(a, 1) == 0
    assert bonus(a, nost) > bonus(a, nost - 1)
    assert bonus(plain, nost) == 0


def test_critical_strike_adds_its_nost_2_damage_to_the_strike() -> None:
    """Seed: "a NOST of 2 adds additional damage to the attack". By hand: a strike of 20
    (2d12) showing 12, 12 against a dodge of 11 (1d6 + 1d8) showing 1, 1 is 2 successes to
    none, NOST 2: with the ability the Damage Rating goes up by the NOST-2 figure, without
    it not at all."""
    r = UsorRuleset()
    with_cs = session_for(r, "add A attack=20 damage=20 critical_strike=true", "add B dodge=11 vitality=10")
    without = session_for(UsorRuleset(), "add A attack=20 damage=20", "add B dodge=11 vitality=10")
    hit, plain = declare_padded(with_cs, [12, 12, 1, 1]), declare_padded(without, [12, 12, 1, 1])
    assert hit.details["nost"] == 2 and plain.details["nost"] == 2
    extra = r._resolver().critical_bonus(with_cs.encounter.combatant("A"), 2)
    assert extra > 0 and hit.details["critical_strike"] == extra and "critical_strike" not in plain.details
    assert f"damage {20 + extra} (damage 20, Critical Strike +{extra})" in hit.summary
    assert "damage 20 [" in plain.summary
