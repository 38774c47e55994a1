"""Direct tests of tracker.ui.widgets.footer (the footer of every screen), worked from
its docstring: the screen's keys in one line as Textual's Footer draws them (each action
once, by its first binding; a disabled key dimmed; `' key '` then `'description '`; cut
at the screen's edge; the palette's key docked at the right after a thin bar, compact),
in the Footer's own styles; a press on a key runs it or rings the bell if it is disabled;
the pointer over a key lights it and shows its tooltip; the wheel scrolls the rest into
view; with `at_once` the keys are drawn at once, otherwise the footer is blank until the
screen says its keys changed, and a change redraws it (from the left, nothing lit) while
a "bindings changed" that leaves them as they were draws nothing.

Textual's own Footer is the oracle the docstring names: each app here shows it on its
last row and ours on its first (docked at the top), on one screen, so the two rows are
compared cell by cell, style by style."""

from __future__ import annotations

from typing import Any

import pytest
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.geometry import Region
from textual.screen import Screen
from textual.strip import Strip
from textual.widgets import Footer, Label

from tracker.ui.textual_private import screen_cells
from tracker.ui.widgets.footer import BAR, FooterEntry, KeyFooter
from tests.ui import screen_drawn, wait_for

pytestmark = pytest.mark.ui

SIZE = (80, 24)
LAST = SIZE[1] - 1
WAIT = 10.0  # a broken footer fails fast
PALETTE = f"{BAR}^p palette "

MANY = [
    Binding("n", "next", "Next"),
    Binding("k", "next", "Next too"),  # the same action: shown once, by its first key
    Binding("x", "off", "Off"),  # disabled: its check says None
    Binding("t", "tip", "Tipped", tooltip="what t does"),
    Binding("h", "hidden", "Hidden", show=False),
    *(Binding(str(i), f"more('{i}')", f"Longer description {i}") for i in range(6)),
]
FEW = [Binding("n", "next", "Next"), Binding("x", "off", "Off")]
# The keys of MANY as the line shows them, left to right, from column 0.
MANY_LINE = " n Next  x Off  t Tipped " + "".join(f" {i} Longer description {i} " for i in range(6))


class Counted(KeyFooter):
    """The footer, counting the redraws asked of it and keeping each line it draws."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.redraws = 0
        self.lines: list[Strip] = []

    def render_line(self, y: int) -> Strip:
        line = super().render_line(y)
        self.lines.append(line)
        return line

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False) -> Any:
        self.redraws += 1
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)


class Keys(App[None]):
    """Ours on the first row, Textual's Footer on the last, for the same screen's keys."""

    CSS = "KeyFooter { dock: top; }"

    def __init__(self, *, textuals: bool = True, **footer: Any) -> None:
        super().__init__()
        self.footer = Counted(**footer)
        self.textuals = textuals
        self.off_disabled = True
        self.done: list[str] = []
        self.rang = 0

    def compose(self) -> ComposeResult:
        yield Label("keys")
        yield self.footer
        if self.textuals:
            yield Footer()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return None if action == "off" and self.off_disabled else True

    def action_next(self) -> None:
        self.done.append("next")

    def action_off(self) -> None:
        self.done.append("off")

    def action_zed(self) -> None:
        self.done.append("zed")

    def action_tip(self) -> None:
        self.done.append("tip")

    def action_more(self, which: str) -> None:
        self.done.append(which)

    def action_command_palette(self) -> None:
        self.done.append("palette")

    def bell(self) -> None:
        self.rang += 1


class Many(Keys):
    BINDINGS = MANY


class Few(Keys):
    BINDINGS = FEW


def row(app: App[Any], y: int) -> list[tuple[str, str]]:
    return screen_cells(app)[y]


def text(app: App[Any], y: int = 0) -> str:
    return "".join(char for char, _ in row(app, y))


async def shown(pilot: Any, app: Keys) -> None:
    """Until both footers show the palette's key."""
    await wait_for(pilot, lambda: text(app, 0).endswith(PALETTE) and (not app.textuals or text(app, LAST).endswith(PALETTE)), "the keys", WAIT)
    await screen_drawn(pilot, WAIT)


def _plain(line: Strip) -> str:
    return "".join(segment.text for segment in line)


