"""The D6 data tables (tables.toml, after any GM override), read once with named errors."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tracker.engine.errors import TrackerError
from rulesets.d6.codes import DieCode, DieCodeError, parse
from rulesets.d6.sheet import ATTRIBUTES, HEALTHY_WOUNDS, SKILLS
from rulesets.limits import MAX_D6_DIFFICULTY
from rulesets.tables import whole


@dataclass(frozen=True, slots=True)
class WoundLevel:
    name: str
    rank: int
    over: int | None
    penalty: DieCode


def _table(raw: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = raw.get(key)
    if not isinstance(value, Mapping) or not value:
        raise TrackerError(f"{key}: expected a table of rows in the D6 tables")
    return value


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise TrackerError(f"{where}: expected text, got {value!r}")
    return value


def _code(value: Any, where: str) -> DieCode:
    if isinstance(value, int) and not isinstance(value, bool):
        return DieCode(0, value)
    try:
        return parse(_text(value, where), where)
    except DieCodeError as exc:
        raise TrackerError(str(exc)) from None


class D6Tables:
    def __init__(self, raw: Mapping[str, Any]) -> None:
        self.difficulties: dict[str, tuple[int, str]] = {}
        for key, row in _table(raw, "difficulties").items():
            where = f"difficulties.{key}"
            if not isinstance(row, Mapping):
                raise TrackerError(f"{where}: expected {{ name = ..., number = N }}, got {row!r}")
            self.difficulties[key] = (whole(row.get("number"), f"{where}.number", 0, MAX_D6_DIFFICULTY), _text(row.get("name", key), f"{where}.name"))
        self.levels: list[tuple[int, str]] = []
        for key, row in _table(raw, "success_levels").items():
            where = f"success_levels.{key}"
            if not isinstance(row, Mapping):
                raise TrackerError(f"{where}: expected {{ name = ..., min = N }}, got {row!r}")
            self.levels.append((whole(row.get("min"), f"{where}.min", 0), _text(row.get("name", key), f"{where}.name")))
        self.levels.sort()
        self.situations = {k: _code(v, f"situations.{k}") for k, v in _table(raw, "situations").items()}
        self.situations_dice = {k: _code(v, f"situations_dice.{k}") for k, v in _table(raw, "situations_dice").items()}
        self.range = {k: _code(v, f"range.{k}") for k, v in _table(raw, "range").items()}
        self.cover = {k: _code(v, f"cover.{k}") for k, v in _table(raw, "cover").items()}
        defense = _table(raw, "defense")
        self.passive = whole(defense.get("passive", 10), "defense.passive", 0, MAX_D6_DIFFICULTY)
        self.full_bonus = whole(defense.get("full_defense_bonus", 10), "defense.full_defense_bonus", 0, MAX_D6_DIFFICULTY)
        self.bonus_divisor = whole(defense.get("damage_bonus_divisor", 5), "defense.damage_bonus_divisor", 1, MAX_D6_DIFFICULTY)
        self.wounds: list[WoundLevel] = []
        for key, row in _table(raw, "wound_levels").items():
            where = f"wound_levels.{key}"
            if not isinstance(row, Mapping):
                raise TrackerError(f"{where}: expected {{ name = ..., rank = N, over = N, penalty = \"-1D\" }}, got {row!r}")
            over = row.get("over")
            self.wounds.append(
                WoundLevel(
                    _text(row.get("name", key), f"{where}.name"),
                    whole(row.get("rank"), f"{where}.rank", 0),
                    None if over is None else whole(over, f"{where}.over", 1),
                    _code(row.get("penalty", "0"), f"{where}.penalty"),
                )
            )
        self.wounds.sort(key=lambda w: w.rank)
        self.max_rank = max(w.rank for w in self.wounds)
        # The attribute each skill falls back on; a skill the game does not know could
        # never be rolled, so a house row naming one is refused rather than ignored.
        self.skills: dict[str, str] = {}
        for key, attribute in _table(raw, "skills").items():
            if key not in SKILLS:
                raise TrackerError(f"skills.{key}: expected one of the D6 skills ({', '.join(SKILLS)})")
            if attribute not in ATTRIBUTES:
                raise TrackerError(f"skills.{key}: expected one of {', '.join(ATTRIBUTES)}, got {attribute!r}")
            self.skills[key] = attribute

    # ----------------------------------------------------------- lookups
    def difficulty_name(self, number: int) -> str:
        """The standard level whose band holds `number` (the highest level at or below it)."""
        found = "below Automatic"
        for value, name in sorted(self.difficulties.values()):
            if number >= value:
                found = name
        return found

    def level_name(self, result_points: int) -> str:
        found = "Failure"
        for minimum, name in self.levels:
            if result_points >= minimum:
                found = name
        return found

    def rank_for(self, over: int) -> int:
        """The wound rank an excess of `over` gives on its own (0: none)."""
        rank = 0
        for level in self.wounds:
            if level.over is not None and over >= level.over:
                rank = max(rank, level.rank)
        return rank

    def rank_name(self, rank: int) -> str:
        if rank <= 0:
            return "Healthy"
        for level in self.wounds:
            if level.rank == rank:
                return level.name
        return f"wound rank {rank}"

    def wound_level(self, wounds_left: int) -> WoundLevel | None:
        """The level a combatant with `wounds_left` is at (None when healthy)."""
        rank = HEALTHY_WOUNDS - wounds_left
        for level in self.wounds:
            if level.rank == rank:
                return level
        return None
