"""A whole fight in each ruleset from the keyboard only, at 80x24, as a GM types it.

New encounter on the start screen, combatants; a declaration through the form (`a`)
with the dice typed as the form asks for them (a face that does not fit first, refused
with the CLI's words), after a change of mind (another action, Esc, start over), and
the choice made after seeing the dice (Brand X Q to speed, ORE wiggle die); the next
event; maintain (or its refusal where the ruleset has no maintainable attack); abort;
a second declaration through the form with the dice rolled (a seeded source), then
aborted; damage, a condition, a scheduled event, undo and redo, quit. The file is then
opened again and must show the same state as the app did, and the same state again
loaded straight from the file. Keys are sent in bursts (every key of a line posted at
once), as they arrive over SSH; what the test reads is what the form shows (its prompt
names the dice to type).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from textual.widgets import Input, Label

from rulesets import registry
from rulesets.dice import RandomDice
from tracker.reading import report
from tracker.persistence.store import EncounterFile
from tracker.play import live as live_module
from tracker.ui.app import TrackerApp
from tracker.play.form import FormStage
from tracker.ui.screens.declare import DeclareScreen
from tracker.ui.screens.encounter import EncounterScreen
from tracker.ui.screens.roster import RosterScreen

from tests.test_ui_app import SIZE, notes
from tests.ui import press, settle, type_text, wait_for

pytestmark = pytest.mark.ui


@dataclass(frozen=True)
class Fight:
    attack: str  # an attack with one target; Ann makes it with typed dice, Bob rolled
    maintainable: bool
    params: dict[str, str] = field(default_factory=dict)  # typed into the form's fields
    ann: str = ""  # more of Ann's sheet, for `:add`
    face: Callable[[int, int], int] = lambda sides, i: min(sides, 3)  # the i-th face typed
    after: tuple[str, str] | None = None  # (field, value) chosen after the roll


FIGHTS = {
    "freeform": Fight("attack", True),
    # "Most blast/ray attack powers can be maintained"; rolled low, the blast leaves Q,
    # and "Speed: Three points of Q divide Performance Time by 2" (seed 004).
    "brandx": Fight("blast", True, {"pr": "10"}, face=lambda sides, i: 2, after=("q_speed", "3")),
    "usor": Fight("strike", False),
    "d6": Fight("strike", False),
    "ogs": Fight("attack", False),
    # Ann's body holds a wiggle die: rolled 6 and 5, it makes 2x6 unset; set to 5, 2x5.
    "ore": Fight("punch", False, ann="body=2d+1wd", face=lambda sides, i: 6 - i, after=("wiggle", "5")),
}


def state(enc) -> dict:
    data = report.to_json(enc)
    data.pop("can_redo", None)
    return data


def form(app: TrackerApp) -> DeclareScreen:
    assert isinstance(app.screen, DeclareScreen), (app.screen, notes(app))
    return app.screen


def shown(screen: DeclareScreen, selector: str) -> str:
    return str(screen.query_one(selector, Label).render())


async def tab_to(pilot, app: TrackerApp, ident: str) -> None:
    """Tab through the form until the field `ident` has the focus."""
    for _ in range(30):
        if getattr(app.screen.focused, "id", None) == ident:
            return
        await press(pilot, "tab")
    raise AssertionError(f"tab never reached {ident}")


async def fill_form(pilot, app: TrackerApp, fight: Fight, target: str) -> DeclareScreen:
    """The form is open on the actor: the action, the target, the action's fields."""
    screen = form(app)
    assert screen.focused is screen.query_one("#d-template", Input)
    await press(pilot, "ctrl+u")
    await type_text(pilot, f"{fight.attack}\t{target}")
    for name, value in fight.params.items():
        await tab_to(pilot, app, f"p-{name}")
        await press(pilot, "ctrl+u")
        await type_text(pilot, value)
    return screen


async def type_dice(pilot, app: TrackerApp, screen: DeclareScreen, fight: Fight) -> list[int]:
    """Follow the form's prompts ("next: Ann's Combat Roll: 2d10"), one group at a time;
    the first answer is a face no die of the group has."""
    typed: list[int] = []
    wrong = True
    while screen.stage == FormStage.DICE:
        prompt = shown(screen, "#dice-prompt")
        dice = re.findall(r"(\d+)d(\d+)", prompt.rsplit(":", 1)[1])
        sides = [int(s) for count, s in dice for _ in range(int(count))]
        assert sides, prompt
        if wrong:
            await type_text(pilot, f"{sides[0] + 1}\r")
            assert shown(screen, "#declare-error") == f"faces: die 1 is a d{sides[0]}; {sides[0] + 1} is not one of its faces"
            await press(pilot, "ctrl+u")
            wrong = False
        faces = [fight.face(s, len(typed) + i) for i, s in enumerate(sides)]
        typed += faces
        await type_text(pilot, ",".join(map(str, faces)) + "\r")
        assert len(typed) < 30
    assert screen.stage == FormStage.RESULT, shown(screen, "#declare-error")
    return typed