async def test_the_line_is_textuals_footers_cell_by_cell_in_every_theme_and_under_the_pointer() -> None:
    app = Many(at_once=True)
    async with app.run_test(size=SIZE) as pilot:
        await shown(pilot, app)
        ours = text(app)
        # The keys left to right, cut at the palette's bar, which is docked at the right.
        assert ours == MANY_LINE[: SIZE[0] - len(PALETTE)] + PALETTE
        for theme in ("textual-dark", "textual-light", "nord", "gruvbox"):
            app.theme = theme
            await screen_drawn(pilot, WAIT)
            assert row(app, 0) == row(app, LAST), theme
        # Over the first key's edges, the disabled one, the palette's.
        for theme, places in (("textual-dark", (0, 7, 9, SIZE[0] - 1)), ("textual-light", (3, 15, SIZE[0] - 5))):
            app.theme = theme
            for x in places:
                await pilot.hover(None, offset=(x, 0))
                await screen_drawn(pilot, WAIT)
                lit = row(app, 0)
                await pilot.hover(None, offset=(x, LAST))
                await screen_drawn(pilot, WAIT)
                assert lit == row(app, LAST), (theme, x)
                assert lit != row(app, 0), (theme, x)  # the pointer left ours: unlit


async def test_a_disabled_key_is_dimmed_and_a_key_under_the_pointer_lit() -> None:
    app = Many(textuals=False, at_once=True)
    async with app.run_test(size=SIZE) as pilot:
        await shown(pilot, app)
        cells = row(app, 0)
        styles = [style for _, style in cells]
        assert all("dim" in style for style in styles[8:15])  # " x Off "
        assert not any("dim" in style for style in styles[:8] + styles[15:])
        # The key part bold, the description not; the palette's bar not bold either.
        assert "bold" in styles[1] and "bold" not in styles[3]
        plain = styles[:]
        await pilot.hover(None, offset=(2, 0))
        await wait_for(pilot, lambda: row(app, 0) != cells, "the key lit", WAIT)
        lit = [style for _, style in row(app, 0)]
        assert lit[:8] != plain[:8] and lit[8:] == plain[8:]  # only " n Next " lit


async def test_each_action_shows_once_and_the_palettes_key_last() -> None:
    app = Many(textuals=False, at_once=True)
    async with app.run_test(size=SIZE) as pilot:
        await shown(pilot, app)
        entries = app.footer.entries()
        assert [e.description for e in entries] == ["Next", "Off", "Tipped", *(f"Longer description {i}" for i in range(6)), "palette"]
        assert [e.key for e in entries[:3]] == ["n", "x", "t"]
        assert [e.enabled for e in entries[:3]] == [True, False, True]
        assert entries[2].tooltip == "what t does" and entries[0].tooltip == ""
        palette = entries[-1]
        assert palette.key == "ctrl+p" and palette.key_display == "^p" and palette.enabled
        # The palette's tooltip is its own, else its description.
        binding = app.screen.active_bindings["ctrl+p"][1]
        assert palette.tooltip == (binding.tooltip or binding.description)
        keys, docked = app.footer.shown()
        assert list(keys) == entries[:-1] and docked == palette


async def test_the_palettes_tooltip_is_its_description_when_it_has_none() -> None:
    class Untipped(Few):
        BINDINGS = [*FEW, Binding("ctrl+p", "command_palette", "palette")]

    app = Untipped(textuals=False, at_once=True)
    async with app.run_test(size=SIZE) as pilot:
        await shown(pilot, app)
        assert app.footer.entries()[-1].tooltip == "palette"
        await pilot.hover(None, offset=(SIZE[0] - 3, 0))
        await wait_for(pilot, lambda: app.footer.tooltip == "palette", "the palette's tooltip", WAIT)


async def test_without_the_palette_the_keys_run_to_the_edge() -> None:
    class Paletteless(Many):
        ENABLE_COMMAND_PALETTE = False

    app = Paletteless(textuals=True, at_once=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: text(app).startswith(" n Next") and text(app, LAST).startswith(" n Next"), "the keys", WAIT)
        await screen_drawn(pilot, WAIT)
        assert text(app) == MANY_LINE[: SIZE[0]]
        assert row(app, 0) == row(app, LAST)
        assert [e.description for e in app.footer.entries()][-1] == "Longer description 5"
        # The wheel brings the last key to the edge itself.
        for _ in range(60):
            app.footer.post_message(events.MouseScrollDown(app.footer, 5, 0, 0, 1, 0, False, False, False, screen_x=5, screen_y=0))
        await wait_for(pilot, lambda: text(app) == MANY_LINE[-SIZE[0] :], "scrolled to the end", WAIT)


