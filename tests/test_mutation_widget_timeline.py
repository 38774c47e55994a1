"""Direct tests of tracker.ui.widgets.timeline (the timeline strip), worked from its
docstring and docs/decisions/0034-timeline-glyphs.md: a row per combatant (those the
screen may see) over a window of segments around now, under an axis of segment labels;
each action a bar from its start to its completion, active `▀`, passive `▄` (`█` where
an active one is drawn over it), maintained `▒` (`▓` over passive), capped `┤` where it
completes, `×` where it was aborted, completed ones drawn as done; now marked `▼` on the
axis (over a label the digit stays, in the now colour) and `│` in every row (or the
glyph there reversed); a condition `┄` from now to the segment it ends on, in the free
cells, and the name marked `*`; a round's first segment `┊`; a replay's next moment `▽`
(its bars landing there marked). A click on a row names its combatant; left/right pan.
The action index keeps each actor's actions, extended as the log grows and rebuilt when
it is refolded or the roster is rebuilt.

Every style of the strip is given its own colour here, so a cell's class is read back
from its colour."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from rich.style import Style
from textual.strip import Strip

from tracker.engine import Action, Event
from tracker.engine.model import Resolution
from tracker.play.live import Changed, Live
from tracker.reading.roles import Role
from tracker.ui.widgets.timeline import NAME, ActionIndex, TimelineView, glyph
from tests.test_ui_app import make_file
from tests.ui import PaneApp, wait_for

pytestmark = pytest.mark.ui

WAIT = 10.0
COLOURS = {
    "#ffffff": "base",
    "#a00001": "axis",
    "#a00002": "now",
    "#a00003": "done",
    "#a00004": "active",
    "#a00005": "passive",
    "#a00006": "maintained",
    "#a00008": "round",
    "#a00009": "condition",
    "#a0000a": "coming",
}


class Strips(PaneApp):
    """The pane alone, each of its styles in a colour of its own."""

    CSS = """
    TimelineView { background: #000000; color: #ffffff; scrollbar-size: 0 0; }
    TimelineView > .timeline--axis { color: #a00001; }
    TimelineView > .timeline--now { color: #a00002; text-style: bold; }
    TimelineView > .timeline--done { color: #a00003; }
    TimelineView > .timeline--active { color: #a00004; }
    TimelineView > .timeline--passive { color: #a00005; }
    TimelineView > .timeline--maintained { color: #a00006; }
    TimelineView > .timeline--selected { text-style: underline; }
    TimelineView > .timeline--round { color: #a00008; }
    TimelineView > .timeline--condition { color: #a00009; }
    TimelineView > .timeline--coming { color: #a0000a; text-style: italic; }
    """

    def __init__(self, pane: Any, width: int, height: int) -> None:
        super().__init__(pane, width, height)
        self.clicked: list[str] = []

    def on_timeline_view_clicked(self, message: TimelineView.Clicked) -> None:
        self.clicked.append(message.name)


class Coming(Live):
    """A fight as a replay shows it: `next_moment` is about to happen."""

    next_moment: int | None = None

    @property
    def coming(self) -> int | None:
        return self.next_moment


def kind(style: Style) -> str:
    """The class a cell was drawn in, by its colour, and its marks."""
    assert style.color is not None and style.bgcolor is not None and style.bgcolor.triplet is not None
    assert style.bgcolor.triplet.hex == "#000000"  # every cell over the pane's background
    assert style.color.triplet is not None
    name = COLOURS[style.color.triplet.hex]
    marks = "".join(mark for mark, on in (("!", style.reverse), ("b", style.bold), ("i", style.italic), ("u", style.underline)) if on)
    return name + marks


def chars(strip: Strip) -> str:
    return "".join(segment.text for segment in strip)


def cells(strip: Strip) -> list[tuple[str, str]]:
    """Each cell after the name column: its character and `kind`."""
    out = [(char, kind(segment.style)) for segment in strip if segment.style is not None for char in segment.text]
    return out[NAME:]


def label(strip: Strip) -> tuple[str, str]:
    first = next(iter(strip))
    assert first.style is not None
    return first.text, kind(first.style)


FIGHT = [
    "add Ann", "add Bo", "add Cy", "add Dee",
    "declare Ann attack pt=3",  # 0 to 3, completed on 3
    "declare Bo dodge mode=passive pt=6",  # 0 to 6
    "declare Cy swing pt=8",  # 0 to 8, aborted on 3
    "step 1",
    "declare Bo jab pt=3",  # 1 to 4, active over the dodge
    "step 2",
    "maintain Ann pt=2",  # 3 to 5, maintained
    "abort Cy",
    "condition Dee prone 4",  # until 7
]


def _live(folder: Path, lines: list[str], live_type: type[Live] = Live, role: Role | None = None) -> Live:
    live = live_type.open(make_file(folder, "freeform", lines))
    if role is not None:
        live.seat(role)
    return live


async def _run(live: Live, width: int, height: int, check: Any) -> Strips:
    pane = TimelineView(live)
    app = Strips(pane, width, height)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: pane.size.width == width and pane.names != [], "the strip laid out", WAIT)
        await check(pilot, pane)
    return app


async def test_each_action_is_a_bar_by_its_glyph_and_state(tmp_path: Path) -> None:
    async def check(pilot: Any, pane: TimelineView) -> None:
        assert pane.names == ["Ann", "Bo", "Cy", "Dee"]
        # 40 columns: 12 for the names, 28 segments from 0 (now 3 is a quarter in, at most).
        assert pane.bounds() == (0, 28)
        rows = [chars(pane.render_line(y)) for y in range(6)]
        assert rows == [
            "segment     0  ▼      10        20      ",
            "Ann         ▀▀▀▒▒┤    ┊         ┊       ",
            "Bo          ▄███┤▄┤   ┊         ┊       ",
            "Cy          ▀▀▀×      ┊         ┊       ",
            "Dee*        ┊  │┄┄┄┄  ┊         ┊       ",
            " " * 40,
        ]
        rnd = ("┊", "round")
        blank = (" ", "base")
        tail = [blank] * 4 + [rnd] + [blank] * 9 + [rnd] + [blank] * 7
        # Ann: the completed attack done, the maintained link over it from now, capped.
        done = ("▀", "done")
        assert cells(pane.render_line(1)) == [done, done, done, ("▒", "maintained!"), ("▒", "maintained"), ("┤", "maintained"), *tail]
        # Bo: the dodge passive, the jab active over it (█), each capped in its own colour.
        assert cells(pane.render_line(2)) == [("▄", "passive"), ("█", "active"), ("█", "active"), ("█", "active!"), ("┤", "active"), ("▄", "passive"), ("┤", "passive"), *tail[1:]]
        # Cy: the swing cut short on 3, done.
        assert cells(pane.render_line(3)) == [done, done, done, ("×", "done!"), blank, blank, *tail]
        # Dee: a round's first segment, now, then the condition until 7 in the free cells.
        cond = ("┄", "condition")
        assert cells(pane.render_line(4)) == [rnd, blank, blank, ("│", "nowb"), cond, cond, cond, cond, *tail[2:]]
        assert [label(pane.render_line(y)) for y in range(1, 5)] == [("Ann".ljust(NAME), "base"), ("Bo".ljust(NAME), "base"), ("Cy".ljust(NAME), "base"), ("Dee*".ljust(NAME), "base")]
        # Below the last row: blank, in the pane's own style.
        assert [kind(segment.style) for segment in pane.render_line(5) if segment.style is not None] == ["base"]
        # The axis: labels, the now marker.
        axis = pane.render_line(0)
        assert label(axis) == ("segment".ljust(NAME), "axis")
        assert {k for c, k in cells(axis) if c != "▼"} == {"axis"}
        assert cells(axis)[3] == ("▼", "nowb")

    await _run(_live(tmp_path, FIGHT), 40, 6, check)


async def test_the_axis_marks_now_and_a_replays_next_moment_and_keeps_the_labels(tmp_path: Path) -> None:
    live = _live(tmp_path, ["add Ann", "step 25", "schedule 27 bell"], Coming)
    assert isinstance(live, Coming)

    async def check(pilot: Any, pane: TimelineView) -> None:
        # Now 25, a quarter of the 28 segments in: from 18.
        assert pane.bounds() == (18, 46)
        axis = pane.render_line(0)
        assert chars(axis) == "segment     " + "  20   ▼    30        40    "
        assert cells(axis)[7] == ("▼", "nowb")
        live.next_moment = 27
        assert chars(pane.render_line(0)) == "segment     " + "  20   ▼ ▽  30        40    "
        assert cells(pane.render_line(0))[9] == ("▽", "comingi")
        live.next_moment = 30  # over a label: the digit stays, reversed, in the coming colour
        axis = pane.render_line(0)
        assert chars(axis) == "segment     " + "  20   ▼    30        40    "
        assert cells(axis)[12] == ("3", "coming!i") and cells(axis)[13] == ("0", "axis")
        live.next_moment = None
        # A row: now a bar across it, a round's first segment.
        row = cells(pane.render_line(1))
        assert row[7] == ("│", "nowb") and row[12] == ("┊", "round") and row[2] == ("┊", "round")
        assert [c for c, _ in row].count("┊") == 3

    await _run(live, 40, 3, check)


async def test_now_over_a_label_keeps_its_digit_and_labels_never_overlap(tmp_path: Path) -> None:
    live = _live(tmp_path, ["add Ann", "step 100"])
    live.encounter.time = replace(live.encounter.time, segments_per_round=2)

    async def check(pilot: Any, pane: TimelineView) -> None:
        assert pane.bounds() == (93, 121)
        axis = pane.render_line(0)
        # A label every 2 segments, each where it does not cross the one before or the end.
        assert chars(axis)[NAME:] == " 949698100 104 108 112 116  "
        assert cells(axis)[7] == ("1", "now!b") and cells(axis)[8] == ("0", "axis")

    await _run(live, 40, 3, check)


@pytest.mark.parametrize(
    ("per_round", "labels"),
    [(10, [0, 10, 20]), (50, [0, 10, 20]), (20, [0, 10, 20]), (21, [0, 10, 20]), (25, [0, 10, 20]), (6, [0, 6, 12, 18, 24]), (15, [0, 15]), (7, [0, 7, 14, 21]), (13, [0, 13, 26])],  # 26: a label ending on the last cell
)
async def test_labels_come_every_ten_segments_or_every_round_when_a_round_is_short(tmp_path: Path, per_round: int, labels: list[int]) -> None:
    live = _live(tmp_path, ["add Ann"])
    live.encounter.time = replace(live.encounter.time, segments_per_round=per_round)

    async def check(pilot: Any, pane: TimelineView) -> None:
        axis = chars(pane.render_line(0))[NAME:]
        expected = [" "] * 28
        for at in labels:
            expected[at : at + len(str(at))] = list(str(at))
        expected[0] = "0"
        assert axis == "".join(expected)
        # Each round's first segment marked in a row (now, 0, is the now marker).
        row = chars(pane.render_line(1))[NAME:]
        assert [i for i, c in enumerate(row) if c == "┊"] == [s for s in range(1, 28) if s % per_round == 0]

    await _run(live, 40, 3, check)


async def test_the_window_pans_and_never_starts_before_segment_0(tmp_path: Path) -> None:
    live = _live(tmp_path, ["add Ann", "step 25"])

    async def check(pilot: Any, pane: TimelineView) -> None:
        pane.pan = 5
        assert pane.bounds() == (23, 51)
        assert chars(pane.render_line(0))[NAME:] == "  ▼    30        40         "  # 50 would cross the end
        assert cells(pane.render_line(0))[2] == ("▼", "nowb")
        pane.pan = -10
        assert pane.bounds() == (8, 36)
        pane.pan = -30
        assert pane.bounds() == (0, 28)

    await _run(live, 40, 3, check)


async def test_a_narrow_pane_keeps_one_segment_and_rows_fit_the_pane(tmp_path: Path) -> None:
    live = _live(tmp_path, ["add Ann", "step 3"])

    async def check(pilot: Any, pane: TimelineView) -> None:
        # 14 columns: 2 segments; a quarter of 2 is 0, so the window starts at now.
        assert pane.bounds() == (3, 5)
        assert chars(pane.render_line(0)) == "segment     ▼ "
        assert chars(pane.render_line(1)) == "Ann         │ "
        assert chars(pane.render_line(2)) == " " * 14

    await _run(live, 14, 3, check)
    live2 = _live(tmp_path / "b", ["add Ann", "step 3"])

    async def narrow(pilot: Any, pane: TimelineView) -> None:
        assert pane.bounds() == (3, 4)  # never less than one segment
        assert chars(pane.render_line(0)) == "segment   "
        assert chars(pane.render_line(1)) == "Ann       "

    await _run(live2, 10, 3, narrow)


async def test_a_condition_fills_only_free_cells_from_now_to_its_last_segment(tmp_path: Path) -> None:
    lines = ["add Ann", "add Bo", "add Abcdefghijklmnop", "declare Bo dodge mode=passive pt=4", "step 2", "condition Bo prone 5", "condition Ann dazed 40", "condition Abcdefghijklmnop dazed 1"]

    async def check(pilot: Any, pane: TimelineView) -> None:
        assert pane.bounds() == (0, 28)
        rows = [chars(pane.render_line(y)) for y in (1, 2, 3)]
        # Ann's lasts past the window's end; Bo's from now, around the dodge, until 7.
        assert rows[0] == "Ann*        ┊ │" + "┄" * 25
        assert rows[1] == "Bo*         ▄▄▄▄┤┄┄┄" + "  ┊         ┊       "
        # A long name is cut to leave room for the mark, every row's bars in line.
        assert rows[2].startswith("Abcdefghi…* ┊ │┄   ")
        assert cells(pane.render_line(1))[3] == ("┄", "condition")
        assert cells(pane.render_line(2))[2] == ("▄", "passive!")

    await _run(_live(tmp_path, lines), 40, 5, check)


async def test_a_condition_ended_before_the_window_draws_nothing_but_the_mark(tmp_path: Path) -> None:
    live = _live(tmp_path, ["add Ann", "condition Ann dazed 3", "step 1"])

    async def check(pilot: Any, pane: TimelineView) -> None:
        pane.pan = 20  # the window from 14: the condition's 3 is behind it
        assert pane.bounds() == (14, 42)
        assert chars(pane.render_line(1)) == "Ann*        " + "      ┊         ┊         ┊ "

    await _run(live, 40, 3, check)


async def test_a_replays_next_moment_marks_the_bars_that_land_then(tmp_path: Path) -> None:
    live = _live(tmp_path, ["add Ann", "add Bo", "declare Ann attack pt=3", "declare Bo swing pt=5", "step 1", "abort Bo"], Coming)
    assert isinstance(live, Coming)

    async def check(pilot: Any, pane: TimelineView) -> None:
        live.next_moment = 3
        ann = cells(pane.render_line(1))
        assert ann[3] == ("┤", "comingi") and ann[2] == ("▀", "active")
        live.next_moment = 2
        assert cells(pane.render_line(1))[2] == ("▀", "active")  # a bar, not where it lands
        live.next_moment = 1
        assert cells(pane.render_line(2))[1] == ("×", "coming!i")  # Bo's cut on now
        assert cells(pane.render_line(2))[0] == ("▀", "done")
        live.next_moment = None
        assert cells(pane.render_line(2))[1] == ("×", "done!")

    await _run(live, 40, 4, check)


async def test_a_viewer_sees_no_row_for_a_hidden_combatant(tmp_path: Path) -> None:
    live = _live(tmp_path, ["add Ann", "add Ghost hidden=true", "add Bo"], role=Role.viewer())

    async def check(pilot: Any, pane: TimelineView) -> None:
        assert pane.names == ["Ann", "Bo"]
        assert pane.virtual_size.height == 3

    await _run(live, 40, 5, check)


async def _scrolled(pilot: Any, pane: TimelineView, y: int) -> None:
    """Scrolled to row `y` at once, not slid there (the pane's animations never run here)."""
    await wait_for(pilot, lambda: pane.scroll_offset.y == y, f"a scroll to {y}", WAIT)


async def test_a_click_on_a_row_names_its_combatant_and_follow_selects_and_scrolls(tmp_path: Path) -> None:
    names = [f"C{i}" for i in range(8)]
    live = _live(tmp_path, [f"add {n}" for n in names])

    async def check(pilot: Any, pane: TimelineView) -> None:
        app = pilot.app
        slid: list[str] = []
        setattr(pane, "animate", lambda attribute, *args, **kwargs: slid.append(attribute))  # noqa: B010
        # 5 rows: the axis and four combatants.
        assert pane.virtual_size.height == 9
        await pilot.click(TimelineView, offset=(2, 0))  # the axis: nobody
        await pilot.click(TimelineView, offset=(2, 1))
        await pilot.click(TimelineView, offset=(2, 2))
        await wait_for(pilot, lambda: app.clicked == ["C0", "C1"], "C0, C1 clicked", WAIT)
        pane.follow("C6")  # below the rows shown: scrolled to be the last of them
        await _scrolled(pilot, pane, 3)  # C6 scrolled into view
        # Rows below the axis are read after the scroll: C3 to C6.
        assert [label(pane.render_line(y)) for y in range(1, 5)] == [(f"C{i}".ljust(NAME), "baseu" if i == 6 else "base") for i in range(3, 7)]
        await pilot.click(TimelineView, offset=(2, 4))
        await wait_for(pilot, lambda: app.clicked == ["C0", "C1", "C6"], "C6 clicked", WAIT)
        pane.follow("C3")  # the first row in view: no scroll
        await pilot.pause()
        assert pane.scroll_offset.y == 3
        pane.follow("C2")  # just above: up by one
        await _scrolled(pilot, pane, 2)  # C2 at the top
        pane.follow("C0")
        await _scrolled(pilot, pane, 0)  # C0 at the top
        pane.follow("C3")  # the last row in view
        await pilot.pause()
        assert pane.scroll_offset.y == 0 and pane.selected_name == "C3"
        pane.follow("C4")  # just below: down by one
        await _scrolled(pilot, pane, 1)  # C4 at the bottom
        pane.follow("nobody")
        await pilot.pause()
        assert pane.scroll_offset.y == 1 and pane.selected_name == "nobody"
        assert all(label(pane.render_line(y))[1] == "base" for y in range(1, 5))
        await pilot.click(TimelineView, offset=(2, 4))  # C4, under the scroll
        await wait_for(pilot, lambda: app.clicked == ["C0", "C1", "C6", "C4"], "C4 clicked", WAIT)
        clicks = list(app.clicked)
        pane.names = names[:4]  # fewer rows than the pane shows: a click past them names nobody
        await pilot.click(TimelineView, offset=(2, 4))
        await pilot.pause()
        assert app.clicked == clicks
        assert slid == []

    await _run(live, 40, 5, check)


async def test_a_change_reloads_the_rows_and_follows_the_selection(tmp_path: Path) -> None:
    live = _live(tmp_path, ["add Ann"])

    async def check(pilot: Any, pane: TimelineView) -> None:
        live.session.execute("add Bo")
        pane.changed(Changed((Event("note", {}, seq=1),)), "Bo")  # a note alone: nothing to draw
        assert pane.names == ["Ann"] and pane.selected_name is None
        pane.changed(Changed((Event("add", {}, seq=2),)), "Bo")
        assert pane.names == ["Ann", "Bo"] and pane.selected_name == "Bo"
        assert pane.virtual_size.height == 3
        await wait_for(pilot, lambda: label(pane.render_line(2))[1] == "baseu", "Bo selected", WAIT)
        live.session.execute("declare Bo jab pt=2")
        pane.changed(Changed((), whole=True), "Bo")
        assert chars(pane.render_line(2)).startswith("Bo".ljust(NAME) + "▀▀┤")

    await _run(live, 40, 5, check)


async def test_two_panes_on_one_fight_share_its_action_index(tmp_path: Path) -> None:
    live = _live(tmp_path, ["add Ann", "declare Ann jab pt=2"])
    live.cache["timeline.actions"] = "not an index"
    first = TimelineView(live)
    index = live.cache["timeline.actions"]
    assert isinstance(index, ActionIndex) and first.index is index
    assert TimelineView(live, id="again").index is index
    assert TimelineView(live, id="again").id == "again"
    pane = TimelineView(live)
    assert pane.pan == 0 and pane.selected_name is None and pane.names == []


# ------------------------------------------------------------------ the action index


def _action(id: int, actor: str, start: int, completes: int, status: str = "in progress", ended: int | None = None) -> Action:
    return Action(id, actor, "jab", "active", completes - start, start, completes, (), Resolution(pt=completes - start), status=status, ended=ended)


def test_the_index_grows_with_the_log_and_is_rebuilt_when_the_log_or_roster_is_new() -> None:
    index = ActionIndex()
    assert index.by_actor == {} and index.window("Ann", 0, 10) == []  # nothing read yet
    roster: dict[str, object] = {}
    log = [_action(1, "Ann", 0, 3), _action(2, "Bo", 0, 2)]
    index.update(log, roster)
    assert index.by_actor == {"Ann": [log[0]], "Bo": [log[1]]}
    kept = index.by_actor
    log.append(_action(3, "Ann", 3, 5))
    index.update(log, roster)
    # Extended where it stood (kept incrementally), not read again.
    assert index.by_actor is kept and index.by_actor == {"Ann": [log[0], log[2]], "Bo": [log[1]]}
    index.update(log, roster)  # nothing new: nothing twice, nothing read again
    assert index.by_actor is kept and index.by_actor == {"Ann": [log[0], log[2]], "Bo": [log[1]]}
    # Another list as long or longer (the file read again): read from its start.
    again = [_action(1, "Cy", 0, 1), _action(2, "Cy", 0, 2), _action(3, "Di", 0, 2), _action(4, "Di", 1, 3)]
    index.update(again, roster)
    assert index.by_actor == {"Cy": again[:2], "Di": again[2:]}
    index.update(log, roster)
    assert index.by_actor == {"Ann": [log[0], log[2]], "Bo": [log[1]]}
    # Undo refolds: a shorter log, the same list.
    del log[2]
    log[0] = _action(1, "Anna", 0, 3)
    index.update(log, roster)
    assert index.by_actor == {"Anna": [log[0]], "Bo": [log[1]]}
    # A rename gives a new roster: the same log read again.
    log[0].actor = "Ann"
    renamed: dict[str, object] = {"Ann": None}
    index.update(log, renamed)
    assert index.by_actor == {"Ann": [log[0]], "Bo": [log[1]]}
    # A new log (a file read again).
    other = [_action(1, "Cy", 0, 1)]
    index.update(other, renamed)
    assert index.by_actor == {"Cy": [other[0]]}


def test_an_index_with_no_roster_given_reads_the_log_once() -> None:
    index = ActionIndex()
    log = [_action(1, "Ann", 0, 3)]
    index.update(log)
    index.update(log)
    assert index.by_actor == {"Ann": [log[0]]}


def test_the_window_finds_what_shows_in_it_and_stops_a_long_way_back() -> None:
    index = ActionIndex()
    log = [
        _action(1, "Ann", 0, 5000),  # still running, from long ago
        _action(2, "Ann", 10, 12, "completed", 12),
        _action(3, "Ann", 1400, 1500, "completed", 1500),  # ends on the window's first segment
        _action(4, "Ann", 1450, 1700, "aborted", 1499),  # cut just before it
        _action(5, "Ann", 1550, 1560),  # inside
        _action(6, "Ann", 1599, 1650),  # starts on the last segment
        _action(7, "Ann", 1600, 1610),  # starts just after
        _action(8, "Bo", 1550, 1560),
    ]
    index.update(log, None)
    # Newest first; the one from 0 is not looked at: the one from 10 is over 1000 back.
    assert [a.id for a in index.window("Ann", 1500, 1600)] == [6, 5, 3]
    assert [a.id for a in index.window("Ann", 0, 20)] == [2, 1]
    assert [a.id for a in index.window("Ann", 900, 1000)] == [1]  # 10 is 890 back: still looked at
    assert [a.id for a in index.window("Ann", 1010, 1020)] == [1]  # 10 is 1000 back: still looked at
    assert index.window("Ann", 1011, 1020) == []  # 1001 back: the look stops there
    assert index.window("Nobody", 0, 100) == []


def test_a_bar_glyph_by_mode_and_maintained() -> None:
    assert glyph(_action(1, "Ann", 0, 3)) == "▀"
    passive = replace(_action(1, "Ann", 0, 3), mode="passive")
    assert glyph(passive) == "▄"
    assert glyph(replace(passive, chain=1)) == "▒"


async def test_a_rename_moves_the_bars_with_the_combatant(tmp_path: Path) -> None:
    live = _live(tmp_path, ["add Ann", "add Bo", "declare Ann jab pt=3"])

    async def check(pilot: Any, pane: TimelineView) -> None:
        assert chars(pane.render_line(1)).startswith("Ann".ljust(NAME) + "▀▀▀┤")
        start = len(live.encounter.events)
        live.session.execute("rename Ann Anna")
        pane.changed(Changed(tuple(live.encounter.events[start:])), None)
        assert pane.names == ["Anna", "Bo"]
        assert chars(pane.render_line(1)).startswith("Anna".ljust(NAME) + "▀▀▀┤")
        live.session.execute("add Ann")
        pane.changed(Changed(tuple(live.encounter.events[-1:])), None)
        assert chars(pane.render_line(3)) == "Ann".ljust(NAME) + "│         ┊         ┊       "

    await _run(live, 40, 5, check)


async def test_bars_in_a_window_that_starts_past_segment_0(tmp_path: Path) -> None:
    lines = [
        "add Ann", "add Bo", "add Cy", "add Di", "add Dee",
        "step 10", "declare Cy swing pt=4",  # 10 to 14: ends on the window's first segment
        "step 10",
        "declare Ann jab pt=2",  # 20 to 22
        "declare Bo dodge mode=passive pt=4",  # 20 to 24
        "declare Cy jab pt=1",  # 20 to 21: completed now
        "declare Di guard mode=passive pt=4",  # 20 to 25 once the parry pushes it back
        "declare Dee long pt=22",  # 20 to 42: ends on the window's end, past its last cell
        "step 1",
        "declare Bo kick pt=2",  # 21 to 23, active over the dodge
        "declare Di parry mode=passive pt=2",  # 21 to 23, passive over the guard
        "condition Ann dazed 4",  # until 25, after the jab
    ]

    async def check(pilot: Any, pane: TimelineView) -> None:
        # Now 21: from 14 to 42.
        assert pane.bounds() == (14, 42)
        rows = [chars(pane.render_line(y))[NAME:] for y in range(6)]
        assert rows == [
            "      20        30        40",  # now over the 0 of 20: the digit stays
            "      ▀▀┤┄┄┄    ┊         ┊ ",
            "      ▄██┤┤     ┊         ┊ ",
            "┤     ▀┤        ┊         ┊ ",
            "      ▄▄▄┤▄┤    ┊         ┊ ",
            "      " + "▀" * 22,
        ]
        assert cells(pane.render_line(0))[7] == ("0", "now!b")
        cy = cells(pane.render_line(3))
        assert cy[0] == ("┤", "done") and cy[6] == ("▀", "done") and cy[7] == ("┤", "done!")
        di = cells(pane.render_line(4))
        assert di[7] == ("▄", "passive!") and di[8] == ("▄", "passive") and di[9] == ("┤", "passive")

    await _run(_live(tmp_path, lines), 40, 7, check)
