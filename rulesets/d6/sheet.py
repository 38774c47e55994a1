"""The D6 combatant sheet: attributes and skills as die codes, wound levels or Body Points.

Attributes (D6 Adventure names) default to 3D. A skill left off the sheet is rolled
on its attribute (the `[skills]` table says which). `weapon` is the damage code: one
written with a leading "+" (a knife's "+1D") adds to the wielder's Strength Damage
(half the Physique or lifting dice, rounded up, pips dropped), any other ("4D") is the
damage itself; unarmed strikes do Strength Damage. `armor` adds dice to resist damage.

Die codes are `CodeField`s: each checks its value with the die-code parser wherever it
is given (`add`, `set NAME KEY VALUE`, the roster form as it is typed, a save), so a bad
value is reported by name ("add Merc.physique: expected a die code such as 3D, 4D+2 or
2D-1, got 'x'") and stored in its canonical form ("4d+2" -> "4D+2"). A code left blank
when the combatant was made (a skill, `weapon`, `armor`) may be set at any time.

Resources count what is left:
- `wounds`: wound levels left before Incapacitated: 4 Healthy, 3 Stunned, 2 Wounded,
  1 Severely Wounded, 0 Incapacitated, -1 Mortally Wounded, -2 Dead. Down at 0 or below.
  The level's penalty (tables.toml `[wound_levels]`) applies to the combatant's rolls
  until the GM heals it (`heal NAME 1 resource=wounds`); OpenD6's "Stunned lasts this
  and the next round" is left to the GM.
- `body_points`: only with the encounter setting damage_system=body_points; give it
  per combatant (`body_points=30`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tracker.engine.errors import TrackerError
from rulesets.d6.codes import DieCode, DieCodeError, EXAMPLE, parse
from rulesets.fields import RESOURCE, STAT, Field, FieldError

ATTRIBUTES = ("reflexes", "coordination", "physique", "knowledge", "perception", "presence")
SKILLS = ("dodge", "brawling", "melee", "marksmanship", "throwing", "lifting", "stamina", "search", "willpower", "persuasion")
ROLLABLE = ATTRIBUTES + SKILLS
WOUNDS = "wounds"
BODY_POINTS = "body_points"
HEALTHY_WOUNDS = 4  # the Incapacitated rank: levels left before it

WEAPON_EXPECTED = "a damage code such as 4D or +1D"


def _checked_code(name: str, value: Any, where: str) -> str:
    """The die-code stat `name` checked and in canonical form, or a FieldError naming `where`."""
    unreadable = WEAPON_EXPECTED if name == "weapon" else EXAMPLE
    if not isinstance(value, str):
        raise FieldError(where, unreadable, value)
    try:
        code = parse(value, where)
    except DieCodeError:
        raise FieldError(where, unreadable, value) from None
    if name == "weapon":
        if code.dice < 0 or (code.dice == 0 and code.pips <= 0):
            raise FieldError(where, WEAPON_EXPECTED, value)
        return code.signed() if value.strip().startswith("+") else str(code)
    minimum = _least_dice(name)
    if code.dice < minimum:
        raise FieldError(where, f"{EXAMPLE} (at least {minimum}D)", value)
    return str(code)


def _least_dice(name: str) -> int:
    return 0 if name == "armor" else 1


@dataclass(frozen=True, slots=True)
class CodeField(Field):
    """A die-code stat (an attribute, a skill, `weapon`, `armor`): its value is checked
    as a die code and kept in canonical form, by every way a sheet is written."""

    def expected(self) -> str:
        return WEAPON_EXPECTED if self.name == "weapon" else f"{EXAMPLE} (at least {_least_dice(self.name)}D)"

    def coerce(self, raw: Any, where: str | None = None) -> Any:
        return _checked_code(self.name, raw, where or self.name)


SHEET: tuple[Field, ...] = (
    # The help says what the field is for; the form adds the die code it expects.
    *(CodeField(a, "str", "3D", role=STAT, help=f"{a.capitalize()} attribute") for a in ATTRIBUTES),
    *(CodeField(s, "str", None, role=STAT, help=f"{s} skill (blank: its attribute)") for s in SKILLS),
    CodeField("weapon", "str", None, role=STAT, help="weapon damage (+1D adds to Strength Damage; blank: none)"),
    CodeField("armor", "str", None, role=STAT, help="armour dice added to damage resistance"),
    Field(WOUNDS, "int", HEALTHY_WOUNDS, minimum=-2, maximum=HEALTHY_WOUNDS, role=RESOURCE, help="wound levels left before Incapacitated (4 Healthy)"),
    Field(BODY_POINTS, "int", None, minimum=1, role=RESOURCE, help="Body Points (damage_system=body_points)"),
)
CODE_FIELDS = frozenset(ROLLABLE) | {"weapon", "armor"}


def canonical(field: str, value: Any, where: str) -> str:
    """Check a die-code stat of the sheet `where` and return it in canonical form, or
    raise FieldError naming `where.field`."""
    return _checked_code(field, value, f"{where}.{field}")


def code_of(stats: Mapping[str, Any], name: str, skills: Mapping[str, str]) -> DieCode:
    """The code rolled for a skill or attribute: the skill if listed, else its attribute
    (`skills`: the attribute each skill falls back on, the tables' `[skills]`)."""
    value = stats.get(name)
    if value is None and name in SKILLS:
        attribute = skills.get(name)
        if attribute not in ATTRIBUTES:
            raise TrackerError(f"skills.{name}: expected one of {', '.join(ATTRIBUTES)}, got {attribute!r}")
        value = stats.get(attribute, "3D")
    if value is None:
        value = "3D"
    return parse(str(value), name)


def strength_source(stats: Mapping[str, Any]) -> tuple[str, DieCode]:
    """Lifting if the sheet lists it, else Physique."""
    if stats.get("lifting"):
        return "lifting", parse(str(stats["lifting"]), "lifting")
    return "physique", parse(str(stats.get("physique", "3D")), "physique")
