"""Direct tests of rulesets.brandx.common: what every Brand X resolution reads (the
request's figures, the sheet's defaults, bonus pools, Editing Points, Extra Effort,
Saving Quality, Q spent in order, EP paid as an action starts, the Defense in force).

Expected values are worked from the module docstring, the seed (seeds/004, Brand X) and
the shipped tables (`rulesets/brandx/tables.toml`: the Sphere chart, rows 1-8 are n,
row 9 is 10, row 10 is 14, row 11 is 18; [ep_start]: combat 5, power 9, ability 0; a
row r >= 5 costs r - 4 EP a use, row 4 one EP per 5 uses, first use paid)."""

from __future__ import annotations

from typing import Any

import pytest

from rulesets.base import ActionRequest
from rulesets.brandx import BrandXRuleset
from rulesets.brandx.common import Ctx, Spent, defense_of, latest_action, passive_defense
from tracker.engine import Encounter, Event, Resolution, Setup, TimeMapping
from tracker.engine.effects import INITIATE, Adjust, Note
from tracker.engine.errors import TrackerError
from tracker.engine.model import Combatant
from tests.helpers import advance, session_for

RULES = BrandXRuleset()


def ctx_of(actor: Combatant, template: str = "ability", params: dict[str, Any] | None = None, segment: int = 0,
           pt: int = 10, encounter: Encounter | None = None) -> Ctx:
    request = ActionRequest(RULES.template(template), actor, (), params or {}, segment, {}, None, pt, encounter)
    return RULES.ctx(request)


def bare(name: str = "A", stats: dict[str, Any] | None = None, **resources: int | float) -> Combatant:
    return Combatant(name, dict(stats or {}), dict(resources), dict(resources))


def last(s: Any) -> Any:
    return s.encounter.actions[-1]


# ---------------------------------------------------------------------------- Spent
def test_spent_reads_an_unplaced_key_as_nothing_and_names_what_was_placed() -> None:
    spent = Spent(9, {"q_speed": 3, "q_attack": 0, "unspent": 6})
    assert spent["q_speed"] == 3 and spent["q_ep"] == 0 and spent["unspent"] == 6
    # Amounts of 0 are left out; a key the labels do not name is shown as itself.
    assert spent.text({"q_speed": "speed", "q_attack": "Attack"}) == "3 to speed, 6 to unspent"
    assert Spent(0).text({}) == "nothing spent"
    assert Spent(4, {"q_ep": 0}).text({"q_ep": "EP"}) == "nothing spent"
    assert Spent(5).amounts == {} and Spent(5).notes == []


# ---------------------------------------------------------------------------- the request
def test_the_context_reads_the_request() -> None:
    me = bare()
    s = session_for(RULES, "add B")
    ctx = ctx_of(me, params={"pool": 0, "roll": None}, segment=37, pt=12, encounter=s.encounter)
    assert ctx.actor is me and ctx.encounter is s.encounter and ctx.segment == 37 and ctx.base_pt() == 12
    assert dict(ctx.params) == {"pool": 0, "roll": None}
    # A parameter given as 0 is 0; one unset (None) or absent takes the default.
    assert ctx.p("pool", 5) == 0
    assert ctx.p("roll", 7) == 7
    assert ctx.p("editing", 3) == 3
    assert ctx.p("editing") is None


def test_a_stat_missing_from_the_sheet_takes_the_sheets_default_or_is_refused_by_name() -> None:
    me = bare("Bare", {"agility": 14})
    other = bare("Other", {"agility": 3})
    ctx = ctx_of(me)
    assert ctx.stat("agility") == 14
    assert ctx.stat("agility", other) == 3
    # The sheet's defaults (rulesets/brandx/__init__.py SHEET): abilities 10, mass 70 kg, height 1.75 m.
    assert ctx.stat("strength") == 10 and ctx.stat("beauty") == 10
    assert ctx.stat("mass") == 70.0 and ctx.stat("height") == 1.75
    with pytest.raises(TrackerError) as refused:
        ctx.stat("combat_roll")
    assert str(refused.value) == "Bare has no combat_roll on the sheet"
    with pytest.raises(TrackerError) as refused:
        ctx.stat("combat_roll", other)
    assert str(refused.value) == "Other has no combat_roll on the sheet"


