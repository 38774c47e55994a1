"""The timeline strip: one row per combatant over a window of segments around now.

Rows are rendered on demand (line API) and each row looks only at its own actor's
actions, found through an index kept incrementally, so the cost of a frame follows the
rows on screen, not the length of the fight.

Decisions: docs/decisions/0034-timeline-glyphs.md
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.message import Message
from textual.strip import Strip

from tracker.reading.glyphs import CONDITION_GLYPH, OVER_PASSIVE, PASSIVE_GLYPH, bar_glyph
from tracker.engine import ACTIVE, IN_PROGRESS, Action
from tracker.engine.text import clip, fit
from tracker.play.live import Changed, Live
from tracker.ui.widgets.redraw import LineDiffed, refresh_if_changed, set_virtual_height, touches
from tracker.ui.widgets.roster import visible_combatants

NAME = 12


def glyph(action: Action) -> str:
    return bar_glyph(action.mode, action.maintained)


class ActionIndex:
    """Actions by actor, extended as the log grows, rebuilt when undo refolds it or the
    roster is rebuilt: a rename rewrites the actors of earlier actions in place and gives
    the encounter a new roster mapping, so the renamed combatant's bars move with it and a
    newcomer under the old name starts with none."""

    def __init__(self) -> None:
        self._source: list[Action] | None = None
        self._roster: object = None
        self._seen = 0
        self.by_actor: dict[str, list[Action]] = {}

    def update(self, actions: list[Action], roster: object = None) -> None:
        if actions is not self._source or len(actions) < self._seen or roster is not self._roster:
            self._source, self._roster, self._seen, self.by_actor = actions, roster, 0, {}
        for action in actions[self._seen :]:
            self.by_actor.setdefault(action.actor, []).append(action)
        self._seen = len(actions)

    def window(self, actor: str, lo: int, hi: int) -> list[Action]:
        """The actor's actions that show anywhere in segments [lo, hi)."""
        found = []
        for action in reversed(self.by_actor.get(actor, ())):
            end = action.completes if action.status == IN_PROGRESS else (action.ended if action.ended is not None else action.completes)
            if action.start < hi and end >= lo:
                found.append(action)
            # Actions are stored in start order; stop once they start a long way back.
            if action.start < lo - 1000:
                break
        return found


