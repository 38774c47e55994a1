"""D6 adapter: die codes and pips, the plain sum and the Wild Die setting, the seed's examples, combat, odds, saves."""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest

from tracker.engine import TrackerError
from tracker.play.session import Session
from rulesets.d6 import D6Ruleset
from rulesets.d6 import odds
from rulesets.d6.codes import DieCode, DieCodeError, parse, strength_damage
from rulesets.d6.rolls import CANCEL, COMPLICATION, roll_code
from rulesets.dice import TypedFaces
from rulesets.fields import FieldError
from tests.helpers import cli, cli_json, session_for

ROOT = Path(__file__).resolve().parent.parent


def session(*lines: str, **settings: object) -> Session:
    return session_for(D6Ruleset(), *lines, seed=3, **settings)


# ------------------------------------------------------------------ die codes and pips
def test_die_codes_parse_with_pips_and_bonuses() -> None:
    assert parse("4D+2") == DieCode(4, 2)
    assert parse("3d+1") == DieCode(3, 1)
    assert parse("2D-1") == DieCode(2, -1)
    assert parse("2d6+1") == DieCode(2, 1)
    assert parse("+1D") == DieCode(1, 0)
    assert parse("5D-1D+2") == DieCode(4, 2)
    assert str(DieCode(4, 2)) == "4D+2" and str(DieCode(3, 0)) == "3D" and DieCode(1, 0).signed() == "+1D"
    for bad in ("", "x", "4D+", "4E", "4D 2", "++1D"):
        with pytest.raises(DieCodeError, match="expected a die code such as 3D, 4D\\+2 or 2D-1"):
            parse(bad)


def test_the_shovel_adds_a_die_to_lifting_4d_so_five_dice_are_rolled() -> None:
    assert parse("4D") + parse("+1D") == DieCode(5, 0)
    data = cli_json("roll", "d6", "4D+1D", "--difficulty", "11", "--faces", "2,3,4,5,6")
    assert data["code"] == "5D" and len(data["dice"]) == 5 and data["total"] == 20
    s = session("add Digger lifting=4D")
    s.execute("declare Digger check skill=lifting modifier=+1D level=moderate faces=2,3,4,5,6")
    assert len(s.encounter.actions[0].resolution.dice) == 5
    s2 = session("add Digger lifting=4D")
    with pytest.raises(TrackerError, match="needs more dice"):
        s2.execute("declare Digger check skill=lifting modifier=+1D level=moderate faces=2,3,4,5")


def test_a_number_bonus_adds_to_the_total_and_three_pips_make_a_die_on_the_ladder() -> None:
    data = cli_json("roll", "d6", "4D+2", "--faces", "2,3,4,5")
    assert data["total"] == 2 + 3 + 4 + 5 + 2
    assert [str(DieCode(1, 0).advance(n)) for n in range(5)] == ["1D", "1D+1", "1D+2", "2D", "2D+1"]
    assert DieCode(3, 2).advance(1) == DieCode(4, 0)
    assert DieCode(2, 5).normalized() == DieCode(3, 2) and DieCode(3, -1).normalized() == DieCode(2, 2)
    assert parse("4D+3") == DieCode(4, 3)  # a roll keeps its pips: 4D+3 is not 5D
    assert strength_damage(parse("3D")) == DieCode(2, 0) and strength_damage(parse("6D+2")) == DieCode(3, 0)


