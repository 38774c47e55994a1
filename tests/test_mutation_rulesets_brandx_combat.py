"""Direct tests of `rulesets/brandx/combat.py`: Combat Rolls, Hand Damage, blows judged as
they land, throwback, several opponents, maintained attacks and blasts.

Expected values are worked by hand from the rules text (seed 004) and the charts it reads
(rulesets/brandx/tables.toml: a value reads the row of the largest entry at or below it).
The rows used here: Sphere 1-8 are 1-8, 10 -> 9, 14 -> 10, 18 -> 11, 24 -> 12, 43 -> 14,
57 -> 15, 75 -> 16, 100 -> 17; Doubles 1, 2, 4, 8, 16 are rows 1-5; Square 1, 4, 9 are
rows 1-3. The Combat Roll's dice come first in `faces=`, then each Throwback Roll's.
"""

from __future__ import annotations

from typing import Any

import pytest

from rulesets.brandx import BrandXRuleset
from rulesets.brandx.combat import hand_damage, maintained_pt, miss_shares, power_budget, share_attack
from rulesets.brandx.common import Ctx
from tracker.engine import TrackerError
from tracker.play.session import Session
from tests.helpers import session_for

# Hitter: Combat Roll Sphere(2 x 22 = 44) 14, pool learning 10 // 10 = 1 (Sphere +1): 15.
# Hand Damage Doubles(100 / 10 = 10) row 4 + strength 20 // 4 = 5: 9.
HITTER = "add Hitter agility=22 mass=100 strength=20 learning=10 ep=100"
# Victim: Throwback Roll Sphere(mass 60) 15; Sphere(strength 10) 9; Sphere(agility 14) 10.
VICTIM = "add Victim agility=14 strength=10 mass=60 height=1.8 vp=5 dp=40"


def session(*lines: str, **settings: Any) -> Session:
    return session_for(BrandXRuleset(), *lines, **settings)


def res(s: Session, name: str) -> dict[str, Any]:
    return dict(s.encounter.combatant(name).resources)


def log_since(s: Session, mark: int) -> list[str]:
    return [e.text for e in s.encounter.log[mark:]]


def last(s: Session) -> Any:
    return s.encounter.actions[-1]


# ------------------------------------------------------------------ small rules


def test_hand_damage_reads_mass_over_10_on_doubles_and_adds_strength_or_mass_over_4() -> None:
    """Seed: "Look up mass divided by 10 on the Doubles Chart, and add strength divided by
    4 (round down). If Strength is greater than Mass, add Mass/4 instead of Strength/4."
    Mass 80, strength 19: Doubles(8) row 4 + 19 // 4 = 4: 8. Mass 30, strength 31:
    Doubles(3) row 2 + 30 // 4 = 7: 9. Mass 40, strength 40: 3 + 10 = 13."""
    charts = BrandXRuleset().charts
    assert hand_damage(charts, 80, 19) == 8
    assert hand_damage(charts, 30, 31) == 9
    assert hand_damage(charts, 40, 40) == 13


def test_a_miss_is_dealt_to_attack_damage_defense_in_turn() -> None:
    """Seed: "apply the negative Q evenly to Attack, then Damage, then Defense ... Defense
    Q is still divided by 2 and rounded towards 0": a miss by 1 is Attack -1; by 3,
    -1/-1/0 (1 halved to 0); by 12, -4/-4/-2."""
    assert miss_shares(1) == (-1, 0, 0)
    assert miss_shares(3) == (-1, -1, 0)
    assert miss_shares(12) == (-4, -4, -2)


def test_attack_q_shared_evenly_gives_the_first_opponents_the_odd_points() -> None:
    assert share_attack(5, 3) == [2, 2, 1]
    assert share_attack(4, 2) == [2, 2]
    assert share_attack(1, 3) == [1, 0, 0]
    assert share_attack(0, 1) == [0]


# ------------------------------------------------------------------ the Combat Roll


def test_the_combat_roll_from_roll_from_the_sheet_and_from_agility() -> None:
    """Seed: "Look up twice Agility on the Sphere Chart for the character's Combat Roll."
    A `roll=` given wins; then the sheet's `combat_roll`; then Sphere(2 x agility).
    Learning 10 gives pool 1 (+1) in each."""
    s = session(HITTER, "add Bag vp=100 dp=100")
    s.execute("declare Hitter punch target=Bag throwback=false faces=5,5")
    summary = last(s).resolution.summary
    assert summary.startswith("Combat Roll 14 (Sphere of 2 x agility 22) + pool 1 (+1) = 15; rolled 5+5 = 10: Q 5: 5 to Attack; ")
    assert last(s).resolution.details["roll"] == 15
    s.execute("next")
    s.execute("declare Hitter punch target=Bag throwback=false roll=9 faces=5,5")
    assert last(s).resolution.summary.startswith("Combat Roll 9 + pool 1 (+1) = 10; rolled 5+5 = 10: Q 0")
    assert last(s).resolution.details["base"] == 9
    s.execute("next")
    s = session("add Sheeted agility=22 combat_roll=7 learning=10 ep=50", "add Bag vp=100 dp=100")
    s.execute("declare Sheeted punch target=Bag throwback=false faces=2,2")
    assert last(s).resolution.summary.startswith("Combat Roll 7 + pool 1 (+1) = 8; rolled 2+2 = 4: Q 4")
    assert last(s).resolution.details["base"] == 7


def test_the_bonus_pool_adds_learning_sight_size_and_pool_less_one_per_extra_opponent() -> None:
    """Seed: "Sight bonuses/penalties to Combat, Size Difference modifiers, and learning
    divided by 10, round down, are all added together, along with any other modifiers,
    for the Bonus Pool" and "each extra opponent counts as a penalty of 1". Learning 29:
    2; sight 3, size -1, pool 2: 6; against three opponents 6 - 2 = 4 (Sphere +4): the
    Combat Roll 10 (combat_roll) needs 14."""
    s = session("add A combat_roll=10 learning=29 ep=50", "add X vp=50", "add Y vp=50", "add Z vp=50")
    s.execute("declare A punch target=X,Y,Z sight=3 size=-1 pool=2 throwback=false faces=7,7")
    d = last(s).resolution.details
    assert d["pool"] == 4 and d["roll"] == 14 and d["q"] == 0
    s.execute("undo")
    s.execute("declare A punch target=X sight=-3 throwback=false faces=7,7")  # 2 - 3 = -1: Sphere -1
    d = last(s).resolution.details
    assert d["pool"] == -1 and d["roll"] == 9


def test_hand_damage_from_the_sheet_held_back_and_a_weapons_damage() -> None:
    """The sheet's `hand_damage` overrides the derived figure; `hand_damage=` holds back
    (0 to the full figure); a weapon's damage adds to it (seed: Hand Damage is "the
    damage added to a weapon which depends on strength")."""
    s = session("add A agility=22 hand_damage=6 ep=50", "add Bag vp=100 dp=100")
    s.execute("declare A strike target=Bag damage=3 hand_damage=4 throwback=false faces=5,5")
    d = last(s).resolution.details
    assert d["damage"] == 7
    assert "damage Hand Damage 4 of 6 + weapon 3 +0 = 7" in last(s).resolution.summary
    s.execute("next")
    s.execute("declare A punch target=Bag throwback=false faces=5,5")
    assert "damage Hand Damage 6 +0 = 6" in last(s).resolution.summary
    s.execute("next")
    with pytest.raises(TrackerError, match=r"^hand_damage=7: A's Hand Damage is 6; use 0 to 6$"):
        s.execute("declare A punch target=Bag hand_damage=7 faces=5,5")
    s.execute("declare A punch target=Bag hand_damage=0 throwback=false faces=5,5")
    assert last(s).resolution.details["damage"] == 0


# ------------------------------------------------------------------ throwback


