"""Direct tests of `rulesets/brandx/__init__.py`, the Brand X game as the tracker sees it:
its command-line checks and odds, `tracker chart`, the declare form's Q line and chance
lines, where a GM's damage lands, which actions may be maintained, and the helpers that
declare its sheet and modifiers.

Expected values are worked by hand from the rules text (seed 004), the charts
(rulesets/brandx/tables.toml: a value reads the row of the largest entry at or below it;
Sphere 1-8 are rows 1-8, 32 row 13, 43 row 14) and the module's docstrings.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

import rulesets.brandx as brandx
from rulesets.base import ActionRequest, ActionTemplate, ManualDamage
from rulesets.brandx import BrandXRuleset
from rulesets.brandx.common import Ctx
from rulesets.brandx.rolls import chance_at_most
from rulesets.dice import TypedFaces
from rulesets.fields import PARAM, STAT, Field
from tracker.engine import TrackerError
from tracker.engine.model import ACTIVE, PASSIVE, Combatant
from tracker.play.session import Session
from tests.helpers import session_for

GAME = BrandXRuleset()


def session(*lines: str, **settings: Any) -> Session:
    return session_for(BrandXRuleset(), *lines, **settings)


# ------------------------------------------------------------------ the command line


def test_a_roll_from_the_command_line_against_a_target_with_pool_and_editing() -> None:
    """Seed: Action Rolls are 2d10 roll-under, Q = target - roll; a bonus pool reads the
    Sphere chart (pool 3: +3); Editing Points +1 each. 14 + 3 + 2 = 19; 5+5 = 10: Q 9."""
    rolled = GAME.roll("14", TypedFaces([5, 5]), options={"pool": 3, "editing": 2})
    assert rolled.text == "2d10 5+5 = 10 vs target 14 + pool 3 (+3) + editing +2 = 19: success, Q 9"
    assert (rolled.ruleset, rolled.dice, rolled.success, rolled.margin) == ("brandx", [5, 5], True, 9)
    assert rolled.fields == {"total": 10, "target": 19, "q": 9, "base": 14, "pool": 3, "pool_bonus": 3, "editing": 2}
    missed = GAME.roll("7", TypedFaces([5, 5]))
    assert missed.text == "2d10 5+5 = 10 vs target 7 = 7: failure, missed by 3"
    assert (missed.success, missed.margin) == (False, -3)
    assert missed.fields == {"total": 10, "target": 7, "q": -3, "base": 7, "pool": 0, "pool_bonus": 0, "editing": 0}
    # A 1 is rolled again and the new face subtracted.
    rerolled = GAME.roll("12", TypedFaces([1, 6, 4]))
    assert rerolled.text == "2d10 1+6, reroll 4 subtracted = 3 vs target 12 = 12: success, Q 9"
    assert rerolled.dice == [1, 6, 4]


def test_a_knowledge_roll_from_the_command_line_is_d100() -> None:
    """Seed: "Knowledge Rolls use d100. Ones do not reduce the die roll": tens 3, units 7:
    37 against 45: Q 8; tens 10 and units 10 read 00, that is 100."""
    rolled = GAME.roll("45", TypedFaces([3, 7]), options={"kind": "knowledge"})
    assert rolled.text == "d100 3,7 -> 37 vs target 45 = 45: success, Q 8"
    assert (rolled.dice, rolled.success, rolled.margin) == ([3, 7], True, 8)
    assert rolled.fields["total"] == 37
    top = GAME.roll("45", TypedFaces([10, 10]), options={"kind": "knowledge", "pool": 1})
    assert top.text == "d100 10,10 -> 100 vs target 45 + pool 1 (+1) = 46: failure, missed by 54"


def test_the_command_lines_options_are_checked_by_name() -> None:
    for spec, options, words in (
        ("1.5", None, "brandx TARGET: expected a whole number such as 15, got '1.5'"),
        ("14", {"kind": "skill"}, "--set kind=skill: expected action or knowledge"),
        ("14", {"pool": 1, "colour": "red"}, "brandx: unknown option 'colour' (options: pool, editing, kind)"),
        ("14", {"pool": "1.5"}, "brandx: --pool and editing take whole numbers"),
        ("14", {"editing": "0.5"}, "brandx: --pool and editing take whole numbers"),
        ("lots", None, "brandx TARGET: expected a number such as 42 or 0.5, got 'lots'"),
        ("14", {"pool": "lots"}, "--pool: expected a number such as 42 or 0.5, got 'lots'"),
        ("14", {"editing": "many"}, "--set editing: expected a number such as 42 or 0.5, got 'many'"),
    ):
        with pytest.raises(TrackerError) as refused:
            GAME.roll(spec, TypedFaces([5, 5]), options=options)
        assert str(refused.value) == words
        with pytest.raises(TrackerError) as refused:
            GAME.chance(spec, options=options)
        assert str(refused.value) == words
    with pytest.raises(TrackerError, match=r"^brandx: opposed rolls are declared in an encounter \(arm-wrestle\); --vs is not used$"):
        GAME.roll("14", TypedFaces([5, 5]), vs="12")
    with pytest.raises(TrackerError, match=r"^brandx: odds of opposed rolls are not offered; give a TARGET$"):
        GAME.chance("14", vs="12")


def test_the_exact_odds_add_the_pool_on_the_sphere_chart_and_editing() -> None:
    """A pool of -3 reads row -3 (negative pools mirrored): 12 - 3 = 9. A Knowledge Roll's
    chance is the score out of 100, at most certain."""
    assert GAME.chance("14") == chance_at_most(14)
    assert GAME.chance("14", options={"pool": 10, "editing": 1}) == chance_at_most(14 + 9 + 1)  # Sphere(10): row 9
    assert GAME.chance("12", options={"pool": -3}) == chance_at_most(9)
    assert GAME.chance("45", options={"kind": "knowledge"}) == Fraction(45, 100)
    assert GAME.chance("45", options={"kind": "knowledge", "pool": 2, "editing": 3}) == Fraction(50, 100)
    assert GAME.chance("150", options={"kind": "knowledge"}) == 1


# ------------------------------------------------------------------ tracker chart


def test_a_chart_read_forward_gives_the_row_and_the_entry_matched() -> None:
    """`tracker chart sphere 42`: the largest entry at or below 42 is 32, row 13. Names
    are read in any case. 0 is row 0; a fraction reads the fractional column (0.5: row -2,
    0.42); a negative value mirrors (-50: row -14, its negative entry -43)."""
    assert GAME.chart_lookup(" Sphere ", "42") == {"chart": "sphere", "value": 42, "reverse": False, "row": 13,
                                                    "result": 13, "entry": 32}
    assert GAME.chart_lookup("square", "0") == {"chart": "square", "value": 0, "reverse": False, "row": 0,
                                                "result": 0, "entry": 0}
    assert GAME.chart_lookup("sphere", "0.5") == {"chart": "sphere", "value": 0.5, "reverse": False, "row": -2,
                                                  "result": -2, "entry": 0.42}
    assert GAME.chart_lookup("sphere", "-50") == {"chart": "sphere", "value": -50, "reverse": False, "row": -14,
                                                  "result": -14, "entry": -43}
    assert GAME.chart_lookup("sphere", "-3")["entry"] == -3
    # Between row 0's fraction (0.75) and 1: row 0, its fraction matched.
    assert GAME.chart_lookup("sphere", "0.8") == {"chart": "sphere", "value": 0.8, "reverse": False, "row": 0,
                                                  "result": 0, "entry": 0.75}
    assert GAME.chart_lookup("doubles", "-0.5")["entry"] == 0
    assert GAME.chart_lookup("doubles", "5")["entry"] == 4
    # A house row 0 whose negative entry is -1: a value just below 0 reads it; 0 itself is 0.
    house = BrandXRuleset({"sphere": {"0": {"fraction": 0.75, "negative": -1}}})
    assert house.chart_lookup("sphere", "-0.5")["entry"] == -1
    assert house.chart_lookup("sphere", "0")["entry"] == 0


def test_a_chart_read_in_reverse_gives_the_rows_entry_and_its_negative() -> None:
    assert GAME.chart_lookup("sphere", "13", reverse=True) == {"chart": "sphere", "value": 13, "reverse": True, "row": 13,
                                                               "result": 32}
    assert GAME.chart_lookup("SPHERE", "-3", reverse=True) == {"chart": "sphere", "value": -3, "reverse": True, "row": -3,
                                                               "result": 0.32, "negative": -3}
    assert GAME.chart_lookup("doubles", "0", reverse=True) == {"chart": "doubles", "value": 0, "reverse": True, "row": 0,
                                                               "result": 0.5, "negative": 0}
    assert "negative" not in GAME.chart_lookup("doubles", "1", reverse=True)
    with pytest.raises(TrackerError, match=r"^chart sphere --reverse ROW: expected a whole Result row, got '2.5'$"):
        GAME.chart_lookup("sphere", "2.5", reverse=True)


def test_the_ep_chart_by_row() -> None:
    """Seed: Hand Damage "starts at 3 EP (Row 7)"; the Combat Roll "costs 1 EP (it starts
    at Row 5)"; a held-back Hand Damage of 6 "only costs 1 EP for every 5 attacks" (row 4)."""
    assert GAME.chart_lookup("EP", "7") == {"chart": "ep", "value": 7, "reverse": False, "result": "3 EP",
                                            "ep_per_use": 3.0, "fraction": "3/1"}
    assert GAME.chart_lookup("ep", "4", reverse=True) == {"chart": "ep", "value": 4, "reverse": False,
                                                          "result": "1 EP per 5 uses", "ep_per_use": 0.2, "fraction": "1/5"}
    assert GAME.chart_lookup("ep", "0")["result"] == "free"
    with pytest.raises(TrackerError, match=r"^chart ep ROW: expected a whole row number, got '2.5'$"):
        GAME.chart_lookup("ep", "2.5")
    with pytest.raises(TrackerError, match=r"^chart 'Cube': expected one of square, sphere, doubles, result or ep$"):
        GAME.chart_lookup("Cube", "3")


