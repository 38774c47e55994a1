"""The footer (tracker.ui.widgets.footer): one widget drawing the line Textual's Footer
draws (cell by cell, style by style: the same keys, the palette's docked at the right,
disabled keys dimmed, the key under the pointer lit), clicked and scrolled as Textual's,
drawn with the encounter screen's first frame and drawn again only when the keys change.
Waits are on conditions only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Footer, Label

from tracker.ui import widgets
from tracker.ui.app import TrackerApp
from tracker.ui.screens import encounter as encounter_module
from tracker.ui.screens import start as start_module
from tracker.ui.screens.encounter import EncounterScreen
from tracker.ui.screens.form import FormScreen
from tracker.ui.screens.start import StartScreen
from tracker.ui.textual_private import screen_cells
from tracker.ui.widgets.footer import KeyFooter
from tests.test_ui_app import make_file
from tests.ui import press, screen_drawn, settle, wait_for

pytestmark = pytest.mark.ui

SIZE = (80, 24)
BOTTOM = SIZE[1] - 1
assert widgets  # the package whose module is under test


def bottom_row(app: App[Any]) -> list[tuple[str, str]]:
    return screen_cells(app)[-1]


def row_text(app: App[Any]) -> str:
    return "".join(char for char, _ in bottom_row(app))


async def drawn_by(app: App[Any], ready: Any, theme: str | None = None, pointer: int | None = None) -> list[tuple[str, str]]:
    """The bottom row once `ready(app)` holds and the palette's key is drawn; with
    `pointer`, the mouse over that column of it."""
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: ready(app) and "palette" in row_text(app), "the footer's keys")
        if theme is not None:
            app.theme = theme
        await screen_drawn(pilot)
        if pointer is not None:
            await pilot.hover(None, offset=(pointer, BOTTOM))
            await screen_drawn(pilot)
        return bottom_row(app)


@pytest.mark.parametrize("theme", [None, "textual-light", "nord", "gruvbox"])
@pytest.mark.parametrize("which", ["encounter", "start"])
async def test_the_footer_draws_the_line_textuals_footer_draws(saves: Path, monkeypatch: pytest.MonkeyPatch, which: str, theme: str | None) -> None:
    path = make_file(saves, "freeform", ["add Seraph", "add Sphinx"])
    file = path if which == "encounter" else None
    screen_type = EncounterScreen if which == "encounter" else StartScreen
    module = encounter_module if which == "encounter" else start_module

    def ready(app: App[Any]) -> bool:
        return isinstance(app.screen, screen_type)

    for pointer in (None, 3, SIZE[0] - 5):  # nowhere, over the first key, over the palette's
        ours = await drawn_by(TrackerApp(saves, file), ready, theme, pointer)
        with monkeypatch.context() as patched:
            patched.setattr(module, "KeyFooter", lambda **_: Footer())
            textuals = await drawn_by(TrackerApp(saves, file), ready, theme, pointer)
        assert ours == textuals, (pointer, "".join(c for c, _ in ours), "".join(c for c, _ in textuals))
    text = "".join(char for char, _ in ours)
    assert text.endswith("▏^p palette ") and ("Quit" in text or "Next" in text)


class KeysApp(App[None]):
    """A screen's worth of keys the tracker's own screens do not have: one disabled (its
    check says None), one with a tooltip, two keys for one action, and more than a line."""

    BINDINGS = [
        Binding("n", "next", "Next"),
        Binding("k", "next", "Next too"),  # the same action: shown once, by its first key
        Binding("x", "off", "Off"),
        Binding("t", "tip", "Tipped", tooltip="what t does"),
        Binding("h", "hidden", "Hidden", show=False),
        *(Binding(str(i), f"more('{i}')", f"Longer description {i}") for i in range(6)),
    ]

    def __init__(self, ours: bool) -> None:
        super().__init__()
        self.ours = ours
        self.done: list[str] = []
        self.rang = 0

    def compose(self) -> ComposeResult:
        yield Label("keys")
        yield KeyFooter(at_once=True) if self.ours else Footer()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return None if action == "off" else True

    def action_next(self) -> None:
        self.done.append("next")

    def action_off(self) -> None:
        self.done.append("off")

    def action_tip(self) -> None:
        self.done.append("tip")

    def action_more(self, which: str) -> None:
        self.done.append(which)

    def bell(self) -> None:
        self.rang += 1


def _keys_ready(app: App[Any]) -> bool:
    return True


@pytest.mark.parametrize("pointer", [None, 3, 12, 20, SIZE[0] - 4])
async def test_disabled_shared_and_overflowing_keys_are_drawn_as_textual_draws_them(pointer: int | None) -> None:
    ours = await drawn_by(KeysApp(ours=True), _keys_ready, pointer=pointer)
    textuals = await drawn_by(KeysApp(ours=False), _keys_ready, pointer=pointer)
    assert ours == textuals
    text = "".join(char for char, _ in ours)
    assert text.startswith(" n Next  x Off  t Tipped  0 Longer description 0 ")
    assert "Next too" not in text and "Hidden" not in text
    # The disabled key is dim, the others are not.
    styles = {char: style for char, style in ours[:16]}
    assert "dim" in styles["O"] and "dim" not in styles["N"]


async def test_a_click_runs_a_key_and_a_disabled_key_rings_the_bell() -> None:
    app = KeysApp(ours=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "Next" in row_text(app), "the keys")
        await pilot.click(KeyFooter, offset=(2, 0))  # " n Next "
        await wait_for(pilot, lambda: app.done == ["next"], "next run")
        await pilot.click(KeyFooter, offset=(10, 0))  # " x Off ", disabled
        await wait_for(pilot, lambda: app.rang == 1, "the bell")
        assert app.done == ["next"]
        await pilot.click(KeyFooter, offset=(16, 0))  # " t Tipped "
        await wait_for(pilot, lambda: app.done == ["next", "tip"], "tip run")
        # A key's first and last cells are its own: " n Next " is columns 0-7, " x Off " 8-14.
        await pilot.click(KeyFooter, offset=(0, 0))
        await wait_for(pilot, lambda: app.done == ["next", "tip", "next"], "next run from its first cell")
        await pilot.click(KeyFooter, offset=(7, 0))
        await wait_for(pilot, lambda: app.done == ["next", "tip", "next", "next"], "next run from its last cell")
        await pilot.click(KeyFooter, offset=(8, 0))
        await wait_for(pilot, lambda: app.rang == 2, "the bell from Off's first cell")
        assert app.done == ["next", "tip", "next", "next"]


async def test_the_pointer_over_a_key_shows_its_tooltip() -> None:
    app = KeysApp(ours=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "Next" in row_text(app), "the keys")
        footer = app.query_one(KeyFooter)
        await pilot.hover(KeyFooter, offset=(18, 0))
        await wait_for(pilot, lambda: footer.tooltip == "what t does", "the tooltip")
        await pilot.hover(KeyFooter, offset=(2, 0))  # Next has none
        await wait_for(pilot, lambda: footer.tooltip is None, "no tooltip")


async def test_the_wheel_brings_the_keys_past_the_edge_into_view() -> None:
    app = KeysApp(ours=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "Next" in row_text(app), "the keys")
        assert "description 5" not in row_text(app)
        footer = app.query_one(KeyFooter)
        for _ in range(40):  # the wheel over the footer, as a terminal reports it
            footer.post_message(events.MouseScrollDown(footer, 5, 0, 0, 1, 0, False, False, False, screen_x=5, screen_y=BOTTOM))
        await screen_drawn(pilot)
        # Scrolled as far as the last key, which ends at the palette's bar; the palette stays.
        assert row_text(app).endswith("5 Longer description 5 ▏^p palette ")
        for _ in range(40):
            footer.post_message(events.MouseScrollUp(footer, 5, 0, 0, -1, 0, False, False, False, screen_x=5, screen_y=BOTTOM))
        await screen_drawn(pilot)
        assert row_text(app).startswith(" n Next ")


async def test_the_encounter_footer_is_one_widget_drawn_with_the_first_frame(saves: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    redrawn: list[KeyFooter] = []
    refresh = KeyFooter.refresh

    def counted(self: KeyFooter, *args: Any, **kwargs: Any) -> Any:
        redrawn.append(self)
        return refresh(self, *args, **kwargs)

    monkeypatch.setattr(KeyFooter, "refresh", counted)
    path = make_file(saves, "freeform", ["add Seraph"])
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, EncounterScreen), "the encounter screen")
        footer = app.screen.query_one(KeyFooter)
        # Its keys are there from the start, with no widget of their own.
        assert [e.description for e in footer.entries()][:2] == ["Next", "Step"]
        assert not footer.children
        await settle(pilot)
        before = row_text(app)
        redrawn.clear()
        for _ in range(3):  # a dialog opens over the screen and closes: the same keys
            await press(pilot, "s")
            await wait_for(pilot, lambda: isinstance(app.screen, FormScreen), "the schedule form")
            await press(pilot, "escape")
            await wait_for(pilot, lambda: isinstance(app.screen, EncounterScreen), "the encounter screen again")
        await settle(pilot)
        assert [f for f in redrawn if f is footer] == []
        assert row_text(app) == before
        assert not app.errors


async def test_the_start_footer_waits_for_the_focus_and_follows_the_keys(saves: Path) -> None:
    # The start screen's table takes the focus as the screen opens, and with it enter:
    # the screen's own enter (open) no longer shows, its other key (o) does.
    make_file(saves, "freeform", ["add Seraph"])
    app = TrackerApp(saves, None)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, StartScreen) and "palette" in row_text(app), "the start screen's keys")
        await settle(pilot)
        shown = {e.description: e.key_display for e in app.screen.query_one(KeyFooter).entries()}
        assert shown["Open"] == "o"
        assert " o Open " in row_text(app)
        await press(pilot, "question_mark")  # help over the list, and back: the same keys
        await wait_for(pilot, lambda: not isinstance(app.screen, StartScreen), "the help")
        await press(pilot, "escape")
        await wait_for(pilot, lambda: isinstance(app.screen, StartScreen), "the start screen again")
        await settle(pilot)
        assert " o Open " in row_text(app)
        assert not app.errors
