"""Brand X (seed 004): the seed's sentences, quoted, with numbers worked by hand from the
sentence and the Action Chart (reference/brandx.md, section 2.1). The seed's long worked
examples (Seraph's movement, Sun-Ruler's blast, the worked combat) are in
tests/test_brandx_actions.py and tests/test_brandx_combat.py, number for number.

Chart readings used below (largest entry <= the number, read across to the Result row):
Sphere 1-8 -> rows 1-8; 10 -> 9; 12 -> 9; 24, 30 -> 12; 70 -> 15; 100 -> 17; 237 -> 20;
316 -> 21; 421 -> 22. Row -3 on the Sphere column is the fraction .32.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from tests.helpers import brandx_session
from tracker.engine.errors import TrackerError



def test_brandx_lift_by_a_power_takes_20_segments_and_reads_distance() -> None:
    """Seed: "For powers, the Performance Time is 20 segments. For powers that can lift
    at a distance, look up the distance to the object, in meters, on the Sphere Chart
    for the Q required for distance."

    By hand: 100 kg on the Sphere chart is row 17 (entry 100); 10 m is row 9 (the
    largest entry <= 10 is 10, row 9). Q needed 17 + 9 = 26. Roll 30, dice 5+5 = 10:
    Q 20, short by 6 (without the distance it would lift, 3 over)."""
    s = brandx_session("add A ep=100")
    s.execute("declare A lift power=true roll=30 weight=100 distance=10 faces=5,5")
    res = s.encounter.actions[-1].resolution
    assert res.pt == 20 and res.details["q"] == 20 and res.details["needed"] == 17 + 9
    assert res.success is False and res.margin == -6
    s.execute("step 25")
    # 30 m is row 12 (entry 24): 17 + 12 = 29 needed; dice 1+1 then rerolls 1, 1 -> 0: Q 30, 1 over.
    s.execute("declare A lift power=true roll=30 weight=100 distance=30 faces=1,1,1,1")
    res = s.encounter.actions[-1].resolution
    assert res.details["needed"] == 29 and res.success is True and res.margin == 1
    s.execute("step 25")
    with pytest.raises(TrackerError, match="power=true"):
        s.execute("declare A lift weight=10 distance=5 faces=5,5")


def test_brandx_inanimate_objects_hold_with_roll_plus_pool() -> None:
    """Seed: "Inanimate objects (ropes, webs) do not normally need to roll the Lift Roll.
    Their Lift Q is the Roll plus the Pool (Sphere Chart, of course)."

    By hand: pool 12 on the Sphere chart is row 9 (entries 10 <= 12 < 14), so Q = 12 + 9
    = 21; 70 kg is row 15 (entries 57 <= 70 < 75): it holds, 6 over. 240 kg is row 20
    (entry 237): 1 over; 320 kg is row 21 (entry 316): 0 over, it just holds; 430 kg is
    row 22 (entry 421): it gives way, short by 1."""
    s = brandx_session("add Web ep=0")
    s.execute("declare Web lift inanimate=true roll=12 pool=12 weight=70")
    res = s.encounter.actions[-1].resolution
    assert res.dice == () and res.details["inanimate"]
    assert res.details["q"] == 21 and res.details["needed"] == 15 and res.margin == 6 and res.success
    s.execute("step 20")
    s.execute("declare Web lift inanimate=true roll=12 pool=12 weight=240")
    res = s.encounter.actions[-1].resolution
    assert res.details["needed"] == 20 and res.margin == 1 and res.success
    s.execute("step 20")
    s.execute("declare Web lift inanimate=true roll=12 pool=12 weight=320")
    res = s.encounter.actions[-1].resolution
    assert res.margin == 0 and res.success
    s.execute("step 20")
    s.execute("declare Web lift inanimate=true roll=12 pool=12 weight=430")
    res = s.encounter.actions[-1].resolution
    assert res.margin == -1 and not res.success


def test_brandx_throw_reports_short_range_and_range_set() -> None:
    """Seed: "The Maximum Range is the speed. The Short Range is equal to the Q used for
    speed, and the Range Set is half this." And: "Look up the Q applied to distance on
    the Result column of the Action Chart, and read to the Sphere Column, for the
    distance in meters." "The speed of the object will be the same as the distance".

    By hand: Throw Roll strength 20 - 9 + Sphere(mass 70) 15 = 26; dice 2+2 = 4: Q 22.
    1 kg needs Sphere row 1; of the 21 left, 4 to distance and 17 to EP. Row 4 reads 4 on
    the Sphere column: 4 m at 4 m/segment, so the Maximum Range is 4 m, the Short Range
    4 (the Q on distance) and the Range Set 2; a target 2 m away is within the Range Set,
    one 3 m away within Short Range, one 5 m away beyond the Maximum Range."""
    line = "add A strength=20 mass=70 combat_roll=15 learning=0 ep=100"
    s = brandx_session(line, "add B vp=40")
    s.execute("declare A throw target=B weight=1 damage=3 range=2 q_distance=4 q_ep=17 throwback=false faces=2,2,5,5")
    res = s.encounter.actions[-1].resolution
    assert res.details["speed"] == 4 and res.details["distance"] == 4
    assert res.details["attack"]["short_range"] == 4 and res.details["attack"]["range_set"] == 2
    assert "Maximum Range 4 m, Short Range 4 m, Range Set 2 m" in res.summary
    assert "within the Range Set" in res.summary
    s = brandx_session(line, "add B vp=40", "declare A throw target=B weight=1 damage=3 range=3 q_distance=4 q_ep=17 throwback=false faces=2,2,5,5")
    assert "within Short Range" in s.encounter.actions[-1].resolution.summary
    s = brandx_session(line, "add B vp=40", "declare A throw target=B weight=1 damage=3 range=5 q_distance=4 q_ep=17 throwback=false faces=2,2,5,5")
    assert "beyond the maximum range 4 m" in s.encounter.actions[-1].resolution.summary


def test_brandx_fractional_throwback_for_positive_q() -> None:
    """Seed: "you may want to apply throwback for positive Q (making it negative), thus
    resulting in fractional throwback, but this should be rare"; and for a failed roll:
    "make the negative Q positive, and look this up from the Result Column of the Action
    Chart to the Sphere Column, for the speed in meters/segment and the distance".

    By hand: B's Throwback Roll is mass 70 (Sphere row 15) + Sphere(agility/strength 10)
    9 - damage 5 = 19; dice 8+8 = 16: Q 3, B stands. Made negative, Q -3 is row -3,
    whose Sphere entry is .32: thrown .32 m at .32 m/segment, airborne Square(2 x 1.8 =
    3.6) = row 1 segment."""
    lines = ("add A combat_roll=15 learning=0 ep=100 hand_damage=5",
             "add B vp=40 side=foes mass=70 strength=10 agility=10 height=1.8",
             "declare A punch target=B throwback=true faces=2,2,8,8")
    plain = brandx_session(*lines)
    plain.execute("next")
    thrown = plain.encounter.actions[-1].resolution.details["hits"][0]["throwback"]
    assert thrown["roll"] == 19 and thrown["q"] == 3 and "speed" not in thrown
    s = brandx_session(*lines, fractional_throwback=True)
    s.execute("next")
    hit = s.encounter.actions[-1].resolution.details["hits"][0]["throwback"]
    assert hit["fractional"] and hit["speed"] == 0.32 and hit["distance"] == 0.32 and hit["airborne"] == 1


def hold_on(s: Any, segments: int, elapsed: int | None = None) -> Any:
    """Let `segments` pass, then continue A's Hold Breath attempt (no new roll)."""
    s.execute(f"step {segments}")
    s.execute("declare A hold-breath again=true" + (f" elapsed={elapsed}" if elapsed is not None else ""))
    return s.encounter.actions[-1].resolution


