"""Brand X blows are judged when they land (issue 12, rule 1; DESIGN 3 revised).

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
    for lines in (["declare B punch target=A faces=3,3 q_defense=2", "declare A punch target=B faces=5,6"],
                  ["declare A punch target=B faces=5,6", "declare B punch target=A faces=3,3 q_defense=2"]):
        s = session_for(BrandXRuleset(), f"add A {FIGHTER}", f"add B {FIGHTER} side=foes", *lines, "next")
        results.append(state(s.encounter))
    assert results[0] == results[1]
    # B's Defense +1 (2 Q) is in force when A's punch lands: Attack +0 misses.
    assert results[0]["B"][0]["vp"] == 40 and results[0]["A"][0]["vp"] == 35


def test_defense_gained_after_the_attack_was_rolled_still_counts_when_it_lands() -> None:
    """Defense "for the duration of the action": B starts a defensive punch after A rolled."""
    s = session_for(BrandXRuleset(), f"add A {FIGHTER}", f"add B {FIGHTER} side=foes",
                    "declare A punch target=B faces=5,6 q_speed=0", "step 2",
                    "declare B punch target=A faces=2,2 q_defense=4 q_attack=3")
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
                    "declare B punch target=A faces=3,3 q_defense=2", "declare A punch target=B faces=2,2", "next")
    again = Encounter(s.encounter.setup, s.encounter.events)
    assert state(again) == state(s.encounter)


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
