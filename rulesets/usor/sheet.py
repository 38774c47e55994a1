"""The USOR combatant sheet: ratings, Defense, stun and per-location physical damage.

Ratings are whole numbers looked up on the Event Chart after modifiers. Defense is
Vitality + Armor Rating + Natural Armor (the Damage page). Resources count what is
left: `stun` starts at 20 (20 stun damage points knock a character out) and each hit
location starts at the physical damage it takes before it is destroyed (legs 8, arms
6, head 4, chest 10). Down when stun, head or chest reaches 0 (the source breaks off
at "If the Head or C...": the tracker treats a destroyed head or chest as down and
leaves death to the GM). Arms and legs at 0 are destroyed but not down.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tracker.engine.bounds import MAX_AMOUNT
from tracker.engine.errors import TrackerError
from rulesets.fields import RESOURCE, STAT, Field
from rulesets.tables import only, section, whole

LOCATIONS = ("chest", "head", "right_arm", "left_arm", "right_leg", "left_leg")
# Shipped values; tables.toml ([locations], [damage]) is the source a GM overrides.
_POINTS = {"chest": 10, "head": 4, "right_arm": 6, "left_arm": 6, "right_leg": 8, "left_leg": 8}
STUN = "stun"


def _rating(name: str, default: int, help: str, minimum: int = 0) -> Field:
    return Field(name, "int", default, minimum=minimum, role=STAT, help=help)


SHEET: tuple[Field, ...] = (
    _rating("agility", 20, "Agility rating"),
    _rating("perception", 20, "Perception rating"),
    _rating("strength", 20, "Strength rating"),
    _rating("attack", 15, "weapon skill rating, rolled to strike"),
    _rating("damage", 15, "weapon Damage Rating, rolled when a strike hits"),
    _rating("dodge", 15, "Dodge rating, rolled against strikes"),
    _rating("parry", 0, "Parry Rating, added to Dodge while wielding a covered weapon"),
    _rating("vitality", 10, "Vitality (part of Defense)"),
    _rating("armor", 0, "Armor Rating (part of Defense)"),
    _rating("natural_armor", 0, "Natural Armor (part of Defense)"),
    Field("size", "int", 0, minimum=-30, maximum=60, role=STAT, help="Size Level (average human 0)"),
    Field("weapon_size", "int", 0, minimum=-30, maximum=60, role=STAT, help="Size Level of the weapon (a human sword is 0)"),
    Field("atm", "float", 1.0, minimum=0.01, maximum=100, role=STAT, help="Action Time Multiplier: AT = BAT x ATM"),
    Field("critical_strike", "bool", False, role=STAT, help="the Critical Strike ability: NOST past 1 adds damage ([critical_strike] table)"),
    Field(STUN, "int", 20, minimum=1, role=RESOURCE, help="stun points left before knock-out (20 SDP)"),
    *(
        Field(loc, "int", _POINTS[loc], minimum=1, role=RESOURCE, help=f"physical damage the {loc.replace('_', ' ')} takes before it is destroyed")
        for loc in LOCATIONS
    ),
)

# Ratings a `check` or `contest` may roll; reaction and defense are computed.
ROLLABLE = ("agility", "perception", "strength", "attack", "damage", "dodge", "vitality", "reaction", "defense")


def defense(stats: Mapping[str, Any]) -> int:
    return int(stats.get("vitality", 0)) + int(stats.get("armor", 0)) + int(stats.get("natural_armor", 0))


def rating(stats: Mapping[str, Any], name: str) -> int:
    """A rollable rating from the sheet (Reaction = Agility + Perception)."""
    if name == "defense":
        return defense(stats)
    if name == "reaction":
        return int(stats.get("agility", 0)) + int(stats.get("perception", 0))
    return int(stats.get(name, 0))


# The largest penalty or Size Level step a house table may give: ten times the Event
# Chart's 100 ratings, past any rating a roll could use.
MAX_FIGURE = 1000
# [damage]: its figures and their values when a house table leaves one out.
DAMAGE_DEFAULTS = {"stun_knockout": 20, "strike_per_size": 1, "damage_per_size": 5}


def location_rows(tables: Mapping[str, Any]) -> dict[str, tuple[int, int]]:
    """[locations] checked: location -> (penalty to the weapon-skill rating, points it
    takes before it is destroyed, at least 1), the shipped figures where a row is silent."""
    found = {loc: (0, _POINTS[loc]) for loc in LOCATIONS}
    for loc, row in section(tables, "locations", "locations").items():
        where = f"locations.{loc}"
        if loc not in LOCATIONS:
            raise TrackerError(f"{where}: expected a location ({', '.join(LOCATIONS)})")
        if not isinstance(row, Mapping):
            raise TrackerError(f"{where}: expected a row such as {{ penalty = -6, points = 6 }}, got {row!r}")
        only(row, ("penalty", "points"), where, "field")
        penalty, points = found[loc]
        found[loc] = (whole(row.get("penalty", penalty), f"{where}.penalty", -MAX_FIGURE, MAX_FIGURE),
                      whole(row.get("points", points), f"{where}.points", 1, MAX_AMOUNT))
    return found


def damage_figures(tables: Mapping[str, Any]) -> dict[str, int]:
    """[damage] checked: the stun points that knock out (at least 1) and the two
    Size Level steps (0 to MAX_FIGURE: a step that subtracts would turn the rule round)."""
    raw = section(tables, "damage", "damage")
    only(raw, tuple(DAMAGE_DEFAULTS), "damage")
    return {key: whole(raw.get(key, default), f"damage.{key}", *((1, MAX_AMOUNT) if key == "stun_knockout" else (0, MAX_FIGURE)))
            for key, default in DAMAGE_DEFAULTS.items()}


def starting_resources(tables: Mapping[str, Any]) -> dict[str, int]:
    """Full resources as the (possibly GM-overridden) tables give them."""
    found = {STUN: damage_figures(tables)["stun_knockout"]}
    for loc, (_, points) in location_rows(tables).items():
        found[loc] = points
    return found
