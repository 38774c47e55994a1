"""Brand X blows are judged when they land (issue 12, rule 1; docs/contributing/design.md#judged-on-landing).

The seed: Defense bought with Q lasts "for the duration of the action", so an attack
is judged against the Defense in force at the start of its completion segment, and
damage against what the target has then: never by the order declarations were typed.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from rulesets.brandx import BrandXRuleset
from tracker.engine import Encounter
from tests.helpers import session_for

FIGHTER = "combat_roll=11 learning=0 ep=100 hand_damage=5 vp=40"


def state(enc: Encounter) -> dict[str, Any]:
    return {
        name: (dict(c.resources), c.airborne_until, dict(c.conditions), c.down,
               sorted((a.template, a.status, a.completes) for a in enc.actions if a.actor == name))
        for name, c in enc.combatants.items()
    }


def test_two_punches_on_one_segment_give_the_same_result_in_either_order() -> None:
    """Issue 12: B ended on 40 VP one way and 35 the other."""
    results = []
    for lines in (["declare B punch target=A faces=3,3,10,10 q_defense=2", "declare A punch target=B faces=5,6,10,10"],
                  ["declare A punch target=B faces=5,6,10,10", "declare B punch target=A faces=3,3,10,10 q_defense=2"]):
        s = session_for(BrandXRuleset(), f"add A {FIGHTER}", f"add B {FIGHTER} side=foes", *lines, "next")
        results.append(state(s.encounter))
    assert results[0] == results[1]
    # B's Defense +1 (2 Q) is in force when A's punch lands: Attack +0 misses.
    assert results[0]["B"][0]["vp"] == 40 and results[0]["A"][0]["vp"] == 35


def test_defense_gained_after_the_attack_was_rolled_still_counts_when_it_lands() -> None:
    """Defense "for the duration of the action": B starts a defensive punch after A rolled."""
    s = session_for(BrandXRuleset(), f"add A {FIGHTER}", f"add B {FIGHTER} side=foes",
                    "declare A punch target=B faces=5,6,10,10 q_speed=0", "step 2",
                    "declare B punch target=A faces=2,2,10,10 q_defense=4 q_attack=3")
    s.execute("next")
    assert s.encounter.combatant("B").resources["vp"] == 40
    assert any("vs B's Defense +2" in e.text and e.text.endswith("miss") for e in s.encounter.log)


def test_damage_lands_against_the_vp_the_target_has_when_it_lands() -> None:
    """A blow rolled against 40 VP lands on a target already down to 3: the rest goes to DP."""
    s = session_for(BrandXRuleset(), f"add A {FIGHTER}", f"add B {FIGHTER} side=foes",
                    "declare A punch target=B faces=5,5 throwback=false")
    s.execute("damage B 37")
    s.execute("next")
    b = s.encounter.combatant("B")
    assert b.resources["vp"] == 0 and b.resources["dp"] == 15 - (5 - 3)


def test_replay_judges_the_same_way() -> None:
    s = session_for(BrandXRuleset(), f"add A {FIGHTER}", f"add B {FIGHTER} side=foes",
                    "declare B punch target=A faces=3,3,10,10 q_defense=2", "declare A punch target=B faces=2,2,10,10", "next")
    again = Encounter(s.encounter.setup, s.encounter.events)
    assert state(again) == state(s.encounter)


THROWBACK_ADDS = ["add A combat_roll=5 hand_damage=30 learning=0",
                  "add B combat_roll=15 learning=0 side=foes",
                  "add C combat_roll=5 vp=50 dp=100 mass=70 strength=10 learning=0 side=foes"]


def test_the_throwback_roll_is_made_at_declaration_whatever_the_defence_then() -> None:
    """Issue 21: C's own punch lowers C's Defense, so A's blow hits only if C's punch
    was typed first; typed A first, the Throwback Roll was never made.

    C rolls 6+6 = 12 against 5: missed by 7, dealt out Attack, Damage, Defense, Attack,
    ...: Attack -3, Damage -2, Defense -2 halved toward zero = -1 (seed: "apply the
    negative Q evenly to Attack, then Damage, then Defense ... Defense Q is still divided
    by 2 and rounded towards 0"). A rolls 3+3 = 6 against 5: missed by 1, Attack -1.
    -1 >= -1: "The character's Attack must be greater than or equal to the opponent's
    Defense", a hit for Hand Damage 30 to DP. Seed: "The Throwback Roll is the
    character's Mass, on the Sphere Chart ... There is a penalty to the roll of the
    damage done ... If the character took DP from the attack, the bonus must be
    strength": Sphere(70) = 15 + Sphere(10) = 9 - 30 = -6; rolled 2+2 = 4, missed by 10:
    "look this up from the Result Column of the Action Chart to the Sphere Column, for
    the speed in meters/segment and the distance": Sphere row 10 = 14 m. C's own punch
    needs its Throwback Roll for B too (9,9), whatever the state then says."""
    c_punch = "declare C punch target=B faces=6,6,9,9"
    a_punch = "declare A punch target=C to=dp faces=3,3,2,2"
    results = []
    for lines in ([c_punch, a_punch], [a_punch, c_punch]):
        s = session_for(BrandXRuleset(), *THROWBACK_ADDS, *lines, "next")
        c = s.encounter.combatant("C")
        assert c.resources["dp"] == 70 and c.resources["vp"] == 50
        assert any("C is thrown back 14 m at 14 m/segment" in e.text for e in s.encounter.log), [e.text for e in s.encounter.log]
        assert not any("the GM rolls it" in e.text for e in s.encounter.log)
        results.append(state(s.encounter))
    assert results[0] == results[1]


def test_a_throwback_roll_made_up_front_is_not_used_when_the_blow_misses_at_landing() -> None:
    """The same blow, but C does not punch: C's Defense stays 0, A's Attack -1 misses,
    and the Throwback Roll (2+2, which would throw) is not used."""
    s = session_for(BrandXRuleset(), *THROWBACK_ADDS, "declare A punch target=C to=dp faces=3,3,2,2", "next")
    c = s.encounter.combatant("C")
    assert c.resources["dp"] == 100 and c.airborne_until in (None, -1)
    assert any("A's punch lands: Attack -1 vs C's Defense +0: miss" in e.text for e in s.encounter.log)
    assert not any("thrown back" in e.text for e in s.encounter.log)


PLAN = st.lists(
    st.tuples(st.integers(2, 10), st.integers(2, 10), st.integers(0, 4), st.integers(0, 3), st.booleans()),
    min_size=2, max_size=4,
)


@settings(max_examples=25, deadline=None)
@given(PLAN, st.randoms(use_true_random=False))
def test_permuting_the_declarations_made_on_one_segment_never_changes_the_state(plan: list[tuple[int, int, int, int, bool]], rnd: Any) -> None:
    names = [f"F{i}" for i in range(len(plan))]
    adds = [f"add {n} {FIGHTER} vp={12 + 4 * i}" + (" side=foes" if i % 2 else "") for i, n in enumerate(names)]
    declares = []
    for i, (a, b, q_def, q_speed, sweep) in enumerate(plan):
        targets = [n for n in names if n != names[i]]
        aim = ",".join(targets if sweep else targets[:1])
        declares.append(f"declare {names[i]} punch target={aim} faces={a},{b} q_defense={q_def} q_speed={q_speed} throwback=false")
    shuffled = list(declares)
    rnd.shuffle(shuffled)
    first = session_for(BrandXRuleset(), *adds, *declares, "step 30")
    second = session_for(BrandXRuleset(), *adds, *shuffled, "step 30")
    assert state(first.encounter) == state(second.encounter)


def test_a_stored_blow_the_judge_cannot_read_is_refused_by_name() -> None:
    import copy

    from tracker.engine import TrackerError

    s = session_for(BrandXRuleset(), f"add A {FIGHTER}", f"add B {FIGHTER} side=foes",
                    "declare A punch target=B faces=2,2,10,10")
    events = copy.deepcopy(s.encounter.events)
    declare = next(e for e in events if e.kind == "declare")
    res = declare.args["resolution"]
    res.details["hits"][0]["attack"] = "lots"
    again = Encounter(s.encounter.setup, events)
    import pytest

    before = state(again)
    with pytest.raises(TrackerError, match="cannot be judged"):
        again.apply(type(declare)("advance", {"to": 20}))
    assert state(again) == before and again.now == 0


def test_ore_wound_boxes_fill_in_resolution_order_not_typing_order() -> None:
    """docs/contributing/design.md#judged-on-landing: damage is judged against what the target has when the blow lands."""
    from rulesets.ore import OreRuleset

    results = []
    for order in (0, 1):
        # Both reach C's torso (7-9), whose 3 boxes cannot hold both blows.
        lines = ["declare A punch target=C faces=7,7,7,1,2", "declare B punch target=C damage='width killing' faces=8,8,1,2,3"]
        if order:
            lines.reverse()
        s = session_for(OreRuleset(), "add A body=5d brawling=0d", "add B body=5d brawling=0d", "add C body=2d torso=3",
                        *lines, "next")
        results.append(state(s.encounter))
    assert results[0] == results[1]


def test_ore_boxes_are_marked_against_the_boxes_the_target_has_when_the_blow_lands() -> None:
    """A hit rolled against 10 empty torso boxes lands after the GM marked 9 of them."""
    from rulesets.ore import OreRuleset

    s = session_for(OreRuleset(), "add A body=5d brawling=0d", "add C body=2d",
                    "declare A punch target=C damage='width killing' faces=8,8,1,2,3")
    s.execute("damage C 9 resource=torso")
    s.execute("next")
    c = s.encounter.combatant("C")
    assert c.resources["torso"] == 0 and c.resources["torso_k"] >= 0  # never below an empty box


def test_d6_a_dodge_typed_after_the_attack_on_the_same_segment_counts() -> None:
    """docs/contributing/design.md#judged-on-landing: the hit is judged against the defence in force when the blow lands."""
    from rulesets.d6 import D6Ruleset
    from tests.test_rules_seeds import faces_for

    results = []
    for attack_first in (True, False):
        s = session_for(D6Ruleset(), "add Han melee=3D", "add Vader dodge=3D", wild_die=True)
        dodge = "declare Vader dodge faces=6,5,5,5"
        if not attack_first:
            s.execute(dodge)
        faces = faces_for(s, "Han", "strike", ["Vader"], lambda group, sides: 4)
        s.declare("Han", "strike", ["Vader"], faces=faces)
        if attack_first:
            s.execute(dodge)  # 6 explodes to 11, + 5 + 5 = 21: Han's 12 no longer hits
        s.execute("step 12")
        results.append(state(s.encounter))
        assert any("lands" in e.text and "miss" in e.text for e in s.encounter.log)
    assert results[0] == results[1]
