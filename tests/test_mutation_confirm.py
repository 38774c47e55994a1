"""Direct tests of tracker.ui.screens.confirm, worked from its docstring: "`y` or enter
confirms, `n` or escape declines"; the question quotes names and is shown as plain text,
never markup (control characters made visible)."""

from __future__ import annotations

import pytest
from textual.widgets import Label

from tracker.ui.screens.confirm import ConfirmScreen
from tests.ui import ScreenApp, wait_for

pytestmark = pytest.mark.ui

@pytest.mark.parametrize(("key", "answer"), [("y", True), ("enter", True), ("n", False), ("escape", False)])
async def test_y_or_enter_confirms_and_n_or_escape_declines(key: str, answer: bool) -> None:
    app = ScreenApp(ConfirmScreen("Remove Goblin 1 from the fight?"))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        await pilot.press(key)
        await wait_for(pilot, lambda: app.closed, f"an answer to {key}")
        assert app.result is answer
        assert not isinstance(app.screen, ConfirmScreen)


async def test_other_keys_leave_the_question_open() -> None:
    app = ScreenApp(ConfirmScreen("Delete fight (fight.toml)? This cannot be undone."))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        await pilot.press("x", "q", "space", "Y")
        await pilot.press("y")
        await wait_for(pilot, lambda: app.closed, "an answer")
        assert app.result is True  # only the y answered


async def test_the_question_is_plain_text_with_its_keys_said_under_it() -> None:
    question = "Remove [bold]Grok[/] \x1b[2J from the fight?"
    app = ScreenApp(ConfirmScreen(question))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        screen = app.screen
        asked = screen.query_one(".dialog .question", Label)
        shown = str(asked.render())
        assert "[bold]Grok[/]" in shown  # brackets are text, not markup
        assert "\x1b" not in shown and "2J from the fight?" in shown  # the escape made visible, the rest kept
        hint = screen.query_one(".dialog .hint", Label)
        assert str(hint.render()) == "y / enter: yes    n / esc: no"