def test_a_blow_taking_dp_throws_the_target_by_its_failed_throwback_roll() -> None:
    """Seed, Throwback Roll: "the character's Mass, on the Sphere Chart ... a penalty to
    the roll of the damage done ... If the character took DP from the attack, the bonus
    must be strength"; a failed roll's negative Q, made positive, is looked up "from the
    Result Column of the Action Chart to the Sphere Column, for the speed in
    meters/segment and the distance"; airborne: height x 2 on the Square chart.
    Hitter rolls 5+5 = 10 against 15: Q 5, all to Attack (+5); damage 9 against Victim's
    5 VP: DP is lost. Victim: Sphere(60) 15 + Sphere(strength 10) 9 - 9 = 15; rolled
    10+10 = 20: missed by 5, Sphere row 5 = 5 m/segment; Square(3.6) row 1: airborne 1
    segment, 5 m. The other reading (VP only): Sphere(max(14, 10)) 10: 16, missed by 4."""
    s = session(HITTER, VICTIM)
    s.execute("declare Hitter punch target=Victim faces=5,5,10,10")
    act = last(s)
    hit = act.resolution.details["hits"][0]
    dp_text = ("Victim's Throwback Roll mass 15 + strength +9 - damage 9 = 15; rolled 10+10 = 20: "
               "thrown 5 m at 5 m/segment, airborne 1 segment; Pushback +5")
    vp_text = ("Victim's Throwback Roll mass 15 + agility/strength +10 - damage 9 = 16; rolled 10+10 = 20: "
               "thrown 4 m at 4 m/segment, airborne 1 segment; Pushback +4")
    assert hit == {
        "target": "Victim", "attack": 5, "defense": 0, "hit": True, "damage": 9, "resource": "vp", "overflow": "dp",
        "surprised": False, "throwback_allowed": True, "passive_defense": 0,
        "throwback": {"target": "Victim", "roll": 15, "dice": [10, 10], "q": -5, "speed": 5.0, "distance": 5.0,
                      "airborne": 1, "pushback": 5,
                      "readings": {"dp": {"text": dp_text, "speed": 5.0, "distance": 5.0, "airborne": 1, "pushback": 5},
                                   "vp": {"text": vp_text, "speed": 4.0, "distance": 4.0, "airborne": 1, "pushback": 4}}},
    }
    assert act.resolution.dice == (5, 5, 10, 10)
    assert ("Attack +5 vs Victim's Defense +0 now: a hit for 9 VP as things stand (judged when it lands); " + dp_text
            in act.resolution.summary)
    mark = len(s.encounter.log)
    s.execute("next")
    texts = log_since(s, mark)
    assert "Hitter's punch lands: Attack +5 vs Victim's Defense +0: hit for 9 VP" in texts
    assert dp_text in texts
    victim = s.encounter.combatant("Victim")
    assert res(s, "Victim")["vp"] == 0 and res(s, "Victim")["dp"] == 36  # 5 to VP, 4 through to DP
    assert res(s, "Victim")["pushback"] == 5
    assert victim.airborne_until == s.encounter.now + 1


def test_a_surprised_target_hit_for_vp_only_is_thrown_with_the_vp_reading() -> None:
    """Seed: "For a character to be thrown back when only VP was lost, the character
    must have been surprised. If the character lost DP in a surprise attack, the bonus due
    to strength is halved." Victim with 50 VP takes 9: VP only, bonus Sphere(max(14, 10))
    10: 15 + 10 - 9 = 16, rolled 20: thrown 4 m. The DP reading, surprised: strength 9
    halved to 4: 15 + 4 - 9 = 10, missed by 10: Sphere row 10 = 14 m/segment."""
    s = session(HITTER, "add Victim agility=14 strength=10 mass=60 height=1.8 vp=50 dp=40")
    s.execute("declare Hitter punch target=Victim surprised=true faces=5,5,10,10")
    hit = last(s).resolution.details["hits"][0]
    assert hit["surprised"] is True
    readings = hit["throwback"]["readings"]
    assert readings["vp"]["text"] == ("Victim's Throwback Roll mass 15 + agility/strength +10 - damage 9 = 16; "
                                      "rolled 10+10 = 20: thrown 4 m at 4 m/segment, airborne 1 segment; Pushback +4")
    assert readings["dp"]["text"] == ("Victim's Throwback Roll mass 15 + strength +4 (halved: surprised) - damage 9 = 10; "
                                      "rolled 10+10 = 20: thrown 14 m at 14 m/segment, airborne 1 segment; Pushback +10")
    assert (readings["dp"]["speed"], readings["dp"]["distance"], readings["dp"]["pushback"]) == (14.0, 14.0, 10)
    s.execute("next")
    assert res(s, "Victim")["vp"] == 41 and res(s, "Victim")["pushback"] == 4


def test_a_target_surprised_in_the_encounter_is_surprised_unless_the_gm_says_not() -> None:
    """A target the encounter holds surprised (`surprised=SEGMENT` on add) counts as
    surprised for the throwback; `surprised=false` on the attack says it is not."""
    s = session(HITTER, "add Victim agility=14 strength=10 mass=60 vp=50 dp=40 surprised=30")
    s.execute("declare Hitter punch target=Victim faces=5,5,10,10")
    assert last(s).resolution.details["hits"][0]["surprised"] is True
    s.execute("undo")
    s.execute("declare Hitter punch target=Victim surprised=false faces=5,5,10,10")
    assert last(s).resolution.details["hits"][0]["surprised"] is False
    s.execute("next")
    assert "pushback" not in res(s, "Victim") or not res(s, "Victim")["pushback"]


def test_penetrating_and_small_projectile_damage_halve_the_throw_and_count_their_dp() -> None:
    """Seed: "Half this for attacks that do mainly penetrating damage. Half again for
    small projectile weapons"; Healing: penetrating DP heal by the day, injury DP by the
    month. 5 m/segment halved twice: 1.25 m; of the 9 damage, 5 VP and 4 DP: 4 DP are
    penetrating. Height 3 m: Square(6) row 2, airborne 2 segments (2.5 m)."""
    s = session(HITTER, "add Victim agility=14 strength=10 mass=60 height=3 vp=5 dp=40")
    s.execute("declare Hitter strike target=Victim penetrating=true small_projectile=true faces=5,5,10,10")
    hit = last(s).resolution.details["hits"][0]
    assert hit["dp_kind"] == "penetrating"
    text = ("Victim's Throwback Roll mass 15 + strength +9 - damage 9 = 15; rolled 10+10 = 20: thrown 2.5 m at "
            "1.25 m/segment (halved: penetrating, small projectile), airborne 2 segments; Pushback +5")
    assert hit["throwback"]["readings"]["dp"]["text"] == text
    assert (hit["throwback"]["speed"], hit["throwback"]["distance"], hit["throwback"]["airborne"]) == (1.25, 2.5, 2)
    assert last(s).resolution.details["hit_options"] == {"penetrating": True, "small_projectile": True}
    mark = len(s.encounter.log)
    s.execute("next")
    assert "Victim: penetrating_dp +4 (4 of the DP lost is penetrating damage)" in log_since(s, mark)
    assert res(s, "Victim")["penetrating_dp"] == 4 and res(s, "Victim")["dp"] == 36


def test_injury_damage_put_on_dp_directly_is_all_injury_dp() -> None:
    """`to=dp` puts the damage on DP (no overflow); injury DP heal by the month. 9 to DP,
    all of it injury (injury wins over penetrating for the kind; penetrating still halves
    the throw: 5 m/segment to 2.5)."""
    s = session(HITTER, "add Victim agility=14 strength=10 mass=60 height=1.8 vp=50 dp=40")
    s.execute("declare Hitter punch target=Victim to=dp injury=true penetrating=true faces=5,5,10,10")
    hit = last(s).resolution.details["hits"][0]
    assert (hit["resource"], hit["overflow"], hit["dp_kind"]) == ("dp", "", "injury")
    assert ("a hit for 9 DP as things stand (judged when it lands); Victim's Throwback Roll mass 15 + strength +9 - "
            "damage 9 = 15; rolled 10+10 = 20: thrown 2.5 m") in last(s).resolution.summary
    mark = len(s.encounter.log)
    s.execute("next")
    texts = log_since(s, mark)
    assert "Victim: injury_dp +9 (9 of the DP lost is injury damage)" in texts
    assert "Victim is thrown back 2.5 m at 2.5 m/segment, airborne until segment 16" in texts
    assert res(s, "Victim")["vp"] == 50 and res(s, "Victim")["dp"] == 31 and res(s, "Victim")["injury_dp"] == 9
    assert "penetrating_dp" not in res(s, "Victim") or not res(s, "Victim")["penetrating_dp"]


def test_a_throwback_roll_made_stands_and_throws_no_one() -> None:
    """The Throwback Roll 15 rolled 2+2 = 4 succeeds: the target stands (Q 11)."""
    s = session(HITTER, VICTIM)
    s.execute("declare Hitter punch target=Victim faces=5,5,2,2")
    tb = last(s).resolution.details["hits"][0]["throwback"]
    assert tb["q"] == 11 and "speed" not in tb
    stands = "Victim's Throwback Roll mass 15 + strength +9 - damage 9 = 15; rolled 2+2 = 4: stands (Q 11)"
    assert tb["readings"]["dp"] == {"text": stands}
    mark = len(s.encounter.log)
    s.execute("next")
    assert stands in log_since(s, mark)
    assert not res(s, "Victim").get("pushback")
    assert s.encounter.combatant("Victim").airborne_until <= s.encounter.now


