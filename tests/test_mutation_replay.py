"""The replay's fold, marks and moves (tracker/engine/replay.py).

Expected values come from the module docstring: the state at the end of segment S is
exactly what a fresh encounter reaches by applying the effective events whose application
leaves the clock at or before S, and then `advance` to S; the lines a partial advance
writes carry the seq of the `advance` that wrote them; a move may go back and forth in any
order; marks share what did not change; the fold's log lines are the live fight's own
objects where equal; nothing here changes the encounter. The reference below is built
from that sentence alone, with a fresh `Encounter`.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from tracker.engine import Encounter, Event, Resolution
from tracker.engine.effects import Condition, Damage, Note, Throwback, Upkeep
from tracker.engine.errors import TrackerError
from tracker.engine.replay import MARK_EVERY, Replay, check_segment, clocks, fold_at
from tests.helpers import encounter as make
from tests.test_engine_checkpoints import state


def _fight() -> Encounter:
    """A fight with no undo (each event's seq is its place), so a fresh encounter applying
    the same events numbers them the same."""
    enc = make("Ann", "Bo", "Cy", payment_every=3)
    enc.apply(Event("setting", {"key": "player_declarations", "value": "approval"}))
    enc.apply(Event("declare", {"actor": "Ann", "template": "hit", "mode": "active", "targets": ["Bo"],
                                "resolution": Resolution(pt=4, effects=(Damage("Bo", 3, "hp"), Condition("Bo", "dazed", 5)))}))
    enc.apply(Event("declare", {"actor": "Cy", "template": "hold", "mode": "active",
                                "resolution": Resolution(pt=2, effects=(Note("Cy holds"), Upkeep("Cy", "breath", "ep", 2)))}))
    enc.apply(Event("advance", {"to": 2}))
    enc.apply(Event("propose", {"action": "declare", "actor": "Bo", "template": "kick", "mode": "active",
                                "targets": ["Ann"], "resolution": Resolution(pt=3, effects=(Damage("Ann", 2, "hp"),))}))
    enc.apply(Event("approve", {"target": 8}))
    enc.apply(Event("propose", {"action": "declare", "actor": "Cy", "template": "poke", "mode": "passive",
                                "resolution": Resolution(pt=1)}))
    # two actions the rename reaches only through their target, or their effect, alone
    enc.apply(Event("declare", {"actor": "Ann", "template": "aim", "mode": "passive", "targets": ["Bo"],
                                "resolution": Resolution(pt=20, effects=(Damage("Cy", 1, "hp"),))}))
    enc.apply(Event("declare", {"actor": "Cy", "template": "curse", "mode": "passive",
                                "resolution": Resolution(pt=20, effects=(Damage("Bo", 1, "hp"),))}))
    enc.apply(Event("advance", {"to": 11}, by="gm"))  # a jump: completions, a lapse, payments, an expiry
    enc.apply(Event("declare", {"actor": "Bo", "template": "shove", "mode": "active", "targets": ["Ann"],
                                "resolution": Resolution(pt=6, effects=(Throwback("Ann", 2.0, 1.0, 3),))}))
    enc.apply(Event("rename", {"target": "Bo", "name": "Bea"}))
    enc.apply(Event("note", {"text": "the bell rings"}))
    enc.apply(Event("advance", {"to": 14}))
    enc.apply(Event("damage", {"target": "Cy", "amount": 1, "resource": "hp"}))
    enc.apply(Event("advance", {"to": 25}))
    enc.apply(Event("side", {"target": "Ann", "side": "red"}))
    return enc


def _reference(enc: Encounter, segment: int) -> Encounter:
    """What the docstring says the state at the end of `segment` is."""
    fresh = Encounter(enc.setup)
    for event in enc.effective_events():
        trial = Encounter(enc.setup, [Event(e.kind, dict(e.args)) for e in fresh.events])
        trial.apply(Event(event.kind, dict(event.args)))
        if trial.now > segment:
            break
        fresh.apply(Event(event.kind, dict(event.args)))
    if fresh.now < segment:
        fresh._current_seq = len(fresh.events) + 1
        fresh._advance({"to": segment})
    return fresh


def _same(fold: Any, ref: Encounter) -> None:
    got, want = state(fold), state(ref)
    assert got == want


@pytest.fixture(scope="module")
def fight() -> Encounter:
    return _fight()


@pytest.fixture(scope="module")
def references(fight: Encounter) -> dict[int, dict[str, Any]]:
    return {s: state(_reference(fight, s)) for s in range(fight.now + 1)}


def test_the_fold_at_each_segment_is_the_fight_folded_up_to_it(fight: Encounter, references: dict[int, Any]) -> None:
    assert fight.now == 25
    for segment in range(fight.now + 1):
        assert state(fold_at(fight, segment)) == references[segment], segment


@pytest.mark.parametrize("every", [1, 2, 3, MARK_EVERY])
def test_the_replay_moves_to_any_segment_in_any_order(fight: Encounter, references: dict[int, Any], every: int) -> None:
    replay = Replay(fight, every)
    last = fight.now
    orders = [list(range(last + 1)), list(range(last, -1, -1))]
    rng = random.Random(every)
    for _ in range(3):
        order = list(range(last + 1)) * 2
        rng.shuffle(order)
        orders.append(order)
    for order in orders:
        for segment in order:
            fold = replay.at(segment)
            assert replay.segment == segment
            assert state(fold) == references[segment], (every, segment)
            assert fold.effective_events()[-1].kind in {"advance", "side", "damage", "note", "rename", "declare",
                                                      "approve", "propose", "setting", "add"}


def test_a_partial_advance_stands_for_the_advance_that_jumped_past(fight: Encounter) -> None:
    replay = Replay(fight, 2)
    fold = replay.at(7)
    jump = fight.events[12]
    assert (jump.kind, jump.args["to"]) == ("advance", 11)
    last = fold.effective_events()[-1]
    assert (last.kind, last.args, last.seq, last.by) == ("advance", {"to": 7}, jump.seq, "gm")
    assert [e.seq for e in fold.effective_events()[:-1]] == list(range(1, 13))
    # its lines are signed with the advance's seq
    assert {e.seq for e in fold.log if e.segment > 2} == {jump.seq}
    assert fold_at(fight, 7).effective_events()[-1].args == {"to": 7}
    # on a segment where no advance stands in, the effective events are the fight's
    assert replay.at(11).effective_events() == fight.effective_events()[:16]
    assert fold_at(fight, 11).effective_events() == fight.effective_events()[:16]
    assert replay.at(25).effective_events() == fight.effective_events()
    assert Replay(fight).fold.effective_events() == fight.effective_events()
    # the fold knows the fight's last segment wherever it stands
    assert fold.last == 25 and fold_at(fight, 3).last == 25


def test_a_move_inside_a_jump_with_payments_starts_again_before_it(fight: Encounter, references: dict[int, Any]) -> None:
    replay = Replay(fight, MARK_EVERY)
    for segment in (12, 13, 12, 8, 9, 10, 3, 5, 4, 11, 16, 20, 18, 25, 15):
        assert state(replay.at(segment)) == references[segment], segment


def test_the_clock_after_each_effective_event(fight: Encounter) -> None:
    after = clocks(fight.events, fight.effective_indexes())
    assert after == [0, 0, 0, 0, 0, 0, 2, 2, 2, 2, 2, 2, 11, 11, 11, 11, 14, 14, 25, 25]
    assert clocks(fight.events, []) == []
    assert Replay(fight).depth_at(11) == 16 and Replay(fight).depth_at(0) == 6 and Replay(fight).depth_at(24) == 18


def test_segments_out_of_range_are_refused_naming_the_range(fight: Encounter) -> None:
    for bad in (-1, 26, True, 2.0, "3"):
        with pytest.raises(TrackerError) as refused:
            check_segment(bad, 25)
        assert str(refused.value) == f"segment {bad}: this fight's segments run from 0 to 25"
    with pytest.raises(TrackerError) as at:
        fold_at(fight, 30, "--at")
    assert str(at.value) == "--at 30: this fight's segments run from 0 to 25"
    with pytest.raises(TrackerError) as plain:
        fold_at(fight, 26)
    assert str(plain.value) == "segment 26: this fight's segments run from 0 to 25"
    with pytest.raises(TrackerError) as moved:
        Replay(fight).at(26)
    assert str(moved.value) == "segment 26: this fight's segments run from 0 to 25"
    check_segment(0, 0)
    check_segment(25, 25)


def test_the_replay_changes_nothing_in_the_fight() -> None:
    enc = _fight()
    before = state(enc)
    replay = Replay(enc, 2)
    for segment in (0, 25, 7, 13, 2):
        replay.at(segment)
    assert state(enc) == before
    assert [a.actor for a in enc.actions] == ["Ann", "Cy", "Bea", "Ann", "Cy", "Bea"]


def test_the_moments_are_every_segment_a_line_was_written_on(fight: Encounter) -> None:
    replay = Replay(fight)
    assert replay.moments() == sorted({0, 25, *(e.segment for e in fight.log)})
    assert replay.moments() is replay.moments()
    assert replay.moments()[0] == 0 and replay.moments()[-1] == 25


def test_the_last_segment_is_the_live_fight_with_its_own_lines(fight: Encounter) -> None:
    replay = Replay(fight, 2)
    fold = replay.at(25)
    assert state(fold) == state(fight)
    assert all(mine is theirs for mine, theirs in zip(fold.log, fight.log))
    # the lines before the rename in a mark name the old name, so they are its own
    assert replay.marks[1].log[0] is fight.log[0]


def test_a_renamed_combatant_has_its_old_name_before_the_rename(fight: Encounter) -> None:
    replay = Replay(fight, 2)
    assert "Bo" in replay.at(10).combatants  # renamed on segment 11
    aims = ("Ann", "Cy", "Bo", "Ann", "Cy")
    assert [a.actor for a in replay.at(10).actions] == list(aims)
    assert "Bea" in replay.at(14).combatants
    assert [a.actor for a in replay.at(11).actions] == ["Ann", "Cy", "Bea", "Ann", "Cy", "Bea"]
    before = replay.at(10).actions
    assert [a.actor for a in before] == list(aims)
    assert before[3].targets == ("Bo",) and before[4].resolution.effects == (Damage("Bo", 1, "hp"),)
    after = replay.at(25).actions
    assert after[3].targets == ("Bea",) and after[4].resolution.effects == (Damage("Bea", 1, "hp"),)


def test_marks_share_what_did_not_change_between_them() -> None:
    enc = make("Ann", "Bo")
    for amount in (1, 2, 3, 4):
        enc.apply(Event("damage", {"target": "Ann", "amount": amount, "resource": "hp"}))
    replay = Replay(enc, 2)
    assert [m.depth for m in replay.marks] == [0, 2, 4, 6]
    first, second, third = replay.marks[1:]
    bo = [row for row in second.state.combatants if row[0] == "Bo"][0]
    assert [row for row in first.state.combatants if row[0] == "Bo"][0] is not None
    assert [row for row in third.state.combatants if row[0] == "Bo"][0] is bo
    ann2 = [row for row in second.state.combatants if row[0] == "Ann"][0]
    ann3 = [row for row in third.state.combatants if row[0] == "Ann"][0]
    assert ann2 is not ann3 and ann2 != ann3
    for name in ("folded", "first", "scheduled", "timeline", "verdicts", "table"):
        assert getattr(third.state, name) is getattr(second.state, name), name
    assert Replay(enc, 0).every == 1
    assert len(Replay(enc, 0).marks) == 7


def test_a_mark_keeps_what_differs_as_its_own() -> None:
    enc = make("Ann")
    enc.apply(Event("damage", {"target": "Ann", "amount": 1, "resource": "hp"}))
    enc.apply(Event("setting", {"key": "player_declarations", "value": "approval"}))
    enc.apply(Event("condition", {"target": "Ann", "name": "dazed", "duration": 4}))
    enc.apply(Event("add", {"name": "Bo"}))
    enc.apply(Event("note", {"text": "x"}))
    replay = Replay(enc, 2)
    assert [m.depth for m in replay.marks] == [0, 2, 4, 6]
    first, second, third = (m.state for m in replay.marks[1:])
    assert first.timeline != second.timeline and first.table != second.table
    assert second.folded != third.folded and second.first != third.first
    assert third.folded == {"ann": "Ann", "bo": "Bo"}
    assert second.table == {"player_declarations": "approval"}


def _quiet_jump() -> Encounter:
    """A fight with a long jump of time no payment falls in (the fold goes on inside it),
    renamed while a completed grab may still be maintained, an early blow is queued and
    another's guard, which the rename does not reach, is in progress."""
    enc = make("Ann", "Bo", "Cy")
    enc.apply(Event("declare", {"actor": "Cy", "template": "guard", "mode": "active", "resolution": Resolution(pt=30)}))
    enc.apply(Event("declare", {"actor": "Ann", "template": "grab", "mode": "active", "targets": ["Bo"], "maintainable": True,
                                "resolution": Resolution(pt=2, effects=(Damage("Bo", 1, "hp"),))}))
    enc.apply(Event("declare", {"actor": "Bo", "template": "stab", "mode": "active",
                                "resolution": Resolution(pt=6, effects=(Damage("Ann", 2, "hp", lead=2),))}))
    enc.apply(Event("advance", {"to": 2}))
    enc.apply(Event("rename", {"target": "Bo", "name": "Bea"}))
    enc.apply(Event("condition", {"target": "Ann", "name": "dazed", "duration": 9}))
    enc.apply(Event("advance", {"to": 20}))
    enc.apply(Event("note", {"text": "the bell rings"}))
    return enc


@pytest.mark.parametrize("every", [1, 3, MARK_EVERY])
def test_moves_inside_a_quiet_jump_go_on_and_back_to_the_same_states(every: int) -> None:
    enc = _quiet_jump()
    assert enc.combatants["Ann"].resources["hp"] == 18 and enc.combatants["Bea"].resources["hp"] == 19
    references = {s: state(_reference(enc, s)) for s in range(enc.now + 1)}
    replay = Replay(enc, every)
    rng = random.Random(every)
    orders = [[5, 6, 9, 4, 12, 3, 15, 10, 11, 2, 8, 7, 1, 0, 20, 19, 18, 13, 14, 16, 17], list(range(21))]
    for _ in range(3):
        order = list(range(21)) * 2
        rng.shuffle(order)
        orders.append(order)
    for order in orders:
        for segment in order:
            assert state(replay.at(segment)) == references[segment], (every, segment)


def test_a_fight_whose_first_change_moves_the_clock_starts_from_its_setup() -> None:
    from tracker.engine import Setup, TimeMapping
    from tracker.engine.model import CombatantSetup

    setup = Setup("test", "freeform", TimeMapping(50, "test"), ("hp",), roster=[CombatantSetup("Ann", {}, {"hp": 5})])
    enc = Encounter(setup, [Event("advance", {"to": 5}), Event("damage", {"target": "Ann", "amount": 1, "resource": "hp"}),
                            Event("advance", {"to": 9})])
    replay = Replay(enc, 1)
    assert replay.depth_at(0) == 0
    for segment in (0, 9, 0, 5, 0):
        assert state(replay.at(segment)) == state(_reference(enc, segment)), segment
    assert replay.at(0).combatants["Ann"].resources["hp"] == 5


def test_every_marks_lines_are_the_live_fights_own_where_equal_after_two_renames() -> None:
    enc = make("Ann", "Bo", "Cy")
    enc.apply(Event("note", {"text": "one"}))
    enc.apply(Event("rename", {"target": "Bo", "name": "Bea"}))
    enc.apply(Event("note", {"text": "two"}))
    enc.apply(Event("rename", {"target": "Cy", "name": "Cay"}))
    enc.apply(Event("note", {"text": "three"}))
    replay = Replay(enc, 1)
    logs = [mark.log for mark in replay.marks]
    assert len({id(log) for log in logs}) == 3  # before, between and after the renames
    for log in logs:
        for mine, theirs in zip(log, enc.log):
            assert (mine is theirs) == (mine == theirs)
    # between the renames: Bo's line names Bea as the live one does, Cy's still Cy
    between = logs[5]
    assert between[2] is not enc.log[2] and between[2].about == ("Cy",)
    assert between[1] is enc.log[1] and between[0] is enc.log[0] and between[3] is enc.log[3]


@pytest.mark.parametrize("every", [1, 3, MARK_EVERY])
def test_an_action_interrupted_before_a_rename_is_kept_after_it_in_every_state(every: int) -> None:
    """The module docstring: a rename rewrites earlier actions in place, so the fold gives
    them copies; the combatant's interrupted action is one of them, and a `keep` after
    the rename keeps that copy, as the live fight keeps its own."""
    enc = make("Ann", "Bo")
    enc.apply(Event("declare", {"actor": "Ann", "template": "charge", "mode": "active", "resolution": Resolution(pt=6)}))
    enc.apply(Event("declare", {"actor": "Bo", "template": "shove", "mode": "active", "targets": ["Ann"],
                                "resolution": Resolution(pt=1, effects=(Throwback("Ann", 2.0, 1.0, 1),))}))
    enc.apply(Event("advance", {"to": 1}))
    assert enc.combatants["Ann"].interrupted is enc.actions[0]
    enc.apply(Event("rename", {"target": "Ann", "name": "Ava"}))
    enc.apply(Event("keep", {"target": "Ava"}))
    enc.apply(Event("advance", {"to": 6}))
    assert [e.text for e in enc.log][-1] == "Ava's charge completes"
    references = {s: state(_reference(enc, s)) for s in range(enc.now + 1)}
    replay = Replay(enc, every)
    for segment in (1, 6, 0, 3, 1, 2, 6, 4, 5, 0):
        assert state(replay.at(segment)) == references[segment], (every, segment)