def test_brandx_hold_breath_rolls_once_and_the_penalty_builds() -> None:
    """Seed: "Hold Breath Roll: This is vs. Constitution plus half Strength, with a bonus
    equal to current Body DP. There is a penalty to the Quality equal to the elapsed
    time, in rounds, on the Sphere Chart. [...] The roll is only made once for any
    specific attempt, and the elapsed time penalty builds as time passes, thus
    increasing the EP cost."

    By hand: 14 + 12/2 = 20, DP 10 as a pool is Sphere row 9: 29; dice 3+3 = 6: Q 23.
    After 12 rounds the penalty is Sphere(12) = row 9 (entry 10), not 12: Q 14. After 2
    rounds (120 segments) it is Sphere(2) = 2: Q 21."""
    s = brandx_session("add A constitution=14 strength=12 ep=100 dp=10")
    s.execute("declare A hold-breath faces=3,3")
    first = s.encounter.actions[-1].resolution
    assert first.details["roll"] == 29 and first.details["raw_q"] == 23 and first.details["q"] == 23
    later = hold_on(s, 120)
    assert later.dice == () and later.details["raw_q"] == 23
    assert later.details["time_penalty"] == 2 and later.details["q"] == 21
    later = hold_on(s, 20, elapsed=12)
    assert later.dice == () and later.details["time_penalty"] == 9 and later.details["q"] == 14