def test_throwback_forced_skipped_and_turned_off_for_the_table() -> None:
    """`throwback=true` throws a target hit for VP only and not surprised; `false` makes
    no Throwback Roll (no dice after the Combat Roll's); a table with `throwback` off
    makes none either, and a blow taking DP lands without one."""
    s = session(HITTER, "add Victim agility=14 strength=10 mass=60 height=1.8 vp=50 dp=40")
    s.execute("declare Hitter punch target=Victim throwback=true faces=5,5,10,10")
    hit = last(s).resolution.details["hits"][0]
    assert hit["throwback_wanted"] is True
    assert last(s).resolution.summary.endswith(
        "a hit for 9 VP as things stand (judged when it lands); Victim's Throwback Roll mass 15 + agility/strength +10 "
        "- damage 9 = 16; rolled 10+10 = 20: thrown 4 m at 4 m/segment, airborne 1 segment; Pushback +4")
    s.execute("next")
    assert res(s, "Victim")["pushback"] == 4
    s.execute("declare Hitter punch target=Victim throwback=false faces=5,5")
    hit = last(s).resolution.details["hits"][0]
    assert hit["throwback_wanted"] is False and "throwback" not in hit
    assert last(s).resolution.dice == (5, 5)
    s.execute("next")
    assert res(s, "Victim")["pushback"] == 4
    s = session(HITTER, VICTIM, throwback=False)
    s.execute("declare Hitter punch target=Victim faces=5,5")
    hit = last(s).resolution.details["hits"][0]
    assert hit["throwback_allowed"] is False and "throwback" not in hit
    mark = len(s.encounter.log)
    s.execute("next")
    assert res(s, "Victim")["dp"] == 36 and not res(s, "Victim").get("pushback")
    assert not [t for t in log_since(s, mark) if "Throwback" in t]


def test_a_throwback_roll_made_in_case_is_said_so_when_the_blow_does_not_call_for_it_now() -> None:
    """A hit for VP only on a target not surprised does not throw as things stand; the
    roll is made all the same (judged on landing) and the summary says why."""
    s = session(HITTER, "add Victim agility=14 strength=10 mass=60 height=1.8 vp=50 dp=40")
    s.execute("declare Hitter punch target=Victim faces=5,5,10,10")
    assert ("a hit for 9 VP as things stand (judged when it lands); Throwback Roll made in case the blow calls for "
            "it when it lands (Victim's Throwback Roll mass 15 + agility/strength +10 - damage 9 = 16; rolled 10+10 "
            "= 20: thrown 4 m at 4 m/segment, airborne 1 segment; Pushback +4)") in last(s).resolution.summary
    mark = len(s.encounter.log)
    s.execute("next")
    assert not [t for t in log_since(s, mark) if "Throwback" in t]
    assert res(s, "Victim")["vp"] == 41


# ------------------------------------------------------------------ several opponents


# A: Combat Roll 10 (sheet), pool 1 - 1 (one extra opponent) = 0; Hand Damage Doubles(7)
# row 3 + 10 // 4 = 2: 5. Rolled 2+2 = 4 against 10: Q 6.
SWEEPER = "add A combat_roll=10 learning=10 ep=80"


def test_attack_q_placed_per_opponent_and_blows_on_successive_segments() -> None:
    """Seed: "The player must apply Attack separately for each opponent" and "Each attack
    takes place on successive segments": Q 6 placed 4 and 2; PT 15 + 1 = 16, X struck on
    segment 15 (one segment before the completion), Y on 16."""
    s = session(SWEEPER, "add X vp=50", "add Y vp=50")
    s.execute("declare A punch target=X,Y q_attacks=4,2 throwback=false faces=2,2")
    act = last(s)
    d = act.resolution.details
    assert d["attacks"] == [4, 2] and d["attack"] == 4 and d["attack_base"] == 4 and act.pt == 16
    blows = [(e.target, e.index, e.lead) for e in act.resolution.effects if e.kind == "blow"]
    assert blows == [("X", 0, 1), ("Y", 1, 0)]
    summary = act.resolution.summary
    assert "Attack +4 vs X's Defense +0 now (segment +0): a hit for 5 VP" in summary
    assert "Attack +2 vs Y's Defense +0 now (segment +1): a hit for 5 VP" in summary
    assert summary.endswith("; 2 opponents on successive segments 15-16")
    assert "shared evenly" not in summary


def test_attack_q_left_unplaced_is_shared_and_the_summary_says_so() -> None:
    s = session(SWEEPER, "add X vp=50", "add Y vp=50", "add Z vp=50")
    # pool 1 - 2 = -1: Sphere -1, needs 9; rolled 2+2 = 4: Q 5, shared 2, 2, 1.
    s.execute("declare A punch target=X,Y,Z throwback=false faces=2,2")
    d = last(s).resolution.details
    assert d["attacks"] == [2, 2, 1] and last(s).pt == 17
    summary = last(s).resolution.summary
    assert "Attack Q 5 shared evenly (q_attacks=... places it per opponent)" in summary
    assert "3 opponents on successive segments 15-17" in summary


def test_attack_q_per_opponent_that_does_not_fit_is_refused_by_name() -> None:
    s = session(SWEEPER, "add X vp=50", "add Y vp=50")
    for placed, words in (
        ("4,x", "q_attacks=4,x: expected whole numbers per opponent, such as 3,2"),
        ("6", "q_attacks=6: expected 2 numbers of 0 or more, one per opponent (X, Y)"),
        ("7,-1", "q_attacks=7,-1: expected 2 numbers of 0 or more, one per opponent (X, Y)"),
        ("3,2", "q_attacks=3,2: adds up to 5, but the Attack Q is 6"),
    ):
        with pytest.raises(TrackerError) as refused:
            s.execute(f"declare A punch target=X,Y q_attacks={placed} throwback=false faces=2,2")
        assert str(refused.value) == words
    s.execute("declare A punch target=X,Y q_attacks=6,0 throwback=false faces=2,2")
    assert last(s).resolution.details["attacks"] == [6, 0]


def test_an_automatic_firearm_strikes_all_on_the_completion_segment() -> None:
    s = session(SWEEPER, "add X vp=50", "add Y vp=50")
    s.execute("declare A strike target=X,Y automatic=true throwback=false faces=2,2")
    act = last(s)
    assert act.pt == 15
    assert [(e.target, e.lead) for e in act.resolution.effects if e.kind == "blow"] == [("X", 0), ("Y", 0)]
    assert "Attack +3 vs X's Defense +0 now: a hit" in act.resolution.summary
    assert act.resolution.summary.endswith("; 2 opponents, all on segment 15 (an automatic firearm)")
    s.execute("next")
    assert s.encounter.now == 15 and res(s, "X")["vp"] == 45 and res(s, "Y")["vp"] == 45


# ------------------------------------------------------------------ Defense when the blow lands


def test_a_miss_and_a_hit_for_no_damage_as_they_land() -> None:
    """Seed: "The character's Attack must be greater than or equal to the opponent's
    Defense." `defense=3` states it: Attack +2 misses, both now and as it lands; Attack
    +3 meets it, with Hand Damage held to 0: a hit for no damage."""
    s = session("add A combat_roll=10 learning=0 ep=80", "add X vp=50")
    s.execute("declare A punch target=X defense=3 q_attack=2 q_defense=2 q_ep=2 throwback=false faces=2,2")
    act = last(s)
    hit = act.resolution.details["hits"][0]
    assert (hit["attack"], hit["defense"], hit["hit"], hit["defense_stated"]) == (2, 3, False, 3)
    assert act.resolution.details["defense"] == 1
    assert "Attack +2 vs X's Defense +3 now (stated): a miss as things stand (judged when it lands)" in act.resolution.summary
    mark = len(s.encounter.log)
    s.execute("next")
    assert "A's punch lands: Attack +2 vs X's Defense +3 (stated): miss" in log_since(s, mark)
    assert res(s, "X")["vp"] == 50
    s.execute("declare A punch target=X defense=3 q_attack=3 q_ep=1 hand_damage=0 faces=3,3")
    mark = len(s.encounter.log)
    s.execute("next")
    assert "A's punch lands: Attack +3 vs X's Defense +3 (stated): hit, no damage" in log_since(s, mark)
    assert res(s, "X")["vp"] == 50


def test_the_targets_defense_in_force_when_the_blow_lands_is_the_one_that_counts() -> None:
    """Defense Q lasts "for the duration of the action": X's punch with 2 Q on Defense
    (+1) in progress when A's blow lands makes A's Attack +0 miss."""
    s = session("add A combat_roll=10 learning=0 ep=80", "add X combat_roll=10 learning=0 vp=50 ep=80")
    s.execute("declare A punch target=X q_attack=0 q_ep=4 throwback=false faces=3,3")  # Q 4, Attack +0
    assert "Attack +0 vs X's Defense +0 now: a hit for 5 VP" in last(s).resolution.summary
    s.execute("declare X punch target=A q_defense=2 q_speed=0 q_ep=2 pt=20 throwback=false faces=3,3")
    mark = len(s.encounter.log)
    s.execute("next")
    assert "A's punch lands: Attack +0 vs X's Defense +1 (punch +1): miss" in log_since(s, mark)
    assert res(s, "X")["vp"] == 50


