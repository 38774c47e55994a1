"""A save's `[[events]]` tables, written and read: each event as a table of its own (an
appended change is whole tables), and each table read back into an Event with every
key checked against the table of event kinds (tracker.engine.kinds), naming the file,
the event and the key.

Decisions: docs/decisions/0007-save-format.md, docs/decisions/0045-opening-fast.md
"""

from __future__ import annotations

from typing import Any


from tracker.engine import Event, Resolution
from tracker.engine.effects import EFFECT_TYPES
from tracker.engine.kinds import KINDS
from tracker.engine import shapes
from tracker.engine.shapes import ANY, BOOL, INT, INT_MAX, INT_MIN, STR, TABLE, is_int, is_ints, is_tables
from tracker.persistence.checks import SaveError, as_save_error, check, check_numbers, need, numbers_fit, shown
from rulesets.base import Ruleset

EVENT_ARGS: dict[str, dict[str, shapes.Arg]] = {name: row.args for name, row in KINDS.items()}

_RESOLUTION = {"pt": INT, "success": BOOL, "margin": ANY, "dice": ("a list of integers", is_ints), "summary": STR, "effects": ("a list of tables", is_tables), "order": ("a list of integers", is_ints), "details": TABLE}

EVENT_TABLES = ("an array of tables [[events]]", lambda v: isinstance(v, list) and all(isinstance(x, dict) for x in v))


def events_text(events: list[Event]) -> str:
    """Each event as an `[[events]]` table (tomli_w alone would inline short ones, and an
    appended change must be a whole `[[events]]` table to be read on its own)."""
    import tomli_w  # writing only: opening a fight reads, and loads no writer

    parts = []
    for event in events:
        data = event.to_dict()
        check_numbers(data, f"event {event.seq} ({event.kind})")
        tables = {k: v for k, v in data.items() if isinstance(v, dict) or _is_aot(v)}
        scalars = {k: v for k, v in data.items() if k not in tables}
        text = "[[events]]\n" + tomli_w.dumps(scalars)
        subtables = {k: v for k, v in tables.items() if isinstance(v, dict)}
        if subtables:
            text += "\n" + tomli_w.dumps({"events": subtables})
        for key, rows in tables.items():
            if key not in subtables:  # a list of tables (a damage's further targets): one
                # `[[events.KEY]]` each, as tomli_w would inline them under a bare `[events]`
                text += "".join(f"\n[[events.{key}]]\n" + tomli_w.dumps(row) for row in rows)
        parts.append(text)
    return "\n".join(parts)


def _is_aot(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(x, dict) for x in value)


def events_from(ruleset: Ruleset, raws: list[dict[str, Any]], first: int, source: str) -> list[Event]:
    """Validate appended event tables; the first must be number `first + 1`."""
    return [read_event(ruleset, raw, first + i, source) for i, raw in enumerate(raws)]


def read_event(ruleset: Ruleset, raw: dict[str, Any], index: int, source: str) -> Event:
    """Event number `index + 1` from its table, as opening a long fight reads each: the
    tests of `read_event_checked`, no message built. Anything that does not pass at a
    glance (and every `add`, whose sheet the ruleset checks) goes through
    `read_event_checked`, which accepts or refuses it by name, so both paths accept
    exactly the same events."""
    seq = raw.get("seq")
    kind = raw.get("kind", "")  # none: "" names no kind, and `read_event_checked` says it is missing
    shape = EVENT_ARGS.get(kind) if kind.__class__ is str else None
    by = raw.get("by", "")
    if seq.__class__ is not int or seq != index + 1 or shape is None or kind == "add" or by.__class__ is not str:
        return read_event_checked(ruleset, raw, index, f"{source}: events[{index}]")
    args: dict[str, Any] = {}
    for key, value in raw.items():
        if key == "seq" or key == "kind" or key == "by":
            continue
        spec = shape.get(key)
        if spec is None or not spec[0][1](value):
            return read_event_checked(ruleset, raw, index, f"{source}: events[{index}]")
        args[key] = value
    if len(args) < len(shape):
        for key, (_, required) in shape.items():
            if required and key not in args:
                return read_event_checked(ruleset, raw, index, f"{source}: events[{index}]")
    resolution = args.get("resolution")
    for key in ("value", "stats", "resources"):
        if key in args and not _plain(args[key]):
            return read_event_checked(ruleset, raw, index, f"{source}: events[{index}]")
    if resolution is not None:
        for key in ("margin", "details", "effects"):
            if key in resolution and not _plain(resolution[key]) and not numbers_fit(resolution[key]):
                return read_event_checked(ruleset, raw, index, f"{source}: events[{index}]")
        checked = _resolution_fast(resolution)
        if checked is None:
            return read_event_checked(ruleset, raw, index, f"{source}: events[{index}]")
        args["resolution"] = checked
    return Event(kind, args, seq, by)


