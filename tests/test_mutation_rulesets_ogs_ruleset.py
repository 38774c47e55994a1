"""Direct tests of rulesets.ogs.ruleset: the OGS game as its module docstring and seed
002 describe it, each hook called directly with typed faces (the catalogue and its
tables, the Action Check built from a sheet, a check, an attack and its blow landing,
an Opposed Check of two sides or more and its landing, an Open Roll, the chances, and
`tracker roll` / `odds`).

Seed sentences the figures below are worked from:
- "If the total is equal to or greater than the difficulty the action succeeds".
- "If an Action Check's total exceeds the target difficulty by two or more it is
  considered to be a critical success. Every additional two the difficulty is exceeded
  by adds another level of critical success." (a margin m >= 2 is m // 2 stages)
- "Attack rolls ... benefit greatly with every stage adding another die to the damage
  roll."
- "The participant with the higher total wins the Opposed Check ... the resulting tie
  is broken by comparing ... Individual die values from largest to smallest, individual
  die sizes from largest to smallest, and finally by repeatedly rolling opposed d12s".
- "A 1-Stage Die Increase increases a die one size, for example from d4 to d6" and past
  d12 "The die pool defaults to [d8 + d6]", further stages going to the d6.
- "In the rare instances where a Die Increase effect targets an open roll, *all* dice
  are increased."
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from rulesets.base import ActionRequest
from rulesets.dice import DiceGroup, TypedFaces
from rulesets.ogs import OgsRuleset
from rulesets.ogs.ruleset import BLOW_JUDGE, CONTEST_JUDGE, judge_blow, judge_contest
from rulesets.ogs.sheet import ATTACK_PARAMS, CHECK_PARAMS, OPEN_PARAMS
from tracker.engine.effects import Blow, Damage, Note
from tracker.engine.errors import TrackerError
from tracker.engine.model import ACTIVE, PASSIVE, Combatant
from tests.helpers import session_for

GAME = OgsRuleset()
SHIPPED_STEPS = {"steps": [4, 6, 8, 10, 12], "overflow": [8, 6], "overflow_target": 1}


class Heard(TypedFaces):
    """Typed faces that keep each group of dice a roll announces: (label, sides, who)."""

    def __init__(self, faces: list[int]) -> None:
        super().__init__(faces)
        self.groups: list[tuple[str, tuple[int, ...], str]] = []

    def begin(self, group: DiceGroup) -> None:
        self.groups.append((group.label, group.sides, group.who))


def who(name: str, game: OgsRuleset = GAME, **values: str) -> Combatant:
    """A combatant as `add NAME key=value ...` makes it (the sheet's defaults for the rest)."""
    stats, resources = game.build_sheet(values, f"add {name}")
    return Combatant(name, stats, resources, dict(resources))


def michael(**values: str) -> Combatant:
    # Seed 002: "Michael rolls his Coordination of d4, plus his Sneak skill of d8, plus his
    # Quiet Footpad general enhancement of d8".
    return who("Michael", **{"stat": "d4", "skill": "d8", "enhancement": "d8", "damage": "d8", **values})


def guard(**values: str) -> Combatant:
    # "The GM rolls the guardsman's Notice skill check of 3d6".
    return who("Guard", **{"stat": "d6", "skill": "d6", "enhancement": "d6", "damage": "d6", "hp": "40", **values})


def resolve(action: str, actor: Combatant, targets: tuple[Combatant, ...] = (), faces: TypedFaces | None = None,
            game: OgsRuleset = GAME, **params: Any) -> Any:
    request = ActionRequest(game.catalogue()[action], actor, targets, params)
    return game.resolve(request, faces if faces is not None else TypedFaces([]))


def refused(call: Any, *args: Any, **kwargs: Any) -> str:
    with pytest.raises(TrackerError) as error:
        call(*args, **kwargs)
    return str(error.value)


# ---------------------------------------------------------------- the catalogue and its tables
def test_the_catalogue_its_times_from_the_time_table_and_its_modifiers() -> None:
    """Each action's performance time is its own row of [time] (distinct values here, so
    that no row is read for another)."""
    house = {"time": {"attack": 11, "power": 12, "check": 13, "contest": 14, "open": 15, "move": 16}}
    catalogue = OgsRuleset(house).catalogue()
    assert list(catalogue) == ["attack", "power", "check", "contest", "open", "move"]
    got = {k: (t.name, t.mode, t.pt, t.targets, t.rolls, t.params) for k, t in catalogue.items()}
    assert got == {
        "attack": ("attack", ACTIVE, 11, 1, "stat + skill + enhancement", ATTACK_PARAMS),
        "power": ("power", ACTIVE, 12, 1, "stat + force + enhancement", ATTACK_PARAMS),
        "check": ("check", ACTIVE, 13, 0, "stat + skill + enhancement", CHECK_PARAMS),
        "contest": ("contest", ACTIVE, 14, -1, "every side's check", CHECK_PARAMS),
        "open": ("open", ACTIVE, 15, -1, "the dice given", OPEN_PARAMS),
        "move": ("move", PASSIVE, 16, 0, "", ()),
    }
    assert {k: t.description for k, t in catalogue.items()} == {
        "attack": "Action Check vs the target's defense; each stage adds a damage die",
        "power": "a force power: stat + force + enhancement vs the target's defense",
        "check": "an Action Check against a difficulty",
        "contest": "an Opposed Check against the target's check (several targets: every side rolls)",
        "open": "an Open Roll (e.g. a Fireball); its total is dealt to each target",
        "move": "move while doing something else",
    }


def test_the_shipped_times_are_a_round_for_a_check_and_half_for_an_open_roll_or_a_move() -> None:
    # The docstring: "an attack, power or check takes a round (10 segments), an open roll
    # or a move 5 (passive for a move)".
    assert {k: t.pt for k, t in GAME.catalogue().items()} == {
        "attack": 10, "power": 10, "check": 10, "contest": 10, "open": 5, "move": 5}


@pytest.mark.parametrize("bad", [0, 10**12 + 1, "5", 2.5, True])
def test_a_time_row_is_a_whole_number_of_segments_from_one(bad: Any) -> None:
    game = OgsRuleset({"time": {"open": bad}})
    assert refused(game.check_tables) == (
        f"ogs tables [time].open: expected a whole number of segments from 1 to 1,000,000,000,000, got {bad!r}")
    assert OgsRuleset({"time": {"open": 10**12}}).catalogue()["open"].pt == 10**12


def test_the_tables_refuse_a_row_they_never_read_naming_the_rows_they_do() -> None:
    assert refused(OgsRuleset({"check": {"stage": 3}}).check_tables) == (
        "ogs tables [check].stage: expected one of first_stage, stage_size, default_difficulty (no such row is read)")
    assert refused(OgsRuleset({"time": {"dodge": 3}}).check_tables) == (
        "ogs tables [time].dodge: expected one of attack, power, check, contest, open, move (no such row is read)")
    assert "ogs tables [dice].sides" in refused(OgsRuleset({"dice": {"sides": [4]}}).check_tables)
    assert "ogs tables [check].stage_size" in refused(OgsRuleset({"check": {"stage_size": 0}}).check_tables)
    OgsRuleset({"check": {"first_stage": 3, "stage_size": 3, "default_difficulty": 0}}).check_tables()


def test_the_default_difficulty_is_the_tables_and_a_negative_one_is_refused() -> None:
    """A check with no difficulty given is rolled against [check].default_difficulty
    (shipped 8, the seed's example difficulty)."""
    assert resolve("check", michael(), faces=TypedFaces([4, 2, 2])).details["difficulty"] == 8
    game = OgsRuleset({"check": {"default_difficulty": 5}})
    low = resolve("check", who("Michael", game, stat="d4", skill="d8", enhancement="d8"), faces=TypedFaces([1, 2, 2]), game=game)
    assert low.details["difficulty"] == 5 and low.success is True
    assert refused(OgsRuleset({"check": {"default_difficulty": -1}}).check_tables) == (
        "ogs tables [check].default_difficulty: expected a whole number of at least 0, got -1")


def test_a_check_ignores_a_targets_defense_which_is_an_attacks_difficulty() -> None:
    """An attack's difficulty is the target's defense; a check's is the GM's default."""
    target = guard(defense="12")
    assert resolve("check", michael(), (target,), TypedFaces([1, 1, 1])).details["difficulty"] == 8
    assert resolve("attack", michael(), (target,), TypedFaces([1, 1, 1, 1])).details["difficulty"] == 12
    assert resolve("attack", michael(), (target,), TypedFaces([1, 1, 1, 1]), difficulty=3).details["difficulty"] == 3
    assert resolve("power", michael(force="d6"), (target,), TypedFaces([1, 1, 1, 1])).details["difficulty"] == 12


# ---------------------------------------------------------------- the Action Check built from a sheet
def test_a_check_is_the_stat_die_the_skill_die_and_the_enhancement_pool_in_that_order() -> None:
    spec, start = GAME.check(michael(), {})
    assert (spec.sides, spec.flat, spec.text(), start) == ((4, 8, 8), 0, "d4+d8+d8", None)
    # Each part keeps its own dice: no part's die is bracketed with another part's.
    assert GAME.check(michael(enhancement="[d8+d6]"), {})[0].text() == "d4+d8+[d8+d6]"
    assert GAME.check(michael(enhancement="2d6"), {})[0].text() == "d4+d8+d6+d6"
    assert GAME.check_spec(michael(), {}) == spec


def test_the_declares_dice_stand_in_for_the_sheets() -> None:
    sheet = michael(force="d10")
    assert GAME.check(sheet, {"stat": "d6"})[0].sides == (6, 8, 8)
    assert GAME.check(sheet, {"skill": "d12"})[0].sides == (4, 12, 8)
    assert GAME.check(sheet, {"enhancement": "d4+d4"})[0].sides == (4, 8, 4, 4)
    # An empty enhancement on the declare means none, not the sheet's.
    assert GAME.check(sheet, {"enhancement": ""})[0].sides == (4, 8)
    assert GAME.check(sheet, {"stat": None, "skill": None, "enhancement": None})[0].sides == (4, 8, 8)
    # A power rolls the force die; a declared skill die does not replace it.
    assert GAME.check(sheet, {"skill": "d12"}, "force")[0].sides == (4, 10, 8)


def test_a_check_without_a_stat_or_second_die_is_refused_by_name() -> None:
    assert refused(GAME.check, michael(stat=""), {}) == "Michael has no stat die"
    assert refused(GAME.check, michael(skill=""), {}) == "Michael has no skill die (set skill=d8 on the sheet)"
    assert refused(GAME.check, michael(), {}, "force") == "Michael has no force die (set force=d8 on the sheet)"
    assert "Michael.enhancement" in refused(GAME.check, Combatant("Michael", {"stat": "d4", "skill": "d8", "enhancement": "d7"}, {}, {}), {})


def test_flat_bonuses_add_the_sheets_and_the_declares() -> None:
    # Seed: "the flat bonus is added directly to the total".
    assert GAME.check(michael(flat="2"), {"bonus": 3})[0].flat == 5
    assert GAME.check(michael(flat="-2"), {"bonus": None})[0].flat == -2
    assert GAME.check(Combatant("Michael", {"stat": "d4", "skill": "d8"}, {}, {}), {})[0].flat == 0


def test_a_die_increase_aims_at_the_enhancement_die_unless_told() -> None:
    """"will affect the enhancement die unless a different target is explicitly
    described"; with no enhancement die, the last die (the docstring)."""
    assert GAME.check(michael(), {"increase": 1})[0].sides == (4, 8, 10)
    assert GAME.check(michael(enhancement=""), {"increase": 1})[0].sides == (4, 10)
    assert GAME.check(michael(enhancement="d4+d4"), {"increase": 1})[0].sides == (4, 8, 6, 4)
    assert GAME.check(michael(), {"increase": 1, "increase_die": 1})[0].sides == (6, 8, 8)
    assert GAME.check(michael(), {"increase": 2, "increase_die": 2})[0].sides == (4, 12, 8)
    # Past d12: [d8+d6], the second stage to the d6.
    big = GAME.check(michael(enhancement="d12"), {"increase": 2})[0]
    assert big.sides == (4, 8, 8, 8) and big.text() == "d4+d8+[d8+d8]"
    assert GAME.check(michael(), {"increase": 0, "increase_die": 1})[0].sides == (4, 8, 8)
    assert refused(GAME.check, michael(), {"increase": 1, "increase_die": 4}) == "die 4 to increase: the roll has dice 1 to 3"
    assert refused(GAME.check, michael(enhancement="28d12"), {"increase": 1}) == "Michael's check: 31 dice is more than the limit of 30"


def test_reroll_ones_starts_at_the_enhancement_pool() -> None:
    """"a common enhancement modifier will be to reroll ones": the first die rerolled is
    the first enhancement die (0-based index 2 after the stat and skill dice)."""
    assert GAME.check(michael(reroll_ones="true"), {})[1] == 2
    assert GAME.check(michael(reroll_ones="true"), {"reroll_ones": False})[1] is None
    assert GAME.check(michael(), {"reroll_ones": True})[1] == 2
    assert GAME.check(michael(), {"reroll_ones": None})[1] is None
    assert GAME.check(Combatant("Michael", {"stat": "d4", "skill": "d8", "enhancement": "d8"}, {}, {}), {})[1] is None
    # No enhancement dice, none to reroll.
    assert GAME.check(michael(enhancement="", reroll_ones="true"), {})[1] is None
    # A stat or skill die grown into [d8+d6] puts one more die before the pool.
    assert GAME.check(michael(stat="d12", reroll_ones="true"), {"increase": 1, "increase_die": 1})[1] == 3
    assert GAME.check(michael(skill="d12", reroll_ones="true"), {"increase": 1, "increase_die": 2})[1] == 3
    assert GAME.check(michael(stat="d12", reroll_ones="true"), {"increase": 0, "increase_die": 1})[1] == 2
    # The enhancement die grown adds dice after the start: the start stays.
    assert GAME.check(michael(enhancement="d12", reroll_ones="true"), {"increase": 1})[1] == 2
    assert GAME.check(michael(enhancement="d12", reroll_ones="true"), {"increase": 1, "increase_die": 3})[1] == 2


# ---------------------------------------------------------------- a check
def test_a_check_against_a_difficulty_with_its_stages() -> None:
    """Seed: a difficulty of 8 and a 16 is a "Four Stage Critical Success". d4 4 + d8 6
    + d8 6 = 16."""
    dice = Heard([4, 6, 6])
    result = resolve("check", michael(), faces=dice, difficulty=8)
    assert (result.pt, result.success, result.margin, result.dice, result.effects) == (10, True, 4, (4, 6, 6), ())
    assert result.summary == "d4:4 + d8:6 + d8:6 = 16 vs 8: success, 4-stage critical"
    assert result.details == {"total": 16, "difficulty": 8, "stages": 4, "sizes": [4, 8, 8], "margin_name": "critical stages"}
    assert dice.groups == [("Action Check", (4, 8, 8), "")]


def test_a_check_at_the_difficulty_succeeds_below_it_fails_and_one_over_is_no_stage() -> None:
    at = resolve("check", michael(), faces=TypedFaces([2, 3, 3]), difficulty=8)
    assert (at.success, at.margin, at.summary) == (True, 0, "d4:2 + d8:3 + d8:3 = 8 vs 8: success")
    over = resolve("check", michael(), faces=TypedFaces([2, 3, 4]), difficulty=8)
    assert (over.success, over.margin, over.summary) == (True, 0, "d4:2 + d8:3 + d8:4 = 9 vs 8: success")
    below = resolve("check", michael(flat="-1"), faces=TypedFaces([2, 3, 3]), difficulty=8)
    assert (below.success, below.margin, below.summary) == (False, 0, "d4:2 + d8:3 + d8:3 - 1 = 7 vs 8: failure")
    assert below.details["total"] == 7


def test_a_move_rolls_nothing_and_takes_its_time() -> None:
    result = resolve("move", michael(), faces=Heard([]))
    assert (result.pt, result.success, result.margin, result.dice, result.summary, result.details) == (5, None, None, (), "", {})


def test_rerolled_ones_are_their_own_group_and_the_new_face_stands() -> None:
    dice = Heard([3, 5, 1, 6])
    result = resolve("check", michael(reroll_ones="true"), faces=dice, difficulty=8)
    assert result.dice == (3, 5, 6) and result.details["total"] == 14
    assert dice.groups == [("Action Check", (4, 8, 8), ""), ("Action Check: reroll of a 1 (enhancement)", (8,), "")]


# ---------------------------------------------------------------- an attack and its blow
def test_an_attack_rolls_its_damage_with_a_die_per_stage_and_is_judged_when_it_lands() -> None:
    """16 against the Guard's defense 8: 4 stages, so the d8 damage rolls 1 + 4 dice,
    7 + 3 + 8 + 2 + 5 = 25."""
    dice = Heard([4, 6, 6, 7, 3, 8, 2, 5])
    result = resolve("attack", michael(), (guard(),), dice)
    assert (result.pt, result.success, result.margin, result.dice) == (10, None, 4, (4, 6, 6, 7, 3, 8, 2, 5))
    assert result.summary == ("d4:4 + d8:6 + d8:6 = 16 vs 8, as things stand: hit, 4-stage critical; "
                              "damage d8:7 + d8:3 + d8:8 + d8:2 + d8:5 = 25; judged when it lands")
    assert result.effects == (Blow("Guard", 0),)
    assert result.details == {
        "total": 16, "difficulty": 8, "stages": 4, "sizes": [4, 8, 8], "margin_name": "critical stages", "damage": 25,
        "hits": [{"target": "Guard", "total": 16, "first_stage": 2, "stage_size": 2, "base": 7, "extra": [3, 8, 2, 5], "die": 8}],
        "judge": BLOW_JUDGE}
    assert dice.groups == [("Action Check", (4, 8, 8), ""), ("damage (4 stages of criticals)", (8, 8, 8, 8, 8), "")]


def test_an_attacks_damage_dice_and_what_it_records() -> None:
    # d4 2 + d8 4 + d8 4 = 10 against 8, over by 2: one stage, "damage (1 stage of
    # criticals)"; the extra die is the weapon's largest, the d6 of d4+d6+2, and the flat
    # bonus is in the base the blow deals.
    dice = Heard([2, 4, 4, 1, 3, 6])
    result = resolve("attack", michael(), (guard(),), dice, damage="d4+d6+2")
    assert dice.groups[1] == ("damage (1 stage of criticals)", (4, 6, 6), "")
    assert result.details["hits"][0] == {"target": "Guard", "total": 10, "first_stage": 2, "stage_size": 2,
                                        "base": 1 + 3 + 2, "extra": [6], "die": 6}
    assert result.details["damage"] == 1 + 3 + 6 + 2
    # No stage: plain "damage"; a miss as things stand, said so.
    dice = Heard([1, 1, 1, 5])
    miss = resolve("attack", michael(), (guard(),), dice)
    assert dice.groups[1] == ("damage", (8,), "")
    assert miss.summary == "d4:1 + d8:1 + d8:1 = 3 vs 8, as things stand: miss; damage d8:5 = 5; judged when it lands"
    assert miss.margin == 0 and miss.details["hits"][0]["extra"] == [] and miss.details["hits"][0]["base"] == 5
    # A difficulty stated on the declare is kept for the landing.
    stated = resolve("attack", michael(), (guard(),), TypedFaces([1, 1, 1, 5]), difficulty=2)
    assert stated.details["hits"][0]["difficulty"] == 2 and stated.details["hits"][0]["total"] == 3


def test_an_attack_with_a_blow_for_each_target() -> None:
    result = resolve("attack", michael(), (guard(), who("Orc")), TypedFaces([1, 1, 1, 5]))
    assert result.effects == (Blow("Guard", 0), Blow("Orc", 1))
    assert [h["target"] for h in result.details["hits"]] == ["Guard", "Orc"]


def test_an_attack_needs_damage_dice_and_a_power_a_force_die() -> None:
    assert refused(resolve, "attack", michael(damage=""), (guard(),), TypedFaces([1, 1, 1])) == (
        "Michael has no damage dice (damage=d8 on the sheet or the declare)")
    dice = Heard([2, 5, 3, 4, 1])
    power = resolve("power", michael(force="d6"), (guard(),), dice)
    assert dice.groups[0] == ("Action Check", (4, 6, 8), "")
    assert power.summary.startswith("d4:2 + d6:5 + d8:3 = 10 vs 8, as things stand: hit, 1-stage critical")
    # An attack with no target is a check against the default difficulty.
    alone = resolve("attack", michael(), (), TypedFaces([4, 6, 6]))
    assert alone.success is True and alone.summary == "d4:4 + d8:6 + d8:6 = 16 vs 8: success, 4-stage critical"


def _landed(*lines: str) -> tuple[list[str], int]:
    s = session_for(OgsRuleset(), "add A stat=d6 skill=d8 enhancement=d4 damage=d6", "add B defense=12", *lines, "next")
    return [e.text for e in s.encounter.log], int(s.encounter.combatant("B").resources["hp"])


def test_a_blow_lands_against_the_defense_then_or_the_difficulty_stated() -> None:
    """d6 6 + d8 8 + d4 2 = 16 against defense 12: 2 stages, the d6 damage rolls 1 + 2
    dice 3 + 4 + 5. Raised to 17 before it lands: a miss, nothing dealt. Raised to 15:
    over by 1, a hit of no stage, the base 3. Lowered to 10: over by 6, 3 stages, one
    more than rolled for: the 12 lands and the one d6 is put to the GM."""
    declared = "declare A attack target=B faces=6,8,2,3,4,5"
    texts, hp = _landed(declared, "set B defense 17")
    assert "A's attack lands: 16 vs B's defense 17: miss" in texts and hp == 20
    texts, hp = _landed(declared, "set B defense 15")
    assert "A's attack lands: 16 vs B's defense 15: hit; 3 damage" in texts and hp == 17
    texts, hp = _landed(declared, "set B defense 10")
    assert "A's attack lands: 16 vs B's defense 10: hit, 3-stage critical; 12 damage" in texts and hp == 8
    assert ("A's attack: a 3-stage critical, 1 stage more than the 2 rolled for at declaration; each stage adds a "
            "damage die, so the GM decides: roll 1d6 (`roll 1d6`) and deal it (`damage B N resource=hp`), or let the 12 stand") in texts
    # Difficulty 10 stated: 3 stages rolled for (3 + 4 + 5 + 6 = 18); the defense is not read.
    texts, hp = _landed("declare A attack target=B difficulty=10 faces=6,8,2,3,4,5,6", "set B defense 30")
    assert "A's attack lands: 16 vs B's difficulty 10: hit, 3-stage critical; 18 damage" in texts and hp == 2


def test_a_blow_judged_directly_reads_its_record() -> None:
    """The judge reads the record's stage rule: first stage 3, a stage every 3 points:
    16 against 10 is over by 6, 2 stages; the base 4 and the first two extra dice."""
    s = session_for(OgsRuleset(), "add A", "add B defense=10")
    action = type("Action", (), {})()
    action.actor, action.template = "A", "attack"
    record = {"target": "B", "total": 16, "first_stage": 3, "stage_size": 3, "base": 4, "extra": [1, 2, 6], "die": 6}
    action.resolution = type("R", (), {"details": {"hits": [record]}})()
    effects = judge_blow(s.encounter, action, Blow("B", 0))
    assert effects == [Note("A's attack lands: 16 vs B's defense 10: hit, 2-stage critical; 7 damage"), Damage("B", 7, "hp")]
    record["total"] = 12  # over by 2: under the first stage of 3
    assert judge_blow(s.encounter, action, Blow("B", 0))[0] == Note("A's attack lands: 12 vs B's defense 10: hit; 4 damage")
    del record["first_stage"], record["stage_size"]
    record.update(first_stage=2, stage_size=2, total=20, extra=[], difficulty=10)
    effects = judge_blow(s.encounter, action, Blow("B", 0))
    assert effects[0] == Note("A's attack lands: 20 vs B's difficulty 10: hit, 5-stage critical; 4 damage")
    assert effects[2] == Note("A's attack: a 5-stage critical, 5 stages more than the 0 rolled for at declaration; each stage "
                              "adds a damage die, so the GM decides: roll 5d6 (`roll 5d6`) and deal it (`damage B N resource=hp`), "
                              "or let the 4 stand")
    assert judge_blow(s.encounter, action, Blow("B", 1)) == [Note("A's attack: no record of its blow on B")]


# ---------------------------------------------------------------- an Opposed Check
def test_michael_and_the_guard_contest_as_the_seed_tells_it() -> None:
    """Michael 1, 4, 6 = 11 against the guard's 3d6 1, 4, 6 = 11: the values tie, and
    "Michael has a d8 for his first size comparison and so the tie is broken in Michael's
    favor"."""
    dice = Heard([1, 4, 6, 1, 4, 6])
    result = resolve("contest", michael(), (guard(),), dice, difficulty=5, bonus=None, stat="d4")
    assert (result.pt, result.success, result.margin, result.dice) == (10, None, 0, (1, 4, 6, 1, 4, 6))
    assert result.summary == ("d4:1 + d8:4 + d8:6 = 11 vs Guard d6:1 + d6:4 + d6:6 = 11, as things stand: "
                              "Michael wins on die sizes; judged when it lands")
    assert result.effects == (Blow("Guard", 0),)
    assert dice.groups == [("Opposed Check", (4, 8, 8), ""), ("Opposed Check", (6, 6, 6), "Guard")]
    assert result.details == {
        "total": 11, "rival_total": 11, "winner": "Michael", "decided_by": "die sizes", "judge": CONTEST_JUDGE,
        "hits": [{"target": "Guard", "steps": SHIPPED_STEPS, "roll_off": [],
                  "sides": [{"name": "Michael", "params": {"stat": "d4"}, "sizes": [4, 8, 8], "faces": [1, 4, 6], "reroll_from": -1},
                            {"name": "Guard", "params": {}, "sizes": [6, 6, 6], "faces": [1, 4, 6], "reroll_from": -1}]}]}


def test_a_contest_the_rival_wins_and_one_past_the_d12s() -> None:
    # "The participant with the higher total wins": the guard's 12 to Michael's 11.
    lost = resolve("contest", michael(), (guard(),), TypedFaces([1, 4, 6, 2, 4, 6]))
    assert (lost.margin, lost.details["winner"], lost.details["decided_by"]) == (-1, "Guard", "total")
    assert "as things stand: Guard wins on total;" in lost.summary
    # 2d6 3 + 4 each side: values and sizes tie; the d12s 5 vs 5, then 9 vs 2.
    a, b = who("A", stat="d6", skill="d6", enhancement=""), who("B", stat="d6", skill="d6", enhancement="")
    dice = Heard([3, 4, 4, 3, 5, 5, 9, 2])
    off = resolve("contest", a, (b,), dice)
    assert off.summary == ("d6:3 + d6:4 = 7 vs B d6:4 + d6:3 = 7, as things stand: A wins on d12 roll-off "
                           "(d12 5 vs 5, d12 9 vs 2); judged when it lands")
    assert off.dice == (3, 4, 4, 3, 5, 5, 9, 2) and off.details["hits"][0]["roll_off"] == [[5, 5], [9, 2]]
    assert dice.groups[2:] == [("d12 roll-off", (12,), ""), ("d12 roll-off", (12,), "B")] * 2


def test_a_contest_records_the_rerolls_start() -> None:
    result = resolve("contest", michael(reroll_ones="true"), (guard(),), TypedFaces([1, 4, 1, 7, 1, 4, 6]))
    sides = result.details["hits"][0]["sides"]
    assert (sides[0]["faces"], sides[0]["reroll_from"], sides[1]["reroll_from"]) == ([1, 4, 7], 2, -1)


def test_a_contest_needs_a_target() -> None:
    assert refused(resolve, "contest", michael(), (), TypedFaces([1, 1, 1])) == "contest needs a target (target=NAME)"


def test_a_contest_of_three_sides_goes_to_the_highest_total() -> None:
    """Three sides: A 3 + 4 = 7, B 2 + 2 = 4, C 5 + 6 = 11: C wins on total; A's margin
    is its total less the best of the others, 7 - 11."""
    a, b, c = (who(n, stat="d6", skill="d6", enhancement="") for n in "ABC")
    dice = Heard([3, 4, 2, 2, 5, 6])
    result = resolve("contest", a, (b, c), dice, difficulty=9, bonus=1)
    assert (result.success, result.margin, result.dice, result.effects) == (None, 8 - 11, (3, 4, 2, 2, 5, 6), (Blow("B", 0),))
    assert result.summary == "A d6:3 + d6:4 + 1 = 8; B d6:2 + d6:2 = 4; C d6:5 + d6:6 = 11, as things stand: C wins on total; judged when it lands"
    assert dice.groups == [("Opposed Check", (6, 6), ""), ("Opposed Check", (6, 6), "B"), ("Opposed Check", (6, 6), "C")]
    assert result.details == {
        "total": 8, "totals": {"A": 8, "B": 4, "C": 11}, "winner": "C", "decided_by": "total", "judge": CONTEST_JUDGE,
        "hits": [{"target": "B", "steps": SHIPPED_STEPS, "roll_off": [],
                  "sides": [{"name": "A", "params": {"bonus": 1}, "sizes": [6, 6], "faces": [3, 4], "reroll_from": -1},
                            {"name": "B", "params": {}, "sizes": [6, 6], "faces": [2, 2], "reroll_from": -1},
                            {"name": "C", "params": {}, "sizes": [6, 6], "faces": [5, 6], "reroll_from": -1}]}]}
    # All three tie on 7 and on values and sizes: one d12 each, A 4, B 9, C 9, then B 3, C 8.
    dice = Heard([3, 4, 4, 3, 3, 4, 4, 9, 9, 3, 8])
    tied = resolve("contest", a, (b, c), dice)
    assert tied.summary.endswith(", as things stand: C wins on d12 roll-off (4, 9, 9; 3, 8); judged when it lands")
    assert tied.details["hits"][0]["roll_off"] == [[4, 9, 9], [3, 8]] and tied.dice[6:] == (4, 9, 9, 3, 8)
    assert dice.groups[3:] == [("d12 roll-off", (12,), n) for n in ("A", "B", "C", "B", "C")]


def _contest(*lines: str, extra: str = "") -> list[str]:
    s = session_for(OgsRuleset(), "add A stat=d6 skill=d6 enhancement=", "add B stat=d6 skill=d6 enhancement=",
                    "add C stat=d6 skill=d6 enhancement=", *lines, "next")
    return [e.text for e in s.encounter.log]


def test_a_contest_lands_with_the_d12s_rolled_at_declaration() -> None:
    texts = _contest("declare A contest target=B faces=3,4,4,3,5,5,9,2")
    assert "A's contest lands: A d6:3 + d6:4 = 7; B d6:4 + d6:3 = 7: A wins on d12 roll-off (5, 5; 9, 2)" in texts
    texts = _contest("declare A contest target=B faces=3,4,2,4")
    assert "A's contest lands: A d6:3 + d6:4 = 7; B d6:2 + d6:4 = 6: A wins on total" in texts
    texts = _contest("set A flat 1", "declare A contest target=B faces=3,3,3,3", "set A flat 0")
    assert ("A's contest lands: A d6:3 + d6:3 = 6; B d6:3 + d6:3 = 6: still tied after the die values and sizes, past "
            "the d12s rolled at declaration: the GM rolls opposed d12s") in texts


def test_a_contest_whose_side_changed_or_left_is_put_to_the_gm() -> None:
    texts = _contest("declare A contest target=B faces=3,4,2,4", "set B skill d8")
    assert ("A's contest lands, but B's check is d6+d8 now, not the d6+d6 rolled for: the GM settles it again "
            "(`roll ogs DICE --vs DICE`)") in texts
    # The same dice, but ones now rerolled: not the check rolled for either.
    texts = _contest("set B enhancement d4", "declare A contest target=B faces=3,4,2,4,3", "set B reroll_ones true")
    assert any(t.startswith("A's contest lands, but B's check is d6+d6+d4 now, not the d6+d6+d4 rolled for") for t in texts)
    texts = _contest("declare A contest target=B,C faces=3,4,2,4,1,1", "remove C")
    assert "A's contest lands: C is no longer in the fight: no contest" in texts
    texts = _contest("declare A contest target=B,C faces=3,4,2,4,1,1")
    assert "A's contest lands: A d6:3 + d6:4 = 7; B d6:2 + d6:4 = 6; C d6:1 + d6:1 = 2: A wins on total" in texts


def test_a_contest_with_ones_rerolled_lands_when_its_dice_are_unchanged() -> None:
    """B rerolls ones on its d4 (the sheet's modifier): 2 + 4 + a 1 rerolled to 3 = 9
    against A's 3 + 4 = 7. Unchanged when it lands, B wins on total."""
    texts = _contest("set B enhancement d4", "set B reroll_ones true", "declare A contest target=B faces=3,4,2,4,1,3")
    assert "A's contest lands: A d6:3 + d6:4 = 7; B d6:2 + d6:4 + d4:3 = 9: B wins on total" in texts


def _acting(details: dict[str, Any]) -> Any:
    action = type("Action", (), {})()
    action.actor, action.template = "A", "contest"
    action.resolution = type("Resolution", (), {"details": details})()
    return action


def test_a_contest_record_of_the_fewest_keys_lands_with_the_shipped_dice_and_no_rerolls() -> None:
    """A record with only the sides' names, sizes and faces (no steps, params, rerolls or
    d12s kept) is read with the shipped dice steps, the sheets' own dice and no ones
    rerolled. Without any record, the blow is said to have none."""
    s = session_for(OgsRuleset(), "add A stat=d6 skill=d12 enhancement=", "add B stat=d6 skill=d6 enhancement=")
    record = {"sides": [{"name": "A", "sizes": [6, 12], "faces": [3, 4]}, {"name": "B", "sizes": [6, 6], "faces": [4, 3]}]}
    assert judge_contest(s.encounter, _acting({"hits": [record]}), Blow("B", 0)) == [
        Note("A's contest lands: A d6:3 + d12:4 = 7; B d6:4 + d6:3 = 7: A wins on die sizes")]
    record["sides"][1]["faces"] = [4, 4]
    record["roll_off"] = [[9, 2]]
    record["sides"][0]["reroll_from"] = 2
    assert judge_contest(s.encounter, _acting({"hits": [record]}), Blow("B", 0))[0].text.startswith(
        "A's contest lands, but A's check is d6+d12 now, not the d6+d12 rolled for")
    assert judge_contest(s.encounter, _acting({}), Blow("B", 0)) == [Note("A's contest: no record of its blow on B")]
    assert judge_blow(s.encounter, _acting({}), Blow("B", 0)) == [Note("A's contest: no record of its blow on B")]


def test_a_check_reads_a_sheet_missing_its_dice_as_none() -> None:
    """A combatant whose stats lack a die (a save written by hand) has none: refused by name."""
    bare = Combatant("Michael", {}, {}, {})
    assert refused(GAME.check, bare, {}) == "Michael has no stat die"
    assert refused(GAME.check, Combatant("Michael", {"stat": "d4"}, {}, {}), {}) == (
        "Michael has no skill die (set skill=d8 on the sheet)")
    assert refused(GAME.check, Combatant("Michael", {"stat": "d4", "skill": "d8"}, {}, {}), {}, "force") == (
        "Michael has no force die (set force=d8 on the sheet)")
    assert GAME.check(Combatant("Michael", {"stat": "d4", "skill": "d8"}, {}, {}), {})[0].sides == (4, 8)
    # A bad die names the part it is in.
    assert refused(GAME.check, Combatant("Michael", {"stat": "d7", "skill": "d8"}, {}, {}), {}).startswith("Michael.stat 'd7': ")
    assert refused(GAME.check, Combatant("Michael", {"stat": "d4", "skill": "d7"}, {}, {}), {}).startswith("Michael.skill 'd7': ")


def test_a_contest_landing_reads_the_dice_steps_it_was_rolled_with() -> None:
    """A house overflow of [d10+d4]: A's d12 increased once is [d10+d4]; the record's
    steps rebuild the same check when it lands."""
    game = OgsRuleset({"dice": {"overflow": [10, 4], "overflow_target": 1}})
    s = session_for(game, "add A stat=d6 skill=d6 enhancement=d12", "add B stat=d6 skill=d6 enhancement=",
                    "declare A contest target=B increase=1 faces=1,1,5,2,6,6", "next")
    texts = [e.text for e in s.encounter.log]
    assert "A's contest lands: A d6:1 + d6:1 + d10:5 + d4:2 = 9; B d6:6 + d6:6 = 12: B wins on total" in texts
    action = s.encounter.actions[-1]
    assert judge_contest(s.encounter, action, Blow("B", 3)) == [Note("A's contest: no record of its blow on B")]


# ---------------------------------------------------------------- an Open Roll
def test_an_open_roll_totals_its_dice_and_deals_it_to_each_target() -> None:
    dice = Heard([4, 5])
    result = resolve("open", michael(), (guard(), who("Orc")), dice, dice="2d6", bonus=3)
    assert (result.pt, result.success, result.margin, result.dice) == (5, None, 12, (4, 5))
    assert result.summary == "open roll d6+d6+3: d6:4 + d6:5 + 3 = 12"
    assert result.effects == (Damage("Guard", 12, "hp"), Damage("Orc", 12, "hp"))
    assert result.details == {"total": 12, "sizes": [6, 6]}
    assert dice.groups == [("Open Roll", (6, 6), "")]


def test_an_open_roll_increases_every_die_and_takes_the_weapons_dice_unless_given() -> None:
    # The seed's Fireball: "10d6 ... affected by a 2-Stage Die Increase ... will instead deal 10d10".
    fireball = resolve("open", michael(), (), TypedFaces([1] * 10), dice="10d6", increase=2)
    assert fireball.details["sizes"] == [10] * 10 and fireball.effects == ()
    assert (fireball.margin, fireball.details["total"]) == (10, 10)  # ten 1s, no bonus
    grown = resolve("open", michael(damage="d4+d12"), (), TypedFaces([1, 2, 3]), increase=1, bonus=1)
    assert grown.summary == "open roll d6+[d8+d6]+1: d6:1 + d8:2 + d6:3 + 1 = 7"
    assert refused(resolve, "open", michael(damage=""), (), TypedFaces([])) == "open needs dice (dice=10d6)"
    assert refused(resolve, "open", Combatant("Michael", {}, {}, {}), (), TypedFaces([])) == "open needs dice (dice=10d6)"
    assert refused(resolve, "open", michael(), (), TypedFaces([]), dice="d7").startswith("dice 'd7': ")
    assert refused(resolve, "open", michael(), (), TypedFaces([]), dice="30d12", increase=1) == (
        "Michael's open roll: 60 dice is more than the limit of 30")


def test_an_open_roll_adds_the_flat_bonus_stated_for_it_not_the_sheets_for_checks() -> None:
    """Seed: "a character with an applicable flat bonus rolls an Action Check or an Open
    Roll the flat bonus is added directly to the total". The sheet's `flat` is the one
    that applies to checks (the adapter's docstring); what applies to an Open Roll is
    stated with it: d8 showing 5 is 5 with flat 3 on the sheet, 8 with bonus=3."""
    blessed = michael(flat="3")
    assert resolve("open", blessed, (), TypedFaces([5])).margin == 5
    assert resolve("open", blessed, (), TypedFaces([5]), bonus=3).margin == 8


# ---------------------------------------------------------------- chances
def _request(action: str, actor: Combatant, targets: tuple[Combatant, ...] = (), **params: Any) -> ActionRequest:
    return ActionRequest(GAME.catalogue()[action], actor, targets, params)


def test_the_chance_of_a_check_an_attack_and_a_power() -> None:
    """d4 + d4 against 8 needs 4 and 4: 1/16; with flat +1, 7 or more: 3/16. A power's
    force d6 with the d4: 10 needs 4 + 6, 1/24."""
    two = who("A", stat="d4", skill="d4", enhancement="", force="d6")
    assert GAME.chance_of(_request("check", two, difficulty=8)) == Fraction(1, 16)
    assert GAME.chance_of(_request("check", who("A", stat="d4", skill="d4", enhancement="", flat="1"), difficulty=8)) == Fraction(3, 16)
    assert GAME.chance_of(_request("attack", two, (guard(defense="7"),))) == Fraction(3, 16)
    assert GAME.chance_of(_request("power", two, (guard(defense="10"),))) == Fraction(1, 24)
    # Rerolled ones on a d4 enhancement die: 1 with 1/16, 2, 3, 4 with 5/16 each; d4 + d4
    # + that die against 12 needs 4, 4, 4: 1/16 x 5/16.
    rerolls = who("A", stat="d4", skill="d4", enhancement="d4", reroll_ones="true")
    assert GAME.chance_of(_request("check", rerolls, difficulty=12)) == Fraction(5, 256)


def test_the_chance_of_a_contest_is_for_two_sides_and_none_for_a_move_or_an_open_roll() -> None:
    strong = who("A", stat="d4", skill="d4", enhancement="", flat="10")
    weak = who("B", stat="d4", skill="d4", enhancement="")
    assert GAME.chance_of(_request("contest", strong, (weak,))) == 1
    assert GAME.chance_of(_request("contest", weak, (strong,))) == 0
    assert GAME.chance_of(_request("contest", strong, (weak, weak))) is None
    assert GAME.chance_of(_request("move", strong)) is None
    assert GAME.chance_of(_request("open", strong, dice="d6")) is None
    # The same dice on both sides, one side rerolling ones on its enhancement die: that
    # side's die shows more on average (a 1 only with 1/16), so it wins more than half.
    a = who("A", stat="d4", skill="d4", enhancement="d4")
    b = who("B", stat="d4", skill="d4", enhancement="d4", reroll_ones="true")
    assert GAME.chance_of(_request("contest", a, (b,))) < Fraction(1, 2) < GAME.chance_of(_request("contest", b, (a,)))
    assert "12" in refused(GAME.chance_of, _request("contest", who("A", stat="d4", skill="d4", enhancement="6d4"),
                                                    (who("B", stat="d4", skill="d4", enhancement="6d4"),)))


# ---------------------------------------------------------------- tracker roll and odds
def test_roll_with_a_difficulty() -> None:
    dice = Heard([4, 6, 6])
    result = GAME.roll("d4+d8+d8", dice, difficulty=8)
    assert (result.ruleset, result.dice, result.success, result.margin) == ("ogs", [4, 6, 6], True, 4)
    assert result.text == "d4:4 + d8:6 + d8:6 = 16 vs 8: success, 4-stage critical"
    assert result.fields == {"total": 16, "difficulty": 8, "stages": 4, "winner": None, "sizes": [4, 8, 8], "spec": "d4+d8+d8"}
    failed = GAME.roll("d4+d8+d8", TypedFaces([1, 2, 3]), difficulty=8)
    assert (failed.success, failed.margin, failed.text) == (False, 0, "d4:1 + d8:2 + d8:3 = 6 vs 8: failure")
    assert GAME.roll("d4+d8+d8", TypedFaces([2, 3, 3]), difficulty=8).success is True
    assert GAME.roll("d4+d8+d8", TypedFaces([2, 3, 3]), difficulty=0).margin == 4


def test_roll_opposed() -> None:
    own, rival = Heard([1, 4, 6]), Heard([1, 4, 6])
    result = GAME.roll("d4+d8+d8", own, vs="3d6", vs_dice=rival)
    assert (result.dice, result.success, result.margin) == ([1, 4, 6], None, 0)
    assert result.text == "d4:1 + d8:4 + d8:6 = 11 vs d6:1 + d6:4 + d6:6 = 11: self wins on die sizes"
    assert result.fields == {"total": 11, "difficulty": None, "stages": None, "winner": "self", "sizes": [4, 8, 8],
                             "spec": "d4+d8+d8", "vs_dice": [1, 4, 6], "vs_sizes": [6, 6, 6], "vs_total": 11,
                             "decided_by": "die sizes", "roll_off": []}
    off = GAME.roll("2d6", TypedFaces([3, 4, 5, 9]), vs="2d6", vs_dice=TypedFaces([4, 3, 5, 2]))
    assert off.fields["roll_off"] == [[5, 5], [9, 2]] and off.text.endswith(": self wins on d12 roll-off (5 vs 5, 9 vs 2)")
    lost = GAME.roll("d6", TypedFaces([2]), vs="d6", vs_dice=TypedFaces([5]))
    assert (lost.margin, lost.fields["winner"]) == (-3, "rival")
    assert refused(GAME.roll, "d6", TypedFaces([2]), vs="d6") == "an opposed roll needs the other side's dice"


def test_roll_open() -> None:
    result = GAME.roll("2d6+2", Heard([5, 6]))
    assert (result.dice, result.success, result.margin) == ([5, 6], None, None)
    assert result.ruleset == "ogs" and result.text == "open roll d6+d6+2: d6:5 + d6:6 + 2 = 13"
    assert result.fields == {"total": 13, "difficulty": None, "stages": None, "winner": None, "sizes": [6, 6], "spec": "d6+d6+2"}
    # Every die of an Open Roll is increased; `open=true` is one as well.
    assert GAME.roll("d4+d12", TypedFaces([1, 1, 1]), options={"increase": "1"}).fields["spec"] == "d6+[d8+d6]"
    assert GAME.roll("d4+d12", TypedFaces([1, 1, 1]), options={"increase": "1", "open": "true"}).fields["sizes"] == [6, 8, 6]


def test_roll_options_aim_the_increase_and_reroll_ones() -> None:
    # On a check the third die by default, `increase_die` another; `vs_increase` the other side's.
    assert GAME.roll("d4+d8+d8", TypedFaces([1, 1, 1]), difficulty=5, options={"increase": "1"}).fields["sizes"] == [4, 8, 10]
    assert GAME.roll("d4+d8+d8", TypedFaces([1, 1, 1]), difficulty=5,
                     options={"increase": "1", "increase_die": "1"}).fields["sizes"] == [6, 8, 8]
    vs = GAME.roll("d4+d8+d8", TypedFaces([1, 1, 1]), vs="d4+d4+d4", vs_dice=TypedFaces([1, 1, 1]), options={"vs_increase": "2"})
    assert vs.fields["vs_sizes"] == [4, 4, 8] and vs.fields["sizes"] == [4, 8, 8]
    dice = Heard([3, 4, 1, 4])
    rerolled = GAME.roll("d6+d6+d4", dice, difficulty=11, options={"reroll_ones": "true"})
    assert rerolled.dice == [3, 4, 4] and rerolled.success is True
    assert dice.groups[1] == ("check: reroll of a 1 (enhancement)", (4,), "")
    theirs = Heard([1, 5, 1, 2])
    vs = GAME.roll("2d6", TypedFaces([6, 6]), vs="d4+d6+d4", vs_dice=theirs, options={"vs_reroll_ones": "true"})
    assert vs.fields["vs_dice"] == [1, 5, 2]
    assert GAME.roll("2d6", TypedFaces([6, 6]), vs="d4+d6+d4", vs_dice=TypedFaces([1, 5, 1])).fields["vs_dice"] == [1, 5, 1]


def test_roll_refusals() -> None:
    both = ("an Opposed Check has no --difficulty: the other side's total is the mark (give --vs or --difficulty, not both)")
    assert refused(GAME.roll, "d6", TypedFaces([1]), vs="d6", vs_dice=TypedFaces([1]), difficulty=3) == both
    assert refused(GAME.roll, "d6", TypedFaces([1]), difficulty=-1) == (
        "--difficulty: OGS has no negative difficulties; expected 0 or more, got -1")
    assert refused(GAME.roll, "d6", TypedFaces([1]), difficulty=3, options={"open": "true"}) == "an Open Roll has no --difficulty or --vs"
    assert refused(GAME.roll, "d6", TypedFaces([1]), vs="d6", vs_dice=TypedFaces([1]), options={"open": "yes"}) == (
        "an Open Roll has no --difficulty or --vs")
    assert refused(GAME.roll, "d6+d6+d6", TypedFaces([1, 1, 1]), options={"reroll_ones": "true"}) == (
        "--set reroll_ones: an Open Roll has no enhancement dice to reroll (give --difficulty or --vs)")
    assert refused(GAME.roll, "d6+d6", TypedFaces([1, 1]), difficulty=3, options={"reroll_ones": "true"}) == (
        "ogs dice d6+d6: reroll_ones needs enhancement dice (a third die after the stat and skill dice)")
    assert refused(GAME.roll, "d6+d6+d6", TypedFaces([1, 1, 1]), vs="d6", vs_dice=TypedFaces([1]), options={"vs_reroll_ones": "true"}) == (
        "--vs d6: reroll_ones needs enhancement dice (a third die after the stat and skill dice)")
    assert refused(GAME.roll, "5", TypedFaces([]), difficulty=3) == "ogs dice '5': no dice to roll"
    assert refused(GAME.roll, "d6", TypedFaces([1]), vs="+2", vs_dice=TypedFaces([])) == "--vs '+2': no dice to roll"
    assert refused(GAME.roll, "d7", TypedFaces([1]), difficulty=3).startswith("ogs dice 'd7': ")
    assert refused(GAME.roll, "d6", TypedFaces([1]), difficulty=3, options={"increase": "1", "increase_die": "2"}) == (
        "die 2 to increase: the roll has dice 1 to 1")
    assert refused(GAME.roll, "d6", TypedFaces([1]), difficulty=3, options={"inc": "1"}).startswith("--set")
    assert refused(GAME.roll, "30d12", TypedFaces([]), vs="d6", vs_dice=TypedFaces([]), options={"increase": "1"}) == (
        "ogs dice '30d12' with increase=1: 31 dice is more than the limit of 30")
    assert refused(GAME.roll, "d6", TypedFaces([1]), vs="30d12", vs_dice=TypedFaces([]), options={"vs_increase": "1"}) == (
        "--vs '30d12' with increase=1: 31 dice is more than the limit of 30")


def test_odds() -> None:
    """d4 + d4 against 8: 1/16. d4 + d4 + 10 against d4 + d4: always. Rerolled ones on
    the d4 + d4 + d4 against 12: 1/16 x 1/16 x 5/16."""
    assert GAME.chance("d4+d4", difficulty=8) == Fraction(1, 16)
    assert GAME.chance("d4+d4+10", vs="d4+d4") == 1 and GAME.chance("d4+d4", vs="d4+d4+10") == 0
    assert GAME.chance("d4+d4+d4", difficulty=12, options={"reroll_ones": "true"}) == Fraction(5, 256)
    # d4 + d4 + d4 reroll with an increase: d4 + d4 + d6 against 14 needs 4, 4, 6: 1/16 x 1/6.
    assert GAME.chance("d4+d4+d4", difficulty=14, options={"increase": "1"}) == Fraction(1, 96)
    assert GAME.chance("d4+d4+d4", difficulty=14, options={"increase": "1", "increase_die": "1"}) == Fraction(1, 96)
    # 16 against d4 + d4 + d4 +1 that rerolls ones... the other side always loses below 14.
    assert GAME.chance("d4+d4+d4+14", vs="d4+d4+d4", options={"vs_increase": "1", "vs_reroll_ones": "true"}) == 1
    assert GAME.chance("d4+d4+d4", vs="d4+d4+d4+10", options={"vs_increase": "1"}) == 0
    assert GAME.chance("d4+d4+d4", vs="d4+d4+d4", options={"reroll_ones": "true"}) > Fraction(1, 2)
    assert GAME.chance("d4+d4+d4", vs="d4+d4+d4", options={"vs_reroll_ones": "true"}) < Fraction(1, 2)


def test_odds_refusals() -> None:
    assert refused(GAME.chance, "d6", vs="d6", difficulty=3) == (
        "an Opposed Check has no --difficulty: the other side's total is the mark (give --vs or --difficulty, not both)")
    assert refused(GAME.chance, "d6") == "ogs odds needs --difficulty N or --vs SPEC"
    assert refused(GAME.chance, "d6", difficulty=-2) == "--difficulty: OGS has no negative difficulties; expected 0 or more, got -2"
    assert refused(GAME.chance, "d6+d6", difficulty=3, options={"reroll_ones": "true"}).startswith("ogs dice d6+d6: reroll_ones")
    assert refused(GAME.chance, "d6", vs="d6+d6", options={"vs_reroll_ones": "true"}).startswith("--vs d6+d6: reroll_ones")
    assert refused(GAME.chance, "7d12", vs="6d12").startswith("opposed odds: 7 + 6 dice")
    assert refused(GAME.chance, "d6", difficulty=3, options={"increase": "11"}).startswith("--set.increase")


# ---------------------------------------------------------------- what a hand-written save or table may leave out
@pytest.mark.parametrize("table", ["time", "check"])
def test_a_table_given_as_a_number_is_refused_by_name_wherever_it_is_read(table: str) -> None:
    game = OgsRuleset({table: 5})
    words = f"ogs tables [{table}]: expected a table of rows ([{table}] with key = value lines), got 5"
    assert refused(game.check_tables) == words
    if table == "time":
        assert refused(game.catalogue) == words
    else:
        # A check with no difficulty reads [check] for the default one.
        request = ActionRequest(GAME.catalogue()["check"], michael(), (), {})
        assert refused(game.resolve, request, TypedFaces([1, 1, 1])) == words


def test_an_attack_reads_a_target_without_a_defense_as_the_seeds_difficulty_8() -> None:
    """The docstring: the target's `defense` "(default 8, the seed's example difficulty)"."""
    bare = Combatant("Orc", {}, {"hp": 5}, {"hp": 5})
    assert resolve("attack", michael(), (bare,), TypedFaces([2, 3, 3, 1])).details["difficulty"] == 8
    action = _acting({"hits": [{"target": "Orc", "total": 8, "first_stage": 2, "stage_size": 2, "base": 1, "extra": [], "die": 8}]})
    action.template = "attack"
    encounter = type("Encounter", (), {"combatants": {"Orc": bare}})()
    assert judge_blow(encounter, action, Blow("Orc", 0))[0] == Note("A's attack lands: 8 vs Orc's defense 8: hit; 1 damage")


def test_a_blow_at_exactly_the_defense_hits() -> None:
    # Seed: "If the total is equal to or greater than the difficulty the action succeeds".
    texts, hp = _landed("declare A attack target=B faces=6,8,2,3,4,5", "set B defense 16")
    assert "A's attack lands: 16 vs B's defense 16: hit; 3 damage" in texts and hp == 17


def test_an_attack_reads_its_damage_dice_by_name() -> None:
    assert refused(resolve, "attack", Combatant("Michael", {"stat": "d4", "skill": "d8"}, {}, {}), (guard(),), TypedFaces([1, 1])) == (
        "Michael has no damage dice (damage=d8 on the sheet or the declare)")
    bad = Combatant("Michael", {"stat": "d4", "skill": "d8", "damage": "d7"}, {}, {})
    assert refused(resolve, "attack", bad, (guard(),), TypedFaces([1, 1])).startswith("Michael.damage 'd7': ")


def test_a_power_without_a_force_die_is_refused_by_name_and_check_spec_takes_the_second_die() -> None:
    assert refused(resolve, "power", michael(), (guard(),), TypedFaces([1, 1, 1])) == (
        "Michael has no force die (set force=d8 on the sheet)")
    assert GAME.check_spec(michael(force="d10"), {}, "force").sides == (4, 10, 8)


def test_the_other_sides_of_a_contest_reroll_their_ones_as_their_sheets_say() -> None:
    """The Guard rerolls ones on its enhancement die: 1, 4, then 1 rerolled to 5 = 10."""
    dice = Heard([1, 4, 6, 1, 4, 1, 5])
    result = resolve("contest", michael(), (guard(reroll_ones="true"),), dice)
    assert result.details["rival_total"] == 10 and result.details["hits"][0]["sides"][1]["reroll_from"] == 2
    assert dice.groups[-1] == ("Opposed Check: reroll of a 1 (enhancement)", (6,), "Guard")
    dice = Heard([1, 4, 6, 1, 4, 1, 5, 2, 2])
    many = resolve("contest", michael(), (guard(reroll_ones="true"), who("Orc", stat="d4", skill="d4", enhancement="")), dice)
    assert many.details["totals"] == {"Michael": 11, "Guard": 10, "Orc": 4}
    assert many.details["hits"][0]["sides"][1]["reroll_from"] == 2


def test_a_contests_margin_is_against_the_best_of_the_other_sides() -> None:
    """A 1 + 2 = 3, B 5 + 5 = 10, C 2 + 3 = 5: B wins; A's margin 3 - 10."""
    a, b, c = (who(n, stat="d6", skill="d6", enhancement="") for n in "ABC")
    result = resolve("contest", a, (b, c), TypedFaces([1, 2, 5, 5, 2, 3]))
    assert (result.margin, result.details["winner"]) == (3 - 10, "B")


def test_the_dice_given_on_the_command_line_are_named_in_refusals() -> None:
    # 31d12 is past the 30 dice one roll may have, with no increase named.
    assert refused(GAME.roll, "31d12", TypedFaces([]), difficulty=3) == "ogs dice '31d12': 31 dice is more than the limit of 30"
    assert refused(GAME.chance, "31d12", difficulty=3) == "ogs dice '31d12': 31 dice is more than the limit of 30"
    assert refused(GAME.roll, "d6", TypedFaces([1]), vs="d7", vs_dice=TypedFaces([])).startswith("--vs 'd7': ")
    assert refused(GAME.chance, "d6", vs="d7").startswith("--vs 'd7': ")
    assert refused(GAME.chance, "d6", vs="31d12") == "--vs '31d12': 31 dice is more than the limit of 30"


def test_odds_aim_the_increase_at_the_die_named() -> None:
    """d4 + d8 + d8 against 21 with one stage: on the third die (d4 + d8 + d10) 22 is
    4 + 8 + 10 and 21 three ways, 4/320 = 1/80; on the first (d6 + d8 + d8) 22 once and
    21 three ways, 4/384 = 1/96."""
    assert GAME.chance("d4+d8+d8", difficulty=21, options={"increase": "1"}) == Fraction(1, 80)
    assert GAME.chance("d4+d8+d8", difficulty=21, options={"increase": "1", "increase_die": "1"}) == Fraction(1, 96)


def test_the_chance_of_a_contest_past_the_sorted_outcomes_limit_names_the_side() -> None:
    """7d12 has C(18, 7) = 31,824 sorted outcomes, past the limit of 15,000."""
    big = who("Michael", stat="d12", skill="d12", enhancement="5d12")
    small = who("Guard", stat="d4", skill="d4", enhancement="3d4")
    assert refused(GAME.chance_of, _request("contest", big, (small,))) == (
        "opposed odds: Michael 7d12 has up to 31,824 sorted outcomes to compare, past the limit of 15,000 (6d12 has 12,376)")
    assert refused(GAME.chance_of, _request("contest", small, (big,))) == (
        "opposed odds: Michael 7d12 has up to 31,824 sorted outcomes to compare, past the limit of 15,000 (6d12 has 12,376)")
    assert refused(GAME.chance_of, _request("power", small, (big,))) == "Guard has no force die (set force=d8 on the sheet)"
