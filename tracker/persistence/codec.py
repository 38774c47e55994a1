"""Encounter <-> TOML document, with every bad value reported by file, table and key:
the whole file and its commit marks here; its header (tracker.persistence.header), its
`[[events]]` tables (tracker.persistence.event_tables) and the checks on its values
(tracker.persistence.checks) each in a module of their own.

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
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any


from tracker.engine import Encounter, Event, TrackerError
from tracker.persistence.checks import SaveError, check, check_numbers
from tracker.persistence.event_tables import EVENT_TABLES, events_text, read_event
from tracker.persistence.header import HEADER, SCHEMA_VERSION, Opening, header_document, read_header
from tracker.engine.text import printable
from rulesets.base import Ruleset
from rulesets.tables import toml_tables

MAX_SAVE_BYTES = 24 * 1024 * 1024  # 100,000 freeform events take 21.7 MB (benchmarks/save_size.py)
MAX_DEPTH = 64

# The commit mark that ends every whole write and every appended change. A file edited
# on Windows ends its lines with CRLF; an editor may drop the last line's newline (see
# `split` for when a mark without one counts).
MARK = re.compile(rb"# revision (\d+)[ \t]*(\r?\n|\r?\Z)")


# --------------------------------------------------------------------- encode
def dumps(encounter: Encounter, revision: int, house_rules: str = "") -> str:
    """The whole file: header, every event, and the commit mark for `revision`."""
    doc = header_document(encounter, house_rules)
    check_numbers(doc, "settings/roster")
    import tomli_w  # writing only: opening a fight reads, and loads no writer

    text = HEADER + tomli_w.dumps(doc)
    if encounter.events:
        text += "\n" + events_text(encounter.events)
    return text + f"# revision {revision}\n"


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
    if not said:  # gathered last first, as the lines above
        said = [f"{e.kind} of change {e.args.get('target')}" for e in reversed(events) if e.kind in ("undo", "redo")]
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
    try:
        doc, by_tomllib = toml_tables(text)
    except RecursionError:
        raise SaveError(f"{source}: not a save: values nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:  # tomllib's TOMLDecodeError (tomllib is loaded only for a refusal)
        raise SaveError(f"{source}: not valid TOML: {exc}") from None
    # The compiled reader stops at about 80 levels; hold tomllib's answer to the same limit.
    if by_tomllib and _too_deep(doc):
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
EVENTS_LINE = re.compile(r"^\[\[events\]\][ \t]*\r?$", re.MULTILINE)
# Characters of events parsed at a time: the parser's own copy of a piece is small beside
# the fight, and each piece's tables are dropped once its events are built.
PIECE_CHARS = 1 << 19


def read_in_pieces(text: str, source: str, base_dir: Path | None) -> tuple[Opening, list[Event]] | None:
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
    first = EVENTS_LINE.search(text)
    if first is None:
        return None
    try:
        header = parse(text[: first.start()], source)
        if "events" in header:
            return None
        opening = read_header(header, source, base_dir)
        summary = "state" not in header  # the app's [state] summary (never read) may close the last piece
        del header
        ruleset = opening.ruleset
        events: list[Event] = []
        start = first.start()
        while start < len(text):
            cut = EVENTS_LINE.search(text, start + PIECE_CHARS)
            end = cut.start() if cut is not None else len(text)
            doc = parse(text[start:end], source)
            raws = doc.get("events")
            if len(doc) != 1 + (cut is None and summary and "state" in doc) or raws.__class__ is not list or not all(raw.__class__ is dict for raw in raws):
                return None
            del doc
            index = len(events)
            for raw in raws:
                events.append(read_event(ruleset, raw, index, source))
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
        pieces = read_in_pieces(text, source, base_dir)
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


def from_document(doc: dict[str, Any], source: str, base_dir: Path | None = None) -> Loaded:
    opening = read_header(doc, source, base_dir)
    events_raw = doc.get("events", [])
    check(f"{source}: events", events_raw, EVENT_TABLES)
    ruleset = opening.ruleset
    events = [read_event(ruleset, raw, i, source) for i, raw in enumerate(events_raw)]
    return _replayed(opening, events, source)


def _replayed(opening: Opening, events: list[Event], source: str) -> Loaded:
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
