"""D6 tables (seed 001 and rulesets/d6/tables.toml): the bands of the standard
difficulties and the wound levels, read at their edges.

Seed: "The numbers in parentheses indicate the range of difficulty numbers for that
level." with "Very Easy (1) [...] Easy (6) [...] Moderate (11) [...] Difficult (16)
[...] Very Difficult (21) [...] Heroic (26) [...] Legendary (31)".
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

import rulesets.d6 as d6_package
from rulesets.d6 import D6Ruleset
from rulesets.d6.tables import D6Tables
from rulesets.d6.codes import DieCode
from tracker.engine.errors import TrackerError


@pytest.mark.parametrize("number,name", [
    (0, "Automatic"), (1, "Very Easy"), (5, "Very Easy"), (6, "Easy"), (11, "Moderate"), (16, "Difficult"),
    (21, "Very Difficult"), (26, "Heroic"), (31, "Legendary"), (-1, "below Automatic"),
])
def test_a_difficulty_number_names_the_level_whose_band_starts_at_or_below_it(number: int, name: str) -> None:
    """By hand: each level's number is the first of its band, so 6 is already Easy and
    5 still Very Easy; nothing starts below Automatic (0)."""
    assert D6Ruleset().data.difficulty_name(number) == name


@pytest.mark.parametrize("over,rank,name", [
    (0, 0, "Healthy"), (1, 1, "Stunned"), (3, 1, "Stunned"), (4, 2, "Wounded"), (8, 2, "Wounded"),
    (9, 4, "Incapacitated"), (12, 4, "Incapacitated"), (13, 5, "Mortally Wounded"), (15, 5, "Mortally Wounded"),
    (16, 6, "Dead"), (40, 6, "Dead"),
])
def test_the_wound_level_of_an_excess_at_the_edges_of_each_band(over: int, rank: int, name: str) -> None:
    """tables.toml [wound_levels]: `over` is the least excess of damage over resistance
    that gives the level (Stunned 1, Wounded 4, Incapacitated 9, Mortally Wounded 13,
    Dead 16; Severely Wounded only by a second wound). By hand at each edge: 3 is still
    Stunned, 8 still Wounded, 0 no wound at all."""
    data = D6Ruleset().data
    assert data.rank_for(over) == rank
    assert data.rank_name(rank) == name


def test_the_penalty_of_each_wound_level_by_the_levels_left() -> None:
    """rulesets/d6/sheet.py: `wounds` counts the levels left before Incapacitated, 4
    Healthy, 3 Stunned, 2 Wounded, 1 Severely Wounded, 0 Incapacitated; tables.toml gives
    the penalties (-1D, -1D, -2D, -3D). A rank past the table is named by its number."""
    data = D6Ruleset().data
    assert data.wound_level(4) is None
    levels = {left: data.wound_level(left) for left in (3, 2, 1, 0)}
    assert {left: (level.name, level.penalty) for left, level in levels.items() if level} == {
        3: ("Stunned", DieCode(-1, 0)), 2: ("Wounded", DieCode(-1, 0)),
        1: ("Severely Wounded", DieCode(-2, 0)), 0: ("Incapacitated", DieCode(-3, 0)),
    }
    assert data.rank_name(3) == "Severely Wounded" and data.rank_name(7) == "wound rank 7"
    assert data.rank_name(-1) == "Healthy"


def test_a_house_modifier_may_be_a_plain_number_and_a_bad_house_row_is_named(tmp_path: Path) -> None:
    """Seed: "If the bonus is in the form of a number (such as +2), then you add the
    amount to the total". A house table may write a situation as a number: advantaged
    = 4 adds 4 pips (0D+4). A difficulty that is no whole number, or a table that is
    not a table of rows, is refused naming it. Below Minimal (0) a roll is a Failure."""
    rules = tmp_path / "house.toml"
    rules.write_text("[situations]\nadvantaged = 4\n", encoding="utf-8")
    assert D6Ruleset(rules).data.situations["advantaged"] == DieCode(0, 4)
    rules.write_text('[difficulties]\neasy = { name = "Easy", number = "six" }\n', encoding="utf-8")
    with pytest.raises(TrackerError, match=r"difficulties\.easy\.number: expected a whole number from 0 to 400, got 'six'"):
        _ = D6Ruleset(rules).data
    rules.write_text('cover = "none"\n', encoding="utf-8")
    with pytest.raises(TrackerError, match=r"cover: expected a table of rows in the D6 tables"):
        _ = D6Ruleset(rules).data
    assert D6Ruleset().data.level_name(-1) == "Failure"


# ------------------------------------------------------------ a GM's house tables
# tables.toml's comments give each table's shape; a house-rules file replaces rows key
# by key. What a malformed row must do: be refused, naming the table, the row and the
# field, with what was expected and what was found (never a crash at the first roll).

def _shipped() -> dict[str, Any]:
    return tomllib.loads((Path(d6_package.__file__).parent / "tables.toml").read_text(encoding="utf-8"))


def _with(table: str, rows: Any) -> dict[str, Any]:
    raw = _shipped()
    raw[table] = rows
    return raw


def _refusal(raw: dict[str, Any]) -> str:
    with pytest.raises(TrackerError) as caught:
        D6Tables(raw)
    return str(caught.value)


@pytest.mark.parametrize("table", ["difficulties", "success_levels", "situations", "situations_dice", "range",
                                   "cover", "defense", "wound_levels", "skills"])
def test_each_table_missing_empty_or_not_a_table_is_refused_by_name(table: str) -> None:
    expected = f"{table}: expected a table of rows in the D6 tables"
    raw = _shipped()
    del raw[table]
    assert _refusal(raw) == expected
    assert _refusal(_with(table, {})) == expected
    assert _refusal(_with(table, 3)) == expected


@pytest.mark.parametrize("table,row,message", [
    ("difficulties", 6, "difficulties.easy: expected { name = ..., number = N }, got 6"),
    ("difficulties", {"name": "Easy"}, "difficulties.easy.number: expected a whole number from 0 to 400, got None"),
    ("difficulties", {"number": True}, "difficulties.easy.number: expected a whole number from 0 to 400, got True"),
    ("difficulties", {"number": 6.5}, "difficulties.easy.number: expected a whole number from 0 to 400, got 6.5"),
    ("difficulties", {"number": 6, "name": 6}, "difficulties.easy.name: expected text, got 6"),
    ("success_levels", "Easy", "success_levels.easy: expected { name = ..., min = N }, got 'Easy'"),
    ("success_levels", {"name": "Easy"}, "success_levels.easy.min: expected a whole number of at least 0, got None"),
    ("success_levels", {"min": 2, "name": ["Easy"]}, "success_levels.easy.name: expected text, got ['Easy']"),
    ("situations", True, "situations.easy: expected text, got True"),
    ("situations_dice", "lots", "situations_dice.easy: expected a die code such as 3D, 4D+2 or 2D-1, got 'lots'"),
    ("range", "", "range.easy: expected a die code such as 3D, 4D+2 or 2D-1, got an empty value"),
    ("cover", 2.5, "cover.easy: expected text, got 2.5"),
    ("wound_levels", 3, 'wound_levels.easy: expected { name = ..., rank = N, over = N, penalty = "-1D" }, got 3'),
    ("wound_levels", {"over": 2}, "wound_levels.easy.rank: expected a whole number of at least 0, got None"),
    ("wound_levels", {"rank": 2, "over": "2"}, "wound_levels.easy.over: expected a whole number of at least 1, got '2'"),
    ("wound_levels", {"rank": -1, "over": 2}, "wound_levels.easy.rank: expected a whole number of at least 0, got -1"),
    ("wound_levels", {"rank": 2, "over": 0}, "wound_levels.easy.over: expected a whole number of at least 1, got 0"),
    ("difficulties", {"number": -1}, "difficulties.easy.number: expected a whole number from 0 to 400, got -1"),
    ("difficulties", {"number": 401}, "difficulties.easy.number: expected a whole number from 0 to 400, got 401"),
    ("success_levels", {"min": -1}, "success_levels.easy.min: expected a whole number of at least 0, got -1"),
    ("wound_levels", {"rank": 2, "name": 1}, "wound_levels.easy.name: expected text, got 1"),
    ("wound_levels", {"rank": 2, "penalty": "-1X"}, "wound_levels.easy.penalty: expected a die code such as 3D, 4D+2 or 2D-1, got '-1X'"),
])
def test_a_malformed_house_row_names_its_table_row_and_field(table: str, row: Any, message: str) -> None:
    assert _refusal(_with(table, {**_shipped()[table], "easy": row})) == message


@pytest.mark.parametrize("field,value,message", [
    ("passive", "ten", "defense.passive: expected a whole number from 0 to 400, got 'ten'"),
    ("passive", -40, "defense.passive: expected a whole number from 0 to 400, got -40"),
    ("full_defense_bonus", 1.5, "defense.full_defense_bonus: expected a whole number from 0 to 400, got 1.5"),
    ("full_defense_bonus", -1, "defense.full_defense_bonus: expected a whole number from 0 to 400, got -1"),
    ("damage_bonus_divisor", False, "defense.damage_bonus_divisor: expected a whole number from 1 to 400, got False"),
    ("damage_bonus_divisor", 0, "defense.damage_bonus_divisor: expected a whole number from 1 to 400, got 0"),
    ("damage_bonus_divisor", -5, "defense.damage_bonus_divisor: expected a whole number from 1 to 400, got -5"),
])
def test_a_malformed_defence_setting_is_refused_by_name(field: str, value: Any, message: str) -> None:
    assert _refusal(_with("defense", {**_shipped()["defense"], field: value})) == message


@pytest.mark.parametrize("row,message", [
    ({"dodge": "luck"}, "skills.dodge: expected one of reflexes, coordination, physique, knowledge, perception, presence, got 'luck'"),
    ({"dodge": 3}, "skills.dodge: expected one of reflexes, coordination, physique, knowledge, perception, presence, got 3"),
    ({"piloting": "coordination"}, "skills.piloting: expected one of the D6 skills (dodge, brawling, melee, marksmanship, throwing, lifting, stamina, search, willpower, persuasion)"),
])
def test_a_skill_row_must_name_a_d6_skill_and_one_of_its_attributes(row: dict[str, Any], message: str) -> None:
    """The sheet: "A skill left off the sheet is rolled on its attribute (the [skills]
    table says which)": a row naming no attribute, or a skill the game cannot roll, is
    refused when the tables are read, not at the first roll."""
    assert _refusal(_with("skills", {**_shipped()["skills"], **row})) == message


def test_house_rows_fill_their_defaults_and_sort_where_the_rules_read_them_in_order() -> None:
    """tables.toml: a row's `name` defaults to its key; `defense` without a row keeps
    the documented 10 / 10 / 5; a wound level with no `over` is reached only by a second
    wound and with no `penalty` costs nothing (0D). Success levels are read from `min`
    up to the next level, whatever order the file lists them in: a house "Great" from 7
    sits between Good (5) and Superior (9), so 6 is Good, 7 and 8 Great, 9 Superior.
    Wound ranks likewise: past Dead (rank 6 from 16 over), a house rank 7 at 20 over
    becomes the highest rank; 19 over is still Dead."""
    raw = _shipped()
    raw["difficulties"] = {**raw["difficulties"], "tricky": {"number": 13}}
    raw["success_levels"] = {**raw["success_levels"], "great": {"min": 7}}
    raw["defense"] = {"passive": 8}
    raw["wound_levels"] = {**raw["wound_levels"], "broken": {"rank": 7, "over": 20}, "shaken": {"rank": 0}}
    raw["situations"] = {**raw["situations"], "blessed": 2}
    tables = D6Tables(raw)
    assert tables.difficulties["tricky"] == (13, "tricky")
    assert tables.difficulty_name(13) == "tricky" and tables.difficulty_name(12) == "Moderate"
    assert [tables.level_name(n) for n in (4, 5, 6, 7, 8, 9)] == ["Solid", "Good", "Good", "great", "great", "Superior"]
    assert (tables.passive, tables.full_bonus, tables.bonus_divisor) == (8, 10, 5)
    assert [w.rank for w in tables.wounds] == [0, 1, 2, 3, 4, 5, 6, 7] and tables.max_rank == 7
    shaken = tables.wounds[0]
    assert (shaken.name, shaken.over, shaken.penalty) == ("shaken", None, DieCode(0, 0))
    assert tables.rank_for(19) == 6 and tables.rank_for(20) == 7 and tables.rank_name(7) == "broken"
    assert tables.situations["blessed"] == DieCode(0, 2)
    assert tables.skills["search"] == "perception"


def test_a_divisor_of_one_is_the_smallest_accepted() -> None:
    """The damage bonus is "one fifth of the result points, rounded up"
    (`damage_bonus_divisor = 5`); a house divisor of 1 (every result point to damage)
    is the smallest that means anything: accepted, where 0 is refused (above)."""
    tables = D6Tables(_with("defense", {**_shipped()["defense"], "damage_bonus_divisor": 1}))
    assert tables.bonus_divisor == 1


def test_a_defence_table_without_the_passive_row_keeps_the_passive_defence_of_10() -> None:
    """tables.toml: "passive = 10 # the combat difficulty without an active defence";
    a house `[defense]` that leaves the row out keeps it."""
    tables = D6Tables(_with("defense", {"full_defense_bonus": 8}))
    assert (tables.passive, tables.full_bonus) == (10, 8)
