"""The history view: the effective changes, newest first, in words.

The list is what `u` would take back, in order: the top row goes first. Each row
says who made the change (in a shared file), the segment it was made on and what it
did, from the same `describe` that `u` and `r` use ("Seraph declares punch against Sphinx").
Undone changes are not listed (they are not in effect); `r` brings them back.
Everything is plain text, never markup, with control characters made visible.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from tracker.reading.wording import history
from tracker.engine.text import printable
from tracker.play.live import Live
from tracker.reading.viewing import sight
from tracker.ui.widgets.footer import KeyFooter


def history_rows(live: Live) -> list[Text]:
    rows = []
    enc = live.encounter
    shown: dict[int, str] | None = None
    if live.viewer:
        # A player or a viewer: only changes that wrote a line they may read (no hidden
        # combatant's action, no secret roll, no other player's proposal), told in the
        # words of that line as they may read it (figures withheld as the table says),
        # never the change itself (`damage Lurker 6`).
        view = sight(enc, live.seen_as)
        shown = {}
        for e in view.log():
            shown.setdefault(e.seq, printable(view.text(e)))
    for line in history(enc):
        if shown is not None and line.seq not in shown:
            continue
        text = line.text if shown is None else shown[line.seq]
        at = f"{line.segment:>5}" if line.segment is not None else "     "
        by = f" ({line.by})" if line.by else ""
        rows.append(Text.assemble((f"#{line.seq:<4} ", "dim"), (f"{at}  ", "bold"), text, (by, "dim")))
    return rows


class HistoryScreen(Screen[None]):
    BINDINGS = [Binding("escape,H", "close", "Back")]

    def __init__(self, live: Live) -> None:
        super().__init__()
        self.live = live

    def compose(self) -> ComposeResult:
        with Vertical(id="history"):
            yield Label(Text(printable(f"History · {self.live.encounter.setup.name}: newest first, what u takes back")), classes="title")
            yield OptionList(id="history-list")
        yield KeyFooter()

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        rows = history_rows(self.live)
        for row in rows:
            options.add_option(Option(row))
        if not rows:
            options.add_option(Option(Text("(no changes yet)"), disabled=True))
        options.focus()

    def action_close(self) -> None:
        self.dismiss(None)
