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

from rulesets.fields import RESOURCE, STAT, Field

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


def starting_resources(tables: Mapping[str, Any]) -> dict[str, int]:
    """Full resources as the (possibly GM-overridden) tables give them."""
    found = {STUN: int(tables.get("damage", {}).get("stun_knockout", 20))}
    locations = tables.get("locations", {})
    for loc in LOCATIONS:
        found[loc] = int(locations.get(loc, {}).get("points", _POINTS[loc]))
    return found
