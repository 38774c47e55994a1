"""A change costs one frame of the lines it touches, for the GM, players and viewers.

A new log entry is drawn without laying out the screen: the log's height grows without
Textual's layout (tracker.ui.widgets.redraw.set_virtual_height), its scrollbar is told
the new height, the scroll to the newest line happens in the same frame, and only the
log (and its scrollbar) is drawn again. A change to one combatant redraws that
combatant's rows of the roster, not the roster. The frames and lines are counted by
tracker.ui.textual_private.counting (Textual's own drawing path).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.test_ui_app import SIZE, encounter_screen
from tests.test_ui_log import build
from tests.test_ui_screen import screen_text
from tests.ui import burst, press, settle, wait_for
from tracker.persistence.store import EncounterFile
from tracker.play.session import Session
from tracker.ui.app import TrackerApp
from tracker.ui.textual_private import counting
from tracker.ui.widgets.log import CombatLog
from tracker.ui.widgets.roster import ROWS, RosterView

pytestmark = pytest.mark.ui


def gm_on(path: Path) -> Session:
    """The GM at another terminal: each change is written to the file at once."""
    store = EncounterFile(path)
    loaded = store.load()
    return Session(loaded.encounter, loaded.ruleset, store=store)


def last_line(log: CombatLog) -> str:
    """The log's lowest row with text on it (a short log leaves blank rows below)."""
    return next((row for row in reversed(screen_text(log)) if row.strip()), "")


def scrollbar_figures(log: CombatLog) -> tuple[int, int, float]:
    bar = log.vertical_scrollbar
    return bar.window_virtual_size, bar.window_size, bar.position


def assert_scrollbar_right(log: CombatLog) -> None:
    """The scrollbar says what a layout would: the rows loaded, the rows shown, where."""
    total = log.rows
    assert log.virtual_size.height == total
    assert log.show_vertical_scrollbar == (total > log.container_size.height)
    if log.show_vertical_scrollbar:
        assert scrollbar_figures(log) == (total, log.container_size.height, log.scroll_y)