# ------------------------------------------------------------------ the declare form


def _request(s: Session, actor: str, template: str, targets: list[str], params: dict[str, str]) -> ActionRequest:
    request, _ = s.request(actor, template, targets, params)
    return request


def _resolved(s: Session, request: ActionRequest, faces: list[int]) -> Any:
    from dataclasses import replace

    return s.ruleset.resolve(replace(request, pt=request.pt or s.ruleset.default_pt(request)), TypedFaces(faces))


def test_the_q_line_after_a_roll_names_the_uses_and_where_unplaced_q_goes() -> None:
    """Q is placed after the roll is seen; unplaced Q goes to the action's usual use
    (Attack for a Combat Roll, speed for a Move Roll). Attack per opponent is offered only
    against several. Nothing is offered after a failure or Q 0."""
    s = session("add A combat_roll=10 learning=0 ep=80", "add X vp=50", "add Y vp=50")
    punch = _request(s, "A", "punch", ["X"], {"throwback": "false"})
    assert s.ruleset.after_roll(punch, _resolved(s, punch, [2, 3])) == (
        "Q 5 to place on speed, Attack, Defense, Damage, EP, saved; unplaced Q goes to Attack")
    sweep = _request(s, "A", "punch", ["X", "Y"], {"throwback": "false"})
    assert s.ruleset.after_roll(sweep, _resolved(s, sweep, [2, 2])) == (
        "Q 5 to place on speed, Attack, Attack per opponent, Defense, Damage, EP, saved; unplaced Q goes to Attack")
    assert s.ruleset.after_roll(punch, _resolved(s, punch, [5, 5])) == ""  # Q 0
    assert s.ruleset.after_roll(punch, _resolved(s, punch, [4, 5])).startswith("Q 1 to place on speed, Attack, ")
    assert s.ruleset.after_roll(punch, _resolved(s, punch, [5, 6])) == ""  # missed by 1
    move = _request(s, "A", "move", [], {})
    assert s.ruleset.after_roll(move, _resolved(s, move, [2, 2])).endswith("; unplaced Q goes to speed")
    assert ", turning, " in s.ruleset.after_roll(move, _resolved(s, move, [2, 2]))
    ability = _request(s, "A", "ability", [], {"ability": "agility"})
    assert s.ruleset.after_roll(ability, _resolved(s, ability, [2, 2])) == (
        "Q 6 to place on speed, Defense, EP, saved; unplaced Q goes to nothing (left unspent)")
    power = _request(s, "A", "power", [], {"pr": "5"})
    assert s.ruleset.after_roll(power, _resolved(s, power, [])) == ""  # nothing to place


