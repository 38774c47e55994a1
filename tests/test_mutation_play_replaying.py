"""Direct tests of tracker.play.replaying: the replay as a flow without a screen (module
docstring; docs/decisions/0054-replay.md: the range 0 to the fight's last segment,
refused naming it; next/previous stop at "a segment the fight wrote a log line on; for a
player or viewer, one with a line they may read"; play moves to the next stop every
1/speed seconds, 0.25 to 8 moves a second, 1 to start, stops at the last, and space at
the last starts again from 0).

The fight is `tests.test_replay._fight`: the GM's stops are 0, 2 (the sword, the daze),
7 (the daze ends), 10 (the sword lands on hidden Bo), 12 (Bo shown, the note, the
dodge), 40 (the last); a viewer's skip 10."""

from __future__ import annotations

import pytest

from tracker.engine import TrackerError
from tracker.engine.replay import Replay
from tracker.play.replaying import SPEED, SPEEDS, Replaying
from tracker.reading.roles import Role
from tests.test_replay import _fight

RANGE = "this fight's segments run from 0 to 40"


@pytest.fixture(scope="module")
def fight():  # type: ignore[no-untyped-def]
    return _fight().encounter


def test_a_replay_opens_at_the_last_segment_paused_at_speed_1(fight) -> None:  # type: ignore[no-untyped-def]
    flow = Replaying.of(fight, Role.gm())
    assert flow.segment == flow.last == 40 and not flow.playing and flow.speed == SPEED == 1.0
    assert flow.stops == [0, 2, 7, 10, 12, 40]
    assert flow.status() == "replay 40 of 0-40 · paused (x1)"
    assert Replaying.of(fight, Role.gm(), 7).segment == 7
    assert Replaying.of(fight, Role.gm(), 0).segment == 0
    with pytest.raises(TrackerError, match=f"^segment 41: {RANGE}$"):
        Replaying.of(fight, Role.gm(), 41)


def test_readers_may_share_one_replay(fight) -> None:  # type: ignore[no-untyped-def]
    replay = Replay(fight)
    gm, viewer = Replaying.over(replay, Role.gm(), 10), Replaying.over(replay, Role.viewer())
    assert gm.replay is viewer.replay is replay
    assert gm.segment == 10 and viewer.segment == 40
    assert viewer.stops == [0, 2, 7, 12, 40]
    assert gm.encounter.combatant("Bo").resources["hp"] == 11  # the sword landed on 10
    gm.go(9)
    assert gm.encounter.combatant("Bo").resources["hp"] == 15 and gm.encounter.now == 9


def test_a_players_stops_are_the_lines_they_may_read_with_the_first_and_the_last(fight) -> None:  # type: ignore[no-untyped-def]
    bo, _ = Role.of(fight, ["Bo"])
    ann, _ = Role.of(fight, ["Ann"])
    assert bo is not None and ann is not None
    assert Replaying.of(fight, bo).stops == [0, 2, 7, 10, 12, 40]  # Bo's own wound, though hidden
    assert Replaying.of(fight, ann).stops == [0, 2, 7, 10, 12, 40]  # her own blow landing
    nobody = Role.player(["Cy"])  # a player none of whose combatants is in the fight sees as a viewer
    assert Replaying.of(fight, nobody).stops == [0, 2, 7, 12, 40]
    flow = Replaying.of(fight, ann, 3)
    assert flow.role.combatants == ("Ann",)


def test_coming_is_the_next_stop_after_the_segment_shown(fight) -> None:  # type: ignore[no-untyped-def]
    flow = Replaying.of(fight, Role.gm())
    for segment, coming in ((0, 2), (1, 2), (2, 7), (10, 12), (11, 12), (12, 40), (39, 40), (40, None)):
        flow.go(segment)
        assert flow.coming == coming, segment


