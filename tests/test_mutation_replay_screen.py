"""Direct tests of tracker.ui.screens.replay, worked from its docstrings and
docs/decisions/0054-replay.md: the replay screen shows the fight as it stood at the
segment shown (the clock bar says "replay S/LAST" first, "GM's replay" when following,
"▶ xSPEED" while playing); ←/→ move a segment, n/p to the next/previous moment, home/end
to the first/last, j takes a segment typed in, space plays and pauses, +/- change the
speed; nothing changes the fight (its `run` refuses, a change says it is read-only); Esc
goes back to now. At a served table the GM's screen tells the seat each segment it shows
(and None as it leaves); a following screen moves only with the GM's and its Esc says
who leads. The replay is made once on a thread and shared while screens show it, then
let go; a fight changed meanwhile is replayed again, at the segment shown.

The fight (freeform): Ann and Bo join, Bo's bite at Ann (PT 4) lands on 4, a note on 6,
and the fight stands at 9: its moments are 0, 4, 6 and 9. Each screen is shown in a bare
app (tests/ui.py), its notifications kept with their options."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Label

import tracker.ui.screens.replay as replay_module
from tracker.engine import TrackerError
from tracker.engine.replay import Replay
from tracker.play.live import Changed, Live
from tracker.play.replaying import Replaying
from tracker.reading.roles import PLAYER, Role
from tracker.ui.screens.encounter import EncounterScreen
from tracker.ui.screens.form import FormScreen
from tracker.ui.screens.help import HelpScreen
from tracker.ui.screens.replay import (
    FOLLOWED, READ_ONLY, FollowingScreen, ReplayScreen, ReplayView, Shared, _shown, open_replay, replay_of, start_replay,
)
from tracker.ui.seat import Seat
from tracker.ui.widgets.clock import ClockBar
from tests.test_ui_app import make_file
from tests.ui import ScreenApp, wait_for

FIGHT = ["add Ann hp=10", "add Bo hp=8 side=foes", "declare Bo bite target=Ann pt=4 damage=2", "step 6", "note the dust settles", "step 3"]
WAIT = 10.0  # a broken mutant fails fast


def _live(tmp_path: Path, lines: list[str] = FIGHT, viewer: bool = False) -> Live:
    return Live.open(make_file(tmp_path, "freeform", lines), viewer=viewer)


def _view(live: Live, segment: int, following: bool = False, reader: Role | None = None) -> ReplayView:
    return ReplayView(live, Replaying.over(Replay(live.encounter), reader or live.seen_as, segment), following)


# ------------------------------------------------------------------ the view, without a screen
def test_the_view_is_the_fight_at_the_segment_shown_and_says_so(tmp_path: Path) -> None:
    live = _live(tmp_path)
    view = _view(live, 4)
    assert view.encounter.now == 4 and view.encounter.combatant("Ann").resources["hp"] == 8
    assert view.base is live and view.path == live.path and view.store is live.store and view.viewer is False
    assert view.session is live.session and view.ruleset is live.ruleset  # the game's rules, for the panes
    assert view.banner == "replay 4/9"
    assert view.coming == 6  # the next moment: the note
    view.flow.playing, view.flow.speed = True, 2.0
    assert view.banner == "replay 4/9 ▶ x2"
    view.flow.speed = 0.25
    assert view.banner == "replay 4/9 ▶ x0.25"
    view.flow.segment = 9
    assert view.coming is None
    following = _view(live, 3, following=True)
    assert following.following and following.banner == "GM's replay 3/9"
    assert following.encounter.combatant("Ann").resources["hp"] == 10
    mine = ReplayView(live, Replaying.over(Replay(live.encounter), live.seen_as, 3))
    assert not mine.following and mine.banner == "replay 3/9"  # the default: the GM's own
    live.close()


def test_the_view_refuses_every_change_and_follows_nothing(tmp_path: Path) -> None:
    live = _live(tmp_path)
    view = _view(live, 4)
    before = len(live.encounter.events)
    with pytest.raises(TrackerError) as refused:
        view.run(lambda session: session.execute("step 1"))
    assert str(refused.value) == READ_ONLY == "the replay is read-only: esc goes back to the fight as it stands now"
    assert len(live.encounter.events) == before
    assert view.poll() is False
    assert view.follow() is None and view.unfollow() is None and view.poll() is False
    live.close()


def test_moved_tells_every_listener_the_whole_view_changed(tmp_path: Path) -> None:
    live = _live(tmp_path)
    view = _view(live, 4)
    heard: list[Changed] = []
    other: list[Changed] = []
    view.listeners.extend([heard.append, other.append])
    version = view.version
    view.moved()
    assert view.version == version + 1
    assert heard == other == [Changed((), True)] and heard[0].whole and heard[0].events == ()
    live.close()


def test_a_players_view_is_their_own_as_they_were_named_then(tmp_path: Path) -> None:
    live = _live(tmp_path, [*FIGHT, "rename Ann Anna", "step 1"], viewer=True)
    reader = Role(PLAYER, ("Anna",), ids=(live.encounter.combatant("Anna").identity,))  # held by identity
    view = _view(live, 4, reader=reader)
    assert view.seen_as.owns("Ann") and not view.seen_as.owns("Anna")  # named as then
    assert view.viewer is True and view.as_viewer("Ann") is False and view.as_viewer("Bo") is True
    assert view.seen_as is view.seen_as  # worked out once a segment
    view.flow.go(10)
    assert view.seen_as.owns("Anna") and not view.seen_as.owns("Ann")
    assert not view.as_viewer("Anna") and view.as_viewer("Ann")
    live.close()
    gms = Live.open(live.path)
    gms_view = _view(gms, 4)
    assert not gms_view.as_viewer("Bo") and gms_view.seen_as.is_gm
    gms.close()


# ------------------------------------------------------------------ made once, shared, let go
async def test_a_replay_is_made_once_and_shared_until_the_fight_changes(tmp_path: Path) -> None:
    live = _live(tmp_path)
    first = await replay_of(live)
    assert first.last == 9
    again = await replay_of(live)
    assert again is first
    shared = live.cache["replay"]
    assert isinstance(shared, Shared) and shared.screens == 0 and shared.key == (id(live.encounter), len(live.encounter.events))
    live.run(lambda session: session.execute("step 2"))
    later = await replay_of(live)
    assert later is not first and later.last == 11
    assert await replay_of(live) is later
    live.close()


async def test_a_fault_folding_the_fight_is_raised_and_forgotten(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    live = _live(tmp_path)

    def broken(encounter: Any) -> Replay:
        raise RuntimeError("fold broke")

    monkeypatch.setattr(replay_module, "Replay", broken)
    with pytest.raises(RuntimeError, match="fold broke"):
        await replay_of(live)
    assert "replay" not in live.cache
    # Two screens waiting on the same fold both hear of its fault.
    both = await asyncio.gather(replay_of(live), replay_of(live), return_exceptions=True)
    assert [str(fault) for fault in both] == ["fold broke", "fold broke"] and all(isinstance(f, RuntimeError) for f in both)
    assert "replay" not in live.cache
    monkeypatch.undo()
    assert (await replay_of(live)).last == 9  # the next try starts afresh
    live.close()


async def test_screens_showing_a_replay_are_counted_and_the_last_lets_it_go(tmp_path: Path) -> None:
    live = _live(tmp_path)
    replay = await replay_of(live)
    shared = live.cache["replay"]
    assert isinstance(shared, Shared)
    _shown(live, replay, 1)
    _shown(live, replay, 1)
    assert shared.screens == 2
    _shown(live, Replay(live.encounter), -1)  # another replay: not this one's count
    assert shared.screens == 2
    _shown(live, replay, -1)
    assert shared.screens == 1 and live.cache["replay"] is shared
    _shown(live, replay, -1)
    assert "replay" not in live.cache
    _shown(live, replay, -1)  # nothing kept: nothing to do
    assert "replay" not in live.cache
    # One being made, or one that failed, is not counted.
    loop = asyncio.get_running_loop()
    making: asyncio.Future[Replay] = loop.create_future()
    live.cache["replay"] = Shared((0, 0), making)
    _shown(live, replay, -1)
    assert live.cache["replay"].screens == 0  # type: ignore[attr-defined]
    failed: asyncio.Future[Replay] = loop.create_future()
    failed.set_exception(RuntimeError("no"))
    live.cache["replay"] = Shared((0, 0), failed)
    _shown(live, replay, -1)
    assert live.cache["replay"].screens == 0  # type: ignore[attr-defined]
    making.cancel()
    live.close()


# ------------------------------------------------------------------ the screen
class _App(ScreenApp):
    """A bare app over a screen (the encounter screen, as `w` opens a replay over it), its
    notifications kept with their options, and perhaps a seat at a served table (an app
    that is no table's has no `seat` at all)."""

    def __init__(self, screen: Any, seat: Seat | None = None) -> None:
        super().__init__(screen)
        if seat is not None:
            self.seat = seat
        self.said: list[tuple[str, str, float | None]] = []  # message, severity, timeout
        self.errors: list[BaseException] = []

    def notify(self, message: str, **options: Any) -> None:  # type: ignore[override]
        self.said.append((str(message), options.get("severity", "information"), options.get("timeout")))


def _table(kind: str = "gm", web: bool = False) -> tuple[Seat, list[int | None]]:
    told: list[int | None] = []
    return Seat(kind=kind, web=web, replayed=told.append), told


def _clock(screen: Any) -> str:
    return str(screen.query_one(ClockBar).render())


async def _opened(pilot: Any, app: _App, live: Live, segment: int | None = None, following: bool = False) -> ReplayScreen:
    await wait_for(pilot, lambda: isinstance(app.screen, EncounterScreen), "the encounter screen", WAIT)
    screen = await open_replay(app, live, segment, following)
    await wait_for(pilot, lambda: app.screen is screen and "replay" in _clock(screen), "the replay drawn", WAIT)
    return screen


async def _at(pilot: Any, screen: ReplayScreen, segment: int, banner: str) -> None:
    await wait_for(pilot, lambda: screen.flow.segment == segment and _clock(screen).startswith(banner + " "), f"{banner} shown", WAIT)


pilots = pytest.mark.ui


@pilots
async def test_the_keys_move_the_replay_and_the_gms_screen_tells_the_table(tmp_path: Path) -> None:
    live = _live(tmp_path)
    seat, told = _table()
    app = _App(EncounterScreen(live), seat)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _opened(pilot, app, live, 4)
        assert type(screen) is ReplayScreen and not screen.following
        assert told == [4]
        assert "segment 4 ·" in _clock(screen)
        await pilot.press("right")
        await _at(pilot, screen, 5, "replay 5/9")
        await pilot.press("left", "left")
        await _at(pilot, screen, 3, "replay 3/9")
        await pilot.press("n")
        await _at(pilot, screen, 4, "replay 4/9")
        await pilot.press("n")
        await _at(pilot, screen, 6, "replay 6/9")
        await pilot.press("p")
        await _at(pilot, screen, 4, "replay 4/9")
        await pilot.press("end")
        await _at(pilot, screen, 9, "replay 9/9")
        await pilot.press("home")
        await _at(pilot, screen, 0, "replay 0/9")
        assert told == [4, 5, 4, 3, 4, 6, 4, 9, 0]
        version = screen.view.version
        await pilot.press("left")  # at the first: nothing moves, nothing told; drawn again
        assert screen.flow.segment == 0 and told[-1] == 0 and len(told) == 9 and screen.view.version == version + 1
        # A change is refused, whatever a screen might ask of it.
        assert screen.change(lambda session: session.execute("step 1")) is None
        assert app.said[-1] == (READ_ONLY, "warning", None)
        assert screen.check_action("cmd", ("replay_next",)) is True and screen.check_action("cmd", ()) is False
        assert screen.check_action("focus_next", ()) is True
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, EncounterScreen) and not isinstance(app.screen, ReplayScreen), "back to now", WAIT)
        assert told[-1] is None and len(told) == 10
        assert "replay" not in live.cache  # its memory goes with it
        assert screen._fight_changed not in live.listeners
        assert app.errors == []
    live.close()


