"""The adapter side of the declare form: named dice groups in order, field stages,
choices after the roll, and manual damage through each game's damage rule."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from rulesets.base import ActionRequest, Ruleset
from rulesets.brandx import BrandXRuleset
from rulesets.d6 import D6Ruleset
from rulesets.dice import DiceNeeded, PromptingFaces, for_actor
from rulesets.fields import AFTER_ROLL, MAIN, MORE
from rulesets.ogs import OgsRuleset
from rulesets.ore import OreRuleset
from rulesets.registry import available, get
from rulesets.usor import UsorRuleset
from tracker.engine.errors import TrackerError
from tests.helpers import session_for


def prompts(ruleset: Ruleset, session: Any, actor: str, template: str, targets: list[str],
            faces: list[int] | Callable[[str], int], params: dict[str, Any] | None = None) -> list[str]:
    """Drive the resolution as a form would: each DiceNeeded names the next group,
    which is then 'typed' from `faces`. Returns the groups asked for, in order."""
    typed: list[int] = []
    asked: list[str] = []
    request, _ = session.request(actor, template, targets, params or {})
    while True:
        try:
            ruleset.resolve(request, for_actor(PromptingFaces(typed), actor))
            return asked
        except DiceNeeded as need:
            asked.append(need.group.text())
            count = len(need.group.sides) - len(need.have)
            if callable(faces):
                typed += [faces(need.group.text())] * count
                continue
            typed += faces[len(typed):len(typed) + count]
            assert len(typed) <= len(faces), f"ran out of faces after {asked}"


def test_brandx_punch_names_the_combat_roll_its_reroll_and_the_defenders_throwback() -> None:
    r = BrandXRuleset()
    s = session_for(r, "add Seraph combat_roll=11 learning=0 hand_damage=20 vp=30",
                    "add Brute combat_roll=11 vp=5 side=foes")
    asked = prompts(r, s, "Seraph", "punch", ["Brute"], [1, 3, 4, 9, 9])
    assert asked == [
        "Seraph's Combat Roll: 2d10",
        "Seraph's Combat Roll: reroll of a 1 (subtracted): 1d10",
        # The blow takes DP (20 against 5 VP), so the target's Throwback Roll follows.
        "Brute's Throwback Roll: 2d10",
    ]


def test_brandx_a_blow_that_misses_as_things_stand_still_asks_for_the_throwback_roll() -> None:
    """docs/contributing/design.md#judged-on-landing: every die a judgment may need when the blow lands is asked for at
    declaration, whatever the state then says (the Defense may fall before it lands)."""
    r = BrandXRuleset()
    s = session_for(r, "add Seraph combat_roll=11 learning=0", "add Brute side=foes")
    assert prompts(r, s, "Seraph", "punch", ["Brute"], [9, 9, 9, 9]) == [
        "Seraph's Combat Roll: 2d10", "Brute's Throwback Roll: 2d10"]
    # Only throwback=false (or the table's throwback setting off) spares it.
    assert prompts(r, s, "Seraph", "punch", ["Brute"], [9, 9], {"throwback": "false"}) == ["Seraph's Combat Roll: 2d10"]


def test_d6_wild_die_explosions_damage_and_the_targets_resistance_are_groups_in_order() -> None:
    r = D6Ruleset()
    s = session_for(r, "add Han marksmanship=5D weapon=4D", "add Trooper physique=2D side=foes", wild_die=True)
    asked = prompts(r, s, "Han", "shoot", ["Trooper"], [6, 3, 3, 3, 3, 6, 2, 4, 4, 4, 4, 2, 2], {})
    assert asked[0] == "Han's shoot (marksmanship) 5D roll (Wild Die first): 5d6"
    assert asked[1] == "Han's shoot (marksmanship) 5D: Wild Die explosion: 1d6"
    assert asked[2] == "Han's shoot (marksmanship) 5D: Wild Die explosion: 1d6"
    assert asked[3].startswith("Han's damage 4D roll (Wild Die first): 4d6")
    assert asked[-1].startswith("Trooper's resistance 2D roll")


def test_usor_strike_names_the_defenders_dodge_and_asks_for_damage_whatever_the_strike_does() -> None:
    """Every judgment at landing: damage and Defense are asked for at declaration even
    when the strike misses as things stand, so the dice asked never depend on the state."""
    r = UsorRuleset()
    s = session_for(r, "add A attack=17 damage=20", "add B dodge=16")
    hit = prompts(r, s, "A", "strike", ["B"], lambda group: 6 if group.startswith("A's") else 1)
    assert hit[0].startswith("A's strike (Event Chart row")
    assert hit[1].startswith("B's dodge (Event Chart row")
    assert hit[2].startswith("A's damage (Event Chart row")
    assert hit[3].startswith("B's Defense (Event Chart row")
    missed = prompts(r, s, "A", "strike", ["B"], lambda group: 6 if group.startswith("B's dodge") else 1)
    assert [g.split(" (")[0] for g in missed] == ["A's strike", "B's dodge", "A's damage", "B's Defense"]


def test_ogs_contest_names_the_rival() -> None:
    r = OgsRuleset()
    s = session_for(r, "add A", "add B")
    asked = prompts(r, s, "A", "contest", ["B"], [6, 6, 4, 1, 1, 1])
    assert asked == ["A's Opposed Check: 2d6+1d4", "B's Opposed Check: 2d6+1d4"]


def test_ore_pool_is_named_for_the_action() -> None:
    r = OreRuleset()
    s = session_for(r, "add A body=3d brawling=2d", "add B")
    assert prompts(r, s, "A", "punch", ["B"], [5, 5, 3, 2, 1]) == ["A's punch pool: 5d10"]


# ------------------------------------------------------------------- stages
@pytest.mark.parametrize("rid", sorted(available()))
def test_every_param_has_a_stage_and_every_action_with_params_shows_some_at_once(rid: str) -> None:
    ruleset = get(rid)
    for name, template in ruleset.catalogue().items():
        stages = {f.name: f.stage for f in template.params}
        assert set(stages.values()) <= {MAIN, MORE, AFTER_ROLL}, (rid, name)
        if template.params:
            assert MAIN in stages.values(), (rid, name)
            assert list(stages.values()).count(MAIN) <= 5, (rid, name, stages)


def test_brandx_q_and_ore_wiggle_are_chosen_after_the_roll() -> None:
    punch = BrandXRuleset().template("punch")
    after = {f.name for f in punch.params if f.stage == AFTER_ROLL}
    assert after == {"q_speed", "q_attack", "q_attacks", "q_defense", "q_damage", "q_ep", "q_save"}
    for name in ("punch", "dodge", "check"):
        wiggle = next(f for f in OreRuleset().template(name).params if f.name == "wiggle")
        assert wiggle.stage == AFTER_ROLL


# ------------------------------------------------------------------- after the roll
def _resolve(ruleset: Ruleset, session: Any, actor: str, template: str, targets: list[str], faces: list[int],
             params: dict[str, Any]) -> tuple[ActionRequest, Any]:
    request, _ = session.request(actor, template, targets, params)
    return request, ruleset.resolve(request, for_actor(PromptingFaces(faces), actor))


def test_brandx_q_is_placed_after_the_roll_with_the_same_faces() -> None:
    """docs/contributing/design.md#rules-decisions: "Q is spent after the roll is seen"."""
    r = BrandXRuleset()
    s = session_for(r, "add Seraph combat_roll=11 learning=0", "add Brute side=foes vp=50")
    request, first = _resolve(r, s, "Seraph", "punch", ["Brute"], [2, 3, 9, 9], {})
    assert first.margin == 6
    budget = r.after_roll(request, first)
    assert budget.startswith("Q 6 to place on speed, Attack, Defense, Damage, EP, saved")
    assert budget.endswith("unplaced Q goes to Attack")
    assert first.details["attack"] == 6  # by default all of it to Attack
    request, chosen = _resolve(r, s, "Seraph", "punch", ["Brute"], [2, 3, 9, 9], {"q_speed": 3, "q_defense": 2})
    assert chosen.dice == first.dice
    assert chosen.pt < first.pt and chosen.details["attack"] == 1 and chosen.details["defense"] == 1
    # Nothing to place after a miss.
    request, missed = _resolve(r, s, "Seraph", "punch", ["Brute"], [9, 9, 9, 9], {})
    assert r.after_roll(request, missed) == ""


