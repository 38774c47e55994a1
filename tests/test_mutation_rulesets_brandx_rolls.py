"""Direct tests of rulesets.brandx.rolls' `action_roll`: the chance it reports to a
`TargetProbe` when the action needs no more than success, and whose roll its dice
groups are announced as.

Why: the form that asks for typed faces learns whose dice to ask for from the groups
announced (rulesets/dice.py), and `chance_of` reads the chance through the probe; both
go through `action_roll`'s defaults and its `who`. Expected values are worked from the
module docstring: two d10, each 1 rerolled once and subtracted, success at total <=
target (Q 0 on the target succeeds); the lowest total is 1 + 1 - 10 - 10 = -18 (one
case in 10^4), the highest 10 + 10 = 20 (one case in 100).
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from rulesets.brandx.rolls import ProbeHit, TargetProbe, action_roll
from rulesets.dice import DiceGroup
from tests.helpers import ListeningSource


@pytest.mark.parametrize(("target", "chance"), [(-18, Fraction(1, 10**4)), (-19, Fraction(0)), (20, Fraction(1))])
def test_the_probe_reports_the_chance_of_success(target: int, chance: Fraction) -> None:
    """Needing no Q beyond success, the chance is that of a total at or below the target."""
    with pytest.raises(ProbeHit) as hit:
        action_roll(TargetProbe(), target)
    assert hit.value.chance == chance


def test_a_needed_q_raises_the_bar() -> None:
    # Q 1 needed at target 20: every total but 20 (1 in 100).
    with pytest.raises(ProbeHit) as hit:
        action_roll(TargetProbe(), 20, 1)
    assert hit.value.chance == Fraction(99, 100)
    with pytest.raises(ProbeHit) as hit:
        action_roll(TargetProbe(), 20, None)
    assert hit.value.chance == 0


def test_the_actors_roll_names_no_one() -> None:
    """Left to the actor, the groups say no name (`for_actor` names them)."""
    dice = ListeningSource(3, 4)
    roll = action_roll(dice, 15)
    assert roll.total == 7 and roll.q == 8
    assert dice.groups == [DiceGroup("Action Roll", (10, 10), "")]


def test_another_rollers_dice_are_announced_as_theirs() -> None:
    """A Throwback Roll: the dice and the reroll of a 1 are the named roller's."""
    dice = ListeningSource(1, 7, 6)
    roll = action_roll(dice, 15, label="Throwback Roll", who="Sphinx")
    assert roll.total == 1 + 7 - 6 and roll.q == 13
    assert dice.groups == [
        DiceGroup("Throwback Roll", (10, 10), "Sphinx"),
        DiceGroup("Throwback Roll: reroll of a 1 (subtracted)", (10,), "Sphinx"),
    ]