def test_the_attackers_own_movement_defense_comes_off_its_attack_as_it_lands() -> None:
    """Seed, Move Roll: "the same amount that is added to Defense is subtracted from
    Attack, if the character is attacking". A moves with 4 Q on Defense (+2): its punch's
    Attack 5 is +3 as things stand. A new Move Roll with no Defense before the blow lands
    gives the 2 back: Attack +5 as it lands."""
    s = session("add A combat_roll=10 agility=10 strength=10 learning=0 ep=80", "add X vp=50")
    s.execute("declare A move q_defense=4 faces=2,2")
    s.execute("step 1")
    s.execute("declare A punch target=X throwback=false faces=2,3")  # 5 against 10: Q 5
    act = last(s)
    hit = act.resolution.details["hits"][0]
    assert (hit["attack"], hit["passive_defense"]) == (3, 2)
    assert act.resolution.details["attacks"] == [3]
    assert "Attack -2 for Defense from passive actions (moving +2) as things stand" in act.resolution.summary
    s.execute("step 6")
    s.execute("declare A move faces=2,2")
    mark = len(s.encounter.log)
    s.execute(f"step {act.completes - s.encounter.now}")
    assert "A's punch lands: Attack +5 vs X's Defense +0: hit for 5 VP" in log_since(s, mark)


# ------------------------------------------------------------------ blasts and the PR


SUN_RULER = "add Sun-Ruler agility=12 learning=10 ep=60"


def test_the_sun_ruler_blast_needs_13_misses_on_17_and_pays_5_ep() -> None:
    """Seed, Power Example: "he initiates a fire blast, using all 12 PR. He rolls 17,
    missing (he needed 13 or less: 12 plus his pool of 1). He uses 5 EP for this attack."
    Missed by 4: Attack -2, Damage -1, Defense -1 halved to 0; damage 5 - 1 = 4."""
    s = session(SUN_RULER, "add Seraph vp=43 dp=20")
    s.execute("declare Sun-Ruler blast target=Seraph pr=12 damage=5 throwback=false faces=8,9")
    act = last(s)
    d = act.resolution.details
    assert (d["roll"], d["q"], d["attack"], d["damage_mod"], d["defense"], d["damage"]) == (13, -4, -2, -1, 0, 4)
    assert d["kind"] == "blast" and d["ep_rows"] == [{"what": "blast", "row": 9}]
    assert res(s, "Sun-Ruler")["ep"] == 55 and act.pt == 20
    assert act.resolution.summary.startswith(
        "PR 12 + pool 1 (+1) = 13; rolled 8+9 = 17: missed by 4: Attack -2, Damage -1, Defense +0; "
        "damage blast damage 5 -1 = 4; PT 20; 5 EP (blast row 9: 5); Attack -2 vs Seraph's Defense +0 now: a miss")


def test_a_blast_splits_its_pr_among_effect_ep_and_speed() -> None:
    """Seed: "Power Roll PR can be used to reduce EP Cost and to increase any of the
    power's Effects the same as Quality for skills" and "the total of the Q for the
    action's effects cannot be greater than the character's PR". PR 12: 3 to speed (PT 20
    halved: 10), 2 to EP (row 9 - 2 = 7: 3 EP), the rest (7) to the effect: needs 7 + 1."""
    s = session(SUN_RULER, "add X vp=50 dp=20")
    s.execute("declare Sun-Ruler blast target=X pr=12 pr_ep=2 pr_speed=3 damage=4 q_attack=0 q_ep=1 throwback=false faces=2,2")
    act = last(s)
    d = act.resolution.details
    assert d["base"] == 7 and d["roll"] == 8 and act.pt == 10
    # Q 4: 1 to EP (row 6: 2 EP), the other 3 to Attack.
    assert d["ep_rows"] == [{"what": "blast", "row": 6}] and res(s, "Sun-Ruler")["ep"] == 58
    assert d["attack"] == 3
    s.execute("undo")
    s.execute("declare Sun-Ruler blast target=X pr=12 roll=9 damage=4 throwback=false faces=2,2")
    assert last(s).resolution.summary.startswith("roll 9 + pool 1 (+1) = 10; rolled 2+2 = 4: Q 6")
    assert "no damage=" not in last(s).resolution.summary
    s.execute("undo")
    s.execute("declare Sun-Ruler blast target=X pr=12 throwback=false faces=2,2")
    assert last(s).resolution.details["damage"] == 0
    assert last(s).resolution.summary.endswith("; no damage= stated: the blast's damage is 0")
    s.execute("undo")
    with pytest.raises(TrackerError, match=r"^blast needs pr=N, the Power Roll of the power$"):
        s.execute("declare Sun-Ruler blast target=X damage=4 faces=2,2")
    with pytest.raises(TrackerError, match=r"^blast needs a target \(target=NAME, several as target=A,B\)$"):
        s.execute("declare Sun-Ruler blast pr=12 faces=2,2")


def _ctx(s: Session, template: str, params: dict[str, str], targets: tuple[str, ...] = ("X",)) -> Ctx:
    request, _ = s.request("Sun-Ruler", template, list(targets), params)
    return s.ruleset.ctx(request)


def test_the_pr_budget_gives_the_unsaid_share_the_rest_and_refuses_too_much() -> None:
    s = session(SUN_RULER, "add X vp=50")
    assert power_budget(_ctx(s, "blast", {}), 12) == (12, 0, 0)
    assert power_budget(_ctx(s, "blast", {"pr_speed": "2"}), 12) == (10, 0, 2)
    assert power_budget(_ctx(s, "blast", {"pr_effect": "5", "pr_speed": "2"}), 12) == (5, 5, 2)
    assert power_budget(_ctx(s, "blast", {"pr_ep": "4", "pr_speed": "1"}), 12) == (7, 4, 1)
    assert power_budget(_ctx(s, "blast", {"pr_effect": "3", "pr_ep": "4"}), 12) == (3, 4, 0)
    assert power_budget(_ctx(s, "blast", {}), 0) == (0, 0, 0)
    for params, words in (
        ({"pr_effect": "10", "pr_ep": "3"}, "pr_effect 10 + pr_ep 3 + pr_speed 0"),
        ({"pr_effect": "10", "pr_speed": "3"}, "pr_effect 10 + pr_ep -1 + pr_speed 3"),
        ({"pr_ep": "10", "pr_speed": "3"}, "pr_effect -1 + pr_ep 10 + pr_speed 3"),
        ({"pr_speed": "13"}, "pr_effect -1 + pr_ep 0 + pr_speed 13"),
        ({"pr_effect": "5", "pr_ep": "5", "pr_speed": "3"}, "pr_effect 5 + pr_ep 5 + pr_speed 3"),
    ):
        with pytest.raises(TrackerError) as refused:
            power_budget(_ctx(s, "blast", params), 12)
        assert str(refused.value) == f"PR budget: {words} must be at least 0 each and at most the PR 12"
    with pytest.raises(TrackerError, match=r"^pr=-1: expected a Power Roll of at least 0$"):
        power_budget(_ctx(s, "blast", {}), -1)


# ------------------------------------------------------------------ maintained attacks


def _blasted(*extra: str) -> Session:
    """Sun-Ruler's blast at Target: 2+2 = 4 against 13, Q 9 (3 placed on Attack, the rest
    goes there too: Attack 9); 5 damage; EP row 9: 5 EP. Target (mass 70: Sphere 15,
    agility and strength 10: Sphere 9) has 95 VP after it: the Throwback Roll 15 + 9 - 5
    = 19, rolled 10+10 = 20: missed by 1 (made in case: VP only, not surprised)."""
    return session(SUN_RULER, "add Target vp=100 dp=50",
                   "declare Sun-Ruler blast target=Target pr=12 damage=5 faces=2,2,10,10 q_attack=3", "next", *extra)


def test_a_maintained_link_says_what_it_carries_its_attack_pt_and_ep() -> None:
    """Seed, Maintaining an Attack: "The Performance Time is divided by 4 (usually meaning
    5 segments), and the same Attack is used. There is a penalty of 2 to the Attack for
    each successive action (that is, -2, -4, -6, etc.), and a penalty of 1 to the EP use
    row for the blast." Link 1: Attack 9 - 2 = 7, PT 5, row 10: 6 EP; link 2: 9 - 4 = 5,
    the same carried roll."""
    s = _blasted()
    assert res(s, "Target")["vp"] == 95
    s.execute("maintain Sun-Ruler faces=10,10")
    link = last(s)
    tb = ("Target's Throwback Roll mass 15 + agility/strength +9 - damage 5 = 19; rolled 10+10 = 20: thrown 1 m at "
          "1 m/segment, airborne 1 segment; Pushback +1")
    assert link.resolution.summary == (
        "maintained link 1: carries the success of segment 0's Combat Roll (rolled 4 against 13); Attack +9 - 2 = +7, "
        "PT 5 (PT 20 / 4), damage 5, EP rows +1; 6 EP (blast row 10: 6); Attack +7 vs Target's Defense +0 now: a hit "
        "for 5 VP as things stand (judged when it lands); Throwback Roll made in case the blow calls for it when it "
        f"lands ({tb})")
    d = link.resolution.details
    assert (d["attack"], d["attacks"], d["link"], d["ep_rows"]) == (7, [9], 1, [{"what": "blast", "row": 9}])
    assert d["carried_roll"] == "the success of segment 0's Combat Roll (rolled 4 against 13)"
    assert [(u["what"], u["row"], u["paid"]) for u in d["ep_uses"]] == [("blast", 10, 6)]
    assert link.resolution.success is True and link.resolution.margin == 9 and link.resolution.dice == (10, 10)
    assert res(s, "Sun-Ruler")["ep"] == 55 - 6
    s.execute("next")
    assert res(s, "Target")["vp"] == 90
    s.execute("maintain Sun-Ruler faces=10,10")
    link = last(s)
    assert link.resolution.summary.startswith(
        "maintained link 2: carries the success of segment 0's Combat Roll (rolled 4 against 13); Attack +9 - 4 = +5, "
        "PT 5 (PT 20 / 4), damage 5, EP rows +1; 6 EP (blast row 10: 6); ")
    assert link.resolution.details["attack"] == 5


