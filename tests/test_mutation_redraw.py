"""Direct tests of tracker.ui.widgets.redraw, worked from its docstrings: a pane asks
whether a change could alter it (`touches`: a note or a table roll alone only adds a
log line), repaints only on a difference (`update_if_changed`), lays the screen out only
when its size may change with the text, sets a line-API pane's height without a layout
while its scrollbar stays as it was (`set_virtual_height`), redraws the scrollbar only
when its thumb moves on screen (`place_scrollbar`, `scrollbar_once`), and redraws only
the rows of a line-API pane that differ (`refresh_if_changed`). Each widget here
records the redraws asked of it, which is what the module saves."""

from __future__ import annotations

from typing import Any

import pytest
from rich.segment import Segment
from rich.text import Text
from textual.app import App, ComposeResult
from textual.containers import Container
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Static

from tracker.engine.model import Event
from tracker.play.live import Changed
from tracker.ui.widgets import redraw
from tracker.ui.widgets.redraw import (
    LineDiffed,
    LivePane,
    hidden,
    place_scrollbar,
    refresh_if_changed,
    scrollbar_once,
    set_virtual_height,
    touches,
    update_if_changed,
)
from tests.ui import wait_for

pytestmark = pytest.mark.ui


def _event(kind: str) -> Event:
    return Event(kind, {}, seq=1)


# ------------------------------------------------------------------ touches, LivePane
@pytest.mark.parametrize(
    ("kinds", "whole", "expected"),
    [
        (("note",), False, False),  # "a note ... change[s] no combatant, action, clock or proposal"
        (("roll",), False, False),
        (("note", "roll"), False, False),
        (("damage",), False, True),
        (("note", "damage"), False, True),
        (("note",), True, True),  # the file was read again: anything may differ
        ((), True, True),
    ],
)
def test_only_a_note_or_a_table_roll_leaves_the_panes_but_the_log_alone(kinds: tuple[str, ...], whole: bool, expected: bool) -> None:
    assert touches(Changed(tuple(_event(k) for k in kinds), whole=whole)) is expected
    assert redraw.LOG_ONLY == frozenset({"note", "roll"})


class _Shown(LivePane):
    def __init__(self, live: Any) -> None:
        super().__init__(live, id="shown")
        self.shows = 0

    def show(self) -> None:
        self.shows += 1


def test_a_live_pane_shows_itself_again_only_for_a_change_that_touches_it() -> None:
    live = object()
    pane = _Shown(live)
    assert pane.live is live and pane.id == "shown"
    assert str(pane.render()) == ""  # nothing drawn before its first show
    pane.changed(Changed((_event("note"),)))
    assert pane.shows == 0
    pane.changed(Changed((_event("damage"),)))
    assert pane.shows == 1


