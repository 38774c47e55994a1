"""Direct tests of tracker.ui.screens.confirm, worked from its docstring: "`y` or enter
confirms, `n` or escape declines"; the question quotes names and is shown as plain text,
never markup (control characters made visible)."""

from __future__ import annotations

import pytest
from textual.app import App
from textual.widgets import Label

from tracker.ui.screens.confirm import ConfirmScreen
from tests.ui import wait_for

pytestmark = pytest.mark.ui

NO_ANSWER = object()


class Asking(App[None]):
    """A bare app that asks one question and keeps the answer."""

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question
        self.answer: object = NO_ANSWER

    def on_mount(self) -> None:
        self.push_screen(ConfirmScreen(self.question), self.answered)

    def answered(self, yes: bool | None) -> None:
        self.answer = yes


@pytest.mark.parametrize(("key", "answer"), [("y", True), ("enter", True), ("n", False), ("escape", False)])
async def test_y_or_enter_confirms_and_n_or_escape_declines(key: str, answer: bool) -> None:
    app = Asking("Remove Goblin 1 from the fight?")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        await pilot.press(key)
        await wait_for(pilot, lambda: app.answer is not NO_ANSWER, f"an answer to {key}")
        assert app.answer is answer
        assert not isinstance(app.screen, ConfirmScreen)


async def test_other_keys_leave_the_question_open() -> None:
    app = Asking("Delete fight (fight.toml)? This cannot be undone.")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        await pilot.press("x", "q", "space", "Y")
        await pilot.press("y")
        await wait_for(pilot, lambda: app.answer is not NO_ANSWER, "an answer")
        assert app.answer is True  # only the y answered


async def test_the_question_is_plain_text_with_its_keys_said_under_it() -> None:
    question = "Remove [bold]Grok[/] \x1b[2J from the fight?"
    app = Asking(question)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        screen = app.screen
        asked = screen.query_one(".dialog .question", Label)
        shown = str(asked.render())
        assert "[bold]Grok[/]" in shown  # brackets are text, not markup
        assert "\x1b" not in shown and "2J from the fight?" in shown  # the escape made visible, the rest kept
        hint = screen.query_one(".dialog .hint", Label)
        assert str(hint.render()) == "y / enter: yes    n / esc: no"
