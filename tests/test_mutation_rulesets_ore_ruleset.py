"""ORE's adapter (`rulesets/ore/ruleset.py`), tested directly for the mutation run.

Rules from the CyberORE seed (`seeds/003_...`), quoted where a number comes from it;
combat figures from the shipped `tables.toml` (hit locations by height: 1 left leg,
2 right leg, 3-4 left arm, 5-6 right arm, 7-9 torso, 10 head; wound boxes limbs 5,
torso 10, head 4; Killing from a limb overflows to the torso) and from the module's
docstring (the decisions where the sources are silent). Every number below is worked
by hand from those.
"""

from __future__ import annotations

from fractions import Fraction
from types import SimpleNamespace
from typing import Any

import pytest

from rulesets.base import JUDGE_KEY, ActionRequest
from rulesets.dice import Recorder, TypedFaces
from rulesets.ore import OreRuleset, odds
from rulesets.ore.pool import Outcome, Pool
from rulesets.ore.ruleset import (WOUND_JUDGE, _blow_key, _manual_gobble, _set_text, _stated_pool, gobbled_at_landing,
                                  judge_wound, worse_failure, wound_effects)
from tracker.engine.effects import Blow, Damage, Note
from tracker.engine.errors import TrackerError
from tracker.engine.model import ACTIVE, COMPLETED, IN_PROGRESS, INTERRUPTED, PASSIVE, Combatant
from tests.helpers import session_for

BOXES = {"left_leg": 5, "right_leg": 5, "left_arm": 5, "right_arm": 5, "torso": 10, "head": 4}
OVERFLOW = {"left_leg": "torso", "right_leg": "torso", "left_arm": "torso", "right_arm": "torso", "torso": "", "head": ""}


def fighter(name: str = "Bo", **resources: int) -> Combatant:
    """A combatant with Reign's boxes, all empty unless `resources` say otherwise."""
    full = {k: v for loc, b in BOXES.items() for k, v in ((loc, b), (f"{loc}_k", b))}
    maxima = dict(full)
    full.update(resources)
    return Combatant(name, {}, full, maxima)


def log_texts(s: Any) -> list[str]:
    return [e.text for e in s.encounter.log if getattr(e, "text", None)]


def last(s: Any) -> Any:
    return s.encounter.actions[-1].resolution


# ---------------------------------------------------------------- wound boxes


def test_killing_is_marked_first_and_shock_fills_empty_boxes() -> None:
    """3 shock and 2 killing on an empty torso of 10: 5 boxes left empty, 8 free of Killing."""
    bo = fighter()
    assert wound_effects(bo, "torso", 3, 2, BOXES, OVERFLOW) == [Damage("Bo", 5, "torso"), Damage("Bo", 2, "torso_k")]
    assert wound_effects(bo, "torso", 3, 0, BOXES, OVERFLOW) == [Damage("Bo", 3, "torso")]


def test_a_head_full_of_killing_is_dead_and_full_of_shock_out() -> None:
    bo = fighter()
    assert wound_effects(bo, "head", 0, 4, BOXES, OVERFLOW) == [
        Damage("Bo", 4, "head"), Damage("Bo", 4, "head_k"), Note("Bo's head is full of Killing: Bo is dead")]
    # 5 shock on 4 boxes: the one that does not fit turns a Shock box into Killing.
    assert wound_effects(bo, "head", 5, 0, BOXES, OVERFLOW) == [
        Damage("Bo", 4, "head"), Damage("Bo", 1, "head_k"), Note("Bo's head is full: Bo is out")]
    assert wound_effects(bo, "torso", 10, 0, BOXES, OVERFLOW) == [Damage("Bo", 10, "torso"), Note("Bo's torso is full: Bo is out")]


def test_a_full_limb_puts_no_one_down_and_a_full_head_is_not_said_twice() -> None:
    bo = fighter()
    assert wound_effects(bo, "right_leg", 5, 0, BOXES, OVERFLOW) == [Damage("Bo", 5, "right_leg")]
    full = fighter(head=0, head_k=0)
    assert wound_effects(full, "head", 2, 1, BOXES, OVERFLOW) == []
    shocked = fighter(head=0, head_k=4)  # full of Shock: more Shock turns boxes to Killing, said already
    assert wound_effects(shocked, "head", 2, 0, BOXES, OVERFLOW) == [Damage("Bo", 2, "head_k")]


def test_killing_past_a_full_limb_overflows_to_the_torso() -> None:
    """7 killing on a left arm of 5: 2 overflow to the torso (the `overflow` table)."""
    bo = fighter()
    assert wound_effects(bo, "left_arm", 0, 7, BOXES, OVERFLOW) == [
        Damage("Bo", 5, "left_arm"), Damage("Bo", 5, "left_arm_k"),
        Note("2 killing overflows from Bo's left arm to the torso"),
        Damage("Bo", 2, "torso"), Damage("Bo", 2, "torso_k")]
    # Shock past a full limb is lost; so is Killing where the table says nowhere.
    assert wound_effects(bo, "left_arm", 9, 0, BOXES, OVERFLOW) == [
        Damage("Bo", 5, "left_arm"), Damage("Bo", 4, "left_arm_k")]
    assert wound_effects(bo, "left_arm", 0, 7, BOXES, {}) == [Damage("Bo", 5, "left_arm"), Damage("Bo", 5, "left_arm_k")]


class ReadOnce(dict):  # type: ignore[type-arg]
    """An overflow table that fails a second reading of a location (a loop)."""

    def __init__(self, rows: dict[str, str]) -> None:
        super().__init__(rows)
        self.read: list[str] = []

    def get(self, key: Any, default: Any = None) -> Any:
        if key in self.read:
            raise AssertionError(f"{key} read twice: the overflow goes round")
        self.read.append(key)
        return super().get(key, default)


def test_an_overflow_that_comes_back_stops() -> None:
    bo = fighter()
    ring = ReadOnce({"left_arm": "torso", "torso": "left_arm"})
    assert wound_effects(bo, "left_arm", 0, 20, BOXES, ring) == [
        Damage("Bo", 5, "left_arm"), Damage("Bo", 5, "left_arm_k"),
        Note("15 killing overflows from Bo's left arm to the torso"),
        Damage("Bo", 10, "torso"), Damage("Bo", 10, "torso_k"), Note("Bo's torso is full of Killing: Bo is dead"),
        Note("5 killing overflows from Bo's torso to the left_arm")]


def test_boxes_as_given_in_place_of_the_targets_own() -> None:
    """A torso with 4 empty boxes and 6 free of Killing (4 Killing, 2 Shock) takes 3
    killing: 7 Killing, 2 Shock, 1 empty. One with 9 Killing taking 3 is full of it."""
    bo = fighter()
    assert wound_effects(bo, "torso", 0, 3, BOXES, OVERFLOW, {"torso": 4, "torso_k": 6}) == [
        Damage("Bo", 3, "torso"), Damage("Bo", 3, "torso_k")]
    assert wound_effects(bo, "torso", 0, 3, BOXES, OVERFLOW, {"torso": 1, "torso_k": 1}) == [
        Damage("Bo", 1, "torso"), Damage("Bo", 1, "torso_k"), Note("Bo's torso is full of Killing: Bo is dead")]
    assert bo.resources["torso"] == 10  # the target itself is not touched


def test_the_last_empty_box_filled_puts_the_combatant_down() -> None:
    bo = fighter(head=1, head_k=4)
    assert wound_effects(bo, "head", 1, 0, BOXES, OVERFLOW) == [Damage("Bo", 1, "head"), Note("Bo's head is full: Bo is out")]


def test_a_location_no_table_sizes_takes_the_targets_maximum_or_one_box() -> None:
    bo = fighter()
    assert wound_effects(bo, "torso", 3, 0, {}, {}) == [Damage("Bo", 3, "torso")]
    # No boxes marked yet on a location of 3 (by the table, or the target's maximum): 2
    # shock leave 1 empty.
    fresh = Combatant("Cy", {}, {}, {})
    assert wound_effects(fresh, "tail", 2, 0, {"tail": 3}, {}) == [Damage("Cy", 2, "tail")]
    fresh = Combatant("Cy", {}, {}, {"tail": 3})
    assert wound_effects(fresh, "tail", 2, 0, {}, {}) == [Damage("Cy", 2, "tail")]
    bare = Combatant("Cy", {}, {}, {})
    # One box: 2 shock fill it and the second turns it to Killing.
    assert wound_effects(bare, "tail", 2, 0, {}, {}) == [Damage("Cy", 1, "tail"), Damage("Cy", 1, "tail_k")]


# ---------------------------------------------------------------- small helpers


def test_gobble_dice_stated_by_hand() -> None:
    assert _manual_gobble(None) is None and _manual_gobble("") is None and _manual_gobble(" 0 ") is None
    assert _manual_gobble("  ") is None
    assert _manual_gobble("2x8") == (2, 8) and _manual_gobble(" 3 x 10 ") == (3, 10)
    for bad in ("2x", "x8", "2*8", "two x 8"):
        with pytest.raises(TrackerError) as caught:
            _manual_gobble(bad)
        assert str(caught.value) == f"gobble: expected gobble dice as WxH such as 2x8, got {bad!r}"


def test_blows_meet_gobble_dice_widest_then_highest_then_by_attacker() -> None:
    action = SimpleNamespace(resolution=SimpleNamespace(order=(3, 7)), actor="Ace", start=4)
    assert _blow_key(action, 1) == ((-3, -7), "Ace", 4, 1)
    wide = SimpleNamespace(resolution=SimpleNamespace(order=(3, 2)), actor="Zed", start=9)
    high = SimpleNamespace(resolution=SimpleNamespace(order=(2, 9)), actor="Ace", start=0)
    assert sorted([(high, 0), (wide, 0)], key=lambda p: _blow_key(*p))[0][0] is wide


