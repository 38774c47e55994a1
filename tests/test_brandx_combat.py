"""Brand X combat: the Seraph vs Sphinx worked combat, Hand Damage, EP rows, maintained
attacks, throwback, several opponents, Saving Quality and Editing Points."""

from __future__ import annotations

import pytest

from rulesets.brandx import BrandXRuleset
from rulesets.brandx.rolls import chance_at_most
from rulesets.brandx.combat import hand_damage, miss_shares
from rulesets.brandx.ep import EpChart
from rulesets.brandx.rolls import speed_pt
from tracker.engine import TrackerError
from tracker.play.session import Session
from tests.helpers import session_for

SERAPH = "add Seraph agility=22 strength=11 mass=80 height=1.791 learning=12 vp=43 ep=74"
SPHINX = "add Sphinx agility=10 strength=14 mass=100 learning=10 vp=34 ep=38"


def session() -> Session:
    return session_for(BrandXRuleset())


def res(s: Session, name: str) -> dict:
    return s.encounter.combatant(name).resources


def test_seraph_vs_sphinx_through_segment_19() -> None:
    s = session()
    s.execute(SERAPH)
    s.execute(SPHINX)
    # Segment 0: Seraph needs 15 (Combat Roll 14 = Sphere(2 x 22), pool 1 -> +1); rolls 20.
    s.execute("declare Seraph punch target=Sphinx faces=10,10,10,10")  # then its Throwback Roll
    seraph0 = s.encounter.actions[-1]
    d = seraph0.resolution.details
    assert d["base"] == 14 and d["roll"] == 15 and seraph0.resolution.margin == -5
    assert (d["attack"], d["damage_mod"], d["defense"]) == (-2, -2, 0)
    # Sphinx needs 12 (Combat Roll 11, pool 1); rolls 12: Q 0.
    s.execute("declare Sphinx punch target=Seraph faces=6,6,10,10")
    sphinx0 = s.encounter.actions[-1]
    d = sphinx0.resolution.details
    assert d["roll"] == 12 and sphinx0.resolution.margin == 0
    assert (d["attack"], d["damage_mod"], d["defense"]) == (0, 0, 0)
    assert seraph0.completes == sphinx0.completes == 15
    # 4 EP a punch: Combat Roll row 5 (1) + Hand Damage row 7 (3).
    assert res(s, "Seraph")["ep"] == 70 and res(s, "Sphinx")["ep"] == 34

    s.execute("next")
    assert s.encounter.now == 15
    assert seraph0.resolution.details["hits"][0]["hit"] is False  # Attack -2 vs Defense 0
    assert res(s, "Seraph")["vp"] == 36  # Sphinx's Hand Damage 7
    assert res(s, "Sphinx")["vp"] == 34

    # Segment 15: Seraph rolls 6 -> Q 9: 6 on speed (PT 15 -> 4), 1 Attack, 2 Defense.
    s.execute("declare Seraph punch target=Sphinx faces=3,3,10,10 q_speed=6 q_attack=1 q_defense=2")
    seraph1 = s.encounter.actions[-1]
    d = seraph1.resolution.details
    assert seraph1.resolution.margin == 9 and seraph1.pt == 4 and seraph1.completes == 19
    assert (d["attack"], d["defense"], d["damage_mod"]) == (1, 1, 0)
    # Sphinx rolls 14: missed by 2 -> Attack -1, Damage -1, Defense 0; completes on 30.
    s.execute("declare Sphinx punch target=Seraph faces=7,7,10,10")
    sphinx1 = s.encounter.actions[-1]
    d = sphinx1.resolution.details
    assert sphinx1.resolution.margin == -2 and sphinx1.completes == 30
    assert (d["attack"], d["damage_mod"], d["defense"]) == (-1, -1, 0)
    assert res(s, "Seraph")["ep"] == 66 and res(s, "Sphinx")["ep"] == 30

    s.execute("next")
    assert s.encounter.now == 19
    assert res(s, "Sphinx")["vp"] == 28  # Seraph's Hand Damage 6
    assert any("rolled 10+10 = 20: missed by 5" in e.text for e in s.encounter.log)


