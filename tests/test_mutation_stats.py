"""Direct tests of tracker.reading.stats on small fights worked by hand, one rule of
docs/decisions/0009-fight-stats.md each: time down, costs on the actor against damage on
someone else, blows by an action's actor, sides of one, healing apart, and the figures'
JSON; and luck's verdicts (docs/decisions/0046-fight-luck.md)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from tests.helpers import advance, encounter
from tracker.engine import Event, Resolution
from rulesets.base import CARRIED_ROLL
from rulesets.limits import MAX_LUCK_EXACT
from tracker.engine.effects import Adjust, Condition, Damage, Throwback, Upkeep
from tracker.reading.stats import Luck, Tally, fight_stats, luck_of, main_resource, poisson_binomial


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
                             "tail_exact": True, "unrecorded": 0, "weighed": True, "verdict": "unluckier than expected"}


def test_luck_past_its_limit_is_counted_and_said_not_weighed() -> None:
    """rulesets/limits.py: luck is weighed over at most MAX_LUCK_ROLLS rolls (5,000);
    beyond, the rolls, successes and expectation are counted and the luck is not weighed
    (not a wait of minutes: the Poisson-binomial's time is the square of the rolls)."""
    from rulesets.limits import MAX_LUCK_ROLLS
    from tracker.reading.charts import luck_line
    assert MAX_LUCK_ROLLS == 5000
    at = luck_of([Fraction(1, 2)] * 5000, [True, False] * 2500)
    assert at.weighed and at.verdict == "exactly as expected"
    past = luck_of([Fraction(1, 2)] * 5001, [True] * 5001)
    assert (past.rolls, past.successes, past.expected, past.weighed) == (5001, 5001, Fraction(5001, 2), False)
    assert past.verdict == "not weighed (more than 5,000 rolls)"
    assert past.to_json()["tail"] is None and past.to_json()["weighed"] is False
    assert luck_line(past) == "5001 of 5001 (expected 2500.50): not weighed (more than 5,000 rolls)"


def test_the_distribution_of_successes() -> None:
    """Chances 1/2 and 1/3: none 1/2 * 2/3 = 1/3, one 1/2 * 2/3 + 1/2 * 1/3 = 1/2, both 1/6."""
    assert poisson_binomial([Fraction(1, 2), Fraction(1, 3)]) == [Fraction(1, 3), Fraction(1, 2), Fraction(1, 6)]
    assert poisson_binomial([]) == [Fraction(1)]


# ------------------------------------------------------------------ what each change did
def test_each_maintained_link_counts_as_declared_and_by_its_roll() -> None:
    """0009: "An action is a declaration or a maintained link. It succeeded or missed by
    its roll." Ann's cut (PT 4, chance 1/2) hits; the link she maintains on 4 (PT 4,
    chance 1/2) misses; the fight runs to 8. Ann: 2 declared, 1 succeeded, 1 missed,
    acting 0 to 8. Luck: 2 rolls at 1/2, expected 1, 1 success."""
    enc = encounter("Ann", "Bob")
    enc.apply(Event("declare", {"actor": "Ann", "template": "cut", "mode": "active", "maintainable": True, "chance": "1/2",
                                "resolution": Resolution(pt=4, success=True)}))
    advance(enc, 4)
    enc.apply(Event("maintain", {"actor": "Ann", "chance": "1/2", "resolution": Resolution(pt=4, success=False)}))
    advance(enc, 8)
    st = fight_stats(enc)
    ann = _by(st.combatants, "Ann")
    assert (ann.declared, ann.succeeded, ann.missed, ann.acting, ann.idle) == (2, 1, 1, 8, 0)
    assert (ann.luck.rolls, ann.luck.successes, ann.luck.expected) == (2, 1, Fraction(1))
    assert [(b.start, b.end, b.maintained) for b in _by(st.rows, "Ann").bars] == [(0, 4, False), (4, 8, True)]  # a declaration, then a link


def test_a_change_to_someone_elses_resource_is_damage_and_one_point_off_the_actor_a_cost() -> None:
    """0009: "An action's resource change on its own actor (EP for a Brand X punch) and
    upkeep payments are costs; on someone else it is damage dealt." Ann's drain (PT 4,
    on initiation) takes 1 EP from Ann (a cost, however small) and 3 EP from Bob (damage
    Ann dealt, Bob took, round 1)."""
    enc = encounter("Ann", "Bob")
    enc.apply(Event("declare", {"actor": "Ann", "template": "drain", "mode": "active", "targets": ["Bob"],
                                "resolution": Resolution(pt=4, success=True, effects=(Adjust("Ann", "ep", -1), Adjust("Bob", "ep", -3)))}))
    advance(enc, 6)
    st = fight_stats(enc)
    ann, bob = _by(st.combatants, "Ann"), _by(st.combatants, "Bob")
    assert ann.costs == {"ep": 1} and ann.dealt == {"ep": 3} and ann.taken == {}
    assert bob.taken == {"ep": 3} and bob.costs == {}
    assert st.by_round == {"Ann": [3]}


def test_a_change_made_by_a_hidden_combatant_stays_unseen_after_it_shows_itself() -> None:
    """0009: "Hidden combatants are left out, and so is everything a combatant did while
    hidden." Lurk (hidden) saps 3 HP from Ann (a change) and strikes her for 2 (a blow)
    on 2, and is shown on 3; then Ann's hex takes 4 HP from Lurk on 5. A viewer: Ann's
    5 taken is credited to no one ("unseen": Lurk was hidden when it was dealt), Ann's
    4 to her side; the GM sees both dealers."""
    enc = encounter()
    for name, hidden in (("Ann", False), ("Lurk", True)):
        enc.apply(Event("add", {"name": name, "side": "party", "hidden": hidden, "resources": {"hp": 20}}))
    enc.apply(Event("declare", {"actor": "Lurk", "template": "sap", "mode": "active", "targets": ["Ann"],
                                "resolution": Resolution(pt=2, effects=(Adjust("Ann", "hp", -3, timing="complete"), Damage("Ann", 2, "hp")))}))
    advance(enc, 3)
    enc.apply(Event("hide", {"target": "Lurk", "hidden": False}))
    enc.apply(Event("declare", {"actor": "Ann", "template": "hex", "mode": "active", "targets": ["Lurk"],
                                "resolution": Resolution(pt=2, effects=(Adjust("Lurk", "hp", -4, timing="complete"),))}))
    advance(enc, 6)
    seen = fight_stats(enc, viewer=True)
    assert seen.by_round == {"unseen": [5], "party": [4]}
    assert _by(seen.combatants, "Ann").dealt == {"hp": 4} and _by(seen.combatants, "Lurk").dealt == {}
    assert fight_stats(enc).by_round == {"party": [9]}


def test_a_change_to_someone_no_longer_in_the_fight_lapses() -> None:
    """Ann's hex (PT 4) would take 2 EP from Bob on completion; Bob leaves on 2. The
    change lapses (nothing dealt, nothing taken) and the figures are still read."""
    enc = encounter("Ann", "Bob")
    enc.apply(Event("declare", {"actor": "Ann", "template": "hex", "mode": "active", "targets": ["Bob"],
                                "resolution": Resolution(pt=4, effects=(Adjust("Bob", "ep", -2, timing="complete"),))}))
    advance(enc, 2)
    enc.apply(Event("remove", {"name": "Bob"}))
    advance(enc, 6)
    st = fight_stats(enc)
    ann = _by(st.combatants, "Ann")
    assert (ann.declared, ann.dealt, ann.acting, ann.idle) == (1, {}, 4, 2)
    assert st.by_round == {}


def test_put_down_mid_action_by_a_change_or_a_blow() -> None:
    """0009: down "while a resource of the ruleset's `down_when` is at zero", and an
    interrupted action still counts as declared. Bob and Cy each chant (PT 10) from 0;
    on 4 Ann's hex takes Bob's 20 HP (a change) and Dee's stab deals Cy 20 HP (a blow):
    both are down from 4 to the end (12), their chants cut on 4: acting 4, down 8, idle
    0, 1 interrupted."""
    enc = encounter("Ann", "Bob", "Cy", "Dee")
    for name in ("Bob", "Cy"):
        enc.apply(Event("declare", {"actor": name, "template": "chant", "mode": "active", "resolution": Resolution(pt=10)}))
    enc.apply(Event("declare", {"actor": "Ann", "template": "hex", "mode": "active", "targets": ["Bob"],
                                "resolution": Resolution(pt=4, effects=(Adjust("Bob", "hp", -20, timing="complete"),))}))
    enc.apply(Event("declare", {"actor": "Dee", "template": "stab", "mode": "active", "targets": ["Cy"],
                                "resolution": Resolution(pt=4, effects=(Damage("Cy", 20, "hp"),))}))
    advance(enc, 12)
    st = fight_stats(enc)
    for name in ("Bob", "Cy"):
        t = _by(st.combatants, name)
        assert (t.declared, t.interrupted, t.acting, t.down, t.idle) == (1, 1, 4, 8, 0), name
        assert t.taken == {"hp": 20}
    assert _by(st.combatants, "Ann").dealt == {"hp": 20} and _by(st.combatants, "Dee").dealt == {"hp": 20}


def test_upkeep_payments_are_costs_one_at_a_time_or_many_at_once() -> None:
    """0009: "upkeep payments are costs". Ann's glow (PT 1) sets an upkeep of 2 EP a
    payment; payments fall every 10 segments. Time moves to 10 (one payment), then to 50
    (four more): 5 payments, 10 EP, all costs, none of it damage."""
    enc = encounter("Ann", payment_every=10)
    enc.apply(Event("declare", {"actor": "Ann", "template": "glow", "mode": "active",
                                "resolution": Resolution(pt=1, effects=(Upkeep("Ann", "glow", "ep", 2),))}))
    advance(enc, 10)
    assert fight_stats(enc).combatants[0].costs == {"ep": 2}
    advance(enc, 50)
    st = fight_stats(enc)
    ann = st.combatants[0]
    assert ann.costs == {"ep": 10} and ann.taken == {} and ann.dealt == {}
    assert st.by_round == {}
    assert enc.combatants["Ann"].resources["ep"] == 30 - 10


def test_marks_on_the_timeline_and_in_the_json() -> None:
    """B's kick (PT 2) throws A back with no time airborne (lands on the segment it was
    thrown: a mark from 2 to 2) and leaves A prone for 3 segments (2 to 5). Both are
    marks on A's row, in the JSON's timeline under A's name, as are the fight's name and
    ruleset."""
    enc = encounter("A", "B")
    enc.apply(Event("declare", {"actor": "B", "template": "kick", "mode": "active", "targets": ["A"],
                                "resolution": Resolution(pt=2, effects=(Throwback("A", 1.0, 1.0, 0), Condition("A", "prone", 3)))}))
    advance(enc, 6)
    st = fight_stats(enc)
    assert _by(st.rows, "A").marks == [("throwback", 2, 2), ("prone", 2, 5)]
    data = st.to_json()
    assert (data["name"], data["ruleset"]) == ("test", "freeform")
    row = next(r for r in data["timeline"] if r["name"] == "A")
    assert row["marks"] == [{"what": "throwback", "start": 2, "end": 2}, {"what": "prone", "start": 2, "end": 5}]
    assert [r["name"] for r in data["timeline"]] == ["A", "B"]


# ------------------------------------------------------------------ the figures' JSON
def test_a_tallys_json_names_every_figure() -> None:
    """`--json`: each figure of a tally under its name; an enemy whose figures are
    withheld (0009) shows no damage taken, healing or costs, only its label."""
    t = Tally("Ann", "red", declared=9, succeeded=4, missed=3, no_roll=2, secret=1, aborted=5, interrupted=6,
              dealt={"hp": 7}, taken={"hp": 8}, healed={"hp": 1}, costs={"ep": 11}, acting=12, idle=13, down=14)
    out = t.to_json()
    luck = out.pop("luck")
    assert luck["verdict"] == "no rolls"
    assert out == {"name": "Ann", "side": "red", "declared": 9, "succeeded": 4, "missed": 3, "no_roll": 2,
                   "rolled_in_secret": 1, "aborted": 5, "interrupted": 6, "dealt": {"hp": 7}, "taken": {"hp": 8},
                   "healed": {"hp": 1}, "costs": {"ep": 11}, "acting": 12, "idle": 13, "down": 14}
    hidden = Tally("Sphinx", "monsters", declared=1, dealt={"vp": 2}, taken={"vp": 3}, healed={"vp": 1}, costs={"ep": 4},
                   withheld=True, label="Bloodied").to_json()
    assert hidden["withheld"] is True and hidden["health"] == "Bloodied"
    assert (hidden["taken"], hidden["healed"], hidden["costs"], hidden["dealt"]) == (None, None, None, {"vp": 2})
    assert "withheld" not in t.to_json()


# ------------------------------------------------------------------ luck's limits
def test_luck_is_exact_up_to_the_limit_and_a_probability_beyond_it() -> None:
    """0046: "Computed with exact fractions up to `MAX_LUCK_EXACT` rolls, in floating
    point beyond." At the limit, even chances with half the rolls succeeding: exactly
    as expected, every count is at least 0 off: a tail of exactly 1. One roll more:
    floating point, and still a probability (at most 1)."""
    n = MAX_LUCK_EXACT
    at = luck_of([Fraction(1, 2)] * n, [True, False] * (n // 2))
    assert at.exact and at.tail == 1 and at.verdict == "exactly as expected"
    # 1000 rolls at 1/5 and one certain: expected 200 + 1 = 201, and 201 succeeded.
    chances = [Fraction(1, 5)] * n + [Fraction(1)]
    outcomes = [k < 201 for k in range(n + 1)]
    beyond = luck_of(chances, outcomes)
    assert not beyond.exact and beyond.tail == 1.0 and beyond.to_json()["tail"] == 1.0


def test_rolls_without_a_kept_chance_are_counted_beside_those_with_one() -> None:
    """0046: rolls without a kept chance are "counted as 'no chance recorded'". Ann rolls
    twice: once with the chance kept (1/2, a hit), once from before chances were kept
    (a miss): 1 roll against odds, 1 unrecorded, for her and her side."""
    enc = encounter("Ann")
    enc.apply(Event("declare", {"actor": "Ann", "template": "cut", "mode": "active", "chance": "1/2",
                                "resolution": Resolution(pt=2, success=True)}))
    advance(enc, 2)
    enc.apply(Event("declare", {"actor": "Ann", "template": "cut", "mode": "active", "resolution": Resolution(pt=2, success=False)}))
    advance(enc, 4)
    st = fight_stats(enc)
    for t in (st.combatants[0], st.sides[0]):
        assert (t.luck.rolls, t.luck.unrecorded) == (1, 1)
        assert t.to_json()["luck"]["unrecorded"] == 1


def test_an_action_aborted_as_it_began_takes_no_time_and_hides_none_of_what_follows() -> None:
    """0009: aborted actions still count as declared; acting is "while any of its actions
    is in progress". Ann's cut is declared and aborted on 0 (no segment in progress);
    she then stabs from 1 to 5 (one initiation a segment); the fight runs to 6: 2
    declared, 1 aborted, acting 4, idle 2."""
    enc = encounter("Ann")
    enc.apply(Event("declare", {"actor": "Ann", "template": "cut", "mode": "active", "resolution": Resolution(pt=3)}))
    enc.apply(Event("abort", {"actor": "Ann"}))
    advance(enc, 1)
    enc.apply(Event("declare", {"actor": "Ann", "template": "stab", "mode": "active", "resolution": Resolution(pt=4)}))
    advance(enc, 6)
    ann = fight_stats(enc).combatants[0]
    assert (ann.declared, ann.aborted, ann.acting, ann.idle) == (2, 1, 4, 2)


def test_down_across_several_moves_of_time_is_one_stretch() -> None:
    """0009: down "while a resource of the ruleset's `down_when` is at zero". Ann drops
    to 0 HP on 2; time moves to 4, 6 and 8 with nothing else happening; she is healed on
    8; the fight runs to 10: down 6 (2 to 8), idle 4."""
    enc = encounter("Ann")
    advance(enc, 2)
    enc.apply(Event("damage", {"target": "Ann", "amount": 20, "resource": "hp"}))
    for to in (4, 6, 8):
        advance(enc, to)
    enc.apply(Event("damage", {"target": "Ann", "amount": -5, "resource": "hp"}))
    advance(enc, 10)
    ann = fight_stats(enc).combatants[0]
    assert (ann.down, ann.idle, ann.acting) == (6, 4, 0)


def test_a_link_that_carries_an_earlier_roll_counts_by_it_and_stays_out_of_luck() -> None:
    """0046 and 0053: a maintained link that rolled nothing of its own but carries the
    first link's roll (`CARRIED_ROLL`, a certain chance) "is no roll against odds and is
    left out". Ann's cut (chance 1/2) hits; her link carries that hit (chance 1/1);
    then her stab (chance 1/4) misses. 3 declared, 2 succeeded, 1 missed; luck over the
    cut and the stab: 2 rolls, expected 1/2 + 1/4 = 3/4, 1 success."""
    enc = encounter("Ann", "Bob")
    enc.apply(Event("declare", {"actor": "Ann", "template": "cut", "mode": "active", "maintainable": True, "chance": "1/2",
                                "resolution": Resolution(pt=4, success=True)}))
    advance(enc, 4)
    enc.apply(Event("maintain", {"actor": "Ann", "chance": "1/1",
                                 "resolution": Resolution(pt=2, success=True, details={CARRIED_ROLL: "segment 0"})}))
    advance(enc, 6)
    enc.apply(Event("declare", {"actor": "Ann", "template": "stab", "mode": "active", "chance": "1/4",
                                "resolution": Resolution(pt=2, success=False)}))
    advance(enc, 8)
    ann = _by(fight_stats(enc).combatants, "Ann")
    assert (ann.declared, ann.succeeded, ann.missed) == (3, 2, 1)
    assert (ann.luck.rolls, ann.luck.expected, ann.luck.successes, ann.luck.unrecorded) == (2, Fraction(3, 4), 1, 0)


def test_a_sides_luck_is_over_every_members_rolls() -> None:
    """0046: "A side's successes are compared with the sum of those chances". Side red:
    Ann rolls at 1/2 and hits, Cy at 1/4 and misses: 2 rolls, expected 3/4, 1 success;
    each member's own luck is its one roll."""
    enc = encounter()
    for name in ("Ann", "Cy"):
        enc.apply(Event("add", {"name": name, "side": "red", "resources": {"hp": 10}}))
    enc.apply(Event("declare", {"actor": "Ann", "template": "cut", "mode": "active", "chance": "1/2", "resolution": Resolution(pt=2, success=True)}))
    enc.apply(Event("declare", {"actor": "Cy", "template": "cut", "mode": "active", "chance": "1/4", "resolution": Resolution(pt=2, success=False)}))
    advance(enc, 2)
    st = fight_stats(enc)
    red = _by(st.sides, "red")
    assert (red.luck.rolls, red.luck.expected, red.luck.successes) == (2, Fraction(3, 4), 1)
    assert [(t.luck.rolls, t.luck.successes) for t in st.combatants] == [(1, 1), (1, 0)]


def test_time_is_counted_from_joining() -> None:
    """0009: "a combatant's segments from joining to the end of the log". Ann is there
    from 0; Cy joins on 4, Dee on 10, when the fight stops: Cy idle 6, Dee 0."""
    enc = encounter("Ann")
    advance(enc, 4)
    enc.apply(Event("add", {"name": "Cy", "resources": {"hp": 10}}))
    advance(enc, 10)
    enc.apply(Event("add", {"name": "Dee", "resources": {"hp": 10}}))
    st = fight_stats(enc)
    assert [(t.name, t.acting, t.idle, t.down) for t in st.combatants] == [("Ann", 0, 10, 0), ("Cy", 0, 6, 0), ("Dee", 0, 0, 0)]


def test_an_action_interrupted_then_another_counts_one_interruption() -> None:
    """A's run (PT 10, from 0) is cut on 2 by B's kick (a throwback, not airborne); A
    dashes from 3 to 5. A: 2 declared, 1 interrupted, none aborted."""
    enc = encounter("A", "B")
    enc.apply(Event("declare", {"actor": "A", "template": "run", "mode": "active", "resolution": Resolution(pt=10)}))
    enc.apply(Event("declare", {"actor": "B", "template": "kick", "mode": "active", "targets": ["A"],
                                "resolution": Resolution(pt=2, effects=(Throwback("A", 1.0, 1.0, 0),))}))
    advance(enc, 3)
    enc.apply(Event("declare", {"actor": "A", "template": "dash", "mode": "active", "resolution": Resolution(pt=2)}))
    advance(enc, 6)
    a = _by(fight_stats(enc).combatants, "A")
    assert (a.declared, a.interrupted, a.aborted, a.acting) == (2, 1, 0, 4)


def _label_fight() -> Any:
    """Ann (party) and Orc (an enemy, shown to viewers by label): Orc is dropped to 0 HP
    on 2 and healed on 6; the fight runs to 10. Hidden Lurk (enemy) acts twice while
    hidden (0 -> 2 and 2 -> 4), its second action taking 2 HP from Ann twice over (a
    change and a blow), and is shown on 10."""
    enc = encounter()
    enc.apply(Event("add", {"name": "Ann", "side": "party", "resources": {"hp": 20}}))
    enc.apply(Event("add", {"name": "Orc", "side": "orcs", "resources": {"hp": 10}}))
    enc.apply(Event("add", {"name": "Lurk", "side": "orcs", "hidden": True, "resources": {"hp": 10}}))
    enc.apply(Event("setting", {"key": "viewer_resources", "value": "label"}))
    enc.apply(Event("declare", {"actor": "Lurk", "template": "creep", "mode": "active", "resolution": Resolution(pt=2)}))
    advance(enc, 2)
    enc.apply(Event("damage", {"target": "Orc", "amount": 10, "resource": "hp"}))
    enc.apply(Event("declare", {"actor": "Lurk", "template": "sap", "mode": "active", "targets": ["Ann"],
                                "resolution": Resolution(pt=2, effects=(Adjust("Ann", "hp", -2, timing="complete"), Damage("Ann", 2, "hp")))}))
    advance(enc, 6)
    enc.apply(Event("damage", {"target": "Orc", "amount": -3, "resource": "hp"}))
    advance(enc, 10)
    enc.apply(Event("hide", {"target": "Lurk", "hidden": False}))
    return enc


def test_what_viewers_are_not_shown_is_named_and_counted() -> None:
    """0009: "Nothing is hidden silently: each withheld figure is named." A viewer of
    the fight above: Orc's and Lurk's figures withheld, with their labels; Lurk's 2
    actions while hidden not counted; the 2 changes it made to Ann credited to no one. Orc's side is
    withheld (its one member seen is), the party's is not. Orc's time down is not told
    either (it would say its HP reached 0)."""
    enc = _label_fight()
    st = fight_stats(enc, viewer=True)
    orc, lurk = _by(st.combatants, "Orc"), _by(st.combatants, "Lurk")
    assert st.withheld == [f"Orc: figures withheld from viewers ({orc.label})", f"Lurk: figures withheld from viewers ({lurk.label})",
                           "2 action(s) taken while hidden are not counted",
                           "damage from 2 blow(s) by unseen combatants is not credited to anyone"]
    assert orc.label and lurk.label and lurk.declared == 0
    assert (orc.withheld, orc.down) == (True, 0)
    row = _by(st.rows, "Orc")  # the data the charts draw holds no series or maximum either
    assert (row.withheld, row.resource, row.series, row.maximum) == (True, "hp", [], None)
    sides = {s["name"]: s for s in st.to_json()["sides"]}
    assert sides["orcs"]["withheld"] is True and sides["orcs"]["taken"] is None
    assert "withheld" not in sides["party"] and sides["party"]["taken"] == {"hp": 4}
    gm = _by(fight_stats(enc).combatants, "Orc")
    assert (gm.down, gm.idle) == (4, 6)  # the GM sees it: down 2 to 6


def test_a_withheld_enemys_time_down_cannot_be_worked_out_from_its_other_figures() -> None:
    """Orc, shown to viewers by label, was down from 2 to 6 of the 10 segments. Its
    acting and idle must not leave a gap that tells the viewers how long it was down:
    for a viewer its 10 segments are idle (it did not act), none down."""
    orc = _by(fight_stats(_label_fight(), viewer=True).combatants, "Orc")
    assert (orc.acting, orc.idle, orc.down) == (0, 10, 0)


def test_an_enemy_hidden_from_viewers_in_full_is_named_without_a_label() -> None:
    """`viewer_resources hidden`: the enemy's figures are withheld and no label stands in
    for them: the note names it, with nothing in brackets."""
    enc = encounter()
    enc.apply(Event("add", {"name": "Orc", "side": "orcs", "resources": {"hp": 10}}))
    enc.apply(Event("setting", {"key": "viewer_resources", "value": "hidden"}))
    st = fight_stats(enc, viewer=True)
    assert st.withheld == ["Orc: figures withheld from viewers"]
    assert fight_stats(encounter("Ann"), viewer=True).withheld == []


def test_a_combatant_hidden_to_the_end_leaves_no_trace_for_viewers() -> None:
    """0009: "Hidden combatants are left out, and so is everything a combatant did while
    hidden": not even a count of their actions, which would tell viewers someone hidden
    is there. Ghost (hidden) acts on 0; Ann acts after it on 0; Wisp acts on 0 in the
    open and is hidden on 1. A viewer sees Ann's one action and nothing else."""
    enc = encounter()
    enc.apply(Event("add", {"name": "Ghost", "hidden": True, "resources": {"hp": 10}}))
    for name in ("Ann", "Wisp"):
        enc.apply(Event("add", {"name": name, "resources": {"hp": 10}}))
    for name in ("Ghost", "Ann", "Wisp"):
        enc.apply(Event("declare", {"actor": name, "template": "feint", "mode": "active", "resolution": Resolution(pt=2)}))
    advance(enc, 1)
    enc.apply(Event("hide", {"target": "Wisp"}))
    advance(enc, 4)
    st = fight_stats(enc, viewer=True)
    assert [(t.name, t.declared, t.acting) for t in st.combatants] == [("Ann", 1, 2)]
    assert st.withheld == []


def test_each_roll_made_in_secret_counts_as_rolled_in_secret_for_viewers() -> None:
    """0009: "a secret roll counts as declared with its outcome 'rolled in secret' and is
    left out of luck". Ann rolls twice in secret (chance 1/2: a hit, then a miss): a
    viewer sees 2 declared, 2 rolled in secret, neither hit nor miss, no luck; the GM
    sees the hit and the miss."""
    enc = encounter("Ann")
    for at, success in ((0, True), (2, False)):
        if at:
            advance(enc, at)
        enc.apply(Event("declare", {"actor": "Ann", "template": "cut", "mode": "active", "secret": True, "chance": "1/2",
                                    "resolution": Resolution(pt=2, success=success)}))
    advance(enc, 4)
    seen = fight_stats(enc, viewer=True).combatants[0]
    assert (seen.declared, seen.secret, seen.succeeded, seen.missed, seen.luck.rolls) == (2, 2, 0, 0, 0)
    gm = fight_stats(enc).combatants[0]
    assert (gm.declared, gm.secret, gm.succeeded, gm.missed, gm.luck.rolls) == (2, 0, 1, 1, 2)


def test_blows_on_a_hidden_combatant_are_left_out_and_later_ones_counted() -> None:
    """0009: "Hidden combatants are left out". Ann's stab lands 3 HP on hidden Ghost on
    2; Bob's lands 4 on Ann on 4. A viewer: nothing dealt by Ann, 4 taken by Ann and
    dealt by Bob; the GM sees both."""
    enc = encounter()
    enc.apply(Event("add", {"name": "Ghost", "hidden": True, "resources": {"hp": 10}}))
    for name in ("Ann", "Bob"):
        enc.apply(Event("add", {"name": name, "resources": {"hp": 10}}))
    enc.apply(Event("declare", {"actor": "Ann", "template": "stab", "mode": "active", "targets": ["Ghost"],
                                "resolution": Resolution(pt=2, effects=(Damage("Ghost", 3, "hp"),))}))
    enc.apply(Event("declare", {"actor": "Bob", "template": "stab", "mode": "active", "targets": ["Ann"],
                                "resolution": Resolution(pt=4, effects=(Damage("Ann", 4, "hp"),))}))
    advance(enc, 5)
    seen = fight_stats(enc, viewer=True)
    ann, bob = _by(seen.combatants, "Ann"), _by(seen.combatants, "Bob")
    assert (ann.dealt, ann.taken, bob.dealt) == ({}, {"hp": 4}, {"hp": 4})
    assert seen.by_round == {"Bob": [4]}
    assert fight_stats(enc).by_round == {"Ann": [3], "Bob": [4]}