# ------------------------------------------------------------------ the plain sum (the seed) and the Wild Die (a setting)
def test_without_the_wild_die_a_roll_is_the_plain_sum_and_very_easy_always_succeeds() -> None:
    """Seed 001: "... a bonus of '+1' or '+2' ... you add to the total result you roll on
    the dice"; "Very Easy (1): Nearly everyone can accomplish this task"."""
    data = cli_json("roll", "d6", "1D", "--difficulty", "1", "--faces", "1")
    # 1D showing 1: total 1 against 1: success, result points 1 - 1 = 0 (Minimal).
    assert data["total"] == 1 and data["success"] is True and data["result_points"] == 0 and data["level"] == "minimal"
    assert data["wild_die"] is False and "wild" not in data
    roll = roll_code(DieCode(3, 1), TypedFaces([6, 2, 3]))
    assert roll.total == 6 + 2 + 3 + 1 and roll.status is None and roll.faces == (6, 2, 3)  # a 6 does not explode
    assert roll_code(DieCode(4, 0), TypedFaces([1, 5, 4, 6])).total == 16  # a 1 cancels nothing
    rules = D6Ruleset()
    assert rules.chance("1D", difficulty=1) == 1
    # 3D against Moderate (11) on a plain sum: 108 of the 216 faces (3d6 is symmetric
    # about 10.5); against 10, also the 27 ways to make exactly 10: 135/216 = 5/8.
    assert rules.chance("3D", difficulty=11) == Fraction(1, 2)
    assert rules.chance("3D", difficulty=10) == Fraction(5, 8)
    # 1D+1 against 1D: lose only when the rival shows 6 and own 1..4 or rival 5 and own 1..3 ... counted:
    # own+1 >= rival fails for (own, rival) with rival >= own + 2: 4+3+2+1 = 10 of 36.
    assert rules.chance("1D+1", vs="1D") == Fraction(26, 36)
    assert cli_json("odds", "d6", "1D", "--difficulty", "1")["probability"] == 1


def test_the_wild_die_is_a_table_setting_off_by_default() -> None:
    from rulesets.fields import coerce_all

    rules = D6Ruleset()
    defaults = coerce_all(rules.settings, {}, "settings")
    assert defaults["wild_die"] is False
    help_text = next(f.help for f in rules.settings if f.name == "wild_die")
    assert "off by default" in help_text and "not in the D6 rules text" in help_text
    on = cli_json("roll", "d6", "3D", "--faces", "6,2,3,4", "--set", "wild_die=true")
    assert on["total"] == 6 + 4 + 2 + 3 and on["wild"] == "critical_success"
    s = session("add A reflexes=3D", wild_die=True)
    s.execute("declare A check difficulty=10 faces=1,5,4")  # cancel: 1 and 5 dropped, 4 left
    assert s.encounter.actions[0].resolution.details["total"] == 4
    s = session("add A reflexes=3D")
    s.execute("declare A check difficulty=10 faces=1,5,4")  # plain: 10
    assert s.encounter.actions[0].resolution.details["total"] == 10 and s.encounter.actions[0].resolution.success


def test_faces_are_read_wild_die_first_then_the_others_then_explosions() -> None:
    roll = roll_code(DieCode(3, 1), TypedFaces([6, 2, 3, 6, 4]), CANCEL)
    assert roll.wild == (6, 6, 4) and roll.others == (2, 3)
    assert roll.total == 6 + 6 + 4 + 2 + 3 + 1 and roll.status == "critical_success"
    assert roll.faces == (6, 2, 3, 6, 4)


def test_a_first_1_cancels_itself_and_the_highest_die_or_counts_with_a_complication() -> None:
    cancel = roll_code(DieCode(4, 0), TypedFaces([1, 5, 4, 6]), CANCEL)
    assert cancel.total == 9 and cancel.dropped == (1, 6) and cancel.status == "critical_failure"
    complication = roll_code(DieCode(4, 0), TypedFaces([1, 5, 4, 6]), COMPLICATION)
    assert complication.total == 16 and complication.status == "critical_failure"
    assert roll_code(DieCode(1, 2), TypedFaces([1]), CANCEL).total == 2  # the only die cancels itself
    late_one = roll_code(DieCode(2, 0), TypedFaces([6, 3, 1]), CANCEL)
    assert late_one.total == 6 + 1 + 3 and late_one.status == "critical_success"  # a later 1 is just 1
    data = cli_json("roll", "d6", "4D", "--faces", "1,5,4,6", "--set", "wild_die=true", "--set", "critical_failure=complication")
    assert data["total"] == 16 and data["wild"] == "critical_failure"
    assert cli_json("roll", "d6", "4D", "--faces", "1,5,4,6", "--set", "wild_die=true")["total"] == 9


# ------------------------------------------------------------------ difficulties and result points
def test_standard_difficulties_are_the_seeds_numbers() -> None:
    data = D6Ruleset().data
    assert {name: n for n, name in data.difficulties.values()} == {
        "Automatic": 0, "Very Easy": 1, "Easy": 6, "Moderate": 11, "Difficult": 16,
        "Very Difficult": 21, "Heroic": 26, "Legendary": 31,
    }
    assert [data.difficulty_name(n) for n in (0, 5, 10, 15, 20, 25, 30, 40)] == [
        "Automatic", "Very Easy", "Easy", "Moderate", "Difficult", "Very Difficult", "Heroic", "Legendary",
    ]
    s = session("add A reflexes=3D")
    s.execute("declare A check level=heroic faces=2,3,4")
    assert s.encounter.actions[0].resolution.details["difficulty"] == 26