def test_hand_damage_7_for_100_kg_strength_14() -> None:
    rs = BrandXRuleset()
    assert hand_damage(rs.charts, 100, 14) == 7
    assert hand_damage(rs.charts, 80, 11) == 6  # Seraph
    assert hand_damage(rs.charts, 30, 40) == 2 + 7  # strength above mass: mass / 4


def test_hand_damage_held_back_lowers_the_ep_row() -> None:
    s = session()
    s.execute("add Big agility=10 mass=160 strength=16 ep=100")  # Hand Damage 4 + 5 ... 9
    s.execute("add Bag vp=1000 dp=1000")
    assert s.ruleset.charts.doubles(16) + 16 // 4 == 9
    paid = []
    for hand in (9, 7, 6, 6, 6, 6, 6, 6):
        before = res(s, "Big")["ep"]
        s.execute(f"declare Big punch target=Bag hand_damage={hand} faces=5,5,10,10")
        paid.append(before - res(s, "Big")["ep"])
        s.execute("next")
    # Combat Roll 1 EP each; Hand Damage 9 -> 3 EP, held to 7 -> 1 EP, held to 6 -> 1 EP per 5.
    assert paid == [4, 2, 2, 1, 1, 1, 1, 2]
    with pytest.raises(TrackerError, match="Hand Damage is 9"):
        s.execute("declare Big punch target=Bag hand_damage=10 faces=5,5")


def test_ep_chart_rows() -> None:
    chart = EpChart.from_tables(BrandXRuleset().tables)
    assert [chart.charge(r, 0) for r in (9, 7, 5, 4, 3, 2, 1, 0, -3)] == [5, 3, 1, 1, 1, 1, 1, 0, 0]
    assert [chart.charge(4, n) for n in range(6)] == [1, 0, 0, 0, 0, 1]
    assert [chart.charge(1, n) for n in (0, 1, 49, 50)] == [1, 0, 0, 1]
    assert chart.per_round(10) == 6 and chart.per_round(4) == 0.2


def test_miss_is_dealt_out_and_defense_halved_toward_zero() -> None:
    assert miss_shares(5) == (-2, -2, 0)
    assert miss_shares(2) == (-1, -1, 0)
    assert miss_shares(6) == (-2, -2, -1)
    assert miss_shares(9) == (-3, -3, -1)
    assert miss_shares(0) == (0, 0, 0)


def test_speed_pt_formula() -> None:
    assert speed_pt(15, 6) == 4
    assert speed_pt(12, 3) == 6 and speed_pt(12, 6) == 3
    assert speed_pt(10, 1) == 9 and speed_pt(10, 2) == 8 and speed_pt(10, 4) == 5  # 4.5 -> 5
    assert speed_pt(2, 30) == 1


def test_q_on_damage_uses_the_doubles_chart() -> None:
    s = session()
    s.execute(SERAPH)
    s.execute(SPHINX)
    s.execute("declare Seraph punch target=Sphinx faces=2,2,10,10 q_damage=4 q_attack=7")  # Q 11
    d = s.encounter.actions[-1].resolution.details
    assert d["damage_mod"] == 8 and d["damage"] == 14 and d["attack"] == 7


def test_spending_more_q_than_rolled_is_cut_back_and_said() -> None:
    s = session()
    s.execute(SERAPH)
    s.execute(SPHINX)
    out = s.execute("declare Seraph punch target=Sphinx faces=5,5,10,10 q_speed=6")  # Q 5
    assert s.encounter.actions[-1].pt == 6  # 5 Q on speed: 15 x 1/2 x 0.8
    assert "speed cut from 6 to 5" in " ".join(out.lines)


