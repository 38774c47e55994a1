"""Brand X's movement module (rulesets/brandx/movement.py) read directly: the Move Roll,
its speed, its slowing, its misses and its per-round EP, and the Jump Roll with its
height, time in the air, length, low density and grab. Numbers are worked by hand from
the seed (004) and the module's docstring; chart readings (the largest entry <= the
value gives the row, rulesets/brandx/tables.toml):

- Square entries 1, 4, 9, 16, 25 are rows 1-5; its fractional row -3 reads .11.
- Sphere rows 1-8 read 1-8, then 10 (row 9), 14, 18, 24, 32, 43, 57, 75, 100 (row 17);
  a negative value reads the mirror (-16 -> -10); its fractional rows read .75 (row 0),
  .56, .42, .32, .24 (row -4).
- The Result column reads n on row n >= 1, and .9 (row 0), .7, .5, .33, .25 (row -4).
- EP rows: row r >= 5 costs r - 4 EP (row 9: 5, row 10: 6); row 3 one EP per 10 uses,
  paid on the first; a row <= 0 is free. Movement, jump, lift and throw start on row 9.
"""

from __future__ import annotations

from typing import Any


import pytest

from tests.helpers import brandx_session, last_resolution




def ep(s: Any, name: str) -> float:
    return s.encounter.combatant(name).resources["ep"]


# ---------------------------------------------------------------------- jump: grab
def test_a_grab_in_a_jump_rolls_the_combat_roll_not_the_jump_roll_stated() -> None:
    """Seed: "Combat Roll: Look up twice Agility on the Sphere Chart for the character's
    Combat Roll." and "A Combat Roll (close combat) is required to actually grab
    something in a jump." The jump's `roll=` states the Jump Roll (agility + strength,
    33 for Seraph); the grab's Combat Roll is still Sphere(2 x 22 = 44) = row 14, plus
    the pool learning 12 // 10 = 1 on the Sphere chart (1): 15. Dice 3+3 = 6: Q 9."""
    s = brandx_session("add Seraph agility=22 strength=11 height=1.791 learning=12 ep=74")
    s.execute("declare Seraph jump roll=33 grab=true q_height=10 q_ep=14 faces=5,5,3,3")
    res = last_resolution(s)
    assert res.details["roll"] == 34  # 33 + Square(2 x 1.791 = 3.58) row 1
    assert res.details["grab"] == {"roll": 15, "total": 6, "q": 9, "success": True}
    assert "grab: Combat Roll 14 (Sphere of 2 x agility 22) + pool = 15; rolled 3+3 = 6: grabs it" in res.summary


def test_a_grab_that_misses_has_no_grip_and_still_pays_the_combat_roll() -> None:
    """The same grab rolling 10+10 = 20 against 15 misses by 5. Seed: "The Combat Roll
    costs 1 EP (it starts at Row 5)"; the jump's own 14 Q on EP put it on row 9 - 14 = -5,
    free. The summary names both uses and the reach (seed: "characters can add up to
    their height to either the height jumped or the length jumped")."""
    s = brandx_session("add Seraph agility=22 strength=11 height=1.791 learning=12 ep=74")
    s.execute("declare Seraph jump reach=true grab=true q_height=10 q_ep=14 faces=5,5,10,10")
    res = last_resolution(s)
    assert res.dice == (5, 5, 10, 10)
    assert res.details["grab"] == {"roll": 15, "total": 20, "q": -5, "success": False}
    assert res.details["ep_uses"] == [{"what": "jump", "row": -5, "paid": 0},
                                      {"what": "grab: combat roll", "row": 5, "paid": 1}]
    assert res.summary == (
        "agility + strength 33 + Square(2 x height) 1 = 34; rolled 5+5 = 10: Q 24: 14 to EP, 10 to height; "
        "height 100 cm, 2 segments in the air, 0 m at 0 m/segment; PT 6; "
        "1 EP (jump row -5: 0, grab: combat roll row 5: 1); "
        "grab: Combat Roll 14 (Sphere of 2 x agility 22) + pool = 15; rolled 10+10 = 20: missed by 5: no grip; "
        "reaching: up to +1.791 m to height or length")
    assert ep(s, "Seraph") == 73