@pytest.mark.parametrize(
    "total,level",
    [(11, "minimal"), (12, "solid"), (15, "solid"), (16, "good"), (19, "good"), (20, "superior"), (23, "superior"),
     (24, "spectacular"), (26, "spectacular"), (27, "incredible"), (40, "incredible"), (10, "failure")],
)
def test_result_points_and_success_levels(total: int, level: str) -> None:
    # A 5D+N roll of five 2s is 10 + N: aim for `total` against Moderate (11).
    data = cli_json("roll", "d6", f"5D+{total - 10}", "--difficulty", "11", "--faces", "2,2,2,2,2")
    assert data["total"] == total and data["difficulty"] == 11
    assert data["result_points"] == total - 11 and data["margin"] == total - 11
    assert data["level"] == level and data["success"] is (total >= 11)


def test_the_foraging_example_minimal_then_spectacular() -> None:
    data = D6Ruleset().data
    assert data.level_name(0) == "Minimal" and data.level_name(13) == "Spectacular" and data.level_name(16) == "Incredible"


def test_roll_json_has_the_contract_keys() -> None:
    data = cli_json("roll", "d6", "4D+2", "--difficulty", "15", "--faces", "6,3,4,5,6,2", "--set", "wild_die=true")
    for key in ("ruleset", "dice", "success", "margin", "total", "difficulty", "result_points", "level", "wild"):
        assert key in data
    assert data["dice"] == [6, 3, 4, 5, 6, 2] and data["total"] == 6 + 6 + 2 + 3 + 4 + 5 + 2
    assert data["wild"] == "critical_success"
    plain = cli_json("roll", "d6", "2D", "--faces", "3,4", "--set", "wild_die=true")
    assert plain["wild"] is None and plain["success"] is None and plain["total"] == 7


def test_opposed_rolls_give_ties_to_the_initiator() -> None:
    tie = cli_json("roll", "d6", "3D", "--vs", "3D", "--faces", "2,3,4", "--vs-faces", "2,4,3")
    assert tie["winner"] == "self" and tie["success"] is None and tie["result_points"] == 0
    lose = cli_json("roll", "d6", "3D", "--vs", "3D", "--faces", "2,3,4", "--vs-faces", "5,4,3")
    assert lose["winner"] == "rival" and lose["difficulty"] == 12 and lose["result_points"] == -3


# ------------------------------------------------------------------ combat
def test_passive_defence_result_points_to_damage_and_wound_levels() -> None:
    s = session("add Hero marksmanship=5D weapon=4D", "add Merc physique=2D")
    # Attack 5D: wild 5 + 4,4,4,4 = 21 vs passive 10: result points 11 -> +3 damage (D11).
    # Damage 4D: 3,3,3,3 = 12 + 3 = 15; resistance Physique 2D: 2,2 = 4; 11 over -> Incapacitated.
    s.execute("declare Hero shoot target=Merc faces=5,4,4,4,4,3,3,3,3,2,2")
    res = s.encounter.actions[0].resolution
    assert res.details["result_points"] == 11 and res.details["damage"] == 15 and res.details["resistance"] == 4
    assert "+ 3 (result points 11 / 5, rounded up)" in res.summary
    s.execute("next")
    merc = s.encounter.combatants["Merc"]
    assert merc.resources["wounds"] == 0 and merc.down


@pytest.mark.parametrize("over,level", [(3, "Stunned"), (4, "Wounded"), (9, "Incapacitated"), (13, "Mortally Wounded"), (16, "Dead")])
def test_wound_levels_by_damage_over_resistance(over: int, level: str) -> None:
    data = D6Ruleset().data
    assert data.rank_name(data.rank_for(over)) == level


