"""Direct tests of tracker.engine.checkpoints, each written for a mutant that survived the
rule tests; expected values are worked from the module's docstring (a checkpoint every
CHECKPOINT_EVERY effective changes, more on a big roster; the last MAX_CHECKPOINTS kept;
an undo restores the nearest at or below the new top; a replay keeps checkpoints only
near its end) and decisions 0056 and 0057 (settled every SETTLE_EVERY changes)."""

from __future__ import annotations

import pytest

from tracker.engine import Event, settling
from tracker.engine.checkpoints import CHECKPOINT_EVERY, MAX_CHECKPOINTS, Checkpoints, live_actions, restore, snapshot
from tracker.engine.effects import Condition, Throwback
from tests.helpers import advance, declare, encounter


def test_the_interval_is_at_least_the_constant_and_twice_the_roster_and_queue() -> None:
    assert (CHECKPOINT_EVERY, MAX_CHECKPOINTS) == (64, 16)
    small = encounter("Ann", "Bo")
    assert Checkpoints().interval(small) == 64
    big = encounter(*(f"G{i}" for i in range(40)))
    declare(big, "G0", "punch", 5)  # one entry on the queue
    assert len(big.timeline) == 1
    assert Checkpoints().interval(big) == 2 * (40 + 1)


def test_a_checkpoint_is_taken_an_interval_after_the_last_and_only_the_last_sixteen_kept() -> None:
    enc = encounter("Ann")
    marks = Checkpoints()
    marks.consider(enc, 63, 63)
    assert len(marks) == 0  # less than an interval after the start
    marks.consider(enc, 64, 64)
    assert list(marks.taken) == [64]
    marks.consider(enc, 127, 127)
    assert list(marks.taken) == [64]
    marks.consider(enc, 128, 128)
    assert list(marks.taken) == [64, 128]
    for depth in range(192, 64 * 20, 64):
        marks.consider(enc, depth, depth)
    assert len(marks) == MAX_CHECKPOINTS
    assert min(marks.taken) == 64 * 4 and max(marks.taken) == 64 * 19  # the oldest dropped first
    marks.clear()
    assert len(marks) == 0


def test_a_replay_takes_checkpoints_only_within_two_intervals_of_its_end() -> None:
    enc = encounter("Ann")
    marks = Checkpoints()
    marks.keep_from = 1000
    marks.consider(enc, 64 * 13, 64 * 13)  # 832 < 1000 - 128
    assert len(marks) == 0
    marks.consider(enc, 64 * 14, 64 * 14)  # 896: within 128 of the end
    assert list(marks.taken) == [896]


def test_the_nearest_checkpoint_is_the_deepest_at_or_below_and_those_above_are_dropped() -> None:
    enc = encounter("Ann")
    marks = Checkpoints()
    assert marks.nearest(500) is None
    for depth in (64, 128, 192):
        marks.consider(enc, depth, depth)
    found = marks.nearest(128)
    assert found is not None and found[0] == 128 and found[1] is marks.taken[128]
    assert list(marks.taken) == [64, 128]  # 192 is undone
    found = marks.nearest(100)
    assert found is not None and found[0] == 64
    assert marks.nearest(10) is None and len(marks) == 0


