"""The footer of every screen: Textual's Footer, built again only when the keys it shows
change, and on the encounter screen drawn with its keys from the start.

Textual's Footer mounts empty and builds its keys a frame later, when the screen first
says its bindings changed; and it builds them all again (a widget per key, each styled
and laid out) every time the screen says so: on each focus move, and when a dialog over
the screen opens or closes, although the keys are nearly always the ones it shows. Here
a "bindings changed" that leaves the footer's keys as they are (the same bindings,
enabled alike, with the same tooltips and key names) costs a comparison instead of a
rebuild. With `at_once`, the keys are built in the footer's first compose, so the first
frame a person (or a viewer joining a served table) sees is the whole screen: for a
screen where no widget takes the focus when it opens (the encounter screen), whose keys
are then the same before and after. Where a widget does (a list's own keys hide some of
the screen's: the start screen's table takes enter), keys drawn at once would be drawn
twice, so the footer waits for the focus as Textual's does.

Decisions: docs/decisions/0059-first-screen.md
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer

from tracker.ui.textual_private import settle_footer_key


class KeyFooter(Footer):
    """A Footer whose keys are drawn at once, and redrawn only when they change."""

    def __init__(self, *args: Any, at_once: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if at_once:  # the keys are known when the footer is composed (its screen is being mounted)
            self.set_reactive(Footer._bindings_ready, True)
        self._drawn: tuple[Any, ...] | None = None

    def shown(self) -> tuple[Any, ...]:
        """Everything the footer's compose reads: the bindings it would show, enabled or
        not, with their tooltips and key names, and the command palette's key."""
        active = self.screen.active_bindings
        app = self.app
        keys = tuple((binding, enabled, tooltip, app.get_key_display(binding)) for _, binding, enabled, tooltip in active.values() if binding.show)
        palette = None
        if self.show_command_palette and app.ENABLE_COMMAND_PALETTE and app.COMMAND_PALETTE_BINDING in active:
            _, binding, enabled, tooltip = active[app.COMMAND_PALETTE_BINDING]
            palette = (binding, enabled, tooltip, app.get_key_display(binding))
        return keys, palette, self.show_command_palette

    def compose(self) -> ComposeResult:
        self._drawn = self.shown() if self._bindings_ready else None
        for widget in super().compose():
            # Each key as it will be (the palette's key keeps its own default, unbound),
            # styled once instead of three times (tracker.ui.textual_private, 12).
            settle_footer_key(widget, None if widget.has_class("-command-palette") else self.compact)
            yield widget

    def bindings_changed(self, screen: Screen[Any]) -> None:
        # As Footer.bindings_changed, with the rebuild made only if the keys changed.
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen:
            self.call_after_refresh(self._rebuild_if_changed)

    async def _rebuild_if_changed(self) -> None:
        if not self.is_attached or self._drawn == self.shown():
            return
        await self.recompose()
