"""The campaign screen: the party as it stands and the fights, with the GM's keys.

One list: the party (each character's resources of their maxima, stats lowered below
the sheet, conditions with the segments left: `reading._figures`, as `tracker campaign
show` prints them), those who left or died, then the fights in order with their state
(`reading.fight_status`). Enter opens the highlighted fight (or, on a character, the
change form). The keys are the CAMPAIGN table's (tracker.ui.commands); a viewer or a
player is offered only those that change nothing, and the campaign file refuses a
viewer's session anyway (`TRACKER_READ_ONLY`).

Every read and write of the campaign file is on a thread (tracker.ui.background); the
screen shows the campaign as last read, and reads it again after each change and when
it shows again (back from a fight).

Decisions: docs/decisions/0051-campaign-in-the-app.md
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from rulesets.base import Ruleset
from tracker.play import fights
from tracker.reading import campaign as reading
from tracker.persistence.campaign import ACTIVE, PC, Campaign, Fight
from tracker.persistence.campaign_file import CampaignFile
from tracker.engine import TrackerError
from tracker.reading.roles import Role
from tracker.engine.text import printable
from tracker.ui.background import in_thread
from tracker.ui.commands import CAMPAIGN, Command, bindings, for_viewer, in_table_order, viewer_may
from tracker.ui.screens import campaign_forms as forms
from tracker.ui.screens.help import HelpScreen
from tracker.ui.widgets.footer import KeyFooter


@dataclass
class Shown:
    """The campaign as last read, with its fights' states and its game (house rules
    read beside it), all read on the thread."""

    campaign: Campaign
    ruleset: Ruleset
    statuses: list[str] = field(default_factory=list)


def read(path: Path) -> Shown:
    camp = CampaignFile(path).load()
    return Shown(camp, fights.ruleset_of(camp, path.parent), [reading.fight_status(path.parent, f) for f in camp.fights])


def fight_line(number: int, fight: Fight, status: str) -> str:
    what = f"{fight.outcome}, {fight.segment} segments" if not fight.open else "under way"
    flag = f" [{status}]" if status not in (reading.ENDED, reading.OPEN) else ""
    return f"{number}. {fight.name} ({fight.file}): {what}{flag}"


def state_line(camp: Campaign) -> str:
    under_way = camp.open_fight()
    fight = f"under way: {under_way.name}" if under_way else "no fight under way (n: the next)"
    top = camp.undo_target()
    undo = f" · u takes back: {camp.describe(top)}" if top is not None else ""
    return f"{fight}{undo}"


class CampaignStatsScreen(Screen[None]):
    """`tracker campaign stats` for this campaign, as this screen's role may see it."""

    BINDINGS = [Binding("escape", "app.pop_screen", "Back")]

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self.title_text = title
        self.shown_text = text

    def compose(self) -> ComposeResult:
        with Vertical(id="stats"):
            yield Label(Text(printable(self.title_text), no_wrap=True, overflow="ellipsis"), classes="title")
            with VerticalScroll(id="stats-scroll"):
                yield Static(Text(self.shown_text), id="stats-body")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#stats-scroll").focus()


