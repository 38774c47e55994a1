"""The ORE data tables (tables.toml, after any GM override), read once with named errors.

Every table the adapter reads is checked here, when the game is opened: `[dice]`
(the cap on rolled dice and the order penalty dice come off), `[hit_locations]` (a
location for every height 1 to 10), `[wound_boxes]` (1 to 50 boxes, the sheet's own
limits), `[overflow]` (a location, or "" for nowhere) and `[actions]` (a stat and
skill the sheet has, and damage the adapter can read). Locations are the sheet's
(`sheet.LOCATIONS`): a house table may resize or reroute them, not add new ones, since
a combatant has no boxes for a location the sheet does not know.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tracker.engine.errors import TrackerError
from rulesets.ore.combat import parse_damage
from rulesets.ore.sheet import LOCATIONS, SKILLS, STATS
from rulesets.tables import only, section, whole

PENALTY_ORDER = ("hard", "normal", "wiggle")
HEIGHTS = range(1, 11)
# The sheet's own limits on a location's boxes (sheet.py's RESOURCE fields).
MIN_BOXES, MAX_BOXES = 1, 50
# Damage a row may name that is read from the attacker's sheet instead of the table.
FROM_SHEET = ("weapon", "gun")


@dataclass(frozen=True, slots=True)
class OreTables:
    max_rolled: int
    penalty_order: tuple[str, ...]
    hit_locations: dict[str, str]  # height (as the table writes it) -> location
    wound_boxes: dict[str, int]
    overflow: dict[str, str]
    actions: dict[str, dict[str, str]]  # action -> stat, skill, damage (as given)

    @classmethod
    def read(cls, tables: Mapping[str, Any], actions: tuple[str, ...]) -> "OreTables":
        """`tables` checked whole; `actions` are the catalogue's names a row may give."""
        dice = section(tables, "dice", "ore tables [dice]")
        only(dice, ("max_rolled", "penalty_order"), "ore tables [dice]")
        cap = whole(dice.get("max_rolled", 12), "ore tables [dice].max_rolled", 1, 100)
        order = dice.get("penalty_order", list(PENALTY_ORDER))
        if not isinstance(order, list) or sorted(map(str, order)) != sorted(PENALTY_ORDER) or \
                not all(isinstance(o, str) for o in order):
            raise TrackerError(f"ore tables [dice].penalty_order: expected hard, normal and wiggle in some order, got {order!r}")

        heights: dict[str, str] = {}
        for key, value in section(tables, "hit_locations", "ore tables [hit_locations]").items():
            where = f"ore tables [hit_locations].{key}"
            if key.strip() not in {str(h) for h in HEIGHTS}:
                raise TrackerError(f"{where}: expected a height from 1 to 10 as the key")
            heights[key.strip()] = _location(value, where)
        missing = [h for h in HEIGHTS if str(h) not in heights]
        if missing:
            raise TrackerError(f"ore tables [hit_locations]: no location for height {missing[0]}")

        boxes = {}
        for key, value in section(tables, "wound_boxes", "ore tables [wound_boxes]").items():
            where = f"ore tables [wound_boxes].{key}"
            boxes[_location(key, where)] = whole(value, where, MIN_BOXES, MAX_BOXES)

        overflow = {}
        for key, value in section(tables, "overflow", "ore tables [overflow]").items():
            where = f"ore tables [overflow].{key}"
            overflow[_location(key, where)] = "" if value == "" else _location(value, where, ' (or "" for nowhere)')

        rows: dict[str, dict[str, str]] = {}
        for name, row in section(tables, "actions", "ore tables [actions]").items():
            where = f"ore tables [actions].{name}"
            if name not in actions:
                raise TrackerError(f"{where}: expected one of the actions {', '.join(actions)}")
            if not isinstance(row, Mapping):
                raise TrackerError(f'{where}: expected a row such as {{ stat = "body", skill = "brawling", damage = "width shock" }}, got {row!r}')
            only(row, ("stat", "skill", "damage"), where, "field")
            checked = {}
            for key, known in (("stat", STATS), ("skill", SKILLS)):
                if key in row:
                    if row[key] not in known:
                        raise TrackerError(f"{where}.{key}: expected one of {', '.join(known)}, got {row[key]!r}")
                    checked[key] = row[key]
            if "damage" in row:
                damage = row["damage"]
                if not isinstance(damage, str):
                    raise TrackerError(f"{where}.damage: expected damage such as 'width shock' or 'weapon', got {damage!r}")
                if damage not in FROM_SHEET:
                    parse_damage(damage, f"{where}.damage")
                checked["damage"] = damage
            rows[name] = checked
        return cls(cap, tuple(order), heights, boxes, overflow, rows)

    def action(self, name: str) -> dict[str, str]:
        """The action's row ({} for an action the tables do not list)."""
        return self.actions.get(name, {})


def _location(value: Any, where: str, more: str = "") -> str:
    if not isinstance(value, str) or value not in LOCATIONS:
        raise TrackerError(f"{where}: expected a location ({', '.join(LOCATIONS)}){more}, got {value!r}")
    return value
