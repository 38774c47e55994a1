"""Issue 12's rules, each with the seed sentence it follows."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from rulesets.dice import DiceNeeded, PromptingFaces, for_actor
from rulesets.d6 import D6Ruleset
from rulesets.usor import UsorRuleset
from rulesets.usor.actions import critical_table
from tracker.engine.errors import TrackerError
from tests.helpers import brandx_session, cli, cli_json, session_for


# ------------------------------------------------------------------ USOR
def faces_for(session: Any, actor: str, template: str, targets: list[str], pick: Any, params: dict[str, Any] | None = None) -> list[int]:
    """The faces a form would collect, group by group: `pick(group, sides)` chooses each."""
    typed: list[int] = []
    while True:
        request, _ = session.request(actor, template, targets, params or {})
        try:
            session.ruleset.resolve(request, for_actor(PromptingFaces(typed), actor))
            return typed
        except DiceNeeded as need:
            typed += [pick(need.group.text(), s) for s in need.group.sides[len(need.have):]]


def _strike(critical: bool) -> Any:
    s = session_for(UsorRuleset(), f"add A attack=20 damage=20 critical_strike={str(critical).lower()}",
                    "add B dodge=11 vitality=10")
    faces = faces_for(s, "A", "strike", ["B"], lambda group, sides: sides if group.startswith("A's") else 1)
    s.declare("A", "strike", ["B"], faces=faces)
    return s.encounter.actions[-1].resolution


def test_usor_critical_strike_uses_nost_for_extra_damage() -> None:
    """Seed: "Characters who have the Critical Strike ability can use NOST to increase
    damage done in combat. A NOST of 1 is sufficient to strike an opponent but a NOST of
    2 adds additional damage to the attack." """
    plain, critical = _strike(False), _strike(True)
    assert plain.margin >= 2 and "critical_strike" not in plain.details
    table = UsorRuleset().tables["critical_strike"]
    assert critical.details["critical_strike"] == table[str(min(plain.margin, 6))]
    assert "Critical Strike" in critical.summary


def test_usor_critical_strike_grows_with_every_nost() -> None:
    """Seed: "A NOST of 3 would add even more and a NOST of 4 would be even greater
    still, and so on and so forth. Simply put, the higher the NOST, the better." The
    shipped table adds 2, 4, 6, 8, 10 for NOST 2-6; past it each NOST adds the last step
    (10 - 8 = 2) again: NOST 7 adds 12, NOST 9 adds 16."""
    r = UsorRuleset()
    a = session_for(r, "add A attack=84 critical_strike=true").encounter.combatant("A")
    bonuses = [r.resolver().critical_bonus(a, n) for n in range(1, 10)]
    assert bonuses == [0, 2, 4, 6, 8, 10, 12, 14, 16]
    assert bonuses[6] > bonuses[5]  # NOST 7 beats NOST 6


def test_usor_critical_strike_at_nost_7_adds_more_than_at_nost_6_in_a_strike() -> None:
    """attack=85 (derived row 85: 1d4+1d8+1d10+4d20, seven dice) against dodge=1 (one d6):
    all seven strike dice succeed and the dodge fails, NOST 7 -> Critical Strike +12, so
    the Damage Rating is 15 + 12 = 27; with six strike dice succeeding (the d4 shows 1),
    NOST 6 -> +10, Damage Rating 25."""
    ratings = []
    for d4 in (4, 1):
        s = session_for(UsorRuleset(), "add A attack=85 critical_strike=true", "add B dodge=1 vitality=10")
        def pick(group: str, sides: int, d4: int = d4) -> int:
            if group.startswith("A's strike"):
                return d4 if sides == 4 else sides
            return 1 if group.startswith("B's dodge") else sides
        faces = faces_for(s, "A", "strike", ["B"], pick)
        s.declare("A", "strike", ["B"], faces=faces)
        res = s.encounter.actions[-1].resolution
        ratings.append((res.margin, res.details["critical_strike"]))
    assert ratings == [(7, 12), (6, 10)]