def test_brandx_hold_breath_penalty_raises_the_ep_cost_past_row_9() -> None:
    """Seed: "The Quality reduces EP cost. [...] When Quality becomes less than 0, EP cost
    moves beyond Row 9. At Q of -1, the EP cost is 6 per round (Row 10)." And "For every
    5 points of EP lost in one round, 1 point of DP (bludgeoning) is lost, to the head."

    By hand: 4 + 4/2 = 6, DP 1 as a pool is Sphere row 1: 7; dice 3+4: Q 0, row 9 = 5
    EP a round. Held 1 round: penalty Sphere(1) = 1, Q -1, row 10 = 6 EP and 1 DP to the head. Held 10 rounds:
    penalty Sphere(10) = 9, Q -9, row 18 = 14 EP a round, 2 DP to the head."""
    s = brandx_session("add A constitution=4 strength=4 ep=100 dp=1")
    s.execute("declare A hold-breath faces=3,4")
    res = s.encounter.actions[-1].resolution
    assert res.details["q"] == 0 and res.details["ep_row"] == 9 and res.details["ep_per_round"] == 5
    res = hold_on(s, 20, elapsed=1)
    assert res.details["q"] == -1 and res.details["ep_row"] == 10 and res.details["ep_per_round"] == 6
    assert "1 DP (head) a round" in res.summary
    res = hold_on(s, 20, elapsed=10)
    assert res.details["q"] == -9 and res.details["ep_row"] == 18 and res.details["ep_per_round"] == 14
    assert "2 DP (head) a round" in res.summary


def test_the_combat_roll_is_twice_agility_on_the_sphere_chart() -> None:
    """Seed: "Combat Roll: Look up twice Agility on the Sphere Chart for the character's
    Combat Roll." By hand: agility 20, twice is 40: the largest Sphere entry <= 40 is 32,
    row 13. Dice 2+2 = 4: Q 9."""
    s = brandx_session("add A agility=20 learning=0 ep=100 mass=10 strength=20", "add B vp=40")
    s.execute("declare A punch target=B throwback=false faces=2,2")
    res = s.encounter.actions[-1].resolution
    assert res.details["base"] == 13 and res.details["q"] == 9


def test_hand_damage_reads_mass_on_the_doubles_chart_and_caps_strength_at_mass() -> None:
    """Seed: "Look up mass divided by 10 on the Doubles Chart, and add strength divided by
    4 (round down). If Strength is greater than Mass, add Mass/4 instead of Strength/4."
    By hand: mass 10 -> 1 on the Doubles chart is row 1; strength 20 is greater than mass
    10, so mass / 4 = 2 (not 20 / 4 = 5) is added: 3. The seed's own case, mass 100 and
    strength 14: 10 on the Doubles chart is row 4 (entry 8), + 14 / 4 = 3: 7."""
    s = brandx_session("add A agility=20 learning=0 ep=100 mass=10 strength=20", "add B vp=40")
    s.execute("declare A punch target=B throwback=false faces=2,2")
    assert s.encounter.actions[-1].resolution.details["damage"] == 3
    s = brandx_session("add A agility=20 learning=0 ep=100 mass=100 strength=14", "add B vp=40")
    s.execute("declare A punch target=B throwback=false faces=2,2")
    assert s.encounter.actions[-1].resolution.details["damage"] == 7


def test_the_lift_roll_is_strength_less_9_plus_mass_on_the_sphere_chart() -> None:
    """Seed: "The Lift roll is vs. Strength minus 9, plus the character's Mass on the
    Sphere Chart. The Quality must be the object's mass (Sphere Chart)." By hand:
    strength 17 - 9 + Sphere(100 kg) 17 = 25; dice 2+2: Q 21 against 100 kg (row 17):
    lifted, 4 over."""
    s = brandx_session("add A strength=17 mass=100 ep=100")
    s.execute("declare A lift weight=100 faces=2,2")
    res = s.encounter.actions[-1].resolution
    assert res.details["roll"] == 25 and res.details["q"] == 21 and res.details["needed"] == 17
    assert res.success and res.margin == 4