# ---------------------------------------------------------------------- the Move Roll
def test_the_move_roll_is_agility_plus_half_strength_rounded_up_plus_square_of_height() -> None:
    """Seed: "The Move roll is vs. Agility plus half Strength (round up), plus the
    character's Height on the Square Chart." By hand: agility 10 + 11 / 2 = 5.5 rounded
    up to 6 + Square(1.75) row 1 = 17; a height of 4 m is Square row 2 (entry 4): 18.
    Dice 3+3 = 6: Q 11, none placed, so all to speed (the module's docstring); speed Q 11
    is Sphere row 9 (10 <= 11 < 14): 9 dm/segment, .9 m/segment, and (seed: "Each .1
    meter/segment is equal to 5 meters per round") 45 m a round. EP: row 9, 5 EP now
    and every round (seed: "EP cost for movement (at the end of each round) is always
    the cost of the last Move Roll"). "Movement is passive with a Performance Time of 6." """
    s = brandx_session("add Runner agility=10 strength=11 ep=50", "add Tall agility=10 strength=11 height=4 ep=50")
    s.execute("declare Runner move faces=3,3")
    act = s.encounter.actions[-1]
    res = act.resolution
    assert act.mode == "passive" and act.pt == 6 and res.pt == 6
    assert res.success is True and res.margin == 11 and res.dice == (3, 3)
    assert res.summary == (
        "Move Roll 17 (agility 10 + strength/2 6 + Square(height 1.75) 1) = 17; rolled 3+3 = 6: Q 11: 11 to speed; "
        "speed Q 11: 9 dm/segment (0.9 m/segment, 45 m/round); EP row 9: 5 EP (movement row 9: 5) now, 5 EP a round; PT 6")
    d = res.details
    assert (d["q"], d["roll"], d["total"], d["base"], d["pool"]) == (11, 17, 6, 17, 0)
    assert (d["speed_q"], d["speed_dm"], d["speed_m"]) == (11, 9, 0.9)
    assert (d["ep_row"], d["ep_per_round"], d["ep_extra_rows"]) == (9, 5, 0)
    assert (d["move_defense"], d["turn"], d["stopped"]) == (0, 0, False)
    assert d["ep_uses"] == [{"what": "movement", "row": 9, "paid": 5}]
    assert "saved_pool" not in d
    assert ep(s, "Runner") == 45
    assert s.encounter.combatant("Runner").upkeep["movement"] == ("ep", 5)
    s.execute("declare Tall move faces=3,3")
    assert last_resolution(s).details["base"] == 18
    assert last_resolution(s).summary.startswith("Move Roll 18 (agility 10 + strength/2 6 + Square(height 4) 2) = 18;")


def test_a_move_roll_on_the_sheet_or_stated_is_used_as_it_is() -> None:
    """`move_roll` on the sheet overrides the derived Move Roll (the sheet's help), and a
    stated `roll=` overrides both. By hand: Move Roll 20, dice 2+2: Q 16; stated 25: Q 21."""
    s = brandx_session("add Runner move_roll=20 agility=30 ep=50", "add Other move_roll=20 ep=50")
    s.execute("declare Runner move faces=2,2")
    res = last_resolution(s)
    assert res.details["base"] == 20 and res.margin == 16
    assert res.summary.startswith("Move Roll 20 = 20; rolled 2+2 = 4: Q 16: 16 to speed; speed Q 16: 10 dm/segment")
    s.execute("declare Other move roll=25 faces=2,2")
    res = last_resolution(s)
    assert res.details["base"] == 25 and res.margin == 21
    assert res.summary.startswith("Move Roll 25 = 25; rolled 2+2 = 4: Q 21: 21 to speed; speed Q 21: 11 dm/segment")


def test_speed_q_0_is_nine_tenths_of_a_decimetre_a_segment() -> None:
    """Seed: "The character's current speed is the total Q so far applied to speed, on
    the Sphere Chart (a Q of 0 and 1 are practically the same--.9 vs. 1)." By hand: Move
    Roll 12, dice 6+6 = 12: Q 0, nothing to spend, speed Q 0: .9 dm/segment, .09
    m/segment, 4.5 m a round. Q 1 (dice 6+5): speed Q 1 on the Sphere chart is row 1: 1
    dm/segment."""
    s = brandx_session("add Runner ep=50", "add Other ep=50")
    s.execute("declare Runner move roll=12 faces=6,6")
    res = last_resolution(s)
    assert res.success is True and res.details["speed_q"] == 0 and res.details["speed_dm"] == 0.9
    assert "; rolled 6+6 = 12: Q 0: nothing spent; speed Q 0: 0.9 dm/segment (0.09 m/segment, 4.5 m/round);" in res.summary
    s.execute("declare Other move roll=12 faces=6,5")
    assert last_resolution(s).details["speed_dm"] == 1
    assert "speed Q 1: 1 dm/segment (0.1 m/segment, 5 m/round)" in last_resolution(s).summary


