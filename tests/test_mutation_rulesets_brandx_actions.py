"""Direct tests of rulesets.brandx.actions: the other Action Rolls of the seed (abilities,
discernment, healing, holding breath, skills, powers, knowledge), the PT an action
starts from, the EP it pays and the Q it spends.

Expected values are worked from the seed (seeds/004, Brand X), the module docstring
and the shipped tables (`rulesets/brandx/tables.toml`): the Sphere chart reads a value
on the highest row whose entry it reaches (rows 1-8 are n, row 9 is 10, row 10 is 14,
row 11 is 18, row 12 is 24); [ep_start]: power and hold_breath 9, skill and ability 0;
an EP row r >= 5 costs r - 4 EP, row 4 one EP per 5 uses (the first paid), rows 0 and
below nothing. The 2d10 are typed as faces (`faces=`): a 1 is rolled again and that
face subtracted (rolls.py)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from rulesets.base import ActionRequest
from rulesets.brandx import BrandXRuleset, actions
from rulesets.dice import Recorder, TypedFaces
from tracker.engine import Encounter, Setup
from tracker.engine.effects import Adjust, Damage, Upkeep
from tracker.engine.errors import TrackerError
from tracker.engine.model import Combatant, CombatantSetup
from tests.helpers import session_for

RULES = BrandXRuleset()


def session(*lines: str) -> Any:
    return session_for(RULES, *lines)


def last(s: Any) -> Any:
    return s.encounter.actions[-1]


def request(template: str, params: dict[str, Any] | None = None, actor: Combatant | None = None,
            pt: int | None = None, encounter: Encounter | None = None, segment: int = 0,
            previous: Any = None, tmpl: Any = None) -> ActionRequest:
    actor = actor or Combatant("A", {}, {}, {})
    return ActionRequest(tmpl or RULES.template(template), actor, (), params or {}, segment, {}, previous, pt, encounter)


def resolve(template: str, params: dict[str, Any], faces: tuple[int, ...] = (), actor: Combatant | None = None,
            pt: int | None = None, encounter: Encounter | None = None, segment: int = 0) -> Any:
    req = request(template, params, actor, pt, encounter, segment)
    return RULES.resolve(req, TypedFaces(faces))


# ---------------------------------------------------------------------------- default_pt
def test_the_pt_an_action_starts_from() -> None:
    """Module docstring and seed: healing by the round 50 segments, the hour 15000 (a
    segment is 0.24 s: 3600 / 0.24), the day 24 hours, the month 30 days; "For powers,
    the Performance Time is 20 segments"; "Performance Time for passive power actions
    are usually halved (which will usually mean a Performance Time of 10)"; letting go
    of a per-round cost PT 1; otherwise the template's PT (Hold Breath 10, Ability 10)."""
    pt = actions.default_pt
    assert pt(request("heal")) == 15000
    assert pt(request("heal", {"period": "round"})) == 50
    assert pt(request("heal", {"period": "hour"})) == 15000
    assert pt(request("heal", {"period": "day"})) == 360000
    assert pt(request("heal", {"period": "month"})) == 10800000
    assert pt(request("power")) == 20
    assert pt(request("power", {"mode": "active"})) == 20
    assert pt(request("power", {"mode": "passive"})) == 10
    assert pt(request("power", {"stop": True})) == 1
    assert pt(request("power", {"stop": False})) == 20
    assert pt(request("hold-breath", {"stop": True})) == 1
    assert pt(request("hold-breath")) == 10
    assert pt(request("ability", {"stop": True})) == 10  # nothing to let go of: its own PT
    assert pt(request("lift")) == 10
    assert pt(request("lift", {"power": True})) == 20
    assert pt(request("lift", {"power": True, "inanimate": True})) == 10  # a web holding is no power's act
    assert pt(request("lift", {"inanimate": True})) == 10
    # Half of an odd PT rounds half up; never below 1.
    power = RULES.template("power")
    assert pt(request("power", {"mode": "passive"}, tmpl=replace(power, pt=3))) == 2
    assert pt(request("power", {"mode": "passive"}, tmpl=replace(power, pt=1))) == 1
    assert pt(request("power", {"mode": "passive"}, tmpl=replace(power, pt=25))) == 13
    # A template passive of itself is halved with no mode typed.
    assert pt(request("power", tmpl=replace(power, mode="passive"))) == 10


def test_a_maintained_links_pt_is_a_quarter_of_the_firsts() -> None:
    """Seed: "Maintaining an Attack: ... The Performance Time is divided by 4 (usually
    meaning 5 segments)"."""
    s = session("add A agility=10 ep=50", "add B vp=40", "declare A blast target=B pr=10 throwback=false faces=5,5")
    first = last(s)
    assert actions.default_pt(request("blast", {"stop": True}, previous=first)) == 5


# ---------------------------------------------------------------------------- abilities
def test_an_ability_roll_against_the_ability_with_q_left_unspent() -> None:
    """Module docstring: "Ability rolls: PT 10, no EP". Agility 12, rolled 3+4 = 7: Q 5."""
    s = session("add Hero agility=12 ep=20", "declare Hero ability ability=agility faces=3,4")
    act = last(s)
    r = act.resolution
    assert act.pt == 10 and r.success is True and r.margin == 5 and r.dice == (3, 4)
    assert r.summary == "agility 12 = 12; rolled 3+4 = 7: Q 5: 5 to unspent; PT 10; no EP"
    assert r.details == {"q": 5, "roll": 12, "total": 7, "base": 12, "pool": 0, "pool_bonus": 0, "editing": 0,
                         "effort": 0, "ep_uses": [], "defense": 0, "spent": {"unspent": 5}}
    assert s.encounter.combatant("Hero").resources["ep"] == 20


def test_an_ability_roll_is_strength_unless_named_and_roll_overrides_the_sheet() -> None:
    s = session("add Hero strength=14 agility=3", "declare Hero ability faces=5,5")
    assert last(s).resolution.details["roll"] == 14 and last(s).resolution.summary.startswith("strength 14 = 14; ")
    s = session("add Hero strength=14", "declare Hero ability ability=strength roll=6 faces=5,5")
    r = last(s).resolution
    assert r.details["roll"] == 6 and r.success is False and r.margin == -4
    assert r.summary == "strength 6 = 6; rolled 5+5 = 10: missed by 4; PT 10; no EP"


def test_an_unknown_ability_is_refused_naming_the_abilities() -> None:
    with pytest.raises(TrackerError) as refused:
        actions.resolve_ability(RULES.ctx(request("ability", {"ability": "luck"}, pt=10)), TypedFaces((5, 5)))
    assert str(refused.value) == ("ability=luck: expected one of strength, agility, constitution, learning, newoen, "
                                  "active_charisma, normal_charisma, sight, hearing, build, beauty")


def test_a_calm_ability_roll_assumes_seven() -> None:
    """Seed: "Ability Rolls only need to be rolled when in a stressful situation ...
    Otherwise, a die roll of 7 can be assumed." Sight 9: Q 2, no dice."""
    s = session("add Hero sight=9", "declare Hero ability ability=sight calm=true")
    r = last(s).resolution
    assert r.dice == () and r.margin == 2 and r.details["total"] == 7
    assert r.summary == "sight 9 = 9; rolled no stress: 7 assumed: Q 2: 2 to unspent; PT 10; no EP"
    s = session("add Hero sight=9", "declare Hero ability ability=sight calm=false faces=2,2")
    assert last(s).resolution.dice == (2, 2) and last(s).resolution.margin == 5


def test_ability_q_to_speed_defense_and_saved() -> None:
    """Seed: "Three points of Q divide Performance Time by 2"; "Characters can use 2 Q
    points to add 1 to their Defense"; Saving Quality (common.py): N // 2 to the next
    pool. Strength 20, rolled 2+2: Q 16; 3 on speed (PT 10 -> 5), 5 on Defense (+2),
    5 saved (+2), 3 left unspent."""
    s = session("add Hero strength=20", "declare Hero ability faces=2,2 q_speed=3 q_defense=5 q_save=5")
    act = last(s)
    r = act.resolution
    assert act.pt == 5
    assert r.details["defense"] == 2 and r.details["saved_pool"] == 2
    assert r.details["spent"] == {"q_speed": 3, "q_defense": 5, "q_save": 5, "unspent": 3}
    assert r.summary == ("strength 20 = 20; rolled 2+2 = 4: Q 16: 3 to speed, 5 to Defense, 5 to saved, 3 to unspent; "
                         "PT 5; no EP")
    # Q asked beyond the roll's is cut back in order, and the summary says so.
    s = session("add Hero strength=10", "declare Hero ability faces=4,4 q_speed=1 q_defense=3")
    r = last(s).resolution
    assert r.details["spent"] == {"q_speed": 1, "q_defense": 1} and r.details["defense"] == 0
    assert r.summary == "strength 10 = 10; rolled 4+4 = 8: Q 2: 1 to speed, 1 to Defense; PT 9; no EP; Defense cut from 3 to 1"
    assert "saved_pool" not in r.details


