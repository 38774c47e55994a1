"""The Brand X Action Roll: 2d10 roll-under with the subtracting reroll of 1s.

- Roll two d10. Each die that shows 1 is rolled once more and the new face is
  subtracted from the total (docs/contributing/design.md#rules-decisions: no further chaining, so a rerolled 1 is just
  -1). Dice order, for faces typed by hand: the two dice, then the rerolls in die order.
- Success when total <= target; Q = target - total (0 on the target is a success).
- Knowledge Rolls use d100 (two d10: tens then units, a 10 reads 0, 00 is 100) and no
  reroll; success when the roll <= the score, Q = score - roll.

The exact distribution of the 2d10-with-reroll total is computed once with icepool and
kept as a cumulative table, so the chance of any target is a bisection (microseconds).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import floor


from rulesets.dice import DiceSource, roll_group


class RollUnder:
    """Every Brand X roll is roll-under: success at or below the target, Q = target - total."""

    __slots__ = ()
    total: int
    target: int

    @property
    def q(self) -> int:
        return self.target - self.total

    @property
    def success(self) -> bool:
        return self.total <= self.target


@dataclass(frozen=True, slots=True)
class ActionRoll(RollUnder):
    """An action roll: two d10, the rerolls subtracted, the total against the target."""

    faces: tuple[int, int]
    rerolls: tuple[int, ...]
    total: int
    target: int

    @property
    def dice(self) -> tuple[int, ...]:
        return self.faces + self.rerolls

    def shown(self) -> str:
        """'1+7, reroll 6 -> 2'."""
        text = f"{self.faces[0]}+{self.faces[1]}"
        if self.rerolls:
            text += ", reroll " + ", ".join(str(r) for r in self.rerolls) + " subtracted"
        return f"{text} = {self.total}"

    def outcome(self) -> str:
        return f"Q {self.q}" if self.success else f"missed by {-self.q}"


def roll_2d10(dice: DiceSource, label: str = "Action Roll", who: str = "") -> tuple[tuple[int, int], tuple[int, ...], int]:
    """(faces, rerolls, total) with each 1 rerolled once and the new face subtracted.

    The reroll is its own dice group ("Combat Roll: reroll of a 1"), asked for only
    when a 1 shows; `who` names a roller other than the actor (a Throwback Roll)."""
    first, second = roll_group(dice, label, (10, 10), who)
    rerolls: list[int] = []
    total = first + second
    for face in (first, second):
        if face == 1:
            (again,) = roll_group(dice, f"{label}: reroll of a 1 (subtracted)", (10,), who)
            rerolls.append(again)
            total -= again
    return (first, second), tuple(rerolls), total


class ProbeHit(Exception):
    """Raised by a `TargetProbe` at the first roll: carries the exact chance of success."""

    def __init__(self, chance: Fraction) -> None:
        super().__init__(str(chance))
        self.chance = chance


class TargetProbe:
    """A dice source that rolls nothing: `chance_of` runs a resolution with it, and the
    first Action Roll reports its exact chance instead of rolling."""

    def roll(self, sides: int) -> int:  # pragma: no cover - never reached through action_roll
        raise ProbeHit(Fraction(0))


def action_roll(dice: DiceSource, target: int, need: int | None = 0, label: str = "Action Roll", who: str = "") -> ActionRoll:
    """Roll against `target`; `need` is Q the action must reach (Lift, Throw) for its
    chance, None when no roll can succeed (a push against friction 20). `label` is the
    roll's name in the game's words ("Combat Roll", "Lift Roll")."""
    if isinstance(dice, TargetProbe):
        raise ProbeHit(Fraction(0) if need is None else chance_at_most(target - need))
    faces, rerolls, total = roll_2d10(dice, label, who)
    return ActionRoll(faces, rerolls, total, target)


@dataclass(frozen=True, slots=True)
class KnowledgeRoll(RollUnder):
    """A knowledge roll: d100 read as tens and units, against the target."""

    tens: int
    units: int
    total: int
    target: int

    @property
    def dice(self) -> tuple[int, ...]:
        return (self.tens, self.units)


def roll_d100(dice: DiceSource, target: int) -> KnowledgeRoll:
    if isinstance(dice, TargetProbe):
        raise ProbeHit(chance_d100_at_most(target))
    tens, units = roll_group(dice, "Knowledge Roll (tens, then units)", (10, 10))
    value = (tens % 10) * 10 + (units % 10)
    return KnowledgeRoll(tens, units, value or 100, target)


@lru_cache(maxsize=1)
def _distribution() -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """(totals ascending, cumulative counts, denominator) of 2d10 with the reroll."""
    import icepool  # only odds need it: a roll or an opened save starts faster without it

    # One die: 2..10 as shown (weight 10 each, out of 100), or 1 - g for a 1 rerolled to g.
    weights: dict[int, int] = {face: 10 for face in range(2, 11)}
    for again in range(1, 11):
        weights[1 - again] = weights.get(1 - again, 0) + 1
    one = icepool.Die(weights)
    two = one + one
    totals: list[int] = []
    cumulative: list[int] = []
    running = 0
    for total, count in sorted(two.items()):
        running += count
        totals.append(total)
        cumulative.append(running)
    return tuple(totals), tuple(cumulative), two.denominator()


def total_chances() -> list[tuple[int, Fraction]]:
    """Every total of 2d10 with the subtracting reroll and its exact chance."""
    totals, cumulative, denominator = _distribution()
    previous = 0
    found = []
    for total, running in zip(totals, cumulative):
        found.append((total, Fraction(running - previous, denominator)))
        previous = running
    return found


def faces_for_total(total: int) -> tuple[int, ...]:
    """Faces (the two dice, then the rerolls of 1s) that make `total`, for reading a
    resolution at every total (`chance to hit`)."""
    if total >= 4:
        first = min(10, total - 2)
        return (first, total - first)
    if total >= 1:
        return (1, 10, 11 - total)
    if total >= -7:
        return (1, 2, 3 - total)
    if total == -8:
        return (1, 1, 5, 5)
    return (1, 1, 10, -8 - total)


def chance_at_most(target: int) -> Fraction:
    """Exact P(2d10 with the subtracting reroll <= target)."""
    totals, cumulative, denominator = _distribution()
    index = bisect_right(totals, target)
    if index == 0:
        return Fraction(0)
    return Fraction(cumulative[index - 1], denominator)


def chance_d100_at_most(target: int) -> Fraction:
    return Fraction(max(0, min(100, target)), 100)


def round_half_up(value: Fraction | int) -> int:
    return floor(Fraction(value) + Fraction(1, 2))


def speed_pt(pt: int, q: int) -> int:
    """PT after spending q on speed: PT x (1/2)^(q div 3) x (1 - 0.1 x (q mod 3)), half up, min 1."""
    if q <= 0:
        return max(1, pt)
    value = Fraction(pt) / (2 ** (q // 3)) * Fraction(10 - q % 3, 10)
    return max(1, round_half_up(value))