def test_a_worse_failure_is_a_failure_of_all_low_dice() -> None:
    """Seed: "A failed roll is worse than usual if you roll all low dice"."""
    assert worse_failure(Outcome([1, 2, 3, 5]))
    assert not worse_failure(Outcome([1, 2, 3, 6]))
    assert not worse_failure(Outcome([5, 5, 1]))  # a set: no failure
    assert worse_failure(Outcome([3, 3, 1], difficulty=5))  # its set is under the difficulty
    assert not worse_failure(Outcome([4, 4, 1], difficulty=4))
    assert not worse_failure(Outcome([]))  # nothing rolled
    assert not worse_failure(Outcome([1, 2], hard=1))  # a hard die is a 10
    assert not worse_failure(Outcome([1, 2], wiggle=[3]))


def test_a_set_is_written_width_x_height() -> None:
    """Seed: "if three dice come up "5," that's 3x5"."""
    assert _set_text((3, 5)) == "3x5" and _set_text(None) == "no set"


def test_a_pool_typed_for_a_roll_must_roll_something() -> None:
    assert _stated_pool(" 2D + 1hd ", "pool") == Pool(2, 1, 0)
    assert _stated_pool("3wd", "pool") == Pool(0, 0, 3)
    assert _stated_pool("1d", "pool") == Pool(1)  # one die is a roll
    for spec, term in (("0d", "0d"), ("2d+0hd", "0hd"), ("00wd+1d", "00wd"), ("0D", "0d"), ("2d + 0 hd", "0hd")):
        with pytest.raises(TrackerError) as caught:
            _stated_pool(spec, "ore pool")
        assert str(caught.value) == f"ore pool {spec!r}: term {term!r} has no dice (leave it out)"
    with pytest.raises(TrackerError, match=r"^pool '2x': term '2x'"):
        _stated_pool("2x", "pool")


# ---------------------------------------------------------------- the game's class

ORE = OreRuleset()


def made(name: str, **sheet: str) -> Combatant:
    """A combatant as the game builds it from `sheet` (wound boxes from the table)."""
    stats, resources = ORE.build_sheet(sheet, name)
    return Combatant(name, stats, resources, dict(resources))


def request(name: str, actor: Combatant, *targets: Combatant, segment: int = 0, settings: dict[str, Any] | None = None,
            encounter: Any = None, **params: Any) -> ActionRequest:
    return ActionRequest(ORE.catalogue()[name], actor, tuple(targets), params, segment, settings or {}, encounter=encounter)


def test_the_catalogue_names_each_action_its_roll_and_its_targets() -> None:
    """Punch, strike and shoot (several targets means several actions), dodge and block
    (gobble dice), contest, check, move (docs/rulesets/ore.md); the rolls from the tables."""
    cat = ORE.catalogue()
    assert list(cat) == ["punch", "strike", "shoot", "dodge", "block", "contest", "check", "move"]
    for name, stat, skill, damage in (("punch", "body", "brawling", "width shock"), ("strike", "body", "melee", "weapon"),
                                      ("shoot", "coordination", "ranged", "gun")):
        t = cat[name]
        assert (t.name, t.mode, t.pt, t.targets) == (name, ACTIVE, 10, -1)
        assert t.rolls == f"{stat} + {skill}"
        assert t.description == f"{stat} + {skill}; damage {damage}; several targets = several actions"
        assert [f.name for f in t.params][-3:] == ["damage", "penetration", "gobble"]
    for name, stat in (("dodge", "coordination"), ("block", "body")):
        t = cat[name]
        assert (t.name, t.mode, t.pt, t.targets) == (name, ACTIVE, 10, 0)
        assert t.rolls == f"{stat} + {name}"
        assert t.description == f"{stat} + {name}: gobble dice against this round's attacks"
        assert "damage" not in [f.name for f in t.params] and "wiggle" in [f.name for f in t.params]
    contest = cat["contest"]
    assert (contest.name, contest.mode, contest.pt, contest.targets) == ("contest", ACTIVE, 10, 1)
    assert contest.rolls == "stat + skill, both sides"
    assert contest.description == ("a dynamic contest: both roll; the wider set goes first and takes effect, "
                                   "the narrower must meet its height")
    assert "vs_pool" in [f.name for f in contest.params]
    check = cat["check"]
    assert (check.name, check.mode, check.pt, check.targets, check.rolls) == ("check", ACTIVE, 10, 0, "stat + skill")
    assert check.description == "any roll: stat= skill= or pool=, difficulty="
    assert "stat" in [f.name for f in check.params] and "vs_pool" not in [f.name for f in check.params]
    move = cat["move"]
    assert (move.name, move.mode, move.pt, move.targets, move.params) == ("move", PASSIVE, 5, 0, ())
    assert move.description == "move while doing something else"


def test_the_catalogue_follows_house_rules(tmp_path: Any) -> None:
    house = tmp_path / "house.toml"
    house.write_text('[actions.punch]\nstat = "cool"\nskill = "melee"\ndamage = "width killing"\n', encoding="utf-8")
    t = OreRuleset(house).catalogue()["punch"]
    assert t.rolls == "cool + melee" and t.description.startswith("cool + melee; damage width killing;")


def test_a_house_row_that_names_no_stat_or_skill_says_what_is_rolled(tmp_path: Any) -> None:
    """A house row replaces the shipped row whole: a punch row with damage only rolls
    Body and no skill, with width shock when it names no damage, and the catalogue (the
    declare form's "rolls") says so, not "None + None"."""
    house = tmp_path / "house.toml"
    house.write_text('[actions.punch]\ndamage = "width killing"\n[actions.dodge]\nskill = "dodge"\n'
                     '[actions.shoot]\nstat = "sense"\n', encoding="utf-8")
    ruled = OreRuleset(house)
    cat = ruled.catalogue()
    assert cat["punch"].rolls == "body"
    assert cat["punch"].description == "body; damage width killing; several targets = several actions"
    assert cat["dodge"].rolls == "body + dodge"
    assert cat["dodge"].description == "body + dodge: gobble dice against this round's attacks"
    assert cat["shoot"].rolls == "sense" and cat["shoot"].description.startswith("sense; damage width shock;")


def test_a_house_row_that_names_no_stat_skill_or_damage_rolls_body_for_width_shock(tmp_path: Any) -> None:
    house = tmp_path / "house.toml"
    house.write_text('[actions.punch]\ndamage = "width killing"\n[actions.dodge]\nskill = "dodge"\n'
                     '[actions.shoot]\nstat = "sense"\n', encoding="utf-8")
    ruled = OreRuleset(house)
    a = Combatant("A", {"body": "3d", "brawling": "2d", "sense": "4d", "ranged": "1d", "dodge": "1d"}, {}, {})
    assert ruled.pool_for(a, "punch", {}) == Pool(3) and ruled.pool_for(a, "dodge", {}) == Pool(4)
    assert ruled.pool_for(a, "shoot", {}) == Pool(4)
    shoot = ActionRequest(ruled.catalogue()["shoot"], a, (made("B"),), {})
    res = ruled.resolve(shoot, TypedFaces([5, 5, 1, 2]))
    assert "2x5 at B's right arm (width shock: 2 shock, 0 killing before armour)" in res.summary
    assert res.details["hits"][0]["damage"] == "width shock"


def test_an_action_rolls_until_the_end_of_the_round_and_a_move_takes_5_segments() -> None:
    """"To the end of the round": a round is 10 segments."""
    a = made("A")
    assert ORE.default_pt(request("punch", a, segment=0)) == 10
    assert ORE.default_pt(request("punch", a, segment=3)) == 7
    assert ORE.default_pt(request("check", a, segment=19)) == 1
    assert ORE.default_pt(request("move", a, segment=3)) == 5


def test_the_pool_is_stat_plus_skill_plus_bonus_or_as_stated() -> None:
    """Seed: "Add the stat and skill dice together to get your dice pool"; "you might add
    1d or even 2d to the dice pool"."""
    a = made("A", body="3d", brawling="1d+1hd", sense="4d", ranged="2d", coordination="1d+1wd")
    assert ORE.pool_for(a, "punch", {}) == Pool(4, 1, 0)
    assert ORE.pool_for(a, "punch", {"bonus": 2}) == Pool(6, 1, 0)
    assert ORE.pool_for(a, "shoot", {}) == Pool(3, 0, 1)  # coordination 1d+1wd + ranged 2d
    assert ORE.pool_for(a, "check", {"stat": "sense", "skill": "ranged"}) == Pool(6, 0, 0)
    assert ORE.pool_for(a, "check", {}) == Pool(3, 0, 0)  # no stat named: Body, no skill
    assert ORE.pool_for(a, "check", {"skill": "brawling"}) == Pool(4, 1, 0)
    assert ORE.pool_for(a, "punch", {"pool": "2d+2wd", "bonus": 1}) == Pool(3, 0, 2)
    bare = Combatant("Z", {}, {}, {})
    assert ORE.pool_for(bare, "punch", {}) == Pool(0, 0, 0)  # nothing on the sheet: no dice


def test_penalty_dice_and_the_cap_follow_the_tables(tmp_path: Any) -> None:
    assert ORE.penalise(Pool(2, 1, 1), 1).pool == Pool(2, 0, 1)  # hard first
    assert ORE.penalise(Pool(14), 0).pool == Pool(12)  # at most 12 rolled
    house = tmp_path / "house.toml"
    house.write_text('[dice]\nmax_rolled = 3\npenalty_order = ["wiggle", "normal", "hard"]\n', encoding="utf-8")
    ruled = OreRuleset(house)
    capped = ruled.penalise(Pool(5), 0)
    assert capped.pool == Pool(3) and capped.unrolled == 2
    assert ruled.penalise(Pool(2, 1, 1), 1).pool == Pool(2, 1, 0)


