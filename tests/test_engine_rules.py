"""The timeline rules of docs/contributing/design.md#timeline, each accepted and refused."""

from __future__ import annotations

import pytest

from tracker.engine import (
    ABORTED,
    COMPLETED,
    IN_PROGRESS,
    INTERRUPTED,
    Condition,
    Damage,
    Event,
    RuleRefusal,
    Throwback,
    TrackerError,
    Upkeep,
)
from tests.helpers import advance, declare, encounter, next_


def test_sun_ruler_timing_from_the_seed() -> None:
    """Fire Coat (passive, PT 10) on 1 -> 11; blast (active, PT 20) on 6 -> 26; a passive on 10 -> 27."""
    enc = encounter("Sun-Ruler", "Seraph")
    advance(enc, 1)
    coat = declare(enc, "Sun-Ruler", "fire coat", 10, "passive")
    assert enc.actions[0].completes == 11
    advance(enc, 6)
    declare(enc, "Sun-Ruler", "fire blast", 20, "active")
    blast = enc.actions[1]
    assert (blast.start, blast.completes) == (6, 26)
    advance(enc, 10)
    declare(enc, "Sun-Ruler", "heat shield", 10, "passive")
    assert blast.completes == 27
    assert enc.actions[0].completes == 12  # the initiator's own in-progress actions all move
    assert coat.kind == "declare"


def test_passive_push_back_touches_only_the_initiator() -> None:
    enc = encounter("A", "B")
    declare(enc, "A", "punch", 15)
    declare(enc, "B", "punch", 15)
    advance(enc, 3)
    declare(enc, "A", "move", 6, "passive")
    a_punch, b_punch = enc.actions[0], enc.actions[1]
    assert a_punch.completes == 16
    assert b_punch.completes == 15


def test_one_initiation_per_segment_refused_and_companions_accepted() -> None:
    enc = encounter("Seraph")
    declare(enc, "Seraph", "move", 6, "passive", companions=("jump",))
    declare(enc, "Seraph", "jump", 6, "passive", companions=("move",))
    with pytest.raises(RuleRefusal) as refused:
        declare(enc, "Seraph", "look", 3, "passive")
    assert refused.value.rule == "one initiation per segment"
    advance(enc, 1)
    declare(enc, "Seraph", "look", 3, "passive")  # a new segment: allowed


def test_no_active_action_while_one_is_in_progress() -> None:
    enc = encounter("A")
    declare(enc, "A", "punch", 15)
    advance(enc, 5)
    with pytest.raises(RuleRefusal) as refused:
        declare(enc, "A", "kick", 10)
    assert refused.value.rule == "one active action at a time"
    assert "in progress until segment 15" in str(refused.value)
    declare(enc, "A", "dodge", 5, "passive")  # passive actions are allowed while anything runs
    assert len(enc.actions) == 2


def test_refusal_changes_nothing() -> None:
    enc = encounter("A")
    declare(enc, "A", "punch", 15)
    before = (len(enc.events), len(enc.log), enc.actions[0].completes)
    with pytest.raises(RuleRefusal):
        declare(enc, "A", "kick", 10)
    assert (len(enc.events), len(enc.log), enc.actions[0].completes) == before


def test_roll_at_initiation_effects_at_completion() -> None:
    enc = encounter("A", "B", hp=20)
    declare(enc, "A", "punch", 15, effects=(Damage("B", 7, "hp"),), targets=("B",))
    advance(enc, 14)
    assert enc.combatants["B"].resources["hp"] == 20
    advance(enc, 15)
    assert enc.combatants["B"].resources["hp"] == 13
    assert enc.actions[0].status == COMPLETED


def test_simultaneous_completions_both_land() -> None:
    """Brand X: a blow from a fighter knocked out on the same segment still lands."""
    enc = encounter("A", "B", hp=5)
    declare(enc, "A", "punch", 15, effects=(Damage("B", 9, "hp"),), targets=("B",))
    declare(enc, "B", "punch", 15, effects=(Damage("A", 9, "hp"),), targets=("A",))
    assert next_(enc) == 15
    assert enc.combatants["A"].down and enc.combatants["B"].down
    assert [a.status for a in enc.actions] == [COMPLETED, COMPLETED]


def test_ordered_completions_drop_the_fallen() -> None:
    """ORE-style ordering: the wider set resolves first and a downed actor loses its action."""
    enc = encounter("A", "B", hp=5, simultaneous=False)
    declare(enc, "A", "strike", 10, effects=(Damage("B", 9, "hp"),), targets=("B",), order=(2, 5))
    declare(enc, "B", "strike", 10, effects=(Damage("A", 9, "hp"),), targets=("A",), order=(3, 1))
    next_(enc)
    assert enc.combatants["A"].down
    assert not enc.combatants["B"].down
    a_action = enc.actions[0]
    assert a_action.status == INTERRUPTED