def test_the_jump_roll_height_and_time_in_the_air() -> None:
    """Seed: "The Jump Roll is vs. agility plus strength. There is a bonus equal to twice
    height (on the Square Chart). [...] Look up the Q applied for the height on the
    Result column, and read to the Square Chart, for the height in centimeters. The
    amount of time (in segments) the character is in the air is found by looking up four
    times the height jumped (in meters) on the Square Chart."

    By hand: agility 12 + strength 10 = 22; twice height 1.8 is 3.6, on the Square chart
    row 1 (entries 1 <= 3.6 < 4): 23. Dice 2+2: Q 19, all to height: row 19 on the Square
    column is 361 cm. Four times 3.61 m is 14.44: row 3 (entries 9 <= 14.44 < 16): 3
    segments in the air."""
    s = brandx_session("add A agility=12 strength=10 height=1.8 ep=100")
    s.execute("declare A jump faces=2,2")
    res = s.encounter.actions[-1].resolution
    assert res.details["roll"] == 23 and res.details["q"] == 19
    assert res.details["height_cm"] == 361 and res.details["air"] == 3


def test_chart_rows_below_the_printed_ones_follow_the_charts_pattern() -> None:
    """The Action Chart (reference/brandx.md 2.1-2.2) prints fractional rows down to -13:
    the Result column is 1/|row| there (.077 at -13), the Square column its square, the
    Sphere column (4/3)^(row-1), the Doubles column 2^(row-1). The seed reads rows below
    0 for fractional throwback ("resulting in fractional throwback") and fractional speeds.

    By hand, row -14: Result 1/14; Square (1/14)^2 = 1/196; Sphere (3/4)^15; Doubles
    2^-15. Row -20: Result 1/20."""
    from rulesets.brandx import BrandXRuleset

    charts = BrandXRuleset().charts
    assert charts.value("result", -14) == pytest.approx(1 / 14)
    assert charts.value("result", -20) == pytest.approx(1 / 20)
    assert charts.value("square", -14) == pytest.approx(1 / 196)
    assert charts.value("sphere", -14) == pytest.approx(0.75 ** 15)
    assert charts.value("doubles", -14) == pytest.approx(2.0 ** -15)
    # The printed rows stand as printed: row -13 is .077 on the Result column, .018 on the Sphere.
    assert charts.value("result", -13) == pytest.approx(0.077)
    assert charts.value("sphere", -13) == pytest.approx(0.018)


def test_a_negative_pool_below_the_printed_rows_mirrors_the_positive_side() -> None:
    """docs/contributing/design.md#rules-decisions (the seed's movement example: "His Bonus Pool is now -18 (for a
    penalty of 11)"): a negative pool reads the chart's negative entries, the mirror of
    the positive ones. The printed negatives stop at -32 (row -13); past them the mirror
    goes on. By hand: -17 -> -10, -18 -> -11 (as in the seed), -50 -> -14 (43 <= 50 < 57),
    -100 -> -17, -1 -> -1."""
    from rulesets.brandx import BrandXRuleset

    charts = BrandXRuleset().charts
    assert [charts.sphere(v) for v in (-1, -17, -18, -50, -100)] == [-1, -10, -11, -14, -17]


def test_knowledge_rolls_use_d100_and_ones_do_not_reduce_it() -> None:
    """Seed: "Knowledge Rolls use d100. Ones do not reduce the die roll for Knowledge
    Rolls." and "If a character with American History (75) rolls 50, that's 25."

    By hand: tens 5, units 0 is 50: under 75 by 25. Tens 1, units 1 is 11 (no reroll of
    the ones). Tens 10 and units 10 read 0 and 0: 100, the highest roll. The chance of
    rolling at most 75 is 75/100; at most 0, none; at most 150, certain."""
    from rulesets.brandx.rolls import chance_d100_at_most, roll_d100
    from rulesets.dice import TypedFaces

    history = roll_d100(TypedFaces([5, 10]), 75)
    assert history.total == 50 and history.success and history.q == 25
    assert roll_d100(TypedFaces([1, 1]), 75).total == 11
    assert roll_d100(TypedFaces([10, 10]), 75).total == 100
    assert chance_d100_at_most(75) == Fraction(3, 4)
    assert chance_d100_at_most(0) == 0 and chance_d100_at_most(150) == 1


