"""The roster: two rows per combatant (name, side, state, conditions; resource bars).

Rendered line by line, so a 500-combatant roster costs what the visible rows cost.
States are words as well as colours (acting, idle, airborne, surprised, down, hidden),
so the roster reads in 256 colours, in monochrome and to a screen reader alike.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tracker.engine import Combatant
from tracker.ui.live import Live

ROWS = 2
BAR = 6  # two resources with their figures fit the 38-column roster at 80x24


def visible_combatants(live: Live) -> list[Combatant]:
    combatants = list(live.encounter.combatants.values())
    if live.viewer:
        combatants = [c for c in combatants if not c.hidden]
    return combatants


def bar(value: float, maximum: float, width: int = BAR) -> str:
    """`█████░░░`: the filled part is value/maximum of the width, clamped to 0..width."""
    if maximum <= 0:
        return "░" * width
    filled = round(width * max(0.0, min(1.0, value / maximum)))
    return "█" * filled + "░" * (width - filled)


def _num(value: object) -> str:
    return f"{value:g}" if isinstance(value, (int, float)) else str(value)


class RosterView(ScrollView, can_focus=False):
    COMPONENT_CLASSES = {
        "roster--selected",
        "roster--name",
        "roster--down",
        "roster--acting",
        "roster--airborne",
        "roster--surprised",
        "roster--idle",
        "roster--bar",
        "roster--dim",
    }
    selected: reactive[int] = reactive(0, always_update=True)

    def __init__(self, live: Live, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.live = live
        self.combatants: list[Combatant] = []

    def on_mount(self) -> None:
        self.reload()

    @property
    def current(self) -> Combatant | None:
        if 0 <= self.selected < len(self.combatants):
            return self.combatants[self.selected]
        return None

    def reload(self) -> None:
        """Take the roster from the encounter again (after any change)."""
        name = self.current.name if self.current else None
        self.combatants = visible_combatants(self.live)
        if name is not None:
            for i, c in enumerate(self.combatants):
                if c.name == name:
                    self.selected = i
                    break
        self.selected = max(0, min(self.selected, len(self.combatants) - 1))
        self.virtual_size = Size(self.size.width, len(self.combatants) * ROWS)
        self.refresh()

    def select(self, index: int) -> None:
        if not self.combatants:
            return
        self.selected = max(0, min(index, len(self.combatants) - 1))
        self.scroll_to_region_of(self.selected)
        self.refresh()

    def select_name(self, name: str) -> None:
        for i, c in enumerate(self.combatants):
            if c.name == name:
                self.select(i)
                return

    def scroll_to_region_of(self, index: int) -> None:
        top = index * ROWS
        height = self.scrollable_content_region.height
        if top < self.scroll_y:
            self.scroll_to(y=top, animate=False)
        elif top + ROWS > self.scroll_y + height:
            self.scroll_to(y=top + ROWS - height, animate=False)

    def render_line(self, y: int) -> Strip:
        row = y + int(self.scroll_offset.y)
        index, part = divmod(row, ROWS)
        width = self.scrollable_content_region.width
        if index >= len(self.combatants):
            return Strip.blank(width, self.rich_style)
        c = self.combatants[index]
        base = self.rich_style
        selected = index == self.selected
        if selected:
            base = base + self.get_component_rich_style("roster--selected")
        segments = self._name_row(c, base, selected) if part == 0 else self._bars_row(c, base)
        return Strip(segments).adjust_cell_length(width, base).crop(0, width)

    def _name_row(self, c: Combatant, base: Style, selected: bool) -> list[Segment]:
        now = self.live.encounter.now
        state = c.state(now)
        style = base + self.get_component_rich_style(f"roster--{state}")
        out = [Segment("▶ " if selected else "  ", base), Segment(c.name, base + self.get_component_rich_style("roster--name"))]
        if c.side:
            out.append(Segment(f" [{c.side}]", base))
        out.append(Segment(f" {state}", style))
        extras: list[str] = []
        if state == "airborne":
            extras.append(f"until {c.airborne_until}")
        if state == "surprised":
            extras.append(f"until {c.surprised_until}")
        extras.extend(f"{a.template}→{a.completes}" for a in c.in_progress)
        extras.extend(f"{name}→{until}" for name, until in c.conditions.items())
        if c.hidden:
            extras.append("hidden")
        if extras:
            out.append(Segment(" · " + ", ".join(extras), base + self.get_component_rich_style("roster--dim")))
        return out

    def _bars_row(self, c: Combatant, base: Style) -> list[Segment]:
        out = [Segment("   ", base)]
        bar_style = base + self.get_component_rich_style("roster--bar")
        for key, value in c.resources.items():
            maximum = c.maxima.get(key, value)
            out.append(Segment(f"{key} ", base))
            if isinstance(value, (int, float)) and isinstance(maximum, (int, float)):
                out.append(Segment(bar(value, maximum), bar_style))
                out.append(Segment(f" {_num(value)}/{_num(maximum)}  ", base))
            else:
                out.append(Segment(f"{value}  ", base))
        return out
