"""Finds ruleset adapters: the tracker's own by module path, others through the
`tracker.rulesets` entry-point group.

The built-in adapters are known by module path, so a source checkout that was never
installed still finds them, and asking for one (every `tracker roll`, every opened save)
imports that one module and nothing else: scanning every installed package's metadata
for entry points costs more than the roll. The group is read only when an id that is not
built in is asked for, or when every adapter is listed (`tracker rulesets`, the start
screen's choice of ruleset). A third-party package adds a game by declaring an entry
point in the group; nothing in the tracker changes.

A plugin that cannot be loaded (its import raises, its entry point names no `Ruleset`,
or names one whose `id` is another) does not vanish: `failures()` keeps why, `tracker
rulesets` lists it with that error, and `get` (a save of that game being opened) says
it, instead of "unknown ruleset". One broken plugin never hides the other games.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tracker.engine.errors import TrackerError

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

    from rulesets.base import Ruleset

GROUP = "tracker.rulesets"
BUILT_IN = {
    "freeform": "rulesets.freeform:FreeformRuleset",
    "brandx": "rulesets.brandx:BrandXRuleset",
    "usor": "rulesets.usor:UsorRuleset",
    "d6": "rulesets.d6:D6Ruleset",
    "ogs": "rulesets.ogs:OgsRuleset",
    "ore": "rulesets.ore:OreRuleset",
}


# Why each game that could not be loaded was not, by id (filled by `_classes`).
_failed: dict[str, str] = {}


def _load(ruleset_id: str, target: str) -> type[Ruleset] | str:
    """The class `target` ("module:Class") names, or why it cannot be had."""
    from rulesets.base import Ruleset

    module_name, _, attr = target.partition(":")
    try:
        module = importlib.import_module(module_name)
        cls = getattr(module, attr) if attr else module
    except Exception as exc:  # a plugin's import may raise anything: kept, and named
        return f"{target}: {type(exc).__name__}: {exc}"
    if not (isinstance(cls, type) and issubclass(cls, Ruleset)):
        return f"{target}: not a rulesets.base.Ruleset subclass"
    if getattr(cls, "id", None) != ruleset_id:
        return f"{target}: its id is {getattr(cls, 'id', None)!r}, but its entry point is named {ruleset_id!r} (they must be equal)"
    return cls


def entry_points(group: str) -> list[EntryPoint]:
    from importlib.metadata import entry_points as scan  # costs more than a roll: only here

    return list(scan(group=group))


def _third_party() -> dict[str, str]:
    """The entry-point group, read only when needed (`_classes` keeps what it found)."""
    return {ep.name: ep.value for ep in entry_points(group=GROUP) if ep.name not in BUILT_IN}


@lru_cache(maxsize=1)
def _classes() -> dict[str, type[Ruleset]]:
    found: dict[str, type[Ruleset]] = {}
    _failed.clear()
    for name, target in {**BUILT_IN, **_third_party()}.items():
        cls = _load(name, target)
        if isinstance(cls, str):
            _failed[name] = cls
        else:
            found[name] = cls
    return found


def failures() -> dict[str, str]:
    """The games found but not loaded, by id: why each failed ("coin_rpg:CoinRuleset:
    ModuleNotFoundError: No module named 'coin_tables'")."""
    _classes()
    return dict(_failed)


def forget() -> None:
    """Read the entry-point group again at the next question (a plugin was installed or
    removed while the process runs: tests, the contract suite)."""
    _classes.cache_clear()
    _built_in.cache_clear()
    _failed.clear()


def available() -> dict[str, type[Ruleset]]:
    return dict(_classes())


def ids() -> list[str]:
    """Every ruleset id, without importing any adapter."""
    return sorted({*BUILT_IN, *_third_party()})


def exists(ruleset_id: str) -> bool:
    return ruleset_id in BUILT_IN or ruleset_id in _third_party()


@lru_cache(maxsize=None)
def _built_in(ruleset_id: str) -> type[Ruleset] | None:
    cls = _load(ruleset_id, BUILT_IN[ruleset_id])
    return None if isinstance(cls, str) else cls


def get(ruleset_id: str, house_rules: Path | Mapping[str, Any] | None = None) -> Ruleset:
    """An adapter, with a GM's house-rules tables (a file, or tables already read) if given."""
    cls = _built_in(ruleset_id) if ruleset_id in BUILT_IN else None
    if cls is None:
        cls = _classes().get(ruleset_id)
    if cls is None:
        why = failures().get(ruleset_id)
        if why is not None:
            raise TrackerError(f"game {ruleset_id!r} is installed but could not be loaded: {why}")
        raise TrackerError(f"unknown ruleset {ruleset_id!r} (known: {', '.join(sorted(_classes()))})")
    ruleset = cls(house_rules)
    if house_rules is not None and not isinstance(house_rules, Mapping):
        # A house-rules file named directly is read and checked whole now, as a save's is
        # (a caller handing tables already read checks them itself: the save's loader).
        _ = ruleset.tables  # a file that cannot be read or parsed is named by its reader
        try:
            ruleset.check_tables()
        except TrackerError as exc:
            raise TrackerError(f"house rules {house_rules}: {exc}") from None
    return ruleset
