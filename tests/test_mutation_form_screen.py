"""Direct tests of tracker.ui.screens.form, worked from its docstrings: a small keyboard
form in a dialog, each field a row (label, input) with its message right under it,
updated as the value changes; Enter moves to the next field and submits on the last;
ctrl+s submits from anywhere; Esc cancels; a `submit` that raises TrackerError shows
its message in the form, which stays open with nothing typed lost. A field completes
the last comma-separated word from its list (`ListSuggester`), or is chosen from a list
(`ChoiceList`: up/down, a name's first letters, ctrl+u or backspace starts the typing
over, Enter takes it). Messages are plain text and take no room while empty.

The form is shown alone in a bare app (tests/ui.py's `ScreenApp`) at 80x24; every wait
is on a condition, capped at 10 seconds."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Input, Label

import tracker.ui
from tracker.engine import TrackerError
from tracker.ui.screens.form import (
    LABEL_CELLS,
    ChoiceList,
    FieldInput,
    FormField,
    FormScreen,
    ListSuggester,
    field_parts,
    field_row,
    set_error,
)
from tests.ui import ScreenApp, wait_for

pytestmark = pytest.mark.ui

WAIT = 10.0
NAMES = ["Goblin 1", "Goblin 2", "Grok", "Seraph"]


def _number(text: str) -> None:
    if not text.lstrip("-").isdigit():
        raise TrackerError(f"amount: expected a number, got {text!r}")


def _never(text: str) -> None:
    raise TrackerError(f"who: no one called {text!r}")


# ------------------------------------------------------------------ ListSuggester
async def test_the_last_word_is_completed_from_the_list_in_the_lists_own_case() -> None:
    names = ListSuggester(NAMES)
    assert await names.get_suggestion("gob") == "Goblin 1"  # the first that fits, as listed
    assert await names.get_suggestion("GR") == "Grok"
    assert await names.get_suggestion("  se") == "  Seraph"  # the spaces typed are kept
    assert await names.get_suggestion("Goblin 2") is None  # already whole: nothing to add
    assert await names.get_suggestion("Goblin 1") is None  # and no other starts with it
    assert await names.get_suggestion("") is None and await names.get_suggestion("   ") is None
    assert await names.get_suggestion("Nyx") is None
    assert await names.get_suggestion("Seraph,gob") is None  # one name: the comma is part of it


async def test_a_list_field_completes_the_name_after_the_last_comma() -> None:
    several = ListSuggester(NAMES, multiple=True)
    assert await several.get_suggestion("Seraph, gob") == "Seraph, Goblin 1"
    assert await several.get_suggestion("Seraph,Goblin 1,g") == "Seraph,Goblin 1,Goblin 1"
    assert await several.get_suggestion("gr") == "Grok"  # no comma yet: the first name
    assert await several.get_suggestion("Seraph,") is None and await several.get_suggestion("Seraph, ") is None


async def test_a_command_line_completes_its_verb_then_names_after_a_comma() -> None:
    line = ListSuggester(["damage ", "declare "], listed=NAMES)
    assert await line.get_suggestion("da") == "damage "
    assert await line.get_suggestion('damage Goblin 1,Ser') == "damage Goblin 1,Seraph"
    assert await line.get_suggestion("damage Goblin 1, gr") == "damage Goblin 1, Grok"
    assert await line.get_suggestion("damage Ser") is None  # no comma: no name list
    assert await line.get_suggestion('damage Goblin 1,"Gob') is None  # a quote opened
    assert await line.get_suggestion("damage Goblin 1,to=Se") is None  # a key=value
    assert await line.get_suggestion("damage Goblin 1,x'Se") is None
    assert await line.get_suggestion("damage Goblin 1,Nyx") is None
    assert line.listed == NAMES and line.words == ["damage ", "declare "] and not line.multiple
    assert await line.get_suggestion("damage Seraph,Goblin 1,gr") == "damage Seraph,Goblin 1,Grok"  # the last comma's
    assert await line.get_suggestion("Ser") is None  # a name only after a comma, not as the verb
    others = ListSuggester(["damage "], listed=["Xan"])
    assert await others.get_suggestion("damage Bo,Xa") == "damage Bo,Xan"
    plain = ListSuggester(["damage "])
    assert plain.listed == [] and await plain.get_suggestion("damage Goblin 1,Ser") is None


def test_suggestions_follow_the_case_typed_and_the_list_as_it_is_now() -> None:
    names = ListSuggester(NAMES)
    assert names.case_sensitive is True  # "Ser", not "ser", handed to get_suggestion
    assert names.cache is None  # no answer kept from an older list
    assert names.words == NAMES and names.words is not NAMES and names.multiple is False


async def test_a_word_of_the_list_with_a_comma_in_it_is_completed_whole() -> None:
    for listed in ((), ("Nyx",)):
        odd = ListSuggester(["Goblin 1, the tall"], listed=listed)
        assert await odd.get_suggestion("Goblin 1, t") == "Goblin 1, the tall"


async def test_a_names_list_made_from_a_sequence_is_its_own_copy() -> None:
    source = ("Seraph",)
    names = ListSuggester(source, True, ("Nyx",))
    assert names.words == ["Seraph"] and names.multiple is True and names.listed == ["Nyx"]


# ------------------------------------------------------------------ field_parts / field_row
class Parts(App[None]):
    """A bare app showing what `make` builds (inside the app: a field with a value and a
    list looks for its suggestion as it is made)."""

    CSS_PATH = str(Path(tracker.ui.__file__).with_name("tracker.tcss"))  # the app's own stylesheet

    def __init__(self, make: Callable[[], list[Any]]) -> None:
        super().__init__()
        self.make = make

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog"):
            yield from self.make()


class Loud(FieldInput):
    """A field that answers some keys its own way (as the declare form's action field)."""


async def test_a_field_is_a_row_of_label_and_input_then_its_hidden_message() -> None:
    f = FormField("amount", "active_charisma", "12", "a number, e.g. 5", _number, NAMES, True, ("Nyx",))
    made: list[Any] = []

    def make() -> list[Any]:
        made.extend(field_parts(f))
        return made[0]  # type: ignore[no-any-return]

    app = Parts(make)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: bool(made) and made[1].is_mounted, "the row", WAIT)
        row, entry, error = made
        assert isinstance(entry, FieldInput) and type(entry) is FieldInput
        assert entry.id == "f-amount" and entry.value == "12" and entry.placeholder == "a number, e.g. 5"
        assert entry.cursor_blink is False
        assert isinstance(entry.suggester, ListSuggester)
        assert entry.suggester.words == NAMES and entry.suggester.multiple is True and entry.suggester.listed == ["Nyx"]
        assert error.id == "f-amount-error" and error.has_class("error")
        assert len(row) == 2 and row[1] is error
        box = row[0]
        assert isinstance(box, Horizontal) and box.has_class("row")
        label, field = box.children
        assert field is entry and isinstance(label, Label) and label.has_class("label")
        shown = label.content
        # Cut to leave one free cell before the value: 13 cells, the label in 12.
        assert isinstance(shown, Text) and shown.plain == "active_char…" and shown.no_wrap is True
        assert LABEL_CELLS == 13 and label.styles.width is not None and label.styles.width.value == 13  # the stylesheet's column
        await wait_for(pilot, lambda: label.size.width > 0, "the row drawn", WAIT)
        assert not error.display and str(error.render()) == ""  # an empty message takes no room
        assert label.render_line(0).text.rstrip() == "active_char…"
        assert entry.region.x - label.region.x == LABEL_CELLS  # the value after the label's column