def _punch_costs(s: Any, who: str, hands: list[int]) -> list[int]:
    """The EP each punch takes from `who` (Combat Roll + Hand Damage), one per `next`."""
    paid = []
    for hand in hands:
        before = s.encounter.combatant(who).resources["ep"]
        s.execute(f"declare {who} punch target=Bag hand_damage={hand} throwback=false faces=5,5")
        paid.append(before - s.encounter.combatant(who).resources["ep"])
        s.execute("next")
    return paid


BIG = "add Big agility=10 mass=160 strength=16 ep=500"  # Hand Damage 9 (Doubles(16) 5 + 16/4)
BAG = "add Bag vp=100000 dp=100000 side=foes"


def test_brandx_ep_rows_3_2_1_cost_one_ep_per_10_20_50_uses() -> None:
    """Seed: "Hand Damage starts at row 7 on the EP use chart. [...] The EP cost can be
    reduced by doing less damage. Use the standard EP cost progression"; docs/contributing/design.md#rules-decisions (the
    chart the seed names is not public): "row 4 costs 1 EP per 5 uses; rows 3, 2, 1 cost
    1 EP per 10, 20, 50 uses; row <= 0 is free", paid on the first use of each run.

    By hand: Hand Damage 9 is row 7; held to 5 it is row 3, to 4 row 2, to 3 row 1, to 2
    row 0. Each punch also pays the Combat Roll's 1 EP (row 5). Row 3: the 1st and the
    11th punch pay 1 + 1 = 2, the 2nd to 10th pay 1. Row 2: the 1st and the 21st pay 2.
    Row 1: the 1st pays 2, the 2nd to 50th 1. Row 0: every punch pays 1."""
    s = brandx_session(BIG, BAG)
    assert _punch_costs(s, "Big", [5] * 11) == [2] + [1] * 9 + [2]
    s = brandx_session(BIG, BAG)
    assert _punch_costs(s, "Big", [4] * 21) == [2] + [1] * 19 + [2]
    s = brandx_session(BIG, BAG)
    assert _punch_costs(s, "Big", [3] * 3 + [2] * 2) == [2, 1, 1, 1, 1]


def test_brandx_ep_rows_1_to_4_per_round_are_the_fraction_and_row_0_is_free() -> None:
    """docs/contributing/design.md#rules-decisions: "row 4 costs 1 EP per 5 uses; rows 3, 2, 1 cost 1 EP per 10, 20, 50
    uses; row <= 0 is free"; a per-round cost on a fractional row is the fraction (the
    engine charges the same amount every round). By hand: 1/5 = 0.2, 1/10 = 0.1, 1/20 =
    0.05, 1/50 = 0.02; rows 0 and -1 cost 0; row 5 costs 1, row 6 costs 2."""
    from rulesets.brandx import BrandXRuleset

    chart = BrandXRuleset().ep_chart
    assert [chart.per_round(r) for r in (6, 5, 4, 3, 2, 1, 0, -1)] == [2, 1, 0.2, 0.1, 0.05, 0.02, 0, 0]
    assert [chart.per_use(r) for r in (4, 3, 2, 1)] == [Fraction(1, 5), Fraction(1, 10), Fraction(1, 20), Fraction(1, 50)]
    assert [chart.row_cost(r) for r in (6, 3, 0)] == ["2 EP", "1 EP per 10 uses", "free"]


def test_brandx_the_use_count_is_per_combatant_per_row_and_follows_undo() -> None:
    """Seed: "If the character does 6, it only costs 1 EP for every 5 attacks." (row 4:
    Hand Damage 9 held back 3 points). The count is each character's own and each row's
    own (docs/contributing/design.md#rules-decisions: "1 EP per 5 uses"), and an undone punch was never made.

    By hand (Combat Roll 1 EP each punch): Big's 1st punch at 6 pays 1 + 1 = 2. Little
    (also Hand Damage 9) punching at 6 has made no use of row 4 yet: 2. Big at 5 (row 3)
    has not used row 3: 2. Big's 2nd punch at 6 is the 2nd use of row 4: 1; undone and
    made again it is still the 2nd: 1; then uses 3, 4, 5: 1 each, and the 6th pays 2."""
    s = brandx_session(BIG, "add Little agility=10 mass=160 strength=16 ep=500", BAG)
    assert _punch_costs(s, "Big", [6]) == [2]
    assert _punch_costs(s, "Little", [6]) == [2]
    assert _punch_costs(s, "Big", [5]) == [2]
    assert _punch_costs(s, "Big", [6]) == [1]
    s.execute("undo")  # the next
    s.execute("undo")  # the punch
    assert _punch_costs(s, "Big", [6, 6, 6, 6, 6]) == [1, 1, 1, 1, 2]