def test_usor_critical_strike_table_is_the_gms_but_may_not_fall(tmp_path: Any) -> None:
    rules = tmp_path / "house.toml"
    rules.write_text("[critical_strike]\n2 = 3\n3 = 5\n4 = 9\n5 = 11\n6 = 20\n")
    r = UsorRuleset(rules)
    a = session_for(r, "add A critical_strike=true").encounter.combatant("A")
    assert [r.resolver().critical_bonus(a, n) for n in (1, 2, 3, 6, 7, 8)] == [0, 3, 5, 20, 29, 38]
    # Row 2 alone over the shipped rows would make NOST 3 (4) fall below NOST 2 (7).
    rules.write_text("[critical_strike]\n2 = 7\n")
    with pytest.raises(TrackerError, match=r"house\.toml: critical_strike\.3: a Critical Strike must add more with every NOST.*4 is not more than 7"):
        UsorRuleset(rules).catalogue()
    rules.write_text("[critical_strike]\n2 = 2\n3 = 4\n4 = 6\n5 = 8\n6 = 8\n")
    with pytest.raises(TrackerError, match=r"critical_strike\.6: .*8 is not more than 8"):
        UsorRuleset(rules).catalogue()
    with pytest.raises(TrackerError, match=r"NOST 3 has none"):
        critical_table({"critical_strike": {"2": 2, "4": 6}})


def test_usor_odds_say_derived_as_roll_does() -> None:
    """docs/contributing/design.md#rules-decisions: show "derived" wherever such a row is used."""
    data = cli_json("odds", "usor", "17", "--vs", "16")
    assert data["notes"] == ["derived row: rating 17 = 1d8+1d12"]
    assert cli_json("odds", "usor", "20", "--vs", "16")["notes"] == []


# ------------------------------------------------------------------ D6
def test_d6_half_the_result_points_carry_to_another_roll() -> None:
    """Seed: "The gamemaster may allow a player to add one-half of the result points
    (rounded up) as a bonus to another skill roll"."""
    s = session_for(D6Ruleset(), "add Han reflexes=3D")
    s.execute("declare Han check difficulty=6 faces=5,5,3")  # 13: result points 7
    s.execute("next")
    s.execute("declare Han check difficulty=20 carry=true faces=2,2,2")  # 6 + 4 (7/2 up)
    res = s.encounter.actions[-1].resolution
    assert res.details["total"] == 10 and "half the result points" in res.summary
    s.execute("next")
    with pytest.raises(TrackerError, match="no result points to spare|already used"):
        s.execute("declare Han check difficulty=6 carry=true faces=2,2,2")


def test_d6_result_points_carry_to_a_special_ability_effect() -> None:
    """The D6 rules: "add one-half of the result points (rounded up) as a bonus to another
    skill roll or Supernatural or Special Ability effect". A check of 5+5+3 = 13 against
    6 leaves 7 result points; half, rounded up, is 4: an effect of 2D rolling 3+2 = 5
    totals 9. The points are then spent: a second carry is refused."""
    s = session_for(D6Ruleset(), "add Mystic reflexes=3D")
    s.execute("declare Mystic check difficulty=6 faces=5,5,3")
    s.execute("next")
    s.execute("declare Mystic effect code=2D carry=true faces=3,2")
    res = s.encounter.actions[-1].resolution
    assert res.details["total"] == 3 + 2 + 4 and "effect 2D, half the result points of check (segment 0) +4" in res.summary
    s.execute("next")
    with pytest.raises(TrackerError, match="already used"):
        s.execute("declare Mystic effect code=2D carry=true faces=3,2")
    with pytest.raises(TrackerError, match="code=4D"):
        s.execute("declare Mystic effect faces=3,2")


def test_d6_situation_modifiers_in_their_die_code_form() -> None:
    """Seed: "Advantaged +5 or +1D"."""
    s = session_for(D6Ruleset(), "add Han reflexes=3D")
    s.execute("declare Han check difficulty=6 situation=advantaged situation_dice=true faces=2,2,2,2")
    assert s.encounter.actions[-1].resolution.details["total"] == 8
    s.execute("next")
    with pytest.raises(TrackerError, match="no die-code form"):
        s.execute("declare Han check difficulty=6 situation=slightly_advantaged situation_dice=true faces=2,2,2")