async def test_a_field_with_no_list_suggests_nothing_and_may_say_its_own_width_and_kind() -> None:
    made: list[Any] = []

    def make() -> list[Any]:
        made.append(field_parts(FormField("note", "note [b]x[/b]", help="what happened"), "d", 6, Loud))
        made.append(field_row(FormField("who", "who")))
        made.append(field_row(FormField("how", "how"), "g"))
        return [*made[0][0], *made[1], *made[2]]

    app = Parts(make)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: bool(made) and made[0][1].is_mounted, "the rows", WAIT)
        (row, entry, error), plain, other = made
        assert type(entry) is Loud and entry.id == "d-note" and error.id == "d-note-error"
        assert entry.suggester is None and entry.value == "" and entry.placeholder == "what happened"
        label = row[0].children[0]
        assert label.content.plain == "note…"  # 6 cells: 5 of label, one free
        assert label.styles.width is not None and label.styles.width.value == 6
        await wait_for(pilot, lambda: label.size.width == 6, "the label 6 wide", WAIT)
        assert entry.region.x - label.region.x == 6
        assert len(plain) == 2 and plain[1].id == "f-who-error" and plain[0].children[1].id == "f-who"
        assert other[0].children[1].id == "g-how" and other[1].id == "g-how-error"


# ------------------------------------------------------------------ set_error
class Messages(App[None]):
    CSS = "Label.error { width: 40; height: auto; display: none; }"

    def compose(self) -> ComposeResult:
        yield Label("above")
        yield Label("", classes="error")
        yield Label("below")


