"""Direct tests of rulesets.limits: the named limits the command line, the timeline and
the declare form all refuse past, with the same words (module docstring;
docs/decisions/0032-cli-refusals.md). Each limit is tried at its value (taken) and one
past it (refused, the refusal naming the limit)."""

from __future__ import annotations

import pytest

from rulesets import limits
from tracker.engine.errors import TrackerError


def test_d6_dice_limit_is_forty_dice_on_one_roll() -> None:
    limits.limit_d6_dice(40, "attack")
    with pytest.raises(TrackerError) as refused:
        limits.limit_d6_dice(41, "attack")
    assert str(refused.value) == "attack: 41D is more than the 40D limit on one roll"


def test_d6_difficulty_limit_is_four_hundred() -> None:
    limits.limit_d6_difficulty(None, "odds")
    limits.limit_d6_difficulty(400, "odds")
    with pytest.raises(TrackerError) as refused:
        limits.limit_d6_difficulty(401, "odds")
    assert str(refused.value) == "odds: 401 is past the limit of 400 (the standard difficulties end at Legendary, 31)"


def test_ogs_dice_limit_is_thirty() -> None:
    limits.limit_ogs_dice((12,) * 30, "check")
    with pytest.raises(TrackerError) as refused:
        limits.limit_ogs_dice((12,) * 31, "check")
    assert str(refused.value) == "check: 31 dice is more than the limit of 30"


def test_opposed_odds_take_twelve_dice_in_all_and_refuse_thirteen() -> None:
    # 6d12 a side: 12,376 sorted outcomes each, under 15,000: taken.
    limits.limit_ogs_opposed((12,) * 6, (12,) * 6)
    with pytest.raises(TrackerError) as refused:
        limits.limit_ogs_opposed((6,) * 7, (6,) * 6)
    assert str(refused.value) == ("opposed odds: 7 + 6 dice is more than the limit of 12 dice in all "
                                  "(the tie-breaks compare every die)")


def test_opposed_odds_refuse_a_side_with_too_many_sorted_outcomes_naming_it() -> None:
    # 6d12+1d8: at most as many as 7d12, C(7 + 12 - 1, 7) = C(18, 7) = 31,824 > 15,000.
    with pytest.raises(TrackerError) as refused:
        limits.limit_ogs_opposed((12, 8, 12, 12, 12, 12, 12), (6,))
    assert str(refused.value) == ("opposed odds: ogs dice 6d12+1d8 has up to 31,824 sorted outcomes to compare, "
                                  "past the limit of 15,000 (6d12 has 12,376)")
    # The rival side is named by its own label (default `--vs`), own side being small.
    with pytest.raises(TrackerError) as refused:
        limits.limit_ogs_opposed((4,), (12,) * 7)
    assert str(refused.value).startswith("opposed odds: --vs 7d12 has up to 31,824 sorted outcomes")
    with pytest.raises(TrackerError) as refused:
        limits.limit_ogs_opposed((4,), (12,) * 7, "Seraph", "Sphinx")
    assert str(refused.value).startswith("opposed odds: Sphinx 7d12 has up to 31,824 ")
    with pytest.raises(TrackerError) as refused:
        limits.limit_ogs_opposed((12,) * 7, (4,), "Seraph", "Sphinx")
    assert str(refused.value).startswith("opposed odds: Seraph 7d12 has up to 31,824 ")


def test_sorted_outcomes_counts_as_the_largest_die() -> None:
    assert limits.sorted_outcomes(()) == 1
    assert limits.sorted_outcomes((6,)) == 6
    assert limits.sorted_outcomes((6, 6)) == 21  # C(7, 2)
    assert limits.sorted_outcomes((4, 12)) == 78  # as 2d12: C(13, 2)
    assert limits.sorted_outcomes((12,) * 6) == 12_376  # the docstring's 6d12


def test_faces_given_empty_are_refused() -> None:
    limits.check_faces_given(None, None, None)
    limits.check_faces_given("3,4", None, None)
    with pytest.raises(TrackerError) as refused:
        limits.check_faces_given("  ", None, None)
    assert str(refused.value) == "--faces: no faces given (leave --faces out to roll random dice)"
    with pytest.raises(TrackerError) as refused:
        limits.check_faces_given("", None, None)
    assert str(refused.value).startswith("--faces: no faces given")
    with pytest.raises(TrackerError) as refused:
        limits.check_faces_given(None, " ", "2d6")
    assert str(refused.value) == "--vs-faces: no faces given (leave --vs-faces out to roll random dice)"


def test_vs_faces_need_another_side() -> None:
    limits.check_faces_given(None, "3,4", "2d6")
    limits.check_faces_given(None, "3,4", None, 0)  # USOR: a difficulty of 0 is an event to roll
    limits.check_faces_given(None, "3,4", None, 7)
    with pytest.raises(TrackerError) as refused:
        limits.check_faces_given(None, "3,4", None)
    assert str(refused.value) == "--vs-faces: there is no other side to roll for (give --vs SPEC, or leave --vs-faces out)"


def test_no_negative_difficulty() -> None:
    limits.no_negative_difficulty(None, "USOR")
    limits.no_negative_difficulty(0, "USOR")
    with pytest.raises(TrackerError) as refused:
        limits.no_negative_difficulty(-1, "USOR")
    assert str(refused.value) == "--difficulty: USOR has no negative difficulties; expected 0 or more, got -1"


def test_a_side_at_the_sorted_outcomes_limit_is_taken() -> None:
    # One die has as many sorted outcomes as faces: a d15000 is at the limit, not past it.
    limits.limit_ogs_opposed((15_000,), (6,))
    with pytest.raises(TrackerError, match="has up to 15,001 sorted outcomes"):
        limits.limit_ogs_opposed((15_001,), (6,))
