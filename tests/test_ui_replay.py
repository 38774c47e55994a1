"""The replay screen at 80x24, in every shipped game (tracker/ui/screens/replay.py).

`w` on the encounter screen opens the fight at its last segment; ←/→ move one segment,
n/p to the next/previous segment where anything happened, home/end to the first/last, j
(or :) takes a segment typed in (one out of range is refused naming the range, and
nothing moves), space plays (on to the next moment at the speed set, + and - change it)
and pauses. Every pane shows the fight as it stood then: the clock, the roster's figures,
the log's last line, the upcoming list and the timeline, which marks the next moment with
▽. No key changes the fight (the save is byte for byte the same, the events too); Esc
goes back to the encounter screen, at now. `tracker open FILE --replay` starts in it. A
viewer's replay never shows a combatant hidden at that segment, even one shown later.
Keys go in bursts, and every wait is for a condition.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tracker.engine import TrackerError
from tracker.engine.replay import fold_at
from tracker.persistence.store import EncounterFile
from tracker.ui.app import TrackerApp
from tracker.ui.screens.encounter import EncounterScreen
from tracker.ui.screens.form import FormScreen
from tracker.ui.screens.replay import ReplayScreen
from tracker.ui.widgets.clock import ClockBar
from tracker.ui.widgets.log import CombatLog
from tracker.ui.widgets.roster import RosterView
from tracker.ui.widgets.timeline import TimelineView
from tracker.reading.viewing import sight

from tests.helpers import cli
from tests.test_ui_app import SIZE, notes
from tests.ui import press, settle, type_text, wait_for

pytestmark = pytest.mark.ui

SHIPPED = Path(__file__).resolve().parent.parent / "saves"
GAMES = {
    "brandx": "seraph-vs-sphinx", "d6": "d6-warehouse", "freeform": "freeform-bridge-ambush",
    "ogs": "ogs-guard", "ore": "ore-knife-fight", "usor": "usor-mountain-pass",
}


def _copy(saves: Path, stem: str) -> Path:
    path = saves / f"{stem}.toml"
    shutil.copy(SHIPPED / path.name, path)
    return path


def replay(app: TrackerApp) -> ReplayScreen:
    assert isinstance(app.screen, ReplayScreen), (app.screen, notes(app), app.errors)
    return app.screen


def drawn(app: TrackerApp) -> dict[str, object]:
    """What the replay's panes show, as plain values (clock line, roster's figures, the log's
    last line, the upcoming list, the timeline's axis)."""
    screen = app.screen
    roster = screen.query_one(RosterView)
    log = screen.query_one(CombatLog)
    return {
        "clock": str(screen.query_one(ClockBar).render()),
        "roster": {c.name: dict(c.resources) for c in roster.combatants},
        "log": log.loaded[-1].text if log.loaded else None,
        "axis": screen.query_one(TimelineView).render_line(0).text,
    }


def expected(path: Path, segment: int, role=None) -> dict[str, object]:
    """What the fight was at the end of `segment`, worked out without the app."""
    from tracker.reading.roles import Role

    fold = fold_at(EncounterFile(path).load().encounter, segment)
    view = sight(fold, role or Role.gm())
    return {"roster": {c.name: dict(c.resources) for c in view.combatants()}, "log": view.log()[-1].text if view.log() else None, "now": fold.now}


async def _at(pilot, app: TrackerApp, path: Path, segment: int) -> None:
    """The replay shows `segment`, and every pane shows the fight as it stood then."""
    await wait_for(pilot, lambda: replay(app).flow.segment == segment, f"replay at {segment}")
    await settle(pilot)
    want, got = expected(path, segment), drawn(app)
    assert got["roster"] == want["roster"] and got["log"] == want["log"], (segment, got, want)
    assert f"replay {segment}/" in str(got["clock"]) and f"segment {segment} ·" in str(got["clock"])


