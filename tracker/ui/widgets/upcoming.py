"""The encounter screen's upcoming pane: what is due next, soonest first, as the reader
may see it, with the timeline's legend under it."""

from __future__ import annotations

from rich.text import Text
from tracker.engine.text import printable, wrap
from tracker.reading.glyphs import LEGEND
from tracker.reading.viewing import sight
from tracker.ui.widgets.redraw import LivePane, update_if_changed


class UpcomingView(LivePane):
    """What is due next, soonest first (`encounter.upcoming()`)."""

    def on_resize(self) -> None:
        self.show()

    def show(self) -> None:
        enc = self.live.encounter
        legend = LEGEND.split("\n")
        room = max(2, self.content_region.height - len(legend))
        lines = [Text("Upcoming", style="bold")]
        width = max(10, self.content_region.width - 5)
        # As many as the rows could hold: one more than fits, to know a "…" is due.
        for segment, what in sight(enc, self.live.seen_as).upcoming(limit=room):
            # Wrapped under itself, never cut: "  30 Sphinx's punch" / "     completes".
            wrapped = wrap(printable(what), width)
            if len(lines) + len(wrapped) > room:
                if len(lines) < room:
                    lines.append(Text("     …", style="dim"))
                break
            lines.append(Text.assemble((f"{segment:>4} ", "bold"), wrapped[0]))
            lines.extend(Text("     " + more) for more in wrapped[1:])
        if len(lines) == 1:
            lines.append(Text("nothing scheduled"))
        while len(lines) < room:
            lines.append(Text(""))
        lines.extend(Text(line, style="dim") for line in legend)
        text = Text("\n").join(lines)
        text.no_wrap, text.overflow = True, "ellipsis"
        update_if_changed(self, text)
