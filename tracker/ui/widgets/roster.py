"""The roster: one row per combatant, and the detail panel of the selected one.

A row reads `▶ Name  state  cond→40  hp ████░░ 36/43  ep 66/74 …`: items are added
whole, in order of importance (name, state, the resource that puts the combatant down,
with its bar while the conditions still fit beside it, the conditions, the other
resources), while they fit; an item that does
not fit is left out and `+N` says how many are, so no figure is ever cut mid-number.
A wider terminal shows more of them. The detail panel (`DetailView`) shows everything
about the selected combatant: side, state, every resource and hit location, the
conditions with their ends, the actions in progress.

Decisions: docs/decisions/0021-roster-rows.md
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip
from textual.widgets import Static

from tracker.engine import Combatant
from tracker.engine.text import cells, fit, printable
from tracker.play.live import Changed, Live
from tracker.ui.widgets.redraw import LineDiffed, refresh_if_changed, set_virtual_height, touches, update_if_changed
from tracker.reading.viewing import Shown, shown, sight

ROWS = 1
GLANCE_ROWS = 2  # at most, per combatant in glance mode (80x24 keeps six combatants in view)
BAR = 5
NAME = 14  # at most; the column is as wide as the longest name needs


def visible_combatants(live: Live) -> list[Combatant]:
    return sight(live.encounter, live.seen_as).combatants()  # a player also sees their own hidden ones


def bar(value: float, maximum: float, width: int = BAR) -> str:
    """`█████░░░`: the filled part is value/maximum of the width, clamped to 0..width."""
    if maximum <= 0:
        return "░" * width
    filled = round(width * max(0.0, min(1.0, value / maximum)))
    return "█" * filled + "░" * (width - filled)


def level(value: object, maximum: object) -> str:
    """`high`, `mid` or `low`: how full a resource is (the colour of its bar)."""
    if not isinstance(value, (int, float)) or not isinstance(maximum, (int, float)) or maximum <= 0:
        return "high"
    ratio = value / maximum
    return "high" if ratio > 0.5 else "mid" if ratio > 0.25 else "low"


def _num(value: object) -> str:
    return f"{value:g}" if isinstance(value, (int, float)) else printable(str(value))


def figure(key: str, value: object, maximum: object) -> str:
    if isinstance(value, (int, float)) and isinstance(maximum, (int, float)):
        return f"{printable(key)} {_num(value)}/{_num(maximum)}"
    return f"{printable(key)} {_num(value)}"


def primary(c: Combatant) -> str | None:
    """The resource shown with a bar: the first that puts the combatant down."""
    for key in c.down_keys:
        if key in c.resources:
            return key
    return next(iter(c.resources), None)


class RosterView(LineDiffed, can_focus=False):
    COMPONENT_CLASSES = {
        "roster--selected",
        "roster--name",
        "roster--down",
        "roster--acting",
        "roster--airborne",
        "roster--surprised",
        "roster--idle",
        "roster--bar",
        "roster--high",
        "roster--mid",
        "roster--low",
        "roster--dim",
        "roster--condition",
    }
    selected: reactive[int] = reactive(0, always_update=True)

    class Clicked(Message):
        """A combatant was clicked: the screen selects it everywhere."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, live: Live, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.live = live
        self.combatants: list[Combatant] = []
        self._name_width = NAME
        self.glance = False
        self._rows = ROWS  # lines per combatant: ROWS, or up to GLANCE_ROWS in glance mode

    def set_glance(self, on: bool) -> None:
        self.glance = on
        self.reload()
        self.refresh()

    def on_resize(self) -> None:
        if self.glance:
            self.reload()
            self.refresh()

    def watch_show_vertical_scrollbar(self) -> None:
        # The scrollbar takes a column from the lines (rows added, or taken away, past the
        # pane's height): glance counts its rows again for the width now left.
        self.on_resize()

    def on_mount(self) -> None:
        self.reload()

    @property
    def current(self) -> Combatant | None:
        if 0 <= self.selected < len(self.combatants):
            return self.combatants[self.selected]
        return None

    def changed(self, change: Changed) -> None:
        if touches(change):
            self.reload()

    def reload(self) -> None:
        """Take the roster from the encounter again (after any change)."""
        name = self.current.name if self.current else None
        self.combatants = visible_combatants(self.live)
        if name is not None:
            for i, c in enumerate(self.combatants):
                if c.name == name:
                    self.set_reactive(RosterView.selected, i)
                    break
        # Set without the reactive's repaint: the roster repaints below only if it changed.
        self.set_reactive(RosterView.selected, max(0, min(self.selected, len(self.combatants) - 1)))
        self._name_width = min(NAME, max((cells(printable(c.name)) for c in self.combatants), default=4))
        self._rows = self._glance_rows() if self.glance else ROWS
        set_virtual_height(self, max(1, len(self.combatants) * self._rows))
        refresh_if_changed(self)

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
        rows = self._rows
        top = index * rows
        height = self.scrollable_content_region.height
        if top < self.scroll_y:
            self.scroll_to(y=top, animate=False)
        elif top + rows > self.scroll_y + height:
            self.scroll_to(y=top + rows - height, animate=False)

    def on_click(self, event: events.Click) -> None:
        index = (event.y + int(self.scroll_offset.y)) // self._rows
        if 0 <= index < len(self.combatants):
            self.post_message(self.Clicked(index))

    def render_line(self, y: int) -> Strip:
        row = y + int(self.scroll_offset.y)
        index, line = divmod(row, self._rows)
        width = self.scrollable_content_region.width
        base = self.rich_style
        if not self.combatants:
            hint = "no combatants yet (e: add)" if not self.live.viewer else "no combatants yet"
            text = hint if y == 0 else ""
            return Strip([Segment(text, base + self.get_component_rich_style("roster--dim"))]).adjust_cell_length(width, base).crop(0, width)
        if index >= len(self.combatants):
            return Strip.blank(width, base)
        c = self.combatants[index]
        selected = index == self.selected
        if selected:
            base = base + self.get_component_rich_style("roster--selected")
        if self.glance:
            return Strip(self._glance_line(c, base, selected, width, line)).adjust_cell_length(width, base).crop(0, width)
        return Strip(self._row(c, base, selected, width)).adjust_cell_length(width, base).crop(0, width)

    def _state_items(self, c: Combatant, base: Style) -> tuple[list[list[Segment]], Shown]:
        """A row's first items (state, hidden, the viewer's health label) and what this
        reader may see of the combatant's resources."""
        state = c.state(self.live.encounter.now)
        items: list[list[Segment]] = [[Segment(f" {state}", base + self.get_component_rich_style(f"roster--{state}"))]]
        if c.hidden:
            items.append([Segment(" hidden", base + self.get_component_rich_style("roster--dim"))])
        view = shown(self.live.encounter, c, self.live.as_viewer(c.name))
        if view.label:
            items.append([Segment(f" {view.label}", base + self.get_component_rich_style("roster--" + {"Healthy": "high", "Bloodied": "mid"}.get(view.label, "low")))])
        return items, view

    def _glance_items(self, c: Combatant, base: Style) -> list[list[Segment]]:
        """Glance mode's items in order: state, hidden, label, the down resource with its
        bar, conditions, every resource that has lost something, then the rest."""
        items, view = self._state_items(c, base)
        first = primary(c) if not view.withheld else None
        damaged: list[list[Segment]] = []
        whole: list[list[Segment]] = []
        head: list[list[Segment]] = []
        for key, value in view.resources.items():
            maximum = view.maxima.get(key, value)
            tone = base + self.get_component_rich_style(f"roster--{level(value, maximum)}")
            numeric = isinstance(value, (int, float)) and isinstance(maximum, (int, float))
            if key == first and numeric:
                head = [[Segment(f" {printable(key)} ", base), Segment(bar(value, maximum), tone), Segment(f" {_num(value)}/{_num(maximum)}", base)]]
            elif numeric and value < maximum:
                damaged.append([Segment(" " + figure(key, value, maximum), tone)])
            else:
                whole.append([Segment(" " + figure(key, value, maximum), tone)])
        cond_style = base + self.get_component_rich_style("roster--condition")
        conditions = [[Segment(f" {printable(n)}→{until}", cond_style)] for n, until in c.conditions.items()]
        return items + head + conditions + damaged + whole

    def _glance_rows(self) -> int:
        """One line per combatant when every combatant's items fit in one, else two."""
        width = self.scrollable_content_region.width or self.size.width
        room = width - 2 - self._name_width
        base = Style()
        for c in self.combatants:
            items = self._glance_items(c, base)
            if self._fits(items, room) < len(items):
                return GLANCE_ROWS
        return 1

    def _glance_line(self, c: Combatant, base: Style, selected: bool, width: int, line: int) -> list[Segment]:
        """Line `line` of a combatant's glance rows: items packed whole, line after line
        (the second under the first's items, past the name); `+N` on the last line only."""
        column = self._name_width
        room = width - 2 - column
        items = self._glance_items(c, base)
        for _ in range(line):  # skip what the lines above hold
            items = items[self._fits(items, room) :]
        if line == 0:
            out = [Segment("▶ " if selected else "  ", base), Segment(fit(c.name, column), base + self.get_component_rich_style("roster--name"))]
        else:
            out = [Segment(" " * (2 + column), base)]
        if line == self._rows - 1:
            return out + self._fill(items, room, base)
        return out + [s for item in items[: self._fits(items, room)] for s in item]

    def _row(self, c: Combatant, base: Style, selected: bool, width: int) -> list[Segment]:
        """Whole items while they fit; `+N` for the rest (never a figure cut)."""
        column = self._name_width
        out = [Segment("▶ " if selected else "  ", base), Segment(fit(c.name, column), base + self.get_component_rich_style("roster--name"))]
        used = 2 + column
        items, view = self._state_items(c, base)
        first = primary(c) if not view.withheld else None
        keys = ([first] if first else []) + [k for k in view.resources if k != first]
        figures: list[list[Segment]] = []
        with_bar: list[Segment] | None = None
        for key in keys:
            value, maximum = view.resources[key], view.maxima.get(key, view.resources[key])
            tone = base + self.get_component_rich_style(f"roster--{level(value, maximum)}")
            if key == first and isinstance(value, (int, float)) and isinstance(maximum, (int, float)):
                with_bar = [Segment(f" {printable(key)} ", base), Segment(bar(value, maximum), tone), Segment(f" {_num(value)}/{_num(maximum)}", base)]
            figures.append([Segment(" " + figure(key, value, maximum), tone)])
        cond_style = base + self.get_component_rich_style("roster--condition")
        conditions = [[Segment(f" {printable(n)}→{until}", cond_style)] for n, until in c.conditions.items()]
        # The resource that puts the combatant down first, then conditions, then the rest;
        # the bar is drawn when the conditions still fit beside it.
        plain = items + figures[:1] + conditions + figures[1:]
        if with_bar is not None:
            barred = items + [with_bar] + conditions + figures[1:]
            # Counted as drawn (`_kept`: room left for the `+N`), not just as fitting.
            if self._kept(barred, width - used) >= min(len(barred), len(items) + 1 + len(conditions)):
                plain = barred
        out.extend(self._fill(plain, width - used, base))
        return out

    @staticmethod
    def _fits(items: list[list[Segment]], room: int) -> int:
        count = 0
        for item in items:
            size = sum(cells(s.text) for s in item)
            if size > room:
                break
            room -= size
            count += 1
        return count

    @staticmethod
    def _kept(items: list[list[Segment]], room: int) -> int:
        """How many items `_fill` draws whole: each while it fits with room for the `+N`
        of those after it."""
        used = 0
        for i, item in enumerate(items):
            size = sum(cells(s.text) for s in item)
            rest = len(items) - i - 1
            if size > room - used - (len(f" +{rest}") if rest else 0):
                return i
            used += size
        return len(items)

    def _fill(self, items: list[list[Segment]], room: int, base: Style) -> list[Segment]:
        kept = self._kept(items, room)
        out = [s for item in items[:kept] for s in item]
        if kept < len(items):
            out.append(Segment(f" +{len(items) - kept}", base + self.get_component_rich_style("roster--dim")))
        return out


