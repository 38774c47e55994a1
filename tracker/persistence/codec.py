"""Encounter <-> TOML document, with every bad value reported by file, table and key.

Layout of a save:

    schema_version = 1
    revision = 12            # bumped by every write; sessions compare it to see changes
    name = "Seraph vs Sphinx"
    ruleset = "brandx"
    house_rules = "..."      # optional: a GM's table overrides, relative to the save
    [settings]               # the ruleset's encounter settings
    [[roster]]               # the combatants present at segment 0
    [[events]]               # the append-only log: the source of truth
    [state]                  # a cache for people reading the file; ignored on load

The current state is always rebuilt by replaying `events` over `roster`; `state` is
written so that a person (or a script) reading the file sees where the fight stands.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import tomli_w

from tracker.engine import CombatantSetup, Encounter, Event, Resolution, Setup, TrackerError
from tracker.engine.effects import EFFECT_TYPES
from rulesets import registry
from rulesets.base import Ruleset

SCHEMA_VERSION = 1


class SaveError(TrackerError):
    """A save file that cannot be used; the message names the file, table and key."""


# Expected shapes of event arguments: key -> (type description, checker, required).
_STR = ("text", lambda v: isinstance(v, str))
_INT = ("an integer", lambda v: isinstance(v, int) and not isinstance(v, bool))
_NUM = ("a number", lambda v: isinstance(v, (int, float)) and not isinstance(v, bool))
_BOOL = ("true or false", lambda v: isinstance(v, bool))
_TABLE = ("a table", lambda v: isinstance(v, dict))
_STRS = ("a list of names", lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v))
_ANY = ("a value", lambda v: True)
_MODE = ("active or passive", lambda v: v in ("active", "passive"))

# A player's proposed change (and the GM's approval of it, possibly edited): the
# arguments of the declare, maintain or abort it stands for, and the faces rolled.
_PROPOSED: dict[str, tuple[tuple[str, Any], bool]] = {"actor": (_STR, False), "params": (_TABLE, False), "pt": (_INT, False), "template": (_STR, False), "mode": (_MODE, False), "targets": (_STRS, False), "companions": (_STRS, False), "maintainable": (_BOOL, False), "secret": (_BOOL, False), "resolution": (_TABLE, False), "faces": (("a list of integers", lambda v: isinstance(v, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in v)), False)}

EVENT_ARGS: dict[str, dict[str, tuple[tuple[str, Any], bool]]] = {
    "add": {"name": (_STR, True), "stats": (_TABLE, False), "resources": (_TABLE, False), "side": (_STR, False), "hidden": (_BOOL, False), "surprised_until": (_INT, False), "names": (_STRS, False)},
    "remove": {"name": (_STR, True)},
    "declare": {"actor": (_STR, True), "template": (_STR, True), "mode": (_MODE, True), "targets": (_STRS, False), "companions": (_STRS, False), "maintainable": (_BOOL, False), "secret": (_BOOL, False), "resolution": (_TABLE, True)},
    "maintain": {"actor": (_STR, True), "targets": (_STRS, False), "resolution": (_TABLE, True)},
    "abort": {"actor": (_STR, True), "template": (_STR, False)},
    "damage": {"target": (_STR, True), "amount": (_NUM, True), "resource": (_STR, True), "overflow": (_STR, False)},
    "set": {"target": (_STR, True), "key": (_STR, True), "value": (_ANY, True)},
    "advance": {"to": (_INT, True)},
    "condition": {"target": (_STR, True), "name": (_STR, True), "duration": (_INT, True)},
    "schedule": {"at": (_INT, True), "text": (_STR, True)},
    "surprise": {"target": (_STR, True), "until": (_INT, True)},
    "hide": {"target": (_STR, True), "hidden": (_BOOL, False)},
    "keep": {"target": (_STR, True)},
    "note": {"text": (_STR, True), "about": (_STRS, False)},
    "rename": {"target": (_STR, True), "name": (_STR, True)},
    "side": {"target": (_STR, True), "side": (_STR, True)},
    "reorder": {"target": (_STR, True), "position": (_INT, True)},
    "undo": {"target": (_INT, True)},
    "redo": {"target": (_INT, True)},
    "propose": {"action": (("declare, maintain or abort", lambda v: v in ("declare", "maintain", "abort")), True), **_PROPOSED},
    "approve": {"target": (_INT, True), **_PROPOSED},
    "refuse": {"target": (_INT, True), "reason": (_STR, False)},
    "withdraw": {"target": (_INT, True)},
    "setting": {"key": (_STR, True), "value": (_ANY, True)},
}

_RESOLUTION = {"pt": _INT, "success": _BOOL, "margin": _ANY, "dice": ("a list of integers", lambda v: isinstance(v, list) and all(isinstance(x, int) for x in v)), "summary": _STR, "effects": ("a list of tables", lambda v: isinstance(v, list) and all(isinstance(x, dict) for x in v)), "order": ("a list of integers", lambda v: isinstance(v, list) and all(isinstance(x, int) for x in v)), "details": _TABLE}


def _check(where: str, value: Any, shape: tuple[str, Any]) -> None:
    expected, test = shape
    if not test(value):
        raise SaveError(f"{where}: expected {expected}, got {value!r}")


def _at(where: str, key: str) -> str:
    """'file.toml:' + 'name' -> 'file.toml: name'; 'file.toml: events[2]' + 'pt' -> '...events[2].pt'."""
    return f"{where} {key}" if where.endswith(":") else f"{where}.{key}"


def _need(table: dict[str, Any], key: str, shape: tuple[str, Any], where: str) -> Any:
    if key not in table:
        raise SaveError(f"{where.rstrip(':')}: missing key {key!r} ({shape[0]})")
    _check(_at(where, key), table[key], shape)
    return table[key]


# --------------------------------------------------------------------- encode
def encounter_to_document(encounter: Encounter, revision: int, house_rules: str = "") -> dict[str, Any]:
    setup = encounter.setup
    doc: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "revision": revision,
        "name": setup.name,
        "ruleset": setup.ruleset,
    }
    if house_rules:
        doc["house_rules"] = house_rules
    doc["settings"] = dict(setup.settings)
    doc["roster"] = [entry.to_dict() for entry in setup.roster]
    doc["events"] = [event.to_dict() for event in encounter.events]
    doc["state"] = state_summary(encounter)
    return doc


def state_summary(encounter: Encounter) -> dict[str, Any]:
    """The cached current state: what a reader of the file wants to see."""
    rnd, within = encounter.time.round_of(encounter.now)
    return {
        "segment": encounter.now,
        "round": rnd,
        "segment_in_round": within,
        "clock": encounter.time.clock(encounter.now),
        "combatants": [
            {
                "name": c.name,
                "state": c.state(encounter.now),
                "resources": dict(c.resources),
                **({"hidden": True} if c.hidden else {}),
                **({"conditions": dict(c.conditions)} if c.conditions else {}),
            }
            for c in encounter.combatants.values()
        ],
        "in_progress": [
            {"actor": a.actor, "template": a.template, "mode": a.mode, "start": a.start, "completes": a.completes}
            for a in encounter.in_progress()
        ],
    }


def dumps(encounter: Encounter, revision: int, house_rules: str = "") -> str:
    return tomli_w.dumps(encounter_to_document(encounter, revision, house_rules))


# --------------------------------------------------------------------- decode
class Loaded:
    """A decoded save: the encounter, its ruleset adapter, and the file's revision."""

    def __init__(self, encounter: Encounter, ruleset: Ruleset, revision: int, house_rules: str) -> None:
        self.encounter = encounter
        self.ruleset = ruleset
        self.revision = revision
        self.house_rules = house_rules