@pytest.mark.parametrize("ruleset", sorted(FIGHTS))
async def test_a_whole_fight_from_the_keyboard(ruleset: str, saves: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert set(FIGHTS) <= set(registry.available())
    # Seeded dice: the fight goes the same way every run (an unlucky roll that put Bob
    # down would otherwise refuse his later declaration).
    monkeypatch.setattr(live_module, "RandomDice", lambda: RandomDice(20261123))
    fight = FIGHTS[ruleset]
    app = TrackerApp(saves)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await type_text(pilot, f"nFight\r\x15{ruleset}\r")
        await wait_for(pilot, lambda: isinstance(app.screen, RosterScreen), "the roster editor")
        await type_text(pilot, "\x1b")
        screen = app.screen
        assert isinstance(screen, EncounterScreen)
        live = screen.live
        path = live.path
        await type_text(pilot, f":add Ann side=PC {fight.ann}\r:add Bob\r")
        assert list(live.encounter.combatants) == ["Ann", "Bob"], (app.screen, notes(app), [i.value for i in app.screen.query("Input")])
        assert screen.selected == "Ann"

        # A change of mind: another action, escape, nothing declared; then the real one.
        events_before = len(live.encounter.events)
        await type_text(pilot, "a")
        await press(pilot, "ctrl+u")
        await type_text(pilot, "move\tBob [x]\x1b")
        assert app.screen is screen and len(live.encounter.events) == events_before
        await type_text(pilot, "a")
        declare = await fill_form(pilot, app, fight, "Bob")
        assert form(app).query_one("#d-actor", Input).value == "Ann"
        await press(pilot, "ctrl+s")
        typed = await type_dice(pilot, app, declare, fight)
        assert typed == declare.faces and (typed or ruleset == "freeform")
        if fight.after:
            name, value = fight.after
            assert declare.focused is declare.query_one(f"#a-{name}", Input)
            assert "after the roll: " in shown(declare, "#result")
            await type_text(pilot, value)
        await press(pilot, "ctrl+s")  # enter would move to the next after-roll choice
        assert app.screen is screen, (app.screen, shown(declare, "#declare-error"))
        action = live.encounter.actions[-1]
        assert (action.actor, action.template, list(action.resolution.dice)) == ("Ann", fight.attack, typed)
        if ruleset == "brandx":  # 3 Q on speed: the blast's PT 20 halved
            assert action.pt == 10 and "3 to speed" in action.resolution.summary
        if ruleset == "ore":
            assert action.resolution.details["wiggle"] == [5] and "2x5" in action.resolution.summary

        await type_text(pilot, "n")
        assert live.encounter.now == action.completes
        before = len(live.encounter.events)
        await type_text(pilot, "m")  # Ann is selected; maintaining these takes no dice
        if ruleset == "freeform":  # the GM states each link's outcome, so `m` asks for the damage
            maintain = form(app)
            await tab_to(pilot, app, "p-damage")
            await press(pilot, "ctrl+u")
            await type_text(pilot, "3")
            await press(pilot, "ctrl+s")
            assert maintain.stage == FormStage.RESULT, shown(maintain, "#declare-error")
            await press(pilot, "enter")
            link = live.encounter.actions[-1]
            assert [(e.kind, e.target, e.amount) for e in link.resolution.effects] == [("damage", "Bob", 3)], notes(app)
        assert app.screen is screen
        if fight.maintainable:
            assert live.encounter.actions[-1].chain == 1, notes(app)
            await type_text(pilot, "x")  # abort the maintained attack
            assert live.encounter.actions[-1].status == "aborted"
        else:
            assert len(live.encounter.events) == before
            assert any("rule:" in n for n in notes(app))

        # Bob answers through the form, the dice rolled (seeded); then thinks better of it.
        await press(pilot, "down")
        assert screen.selected == "Bob"
        await type_text(pilot, "a")
        declare = await fill_form(pilot, app, fight, "Ann")
        assert declare.query_one("#d-actor", Input).value == "Bob"
        await press(pilot, "ctrl+r")
        assert declare.stage == FormStage.RESULT, shown(declare, "#declare-error")
        rolled = list(declare.faces)
        await press(pilot, "enter")
        assert app.screen is screen, shown(declare, "#declare-error")
        answer = live.encounter.actions[-1]
        assert (answer.actor, answer.template, list(answer.resolution.dice)) == ("Bob", fight.attack, rolled)
        assert rolled or ruleset == "freeform"
        await type_text(pilot, "x")
        assert live.encounter.actions[-1].status == "aborted" and live.encounter.actions[-1].actor == "Bob"

        resource = live.session.default_resource("Bob")
        start = live.encounter.combatants["Bob"].resources[resource]
        await type_text(pilot, "d1\r\r")
        assert live.encounter.combatants["Bob"].resources[resource] != start, (app.screen, notes(app), [i.value for i in app.screen.query("Input")], resource)
        await type_text(pilot, "cstunned\r5\r")
        assert "stunned" in live.encounter.combatants["Bob"].conditions, list(app.key_hold.trace)
        await type_text(pilot, "s\rreinforcements arrive\r")
        await type_text(pilot, "n")
        assert any("reinforcements arrive" in e.text for e in live.encounter.log), (app.screen, notes(app), [e.text for e in live.encounter.log[-5:]], live.encounter.now)
        done = state(live.encounter)
        await type_text(pilot, "u")
        assert state(live.encounter) != done
        await type_text(pilot, "r")
        assert state(live.encounter) == done
        assert not app.errors
        await type_text(pilot, "q")
    assert app.return_value == 0
    again = TrackerApp(saves, path)
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        reopened = state(again.screen.live.encounter)
    assert reopened == done
    assert state(EncounterFile(path).load().encounter) == done
