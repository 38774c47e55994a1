"""Form fields (tracker.ui.screens.form.FieldInput) draw exactly what Textual's Input
draws, key by key, without laying out the whole screen on every key typed."""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Input, Label

from tests.ui import wait_for
from tracker.ui.screens.form import FieldInput
from tracker.ui.textual_private import counting, drawing_pending

# Past the field's width (the text scrolls), back and forth, deleting, from the start.
KEYS = [*"Goblin Archer 1, Goblin Archer 2", "home", "right", "right", "backspace", "end", "backspace", "backspace", "left", "ctrl+u", *"Seraph"]


class Form(App[None]):
    CSS = "Input { width: 14; } Label { height: 3; }"

    def __init__(self, field: type[Input]) -> None:
        super().__init__()
        self.field = field

    def compose(self) -> ComposeResult:
        yield Label("above")
        yield self.field(id="field", suggester=None)
        yield Label("below")

    def on_mount(self) -> None:
        field = self.query_one(Input)
        field.cursor_blink = False
        field.focus()


async def _typed(field_class: type[Input], layouts: list[int]) -> list[tuple[Any, ...]]:
    """What the field shows after each key: its value, cursor, scroll and line."""
    app = Form(field_class)
    seen: list[tuple[Any, ...]] = []
    async with app.run_test(size=(80, 24)) as pilot:
        field = app.query_one(Input)
        await wait_for(pilot, lambda: field.has_focus, "the field has the focus")
        with counting(app, render=False) as drawn:
            for key in KEYS:
                await pilot.press(key)  # Pilot waits until the screen has handled it (a plain App: no key hold)
                seen.append((field.value, field.cursor_position, field.scroll_x, field.virtual_size, field.render_line(0).text))
        layouts[0] = drawn.layouts
    return seen


@pytest.mark.ui
async def test_a_form_field_shows_what_textuals_input_shows_key_by_key_without_a_layout_per_key() -> None:
    plain_layouts, field_layouts = [0], [0]
    plain = await _typed(Input, plain_layouts)
    ours = await _typed(FieldInput, field_layouts)
    assert ours == plain
    assert any(scroll > 0 for _, _, scroll, _, _ in ours)  # the text did scroll
    assert ours[-1][0] == "Seraphr"  # ctrl+u left the "r" after the cursor
    # Textual's Input lays the screen out on nearly every key; the field on none.
    assert plain_layouts[0] >= len(KEYS) // 2, plain_layouts
    assert field_layouts[0] <= 1, field_layouts  # never one per key


class Message(App[None]):
    CSS = "Label.error { width: 40; height: auto; display: none; }"

    def compose(self) -> ComposeResult:
        yield Label("above")
        yield Label("", classes="error")
        yield Label("below")


@pytest.mark.ui
async def test_a_fields_message_that_keeps_its_lines_repaints_without_a_layout() -> None:
    from tracker.ui.screens.form import set_error

    app = Message()

    async with app.run_test(size=(80, 24)) as pilot:
        label = app.query(Label)[1]
        shows = lambda text: " ".join(label.render_line(y).text.strip() for y in range(label.size.height)).strip() == text  # noqa: E731

        def after(what: str) -> Any:
            """Wait for a frame drawn after this point (what the screen shows, not just the widget)."""
            seen = drawn.frames
            return wait_for(pilot, lambda: drawn.frames > seen, f"a frame after {what}")

        with counting(app, render=False) as drawn:
            set_error(label, "amount: expected a number, got 'x'")  # appears: a layout
            await wait_for(pilot, lambda: label.display and shows("amount: expected a number, got 'x'"), "the message shown")
            assert drawn.layouts >= 1
            # Counting starts once the layout the message set off is done and drawn (on a
            # busy host the label can show the text a frame before the screen is laid out).
            screen = app.screen
            await wait_for(pilot, lambda: not drawing_pending(screen), "the message's layout drawn")
            # What the message asks for is counted at the label: on a busy host the screen
            # may be laid out for reasons of its own (a late resize, a timer) meanwhile.
            asked: list[bool] = []
            refresh = label.refresh

            def asking(*args: Any, layout: bool = False, **kwargs: Any) -> Any:
                asked.append(layout)
                return refresh(*args, layout=layout, **kwargs)

            label.refresh = asking  # type: ignore[method-assign]
            set_error(label, "amount: expected a number, got 'xy'")  # one line still: a repaint
            await after("the longer message")
            await wait_for(pilot, lambda: shows("amount: expected a number, got 'xy'"), "the longer message shown")
            assert asked and not any(asked), asked  # repainted, never laid out
            del label.refresh
            layouts = drawn.layouts
            two_lines = "amount: expected a number (negative heals), got 'xyz'"
            set_error(label, two_lines)  # two lines at 40 cells: laid out again
            await wait_for(pilot, lambda: label.size.height == 2 and shows(two_lines), "two lines")
            assert drawn.layouts > layouts
            set_error(label, "")
            below = app.query(Label)[2]
            await wait_for(pilot, lambda: not label.display and below.region.y == 1, "the message gone, taking no room")
