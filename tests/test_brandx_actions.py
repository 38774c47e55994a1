"""Brand X: the other rolls of the seed, through Session with typed faces."""

from __future__ import annotations

import pytest

from rulesets.brandx import BrandXRuleset
from tracker.engine import TrackerError
from tracker.play.session import Session
from tests.helpers import session_for


def session() -> Session:
    return session_for(BrandXRuleset())


def last(s: Session):
    return s.encounter.actions[-1]


def ep(s: Session, name: str) -> float:
    return s.encounter.combatant(name).resources["ep"]


# ---------------------------------------------------------------- movement walk-through
def test_movement_walk_through_segments_81_to_105() -> None:
    s = session()
    s.execute("add Seraph agility=22 strength=11 mass=80 height=1.791 vp=43 ep=74")
    # The design's Move Roll formula (docs/contributing/design.md#rules-decisions) gives 29 (strength 11 / 2 rounded up is 6) ...
    s.execute("step 75")
    s.execute("declare Seraph move faces=5,1,4 q_ep=9 q_speed=17")
    first = last(s).resolution
    assert first.details["base"] == 29
    # ... so the seed's numbers are reproduced by passing the Move Roll it used, 28.
    s.undo()
    s.execute("declare Seraph move faces=5,1,4 roll=28 q_ep=9 q_speed=17")
    start = last(s).resolution
    assert start.dice == (5, 1, 4) and start.details["total"] == 2 and start.margin == 26
    assert start.details["speed_q"] == 17 and start.details["speed_dm"] == 10
    assert ep(s, "Seraph") == 74  # 9 Q to EP: row 0, free
    assert s.encounter.combatant("Seraph").upkeep == {}

    s.execute("next")  # 81: the first roll completes
    assert s.encounter.now == 81
    s.execute("declare Seraph move faces=9,9 roll=28")  # rolls 18
    r = last(s).resolution
    assert r.details["pool"] == -17 and r.details["pool_bonus"] == -10  # penalty 10
    assert r.margin == 0 and r.details["speed_q"] == 17
    assert ep(s, "Seraph") == 74 - 5  # EP cost went to 5 EP/round, paid now
    assert s.encounter.combatant("Seraph").upkeep["movement"] == ("ep", 5)

    s.execute("next")  # 87
    assert s.encounter.now == 87
    s.execute("declare Seraph move faces=7,7 roll=28 q_speed=1 q_ep=3")  # rolls 14
    r = last(s).resolution
    assert r.margin == 4 and r.details["speed_q"] == 18 and r.details["speed_dm"] == 11
    assert ep(s, "Seraph") == 74 - 5 - 2

    s.execute("next")  # 93
    s.execute("declare Seraph move faces=9,8 roll=28")  # rolls 17
    r = last(s).resolution
    assert r.details["pool"] == -18 and r.details["pool_bonus"] == -11  # penalty 11
    assert r.margin == 0 and ep(s, "Seraph") == 74 - 5 - 2 - 5

    s.execute("next")  # 99
    s.execute("declare Seraph move faces=6,7 roll=28 q_ep=4")  # rolls 13, +11 = 24
    r = last(s).resolution
    assert r.margin == 4 and r.details["ep_per_round"] == 1
    assert ep(s, "Seraph") == 74 - 13
    s.execute("next")  # 100: a payment segment
    assert s.encounter.now == 100
    assert ep(s, "Seraph") == 74 - 14
    assert any("payment segment 100" in e.text for e in s.encounter.log)

    s.execute("next")  # 105
    assert s.encounter.now == 105
    s.execute("declare Seraph move faces=2,3 roll=28 q_ep=9 q_speed=3")  # rolls 5, +11 = 16
    r = last(s).resolution
    assert r.margin == 12 and r.details["speed_q"] == 21
    assert r.details["speed_dm"] == 11  # 21 and 18 are the same on the Sphere chart
    assert ep(s, "Seraph") == 74 - 14
    assert s.encounter.combatant("Seraph").upkeep == {}


