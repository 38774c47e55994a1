"""Direct tests of tracker.ui.screens.help, worked from its docstrings: every key of the
screen it was opened over, as bound (the config's `[keys]` winning), with each command's
config name and its label and help, then the palette's key, then the verbs of the `:`
line as the role may use them (a player's `declare` without `secret=`); every cell plain
text; Esc, q or ? closes it, j/k (down/up) scroll a row, space/page down and page up ten.
The listing screen shows a command's long answer the same way."""

from __future__ import annotations

import pytest
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Label, Static

from tracker.play.verbs import Verb, offered
from tracker.reading.roles import GM, PLAYER
from tracker.ui.commands import Command
from tracker.ui.screens.help import HelpScreen, ListingScreen, help_table
from tests.ui import ScreenApp, wait_for

NEXT = Command("next", "n,space", "Next", "jump to the next segment where anything happens")
STEP = Command("step", "full_stop", "Step", "move one segment on")
ODD = Command("odd", "left_square_bracket", "[b]Odd[/b]", "usage [target=NAME]")


def _cells(commands: tuple[Command, ...], play: tuple[Verb, ...] = (), keymap: dict[str, str] | None = None, kind: str = GM) -> list[tuple[str, str, str]]:
    table = help_table(commands, play, keymap, kind)
    columns = [list(column.cells) for column in table.columns]
    assert all(isinstance(cell, Text) for column in columns for cell in column)  # never markup
    return [tuple(str(cell) for cell in row) for row in zip(*columns)]  # type: ignore[misc]


def test_each_command_is_a_row_of_its_keys_config_name_and_label_then_the_palette() -> None:
    assert _cells((NEXT, STEP, ODD)) == [
        ("key", "config name", "what it does"),
        ("n / space", "next", "Next: jump to the next segment where anything happens"),
        (".", "step", "Step: move one segment on"),
        ("[", "odd", "[b]Odd[/b]: usage [target=NAME]"),
        ("ctrl+p", "", "Palette: every command by name"),
    ]


def test_the_head_is_underlined_and_the_columns_keep_their_look() -> None:
    table = help_table((NEXT,))
    assert table.rows[0].style == "underline" and table.rows[1].style is None
    assert [(c.no_wrap, c.style) for c in table.columns] == [(True, "bold"), (True, "dim"), (False, "")]
    assert table.padding == (0, 1, 0, 1)


def test_keys_rebound_in_the_config_are_shown_as_bound() -> None:
    rows = _cells((NEXT, STEP), keymap={"next": "j,down", "other": "x"})
    assert rows[1][:2] == ("j / down", "next") and rows[2][:2] == (".", "step")


def test_the_verbs_follow_as_the_gm_may_use_them() -> None:
    declare, roll = (next(v for v in offered(GM) if v.name == name) for name in ("declare", "roll"))
    rows = _cells((STEP,), (declare, roll))
    assert rows[3:] == [
        ("", "", ""),
        ("", "", "The : line takes these commands:"),
        ("", "", "declare ACTOR TEMPLATE [target=NAME] [pt=N] [faces=N,N] [secret=true] [key=value]  (initiate an action (secret: the roll is hidden from viewers))"),
        ("", "", "roll DICE [secret=true]  (roll dice in the game's notation (2d10, ORE 5d+1wd, D6 3D+1) for everyone's log)"),
    ]


def test_a_players_verbs_come_without_the_options_only_the_gm_has() -> None:
    rows = _cells((STEP,), offered(PLAYER), kind=PLAYER)
    verbs = [row[2] for row in rows[5:]]
    assert len(verbs) == len(offered(PLAYER)) and verbs
    assert not any("secret=" in line for line in verbs)
    assert "declare ACTOR TEMPLATE [target=NAME] [pt=N] [faces=N,N] [key=value]  (initiate an action)" in verbs


def test_no_verbs_no_line_about_them() -> None:
    assert _cells((STEP,))[-1] == ("ctrl+p", "", "Palette: every command by name")


pilots = pytest.mark.ui


@pilots
@pytest.mark.parametrize("key", ["escape", "q", "question_mark"])
async def test_esc_q_or_question_mark_closes_the_help(key: str) -> None:
    screen = HelpScreen("Encounter [b]x[/b]", (NEXT, STEP), offered(GM))
    app = ScreenApp(screen)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.screen is screen, "the help")
        title = screen.query_one(".title", Label)
        assert str(title.render()) == "Encounter [b]x[/b]: keys (esc closes)"
        (body,) = [w for w in screen.query(Static) if not isinstance(w, Label)]
        assert [str(c) for c in list(body.content.columns[1].cells)[1:3]] == ["next", "step"]  # type: ignore[union-attr]
        assert any("[secret=true]" in str(c) for c in body.content.columns[2].cells)  # type: ignore[union-attr]  # the GM's own options
        await pilot.press("x", key)
        await wait_for(pilot, lambda: app.closed, f"{key} closing the help")


@pilots
async def test_a_players_help_leaves_out_the_gms_options_and_shows_keys_as_rebound() -> None:
    screen = HelpScreen("Encounter", (NEXT, STEP), offered(PLAYER), kind=PLAYER)
    app = ScreenApp(screen)
    app.update_keymap({"next": "j"})
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.screen is screen, "the help")
        (body,) = [w for w in screen.query(Static) if not isinstance(w, Label)]
        keys, _, what = ([str(c) for c in column.cells] for column in body.content.columns)  # type: ignore[union-attr]
        assert keys[1:3] == ["j", "."]
        assert any(line.startswith("declare ACTOR") for line in what) and not any("secret=" in line for line in what)


async def _scrolls(pilot, body: VerticalScroll, keys: list[str], at: list[float]) -> None:
    for key, y in zip(keys, at):
        await pilot.press(key)
        assert body.scroll_y == y, f"{key} scrolling to {y} at once, not animated (at {body.scroll_y})"


@pilots
async def test_the_keys_scroll_the_help_by_a_row_or_ten() -> None:
    screen = HelpScreen("Encounter", (NEXT, STEP), offered(GM) * 3)
    app = ScreenApp(screen)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.screen is screen, "the help")
        body = screen.query_one("#help-body", VerticalScroll)
        assert "dialog" in body.classes and "help" in body.classes
        await wait_for(pilot, lambda: body.max_scroll_y > 30, "a help longer than the screen")
        # (page down and page up also scroll the focused body by its own bindings, a page.)
        await _scrolls(pilot, body, ["j", "down", "space", "space", "k", "up"], [1, 2, 12, 22, 21, 20])


@pilots
async def test_a_listing_shows_its_lines_scrolls_and_closes() -> None:
    lines = [f"proposal {n}: [b]Grok[/b] punch" for n in range(60)]
    screen = ListingScreen("Proposals", lines)
    app = ScreenApp(screen)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.screen is screen, "the listing")
        assert str(screen.query_one(".title", Label).render()) == "Proposals (esc closes)"
        shown = screen.query_one("#listing-text", Static).content
        assert isinstance(shown, Text) and shown.plain == "\n".join(lines)
        body = screen.query_one("#listing-body", VerticalScroll)
        assert "dialog" in body.classes
        await _scrolls(pilot, body, ["j", "space", "k", "up"], [1, 11, 10, 9])
        await pilot.press("q")
        await wait_for(pilot, lambda: app.closed, "q closing the listing")
