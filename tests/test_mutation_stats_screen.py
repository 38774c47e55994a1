"""Direct tests of tracker.ui.screens.stats, worked from its docstring: the figures and
charts of `tracker stats` for the open fight, as the screen's role may see them, at the
screen's width (less the scroll bar's column, never under 40), the same text the command
prints; plain text, control characters made visible; a snapshot until `g` computes it
again; Esc goes back."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from rich.text import Text
from textual.widgets import Label, Static

from tracker.engine import Event
from tracker.play.live import Live
from tracker.reading.roles import Role
from tracker.ui.screens.stats import StatsScreen
from tests.helpers import cli
from tests.test_ui_app import make_file
from tests.ui import DEADLINE, ScreenApp, wait_for

pytestmark = pytest.mark.ui

FIGHT = [
    "add Seraph hp=10",
    "add Ghost hp=6 hidden=true",
    "add Bob hp=8",
    "declare Seraph punch target=Bob pt=3",
    "step 3",
    "damage Bob 3",
    "damage Ghost 2",
]


def _printed(path: Path, width: int, viewer: bool = False) -> str:
    code, out = cli("stats", str(path), "--width", str(width), *(["--viewer"] if viewer else []))
    assert code == 0, out
    return out.rstrip("\n")


async def _screen(pilot, app: ScreenApp) -> StatsScreen:
    await wait_for(pilot, lambda: isinstance(app.screen, StatsScreen) and app.screen.figures is not None, "the figures")
    return app.screen  # type: ignore[return-value]


@pytest.mark.parametrize(("size", "width"), [((80, 24), 78), ((100, 30), 98), ((30, 24), 40)])
async def test_the_gm_reads_what_tracker_stats_prints_at_the_screens_width(tmp_path: Path, size: tuple[int, int], width: int) -> None:
    path = make_file(tmp_path, "freeform", FIGHT, name="Ford [2]")
    app = ScreenApp(StatsScreen(Live.open(path)))
    async with app.run_test(size=size) as pilot:
        screen = await _screen(pilot, app)
        assert screen.shown_text.rstrip("\n") == _printed(path, width)
        title = screen.query_one("#stats .title", Label)
        shown = title.content
        assert isinstance(shown, Text) and shown.plain == "After the fight · Ford [2] (GM's view)"
        assert shown.no_wrap and shown.overflow == "ellipsis"
        assert screen.query_one("#stats-scroll").has_focus


@pytest.mark.parametrize("role", [Role.viewer(), Role.player(["Seraph"])], ids=["viewer", "player"])
async def test_a_viewer_or_player_reads_the_viewers_figures(tmp_path: Path, role: Role) -> None:
    path = make_file(tmp_path, "freeform", FIGHT)
    live = Live.open(path)
    live.seat(role)
    app = ScreenApp(StatsScreen(live))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _screen(pilot, app)
        assert "Ghost" not in screen.shown_text
        assert str(screen.query_one("#stats .title", Label).render()) == "After the fight · fight (as viewers see it)"
        if role.is_viewer:
            assert screen.shown_text.rstrip("\n") == _printed(path, 78, viewer=True)


async def test_a_resize_draws_it_again_at_the_new_width(tmp_path: Path) -> None:
    path = make_file(tmp_path, "freeform", FIGHT)
    app = ScreenApp(StatsScreen(Live.open(path)))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _screen(pilot, app)
        await pilot.resize_terminal(100, 24)
        await wait_for(pilot, lambda: screen.shown_text.rstrip("\n") == _printed(path, 98), "the figures at 98 columns")


async def test_it_is_a_snapshot_until_g(tmp_path: Path) -> None:
    path = make_file(tmp_path, "freeform", FIGHT)
    live = Live.open(path)
    app = ScreenApp(StatsScreen(live))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _screen(pilot, app)
        before = screen.shown_text
        live.session.execute("damage Bob 4")
        await pilot.press("x")
        assert screen.shown_text == before
        await pilot.press("g")
        await wait_for(pilot, lambda: screen.shown_text.rstrip("\n") == _printed(path, 78), "the figures computed again")
        assert screen.shown_text != before


async def test_figures_that_cannot_be_computed_are_said_on_the_screen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = make_file(tmp_path, "freeform", FIGHT)
    app = ScreenApp(StatsScreen(Live.open(path)))

    def broken(*_: object, **__: object) -> None:
        raise ValueError("a log it cannot fold")

    monkeypatch.setattr("tracker.ui.screens.stats.fight_stats", broken)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, StatsScreen) and app.screen.shown_text != "", "the message")
        screen = app.screen
        assert screen.shown_text == "could not be computed: ValueError: a log it cannot fold"
        assert screen.figures is None
        await pilot.resize_terminal(90, 24)
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.closed, "Esc back")


async def test_the_text_is_plain_with_controls_made_visible(tmp_path: Path) -> None:
    path = make_file(tmp_path, "freeform", ["add Seraph hp=10"])
    live = Live.open(path)
    live.encounter.apply(Event("note", {"text": "x"}, by="gm:a"))
    app = ScreenApp(StatsScreen(live))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _screen(pilot, app)
        screen._show("[bold]Grok[/] \x1b[2J\nsecond")
        body = screen.query_one("#stats-body")
        shown = str(body.render())
        assert "[bold]Grok[/]" in shown and "\x1b" not in shown and "\u241b[2J" in shown and "\nsecond" in shown
        assert body.content.no_wrap and body.content.overflow == "crop"


async def test_esc_goes_back(tmp_path: Path) -> None:
    app = ScreenApp(StatsScreen(Live.open(make_file(tmp_path, "freeform", FIGHT))))
    async with app.run_test(size=(80, 24)) as pilot:
        await _screen(pilot, app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.closed, "Esc back")


def _held(monkeypatch: pytest.MonkeyPatch, answers: list[str]) -> list[threading.Event]:
    """fight_stats made to wait at a gate per call and answer the call's message."""
    gates = [threading.Event() for _ in answers]
    calls = iter(zip(gates, answers))

    def held(*_: object, **__: object) -> str:
        gate, answer = next(calls)
        assert gate.wait(DEADLINE)
        return answer

    monkeypatch.setattr("tracker.ui.screens.stats.fight_stats", held)
    return gates


