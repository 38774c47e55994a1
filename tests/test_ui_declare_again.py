"""The declare form's recent actions at 80x24: one digit takes one (every game: tests/test_declaring.py).

Issue 22, "What must be true" 4: "the same action against the same target again is one
key plus the dice, and the defaults (target, PT, modifiers) come from the last one".
Which entries are offered is `tracker.reading.recent`'s (tests/test_recent.py); here, the keys.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, Label

from tracker.persistence.store import EncounterFile
from tracker.ui.app import TrackerApp
from tracker.play.form import FormStage
from tracker.ui.screens.declare import DeclareScreen
from tracker.ui.screens.encounter import EncounterScreen
from tests.test_ui_declare import CASES, copy_save, gamble, gamble_file  # noqa: F401 (gamble: a fixture)
from tests.ui import press, settle, wait_for

pytestmark = pytest.mark.ui

SIZE = (80, 24)


def field(screen: DeclareScreen, selector: str) -> str:
    return screen.query_one(selector, Input).value


def refusal(app: TrackerApp) -> str:
    screen = app.screen
    return str(screen.query_one("#declare-error", Label).render()) if isinstance(screen, DeclareScreen) else ""


def shown(screen: DeclareScreen) -> str:
    return str(screen.query_one("#recent", Label).render())


async def open_form(pilot: Any, app: TrackerApp, actor: str = "") -> DeclareScreen:
    await wait_for(pilot, lambda: isinstance(app.screen, EncounterScreen), "the encounter screen")
    await press(pilot, "a")
    await wait_for(pilot, lambda: isinstance(app.screen, DeclareScreen) and app.screen.focused is not None, "the declare form")
    screen = app.screen
    assert isinstance(screen, DeclareScreen)
    if actor and field(screen, "#d-actor") != actor:
        screen.query_one("#d-actor", Input).focus()
        await settle(pilot)
        await press(pilot, "ctrl+u", *actor)
        screen.query_one("#d-template", Input).focus()
        await settle(pilot)
    return screen


@pytest.mark.parametrize("game", ["brandx"])  # every game: tests/test_declaring.py
async def test_the_same_again_is_one_key_plus_the_dice(saves: Path, game: str) -> None:
    save, actor, action, _ = CASES[game]
    path = copy_save(saves, save)
    before = len(EncounterFile(path).load().encounter.events)
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_form(pilot, app, actor)
        assert screen.recent, "the save holds a declaration of the actor's"
        # The saves' blows (a D6 check made on the : line wants its difficulty again).
        index = next((i for i, r in enumerate(screen.recent) if r.targets), 0)
        again = screen.recent[index]
        assert shown(screen).splitlines()[index] == f"{index + 1} {again.label()}"
        # One key, then the app's dice (ctrl+r) and the commit, typed in one burst.
        await press(pilot, str(index + 1), "ctrl+r", "ctrl+s")
        assert isinstance(app.screen, EncounterScreen), refusal(app)
        made = app.screen.live.encounter.actions[-1]
        assert (made.actor, made.template, made.targets) == (actor, again.template, again.targets)
        assert not getattr(app, "errors", [])
    saved = EncounterFile(path).load().encounter
    assert len(saved.events) == before + 1 and saved.events[-1].kind == "declare"


async def test_typed_dice_follow_the_digit_in_one_burst(saves: Path) -> None:
    path = copy_save(saves, "seraph-vs-sphinx.toml")
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_form(pilot, app, "Seraph")
        assert shown(screen) == "1 again: punch -> Sphinx"
        await press(pilot, "1", *"9,2", "enter")  # the faces land in the dice, not the action field
        assert screen.stage == FormStage.DICE and screen.faces == [9, 2]
        assert (field(screen, "#d-template"), field(screen, "#d-targets")) == ("punch", "Sphinx")
        assert "85.00% (17/20)" in screen.chance_shown  # the chance of the choice taken
        await press(pilot, "escape")  # changes nothing
        assert isinstance(app.screen, EncounterScreen)
        made = len(app.screen.live.encounter.actions)
    assert len(EncounterFile(path).load().encounter.actions) == made == len(EncounterFile(copy_save(saves, "seraph-vs-sphinx.toml")).load().encounter.actions)


