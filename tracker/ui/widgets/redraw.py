"""Redraw a widget after a change only when what it shows changed.

Every change (the GM's own, or one a viewer follows) reaches the encounter screen's
panes as one signal (`tracker.play.live.Changed`), and most changes touch one or two
panes: a note changes the log, not the roster, the timeline, the clock or the detail
panel. Repainting a pane costs Textual a render of each of its lines (and a
`Static.update` a layout of the whole screen), times every viewer on the table. So a
pane first asks whether the events could change it at all (`touches`), and then
compares what it would show with what it showed and repaints only on a difference
(issue 10 item 7: a change on 20 viewers' screens): only the rows that differ, and
without laying out the screen while the pane's size stays as it was (issue 32: one
frame per change, of the lines it touches).

Decisions: docs/decisions/0013-combat-log.md (drawing without a layout)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Self

from rich.text import Text
from textual.geometry import Region, Size
from rich.segment import Segment
from textual.scroll_view import ScrollView
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.strip import Strip
from textual.widgets import Static

from tracker.play.live import Changed, Live

# Event kinds that only add a line to the combat log: a note and a table roll change no
# combatant, action, clock or proposal, so no pane but the log shows them.
LOG_ONLY = frozenset({"note", "roll"})


def touches(change: Changed) -> bool:
    """Whether `change` may alter a pane other than the log (which takes every change,
    reading only the entries it has not shown)."""
    return not change.only(LOG_ONLY)


class LivePane(Static):
    """A pane drawn whole from the open fight, drawn again when a change touches it.
    Each kind of pane says how it draws itself (`show`)."""

    show: Callable[[], None]

    def __init__(self, live: Live, **kwargs: object) -> None:
        super().__init__("", **kwargs)  # type: ignore[arg-type]
        self.live = live

    def changed(self, change: Changed) -> None:
        if touches(change):
            self.show()


def update_if_changed(widget: Static, text: Text) -> None:
    """`widget.update(text)` unless the widget already shows exactly this text; the
    screen is laid out again only if the widget's size may change with it (an auto
    height whose text now needs more or fewer rows), not for every new text."""
    # Text's own == looks only at the characters and spans, not the text's base style.
    key = (text.plain, tuple(text.spans), str(text.style), text.no_wrap, text.overflow, text.justify)
    if getattr(widget, "_redraw_shown", None) == key:
        return
    widget._redraw_shown = key  # type: ignore[attr-defined]
    styles = widget.styles
    if hidden(widget):
        widget.update(text, layout=False)  # laid out when it is shown again
        return
    if not widget.size.area or styles.width is not None and styles.width.is_auto:
        widget.update(text)  # not laid out yet, or its width follows its text
        return
    width, height = widget.content_region.width, widget.content_region.height
    widget.update(text, layout=False)
    if styles.height is not None and styles.height.is_auto and widget.get_content_height(widget.content_region.size, widget.app.size, width) != height:
        widget.refresh(layout=True)


def hidden(widget: Any) -> bool:
    """Not on screen: it or a pane it is in is not displayed (the glance roster hides the
    detail panel and the log). A hidden widget is laid out when it is shown again."""
    return any(not node.display for node in widget.ancestors_with_self)


def set_virtual_height(widget: Any, rows: int) -> bool:
    """Make a line-API pane `rows` rows tall (its `virtual_size`); whether that takes a
    layout of the screen.

    Textual lays out the whole screen when a widget's `virtual_size` changes (every
    pane's every line composed again, and a scroll to the end only a frame later), yet
    a pane's size on screen does not depend on its rows. So while its scrollbar stays
    as it was (shown, or not), the height is set without a layout and the scrollbar is
    told the new height itself (what the layout would have told it): the scrollbar is
    right and the frame is the pane's alone. When the scrollbar appears or goes (or
    before the first layout), the layout runs as before."""
    size = Size(widget.size.width, rows)
    if size == widget.virtual_size:
        return False
    if hidden(widget):
        widget.set_reactive(type(widget).virtual_size, size)
        return False
    height = widget.container_size.height
    # (Its width only matters to a pane that scrolls sideways.)
    same_width = widget.virtual_size.width == size.width or widget.styles.overflow_x == "hidden"
    if height and same_width and (rows > height) == (widget.virtual_size.height > height):
        widget.set_reactive(type(widget).virtual_size, size)
        if widget.show_vertical_scrollbar:
            place_scrollbar(widget, rows=rows)
        # Fewer rows: back within them, as the layout would (Widget._scroll_update).
        widget.scroll_y = widget.validate_scroll_y(widget.scroll_y)
        return False
    widget.virtual_size = size
    return True


def _thumb(bar: ScrollBar) -> list[Segment]:
    drawn = ScrollBarRender.render_bar(size=bar.size.height, virtual_size=bar.window_virtual_size, window_size=bar.window_size, position=bar.position, thickness=bar.thickness)
    return list(drawn.segments)


def place_scrollbar(widget: Any, rows: int | None = None, position: float | None = None) -> None:
    """Tell a pane's vertical scrollbar the pane's height in rows and/or where it is
    scrolled to, and redraw the scrollbar only if its thumb moves on screen: one more
    row in a long log moves the thumb by a fraction of the eighth of a cell it is
    drawn in, so most new entries leave the scrollbar as it was drawn. Within
    `scrollbar_once`, the redraw waits for the end of it."""
    bar = widget.vertical_scrollbar
    held = getattr(widget, "_redraw_bar", None) is not None
    before = None if held else _thumb(bar)
    if rows is not None:
        bar.set_reactive(ScrollBar.window_virtual_size, rows)
    if position is not None:
        bar.set_reactive(ScrollBar.position, bar.validate_position(position))
    if not held and _thumb(bar) != before:
        bar.refresh()


@contextmanager
def scrollbar_once(widget: Any) -> Iterator[None]:
    """A change that both grows a pane and scrolls it moves the thumb twice (down as
    the pane grows, back as it scrolls to the end): the scrollbar is compared with
    what it showed before the change, and redrawn once, only if it differs."""
    shown = widget.show_vertical_scrollbar
    widget._redraw_bar = _thumb(widget.vertical_scrollbar) if shown else []
    try:
        yield
    finally:
        before, widget._redraw_bar = widget._redraw_bar, None
        if widget.show_vertical_scrollbar and (not shown or _thumb(widget.vertical_scrollbar) != before):
            widget.vertical_scrollbar.refresh()


class LineDiffed(ScrollView):
    """A line-API pane that `refresh_if_changed` redraws line by line: whatever else
    repaints it (a scroll, a selection moved, a resize) makes the next check draw it
    whole, since the lines it remembers may no longer be what is on screen."""

    _redraw_lines: tuple[Any, tuple[Strip, ...]] | None = None
    _redraw_own = False

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False) -> Self:
        if not self._redraw_own:
            self._redraw_lines = None
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)


def refresh_if_changed(widget: LineDiffed) -> None:
    """Redraw the lines of a line-API pane that differ from what it showed: none when
    every line on screen (and its scroll and sizes) is what the last check drew, only
    the changed rows when the scroll and sizes are the same (a damage changes one
    combatant's row, not the roster), else the whole pane."""
    lines: tuple[Strip, ...] = tuple(widget.render_line(y) for y in range(widget.size.height))
    key = (widget.size, widget.virtual_size, widget.scroll_offset)
    shown = widget._redraw_lines
    if shown is not None and shown == (key, lines):
        return
    widget._redraw_own = True
    try:
        if shown is None or shown[0] != key:
            widget.refresh()
        else:
            changed = [y for y, (old, new) in enumerate(zip(shown[1], lines)) if old != new]
            width = widget.size.width
            start = 0
            while start < len(changed):  # one region per run of changed rows
                end = start
                while end + 1 < len(changed) and changed[end + 1] == changed[end] + 1:
                    end += 1
                widget.refresh(Region(0, changed[start], width, changed[end] - changed[start] + 1))
                start = end + 1
    finally:
        widget._redraw_own = False
    widget._redraw_lines = (key, lines)
