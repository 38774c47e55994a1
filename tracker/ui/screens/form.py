"""A small keyboard form in a dialog, used for damage, conditions, notes, the `:` line
and the sheet editor.

Each field is one row (label, input) with its validation message right under it,
updated as the value changes. Enter moves to the next field and submits on the last;
ctrl+s submits from anywhere; escape cancels. The `submit` callback performs the change;
if it raises TrackerError (a FieldError naming the key, a RuleRefusal naming the rule)
the message is shown in the form and the form stays open, so nothing typed is lost.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.geometry import Size
from textual.reactive import Reactive
from textual.suggester import Suggester
from textual.widget import Widget
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from tracker.engine import TrackerError
from tracker.engine.text import clip, printable


LABEL_CELLS = 13  # a field's label column (`.dialog .label` in tracker.tcss)


class ListSuggester(Suggester):
    """Completes the last comma-separated word from a list (names, templates, verbs)."""

    def __init__(self, words: Sequence[str], multiple: bool = False, listed: Sequence[str] = ()) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self.words = list(words)
        self.multiple = multiple
        # On a command line, the names that may follow a comma ("damage "Goblin 1,Gob"):
        # a list of several combatants is completed name by name as a single one is.
        self.listed = list(listed)

    async def get_suggestion(self, value: str) -> str | None:
        head, sep, last = value.rpartition(",") if self.multiple else ("", "", value)
        found = self._complete(self.words, last)
        if found is None and self.listed and not self.multiple:
            head, sep, last = value.rpartition(",")
            if sep and not any(ch in last for ch in "\"'="):
                found = self._complete(self.listed, last)
        return None if found is None else head + sep + found

    @staticmethod
    def _complete(words: Sequence[str], last: str) -> str | None:
        stem = last.lstrip()
        if not stem:
            return None
        for word in words:
            if word.casefold().startswith(stem.casefold()) and word != stem:
                return last[: len(last) - len(stem)] + word
        return None


@dataclass
class FormField:
    name: str
    label: str
    value: str = ""
    help: str = ""
    check: Callable[[str], object] | None = None  # raises TrackerError when the text is bad
    suggestions: Sequence[str] = field(default_factory=tuple)
    multiple: bool = False
    listed: Sequence[str] = ()  # names completed after a comma on a command line (ListSuggester)
    pick: bool = False  # chosen from `suggestions` in a list (no free text): `ChoiceList`


class ChoiceList(OptionList):
    """A field chosen from a list: up/down move, typing a name's first letters jumps to
    it (ctrl+u or backspace starts the typing over), Enter takes the highlighted one."""

    BINDINGS = [Binding("ctrl+u", "forget", show=False), Binding("backspace", "forget", show=False)]

    def __init__(self, choices: Sequence[str], value: str, **kwargs: object) -> None:
        super().__init__(*[Option(Text(printable(c)), id=c) for c in choices], **kwargs)  # type: ignore[arg-type]
        self.choices = list(choices)
        self.typed = ""
        if value in self.choices:
            self.highlighted = self.choices.index(value)

    @property
    def value(self) -> str:
        return self.choices[self.highlighted] if self.highlighted is not None and self.choices else ""

    def action_forget(self) -> None:
        self.typed = ""

    def on_key(self, event: events.Key) -> None:
        char = event.character
        if not event.is_printable or char is None or not char.strip():
            return
        event.stop()
        event.prevent_default()
        for typed in (self.typed + char, char):
            found = next((i for i, c in enumerate(self.choices) if c.casefold().startswith(typed.casefold())), None)
            if found is not None:
                self.typed, self.highlighted = typed, found
                return
        self.typed = ""


class FieldInput(Input):
    """Textual's Input, less a layout of the whole screen on every key typed.

    Textual's Input sets its virtual size (the width of its text) as each key changes
    the value, and the virtual size is a reactive that lays out the whole screen: the
    declare form, its rows and the encounter screen's dialog background, for a key that
    changes one line. A field's size never depends on its text (`width: auto` aside,
    which Input lays out itself), and the virtual size matters only to the field's own
    horizontal scrolling, which reads it from the widget. So a field declares its own
    `virtual_size` reactive, the same but for the layout: a change repaints the field.
    Measured with `benchmarks/ui_screens.py` (a key's echo in the declare form)."""

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)


def set_error(label: Label, text: str | Text) -> None:
    """Show a validation message under its field; an empty message takes no room.
    Messages quote what was typed: plain text, never markup.

    Checked on every key: a message that keeps its number of lines (or a hidden label
    that stays hidden) repaints the label alone, without a layout of the whole screen
    (the dialog, its rows, the screen under it), so the key's echo is not held up."""
    shown = Text(printable(text)) if isinstance(text, str) else text
    display = bool(text)
    layout = True
    if not display and not label.display:
        layout = False
    elif display and label.display and label.content_region.width > 0:
        width = label.content_region.width
        console = label.app.console
        old = label.content
        before = Text(old) if isinstance(old, str) else old
        if isinstance(before, Text):
            layout = len(before.wrap(console, width)) != len(shown.wrap(console, width))
    label.update(shown, layout=layout)
    if label.display != display:
        label.display = display