def test_a_link_to_an_attack_saved_without_its_pt_before_q_says_the_blasts_own() -> None:
    """A first link saved before its PT before Q was kept: the link's PT is the blast's own
    20 / 4 = 5, and its summary says so (not "PT None / 4")."""
    s = _blasted()
    first = last(s)
    assert first.resolution.details.pop("base_pt") == 20
    s.execute("maintain Sun-Ruler faces=10,10")
    link = last(s)
    assert link.pt == 5 and "PT 5 (PT 20 / 4)" in link.resolution.summary


def test_a_link_keeps_the_first_links_damage_kind_unless_stated_again() -> None:
    s = session(SUN_RULER, "add Target vp=100 dp=50",
                "declare Sun-Ruler blast target=Target pr=12 damage=5 to=dp penetrating=true throwback=false faces=2,2",
                "next")
    assert res(s, "Target")["dp"] == 45 and res(s, "Target")["penetrating_dp"] == 5
    s.execute("maintain Sun-Ruler")
    hit = last(s).resolution.details["hits"][0]
    assert (hit["resource"], hit["dp_kind"], hit["throwback_wanted"]) == ("dp", "penetrating", False)
    s.execute("next")
    assert res(s, "Target")["dp"] == 40 and res(s, "Target")["penetrating_dp"] == 10
    s.execute("maintain Sun-Ruler to=vp")
    assert last(s).resolution.details["hits"][0]["resource"] == "vp"


def test_a_link_may_not_state_another_roll_modifier() -> None:
    """The link rolls nothing: a modifier of the first link's roll stated otherwise is
    refused, naming what a link may state."""
    s = _blasted()
    with pytest.raises(TrackerError) as refused:
        s.execute("maintain Sun-Ruler pool=2 q_ep=1 faces=10,10")
    assert str(refused.value) == (
        "pool unstated -> 2; q_ep=1 (a link makes no roll: no Q to place): a maintained link keeps the first link's "
        "Combat Roll, Attack and damage (\"the same Attack is used\"); declare a new blast to change them; a link may "
        "state only to, penetrating, injury, small_projectile, throwback, defense, surprised, automatic")
    s.execute("maintain Sun-Ruler pr=12 damage=5 defense=8 surprised=true faces=10,10")
    hit = last(s).resolution.details["hits"][0]
    assert (hit["defense"], hit["hit"], hit["surprised"]) == (8, False, True)


def test_a_maintained_punch_under_the_house_rule() -> None:
    """`maintain_hand_attacks` (a house rule) lets a punch be maintained: Hitter's punch
    (PT 15) made with 3 Q on speed (halved: 7.5, 8) links at 15 / 4 = 3.75: 4
    segments, from the PT before Q; its two EP rows (Combat Roll 5, Hand Damage 7) each
    one row up: rows 6 and 8, 2 + 4 = 6 EP."""
    s = session(HITTER, "add Bag vp=100 dp=100", maintain_hand_attacks=True)
    s.execute("declare Hitter punch target=Bag q_speed=3 throwback=false faces=5,5")
    first = last(s)
    assert first.resolution.details["base_pt"] == 15 and first.pt == 8
    s.execute("next")
    before = res(s, "Hitter")["ep"]
    s.execute("maintain Hitter")
    link = last(s)
    assert link.pt == 4 and "PT 4 (PT 15 / 4)" in link.resolution.summary
    assert before - res(s, "Hitter")["ep"] == 6
    assert link.resolution.details["ep_rows"] == [{"what": "combat roll", "row": 5}, {"what": "hand damage", "row": 7}]


def test_the_links_pt_is_a_quarter_rounded_half_up_and_at_least_1() -> None:
    """"The Performance Time is divided by 4": 20 -> 5, 15 -> 3.75 -> 4, 10 -> 2.5 -> 3,
    2 -> 0.5 -> 1, 1 -> 0.25, at least 1."""
    from rulesets.base import ActionRequest
    from tracker.engine.effects import Resolution
    from tracker.engine.model import ACTIVE, Action, Combatant

    game = BrandXRuleset()
    blast = game.template("blast")
    actor = Combatant("A", {}, {}, {})
    got = []
    for base in (20, 15, 10, 2, 1):
        prev = Action(1, "A", "blast", ACTIVE, base, 0, base, (), Resolution(pt=base, details={"base_pt": base}))
        got.append(maintained_pt(ActionRequest(blast, actor, previous=prev)))
    assert got == [5, 4, 3, 1, 1]
    prev = Action(1, "A", "blast", ACTIVE, 20, 0, 20, (), Resolution(pt=20, details={}))
    assert maintained_pt(ActionRequest(blast, actor, previous=prev)) == 5  # no base_pt kept: the template's 20
    assert maintained_pt(ActionRequest(blast, actor)) == 5


def test_a_link_carries_a_roll_recorded_without_its_dice() -> None:
    """A first link recorded with its Q only (no total): the words say Q or the miss."""
    from rulesets.base import ActionRequest
    from rulesets.brandx.combat import carried_roll, link_attacks
    from tracker.engine.effects import Resolution
    from tracker.engine.model import ACTIVE, Action, Combatant

    game = BrandXRuleset()
    blast = game.template("blast")
    actor = Combatant("A", {}, {}, {})

    def carried(details: dict[str, Any], start: int = 4) -> tuple[bool, str]:
        prev = Action(1, "A", "blast", ACTIVE, 20, start, start + 20, ("X",), Resolution(pt=20, details=details))
        return carried_roll(game.ctx(ActionRequest(blast, actor, previous=prev)))

    assert carried({"attack_base": 3, "q": 2}) == (True, "the success of segment 4's Combat Roll (Q 2)")
    assert carried({"attack_base": 3, "q": 0}, 7) == (True, "the success of segment 7's Combat Roll (Q 0)")
    assert carried({"attack_base": -1, "q": -3}) == (False, "the miss of segment 4's Combat Roll (missed by 3)")
    assert carried({"attack_base": -1, "q": -3, "total": 16}) == (False, "the miss of segment 4's Combat Roll (missed by 3)")
    assert carried({"attack_base": -1, "q": -3, "total": 16, "roll": 13}) == (
        False, "the miss of segment 4's Combat Roll (rolled 16 against 13)")
    assert carried({"attack_base": 1, "q": 1, "carried_roll": "what it said"}) == (True, "what it said")
    assert carried({"attack_base": 1, "q": 1, "carried_roll": ""}) == (True, "the success of segment 4's Combat Roll (Q 1)")
    with pytest.raises(TrackerError, match=r"^blast has no Attack to maintain$"):
        carried({"q": 1})
    with pytest.raises(TrackerError, match=r"^nothing to maintain$"):
        carried_roll(game.ctx(ActionRequest(blast, actor)))
    # The next link's Attack per opponent: the first link's, -2 a link; an opponent past
    # those the first link had takes the last one's.
    prev = Action(1, "A", "blast", ACTIVE, 20, 0, 20, ("X", "Y", "Z"), Resolution(pt=20, details={"attack_base": 5, "attacks": [5, 3, 1]}),
                  chain=1)
    assert link_attacks(prev, 4) == ([5, 3, 1], [1, -1, -3, -3], 2)
    prev = Action(1, "A", "blast", ACTIVE, 20, 0, 20, ("X",), Resolution(pt=20, details={"attack_base": 6}))
    assert link_attacks(prev, 1) == ([6], [4], 1)


def test_fractional_throwback_reads_a_positive_q_as_a_fraction_and_adds_no_pushback() -> None:
    """Seed: "you may want to apply throwback for positive Q (making it negative), thus
    resulting in fractional throwback" (the table's `fractional_throwback`). Victim's
    Throwback Roll 15: rolled 4+5 = 9, Q 6: Sphere row -6, 0.13 m/segment, halved for
    penetrating and again for a small projectile: 0.0325, to 2 digits 0.03 (as movement:
    "Always round Movement to 2 digits"); no miss, so nothing is added to Pushback. Q 1:
    row -1, 0.56. Q 0 is no positive Q: the target stands."""
    s = session(HITTER, VICTIM, fractional_throwback=True)
    s.execute("declare Hitter strike target=Victim penetrating=true small_projectile=true faces=5,5,4,5")
    tb = last(s).resolution.details["hits"][0]["throwback"]
    assert (tb["q"], tb["speed"], tb["distance"], tb["pushback"], tb["fractional"]) == (6, 0.03, 0.03, 0, True)
    assert tb["readings"]["dp"]["text"].endswith(
        "rolled 4+5 = 9: thrown 0.03 m at 0.03 m/segment (halved: penetrating, small projectile), airborne 1 segment; "
        "fractional throwback (Q 6)")
    mark = len(s.encounter.log)
    s.execute("next")
    assert any(t.startswith("Victim is thrown back 0.03 m") for t in log_since(s, mark))
    assert not res(s, "Victim").get("pushback")
    s = session(HITTER, VICTIM, fractional_throwback=True)
    s.execute("declare Hitter punch target=Victim faces=5,5,9,5")
    tb = last(s).resolution.details["hits"][0]["throwback"]
    assert (tb["q"], tb["speed"], tb["pushback"]) == (1, 0.56, 0)
    s.execute("undo")
    s.execute("declare Hitter punch target=Victim faces=5,5,10,5")
    tb = last(s).resolution.details["hits"][0]["throwback"]
    assert tb["q"] == 0 and "speed" not in tb and tb["readings"]["dp"]["text"].endswith(": stands (Q 0)")


