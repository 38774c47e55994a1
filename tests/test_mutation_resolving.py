"""Direct tests of tracker.engine.resolving: completing actions, judging blows and applying
effects. Expected values are worked from the module docstring and
docs/contributing/design.md#judged-on-landing and #simultaneity: blows are judged against
the state at the start of the segment they land on, before any completion or effect of
it; completions on a segment land together (Brand X) or one by one in the resolution's
`order`, largest first, where an actor put down earlier in the segment loses its action
(ORE), ties happening at once with their effects applied by actor, start and template; a
combatant going down or thrown back loses its in-progress active action."""

from __future__ import annotations

from typing import Any

import pytest

from tracker.engine import COMPLETED, IN_PROGRESS, INTERRUPTED, Damage, Encounter, Event, Resolution, Throwback, TrackerError, Upkeep
from tracker.engine import effects as fx
from tracker.engine.effects import Adjust, Blow, Condition, Note
from tests.helpers import advance, encounter


def _declare(actor: str, template: str, pt: int, **args: Any) -> Event:
    return Event("declare", {"actor": actor, "template": template, "resolution": Resolution(pt=pt, **args.pop("res", {})), **args})


def _texts(enc: Encounter) -> list[str]:
    return [e.text for e in enc.log]


JUDGED: list[tuple[str, str, int]] = []