def test_move_missed_by_more_than_5_loses_speed_and_raises_the_row() -> None:
    s = session()
    s.execute("add Runner agility=10 strength=10 ep=50")
    s.execute("declare Runner move roll=20 faces=2,2 q_speed=16")
    s.execute("next")
    s.execute("declare Runner move roll=20 faces=10,10")  # 20 vs 20 - 10 = 10: missed by 10
    r = last(s).resolution
    assert r.margin == -10
    assert r.details["speed_q"] == 6 and r.details["ep_extra_rows"] == 2 and r.details["ep_row"] == 11
    assert s.encounter.combatant("Runner").upkeep["movement"] == ("ep", 7)


def test_move_defense_counts_against_attackers_and_off_own_attack() -> None:
    s = session()
    s.execute("add Runner agility=10 vp=20")
    s.execute("add Brute agility=10 vp=20")
    s.execute("declare Runner move roll=20 faces=5,5 q_defense=4 q_speed=6")
    assert last(s).resolution.details["move_defense"] == 2
    s.execute("declare Brute punch target=Runner faces=6,5,10,10")  # Q 1: Attack 1
    r = last(s).resolution
    assert r.details["hits"][0]["defense"] == 2 and r.details["hits"][0]["hit"] is False
    s.execute("step")
    s.execute("declare Runner punch target=Brute faces=5,5,10,10 q_attack=2")
    assert last(s).resolution.details["attack"] == 0  # Attack 2 less Defense 2 from moving


def test_defense_from_a_passive_action_comes_off_the_attack_as_the_blow_lands() -> None:
    """Seed: "If this is a Passive Action, the character's Attack will almost always be
    reduced by the same amount Defense is increased. A character who is zigzagging
    (Movement), and firing a gun at the same time might use 4 Movement Q to increase
    Defense by 2. This will reduce the character's Attack with the gun by 2 as well."
    Runner's punch: Combat Roll Sphere(2 x 10) = 11 + pool 1 (learning 10 // 10) = 12;
    5+5 = 10, Q 2, all to Attack: +2 against a stated Defense of 1, a hit as things
    stand. Two segments later Runner starts zigzagging (Move Roll 20, 5+5: Q 10, 4 of it
    to Defense +2), which pushes the punch back a segment to 16; when it lands its Attack
    is 2 - 2 = 0 < 1: a miss."""
    results = {}
    for moving in (False, True):
        s = session()
        s.execute("add Runner agility=10 vp=20")
        s.execute("add Brute agility=10 vp=20 dp=100")
        s.execute("declare Runner punch target=Brute defense=1 faces=5,5,10,10")
        assert last(s).resolution.details["attack"] == 2
        s.execute("step 2")
        if moving:
            s.execute("declare Runner move roll=20 faces=5,5 q_defense=4 q_speed=6")
        s.execute("step 14")
        results[moving] = (s.encounter.combatant("Brute").resources["vp"], [e.text for e in s.encounter.log])
    assert results[False][0] == 20 - 5  # it lands: Hand Damage Doubles(70 / 10) 3 + 10 // 4 = 5
    assert results[True][0] == 20
    assert any("Attack +0 vs Brute's Defense +1 (stated): miss" in t for t in results[True][1])


def test_a_thrown_attack_loses_the_defense_from_movement_too() -> None:
    """The same sentence for a throw at a target: Q 4 on Defense while moving (+2) takes
    2 off the thrown object's Attack."""
    s = session()
    s.execute("add A strength=20 combat_roll=15 learning=0 ep=100")
    s.execute("add B vp=40")
    s.execute("declare A move roll=20 faces=5,5 q_defense=4 q_speed=6")
    s.execute("step")
    s.execute("declare A throw target=B weight=1 damage=3 q_distance=4 faces=2,2,5,5,10,10")
    attack = last(s).resolution.details["attack"]["hits"][0]["attack"]
    s2 = session()
    s2.execute("add A strength=20 combat_roll=15 learning=0 ep=100")
    s2.execute("add B vp=40")
    s2.execute("step")
    s2.execute("declare A throw target=B weight=1 damage=3 q_distance=4 faces=2,2,5,5,10,10")
    assert attack == last(s2).resolution.details["attack"]["hits"][0]["attack"] - 2


