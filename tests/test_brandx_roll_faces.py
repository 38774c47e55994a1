"""Brand X rolls (seed 004): which dice a roll asks for and what it keeps of them.

Seed: "Knowledge Rolls use d100. Ones do not reduce the die roll for Knowledge Rolls."
The Action Roll is 2d10 with each 1 rerolled once and the new face subtracted
(rulesets/brandx/rolls.py, docs/contributing/design.md#rules-decisions).
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from rulesets.brandx.rolls import action_roll, faces_for_total, roll_d100, total_chances
from rulesets.dice import DiceNeeded, PromptingFaces, TypedFaces
from tracker.engine.errors import TrackerError


def test_a_knowledge_roll_asks_for_two_d10_tens_then_units_and_keeps_both() -> None:
    """Seed: "Knowledge Rolls use d100": two d10 read as tens, then units. The dice
    prompt names the roll and asks for two d10 (faces 1-10, a 10 reading 0). By hand:
    tens 5, units 10 read 5 and 0: 50; the roll keeps both faces as typed."""
    with pytest.raises(DiceNeeded) as asked:
        roll_d100(PromptingFaces([]), 75)
    assert asked.value.group.sides == (10, 10)
    assert asked.value.group.label == "Knowledge Roll (tens, then units)"
    history = roll_d100(TypedFaces([5, 10]), 75)
    assert history.dice == (5, 10) and history.total == 50 and history.q == 25


def test_a_knowledge_roll_refuses_a_face_a_d10_cannot_show() -> None:
    """A d10 shows 1-10: a typed 11 for either the tens or the units die is refused,
    naming the die."""
    with pytest.raises(TrackerError, match="die 1 is a d10; 11 is not one of its faces"):
        roll_d100(TypedFaces([11, 3]), 75)
    with pytest.raises(TrackerError, match="die 2 is a d10; 11 is not one of its faces"):
        roll_d100(TypedFaces([3, 11]), 75)


def test_the_faces_read_for_each_total_make_that_total() -> None:
    """The chance to hit reads a resolution at every total of the Action Roll, with
    faces that make it. By hand, the totals run from 1 + 1 - 10 - 10 = -18 (two 1s,
    both rerolled to 10) to 10 + 10 = 20; each set of faces must be d10 faces, with one
    reroll after each 1 of the two dice and none otherwise, and must add up (the
    rerolls subtracted) to its total."""
    totals = [total for total, _ in total_chances()]
    assert totals[0] == -18 and totals[-1] == 20
    for total in totals:
        faces = faces_for_total(total)
        assert all(1 <= face <= 10 for face in faces), (total, faces)
        ones = faces[:2].count(1)
        assert len(faces) == 2 + ones, (total, faces)
        roll = action_roll(TypedFaces(faces), 0)
        assert roll.total == total, (total, faces)
        assert faces[0] + faces[1] - sum(faces[2:]) == total


def test_the_roll_says_its_quality_or_how_far_it_missed() -> None:
    """Seed: "He rolls a 5 and a 1, for 6. The 1 is re-rolled, getting a 4, bringing the
    result to 2. The Quality of the Move Roll is 28-2, or 26." and "If the roll is missed
    by more than 5 [...]". By hand: Seraph's faces 5, 1, reroll 4 against 28 read "Q 26";
    10 + 10 = 20 against 12 is missed by 8."""
    seraph = action_roll(TypedFaces([5, 1, 4]), 28)
    assert seraph.total == 2 and seraph.outcome() == "Q 26"
    assert action_roll(TypedFaces([10, 10]), 12).outcome() == "missed by 8"


def test_the_action_roll_asks_for_2d10_then_a_d10_for_each_1_and_shows_the_subtraction() -> None:
    """Seed: "He rolls a 5 and a 1, for 6. The 1 is re-rolled, getting a 4, bringing the
    result to 2." The dice prompt asks for the roll's two d10 under its name, then one
    d10 for the reroll of the 1 (subtracted); the roll line shows the same steps:
    5+1, reroll 4 subtracted = 2. Without a 1 there is no reroll: 7+8 = 15."""
    with pytest.raises(DiceNeeded) as first:
        action_roll(PromptingFaces([]), 28, label="Move Roll")
    assert first.value.group.label == "Move Roll" and first.value.group.sides == (10, 10)
    with pytest.raises(DiceNeeded) as again:
        action_roll(PromptingFaces([5, 1]), 28, label="Move Roll")
    assert again.value.group.label == "Move Roll: reroll of a 1 (subtracted)" and again.value.group.sides == (10,)
    with pytest.raises(DiceNeeded) as plain:
        action_roll(PromptingFaces([]), 28)
    assert plain.value.group.label == "Action Roll"
    assert action_roll(TypedFaces([5, 1, 4]), 28).shown() == "5+1, reroll 4 subtracted = 2"
    assert action_roll(TypedFaces([1, 1, 9, 8]), 0).shown() == "1+1, reroll 9, 8 subtracted = -15"
    assert action_roll(TypedFaces([7, 8]), 15).shown() == "7+8 = 15"


def test_the_chance_to_lift_counts_only_rolls_that_reach_the_objects_mass() -> None:
    """Seed: "The Lift roll is vs. Strength minus 9, plus the character's Mass on the
    Sphere Chart. The Quality must be the object's mass (Sphere Chart)." By hand:
    strength 17 - 9 + Sphere(100 kg) 17 = 25, and Q must reach 17 (100 kg on the Sphere
    chart), so the roll must be at most 25 - 17 = 8: the chance is the share of the 10^4
    equally likely face sequences (two d10 and their rerolls) whose total is 8 or less."""
    from tests.test_brandx_charts import _brute_force
    from tests.helpers import brandx_session

    s = brandx_session("add A strength=17 mass=100 ep=100")
    at_most_8 = sum(n for total, n in _brute_force().items() if total <= 8)
    assert s.chance("A", "lift", [], {"weight": "100"}) == Fraction(at_most_8, 10**4)