def test_maintained_blast_pt_quarter_attack_minus_2_ep_row_plus_1() -> None:
    s = session()
    s.execute("add Sun-Ruler agility=12 learning=10 ep=60")
    s.execute("add Target vp=100 dp=50")
    s.execute("declare Sun-Ruler blast target=Target pr=12 damage=5 faces=2,2,10,10 q_attack=3")  # 13 vs 4: Q 9
    first = s.encounter.actions[-1]
    assert first.maintainable and first.resolution.details["attack"] == 9
    assert res(s, "Sun-Ruler")["ep"] == 55
    s.execute("next")
    assert res(s, "Target")["vp"] == 95
    s.execute("maintain Sun-Ruler")
    link = s.encounter.actions[-1]
    assert link.chain == 1 and link.pt == 5 and link.resolution.details["attack"] == 7
    assert res(s, "Sun-Ruler")["ep"] == 55 - 6  # row 10
    s.execute("next")
    s.execute("maintain Sun-Ruler")
    assert s.encounter.actions[-1].resolution.details["attack"] == 5  # -4 on the second link
    assert res(s, "Target")["vp"] == 90


def test_a_typed_pt_on_maintain_is_the_links_pt_as_on_declare() -> None:
    """Seed: "The Performance Time is divided by 4 (usually meaning 5 segments)": the
    blast's 20 segments make a 5-segment link when the GM types no PT. A PT typed on
    `maintain` is the link's PT, as one typed on `declare` is the action's (rulesets.base:
    the typed PT, else `default_pt`): pt=8 makes a link of 8 segments from the segment it
    is maintained on (20 -> 28); the Attack (9 - 2) and EP row (+1) follow the chain as before."""
    s = session()
    s.execute("add Sun-Ruler agility=12 learning=10 ep=60")
    s.execute("add Target vp=100 dp=50")
    s.execute("declare Sun-Ruler blast target=Target pr=12 damage=5 faces=2,2,10,10 q_attack=3")
    declared = s.encounter.actions[-1]
    assert declared.pt == 20
    s.execute("next")
    now = s.encounter.now
    assert now == declared.completes
    s.execute("maintain Sun-Ruler pt=8")
    link = s.encounter.actions[-1]
    assert link.chain == 1 and link.pt == 8 and link.completes == now + 8
    assert link.resolution.details["attack"] == 7 and res(s, "Sun-Ruler")["ep"] == 55 - 6
    assert "PT 8 (as stated)" in link.resolution.summary
    s.execute("undo")
    s.execute("maintain Sun-Ruler")  # none typed: a quarter of 20
    assert s.encounter.actions[-1].pt == 5 and "PT 5 (PT 20 / 4)" in s.encounter.actions[-1].resolution.summary


def test_throwback_when_surprised_and_when_dp_is_lost() -> None:
    s = session()
    s.execute("add Hitter agility=22 mass=100 strength=20 ep=50")
    s.execute("add Victim agility=10 strength=10 mass=60 height=1.8 vp=5 dp=20")
    # Hand Damage Doubles(10) 4 + 20 // 4 = 9 > 5 VP: DP is lost, so a Throwback Roll
    # follows with the next dice: Sphere(mass 60) 15 + Sphere(strength 10) 9 - damage 9.
    s.execute("declare Hitter punch target=Victim faces=5,5,10,10")
    act = s.encounter.actions[-1]
    hit = act.resolution.details["hits"][0]
    tb = hit["throwback"]
    assert hit["damage"] == 9  # Q 5, all to Attack (the default)
    assert tb["roll"] == 15 + 9 - hit["damage"]
    assert tb["q"] == tb["roll"] - 20 and tb["pushback"] == -tb["q"]
    assert act.resolution.dice == (5, 5, 10, 10)
    s.execute("next")
    victim = s.encounter.combatant("Victim")
    assert victim.airborne_until == s.encounter.now + tb["airborne"]
    assert any("thrown back" in e.text for e in s.encounter.log)