def test_jump_may_start_with_move_on_the_same_segment() -> None:
    s = session()
    s.execute("add Seraph agility=22 strength=11 height=1.791 ep=74")
    s.execute("declare Seraph move roll=28 faces=5,5 q_speed=18")
    s.execute("declare Seraph jump faces=5,5 q_height=10 q_ep=14")
    r = last(s).resolution
    # roll agility + strength 33 + Square(2 x 1.791 = 3.58) 1 = 34; 10 -> Q 24, 10 to height
    assert r.details["roll"] == 34 and r.details["height_cm"] == 100
    assert r.details["air"] == 2  # Square(4 x 1 m) = row 2
    assert r.details["length_m"] == pytest.approx(2.2)  # 1.1 m/segment x 2 segments
    # The other 14 Q went to EP: row 9 - 14, free (the 5 EP is the Move Roll's row 9).
    assert ep(s, "Seraph") == 74 - 5


def test_grabbing_in_a_jump_takes_a_combat_roll() -> None:
    """Seed: "For purposes of grabbing something, characters can add up to their height to
    either the height jumped or the length jumped. A Combat Roll (close combat) is
    required to actually grab something in a jump." Seraph's Combat Roll is Sphere(2 x
    22) 14 + pool 1 (learning 12 // 10) = 15: 3+3 grabs (Q 9), 10+10 misses by 5. The
    Combat Roll costs 1 EP (row 5) beside the jump's own."""
    results = []
    for faces, grabbed in (("3,3", True), ("10,10", False)):
        s = session()
        s.execute("add Seraph agility=22 strength=11 height=1.791 learning=12 ep=74")
        s.execute("declare Seraph jump reach=true q_height=10 q_ep=14 faces=5,5")
        alone = 74 - ep(s, "Seraph")
        s.execute("abort Seraph")
        s.execute("step")
        s.execute(f"declare Seraph jump reach=true grab=true q_height=10 q_ep=14 faces=5,5,{faces}")
        r = last(s).resolution
        assert r.details["grab"]["roll"] == 15 and r.details["grab"]["success"] is grabbed
        assert ("grabs it" in r.summary) is grabbed
        results.append(74 - alone - ep(s, "Seraph"))  # the jump itself is free: 14 Q on EP, row 9 - 14
    assert results == [1, 1]


def test_sun_ruler_fire_coat_and_blast() -> None:
    s = session()
    s.execute("add Sun-Ruler agility=12 learning=10 ep=40 vp=30")
    s.execute("add Seraph agility=22 vp=43")
    s.execute("step 1")
    s.execute('declare Sun-Ruler power mode=passive pr=12 pr_effect=8 label="fire coat"')
    coat = last(s)
    assert coat.mode == "passive" and coat.pt == 10 and coat.completes == 11
    assert coat.resolution.details["ep_row"] == 5  # 4 PR left for EP: row 9 - 4
    assert ep(s, "Sun-Ruler") == 39
    assert s.encounter.combatant("Sun-Ruler").upkeep["fire coat"] == ("ep", 1)
    s.execute("step 5")
    s.execute("declare Sun-Ruler blast target=Seraph pr=12 damage=10 faces=8,9,10,10")
    blast = last(s).resolution
    assert blast.details["roll"] == 13 and blast.details["total"] == 17 and blast.success is False
    assert ep(s, "Sun-Ruler") == 39 - 5
    assert last(s).completes == 26
    # The active blast does not push the passive Fire Coat back.
    assert coat.completes == 11
    s.execute("next")
    assert s.encounter.now == 11 and coat.status == "completed"
    s.execute("next")  # 26: the blast completes and misses
    s.execute("next")  # 50: payment segment, the Fire Coat costs 1 EP a round
    assert s.encounter.now == 50 and ep(s, "Sun-Ruler") == 33


def test_passive_power_pushes_pending_actions_back() -> None:
    s = session()
    s.execute("add A agility=10")
    s.execute("add B agility=10")
    s.execute("declare A punch target=B faces=5,5,10,10")
    s.execute("step 2")
    s.execute("declare A power mode=passive pr=6")
    assert s.encounter.actions[0].completes == 16