def test_d6_difficulty_zero_needs_no_roll(capsys: pytest.CaptureFixture[str]) -> None:
    """Seed: "Automatic (0): Almost anyone can perform this action; there is no need to roll." """
    s = session_for(D6Ruleset(), "add Han")
    s.execute("declare Han check level=automatic")
    res = s.encounter.actions[-1].resolution
    assert res.success is True and res.dice == ()
    assert s.chance("Han", "check", [], {"difficulty": "0"}) == 1
    data = cli_json("roll", "d6", "3D", "--difficulty", "0")
    assert data["success"] is True and data["dice"] == []
    code, _ = cli("roll", "d6", "3D", "--difficulty", "0", "--faces", "1,2,3")
    assert code != 0 and "unused" in capsys.readouterr().err


# ------------------------------------------------------------------ OGS
def test_ogs_reroll_ones_on_the_enhancement_die() -> None:
    """Seed: "a common enhancement modifier will be to reroll ones"."""
    from rulesets.ogs import OgsRuleset
    from rulesets.ogs import odds

    s = session_for(OgsRuleset(), "add A stat=d6 skill=d6 enhancement=d4 reroll_ones=true")
    faces = faces_for(s, "A", "check", [], lambda group, sides: 3 if "reroll of a 1" in group else 1, {"difficulty": "5"})
    assert faces == [1, 1, 1, 3]  # the stat and skill 1s stand; the enhancement 1 is rolled again
    s.declare("A", "check", faces=faces, params={"difficulty": "5"})
    assert s.encounter.actions[-1].resolution.details["total"] == 5
    # Exact odds: the enhancement d4 shows 1 with chance 1/16, each other face 5/16.
    with_reroll = s.chance("A", "check", [], {"difficulty": "15"})
    # 15 or more: 12 and a d4 of 3+ (10/16), or 11 and a 4 (5/16).
    assert with_reroll == Fraction(1, 36) * Fraction(10, 16) + Fraction(2, 36) * Fraction(5, 16)
    assert odds.success((6, 6, 4), 0, 15) == Fraction(1, 36) * Fraction(2, 4) + Fraction(2, 36) * Fraction(1, 4)


def test_ogs_opposed_check_of_three_sides_breaks_ties_among_those_tied() -> None:
    """Seed: "It is possible for multiple participants to roll the same total, in which
    case the resulting tie is broken by comparing [...] die values from largest to
    smallest, individual die sizes from largest to smallest, and finally by repeatedly
    rolling opposed d12s"."""
    from rulesets.ogs import OgsRuleset

    s = session_for(OgsRuleset(), "add A stat=d6 skill=d6 enhancement=", "add B stat=d6 skill=d6 enhancement=",
                    "add C stat=d6 skill=d6 enhancement=")
    # A 3+4, B 2+5, C 4+3: all 7; values: A (4,3), B (5,2), C (4,3): B wins on die values.
    s.declare("A", "contest", ["B", "C"], faces=[3, 4, 2, 5, 4, 3])
    res = s.encounter.actions[-1].resolution
    assert res.details["winner"] == "B" and res.details["decided_by"] == "die values" and res.success is None  # judged at landing
    s.execute("next")
    # A 3+4, B 1+6 (values 6,1 > 4,3?) -- use equal values: A (4,3), B (3,4), C 1+1: A and B go to d12s.
    s.declare("A", "contest", ["B", "C"], faces=[3, 4, 4, 3, 1, 1, 9, 9, 2, 11])
    res = s.encounter.actions[-1].resolution
    assert res.details["winner"] == "B" and res.details["decided_by"] == "d12 roll-off"


# ------------------------------------------------------------------ Brand X

