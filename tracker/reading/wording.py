"""Events in words: what undo, redo, the history view and `tracker show` say a change was.

Each kind's words are its `describe` column in the table of kinds (tracker.engine.kinds);
this module adds who made the change (`who`), the segment it was made on, and the
history of effective changes. Control characters in names and notes are shown visibly
(`tracker.engine.text.visible`), never sent to the terminal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tracker.engine import Encounter, Event
from tracker.engine.kinds import describe_args
from tracker.reading.roles import who
from tracker.engine.text import printable
from tracker.reading.viewing import DICE_WORDS


def describe(event: Event, *, by: bool = True) -> str:
    """One event in words, as `undo`, `redo` and the history view say it, with who made
    it ("(player bob)", "(GM alice)") when the event is signed and `by` is true."""
    text = _describe(event)
    return f"{text} ({who(event.by)})" if by and event.by else text


def _describe(event: Event) -> str:
    """An event in words, as its kind's row in the table of kinds says it."""
    return describe_args(event.kind, event.args)


def dice_words(args: dict[str, Any]) -> str:
    """' (dice typed by the player)': who decided a declaration's faces, as the GM and
    the table read it (the proposal, the approval screen, the log); '' when not recorded."""
    words = DICE_WORDS.get(str(args.get("dice", "")))
    return f" ({words})" if words else ""


def segment_of(encounter: Encounter, event: Event) -> int | None:
    """The segment an effective event was made on (from its first log line), if known.

    The log is in the order of the changes, so this reads back from the end: an undo
    (of the latest change) costs a few steps however long the fight."""
    found: int | None = None
    for entry in reversed(encounter.log):
        if entry.seq == event.seq:
            found = entry.segment
        elif found is not None or entry.seq < event.seq:
            break
    return found


def change_line(encounter: Encounter, event: Event, me: str = "") -> str:
    """`describe` plus the segment, with control characters made visible; who made the
    change is named unless it was `me` (the session saying it)."""
    at = segment_of(encounter, event) if event.kind != "advance" else None
    where = f" at segment {at}" if at is not None else ""
    signed = f" ({who(event.by)})" if event.by and event.by != me else ""
    return printable(describe(event, by=False) + where + signed)


@dataclass(frozen=True, slots=True)
class HistoryLine:
    """One change as the history lists it: its number, segment, words and author."""

    seq: int
    segment: int | None
    text: str
    by: str


def history(encounter: Encounter) -> list[HistoryLine]:
    """The effective changes, newest first (what undo would take back, in order)."""
    first: dict[int, int] = {}
    for entry in encounter.log:
        first.setdefault(entry.seq, entry.segment)
    out = []
    for event in reversed(encounter.effective_events()):
        at = event.args.get("to") if event.kind == "advance" else first.get(event.seq)
        out.append(HistoryLine(event.seq, at, printable(describe(event, by=False)), printable(who(event.by)) if event.by else ""))
    return out
