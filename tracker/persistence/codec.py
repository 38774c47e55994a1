"""Encounter <-> TOML document, with every bad value reported by file, table and key.

The current state is always rebuilt by replaying `events` over `roster` (the layout of
a save: docs/decisions/0007-save-format.md). Every change
appends its `[[events]]` tables and a `# revision N` line, then fsyncs; nothing already
written is rewritten. The `# revision N` line is the commit mark: bytes after the last
one are a write that never finished (a crash mid-append), and are never parsed; the next
write cuts them off. Because a change is only ever a whole number of `[[events]]` tables,
a reader that already holds revision N parses just the bytes after N's line.

Decisions: docs/decisions/0007-save-format.md, docs/decisions/0044-save-limits.md,
docs/decisions/0045-opening-fast.md, docs/decisions/0056-long-fights-stay-cheap.md
"""

from __future__ import annotations

import gc
import math
import re
from collections.abc import Iterator
from contextlib import contextmanager
import tomllib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from types import ModuleType
from typing import Any

import tomli_w

from tracker.engine import CombatantSetup, Encounter, Event, Resolution, Setup, TrackerError
from tracker.engine import shapes
from tracker.engine.effects import EFFECT_TYPES
from tracker.engine.kinds import KINDS
from tracker.engine.shapes import INT_MAX, INT_MIN, fits
from tracker.persistence import folder
from tracker.text import printable
from rulesets import registry
from rulesets.base import Ruleset
from rulesets.tables import parse_toml

_rtoml: ModuleType | None
try:  # a compiled reader: about 5x faster than tomllib on a long log (docs/contributing/design.md#saves)
    import rtoml as _rtoml
except ImportError:  # pragma: no cover - rtoml is a dependency; tomllib stays correct
    _rtoml = None

SCHEMA_VERSION = 2
FIRST_SCHEMA = 1
MAX_SAVE_BYTES = 24 * 1024 * 1024  # 100,000 freeform events take 21.7 MB (benchmarks/save_size.py)
MAX_DEPTH = 64
MAX_HOUSE_RULES_BYTES = 1024 * 1024

# The commit mark that ends every whole write and every appended change. A file edited
# on Windows ends its lines with CRLF; an editor may drop the last line's newline (see
# `split` for when a mark without one counts).
MARK = re.compile(rb"# revision (\d+)[ \t]*(\r?\n|\r?\Z)")


class SaveError(TrackerError):
    """A save file that cannot be used; the message names the file, table and key."""


# The shapes of values in a save (tracker.engine.shapes), under the names this module
# has always used; each event kind's arguments come from the table of kinds.
_int, _is_ints, _is_tables = shapes.is_int, shapes.is_ints, shapes.is_tables
_STR, _INT, _BOOL, _TABLE, _ANY = shapes.STR, shapes.INT, shapes.BOOL, shapes.TABLE, shapes.ANY
# A campaign fight's campaign: a file name in the same folder, nothing more.
_CAMPAIGN = ("the name of a campaign file in the same folder (NAME.campaign.toml)", lambda v: isinstance(v, str) and (v == "" or (v.endswith(".campaign.toml") and "/" not in v and "\\" not in v and not v.startswith("."))))
# The players' app dice key (hex, 32 to 128 digits), or "" in a file made before it was kept.
_DICE_KEY = ("a key of 32 to 128 hex digits", lambda v: isinstance(v, str) and (v == "" or (32 <= len(v) <= 128 and all(ch in "0123456789abcdef" for ch in v))))

EVENT_ARGS: dict[str, dict[str, shapes.Arg]] = {name: row.args for name, row in KINDS.items()}

_RESOLUTION = {"pt": _INT, "success": _BOOL, "margin": _ANY, "dice": ("a list of integers", _is_ints), "summary": _STR, "effects": ("a list of tables", _is_tables), "order": ("a list of integers", _is_ints), "details": _TABLE}


def _check(where: str, value: Any, shape: tuple[str, Any]) -> None:
    expected, test = shape
    if not test(value):
        raise SaveError(f"{where}: expected {expected}, got {_show(value)}")


