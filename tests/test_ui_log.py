"""The combat log on a long fight: its cost does not grow with the log (issue 10 item 7).

The widget loads only the newest entries (a bounded tail) and wraps only what a change
adds; older lines load a chunk at a time when the reader scrolls back, and a search or
a filter scans back for its matches. `CombatLog.wrapped` counts the entries wrapped: it
is the widget's work, so the tests compare it between a short and a long fight instead
of timing anything.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from rulesets.freeform import FreeformRuleset
from tracker.engine import Encounter, Event, Resolution, Setup
from tracker.persistence import codec
from tracker.persistence.store import EncounterFile
from tracker.play.session import Session
from tracker.ui.app import TrackerApp
from tracker.ui.widgets.log import CombatLog

from tests.test_ui_app import SIZE, encounter_screen
from tests.test_ui_screen import screen_text
from tests.ui import burst, press, settle, wait_for

pytestmark = pytest.mark.ui


def build(saves: Path, lines: int, name: str = "long", every: int = 0, needle_at: int = -1) -> Path:
    """A fight of `lines` one-row notes `line N`; every `every`th also a line about the
    hidden Ghost and one about Sphinx; `needle at N` once at `needle_at`."""
    enc = Encounter(Setup(name, "freeform", FreeformRuleset.time, FreeformRuleset.down_when))
    for who in ("Seraph", "Sphinx", "Ghost"):
        enc.apply(Event("add", {"name": who, "resources": {"hp": 10}}))
    enc.apply(Event("hide", {"target": "Ghost", "hidden": True}))
    for i in range(lines):
        enc.apply(Event("note", {"text": f"line {i}"}))
        if every and i % every == 0:
            enc.apply(Event("note", {"text": f"Ghost lurks {i}", "about": ["Ghost"]}))
            enc.apply(Event("note", {"text": f"Sphinx mark {i}", "about": ["Sphinx"]}))
        if i == needle_at:
            enc.apply(Event("note", {"text": f"needle at {i}"}))
    path = saves / f"{name}.toml"
    path.write_text(codec.dumps(enc, len(enc.events)))
    return path


def numbers(log: CombatLog) -> list[int]:
    """The N of each `line N` on screen, top to bottom."""
    return [int(m.group(1)) for row in screen_text(log) if (m := re.search(r"\bline (\d+)\b", row))]


async def opened_cost(saves: Path, lines: int) -> tuple[int, int]:
    path = build(saves, lines, name=f"fight{lines}")
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        log = encounter_screen(app).query_one(CombatLog)
        assert numbers(log)[-1] == lines - 1  # the newest line is on screen
        return log.wrapped, len(log.loaded)


async def test_opening_a_long_log_costs_what_a_short_one_does(saves: Path) -> None:
    short_wrapped, short_held = await opened_cost(saves, 400)
    long_wrapped, long_held = await opened_cost(saves, 4000)
    assert long_wrapped == short_wrapped and long_held == short_held
    assert long_held <= CombatLog.TAIL + CombatLog.CHUNK


async def test_a_change_wraps_only_its_own_lines(saves: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A small tail and chunk, so a few changes go past the tail's bound.
    monkeypatch.setattr(CombatLog, "TAIL", 4)
    monkeypatch.setattr(CombatLog, "CHUNK", 2)
    monkeypatch.setattr(CombatLog, "SCREENS", 1)
    path = build(saves, 3000)
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        log = encounter_screen(app).query_one(CombatLog)
        before, oldest = log.wrapped, log.first_loaded
        burst(app, ":note fresh 0\r")
        await settle(pilot)
        assert log.wrapped - before == 1, "a change re-wrapped lines it did not add"
        assert "fresh 0" in " ".join(screen_text(log)[-2:])
        changes = 8
        for n in range(1, changes + 1, 2):
            burst(app, f":note fresh {n}\r:note fresh {n + 1}\r")
            await settle(pilot)
        assert log.wrapped - before == 1 + changes
        assert f"fresh {changes}" in " ".join(screen_text(log)[-2:])
        # Following the newest line, the widget holds a bounded tail, not the fight:
        # a screen of rows (one row a line here) plus at most a chunk.
        assert len(log.loaded) <= log.scrollable_content_region.height + CombatLog.CHUNK
        assert log.first_loaded > oldest and log.older
        assert log.scroll_y == log.max_scroll_y and log.follow


async def test_a_viewer_following_the_file_wraps_only_what_was_appended(saves: Path) -> None:
    path = build(saves, 3000, every=100)
    app = TrackerApp(saves, path, viewer=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        log = encounter_screen(app).query_one(CombatLog)
        store = EncounterFile(path)
        loaded = store.load()
        gm = Session(loaded.encounter, loaded.ruleset, store=store)
        for n in range(3):
            before = log.wrapped
            gm.note(f"from the GM {n}")
            await wait_for(pilot, lambda: f"from the GM {n}" in " ".join(screen_text(log)), "the GM's note on the viewer's screen")
            assert log.wrapped - before <= 1


async def test_scrolling_back_loads_older_lines_and_keeps_the_view(saves: Path) -> None:
    lines = 1200
    path = build(saves, lines)
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        log = encounter_screen(app).query_one(CombatLog)
        assert log.older and log.first_loaded > 0
        top = numbers(log)[0]
        await press(pilot, "pageup")  # the key, as the GM reads back
        step = top - numbers(log)[0]
        assert step > 0 and not log.follow
        # Keep going back: every page moves by the same rows, across each chunk loaded,
        # until the first line of the fight.
        seen_loads = 0
        for _ in range(lines):
            if numbers(log)[0] == 0:
                break
            top, first = numbers(log)[0], log.first_loaded
            log.scroll_lines(-step)
            await settle(pilot)
            seen_loads += log.first_loaded < first
            assert numbers(log)[0] == max(0, top - step), "the view jumped when older lines loaded"
        assert numbers(log)[0] == 0 and not log.older and seen_loads >= 2
        assert [e.text for e in log.loaded if e.text.startswith("line ")] == [f"line {i}" for i in range(lines)]
        # Back to the end: following again, and a change drops the old lines once more.
        log.scroll_lines(log.max_scroll_y)
        assert log.follow
        burst(app, ":note back at the end\r")
        await settle(pilot)
        assert "back at the end" in " ".join(screen_text(log)[-2:])
        assert len(log.loaded) <= CombatLog.TAIL + CombatLog.CHUNK and log.older


async def test_the_scrollbar_or_wheel_at_the_top_loads_more_where_it_was(saves: Path) -> None:
    path = build(saves, 2000)
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        log = encounter_screen(app).query_one(CombatLog)
        oldest = log.loaded[0].text
        log.scroll_to(y=0, animate=False)  # as a drag of the scrollbar to the top does
        await settle(pilot)
        assert not log.follow and log.scroll_y > 0
        assert screen_text(log)[0].split(maxsplit=1)[1].strip() == oldest  # the same line, now with older above it
        shown = screen_text(log)[0]
        log.scroll_up(animate=False)  # what a turn of the wheel calls
        await settle(pilot)
        assert not log.follow and screen_text(log)[1] == shown


async def test_search_and_filter_reach_lines_far_back(saves: Path) -> None:
    path = build(saves, 3000, every=40, needle_at=5)
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        log = encounter_screen(app).query_one(CombatLog)
        assert not any("needle" in e.text for e in log.loaded)  # far back: not loaded
        burst(app, "/NEEDLE\r")
        await settle(pilot)
        assert [e.text for e in log.loaded] == ["needle at 5"]
        assert "needle at 5" in " ".join(screen_text(log))
        burst(app, "/\x15\r")  # an empty search: every line again, the newest shown
        await settle(pilot)
        assert numbers(log)[-1] == 2999 and len(log.loaded) <= CombatLog.TAIL + CombatLog.CHUNK
        # `f` on Sphinx: every Sphinx line of the fight (75 of them, all but the first
        # far back), and nothing else.
        screen = encounter_screen(app)
        screen.query_one("RosterView").select_name("Sphinx")
        await press(pilot, "f")
        marks = [e.text for e in log.loaded if e.text.startswith("Sphinx mark")]
        assert marks == [f"Sphinx mark {i}" for i in range(0, 3000, 40)]
        assert all("Sphinx" in e.about for e in log.loaded)
        # A search matching many lines holds a bounded number and loads more going back.
        await press(pilot, "f")
        burst(app, "/line 1\r")
        await settle(pilot)
        held = len(log.loaded)
        assert held <= CombatLog.CHUNK * 2 and log.older
        log.scroll_lines(-log.scroll_y)
        await settle(pilot)
        assert len(log.loaded) > held and all("line 1" in e.text for e in log.loaded)



async def read_back_to_the_start(pilot: Any, log: CombatLog) -> None:
    """Scroll up, a chunk loading each time the top is reached, until nothing older is left."""
    for _ in range(100):
        if not log.older:
            break
        log.scroll_lines(-log.scroll_y - 1)
        await settle(pilot)
    assert not log.older


async def test_a_viewer_never_sees_hidden_lines_in_older_chunks(saves: Path) -> None:
    path = build(saves, 1500, every=25)
    app = TrackerApp(saves, path, viewer=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        log = encounter_screen(app).query_one(CombatLog)
        await read_back_to_the_start(pilot, log)
        texts = [e.text for e in log.loaded]
        assert not any("Ghost" in t for t in texts)
        assert [t for t in texts if t.startswith("Sphinx mark")] == [f"Sphinx mark {i}" for i in range(0, 1500, 25)]
        assert [t for t in texts if t.startswith("line ")] == [f"line {i}" for i in range(1500)]


async def test_a_viewer_shows_a_change_without_waiting_for_its_timer(saves: Path) -> None:
    # The follower thread tells the app when it has read a change; no timer on the
    # screen (there is none any more) is what shows it.
    path = build(saves, 50)
    app = TrackerApp(saves, path, viewer=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        log = encounter_screen(app).query_one(CombatLog)
        store = EncounterFile(path)
        loaded = store.load()
        Session(loaded.encounter, loaded.ruleset, store=store).note("straight away")
        await wait_for(pilot, lambda: "straight away" in " ".join(screen_text(log)), "the change on the viewer's screen before its timer fires")


async def test_a_change_repaints_only_the_panes_it_changes(saves: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tracker.ui.widgets.roster import RosterView
    from tracker.ui.widgets.timeline import TimelineView

    painted: list[str] = []
    for cls in (RosterView, TimelineView, CombatLog):
        original = cls.refresh

        def refresh(self, *args, _original=original, **kwargs):  # type: ignore[no-untyped-def]
            painted.append(type(self).__name__)
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(cls, "refresh", refresh)
    path = build(saves, 30)
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        burst(app, ":note only the log\r")
        await settle(pilot)
        painted.clear()
        burst(app, ":note again only the log\r")
        await settle(pilot)
        assert "CombatLog" in painted and "RosterView" not in painted and "TimelineView" not in painted
        painted.clear()
        burst(app, ":damage Seraph 3\r")
        await settle(pilot)
        assert "RosterView" in painted  # hp 10 -> 7 on the roster
        roster = encounter_screen(app).query_one(RosterView)
        assert "7/10" in " ".join(screen_text(roster))


async def test_a_second_app_on_the_same_encounter_reuses_the_timeline_index(saves: Path) -> None:
    # What `tracker serve` relies on: the warm-up draws the encounter once before any
    # fork, and every forked app finds the index built instead of walking every action.
    from tracker.play.live import Live
    from tracker.ui.widgets.timeline import ActionIndex

    path = build(saves, 10)
    live = Live.open(path, viewer=True)
    for who, target in (("Seraph", "Sphinx"), ("Sphinx", "Seraph")):
        resolution = Resolution(12, True, 3, (5, 7), "2d10 vs 15", ())
        live.encounter.apply(Event("declare", {"actor": who, "template": "strike", "mode": "active", "targets": [target], "resolution": resolution}))
    first = TrackerApp(saves, path, True, live)
    async with first.run_test(size=SIZE) as pilot:
        await settle(pilot)
    index = live.cache["timeline.actions"]
    assert isinstance(index, ActionIndex) and sum(map(len, index.by_actor.values())) == len(live.encounter.actions) == 2
    second = TrackerApp(saves, path, True, live)
    async with second.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert second.screen.query_one("TimelineView").index is index
    live.close()


async def test_a_wider_terminal_rewraps_only_the_loaded_lines(saves: Path) -> None:
    path = build(saves, 4000)
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        log = encounter_screen(app).query_one(CombatLog)
        held, before = len(log.loaded), log.wrapped
        await pilot.resize_terminal(120, 30)
        await settle(pilot)
        assert log.wrapped - before <= 2 * max(held, len(log.loaded))  # not the 4,000 lines
        assert numbers(log)[-1] == 3999 and log.follow


async def test_at_a_shared_table_older_chunks_name_who_made_each_change(saves: Path) -> None:
    # Two people signed the file: each change's first line names its author, in the
    # lines loaded at first and in those loaded by scrolling back alike.
    enc = Encounter(Setup("signed", "freeform", FreeformRuleset.time, FreeformRuleset.down_when))
    enc.apply(Event("add", {"name": "Seraph", "resources": {"hp": 10}}, by="alice"))
    for i in range(900):
        enc.apply(Event("note", {"text": f"line {i}"}, by="alice" if i % 2 else "carol"))
    path = saves / "signed.toml"
    path.write_text(codec.dumps(enc, len(enc.events)))
    app = TrackerApp(saves, path, viewer=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        log = encounter_screen(app).query_one(CombatLog)
        await read_back_to_the_start(pilot, log)
        texts = log.loaded_lines()
        assert texts[0] == "Seraph joins the fight · GM alice"
        assert texts[1:] == [f"line {i} · GM {'alice' if i % 2 else 'carol'}" for i in range(900)]
