"""The roster editor: add, edit and remove combatants, with sheet forms built from the
adapter's schema (`ruleset.sheet`: name, kind, default, bounds, help).

Each sheet field is checked as it is typed (`Field.coerce`, whose FieldError message
names the key and what was expected) and the whole sheet again on save by the adapter
(`build_sheet`), whose message is shown in the form. "more" takes extra `key=value`
pairs for adapters that accept keys beyond their schema (freeform); others refuse
unknown keys with a message listing the known ones. Editing a combatant already in the
fight records `set` changes (the log keeps them; undo takes them back), each value
checked before any is recorded: one refused saves none of the form.

Roster work mid-fight, each one change in the log that undo takes back: `a` with
copies > 1 adds numbered copies (Goblin 1..4); `r` renames; `s` changes side; `[` and
`]` move the highlighted combatant up and down; `l` adds from the ruleset's library of
sheets (the `library-<ruleset>.toml` file in the saves folder) and `w` saves the
highlighted sheet there. Names and sides are shown as plain text (never markup), with
control characters made visible.
"""

from __future__ import annotations

from typing import Any

from collections.abc import Callable
from functools import partial

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from rulesets.fields import Field, yes_no
from tracker.engine import Combatant, CommandError, TrackerError
from tracker.engine.kinds import fmt
from tracker.play.session import Outcome, Session
from tracker.play.sheets import set_event
from tracker.play.verbs import MAX_COPIES, at_least, split_command
from tracker.engine.text import check_name, printable
from tracker.ui.commands import ROSTER, Command, bindings, hint, in_table_order
from tracker.play.live import Live
from tracker.ui.screens.confirm import ConfirmScreen
from tracker.ui.screens.form import FormField, FormScreen
from tracker.ui.screens.help import HelpScreen
from tracker.ui.widgets.footer import KeyFooter


def _segment(text: str) -> int:
    return at_least(text, "surprised", 0, "a segment number", "a segment of at least 0")


def _yes_no(text: str) -> bool:
    return yes_no(text or "no", "hidden")  # an emptied field: not hidden


def _name(text: str) -> None:
    """The name field's message as it is typed: what `add` and `rename` would refuse."""
    if text.strip():
        check_name(text.strip(), "name")