def _show(value: Any) -> str:
    text = repr(value)
    return printable(text if len(text) <= 80 else text[:77] + "...")


def _at(where: str, key: str) -> str:
    """'file.toml:' + 'name' -> 'file.toml: name'; 'file.toml: events[2]' + 'pt' -> '...events[2].pt'."""
    return f"{where} {key}" if where.endswith(":") else f"{where}.{key}"


def _need(table: dict[str, Any], key: str, shape: tuple[str, Any], where: str) -> Any:
    if key not in table:
        raise SaveError(f"{where.rstrip(':')}: missing key {key!r} ({shape[0]})")
    _check(_at(where, key), table[key], shape)
    return table[key]


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


# --------------------------------------------------------------------- encode
HEADER = (
    "# An encounter for segment-tracker. The setup comes first, then the event log;\n"
    "# each change is appended as [[events]] tables ending with a '# revision N' line.\n"
    "# Anything after the last '# revision N' line is an unfinished write and is ignored.\n"
)


def header_document(encounter: Encounter, house_rules: str = "") -> dict[str, Any]:
    setup = encounter.setup
    doc: dict[str, Any] = {"schema_version": SCHEMA_VERSION, "name": setup.name, "ruleset": setup.ruleset}
    if house_rules:
        doc["house_rules"] = house_rules
    if setup.dice_key:
        doc["dice_key"] = setup.dice_key
    if setup.campaign:
        doc["campaign"] = setup.campaign
    doc["settings"] = dict(setup.settings)
    doc["roster"] = [entry.to_dict() for entry in setup.roster]
    return doc


def dumps(encounter: Encounter, revision: int, house_rules: str = "") -> str:
    """The whole file: header, every event, and the commit mark for `revision`."""
    doc = header_document(encounter, house_rules)
    check_numbers(doc, "settings/roster")
    text = HEADER + tomli_w.dumps(doc)
    if encounter.events:
        text += "\n" + events_text(encounter.events)
    return text + f"# revision {revision}\n"


def events_text(events: list[Event]) -> str:
    """Each event as an `[[events]]` table (tomli_w alone would inline short ones, and an
    appended change must be a whole `[[events]]` table to be read on its own)."""
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


def chunk(encounter: Encounter, first: int, revision: int) -> bytes:
    """One appended change: the events from index `first` on, what they did, the mark."""
    events = encounter.events[first:]
    text = "\n" + events_text(events)
    seqs = {e.seq for e in events}
    said: list[str] = []
    for entry in reversed(encounter.log):
        if entry.seq not in seqs or len(said) >= 40:
            break
        if not entry.secret:
            said.append(entry.text)
    if not said:
        said = [f"{e.kind} of change {e.args.get('target')}" for e in events if e.kind in ("undo", "redo")]
    for line in reversed(said):
        # Indented so no comment can ever read as a commit mark; controls made harmless.
        text += "#   " + printable(line) + "\n"
    return (text + f"# revision {revision}\n").encode("utf-8")


def state_summary(encounter: Encounter) -> dict[str, Any]:
    """The current state as plain data: what a reader of the file wants to see."""
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


# --------------------------------------------------------------------- decode
@dataclass
class Loaded:
    """A decoded save: the encounter, its ruleset adapter, and the file's revision."""

    encounter: Encounter
    ruleset: Ruleset
    revision: int
    house_rules: str
    schema: int = SCHEMA_VERSION


@dataclass(frozen=True)
class Split:
    """A save's bytes cut at the last commit mark: what may be parsed, and the torn rest."""

    committed: bytes
    revision: int | None  # None: no mark at all (a schema 1 file)
    torn: int  # bytes after the last mark
    mark: bytes = b""  # the commit mark's line, as written (its line end included)


def _marks(data: bytes) -> Iterator[re.Match[bytes]]:
    """The commit marks in `data`, last first: lines that are exactly `# revision N`."""
    pos = len(data)
    while True:
        at = data.rfind(b"# revision ", 0, pos)
        if at < 0:
            return
        if at == 0 or data[at - 1 : at] == b"\n":
            match = MARK.match(data, at)
            if match is not None:
                yield match
        pos = at


