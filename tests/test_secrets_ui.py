"""Pilot test at 80x24: a player's app roll stands in the declare form (issue 19, item 4):
ctrl+b does not take back the app's dice, and a form closed and opened again rolls the
same faces; the GM may take back and roll again."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Label

from tracker.play.form import FormStage
from tracker.ui.screens.declare import DeclareScreen
from tests.test_players_ui import SIZE, fight, player_app, type_into  # noqa: F401  (a fixture)
from tests.ui import press, wait_for

pytestmark = pytest.mark.ui


async def rolled_by_the_app(pilot: object) -> DeclareScreen:
    app = pilot.app  # type: ignore[attr-defined]
    await press(pilot, "a")
    await wait_for(pilot, lambda: isinstance(app.screen, DeclareScreen), "the declare form")
    form = app.screen
    await type_into(pilot, "#d-targets", "Sphinx")
    await press(pilot, "ctrl+s")
    await wait_for(pilot, lambda: form.stage == FormStage.DICE, "the dice prompt")
    await press(pilot, "ctrl+r")  # the app rolls every die still wanted
    await wait_for(pilot, lambda: form.stage == FormStage.RESULT, "the result")
    return form


async def test_a_players_app_roll_stands(saves: Path, fight: Path) -> None:  # noqa: F811
    app = player_app(saves, fight)
    async with app.run_test(size=SIZE) as pilot:
        form = await rolled_by_the_app(pilot)
        faces = list(form.faces)
        await press(pilot, "ctrl+b")
        await wait_for(pilot, lambda: "the app's roll stands" in str(form.query_one("#declare-error", Label).render()), "the refusal")
        assert form.stage == FormStage.RESULT and form.faces == faces
        await press(pilot, "escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, DeclareScreen), "the form closed")
        again = await rolled_by_the_app(pilot)
        assert again.faces == faces  # the same dice: no reroll by closing the form
        await press(pilot, "ctrl+s")
        await wait_for(pilot, lambda: not isinstance(app.screen, DeclareScreen), "the declaration")
    event = [e for e in app.live.encounter.events if e.kind in ("declare", "propose")][-1]  # type: ignore[union-attr]
    assert event.args["dice"] == "app" and list(event.args["resolution"].dice[: len(faces)]) == faces


async def test_taking_back_a_committed_app_roll_and_coming_back_serves_the_same_dice(saves: Path, fight: Path) -> None:  # noqa: F811
    """The way the issue found: declare with the app's dice, `u` (take back), declare
    again: the same faces, in this app and in a new one (a reconnect)."""
    app = player_app(saves, fight)
    async with app.run_test(size=SIZE) as pilot:
        form = await rolled_by_the_app(pilot)
        faces = list(form.faces)
        await press(pilot, "ctrl+s")
        await wait_for(pilot, lambda: not isinstance(app.screen, DeclareScreen), "the declaration")
        declared = len(app.live.encounter.events)  # type: ignore[union-attr]
        await press(pilot, "u")
        await wait_for(pilot, lambda: len(app.live.encounter.events) > declared, "the take-back")  # type: ignore[union-attr]
        assert app.live.encounter.undo_target().kind != "declare" or app.live.encounter.undo_target().by != "player:bob"  # type: ignore[union-attr]
        again = await rolled_by_the_app(pilot)
        assert again.faces == faces
        await press(pilot, "escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, DeclareScreen), "the form closed")
    later = player_app(saves, fight)
    async with later.run_test(size=SIZE) as pilot:
        form = await rolled_by_the_app(pilot)
        assert form.faces == faces