def test_vp_only_hit_needs_surprise_for_throwback() -> None:
    s = session()
    s.execute("add Hitter agility=22 mass=100 strength=20 ep=50")
    s.execute("add Victim agility=10 strength=10 mass=60 vp=50")
    # The Throwback Roll is made up front (1+1: it would throw), but a hit for VP only on
    # a target not surprised does not throw: "For a character to be thrown back when only
    # VP was lost, the character must have been surprised."
    s.execute("declare Hitter punch target=Victim faces=5,5,2,2")
    assert "throwback" in s.encounter.actions[-1].resolution.details["hits"][0]
    s.execute("next")
    assert s.encounter.combatant("Victim").resources["vp"] == 50 - 9
    assert s.encounter.combatant("Victim").airborne_until < s.encounter.now
    assert not any("thrown back" in e.text for e in s.encounter.log)
    s.execute("declare Hitter punch target=Victim faces=5,5,10,10 surprised=true")
    tb = s.encounter.actions[-1].resolution.details["hits"][0]["throwback"]
    assert tb["roll"] == 15 + 9 - 9  # Sphere(60) + Sphere(max(agility, strength)) - damage


def test_several_opponents_pool_minus_one_and_successive_segments() -> None:
    s = session()
    s.execute(SERAPH)
    s.execute("add A vp=20")
    s.execute("add B vp=20")
    s.execute("declare Seraph punch target=A,B faces=5,5,10,10,10,10 q_attack=3")
    act = s.encounter.actions[-1]
    d = act.resolution.details
    assert d["pool"] == 0 and d["roll"] == 14  # pool 1 - 1 extra opponent
    assert d["attacks"] == [2, 2] and act.pt == 16  # 4 Q of Attack shared; PT 15 + 1
    # One blow a segment: A is struck on segment 15, B on 16 when the action completes.
    assert s.encounter.next_happening() == 15
    s.execute("next")
    assert res(s, "A")["vp"] == 14 and res(s, "B")["vp"] == 20
    s.execute("next")
    assert s.encounter.now == 16
    assert res(s, "A")["vp"] == 14 and res(s, "B")["vp"] == 14


def test_saving_quality_adds_to_the_next_same_kind_action() -> None:
    s = session()
    s.execute(SERAPH)
    s.execute(SPHINX)
    s.execute("declare Seraph punch target=Sphinx faces=2,3,10,10 q_save=4 q_attack=6")  # Q 10
    assert s.encounter.actions[-1].resolution.details["saved_pool"] == 2
    s.execute("next")
    s.execute("declare Seraph punch target=Sphinx faces=5,5,10,10")
    d = s.encounter.actions[-1].resolution.details
    assert d["pool"] == 3 and d["roll"] == 17


def test_editing_points_add_one_each_and_are_spent() -> None:
    s = session()
    s.execute(SERAPH + " editing_points=5")
    s.execute(SPHINX)
    s.execute("declare Seraph punch target=Sphinx faces=10,10,10,10 editing=3")
    d = s.encounter.actions[-1].resolution.details
    assert d["roll"] == 18 and d["q"] == -2
    assert s.encounter.combatant("Seraph").stats["editing_points"] == 2


def test_chance_of_a_declared_punch_is_exact() -> None:
    s = session()
    s.execute(SERAPH)
    s.execute(SPHINX)
    from rulesets.brandx.rolls import chance_at_most

    # Against Sphinx's Defense 0, every success hits (all Q to Attack) and no miss does.
    assert s.chance("Seraph", "punch", ["Sphinx"]) == chance_at_most(15)
    assert s.chance("Seraph", "punch", ["Sphinx"], {"pool": "13"}) == chance_at_most(14 + 10)
    assert s.chance("Seraph", "power", [], {"pr": "5"}) is None


def test_punch_needs_a_target() -> None:
    s = session()
    s.execute(SERAPH)
    with pytest.raises(TrackerError, match="needs a target"):
        s.execute("declare Seraph punch faces=5,5")


def test_maintained_link_keeps_the_damage_kind() -> None:
    s = session()
    s.execute("add Gunner agility=22 learning=10 ep=60")
    s.execute("add Target vp=100 dp=50")
    s.execute("declare Gunner blast target=Target pr=12 damage=5 to=dp throwback=false faces=2,2")
    s.execute("next")
    assert res(s, "Target")["dp"] == 45
    s.execute("maintain Gunner")
    s.execute("next")
    assert res(s, "Target")["dp"] == 40 and res(s, "Target")["vp"] == 100


