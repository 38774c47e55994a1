"""The ORE combatant sheet: stats and skills as dice pools, armour, wound boxes.

The CyberORE seed names the six stats (Body, Coordination, Sense, Brains, Command,
Cool; 1d to 5d) and says skills run 0d to 5d; its skill list is not public, so the
sheet carries the Wild Talents combat skills (brawling, melee, ranged, dodge, block).
A stat or skill may hold hard and wiggle dice (`2d+1hd`). Weapons are damage
formulas of width (`width+1 killing`); `har`/`lar` are heavy and light armour.
Wound boxes per location come from the `wound_boxes` table (a GM can override it).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tracker.engine.errors import TrackerError
from rulesets.fields import PARAM, RESOURCE, STAT, Field, FieldError, staged
from rulesets.ore.combat import parse_damage
from rulesets.ore.pool import parse

STATS = ("body", "coordination", "sense", "brains", "command", "cool")
SKILLS = ("brawling", "melee", "ranged", "dodge", "block")

with open(Path(__file__).with_name("tables.toml"), "rb") as _handle:
    SHIPPED = tomllib.load(_handle)
LOCATIONS: tuple[str, ...] = tuple(SHIPPED["wound_boxes"])


@dataclass(frozen=True, slots=True)
class PoolField(Field):
    """A stat or skill pool in dice notation, `low` to `high` dice in all."""

    low: int = 0
    high: int = 5

    def expected(self) -> str:
        return f"a pool of {self.low} to {self.high} dice such as 3d or 2d+1hd or 1d+1wd"

    def coerce(self, raw: Any, where: str | None = None) -> Any:
        where = where or self.name
        if isinstance(raw, bool) or not isinstance(raw, (str, int)):
            raise FieldError(where, self.expected(), raw)
        text = str(raw).strip().lower()
        if text.isdigit():  # "3" means 3d
            text += "d"
        try:
            pool = parse(text or "0d", where)
        except TrackerError:
            raise FieldError(where, self.expected(), raw) from None
        if not self.low <= pool.size <= self.high:
            raise FieldError(where, self.expected(), raw)
        return pool.text()


@dataclass(frozen=True, slots=True)
class DamageField(Field):
    def expected(self) -> str:
        return "damage such as 'width shock' or 'width+1 killing'"

    def coerce(self, raw: Any, where: str | None = None) -> Any:
        where = where or self.name
        if not isinstance(raw, str):
            raise FieldError(where, self.expected(), raw)
        try:
            parse_damage(raw, where)
        except TrackerError:
            raise FieldError(where, self.expected(), raw) from None
        return raw.strip().lower()


def _sheet() -> tuple[Field, ...]:
    fields: list[Field] = [PoolField(s, "str", "2d", role=STAT, help=f"{s} stat pool (1d-5d)", low=1, high=5) for s in STATS]
    fields += [PoolField(s, "str", "0d", role=STAT, help=f"{s} skill pool (0d-5d)") for s in SKILLS]
    fields += [
        DamageField("weapon", "str", "width killing", role=STAT, help="melee weapon damage"),
        DamageField("gun", "str", "width+1 killing", role=STAT, help="ranged weapon damage"),
        Field("har", "int", 0, 0, 10, role=STAT, help="heavy armour: takes width off attacks"),
        Field("lar", "int", 0, 0, 10, role=STAT, help="light armour: shock to 1, killing to shock"),
    ]
    for loc in LOCATIONS:
        boxes = int(SHIPPED["wound_boxes"][loc])
        fields.append(Field(loc, "int", boxes, 1, 50, role=RESOURCE, help=f"{loc}: empty wound boxes"))
        fields.append(Field(f"{loc}_k", "int", boxes, 1, 50, role=RESOURCE, help=f"{loc}: boxes free of Killing"))
    return tuple(fields)


SHEET = _sheet()

_COMMON = (
    Field("difficulty", "int", None, 1, 10, role=PARAM, help="the set must be at least this high"),
    Field("penalty", "int", None, 0, 20, role=PARAM, help="penalty dice (lost hard, then normal, then wiggle)"),
    Field("bonus", "int", None, 0, 10, role=PARAM, help="extra normal dice"),
    PoolField("pool", "str", None, role=PARAM, help="roll this pool instead of stat + skill", low=0, high=40),
    Field("wiggle", "str", None, role=PARAM, help="faces for the wiggle dice, e.g. 7 or 7,7"),
    Field("also", "str", None, role=PARAM, help="an extra action served by the roll's next set, e.g. dodge or punch:Vex (its pool must be as large)"),
)
ATTACK_PARAMS: tuple[Field, ...] = _COMMON + (
    DamageField("damage", "str", None, role=PARAM, help="damage formula for this attack"),
    Field("penetration", "int", None, 0, 10, role=PARAM, help="lowers HAR and LAR by one per point"),
    Field("gobble", "str", None, role=PARAM, help="gobble dice against this attack, as WxH (e.g. 2x8); 0 for none"),
)
DEFENCE_PARAMS: tuple[Field, ...] = _COMMON
CHECK_PARAMS: tuple[Field, ...] = _COMMON + (
    Field("stat", "choice", None, choices=STATS, role=PARAM, help="stat to roll"),
    Field("skill", "choice", None, choices=SKILLS, role=PARAM, help="skill to add"),
)
CONTEST_PARAMS: tuple[Field, ...] = _COMMON + (
    Field("stat", "choice", None, choices=STATS, role=PARAM, help="stat to roll"),
    Field("skill", "choice", None, choices=SKILLS, role=PARAM, help="skill to add"),
    Field("vs_stat", "choice", None, choices=STATS, role=PARAM, help="the target's stat (default: the same stat)"),
    Field("vs_skill", "choice", None, choices=SKILLS, role=PARAM, help="the target's skill (default: the same skill)"),
    PoolField("vs_pool", "str", None, role=PARAM, help="the target rolls this pool instead", low=0, high=40),
    Field("vs_penalty", "int", None, 0, 20, role=PARAM, help="penalty dice on the target's side"),
    Field("first_matters", "bool", None, role=PARAM, help="who goes first matters (a race): the wider set goes first; false: the higher wins"),
)
# The declare form's stages: wiggle dice are set after the roll is seen (the seed);
# the first fields are the ones that change the pool or what a set must reach.
ATTACK_PARAMS = staged(ATTACK_PARAMS, ("difficulty", "penalty", "damage"), ("wiggle",))
DEFENCE_PARAMS = staged(DEFENCE_PARAMS, ("difficulty", "penalty"), ("wiggle",))
CHECK_PARAMS = staged(CHECK_PARAMS, ("stat", "skill", "difficulty"), ("wiggle",))
CONTEST_PARAMS = staged(CONTEST_PARAMS, ("stat", "skill", "vs_stat", "vs_skill"), ("wiggle",))