@pilots
async def test_j_takes_a_segment_typed_in(tmp_path: Path) -> None:
    live = _live(tmp_path)
    app = _App(EncounterScreen(live))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _opened(pilot, app, live, 4)
        await pilot.press("j")
        form = app.screen
        assert isinstance(form, FormScreen) and form.title_text == "Go to segment"
        (field,) = form.fields
        assert (field.name, field.label, field.value, field.help) == ("segment", "segment", "", "0 to 9 (shown: 4)")
        assert field.check is not None and field.check(" 7 ") == 7
        await pilot.press("7", "enter")
        await _at(pilot, screen, 7, "replay 7/9")
        await pilot.press("j")
        await pilot.press("enter")  # nothing typed: nothing moves
        await wait_for(pilot, lambda: app.screen is screen, "the form closed", WAIT)
        await pilot.press("j")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, "the form cancelled", WAIT)
        assert screen.flow.segment == 7
        assert app.errors == []
    live.close()


@pilots
async def test_space_plays_to_the_last_at_the_speed_set_and_pauses(tmp_path: Path) -> None:
    live = _live(tmp_path)
    seat, told = _table()
    app = _App(EncounterScreen(live), seat)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _opened(pilot, app, live, 0)
        # Slowest: a move every 4 seconds; space plays, a move at the stops.
        await pilot.press("minus", "minus", "minus")
        assert screen.flow.speed == 0.25 and screen._timer is None
        assert [m for m, _, _ in app.said[-3:]] == ["replay speed: 0.5 moves a second", "replay speed: 0.25 moves a second", "replay speed: 0.25 moves a second"]
        assert app.said[-1][1:] == ("information", 2)
        await pilot.press("space")
        await _at(pilot, screen, 0, "replay 0/9 ▶ x0.25")
        assert screen._timer is not None and screen._timer._interval == 4
        assert told == [0, 0]
        await pilot.press("plus")  # faster while playing: the next move comes sooner
        await _at(pilot, screen, 0, "replay 0/9 ▶ x0.5")
        assert screen._timer is not None and screen._timer._interval == 2
        await pilot.press("space")  # pause
        await _at(pilot, screen, 0, "replay 0/9")
        assert screen._timer is None and not screen.flow.playing
        await pilot.press("equals_sign", "plus", "plus", "plus", "plus")
        assert screen.flow.speed == 8 and screen._timer is None
        assert app.said[-1][0] == "replay speed: 8 moves a second"
        await pilot.press("space")
        await wait_for(pilot, lambda: screen.flow.segment == 9 and not screen.flow.playing, "play reaching the last", WAIT)
        await _at(pilot, screen, 9, "replay 9/9")
        assert screen._timer is None
        assert told == [0, 0, 0, 4, 6, 9]
        # From the last, space plays again from the first; a key that moves pauses it.
        await pilot.press("minus", "minus", "minus", "minus", "minus")
        await pilot.press("space")
        await _at(pilot, screen, 0, "replay 0/9 ▶ x0.25")
        await pilot.press("left")  # at the first: nothing moves, but it stops playing
        await _at(pilot, screen, 0, "replay 0/9")
        assert screen._timer is None and not screen.flow.playing
        await pilot.press("space")
        await pilot.press("escape")  # leaving stops the timer
        await wait_for(pilot, lambda: app.screen is not screen, "back to now", WAIT)
        assert screen._timer is None
        assert app.errors == []
    live.close()