def _resolution_fast(raw: dict[str, Any]) -> Resolution | None:
    """`_resolution` without messages: None for anything `_resolution` must look at."""
    for key, value in raw.items():
        shape = _RESOLUTION.get(key)
        if shape is None or not shape[1](value):
            return None
    pt = raw.get("pt")
    if pt is None or pt < 1:
        return None
    for effect in raw.get("effects", ()):
        if effect.get("kind").__class__ is not str or effect["kind"] not in EFFECT_TYPES:
            return None
    try:
        return Resolution.from_dict(raw)
    except (TypeError, ValueError, KeyError):
        return None


def read_event_checked(ruleset: Ruleset, raw: dict[str, Any], index: int, where: str) -> Event:
    """Event number `index + 1` from its table, or a SaveError naming what is wrong."""
    # Checks inlined, messages built only on failure (each failing test falls back on
    # the general check, which names the problem).
    seq = raw.get("seq")
    if seq.__class__ is not int or seq != index + 1:
        if not is_int(seq):
            need(raw, "seq", INT, where)
        if seq != index + 1:
            raise SaveError(f"{where}.seq: expected {index + 1} (events are numbered in order), got {shown(seq)}")
    kind = raw.get("kind", "")
    shape = EVENT_ARGS.get(kind) if isinstance(kind, str) else None
    if shape is None:
        need(raw, "kind", ("an event kind", lambda v: isinstance(v, str) and v in EVENT_ARGS), where)
        raise AssertionError  # pragma: no cover - need() raised
    by = raw.get("by", "")
    if by.__class__ is not str and not isinstance(by, str):
        check(f"{where}.by", by, STR)
    args: dict[str, Any] = {}
    for key, value in raw.items():
        if key == "seq" or key == "kind" or key == "by":
            continue
        spec = shape.get(key)
        if spec is None:
            raise SaveError(f"{where} (seq {seq}, {kind}): unexpected key {key!r} (a {kind} event has {', '.join(shape)})")
        if not spec[0][1](value):
            check(f"{where} (seq {seq}, {kind}).{key}", value, spec[0])
        args[key] = value
    if len(args) < len(shape):
        for key, (wanted, required) in shape.items():
            if required and key not in args:
                raise SaveError(f"{where} (seq {seq}, {kind}): missing key {key!r} ({wanted[0]})")
    resolution = args.get("resolution")
    if kind == "add" or kind == "set" or resolution is not None:
        where = f"{where} (seq {seq}, {kind})"
    # Shapes above already hold integers to 64 bits; these may hold any number.
    for key in ("value", "stats", "resources"):
        if key in args and not _plain(args[key]):
            check_numbers(args[key], f"{where}.{key}")
    if resolution is not None:
        for key in ("margin", "details", "effects"):
            if key in resolution and not _plain(resolution[key]):
                check_numbers(resolution[key], f"{where}.resolution.{key}")
    if kind == "add":
        args["stats"], args["resources"] = as_save_error(
            lambda: ruleset.check_sheet(args.get("stats", {}), args.get("resources", {}), where)
        )
    if resolution is not None:
        args["resolution"] = _resolution(resolution, f"{where}.resolution")
    return Event(kind, args, seq, by)


def _plain(value: Any) -> bool:
    """True for a value `check_numbers` would pass at a glance: text, a truth value, a
    64-bit integer, or an empty table or list (anything else gets the full check)."""
    cls = value.__class__
    if cls is str or cls is bool:
        return True
    if cls is int:
        return INT_MIN <= value <= INT_MAX
    if cls is dict or cls is list:
        return not value
    return False


def _resolution(raw: dict[str, Any], where: str) -> Resolution:
    for key, value in raw.items():
        shape = _RESOLUTION.get(key)
        if shape is None:
            raise SaveError(f"{where}: unexpected key {key!r} (expected {', '.join(_RESOLUTION)})")
        if not shape[1](value):
            check(f"{where}.{key}", value, shape)
    pt = raw.get("pt")
    if pt is None:
        pt = need(raw, "pt", INT, where)  # raises: it is missing
    if pt < 1:
        raise SaveError(f"{where}.pt: expected an integer of at least 1, got {pt}")
    for i, effect in enumerate(raw.get("effects", ())):
        kind = effect.get("kind")
        if not isinstance(kind, str) or kind not in EFFECT_TYPES:
            raise SaveError(f"{where}.effects[{i}].kind: expected one of {', '.join(EFFECT_TYPES)}, got {kind!r}")
    try:
        return Resolution.from_dict(raw)
    except (TypeError, ValueError, KeyError) as exc:
        raise SaveError(f"{where}.effects: {exc}") from None