def test_a_maintained_link_offers_no_q() -> None:
    s = session("add Sun-Ruler agility=12 learning=10 ep=60", "add X vp=100",
                "declare Sun-Ruler blast target=X pr=12 damage=5 throwback=false faces=2,2", "next")
    request = _link_request(s, "Sun-Ruler")
    assert s.ruleset.after_roll(request, last_resolution(s)) == ""


def last_resolution(s: Session) -> Any:
    return s.encounter.actions[-1].resolution


def _link_request(s: Session, actor: str, params: dict[str, str] | None = None) -> ActionRequest:
    from tracker.play import requests
    from tracker.play.requests import MAINTAIN

    return requests.build(s.policy, s.ruleset, s.encounter, requests.Attempt(MAINTAIN, actor, params=params or {})).request


def test_a_links_chance_and_note_say_which_roll_it_carries_and_whether_it_hits() -> None:
    """Seed: "the same Attack is used" with "a penalty of 2 to the Attack for each
    successive action". The blast rolled 2+2 = 4 against 13 (Q 9, all to Attack: 9): the
    link is certain (chance 1) with Attack 7, which meets X's Defense 0 but not a stated 8."""
    s = session("add Sun-Ruler agility=12 learning=10 ep=60", "add X vp=100",
                "declare Sun-Ruler blast target=X pr=12 damage=5 throwback=false faces=2,2", "next")
    request = _link_request(s, "Sun-Ruler")
    assert s.ruleset.chance_of(request) == 1
    assert s.ruleset.chance_note(request) == (
        "carries the success of segment 0's Combat Roll (rolled 4 against 13); Attack +7 vs X's Defense +0 now: "
        "a hit as things stand")
    stated = _link_request(s, "Sun-Ruler", {"defense": "8"})
    assert s.ruleset.chance_note(stated) == (
        "carries the success of segment 0's Combat Roll (rolled 4 against 13); Attack +7 vs X's Defense +8 (stated) "
        "now: a miss as things stand")
    level = _link_request(s, "Sun-Ruler", {"defense": "7"})  # Attack 7 meets Defense 7
    assert s.ruleset.chance_note(level).endswith("Attack +7 vs X's Defense +7 (stated) now: a hit as things stand")
    s.execute("maintain Sun-Ruler")
    s.execute("next")
    assert s.ruleset.chance_note(_link_request(s, "Sun-Ruler")).endswith("Attack +5 vs X's Defense +0 now: a hit as things stand")
    s.execute("declare X move q_defense=4 faces=2,2")  # Defense +2 against all
    assert s.ruleset.chance_note(_link_request(s, "Sun-Ruler")).endswith(
        "Attack +5 vs X's Defense +2 (moving +2) now: a hit as things stand")
    s.execute("remove X")
    assert s.ruleset.chance_note(_link_request(s, "Sun-Ruler")) == (
        "carries the success of segment 0's Combat Roll (rolled 4 against 13)")


