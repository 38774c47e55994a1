"""ORE dice pools: normal d10s, hard dice (always 10) and wiggle dice (set after the roll).

Notation: `6d+1hd+1wd`, `10d`, `2d+2wd`. Sets are dice showing the same face:
width (how many) x height (the face). Any set is a success; a difficulty asks for a
set at least that high.

Decisions where the seed is silent (each also in the adapter's docstring):
- Penalty dice (and one die per extra action) come off hard -> normal -> wiggle (the
  order is table data). Normal dice above the cap (12, table data: 5d stat + 5d skill + "1d or even 2d") are not rolled but
  soak penalty dice first; hard and wiggle dice are not rolled, so the cap counts
  normal dice only.
- Wiggle dice, when the GM does not state their faces, all join the one set that
  makes the best result: the widest, then the highest set that meets the difficulty
  (for a dynamic contest: the highest, then the widest). Two or more wiggle dice with
  nothing to join make a set of 10s.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from tracker.engine.errors import TrackerError
from rulesets.dice import DiceSource, roll_group

_TERM = re.compile(r"^(\d*)(d|hd|wd)$")
MAX_SPEC_DICE = 40

Key = Callable[[tuple[int, int]], tuple[int, ...]]


def widest(s: tuple[int, int]) -> tuple[int, ...]:
    """Ranking for the headless choice: widest, then highest."""
    return s


def highest(s: tuple[int, int]) -> tuple[int, ...]:
    """Ranking in a dynamic contest: highest, then widest."""
    return (s[1], s[0])


@dataclass(frozen=True, slots=True)
class Pool:
    normal: int = 0
    hard: int = 0
    wiggle: int = 0

    @property
    def size(self) -> int:
        return self.normal + self.hard + self.wiggle

    def text(self) -> str:
        parts = [f"{n}{k}" for n, k in ((self.normal, "d"), (self.hard, "hd"), (self.wiggle, "wd")) if n]
        return "+".join(parts) or "0d"

    def __add__(self, other: "Pool") -> "Pool":
        return Pool(self.normal + other.normal, self.hard + other.hard, self.wiggle + other.wiggle)


def parse(spec: str, label: str = "ore pool") -> Pool:
    """'6d+1hd+1wd' -> Pool(6, 1, 1), with a message naming the bad term."""
    text = spec.replace(" ", "").lower()
    if not text:
        raise TrackerError(f"{label}: expected a pool such as 6d+1hd+1wd")
    counts = {"d": 0, "hd": 0, "wd": 0}
    for term in text.split("+"):
        match = _TERM.match(term)
        if match is None:
            raise TrackerError(
                f"{label} {spec!r}: term {term!r}: expected normal dice (6d), hard dice (1hd) or wiggle dice (1wd)"
            )
        counts[match.group(2)] += int(match.group(1)) if match.group(1) else 1
    pool = Pool(counts["d"], counts["hd"], counts["wd"])
    if pool.size > MAX_SPEC_DICE:
        raise TrackerError(f"{label} {spec!r}: at most {MAX_SPEC_DICE} dice in a pool, not {pool.size}")
    return pool


@dataclass(frozen=True, slots=True)
class Penalised:
    """A pool after penalty dice and the cap: what is actually rolled."""

    pool: Pool
    removed: tuple[str, ...] = ()  # "hard" / "normal" / "wiggle", one per die lost
    unrolled: int = 0  # normal dice above the cap, not rolled

    def text(self) -> str:
        notes = []
        if self.removed:
            counts = Counter(self.removed)
            notes.append("lost " + ", ".join(f"{n} {k}" for k, n in counts.items()))
        if self.unrolled:
            notes.append(f"{self.unrolled} over the cap not rolled")
        return self.pool.text() + (f" ({'; '.join(notes)})" if notes else "")


def penalise(pool: Pool, penalty: int, cap: int = 12, order: Sequence[str] = ("hard", "normal", "wiggle")) -> Penalised:
    """Remove `penalty` dice: first normal dice above the cap, then in `order`."""
    if penalty < 0:
        raise TrackerError(f"penalty dice: expected 0 or more, got {penalty}")
    counts = {"normal": pool.normal, "hard": pool.hard, "wiggle": pool.wiggle}
    removed: list[str] = []
    soak = min(penalty, max(0, counts["normal"] - cap))
    counts["normal"] -= soak
    removed.extend(["normal"] * soak)
    left = penalty - soak
    for kind in order:
        take = min(left, counts[kind])
        counts[kind] -= take
        removed.extend([kind] * take)
        left -= take
    unrolled = max(0, counts["normal"] - cap)
    counts["normal"] -= unrolled
    return Penalised(Pool(counts["normal"], counts["hard"], counts["wiggle"]), tuple(removed), unrolled)


@dataclass(slots=True)
class Outcome:
    """Rolled faces and the sets they make."""

    normal: list[int]
    hard: int = 0
    wiggle: list[int] = field(default_factory=list)
    difficulty: int = 1

    def faces(self) -> list[int]:
        return self.normal + [10] * self.hard + self.wiggle

    def sets(self) -> list[tuple[int, int]]:
        """All sets as (width, height), widest first, then highest."""
        counts = Counter(self.faces())
        return sorted(((n, f) for f, n in counts.items() if n >= 2), reverse=True)

    def loose(self) -> list[int]:
        counts = Counter(self.faces())
        return sorted((f for f, n in counts.items() if n == 1), reverse=True)

    def best(self, key: Key = widest) -> tuple[int, int] | None:
        """The best set meeting the difficulty under `key`, or None (failure)."""
        valid = [s for s in self.sets() if s[1] >= self.difficulty]
        return max(valid, key=key) if valid else None

    def shown(self) -> str:
        parts = [" ".join(map(str, sorted(self.normal, reverse=True))) or "-"]
        if self.hard:
            parts.append(f"hard {' '.join(['10'] * self.hard)}")
        if self.wiggle:
            parts.append(f"wiggle {' '.join(map(str, self.wiggle))}")
        return "; ".join(parts)


def place_wiggles(normal: list[int], hard: int, wiggle: int, difficulty: int, key: Key = widest) -> list[int]:
    """Headless wiggle faces: all on the face that gives the best set under `key`."""
    if wiggle <= 0:
        return []
    best_face, best_rank = 10, None
    for face in range(10, 0, -1):
        trial = Outcome(normal, hard, [face] * wiggle, difficulty)
        found = trial.best(key)
        rank = key(found) if found is not None else None
        if rank is not None and (best_rank is None or rank > best_rank):
            best_face, best_rank = face, rank
    return [best_face] * wiggle


def roll(pool: Pool, dice: DiceSource, difficulty: int = 1, wiggle: Sequence[int] | None = None, key: Key = widest,
         label: str = "", who: str = "") -> Outcome:
    """Roll the normal dice, set hard dice to 10, then set the wiggle dice.
    `label` names the roll ("punch"), `who` a roller other than the actor."""
    if not 1 <= difficulty <= 10:
        raise TrackerError(f"difficulty: expected a height from 1 to 10, got {difficulty}")
    head = f"{label} pool" if label else "pool"
    normal = roll_group(dice, head, (10,) * pool.normal, who) if pool.normal else []
    if wiggle is not None and len(wiggle) > 0:
        if len(wiggle) != pool.wiggle:
            raise TrackerError(f"wiggle: the pool has {pool.wiggle} wiggle dice, but {len(wiggle)} faces were stated")
        bad = [w for w in wiggle if not 1 <= w <= 10]
        if bad:
            raise TrackerError(f"wiggle: a wiggle die is set to a face from 1 to 10, not {bad[0]}")
        chosen = list(wiggle)
    else:
        chosen = place_wiggles(normal, pool.hard, pool.wiggle, difficulty, key)
    return Outcome(normal, pool.hard, chosen, difficulty)


def contest(a: tuple[int, int] | None, b: tuple[int, int] | None, first_matters: bool = True) -> str:
    """Dynamic contest between two chosen sets: "self", "rival" or "draw".

    The seed: "the wider roll goes first and takes effect as normal. The roll that goes
    afterward (was less wide) must beat the wider roll's height as a Difficulty number."
    So the wider set wins the contest (it goes first and takes effect); whether the
    narrower one still succeeds afterwards is `narrower_succeeds`. "If it doesn't matter
    who goes first, or if width is a tie, just look at the height of the rolls; the
    higher roll wins." Equal sets, or no set on either side, are a draw; a set beats none.
    """
    if a is None or b is None:
        return "draw" if a is None and b is None else ("self" if b is None else "rival")
    if first_matters and a[0] != b[0]:
        return "self" if a[0] > b[0] else "rival"
    return "self" if a[1] > b[1] else "rival" if b[1] > a[1] else "draw"


# How a narrower set of the same height as the wider one fares (the setting
# `narrower_equal_height`). The rules text says the narrower "must beat the wider roll's
# height as a Difficulty number", and a Difficulty is met when the height does "equal
# or beat" it: read as a Difficulty number, an equal height succeeds (the default);
# read as "beat", it fails.
EQUAL_SUCCEEDS = "succeeds"
EQUAL_FAILS = "fails"
EQUAL_HEIGHT_READINGS = (EQUAL_SUCCEEDS, EQUAL_FAILS)


def narrower_succeeds(a: tuple[int, int] | None, b: tuple[int, int] | None, equal: str = EQUAL_SUCCEEDS) -> bool:
    """The narrower set goes afterwards and succeeds if its height meets the wider's
    height as a Difficulty (equal or beat), or with `equal="fails"` strictly beats it."""
    if a is None or b is None or a[0] == b[0]:
        return False
    wide, narrow = (a, b) if a[0] > b[0] else (b, a)
    return narrow[1] >= wide[1] if equal == EQUAL_SUCCEEDS else narrow[1] > wide[1]