def test_down_combatant_loses_later_actions_and_cannot_initiate() -> None:
    enc = encounter("A", "B", hp=5)
    declare(enc, "A", "punch", 5, effects=(Damage("B", 9, "hp"),), targets=("B",))
    declare(enc, "B", "blast", 20)
    next_(enc)
    assert enc.actions[1].status == INTERRUPTED
    with pytest.raises(RuleRefusal) as refused:
        declare(enc, "B", "stand", 5)
    assert refused.value.rule == "down"


def test_maintained_chain() -> None:
    enc = encounter("A", "B")
    declare(enc, "A", "blast", 20, maintainable=True, targets=("B",))
    advance(enc, 20)
    enc.apply(Event("maintain", {"actor": "A", "resolution": {"pt": 5}}))
    link = enc.actions[-1]
    assert (link.chain, link.start, link.completes, link.targets) == (1, 20, 25, ("B",))
    advance(enc, 25)
    enc.apply(Event("maintain", {"actor": "A", "resolution": {"pt": 5}}))
    assert enc.actions[-1].chain == 2
    advance(enc, 30)
    # Letting a segment pass ends the chain.
    advance(enc, 31)
    with pytest.raises(RuleRefusal) as refused:
        enc.apply(Event("maintain", {"actor": "A", "resolution": {"pt": 5}}))
    assert refused.value.rule == "maintained attack"


def test_another_active_action_ends_the_chain() -> None:
    enc = encounter("A")
    declare(enc, "A", "blast", 20, maintainable=True)
    advance(enc, 20)
    declare(enc, "A", "punch", 15)
    advance(enc, 35)
    with pytest.raises(RuleRefusal):
        enc.apply(Event("maintain", {"actor": "A", "resolution": {"pt": 5}}))


def test_maintain_without_a_completed_attack_is_refused() -> None:
    enc = encounter("A")
    with pytest.raises(RuleRefusal):
        enc.apply(Event("maintain", {"actor": "A", "resolution": {"pt": 5}}))


def test_throwback_interrupts_and_airborne_blocks_active() -> None:
    enc = encounter("A", "B")
    declare(enc, "A", "punch", 10, effects=(Throwback("B", 3.0, 3.0, 2),), targets=("B",))
    declare(enc, "B", "kick", 20)
    next_(enc)
    b = enc.combatants["B"]
    assert enc.actions[1].status == INTERRUPTED
    assert b.airborne(10) and b.state(10) == "airborne"
    with pytest.raises(RuleRefusal) as refused:
        declare(enc, "B", "kick", 10)
    assert refused.value.rule == "throwback"
    declare(enc, "B", "roll", 5, "passive")  # passive is fine while airborne
    assert next_(enc) == 12  # lands
    assert not b.airborne(12)


def test_gm_keeps_an_interrupted_action() -> None:
    enc = encounter("A", "B")
    declare(enc, "A", "punch", 10, effects=(Throwback("B", 1.0, 1.0, 1),), targets=("B",))
    declare(enc, "B", "kick", 20)
    next_(enc)
    enc.apply(Event("keep", {"target": "B"}))
    kick = enc.actions[1]
    assert kick.status == IN_PROGRESS
    advance(enc, 20)
    assert kick.status == COMPLETED
    assert sum(1 for e in enc.log if e.kind == "complete" and "kick" in e.text) == 1


def test_simultaneous_throwback_does_not_stop_a_blow_landing_that_segment() -> None:
    enc = encounter("A", "B")
    declare(enc, "A", "punch", 10, effects=(Throwback("B", 1.0, 1.0, 1),), targets=("B",))
    declare(enc, "B", "punch", 10, effects=(Damage("A", 3, "hp"),), targets=("A",))
    next_(enc)
    assert enc.actions[1].status == COMPLETED
    assert enc.combatants["A"].resources["hp"] == 17


def test_conditions_expire_on_the_exact_segment() -> None:
    enc = encounter("A", "B")
    declare(enc, "A", "dazzle", 4, effects=(Condition("B", "dazzled", 7),), targets=("B",))
    next_(enc)
    assert enc.combatants["B"].conditions == {"dazzled": 11}
    assert next_(enc) == 11
    assert enc.combatants["B"].conditions == {}
    enc.apply(Event("condition", {"target": "A", "name": "prone", "duration": 3}))
    advance(enc, 13)
    assert "prone" in enc.combatants["A"].conditions
    advance(enc, 14)
    assert "prone" not in enc.combatants["A"].conditions


