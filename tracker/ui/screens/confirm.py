"""A yes/no question. `y` or enter confirms, `n` or escape declines.

The question quotes names (of encounters, combatants): shown as plain text, never markup.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label

from tracker.engine.text import printable


class ConfirmScreen(ModalScreen[bool]):
    BINDINGS = [
        Binding("y,enter", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(Text(printable(self.question)), classes="question")
            yield Label("y / enter: yes    n / esc: no", classes="hint")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
