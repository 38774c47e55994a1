"""Exact OGS odds with icepool, cached.

- Success against a difficulty: P(sum of the dice + flat >= difficulty).
- Winning an Opposed Check: P(own total > rival total) plus, on equal totals, the
  tie-breaks of the seed: die values high to low (compared per sorted multiset of
  faces, from `icepool.Pool(...).expand()`), then die sizes high to low (fixed by the
  two SPECs), then opposed d12s until one is higher, which either side wins with
  probability 1/2 by symmetry.

Each side's joint distribution of (total, faces sorted high to low) is grouped by
total; the equal-total comparison uses sorted keys with prefix sums, so the cost is
about n log n in the number of distinct sorted faces (1,119 for d12+d12+d8+d6).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from fractions import Fraction
from functools import lru_cache
from itertools import accumulate

from typing import TYPE_CHECKING

from rulesets.lazy import lazy_module

from rulesets.ogs.check import compare_sizes

if TYPE_CHECKING:
    import icepool
else:
    icepool = lazy_module("icepool")  # loaded at the first chance asked for (rulesets/lazy.py)


def _dice(sides: tuple[int, ...], reroll_from: int | None) -> list[icepool.Die]:
    """Each die; from `reroll_from` on, "reroll ones": a 1 is rolled once more and the
    new face stands (a 1 then shows with 1/s², any other face with 1/s + 1/s²)."""
    start = len(sides) if reroll_from is None else reroll_from
    return [icepool.d(s) if i < start else icepool.d(s).reroll([1], depth=1) for i, s in enumerate(sides)]


def _total_die(sides: tuple[int, ...], flat: int, reroll_from: int | None = None) -> icepool.Die:
    if not sides:
        return icepool.Die([flat])
    return icepool.Pool(_dice(sides, reroll_from)).sum() + flat


@lru_cache(maxsize=512)
def success(sides: tuple[int, ...], flat: int, difficulty: int, reroll_from: int | None = None) -> Fraction:
    """P(total >= difficulty); dice from `reroll_from` on reroll ones."""
    die = _total_die(sides, flat, reroll_from)
    hits = sum(q for outcome, q in die.items() if outcome >= difficulty)
    return Fraction(hits, die.denominator())


@lru_cache(maxsize=64)
def _by_total(sides: tuple[int, ...], flat: int, length: int, reroll_from: int | None = None) -> tuple[int, dict[int, tuple[list[tuple[int, ...]], list[int]]]]:
    """(denominator, total -> (sorted value keys, prefix sums of their quantities))."""
    groups: dict[int, dict[tuple[int, ...], int]] = {}
    if sides:
        expanded = icepool.Pool(_dice(sides, reroll_from)).expand()
        items = expanded.items()
        denominator = expanded.denominator()
    else:
        items, denominator = [((), 1)], 1
    for faces, quantity in items:
        key = tuple(sorted(faces, reverse=True)) + (0,) * (length - len(faces))
        total = sum(faces) + flat
        bucket = groups.setdefault(total, {})
        bucket[key] = bucket.get(key, 0) + quantity
    out: dict[int, tuple[list[tuple[int, ...]], list[int]]] = {}
    for total, bucket in groups.items():
        keys = sorted(bucket)
        out[total] = (keys, [0, *accumulate(bucket[k] for k in keys)])
    return denominator, out


@lru_cache(maxsize=512)
def win(own: tuple[int, ...], own_flat: int, rival: tuple[int, ...], rival_flat: int,
        own_reroll: int | None = None, rival_reroll: int | None = None) -> Fraction:
    """P(own side wins the Opposed Check), ties broken as the seed says; each side's
    dice from its `*_reroll` index on reroll ones (the tie-breaks read the new faces)."""
    length = max(len(own), len(rival))
    den_a, a = _by_total(own, own_flat, length, own_reroll)
    den_b, b = _by_total(rival, rival_flat, length, rival_reroll)
    sizes = compare_sizes(own, rival)
    tie_weight = 2 if sizes > 0 else 0 if sizes < 0 else 1  # in halves
    # Rival mass by total, cumulative, for the "higher total" part.
    b_totals = sorted(b)
    b_mass = [b[t][1][-1] for t in b_totals]
    b_cum = [0, *accumulate(b_mass)]
    halves = 0
    for total, (keys, prefix) in a.items():
        mass = prefix[-1]
        halves += 2 * mass * b_cum[bisect_left(b_totals, total)]
        rival_here = b.get(total)
        if rival_here is None:
            continue
        r_keys, r_prefix = rival_here
        for i, key in enumerate(keys):
            q = prefix[i + 1] - prefix[i]
            lo = bisect_left(r_keys, key)
            hi = bisect_right(r_keys, key)
            below = r_prefix[lo]
            equal = r_prefix[hi] - r_prefix[lo]
            halves += q * (2 * below + tie_weight * equal)
    return Fraction(halves, 2 * den_a * den_b)


def clear() -> None:
    """Forget cached results (the benchmark measures cold and warm runs)."""
    success.cache_clear()
    _by_total.cache_clear()
    win.cache_clear()
