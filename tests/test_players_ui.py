"""Pilot tests at 80x24 of players at the table (issue 14): the player's keys, the
declare form's actor list, take back, the GM's approval queue (approve, edit, refuse
with a reason the player sees) and the log naming who made each change.

The fight is the real Brand X one in saves/ (Seraph and Sphinx), with Nyx added; a
punch asks for "Seraph's Combat Roll: 2d10", typed here as 5,4, then Sphinx's Throwback Roll. Sessions
that stand for other people's apps work on the same file, as separate processes would.
"""

from __future__ import annotations

from tests.helpers import shipped_fights

import shutil
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, Label, OptionList

from tracker.play.form import FormStage
from tracker.engine import table
from tracker.persistence.store import EncounterFile
from tracker.reading.roles import Role
from tracker.ui.app import TrackerApp
from tracker.ui.textual_private import screen_lines
from tracker.ui.commands import ENCOUNTER, CommandTable, for_role
from tracker.ui.screens.approvals import ApprovalsScreen, EditProposalScreen
from tracker.ui.screens.declare import DeclareScreen
from tracker.ui.screens.encounter import EncounterScreen
from tracker.ui.screens.form import FormScreen
from tracker.ui.widgets.log import CombatLog
from tests.ui import press, settle, wait_for
from tests.test_players import fresh, open_as

pytestmark = pytest.mark.ui

SIZE = (80, 24)
ROOT = Path(__file__).resolve().parent.parent
FIGHT = ROOT / "saves" / "seraph-vs-sphinx.toml"
SERAPH = Role.player(["Seraph"])


@pytest.fixture
def fight(saves: Path) -> Path:
    path = saves / "fight.toml"
    shutil.copy(FIGHT, path)
    gm = open_as(path, "alice")
    gm.execute("add Nyx")
    return path


def notes(app: TrackerApp) -> list[str]:
    return [n.message for n in app.notifications_shown]


def log_text(app: TrackerApp) -> str:
    log = app.screen.query_one(CombatLog)
    return "\n".join(log.loaded_lines())

async def type_into(pilot: Any, selector: str, text: str) -> None:
    widget = pilot.app.screen.query_one(selector, Input)
    widget.focus()
    widget.value = ""
    await press(pilot, *text)


def player_app(saves: Path, path: Path, names: tuple[str, ...] = ("Seraph",), user: str = "bob") -> TrackerApp:
    return TrackerApp(saves, path, user=user, role=Role.player(names))


async def declare_punch(pilot: Any, target: str = "Sphinx", faces: str = "5,4") -> DeclareScreen:
    """Through the form: a punch, the 2d10 typed, then commit after the result."""
    app = pilot.app
    await press(pilot, "a")
    await wait_for(pilot, lambda: isinstance(app.screen, DeclareScreen), "the declare form")
    form = app.screen
    assert isinstance(form, DeclareScreen)
    await type_into(pilot, "#d-targets", target)
    await press(pilot, "ctrl+s")
    await wait_for(pilot, lambda: form.stage == FormStage.DICE, "the dice prompt")
    assert "Seraph's Combat Roll: 2d10" in str(form.query_one("#dice-prompt", Label).render())
    await type_into(pilot, "#dice-faces", faces)
    await press(pilot, "enter")
    # The target's Throwback Roll is asked for up front (judged when the blow lands).
    await wait_for(pilot, lambda: "Throwback Roll: 2d10" in str(form.query_one("#dice-prompt", Label).render()), "the Throwback Roll")
    await type_into(pilot, "#dice-faces", "10,10")
    await press(pilot, "enter")
    await wait_for(pilot, lambda: form.stage == FormStage.RESULT, "the roll's result")
    await press(pilot, "ctrl+s")
    await wait_for(pilot, lambda: isinstance(app.screen, EncounterScreen), "back on the encounter")
    return form