# ---------------------------------------------------------------------------- EP
def test_ep_paid_as_the_action_starts_and_the_gm_told_when_it_goes_below_zero() -> None:
    me, other = bare("A", ep=3), bare("B", ep=1)
    ctx = ctx_of(me)
    assert ctx.pay_ep(0, "nothing") == []
    assert ctx.pay_ep(2, "combat: 2 EP") == [Adjust("A", "ep", -2, "combat: 2 EP")]
    assert ctx.pay_ep(3, "all of it") == [Adjust("A", "ep", -3, "all of it")]  # down to 0: not below
    below = ctx.pay_ep(5, "power: 5 EP")
    assert below == [
        Adjust("A", "ep", -5, "power: 5 EP"),
        Note("A's EP goes from 3 to -2: the rules say nothing of EP below 0, so the GM decides what it costs A "
             "(stop the action: `abort A`; or take it from VP or DP: `damage A N`)", timing=INITIATE),
    ]
    # Paid by another (`who`): its own EP and its own name.
    paid = ctx.pay_ep(2, "held", other)
    assert paid[0] == Adjust("B", "ep", -2, "held")
    assert isinstance(paid[1], Note) and paid[1].text.startswith("B's EP goes from 1 to -1: ")
    # No EP on the sheet: paid, and nothing to say.
    assert ctx_of(bare("C")).pay_ep(4, "x") == [Adjust("C", "ep", -4, "x")]


def test_the_ep_row_an_action_starts_on_is_the_tables_unless_stated() -> None:
    me = bare()
    assert ctx_of(me, "power").start_row("power") == 9
    assert ctx_of(me, "punch").start_row("combat") == 5
    assert ctx_of(me).start_row("ability") == 0
    assert ctx_of(me, "power", {"ep_row": 3}).start_row("power") == 3
    assert ctx_of(me, "power", {"ep_row": 0}).start_row("power") == 0  # row 0 stated: free, not row 9
    assert ctx_of(me, "power", {"ep_row": "6"}).start_row("power") == 6


def test_the_bill_counts_the_actors_own_earlier_uses_of_a_row() -> None:
    """Row 4 costs 1 EP per 5 uses, paid on the first of each run (ep.py): A's second use
    is free, B's first is paid."""
    s = session_for(RULES, "add A ep=30", "add B ep=30", "declare A ability ep_row=4 faces=5,5")
    assert last(s).resolution.details["ep_uses"] == [{"what": "strength roll", "row": 4, "paid": 1}]
    enc = s.encounter
    ctx_a = ctx_of(enc.combatant("A"), encounter=enc)
    ctx_b = ctx_of(enc.combatant("B"), encounter=enc)
    assert ctx_a.bill([("again", 4)]).total == 0
    assert ctx_b.bill([("again", 4)]).total == 1
    assert ctx_a.bill([("power", 9)]).text() == "5 EP (power row 9: 5)"
    assert ctx_a.bill().total == 0 and ctx_a.bill().text() == "no EP"


# ---------------------------------------------------------------------------- Editing Points, Extra Effort
def test_editing_points_add_one_each_and_come_off_the_sheet_when_it_has_them() -> None:
    assert ctx_of(bare()).editing() == (0, [])
    assert ctx_of(bare(), params={"editing": 0}).editing() == (0, [])
    assert ctx_of(bare(), params={"editing": -2}).editing() == (0, [])
    assert ctx_of(bare(), params={"editing": 3}).editing() == (3, [])  # no count kept on the sheet
    keeper = bare("Ed", {"editing_points": 5})
    assert ctx_of(keeper, params={"editing": 0}).editing() == (0, [])
    assert ctx_of(keeper, params={"editing": 1}).editing() == (1, [Adjust("Ed", "editing_points", -1, "Editing Points spent")])
    assert ctx_of(keeper, params={"editing": 3}).editing() == (3, [Adjust("Ed", "editing_points", -3, "Editing Points spent")])
    assert ctx_of(keeper, params={"editing": 5}).editing()[0] == 5
    with pytest.raises(TrackerError) as refused:
        ctx_of(keeper, params={"editing": 6}).editing()
    assert str(refused.value) == "editing=6: Ed has only 5 Editing Points"


