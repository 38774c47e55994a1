"""D6's `Ruleset` class (`rulesets/d6/__init__.py`), tested directly for the mutation run:
the command line's roll and odds, and the hooks the timeline calls.

Numbers from the D6 seed (`seeds/001_...`): a die code is dice plus pips ("you add to
the total result you roll on the dice"); the standard difficulties (Automatic (0) "there
is no need to roll", Very Easy (1), Easy (6), Moderate (11), Difficult (16), Very
Difficult (21), Heroic (26), Legendary (31)); result points are "the difference between
the skill total and the difficulty"; the success levels Minimal (0), Solid (1-4), Good
(5-8), Superior (9-12), Spectacular (13-16), Incredible (16 or more; the overlap at 16
goes to Incredible, the module's docstring). The Wild Die and the opposed roll's tie
going to the initiator are the module docstring's decisions; the limits (40D a roll,
difficulty 400) are `rulesets/limits.py`'s.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from rulesets.d6 import D6Ruleset, DieCode, FieldError, parse
from rulesets.dice import TypedFaces
from tracker.engine.errors import TrackerError

D6 = D6Ruleset()


def refused(call: object, *args: object, **kwargs: object) -> str:
    with pytest.raises(TrackerError) as caught:
        call(*args, **kwargs)  # type: ignore[operator]
    return str(caught.value)


# ---------------------------------------------------------------- a plain roll

def test_a_roll_is_its_dice_plus_pips() -> None:
    r = D6.roll("3D+1", TypedFaces([4, 5, 6]))
    assert (r.ruleset, r.dice, r.success, r.margin) == ("d6", [4, 5, 6], None, None)
    assert r.text == "3D+1: dice 4, 5, 6 = 16"
    assert r.fields == {"code": "3D+1", "total": 16, "wild_die": False, "difficulty": None, "result_points": None,
                        "level": None}


@pytest.mark.parametrize("faces,difficulty,name,points,level", [
    ([4, 5, 6], 11, "Moderate", 5, "Good"),          # 16 - 11
    ([1, 1, 2], 5, "Very Easy", 0, "Minimal"),       # 5 - 5: "just barely enough"
    ([1, 1, 1], 1, "Very Easy", 3, "Solid"),
    ([6, 6, 6], 6, "Easy", 13, "Spectacular"),       # 19 - 6
    ([6, 6, 6], 3, "Very Easy", 16, "Incredible"),   # the overlap at 16 is Incredible
    ([6, 6, 6], 10, "Easy", 9, "Superior"),
    ([6, 6, 6], 31, "Legendary", -12, "Failure"),
    ([2, 2, 2], 26, "Heroic", -19, "Failure"),
    ([2, 2, 2], 21, "Very Difficult", -14, "Failure"),
    ([2, 2, 2], 16, "Difficult", -9, "Failure"),
])
def test_a_roll_against_a_difficulty_gives_result_points_and_a_level(faces: list[int], difficulty: int, name: str,
                                                                        points: int, level: str) -> None:
    r = D6.roll("3D+1", TypedFaces(faces), difficulty=difficulty)
    total = sum(faces) + 1
    word = "success" if points >= 0 else "failure"
    assert r.text == f"3D+1: dice {', '.join(map(str, faces))} = {total} vs {difficulty} ({name}): {word}, result points {points} ({level})"
    assert (r.ruleset, r.dice, r.success, r.margin) == ("d6", faces, points >= 0, points)
    assert r.fields == {"code": "3D+1", "total": total, "wild_die": False, "difficulty": difficulty, "difficulty_name": name,
                        "result_points": points, "level": level.lower().replace(" ", "_")}


def test_an_automatic_action_needs_no_roll() -> None:
    """Seed: "Automatic (0): Almost anyone can perform this action; there is no need to roll.\""""
    r = D6.roll("2D+2", TypedFaces([]), difficulty=0)
    assert (r.ruleset, r.dice, r.success, r.margin) == ("d6", [], True, None)
    assert r.text == "2D+2 vs 0 (Automatic): no need to roll, success"
    assert r.fields == {"code": "2D+2", "total": None, "difficulty": 0, "difficulty_name": "Automatic",
                        "result_points": None, "level": None, "automatic": True}
    assert refused(D6.roll, "2D", TypedFaces([3, 4]), difficulty=0) == "--faces: 2 typed but the roll used 0; unused: 3, 4"


def test_faces_typed_must_all_be_used() -> None:
    assert refused(D6.roll, "2D", TypedFaces([3, 4, 5])) == "--faces: 3 typed but the roll used 2; unused: 5"
    assert refused(D6.roll, "2D", TypedFaces([3, 4]), vs="1D", vs_dice=TypedFaces([2, 2])) == \
        "--vs-faces: 2 typed but the roll used 1; unused: 2"


