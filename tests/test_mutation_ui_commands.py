"""Direct tests of tracker.ui.commands, worked from its docstring and
docs/decisions/0028-ui-commands-roles.md: a row names the action, its keys, its label and
its help; screens bind every key of a row to `cmd('<name>')` (shown in the footer only
when marked); the GM is offered every row marked `gm`, a viewer only the rows that change
nothing, a player those plus the rows marked `player`; the palette lists the rows of the
screen it was opened over, to that screen's reader; a hint line names the keys the footer
leaves out, with the keys the footer would draw."""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Static

from tracker.reading.roles import Role
from tracker.ui import commands
from tracker.ui.commands import (
    APPROVALS, CAMPAIGN, ENCOUNTER, FOLLOWING, REPLAY, ROSTER, START, Command, CommandTable, bindings, for_role,
    for_viewer, hint, in_table_order, key_text, keymap_of, offered, role_may, viewer_may,
)
from tests.ui import wait_for

NEXT = Command("next", "n,space", "Next", "jump to the next segment where anything happens", footer=True)
DECLARE = Command("declare", "a", "Declare", "declare an action", footer=True, player=True)
HELP = Command("help", "question_mark", "Help", "list every key", edits=False, footer=True)
TAKEBACK = Command("takeback", "u", "Take back", "take back your own last declaration", player=True, gm=False)
RENAME = Command("rename", "r", "Rename", "rename the highlighted combatant")
REMOVE = Command("remove", "delete,x", "Remove", "take the highlighted combatant out")
TABLE = (NEXT, DECLARE, HELP, TAKEBACK, RENAME, REMOVE)


def test_keys_are_shown_in_the_apps_words_joined_by_slashes() -> None:
    assert key_text("n,space") == "n / space"
    assert key_text(" full_stop , colon,question_mark,slash") == ". / : / ? / /"
    assert key_text("delete,enter,escape,left_square_bracket,right_square_bracket") == "del / enter / esc / [ / ]"
    assert key_text("ctrl+s") == "ctrl+s"
    assert NEXT.key_text == "n / space"


def test_a_key_rebound_in_the_config_wins_over_the_tables_own() -> None:
    assert NEXT.keys_shown({"next": "j,full_stop"}) == "j / ."
    assert NEXT.keys_shown({"step": "j"}) == "n / space"
    assert NEXT.keys_shown({}) == "n / space"


def test_the_keymap_is_the_apps_own_or_none() -> None:
    class WithKeymap:
        _keymap = {"next": "j"}

    class Odd:
        _keymap = [("next", "j")]

    assert keymap_of(WithKeymap()) == {"next": "j"}
    assert keymap_of(Odd()) == {} and keymap_of(object()) == {}


def test_the_gm_is_offered_every_row_marked_gm() -> None:
    gm = Role.gm()
    assert for_role(TABLE, gm) == (NEXT, DECLARE, HELP, RENAME, REMOVE)
    assert offered(NEXT, gm) and not offered(TAKEBACK, gm)
    assert role_may(TABLE, gm, "rename") and not role_may(TABLE, gm, "takeback") and not role_may(TABLE, gm, "nothing")


def test_a_viewer_only_the_rows_that_change_nothing() -> None:
    viewer = Role.viewer()
    assert for_role(TABLE, viewer) == (HELP,)
    assert for_viewer(TABLE) == (HELP,)
    assert viewer_may(TABLE, "help") and not viewer_may(TABLE, "next") and not viewer_may(TABLE, "nothing")
    assert not role_may(TABLE, viewer, "declare")


def test_a_player_those_and_the_rows_marked_player() -> None:
    player = Role.player(["Seraph"])
    assert for_role(TABLE, player) == (DECLARE, HELP, TAKEBACK)
    assert offered(TAKEBACK, player) and offered(HELP, player) and not offered(NEXT, player)


def test_the_shipped_tables_offer_each_role_what_0028_says() -> None:
    player, viewer = Role.player(["Seraph"]), Role.viewer()
    names = [c.name for c in for_role(ENCOUNTER, player)]
    assert {"declare", "maintain", "abort", "takeback"} <= set(names)
    assert not {"next", "step", "damage"} & set(names)
    assert all(not c.edits for c in for_role(ENCOUNTER, viewer))
    assert [c.name for c in for_role(ENCOUNTER, Role.gm())] == [c.name for c in ENCOUNTER if c.gm]


def test_every_row_binds_all_its_keys_to_its_command() -> None:
    made = bindings((NEXT, REMOVE))
    assert [(b.key, b.action, b.description, b.show, b.id) for b in made if isinstance(b, Binding)] == [
        ("n,space", "cmd('next')", "Next", True, "next"),
        ("delete,x", "cmd('remove')", "Remove", False, "remove"),
    ]


def test_every_screens_table_is_listed_for_the_config_to_check() -> None:
    assert commands.tables() == [ENCOUNTER, REPLAY, FOLLOWING, START, ROSTER, CAMPAIGN, APPROVALS]


class _Bound:
    def __init__(self, name: str | None) -> None:
        self.binding = Binding("x", "y", id=name) if name is not None else Binding("x", "y")


def test_a_screens_bindings_are_put_back_in_its_tables_order() -> None:
    # The config's remap moves `declare` to the end (Textual re-adds it); unknown last.
    active: dict[str, Any] = {"help": _Bound("help"), "x": _Bound(None), "a": _Bound("declare"), "n": _Bound("next"), "z": _Bound("other")}
    ordered = in_table_order(active, TABLE)
    assert list(ordered) == ["n", "a", "help", "x", "z"]
    assert ordered["a"] is active["a"]


