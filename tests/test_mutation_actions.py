"""Direct tests of tracker.engine.actions, the action queue: initiating, maintaining,
aborting and keeping. Expected values are worked from the module docstring and
docs/contributing/design.md#initiation-rules and #simultaneity: one initiation per
combatant per segment unless a template names the other as a companion; no active action
while an active one is in progress; a passive initiation pushes the initiator's own
actions back one segment; a combatant down, surprised (before its segment) or airborne
(active actions only) may not initiate; an action initiated on s with performance time p
completes on s + p; costs (timing "initiate") apply at once. Refusals: the exact message
and nothing changed."""

from __future__ import annotations

from typing import Any

import pytest

from tracker.engine import ABORTED, COMPLETED, IN_PROGRESS, INTERRUPTED, Damage, Encounter, Event, Resolution, RuleRefusal, Throwback, TrackerError
from tracker.engine.effects import Adjust, Condition
from tests.helpers import advance, encounter


def _state(enc: Encounter) -> Any:
    """Everything a refused change must leave as it was."""
    people = {
        n: (c.name, dict(c.resources), dict(c.stats), c.initiated_on, list(c.initiated_now), c.active and c.active.id,
            [a.id for a in c.in_progress], {k: a.id for k, a in c.latest.items()}, c.chain_from and c.chain_from.id,
            c.interrupted and c.interrupted.id, c.airborne_until, c.draws, dict(c.conditions))
        for n, c in enc.combatants.items()
    }
    actions = [(a.id, a.status, a.start, a.completes, a.ended, a.chain) for a in enc.actions]
    return (enc.now, len(enc.events), [(e.segment, e.kind, e.text) for e in enc.log], people, actions, enc.timeline.entries)


def _refused(enc: Encounter, event: Event, message: str, error: type[Exception] = RuleRefusal) -> None:
    before = _state(enc)
    with pytest.raises(error) as refused:
        enc.apply(event)
    assert str(refused.value) == message
    assert _state(enc) == before


def _declare(actor: str, template: str, pt: int, **args: Any) -> Event:
    return Event("declare", {"actor": actor, "template": template, "resolution": Resolution(pt=pt, **args.pop("res", {})), **args})


def _texts(enc: Encounter, since: int = 0) -> list[str]:
    return [e.text for e in enc.log][since:]


# --- check_initiation ---------------------------------------------------------------


def test_a_mode_other_than_active_or_passive_is_refused() -> None:
    enc = encounter("Ann")
    _refused(enc, _declare("Ann", "punch", 3, mode="sideways"), "mode must be active or passive, not 'sideways'", TrackerError)


def test_a_combatant_down_may_not_initiate_even_a_passive_action() -> None:
    enc = encounter("Ann", "Bo")
    enc.apply(Event("damage", {"target": "Ann", "amount": 20, "resource": "hp"}))
    _refused(enc, _declare("Ann", "dodge", 3, mode="passive"), "Ann is down and cannot act (rule: down)")
    # Down is said before surprise (both hold).
    enc.apply(Event("surprise", {"target": "Ann", "until": 9}))
    _refused(enc, _declare("Ann", "punch", 3), "Ann is down and cannot act (rule: down)")


def test_surprise_forbids_initiation_before_its_segment_and_allows_it_on_it() -> None:
    enc = encounter("Ann")
    enc.apply(Event("surprise", {"target": "Ann", "until": 5}))
    _refused(enc, _declare("Ann", "dodge", 3, mode="passive"),
             "Ann is surprised and may not initiate before segment 5 (rule: surprise)")
    advance(enc, 4)
    _refused(enc, _declare("Ann", "punch", 3), "Ann is surprised and may not initiate before segment 5 (rule: surprise)")
    advance(enc, 5)
    enc.apply(_declare("Ann", "punch", 3))
    assert enc.actions[0].start == 5 and enc.actions[0].completes == 8


def _thrown(airborne: int) -> Encounter:
    """Bo thrown back at segment 2 (Ann's shove, PT 2), airborne `airborne` segments."""
    enc = encounter("Ann", "Bo")
    enc.apply(_declare("Ann", "shove", 2, targets=["Bo"], res={"effects": (Throwback("Bo", 3, 1.5, airborne),)}))
    advance(enc, 2)
    return enc


