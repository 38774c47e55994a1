"""USOR (seed 000): each core sentence of the Event Roll rules, quoted, with numbers worked
by hand from the sentence. The seed's four worked examples are in tests/test_usor.py
(`test_example_1_...` to `test_example_4_...`), number for number.

The later sections check that the lines a GM reads (a roll's line, each dice prompt, a
strike's summary and landing) carry the seed's numbers: the rating, the chart row's dice,
every face beside its die, the successes, the winner and the NOST. A line that showed
another count, die or NOST would mislead the table."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from rulesets.dice import NotEnoughFaces, RandomDice, TypedFaces, for_actor
from rulesets.usor import UsorRuleset
from rulesets.usor.chart import ChartRow, render_toml
from rulesets.usor.odds import chance_to_win, outcome_chances
from rulesets.usor.rolls import (
    DRAW,
    RIVAL,
    SELF,
    EventRoll,
    Exchange,
    contest,
    count_successes,
    parse_rating,
)
from rulesets.usor.sheet import defense, starting_resources
from tracker.engine.effects import Blow
from rulesets.usor.sheet import rating as sheet_rating
from tracker.engine.errors import TrackerError
from tests.helpers import ListeningFaces, cli, cli_json, session_for


def row(rating: int) -> Any:
    return UsorRuleset().chart.row(rating)


def test_each_die_counts_as_one_success_and_one_success_only() -> None:
    """Seed: "Regardless of how many or which dice are used, each die has the potential to
    count as 1 Success and 1 Success ONLY." and "Any roll (regardless of the number of
    sides of the die rolled) that is 4 or greater, counts as a Success."

    By hand: 3, 4, 20, 1, 12 -> the 4, the 20 and the 12 are successes: 3 (a 20 is still
    one). 4 is the least face that counts; 3 does not."""
    assert count_successes([3, 4, 20, 1, 12]) == 3
    assert count_successes([20, 20]) == 2
    assert count_successes([3, 3, 3]) == 0
    assert count_successes([4]) == 1
    # The same through the command line: rating 24 is 2d20 (seed example 1), faces 20 and 3.
    assert cli_json("roll", "usor", "24", "--faces", "20,3")["successes"] == 1


def test_the_rating_is_modified_before_the_roll_and_read_on_the_event_chart() -> None:
    """Seed: "if a character has a Dagger Skill of 12 but because of a certain situation,
    has a +4 modification to the Rating, his/her Event Roll Rating is 16 [...] Looking up
    the Event Rating on the Event Chart, we see the character would roll a 1d8 and a
    1d12." The seed's other rows: 18 is 1d10 + 1d12 (Max), 24 is 2d20 (the boulder), 20
    is 2d12 (Carla), 19 is 1d8 + 1d20, 35 is 1d20 + 2d12, 31 is 3d6 + 1d8."""
    data = cli_json("roll", "usor", "12+4", "--faces", "3,8")
    assert data["rating"] == 16 and data["dice_sizes"] == [8, 12]
    assert sorted(row(16).dice) == [8, 12]
    assert sorted(row(18).dice) == [10, 12]
    assert sorted(row(24).dice) == [20, 20]
    assert sorted(row(20).dice) == [12, 12]
    assert sorted(row(19).dice) == [8, 20]
    assert sorted(row(35).dice) == [12, 12, 20]
    assert sorted(row(31).dice) == [6, 6, 6, 8]
    for rating in (16, 18, 19, 20, 24, 31, 35):
        assert not row(rating).derived


def test_more_successes_wins_fewer_loses_equal_draws() -> None:
    """Seed: "The character wins if his/her Number of Successes is greater than the rival
    Event Roll's [...] loses if [...] less than [...] There is a draw, if the character's
    Number of Successes is equal"."""
    r = row(20)  # 2d12
    assert Exchange(EventRoll(r, (4, 11)), EventRoll(r, (1, 11))).winner == SELF
    assert Exchange(EventRoll(r, (1, 11)), EventRoll(r, (4, 11))).winner == RIVAL
    assert Exchange(EventRoll(r, (4, 3)), EventRoll(r, (3, 9))).winner == DRAW
    assert Exchange(EventRoll(r, (1, 2)), EventRoll(r, (3, 3))).winner == DRAW


def test_nost_is_the_winners_successes_over_the_losers() -> None:
    """Seed: "if your Event Roll resulted in 4 Successes for you and 1 for your opponent,
    your opponent fails and you receive a NOST of 3 (because 4 - 1 = 3). Conversely, if
    you were to receive 2 Successes and your opponent received 3 Successes, he would be
    the victor and his NOST score would be 1 (because 3 - 2 = 1)."

    Rating 31 is 3d6 + 1d8 (seed example 4): 4, 5, 6, 7 is 4 successes; 1, 2, 3, 4 is 1."""
    r = row(31)
    four_to_one = contest(r, r, TypedFaces([4, 5, 6, 7]), TypedFaces([1, 2, 3, 4]), against_event=False)
    assert four_to_one.winner == SELF and four_to_one.nost == 3
    two_to_three = contest(r, r, TypedFaces([4, 5, 1, 1]), TypedFaces([4, 5, 6, 1]), against_event=False)
    assert two_to_three.winner == RIVAL and two_to_three.nost == 1
    # The same on the command line: the NOST is the winner's, from either side.
    data = cli_json("roll", "usor", "31", "--vs", "31", "--faces", "4,5,1,1", "--vs-faces", "4,5,6,1")
    assert data["winner"] == "rival" and data["nost"] == 1


def test_a_draw_between_characters_is_no_win_and_against_an_event_they_roll_again() -> None:
    """Seed: "If two characters are rolling against each other, neither was successful
    against the other [...] If one character is rolling against an event [...] both
    opposing rolls must be made continuously until one is victorious."

    By hand, 2d12 against 2d12: 4, 1 against 5, 2 is one each, a draw; rolled again, 6,
    6 against 1, 1 is two to none: the character wins, NOST 2."""
    r = row(20)
    drawn = contest(r, r, TypedFaces([4, 1]), TypedFaces([5, 2]), against_event=False)
    assert drawn.winner == DRAW and drawn.nost == 0 and len(drawn.exchanges) == 1
    event = contest(r, r, TypedFaces([4, 1, 6, 6]), TypedFaces([5, 2, 1, 1]), against_event=True)
    assert len(event.exchanges) == 2 and event.winner == SELF and event.nost == 2
    # Exact odds: d12 against d12 (rating 2d12 vs 2d12 is symmetric), so a character wins
    # outright less than half the time, and against an event exactly half the time.
    win, draw, lose = outcome_chances((12, 12), (12, 12))
    assert win == lose and win + draw + lose == 1 and win < Fraction(1, 2)
    assert chance_to_win((12, 12), (12, 12), against_event=True) == Fraction(1, 2)


def test_a_single_d6_against_a_single_d6_by_hand() -> None:
    """Seed: "Any roll [...] that is 4 or greater, counts as a Success. The number of
    Successes is totaled up and compared". By hand: one d6 succeeds on 4, 5, 6: 1/2. One
    die each: win = 1/2 x 1/2 = 1/4, lose 1/4, draw 1/2; against an event the draws are
    rolled again: 1/4 / (1 - 1/2) = 1/2. One d4 (only the 4: 1/4) against one d20 (4-20:
    17/20): win 1/4 x 3/20 = 3/80."""
    assert outcome_chances((6,), (6,)) == (Fraction(1, 4), Fraction(1, 2), Fraction(1, 4))
    assert chance_to_win((6,), (6,), against_event=True) == Fraction(1, 2)
    assert chance_to_win((4,), (20,), against_event=False) == Fraction(3, 80)


def declare_padded(s: Any, faces: list[int]) -> Any:
    """Declare A's strike on B with `faces`, then ones for whatever dice the damage roll
    asks for (their number depends on the Damage Rating's chart row)."""
    for extra in range(20):
        try:
            s.declare("A", "strike", ["B"], faces=faces + [1] * extra)
            return s.encounter.actions[-1].resolution
        except NotEnoughFaces:
            continue
    raise AssertionError("the strike never had enough faces")


@pytest.mark.parametrize("nost", [2, 3, 4, 5, 6])
def test_critical_strike_the_higher_the_nost_the_better(nost: int) -> None:
    """Seed: "Characters who have the Critical Strike ability can use NOST to increase
    damage done in combat. A NOST of 1 is sufficient to strike an opponent but a NOST of
    2 adds additional damage to the attack. A NOST of 3 would add even more and a NOST of
    4 would be even greater still, and so on and so forth. Simply put, the higher the
    NOST, the better."

    The seed gives no figures, so the test checks what it does say: nothing at NOST 1
    (or 0), something at 2, and each NOST more than the one before; nothing without the
    ability."""
    r = UsorRuleset()
    s = session_for(r, "add A critical_strike=true", "add P critical_strike=false")
    a, plain = s.encounter.combatant("A"), s.encounter.combatant("P")
    bonus = r.resolver().critical_bonus
    assert bonus(a, 0) == 0 and bonus(a, 1) == 0
    assert bonus(a, nost) > bonus(a, nost - 1)
    assert bonus(plain, nost) == 0


