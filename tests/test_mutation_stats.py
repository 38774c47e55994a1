"""Direct tests of tracker.reading.stats on small fights worked by hand, one rule of
docs/decisions/0009-fight-stats.md each: time down, costs on the actor against damage on
someone else, blows by an action's actor, sides of one, healing apart, and the figures'
JSON; and luck's verdicts (docs/decisions/0046-fight-luck.md)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from tests.helpers import advance, encounter
from tracker.engine import Event, Resolution
from tracker.engine.effects import Adjust, Damage
from tracker.reading.stats import Luck, fight_stats, luck_of, main_resource, poisson_binomial


def _by(items: list[Any], name: str) -> Any:
    return next(t for t in items if t.name == name)


def test_down_while_a_resource_that_puts_one_down_is_at_zero() -> None:
    """Ann (hp 20) joins on 0, drops to 0 on 2, is healed on 5, the fight runs to 8:
    down 3 (2 to 5), idle the other 5; Bob idle all 8."""
    enc = encounter("Ann", "Bob")
    advance(enc, 2)
    enc.apply(Event("damage", {"target": "Ann", "amount": 20, "resource": "hp"}))
    advance(enc, 5)
    enc.apply(Event("damage", {"target": "Ann", "amount": -4, "resource": "hp"}))
    advance(enc, 8)
    st = fight_stats(enc)
    ann, bob = _by(st.combatants, "Ann"), _by(st.combatants, "Bob")
    assert (ann.down, ann.idle, ann.acting) == (3, 5, 0)
    assert (bob.down, bob.idle) == (0, 8)
    assert ann.taken == {"hp": 20} and ann.healed == {"hp": 4}
    # healing is not damage: by hand 20, in round 1 (rounds of 50 segments)
    assert st.by_round == {"by hand": [20]}
    row = _by(st.rows, "Ann")
    assert row.resource == "hp" and row.maximum == 20 and row.series == [(0, 20), (2, 0), (5, 4)]


def test_still_down_at_the_end_counts_to_the_end() -> None:
    enc = encounter("Ann")
    advance(enc, 3)
    enc.apply(Event("damage", {"target": "Ann", "amount": 25, "resource": "hp"}))
    advance(enc, 10)
    ann = fight_stats(enc).combatants[0]
    assert (ann.down, ann.idle) == (7, 3)


def test_an_actions_cost_on_its_actor_and_its_blow_on_another() -> None:
    """Ann's hex (PT 4) costs her 5 ep on initiation (a cost, not damage) and takes 6 hp
    from Bob on completion (damage Ann dealt, Bob took, in round 1); Bob's own side is
    his name (no side), Ann's too."""
    enc = encounter("Ann", "Bob")
    enc.apply(Event("declare", {"actor": "Ann", "template": "hex", "mode": "active", "targets": ["Bob"],
                                "resolution": Resolution(pt=4, success=True, effects=(Adjust("Ann", "ep", -5), Damage("Bob", 6, "hp")))}))
    advance(enc, 6)
    st = fight_stats(enc)
    ann, bob = _by(st.combatants, "Ann"), _by(st.combatants, "Bob")
    assert ann.costs == {"ep": 5} and ann.taken == {}
    assert ann.dealt == {"hp": 6} and bob.taken == {"hp": 6}
    assert (ann.declared, ann.succeeded, ann.missed, ann.no_roll, ann.acting, ann.idle) == (1, 1, 0, 0, 4, 2)
    assert st.by_round == {"Ann": [6]}
    assert [s.name for s in st.sides] == ["Ann", "Bob"] and st.members() == [["Ann"], ["Bob"]]
    bar = _by(st.rows, "Ann").bars[0]
    assert (bar.start, bar.end, bar.mode, bar.maintained, bar.status, bar.template) == (0, 4, "active", False, "completed", "hex")
    data = st.to_json()
    assert data["segment"] == 6 and data["rounds"] == 1 and data["viewer"] is False
    assert _by_json(data["combatants"], "Ann")["costs"] == {"ep": 5}
    assert "side" in _by_json(data["combatants"], "Ann")
    assert data["sides"][0]["members"] == ["Ann"]
    assert data["timeline"][0]["actions"] == [{"start": 0, "end": 4, "mode": "active", "maintained": False, "status": "completed", "template": "hex"}]
    assert data["resources"][1] == {"name": "Bob", "resource": "hp", "maximum": 20, "points": [[0, 20], [4, 14]]}
    assert data["damage_by_round"] == {"round_name": "round", "sides": {"Ann": [6]}}
    assert data["withheld"] == []


