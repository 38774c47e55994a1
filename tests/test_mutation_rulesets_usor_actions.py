"""USOR's strike judged as it lands (`rulesets/usor/actions.py`, `judge_strike`), tested
directly for the mutation run: the records an older or hand-edited save may hold (no
blows, no outcome, no damage dice, no damage figure) and an attacker gone from the
fight. Bad input never crashes: each says what it can in the log.

Jennie (attack 20, damage 24) strikes Steve's right arm (dodge 16, parry 2, Defense 14),
as worked in tests/test_seeds_usor.py from the seed's chart rows: faces 5, 9, 2, 7 are
a hit with NOST 1, then 15, 9, 1, 2 are 2 damage; faces 1, 9, 5, 7 are Steve's dodge.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from rulesets.usor import UsorRuleset
from rulesets.usor.actions import judge_strike
from tracker.engine.effects import Blow, Damage, Note
from tests.helpers import session_for

JENNIE = "add Jennie attack=20 damage=24"
STEVE = "add Steve dodge=16 parry=2 vitality=10 armor=1 natural_armor=3"
HIT = "5,9,2,7,15,9,1,2"
DODGED = "1,9,5,7,15,9,1,2"


def declared(faces: str) -> tuple[Any, Any]:
    """The session and Jennie's strike at Steve's right arm, declared with `faces`."""
    s = session_for(UsorRuleset(), JENNIE, STEVE)
    s.execute(f"declare Jennie strike target=Steve location=right_arm faces={faces}")
    return s, s.encounter.actions[-1]


def edited(action: Any, **record: Any) -> Any:
    """The action with its blow's record edited as a save could hold it (None: left out)."""
    details = dict(action.resolution.details)
    hit = dict(details["hits"][0])
    for key, value in record.items():
        if value is None:
            hit.pop(key, None)
        else:
            hit[key] = value
    details["hits"] = [hit]
    return replace(action, resolution=replace(action.resolution, details=details))


def test_a_save_without_its_blows_record_says_so_and_does_not_crash() -> None:
    """A resolution with no "hits" at all (a hand-edited save): no record of the blow."""
    s, action = declared(HIT)
    details = {k: v for k, v in action.resolution.details.items() if k != "hits"}
    bare = replace(action, resolution=replace(action.resolution, details=details))
    assert judge_strike(s.encounter, bare, Blow("Steve", 0)) == [Note("Jennie's strike: no record of its blow on Steve")]


def test_a_strike_whose_attacker_left_the_fight_lapses_by_name() -> None:
    s, action = declared(HIT)
    s.execute("remove Jennie")
    assert "Jennie" not in s.encounter.combatants
    assert judge_strike(s.encounter, action, Blow("Steve", 0)) == [
        Note("Jennie's strike at Steve lapses: Jennie is not in the fight")]


def test_a_miss_saved_without_its_outcome_lands_as_no_hit() -> None:
    """The dodged strike's record without its "outcome" text: it lands as "no hit"."""
    s, action = declared(DODGED)
    assert judge_strike(s.encounter, edited(action, outcome=None), Blow("Steve", 0)) == [
        Note("Jennie's strike at Steve lands: no hit")]


def test_a_hit_saved_without_its_damage_dice_leaves_the_blow_to_the_gm() -> None:
    """A hit whose record holds only the strike and dodge ratings (no damage or Defense
    dice were rolled): the log says so and nothing is taken off."""
    s, action = declared(HIT)
    older = edited(action, ratings={"strike": 14, "dodge": 18})
    assert judge_strike(s.encounter, older, Blow("Steve", 0)) == [Note(
        "Jennie's strike at Steve lands, but no damage dice were rolled (an older save) since it was rolled: "
        "the faces were rolled for the old rating's dice, so the GM rolls it again (`roll usor RATING --vs RATING`) "
        "and applies the damage by hand (`damage Steve N resource=right_arm`)")]


def test_a_hit_saved_without_its_damage_figure_does_no_damage() -> None:
    """A hit with its ratings unchanged but no "damage" figure: no damage was worked out,
    so none is taken (never a guessed point)."""
    s, action = declared(HIT)
    assert judge_strike(s.encounter, edited(action, damage=None), Blow("Steve", 0)) == [
        Note("Jennie's strike at Steve lands: hit, the Defense holds: no damage")]
    # The record as declared: 2 damage dice successes over none of Defense's.
    assert judge_strike(s.encounter, action, Blow("Steve", 0)) == [
        Note("Jennie's strike at Steve lands: hit for 2 to the right arm"), Damage("Steve", 2, "right_arm")]