class Keys(Screen[None]):
    BINDINGS = bindings(TABLE)

    def compose(self) -> ComposeResult:
        yield Static("keys")


class KeysApp(App[None]):
    def on_mount(self) -> None:
        self.push_screen(Keys())


@pytest.mark.ui
async def test_the_hint_names_what_the_footer_leaves_out_with_the_footers_keys() -> None:
    app = KeysApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, Keys), "the screen")
        assert commands.shown_keys(app.screen) == {
            "next": "n", "declare": "a", "help": "?", "takeback": "u", "rename": "r", "remove": "del",
        }
        # Rows marked for the footer are left out; each other row's key as the footer draws it.
        assert hint(app.screen, TABLE) == "u take back  r rename  del remove"
        assert hint(app.screen, (RENAME, Command("gone", "g", "Gone", "not bound here"))) == "r rename"


class Palette(Screen[None]):
    COMMAND_TABLE = TABLE

    def __init__(self, role: Role | None = None) -> None:
        super().__init__()
        self.ran: list[str] = []
        if role is not None:
            self.role = role

    def compose(self) -> ComposeResult:
        yield Static("palette")

    def action_cmd(self, name: str) -> None:
        self.ran.append(name)


class PaletteApp(App[None]):
    def __init__(self, screen: Palette, viewer: bool = False, keymap: dict[str, str] | None = None) -> None:
        super().__init__()
        self.shown = screen
        self.viewer = viewer
        if keymap:
            self.update_keymap(keymap)

    def on_mount(self) -> None:
        self.push_screen(self.shown)


@pytest.mark.ui
@pytest.mark.parametrize(
    ("role", "viewer", "names"),
    [
        (Role.gm(), False, ["Next", "Declare", "Help", "Rename", "Remove"]),
        (Role.player(["Seraph"]), True, ["Declare", "Help", "Take back"]),
        (Role.viewer(), True, ["Help"]),
        (None, False, ["Next", "Declare", "Help", "Take back", "Rename", "Remove"]),  # a screen with no encounter: its table
        (None, True, ["Help"]),  # ... to a viewer's app: what changes nothing
    ],
)
async def test_the_palette_lists_the_screens_rows_its_reader_is_offered(role: Role | None, viewer: bool, names: list[str]) -> None:
    screen = Palette(role)
    app = PaletteApp(screen, viewer)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.screen is screen, "the screen")
        provider = CommandTable(screen)
        assert [c.label for c in provider.commands()] == names


@pytest.mark.ui
async def test_the_palette_shows_keys_as_bound_and_runs_the_row_on_its_screen() -> None:
    screen = Palette(Role.gm())
    app = PaletteApp(screen, keymap={"rename": "f2"})
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.screen is screen, "the screen")
        provider = CommandTable(screen)
        hits = [hit async for hit in provider.discover()]
        assert [(h.display, h.help) for h in hits] == [
            ("Next (n / space)", NEXT.help), ("Declare (a)", DECLARE.help), ("Help (?)", HELP.help),
            ("Rename (f2)", RENAME.help), ("Remove (del / x)", REMOVE.help),
        ]
        await hits[3].command()
        assert screen.ran == ["rename"]


@pytest.mark.ui
async def test_the_palette_finds_a_label_fuzzily_and_a_help_line_only_by_its_words() -> None:
    screen = Palette(Role.gm())
    app = PaletteApp(screen)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.screen is screen, "the screen")
        provider = CommandTable(screen)

        async def found(query: str) -> list[str]:
            return [str(hit.text) async for hit in provider.search(query)]

        assert await found("ren") == ["Rename (r)"]
        assert await found("highlighted out") == ["Remove (del / x)"]  # every word in its help
        assert await found("rnm") == ["Rename (r)"]  # r-n-m in order, in the label only
        assert await found("jmpsgmnt") == []  # in order in Next's help line, but not its words
        assert await found("zzz") == []
        hit = [h async for h in provider.search("next segment")][0]
        assert str(hit.text) == "Next (n / space)" and hit.help == NEXT.help
        await hit.command()
        assert screen.ran == ["next"]


class NoTable(Screen[None]):
    def compose(self) -> ComposeResult:
        yield Static("no commands here")


class PlainApp(App[None]):
    """An app that says nothing of viewers: it is not one."""

    def __init__(self, screen: Screen[None]) -> None:
        super().__init__()
        self.shown = screen

    def on_mount(self) -> None:
        self.push_screen(self.shown)


@pytest.mark.ui
async def test_the_palette_over_a_screen_with_no_table_offers_nothing_and_an_app_not_a_viewers_its_table() -> None:
    bare = NoTable()
    app = PlainApp(bare)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.screen is bare, "the screen")
        assert CommandTable(bare).commands() == ()
    screen = Palette()
    app = PlainApp(screen)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.screen is screen, "the screen")
        assert CommandTable(screen).commands() == TABLE


@pytest.mark.ui
async def test_a_label_match_ranks_above_a_help_line_that_has_the_same_words() -> None:
    by_label = Command("alpha", "l", "Rename", "x")
    by_help = Command("beta", "h", "Other", "rename the thing")

    class Two(Palette):
        COMMAND_TABLE = (by_help, by_label)

    screen = Two(Role.gm())
    app = PaletteApp(screen)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.screen is screen, "the screen")
        hits = [hit async for hit in CommandTable(screen).search("rename")]
        assert all(isinstance(hit.score, float | int) and hit.score > 0 for hit in hits)
        ranked = sorted(hits, key=lambda hit: hit.score, reverse=True)  # as the palette shows them
        assert [str(hit.text) for hit in ranked] == ["Rename (l)", "Other (h)"]
        assert ranked[0].score > ranked[1].score
