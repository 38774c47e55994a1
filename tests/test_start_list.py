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
from tests.ui import press, settle, wait_for
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
