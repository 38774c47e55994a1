"""Direct tests of tracker.ui.screens.encounter, worked from its docstrings and
docs/decisions/0019-encounter-screen.md: the strip is a third of a tall terminal (8 rows
at 24); a command's notification holds at most NOTICE_ROWS (3) rows of the toast's text
width, and one that does not hold a change's lines ends with "… the rest is in the combat
log", while an answer that is not in the log opens whole in a view of its own; the
selection is the default actor or target of maintain, abort, damage, condition, surprise,
hide and keep; a player acts for their own (the selected one if theirs, else their
first); the keys offered are the role's, and a refused one says whose it is; proposals
are told as they change (to the GM a new one waiting, to a player the GM's answer to
their own); `f` filters the log by the selected one and `/` searches it, both named in
the log's title.

The fights are made on disk (freeform unless said) and each screen is shown alone in a
bare app (tests/ui.py) that keeps its notifications with their options and records what
the screen asks of the tracker's app (back to the start, quit, a replay)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from textual.screen import Screen
from textual.widgets import Static

import tracker.ui

from tracker.engine import TrackerError
from tracker.engine.text import clip, wrap
from tracker.persistence.store import EncounterFile
from tracker.play.live import Live
from tracker.reading.roles import Role
from tracker.ui.screens.encounter import (
    NOTICE_ROWS, TO_THE_LOG, EncounterScreen, _int, _number, _yes_no_word, brief, notice_width, strip_height,
)
from tracker.ui.screens.form import FormScreen
from tracker.ui.seat import Seat
from tracker.ui.widgets.log import CombatLog
from tracker.ui.widgets.roster import DetailView, RosterView
from tracker.ui.widgets.timeline import TimelineView
from tests.test_ui_app import make_file
from tests.ui import ScreenApp, screen_drawn, wait_for

WAIT = 10.0  # a broken mutant fails fast
FIGHT = ["add Ann hp=10", "add Bo hp=8 side=foes", "add Cy hp=6 side=foes"]


# ------------------------------------------------------------------ without a screen
def test_the_strip_is_a_third_of_a_tall_terminal_and_eight_rows_at_least() -> None:
    assert strip_height(24) == 8  # "at 24 rows, 8"
    assert strip_height(23) == 8 and strip_height(10) == 8
    assert strip_height(27) == 9 and strip_height(30) == 10 and strip_height(31) == 10


def test_a_notices_width_is_the_toasts_less_its_border_and_a_cell() -> None:
    # "60 cells wide, at most half its rack (the screen less a scrollbar's cell), less its
    # border and padding (3 cells)", and a cell narrower.
    assert notice_width(80) == 39 - 4 == 35
    assert notice_width(81) == 40 - 4 and notice_width(82) == 40 - 4
    assert notice_width(200) == 60 - 4 and notice_width(121) == 56 and notice_width(123) == 56
    assert notice_width(119) == 59 - 4
    assert notice_width(29) == 10 and notice_width(20) == 10 and notice_width(31) == 11


def test_a_text_that_fits_is_left_whole_for_the_toast_to_wrap() -> None:
    assert NOTICE_ROWS == 3
    assert TO_THE_LOG == "… the rest is in the combat log"
    short = ["one", "two words here"]
    assert brief(short, 10) == ("one\ntwo words here", False)  # two rows at 10: left whole
    three = ["a b c", "d"]  # "a b c" wraps to two rows at 3
    assert brief(three, 3) == ("a b c\nd", False)
    assert brief(["x"] * 3, 5) == ("x\nx\nx", False)


def test_a_text_that_does_not_fit_keeps_its_first_rows_and_says_where_the_rest_is() -> None:
    lines = ["alpha beta gamma", "delta"]  # at 6 cells: alpha, beta, gamma, delta
    assert wrap(lines[0], 6) == ["alpha", "beta", "gamma"]
    text, cut = brief(lines, 6)
    assert cut is True
    assert text == "alpha\nbeta\n" + clip(TO_THE_LOG, 6)
    assert text.split("\n")[-1] == "… the…"
    assert brief(["x"] * 4, 40) == ("x\nx\n" + TO_THE_LOG, True)
    assert brief(["x"] * 4, 40, rows=4) == ("x\nx\nx\nx", False)
    assert brief(["x"] * 5, 40, rows=4) == ("x\nx\nx\n" + TO_THE_LOG, True)


def test_the_forms_checks_name_their_field_and_what_they_expected() -> None:
    assert _int("segments")("12") == 12 and _int("segment")("-3") == -3
    with pytest.raises(TrackerError) as bad:
        _int("segments")("soon")
    assert str(bad.value) == "segments: expected a whole number, got 'soon'"
    with pytest.raises(TrackerError) as bad:
        _int("segment")("1.5")
    assert str(bad.value) == "segment: expected a whole number, got '1.5'"
    assert _number("-2.5") == -2.5 and _number("4") == 4.0
    with pytest.raises(TrackerError) as bad:
        _number("lots")
    assert str(bad.value) == "amount: expected a number (negative heals), got 'lots'"
    _yes_no_word("true")
    _yes_no_word("false")  # the two words it takes
    with pytest.raises(TrackerError) as bad:
        _yes_no_word("perhaps")
    assert str(bad.value) == "secret: expected true or false (or yes or no), got 'perhaps'"  # the field named


# ------------------------------------------------------------------ the screen, in a bare app
class _App(ScreenApp):
    """A bare app over the encounter screen: its notifications kept with their options,
    and what the screen asks of the tracker's app recorded (an app that is no table's has
    no `seat` at all)."""

    def __init__(self, screen: Any, seat: Seat | None = None, under: bool = False) -> None:
        super().__init__(screen)
        if seat is not None:
            self.seat = seat
        self.under = under  # another screen under the encounter's, as the start screen is
        self.said: list[tuple[str, str, float | None, bool]] = []  # message, severity, timeout, markup
        self.asked: list[str] = []
        self.errors: list[BaseException] = []

    def on_mount(self) -> None:  # before ScreenApp's (Textual calls each class's handler)
        if self.under:
            self.push_screen(Screen())

    def notify(self, message: str, **options: Any) -> None:
        self.said.append((str(message), options.get("severity", "information"), options.get("timeout"), options.get("markup", True)))

    def back_to_start(self) -> None:
        self.asked.append("start")

    def quit_asking(self) -> None:
        self.asked.append("quit")

    def start_replay(self, screen: Any) -> None:
        self.asked.append(f"replay over {type(screen).__name__}")


class _StyledApp(_App):
    CSS_PATH = str(Path(tracker.ui.__file__).with_name("tracker.tcss"))  # the app's own stylesheet


def _live(tmp_path: Path, lines: list[str] = FIGHT, ruleset: str = "freeform", viewer: bool = False, role: Role | None = None) -> Live:
    return Live.open(make_file(tmp_path, ruleset, lines), viewer=viewer, role=role)


def _on_disk(live: Live) -> Any:
    live.store.flush()
    return EncounterFile(live.path).load().encounter  # every save written is loaded again


async def _shown(pilot: Any, app: _App) -> EncounterScreen:
    await wait_for(pilot, lambda: isinstance(app.screen, EncounterScreen) and bool(app.screen.query(RosterView)) and app.screen.query_one(RosterView).combatants is not None, "the encounter screen", WAIT)
    await screen_drawn(pilot, WAIT)
    screen = app.screen
    assert isinstance(screen, EncounterScreen)
    return screen


@contextlib.asynccontextmanager
async def _opened(app: _App, size: tuple[int, int] = (80, 24)) -> AsyncIterator[tuple[_App, Any, EncounterScreen]]:
    """`app` run at `size` with its encounter screen shown: (app, pilot, screen)."""
    async with app.run_test(size=size) as pilot:
        yield app, pilot, await _shown(pilot, app)


async def _form(pilot: Any, app: _App) -> FormScreen:
    await wait_for(pilot, lambda: isinstance(app.screen, FormScreen), "a form", WAIT)
    await screen_drawn(pilot, WAIT)
    form = app.screen
    assert isinstance(form, FormScreen)
    return form


def _fields(form: FormScreen) -> list[tuple[Any, ...]]:
    return [(f.name, f.label, f.value, f.help, tuple(f.suggestions), f.multiple) for f in form.fields]


def _said(app: _App) -> list[str]:
    return [message for message, *_ in app.said]


pilots = pytest.mark.ui


@pilots
async def test_the_layout_at_80x24_and_the_strip_after_a_resize(tmp_path: Path) -> None:
    live = _live(tmp_path)
    async with _opened(_App(EncounterScreen(live))) as (app, pilot, screen):
        ids = [w.id for w in screen.query("*") if w.id]
        for wanted in ("clock", "strip", "timeline", "upcoming", "lower", "roster-pane", "roster-title", "roster", "detail", "log-pane", "log-title", "log"):
            assert wanted in ids, wanted
        assert screen.query_one("#strip").region.height == 8  # "at 24 rows, 8"
        assert screen.query_one("#strip").region.y == 1  # under the clock bar's row
        assert str(screen.query_one("#roster-title", Static).render()) == "Roster"
        assert str(screen.query_one("#log-title", Static).render()) == "Combat log"
        assert screen.query_one("#roster-title").has_class("pane-title") and screen.query_one("#log-title").has_class("pane-title")
        assert screen.query_one("#roster").parent is screen.query_one("#roster-pane")
        assert screen.query_one("#log").parent is screen.query_one("#log-pane")
        assert screen.query_one("#timeline").parent is screen.query_one("#strip")
        assert screen.query_one("#upcoming").parent is screen.query_one("#strip")
        assert screen.query_one("#detail").parent is screen.query_one("#roster-pane")
        await pilot.resize_terminal(80, 36)
        await wait_for(pilot, lambda: screen.query_one("#strip").region.height == 12, "a third of 36 rows", WAIT)
    live.close()


@pilots
async def test_a_taller_terminal_starts_with_a_third_of_it(tmp_path: Path) -> None:
    live = _live(tmp_path)
    async with _opened(_App(EncounterScreen(live)), size=(80, 33)) as (app, pilot, screen):
        assert screen.query_one("#strip").region.height == 11
    live.close()


@pilots
async def test_the_gm_starts_on_the_first_and_a_player_on_their_own(tmp_path: Path) -> None:
    live = _live(tmp_path)
    async with _opened(_App(EncounterScreen(live))) as (app, pilot, screen):
        assert screen.selected == "Ann"
        assert screen.query_one(DetailView)._shown.name == "Ann"
        assert screen.query_one(TimelineView).selected_name == "Ann"  # its row highlighted too
    live.close()
    player = Live.open(live.path, role=Role.player(["Cy"]))
    async with _opened(_App(EncounterScreen(player))) as (app, pilot, screen):
        assert screen.selected == "Cy" and screen.query_one(TimelineView).selected_name == "Cy"
        assert screen.role.is_player and screen.role.owns("Cy")
    player.close()
    stranger = Live.open(live.path, role=Role.player(["Zed"]))  # none of theirs here: the first
    async with _opened(_App(EncounterScreen(stranger))) as (app, pilot, screen):
        assert screen.selected == "Ann"
    stranger.close()


def _title(screen: EncounterScreen, which: str) -> str:
    return str(screen.query_one(f"#{which}-title", Static).render())


@pilots
async def test_glance_mode_is_shown_switched_and_remembered_by_a_local_gm(tmp_path: Path) -> None:
    from tracker.persistence import config

    live = _live(tmp_path)
    app = _App(EncounterScreen(live))
    app.roster_mode = "glance"  # type: ignore[attr-defined]  # as the config set it
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _shown(pilot, app)
        roster = screen.query_one(RosterView)
        assert screen.has_class("glance") and roster.glance and _title(screen, "roster") == "Roster: glance"
        await pilot.press("g")
        await wait_for(pilot, lambda: not roster.glance, "back to the detail", WAIT)
        assert str(screen.query_one(DetailView).render()).startswith("Ann")  # drawn again as it comes back
        assert not screen.has_class("glance") and _title(screen, "roster") == "Roster"
        assert app.roster_mode == "detail"  # type: ignore[attr-defined]
        await wait_for(pilot, lambda: config.load().roster_mode == "detail", "the mode remembered", WAIT)
        await pilot.press("g")
        await wait_for(pilot, lambda: roster.glance and app.roster_mode == "glance", "glance again", WAIT)  # type: ignore[attr-defined]
        assert screen.has_class("glance") and _title(screen, "roster") == "Roster: glance"
        await wait_for(pilot, lambda: config.load().roster_mode == "glance", "glance remembered", WAIT)
        assert str(screen.query_one(DetailView).render()).startswith("Ann")  # the detail shows the selected one
    live.close()


@pilots
@pytest.mark.parametrize("whose", ["viewer", "seat"])
async def test_a_viewer_or_a_seat_switches_glance_without_writing_the_config(tmp_path: Path, whose: str) -> None:
    from tracker.persistence import config

    live = _live(tmp_path, viewer=whose == "viewer")
    async with _opened(_App(EncounterScreen(live), Seat(kind="gm") if whose == "seat" else None)) as (app, pilot, screen):
        assert not screen.has_class("glance") and _title(screen, "roster") == "Roster"  # the default: detail
        await pilot.press("g")
        await wait_for(pilot, lambda: screen.query_one(RosterView).glance, "glance", WAIT)
        await wait_for(pilot, lambda: not screen.workers, "the remembering done", WAIT)
        assert not config.config_path().exists() and config.load().roster_mode != "glance"
    live.close()


@pilots
async def test_up_down_and_clicks_move_the_selection_and_the_panes_follow_it(tmp_path: Path) -> None:
    live = _live(tmp_path)
    async with _opened(_App(EncounterScreen(live))) as (app, pilot, screen):
        detail, timeline = screen.query_one(DetailView), screen.query_one(TimelineView)
        await pilot.press("down")
        await wait_for(pilot, lambda: screen.selected == "Bo", "Bo selected", WAIT)
        assert detail._shown.name == "Bo" and timeline.selected_name == "Bo"
        await pilot.press("down", "down")
        await wait_for(pilot, lambda: screen.selected == "Cy", "the last kept", WAIT)
        await pilot.press("up")
        await wait_for(pilot, lambda: screen.selected == "Bo", "Bo again", WAIT)
        await pilot.press("up")
        await wait_for(pilot, lambda: screen.selected == "Ann", "Ann again", WAIT)
        assert detail._shown.name == "Ann" and timeline.selected_name == "Ann"
        screen.post_message(RosterView.Clicked(2))
        await wait_for(pilot, lambda: screen.selected == "Cy" and detail._shown.name == "Cy", "Cy clicked", WAIT)
        assert timeline.selected_name == "Cy"
        screen.post_message(TimelineView.Clicked("Bo"))
        await wait_for(pilot, lambda: screen.selected == "Bo" and detail._shown.name == "Bo", "Bo clicked", WAIT)
        assert timeline.selected_name == "Bo"
    live.close()


@pilots
@pytest.mark.parametrize(("who", "key", "said"), [
    ("viewer", "d", "Damage: refused, this is a read-only viewer"),
    ("viewer", "a", "Declare: refused, this is a read-only viewer"),
    ("player", "d", "Damage: refused, this is the GM's"),
    ("player", "n", "Next: refused, this is the GM's"),
])
async def test_a_key_the_role_may_not_use_is_refused_naming_whose_it_is(tmp_path: Path, who: str, key: str, said: str) -> None:
    live = _live(tmp_path, viewer=who == "viewer", role=Role.player(["Cy"]) if who == "player" else None)
    async with _opened(_App(EncounterScreen(live))) as (app, pilot, screen):
        before = len(live.encounter.events)
        screen.action_cmd({"d": "damage", "a": "declare", "n": "next"}[key])
        assert app.said == [(said, "warning", None, True)]
        assert type(app.screen) is EncounterScreen and len(live.encounter.events) == before
    live.close()


@pilots
async def test_the_gms_screen_refuses_a_players_take_back_and_offers_only_the_roles_keys(tmp_path: Path) -> None:
    live = _live(tmp_path)
    async with _opened(_App(EncounterScreen(live))) as (app, pilot, screen):
        screen.action_cmd("takeback")
        assert app.said == [("Take back: refused, this is a player's", "warning", None, True)]
        assert screen.check_action("cmd", ("damage",)) is True and screen.check_action("cmd", ("takeback",)) is False
        assert screen.check_action("cmd", ()) is False  # no command named: none offered
        assert screen.check_action("quit", ()) is True  # not a command of the table: Textual's own
    live.close()
    viewer = Live.open(live.path, viewer=True)
    async with _opened(_App(EncounterScreen(viewer))) as (app, pilot, screen):
        assert screen.check_action("cmd", ("damage",)) is False and screen.check_action("cmd", ("help",)) is True
        keys = {b.binding.id for b in screen.active_bindings.values() if getattr(b.binding, "id", None)}
        assert "help" in keys
    viewer.close()


@pilots
async def test_a_refusal_from_a_command_is_an_error_that_lasts_six_seconds(tmp_path: Path) -> None:
    live = _live(tmp_path, [])
    async with _opened(_App(EncounterScreen(live))) as (app, pilot, screen):
        await pilot.press("a")
        await wait_for(pilot, lambda: bool(app.said), "the refusal", WAIT)
        assert app.said == [("no combatants yet: add some first (e: roster)", "error", 6, True)]
        app.said.clear()
        await pilot.press("d")
        await wait_for(pilot, lambda: bool(app.said), "the refusal", WAIT)
        assert app.said == [("no combatant selected: add one first (e: roster, or `:add NAME`)", "error", 6, True)]
        assert type(app.screen) is EncounterScreen
        app.said.clear()
        assert screen.change(lambda s: s.execute("damage Nobody 3")) is None
        assert len(app.said) == 1 and app.said[0][1:] == ("error", 6, True) and "Nobody" in app.said[0][0]
    live.close()


@pilots
async def test_a_player_acts_for_the_selected_one_if_theirs_else_their_first(tmp_path: Path) -> None:
    path = make_file(tmp_path, "freeform", FIGHT)
    live = Live.open(path, role=Role.player(["Cy", "Bo"]))
    async with _opened(_App(EncounterScreen(live))) as (app, pilot, screen):
        assert screen.selected == "Bo"  # the first of theirs in the roster's order
        assert screen._need_selected() == "Bo"
        screen.query_one(RosterView).select_name("Cy")
        assert screen._need_selected() == "Cy"
        screen.query_one(RosterView).select_name("Ann")  # not theirs: their first in the fight
        assert screen._need_selected() == "Bo"
    live.close()
    lost = Live.open(path, role=Role.player(["Zed", "Yan"]))
    async with _opened(_App(EncounterScreen(lost))) as (app, pilot, screen):
        with pytest.raises(TrackerError) as refused:
            screen._need_selected()
        assert str(refused.value) == "none of your combatants (Zed, Yan) is in this encounter"
    lost.close()


@pilots
@pytest.mark.parametrize(("key", "screen_class"), [("H", "HistoryScreen"), ("t", "StatsScreen"), ("e", "RosterScreen"), ("p", "ApprovalsScreen")])
async def test_the_keys_that_open_a_screen_of_the_fight_open_it_over_this_one(tmp_path: Path, key: str, screen_class: str) -> None:
    live = _live(tmp_path)
    async with _opened(_App(EncounterScreen(live))) as (app, pilot, screen):
        await pilot.press(key)
        await wait_for(pilot, lambda: type(app.screen).__name__ == screen_class, screen_class, WAIT)
        assert app.screen.live is live  # type: ignore[attr-defined]
        await screen_drawn(pilot, WAIT)
        app.screen.dismiss(None)
        await wait_for(pilot, lambda: app.screen is screen, "back on the fight", WAIT)
        assert app.said == []  # nothing changed: nothing said
    live.close()


@pilots
async def test_w_asks_the_app_for_a_replay_over_this_screen(tmp_path: Path) -> None:
    live = _live(tmp_path)
    async with _opened(_App(EncounterScreen(live))) as (app, pilot, screen):
        await pilot.press("w")
        await wait_for(pilot, lambda: bool(app.asked), "the replay asked for", WAIT)
        assert app.asked == ["replay over EncounterScreen"]
    live.close()


@pilots
@pytest.mark.parametrize(("role", "title"), [(None, "Encounter"), (Role.player(["Cy"]), "Encounter (player of Cy)"), ("viewer", "Encounter (viewer)")])
async def test_help_lists_the_roles_keys_under_a_title_naming_the_role(tmp_path: Path, role: Any, title: str) -> None:
    from tracker.play import verbs
    from tracker.ui.commands import ENCOUNTER, for_role
    from tracker.ui.screens.help import HelpScreen

    live = _live(tmp_path, viewer=role == "viewer", role=role if isinstance(role, Role) else None)
    async with _opened(_App(EncounterScreen(live))) as (app, pilot, screen):
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "the help", WAIT)
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        seen = live.seen_as
        assert help_screen.title_text == title
        assert list(help_screen.commands) == list(for_role(ENCOUNTER, seen))
        assert list(help_screen.play) == list(verbs.offered(seen.kind)) and help_screen.kind == seen.kind
    live.close()


@pilots
async def test_esc_goes_back_to_the_start_or_closes_over_another_screen_and_q_asks_to_quit(tmp_path: Path) -> None:
    live = _live(tmp_path)
    async with _opened(_App(EncounterScreen(live))) as (app, pilot, screen):
        live.run(lambda s: s.execute("note written behind"))
        await pilot.press("escape")
        await wait_for(pilot, lambda: bool(app.asked), "back to the start asked", WAIT)
        assert app.asked == ["start"] and app.screen is screen  # the app's to do
        assert any(e.kind == "note" for e in EncounterFile(live.path).load().encounter.events)  # flushed first
        live.run(lambda s: s.execute("note and another"))
        await pilot.press("q")
        await wait_for(pilot, lambda: len(app.asked) == 2, "the quit asked", WAIT)
        assert app.asked == ["start", "quit"]
        assert sum(e.kind == "note" for e in EncounterFile(live.path).load().encounter.events) == 2
    live.close()
    live = Live.open(live.path)
    async with _opened(_App(EncounterScreen(live), under=True)) as (app, pilot, screen):
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.closed, "the screen closed", WAIT)
        assert app.asked == [] and app.result is None
    live.close()


@pilots
async def test_a_write_that_fails_is_said_for_ten_seconds(tmp_path: Path) -> None:
    live = _live(tmp_path)
    async with _opened(_App(EncounterScreen(live))) as (app, pilot, screen):

        def refused(timeout: float = 30.0) -> None:
            raise TrackerError("fight.toml: the disk is full")

        live.store.flush = refused  # type: ignore[method-assign]
        screen.flush_store()
        assert app.said == [("fight.toml: the disk is full", "error", 10, True)]
    live.close()


def _fill(form: FormScreen, **values: str) -> None:
    from textual.widgets import Input

    for name, value in values.items():
        form.query_one(f"#f-{name}", Input).value = value


def _form_error(form: FormScreen) -> str:
    from textual.widgets import Label

    return str(form.query_one("#form-error", Label).render())


async def _submitted(pilot: Any, app: _App, form: FormScreen, **values: str) -> None:
    """The form's fields set, then saved: closed, or its refusal shown in it."""
    _fill(form, **values)
    form.action_submit()
    await wait_for(pilot, lambda: app.screen is not form or bool(_form_error(form)), "the form saved or refused", WAIT)


