"""Exact D6 odds, through icepool, cached.

Without the Wild Die (the default, mode PLAIN) a roll is the plain sum of its dice plus
pips: an icepool Die, read directly. With the Wild Die:

A Wild Die that explodes forever has no finite distribution, so truncating it would
not be exact. Instead a roll is split on its first Wild Die face:
- no explosion (first face 1-5, probability 5/6): a finite icepool Die Z0 of the whole
  total (with the Critical Failure rule applied to a first 1);
- explosion (first face 6, probability 1/6): the Wild Die is 6 + 6K + R, where K, the
  number of further sixes, is geometric (P(K >= t) = (1/6)**t) and R is uniform on
  1-5, independent of K. The finite part Z1 = 6 + R + other dice + pips is an icepool
  Die and 6K is handled in closed form.

P(total >= D) = 5/6 P(Z0 >= D) + 1/6 sum_z P(Z1 = z) (1/6)**max(0, ceil((D - z)/6)).

Opposed, ties to the initiator: P(A >= B) sums over the four branch pairs with
X = Z_B - Z_A (an icepool Die) and M = K_A x_a - K_B x_b, needing P(6M >= X). For two
independent geometrics, P(K_A - K_B = m) = (1-q)/(1+q) q**|m| with q = 1/6, so every
tail is a closed-form rational: the results are exact Fractions, never truncated.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING

from rulesets.lazy import lazy_module

from rulesets.d6.codes import DieCode
from rulesets.d6.rolls import CANCEL, PLAIN

if TYPE_CHECKING:
    import icepool
else:
    icepool = lazy_module("icepool")  # loaded at the first chance asked for (rulesets/lazy.py)

Q = Fraction(1, 6)
P_EXPLODE = Fraction(1, 6)


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


@lru_cache(maxsize=64)
def _sum_d6(n: int) -> icepool.Die:
    return icepool.d6.pool(n).sum() if n > 0 else icepool.Die([0])


@lru_cache(maxsize=64)
def _sum_without_highest(n: int) -> icepool.Die:
    """The sum of n d6 with the highest dropped (0 when n <= 1)."""
    if n <= 1:
        return icepool.Die([0])
    return icepool.d6.pool(n).lowest(n - 1).sum()


@lru_cache(maxsize=256)
def branches(dice: int, pips: int, mode: str) -> tuple[icepool.Die, icepool.Die]:
    """(Z0, Z1): the total given no explosion, and the finite part given an explosion."""
    others = dice - 1
    normal = _sum_d6(others)
    low_wild = icepool.Die([2, 3, 4, 5]) + normal
    if mode == CANCEL:
        first_one = _sum_without_highest(others)
    else:
        first_one = 1 + normal
    z0 = icepool.Die([first_one, low_wild], times=[1, 4]) + pips
    z1 = 6 + icepool.Die([1, 2, 3, 4, 5]) + normal + pips
    return z0, z1


def _items(die: icepool.Die) -> list[tuple[int, Fraction]]:
    denominator = die.denominator()
    return [(int(o), Fraction(q, denominator)) for o, q in die.items()]


@lru_cache(maxsize=4096)
def _at_least(dice: int, pips: int, mode: str, target: int) -> Fraction:
    z0, z1 = branches(dice, pips, mode)
    no_explosion = Fraction(z0.probability(">=", target))
    exploded = sum((p * Q ** max(0, _ceil_div(target - z, 6)) for z, p in _items(z1)), Fraction(0))
    return (1 - P_EXPLODE) * no_explosion + P_EXPLODE * exploded


def chance_at_least(code: DieCode, target: int, mode: str = PLAIN) -> Fraction:
    """P(roll of `code` >= target)."""
    if mode == PLAIN:
        return _plain_at_least(code.dice, target - code.pips)
    return _at_least(code.dice, code.pips, mode, target)


@lru_cache(maxsize=4096)
def _plain_at_least(dice: int, target: int) -> Fraction:
    return Fraction(_sum_d6(dice).probability(">=", target))


@lru_cache(maxsize=4096)
def _plain_opposed(own: int, rival: int, pips: int) -> Fraction:
    """P(own dice + pips >= rival dice), pips being own pips less the rival's."""
    return Fraction((_sum_d6(own) - _sum_d6(rival)).probability(">=", -pips))


def _geometric_at_least(t: int) -> Fraction:
    """P(K >= t), K geometric with P(K = k) = (5/6)(1/6)**k."""
    return Q ** max(t, 0)


def _difference_at_least(t: int) -> Fraction:
    """P(K_A - K_B >= t) for independent geometrics."""
    if t >= 1:
        return Q**t / (1 + Q)
    return 1 - Q ** (1 - t) / (1 + Q)


def _m_at_least(t: int, xa: int, xb: int) -> Fraction:
    if xa == 0 and xb == 0:
        return Fraction(1 if t <= 0 else 0)
    if xa == 1 and xb == 0:
        return _geometric_at_least(t)
    if xa == 0:
        # P(-K_B >= t) = P(K_B <= -t)
        return Fraction(0) if t > 0 else 1 - Q ** (1 - t)
    return _difference_at_least(t)


@lru_cache(maxsize=4096)
def _opposed(a: tuple[int, int, str], b: tuple[int, int, str]) -> Fraction:
    za = branches(*a)
    zb = branches(*b)
    weights = (1 - P_EXPLODE, P_EXPLODE)
    total = Fraction(0)
    for xa in (0, 1):
        for xb in (0, 1):
            gap = zb[xb] - za[xa]  # A >= B  <=>  6M >= Z_B - Z_A
            part = sum((p * _m_at_least(_ceil_div(x, 6), xa, xb) for x, p in _items(gap)), Fraction(0))
            total += weights[xa] * weights[xb] * part
    return total


def chance_opposed(own: DieCode, rival: DieCode, mode: str = PLAIN) -> Fraction:
    """P(own total >= rival total): the initiator wins ties."""
    if mode == PLAIN:
        return _plain_opposed(own.dice, rival.dice, own.pips - rival.pips)
    return _opposed((own.dice, own.pips, mode), (rival.dice, rival.pips, mode))


def clear_caches() -> None:
    for fn in (_sum_d6, _sum_without_highest, branches, _at_least, _opposed, _plain_at_least, _plain_opposed):
        fn.cache_clear()


def cache_hits() -> int:
    """Chances answered from the cache instead of worked out again, since the last
    `clear_caches` (what the benchmark and the tests read)."""
    return sum(fn.cache_info().hits for fn in (_sum_d6, _sum_without_highest, branches, _at_least, _opposed, _plain_at_least, _plain_opposed))
