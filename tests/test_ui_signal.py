"""A change reaches the panes as one signal carrying the appended events
(tracker.play.live.Changed; tracker.ui.screens.encounter subscribes the panes), and each
pane redraws only when the events may change what it shows."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.test_ui_app import encounter_screen, make_file
from tests.ui import burst, settle
from tracker.engine import TrackerError
from tracker.persistence.store import EncounterFile
from tracker.play.session import Session
from tracker.ui.app import TrackerApp
from tracker.play.live import Changed, Live, WriteBehindStore

SIZE = (80, 24)


def elsewhere(path: Path) -> Session:
    """Another session on the same file (a second GM)."""
    store = EncounterFile(path)
    loaded = store.load()
    return Session(loaded.encounter, loaded.ruleset, store=store)


def until(condition: Callable[[], bool], what: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.01)


def test_a_change_is_told_once_with_the_events_it_appended(tmp_path: Path) -> None:
    path = make_file(tmp_path, "freeform", ["add Seraph hp=10"])
    live = Live.open(path)
    heard: list[Changed] = []
    live.listeners.append(heard.append)
    live.run(lambda s: s.note("the door creaks"))
    assert len(heard) == 1 and not heard[0].whole
    assert [(e.kind, e.args["text"]) for e in heard[0].events] == [("note", "the door creaks")]
    assert heard[0].events[0] is live.encounter.events[-1]
    with pytest.raises(TrackerError):
        live.run(lambda s: s.damage("Nobody", 3))
    assert len(heard) == 1  # refused: nothing changed, nothing told
    live.run(lambda s: s.damage("Seraph", 3))
    assert [e.kind for e in heard[-1].events] == ["damage"] and len(heard) == 2
    live.store.flush()


def test_another_sessions_change_is_told_when_folded_in(tmp_path: Path) -> None:
    path = make_file(tmp_path, "freeform", ["add Seraph hp=10"])
    live = Live.open(path, viewer=True)
    heard: list[Changed] = []
    live.listeners.append(heard.append)
    other = elsewhere(path)
    other.note("from the other table")
    other.damage("Seraph", 2)
    assert live.poll()  # no follower: the poll reads the file
    assert len(heard) == 1 and not heard[0].whole
    assert [e.kind for e in heard[0].events] == ["note", "damage"]
    assert not live.poll() and len(heard) == 1  # nothing new: nothing told
    # The file replaced by another fight: everything may differ.
    replacement = make_file(tmp_path, "freeform", ["add Sphinx hp=30"], name="other")
    replacement.replace(path)
    assert live.poll()
    assert heard[-1].whole and "Sphinx" in live.encounter.combatants


def test_a_change_the_event_loop_did_not_take_is_announced_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No timer on the screen: while this session's own writes go out, `poll` leaves a
    change the follower read, and the follower says so again until it is taken."""
    path = make_file(tmp_path, "freeform", ["add Seraph hp=10"])
    live = Live.open(path, viewer=True)
    told: list[float] = []
    live.follow(0.02, lambda: told.append(time.monotonic()))
    try:
        monkeypatch.setattr(WriteBehindStore, "pending", property(lambda self: False))
        elsewhere(path).note("while we write")
        until(lambda: len(told) >= 1, "the follower tells of the change")
        monkeypatch.setattr(WriteBehindStore, "pending", property(lambda self: True))
        assert not live.poll()  # our own writes are going out: left for later
        monkeypatch.setattr(WriteBehindStore, "pending", property(lambda self: False))
        seen = len(told)
        until(lambda: len(told) > seen, "the change announced again")
        assert live.poll() and live.encounter.events[-1].args["text"] == "while we write"
    finally:
        live.close()


@pytest.mark.ui
async def test_a_note_redraws_the_log_alone(saves: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tracker.ui.widgets.upcoming import UpcomingView
    from tracker.ui.widgets.clock import ClockBar
    from tracker.ui.widgets.log import CombatLog
    from tracker.ui.widgets.roster import DetailView, RosterView
    from tracker.ui.widgets.timeline import TimelineView

    drawn: list[str] = []
    for cls, method in ((ClockBar, "show"), (UpcomingView, "show"), (RosterView, "reload"), (DetailView, "show"), (TimelineView, "reload"), (CombatLog, "reload")):
        original = getattr(cls, method)

        def counted(self, *args, _original=original, _name=cls.__name__, **kwargs):  # type: ignore[no-untyped-def]
            drawn.append(_name)
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(cls, method, counted)
    path = make_file(saves, "freeform", ["add Seraph hp=10", "add Sphinx hp=30"])
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = encounter_screen(app)
        drawn.clear()
        burst(app, ":note only the log\r")
        await settle(pilot)
        assert set(drawn) == {"CombatLog"}, drawn
        drawn.clear()
        burst(app, ":damage Seraph 3\r")
        await settle(pilot)
        assert {"ClockBar", "UpcomingView", "RosterView", "DetailView", "TimelineView", "CombatLog"} <= set(drawn), drawn
        assert "7/10" in str(screen.query_one(DetailView).render())
        assert not app.errors


@pytest.mark.ui
async def test_a_bug_in_one_pane_is_reported_and_the_others_still_redraw(saves: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Textual's signal drops a subscriber's exception silently; the screen reports it
    as any handler's (tracker.ui.guard), and the panes after it still hear of the change."""
    from tracker.ui.widgets.clock import ClockBar
    from tracker.ui.widgets.log import CombatLog

    def broken(self: ClockBar, change: Changed) -> None:
        raise RuntimeError("the clock cannot draw")

    monkeypatch.setattr(ClockBar, "changed", broken)
    path = make_file(saves, "freeform", ["add Seraph hp=10"])
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        burst(app, ":note still logged\r")
        await settle(pilot)
        log = encounter_screen(app).query_one(CombatLog)
        assert any("still logged" in e.text for e in log.loaded)
        assert [str(e) for e in app.errors] == ["the clock cannot draw"]
        assert any("internal error: RuntimeError: the clock cannot draw" in n.message for n in app.notifications_shown)