async def test_a_message_is_plain_text_shown_and_hidden_laying_out_only_when_its_lines_change() -> None:
    app = Messages()
    async with app.run_test(size=(80, 24)) as pilot:
        label = app.query(Label)[1]
        below = app.query(Label)[2]
        asked: list[bool] = []
        update = label.update

        def updating(content: Any = "", *, layout: bool = True) -> None:
            asked.append(layout)
            update(content, layout=layout)

        label.update = updating  # type: ignore[method-assign]
        set_error(label, "")  # hidden, stays hidden: nothing to lay out
        assert asked == [False] and not label.display
        set_error(label, "amount: [b]x[/b] got '\x1b'")  # appears: laid out
        assert asked[-1] is True and label.display
        shown = label.content
        assert isinstance(shown, Text) and shown.plain == "amount: [b]x[/b] got '␛'"
        await wait_for(pilot, lambda: label.content_region.width == 40 and below.region.y == 2, "the message drawn", WAIT)
        set_error(label, "amount: [b]y[/b] got 'xy'")  # one line still: repainted alone
        assert asked[-1] is False
        set_error(label, "amount: expected a number (negative heals), got 'xyz'")  # two lines at 40 cells
        assert asked[-1] is True
        await wait_for(pilot, lambda: label.size.height == 2 and below.region.y == 3, "two lines", WAIT)
        set_error(label, "amount: expected a number (negative heals), got 'xyzw'")  # two lines still
        assert asked[-1] is False
        styled = Text("a styled message", style="bold")
        set_error(label, styled)  # a Text is shown as it is
        assert label.content is styled and asked[-1] is True  # one line, from two
        set_error(label, "")
        assert asked[-1] is True and not label.display
        await wait_for(pilot, lambda: below.region.y == 1, "the message gone, taking no room", WAIT)
        set_error(label, "")
        assert asked[-1] is False


async def test_a_message_whose_old_text_was_a_string_compares_its_lines() -> None:
    app = Messages()
    async with app.run_test(size=(80, 24)) as pilot:
        label = app.query(Label)[1]
        label.update("amount: expected a number, got 'x'")
        label.display = True
        await wait_for(pilot, lambda: label.content_region.width == 40, "the message drawn", WAIT)
        asked: list[bool] = []
        update = label.update
        label.update = lambda content="", *, layout=True: (asked.append(layout), update(content, layout=layout))  # type: ignore[method-assign]
        set_error(label, "amount: expected a number, got 'y'")
        assert asked == [False]
        assert isinstance(label.content, Text) and label.content.plain == "amount: expected a number, got 'y'"


async def test_a_message_one_cell_wide_keeps_its_lines_without_a_layout() -> None:
    app = Messages()
    async with app.run_test(size=(80, 24)) as pilot:
        label = app.query(Label)[1]
        label.styles.width = 1
        set_error(label, "ab")
        await wait_for(pilot, lambda: label.content_region.width == 1 and label.size.height == 2, "two lines of one cell", WAIT)
        asked: list[bool] = []
        update = label.update
        label.update = lambda content="", *, layout=True: (asked.append(layout), update(content, layout=layout))  # type: ignore[method-assign]
        set_error(label, "cd")
        assert asked == [False]


async def test_a_message_on_a_label_not_yet_drawn_is_laid_out() -> None:
    app = Messages()
    async with app.run_test(size=(80, 24)) as pilot:
        label = app.query(Label)[1]
        label.display = True  # shown, but no width yet: it must be laid out
        label.styles.width = 0
        await wait_for(pilot, lambda: label.content_region.width == 0, "a label with no width", WAIT)
        asked: list[bool] = []
        update = label.update
        label.update = lambda content="", *, layout=True: (asked.append(layout), update(content, layout=layout))  # type: ignore[method-assign]
        set_error(label, "x")
        assert asked == [True]


