"""The combat log: every line of `encounter.log`, with each roll's faces.

A declare or maintain line is followed by the dice the adapter recorded (from the
event that made it), so the log shows both the faces and their meaning (the adapter's
summary). Lines are word-wrapped to the widget's width; only the lines on screen are
styled and cut into segments. Wrapping is cached by text, and the row count of each
entry is kept as a prefix sum, so growing the log by a few lines costs a few lines.
The view follows the end of the log unless the reader has scrolled back (by keys,
wheel or scrollbar); scrolling back to the end follows again. The scrollbar has its
own column at all times (a stable gutter), so a wrapped line never loses its last
letter under it.

Filter and search: `only` keeps the entries about one combatant, `search` the entries
whose text holds a string (any case); both at once narrow further.

At a shared table (the file holds changes signed by more than one person), each
change's first line names who made it (`tracker.roles.who`: "GM alice", "player bob";
an approved proposal: the player's, approved by the GM); moving time (next, step) is
not signed, being always the GM's. A file with one author has nobody to tell apart,
so its lines stay as they were. A player or a
viewer sees the lines `tracker.roles.visible_to` allows: a player also sees the
private lines about their own combatants (their proposals, the GM's refusal and why).

Viewers never see a secret roll's dice (nor its outcome: those lines are secret in the
engine), nor lines written while a combatant they concern was hidden, and see enemies'
figures as the GM set (tracker/viewing.py). Text from the file is shown through
`visible` and never read as markup.
"""

from __future__ import annotations

import textwrap
from bisect import bisect_right
from itertools import accumulate

from rich.segment import Segment
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tracker.engine import Event, LogEntry, Resolution
from tracker.roles import visible_to, who
from tracker.text import visible
from tracker.ui.live import Live
from tracker.viewing import log_text, mode_of

PREFIX = 6  # "[137] "


def dice_of(event: Event | None) -> tuple[int, ...]:
    if event is None or event.kind not in ("declare", "maintain"):
        return ()
    resolution = event.args.get("resolution")
    if isinstance(resolution, Resolution):
        return resolution.dice
    if isinstance(resolution, dict):
        return tuple(resolution.get("dice", ()))
    return ()


def secret_event(event: Event | None) -> bool:
    return event is not None and bool(event.args.get("secret", False))


def entry_text(entry: LogEntry, events: list[Event], viewer: bool = False, encounter: object = None) -> str:
    """A log line as this reader sees it, with the faces of a declaration's dice."""
    text = log_text(encounter, entry, viewer) if encounter is not None else entry.text  # type: ignore[arg-type]
    if entry.kind == "declare" and 0 < entry.seq <= len(events):
        event = events[entry.seq - 1]
        faces = dice_of(event)
        if faces and not (viewer and secret_event(event)):
            text += f" [dice {' '.join(map(str, faces))}]"
    return visible(text)


