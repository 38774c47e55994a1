"""The encounter's face: apply, undo and redo, refolding (tracker/engine/encounter.py).

Expected values come from the module docstring ("either refuses it (nothing changes) or
applies it and appends it to the log, so the current state is always the fold of the
setup plus the effective events"), decision 0023 (undo and redo are events; a new change
after an undo clears what could be redone; a handler's fault folds again and refuses) and
the checkpoints' rules (tracker/engine/checkpoints.py: taken on multiples of
CHECKPOINT_EVERY, a replay's only near its end).
"""

from __future__ import annotations

from typing import Any

import pytest

from tracker.engine import Encounter, Event, Resolution, Setup, TimeMapping, checkpoints
from tracker.engine.effects import Damage
from tracker.engine.errors import RuleRefusal, TrackerError
from tracker.engine.model import CombatantSetup
from tests.helpers import encounter as make
from tests.test_engine_checkpoints import fold, state


def _hp(enc: Encounter, name: str) -> int | float:
    return enc.combatants[name].resources["hp"]


def _hurt(enc: Encounter, amount: int, target: str = "Ann") -> Event:
    return enc.apply(Event("damage", {"target": target, "amount": amount, "resource": "hp"}))


def test_events_given_to_the_constructor_are_applied_in_order_and_numbered() -> None:
    time = TimeMapping(50, "test")
    setup = Setup("test", "freeform", time, ("hp",), roster=[CombatantSetup("Ann", resources={"hp": 20})])
    events = [Event("damage", {"target": "Ann", "amount": 3, "resource": "hp"}),
              Event("damage", {"target": "Ann", "amount": 4, "resource": "hp"})]
    enc = Encounter(setup, events)
    assert _hp(enc, "Ann") == 13
    assert [e.seq for e in enc.events] == [1, 2]
    assert enc.events == events
    assert enc.effective_indexes() == [0, 1]
    assert enc.time is time and enc.setup is setup
    # the setup's roster is entered before any event, as a fold from nothing
    assert list(enc.combatants) == ["Ann"]


def test_the_effective_indexes_are_a_copy() -> None:
    enc = make("Ann")
    got = enc.effective_indexes()
    got.append(99)
    assert enc.effective_indexes() == [0]


def test_undo_and_redo_walk_the_stacks_and_name_their_targets() -> None:
    enc = make("Ann")
    assert enc.can_undo() and not enc.can_redo()
    assert enc.redo_target() is None
    first = _hurt(enc, 5)
    assert enc.undo_target() is first
    undo = enc.apply(Event("undo", {}))
    assert undo.args["target"] == first.seq == 2  # the target is written into the event
    assert undo.seq == 3
    assert _hp(enc, "Ann") == 20
    assert enc.can_redo() and enc.redo_target() is first
    assert enc.undo_target() is enc.events[0]
    assert enc.effective_events() == [enc.events[0]]
    redo = enc.apply(Event("redo", {}))
    assert redo.args["target"] == 2 and redo.seq == 4
    assert _hp(enc, "Ann") == 15
    assert not enc.can_redo() and enc.redo_target() is None
    assert enc.effective_indexes() == [0, 1]
    assert enc.effective_events() == [enc.events[0], first]


def test_an_empty_fight_has_nothing_to_undo_or_redo() -> None:
    enc = Encounter(Setup("test", "freeform", TimeMapping(50, "test"), ("hp",)))
    assert not enc.can_undo() and enc.undo_target() is None
    with pytest.raises(RuleRefusal) as undo:
        enc.apply(Event("undo", {}))
    assert str(undo.value) == "nothing to undo (rule: undo)"
    with pytest.raises(RuleRefusal) as redo:
        enc.apply(Event("redo", {}))
    assert str(redo.value) == "nothing to redo (rule: redo)"
    assert enc.events == []


def test_an_undo_or_redo_of_another_change_is_refused_naming_the_latest() -> None:
    enc = make("Ann")
    _hurt(enc, 5)
    before = state(enc)
    with pytest.raises(RuleRefusal) as undo:
        enc.apply(Event("undo", {"target": 1}))
    assert str(undo.value) == "undo of change 1 refused: the latest change that can be undone is 2 (damage) (rule: undo)"
    assert state(enc) == before and len(enc.events) == 2
    enc.apply(Event("undo", {"target": 2}))
    enc.apply(Event("undo", {"target": 1}))
    with pytest.raises(RuleRefusal) as redo:
        enc.apply(Event("redo", {"target": 2}))
    assert str(redo.value) == "redo of change 2 refused: the latest change that can be redone is 1 (add) (rule: undo)"
    assert enc.redo_target() is enc.events[0]
    assert enc.combatants == {}