def split(data: bytes, after: int | None = None) -> Split:
    """Cut `data` after its last whole `# revision N` line.

    A mark on the very last line without its newline (an editor that drops it) counts
    only if its number is above the mark before it (or above `after`, the revision a
    follower already holds, when `data` is what was appended since): an append cut
    short inside its mark leaves a prefix of the new number (`# revision 1` of `12`),
    always below the one before, so a torn append is still caught."""
    found = _marks(data)
    last = next(found, None)
    if last is not None and not last.group(2).endswith(b"\n"):
        before = next(found, None)
        floor = int(before.group(1)) if before is not None else after
        if floor is not None and int(last.group(1)) <= floor:
            last = before
    if last is None:
        return Split(data, None, 0)
    # A lone CR at the very end is half a CRLF, which TOML does not allow: not committed.
    end = last.end() - (last.group(2) == b"\r")
    return Split(data[:end], int(last.group(1)), len(data) - end, data[last.start() : end])


def _too_deep(value: Any) -> bool:
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            return True
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return False


def parse(text: str, source: str) -> dict[str, Any]:
    if len(text) > MAX_SAVE_BYTES:
        raise SaveError(f"{source}: {len(text)} characters; saves over {MAX_SAVE_BYTES // (1024 * 1024)} MB are refused")
    if _rtoml is not None:
        try:
            return _rtoml.loads(text)
        except Exception:  # noqa: BLE001 - any refusal: let tomllib name the problem
            pass
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SaveError(f"{source}: not valid TOML: {exc}") from None
    except RecursionError:
        raise SaveError(f"{source}: not a save: values nested deeper than {MAX_DEPTH} levels") from None
    # The compiled reader stops at about 80 levels; hold tomllib's answer to the same limit.
    if _too_deep(doc):
        raise SaveError(f"{source}: not a save: values nested deeper than {MAX_DEPTH} levels")
    return doc


def parse_events(text: str, source: str) -> list[dict[str, Any]] | None:
    """The `[[events]]` tables of an appended stretch, or None if it is anything else
    (then the caller reads the whole file, which is the authority)."""
    doc = parse(text, source)
    events = doc.get("events")
    if set(doc) != {"events"} or not isinstance(events, list) or not all(isinstance(e, dict) for e in events):
        return None
    if not text.lstrip().startswith("[[events]]"):
        return None
    return events


def loads(text: str, source: str = "<save>", base_dir: Path | None = None) -> Loaded:
    cut = split(text.encode("utf-8"))
    return load_bytes(cut, source, base_dir)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a save is read and replayed.

    Opening a long fight allocates hundreds of thousands of objects that all stay alive
    (the parsed tables, events, actions, log lines); each allocation burst triggers a
    collection that walks everything allocated so far, about a third of the time
    spent opening. Nothing built here is garbage, so collecting meanwhile is waste. The
    collector is turned back on afterwards only if it was on (another thread opening a
    save at the same time leaves it as it found it)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


# An `[[events]]` table's header on a line of its own, as every save writes it.
_EVENTS_LINE = re.compile(r"^\[\[events\]\][ \t]*\r?$", re.MULTILINE)
# Characters of events parsed at a time: the parser's own copy of a piece is small beside
# the fight, and each piece's tables are dropped once its events are built.
PIECE_CHARS = 1 << 19