def test_extra_effort_raises_the_ability_then_drops_it_never_below_zero() -> None:
    """Seed: "If a character with a 17 strength makes a Lift Roll, and increases strength
    to 24 (8 point increase), strength drops immediately to 9 (17-8)"; "Abilities cannot
    be increased so far that the ability will drop to less than 0"."""
    hero = bare("Hero", {"strength": 17, "agility": 4})
    assert ctx_of(hero).effort("strength") == (0, [], "")
    assert ctx_of(hero, params={"effort": -1}).effort("strength") == (0, [], "")
    assert ctx_of(hero, params={"effort": 8}).effort("strength") == (
        8, [Adjust("Hero", "strength", -8, "Extra Effort: strength 17 -> 9")], "Extra Effort +8 strength")
    # `effort_on=` names the ability raised, whatever the roll's.
    assert ctx_of(hero, params={"effort": 4, "effort_on": "agility"}).effort("strength") == (
        4, [Adjust("Hero", "agility", -4, "Extra Effort: agility 4 -> 0")], "Extra Effort +4 agility")
    with pytest.raises(TrackerError) as refused:
        ctx_of(hero, params={"effort": 18}).effort("strength")
    assert str(refused.value) == "effort=18: Hero's strength is 17; Extra Effort may not drop it below 0"


# ---------------------------------------------------------------------------- the target number
def test_the_target_is_base_plus_sphere_of_the_pool_plus_editing_plus_effort() -> None:
    """Module docstring: "The target number: base + Sphere(pool + saved Q) + editing +
    effort". Strength 10, pool 3 (Sphere 3), editing 2, effort 1: 10 + 3 + 2 + 1 = 16."""
    hero = bare("Hero", {"strength": 10, "editing_points": 4})
    ctx = ctx_of(hero, params={"editing": 2, "effort": 1})
    target, text, costs, details = ctx.target(10, "strength 10", 3, "strength")
    assert target == 16
    assert text == "strength 10 + pool 3 (+3) + editing +2 + Extra Effort +1 strength = 16"
    assert costs == [Adjust("Hero", "editing_points", -2, "Editing Points spent"),
                     Adjust("Hero", "strength", -1, "Extra Effort: strength 10 -> 9")]
    assert details == {"base": 10, "pool": 3, "pool_bonus": 3, "editing": 2, "effort": 1}
    # No ability named: no Extra Effort, whatever the parameters say.
    target, text, costs, details = ctx.target(10, "skill 10", 0)
    assert (target, text) == (12, "skill 10 + editing +2 = 12")
    assert details == {"base": 10, "pool": 0, "pool_bonus": 0, "editing": 2, "effort": 0}
    # A negative pool is a penalty read on the Sphere chart mirrored: -17 reads -10
    # (the seed's Move example: "a penalty of 17 to his Bonus Pool, for a total penalty of 10").
    target, text, _, details = ctx_of(hero).target(28, "move 28", -17)
    assert (target, text) == (18, "move 28 + pool -17 (-10) = 18")
    assert details["pool_bonus"] == -10
    # Sphere 14 is row 10, 15 and 17 still row 10, 18 row 11.
    assert [ctx_of(hero).target(0, "x", pool)[0] for pool in (14, 15, 17, 18)] == [10, 10, 10, 11]