def test_fractional_throwback_is_off_unless_the_table_turns_it_on() -> None:
    """"This should be rare, as it is quite tedious": a request made with no settings at
    all (a game driven without a table) reads it off, as the setting's default is."""
    from dataclasses import replace

    from rulesets.dice import TypedFaces

    s = session(HITTER, VICTIM)
    request, _ = s.request("Hitter", "punch", ["Victim"], {})
    bare = replace(request, settings={}, pt=15)
    tb = s.ruleset.resolve(bare, TypedFaces([5, 5, 2, 2])).details["hits"][0]["throwback"]
    assert tb["q"] == 11 and "speed" not in tb and "fractional" not in tb


def test_a_moving_targets_defense_counts_when_the_blow_is_struck_and_when_it_lands() -> None:
    """Seed, Move Roll: "Movement Q can also be applied to Defense, with 2 points of Q
    adding 1 point to Defense (against all enemies)". X moves with 4 Q on Defense (+2):
    A's Attack +2 (Q 2) meets it now and as it lands."""
    s = session("add A combat_roll=10 learning=0 ep=80", "add X agility=10 strength=10 vp=50",
                "declare X move q_defense=4 faces=2,2")
    s.execute("declare A punch target=X throwback=false faces=4,4")
    assert "Attack +2 vs X's Defense +2 now (moving +2): a hit for 5 VP" in last(s).resolution.summary
    assert last(s).resolution.details["hits"][0]["defense"] == 2
    mark = len(s.encounter.log)
    s.execute("step 15")
    assert "A's punch lands: Attack +2 vs X's Defense +2 (moving +2): hit for 5 VP" in log_since(s, mark)


# ------------------------------------------------------------------ the judge, on records as saved


def _judged(s: Session, hit: dict[str, Any], nested: bool = False, actor: str = "Hitter") -> list[Any]:
    """`judge_blow` on an action whose record holds `hit` (as a save holds it; a throw
    keeps its attack's hits under `attack`)."""
    from types import SimpleNamespace

    from rulesets.brandx.combat import judge_blow
    from tracker.engine.effects import Blow, Resolution

    details = {"attack": {"hits": [hit]}} if nested else {"hits": [hit]}
    action = SimpleNamespace(actor=actor, template="punch", resolution=Resolution(pt=15, details=details))
    return judge_blow(s.encounter, action, Blow(hit["target"], 0))


def test_a_blow_recorded_without_a_throwback_roll_asks_the_gm_for_one() -> None:
    s = session(HITTER, VICTIM)
    hit = {"target": "Victim", "attack": 2, "defense": 0, "hit": True, "damage": 9, "resource": "vp", "overflow": "dp"}
    effects = _judged(s, hit)
    assert [(e.kind, getattr(e, "text", "")) for e in effects] == [
        ("note", "Hitter's punch lands: Attack +2 vs Victim's Defense +0: hit for 9 VP"),
        ("damage", ""),
        ("note", "Victim may be thrown back (the blow takes DP as it lands), but no Throwback Roll was made when it "
                 "was rolled: the GM rolls it"),
    ]
    damage = effects[1]
    assert (damage.target, damage.amount, damage.resource, damage.overflow) == ("Victim", 9, "vp", "dp")
    # A thrown object's attack keeps its hits under `attack`: judged the same.
    assert [e.kind for e in _judged(s, hit, nested=True)] == ["note", "damage", "note"]
    # Saved without where the damage goes: VP, overflowing to DP; `to=dp`: DP alone.
    bare = {"target": "Victim", "attack": 2, "damage": 3, "throwback_allowed": False}
    assert [(e.resource, e.overflow) for e in _judged(s, bare) if e.kind == "damage"] == [("vp", "dp")]
    assert [e.text for e in _judged(s, dict(bare, damage=1)) if e.kind == "note"] == [
        "Hitter's punch lands: Attack +2 vs Victim's Defense +0: hit for 1 VP"]
    on_dp = dict(bare, resource="dp")
    assert [(e.resource, e.overflow) for e in _judged(s, on_dp) if e.kind == "damage"] == [("dp", "")]
    assert [e.text for e in _judged(s, {"target": "Victim", "attack": 2}) if e.kind == "note"] == [
        "Hitter's punch lands: Attack +2 vs Victim's Defense +0: hit, no damage"]


def test_the_judge_throws_by_the_reading_the_state_at_landing_calls_for() -> None:
    """Both readings are kept; the judge takes the DP one when the blow takes DP as it
    lands (9 against 5 VP), else the VP one (a surprised target, 50 VP), adding the miss
    to Pushback; a reading that stands throws no one. A blow that takes only VP of a
    target not surprised throws no one, unless the GM forced it."""
    s = session(HITTER, VICTIM, "add Big agility=14 strength=10 mass=60 vp=50 dp=40")
    readings = {"dp": {"text": "by DP", "speed": 5.0, "distance": 5.0, "airborne": 1, "pushback": 5},
                "vp": {"text": "by VP", "speed": 4.0, "distance": 8.0, "airborne": 2, "pushback": 4}}
    hit = {"target": "Victim", "attack": 2, "damage": 9, "throwback": {"readings": readings}}
    effects = _judged(s, hit)
    assert [e.kind for e in effects] == ["note", "damage", "note", "throwback", "adjust"]
    assert effects[2].text == "by DP"
    thrown = effects[3]
    assert (thrown.target, thrown.distance, thrown.speed, thrown.airborne) == ("Victim", 5.0, 5.0, 1)
    pushback = effects[4]
    assert (pushback.target, pushback.key, pushback.delta) == ("Victim", "pushback", 5)
    assert (pushback.reason, pushback.timing) == ("the Throwback penalty Q added to Pushback", "complete")
    big = dict(hit, target="Big", surprised=True)
    effects = _judged(s, big)
    assert [e.text for e in effects if e.kind == "note"][1] == "by VP"
    assert [(e.distance, e.speed, e.airborne) for e in effects if e.kind == "throwback"] == [(8.0, 4.0, 2)]
    assert [e.delta for e in effects if e.kind == "adjust"] == [4]
    assert [e.kind for e in _judged(s, dict(hit, target="Big"))] == ["note", "damage"]
    assert [e.kind for e in _judged(s, dict(hit, target="Big", throwback_wanted=True))][2:] == ["note", "throwback", "adjust"]
    assert [e.kind for e in _judged(s, dict(hit, throwback_wanted=False))] == ["note", "damage"]
    stands = {"dp": {"text": "stands"}, "vp": {"text": "stands too"}}
    assert [e.kind for e in _judged(s, dict(hit, throwback={"readings": stands}))] == ["note", "damage", "note"]
    no_push = {"dp": dict(readings["dp"], pushback=0), "vp": readings["vp"]}
    assert [e.kind for e in _judged(s, dict(hit, throwback={"readings": no_push}))] == ["note", "damage", "note", "throwback"]


def test_the_judge_counts_penetrating_and_injury_dp_of_what_vp_cannot_take() -> None:
    s = session(HITTER, VICTIM)
    hit = {"target": "Victim", "attack": 2, "damage": 9, "throwback_allowed": False}
    adjust = [e for e in _judged(s, dict(hit, dp_kind="penetrating")) if e.kind == "adjust"]
    assert [(e.key, e.delta, e.reason, e.timing) for e in adjust] == [
        ("penetrating_dp", 4, "4 of the DP lost is penetrating damage", "complete")]
    adjust = [e for e in _judged(s, dict(hit, dp_kind="injury", resource="dp")) if e.kind == "adjust"]
    assert [(e.key, e.delta) for e in adjust] == [("injury_dp", 9)]
    assert not [e for e in _judged(s, dict(hit, damage=5, dp_kind="injury")) if e.kind == "adjust"]  # 5 VP take it all
    assert not [e for e in _judged(s, dict(hit, dp_kind="bludgeoning")) if e.kind == "adjust"]


