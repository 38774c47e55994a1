"""`tracker open` starts with Python's cyclic garbage collector off (tracker.command.cli): the
collections that fell due while the encounter was read and the first screen built were
about a tenth of the time to the first frame. The app turns it on once that screen is
drawn, and only if its caller had turned it off for it."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from tests.test_ui_app import SIZE, encounter_screen
from tests.test_ui_log import build
from tests.ui import settle, wait_for
from tracker.ui.app import TrackerApp

pytestmark = pytest.mark.ui


async def test_the_collector_is_on_again_once_the_first_screen_is_drawn(saves: Path) -> None:
    path = build(saves, 20)
    app = TrackerApp(saves, path)
    app.collector_off = True  # as tracker.ui.app.run sets it for the CLI
    gc.disable()
    try:
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, gc.isenabled, "the collector on again")
            assert "line 19" in " ".join(encounter_screen(app).query_one("CombatLog").render_line(y).text for y in range(13))
    finally:
        gc.enable()


async def test_an_app_whose_caller_left_the_collector_alone_leaves_it_alone(saves: Path) -> None:
    path = build(saves, 20)
    app = TrackerApp(saves, path)
    gc.disable()  # (a caller of its own that wants it off)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert not gc.isenabled()
    finally:
        gc.enable()