def test_a_sheets_boxes_free_of_killing_start_as_its_boxes_and_never_above() -> None:
    _, resources = ORE.build_sheet({"head": 3}, "A")
    assert resources["head"] == 3 and resources["head_k"] == 3 and resources["torso"] == 10 and resources["torso_k"] == 10
    _, resources = ORE.build_sheet({"head": 3, "head_k": 4}, "A")
    assert resources["head_k"] == 3
    _, resources = ORE.build_sheet({"torso_k": 6}, "A")
    assert resources["torso"] == 10 and resources["torso_k"] == 6
    ORE.check_tables()  # the shipped tables read whole


def test_a_bad_house_table_is_refused_when_the_tables_are_checked(tmp_path: Any) -> None:
    house = tmp_path / "house.toml"
    house.write_text("[wound_boxes]\nhead = 99\n", encoding="utf-8")
    with pytest.raises(TrackerError, match=r"wound_boxes\]\.head"):
        OreRuleset(house).check_tables()


# ---------------------------------------------------------------- resolve: attacks, defences, checks

def test_a_punch_aims_its_widest_set_and_leaves_the_rest_spare() -> None:
    """A (body 3d + brawling 2d = 5d) rolls 7,7,4,4,1: sets 2x7 and 2x4; the punch takes
    the widest, then highest (2x7: the torso, 7-9), width shock = 2 shock. The 2x4 is an
    extra set free for an action with a pool of 5d or more (the seed)."""
    a, b = made("A", body="3d", brawling="2d"), made("B")
    res = ORE.resolve(request("punch", a, b), TypedFaces([7, 7, 4, 4, 1]))
    assert res.summary == ("5d: 7 7 4 4 1 -> 2x7, 2x4; 2x7 at B's torso (width shock: 2 shock, 0 killing before armour); "
                           "gobble dice, armour and wounds judged when it lands; "
                           "extra set 2x4 free for another action with a pool of 5+ dice")
    assert (res.pt, res.success, res.margin, res.dice, res.order) == (10, None, "2x7", (7, 7, 4, 4, 1), (2, 7))
    assert res.effects == (Blow("B", 0),)
    assert res.details == {"pool": "5d", "rolled": "5d", "sets": [[2, 7], [2, 4]], "best": [2, 7], "wiggle": [],
                           JUDGE_KEY: WOUND_JUDGE,
                           "hits": [{"target": "B", "set": [2, 7], "location": "torso", "damage": "width shock",
                                     "penetration": 0, "sizes": BOXES, "overflow": OVERFLOW}]}


def test_several_targets_take_a_set_each_widest_first_and_one_left_over_is_not_hit() -> None:
    a, b, c, d = made("A", body="3d", brawling="2d"), made("B"), made("C"), made("D")
    res = ORE.resolve(request("punch", a, b, c, d), TypedFaces([7, 7, 4, 4, 1]))
    assert res.summary == ("5d: 7 7 4 4 1 -> 2x7, 2x4; 2x7 at B's torso (width shock: 2 shock, 0 killing before armour); "
                           "2x4 at C's left arm (width shock: 2 shock, 0 killing before armour); no set left for D; "
                           "gobble dice, armour and wounds judged when it lands")
    assert res.effects == (Blow("B", 0), Blow("C", 1))
    assert [h["target"] for h in res.details["hits"]] == ["B", "C"]
    assert [h["location"] for h in res.details["hits"]] == ["torso", "left_arm"]


def test_an_attack_with_no_set_hits_no_one() -> None:
    a, b = made("A", body="3d", brawling="2d"), made("B")
    res = ORE.resolve(request("punch", a, b), TypedFaces([1, 2, 3, 4, 6]))
    assert res.summary == "5d: 6 4 3 2 1 -> no set; no set left for B"
    assert res.effects == () and "hits" not in res.details and JUDGE_KEY not in res.details
    assert (res.success, res.margin, res.order) == (None, None, (0, 0)) and res.details["best"] == []


def test_an_attack_needs_a_target() -> None:
    a = made("A", body="3d")
    with pytest.raises(TrackerError) as caught:
        ORE.resolve(request("strike", a), TypedFaces([7, 7, 4]))
    assert str(caught.value) == "strike needs a target (target=NAME)"


def test_a_weapon_or_a_stated_formula_sets_the_damage_and_penetration_is_kept() -> None:
    """A strike does the sheet's `weapon` damage; `damage=` overrides it. 3x9 (the torso)
    with width+1 killing: 4 killing."""
    a = made("A", body="3d", melee="2d", weapon="width+1 killing")
    b = made("B")
    res = ORE.resolve(request("strike", a, b, penetration=2), TypedFaces([9, 9, 9, 1, 2]))
    assert "3x9 at B's torso (width+1 killing: 0 shock, 4 killing before armour)" in res.summary
    hit = res.details["hits"][0]
    assert (hit["damage"], hit["penetration"], hit["set"]) == ("width+1 killing", 2, [3, 9]) and "gobble" not in hit
    res = ORE.resolve(request("strike", a, b, damage="2 killing + width shock"), TypedFaces([10, 10, 1, 2, 3]))
    assert "2x10 at B's head (2 killing + width shock: 2 shock, 2 killing before armour)" in res.summary
    # A weapon not on the sheet is width shock.
    bare = Combatant("Z", {"body": "3d"}, {}, {})
    res = ORE.resolve(request("shoot", bare, b, pool="3d"), TypedFaces([5, 5, 1]))
    assert "2x5 at B's right arm (width shock: 2 shock, 0 killing before armour)" in res.summary


def test_gobble_dice_stated_by_hand_are_kept_and_a_bad_one_refused_at_once() -> None:
    a, b = made("A", body="3d", brawling="2d"), made("B")
    res = ORE.resolve(request("punch", a, b, gobble="1x9"), TypedFaces([7, 7, 7, 1, 2]))
    assert res.details["hits"][0]["gobble"] == "1x9"
    for none in ("0", ""):
        res = ORE.resolve(request("punch", a, b, gobble=none), TypedFaces([7, 7, 7, 1, 2]))
        assert "gobble" not in res.details["hits"][0]
    with pytest.raises(TrackerError, match="^gobble: expected gobble dice as WxH"):
        ORE.resolve(request("punch", a, b, gobble="lots"), TypedFaces([7, 7, 7, 1, 2]))


def test_a_dodge_gives_gobble_dice_of_its_set() -> None:
    """Gobble dice: a dodge's set gives its width in dice at its height."""
    b = made("B", coordination="3d", dodge="2d")
    res = ORE.resolve(request("dodge", b), TypedFaces([8, 8, 8, 1, 2]))
    assert res.summary == "5d: 8 8 8 2 1 -> 3x8; 3 gobble dice at height 8"
    assert res.details["gobble"] == [3, 8] and res.success is True and res.margin == "3x8" and res.order == (3, 8)
    assert res.effects == () and JUDGE_KEY not in res.details
    res = ORE.resolve(request("block", made("C", body="2d", block="1d")), TypedFaces([1, 2, 3]))
    assert res.summary == "3d: 3 2 1 -> no set; a failure of all low dice: worse than usual (the GM says how)"
    assert "gobble" not in res.details and res.success is False and res.details["worse_failure"] is True


def test_a_check_against_a_difficulty_and_its_extra_set() -> None:
    """Seed: "If your roll's height doesn't equal or beat the Difficulty, it fails." 2x9
    meets 5, 2x6 meets it too and is spare; 2x3 does not."""
    a = made("A", body="3d", brawling="2d")
    res = ORE.resolve(request("check", a, stat="body", skill="brawling", difficulty=5), TypedFaces([9, 9, 6, 6, 1]))
    assert res.summary == ("5d: 9 9 6 6 1 -> 2x9, 2x6 (difficulty 5); "
                           "extra set 2x6 free for another action with a pool of 5+ dice")
    assert res.success is True and res.margin == "2x9" and res.details["best"] == [2, 9]
    res = ORE.resolve(request("check", a, stat="body", skill="brawling", difficulty=5), TypedFaces([9, 9, 3, 3, 1]))
    assert res.summary == "5d: 9 9 3 3 1 -> 2x9, 2x3 (difficulty 5)"
    res = ORE.resolve(request("check", a, stat="body", skill="brawling", difficulty=10), TypedFaces([9, 9, 3, 3, 1]))
    assert res.success is False and res.margin is None and res.order == (0, 0) and "worse_failure" not in res.details
    res = ORE.resolve(request("check", a, stat="body"), TypedFaces([4, 4, 1]))
    assert res.summary == "3d: 4 4 1 -> 2x4" and res.success is True


def test_penalty_and_bonus_dice_in_the_timeline() -> None:
    """Seed: "Drop hard dice first [...] then normal dice, then wiggle dice"."""
    a = made("A", body="3d+1hd", brawling="1d")
    res = ORE.resolve(request("check", a, skill="brawling", penalty=2), TypedFaces([4, 4, 1]))
    assert res.summary.startswith("3d (lost 1 hard, 1 normal): 4 4 1 -> 2x4")
    assert res.details["pool"] == "4d+1hd" and res.details["rolled"] == "3d"
    res = ORE.resolve(request("check", a, bonus=1), TypedFaces([4, 4, 1, 2]))
    assert res.details["pool"] == "4d+1hd" and res.summary.startswith("4d+1hd: 4 4 2 1; hard 10 -> 2x4")


