"""Exact ORE odds with icepool, cached.

One multiset evaluator over the normal d10s gives the best set under the contest
ranking (highest, then widest), with hard dice added to the 10s and wiggle dice
placed as the adapter places them:
- no wiggle die: the highest face showing at least twice;
- one wiggle die: it joins the highest face showing;
- two or more: they make (or join) a set of 10s.
A set meeting difficulty D exists exactly when this highest set is at least D high,
so the same distribution answers the chance of success and of a dynamic contest.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import Any

import icepool
from icepool import Order

from rulesets.ore.pool import Pool, contest

_NONE = (0, 0)  # (height, width) of "no set"


class _HighestSet(icepool.MultisetEvaluator):
    def __init__(self, hard: int, wiggle: int) -> None:
        self.hard = hard
        self.wiggle = wiggle

    def next_state(self, state: Any, order: Order, outcome: int, count: int) -> Any:
        if order != Order.Ascending:
            raise icepool.UnsupportedOrder()
        if outcome == 10:
            count += self.hard
        if self.wiggle >= 2:
            return (10, count + self.wiggle) if outcome == 10 else state
        if self.wiggle == 1:
            return (outcome, count + 1) if count >= 1 else state
        return (outcome, count) if count >= 2 else state

    def final_outcome(self, final_state: Any, order: Order, outcomes: Any, *sizes: Any, **kwargs: Any) -> Any:
        return final_state if final_state is not None else _NONE


class _WidestSet(icepool.MultisetEvaluator):
    """The widest set, then the highest, as (width, height): the set a dynamic contest
    where going first matters is played with (wiggle dice join the most common face)."""

    def __init__(self, hard: int, wiggle: int) -> None:
        self.hard = hard
        self.wiggle = wiggle

    def next_state(self, state: Any, order: Order, outcome: int, count: int) -> Any:
        if order != Order.Ascending:
            raise icepool.UnsupportedOrder()
        if outcome == 10:
            count += self.hard
        if count >= 1 or self.wiggle >= 2:
            candidate = (count + self.wiggle, outcome)
            if candidate[0] >= 2 and (state is None or candidate > state):
                return candidate
        return state

    def final_outcome(self, final_state: Any, order: Order, outcomes: Any, *sizes: Any, **kwargs: Any) -> Any:
        return final_state if final_state is not None else (0, 0)


@lru_cache(maxsize=256)
def widest_set(pool: Pool) -> dict[tuple[int, int], Fraction]:
    """Distribution of the widest (then highest) set as (width, height); (0, 0) is none."""
    if pool.normal == 0:
        width = pool.hard + pool.wiggle
        return {(width, 10) if width >= 2 else (0, 0): Fraction(1)}
    die = _WidestSet(pool.hard, pool.wiggle).evaluate(icepool.d10.pool(pool.normal))
    den = die.denominator()
    return {tuple(k): Fraction(q, den) for k, q in die.items()}


@lru_cache(maxsize=256)
def highest_set(pool: Pool) -> dict[tuple[int, int], Fraction]:
    """Distribution of the best set as (height, width); (0, 0) is no set."""
    if pool.normal == 0:
        # Nothing rolled: hard and wiggle dice alone.
        if pool.wiggle >= 2:
            return {(10, pool.hard + pool.wiggle): Fraction(1)}
        if pool.hard + pool.wiggle >= 2:
            return {(10, pool.hard + pool.wiggle): Fraction(1)}
        return {_NONE: Fraction(1)}
    die = _HighestSet(pool.hard, pool.wiggle).evaluate(icepool.d10.pool(pool.normal))
    den = die.denominator()
    return {tuple(k): Fraction(q, den) for k, q in die.items()}


@lru_cache(maxsize=512)
def success(pool: Pool, difficulty: int = 1) -> Fraction:
    """P(a set at least `difficulty` high)."""
    return sum((p for (h, w), p in highest_set(pool).items() if w >= 2 and h >= difficulty), Fraction(0))


@lru_cache(maxsize=512)
def win(own: Pool, rival: Pool, first_matters: bool = True) -> Fraction:
    """P(own side wins the dynamic contest); draws are not wins. Each side plays its
    widest set when going first matters, else its highest."""
    if first_matters:
        a = {(h, w): p for (w, h), p in widest_set(own).items()}
        b = {(h, w): p for (w, h), p in widest_set(rival).items()}
    else:
        a, b = highest_set(own), highest_set(rival)
    total = Fraction(0)
    for (ha, wa), pa in a.items():
        sa = (wa, ha) if wa >= 2 else None
        for (hb, wb), pb in b.items():
            sb = (wb, hb) if wb >= 2 else None
            if contest(sa, sb, first_matters) == "self":
                total += pa * pb
    return total


def clear() -> None:
    highest_set.cache_clear()
    widest_set.cache_clear()
    success.cache_clear()
    win.cache_clear()