# ------------------------------------------------------------------ ChoiceList
class Styled(ScreenApp):
    """The bare app with the app's own stylesheet (an empty message hidden, the dialog's size)."""

    CSS_PATH = str(Path(tracker.ui.__file__).with_name("tracker.tcss"))


class Keys(Styled):
    """The bare app, keeping the keys that reached it past the screen."""

    def __init__(self, screen: Any) -> None:
        super().__init__(screen)
        self.heard: list[str] = []

    def on_key(self, event: events.Key) -> None:
        self.heard.append(event.key)


def _form(*fields: FormField, submit: Any = None, note: str = "", start: int = 0, title: str = "Damage") -> FormScreen:
    return FormScreen(title, list(fields), submit, note=note, start=start)


async def _shown(pilot: Any, form: FormScreen) -> None:
    await wait_for(pilot, lambda: pilot.app.screen is form and form.focused is not None, "the form with a field focused", WAIT)


async def test_a_choice_list_jumps_by_a_names_first_letters_and_starts_over() -> None:
    form = _form(FormField("who", "who", "Grok", "", None, NAMES, pick=True), FormField("note", "note"))
    app = Keys(form)
    async with app.run_test(size=(80, 24)) as pilot:
        await _shown(pilot, form)
        choices = form.query_one("#f-who", ChoiceList)
        assert form.focused is choices and choices.value == "Grok" and choices.highlighted == 2
        for key, value, typed in [("g", "Goblin 1", "g"), ("r", "Grok", "gr"), ("s", "Seraph", "s"), ("x", "Seraph", ""),
                                  ("G", "Goblin 1", "G"), ("o", "Goblin 1", "Go"), ("b", "Goblin 1", "Gob")]:
            await pilot.press(key)
            await wait_for(pilot, lambda: choices.value == value and choices.typed == typed, f"{key}: {value} ({typed!r})", WAIT)
        await pilot.press("backspace")
        await wait_for(pilot, lambda: choices.typed == "", "backspace: the typing started over", WAIT)
        await pilot.press("r")  # "r" alone: nothing starts with it
        assert choices.typed == "" and choices.value == "Goblin 1"
        await pilot.press("s", "ctrl+u")
        await wait_for(pilot, lambda: choices.typed == "", "ctrl+u: the typing started over", WAIT)
        assert choices.value == "Seraph"
        await pilot.press("space")  # not a name's letter
        assert choices.value == "Seraph" and choices.typed == ""
        await pilot.press("g", "r")
        # A control key is no letter: the typing kept, the key passed on (as a terminal's
        # driver posts it, with its control character).
        control = events.Key("ctrl+a", "\x01")
        control.set_sender(app)
        app.post_message(control)
        await wait_for(pilot, lambda: "ctrl+a" in app.heard, "ctrl+a passed on", WAIT)
        assert choices.typed == "gr" and choices.value == "Grok"
        await pilot.press("down", "backspace")
        await wait_for(pilot, lambda: choices.value == "Seraph" and choices.typed == "", "down", WAIT)
        await pilot.press("up")
        await wait_for(pilot, lambda: choices.value == "Grok", "up", WAIT)
        assert not set(app.heard) & {"g", "r", "s", "x", "G", "o", "b"}  # the letters stop at the list
        assert "space" in app.heard
        await pilot.press("enter")  # takes it, on to the note
        await wait_for(pilot, lambda: form.focused is form.query_one("#f-note", Input), "the next field", WAIT)
        assert not app.closed
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.closed, "the form submitted", WAIT)
        assert app.result == {"who": "Grok", "note": ""}


async def test_a_choice_lists_names_are_text_and_a_value_not_listed_highlights_the_first() -> None:
    odd = ["[b]Grok[/b]", "Bo\x1bb"]
    form = _form(FormField("who", "who", "Nyx", "", None, odd, pick=True), submit=None)
    app = Styled(form)
    async with app.run_test(size=(80, 24)) as pilot:
        await _shown(pilot, form)
        choices = form.query_one("#f-who", ChoiceList)
        assert choices.choices == odd and choices.typed == ""
        prompts = [choices.get_option_at_index(i).prompt for i in range(2)]
        assert all(isinstance(p, Text) for p in prompts)
        assert [p.plain for p in prompts] == ["[b]Grok[/b]", "Bo␛b"]  # type: ignore[union-attr]
        assert choices.get_option("Bo\x1bb").prompt.plain == "Bo␛b"  # type: ignore[union-attr]  # each named by its choice
        assert choices.value == "[b]Grok[/b]"  # an option list's own first highlight
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.closed, "saved", WAIT)
        assert app.result == {"who": "[b]Grok[/b]"}


