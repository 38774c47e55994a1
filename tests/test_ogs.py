"""OGS adapter: the seed's worked examples, exact odds, the CLI and the timeline."""

from __future__ import annotations

import itertools
from fractions import Fraction
from pathlib import Path

import pytest

from rulesets.dice import TypedFaces
from rulesets.fields import FieldError
from rulesets.ogs import OgsRuleset, odds
from rulesets.ogs.check import StageRule, opposed, roll
from rulesets.ogs.notation import DiceSteps, increase, increase_die, parse
from tracker.engine import TrackerError
from tracker.play.session import Session
from tests.helpers import cli, cli_json, session_for

STEPS = DiceSteps()
ROOT = Path(__file__).resolve().parent.parent


# ---------------------------------------------------------------- notation
def test_parse_spec_in_order_with_flat_and_pools() -> None:
    spec = parse("d4+d8+d8+2", STEPS)
    assert spec.sides == (4, 8, 8) and spec.flat == 2
    big = parse("d12 + d12 + [d8+d6] + 2", STEPS)
    assert big.sides == (12, 12, 8, 6) and big.text() == "d12+d12+[d8+d6]+2"
    assert parse("3d6-1", STEPS).sides == (6, 6, 6) and parse("3d6-1", STEPS).flat == -1


@pytest.mark.parametrize("bad", ["d7+2", "d4+[d8", "x", "d4-d6", "[d8+3]", ""])
def test_bad_spec_names_the_problem(bad: str) -> None:
    with pytest.raises(TrackerError, match="ogs dice"):
        parse(bad, STEPS)


# ---------------------------------------------------------------- the seed's examples
def michael_and_guard(own: list[int], guard: list[int], more_own=(), more_guard=()):
    m = roll(parse("d4+d8+d8", STEPS), TypedFaces(own))
    g = roll(parse("3d6", STEPS), TypedFaces(guard))
    return opposed(m, g, TypedFaces(list(more_own)), TypedFaces(list(more_guard)))


def test_michael_and_the_guard_tie_on_total_and_values_won_on_die_size() -> None:
    result = michael_and_guard([1, 4, 6], [1, 4, 6])
    assert result.own.total == 11 and result.rival.total == 11
    assert result.winner == "self" and result.decided_by == "die sizes"


def test_michael_wins_on_values_with_a_seven_and_on_total_with_a_two() -> None:
    # "If one of Michael's d8s had come up seven or eight, he would have won ... when
    # the die values were compared" (same total 11: 2 + 7 + 2 vs 1 + 4 + 6).
    by_values = michael_and_guard([2, 7, 2], [1, 4, 6])
    assert (by_values.winner, by_values.decided_by) == ("self", "die values")
    # "if he had rolled a two instead of a one his total would have been 12".
    by_total = michael_and_guard([2, 4, 6], [1, 4, 6])
    assert (by_total.own.total, by_total.winner, by_total.decided_by) == (12, "self", "total")


def test_guard_wins_when_its_values_are_higher() -> None:
    result = michael_and_guard([3, 4, 4], [5, 5, 1])
    assert (result.winner, result.decided_by) == ("rival", "die values")


def test_d12_roll_off_repeats_until_one_is_higher() -> None:
    a = roll(parse("d6+d6", STEPS), TypedFaces([3, 4]))
    b = roll(parse("2d6", STEPS), TypedFaces([4, 3]))
    result = opposed(a, b, TypedFaces([5, 2]), TypedFaces([5, 9]))
    assert result.roll_off == [(5, 5), (2, 9)]
    assert (result.winner, result.decided_by) == ("rival", "d12 roll-off")


def test_four_stage_critical_and_stage_boundaries() -> None:
    rule = StageRule()
    assert rule.stages(16, 8) == 4  # the seed: difficulty 8, a 16 -> four stages
    assert [rule.stages(8 + m, 8) for m in range(-1, 6)] == [0, 0, 0, 1, 1, 2, 2]