async def test_a_press_runs_a_key_or_rings_the_bell_and_only_on_a_key() -> None:
    app = Few(textuals=False, at_once=True)
    async with app.run_test(size=SIZE) as pilot:
        await shown(pilot, app)
        assert text(app) == " n Next  x Off ".ljust(SIZE[0] - len(PALETTE)) + PALETTE
        # " n Next " is columns 0-7, " x Off " 8-14; the palette's from 68.
        clicks = [
            (0, ["next"], 0), (7, ["next", "next"], 0), (8, ["next", "next"], 1), (14, ["next", "next"], 2),
            (15, ["next", "next"], 2), (67, ["next", "next"], 2), (68, ["next", "next", "palette"], 2),
            (79, ["next", "next", "palette", "palette"], 2),
        ]
        for x, done, rang in clicks:
            await pilot.click(None, offset=(x, 0))
            await screen_drawn(pilot, WAIT)
            assert (app.done, app.rang) == (done, rang), x


async def test_the_pointer_shows_a_keys_tooltip_and_leaving_puts_it_out() -> None:
    app = Many(textuals=False, at_once=True)
    async with app.run_test(size=SIZE) as pilot:
        await shown(pilot, app)
        before = row(app, 0)
        await pilot.hover(None, offset=(18, 0))  # " t Tipped "
        await wait_for(pilot, lambda: app.footer.tooltip == "what t does", "the tooltip", WAIT)
        await pilot.hover(None, offset=(2, 0))  # Next has none
        await wait_for(pilot, lambda: app.footer.tooltip is None and row(app, 0) != before, "no tooltip, Next lit", WAIT)
        lit = row(app, 0)
        redraws = app.footer.redraws
        await pilot.hover(None, offset=(4, 0))  # the same key: nothing to draw again
        await screen_drawn(pilot, WAIT)
        assert app.footer.redraws == redraws and row(app, 0) == lit
        await pilot.hover(None, offset=(5, 10))  # off the footer: nothing lit
        await wait_for(pilot, lambda: row(app, 0) == before, "the key unlit", WAIT)
        assert app.footer.tooltip is None
        redraws = app.footer.redraws
        app.footer.post_message(events.Leave(app.footer))  # left again: nothing to put out
        await screen_drawn(pilot, WAIT)
        assert app.footer.redraws == redraws


async def test_a_leave_after_a_tooltip_clears_it() -> None:
    app = Many(textuals=False, at_once=True)
    async with app.run_test(size=SIZE) as pilot:
        await shown(pilot, app)
        await pilot.hover(None, offset=(18, 0))
        await wait_for(pilot, lambda: app.footer.tooltip == "what t does", "the tooltip", WAIT)
        app.footer.post_message(events.Leave(app.footer))
        await wait_for(pilot, lambda: app.footer.tooltip is None, "the tooltip put out", WAIT)


def _wheel(footer: KeyFooter, down: bool, notches: int = 1) -> None:
    kind = events.MouseScrollDown if down else events.MouseScrollUp
    for _ in range(notches):
        footer.post_message(kind(footer, 5, 0, 0, 1 if down else -1, 0, False, False, False, screen_x=5, screen_y=0))


async def test_the_wheel_scrolls_the_keys_past_the_edge_into_view_and_back() -> None:
    app = Many(textuals=False, at_once=True)
    async with app.run_test(size=SIZE) as pilot:
        await shown(pilot, app)
        room = SIZE[0] - len(PALETTE)
        _wheel(app.footer, down=False)  # already at the left: nothing moves
        await screen_drawn(pilot, WAIT)
        assert text(app) == MANY_LINE[:room] + PALETTE
        _wheel(app.footer, down=True)
        await wait_for(pilot, lambda: text(app) != MANY_LINE[:room] + PALETTE, "a notch scrolled", WAIT)
        line = text(app)
        assert line.endswith(PALETTE)
        shift = MANY_LINE.find(line[: room])
        assert 0 < shift < 10
        # A key moved under a still pointer: the pointer finds the key now there.
        _wheel(app.footer, down=True, notches=60)
        await wait_for(pilot, lambda: text(app) == MANY_LINE[-room:] + PALETTE, "the last key at the bar", WAIT)
        redraws = app.footer.redraws
        _wheel(app.footer, down=True)  # no further than the last key
        await screen_drawn(pilot, WAIT)
        assert text(app) == MANY_LINE[-room:] + PALETTE and app.footer.redraws == redraws
        start = len(MANY_LINE) - room
        # Clicks land on the keys where they are drawn now.
        at = MANY_LINE.find(" 5 Longer") - start
        await pilot.click(None, offset=(at, 0))
        await wait_for(pilot, lambda: app.done == ["5"], "the last key run", WAIT)
        await pilot.click(None, offset=(at - 1, 0))
        await wait_for(pilot, lambda: app.done == ["5", "4"], "the key before it run", WAIT)
        _wheel(app.footer, down=False, notches=60)
        await wait_for(pilot, lambda: text(app) == MANY_LINE[:room] + PALETTE, "back at the left", WAIT)