@pytest.mark.parametrize("game", sorted(GAMES))
async def test_replay_keys_in_every_game(game: str, saves: Path) -> None:
    path = _copy(saves, GAMES[game])
    before = path.read_bytes()
    live = EncounterFile(path).load().encounter
    last, moments = live.now, sorted({e.segment for e in live.log} | {0, live.now})
    app = TrackerApp(saves, path, user="gm")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "w", "w")  # a burst: one replay
        await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen), "the replay screen")
        assert len([s for s in app.screen_stack if isinstance(s, ReplayScreen)]) == 1
        # Each pane hears of a move once (Textual also runs the encounter screen's on_mount).
        assert replay(app).view.listeners == [replay(app).changes.publish]
        assert len(replay(app).view.base.listeners) == 2  # the encounter screen's, and the replay's
        await _at(pilot, app, path, last)
        await press(pilot, "home")
        await _at(pilot, app, path, 0)
        # The timeline marks the next moment (the first segment after 0 where anything happened).
        coming = moments[1]
        axis = drawn(app)["axis"]
        assert isinstance(axis, str) and axis[12 + coming - 0] in "▽0123456789", axis
        assert replay(app).view.coming == coming
        await press(pilot, "right", "right")
        await _at(pilot, app, path, min(2, last))
        await press(pilot, "left")
        await _at(pilot, app, path, min(1, last))
        await press(pilot, "n")
        await _at(pilot, app, path, next(m for m in moments if m > 1))
        await press(pilot, "end", "p")
        await _at(pilot, app, path, moments[-2])
        # A segment typed in; one out of range is refused naming the range, and nothing moves.
        await press(pilot, "j")
        assert isinstance(app.screen, FormScreen)
        await type_text(pilot, f"{last + 1}\r")
        assert isinstance(app.screen, FormScreen) and any(f"0 to {last}" in str(label.render()) for label in app.screen.query("Label"))
        await press(pilot, "ctrl+u")
        await type_text(pilot, "3\r")
        await _at(pilot, app, path, 3)
        # Play: on to each moment in turn at the speed set, to the last; space pauses.
        await press(pilot, "plus", "plus", "plus", "plus")  # 8 moves a second
        assert replay(app).flow.speed == 8 and "x8" not in str(drawn(app)["clock"])
        await press(pilot, "home", "space")
        await wait_for(pilot, lambda: not replay(app).flow.playing, "play reaching the last segment")
        await _at(pilot, app, path, last)
        # Slowest (a move every 4 seconds): from the last, space plays again from the first;
        # space again pauses it, wherever it got to.
        await press(pilot, "minus", "minus", "minus", "minus", "minus")
        assert replay(app).flow.speed == 0.25
        await press(pilot, "space")
        assert replay(app).flow.playing and replay(app).flow.segment < last
        assert "▶ x0.25" in str(drawn(app)["clock"])
        await press(pilot, "space")
        assert not replay(app).flow.playing
        # Read-only: keys that change the fight live do nothing here.
        await press(pilot, "home", "a", "d", "x", "m", "u", "r", "e", "N", "c", "s", "h", "v", "k", "R")
        assert not [s for s in app.screen_stack if type(s).__name__ in ("DeclareScreen", "RosterScreen")]
        while isinstance(app.screen, FormScreen):  # none should open; if one did, the test fails below
            await press(pilot, "escape")
        assert isinstance(app.screen, ReplayScreen)
        with pytest.raises(TrackerError, match="read-only"):  # whatever a screen might ask of it
            replay(app).view.run(lambda session: session.note("rewriting history"))
        assert len(replay(app).view.base.encounter.events) == len(live.events)
        # Esc: back to the encounter screen, at now.
        await press(pilot, "escape")
        await wait_for(pilot, lambda: type(app.screen) is EncounterScreen, "back to now")
        assert app.screen.live.encounter.now == last and f"segment {last} ·" in str(app.screen.query_one(ClockBar).render())
        assert "replay" not in app.screen.live.cache  # its memory goes with it
        assert app.errors == []
    assert path.read_bytes() == before
    assert [e.to_dict() for e in EncounterFile(path).load().encounter.events] == [e.to_dict() for e in live.events]


