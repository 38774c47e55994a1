"""Bounds on the numbers an encounter accepts, so every value it stores fits a save.

TOML integers are 64-bit and a hit point total of `nan` means nothing, so every number
that enters the timeline, typed or read from a file, is checked here before anything
changes:

- amounts, values, deltas and distances are finite and at most `MAX_AMOUNT` (10^12) in
  size: far beyond any sheet, far inside 64 bits;
- segment numbers (where time moves to, when something is due, how long it lasts) are
  whole numbers from 0 to `MAX_SEGMENT` (10^12 segments: millennia of game time);
- a value the engine computes (a resource after many payments) is kept within
  `MAX_STORED` (10^15) either way: a combatant that far below zero is down all the same,
  and the figure still fits a TOML integer and is exact as a float.
"""

from __future__ import annotations

import math
from typing import Any

from tracker.engine.errors import TrackerError
from tracker.engine import effects as fx

MAX_AMOUNT = 10**12
MAX_SEGMENT = 10**12
MAX_STORED = 10**15


def number(value: Any, what: str) -> int | float:
    """`value` if it is a finite int or float no larger than MAX_AMOUNT, else TrackerError."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TrackerError(f"{what}: expected a number, got {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise TrackerError(f"{what}: expected a finite number, got {value!r}")
    if abs(value) > MAX_AMOUNT:
        raise TrackerError(f"{what}: expected a number of at most {MAX_AMOUNT:,} in size, got {value:g}")
    return value


def segment(value: Any, what: str, minimum: int = 0) -> int:
    """`value` if it is a whole number from `minimum` to MAX_SEGMENT, else TrackerError."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TrackerError(f"{what}: expected a whole number of segments, got {value!r}")
    if value < minimum or value > MAX_SEGMENT:
        raise TrackerError(f"{what}: expected a whole number from {minimum} to {MAX_SEGMENT:,}, got {value}")
    return value


def count(value: Any, what: str) -> int:
    """`value` if it is a whole number from 0 to MAX_AMOUNT (a draw of dice), else TrackerError."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_AMOUNT:
        raise TrackerError(f"{what}: expected a whole number from 0 to {MAX_AMOUNT:,}, got {value!r}")
    return value


def value(item: Any, what: str) -> Any:
    """A stat or resource value: a bounded number, true/false or text."""
    if isinstance(item, (bool, str)):
        return item
    return number(item, what)


def clamp(value: int | float) -> int | float:
    """A computed value kept within ±MAX_STORED."""
    if value > MAX_STORED:
        return MAX_STORED
    if value < -MAX_STORED:
        return -MAX_STORED
    return value


def sheet(stats: dict[str, Any], resources: dict[str, Any], what: str) -> None:
    for key, item in stats.items():
        value(item, f"{what}: {key}")
    for key, item in resources.items():
        number(item, f"{what}: {key}")


def resolution(res: fx.Resolution, what: str) -> None:
    """Every number a resolution's effects would apply is in bounds (checked before any applies)."""
    pt = res.pt
    if pt.__class__ is not int or not 1 <= pt <= MAX_SEGMENT:  # the message built only when refused
        segment(pt, f"{what}: pt", 1)
    for effect in res.effects:
        where = f"{what}: {effect.kind} effect"
        for name in ("target", "resource", "key", "name", "overflow", "reason", "text"):
            if hasattr(effect, name) and not isinstance(getattr(effect, name), str):
                raise TrackerError(f"{where}: {name}: expected text, got {getattr(effect, name)!r}")
        if effect.timing not in (fx.INITIATE, fx.COMPLETE):
            raise TrackerError(f"{where}: timing: expected {fx.INITIATE} or {fx.COMPLETE}, got {effect.timing!r}")
        for name in ("amount", "delta", "distance", "speed"):
            if hasattr(effect, name):
                number(getattr(effect, name), f"{where}: {name}")
        for name in ("airborne", "duration", "lead"):
            if hasattr(effect, name):
                segment(getattr(effect, name), f"{where}: {name}")
