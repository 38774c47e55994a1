"""Direct tests of tracker.ui.screens.approvals, worked from its docstring and
docs/guide/players.md: the GM's queue of players' declarations waiting
(`player_declarations = approval`); `a` or Enter approves the highlighted one as the
player made it, `e` opens the declare form filled with it (an abort has nothing to
edit: `e` says so), `r` asks for a reason and refuses (the player sees the reason), `t`
switches between applying players' declarations at once and waiting here; the list
follows the file while open (it hears of every change as the panes do), keeping the
highlighted proposal highlighted while it is still waiting.

The screen is shown alone in a bare app (tests/ui.py's `ScreenApp`) at 80x24 over the
shipped Brand X fight (Seraph and Sphinx, Nyx added); other people's sessions work on
the same file as separate processes would, and every answer is read back from the file
with a fresh load. Waits are on conditions, capped at 10 seconds."""

from __future__ import annotations

import contextlib

import shutil
from pathlib import Path
from collections.abc import AsyncIterator
from typing import Any

import pytest
from rich.text import Text
from textual.containers import Vertical
from textual.widgets import Input, Label, OptionList

from tracker.engine import TrackerError, table
from tracker.play.live import Changed, Live
from tracker.play.requests import DECLARE, MAINTAIN
from tracker.reading.roles import Role
from tracker.ui.screens.approvals import ApprovalsScreen, EditProposalScreen, mode_line
from tracker.ui.screens.form import FormScreen
from tracker.ui.screens.help import HelpScreen
from tracker.ui.widgets.footer import KeyFooter
from tests.test_players import fresh, open_as
from tests.ui import ScreenApp, wait_for

pytestmark = pytest.mark.ui

WAIT = 10.0
FIGHT = Path(__file__).resolve().parent.parent / "saves" / "seraph-vs-sphinx.toml"
SERAPH = Role.player(["Seraph"])
SPHINX = Role.player(["Sphinx"])
AT_ONCE_LINE = "Players' declarations apply at once (t: make them wait here for approval)"
WAITING_LINE = "Players' declarations wait here for the GM (t: apply them at once)"


class _App(ScreenApp):
    """The bare app, its notifications kept: (message, severity, timeout)."""

    def __init__(self, screen: Any) -> None:
        super().__init__(screen)
        self.said: list[tuple[str, str, Any]] = []
        self.errors: list[BaseException] = []

    def notify(self, message: str, *, title: str = "", severity: str = "information", timeout: float | None = None, markup: bool = True) -> None:  # type: ignore[override]
        self.said.append((str(message), severity, timeout))


@pytest.fixture
def fight(tmp_path: Path) -> Path:
    path = tmp_path / "fight.toml"
    shutil.copy(FIGHT, path)
    open_as(path, "alice").execute("add Nyx")
    return path


def _waiting(path: Path) -> tuple[int, int]:
    """Approval on; bob proposes Seraph's punch at Sphinx (his dice typed), dan proposes
    Sphinx's abort."""
    open_as(path, "alice").setting(table.PLAYER_DECLARATIONS, table.APPROVAL)
    punch = open_as(path, "bob", SERAPH).execute("declare Seraph punch target=Sphinx faces=5,4,10,10").event.seq  # type: ignore[union-attr]
    abort = open_as(path, "dan", SPHINX).execute("abort Sphinx").event.seq  # type: ignore[union-attr]
    return punch, abort


