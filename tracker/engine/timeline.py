"""The timeline: what falls due on which segment, as a queue of segments with lazy deletion.

An entry is `(segment, kind, tick, payload)`: `kind` says what falls due (its number is
the order things are handled on one segment: completions first, then early blows,
conditions expiring, landings, surprise ending, scheduled events, and a per-round cost
changing just before the payment that charges it), `tick` the order it was queued in (so
entries never compare payloads). Nothing is ever removed when it stops being due (an
action aborted, a condition renewed): an entry is checked against the fight when it
comes up (`valid`), so finding the next happening costs the same whatever lies between.

The entries are kept in buckets, one list per segment in the order queued, and a heap
holds the segments that have one (a calendar queue): queuing an entry on a segment that
already has some is an append, and the heap orders whole segments, compared as plain
numbers. A long fight queues dozens of completions on each segment, and each had cost a
push and a pop on a heap of every entry, comparing tuples that tie on the segment and
the kind. Reading a bucket kind by kind, in its order, is the order the
things on one segment are handled in.

The timeline holds no reference to the encounter (the fight's state holds no cycle:
tracker.engine.settling); what an entry is checked against is handed in.

Decisions: docs/decisions/0062-queue-by-segment.md
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Iterator, Mapping
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

    __slots__ = ("segments", "buckets", "tick", "size")

    def __init__(self, entries: Iterable[Entry] | None = None, tick: int = 0) -> None:
        self.segments: list[int] = []  # a heap: the segments that have a bucket
        self.buckets: dict[int, list[Entry]] = {}  # each segment's entries, in the order queued
        self.tick = tick  # the last tie-breaker handed out
        self.size = 0  # entries queued, due or not
        if entries:
            self._fill(entries)

    def _fill(self, entries: Iterable[Entry]) -> None:
        buckets: dict[int, list[Entry]] = {}
        for entry in sorted(entries, key=_queued):
            buckets.setdefault(entry[0], []).append(entry)
        self.buckets = buckets
        self.segments = list(buckets)  # sorted: a heap already
        self.size = sum(map(len, buckets.values()))

    @property
    def entries(self) -> list[Entry]:
        """Every entry, in the order handled: by segment, kind, then the order queued."""
        return sorted(entry for bucket in self.buckets.values() for entry in bucket)

    def __len__(self) -> int:
        return self.size

    def __iter__(self) -> Iterator[Entry]:
        """Every entry, in no particular order (`entries` sorts them)."""
        for bucket in self.buckets.values():
            yield from bucket

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Timeline):
            return NotImplemented
        return self.tick == other.tick and self.entries == other.entries

    __hash__ = None  # type: ignore[assignment]  # changes, like a list

    def copy(self) -> Timeline:
        """A timeline of its own with the same entries (entries are immutable: shared)."""
        twin = Timeline(None, self.tick)
        twin.segments = self.segments.copy()
        twin.buckets = {segment: bucket.copy() for segment, bucket in self.buckets.items()}
        twin.size = self.size
        return twin

    def push(self, segment: int, kind: int, payload: Any) -> None:
        tick = self.tick = self.tick + 1
        self.size += 1
        bucket = self.buckets.get(segment)
        if bucket is None:
            self.buckets[segment] = [(segment, kind, tick, payload)]
            heapq.heappush(self.segments, segment)
        else:
            bucket.append((segment, kind, tick, payload))

    def rewritten(self, rewrite: Callable[[Entry], Entry]) -> None:
        """Every entry through `rewrite` (a rename), kept in order."""
        self._fill([rewrite(entry) for bucket in self.buckets.values() for entry in bucket])

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
        valid = self.valid
        return [entry for bucket in self.buckets.values() for entry in bucket if valid(entry, combatants)]

    def first(self, combatants: Mapping[str, Combatant]) -> int | None:
        """The first segment on which something falls due, or None (entries no longer due
        at the head are dropped on the way)."""
        segments, buckets, valid = self.segments, self.buckets, self.valid
        while segments:
            segment = segments[0]
            bucket = buckets[segment]
            for i, entry in enumerate(bucket):
                if valid(entry, combatants):
                    if i:
                        del bucket[:i]
                        self.size -= i
                    return segment
            self.size -= len(bucket)
            del buckets[segment]
            heapq.heappop(segments)
        return None

    def take(self, segment: int, combatants: Mapping[str, Combatant]) -> list[list[Any]]:
        """Take what falls due on `segment` off the queue, if it is the first segment
        queued: the payloads still due, one list per kind, each in the order queued."""
        due: list[list[Any]] = [[], [], [], [], [], [], []]
        segments = self.segments
        if not segments or segments[0] != segment:
            return due
        heapq.heappop(segments)
        completing, valid = due[COMPLETION], self.valid
        bucket = self.buckets.pop(segment)
        self.size -= len(bucket)
        for entry in bucket:
            if entry[1] == COMPLETION:  # `valid` inlined for the commonest entry
                action = entry[3]
                if action.status == IN_PROGRESS and action.completes == segment:
                    completing.append(action)
            elif valid(entry, combatants):
                due[entry[1]].append(entry[3])
        return due

    def head_segment(self) -> int | None:
        """The segment of the first entry as it stands (after `first`: the next happening)."""
        return self.segments[0] if self.segments else None


def _queued(entry: Entry) -> tuple[int, int]:
    """An entry's place in the queue, without its payload: segment, then the order queued."""
    return entry[0], entry[2]


__all__ = ["ALERT", "COMPLETION", "EARLY_BLOW", "EXPIRY", "Entry", "LANDING", "RISE", "SCHEDULED", "Timeline", "early_segment"]