def test_a_new_change_after_an_undo_clears_what_could_be_redone() -> None:
    enc = make("Ann")
    _hurt(enc, 5)
    enc.apply(Event("undo", {}))
    _hurt(enc, 2)
    assert not enc.can_redo()
    assert _hp(enc, "Ann") == 18
    with pytest.raises(RuleRefusal, match="nothing to redo"):
        enc.apply(Event("redo", {}))


def test_an_unknown_kind_is_refused_and_nothing_is_written() -> None:
    enc = make("Ann")
    before = state(enc)
    with pytest.raises(TrackerError) as refused:
        enc.apply(Event("shout", {}))
    assert str(refused.value) == "unknown event kind 'shout'"
    assert state(enc) == before and len(enc.events) == 1


def test_a_refused_change_changes_nothing_and_is_not_logged() -> None:
    enc = make("Ann")
    _hurt(enc, 5)
    enc.apply(Event("undo", {}))
    before = state(enc)
    with pytest.raises(TrackerError):
        enc.apply(Event("damage", {"target": "Nobody", "amount": 1, "resource": "hp"}))
    assert state(enc) == before and len(enc.events) == 3
    assert enc.can_redo()  # a refusal does not clear the redo stack


def test_a_fault_in_a_handler_folds_again_and_refuses_naming_it() -> None:
    enc = make("Ann", "Bo")
    _hurt(enc, 5)
    before = state(enc)
    calls: list[int] = []
    real = enc._handlers["damage"]

    def half(self: Any, args: dict[str, Any]) -> None:
        if args["amount"] != 1:  # the earlier change, folded again
            real(self, args)
            return
        calls.append(1)
        self.combatants["Ann"].resources["hp"] = -99  # a half-made change
        raise ValueError("boom")

    enc._handlers["damage"] = half
    with pytest.raises(TrackerError) as refused:
        _hurt(enc, 1)
    assert str(refused.value) == "damage could not be applied (ValueError: boom); nothing was changed"
    assert not isinstance(refused.value, RuleRefusal)
    enc._handlers["damage"] = real
    assert state(enc) == before and len(enc.events) == 3 and calls == [1]
    assert enc.effective_indexes() == [0, 1, 2]


def test_a_fault_in_redo_puts_both_stacks_back() -> None:
    enc = make("Ann")
    hurt = _hurt(enc, 5)
    enc.apply(Event("undo", {}))
    before = state(enc)
    real = enc._handlers["damage"]

    def broken(self: Any, args: dict[str, Any]) -> None:
        self.combatants["Ann"].resources["hp"] = -99
        raise KeyError("hp")

    enc._handlers["damage"] = broken
    with pytest.raises(TrackerError) as refused:
        enc.apply(Event("redo", {}))
    assert str(refused.value) == "redo of change 2 could not be applied (KeyError: 'hp'); nothing was changed"
    enc._handlers["damage"] = real
    assert state(enc) == before
    assert enc.redo_target() is hurt and enc.effective_indexes() == [0]
    assert len(enc.events) == 3  # the refused redo is not in the log
    enc.apply(Event("redo", {}))
    assert _hp(enc, "Ann") == 15


def test_a_fault_that_also_stops_the_refold_says_both() -> None:
    enc = make("Ann")
    _hurt(enc, 5)
    _hurt(enc, 1)
    enc.apply(Event("undo", {}))

    def broken(self: Any, args: dict[str, Any]) -> None:
        raise KeyError("hp")

    enc._handlers["damage"] = broken
    with pytest.raises(TrackerError) as refused:
        enc.apply(Event("redo", {}))
    assert str(refused.value) == (
        "redo of change 3 failed (KeyError: 'hp'), and the fight could not be folded again (KeyError: 'hp')"
    )
    # the log and the stacks stay as they were
    assert enc.effective_indexes() == [0, 1] and enc.redo_target() is enc.events[2]
    assert len(enc.events) == 4