def _hp(live: Live, name: str, resource: str = "hp") -> Any:
    return live.encounter.combatant(name).resources[resource]


@pilots
async def test_the_damage_form_defaults_to_the_selected_one_and_its_first_resource(tmp_path: Path) -> None:
    live = _live(tmp_path, [*FIGHT, "add Dee mp=5 side=foes"])
    del live.encounter.combatant("Dee").resources["hp"]  # a sheet of its own, with no hp: its default is mp
    async with _opened(_App(EncounterScreen(live))) as (app, pilot, screen):
        await pilot.press("d")
        form = await _form(pilot, app)
        assert form.title_text == "Damage or heal Ann (shift+tab: others too)"
        assert _fields(form) == [
            ("who", "who", "Ann", "one name, a list (A,B) or a glob (Goblin*)", ("Ann", "Bo", "Cy", "Dee"), True),
            ("amount", "amount", "", "damage; a negative amount heals", (), False),
            ("resource", "resource", "hp", "hp", ("hp",), False),
        ]
        assert form.start == 1  # the amount has the focus: one target costs no key more
        assert form.fields[1].check is not None and form.fields[1].check("-2") == -2.0
        await pilot.press("3", "enter", "enter")
        await wait_for(pilot, lambda: app.screen is screen, "the form saved", WAIT)
        assert _hp(live, "Ann") == 7 and _on_disk(live).combatant("Ann").resources["hp"] == 7
        assert app.said == []  # the panes drew it: nothing said
        # Another one named in `who`, the resource left as it was: that one's own default.
        await pilot.press("d")
        form = await _form(pilot, app)
        await _submitted(pilot, app, form, who="Dee", amount="2")
        assert app.screen is screen and _hp(live, "Dee", "mp") == 3 and _hp(live, "Ann") == 7
        # The resource changed, for another: as chosen.
        await pilot.press("d")
        form = await _form(pilot, app)
        await _submitted(pilot, app, form, who="Bo", amount="1", resource="mp")
        assert _form_error(form) and "mp" in _form_error(form)  # Bo has no mp: refused in the form
        await _submitted(pilot, app, form, who="Ann", amount="1", resource="mp")
        assert _form_error(form) and _hp(live, "Ann") == 7
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, "the form cancelled", WAIT)
        # A resource chosen for another: as chosen.
        await pilot.press("d")
        form = await _form(pilot, app)
        await _submitted(pilot, app, form, who="Bo,Cy", amount="2", resource="hp")
        assert (_hp(live, "Bo"), _hp(live, "Cy")) == (6, 4)
        await pilot.press("d")
        form = await _form(pilot, app)
        await _submitted(pilot, app, form, who="", amount="4.0")  # no one named: the selected one
        assert _hp(live, "Ann") == 3 and type(_hp(live, "Ann")) is int
        await pilot.press("down", "down", "down", "d")
        form = await _form(pilot, app)
        assert form.title_text == "Damage or heal Dee (shift+tab: others too)"
        assert [(f.value, f.help, tuple(f.suggestions)) for f in form.fields][2] == ("mp", "mp", ("mp",))
        await _submitted(pilot, app, form, who="Ann", amount="1")  # Ann's own default, not Dee's mp
        assert _hp(live, "Ann") == 2 and _hp(live, "Dee", "mp") == 3
        await pilot.press("d")
        form = await _form(pilot, app)
        await _submitted(pilot, app, form, amount="1")
        assert _hp(live, "Dee", "mp") == 2
        await pilot.press("up", "up", "up", "d")
        form = await _form(pilot, app)
        await _submitted(pilot, app, form, amount="-1")
        assert _hp(live, "Ann") == 3
        await pilot.press("d")
        form = await _form(pilot, app)
        await _submitted(pilot, app, form, amount="")
        assert _form_error(form) == "amount: expected a number (negative heals)"
        assert _hp(live, "Ann") == 3
        await _submitted(pilot, app, form, amount="0.5")
        assert _hp(live, "Ann") == 2.5
    assert _on_disk(live).combatant("Ann").resources["hp"] == 2.5  # written, and read back
    live.close()


