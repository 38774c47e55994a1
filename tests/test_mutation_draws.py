"""The draws of a player's app dice in force (tracker/engine/draws.py, decision 0049).

Expected values come from the module docstring: the change that used draw n says so
(`draw = n`) and n is in force while it stands or waits; a change taken back (undone,
or a proposal withdrawn, lapsed or refused) frees its draw, so the next declaration is
served the same faces; the GM's `reroll` sets the next draw aside.
"""

from __future__ import annotations

from typing import Any

import pytest

from tracker.engine import Event, Resolution, draws
from tracker.engine.errors import RuleRefusal, TrackerError
from tracker.engine.model import Combatant
from tests.helpers import encounter as make
from tests.test_engine_checkpoints import state


def _ann(*held: int) -> Combatant:
    c = Combatant("Ann", {}, {}, {})
    c.draws = frozenset(held)
    return c


def test_the_next_draw_is_the_first_not_in_force() -> None:
    assert draws.next_draw(_ann()) == 0
    assert draws.next_draw(_ann(0, 1, 3)) == 2
    assert draws.next_draw(_ann(1)) == 0
    assert draws.next_draw(_ann(0, 1, 2)) == 3


def test_a_change_without_a_draw_holds_none() -> None:
    assert draws.check(_ann(0), {}) is None
    assert draws.check(_ann(0), {"draw": None}) is None


def test_a_draw_in_force_or_out_of_bounds_is_refused() -> None:
    with pytest.raises(RuleRefusal) as used:
        draws.check(_ann(0, 2), {"draw": 2})
    assert str(used.value) == "Ann's app dice of draw 2 are in use by another change; declare again (rule: app dice)"
    assert used.value.rule == "app dice"
    for bad in (-1, True, 1.5, "1"):
        with pytest.raises(TrackerError) as refused:
            draws.check(_ann(), {"draw": bad})
        assert str(refused.value) == f"draw: expected a whole number from 0 to 1,000,000,000,000, got {bad!r}"
    assert draws.check(_ann(0, 2), {"draw": 1}) == 1
    assert draws.check(_ann(), {"draw": 0}) == 0


def test_hold_and_release_change_the_draws_in_force() -> None:
    c = _ann(1)
    before = c.draws
    draws.hold(c, None)
    assert c.draws is before
    draws.hold(c, 0)
    assert c.draws == {0, 1} and before == {1}  # a new set: a checkpoint shares the old one
    draws.release(c, {"draw": 1})
    assert c.draws == {0}
    draws.release(c, {})
    draws.release(c, {"draw": None})
    assert c.draws == {0}
    draws.release(None, {"draw": 0})  # the combatant has left: nothing to free
    draws.release(c, {"draw": 5})  # not in force: nothing changes
    assert c.draws == {0}


def _declare(enc: Any, draw: int | None, actor: str = "Ann") -> Event:
    args: dict[str, Any] = {"actor": actor, "template": "hit", "mode": "active", "resolution": Resolution(pt=2)}
    if draw is not None:
        args["draw"] = draw
    return enc.apply(Event("declare", args))


def test_a_declarations_draw_stands_until_it_is_undone() -> None:
    enc = make("Ann", "Bo")
    _declare(enc, 0)
    assert enc.combatants["Ann"].draws == {0}
    enc.apply(Event("advance", {"to": 2}))
    before = state(enc)
    with pytest.raises(RuleRefusal) as refused:
        _declare(enc, 0)
    assert str(refused.value) == "Ann's app dice of draw 0 are in use by another change; declare again (rule: app dice)"
    assert state(enc) == before
    _declare(enc, 0, "Bo")  # each combatant has a stream of its own
    _declare(enc, 1)
    assert enc.combatants["Ann"].draws == {0, 1}
    enc.apply(Event("undo", {}))
    assert enc.combatants["Ann"].draws == {0}


def test_the_gms_reroll_sets_the_next_draw_aside() -> None:
    enc = make("Ann")
    _declare(enc, 0)
    enc.apply(Event("reroll", {"target": "Ann"}))
    assert enc.combatants["Ann"].draws == {0, 1}
    assert enc.log[-1].text == "the GM sets aside Ann's standing app dice (draw 1): the next roll is a new one"
    assert draws.next_draw(enc.combatants["Ann"]) == 2
