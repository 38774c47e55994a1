"""Finds ruleset adapters through the `tracker.rulesets` entry-point group.

The tracker's own adapters are also known by module path, so a source checkout that
was never installed still finds them. A third-party package adds a game by declaring
an entry point in the group; nothing in the tracker changes.
"""

from __future__ import annotations

import importlib
from functools import lru_cache
from importlib.metadata import entry_points
from pathlib import Path

from tracker.engine.errors import TrackerError
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


def _load(target: str) -> type[Ruleset] | None:
    module_name, _, attr = target.partition(":")
    try:
        module = importlib.import_module(module_name)
        return getattr(module, attr)
    except (ImportError, AttributeError):
        return None


@lru_cache(maxsize=1)
def _classes() -> dict[str, type[Ruleset]]:
    found: dict[str, type[Ruleset]] = {}
    targets = dict(BUILT_IN)
    for ep in entry_points(group=GROUP):
        targets[ep.name] = ep.value
    for name, target in targets.items():
        cls = _load(target)
        if cls is not None:
            found[name] = cls
    return found


def available() -> dict[str, type[Ruleset]]:
    return dict(_classes())


@lru_cache(maxsize=None)
def _built_in(ruleset_id: str) -> type[Ruleset] | None:
    return _load(BUILT_IN[ruleset_id])


def get(ruleset_id: str, house_rules: Path | None = None) -> Ruleset:
    # Opening one save should not import every adapter (it is most of the UI's start-up
    # time): a built-in id loads its own module; others go through the full scan.
    cls = _built_in(ruleset_id) if ruleset_id in BUILT_IN else None
    if cls is None:
        cls = _classes().get(ruleset_id)
    if cls is None:
        raise TrackerError(f"unknown ruleset {ruleset_id!r} (known: {', '.join(sorted(_classes()))})")
    return cls(house_rules)