@pytest.mark.parametrize(("pt", "q", "expected"), [
    (20, 0, 20), (20, 1, 18), (20, 2, 16), (20, 3, 10), (20, 4, 9), (20, 5, 8), (20, 6, 5),
    (20, 7, 5), (20, 9, 3), (5, 1, 5), (15, 1, 14), (1, 0, 1), (1, 3, 1), (1, 6, 1),
])
def test_brandx_q_on_speed_divides_and_reduces_performance_time(pt: int, q: int, expected: int) -> None:
    """Seed: "Speed: Three points of Q divide Performance Time by 2. One point reduces
    Performance Time by 10%, 2 points by 20%." docs/contributing/design.md#rules-decisions: "PT x (1/2)^(Q div 3) x
    (1 - 0.1 x (Q mod 3)), rounded half up, minimum 1".

    By hand, PT 20: Q 1 -> 18, Q 2 -> 16, Q 3 -> 10, Q 4 -> 10 x .9 = 9, Q 5 -> 8, Q 6 ->
    5, Q 7 -> 5 x .9 = 4.5, half up 5; Q 9 -> 2.5, half up 3. PT 5, Q 1 -> 4.5 -> 5; PT
    15, Q 1 -> 13.5 -> 14. PT 1 with no Q stays 1; Q 3 -> .5 -> 1; Q 6 -> .25, minimum 1."""
    from rulesets.brandx.rolls import speed_pt

    assert speed_pt(pt, q) == expected


def test_brandx_two_uses_of_one_row_in_one_punch_count_as_two_uses() -> None:
    """Seed: "Combat Roll: [...] The Combat Roll costs 1 EP (it starts at Row 5)"; "Hand
    Damage starts at row 7 [...] If the character does 6, it only costs 1 EP for every 5
    attacks"; docs/contributing/design.md#rules-decisions: "each point of Q spent on EP lowers the row by one". "Each
    action uses EP separately" (the powers' sentence): every use is counted.

    By hand: 1 Q on EP puts the Combat Roll on row 4, Hand Damage 9 held to 6 is row 4:
    each punch makes two uses of row 4, paid on uses 1, 6, 11: punch 1 (uses 1, 2) pays
    1, punch 2 (3, 4) 0, punch 3 (5, 6) 1, punches 4 and 5 (7-10) 0, punch 6 (11, 12) 1.
    A Healing Roll before them uses no EP ("There is no penalty applied to Healing Rolls
    because of low EP") and is no use of any row."""
    s = brandx_session(BIG, BAG)
    s.execute("declare Big heal faces=2,2")
    s.execute("next")
    paid = []
    for _ in range(6):
        before = s.encounter.combatant("Big").resources["ep"]
        s.execute("declare Big punch target=Bag hand_damage=6 q_ep=1 throwback=false faces=2,2")
        rows = [use["row"] for use in s.encounter.actions[-1].resolution.details["ep_uses"]]
        assert rows == [4, 4]
        paid.append(before - s.encounter.combatant("Big").resources["ep"])
        s.execute("next")
    assert paid == [1, 0, 1, 0, 0, 1]


