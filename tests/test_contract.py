"""The adapter contract: registry by entry point, dice sources, tables with GM overrides, fields."""

from __future__ import annotations

import sys
import types
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from tracker.engine import TrackerError
from rulesets import registry
from rulesets.dice import NotEnoughFaces, RandomDice, Recorder, TypedFaces, parse_faces, source_for
from rulesets.fields import Field, FieldError, coerce_all
from rulesets.freeform import FreeformRuleset
from rulesets.tables import load_tables


def test_a_third_party_game_is_found_through_the_entry_point_group(monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType("kitchen_sink_rpg")

    class KitchenSink(FreeformRuleset):
        id = "kitchen"
        name = "Kitchen Sink"
        description = "a third-party game"

    module.KitchenSink = KitchenSink  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "kitchen_sink_rpg", module)
    point = EntryPoint("kitchen", "kitchen_sink_rpg:KitchenSink", registry.GROUP)
    monkeypatch.setattr(registry, "entry_points", lambda group: [point] if group == registry.GROUP else [])
    registry._classes.cache_clear()
    try:
        assert registry.get("kitchen").name == "Kitchen Sink"
        assert "freeform" in registry.available()
    finally:
        registry._classes.cache_clear()


def test_unknown_ruleset_lists_the_known_ones() -> None:
    with pytest.raises(TrackerError, match="known: .*freeform"):
        registry.get("chess")


def test_seeded_dice_repeat_and_typed_faces_are_checked() -> None:
    a, b = RandomDice(7), RandomDice(7)
    assert [a.roll(10) for _ in range(20)] == [b.roll(10) for _ in range(20)]
    typed = TypedFaces([3, 10])
    assert typed.roll(10) == 3
    with pytest.raises(TrackerError, match="d6; 10 is not one of its faces"):
        typed.roll(6)
    typed.roll(10)
    with pytest.raises(NotEnoughFaces, match="more dice than the 2 typed"):
        typed.roll(10)
    recorder = Recorder(TypedFaces([4, 5]))
    recorder.roll(6), recorder.roll(6)
    assert recorder.faces == [4, 5]
    assert parse_faces("1, 2,3") == [1, 2, 3]
    with pytest.raises(TrackerError, match="entry 2"):
        parse_faces("1,x")
    assert isinstance(source_for(None, 3), RandomDice)
    assert isinstance(source_for("2,2"), TypedFaces)


def test_tables_are_overridden_row_by_row(tmp_path: Path) -> None:
    shipped = tmp_path / "tables.toml"
    shipped.write_text('[sphere]\n"1" = 1\n"2" = 2\n[note]\ntext = "shipped"\n')
    house = tmp_path / "house.toml"
    house.write_text('[sphere]\n"2" = 3\n')
    tables = load_tables(shipped, house)
    assert tables["sphere"] == {"1": 1, "2": 3}
    assert tables["note"]["text"] == "shipped"
    house.write_text("[sphere\n")
    with pytest.raises(TrackerError, match="house.toml: not valid TOML"):
        load_tables(shipped, house)


def test_fields_validate_with_named_messages() -> None:
    agility = Field("agility", "int", 10, minimum=0, maximum=100)
    assert agility.coerce("22") == 22
    with pytest.raises(FieldError, match=r"sheet.agility: expected an integer from 0 to 100, got '200'"):
        coerce_all((agility,), {"agility": "200"}, "sheet")
    with pytest.raises(FieldError, match="one of the known keys"):
        coerce_all((agility,), {"agilty": "3"}, "sheet")
    assert coerce_all((agility,), {}, "sheet") == {"agility": 10}
    assert Field("flag", "bool").coerce("yes") is True
    with pytest.raises(FieldError):
        Field("mode", "choice", choices=("a", "b")).coerce("c")


def test_freeform_states_outcomes() -> None:
    from tracker.engine import Encounter, Setup
    from tracker.session import Session

    ff = FreeformRuleset()
    enc = Encounter(Setup("t", "freeform", ff.time, ff.down_when))
    session = Session(enc, ff, RandomDice(1))
    session.execute("add Ann hp=5")
    session.execute("add Bo")
    assert enc.combatants["Bo"].resources == {"hp": 10}
    session.execute("declare Ann anything target=Bo pt=3 damage=4 note='a wild swing'")
    session.execute("declare Bo hide mode=passive")
    assert enc.actions[1].mode == "passive" and enc.actions[1].pt == 10
    session.execute("next")
    assert enc.combatants["Bo"].resources["hp"] == 6
    assert any(e.text == "a wild swing" for e in enc.log)
    with pytest.raises(TrackerError, match="faces: 1 typed but the roll used 0"):
        session.execute("declare Ann look pt=2 faces=4")