@pilots
async def test_the_damage_form_of_a_combatant_with_no_resources_leaves_the_resource_empty(tmp_path: Path) -> None:
    live = _live(tmp_path, ["add Ann", "add Bo hp=5"])
    live.encounter.combatant("Ann").resources.clear()  # a sheet with no resources at all
    async with _opened(_App(EncounterScreen(live))) as (app, pilot, screen):
        await pilot.press("d")
        form = await _form(pilot, app)
        assert [(f.name, f.value, f.help, tuple(f.suggestions)) for f in form.fields][2] == ("resource", "", "", ())
        await _submitted(pilot, app, form, who="Bo", amount="2")
        assert _hp(live, "Bo") == 3
    live.close()


@pilots
async def test_the_condition_form_puts_one_on_the_selected_one_or_those_named(tmp_path: Path) -> None:
    live = _live(tmp_path)
    async with _opened(_App(EncounterScreen(live))) as (app, pilot, screen):
        await pilot.press("down", "c")
        form = await _form(pilot, app)
        assert form.title_text == "Condition on Bo (shift+tab: others too)"
        assert _fields(form) == [
            ("who", "who", "Bo", "one name, a list (A,B) or a glob (Goblin*)", ("Ann", "Bo", "Cy"), True),
            ("condition", "condition", "", "e.g. stunned", (), False),
            ("segments", "segments", "", "how long it lasts", (), False),
        ]
        assert form.start == 1
        with pytest.raises(TrackerError, match="segments: expected a whole number, got 'x'"):
            form.fields[2].check("x")  # type: ignore[misc]
        await _submitted(pilot, app, form, condition="stunned", segments="3")
        assert app.screen is screen and live.encounter.combatant("Bo").conditions == {"stunned": 3}
        await pilot.press("c")
        form = await _form(pilot, app)
        await _submitted(pilot, app, form, who=" ", condition="prone", segments="2")
        assert "prone" in live.encounter.combatant("Bo").conditions  # blank: the selected one
        await pilot.press("c")
        form = await _form(pilot, app)
        await _submitted(pilot, app, form, who="Ann,Cy", condition="dazed", segments="2")
        assert "dazed" in live.encounter.combatant("Ann").conditions and "dazed" in live.encounter.combatant("Cy").conditions
        assert "dazed" not in live.encounter.combatant("Bo").conditions
        assert "dazed" in _on_disk(live).combatant("Cy").conditions
    live.close()