# ---------------------------------------------------------------- the Wild Die

def test_the_wild_die_explodes_on_a_6() -> None:
    """The Wild Die first, then the other dice, then its explosions: 6 then 3 on the Wild
    Die, 4 and 2 on the others: 15."""
    r = D6.roll("3D", TypedFaces([6, 4, 2, 3]), options={"wild_die": "true"})
    assert r.text == "3D: wild 6+3!; dice 4, 2 (critical success) = 15"
    assert r.dice == [6, 4, 2, 3] and r.success is None
    assert r.fields == {"code": "3D", "total": 15, "wild_die": True, "wild": "critical_success",
                        "critical_failure_rule": "cancel", "difficulty": None, "result_points": None, "level": None}


def test_a_first_1_on_the_wild_die_cancels_or_counts_with_a_complication() -> None:
    r = D6.roll("3D", TypedFaces([1, 4, 5]), difficulty=4, options={"wild_die": "yes"})
    assert r.text == "3D: wild 1; dice 4, 5 (critical failure: 1 and 5 dropped) = 4 vs 4 (Very Easy): success, result points 0 (Minimal)"
    assert r.fields["wild"] == "critical_failure" and r.fields["critical_failure_rule"] == "cancel"
    r = D6.roll("3D", TypedFaces([1, 4, 5]), difficulty=4, options={"wild_die": True, "critical_failure": "complication"})
    assert r.fields["total"] == 10 and r.fields["critical_failure_rule"] == "complication" and r.margin == 6
    plain = D6.roll("3D", TypedFaces([1, 4, 5]), options={"wild_die": "no", "critical_failure": "complication"})
    assert plain.fields["total"] == 10 and "wild" not in plain.fields and plain.fields["wild_die"] is False


def test_the_tables_settings_are_checked_by_name() -> None:
    with pytest.raises(FieldError) as caught:
        D6.roll("3D", TypedFaces([1, 2, 3]), options={"wild_die": "maybe"})
    assert str(caught.value) == "--set.wild_die: expected true or false (or yes or no), got 'maybe'"
    with pytest.raises(FieldError) as caught:
        D6.chance("3D", difficulty=5, options={"critical_failure": "x"})
    assert str(caught.value) == "--set.critical_failure: expected one of cancel, complication, got 'x'"


# ---------------------------------------------------------------- opposed rolls

def test_an_opposed_roll_the_higher_total_wins_and_a_tie_goes_to_the_initiator() -> None:
    r = D6.roll("3D", TypedFaces([4, 4, 4]), vs="2D", vs_dice=TypedFaces([6, 6]))
    assert r.text == "3D: dice 4, 4, 4 = 12 vs 2D: dice 6, 6 = 12: self wins (a tie goes to the initiator), result points 0 (Minimal)"
    assert (r.success, r.margin) == (None, 0)
    assert r.fields == {"code": "3D", "total": 12, "wild_die": False, "rival_code": "2D", "rival_dice": [6, 6],
                        "rival_total": 12, "winner": "self", "difficulty": 12, "difficulty_name": "Moderate",
                        "result_points": 0, "level": "minimal"}
    r = D6.roll("2D", TypedFaces([1, 2]), vs="2D+1", vs_dice=TypedFaces([6, 5]))
    assert r.text == "2D: dice 1, 2 = 3 vs 2D+1: dice 6, 5 = 12: rival wins, result points -9 (Failure)"
    assert r.fields["winner"] == "rival" and r.fields["level"] == "failure" and r.margin == -9 and r.success is None
    r = D6.roll("2D", TypedFaces([6, 6]), vs="1D", vs_dice=TypedFaces([3]))
    assert r.text.endswith(": self wins, result points 9 (Superior)")


def test_an_opposed_roll_with_the_wild_die_says_each_sides() -> None:
    r = D6.roll("2D", TypedFaces([6, 2, 1]), vs="2D", vs_dice=TypedFaces([1, 5]), options={"wild_die": "true"})
    # Own: wild 6+1, die 2 = 9. Rival: a first 1 cancels itself and the 5: 0.
    assert r.fields["total"] == 9 and r.fields["rival_total"] == 0
    assert r.fields["wild"] == "critical_success" and r.fields["rival_wild"] == "critical_failure"
    assert "vs 2D: wild 1; dice 5 (critical failure: 1 and 5 dropped) = 0: self wins" in r.text


