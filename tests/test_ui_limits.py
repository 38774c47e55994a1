"""The declare form keeps the named limits (rulesets/limits.py) the command line keeps.

Seen before: a 400D D6 check took 57 s to show its chance in the form, an OGS contest
of 12 dice a side 30 s, and a difficulty of 5000 and a 42-die OGS check were accepted.
The form now names the limit on the chance line at once and answers the next change.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from tracker.ui.app import TrackerApp
from tracker.ui.screens.encounter import EncounterScreen
from tests.test_ui_declare import SIZE, copy_save, no_bugs, open_form, set_field
from tests.ui import press, settle, wait_for

pytestmark = pytest.mark.ui


async def set_shown(pilot: Any, selector: str, text: str) -> None:
    """Type into the field of the action shown (each action keeps its own, hidden ones too)."""
    (widget,) = [w for w in pilot.app.screen.query(selector) if w.parent.parent.display]
    widget.focus()
    await settle(pilot)
    await press(pilot, "ctrl+u", *text)


async def test_a_d6_pool_past_the_limit_is_named_at_once_and_the_form_stays_responsive(saves: Path) -> None:
    path = copy_save(saves, "d6-warehouse.toml")
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, EncounterScreen), "the encounter screen")
        app.screen.live.run(lambda s: s.execute("add Titan marksmanship=400D"))
        screen = await open_form(pilot, app, "Titan", "check", "")
        await set_shown(pilot, "#p-skill", "marksmanship")
        await set_shown(pilot, "#p-difficulty", "11")
        started = time.monotonic()
        await wait_for(pilot, lambda: "400D is more than the 40D limit" in screen.chance_shown, "the limit on the chance line")
        assert time.monotonic() - started < 5  # was about a minute
        await set_shown(pilot, "#p-skill", "reflexes")
        await wait_for(pilot, lambda: "%" in screen.chance_shown, "the chance for a pool within the limit")
        await set_shown(pilot, "#p-difficulty", "5000")
        await wait_for(pilot, lambda: "from 0 to 400" in screen.chance_shown, "the difficulty limit")
        no_bugs(app)


async def test_an_ogs_contest_past_the_opposed_limit_is_named_at_once(saves: Path) -> None:
    path = copy_save(saves, "ogs-guard.toml")
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, EncounterScreen), "the encounter screen")
        app.screen.live.run(lambda s: s.execute("add Giant stat=d12 skill=d12 enhancement=10d12"))
        app.screen.live.run(lambda s: s.execute("add Dragon stat=d12 skill=d12 enhancement=10d12 side=foes"))
        screen = await open_form(pilot, app, "Giant", "contest", "Dragon")
        started = time.monotonic()
        await wait_for(pilot, lambda: "more than the limit of 12 dice in all" in screen.chance_shown, "the opposed limit")
        assert time.monotonic() - started < 5  # was half a minute
        await set_field(pilot, "#d-template", "check")
        await wait_for(pilot, lambda: "%" in screen.chance_shown, "a check of 12 dice has odds")
        no_bugs(app)