# ------------------------------------------------------------------ update_if_changed
class _Recorded(Static):
    """A Static that records each update (the text and whether it lays out) and each
    refresh that asks for a layout."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        self.updates: list[tuple[str, bool]] = []
        self.layouts = 0

    def update(self, content: Any = "", *, layout: bool = True) -> None:
        self.updates.append((str(content), layout))
        super().update(content, layout=layout)

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False) -> Any:
        if layout:
            self.layouts += 1
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)


class _Panes(App[None]):
    CSS = """
    #fixed { width: 20; height: 3; }
    #auto-height { width: 10; height: auto; }
    #auto-width { width: auto; height: 1; }
    #box { height: 3; }
    """

    def compose(self) -> ComposeResult:
        yield _Recorded(id="fixed")
        yield _Recorded(id="auto-height")
        yield _Recorded(id="auto-width")
        with Container(id="box"):
            yield _Recorded(id="inside")


async def _laid_out(pilot: Any, *widgets: Static) -> None:
    await wait_for(pilot, lambda: all(w.size.area for w in widgets), "the panes laid out")
    for widget in widgets:
        widget.updates.clear()  # type: ignore[attr-defined]
        widget.layouts = 0  # type: ignore[attr-defined]


async def test_the_same_text_twice_is_drawn_once_and_a_new_style_or_wrap_is_a_new_text() -> None:
    app = _Panes()
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one("#fixed", _Recorded)
        await _laid_out(pilot, pane)
        update_if_changed(pane, Text("Seraph 10/10"))
        update_if_changed(pane, Text("Seraph 10/10"))
        assert pane.updates == [("Seraph 10/10", False)]  # a fixed size: never laid out
        variants = [
            Text("Seraph 10/10", style="bold"),  # the base style, which Text's == ignores
            Text("Seraph 10/10", style="bold", no_wrap=True),
            Text("Seraph 10/10", style="bold", no_wrap=True, overflow="ellipsis"),
            Text("Seraph 10/10", style="bold", no_wrap=True, overflow="ellipsis", justify="right"),
        ]
        spanned = Text("Seraph 10/10", style="bold", no_wrap=True, overflow="ellipsis", justify="right")
        spanned.stylize("red", 0, 6)
        for text in [*variants, spanned, Text("Seraph 7/10")]:
            update_if_changed(pane, text)
            update_if_changed(pane, text.copy())
        assert len(pane.updates) == 1 + len(variants) + 2
        assert pane.layouts == 0
        await wait_for(pilot, lambda: "Seraph 7/10" in str(pane.render()), "the last text shown")


async def test_an_auto_height_pane_is_laid_out_only_when_its_rows_change() -> None:
    app = _Panes()
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one("#auto-height", _Recorded)
        update_if_changed(pane, Text("one"))
        await wait_for(pilot, lambda: pane.size.height == 1, "one row")
        pane.updates.clear()
        pane.layouts = 0
        update_if_changed(pane, Text("two"))  # still one row of ten
        assert pane.updates == [("two", False)] and pane.layouts == 0
        update_if_changed(pane, Text("aaaa bbbb cccc"))  # two rows of ten
        assert pane.updates[-1] == ("aaaa bbbb cccc", False)
        assert pane.layouts == 1
        await wait_for(pilot, lambda: pane.size.height == 2, "the pane grown to two rows")


async def test_a_pane_whose_width_follows_its_text_or_not_laid_out_yet_is_laid_out() -> None:
    app = _Panes()
    async with app.run_test(size=(80, 24)) as pilot:
        wide = app.query_one("#auto-width", _Recorded)
        update_if_changed(wide, Text("Bo"))
        await wait_for(pilot, lambda: wide.size.width == 2, "laid out at the width of its text")
        wide.updates.clear()
        update_if_changed(wide, Text("Sphinx"))  # a pane on screen, its width its text's
        assert wide.updates == [("Sphinx", True)]
        await wait_for(pilot, lambda: wide.size.width == 6, "the width of its text")
        fresh = _Recorded()  # never mounted: no size yet
        update_if_changed(fresh, Text("first"))
        assert fresh.updates == [("first", True)]


async def test_a_hidden_pane_takes_its_text_without_a_layout_and_shows_it_when_shown() -> None:
    app = _Panes()
    async with app.run_test(size=(80, 24)) as pilot:
        box, inside = app.query_one("#box", Container), app.query_one("#inside", _Recorded)
        await _laid_out(pilot, inside)
        assert not hidden(inside)
        box.display = False
        assert hidden(inside) and hidden(box) and not hidden(app.query_one("#fixed"))
        update_if_changed(inside, Text("while hidden"))
        assert inside.updates == [("while hidden", False)] and inside.layouts == 0
        box.display = True
        await wait_for(pilot, lambda: "while hidden" in str(inside.render()), "the text shown with its pane")


# ------------------------------------------------------------------ line-API panes
class _Lines(LineDiffed):
    """A line-API pane of numbered rows; `redrawn` holds the regions each redraw asked
    for (an empty tuple: the whole pane), as `ScrollView.refresh` received them."""

    DEFAULT_CSS = "_Lines { height: 5; width: 20; overflow-x: hidden; }"

    def __init__(self, rows: list[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rows = rows
        self.redrawn: list[tuple[Any, ...]] = []

    def render_line(self, y: int) -> Strip:
        row = int(self.scroll_y) + y
        text = self.rows[row] if row < len(self.rows) else ""
        return Strip([Segment(text.ljust(self.size.width)[: self.size.width])])



@pytest.fixture(autouse=True)
def _redraws_recorded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each redraw a `_Lines` asks of Textual, below `LineDiffed.refresh`: a redraw of its
    lines repaints them and never lays out or composes the screen again."""
    original = ScrollView.refresh

    def recorded(self: Any, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False) -> Any:
        if isinstance(self, _Lines):
            self.redrawn.append(regions if (repaint, layout, recompose) == (True, False, False) else ("not a repaint alone", repaint, layout, recompose))
        return original(self, *regions, repaint=repaint, layout=layout, recompose=recompose)

    monkeypatch.setattr(ScrollView, "refresh", recorded)


