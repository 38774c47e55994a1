"""The combat log: every line a fight wrote, oldest first, kept as parts until read.

A fight writes a line or two for every change and most are never read (a long fight's
lines scroll past; a save holds the events, not the lines). So a line is kept as a plain
tuple of its fields, and the lines every action writes (one declared, one completing)
keep their text as a template and its values: `Log` turns a line into a `LogEntry`,
worded, when someone reads it, and keeps that entry in its place, so the same line read
twice is the same object (the log view finds a line by identity). A plain tuple is built
in one step, where an object's fields are set one by one, and the collector stops
walking it once it has seen it holds only text and numbers.

A stored line is `(segment, kind, text, about, seq, secret, while_hidden, private)`, the
fields of `LogEntry` in order; a line worded when read has its template for text and its
values after the eight (written where the line is made: `Actions._initiate`,
`Resolving._complete_each`), and `about` one name is that name, not a tuple of it
(a line made for every action allocates one object fewer).

Decisions: docs/decisions/0057-log-lines-worded-when-read.md, 0062-queue-by-segment.md
"""

from __future__ import annotations

from dataclasses import replace
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, overload

from tracker.engine.model import LogEntry, log_entry

# A line as the engine stores it: a plain tuple (worded on reading), or the entry made of it.
Line = tuple[Any, ...]


def entry_of(line: Line) -> LogEntry:
    """The LogEntry a stored line stands for, worded."""
    if line.__class__ is not tuple:
        return line  # type: ignore[return-value]  # already an entry
    if len(line) == 8:
        return log_entry(*line)
    segment, kind, template, about, seq, secret, while_hidden, private = line[:8]
    if about.__class__ is str:
        about = (about,)
    return log_entry(segment, kind, template.format(*line[8:]), about, seq, secret, while_hidden, private)


class Log(Sequence[LogEntry]):
    """The lines of a fight, read as `LogEntry` objects (see the module docstring)."""

    __slots__ = ("_lines", "write")

    def __init__(self, lines: Iterable[Line | LogEntry] = ()) -> None:
        self._lines: list[Any] = list(lines)
        # Adds a stored line (the engine's hot path: one bound call per line).
        self.write: Callable[[Line], None] = self._lines.append

    def __len__(self) -> int:
        return len(self._lines)

    @overload
    def __getitem__(self, index: int) -> LogEntry: ...

    @overload
    def __getitem__(self, index: slice) -> Log: ...

    def __getitem__(self, index: int | slice) -> LogEntry | Log:
        lines = self._lines
        if isinstance(index, slice):
            return Log(self._entry(i) for i in range(*index.indices(len(lines))))
        line = lines[index]
        if line.__class__ is tuple:
            line = lines[index] = entry_of(line)
        return line

    def _entry(self, index: int) -> LogEntry:
        return self[index]

    def __iter__(self) -> Iterator[LogEntry]:
        i = 0
        while i < len(self._lines):
            yield self[i]
            i += 1

    def __reversed__(self) -> Iterator[LogEntry]:
        for i in range(len(self._lines) - 1, -1, -1):
            yield self[i]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Log):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        if isinstance(other, list):
            return list(self) == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # changes, like a list

    def __repr__(self) -> str:
        return f"Log({list(self)!r})"

    def __setitem__(self, index: int, entry: LogEntry) -> None:
        self._lines[index] = entry

    def append(self, entry: LogEntry) -> None:
        self._lines.append(entry)

    def pop(self) -> LogEntry:
        return entry_of(self._lines.pop())

    def truncate(self, length: int) -> None:
        """Drop every line from `length` on (back to a checkpoint)."""
        del self._lines[length:]

    def copy(self) -> Log:
        """A log of its own with the same lines (those read so far as the same entries)."""
        return Log(self._lines)

    def renamed(self, old: str, swap: Callable[[str], str]) -> Log:
        """A new log whose lines about `old` are about it under its new name (`swap`); the
        text is kept as written. New: a replay's marks keep the lines as they were."""
        out = []
        for line in self._lines:
            about = line[3] if line.__class__ is tuple else line.about
            if about.__class__ is str:
                about = (about,)
            if old in about:
                about = tuple(swap(n) for n in about)
                line = (*line[:3], about, *line[4:]) if line.__class__ is tuple else replace(line, about=about)
            out.append(line)
        return Log(out)


__all__ = ["Line", "Log", "entry_of"]