def test_airborne_forbids_active_initiation_until_the_landing_segment_but_not_passive() -> None:
    enc = _thrown(3)
    assert enc.combatants["Bo"].airborne_until == 5
    _refused(enc, _declare("Bo", "punch", 3),
             "Bo is airborne until segment 5 and may not initiate an active action (rule: throwback)")
    enc.apply(_declare("Bo", "brace", 2, mode="passive"))  # a passive action is allowed in the air
    advance(enc, 4)
    _refused(enc, _declare("Bo", "punch", 3),
             "Bo is airborne until segment 5 and may not initiate an active action (rule: throwback)")
    advance(enc, 5)
    enc.apply(_declare("Bo", "punch", 3))
    assert enc.combatants["Bo"].active is enc.actions[-1]


def test_one_initiation_a_segment_names_what_was_already_started() -> None:
    enc = encounter("Ann")
    enc.apply(_declare("Ann", "look", 3, mode="passive"))
    _refused(enc, _declare("Ann", "listen", 3, mode="passive"),
             "Ann already initiated look on segment 0 (rule: one initiation per segment)")
    advance(enc, 1)
    enc.apply(_declare("Ann", "listen", 3, mode="passive"))  # a new segment: allowed
    # Only what started on this segment counts: a third on segment 1 names listen.
    _refused(enc, _declare("Ann", "sniff", 3, mode="passive"),
             "Ann already initiated listen on segment 1 (rule: one initiation per segment)")
    assert enc.combatants["Ann"].initiated_now == [("listen", ())]


def test_a_companion_named_by_either_template_may_start_beside_it() -> None:
    """design.md: "A template may name companions that may start beside it (Brand X: a
    jump with a move)": the move naming the jump lets the jump start, and a jump naming
    the move may start after a move that names nothing."""
    enc = encounter("Ann", "Bo")
    enc.apply(_declare("Ann", "move", 6, mode="passive", companions=["jump"]))
    enc.apply(_declare("Ann", "jump", 6, mode="passive"))
    enc.apply(_declare("Bo", "move", 6, mode="passive"))
    enc.apply(_declare("Bo", "jump", 6, mode="passive", companions=["move"]))
    assert [(a.actor, a.template) for a in enc.actions] == [("Ann", "move"), ("Ann", "jump"), ("Bo", "move"), ("Bo", "jump")]
    # A third template, companion of neither, is refused, naming the first started.
    _refused(enc, _declare("Ann", "look", 3, mode="passive"),
             "Ann already initiated move on segment 0 (rule: one initiation per segment)")
    # A companion of one of the two but not of the other is refused by the other.
    _refused(enc, _declare("Bo", "look", 3, mode="passive", companions=["move"]),
             "Bo already initiated jump on segment 0 (rule: one initiation per segment)")


def test_no_active_action_while_an_active_one_is_in_progress() -> None:
    enc = encounter("Ann")
    enc.apply(_declare("Ann", "punch", 15))
    advance(enc, 5)
    _refused(enc, _declare("Ann", "kick", 10),
             "Ann's active punch is in progress until segment 15 (rule: one active action at a time)")
    enc.apply(_declare("Ann", "dodge", 5, mode="passive"))  # passive may start at any time
    assert enc.actions[0].completes == 16  # and pushes the punch back one segment


# --- _initiate ----------------------------------------------------------------------


def test_an_action_completes_pt_segments_after_it_starts_and_is_the_actors_latest_and_active() -> None:
    enc = encounter("Ann", "Bo")
    advance(enc, 4)
    enc.apply(_declare("Ann", "punch", 6, targets=["Bo"], maintainable=True, params={"aim": 2}))
    a = enc.actions[0]
    assert (a.id, a.actor, a.template, a.mode, a.pt, a.start, a.completes, a.targets) == (1, "Ann", "punch", "active", 6, 4, 10, ("Bo",))
    assert (a.maintainable, a.chain, a.secret, a.status, a.asked) == (True, 0, False, IN_PROGRESS, {"aim": 2})
    ann = enc.combatants["Ann"]
    assert ann.active is a and ann.in_progress == [a] and ann.latest == {"punch": a}
    assert ann.initiated_on == 4 and ann.initiated_now == [("punch", ())]
    enc.apply(_declare("Bo", "guard", 2, mode="passive", companions=["dodge"]))
    b = enc.actions[1]
    assert (b.id, b.mode, b.maintainable, b.asked) == (2, "passive", False, None)
    bo = enc.combatants["Bo"]
    assert bo.active is None and bo.in_progress == [b] and bo.initiated_now == [("guard", ("dodge",))]
    assert enc.next_happening() == 6
    advance(enc, 9)
    assert a.status == IN_PROGRESS
    advance(enc, 10)
    assert a.status == COMPLETED and a.ended == 10 and ann.active is None and ann.in_progress == []