def test_a_miss_of_5_raises_the_row_a_miss_of_6_also_loses_speed_until_a_success() -> None:
    """Seed: "If the roll is missed by more than 5, subtract the amount the roll was
    missed by from the current movement Q total. Also, add 1 to the EP cost row for
    every 5 points the roll was missed by. This extra EP cost will last until the player
    makes a successful move roll or stops moving." And: "There is a penalty to the Move
    Roll pool equal to the total Q so far applied to speed."

    By hand, Move Roll 20: dice 2+2, Q 16 to speed (row 9, 5 EP). Next, pool -16 reads
    -10 on the Sphere chart: 10. Dice 8+7 = 15 misses by 5: speed Q stays 16, row 9 + 1 =
    10 (6 EP). Dice 8+8 = 16 misses by 6: speed Q 16 - 6 = 10, row 9 + 2 = 11 (7 EP).
    With speed Q 10 the pool -10 reads -9: 11; dice 7+7 = 14 misses by 3: nothing lost,
    the extra row stays (11, 7 EP). Dice 2+2: Q 7, 2 to EP and 5 to speed: speed Q 15,
    and the extra rows end: row 9 - 2 = 7, 3 EP. EP paid 5 + 6 + 7 + 7 + 3 = 28."""
    s = brandx_session("add Runner ep=100")
    s.execute("declare Runner move roll=20 faces=2,2")
    s.execute("next")
    s.execute("declare Runner move roll=20 faces=8,7")
    res = last_resolution(s)
    assert res.success is False and res.margin == -5
    assert res.summary == (
        "Move Roll 20 + pool -16 (-10) = 10 (pool -16 for speed Q already applied); rolled 8+7 = 15: "
        "missed by 5, EP row +1 until a successful Move Roll; speed Q 16: 10 dm/segment (1 m/segment, 50 m/round); "
        "EP row 10: 6 EP (movement row 10: 6) now, 6 EP a round; PT 6")
    assert (res.details["speed_q"], res.details["ep_extra_rows"], res.details["ep_row"]) == (16, 1, 10)
    s.execute("next")
    s.execute("declare Runner move roll=20 faces=8,8")
    res = last_resolution(s)
    assert (res.details["speed_q"], res.details["ep_extra_rows"], res.details["ep_row"]) == (10, 2, 11)
    assert ("rolled 8+8 = 16: missed by 6: speed Q -6, EP row +1 until a successful Move Roll; "
            "speed Q 10: 9 dm/segment (0.9 m/segment, 45 m/round); EP row 11: 7 EP (movement row 11: 7) now, 7 EP a round") in res.summary
    s.execute("next")
    s.execute("declare Runner move roll=20 faces=7,7")
    res = last_resolution(s)
    assert res.details["roll"] == 11 and res.margin == -3
    assert (res.details["speed_q"], res.details["ep_extra_rows"], res.details["ep_row"]) == (10, 2, 11)
    assert "rolled 7+7 = 14: missed by 3; speed Q 10:" in res.summary
    s.execute("next")
    s.execute("declare Runner move roll=20 q_ep=2 faces=2,2")
    res = last_resolution(s)
    assert res.margin == 7 and "Q 7: 2 to EP, 5 to speed; speed Q 15: 10 dm/segment" in res.summary
    assert (res.details["speed_q"], res.details["ep_extra_rows"], res.details["ep_row"]) == (15, 0, 7)
    assert ep(s, "Runner") == 100 - 28
    assert s.encounter.combatant("Runner").upkeep["movement"] == ("ep", 3)