def test_scheduled_events_and_next_jumps_to_them() -> None:
    enc = encounter("A")
    enc.apply(Event("schedule", {"at": 120, "text": "reinforcements arrive"}))
    enc.apply(Event("schedule", {"at": 200, "text": "the bridge collapses"}))
    assert next_(enc) == 120
    assert enc.log[-1].text == "reinforcements arrive"
    assert next_(enc) == 200
    with pytest.raises(TrackerError):
        enc.apply(Event("schedule", {"at": 150, "text": "too late"}))


def test_payment_segments_charge_per_round_costs() -> None:
    enc = encounter("Seraph", payment_every=50)
    declare(enc, "Seraph", "move", 6, "passive", effects=(Upkeep("Seraph", "movement", "ep", 5),))
    assert next_(enc) == 6
    assert enc.combatants["Seraph"].resources["ep"] == 30
    assert next_(enc) == 50
    assert enc.combatants["Seraph"].resources["ep"] == 25
    assert next_(enc) == 100
    assert enc.combatants["Seraph"].resources["ep"] == 20


def test_surprise_blocks_initiation_until_its_segment() -> None:
    enc = encounter("A", "B")
    enc.apply(Event("surprise", {"target": "B", "until": 8}))
    with pytest.raises(RuleRefusal) as refused:
        declare(enc, "B", "punch", 10)
    assert refused.value.rule == "surprise"
    assert next_(enc) == 8
    declare(enc, "B", "punch", 10)


def test_abort() -> None:
    enc = encounter("A")
    declare(enc, "A", "punch", 15)
    advance(enc, 2)
    enc.apply(Event("abort", {"actor": "A"}))
    assert enc.actions[0].status == ABORTED
    declare(enc, "A", "kick", 10)  # free to act again
    with pytest.raises(RuleRefusal):
        enc.apply(Event("abort", {"actor": "A", "template": "dance"}))


def test_next_with_nothing_scheduled_and_time_only_moves_forward() -> None:
    enc = encounter("A")
    assert enc.next_happening() is None
    advance(enc, 5)
    with pytest.raises(TrackerError):
        advance(enc, 5)
    assert enc.now == 5


def test_undo_and_redo_walk_the_log() -> None:
    enc = encounter("A", "B")
    declare(enc, "A", "punch", 15, effects=(Damage("B", 4, "hp"),), targets=("B",))
    advance(enc, 15)
    assert enc.combatants["B"].resources["hp"] == 16
    enc.apply(Event("undo", {}))
    assert enc.now == 0 and enc.combatants["B"].resources["hp"] == 20
    enc.apply(Event("undo", {}))
    assert enc.actions == []
    enc.apply(Event("redo", {}))
    enc.apply(Event("redo", {}))
    assert enc.now == 15 and enc.combatants["B"].resources["hp"] == 16
    with pytest.raises(RuleRefusal):
        enc.apply(Event("redo", {}))
    # A new change after an undo clears what could be redone.
    enc.apply(Event("undo", {}))
    enc.apply(Event("note", {"text": "changed course"}))
    assert not enc.can_redo()


def test_undo_names_its_target_so_a_stale_undo_is_refused() -> None:
    enc = encounter("A")
    enc.apply(Event("note", {"text": "one"}))
    with pytest.raises(RuleRefusal):
        enc.apply(Event("undo", {"target": 1}))  # change 1 is the add, not the latest


def test_effects_with_a_lead_land_before_completion_and_follow_push_back() -> None:
    """A sweep at two opponents: one blow a segment, the last on the completion segment."""
    enc = encounter("A", "B", "C")
    declare(enc, "A", "sweep", 16, effects=(Damage("B", 3, "hp", lead=1), Damage("C", 3, "hp")), targets=("B", "C"))
    advance(enc, 2)
    declare(enc, "A", "shout", 3, "passive")  # pushes the sweep to 17, its first blow to 16
    assert enc.next_happening() == 5
    assert next_(enc) == 5 and next_(enc) == 16
    assert (enc.combatants["B"].resources["hp"], enc.combatants["C"].resources["hp"]) == (17, 20)
    assert next_(enc) == 17
    assert enc.combatants["C"].resources["hp"] == 17


def test_an_interrupted_sweep_loses_the_blows_not_yet_landed() -> None:
    enc = encounter("A", "B", "C", "D", hp=5)
    declare(enc, "A", "sweep", 12, effects=(Damage("B", 1, "hp", lead=1), Damage("C", 1, "hp")), targets=("B", "C"))
    declare(enc, "D", "knockout", 11, effects=(Damage("A", 9, "hp"),), targets=("A",))
    assert next_(enc) == 11  # A's first blow and D's knockout land together
    assert enc.combatants["B"].resources["hp"] == 4
    assert enc.actions[0].status == INTERRUPTED
    advance(enc, 12)
    assert enc.combatants["C"].resources["hp"] == 5
