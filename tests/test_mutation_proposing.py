"""Proposals' events: propose, approve, refuse, withdraw, lapse (tracker/engine/proposing.py).

Expected values come from the module docstring (a proposal is checked against the
initiation rules when made but changes nothing in the fight; `approve` applies it, its
own arguments when the GM edited it; `refuse` and `withdraw` close it; moving time
lapses every pending one; their log lines are private), `_changes`' docstring (what an
edited approval changed, in words: "targets Sphinx -> Nyx; pt 15 -> 10; dice 5 4 -> 9 9;
roll made secret") and decision 0049 (a player's draw of app dice stays in force while
the proposal waits and goes with the approved change; a closed proposal frees it).
"""

from __future__ import annotations

from typing import Any

import pytest

from tracker.engine import Encounter, Event, Resolution
from tracker.engine.effects import Damage
from tracker.engine.errors import RuleRefusal, TrackerError
from tracker.engine.model import APPROVED, LAPSED, PENDING, REFUSED, WITHDRAWN
from tracker.engine.proposing import _changes
from tests.helpers import encounter as make
from tests.test_engine_checkpoints import state
from tests.test_mutation_roster import refused_unchanged as _refused


def _fight() -> Encounter:
    enc = make("Ann", "Bo", "Cy")
    enc.apply(Event("setting", {"key": "player_declarations", "value": "approval"}))
    return enc


def _propose(enc: Encounter, **args: Any) -> Event:
    base: dict[str, Any] = {"action": "declare", "actor": "Ann", "template": "hit", "mode": "active",
                            "targets": ["Bo"], "resolution": Resolution(pt=3, dice=(5, 4), summary="rolled 9",
                                                                        effects=(Damage("Bo", 4, "hp"),))}
    base.update(args)
    return enc.apply(Event("propose", base))


def _line(enc: Encounter) -> tuple[str, str, tuple[str, ...], bool]:
    last = enc.log[-1]
    return last.kind, last.text, last.about, last.private


def test_a_proposal_waits_changing_nothing_in_the_fight() -> None:
    enc = _fight()
    event = _propose(enc, reason="x", faces=[1], target=9, draw=0)
    p = enc.proposal(event.seq)
    assert (p.seq, p.action, p.actor, p.segment, p.status) == (5, "declare", "Ann", 0, PENDING)
    # what would be applied: the event's arguments less its own
    assert set(p.args) == {"actor", "template", "mode", "targets", "resolution", "draw"}
    assert enc.pending() == [p]
    assert enc.actions == [] and enc.combatants["Bo"].resources["hp"] == 20
    assert enc.combatants["Ann"].draws == {0}
    assert _line(enc) == ("propose", "proposal 5: Ann, hit against Bo: rolled 9 (waiting for the GM)", ("Ann",), True)


def test_a_proposal_without_a_summary_or_targets_is_said_plainly() -> None:
    enc = _fight()
    _propose(enc, targets=[], resolution={"pt": 2})
    p = enc.pending()[0]
    assert p.args["resolution"] == Resolution(pt=2)  # a saved table read as a resolution
    assert _line(enc)[1] == "proposal 5: Ann, hit (waiting for the GM)"


