"""The roster editor: add, edit and remove combatants, with sheet forms built from the
adapter's schema (`ruleset.sheet`: name, kind, default, bounds, help).

Each sheet field is checked as it is typed (`Field.coerce`, whose FieldError message
names the key and what was expected) and the whole sheet again on save by the adapter
(`build_sheet`), whose message is shown in the form. "more" takes extra `key=value`
pairs for adapters that accept keys beyond their schema (freeform); others refuse
unknown keys with a message listing the known ones. Editing a combatant already in the
fight records `set` changes (the log keeps them; undo takes them back).
"""

from __future__ import annotations

import shlex
from collections.abc import Callable

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import Screen
from rich.text import Text
from textual.widgets import Footer, Label, OptionList
from textual.widgets.option_list import Option

from tracker.text import visible
from tracker.engine import Combatant, CommandError, TrackerError
from tracker.session import split_command
from tracker.ui.commands import ROSTER, Command, bindings
from tracker.ui.live import Live
from tracker.ui.screens.confirm import ConfirmScreen
from tracker.ui.screens.form import FormField, FormScreen
from tracker.ui.screens.help import HelpScreen


def _segment(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise TrackerError(f"surprised: expected a segment number, got {text!r}") from None
    if value < 0:
        raise TrackerError(f"surprised: expected a segment of at least 0, got {value}")
    return value


def _yes_no(text: str) -> bool:
    if text.lower() in ("y", "yes", "true", "1"):
        return True
    if text.lower() in ("n", "no", "false", "0", ""):
        return False
    raise TrackerError(f"hidden: expected yes or no, got {text!r}")


def _pairs(text: str) -> dict[str, str]:
    if not text:
        return {}
    _, positional, options = split_command("x " + text)
    if positional:
        raise CommandError(f"more: expected key=value pairs, got {positional[0]!r}")
    return options


def sheet_fields(live: Live, combatant: Combatant | None = None) -> list[FormField]:
    ruleset = live.ruleset
    rows: list[FormField] = []
    if combatant is None:
        rows.append(FormField("name", "name", "", "the combatant's name", lambda t: None))
        rows.append(FormField("side", "side", "", "optional: PC, foe, ..."))
    rows.append(FormField("hidden", "hidden", "yes" if combatant and combatant.hidden else "no", "yes: not shown to viewers", _yes_no))
    rows.append(FormField("surprised", "surprised", str(combatant.surprised_until) if combatant and combatant.surprised_until else "", "may not initiate before this segment", _segment))
    for f in ruleset.sheet:
        if combatant is not None:
            current = combatant.resources.get(f.name, combatant.stats.get(f.name))
            value = "" if current is None else (f"{current:g}" if isinstance(current, float) else str(current))
        else:
            value = "" if f.default is None else str(f.default)
        help_text = f"{f.help} ({f.expected()})" if f.help else f.expected()
        rows.append(FormField(f"sheet_{f.name}", f.name, value, help_text, lambda t, f=f: f.coerce(t, f.name)))
    known = {f.name for f in ruleset.sheet}
    if combatant is not None:
        extra = {**combatant.stats, **combatant.resources}
        more = " ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in extra.items() if k not in known)
    else:
        more = ""
    rows.append(FormField("more", "more", more, "other key=value pairs", _pairs))
    return rows


def _split_values(values: dict[str, str]) -> dict[str, str]:
    sheet = {k.removeprefix("sheet_"): v for k, v in values.items() if k.startswith("sheet_") and v}
    sheet.update(_pairs(values.get("more", "")))
    return sheet


def add_form(live: Live, done: Callable[[str], None] | None = None) -> FormScreen:
    def submit(values: dict[str, str]) -> None:
        name = values["name"]
        if not name:
            raise TrackerError("name: expected the combatant's name")
        live.run(lambda s: s.add(name, _split_values(values), side=values["side"], hidden=_yes_no(values["hidden"]), surprised_until=_segment(values["surprised"]) if values["surprised"] else 0))
        if done:
            done(name)

    return FormScreen(f"Add a combatant ({live.ruleset.name} sheet)", sheet_fields(live), submit)


def edit_form(live: Live, combatant: Combatant) -> FormScreen:
    name = combatant.name

    def submit(values: dict[str, str]) -> None:
        enc = live.encounter
        c = enc.combatant(name)
        changes: list[str] = []
        for key, text in _split_values(values).items():
            current = c.resources.get(key, c.stats.get(key))
            shown = "" if current is None else (f"{current:g}" if isinstance(current, float) else str(current))
            if text != shown:
                changes.append(shlex.join(["set", name, key, text]))
        hidden = _yes_no(values["hidden"])
        if hidden != c.hidden:
            changes.append(shlex.join(["hide" if hidden else "unhide", name]))
        surprised = _segment(values["surprised"]) if values["surprised"] else 0
        if surprised != c.surprised_until and (surprised or c.surprised_until > enc.now):
            changes.append(shlex.join(["surprise", name, str(surprised)]))
        for line in changes:
            live.run(lambda s, line=line: s.execute(line))

    return FormScreen(f"Edit {name}", sheet_fields(live, combatant), submit, note="each change is logged as `set` (undo takes it back)")


class RosterScreen(Screen[None]):
    COMMAND_TABLE: tuple[Command, ...] = ROSTER
    BINDINGS = bindings(ROSTER)

    def __init__(self, live: Live) -> None:
        super().__init__()
        self.live = live

    def compose(self) -> ComposeResult:
        with Vertical(id="roster-editor"):
            yield Label(Text(visible(f"Roster · {self.live.encounter.setup.name} ({self.live.ruleset.name})")), classes="title")
            yield OptionList(id="roster-list")
            yield Label("a: add  enter/e: edit  del/x: remove  esc: done", classes="hint")
        yield Footer()

    def on_mount(self) -> None:
        self.reload()
        self.query_one(OptionList).focus()

    def reload(self, select: str | None = None) -> None:
        options = self.query_one(OptionList)
        highlighted = options.highlighted
        options.clear_options()
        enc = self.live.encounter
        for c in enc.combatants.values():
            res = ", ".join(f"{k} {v:g}" if isinstance(v, (int, float)) else f"{k} {v}" for k, v in c.resources.items())
            side = f" [{c.side}]" if c.side else ""
            hidden = " (hidden)" if c.hidden else ""
            options.add_option(Option(Text(visible(f"{c.name}{side}{hidden}: {res}")), id=c.name))
        if not enc.combatants:
            options.add_option(Option("(no combatants yet: press a to add one)", disabled=True))
        names = list(enc.combatants)
        if select in names:
            options.highlighted = names.index(select)
        elif highlighted is not None and names:
            options.highlighted = min(highlighted, len(names) - 1)

    def _current(self) -> Combatant | None:
        options = self.query_one(OptionList)
        if options.highlighted is None:
            return None
        option = options.get_option_at_index(options.highlighted)
        return self.live.encounter.combatants.get(option.id or "")

    def action_cmd(self, name: str) -> None:
        command = next(c for c in ROSTER if c.name == name)
        if command.edits and self.live.viewer:
            self.notify(f"{command.label}: refused, this is a read-only viewer", severity="warning")
            return
        getattr(self, f"do_{name}")()

    def do_add(self) -> None:
        def added(values: dict[str, str] | None) -> None:
            self.reload(values["name"] if values else None)

        self.app.push_screen(add_form(self.live), added)

    def do_edit(self) -> None:
        c = self._current()
        if c is not None:
            self.app.push_screen(edit_form(self.live, c), lambda _: self.reload(c.name))

    def do_remove(self) -> None:
        c = self._current()
        if c is None:
            return

        def answer(yes: bool | None) -> None:
            if yes:
                try:
                    self.live.run(lambda s: s.execute(shlex.join(["remove", c.name])))
                except TrackerError as exc:
                    self.notify(str(exc), severity="error")
                self.reload()

        self.app.push_screen(ConfirmScreen(f"Remove {c.name} from the fight?"), answer)

    def do_done(self) -> None:
        self.dismiss(None)

    def do_help(self) -> None:
        self.app.push_screen(HelpScreen("Roster", ROSTER))