def test_the_declaration_line_says_who_what_at_whom_pt_completion_and_the_dice() -> None:
    enc = encounter("Ann", "Bo", "Cy")
    advance(enc, 2)
    enc.apply(_declare("Ann", "hit", 5, targets=["Bo", "Cy"], res={"summary": "2d6 -> 7"}))
    line = enc.log[-1]
    assert (line.segment, line.kind, line.text) == (2, "declare", "Ann initiates active hit at Bo, Cy, PT 5, completes on segment 7: 2d6 -> 7")
    assert (line.about, line.seq, line.secret, line.while_hidden, line.private) == (("Ann", "Bo", "Cy"), 5, False, False, False)  # three adds, an advance, then this
    enc.apply(_declare("Bo", "brace", 1, mode="passive"))
    line = enc.log[-1]
    assert line.text == "Bo initiates passive brace, PT 1, completes on segment 3"
    assert line.about == ("Bo",) and line.seq == 6


def test_a_secret_roll_hides_its_dice_and_outcome_and_tells_the_gm_alone() -> None:
    enc = encounter("Ann", "Bo")
    enc.apply(_declare("Ann", "hit", 5, targets=["Bo"], secret=True, res={"summary": "2d6 -> 7", "success": True}))
    declared, secret = enc.log[-2], enc.log[-1]
    assert declared.text == "Ann initiates active hit at Bo, PT 5, completes on segment 5 (rolled in secret)"
    assert not declared.secret
    assert (secret.kind, secret.text, secret.about, secret.secret) == ("roll", "secret roll for Ann's hit: 2d6 -> 7", ("Ann",), True)
    assert enc.actions[0].secret
    # A secret roll with no summary writes no secret line.
    enc.apply(_declare("Bo", "hide", 2, mode="passive", secret=True))
    assert _texts(enc)[-1] == "Bo initiates passive hide, PT 2, completes on segment 2 (rolled in secret)"
    advance(enc, 5)
    assert "Ann's hit completes" in _texts(enc)  # the outcome stays behind the screen


def test_a_line_about_a_hidden_actor_or_target_is_written_while_hidden() -> None:
    enc = encounter("Ann", "Bo", "Cy")
    enc.apply(Event("hide", {"target": "Bo"}))
    enc.apply(_declare("Ann", "hit", 5, targets=["Bo"]))
    assert enc.log[-1].while_hidden
    enc.apply(_declare("Bo", "hit", 5, targets=["Cy"]))
    assert enc.log[-1].while_hidden
    enc.apply(_declare("Cy", "hit", 5, targets=["Ann"]))
    assert not enc.log[-1].while_hidden
    enc.apply(_declare("Cy", "look", 1, mode="passive", companions=["hit"]))
    assert not enc.log[-1].while_hidden


def test_a_target_is_found_ignoring_case_and_an_unknown_one_is_refused() -> None:
    enc = encounter("Ann", "Bo")
    _refused(enc, _declare("Ann", "hit", 5, targets=["Bo", "Zed"]), "no combatant named 'Zed' (combatants: Ann, Bo)", TrackerError)
    enc.apply(_declare("ann", "hit", 5, targets=["bo"]))
    assert enc.actions[0].actor == "Ann" and enc.actions[0].targets == ("bo",)
    assert enc.log[-1].text.startswith("Ann initiates active hit at bo,")


