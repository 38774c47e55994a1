"""The encounter screen: clock, timeline strip, upcoming list, roster and combat log.

Layout at 80x24: clock bar (1 row), timeline strip with the upcoming list beside it
(8 rows; a third of taller terminals), roster over the selected combatant's detail
panel beside the combat log (the rest; the two halves share the width, so a wider
terminal shows more of each row), footer (1 row). Up/down or a mouse click select a
combatant; the selection is the default actor or target of maintain, abort, damage,
condition, surprise, hide and keep, and of the declare form. `f` shows only the
selected combatant's log lines (again: all), `/` searches the log (empty: all).
An empty encounter says what to do next.

Decisions: docs/decisions/0019-encounter-screen.md
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from collections.abc import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.signal import Signal
from textual.widget import Widget
from textual.widgets import Static

from rulesets.fields import yes_no
from tracker.engine import TrackerError
from tracker.play.session import Outcome, Session
from tracker.play import verbs
from tracker.engine.text import clip, printable, wrap
from tracker.reading.viewing import sight
from tracker.reading.roles import Role, who
from tracker.ui import guard
from tracker.ui.commands import ENCOUNTER, Command, bindings, for_role, role_may, in_table_order
from tracker.play.live import Changed, Live
from tracker.ui.widgets.clock import ClockBar
from tracker.ui.widgets.upcoming import UpcomingView
from tracker.ui.widgets.log import CombatLog
from tracker.ui.widgets.redraw import update_if_changed
from tracker.ui.widgets.roster import DetailView, RosterView
from tracker.ui.widgets.timeline import TimelineView
from tracker.ui.widgets.footer import KeyFooter

if TYPE_CHECKING:
    from tracker.ui.screens.form import FormField


NOTICE_ROWS = 3  # rows of text a command's notification holds at most (5 rows in all, at the top)
TO_THE_LOG = "… the rest is in the combat log"


def strip_height(screen_height: int) -> int:
    """The timeline strip's rows: a third of a tall terminal; at 24 rows, 8."""
    return max(8, screen_height // 3)


def notice_width(screen_width: int) -> int:
    """The text width of a notification, or a cell less: Textual's toast is 60 cells
    wide, at most half its rack (the screen less a scrollbar's cell), less its border and
    padding (3 cells). Wrapped a cell narrower, no row is wrapped again when drawn."""
    return max(10, min(60, (screen_width - 1) // 2) - 4)


def brief(lines: list[str], width: int, rows: int = NOTICE_ROWS) -> tuple[str, bool]:
    """`lines` in at most `rows` rows of `width` cells: (the text, whether it was cut). A
    text that fits is left for the notification to wrap; a cut one keeps its first rows
    and ends with where the rest is."""
    wrapped = [row for line in lines for row in wrap(line, width)]
    if len(wrapped) <= rows:
        return "\n".join(lines), False
    return "\n".join([*wrapped[: rows - 1], clip(TO_THE_LOG, width)]), True


def _int(what: str) -> Callable[[str], int]:
    def check(text: str) -> int:
        try:
            return int(text)
        except ValueError:
            raise TrackerError(f"{what}: expected a whole number, got {text!r}") from None

    return check


def _field(*args: Any, **kwargs: Any) -> FormField:
    """A dialog's field (tracker.ui.screens.form, loaded with the first dialog: start-up time)."""
    from tracker.ui.screens.form import FormField

    return FormField(*args, **kwargs)


def _form_screen(*args: Any, **kwargs: Any) -> Screen[Any]:
    from tracker.ui.screens.form import FormScreen

    return FormScreen(*args, **kwargs)


def _yes_no_word(text: str) -> None:
    yes_no(text, "secret")


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise TrackerError(f"amount: expected a number (negative heals), got {text!r}") from None


class EncounterScreen(Screen[None]):
    COMMAND_TABLE: tuple[Command, ...] = ENCOUNTER

    @property
    def active_bindings(self) -> dict[str, Any]:
        return in_table_order(super().active_bindings, self.COMMAND_TABLE)
    BINDINGS = bindings(ENCOUNTER)

    def __init__(self, live: Live) -> None:
        super().__init__()
        self.live = live
        # Every change to the encounter, for the panes (docs/decisions/0019-encounter-screen.md).
        self.changes: Signal[Changed] = Signal(self, "encounter-changed")
        # Proposals' statuses already told (players: their own closing; GM: new ones).
        self._told: dict[int, str] = {p.seq: p.status for p in live.encounter.proposals.values()}

    def compose(self) -> ComposeResult:
        yield ClockBar(self.live, id="clock")
        with Horizontal(id="strip") as strip:
            strip.styles.height = strip_height(self.app.size.height)  # laid out once, not again on the first resize
            yield TimelineView(self.live, id="timeline")
            yield UpcomingView(self.live, id="upcoming")
        with Horizontal(id="lower"):
            with Vertical(id="roster-pane"):
                yield Static("Roster", classes="pane-title", id="roster-title")
                yield RosterView(self.live, id="roster")
                yield DetailView(self.live, id="detail")
            with Vertical(id="log-pane"):
                yield Static("Combat log", classes="pane-title", id="log-title")
                yield CombatLog(self.live, id="log")
        yield KeyFooter(at_once=True)  # nothing takes the focus here: its keys are known now

    def on_mount(self) -> None:
        role = self.role
        if role.is_player:  # a player starts on their own combatant
            roster = self.query_one(RosterView)
            roster.reload()
            mine = [c.name for c in roster.combatants if role.owns(c.name)]
            if mine:
                roster.select_name(mine[0])
        self._show_glance(getattr(self.app, "roster_mode", "detail") == "glance")
        self.redraw()
        self._subscribe()
        self.live.listeners.append(self.changes.publish)
        self._read_campaign_title()

    def _read_campaign_title(self) -> None:
        """A campaign's fight names its campaign in the clock bar: its title, read once."""
        setup, live = self.live.encounter.setup, self.live
        if not setup.campaign or live.campaign_title:
            return
        from tracker.persistence.campaign_file import CampaignFile
        from tracker.ui.background import in_thread

        def titled(title: str) -> None:
            live.campaign_title = title
            self.query_one(ClockBar).show()

        in_thread(self, lambda: CampaignFile(live.path.parent / setup.campaign).load().name, titled, lambda _: None, group="campaign-title")

    def on_unmount(self) -> None:
        if self.changes.publish in self.live.listeners:
            self.live.listeners.remove(self.changes.publish)

    def _subscribe(self) -> None:
        """Each pane hears of every change, in this order (docs/decisions/0019-encounter-screen.md).
        Subscribed immediate: the panes are current when the change's handler returns,
        as a key after it expects. Textual's signal logs and drops a subscriber's
        exception; `_guarded` reports it as every handler's is (tracker.ui.guard)."""
        roster = self.query_one(RosterView)
        detail = self.query_one(DetailView)
        timeline = self.query_one(TimelineView)
        panes: list[tuple[Widget, Callable[[Changed], None]]] = [
            (roster, roster.changed),
            (detail, lambda change: detail.changed(change, roster.current)),
            (timeline, lambda change: timeline.changed(change, self.selected)),
            (self.query_one(UpcomingView), self.query_one(UpcomingView).changed),
            (self.query_one(ClockBar), self.query_one(ClockBar).changed),
            (self.query_one(CombatLog), self.query_one(CombatLog).changed),
            (self, self._changed),
        ]
        for pane, callback in panes:
            self.changes.subscribe(pane, self._guarded(callback), immediate=True)

    def _guarded(self, callback: Callable[[Changed], None]) -> Callable[[Changed], None]:
        def call(change: Changed) -> None:
            try:
                callback(change)
            except Exception as error:  # noqa: BLE001 - a bug in a pane is a message, as in any handler
                guard.report(self.app, error)

        return call

    def _changed(self, change: Changed) -> None:
        """The screen's own part of a change: the log's title (a rename may move its
        filter) and what became of proposals."""
        self._log_title()
        self._tell_proposals()

    def _show_glance(self, on: bool) -> None:
        """Glance mode: the roster over the full width, every combatant's figures in one
        or two rows (tracker.ui.widgets.roster); the detail panel and log step aside."""
        self.set_class(on, "glance")
        self.query_one(RosterView).set_glance(on)
        update_if_changed(self.query_one("#roster-title", Static), Text("Roster: glance" if on else "Roster"))

    # ------------------------------------------------------------ state
    @property
    def selected(self) -> str | None:
        c = self.query_one(RosterView).current
        return c.name if c else None

    def redraw(self) -> None:
        """Draw every pane from the encounter (when mounted; after that, the signal)."""
        self.query_one(ClockBar).show()
        roster = self.query_one(RosterView)
        roster.reload()
        timeline = self.query_one(TimelineView)
        timeline.reload()
        timeline.follow(self.selected)
        self.query_one(UpcomingView).show()
        self.query_one(CombatLog).reload()
        self.query_one(DetailView).show(roster.current)
        self._log_title()
        self._tell_proposals()

    def _tell_proposals(self) -> None:
        """Say what became of proposals: to a player, the GM's answer to their own (the
        refusal with its reason); to the GM, a new one waiting (p: the approvals screen)."""
        enc = self.live.encounter
        if not enc.proposals:
            return
        role = self.role
        for p in enc.proposals.values():
            if self._told.get(p.seq) == p.status:
                continue
            self._told[p.seq] = p.status
            if role.is_gm and p.status == "pending":
                by = self.live.encounter.events[p.seq - 1].by if 0 < p.seq <= len(self.live.encounter.events) else ""
                self.notify(printable(f"{who(by)} proposes {p.actor}, {p.what()} (p: approve, edit or refuse)"), timeout=6)
            elif role.is_player and role.owns(p.actor) and p.status in ("approved", "refused", "lapsed"):
                # (A withdrawal is the player's own: its line was shown when it was made.)
                why = f": {p.reason}" if p.status == "refused" and p.reason else ""
                answer = f"{p.status} by the GM{why}" if p.status != "lapsed" else "lapsed: time moved on before the GM answered"
                if p.status == "approved" and p.changes:
                    answer = f"approved by the GM with changes: {p.changes}"
                severity: SeverityLevel = "information" if p.status == "approved" else "warning"
                self.notify(printable(f"proposal {p.seq} ({p.actor}, {p.what()}): {answer}"), severity=severity, timeout=8)

    def _log_title(self) -> None:
        log = self.query_one(CombatLog)
        title = Text("Combat log")
        if log.only is not None:
            title.append(f": {printable(log.only)}")
        if log.search:
            title.append(f" “{printable(log.search)}”")
        update_if_changed(self.query_one("#log-title", Static), title)

    def on_resize(self) -> None:
        self.query_one("#strip").styles.height = strip_height(self.size.height)
        self.query_one(UpcomingView).show()

    def on_roster_view_clicked(self, message: RosterView.Clicked) -> None:
        self.query_one(RosterView).select(message.index)
        self._selection_moved()

    def on_timeline_view_clicked(self, message: TimelineView.Clicked) -> None:
        self.query_one(RosterView).select_name(message.name)
        self._selection_moved()

    def _selection_moved(self) -> None:
        self.query_one(TimelineView).follow(self.selected)
        self.query_one(DetailView).show(self.query_one(RosterView).current)

    # ------------------------------------------------------------ dispatch
    @property
    def role(self) -> Role:
        """Whose screen this is (the palette asks too): tracker.ui.commands.for_role."""
        return self.live.seen_as

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # The footer, palette and help offer only what this role may do (one definition).
        if action == "cmd":
            return role_may(ENCOUNTER, self.role, str(parameters[0]) if parameters else "")
        return True

    def action_cmd(self, name: str) -> None:
        command = next(c for c in ENCOUNTER if c.name == name)
        if not role_may(ENCOUNTER, self.role, name):
            what = "a read-only viewer" if self.role.is_viewer else "the GM's" if self.role.is_player else "a player's"
            self.notify(f"{command.label}: refused, this is {what}", severity="warning")
            return
        try:
            getattr(self, f"do_{name}")()
        except TrackerError as exc:
            self.notify(str(exc), severity="error", timeout=6)

    def change(self, run: Callable[[Session], Outcome], quiet: bool = True) -> Outcome | None:
        """Apply a change (the panes hear of it) and let the write happen after the frame."""
        try:
            outcome = self.live.run(run)
        except TrackerError as exc:
            self.notify(str(exc), severity="error", timeout=6)
            return None
        self.after_change(outcome, quiet)
        return outcome

    def after_change(self, outcome: Outcome | None, quiet: bool = True) -> None:
        """Say what a command did unless `quiet` (the panes drew it as it was made), in a
        notification of at most NOTICE_ROWS rows, so the roster and log stay in view. A
        change's lines are in the combat log, which follows them: a cut notification says
        so. An answer that is not in the log (`proposals`, `library`) and does not fit is
        shown whole in a view of its own (Esc closes it)."""
        if outcome is None or quiet or not outcome.lines:
            return
        lines = [printable(line) for line in outcome.lines]
        text, cut = brief(lines, notice_width(self.app.size.width))
        in_log = outcome.event is not None and outcome.event.kind not in ("undo", "redo")
        if cut and not in_log:
            from tracker.ui.screens.help import ListingScreen

            self.app.push_screen(ListingScreen("Result", lines))
            return
        self.notify(text, timeout=6 if cut else 4, markup=False)

    def flush_store(self) -> None:
        try:
            self.live.store.flush()
        except TrackerError as exc:
            self.notify(str(exc), severity="error", timeout=10)

    def _need_selected(self) -> str:
        name = self.selected
        role = self.role
        if role.is_player and (name is None or not role.owns(name)):
            # A player acts for their own: the selected one if theirs, else the first of theirs.
            mine = [c.name for c in self.live.encounter.combatants.values() if role.owns(c.name)]
            if not mine:
                raise TrackerError(f"none of your combatants ({', '.join(role.combatants)}) is in this encounter")
            return mine[0]
        if name is None:
            raise TrackerError("no combatant selected: add one first (e: roster, or `:add NAME`)")
        return name

    def _form(self, title: str, fields: list[FormField], make: Callable[[dict[str, str]], Callable[[Session], Outcome]], start: int = 0) -> None:
        """A form whose submit applies a change (the panes draw it: nothing to say);
        refusals stay in the form."""

        def submit(values: dict[str, str]) -> None:
            self.live.run(make(values))

        self.app.push_screen(_form_screen(title, fields, submit, start=start))

    # ------------------------------------------------------------ commands
    def do_next(self) -> None:
        self.change(lambda s: s.next())

    def do_step(self) -> None:
        self.change(lambda s: s.step())

    def do_undo(self) -> None:
        if not self._walk_campaign("undo"):
            self.change(lambda s: s.undo(), quiet=False)

    def _walk_campaign(self, kind: str) -> bool:
        """An ended campaign fight's undo (or its end's redo) is its campaign's to make
        (tracker.ui.screens.end); True if it was handed there."""
        from tracker.ui.screens.end import walk_end, walks_campaign

        if not walks_campaign(self.live.encounter, kind):
            return False
        walk_end(self, self.live, kind, self.live.session.by)
        return True

    def do_end(self) -> None:
        self._end("")

    def _end(self, outcome: str) -> None:
        from tracker.ui.screens.end import EndScreen, of_campaign

        of_campaign(self.live.encounter)
        self.app.push_screen(EndScreen(self.live, outcome), lambda ended: self.after_change(ended, quiet=False))

    def do_takeback(self) -> None:
        self.change(lambda s: s.takeback(), quiet=False)

    def do_approvals(self) -> None:
        from tracker.ui.screens.approvals import ApprovalsScreen  # loads on first use

        self.app.push_screen(ApprovalsScreen(self.live))

    def _declared(self, outcome: Outcome | None) -> None:
        """After a declaration (the form's, or one made at once; the panes drew it): one
        that waits for the GM's approval says so."""
        if outcome is None:
            return
        event = outcome.event
        if event is not None and event.kind == "propose":
            p = self.live.encounter.proposals.get(event.seq)
            what = f"{p.actor}, {p.what()}" if p is not None else "your declaration"
            self.notify(printable(f"proposal {event.seq} ({what}): waiting for the GM's approval; u takes it back"), timeout=6)

    def do_redo(self) -> None:
        if not self._walk_campaign("redo"):
            self.change(lambda s: s.redo(), quiet=False)

    def do_declare(self) -> None:
        if not self.live.encounter.combatants:
            raise TrackerError("no combatants yet: add some first (e: roster)")
        from tracker.ui.screens.declare import DeclareScreen  # dialogs load on first use: start-up time

        self.app.push_screen(DeclareScreen(self.live, self.selected), self._declared)

    def do_maintain(self) -> None:
        name = self._need_selected()
        from tracker.play import dice_plan  # loads on first use
        from tracker.play.requests import MAINTAIN
        from tracker.ui.screens.declare import DeclareScreen

        if dice_plan.maintain_takes_dice(self.live.session, name):  # roll or type them in the form
            self.app.push_screen(DeclareScreen(self.live, name, MAINTAIN), self._declared)
            return
        self._declared(self.change(lambda s: s.maintain(name)))

    def do_abort(self) -> None:
        name = self._need_selected()
        self._declared(self.change(lambda s: s.abort(name)))

    def _seen_names(self) -> list[str]:
        """The names this screen's reader may complete: a hidden one never for a player."""
        return sight(self.live.encounter, self.live.seen_as).names()

    def do_damage(self) -> None:
        name = self._need_selected()
        resources = list(self.live.encounter.combatant(name).resources)
        default = self.live.session.default_resource(name) if resources else ""
        fields = [
            # Several at once as on the `:` line: "Goblin*" or "Goblin 1,Goblin 2". Above
            # the amount, which has the focus: one target costs no key more.
            _field("who", "who", name, "one name, a list (A,B) or a glob (Goblin*)", None, self._seen_names(), multiple=True),
            _field("amount", "amount", "", "damage; a negative amount heals", _number),
            _field("resource", "resource", default, ", ".join(resources), None, resources),
        ]

        def make(v: dict[str, str]) -> Callable[[Session], Outcome]:
            amount = _number(v["amount"]) if v["amount"] else None
            if amount is None:
                raise TrackerError("amount: expected a number (negative heals)")
            value = int(amount) if amount.is_integer() else amount
            who = v.get("who", "").strip() or name
            # The resource field lists the selected one's; another's default is its own.
            chosen = v["resource"] if who == name or v["resource"] != default else ""
            return lambda s: s.damage(who, value, chosen or None)

        self._form(f"Damage or heal {name} (shift+tab: others too)", fields, make, start=1)

    def do_condition(self) -> None:
        name = self._need_selected()
        fields = [
            _field("condition", "condition", "", "e.g. stunned"),
            _field("segments", "segments", "", "how long it lasts", _int("segments")),
        ]
        fields.insert(0, _field("who", "who", name, "one name, a list (A,B) or a glob (Goblin*)", None, self._seen_names(), multiple=True))
        run = lambda v: lambda s: s.condition(v.get("who", "").strip() or name, v["condition"], verbs.whole(v["segments"], "segments"))  # noqa: E731
        self._form(f"Condition on {name} (shift+tab: others too)", fields, run, start=1)

    def do_schedule(self) -> None:
        now = self.live.encounter.now
        fields = [
            _field("segment", "segment", str(now + 1), f"after {now}", _int("segment")),
            _field("text", "what", "", "what happens then"),
        ]
        self._form("Schedule an event", fields, lambda v: lambda s: s.schedule(verbs.whole(v["segment"], "segment"), v["text"]))

    def do_surprise(self) -> None:
        name = self._need_selected()
        fields = [_field("until", "until", str(self.live.encounter.now + 1), "may not initiate before this segment", _int("segment"))]
        self._form(f"Surprise {name}", fields, lambda v: lambda s: s.surprise(name, verbs.whole(v["until"], "segment")))

    def do_hide(self) -> None:
        name = self._need_selected()
        hidden = self.live.encounter.combatant(name).hidden
        self.change(lambda s: s.hide(name, not hidden), quiet=False)

    def do_keep(self) -> None:
        name = self._need_selected()
        c = self.live.encounter.combatant(name)
        if c.interrupted is None:
            raise TrackerError(f"{name} has no action interrupted by throwback to keep (rule: throwback)")
        action = c.interrupted

        def answer(yes: bool | None) -> None:
            if yes:
                self.change(lambda s: s.keep(name), quiet=False)

        from tracker.ui.screens.confirm import ConfirmScreen

        self.app.push_screen(ConfirmScreen(f"Let {name}'s interrupted {action.template} stand (completes on segment {action.completes})?"), answer)

    def do_glance(self) -> None:
        roster = self.query_one(RosterView)
        mode = "detail" if roster.glance else "glance"
        self._show_glance(mode == "glance")
        self.query_one(DetailView).show(roster.current)
        self.app.roster_mode = mode  # type: ignore[attr-defined]  # set by tracker.ui.settings.apply
        from tracker.ui import settings
        from tracker.ui.commands import tables

        app = self.app
        local = not (self.live.viewer or getattr(app, "seat", None) is not None)
        self.run_worker(lambda: settings.roster_mode_changed(app, mode, not local, tables()), thread=True, group="remember")

    def do_viewers(self) -> None:
        from tracker.reading.viewing import MODES, mode_of

        def check(text: str) -> None:
            if text not in MODES:
                raise TrackerError(f"viewers: expected one of {', '.join(MODES)}, got {text!r}")

        field = _field("mode", "enemies", mode_of(self.live.encounter), "exact, label (Healthy/Bloodied/Down) or hidden", check, MODES)
        self._form("How enemies' resources show to viewers", [field], lambda v: lambda s: s.setting("viewer_resources", v["mode"]))

    def do_roll(self) -> None:
        """A table roll in the game's notation, for everyone's log (Session.roll); the GM
        may keep it secret."""
        fields = [_field("dice", "dice", "", "the game's notation: 2d10, 5d+1wd, 3D+1, 3d6+2")]
        if self.role.is_gm:
            fields.append(_field("secret", "secret", "false", "true: players and viewers see nothing of it", _yes_no_word, ("true", "false")))
        self._form("Roll dice for the table", fields, lambda v: lambda s: s.roll(v["dice"], secret=yes_no(v.get("secret") or "false", "secret")))

    def do_note(self) -> None:
        self._form("Note for the log", [_field("text", "note", "", "what happened")], lambda v: lambda s: s.note(v["text"]))

    def do_command_line(self) -> None:
        names = sight(self.live.encounter, self.live.seen_as).names()  # a hidden name is never completed
        kind = self.role.kind
        words = verbs.completions(names[:50], kind)  # only the verbs this role may use
        example = "damage Sphinx 5" if self.role.is_gm else "roll 2d10"  # one this role may use
        field = _field("line", ":", "", f"a play command, e.g. {example}", None, words, listed=names)
        outcome: list[Outcome] = []
        asked: list[tuple[str, str]] = []  # a verb this screen answers itself: end, a campaign's undo

        def submit(values: dict[str, str]) -> None:
            line = values["line"]
            if not line:
                return
            try:
                call = verbs.read(line)
            except TrackerError:
                call = None  # execute says what is wrong with it
            if call is not None and self.role.is_gm:
                if call.method == "end_fight":
                    from tracker.ui.screens.end import of_campaign

                    of_campaign(self.live.encounter)  # refused in the form, as the line's other refusals
                    asked.append(("end", str(call.kwargs.get("outcome") or "")))
                    return
                if call.method in ("undo", "redo"):
                    from tracker.ui.screens.end import walks_campaign

                    if walks_campaign(self.live.encounter, call.method):
                        asked.append((call.method, ""))
                        return
            outcome.append(self.live.run(lambda s: s.execute(values["line"])))

        def done(values: dict[str, str] | None) -> None:
            if outcome:
                self.after_change(outcome[0], quiet=False)
            for verb, said in asked:
                if verb == "end":
                    self._end(said)
                else:
                    self._walk_campaign(verb)

        self.app.push_screen(_form_screen("Command", [field], submit, note="; ".join(v.usage_for(kind) for v in verbs.offered(kind)[:4]) + "; ... (? lists all)"), done)

    def do_history(self) -> None:
        from tracker.ui.screens.history import HistoryScreen

        self.app.push_screen(HistoryScreen(self.live))

    def do_stats(self) -> None:
        from tracker.ui.screens.stats import StatsScreen

        self.app.push_screen(StatsScreen(self.live))

    def do_replay(self) -> None:
        self.app.start_replay(self)  # type: ignore[attr-defined]  # tracker.ui.app: the replay screen stands on this one

    def do_roster(self) -> None:
        from tracker.ui.screens.roster import RosterScreen

        self.app.push_screen(RosterScreen(self.live))

    def do_select_previous(self) -> None:
        roster = self.query_one(RosterView)
        roster.select(roster.selected - 1)
        self._selection_moved()

    def do_select_next(self) -> None:
        roster = self.query_one(RosterView)
        roster.select(roster.selected + 1)
        self._selection_moved()

    def do_log_filter(self) -> None:
        log = self.query_one(CombatLog)
        log.set_filter(None if log.only is not None else self._need_selected(), log.search)
        self._log_title()

    def do_log_search(self) -> None:
        log = self.query_one(CombatLog)

        def done(values: dict[str, str] | None) -> None:
            if values is not None:
                log.set_filter(log.only, values["text"])
                self._log_title()

        field = _field("text", "search", log.search, "text in the log (empty: every line)")
        self.app.push_screen(_form_screen("Search the combat log", [field]), done)

    def do_log_up(self) -> None:
        log = self.query_one(CombatLog)
        log.scroll_lines(-max(1, log.scrollable_content_region.height - 1))

    def do_log_down(self) -> None:
        log = self.query_one(CombatLog)
        log.scroll_lines(max(1, log.scrollable_content_region.height - 1))

    def do_timeline_back(self) -> None:
        timeline = self.query_one(TimelineView)
        timeline.pan -= 10
        timeline.refresh()

    def do_timeline_forward(self) -> None:
        timeline = self.query_one(TimelineView)
        timeline.pan += 10
        timeline.refresh()

    def do_timeline_now(self) -> None:
        timeline = self.query_one(TimelineView)
        timeline.pan = 0
        timeline.refresh()

    def do_help(self) -> None:
        from tracker.ui.screens.help import HelpScreen

        role = self.role
        title = "Encounter" if role.is_gm else f"Encounter ({role.label()})"
        self.app.push_screen(HelpScreen(title, for_role(ENCOUNTER, role), play=verbs.offered(role.kind), kind=role.kind))

    def do_close(self) -> None:
        self.flush_store()
        if len(self.app.screen_stack) > 2:
            self.dismiss(None)
        else:
            self.app.back_to_start()  # type: ignore[attr-defined]

    def do_quit(self) -> None:
        self.flush_store()
        self.app.quit_asking()  # type: ignore[attr-defined]
