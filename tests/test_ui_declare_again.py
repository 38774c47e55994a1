"""The declare form's recent actions at 80x24: one digit takes one, in every game.

Issue 22, "What must be true" 4: "the same action against the same target again is one
key plus the dice, and the defaults (target, PT, modifiers) come from the last one".
Which entries are offered is `tracker.recent`'s (tests/test_recent.py); here, the keys.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, Label

from tracker.persistence.store import EncounterFile
from tracker.roles import Role
from tracker.ui.app import TrackerApp
from tracker.ui.screens.declare import DICE, RESULT, SETUP, DeclareScreen
from tracker.ui.screens.encounter import EncounterScreen
from tests.test_ui_declare import CASES, copy_save, gamble, gamble_file  # noqa: F401 (gamble: a fixture)
from tests.ui import press, settle, wait_for

pytestmark = pytest.mark.ui

SIZE = (80, 24)


def field(screen: DeclareScreen, selector: str) -> str:
    return screen.query_one(selector, Input).value


def refusal(app: TrackerApp) -> str:
    screen = app.screen
    return str(screen.query_one("#declare-error", Label).render()) if isinstance(screen, DeclareScreen) else ""


def shown(screen: DeclareScreen) -> str:
    return str(screen.query_one("#recent", Label).render())


async def open_form(pilot: Any, app: TrackerApp, actor: str = "") -> DeclareScreen:
    await wait_for(pilot, lambda: isinstance(app.screen, EncounterScreen), "the encounter screen")
    await press(pilot, "a")
    await wait_for(pilot, lambda: isinstance(app.screen, DeclareScreen) and app.screen.focused is not None, "the declare form")
    screen = app.screen
    assert isinstance(screen, DeclareScreen)
    if actor and field(screen, "#d-actor") != actor:
        screen.query_one("#d-actor", Input).focus()
        await settle(pilot)
        await press(pilot, "ctrl+u", *actor)
        screen.query_one("#d-template", Input).focus()
        await settle(pilot)
    return screen


@pytest.mark.parametrize("game", sorted(CASES))
async def test_the_same_again_is_one_key_plus_the_dice_in_every_game(saves: Path, game: str) -> None:
    save, actor, action, _ = CASES[game]
    path = copy_save(saves, save)
    before = len(EncounterFile(path).load().encounter.events)
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_form(pilot, app, actor)
        assert screen.recent, "the save holds a declaration of the actor's"
        # The saves' blows (a D6 check made on the : line wants its difficulty again).
        index = next((i for i, r in enumerate(screen.recent) if r.targets), 0)
        again = screen.recent[index]
        assert shown(screen).splitlines()[index] == f"{index + 1} {again.label()}"
        # One key, then the app's dice (ctrl+r) and the commit, typed in one burst.
        await press(pilot, str(index + 1), "ctrl+r", "ctrl+s")
        assert isinstance(app.screen, EncounterScreen), refusal(app)
        made = app.screen.live.encounter.actions[-1]
        assert (made.actor, made.template, made.targets) == (actor, again.template, again.targets)
        assert not getattr(app, "errors", [])
    saved = EncounterFile(path).load().encounter
    assert len(saved.events) == before + 1 and saved.events[-1].kind == "declare"


async def test_typed_dice_follow_the_digit_in_one_burst(saves: Path) -> None:
    path = copy_save(saves, "seraph-vs-sphinx.toml")
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_form(pilot, app, "Seraph")
        assert shown(screen) == "1 again: punch -> Sphinx"
        await press(pilot, "1", *"9,2", "enter")  # the faces land in the dice, not the action field
        assert screen.stage == DICE and screen.faces == [9, 2]
        assert (field(screen, "#d-template"), field(screen, "#d-targets")) == ("punch", "Sphinx")
        assert "85.00% (17/20)" in screen.chance_shown  # the chance of the choice taken
        await press(pilot, "escape")  # changes nothing
        assert isinstance(app.screen, EncounterScreen)
        made = len(app.screen.live.encounter.actions)
    assert len(EncounterFile(path).load().encounter.actions) == made == len(EncounterFile(copy_save(saves, "seraph-vs-sphinx.toml")).load().encounter.actions)


async def test_the_last_ones_pt_and_modifiers_are_the_defaults_and_stay_editable(saves: Path, gamble: None) -> None:
    path = gamble_file(saves)
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_form(pilot, app, "Ann")
        assert not screen.recent and not screen.query_one("#recent", Label).display
        await press(pilot, "ctrl+u", *"swing", "enter", *"Bob", "enter", "6", "enter", "ctrl+u", "5")
        assert (field(screen, "#d-pt"), field(screen, "#p-target")) == ("6", "5")
        await press(pilot, "ctrl+s", "4", "enter", "3", "enter")
        await wait_for(pilot, lambda: screen.stage == RESULT, "the result")
        await press(pilot, "ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, EncounterScreen), "committed")
        await press(pilot, "n")  # the swing completes: Ann may act again
        screen = await open_form(pilot, app, "Ann")
        assert shown(screen) == "1 again: swing -> Bob (PT 6, target=5)"
        await press(pilot, "2")  # no second entry: typed as usual
        assert field(screen, "#d-template") == "2" and screen.stage == SETUP
        await press(pilot, "ctrl+u", "x", "1")  # after one's own typing a digit is typed
        assert field(screen, "#d-template") == "x1" and screen.stage == SETUP
        await press(pilot, "ctrl+u", "1")  # emptied: the digit takes the entry again
        assert screen.stage == DICE
        await press(pilot, "ctrl+b")  # back to the choices, filled with the last one's
        assert screen.stage == SETUP
        assert [field(screen, s) for s in ("#d-template", "#d-targets", "#d-pt", "#p-target")] == ["swing", "Bob", "6", "5"]
        screen.query_one("#d-pt", Input).focus()
        await settle(pilot)
        await press(pilot, "ctrl+u", "1", "2")  # a digit in another field is typed
        assert field(screen, "#d-pt") == "12" and screen.stage == SETUP
        await press(pilot, "ctrl+s", "6", "enter", "1", "enter")
        await wait_for(pilot, lambda: screen.stage == RESULT, "the result")
        await press(pilot, "ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, EncounterScreen), "committed")
        made = app.screen.live.encounter.actions[-1]
        assert (made.template, made.targets, made.resolution.pt) == ("swing", ("Bob",), 12)
        assert not getattr(app, "errors", [])


async def test_a_player_is_never_offered_a_hidden_target(saves: Path, gamble: None) -> None:
    path = gamble_file(saves, ["add Cy hp=10", "declare Ann swing target=Bob faces=6,1", "step 10", "declare Ann swing target=Cy faces=6,1", "hide Cy"])
    gm = TrackerApp(saves, path)
    async with gm.run_test(size=SIZE) as pilot:
        screen = await open_form(pilot, gm, "Ann")
        assert shown(screen) == "1 again: swing -> Cy\n2 again: swing -> Bob"
    player = TrackerApp(saves, path, user="ann", role=Role.player(["Ann"]))
    async with player.run_test(size=SIZE) as pilot:
        screen = await open_form(pilot, player, "Ann")
        assert shown(screen) == "1 again: swing -> Bob"
        assert "Cy" not in "".join(str(w.render()) for w in screen.query(Label))


async def test_a_proposal_being_edited_is_never_replaced_by_a_recent_action(saves: Path) -> None:
    from tests.test_players import open_as
    from tracker.engine import table
    from tracker.ui.screens.approvals import ApprovalsScreen, EditProposalScreen

    path = copy_save(saves, "seraph-vs-sphinx.toml")  # Seraph punched Sphinx before
    open_as(path, "alice").execute("add Nyx")
    open_as(path, "alice").setting(table.PLAYER_DECLARATIONS, table.APPROVAL)
    seq = open_as(path, "bob", Role.player(["Seraph"])).execute("declare Seraph punch target=Nyx faces=5,4,10,10").event.seq  # type: ignore[union-attr]
    gm = TrackerApp(saves, path, user="alice")
    async with gm.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "p")
        await wait_for(pilot, lambda: isinstance(gm.screen, ApprovalsScreen) and gm.screen.shown == [seq], "the queue")
        await press(pilot, "e")
        await wait_for(pilot, lambda: isinstance(gm.screen, EditProposalScreen) and gm.screen.focused is not None, "the form, filled")
        form = gm.screen
        assert isinstance(form, EditProposalScreen)
        assert form.recent == [] and not form.query_one("#recent", Label).display
        form.query_one("#d-template", Input).focus()
        await settle(pilot)
        await press(pilot, "1")
        assert form.stage == SETUP and field(form, "#d-targets") == "Nyx"
        assert not gm.errors  # type: ignore[attr-defined]
