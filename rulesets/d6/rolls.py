"""Rolling a D6 die code: a plain sum by default, or with the Wild Die.

Seed 001: "Each die code ... indicates the number of six-sided dice you roll ... and
sometimes an added bonus ... you add to the total result you roll on the dice." That
plain sum (mode `PLAIN`) is the default. The Wild Die is OpenD6's optional rule, not in
the seed: the table setting `wild_die` (off by default) turns it on, and then one die of
every roll is the Wild Die. A 6 on it is a Critical Success: it counts and
is rolled again, again and again while it shows 6 (a later 1 is just 1). A 1 on its
first roll is a Critical Failure, handled by the encounter setting
`critical_failure`:
- "cancel" (default): the 1 and the highest other die are both dropped (with no other
  die, the 1 cancels itself and only the pips remain);
- "complication": the dice count normally (the 1 counts as 1) and the GM adds a
  complication; the roll is still flagged `critical_failure`.

Faces are read in this order (docs/contributing/design.md#cli): the Wild Die first, then the other dice, then
the Wild Die's explosions.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rulesets.d6.codes import DieCode
from rulesets.dice import DiceSource, roll_group

PLAIN = "plain"  # no Wild Die: the seed's "total result you roll on the dice"
CANCEL = "cancel"
COMPLICATION = "complication"
CRITICAL_FAILURE_OPTIONS = (CANCEL, COMPLICATION)
CRITICAL_SUCCESS = "critical_success"
CRITICAL_FAILURE = "critical_failure"
# A safety stop for typed or broken sources; a fair Wild Die reaches this with
# probability 6**-200.
MAX_EXPLOSIONS = 200


def roll_mode(settings: Mapping[str, Any]) -> str:
    """How the table rolls: PLAIN unless the setting `wild_die` is on, then its
    `critical_failure` rule (cancel by default)."""
    if not settings.get("wild_die", False):
        return PLAIN
    return str(settings.get("critical_failure") or CANCEL)


@dataclass(frozen=True, slots=True)
class D6Roll:
    code: DieCode
    wild: tuple[int, ...]      # the first Wild Die roll, then its explosions; () without one
    others: tuple[int, ...]    # the other dice, in the order rolled
    dropped: tuple[int, ...]   # faces cancelled by a Critical Failure
    total: int
    mode: str = CANCEL

    @property
    def faces(self) -> tuple[int, ...]:
        """All faces in reading order: Wild Die, the others, then the explosions."""
        return (*self.wild[:1], *self.others, *self.wild[1:])

    @property
    def status(self) -> str | None:
        if not self.wild:
            return None
        if self.wild[0] == 6:
            return CRITICAL_SUCCESS
        if self.wild[0] == 1:
            return CRITICAL_FAILURE
        return None

    def text(self, code: bool = True) -> str:
        """'4D+2: wild 6+3!; dice 2, 5, 4 (critical success) = 22' (code=False leaves out '4D+2: ');
        without the Wild Die '4D+2: dice 6, 2, 5, 4 = 19'."""
        parts = []
        if self.wild:
            wild = "+".join(map(str, self.wild))
            parts.append(f"wild {wild}{'!' if self.status == CRITICAL_SUCCESS else ''}")
        if self.others:
            parts.append("dice " + ", ".join(map(str, self.others)))
        shown = (f"{self.code}: " if code else "") + "; ".join(parts)
        if self.status == CRITICAL_FAILURE:
            if self.mode == CANCEL:
                gone = " and ".join(map(str, self.dropped)) if self.dropped else "1"
                shown += f" (critical failure: {gone} dropped)"
            else:
                shown += " (critical failure: counts, with a complication)"
        elif self.status == CRITICAL_SUCCESS:
            shown += " (critical success)"
        return f"{shown} = {self.total}"


def roll_code(code: DieCode, dice: DiceSource, mode: str = PLAIN, label: str = "", who: str = "") -> D6Roll:
    """Roll `code` (at least 1D) through `dice` in the documented face order.

    `label` names the roll ("marksmanship", "damage"); `who` a roller other than the
    actor (the target's resistance). Each explosion of the Wild Die is its own group,
    asked for only when a 6 shows. In `PLAIN` mode the dice are summed."""
    head = f"{label} {code}" if label else str(code)
    if mode == PLAIN:
        faces = tuple(roll_group(dice, f"{head} roll", (6,) * code.dice, who))
        return D6Roll(code, (), faces, (), sum(faces) + code.pips, mode)
    first, *rest = roll_group(dice, f"{head} roll (Wild Die first)", (6,) * code.dice, who)
    others = tuple(rest)
    wild = [first]
    if first == 6:
        while len(wild) <= MAX_EXPLOSIONS:
            (again,) = roll_group(dice, f"{head}: Wild Die explosion", (6,), who)
            wild.append(again)
            if again != 6:
                break
    dropped: tuple[int, ...] = ()
    if first == 1 and mode == CANCEL:
        kept = sorted(others)
        dropped = (1, kept.pop()) if kept else (1,)
        total = sum(kept) + code.pips
    else:
        total = sum(wild) + sum(others) + code.pips
    return D6Roll(code, tuple(wild), others, dropped, total, mode)