def test_a_passive_initiation_pushes_back_each_of_the_initiators_actions_and_their_early_blows() -> None:
    enc = encounter("Ann", "Bo", hp=20)
    enc.apply(_declare("Ann", "sweep", 10, targets=["Bo"], res={"effects": (Damage("Bo", 3, "hp", lead=2),)}))
    enc.apply(_declare("Bo", "punch", 10))
    advance(enc, 3)
    enc.apply(_declare("Ann", "duck", 2, mode="passive"))
    sweep, punch, duck = enc.actions
    assert (sweep.completes, punch.completes, duck.completes) == (11, 10, 5)
    advance(enc, 8)
    assert enc.combatants["Bo"].resources["hp"] == 20  # the blow was due on 8, now 9
    advance(enc, 9)
    assert enc.combatants["Bo"].resources["hp"] == 17
    advance(enc, 10)
    assert sweep.status == IN_PROGRESS and punch.status == COMPLETED
    assert enc.next_happening() == 11
    advance(enc, 11)
    assert sweep.status == COMPLETED and sweep.ended == 11


def test_costs_apply_at_initiation_and_the_rest_on_completion() -> None:
    enc = encounter("Ann", "Bo", hp=20)
    enc.apply(_declare("Ann", "blast", 4, targets=["Bo"], res={"effects": (
        Adjust("Ann", "ep", -3, "blast"), Damage("Bo", 5, "hp"), Condition("Bo", "dazed", 3))}))
    assert enc.combatants["Ann"].resources["ep"] == 27
    assert _texts(enc)[-1] == "Ann: ep -3 (blast)"
    assert enc.combatants["Bo"].resources["hp"] == 20 and enc.combatants["Bo"].conditions == {}
    advance(enc, 4)
    assert enc.combatants["Bo"].resources["hp"] == 15 and enc.combatants["Bo"].conditions == {"dazed": 7}


def test_a_resolution_read_from_a_save_is_taken_as_the_objects_would_be() -> None:
    enc = encounter("Ann", "Bo")
    enc.apply(Event("declare", {"actor": "Ann", "template": "hit", "mode": "active", "targets": ["Bo"],
                                "resolution": {"pt": 4, "summary": "5", "effects": [{"kind": "damage", "target": "Bo", "amount": 2, "resource": "hp"}]}}))
    assert enc.actions[0].completes == 4 and enc.log[-1].text.endswith(": 5")
    advance(enc, 4)
    assert enc.combatants["Bo"].resources["hp"] == 18


def test_a_performance_time_out_of_bounds_is_refused() -> None:
    enc = encounter("Ann", "Bo")
    _refused(enc, _declare("Ann", "hit", 2.5), "resolution: pt: expected a whole number of segments, got 2.5", TrackerError)  # type: ignore[arg-type]
    _refused(enc, _declare("Ann", "hit", True), "resolution: pt: expected a whole number of segments, got True", TrackerError)
    # A resolution with effects is looked at whole, its effects too.
    _refused(enc, _declare("Ann", "hit", 2, targets=["Bo"], res={"effects": (Damage("Bo", 1, "hp", timing="later"),)}),
             "resolution: damage effect: timing: expected initiate or complete, got 'later'", TrackerError)
    _refused(enc, _declare("Ann", "hit", 0), "resolution: pt: expected a whole number from 1 to 1,000,000,000,000, got 0", TrackerError)
    advance(enc, 10**12 - 5)
    _refused(enc, _declare("Ann", "hit", 6), "resolution: pt: the action would complete after segment 1,000,000,000,000", TrackerError)
    enc.apply(_declare("Ann", "hit", 5))
    assert enc.actions[0].completes == 10**12
    # Looked at whole (it has an effect), a completion on the last segment is allowed too.
    enc.apply(_declare("Bo", "hit", 5, res={"effects": (Adjust("Bo", "ep", -1),)}))
    assert enc.actions[1].completes == 10**12
    _refused(enc, _declare("Ann", "look", 6, mode="passive", companions=["hit"], res={"effects": (Adjust("Ann", "ep", -1),)}),
             "resolution: pt: the action would complete after segment 1,000,000,000,000", TrackerError)