def test_slowing_is_up_to_sphere_of_the_speed_q_less_half_a_failure() -> None:
    """Seed: "When attempting to decrease speed, the character can automatically decrease
    the movement Q total by the current movement Q, on the Sphere Chart. A Move Roll is
    required, however, and if the Move Roll is failed, reduce the decrease by half the
    failure."

    By hand, speed Q 16 (Sphere row 10), Move Roll 20 less 10 for the pool: 10.
    - slow=8, dice 7+7 = 14, missed by 4: the decrease is 8 - 2 = 6: speed Q 10.
    - slow=4, dice 10+10 = 20, missed by 10: 4 - 5 is no decrease (0), and the miss of
      more than 5 takes 10: speed Q 6; two extra rows: 11.
    - slow=12 is cut to Sphere(16) = 10; dice 2+2 = 4: Q 6, all to EP: speed Q 16 - 10
      = 6, 6 dm/segment; row 9 - 6 = 3: 1 EP on its first use, .1 EP a round."""
    start = ("add Runner ep=100", "declare Runner move roll=20 faces=2,2", "next")
    s = brandx_session(*start)
    s.execute("declare Runner move roll=20 slow=8 faces=7,7")
    assert last_resolution(s).margin == -4 and last_resolution(s).details["speed_q"] == 10
    assert "rolled 7+7 = 14: missed by 4; speed Q 10: 9 dm/segment" in last_resolution(s).summary
    s = brandx_session(*start)
    s.execute("declare Runner move roll=20 slow=4 faces=10,10")
    assert last_resolution(s).details["speed_q"] == 6 and last_resolution(s).details["ep_row"] == 11
    s = brandx_session(*start)
    s.execute("declare Runner move roll=20 slow=12 q_ep=6 faces=2,2")
    res = last_resolution(s)
    assert res.details["speed_q"] == 6 and res.details["ep_per_round"] == 0.1
    assert res.summary.endswith(
        "rolled 2+2 = 4: Q 6: 6 to EP; speed Q 6: 6 dm/segment (0.6 m/segment, 30 m/round); "
        "EP row 3: 1 EP (movement row 3: 1) now, 0.1 EP a round; PT 6; slowing cut from 12 to 10 (Sphere of speed Q 16)")


def test_negative_speed_q_only_when_the_table_allows_it_and_then_a_bonus() -> None:
    """Seed: "If negative Q is allowed for movement (using the fractional results on the
    Sphere Chart), this does count as a bonus." (the table setting
    `negative_movement`, off by default).

    By hand: Move Roll 20, dice 2+2, Q 16 all to EP: speed Q 0. Move Roll 10, dice 8+8
    = 16: missed by 6, speed Q 0 - 6 = -6. Off, it stays at 0 (.9 dm/segment). On, speed
    Q -6 is Sphere row -6, whose Result value is .17: .17 dm/segment, .017 m/segment,
    .85 m a round. The next Move Roll has a pool of +6 (a bonus, Sphere 6): 10 + 6 = 16,
    with no penalty named; slowing by 2 is cut to nothing (Sphere of a negative speed Q
    gives no decrease)."""
    lines = ("add Runner ep=100", "declare Runner move roll=20 q_ep=16 faces=2,2", "next",
             "declare Runner move roll=10 faces=8,8")
    off = brandx_session(*lines)
    assert last_resolution(off).details["speed_q"] == 0 and last_resolution(off).details["speed_dm"] == 0.9
    on = brandx_session(*lines, negative_movement=True)
    res = last_resolution(on)
    assert res.details["speed_q"] == -6 and res.details["speed_dm"] == 0.17
    assert "speed Q -6: 0.17 dm/segment (0.017 m/segment, 0.85 m/round)" in res.summary
    on.execute("next")
    on.execute("declare Runner move roll=10 slow=2 faces=5,5")
    res = last_resolution(on)
    assert res.details["pool"] == 6 and res.details["roll"] == 16 and res.details["speed_q"] == 0
    assert res.summary.startswith("Move Roll 10 + pool 6 (+6) = 16; rolled 5+5 = 10: Q 6: 6 to speed;")
    assert res.summary.endswith("; slowing cut from 2 to 0 (Sphere of speed Q -6)")


def test_stopping_ends_the_speed_and_the_cost_a_round_but_pays_the_roll() -> None:
    """The module's docstring: "`stop=true` ends the movement and its per-round EP"; seed:
    "This extra EP cost will last until the player makes a successful move roll or stops
    moving." Moving nowhere yet, it says only that it stops. By hand: Move Roll 20, dice
    2+2: Q 16; speed 0; the roll's own row 9: 5 EP; nothing a round."""
    s = brandx_session("add Runner ep=50")
    s.execute("declare Runner move roll=20 stop=true faces=2,2")
    res = last_resolution(s)
    assert res.summary == ("Move Roll 20 = 20; rolled 2+2 = 4: Q 16: 16 to speed; stops; "
                           "EP row 9: 5 EP (movement row 9: 5) now, 0 EP a round; PT 6")
    d = res.details
    assert (d["speed_q"], d["speed_dm"], d["speed_m"], d["ep_per_round"], d["stopped"]) == (0, 0, 0, 0, True)
    assert ep(s, "Runner") == 45


