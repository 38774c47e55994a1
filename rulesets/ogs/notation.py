"""OGS dice notation and Die Increases.

A SPEC is dice and flat bonuses joined by `+` (a flat bonus may be `-N`):
`d4+d8+d8+2`, `3d6`, `d12+d12+[d8+d6]+2`. Square brackets group a dice pool that
a Die Increase made out of one die (the seed writes it `[d8 + d6]`); the dice inside
are still separate dice for totals and tie-breaks.

For an Action Check the first die is the stat die, the second the skill (or force)
die, and the rest the enhancement pool; the seed aims a Die Increase at the
enhancement die unless the effect says otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tracker.engine.errors import TrackerError
from rulesets.limits import MAX_TABLE_SIDES, limit_ogs_dice
from rulesets.tables import only, whole

# A single SPEC may not hold more dice than this (a giant's strength check is "six
# dice or more"; a 20th level Fireball is 20 dice): it keeps typos like 1000d6 out.
MAX_DICE = 60

_TERM = re.compile(r"^(\d*)d(\d+)$")

# The shipped die-size ladder (tables.toml can change it).
_STEPS = (4, 6, 8, 10, 12)
_OVERFLOW = (8, 6)
_OVERFLOW_TARGET = 1


def _sizes(value: Any, where: str) -> tuple[int, ...]:
    """A non-empty list of die sizes, each from 2 to MAX_TABLE_SIDES sides."""
    if not isinstance(value, list) or not value:
        raise TrackerError(f"{where}: expected a list of die sizes such as [4, 6, 8], got {value!r}")
    return tuple(whole(s, f"{where}[{i}]", 2, MAX_TABLE_SIDES, "a die size") for i, s in enumerate(value))


@dataclass(frozen=True, slots=True)
class DiceSteps:
    """The die-size ladder and what happens past its top (from tables.toml)."""

    steps: tuple[int, ...] = _STEPS
    overflow: tuple[int, ...] = _OVERFLOW
    overflow_target: int = _OVERFLOW_TARGET

    @classmethod
    def from_table(cls, table: Mapping[str, Any]) -> "DiceSteps":
        # The defaults by name: with slots, `cls.steps` is the slot, not the default.
        where = "ogs tables [dice]"
        if not isinstance(table, Mapping):
            raise TrackerError(f"{where}: expected a table of steps, overflow and overflow_target, got {table!r}")
        only(table, ("steps", "overflow", "overflow_target"), where)
        steps = _sizes(table.get("steps", list(_STEPS)), f"{where}.steps")
        if list(steps) != sorted(set(steps)):
            raise TrackerError(f"{where}.steps: expected increasing die sizes, got {list(steps)}")
        overflow = _sizes(table.get("overflow", list(_OVERFLOW)), f"{where}.overflow")
        if any(s not in steps for s in overflow):
            raise TrackerError(f"{where}.overflow: expected sizes from steps ({', '.join(map(str, steps))}), got {list(overflow)}")
        target = whole(table.get("overflow_target", _OVERFLOW_TARGET), f"{where}.overflow_target", 0, len(overflow) - 1,
                       "an index into overflow")
        return cls(steps, overflow, target)

    def names(self) -> str:
        return ", ".join(f"d{s}" for s in self.steps)


@dataclass(frozen=True, slots=True)
class DiceSpec:
    """Dice (sizes, in SPEC order), the bracket group of each die, and the flat bonus."""

    sides: tuple[int, ...]
    flat: int = 0
    groups: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if not self.groups:
            object.__setattr__(self, "groups", tuple(range(len(self.sides))))

    def text(self) -> str:
        """Back to notation, bracketing dice that share a group."""
        parts: list[str] = []
        i = 0
        while i < len(self.sides):
            j = i
            while j + 1 < len(self.sides) and self.groups[j + 1] == self.groups[i]:
                j += 1
            dice = [f"d{s}" for s in self.sides[i : j + 1]]
            parts.append(dice[0] if len(dice) == 1 else "[" + "+".join(dice) + "]")
            i = j + 1
        text = "+".join(parts)
        if self.flat > 0:
            text += f"+{self.flat}" if text else str(self.flat)
        elif self.flat < 0:
            text += str(self.flat)
        return text or "0"

    def enhancement_index(self) -> int:
        """The die a Die Increase aims at by default: the enhancement die (third)."""
        return 2 if len(self.sides) >= 3 else len(self.sides) - 1


def _split(text: str) -> list[str]:
    """Split on + and - at bracket depth 0, keeping a - with its number."""
    terms: list[str] = []
    depth, current = 0, ""
    for ch in text:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth < 0:
                raise TrackerError(f"ogs dice {text!r}: a ']' without its '['")
        if depth == 0 and ch in "+-":
            if current:
                terms.append(current)
            current = "-" if ch == "-" else ""
            continue
        current += ch
    if depth != 0:
        raise TrackerError(f"ogs dice {text!r}: a '[' without its ']'")
    if current:
        terms.append(current)
    return terms


def parse(spec: str, steps: DiceSteps, label: str = "ogs dice") -> DiceSpec:
    """'d4+d8+d8+2' -> DiceSpec((4, 8, 8), 2); errors name the bad term."""
    text = spec.replace(" ", "").lower()
    if not text:
        raise TrackerError(f"{label}: expected dice such as d4+d8+d8+2")
    expected = f"dice ({steps.names()}), counts like 3d6, pools in [ ], or whole numbers"
    sides: list[int] = []
    groups: list[int] = []
    flat = 0
    for index, term in enumerate(_split(text)):
        if term.startswith("[") or term.startswith("-["):
            if term.startswith("-") or not term.endswith("]"):
                raise TrackerError(f"{label} {spec!r}: term {term!r}: a pool is written [d8+d6]")
            inner = _split(term[1:-1])
            if not inner or any(t.startswith("-") or not _TERM.match(t) for t in inner):
                raise TrackerError(f"{label} {spec!r}: pool {term!r}: expected dice inside, such as [d8+d6]")
            for t in inner:
                for s in _dice(t, steps, spec, label, expected):
                    sides.append(s)
                    groups.append(-1 - index)  # negative: cannot meet a single die's group
            continue
        if re.fullmatch(r"-?\d+", term):
            flat += int(term)
            continue
        if term.startswith("-"):
            raise TrackerError(f"{label} {spec!r}: term {term!r}: dice cannot be subtracted")
        for s in _dice(term, steps, spec, label, expected):
            sides.append(s)
            groups.append(len(groups) + 1000 * index)  # each die of 3d6 is its own die
    if len(sides) > MAX_DICE:
        raise TrackerError(f"{label} {spec!r}: at most {MAX_DICE} dice, not {len(sides)}")
    return DiceSpec(tuple(sides), flat, _renumber(groups))


def _dice(term: str, steps: DiceSteps, spec: str, label: str, expected: str) -> list[int]:
    match = _TERM.match(term)
    if match is None:
        raise TrackerError(f"{label} {spec!r}: term {term!r}: expected {expected}")
    count = int(match.group(1)) if match.group(1) else 1
    size = int(match.group(2))
    if size not in steps.steps:
        raise TrackerError(f"{label} {spec!r}: term {term!r}: d{size} is not an OGS die (dice: {steps.names()})")
    if count < 1:
        raise TrackerError(f"{label} {spec!r}: term {term!r}: expected at least one die")
    if count > MAX_DICE:
        raise TrackerError(f"{label} {spec!r}: at most {MAX_DICE} dice")
    return [size] * count


def _renumber(groups: Sequence[int]) -> tuple[int, ...]:
    seen: dict[int, int] = {}
    return tuple(seen.setdefault(g, len(seen)) for g in groups)


def increase_die(size: int, stages: int, steps: DiceSteps) -> list[int]:
    """One die after a `stages`-stage Die Increase: d4 +2 -> [d8]; d12 +1 -> [d8, d6].

    Past the top step the die becomes the overflow pool, and the remaining stages of
    the same effect go to the overflow target (the d6), recursively.
    """
    if stages < 0:
        raise TrackerError(f"a Die Increase has 0 or more stages, not {stages}")
    if size not in steps.steps:
        raise TrackerError(f"d{size} is not on the die ladder ({steps.names()})")
    while stages > 0:
        i = steps.steps.index(size)
        if i + 1 < len(steps.steps):
            size, stages = steps.steps[i + 1], stages - 1
            continue
        pool = list(steps.overflow)
        target = steps.overflow_target
        rest = increase_die(pool[target], stages - 1, steps)
        return pool[:target] + rest + pool[target + 1 :]
    return [size]


def increase(spec: DiceSpec, stages: int, steps: DiceSteps, which: int | None = None, *, all_dice: bool = False) -> DiceSpec:
    """A Die Increase on one die of `spec` (0-based `which`, default the enhancement
    die), or on every die (`all_dice`: an open roll, as the seed's Fireball)."""
    if stages == 0 or not spec.sides:
        return spec
    if all_dice:
        targets = set(range(len(spec.sides)))
    else:
        index = spec.enhancement_index() if which is None else which
        if not 0 <= index < len(spec.sides):
            raise TrackerError(f"die {index + 1} to increase: the roll has dice 1 to {len(spec.sides)}")
        targets = {index}
    sides: list[int] = []
    groups: list[int] = []
    for i, (size, group) in enumerate(zip(spec.sides, spec.groups)):
        grown = increase_die(size, stages, steps) if i in targets else [size]
        # A die that became a pool keeps its dice together in one bracket group.
        new_group = group if len(grown) == 1 else 10_000 + i
        sides.extend(grown)
        groups.extend([new_group] * len(grown))
    return DiceSpec(tuple(sides), spec.flat, _renumber(groups))


def increased(spec: DiceSpec, stages: int, steps: DiceSteps, label: str, which: int | None = None, *, all_dice: bool = False) -> DiceSpec:
    """`increase`, then the limit on the dice of one roll (`limits.limit_ogs_dice`) on
    the dice the increase leaves: every roll goes through here (a check, an open roll,
    `tracker roll` and `odds`), so each refuses the same dice in the same words
    (30d12 increased one stage is 31 dice: the d12 becomes [d8+d6])."""
    grown = increase(spec, stages, steps, which, all_dice=all_dice)
    limit_ogs_dice(grown.sides, label)
    return grown
