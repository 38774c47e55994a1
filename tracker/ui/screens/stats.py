"""The stats screen: after the fight (or during it), the figures and charts of
`tracker stats` for the open encounter, as this session's role may see them.

The figures are computed in a worker thread (folding the log again takes time on a
long fight) by tracker.reading.stats, and drawn by tracker.reading.charts at the screen's width, the
same text `tracker stats` prints, so the two never disagree. A GM sees everything; a
viewer the viewer variant (hidden combatants left out, withheld figures named); a
player that and its own combatants in full. The text is plain (never markup) with control characters made
visible. It is a snapshot of the moment it was opened: `g` computes it again.
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Label, Static

from tracker.reading.charts import report_text
from tracker.reading.stats import FightStats, fight_stats
from tracker.engine.text import printable, printable_lines
from tracker.play.live import Live
from tracker.ui.background import in_thread
from tracker.ui.widgets.footer import KeyFooter


class StatsScreen(Screen[None]):
    BINDINGS = [Binding("escape", "close", "Back"), Binding("g", "again", "Again")]

    def __init__(self, live: Live) -> None:
        super().__init__()
        self.live = live
        self.figures: FightStats | None = None
        self.shown_text = ""  # what the body shows (tests read it)

    def compose(self) -> ComposeResult:
        who = "as viewers see it" if self.live.viewer else "GM's view"
        with Vertical(id="stats"):
            yield Label(Text(printable(f"After the fight · {self.live.encounter.setup.name} ({who})"), no_wrap=True, overflow="ellipsis"), classes="title")
            with VerticalScroll(id="stats-scroll"):
                yield Static(Text("computing…"), id="stats-body")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#stats-scroll").focus()
        self.action_again()

    def action_again(self) -> None:
        encounter, viewer, role = self.live.encounter, self.live.viewer, self.live.seen_as

        def compute() -> FightStats | str:
            try:
                return fight_stats(encounter, viewer=viewer, role=role)
            except Exception as exc:  # noqa: BLE001 - said on the screen, never a crash; the fight is untouched
                return f"could not be computed: {type(exc).__name__}: {exc}"

        # `g` pressed again before the figures came: only the last computation is drawn.
        in_thread(self, compute, self._computed, group="stats", latest=True)

    def _computed(self, figures: FightStats | str) -> None:
        if isinstance(figures, str):
            self._show(figures)
            return
        self.figures = figures
        self._draw()

    def on_resize(self, event: events.Resize) -> None:
        if self.figures is not None:
            self._draw()

    def _draw(self) -> None:
        assert self.figures is not None
        width = max(40, self.size.width - 2)  # the scroll bar's column
        self._show(report_text(self.figures, width))

    def _show(self, text: str) -> None:
        self.shown_text = text
        self.query_one("#stats-body", Static).update(Text(printable_lines(text), no_wrap=True, overflow="crop"))

    def action_close(self) -> None:
        self.dismiss(None)