def test_a_fight_settles_each_time_it_has_grown_by_settle_every(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    monkeypatch.setattr(settling, "settle", lambda: calls.append(1) or True)
    marks = Checkpoints()
    assert marks.settled == 0 and marks.keep_from == 0
    marks.settle(settling.SETTLE_EVERY - 1)
    assert calls == [] and marks.settled == 0
    marks.settle(settling.SETTLE_EVERY)
    assert calls == [1] and marks.settled == settling.SETTLE_EVERY
    marks.settle(2 * settling.SETTLE_EVERY - 1)
    assert calls == [1]
    marks.consider(encounter("Ann"), 64, 2 * settling.SETTLE_EVERY)  # asked with every checkpoint
    assert calls == [1, 1] and marks.settled == 2 * settling.SETTLE_EVERY
    monkeypatch.setattr(settling, "settle", lambda: False)  # the collector is off: not settled
    marks.settle(4 * settling.SETTLE_EVERY)
    assert marks.settled == 2 * settling.SETTLE_EVERY


def test_the_live_actions_are_those_in_progress_or_interrupted_and_keepable() -> None:
    enc = encounter("Ann", "Bo", "Cy")
    declare(enc, "Ann", "punch", 5)
    declare(enc, "Bo", "guard", 20, "passive")
    declare(enc, "Cy", "kick", 2, effects=(Condition("Bo", "dazed", 3, lead=1),))
    advance(enc, 2)  # Cy's kick completes
    live = live_actions(enc)
    assert sorted(a.template for a in live) == ["guard", "punch"]
    assert all(a.status == "in progress" for a in live)


def test_a_restore_puts_back_the_fight_as_the_checkpoint_holds_it() -> None:
    enc = encounter("Ann", "Bo")
    declare(enc, "Ann", "punch", 5, targets=("Bo",))
    enc.apply(Event("schedule", {"at": 9, "text": "bell"}))
    enc.apply(Event("setting", {"key": "player_declarations", "value": "approval"}))
    snap = snapshot(enc)
    punch = enc.actions[0]
    before = (enc.now, dict(enc.combatants["Bo"].resources), punch.status, punch.ended, len(enc.log), len(enc.actions),
              dict(enc.scheduled), len(enc.timeline), dict(enc.table), enc.ended, enc.upkeep_count)
    enc.apply(Event("damage", {"target": "Bo", "amount": 7, "resource": "hp"}))
    enc.apply(Event("setting", {"key": "player_declarations", "value": "at_once"}))
    enc.apply(Event("schedule", {"at": 12, "text": "gong"}))
    declare(enc, "Bo", "kick", 3)
    advance(enc, 5)  # the punch completes
    assert punch.status == "completed"
    restore(enc, snap)
    after = (enc.now, dict(enc.combatants["Bo"].resources), punch.status, punch.ended, len(enc.log), len(enc.actions),
             dict(enc.scheduled), len(enc.timeline), dict(enc.table), enc.ended, enc.upkeep_count)
    assert after == before
    assert enc.combatants["Ann"].active is punch  # the same action object, its fields put back
    # The lists a combatant's later actions grew in place are as they were.
    assert enc.combatants["Ann"].in_progress == [punch] and enc.combatants["Bo"].in_progress == []
    assert enc.combatants["Bo"].initiated_now == []
    # The checkpoint stays as it was: a second restore after more changes gives it again.
    enc.apply(Event("damage", {"target": "Bo", "amount": 3, "resource": "hp"}))
    enc.combatants["Bo"].conditions["dazed"] = 9
    restore(enc, snap)
    assert dict(enc.combatants["Bo"].resources) == before[1] and enc.combatants["Bo"].conditions == {}
    assert [r[0] for r in snap.combatants] == ["Ann", "Bo"]


def test_an_undo_past_a_keep_gives_back_every_interrupted_action_at_the_checkpoint() -> None:
    """The module docstring: a checkpoint holds each action that may still change (one
    interrupted and keepable too) with its changing fields, which a restore puts back;
    an undo restores the nearest checkpoint and replays. Two combatants' actions are
    interrupted by one throwback each (their completions no longer due: dropped from the
    queue as time moves past the landings); the GM keeps the first, then undoes the keep."""
    enc = encounter("Ann", "Bo", "Cy")
    declare(enc, "Ann", "cast", 10)
    declare(enc, "Bo", "chant", 10)
    declare(enc, "Cy", "kick", 1, effects=(Throwback("Ann", 2.0, 1.0, 1), Throwback("Bo", 2.0, 1.0, 1)))
    advance(enc, 3)  # the kick lands on 1: both thrown back, both actions interrupted; both land on 2
    cast, chant = enc.combatants["Ann"].interrupted, enc.combatants["Bo"].interrupted
    assert cast is not None and chant is not None and cast.status == chant.status == "interrupted"
    while len(enc.events) < CHECKPOINT_EVERY:
        enc.apply(Event("note", {"text": "the dust settles"}))
    assert list(enc.checkpoints.taken) == [CHECKPOINT_EVERY]  # taken with both interrupted
    enc.apply(Event("keep", {"target": "Ann"}))
    assert cast.status == "in progress" and enc.combatants["Ann"].in_progress == [cast]
    enc.apply(Event("undo", {}))  # from the checkpoint: nothing to replay after it
    assert (cast.status, cast.completes, cast.ended) == ("interrupted", 10, 1)
    assert (chant.status, chant.completes, chant.ended) == ("interrupted", 10, 1)
    assert enc.combatants["Ann"].in_progress == [] and enc.combatants["Ann"].interrupted is cast
    # So the GM may keep it again, as before the undo.
    enc.apply(Event("keep", {"target": "Ann"}))
    assert cast.status == "in progress" and enc.combatants["Ann"].interrupted is None
