"""Direct tests of rulesets.registry (module docstring): the built-in games are known by
module path and one asked for imports that one; the `tracker.rulesets` entry-point group
adds others, read only when needed; a plugin that cannot be loaded is kept with why
(`failures()`), listed, and named by `get` instead of "unknown ruleset"; one broken
plugin never hides the other games; a house-rules file named directly is read and
checked whole."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from rulesets import registry
from rulesets.base import Ruleset
from rulesets.freeform import FreeformRuleset
from tracker.engine.errors import TrackerError

OWN = ["brandx", "d6", "freeform", "ogs", "ore", "usor"]


class Attic(FreeformRuleset):
    id = "attic"


class Cellar(FreeformRuleset):
    id = "attic"  # another game's id: its entry point `cellar` is refused


class Nameless(Ruleset):
    """A game with no id at all: refused by the registry, not a crash."""


@pytest.fixture
def plugins(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The group as read: one good game, three that cannot load, one named like a built-in."""
    module = types.ModuleType("attic_rpg")
    module.Attic = Attic  # type: ignore[attr-defined]
    module.Cellar = Cellar  # type: ignore[attr-defined]
    module.Nameless = Nameless  # type: ignore[attr-defined]
    module.helper = len  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "attic_rpg", module)
    points = [
        EntryPoint("attic", "attic_rpg:Attic", registry.GROUP),
        EntryPoint("cellar", "attic_rpg:Cellar", registry.GROUP),
        EntryPoint("helper", "attic_rpg:helper", registry.GROUP),
        EntryPoint("nameless", "attic_rpg:Nameless", registry.GROUP),
        EntryPoint("whole", "attic_rpg", registry.GROUP),
        EntryPoint("missing", "no_such_rpg_module:Game", registry.GROUP),
        EntryPoint("d6", "attic_rpg:Attic", registry.GROUP),  # never replaces the built-in D6
        EntryPoint("elsewhere", "attic_rpg:Attic", "another.group"),
    ]
    asked: list[str] = []

    def scan(group: str) -> list[EntryPoint]:
        asked.append(group)
        return [p for p in points if p.group == group]

    monkeypatch.setattr(registry, "entry_points", scan)
    registry.forget()
    yield asked
    registry.forget()


def test_entry_points_reads_only_the_group_asked_for() -> None:
    assert all(p.group == registry.GROUP for p in registry.entry_points(registry.GROUP))
    assert registry.entry_points("tracker.no-such-group-for-a-test") == []


def test_ids_list_every_game_sorted_without_loading_any(plugins: list[str]) -> None:
    assert registry.ids() == ["attic", "brandx", "cellar", "d6", "freeform", "helper", "missing", "nameless", "ogs", "ore", "usor", "whole"]
    assert plugins == [registry.GROUP]


def test_exists_asks_the_group_only_for_an_id_not_built_in(plugins: list[str]) -> None:
    assert registry.exists("d6")
    assert plugins == []
    assert registry.exists("attic") and registry.exists("missing")
    assert not registry.exists("chess") and not registry.exists("elsewhere")


def test_available_are_the_games_that_load(plugins: list[str]) -> None:
    found = registry.available()
    assert sorted(found) == ["attic", *OWN]
    assert found["attic"] is Attic and found["freeform"] is FreeformRuleset
    assert found["d6"].id == "d6"  # the built-in, not the plugin named like it
    found.clear()  # a copy: the registry keeps its own
    assert "attic" in registry.available()


def test_failures_say_why_each_plugin_did_not_load(plugins: list[str]) -> None:
    failed = registry.failures()
    assert failed == {
        "cellar": "attic_rpg:Cellar: its id is 'attic', but its entry point is named 'cellar' (they must be equal)",
        "helper": "attic_rpg:helper: not a rulesets.base.Ruleset subclass",
        "nameless": "attic_rpg:Nameless: its id is None, but its entry point is named 'nameless' (they must be equal)",
        "whole": "attic_rpg: not a rulesets.base.Ruleset subclass",
        "missing": "no_such_rpg_module:Game: ModuleNotFoundError: No module named 'no_such_rpg_module'",
    }
    failed.clear()
    assert len(registry.failures()) == 5


def test_get_a_game_names_why_it_could_not_load(plugins: list[str]) -> None:
    assert isinstance(registry.get("attic"), Attic)
    assert isinstance(registry.get("freeform"), FreeformRuleset)
    with pytest.raises(TrackerError) as refused:
        registry.get("missing")
    assert str(refused.value) == ("game 'missing' is installed but could not be loaded: "
                                  "no_such_rpg_module:Game: ModuleNotFoundError: No module named 'no_such_rpg_module'")
    with pytest.raises(TrackerError) as refused:
        registry.get("chess")
    assert str(refused.value) == "unknown ruleset 'chess' (known: attic, brandx, d6, freeform, ogs, ore, usor)"


def test_forget_reads_the_group_again(plugins: list[str]) -> None:
    assert "attic" in registry.available()
    plugins.clear()
    assert "attic" in registry.available()
    assert plugins == []  # kept from the first reading
    registry.forget()
    assert registry.failures()  # read again
    assert plugins == [registry.GROUP]


def test_a_built_in_game_is_had_without_the_group(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(group: str) -> list[EntryPoint]:
        raise AssertionError("the entry-point group was read")

    monkeypatch.setattr(registry, "entry_points", refuse)
    registry.forget()
    try:
        for game in OWN:
            assert registry.get(game).id == game
    finally:
        registry.forget()


def test_unknown_lists_the_own_games_when_no_plugin_is_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "entry_points", lambda group: [])
    registry.forget()
    try:
        with pytest.raises(TrackerError) as refused:
            registry.get("chess")
        assert str(refused.value) == "unknown ruleset 'chess' (known: brandx, d6, freeform, ogs, ore, usor)"
        assert registry.failures() == {}
    finally:
        registry.forget()


def test_house_rules_a_file_is_checked_tables_given_are_not(tmp_path: Path) -> None:
    house = tmp_path / "house.toml"
    house.write_text("[time]\nmove = 0\n", encoding="utf-8")
    with pytest.raises(TrackerError) as refused:
        registry.get("ogs", house)
    assert str(refused.value).startswith(f"house rules {house}: ogs tables [time].move: ")
    # Tables already read are the caller's to check (the save's loader).
    assert registry.get("ogs", {"time": {"move": 0}}).id == "ogs"
    house.write_text("[time]\nmove = 3\n", encoding="utf-8")
    assert registry.get("ogs", house).catalogue()["move"].pt == 3
    assert registry.get("ogs").catalogue()["move"].pt != 3
