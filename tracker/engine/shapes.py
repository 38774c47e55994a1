"""The shapes of event arguments as a save holds them: what each key expects, in words
for a refusal and as a check.

A shape is a pair (what is expected, in words; a test of a value). The checkers are
plain loops rather than `all(...)` over a generator: they run for every key of every
event when a long fight is opened (tracker.persistence.codec). The table of event kinds
(tracker.engine.kinds) names, per kind, the shape of each argument and whether it is
required.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

Shape = tuple[str, Callable[[Any], bool]]
# An argument of an event: its shape and whether the event must have it.
Arg = tuple[Shape, bool]

INT_MIN, INT_MAX = -(2**63), 2**63 - 1


def fits(value: Any) -> bool:
    """A number TOML can hold: a 64-bit integer or a finite float (bools are fine)."""
    if isinstance(value, bool):
        return True
    if isinstance(value, int):
        return INT_MIN <= value <= INT_MAX
    if isinstance(value, float):
        return math.isfinite(value)
    return True


def is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and INT_MIN <= v <= INT_MAX


def is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and fits(v)


def is_str(v: Any) -> bool:
    return isinstance(v, str)


def is_bool(v: Any) -> bool:
    return isinstance(v, bool)


def is_table(v: Any) -> bool:
    return isinstance(v, dict)


def is_strs(v: Any) -> bool:
    if not isinstance(v, list):
        return False
    for x in v:
        if not isinstance(x, str):
            return False
    return True


def is_ints(v: Any) -> bool:
    if not isinstance(v, list):
        return False
    for x in v:
        if x.__class__ is not int and not is_int(x):
            return False
        if not INT_MIN <= x <= INT_MAX:
            return False
    return True


def is_tables(v: Any) -> bool:
    if not isinstance(v, list):
        return False
    for x in v:
        if not isinstance(x, dict):
            return False
    return True


STR: Shape = ("text", is_str)
INT: Shape = ("an integer", is_int)  # within 64 bits
NUM: Shape = ("a finite number", is_num)
BOOL: Shape = ("true or false", is_bool)
TABLE: Shape = ("a table", is_table)
STRS: Shape = ("a list of names", is_strs)
ANY: Shape = ("a value", lambda v: True)
MODE: Shape = ("active or passive", lambda v: v == "active" or v == "passive")
# Who decided a declaration's faces (tracker.play.rolling): typed at the
# table, rolled by the app, or some of each.
DICE_MARK: Shape = ("typed, app or typed+app", lambda v: v in ("typed", "app", "typed+app"))


_CHANCE_FORM = re.compile(r"[0-9]{1,400}/[1-9][0-9]{0,400}")


def is_chance(v: Any) -> bool:
    """A chance of success as the declare form showed it: "n/d", from 0 to 1."""
    if v.__class__ is not str or not _CHANCE_FORM.fullmatch(v):
        return False
    numerator, denominator = v.split("/")
    return int(numerator) <= int(denominator)


CHANCE: Shape = ('a chance written "n/d", from 0 to 1', is_chance)

# A player's proposed change (and the GM's approval of it, possibly edited): the
# arguments of the declare, maintain or abort it stands for, and the faces rolled.
PROPOSED: dict[str, Arg] = {
    "actor": (STR, False),
    "params": (TABLE, False),
    "pt": (INT, False),
    "template": (STR, False),
    "mode": (MODE, False),
    "targets": (STRS, False),
    "companions": (STRS, False),
    "maintainable": (BOOL, False),
    "secret": (BOOL, False),
    "chance": (CHANCE, False),
    "resolution": (TABLE, False),
    "dice": (DICE_MARK, False),
    "draw": (INT, False),
    "faces": (("a list of integers", lambda v: isinstance(v, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in v)), False),
}

# The further targets of one damage event on several combatants: each its own resource.
DAMAGE_ALSO: Shape = (
    "a list of tables with a target, a resource and maybe an overflow (strings)",
    lambda v: isinstance(v, list)
    and all(
        isinstance(x, dict) and set(x) <= {"target", "resource", "overflow"} and {"target", "resource"} <= set(x) and all(isinstance(y, str) for y in x.values())
        for x in v
    ),
)