def test_a_fault_in_undo_puts_both_stacks_back() -> None:
    enc = make("Ann")
    hurt = _hurt(enc, 5)
    real = enc._handlers["add"]
    before = state(enc)
    seen: list[int] = []

    def broken(self: Any, args: dict[str, Any]) -> None:
        seen.append(1)
        if len(seen) == 1:
            raise RuntimeError("refold")
        real(self, args)

    enc._handlers["add"] = broken
    with pytest.raises(TrackerError) as refused:
        enc.apply(Event("undo", {}))
    assert str(refused.value) == "undo of change 2 could not be applied (RuntimeError: refold); nothing was changed"
    enc._handlers["add"] = real
    assert state(enc) == before and enc.undo_target() is hurt and not enc.can_redo()
    assert enc.effective_indexes() == [0, 1]


def test_an_ended_fight_refuses_every_change_but_undo_and_redo() -> None:
    enc = make("Ann")
    enc.check_open()  # open: nothing raised
    enc.apply(Event("end", {"campaign": "Sea"}))
    before = state(enc)
    message = ("this fight has ended (campaign Sea); `tracker campaign undo` reopens it while "
               "nothing later in the campaign depends on its end (rule: ended)")
    with pytest.raises(RuleRefusal) as refused:
        _hurt(enc, 1)
    assert str(refused.value) == message and refused.value.rule == "ended"
    with pytest.raises(RuleRefusal) as asked:
        enc.check_open()
    assert str(asked.value) == message
    assert state(enc) == before and len(enc.events) == 2
    enc.apply(Event("undo", {}))
    assert enc.ended == ""
    _hurt(enc, 1)
    assert _hp(enc, "Ann") == 19


def test_a_rename_clears_the_checkpoints_and_undo_still_gives_the_fold() -> None:
    enc = make("Ann")
    for _ in range(checkpoints.CHECKPOINT_EVERY - 1):
        _hurt(enc, 0)
    assert len(enc.effective_indexes()) == checkpoints.CHECKPOINT_EVERY
    assert list(enc.checkpoints.taken) == [checkpoints.CHECKPOINT_EVERY]
    enc.apply(Event("rename", {"target": "Ann", "name": "Ada"}))
    assert enc.checkpoints.taken == {}
    enc.apply(Event("undo", {}))
    assert list(enc.combatants) == ["Ann"]
    enc.apply(Event("redo", {}))
    assert enc.checkpoints.taken == {}
    assert list(enc.combatants) == ["Ada"]
    assert state(enc) == state(fold(enc))


def test_checkpoints_fall_on_multiples_of_the_interval_and_undo_starts_from_them() -> None:
    every = checkpoints.CHECKPOINT_EVERY
    enc = make("Ann")
    for i in range(2 * every - 1):
        _hurt(enc, i % 2)
        depth = len(enc.effective_indexes())
        assert list(enc.checkpoints.taken) == [k for k in (every, 2 * every) if k <= depth]
    assert list(enc.checkpoints.taken) == [every, 2 * every]
    assert _hp(enc, "Ann") == 20 - every + 1
    enc.apply(Event("undo", {}))
    assert list(enc.checkpoints.taken) == [every]
    assert _hp(enc, "Ann") == 20 - every + 1  # the last hurt 0
    enc.apply(Event("undo", {}))
    assert _hp(enc, "Ann") == 20 - every + 2
    assert state(enc) == state(fold(enc))
    enc.apply(Event("redo", {}))
    enc.apply(Event("redo", {}))
    # a redo back to a multiple takes its checkpoint again
    assert list(enc.checkpoints.taken) == [every, 2 * every]
    assert state(enc) == state(fold(enc))


def test_undo_below_every_checkpoint_folds_from_the_setup() -> None:
    every = checkpoints.CHECKPOINT_EVERY
    enc = make("Ann")
    for _ in range(every):
        _hurt(enc, 1)
    for _ in range(3):
        enc.apply(Event("undo", {}))
    assert enc.checkpoints.taken == {}
    assert _hp(enc, "Ann") == 20 - every + 3
    assert state(enc) == state(fold(enc))


