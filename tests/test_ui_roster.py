"""Pilot tests at 80x24: roster work mid-fight, the library of sheets, readable undo, the
history view, a new encounter from another's roster on the start screen."""

from __future__ import annotations

import pytest

from pathlib import Path

from textual.widgets import OptionList

from tracker.persistence.library import Library
from tracker.ui.app import TrackerApp
from tracker.ui.screens.encounter import EncounterScreen
from tracker.ui.screens.form import FormScreen
from tracker.ui.screens.history import HistoryScreen
from tracker.ui.screens.roster import RosterScreen
from tests.test_ui_app import SIZE, make_file, notes, on_disk, type_into
from tests.ui import press, settle, wait_for

pytestmark = pytest.mark.ui


async def _roster(app: TrackerApp, pilot) -> RosterScreen:
    await press(pilot, "e")
    await wait_for(pilot, lambda: isinstance(app.screen, RosterScreen), "the roster editor")
    return app.screen  # type: ignore[return-value]


async def _form(app: TrackerApp, pilot, key: str) -> None:
    await press(pilot, key)
    await wait_for(pilot, lambda: isinstance(app.screen, FormScreen), f"the form of {key}")


async def _back_to(app: TrackerApp, pilot, kind: type) -> None:
    await wait_for(pilot, lambda: isinstance(app.screen, kind), kind.__name__)


async def test_roster_copies_rename_side_move_and_the_library(saves: Path) -> None:
    path = make_file(saves, "freeform", ["add Seraph hp=10 side=PC"])
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        roster = await _roster(app, pilot)
        live = roster.live
        # a: four numbered copies in one change.
        await _form(app, pilot, "a")
        await type_into(pilot, "#f-name", "Goblin")
        await type_into(pilot, "#f-copies", "4")
        await type_into(pilot, "#f-side", "foe")
        await type_into(pilot, "#f-sheet_hp", "5")
        await press(pilot, "ctrl+s")
        await _back_to(app, pilot, RosterScreen)
        assert list(live.encounter.combatants) == ["Seraph", "Goblin 1", "Goblin 2", "Goblin 3", "Goblin 4"]
        assert roster.query_one(OptionList).highlighted == 1
        # r: rename the highlighted Goblin 1 (brackets are plain text).
        await _form(app, pilot, "r")
        await type_into(pilot, "#f-name", "Grok [/]")
        await press(pilot, "ctrl+s")
        await _back_to(app, pilot, RosterScreen)
        assert "Grok [/]" in live.encounter.combatants
        # s: side; ]: move down one place.
        await _form(app, pilot, "s")
        await type_into(pilot, "#f-side", "boss")
        await press(pilot, "ctrl+s")
        await _back_to(app, pilot, RosterScreen)
        assert live.encounter.combatant("Grok [/]").side == "boss"
        await press(pilot, "right_square_bracket")
        await wait_for(pilot, lambda: list(live.encounter.combatants)[2] == "Grok [/]", "Grok moved down")
        await press(pilot, "left_square_bracket", "left_square_bracket")
        await wait_for(pilot, lambda: list(live.encounter.combatants)[0] == "Grok [/]", "Grok at the top")
        # w: save Grok's sheet as "Goblin boss"; l: add two from it.
        await _form(app, pilot, "w")
        await type_into(pilot, "#f-entry", "Goblin boss")
        await press(pilot, "ctrl+s")
        await _back_to(app, pilot, RosterScreen)
        assert Library(saves / "library-freeform.toml").get("Goblin boss").resources == {"hp": 5}
        await _form(app, pilot, "l")
        await type_into(pilot, "#f-entry", "Goblin boss")
        await type_into(pilot, "#f-copies", "2")
        await press(pilot, "ctrl+s")
        await _back_to(app, pilot, RosterScreen)
        assert "Goblin boss 2" in live.encounter.combatants
        assert live.encounter.combatant("Goblin boss 1").side == "boss"
        await press(pilot, "escape")
        await _back_to(app, pilot, EncounterScreen)
        # u says what it takes back.
        await press(pilot, "u")
        await wait_for(pilot, lambda: any(n.startswith("undo: Goblin boss 1, Goblin boss 2 join") for n in notes(app)), "a readable undo")
        await press(pilot, "H")
        await _back_to(app, pilot, HistoryScreen)
        rows = app.screen.query_one(OptionList)
        first = str(rows.get_option_at_index(0).prompt)
        assert "Grok [/] moves to place 1" in first
        await press(pilot, "escape")
        await _back_to(app, pilot, EncounterScreen)
        # A name with brackets in the undo message is text, not markup: the app lives on.
        await press(pilot, "u")
        await wait_for(pilot, lambda: "undo: Grok [/] moves to place 1 in the roster at segment 0" in notes(app), "undo of the move")
        await settle(pilot)
        await settle(pilot)
        assert app.is_running and app.return_code is None
    enc = on_disk(path)
    assert list(enc.combatants) == ["Seraph", "Grok [/]", "Goblin 2", "Goblin 3", "Goblin 4"]
    assert enc.combatant("Grok [/]").side == "boss"


