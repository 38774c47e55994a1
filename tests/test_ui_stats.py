"""The stats screen at 80x24: one key from the encounter, the same figures and charts
as `tracker stats`, the viewer's variant without hidden combatants, Esc back."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_ui_app import SIZE, make_file, on_disk
from tests.test_ui_screen import help_text
from tests.ui import press, settle, wait_for
from tracker.reading.charts import report_text
from tracker.reading.stats import fight_stats
from tracker.ui.app import TrackerApp
from tracker.ui.screens.encounter import EncounterScreen
from tracker.ui.screens.help import HelpScreen
from tracker.ui.screens.stats import StatsScreen

pytestmark = pytest.mark.ui

FIGHT = [
    "add Kestrel hp=20 side=party", "add Goblin hp=8 side=goblins", "add Ghost hp=5 side=goblins hidden=true",
    "declare Kestrel slash target=Goblin pt=5", "declare Ghost wail target=Kestrel pt=3",
    "next", "next", "damage Goblin 5", "damage Kestrel 2",
]


async def open_stats(app: TrackerApp, pilot) -> StatsScreen:  # type: ignore[no-untyped-def]
    """`t` on the encounter, then wait for the figures to be drawn."""
    await settle(pilot)
    await press(pilot, "t")
    await wait_for(pilot, lambda: isinstance(app.screen, StatsScreen) and app.screen.figures is not None, "the stats screen with its figures")
    screen = app.screen
    assert isinstance(screen, StatsScreen)
    return screen


async def test_stats_screen_opens_on_its_key_at_80x24(saves: Path) -> None:
    path = make_file(saves, "freeform", FIGHT)
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_stats(app, pilot)
        # The same text `tracker stats` prints at this width (78: the scroll bar's column).
        assert screen.shown_text == report_text(fight_stats(on_disk(path)), 78)
        assert "Ghost" in screen.shown_text  # the GM sees the hidden combatant
        assert "Goblin          dealt -; taken hp 5" in screen.shown_text
        assert all(len(line) <= 78 for line in screen.shown_text.splitlines())
        await press(pilot, "escape")
        await wait_for(pilot, lambda: isinstance(app.screen, EncounterScreen), "back on the encounter")
        await press(pilot, "question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "the help screen")
        assert isinstance(app.screen, HelpScreen)
        assert "after the fight" in help_text(app.screen)


async def test_viewer_stats_screen_leaves_the_hidden_out(saves: Path) -> None:
    path = make_file(saves, "freeform", FIGHT)
    app = TrackerApp(saves, path, viewer=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_stats(app, pilot)
        assert "Ghost" not in screen.shown_text and "as viewers see it" in screen.shown_text
        assert screen.shown_text == report_text(fight_stats(on_disk(path), viewer=True), 78)


async def test_the_palette_opens_the_stats_screen(saves: Path) -> None:
    """The palette's rows run their command (they were offered, then did nothing)."""
    path = make_file(saves, "freeform", FIGHT)
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "ctrl+p")
        await press(pilot, *"stats")
        await press(pilot, "enter")  # highlights the best match
        await press(pilot, "enter")  # runs it
        await wait_for(pilot, lambda: isinstance(app.screen, StatsScreen), "the stats screen from the palette")