# ----------------------------------------------------------------- the player's keys
async def test_a_player_is_offered_only_their_keys_and_refused_the_rest(saves: Path, fight: Path) -> None:
    app = player_app(saves, fight)
    before = fresh(fight)
    before_revision = EncounterFile(fight).load().revision
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, EncounterScreen)
        footer = {b.binding.id for b in app.active_bindings.values() if b.binding.show and b.enabled}
        assert footer == {"declare", "maintain", "takeback", "glance", "help", "quit", "command_line"}
        assert "[player: Seraph]" in str(screen.query_one("#clock").render())
        # The palette offers the same rows as the footer's check: the player's table.
        hits = [hit async for hit in CommandTable(screen).discover()]
        mine = for_role(ENCOUNTER, SERAPH)
        assert len(hits) == len(mine) and {c.name for c in mine} >= {"declare", "maintain", "abort", "takeback", "history"}
        assert not {c.name for c in mine} & {"next", "step", "damage", "undo", "redo", "roster", "approvals", "viewers", "note"}
        # GM keys do nothing (not even a message: they are not bound for a player).
        for key in ("n", "full_stop", "d", "e", "p", "v", "r", "N"):
            await press(pilot, key)
            assert isinstance(app.screen, EncounterScreen), key
        assert fresh(fight).now == before.now and not app.errors
        # The `:` line is offered, and its commands pass the session's guard.
        for line, words in (("next", "moving time"), ("damage Sphinx 5", "damage"), ("declare Sphinx punch target=Seraph", "not your combatant")):
            await press(pilot, "colon")
            await wait_for(pilot, lambda: isinstance(app.screen, FormScreen), "the command line")
            await press(pilot, *line, "enter")
            error = app.screen.query_one("#form-error", Label)
            await wait_for(pilot, lambda: words in str(error.render()), f"the refusal of {line}")
            await press(pilot, "escape")
            await wait_for(pilot, lambda: app.screen is screen, "the command line closed")
        assert EncounterFile(fight).load().revision == before_revision
        await press(pilot, "question_mark")
        await wait_for(pilot, lambda: app.screen is not screen, "the help screen")
        shown = "\n".join(screen_lines(app))
        assert "player of Seraph" in shown and "Take back" in shown and "Damage:" not in shown


# What each role may use of the command language (tracker.play.verbs, each verb's `roles`),
# written out by hand: a player declares, maintains, aborts, takes back and rolls for the
# table; a viewer changes nothing.
PLAYER_VERBS = ["declare", "maintain", "abort", "undo", "redo", "roll", "proposals", "takeback"]