def _lines(screen: ApprovalsScreen) -> list[str]:
    options = screen.query_one(OptionList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


def _label(screen: Any, ident: str) -> str:
    return str(screen.query_one(ident, Label).render())


async def _open(pilot: Any, screen: ApprovalsScreen) -> None:
    await wait_for(pilot, lambda: pilot.app.screen is screen and screen.query_one(OptionList).has_focus, "the queue, its list focused", WAIT)


@contextlib.asynccontextmanager
async def _opened(fight: Path) -> AsyncIterator[tuple[Live, ApprovalsScreen, _App, Any]]:
    """The GM's queue of `fight` on a bare app at 80x24, its list focused: (live,
    screen, app, pilot)."""
    live = Live.open(fight, user="alice")
    screen = ApprovalsScreen(live)
    app = _App(screen)
    async with app.run_test(size=(80, 24)) as pilot:
        await _open(pilot, screen)
        yield live, screen, app, pilot


# ------------------------------------------------------------------ mode_line
def test_the_mode_line_says_where_players_declarations_go_and_what_t_does(fight: Path) -> None:
    live = Live.open(fight, user="alice")
    assert table.PLAYER_DECLARATIONS not in live.encounter.table  # not set: at once
    assert mode_line(live) == AT_ONCE_LINE
    live.run(lambda s: s.setting(table.PLAYER_DECLARATIONS, table.APPROVAL))
    assert mode_line(live) == WAITING_LINE
    live.run(lambda s: s.setting(table.PLAYER_DECLARATIONS, table.AT_ONCE))
    assert mode_line(live) == AT_ONCE_LINE


# ------------------------------------------------------------------ the queue
async def test_the_queue_lists_each_proposal_waiting_and_the_setting(fight: Path) -> None:
    punch, abort = _waiting(fight)
    live = Live.open(fight, user="alice")
    screen = ApprovalsScreen(live)
    assert screen.current is None  # not shown yet
    app = _App(screen)
    async with app.run_test(size=(80, 24)) as pilot:
        await _open(pilot, screen)
        box = screen.query_one("#approvals", Vertical)
        labels = list(box.query(Label))
        assert labels[0].has_class("title") and str(labels[0].render()) == "Approvals: players' declarations waiting for the GM"
        assert isinstance(labels[0].content, Text)
        assert labels[1].id == "approvals-mode" and labels[1].has_class("hint") and str(labels[1].render()) == WAITING_LINE
        options = screen.query_one(OptionList)
        assert options.id == "approvals-list" and options.parent is box
        assert labels[2].id == "approvals-error" and labels[2].has_class("error") and _label(screen, "#approvals-error") == ""
        assert len(list(screen.query(KeyFooter))) == 1
        assert screen.shown == [punch, abort]
        lines = _lines(screen)
        assert lines[0].startswith(f"proposal {punch}: Seraph, punch against Sphinx: Combat Roll 14") and lines[0].endswith("(player bob)")
        assert lines[1] == f"proposal {abort}: Sphinx, aborting an action (player dan)"
        assert all(isinstance(options.get_option_at_index(i).prompt, Text) for i in range(2))
        assert options.highlighted == 0 and screen.current is not None and screen.current.seq == punch
        assert screen.changed in live.listeners and screen.role.is_gm
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.closed, "escape: back", WAIT)
        assert app.result is None and screen.changed not in live.listeners
    assert not app.errors


async def test_a_approves_the_highlighted_proposal_as_the_player_made_it(fight: Path) -> None:
    punch, abort = _waiting(fight)
    async with _opened(fight) as (live, screen, app, pilot):
        await pilot.press("a")
        await wait_for(pilot, lambda: screen.shown == [abort], "the punch approved", WAIT)
        assert _lines(screen) == [f"proposal {abort}: Sphinx, aborting an action (player dan)"]
        # What the approval did, its last three lines, in one notification.
        told = [m for m, _, _ in app.said if m.startswith(f"the GM approves proposal {punch}")]
        assert told and told[0].count("\n") == 2 and told[0].split("\n")[1].startswith("Seraph initiates active punch at Sphinx")
        assert told[0].split("\n")[2].startswith("Seraph: ep -4")
        assert [t for m, _, t in app.said if m == told[0]] == [4]
        live.store.flush()
    enc = fresh(fight)
    assert enc.proposals[punch].status == "approved" and enc.proposals[abort].status == "pending"
    (action,) = enc.combatant("Seraph").in_progress
    assert action.resolution.dice[:2] == (5, 4)  # the player's dice