def test_wiggle_dice_are_set_after_the_roll() -> None:
    """Seed: "A wiggle die can be set to whatever number you want, after you roll your
    other dice." Unset, it goes where it makes the widest, then highest set."""
    a = made("A", body="2d+1wd")
    res = ORE.resolve(request("check", a), TypedFaces([3, 7]))
    assert res.details["wiggle"] == [7] and res.details["best"] == [2, 7]
    assert ORE.after_roll(request("check", a), res) == (
        "1 wiggle die to set, each to a face from 1 to 10 (wiggle=7,7); "
        "unset, they go where they make the widest, then highest set (now 7)")
    res = ORE.resolve(request("check", a, wiggle="3"), TypedFaces([3, 7]))
    assert res.details["wiggle"] == [3] and res.details["best"] == [2, 3]
    two = made("B", body="1d+2wd")
    res = ORE.resolve(request("check", two, wiggle=""), TypedFaces([6]))
    assert res.details["wiggle"] == [6, 6]
    assert ORE.after_roll(request("check", two), res).startswith("2 wiggle dice to set, ")
    assert ORE.after_roll(request("check", two), res).endswith("(now 6 6)")
    plain = ORE.resolve(request("check", made("C", body="2d")), TypedFaces([3, 3]))
    assert ORE.after_roll(request("check", made("C")), plain) == ""
    assert ORE.after_roll(request("move", made("C")), res) == ""  # a move offers no wiggle dice


# ---------------------------------------------------------------- landing: gobble dice, armour, boxes

def landed(*lines: str) -> Any:
    return session_for(OreRuleset(), *lines, "next")


def test_a_blow_lands_through_armour_into_the_boxes() -> None:
    """3x9 (the torso) with width+1 killing. HAR 1 takes a die: width 2, 3 killing; LAR 1
    cuts Shock to 1 and turns one Killing into Shock: 1 shock, 2 killing. The torso's 10
    boxes: 2 Killing, 1 Shock: 7 empty, 8 free of Killing."""
    s = landed("add A body=3d melee=2d weapon='width+1 killing'", "add B har=1 lar=1",
               "declare A strike target=B faces=9,9,9,1,2")
    assert "A's strike lands on B: 3x9 hits the torso (HAR 1: width 3 -> 2; LAR 1: 1 shock, 2 killing) for 1 shock, 2 killing" in log_texts(s)
    b = s.encounter.combatant("B")
    assert (b.resources["torso"], b.resources["torso_k"]) == (7, 8)


def test_penetration_lowers_the_armour() -> None:
    """Penetration 1 against HAR 1 and LAR 1: no armour left; 3x9 does 4 killing."""
    s = landed("add A body=3d melee=2d weapon='width+1 killing'", "add B har=1 lar=1",
               "declare A strike target=B penetration=1 faces=9,9,9,1,2")
    assert "A's strike lands on B: 3x9 hits the torso for 0 shock, 4 killing" in log_texts(s)
    b = s.encounter.combatant("B")
    assert (b.resources["torso"], b.resources["torso_k"]) == (6, 6)


def test_heavy_armour_that_takes_the_set_to_width_1_stops_it() -> None:
    s = landed("add A body=3d brawling=2d", "add B har=2", "declare A punch target=B faces=7,7,1,2,3")
    assert "A's punch lands on B: 2x7 hits the torso (HAR 2: width 2 -> 0; the armour stops it)" in log_texts(s)
    s = landed("add A body=3d brawling=2d", "add B har=1", "declare A punch target=B faces=7,7,7,2,3")
    assert "A's punch lands on B: 3x7 hits the torso (HAR 1: width 3 -> 2) for 2 shock, 0 killing" in log_texts(s)
    b = s.encounter.combatant("B")
    assert b.resources["torso"] == 8


def test_gobble_dice_stated_by_hand_take_dice_as_it_lands() -> None:
    s = landed("add A body=3d brawling=2d", "add B", "declare A punch target=B gobble=1x9 faces=7,7,7,1,2")
    assert "A's punch lands on B: 3x7 gobbled 1 (stated): width 3 -> 2 hits the torso for 2 shock, 0 killing" in log_texts(s)
    s = landed("add A body=3d brawling=2d", "add B", "declare A punch target=B gobble=2x5 faces=7,7,7,1,2")
    assert "A's punch lands on B: 3x7 hits the torso for 3 shock, 0 killing" in log_texts(s)  # 5 is lower than 7


def test_a_dodge_gobbles_the_blows_it_outranks_widest_first_until_its_dice_run_out() -> None:
    """B's dodge 3x8: three gobble dice at height 8. A's 3x7 needs two to spoil, C's 2x6
    one; D's 2x5 meets none left and hits the right arm (5-6) for 2 shock. E's 4x9
    resolves before the dodge (a higher order) and is not gobbled; F's 3x8 (the same
    order) is, but the dice are gone. Typed in any order."""
    adds = ["add A body=5d", "add C body=5d", "add D body=5d", "add E body=5d", "add B coordination=3d dodge=2d"]
    s = landed(*adds, "declare D punch target=B faces=5,5,1,2,3", "declare E punch target=B faces=9,9,9,9,1",
               "declare C punch target=B faces=6,6,1,2,3", "declare A punch target=B faces=7,7,7,1,2",
               "declare B dodge faces=8,8,8,1,2")
    texts = log_texts(s)
    assert "A's punch lands on B: 3x7; B's dodge gobbles 2: width 3 -> 1: spoiled" in texts
    assert "C's punch lands on B: 2x6; B's dodge gobbles 1: width 2 -> 1: spoiled" in texts
    assert "D's punch lands on B: 2x5 hits the right arm for 2 shock, 0 killing" in texts
    assert "E's punch lands on B: 4x9 hits the torso for 4 shock, 0 killing" in texts
    b = s.encounter.combatant("B")
    assert (b.resources["right_arm"], b.resources["torso"]) == (3, 6)


def test_a_blow_of_the_dodges_own_order_is_gobbled() -> None:
    """"An attack resolving no sooner than it (order not greater) loses one die per
    gobble die": 3x8 against a dodge of 3x8 is spoiled."""
    s = landed("add A body=5d", "add B coordination=3d dodge=2d", "declare A punch target=B faces=8,8,8,1,2",
               "declare B dodge faces=8,8,8,1,2")
    assert "A's punch lands on B: 3x8; B's dodge gobbles 2: width 3 -> 1: spoiled" in log_texts(s)
    assert s.encounter.combatant("B").resources["torso"] == 10


def test_a_dodge_on_another_segment_or_by_another_gobbles_nothing() -> None:
    s = session_for(OreRuleset(), "add A body=5d", "add B coordination=3d dodge=2d", "add C coordination=3d dodge=2d",
                    "declare C dodge faces=8,8,8,1,2", "declare A punch target=B faces=7,7,1,2,3", "next")
    assert "A's punch lands on B: 2x7 hits the torso for 2 shock, 0 killing" in log_texts(s)
    s = session_for(OreRuleset(), "add A body=5d", "add B coordination=3d dodge=2d",
                    "declare B dodge faces=8,8,8,1,2", "next", "declare A punch target=B faces=7,7,1,2,3", "next")
    assert "A's punch lands on B: 2x7 hits the torso for 2 shock, 0 killing" in log_texts(s)


def test_a_blow_with_gobble_stated_leaves_the_dodge_dice_to_the_others() -> None:
    s = landed("add A body=5d", "add C body=5d", "add B coordination=3d dodge=2d",
               "declare A punch target=B gobble=1x9 faces=7,7,7,1,2", "declare C punch target=B faces=6,6,6,1,2",
               "declare B dodge faces=8,8,8,1,2")
    texts = log_texts(s)
    assert "A's punch lands on B: 3x7 gobbled 1 (stated): width 3 -> 2 hits the torso for 2 shock, 0 killing" in texts
    # B's 3x8 gives three gobble dice; A's blow, gobbled by hand, takes none of them.
    assert "C's punch lands on B: 3x6; B's dodge gobbles 2: width 3 -> 1: spoiled" in texts


# ---------------------------------------------------------------- an extra set for an extra action

PUNCH_2X7 = "5d: 7 7 4 4 1 -> 2x7, 2x4; 2x7 at B's torso (width shock: 2 shock, 0 killing before armour); " \
            "gobble dice, armour and wounds judged when it lands"


def both() -> tuple[Combatant, Combatant]:
    """A punches with 5d (body 3d + brawling 2d) and dodges with 5d (coordination 3d + dodge 2d)."""
    return made("A", body="3d", brawling="2d", coordination="3d", dodge="2d"), made("B")


def test_an_extra_set_serves_a_dodge_or_a_check() -> None:
    """Seed: "If you roll an extra matching set, you can use it on an extra action with no
    penalty—but only if your extra action has a dice pool equal to or larger"."""
    a, b = both()
    res = ORE.resolve(request("punch", a, b, also="dodge"), TypedFaces([7, 7, 4, 4, 1]))
    assert res.summary == f"{PUNCH_2X7}; extra set 2x4 for dodge: 2 gobble dice at height 4"
    assert res.details["gobble"] == [2, 4] and res.details["also"] == ["dodge", [2, 4]]
    strong = made("A", body="5d")  # a check with no stat named rolls Body: 5d, as the punch
    res = ORE.resolve(request("punch", strong, b, also=" Check "), TypedFaces([7, 7, 4, 4, 1]))
    assert res.summary == f"{PUNCH_2X7}; extra set 2x4 for check: success"
    assert res.details["also"] == ["check", [2, 4]] and "gobble" not in res.details