def field_row(f: FormField, prefix: str = "f") -> list[Widget]:
    """A label and input on one row, and the (hidden while empty) message under it."""
    row, _, _ = field_parts(f, prefix)
    return row


def field_parts(
    f: FormField, prefix: str = "f", label_width: int | None = None, entry_type: type[FieldInput] = FieldInput
) -> tuple[list[Widget], Input, Label]:
    """`field_row`, also handing back its input and its message label (`entry_type`: an
    Input that answers some keys its own way, as the declare form's action field)."""
    suggester = ListSuggester(f.suggestions, f.multiple, f.listed) if f.suggestions else None
    entry = entry_type(f.value, placeholder=f.help, id=f"{prefix}-{f.name}", suggester=suggester)
    entry.cursor_blink = False
    error = Label("", id=f"{prefix}-{f.name}-error", classes="error")
    # Cut to leave one free cell before the value: "active_charis10" never happens.
    width = label_width if label_width is not None else LABEL_CELLS
    label = Label(Text(clip(f.label, width - 1), no_wrap=True), classes="label")
    if label_width is not None:
        label.styles.width = label_width
    return [Horizontal(label, entry, classes="row"), error], entry, error


class FormScreen(ModalScreen[dict[str, str] | None]):
    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+s", "submit", "Save"),
    ]

    def __init__(
        self, title: str, fields: Sequence[FormField], submit: Callable[[dict[str, str]], object] | None = None, note: str = "", start: int = 0
    ) -> None:
        super().__init__()
        self.title_text = title
        self.fields = list(fields)
        self.submit = submit
        self.note = note
        # The field focused first: a field above it holds a default most changes keep
        # (the damage form's `who`), one step back (shift+Tab, Up) when it does not.
        self.start = start if 0 <= start < len(self.fields) else 0

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog form"):
            yield Label(Text(printable(str(self.title_text))), classes="title")
            if self.note:
                yield Label(Text(printable(self.note)), classes="hint")
            for f in self.fields:
                if f.pick:
                    yield Label(Text(f"{f.label} (up/down or type its name; enter takes it)"), classes="hint")
                    choices = ChoiceList(f.suggestions, f.value, id=f"f-{f.name}", classes="pick")
                    choices.styles.height = min(len(f.suggestions), 8) + 2
                    yield choices
                    yield Label("", id=f"f-{f.name}-error", classes="error")
                else:
                    yield from field_row(f)
            yield Label("", id="form-error", classes="error")
            yield Label("enter: next field, saves from the last · ctrl+s: save · esc: cancel", classes="hint")

    def on_mount(self) -> None:
        if self.fields:
            self._entry(self.fields[self.start]).focus()

    def _entry(self, f: FormField) -> Input | ChoiceList:
        if f.pick:
            return self.query_one(f"#f-{f.name}", ChoiceList)
        return self.query_one(f"#f-{f.name}", Input)

    def values(self) -> dict[str, str]:
        return {f.name: self._entry(f).value.strip() for f in self.fields}

    def has_unsaved_input(self) -> bool:
        """A field differs from what the form opened with (a quit would lose it). Compared
        with the fields' own starting values, so a key typed before the field's first focus
        was seen (a burst on a loaded host) still counts."""
        try:
            return any(self._entry(f).value != f.value for f in self.fields)
        except Exception:  # not mounted yet, or closing: nothing typed into it
            return False

    def _check(self, f: FormField, text: str) -> bool:
        error = ""
        if f.check is not None and text:
            try:
                f.check(text)
            except TrackerError as exc:
                error = str(exc)
        set_error(self.query_one(f"#f-{f.name}-error", Label), error)
        return not error

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        for f in self.fields:
            if event.input.id == f"f-{f.name}":
                self._check(f, event.value.strip())

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        self._next_or_submit(event.input.id)

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._next_or_submit(event.option_list.id)

    def _next_or_submit(self, ident: str | None) -> None:
        """Enter: the next field, or from the last one, save."""
        ids = [f"f-{f.name}" for f in self.fields]
        if ident in ids and ids.index(ident) < len(ids) - 1:
            self._entry(self.fields[ids.index(ident) + 1]).focus()
        else:
            self.action_submit()

    def action_submit(self) -> None:
        values = self.values()
        if not all([self._check(f, values[f.name]) for f in self.fields]):
            return
        if self.submit is not None:
            try:
                self.submit(values)
            except TrackerError as exc:
                error = self.query_one("#form-error", Label)
                set_error(error, str(exc))
                # Below the last field of a long form (a sheet): brought into view.
                self.call_after_refresh(error.scroll_visible, animate=False)
                return
        self.dismiss(values)

    def action_cancel(self) -> None:
        self.dismiss(None)