def test_q_on_turning_defense_and_saving() -> None:
    """Seed: "In order to turn, the character must use 1 Q point per 45 degree turn."; "A
    vehicle's maneuverability is simply the number of degrees the vehicle will turn
    using one Q point."; "Movement Q can also be applied to Defense, with 2 points of Q
    adding 1 point to Defense (against all enemies). In this case, the same amount that
    is added to Defense is subtracted from Attack". Saving Quality (common.py's
    docstring): N // 2 of `q_save=N` joins the next Move Roll's pool if it starts as
    this one completes.

    By hand: Move Roll 20, dice 2+2: Q 16: 2 to turning (90 degrees; 20 for a vehicle
    of maneuverability 10), 5 to Defense (+2), 5 saved (+2), the 4 left to speed (Sphere
    4: 4 dm/segment). Six segments later: pool -4 + 2 = -2 (Sphere -2): 18."""
    s = brandx_session("add Runner ep=50", "add Car ep=50")
    s.execute("declare Runner move roll=20 q_turn=2 q_defense=5 q_save=5 faces=2,2")
    res = last_resolution(s)
    assert (res.details["turn"], res.details["move_defense"], res.details["saved_pool"], res.details["speed_q"]) == (90, 2, 2, 4)
    assert res.summary == (
        "Move Roll 20 = 20; rolled 2+2 = 4: Q 16: 2 to turning, 5 to Defense, 5 to saved, 4 to speed; "
        "speed Q 4: 4 dm/segment (0.4 m/segment, 20 m/round); EP row 9: 5 EP (movement row 9: 5) now, 5 EP a round; "
        "PT 6; turns up to 90 degrees; Defense +2 against all, Attack -2, until the next Move Roll")
    s.execute("declare Car move roll=20 q_turn=2 maneuverability=10 faces=2,2")
    assert last_resolution(s).details["turn"] == 20 and "turns up to 20 degrees" in last_resolution(s).summary
    s.execute("step 6")
    s.execute("declare Runner move roll=20 faces=5,5")
    res = last_resolution(s)
    assert res.details["pool"] == -2 and res.details["roll"] == 18
    assert "saved Q +2 pool" in res.summary


# ---------------------------------------------------------------------- jump
def test_a_failed_jump_still_jumps_but_not_as_high() -> None:
    """Seed: "On a failure, the character still jumps, but not as high." The negative Q
    is read on the Result column to the Square chart as a positive one is; design.md's
    rules decisions: "negative Q raises" the EP row. By hand: roll 10 + Square(2 x 1.75
    = 3.5) row 1 = 11; dice 8+6 = 14: missed by 3. Square row -3 reads .11 cm; four
    times .0011 m is below every Square entry of row 1 or more: 0 segments in the air,
    so 0 m. Row 9 + 3 = 12: 8 EP."""
    s = brandx_session("add Jumper ep=100")
    s.execute("declare Jumper jump roll=10 faces=8,6")
    act = s.encounter.actions[-1]
    res = act.resolution
    assert act.mode == "passive" and act.pt == 6
    assert res.success is False and res.margin == -3
    assert res.summary == ("agility + strength 10 + Square(2 x height) 1 = 11; rolled 8+6 = 14: missed by 3: "
                           "jumps, but not as high; height 0.11 cm, 0 segments in the air, 0 m at 0 m/segment; PT 6; "
                           "8 EP (jump row 12: 8)")
    assert (res.details["height_cm"], res.details["air"], res.details["length_m"]) == (0.11, 0, 0)
    assert ep(s, "Jumper") == 92