@pilots
async def test_schedule_and_surprise_default_to_the_next_segment(tmp_path: Path) -> None:
    live = _live(tmp_path, [*FIGHT, "step 4"])
    async with _opened(_App(EncounterScreen(live))) as (app, pilot, screen):
        await pilot.press("s")
        form = await _form(pilot, app)
        assert form.title_text == "Schedule an event"
        assert _fields(form) == [("segment", "segment", "5", "after 4", (), False), ("text", "what", "", "what happens then", (), False)]
        assert form.start == 0  # the segment first
        with pytest.raises(TrackerError, match="segment: expected a whole number, got 'x'"):
            form.fields[0].check("x")  # type: ignore[misc]
        await _submitted(pilot, app, form, segment="7", text="the bridge falls")
        assert app.screen is screen
        assert [(seg, what) for seg, what in live.encounter.upcoming() if "bridge" in what] == [(7, "the bridge falls")]
        await pilot.press("down", "down", "S")
        form = await _form(pilot, app)
        assert form.title_text == "Surprise Cy"
        assert _fields(form) == [("until", "until", "5", "may not initiate before this segment", (), False)]
        with pytest.raises(TrackerError, match="segment: expected a whole number, got 'y'"):
            form.fields[0].check("y")  # type: ignore[misc]
        await _submitted(pilot, app, form, until="6")
        assert app.screen is screen and _on_disk(live).combatant("Cy").surprised_until == 6
    live.close()


@pilots
async def test_hide_switches_the_selected_one_and_says_so(tmp_path: Path) -> None:
    live = _live(tmp_path)
    async with _opened(_App(EncounterScreen(live))) as (app, pilot, screen):
        await pilot.press("down", "h")
        await wait_for(pilot, lambda: live.encounter.combatant("Bo").hidden, "Bo hidden", WAIT)
        assert len(app.said) == 1 and "Bo" in app.said[0][0] and app.said[0][1:] == ("information", 4, False)  # not quiet
        await pilot.press("h")
        await wait_for(pilot, lambda: not live.encounter.combatant("Bo").hidden, "Bo shown again", WAIT)
        assert not _on_disk(live).combatant("Bo").hidden and len(app.said) == 2
    live.close()


@pilots
async def test_keep_asks_before_letting_an_interrupted_action_stand(tmp_path: Path) -> None:
    from tracker.engine.model import INTERRUPTED
    from tracker.ui.screens.confirm import ConfirmScreen

    live = _live(tmp_path, [*FIGHT, "declare Ann attack target=Bo pt=10"])
    async with _opened(_App(EncounterScreen(live))) as (app, pilot, screen):
        await pilot.press("down", "k")  # Bo has nothing interrupted
        await wait_for(pilot, lambda: bool(app.said), "the refusal", WAIT)
        assert app.said == [("Bo has no action interrupted by throwback to keep (rule: throwback)", "error", 6, True)]
        # Throwback interrupts Ann's attack (as tests/test_ui_screen.py makes it).
        ann = live.encounter.combatant("Ann")
        action = ann.in_progress[0]
        action.status, action.ended = INTERRUPTED, 0
        ann.in_progress.remove(action)
        ann.active, ann.interrupted = None, action
        await pilot.press("up", "k")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question", WAIT)
        question = app.screen
        assert isinstance(question, ConfirmScreen)
        assert question.question == "Let Ann's interrupted attack stand (completes on segment 10)?"
        events = len(live.encounter.events)
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is screen, "no", WAIT)
        assert len(live.encounter.events) == events
        await pilot.press("k")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question again", WAIT)
        await pilot.press("y")
        await wait_for(pilot, lambda: len(live.encounter.events) == events + 1, "kept", WAIT)
        assert live.encounter.events[-1].kind == "keep" and live.encounter.events[-1].args == {"target": "Ann"}
        assert app.said[-1][1:] == ("information", 4, False)  # said, not quiet
    live.close()


@pilots
async def test_the_viewers_form_offers_the_three_modes_and_refuses_another(tmp_path: Path) -> None:
    live = _live(tmp_path)
    async with _opened(_App(EncounterScreen(live))) as (app, pilot, screen):
        await pilot.press("v")
        form = await _form(pilot, app)
        assert form.title_text == "How enemies' resources show to viewers"
        assert _fields(form) == [("mode", "enemies", "exact", "exact, label (Healthy/Bloodied/Down) or hidden", ("exact", "label", "hidden"), False)]
        check = form.fields[0].check
        assert check is not None and check("label") is None
        with pytest.raises(TrackerError) as bad:
            check("blurred")
        assert str(bad.value) == "viewers: expected one of exact, label, hidden, got 'blurred'"
        await _submitted(pilot, app, form, mode="label")
        assert app.screen is screen and _on_disk(live).table["viewer_resources"] == "label"
        await pilot.press("v")
        form = await _form(pilot, app)
        assert form.fields[0].value == "label"  # as it now is
    live.close()


@pilots
async def test_a_gms_roll_may_be_secret_and_a_players_has_no_such_field(tmp_path: Path) -> None:
    live = _live(tmp_path)
    async with _opened(_App(EncounterScreen(live))) as (app, pilot, screen):
        await pilot.press("R")
        form = await _form(pilot, app)
        assert form.title_text == "Roll dice for the table"
        assert _fields(form) == [
            ("dice", "dice", "", "the game's notation: 2d10, 5d+1wd, 3D+1, 3d6+2", (), False),
            ("secret", "secret", "false", "true: players and viewers see nothing of it", ("true", "false"), False),
        ]
        assert form.start == 0  # the dice first
        check = form.fields[1].check
        assert check is not None
        with pytest.raises(TrackerError):
            check("maybe")
        await _submitted(pilot, app, form, dice="2d10", secret="true")
        assert app.screen is screen
        roll = live.encounter.events[-1]
        assert roll.kind == "roll" and roll.args.get("secret") is True
        await pilot.press("R")
        form = await _form(pilot, app)
        await _submitted(pilot, app, form, dice="1d6", secret="")  # left empty: not secret
        assert live.encounter.events[-1].kind == "roll" and not live.encounter.events[-1].args.get("secret")
    live.close()
    player = Live.open(live.path, role=Role.player(["Ann"]))
    async with _opened(_App(EncounterScreen(player))) as (app, pilot, screen):
        await pilot.press("R")
        form = await _form(pilot, app)
        assert [f.name for f in form.fields] == ["dice"]
        await _submitted(pilot, app, form, dice="3d6+2")
        assert app.screen is screen and player.encounter.events[-1].kind == "roll" and not player.encounter.events[-1].args.get("secret")
        assert player.encounter.events[-1].by.startswith("player:")
    player.close()