def test_a_roll_that_costs_ep_pays_its_row_less_q_and_a_miss_raises_it() -> None:
    """A skill started on row 6 (`ep_row=6`, 2 EP): Q 2 on EP brings it to row 4 (1 EP
    per 5 uses, the first paid); a miss by 3 raises the row by 3 (docs/contributing/
    design.md: negative Q raises the EP row), row 9: 5 EP; Q on EP past row 0 is free."""
    s = session("add Tech ep=30", "declare Tech skill roll=10 ep_row=6 q_ep=2 faces=4,4")
    r = last(s).resolution
    assert r.details["ep_uses"] == [{"what": "skill", "row": 4, "paid": 1}]
    assert r.summary == "skill 10 = 10; rolled 4+4 = 8: Q 2: 2 to EP; PT 10; 1 EP (skill row 4: 1)"
    assert s.encounter.combatant("Tech").resources["ep"] == 29
    assert list(last(s).resolution.effects) == [Adjust("Tech", "ep", -1, "skill: 1 EP (skill row 4: 1)")]
    s = session("add Tech ep=30", "declare Tech skill roll=10 ep_row=6 faces=6,7")
    r = last(s).resolution
    assert r.margin == -3 and r.details["ep_uses"] == [{"what": "skill", "row": 9, "paid": 5}]
    assert s.encounter.combatant("Tech").resources["ep"] == 25
    s = session("add Tech ep=30", "declare Tech skill roll=10 ep_row=2 q_ep=2 faces=4,4")
    assert last(s).resolution.details["ep_uses"] == [] and s.encounter.combatant("Tech").resources["ep"] == 30
    s = session("add Tech ep=30", "declare Tech skill roll=10 ep_row=1 q_ep=1 faces=4,4")
    assert last(s).resolution.details["ep_uses"] == []
    # Row 1 is paid (1 EP per 50 uses, the first paid), and a miss raises it too: by 3, row 4.
    s = session("add Tech ep=30", "declare Tech skill roll=10 ep_row=1 faces=5,5")
    assert last(s).resolution.details["ep_uses"] == [{"what": "skill", "row": 1, "paid": 1}]
    s = session("add Tech ep=30", "declare Tech skill roll=10 ep_row=1 faces=6,7")
    assert last(s).resolution.details["ep_uses"] == [{"what": "skill", "row": 4, "paid": 1}]
    # A roll that costs nothing (row 0) stays free however badly it misses.
    s = session("add Tech ep=30", "declare Tech skill roll=10 faces=10,10")
    assert last(s).resolution.details["ep_uses"] == [] and last(s).resolution.summary.endswith("; PT 10; no EP")


# ---------------------------------------------------------------------------- discernment
def test_discernment_is_against_half_newoen_rounded_down() -> None:
    """Seed: "The Discernment Roll is vs. half Newoen, rounded down ... If successful, the
    character knows what the good or evil action is in that situation." Newoen 21: 10."""
    s = session("add Sage newoen=21", "declare Sage discernment faces=4,5")
    r = last(s).resolution
    assert r.details["roll"] == 10 and r.success is True
    assert r.summary == "half newoen 10 = 10; rolled 4+5 = 9: Q 1: 1 to unspent; PT 6; no EP; Sage knows the right course"
    s = session("add Sage newoen=21", "declare Sage discernment faces=6,5")
    r = last(s).resolution
    assert r.success is False and r.margin == -1
    assert r.summary == "half newoen 10 = 10; rolled 6+5 = 11: missed by 1; PT 6; no EP; Sage cannot tell the good course"
    # The amended resolution keeps everything else.
    assert last(s).pt == 6 and r.dice == (6, 5) and r.details["total"] == 11
    s = session("add Sage newoen=21", "declare Sage discernment roll=15 faces=6,5")
    assert last(s).resolution.details["roll"] == 15 and last(s).resolution.success is True
    s = session("add Sage newoen=21", "declare Sage discernment pool=3 faces=6,5")
    assert last(s).resolution.details["roll"] == 13 and last(s).resolution.details["pool"] == 3


# ---------------------------------------------------------------------------- healing
def test_resting_a_round_restores_half_the_healing_roll_to_vp_up_and_ep_down() -> None:
    """Seed: "Take the Healing Roll and add the Bonus Pool (Sphere Chart, of course).
    Half this (round up) for the VP that is restored each round. The same amount of EP
    (round down)". Constitution 10: Sphere 9; pool = DP 8: +8; 17: VP +9, EP +8."""
    s = session("add Patient constitution=10 dp=8 vp=30 ep=30", "damage Patient 20", "damage Patient 10 resource=ep",
                "declare Patient heal period=round")
    act = last(s)
    r = act.resolution
    assert act.pt == 50 and r.success is True and r.margin == 0 and r.dice == ()
    assert r.summary == ("Sphere(constitution 10) 9 + pool 8 (+8) = 17; resting one round: VP +9, EP +8 "
                         "(VP half the roll rounded up, EP rounded down)")
    assert r.details == {"roll": 17, "vp": 9, "ep": 8, "base": 9, "pool": 8, "pool_bonus": 8, "editing": 0, "effort": 0}
    assert list(r.effects) == [Damage("Patient", -9, "vp"), Damage("Patient", -8, "ep")]
    s.execute("next")
    me = s.encounter.combatant("Patient")
    assert (me.resources["vp"], me.resources["ep"]) == (19, 28)


def test_resting_a_round_never_heals_past_the_maxima() -> None:
    """Constitution 14: Sphere 10; DP 8: +8; 18: VP +9 and EP +9 offered; 5 VP lost, EP full."""
    s = session("add Patient constitution=14 dp=8 vp=30 ep=30", "damage Patient 5", "declare Patient heal period=round")
    r = last(s).resolution
    assert r.summary == ("Sphere(constitution 14) 10 + pool 8 (+8) = 18; resting one round: VP +5 of 9, EP +0 of 9 "
                         "(VP half the roll rounded up, EP rounded down)")
    assert list(r.effects) == [Damage("Patient", -5, "vp")]
    # Mental healing adds newoen // 4 to the pool: newoen 13, +3: pool 11, Sphere 9; 19: VP 10, EP 9.
    s = session("add Patient constitution=14 newoen=13 dp=8 vp=30 ep=30", "declare Patient heal period=round mental=true")
    r = last(s).resolution
    assert r.details["roll"] == 19 and (r.details["vp"], r.details["ep"]) == (10, 9) and r.details["pool"] == 11
    # Newoen 20: +5 (pool 13, Sphere 9 still).
    s = session("add Patient constitution=14 newoen=20 dp=8 vp=30 ep=30", "declare Patient heal period=round mental=true")
    assert last(s).resolution.details["pool"] == 13
    # No DP, VP or EP on the sheet: nothing in the pool, nothing to restore.
    r = resolve("heal", {"period": "round"}, actor=Combatant("Ghost", {"constitution": 10}, {}, {}), pt=50)
    assert r.details["roll"] == 9 and r.details["pool"] == 0 and r.effects == ()
    assert r.summary == ("Sphere(constitution 10) 9 = 9; resting one round: VP +0 of 5, EP +0 of 4 "
                         "(VP half the roll rounded up, EP rounded down)")
    # An extra pool joins the DP.
    s = session("add Patient constitution=14 dp=8 vp=30 ep=30", "declare Patient heal period=round pool=2")
    assert last(s).resolution.details["pool"] == 10