def help_shown(app: TrackerApp) -> str:
    """The help screen's table as text, wide enough that no usage wraps."""
    from rich.console import Console
    from textual.widgets import Static

    console = Console(width=400, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    console.print(list(app.screen.query(Static))[-1].content)
    return console.export_text()


@pytest.mark.parametrize("who", ["gm", "player", "viewer"])
async def test_help_and_the_command_line_offer_only_the_verbs_the_role_may_use(saves: Path, fight: Path, who: str) -> None:
    from tracker.play import verbs
    from tracker.ui.screens.help import HelpScreen

    expected = {"gm": [v.name for v in verbs.VERBS], "player": PLAYER_VERBS, "viewer": []}[who]
    app = {"gm": TrackerApp(saves, fight, user="alice"), "player": player_app(saves, fight), "viewer": TrackerApp(saves, fight, viewer=True)}[who]
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        await press(pilot, "question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "the help screen")
        text = help_shown(app)
        listed = [v.name for v in verbs.VERBS if f"{v.usage_for(who)}  ({v.help_for(who)})" in text]
        assert listed == expected
        # Only what the role may use: a secret roll is the GM's.
        assert ("secret=" in text) == (who == "gm")
        assert ("The : line takes these commands:" in text) == bool(expected)
        await press(pilot, "escape")
        await wait_for(pilot, lambda: app.screen is screen, "the help closed")
        await press(pilot, "colon")
        if not expected:  # a viewer has no `:` line
            assert app.screen is screen and not app.errors
            return
        await wait_for(pilot, lambda: isinstance(app.screen, FormScreen), "the command line")
        form = app.screen
        assert isinstance(form, FormScreen)
        offered = list(form.fields[0].suggestions)
        assert [w for w in offered if w.count(" ") == 1] == [f"{name} " for name in expected]
        assert {w.split()[0] for w in offered} == set(expected)  # a name only after a verb it may use
        assert "declare Seraph " in offered and ("damage Seraph " in offered) == (who == "gm")
        assert not app.errors


async def test_the_player_declares_for_their_own_only_through_the_form(saves: Path, fight: Path) -> None:
    app = player_app(saves, fight)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await press(pilot, "down")  # Sphinx selected: still Seraph is the actor offered
        await press(pilot, "a")
        await wait_for(pilot, lambda: isinstance(app.screen, DeclareScreen), "the declare form")
        form = app.screen
        assert isinstance(form, DeclareScreen)
        assert form.actors == ["Seraph"] and form.query_one("#d-actor", Input).value == "Seraph"
        await type_into(pilot, "#d-actor", "Sphinx")
        assert "not your combatant" in str(form.query_one("#d-actor-error", Label).render())
        await type_into(pilot, "#d-actor", "Seraph")
        await press(pilot, "escape")
        await wait_for(pilot, lambda: isinstance(app.screen, EncounterScreen), "the form closed")
        await declare_punch(pilot)
        await wait_for(pilot, lambda: not app.screen.live.store.pending, "the save")
        text = log_text(app)
    enc = fresh(fight)
    (action,) = enc.combatant("Seraph").in_progress
    assert action.resolution.dice[:2] == (5, 4)
    assert enc.events[-1].by == "player:bob" and enc.events[-1].kind == "declare"
    assert "Seraph initiates" in text and "· player bob" in text


async def test_take_back_until_the_gm_moves_on(saves: Path, fight: Path) -> None:
    app = player_app(saves, fight)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        live = app.screen.live
        await declare_punch(pilot)
        await press(pilot, "u")
        await wait_for(pilot, lambda: live.encounter.combatant("Seraph").in_progress == [], "the take back")
        await declare_punch(pilot)
        await wait_for(pilot, lambda: not live.store.pending, "the save")
        gm = open_as(fight, "alice")
        gm.execute("step")
        await wait_for(pilot, lambda: live.encounter.now == gm.encounter.now, "the player to follow the GM")
        await press(pilot, "u")
        await wait_for(pilot, lambda: any("ask the GM" in n for n in notes(app)), "the refusal")
        assert len(live.encounter.combatant("Seraph").in_progress) == 1 and not app.errors
    enc = fresh(fight)
    assert len(enc.combatant("Seraph").in_progress) == 1 and enc.events[-1].by == "alice"


# ----------------------------------------------------------------- approvals
def approval_mode(path: Path) -> None:
    open_as(path, "alice").setting(table.PLAYER_DECLARATIONS, table.APPROVAL)


async def open_queue(pilot: Any, gm: TrackerApp) -> ApprovalsScreen:
    """The GM's approvals queue, opened with its key once the app has settled."""
    await settle(pilot)
    await press(pilot, "p")
    await wait_for(pilot, lambda: isinstance(gm.screen, ApprovalsScreen), "the approvals screen")
    assert isinstance(gm.screen, ApprovalsScreen)
    return gm.screen


async def test_the_gm_switches_approval_on_from_the_app_and_approves(saves: Path, fight: Path) -> None:
    gm = TrackerApp(saves, fight, user="alice")
    async with gm.run_test(size=SIZE, notifications=True) as pilot:
        queue = await open_queue(pilot, gm)
        assert "apply at once" in str(queue.query_one("#approvals-mode", Label).render())
        await press(pilot, "t")
        await wait_for(pilot, lambda: queue.live.encounter.table.get(table.PLAYER_DECLARATIONS) == table.APPROVAL, "approval on")
        await press(pilot, "escape")
        await wait_for(pilot, lambda: isinstance(gm.screen, EncounterScreen), "back")
        await wait_for(pilot, lambda: not gm.screen.live.store.pending, "the save")
        bob = open_as(fight, "bob", SERAPH)
        seq = bob.execute("declare Seraph punch target=Sphinx faces=5,4,10,10").event.seq  # type: ignore[union-attr]
        screen = gm.screen
        await wait_for(pilot, lambda: "1 waiting for approval (p)" in str(screen.query_one("#clock").render()), "the clock bar's count")
        await wait_for(pilot, lambda: any("p: approve" in n and "player bob" in n for n in notes(gm)), "the GM told")
        await press(pilot, "p")
        await wait_for(pilot, lambda: isinstance(gm.screen, ApprovalsScreen) and gm.screen.shown == [seq], "the proposal listed")
        await press(pilot, "a")
        await wait_for(pilot, lambda: gm.screen.shown == [], "the queue emptied")
        await press(pilot, "escape")
        await wait_for(pilot, lambda: isinstance(gm.screen, EncounterScreen), "back")
        text = log_text(gm)
        assert "· player bob, approved by GM alice" in text
        assert not gm.errors
    enc = fresh(fight)
    (action,) = enc.combatant("Seraph").in_progress
    assert action.resolution.dice[:2] == (5, 4) and enc.pending() == []


async def test_the_open_queue_lists_a_proposal_as_it_arrives_and_drops_it_when_it_lapses(saves: Path, fight: Path) -> None:
    """The queue hears of another session's changes as the panes do (no timer of its
    own): a player's proposal appears while it is open, and time moved by a second GM
    lapses it (engine.proposals: moving time lapses every pending one)."""
    approval_mode(fight)
    gm = TrackerApp(saves, fight, user="alice")
    async with gm.run_test(size=SIZE, notifications=True) as pilot:
        queue = await open_queue(pilot, gm)
        assert isinstance(queue, ApprovalsScreen) and queue.shown == []
        bob = open_as(fight, "bob", SERAPH)
        seq = bob.execute("declare Seraph punch target=Sphinx faces=5,4,10,10").event.seq  # type: ignore[union-attr]
        await wait_for(pilot, lambda: queue.shown == [seq], "the proposal listed as it arrives")
        assert "player bob" in str(queue.query_one(OptionList).get_option_at_index(0).prompt)
        other_gm = open_as(fight, "carol")
        other_gm.execute("step")
        await wait_for(pilot, lambda: queue.shown == [], "the lapsed proposal gone from the list")
        assert gm.screen is queue and not gm.errors
    assert fresh(fight).proposals[seq].status == "lapsed"


async def test_the_gm_edits_a_proposal_then_approves_it_with_the_players_dice(saves: Path, fight: Path) -> None:
    approval_mode(fight)
    bob = open_as(fight, "bob", SERAPH)
    seq = bob.execute("declare Seraph punch target=Sphinx faces=5,4,10,10").event.seq  # type: ignore[union-attr]
    gm = TrackerApp(saves, fight, user="alice")
    async with gm.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await press(pilot, "p")
        await wait_for(pilot, lambda: isinstance(gm.screen, ApprovalsScreen) and gm.screen.shown == [seq], "the queue")
        await press(pilot, "e")
        await wait_for(pilot, lambda: isinstance(gm.screen, EditProposalScreen), "the form, filled")
        form = gm.screen
        assert form.query_one("#d-template", Input).value == "punch"
        assert form.query_one("#d-targets", Input).value == "Sphinx"
        assert form.actors == ["Seraph"] and form.faces == [5, 4, 10, 10]
        await type_into(pilot, "#d-targets", "Nyx")  # the GM aims it elsewhere
        await press(pilot, "ctrl+s")
        await wait_for(pilot, lambda: form.stage == FormStage.RESULT, "the result with the player's dice")
        assert "rolled 5+4" in str(form.query_one("#result", Label).render())
        await press(pilot, "ctrl+s")
        await wait_for(pilot, lambda: isinstance(gm.screen, ApprovalsScreen) and gm.screen.shown == [], "approved")
        assert not gm.errors
    enc = fresh(fight)
    (action,) = enc.combatant("Seraph").in_progress
    assert action.targets == ["Nyx"] or tuple(action.targets) == ("Nyx",)
    assert action.resolution.dice[:2] == (5, 4) and enc.proposals[seq].status == "approved"


async def test_the_edit_form_keeps_naming_the_proposal_and_approves_it_secret(saves: Path, fight: Path) -> None:
    """The form's title names the proposal being decided for as long as it is open (a
    field's change does not turn it into a plain declaration), and "secret" set in it
    makes the approved action secret."""
    approval_mode(fight)
    bob = open_as(fight, "bob", SERAPH)
    seq = bob.execute("declare Seraph punch target=Sphinx faces=5,4,10,10").event.seq  # type: ignore[union-attr]
    gm = TrackerApp(saves, fight, user="alice")
    async with gm.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await press(pilot, "p")
        await wait_for(pilot, lambda: isinstance(gm.screen, ApprovalsScreen) and gm.screen.shown == [seq], "the queue")
        await press(pilot, "e")
        await wait_for(pilot, lambda: isinstance(gm.screen, EditProposalScreen), "the form, filled")
        form = gm.screen
        await settle(pilot)

        def title() -> str:
            return str(form.query_one("#declare-title", Label).render())

        assert title().startswith(f"Edit proposal {seq} (Seraph, punch")
        await press(pilot, "ctrl+o")
        await type_into(pilot, "#d-secret", "yes")
        await wait_for(pilot, lambda: "· secret" in title(), "the title marked secret")
        assert title().startswith(f"Edit proposal {seq} (Seraph, punch")
        await press(pilot, "ctrl+s")
        await wait_for(pilot, lambda: form.stage == FormStage.RESULT, "the result with the player's dice")
        await press(pilot, "ctrl+s")
        await wait_for(pilot, lambda: isinstance(gm.screen, ApprovalsScreen) and gm.screen.shown == [], "approved")
        assert not gm.errors
    (action,) = fresh(fight).combatant("Seraph").in_progress
    assert action.secret and action.resolution.dice[:2] == (5, 4)


async def test_the_gm_refuses_with_a_reason_and_the_player_sees_it(saves: Path, fight: Path) -> None:
    approval_mode(fight)
    player = player_app(saves, fight)
    async with player.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        screen = player.screen
        await declare_punch(pilot)
        await wait_for(pilot, lambda: any("waiting for the GM" in n for n in notes(player)), "the player told it waits")
        await wait_for(pilot, lambda: "1 waiting for the GM" in str(screen.query_one("#clock").render()), "the player's waiting mark")
        await wait_for(pilot, lambda: not screen.live.store.pending, "the save")
        (p,) = fresh(fight).pending()
        gm = TrackerApp(saves, fight, user="alice")
        async with gm.run_test(size=SIZE, notifications=True) as gm_pilot:
            await settle(gm_pilot)
            await press(gm_pilot, "p")
            await wait_for(gm_pilot, lambda: isinstance(gm.screen, ApprovalsScreen) and gm.screen.shown == [p.seq], "the queue")
            await press(gm_pilot, "r")
            await wait_for(gm_pilot, lambda: isinstance(gm.screen, FormScreen), "the reason asked")
            await press(gm_pilot, *"Sphinx is out of reach", "enter")
            await wait_for(gm_pilot, lambda: isinstance(gm.screen, ApprovalsScreen) and gm.screen.shown == [], "refused")
            await wait_for(gm_pilot, lambda: not gm.screen.live.store.pending, "the save")
        await wait_for(pilot, lambda: any("refused by the GM: Sphinx is out of reach" in n for n in notes(player)), "the player told why")
        await wait_for(pilot, lambda: "Sphinx is out of reach" in log_text(player), "the refusal in the player's log")
        assert "waiting for the GM" not in str(screen.query_one("#clock").render())
        assert screen.live.encounter.combatant("Seraph").in_progress == []
        assert not player.errors


async def test_the_log_names_who_and_hides_what_a_player_may_not_see(saves: Path, fight: Path) -> None:
    approval_mode(fight)
    gm = open_as(fight, "alice")
    gm.execute("add Ghost hidden=true")
    gm.execute("declare Ghost punch target=Nyx faces=5,4,10,10")
    dan = open_as(fight, "dan", Role.player(["Nyx"]))
    dan.execute("declare Nyx punch target=Sphinx faces=3,3,10,10")
    app = player_app(saves, fight)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        text = log_text(app)
        assert "Ghost" not in text and "proposal" not in text  # hidden, and another player's proposal
        assert "· GM alice" in text
        from tracker.ui.screens.history import history_rows

        rows = "\n".join(str(r) for r in history_rows(app.screen.live))
        assert "Ghost" not in rows and "player dan" not in rows and "Seraph" in rows  # as the log
    gm_app = TrackerApp(saves, fight, user="alice")
    async with gm_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        text = log_text(gm_app)
        assert "Ghost" in text and "(waiting for the GM) · player dan" in text


# ----------------------------------------------------------------- every ruleset
SAMPLES = shipped_fights(playable=True)


@pytest.mark.parametrize("sample", SAMPLES, ids=[p.stem for p in SAMPLES])
async def test_a_player_proposes_through_the_form_in_every_ruleset_and_the_gm_approves_those_dice(saves: Path, sample: Path) -> None:
    path = saves / sample.name
    shutil.copy(sample, path)
    approval_mode(path)
    enc = fresh(path)
    seen = [c for c in enc.combatants.values() if not c.hidden]
    me = next(c.name for c in seen if c.active is None and not c.down)  # free to act now
    other = next(c.name for c in seen if c.name != me)
    app = player_app(saves, path, (me,))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await press(pilot, "a")
        await wait_for(pilot, lambda: isinstance(app.screen, DeclareScreen), "the declare form")
        form = app.screen
        assert isinstance(form, DeclareScreen) and form.actors == [me]
        form.query_one("#d-targets", Input).value = other  # as typed (the keys: tests above)
        await settle(pilot)
        await press(pilot, "ctrl+r")  # roll every die the adapter asks for
        await wait_for(pilot, lambda: form.stage == FormStage.RESULT, "the result")
        faces = list(form.faces)
        await press(pilot, "ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, EncounterScreen), "committed")
        await wait_for(pilot, lambda: not app.screen.live.store.pending, "the save")
        assert not app.errors
    (p,) = fresh(path).pending()
    assert p.actor == me and fresh(path).events[p.seq - 1].args.get("faces", []) == faces
    open_as(path, "alice").approve(p.seq)
    action = fresh(path).combatant(me).in_progress[-1]
    assert list(action.resolution.dice)[: len(faces)] == faces or not faces


async def test_the_form_refuses_a_players_declaration_by_the_initiation_rules(saves: Path, fight: Path) -> None:
    app = player_app(saves, fight)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await declare_punch(pilot)
        await press(pilot, "a")
        await wait_for(pilot, lambda: isinstance(app.screen, DeclareScreen), "the declare form")
        form = app.screen
        await type_into(pilot, "#d-targets", "Nyx")
        await press(pilot, "ctrl+r")
        error = form.query_one("#declare-error", Label)
        error = form.query_one("#declare-error", Label)
        # The same refusal, naming the rule, as the GM's form shows; the form stays open.
        await wait_for(pilot, lambda: "(rule: one initiation per segment)" in str(error.render()), "the refusal")
        assert isinstance(app.screen, DeclareScreen) and not app.errors
    assert len(fresh(fight).combatant("Seraph").in_progress) == 1


async def test_a_player_sees_their_own_sheet_in_full_even_hidden_and_a_read_only_start_screen(saves: Path, fight: Path) -> None:
    from tracker.ui.widgets.roster import DetailView, RosterView

    gm = open_as(fight, "alice")
    gm.execute("add Shade hidden=true side=foes")
    gm.execute("add Ghost hidden=true side=foes")
    gm.execute("setting viewer_resources hidden")
    app = player_app(saves, fight, ("Shade",), user="eve")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        roster = screen.query_one(RosterView)
        assert [c.name for c in roster.combatants] == ["Seraph", "Sphinx", "Nyx", "Shade"]  # not Ghost
        assert roster.current is not None and roster.current.name == "Shade"  # starts on their own
        detail = str(screen.query_one(DetailView).render())
        assert "vp" in detail and "hidden from viewers" in detail and "resources hidden" not in detail
        await press(pilot, "up", "up")  # Sphinx, an enemy: figures withheld as from a viewer
        await wait_for(pilot, lambda: "resources hidden from viewers" in str(screen.query_one(DetailView).render()), "Sphinx withheld")
    # Without a file: the start screen, read-only for a player too.
    start = TrackerApp(saves, None, user="eve", role=Role.player(["Shade"]))
    async with start.run_test(size=SIZE, notifications=True) as pilot:
        await wait_for(pilot, lambda: getattr(start.screen, "listings", None), "the list of encounters")
        footer = {b.binding.id for b in start.active_bindings.values() if b.binding.show and b.enabled}
        assert not footer & {"new", "duplicate", "delete"}
        await press(pilot, "n", "delete", "c")
        assert sorted(p.name for p in saves.glob("*.toml")) == ["fight.toml"] and not start.errors