def _in_pieces(text: str, source: str, base_dir: Path | None) -> tuple[_Opening, list[Event]] | None:
    """The header and the events of a save, parsed a piece at a time; None if the text is
    anything the pieces might not read exactly as the whole (then it is read whole).

    Parsing the whole file at once held every table the parser made (and the compiled
    reader's own tree of them) beside the events built from them: several times the
    memory the parser alone needs. Here the header (everything before the first
    `[[events]]` line) is parsed, then the events in pieces of about PIECE_CHARS, each
    cut at an `[[events]]` line; a piece's tables are turned into events and dropped
    before the next is parsed. The pieces read as the whole would only if the header has
    no `events` and every piece holds nothing but `[[events]]` tables (a cut inside a
    multi-line string leaves an unfinished string, which does not parse); anything else,
    and any problem at all (a bad value is named by the whole reading, in the order it
    finds problems), falls back on reading the file whole."""
    if len(text) > MAX_SAVE_BYTES:
        return None
    first = _EVENTS_LINE.search(text)
    if first is None:
        return None
    try:
        header = parse(text[: first.start()], source)
        if "events" in header:
            return None
        opening = _opening(header, source, base_dir)
        summary = "state" not in header  # the app's [state] summary (never read) may close the last piece
        del header
        ruleset = opening.ruleset
        events: list[Event] = []
        start = first.start()
        while start < len(text):
            cut = _EVENTS_LINE.search(text, start + PIECE_CHARS)
            end = cut.start() if cut is not None else len(text)
            doc = parse(text[start:end], source)
            raws = doc.get("events")
            if len(doc) != 1 + (cut is None and summary and "state" in doc) or raws.__class__ is not list or not all(raw.__class__ is dict for raw in raws):
                return None
            del doc
            index = len(events)
            for raw in raws:
                events.append(_event_fast(ruleset, raw, index, source))
                index += 1
            del raws
            start = end
    except Exception:  # noqa: BLE001 - whatever it is, the whole reading names it, in its order
        return None
    return opening, events


def load_bytes(cut: Split, source: str, base_dir: Path | None = None) -> Loaded:
    try:
        text = cut.committed.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SaveError(f"{source}: not UTF-8 text (byte {exc.start})") from None
    with _collector_paused():
        pieces = _in_pieces(text, source, base_dir)
        if pieces is not None:
            del text  # the events are built: the text is no longer needed
            loaded = _replayed(pieces[0], pieces[1], source)
        else:
            loaded = from_document(parse(text, source), source, base_dir)
    # A long fight's state lives as long as it is open: out of the collector's walks.
    loaded.encounter.settle()
    if loaded.schema == SCHEMA_VERSION:
        if cut.revision is None:
            raise SaveError(f"{source}: no '# revision N' line: the file was never completely written")
        loaded.revision = cut.revision
    return loaded


def house_rules_tables(house_rules: str, base_dir: Path | None, source: str) -> dict[str, Any]:
    """The tables of the house-rules file a save names: relative, inside the save's
    folder (a link may lead elsewhere in it, never out), a regular file of at most
    MAX_HOUSE_RULES_BYTES, read through the folder (tracker.persistence.folder)."""
    where = f"{source}: house_rules"
    if "\x00" in house_rules or house_rules != printable(house_rules):
        raise SaveError(f"{where}: expected a file name, got {_show(house_rules)}")
    pure = PurePosixPath(house_rules)
    if pure.is_absolute() or "\\" in house_rules or (len(house_rules) > 1 and house_rules[1] == ":"):
        raise SaveError(f"{where}: expected a path relative to the save's folder, got {_show(house_rules)}")
    if ".." in pure.parts:
        raise SaveError(f"{where}: expected a file inside the save's folder (no '..'), got {_show(house_rules)}")
    base = base_dir if base_dir is not None else Path(".")
    try:
        data = folder.read_bytes(Path(house_rules), MAX_HOUSE_RULES_BYTES, what="house rules file", folder=base)
    except folder.Refused as exc:
        raise SaveError(f"{where}: {exc}") from None
    except FileNotFoundError:
        raise SaveError(f"{where}: {base / pure}: file not found") from None
    except OSError as exc:
        raise SaveError(f"{where}: {base / pure}: cannot be read: {exc.strerror}") from None
    assert data is not None
    try:
        return parse_toml(data, base / pure)
    except TrackerError as exc:
        raise SaveError(f"{where}: {exc}") from None


@dataclass
class _Opening:
    """What a save's header holds: everything but its events."""

    setup: Setup
    ruleset: Ruleset
    revision: int
    house_rules: str
    version: int


def from_document(doc: dict[str, Any], source: str, base_dir: Path | None = None) -> Loaded:
    opening = _opening(doc, source, base_dir)
    events_raw = doc.get("events", [])
    _check(f"{source}: events", events_raw, _EVENT_TABLES)
    ruleset = opening.ruleset
    events = [_event_fast(ruleset, raw, i, source) for i, raw in enumerate(events_raw)]
    return _replayed(opening, events, source)