def test_a_proposal_the_rules_refuse_now_is_refused_at_once() -> None:
    enc = _fight()
    _refused(enc, Event("propose", {"action": "damage", "actor": "Ann"}),
             "propose: action: expected one of declare, maintain, abort, got 'damage'")
    _refused(enc, Event("propose", {"action": "declare", "actor": "Nobody", "template": "hit",
                                     "resolution": Resolution(2)}),
             "no combatant named 'Nobody' (combatants: Ann, Bo, Cy)")
    _refused(enc, Event("propose", {"action": "declare", "actor": "Ann", "template": "hit", "targets": ["Di"],
                                     "resolution": Resolution(2)}),
             "no combatant named 'Di' (combatants: Ann, Bo, Cy)")
    _refused(enc, Event("propose", {"action": "declare", "actor": "Ann", "template": "hit",
                                     "resolution": Resolution(0)}),
             "resolution: pt: expected a whole number from 1 to 1,000,000,000,000, got 0")
    _refused(enc, Event("propose", {"action": "maintain", "actor": "Ann", "resolution": Resolution(2)}),
             "Ann has no completed attack that can be maintained (rule: maintained attack)")
    _refused(enc, Event("propose", {"action": "abort", "actor": "Ann", "template": "hit"}),
             "Ann has no hit action in progress to abort (rule: abort)")
    _refused(enc, Event("propose", {"action": "abort", "actor": "Ann"}),
             "Ann has no action in progress to abort (rule: abort)")
    enc.apply(Event("declare", {"actor": "Ann", "template": "hit", "mode": "active", "resolution": Resolution(5)}))
    # the initiation rules: one initiation a segment
    with pytest.raises(RuleRefusal, match="one initiation per segment"):
        _propose(enc)
    with pytest.raises(RuleRefusal, match="one initiation per segment"):
        _propose(enc, mode="passive")
    _refused(enc, Event("propose", {"action": "abort", "actor": "Ann", "template": "kick"}),
             "Ann has no kick action in progress to abort (rule: abort)")
    ok = enc.apply(Event("propose", {"action": "abort", "actor": "Ann", "template": "hit"}))
    assert enc.proposal(ok.seq).what() == "aborting hit"
    enc.apply(Event("propose", {"action": "abort", "actor": "Ann"}))
    assert len(enc.pending()) == 2


def test_a_proposal_is_checked_with_the_companions_it_names() -> None:
    enc = _fight()
    enc.apply(Event("declare", {"actor": "Ann", "template": "watch", "mode": "passive", "resolution": Resolution(5)}))
    with pytest.raises(RuleRefusal, match="one initiation per segment"):
        _propose(enc, template="look", mode="passive", targets=[])
    _propose(enc, template="look", mode="passive", targets=[], companions=["watch"])
    assert enc.pending()[0].args["companions"] == ["watch"]
    # one side naming the other is enough: Bo's first action names the one he proposes
    enc.apply(Event("declare", {"actor": "Bo", "template": "watch", "mode": "passive", "companions": ["look"],
                                "resolution": Resolution(5)}))
    _propose(enc, actor="Bo", template="look", mode="passive", targets=[])
    assert [p.actor for p in enc.pending()] == ["Ann", "Bo"]


def test_a_passive_proposal_may_wait_beside_an_active_action() -> None:
    enc = _fight()
    enc.apply(Event("declare", {"actor": "Ann", "template": "hit", "mode": "active", "resolution": Resolution(5)}))
    enc.apply(Event("advance", {"to": 1}))
    _refused(enc, Event("propose", {"action": "declare", "actor": "Ann", "template": "kick", "mode": "active",
                                     "resolution": Resolution(2)}),
             "Ann's active hit is in progress until segment 5 (rule: one active action at a time)")
    _propose(enc, template="watch", mode="passive", targets=[])
    assert enc.pending()[0].args["mode"] == "passive"


def test_a_maintained_attack_is_proposed_when_the_last_one_completes() -> None:
    enc = _fight()
    enc.apply(Event("declare", {"actor": "Ann", "template": "grab", "mode": "active", "maintainable": True,
                                "resolution": Resolution(2)}))
    enc.apply(Event("advance", {"to": 2}))
    enc.apply(Event("declare", {"actor": "Bo", "template": "hit", "mode": "active", "resolution": Resolution(5)}))
    _refused(enc, Event("propose", {"action": "maintain", "actor": "Ann", "resolution": Resolution(0)}),
             "resolution: pt: expected a whole number from 1 to 1,000,000,000,000, got 0")
    event = enc.apply(Event("propose", {"action": "maintain", "actor": "Ann", "resolution": Resolution(2)}))
    assert _line(enc)[1] == f"proposal {event.seq}: Ann, a maintained attack (waiting for the GM)"
    enc.apply(Event("approve", {"target": event.seq}))
    assert [a.template for a in enc.combatants["Ann"].in_progress] == ["grab"]