@pilots
async def test_a_note_goes_to_the_log(tmp_path: Path) -> None:
    live = _live(tmp_path)
    async with _opened(_App(EncounterScreen(live))) as (app, pilot, screen):
        await pilot.press("N")
        form = await _form(pilot, app)
        assert form.title_text == "Note for the log"
        assert _fields(form) == [("text", "note", "", "what happened", (), False)]
        await pilot.press(*"the [b]roof[/b] gives", "enter")
        await wait_for(pilot, lambda: app.screen is screen, "the note saved", WAIT)
        assert live.encounter.events[-1].kind == "note" and live.encounter.events[-1].args["text"] == "the [b]roof[/b] gives"
        assert _on_disk(live).events[-1].args["text"] == "the [b]roof[/b] gives"
    live.close()


@pilots
async def test_f_and_slash_filter_the_log_and_its_title_says_how(tmp_path: Path) -> None:
    live = _live(tmp_path, [*FIGHT, "note a [b]quiet[/b] night", "damage Bo 2"])
    async with _opened(_StyledApp(EncounterScreen(live))) as (app, pilot, screen):
        log = screen.query_one(CombatLog)
        await pilot.press("down", "f")
        await wait_for(pilot, lambda: log.only == "Bo", "only Bo's lines", WAIT)
        assert _title(screen, "log") == "Combat log: Bo"
        await pilot.press("slash")
        form = await _form(pilot, app)
        assert form.title_text == "Search the combat log"
        assert _fields(form) == [("text", "search", "", "text in the log (empty: every line)", (), False)]
        await _submitted(pilot, app, form, text="takes")
        await wait_for(pilot, lambda: log.search == "takes", "the search", WAIT)
        assert app.screen is screen and log.only == "Bo"
        assert _title(screen, "log") == "Combat log: Bo “takes”"
        await pilot.press("f")
        await wait_for(pilot, lambda: log.only is None, "every one's lines", WAIT)
        assert _title(screen, "log") == "Combat log “takes”" and log.search == "takes"
        await pilot.press("slash")
        form = await _form(pilot, app)
        assert form.fields[0].value == "takes"  # the search as it stands
        form.action_cancel()
        await wait_for(pilot, lambda: app.screen is screen, "the search cancelled", WAIT)
        assert log.search == "takes"  # Esc changes nothing
        await pilot.press("slash")
        form = await _form(pilot, app)
        await _submitted(pilot, app, form, text="")
        await wait_for(pilot, lambda: log.search == "", "every line", WAIT)
        assert _title(screen, "log") == "Combat log"
        await pilot.press("f")
        await wait_for(pilot, lambda: log.only == "Bo", "Bo's again", WAIT)
        live.run(lambda s: s.execute("rename Bo B[o]b"))  # the filter moves with the rename
        await wait_for(pilot, lambda: _title(screen, "log") == "Combat log: B[o]b", "the title renamed", WAIT)
        await pilot.press("slash")
        form = await _form(pilot, app)
        await _submitted(pilot, app, form, text="a search far too long for the title of the log's pane")
        await wait_for(pilot, lambda: log.search.startswith("a search"), "the long search", WAIT)
        title = screen.query_one("#log-title", Static)
        await screen_drawn(pilot, WAIT)
        drawn = "".join(segment.text for segment in title.render_line(0)).rstrip()
        assert drawn.endswith("…") and drawn.startswith("Combat log: B[o]b “a search")  # its one row, cut where it ends
    live.close()


@pilots
async def test_page_keys_scroll_the_log_a_page_less_a_row_and_the_arrows_pan_the_timeline(tmp_path: Path) -> None:
    live = _live(tmp_path, [*FIGHT, *[f"note line {i}" for i in range(40)]])
    async with _opened(_App(EncounterScreen(live))) as (app, pilot, screen):
        log, timeline = screen.query_one(CombatLog), screen.query_one(TimelineView)
        await wait_for(pilot, lambda: log.max_scroll_y > 0 and log.scroll_y == log.max_scroll_y, "the log at its end", WAIT)
        page = log.scrollable_content_region.height - 1
        assert page >= 1
        end = log.scroll_y
        await pilot.press("pageup")
        await wait_for(pilot, lambda: log.scroll_y == end - page, "a page back", WAIT)
        await pilot.press("pageup")
        await wait_for(pilot, lambda: log.scroll_y == max(0, end - 2 * page), "two pages back", WAIT)
        await pilot.press("pagedown")
        await wait_for(pilot, lambda: log.scroll_y == max(0, end - 2 * page) + page, "a page on", WAIT)
        assert timeline.pan == 0
        await pilot.press("right")
        await wait_for(pilot, lambda: timeline.pan == 10, "ten on", WAIT)
        await pilot.press("right", "left", "left", "left")
        await wait_for(pilot, lambda: timeline.pan == -10, "ten back", WAIT)
        await pilot.press("home")
        await wait_for(pilot, lambda: timeline.pan == 0, "now", WAIT)
    live.close()


# ------------------------------------------------------------------ proposals, as they change
def _proposing(tmp_path: Path) -> Path:
    """A fight whose players' declarations wait for the GM's approval."""
    from tests.test_players import open_as

    path = make_file(tmp_path, "freeform", FIGHT)
    open_as(path, "alice").execute("setting player_declarations approval")
    return path


def _by(path: Path, user: str, line: str, role: Role | None = None, mine: Live | None = None) -> Any:
    """`line` played on the file by another session (another account's app), once `mine`
    (the screen's) has written what it changed."""
    from tests.test_players import open_as

    if mine is not None:
        mine.store.flush()
    return open_as(path, user, role).execute(line)


@pilots
async def test_the_gm_is_told_once_of_each_new_proposal_waiting(tmp_path: Path) -> None:
    path = _proposing(tmp_path)
    first = _by(path, "bob", "declare Ann attack target=Bo pt=4", Role.player(["Ann"])).event.seq
    live = Live.open(path)
    async with _opened(_App(EncounterScreen(live))) as (app, pilot, screen):
        assert app.said == []  # one waiting when the screen opened: the clock bar counts it
        seq = _by(path, "dan", "declare Cy bite target=Ann pt=3", Role.player(["Cy"])).event.seq
        assert live.poll()
        await wait_for(pilot, lambda: bool(app.said), "the GM told", WAIT)
        assert app.said == [("player dan proposes Cy, bite against Ann (p: approve, edit or refuse)", "information", 6, True)]
        live.run(lambda s: s.execute("note still waiting"))
        assert len(app.said) == 1  # told once
        live.run(lambda s: s.refuse(first, "no"))
        live.run(lambda s: s.approve(seq))
        assert len(app.said) == 1  # the GM's own answers are not told back
        assert screen._told == {first: "refused", seq: "approved"}
    live.close()


@pilots
async def test_a_player_is_told_the_gms_answer_to_their_own_and_nothing_of_others(tmp_path: Path) -> None:
    path = _proposing(tmp_path)
    live = Live.open(path, role=Role.player(["Ann"]))
    async with _opened(_App(EncounterScreen(live))) as (app, pilot, screen):
        screen._declared(live.run(lambda s: s.execute("declare Ann attack target=Bo pt=4")))  # as the form hands it back
        mine = live.encounter.events[-1].seq
        assert live.encounter.events[-1].kind == "propose"
        assert app.said == [(f"proposal {mine} (Ann, attack against Bo): waiting for the GM's approval; u takes it back", "information", 6, True)]
        theirs = _by(path, "dan", "declare Cy bite target=Ann pt=3", Role.player(["Cy"]), live).event.seq
        assert live.poll()
        _by(path, "alice", f"refuse {theirs} too slow", None, live)
        assert live.poll() and len(app.said) == 1  # not hers: nothing
        _by(path, "alice", f"refuse {mine} not [b]now[/b]", None, live)
        assert live.poll()
        await wait_for(pilot, lambda: len(app.said) == 2, "her answer", WAIT)
        assert app.said[-1] == (f"proposal {mine} (Ann, attack against Bo): refused by the GM: not [b]now[/b]", "warning", 8, True)
        second = live.run(lambda s: s.execute("declare Ann attack target=Bo pt=4")).event.seq  # type: ignore[union-attr]
        screen._declared(live.run(lambda s: s.roll("1d6")))  # not a proposal: nothing more
        assert len(app.said) == 2
        _by(path, "alice", f"refuse {second}", None, live)
        assert live.poll()
        await wait_for(pilot, lambda: len(app.said) == 3, "a refusal with no reason", WAIT)
        assert app.said[-1] == (f"proposal {second} (Ann, attack against Bo): refused by the GM", "warning", 8, True)
        third = live.run(lambda s: s.execute("declare Ann attack target=Bo pt=4")).event.seq  # type: ignore[union-attr]
        _by(path, "alice", f"approve {third}", None, live)
        assert live.poll()
        await wait_for(pilot, lambda: len(app.said) == 4, "approved", WAIT)
        assert app.said[-1] == (f"proposal {third} (Ann, attack against Bo): approved by the GM", "information", 8, True)
    live.close()