def test_a_missed_blasts_link_is_a_certain_miss() -> None:
    s = session("add Sun-Ruler agility=12 learning=10 ep=60", "add X vp=100",
                "declare Sun-Ruler blast target=X pr=12 damage=5 throwback=false faces=8,9", "next")
    assert s.ruleset.chance_of(_link_request(s, "Sun-Ruler")) == 0


def test_the_chance_line_of_an_attack_adds_the_chance_to_hit_as_things_stand() -> None:
    """Seed: "The character's Attack must be greater than or equal to the opponent's
    Defense." A (Combat Roll 10, no pool) against X moving with Defense +2 (4 Q): Q 2 or
    more hits, a total of 8 or less; stated Defense 5: 5 or less. A skill has no such line."""
    s = session("add A combat_roll=10 learning=0 ep=80", "add X agility=10 strength=10 vp=50",
                "declare X move q_defense=4 faces=2,2")
    punch = _request(s, "A", "punch", ["X"], {})
    assert s.ruleset.chance_to_hit(punch) == chance_at_most(8)
    assert s.ruleset.chance_note(punch) == f"to hit X (Defense +2, moving +2 now): {float(chance_at_most(8)):.2%}"
    stated = _request(s, "A", "blast", ["X"], {"pr": "10", "defense": "5"})
    assert s.ruleset.chance_to_hit(stated) == chance_at_most(5)
    assert s.ruleset.chance_note(stated) == f"to hit X (Defense +5, stated now): {float(chance_at_most(5)):.2%}"
    assert s.ruleset.chance_note(_request(s, "A", "skill", [], {"roll": "12"})) == ""
    assert s.ruleset.chance_note(_request(s, "A", "punch", [], {})) == ""
    assert s.ruleset.chance_of(punch) == chance_at_most(10)
    assert s.ruleset.chance_of(_request(s, "A", "power", [], {"pr": "4"})) is None