def test_the_healing_roll_cannot_be_raised_by_extra_effort() -> None:
    """Seed: "It costs no EP and cannot be increased via Extra Effort"."""
    with pytest.raises(TrackerError) as refused:
        resolve("heal", {"effort": 2, "period": "round"}, pt=50)
    assert str(refused.value) == "effort=: the Healing Roll cannot be increased by Extra Effort"


def test_an_hours_healing_roll_heals_dp_then_the_abilities_then_ep_in_order() -> None:
    """Seed: "Physical Healing Roll Q is automatically applied to healing DP, strength,
    agility, constitution, and EP, in that order"; Extra Effort's lost points "return
    per hour when resting". Strength 12 lowered by Extra Effort 5 to 7; 4 DP and 3 EP
    lost. Sphere(constitution 10) 9 + Sphere(pool = DP 16) 10 = 19, rolled 3+3: Q 13:
    DP +4, strength +5, EP +3, 1 left over."""
    s = session("add Patient strength=12 constitution=10 dp=20 ep=30", "declare Patient ability effort=5 faces=5,5", "next",
                "damage Patient 4 resource=dp", "damage Patient 3 resource=ep", "declare Patient heal period=hour faces=3,3")
    r = last(s).resolution
    assert r.success is True and r.margin == 13 and r.dice == (3, 3)
    assert r.summary == ("physical Healing Roll (hour): Sphere(constitution 10) 9 + pool 16 (+10) = 19; "
                         "rolled 3+3 = 6: Q 13: dp +4, strength +5, ep +3")
    assert list(r.effects) == [Damage("Patient", -4, "dp"), Adjust("Patient", "strength", 5, "healing", timing="complete"),
                               Damage("Patient", -3, "ep")]
    assert r.details == {"q": 13, "roll": 19, "total": 6, "base": 9, "pool": 16, "pool_bonus": 10, "editing": 0, "effort": 0}
    assert last(s).pt == 15000
    # Q short of it all: DP first, then strength, cut where it runs out (Q 6: DP +4, strength +2).
    s = session("add Patient strength=12 constitution=10 dp=20 ep=30", "declare Patient ability effort=5 faces=5,5", "next",
                "damage Patient 4 resource=dp", "damage Patient 3 resource=ep", "declare Patient heal faces=6,7")
    assert last(s).resolution.summary.endswith("rolled 6+7 = 13: Q 6: dp +4, strength +2")
    # The last point of Q heals too (Q 1: DP +1).
    s = session("add Patient constitution=10 dp=20", "damage Patient 4 resource=dp", "declare Patient heal faces=9,9")
    assert last(s).resolution.summary.endswith("rolled 9+9 = 18: Q 1: dp +1")


def test_the_abilities_heal_up_to_the_combatants_own_starting_values() -> None:
    """The second combatant added heals to its own starting strength (12), not the
    first's (10): Extra Effort 5 took it to 7; Q 13 after DP heals all 5."""
    s = session("add A strength=10", "add B strength=12 constitution=10 dp=20", "declare B ability effort=5 faces=5,5",
                "next", "declare B heal faces=3,3")
    assert last(s).resolution.summary.endswith("Q 14: strength +5")


def test_a_combatant_added_with_no_stats_heals_no_ability() -> None:
    """An `add` carrying no stats (the engine's event, as a plugin or an old file may
    write it): the abilities have no starting values to return to, so the Healing Roll
    heals DP and EP only."""
    from tracker.engine import Event
    from rulesets.dice import RandomDice
    from tracker.play.session import Session

    enc = Encounter(Setup("test", RULES.id, RULES.time, RULES.down_when, {}, []))
    enc.apply(Event("add", {"name": "Bare", "resources": {"vp": 30, "dp": 20, "ep": 30}}))
    s = Session(enc, RULES, RandomDice(0))
    s.execute("damage Bare 4 resource=dp")
    s.execute("damage Bare 2 resource=ep")
    s.execute("declare Bare heal faces=3,3")  # Sphere(constitution 10, the default) 9 + Sphere(16) 10 = 19: Q 13
    assert last(s).resolution.summary.endswith("Q 13: dp +4, ep +2")
    # With no DP on the sheet at all, DP is not healed either.
    r = resolve("heal", {}, (3, 3), actor=Combatant("Ghost", {"constitution": 10}, {}, {}), pt=15000)
    assert r.summary.endswith("rolled 3+3 = 6: Q 3: nothing to heal")


def test_a_missed_healing_roll_heals_nothing_and_a_whole_body_has_nothing_to_heal() -> None:
    s = session("add Patient constitution=10 dp=20", "damage Patient 4 resource=dp", "declare Patient heal faces=10,10")
    r = last(s).resolution  # 9 + Sphere(16) 10 = 19 against 20
    assert r.success is False and r.margin == -1 and r.effects == ()
    assert r.summary == "physical Healing Roll (hour): Sphere(constitution 10) 9 + pool 16 (+10) = 19; rolled 10+10 = 20: missed by 1: no healing"
    s = session("add Patient constitution=10 dp=20", "declare Patient heal faces=3,3")
    r = last(s).resolution  # 9 + Sphere(20) 11 = 20, Q 14
    assert r.effects == () and r.summary.endswith("rolled 3+3 = 6: Q 14: nothing to heal")


def test_a_mental_healing_roll_heals_ep_then_charisma_then_learning() -> None:
    """Seed: "Mental Healing Roll Q is automatically applied to healing EP (Astral Form),
    charisma, and learning, in that order"; "there is a bonus equal to newoen divided by
    4, round down, to the Pool". Both charismas lowered by Extra Effort (4 and 3), 2 EP
    lost, DP 15 of 15 + newoen 10 // 4 = 17 (Sphere 10), constitution 10 (Sphere 9):
    19, rolled 5+5: Q 9: EP +2, active charisma +4, normal charisma +3; DP is not the
    mind's to heal."""
    s = session("add Patient constitution=10 dp=15 ep=30", "declare Patient ability ability=active_charisma effort=4 faces=5,5",
                "next", "declare Patient ability ability=normal_charisma effort=3 faces=5,5", "next",
                "damage Patient 2 resource=ep", "damage Patient 1 resource=dp",
                "declare Patient heal mental=true faces=5,5")
    r = last(s).resolution
    assert r.details["pool"] == 14 + 2 and r.details["roll"] == 19
    assert r.summary == ("mental Healing Roll (hour): Sphere(constitution 10) 9 + pool 16 (+10) = 19; "
                         "rolled 5+5 = 10: Q 9: ep +2, active_charisma +4, normal_charisma +3")


def test_healing_reads_the_starting_abilities_from_the_roster_too() -> None:
    """An ability lowered by Extra Effort heals back up to the value the combatant
    started with, whether it came in on the roster or by `add`; with no encounter at
    all there is nothing to compare with, and nothing of the abilities heals."""
    from rulesets.dice import RandomDice
    from tracker.play.session import Session

    stats = {name: field.default for name, field in ((f.name, f) for f in RULES.sheet) if field.default is not None}
    roster = [CombatantSetup("Rostered", {**stats, "strength": 12, "constitution": 10}, {"vp": 30, "dp": 20, "ep": 30})]
    setup = Setup("test", RULES.id, RULES.time, RULES.down_when, {}, roster)
    s = Session(Encounter(setup), RULES, RandomDice(0))
    s.execute("declare Rostered ability effort=5 faces=5,5")
    s.execute("next")
    assert s.encounter.combatant("Rostered").stats["strength"] == 7
    s.execute("declare Rostered heal faces=3,3")  # 9 + Sphere(20) 11 = 20: Q 14
    assert last(s).resolution.summary.endswith("Q 14: strength +5")
    me = s.encounter.combatant("Rostered")
    r = resolve("heal", {}, (3, 3), actor=me, pt=15000)
    assert r.summary.endswith("Q 14: nothing to heal")