@pilots
async def test_a_player_is_told_of_an_approval_with_changes_and_of_a_lapse(tmp_path: Path) -> None:
    path = _proposing(tmp_path)
    live = Live.open(path, role=Role.player(["Ann"]))
    async with _opened(_App(EncounterScreen(live))) as (app, pilot, screen):
        first = live.run(lambda s: s.execute("declare Ann attack target=Bo pt=4")).event.seq  # type: ignore[union-attr]
        _by(path, "alice", f"approve {first} pt=6", None, live)
        assert live.poll()
        await wait_for(pilot, lambda: bool(app.said), "approved with changes", WAIT)
        changes = live.encounter.proposals[first].changes
        assert changes and "6" in changes
        assert app.said == [(f"proposal {first} (Ann, attack against Bo): approved by the GM with changes: {changes}", "information", 8, True)]
        _by(path, "alice", "step 7", None, live)  # her attack lands on 6
        assert live.poll()
        second = live.run(lambda s: s.execute("declare Ann attack target=Cy pt=4")).event.seq  # type: ignore[union-attr]
        _by(path, "alice", "step 1", None, live)
        assert live.poll()
        await wait_for(pilot, lambda: len(app.said) == 2, "lapsed", WAIT)
        assert app.said[-1] == (f"proposal {second} (Ann, attack against Cy): lapsed: time moved on before the GM answered", "warning", 8, True)
        third = live.run(lambda s: s.execute("declare Ann attack target=Cy pt=4")).event.seq  # type: ignore[union-attr]
        live.run(lambda s: s.takeback())  # withdrawn: her own, told as she made it
        assert live.encounter.proposals[third].status == "withdrawn" and len(app.said) == 2
        assert screen._told[third] == "withdrawn"
    live.close()


# ------------------------------------------------------------------ what a command did, said
@pilots
async def test_what_a_command_did_is_a_short_notice_or_a_view_of_its_own(tmp_path: Path) -> None:
    from tracker.engine.model import Event
    from tracker.play.session import Outcome
    from tracker.ui.screens.help import ListingScreen

    live = _live(tmp_path)
    async with _opened(_App(EncounterScreen(live))) as (app, pilot, screen):
        note = Event("note", {"text": "x"})
        screen.after_change(Outcome(note, ["said"]))  # quiet: the panes drew it
        screen.after_change(None, quiet=False)
        screen.after_change(Outcome(note, []), quiet=False)  # nothing to say
        assert app.said == []
        screen.after_change(Outcome(note, ["[b]Ann[/b] \x1b[31mred"]), quiet=False)
        assert app.said == [("[b]Ann[/b] ␛[31mred", "information", 4, False)]  # as text: printable, no markup
        long = [f"line {i} of a change that is long enough to wrap" for i in range(3)]  # 2 rows each at 35 cells
        assert notice_width(80) == 35 and len(wrap(long[0], 35)) == 2
        screen.after_change(Outcome(note, long), quiet=False)
        assert app.said[-1] == ("\n".join([*wrap(long[0], 35), TO_THE_LOG]), "information", 6, False)
        assert type(app.screen) is EncounterScreen  # in the log: cut, not a view of its own
        screen.after_change(Outcome(None, ["a", "b", "c"]), quiet=False)  # fits: no view
        assert app.said[-1] == ("a\nb\nc", "information", 4, False)
        said = len(app.said)
        screen.after_change(Outcome(None, [*long, "\x07bell"]), quiet=False)  # not in the log, too long: whole
        await wait_for(pilot, lambda: isinstance(app.screen, ListingScreen), "the answer's view", WAIT)
        listing = app.screen
        assert isinstance(listing, ListingScreen) and listing.title_text == "Result" and listing.lines == [*long, "␇bell"]
        assert len(app.said) == said
        listing.dismiss(None)
        await wait_for(pilot, lambda: app.screen is screen, "back", WAIT)
        screen.after_change(Outcome(Event("undo", {"target": 1}), long), quiet=False)  # an undo's lines: not the log's
        await wait_for(pilot, lambda: isinstance(app.screen, ListingScreen), "the undo's view", WAIT)
        app.screen.dismiss(None)
        await wait_for(pilot, lambda: app.screen is screen, "back again", WAIT)
        screen.after_change(Outcome(Event("redo", {"target": 1}), long), quiet=False)
        await wait_for(pilot, lambda: isinstance(app.screen, ListingScreen), "the redo's view", WAIT)
    live.close()


@pilots
async def test_a_wider_terminal_says_more_in_a_notice(tmp_path: Path) -> None:
    from tracker.engine.model import Event
    from tracker.play.session import Outcome

    live = _live(tmp_path)
    async with _opened(_App(EncounterScreen(live)), size=(130, 24)) as (app, pilot, screen):
        long = [f"line {i} of a change that is long enough to wrap" for i in range(3)]  # a row each at 60 - 4
        assert notice_width(130) == 56
        screen.after_change(Outcome(Event("note", {"text": "x"}), long), quiet=False)
        assert app.said == [("\n".join(long), "information", 4, False)]
    live.close()


# ------------------------------------------------------------------ the `:` line
@pilots
async def test_the_command_line_offers_the_roles_verbs_and_the_names_it_may_see(tmp_path: Path) -> None:
    from tracker.play import verbs

    many = [f"add Goblin{i:02} hp=3 side=foes" for i in range(52)]
    live = _live(tmp_path, [*FIGHT, *many, "hide Cy"])
    async with _opened(_App(EncounterScreen(live))) as (app, pilot, screen):
        await pilot.press("colon")
        form = await _form(pilot, app)
        assert form.title_text == "Command"
        names = ["Ann", "Bo", "Cy", *[f"Goblin{i:02}" for i in range(52)]]
        field = form.fields[0]
        assert (field.name, field.label, field.value, field.help) == ("line", ":", "", "a play command, e.g. damage Sphinx 5")
        assert list(field.suggestions) == verbs.completions(names[:50], "gm")  # the GM sees Cy, hidden from viewers
        assert "damage Goblin46 " in field.suggestions and "damage Goblin47 " not in field.suggestions
        assert list(field.listed) == names and field.multiple is False
        assert form.note == "; ".join(v.usage_for("gm") for v in verbs.offered("gm")[:4]) + "; ... (? lists all)"
        await _submitted(pilot, app, form, line="damage Bo 3")
        assert app.screen is screen and _hp(live, "Bo") == 5
        await wait_for(pilot, lambda: bool(app.said), "what it did", WAIT)
        assert len(app.said) == 1 and "Bo" in app.said[0][0] and app.said[0][1:] == ("information", 4, False)
        await pilot.press("colon")
        form = await _form(pilot, app)
        await _submitted(pilot, app, form, line="")  # nothing typed: nothing done, nothing said
        assert app.screen is screen and len(app.said) == 1
        await pilot.press("colon")
        form = await _form(pilot, app)
        await _submitted(pilot, app, form, line="damage Nobody 3")
        assert "Nobody" in _form_error(form) and app.screen is form  # refused in the form
        await _submitted(pilot, app, form, line="end")  # a fight of its own: refused as the line's other refusals
        assert _form_error(form) == "fight is a fight of its own, not of a campaign: nothing to end (rule: end)"
        await _submitted(pilot, app, form, line="dmg [b]x")  # a line the language cannot read: execute says why
        assert _form_error(form) and app.screen is form
        await _submitted(pilot, app, form, line="undo")  # not a campaign's: the fight's own undo
        assert app.screen is screen and _hp(live, "Bo") == 8
    live.close()
    player = Live.open(live.path, role=Role.player(["Ann"]))
    async with _opened(_App(EncounterScreen(player))) as (app, pilot, screen):
        await pilot.press("colon")
        form = await _form(pilot, app)
        field = form.fields[0]
        seen = [n for n in names if n != "Cy"]  # hidden: never completed for a player
        assert field.help == "a play command, e.g. roll 2d10"
        assert list(field.suggestions) == verbs.completions(seen[:50], "player") and list(field.listed) == seen
        assert form.note == "; ".join(v.usage_for("player") for v in verbs.offered("player")[:4]) + "; ... (? lists all)"
        await _submitted(pilot, app, form, line="end")  # not the GM's: the session refuses it, in the form
        assert "end" in _form_error(form) and app.screen is form
    player.close()


# ------------------------------------------------------------------ a campaign's fight
def _campaign_fight(tmp_path: Path) -> Path:
    from tests.campaign_ui import make_campaign, make_fight

    road = make_campaign(tmp_path, "freeform", "The [Long] Road", {"Seraph": {"hp": "12"}})
    return make_fight(road, "ambush", "Ambush", ["add Wolf hp=5 side=foes"])


