"""Rolling OGS checks: Action Checks, Opposed Checks and Open Rolls.

- Action Check: total = dice + flat bonus; success when total >= difficulty.
- Critical stages: (total - difficulty) div 2 once the margin is 2 or more (the seed:
  difficulty 8, total 16 -> a four-stage critical). Stage rules are table data.
- Opposed Check: the higher total wins; a tie breaks on die values from largest to
  smallest, then die sizes from largest to smallest, then opposed d12s rolled until
  one is higher.

Decisions where the seed is silent:
- When the two sides have different numbers of dice, a side that runs out of dice in
  the value or size comparison counts 0 there (any die beats no die).
- The d12 roll-off takes its faces from each side's own dice source, one d12 each per
  round of the roll-off (typed faces: after that side's check dice).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tracker.engine.errors import TrackerError
from rulesets.dice import DiceSource, roll_group
from rulesets.ogs.notation import DiceSpec
from rulesets.tables import whole

# A random roll-off ends long before this; typed faces run out first.
_MAX_ROLL_OFF = 1000


@dataclass(frozen=True, slots=True)
class StageRule:
    first_stage: int = 2
    stage_size: int = 2

    @classmethod
    def from_table(cls, table: Mapping[str, Any]) -> "StageRule":
        if not isinstance(table, Mapping):
            raise TrackerError(f"ogs tables [check]: expected a table of first_stage and stage_size, got {table!r}")
        return cls(whole(table.get("first_stage", 2), "ogs tables [check].first_stage", 1),
                   whole(table.get("stage_size", 2), "ogs tables [check].stage_size", 1))

    def stages(self, total: int, difficulty: int) -> int:
        margin = total - difficulty
        return margin // self.stage_size if margin >= self.first_stage else 0


@dataclass(slots=True)
class Rolled:
    """One side's rolled dice: sizes and faces in SPEC order."""

    spec: DiceSpec
    faces: list[int]

    @property
    def total(self) -> int:
        return sum(self.faces) + self.spec.flat

    def shown(self) -> str:
        """'d4:1 + d8:4 + d8:6 = 11' style text for the log."""
        dice = " + ".join(f"d{s}:{f}" for s, f in zip(self.spec.sides, self.faces))
        if self.spec.flat:
            dice = f"{dice} {'+' if self.spec.flat > 0 else '-'} {abs(self.spec.flat)}" if dice else str(self.spec.flat)
        return f"{dice or '0'} = {self.total}"


def roll(spec: DiceSpec, dice: DiceSource, label: str = "check", who: str = "", reroll_from: int | None = None) -> Rolled:
    """One dice group: `label` names the roll ("Action Check", "damage"), `who` a
    roller other than the actor (the rival of an Opposed Check). Dice from index
    `reroll_from` on (the enhancement pool) "reroll ones": each 1 is rolled once more,
    as its own group, and the new face stands."""
    faces = roll_group(dice, label, spec.sides, who)
    if reroll_from is not None:
        for i in range(reroll_from, len(faces)):
            if faces[i] == 1:
                (faces[i],) = roll_group(dice, f"{label}: reroll of a 1 (enhancement)", (spec.sides[i],), who)
    return Rolled(spec, faces)


def _descending(values: list[int] | tuple[int, ...], length: int) -> tuple[int, ...]:
    ordered = sorted(values, reverse=True)
    return tuple(ordered) + (0,) * (length - len(ordered))


def value_key(faces: list[int] | tuple[int, ...], length: int) -> tuple[int, ...]:
    return _descending(faces, length)


def compare_sizes(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    length = max(len(a), len(b))
    ka, kb = _descending(a, length), _descending(b, length)
    return (ka > kb) - (ka < kb)


@dataclass(slots=True)
class Opposed:
    """The outcome of an Opposed Check. `winner` is "self" or "rival"."""

    own: Rolled
    rival: Rolled
    winner: str
    decided_by: str  # "total", "die values", "die sizes" or "d12 roll-off"
    roll_off: list[tuple[int, int]] = field(default_factory=list)

    def text(self) -> str:
        extra = ""
        if self.roll_off:
            extra = " (" + ", ".join(f"{a} vs {b}" for a, b in self.roll_off) + ")"
        return f"{self.winner} wins on {self.decided_by}{extra}"


def rank_many(rolls: list[Rolled], dice: DiceSource, names: list[str]) -> tuple[list[int], str, list[list[int]]]:
    """Several sides of one Opposed Check: the indexes of the winner and the way it was
    decided, and the d12 roll-offs. Seed: "It is possible for multiple participants to
    roll the same total, in which case the resulting tie is broken by comparing [...]
    die values from largest to smallest, individual die sizes from largest to smallest,
    and finally by repeatedly rolling opposed d12s". Only the sides tied at the top go
    on to each tie-break."""
    top = max(r.total for r in rolls)
    alive = [i for i, r in enumerate(rolls) if r.total == top]
    if len(alive) == 1:
        return alive, "total", []
    length = max(len(r.faces) for r in rolls)
    best = max(value_key(rolls[i].faces, length) for i in alive)
    narrowed = [i for i in alive if value_key(rolls[i].faces, length) == best]
    if len(narrowed) == 1:
        return narrowed, "die values", []
    alive = narrowed
    best_sizes = max(_descending(rolls[i].spec.sides, length) for i in alive)
    narrowed = [i for i in alive if _descending(rolls[i].spec.sides, length) == best_sizes]
    if len(narrowed) == 1:
        return narrowed, "die sizes", []
    alive = narrowed
    offs: list[list[int]] = []
    for _ in range(_MAX_ROLL_OFF):
        faces = [roll_group(dice, "d12 roll-off", (12,), names[i])[0] for i in alive]
        offs.append(faces)
        high = max(faces)
        alive = [i for i, f in zip(alive, faces) if f == high]
        if len(alive) == 1:
            return alive, "d12 roll-off", offs
    raise TrackerError(f"the d12 roll-off tied {_MAX_ROLL_OFF} times; check the dice source")


def opposed(own: Rolled, rival: Rolled, own_dice: DiceSource, rival_dice: DiceSource, rival_who: str = "") -> Opposed:
    """Settle an Opposed Check with the seed's tie-breaks, rolling d12s if it comes to that."""
    if own.total != rival.total:
        return Opposed(own, rival, "self" if own.total > rival.total else "rival", "total")
    length = max(len(own.faces), len(rival.faces))
    va, vb = value_key(own.faces, length), value_key(rival.faces, length)
    if va != vb:
        return Opposed(own, rival, "self" if va > vb else "rival", "die values")
    sizes = compare_sizes(own.spec.sides, rival.spec.sides)
    if sizes:
        return Opposed(own, rival, "self" if sizes > 0 else "rival", "die sizes")
    offs: list[tuple[int, int]] = []
    for _ in range(_MAX_ROLL_OFF):
        (a,) = roll_group(own_dice, "d12 roll-off", (12,))
        (b,) = roll_group(rival_dice, "d12 roll-off", (12,), rival_who)
        offs.append((a, b))
        if a != b:
            return Opposed(own, rival, "self" if a > b else "rival", "d12 roll-off", offs)
    raise TrackerError(f"the d12 roll-off tied {_MAX_ROLL_OFF} times; check the dice source")