async def test_enter_approves_the_one_highlighted_and_the_list_keeps_its_place(fight: Path) -> None:
    punch, abort = _waiting(fight)
    async with _opened(fight) as (live, screen, app, pilot):
        await pilot.press("down")
        await wait_for(pilot, lambda: screen.current is not None and screen.current.seq == abort, "the abort highlighted", WAIT)
        # A second player proposes meanwhile: listed, the abort still highlighted.
        third = open_as(fight, "erin", Role.player(["Nyx"])).execute("declare Nyx punch target=Sphinx faces=3,3,10,10").event.seq  # type: ignore[union-attr]
        assert live.poll()
        await wait_for(pilot, lambda: screen.shown == [punch, abort, third], "the new proposal listed", WAIT)
        assert screen.query_one(OptionList).highlighted == 1
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.shown == [punch, third], "the abort approved", WAIT)
        assert screen.query_one(OptionList).highlighted == 0  # the one highlighted is gone: the first
        live.store.flush()
    enc = fresh(fight)
    assert enc.proposals[abort].status == "approved" and enc.proposals[punch].status == "pending"
    assert not app.errors


async def test_the_list_follows_the_file_as_others_answer_and_lapse_proposals(fight: Path) -> None:
    punch, abort = _waiting(fight)
    async with _opened(fight) as (live, screen, app, pilot):
        await pilot.press("down")
        await wait_for(pilot, lambda: screen.query_one(OptionList).highlighted == 1, "the abort highlighted", WAIT)
        open_as(fight, "carol").refuse(punch, "out of reach")  # another GM answers the first
        assert live.poll()
        await wait_for(pilot, lambda: screen.shown == [abort], "the refused one gone", WAIT)
        assert screen.query_one(OptionList).highlighted == 0 and screen.current is not None and screen.current.seq == abort
        open_as(fight, "carol").setting(table.PLAYER_DECLARATIONS, table.AT_ONCE)
        assert live.poll()
        await wait_for(pilot, lambda: _label(screen, "#approvals-mode") == AT_ONCE_LINE, "the setting followed", WAIT)
        open_as(fight, "carol").execute("step")  # time moves: the rest lapse
        assert live.poll()
        await wait_for(pilot, lambda: screen.shown == [], "lapsed", WAIT)
        assert _lines(screen) == ["(nothing waiting)"]
        options = screen.query_one(OptionList)
        assert options.get_option_at_index(0).disabled and screen.current is None
    assert not app.errors


async def test_with_nothing_waiting_each_key_says_so(fight: Path) -> None:
    async with _opened(fight) as (live, screen, app, pilot):
        assert screen.shown == [] and _lines(screen) == ["(nothing waiting)"] and _label(screen, "#approvals-mode") == AT_ONCE_LINE
        why = "no proposal waiting: players' declarations appear here as they make them"
        for key in ("a", "e", "r"):
            app.said.clear()
            await pilot.press(key)
            await wait_for(pilot, lambda: _label(screen, "#approvals-error") == why, f"{key} refused", WAIT)
            assert app.said == [(why, "error", 6)] and app.screen is screen
            screen.query_one("#approvals-error", Label).update("")
    assert not app.errors


