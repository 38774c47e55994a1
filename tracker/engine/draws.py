"""The draws of a player's app dice that are in force (decision 0049).

A player's app dice come from a stream per combatant (`rulesets.dice.KeyedDice`), taken
a draw at a time: the declaration (or maintenance, or proposal) that used draw n says so
(`draw = n`), and while it stands or waits, n is in force on the combatant. A change
taken back (undone, or a proposal withdrawn, lapsed or refused) frees its draw, so the
next declaration is served the same faces; the GM's `reroll` sets the next draw aside.
Plain functions over `Combatant.draws` (a frozenset, so a checkpoint shares it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tracker.engine import bounds
from tracker.engine.errors import RuleRefusal
from tracker.engine.model import Combatant


def next_draw(c: Combatant) -> int:
    """The draw the next declaration for `c` is served: the first not in force."""
    draws, n = c.draws, 0
    while n in draws:
        n += 1
    return n


def check(c: Combatant, args: Mapping[str, Any]) -> int | None:
    """The change's draw (None: no app dice of a player's), refused if already in force."""
    draw = args.get("draw")
    if draw is None:
        return None
    bounds.count(draw, "draw")
    if draw in c.draws:
        raise RuleRefusal("app dice", f"{c.name}'s app dice of draw {draw} are in use by another change; declare again")
    return int(draw)


def hold(c: Combatant, draw: int | None) -> None:
    if draw is not None:
        c.draws = c.draws | {draw}


def release(c: Combatant | None, args: Mapping[str, Any]) -> None:
    """A change that will not be applied frees its draw (the faces stand for the next)."""
    draw = args.get("draw")
    if c is not None and draw is not None:
        c.draws = c.draws - {draw}