def test_approving_applies_the_proposal_and_hands_its_draw_over() -> None:
    enc = _fight()
    _propose(enc, draw=0)
    enc.apply(Event("approve", {"target": 5}))
    p = enc.proposal(5)
    assert p.status == APPROVED and p.changes == "" and enc.pending() == []
    assert [a.template for a in enc.actions] == ["hit"] and enc.actions[0].targets == ("Bo",)
    assert enc.combatants["Ann"].draws == {0}  # in force with the declaration now
    kinds = [(e.kind, e.text, e.private) for e in enc.log][-2:]
    assert kinds[0] == ("approve", "the GM approves proposal 5: Ann, hit against Bo", True)
    assert kinds[1][0] == "declare" and not kinds[1][2]
    assert enc.log[-2].about == ("Ann",)
    enc.apply(Event("advance", {"to": 3}))
    assert enc.combatants["Bo"].resources["hp"] == 16


def test_an_edited_approval_applies_the_gms_arguments_and_says_what_changed() -> None:
    enc = _fight()
    _propose(enc, draw=2, secret=False)
    enc.apply(Event("approve", {"target": 5, "actor": "Ann", "template": "hit", "mode": "active", "targets": ["Cy"],
                                "resolution": Resolution(pt=2, dice=(9, 9), effects=(Damage("Cy", 1, "hp"),)),
                                "secret": True, "draw": 7}))
    p = enc.proposal(5)
    assert p.changes == "targets Bo -> Cy; dice 5 4 -> 9 9; roll made secret"
    assert _line(enc)[:2] != ("approve", "")
    approve = next(e for e in enc.log if e.kind == "approve")
    assert approve.text == ("the GM approves proposal 5 with changes (targets Bo -> Cy; dice 5 4 -> 9 9; "
                            "roll made secret): Ann, hit against Bo")
    assert approve.private and approve.about == ("Ann",)
    assert enc.actions[0].targets == ("Cy",) and enc.actions[0].secret
    assert enc.combatants["Ann"].draws == {2}  # the player's draw, not the one the GM typed
    enc.apply(Event("advance", {"to": 2}))
    assert enc.combatants["Cy"].resources["hp"] == 19 and enc.combatants["Bo"].resources["hp"] == 20


def test_an_edited_approval_of_a_proposal_without_a_draw_holds_none() -> None:
    enc = _fight()
    _propose(enc)
    enc.apply(Event("approve", {"target": 5, "actor": "Ann", "template": "hit", "mode": "active", "targets": ["Bo"],
                                "resolution": Resolution(pt=3, dice=(5, 4), summary="rolled 9",
                                                         effects=(Damage("Bo", 4, "hp"),)), "draw": 3}))
    assert enc.combatants["Ann"].draws == frozenset()
    assert enc.proposal(5).changes == ""
    assert next(e for e in enc.log if e.kind == "approve").text == "the GM approves proposal 5: Ann, hit against Bo"


def test_an_approval_for_another_actor_is_refused() -> None:
    enc = _fight()
    _propose(enc, draw=0)
    _refused(enc, Event("approve", {"target": 5, "actor": "Bo", "template": "hit", "resolution": Resolution(2)}),
             "approve: proposal 5 is Ann's, not Bo's")
    assert enc.proposal(5).status == PENDING


def test_an_approval_the_rules_now_refuse_changes_nothing_and_keeps_the_draw() -> None:
    enc = _fight()
    _propose(enc, draw=0)
    enc.apply(Event("declare", {"actor": "Ann", "template": "kick", "mode": "active", "resolution": Resolution(4)}))
    before = state(enc)
    with pytest.raises(RuleRefusal, match="one initiation per segment"):
        enc.apply(Event("approve", {"target": 5}))
    assert state(enc) == before and enc.log[-1].kind == "declare"
    assert enc.combatants["Ann"].draws == {0}
    assert enc.proposal(5).status == PENDING