def _opening(doc: dict[str, Any], source: str, base_dir: Path | None) -> _Opening:
    where = f"{source}:"
    version = _need(doc, "schema_version", _INT, where)
    if version not in (FIRST_SCHEMA, SCHEMA_VERSION):
        raise SaveError(f"{source}: schema_version: expected {FIRST_SCHEMA} or {SCHEMA_VERSION}, got {version} (a newer tracker wrote this file?)")
    revision = 0
    if version == FIRST_SCHEMA:
        revision = _need(doc, "revision", _INT, where)
        if revision < 0:
            raise SaveError(f"{source}: revision: expected an integer of at least 0, got {revision}")
    name = _need(doc, "name", _STR, where)
    ruleset_id = _need(doc, "ruleset", _STR, where)
    house_rules = doc.get("house_rules", "")
    _check(f"{source}: house_rules", house_rules, _STR)
    rules = house_rules_tables(house_rules, base_dir, source) if house_rules else None
    try:
        ruleset = registry.get(ruleset_id, rules)
    except TrackerError as exc:
        raise SaveError(f"{source}: ruleset: {exc}") from None
    try:
        # Every table read and checked now (house rows over shipped), so a bad house file
        # is reported as the save's problem, naming the file, not at the table's first use.
        ruleset.check_tables()
    except TrackerError as exc:
        named = f"house rules {house_rules}: " if house_rules else ""
        raise SaveError(f"{source}: ruleset: {named}{exc}") from None
    settings_raw = doc.get("settings", {})
    _check(f"{source}: settings", settings_raw, _TABLE)
    settings = _wrap(lambda: ruleset.validate_settings(settings_raw, f"{source}: settings"))
    roster_raw = doc.get("roster", [])
    _check(f"{source}: roster", roster_raw, ("an array of tables [[roster]]", lambda v: isinstance(v, list) and all(isinstance(x, dict) for x in v)))
    roster = [_roster_entry(ruleset, entry, f"{source}: roster[{i}]") for i, entry in enumerate(roster_raw)]
    dice_key = doc.get("dice_key", "")
    _check(f"{source}: dice_key", dice_key, _DICE_KEY)
    campaign = doc.get("campaign", "")
    _check(f"{source}: campaign", campaign, _CAMPAIGN)
    setup = Setup(name, ruleset_id, ruleset.time, ruleset.down_when, settings, roster, dice_key, campaign)
    return _Opening(setup, ruleset, revision, house_rules, version)


_EVENT_TABLES = ("an array of tables [[events]]", lambda v: isinstance(v, list) and all(isinstance(x, dict) for x in v))


def _replayed(opening: _Opening, events: list[Event], source: str) -> Loaded:
    try:
        encounter = Encounter(opening.setup)
    except TrackerError as exc:
        raise SaveError(f"{source}: roster: {exc}") from None
    replay(encounter, events, source)
    return Loaded(encounter, opening.ruleset, opening.revision, opening.house_rules, opening.version)


def replay(encounter: Encounter, events: list[Event], source: str) -> None:
    """Apply events read from a file; the first that does not replay is a named error."""
    first = len(encounter.events)
    bulk = getattr(encounter, "replay", None)
    try:
        if bulk is not None:
            bulk(events)
        else:  # pragma: no cover
            for event in events:
                encounter.apply(event)
    except TrackerError as exc:
        i = len(encounter.events)
        kind = events[i - first].kind if 0 <= i - first < len(events) else "?"
        raise SaveError(f"{source}: events[{i}] (seq {i + 1}, {kind}) does not replay: {exc}") from None
    except (TypeError, ValueError, KeyError, AttributeError, OverflowError, RecursionError) as exc:
        i = len(encounter.events)
        raise SaveError(f"{source}: events[{i}] (seq {i + 1}) does not replay: {type(exc).__name__}: {exc}") from None