def test_hold_breath_vacuum_penalty_8() -> None:
    s = session()
    s.execute("add Diver constitution=12 strength=10 dp=15 ep=40")
    s.execute("step 34")
    s.execute("declare Diver hold-breath air_gone=36 faces=5,5")
    r = last(s).resolution
    assert r.details["vacuum_penalty"] == 8
    # 12 + 5 = 17, pool DP 15 -> +10 = 27, less 8 = 19; rolled 10 -> Q 9, row 0: free.
    assert r.details["roll"] == 19 and r.margin == 9 and r.details["ep_per_round"] == 0


def test_hold_breath_q_minus_one_is_row_10_six_ep_a_round() -> None:
    s = session()
    s.execute("add Diver constitution=4 strength=0 dp=1 ep=40")
    s.execute("declare Diver hold-breath faces=3,3")  # 6 vs 5: Q -1
    r = last(s).resolution
    assert r.margin == -1 and r.details["ep_row"] == 10 and r.details["ep_per_round"] == 6
    c = s.encounter.combatant("Diver")
    assert c.upkeep["holding breath"] == ("ep", 6)
    assert c.upkeep["holding breath: head"] == ("dp", 1)  # 1 DP per 5 EP in a round
    s.execute("step")
    s.execute("declare Diver hold-breath faces=3,2 elapsed=3")  # Q 0 - Sphere(3) = -3
    assert last(s).resolution.details["ep_row"] == 12


def test_extra_effort_strength_17_up_8_drops_to_9() -> None:
    s = session()
    s.execute("add Hero strength=17")
    s.execute("declare Hero ability ability=strength effort=8 faces=10,10")
    r = last(s).resolution
    assert r.details["roll"] == 25 and r.margin == 5
    assert s.encounter.combatant("Hero").stats["strength"] == 9
    s.execute("abort Hero")
    s.execute("step")
    with pytest.raises(TrackerError, match="below 0"):
        s.execute("declare Hero ability ability=strength effort=10 faces=10,10")


def test_ability_calm_assumes_seven() -> None:
    s = session()
    s.execute("add Hero agility=12")
    s.execute("declare Hero ability ability=agility calm=true")
    r = last(s).resolution
    assert r.dice == () and r.margin == 5


def test_discernment_half_newoen_pt_6_no_ep() -> None:
    s = session()
    s.execute("add Sage newoen=21 ep=10")
    s.execute("declare Sage discernment faces=4,5")
    r = last(s)
    assert r.pt == 6 and r.resolution.details["roll"] == 10 and r.resolution.success
    assert ep(s, "Sage") == 10


def test_lift_overhead_and_failure_costs_one_ep() -> None:
    s = session()
    s.execute("add Strong strength=20 mass=100 ep=20")
    # 20 - 9 + Sphere(100) 17 = 28; 50 kg overhead counts 100 -> needs Q 17
    s.execute("declare Strong lift weight=50 overhead=true faces=4,4")  # Q 20: 3 over -> EP row 6
    r = last(s).resolution
    assert r.details["needed"] == 17 and r.margin == 3 and r.success and ep(s, "Strong") == 18
    s.execute("next")
    s.execute("declare Strong lift weight=1000 faces=4,4")  # needs 24 > Q 20
    assert last(s).resolution.success is False and ep(s, "Strong") == 17


def test_push_doubles_time_per_point_missed_and_friction_20_is_impossible() -> None:
    s = session()
    s.execute("add Strong strength=20 mass=100 ep=50")
    s.execute("declare Strong lift push=true friction=5 weight=1000 faces=4,4")  # 28 - 5 = 23; Q 15 vs 25: missed 10
    act = last(s)
    assert act.resolution.success and act.pt == 10 * 2 ** 10
    s.execute("abort Strong")
    s.execute("step")
    s.execute("declare Strong lift push=true friction=20 weight=10 faces=2,2")
    assert last(s).resolution.success is False