class _LinesApp(App[None]):
    def __init__(self, rows: int) -> None:
        super().__init__()
        self.pane = _Lines([f"row {i}" for i in range(rows)])

    def compose(self) -> ComposeResult:
        yield self.pane


async def _ready(pilot: Any, pane: _Lines, rows: int) -> None:
    await wait_for(pilot, lambda: pane.size.area > 0, "the pane laid out")
    set_virtual_height(pane, rows)
    shown = rows > pane.size.height
    bar = pane.vertical_scrollbar
    await wait_for(pilot, lambda: pane.virtual_size.height == rows and pane.show_vertical_scrollbar == shown and (not shown or bar.size.height == pane.size.height and bar.window_size == pane.size.height), "its rows and scrollbar laid out")
    await pilot.app.workers.wait_for_complete()
    refresh_if_changed(pane)


def _redraws(pane: _Lines) -> list[tuple[Any, ...]]:
    """The redraws `refresh_if_changed` asks for now."""
    pane.redrawn.clear()
    refresh_if_changed(pane)
    return pane.redrawn


async def test_a_line_pane_redraws_only_each_run_of_changed_rows() -> None:
    app = _LinesApp(5)
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.pane
        await _ready(pilot, pane, 5)
        assert _redraws(pane) == []  # every line as the last check drew it
        pane.rows[1], pane.rows[2], pane.rows[4] = "one", "two", "four"
        assert _redraws(pane) == [(Region(0, 1, 20, 2),), (Region(0, 4, 20, 1),)]
        pane.rows[0] = "zero"
        assert _redraws(pane) == [(Region(0, 0, 20, 1),)]
        pane.rows[0], pane.rows[2], pane.rows[3] = "0", "2", "3"
        assert _redraws(pane) == [(Region(0, 0, 20, 1),), (Region(0, 2, 20, 2),)]
        assert _redraws(pane) == []


async def test_a_line_pane_repainted_otherwise_or_scrolled_is_drawn_whole() -> None:
    app = _LinesApp(12)
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.pane
        await _ready(pilot, pane, 12)
        pane.refresh()  # a repaint not of its own: the lines it remembers are forgotten
        assert _redraws(pane) == [()]
        pane.scroll_to(y=3, animate=False)
        await wait_for(pilot, lambda: pane.scroll_y == 3, "scrolled")
        pane.rows[3] = "changed"
        assert _redraws(pane) == [()]  # another scroll: the whole pane
        assert _redraws(pane) == []  # its own redraws keep what it remembers
        pane.rows.append("row 12")  # a row below the view, the scrollbar as it was: no layout
        assert set_virtual_height(pane, 13) is False
        assert _redraws(pane) == [()]  # a new height: the whole pane, though no row on screen differs


# ------------------------------------------------------------------ set_virtual_height
async def test_rows_within_the_scrollbar_as_it_was_take_no_layout() -> None:
    app = _LinesApp(40)
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.pane
        await _ready(pilot, pane, 10)  # more than the 5 rows shown: a scrollbar
        assert pane.show_vertical_scrollbar
        assert set_virtual_height(pane, 10) is False and pane.virtual_size == Size(pane.size.width, 10)
        assert set_virtual_height(pane, 30) is False
        assert pane.virtual_size.height == 30 and pane.vertical_scrollbar.window_virtual_size == 30
        pane.scroll_to(y=25, animate=False)
        await wait_for(pilot, lambda: pane.scroll_y == 25, "scrolled to the end")
        assert set_virtual_height(pane, 8) is False
        assert pane.scroll_y == 3  # back within the 8 rows, 5 of them shown
        assert pane.vertical_scrollbar.window_virtual_size == 8


async def test_rows_that_bring_or_take_the_scrollbar_are_laid_out() -> None:
    app = _LinesApp(40)
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.pane
        await _ready(pilot, pane, 3)
        assert not pane.show_vertical_scrollbar
        assert set_virtual_height(pane, 4) is False  # still within the 5 rows shown
        assert set_virtual_height(pane, 5) is False  # exactly the rows shown: no scrollbar yet
        assert set_virtual_height(pane, 6) is True
        await wait_for(pilot, lambda: pane.show_vertical_scrollbar, "the scrollbar shown")
        assert set_virtual_height(pane, 5) is True


async def test_a_hidden_line_pane_or_one_not_laid_out_gets_its_rows_without_a_frame() -> None:
    app = _LinesApp(40)
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.pane
        await _ready(pilot, pane, 3)
        pane.display = False
        assert set_virtual_height(pane, 30) is False
        assert pane.virtual_size.height == 30
        assert pane.vertical_scrollbar.window_virtual_size != 30  # told when shown again
        pane.display = True
        await wait_for(pilot, lambda: pane.show_vertical_scrollbar, "laid out once shown")
    unmounted = _Lines([])
    assert set_virtual_height(unmounted, 4) is True  # no container yet: the layout runs