# ------------------------------------------------------------------ the game's hooks


def _c(name: str, **resources: int) -> Combatant:
    return Combatant(name, {}, dict(resources), dict(resources))


def test_damage_by_hand_lands_on_vp_and_overflows_to_dp_as_a_blow_does() -> None:
    """Damage goes to VP and what VP cannot take goes through to DP; `resource=dp` puts
    it on DP. A combatant without DP takes it on VP alone; without VP, the first of the
    game's `down_when` it has (DP), else its first resource."""
    both = _c("A", vp=10, dp=5, ep=30)
    assert GAME.damage_rule(both, 3) == ManualDamage("vp", "dp")
    assert GAME.damage_rule(both, 3, "vp") == ManualDamage("vp", "dp")
    assert GAME.damage_rule(both, 3, "dp") == ManualDamage("dp")
    assert GAME.damage_rule(both, 3, "ep") == ManualDamage("ep")
    assert GAME.damage_rule(_c("B", vp=10, ep=30), 3) == ManualDamage("vp")
    assert GAME.damage_rule(_c("C", ep=30, dp=4), 3) == ManualDamage("dp")
    assert GAME.damage_rule(_c("D", ep=30), 3) == ManualDamage("ep")
    with pytest.raises(TrackerError, match=r"^B has no resource 'dp' \(has: vp, ep\)$"):
        GAME.damage_rule(_c("B", vp=10, ep=30), 3, "dp")
    s = session("add A vp=10 dp=5")
    s.execute("damage A 12")
    assert dict(s.encounter.combatant("A").resources) == {"vp": 0, "dp": 3, "ep": 30}


def test_dropping_a_power_is_passive_unless_a_mode_is_typed() -> None:
    power = GAME.template("power")
    assert GAME.params(power, {"stop": "true", "label": "Fire Coat"})["mode"] == PASSIVE
    assert GAME.params(power, {"stop": "true", "mode": "active"})["mode"] == "active"
    assert GAME.params(power, {"stop": "false", "pr": "3"}).get("mode") is None
    assert GAME.params(power, {"pr": "3"}).get("mode") is None
    move = GAME.template("move")
    assert "mode" not in GAME.params(move, {"stop": "true"})
    with pytest.raises(TrackerError, match=r"^maintain\.pr: expected an integer of at least 0, got 'x'$"):
        GAME.params(power, {"pr": "x"}, "maintain")
    with pytest.raises(TrackerError, match=r"^declare\.pr: expected an integer of at least 0, got 'x'$"):
        GAME.params(power, {"pr": "x"})


def test_hold_breath_is_named_with_a_space_an_underscore_or_a_dash() -> None:
    for name in ("hold breath", "hold_breath", "hold-breath", " Hold Breath ", "HOLD_BREATH"):
        assert GAME.template(name).name == "hold-breath"
    assert GAME.template("arm wrestle").name == "arm-wrestle"
    with pytest.raises(TrackerError, match=r"^brandx has no action 'hold--breath' \(actions: punch, strike, blast, "):
        GAME.template("hold  breath")