@pilots
async def test_a_tick_with_nothing_to_move_draws_the_pause(tmp_path: Path) -> None:
    live = _live(tmp_path)
    seat, told = _table()
    app = _App(EncounterScreen(live), seat)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _opened(pilot, app, live, 9)
        screen.flow.playing = True
        screen.view.moved()
        await _at(pilot, screen, 9, "replay 9/9 ▶ x1")
        version = screen.view.version
        screen._tick()  # at the last: play stops, nothing told
        assert not screen.flow.playing and screen._timer is None and screen.view.version == version + 1
        await _at(pilot, screen, 9, "replay 9/9")
        assert told == [9]
    live.close()


@pilots
async def test_a_fault_of_a_move_is_a_message(tmp_path: Path) -> None:
    live = _live(tmp_path)
    app = _App(EncounterScreen(live))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _opened(pilot, app, live, 4)

        def refused() -> None:
            raise TrackerError("segment: no such segment")

        screen.flow.first = refused  # type: ignore[method-assign]
        await pilot.press("home")
        assert app.said[-1] == ("segment: no such segment", "error", 6)
        assert screen.flow.segment == 4
    live.close()


@pilots
async def test_a_fight_changed_meanwhile_is_replayed_again_at_the_segment_shown(tmp_path: Path) -> None:
    live = _live(tmp_path)
    app = _App(EncounterScreen(live))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _opened(pilot, app, live, 4)
        await pilot.press("minus")
        await pilot.press("space")
        first = screen.flow.replay
        assert live.cache["replay"].screens == 1  # type: ignore[attr-defined]
        live.run(lambda session: session.execute("step 3"))
        await _at(pilot, screen, 4, "replay 4/12 ▶ x0.5")
        assert screen.flow.replay is not first and screen.flow.playing and screen.flow.speed == 0.5
        shared = live.cache["replay"]
        assert isinstance(shared, Shared) and shared.future.result() is screen.flow.replay and shared.screens == 1
        await pilot.press("end")
        await _at(pilot, screen, 12, "replay 12/12")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is not screen, "back to now", WAIT)
        assert "replay" not in live.cache
        assert app.errors == []
    live.close()