async def test_the_wheel_does_nothing_when_every_key_fits() -> None:
    app = Few(textuals=False, at_once=True)
    async with app.run_test(size=SIZE) as pilot:
        await shown(pilot, app)
        before = text(app)
        redraws = app.footer.redraws
        _wheel(app.footer, down=True, notches=3)
        await screen_drawn(pilot, WAIT)
        assert text(app) == before and app.footer.redraws == redraws


async def test_at_once_draws_the_keys_with_the_first_frame() -> None:
    app = Few(textuals=False, at_once=True, id="keys", classes="mine theirs")
    async with app.run_test(size=SIZE) as pilot:
        assert app.query_one("#keys") is app.footer
        assert app.footer.has_class("mine") and app.footer.has_class("theirs")
        assert [e.key for e in app.footer.entries()] == ["n", "x", "ctrl+p"]
        await shown(pilot, app)
        # Its very first line drawn is the keys.
        assert _plain(app.footer.lines[0]) == " n Next  x Off ".ljust(SIZE[0] - len(PALETTE)) + PALETTE
        # The pointer never came: a leave has nothing to put out.
        redraws = app.footer.redraws
        app.footer.post_message(events.Leave(app.footer))
        await screen_drawn(pilot, WAIT)
        assert app.footer.redraws == redraws


async def test_without_at_once_the_footer_is_blank_until_the_screen_says_its_keys_then_follows_them() -> None:
    app = Few(textuals=False)
    async with app.run_test(size=SIZE) as pilot:
        footer = app.footer
        await shown(pilot, app)
        # Its first frame: blank, in the footer's own background, the full width.
        first = footer.lines[0]
        assert _plain(first) == " " * SIZE[0]
        assert {segment.style.bgcolor for segment in first} == {footer.rich_style.bgcolor}
        assert footer.rich_style.bgcolor is not None
        assert text(app) == " n Next  x Off ".ljust(SIZE[0] - len(PALETTE)) + PALETTE
        assert [e.enabled for e in footer.entries()] == [True, False, True]
        # The same keys again: nothing drawn.
        redraws = footer.redraws
        for _ in range(3):
            app.screen.refresh_bindings()
            await screen_drawn(pilot, WAIT)
        assert footer.redraws == redraws
        # Off enabled: the line drawn again, Off no longer dim.
        app.off_disabled = False
        app.screen.refresh_bindings()
        await wait_for(pilot, lambda: footer.entries()[1].enabled, "Off enabled", WAIT)
        await screen_drawn(pilot, WAIT)
        assert footer.redraws > redraws
        assert not any("dim" in style for _, style in row(app, 0))


async def test_a_footer_taller_than_a_line_draws_its_keys_on_the_first_row_only() -> None:
    class Tall(Few):
        CSS = "KeyFooter { dock: top; height: 2; }"

    app = Tall(textuals=False, at_once=True)
    async with app.run_test(size=SIZE) as pilot:
        await shown(pilot, app)
        assert text(app, 1) == " " * SIZE[0]
        assert {style for _, style in row(app, 1)} == {f"on {app.footer.rich_style.bgcolor.name}"} or len({style for _, style in row(app, 1)}) == 1