def test_fireball_two_stage_increase_turns_10d6_into_10d10() -> None:
    fireball = increase(parse("10d6", STEPS), 2, STEPS, all_dice=True)
    assert fireball.sides == (10,) * 10
    data = cli_json("roll", "ogs", "10d6", "--set", "increase=2", "--seed", "7")
    assert data["sizes"] == [10] * 10 and data["success"] is None and len(data["dice"]) == 10


def test_increase_past_d12_becomes_d8_plus_d6_and_further_stages_go_to_the_d6() -> None:
    assert increase_die(12, 1, STEPS) == [8, 6]
    assert increase_die(12, 2, STEPS) == [8, 8]
    assert increase_die(10, 2, STEPS) == [8, 6]
    assert increase_die(12, 5, STEPS) == [8, 8, 6]  # d6 -> d8 -> d10 -> d12 -> [d8+d6]
    assert increase_die(4, 2, STEPS) == [8]  # the seed: a 2-stage increase, d4 -> d8
    # On a check the increase aims at the enhancement die (the third die).
    check = increase(parse("d4+d8+d12+1", STEPS), 1, STEPS)
    assert check.sides == (4, 8, 8, 6) and check.text() == "d4+d8+[d8+d6]+1"


def test_house_rules_override_the_overflow_pool(tmp_path: Path) -> None:
    house = tmp_path / "house.toml"
    house.write_text("[dice]\noverflow = [10, 4]\n", encoding="utf-8")
    ruleset = OgsRuleset(house)
    assert increase_die(12, 1, ruleset.steps) == [10, 4]
    assert OgsRuleset().steps.overflow == (8, 6)


# ---------------------------------------------------------------- exact odds
def brute_total(spec: str) -> list[tuple[int, tuple[int, ...]]]:
    parsed = parse(spec, STEPS)
    return [(sum(f) + parsed.flat, f) for f in itertools.product(*(range(1, s + 1) for s in parsed.sides))]


@pytest.mark.parametrize("spec,difficulty", [("d4+d8+d8+2", 13), ("d6+d6", 7), ("d12+[d8+d6]-1", 15), ("d4", 5)])
def test_success_odds_match_brute_force(spec: str, difficulty: int) -> None:
    rolls = brute_total(spec)
    expected = Fraction(sum(t >= difficulty for t, _ in rolls), len(rolls))
    assert OgsRuleset().chance(spec, difficulty=difficulty) == expected