def test_throw_distance_and_failure() -> None:
    s = session()
    s.execute("add Thrower strength=15 mass=70 height=1.8 ep=30")
    # 15 - 9 = 6 + Sphere(70) 15 = 21; a 5 kg rock needs Q Sphere(5) = 5.
    s.execute("declare Thrower throw weight=5 faces=3,3 q_distance=9")  # Q 15: 10 over
    r = last(s).resolution
    # 9 asked for distance, the unplaced 1 joins it: row 10 of the Result column reads
    # 14 on the Sphere column: 14 m, at 14 m/segment.
    assert r.margin == 10 and r.details["distance"] == 14 and r.details["speed"] == 14
    assert last(s).pt == 15 and ep(s, "Thrower") == 25  # row 9: 5 EP
    s.execute("abort Thrower")
    s.execute("step")
    s.execute("declare Thrower throw weight=5 faces=10,10")  # 20 vs 21: Q 1, 4 short of 5
    r = last(s).resolution
    # A failed throw: 5 EP, and row -4 of the Result column reads .24 on the Sphere column.
    assert r.success is False and r.details["distance"] == 0.24 and ep(s, "Thrower") == 20



def test_skill_more_time_and_hurry() -> None:
    s = session()
    s.execute("add Tech")
    s.execute("declare Tech skill roll=10 level=2 more_time=2 pt=10 faces=5,5")
    act = last(s)
    assert act.resolution.details["roll"] == 14 and act.pt == 40
    s.execute("abort Tech")
    s.execute("step")
    with pytest.raises(TrackerError, match="Skill Level"):
        s.execute("declare Tech skill roll=10 level=1 more_time=2 faces=5,5")
    s.execute("declare Tech skill roll=10 hurry=2 pt=10 faces=2,2")
    act = last(s)
    assert act.resolution.details["roll"] == 6 and act.pt == 2


def test_knowledge_d100_no_reroll() -> None:
    s = session()
    s.execute("add Prof")
    s.execute("declare Prof knowledge score=75 faces=5,10")  # 50
    r = last(s).resolution
    assert r.details["total"] == 50 and r.margin == 25
    s.execute("abort Prof")
    s.execute("step")
    s.execute("declare Prof knowledge score=90 multiplier=0.5 faces=4,10")  # 40 vs 45
    assert last(s).resolution.margin == 5
    s.execute("abort Prof")
    s.execute("step")
    s.execute("declare Prof knowledge score=10 faces=10,1")  # 01: a 1 is not rerolled
    assert last(s).resolution.details["total"] == 1


def test_arm_wrestling() -> None:
    s = session()
    s.execute("add A strength=15 mass=20 ep=20")
    s.execute("add B strength=12 mass=20 ep=20")
    # A: 15 - 9 + Sphere(20) 11 = 17; B: 14. A rolls 5 (Q 12), B rolls 14 (Q 0):
    # both succeed; A's 12 Q cut B's by 6, to -6: B loses.
    s.execute("declare A arm-wrestle target=B faces=2,3,7,7")
    r = last(s).resolution
    assert r.details["winner"] == "A" and r.success
    s.execute("abort A")
    s.execute("step")
    s.execute("declare A arm-wrestle target=B faces=10,10,10,10")
    assert last(s).resolution.details["winner"] == ""
    assert last(s).resolution.success is False
    # Both succeeding used 5 EP each (no Q put on EP); both failing uses 5 EP each.
    assert ep(s, "A") == 20 - 5 - 5 and ep(s, "B") == 20 - 5 - 5


def test_heal_round_and_hour() -> None:
    s = session()
    s.execute("add Patient constitution=14 dp=8 vp=30 ep=30")
    s.execute("damage Patient 10")
    s.execute("damage Patient 3 resource=dp")
    # Sphere(14) = 10; pool DP 5 -> +5; 15: VP +8, EP +7 (EP is full)
    s.execute("declare Patient heal period=round")
    act = last(s)
    assert act.pt == 50 and act.resolution.details["vp"] == 8
    s.execute("next")
    assert s.encounter.combatant("Patient").resources["vp"] == 28
    s.execute("declare Patient heal period=hour faces=3,3")  # Q 9: DP +3 (to 8), then nothing else
    s.execute("next")
    assert s.encounter.combatant("Patient").resources["dp"] == 8


