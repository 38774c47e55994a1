"""Watching a fight again: the replay as a flow without a screen (docs/contributing/design.md#flows, #replay).

`Replaying` holds what a reader is looking at (a segment from 0 to the fight's last), and
moves it: one segment back or on, to the previous or next segment where anything
happened, to the first or the last, to a segment typed in, and playing, which moves on
to the next segment where anything happened every 1/speed seconds until the last. The
screen (tracker.ui.screens.replay) renders `encounter`, the fight as it stood at the end
of the segment (tracker.engine.replay), and sends its keys here; it never changes the
fight. What the reader may see of it is `tracker.reading.viewing.sight`'s, for the role as it
was then (`role`: a player's combatants by identity, named as they were then).

"Where anything happened" is, for the GM, any segment the fight wrote a log line on;
for a player or a viewer, a segment with a line they may see (a line written while its
combatant was hidden, a secret roll or another player's proposal never makes a stop),
so stopping never tells them something happened unseen.

Decisions: docs/decisions/0054-replay.md
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from tracker.engine import Encounter, TrackerError
from tracker.engine.replay import Fold, Replay, check_segment
from tracker.reading.roles import Role, visible_to

SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)  # moves a second while playing
SPEED = 1.0


@dataclass
class Replaying:
    """A reader's replay of one fight (see the module docstring)."""

    replay: Replay
    reader: Role  # the reader's role in the fight as it stands now (tracker.reading.roles)
    segment: int = 0
    speed: float = SPEED
    playing: bool = False
    stops: list[int] = field(default_factory=list, repr=False)

    @classmethod
    def of(cls, encounter: Encounter, reader: Role, segment: int | None = None) -> "Replaying":
        """A replay of `encounter` as it is now, shown at `segment` (default: the last)."""
        return cls.over(Replay(encounter), reader, segment)

    @classmethod
    def over(cls, replay: Replay, reader: Role, segment: int | None = None) -> "Replaying":
        """`replay` (made already, perhaps shared by several readers) shown at `segment`."""
        flow = cls(replay, reader, replay.last)
        flow.stops = flow._moments()
        if segment is not None:
            flow.go(segment)
        return flow

    def _moments(self) -> list[int]:
        """The stops of next and previous for this reader (the fold is at the last segment)."""
        if self.reader.is_gm:
            return self.replay.moments()
        role = self.reader.following(self.replay.at(self.replay.last))
        seen = {e.segment for e in self.replay.whole_log if visible_to(role, e)}
        return sorted(seen | {0, self.replay.last})

    # ------------------------------------------------------------------ what is shown
    @property
    def last(self) -> int:
        return self.replay.last

    @property
    def encounter(self) -> Fold:
        """The fight as it stood at the end of the segment shown."""
        return self.replay.at(self.segment)

    @property
    def role(self) -> Role:
        """The reader's role then: a player's combatants as they were named at the segment."""
        return self.reader.following(self.encounter)

    @property
    def coming(self) -> int | None:
        """The next segment where anything happens for this reader (the timeline marks it)."""
        at = bisect.bisect_right(self.stops, self.segment)
        return self.stops[at] if at < len(self.stops) else None

    def status(self) -> str:
        """`replay 12 of 0-40 · playing x2`: where the reader is and whether it plays."""
        moving = f" · playing x{self.speed:g}" if self.playing else f" · paused (x{self.speed:g})"
        return f"replay {self.segment} of 0-{self.last}{moving}"

    # ------------------------------------------------------------------ moves
    def go(self, segment: int) -> None:
        """To `segment` (refused, naming the range, outside 0 to the last)."""
        check_segment(segment, self.last)
        self.segment = segment

    def step(self, segments: int) -> None:
        """`segments` on (negative: back), stopping at the first and the last."""
        self.go(max(0, min(self.last, self.segment + segments)))

    def next_moment(self) -> bool:
        """On to the next segment where anything happened; False at the last."""
        coming = self.coming
        if coming is None:
            return False
        self.go(coming)
        return True

    def previous_moment(self) -> bool:
        """Back to the previous segment where anything happened; False at the first."""
        at = bisect.bisect_left(self.stops, self.segment)
        if at == 0:
            return False
        self.go(self.stops[at - 1])
        return True

    def first(self) -> None:
        self.go(0)

    def end(self) -> None:
        self.go(self.last)

    def toggle(self) -> bool:
        """Play or pause; playing from the last segment starts again from the first."""
        self.playing = not self.playing
        if self.playing and self.segment == self.last:
            self.first()
        return self.playing

    def tick(self) -> bool:
        """One move of play; at the last segment play stops. Whether it moved."""
        if not self.playing:
            return False
        moved = self.next_moment()
        if not moved or self.segment == self.last:
            self.playing = False
        return moved

    def faster(self) -> float:
        self.speed = next((s for s in SPEEDS if s > self.speed), SPEEDS[-1])
        return self.speed

    def slower(self) -> float:
        self.speed = next((s for s in reversed(SPEEDS) if s < self.speed), SPEEDS[0])
        return self.speed

    def parse(self, text: str) -> int:
        """A segment typed in (`12`); refused, naming the range, when it is not one."""
        try:
            segment = int(text.strip())
        except ValueError:
            raise TrackerError(f"segment: expected a whole number from 0 to {self.last}, got {text.strip()!r}") from None
        check_segment(segment, self.last)
        return segment

    def typed(self, text: str) -> None:
        """To a segment typed in."""
        self.go(self.parse(text))
