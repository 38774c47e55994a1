"""Direct tests of tracker.engine.table: the encounter settings that belong to the table.
Expected values are worked from the module docstring (the three settings, their
choices and defaults; the damage cap "none" or a whole number)."""

from __future__ import annotations

import pytest

from tracker.engine import table
from tracker.engine.errors import TrackerError


def test_the_table_settings_their_choices_and_defaults() -> None:
    assert {k: v[:2] for k, v in table.TABLE_SETTINGS.items()} == {
        "player_declarations": (("at_once", "approval"), "at_once"),
        "viewer_resources": (("exact", "label", "hidden"), "exact"),
        "player_damage_cap": ((), "none"),
    }


def test_the_damage_cap_is_a_whole_number_or_none() -> None:
    assert table.damage_cap({}) is None
    assert table.damage_cap({"player_damage_cap": "none"}) is None
    assert table.damage_cap({"player_damage_cap": "12"}) == 12
    assert table.damage_cap({"player_damage_cap": "0"}) == 0
    assert table.damage_cap({"player_damage_cap": 7}) == 7
    assert table.damage_cap({"viewer_resources": "12"}) is None


def test_a_setting_with_choices_takes_one_of_them() -> None:
    assert table.check("player_declarations", "approval", "settings") == "approval"
    assert table.check("viewer_resources", "hidden", "settings") == "hidden"
    with pytest.raises(TrackerError) as e:
        table.check("viewer_resources", "Exact", "settings")
    assert str(e.value) == "settings.viewer_resources: expected one of exact, label, hidden, got 'Exact'"
    with pytest.raises(TrackerError) as e:
        table.check("player_declarations", None, "where")
    assert str(e.value) == "where.player_declarations: expected one of at_once, approval, got None"


def test_the_damage_cap_setting_is_none_or_a_whole_number_up_to_its_maximum() -> None:
    assert table.check("player_damage_cap", "none", "s") == "none"
    assert table.check("player_damage_cap", " none ", "s") == "none"
    assert table.check("player_damage_cap", "007", "s") == "7"
    assert table.check("player_damage_cap", 5, "s") == "5"
    assert table.check("player_damage_cap", "0", "s") == "0"
    assert table.check("player_damage_cap", str(10**9), "s") == "1000000000"
    for bad in (str(10**9 + 1), "-1", "1.5", "NONE", "", "lots", "١٢", True):
        with pytest.raises(TrackerError) as e:
            table.check("player_damage_cap", bad, "s")
        assert str(e.value) == f"s.player_damage_cap: expected none or a whole number from 0 to 1000000000, got {bad!r}"


def test_an_unknown_setting_is_refused_naming_the_settings() -> None:
    with pytest.raises(TrackerError) as e:
        table.check("colour", "red", "settings")
    assert str(e.value) == "settings: expected one of the table settings (player_declarations, viewer_resources, player_damage_cap), got 'colour'"