def _half(enc: Any, action: Any, blow: Blow) -> list[fx.Effect]:
    """A judge: half the target's hp as it stands when judged, a note naming the action,
    and a Blow (which never lands: a judge's blows are dropped)."""
    JUDGED.append((action.actor, blow.target, blow.index))
    hp = enc.combatants[blow.target].resources["hp"]
    return [Damage(blow.target, hp // 2, "hp"), Note(f"{action.actor}'s {action.template} judged at {hp}"), Blow(blow.target, 9)]


def _broken(enc: Any, action: Any, blow: Blow) -> list[fx.Effect]:
    raise KeyError("dice")


fx.register_judge("test-mutation-half", _half)
fx.register_judge("test-mutation-broken", _broken)


def _blow(target: str, judge: str = "test-mutation-half", lead: int = 0, index: int = 0) -> dict[str, Any]:
    return {"effects": (Blow(target, index, lead=lead),), "details": {"judge": judge}}


# --- completing -----------------------------------------------------------------------


def test_a_completion_ends_the_action_and_says_its_outcome() -> None:
    enc = encounter("Ann", "Bo", "Cy")
    enc.apply(_declare("Ann", "hit", 3, targets=["Bo", "Cy"], res={"success": True}))
    enc.apply(_declare("Bo", "hit", 3, targets=["Ann"], res={"success": False}))
    enc.apply(_declare("Cy", "look", 3, mode="passive"))
    advance(enc, 3)
    lines = [e for e in enc.log if e.kind == "complete"]
    assert [(e.segment, e.text, e.about, e.while_hidden, e.seq, e.secret, e.private) for e in lines] == [
        (3, "Ann's hit completes: success", ("Ann", "Bo", "Cy"), False, 7, False, False),
        (3, "Bo's hit completes: failure", ("Bo", "Ann"), False, 7, False, False),
        (3, "Cy's look completes", ("Cy",), False, 7, False, False),
    ]
    for action in enc.actions:
        assert (action.status, action.ended) == (COMPLETED, 3)
    for c in enc.combatants.values():
        assert c.in_progress == [] and c.active is None and c.chain_from is None


def test_a_secret_actions_outcome_is_not_said_and_a_hidden_ones_line_is_written_hidden() -> None:
    enc = encounter("Ann", "Bo", "Cy")
    enc.apply(Event("hide", {"target": "Bo"}))
    enc.apply(_declare("Ann", "hit", 3, targets=["Cy"], secret=True, res={"success": True}))
    enc.apply(_declare("Bo", "hit", 3, res={"success": True}))
    enc.apply(_declare("Cy", "hit", 3, targets=["Bo"], res={"success": False}))
    advance(enc, 3)
    lines = [(e.text, e.while_hidden) for e in enc.log if e.kind == "complete"]
    assert lines == [("Ann's hit completes", False), ("Bo's hit completes: success", True), ("Cy's hit completes: failure", True)]


def test_only_a_maintainable_active_action_can_be_maintained_after_it_completes() -> None:
    enc = encounter("Ann", "Bo")
    enc.apply(_declare("Ann", "hit", 3, maintainable=True))
    enc.apply(_declare("Bo", "aura", 3, mode="passive", maintainable=True))
    advance(enc, 3)
    assert enc.combatants["Ann"].chain_from is enc.actions[0]
    assert enc.combatants["Bo"].chain_from is None


def test_simultaneous_completions_land_together_and_a_fallen_fighters_blow_lands() -> None:
    enc = encounter("Ann", "Bo", hp=5)
    enc.apply(_declare("Ann", "hit", 4, targets=["Bo"], res={"effects": (Damage("Bo", 9, "hp"),), "order": (1,)}))
    enc.apply(_declare("Bo", "guard", 6, mode="passive", companions=["hit"]))
    enc.apply(_declare("Bo", "hit", 4, targets=["Ann"], res={"effects": (Damage("Ann", 9, "hp"),), "order": (2,)}))
    advance(enc, 4)
    assert [a.status for a in enc.actions] == [COMPLETED, INTERRUPTED, COMPLETED]
    texts = _texts(enc)
    # Both complete before any effect applies; the larger order key first.
    at = texts.index("Bo's hit completes")
    assert texts[at:at + 6] == ["Bo's hit completes", "Ann's hit completes", "Ann takes 9 hp (hp 5 -> -4)", "Ann is down",
                                "Bo takes 9 hp (hp 5 -> -4)", "Bo is down; guard interrupted"]


def test_ordered_completions_resolve_the_larger_key_first_and_the_fallen_lose_their_action() -> None:
    enc = encounter("Ann", "Bo", "Cy", hp=5, simultaneous=False)
    enc.apply(_declare("Ann", "hit", 4, targets=["Bo"], res={"effects": (Damage("Bo", 9, "hp"),), "order": (2, 1)}))
    enc.apply(_declare("Bo", "hit", 4, targets=["Cy"], res={"effects": (Damage("Cy", 9, "hp"),), "order": (3, 1)}))
    enc.apply(_declare("Cy", "hit", 4, targets=["Ann"], res={"effects": (Damage("Ann", 2, "hp"),), "order": (2, 0)}))
    advance(enc, 4)
    ann, bo, cy = enc.actions
    # Bo (3, 1) first: Cy goes down, losing its (2, 0) hit; then Ann (2, 1) puts Bo down.
    assert (ann.status, bo.status, cy.status) == (COMPLETED, COMPLETED, INTERRUPTED)
    assert enc.combatants["Ann"].resources["hp"] == 5
    assert [e.text for e in enc.log if e.kind in ("complete", "down")] == [
        "Bo's hit completes", "Cy is down; hit interrupted", "Ann's hit completes", "Bo is down"]


def test_ordered_completions_with_equal_keys_happen_at_once_their_effects_by_actor() -> None:
    """ORE's identical sets: none loses its action to another, and the effects apply by
    actor name, start and template, never in typing order."""
    enc = encounter("Cy", "Ann", "Bo", hp=5, simultaneous=False)
    enc.apply(_declare("Cy", "hit", 4, targets=["Ann"], res={"effects": (Damage("Ann", 9, "hp"),), "order": (2, 2)}))
    enc.apply(_declare("Bo", "hit", 4, targets=["Cy"], res={"effects": (Damage("Cy", 9, "hp"),), "order": (2, 2)}))
    enc.apply(_declare("Ann", "hit", 4, targets=["Bo"], res={"effects": (Damage("Bo", 9, "hp"),), "order": (2, 2)}))
    advance(enc, 4)
    assert [a.status for a in enc.actions] == [COMPLETED] * 3
    assert [e.text for e in enc.log if e.kind in ("complete", "damage")] == [
        "Ann's hit completes", "Bo's hit completes", "Cy's hit completes",
        "Bo takes 9 hp (hp 5 -> -4)", "Cy takes 9 hp (hp 5 -> -4)", "Ann takes 9 hp (hp 5 -> -4)"]


def test_ties_of_one_actor_go_by_start_then_template_then_targets() -> None:
    enc = encounter("Ann", "Bo", hp=50, simultaneous=False)
    # Both from segment 0, both due on 6 (the bash pushes the zap back one): by template.
    enc.apply(_declare("Ann", "zap", 5, mode="passive", companions=["bash"], targets=["Ann"], res={"effects": (Note("zap"),), "order": (1,)}))
    enc.apply(_declare("Ann", "bash", 6, mode="passive", targets=["Bo"], res={"effects": (Note("bash"),), "order": (1,)}))
    # Both due on 12, the one started earlier first, whatever its name.
    advance(enc, 7)
    enc.apply(_declare("Bo", "zz", 5, mode="passive", res={"effects": (Note("zz"),), "order": (1,)}))
    advance(enc, 8)
    enc.apply(_declare("Bo", "aa", 4, res={"effects": (Note("aa"),), "order": (1,)}))
    # One actor, one start, one template: by targets.
    enc.apply(_declare("Ann", "aim", 5, mode="passive", companions=["aim"], targets=["Bo"], res={"effects": (Note("aim at Bo"),), "order": (1,)}))
    enc.apply(_declare("Ann", "aim", 6, mode="passive", targets=["Ann"], res={"effects": (Note("aim at Ann"),), "order": (1,)}))
    advance(enc, 14)
    notes = [e.text for e in enc.log if e.kind == "note"]
    assert notes == ["bash", "zap", "zz", "aa", "aim at Ann", "aim at Bo"]


# --- judging blows ----------------------------------------------------------------------


def test_blows_landing_on_one_segment_are_judged_against_its_start() -> None:
    enc = encounter("Ann", "Bo", "Cy", hp=20)
    enc.apply(_declare("Ann", "hit", 4, targets=["Cy"], res=_blow("Cy")))
    enc.apply(_declare("Bo", "hit", 4, targets=["Cy"], res=_blow("Cy")))
    enc.apply(_declare("Cy", "aura", 6, mode="passive"))
    advance(enc, 4)
    assert enc.combatants["Cy"].resources["hp"] == 0  # 10 and 10, judged at 20 both
    texts = _texts(enc)
    assert texts[texts.index("Ann's hit completes"):] == [
        "Ann's hit completes", "Bo's hit completes", "Cy takes 10 hp (hp 20 -> 10)", "Ann's hit judged at 20",
        "Cy takes 10 hp (hp 10 -> 0)", "Cy is down; aura interrupted", "Bo's hit judged at 20"]
    assert [e.about for e in enc.log if e.kind == "note"] == [("Ann", "Cy"), ("Bo", "Cy")]


def test_each_blow_is_judged_once_when_it_lands_and_a_cost_blow_at_initiation() -> None:
    JUDGED.clear()
    enc = encounter("Ann", "Bo", "Cy", hp=40)
    enc.apply(_declare("Ann", "sweep", 4, targets=["Bo", "Cy"], res={
        "effects": (Blow("Bo", 0, lead=2), Blow("Cy", 1), Blow("Ann", 2, timing="initiate")), "details": {"judge": "test-mutation-half"}}))
    assert JUDGED == [("Ann", "Ann", 2)]
    advance(enc, 2)
    assert JUDGED == [("Ann", "Ann", 2), ("Ann", "Bo", 0)]
    advance(enc, 4)
    assert JUDGED == [("Ann", "Ann", 2), ("Ann", "Bo", 0), ("Ann", "Cy", 1)]
    assert [enc.combatants[n].resources["hp"] for n in ("Ann", "Bo", "Cy")] == [20, 20, 20]


def test_an_early_blow_is_judged_with_the_completions_of_its_segment() -> None:
    enc = encounter("Ann", "Bo", "Cy", hp=20)
    enc.apply(_declare("Ann", "hit", 4, targets=["Cy"], res=_blow("Cy")))
    enc.apply(_declare("Bo", "sweep", 6, targets=["Cy"], res=_blow("Cy", lead=2)))
    advance(enc, 4)
    assert enc.combatants["Cy"].resources["hp"] == 0


def test_in_ordered_resolution_each_blow_is_judged_as_its_turn_comes() -> None:
    enc = encounter("Ann", "Bo", "Cy", hp=20, simultaneous=False)
    enc.apply(_declare("Ann", "hit", 4, targets=["Cy"], res={**_blow("Cy"), "order": (2,)}))
    enc.apply(_declare("Bo", "hit", 4, targets=["Cy"], res={**_blow("Cy"), "order": (1,)}))
    advance(enc, 4)
    assert enc.combatants["Cy"].resources["hp"] == 5  # 10 of 20, then 5 of 10


def test_a_blow_with_no_judge_or_one_that_cannot_read_its_record_is_refused_by_name() -> None:
    enc = encounter("Ann", "Bo")
    enc.apply(_declare("Ann", "hit", 4, targets=["Bo"], res=_blow("Bo", judge="nobody")))
    with pytest.raises(TrackerError) as refused:
        advance(enc, 4)
    assert str(refused.value) == "advance could not be applied (ValueError: Ann's hit: no judge 'nobody' for its blow on Bo); nothing was changed"
    assert enc.now == 0 and enc.actions[0].status == IN_PROGRESS
    enc = encounter("Ann", "Bo")
    enc.apply(_declare("Ann", "hit", 4, targets=["Bo"], res=_blow("Bo", judge="test-mutation-broken")))
    with pytest.raises(TrackerError) as refused:
        advance(enc, 4)
    assert str(refused.value) == ("advance could not be applied (ValueError: Ann's hit: its blow on Bo cannot be judged "
                                  "from the stored record (KeyError: 'dice')); nothing was changed")
    enc = encounter("Ann", "Bo", simultaneous=False)
    enc.apply(_declare("Ann", "hit", 4, targets=["Bo"], res={"effects": (Blow("Bo"),)}))
    with pytest.raises(TrackerError) as refused:
        advance(enc, 4)
    assert str(refused.value) == "advance could not be applied (ValueError: Ann's hit: no judge '' for its blow on Bo); nothing was changed"


# --- effects ----------------------------------------------------------------------------


def test_damage_takes_heals_and_goes_through_to_the_overflow() -> None:
    enc = encounter("Ann", "Bo", hp=20)
    enc.combatants["Bo"].resources["body"] = 30
    enc.apply(_declare("Ann", "hit", 1, targets=["Bo"], res={"effects": (
        Damage("Bo", 7, "hp"), Damage("Bo", -2.5, "hp"), Damage("Bo", 20, "hp", "body"), Damage("Bo", 1, "hp", "body"))}))
    advance(enc, 1)
    texts = _texts(enc)
    assert texts[texts.index("Bo takes 7 hp (hp 20 -> 13)"):] == [
        "Bo takes 7 hp (hp 20 -> 13)",
        "Bo heals 2.5 hp (hp 13 -> 15.5)",
        "Bo takes 20 hp; 4.5 goes through to body (25.5 left) (hp 15.5 -> 0)",
        "Bo is down",
        "Bo takes 1 hp; 1 goes through to body (24.5 left) (hp 0 -> 0)",
        "Bo is down",
    ]
    assert enc.combatants["Bo"].resources == {"hp": 0, "ep": 30, "body": 24.5}
    line = enc.log[-2]
    assert (line.kind, line.about) == ("damage", ("Bo",))


def test_damage_to_exactly_zero_or_without_an_overflow_stays_on_the_resource() -> None:
    enc = encounter("Ann", "Bo", hp=20)
    enc.combatants["Bo"].resources["body"] = 30
    enc.apply(_declare("Ann", "hit", 1, targets=["Bo"], res={"effects": (Damage("Bo", 20, "hp", "body"), Damage("Bo", 3, "ep"))}))
    advance(enc, 1)
    assert enc.combatants["Bo"].resources == {"hp": 0, "ep": 27, "body": 30}
    assert "Bo takes 20 hp (hp 20 -> 0)" in _texts(enc)
    enc.apply(Event("damage", {"target": "Bo", "amount": 5, "resource": "hp"}))
    assert enc.combatants["Bo"].resources["hp"] == -5


def test_an_adjustment_changes_a_stat_or_a_resource_and_may_put_down() -> None:
    enc = encounter("Ann", "Bo", hp=3)
    enc.combatants["Bo"].stats.update({"str": 5, "hp": 9})
    enc.apply(_declare("Ann", "hex", 2, targets=["Bo"], res={"effects": (
        Adjust("Bo", "str", 2, timing="complete"), Adjust("Bo", "hp", -3, "drain", timing="complete"),
        Adjust("Bo", "luck", 1.5, timing="complete"))}))
    enc.apply(_declare("Bo", "punch", 5))
    advance(enc, 2)
    bo = enc.combatants["Bo"]
    assert bo.stats == {"str": 7, "hp": 9} and bo.resources == {"hp": 0, "ep": 30, "luck": 1.5}
    texts = _texts(enc)
    assert texts[texts.index("Bo: str +2"):] == ["Bo: str +2", "Bo: hp -3 (drain)", "Bo is down; punch interrupted", "Bo: luck +1.5", "Bo is down"]
    assert enc.actions[1].status == INTERRUPTED
    assert [(e.kind, e.about) for e in enc.log if e.text.startswith("Bo: ")] == [("adjust", ("Bo",))] * 3


def test_damage_to_a_resource_not_held_counts_from_zero() -> None:
    enc = encounter("Ann", "Bo")
    enc.apply(_declare("Ann", "drain", 1, targets=["Bo"], res={"effects": (
        Damage("Bo", 3, "mana"), Damage("Bo", 0, "hp"), Damage("Bo", 0.5, "hp"), Damage("Bo", 25, "hp", "wounds"))}))
    enc.apply(_declare("Bo", "punch", 4))
    enc.apply(_declare("Bo", "aura", 4, mode="passive", companions=["punch"]))
    advance(enc, 1)
    texts = _texts(enc)
    assert texts[texts.index("Bo takes 3 mana (mana 0 -> -3)"):] == [
        "Bo takes 3 mana (mana 0 -> -3)", "Bo takes 0 hp (hp 20 -> 20)", "Bo takes 0.5 hp (hp 20 -> 19.5)",
        "Bo takes 25 hp; 5.5 goes through to wounds (-5.5 left) (hp 19.5 -> 0)", "Bo is down; punch, aura interrupted"]
    assert enc.combatants["Bo"].resources == {"hp": 0, "ep": 30, "mana": -3, "wounds": -5.5}
    assert enc.log[-1].about == ("Bo",) and enc.log[-1].kind == "down"


def test_an_effect_on_one_not_in_the_fight_lapses_with_a_note() -> None:
    enc = encounter("Ann", "Bo")
    enc.apply(_declare("Ann", "hit", 2, targets=["Bo"], res={"effects": (Damage("Bo", 2, "hp"), Condition("Bo", "dazed", 2))}))
    enc.apply(Event("remove", {"name": "Bo"}))
    advance(enc, 2)
    lapsed = [e for e in enc.log if "lapses" in e.text]
    assert [(e.kind, e.text, e.about) for e in lapsed] == [
        ("note", "damage on Bo lapses: not in the fight", ("Ann",)),
        ("note", "condition on Bo lapses: not in the fight", ("Ann",)),
    ]


def test_a_note_is_said_about_the_actor_and_targets_and_kept_secret_with_a_secret_roll() -> None:
    enc = encounter("Ann", "Bo")
    enc.apply(_declare("Ann", "taunt", 2, targets=["Bo"], res={"effects": (Note("Bo is furious"),)}))
    enc.apply(_declare("Bo", "plot", 2, secret=True, res={"effects": (Note("a plan"),)}))
    advance(enc, 2)
    notes = [(e.kind, e.text, e.about, e.secret) for e in enc.log if e.kind == "note"]
    assert notes == [("note", "Bo is furious", ("Ann", "Bo"), False), ("note", "a plan", ("Bo",), True)]


def test_effects_with_a_lead_are_not_applied_on_completion_and_other_timings_are_kept_apart() -> None:
    enc = encounter("Ann", "Bo", hp=20)
    enc.apply(_declare("Ann", "sweep", 4, targets=["Bo"], res={"effects": (
        Damage("Bo", 1, "hp", lead=1), Damage("Bo", 2, "hp"), Adjust("Ann", "ep", -5), Damage("Bo", 4, "hp", timing="initiate"))}))
    assert enc.combatants["Bo"].resources["hp"] == 16 and enc.combatants["Ann"].resources["ep"] == 25
    advance(enc, 3)
    assert enc.combatants["Bo"].resources["hp"] == 15
    advance(enc, 4)
    assert enc.combatants["Bo"].resources["hp"] == 13 and enc.combatants["Ann"].resources["ep"] == 25


def test_going_down_interrupts_what_completes_after_this_segment_and_in_order_this_one_too() -> None:
    enc = encounter("Ann", "Bo", hp=5)
    enc.apply(_declare("Ann", "hit", 3, targets=["Bo"], res={"effects": (Damage("Bo", 9, "hp"),)}))
    enc.apply(_declare("Bo", "aura", 4, mode="passive", companions=["hit"]))
    enc.apply(_declare("Bo", "hit", 3, targets=["Ann"]))
    advance(enc, 3)
    assert [a.status for a in enc.actions] == [COMPLETED, INTERRUPTED, COMPLETED]
    assert enc.actions[1].ended == 3 and enc.combatants["Bo"].in_progress == []


def test_throwback_sets_the_landing_and_interrupts_the_active_action_unless_done_now() -> None:
    enc = encounter("Ann", "Bo", "Cy")
    enc.apply(_declare("Ann", "kick", 3, mode="passive", companions=["shove"]))
    enc.apply(_declare("Ann", "shove", 2, targets=["Bo"], res={"effects": (Throwback("Bo", 2.5, 1.25, 3),)}))
    enc.apply(_declare("Bo", "guard", 6, mode="passive", companions=["punch"]))
    enc.apply(_declare("Bo", "punch", 6))
    enc.apply(_declare("Cy", "shove", 2, targets=["Ann"], res={"effects": (Throwback("Ann", 1, 1, 0),)}))
    advance(enc, 2)
    bo = enc.combatants["Bo"]
    assert bo.airborne_until == 5 and bo.interrupted is enc.actions[3] and bo.active is None
    assert enc.actions[3].status == INTERRUPTED and enc.actions[2].status == IN_PROGRESS
    texts = _texts(enc)
    assert "Bo is thrown back 2.5 m at 1.25 m/segment, airborne until segment 5; punch interrupted (`keep Bo` lets it stand)" in texts
    # Ann's active shove completes on this segment: not interrupted; airborne 0 queues no landing.
    assert "Ann is thrown back 1 m at 1 m/segment, airborne until segment 2" in texts
    assert enc.combatants["Ann"].interrupted is None and enc.combatants["Ann"].airborne_until == 2
    assert not any(e.kind == "land" for e in enc.log)  # never airborne: no landing
    assert enc.upcoming() == [(3, "Ann's kick completes"), (5, "Bo lands"), (6, "Bo's guard completes")]
    line = [e for e in enc.log if e.kind == "throwback"][0]
    assert line.about == ("Bo",)


def test_a_second_throwback_never_shortens_the_flight() -> None:
    enc = encounter("Ann", "Bo", "Cy")
    enc.apply(_declare("Ann", "shove", 2, targets=["Bo"], res={"effects": (Throwback("Bo", 2, 1, 5),)}))
    enc.apply(_declare("Cy", "shove", 2, targets=["Bo"], res={"effects": (Throwback("Bo", 1, 1, 2),)}))
    advance(enc, 2)
    assert enc.combatants["Bo"].airborne_until == 7
    assert _texts(enc)[-1] == "Bo is thrown back 1 m at 1 m/segment, airborne until segment 7"


def test_a_throwback_in_ordered_resolution_interrupts_an_action_of_the_same_segment() -> None:
    enc = encounter("Ann", "Bo", simultaneous=False)
    enc.apply(_declare("Ann", "shove", 2, targets=["Bo"], res={"effects": (Throwback("Bo", 2, 1, 1),), "order": (5,)}))
    enc.apply(_declare("Bo", "punch", 2, targets=["Ann"], res={"effects": (Damage("Ann", 3, "hp"),), "order": (1,)}))
    advance(enc, 2)
    assert enc.actions[1].status == INTERRUPTED and enc.combatants["Ann"].resources["hp"] == 20


def test_a_condition_lasts_its_duration_from_when_it_lands() -> None:
    enc = encounter("Ann", "Bo")
    enc.apply(_declare("Ann", "daze", 3, targets=["Bo"], res={"effects": (Condition("Bo", "dazed", 4),)}))
    advance(enc, 3)
    assert enc.combatants["Bo"].conditions == {"dazed": 7}
    line = enc.log[-1]
    assert (line.kind, line.text, line.about) == ("condition", "Bo is dazed until segment 7", ("Bo",))
    advance(enc, 7)
    assert enc.combatants["Bo"].conditions == {} and _texts(enc)[-1] == "Bo is no longer dazed"


def test_an_upkeep_effect_starts_a_per_round_cost() -> None:
    enc = encounter("Ann", payment_every=10)
    enc.apply(_declare("Ann", "breath", 2, mode="passive", res={"effects": (Upkeep("Ann", "breath", "ep", 3),)}))
    advance(enc, 2)
    assert enc.combatants["Ann"].upkeep == {"breath": ("ep", 3)}
    advance(enc, 10)
    assert enc.combatants["Ann"].resources["ep"] == 27


def test_a_cost_that_puts_down_at_initiation_interrupts_what_completes_from_the_next_segment() -> None:
    enc = encounter("Ann", "Bo", hp=20)
    enc.apply(_declare("Bo", "punch", 1, targets=["Ann"], res={"effects": (Damage("Ann", 5, "hp"),)}))
    enc.apply(_declare("Ann", "hex", 3, targets=["Bo"], res={"effects": (Adjust("Bo", "hp", -20, "hex"),)}))
    assert _texts(enc)[-2:] == ["Bo: hp -20 (hex)", "Bo is down; punch interrupted"]
    advance(enc, 1)
    assert enc.actions[0].status == INTERRUPTED and enc.combatants["Ann"].resources["hp"] == 20