def test_critical_strike_adds_its_nost_2_damage_to_the_strike() -> None:
    """Seed: "a NOST of 2 adds additional damage to the attack". By hand: a strike of 20
    (2d12) showing 12, 12 against a dodge of 11 (derived 1d4 + 1d20) showing 1, 1 is 2
    successes to none, NOST 2: with the ability the Damage Rating goes up by the NOST-2 figure, without
    it not at all."""
    r = UsorRuleset()
    with_cs = session_for(r, "add A attack=20 damage=20 critical_strike=true", "add B dodge=11 vitality=10")
    without = session_for(UsorRuleset(), "add A attack=20 damage=20", "add B dodge=11 vitality=10")
    hit, plain = declare_padded(with_cs, [12, 12, 1, 1]), declare_padded(without, [12, 12, 1, 1])
    assert hit.details["nost"] == 2 and plain.details["nost"] == 2
    extra = r.resolver().critical_bonus(with_cs.encounter.combatant("A"), 2)
    assert extra > 0 and hit.details["critical_strike"] == extra and "critical_strike" not in plain.details
    assert f"damage {20 + extra} (damage 20, Critical Strike +{extra})" in hit.summary
    assert "damage 20 [" in plain.summary


# ------------------------------------------------------------------ the lines a GM reads


def test_example_1_the_boulder_line_shows_each_face_and_the_nost() -> None:
    """Seed example 1: "Max rolls 1d10 and 1d12 [...] a 3 and an 8. Since only one of
    these numbers is 4 or higher, he has rolled one Success. The boulder rolls 2d20 [...]
    a 15 and a 9 [...] two Successes. The boulder has a NOST of 1 (2 – 1 = 1)." """
    data = cli_json("roll", "usor", "18", "--difficulty", "24", "--faces", "3,8", "--vs-faces", "15,9")
    assert data["text"] == (
        "self rating 18 (1d10+1d12): d10 3, d12 8 -> 1 success vs "
        "event rating 24 (2d20): d20 15, d20 9 -> 2 successes; event wins, NOST 1"
    )


def test_example_2_carla_wins_against_the_corner() -> None:
    """Seed example 2: "Carla rolls 2d12 [...] a 4 and an 11. This gives her two
    successes. The opposing Event Roll rolls a 1d8 and 1d20 resulting in rolls of 1 and
    17. Carla has a NOST of 1 for this roll (2 – 1 = 1)." """
    data = cli_json("roll", "usor", "20", "--difficulty", "19", "--faces", "4,11", "--vs-faces", "1,17")
    assert data["text"] == (
        "self rating 20 (2d12): d12 4, d12 11 -> 2 successes vs "
        "event rating 19 (1d8+1d20): d8 1, d20 17 -> 1 success; self wins, NOST 1"
    )
    assert data["rounds"] == [{"dice": [4, 11], "rival_dice": [1, 17], "successes": 2, "rival_successes": 1}]


def test_example_3_the_drawn_dance_says_two_each_and_no_winner() -> None:
    """Seed example 3: "This gives him two successes. [...] This gives her two successes.
    Since both Juan and Heather rolled two successes, there is a draw." Juan's 1d20+2d12
    typed d20 first (20, 2, 12: the seed's 2, 13, 20 cannot come from two d12s);
    Heather's 1d8+1d20: 6 and 14."""
    data = cli_json("roll", "usor", "35", "--vs", "19", "--faces", "20,2,12", "--vs-faces", "6,14")
    assert data["text"] == (
        "self rating 35 (1d20+2d12): d20 20, d12 2, d12 12 -> 2 successes vs "
        "rival rating 19 (1d8+1d20): d8 6, d20 14 -> 2 successes; draw (2 each): neither side wins"
    )
    # Heather wins the re-dance if Juan's dice fail: she is the rival, NOST 1.
    data = cli_json("roll", "usor", "35", "--vs", "19", "--faces", "1,2,3", "--vs-faces", "2,19")
    assert data["text"].endswith("-> 0 successes vs rival rating 19 (1d8+1d20): d8 2, d20 19 -> 1 success; rival wins, NOST 1")
    assert data["rival_dice"] == [2, 19] and data["margin"] == -1


def test_a_roll_against_an_event_lists_each_repeat() -> None:
    """Seed: "If one character is rolling against an event [...] both opposing rolls
    must be made continuously until one is victorious." Max (18: 1d10+1d12) first rolls
    1 and 2, the boulder (24: 2d20) 3 and 1: no success each, a draw; then the seed's
    3, 8 against 15, 9: one success to two, the boulder wins, NOST 1."""
    data = cli_json("roll", "usor", "18", "--difficulty", "24", "--faces", "1,2,3,8", "--vs-faces", "3,1,15,9")
    assert data["text"] == (
        "roll 1: self rating 18 (1d10+1d12): d10 1, d12 2 -> 0 successes vs "
        "event rating 24 (2d20): d20 3, d20 1 -> 0 successes; "
        "roll 2: self rating 18 (1d10+1d12): d10 3, d12 8 -> 1 success vs "
        "event rating 24 (2d20): d20 15, d20 9 -> 2 successes; event wins, NOST 1"
    )
    assert data["dice"] == [1, 2, 3, 8] and data["rival_dice"] == [3, 1, 15, 9]
    assert [(r["successes"], r["rival_successes"]) for r in data["rounds"]] == [(0, 0), (1, 2)]


def test_a_check_in_the_tracker_asks_for_each_repeat_by_name() -> None:
    """The same boulder in a fight: the check's prompts name Max's roll and the GM's roll
    for the event with their chart rows, and the repeat after the draw says "roll 2";
    the summary shows the rating each side rolled."""
    r = UsorRuleset()
    s = session_for(r, "add Max agility=18")
    request, _ = s.request("Max", "check", [], {"against": "24"})
    dice = ListeningFaces([1, 2, 3, 1, 3, 8, 15, 9])
    res = r.resolve(request, for_actor(dice, "Max"))
    assert dice.groups == [
        "Max's agility 18 roll (Event Chart row 18): 1d10+1d12",
        "the GM's roll for the event (Event Chart row 24): 2d20",
        "Max's agility 18 roll (roll 2) (Event Chart row 18): 1d10+1d12",
        "the GM's roll for the event (roll 2) (Event Chart row 24): 2d20",
    ]
    assert res.summary == (
        "roll 1: Max agility 18 [1d10+1d12]: d10 1, d12 2 -> 0 successes vs "
        "the event rating 24 [2d20]: d20 3, d20 1 -> 0 successes; "
        "roll 2: Max agility 18 [1d10+1d12]: d10 3, d12 8 -> 1 success vs "
        "the event rating 24 [2d20]: d20 15, d20 9 -> 2 successes; the event wins, NOST 1"
    )
    assert res.details == {"rating": 18, "rival_rating": 24, "winner": "rival", "nost": 1, "exchanges": 2,
                           "chart": ["official", "official"]}
    assert res.margin == -1 and res.success is False and res.dice == (1, 2, 3, 1, 3, 8, 15, 9)


def test_a_contest_names_the_rival_and_a_draw_tells_the_gm_to_act_again() -> None:
    """Seed example 4 in a fight: Juan's Dancing 35 less 4 for the slippery floor is 31
    (3d6+1d8); Heather's 19 (1d8+1d20). Juan 2, 5, 5, 3 (two successes) against 6, 14 (two):
    "If two characters are rolling against each other, neither was successful against the
    other and if the two wish to roll against each other again, each must perform the
    action again and spend the appropriate amount of AT." """
    r = UsorRuleset()
    s = session_for(r, "add Juan agility=35", "add Heather agility=19")
    request, _ = s.request("Juan", "contest", ["Heather"], {"modifier": "-4"})
    dice = ListeningFaces([2, 5, 5, 3, 6, 14])
    res = r.resolve(request, for_actor(dice, "Juan"))
    assert dice.groups == [
        "Juan's opposed roll (Event Chart row 31): 3d6+1d8",
        "Heather's opposed roll (Event Chart row 19): 1d8+1d20",
    ]
    assert res.summary == (
        "Juan 31 (agility 35, modifier -4) [3d6+1d8]: d6 2, d6 5, d6 5, d8 3 -> 2 successes vs "
        "Heather agility 19 [1d8+1d20]: d8 6, d20 14 -> 2 successes; draw (2 each): neither side wins"
    )
    assert [e.text for e in res.effects] == [
        "Juan and Heather draw: neither wins; trying again means acting again and paying the time again"]
    assert res.success is False and res.margin == 0
    assert res.details == {"rating": 31, "rival_rating": 19, "winner": "draw", "nost": 0, "exchanges": 1,
                           "chart": ["official", "official"]}


def test_a_won_contest_has_no_draw_note_and_the_rivals_own_stat_and_modifier() -> None:
    """Seed: "The character wins if his/her Number of Successes is greater than the rival
    Event Roll's". Juan's Dancing (agility) 35 against Heather's perception 15 with +4:
    rating 19, 1d8+1d20. Juan 14, 1, 6 (two successes) against 2, 19 (one): Juan wins,
    NOST 1."""
    r = UsorRuleset()
    s = session_for(r, "add Juan agility=35", "add Heather perception=15")
    request, _ = s.request("Juan", "contest", ["Heather"], {"rival_stat": "perception", "rival_modifier": "4"})
    res = r.resolve(request, TypedFaces([14, 1, 6, 2, 19]))
    assert res.summary.endswith(
        "Heather 19 (perception 15, modifier +4) [1d8+1d20]: d8 2, d20 19 -> 1 success; Juan wins, NOST 1")
    assert res.effects == () and res.success is True and res.margin == 1
    assert res.details["rival_rating"] == 19 and res.details["winner"] == "self"
    # Without rival_stat both roll the same stat: Juan's perception 20 against Heather's 15.
    s.execute("set Juan perception 20")
    request, _ = s.request("Juan", "contest", ["Heather"], {"stat": "perception"})
    res = r.resolve(request, TypedFaces([4, 4, 1, 1]))
    assert (res.details["rating"], res.details["rival_rating"]) == (20, 15)
    assert "Heather perception 15 [" in res.summary