def test_the_sets_left_after_the_extra_action_are_still_spare() -> None:
    a = made("A", body="4d", brawling="2d", coordination="4d", dodge="2d")
    res = ORE.resolve(request("punch", a, made("B"), also="dodge"), TypedFaces([7, 7, 4, 4, 2, 2]))
    assert res.summary.endswith("; extra set 2x4 for dodge: 2 gobble dice at height 4; "
                                "extra set 2x2 free for another action with a pool of 6+ dice")


def test_an_extra_attack_lands_on_its_own_target_with_its_own_damage() -> None:
    """A checks with 5d and an extra 2x4 punches C: height 4 is the left arm, width shock."""
    s = session_for(OreRuleset(), "add A body=3d brawling=2d", "add C body=2d")
    a = s.encounter.combatant("A")
    res = ORE.resolve(request("check", a, encounter=s.encounter, stat="body", skill="brawling", also="punch: C ",
                              damage="width killing"), TypedFaces([7, 7, 4, 4, 1]))
    assert res.summary == ("5d: 7 7 4 4 1 -> 2x7, 2x4; extra set for punch: "
                           "2x4 at C's left arm (width shock: 2 shock, 0 killing before armour)")
    assert res.effects == (Blow("C", 0),) and res.details[JUDGE_KEY] == WOUND_JUDGE
    assert res.details["hits"][0]["target"] == "C" and res.details["also"] == ["punch", [2, 4]]
    assert res.success is True
    # The punch's own extra target takes the punch's stated damage.
    b = made("B")
    res = ORE.resolve(request("punch", a, b, encounter=s.encounter, also="punch:C", damage="width killing"),
                      TypedFaces([7, 7, 4, 4, 1]))
    assert res.effects == (Blow("B", 0), Blow("C", 1))
    assert res.summary.endswith("; extra set for punch: 2x4 at C's left arm (width killing: 0 shock, 2 killing before armour)")


def test_an_extra_action_is_refused_by_name() -> None:
    a, b = both()

    def refused(also: str, faces: list[int], encounter: Any = None, who: Combatant = a) -> str:
        with pytest.raises(TrackerError) as caught:
            ORE.resolve(request("punch", who, b, also=also, encounter=encounter), TypedFaces(faces))
        return str(caught.value)

    listed = "(one of punch, strike, shoot, dodge, block, check)"
    assert refused("kick", [7, 7, 4, 4, 1]) == f"also=kick: expected an extra action such as dodge, block, check or punch:NAME {listed}"
    assert refused("contest", [7, 7, 4, 4, 1]).startswith("also=contest: expected an extra action")
    small = made("S", body="3d", brawling="2d", coordination="2d", dodge="2d")
    assert refused("dodge", [7, 7, 4, 4, 1], who=small) == (
        "also=dodge: dodge's pool 4d is smaller than this action's 5d; "
        "an extra set serves an extra action only if its pool is equal or larger")
    assert refused("dodge", [7, 7, 4, 2, 1]) == "also=dodge: the roll has no extra set for it"
    assert refused("punch", [7, 7, 4, 4, 1]) == "also=punch: an extra attack needs its target (also=punch:NAME)"
    assert refused("punch: ", [7, 7, 4, 4, 1]) == "also=punch:: an extra attack needs its target (also=punch:NAME)"
    assert refused("punch:C", [7, 7, 4, 4, 1]) == "also=punch:C: no fight to find C in"


# ---------------------------------------------------------------- dynamic contests in the timeline

def rivals() -> tuple[Combatant, Combatant]:
    """A: coordination 3d + dodge 2d = 5d; B: coordination 2d + dodge 2d = 4d."""
    return made("A", coordination="3d", dodge="2d", body="1d"), made("B", coordination="2d", dodge="2d", body="3d")


def contested(faces: list[int], settings: dict[str, Any] | None = None, **params: Any) -> Any:
    a, b = rivals()
    params = {"stat": "coordination", "skill": "dodge", **params}
    return ORE.resolve(request("contest", a, b, settings=settings, **params), TypedFaces(faces))


def test_the_wider_set_goes_first_and_the_narrower_succeeds_if_it_meets_its_height() -> None:
    """Seed: "the wider roll goes first and takes effect as normal. The roll that goes
    afterward [...] must beat the wider roll's height as a Difficulty number." A's 3x5
    against B's 2x7: A wins; 7 meets 5, so B also succeeds afterwards."""
    res = contested([5, 5, 5, 1, 2, 7, 7, 3, 8])
    assert res.summary == ("5d: 5 5 5 2 1 -> 3x5 vs B 4d: 8 7 7 3 -> 2x7: A is wider, goes first and takes effect; "
                           "B's narrower set meets its height and also succeeds, afterwards")
    assert (res.success, res.margin, res.order, res.pt) == (True, "3x5", (3, 5), 10)
    assert res.dice == (5, 5, 5, 1, 2, 7, 7, 3, 8) and res.effects == (Note(res.summary),)
    assert res.details == {"best": [3, 5], "vs_best": [2, 7], "winner": "self", "narrower_succeeds": True}


def test_the_rivals_wider_set_wins_and_a_lower_narrower_set_fails() -> None:
    res = contested([5, 5, 1, 2, 3, 7, 7, 7, 1])
    assert res.summary == ("5d: 5 5 3 2 1 -> 2x5 vs B 4d: 7 7 7 1 -> 3x7: B is wider, goes first and takes effect; "
                           "A's narrower set does not meet its height")
    assert res.success is False and res.details["winner"] == "rival" and res.details["narrower_succeeds"] is False


def test_equal_heights_and_the_strict_reading() -> None:
    """A Difficulty is met by a height that does "equal or beat" it; the setting
    `narrower_equal_height = "fails"` reads "beat" strictly."""
    assert contested([5, 5, 5, 1, 2, 5, 5, 3, 8]).details["narrower_succeeds"] is True
    strict = contested([5, 5, 5, 1, 2, 5, 5, 3, 8], settings={"narrower_equal_height": "fails"})
    assert strict.details["narrower_succeeds"] is False and strict.summary.endswith("B's narrower set does not meet its height")


def test_widths_tied_or_order_not_mattering_the_higher_wins() -> None:
    """Seed: "If it doesn't matter who goes first, or if width is a tie, just look at the
    height of the rolls; the higher roll wins.\""""
    res = contested([5, 5, 1, 2, 3, 7, 7, 1, 2])
    assert res.summary.endswith("-> 2x7: B wins on height") and res.success is False
    res = contested([5, 5, 5, 1, 2, 7, 7, 3, 8], first_matters=False)
    assert res.summary == "5d: 5 5 5 2 1 -> 3x5 vs B 4d: 8 7 7 3 -> 2x7: B wins on height"
    assert res.details["narrower_succeeds"] is False and res.details["winner"] == "rival"
    # Order not mattering, each side's highest set is its best: A's 2x9 over its 3x1.
    res = contested([1, 1, 1, 9, 9, 7, 7, 3, 8], first_matters=False)
    assert res.details["best"] == [2, 9] and res.success is True and res.order == (2, 9)


def test_a_set_beats_none_and_no_set_on_either_side_is_a_draw() -> None:
    res = contested([1, 2, 3, 4, 6, 7, 7, 1, 2])
    assert res.summary == "5d: 6 4 3 2 1 -> no set vs B 4d: 7 7 2 1 -> 2x7: B wins: the only set"
    assert (res.success, res.margin, res.order) == (False, None, (0, 0)) and res.details["best"] == []
    res = contested([7, 7, 1, 2, 3, 1, 2, 3, 4])
    assert res.summary.endswith("-> no set: A wins: the only set") and res.details["vs_best"] == []
    res = contested([1, 2, 3, 4, 6, 1, 2, 3, 4])
    assert res.summary.endswith("-> no set: draw") and res.success is None and res.details["winner"] == "draw"
    res = contested([7, 7, 1, 2, 3, 7, 7, 1, 2])
    assert res.summary.endswith(": draw") and res.success is None


def test_the_rival_rolls_what_the_contest_names_for_it() -> None:
    res = contested([5, 5, 1, 2, 3, 7, 7, 1], vs_stat="body", vs_skill="brawling")  # B's body 3d, brawling 0d
    assert " vs B 3d: 7 7 1 -> 2x7" in res.summary
    res = contested([5, 5, 1, 2, 3, 7, 7], vs_pool="2d")
    assert " vs B 2d: 7 7 -> 2x7" in res.summary
    res = contested([5, 5, 1, 2, 7, 7, 1], penalty=1, vs_penalty=1)
    assert res.summary.startswith("4d (lost 1 normal): ") and " vs B 3d (lost 1 normal): 7 7 1 -> 2x7" in res.summary
    res = contested([5, 5, 1, 2, 7, 7, 1, 2], bonus=0, wiggle="1", pool="4d+1wd")
    assert res.summary.startswith("4d+1wd: 5 5 2 1; wiggle 1 -> 2x5")
    a, b = rivals()
    res = ORE.resolve(request("contest", a, b, stat="body"), TypedFaces([4, 7, 7, 1]))  # no skill: Body against Body
    assert res.summary == "1d: 4 -> no set vs B 3d: 7 7 1 -> 2x7: B wins: the only set"


def test_a_contest_needs_one_target() -> None:
    a, b = rivals()
    for targets in ((), (b, a)):
        with pytest.raises(TrackerError) as caught:
            ORE.resolve(request("contest", a, *targets), TypedFaces([1]))
        assert str(caught.value) == "contest needs one target (target=NAME)"
        assert ORE.chance_of(request("contest", a, *targets)) is None