def test_the_jump_roll_height_air_and_length_at_a_stated_speed() -> None:
    """Seed: "The Jump Roll is vs. agility plus strength. There is a bonus equal to twice
    height (on the Square Chart)."; "The amount of time (in segments) the character is in
    the air is found by looking up four times the height jumped (in meters) on the
    Square Chart."; "Take the character's speed in meters/segment and multiply by the
    number of segments the character was in the air for the horizontal jump distance."

    By hand: 10 + 10 = 20, + Square(2 x 1.75 = 3.5) row 1 = 21; dice 5+5: Q 11, 1 to EP
    (row 8: 4 EP), 10 to height: Square row 10, 100 cm; 4 x 1 m = 4 is Square row 2: 2
    segments; at 2 m/segment, 4 m. A height of 2 m: 2 x 2 = 4, Square row 2: 22; dice
    2+2: Q 18, 4 to EP, 14 to height: 196 cm; 4 x 1.96 = 7.84 is Square row 2 (4 <=
    7.84 < 9): 2 segments; at 1.5 m/segment, 3 m."""
    s = brandx_session("add Jumper ep=100", "add Tall height=2 ep=100")
    s.execute("declare Jumper jump speed=2 q_ep=1 faces=5,5")
    res = last_resolution(s)
    assert res.summary == ("agility + strength 20 + Square(2 x height) 1 = 21; rolled 5+5 = 10: Q 11: 1 to EP, 10 to height; "
                           "height 100 cm, 2 segments in the air, 4 m at 2 m/segment; PT 6; 4 EP (jump row 8: 4)")
    assert (res.details["height_cm"], res.details["air"], res.details["length_m"]) == (100, 2, 4)
    assert ep(s, "Jumper") == 96
    s.execute("declare Tall jump speed=1.5 q_ep=4 faces=2,2")
    res = last_resolution(s)
    assert res.details["roll"] == 22 and res.details["height_cm"] == 196
    assert res.details["air"] == 2 and res.details["length_m"] == 3


def test_a_jump_with_no_speed_stated_runs_at_the_last_move_rolls() -> None:
    """Seed: "The distance a character jumps horizontally depends on speed at the time of
    jumping". With no move it is 0; after a Move Roll of speed Q 16 (10 dm/segment, 1
    m/segment) a jump of 2 segments in the air goes 2 m."""
    s = brandx_session("add Jumper ep=100")
    s.execute("declare Jumper jump q_ep=1 faces=5,5")
    assert last_resolution(s).details["length_m"] == 0
    s.execute("next")
    s.execute("declare Jumper move roll=20 faces=2,2")
    s.execute("declare Jumper jump q_ep=1 faces=5,5")
    res = last_resolution(s)
    assert res.details["length_m"] == 2 and "2 segments in the air, 2 m at 1 m/segment" in res.summary


def test_a_jump_of_low_density_stays_longer_in_the_air_and_goes_further() -> None:
    """Seed: "If the character's density is extremely low, multiply the time in the air
    by the atmospheric density plus the character's density, and divide by the
    character's density. Movement should be multiplied by the same amount." The
    atmosphere's density is 1.2 unless stated (the form's help).

    By hand, the jump above (2 segments, 4 m at 2 m/segment): density .6 in air 1.2:
    (1.2 + .6) / .6 = 3: 6 segments, 12 m. In air .3: (.3 + .6) / .6 = 1.5: 3 segments,
    6 m."""
    s = brandx_session("add Jumper ep=100", "add Other ep=100")
    s.execute("declare Jumper jump speed=2 density=0.6 q_ep=1 faces=5,5")
    res = last_resolution(s)
    assert res.details["air"] == 6 and res.details["length_m"] == 12
    assert res.summary.endswith("6 segments in the air, 12 m at 2 m/segment; PT 6; 4 EP (jump row 8: 4); "
                                "low density 0.6 in air 1.2: time in the air and movement x 3")
    s.execute("declare Other jump speed=2 density=0.6 air_density=0.3 q_ep=1 faces=5,5")
    res = last_resolution(s)
    assert res.details["air"] == 3 and res.details["length_m"] == 6
    assert res.summary.endswith("; low density 0.6 in air 0.3: time in the air and movement x 1.5")


def test_a_first_move_roll_missed_starts_from_no_speed_and_no_extra_row() -> None:
    """The first Move Roll has no speed Q yet (no pool penalty) and no extra EP rows. By
    hand: Move Roll 10, dice 8+6 = 14: missed by 4: no speed lost, no extra row (row 9,
    5 EP); speed Q 0 reads .9 dm/segment."""
    s = brandx_session("add Runner ep=50")
    s.execute("declare Runner move roll=10 faces=8,6")
    res = last_resolution(s)
    assert res.summary.startswith("Move Roll 10 = 10; rolled 8+6 = 14: missed by 4; speed Q 0: 0.9 dm/segment")
    assert (res.details["pool"], res.details["speed_q"], res.details["ep_extra_rows"], res.details["ep_row"]) == (0, 0, 0, 9)
    assert ep(s, "Runner") == 45


def test_slowing_by_exactly_the_sphere_of_the_speed_q_is_not_cut() -> None:
    """The seed's decrease "by the current movement Q, on the Sphere Chart": speed Q 16
    allows 10 (Sphere row 10), so slow=10 is taken whole, with no note. Dice 2+2 against
    10: Q 6 on EP; speed Q 16 - 10 = 6."""
    s = brandx_session("add Runner ep=100", "declare Runner move roll=20 faces=2,2", "next")
    s.execute("declare Runner move roll=20 slow=10 q_ep=6 faces=2,2")
    res = last_resolution(s)
    assert res.details["speed_q"] == 6 and "slowing" not in res.summary


