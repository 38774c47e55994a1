"""The timeline: what falls due on which segment, as a priority queue with lazy deletion.

An entry is `(segment, kind, tick, payload)`: `kind` says what falls due (its number is
the order things are handled on one segment: completions first, then early blows,
conditions expiring, landings, surprise ending, scheduled events, and a per-round cost
changing just before the payment that charges it), `tick` the order it was queued in (so
entries never compare payloads). Nothing is ever removed when it stops being due (an
action aborted, a condition renewed): an entry is checked against the fight when it
comes up (`valid`), so finding the next happening costs the same whatever lies between.

The timeline holds no reference to the encounter (the fight's state holds no cycle:
tracker.engine.settling); what an entry is checked against is handed in.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from tracker.engine.model import IN_PROGRESS, Action, Combatant

# What falls due, in the order handled on one segment.
COMPLETION, EARLY_BLOW, EXPIRY, LANDING, ALERT, SCHEDULED, RISE = range(7)

Entry = tuple[int, int, int, Any]


def early_segment(action: Action, effect: Any) -> int:
    """The segment an effect landing `lead` segments before its action completes lands on."""
    return max(action.start + 1, action.completes - getattr(effect, "lead", 0))


class Timeline:
    """The queue of what falls due (see the module docstring)."""

    __slots__ = ("entries", "tick")

    def __init__(self, entries: list[Entry] | None = None, tick: int = 0) -> None:
        self.entries: list[Entry] = [] if entries is None else entries
        self.tick = tick  # the last tie-breaker handed out

    def __len__(self) -> int:
        return len(self.entries)

    def __iter__(self) -> Iterator[Entry]:
        return iter(self.entries)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Timeline):
            return NotImplemented
        return self.tick == other.tick and self.entries == other.entries

    __hash__ = None  # type: ignore[assignment]  # changes, like a list

    def copy(self) -> Timeline:
        """A timeline of its own with the same entries (entries are immutable: shared)."""
        return Timeline(self.entries.copy(), self.tick)

    def push(self, segment: int, kind: int, payload: Any) -> None:
        self.tick += 1
        heapq.heappush(self.entries, (segment, kind, self.tick, payload))

    def rewritten(self, rewrite: Callable[[Entry], Entry]) -> None:
        """Every entry through `rewrite` (a rename), kept in order."""
        entries = [rewrite(entry) for entry in self.entries]
        heapq.heapify(entries)
        self.entries = entries

    @staticmethod
    def valid(entry: Entry, combatants: Mapping[str, Combatant]) -> bool:
        """Whether `entry` still falls due (see the module docstring)."""
        segment, kind, _, payload = entry
        if kind == COMPLETION:
            return payload.status == IN_PROGRESS and payload.completes == segment
        if kind == EARLY_BLOW:
            action, effect = payload
            return action.status == IN_PROGRESS and early_segment(action, effect) == segment
        if kind == EXPIRY:
            c = combatants.get(payload[0])
            return c is not None and c.conditions.get(payload[1]) == segment
        if kind == LANDING:
            c = combatants.get(payload)
            return c is not None and c.airborne_until == segment
        if kind == ALERT:
            c = combatants.get(payload)
            return c is not None and c.surprised_until == segment
        if kind == RISE:
            c = combatants.get(payload[0])
            return c is not None and c.rising.get(payload[1].name) is payload[1]
        return True

    def due(self, combatants: Mapping[str, Combatant]) -> list[Entry]:
        """The entries that still fall due, in no particular order."""
        return [entry for entry in self.entries if self.valid(entry, combatants)]

    def first(self, combatants: Mapping[str, Combatant]) -> int | None:
        """The first segment on which something falls due, or None (entries no longer due
        at the head are dropped on the way)."""
        entries = self.entries
        while entries and not self.valid(entries[0], combatants):
            heapq.heappop(entries)
        return entries[0][0] if entries else None

    def take(self, segment: int, combatants: Mapping[str, Combatant]) -> list[list[Any]]:
        """Take what falls due on `segment` off the queue: the payloads still due, one
        list per kind, each in the order queued."""
        entries = self.entries
        due: list[list[Any]] = [[], [], [], [], [], [], []]
        valid = self.valid
        while entries and entries[0][0] == segment:
            entry = heapq.heappop(entries)
            if entry[1] == COMPLETION:  # `valid` inlined for the commonest entry
                action = entry[3]
                if action.status == IN_PROGRESS and action.completes == segment:
                    due[COMPLETION].append(action)
            elif valid(entry, combatants):
                due[entry[1]].append(entry[3])
        return due

    def head_segment(self) -> int | None:
        """The segment of the first entry as it stands (after `first`: the next happening)."""
        return self.entries[0][0] if self.entries else None


__all__ = ["ALERT", "COMPLETION", "EARLY_BLOW", "EXPIRY", "Entry", "LANDING", "RISE", "SCHEDULED", "Timeline", "early_segment"]
