"""OGS (seed 002): each core sentence of the rules, quoted, with numbers worked by hand.
The seed's worked examples (Michael and the guard, the four-stage critical, the 7th
level Fireball, die increases past d12) are in tests/test_ogs.py, number for number."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from rulesets.dice import TypedFaces
from rulesets.ogs import odds
from rulesets.ogs.check import StageRule, opposed, roll
from rulesets.ogs.notation import DiceSteps, increase, increase_die, parse
from tests.helpers import cli_json, session_for
from tracker.engine.errors import TrackerError

STEPS = DiceSteps()


def test_an_action_check_succeeds_at_or_above_the_difficulty() -> None:
    """Seed: "If the total is equal to or greater than the difficulty the action
    succeeds, and if the total is less than the difficulty the action fails."

    By hand: d6 3 + d6 4 + d4 2 = 9: against 9 a success, against 10 a failure."""
    at = cli_json("roll", "ogs", "d6+d6+d4", "--difficulty", "9", "--faces", "3,4,2")
    assert at["total"] == 9 and at["success"] is True
    above = cli_json("roll", "ogs", "d6+d6+d4", "--difficulty", "10", "--faces", "3,4,2")
    assert above["total"] == 9 and above["success"] is False
    # The same in the timeline: stat d6, skill d6, enhancement d4.
    from rulesets.ogs import OgsRuleset

    s = session_for(OgsRuleset(), "add A stat=d6 skill=d6 enhancement=d4")
    s.execute("declare A check difficulty=9 faces=3,4,2")
    assert s.encounter.actions[-1].resolution.success is True
    s.execute("next")
    s.execute("declare A check difficulty=10 faces=3,4,2")
    assert s.encounter.actions[-1].resolution.success is False


def test_a_check_is_a_stat_die_a_skill_die_and_the_enhancement_pool_totalled() -> None:
    """Seed: "All Action Checks are comprised of two dice and a dice pool. The first die
    is the stat die [...] The second die is either the skill or force die [...] the dice
    pool is generally referred to as the Enhancement Die"; "A strength check made by a
    giant or a dragon can be made with six dice or more".

    By hand: d4 1 + d8 4 + d8 6 = 11 (Michael's Sneak); a dragon's d12 + d10 + 4d6 showing
    12, 10, 1, 2, 3, 4 totals 32."""
    michael = roll(parse("d4+d8+d8", STEPS), TypedFaces([1, 4, 6]))
    assert michael.total == 11
    dragon = roll(parse("d12+d10+4d6", STEPS), TypedFaces([12, 10, 1, 2, 3, 4]))
    assert dragon.total == 32 and len(dragon.faces) == 6


def test_a_flat_bonus_is_added_directly_to_the_total() -> None:
    """Seed: "In the case where a character with an applicable flat bonus rolls an
    Action Check or an Open Roll the flat bonus is added directly to the total."

    By hand: 3 + 4 + 2 + 3 = 12 meets a difficulty of 12; an Open Roll 2d6+2 of 5 and 6
    is 13."""
    data = cli_json("roll", "ogs", "d6+d6+d4+3", "--difficulty", "12", "--faces", "3,4,2")
    assert data["total"] == 12 and data["success"] is True
    open_roll = cli_json("roll", "ogs", "2d6+2", "--faces", "5,6")
    assert open_roll["total"] == 13


def test_an_open_roll_is_simply_totaled() -> None:
    """Seed: "All Open Rolls are simply totaled and the total value is used in some way
    directly." By hand: d6 1 + d6 2 + d8 3 = 6, with no success or failure."""
    data = cli_json("roll", "ogs", "d6+d6+d8", "--faces", "1,2,3")
    assert data["total"] == 6 and data["success"] is None and data["stages"] is None


def test_critical_stages_every_two_over_starting_at_two() -> None:
    """Seed: "If an Action Check's total exceeds the target difficulty by two or more it
    is considered to be a critical success. Every additional two the difficulty is
    exceeded by adds another level of critical success. [...] attack had a difficulty of
    8, and then the attacking character rolled a 16 [...] "Four Stage Critical Success".

    By hand (difficulty 8): 9 exceeds by 1, no stage; 10 by 2, one stage; 11 still one;
    12 two; 16 exceeds by 8: four. Against 5, a 16 exceeds by 11: five stages."""
    rule = StageRule()
    assert [rule.stages(t, 8) for t in (7, 8, 9, 10, 11, 12, 13, 16)] == [0, 0, 0, 1, 1, 2, 2, 4]
    data = cli_json("roll", "ogs", "d6+d6+d4", "--difficulty", "5", "--faces", "6,6,4")
    assert data["total"] == 16 and data["stages"] == 5 and "5-stage critical" in data["text"]


def test_there_is_no_critical_failure() -> None:
    """Seed: "Contrary to critical success there is no such thing as a critical failure,
    no matter how low the total comes up". By hand: 1 + 1 + 1 = 3 against 30 is a plain
    failure, no stages."""
    data = cli_json("roll", "ogs", "d6+d6+d4", "--difficulty", "30", "--faces", "1,1,1")
    assert data["success"] is False and data["stages"] == 0 and "critical" not in data["text"]


def test_the_higher_total_wins_an_opposed_check() -> None:
    """Seed: "both make appropriate Action Checks [...] and compare their totals. The
    participant with the higher total wins the Opposed Check." By hand: 2 + 4 + 6 = 12
    beats the guard's 1 + 4 + 6 = 11; the other way round the guard wins."""
    m = roll(parse("d4+d8+d8", STEPS), TypedFaces([2, 4, 6]))
    g = roll(parse("3d6", STEPS), TypedFaces([1, 4, 6]))
    result = opposed(m, g, TypedFaces([]), TypedFaces([]))
    assert (result.winner, result.decided_by) == ("self", "total")
    back = opposed(g, m, TypedFaces([]), TypedFaces([]))
    assert (back.winner, back.decided_by) == ("rival", "total")


def test_ties_break_on_values_then_sizes_then_d12s_exactly() -> None:
    """Seed: "the resulting tie is broken by comparing the following factors: Individual
    die values from largest to smallest, individual die sizes from largest to smallest,
    and finally by repeatedly rolling opposed d12s to see who rolls highest."

    By hand: d6 against d6: a higher total wins 15/36; an equal total with equal values
    is the same face, and equal sizes, so the d12s decide half of those 6/36: 15/36 + 3/36
    = 1/2. d8 against d6: P(d8 > d6) = (0+1+2+3+4+5+6+6)/48 = 27/48, plus the ties
    (6/48, same faces), won on the larger die: 33/48 = 11/16."""
    assert odds.win((6,), 0, (6,), 0) == Fraction(1, 2)
    assert odds.win((8,), 0, (6,), 0) == Fraction(11, 16)
    assert odds.win((6,), 0, (8,), 0) == Fraction(5, 16)


def test_a_die_increase_moves_a_die_up_the_sizes() -> None:
    """Seed: "This game system uses the following polyhedral dice: d4, d6, d8, d10, and
    d12." "A 1-Stage Die Increase increases a die one size, for example from d4 to d6. A
    2-Stage Die Increase will increase a die two sizes, for example from d4 to d8." And
    "[Die Increase effects] will affect the enhancement die unless a different target is
    explicitly described".

    By hand: d4 +1 = d6, d4 +2 = d8, d8 +1 = d10, d10 +1 = d12; on d6+d6+d4 a 1-stage
    increase makes the enhancement d4 a d6."""
    assert increase_die(4, 1, STEPS) == [6]
    assert increase_die(4, 2, STEPS) == [8]
    assert increase_die(8, 1, STEPS) == [10]
    assert increase_die(10, 1, STEPS) == [12]
    assert increase(parse("d6+d6+d4", STEPS), 1, STEPS).sides == (6, 6, 6)


def test_the_chance_of_success_counts_a_total_equal_to_the_difficulty() -> None:
    """Seed: "If the total is equal to or greater than the difficulty the action
    succeeds". By hand for d6 + d6 + d4 (144 equally likely rolls): the least total is 3,
    so a difficulty of 3 always succeeds; only 6, 6, 4 reaches 16: 1/144; 15 is reached by
    6,6,4, 6,6,3, 6,5,4 and 5,6,4: 4/144 = 1/36; nothing reaches 17."""
    assert odds.success((6, 6, 4), 0, 3) == 1
    assert odds.success((6, 6, 4), 0, 16) == Fraction(1, 144)
    assert odds.success((6, 6, 4), 0, 15) == Fraction(1, 36)
    assert odds.success((6, 6, 4), 0, 17) == 0
    assert odds.success((6, 6, 4), 1, 17) == Fraction(1, 144)  # a flat +1


def test_the_enhancement_die_is_the_third_or_the_last_of_fewer() -> None:
    """Seed: "Die Increase effects [...] will affect the enhancement die unless a
    different target is explicitly described" and "A new effect can choose to target
    either die". The enhancement die is the third of a check (stat, skill, enhancement);
    a roll of fewer dice has its last die increased. By hand: d6+d6+d4+d4 +1 -> the third
    die: d6+d6+d6+d4; d6+d8 +1 -> d6+d10; d6 +1 -> d8; d6+d8 +1 on die 1 (0-based 0) ->
    d8+d8; a die 3 of a two-die roll does not exist."""
    assert increase(parse("d6+d6+d4+d4", STEPS), 1, STEPS).sides == (6, 6, 6, 4)
    assert increase(parse("d6+d8", STEPS), 1, STEPS).sides == (6, 10)
    assert increase(parse("d6", STEPS), 1, STEPS).sides == (8,)
    assert increase(parse("d6+d8", STEPS), 1, STEPS, 0).sides == (8, 8)
    assert increase(parse("d6+d8", STEPS), 0, STEPS).sides == (6, 8)
    with pytest.raises(TrackerError, match="die 3 to increase"):
        increase(parse("d6+d8", STEPS), 1, STEPS, 2)
    with pytest.raises(TrackerError, match="die 0 to increase"):
        increase(parse("d6+d8", STEPS), 1, STEPS, -1)
    # A die grown past d12 becomes a pool of its own, kept together: [d8+d6].
    grown = increase(parse("d4+d8+d12", STEPS), 1, STEPS)
    assert grown.sides == (4, 8, 8, 6) and grown.text() == "d4+d8+[d8+d6]"


def test_a_missing_die_counts_below_any_face_when_values_are_compared() -> None:
    """Seed: "the resulting tie is broken by comparing [...] Individual die values from
    largest to smallest". By hand: d6+d6 with a flat +1 showing 6, 4 (total 11) against
    3d6 showing 6, 4, 1 (11): values 6 = 6, 4 = 4, then nothing against 1: the three dice
    win on values."""
    a = roll(parse("d6+d6+1", STEPS), TypedFaces([6, 4]))
    b = roll(parse("3d6", STEPS), TypedFaces([6, 4, 1]))
    result = opposed(a, b, TypedFaces([]), TypedFaces([]))
    assert a.total == b.total == 11
    assert (result.winner, result.decided_by) == ("rival", "die values")


def test_the_stage_figures_are_the_seeds_unless_the_gm_sets_others() -> None:
    """Seed: "exceeds the target difficulty by two or more [...] Every additional two
    [...] adds another level". The two figures (first stage at 2, one more every 2) are
    table rows a GM may change; each must be at least 1. By hand with first_stage 3 and
    stage_size 3 against 8: 10 (2 over) no stage, 11 (3 over) one, 14 (6 over) two."""
    assert StageRule.from_table({}) == StageRule(2, 2)
    house = StageRule.from_table({"first_stage": 3, "stage_size": 3})
    assert [house.stages(t, 8) for t in (10, 11, 14)] == [0, 1, 2]
    assert StageRule.from_table({"first_stage": 1, "stage_size": 1}).stages(9, 8) == 1
    for bad in ({"first_stage": 0}, {"stage_size": 0}, {"first_stage": "two"}):
        with pytest.raises(TrackerError, match=rf"^ogs tables \[check\]\.{next(iter(bad))}: expected a whole number of at least 1, got "):
            StageRule.from_table(bad)


def test_reroll_ones_on_the_enhancement_die_by_hand() -> None:
    """Seed: "a common enhancement modifier will be to reroll ones". By hand, a d4 that
    rerolls a 1 once shows 1 with chance 1/16 and each of 2, 3, 4 with 1/4 + 1/16 = 5/16.
    d6 + d6 + d4 against 14: the d6s make 12 (1/36) and need 2+ on the d4 (15/16), 11
    (2/36) and need 3+ (10/16), 10 (3/36) and need a 4 (5/16): (15 + 20 + 15) / 576 =
    25/288. Without the reroll: (3 + 4 + 3) / 144 = 5/72. With no dice at all, a flat 5
    meets 5 and not 6."""
    assert odds.success((6, 6, 4), 0, 14, reroll_from=2) == Fraction(25, 288)
    assert odds.success((6, 6, 4), 0, 14) == Fraction(5, 72)
    assert odds.success((), 5, 5) == 1 and odds.success((), 5, 6) == 0


# ------------------------------------------------------------------ contests judged at landing
def _contest(*lines: str) -> list[str]:
    from rulesets.ogs import OgsRuleset

    s = session_for(OgsRuleset(), "add A stat=d6 skill=d6 enhancement=", "add B stat=d6 skill=d6 enhancement=", *lines, "next")
    return [e.text for e in s.encounter.log]


def test_an_opposed_check_reads_the_sides_as_they_stand_when_it_lands() -> None:
    """Seed: "both make appropriate Action Checks [...] and compare their totals. The
    participant with the higher total wins", and a flat bonus "is added directly to the
    total". By hand: A d6 3 + d6 4 = 7 against B d6 2 + d6 4 = 6: A wins on total as
    declared. The GM gives B a flat +2 before it lands: B 6 + 2 = 8 beats 7, B wins. With
    +1 instead, 7 against 7: die values (4, 3) beat (4, 2), A wins on die values."""
    declared = "declare A contest target=B faces=3,4,2,4"
    assert "A's contest lands: A d6:3 + d6:4 = 7; B d6:2 + d6:4 = 6: A wins on total" in _contest(declared)
    assert "A's contest lands: A d6:3 + d6:4 = 7; B d6:2 + d6:4 + 2 = 8: B wins on total" in _contest(declared, "set B flat 2")
    assert "A's contest lands: A d6:3 + d6:4 = 7; B d6:2 + d6:4 + 1 = 7: A wins on die values" in _contest(declared, "set B flat 1")


def test_a_contest_whose_dice_changed_or_that_ties_past_the_rolled_d12s_goes_to_the_gm() -> None:
    """The faces were rolled for the dice then. B's skill raised to d8 before it lands:
    the GM settles it again. A flat +1 (3 + 3 + 1 = 7) against B 3 + 4 = 7 as declared:
    A loses on die values (3, 3) < (4, 3); A's flat taken away before it lands leaves 6
    against 7: B wins on total. With B 3, 3 instead (6 against 7 declared) and A's flat
    gone, 6 against 6 with equal values and sizes needs "repeatedly rolling opposed
    d12s", none rolled at declaration: the log asks the GM to roll them."""
    changed = _contest("declare A contest target=B faces=3,4,2,4", "set B skill d8")
    assert any(t.startswith("A's contest lands, but B's check is d6+d8 now, not the d6+d6 rolled for") for t in changed), changed
    assert "A's contest lands: A d6:3 + d6:3 = 6; B d6:3 + d6:4 = 7: B wins on total" in _contest(
        "set A flat 1", "declare A contest target=B faces=3,3,3,4", "set A flat 0")
    tied = _contest("set A flat 1", "declare A contest target=B faces=3,3,3,3", "set A flat 0")
    assert any("still tied after the die values and sizes" in t and "the GM rolls opposed d12s" in t for t in tied), tied


def test_stages_past_those_rolled_for_are_put_to_the_gm_as_the_blow_lands() -> None:
    """Seed: "Attack rolls, on the other hand, benefit greatly with every stage adding
    another die to the damage roll." By hand: d6 6 + d8 8 + d4 2 = 16 against defense 12:
    exceeded by 4, 2 stages, so the d6 damage rolls 1 + 2 dice: 3 + 4 + 5 = 12. The GM
    lowers B's defense to 6 before it lands: exceeded by 10, 5 stages, 3 more than were
    rolled for: the 12 lands and the log puts the 3d6 to the GM, with the commands."""
    from rulesets.ogs import OgsRuleset

    s = session_for(OgsRuleset(), "add A stat=d6 skill=d8 enhancement=d4 damage=d6", "add B defense=12",
                    "declare A attack target=B faces=6,8,2,3,4,5", "set B defense 6", "next")
    texts = [e.text for e in s.encounter.log]
    assert "A's attack lands: 16 vs B's defense 6: hit, 5-stage critical; 12 damage" in texts
    assert s.encounter.combatant("B").resources["hp"] == 20 - 12
    assert ("A's attack: a 5-stage critical, 3 stages more than the 2 rolled for at declaration; each stage adds a "
            "damage die, so the GM decides: roll 3d6 (`roll 3d6`) and deal it (`damage B N resource=hp`), or let the 12 stand") in texts
    # Unchanged, the two stages rolled for are the ones that land, and nothing is put to the GM.
    s = session_for(OgsRuleset(), "add A stat=d6 skill=d8 enhancement=d4 damage=d6", "add B defense=12",
                    "declare A attack target=B faces=6,8,2,3,4,5", "next")
    texts = [e.text for e in s.encounter.log]
    assert "A's attack lands: 16 vs B's defense 12: hit, 2-stage critical; 12 damage" in texts
    assert not any("the GM decides" in t for t in texts)


class _Groups(TypedFaces):
    """Typed faces that also keep each group of dice the roll announces."""

    def __init__(self, faces: list[int]) -> None:
        super().__init__(faces)
        self.groups: list[tuple[str, tuple[int, ...], str]] = []

    def begin(self, group: Any) -> None:
        self.groups.append((group.label, group.sides, group.who))


def test_either_side_wins_a_tie_on_die_sizes_or_the_d12_roll_off_and_both_rolls_are_kept() -> None:
    """Seed: "the resulting tie is broken by comparing the following factors: Individual
    die values from largest to smallest, individual die sizes from largest to smallest,
    and finally by repeatedly rolling opposed d12s to see who rolls highest." By hand:
    the guard's 3d6 (1, 4, 6) against Michael's d4+d8+d8 (1, 4, 6): total 11 and values
    6, 4, 1 both; the guard's largest die is a d6 to Michael's d8, so the guard loses on
    die sizes from either side. Two 2d6 rolls of 3 + 4 tie on everything: the d12s 5 vs 5
    tie again, then 9 vs 2: the first side wins the roll-off. Each side rolls one d12 a
    time, the rival's named as the rival's; both rolls stay on the outcome. 4 + 3 against
    2 + 5 ties on 7; the largest values are 4 and 5: the rival wins on die values. A
    roll-off still tied after 1000 pairs of d12s is refused (the dice source is wrong)."""
    m = roll(parse("d4+d8+d8", STEPS), TypedFaces([1, 4, 6]))
    g = roll(parse("3d6", STEPS), TypedFaces([1, 4, 6]))
    result = opposed(g, m, TypedFaces([]), TypedFaces([]))
    assert (result.winner, result.decided_by, result.own, result.rival) == ("rival", "die sizes", g, m)
    assert result.text() == "rival wins on die sizes"
    a = roll(parse("2d6", STEPS), TypedFaces([3, 4]))
    b = roll(parse("2d6", STEPS), TypedFaces([4, 3]))
    own, theirs = _Groups([5, 9]), _Groups([5, 2])
    result = opposed(a, b, own, theirs, "Guard")
    assert (result.winner, result.decided_by, result.roll_off, result.own, result.rival) == ("self", "d12 roll-off", [(5, 5), (9, 2)], a, b)
    assert result.text() == "self wins on d12 roll-off (5 vs 5, 9 vs 2)"
    assert own.groups == [("d12 roll-off", (12,), "")] * 2
    assert theirs.groups == [("d12 roll-off", (12,), "Guard")] * 2
    assert opposed(a, b, _Groups([5, 2]), _Groups([5, 9])).own == a
    c = roll(parse("2d6", STEPS), TypedFaces([2, 5]))
    by_values = opposed(b, c, TypedFaces([]), TypedFaces([]))
    assert (by_values.winner, by_values.decided_by, by_values.own, by_values.rival) == ("rival", "die values", b, c)
    with pytest.raises(TrackerError, match=r"^the d12 roll-off tied 1000 times; check the dice source$"):
        opposed(a, b, TypedFaces([7] * 1000), TypedFaces([7] * 1000))
