"""D6 tables (seed 001 and rulesets/d6/tables.toml): the bands of the standard
difficulties and the wound levels, read at their edges.

Seed: "The numbers in parentheses indicate the range of difficulty numbers for that
level." with "Very Easy (1) [...] Easy (6) [...] Moderate (11) [...] Difficult (16)
[...] Very Difficult (21) [...] Heroic (26) [...] Legendary (31)".
"""

from __future__ import annotations

import pytest

from pathlib import Path

from rulesets.d6 import D6Ruleset
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
    with pytest.raises(TrackerError, match=r"difficulties\.easy\.number: expected a whole number, got 'six'"):
        _ = D6Ruleset(rules).data
    rules.write_text('cover = "none"\n', encoding="utf-8")
    with pytest.raises(TrackerError, match=r"cover: expected a table of rows in the D6 tables"):
        _ = D6Ruleset(rules).data
    assert D6Ruleset().data.level_name(-1) == "Failure"