def test_blasts_are_maintained_and_hand_attacks_only_under_the_house_rule() -> None:
    """Seed: "Most blast/ray attack powers can be maintained"; punches and hand-weapon
    strikes under the table's `maintain_hand_attacks` (off by default)."""
    for name in ("punch", "strike"):
        assert GAME.maintainable(GAME.template(name), {}) is False
        assert GAME.maintainable(GAME.template(name), {"maintain_hand_attacks": True}) is True
        assert GAME.maintainable(GAME.template(name), {"maintain_hand_attacks": False}) is False
    assert GAME.maintainable(GAME.template("blast"), {}) is True
    assert GAME.maintainable(GAME.template("blast"), {"maintain_hand_attacks": False}) is True
    assert GAME.maintainable(GAME.template("power"), {"maintain_hand_attacks": True}) is False


def test_maintaining_what_cannot_be_maintained_is_refused_by_name() -> None:
    punch = GAME.template("punch")
    actor = _c("A", vp=10)
    from tracker.engine.effects import Resolution
    from tracker.engine.model import Action

    prev = Action(1, "A", "punch", ACTIVE, 15, 0, 15, ("X",), Resolution(pt=15, details={"attack_base": 1, "q": 1}))
    link = ActionRequest(punch, actor, (_c("X", vp=5),), {}, previous=prev, pt=4)
    with pytest.raises(TrackerError) as refused:
        GAME.maintain(link, TypedFaces([]))
    assert str(refused.value) == (
        "punch cannot be maintained: Brand X maintains blast and ray powers (\"Most blast/ray attack powers can be "
        "maintained\"); a table whose house rules maintain hand attacks turns on the setting maintain_hand_attacks "
        "(`setting maintain_hand_attacks true`)")
    with pytest.raises(TrackerError, match=r"^punch cannot be maintained: Brand X maintains blast"):
        GAME.chance_of(link)
    power = GAME.template("power")
    with pytest.raises(TrackerError, match=r"^power cannot be maintained$"):
        GAME.maintain(ActionRequest(power, actor, previous=prev, pt=5), TypedFaces([]))
    allowed = ActionRequest(punch, actor, (_c("X", vp=5),), {}, settings={"maintain_hand_attacks": True}, previous=prev, pt=4)
    assert GAME.chance_of(allowed) == 1
    assert GAME.maintain(allowed, TypedFaces([10, 10])).details["attack"] == 1 - 2


def test_an_action_with_no_rule_is_refused_by_name() -> None:
    dance = ActionTemplate("dance", ACTIVE, 10)
    with pytest.raises(TrackerError, match=r"^Brand X has no rule for 'dance'$"):
        GAME.resolve(ActionRequest(dance, _c("A", vp=1), pt=10), TypedFaces([]))


def test_the_game_reads_its_charts_once_and_with_the_gms_house_rows() -> None:
    """A GM's house-rules file overrides a row: Sphere row 9 = 12 makes 12 read row 9."""
    game = BrandXRuleset({"sphere": {"9": 12}})
    assert game.charts is game.charts and game.ep_chart is game.ep_chart
    assert game.charts.sphere(12) == 9 and GAME.charts.sphere(12) == 9 and GAME.charts.sphere(11) == 9
    assert game.charts.sphere(11) == 8
    game.check_tables()
    request = ActionRequest(GAME.template("punch"), _c("A", vp=1))
    ctx = game.ctx(request)
    assert isinstance(ctx, Ctx)
    assert (ctx.charts, ctx.ep_chart, ctx.tables, ctx.request) == (game.charts, game.ep_chart, game.tables, request)
    assert GAME.default_pt(ActionRequest(GAME.template("discernment"), _c("A", vp=1))) == 6
    with pytest.raises(TrackerError):
        BrandXRuleset({"sphere": {"9": "lots"}}).check_tables()


# ------------------------------------------------------------------ how the game declares its fields