def test_a_declaration_defaults_to_active_with_no_targets_companions_or_secret() -> None:
    enc = encounter("Ann")
    enc.apply(Event("declare", {"actor": "Ann", "template": "punch", "resolution": Resolution(3)}))
    a = enc.actions[0]
    assert (a.mode, a.targets, a.maintainable, a.secret, a.asked) == ("active", (), False, False, None)
    assert enc.combatants["Ann"].initiated_now == [("punch", ())]


# --- app dice ---------------------------------------------------------------------


def test_a_declaration_with_app_dice_holds_its_draw_and_a_second_with_it_is_refused() -> None:
    enc = encounter("Ann")
    enc.apply(_declare("Ann", "look", 3, mode="passive", draw=0))
    assert enc.combatants["Ann"].draws == frozenset({0})
    advance(enc, 1)
    _refused(enc, _declare("Ann", "listen", 3, mode="passive", draw=0),
             "Ann's app dice of draw 0 are in use by another change; declare again (rule: app dice)")
    enc.apply(_declare("Ann", "listen", 3, mode="passive"))
    assert enc.combatants["Ann"].draws == frozenset({0})


def test_the_gms_reroll_sets_aside_the_next_draw() -> None:
    enc = encounter("Ann")
    enc.apply(Event("reroll", {"target": "ann"}))
    line = enc.log[-1]
    assert (line.kind, line.text, line.about) == ("reroll", "the GM sets aside Ann's standing app dice (draw 0): the next roll is a new one", ("Ann",))
    enc.apply(Event("reroll", {"target": "Ann"}))
    assert _texts(enc)[-1] == "the GM sets aside Ann's standing app dice (draw 1): the next roll is a new one"
    assert enc.combatants["Ann"].draws == frozenset({0, 1})


# --- maintained attacks ---------------------------------------------------------------


def _chain() -> Encounter:
    enc = encounter("Ann", "Bo", hp=50)
    enc.apply(_declare("Ann", "hit", 5, targets=["Bo"], maintainable=True, params={"aim": 1}, res={"success": True}))
    advance(enc, 5)
    return enc


def test_a_maintained_attack_continues_on_the_segment_the_last_completed() -> None:
    enc = _chain()
    enc.apply(Event("maintain", {"actor": "ann", "resolution": Resolution(2, summary="9"), "params": {"aim": 0}, "draw": 3}))
    link = enc.actions[-1]
    assert (link.id, link.template, link.mode, link.start, link.completes, link.targets) == (2, "hit", "active", 5, 7, ("Bo",))
    assert (link.maintainable, link.chain, link.secret, link.asked) == (True, 1, False, {"aim": 0})
    assert enc.combatants["Ann"].draws == frozenset({3})
    line = enc.log[-1]
    assert line.text == "Ann maintains hit (link 1) at Bo, PT 2, completes on segment 7: 9"
    assert line.about == ("Ann", "Bo") and line.kind == "declare"
    assert (line.secret, line.while_hidden, line.private, line.seq) == (False, False, False, 5)  # two adds, declare, advance
    assert enc.combatants["Ann"].initiated_now == [("hit", ())]
    # The link was Ann's initiation on this segment: another is refused, naming it.
    _refused(enc, _declare("Ann", "look", 1, mode="passive"), "Ann already initiated hit on segment 5 (rule: one initiation per segment)")
    advance(enc, 7)
    enc.apply(Event("maintain", {"actor": "Ann", "targets": ["Ann"], "resolution": Resolution(2)}))
    assert enc.actions[-1].chain == 2 and enc.actions[-1].targets == ("Ann",)
    assert _texts(enc)[-1] == "Ann maintains hit (link 2) at Ann, PT 2, completes on segment 9"


def test_a_maintenance_keeps_a_secret_roll_secret() -> None:
    enc = encounter("Ann", "Bo")
    enc.apply(_declare("Ann", "hit", 5, targets=["Bo"], maintainable=True, secret=True))
    advance(enc, 5)
    enc.apply(Event("maintain", {"actor": "Ann", "resolution": Resolution(2, summary="9")}))
    assert enc.actions[-1].secret
    assert _texts(enc)[-2:] == ["Ann maintains hit (link 1) at Bo, PT 2, completes on segment 7 (rolled in secret)",
                                "secret roll for Ann's hit: 9"]


