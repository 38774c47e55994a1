"""The table's polish at 80x24: names follow renames on every widget, names are measured
in cells, long bursts are kept or refused with a word. Waits are on conditions only."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from rich.style import Style

from tracker.persistence.store import EncounterFile
from tracker.ui.app import TrackerApp
from tracker.ui.screens.encounter import EncounterScreen
from tracker.ui.widgets.log import CombatLog
from tracker.ui.widgets.timeline import NAME, TimelineView
from tests.ui import press, settle, type_text, wait_for

pytestmark = pytest.mark.ui

SIZE = (80, 24)
SAVES = Path(__file__).resolve().parent.parent / "saves"
BARS = set("▀▄▒█▓┤×")


def copy_save(saves: Path, name: str) -> Path:
    shutil.copy(SAVES / name, saves / name)
    return saves / name


def bars(app: TrackerApp, name: str) -> str:
    """The cells of `name`'s timeline row after the name column, as drawn."""
    timeline = app.screen.query_one(TimelineView)
    return timeline._row(name, 60, Style()).text[NAME:]


async def encounter(pilot, app: TrackerApp) -> EncounterScreen:  # type: ignore[no-untyped-def]
    await wait_for(pilot, lambda: isinstance(app.screen, EncounterScreen), "the encounter screen")
    await settle(pilot)
    assert isinstance(app.screen, EncounterScreen)
    return app.screen


async def test_a_rename_moves_the_bars_and_the_log_filter(saves: Path) -> None:
    """Issue 22: after `:rename Ann Anna` Anna's row lost its bars and `:add Ann` drew the
    old bars on the newcomer. Kestrel (who attacked) is renamed Kes: Kes's row shows the
    bars Kestrel's did, a new Kestrel none; the log filtered on Kestrel follows to Kes."""
    path = copy_save(saves, "freeform-bridge-ambush.toml")
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await encounter(pilot, app)
        before = bars(app, "Kestrel")
        assert BARS & set(before), before
        screen.query_one("#roster").select_name("Kestrel")
        await press(pilot, "f")
        log = screen.query_one(CombatLog)
        assert log.only == "Kestrel"
        await type_text(pilot, ":rename Kestrel Kes\r")
        assert "Kes" in screen.live.encounter.combatants
        assert bars(app, "Kes") == before
        assert log.only == "Kes"
        await type_text(pilot, ":add Kestrel\r")
        assert "Kestrel" in screen.live.encounter.combatants
        assert not BARS & set(bars(app, "Kestrel")), bars(app, "Kestrel")
        assert log.only == "Kes" and bars(app, "Kes") == before
        assert not getattr(app, "errors", [])
    assert "Kes" in EncounterFile(path).load().encounter.combatants