def test_a_day_heals_penetrating_dp_and_a_month_injury_dp_only() -> None:
    """Seed: "It is made each day (for Penetrating Damage), and each month, for Injury
    Damage." 10 of 20 DP lost, 6 of them penetrating, 3 injury: by the day DP +6 and the
    penetrating count down by 6; by the month +3, the injury count down by 3; by the
    hour the 1 bludgeoning DP."""
    lines = ("add Victim constitution=10 dp=20 penetrating_dp=6 injury_dp=3 ep=30", "damage Victim 10 resource=dp",
             "damage Victim 3 resource=ep")
    s = session(*lines, "declare Victim heal period=day faces=3,3")  # 9 + Sphere(10) 9 = 18: Q 12
    r = last(s).resolution
    assert r.summary == "physical Healing Roll (day): Sphere(constitution 10) 9 + pool 10 (+9) = 18; rolled 3+3 = 6: Q 12: dp +6"
    assert list(r.effects) == [Damage("Victim", -6, "dp"),
                               Adjust("Victim", "penetrating_dp", -6, "penetrating DP healed", timing="complete")]
    assert last(s).pt == 360000
    s = session(*lines, "declare Victim heal period=month faces=3,3")
    r = last(s).resolution
    assert list(r.effects) == [Damage("Victim", -3, "dp"), Adjust("Victim", "injury_dp", -3, "injury DP healed", timing="complete")]
    s = session(*lines, "declare Victim heal period=hour faces=3,3")
    assert list(last(s).resolution.effects) == [Damage("Victim", -1, "dp"), Damage("Victim", -3, "ep")]
    # A count of penetrating DP beyond the DP lost heals no more than was lost.
    s = session("add Victim constitution=10 dp=20 penetrating_dp=6", "declare Victim heal period=day faces=3,3")
    assert last(s).resolution.effects == () and last(s).resolution.summary.endswith("nothing to heal")


# ---------------------------------------------------------------------------- skills
def test_a_skill_needs_its_roll_and_one_way_of_changing_the_time() -> None:
    with pytest.raises(TrackerError) as refused:
        resolve("skill", {"level": 2}, (5, 5), pt=10)
    assert str(refused.value) == "skill needs roll=N, the skill's Action Roll"
    with pytest.raises(TrackerError) as refused:
        resolve("skill", {"roll": 10, "level": 2, "more_time": 1, "hurry": 1}, (5, 5), pt=10)
    assert str(refused.value) == "more_time= and hurry= pull opposite ways; use one"
    # Seed: "The character cannot increase the Action Roll by more than twice the
    # character's Skill Level": at most `level` doublings, +2 each.
    with pytest.raises(TrackerError) as refused:
        resolve("skill", {"roll": 10, "level": 1, "more_time": 2}, (5, 5), pt=10)
    assert str(refused.value) == "more_time=2: at most the Skill Level (1) doublings (+2 each, at most twice the level)"
    with pytest.raises(TrackerError, match=r"Skill Level \(0\)"):
        resolve("skill", {"roll": 10, "more_time": 1}, (5, 5), pt=10)


def test_more_time_doubles_the_pt_for_two_each_and_hurrying_halves_it_for_minus_two() -> None:
    """Seed: "For each doubling of the time spent on the attempt to use the skill, add 2
    to the character's Action Roll"; "For each penalty of 2 to the Action Roll, divide
    Performance Time by 2, and round down (though an action can never take less than 1
    segment)"."""
    r = resolve("skill", {"roll": 10, "level": 2, "more_time": 2}, (5, 5), pt=10)
    assert r.pt == 40 and r.details["roll"] == 14
    assert r.summary == "skill 10 + 4 for 2 doublings of time = 14; rolled 5+5 = 10: Q 4: 4 to unspent; PT 40; no EP"
    r = resolve("skill", {"roll": 10, "level": 3, "more_time": 1}, (5, 5), pt=10)
    assert r.pt == 20 and r.details["roll"] == 12
    r = resolve("skill", {"roll": 10, "hurry": 2}, (2, 2), pt=10)
    assert r.pt == 2 and r.details["roll"] == 6
    assert r.summary == "skill 10 - 4 hurrying = 6; rolled 2+2 = 4: Q 2: 2 to unspent; PT 2; no EP"
    assert resolve("skill", {"roll": 10, "hurry": 1}, (2, 2), pt=15).pt == 7
    assert resolve("skill", {"roll": 10, "hurry": 5}, (2, 2), pt=10).pt == 1
    assert resolve("skill", {"roll": 10, "hurry": 0, "more_time": 0}, (2, 2), pt=10).pt == 10
    # Q on speed works on the PT the time taken made: 20, 3 Q halve it.
    assert resolve("skill", {"roll": 10, "level": 1, "more_time": 1, "q_speed": 3}, (2, 2), pt=10).pt == 10


def test_a_same_named_knowledge_adds_a_tenth_of_its_score_to_the_pool() -> None:
    """Seed: "Knowledges with the same name as a Skill give a bonus equal to the Knowledge
    Score divided by 10 to the Bonus Pool." Knowledge 29: +2; with pool 1: 3."""
    r = resolve("skill", {"roll": 10, "knowledge": 29}, (5, 5), pt=10)
    assert r.details["pool"] == 2 and r.details["roll"] == 12
    r = resolve("skill", {"roll": 10, "knowledge": 29, "pool": 1}, (5, 5), pt=10)
    assert r.details["pool"] == 3 and r.details["roll"] == 13
    assert resolve("skill", {"roll": 10, "knowledge": 9}, (5, 5), pt=10).details["pool"] == 0


# ---------------------------------------------------------------------------- knowledge
def test_a_knowledge_roll_is_d100_against_score_times_multiplier_plus_skill() -> None:
    """Seed: "If a character with American History (75) rolls 50, that's 25. If another
    character with History (90, but halved for American History, to 45) rolls 40, that's
    5"; "A character with Sailing 7 (Skill) and Sailing 52 (Knowledge) will have a bonus
    of 7"; "a Skill of 7 in Magic Tricks Skill and no Knowledge Score ... effectively, a
    Score of 7"."""
    r = resolve("knowledge", {"score": 75}, (5, 10), pt=6)
    assert r.success is True and r.margin == 25 and r.dice == (5, 10) and r.pt == 6
    assert r.summary == "Knowledge 75 x 1 = 75; d100 5,10 -> 50: knows it by 25; PT 6"
    assert r.details == {"q": 25, "roll": 75, "total": 50}
    r = resolve("knowledge", {"score": 90, "multiplier": 0.5}, (4, 10), pt=6)
    assert r.margin == 5 and r.summary == "Knowledge 90 x 0.5 = 45; d100 4,10 -> 40: knows it by 5; PT 6"
    r = resolve("knowledge", {"score": 52, "skill": 7}, (6, 1), pt=6)
    assert r.details["roll"] == 59 and r.summary == "Knowledge 52 x 1 + skill 7 = 59; d100 6,1 -> 61: does not know (missed by 2); PT 6"
    assert r.success is False and r.margin == -2
    r = resolve("knowledge", {"skill": 7}, (10, 7), pt=6)
    assert r.details["roll"] == 7 and r.success is True and r.summary.startswith("Knowledge 0 x 1 + skill 7 = 7; ")
    # A fractional product is cut to a whole target: 91 x 0.5 = 45.5 -> 45.
    assert resolve("knowledge", {"score": 91, "multiplier": 0.5}, (4, 6), pt=6).details["roll"] == 45
    with pytest.raises(TrackerError) as refused:
        resolve("knowledge", {"multiplier": 2}, (4, 6), pt=6)
    assert str(refused.value) == "knowledge needs score=N (the Knowledge Score) and/or skill=N (a same-named Skill Level)"
    s = session("add Prof", "declare Prof knowledge score=20 faces=1,5")
    assert last(s).pt == 6 and last(s).resolution.details["total"] == 15


# ---------------------------------------------------------------------------- powers
def test_a_passive_power_pays_on_initiation_and_then_each_round() -> None:
    """Seed's Power Example: "Sun-Ruler has a PR of 12 in Fire Coat ... That's a passive
    action, so it only has a Performance Time of 10 ... He uses 8 PR for that ... using
    1 EP per round": 4 PR to EP, row 9 - 4 = 5, 1 EP."""
    s = session("add Sun-Ruler ep=40", 'declare Sun-Ruler power mode=passive pr=12 pr_effect=8 label="fire coat"')
    act = last(s)
    r = act.resolution
    assert act.pt == 10 and r.success is True and r.margin == 12
    assert r.summary == ("fire coat: PR 12; 8 PR to effect, 4 to EP, 0 to speed; passive, half time: PT 10; "
                         "EP row 5: 1 EP (fire coat row 5: 1), then 1 EP a round")
    assert r.details == {"pr": 12, "pr_effect": 8, "pr_ep": 4, "pr_speed": 0, "ep_row": 5,
                         "ep_uses": [{"what": "fire coat", "row": 5, "paid": 1}], "label": "fire coat", "pr_lost": 0}
    assert list(r.effects) == [Adjust("Sun-Ruler", "ep", -1, "fire coat: 1 EP (fire coat row 5: 1)"),
                               Upkeep("Sun-Ruler", "fire coat", "ep", 1, timing="initiate")]