@pilots
async def test_two_screens_share_one_replay_and_the_last_lets_it_go(tmp_path: Path) -> None:
    live = _live(tmp_path)
    app = _App(EncounterScreen(live))
    async with app.run_test(size=(80, 24)) as pilot:
        below = await _opened(pilot, app, live, 4)
        above = await open_replay(app, live, 6)
        await _at(pilot, above, 6, "replay 6/9")
        shared = live.cache["replay"]
        assert isinstance(shared, Shared) and above.flow.replay is below.flow.replay and shared.screens == 2
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is below, "the first replay again", WAIT)
        assert live.cache["replay"] is shared and shared.screens == 1
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is not below, "back to now", WAIT)
        assert "replay" not in live.cache
        assert app.errors == []
    live.close()


@pilots
async def test_a_fight_cut_shorter_meanwhile_keeps_the_replay_within_it(tmp_path: Path) -> None:
    live = _live(tmp_path)
    app = _App(EncounterScreen(live))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _opened(pilot, app, live, 9)
        live.run(lambda session: session.execute("undo"))  # the last step taken back: the fight at 6
        await _at(pilot, screen, 6, "replay 6/6")
        assert app.errors == []
    live.close()


@pilots
async def test_a_following_screen_moves_only_with_the_gms(tmp_path: Path) -> None:
    live = _live(tmp_path, viewer=True)
    seat, told = _table("viewer")
    app = _App(EncounterScreen(live), seat)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _opened(pilot, app, live, 4, following=True)
        assert type(screen) is FollowingScreen and screen.following and screen.view.following
        await _at(pilot, screen, 4, "GM's replay 4/9")
        await pilot.press("right", "home", "space", "j")
        assert screen.flow.segment == 4 and app.screen is screen and not screen.flow.playing
        assert screen.check_action("cmd", ("replay_next",)) is False and screen.check_action("cmd", ("history",)) is True
        screen.follow(7)
        await _at(pilot, screen, 7, "GM's replay 7/9")
        screen.follow(12)
        await _at(pilot, screen, 9, "GM's replay 9/9")
        screen.follow(-2)
        await _at(pilot, screen, 0, "GM's replay 0/9")
        await pilot.press("escape")
        assert app.screen is screen
        assert app.said[-1] == (FOLLOWED, "information", 6)
        assert FOLLOWED == "The GM leads this replay: your screen moves with the GM's and goes back to now with it"
        assert told == []  # a follower tells the table nothing
        screen.leave()  # the GM's replay ended
        await wait_for(pilot, lambda: app.screen is not screen, "back to now", WAIT)
        assert told == []
        assert app.errors == []
    live.close()