@pilots
async def test_a_campaigns_fight_names_its_campaign_by_its_title_read_once(tmp_path: Path) -> None:
    from tracker.ui.widgets.clock import ClockBar

    live = Live.open(_campaign_fight(tmp_path))
    async with _opened(_App(EncounterScreen(live)), size=(120, 24)) as (app, pilot, screen):
        await wait_for(pilot, lambda: live.campaign_title == "The [Long] Road", "the title read", WAIT)
        await wait_for(pilot, lambda: "campaign: The [Long] Road" in str(screen.query_one(ClockBar).render()), "the clock bar names it", WAIT)
    live.campaign_title = "Kept"  # read once: a second screen does not read it again
    async with _opened(_App(EncounterScreen(live)), size=(120, 24)) as (app, pilot, screen):
        await screen_drawn(pilot, WAIT)
        assert not app.workers and live.campaign_title == "Kept"
    live.close()
    fight = live.path
    (fight.parent / "road.campaign.toml").write_text("not [ a campaign", encoding="utf-8")
    broken = Live.open(fight)
    async with _opened(_App(EncounterScreen(broken)), size=(120, 24)) as (app, pilot, screen):
        await wait_for(pilot, lambda: not app.workers, "the campaign read", WAIT)
        await pilot.pause()
        await screen_drawn(pilot, WAIT)  # what the reading thread handed back, taken
        assert broken.campaign_title == "" and app.said == [] and app.errors == []  # the file's name stands, quietly
        assert "campaign: road" in str(screen.query_one(ClockBar).render())
    broken.close()
    (tmp_path / "alone").mkdir()
    alone = _live(tmp_path / "alone")
    async with _opened(_App(EncounterScreen(alone))) as (app, pilot, screen):
        assert not app.workers and alone.campaign_title == ""  # a fight of its own: nothing to read
    alone.close()


@pilots
async def test_e_ends_a_campaigns_fight_after_its_preview_and_u_reopens_it_through_the_campaign(tmp_path: Path) -> None:
    from tracker.ui.screens.end import EndScreen

    from tests.campaign_ui import load

    fight = _campaign_fight(tmp_path)
    live = Live.open(fight, user="kim")
    async with _opened(_App(EncounterScreen(live))) as (app, pilot, screen):
        await pilot.press("E")
        await wait_for(pilot, lambda: isinstance(app.screen, EndScreen), "the end's preview", WAIT)
        assert app.screen.outcome == ""  # type: ignore[attr-defined]
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is screen, "nothing changed", WAIT)
        assert not live.encounter.ended and app.said == []
        await pilot.press("colon")
        form = await _form(pilot, app)
        await _submitted(pilot, app, form, line="end")
        await wait_for(pilot, lambda: isinstance(app.screen, EndScreen), "the end asked with no outcome", WAIT)
        assert app.screen.outcome == ""  # type: ignore[attr-defined]
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is screen, "nothing changed again", WAIT)
        await pilot.press("colon")
        form = await _form(pilot, app)
        await _submitted(pilot, app, form, line='end outcome="won [b]big[/b]"')
        await wait_for(pilot, lambda: isinstance(app.screen, EndScreen), "the end asked from the line", WAIT)
        end = app.screen
        assert end.outcome == "won [b]big[/b]"  # type: ignore[attr-defined]
        await wait_for(pilot, lambda: end.preview is not None, "the preview", WAIT)  # type: ignore[attr-defined]
        await pilot.press("y")
        await wait_for(pilot, lambda: app.screen is screen, "ended", WAIT)
        assert live.poll() and live.encounter.ended  # the file's: the app's follower brings it in
        await wait_for(pilot, lambda: bool(app.said), "the end said", WAIT)
        assert app.said[-1][0].endswith(TO_THE_LOG) and app.said[-1][1:] == ("information", 6, False)  # the preview is long
        said = len(app.said)
        await pilot.press("E")  # ended already: refused
        await wait_for(pilot, lambda: len(app.said) == said + 1, "the refusal", WAIT)
        assert app.said[-1][0].startswith("this fight has already ended") and app.said[-1][1] == "error"
        await pilot.press("u")
        await wait_for(pilot, lambda: len(app.said) == said + 2, "reopened through the campaign", WAIT)
        assert live.poll() and not live.encounter.ended
        walked = load(fight.parent / "road.campaign.toml").events[-1]
        assert walked.kind == "undo" and walked.by == live.session.by == "kim"  # signed by who asked
        assert live.encounter.events[-1].kind == "undo" and live.encounter.events[-1].by == "kim"
        await pilot.press("r")  # its end brought back, through the campaign too
        await wait_for(pilot, lambda: len(app.said) == said + 3, "closed again", WAIT)
        assert live.poll() and live.encounter.ended
        await pilot.press("colon")
        form = await _form(pilot, app)
        await _submitted(pilot, app, form, line="undo")
        await wait_for(pilot, lambda: len(app.said) == said + 4, "reopened from the line", WAIT)
        assert live.poll() and not live.encounter.ended
        await pilot.press("colon")
        form = await _form(pilot, app)
        await _submitted(pilot, app, form, line="redo")
        await wait_for(pilot, lambda: len(app.said) == said + 5, "closed from the line", WAIT)
        assert live.poll() and live.encounter.ended
    live.close()


# ------------------------------------------------------------------ time, declarations, undo
@pilots
async def test_time_undo_and_redo_from_the_keys(tmp_path: Path) -> None:
    live = _live(tmp_path, [*FIGHT, "declare Bo bite target=Ann pt=4"])
    async with _opened(_App(EncounterScreen(live))) as (app, pilot, screen):
        await pilot.press("full_stop")
        await wait_for(pilot, lambda: live.encounter.now == 1, "a segment on", WAIT)
        await pilot.press("n")
        await wait_for(pilot, lambda: live.encounter.now == 4, "on to the bite", WAIT)
        assert app.said == []  # the panes drew both
        await pilot.press("u")
        await wait_for(pilot, lambda: live.encounter.now == 1, "the jump undone", WAIT)
        assert len(app.said) == 1 and app.said[0][1:] == ("information", 4, False)
        await pilot.press("r")
        await wait_for(pilot, lambda: live.encounter.now == 4, "redone", WAIT)
        assert len(app.said) == 2 and _on_disk(live).now == 4
        await pilot.press("x")  # Ann has nothing in progress: refused
        await wait_for(pilot, lambda: len(app.said) == 3, "the refusal", WAIT)
        assert app.said[-1][1:] == ("error", 6, True)
        assert type(app.screen) is EncounterScreen and screen.selected == "Ann"
    live.close()


@pilots
async def test_a_declaration_opens_the_form_for_the_selected_one_and_abort_takes_it_back(tmp_path: Path) -> None:
    from tracker.ui.screens.declare import DeclareScreen

    live = _live(tmp_path)
    async with _opened(_App(EncounterScreen(live))) as (app, pilot, screen):
        await pilot.press("down", "a")
        await wait_for(pilot, lambda: isinstance(app.screen, DeclareScreen), "the declare form", WAIT)
        form = app.screen
        assert form.flow.actor == "Bo" and form.kind == "declare"  # type: ignore[attr-defined]
        form.dismiss(None)
        await wait_for(pilot, lambda: app.screen is screen, "cancelled", WAIT)
        assert app.said == []
        live.run(lambda s: s.execute("declare Bo bite target=Ann pt=4"))
        await pilot.press("x")
        await wait_for(pilot, lambda: not live.encounter.combatant("Bo").in_progress, "the bite aborted", WAIT)
        assert app.said == [] and live.encounter.events[-1].kind == "abort"  # the panes drew it
        assert _on_disk(live).events[-1].args["actor"] == "Bo"
    live.close()


@pilots
async def test_maintain_opens_the_form_where_the_game_asks_and_refuses_with_nothing_to_maintain(tmp_path: Path) -> None:
    from tracker.ui.screens.declare import DeclareScreen

    live = _live(tmp_path, [*FIGHT, "declare Bo attack target=Ann pt=2", "step 2"])
    async with _opened(_App(EncounterScreen(live))) as (app, pilot, screen):
        await pilot.press("m")  # Ann has nothing to maintain: refused at once
        await wait_for(pilot, lambda: bool(app.said), "the refusal", WAIT)
        assert app.said[-1][1:] == ("error", 6, True) and "maintain" in app.said[-1][0]
        await pilot.press("down", "m")  # freeform asks the GM each link's damage: the form
        await wait_for(pilot, lambda: isinstance(app.screen, DeclareScreen), "the maintain form", WAIT)
        form = app.screen
        assert form.flow.actor == "Bo" and form.kind == "maintain"  # type: ignore[attr-defined]
    live.close()


@pilots
async def test_a_ruleset_that_needs_no_dice_to_maintain_maintains_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tracker.play import dice_plan

    live = _live(tmp_path, [*FIGHT, "declare Bo attack target=Ann pt=2", "step 2"])
    monkeypatch.setattr(dice_plan, "maintain_takes_dice", lambda session, name: False)  # as a game whose links roll nothing
    async with _opened(_App(EncounterScreen(live))) as (app, pilot, screen):
        events = len(live.encounter.events)
        await pilot.press("down", "m")
        await wait_for(pilot, lambda: len(live.encounter.events) > events, "maintained", WAIT)
        assert type(app.screen) is EncounterScreen and app.said == []  # no form; the panes drew it
        assert live.encounter.events[-1].kind == "maintain" and _on_disk(live).events[-1].args["actor"] == "Bo"
    live.close()