def test_ep_below_zero_is_put_to_the_gm_when_it_happens() -> None:
    """The rules give no consequence for EP below 0, so the log asks the GM then. A
    punch costs 4 EP (Combat Roll row 5: 1, Hand Damage row 7: 3): from 2 EP it leaves
    -2, and the log says so as the punch starts."""
    s = session()
    s.execute("add A agility=10 ep=2")
    s.execute("add B vp=50")
    s.execute("declare A punch target=B faces=5,5,10,10")
    assert res(s, "A")["ep"] == -2
    note = [e.text for e in s.encounter.log if "EP goes from 2 to -2" in e.text]
    assert note and "the GM decides" in note[0] and "abort A" in note[0]
    s.execute("next")
    s.execute("declare A punch target=B faces=5,5,10,10")
    assert any("EP goes from -2 to -6" in e.text for e in s.encounter.log)


ROUND_NOTE = ("(end a per-round cost: `declare A power label=NAME stop=true`, `hold-breath stop=true` or "
              "`move stop=true`; or take it from VP or DP: `damage A N`)")


def test_ep_below_zero_from_a_per_round_cost_is_put_to_the_gm_too() -> None:
    """Seed: "EP cost for movement (at the end of each round) is always the cost of the
    last Move Roll"; a passive power's upkeep is likewise paid each round. A power at PR
    12 all to effect is on EP row 9: 5 EP as it starts and 5 EP a round. From 12 EP: 7
    after the start; payment segment 50 leaves 2, segment 100 leaves -3 (the note, as
    for any cost), segment 150 -8 (the note again). Stepped over in one go (segments
    50-200, 4 payments: 20 EP), 7 -> -13, said once for the stretch. The note names
    what ends a per-round cost (`abort` does not: the power completed long ago)."""
    s = session()
    s.execute("add A agility=22 learning=10 ep=12")
    s.execute("declare A power pr=12 mode=passive upkeep=true")
    for _ in range(4):
        s.execute("next")
    texts = [e.text for e in s.encounter.log]
    assert res(s, "A")["ep"] == -8
    notes = [t for t in texts if "EP goes from" in t]
    assert notes == [
        "A's EP goes from 2 to -3: the rules say nothing of EP below 0, so the GM decides what it costs A "
        + ROUND_NOTE,
        "A's EP goes from -3 to -8: the rules say nothing of EP below 0, so the GM decides what it costs A "
        + ROUND_NOTE]
    assert texts.index(notes[0]) == texts.index("payment segment 100: A pays 5 ep for power") + 1
    s = session()
    s.execute("add A agility=22 learning=10 ep=12")
    s.execute("declare A power pr=12 mode=passive upkeep=true")
    s.execute("step 200")
    texts = [e.text for e in s.encounter.log]
    assert "payment segments 50-200 (4 payments): A pays 20 ep for power" in texts
    assert [t for t in texts if "EP goes from" in t] == [
        "A's EP goes from 7 to -13: the rules say nothing of EP below 0, so the GM decides what it costs A "
        + ROUND_NOTE]


def test_the_chance_line_of_a_throw_at_a_target_adds_its_chance_to_hit() -> None:
    """Seed: "The Throw roll [...] is vs. Strength minus 9. There is a bonus equal to the
    character's Mass (Sphere Chart). The Q is used for the object's mass (Sphere Chart)",
    and "When throwing something as an attack, an Attack Roll must still be made." By
    hand: strength 12 - 9 = 3, Sphere(mass 70) 15: Throw Roll 18; a 50 kg object needs Q
    Sphere(50) = 14, so the throw needs 18 - total >= 14: a total of 4 or less. Then the
    Combat Roll 10 (combat_roll 10, no pool) must give Q >= 0 to meet B's Defense 0: a
    total of 10 or less. The two rolls are independent: chance to hit = P(<= 4) x P(<= 10).
    The line's first figure is still the Throw Roll's own chance (<= 4)."""
    s = session()
    s.execute("add A strength=12 mass=70 combat_roll=10 learning=0 ep=50")
    s.execute("add B side=foes vp=50")
    request, _ = s.request("A", "throw", ["B"], {"weight": "50", "damage": "5"})
    assert s.ruleset.chance_of(request) == chance_at_most(4)
    both = chance_at_most(4) * chance_at_most(10)
    assert s.ruleset.chance_to_hit(request) == both
    assert s.ruleset.chance_note(request) == f"to hit B (Defense +0 now): {float(both):.2%}"
    # Thrown at no one, there is nothing to hit: no such line.
    alone, _ = s.request("A", "throw", [], {"weight": "50"})
    assert s.ruleset.chance_note(alone) == ""