@pilots
async def test_leaving_from_below_a_dialog_closes_both(tmp_path: Path) -> None:
    live = _live(tmp_path, viewer=True)
    app = _App(EncounterScreen(live))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _opened(pilot, app, live, 4, following=True)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        assert str(app.screen.query_one(".title", Label).render()) == "Replay (viewer), following the GM: keys (esc closes)"
        screen.leave()
        await wait_for(pilot, lambda: type(app.screen) is EncounterScreen, "back to now under the help", WAIT)
        assert screen not in app.screen_stack and len(app.screen_stack) == 2
        assert app.errors == []
    live.close()


@pilots
@pytest.mark.parametrize(("viewer", "title"), [(False, "Replay"), (True, "Replay (viewer)")])
async def test_help_names_whose_replay(tmp_path: Path, viewer: bool, title: str) -> None:
    live = _live(tmp_path, viewer=viewer)
    app = _App(EncounterScreen(live))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _opened(pilot, app, live, 4)
        await pilot.press("question_mark")
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        assert str(help_screen.query_one(".title", Label).render()) == f"{title}: keys (esc closes)"
        assert [c.name for c in help_screen.commands][:2] == ["replay_back", "replay_forward"]
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, "the help closed", WAIT)
    live.close()


# ------------------------------------------------------------------ starting one
@pilots
async def test_w_opens_the_replay_at_the_last_segment_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    live = _live(tmp_path)
    encounter = EncounterScreen(live)
    app = _App(encounter)
    folding = asyncio.Event()
    made = replay_of

    async def slow(live: Live) -> Replay:  # a long fight: the replay takes a while to fold
        await folding.wait()
        return await made(live)

    monkeypatch.setattr(replay_module, "replay_of", slow)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.screen is encounter, "the encounter screen", WAIT)
        start_replay(encounter)
        await wait_for(pilot, lambda: getattr(encounter, "replay_opening", False) is True, "the replay opening", WAIT)
        start_replay(encounter)  # `w` again while it opens: one replay
        folding.set()
        await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen), "the replay", WAIT)
        screen = app.screen
        assert type(screen) is ReplayScreen and not screen.following  # the GM's own, not one following
        await _at(pilot, screen, 9, "replay 9/9")
        await wait_for(pilot, lambda: getattr(encounter, "replay_opening", None) is False, "the opening done", WAIT)
        assert not any(w.is_running for w in app.workers)
        assert len([s for s in app.screen_stack if isinstance(s, ReplayScreen)]) == 1
        assert not any("Preparing" in m for m, _, _ in app.said)
        assert app.errors == []
    live.close()