def test_an_approval_of_a_proposal_whose_actor_left_is_refused_and_changes_nothing() -> None:
    enc = _fight()
    _propose(enc, actor="Bo", targets=["Ann"])
    enc.apply(Event("remove", {"name": "Bo"}))
    before = state(enc)
    with pytest.raises(TrackerError, match="no combatant named 'Bo'"):
        enc.apply(Event("approve", {"target": 5}))
    assert state(enc) == before


def test_refusing_closes_the_proposal_with_its_reason_and_frees_the_draw() -> None:
    enc = _fight()
    _propose(enc, draw=0)
    enc.apply(Event("refuse", {"target": 5, "reason": "  not now "}))
    p = enc.proposal(5)
    assert (p.status, p.reason) == (REFUSED, "not now")
    assert enc.combatants["Ann"].draws == frozenset()
    assert _line(enc) == ("refuse", "the GM refuses proposal 5 (Ann, hit against Bo): not now", ("Ann",), True)
    _propose(enc)
    enc.apply(Event("refuse", {"target": 7}))
    assert enc.proposal(7).reason == ""
    assert _line(enc)[1] == "the GM refuses proposal 7 (Ann, hit against Bo)"
    _refused(enc, Event("refuse", {"target": 7}), "refuse: proposal 7 (Ann, hit against Bo) is already refused (rule: approval)")
    assert enc.actions == []


def test_withdrawing_takes_the_proposal_back_and_frees_the_draw() -> None:
    enc = _fight()
    _propose(enc, draw=1)
    enc.apply(Event("withdraw", {"target": 5}))
    assert enc.proposal(5).status == WITHDRAWN
    assert enc.combatants["Ann"].draws == frozenset()
    assert _line(enc) == ("withdraw", "proposal 5 (Ann, hit against Bo) is taken back", ("Ann",), True)
    _refused(enc, Event("approve", {"target": 5}), "approve: proposal 5 (Ann, hit against Bo) is already withdrawn (rule: approval)")
    _refused(enc, Event("withdraw", {"target": "5"}), "withdraw: target: expected the number of a proposal, got '5'")


def test_moving_time_lapses_every_pending_proposal_and_frees_their_draws() -> None:
    enc = _fight()
    _propose(enc, draw=0)
    _propose(enc, actor="Bo", targets=["Ann"], draw=0)
    enc.apply(Event("refuse", {"target": 6}))
    _propose(enc, actor="Cy", targets=[], draw=4)
    enc.apply(Event("advance", {"to": 1}))
    assert [enc.proposal(s).status for s in (5, 6, 8)] == [LAPSED, REFUSED, LAPSED]
    assert all(not c.draws for c in enc.combatants.values())
    lapses = [(e.text, e.about, e.private) for e in enc.log if e.kind == "lapse"]
    assert lapses == [
        ("proposal 5 (Ann, hit against Bo) lapses: time moved on before the GM approved it", ("Ann",), True),
        ("proposal 8 (Cy, hit) lapses: time moved on before the GM approved it", ("Cy",), True),
    ]


def test_a_lapsed_proposal_of_a_combatant_that_left_lapses_quietly() -> None:
    enc = _fight()
    _propose(enc, actor="Bo", targets=["Ann"], draw=0)
    enc.apply(Event("remove", {"name": "Bo"}))
    enc.apply(Event("advance", {"to": 1}))
    assert enc.proposal(5).status == LAPSED