def test_an_active_power_pays_once_and_pr_on_speed_shortens_its_pt() -> None:
    """"Most powers have a Performance Time of 20"; "The Power Roll can also be used to
    reduce the Performance Time" (3 on speed halve it). PR 6 with 3 on speed: 3 to
    effect, 0 to EP: row 9, 5 EP; PT 10."""
    s = session("add A ep=40", "declare A power pr=6 pr_speed=3")
    act = last(s)
    r = act.resolution
    assert act.pt == 10
    assert r.summary == "power: PR 6; 3 PR to effect, 0 to EP, 3 to speed; active: PT 10; EP row 9: 5 EP (power row 9: 5)"
    assert list(r.effects) == [Adjust("A", "ep", -5, "power: 5 EP (power row 9: 5)")]
    assert s.encounter.combatant("A").upkeep == {}
    # An active power may be charged a round too, if asked.
    s = session("add A ep=40", "declare A power pr=6 pr_ep=2 upkeep=true label=glow")
    r = last(s).resolution
    assert Upkeep("A", "glow", "ep", 3, timing="initiate") in r.effects
    assert r.summary.endswith("EP row 7: 3 EP (glow row 7: 3), then 3 EP a round")
    with pytest.raises(TrackerError) as refused:
        resolve("power", {"label": "glow"}, pt=20)
    assert str(refused.value) == "power needs pr=N, the character's Power Roll with the power"


def test_a_passive_use_without_upkeep_says_the_earlier_charge_still_runs() -> None:
    """"Each action uses EP separately": a use with `upkeep=false` leaves the earlier
    charge running, and its summary names how to end it."""
    s = session("add A ep=40", 'declare A power mode=passive pr=12 pr_effect=8 label="fire coat"', "next",
                'declare A power mode=passive pr=12 pr_effect=8 label="fire coat" upkeep=false')
    r = last(s).resolution
    assert r.summary.endswith("EP row 5: 1 EP (fire coat row 5: 1); the earlier fire coat still costs 1 EP a round "
                              "(to end it: power label='fire coat' stop=true)")
    assert not any(isinstance(e, Upkeep) for e in r.effects)
    s = session("add A ep=40", "declare A power mode=passive pr=12 pr_effect=8 upkeep=false")
    assert last(s).resolution.summary.endswith("EP row 5: 1 EP (power row 5: 1)")


def test_extra_effort_on_a_power_raises_its_pr_and_lowers_the_next_uses_until_rested() -> None:
    """Seed: "The ability that was increased is immediately decreased by the same amount
    it was increased"; Extra Effort with a power, "whether the power returns its PR with
    the physical healing roll or the mental healing roll". PR 10, effort 3: PR 13 now,
    10 - 3 = 7 next time, 10 again once rested."""
    s = session("add A ep=100", "declare A power label=flight pr=10 effort=3")
    r = last(s).resolution
    assert r.details["pr"] == 13 and r.details["pr_lost"] == 3 and r.margin == 13
    assert r.summary.startswith("flight: PR 13 (Extra Effort +3; the PR drops by 3 afterwards); 13 PR to effect")
    s.execute("next")
    s.execute("declare A power label=flight pr=10")
    r = last(s).resolution
    assert r.details["pr"] == 7 and r.summary.startswith("flight: PR 7 (less 3 lost to earlier Extra Effort); 7 PR")
    s.execute("next")
    s.execute("declare A power label=flight pr=10 effort=1")
    assert last(s).resolution.details["pr"] == 8  # 10 - 3 + 1
    s.execute("next")
    s.execute("declare A power label=flight pr=10")
    assert last(s).resolution.details["pr"] == 6  # 3 + 1 lost
    s.execute("next")
    s.execute("declare A power label=flight pr=10 rested=true")
    r = last(s).resolution
    assert r.details["pr"] == 10 and r.details["rested"] is True
    s.execute("next")
    s.execute("declare A power label=flight pr=10")
    assert last(s).resolution.details["pr"] == 10 and "rested" not in last(s).resolution.details
    # Another label, another combatant, an aborted use: none of them lose this PR.
    s = session("add A ep=100", "add B ep=100", "declare B power label=flight pr=10 effort=3",
                "declare A power label=glow pr=10 effort=3", "next",
                "declare A power label=flight pr=10 effort=2", "abort A", "step",
                "declare A power label=flight pr=10")
    assert last(s).resolution.details["pr"] == 10
    s.execute("abort A")
    s.execute("step")
    s.execute("declare A blast target=B pr=10 throwback=false faces=5,5")
    s.execute("abort A")
    s.execute("step")
    s.execute("declare A power label=glow pr=10")
    assert last(s).resolution.details["pr"] == 7


def test_a_pr_all_lost_to_extra_effort_is_refused() -> None:
    s = session("add A ep=100", "declare A power label=flight pr=3 effort=3", "next")
    s.execute("declare A power label=flight pr=3")  # 3 - 3 = 0: a PR of 0 may still be used
    assert last(s).resolution.details["pr"] == 0
    s.execute("next")
    with pytest.raises(TrackerError) as refused:
        s.execute("declare A power label=flight pr=2")
    assert str(refused.value) == "flight: PR 2 less 3 lost to Extra Effort leaves nothing (rested=true once it returns)"


def test_stopping_a_power_ends_its_charge_from_that_segment() -> None:
    """Module docstring, Stopping: `power label=NAME stop=true` rolls nothing, costs
    nothing and ends that per-round cost from the segment it is declared on; stopping
    what is not being paid for is refused by name."""
    s = session("add A ep=40", 'declare A power mode=passive pr=12 pr_effect=8 label="fire coat"', "step 60",
                'declare A power label="fire coat" stop=true')
    act = last(s)
    r = act.resolution
    assert act.pt == 1 and r.success is True and r.margin == 0 and r.dice == ()
    assert r.summary == "A drops fire coat: no more 1 EP a round from segment 60 (payment segment 100 charges nothing for it)"
    assert list(r.effects) == [Upkeep("A", "fire coat", "ep", 0, timing="initiate")]
    assert r.details == {"label": "fire coat", "stopped": {"fire coat": 1}}
    s.execute("step")
    with pytest.raises(TrackerError) as refused:
        s.execute("declare A power label=glow stop=true")
    assert str(refused.value) == "stop=true: A pays nothing a round for glow"
    s = session("add A ep=40", 'declare A power mode=passive pr=12 pr_effect=8 label="fire coat"', "step",
                "declare A power mode=passive pr=12 pr_effect=8 label=glow", "step")
    with pytest.raises(TrackerError) as refused:
        s.execute("declare A power label=shield stop=true")
    assert str(refused.value) == "stop=true: A pays nothing a round for shield (it pays a round for fire coat, glow)"
    s.execute("declare A power stop=true label=glow")
    assert s.encounter.combatant("A").upkeep == {"fire coat": ("ep", 1)}


# ---------------------------------------------------------------------------- holding breath
# Seed: "This is vs. Constitution plus half Strength, with a bonus equal to current Body
# DP." Constitution 6, strength 2: 7; DP 20 as a pool: Sphere 11 (18 <= 20 < 24): 18.
# Faces 7+7 = 14: Q 4; "The Quality reduces EP cost": row 9 - 4 = 5, 1 EP a round; 1 DP
# to the head per 5 EP a round: none yet.
SWIMMER = "add Swimmer constitution=6 strength=2 dp=20 ep=100"