def test_an_opposed_roll_is_refused_with_a_difficulty_or_without_its_dice() -> None:
    both = "give either --vs CODE (an opposed roll) or --difficulty N, not both"
    assert refused(D6.roll, "2D", TypedFaces([1, 2]), vs="2D", vs_dice=TypedFaces([1, 2]), difficulty=5) == both
    assert refused(D6.roll, "2D", TypedFaces([1, 2]), vs="2D", vs_dice=TypedFaces([1, 2]), difficulty=0) == both
    assert refused(D6.chance, "2D", vs="2D", difficulty=5) == both
    assert refused(D6.roll, "2D", TypedFaces([1, 2]), vs="2D") == "an opposed roll needs dice for the other side"


def test_a_house_level_of_two_words_is_one_key(tmp_path: Path) -> None:
    """The success levels are data a GM may override (the module's docstring)."""
    house = tmp_path / "house.toml"
    house.write_text('[success_levels.good]\nname = "Very Good"\nmin = 5\n', encoding="utf-8")
    r = D6Ruleset(house).roll("3D+1", TypedFaces([4, 5, 6]), difficulty=11)
    assert r.text.endswith("result points 5 (Very Good)") and r.fields["level"] == "very_good"


# ---------------------------------------------------------------- refusals and limits

def test_codes_and_difficulties_out_of_bounds_are_refused_by_name() -> None:
    code_words = "expected a die code such as 3D, 4D+2 or 2D-1, got '3x'"
    assert refused(D6.roll, "3x", TypedFaces([])) == f"die code: {code_words}"
    assert refused(D6.roll, "2D", TypedFaces([1, 2]), vs="3x", vs_dice=TypedFaces([])) == f"--vs: {code_words}"
    assert refused(D6.chance, "2D", vs="3x") == f"--vs: {code_words}"
    assert refused(D6.chance, "3x", difficulty=5) == f"die code: {code_words}"
    assert refused(D6.chance, "41D", difficulty=5) == "die code: 41D is more than the 40D limit on one roll"
    assert refused(D6.roll, "0D+2", TypedFaces([])) == "die code: '0D+2' has 0 dice; a roll needs at least 1D"
    assert refused(D6.roll, "41D", TypedFaces([])) == "die code: 41D is more than the 40D limit on one roll"
    assert refused(D6.chance, "2D", vs="41D") == "--vs: 41D is more than the 40D limit on one roll"
    assert D6.chance("40D", difficulty=40) == 1  # at the limit: forty dice are at least 40
    negative = "--difficulty: D6 has no negative difficulties; expected 0 or more, got -1"
    assert refused(D6.roll, "2D", TypedFaces([1, 2]), difficulty=-1) == negative
    assert refused(D6.chance, "2D", difficulty=-1) == negative
    past = "--difficulty: 401 is past the limit of 400 (the standard difficulties end at Legendary, 31)"
    assert refused(D6.roll, "2D", TypedFaces([1, 2]), difficulty=401) == past
    assert refused(D6.chance, "2D", difficulty=401) == past
    assert D6.roll("2D", TypedFaces([1, 2]), difficulty=400).fields["difficulty_name"] == "Legendary"
    assert D6.chance("2D", difficulty=400) == 0


# ---------------------------------------------------------------- odds

def test_the_odds_of_a_plain_roll() -> None:
    """The plain sum: a Very Easy (1) roll of 1D always succeeds (the docstring); 1D
    against 4 succeeds on 4, 5, 6; 2D+1 against 13 needs 6 and 6."""
    assert D6.chance("1D", difficulty=1) == 1
    assert D6.chance("1D", difficulty=4) == Fraction(1, 2)
    assert D6.chance("2D+1", difficulty=13) == Fraction(1, 36)
    assert D6.chance("1D", difficulty=0) == 1
    assert refused(D6.chance, "1D") == "odds need a difficulty (--difficulty N) or an opposing code (--vs 3D)"


def test_the_odds_with_the_wild_die() -> None:
    """1D with the Wild Die against 1: a first 1 cancels itself (total 0) by default, 5 in
    6 succeed; with "complication" the 1 counts: always."""
    assert D6.chance("1D", difficulty=1, options={"wild_die": "true"}) == Fraction(5, 6)
    assert D6.chance("1D", difficulty=1, options={"wild_die": "true", "critical_failure": "complication"}) == 1


def test_the_odds_of_an_opposed_roll_ties_to_the_initiator() -> None:
    """1D against 1D: the initiator wins 21 of the 36 pairs (its die at least the other's)."""
    assert D6.chance("1D", vs="1D") == Fraction(21, 36)
    assert D6.chance("1D+5", vs="1D") == 1


def test_the_module_names_its_codes() -> None:
    assert parse("4D+2") == DieCode(4, 2)
