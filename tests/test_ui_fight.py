"""A whole fight in each ruleset from the keyboard only, at 80x24, as a GM types it.

New encounter on the start screen, combatants, a declaration, the next event, maintain
(or its refusal where the ruleset has no maintainable attack), abort, damage, a
condition, a scheduled event, undo and redo, quit; then the file is opened again and
must show the same state as the app did, and the same state again loaded straight
from the file. Keys are sent in bursts (every key of a line posted at once), as they
arrive over SSH. Declarations use the `:` line.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rulesets import registry
from rulesets.dice import RandomDice
from tracker.ui import live as live_module
from tracker import report
from tracker.persistence.store import EncounterFile
from tracker.ui.app import TrackerApp
from tracker.ui.screens.encounter import EncounterScreen
from tracker.ui.screens.roster import RosterScreen

from tests.test_ui_app import SIZE, notes, wait_for
from tests.test_ui_screen import burst, settle

# ruleset: (an attack with one target, an action to abort, is the attack maintainable)
FIGHTS = {
    "freeform": ("attack", "move", True),
    "brandx": ("blast pr=10", "jump", True),  # "Most blast/ray attack powers can be maintained"
    "usor": ("strike", "move", False),
    "d6": ("strike", "move", False),
    "ogs": ("attack", "move", False),
    "ore": ("punch", "move", False),
}


def state(enc) -> dict:
    data = report.to_json(enc)
    data.pop("can_redo", None)
    return data


async def keys(pilot, app: TrackerApp, text: str) -> None:
    burst(app, text)
    await settle(pilot, app)


@pytest.mark.parametrize("ruleset", sorted(FIGHTS))
async def test_a_whole_fight_from_the_keyboard(ruleset: str, saves: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert set(FIGHTS) <= set(registry.available())
    # Seeded dice: the fight goes the same way every run (an unlucky roll that put Bob
    # down would otherwise refuse his later declaration).
    monkeypatch.setattr(live_module, "RandomDice", lambda: RandomDice(20261123))
    attack, other, maintainable = FIGHTS[ruleset]
    app = TrackerApp(saves)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        await keys(pilot, app, f"nFight\r\x15{ruleset}\r")
        await wait_for(pilot, lambda: isinstance(app.screen, RosterScreen), "the roster editor")
        await keys(pilot, app, "\x1b")
        screen = app.screen
        assert isinstance(screen, EncounterScreen)
        live = screen.live
        path = live.path
        await keys(pilot, app, ":add Ann side=PC\r:add Bob\r")
        assert list(live.encounter.combatants) == ["Ann", "Bob"], (app.screen, notes(app), [i.value for i in app.screen.query("Input")])
        template, *extra = attack.split()
        await keys(pilot, app, f":declare Ann {template} target=Bob {' '.join(extra)}\r")
        action = live.encounter.actions[-1]
        assert (action.actor, action.template) == ("Ann", attack.split()[0])
        await keys(pilot, app, "n")
        assert live.encounter.now == action.completes
        before = len(live.encounter.events)
        await keys(pilot, app, "m")  # Ann is selected
        if maintainable:
            assert live.encounter.actions[-1].chain == 1
            await keys(pilot, app, "x")  # abort the maintained attack
            assert live.encounter.actions[-1].status == "aborted"
        else:
            assert len(live.encounter.events) == before
            assert any("rule:" in n for n in notes(app))
        await keys(pilot, app, f":declare Bob {other}\r")
        await pilot.press("down")
        await pilot.pause()
        assert screen.selected == "Bob", (app.screen, notes(app), [str(w.render()) for w in app.screen.query(".error")])
        await keys(pilot, app, "x")
        assert live.encounter.actions[-1].status == "aborted" and live.encounter.actions[-1].actor == "Bob"
        resource = live.session.default_resource("Bob")
        start = live.encounter.combatants["Bob"].resources[resource]
        await keys(pilot, app, "d1\r\r")
        assert live.encounter.combatants["Bob"].resources[resource] != start, (app.screen, notes(app), [i.value for i in app.screen.query("Input")], resource)
        await keys(pilot, app, "cstunned\r5\r")
        assert "stunned" in live.encounter.combatants["Bob"].conditions, list(app.key_hold.trace)
        await keys(pilot, app, "s\rreinforcements arrive\r")
        await keys(pilot, app, "n")
        assert any("reinforcements arrive" in e.text for e in live.encounter.log), (app.screen, notes(app), [e.text for e in live.encounter.log[-5:]], live.encounter.now)
        done = state(live.encounter)
        await keys(pilot, app, "u")
        assert state(live.encounter) != done
        await keys(pilot, app, "r")
        assert state(live.encounter) == done
        assert not app.errors
        await keys(pilot, app, "q")
    assert app.return_value == 0
    again = TrackerApp(saves, path)
    async with again.run_test(size=SIZE) as pilot:
        await pilot.pause()
        reopened = state(again.screen.live.encounter)
    assert reopened == done
    assert state(EncounterFile(path).load().encounter) == done