async def test_an_empty_choice_list_has_no_value() -> None:
    app = Parts(lambda: [ChoiceList([], "", id="none")])
    async with app.run_test(size=(80, 24)) as pilot:
        choices = app.query_one(ChoiceList)
        await wait_for(pilot, lambda: choices.is_mounted, "the list", WAIT)
        assert choices.value == "" and choices.highlighted is None
        choices.focus()
        await pilot.press("g")
        assert choices.value == "" and choices.typed == ""


def test_a_choice_list_before_it_is_shown_holds_its_value() -> None:
    choices = ChoiceList(NAMES, "Seraph")
    assert choices.value == "Seraph" and choices.typed == "" and choices.choices == NAMES and choices.choices is not NAMES
    choices.typed = "se"
    choices.action_forget()
    assert choices.typed == ""


# ------------------------------------------------------------------ FormScreen
async def test_the_dialog_shows_its_title_note_rows_and_keys_as_plain_text() -> None:
    form = _form(FormField("who", "who", "Seraph"), FormField("amount", "amount", help="a number"),
                 title="Damage [b]Grok[/b] \x1b", note="Seraph [i]x[/i] \x07")
    app = Styled(form)
    async with app.run_test(size=(80, 24)) as pilot:
        await _shown(pilot, form)
        box = form.query_one(VerticalScroll)
        assert box.has_class("dialog") and box.has_class("form")
        labels = list(box.query(Label))
        title, note = labels[0], labels[1]
        assert title.has_class("title") and isinstance(title.content, Text) and title.content.plain == "Damage [b]Grok[/b] ␛"
        assert note.has_class("hint") and isinstance(note.content, Text) and note.content.plain == "Seraph [i]x[/i] ␇"
        assert [w.id for w in box.query(Input)] == ["f-who", "f-amount"]
        error = form.query_one("#form-error", Label)
        assert error.has_class("error") and labels[-2] is error and not error.display and str(error.render()) == ""
        keys = labels[-1]
        assert keys.has_class("hint") and str(keys.render()) == "enter: next field, saves from the last · ctrl+s: save · esc: cancel"
        assert form.focused is form.query_one("#f-who", Input)  # the first field, by default
        assert form.title_text == "Damage [b]Grok[/b] \x1b" and form.note == "Seraph [i]x[/i] \x07"


async def test_no_note_no_hint_above_the_fields_and_the_first_field_focused() -> None:
    form = FormScreen("Damage", [FormField("who", "who"), FormField("amount", "amount")])
    app = Styled(form)
    async with app.run_test(size=(80, 24)) as pilot:
        await _shown(pilot, form)
        labels = list(form.query_one(VerticalScroll).query(Label))
        assert labels[0].has_class("title") and labels[1].has_class("label")
        assert [label for label in labels if label.has_class("hint")] == [labels[-1]]
        assert form.focused is form.query_one("#f-who", Input) and form.note == "" and form.submit is None


async def test_a_pick_field_is_a_list_under_its_hint_as_tall_as_its_choices_up_to_eight() -> None:
    many = [f"Goblin {n}" for n in range(1, 11)]
    form = _form(FormField("who", "who", "", "", None, NAMES[:3], pick=True), FormField("many", "many", "Goblin 4", "", None, many, pick=True))
    app = Styled(form)
    async with app.run_test(size=(80, 24)) as pilot:
        await _shown(pilot, form)
        who, crowd = form.query_one("#f-who", ChoiceList), form.query_one("#f-many", ChoiceList)
        assert who.has_class("pick") and crowd.has_class("pick")
        assert who.styles.height is not None and who.styles.height.value == 5  # 3 choices and its border
        assert crowd.styles.height is not None and crowd.styles.height.value == 10  # 8 shown of 10, and its border
        hints = [label for label in form.query(Label) if label.has_class("hint")]
        assert str(hints[0].render()) == "who (up/down or type its name; enter takes it)"
        assert str(hints[1].render()) == "many (up/down or type its name; enter takes it)"
        assert form.query_one("#f-who-error", Label).has_class("error") and str(form.query_one("#f-who-error", Label).render()) == ""
        assert form.query_one("#f-many-error", Label).has_class("error")
        assert form.values() == {"who": "Goblin 1", "many": "Goblin 4"}