def test_a_withdrawn_or_refused_proposal_of_a_combatant_that_left_closes() -> None:
    enc = _fight()
    _propose(enc, actor="Bo", targets=["Ann"], draw=0)
    _propose(enc, actor="Cy", targets=["Ann"], draw=0)
    enc.apply(Event("remove", {"name": "Bo"}))
    enc.apply(Event("remove", {"name": "Cy"}))
    enc.apply(Event("withdraw", {"target": 5}))
    enc.apply(Event("refuse", {"target": 6}))
    assert [enc.proposal(s).status for s in (5, 6)] == [WITHDRAWN, REFUSED]


def test_a_waiting_proposal_against_a_renamed_combatant_can_be_approved() -> None:
    enc = _fight()
    _propose(enc, actor="Bo", targets=["Ann"], resolution=Resolution(pt=2, effects=(Damage("Ann", 3, "hp"),)))
    enc.apply(Event("rename", {"target": "Ann", "name": "Ada"}))
    enc.apply(Event("approve", {"target": 5}))
    assert enc.actions[0].targets == ("Ada",)
    enc.apply(Event("advance", {"to": 2}))
    assert enc.combatants["Ada"].resources["hp"] == 17


def test_what_an_edited_approval_changed_in_words() -> None:
    assert _changes({"targets": ["Sphinx"], "pt": 15, "resolution": Resolution(15, dice=(5, 4))},
                    {"targets": ["Nyx"], "pt": 10, "resolution": Resolution(10, dice=(9, 9)), "secret": True}) == (
        "targets Sphinx -> Nyx; pt 15 -> 10; dice 5 4 -> 9 9; roll made secret")
    assert _changes({"template": "hit"}, {"template": "hit"}) == ""
    # a key the GM did not give is not a change
    assert _changes({"template": "hit", "mode": "active"}, {"template": "hit"}) == ""
    assert _changes({"template": "hit"}, {"template": "kick", "mode": "passive"}) == "template hit -> kick; mode none -> passive"
    assert _changes({"targets": ["A", "B"]}, {"targets": []}) == "targets A, B -> none"
    assert _changes({"targets": []}, {"targets": None}) == ""  # empty either way
    assert _changes({"params": {"a": 1, "b": "x"}}, {"params": {}}) == "params a=1, b=x -> none"
    assert _changes({"params": {}}, {"params": {"a": 2}}) == "params none -> a=2"
    assert _changes({"pt": ""}, {"pt": 4}) == "pt none -> 4"
    assert _changes({"targets": ("A",)}, {"targets": ("B",)}) == "targets A -> B"
    # dice read from a saved table as from a resolution; none at all said as such
    assert _changes({"resolution": {"pt": 2, "dice": [3, 1]}}, {"resolution": {"pt": 2}}) == "dice 3 1 -> none"
    assert _changes({}, {"resolution": Resolution(2, dice=(6,))}) == "dice none -> 6"
    assert _changes({"resolution": Resolution(2, dice=(6,))}, {"resolution": {"pt": 2, "dice": [6]}}) == ""
    # made secret only: already secret, or not asked
    assert _changes({"secret": True}, {"secret": True}) == ""
    assert _changes({}, {"secret": False}) == ""
    assert _changes({"template": "a", "pt": 1}, {"template": "b", "pt": 2, "mode": "m", "targets": ["T"], "params": {"k": 1}}) == (
        "template a -> b; mode none -> m; targets none -> T; pt 1 -> 2; params none -> k=1")


def test_a_maintained_attack_is_proposed_beside_a_companion_of_its_template() -> None:
    enc = _fight()
    enc.apply(Event("declare", {"actor": "Ann", "template": "grab", "mode": "active", "maintainable": True,
                                "resolution": Resolution(2)}))
    enc.apply(Event("advance", {"to": 2}))
    # a passive action that names the grab as its companion, initiated on the same segment
    enc.apply(Event("declare", {"actor": "Ann", "template": "look", "mode": "passive", "companions": ["grab"],
                                "resolution": Resolution(3)}))
    event = enc.apply(Event("propose", {"action": "maintain", "actor": "Ann", "resolution": Resolution(2)}))
    assert enc.proposal(event.seq).action == "maintain"