def test_a_second_wound_raises_the_level_by_one() -> None:
    s = session("add A brawling=4D", "add B physique=1D")
    # Strength Damage of Physique 3D is 2D. Hit: 4,4,4,4 = 16 vs 10; damage 2D: 3,3 = 6 + 2 = 8 vs 1D: 2 -> 6 over: Wounded.
    s.execute("declare A strike skill=brawling target=B faces=4,4,4,4,3,3,2")
    s.execute("next")
    assert s.encounter.combatants["B"].resources["wounds"] == 2
    # B is Wounded (-1D) now. Another 1-3 over would be Stunned, but it raises Wounded to Severely Wounded.
    s.execute("declare A strike skill=brawling target=B faces=2,2,3,3,2,2,3")
    s.execute("next")
    assert s.encounter.combatants["B"].resources["wounds"] == 1
    assert "Severely Wounded" in s.encounter.actions[1].resolution.summary


def test_active_defence_replaces_the_difficulty_for_a_round_and_full_defence_adds_10() -> None:
    s = session("add Hero marksmanship=3D weapon=4D", "add Merc dodge=2D")
    s.execute("declare Merc dodge full=true faces=3,4")
    assert s.encounter.actions[0].resolution.details["defense"] == 17
    assert s.chance("Hero", "shoot", ["Merc"]) == odds.chance_at_least(DieCode(3, 0), 17)
    s.execute("declare Hero shoot target=Merc faces=5,5,5,1,1,1,1,1,1,1")  # 15; damage 4D and resistance 3D rolled too
    res = s.encounter.actions[1].resolution
    assert res.details["difficulty"] == 17 and res.margin == -2 and "active dodge 17" in res.summary
    s.execute("next")
    assert any("lands: 15 vs Merc's active dodge 17" in e.text and "miss by 2" in e.text for e in s.encounter.log)
    s.execute("declare Hero shoot target=Merc faces=2,3,4,1,1,1,1,1,1,1")  # segment 10: the dodge has lapsed
    assert s.encounter.actions[2].resolution.details["difficulty"] == 10


def test_range_cover_situation_and_several_actions_change_the_roll_and_time() -> None:
    s = session("add Hero marksmanship=5D weapon=4D", "add Merc")
    s.execute("declare Hero shoot target=Merc range=long cover=light situation=advantaged actions=2 faces=2,2,2,2,1,1,1,1,1,1,1")
    action = s.encounter.actions[0]
    assert action.pt == 5  # two actions: half a round each
    assert "5D, advantaged +5, long range -10, light cover -3, 2 actions -1D = 4D-8" in action.resolution.summary
    with pytest.raises(TrackerError, match="needs at least 1D"):
        session("add A marksmanship=2D weapon=4D", "add B").execute("declare A shoot target=B actions=3 faces=1")


def test_body_points_take_the_excess_over_armour() -> None:
    s = session("add Hero marksmanship=4D weapon=3D", "add Orc armor=1D body_points=20", damage_system="body_points")
    # Hit 4,4,4,4 = 16 vs 10 (+2 damage); damage 3D: 3,3,3 = 9 + 2 = 11; armour 1D: 2 -> 9 Body Points.
    s.execute("declare Hero shoot target=Orc faces=4,4,4,4,3,3,3,2")
    s.execute("next")
    assert s.encounter.combatants["Orc"].resources["body_points"] == 11
    with pytest.raises(TrackerError, match="body_points"):
        session("add Hero marksmanship=4D weapon=3D", "add Orc", damage_system="body_points").execute(
            "declare Hero shoot target=Orc faces=4,4,4,4,3,3,3"
        )


def test_sheet_die_codes_are_validated_by_name_and_stored_canonically() -> None:
    with pytest.raises(FieldError, match=r"add X\.physique: expected a die code such as 3D, 4D\+2 or 2D-1, got 'strong'"):
        session("add X physique=strong")
    with pytest.raises(FieldError, match=r"add X\.dodge"):
        session("add X dodge=0D")
    s = session("add X physique=4d+2 weapon=+1d")
    assert s.encounter.combatants["X"].stats["physique"] == "4D+2"
    assert s.encounter.combatants["X"].stats["weapon"] == "+1D"
    assert s.encounter.combatants["X"].resources == {"wounds": 4}