@pytest.mark.parametrize(("start", "focused"), [(1, "f-amount"), (2, "f-note"), (3, "f-who"), (-1, "f-who"), (0, "f-who")])
async def test_the_form_opens_on_its_start_field_or_the_first(start: int, focused: str) -> None:
    form = _form(FormField("who", "who", "Seraph"), FormField("amount", "amount"), FormField("note", "note"), start=start)
    app = Styled(form)
    async with app.run_test(size=(80, 24)) as pilot:
        await _shown(pilot, form)
        assert form.focused is not None and form.focused.id == focused


async def test_enter_moves_field_by_field_and_saves_from_the_last() -> None:
    saved: list[dict[str, str]] = []
    form = _form(FormField("who", "who", "Seraph"), FormField("amount", "amount", check=_number), FormField("note", "note"),
                 submit=saved.append, start=1)
    app = Styled(form)
    async with app.run_test(size=(80, 24)) as pilot:
        await _shown(pilot, form)
        await pilot.press(*"12", "enter")
        await wait_for(pilot, lambda: form.focused is form.query_one("#f-note", Input), "the note next", WAIT)
        assert not saved and not app.closed
        await pilot.press(*" a cut ", "enter")
        await wait_for(pilot, lambda: app.closed, "saved from the last field", WAIT)
    # Each value as typed, less the spaces around it.
    assert saved == [{"who": "Seraph", "amount": "12", "note": "a cut"}] and app.result == saved[0]


async def test_a_bad_value_is_said_under_its_field_as_typed_and_blocks_the_save() -> None:
    saved: list[dict[str, str]] = []
    gone: list[bool] = []

    def present(text: str) -> None:
        if text != "Seraph" or gone:
            raise TrackerError(f"who: no one called {text!r} here")

    form = _form(FormField("who", "who", "Seraph", check=present), FormField("amount", "amount", check=_number), submit=saved.append, start=1)
    app = Styled(form)
    async with app.run_test(size=(80, 24)) as pilot:
        await _shown(pilot, form)
        amount, who = form.query_one("#f-amount-error", Label), form.query_one("#f-who-error", Label)
        await pilot.press("x")
        await wait_for(pilot, lambda: amount.display and str(amount.render()) == "amount: expected a number, got 'x'", "the message", WAIT)
        assert not who.display  # only the field typed into is checked
        await pilot.press("enter")  # the last field: a save, refused by the check
        assert not saved and not app.closed
        await pilot.press("backspace", " ")  # a blank field is not checked
        await wait_for(pilot, lambda: not amount.display, "the message gone", WAIT)
        await pilot.press(*"-3 ")
        await wait_for(pilot, lambda: form.query_one("#f-amount", Input).value == " -3 ", "typed", WAIT)
        assert not amount.display  # checked stripped
        gone.append(True)  # Seraph left the fight meanwhile: every field is checked again on a save
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: who.display and str(who.render()) == "who: no one called 'Seraph' here", "the save refused", WAIT)
        assert not amount.display and not saved and not app.closed and app.screen is form


async def test_a_field_opened_with_a_bad_value_says_so_at_once() -> None:
    form = _form(FormField("who", "who", "Nyx", check=_never), FormField("amount", "amount", " 4 ", check=_number))
    app = Styled(form)
    async with app.run_test(size=(80, 24)) as pilot:
        await _shown(pilot, form)
        who = form.query_one("#f-who-error", Label)
        await wait_for(pilot, lambda: who.display and str(who.render()) == "who: no one called 'Nyx'", "the message", WAIT)
        assert not form.query_one("#f-amount-error", Label).display


async def test_ctrl_s_saves_from_any_field_and_a_blank_checked_field_passes() -> None:
    form = _form(FormField("who", "who", "Seraph"), FormField("amount", "amount", check=_number), FormField("note", "note"))
    app = Styled(form)
    async with app.run_test(size=(80, 24)) as pilot:
        await _shown(pilot, form)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.closed, "saved from the first field", WAIT)
    assert app.result == {"who": "Seraph", "amount": "", "note": ""}