def test_extra_effort_on_a_move_or_a_jump_raises_and_then_lowers_agility() -> None:
    """Seed: "The character can increase any ability after the roll is made, in order to
    increase the Quality and to succeed at the roll. The ability that was increased is
    immediately decreased by the same amount it was increased." Moving and jumping are
    agility's (the module passes it). By hand: Move Roll 20 + 2 = 22, dice 2+2: Q 18,
    speed Q 18: 11 dm/segment; agility 10 -> 8. Jump 20 + Square(3.5) 1 + 2 = 23."""
    s = brandx_session("add Runner ep=100", "add Jumper ep=100")
    s.execute("declare Runner move roll=20 effort=2 faces=2,2")
    res = last_resolution(s)
    assert res.details["roll"] == 22 and res.details["effort"] == 2 and res.details["speed_dm"] == 11
    assert res.summary.startswith("Move Roll 20 + Extra Effort +2 agility = 22;")
    assert s.encounter.combatant("Runner").stats["agility"] == 8
    s.execute("declare Jumper jump effort=2 q_ep=3 faces=2,2")
    assert last_resolution(s).details["roll"] == 23 and s.encounter.combatant("Jumper").stats["agility"] == 8


def test_a_jumps_length_is_rounded_to_2_digits() -> None:
    """Seed: "Always round Movement to 2 digits". By hand: 1.234 m/segment x 2 segments =
    2.468: 2.47 m; at density .6 (x 3) the rounded 2.47 x 3 = 7.41 m (the unrounded 2.468
    x 3 = 7.404 would read 7.4)."""
    s = brandx_session("add Jumper ep=100", "add Light ep=100")
    s.execute("declare Jumper jump speed=1.234 q_ep=1 faces=5,5")
    res = last_resolution(s)
    assert res.details["length_m"] == 2.47 and (res.details["q"], res.details["total"]) == (11, 10)
    assert "2 segments in the air, 2.47 m at 1.234 m/segment" in res.summary
    s.execute("declare Light jump speed=1.234 density=0.6 q_ep=1 faces=5,5")
    assert last_resolution(s).details["length_m"] == 7.41


def test_a_move_rolls_own_pool_joins_the_speed_penalty() -> None:
    """Seed: "There is a penalty to the Move Roll pool equal to the total Q so far applied
    to speed" (it joins whatever else is in the pool). By hand: pool 4 alone: Sphere 4,
    20 + 4 = 24. After speed Q 16: 4 - 16 = -12, read -9 (mirror of 10 <= 12 < 14): 11.
    After speed Q 1 (dice 6+5 against 12): the pool -1 is named as speed's."""
    s = brandx_session("add Runner ep=100")
    s.execute("declare Runner move roll=20 pool=4 faces=4,4")
    assert last_resolution(s).details["roll"] == 24 and last_resolution(s).details["speed_q"] == 16
    s.execute("next")
    s.execute("declare Runner move roll=20 pool=4 faces=5,5")
    res = last_resolution(s)
    assert (res.details["pool"], res.details["pool_bonus"], res.details["roll"]) == (-12, -9, 11)
    assert res.summary.startswith("Move Roll 20 + pool -12 (-9) = 11 (pool -16 for speed Q already applied); rolled 5+5 = 10: Q 1:")
    s = brandx_session("add Runner ep=100", "declare Runner move roll=12 faces=6,5", "next")
    s.execute("declare Runner move roll=12 faces=6,6")
    assert last_resolution(s).summary.startswith("Move Roll 12 + pool -1 (-1) = 11 (pool -1 for speed Q already applied); rolled 6+6 = 12: missed by 1;")


def test_q_asked_past_the_roll_is_cut_in_the_order_listed() -> None:
    """common.py's docstring: "asking for more Q than the roll produced is cut back in
    the order the parameters are listed" (EP, speed, turning, Defense, saved). By hand:
    Move Roll 20, dice 7+8 = 15: Q 5; 5 to speed leaves none for turning."""
    s = brandx_session("add Runner ep=100")
    s.execute("declare Runner move roll=20 q_speed=5 q_turn=2 faces=7,8")
    res = last_resolution(s)
    assert res.details["speed_q"] == 5 and res.details["turn"] == 0
    assert "Q 5: 5 to speed; speed Q 5:" in res.summary and res.summary.endswith("; PT 6; turning cut from 2 to 0")


