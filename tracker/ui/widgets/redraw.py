"""Redraw a widget after a change only when what it shows changed.

Every change (the GM's own, or one a viewer follows) reaches the encounter screen's
panes as one signal (`tracker.ui.live.Changed`), and most changes touch one or two
panes: a note changes the log, not the roster, the timeline, the clock or the detail
panel. Repainting a pane costs Textual a render of each of its lines (and a
`Static.update` a layout of the whole screen), times every viewer on the table. So a
pane first asks whether the events could change it at all (`touches`), and then
compares what it would show with what it showed and repaints only on a difference
(issue 10 item 7: a change on 20 viewers' screens).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.strip import Strip
from textual.widgets import Static

from tracker.ui.live import Changed

# Event kinds that only add a line to the combat log: a note and a table roll change no
# combatant, action, clock or proposal, so no pane but the log shows them.
LOG_ONLY = frozenset({"note", "roll"})


def touches(change: Changed) -> bool:
    """Whether `change` may alter a pane other than the log (which takes every change,
    reading only the entries it has not shown)."""
    return not change.only(LOG_ONLY)


def update_if_changed(widget: Static, text: Text) -> None:
    """`widget.update(text)` unless the widget already shows exactly this text."""
    # Text's own == looks only at the characters and spans, not the text's base style.
    key = (text.plain, tuple(text.spans), str(text.style), text.no_wrap, text.overflow, text.justify)
    if getattr(widget, "_redraw_shown", None) == key:
        return
    widget._redraw_shown = key  # type: ignore[attr-defined]
    widget.update(text)


def refresh_if_changed(widget: Any) -> None:
    """`widget.refresh()` for a line-API widget unless every line on screen (and its
    scroll and sizes) is what the last check saw. Whatever else repaints the widget
    (scrolling, selecting) renders the current state, so a later check compares against
    a state that was on screen or a newer one, never a stale one it would skip."""
    lines: tuple[Strip, ...] = tuple(widget.render_line(y) for y in range(widget.size.height))
    key = (widget.size, widget.virtual_size, widget.scroll_offset, lines)
    if getattr(widget, "_redraw_key", None) == key:
        return
    widget._redraw_key = key
    widget.refresh()