def test_no_maintenance_without_a_completed_maintainable_attack() -> None:
    enc = encounter("Ann", "Bo")
    _refused(enc, Event("maintain", {"actor": "Ann", "resolution": Resolution(2)}),
             "Ann has no completed attack that can be maintained (rule: maintained attack)")
    enc.apply(_declare("Ann", "hit", 5, targets=["Bo"]))
    advance(enc, 5)
    _refused(enc, Event("maintain", {"actor": "Ann", "resolution": Resolution(2)}),
             "Ann has no completed attack that can be maintained (rule: maintained attack)")


def test_the_chain_ends_when_a_segment_passes_or_another_active_action_starts() -> None:
    enc = _chain()
    advance(enc, 6)
    _refused(enc, Event("maintain", {"actor": "Ann", "resolution": Resolution(2)}),
             "Ann's hit completed on segment 5; a maintained attack continues on the segment the previous one completes (rule: maintained attack)")
    enc = _chain()
    enc.apply(_declare("Ann", "kick", 3))
    assert enc.combatants["Ann"].chain_from is None
    enc = _chain()
    enc.apply(_declare("Ann", "look", 3, mode="passive"))  # a passive one does not end it
    assert enc.combatants["Ann"].chain_from is enc.actions[0]
    # but it was Ann's initiation on this segment, and the link is another
    _refused(enc, Event("maintain", {"actor": "Ann", "resolution": Resolution(2)}),
             "Ann already initiated look on segment 5 (rule: one initiation per segment)")


def test_a_maintenance_with_draw_in_use_is_refused() -> None:
    enc = _chain()
    enc.apply(Event("reroll", {"target": "Ann"}))
    _refused(enc, Event("maintain", {"actor": "Ann", "resolution": Resolution(2), "draw": 0}),
             "Ann's app dice of draw 0 are in use by another change; declare again (rule: app dice)")


# --- abort and keep -------------------------------------------------------------------


def test_abort_takes_the_active_action_first_else_the_latest_or_the_one_named() -> None:
    enc = encounter("Ann")
    enc.apply(_declare("Ann", "punch", 10))
    advance(enc, 1)
    enc.apply(_declare("Ann", "guard", 10, mode="passive"))
    advance(enc, 2)
    enc.apply(_declare("Ann", "watch", 10, mode="passive"))
    punch, guard, watch = enc.actions
    enc.apply(Event("abort", {"actor": "ann"}))
    assert punch.status == ABORTED and punch.ended == 2 and enc.combatants["Ann"].active is None
    line = enc.log[-1]
    assert (line.kind, line.text, line.about) == ("abort", "Ann aborts punch", ("Ann",))
    enc.apply(Event("abort", {"actor": "Ann"}))
    assert watch.status == ABORTED and guard.status == IN_PROGRESS
    enc.apply(Event("abort", {"actor": "Ann", "template": "guard"}))
    assert guard.status == ABORTED and enc.combatants["Ann"].in_progress == []
    advance(enc, 20)
    assert [a.status for a in enc.actions] == [ABORTED] * 3


def test_abort_with_nothing_to_abort_is_refused() -> None:
    enc = encounter("Ann")
    _refused(enc, Event("abort", {"actor": "Ann"}), "Ann has no action in progress to abort (rule: abort)")
    enc.apply(_declare("Ann", "punch", 10))
    _refused(enc, Event("abort", {"actor": "Ann", "template": "kick"}), "Ann has no kick action in progress to abort (rule: abort)")
    enc.apply(Event("abort", {"actor": "Ann", "template": "punch"}))
    assert enc.actions[0].status == ABORTED


def _interrupted() -> Encounter:
    """Bo's punch (PT 10, from 0) interrupted by Ann's shove landing on 2 (airborne 3)."""
    enc = encounter("Ann", "Bo")
    enc.apply(_declare("Bo", "punch", 10, targets=["Ann"], res={"effects": (Damage("Ann", 4, "hp", lead=3),)}))
    enc.apply(_declare("Ann", "shove", 2, targets=["Bo"], res={"effects": (Throwback("Bo", 3, 1.5, 3),)}))
    advance(enc, 2)
    assert enc.actions[0].status == INTERRUPTED
    return enc