async def test_a_viewer_draws_a_new_note_in_one_frame_of_the_log_alone(saves: Path) -> None:
    path = build(saves, 400)
    app = TrackerApp(saves, path, viewer=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        log = encounter_screen(app).query_one(CombatLog)
        gm = gm_on(path)
        for n in range(3):
            with counting(app) as drawn:
                gm.note(f"the sphinx circles {n}")
                await wait_for(pilot, lambda: f"the sphinx circles {n}" in last_line(log), "the GM's note on the viewer's last row")
                await settle(pilot)
            # One frame, no layout, and no line of any other pane: the log's rows and
            # its scrollbar's (every row of the log moved up by one).
            assert (drawn.frames, drawn.whole, drawn.layouts) == (1, 0, 0), drawn
            assert set(drawn.by_widget) <= {"log", "ScrollBar"}, drawn.by_widget
            assert drawn.rows == log.size.height and drawn.lines <= 2 * log.size.height
            assert log.follow and log.scroll_y == log.max_scroll_y
            assert_scrollbar_right(log)


async def test_the_gm_sees_a_note_in_one_frame_too(saves: Path) -> None:
    path = build(saves, 400)
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = encounter_screen(app)
        log = screen.query_one(CombatLog)
        with counting(app) as drawn:
            screen.change(lambda s: s.note("the GM's own"))  # what the note command runs
            await settle(pilot)
        assert "the GM's own" in last_line(log)
        assert (drawn.frames, drawn.layouts) == (1, 0) and set(drawn.by_widget) <= {"log", "ScrollBar"}, drawn


async def drawn_afresh(saves: Path, path: Path) -> tuple[tuple[int, int, float], str]:
    """The scrollbar's figures and the whole screen of a viewer's app opened on `path`
    now (laid out from nothing)."""
    fresh = TrackerApp(saves, path, viewer=True)
    async with fresh.run_test(size=SIZE) as pilot:
        await settle(pilot)
        log = encounter_screen(fresh).query_one(CombatLog)
        return scrollbar_figures(log), fresh.export_screenshot()


async def test_the_scrollbar_stays_right_as_entries_arrive(saves: Path) -> None:
    # From three lines (no scrollbar) past a screen (it appears) to many screens; at a
    # few points the screen, scrollbar and all, is the one a fresh app draws.
    path = build(saves, 3)
    app = TrackerApp(saves, path, viewer=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        log = encounter_screen(app).query_one(CombatLog)
        assert not log.show_vertical_scrollbar
        gm = gm_on(path)
        for n in range(0, 60, 3):
            for k in range(n, n + 3):
                gm.note(f"arrival {k}")
            await wait_for(pilot, lambda: f"arrival {n + 2}" in last_line(log), f"arrival {n + 2} on the last row")
            await settle(pilot)
            assert_scrollbar_right(log)
            assert log.scroll_y == log.max_scroll_y
            if n in (9, 12, 30, 57):  # 15 rows (the scrollbar just shown), 18, 36, 63
                assert await drawn_afresh(saves, path) == (scrollbar_figures(log), app.export_screenshot())
        assert log.show_vertical_scrollbar and "arrival 59" in last_line(log)


async def test_a_log_read_back_does_not_move_when_entries_arrive(saves: Path) -> None:
    path = build(saves, 400)
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        log = encounter_screen(app).query_one(CombatLog)
        await press(pilot, "pageup")
        assert not log.follow
        shown, top, rows = screen_text(log), log.scroll_y, log.rows
        for n in range(3):
            burst(app, f":note while reading {n}\r")
            await settle(pilot)
            assert screen_text(log) == shown and log.scroll_y == top, "the view moved when an entry arrived"
            assert not log.follow
        assert log.rows == rows + 3
        assert_scrollbar_right(log)  # the thumb shorter, further from the end
        await press(pilot, "pagedown", "pagedown", "pagedown")
        assert log.follow and "while reading 2" in last_line(log)


async def test_a_viewer_read_back_does_not_move_either(saves: Path) -> None:
    path = build(saves, 400)
    app = TrackerApp(saves, path, viewer=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        log = encounter_screen(app).query_one(CombatLog)
        log.scroll_lines(-30)
        await settle(pilot)
        shown, top = screen_text(log), log.scroll_y
        gm = gm_on(path)
        with counting(app) as drawn:
            gm.note("behind the reader")
            await wait_for(pilot, lambda: log.loaded[-1].text == "behind the reader", "the note loaded")
            await settle(pilot)
        assert screen_text(log) == shown and log.scroll_y == top and not log.follow
        assert_scrollbar_right(log)
        # Nothing of the log's text is drawn again: only its scrollbar's thumb moved.
        assert drawn.frames <= 1 and "log" not in drawn.by_widget, drawn.by_widget


async def test_search_and_filter_take_new_entries_as_they_come(saves: Path) -> None:
    path = build(saves, 100, every=10)
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = encounter_screen(app)
        log = screen.query_one(CombatLog)
        burst(app, "/mark\r")
        await settle(pilot)
        assert all("mark" in e.text for e in log.loaded)
        burst(app, ":note a fresh mark\r:note nothing to find\r")
        await settle(pilot)
        assert log.loaded[-1].text == "a fresh mark" and "a fresh mark" in last_line(log)
        assert not any("nothing to find" in e.text for e in log.loaded)
        assert_scrollbar_right(log)
        burst(app, "/\x15\r")  # the search cleared: every line, the newest at the end
        await settle(pilot)
        assert "nothing to find" in last_line(log)
        # `f` on Sphinx: a blow to Sphinx is added at the end, a note is not.
        screen.query_one(RosterView).select_name("Sphinx")
        await press(pilot, "f")
        burst(app, ":damage Sphinx 1\r:note not about anyone\r")
        await settle(pilot)
        assert all("Sphinx" in e.about for e in log.loaded)
        assert "Sphinx" in last_line(log) and not any("not about anyone" in e.text for e in log.loaded)
        assert_scrollbar_right(log)


async def test_a_blow_redraws_the_rows_it_changes(saves: Path) -> None:
    path = build(saves, 30)
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = encounter_screen(app)
        roster = screen.query_one(RosterView)
        await press(pilot, "down")  # Sphinx selected: the selection moved, drawn by itself
        assert roster.current is not None and roster.current.name == "Sphinx"

        def blow(name: str) -> Any:
            return lambda s: s.damage(name, 1)

        screen.change(blow("Seraph"))  # the first change after the selection draws it whole
        await settle(pilot)
        for hp in (8, 7):
            with counting(app) as drawn:
                screen.change(blow("Seraph"))
                await settle(pilot)
            assert f"{hp}/10" in " ".join(screen_text(roster))
            assert drawn.frames == 1 and drawn.layouts == 0, drawn
            # Seraph's rows of the roster, not Sphinx's (still selected) nor the rest.
            assert 0 < drawn.by_widget.get("roster", 0) <= ROWS, drawn.by_widget
            assert roster.current is not None and roster.current.name == "Sphinx"
        # What is on screen (the rows redrawn and those kept) is what a fresh app draws.
        shown = app.export_screenshot()
    fresh = TrackerApp(saves, path)
    async with fresh.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "down")
        assert fresh.export_screenshot() == shown


async def test_changes_while_the_glance_roster_hides_the_log_show_when_it_returns(saves: Path) -> None:
    # The glance roster hides the detail panel and the log: what changes meanwhile costs
    # no layout, and both show it, at its full height, once the roster is back.
    from tracker.ui.widgets.roster import DetailView

    path = build(saves, 200)
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = encounter_screen(app)
        log, detail = screen.query_one(CombatLog), screen.query_one(DetailView)
        await press(pilot, "g")
        assert not log.display or not log.parent.display  # type: ignore[union-attr]
        with counting(app) as drawn:
            for n in range(3):
                screen.change(lambda s, n=n: s.note(f"unseen {n}"))
            screen.change(lambda s: s.damage("Seraph", 4))
            await settle(pilot)
        assert drawn.layouts == 0 and "log" not in drawn.by_widget and "detail" not in drawn.by_widget, drawn
        await press(pilot, "g")
        assert "unseen 2" in " ".join(screen_text(log)[-3:]) and "Seraph takes 4" in last_line(log)
        assert_scrollbar_right(log)
        assert log.scroll_y == log.max_scroll_y and log.follow
        shown = " ".join(screen_text(detail))
        assert "6/10" in shown, shown
        assert detail.content_region.height == detail.get_content_height(detail.content_region.size, app.size, detail.content_region.width)


async def test_a_viewer_read_back_when_the_log_starts_again_shorter_shows_lines(saves: Path) -> None:
    # Hiding a combatant starts a viewer's log again from the newest entries, fewer rows
    # than the view was scrolled to: the view comes back within them, as a layout did.
    path = build(saves, 600, every=3)
    app = TrackerApp(saves, path, viewer=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        log = encounter_screen(app).query_one(CombatLog)
        for _ in range(2):  # to the top of what is loaded: older lines load above, twice
            log.scroll_lines(-log.scroll_y)
            await settle(pilot)
        log.scroll_lines(log.max_scroll_y - log.scroll_y - 5)  # near the end again, not at it
        await settle(pilot)
        top = log.scroll_y
        assert not log.follow and top > CombatLog.CHUNK  # past the end of a log started again
        gm_on(path).execute("hide Sphinx")
        await wait_for(pilot, lambda: not any("Sphinx" in e.text for e in log.loaded), "Sphinx's lines gone from the viewer's log")
        await settle(pilot)
        assert log.rows < top  # started again: fewer rows than the view was at
        assert log.scroll_y == log.max_scroll_y and all(row.strip() for row in screen_text(log))
        assert_scrollbar_right(log)