def test_extra_effort_points_return_for_every_ability_with_the_healing_roll() -> None:
    """Seed: "The ability that was increased is immediately decreased by the same amount
    it was increased ... These lost ability points return per hour when resting";
    "Mental Healing Roll Q is automatically applied to healing EP (Astral Form),
    charisma, and learning". Sight 12 raised by 5 drops to 7; normal charisma 10 raised
    by 4 drops to 6. An hour's physical Healing Roll: Sphere(constitution 10) 9 +
    Sphere(pool = DP 15) 10 = 19, rolled 3+3: Q 13, nothing else to heal, so sight +5
    (back to 12). A mental one: pool 15 + newoen 10 // 4 = 17, Sphere 10: 19 again, Q 13:
    normal charisma +4 (back to 10)."""
    s = session()
    for line in ("add Patient sight=12 ep=30", "declare Patient ability ability=sight effort=5 faces=5,5", "next",
                 "declare Patient ability ability=normal_charisma effort=4 faces=5,5", "next"):
        s.execute(line)
    me = s.encounter.combatant("Patient")
    assert (me.stats["sight"], me.stats["normal_charisma"]) == (7, 6)
    s.execute("declare Patient heal period=hour faces=3,3")
    s.execute("next")
    assert last(s).resolution.details["roll"] == 19
    assert (me.stats["sight"], me.stats["normal_charisma"]) == (12, 6)
    s.execute("declare Patient heal period=hour mental=true faces=3,3")
    s.execute("next")
    me = s.encounter.combatant("Patient")
    assert (me.stats["sight"], me.stats["normal_charisma"]) == (12, 10)


def test_healing_tells_bludgeoning_penetrating_and_injury_dp_apart() -> None:
    """Seed: "The Healing Roll is made each hour (for Bludgeoning DP, ...). It is made
    each day (for Penetrating Damage), and each month, for Injury Damage." Victim takes
    9 penetrating DP (Hitter's Hand Damage Doubles(10) 4 + 20 // 4) and 5 bludgeoning DP
    by hand: 26 of 40 left. Healing Roll Sphere(constitution 10) 9 + Sphere(pool = DP 26)
    12 = 21, rolled 3+3: Q 15. By the hour only the 5 bludgeoning DP heal (31); by the
    day the 9 penetrating (40); injury DP wait for the month."""
    s = session()
    s.execute("add Hitter agility=22 mass=100 strength=20 ep=50")
    s.execute("add Victim mass=60 vp=1 dp=40 ep=30")
    s.execute("declare Hitter punch target=Victim to=dp penetrating=true throwback=false faces=5,5")
    s.execute("next")
    s.execute("damage Victim 5 resource=dp")
    victim = s.encounter.combatant("Victim")
    assert (victim.resources["dp"], victim.resources["penetrating_dp"]) == (26, 9)
    s.execute("declare Victim heal period=hour faces=3,3")
    assert last(s).resolution.details["roll"] == 21
    s.execute("next")
    assert s.encounter.combatant("Victim").resources["dp"] == 31
    s.execute("declare Victim heal period=day faces=3,3")
    s.execute("next")
    victim = s.encounter.combatant("Victim")
    assert (victim.resources["dp"], victim.resources["penetrating_dp"]) == (40, 0)
    # Injury DP: an hour and a day heal none of it; a month does.
    s.execute("declare Hitter punch target=Victim to=dp injury=true throwback=false faces=5,5")
    s.execute("step 15")
    for period, dp in (("hour", 31), ("day", 31), ("month", 40)):
        s.execute(f"declare Victim heal period={period} faces=3,3")
        s.execute("next")
        assert s.encounter.combatant("Victim").resources["dp"] == dp, period


def test_unknown_action_and_bad_param_are_named() -> None:
    s = session()
    s.execute("add A")
    with pytest.raises(TrackerError, match="no action"):
        s.execute("declare A fly")
    with pytest.raises(TrackerError, match="q_attack"):
        s.execute("declare A punch target=A q_attack=lots")