async def test_e_on_an_abort_says_there_is_nothing_to_edit_and_t_clears_the_message(fight: Path) -> None:
    punch, abort = _waiting(fight)
    async with _opened(fight) as (live, screen, app, pilot):
        await pilot.press("down", "e")
        why = f"proposal {abort}: an abort has nothing to edit; approve (a) or refuse (r) it"
        await wait_for(pilot, lambda: _label(screen, "#approvals-error") == why, "the refusal", WAIT)
        assert app.screen is screen and (why, "error", 6) in app.said
        app.said.clear()
        await pilot.press("t")  # any change done: the message goes
        await wait_for(pilot, lambda: _label(screen, "#approvals-mode") == AT_ONCE_LINE, "at once", WAIT)
        assert _label(screen, "#approvals-error") == ""
        assert ("setting: player_declarations is now at_once", "information", 4) in app.said
        assert all(severity != "error" for _, severity, _ in app.said)  # an empty message is not told
        assert screen.shown == [punch, abort]  # those waiting still wait
        await pilot.press("t")
        await wait_for(pilot, lambda: _label(screen, "#approvals-mode") == WAITING_LINE, "waiting again", WAIT)
        live.store.flush()
    assert fresh(fight).table.get(table.PLAYER_DECLARATIONS) == table.APPROVAL
    settings = [e.args for e in fresh(fight).events if e.kind == "setting"]
    assert settings[-2:] == [{"key": table.PLAYER_DECLARATIONS, "value": table.AT_ONCE}, {"key": table.PLAYER_DECLARATIONS, "value": table.APPROVAL}]


async def test_e_opens_the_declare_form_filled_with_the_proposal(fight: Path) -> None:
    punch, abort = _waiting(fight)
    async with _opened(fight) as (live, screen, app, pilot):
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, EditProposalScreen), "the form, filled", WAIT)
        form = app.screen
        assert isinstance(form, EditProposalScreen) and form.proposal.seq == punch and form.kind == DECLARE
        await wait_for(pilot, lambda: form.query_one("#d-targets", Input).value == "Sphinx", "the player's target", WAIT)
        assert form.actors == ["Seraph"] and form.faces == [5, 4, 10, 10]
        # Meanwhile another GM refuses the abort: the queue hears of it when the form closes.
        live.session.refuse(abort, "no")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen and screen.shown == [punch], "back, the list read again", WAIT)
    assert not app.errors


async def test_r_asks_for_a_reason_and_refuses_with_it(fight: Path) -> None:
    punch, abort = _waiting(fight)
    async with _opened(fight) as (live, screen, app, pilot):
        await pilot.press("down", "r")
        await wait_for(pilot, lambda: isinstance(app.screen, FormScreen), "the reason asked", WAIT)
        form = app.screen
        assert isinstance(form, FormScreen) and form.title_text == f"Refuse proposal {abort}"
        assert form.note == f"proposal {abort}: Sphinx, aborting an action (player dan)"
        (field,) = form.fields
        assert (field.name, field.label, field.value, field.help) == ("reason", "reason", "", "shown to the player, e.g. Seraph is still airborne")
        await pilot.press("escape")  # the GM changes their mind: nothing refused
        await wait_for(pilot, lambda: app.screen is screen, "back", WAIT)
        assert screen.shown == [punch, abort] and screen.current is not None and screen.current.seq == abort
        await pilot.press("r")
        await wait_for(pilot, lambda: isinstance(app.screen, FormScreen), "the reason asked again", WAIT)
        await pilot.press(*"Sphinx is stunned", "enter")
        await wait_for(pilot, lambda: app.screen is screen and screen.shown == [punch], "refused", WAIT)
        assert (f"the GM refuses proposal {abort} (Sphinx, aborting an action): Sphinx is stunned", "information", 4) in app.said
        live.store.flush()
    enc = fresh(fight)
    assert enc.proposals[abort].status == "refused" and enc.proposals[abort].reason == "Sphinx is stunned"
    assert enc.proposals[punch].status == "pending"


async def test_a_refusal_the_session_refuses_is_said_in_the_reason_form(fight: Path) -> None:
    punch, _ = _waiting(fight)
    async with _opened(fight) as (live, screen, app, pilot):
        await pilot.press("r")
        await wait_for(pilot, lambda: isinstance(app.screen, FormScreen), "the reason asked", WAIT)
        form = app.screen
        form.query_one("#f-reason", Input).value = "out\x07of reach"
        await pilot.press("ctrl+s")
        error = form.query_one("#form-error", Label)
        await wait_for(pilot, lambda: "reason" in str(error.render()), "the refusal in the form", WAIT)
        assert app.screen is form
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, "back", WAIT)
        assert screen.shown[0] == punch
    assert fresh(fight).proposals[punch].status == "pending"