# ------------------------------------------------------------------ odds
def brute_at_least(code: DieCode, target: int, mode: str) -> Fraction:
    """P(total >= target) by walking every face sequence, with the explosion stopped once success is certain."""
    others = code.dice - 1
    total = Fraction(0)
    for first in range(1, 7):
        for rest in product(range(1, 7), repeat=others):
            p = Fraction(1, 6) ** (1 + others)
            if first == 1 and mode == CANCEL:
                kept = sorted(rest)[:-1]
                total += p * (sum(kept) + code.pips >= target)
            elif first != 6:
                total += p * (first + sum(rest) + code.pips >= target)
            else:
                base = 6 + sum(rest) + code.pips
                chance, running = Fraction(0), Fraction(1)
                while base + 1 < target:  # roll the Wild Die again while it could still matter
                    chance += running * Fraction(sum(1 for f in range(1, 6) if base + f >= target), 6)
                    running /= 6
                    base += 6
                total += p * (chance + running)
    return total


@pytest.mark.parametrize("code", ["1D", "2D", "2D+1", "3D", "3D-2"])
@pytest.mark.parametrize("mode", [CANCEL, COMPLICATION])
def test_odds_match_brute_force_enumeration(code: str, mode: str) -> None:
    c = parse(code)
    for target in (1, 4, 7, 10, 13, 18, 25):
        assert odds.chance_at_least(c, target, mode) == brute_at_least(c, target, mode), (code, target)


def brute_opposed_bounds(a: DieCode, b: DieCode, depth: int) -> tuple[Fraction, Fraction]:
    """Bounds on P(A >= B) from every sequence with at most `depth` explosions per Wild Die."""
    def outcomes(code: DieCode) -> dict[int | None, Fraction]:
        dist: dict[int | None, Fraction] = {}
        for rest in product(range(1, 7), repeat=code.dice - 1):
            p = Fraction(1, 6) ** (code.dice - 1)
            for first in range(1, 7):
                if first == 1:
                    value = sum(sorted(rest)[:-1]) + code.pips
                    dist[value] = dist.get(value, 0) + p / 6
                elif first < 6:
                    dist[first + sum(rest) + code.pips] = dist.get(first + sum(rest) + code.pips, 0) + p / 6
                else:
                    running, base = p / 6, 6 + sum(rest) + code.pips
                    for _ in range(depth):
                        for f in range(1, 6):
                            dist[base + f] = dist.get(base + f, 0) + running / 6
                        running /= 6
                        base += 6
                    dist[None] = dist.get(None, 0) + running  # still exploding: unknown
        return dist

    da, db = outcomes(a), outcomes(b)
    low = sum(pa * pb for x, pa in da.items() for y, pb in db.items() if x is not None and y is not None and x >= y)
    unknown = da.get(None, 0) + db.get(None, 0)
    return low, low + unknown


@pytest.mark.parametrize("a,b", [("2D", "2D"), ("3D", "2D+1"), ("1D", "2D"), ("2D+2", "3D")])
def test_opposed_odds_lie_within_brute_force_bounds(a: str, b: str) -> None:
    exact = odds.chance_opposed(parse(a), parse(b), CANCEL)
    low, high = brute_opposed_bounds(parse(a), parse(b), 6)
    assert low <= exact <= high and high - low < Fraction(1, 10**4)


def test_odds_match_the_reference_figures() -> None:
    rules = D6Ruleset()
    wild = {"wild_die": True}
    assert round(float(rules.chance("3D", difficulty=10, options=wild)), 4) == 0.5918
    assert round(float(rules.chance("3D", difficulty=10, options={**wild, "critical_failure": "complication"})), 4) == 0.6381
    assert round(float(rules.chance("4D", difficulty=16, options=wild)), 4) == 0.3666
    assert round(float(rules.chance("5D", difficulty=21, options=wild)), 4) == 0.2696
    assert round(float(rules.chance("4D", vs="3D", options=wild)), 4) == 0.7102
    data = cli_json("odds", "d6", "3D", "--difficulty", "10", "--set", "wild_die=true")
    assert data["probability"] == pytest.approx(0.5918, abs=1e-4) and Fraction(data["fraction"]) == rules.chance("3D", difficulty=10, options=wild)
    # Without the Wild Die the same checks are plain sums of d6.
    assert rules.chance("4D", difficulty=16) == sum(Fraction(1, 6**4) for f in product(range(1, 7), repeat=4) if sum(f) >= 16)


