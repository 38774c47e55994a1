"""The clock bar: encounter name, ruleset, and the segment clock in both units."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from tracker.ui.live import Live
from tracker.ui.widgets.redraw import update_if_changed


class ClockBar(Static):
    """`Seraph vs Sphinx (brandx) · segment 137 · round 3, segment 37`; marks viewers."""

    def __init__(self, live: Live, **kwargs: object) -> None:
        super().__init__("", **kwargs)  # type: ignore[arg-type]
        self.live = live

    def on_mount(self) -> None:
        self.show()

    def show(self) -> None:
        enc = self.live.encounter
        text = Text()
        text.append(enc.time.clock(enc.now), style="bold")
        text.append(f"  {enc.setup.name} ({enc.setup.ruleset})")
        if self.live.viewer:
            text.append("  [viewer]", style="italic")
        update_if_changed(self, text)