class TimelineView(LineDiffed, can_focus=False):
    COMPONENT_CLASSES = {"timeline--axis", "timeline--now", "timeline--done", "timeline--active", "timeline--passive", "timeline--maintained", "timeline--selected", "timeline--round", "timeline--condition", "timeline--coming"}

    class Clicked(Message):
        """A combatant's row was clicked."""

        def __init__(self, name: str) -> None:
            super().__init__()
            self.name = name

    def on_click(self, event: events.Click) -> None:
        index = event.y - 1 + int(self.scroll_offset.y)
        if event.y >= 1 and 0 <= index < len(self.names):
            self.post_message(self.Clicked(self.names[index]))

    def __init__(self, live: Live, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.live = live
        self.pan = 0
        self.selected_name: str | None = None
        index = live.cache.get("timeline.actions")
        if not isinstance(index, ActionIndex):
            index = live.cache["timeline.actions"] = ActionIndex()
        self.index = index
        self.names: list[str] = []

    def on_mount(self) -> None:
        self.reload()

    def changed(self, change: Changed, selected: str | None) -> None:
        """`selected`: the roster's selection, taken after the roster heard of the change."""
        if touches(change):
            self.reload()
            self.follow(selected)

    def reload(self) -> None:
        self.index.update(self.live.encounter.actions, self.live.encounter.combatants)
        self.names = [c.name for c in visible_combatants(self.live)]
        set_virtual_height(self, len(self.names) + 1)
        refresh_if_changed(self)

    def follow(self, name: str | None) -> None:
        """Highlight `name`'s row and scroll it into view (kept in step with the roster)."""
        self.selected_name = name
        if name in self.names:
            row = self.names.index(name) + 1
            height = self.scrollable_content_region.height
            if row - 1 < self.scroll_y + 0:
                self.scroll_to(y=max(0, row - 1), animate=False)
            elif row >= self.scroll_y + height:
                self.scroll_to(y=row - height + 1, animate=False)
        refresh_if_changed(self)

    def bounds(self) -> tuple[int, int]:
        cells = max(1, self.scrollable_content_region.width - NAME)
        lo = max(0, self.live.encounter.now - cells // 4 + self.pan)
        return lo, lo + cells

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        if y == 0:
            return self._axis(width, base)
        index = y - 1 + int(self.scroll_offset.y)
        if index >= len(self.names):
            return Strip.blank(width, base)
        return self._row(self.names[index], width, base)

    def _axis(self, width: int, base: Style) -> Strip:
        lo, hi = self.bounds()
        now = self.live.encounter.now
        spr = self.live.encounter.time.segments_per_round
        cells = [" "] * (hi - lo)
        step = 10 if spr % 10 == 0 or spr > 20 else spr
        s = lo + (-lo % step)
        while s < hi:
            label = str(s)
            at = s - lo
            if at + len(label) <= len(cells) and all(c == " " for c in cells[at : at + len(label)]):
                cells[at : at + len(label)] = list(label)
            s += step
        axis_style = base + self.get_component_rich_style("timeline--axis")
        segments = [Segment("segment".ljust(NAME), axis_style)]
        coming = self.live.coming  # a replay's next moment: what is about to happen
        for i, ch in enumerate(cells):
            if lo + i == now:
                # Over a label the digit stays, in the now colour (the marker never hides it).
                mark = "▼" if ch == " " else ch
                segments.append(Segment(mark, axis_style + self.get_component_rich_style("timeline--now") + Style(reverse=ch != " ")))
            elif lo + i == coming:
                segments.append(Segment("▽" if ch == " " else ch, axis_style + self.get_component_rich_style("timeline--coming") + Style(reverse=ch != " ")))
            else:
                segments.append(Segment(ch, axis_style))
        return Strip(segments).adjust_cell_length(width, base)

    def _row(self, name: str, width: int, base: Style) -> Strip:
        lo, hi = self.bounds()
        enc = self.live.encounter
        now = enc.now
        spr = enc.time.segments_per_round
        cells: list[tuple[str, str]] = [("┊" if (lo + i) % spr == 0 else " ", "timeline--round" if (lo + i) % spr == 0 else "") for i in range(hi - lo)]
        # Passive first so an active bar drawn later wins the cells they share.
        actions = sorted(self.index.window(name, lo, hi), key=lambda a: (a.mode == ACTIVE, a.start))
        for action in actions:
            live_bar = action.status == IN_PROGRESS
            end = action.completes if live_bar else (action.ended if action.ended is not None else action.completes)
            cut = action.status not in (IN_PROGRESS, "completed")
            cls = "timeline--done" if not live_bar else ("timeline--maintained" if action.maintained else f"timeline--{action.mode}")
            g = glyph(action)
            for s in range(max(action.start, lo), min(end, hi)):
                under = cells[s - lo][0]
                cells[s - lo] = (OVER_PASSIVE.get(g, g) if under == PASSIVE_GLYPH else g, cls)
            if lo <= end < hi:
                cells[end - lo] = ("×" if cut else "┤", cls)
        combatant = enc.combatants.get(name)
        conditions = dict(combatant.conditions) if combatant is not None else {}
        if conditions:
            cond_style = "timeline--condition"
            last = max(conditions.values())
            for s in range(max(now, lo), min(last + 1, hi)):
                if cells[s - lo][0] in (" ", "┊"):
                    cells[s - lo] = (CONDITION_GLYPH, cond_style)
        label_style = base + (self.get_component_rich_style("timeline--selected") if name == self.selected_name else Style())
        mark = "*" if conditions else ""
        room = NAME - 1 - len(mark)
        label = fit(clip(name, room) + mark, NAME)  # in cells: wide names and marks keep the bars in line
        segments = [Segment(label, label_style)]
        now_style = self.get_component_rich_style("timeline--now")
        coming = self.live.coming
        for i, (ch, cls) in enumerate(cells):
            style = base + self.get_component_rich_style(cls) if cls else base
            if lo + i == coming and ch in ("┤", "×"):
                style = style + self.get_component_rich_style("timeline--coming")  # lands next
            if lo + i == now:
                if ch in (" ", "┊", CONDITION_GLYPH):
                    ch, style = "│", base + now_style
                else:
                    style = style + Style(reverse=True)
            segments.append(Segment(ch, style))
        return Strip(segments).adjust_cell_length(width, base)