def test_the_largest_pools_are_exact_and_cached() -> None:
    rules = D6Ruleset()
    odds.clear_caches()
    wild = {"wild_die": True}
    first = rules.chance("8D+2", vs="8D+2", options=wild)
    hits = odds.cache_hits()
    assert rules.chance("8D+2", vs="8D+2", options=wild) == first and odds.cache_hits() == hits + 1
    assert Fraction(1, 2) < first < 1  # ties go to the initiator
    # 8D+2 shows at most 50 without an explosion: above that only the Wild Die's 1/6 branch counts.
    assert 0 < rules.chance("8D+2", difficulty=51, options=wild) < Fraction(1, 6)
    assert rules.chance("8D+2", difficulty=51) == 0 and rules.chance("8D+2", difficulty=50) == Fraction(1, 6**8)


def test_command_line_errors_are_clear() -> None:
    assert cli("odds", "d6", "3D")[0] == 1
    assert cli("roll", "d6", "0D+2")[0] == 1
    assert cli("roll", "d6", "3D", "--set", "critical_failure=maybe")[0] == 1
    assert cli("roll", "d6", "2D", "--faces", "3,4,5")[0] == 1
    assert cli("roll", "d6", "2D", "--faces", "3,7")[0] == 1


# ------------------------------------------------------------------ saves



def test_the_shipped_d6_example_exists() -> None:
    assert list((ROOT / "saves").glob("d6-*.toml"))


def test_house_rules_override_tables_and_bad_rows_are_named(tmp_path: Path) -> None:
    rules = tmp_path / "house.toml"
    rules.write_text('[difficulties]\nheroic = { name = "Heroic", number = 31 }\n[situations]\nadvantaged = "+1D"\n')
    data = D6Ruleset(rules).data
    assert data.difficulties["heroic"] == (31, "Heroic") and data.difficulties["moderate"] == (11, "Moderate")
    assert data.situations["advantaged"] == DieCode(1, 0)
    bad = tmp_path / "bad.toml"
    bad.write_text('[cover]\nlight = "lots"\n')
    with pytest.raises(TrackerError, match=r"cover\.light: expected a die code"):
        _ = D6Ruleset(bad).data


def test_the_roll_text_tells_the_gm_which_critical_failure_rule_was_used() -> None:
    """The GM reads the roll's line. Wild Die (rulesets/d6/rolls.py): a first 1 is a
    Critical Failure; under "cancel" the 1 and the highest other die are dropped, with no
    other die the 1 cancels itself; under "complication" the dice count.

    By hand: 4D+2 with the Wild Die 1 and dice 2, 5, 4: cancel drops 1 and 5, 2 + 4 + 2 =
    8; complication counts 1 + 2 + 5 + 4 + 2 = 14. 1D+2 with the Wild Die 1: cancel
    drops the 1 alone, 2."""
    cancel = roll_code(DieCode(4, 2), TypedFaces([1, 2, 5, 4]), CANCEL)
    assert cancel.text() == "4D+2: wild 1; dice 2, 5, 4 (critical failure: 1 and 5 dropped) = 8"
    complication = roll_code(DieCode(4, 2), TypedFaces([1, 2, 5, 4]), COMPLICATION)
    assert complication.text() == "4D+2: wild 1; dice 2, 5, 4 (critical failure: counts, with a complication) = 14"
    alone = roll_code(DieCode(1, 2), TypedFaces([1]), CANCEL)
    assert alone.text() == "1D+2: wild 1 (critical failure: 1 dropped) = 2"
    plain = roll_code(DieCode(4, 2), TypedFaces([6, 2, 5, 4]))  # no Wild Die: 6 + 2 + 5 + 4 + 2
    assert plain.text() == "4D+2: dice 6, 2, 5, 4 = 19"
    wild_3 = roll_code(DieCode(2, 0), TypedFaces([3, 6]), CANCEL)  # Wild Die 3: neither critical
    assert wild_3.text() == "2D: wild 3; dice 6 = 9"


def test_opposed_odds_count_both_sides_pips() -> None:
    """Ties go to the initiator (P(own total >= rival total)); pips add to each side's
    total. By hand, plain sums: 1D+1 vs 1D+1 is 1D vs 1D, P(a >= b) = 21/36 = 7/12;
    1D+2 vs 1D+1 is P(a + 1 >= b) = 1 - P(b - a >= 2) = 1 - (4+3+2+1)/36 = 26/36 = 13/18."""
    assert odds.chance_opposed(DieCode(1, 1), DieCode(1, 1)) == Fraction(7, 12)
    assert odds.chance_opposed(DieCode(1, 2), DieCode(1, 1)) == Fraction(13, 18)