def test_saving_quality_carries_to_the_next_same_kind_action_initiated_as_it_completes() -> None:
    """Module docstring: "`q_save=N` sets aside N Q of a successful roll; N // 2 is added
    to the bonus pool of the actor's next action of the same template if it is initiated
    on the segment this one completes". Strength 10, rolled 2+3 = 5: Q 5, 4 saved: pool +2
    (Sphere 2) for the next Ability Roll, started on segment 10 (PT 10)."""
    lines = ("add A strength=10 newoen=10", "add B strength=10", "declare A ability faces=2,3 q_save=4")
    s = session_for(RULES, *lines)
    assert last(s).resolution.details["saved_pool"] == 2
    s.execute("next")
    assert s.encounter.now == 10
    s.execute("declare A ability faces=5,5")
    r = last(s).resolution
    assert r.details["roll"] == 12 and r.details["pool"] == 2 and r.details["pool_bonus"] == 2
    assert r.summary.startswith("strength 10 + pool 2 (+2) + saved Q +2 pool = 12; ")
    # Initiated a segment later: nothing carried.
    s = session_for(RULES, *lines, "next", "step", "declare A ability faces=5,5")
    assert last(s).resolution.details["roll"] == 10 and last(s).resolution.details["pool"] == 0
    assert last(s).resolution.summary.startswith("strength 10 = 10; ")
    # Another kind of action on that segment: nothing carried (Discernment, newoen 10 // 2 = 5).
    s = session_for(RULES, *lines, "next", "declare A discernment faces=2,2")
    assert last(s).resolution.details["roll"] == 5 and last(s).resolution.details["pool"] == 0
    assert last(s).resolution.summary.startswith("half newoen 5 = 5; ")
    # Another combatant's saved Q is not A's, declared before or after A's.
    s = session_for(RULES, "add A strength=10", "add B strength=10", "declare B ability faces=2,3 q_save=4",
                    "declare A ability faces=5,5", "next")
    assert s.encounter.now == 10
    s.execute("declare A ability faces=5,5")
    assert last(s).resolution.details["pool"] == 0
    assert last(s).resolution.summary.startswith("strength 10 = 10; ")
    # Nor does another's completed roll that saved nothing hide A's own.
    s = session_for(RULES, "add A strength=10", "add B strength=10", "declare A ability faces=2,3 q_save=4",
                    "declare B ability faces=5,5", "next", "declare A ability faces=5,5")
    assert last(s).resolution.details["pool"] == 2
    # A completed roll that saved nothing carries nothing.
    s = session_for(RULES, "add A strength=10", "declare A ability faces=2,3", "next", "declare A ability faces=5,5")
    assert last(s).resolution.details["pool"] == 0
    assert last(s).resolution.summary.startswith("strength 10 = 10; ")
    # Nor does a first action.
    s = session_for(RULES, "add A strength=10", "declare A ability faces=5,5")
    assert last(s).resolution.summary.startswith("strength 10 = 10; ")


def test_saving_quality_is_read_with_no_encounter_as_nothing() -> None:
    assert ctx_of(bare()).saved_pool() == (0, "")


# ---------------------------------------------------------------------------- Q
LABELS = {"q_speed": "speed", "q_attack": "Attack", "q_ep": "EP"}


def test_q_is_placed_in_order_cut_back_when_short_and_the_rest_goes_to_the_sink() -> None:
    """Module docstring: "asking for more Q than the roll produced is cut back in the order
    the parameters are listed, and the summary says what was cut"; Q the GM does not place
    goes to the template's usual use."""
    order = ("q_speed", "q_attack", "q_ep")
    ctx = ctx_of(bare(), "punch", {"q_speed": 3, "q_attack": 0, "q_ep": 9})
    spent = ctx.spend(10, order, "q_damage", LABELS)
    assert spent.q == 10 and spent.amounts == {"q_speed": 3, "q_ep": 7} and spent.notes == ["EP cut from 9 to 7"]
    # The rest to the sink, added to what was asked of it.
    ctx = ctx_of(bare(), "punch", {"q_speed": 3, "q_attack": 2})
    assert ctx.spend(10, order, "q_attack", LABELS).amounts == {"q_speed": 3, "q_attack": 7}
    assert ctx.spend(10, order, "q_damage", LABELS).amounts == {"q_speed": 3, "q_attack": 2, "q_damage": 5}
    # No sink: the rest is unspent.
    assert ctx.spend(10, order, None, LABELS).amounts == {"q_speed": 3, "q_attack": 2, "unspent": 5}
    # Exactly enough: nothing cut, nothing left.
    spent = ctx.spend(5, order, None, LABELS)
    assert spent.amounts == {"q_speed": 3, "q_attack": 2} and spent.notes == []
    # A key without a label is named as itself.
    assert ctx_of(bare(), "punch", {"q_lob": 4}).spend(1, ("q_lob",), None, LABELS).notes == ["q_lob cut from 4 to 1"]


