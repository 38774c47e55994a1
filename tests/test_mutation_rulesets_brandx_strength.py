"""Brand X's strength module (rulesets/brandx/strength.py) read directly: the Lift Roll
(weights overhead and worn, a power at a distance, pushing against friction, inanimate
objects), arm wrestling, and the Throw Roll with its distance, lob, failure and thrown
attack. Numbers are worked by hand from the seed (004) and the module's docstring;
chart readings (the largest entry <= the value gives the row,
rulesets/brandx/tables.toml):

- Sphere rows 1-8 read 1-8, then 10 (row 9), 14, 18, 24, 32, 43, 57, 75, 100 (row 17),
  133, 178, 237, 316, 421, 561, 748, 997 (row 25); its fractional rows read .75 (row
  0), .56, .42, .32, .24 (row -4).
- Square entries 1, 4, 9, 16, 25 are rows 1-5.
- EP rows: row r >= 5 costs r - 4 EP (row 9: 5); row 4 one EP per 5 uses, row 3 one
  per 10, paid on the first use; a row <= 0 is free. "A failure costs 1 EP" (row 5).
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import brandx_session, last_resolution
from tracker.engine import TrackerError




def ep(s: Any, name: str) -> float:
    return s.encounter.combatant(name).resources["ep"]


# ---------------------------------------------------------------------- throw: the attack
def test_a_thrown_attack_rolls_the_combat_roll_not_the_throw_roll_stated() -> None:
    """Seed: "Combat Roll: Look up twice Agility on the Sphere Chart for the character's
    Combat Roll." and "When throwing something as an attack, an Attack Roll must still
    be made." The throw's `roll=` states the Throw Roll's strength - 9 (13 for a
    strength of 20, plus Sphere(mass 70) 15 = 28); the attack's Combat Roll is Sphere(2 x
    22 = 44) = row 14 (learning 0: no pool). Dice 5+5 = 10: Q 4, all to Attack."""
    s = brandx_session("add A agility=22 strength=20 learning=0 ep=100", "add B vp=40")
    s.execute("declare A throw target=B weight=1 damage=3 roll=13 throwback=false faces=2,2,5,5")
    res = last_resolution(s)
    assert res.details["roll"] == 28 and res.details["q"] == 24
    assert res.details["attack"]["q"] == 4 and res.details["attack"]["attack"] == 4
    assert "Combat Roll 14 (thrown): rolled 5+5 = 10: Q 4" in res.summary


# ---------------------------------------------------------------------- the words a GM reads
def test_the_lift_roll_says_how_it_is_made_once_and_metres_read_as_typed() -> None:
    """Seed: "The Lift roll is vs. Strength minus 9, plus the character's Mass on the
    Sphere Chart." By hand: 20 - 9 + Sphere(100 kg) 17 = 28, said once, as the Move Roll
    says its own ("Move Roll 17 (agility 10 + ...) = 17"). A distance typed as 10 (m)
    and a range typed as 5 (m) read 10 and 5, as every other figure in a summary does."""
    s = brandx_session("add Strong strength=20 mass=100 ep=50", "add B vp=40")
    s.execute("declare Strong lift weight=100 faces=4,4")
    assert last_resolution(s).summary.startswith("Lift Roll 28 (strength 20 - 9 + Sphere(mass 100) 17) = 28; rolled 4+4 = 8:")
    s.execute("next")
    s.execute("declare Strong lift power=true roll=30 weight=100 distance=10 faces=5,5")
    assert "against Sphere(100 kg) 17 + Sphere(distance 10 m) 9: missed by 6" in last_resolution(s).summary
    s.execute("next")
    # Throw Roll 11 + 17 = 28, dice 2+2: Q 24, 23 over 1 kg: 19 to EP, 4 to distance (4 m).
    s.execute("declare Strong throw target=B weight=1 damage=3 range=5 q_distance=4 q_ep=19 throwback=false faces=2,2,5,5")
    assert "the target at 5 m is beyond the maximum range 4 m" in last_resolution(s).summary


# ---------------------------------------------------------------------- lift
STRONG = "add Strong strength=20 mass=100 ep=50"  # Lift Roll 20 - 9 + Sphere(100) 17 = 28
LIFT_ROLL = "Lift Roll 28 (strength 20 - 9 + Sphere(mass 100) 17)"


@pytest.mark.parametrize(("asked", "counts", "need", "rest"), [
    ("worn=true", "100 kg x1/2 worn", 14, "6 over: 6 to EP; PT 10; 1 EP (lift row 3: 1)"),
    ("overhead=true worn=true", "100 kg x2 overhead x1/2 worn", 17, "3 over: 3 to EP; PT 10; 2 EP (lift row 6: 2)"),
    ("q_speed=3", "100 kg", 17, "3 over: 3 to speed; PT 5; 5 EP (lift row 9: 5)"),
])
def test_a_lift_needs_the_weights_q_and_spends_the_rest_on_ep_or_speed(asked: str, counts: str, need: int, rest: str) -> None:
    """Seed: "The Quality must be the object's mass (Sphere Chart). Quality can also
    reduce the EP cost and Performance Time."; "Overhead Lift: Weight lifted overhead
    counts as twice its weight."; "Worn: Weight that is worn counts as half its weight."
    The module's docstring: the rest of Q goes to EP unless placed.

    By hand, dice 4+4 = 8: Q 20. 100 kg worn counts 50: Sphere row 14 (43 <= 50 < 57),
    6 over, row 9 - 6 = 3 (1 EP on its first use). Overhead and worn: 100 kg, row 17, 3
    over, row 6: 2 EP. 3 Q on speed: "Three points of Q divide Performance Time by 2":
    10 -> 5, row 9: 5 EP."""
    s = brandx_session(STRONG)
    s.execute(f"declare Strong lift weight=100 {asked} faces=4,4")
    act = s.encounter.actions[-1]
    res = act.resolution
    assert res.summary == f"{LIFT_ROLL} = 28; rolled 4+4 = 8: Q 20 against Sphere({counts}) {need}: lifted, {rest}"
    assert res.success is True and res.margin == 20 - need and act.pt == res.pt
    assert (res.details["q"], res.details["roll"], res.details["total"], res.details["needed"]) == (20, 28, 8, need)


def test_a_lift_short_of_the_weights_q_fails_for_1_ep() -> None:
    """Seed: "A failure costs 1 EP. The Performance Time for a Lift is 10 segments." By
    hand: 1000 kg is Sphere row 25 (997 <= 1000 < 1329); Q 20 misses it by 5."""
    s = brandx_session(STRONG)
    s.execute("declare Strong lift weight=1000 faces=4,4")
    res = last_resolution(s)
    assert res.success is False and res.margin == -5 and res.pt == 10
    assert res.summary == (f"{LIFT_ROLL} = 28; rolled 4+4 = 8: Q 20 against Sphere(1000 kg) 25: missed by 5, not lifted; "
                           "PT 10; 1 EP (failed lift row 5: 1)")
    assert res.details["ep_uses"] == [{"what": "failed lift", "row": 5, "paid": 1}]
    assert ep(s, "Strong") == 49


def test_what_a_lift_or_a_throw_cannot_be_made_without() -> None:
    """The module's docstring: a lift and a throw need `weight=KG`; a power's lift needs
    its Lift Roll (Power Rolls "are not random": the GM states it); `distance=` is for
    "powers that can lift at a distance"."""
    s = brandx_session(STRONG)
    with pytest.raises(TrackerError, match=r"^lift needs weight=KG, the object's mass in kg$"):
        s.execute("declare Strong lift faces=4,4")
    with pytest.raises(TrackerError, match=r"^throw needs weight=KG, the object's mass in kg$"):
        s.execute("declare Strong throw faces=4,4")
    with pytest.raises(TrackerError, match=r"^lift with power=true needs roll=N, the power's Lift Roll$"):
        s.execute("declare Strong lift power=true weight=10 faces=4,4")
    with pytest.raises(TrackerError, match=r"^distance= is for a power that lifts at a distance \(power=true\)$"):
        s.execute("declare Strong lift weight=10 distance=5 faces=4,4")
    assert s.encounter.actions == [] and ep(s, "Strong") == 50


def test_a_power_lifts_at_a_distance_in_20_segments() -> None:
    """Seed: "For powers, the Performance Time is 20 segments. For powers that can lift
    at a distance, look up the distance to the object, in meters, on the Sphere Chart for
    the Q required for distance." By hand: roll 30, dice 1+1 with rerolls 1 and 1: 2 -
    2 = 0, Q 30; 100 kg (17) + 30 m (row 12, 24 <= 30 < 32) = 29: lifted, 1 over, to EP:
    row 8, 4 EP."""
    s = brandx_session("add Mind ep=50")
    s.execute("declare Mind lift power=true roll=30 weight=100 distance=30 faces=1,1,1,1")
    res = last_resolution(s)
    assert res.pt == 20 and res.details["needed"] == 29 and res.margin == 1
    assert res.summary == ("roll 30 = 30; rolled 1+1, reroll 1, 1 subtracted = 0: Q 30 against Sphere(100 kg) 17 + "
                           "Sphere(distance 30 m) 12: lifted, 1 over: 1 to EP; PT 20; 4 EP (lift row 8: 4)")


@pytest.mark.parametrize(("faces", "moves", "said"), [
    ("4,4", True, "Q 15 against Sphere(1000 kg) 25: missed by 10, PT doubled 10 times to 10240; PT 10240"),
    ("7,6", True, "Q 10 against Sphere(1000 kg) 25: missed by 15, PT doubled 15 times to 327680; PT 327680"),
    ("7,7", False, "Q 9 against Sphere(1000 kg) 25: missed by 16, more than 20 - friction 5: it will not move; PT 10"),
])
def test_a_push_missed_doubles_its_time_up_to_20_less_the_friction(faces: str, moves: bool, said: str) -> None:
    """Seed: "Make the Lift Roll as normal, but if the roll is missed, double the
    Performance Time for every point the roll was missed by. Friction is applied as a
    penalty directly to the Roll. [...] Pushing a box up a dirt road will have a friction
    of 5. [...] If the roll is missed by more than 20 minus the friction number, the
    object cannot be pushed/pulled." And "A failure costs 1 EP."

    By hand: 28 - friction 5 = 23; 1000 kg needs 25. Dice 8: Q 15, missed by 10: PT 10 x
    2^10 = 10240. Dice 13: missed by 15 = 20 - 5, still moves: 10 x 2^15 = 327680. Dice
    14: missed by 16: it will not move."""
    s = brandx_session(STRONG)
    s.execute(f"declare Strong lift push=true friction=5 weight=1000 faces={faces}")
    act = s.encounter.actions[-1]
    assert act.resolution.success is moves and act.pt == act.resolution.pt
    assert act.resolution.summary == (f"{LIFT_ROLL} = 28 - friction 5 = 23; rolled {faces.replace(',', '+')} = "
                                      f"{sum(int(f) for f in faces.split(','))}: {said}; 1 EP (failed lift row 5: 1)")
    assert ep(s, "Strong") == 49


def test_a_push_without_friction_or_made_outright() -> None:
    """No friction stated is none ("Very low friction [...] is 1"; 0 takes nothing off):
    28, 1000 kg, dice 8: Q 20 missed by 5 (at most 20 - 0): PT 10 x 2^5 = 320. A push
    that makes the weight's Q is a lift: friction 5, 100 kg (17), dice 2+2: Q 19, 2
    over, to EP: row 7, 3 EP."""
    s = brandx_session(STRONG)
    s.execute("declare Strong lift push=true weight=1000 faces=4,4")
    res = last_resolution(s)
    assert res.success is True and res.pt == 320 and "friction" not in res.summary
    assert res.summary.startswith(f"{LIFT_ROLL} = 28; rolled 4+4 = 8: Q 20 against Sphere(1000 kg) 25: missed by 5, PT doubled 5 times to 320;")
    s = brandx_session(STRONG)
    s.execute("declare Strong lift push=true friction=5 weight=100 faces=2,2")
    res = last_resolution(s)
    assert res.success is True and res.pt == 10 and res.margin == 2
    assert res.summary.endswith("= 23; rolled 2+2 = 4: Q 19 against Sphere(100 kg) 17: lifted, 2 over: 2 to EP; PT 10; 3 EP (lift row 7: 3)")


def test_a_friction_of_20_holds_whatever_the_dice_show() -> None:
    """Seed: "A friction of 20 is impossible to overcome." The module's docstring: the
    roll is made as normal and fails whatever it shows (1 EP). By hand: 28 - 20 = 8; 1
    kg needs 1; dice 2+2: Q 4, 3 over, and still it will not move."""
    s = brandx_session(STRONG)
    s.execute("declare Strong lift push=true friction=20 weight=1 faces=2,2")
    res = last_resolution(s)
    assert res.success is False and res.margin == 3 and res.pt == 10
    assert res.summary == (f"{LIFT_ROLL} = 28 - friction 20 = 8; rolled 2+2 = 4: Q 4: a friction of 20 is impossible to "
                           "overcome: it will not move; PT 10; 1 EP (failed lift row 5: 1)")


def test_an_inanimate_object_holds_with_its_roll_plus_pool_and_no_dice() -> None:
    """Seed: "Inanimate objects (ropes, webs) do not normally need to roll the Lift Roll.
    Their Lift Q is the Roll plus the Pool (Sphere Chart, of course)." By hand: roll 12 +
    Sphere(pool 12) row 9 = 21: against 70 kg (row 15) it holds, 6 over; against 430 kg
    (row 22, 421 <= 430) it gives way, short by 1. With no roll stated, the object's own
    Lift Roll: strength 10 - 9 + Sphere(mass 70) 15 = 16, no pool: against 50 kg (row
    14), 2 over. No dice, no EP."""
    s = brandx_session("add Web ep=5", "add Rope ep=5", "add Net ep=5")
    s.execute("declare Web lift inanimate=true roll=12 pool=12 weight=70")
    res = last_resolution(s)
    assert res.summary == "inanimate: Lift Q = roll 12 + Sphere(pool 12) 9 = 21, no roll; against Sphere(70 kg) 15: holds, 6 over"
    assert res.details == {"q": 21, "needed": 15, "inanimate": True} and res.pt == 10 and res.success is True
    s.execute("declare Net lift inanimate=true roll=12 pool=12 weight=430")
    res = last_resolution(s)
    assert res.summary.endswith("against Sphere(430 kg) 22: gives way, short by 1")
    assert res.success is False and res.margin == -1
    s.execute("declare Rope lift inanimate=true weight=50")
    res = last_resolution(s)
    assert res.summary == ("inanimate: Lift Q = Lift Roll 16 (strength 10 - 9 + Sphere(mass 70) 15) + Sphere(pool 0) 0 = 16, "
                           "no roll; against Sphere(50 kg) 14: holds, 2 over")
    assert res.dice == () and res.effects == ()
    assert [ep(s, who) for who in ("Web", "Rope", "Net")] == [5, 5, 5]


# ---------------------------------------------------------------------- arm wrestling
WRESTLERS = ("add A strength=15 mass=20 ep=20", "add B strength=12 mass=20 ep=20")
# A: 15 - 9 + Sphere(20 kg) row 11 (18 <= 20 < 24) = 17; B: 12 - 9 + 11 = 14.


def test_arm_wrestling_one_failing_loses_for_1_ep() -> None:
    """Seed: "two people arm wrestling each make a Lift Roll, as if lifting no weight. If
    one fails, then that person loses." A failed lift costs 1 EP; the winner's Lift Roll
    is on row 9 (5 EP). By hand: A dice 2+3 = 5 (Q 12); B dice 10+10 = 20 against 14:
    missed by 6."""
    s = brandx_session(*WRESTLERS)
    s.execute("declare A arm-wrestle target=B faces=2,3,10,10")
    res = last_resolution(s)
    assert res.summary == ("A's Lift Roll 17 = 17; rolled 2+3 = 5 (Q 12); B's Lift Roll 14, rolled 10+10 = 20 (missed by 6): "
                           "B fails and loses; A 5 EP (arm wrestling row 9: 5), B 1 EP (arm wrestling row 5: 1)")
    assert res.success is True and res.margin == 12 and res.dice == (2, 3, 10, 10)
    assert (res.details["q"], res.details["vs_q"], res.details["winner"]) == (12, -6, "A")
    assert ep(s, "A") == 15 and ep(s, "B") == 19
    s.execute("step 10")  # the outcome is logged as the bout ends
    assert s.encounter.log[-1].text == "arm wrestling: B fails and loses"
    s = brandx_session(*WRESTLERS)
    s.execute("declare A arm-wrestle target=B faces=10,10,2,2")
    res = last_resolution(s)
    assert res.success is False and res.details["winner"] == "B"
    assert "A fails and loses; A 1 EP (arm wrestling row 5: 1), B 5 EP (arm wrestling row 9: 5)" in res.summary


def test_arm_wrestling_both_failing_pay_5_ep_and_go_again() -> None:
    """Seed: "If both fail, they use maximum EP (5) and try again." """
    s = brandx_session(*WRESTLERS)
    s.execute("declare A arm-wrestle target=B faces=10,10,10,10")
    res = last_resolution(s)
    assert res.success is False and res.details["winner"] == ""
    assert res.summary.endswith("both fail: each uses 5 EP and they try again; A 5 EP (arm wrestling row 9: 5), "
                                "B 5 EP (arm wrestling row 9: 5)")
    assert ep(s, "A") == 15 and ep(s, "B") == 15


@pytest.mark.parametrize(("faces", "asked", "outcome", "winner"), [
    # Unstated, each cuts what takes the other below 0 if it can: A cuts 2 x (0 + 1) = 2.
    ("2,3,7,7", "", "Q 12 and 0 (cutting with 2 and 0) end at 10 and -1: A wins", "A"),
    # EP first: A 4 on EP (row 5), B 5 asked but has 0; A cuts 2 of the 8 left.
    ("2,3,7,7", "q_ep=4 vs_q_ep=5", "Q 12 and 0 (cutting with 2 and 0) end at 6 and -1: A wins", "A"),
    # B's 5: A needs 2 x 6 = 12, all it has: 0, not below 0; B would need 26: none.
    ("2,3,5,4", "", "Q 12 and 5 (cutting with 12 and 0) end at 0 and -1: A wins", "A"),
    # 12 and 10: neither can take the other below 0.
    ("2,3,2,2", "", "Q 12 and 10 (cutting with 0 and 0) end at 12 and 10: nobody has won yet", ""),
    # Both spend all: 0 - 10 // 2 = -5 and 0 - 12 // 2 = -6: both below 0, nobody.
    ("2,3,2,2", "q_cut=12 vs_q_cut=10", "Q 12 and 10 (cutting with 12 and 10) end at -5 and -6: nobody has won yet", ""),
    # B spends 10 on EP; A's 2 cut takes B's 0 to -1.
    ("2,3,2,2", "vs_q_ep=10", "Q 12 and 10 (cutting with 2 and 0) end at 10 and -1: A wins", "A"),
    # A spends 2 and loses 4 // 2: 12 - 2 - 2 = 8; B spends 4 and loses 1: 10 - 4 - 1 = 5.
    ("2,3,2,2", "q_cut=2 vs_q_cut=4", "Q 12 and 10 (cutting with 2 and 4) end at 8 and 5: nobody has won yet", ""),
    # B spends all 10: A 12 - 5 = 7; B 10 - 10 = 0, not below 0: nobody.
    ("2,3,2,2", "q_cut=0 vs_q_cut=10", "Q 12 and 10 (cutting with 0 and 10) end at 7 and 0: nobody has won yet", ""),
])
def test_arm_wrestlers_both_succeeding_cut_each_others_q_2_for_1(faces: str, asked: str, outcome: str, winner: str) -> None:
    """Seed: "If both succeed, they can use the Q to reduce the EP used, as normal, and Q
    can also be used to reduce the opponent's Q, at a 2 to 1 ratio. It takes 2 points to
    reduce the opponent's Q by 1 point. If a person's Q is reduced to less than 0, that
    person loses." The module's docstring: a Q below 0 loses; if neither or both go
    below 0 nobody has won yet. A (17): dice 2+3, Q 12. B (14): 7+7 Q 0, 5+4 Q 5, 2+2 Q 10."""
    s = brandx_session(*WRESTLERS)
    s.execute(f"declare A arm-wrestle target=B faces={faces} {asked}")
    res = last_resolution(s)
    assert res.details["winner"] == winner and res.success is (winner == "A")
    assert f": {outcome}; A " in res.summary


def test_arm_wrestlers_q_on_ep_lowers_each_ones_row() -> None:
    """"they can use the Q to reduce the EP used, as normal": one row a point. By hand: A
    (Q 12) 4 on EP: row 5, 1 EP; B (Q 10) 10 on EP: row -1, free."""
    s = brandx_session(*WRESTLERS)
    s.execute("declare A arm-wrestle target=B faces=2,3,2,2 q_ep=4 vs_q_ep=10")
    assert last_resolution(s).summary.endswith("; A 1 EP (arm wrestling row 5: 1), B 0 EP (arm wrestling row -1: 0)")
    assert ep(s, "A") == 19 and ep(s, "B") == 20


def test_arm_wrestlers_cannot_cut_with_more_q_than_is_left_after_ep() -> None:
    """Q spent cutting comes off the spender's own (the module's docstring), so no more
    than is left after EP: A has 12, B 10."""
    s = brandx_session(*WRESTLERS)
    with pytest.raises(TrackerError, match=r"^q_cut=13: only 12 Q is left to spend after EP$"):
        s.execute("declare A arm-wrestle target=B faces=2,3,2,2 q_cut=13")
    with pytest.raises(TrackerError, match=r"^q_cut=1: only 0 Q is left to spend after EP$"):
        s.execute("declare A arm-wrestle target=B faces=2,3,2,2 q_ep=12 q_cut=1")
    with pytest.raises(TrackerError, match=r"^vs_q_cut=11: only 10 Q is left to spend after EP$"):
        s.execute("declare A arm-wrestle target=B faces=2,3,2,2 vs_q_cut=11")
    s.execute("declare A arm-wrestle target=B faces=2,3,2,2 q_cut=12 vs_q_cut=10")
    assert last_resolution(s).details["winner"] == ""


# ---------------------------------------------------------------------- throw
THROWER = "add Thrower strength=15 mass=70 height=1.8 ep=30"  # 15 - 9 = 6, + Sphere(70) 15 = 21
THROW_ROLL = "strength - 9 6 + Sphere(mass 70) 15 = 21"


@pytest.mark.parametrize(("asked", "spent", "flight", "pt", "bill"), [
    # The 10 over all to distance: Sphere row 10 reads 14.
    ("", "10 to distance", "14 m at 14 m/segment, distance as read", 15, "5 EP (throw row 9: 5)"),
    # 3 on speed: PT 15 / 2 = 7.5, half up 8; 2 on EP: row 7, 3 EP; 5 to distance: 5 m.
    ("q_speed=3 q_ep=2", "3 to speed, 2 to EP, 5 to distance", "5 m at 5 m/segment, distance as read", 8,
     "3 EP (throw row 7: 3)"),
    # Precision with no lob: Square(1.8 x 2 = 3.6) row 1: 1 segment, 14 m.
    ("precise=true", "10 to distance", "14 m at 14 m/segment, 1 segments in the air (Square of height x 2)", 15,
     "5 EP (throw row 9: 5)"),
    # 1 Q lobbing: height x 6 = 10.8, Square row 3 (9 <= 10.8 < 16); 9 to distance: 10 m/segment, 30 m.
    ("q_lob=1", "1 to lob, 9 to distance", "30 m at 10 m/segment, 3 segments in the air (Square of height x 6)", 15,
     "5 EP (throw row 9: 5)"),
    # 3 Q lobbing: height x 10 = 18, Square row 4 (16 <= 18 < 25); 7 to distance: 7 m/segment, 28 m.
    ("q_lob=3", "3 to lob, 7 to distance", "28 m at 7 m/segment, 4 segments in the air (Square of height x 10)", 15,
     "5 EP (throw row 9: 5)"),
])
def test_a_throw_spends_the_q_over_the_weight_on_distance_speed_ep_or_lob(asked: str, spent: str, flight: str, pt: int, bill: str) -> None:
    """Seed: "It is vs. Strength minus 9. There is a bonus equal to the character's Mass
    (Sphere Chart). The Q is used for the object's mass (Sphere Chart). It can also be
    used to reduce the EP cost or to increase the distance the object is thrown. Look up
    the Q applied to distance on the Result column of the Action Chart, and read to the
    Sphere Column, for the distance in meters."; "The speed of the object will be the
    same as the distance, in meters/segment."; "Lobbing and Tall/Short Folks: [...] Look
    up this times 4 (character height times 2) on the Square Chart, for the number of
    segments in the air [...] Multiply the number of segments by the speed for the
    distance. [...] 1 point of Q here means that height times 6 is looked up [...] three
    points height times 10"; "Performance Time for a Throw is 15."

    By hand: 21, dice 3+3 = 6: Q 15; a 5 kg rock needs Sphere(5) = 5: 10 over."""
    s = brandx_session(THROWER)
    s.execute(f"declare Thrower throw weight=5 {asked} faces=3,3")
    act = s.encounter.actions[-1]
    res = act.resolution
    assert res.summary == f"{THROW_ROLL}; rolled 3+3 = 6: Q 15 against Sphere(5 kg) 5: thrown, 10 over: {spent}; {flight}; PT {pt}; {bill}"
    assert res.success is True and res.margin == 10 and act.pt == pt
    assert (res.details["q"], res.details["roll"], res.details["total"], res.details["needed"]) == (15, 21, 6, 5)


def test_a_short_thrower_stays_in_the_air_at_least_a_segment() -> None:
    """The module's docstring: airborne Square(height x f) segments; a thrower 0.2 m
    tall: 0.4 reads the Square chart's row -2 (.25 <= .4 < .49), below 1: the object is
    in the air 1 segment, so the distance is the speed (14 m)."""
    s = brandx_session("add Tiny strength=15 mass=70 height=0.2 ep=30")
    s.execute("declare Tiny throw weight=5 precise=true faces=3,3")
    res = last_resolution(s)
    assert res.details["distance"] == 14 and "14 m at 14 m/segment, 1 segments in the air (Square of height x 2)" in res.summary


def test_a_throw_short_of_the_weights_q_goes_a_little_for_5_ep() -> None:
    """Seed: "If the Throw Roll fails, the object is still thrown a small distance. The
    EP Cost is 5, and the negative Q is looked up from the Result column to the Sphere
    Column, just as before." By hand: dice 10+10 = 20: Q 1, 4 short of the rock's 5:
    Sphere row -4 reads .24: .24 m at .24 m/segment; PT 15 whatever Q was asked on
    speed. Thrown at someone, a failed throw makes no attack."""
    s = brandx_session(THROWER, "add B vp=40")
    s.execute("declare Thrower throw target=B weight=5 q_speed=3 damage=3 faces=10,10")
    act = s.encounter.actions[-1]
    res = act.resolution
    assert res.success is False and res.margin == -4 and act.pt == 15 and res.dice == (10, 10)
    assert res.summary == (f"{THROW_ROLL}; rolled 10+10 = 20: Q 1 against Sphere(5 kg) 5: missed by 4, thrown only a little; "
                           "0.24 m at 0.24 m/segment, distance as read; PT 15; 5 EP (throw row 9: 5); no attack: the throw failed")
    assert "attack" not in res.details and "judge" not in res.details
    assert ep(s, "Thrower") == 25


# ---------------------------------------------------------------------- throw: the attack
PITCHER = ("add A strength=20 combat_roll=15 learning=0 ep=100", "add B vp=40")
# Throw Roll 20 - 9 = 11 + Sphere(mass 70) 15 = 26; dice 2+2: Q 22, 21 over 1 kg.


def test_a_thrown_attack_in_range_names_its_band() -> None:
    """Seed: "When throwing something as an attack, an Attack Roll must still be made.
    The Maximum Range is the speed. The Short Range is equal to the Q used for speed, and
    the Range Set is half this." By hand: 17 to EP (row -8, free), 4 to distance: 4 m at
    4 m/segment; the Short Range 4, the Range Set 2. A target at 4 m is not beyond the
    maximum (4) and within Short Range. The Combat Roll 15, dice 5+5: Q 5, all to Attack
    (+5 against Defense 0: a hit for the object's 3)."""
    s = brandx_session(*PITCHER)
    s.execute("declare A throw target=B weight=1 damage=3 range=4 q_distance=4 q_ep=17 throwback=false faces=2,2,5,5")
    res = last_resolution(s)
    assert res.summary == (
        "strength - 9 11 + Sphere(mass 70) 15 = 26; rolled 2+2 = 4: Q 22 against Sphere(1 kg) 1: thrown, 21 over: "
        "17 to EP, 4 to distance; 4 m at 4 m/segment, distance as read; PT 15; 0 EP (throw row -8: 0); "
        "Combat Roll 15 (thrown): rolled 5+5 = 10: Q 5 (Maximum Range 4 m, Short Range 4 m, Range Set 2 m; "
        "the target at 4 m is within Short Range); Attack +5 vs B's Defense +0 now: a hit for 3 VP as things stand "
        "(judged when it lands)")
    attack = res.details["attack"]
    assert (attack["q"], attack["attack"], attack["defense"], attack["short_range"], attack["range_set"]) == (5, 5, 0, 4, 2)
    assert res.details["judge"] == "brandx.blow" and res.dice == (2, 2, 5, 5)
    s.execute("next")
    assert s.encounter.combatant("B").resources["vp"] == 37


@pytest.mark.parametrize(("asked", "band"), [
    ("range=2 q_distance=4 q_ep=17", "Maximum Range 4 m, Short Range 4 m, Range Set 2 m; the target at 2 m is within the Range Set"),
    # 10 to distance: Sphere row 10 reads 14 m; 12 m is within it but past Short Range 10.
    ("range=12 q_distance=10 q_ep=11", "Maximum Range 14 m, Short Range 10 m, Range Set 5 m; the target at 12 m is past Short Range"),
    ("q_distance=4 q_ep=17", "Maximum Range 4 m, Short Range 4 m, Range Set 2 m"),
])
def test_the_bands_of_a_thrown_attack(asked: str, band: str) -> None:
    """The same sentence: "The Short Range is equal to the Q used for speed, and the
    Range Set is half this." With no range stated, only the bands are said."""
    s = brandx_session(*PITCHER)
    s.execute(f"declare A throw target=B weight=1 damage=3 {asked} throwback=false faces=2,2,5,5")
    assert f"Combat Roll 15 (thrown): rolled 5+5 = 10: Q 5 ({band}); Attack +5" in last_resolution(s).summary


def test_a_target_beyond_the_maximum_range_is_missed() -> None:
    """The module's docstring: "a target beyond the maximum range (the speed) is
    missed." By hand: 4 m at 4 m/segment; a target 5 m away: no blow lands; the Combat
    Roll's dice are still rolled."""
    s = brandx_session(*PITCHER)
    s.execute("declare A throw target=B weight=1 damage=3 range=5 q_distance=4 q_ep=17 throwback=false faces=2,2,5,5")
    res = last_resolution(s)
    assert res.summary.endswith("; Combat Roll 15 + pool: the target at 5 m is beyond the maximum range 4 m "
                                "(Maximum Range 4 m, Short Range 4 m, Range Set 2 m)")
    assert res.details["attack"] == {"q": 5} and res.dice == (2, 2, 5, 5)
    s.execute("next")
    assert s.encounter.combatant("B").resources["vp"] == 40


def test_a_thrown_attack_that_misses_shares_the_miss_out() -> None:
    """Seed: "If the Combat Roll fails, apply the negative Q evenly to Attack, then
    Damage, then Defense. [...] Defense Q is still divided by 2 and rounded towards 0."
    By hand: Combat Roll 14, dice 10+10 = 20: missed by 6: Attack -2, Damage -2, Defense
    -2 / 2 = -1; the object's 3 damage less 2 is 1."""
    s = brandx_session("add A strength=20 combat_roll=14 learning=0 ep=100", "add B vp=40")
    s.execute("declare A throw target=B weight=1 damage=3 q_distance=4 q_ep=17 throwback=false faces=2,2,10,10")
    res = last_resolution(s)
    assert ("Combat Roll 14 (thrown): rolled 10+10 = 20: missed by 6: Attack -2, Damage -2 "
            "(Maximum Range 4 m, Short Range 4 m, Range Set 2 m); Attack -2 vs B's Defense +0 now: a miss") in res.summary
    assert (res.details["attack"]["attack"], res.details["attack"]["defense"]) == (-2, -1)


def test_a_thrown_attack_wants_the_objects_damage_and_rolls_the_throwback_after() -> None:
    """The module's docstring: "damage= states the object's damage". A blow that does
    damage rolls the target's Throwback Roll with the next dice (the game's page): the
    throw's faces are the Throw Roll's, the Combat Roll's, then the Throwback Roll's."""
    s = brandx_session(*PITCHER)
    with pytest.raises(TrackerError, match=r"^a throw at a target needs damage=N, the thrown object's damage$"):
        s.execute("declare A throw target=B weight=1 q_distance=4 q_ep=17 faces=2,2,5,5")
    s.execute("declare A throw target=B weight=1 damage=3 q_distance=4 q_ep=17 throwback=true faces=2,2,5,5,8,8")
    assert last_resolution(s).dice == (2, 2, 5, 5, 8, 8)


def test_a_thrower_moving_with_defense_loses_as_much_attack() -> None:
    """Seed: "the same amount that is added to Defense is subtracted from Attack, if the
    character is attacking." A moving with 4 Q on Defense (+2): the thrown attack's Q 5
    is Attack 5 - 2 = 3."""
    s = brandx_session(*PITCHER)
    s.execute("declare A move roll=20 faces=5,5 q_defense=4 q_speed=6")
    s.execute("step")
    s.execute("declare A throw target=B weight=1 damage=3 q_distance=4 q_ep=17 throwback=false faces=2,2,5,5")
    res = last_resolution(s)
    assert "Combat Roll 15 (thrown): rolled 5+5 = 10: Q 5; Attack -2 for Defense from passive actions (moving +2) as things stand (" in res.summary
    assert res.details["attack"]["attack"] == 3
    # What was taken off is kept, for the judge to take off what is in force as it lands.
    assert res.details["attack"]["hits"][0]["passive_defense"] == 2


# ---------------------------------------------------------------------- more edges
def _at_most(total: int) -> Fraction:
    """P(2d10 with the subtracting reroll <= total), face by face (the game's page: a 1
    is rolled once more and the new face subtracted): each die shows 2-10 (1/10 each) or
    1 - g for a 1 rerolled to g (1/100 each)."""
    one: dict[int, Fraction] = {face: Fraction(1, 10) for face in range(2, 11)}
    for again in range(1, 11):
        one[1 - again] = one.get(1 - again, Fraction(0)) + Fraction(1, 100)
    return sum((p * q for a, p in one.items() for b, q in one.items() if a + b <= total), Fraction(0))


def test_the_chance_line_of_a_lift_or_a_throw_is_the_chance_to_reach_the_weights_q() -> None:
    """rolls.py: `need` is "Q the action must reach (Lift, Throw) for its chance"; a push
    moves the object unless the miss is more than 20 - friction. By hand: Lift Roll 28
    against 1000 kg (25): total at most 3. Pushing it against friction 10: 28 - 10 = 18,
    moving at a miss of up to 10: Q of 15 or more, total at most 3. The Throw Roll 21
    against a 5 kg rock (5): at most 16."""
    s = brandx_session(STRONG, THROWER)
    assert s.chance("Strong", "lift", [], {"weight": "1000"}) == _at_most(3)
    assert s.chance("Strong", "lift", [], {"weight": "1000", "push": "true", "friction": "10"}) == _at_most(3)
    assert s.chance("Thrower", "throw", [], {"weight": "5"}) == _at_most(16)


def test_a_lift_of_nothing_or_of_exactly_its_q() -> None:
    """Nothing (0 kg) needs no Q: all 20 over. 237 kg is Sphere row 20 (entry 237): Q 20
    lifts it with nothing over ("The Quality must be the object's mass")."""
    s = brandx_session(STRONG, "add Other strength=20 mass=100 ep=50")
    s.execute("declare Strong lift weight=0 faces=4,4")
    assert last_resolution(s).details["needed"] == 0 and last_resolution(s).margin == 20
    s.execute("declare Other lift weight=237 faces=4,4")
    res = last_resolution(s)
    assert res.success is True and res.margin == 0
    assert "Q 20 against Sphere(237 kg) 20: lifted, 0 over: nothing spent; PT 10; 5 EP (lift row 9: 5)" in res.summary
    assert res.details["ep_uses"] == [{"what": "lift", "row": 9, "paid": 5}]


def test_extra_effort_on_a_lift_or_a_throw_raises_and_then_lowers_strength() -> None:
    """Seed: "If a character with a 17 strength makes a Lift Roll, and increases strength
    to 24 (8 point increase), strength drops immediately to 9 (17-8)." The seed's own
    case: Lift Roll 17 - 9 + Sphere(70) 15 = 23, + 8 = 31. A throw is strength's too."""
    s = brandx_session("add Hero strength=17 ep=50", "add Pitcher ep=50")
    s.execute("declare Hero lift weight=100 effort=8 faces=4,4")
    assert last_resolution(s).details["roll"] == 31 and s.encounter.combatant("Hero").stats["strength"] == 9
    s.execute("declare Pitcher throw weight=1 effort=2 faces=2,2")
    assert last_resolution(s).details["roll"] == 1 + 15 + 2 and s.encounter.combatant("Pitcher").stats["strength"] == 8


def test_arm_wrestling_wants_one_opponent_and_bills_each() -> None:
    """"Arm wrestling is likely to be based on Lift, so two people arm wrestling each make
    a Lift Roll": one opponent, named. Each side's EP use is its own (row 9, 5 EP)."""
    s = brandx_session(*WRESTLERS)
    with pytest.raises(TrackerError, match=r"^arm-wrestle takes one opponent \(target=NAME\)$"):
        s.execute("declare A arm-wrestle faces=2,3,2,2")
    s.execute("declare A arm-wrestle target=B faces=2,3,2,2")
    assert last_resolution(s).details["ep_uses"] == [{"what": "arm wrestling", "row": 9, "paid": 5}]


def test_an_arm_wrestler_taken_below_0_by_one_at_0_loses() -> None:
    """"If a person's Q is reduced to less than 0, that person loses": A (dice 8+7, Q 2)
    and B (Q 10); B spends all 10 cutting: A 2 - 5 = -3, B 0 (not below 0): B wins."""
    s = brandx_session(*WRESTLERS)
    s.execute("declare A arm-wrestle target=B faces=8,7,2,2 vs_q_cut=10")
    res = last_resolution(s)
    assert res.details["winner"] == "B" and res.success is False
    assert "Q 2 and 10 (cutting with 0 and 10) end at -3 and 0: B wins" in res.summary


def test_a_throw_with_nothing_on_distance_and_an_attack_at_q_0() -> None:
    """All 21 Q over the 1 kg on EP: row 0 of the Result column reads .75 on the Sphere
    column: .75 m, the Maximum Range; the Short Range 0 (no Q on distance). The Combat
    Roll 15, dice 8+7: Q 0, Attack +0: a hit against Defense 0. Details name the throw's
    figures (distance, speed, the weight's Q, its EP use)."""
    s = brandx_session(*PITCHER)
    s.execute("declare A throw target=B weight=1 damage=3 q_ep=21 throwback=false faces=2,2,8,7")
    res = last_resolution(s)
    assert "0.75 m at 0.75 m/segment, distance as read" in res.summary
    assert "Combat Roll 15 (thrown): rolled 8+7 = 15: Q 0 (Maximum Range 0.75 m, Short Range 0 m, Range Set 0 m); Attack +0 vs" in res.summary
    d = res.details
    assert (d["distance"], d["speed"], d["needed"], d["q"], d["roll"], d["total"]) == (0.75, 0.75, 1, 22, 26, 4)
    assert d["ep_uses"] == [{"what": "throw", "row": -12, "paid": 0}]
    assert (d["attack"]["attack"], d["attack"]["short_range"], d["attack"]["range_set"]) == (0, 0, 0)


def test_a_lifts_own_pool_and_each_wrestlers_own_mass() -> None:
    """A pool is read on the Sphere chart (the game's page: `pool=` "extra bonus pool"):
    28 + Sphere(4) 4 = 32. Arm wrestling, "two people arm wrestling each make a Lift
    Roll": each with their own mass: B of 70 kg: 12 - 9 + Sphere(70) 15 = 18."""
    s = brandx_session(STRONG, "add A strength=15 mass=20 ep=20", "add B strength=12 mass=70 ep=20")
    s.execute("declare Strong lift weight=100 pool=4 faces=4,4")
    assert last_resolution(s).details["roll"] == 32 and last_resolution(s).margin == 7
    s.execute("declare A arm-wrestle target=B faces=2,3,10,10")
    assert "; B's Lift Roll 18, rolled 10+10 = 20 (missed by 2): B fails and loses;" in last_resolution(s).summary


def test_the_dice_asked_for_are_named_by_the_roll() -> None:
    """The dice prompt names the roll in the game's words (rolls.py: `label` is "the
    roll's name in the game's words"): the Lift Roll, the Throw Roll, the thrown
    attack's Combat Roll after the Throw Roll's dice, and each wrestler's Lift Roll (the
    opponent's dice named as theirs)."""
    from rulesets.base import ActionRequest
    from rulesets.dice import DiceNeeded, PromptingFaces

    s = brandx_session("add A ep=100", "add B vp=40")
    game = s.ruleset

    def asked(name: str, faces: list[int], targets: tuple[str, ...] = (), **params: Any) -> tuple[str, str]:
        template = game.template(name)
        request = ActionRequest(template=template, actor=s.encounter.combatant("A"), params=params, encounter=s.encounter,
                                targets=tuple(s.encounter.combatant(t) for t in targets), pt=template.pt)
        with pytest.raises(DiceNeeded) as needed:
            game.resolve(request, PromptingFaces(faces))
        return str(needed.value.group.label), str(needed.value.group.who)

    assert asked("lift", [], weight=10.0) == ("Lift Roll", "")
    assert asked("throw", [], weight=1.0) == ("Throw Roll", "")
    assert asked("throw", [2, 2], ("B",), weight=1.0, damage=3) == ("Combat Roll", "")
    assert asked("arm-wrestle", [], ("B",)) == ("Lift Roll (arm-wrestling)", "")
    assert asked("arm-wrestle", [2, 2], ("B",)) == ("Lift Roll (arm-wrestling)", "B")


def test_a_lift_pays_its_ep_as_it_starts_and_cuts_ep_asked_past_the_q() -> None:
    """Q on speed comes before Q on EP (the form's order; common.py: Q asked past the
    roll is cut in the order listed). By hand: 100 kg, Q 20: 3 over, all 3 on speed
    (PT 5), the 2 asked on EP cut to 0: row 9, 5 EP, paid as the lift starts and named
    in the log with its bill."""
    s = brandx_session(STRONG)
    s.execute("declare Strong lift weight=100 q_speed=3 q_ep=2 faces=4,4")
    res = last_resolution(s)
    assert res.dice == (4, 4) and res.pt == 5
    assert res.summary.endswith(": lifted, 3 over: 3 to speed; PT 5; 5 EP (lift row 9: 5); EP cut from 2 to 0")
    assert s.encounter.log[-1].text == "Strong: ep -5 (lift: 5 EP (lift row 9: 5))"


def test_an_arm_wrestlers_own_pool() -> None:
    """A's pool 4 on the Sphere chart: 17 + 4 = 21; dice 10+10 = 20: Q 1, where
    without it A would miss by 3."""
    s = brandx_session(*WRESTLERS)
    s.execute("declare A arm-wrestle target=B pool=4 faces=10,10,2,2")
    res = last_resolution(s)
    assert res.details["q"] == 1 and res.summary.startswith("A's Lift Roll 17 + pool 4 (+4) = 21; rolled 10+10 = 20 (Q 1);")


def test_more_throws_a_pool_no_weight_a_lob_that_fails_and_distance_asked_past_the_q() -> None:
    """By hand, the Throw Roll 21: with pool 4 (Sphere 4), 25. Nothing (0 kg) needs no Q.
    A failed throw made with precision still flies: .24 m/segment for Square(1.8 x 2)
    row 1 = 1 segment: .24 m. 12 Q asked for distance out of 10 is cut to 10 (Sphere row
    10: 14 m). A 60 kg stone (Sphere row 15, 57 <= 60 < 75) missed by 14 (Q 1): row -14
    of the Sphere column, (3/4)^15 = .0134, to 2 digits ("Always round Movement to 2
    digits"): .01 m."""
    s = brandx_session(THROWER)
    s.execute("declare Thrower throw weight=5 pool=4 faces=3,3")
    assert last_resolution(s).details["roll"] == 25
    s = brandx_session(THROWER)
    s.execute("declare Thrower throw weight=0 faces=3,3")
    assert last_resolution(s).details["needed"] == 0 and last_resolution(s).margin == 15
    s = brandx_session(THROWER)
    s.execute("declare Thrower throw weight=5 precise=true faces=10,10")
    res = last_resolution(s)
    assert res.details["distance"] == 0.24
    assert "; 0.24 m at 0.24 m/segment, 1 segments in the air (Square of height x 2); PT 15;" in res.summary
    assert s.encounter.log[-1].text == "Thrower: ep -5 (throw: 5 EP (throw row 9: 5))"
    s = brandx_session(THROWER)
    s.execute("declare Thrower throw weight=5 q_distance=12 faces=3,3")
    res = last_resolution(s)
    assert res.details["distance"] == 14 and res.summary.endswith("; distance cut from 12 to 10")
    s = brandx_session(THROWER)
    s.execute("declare Thrower throw weight=60 faces=10,10")
    assert (last_resolution(s).margin, last_resolution(s).details["distance"], last_resolution(s).details["speed"]) == (-14, 0.01, 0.01)


def test_arm_wrestlers_pay_on_their_own_rows_history() -> None:
    """Each side's EP is named in the log, and each side's fractional row counts its own
    uses (ep.py: "Fractional rows are counted per combatant and per row"): B puts 5 of
    its Q 10 on EP, row 4, one EP per 5 uses: the first bout's use pays 1, the second's
    nothing (A, 12 on EP: row -3, free)."""
    s = brandx_session(*WRESTLERS)
    s.execute("declare A arm-wrestle target=B faces=2,3,2,2 q_ep=12 vs_q_ep=5")
    assert s.encounter.log[-1].text == "B: ep -1 (arm wrestling: 1 EP (arm wrestling row 4: 1))"
    s.execute("step 10")
    s.execute("declare A arm-wrestle target=B faces=2,3,2,2 q_ep=12 vs_q_ep=5")
    assert last_resolution(s).summary.endswith("; A 0 EP (arm wrestling row -3: 0), B 0 EP (arm wrestling row 4: 0)")
    assert ep(s, "B") == 19
    s.undo()  # the second bout taken back, the first still counts
    s.execute("declare A arm-wrestle target=B faces=2,3,2,2 q_ep=12 vs_q_ep=5")
    assert ep(s, "B") == 19
    s = brandx_session(*WRESTLERS)
    s.execute("declare A arm-wrestle target=B faces=2,3,10,10")
    assert [e.text for e in s.encounter.log[-2:]] == ["A: ep -5 (arm wrestling: 5 EP (arm wrestling row 9: 5))",
                                                      "B: ep -1 (arm wrestling: 1 EP (arm wrestling row 5: 1))"]


def test_a_thrown_sweep_shares_its_attack_and_a_miss_may_still_hit_a_negative_defense() -> None:
    """Seed: "each extra opponent counts as a penalty of 1 to the Combat Roll's Bonus
    Pool": 15 + Sphere(-1) = 14; dice 5+5: Q 4, shared 2 and 2 when not placed. And: "It's
    possible, if unlikely, that the target has a negative Defense, so a negative Attack
    can still hit. Note that the miss goes directly to Damage": missed by 5, Attack -2
    against Defense -3 hits, for the object's 3 less 2: 1 VP."""
    s = brandx_session(*PITCHER, "add C vp=40")
    s.execute("declare A throw target=B,C weight=1 damage=3 q_distance=4 q_ep=17 throwback=false faces=2,2,5,5")
    res = last_resolution(s)
    assert ("Combat Roll 14 (thrown): rolled 5+5 = 10: Q 4; Attack Q 4 shared evenly (q_attacks=... places it per "
            "opponent) (Maximum Range 4 m") in res.summary
    assert [h["attack"] for h in res.details["attack"]["hits"]] == [2, 2]
    s = brandx_session(*PITCHER)
    s.execute("declare A throw target=B weight=1 damage=3 defense=-3 q_distance=4 q_ep=17 throwback=false faces=2,2,10,10")
    assert "Attack -2 vs B's Defense -3 now (stated): a hit for 1 VP" in last_resolution(s).summary
    s.execute("next")
    assert s.encounter.combatant("B").resources["vp"] == 39


def test_an_arm_wrestlers_uses_are_counted_from_the_save_read_again(tmp_path: Path) -> None:
    """The count is read from the fight's own history, so a save read again keeps it: B's
    first bout on row 4 pays 1 EP; after the save is read again, its second pays
    nothing."""
    from tracker.persistence.store import EncounterFile
    from tracker.play.session import Session

    path = tmp_path / "bout.toml"
    store, loaded = EncounterFile.create(path, "bout", "brandx")
    s = Session(loaded.encounter, loaded.ruleset, store=store)
    for line in (*WRESTLERS, "declare A arm-wrestle target=B faces=2,3,2,2 q_ep=12 vs_q_ep=5", "step 10"):
        s.execute(line)
    assert ep(s, "B") == 19
    again = EncounterFile(path).load()
    reread = Session(again.encounter, again.ruleset)
    assert again.encounter.actions[-1].resolution.details["target_ep_uses"] == [{"what": "arm wrestling", "row": 4, "paid": 1}]
    reread.execute("declare A arm-wrestle target=B faces=2,3,2,2 q_ep=12 vs_q_ep=5")
    assert ep(reread, "B") == 19


def test_the_target_of_a_thrown_attack_pays_only_for_its_own_lift() -> None:
    """Only an opposed roll makes its target pay (ep.py: `target_ep_uses`, arm
    wrestling's); B, hit by a thrown rock, pays nothing for it, and its own lift after
    pays as ever: Lift Roll 28, dice 4+4: Q 20 against 100 kg (17), 3 over on EP: row 6,
    2 EP."""
    s = brandx_session(PITCHER[0], "add B vp=40 ep=20 strength=20 mass=100")
    s.execute("declare A throw target=B weight=1 damage=3 q_distance=4 q_ep=17 throwback=false faces=2,2,5,5")
    s.execute("next")
    assert ep(s, "B") == 20 and s.encounter.combatant("B").resources["vp"] == 37
    s.execute("declare B lift weight=100 faces=4,4")
    assert last_resolution(s).details["ep_uses"] == [{"what": "lift", "row": 6, "paid": 2}] and ep(s, "B") == 18
