"""Every judgment at landing, for Brand X and USOR (DESIGN 3): the dice a landing may
need (Brand X: the target's Throwback Roll; USOR: the dodge, damage and Defense dice)
are asked for at declaration whatever the state then says, and used or not when the
blow lands, against the state at the start of that segment. So shuffling one
segment's declarations never changes the outcome.

Each declaration's faces come group by group from its own seeded stream: if the groups
asked for depended on the state at declaration (and so on the typing order), the faces
read, and the outcome, would follow the typing order. Throwback is on throughout.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulesets.base import Ruleset
from rulesets.brandx import BrandXRuleset
from rulesets.usor import UsorRuleset
from tests.helpers import session_for
from tests.test_rules_landing import state
from tests.test_rules_seeds import faces_for
from tracker.engine import TrackerError

# (actor, template, targets, params, seed of its dice); a seed may carry the first faces
# the declaration reads, as (seed, (face, face)), so the search can steer a Combat Roll
# into the narrow cases where a same-segment Defense decides a hit.
Declaration = tuple[str, str, tuple[str, ...], dict[str, Any], Any]
Plan = tuple[list[str], list[Declaration]]


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
    return adds, declares


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
    return adds, declares


STRATEGIES: dict[str, tuple[Callable[[], Ruleset], Any]] = {
    "brandx": (BrandXRuleset, brandx_plan()),
    "usor": (UsorRuleset, usor_plan()),
}


def _run(ruleset: Callable[[], Ruleset], adds: list[str], declares: list[Declaration]) -> Any:
    s = session_for(ruleset(), *adds)
    for actor, template, targets, params, seed in declares:
        seed, head = seed if isinstance(seed, tuple) else (seed, ())
        rng, first = random.Random(seed), list(head)

        def pick(group: str, sides: int, first: list[int] = first, rng: random.Random = rng) -> int:
            return first.pop(0) if first and sides == 10 else rng.randint(1, sides)

        try:
            faces = faces_for(s, actor, template, list(targets), pick, params)
            s.declare(actor, template, list(targets), faces=faces, params=dict(params))
        except TrackerError:
            pass  # a rule may refuse one; it must then refuse it in every order
    s.execute("step 40")
    return s


@pytest.mark.parametrize("game", sorted(STRATEGIES))
def test_shuffling_a_segments_declarations_never_changes_the_outcome(game: str) -> None:
    ruleset, strategy = STRATEGIES[game]

    @settings(max_examples=60, deadline=None)
    @given(strategy, st.randoms(use_true_random=False))
    def check(plan: Plan, rnd: Any) -> None:
        adds, declares = plan
        shuffled = list(declares)
        rnd.shuffle(shuffled)
        first = _run(ruleset, adds, declares)
        second = _run(ruleset, adds, shuffled)
        assert state(first.encounter) == state(second.encounter)

    check()