async def test_open_with_replay_starts_at_the_segment_asked(saves: Path) -> None:
    """`--replay 4`; there, `H` lists the changes in effect at 4 (not those after it) and `t`
    the figures up to 4."""
    from textual.widgets import OptionList

    from tracker.ui.screens.history import HistoryScreen
    from tracker.ui.screens.stats import StatsScreen

    path = _copy(saves, GAMES["freeform"])
    live = EncounterFile(path).load().encounter
    app = TrackerApp(saves, path, user="gm", replay=4)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen), "the replay screen")
        await _at(pilot, app, path, 4)
        await press(pilot, "H")
        assert isinstance(app.screen, HistoryScreen)
        events = live.effective_events()
        past = next(i for i, e in enumerate(events) if e.kind == "advance" and e.args["to"] > 4)
        # The changes before the move past 4, and that move as far as 4 ("time moves on to segment 4").
        assert app.screen.query_one(OptionList).option_count == past + 1 < len(events)
        assert "time moves on to segment 4" in str(app.screen.query_one(OptionList).get_option_at_index(0).prompt)
        await press(pilot, "escape", "t")
        assert isinstance(app.screen, StatsScreen)
        await wait_for(pilot, lambda: "computing" not in app.screen.shown_text and app.screen.shown_text != "", "the stats")
        assert app.screen.figures is not None and app.screen.figures.now == 4
        await press(pilot, "escape", "escape")
        await wait_for(pilot, lambda: type(app.screen) is EncounterScreen, "back to now")


def test_open_replay_out_of_range_is_refused_naming_the_range(saves: Path) -> None:
    _copy(saves, GAMES["freeform"])
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "tracker", "--saves", str(saves), "open", "freeform-bridge-ambush", "--replay", "11"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "--replay 11: this fight's segments run from 0 to 10" in done.stderr


async def test_a_viewers_replay_hides_who_was_hidden_then(saves: Path) -> None:
    """Lurker is hidden until segment 6, then shown: a viewer's replay at 3 has no Lurker
    (roster, log, timeline, upcoming), at 6 it has."""
    path = saves / "night.toml"
    assert cli("new", str(path), "--ruleset", "freeform")[0] == 0
    lines = ["add Ann hp=10", "add Lurker hp=5 side=foes hidden=true", "declare Lurker bite target=Ann pt=4 damage=2", "step 6", "unhide Lurker", "step 2"]
    assert cli("play", str(path), stdin="\n".join(lines) + "\n")[0] == 0
    app = TrackerApp(saves, path, viewer=True, user="v")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "w")
        await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen), "the replay screen")
        await press(pilot, "home", "right", "right", "right")
        await wait_for(pilot, lambda: replay(app).flow.segment == 3, "replay at 3")
        await settle(pilot)
        screen = app.screen
        texts = [screen.query_one(TimelineView).render_line(y).text for y in range(screen.query_one(TimelineView).size.height)]
        texts += [str(w.render()) for w in screen.query("Static")]
        texts += [e.text for e in screen.query_one(CombatLog).loaded]
        assert not any("Lurker" in t or "bite" in t for t in texts), texts
        assert "Ann" in drawn(app)["roster"] and drawn(app)["roster"]["Ann"] == {"hp": 10}  # type: ignore[index]
        await press(pilot, "right", "right", "right")
        await wait_for(pilot, lambda: replay(app).flow.segment == 6, "replay at 6")
        await settle(pilot)
        assert "Lurker" in drawn(app)["roster"]  # type: ignore[operator]
        assert app.errors == []


async def test_a_change_made_elsewhere_during_the_replay_is_replayed_too(saves: Path) -> None:
    """Another GM moves the fight on 5 segments while the replay shows segment 4: the replay
    is made again of the fight as it now is (its last segment is 15), still at 4; esc shows
    the fight at 15."""
    path = _copy(saves, GAMES["freeform"])
    app = TrackerApp(saves, path, user="gm")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "w")
        await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen), "the replay screen")
        await press(pilot, "home", "right", "right", "right", "right")
        await _at(pilot, app, path, 4)
        assert cli("play", str(path), stdin="step 5\n")[0] == 0
        await wait_for(pilot, lambda: replay(app).flow.last == 15, "the replay made again")
        await _at(pilot, app, path, 4)
        assert "replay 4/15" in str(drawn(app)["clock"])
        await press(pilot, "end")
        await _at(pilot, app, path, 15)
        await press(pilot, "escape")
        await wait_for(pilot, lambda: type(app.screen) is EncounterScreen, "back to now")
        assert app.screen.live.encounter.now == 15 and app.errors == []