def test_brandx_attack_q_is_placed_per_opponent() -> None:
    """Seed: "The player must apply Attack separately for each opponent." """
    s = brandx_session("add A combat_roll=15 learning=0 ep=100 hand_damage=5", "add B vp=40", "add C vp=40")
    s.execute("declare A punch target=B,C faces=2,2,10,10,10,10 q_attacks=9,1")  # pool -1: Q 10 all Attack
    res = s.encounter.actions[-1].resolution
    assert res.details["attacks"] == [9, 1]
    s.execute("step 20")
    with pytest.raises(TrackerError, match="adds up to"):
        s.execute("declare A punch target=B,C faces=2,2,10,10,10,10 q_attacks=5,1")
    s2 = brandx_session("add A combat_roll=15 learning=0 ep=100", "add B vp=40", "add C vp=40",
            "declare A punch target=B,C faces=2,2,10,10,10,10")
    res = s2.encounter.actions[-1].resolution
    assert res.details["attacks"] == [5, 5] and "shared evenly" in res.summary


def test_brandx_maintained_attacks_are_blast_and_ray_powers_unless_the_table_says_otherwise() -> None:
    """Seed: "Most blast/ray attack powers can be maintained." """
    lines = ("add A combat_roll=15 learning=0 ep=100", "add B vp=100 dp=50",
             "declare A punch target=B faces=5,5 throwback=false", "next")
    s = brandx_session(*lines)
    punch = s.ruleset.template("punch")
    assert not s.ruleset.maintainable(punch, s.encounter.setup.settings)  # the form does not say "maintainable"
    assert not s.encounter.actions[-1].maintainable
    with pytest.raises(TrackerError, match="no completed attack that can be maintained"):
        s.execute("maintain A")
    assert s.ruleset.maintainable(s.ruleset.template("blast"), s.encounter.setup.settings)
    s = brandx_session(*lines, maintain_hand_attacks=True)
    assert s.ruleset.maintainable(punch, s.encounter.setup.settings)
    s.execute("maintain A")
    assert s.encounter.actions[-1].chain == 1


def test_brandx_lift_by_a_power_takes_20_segments_and_reads_distance() -> None:
    """Seed: "For powers, the Performance Time is 20 segments. For powers that can lift
    at a distance, look up the distance to the object, in meters, on the Sphere Chart
    for the Q required for distance." """
    s = brandx_session("add A ep=100")
    s.execute("declare A lift power=true roll=30 weight=100 distance=10 faces=5,5")
    res = s.encounter.actions[-1].resolution
    assert res.pt == 20 and res.details["needed"] > 14  # Sphere(100 kg) plus Sphere(10 m)
    s.execute("step 25")
    with pytest.raises(TrackerError, match="power=true"):
        s.execute("declare A lift weight=10 distance=5 faces=5,5")


def test_brandx_inanimate_objects_hold_with_roll_plus_pool() -> None:
    """Seed: "Inanimate objects (ropes, webs) do not normally need to roll the Lift Roll.
    Their Lift Q is the Roll plus the Pool (Sphere Chart, of course)." """
    s = brandx_session("add Web ep=0")
    s.execute("declare Web lift inanimate=true roll=12 pool=2 weight=70")
    res = s.encounter.actions[-1].resolution
    assert res.dice == () and res.details["q"] == 12 + 2 and res.details["inanimate"]


def test_brandx_throw_reports_short_range_and_range_set() -> None:
    """Seed: "The Maximum Range is the speed. The Short Range is equal to the Q used for
    speed, and the Range Set is half this." """
    s = brandx_session("add A strength=20 combat_roll=15 learning=0 ep=100", "add B vp=40")
    s.execute("declare A throw target=B weight=1 damage=3 range=2 q_distance=4 faces=2,2,5,5,10,10")
    res = s.encounter.actions[-1].resolution
    assert res.details["attack"]["short_range"] == res.details["attack"]["range_set"] * 2
    assert "Short Range" in res.summary and "Range Set" in res.summary