async def test_new_encounter_from_a_roster_on_the_start_screen(saves: Path) -> None:
    make_file(saves, "freeform", ["add Seraph hp=10 side=PC", "add Sphinx hp=30", "damage Seraph 4", "step 7"], name="first")
    app = TrackerApp(saves)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _form(app, pilot, "c")
        await type_into(pilot, "#f-name", "Second Round")
        await type_into(pilot, "#f-what", "roster")
        await press(pilot, "ctrl+s")
        await wait_for(pilot, lambda: (saves / "second-round.toml").exists(), "the new file")
    enc = on_disk(saves / "second-round.toml")
    assert enc.setup.name == "Second Round" and enc.now == 0 and enc.events == []
    assert {n: (c.side, c.resources["hp"]) for n, c in enc.combatants.items()} == {"Seraph": ("PC", 10), "Sphinx": ("", 30)}


async def test_the_edit_form_arms_a_d6_combatant_made_without_a_weapon(saves: Path) -> None:
    """A D6 party made in the roster editor with the weapon left blank: `e` on the
    encounter screen, `e` on Hero, and the weapon field takes a die code at any time. The
    field says at once what a bad one lacks, and the form will not save it; "4d" is saved
    as "4D", a stat, in memory and in the file read again; Esc in the middle of a
    change leaves the sheet as it was."""
    from textual.widgets import Label

    path = make_file(saves, "d6", ["add Hero coordination=3D", "add Orc"])
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        roster = await _roster(app, pilot)
        live = roster.live
        await _form(app, pilot, "e")
        form = app.screen
        await type_into(pilot, "#f-sheet_weapon", "[b]")
        error = form.query_one("#f-sheet_weapon-error", Label)
        assert error.display and str(error.render()) == "weapon: expected a damage code such as 4D or +1D, got '[b]'"
        await press(pilot, "ctrl+s")
        assert app.screen is form and "weapon" not in live.encounter.combatant("Hero").stats
        await type_into(pilot, "#f-sheet_weapon", "4d")
        assert not error.display
        await press(pilot, "ctrl+s")
        await _back_to(app, pilot, RosterScreen)
        await wait_for(pilot, lambda: live.encounter.combatant("Hero").stats.get("weapon") == "4D", "the weapon set")
        assert "weapon" not in live.encounter.combatant("Hero").resources
        await _form(app, pilot, "e")
        await type_into(pilot, "#f-sheet_weapon", "6D")
        await press(pilot, "escape")
        await _back_to(app, pilot, RosterScreen)
        assert live.encounter.combatant("Hero").stats["weapon"] == "4D"
    hero = on_disk(path).combatant("Hero")
    assert hero.stats["weapon"] == "4D" and "weapon" not in hero.resources