def test_the_judge_takes_the_attackers_passive_defense_as_it_stands_when_it_lands() -> None:
    """The record keeps the passive Defense taken off the Attack (2); none is left as the
    blow lands, so the 2 come back: Attack 1 + 2 = 3 meets the stated Defense 3."""
    s = session(HITTER, VICTIM)
    hit = {"target": "Victim", "attack": 1, "damage": 0, "passive_defense": 2, "defense_stated": 3}
    assert _judged(s, hit)[0].text == "Hitter's punch lands: Attack +3 vs Victim's Defense +3 (stated): hit, no damage"
    gone = _judged(s, hit, actor="Nobody")  # an attacker no longer in the fight: the Attack as recorded
    assert gone[0].text == "Nobody's punch lands: Attack +1 vs Victim's Defense +3 (stated): miss"


# ------------------------------------------------------------------ the punch as recorded


def test_a_punch_says_its_roll_q_damage_pt_ep_and_blow_and_records_them() -> None:
    """Seed: "The Combat Roll costs 1 EP (it starts at Row 5)"; Hand Damage "starts at row
    7 ... it costs 3 EP". Hitter needs 15, rolls 2+3 = 5: Q 10, 4 set aside (Saving
    Quality: 4 // 2 = 2 pool for the next punch), 2 on Damage (Doubles row 2: +2), the
    other 4 to Attack, said last as what was left. Damage 9 + 2 = 11."""
    from rulesets.base import JUDGE_KEY

    s = session(HITTER, "add Bag vp=100 dp=100")
    s.execute("declare Hitter punch target=Bag q_save=4 q_damage=2 throwback=false faces=2,3")
    act = last(s)
    assert act.resolution.summary == (
        "Combat Roll 14 (Sphere of 2 x agility 22) + pool 1 (+1) = 15; rolled 2+3 = 5: Q 10: 2 to Damage, 4 to saved, "
        "4 to Attack; damage Hand Damage 9 +2 = 11; PT 15; 4 EP (combat roll row 5: 1, hand damage row 7: 3); Attack +4 vs "
        "Bag's Defense +0 now: a hit for 11 VP as things stand (judged when it lands)")
    d = act.resolution.details
    assert d[JUDGE_KEY] == "brandx.blow" and d["kind"] == "punch"
    assert (d["q"], d["roll"], d["total"], d["base"], d["pool"], d["pool_bonus"]) == (10, 15, 5, 14, 1, 1)
    assert (d["attack"], d["attack_base"], d["attacks"], d["defense"], d["damage"], d["damage_mod"]) == (4, 4, [4], 0, 11, 2)
    assert d["base_pt"] == 15 and d["saved_pool"] == 2 and d["hit_options"] == {"throwback": False}
    assert d["ep_rows"] == [{"what": "combat roll", "row": 5}, {"what": "hand damage", "row": 7}]
    assert [(u["what"], u["row"], u["paid"]) for u in d["ep_uses"]] == [("combat roll", 5, 1), ("hand damage", 7, 3)]
    assert (act.resolution.success, act.resolution.margin, act.resolution.dice) == (True, 10, (2, 3))
    assert [e.kind for e in act.resolution.effects] == ["adjust", "blow"]
    paid = act.resolution.effects[0]
    assert (paid.target, paid.key, paid.delta, paid.reason) == (
        "Hitter", "ep", -4, "punch: 4 EP (combat roll row 5: 1, hand damage row 7: 3)")


def test_a_missed_punch_deals_its_miss_out_and_has_no_q_to_spend() -> None:
    """Missed by 5 (10+10 = 20 against 15): Attack -2, Damage -2, Defense -1 halved to 0
    (the worked combat); Q asked for is not there to spend; EP on Q needs Q: rows 5 and 7."""
    s = session(HITTER, "add Bag vp=100 dp=100")
    s.execute("declare Hitter punch target=Bag q_ep=2 q_speed=3 throwback=false faces=10,10")
    act = last(s)
    assert act.resolution.summary == (
        "Combat Roll 14 (Sphere of 2 x agility 22) + pool 1 (+1) = 15; rolled 10+10 = 20: missed by 5: Attack -2, "
        "Damage -2, Defense +0; damage Hand Damage 9 -2 = 7; PT 15; 4 EP (combat roll row 5: 1, hand damage row 7: 3); "
        "Attack -2 vs Bag's Defense +0 now: a miss as things stand (judged when it lands); no Q to spend")
    d = act.resolution.details
    assert "saved_pool" not in d and d["ep_rows"][0] == {"what": "combat roll", "row": 5}
    assert (act.resolution.success, act.resolution.margin, act.pt) == (False, -5, 15)
    s.execute("undo")
    s.execute("declare Hitter punch target=Bag throwback=false faces=10,10")
    assert not last(s).resolution.summary.endswith("no Q to spend")


def test_q_on_ep_lowers_the_combat_rolls_row_and_q_on_speed_the_pt() -> None:
    """Seed: the Combat Roll's EP "starts at Row 5"; one Q a row. Q 10: 2 on EP (row 3:
    1 EP per 10 uses, the first paid), 3 on speed (PT 15 halved: 8), 5 to Attack."""
    s = session(HITTER, "add Bag vp=100 dp=100")
    s.execute("declare Hitter punch target=Bag q_ep=2 q_speed=3 throwback=false faces=2,3")
    act = last(s)
    assert act.pt == 8 and act.resolution.details["ep_rows"][0] == {"what": "combat roll", "row": 3}
    assert act.resolution.details["attack"] == 5 and act.resolution.details["base_pt"] == 15


def test_a_blow_of_1_damage_rolls_throwback_and_a_1_in_it_is_rolled_again() -> None:
    """Every blow that does damage gets its Throwback Roll, 1 point too. Its dice follow
    the Action Roll's rule: a 1 is rolled again and the new face subtracted. Hand Damage
    held to 1 against Victim's 5 VP: Sphere(60) 15 + Sphere(max(14, 10)) 10 - 1 = 24
    (VP only); rolled 1+6, reroll 4: 3, Q 21. The DP reading: 15 + 9 - 1 = 23, Q 20."""
    s = session(HITTER, VICTIM)
    s.execute("declare Hitter punch target=Victim hand_damage=1 faces=5,5,1,6,4")
    tb = last(s).resolution.details["hits"][0]["throwback"]
    assert tb["dice"] == [1, 6, 4] and tb["roll"] == 24 and tb["q"] == 21
    assert tb["readings"] == {
        "vp": {"text": "Victim's Throwback Roll mass 15 + agility/strength +10 - damage 1 = 24; rolled 1+6, reroll 4 "
                       "subtracted = 3: stands (Q 21)"},
        "dp": {"text": "Victim's Throwback Roll mass 15 + strength +9 - damage 1 = 23; rolled 1+6, reroll 4 "
                       "subtracted = 3: stands (Q 20)"},
    }
    assert last(s).resolution.dice == (5, 5, 1, 6, 4)


def test_a_blow_with_no_record_or_no_target_left_says_so() -> None:
    s = session(HITTER, VICTIM)
    from types import SimpleNamespace

    from rulesets.brandx.combat import judge_blow
    from tracker.engine.effects import Blow, Resolution

    empty = SimpleNamespace(actor="Hitter", template="punch", resolution=Resolution(pt=15, details={}))
    assert [e.text for e in judge_blow(s.encounter, empty, Blow("Victim", 0))] == [
        "Hitter's punch: no record of its blow on Victim"]
    hit = {"target": "Gone", "attack": 2, "damage": 3}
    assert [e.text for e in _judged(s, hit)] == ["Hitter's punch at Gone lapses: not in the fight"]


def test_q_on_defense_is_halved_toward_zero_and_one_q_on_damage_adds_1() -> None:
    """Seed: "Two points of Q add 1 point to Defense" (3 Q: 1, a whole number); "Q applied
    adds that many points (Doubles Chart) to damage": 1 Q, Doubles row 1: +1. Q 10 from
    2+3 against 15: 3 Defense, 1 Damage, 6 Attack."""
    s = session(HITTER, "add Bag vp=100 dp=100")
    s.execute("declare Hitter punch target=Bag q_defense=3 q_damage=1 throwback=false faces=2,3")
    d = last(s).resolution.details
    assert d["defense"] == 1 and isinstance(d["defense"], int)
    assert (d["damage_mod"], d["damage"], d["attack"]) == (1, 10, 6)


def test_two_opponents_share_unplaced_attack_q_and_a_blank_placing_is_none() -> None:
    """Q 5 (2+3 against 10, pool 1 - 1) against two opponents, placed by no one: 3 and 2,
    and said so. A request whose `q_attacks` holds only spaces places nothing either."""
    from dataclasses import replace

    from rulesets.dice import TypedFaces

    s = session("add A combat_roll=10 learning=10 ep=80", "add X vp=50", "add Y vp=50")
    request, _ = s.request("A", "punch", ["X", "Y"], {"throwback": "false"})
    for params in (dict(request.params), dict(request.params, q_attacks=" ")):
        resolved = s.ruleset.resolve(replace(request, params=params, pt=15), TypedFaces([2, 3]))
        assert resolved.details["attacks"] == [3, 2]
        assert "Attack Q 5 shared evenly (q_attacks=... places it per opponent)" in resolved.summary