def test_a_held_breaths_roll_costs_and_the_rounds_its_costs_rise_on() -> None:
    """"There is a penalty to the Quality equal to the elapsed time, in rounds, on the
    Sphere Chart": a payment charges the round ending on it at the penalty of the rounds
    held by its last segment (module docstring). Penalty 1 from the payment on 100 (row
    6, 2 EP), 2 on 150 (3 EP), ..., 8 on 450 (9 EP); the Sphere chart reads 9 rounds as
    8 still, 10 as 9: 10 EP on 550; 14 rounds read 10: 11 EP on 750. The head's DP: 5
    EP a round is 1 DP (on 250), 10 EP 2 DP (on 550)."""
    s = session(SWIMMER, "declare Swimmer hold-breath faces=7,7")
    act = last(s)
    r = act.resolution
    assert act.pt == 10 and act.mode == "passive" and r.success is True and r.margin == 4 and r.dice == (7, 7)
    assert r.summary == ("constitution + strength/2 7 + pool 20 (+11) = 18; rolled 7+7 = 14: Q 4; EP row 5: 1 EP a round; "
                         "rising as the rounds pass (2 EP from segment 100); PT 10")
    assert r.details == {"q": 4, "roll": 18, "total": 14, "vacuum_penalty": 0, "time_penalty": 0, "ep_row": 5,
                         "ep_per_round": 1, "raw_q": 4, "attempt_start": 0, "base": 7, "pool": 20, "pool_bonus": 11,
                         "editing": 0, "effort": 0}
    ep_cost, head_cost = r.effects
    assert (ep_cost.target, ep_cost.name, ep_cost.resource, ep_cost.amount, ep_cost.timing) == (
        "Swimmer", "holding breath", "ep", 1, "initiate")
    assert (head_cost.target, head_cost.name, head_cost.resource, head_cost.amount, head_cost.timing) == (
        "Swimmer", "holding breath: head", "dp", 0, "initiate")
    assert ep_cost.rises[:10] == ((100, 2), (150, 3), (200, 4), (250, 5), (300, 6), (350, 7), (400, 8), (450, 9),
                                  (550, 10), (750, 11))
    assert head_cost.rises[:2] == ((250, 1), (550, 2))
    # Each rise a row further: the amounts and the segments only ever go up.
    assert all(a[0] < b[0] and a[1] < b[1] for a, b in zip(ep_cost.rises, ep_cost.rises[1:]))
    assert all(a[0] < b[0] and a[1] < b[1] for a, b in zip(head_cost.rises, head_cost.rises[1:]))


def test_a_held_breath_continued_rolls_nothing_and_counts_the_rounds_since_the_roll() -> None:
    """"The roll is only made once for any specific attempt": `again=true` on segment 120
    takes the attempt's Q 4 less Sphere(2 rounds held) 2 = 2: row 7, 3 EP a round; its
    next rise is the round ending on segment 200, 3 rounds held: row 8, 4 EP."""
    s = session(SWIMMER, "declare Swimmer hold-breath faces=7,7", "step 120", "declare Swimmer hold-breath again=true")
    act = last(s)
    r = act.resolution
    assert r.dice == () and r.margin == 2 and r.success is True
    assert "total" not in r.details
    assert (r.details["raw_q"], r.details["attempt_start"], r.details["time_penalty"], r.details["ep_row"]) == (4, 0, 2, 7)
    assert r.summary == ("constitution + strength/2 7 + pool 20 (+11) = 18; no new roll: the attempt's Q 4 (rolled on "
                         "segment 0) - 2 for 2 rounds held = 2; EP row 7: 3 EP a round; rising as the rounds pass "
                         "(4 EP from segment 200); PT 10")
    assert r.effects[0].rises[0] == (200, 4)
    # Continued again later, the attempt still began on segment 0: 240 is 4 rounds, Q 0.
    s.execute("step 120")
    s.execute("declare Swimmer hold-breath again=true")
    r = last(s).resolution
    assert (r.details["attempt_start"], r.details["time_penalty"], r.margin) == (0, 4, 0)
    # `elapsed=` says how many rounds were held, whatever the clock says.
    s.execute("step")
    s.execute("declare Swimmer hold-breath again=true elapsed=1")
    assert last(s).resolution.details["time_penalty"] == 1 and last(s).resolution.margin == 3


def test_rounds_already_held_when_declared_are_a_penalty_from_the_start() -> None:
    """`elapsed=3`: Sphere(3) = 3 off Q 4: Q 1, row 8, 4 EP a round, and the rounds are
    counted from 3 rounds back (segment -150): the round ending on 50 is charged at the
    3 rounds held by its last segment (49), the one ending on 100 at 4 (Sphere 4): 5 EP,
    1 DP."""
    s = session(SWIMMER, "declare Swimmer hold-breath elapsed=3 faces=7,7")
    r = last(s).resolution
    assert r.margin == 1 and r.details["time_penalty"] == 3 and r.details["ep_row"] == 8 and r.details["ep_per_round"] == 4
    assert r.summary == ("constitution + strength/2 7 + pool 20 (+11) = 18; rolled 7+7 = 14: Q 4 - 3 for 3 rounds held = 1; "
                         "EP row 8: 4 EP a round; rising as the rounds pass (5 EP from segment 100); PT 10")
    assert r.effects[0].rises[0] == (100, 5) and r.effects[1].rises[0] == (100, 1)
    assert r.details["attempt_start"] == 0


def test_holding_breath_before_the_air_is_gone_takes_the_segments_of_pt_left() -> None:
    """Seed: "If a character starts to Hold Breath at segment 34, and all air is sucked
    away at segment 36, the penalty is 8." Constitution 12 + strength 10 / 2 = 17; DP 15:
    Sphere 10: 27, less 8: 19. Rolled 5+5: Q 9, row 0: free, and 1 EP per 50 uses
    (row 1, 0.02 a round) from the round the penalty first reaches 1."""
    s = session("add Diver constitution=12 strength=10 dp=15 ep=40", "step 34", "declare Diver hold-breath air_gone=36 faces=5,5")
    r = last(s).resolution
    assert r.details["vacuum_penalty"] == 8 and r.details["roll"] == 19 and r.margin == 9
    assert r.summary == ("constitution + strength/2 17 + pool 15 (+10) = 27 - 8 (air gone on segment 36, 8 segments of PT "
                         "left) = 19; rolled 5+5 = 10: Q 9; EP row 0: 0 EP a round; rising as the rounds pass (0.02 EP "
                         "from segment 100); PT 10")
    # Air gone after the breath is held: no penalty.
    s = session("add Diver constitution=12 strength=10 dp=15 ep=40", "step 34", "declare Diver hold-breath air_gone=44 faces=5,5")
    assert last(s).resolution.details["vacuum_penalty"] == 0 and last(s).resolution.details["roll"] == 27
    s = session("add Diver constitution=12 strength=10 dp=15 ep=40", "step 34", "declare Diver hold-breath air_gone=43 faces=5,5")
    assert last(s).resolution.details["vacuum_penalty"] == 1


def test_a_breath_held_at_a_high_cost_says_the_heads_dp_a_round() -> None:
    """Seed: "At Q of -1, the EP cost is 6 per round (Row 10)"; "For every 5 points of EP
    lost in one round, 1 point of DP (bludgeoning) is lost, to the head". Constitution 4,
    strength 0, DP 6 (Sphere 6): 10; 5+6 = 11: Q -1."""
    s = session("add Diver constitution=4 strength=0 dp=6 ep=40", "declare Diver hold-breath faces=5,6")
    r = last(s).resolution
    assert r.success is False and r.margin == -1
    assert r.summary == ("constitution + strength/2 4 + pool 6 (+6) = 10; rolled 5+6 = 11: Q -1; EP row 10: 6 EP a round, "
                         "1 DP (head) a round; rising as the rounds pass (7 EP from segment 100); PT 10")
    assert r.effects[1].amount == 1
    # No DP on the sheet: no pool (constitution 4 + strength 0 = 4).
    r = resolve("hold-breath", {}, (1, 2, 1), actor=Combatant("Ghost", {"constitution": 4, "strength": 0}, {}, {}), pt=10)
    assert r.details["pool"] == 0 and r.details["roll"] == 4 and r.margin == 2  # 1 + 2 - 1 (the 1 rolled again)
    # `roll=` replaces constitution + strength / 2; a pool joins the DP.
    s = session("add Diver constitution=4 strength=0 dp=6 ep=40", "declare Diver hold-breath roll=9 pool=2 faces=5,6")
    assert last(s).resolution.details["roll"] == 9 + 8