def test_undo_from_a_checkpoint_past_a_rename_clears_them() -> None:
    every = checkpoints.CHECKPOINT_EVERY
    enc = make("Ann")
    for _ in range(every - 1):
        _hurt(enc, 1)
    assert list(enc.checkpoints.taken) == [every]
    enc.apply(Event("rename", {"target": "Ann", "name": "Ada"}))
    for _ in range(every - 1):
        _hurt(enc, 1, "Ada")
    # 2 * every changes: a checkpoint again (the rename cleared the first)
    assert list(enc.checkpoints.taken) == [2 * every]
    _hurt(enc, 1, "Ada")
    enc.apply(Event("undo", {}))
    assert list(enc.checkpoints.taken) == [2 * every]
    assert _hp(enc, "Ada") == 20 - 2 * every + 2


def test_a_replay_keeps_checkpoints_only_near_its_end_and_then_forgets_the_mark() -> None:
    every = checkpoints.CHECKPOINT_EVERY
    enc = make("Ann")
    events = [Event("damage", {"target": "Ann", "amount": 0, "resource": "hp"}) for _ in range(6 * every - 1)]
    enc.replay(events)
    assert enc.checkpoints.keep_from == 0
    # replayed to depth 6 * every: checkpoints from 6 * every - 2 intervals on
    assert list(enc.checkpoints.taken) == [4 * every, 5 * every, 6 * every]
    assert len(enc.events) == 6 * every


def test_a_replay_that_fails_part_way_forgets_the_mark_too() -> None:
    enc = make("Ann")
    with pytest.raises(TrackerError):
        enc.replay([Event("damage", {"target": "Nobody", "amount": 1, "resource": "hp"})])
    assert enc.checkpoints.keep_from == 0


def test_a_rebuild_keeps_the_log_and_stacks_and_takes_checkpoints_anew() -> None:
    every = checkpoints.CHECKPOINT_EVERY
    enc = make("Ann")
    for _ in range(2 * every):
        _hurt(enc, 1)
    enc.apply(Event("undo", {}))
    events, applied = list(enc.events), enc.effective_indexes()
    enc.checkpoints.taken.clear()
    enc._rebuild()
    assert enc.events == events and enc.effective_indexes() == applied
    assert enc.redo_target() is events[-2]
    assert list(enc.checkpoints.taken) == [every, 2 * every]
    assert enc.checkpoints.keep_from == 0
    assert _hp(enc, "Ann") == 20 - 2 * every + 1


def test_a_rebuild_past_a_rename_drops_the_earlier_checkpoints() -> None:
    every = checkpoints.CHECKPOINT_EVERY
    enc = make("Ann")
    for _ in range(every):
        _hurt(enc, 1)
    enc.apply(Event("rename", {"target": "Ann", "name": "Ada"}))
    enc.checkpoints.taken.clear()
    enc._rebuild()
    assert enc.checkpoints.taken == {}
    assert list(enc.combatants) == ["Ada"]


def test_settle_hands_the_fights_length_to_the_checkpoints(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[int] = []
    enc = make("Ann")
    _hurt(enc, 1)
    monkeypatch.setattr(enc.checkpoints.__class__, "settle", lambda self, events: seen.append(events))
    enc.settle()
    assert seen == [2]


def test_a_declared_action_is_undone_and_redone_through_the_fold() -> None:
    enc = make("Ann", "Bo")
    enc.apply(Event("declare", {"actor": "Ann", "template": "hit", "mode": "active", "targets": ["Bo"],
                                "resolution": Resolution(pt=3, effects=(Damage("Bo", 4, "hp"),))}))
    enc.apply(Event("advance", {"to": 3}))
    assert _hp(enc, "Bo") == 16
    enc.apply(Event("undo", {}))
    assert _hp(enc, "Bo") == 20 and enc.now == 0
    enc.apply(Event("redo", {}))
    assert _hp(enc, "Bo") == 16 and enc.now == 3
    assert state(enc) == state(fold(enc))


def test_an_undo_starts_from_the_nearest_checkpoint_and_keeps_those_below() -> None:
    every = checkpoints.CHECKPOINT_EVERY
    enc = make("Ann")
    for _ in range(4 * every - 1):
        _hurt(enc, 1)
    assert list(enc.checkpoints.taken) == [every, 2 * every, 3 * every, 4 * every]
    enc.apply(Event("undo", {}))
    # only the one above the new depth is dropped; a fold from the setup would have kept
    # only those within two intervals of the end (as a replay does)
    assert list(enc.checkpoints.taken) == [every, 2 * every, 3 * every]
    assert _hp(enc, "Ann") == 20 - 4 * every + 2
    assert state(enc) == state(fold(enc))