class CombatLog(ScrollView, can_focus=False):
    COMPONENT_CLASSES = {"log--segment", "log--declare", "log--damage", "log--down", "log--complete", "log--note"}

    def __init__(self, live: Live, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.live = live
        self._entries: list[LogEntry] = []
        self._source: list[LogEntry] | None = None
        self._seen = 0
        self._width = 0
        self._rows: list[int] = []  # prefix sums of rows per entry
        self._wraps: dict[tuple[str, int], list[str]] = {}
        self.follow = True
        self._hidden: tuple[str, ...] = ()
        self.only: str | None = None  # show the entries about this combatant
        self.search = ""  # show the entries holding this text (any case)
        self._filter: tuple[str | None, str, str, bool] = (None, "", "", False)
        self._heads: set[int] = set()  # id() of each change's first line shown: it names who
        self._last_seq = -1
        self._authors: set[str] = set()  # the `by` of the events read so far
        self._events_read = 0

    def on_mount(self) -> None:
        self.reload()

    def on_resize(self) -> None:
        self.reload()

    def _wrap(self, text: str, width: int) -> list[str]:
        key = (text, width)
        found = self._wraps.get(key)
        if found is None:
            found = textwrap.wrap(text, max(8, width), subsequent_indent="  ") or [""]
            if len(self._wraps) > 50_000:
                self._wraps.clear()
            self._wraps[key] = found
        return found

    def _text(self, entry: LogEntry) -> str:
        text = entry_text(entry, self.live.encounter.events, self.live.viewer, self.live.encounter)
        return text + self._signed(entry) if id(entry) in self._heads else text

    def _signed(self, entry: LogEntry) -> str:
        events = self.live.encounter.events
        event = events[entry.seq - 1] if 0 < entry.seq <= len(events) else None
        if event is None or event.kind in ("next", "step") or not event.by and event.kind != "approve":
            return ""
        if event.kind == "approve":
            target = event.args.get("target", 0)
            player = events[target - 1].by if isinstance(target, int) and 0 < target <= len(events) else ""
            if player:
                return visible(f" · {who(player)}, approved by {who(event.by)}")
        return visible(f" · {who(event.by)}")

    def _wanted(self, entry: LogEntry) -> bool:
        if self.only is not None and self.only not in entry.about:
            return False
        return not self.search or self.search.casefold() in self._text(entry).casefold()

    def set_filter(self, only: str | None, search: str) -> None:
        self.only, self.search = only, search
        self.reload()

    def reload(self) -> None:
        enc = self.live.encounter
        log = enc.log
        width = max(10, self.scrollable_content_region.width - PREFIX)
        hidden = tuple(n for n, c in enc.combatants.items() if c.hidden) if self.live.viewer else ()
        events = enc.events
        if len(events) < self._events_read:
            self._authors, self._events_read = set(), 0
        self._authors.update(e.by for e in events[self._events_read :] if e.by)
        self._events_read = len(events)
        shared = len(self._authors) > 1
        wanted = (self.only, self.search, mode_of(enc), shared)
        if log is not self._source or len(log) < self._seen or width != self._width or hidden != self._hidden or wanted != self._filter:
            self._source, self._seen, self._width, self._hidden, self._filter = log, 0, width, hidden, wanted
            self._entries, self._rows = [], []
            self._heads, self._last_seq = set(), -1
        new = log[self._seen :]
        if self.live.viewer:
            role = self.live.seen_as
            new = [e for e in new if visible_to(role, e, hidden)]
        for e in new if shared else ():  # before the search: "player bob" finds their changes
            if e.seq and e.seq != self._last_seq:
                self._heads.add(id(e))
            self._last_seq = e.seq
        if self.only is not None or self.search:
            new = [e for e in new if self._wanted(e)]
        self._seen = len(log)
        start = self._rows[-1] if self._rows else 0
        counts = [len(self._wrap(self._text(e), width)) for e in new]
        self._entries.extend(new)
        self._rows.extend(list(accumulate(counts, initial=start))[1:])
        total = self._rows[-1] if self._rows else 0
        at_end = self.follow
        self.virtual_size = Size(self.size.width, total)
        if at_end:
            self.scroll_to(y=max(0, total - self.scrollable_content_region.height), animate=False)
            self.call_after_refresh(self._to_end)
        self.refresh()

    def _to_end(self) -> None:
        if self.follow:
            self.scroll_to(y=self.max_scroll_y, animate=False)

    def scroll_lines(self, rows: int) -> None:
        target = max(0, min(self.scroll_y + rows, self.max_scroll_y))
        self.scroll_to(y=target, animate=False)
        self.follow = target >= self.max_scroll_y

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        # Scrolled back by wheel or scrollbar: stop following; back at the end: follow.
        if new < old:
            self.follow = new >= self.max_scroll_y
        elif new >= self.max_scroll_y:
            self.follow = True

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        row = y + int(self.scroll_offset.y)
        if not self._rows or row >= self._rows[-1]:
            return Strip.blank(width, base)
        index = bisect_right(self._rows, row)
        first = self._rows[index - 1] if index else 0
        entry = self._entries[index]
        lines = self._wrap(self._text(entry), self._width)
        part = row - first
        style = base + self.get_component_rich_style(f"log--{entry.kind}") if f"log--{entry.kind}" in self.COMPONENT_CLASSES else base
        head = f"[{entry.segment}]".ljust(PREFIX) if part == 0 else " " * PREFIX
        segments = [Segment(head, base + self.get_component_rich_style("log--segment")), Segment(lines[part] if part < len(lines) else "", style)]
        return Strip(segments).adjust_cell_length(width, base)