async def test_a_change_of_keys_draws_from_the_left_with_nothing_lit() -> None:
    app = Many(textuals=False, at_once=True)
    async with app.run_test(size=SIZE) as pilot:
        await shown(pilot, app)
        room = SIZE[0] - len(PALETTE)
        _wheel(app.footer, down=True, notches=60)
        await wait_for(pilot, lambda: text(app) == MANY_LINE[-room:] + PALETTE, "scrolled", WAIT)
        await pilot.hover(None, offset=(50, 0))
        await wait_for(pilot, lambda: app.footer.tooltip is None and app.footer._hover is not None, "a key lit", WAIT)
        app.off_disabled = False
        app.screen.refresh_bindings()
        await wait_for(pilot, lambda: app.footer.entries()[1].enabled, "Off enabled", WAIT)
        await screen_drawn(pilot, WAIT)
        assert text(app) == MANY_LINE[:room] + PALETTE
        # Nothing lit, so the pointer leaving has nothing to put out.
        redraws = app.footer.redraws
        app.footer.post_message(events.Leave(app.footer))
        await screen_drawn(pilot, WAIT)
        assert app.footer.redraws == redraws
        # Nothing lit: the first key is drawn as a key not under the pointer.
        assert row(app, 0)[:8] == row(app, 0)[8:16] or row(app, 0)[1][1] == row(app, 0)[9][1]


async def test_a_tooltip_shown_is_put_out_when_the_keys_change() -> None:
    app = Many(textuals=False, at_once=True)
    async with app.run_test(size=SIZE) as pilot:
        await shown(pilot, app)
        await pilot.hover(None, offset=(18, 0))
        await wait_for(pilot, lambda: app.footer.tooltip == "what t does", "the tooltip", WAIT)
        app.off_disabled = False
        app.screen.refresh_bindings()
        await wait_for(pilot, lambda: app.footer.entries()[1].enabled, "Off enabled", WAIT)
        assert app.footer.tooltip is None


async def test_a_removed_footer_hears_no_more_of_the_screen() -> None:
    app = Few(textuals=False)
    async with app.run_test(size=SIZE) as pilot:
        footer = app.footer
        await footer.remove()
        app.screen.refresh_bindings()
        await screen_drawn(pilot, WAIT)
        assert footer not in app.screen.bindings_updated_signal._subscriptions


def test_an_entry_is_a_value() -> None:
    entry = FooterEntry("n", "n", "Next", True, "")
    assert entry == FooterEntry("n", "n", "Next", True, "")
    assert entry != FooterEntry("n", "n", "Next", False, "")


async def test_a_palette_key_without_a_description_is_its_key_alone_as_textuals() -> None:
    class Bare(Few):
        COMMAND_PALETTE_BINDING = "ctrl+y"
        BINDINGS = [*FEW, Binding("ctrl+y", "command_palette", "")]

    app = Bare(at_once=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: text(app).endswith(f"{BAR}^y ") and text(app, LAST).endswith(f"{BAR}^y "), "the palette's key", WAIT)
        await screen_drawn(pilot, WAIT)
        assert row(app, 0) == row(app, LAST)
        await pilot.click(None, offset=(SIZE[0] - 3, 0))
        await wait_for(pilot, lambda: app.done == ["palette"], "the palette's key run", WAIT)
        await pilot.click(None, offset=(SIZE[0] - 5, 0))  # just left of its bar: no key there
        await screen_drawn(pilot, WAIT)
        assert app.done == ["palette"]



async def test_a_change_of_keys_on_another_screen_is_not_the_footers() -> None:
    app = Few(textuals=False, at_once=True)
    async with app.run_test(size=SIZE) as pilot:
        await shown(pilot, app)
        app.off_disabled = False  # Off enabled, but only another screen says its keys changed
        redraws = app.footer.redraws
        app.footer._bindings_changed(Screen())
        await screen_drawn(pilot, WAIT)
        assert app.footer.redraws == redraws and not app.footer.entries()[1].enabled


async def test_a_footer_narrower_than_the_palettes_key_is_cut_at_its_edge() -> None:
    class Narrow(Few):
        CSS = "KeyFooter { dock: top; width: 10; }"

    app = Narrow(textuals=False, at_once=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.footer.size.width == 10 and bool(app.footer.lines), "the footer drawn", WAIT)
        await screen_drawn(pilot, WAIT)
        # The palette's key starts two cells before the footer does: no key is left of it.
        line = app.footer.render_line(0)
        assert _plain(line) == PALETTE[:10] and line.cell_length == 10


async def test_the_wheel_over_a_footer_of_the_palettes_key_alone_does_nothing() -> None:
    app = Keys(textuals=False, at_once=True)  # no keys of its own: the palette's alone
    async with app.run_test(size=SIZE) as pilot:
        await shown(pilot, app)
        assert text(app) == " " * (SIZE[0] - len(PALETTE)) + PALETTE
        _wheel(app.footer, down=True, notches=2)
        await screen_drawn(pilot, WAIT)
        assert text(app) == " " * (SIZE[0] - len(PALETTE)) + PALETTE and app.is_running