def test_the_chance_the_declare_form_shows() -> None:
    a, b = rivals()
    assert ORE.chance_of(request("move", a)) is None
    assert ORE.chance_of(request("contest", a, b, stat="coordination", skill="dodge")) == odds.win(Pool(5), Pool(4), True)
    assert ORE.chance_of(request("contest", a, b, stat="coordination", skill="dodge", first_matters=False)) == \
        odds.win(Pool(5), Pool(4), False)
    assert ORE.chance_of(request("contest", a, b, stat="coordination", skill="dodge", penalty=1, vs_penalty=2)) == \
        odds.win(Pool(4), Pool(2), True)
    # Extra targets take extra sets, not dice: the pool's chance; penalty dice off it.
    assert ORE.chance_of(request("punch", b, a, a)) == odds.success(Pool(3), 1)
    assert ORE.chance_of(request("punch", b, a, difficulty=6, penalty=1)) == odds.success(Pool(2), 6)
    assert ORE.chance_of(request("dodge", a, bonus=1)) == odds.success(Pool(6), 1)


# ---------------------------------------------------------------- the command line's roll and odds

def test_a_roll_lists_its_sets_and_the_best() -> None:
    r = ORE.roll("5d", TypedFaces([7, 7, 4, 4, 1]))
    assert (r.ruleset, r.dice, r.success, r.margin) == ("ore", [7, 7, 4, 4, 1], True, "2x7")
    assert r.text == "5d: 7 7 4 4 1 -> 2x7, 2x4; best 2x7: success"
    assert r.fields == {"sets": [[2, 7], [2, 4]], "best": [2, 7], "difficulty": None, "pool": "5d", "removed": [],
                        "hard": 0, "wiggle": [], "loose": [1], "winner": None, "extra_sets": [[2, 4]],
                        "worse_failure": False}


def test_a_roll_against_a_difficulty() -> None:
    """Seed: "If your roll's height doesn't equal or beat the Difficulty, it fails.\""""
    r = ORE.roll("5d", TypedFaces([8, 8, 3, 3, 1]), difficulty=5)
    assert r.text == "5d: 8 8 3 3 1 -> 2x8, 2x3; best 2x8 vs difficulty 5: success"
    assert r.fields["extra_sets"] == [] and r.fields["difficulty"] == 5 and r.success is True
    r = ORE.roll("5d", TypedFaces([8, 8, 6, 6, 1]), difficulty=6)
    assert r.fields["extra_sets"] == [[2, 6]]
    r = ORE.roll("3d", TypedFaces([3, 3, 9]), difficulty=5)
    assert r.text == "3d: 9 3 3 -> 2x3; best no set vs difficulty 5: failure"
    assert (r.success, r.margin, r.fields["best"], r.fields["worse_failure"]) == (False, None, None, False)


def test_a_roll_of_all_low_dice_fails_worse() -> None:
    r = ORE.roll("4d", TypedFaces([1, 2, 3, 5]))
    assert r.text == "4d: 5 3 2 1 -> no set; best no set: failure of all low dice: worse than usual (the GM says how)"
    assert r.fields["worse_failure"] is True and r.fields["loose"] == [5, 3, 2, 1]
    r = ORE.roll("4d", TypedFaces([1, 2, 3, 5]), difficulty=1)
    assert r.fields["worse_failure"] is True and "; best no set vs difficulty 1: failure of all low dice" in r.text


def test_a_roll_with_hard_wiggle_and_penalty_dice() -> None:
    r = ORE.roll("3d+1hd+1wd", TypedFaces([2, 2, 8]), options={"penalty": "1"})
    assert r.fields["pool"] == "3d+1wd" and r.fields["removed"] == ["hard"] and r.fields["hard"] == 0
    assert r.text.startswith("3d+1wd (lost 1 hard): 8 2 2; wiggle 2 -> 3x2")
    r = ORE.roll("2d+1hd+1wd", TypedFaces([2, 2]), options={"wiggle": "7"})
    assert r.fields["hard"] == 1 and r.fields["wiggle"] == [7] and r.fields["best"] == [2, 2]
    assert r.text == "2d+1hd+1wd: 2 2; hard 10; wiggle 7 -> 2x2; best 2x2: success"
    with pytest.raises(TrackerError, match="^ore pool '0d': term '0d' has no dice"):
        ORE.roll("0d", TypedFaces([]))
    with pytest.raises(TrackerError, match=r"^--set wiggle: entry 1 \('x'\)"):
        ORE.roll("2d+1wd", TypedFaces([2, 2]), options={"wiggle": "x"})
    with pytest.raises(TrackerError, match="^wiggle: a wiggle die is set to a face from 1 to 10, not 11"):
        ORE.roll("2d+1wd", TypedFaces([2, 2]), options={"wiggle": "11"})


def test_an_opposed_roll_is_a_dynamic_contest() -> None:
    r = ORE.roll("5d", TypedFaces([5, 5, 5, 1, 2]), vs="4d", vs_dice=TypedFaces([7, 7, 3, 8]))
    assert r.text == ("5d: 5 5 5 2 1 -> 3x5 vs 4d: 8 7 7 3 -> 2x7: self is wider, goes first and takes effect; "
                      "the narrower set meets its height and also succeeds, afterwards")
    assert (r.success, r.margin, r.dice) == (None, "3x5", [5, 5, 5, 1, 2])
    assert r.fields["winner"] == "self" and r.fields["vs_dice"] == [7, 7, 3, 8] and r.fields["vs_sets"] == [[2, 7]]
    assert r.fields["vs_best"] == [2, 7] and r.fields["narrower_succeeds"] is True and "extra_sets" not in r.fields
    r = ORE.roll("5d", TypedFaces([5, 5, 1, 2, 3]), vs="4d", vs_dice=TypedFaces([7, 7, 7, 3]))
    assert r.text.endswith("-> 3x7: rival is wider, goes first and takes effect; the narrower set does not meet its height")
    assert r.fields["narrower_succeeds"] is False
    strict = ORE.roll("5d", TypedFaces([5, 5, 5, 1, 2]), vs="4d", vs_dice=TypedFaces([5, 5, 3, 8]),
                      options={"narrower_equal_height": "fails"})
    assert strict.fields["narrower_succeeds"] is False
    r = ORE.roll("5d", TypedFaces([5, 5, 1, 2, 3]), vs="4d", vs_dice=TypedFaces([7, 7, 1, 3]))
    assert r.text.endswith("-> 2x7: rival wins on height") and r.fields["winner"] == "rival"
    r = ORE.roll("3d", TypedFaces([1, 2, 3]), vs="2d", vs_dice=TypedFaces([4, 5]))
    assert r.text == "3d: 3 2 1 -> no set vs 2d: 5 4 -> no set: draw" and r.margin is None
    assert r.fields["best"] is None and r.fields["vs_best"] is None and r.fields["winner"] == "draw"
    r = ORE.roll("3d", TypedFaces([1, 2, 3]), vs="2d", vs_dice=TypedFaces([4, 4]))
    assert r.text.endswith("-> 2x4: rival wins on height")


def test_an_opposed_roll_where_order_does_not_matter_and_its_refusals() -> None:
    """Order not mattering: each side's highest set, the higher wins."""
    r = ORE.roll("5d", TypedFaces([1, 1, 1, 6, 6]), vs="2d+1wd", vs_dice=TypedFaces([4, 2]),
                 options={"first_matters": "false", "vs_penalty": 0, "vs_wiggle": "4"})
    assert r.fields["best"] == [2, 6] and r.fields["vs_best"] == [2, 4] and r.fields["winner"] == "self"
    assert r.text.endswith("-> 2x4: self wins on height") and r.fields["narrower_succeeds"] is False
    r = ORE.roll("3d", TypedFaces([6, 6, 1]), vs="3d", vs_dice=TypedFaces([2, 2, 3]), options={"vs_penalty": 1})
    assert " vs 2d (lost 1 normal): 2 2 -> 2x2" in r.text
    with pytest.raises(TrackerError) as caught:
        ORE.roll("3d", TypedFaces([6, 6, 1]), vs="3d")
    assert str(caught.value) == "an opposed roll needs the other side's dice"
    with pytest.raises(TrackerError, match="^--vs '0d'"):
        ORE.roll("3d", TypedFaces([6, 6, 1]), vs="0d", vs_dice=TypedFaces([]))
    with pytest.raises(TrackerError, match=r"^--set vs_wiggle: entry 1 \('x'\)"):
        ORE.roll("3d", TypedFaces([6, 6, 1]), vs="1d+1wd", vs_dice=TypedFaces([2]), options={"vs_wiggle": "x"})


def test_the_odds_from_the_command_line() -> None:
    assert ORE.chance("3d") == odds.success(Pool(3), 1)
    assert ORE.chance("3d", difficulty=1) == odds.success(Pool(3), 1)
    # A hard die is a 10: a set of 10s needs a 10 on any of the 4d.
    assert ORE.chance("4d+1hd", difficulty=10) == 1 - Fraction(9, 10) ** 4
    assert ORE.chance("4d", difficulty=10) == odds.success(Pool(4), 10)
    assert ORE.chance("5d+1hd", options={"penalty": 2}) == odds.success(Pool(4), 1)
    assert ORE.chance("5d", vs="4d") == odds.win(Pool(5), Pool(4), True)
    assert ORE.chance("5d", vs="4d", options={"first_matters": "no", "penalty": 1, "vs_penalty": 2}) == \
        odds.win(Pool(4), Pool(2), False)
    for bad in (0, 11):
        with pytest.raises(TrackerError) as caught:
            ORE.chance("3d", difficulty=bad)
        assert str(caught.value) == f"--difficulty: expected a height from 1 to 10, got {bad}"
    with pytest.raises(TrackerError, match="^--vs '0d'"):
        ORE.chance("3d", vs="0d")
    with pytest.raises(TrackerError, match="^--set"):
        ORE.chance("3d", options={"penalty": "-1"})
    assert ORE.chance("2d", difficulty=1) == Fraction(1, 10)  # two d10s match one time in ten