def test_brandx_a_house_ep_chart_free_rows_win_and_unlisted_rows_cost_nothing() -> None:
    """A GM's own EP use chart (tables [ep], [ep_uses_per_point], docs/contributing/design.md#rules-decisions: "row <= 0
    is free"): a row at or below `free_at_or_below` is free even if the table lists it;
    a row below the first paid row that the table does not list costs nothing (the
    module's decision); a use with no encounter (a roll outside a fight) has no earlier
    uses, so it pays. By hand: free at or below 1, first paid row 6, row 1 listed as 1 per
    50 and row 4 as 1 per 5: row 1 free, row 2 and 3 unlisted so free, row 4 pays its
    first use, row 6 costs 1 and row 8 costs 3."""
    from rulesets.brandx.ep import EpChart, bill

    chart = EpChart.from_tables({"ep": {"first_paid_row": 6, "free_at_or_below": 1},
                                 "ep_uses_per_point": {"1": 50, "4": 5}})
    assert [chart.per_use(r) for r in (1, 2, 3, 4, 6, 8)] == [0, 0, 0, Fraction(1, 5), 1, 3]
    assert bill(chart, None, "Big", [("punch", 4)]).total == 1
    assert bill(chart, None, "Big", [("punch", 4), ("punch", 4)]).total == 1


def test_brandx_the_summary_says_what_each_use_paid_and_discernment_pays_no_ep() -> None:
    """The GM reads what each action paid. Seed: "The Combat Roll costs 1 EP (it starts
    at Row 5)"; Hand Damage held to 6 is row 4, "1 EP for every 5 attacks" (its first
    use pays 1); "The Discernment Roll doesn't use EP"."""
    s = brandx_session(BIG, BAG)
    s.execute("declare Big punch target=Bag hand_damage=6 throwback=false faces=5,5")
    assert "; 2 EP (combat roll row 5: 1, hand damage row 4: 1);" in s.encounter.actions[-1].resolution.summary
    s.execute("next")
    s.execute("declare Big discernment faces=2,2")
    assert "; no EP;" in s.encounter.actions[-1].resolution.summary


def _chance_2d10_at_most(total: int) -> Fraction:
    """P(2d10 with the subtracting reroll <= total), face by face: each die shows 2-10, or
    a 1 that is rolled once more and 1 - the new face counts (docs/contributing/design.md#rules-decisions)."""
    one: dict[int, Fraction] = {face: Fraction(1, 10) for face in range(2, 11)}
    for again in range(1, 11):
        one[1 - again] = one.get(1 - again, Fraction(0)) + Fraction(1, 100)
    return sum((p * q for a, p in one.items() for b, q in one.items() if a + b <= total), Fraction(0))


def test_brandx_a_friction_of_20_is_impossible_to_overcome() -> None:
    """Seed: "Pushing and Pulling: You can push or pull just about anything, depending on
    the amount of friction that must be overcome. Make the Lift Roll as normal [...]
    Friction is applied as a penalty directly to the Roll. [...] A friction of 20 is
    impossible to overcome. If the roll is missed by more than 20 minus the friction
    number, the object cannot be pushed/pulled." And: "A failure costs 1 EP."

    The roll is made as normal, so the push is a failure, not a refusal: the character
    tries (the player need not know the friction) and it will not move, whatever the
    dice. By hand: 20 - 9 + Sphere(mass 100) 17 = 28, less friction 20 = 8; 1 kg needs
    Q Sphere(1) = 1; dice 2+2 = 4, Q 4, 3 over: it would have been lifted, but friction
    20 holds it: a failure, 1 EP (50 -> 49), PT 10. The chance line says 0.

    Against friction 5 (a box on a dirt road) the object moves unless the miss is more
    than 20 - 5 = 15: 28 - 5 = 23, 1000 kg needs Q Sphere(1000) = 25 (the largest entry
    <= 1000 is 997, row 25), so it moves on Q 10 or more, a total of 13 or less."""
    s = brandx_session("add Strong strength=20 mass=100 ep=50")
    push = {"push": "true", "friction": "20", "weight": "1"}
    assert s.chance("Strong", "lift", [], push) == 0
    s.execute("declare Strong lift push=true friction=20 weight=1 faces=2,2")
    act = s.encounter.actions[-1]
    res = act.resolution
    assert res.details["roll"] == 8 and res.details["q"] == 4 and res.details["needed"] == 1
    assert res.success is False and act.pt == 10
    assert "a friction of 20 is impossible to overcome: it will not move" in res.summary
    assert s.encounter.combatant("Strong").resources["ep"] == 49
    assert s.chance("Strong", "lift", [], {"push": "true", "friction": "5", "weight": "1000"}) == _chance_2d10_at_most(13)
    with pytest.raises(TrackerError, match=r"friction: expected an integer from 0 to 20, got '21'"):
        s.chance("Strong", "lift", [], {"push": "true", "friction": "21", "weight": "1"})