@pilots
@pytest.mark.parametrize(("kind", "web", "opens"), [("player", False, False), ("viewer", False, False), ("player", True, True), ("gm", False, True)])
async def test_at_a_table_only_the_gm_or_a_browser_tab_starts_a_replay(tmp_path: Path, kind: str, web: bool, opens: bool) -> None:
    live = _live(tmp_path, viewer=kind != "gm")
    encounter = EncounterScreen(live)
    seat, told = _table(kind, web)
    app = _App(encounter, seat)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.screen is encounter, "the encounter screen", WAIT)
        start_replay(encounter)
        if opens:
            await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen) and told == [9], "the replay, told", WAIT)
        else:
            assert app.said == [("At this table the GM leads the replay: your screen follows the GM's", "information", 6)]
            assert not app.workers and app.screen is encounter and told == []
    live.close()


@pilots
async def test_a_fault_opening_the_replay_is_a_message_and_w_works_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    live = _live(tmp_path)
    encounter = EncounterScreen(live)
    app = _App(encounter)

    def broken(encounter: Any) -> Replay:
        raise RuntimeError("fold broke")

    monkeypatch.setattr(replay_module, "Replay", broken)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.screen is encounter, "the encounter screen", WAIT)
        start_replay(encounter)
        await wait_for(pilot, lambda: bool(app.errors), "the fault reported", WAIT)
        assert [str(e) for e in app.errors] == ["fold broke"] and app.said[-1][1:] == ("error", 8)
        await wait_for(pilot, lambda: getattr(encounter, "replay_opening", None) is False, "the opening over", WAIT)
        monkeypatch.undo()
        start_replay(encounter)
        await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen), "the replay", WAIT)
    live.close()


@pilots
@pytest.mark.parametrize(("notes", "says"), [(1999, False), (2000, True)])
async def test_a_long_fight_says_its_replay_is_being_prepared(tmp_path: Path, notes: int, says: bool) -> None:
    live = _live(tmp_path, ["add Ann hp=10", *(f"note {n}" for n in range(notes))])
    events = len(live.encounter.events)
    assert events == notes + 1  # Ann joining, the notes
    app = _App(EncounterScreen(live))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _opened(pilot, app, live)
        assert screen.flow.segment == 0 == screen.flow.last
        preparing = [said for said in app.said if said[0].startswith("Preparing")]
        assert preparing == ([(f"Preparing the replay of {events:,} changes…", "information", 3)] if says else [])
    live.close()


@pilots
async def test_a_segment_asked_outside_the_fight_is_kept_within_it(tmp_path: Path) -> None:
    live = _live(tmp_path)
    app = _App(EncounterScreen(live))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _opened(pilot, app, live, 40)
        await _at(pilot, screen, 9, "replay 9/9")
        await pilot.press("escape")
        screen = await _opened(pilot, app, live, -3)
        await _at(pilot, screen, 0, "replay 0/9")
    live.close()