# ------------------------------------------------------------------ the Event Rating
@pytest.mark.parametrize("spec,rating", [
    ("12+4", 16), ("12 + 4", 16), ("35-4", 31), ("35 - 4", 31), ("12+4-2", 14), ("16", 16), ("-4+20", 16),
])
def test_the_rating_adds_its_modifications_before_the_roll(spec: str, rating: int) -> None:
    """Seed: "a Dagger Skill of 12 [...] has a +4 modification to the Rating, his/her
    Event Roll Rating is 16" and example 4: 35 reduced "by -4" is 31. By hand: 12 + 4 =
    16, 35 - 4 = 31, injured and enhanced at once 12 + 4 - 2 = 14, -4 + 20 = 16."""
    assert parse_rating(spec) == rating


@pytest.mark.parametrize("spec", ["16-", "12++4", "12+-4", "+16", "--4", "-+4", "1 6x", "12X4", "sixteen"])
def test_a_rating_that_is_not_a_sum_of_whole_numbers_is_refused_by_name(spec: str) -> None:
    with pytest.raises(TrackerError, match=rf"^--vs: expected an Event Rating such as 16 or 35-4, got '{spec}'$".replace("+", r"\+")):
        parse_rating(spec, "--vs")


def test_an_empty_rating_is_refused_by_name(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(TrackerError, match=r"^rating: expected an Event Rating such as 16 or 35-4$"):
        parse_rating(" ")
    assert cli("roll", "usor", "12+", "--faces", "3,8")[0] == 1
    assert "rating: expected an Event Rating such as 16 or 35-4, got '12+'" in capsys.readouterr().err
    assert cli("roll", "usor", "16", "--vs", "1x", "--faces", "3,8")[0] == 1
    assert "--vs: expected an Event Rating such as 16 or 35-4, got '1x'" in capsys.readouterr().err


# ------------------------------------------------------------------ the chart's dice
def test_a_rows_dice_are_named_in_the_rows_order_with_equal_neighbours_counted() -> None:
    """Seed: "Juan rolls a 1d20 and 2d12" (rating 35) and "must roll 3d6 + 1d8" (31).
    A house row written 12, 20, 12 is read in that order: 1d12+1d20+1d12."""
    chart = UsorRuleset().chart
    assert chart.row(35).dice_text() == "1d20+2d12"
    assert chart.row(31).dice_text() == "3d6+1d8"
    assert chart.row(24).dice_text() == "2d20"
    assert ChartRow(40, (12, 20, 12), "house").dice_text() == "1d12+1d20+1d12"
    assert ChartRow(0, (), "house").dice_text() == "no dice"
    assert ChartRow(0, (), "house").label() == "rating 0 (house row: no dice)"
    assert EventRoll(ChartRow(0, (), "house"), ()).text() == "rating 0 (house row: no dice): no dice -> 0 successes"


def test_rows_without_dice_against_an_event_are_refused() -> None:
    """Against an event "both opposing rolls must be made continuously until one is
    victorious": with no dice on either side nobody ever wins, so the roll is refused;
    one side with dice always wins in the end (a d6 shows 4 or more within a few rolls)."""
    empty = ChartRow(0, (), "house")
    with pytest.raises(TrackerError, match=r"^both rows have no dice, so the roll against the event could never be decided$"):
        contest(empty, empty, TypedFaces([]), TypedFaces([]), against_event=True)
    with pytest.raises(TrackerError, match=r"^neither side has any dice, so the roll against the event could never be decided$"):
        chance_to_win((), (), against_event=True)
    assert chance_to_win((), (), against_event=False) == 0  # between characters: always a draw
    one = ChartRow(3, (6,), "house")
    won = contest(one, empty, TypedFaces([1, 2, 4]), TypedFaces([]), against_event=True)
    assert len(won.exchanges) == 3 and won.winner == "self" and won.nost == 1
    lost = contest(empty, one, TypedFaces([]), TypedFaces([3, 6]), against_event=True)
    assert len(lost.exchanges) == 2 and lost.winner == "rival" and lost.nost == 1
    # Between characters, two empty rows simply draw.
    assert contest(empty, empty, TypedFaces([]), TypedFaces([]), against_event=False).winner == "draw"


# The derived rows by hand (rulesets/usor/chart.py: a least-squares line of expected
# successes against rating through the seed's seven rows, then the set of 1-8 dice
# nearest the line, fewer dice winning a tie). Counted in fortieths, a die's chance of 4+
# is d4 10, d6 20, d8 25, d10 28, d12 30, d20 34; the seed's rows expect 16: 25 + 30 =
# 55, 18: 28 + 30 = 58, 19: 25 + 34 = 59, 20: 60, 24: 68, 31: 3 x 20 + 25 = 85, 35: 34 +
# 60 = 94. Sums: n = 7, x 163, x^2 4103, y 479, xy 11802. Slope (7 x 11802 - 163 x 479) /
# (7 x 4103 - 163^2) = 4537 / 2152; intercept (479 - 163 x 4537/2152) / 7 = 41611 / 2152.
# So rating R wants (41611 + 4537 R) / 2152 fortieths (a = 41611/86080 ~ 0.4834,
# b = 4537/86080 ~ 0.0527 successes):
# (Only d4s, at 10, let three or more dice come under 60, so a sum below 60 is one die,
# two dice, or d4s with one or two dice making the rest.)
#   R 1: 21.44 -> nothing makes 21 to 24; 20 is one d6 (d4 + d4 also 20: more dice).
#   R 3: 25.66 -> nothing makes 26 or 27; 25 is one d8.
#   R 11: 42.53 -> nothing makes 42 or 43 (no pair does; with d4s the rest would be
#     32/33, 22/23 or 12/13: no die or pair); 44 = d4 + d20 is nearer than 41.
#   R 14: 48.85 -> nothing makes 49 (no pair; the rest 39, 29, 19 or 9 after d4s: none);
#     50 is farther than 48 = d6 + d10 (d4 + d4 + d10 is also 48: more dice).
#   R 17: 55.18 -> 55 = d8 + d12 (d4 + d6 + d8 is also 55: more dice); 56 is farther.
#   R 22: 65.72 -> 66: no two dice sum to it; d4 + d10 + d10 = 10 + 28 + 28.
def test_the_shipped_event_chart_is_the_documented_rule_written_out() -> None:
    """The seven rows the seed gives (seed: "the Event Roll Rating is 16 [...] the
    character would roll a 1d8 and a 1d12", example 1's 1d10 and 1d12 at 18 and 2d20 at
    24, ...) written out with every derived row from 1 to 100 is, line for line, the
    `[event_chart]` table shipped in tables.toml (so regenerating it changes nothing).
    The glossary's rating 11 (1d6+1d8) is not in the seed: it is no official row and
    takes no part in the fit; the shipped row 11 is derived (1d4+1d20, above)."""
    chart = UsorRuleset().chart
    official = {r: (row.dice, row.note) for r, row in chart.rows.items() if row.source == "official"}
    assert sorted(official) == [16, 18, 19, 20, 24, 31, 35]
    shipped = (Path(__file__).resolve().parent.parent / "rulesets" / "usor" / "tables.toml").read_text()
    table = shipped[shipped.index("[event_chart]\n"):]
    assert render_toml(official) == table
    assert '16 = { dice = [8, 12], source = "official", note = "Event Rolls page: Dagger 12 +4 = 16 rolls 1d8 and 1d12" }' in table
    for line in ('1 = { dice = [6], source = "derived" }', '3 = { dice = [8], source = "derived" }',
                 '11 = { dice = [4, 20], source = "derived" }', '14 = { dice = [6, 10], source = "derived" }',
                 '17 = { dice = [8, 12], source = "derived" }', '22 = { dice = [4, 10, 10], source = "derived" }'):
        assert f"\n{line}\n" in table


# ------------------------------------------------------------------ strikes
# USOR strikes: the Event Rolls of a strike (seed 000: "Event Rolls are always made
# against other Event Rolls") and how the blow lands (reference/systems.md 1.5, the
# "Striking an Opponent" and "Damage" pages; the tracker's decisions in
# rulesets/usor/actions.py).
#
# Strike rating = attack + the location's penalty + 1 per Size Level the attacker is
# below the defender; Dodge = dodge + parry; Damage Rating = damage + 5 per Size Level the
# weapon is above the defender; Defense = Vitality + Armor + Natural Armor. Every figure
# below is worked by hand from those sums and the chart rows the seed gives (16: 1d8+1d12,
# 18: 1d10+1d12, 20: 2d12, 24: 2d20) or the shipped derived rows (14: 1d6+1d10, worked
# above the chart test). A strike always asks for four rolls: strike, dodge, then damage
# and Defense, the last two rolled hit or miss and used only on a hit.


def strike(lines: tuple[str, ...], params: dict[str, Any], faces: list[int], actor: str = "Jennie",
           target: str = "Steve") -> tuple[Any, ListeningFaces]:
    r = UsorRuleset()
    s = session_for(r, *lines)
    request, _ = s.request(actor, "strike", [target], params)
    dice = ListeningFaces(faces)
    return r.resolve(request, for_actor(dice, actor)), dice


def log_texts(s: Any) -> list[str]:
    return [e.text for e in s.encounter.log]


JENNIE = "add Jennie attack=20 damage=24"
STEVE = "add Steve dodge=16 parry=2 vitality=10 armor=1 natural_armor=3"


def test_a_hit_shows_all_four_rolls_and_takes_the_damage_off_the_location() -> None:
    """Jennie (attack 20, damage 24) strikes Steve's right arm (-6): strike 14, 1d6+1d10,
    5 and 9: two successes. Steve's dodge 16 + parry 2 = 18, 1d10+1d12, 2 and 7: one. Hit,
    NOST 2 - 1 = 1. Damage 24 (2d20) 15 and 9: two; Defense 10 + 1 + 3 = 14 (1d6+1d10),
    1 and 2: none. 2 - 0 = 2 points off the right arm's 6: 4 left."""
    res, dice = strike((JENNIE, STEVE), {"location": "right_arm"}, [5, 9, 2, 7, 15, 9, 1, 2])
    assert dice.groups == [
        "Jennie's strike (Event Chart row 14): 1d6+1d10",
        "Steve's dodge (Event Chart row 18): 1d10+1d12",
        "Jennie's damage (Event Chart row 24): 2d20",
        "Steve's Defense (Event Chart row 14): 1d6+1d10",
    ]
    assert res.summary == (
        "strike 14 (attack 20, right arm -6) [1d6+1d10, derived row]: d6 5, d10 9 -> 2 successes vs "
        "dodge 18 (dodge 16, parry +2) [1d10+1d12]: d10 2, d12 7 -> 1 success; "
        "hit, NOST 1; damage 24 [2d20]: d20 15, d20 9 -> 2 successes vs "
        "Defense 14 (vitality 10, armor +1, natural armor +3) [1d6+1d10, derived row]: d6 1, d10 2 -> 0 successes; "
        "2 to the right arm; judged when it lands"
    )
    assert (res.success, res.margin, res.dice, res.pt) == (True, 1, (5, 9, 2, 7, 15, 9, 1, 2), 10)
    assert res.effects == (Blow("Steve", 0),)  # judged when it lands
    hit = res.details["hits"][0]
    assert res.details["nost"] == 1 and res.details["winner"] == "self" and res.details["damage"] == 2
    assert res.details["location"] == "right_arm" and res.details["chart"] == ["derived", "official", "official", "derived"]
    assert hit["ratings"] == {"strike": 14, "dodge": 18, "damage": 24, "Defense": 14}
    assert hit["constants"] == {"penalty": -6, "strike_per_size": 1, "damage_per_size": 5}
    assert (hit["target"], hit["hit"], hit["resource"], hit["where"], hit["damage"]) == (
        "Steve", True, "right_arm", "to the right arm", 2)
    assert hit["params"]["location"] == "right_arm" and "critical" not in hit

    s = session_for(UsorRuleset(), JENNIE, STEVE)
    s.execute("declare Jennie strike target=Steve location=right_arm faces=5,9,2,7,15,9,1,2")
    s.execute("next")
    assert s.encounter.combatants["Steve"].resources["right_arm"] == 6 - 2
    assert "Jennie's strike at Steve lands: hit for 2 to the right arm" in log_texts(s)


def test_a_stun_strike_takes_stun_and_says_so() -> None:
    """The same rolls with stun=true: the 2 points come off Steve's 20 stun: 18."""
    res, _ = strike((JENNIE, STEVE), {"location": "right_arm", "stun": "true"}, [5, 9, 2, 7, 15, 9, 1, 2])
    assert res.summary.endswith("-> 0 successes; 2 stun; judged when it lands")
    assert res.details["hits"][0]["resource"] == "stun" and res.details["hits"][0]["where"] == "stun"
    s = session_for(UsorRuleset(), JENNIE, STEVE)
    s.execute("declare Jennie strike target=Steve location=right_arm stun=true faces=5,9,2,7,15,9,1,2")
    s.execute("next")
    assert s.encounter.combatants["Steve"].resources["stun"] == 18
    assert s.encounter.combatants["Steve"].resources["right_arm"] == 6
    assert "Jennie's strike at Steve lands: hit for 2 stun" in log_texts(s)


def test_a_dodged_strike_names_the_dodger_and_the_nost() -> None:
    """Seed: "The character loses if his/her Number of Successes is less than the rival
    Event Roll's". Strike 14 (1d6+1d10) shows 1 and 9 (one success), dodge 18 (1d10+1d12)
    shows 5 and 7 (two): Steve dodges with NOST 2 - 1 = 1. The damage and Defense dice are
    asked for all the same: damage 24 (2d20) 15 and 9 (two) against Defense 14
    (1d6+1d10) 1 and 2 (none) would be 2 on a hit, but nothing is taken off."""
    res, dice = strike((JENNIE, STEVE), {"location": "right_arm"}, [1, 9, 5, 7, 15, 9, 1, 2])
    assert dice.groups == [
        "Jennie's strike (Event Chart row 14): 1d6+1d10",
        "Steve's dodge (Event Chart row 18): 1d10+1d12",
        "Jennie's damage (Event Chart row 24): 2d20",
        "Steve's Defense (Event Chart row 14): 1d6+1d10",
    ]
    assert res.summary.endswith(
        "-> 2 successes; Steve dodges (NOST 1); damage rolled all the same, used only on a hit: "
        "damage 24 [2d20]: d20 15, d20 9 -> 2 successes vs "
        "Defense 14 (vitality 10, armor +1, natural armor +3) [1d6+1d10, derived row]: d6 1, d10 2 -> 0 successes; "
        "judged when it lands")
    assert (res.success, res.margin, res.details["damage"], res.details["winner"]) == (False, -1, 0, "rival")
    assert res.details["hits"][0]["outcome"] == "Steve dodges (NOST 1)" and res.details["hits"][0]["hit"] is False
    assert res.details["chart"] == ["derived", "official", "official", "derived"]
    s = session_for(UsorRuleset(), JENNIE, STEVE)
    s.execute("declare Jennie strike target=Steve location=right_arm faces=1,9,5,7,15,9,1,2")
    s.execute("next")
    assert "Jennie's strike at Steve lands: Steve dodges (NOST 1)" in log_texts(s)
    assert s.encounter.combatants["Steve"].resources == starting_resources(UsorRuleset().tables)


def test_a_hit_the_defense_holds_against_does_no_damage() -> None:
    """Damage is the damage roll's successes over the Defense roll's, when positive:
    damage 24 shows 1 and 9 (one success), Defense 14 shows 4 and 5 (two): no damage."""
    res, _ = strike((JENNIE, STEVE), {"location": "right_arm"}, [5, 9, 2, 7, 1, 9, 4, 5])
    assert res.summary.endswith("-> 2 successes; the Defense holds: no damage; judged when it lands")
    assert res.details["damage"] == 0 and res.success is True
    s = session_for(UsorRuleset(), JENNIE, STEVE)
    s.execute("declare Jennie strike target=Steve location=right_arm faces=5,9,2,7,1,9,4,5")
    s.execute("next")
    assert "Jennie's strike at Steve lands: hit, the Defense holds: no damage" in log_texts(s)
    assert s.encounter.combatants["Steve"].resources["right_arm"] == 6


def test_size_and_every_modifier_show_in_the_ratings() -> None:
    """Small (size 3, attack 20) strikes Big (size 5) in the chest with modifier -2: 20 + 0
    + (5 - 3) x 1 - 2 = 20 (2d12). Big's dodge 10 + parry 2 + dodge_modifier 4 = 16
    (1d8+1d12). Small's weapon (size 1) is 4 Size Levels below Big: damage 35 - 20 + 9
    (damage_modifier) = 24 (2d20) against Defense 10 + 0 + 0 = 10."""
    lines = ("add Small attack=20 size=3 weapon_size=1 damage=35", "add Big dodge=10 parry=2 size=5 vitality=10")
    params = {"modifier": "-2", "dodge_modifier": "4", "damage_modifier": "9"}
    res, dice = strike(lines, params, [4, 4, 1, 1, 4, 4, 1, 1], "Small", "Big")
    assert res.summary.startswith(
        "strike 20 (attack 20, size +2, modifier -2) [2d12]: d12 4, d12 4 -> 2 successes vs "
        "dodge 16 (dodge 10, parry +2, modifier +4) [1d8+1d12]: d8 1, d12 1 -> 0 successes; "
        "hit, NOST 2; damage 24 (damage 35, size -20, modifier +9) [2d20]: d20 4, d20 4 -> 2 successes vs "
        "Defense 10 [1d4+1d12, derived row]: d4 1, d12 1 -> 0 successes; 2 to the chest")
    assert res.details["hits"][0]["ratings"] == {"strike": 20, "dodge": 16, "damage": 24, "Defense": 10}
    # parry=false: the covered weapon is not in hand, so the dodge is 10 + 4 = 14.
    res, _ = strike(lines, {**params, "parry": "false"}, [4, 4, 1, 1, 4, 4, 1, 1], "Small", "Big")
    assert res.details["hits"][0]["ratings"]["dodge"] == 14


def test_a_rating_changed_before_the_blow_lands_leaves_it_to_the_gm() -> None:
    """docs/contributing/design.md#judged-on-landing: the faces were rolled for the Defense's dice at declaration; if Steve's
    armour goes from 1 to 2 before the blow lands (Defense 14 -> 15), the log says so and
    nothing is taken off."""
    s = session_for(UsorRuleset(), JENNIE, STEVE)
    s.execute("declare Jennie strike target=Steve location=right_arm faces=5,9,2,7,15,9,1,2")
    s.execute("set Steve armor 2")
    s.execute("next")
    assert s.encounter.combatants["Steve"].resources["right_arm"] == 6
    note = next(t for t in log_texts(s) if t.startswith("Jennie's strike at Steve lands"))
    assert note == (
        "Jennie's strike at Steve lands, but Defense 14 -> 15 since it was rolled: the faces were rolled for "
        "the old rating's dice, so the GM rolls it again (`roll usor RATING --vs RATING`) and applies the damage "
        "by hand (`damage Steve N resource=right_arm`)")


def test_a_critical_strike_lands_with_its_bonus_rechecked() -> None:
    """Seed: "a NOST of 2 adds additional damage to the attack". A strike of 20 (2d12: 4,
    4) against dodge 11 (derived 1d4+1d20: 1, 1) is NOST 2: the shipped table's NOST-2 row adds 2,
    so the Damage Rating is 20 + 2 = 22 (derived row 22: 1d4+2d10). 4, 4, 4 is three
    successes against Defense 10 (1d4+1d12: 1, 1): 3 to the chest when it lands."""
    s = session_for(UsorRuleset(), "add A attack=20 damage=20 critical_strike=true", "add B dodge=11 vitality=10")
    s.execute("declare A strike target=B faces=4,4,1,1,4,4,4,1,1")
    res = s.encounter.actions[-1].resolution
    assert "hit, NOST 2; damage 22 (damage 20, Critical Strike +2) [1d4+2d10, derived row]" in res.summary
    assert res.details["critical_strike"] == 2 and res.details["hits"][0]["critical"] == 2
    assert res.details["hits"][0]["ratings"]["damage"] == 22
    s.execute("next")
    assert "A's strike at B lands: hit for 3 to the chest" in log_texts(s)
    assert s.encounter.combatants["B"].resources["chest"] == 10 - 3


# ------------------------------------------------------------------ the sheet's sums
def test_defense_is_vitality_armor_and_natural_armor_and_reaction_agility_and_perception() -> None:
    """Defense = Vitality + Armor Rating + Natural Armor (the Damage page): 10 + 1 + 3 = 14;
    a sheet missing a part counts it as 0. Reaction = Agility + Perception: 18 + 12 = 30."""
    assert defense({"vitality": 10, "armor": 1, "natural_armor": 3}) == 14
    assert defense({"armor": 1}) == 1 and defense({"natural_armor": 3}) == 3 and defense({}) == 0
    stats = {"agility": 18, "perception": 12, "dodge": 15, "vitality": 10, "armor": 1, "natural_armor": 3}
    assert sheet_rating(stats, "reaction") == 30 and sheet_rating(stats, "defense") == 14 and sheet_rating(stats, "dodge") == 15
    assert sheet_rating({"perception": 12}, "reaction") == 12 and sheet_rating({"agility": 18}, "reaction") == 18
    assert sheet_rating({}, "dodge") == 0


def test_a_check_of_reaction_or_defense_rolls_the_sum() -> None:
    """A check rolls the rating named by `stat`: reaction 9 + 9 = 18 (1d10+1d12),
    defense 10 + 4 + 2 = 16 (1d8+1d12); `rating=N` rolls N instead, with the modifier."""
    r = UsorRuleset()
    s = session_for(r, "add Max agility=9 perception=9 vitality=10 armor=4 natural_armor=2")
    for params, own in (({"stat": "reaction"}, 18), ({"stat": "defense"}, 16), ({"rating": "12", "modifier": "4"}, 16)):
        request, _ = s.request("Max", "check", [], {**params, "against": "24"})
        res = r.resolve(request, TypedFaces([4, 4, 1, 1]))
        assert res.details["rating"] == own and res.details["rival_rating"] == 24 and res.success is True
    request, _ = s.request("Max", "check", [], {"rating": "12", "modifier": "4", "against": "24"})
    assert r.resolve(request, TypedFaces([4, 4, 1, 1])).summary.startswith(
        "Max 16 (rating 12, modifier +4) [1d8+1d12]: d8 4, d12 4 -> 2 successes vs the event rating 24 [2d20]")


def test_a_check_of_a_given_rating_names_that_rating_in_its_dice_prompt() -> None:
    """Seed: "Once the adjusted Event Rating is determined, look it up on the Event Chart
    to determine what dice to roll." `rating=12` rolls 12 (row 12: 1d6+1d8), not Max's
    agility 18: the prompt names the rating rolled, not the default stat; with
    modifier=4 the adjusted rating is 16 (row 16: 1d8+1d12). A stat keeps its name."""
    r = UsorRuleset()
    s = session_for(r, "add Max agility=18")
    cases = (
        ({"rating": "12"}, "Max's rating 12 roll (Event Chart row 12): 1d6+1d8"),
        ({"rating": "12", "modifier": "4"}, "Max's rating 16 (rating 12, modifier +4) roll (Event Chart row 16): 1d8+1d12"),
        ({"modifier": "-2"}, "Max's agility 16 (agility 18, modifier -2) roll (Event Chart row 16): 1d8+1d12"),
    )
    for params, first in cases:
        request, _ = s.request("Max", "check", [], {**params, "against": "24"})
        dice = ListeningFaces([4, 4, 1, 1])
        r.resolve(request, for_actor(dice, "Max"))
        assert dice.groups[0] == first


def test_starting_resources_follow_the_tables_and_default_to_the_damage_page() -> None:
    """The Damage page: 20 stun damage points knock a character out; legs take 8, arms 6,
    head 4, chest 10 before they are destroyed. A GM's table changes them."""
    shipped = {"stun": 20, "chest": 10, "head": 4, "right_arm": 6, "left_arm": 6, "right_leg": 8, "left_leg": 8}
    assert starting_resources({}) == shipped
    assert starting_resources(UsorRuleset().tables) == shipped
    house = starting_resources({"damage": {"stun_knockout": 25}, "locations": {"head": {"points": 5}}})
    assert house == {**shipped, "stun": 25, "head": 5}


@pytest.mark.parametrize("template,targets,params,faces", [
    ("strike", ["Steve"], {}, [5, 9, 2, 7, 15, 9, 1, 2]),
    ("check", [], {"against": "24"}, [1, 2, 3, 1, 3, 8, 15, 9]),
    ("check", [], {"against": "24", "rating": "12"}, [4, 4, 1, 1]),
    ("contest", ["Steve"], {}, [4, 4, 1, 1]),
])
def test_a_request_that_leaves_a_parameter_out_resolves_as_its_declared_default(
        template: str, targets: list[str], params: dict[str, Any], faces: list[int]) -> None:
    """The adapter contract lets a request carry only the parameters given (ActionRequest's
    params default to none): each one left out must count as the default its field
    declares (chest, modifiers 0, parry on, physical damage, agility), the same as a
    declaration that fills them in."""
    from rulesets.base import ActionRequest

    r = UsorRuleset()
    s = session_for(r, "add Jennie attack=20 damage=24 agility=18 perception=7", STEVE)
    filled, _ = s.request("Jennie", template, targets, params)
    assert set(filled.params) > set(params)
    bare = ActionRequest(filled.template, filled.actor, filled.targets, {k: v for k, v in filled.params.items() if k in params},
                         filled.segment, filled.settings)
    got, want = r.resolve(bare, TypedFaces(faces)), r.resolve(filled, TypedFaces(faces))
    for hit in (*got.details.get("hits", ()), *want.details.get("hits", ())):
        hit.pop("params")  # each keeps the parameters it was given
    assert got == want
    assert r.chance_of(bare) == r.chance_of(filled)


# ------------------------------------------------------------------ the command line
def test_a_single_roll_reports_its_successes_and_no_winner() -> None:
    """Seed: "Any roll [...] that is 4 or greater, counts as a Success." Rating 24 is 2d20
    (example 1's boulder): 20 and 3 are one success. Alone it has no rival, so no winner
    and no NOST ("Event Rolls are always made against other Event Rolls")."""
    assert cli_json("roll", "usor", "24", "--faces", "20,3") == {
        "ruleset": "usor", "dice": [20, 3], "success": None, "margin": 1, "rating": 24, "dice_sizes": [20, 20],
        "chart": "official", "successes": 1, "rival_successes": None, "winner": None, "nost": None,
        "text": "rating 24 (2d20): d20 20, d20 3 -> 1 success",
    }


def test_an_opposed_roll_reports_both_sides() -> None:
    """A derived row 17 (1d8+1d12: 4, 1 -> one success) against Juan's 35 (1d20+2d12: 1, 2, 3
    -> none): the character wins with NOST 1 - 0 = 1; between characters `success` stays
    empty (the roll is opposed: see `winner`)."""
    assert cli_json("roll", "usor", "17", "--vs", "35", "--faces", "4,1", "--vs-faces", "1,2,3") == {
        "ruleset": "usor", "dice": [4, 1], "success": None, "margin": 1, "rating": 17, "dice_sizes": [8, 12],
        "chart": "derived", "successes": 1, "rival_successes": 0, "winner": "self", "nost": 1, "rival_rating": 35,
        "rival_dice": [1, 2, 3], "rival_dice_sizes": [20, 12, 12], "rival_chart": "official", "against": "character",
        "rounds": [{"dice": [4, 1], "rival_dice": [1, 2, 3], "successes": 1, "rival_successes": 0}],
        "text": "self rating 17 (derived row: 1d8+1d12): d8 4, d12 1 -> 1 success vs "
                "rival rating 35 (1d20+2d12): d20 1, d12 2, d12 3 -> 0 successes; self wins, NOST 1",
    }
    event = cli_json("roll", "usor", "17", "--difficulty", "35", "--faces", "4,1", "--vs-faces", "1,2,3")
    assert event["against"] == "event" and event["success"] is True


OFF_CHART = " is not on the Event Chart (rows 1 to 100); add a row for it in a house-rules file ([event_chart] {} = {{ dice = [...] }})"


@pytest.mark.parametrize("argv,message", [
    (("roll", "usor", "16", "--faces", "3,8,9,9"), "--faces: 4 typed but the roll used 2; unused: 9, 9"),
    (("roll", "usor", "16", "--vs", "16", "--faces", "3,8,9", "--vs-faces", "1,1"),
     "--faces: 3 typed but the roll used 2; unused: 9"),
    (("roll", "usor", "16", "--vs", "16", "--faces", "3,8", "--vs-faces", "1,1,5"),
     "--vs-faces: 3 typed but the roll used 2; unused: 5"),
    (("roll", "usor", "16", "--vs", "12", "--difficulty", "12"),
     "give either --vs RATING (another character) or --difficulty RATING (an event), not both"),
    (("odds", "usor", "16"),
     "USOR rolls are always opposed: give --vs RATING (another character) or --difficulty RATING (an event)"),
    (("roll", "usor", "101"), "rating 101" + OFF_CHART.format(101)),
    (("roll", "usor", "100+1"), "rating 100+1" + OFF_CHART.format(101)),
    (("roll", "usor", "16", "--vs", "0"), "--vs rating 0" + OFF_CHART.format(0)),
    (("odds", "usor", "16", "--difficulty", "150"), "--difficulty rating 150" + OFF_CHART.format(150)),
])
def test_command_line_refusals_name_what_is_wrong(argv: tuple[str, ...], message: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(*argv)[0] == 1
    assert capsys.readouterr().err == f"tracker: {message}\n"


def test_odds_name_each_derived_row_once() -> None:
    """docs/contributing/design.md#rules-decisions: "show 'derived' wherever such a row is used": 17 (1d8+1d12) against 22
    (1d4+2d10), both derived, gives two notes; 17 against itself one; the seed's rows none."""
    assert cli_json("odds", "usor", "17", "--vs", "22")["notes"] == [
        "derived row: rating 17 = 1d8+1d12", "derived row: rating 22 = 1d4+2d10"]
    assert cli_json("odds", "usor", "17", "--difficulty", "17")["notes"] == ["derived row: rating 17 = 1d8+1d12"]
    assert cli_json("odds", "usor", "18", "--difficulty", "17")["notes"] == ["derived row: rating 17 = 1d8+1d12"]
    assert cli_json("odds", "usor", "18", "--difficulty", "24")["notes"] == []


# ------------------------------------------------------------------ the derivation rule and house rows
def test_a_die_that_cannot_show_4_never_succeeds() -> None:
    """Seed: "Any roll (regardless of the number of sides of the die rolled) that is 4 or
    greater, counts as a Success." So a d3 (or d2) never succeeds, a d4 only on its 4
    (1/4), a d20 on 4-20 (17/20); a row's expected successes add up die by die."""
    from rulesets.usor.chart import expected_successes, success_chance

    assert success_chance(2) == 0 and success_chance(3) == 0
    assert success_chance(4) == Fraction(1, 4) and success_chance(20) == Fraction(17, 20)
    assert expected_successes((3, 3)) == 0
    assert expected_successes((6, 8)) == Fraction(1, 2) + Fraction(5, 8)


def test_the_trend_through_two_official_rows_by_hand() -> None:
    """The rule in chart.py fits a least-squares line of expected successes against rating.
    Through two rows it is the line through both: the USOR glossary's rating 11, 1d6+1d8
    (1/2 + 5/8 = 9/8), and 16, 1d8+1d12 (5/8 + 3/4 = 11/8, the seed's Dagger 12 + 4); slope
    (11/8 - 9/8) / 5 = 1/20, intercept 9/8 - 11/20 = 23/40. One row is not enough to draw
    a line."""
    from rulesets.usor.chart import derive_rows, trend

    assert trend({11: (6, 8), 16: (8, 12)}) == (Fraction(23, 40), Fraction(1, 20))
    with pytest.raises(TrackerError, match=r"^the Event Chart needs at least two official rows to derive the others$"):
        trend({16: (8, 12)})
    # Derived rows fill exactly the ratings asked for that have no official row: at 13 the
    # line gives 23/40 + 13/20 = 49/40, nearest 1d6+1d10 (1/2 + 7/10 = 48/40).
    rows = derive_rows({11: (6, 8), 16: (8, 12)}, 13, 16)
    assert sorted(rows) == [13, 14, 15] and rows[13] == (6, 10)


@pytest.mark.parametrize("table,message", [
    ({}, r"^event_chart: expected a table of rows such as 16 = \{ dice = \[8, 12\] \}, got \{\}$"),
    ({"x": [6]}, r"^event_chart\.x: expected a whole-number Event Rating as the key$"),
    ({"17": 6}, r"^event_chart\.17: expected a row such as \{ dice = \[8, 12\] \}, got 6$"),
    ({"17": {"dice": [6, 1]}}, r"^event_chart\.17\.dice: expected a list of die sizes such as \[8, 12\] \(at most 100 dice of 2 to 1000 sides\), got \[6, 1\]$"),
    ({"17": {"dice": [6, True]}}, r"^event_chart\.17\.dice: expected a list of die sizes"),
    ({"17": {"dice": [6, "8"]}}, r"^event_chart\.17\.dice: expected a list of die sizes"),
    ({"17": {}}, r"^event_chart\.17\.dice: expected a list of die sizes such as \[8, 12\] \(at most 100 dice of 2 to 1000 sides\), got None$"),
    ({"17": {"dice": [6], "source": "blog"}}, r"^event_chart\.17\.source: expected one of official, derived, house, glossary, got 'blog'$"),
    ({"17": {"dice": [6], "note": 3}}, r"^event_chart\.17\.note: expected text, got 3$"),
])
def test_a_bad_house_row_is_refused_naming_the_field(table: dict[str, Any], message: str) -> None:
    from rulesets.usor.chart import EventChart

    with pytest.raises(TrackerError, match=message):
        EventChart.from_table(table)


def test_house_rows_are_read_in_order_with_their_source_and_note() -> None:
    """A GM's rows: a bare list is the dice; without `source` a row is "house"; a d2 is a
    die (it simply never succeeds)."""
    from rulesets.usor.chart import EventChart

    chart = EventChart.from_table({" 17 ": [12, 6], "5": {"dice": [2, 4], "source": "derived", "note": "mine"}})
    assert list(chart.rows) == [5, 17]
    assert chart.row(17) == ChartRow(17, (12, 6), "house", "")
    assert chart.row(5) == ChartRow(5, (2, 4), "derived", "mine")
    assert chart.official() == {}
    assert EventChart.from_table({"16": {"dice": [8, 12], "source": "official"}}).official() == {16: (8, 12)}


# ------------------------------------------------------------------ Critical Strike, time and odds
def test_a_one_row_critical_table_keeps_adding_its_row_past_it() -> None:
    """Seed: "A NOST of 3 would add even more and a NOST of 4 would be even greater still,
    and so on and so forth." A GM's table with only NOST 2 = 3: NOST 3 adds 3 + 3 = 6,
    NOST 4 adds 9 (the step from NOST 1's 0 to 3, again and again); with 2 = 3 and 3 = 5
    the step is 2: NOST 4 adds 7, NOST 5 adds 9. NOST 1 and 0 add nothing."""
    from rulesets.usor.actions import critical_table

    one = critical_table({"critical_strike": {"2": 3}})
    assert [one.bonus(n) for n in range(0, 5)] == [0, 0, 3, 6, 9]
    two = critical_table({"critical_strike": {"3": 5, "2": 3}})
    assert two.rows == (3, 5) and [two.bonus(n) for n in range(1, 6)] == [0, 3, 5, 7, 9]


@pytest.mark.parametrize("table,message", [
    ({}, r"^critical_strike: expected rows by NOST such as 2 = 2, 3 = 4 \(the Damage Rating each NOST adds\), got \{\}$"),
    ({"critical_strike": [2, 4]}, r"^critical_strike: expected rows by NOST"),
    ({"critical_strike": {"two": 2}}, r"^critical_strike\.two: expected a NOST of 2 or more as the key$"),
    ({"critical_strike": {"1": 1, "2": 2}}, r"^critical_strike\.1: expected a NOST of 2 or more \(a NOST of 1 only strikes\)$"),
    ({"critical_strike": {"2": True}}, r"^critical_strike\.2: expected a whole Damage Rating, got True$"),
    ({"critical_strike": {"2": 2.5}}, r"^critical_strike\.2: expected a whole Damage Rating, got 2\.5$"),
    ({"critical_strike": {"3": 4}}, r"^critical_strike: expected a row for every NOST from 2 to 3; NOST 2 has none$"),
    ({"critical_strike": {"2": 2, "5": 8}}, r"^critical_strike: expected a row for every NOST from 2 to 5; NOST 3 has none$"),
    ({"critical_strike": {"2": 0}}, r'^critical_strike\.2: a Critical Strike must add more with every NOST \("the higher the NOST, '
                                    r'the better"\); 0 is not more than 0 \(NOST 1 adds 0\)$'),
    ({"critical_strike": {"2": 3, "3": 2}}, r"^critical_strike\.3: .* 2 is not more than 3 \(NOST 2 adds 3\)$"),
])
def test_a_critical_table_that_does_not_grow_is_refused_naming_the_row(table: dict[str, Any], message: str) -> None:
    """Seed: "a NOST of 2 adds additional damage [...] Simply put, the higher the NOST, the
    better": NOST 2 must add more than NOST 1 (nothing), and each row more than the last."""
    from rulesets.usor.actions import critical_table

    with pytest.raises(TrackerError, match=message):
        critical_table(table)


def test_action_time_is_bat_times_atm_rounded_half_up_and_at_least_one_second() -> None:
    """AT = BAT x ATM rounded half up, at least 1 (the action-time page; rulesets/usor):
    10 x 0.25 = 2.5 -> 3; 10 x 0.15 = 1.5 -> 2; 10 x 0.14 = 1.4 -> 1; 10 x 0.04 = 0.4 -> 1
    (never 0); 1 x 1.0 = 1; 7 x 1.5 = 10.5 -> 11. A fixed time ignores the ATM: 5 stays 5,
    1 stays 1."""
    from rulesets.usor.actions import action_time

    assert [action_time(10, atm, True) for atm in (0.25, 0.15, 0.14, 0.04)] == [3, 2, 1, 1]
    assert action_time(1, 1.0, True) == 1 and action_time(7, 1.5, True) == 11
    assert action_time(5, 2.0, False) == 5 and action_time(1, 2.0, False) == 1
    assert UsorRuleset().action_time(10, 1.5) == 15 and UsorRuleset().action_time(10, 1.5, False) == 10


def test_each_actions_time_follows_its_table_row_and_a_typed_pt_wins() -> None:
    """tables.toml: strike, check and contest take 10 s scaled by the ATM; the move's 5 s is
    fixed. With ATM 1.5: strike 15, check 15, move 5; a GM's pt=4 is taken as typed."""
    r = UsorRuleset()
    s = session_for(r, "add A atm=1.5", "add B")
    assert [r.default_pt(s.request("A", name, targets, params)[0]) for name, targets, params in (
        ("strike", ["B"], {}), ("check", [], {"against": "10"}), ("contest", ["B"], {}), ("move", [], {}))] == [15, 15, 15, 5]
    assert r.resolve(s.request("A", "strike", ["B"], {}, pt=4)[0], RandomDice(1)).pt == 4
    catalogue = r.catalogue()
    assert catalogue["strike"].description == (
        "strike a target: weapon skill against Dodge, then Damage against Defense; 10 s (BAT x ATM)")
    assert catalogue["move"].description == "move (distance by Agility); 5 s (fixed)"
    assert [(t.pt, t.targets, t.mode) for t in catalogue.values()] == [(10, 1, "active"), (10, 0, "active"), (10, 1, "active"), (5, 0, "active")]
    assert catalogue["strike"].rolls == "Event Rolls: attack vs dodge, damage vs Defense"
    assert [f.name for f in catalogue["contest"].params][:2] == ["stat", "modifier"]


@pytest.mark.parametrize("row,message", [
    ({"bat": 0}, r"^actions\.strike\.bat: expected a whole number of seconds from 1 to 1,000,000,000,000, got 0$"),
    ({"bat": True}, r"^actions\.strike\.bat: expected a whole number of seconds from 1 to 1,000,000,000,000, got True$"),
    ({"bat": "10"}, r"^actions\.strike\.bat: expected a whole number of seconds from 1 to 1,000,000,000,000, got '10'$"),
    ({"scaled": "yes"}, r"^actions\.strike\.scaled: expected true or false, got 'yes'$"),
])
def test_a_bad_action_time_row_is_refused_naming_the_field(row: dict[str, Any], message: str) -> None:
    from rulesets.usor.actions import build_catalogue

    with pytest.raises(TrackerError, match=message):
        build_catalogue({"actions": {"strike": row}})


def test_an_action_time_row_may_leave_out_bat_or_scaled() -> None:
    """A row without `bat` takes 10 s, without `scaled` it is scaled; 1 s is allowed."""
    from rulesets.usor.actions import build_catalogue

    catalogue = build_catalogue({"actions": {"strike": {"scaled": False}, "check": {"bat": 1}}})
    assert catalogue["strike"].pt == 10 and catalogue["strike"].description.endswith("; 10 s (fixed)")
    assert catalogue["check"].pt == 1 and catalogue["check"].description.endswith("; 1 s (BAT x ATM)")
    assert build_catalogue({})["move"].pt == 10


def test_the_chance_of_each_action_by_hand() -> None:
    """Rating 1 is the derived row 1d6 (1/2 to succeed), 3 is 1d8 (5/8; both worked above
    the chart test). One die each: A wins 1/2 x 3/8 = 3/16; B wins 5/8 x 1/2 = 5/16; draw
    1/2 x 5/8 + 1/2 x 3/8 = 1/2. Between characters (strike, contest) a draw is no win:
    3/16. Against an event the draws are rolled again: (3/16) / (1 - 1/2) = 3/8."""
    r = UsorRuleset()
    s = session_for(r, "add A attack=1 agility=1", "add B dodge=3 agility=3")
    assert s.chance("A", "strike", ["B"]) == Fraction(3, 16)
    assert s.chance("A", "contest", ["B"]) == Fraction(3, 16)
    assert s.chance("B", "contest", ["A"]) == Fraction(5, 16)  # 5/8 x 1/2
    assert s.chance("A", "check", [], {"against": "3"}) == Fraction(3, 8)
    with pytest.raises(TrackerError, match=r"^check needs the event's rating: against=N"):
        s.chance("A", "check", [])  # no event rating yet: said, not "no roll"
    assert s.chance("A", "move", []) is None
    from rulesets.base import ActionRequest

    request, _ = s.request("A", "strike", ["B"])
    for name in ("strike", "contest"):
        untargeted = ActionRequest(r.template(name), request.actor, (), request.params)
        assert r.chance_of(untargeted) is None


def test_a_critical_striker_with_nost_1_adds_nothing_and_one_point_still_lands() -> None:
    """Seed: "A NOST of 1 is sufficient to strike an opponent but a NOST of 2 adds
    additional damage". Strike 20 (2d12: 4, 4: two) against dodge 11 (derived 1d4+1d20: 4, 1: one)
    is NOST 1: no bonus, so the Damage Rating stays 20 (2d12); 4, 1 (one success) against
    Defense 10 (1d4+1d12: 1, 1: none) is 1 point off the chest's 10 when it lands."""
    s = session_for(UsorRuleset(), "add A attack=20 damage=20 critical_strike=true", "add B dodge=11 vitality=10")
    s.execute("declare A strike target=B faces=4,4,4,1,4,1,1,1")
    res = s.encounter.actions[-1].resolution
    assert "hit, NOST 1; damage 20 [2d12]: d12 4, d12 1 -> 1 success" in res.summary
    assert "critical_strike" not in res.details and "critical" not in res.details["hits"][0]
    s.execute("next")
    assert "A's strike at B lands: hit for 1 to the chest" in log_texts(s)
    assert s.encounter.combatants["B"].resources["chest"] == 9


@pytest.mark.parametrize("lines,template,params,message", [
    (("add A attack=120", "add B"), "strike", {}, "strike rating attack 120 "),
    (("add A attack=20", "add B dodge=120"), "strike", {}, "dodge rating dodge 120 "),
    (("add A attack=20 damage=120", "add B dodge=1"), "strike", {}, "damage rating damage 120 "),
    (("add A attack=20", "add B dodge=1 vitality=120"), "strike", {}, "Defense rating vitality 120 "),
    (("add A agility=120", "add B"), "check", {"against": "24"}, "check rating agility 120 "),
    (("add A agility=20", "add B"), "check", {"against": "150"}, "event rating rating 150 "),
    (("add A agility=120", "add B"), "contest", {}, "contest rating agility 120 "),
    (("add A agility=20", "add B agility=0"), "contest", {"rival_modifier": "-3"}, "rival rating -3 (agility 0, modifier -3) "),
])
def test_a_rating_off_the_chart_is_refused_naming_the_roll(lines: tuple[str, ...], template: str, params: dict[str, Any],
                                                           message: str) -> None:
    """Seed: "Once the adjusted Event Rating is determined, look it up on the Event Chart
    to determine what dice to roll": a rating the chart has no row for cannot be rolled,
    and the refusal says which of the action's rolls it was (a strike always rolls its
    damage and Defense too, hit or miss, so their rows are looked up as well: strike 20,
    2d12, 4, 4 against dodge 1, derived 1d6, 1)."""
    r = UsorRuleset()
    s = session_for(r, *lines)
    request, _ = s.request("A", template, [] if template == "check" else ["B"], params)
    full = message + "is not on the Event Chart (rows 1 to 100); add a row for it in a house-rules file"
    with pytest.raises(TrackerError) as refused:
        r.resolve(request, TypedFaces([4, 4, 1]))
    assert str(refused.value).startswith(full)
    if not message.startswith(("damage", "Defense")):  # the odds are of the first roll only
        with pytest.raises(TrackerError) as refused:
            r.chance_of(request)
        assert str(refused.value).startswith(full)


def test_an_action_missing_its_target_or_event_rating_is_refused_by_name() -> None:
    """A strike or contest is against one character; a check needs the event's rating
    (seed: "the GM determines that the boulder's Event Roll is 24")."""
    from rulesets.base import ActionRequest

    r = UsorRuleset()
    s = session_for(r, "add A", "add B")
    request, _ = s.request("A", "strike", ["B"])
    for name in ("strike", "contest"):
        with pytest.raises(TrackerError, match=rf"^{name} needs one target \(target=NAME\)$"):
            r.resolve(ActionRequest(r.template(name), request.actor, (), {}), TypedFaces([4, 4, 4, 4]))
    with pytest.raises(TrackerError, match=r"^check needs the event's rating: against=N \(e\.g\. against=24 for a falling boulder\)$"):
        r.resolve(ActionRequest(r.template("check"), request.actor, (), {}), TypedFaces([4, 4, 4, 4]))
    move = r.resolve(ActionRequest(r.template("move"), request.actor, (), {}), TypedFaces([]))
    assert move.summary == "AT 5 s" and move.pt == 5 and move.dice == ()


def test_a_bare_roll_names_its_chart_row_in_each_prompt_and_each_repeat() -> None:
    """Seed example 1 rolled with no names: Max's 18 (1d10+1d12) against the boulder's 24
    (2d20). The prompts name the chart rows; a draw (1, 2 against 3, 1: none each) is
    rolled again and the repeat is asked for as "roll 2" only where the roll has a name."""
    from rulesets.usor.rolls import roll_row

    chart = UsorRuleset().chart
    own, rival = ListeningFaces([1, 2, 3, 8]), ListeningFaces([3, 1, 15, 9])
    result = contest(chart.row(18), chart.row(24), own, rival, against_event=True)
    assert own.groups == ["Event Chart row 18: 1d10+1d12"] * 2
    assert rival.groups == ["Event Chart row 24: 2d20"] * 2
    assert (len(result.exchanges), result.winner, result.nost) == (2, "rival", 1)
    named_own, named_rival = ListeningFaces([1, 2, 3, 8]), ListeningFaces([3, 1, 15, 9])
    contest(chart.row(18), chart.row(24), named_own, named_rival, against_event=True,
            own_label="dodge", rival_label="boulder", rival_who="the GM")
    assert named_own.groups == ["dodge (Event Chart row 18): 1d10+1d12", "dodge (roll 2) (Event Chart row 18): 1d10+1d12"]
    assert named_rival.groups == ["the GM's boulder (Event Chart row 24): 2d20", "the GM's boulder (roll 2) (Event Chart row 24): 2d20"]
    single = ListeningFaces([20, 3])
    assert roll_row(chart.row(24), single).successes == 1 and single.groups == ["Event Chart row 24: 2d20"]


def test_against_an_event_the_rolls_stop_after_a_thousand_draws() -> None:
    """Seed: against an event "both opposing rolls must be made continuously until one is
    victorious". A source that only ever shows 1 never lets either side win: the roll
    stops with a message rather than running for ever."""

    class Ones:
        def roll(self, sides: int) -> int:
            return 1

    chart = UsorRuleset().chart
    with pytest.raises(TrackerError, match=r"^no winner after 1000 repeated rolls against the event$"):
        contest(chart.row(18), chart.row(24), Ones(), Ones(), against_event=True)


def test_a_rating_without_its_make_up_shows_the_bare_number() -> None:
    from rulesets.usor.rolls import Rating, rating_of

    assert Rating(16).text() == "16" and Rating(16).text("event") == "event 16"
    assert rating_of(("dagger", 12), ("situation", 4)).text() == "16 (dagger 12, situation +4)"
    assert rating_of(("dagger", 12), ("situation", 0)).text("strike") == "strike 12"


def test_a_house_table_sets_a_new_combatants_stun_and_location_points(tmp_path: Path) -> None:
    """tables.toml: "A GM overrides any row with a house-rules file": with 25 stun points
    and a head of 5, a new combatant starts with those; what the GM types on `add` wins."""
    rules = tmp_path / "house.toml"
    rules.write_text("[damage]\nstun_knockout = 25\n\n[locations]\nhead = { penalty = -10, points = 5 }\n")
    stats, resources = UsorRuleset(rules).build_sheet({"chest": 12}, "add X")
    assert resources == {"stun": 25, "chest": 12, "head": 5, "right_arm": 6, "left_arm": 6, "right_leg": 8, "left_leg": 8}
    assert stats["agility"] == 20 and stats["critical_strike"] is False


def test_a_checks_stat_takes_its_modifier_before_the_roll() -> None:
    """Seed: "these modifications will temporarily adjust the Event Rating of an Event
    Roll before the roll is made": Max's Agility 18 with -2 for the loose scree is 16,
    rolled as 1d8+1d12 against the boulder's 24."""
    r = UsorRuleset()
    s = session_for(r, "add Max agility=18")
    request, _ = s.request("Max", "check", [], {"against": "24", "modifier": "-2"})
    res = r.resolve(request, TypedFaces([4, 4, 1, 1]))
    assert res.summary.startswith("Max 16 (agility 18, modifier -2) [1d8+1d12]: d8 4, d12 4 -> 2 successes vs ")
    assert res.details["rating"] == 16


def test_a_blow_whose_ratings_changed_names_each_change() -> None:
    """docs/contributing/design.md#judged-on-landing: Jennie's attack goes from 20 to 21 and Steve's dodge from 16 to 17 before
    her blow lands: strike 20 - 6 = 14 -> 21 - 6 = 15 and dodge 16 + 2 = 18 -> 17 + 2 = 19,
    both named. Steve's armour also goes from 1 to 2 (Defense 14 -> 15), but with the
    hit itself in doubt the landing does not read the damage and Defense (actions.py:
    "only a hit then reads the damage and Defense ratings"), so the note stops at those
    two and the GM rolls the blow again from the sheets as they are."""
    s = session_for(UsorRuleset(), JENNIE, STEVE)
    s.execute("declare Jennie strike target=Steve location=right_arm faces=5,9,2,7,15,9,1,2")
    s.execute("set Jennie attack 21")
    s.execute("set Steve dodge 17")
    s.execute("set Steve armor 2")
    s.execute("next")
    assert any(t.startswith("Jennie's strike at Steve lands, but strike 14 -> 15, dodge 18 -> 19 since it was rolled: ")
               for t in log_texts(s))
    assert s.encounter.combatants["Steve"].resources["right_arm"] == 6


def test_a_striker_who_loses_critical_strike_before_the_blow_lands_leaves_it_to_the_gm() -> None:
    """The Critical Strike bonus was rolled into the damage dice (NOST 2: damage 20 + 2 =
    22, 1d4+2d10). If the GM takes the ability away before the blow lands, the Damage
    Rating worked again is 20, not 22: the faces were rolled for other dice."""
    s = session_for(UsorRuleset(), "add A attack=20 damage=20 critical_strike=true", "add B dodge=11 vitality=10")
    s.execute("declare A strike target=B faces=4,4,1,1,4,4,4,1,1")
    s.execute("set A critical_strike false")
    s.execute("next")
    assert any(t.startswith("A's strike at B lands, but damage 22 -> 20 since it was rolled") for t in log_texts(s))
    assert s.encounter.combatants["B"].resources["chest"] == 10


def test_an_opposed_roll_without_the_other_sides_dice_and_an_unnamed_row_off_the_chart_are_refused() -> None:
    r = UsorRuleset()
    with pytest.raises(TrackerError, match=r"^an opposed roll needs dice for the other side$"):
        r.roll("16", TypedFaces([4, 4]), vs="16")
    with pytest.raises(TrackerError, match=r"^rating 101 is not on the Event Chart \(rows 1 to 100\)"):
        r.chart.row(101)


def test_a_house_table_changes_the_location_penalty_and_the_size_steps(tmp_path: Path) -> None:
    """tables.toml: "A GM overrides any row with a house-rules file". With a head penalty of
    -8, 2 strike points and 3 damage points per Size Level: Small (size 3, attack 20,
    weapon size 1, damage 35) striking Big (size 5) in the head has strike 20 - 8 + 2 x 2 =
    16 and Damage Rating 35 + 3 x (1 - 5) = 23."""
    rules = tmp_path / "house.toml"
    rules.write_text("[damage]\nstrike_per_size = 2\ndamage_per_size = 3\n\n[locations]\nhead = { penalty = -8, points = 4 }\n")
    r = UsorRuleset(rules)
    s = session_for(r, "add Small attack=20 size=3 weapon_size=1 damage=35", "add Big dodge=1 size=5")
    request, _ = s.request("Small", "strike", ["Big"], {"location": "head"})
    res = r.resolve(request, TypedFaces([4, 4, 1, 4, 4, 4, 1, 1]))
    assert res.details["hits"][0]["constants"] == {"penalty": -8, "strike_per_size": 2, "damage_per_size": 3}
    assert res.details["hits"][0]["ratings"]["strike"] == 16 and res.details["hits"][0]["ratings"]["damage"] == 23
    assert res.summary.startswith("strike 16 (attack 20, head -8, size +4) [")


def test_a_blow_whose_target_left_the_fight_lapses() -> None:
    """Steve leaves the fight before Jennie's strike lands: nothing is taken off anyone and
    the log says the strike lapsed."""
    s = session_for(UsorRuleset(), JENNIE, STEVE, "add X")
    s.execute("declare Jennie strike target=Steve location=right_arm faces=5,9,2,7,15,9,1,2")
    s.execute("remove Steve")
    s.execute("next")
    assert log_texts(s)[-1] == "Jennie's strike at Steve lapses: not in the fight"


def test_the_declare_forms_chance_line_says_a_check_needs_its_events_rating() -> None:
    """Seed: "Event Rolls are always made against other Event Rolls." and, of Max's
    boulder, "the GM determines that the boulder's Event Roll is 24": a check has no
    rival roll until the GM gives the event's rating. The declare form's chance line says
    so as soon as the check is chosen (it said "no roll" until the commit refused), as it
    names a missing target; with against=24 it shows the odds. By hand: agility 18 is
    row 18 (1d10+1d12), rating 24 is row 24 (2d20), so the chance is neither 0 nor 1."""
    from tracker.play.declaring import DeclareFlow
    from tracker.reading.roles import Role

    s = session_for(UsorRuleset(), "add Max agility=18")
    flow = DeclareFlow(s, Role.gm(), None)
    flow.set("d", "actor", "Max")
    flow.set("d", "template", "check")
    line = flow.chance_now()
    assert line == ("chance of success: - (check needs the event's rating: against=N "
                    "(e.g. against=24 for a falling boulder))")
    flow.set("p", "against", "24")
    odds = s.chance("Max", "check", [], {"against": "24"})
    assert 0 < odds < 1 and flow.chance_now().startswith(f"chance of success: {float(odds):.2%}")