# ---------------------------------------------------------------- gobble dice met at landing, as stored

def stored(ident: str, actor: str, start: int, template: str, order: tuple[int, int], completes: int = 10,
           status: str = IN_PROGRESS, **details: Any) -> Any:
    """An action as the encounter holds it, with what its resolution stored."""
    return SimpleNamespace(id=ident, actor=actor, start=start, template=template, completes=completes, status=status,
                           resolution=SimpleNamespace(order=order, details=details))


def defence(ident: str, start: int, template: str, gobble: list[int], **kw: Any) -> Any:
    return stored(ident, "B", start, template, (gobble[0], gobble[1]), gobble=gobble, **kw)


def attack(ident: str, actor: str, width: int, height: int, target: str = "B", judge: str = WOUND_JUDGE, **kw: Any) -> Any:
    return stored(ident, actor, 0, "punch", (width, height), hits=[{"target": target, "set": [width, height]}],
                  judge=judge, **kw)


def met(actions: list[Any], blow: Any, index: int = 0) -> list[tuple[str, int]]:
    fight = SimpleNamespace(now=10, actions=actions)
    return [(d.id, used) for d, used in gobbled_at_landing(fight, blow, index)]


def test_the_first_defence_typed_gives_its_dice_first() -> None:
    """Two defences landing on one segment meet a blow in the order they started."""
    first, later = defence("d1", 0, "dodge", [3, 9]), defence("d2", 2, "block", [3, 8])
    blow = attack("x", "A", 2, 7)
    assert met([later, first, blow], blow) == [("d1", 1)]
    same_start = defence("d3", 0, "block", [3, 8])
    assert met([first, same_start, blow], blow) == [("d3", 1)]  # block before dodge: by name


def test_a_defence_the_blow_outranks_gives_none_and_the_next_still_may() -> None:
    low, high = defence("d1", 0, "dodge", [2, 5]), defence("d2", 2, "block", [3, 8])
    blow = attack("x", "A", 2, 7)
    assert met([low, high, blow], blow) == [("d2", 1)]


def test_only_blows_landing_now_on_the_target_use_the_dice_up() -> None:
    """B's 3x9 dodge: A's 3x5 needs two dice to spoil. C's 3x6, ahead of it, takes two
    only when it lands now on B, from an action still running or done."""
    dodge = defence("d1", 0, "dodge", [3, 9])
    blow = attack("x", "A", 3, 5)
    assert met([dodge, blow], blow) == [("d1", 2)]
    for other in (attack("y", "C", 3, 6, completes=20), attack("y", "C", 3, 6, status=INTERRUPTED),
                  attack("y", "C", 3, 6, target="E"), attack("y", "C", 3, 6, judge="other"),
                  stored("y", "C", 0, "punch", (3, 6), hits=[{"target": "B", "set": [3, 6], "gobble": "1x1"}],
                         judge=WOUND_JUDGE)):
        assert met([dodge, other, blow], blow) == [("d1", 2)]
    unrecorded = stored("y", "C", 0, "punch", (3, 6), judge=WOUND_JUDGE)  # a hand-edited save: no hits
    assert met([dodge, unrecorded, blow], blow) == [("d1", 2)]
    ahead = attack("y", "C", 3, 6, status=COMPLETED)
    assert met([dodge, ahead, blow], blow) == [("d1", 1)]
    assert met([dodge, ahead, blow], ahead) == [("d1", 2)]


def test_a_defence_not_landing_now_gives_nothing() -> None:
    blow = attack("x", "A", 2, 7)
    for dodge in (defence("d1", 0, "dodge", [3, 9], completes=20), defence("d1", 0, "dodge", [3, 9], status=INTERRUPTED),
                  stored("d1", "E", 0, "dodge", (3, 9), gobble=[3, 9]), stored("d1", "B", 0, "dodge", (0, 0))):
        assert met([dodge, blow], blow) == []
    assert met([defence("d1", 0, "dodge", [3, 9], status=COMPLETED), blow], blow) == [("d1", 1)]


def test_a_blow_not_found_among_those_landing_meets_nothing() -> None:
    dodge = defence("d1", 0, "dodge", [3, 9])
    elsewhere = attack("x", "A", 2, 7, completes=20)
    assert met([dodge, elsewhere], elsewhere) == []
    two = stored("x", "A", 0, "punch", (2, 7), hits=[{"target": "E", "set": [2, 7]}, {"target": "B", "set": [2, 4]}],
                 judge=WOUND_JUDGE)
    assert met([dodge, two], two, 1) == [("d1", 1)]


# ---------------------------------------------------------------- the judge, on what a save holds

def judged(hit: dict[str, Any], target: Combatant | None = None, index: int = 0, actions: list[Any] | None = None) -> list[Any]:
    b = target or fighter("B")
    fight = SimpleNamespace(combatants={b.name: b}, now=10, actions=actions or [])
    action = stored("x", "A", 0, "punch", (2, 7), hits=[hit], judge=WOUND_JUDGE)
    return judge_wound(fight, action, Blow("B", index))


def test_a_blow_stored_before_gobble_dice_were_judged_at_landing_marks_what_was_rolled() -> None:
    old = {"target": "B", "location": "left_arm", "shock": 0, "killing": 7, "sizes": BOXES, "overflow": OVERFLOW}
    assert judged(old) == [Damage("B", 5, "left_arm"), Damage("B", 5, "left_arm_k"),
                           Note("2 killing overflows from B's left arm to the torso"),
                           Damage("B", 2, "torso"), Damage("B", 2, "torso_k")]
    bare = {"target": "B", "location": "head", "shock": "2", "killing": "1"}
    assert judged(bare) == [Damage("B", 3, "head"), Damage("B", 1, "head_k")]
    # A target with no boxes of its own there: the stored sizes say how many (4).
    sized = {"target": "B", "location": "head", "shock": 0, "killing": 1, "sizes": {"head": 4}}
    assert judged(sized, Combatant("B", {}, {}, {})) == [Damage("B", 1, "head"), Damage("B", 1, "head_k")]


def test_a_blow_with_no_record_or_no_target_is_said_and_marks_nothing() -> None:
    hit = {"target": "B", "set": [2, 7], "location": "torso", "damage": "width shock"}
    assert judged(hit, index=1) == [Note("A's punch: no record of its blow on B")]
    fight = SimpleNamespace(combatants={"B": fighter("B")}, now=10, actions=[])
    unrecorded = stored("x", "A", 0, "punch", (2, 7), judge=WOUND_JUDGE)  # a hand-edited save: no hits
    assert judge_wound(fight, unrecorded, Blow("B", 0)) == [Note("A's punch: no record of its blow on B")]
    b = fighter("B")
    fight = SimpleNamespace(combatants={}, now=10, actions=[])
    action = stored("x", "A", 0, "punch", (2, 7), hits=[hit], judge=WOUND_JUDGE)
    assert judge_wound(fight, action, Blow("B", 0)) == [Note("A's punch at B lapses: not in the fight")]
    assert b.resources["torso"] == 10


def test_a_stored_blow_lands_with_its_own_damage_and_the_targets_armour() -> None:
    """2x7 width+1 killing (3 killing) on the torso; no penetration stored is none; no
    armour on the sheet is none."""
    hit = {"target": "B", "set": [2, 7], "location": "torso", "damage": "width+1 killing", "sizes": BOXES,
           "overflow": OVERFLOW}
    assert judged(hit) == [Note("A's punch lands on B: 2x7 hits the torso for 0 shock, 3 killing"),
                           Damage("B", 3, "torso"), Damage("B", 3, "torso_k")]
    armoured = Combatant("B", {"har": 1, "lar": 0}, dict(fighter("B").resources), dict(fighter("B").maxima))
    hit3 = {**hit, "set": [3, 7], "penetration": 0}
    assert judged(hit3, armoured)[0] == Note("A's punch lands on B: 3x7 hits the torso (HAR 1: width 3 -> 2) for 0 shock, 3 killing")
    assert judged({**hit3, "penetration": 1}, armoured)[0] == Note("A's punch lands on B: 3x7 hits the torso for 0 shock, 4 killing")
    no_penetration = {k: v for k, v in hit3.items() if k != "penetration"}
    assert judged(no_penetration, armoured)[0] == Note("A's punch lands on B: 3x7 hits the torso (HAR 1: width 3 -> 2) for 0 shock, 3 killing")
    stopped = Combatant("B", {"har": 2}, dict(fighter("B").resources), dict(fighter("B").maxima))
    assert judged(hit3, stopped) == [Note("A's punch lands on B: 3x7 hits the torso (HAR 2: width 3 -> 1; the armour stops it)")]
    # A target with no boxes of its own there: the stored sizes say how many (4 on the head).
    head = {"target": "B", "set": [2, 10], "location": "head", "damage": "width shock", "sizes": {"head": 4}}
    assert judged(head, Combatant("B", {}, {}, {})) == [Note("A's punch lands on B: 2x10 hits the head for 2 shock, 0 killing"),
                                                        Damage("B", 2, "head")]
    # 4x3 width+3 killing: 7 killing on a left arm of 5; 2 overflow to the torso as stored.
    arm = {"target": "B", "set": [4, 3], "location": "left_arm", "damage": "width+3 killing", "sizes": BOXES,
           "overflow": OVERFLOW}
    assert judged(arm)[1:] == [Damage("B", 5, "left_arm"), Damage("B", 5, "left_arm_k"),
                               Note("2 killing overflows from B's left arm to the torso"),
                               Damage("B", 2, "torso"), Damage("B", 2, "torso_k")]
    with pytest.raises(TrackerError, match="^damage: expected damage such as"):
        judged({**hit, "damage": "lots"})
    # A record with no sizes or overflow stored: the target's own boxes.
    plain = {"target": "B", "set": [2, 7], "location": "torso", "damage": "width shock"}
    assert judged(plain) == [Note("A's punch lands on B: 2x7 hits the torso for 2 shock, 0 killing"), Damage("B", 2, "torso")]
    gobbled = {**hit3, "gobble": "2x9"}
    assert judged(gobbled) == [Note("A's punch lands on B: 3x7; gobbled 2 (stated): width 3 -> 1: spoiled")]
    assert judged({**hit, "gobble": "1x6"})[0] == Note("A's punch lands on B: 2x7 hits the torso for 0 shock, 3 killing")