class CampaignScreen(Screen[None]):
    DEFAULT_CSS = """
    CampaignScreen #campaign-list { height: 1fr; }
    """
    COMMAND_TABLE: tuple[Command, ...] = CAMPAIGN
    BINDINGS = bindings(CAMPAIGN)

    @property
    def active_bindings(self) -> dict[str, Any]:
        return in_table_order(super().active_bindings, self.COMMAND_TABLE)

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path
        self.shown: Shown | None = None
        self.working = False  # a change is on its thread (keys typed meanwhile wait)
        self.ids: list[str] = []  # each row's "pc:ID" or "fight:N" ("" for a heading)

    # ------------------------------------------------------------ showing
    def compose(self) -> ComposeResult:
        with Vertical(id="campaign"):
            yield Label(Text(printable(f"Campaign · {self.path.name}")), classes="title", id="campaign-title")
            yield Label("reading the campaign…", classes="hint", id="campaign-state")
            yield OptionList(id="campaign-list")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()
        self.reload()

    def on_screen_resume(self) -> None:
        if self.is_mounted and self.shown is not None:
            self.reload()

    @property
    def campaign(self) -> Campaign | None:
        return self.shown.campaign if self.shown is not None else None

    def reload(self, select: str | None = None) -> None:
        """Read the campaign again (on a thread), keeping the highlighted row."""
        keep = select or self._current_id()
        in_thread(self, lambda: read(self.path), lambda shown: self._show(shown, keep), self._unreadable, group="campaign-read")

    def _unreadable(self, message: str) -> None:
        self.shown = None
        self.query_one("#campaign-state", Label).update(Text(printable(f"cannot load: {message}")))
        self.query_one(OptionList).clear_options()
        self.ids = []

    def _show(self, shown: Shown, select: str | None) -> None:
        self.shown = shown
        camp = shown.campaign
        self.query_one("#campaign-title", Label).update(Text(printable(f"Campaign · {camp.name} ({camp.ruleset})"), no_wrap=True, overflow="ellipsis"))
        self.query_one("#campaign-state", Label).update(Text(printable(state_line(camp))))
        options = self.query_one(OptionList)
        options.clear_options()
        rows: list[tuple[str, Text, bool]] = [("", Text("The party", style="bold"), False)]
        party = camp.party()
        rows += [(f"pc:{pc.id}", Text(printable(f"{pc.name}: {reading._figures(pc) or 'no figures'}")), True) for pc in party]
        if not party:
            rows.append(("", Text("nobody yet (a: a character joins)", style="italic"), False))
        gone = [pc for pc in camp.pcs.values() if pc.status != ACTIVE]
        rows += [("", Text(printable(f"  gone: {pc.name} ({pc.status}{': ' + pc.why if pc.why else ''})"), style="dim"), False) for pc in gone]
        rows.append(("", Text("Fights", style="bold"), False))
        rows += [(f"fight:{i}", Text(printable(fight_line(i + 1, f, status))), True) for i, (f, status) in enumerate(zip(camp.fights, shown.statuses))]
        if not camp.fights:
            rows.append(("", Text("none yet (n: the next fight)", style="italic"), False))
        self.ids = [ident for ident, _, _ in rows]
        for _, text, enabled in rows:
            options.add_option(Option(text, disabled=not enabled))
        chosen = [i for i, ident in enumerate(self.ids) if ident and ident == select] or [i for i, ident in enumerate(self.ids) if ident]
        if chosen:
            options.highlighted = chosen[0]

    def _current_id(self) -> str:
        options = self.query_one(OptionList)
        index = options.highlighted
        return self.ids[index] if index is not None and index < len(self.ids) else ""

    def _current_pc(self) -> PC | None:
        ident, camp = self._current_id(), self.campaign
        if camp is None or not ident.startswith("pc:"):
            return None
        return camp.pcs.get(ident.removeprefix("pc:"))

    def _current_fight(self) -> Fight | None:
        ident, camp = self._current_id(), self.campaign
        if camp is None or not ident.startswith("fight:"):
            return None
        return camp.fights[int(ident.removeprefix("fight:"))]

    # ------------------------------------------------------------ dispatch
    @property
    def viewer(self) -> bool:
        role = getattr(self.app, "role", None)
        return bool(getattr(self.app, "viewer", False)) or bool(role is not None and role.is_player)

    @property
    def role(self) -> Role:
        """Whose screen this is (the palette offers this role's rows: tracker.ui.commands)."""
        role = getattr(self.app, "role", None)
        if isinstance(role, Role) and role.is_player:
            return role
        return Role.viewer() if self.viewer else Role.gm()

    @property
    def by(self) -> str:
        return Role.gm().signature(str(getattr(self.app, "user", "")))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cmd" and self.viewer:
            return viewer_may(CAMPAIGN, str(parameters[0]) if parameters else "")
        return True

    def action_cmd(self, name: str) -> None:
        command = next(c for c in CAMPAIGN if c.name == name)
        if command.edits and self.viewer:
            self.notify(f"{command.label}: refused, this is a read-only viewer", severity="warning")
            return
        if self.working:
            return  # the keys hold waits for the change on its thread; a palette pick is let go
        try:
            getattr(self, f"do_{name}")()
        except TrackerError as exc:
            self.notify(str(exc), severity="error", timeout=6)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_cmd("open")

    def _need(self) -> Campaign:
        camp = self.campaign
        if camp is None:
            raise TrackerError(f"{self.path.name}: the campaign is not read (yet): g reads it again")
        return camp

    @property
    def ruleset(self) -> Ruleset:
        self._need()
        assert self.shown is not None
        return self.shown.ruleset

    def _need_pc(self) -> PC:
        self._need()
        pc = self._current_pc()
        if pc is None:
            raise TrackerError("highlight a character of the party first (up/down)")
        return pc

    def _after(self, form: forms.BackgroundForm, said: Callable[[object], str], select: str | None = None) -> None:
        def done(values: dict[str, str] | None) -> None:
            if values is not None and form.result is not None:
                self.notify(printable(said(form.result)), timeout=4)
            self.reload(select)

        self.app.push_screen(form, done)

    # ------------------------------------------------------------ commands
    def do_open(self) -> None:
        if self._current_pc() is not None and not self.viewer:
            self.do_change()
            return
        fight = self._current_fight()
        if fight is None:
            return
        app: Any = self.app
        target = self.path.parent / fight.file
        in_thread(self, lambda: app_live(app, target), lambda live: app.open_encounter(target, live=live))

    def do_next_fight(self) -> None:
        camp = self._need()
        app: Any = self.app
        form = forms.next_fight_form(camp, self.path, self.by, lambda target: app_live(app, target))

        def done(values: dict[str, str] | None) -> None:
            if values is not None and isinstance(form.result, tuple):
                target, live = form.result
                app.open_encounter(target, roster=True, live=live)
            else:
                self.reload()

        self.app.push_screen(form, done)

    def do_add(self) -> None:
        self._after(forms.add_form(self._need(), self.ruleset, self.path, self.by), lambda name: f"{name} joins the party")

    def do_library_add(self) -> None:
        camp = self._need()
        from tracker.persistence.library import Library

        def names() -> list[str]:
            return Library.in_folder(self.path.parent, camp.ruleset).names()

        def show(found: list[str]) -> None:
            if not found:
                self.notify(f"the library of {camp.ruleset} sheets in {self.path.parent} holds none yet (w in a fight's roster editor saves one)", severity="warning")
                return
            self._after(forms.library_form(camp, self.path, self.by, found), lambda name: f"{name} joins the party")

        in_thread(self, names, show)

    def do_change(self) -> None:
        pc = self._need_pc()
        self._after(forms.change_form(self._need(), self.ruleset, self.path, self.by, pc), lambda _: f"{pc.name} changed", f"pc:{pc.id}")

    def do_leave(self) -> None:
        pc = self._need_pc()
        self._after(forms.leave_form(self._need(), self.path, self.by, pc), lambda how: f"{pc.name} {how}")

    def do_rest(self) -> None:
        camp = self._need()
        from tracker.ui.screens.rest import carry_on, rest_form

        form = rest_form(camp, self.ruleset, self.path, self.by)
        self.app.push_screen(form, lambda _: carry_on(self, form, self.path, self.by, self.reload))

    def do_stats(self) -> None:
        camp = self._need()
        figures = reading.stats(camp, viewer=self.viewer)
        who = " (as viewers see it)" if self.viewer else ""
        self.app.push_screen(CampaignStatsScreen(f"Statistics · {camp.name}{who} (esc: back)", reading.stats_text(figures)))

    def _walk(self, kind: str) -> None:
        def said(text: str) -> None:
            self.notify(printable(text), timeout=6)
            self.reload()

        in_thread(self, lambda: fights.walk(self.path, kind, self.by)[1], said)

    def do_undo(self) -> None:
        self._walk("undo")

    def do_redo(self) -> None:
        self._walk("redo")

    def do_reload(self) -> None:
        self.reload()

    def do_help(self) -> None:
        self.app.push_screen(HelpScreen("Campaign", for_viewer(CAMPAIGN) if self.viewer else CAMPAIGN))

    def do_close(self) -> None:
        self.dismiss(None)

    def do_quit(self) -> None:
        self.app.quit_asking()  # type: ignore[attr-defined]


def app_live(app: Any, path: Path) -> Any:
    """A fight read for the app's encounter screen (on a thread), as the app opens one."""
    from tracker.play.live import Live

    return Live.open(path, app.viewer, app.user, app.role)