def test_brandx_q_spent_cutting_the_opponent_comes_off_your_own() -> None:
    """Seed: "Q can also be used to reduce the opponent's Q, at a 2 to 1 ratio. It takes
    2 points to reduce the opponent's Q by 1 point." """
    s = brandx_session("add A strength=15 mass=20 ep=20", "add B strength=12 mass=20 ep=20")
    # A Q 12, B Q 0. A spends 4 cutting: B 0 - 2 = -2 loses; A keeps 12 - 4 = 8.
    s.execute("declare A arm-wrestle target=B faces=2,3,7,7 q_cut=4 vs_q_cut=0")
    res = s.encounter.actions[-1].resolution
    assert res.details["winner"] == "A" and "end at 8 and -2" in res.summary
    s.execute("abort A")
    s.execute("step")
    # Spending everything on cutting leaves nothing of your own: 12 - 12 = 0 and B's own
    # 2 Q spent cutting A by 1 takes A to -1, while B ends at 0 - 2 - 6 = -8: nobody wins.
    s.execute("declare A arm-wrestle target=B faces=2,3,6,6 q_cut=12 vs_q_cut=2")
    assert "nobody has won yet" in s.encounter.actions[-1].resolution.summary


def test_brandx_extra_effort_on_a_power_lowers_its_pr() -> None:
    """Seed: "The ability that was increased is immediately decreased by the same
    amount it was increased" (Extra Effort, applied to a power's PR)."""
    s = brandx_session("add A ep=100")
    s.execute("declare A power label=flight pr=10 effort=3")
    assert s.encounter.actions[-1].resolution.details["pr"] == 13
    s.execute("next")
    s.execute("declare A power label=flight pr=10")
    assert s.encounter.actions[-1].resolution.details["pr"] == 7
    s.execute("next")
    s.execute("declare A power label=flight pr=10 rested=true")
    assert s.encounter.actions[-1].resolution.details["pr"] == 10


def test_brandx_low_density_jumps() -> None:
    """Seed: "multiply the time in the air by the atmospheric density plus the character's
    density, and divide by the character's density. Movement should be multiplied by the
    same amount." """
    plain = brandx_session("add A ep=100", "declare A jump speed=2 faces=2,2").encounter.actions[-1].resolution
    light = brandx_session("add A ep=100", "declare A jump speed=2 density=1.2 faces=2,2").encounter.actions[-1].resolution
    assert light.details["length_m"] == round(plain.details["length_m"] * 2, 2)
    assert light.details["air"] == plain.details["air"] * 2


def test_brandx_fractional_throwback_for_positive_q() -> None:
    """Seed: "you may want to apply throwback for positive Q (making it negative), thus
    resulting in fractional throwback, but this should be rare"."""
    lines = ("add A combat_roll=15 learning=0 ep=100 hand_damage=5", "add B vp=40 side=foes",
             "declare A punch target=B throwback=true faces=2,2,2,2")
    plain = brandx_session(*lines)
    plain.execute("next")
    assert "speed" not in plain.encounter.actions[-1].resolution.details["hits"][0]["throwback"]
    s = brandx_session(*lines, fractional_throwback=True)
    s.execute("next")
    hit = s.encounter.actions[-1].resolution.details["hits"][0]["throwback"]
    assert hit["fractional"] and 0 < hit["speed"] < 1


def test_brandx_hold_breath_rolls_once_and_the_penalty_builds() -> None:
    """Seed: "The roll is only made once for any specific attempt, and the elapsed time
    penalty builds as time passes, thus increasing the EP cost." """
    s = brandx_session("add A constitution=14 strength=12 ep=100 dp=10")
    s.execute("declare A hold-breath faces=3,3")
    first = s.encounter.actions[-1].resolution
    s.execute("step 120")
    s.execute("declare A hold-breath again=true")
    later = s.encounter.actions[-1].resolution
    assert later.dice == () and later.details["raw_q"] == first.details["raw_q"]
    assert later.details["time_penalty"] > 0 and later.details["ep_per_round"] >= first.details["ep_per_round"]
    assert later.details["q"] == first.details["q"] - later.details["time_penalty"]


def test_brandx_a_thrown_sweep_places_attack_per_opponent_too() -> None:
    s = brandx_session("add A strength=20 combat_roll=15 learning=0 ep=100", "add B vp=40", "add C vp=40")
    s.execute("declare A throw target=B,C weight=1 damage=3 faces=2,2,2,2,10,10,10,10 q_attacks=9,1")
    assert s.encounter.actions[-1].resolution.details["attack"]["hits"][0]["attack"] == 9
