"""A seat at a served table (`tracker serve`, `tracker web`): who sits there and where.

Its own module, below the app and its screens (tracker.ui.app imports the start screen,
which shows a waiting seat): what the app decides from it is in tracker.ui.app.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Seat:
    """This app is a seat at a served table (what that changes: tracker.ui.app)."""

    kind: str = "viewer"  # gm, player or viewer (tracker.reading.roles): who sits here
    fight: str = ""  # the table's fight by its name, for what Esc says
    notice: str = ""  # said once the first screen is up, a line each ("the GM moved the table to ...")
    moved: Callable[[Path], None] | None = None  # the GM's: tell the server the table moved
    web: bool = False  # a browser tab
    # A replay at the table (tracker.ui.screens.replay): the GM's app tells the server the
    # segment its replay shows (None: back to now); a player's or viewer's app hears of
    # it through `listen` (given the app's `follow_replay`), and starts on `replaying`,
    # the GM's replay as the seat opened (None: none).
    replayed: Callable[[int | None], None] | None = None
    listen: Callable[[Callable[[int | None], None]], None] | None = None
    replaying: int | None = None

    def where(self) -> str:
        """What Esc says to a player or viewer: where they are, and who chooses."""
        leave = "close the tab to leave" if self.web else "q leaves"
        if not self.fight:
            return f"No fight yet: this screen changes when the GM opens one ({leave})"
        return f"The GM chooses the table's fight: this is {self.fight} ({leave})"