def test_the_dice_asked_for_are_named_by_the_roll() -> None:
    """The dice prompt names the roll in the game's words (rolls.py: `label` is "the
    roll's name in the game's words"): the Move Roll, the Jump Roll, and the grab's
    Combat Roll after the Jump Roll's dice."""
    from rulesets.base import ActionRequest
    from rulesets.dice import DiceNeeded, PromptingFaces

    s = brandx_session("add A ep=100")
    game = s.ruleset

    def asked(name: str, faces: list[int], **params: Any) -> str:
        template = game.template(name)
        request = ActionRequest(template=template, actor=s.encounter.combatant("A"), params=params,
                                encounter=s.encounter, pt=template.pt)
        with pytest.raises(DiceNeeded) as needed:
            game.resolve(request, PromptingFaces(faces))
        return str(needed.value.group.label)

    assert asked("move", [], roll=20) == "Move Roll"
    assert asked("jump", []) == "Jump Roll"
    assert asked("jump", [5, 5], grab=True) == "Combat Roll to grab"


def test_a_move_and_a_jump_pay_their_ep_as_they_start_named_in_the_log() -> None:
    """An action's own EP is paid when it starts (docs/rulesets/brandx.md: "an action's
    own EP is paid when it starts"), named with its bill. By hand: a Move Roll on row 9:
    5 EP; a jump with Q 0 (roll 10 + 1 = 11, dice 6+5): nothing spent, row 9: 5 EP, and
    the height of Square row 0: .81 cm, 0 segments in the air."""
    s = brandx_session("add A ep=100")
    s.execute("declare A move roll=20 faces=2,2")
    assert "A: ep -5 (Move Roll: 5 EP (movement row 9: 5))" in [e.text for e in s.encounter.log]
    s.execute("declare A jump roll=10 faces=6,5")
    res = last_resolution(s)
    assert res.summary.endswith("rolled 6+5 = 11: Q 0: nothing spent; height 0.81 cm, 0 segments in the air, "
                                "0 m at 1 m/segment; PT 6; 5 EP (jump row 9: 5)")
    assert s.encounter.log[-1].text == "A: ep -5 (jump: 5 EP (jump row 9: 5))"


def test_a_jumps_own_pool_and_height_asked_past_the_q() -> None:
    """`pool=` is read on the Sphere chart: 21 + Sphere(4) 4 = 25. Q asked past the roll
    is cut in the order listed (common.py), EP first: Q 11 (dice 5+5 against 21), 5 to EP,
    the 10 asked for height cut to 6 (Square row 6: 36 cm)."""
    s = brandx_session("add Jumper ep=100", "add Other ep=100")
    s.execute("declare Jumper jump pool=4 faces=5,5")
    assert last_resolution(s).details["roll"] == 25
    s.execute("declare Other jump q_ep=5 q_height=10 faces=5,5")
    res = last_resolution(s)
    assert res.details["height_cm"] == 36 and res.summary.endswith("; 1 EP (jump row 4: 1); height cut from 10 to 6")


def test_a_jumps_time_in_the_air_at_low_density_rounds_half_up_to_a_segment() -> None:
    """The seed's multiplication of the time in the air, rounded to whole segments half
    up (the module's own rounding), and the movement to 2 digits ("Always round Movement
    to 2 digits"). By hand, the 2-segment jump at 1.234 m/segment (2.47 m): density .8
    in air .2: x 1.25: 2.5 segments, 3; 2.47 x 1.25 = 3.0875 m, 3.09. A jump of 3
    segments (16 Q to height: Square row 16, 256 cm; 4 x 2.56 = 10.24 is Square row 3)
    at density 1 in air .49995: x 1.49995: 4.49985 segments, 4 (not 4.5 read loosely)."""
    s = brandx_session("add Jumper ep=100", "add Other ep=100")
    s.execute("declare Jumper jump speed=1.234 density=0.8 air_density=0.2 q_ep=1 faces=5,5")
    assert (last_resolution(s).details["air"], last_resolution(s).details["length_m"]) == (3, 3.09)
    # 21, dice 2+2: Q 17, 1 to EP, 16 to height.
    s.execute("declare Other jump speed=1 density=1 air_density=0.49995 q_ep=1 q_height=16 faces=2,2")
    res = last_resolution(s)
    assert res.details["height_cm"] == 256 and res.details["air"] == 4