def test_the_helpers_that_declare_the_sheet_the_modifiers_and_the_actions() -> None:
    """A stat: a whole number from 0 to 1000 by default; a modifier: no default, at least
    0 unless told, no maximum; a modifier is placed after the roll when it places Q
    (`q_...`, the opponent's `vs_q_...`) or slows by it (`slow`)."""
    assert brandx._stat("grit", 7, "how gritty") == Field("grit", "int", 7, 0, 1000, role=STAT, help="how gritty")
    assert brandx._stat("reach", 1.5, "m", "float", 0.5, 9) == Field("reach", "float", 1.5, 0.5, 9, role=STAT, help="m")
    assert brandx._p("tries", "how many") == Field("tries", "int", None, 0, None, (), role=PARAM, help="how many")
    assert brandx._p("side", "which", "choice", None, 3, ("l", "r")) == Field(
        "side", "choice", None, None, 3, ("l", "r"), role=PARAM, help="which")
    field = brandx._p("tries", "how many")
    template = brandx._t("dance", PASSIVE, 7, "a dance", "2d10", "row 9", (field,), targets=1)
    assert template == ActionTemplate("dance", PASSIVE, 7, "a dance", "2d10", "row 9", targets=1, params=(field,))
    assert [name for name in ("q_attack", "vs_q_cut", "slow", "pool", "vs_cut", "slower", "quick") if brandx.after_roll_param(name)] == [
        "q_attack", "vs_q_cut", "slow"]


def test_an_arm_wrestle_offers_its_q_when_both_lift_rolls_succeed_whoever_is_ahead() -> None:
    """Seed, Opposed Actions: "If one fails, then that person loses. ... If both succeed,
    they can use the Q to reduce the EP used, as normal, and Q can also be used to reduce
    the opponent's Q, at a 2 to 1 ratio." An arm-wrestle succeeds when the actor wins, so
    its Q line follows the two Lift Rolls, not who is ahead: A and B (strength 20, mass
    70: 20 - 9 + Sphere(70) 15 = 26) both roll 10+10 = 20, Q 6 each: neither can cut the
    other below 0 (it takes 14), nobody has won, and A still places its 6 Q. A rolling
    2+2 (Q 22) wins by cutting 14 unless it places its Q otherwise (q_cut=0): then nobody
    has won yet, and its Q is still A's to place; a side with Q 0 has succeeded too.
    Against C (strength 5: 5 - 9 + 15 = 11),
    who fails with 20, A wins outright: no Q to place (C "loses")."""
    s = session("add A strength=20 mass=70 ep=50", "add B strength=20 mass=70 ep=50", "add C strength=5 mass=70 ep=50")
    wrestle = _request(s, "A", "arm-wrestle", ["B"], {})
    level = _resolved(s, wrestle, [10, 10, 10, 10])
    assert level.success is False and level.details["winner"] == ""
    assert s.ruleset.after_roll(wrestle, level) == (
        "Q 6 to place on EP, cutting the opponent's Q; unplaced Q goes to nothing (left unspent)")
    ahead = _resolved(s, wrestle, [2, 2, 10, 10])
    assert ahead.success is True and ahead.details["winner"] == "A"
    line = "Q 22 to place on EP, cutting the opponent's Q; unplaced Q goes to nothing (left unspent)"
    assert s.ruleset.after_roll(wrestle, ahead) == line
    held = _request(s, "A", "arm-wrestle", ["B"], {"q_cut": "0"})
    held_back = _resolved(s, held, [2, 2, 10, 10])
    assert held_back.success is False and held_back.details["winner"] == ""
    assert s.ruleset.after_roll(held, held_back) == line
    # D (strength 14: 14 - 9 + 15 = 20) rolls 10+10 = 20, Q 0: both succeed, A's 6 Q
    # are to place (its default cut of 2 takes D below 0).
    s.execute("add D strength=14 mass=70 ep=50")
    even = _request(s, "A", "arm-wrestle", ["D"], {})
    at_zero = _resolved(s, even, [10, 10, 10, 10])
    assert at_zero.details["vs_q"] == 0 and at_zero.details["winner"] == "A"
    assert s.ruleset.after_roll(even, at_zero).startswith("Q 6 to place on EP, cutting the opponent's Q")
    outright = _request(s, "A", "arm-wrestle", ["C"], {})
    won = _resolved(s, outright, [2, 2, 10, 10])
    assert won.success is True and won.details["winner"] == "A"
    assert s.ruleset.after_roll(outright, won) == ""