def test_moves_stop_at_the_first_and_the_last(fight) -> None:  # type: ignore[no-untyped-def]
    flow = Replaying.of(fight, Role.gm(), 38)
    flow.step(3)
    assert flow.segment == 40
    flow.step(-1)
    assert flow.segment == 39
    flow.go(2)
    flow.step(-5)
    assert flow.segment == 0
    flow.step(1)
    assert flow.segment == 1
    flow.end()
    assert flow.segment == 40
    flow.first()
    assert flow.segment == 0
    for bad in (-1, 41):
        with pytest.raises(TrackerError, match=f"^segment {bad}: {RANGE}$"):
            flow.go(bad)
    assert flow.segment == 0


def test_next_and_previous_go_from_stop_to_stop(fight) -> None:  # type: ignore[no-untyped-def]
    flow = Replaying.of(fight, Role.gm(), 0)
    seen = [(flow.next_moment(), flow.segment) for _ in range(6)]  # bounded: a move that never says "last" fails, not hangs
    assert seen == [(True, 2), (True, 7), (True, 10), (True, 12), (True, 40), (False, 40)]
    back = [(flow.previous_moment(), flow.segment) for _ in range(6)]
    assert back == [(True, 12), (True, 10), (True, 7), (True, 2), (True, 0), (False, 0)]
    flow.go(11)
    assert flow.previous_moment() and flow.segment == 10
    flow.go(1)
    assert flow.previous_moment() and flow.segment == 0


def test_play_goes_stop_to_stop_and_stops_at_the_last(fight) -> None:  # type: ignore[no-untyped-def]
    flow = Replaying.of(fight, Role.gm(), 7)
    assert not flow.tick() and flow.segment == 7  # paused: no move
    assert flow.toggle() is True and flow.playing and flow.segment == 7
    assert flow.status() == "replay 7 of 0-40 · playing x1"
    assert flow.tick() and flow.segment == 10 and flow.playing
    assert flow.tick() and flow.segment == 12 and flow.playing
    assert flow.tick() and flow.segment == 40 and not flow.playing
    assert not flow.tick() and flow.segment == 40
    assert flow.toggle() is True and flow.segment == 0  # from the last: again from the first
    assert flow.toggle() is False and not flow.playing and flow.segment == 0
    flow.go(40)
    flow.playing = True  # moved to the last while playing
    assert not flow.tick() and not flow.playing


def test_speed_runs_from_a_quarter_to_eight_moves_a_second(fight) -> None:  # type: ignore[no-untyped-def]
    assert SPEEDS == (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
    flow = Replaying.of(fight, Role.gm())
    assert [flow.faster() for _ in range(4)] == [2.0, 4.0, 8.0, 8.0]
    assert flow.status() == "replay 40 of 0-40 · paused (x8)"
    flow.speed = 1.0
    assert [flow.slower() for _ in range(3)] == [0.5, 0.25, 0.25]
    flow.toggle()
    assert flow.status() == "replay 0 of 0-40 · playing x0.25"
    flow.speed = 3.0
    assert flow.faster() == 4.0
    flow.speed = 3.0
    assert flow.slower() == 2.0


def test_a_segment_typed_in_is_a_whole_number_in_the_range(fight) -> None:  # type: ignore[no-untyped-def]
    flow = Replaying.of(fight, Role.gm())
    assert flow.parse(" 12 ") == 12 and flow.segment == 40  # parsing does not move
    assert flow.parse("0") == 0 and flow.parse("40") == 40
    with pytest.raises(TrackerError, match=r"^segment: expected a whole number from 0 to 40, got 'soon'$"):
        flow.parse("  soon ")
    with pytest.raises(TrackerError, match=r"^segment: expected a whole number from 0 to 40, got '2\.5'$"):
        flow.typed("2.5")
    for bad in ("41", "-1"):
        with pytest.raises(TrackerError, match=f"^segment {int(bad)}: {RANGE}$"):
            flow.typed(bad)
    assert flow.segment == 40
    flow.typed(" 7 ")
    assert flow.segment == 7