def parse(text: str, source: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SaveError(f"{source}: not valid TOML: {exc}") from None


def loads(text: str, source: str = "<save>", base_dir: Path | None = None) -> Loaded:
    return from_document(parse(text, source), source, base_dir)


def from_document(doc: dict[str, Any], source: str, base_dir: Path | None = None) -> Loaded:
    where = f"{source}:"
    version = _need(doc, "schema_version", _INT, where)
    if version != SCHEMA_VERSION:
        raise SaveError(f"{source}: schema_version: expected {SCHEMA_VERSION}, got {version} (a newer tracker wrote this file?)")
    revision = _need(doc, "revision", _INT, where)
    if revision < 0:
        raise SaveError(f"{source}: revision: expected an integer of at least 0, got {revision}")
    name = _need(doc, "name", _STR, where)
    ruleset_id = _need(doc, "ruleset", _STR, where)
    house_rules = doc.get("house_rules", "")
    _check(f"{source}: house_rules", house_rules, _STR)
    rules_path = None
    if house_rules:
        rules_path = Path(house_rules)
        if not rules_path.is_absolute() and base_dir is not None:
            rules_path = base_dir / rules_path
    try:
        ruleset = registry.get(ruleset_id, rules_path)
        ruleset.tables  # read house rules now, so a bad file is reported as the save's problem
    except TrackerError as exc:
        raise SaveError(f"{source}: ruleset: {exc}") from None
    settings_raw = doc.get("settings", {})
    _check(f"{source}: settings", settings_raw, _TABLE)
    settings = _wrap(lambda: ruleset.validate_settings(settings_raw, f"{source}: settings"))
    roster_raw = doc.get("roster", [])
    _check(f"{source}: roster", roster_raw, ("an array of tables [[roster]]", lambda v: isinstance(v, list) and all(isinstance(x, dict) for x in v)))
    roster = [_roster_entry(ruleset, entry, f"{source}: roster[{i}]") for i, entry in enumerate(roster_raw)]
    setup = Setup(name, ruleset_id, ruleset.time, ruleset.down_when, settings, roster)
    events_raw = doc.get("events", [])
    _check(f"{source}: events", events_raw, ("an array of tables [[events]]", lambda v: isinstance(v, list) and all(isinstance(x, dict) for x in v)))
    events = [_event(ruleset, raw, i, f"{source}: events[{i}]") for i, raw in enumerate(events_raw)]
    try:
        encounter = Encounter(setup)
    except TrackerError as exc:
        raise SaveError(f"{source}: roster: {exc}") from None
    for i, event in enumerate(events):
        try:
            encounter.apply(event)
        except TrackerError as exc:
            raise SaveError(f"{source}: events[{i}] (seq {i + 1}, {event.kind}) does not replay: {exc}") from None
    return Loaded(encounter, ruleset, revision, house_rules)


def _wrap(thunk: Any) -> Any:
    try:
        return thunk()
    except SaveError:
        raise
    except TrackerError as exc:
        raise SaveError(str(exc)) from None


def _roster_entry(ruleset: Ruleset, raw: dict[str, Any], where: str) -> CombatantSetup:
    name = _need(raw, "name", _STR, where)
    stats = raw.get("stats", {})
    resources = raw.get("resources", {})
    _check(f"{where}.stats", stats, _TABLE)
    _check(f"{where}.resources", resources, _TABLE)
    for key in raw:
        if key not in ("name", "stats", "resources", "side", "hidden", "surprised_until"):
            raise SaveError(f"{where}: unexpected key {key!r} (expected name, side, hidden, surprised_until, stats, resources)")
    stats, resources = _wrap(lambda: ruleset.check_sheet(stats, resources, where))
    side = raw.get("side", "")
    _check(f"{where}.side", side, _STR)
    hidden = raw.get("hidden", False)
    _check(f"{where}.hidden", hidden, _BOOL)
    surprised = raw.get("surprised_until", 0)
    _check(f"{where}.surprised_until", surprised, _INT)
    return CombatantSetup(name, stats, resources, side, hidden, surprised)


def _event(ruleset: Ruleset, raw: dict[str, Any], index: int, where: str) -> Event:
    seq = _need(raw, "seq", _INT, where)
    if seq != index + 1:
        raise SaveError(f"{where}.seq: expected {index + 1} (events are numbered in order), got {seq}")
    kind = _need(raw, "kind", ("an event kind", lambda v: v in EVENT_ARGS), where)
    shape = EVENT_ARGS[kind]
    by = raw.get("by", "")
    _check(f"{where}.by", by, _STR)
    where = f"{where} (seq {seq}, {kind})"
    args: dict[str, Any] = {}
    for key, value in raw.items():
        if key in ("seq", "kind", "by"):
            continue
        if key not in shape:
            raise SaveError(f"{where}: unexpected key {key!r} (a {kind} event has {', '.join(shape)})")
        _check(f"{where}.{key}", value, shape[key][0])
        args[key] = value
    for key, (spec, required) in shape.items():
        if required and key not in args:
            raise SaveError(f"{where}: missing key {key!r} ({spec[0]})")
    if kind == "add":
        args["stats"], args["resources"] = _wrap(
            lambda: ruleset.check_sheet(args.get("stats", {}), args.get("resources", {}), where)
        )
    if "resolution" in args:
        args["resolution"] = _resolution(args["resolution"], f"{where}.resolution")
    return Event(kind, args, seq, by)


def _resolution(raw: dict[str, Any], where: str) -> Resolution:
    for key, value in raw.items():
        if key not in _RESOLUTION:
            raise SaveError(f"{where}: unexpected key {key!r} (expected {', '.join(_RESOLUTION)})")
        _check(f"{where}.{key}", value, _RESOLUTION[key])
    pt = _need(raw, "pt", _INT, where)
    if pt < 1:
        raise SaveError(f"{where}.pt: expected an integer of at least 1, got {pt}")
    for i, effect in enumerate(raw.get("effects", [])):
        kind = effect.get("kind")
        if kind not in EFFECT_TYPES:
            raise SaveError(f"{where}.effects[{i}].kind: expected one of {', '.join(EFFECT_TYPES)}, got {kind!r}")
    try:
        return Resolution.from_dict(raw)
    except (TypeError, ValueError, KeyError) as exc:
        raise SaveError(f"{where}.effects: {exc}") from None