# ---------------------------------------------------------------- more of the timeline's rolls

def test_a_move_rolls_nothing() -> None:
    res = ORE.resolve(request("move", made("A"), segment=4), TypedFaces([]))
    assert (res.pt, res.success, res.dice, res.summary, res.effects) == (5, None, (), "", ())


def test_the_dice_asked_for_are_named_by_the_action_and_the_roller() -> None:
    """The declare form asks for each group by its name: the action's pool, and in a
    contest the rival's own."""
    a, b = rivals()
    rec = Recorder(TypedFaces([7, 7, 4, 4, 1]))
    ORE.resolve(request("dodge", a), rec)
    assert [g.text() for g, _ in rec.groups] == ["dodge pool: 5d10"]
    rec = Recorder(TypedFaces([5, 5, 5, 1, 2, 7, 7, 3, 8]))
    ORE.resolve(request("contest", a, b, stat="coordination", skill="dodge"), rec)
    assert [g.text() for g, _ in rec.groups] == ["contest pool: 5d10", "B's contest pool: 4d10"]


def test_a_pool_or_a_sheet_that_is_not_one_is_refused_by_name() -> None:
    a = made("A", body="3d")
    for params, words in (({"pool": "0d"}, "pool '0d': term '0d' has no dice (leave it out)"),
                          ({"wiggle": "x"}, "wiggle: entry 1 ('x') is not a whole number")):
        with pytest.raises(TrackerError) as caught:
            ORE.resolve(request("check", a, **params), TypedFaces([1, 2, 3]))
        assert str(caught.value) == words
    odd = Combatant("Odd", {"body": "lots", "brawling": "2d", "melee": "some"}, {}, {})
    with pytest.raises(TrackerError, match=r"^Odd\.body 'lots': term 'lots'"):
        ORE.pool_for(odd, "punch", {})
    with pytest.raises(TrackerError, match=r"^Odd\.melee 'some': term 'some'"):
        ORE.pool_for(odd, "check", {"stat": "brawling", "skill": "melee"})
    with pytest.raises(TrackerError, match=r"^wiggle: entry 1 \('x'\)"):
        contested([5, 5, 1, 2, 3, 7, 7, 1, 2], wiggle="x")


def test_a_difficulty_of_2_is_said() -> None:
    res = ORE.resolve(request("check", made("A", body="3d"), difficulty=2), TypedFaces([4, 4, 1]))
    assert res.summary == "3d: 4 4 1 -> 2x4 (difficulty 2)"


def test_every_target_without_a_set_is_named() -> None:
    a = made("A", body="3d", brawling="2d")
    res = ORE.resolve(request("punch", a, made("B"), made("C"), made("D")), TypedFaces([7, 7, 4, 2, 1]))
    assert res.summary.endswith("; no set left for C; no set left for D; gobble dice, armour and wounds judged when it lands")


def test_a_defences_other_sets_and_an_attacks_are_spare() -> None:
    b = made("B", coordination="3d", dodge="2d", body="5d")
    res = ORE.resolve(request("dodge", b), TypedFaces([8, 8, 8, 4, 4]))
    assert res.summary == ("5d: 8 8 8 4 4 -> 3x8, 2x4; 3 gobble dice at height 8; "
                           "extra set 2x4 free for another action with a pool of 5+ dice")
    res = ORE.resolve(request("dodge", b, also="check"), TypedFaces([8, 8, 4, 4, 1]))
    assert res.summary.endswith("; extra set 2x4 for check: success") and JUDGE_KEY not in res.details
    a = made("A", body="4d", brawling="2d")
    res = ORE.resolve(request("punch", a, made("C")), TypedFaces([7, 7, 4, 4, 2, 2]))
    assert res.summary.endswith("; extra set 2x4, 2x2 free for another action with a pool of 6+ dice")


def test_a_contest_stated_to_matter_who_goes_first_takes_the_widest() -> None:
    """A rolls 1,1,1,9,9: its widest set is 3x1, its highest 2x9."""
    res = contested([1, 1, 1, 9, 9, 7, 7, 3, 8], first_matters=True)
    assert res.details["best"] == [3, 1] and res.summary.endswith(
        "A is wider, goes first and takes effect; B's narrower set meets its height and also succeeds, afterwards")
    assert contested([1, 1, 1, 9, 9, 7, 7, 3, 8]).details["best"] == [3, 1]


def test_a_contests_set_of_1s_counts_and_wiggle_dice_go_highest_when_order_does_not_matter() -> None:
    res = contested([1, 1, 2, 3, 4, 5, 6, 7, 8])
    assert res.details["best"] == [2, 1] and res.summary.endswith("A wins: the only set")
    # 1,1,9 and a wiggle die: widest is 3x1, highest 2x9.
    res = contested([1, 1, 9, 5, 5], pool="3d+1wd", vs_pool="2d", first_matters=False)
    assert res.details["best"] == [2, 9] and res.summary.startswith("3d+1wd: 9 1 1; wiggle 9 -> 2x9 vs B 2d: 5 5 -> 2x5")
    res = contested([1, 1, 9, 5, 5], pool="3d+1wd", vs_pool="2d")
    assert res.details["best"] == [3, 1]


def test_a_damage_that_is_not_a_formula_is_refused_by_name() -> None:
    a, b = made("A", body="3d", brawling="2d"), made("B")
    with pytest.raises(TrackerError, match="^damage: expected damage such as"):
        ORE.resolve(request("punch", a, b, damage="lots"), TypedFaces([7, 7, 1, 2, 3]))
    armed = Combatant("A", {"body": "3d", "melee": "2d", "weapon": "sharp"}, {}, {})
    with pytest.raises(TrackerError, match="^damage: expected damage such as"):
        ORE.resolve(request("strike", armed, b), TypedFaces([7, 7, 1, 2, 3]))


def test_a_contests_rival_counts_its_1s_and_takes_its_highest_when_order_does_not_matter() -> None:
    res = contested([1, 2, 3, 4, 6, 1, 1, 2, 3])
    assert res.details["vs_best"] == [2, 1] and res.summary.endswith("B wins: the only set")
    res = contested([5, 5, 1, 2, 3, 1, 1, 9], vs_pool="3d+1wd", first_matters=False)
    assert res.details["vs_best"] == [2, 9] and " vs B 3d+1wd: 9 1 1; wiggle 9 -> 2x9" in res.summary
    res = contested([5, 5, 1, 2, 3, 1, 1, 1, 9, 9], vs_pool="5d", first_matters=False)
    assert res.details["vs_best"] == [2, 9] and res.summary.endswith("B wins on height")


def test_the_command_lines_order_that_does_not_matter_reaches_every_side() -> None:
    """Widest for a single roll whatever `first_matters` says; in a contest with order not
    mattering, each side's highest set (wiggle dice placed for it) and the higher wins."""
    r = ORE.roll("5d", TypedFaces([1, 1, 1, 9, 9]), options={"first_matters": "false"})
    assert r.fields["best"] == [3, 1]
    r = ORE.roll("3d+1wd", TypedFaces([1, 1, 9]), vs="2d", vs_dice=TypedFaces([5, 5]), options={"first_matters": "false"})
    assert r.fields["best"] == [2, 9] and r.fields["wiggle"] == [9] and r.fields["winner"] == "self"
    r = ORE.roll("2d", TypedFaces([5, 5]), vs="3d+1wd", vs_dice=TypedFaces([1, 1, 9]), options={"first_matters": "false"})
    assert r.fields["vs_best"] == [2, 9] and r.fields["winner"] == "rival"
    r = ORE.roll("2d", TypedFaces([5, 5]), vs="5d", vs_dice=TypedFaces([1, 1, 1, 9, 9]), options={"first_matters": "false"})
    assert r.fields["vs_best"] == [2, 9]
    r = ORE.roll("5d", TypedFaces([4, 4, 4, 1, 2]), vs="4d", vs_dice=TypedFaces([7, 7, 1, 2]), options={"first_matters": "false"})
    assert r.fields["winner"] == "rival" and r.ruleset == "ore" and r.text.endswith("-> 2x7: rival wins on height")


def test_the_command_lines_rival_counts_its_1s_and_options_are_refused_by_name() -> None:
    r = ORE.roll("3d", TypedFaces([1, 2, 3]), vs="2d", vs_dice=TypedFaces([1, 1]))
    assert r.fields["vs_best"] == [2, 1] and r.fields["winner"] == "rival"
    for call in (lambda: ORE.roll("3d", TypedFaces([1, 2, 3]), options={"penalty": "-1"}),
                 lambda: ORE.chance("3d", options={"penalty": "-1"})):
        with pytest.raises(TrackerError, match=r"^--set\.penalty: expected"):
            call()
    with pytest.raises(TrackerError, match="^ore pool '0d': term '0d' has no dice"):
        ORE.chance("0d")
