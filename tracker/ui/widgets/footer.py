"""The footer of every screen: the screen's keys in one line, drawn as Textual's Footer
draws them, by one widget.

Textual's Footer is a container with a widget per key (a `FooterKey`, each composed,
styled, laid out and rendered on its own): on the encounter screen eleven of them, about
a tenth of all the work before its first frame, for a line of which eight keys show at
80 columns. Here the same line is one widget's one line: the keys the Footer would show
(each action once, by its first binding; a key whose binding is disabled dimmed), each
as `' key '` then `'description '` in the footer's key and description styles, over the
key's own background, left to right, cut at the screen's edge (the mouse wheel scrolls
the rest into view, as Textual's does); the command palette's key docked at the right
after a thin bar, in the Footer's compact style. The styles are the Footer's own, from
the same theme variables, stacked as Textual stacks a key's over the footer's; a test
compares the line, cell by cell and style by style, with Textual's Footer's on the same
screens, themes, disabled keys and pointer (tests/test_ui_footer.py). That holds for what
the tracker's stylesheet and themes set; a stylesheet that gave the footer an `opacity`
below 1 (none of ours does) would get cells close to, not the same as, Textual's.

A key is clicked as in Textual's: a press runs it (`App.simulate_key`), or rings the bell
if it is disabled; the pointer over a key lights it (the Footer's hover style) and shows
its tooltip. A binding group (`Binding.Group`, which the Footer draws as one label for
several keys) is drawn key by key here: the tracker's key tables have none.

With `at_once` the keys are drawn with the screen's first frame (the encounter screen:
no widget takes the focus as it opens, so its keys do not change then). Otherwise the
footer stays blank until the screen first says its keys changed, as Textual's does, so a
screen whose list takes the focus as it opens (the start screen's table takes enter) does
not show keys for a frame that the focus then changes. After that, a change of the keys
redraws the line; a "bindings changed" that leaves them as they were draws nothing.

Decisions: docs/decisions/0059-first-screen.md
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.color import Color
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget

from tracker.engine.text import cells, printable

BAR = "▏"  # Textual's `vkey` border, left of the palette's key


@dataclass(frozen=True, slots=True)
class FooterEntry:
    """One key as the footer shows it."""

    key: str  # what `App.simulate_key` is given when it is clicked
    key_display: str
    description: str
    enabled: bool
    tooltip: str


@dataclass(frozen=True, slots=True)
class _Placed:
    entry: FooterEntry
    start: int  # cells from the line's start
    segments: tuple[Segment, ...]


class KeyFooter(Widget, can_focus=False):
    """The screen's keys, drawn in one line (see the module's docstring)."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES = {
        "footer-key",
        "footer-key--hover",
        "footer-key--disabled",
        "footer-key--key",
        "footer-key--description",
        "footer-key--palette",
    }
    # Textual's Footer and FooterKey styles, as components of one widget.
    DEFAULT_CSS = """
    KeyFooter {
        dock: bottom;
        height: 1;
        color: $footer-foreground;
        background: $footer-background;
        .footer-key { background: $footer-item-background; }
        .footer-key--hover { color: $footer-key-foreground; background: $block-hover-background; }
        .footer-key--disabled { text-style: dim; }
        .footer-key--key { color: $footer-key-foreground; background: $footer-key-background; text-style: bold; }
        .footer-key--description { color: $footer-description-foreground; background: $footer-description-background; }
        .footer-key--palette { color: $foreground 20%; }
    }
    """

    def __init__(self, *, at_once: bool = False, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._ready = at_once
        self._shown: tuple[tuple[FooterEntry, ...], FooterEntry | None] | None = None
        self._hover: FooterEntry | None = None
        self._scroll = 0  # cells of the keys scrolled out at the left
        self._styles: dict[tuple[str | None, ...], Style] = {}

    # ------------------------------------------------------------ what is shown

    def shown(self) -> tuple[tuple[FooterEntry, ...], FooterEntry | None]:
        """The keys Textual's Footer would show for the screen, and the palette's key."""
        active = self.screen.active_bindings
        app = self.app
        keys: list[FooterEntry] = []
        actions: set[str] = set()
        for _, binding, enabled, tooltip in active.values():
            if not binding.show or binding.action in actions:
                continue  # each action once, by its first binding (as the Footer)
            actions.add(binding.action)
            keys.append(FooterEntry(binding.key, printable(app.get_key_display(binding)), printable(binding.description), enabled, tooltip))
        palette = None
        if app.ENABLE_COMMAND_PALETTE and app.COMMAND_PALETTE_BINDING in active:
            _, binding, enabled, tooltip = active[app.COMMAND_PALETTE_BINDING]
            tip = binding.tooltip or binding.description
            palette = FooterEntry(binding.key, printable(app.get_key_display(binding)), printable(binding.description), enabled, tip)
        return tuple(keys), palette

    def entries(self) -> list[FooterEntry]:
        """Every key on the line, the palette's last (empty while the footer waits)."""
        if not self._ready:
            return []
        keys, palette = self._current()
        return [*keys, *([palette] if palette is not None else [])]

    def _current(self) -> tuple[tuple[FooterEntry, ...], FooterEntry | None]:
        if self._shown is None:
            self._shown = self.shown()
        return self._shown

    # ------------------------------------------------------------ keeping up with the screen

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen[Any]) -> None:
        if not self.is_attached or screen is not self.screen:
            return
        now = self.shown()
        if self._ready and now == self._shown:
            return
        self._ready = True
        self._shown = now
        self._hover = None
        self.tooltip = None
        self._scroll = 0  # as Textual's footer, built again, starts at the left
        self.refresh()

    # ------------------------------------------------------------ drawing

    def _style(self, item: list[str], part: str | None = None) -> Style:
        """The style Textual gives a FooterKey (`item`: its rules, merged as one widget's)
        or a part of it (`part`): the footer's own, then the key's, then the part's."""
        known = self._styles.get((*item, part))
        if known is None:
            known = self._styles[(*item, part)] = self._layered(item, part)
        return known

    def _layered(self, item: list[str], part: str | None) -> Style:
        background = Color(0, 0, 0, 0)
        color = Color(255, 255, 255, 0)
        style = Style()
        opacity = 1.0
        layers = [node.styles for node in reversed(self.ancestors_with_self)]
        layers.append(self.get_component_styles(*item))
        if part is not None:
            layers.append(self.get_component_styles(part))
        for styles in layers:  # as textual.dom.DOMNode.rich_style, with a layer or two more
            opacity *= styles.opacity
            if styles.has_rule("background"):
                text_background = background + styles.background.tint(styles.background_tint)
                background += styles.background.tint(styles.background_tint).multiply_alpha(opacity)
            else:
                text_background = background
            if styles.has_rule("color"):
                color = styles.color
            style += styles.text_style
            if styles.has_rule("auto_color") and styles.auto_color:
                color = text_background.get_contrast_text(color.a)
        return style + Style.from_color(
            (background + color).rich_color if (background.a or color.a) else None,
            background.rich_color if background.a else None,
        )

    def _item(self, entry: FooterEntry) -> list[str]:
        """A key's own rules: hovered, disabled."""
        item = ["footer-key"]
        if entry == self._hover:
            item.append("footer-key--hover")
        if not entry.enabled:
            item.append("footer-key--disabled")
        return item

    def _key_segments(self, entry: FooterEntry, compact: bool) -> list[Segment]:
        item = self._item(entry)
        key_style = self._style(item, "footer-key--key")
        if not entry.description:
            return [Segment(entry.key_display, key_style)]
        description_style = self._style(item, "footer-key--description")
        if compact:  # the palette's key: no padding but the one before its description
            return [Segment(entry.key_display, key_style), Segment(" " + entry.description, description_style)]
        return [Segment(f" {entry.key_display} ", key_style), Segment(entry.description + " ", description_style)]

    def _placed(self) -> tuple[list[_Placed], _Placed | None]:
        """The keys where they are drawn (`_spans`), and the palette's docked at the right."""
        self._styles.clear()  # a few styles serve every key: worked out once a drawing
        spans, at_right = self._spans()
        placed = [_Placed(entry, start, tuple(self._key_segments(entry, compact=False))) for entry, start, _ in spans]
        docked = None
        if at_right is not None:
            palette, start = at_right
            own = self._style(self._item(palette)).bgcolor
            bar = self._style([], "footer-key--palette").color  # over the footer's background, as a border is
            segments = (Segment(BAR, Style.from_color(bar, own)), *self._key_segments(palette, compact=True), Segment(" ", Style.from_color(None, own)))
            docked = _Placed(palette, start, segments)
        return placed, docked

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        background = Style.from_color(None, self.rich_style.bgcolor)  # the footer's own cells, as Textual fills them
        if y != 0 or not self._ready:
            return Strip.blank(width, background)
        placed, docked = self._placed()
        line = Strip([segment for key in placed for segment in key.segments]).crop(self._scroll, self._scroll + width)
        line = line.extend_cell_length(width, background)
        if docked is not None:
            line = Strip.join([line.crop(0, max(0, docked.start)), Strip(docked.segments)])
        return line.crop(0, width)

    # ------------------------------------------------------------ the pointer

    def _spans(self) -> tuple[list[tuple[FooterEntry, int, int]], tuple[FooterEntry, int] | None]:
        """Where each key is on the line (start, end, scrolled) and where the palette's
        starts: from the texts' widths alone, for the pointer and the wheel."""
        keys, palette = self._current()
        spans: list[tuple[FooterEntry, int, int]] = []
        at = -self._scroll
        for entry in keys:
            width = cells(f" {entry.key_display} {entry.description} ") if entry.description else cells(entry.key_display)
            spans.append((entry, at, at + width))
            at += width
        docked = None
        if palette is not None:
            width = cells(f"{BAR}{palette.key_display}" + (f" {palette.description}" if palette.description else "") + " ")
            docked = (palette, self.size.width - width)
        return spans, docked

    def _at(self, x: int) -> FooterEntry | None:
        if not self._ready:
            return None
        spans, docked = self._spans()
        if docked is not None and x >= docked[1]:
            return docked[0]
        return next((entry for entry, start, end in spans if start <= x < end), None)

    def on_mouse_down(self, event: events.MouseDown) -> None:
        entry = self._at(event.x)
        if entry is None:
            return
        if entry.enabled:
            self.app.simulate_key(entry.key)
        else:
            self.app.bell()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        entry = self._at(event.x)
        if entry != self._hover:
            self._hover = entry
            self.tooltip = entry.tooltip if entry is not None and entry.tooltip else None
            self.refresh()

    def on_leave(self, event: events.Leave) -> None:
        if self._hover is not None:
            self._hover = None
            self.tooltip = None
            self.refresh()

    def _scroll_by(self, cells_: int) -> None:
        spans, docked = self._spans()
        visible = docked[1] if docked is not None else self.size.width
        most = max(0, (spans[-1][2] + self._scroll if spans else 0) - visible)
        scroll = min(most, max(0, self._scroll + cells_))
        if scroll != self._scroll:
            self._scroll = scroll
            self.refresh()

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        self._scroll_by(4)
        event.stop()

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        self._scroll_by(-4)
        event.stop()