def _copies(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise TrackerError(f"copies: expected a whole number from 1 to {MAX_COPIES}, got {text!r}") from None
    if not 1 <= value <= MAX_COPIES:
        raise TrackerError(f"copies: expected a whole number from 1 to {MAX_COPIES}, got {value}")
    return value


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
        rows.append(FormField("name", "name", "", "the combatant's name", _name))
        rows.append(FormField("copies", "copies", "1", f"more than 1: numbered copies (Goblin 1, 2, ...), up to {MAX_COPIES}", _copies))
        rows.append(FormField("side", "side", "", "optional: PC, foe, ..."))
    rows.append(FormField("hidden", "hidden", "yes" if combatant and combatant.hidden else "no", "yes: not shown to viewers", _yes_no))
    rows.append(FormField("surprised", "surprised", str(combatant.surprised_until) if combatant and combatant.surprised_until else "", "may not initiate before this segment", _segment))
    for f in ruleset.sheet:
        if combatant is not None:
            current = combatant.resources.get(f.name, combatant.stats.get(f.name))
        else:
            current = f.default
        value = "" if current is None else fmt(current)  # a yes/no stat: yes or no
        help_text = f"{f.help} ({f.expected()})" if f.help else f.expected()
        rows.append(FormField(f"sheet_{f.name}", f.name, value, help_text, partial(f.coerce, where=f.name)))
    known = {f.name for f in ruleset.sheet}
    if combatant is not None:
        extra = {**combatant.stats, **combatant.resources}
        more = " ".join(f"{k}={fmt(v)}" for k, v in extra.items() if k not in known)
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
        copies = _copies(values.get("copies") or "1")
        outcome = live.run(lambda s: s.add(name, _split_values(values), side=values["side"], hidden=_yes_no(values["hidden"]), surprised_until=_segment(values["surprised"]) if values["surprised"] else 0, copies=copies))
        added = (outcome.event.args.get("names") or [name]) if outcome.event is not None else [name]
        values["name"] = added[0]  # the roster highlights the (first) new combatant
        if done:
            done(added[0])

    return FormScreen(f"Add a combatant ({live.ruleset.name} sheet)", sheet_fields(live), submit)


def _same_value(field: Field | None, text: str, current: Any) -> bool:
    """Whether `text` is the value the sheet holds, written another way ("4d" for a D6
    "4D"): no `set` is recorded for it."""
    if field is None or current is None:
        return False
    try:
        return bool(field.coerce(text, field.name) == current)
    except TrackerError:
        return False  # the set refuses it, naming the field


def edit_form(live: Live, combatant: Combatant) -> FormScreen:
    name = combatant.name
    sheet = {f.name: f for f in live.ruleset.sheet}

    def submit(values: dict[str, str]) -> None:
        enc = live.encounter
        c = enc.combatant(name)
        # Calls, not command lines: a name from an old file may hold characters the
        # command line refuses, and the GM must still be able to edit that combatant.
        changes: list[Callable[[Session], Outcome]] = []
        for key, text in _split_values(values).items():
            current = c.resources.get(key, c.stats.get(key))
            shown = "" if current is None else fmt(current)
            if text != shown and not _same_value(sheet.get(key), text, current):
                # Checked as its `set` will be, before any is recorded: a value refused
                # leaves the sheet as it was, not half saved.
                set_event(live.ruleset, enc, name, key, text)
                changes.append(partial(_set_value, name, key, text))
        hidden = _yes_no(values["hidden"])
        if hidden != c.hidden:
            changes.append(lambda s: s.hide(name, hidden))
        surprised = _segment(values["surprised"]) if values["surprised"] else 0
        if surprised != c.surprised_until and (surprised or c.surprised_until > enc.now):
            changes.append(lambda s: s.surprise(name, surprised))
        for change in changes:
            live.run(change)

    return FormScreen(f"Edit {name}", sheet_fields(live, combatant), submit, note="all or nothing; each change is logged as `set` (undo takes it back)")


def _set_value(name: str, key: str, text: str, session: Session) -> Outcome:
    return session.set_value(name, key, text)


class RosterScreen(Screen[None]):
    COMMAND_TABLE: tuple[Command, ...] = ROSTER

    @property
    def active_bindings(self) -> dict[str, Any]:
        return in_table_order(super().active_bindings, self.COMMAND_TABLE)
    BINDINGS = bindings(ROSTER)

    def __init__(self, live: Live) -> None:
        super().__init__()
        self.live = live

    def compose(self) -> ComposeResult:
        with Vertical(id="roster-editor"):
            yield Label(Text(printable(f"Roster · {self.live.encounter.setup.name} ({self.live.ruleset.name})")), classes="title")
            yield OptionList(id="roster-list")
            yield Label("", classes="hint", id="roster-hint")  # the keys the footer leaves out
        yield KeyFooter()

    def on_mount(self) -> None:
        self.reload()
        self.query_one(OptionList).focus()
        self.call_after_refresh(self._show_hint)

    def _show_hint(self) -> None:
        """The rest of the keys, from the same bindings as the footer (commands.hint)."""
        self.query_one("#roster-hint", Label).update(Text(hint(self, ROSTER)))

    def reload(self, select: str | None = None) -> None:
        options = self.query_one(OptionList)
        highlighted = options.highlighted
        options.clear_options()
        enc = self.live.encounter
        for c in enc.combatants.values():
            res = ", ".join(f"{k} {v:g}" if isinstance(v, (int, float)) else f"{k} {v}" for k, v in c.resources.items())
            side = f" [{c.side}]" if c.side else ""
            hidden = " (hidden)" if c.hidden else ""
            options.add_option(Option(Text(printable(f"{c.name}{side}{hidden}: {res}")), id=c.name))
        if not enc.combatants:
            options.add_option(Option("(no combatants yet: press a to add one)", disabled=True))
        names = list(enc.combatants)
        if select in names:
            options.highlighted = names.index(select)
        elif highlighted is not None and names:
            options.highlighted = min(highlighted, len(names) - 1)
        elif names:  # opened: the first row, so e, r, s, x act at once (no Down first)
            options.highlighted = 0

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

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Enter on a row: Edit, as the table binds it ("enter,e"); the list claims Enter
        before the screen's bindings see it."""
        event.stop()
        self.action_cmd("edit")

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
                    self.live.run(lambda s: s.remove(c.name))
                except TrackerError as exc:
                    self.notify(printable(str(exc)), severity="error", markup=False)
                self.reload()

        self.app.push_screen(ConfirmScreen(f"Remove {c.name} from the fight?"), answer)

    def _run(self, change: Callable[..., object], select: str | None = None) -> None:
        try:
            self.live.run(change)  # type: ignore[arg-type]
        except TrackerError as exc:
            self.notify(printable(str(exc)), severity="error", markup=False)
        self.reload(select)

    def do_rename(self) -> None:
        c = self._current()
        if c is None:
            return
        renamed: list[str] = []

        def submit(values: dict[str, str]) -> None:
            self.live.run(lambda s: s.rename(c.name, values["name"]))
            renamed.append(values["name"])

        field = FormField("name", "new name", c.name, "the combatant's new name", _name)
        self.app.push_screen(FormScreen(f"Rename {c.name}", [field], submit), lambda _: self.reload(renamed[0] if renamed else c.name))

    def do_side(self) -> None:
        c = self._current()
        if c is None:
            return
        sides = sorted({o.side for o in self.live.encounter.combatants.values() if o.side})
        field = FormField("side", "side", c.side, "PC, foe, ... (empty: no side)", None, sides)
        self.app.push_screen(
            FormScreen(f"Side of {c.name}", [field], lambda v: self.live.run(lambda s: s.set_side(c.name, v["side"]))),
            lambda _: self.reload(c.name),
        )

    def _move(self, by: int) -> None:
        c = self._current()
        if c is None:
            return
        names = list(self.live.encounter.combatants)
        position = names.index(c.name) + 1 + by
        if 1 <= position <= len(names):
            self._run(lambda s: s.reorder(c.name, position), c.name)

    def do_move_up(self) -> None:
        self._move(-1)

    def do_move_down(self) -> None:
        self._move(1)

    def do_library_add(self) -> None:
        try:
            library = self.live.session.library()
            names = library.names()
        except TrackerError as exc:
            self.notify(printable(str(exc)), severity="error", markup=False)
            return
        if not names:
            self.notify(f"{library.path.name} holds no sheets yet: highlight a combatant and press w to save one", severity="warning", markup=False)
            return
        fields = [
            FormField("entry", "sheet", names[0], ", ".join(printable(n) for n in names[:12]), library.get, names),
            FormField("name", "name", "", "default: the sheet's name"),
            FormField("copies", "copies", "1", f"more than 1: numbered copies, up to {MAX_COPIES}", _copies),
            FormField("side", "side", "", "default: the sheet's side"),
        ]
        added: list[str] = []

        def submit(values: dict[str, str]) -> None:
            outcome = self.live.run(
                lambda s: s.add_from_library(values["entry"], values["name"] or None, copies=_copies(values["copies"] or "1"), side=values["side"] or None)
            )
            if outcome.event is not None:
                added.extend(outcome.event.args.get("names") or [outcome.event.args["name"]])

        self.app.push_screen(FormScreen(f"Add from {library.path.name}", fields, submit), lambda _: self.reload(added[0] if added else None))

    def do_library_save(self) -> None:
        c = self._current()
        if c is None:
            return
        saved: list[str] = []

        def submit(values: dict[str, str]) -> None:
            outcome = self.live.run(lambda s: s.save_sheet(c.name, values["entry"] or None))
            saved.extend(outcome.lines)

        def done(values: dict[str, str] | None) -> None:
            if saved:
                self.notify(saved[0], markup=False)

        field = FormField("entry", "sheet name", c.name, "saving under an existing name replaces that sheet")
        self.app.push_screen(FormScreen(f"Save {c.name}'s sheet in the library", [field], submit), done)

    def do_done(self) -> None:
        self.dismiss(None)

    def do_help(self) -> None:
        self.app.push_screen(HelpScreen("Roster", ROSTER))
