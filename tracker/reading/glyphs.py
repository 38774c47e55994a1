"""The timeline's glyphs: what the app's timeline strip (tracker.ui.widgets.timeline), its
legend (tracker.ui.widgets.upcoming) and the after-the-fight charts (tracker.reading.charts)
draw a fight's actions with.

Active `▀`, passive `▄` (both at once `█`), maintained `▒` (`▓` over passive), `┤` where
an action completed, `×` where it was aborted or interrupted, `┄` while a condition
lasts; the whole-fight chart adds `↯` where a throwback landed. A module of its own: the
encounter screen draws them as it opens, and the charts are only needed for the report.
"""

from __future__ import annotations

ACTIVE_GLYPH, PASSIVE_GLYPH, MAINTAINED_GLYPH = "▀", "▄", "▒"
# What a cell shows when an active bar is drawn over a passive one.
OVER_PASSIVE = {ACTIVE_GLYPH: "█", MAINTAINED_GLYPH: "▓"}
CONDITION_GLYPH = "┄"
END_GLYPH, CUT_GLYPH, THROWBACK_GLYPH = "┤", "×", "↯"
LEGEND = f"{ACTIVE_GLYPH}act {PASSIVE_GLYPH}pass {MAINTAINED_GLYPH}maint\n{END_GLYPH}end {CUT_GLYPH}cut {CONDITION_GLYPH}condition"


def bar_glyph(mode: str, maintained: bool) -> str:
    """The glyph of an action's bar: maintained, else active or passive."""
    if maintained:
        return MAINTAINED_GLYPH
    return ACTIVE_GLYPH if mode == "active" else PASSIVE_GLYPH
