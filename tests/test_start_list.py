"""The start screen's list is drawn whole in whatever frame shows it.

Seen under load at `tracker serve --spawn exec`: the GM's list read "Tab…  freefo…  0 ·
ro…  2026-11-28…" (every column at its label's width) and never changed. Textual's
DataTable measured the rows only when it next idled, and kept the rows drawn before
that, narrow, for good. Here a frame is drawn right after each fill of the list, before
the table can idle: what a busy machine did by chance, done every time.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable

from tests.test_ui_app import SIZE, make_file
from tests.ui import post_keys, press, settle, wait_for
from tracker.ui.app import TrackerApp
from tracker.ui.screens.start import StartScreen

pytestmark = pytest.mark.ui


def drawn(table: DataTable[Any]) -> str:
    """The table's lines as a frame draws them (a frame asks each line of the widget)."""
    return "\n".join("".join(s.text for s in table.render_line(y)) for y in range(table.size.height))


@pytest.fixture
def frames(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The list as drawn at once after every fill, before the table's next idle."""
    seen: list[str] = []
    show = StartScreen._show

    def show_then_draw(self: StartScreen, listings: Any, select: Any) -> None:
        show(self, listings, select)
        seen.append(drawn(self.query_one(DataTable)))

    monkeypatch.setattr(StartScreen, "_show", show_then_draw)
    return seen


async def test_a_frame_drawn_before_the_table_idles_shows_the_names_whole(saves: Path, frames: list[str]) -> None:
    make_file(saves, "freeform", ["add Seraph"], name="Table Night")
    make_file(saves, "freeform", ["add Goblin"], name="Other Fight")
    app = TrackerApp(saves)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: bool(frames), "the list filled")
        for name in ("Table Night", "Other Fight", "freeform", "0 · round 1"):
            assert name in frames[0], frames[0]
        assert "…" not in frames[0]
        await settle(pilot)  # and the table idling later changes nothing
        table = app.screen.query_one(DataTable)
        assert "Table Night" in drawn(table) and "…" not in drawn(table)


async def test_each_reload_sets_the_columns_to_what_it_lists(saves: Path, frames: list[str]) -> None:
    make_file(saves, "freeform", ["add Seraph"], name="Table Night")
    app = TrackerApp(saves)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(frames) == 1, "the list filled")
        table = app.screen.query_one(DataTable)
        assert isinstance(app.screen, StartScreen)
        longer = make_file(saves, "freeform", ["add Goblin"], name="The Long Night at the Ford")
        await press(pilot, "g")  # reload
        await wait_for(pilot, lambda: len(frames) == 2, "the list read again")
        assert "The Long Night at the Ford" in frames[1] and "…" not in frames[1], frames[1]
        # name column: the longest name, 26 cells, and a cell of padding each side
        assert table.columns["name"].get_render_width(table) == 28
        longer.unlink()
        await press(pilot, "g")
        await wait_for(pilot, lambda: len(frames) == 3, "the list read again")
        # Narrow again: "Table Night" is 11 cells; the other columns keep their room.
        assert table.columns["name"].get_render_width(table) == 13
        assert "Table Night  freeform" in frames[2], frames[2]


async def test_a_reading_of_the_folder_that_ends_late_never_brings_back_a_deleted_save(saves: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two readings of the folder under way at once (the list read again as a confirmation
    closes, and again after the delete it confirmed): the older one, if it ends last, is
    not drawn, so a save just deleted does not come back to the list."""
    import threading

    from textual.worker import WorkerState

    from tracker.ui.screens import start

    make_file(saves, "freeform", ["add Seraph"], name="Table Night")
    gone = make_file(saves, "freeform", ["add Goblin"], name="Other Fight")
    read, calls, release = start.read_folder, [], threading.Event()

    def read_slowly_the_second_time(folder: Path) -> Any:
        calls.append(folder)
        listed = read(folder)
        if len(calls) == 2:  # read before the delete, held until the newer reading is drawn
            release.wait(30)
        return listed

    monkeypatch.setattr(start, "read_folder", read_slowly_the_second_time)
    app = TrackerApp(saves)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, StartScreen)
        await wait_for(pilot, lambda: len(screen.listings) == 2, "the list filled")
        post_keys(app, ["g"])  # not `press`: it waits for every reading, and this one is held
        await wait_for(pilot, lambda: len(calls) == 2, "the slow reading under way")
        gone.unlink()
        post_keys(app, ["g"])
        await wait_for(pilot, lambda: len(screen.listings) == 1, "the list without the deleted save")
        release.set()
        readings = [w for w in app.workers if w.group == "start-list"]
        await wait_for(pilot, lambda: all(w.state in (WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED) for w in readings), "the slow reading ended")
        await settle(pilot)
        assert [item.name for item in screen.listings] == ["Table Night"]
        assert not app.errors