async def test_a_refused_save_says_why_in_the_form_and_keeps_what_was_typed() -> None:
    tries: list[dict[str, str]] = []

    def submit(values: dict[str, str]) -> object:
        tries.append(values)
        if values["amount"] != "5":
            raise TrackerError(f"Seraph has only 5 vp left, not {values['amount']} [b]!")
        return "done"

    form = _form(FormField("who", "who", "Seraph"), FormField("amount", "amount"), submit=submit, start=1)
    app = Styled(form)
    async with app.run_test(size=(80, 24)) as pilot:
        await _shown(pilot, form)
        error = form.query_one("#form-error", Label)
        await pilot.press(*"9", "enter")
        await wait_for(pilot, lambda: error.display and str(error.render()) == "Seraph has only 5 vp left, not 9 [b]!", "the refusal", WAIT)
        assert not app.closed and app.screen is form and form.query_one("#f-amount", Input).value == "9"
        assert form.has_unsaved_input()
        await pilot.press("backspace", "5", "ctrl+s")
        await wait_for(pilot, lambda: app.closed, "saved", WAIT)
    assert tries == [{"who": "Seraph", "amount": "9"}, {"who": "Seraph", "amount": "5"}]
    assert app.result == {"who": "Seraph", "amount": "5"}


async def test_a_refusal_below_a_long_forms_last_field_is_brought_into_view() -> None:
    def submit(values: dict[str, str]) -> None:
        raise TrackerError("the sheet: vp must be at least 1")

    fields = [FormField(f"k{n}", f"key {n}", str(n)) for n in range(20)]
    form = _form(*fields, submit=submit)
    app = Styled(form)
    async with app.run_test(size=(80, 24)) as pilot:
        await _shown(pilot, form)
        box = form.query_one(VerticalScroll)
        await wait_for(pilot, lambda: box.max_scroll_y > 0, "a form taller than the screen", WAIT)
        assert box.scroll_y == 0
        error = form.query_one("#form-error", Label)
        asked: list[Any] = []
        scroll_visible = error.scroll_visible

        def scrolled(*args: Any, **kwargs: Any) -> None:
            asked.append(kwargs.get("animate", True))
            scroll_visible(*args, **kwargs)

        error.scroll_visible = scrolled  # type: ignore[method-assign]
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: box.scroll_y > 0, "the form scrolled", WAIT)
        await wait_for(pilot, lambda: box.region.contains_region(error.region), "the refusal in view", WAIT)
        assert error.display and asked == [False]  # at once, not animated
        assert not app.closed


async def test_escape_cancels_and_saves_nothing() -> None:
    saved: list[dict[str, str]] = []
    form = _form(FormField("who", "who", "Seraph"), FormField("amount", "amount"), submit=saved.append)
    app = Styled(form)
    async with app.run_test(size=(80, 24)) as pilot:
        await _shown(pilot, form)
        await pilot.press("tab", *"7", "escape")
        await wait_for(pilot, lambda: app.closed, "cancelled", WAIT)
    assert app.result is None and saved == []


async def test_a_form_with_nothing_typed_has_no_unsaved_input() -> None:
    form = _form(FormField("who", "who", "Seraph"), FormField("how", "how", "leaves", "", None, ("leaves", "dies"), pick=True))
    assert not form.has_unsaved_input()  # not shown yet
    app = Styled(form)
    async with app.run_test(size=(80, 24)) as pilot:
        await _shown(pilot, form)
        assert not form.has_unsaved_input()
        await pilot.press("end", "x")
        await wait_for(pilot, lambda: form.query_one("#f-who", Input).value == "Seraphx", "typed", WAIT)
        assert form.has_unsaved_input()
        await pilot.press("backspace")
        await wait_for(pilot, lambda: not form.has_unsaved_input(), "back as it opened", WAIT)
        await pilot.press("tab", "d")
        await wait_for(pilot, lambda: form.has_unsaved_input(), "another choice", WAIT)
        assert form.values() == {"who": "Seraph", "how": "dies"}


async def test_a_form_of_no_fields_opens_and_saves_nothing() -> None:
    form = _form(submit=None)
    app = Styled(form)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.screen is form, "the form", WAIT)
        assert form.values() == {} and not form.has_unsaved_input()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.closed, "saved", WAIT)
    assert app.result == {}