def test_the_chance_line_of_an_attack_adds_the_chance_to_hit_the_defense_as_things_stand() -> None:
    """Seed: "The character's Attack must be greater than or equal to the opponent's
    Defense"; "Attack: One point of Q adds 1 point to Attack"; a miss is "applied evenly
    to Attack, then Damage, then Defense". Seraph needs 15 (14 + pool 1).
    - Against a Defense of 3 he hits only with Q 3 or more: 2d10 (with the reroll) <= 12.
    - Sphinx's own punch missed by 6 (Attack -2, Damage -2, Defense -2 halved: -1): then
      a miss by 1, 2 or 3 still leaves Seraph Attack -1 >= -1, so he hits on <= 18.
    The line says what it is the chance of."""
    s = session()
    s.execute(SERAPH)
    s.execute(SPHINX)
    request, _ = s.request("Seraph", "punch", ["Sphinx"], {"defense": "3"})
    assert s.ruleset.chance_to_hit(request) == chance_at_most(12)
    assert s.ruleset.chance_note(request) == f"to hit Sphinx (Defense +3, stated now): {float(chance_at_most(12)):.2%}"
    s.execute("declare Sphinx punch target=Seraph faces=9,9,10,10")  # Sphinx needs 12: 18 misses by 6
    assert s.encounter.actions[-1].resolution.details["defense"] == -1
    request, _ = s.request("Seraph", "punch", ["Sphinx"], {})
    assert s.ruleset.chance_to_hit(request) == chance_at_most(18)
    assert s.ruleset.chance_note(request).startswith("to hit Sphinx (Defense -1, punch -1 now): ")
    assert s.ruleset.chance_of(request) == chance_at_most(15)  # the chance the roll succeeds, shown beside it


def test_an_automatic_firearm_attacks_every_opponent_on_the_same_segment() -> None:
    """Seed: "Each attack takes place on successive segments (except for automatic
    firearms)." Seraph's sweep at A and B: PT 15 + 1 with a club, the blows on 15 and
    16; with an automatic firearm, PT 15 and both blows on 15."""
    for automatic, pt, first in (("false", 16, 15), ("true", 15, 15)):
        s = session()
        s.execute(SERAPH)
        s.execute("add A vp=20")
        s.execute("add B vp=20")
        s.execute(f"declare Seraph strike target=A,B damage=2 automatic={automatic} faces=5,5,10,10,10,10 q_attack=3")
        act = s.encounter.actions[-1]
        assert act.pt == pt
        s.execute("next")
        assert s.encounter.now == first
        hit_now = [res(s, n)["vp"] < 20 for n in ("A", "B")]
        assert hit_now == ([True, True] if automatic == "true" else [True, False])


def test_pushback_is_a_number_the_throwback_penalty_q_adds_to() -> None:
    """Seed: "The Throwback penalty Q is added to Pushback." Victim (mass 60, strength 10)
    takes 9 DP-taking damage twice: Throwback Roll Sphere(60) 15 + Sphere(10) 9 - 9 = 15;
    rolled 10+10 = 20, missed by 5 each time: Pushback 5, then 10."""
    s = session()
    s.execute("add Hitter agility=22 mass=100 strength=20 ep=50")
    s.execute("add Victim agility=10 strength=10 mass=60 height=1.8 vp=0 dp=40")
    for n in (1, 2):
        s.execute("declare Hitter punch target=Victim faces=5,5,10,10")
        s.execute("step 15")
        assert res(s, "Victim")["pushback"] == 5 * n
