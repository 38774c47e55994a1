"""The values a save holds, checked: every bad one is a SaveError naming the file, the
table and the key, and what was expected (tracker.persistence.codec reads a save with
these; the header and the event tables check their own keys with them).

Decisions: docs/decisions/0007-save-format.md, docs/decisions/0044-save-limits.md
"""

from __future__ import annotations

import math
from typing import Any

from tracker.engine import TrackerError
from tracker.engine.shapes import INT_MAX, INT_MIN, fits
from tracker.engine.text import printable


class SaveError(TrackerError):
    """A save file that cannot be used; the message names the file, table and key."""


def check(where: str, value: Any, shape: tuple[str, Any]) -> None:
    """Refuse `value` at `where` unless it has `shape` (what is expected, and the test)."""
    expected, test = shape
    if not test(value):
        raise SaveError(f"{where}: expected {expected}, got {shown(value)}")


def shown(value: Any) -> str:
    """A value as a message quotes it: its repr, cut at 80 characters, made printable."""
    text = repr(value)
    return printable(text if len(text) <= 80 else text[:77] + "...")


def _at(where: str, key: str) -> str:
    """'file.toml:' + 'name' -> 'file.toml: name'; 'file.toml: events[2]' + 'pt' -> '...events[2].pt'."""
    return f"{where} {key}" if where.endswith(":") else f"{where}.{key}"


def need(table: dict[str, Any], key: str, shape: tuple[str, Any], where: str) -> Any:
    """`table[key]`, refused if it is missing or does not have `shape`."""
    if key not in table:
        raise SaveError(f"{where.rstrip(':')}: missing key {key!r} ({shape[0]})")
    check(_at(where, key), table[key], shape)
    return table[key]


def as_save_error(thunk: Any) -> Any:
    """What `thunk()` returns; a TrackerError it raises (a ruleset refusing a sheet) is a
    SaveError, its message kept."""
    try:
        return thunk()
    except SaveError:
        raise
    except TrackerError as exc:
        raise SaveError(str(exc)) from None


def numbers_fit(value: Any) -> bool:
    """Whether every number in `value` fits a save: `check_numbers` without building the
    path of each value (a quick pass; the full one then names what does not fit)."""
    stack = [value]
    pop, extend = stack.pop, stack.extend
    while stack:
        item = pop()
        kind = item.__class__  # exact classes: a save's values are plain (bool is not int here)
        if kind is dict:
            extend(item.values())
        elif kind is list or kind is tuple:
            extend(item)
        elif kind is int:
            if not INT_MIN <= item <= INT_MAX:
                return False
        elif kind is float:
            if not math.isfinite(item):
                return False
        elif kind is not str and kind is not bool and not fits(item):
            return False
    return True


def check_numbers(value: Any, where: str) -> None:
    """Refuse a number TOML cannot hold (past 64 bits, nan, infinity) anywhere in `value`."""
    if numbers_fit(value):
        return
    stack: list[tuple[Any, str]] = [(value, where)]
    while stack:
        item, at = stack.pop()
        if isinstance(item, dict):
            stack.extend((v, f"{at}.{k}") for k, v in item.items())
        elif isinstance(item, (list, tuple)):
            stack.extend((v, f"{at}[{i}]") for i, v in enumerate(item))
        elif isinstance(item, (int, float)) and not fits(item):
            raise SaveError(f"{at}: {item!r} cannot be saved (integers must fit 64 bits, numbers must be finite)")
