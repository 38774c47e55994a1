"""Exact odds of Event Rolls, computed with icepool and cached.

A die of S sides is a Bernoulli die (success with probability (S-3)/S); a roll's
successes are the sum of its dice. Two opposed rolls give three chances: a win, a draw
and a loss.
- Between characters a draw is no win: P(win) = P(own > rival).
- Against an event the rolls repeat until one side wins, so
  P(win) = P(own > rival) / (1 - P(draw)).
Results are exact Fractions; every function is cached on the dice sizes.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING

from rulesets.lazy import lazy_module

from tracker.engine.errors import TrackerError

if TYPE_CHECKING:
    import icepool
else:
    icepool = lazy_module("icepool")  # loaded at the first chance asked for (rulesets/lazy.py)


@lru_cache(maxsize=64)
def _success_die(sides: int) -> icepool.Die:
    return icepool.Die({0: min(3, sides), 1: max(sides - 3, 0)})


@lru_cache(maxsize=1024)
def successes(sizes: tuple[int, ...]) -> icepool.Die:
    """The distribution of successes of one roll (sizes in any order)."""
    total = icepool.Die([0])
    for sides in sorted(sizes):
        total = total + _success_die(sides)
    return total


@lru_cache(maxsize=4096)
def _split(own: tuple[int, ...], rival: tuple[int, ...]) -> tuple[Fraction, Fraction, Fraction]:
    """(P(own wins), P(draw), P(rival wins)) of one exchange."""
    diff = successes(tuple(sorted(own))) - successes(tuple(sorted(rival)))
    win = diff.probability(">", 0)
    draw = diff.probability(0)
    return Fraction(win), Fraction(draw), 1 - Fraction(win) - Fraction(draw)


def outcome_chances(own: tuple[int, ...], rival: tuple[int, ...]) -> tuple[Fraction, Fraction, Fraction]:
    return _split(tuple(sorted(own)), tuple(sorted(rival)))


def chance_to_win(own: tuple[int, ...], rival: tuple[int, ...], *, against_event: bool) -> Fraction:
    win, draw, _ = outcome_chances(own, rival)
    if not against_event:
        return win
    if draw == 1:
        raise TrackerError("neither side has any dice, so the roll against the event could never be decided")
    return win / (1 - draw)


def margin_distribution(own: tuple[int, ...], rival: tuple[int, ...]) -> dict[int, Fraction]:
    """P(own successes - rival successes = m) for each m: the signed NOST."""
    diff = successes(tuple(sorted(own))) - successes(tuple(sorted(rival)))
    return {int(m): Fraction(diff.probability(m)) for m in diff.outcomes()}


def clear_caches() -> None:
    """For the benchmark: measure cold computations."""
    for fn in (_success_die, successes, _split):
        fn.cache_clear()


def cache_hits() -> int:
    """Chances answered from the cache instead of worked out again, since the last
    `clear_caches` (what the benchmark and the tests read)."""
    return sum(fn.cache_info().hits for fn in (_success_die, successes, _split))