def test_penetrating_damage_on_a_target_with_no_vp_left_is_all_penetrating_dp() -> None:
    s = session(HITTER, "add Victim agility=14 strength=10 mass=60 vp=0 dp=40")
    hit = {"target": "Victim", "attack": 2, "damage": 9, "throwback_allowed": False, "dp_kind": "penetrating"}
    assert [(e.key, e.delta) for e in _judged(s, hit) if e.kind == "adjust"] == [("penetrating_dp", 9)]


def test_a_single_automatic_strike_and_an_odd_saved_q() -> None:
    """An automatic firearm at one opponent says nothing of several; Saving Quality: 3 Q
    set aside give 3 // 2 = 1 pool to the next punch (a whole number)."""
    s = session(SWEEPER, "add X vp=50")
    s.execute("declare A strike target=X automatic=true q_save=3 throwback=false faces=2,2")  # pool 1: needs 11, Q 7
    act = last(s)
    assert act.pt == 15 and "opponents" not in act.resolution.summary
    saved = act.resolution.details["saved_pool"]
    assert saved == 1 and isinstance(saved, int)


def test_a_link_is_checked_against_what_the_first_link_asked_even_with_a_modifier_since_dropped() -> None:
    """A first link saved with a modifier this version no longer has (`old_knob`) still
    compares: the link stating the same PR is accepted; another PR is refused."""
    from rulesets.base import ActionRequest
    from rulesets.brandx.combat import carried_roll
    from tracker.engine.effects import Resolution
    from tracker.engine.model import ACTIVE, Action, Combatant

    game = BrandXRuleset()
    blast = game.template("blast")
    details = {"attack_base": 3, "q": 2, "total": 11, "roll": 13}
    prev = Action(1, "A", "blast", ACTIVE, 20, 0, 20, ("X",), Resolution(pt=20, details=details),
                  asked={"pr": "12", "damage": "5", "old_knob": "1"})
    actor = Combatant("A", {}, {}, {})
    same = ActionRequest(blast, actor, params={"pr": 12, "damage": 5}, previous=prev)
    assert carried_roll(game.ctx(same)) == (True, "the success of segment 0's Combat Roll (rolled 11 against 13)")
    other = ActionRequest(blast, actor, params={"to": "dp", "pr": 10}, previous=prev)
    with pytest.raises(TrackerError, match=r"^pr 12 -> 10: a maintained link keeps"):
        carried_roll(game.ctx(other))
    no_q = Action(1, "A", "blast", ACTIVE, 20, 0, 20, ("X",), Resolution(pt=20, details={"attack_base": 3}))
    assert carried_roll(game.ctx(ActionRequest(blast, actor, previous=no_q))) == (
        True, "the success of segment 0's Combat Roll (Q 0)")


def test_a_link_drops_the_saved_q_and_needs_its_target() -> None:
    """Saving Quality is for the next action the actor initiates: a link (which rolls
    nothing) does not carry the first link's. A first link recorded with no damage or EP
    rows (a save from before they were kept) links for 0 damage and no EP."""
    from rulesets.base import ActionRequest
    from rulesets.dice import TypedFaces
    from tracker.engine.effects import Resolution
    from tracker.engine.model import ACTIVE, Action, Combatant

    s = session(SUN_RULER, "add Target vp=100 dp=50",
                "declare Sun-Ruler blast target=Target pr=12 damage=5 q_save=2 throwback=false faces=2,2", "next")
    assert s.encounter.actions[-1].resolution.details["saved_pool"] == 1
    s.execute("maintain Sun-Ruler")
    assert "saved_pool" not in last(s).resolution.details
    game = BrandXRuleset()
    blast = game.template("blast")
    actor = Combatant("A", {}, {"ep": 10}, {"ep": 10})
    prev = Action(1, "A", "blast", ACTIVE, 20, 0, 20, ("X",), Resolution(pt=20, details={"attack_base": 3, "q": 2}))
    with pytest.raises(TrackerError, match=r"^blast: the target is no longer in the fight$"):
        game.maintain(ActionRequest(blast, actor, (), previous=prev, pt=5), TypedFaces([]))
    target = Combatant("X", {}, {"vp": 10, "dp": 5}, {"vp": 10, "dp": 5})
    link = game.maintain(ActionRequest(blast, actor, (target,), {"throwback": False}, previous=prev, pt=5), TypedFaces([]))
    assert link.details["ep_rows"] == [] and link.effects[0].kind == "blow" and link.details["hits"][0]["damage"] == 0
    assert "damage 0, EP rows +1; no EP" in link.summary


def test_a_first_link_saved_with_a_bad_value_still_refuses_a_changed_roll() -> None:
    from rulesets.base import ActionRequest
    from rulesets.brandx.combat import carried_roll
    from tracker.engine.effects import Resolution
    from tracker.engine.model import ACTIVE, Action, Combatant

    game = BrandXRuleset()
    prev = Action(1, "A", "blast", ACTIVE, 20, 0, 20, ("X",), Resolution(pt=20, details={"attack_base": 3, "q": 2}),
                  asked={"pr": "lots"})
    request = ActionRequest(game.template("blast"), Combatant("A", {}, {}, {}), params={"pr": 12}, previous=prev)
    with pytest.raises(TrackerError, match=r"^pr unstated -> 12: a maintained link keeps"):
        carried_roll(game.ctx(request))


def test_a_blow_that_vp_can_just_take_and_a_surprised_target_losing_dp() -> None:
    """5 damage on 5 VP is VP only (the Throwback Roll made in case); on a surprised
    target losing DP, the strength bonus 9 is halved to 4: 15 + 4 - 9 = 10, missed by 10:
    14 m ("If the character lost DP in a surprise attack, the bonus due to strength is
    halved")."""
    s = session(HITTER, VICTIM)
    s.execute("declare Hitter punch target=Victim hand_damage=5 faces=5,5,10,10")
    assert "a hit for 5 VP as things stand (judged when it lands); Throwback Roll made in case" in last(s).resolution.summary
    s.execute("undo")
    s.execute("declare Hitter punch target=Victim surprised=true faces=5,5,10,10")
    assert ("a hit for 9 VP as things stand (judged when it lands); Victim's Throwback Roll mass 15 + strength +4 "
            "(halved: surprised) - damage 9 = 10; rolled 10+10 = 20: thrown 14 m at 14 m/segment") in last(s).resolution.summary


def test_the_attackers_movement_defense_still_in_force_as_the_blow_lands_stays_off_its_attack() -> None:
    """A moves with 4 Q on Defense (+2) and punches: Attack 5 - 2 = 3, and still 3 as the
    blow lands, the Move Roll being the latest."""
    s = session("add A combat_roll=10 agility=10 strength=10 learning=0 ep=80", "add X vp=50")
    s.execute("declare A move q_defense=4 faces=2,2")
    s.execute("step 1")
    s.execute("declare A punch target=X throwback=false faces=2,3")
    mark = len(s.encounter.log)
    s.execute("step 15")
    assert "A's punch lands: Attack +3 vs X's Defense +0: hit for 5 VP" in log_since(s, mark)


def test_a_link_carries_the_hit_options_the_first_link_recorded() -> None:
    """A link's request stating none of the hit's options takes the first link's
    (`hit_options`: here `to=dp`); a first link with no per-opponent Attacks recorded
    gives its Attack; its margin is the first link's Q (0 if none was recorded)."""
    from rulesets.base import ActionRequest
    from rulesets.dice import TypedFaces
    from tracker.engine.effects import Resolution
    from tracker.engine.model import ACTIVE, Action, Combatant

    game = BrandXRuleset()
    blast = game.template("blast")
    actor = Combatant("A", {}, {"ep": 10}, {"ep": 10})
    target = Combatant("X", {}, {"vp": 10, "dp": 5}, {"vp": 10, "dp": 5})
    details = {"attack_base": 3, "q": 2, "damage": 4, "hit_options": {"to": "dp", "throwback": False}}
    prev = Action(1, "A", "blast", ACTIVE, 20, 0, 20, ("X",), Resolution(pt=20, details=details))
    link = game.maintain(ActionRequest(blast, actor, (target,), {}, previous=prev, pt=5), TypedFaces([]))
    assert link.details["hits"][0]["resource"] == "dp" and link.details["attacks"] == [3] and link.margin == 2
    bare = Action(1, "A", "blast", ACTIVE, 20, 0, 20, ("X",), Resolution(pt=20, details={"attack_base": 3}))
    link = game.maintain(ActionRequest(blast, actor, (target,), {"throwback": False}, previous=bare, pt=5), TypedFaces([]))
    assert link.margin == 0 and link.success is True


def test_a_record_of_damage_to_vp_with_no_overflow_is_judged_as_recorded() -> None:
    s = session(HITTER, VICTIM)
    hit = {"target": "Victim", "attack": 2, "damage": 3, "resource": "vp", "overflow": "", "throwback_allowed": False}
    assert [(e.resource, e.overflow) for e in _judged(s, hit) if e.kind == "damage"] == [("vp", "")]