def events_from(ruleset: Ruleset, raws: list[dict[str, Any]], first: int, source: str) -> list[Event]:
    """Validate appended event tables; the first must be number `first + 1`."""
    return [_event_fast(ruleset, raw, first + i, source) for i, raw in enumerate(raws)]


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
    check_numbers(raw, where)
    stats, resources = _wrap(lambda: ruleset.check_sheet(stats, resources, where))
    side = raw.get("side", "")
    _check(f"{where}.side", side, _STR)
    hidden = raw.get("hidden", False)
    _check(f"{where}.hidden", hidden, _BOOL)
    surprised = raw.get("surprised_until", 0)
    _check(f"{where}.surprised_until", surprised, _INT)
    return CombatantSetup(name, stats, resources, side, hidden, surprised)


def _event_fast(ruleset: Ruleset, raw: dict[str, Any], index: int, source: str) -> Event:
    """`_event` for the hot loop of opening a long fight: the same tests, no message built.
    Anything that does not pass at a glance (and every `add`, whose sheet the ruleset
    checks) goes through `_event`, which accepts or refuses it by name, so both paths
    accept exactly the same events."""
    seq = raw.get("seq")
    kind = raw.get("kind", "")  # none: "" names no kind, and `_event` says it is missing
    shape = EVENT_ARGS.get(kind) if kind.__class__ is str else None
    by = raw.get("by", "")
    if seq.__class__ is not int or seq != index + 1 or shape is None or kind == "add" or by.__class__ is not str:
        return _event(ruleset, raw, index, f"{source}: events[{index}]")
    args: dict[str, Any] = {}
    for key, value in raw.items():
        if key == "seq" or key == "kind" or key == "by":
            continue
        spec = shape.get(key)
        if spec is None or not spec[0][1](value):
            return _event(ruleset, raw, index, f"{source}: events[{index}]")
        args[key] = value
    if len(args) < len(shape):
        for key, (_, required) in shape.items():
            if required and key not in args:
                return _event(ruleset, raw, index, f"{source}: events[{index}]")
    resolution = args.get("resolution")
    for key in ("value", "stats", "resources"):
        if key in args and not _plain(args[key]):
            return _event(ruleset, raw, index, f"{source}: events[{index}]")
    if resolution is not None:
        for key in ("margin", "details", "effects"):
            if key in resolution and not _plain(resolution[key]) and not numbers_fit(resolution[key]):
                return _event(ruleset, raw, index, f"{source}: events[{index}]")
        checked = _resolution_fast(resolution)
        if checked is None:
            return _event(ruleset, raw, index, f"{source}: events[{index}]")
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


def _event(ruleset: Ruleset, raw: dict[str, Any], index: int, where: str) -> Event:
    # Checks inlined, messages built only on failure (each failing test falls back on
    # the general check, which names the problem).
    seq = raw.get("seq")
    if seq.__class__ is not int or seq != index + 1:
        if not _int(seq):
            _need(raw, "seq", _INT, where)
        if seq != index + 1:
            raise SaveError(f"{where}.seq: expected {index + 1} (events are numbered in order), got {_show(seq)}")
    kind = raw.get("kind", "")
    shape = EVENT_ARGS.get(kind) if isinstance(kind, str) else None
    if shape is None:
        _need(raw, "kind", ("an event kind", lambda v: isinstance(v, str) and v in EVENT_ARGS), where)
        raise AssertionError  # pragma: no cover - _need raised
    by = raw.get("by", "")
    if by.__class__ is not str and not isinstance(by, str):
        _check(f"{where}.by", by, _STR)
    args: dict[str, Any] = {}
    for key, value in raw.items():
        if key == "seq" or key == "kind" or key == "by":
            continue
        spec = shape.get(key)
        if spec is None:
            raise SaveError(f"{where} (seq {seq}, {kind}): unexpected key {key!r} (a {kind} event has {', '.join(shape)})")
        if not spec[0][1](value):
            _check(f"{where} (seq {seq}, {kind}).{key}", value, spec[0])
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
        args["stats"], args["resources"] = _wrap(
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
            _check(f"{where}.{key}", value, shape)
    pt = raw.get("pt")
    if pt is None:
        pt = _need(raw, "pt", _INT, where)  # raises: it is missing
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
