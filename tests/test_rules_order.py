"""Every judgment at landing, in every game (docs/contributing/design.md#judged-on-landing): the dice a landing may need are
rolled at declaration whatever the state then says, and whether they are used is
decided when the blow lands, against the state at the start of that segment. So the
order in which one segment's declarations were typed never changes the outcome.

The regression cases are the ones an audit found typing-order dependent; the property
test declares random actions of every template of each game, shuffles each segment's
declarations, and compares the final states. A game joins it with a strategy in
`STRATEGIES`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulesets.brandx import BrandXRuleset
from rulesets.d6 import D6Ruleset
from rulesets.freeform import FreeformRuleset
from rulesets.ogs import OgsRuleset
from rulesets.ore import OreRuleset
from rulesets.usor import UsorRuleset
from rulesets.base import Ruleset
from tracker.engine import Encounter
from tracker.persistence import codec
from tests.helpers import session_for


def state(enc: Encounter) -> dict[str, Any]:
    """What the fight looks like, leaving out the ids and order of the actions."""
    return {
        name: (dict(c.resources), c.airborne_until, dict(c.conditions), c.down,
               sorted((a.template, a.status, a.completes) for a in enc.actions if a.actor == name))
        for name, c in enc.combatants.items()
    }


def both_orders(ruleset: Callable[[], Ruleset], adds: list[str], first: str, second: str, after: str = "next") -> list[Any]:
    """The sessions with `first` then `second` typed, and the other way round."""
    return [session_for(ruleset(), *adds, *lines, after) for lines in ([first, second], [second, first])]


# ------------------------------------------------------------------ D6
D6_ADDS = ["add A coordination=3D weapon=4D", "add C reflexes=3D side=foes"]
D6_DODGE = "declare C dodge faces=2,1,2"
D6_SHOT = "declare A shoot target=C faces=2,3,3,3,3,3,3,2,2,2"


def test_d6_damage_dice_are_rolled_at_declaration_whatever_the_defence_then() -> None:
    """C's dodge 2+1+2 = 5 (reflexes 3D: "add to the total result you roll on the dice").
    A's marksmanship (coordination 3D) 2+3+3 = 8 against 5: result points 3, one fifth
    rounded up = +1 damage. Damage 4D 3+3+3+3 = 12 + 1 = 13; C's resistance Physique 3D
    2+2+2 = 6; 7 over: Wounded (4-8 over). Typed A first, the shot would miss C's passive
    10, but its damage dice are rolled all the same, and at landing the dodge counts."""
    for s in both_orders(D6Ruleset, D6_ADDS, D6_DODGE, D6_SHOT):
        c = s.encounter.combatant("C")
        assert c.resources["wounds"] == 2, [e.text for e in s.encounter.log]  # 4 healthy - 2 = Wounded
        assert any("lands: 8 vs C's active dodge 5" in e.text and "damage 13" in e.text and "7 over: C is Wounded" in e.text
                   for e in s.encounter.log)
        assert not any("the GM rolls it" in e.text for e in s.encounter.log)
    first, second = both_orders(D6Ruleset, D6_ADDS, D6_DODGE, D6_SHOT)
    assert state(first.encounter) == state(second.encounter)


def test_d6_a_dodge_typed_after_the_shot_does_not_say_success_then_miss() -> None:
    """A shot of 12 typed, then C's dodge of 14 on the same segment: the shot lands as a
    miss by 2, and its completion never announced a success first."""
    adds = ["add A coordination=3D weapon=4D", "add C reflexes=3D side=foes"]
    s = session_for(D6Ruleset(), *adds, "declare A shoot target=C faces=4,4,4,1,1,1,1,1,1,1",
                    "declare C dodge faces=5,5,4", "next")
    texts = [e.text for e in s.encounter.log]
    assert "A's shoot completes" in texts
    assert not any(t.startswith("A's shoot completes:") for t in texts)
    assert any("lands: 12 vs C's active dodge 14" in t and "miss by 2" in t for t in texts)
    assert s.encounter.combatant("C").resources["wounds"] == 4


def test_d6_every_group_is_asked_for_even_when_the_shot_misses_as_things_stand() -> None:
    from tests.test_rules_seeds import faces_for

    s = session_for(D6Ruleset(), *D6_ADDS, "declare C dodge faces=6,6,6")  # 18: the shot cannot hit now
    asked: list[str] = []
    faces_for(s, "A", "shoot", ["C"], lambda group, sides: asked.append(group) or 1)
    groups = list(dict.fromkeys(asked))
    assert [g.split(":")[0] for g in groups] == ["A's shoot (marksmanship) 3D roll", "A's damage 4D roll", "C's resistance 3D roll"]


# ------------------------------------------------------------------ ORE
def test_ore_gobble_dice_count_whichever_was_typed_first() -> None:
    """C's dodge 8,8,8,1,2 is 3x8: three gobble dice at height 8, each taking "one die
    from a set no higher". A's punch 7,7,1,2,3 is 2x7 (width 2 < 3, so it resolves after
    the dodge); one gobble die leaves 1x7, no set: spoiled, C unhurt, in either order."""
    adds = ["add A body=3d brawling=2d", "add C coordination=3d dodge=2d side=foes"]
    for s in both_orders(OreRuleset, adds, "declare C dodge faces=8,8,8,1,2", "declare A punch target=C faces=7,7,1,2,3"):
        c = s.encounter.combatant("C")
        assert c.resources["torso"] == c.maxima["torso"] and c.resources["torso_k"] == c.maxima["torso"]
        assert any("C's dodge gobbles 1: width 2 -> 1: spoiled" in e.text for e in s.encounter.log)
    first, second = both_orders(OreRuleset, adds, "declare C dodge faces=8,8,8,1,2", "declare A punch target=C faces=7,7,1,2,3")
    assert state(first.encounter) == state(second.encounter)


def test_ore_sets_of_equal_width_and_height_happen_at_once_whichever_was_typed_first() -> None:
    """Seed 003: "the wider roll goes first and takes effect as normal"; "if width is a
    tie, just look at the height of the rolls". A's and B's strikes both roll 10,10,3,2,1:
    2x10, the head (height 10); width+2 killing = 4 Killing fills each 4-box head. Equal
    width and equal height: neither goes first, so both land and both die, in either
    order (before, the one typed first killed the other, whose strike was interrupted)."""
    adds = ["add A body=3d melee=2d weapon='width+2 killing'", "add B body=3d melee=2d weapon='width+2 killing' side=foes"]
    a, b = "declare A strike target=B faces=10,10,1,2,3", "declare B strike target=A faces=10,10,1,2,3"
    for s in both_orders(OreRuleset, adds, a, b):
        texts = [e.text for e in s.encounter.log]
        assert "A's strike lands on B: 2x10 hits the head for 0 shock, 4 killing" in texts
        assert "B's strike lands on A: 2x10 hits the head for 0 shock, 4 killing" in texts
        assert not any("interrupted" in t for t in texts), texts
        assert all(c.down and c.resources["head_k"] == 0 for c in s.encounter.combatants.values())
    first, second = both_orders(OreRuleset, adds, a, b)
    assert state(first.encounter) == state(second.encounter)
    assert [e.text for e in first.encounter.log[4:]] == [e.text for e in second.encounter.log[4:]]


def test_ore_a_wider_set_still_goes_first() -> None:
    """"The wider roll goes first": A's 3x10 (10,10,10,1,2) against B's 2x10: A's lands
    first and B, dead, loses its strike, typed in either order."""
    adds = ["add A body=3d melee=2d weapon='width+2 killing'", "add B body=3d melee=2d weapon='width+2 killing' side=foes"]
    for s in both_orders(OreRuleset, adds, "declare A strike target=B faces=10,10,10,1,2", "declare B strike target=A faces=10,10,1,2,3"):
        assert s.encounter.combatant("B").down and not s.encounter.combatant("A").down
        assert "B is down; strike interrupted" in [e.text for e in s.encounter.log]


# ------------------------------------------------------------------ USOR
USOR_ADDS = ["add A attack=16 damage=24", "add B attack=16 dodge=16 damage=24 side=foes"]


def test_usor_damage_and_defense_are_rolled_at_declaration_even_for_a_miss() -> None:
    """Seed 000: "Any roll (regardless of the number of sides of the die rolled) that is
    4 or greater, counts as a Success" and "The character wins if his/her Number of
    Successes is greater than the rival Event Roll's". A's strike 16 [1d8+1d12] 1,1: no
    success; B's dodge 16 [1d8+1d12] 4,4: two; B dodges with NOST 2 - 0 = 2. A's damage
    24 [2d20] 20,20 (two) against B's Defense 10 [1d4+1d12] 1,1 (none) would be 2 to the
    chest: they are rolled at declaration all the same, and unused at landing, where the
    strike still misses. B's strike at A (16 vs A's dodge 10 [1d4+1d12]): 4,4 against
    1,1, NOST 2; damage 20,20 against A's Defense 1,1: 2 - 0 = 2 to A's chest (10 -> 8).
    Typed in either order, the same dice are asked and the same state results."""
    miss = "declare A strike target=B faces=1,1,4,4,20,20,1,1"
    hit = "declare B strike target=A faces=4,4,1,1,20,20,1,1"
    for s in both_orders(UsorRuleset, USOR_ADDS, miss, hit):
        texts = [e.text for e in s.encounter.log]
        assert "A's strike at B lands: B dodges (NOST 2)" in texts, texts
        assert "B's strike at A lands: hit for 2 to the chest" in texts, texts
        assert s.encounter.combatant("B").resources["chest"] == 10
        assert s.encounter.combatant("A").resources["chest"] == 8
        a = next(x for x in s.encounter.actions if x.actor == "A")
        assert a.resolution.dice == (1, 1, 4, 4, 20, 20, 1, 1)
        assert "damage rolled all the same, used only on a hit" in a.resolution.summary
    first, second = both_orders(UsorRuleset, USOR_ADDS, miss, hit)
    assert state(first.encounter) == state(second.encounter)


def test_usor_a_strike_that_missed_at_declaration_lands_as_a_miss_unless_a_rating_changed() -> None:
    """Whether the blow hits is read at landing from the ratings then: unchanged, the
    faces decide (a miss); a GM's change to B's dodge (16 -> 20, other dice) before it
    lands is named and left to the GM, since the faces were rolled for the old dice."""
    s = session_for(UsorRuleset(), *USOR_ADDS, "declare A strike target=B faces=1,1,4,4,20,20,1,1", "set B dodge 20", "next")
    texts = [e.text for e in s.encounter.log]
    assert any(t.startswith("A's strike at B lands, but dodge 16 -> 20 since it was rolled") for t in texts), texts
    assert s.encounter.combatant("B").resources["chest"] == 10


# ------------------------------------------------------------------ the property
# A declaration: (actor, template, targets, params, seed of its dice); a seed may carry
# the first d10 faces the declaration reads, as (seed, (face, face)), so the search can
# steer a Brand X Combat Roll into the narrow cases where a same-segment Defense decides
# a hit (and so whether the Throwback Roll made up front is used).
Declaration = tuple[str, str, tuple[str, ...], dict[str, Any], Any]
Plan = tuple[list[str], list[Declaration], dict[str, Any]]  # adds, declarations, settings


def _names(n: int) -> list[str]:
    return [f"F{i}" for i in range(n)]


def _other(draw: Any, names: list[str], i: int) -> str:
    return names[(i + 1 + draw(st.integers(0, len(names) - 2))) % len(names)]


@st.composite
def d6_plan(draw: Any) -> Plan:
    names = _names(draw(st.integers(2, 4)))
    adds = [f"add {name} coordination=3D reflexes=3D melee=2D weapon=3D physique=2D body_points=12" + (" side=foes" if i % 2 else "")
            for i, name in enumerate(names)]
    declares: list[Declaration] = []
    for i, name in enumerate(names):
        kind = draw(st.sampled_from(["shoot", "strike", "dodge", "parry", "check", "effect", "move"]))
        seed = draw(st.integers(0, 10**6))
        if kind in ("shoot", "strike"):
            declares.append((name, kind, (_other(draw, names, i),), {}, seed))
        elif kind == "check":
            declares.append((name, kind, (), {"difficulty": draw(st.integers(1, 20))}, seed))
        elif kind == "effect":
            declares.append((name, kind, (), {"code": "2D+1", "carry": draw(st.booleans())}, seed))
        else:
            declares.append((name, kind, (), {}, seed))
    return adds, declares, {"damage_system": draw(st.sampled_from(["wounds", "body_points"])), "wild_die": draw(st.booleans())}


@st.composite
def ore_plan(draw: Any) -> Plan:
    names = _names(draw(st.integers(2, 4)))
    adds = [f"add {name} body=3d coordination=2d brawling=2d melee=1d dodge=2d block=1d ranged=2d"
            f" weapon='width killing' gun='width+1 killing' lar={draw(st.integers(0, 1))}" + (" side=foes" if i % 2 else "")
            for i, name in enumerate(names)]
    declares: list[Declaration] = []
    for i, name in enumerate(names):
        kind = draw(st.sampled_from(["punch", "strike", "shoot", "dodge", "block", "check", "contest", "move"]))
        seed = draw(st.integers(0, 10**6))
        if kind in ("punch", "strike", "shoot", "contest"):
            also = {"also": "dodge"} if kind == "punch" and draw(st.booleans()) else {}
            declares.append((name, kind, (_other(draw, names, i),), also, seed))
        elif kind == "check":
            declares.append((name, kind, (), {"difficulty": draw(st.integers(1, 6))}, seed))
        else:
            declares.append((name, kind, (), {}, seed))
    return adds, declares, {}


@st.composite
def ogs_plan(draw: Any) -> Plan:
    names = _names(draw(st.integers(2, 4)))
    adds = [f"add {name} stat=d6 skill=d8 force=d6 enhancement=d4 damage=d6 defense={draw(st.integers(6, 12))} hp=12"
            + (" side=foes" if i % 2 else "") for i, name in enumerate(names)]
    declares: list[Declaration] = []
    for i, name in enumerate(names):
        kind = draw(st.sampled_from(["attack", "power", "check", "contest", "open", "move"]))
        seed = draw(st.integers(0, 10**6))
        if kind in ("attack", "power", "contest"):
            declares.append((name, kind, (_other(draw, names, i),), {}, seed))
        elif kind == "open":
            declares.append((name, kind, (_other(draw, names, i),), {"dice": "2d4"}, seed))
        else:
            declares.append((name, kind, (), {}, seed))
    return adds, declares, {}


@st.composite
def freeform_plan(draw: Any) -> Plan:
    names = _names(draw(st.integers(2, 4)))
    adds = [f"add {name} hp=6" + (" side=foes" if i % 2 else "") for i, name in enumerate(names)]
    declares: list[Declaration] = []
    for i, name in enumerate(names):
        kind = draw(st.sampled_from(["attack", "cast", "move", "defend"]))
        targets = (_other(draw, names, i),) if kind in ("attack", "cast") else ()
        params = {"damage": draw(st.integers(0, 7))} if targets else {}
        declares.append((name, kind, targets, params, 0))
    return adds, declares, {}


def _others(draw: Any, names: list[str], i: int, most: int) -> tuple[str, ...]:
    rest = names[i + 1:] + names[:i]
    return tuple(rest[: draw(st.integers(1, min(most, len(rest))))])


@st.composite
def brandx_plan(draw: Any) -> Plan:
    """Fighters who punch (one or several opponents, Defense bought with Q), blast, throw,
    move with Defense, or jump, on one segment; some are light enough to be thrown."""
    names = [f"F{i}" for i in range(draw(st.integers(2, 4)))]
    adds = []
    for i, name in enumerate(names):
        adds.append(
            f"add {name} combat_roll={draw(st.integers(3, 9))} learning=0 ep=100 strength={draw(st.integers(3, 20))} "
            f"mass={draw(st.sampled_from([20, 50, 70, 120]))} hand_damage={draw(st.integers(0, 40))} "
            f"vp={draw(st.integers(0, 30))} dp={draw(st.integers(5, 40))}" + (" side=foes" if i % 2 else ""))
    declares: list[Declaration] = []
    for i, name in enumerate(names):
        kind = draw(st.sampled_from(["punch", "punch", "strike", "blast", "throw", "move", "jump"]))
        seed = (draw(st.integers(0, 10**6)), (draw(st.integers(2, 10)), draw(st.integers(2, 10))))
        if kind in ("punch", "strike"):
            params = {"q_defense": str(draw(st.integers(0, 4))), "to": draw(st.sampled_from(["vp", "dp"]))}
            declares.append((name, kind, _others(draw, names, i, 2), params, seed))
        elif kind == "blast":
            declares.append((name, kind, _others(draw, names, i, 1), {"pr": str(draw(st.integers(4, 14))), "damage": str(draw(st.integers(1, 25)))}, seed))
        elif kind == "throw":
            declares.append((name, kind, _others(draw, names, i, 1), {"weight": "1", "damage": str(draw(st.integers(1, 20)))}, seed))
        elif kind == "move":
            declares.append((name, kind, (), {"q_defense": str(draw(st.integers(0, 6)))}, seed))
        else:
            declares.append((name, kind, (), {}, seed))
    return adds, declares, {}


@st.composite
def usor_plan(draw: Any) -> Plan:
    names = [f"F{i}" for i in range(draw(st.integers(2, 4)))]
    adds = [f"add {name} attack={draw(st.integers(5, 40))} dodge={draw(st.integers(5, 40))} damage={draw(st.integers(5, 40))} "
            f"vitality={draw(st.integers(1, 20))} critical_strike={draw(st.sampled_from(['true', 'false']))}"
            for name in names]
    declares: list[Declaration] = []
    for i, name in enumerate(names):
        kind = draw(st.sampled_from(["strike", "strike", "check", "contest", "move"]))
        seed = draw(st.integers(0, 10**6))
        if kind == "strike":
            params = {"location": draw(st.sampled_from(["chest", "head", "left_arm"])), "stun": draw(st.sampled_from(["true", "false"]))}
            declares.append((name, kind, _others(draw, names, i, 1), params, seed))
        elif kind == "contest":
            declares.append((name, kind, _others(draw, names, i, 1), {}, seed))
        elif kind == "check":
            declares.append((name, kind, (), {"against": str(draw(st.integers(5, 40)))}, seed))
        else:
            declares.append((name, kind, (), {}, seed))
    return adds, declares, {}


STRATEGIES: dict[str, tuple[Callable[[], Ruleset], Any]] = {
    "brandx": (BrandXRuleset, brandx_plan()),
    "usor": (UsorRuleset, usor_plan()),
    "d6": (D6Ruleset, d6_plan()),
    "ore": (OreRuleset, ore_plan()),
    "ogs": (OgsRuleset, ogs_plan()),
    "freeform": (FreeformRuleset, freeform_plan()),
}


def _run(ruleset: Callable[[], Ruleset], adds: list[str], declares: list[Declaration], settings_: dict[str, Any]) -> Any:
    """Declare each in turn, its faces drawn group by group from its own seeded stream:
    if the groups asked for depended on the state, the faces (and the outcome) would
    follow the typing order."""
    import random

    from tests.test_rules_seeds import faces_for
    from tracker.engine import TrackerError

    s = session_for(ruleset(), *adds, **settings_)
    s.asked = {}  # type: ignore[attr-defined]  # each declarer's dice groups, as a form asks them
    for actor, template, targets, params, seed in declares:
        seed, head = seed if isinstance(seed, tuple) else (seed, ())
        rng, first = random.Random(seed), list(head)

        def pick(group: str, sides: int, first: list[int] = first, rng: random.Random = rng, actor: str = actor) -> int:
            s.asked.setdefault(actor, []).append(group)  # type: ignore[attr-defined]
            return first.pop(0) if first and sides == 10 else rng.randint(1, sides)

        try:
            faces = faces_for(s, actor, template, list(targets), pick, params)
            s.declare(actor, template, list(targets), faces=faces, params=dict(params))
        except TrackerError:
            pass  # a rule may refuse one; it must then refuse it in every order
    s.execute("step 25")
    return s


@pytest.mark.parametrize("game", sorted(STRATEGIES))
def test_shuffling_a_segments_declarations_never_changes_the_outcome(game: str) -> None:
    ruleset, strategy = STRATEGIES[game]

    @settings(max_examples=30, deadline=None)
    @given(strategy, st.randoms(use_true_random=False))
    def check(plan: Plan, rnd: Any) -> None:
        adds, declares, settings_ = plan
        shuffled = list(declares)
        rnd.shuffle(shuffled)
        first = _run(ruleset, adds, declares, settings_)
        second = _run(ruleset, adds, shuffled, settings_)
        assert state(first.encounter) == state(second.encounter)
        # Everything a landing may need is asked at declaration whatever the state then:
        # the dice asked of each declarer never depend on what was typed before it.
        assert first.asked == second.asked
        # What a landing reads is stored: the fight saves, loads and replays the same.
        saved = codec.loads(codec.dumps(first.encounter, len(first.encounter.events))).encounter
        assert state(saved) == state(first.encounter)

    check()