def test_a_held_breath_is_let_go_with_both_its_costs() -> None:
    s = session("add Diver constitution=4 strength=0 dp=6 ep=40", "declare Diver hold-breath faces=5,6", "step 60",
                "declare Diver hold-breath stop=true")
    r = last(s).resolution
    assert r.details == {"label": "holding breath", "stopped": {"holding breath": 6, "holding breath: head": 1}}
    assert list(r.effects) == [Upkeep("Diver", "holding breath", "ep", 0, timing="initiate"),
                               Upkeep("Diver", "holding breath: head", "dp", 0, timing="initiate")]
    s.execute("step")
    with pytest.raises(TrackerError) as refused:
        s.execute("declare Diver hold-breath stop=true")
    assert str(refused.value) == "stop=true: Diver pays nothing a round for holding breath"


# ---------------------------------------------------------------------------- what every roll shares
def test_q_zero_is_a_success() -> None:
    """rolls.py: "Success when total <= target; Q = target - total (0 on the target is a
    success)". Strength 10, rolled 5+5."""
    r = resolve("ability", {}, (5, 5), actor=Combatant("A", {"strength": 10}, {}, {}), pt=10)
    assert r.success is True and r.margin == 0
    assert r.summary == "strength 10 = 10; rolled 5+5 = 10: Q 0: nothing spent; PT 10; no EP"
    r = resolve("skill", {"roll": 10}, (5, 5), pt=10)
    assert r.success is True and r.summary.startswith("skill 10 = 10; rolled 5+5 = 10: Q 0: nothing spent")


def test_an_ability_rolls_extra_pool_is_read_on_the_sphere_chart() -> None:
    s = session("add Hero strength=10", "declare Hero ability pool=3 faces=5,5")
    r = last(s).resolution
    assert r.details["roll"] == 13 and r.details["pool"] == 3
    assert r.summary.startswith("strength 10 + pool 3 (+3) = 13; ")


def test_the_q_of_moving_jumping_and_throwing_is_named_in_the_games_words() -> None:
    """Q put on a jump's height, a throw's distance and lob, a move's turning."""
    order = ("q_height", "q_distance", "q_lob", "q_turn")
    ctx = RULES.ctx(request("move", {"q_height": 2, "q_distance": 2, "q_lob": 2, "q_turn": 2}, pt=6))
    amounts, text, notes = actions.spend_q(ctx, 8, order, None)
    assert amounts == {"q_height": 2, "q_distance": 2, "q_lob": 2, "q_turn": 2}
    assert text == "2 to height, 2 to distance, 2 to lob, 2 to turning" and notes == []
    amounts, text, notes = actions.spend_q(ctx, 1, order, None)
    assert text == "1 to height"
    assert notes == ["height cut from 2 to 1", "distance cut from 2 to 0", "lob cut from 2 to 0", "turning cut from 2 to 0"]
    # The combat words too (combat.LABELS).
    ctx = RULES.ctx(request("punch", {"q_attack": 1}, pt=15))
    assert actions.spend_q(ctx, 3, ("q_attack",), "q_damage") == ({"q_attack": 1, "q_damage": 2}, "1 to Attack, 2 to Damage", [])


def _groups(template: str, params: dict[str, Any], faces: tuple[int, ...], actor: Combatant | None = None) -> list[str]:
    dice = Recorder(TypedFaces(faces))
    RULES.resolve(request(template, params, actor, pt=10), dice)
    return [group.label for group, _ in dice.groups]


def test_each_roll_names_its_dice() -> None:
    assert _groups("ability", {}, (5, 5)) == ["Ability Roll"]
    assert _groups("discernment", {}, (5, 5)) == ["Discernment Roll"]
    assert _groups("heal", {}, (5, 5)) == ["Healing Roll"]
    assert _groups("hold-breath", {}, (5, 5)) == ["Hold Breath Roll"]
    assert _groups("skill", {"roll": 10}, (5, 5)) == ["Skill Roll"]
    assert _groups("knowledge", {"score": 10}, (5, 5)) == ["Knowledge Roll (tens, then units)"]
    # A 1 is rolled again, under the roll's own name.
    assert _groups("ability", {}, (1, 5, 3)) == ["Ability Roll", "Ability Roll: reroll of a 1 (subtracted)"]


def test_the_declare_forms_chance_is_the_one_off_odds_of_the_same_target() -> None:
    """The chance of an action's roll (`chance_of`) is `tracker odds brandx TARGET` of its
    target number: strength 12 (12), newoen 21 (10), constitution 10 and 20 DP (9 + 11 =
    20), constitution 6 + strength 2 / 2 and 20 DP (18), a skill of 9 with pool 2 (11);
    knowledge 45 on d100."""
    hero = Combatant("Hero", {"strength": 12, "newoen": 21, "constitution": 6}, {"dp": 20}, {"dp": 20})
    patient = Combatant("Patient", {"constitution": 10}, {"dp": 20}, {"dp": 20})
    cases = [("ability", {}, hero, 12), ("discernment", {}, hero, 10), ("heal", {}, patient, 20),
             ("hold-breath", {"roll": 7}, hero, 18), ("skill", {"roll": 9, "pool": 2}, hero, 11)]
    for template, params, who, target in cases:
        assert RULES.chance_of(request(template, params, who, pt=10)) == RULES.chance(str(target)), template
    assert RULES.chance(str(12)) != RULES.chance(str(11))
    assert RULES.chance_of(request("knowledge", {"score": 45}, hero, pt=6)) == RULES.chance("45", options={"kind": "knowledge"})


def test_a_house_table_may_make_any_roll_cost_ep() -> None:
    """ep.py: the row each kind of use starts on is the [ep_start] table, which a GM's
    house rules may change: ability row 6 (2 EP), discernment row 5 (1 EP), skill row 7
    (3 EP), holding breath row 7 (Q 4 brings it to row 3), a power row 8 (4 EP)."""
    house = BrandXRuleset({"ep_start": {"ability": 6, "discernment": 5, "skill": 7, "hold_breath": 7, "power": 8}})
    s = session_for(house, "add A strength=10 newoen=10 constitution=6 dp=20 ep=40", "declare A ability faces=5,5")
    assert last(s).resolution.details["ep_uses"] == [{"what": "strength roll", "row": 6, "paid": 2}]
    # A miss raises a row that costs: missed by 2, row 8.
    for line, uses in (("declare A ability faces=6,6", [{"what": "strength roll", "row": 8, "paid": 4}]),
                       ("declare A discernment faces=2,2", [{"what": "discernment", "row": 5, "paid": 1}]),
                       ("declare A skill roll=10 faces=5,5", [{"what": "skill", "row": 7, "paid": 3}]),
                       ("declare A power pr=4", [{"what": "power", "row": 8, "paid": 4}])):
        s.execute("next")
        s.execute(line)
        assert last(s).resolution.details["ep_uses"] == uses, line
    s.execute("next")
    s.execute("declare A hold-breath roll=7 faces=7,7")  # 7 + Sphere(DP 20) 11 = 18: Q 4
    assert last(s).resolution.details["ep_row"] == 3



def test_extra_effort_on_holding_breath_raises_constitution() -> None:
    """Extra Effort (`effort=N`) works on any roll based on an ability (module
    docstring); Hold Breath is vs. Constitution plus half Strength: effort 2 raises
    constitution, 18 + 2 = 20, and constitution 6 drops to 4."""
    s = session(SWIMMER, "declare Swimmer hold-breath effort=2 faces=7,7")
    r = last(s).resolution
    assert r.details["roll"] == 20 and r.details["effort"] == 2 and r.margin == 6
    assert Adjust("Swimmer", "constitution", -2, "Extra Effort: constitution 6 -> 4") in r.effects
    assert s.encounter.combatant("Swimmer").stats["constitution"] == 4


def test_a_held_breath_on_q_zero_holds() -> None:
    s = session(SWIMMER, "declare Swimmer hold-breath faces=9,9")  # 18 against 18
    assert last(s).resolution.margin == 0 and last(s).resolution.success is True