class DetailView(Static):
    """Everything about the selected combatant, wrapped between items (never mid-figure)."""

    COMPONENT_CLASSES = {"detail--high", "detail--mid", "detail--low", "detail--label"}

    def __init__(self, live: Live, **kwargs: object) -> None:
        super().__init__("", **kwargs)  # type: ignore[arg-type]
        self.live = live

    def changed(self, change: Changed, current: Combatant | None) -> None:
        """`current`: the roster's selection, taken after the roster heard of the change."""
        if touches(change):
            self.show(current)

    def show(self, c: Combatant | None) -> None:
        if c is None:
            hint = "Add combatants: e (roster editor), or :add NAME key=value" if not self.live.viewer else "No combatants yet."
            update_if_changed(self, Text(hint, style="italic"))
            return
        enc = self.live.encounter
        now = enc.now
        label_style = self.get_component_rich_style("detail--label")
        text = Text(no_wrap=False)
        text.append(printable(c.name), style="bold")
        if c.side:
            text.append(f" ({printable(c.side)})")
        text.append(f"  {c.state(now)}")
        if c.airborne(now):
            text.append(f" until {c.airborne_until}")
        elif c.surprised(now):
            text.append(f" until {c.surprised_until}")
        if c.hidden:
            text.append("  hidden from viewers")
        view = shown(enc, c, self.live.as_viewer(c.name))
        parts: list[Text] = []
        if view.label:
            parts.append(Text(view.label, style="bold"))
        elif view.withheld:
            parts.append(Text("resources hidden from viewers", style="italic"))
        for key, value in view.resources.items():
            maximum = view.maxima.get(key, value)
            parts.append(Text(figure(key, value, maximum), style=self.get_component_rich_style(f"detail--{level(value, maximum)}")))
        for name, until in c.conditions.items():
            parts.append(Text.assemble((printable(name), label_style), f" until {until}"))
        for action in c.in_progress:
            parts.append(Text(f"{printable(action.template)} {action.start}→{action.completes}"))
        # Items are packed into lines here, so a line breaks between items, never inside one.
        width = max(20, self.content_region.width or 38)
        column = width
        for part in parts:
            if column + 2 + part.cell_len > width:
                text.append("\n")
                column = 0
            elif column:
                text.append("  ")
                column += 2
            text.append_text(part)
            column += part.cell_len
        self._shown = c
        update_if_changed(self, text)

    def on_resize(self) -> None:
        if getattr(self, "_shown", None) is not None:
            self.show(self._shown)