def test_keep_puts_an_interrupted_action_back_to_complete_on_its_segment() -> None:
    enc = _interrupted()
    punch = enc.actions[0]
    enc.apply(Event("keep", {"target": "bo"}))
    bo = enc.combatants["Bo"]
    assert (punch.status, punch.ended, bo.active, bo.in_progress, bo.interrupted) == (IN_PROGRESS, None, punch, [punch], None)
    line = enc.log[-1]
    assert (line.kind, line.text, line.about) == ("keep", "the GM keeps Bo's punch: it completes on segment 10", ("Bo",))
    advance(enc, 7)
    assert enc.combatants["Ann"].resources["hp"] == 16  # its early blow is queued again
    advance(enc, 10)
    assert punch.status == COMPLETED and bo.active is None
    _refused(enc, Event("keep", {"target": "Bo"}), "Bo has no interrupted action to keep (rule: throwback)")


def test_keep_is_refused_with_nothing_interrupted_too_late_or_after_a_new_active_action() -> None:
    enc = encounter("Ann")
    _refused(enc, Event("keep", {"target": "Ann"}), "Ann has no interrupted action to keep (rule: throwback)")
    enc = _interrupted()
    advance(enc, 10)
    _refused(enc, Event("keep", {"target": "Bo"}), "Bo's punch would have completed on 10 (rule: throwback)")
    enc = _interrupted()
    advance(enc, 9)
    enc.apply(Event("keep", {"target": "Bo"}))  # one segment before: allowed
    assert enc.actions[0].status == IN_PROGRESS
    enc = _interrupted()
    advance(enc, 5)
    enc.apply(_declare("Bo", "kick", 3))
    _refused(enc, Event("keep", {"target": "Bo"}), "Bo has started kick since (rule: one active action at a time)")


def test_an_interrupted_action_aborted_since_is_not_kept() -> None:
    """The interrupted action is the one a keep restores only while it stays interrupted:
    after an undo of the keep it is interrupted again and may be kept again."""
    enc = _interrupted()
    enc.apply(Event("keep", {"target": "Bo"}))
    enc.apply(Event("undo", {}))
    assert enc.actions[0].status == INTERRUPTED
    enc.apply(Event("keep", {"target": "Bo"}))
    assert enc.actions[0].status == IN_PROGRESS


def test_a_kept_actions_early_blow_lands_once() -> None:
    """A keep made before the early blow's segment came up: the blow lands once, as it
    would have had the throwback not interrupted the action (it had landed twice)."""
    enc = _interrupted()
    enc.apply(Event("keep", {"target": "Bo"}))
    assert enc.upcoming() == [(5, "Bo lands"), (7, "Bo's punch: damage on Ann"), (10, "Bo's punch completes")]
    advance(enc, 10)
    assert enc.combatants["Ann"].resources["hp"] == 16
    assert _texts(enc).count("Ann takes 4 hp (hp 20 -> 16)") == 1 and not any("16 -> 12" in t for t in _texts(enc))


def test_a_push_back_that_leaves_an_early_blow_in_place_queues_it_once() -> None:
    """An early blow lands `lead` segments before completion but never before the segment
    after the start: a sweep of PT 3 with leads of 5 lands both its blows on segment 1,
    and a passive duck pushing the sweep back to 4 leaves them there, each landing once."""
    enc = encounter("Ann", "Bo")
    blow = Damage("Bo", 2, "hp", lead=5)
    enc.apply(_declare("Ann", "sweep", 3, targets=["Bo"], companions=["duck"], res={"effects": (blow, blow)}))
    enc.apply(_declare("Ann", "duck", 2, mode="passive"))
    assert enc.actions[0].completes == 4
    advance(enc, 1)
    assert enc.combatants["Bo"].resources["hp"] == 16  # two blows of 2, not four


def test_a_link_may_start_beside_what_names_its_template_as_a_companion() -> None:
    """The link is its attack's template: a passive look started on the segment the hit
    completed, naming the hit as its companion, lets the hit be maintained beside it."""
    enc = _chain()
    enc.apply(_declare("Ann", "look", 3, mode="passive", companions=["hit"]))
    enc.apply(Event("maintain", {"actor": "Ann", "resolution": Resolution(2)}))
    assert enc.actions[-1].chain == 1 and enc.actions[-1].template == "hit"