def test_a_continued_attempt_counts_whole_rounds_from_the_segment_it_began() -> None:
    """Begun on segment 20, continued on 110: one whole round held (Sphere 1), Q 4 - 1 =
    3, row 6, 2 EP a round. The round ending on 150 is charged at the rounds held by its
    last segment, 149: (149 - 20) // 50 = 2, Sphere 2: row 7, 3 EP."""
    s = session(SWIMMER, "step 20", "declare Swimmer hold-breath faces=7,7", "step 90",
                "declare Swimmer hold-breath again=true")
    r = last(s).resolution
    assert r.details["attempt_start"] == 20 and r.details["time_penalty"] == 1 and r.margin == 3
    assert r.summary == ("constitution + strength/2 7 + pool 20 (+11) = 18; no new roll: the attempt's Q 4 (rolled on "
                         "segment 20) - 1 for 1 rounds held = 3; EP row 6: 2 EP a round; rising as the rounds pass "
                         "(3 EP from segment 150); PT 10")
    assert r.effects[0].rises[0] == (150, 3)


def test_a_breath_held_from_the_last_segment_of_a_round_rises_on_the_next_payment() -> None:
    """Begun on segment 49: by segment 99 (the last of the round ending on 100) one whole
    round is held, so the payment on 100 is charged at Sphere(1): row 6, 2 EP."""
    s = session(SWIMMER, "step 49", "declare Swimmer hold-breath faces=7,7")
    assert last(s).resolution.effects[0].rises[:2] == ((100, 2), (150, 3))


def test_an_attempt_saved_without_its_start_began_when_its_action_started() -> None:
    """A Hold Breath action whose details carry its Q but not `attempt_start` (as a file
    written before it was kept): the attempt began on the action's own start, 20;
    continued on 110, one round held."""
    from tracker.engine import Event, Resolution
    from tests.helpers import advance

    enc = Encounter(Setup("test", RULES.id, RULES.time, RULES.down_when, {}, []))
    enc.apply(Event("add", {"name": "Swimmer", "stats": {"constitution": 6, "strength": 2},
                            "resources": {"dp": 20, "ep": 100}}))
    advance(enc, 20)
    enc.apply(Event("declare", {"actor": "Swimmer", "template": "hold-breath", "mode": "passive", "targets": [],
                                "companions": [], "maintainable": False,
                                "resolution": Resolution(pt=10, details={"raw_q": 4})}))
    advance(enc, 110)
    r = resolve("hold-breath", {"again": True}, actor=enc.combatant("Swimmer"), pt=10, encounter=enc, segment=110)
    assert r.details["attempt_start"] == 20 and r.details["time_penalty"] == 1 and r.margin == 3


def test_a_held_breaths_rises_stop_at_the_last_segment_a_fight_may_reach() -> None:
    """`_held_breath_rises`: "they are listed up to the last segment a fight may reach"
    (tracker.engine.bounds.MAX_SEGMENT, 10**12, itself a payment segment). Held from 60
    segments before it: the payment on 10**12 is the round held 1 round (2 EP), the last;
    held from 10 segments before it, nothing rises and the summary says none."""
    from tracker.engine.bounds import MAX_SEGMENT

    swimmer = Combatant("Swimmer", {"constitution": 6, "strength": 2}, {"dp": 20}, {"dp": 20})
    r = resolve("hold-breath", {}, (7, 7), actor=swimmer, pt=10, segment=MAX_SEGMENT - 60)
    assert r.effects[0].rises == ((MAX_SEGMENT, 2),)
    assert "rising as the rounds pass (2 EP from segment 1000000000000)" in r.summary
    r = resolve("hold-breath", {}, (7, 7), actor=swimmer, pt=10, segment=MAX_SEGMENT - 10)
    assert r.effects[0].rises == () and r.effects[1].rises == ()
    assert r.summary == "constitution + strength/2 7 + pool 20 (+11) = 18; rolled 7+7 = 14: Q 4; EP row 5: 1 EP a round; PT 10"


def test_a_held_breath_rises_only_when_the_cost_changes() -> None:
    """A house EP chart where rows 3 and 4 cost the same (1 EP per 5 uses each): Q 7 is
    row 2 (1 EP per 20, 0.05 a round); the penalty's first row (on 100) is row 3, 0.2; its
    second (on 150) row 4, 0.2 again: no rise; its third (on 200) row 5, 1 EP."""
    house = BrandXRuleset({"ep_uses_per_point": {"3": 5}})
    s = session_for(house, SWIMMER, "declare Swimmer hold-breath faces=5,6")
    r = last(s).resolution
    assert r.details["ep_per_round"] == 0.05
    assert r.effects[0].rises[:2] == ((100, 0.2), (200, 1))


def test_three_doublings_of_time_take_eight_times_as_long() -> None:
    r = resolve("skill", {"roll": 10, "level": 3, "more_time": 3}, (5, 5), pt=10)
    assert r.pt == 80 and r.details["roll"] == 16
    # A Knowledge Score of 10 adds 1, of 20 adds 2.
    assert resolve("skill", {"roll": 10, "knowledge": 10}, (5, 5), pt=10).details["pool"] == 1
    assert resolve("skill", {"roll": 10, "knowledge": 20}, (5, 5), pt=10).details["pool"] == 2


def test_a_skills_ep_row_counts_its_earlier_uses() -> None:
    """Row 4 costs 1 EP per 5 uses, the first of each five paid (ep.py): a skill on row 4
    pays on its first use and not on its second."""
    s = session("add Tech ep=30", "declare Tech skill roll=10 ep_row=4 faces=5,5", "next",
                "declare Tech skill roll=10 ep_row=4 faces=5,5")
    assert [a.resolution.details["ep_uses"][0]["paid"] for a in s.encounter.actions] == [1, 0]
    assert s.encounter.combatant("Tech").resources["ep"] == 29


def test_a_power_used_with_no_fight_behind_it_has_lost_nothing() -> None:
    r = resolve("power", {"pr": 6}, pt=20)
    assert r.details["pr"] == 6 and r.margin == 6


def test_a_power_dropped_and_used_again_keeps_its_whole_pr() -> None:
    """Dropping a power (`stop=true`) is no Extra Effort: the next use has its PR whole."""
    s = session("add A ep=100", "declare A power mode=passive pr=6", "step", "declare A power stop=true")
    r = last(s).resolution
    assert r.summary == "A drops power: no more 5 EP a round from segment 1 (payment segment 50 charges nothing for it)"
    s.execute("step")
    s.execute("declare A power mode=passive pr=6")
    assert last(s).resolution.details["pr"] == 6


def test_a_power_whose_template_is_passive_is_passive_with_no_mode_typed() -> None:
    """A power action made passive by its template (a plugin's or a GM's): charged each
    round, and half time, as a `mode=passive` one."""
    passive = replace(RULES.template("power"), mode="passive")
    req = request("power", {"pr": 6, "label": "shield"}, Combatant("A", {}, {"ep": 40}, {"ep": 40}), pt=10, tmpl=passive)
    r = RULES.resolve(req, TypedFaces(()))
    assert "passive, half time: PT 10" in r.summary
    assert Upkeep("A", "shield", "ep", 5, timing="initiate") in r.effects


def test_ep_set_by_hand_with_no_starting_value_is_not_healed() -> None:
    """A combatant made with no EP (the engine's `add`, as a plugin may write it) whose
    EP the GM then sets by hand (`set Bare ep 3`) has no maximum to heal EP up to: the
    hour's Q heals the 4 DP lost and stops there."""
    from tracker.engine import Event
    from rulesets.dice import RandomDice
    from tracker.play.session import Session

    enc = Encounter(Setup("test", RULES.id, RULES.time, RULES.down_when, {}, []))
    enc.apply(Event("add", {"name": "Bare", "resources": {"vp": 30, "dp": 20}}))
    s = Session(enc, RULES, RandomDice(0))
    for line in ("set Bare ep 3", "damage Bare 4 resource=dp", "declare Bare heal faces=3,3"):
        s.execute(line)
    assert last(s).resolution.summary.endswith("Q 13: dp +4")
    s.execute("next")
    s.execute("set Bare ep 0")  # nothing left, and still nothing to heal it up to
    s.execute("declare Bare heal faces=3,3")  # DP whole again: 9 + Sphere(20) 11 = 20, Q 14
    assert last(s).resolution.summary.endswith("Q 14: nothing to heal")
    # A count of penetrating DP on a sheet with no DP: a day's roll heals no DP.
    ghost = Combatant("Ghost", {"constitution": 10}, {"penetrating_dp": 3}, {"penetrating_dp": 3})
    assert resolve("heal", {"period": "day"}, (3, 3), actor=ghost, pt=360000).summary.endswith("Q 3: nothing to heal")