def test_no_q_to_spend_after_a_miss_or_q_zero_says_so_only_when_q_was_asked() -> None:
    asked = ctx_of(bare(), "punch", {"q_attack": 2})
    for q in (0, -3):
        spent = asked.spend(q, ("q_attack",), "q_attack", LABELS)
        assert spent.amounts == {} and spent.notes == ["no Q to spend"]
    quiet = ctx_of(bare(), "punch", {"q_attack": 0})
    spent = quiet.spend(0, ("q_attack",), "q_attack", LABELS)
    assert spent.amounts == {} and spent.notes == []
    # Q 1 asked of nothing goes wholly to the sink.
    assert quiet.spend(1, ("q_attack",), "q_attack", LABELS).amounts == {"q_attack": 1}


# ---------------------------------------------------------------------------- history
def test_the_latest_action_of_a_template_skips_aborted_ones_and_later_starts() -> None:
    assert latest_action(None, "A", "ability") is None
    s = session_for(RULES, "add A ep=30", "add B", "declare A ability faces=5,5", "next", "declare A ability faces=4,4")
    enc = s.encounter
    first, second = enc.actions
    assert (first.start, second.start) == (0, 10)
    assert latest_action(enc, "A", "ability") is second
    assert latest_action(enc, "A", "ability", before_segment=10) is second
    assert latest_action(enc, "A", "ability", before_segment=9) is first
    assert latest_action(enc, "A", "ability", before_segment=0) is first
    assert latest_action(enc, "A", "discernment") is None  # never started one
    assert latest_action(enc, "B", "ability") is None
    s.execute("abort A")
    assert latest_action(s.encounter, "A", "ability") is first
    assert latest_action(enc, "Z", "ability") is None
    # One no longer in the fight is found in the log; a newcomer under its name is not it.
    s = session_for(RULES, "add A", "declare A ability faces=5,5", "next", "remove A")
    old = s.encounter.actions[0]
    assert latest_action(s.encounter, "A", "ability") is old
    s.execute("add A")
    assert latest_action(s.encounter, "A", "ability") is None


def _declared(enc: Encounter, actor: str, template: str, mode: str, pt: int, details: dict[str, Any]) -> None:
    enc.apply(Event("declare", {"actor": actor, "template": template, "mode": mode, "targets": [], "companions": [],
                                "maintainable": False, "resolution": Resolution(pt=pt, details=details)}))


def test_defense_in_force_adds_in_progress_actions_and_the_latest_move() -> None:
    """`defense_of`: the in-progress actions' Defense plus movement Defense; `passive_defense`:
    the passive ones' only, which the attacker's Attack loses (seed: "If this is a Passive
    Action, the character's Attack will almost always be reduced by the same amount
    Defense is increased")."""
    enc = Encounter(Setup("test", "brandx", TimeMapping(50, "test", simultaneous=True), ("vp",)))
    enc.apply(Event("add", {"name": "A", "resources": {"vp": 20}}))
    enc.apply(Event("add", {"name": "B", "resources": {"vp": 20}}))
    _declared(enc, "A", "punch", "active", 15, {"defense": 3})
    advance(enc, 1)
    _declared(enc, "A", "shield", "passive", 15, {"defense": 2})
    advance(enc, 2)
    _declared(enc, "A", "watch", "passive", 15, {})
    advance(enc, 3)
    _declared(enc, "A", "move", "passive", 6, {"defense": 5, "move_defense": 1})
    a = enc.combatant("A")
    assert defense_of(enc, a) == (6, "punch +3, shield +2, moving +1")
    assert passive_defense(enc, a) == (3, "shield +2, moving +1")
    assert defense_of(enc, enc.combatant("B")) == (0, "")
    assert passive_defense(enc, enc.combatant("B")) == (0, "")
    # A Move Roll that bought no Defense adds none; a negative Defense counts too.
    _declared(enc, "B", "move", "passive", 6, {})
    assert defense_of(enc, enc.combatant("B")) == (0, "")
    advance(enc, 4)
    _declared(enc, "B", "move", "passive", 6, {"move_defense": -2})
    assert defense_of(enc, enc.combatant("B")) == (-2, "moving -2")
