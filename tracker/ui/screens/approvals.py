"""The GM's approval queue: players' declarations waiting (`player_declarations = approval`).

Reached with `p` from the encounter screen (the clock bar says how many wait). One key
each: `a` (or enter) approves the highlighted proposal as the player made it, with the
player's dice; `e` opens the declare form filled with the proposal (the actor and the
action are the player's and stay; targets, PT and modifiers may change, and the GM
may make a declaration's roll secret) and approves
with the edited values when committed: the action is resolved again with the player's
dice in the order they were rolled, and any dice the edited action needs beyond them
are asked for (typed or rolled) as in any declaration (an edit that needs fewer dice
than the player rolled says so: ctrl+b drops the player's dice, and the GM rolls or
types new ones); `r` asks for a reason and
refuses (the player sees the reason); `t` switches the setting between applying
players' declarations at once and waiting here (an undoable `setting` event).

Decisions: an abort proposal has nothing to edit (`e` says so; approve or refuse it);
the list follows the file while open (players' proposals arrive, time moving lapses
them), keeping the highlighted proposal highlighted when it is still waiting: it hears
of every change as the panes do (`Live.listeners`, tracker.play.live.Changed), no timer.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from tracker.play.requests import DECLARE, MAINTAIN
from tracker.engine import TrackerError, table
from tracker.engine.model import Proposal
from tracker.reading.roles import Role
from tracker.play.session import Outcome
from tracker.engine.text import printable
from tracker.ui.commands import APPROVALS, Command, bindings, for_role, role_may, in_table_order
from tracker.ui import guard
from tracker.play.live import Changed, Live
from tracker.ui.screens.declare import DeclareScreen
from tracker.ui.screens.form import FormField, FormScreen
from tracker.ui.widgets.footer import KeyFooter


def mode_line(live: Live) -> str:
    mode = live.encounter.table.get(table.PLAYER_DECLARATIONS, table.AT_ONCE)
    if mode == table.APPROVAL:
        return "Players' declarations wait here for the GM (t: apply them at once)"
    return "Players' declarations apply at once (t: make them wait here for approval)"


class ApprovalsScreen(Screen[None]):
    COMMAND_TABLE: tuple[Command, ...] = APPROVALS

    @property
    def active_bindings(self) -> dict[str, Any]:
        return in_table_order(super().active_bindings, self.COMMAND_TABLE)
    BINDINGS = bindings(APPROVALS)

    def __init__(self, live: Live) -> None:
        super().__init__()
        self.live = live
        self.shown: list[int] = []  # the seqs listed, in order

    @property
    def role(self) -> Role:
        return self.live.seen_as

    def compose(self) -> ComposeResult:
        with Vertical(id="approvals"):
            yield Label(Text("Approvals: players' declarations waiting for the GM"), classes="title")
            yield Label("", id="approvals-mode", classes="hint")
            yield OptionList(id="approvals-list")
            yield Label("", id="approvals-error", classes="error")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.reload()
        self.query_one(OptionList).focus()
        self.live.listeners.append(self.changed)

    def on_unmount(self) -> None:
        if self.changed in self.live.listeners:
            self.live.listeners.remove(self.changed)

    def on_screen_resume(self) -> None:
        if self.is_mounted:
            self.reload()

    def changed(self, change: Changed) -> None:
        """Any change (this app's, or another session's folded in by the app) may add,
        answer or lapse a proposal, or switch the setting: list them again."""
        if not self.is_mounted:
            return
        try:
            self.reload()
        except Exception as error:  # noqa: BLE001 - a bug here is a message, as in any handler
            guard.report(self.app, error)

    def reload(self) -> None:
        self.query_one("#approvals-mode", Label).update(mode_line(self.live))
        options = self.query_one(OptionList)
        current = self.current
        pending = self.live.session.proposals()
        self.shown = [p.seq for p in pending]
        options.clear_options()
        for p in pending:
            options.add_option(Option(Text(self.live.session.proposal_line(p))))
        if not pending:
            options.add_option(Option(Text("(nothing waiting)"), disabled=True))
            return
        options.highlighted = self.shown.index(current.seq) if current is not None and current.seq in self.shown else 0

    @property
    def current(self) -> Proposal | None:
        if not self.is_mounted:
            return None
        index = self.query_one(OptionList).highlighted
        if index is None or not 0 <= index < len(self.shown):
            return None
        try:
            return self.live.encounter.proposal(self.shown[index])
        except TrackerError:
            return None

    def _need(self) -> Proposal:
        p = self.current
        if p is None:
            raise TrackerError("no proposal waiting: players' declarations appear here as they make them")
        return p

    # ------------------------------------------------------------ dispatch
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cmd":
            return role_may(APPROVALS, self.role, str(parameters[0]) if parameters else "")
        return True

    def action_cmd(self, name: str) -> None:
        if not role_may(APPROVALS, self.role, name):
            self.notify("approvals are the GM's", severity="warning")
            return
        try:
            getattr(self, f"do_{name}")()
        except TrackerError as exc:
            self._error(str(exc))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_cmd("approve")

    def _error(self, text: str) -> None:
        label = self.query_one("#approvals-error", Label)
        label.update(Text(printable(text)))
        if text:
            self.notify(printable(text), severity="error", timeout=6)

    def _run(self, change: Any) -> Outcome:
        outcome = self.live.run(change)
        self._error("")
        self.reload()
        if outcome.lines:
            self.notify("\n".join(printable(line) for line in outcome.lines[-3:]), timeout=4)
        return outcome

    # ------------------------------------------------------------ commands
    def do_approve(self) -> None:
        seq = self._need().seq
        self._run(lambda s: s.approve(seq))

    def do_edit(self) -> None:
        p = self._need()
        if p.action == "abort":
            raise TrackerError(f"proposal {p.seq}: an abort has nothing to edit; approve (a) or refuse (r) it")
        self.app.push_screen(EditProposalScreen(self.live, p), lambda outcome: self.reload())

    def do_refuse(self) -> None:
        p = self._need()
        seq = p.seq
        field = FormField("reason", "reason", "", "shown to the player, e.g. Seraph is still airborne")
        note = printable(self.live.session.proposal_line(p))
        self.app.push_screen(FormScreen(f"Refuse proposal {seq}", [field], lambda v: self._run(lambda s: s.refuse(seq, v["reason"])), note=note), lambda _: self.reload())

    def do_mode(self) -> None:
        mode = self.live.encounter.table.get(table.PLAYER_DECLARATIONS, table.AT_ONCE)
        new = table.AT_ONCE if mode == table.APPROVAL else table.APPROVAL
        self._run(lambda s: s.setting(table.PLAYER_DECLARATIONS, new))

    def do_help(self) -> None:
        from tracker.ui.screens.help import HelpScreen

        self.app.push_screen(HelpScreen("Approvals", for_role(APPROVALS, self.role)))

    def do_close(self) -> None:
        self.dismiss(None)


class EditProposalScreen(DeclareScreen):
    """The declare form filled with a player's proposal; committing approves it edited
    (the flow configured with the proposal: `tracker.play.declaring.DeclareFlow`)."""

    def __init__(self, live: Live, proposal: Proposal) -> None:
        super().__init__(live, proposal.actor, MAINTAIN if proposal.action == "maintain" else DECLARE, proposal=proposal)
        self.proposal = proposal