@pytest.mark.parametrize("own,rival", [("d4+d8+d8", "3d6"), ("d6+d6", "2d6"), ("d4+d6+1", "2d4+2"), ("d8+d4", "d6+d6+d4"), ("d10", "d6+2")])
def test_opposed_odds_match_brute_force_with_the_tie_rule(own: str, rival: str) -> None:
    a, b = parse(own, STEPS), parse(rival, STEPS)
    length = max(len(a.sides), len(b.sides))

    def key(faces: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(sorted(faces, reverse=True)) + (0,) * (length - len(faces))

    sizes = (key(a.sides) > key(b.sides)) - (key(a.sides) < key(b.sides))
    wins = Fraction(0)
    ra, rb = brute_total(own), brute_total(rival)
    for ta, fa in ra:
        for tb, fb in rb:
            if ta != tb:
                wins += ta > tb
            elif key(fa) != key(fb):
                wins += key(fa) > key(fb)
            else:
                wins += Fraction(1, 2) if sizes == 0 else (sizes > 0)
    expected = wins / (len(ra) * len(rb))
    assert OgsRuleset().chance(own, vs=rival) == expected
    # The two sides' chances add up to one: OGS opposed checks never draw.
    assert OgsRuleset().chance(own, vs=rival) + OgsRuleset().chance(rival, vs=own) == 1


def test_largest_pool_odds_are_fast_and_cached() -> None:
    import time

    odds.clear()
    started = time.process_time()  # CPU time: the work done, whatever else the machine runs
    p = odds.win((12, 12, 8, 6), 2, (12, 12, 8, 6), 2)
    cold = time.process_time() - started
    assert p == Fraction(1, 2)
    started = time.process_time()
    odds.win((12, 12, 8, 6), 2, (12, 12, 8, 6), 2)
    assert time.process_time() - started < cold
    assert cold < 1.0  # generous for a loaded test machine; the benchmark measures the 50 ms


# ---------------------------------------------------------------- the command line
def test_cli_roll_opposed_json_keys_and_michael() -> None:
    data = cli_json("roll", "ogs", "d4+d8+d8", "--vs", "3d6", "--faces", "1,4,6", "--vs-faces", "1,4,6")
    for key in ("ruleset", "dice", "success", "margin", "total", "difficulty", "stages", "winner"):
        assert key in data
    assert data["ruleset"] == "ogs" and data["dice"] == [1, 4, 6] and data["success"] is None
    assert data["winner"] == "self" and data["decided_by"] == "die sizes" and data["total"] == 11


def test_cli_roll_against_difficulty_gives_stages() -> None:
    data = cli_json("roll", "ogs", "d4+d8+d8+2", "--difficulty", "8", "--faces", "4,6,4")
    assert (data["total"], data["success"], data["stages"], data["margin"]) == (16, True, 4, 4)
    miss = cli_json("roll", "ogs", "d4+d8+d8+2", "--difficulty", "8", "--faces", "1,2,2")
    assert (miss["total"], miss["success"], miss["stages"]) == (7, False, 0)


def test_cli_odds_prints_probability_and_fraction() -> None:
    data = cli_json("odds", "ogs", "d4+d8+d8", "--difficulty", "11")
    assert data["fraction"] == "39/64" and data["probability"] == pytest.approx(39 / 64)


def test_cli_errors_are_messages_not_tracebacks(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli("roll", "ogs", "d7")[0] == 1
    assert "d7 is not an OGS die" in capsys.readouterr().err
    assert cli("roll", "ogs", "d6+d6", "--difficulty", "5", "--faces", "7,1")[0] == 1
    assert "not one of its faces" in capsys.readouterr().err
    assert cli("odds", "ogs", "d6")[0] == 1
    assert "--difficulty" in capsys.readouterr().err


# ---------------------------------------------------------------- sheet and timeline
def test_sheet_validates_dice_by_name() -> None:
    ruleset = OgsRuleset()
    stats, resources = ruleset.build_sheet({"stat": "d4", "skill": "d8", "enhancement": "d8+d6"}, "add Michael")
    assert stats["stat"] == "d4" and stats["enhancement"] == "d8+d6" and resources["hp"] == 20
    with pytest.raises(FieldError, match=r"add Michael\.stat: expected one die"):
        ruleset.build_sheet({"stat": "d7"}, "add Michael")
    with pytest.raises(FieldError, match=r"skill"):
        ruleset.build_sheet({"skill": "2d8"}, "add Michael")


def fight() -> Session:
    return session_for(
        OgsRuleset(),
        "add Michael stat=d4 skill=d8 enhancement=d8 damage=d8 defense=9",
        "add Guard stat=d6 skill=d6 enhancement=d6 damage=d6 defense=8 hp=40",
    )


def test_attack_stages_add_damage_dice_on_completion() -> None:
    session = fight()
    session.execute("declare Michael attack target=Guard difficulty=8 faces=4,6,6,7,3,8,2,5")
    action = session.encounter.actions[-1]
    assert action.resolution.margin == 4 and action.resolution.details["damage"] == 25
    assert action.resolution.dice == (4, 6, 6, 7, 3, 8, 2, 5)  # check dice, then 1 + 4 damage dice
    assert session.encounter.combatant("Guard").resources["hp"] == 40  # lands on completion
    session.execute("next")
    assert session.encounter.now == 10 and session.encounter.combatant("Guard").resources["hp"] == 15


def test_attack_uses_target_defense_and_a_miss_does_nothing() -> None:
    session = fight()
    session.execute("declare Guard attack target=Michael faces=1,2,5,6")  # the damage d6 is rolled too
    resolution = session.encounter.actions[-1].resolution
    assert resolution.details["difficulty"] == 9 and "as things stand: miss" in resolution.summary
    session.execute("next")
    assert any("lands: 8 vs Michael's defense 9: miss" in e.text for e in session.encounter.log)
    assert "hp" not in session.encounter.combatant("Michael").resources or session.encounter.combatant("Michael").resources["hp"] == session.encounter.combatant("Michael").maxima.get("hp")


def test_an_attack_is_judged_against_the_defense_the_target_has_when_it_lands() -> None:
    """Seed 002: "if a character tried to attack a monster, and that attack had a
    difficulty of 8, and then the attacking character rolled a 16 you would say that the
    character got a 'Four Stage Critical Success'"; "every stage adding another die to
    the damage roll". Michael rolls 4+6+6 = 16 against the Guard's defense 8: 4 stages,
    d8 + 4d8 damage 7+3+8+2+5 = 25. The Guard's defense rises to 12 before it lands:
    16 - 12 = 4, 2 stages: 7 + the first two stage dice 3 + 8 = 18."""
    session = fight()
    session.execute("declare Michael attack target=Guard faces=4,6,6,7,3,8,2,5")
    session.execute("set Guard defense 12")
    session.execute("next")
    assert session.encounter.combatant("Guard").resources["hp"] == 40 - 18
    assert any("lands: 16 vs Guard's defense 12: hit, 2-stage critical; 18 damage" in e.text for e in session.encounter.log)


def test_contest_in_the_timeline_and_chance_of() -> None:
    session = fight()
    assert session.chance("Michael", "contest", ["Guard"]) == OgsRuleset().chance("d4+d8+d8", vs="3d6")
    session.execute("declare Michael contest target=Guard faces=1,4,6,1,4,6")
    resolution = session.encounter.actions[-1].resolution
    assert resolution.details["winner"] == "Michael" and "die sizes" in resolution.summary
    session.execute("next")
    assert any(e.text == "Michael's contest lands: Michael d4:1 + d8:4 + d8:6 = 11; Guard d6:1 + d6:4 + d6:6 = 11: "
                         "Michael wins on die sizes" for e in session.encounter.log)


def test_the_result_names_critical_stages_not_a_margin() -> None:
    """Seed 002: "Every additional two the difficulty is exceeded by adds another level
    of critical success." d4 4 + d8 8 + d12 12 = 24 against 12: exceeded by 12, so
    12 / 2 = 6 stages; the form's result says "critical stages: 6", not "margin: 6"."""
    from tracker.play.dice_plan import result_figures

    s = session_for(OgsRuleset(), "add A stat=d4 skill=d8 enhancement=d12")
    s.execute("declare A check difficulty=12 faces=4,8,12")
    figures = result_figures(s.encounter.actions[-1].resolution)
    assert "critical stages: 6" in figures and not any(f.startswith("margin") for f in figures)
    assert s.encounter.actions[-1].resolution.details["total"] - 12 == 12


def test_reroll_ones_on_the_command_line_with_exact_odds_opposed_too() -> None:
    """Seed 002: "a common enhancement modifier will be to reroll ones". The enhancement
    die d4 rerolled once on a 1 shows 1 with 1/16 and 2, 3, 4 with 5/16 each. d6+d6+d4
    against 11: 1/16 P(2d6 >= 10) + 5/16 (P(2d6 >= 9) + P(>= 8) + P(>= 7))
    = 1/16 x 6/36 + 5/16 x (10 + 15 + 21)/36 = 236/576 = 59/144."""
    from itertools import product

    assert Fraction(cli_json("odds", "ogs", "d6+d6+d4", "--difficulty", "11", "--set", "reroll_ones=true")["fraction"]) == Fraction(59, 144)
    data = cli_json("roll", "ogs", "d6+d6+d4", "--difficulty", "11", "--faces", "3,4,1,4", "--set", "reroll_ones=true")
    assert data["total"] == 3 + 4 + 4 and data["success"] is True  # the 1 on the d4 rolled again: 4
    # Opposed: the tie-breaks read the rerolled faces. Brute force over every face and reroll.
    def outcomes(sides: tuple[int, ...], reroll: bool) -> dict[tuple[int, ...], Fraction]:
        out: dict[tuple[int, ...], Fraction] = {}
        for faces in product(*(range(1, s + 1) for s in sides)):
            p = Fraction(1, 1)
            for s in sides:
                p /= s
            options = [(faces, p)]
            if reroll and faces[2] == 1:
                options = [((*faces[:2], k), p / sides[2]) for k in range(1, sides[2] + 1)]
            for f, q in options:
                out[f] = out.get(f, Fraction(0)) + q
        return out
    own, rival = outcomes((4, 6, 4), True), outcomes((6, 4, 4), False)
    expected = Fraction(0)
    for a, pa in own.items():
        for b, pb in rival.items():
            if sum(a) != sum(b):
                expected += pa * pb * (sum(a) > sum(b))
            elif sorted(a, reverse=True) != sorted(b, reverse=True):
                expected += pa * pb * (sorted(a, reverse=True) > sorted(b, reverse=True))
            else:
                expected += pa * pb / 2  # equal dice sizes: the d12 roll-off, even
    got = cli_json("odds", "ogs", "d4+d6+d4", "--vs", "d6+d4+d4", "--set", "reroll_ones=true")
    assert Fraction(got["fraction"]) == expected
    assert cli("odds", "ogs", "d4+d6", "--difficulty", "5", "--set", "reroll_ones=true")[0] == 1  # no enhancement die


def test_a_dice_table_that_leaves_keys_out_takes_the_ladder_defaults() -> None:
    """A house-rule `[dice]` table naming only some keys keeps the others as shipped."""
    from rulesets.ogs.notation import DiceSteps

    assert DiceSteps.from_table({}) == DiceSteps((4, 6, 8, 10, 12), (8, 6), 1)
    assert DiceSteps.from_table({"steps": [4, 6, 8, 10, 12, 20]}) == DiceSteps((4, 6, 8, 10, 12, 20), (8, 6), 1)


@pytest.mark.parametrize("command", ["roll", "odds"])
def test_a_die_increase_past_the_dice_limit_is_refused_by_roll_and_odds(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Seed: a Die Increase past d12 makes the die "[d8+d6]", so 30d12 with one stage on
    a check is 31 dice, past the limit of 30 one roll may have (rulesets/limits.py). The
    timeline refuses that check; `roll` and `odds` refuse it too, after the increase, in
    the same words, and exit 1. 30d12 itself is within the limit."""
    s = session_for(OgsRuleset(), "add A stat=d12 skill=d12 enhancement=28d12")
    with pytest.raises(TrackerError, match=r"^A's check: 31 dice is more than the limit of 30$"):
        s.chance("A", "check", [], {"difficulty": "10", "increase": "1"})
    code, out = cli(command, "ogs", "30d12", "--difficulty", "10", "--set", "increase=1")
    err = capsys.readouterr().err
    assert code == 1 and out == ""
    assert err == "tracker: ogs dice '30d12' with increase=1: 31 dice is more than the limit of 30\n"
    assert cli(command, "ogs", "30d12", "--difficulty", "10")[0] == 0


def test_an_open_roll_increased_past_the_dice_limit_is_refused_everywhere(capsys: pytest.CaptureFixture[str]) -> None:
    """An Open Roll's increase affects every die (the seed's Fireball 10d6 +2 -> 10d10):
    30d12 increased once is 30 [d8+d6], 60 dice. `tracker roll` without a difficulty (an
    Open Roll) and `open` in the timeline both refuse it with the limit's words."""
    code, _ = cli("roll", "ogs", "30d12", "--set", "increase=1")
    assert code == 1
    assert capsys.readouterr().err == "tracker: ogs dice '30d12' with increase=1: 60 dice is more than the limit of 30\n"
    s = session_for(OgsRuleset(), "add A")
    with pytest.raises(TrackerError, match=r"^A's open roll: 60 dice is more than the limit of 30$"):
        s.execute("declare A open dice=30d12 increase=1")
    s.execute("declare A open dice=10d6 increase=2")
    assert s.encounter.actions[-1].resolution.details["sizes"] == [10] * 10