def _by_json(items: list[dict[str, Any]], name: str) -> dict[str, Any]:
    return next(t for t in items if t["name"] == name)


def test_a_side_adds_its_members_and_passive_and_active_count_once() -> None:
    """Ann and Cy on side red: Ann active 0->4 and passive 2->6 (acting 0 to 6: 6, not
    8), Cy nothing. The fight runs to 10. Side red: 2 declared, acting 6, idle 4 + 10."""
    enc = encounter()
    for name in ("Ann", "Cy"):
        enc.apply(Event("add", {"name": name, "side": "red", "resources": {"hp": 10}}))
    enc.apply(Event("declare", {"actor": "Ann", "template": "cut", "mode": "active", "resolution": Resolution(pt=4, success=False)}))
    advance(enc, 2)
    enc.apply(Event("declare", {"actor": "Ann", "template": "guard", "mode": "passive", "resolution": Resolution(pt=4)}))
    advance(enc, 10)
    st = fight_stats(enc)
    ann = _by(st.combatants, "Ann")
    assert (ann.declared, ann.missed, ann.no_roll, ann.acting, ann.idle) == (2, 1, 1, 6, 4)
    red = _by(st.sides, "red")
    assert (red.declared, red.missed, red.no_roll, red.acting, red.idle, red.down) == (2, 1, 1, 6, 14, 0)
    assert red.luck.verdict == "no chances recorded" and red.luck.unrecorded == 1


def test_main_resource_is_the_first_that_puts_one_down_else_the_first() -> None:
    enc = encounter()
    enc.apply(Event("add", {"name": "Ann", "resources": {"ep": 3, "hp": 5}}))
    enc.apply(Event("add", {"name": "Bo", "resources": {"ep": 2}}))
    enc.apply(Event("add", {"name": "Cy"}))
    assert main_resource(enc.combatants["Ann"], ("hp",)) == "hp"
    assert main_resource(enc.combatants["Ann"], ("vp", "hp")) == "hp"
    assert main_resource(enc.combatants["Bo"], ("hp",)) == "ep"
    assert main_resource(enc.combatants["Cy"], ("hp",)) == ""


# ------------------------------------------------------------------ luck
def test_luck_verdicts() -> None:
    """Two rolls at 1/2: expected 1. One success: exactly as expected. Two: 1 off; 0 and
    2 are that far: 1/4 + 1/4 = 1/2, at or over 20%: about as expected."""
    even = luck_of([Fraction(1, 2)] * 2, [True, False])
    assert (even.rolls, even.successes, even.expected, even.tail, even.verdict) == (2, 1, Fraction(1), Fraction(1), "exactly as expected")
    both = luck_of([Fraction(1, 2)] * 2, [True, True])
    assert both.tail == Fraction(1, 2) and both.verdict == "about as expected"
    # Three at 9/10 all missed: 2.7 off; only 0 is that far: 1/1000.
    bad = luck_of([Fraction(9, 10)] * 3, [False] * 3)
    assert bad.tail == Fraction(1, 1000) and bad.verdict == "unluckier than expected"
    assert luck_of([], [], unrecorded=3) == Luck(unrecorded=3)
    assert bad.to_json() == {"rolls": 3, "successes": 0, "expected": 2.7, "expected_fraction": "27/10", "tail": 0.001,
                             "tail_exact": True, "unrecorded": 0, "verdict": "unluckier than expected"}


def test_the_distribution_of_successes() -> None:
    """Chances 1/2 and 1/3: none 1/2 * 2/3 = 1/3, one 1/2 * 2/3 + 1/2 * 1/3 = 1/2, both 1/6."""
    assert poisson_binomial([Fraction(1, 2), Fraction(1, 3)]) == [Fraction(1, 3), Fraction(1, 2), Fraction(1, 6)]
    assert poisson_binomial([]) == [Fraction(1)]