@pilots
async def test_a_players_take_back_withdraws_their_own_last_declaration(tmp_path: Path) -> None:
    path = make_file(tmp_path, "freeform", FIGHT)
    live = Live.open(path, role=Role.player(["Ann"]))
    async with _opened(_App(EncounterScreen(live))) as (app, pilot, screen):
        live.run(lambda s: s.execute("declare Ann attack target=Bo pt=4"))
        assert live.encounter.combatant("Ann").in_progress
        await pilot.press("u")
        await wait_for(pilot, lambda: not live.encounter.combatant("Ann").in_progress, "taken back", WAIT)
        assert len(app.said) == 1 and app.said[0][1:] == ("information", 4, False)  # said
    live.close()


# ------------------------------------------------------------------ the panes hear every change
@pilots
async def test_every_change_reaches_the_panes_and_a_panes_fault_is_a_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    live = _live(tmp_path)
    async with _opened(_App(EncounterScreen(live))) as (app, pilot, screen):
        roster, log = screen.query_one(RosterView), screen.query_one(CombatLog)
        assert screen.changes.publish in live.listeners
        live.run(lambda s: s.execute("damage Ann 4"))
        await wait_for(pilot, lambda: any("10 -> 6" in " ".join(lines) for lines in log._lines), "the log", WAIT)
        assert roster.combatants is not None and [c.resources["hp"] for c in roster.combatants][0] == 6
        detail, timeline = screen.query_one(DetailView), screen.query_one(TimelineView)
        assert "hp 6/10" in str(detail.render()) and str(detail.render()).startswith("Ann")  # the selected one's, redrawn
        live.run(lambda s: s.execute("add Dee hp=4 side=foes"))
        assert timeline.names == ["Ann", "Bo", "Cy", "Dee"] and timeline.selected_name == "Ann"  # still following Ann

        def broken(self: RosterView, change: Any) -> None:
            raise RuntimeError("a pane's bug")

        monkeypatch.setattr(RosterView, "changed", broken)
        screen._subscribe()  # subscribed again with the broken roster: its fault is reported
        live.run(lambda s: s.execute("damage Ann 1"))
        assert "hp 5/10" in str(detail.render())  # the panes after it still heard
        await wait_for(pilot, lambda: bool(app.errors), "the fault reported", WAIT)
        assert [str(e) for e in app.errors] == ["a pane's bug"]
        assert app.said[-1][1:] == ("error", 8, False) and "a pane's bug" in app.said[-1][0]
        app.screen.dismiss(None)
        await wait_for(pilot, lambda: app.closed, "the screen closed", WAIT)
        assert screen.changes.publish not in live.listeners  # unmounted: it hears no more
    live.close()


@pilots
async def test_with_the_apps_stylesheet_a_clock_line_too_long_ends_in_an_ellipsis(tmp_path: Path) -> None:
    from tracker.ui.widgets.clock import ClockBar

    live = _live(tmp_path, ["add Ann hp=10", "add Bo hp=8 side=foes", "rename Ann Annabel-of-the-very-long-name", "rename Bo Bohemond-the-even-longer-named"])
    async with _opened(_StyledApp(EncounterScreen(live))) as (app, pilot, screen):
        clock = screen.query_one(ClockBar)
        assert len(str(clock.render())) > 80  # the line is longer than the terminal
        drawn = "".join(segment.text for segment in clock.render_line(0)).rstrip()
        assert clock.region.height == 1 and drawn.endswith("…") and drawn.strip().startswith("segment 0 · round 1")
    live.close()


@pilots
async def test_a_players_declaration_from_the_form_or_at_once_says_it_waits_for_the_gm(tmp_path: Path) -> None:
    from tracker.ui.screens.declare import DeclareScreen

    path = _proposing(tmp_path)
    _by(path, "alice", "declare Ann attack target=Bo pt=2")
    _by(path, "alice", "step 2")  # Ann's attack has just completed: she may maintain it
    live = Live.open(path, role=Role.player(["Ann"]))
    async with _opened(_App(EncounterScreen(live))) as (app, pilot, screen):
        await pilot.press("m")  # freeform asks each link's damage: the form
        await wait_for(pilot, lambda: isinstance(app.screen, DeclareScreen), "the maintain form", WAIT)
        form = app.screen
        assert isinstance(form, DeclareScreen)
        made = live.run(lambda s: s.maintain("Ann"))  # what the form's save makes
        form.dismiss(made)
        await wait_for(pilot, lambda: bool(app.said), "the maintenance said", WAIT)
        seq = made.event.seq  # type: ignore[union-attr]
        assert app.said == [(f"proposal {seq} (Ann, a maintained attack): waiting for the GM's approval; u takes it back", "information", 6, True)]
        await pilot.press("u")  # taken back
        await wait_for(pilot, lambda: live.encounter.proposals[seq].status == "withdrawn", "withdrawn", WAIT)
        said = len(app.said)
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(app.screen, DeclareScreen), "the declare form", WAIT)
        form = app.screen
        assert isinstance(form, DeclareScreen) and form.flow.actor == "Ann"
        made = live.run(lambda s: s.execute("declare Ann attack target=Cy pt=3"))
        form.dismiss(made)
        await wait_for(pilot, lambda: len(app.said) > said, "the declaration said", WAIT)
        seq = made.event.seq  # type: ignore[union-attr]
        assert app.said[-1] == (f"proposal {seq} (Ann, attack against Cy): waiting for the GM's approval; u takes it back", "information", 6, True)
        _by(path, "alice", f"approve {seq}", None, live)
        assert live.poll()
        await wait_for(pilot, lambda: len(app.said) > said + 1, "the approval said", WAIT)
        await pilot.press("x")  # an abort, made at once, waits too
        await wait_for(pilot, lambda: len(app.said) > said + 2, "the abort said", WAIT)
        abort = live.encounter.events[-1]
        assert abort.kind == "propose"
        assert app.said[-1] == (f"proposal {abort.seq} (Ann, aborting an action): waiting for the GM's approval; u takes it back", "information", 6, True)
        assert app.screen is screen
    live.close()


@pilots
async def test_the_damage_forms_resource_lists_the_selected_ones(tmp_path: Path) -> None:
    live = _live(tmp_path, ["add Eve hp=5 mp=3"])
    async with _opened(_App(EncounterScreen(live))) as (app, pilot, screen):
        await pilot.press("d")
        form = await _form(pilot, app)
        assert [(f.value, f.help, tuple(f.suggestions)) for f in form.fields][2] == ("hp", "hp, mp", ("hp", "mp"))
        await _submitted(pilot, app, form, amount="2", resource="mp")
        assert (_hp(live, "Eve"), _hp(live, "Eve", "mp")) == (5, 1)
    live.close()


@pilots
async def test_a_log_one_row_tall_pages_a_row_at_a_time(tmp_path: Path) -> None:
    live = _live(tmp_path, [*FIGHT, *[f"note line {i}" for i in range(10)]])
    async with _opened(_App(EncounterScreen(live)), size=(80, 12)) as (app, pilot, screen):  # the strip's 8 rows leave the log a row or two
        log = screen.query_one(CombatLog)
        await wait_for(pilot, lambda: log.max_scroll_y > 0 and log.scroll_y == log.max_scroll_y, "the log at its end", WAIT)
        assert log.scrollable_content_region.height <= 2  # a page less a row: none, so a row
        end = log.scroll_y
        await pilot.press("pageup")
        await wait_for(pilot, lambda: log.scroll_y == end - 1, "a row back", WAIT)
        await pilot.press("pageup")
        await wait_for(pilot, lambda: log.scroll_y == end - 2, "another row back", WAIT)
        await pilot.press("pagedown")
        await wait_for(pilot, lambda: log.scroll_y == end - 1, "a row on", WAIT)
    live.close()


@pilots
async def test_a_proposal_that_is_the_fights_first_change_names_its_player(tmp_path: Path) -> None:
    from tracker.persistence.library import new_from_roster
    from tracker.play.session import Session

    store, loaded = EncounterFile.create(tmp_path / "made.toml", "Made", "freeform", {"player_declarations": "approval"})  # `tracker new --set`
    made = Session(loaded.encounter, loaded.ruleset, store=store)
    for line in FIGHT:
        made.execute(line)
    path = new_from_roster(tmp_path / "made.toml", tmp_path / "copy.toml", "Copy")  # the roster, fresh, and no log
    live = Live.open(path)
    assert live.encounter.events == [] and live.encounter.table["player_declarations"] == "approval"
    async with _opened(_App(EncounterScreen(live))) as (app, pilot, screen):
        first = _by(path, "bob", "declare Ann attack target=Bo pt=4", Role.player(["Ann"]))
        assert first.event.kind == "propose" and first.event.seq == 1
        assert live.poll()
        await wait_for(pilot, lambda: bool(app.said), "the GM told", WAIT)
        assert app.said == [("player bob proposes Ann, attack against Bo (p: approve, edit or refuse)", "information", 6, True)]
    live.close()
