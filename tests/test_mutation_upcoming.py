"""Direct tests of tracker.ui.widgets.upcoming, worked from its docstring: what is due
next, soonest first, as the reader may see it (a hidden combatant's doings left out for
a viewer), with the timeline's legend under it; an entry too long for the pane wraps
under itself, never cut; what does not fit is "…"."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.text import Span

from tracker.play.live import Live
from tracker.reading.glyphs import LEGEND
from tracker.reading.roles import Role
from tracker.ui.widgets.upcoming import UpcomingView
from tests.test_ui_app import make_file
from tests.ui import PaneApp, drawn

pytestmark = pytest.mark.ui

FIGHT = [
    "add Seraph",
    "add Sphinx",
    "add Ghost hidden=true",
    "declare Seraph punch target=Sphinx pt=3",
    "declare Ghost attack target=Seraph pt=4",
    "declare Sphinx bite target=Seraph pt=5",
    "schedule 7 the bell of the old tower rings twice",
]
LEGEND_ROWS = LEGEND.split("\n")


async def _shown(folder: Path, lines: list[str], width: int, height: int, role: Role | None = None) -> tuple[list[str], object]:
    live = Live.open(make_file(folder, "freeform", lines))
    if role is not None:
        live.seat(role)
    pane = UpcomingView(live)
    app = PaneApp(pane, width, height)
    async with app.run_test(size=(80, 24)) as pilot:
        text = await drawn(pilot, pane)
        return text.plain.split("\n"), text


async def test_the_gm_sees_what_is_due_soonest_first_then_blank_rows_then_the_legend(tmp_path: Path) -> None:
    rows, text = await _shown(tmp_path, FIGHT, 40, 12)
    # 12 rows: 10 for the list (padded), 2 for the legend at the foot.
    assert rows == [
        "Upcoming",
        "   3 Seraph's punch completes",
        "   4 Ghost's attack completes",
        "   5 Sphinx's bite completes",
        "   7 the bell of the old tower rings",  # 35 columns for the words: the width less five
        "     twice",
        "", "", "", "",
        *LEGEND_ROWS,
    ]
    assert Span(0, 8, "bold") in text.spans  # the title
    assert Span(9, 14, "bold") in text.spans  # "   3 ": the segment
    legend_at = len("\n".join(rows[:10])) + 1
    assert Span(legend_at, legend_at + len(LEGEND_ROWS[0]), "dim") in text.spans
    assert text.no_wrap and text.overflow == "ellipsis"


@pytest.mark.parametrize("role", [Role.viewer(), Role.player(["Sphinx"])], ids=["viewer", "player"])
async def test_a_viewer_or_player_does_not_see_the_hidden_ghost_due(tmp_path: Path, role: Role) -> None:
    rows, _ = await _shown(tmp_path, FIGHT, 40, 12, role)
    assert rows[:5] == [
        "Upcoming",
        "   3 Seraph's punch completes",
        "   5 Sphinx's bite completes",
        "   7 the bell of the old tower rings",
        "     twice",
    ]
    assert not any("Ghost" in row for row in rows)


async def test_a_long_entry_wraps_under_itself_and_is_never_cut(tmp_path: Path) -> None:
    # 25 columns: 20 for the words after the segment (the width less five).
    rows, _ = await _shown(tmp_path, ["add Seraph", "schedule 7 the bell of the old tower rings twice"], 25, 9)
    assert rows == [
        "Upcoming",
        "   7 the bell of the old",
        "     tower rings twice",
        "", "", "", "",
        *LEGEND_ROWS,
    ]


async def test_a_narrow_pane_still_gives_the_words_ten_columns(tmp_path: Path) -> None:
    rows, _ = await _shown(tmp_path, ["add Seraph", "schedule 7 the bell of the old tower"], 12, 9)
    assert rows[1:5] == ["   7 the bell", "     of the old", "     tower", ""]


async def test_what_does_not_fit_is_an_ellipsis_row(tmp_path: Path) -> None:
    # 7 rows: 5 for the list, 2 for the legend. Four one-row entries fill the list, so
    # the fifth is left out with no room for a "…".
    lines = ["add Seraph", *(f"schedule {s} bell {s}" for s in range(1, 7))]
    rows, _ = await _shown(tmp_path, lines, 40, 7)
    assert rows == ["Upcoming", "   1 bell 1", "   2 bell 2", "   3 bell 3", "   4 bell 4", *LEGEND_ROWS]
    # 16 columns (11 for the words): the second entry needs four rows, three are left.
    lines = ["add Seraph", "schedule 1 one", "schedule 2 a b c d e f g h i j k l m n o p q r s t", "schedule 3 three"]
    rows, text = await _shown(tmp_path / "b", lines, 16, 7)
    assert rows == ["Upcoming", "   1 one", "     …", "", "", *LEGEND_ROWS]
    start = len("\n".join(rows[:2])) + 1
    assert Span(start, start + len(rows[2]), "dim") in text.spans


async def test_an_entry_that_just_fits_is_shown_whole(tmp_path: Path) -> None:
    # 6 rows: 4 for the list; "one" and a two-row entry fill it exactly.
    lines = ["add Seraph", "schedule 1 one", "schedule 2 a b c d e f g h i j k l", "schedule 3 three"]
    rows, _ = await _shown(tmp_path, lines, 16, 6)
    assert rows[:4] == ["Upcoming", "   1 one", "   2 a b c d e f", "     g h i j k l"]
    # One word more makes it three rows: it no longer fits, and "…" takes its place.
    lines[2] += " m n"
    rows, _ = await _shown(tmp_path / "b", lines, 16, 6)
    assert rows[:4] == ["Upcoming", "   1 one", "     …", ""]


async def test_a_tall_pane_lists_as_many_as_its_rows_hold(tmp_path: Path) -> None:
    # 52 rows: 50 for the list, the title and 49 entries; 60 are due.
    lines = ["add Seraph", *(f"schedule {s} bell {s}" for s in range(1, 61))]
    rows, _ = await _shown(tmp_path, lines, 40, 52)
    assert rows[1:50] == [f"{s:>4} bell {s}" for s in range(1, 50)]
    assert rows[50:] == LEGEND_ROWS


async def test_nothing_due_says_so(tmp_path: Path) -> None:
    rows, _ = await _shown(tmp_path, ["add Seraph"], 40, 6)
    assert rows == ["Upcoming", "nothing scheduled", "", "", *LEGEND_ROWS]


async def test_a_pane_shorter_than_its_legend_still_lists_two_rows(tmp_path: Path) -> None:
    # 3 rows, less the legend's 2, would leave 1: the list keeps 2 (the title and one
    # entry), and the legend follows; the pane shows its top rows.
    rows, _ = await _shown(tmp_path, FIGHT, 40, 3)
    assert rows == ["Upcoming", "   3 Seraph's punch completes", *LEGEND_ROWS]