async def test_it_says_computing_until_the_figures_come(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (gate,) = _held(monkeypatch, ["the figures"])
    app = ScreenApp(StatsScreen(Live.open(make_file(tmp_path, "freeform", FIGHT))))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, StatsScreen), "the screen")
        body = app.screen.query_one("#stats-body", Static)
        assert str(body.render()) == "computing…"
        gate.set()
        await wait_for(pilot, lambda: str(body.render()) == "the figures", "the figures drawn")


async def test_g_pressed_again_shows_only_the_last_computation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = _held(monkeypatch, ["before g", "after g"])
    app = ScreenApp(StatsScreen(Live.open(make_file(tmp_path, "freeform", FIGHT))))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, StatsScreen), "the screen")
        screen = app.screen
        await pilot.press("g")
        second.set()
        await wait_for(pilot, lambda: screen.shown_text == "after g", "the second computation drawn")
        first.set()  # the first ends last: it is not drawn over the second
        await wait_for(pilot, lambda: not any(w.is_running for w in app.workers), "the first computation ended")
        await pilot.press("x")
        assert screen.shown_text == "after g"


async def test_a_player_reads_their_own_hidden_combatant_in_full(tmp_path: Path) -> None:
    live = Live.open(make_file(tmp_path, "freeform", FIGHT))
    live.seat(Role.player(["Ghost"]))
    app = ScreenApp(StatsScreen(live))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, StatsScreen) and app.screen.figures is not None, "the figures")
        assert "Ghost" in app.screen.shown_text