def test_ore_wiggle_dice_are_set_after_the_roll() -> None:
    r = OreRuleset()
    s = session_for(r, "add A body=3d brawling=2d", "add B")
    request, first = _resolve(r, s, "A", "check", [], [5, 5, 3], {"pool": "3d+1wd"})
    assert r.after_roll(request, first).startswith("1 wiggle die to set")
    assert first.details["best"] == [3, 5]
    request, chosen = _resolve(r, s, "A", "check", [], [5, 5, 3], {"pool": "3d+1wd", "wiggle": "3"})
    assert chosen.details["best"] == [2, 5] or chosen.details["sets"] == [[2, 5], [2, 3]]


def test_games_without_after_roll_choices_offer_none() -> None:
    r = D6Ruleset()
    s = session_for(r, "add Han", "add T")
    request, res = _resolve(r, s, "Han", "check", [], [3, 3, 3], {"difficulty": 10})
    assert r.after_roll(request, res) == ""


# ------------------------------------------------------------------- manual damage
def test_brandx_d_damage_overflows_to_dp_as_a_punch_does() -> None:
    """Issue 9: `d` damage on a 30-VP combatant must overflow to DP, not take VP to -5."""
    s = session_for(BrandXRuleset(), "add A vp=30 dp=15")
    s.execute("damage A 35")
    a = s.encounter.combatant("A")
    assert a.resources["vp"] == 0 and a.resources["dp"] == 10


@pytest.mark.parametrize("line", ["heal A 5", "damage A -5"])
def test_healing_past_the_maximum_is_refused(line: str) -> None:
    s = session_for(BrandXRuleset(), "add A vp=50")
    before = len(s.encounter.events)
    with pytest.raises(TrackerError, match="would pass the maximum"):
        s.execute(line)
    assert s.encounter.combatant("A").resources["vp"] == 50 and len(s.encounter.events) == before
    s.execute("damage A 8")
    s.execute("heal A 8")
    assert s.encounter.combatant("A").resources["vp"] == 50
