"""The OGS combatant sheet: dice as typed, validated fields.

The seed names the parts of an Action Check (stat die, skill or force die, the
enhancement pool, flat bonuses) but no list of stats or skills and no damage track.
Decisions: a combatant carries the dice it fights with (`stat`, `skill`, `force`,
`enhancement`), its flat bonus, `defense` (the difficulty to hit it), its weapon's
damage dice (an Open Roll) and `hp`, a count of hit points that damage comes off
(the seed has no wound track; 0 hp means down).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tracker.engine.errors import TrackerError
from rulesets.fields import PARAM, RESOURCE, STAT, Field, FieldError, staged
from rulesets.ogs.notation import DiceSpec, DiceSteps, parse

SHIPPED_STEPS = DiceSteps()


@dataclass(frozen=True, slots=True)
class DiceField(Field):
    """A field holding OGS dice. `single` asks for one die (or one pool from a Die
    Increase, such as [d8+d6]); otherwise any dice. Flat numbers are refused: they
    go in `flat`. An empty value means none (e.g. no force die)."""

    single: bool = False

    def expected(self) -> str:
        if self.single:
            return f"one die ({SHIPPED_STEPS.names()}) or a pool like [d8+d6]"
        return f"dice such as d8, 2d6 or d8+[d8+d6] ({SHIPPED_STEPS.names()})"

    def coerce(self, raw: Any, where: str | None = None) -> Any:
        where = where or self.name
        if not isinstance(raw, str) or isinstance(raw, bool):
            raise FieldError(where, self.expected(), raw)
        text = raw.replace(" ", "").lower()
        if text == "":
            return ""
        try:
            spec = parse(text, SHIPPED_STEPS, where)
        except TrackerError:
            raise FieldError(where, self.expected(), raw) from None
        if spec.flat or not spec.sides:
            raise FieldError(where, self.expected() + " (flat bonuses go in `flat`)", raw)
        if self.single and len(set(spec.groups)) != 1:
            raise FieldError(where, self.expected(), raw)
        return spec.text()


def dice_of(value: str, steps: DiceSteps, where: str) -> DiceSpec:
    return parse(value, steps, where) if value else DiceSpec(())


SHEET: tuple[Field, ...] = (
    DiceField("stat", "str", "d6", role=STAT, help="stat die for the check (d4-d12)", single=True),
    DiceField("skill", "str", "d6", role=STAT, help="skill die (d4-d12)", single=True),
    DiceField("force", "str", "", role=STAT, help="force die for powers (empty: none)", single=True),
    DiceField("enhancement", "str", "d4", role=STAT, help="enhancement dice pool (empty: none)"),
    Field("flat", "int", 0, -20, 20, role=STAT, help="flat bonus added to checks"),
    Field("reroll_ones", "bool", False, role=STAT, help="enhancement modifier: each enhancement die showing 1 is rolled once more"),
    Field("defense", "int", 8, 0, 100, role=STAT, help="difficulty to hit this combatant"),
    DiceField("damage", "str", "d6", role=STAT, help="weapon damage dice (an open roll)"),
    Field("hp", "int", 20, 1, 10_000, role=RESOURCE, help="hit points; 0 means down"),
)

# Modifiers the declare form and `declare ... key=value` accept.
CHECK_PARAMS: tuple[Field, ...] = (
    Field("difficulty", "int", None, 0, 200, role=PARAM, help="difficulty set by the GM"),
    Field("bonus", "int", None, -50, 50, role=PARAM, help="extra flat bonus"),
    Field("increase", "int", None, 0, 10, role=PARAM, help="Die Increase stages (enhancement die by default)"),
    Field("increase_die", "int", None, 1, 60, role=PARAM, help="which die the increase targets (1 = first)"),
    DiceField("stat", "str", None, role=PARAM, help="stat die for this check", single=True),
    DiceField("skill", "str", None, role=PARAM, help="skill die for this check", single=True),
    DiceField("enhancement", "str", None, role=PARAM, help="enhancement pool for this check"),
    Field("reroll_ones", "bool", None, role=PARAM, help="reroll ones on the enhancement dice (default: the sheet's)"),
)
ATTACK_PARAMS: tuple[Field, ...] = CHECK_PARAMS + (
    DiceField("damage", "str", None, role=PARAM, help="damage dice for this attack"),
)
OPEN_PARAMS: tuple[Field, ...] = (
    DiceField("dice", "str", None, role=PARAM, help="the dice of the open roll, e.g. 10d6"),
    Field("increase", "int", None, 0, 10, role=PARAM, help="Die Increase stages on every die"),
    Field("bonus", "int", None, -50, 50, role=PARAM, help="flat bonus"),
)
# The declare form's first fields (the rest one key away); OGS chooses nothing after the roll.
ATTACK_PARAMS = staged(ATTACK_PARAMS, ("bonus", "increase", "damage"))
CHECK_PARAMS = staged(CHECK_PARAMS, ("difficulty", "bonus", "increase"))
OPEN_PARAMS = staged(OPEN_PARAMS, ("dice", "increase", "bonus"))
