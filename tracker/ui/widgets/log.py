"""The combat log: every line of `encounter.log`, with each roll's faces.

A declare or maintain line is followed by the dice the adapter recorded (from the
event that made it), so the log shows both the faces and their meaning (the adapter's
summary). Lines are word-wrapped to the widget's width; only the lines on screen are
styled and cut into segments.

Decisions: docs/decisions/0013-combat-log.md
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from itertools import accumulate

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tracker.engine import Encounter, Event, LogEntry
from tracker.reading.roles import Role, visible_to, who
from tracker.engine.text import printable, wrap
from tracker.play.live import Changed, Live
from tracker.ui.widgets.redraw import place_scrollbar, scrollbar_once, set_virtual_height
from tracker.reading.viewing import mode_of, sight

PREFIX = 6  # "[137] "


def entry_text(entry: LogEntry, encounter: Encounter, reader: Role) -> str:
    """A log line as this reader sees it (`tracker.reading.viewing.Sight.line`), safe to show."""
    return printable(sight(encounter, reader).line(entry))


class Authors:
    """Who signed the events read so far (kept in `Live.cache`, extended as events come)."""

    def __init__(self, events: list[Event]) -> None:
        self.events = events
        self.read = 0
        self.names: set[str] = set()

    def update(self) -> bool:
        """Read the new events; whether more than one person signed the file."""
        if len(self.names) <= 1:
            self.names.update(e.by for e in self.events[self.read :] if e.by)
        self.read = len(self.events)
        return len(self.names) > 1


class CombatLog(ScrollView, can_focus=False):
    COMPONENT_CLASSES = {"log--segment", "log--declare", "log--damage", "log--down", "log--complete", "log--note"}

    TAIL = 300  # entries kept while following the newest (older ones are dropped again)
    CHUNK = 200  # entries loaded at a time when the reader scrolls back
    SCREENS = 3  # at least this many screens of rows are loaded, when the log has them

    def __init__(self, live: Live, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.live = live
        self._entries: list[LogEntry] = []  # the loaded entries, oldest first
        self._at: list[int] = []  # each loaded entry's index in the encounter's log
        self._lines: list[list[str]] = []  # each loaded entry wrapped to the width
        self._rows: list[int] = []  # prefix sums of rows per loaded entry
        self._source: Sequence[LogEntry] | None = None
        self._seen = 0  # log[:_seen] has been considered at the newest end
        self._first = 0  # log[:_first] is not loaded yet (scrolling back loads it)
        self._width = 0
        self.wrapped = 0  # entries wrapped so far: what a change or a scroll cost
        self.follow = True
        self._hidden: tuple[str, ...] = ()
        self.only: str | None = None  # show the entries about this combatant
        self.search = ""  # show the entries holding this text (any case)
        self._filter: tuple[str | None, str, str, bool] = (None, "", "", False)
        self._signing = False  # at a shared table: a change's first line names who made it
        self._shifting = False  # loading older entries moves the view: not the reader's scroll
        self._shown_size = Size(0, 0)  # the size the last reload laid the lines out for
        self._looks: tuple[Style, dict[str, Style]] | None = None  # while drawing lines (render_lines)

    def on_mount(self) -> None:
        self.reload()

    def on_resize(self) -> None:
        self.reload()

    @property
    def older(self) -> bool:
        """Whether older lines exist that are not loaded (scrolling back loads them)."""
        return self._first > 0

    @property
    def first_loaded(self) -> int:
        """Where the loaded lines start in the encounter's log: its entries before this
        index are not loaded yet (scrolling back loads them)."""
        return self._first

    @property
    def loaded(self) -> tuple[LogEntry, ...]:
        """The log entries this reader has loaded under the filter, oldest first."""
        return tuple(self._entries)

    def loaded_lines(self) -> list[str]:
        """The loaded entries as this reader reads them (at a shared table, a change's
        first line names who made it), oldest first, before wrapping."""
        return [self._text(entry, index) for entry, index in zip(self._entries, self._at)]

    @property
    def rows(self) -> int:
        """Screen rows the loaded lines take at the pane's width (what the scrollbar spans)."""
        return self._rows[-1] if self._rows else 0

    def _text(self, entry: LogEntry, index: int | None = None) -> str:
        """The line as this reader sees it (signed if it opens a change at a shared
        table); `index`, its place in the log, is looked up when not given."""
        text = entry_text(entry, self.live.encounter, self.live.seen_as)
        if not self._signing:
            return text
        if index is None:
            index = self._index_of(entry)
        return text + self._signed(entry) if index is not None and self._head(index) else text

    def _index_of(self, entry: LogEntry) -> int | None:
        for at, loaded in zip(self._at, self._entries):
            if loaded is entry:
                return at
        return next((i for i, e in enumerate(self.live.encounter.log) if e is entry), None)

    def _signed(self, entry: LogEntry) -> str:
        events = self.live.encounter.events
        event = events[entry.seq - 1] if 0 < entry.seq <= len(events) else None
        # Moving time (`next`, `step`: an "advance" event) is always the GM's: not signed.
        if event is None or event.kind == "advance" or not event.by and event.kind != "approve":
            return ""
        if event.kind == "approve":
            target = event.args.get("target", 0)
            player = events[target - 1].by if isinstance(target, int) and 0 < target <= len(events) else ""
            if player:
                return printable(f" · {who(player)}, approved by {who(event.by)}")
        return printable(f" · {who(event.by)}")

    def _seen_by_reader(self, entry: LogEntry) -> bool:
        return not self.live.viewer or visible_to(self.live.seen_as, entry, self._hidden)

    def _head(self, index: int) -> bool:
        """Whether this is the first line of its change the reader sees (it names who).
        A change's lines are contiguous in the log: look back over its own lines only."""
        log = self.live.encounter.log
        seq = log[index].seq
        if not seq:
            return False
        back = index - 1
        while back >= 0 and log[back].seq == seq:
            if self._seen_by_reader(log[back]):
                return False
            back -= 1
        return True

    def _shown(self, index: int) -> str | None:
        """The text of log line `index` if this reader sees it under the filter, else None."""
        entry = self.live.encounter.log[index]
        if not self._seen_by_reader(entry):
            return None
        if self.only is not None and self.only not in entry.about:
            return None
        text = self._text(entry, index)  # signed before the search: "player bob" finds their changes
        if self.search and self.search.casefold() not in text.casefold():
            return None
        return text

    def _wrap(self, text: str) -> list[str]:
        self.wrapped += 1
        return wrap(text, max(8, self._width), "  ")

    def set_filter(self, only: str | None, search: str) -> None:
        """Show only `only`'s entries and/or those holding `search`; the view starts at
        the newest match."""
        self.only, self.search = only, search
        self.follow = True
        self.reload()

    def _reset(self, log: Sequence[LogEntry]) -> None:
        self._source, self._seen, self._first = log, len(log), len(log)
        self._entries, self._at, self._lines, self._rows = [], [], [], []

    def _restack(self) -> None:
        self._rows = list(accumulate(len(lines) for lines in self._lines))

    def changed(self, change: Changed) -> None:
        """Every change may add lines. A log filtered on a combatant follows it through a
        rename (a newcomer under the old name is somebody else); after an undo, or the
        file read again, the filter stays as it was."""
        for event in () if change.whole else change.events:
            if event.kind == "rename" and self.only is not None and event.args.get("target") == self.only:
                self.only = str(event.args.get("name"))
        self.reload()

    def reload(self) -> None:
        """Bring the view up to the encounter: new entries appended at the end (only
        those are read and wrapped); a filter, a reader's hidden set or a shorter log
        starts again from the newest entries."""
        with scrollbar_once(self):
            self._reload()

    def _reload(self) -> None:
        enc = self.live.encounter
        log = enc.log
        width = max(10, self.scrollable_content_region.width - PREFIX)
        hidden = tuple(n for n, c in enc.combatants.items() if c.hidden) if self.live.viewer else ()
        authors = self.live.cache.get("log.authors")
        if not isinstance(authors, Authors) or authors.events is not enc.events or len(enc.events) < authors.read:
            authors = self.live.cache["log.authors"] = Authors(enc.events)
        shared = authors.update()
        wanted = (self.only, self.search, mode_of(enc), shared)
        before = (self._source, self._seen, self._first, self._width, self.size)
        whole = False  # every line on screen to draw again
        if log is not self._source or len(log) < self._seen or hidden != self._hidden or wanted != self._filter:
            self._hidden, self._filter, self._signing = hidden, wanted, shared
            self._reset(log)
            whole = True  # started again
        if width != self._width:
            self._width = width
            self._lines = [self._wrap(self._text(e, i)) for e, i in zip(self._entries, self._at)]
            self._restack()
            whole = True
        if before == (log, len(log), self._first, width, self.size) and self._shown_size == self.size:
            return  # nothing new to show: no repaint (a change elsewhere on the screen)
        whole = whole or self._shown_size != self.size
        self._shown_size = self.size
        start = row = self._rows[-1] if self._rows else 0
        for index in range(self._seen, len(log)):
            text = self._shown(index)
            if text is not None:
                lines = self._wrap(text)
                self._entries.append(log[index])
                self._at.append(index)
                self._lines.append(lines)
                row += len(lines)
                self._rows.append(row)
        added_at = start  # the first new row, as it will stand
        self._seen = len(log)
        if self.follow and len(self._entries) > self.TAIL + self.CHUNK:
            added_at -= self._drop_oldest(len(self._entries) - self.TAIL)
        added_at -= self._fill()
        total = self._rows[-1] if self._rows else 0
        laid_out = set_virtual_height(self, total)
        top = self.scroll_offset.y
        if self.follow:
            self._scroll(max(0, total - self.scrollable_content_region.height))
            if laid_out:  # (tracker.ui.widgets.redraw) the layout sets the view's height: to the end again after it
                self.call_after_refresh(self._to_end)
        if whole or laid_out or added_at != start or self.scroll_offset.y != top:
            self.refresh()  # every line on screen moved (a scroll refreshes them too)
        else:
            # Appended below what was there: only the new rows, where they are on screen
            # (none when the reader has scrolled back; the scrollbar redraws itself).
            self.refresh_lines(added_at, total - added_at)

    def _scroll(self, y: float) -> None:
        # At once (not after the next frame, Textual's default), and even before the
        # layout has noticed that the content grew past the screen. The widget's own
        # moves are not the reader's: they neither stop following nor load older lines.
        shifting, self._shifting = self._shifting, True
        try:
            self.scroll_to(y=y, animate=False, force=True, immediate=True)
        finally:
            self._shifting = shifting

    def _need(self) -> int:
        return self.SCREENS * max(1, self.scrollable_content_region.height)

    def _fill(self) -> int:
        """Load older entries until a few screens of rows (and some entries) are there;
        the rows added (before those that were there)."""
        added = 0
        while self.older and ((self._rows[-1] if self._rows else 0) < self._need() or len(self._entries) < self.CHUNK // 2):
            added += self._load_older(self.CHUNK)
        return added

    def _drop_oldest(self, count: int) -> int:
        """Forget the oldest loaded entries (the newest are followed); they load again
        when the reader scrolls back to them. A few screens of rows always stay. The
        rows dropped."""
        count = min(count, bisect_right(self._rows, self._rows[-1] - self._need()), len(self._entries) - self.CHUNK // 2)
        if count <= 0:
            return 0
        dropped = self._rows[count - 1]
        self._first = self._at[count]
        del self._entries[:count], self._at[:count], self._lines[:count]
        self._restack()
        return dropped

    def _load_older(self, count: int) -> int:
        """Load up to `count` more entries before the oldest loaded one; the rows added."""
        log = self.live.encounter.log
        found: list[tuple[int, LogEntry, list[str]]] = []
        index = self._first
        while index > 0 and len(found) < count:
            index -= 1
            text = self._shown(index)
            if text is not None:
                found.append((index, log[index], self._wrap(text)))
        self._first = index
        if not found:
            return 0
        found.reverse()
        self._at[:0] = [i for i, _, _ in found]
        self._entries[:0] = [e for _, e, _ in found]
        self._lines[:0] = [lines for _, _, lines in found]
        self._restack()
        return sum(len(lines) for _, _, lines in found)

    def _back(self, top: float) -> None:
        """The view is heading for row `top`: if that is near the oldest loaded row and
        older lines exist, load them first and keep the view where it was."""
        height = max(1, self.scrollable_content_region.height)
        if top >= height or not self.older or self._shifting:
            return
        added = self._load_older(self.CHUNK)
        if not added:
            return
        set_virtual_height(self, self._rows[-1])
        self._scroll(self.scroll_y + added)
        self.refresh()

    def _to_end(self) -> None:
        if self.follow:
            self._scroll(self.max_scroll_y)

    def watch_show_vertical_scrollbar(self, shown: bool) -> None:
        # A scrollbar that appears (the layout shows it once the rows outgrow the view)
        # missed the scroll to the newest line made before: Textual tells a scrollbar
        # where the view is only as the view scrolls.
        if shown:
            self.vertical_scrollbar.position = self.scroll_y

    def scroll_lines(self, rows: int) -> None:
        self._back(self.scroll_y + rows)
        target = max(0, min(self.scroll_y + rows, self.max_scroll_y))
        self.scroll_to(y=target, animate=False, force=True, immediate=True)
        self.follow = target >= self.max_scroll_y

    def watch_scroll_y(self, old: float, new: float) -> None:
        # ScrollView's own, but the scrollbar redrawn only when its thumb moves on screen.
        if self.show_vertical_scrollbar:
            place_scrollbar(self, position=new)
        if round(old) != round(new):
            self.refresh(self.size.region)
        if self._shifting:
            return
        # Scrolled back by wheel or scrollbar: stop following; back at the end: follow.
        if new < old:
            self.follow = new >= self.max_scroll_y
            self._back(new)
        elif new >= self.max_scroll_y:
            self.follow = True

    def _looks_now(self) -> tuple[Style, dict[str, Style]]:
        """The base style, and each kind's (the segment number's too) as lines need it,
        in the reader's theme."""
        return self.rich_style, {}

    def _look(self, kind: str, base: Style, kinds: dict[str, Style]) -> Style:
        look = kinds.get(kind)
        if look is None:
            name = f"log--{kind}"
            look = kinds[kind] = base + self.get_component_rich_style(name) if name in self.COMPONENT_CLASSES else base
        return look

    def render_lines(self, crop: Region) -> list[Strip]:
        # The styles once for all the lines drawn together (each look-up walks up the DOM).
        self._looks = self._looks_now()
        try:
            return super().render_lines(crop)
        finally:
            self._looks = None

    def render_line(self, y: int) -> Strip:
        base, kinds = self._looks or self._looks_now()
        width = self.scrollable_content_region.width
        row = y + int(self.scroll_offset.y)
        if not self._rows or row >= self._rows[-1]:
            return Strip.blank(width, base)
        index = bisect_right(self._rows, row)
        first = self._rows[index - 1] if index else 0
        entry = self._entries[index]
        lines = self._lines[index]
        part = row - first
        style = self._look(entry.kind, base, kinds)
        head = f"[{entry.segment}]".ljust(PREFIX) if part == 0 else " " * PREFIX
        segments = [Segment(head, self._look("segment", base, kinds)), Segment(lines[part] if part < len(lines) else "", style)]
        return Strip(segments).adjust_cell_length(width, base)