async def test_question_mark_lists_the_queues_keys(fight: Path) -> None:
    punch, abort = _waiting(fight)
    async with _opened(fight) as (live, screen, app, pilot):
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "the help", WAIT)
        help_screen = app.screen
        assert str(help_screen.query_one(".title", Label).render()) == "Approvals: keys (esc closes)"
        assert isinstance(help_screen, HelpScreen)
        assert [c.name for c in help_screen.commands] == ["approve", "edit", "refuse", "mode", "help", "close"]
        # Approved elsewhere while the help is open, the GM's own session not told: read
        # again when the queue comes back.
        live.session.approve(punch)
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen and screen.shown == [abort], "the queue read again", WAIT)
    assert not app.errors


async def test_p_also_goes_back(fight: Path) -> None:
    async with _opened(fight) as (live, screen, app, pilot):
        await pilot.press("p")
        await wait_for(pilot, lambda: app.closed, "p: back", WAIT)


async def test_a_player_on_the_queue_is_refused_every_command(fight: Path) -> None:
    punch, _ = _waiting(fight)
    live = Live.open(fight, user="bob", role=SERAPH)
    screen = ApprovalsScreen(live)
    app = _App(screen)
    async with app.run_test(size=(80, 24)) as pilot:
        await _open(pilot, screen)
        assert screen.role.is_player and screen.shown == [punch]  # their own
        assert screen.check_action("cmd", ("approve",)) is False and screen.check_action("cmd", ("close",)) is True
        assert screen.check_action("cmd", ()) is False and screen.check_action("focus_next", ()) is True
        await pilot.press("a", "t")
        screen.action_cmd("approve")
        assert app.said == [("approvals are the GM's", "warning", None)]
        assert screen.shown == [punch]
    enc = fresh(fight)
    assert enc.proposals[punch].status == "pending" and enc.table.get(table.PLAYER_DECLARATIONS) == table.APPROVAL


async def test_a_change_heard_before_the_queue_is_shown_or_one_that_breaks_is_no_crash(fight: Path) -> None:
    punch, abort = _waiting(fight)
    live = Live.open(fight, user="alice")
    screen = ApprovalsScreen(live)
    screen.changed(Changed((), True))  # not shown yet: nothing to list
    app = _App(screen)
    async with app.run_test(size=(80, 24)) as pilot:
        await _open(pilot, screen)

        def broken() -> list[Any]:
            raise ValueError("a bug")

        live.session.proposals = broken  # type: ignore[method-assign]
        screen.changed(Changed((), True))
        await wait_for(pilot, lambda: bool(app.errors), "the bug kept", WAIT)
        assert isinstance(app.errors[0], ValueError) and app.said[-1][1] == "error" and "a bug" in app.said[-1][0]
        del live.session.proposals
        live.session.refuse(punch, "")
        screen.changed(Changed((), True))
        assert screen.shown == [abort]


def test_the_current_proposal_is_none_once_it_is_gone_from_the_file(fight: Path) -> None:
    punch, _ = _waiting(fight)
    live = Live.open(fight, user="alice")
    screen = ApprovalsScreen(live)
    assert screen.current is None and screen.shown == []
    with pytest.raises(TrackerError, match="no proposal waiting"):
        screen._need()


def test_an_edited_proposal_is_declared_or_maintained_as_proposed(fight: Path) -> None:
    punch, abort = _waiting(fight)
    live = Live.open(fight, user="alice")
    p = live.encounter.proposal(punch)
    edit = EditProposalScreen(live, p)
    assert edit.proposal is p and edit.kind == DECLARE and edit.flow.actors == ["Seraph"] and edit.live is live
    assert edit.flow.proposal is p
    kept = type(p)(p.seq, "maintain", p.actor, dict(p.args), p.segment)
    maintained = EditProposalScreen(live, kept)
    assert maintained.kind == MAINTAIN and maintained.proposal is kept