async def test_a_new_width_is_laid_out_unless_the_pane_never_scrolls_sideways() -> None:
    app = _LinesApp(40)
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.pane
        await _ready(pilot, pane, 10)
        pane.set_reactive(type(pane).virtual_size, Size(7, 10))  # as if laid out at another width
        assert set_virtual_height(pane, 11) is False  # overflow-x hidden: the width does not matter
        pane.set_reactive(type(pane).virtual_size, Size(7, 10))
        pane.styles.overflow_x = "auto"
        assert set_virtual_height(pane, 11) is True


# ------------------------------------------------------------------ the scrollbar
class _BarCount:
    def __init__(self, bar: Any) -> None:
        self.count = 0
        original = bar.refresh

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.count += 1
            return original(*args, **kwargs)

        bar.refresh = counted


async def test_the_scrollbar_is_redrawn_only_when_its_thumb_moves_on_screen() -> None:
    app = _LinesApp(2000)
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.pane
        await _ready(pilot, pane, 1000)
        bar = pane.vertical_scrollbar
        redraws = _BarCount(bar)
        place_scrollbar(pane, rows=1001)  # one row more of a thousand: the same eighths
        assert bar.window_virtual_size == 1001 and redraws.count == 0
        place_scrollbar(pane, rows=10)  # a thumb half the bar
        assert bar.window_virtual_size == 10 and redraws.count == 1
        place_scrollbar(pane, position=5)
        assert bar.position == 5 and redraws.count == 2
        place_scrollbar(pane, position=5)
        assert redraws.count == 2
        place_scrollbar(pane, position=2.3)  # validated as the bar's own setter would: to an eighth
        assert bar.position == 2.25 and redraws.count == 3


async def test_a_change_that_grows_and_scrolls_redraws_the_scrollbar_once_or_not_at_all() -> None:
    app = _LinesApp(2000)
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.pane
        await _ready(pilot, pane, 10)
        bar = pane.vertical_scrollbar
        redraws = _BarCount(bar)
        with scrollbar_once(pane):
            place_scrollbar(pane, rows=20)
            place_scrollbar(pane, position=15)
            assert redraws.count == 0  # held until the end
        assert redraws.count == 1 and bar.position == 15
        with scrollbar_once(pane):
            place_scrollbar(pane, rows=30)  # down as it grows ...
            place_scrollbar(pane, rows=20)  # ... and back: the thumb as it was
        assert redraws.count == 1
        place_scrollbar(pane, rows=2000)  # after the change: at once again
        assert redraws.count == 2


async def test_a_scrollbar_that_appears_within_the_change_is_drawn() -> None:
    app = _LinesApp(2000)
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.pane
        await _ready(pilot, pane, 3)
        assert not pane.show_vertical_scrollbar
        bar = pane.vertical_scrollbar
        redraws = _BarCount(bar)
        with scrollbar_once(pane):
            pane.show_vertical_scrollbar = True
        assert redraws.count == 1


def test_the_thumb_is_the_bar_as_textual_draws_it() -> None:
    class Bar:
        size = Size(1, 10)  # a bar ten rows tall, one cell wide
        window_virtual_size = 100
        window_size = 10
        position = 45.0
        thickness = 1

    def drawn(bar: Any) -> str:
        return "".join(segment.text for segment in redraw._thumb(bar))

    # 10 rows of 100 shown: a thumb one row tall, 45 rows down is 4.5 rows of the bar's
    # ten, so it covers the lower half of row 4 and the upper half of row 5.
    assert drawn(Bar()) == "    ▄▄    "
    thumb = [segment for segment in redraw._thumb(Bar()) if segment.text != " "]
    assert len(thumb) == 2 and thumb[0].style != thumb[1].style  # half a cell each way
    Bar.position = 0.0
    top = redraw._thumb(Bar())
    assert [segment.style == top[0].style for segment in top] == [True] + [False] * 9  # the first row alone
    Bar.window_size = 50
    assert sum(segment.style == top[0].style for segment in redraw._thumb(Bar())) == 5  # half the view: half the bar
    Bar.thickness = 2  # the bar as wide as the pane's scrollbar is set
    assert [segment.text for segment in redraw._thumb(Bar())] == ["  "] * 10
