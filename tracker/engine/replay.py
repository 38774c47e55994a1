"""A fight as it stood at the end of any segment: the replay's fold, marks and moves.

What "the end of segment S" is: the effective events
(undone ones left out) whose application leaves the clock at or before S, in order, so
every change made while the clock read S (declarations, the GM's changes, a completion
landing on S) is in it, and the `advance` that takes the clock past S is not. When time
jumped over S (an `advance` from 10 to 40, S = 25), the state is that fold moved on to
S the way the engine moves time: everything due by S lands (completions, expiries,
payments), nothing after. So the state at S is exactly what a fresh encounter reaches by
applying those events and then `advance` to S; at the fight's last segment it is the
live state. The log lines a partial advance writes carry the seq of the `advance` that
wrote them in the fight, so they are signed as the fight's own lines are.

How a move stays cheap (docs/contributing/design.md#replay): `Replay` folds the whole fight once, on a private
`Fold` that shares the fight's events, and keeps a `Mark` (an engine `Checkpoint` with
the log and action lists it counts into) every MARK_EVERY effective events. A move to S
restores the nearest mark at or below the events S needs (or goes on from where the fold
is, when that is nearer) and applies at most MARK_EVERY events; a move inside a jump of
time goes on from the segment shown when splitting the jump cannot change what it writes
(no per-round payment could fall in it), else from a snapshot taken before the partial
advance. Memory stays near one fold: a mark reuses the previous mark's values where they
are equal (a combatant's row, the timeline), and once the fold is done its log lines are
the live fight's own objects where they are equal (they are frozen).

Two things the engine's own checkpoints may assume and a replay may not, handled here:
- A mark restored after the fold went further back or forward: the actions still in
  progress at the mark were changed by the moves since, so every action a restored mark
  handed to the fold is put back to its value at the end of the first fold before the
  next mark is restored ("pristine").
- A rename rewrites earlier actions in place; a `Fold` first gives the actions it will
  change a copy of their own, so marks from before it keep the old names.

Decisions: docs/decisions/0054-replay.md
"""

from __future__ import annotations

import bisect
import copy
import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from tracker.engine.checkpoints import ACTION_CHANGES, action_values, Checkpoint, restore, snapshot
from tracker.engine.encounter import Encounter
from tracker.engine.errors import TrackerError
from tracker.engine.log import Log
from tracker.engine.model import Action, Event
from tracker.engine.timeline import Entry

MARK_EVERY = 128  # effective events between marks: a move applies at most this many


class Fold(Encounter):
    """An encounter folded by a replay: its handlers are driven directly (the fight's
    events are shared, never appended or renumbered), a rename copies the actions it
    rewrites, and it notes whether a partial advance could have charged payments in bulk
    (the one thing that makes a jump of time split in two write other lines)."""

    def __init__(self, setup: Any, last: int) -> None:
        super().__init__(setup)
        self.last = last  # the fight's last segment (a replay shows 0 to `last`)
        self.bulk_risk = False
        self.partial: Event | None = None  # the advance a partial one stands for, if any

    def _pay_in_bulk(self, first: int, target: int) -> bool:
        if self.upkeep_count and self.time.payment_every > 0:
            self.bulk_risk = True
        return super()._pay_in_bulk(first, target)

    def _rename(self, args: dict[str, Any]) -> None:
        old = self.combatant(args["target"]).name
        changed = [
            i for i, a in enumerate(self.actions)
            if a.actor == old or old in a.targets or any(getattr(e, "target", None) == old for e in a.resolution.effects)
        ]
        if changed:
            actions = list(self.actions)
            twins: dict[int, Action] = {}
            for i in changed:
                twin = copy.copy(actions[i])
                twins[id(actions[i])] = twin
                actions[i] = twin
            self.actions = actions
            self._swap_actions(twins)
        super()._rename(args)

    def _swap_actions(self, twins: dict[int, Action]) -> None:
        """Point the combatants and the queue at the copies in `twins` (by the original's id)."""

        def swap(a: Any) -> Any:
            return twins.get(id(a), a) if a is not None else None

        for c in self.combatants.values():
            c.active, c.chain_from, c.interrupted = swap(c.active), swap(c.chain_from), swap(c.interrupted)
            c.in_progress = [swap(a) for a in c.in_progress]
        def entry(item: Entry) -> Entry:
            segment, kind, tick, payload = item
            if payload.__class__ is Action:
                payload = swap(payload)
            elif payload.__class__ is tuple and payload and payload[0].__class__ is Action:
                payload = (swap(payload[0]), *payload[1:])
            return (segment, kind, tick, payload)

        self.timeline.rewritten(entry)

    def effective_events(self) -> list[Event]:
        """The changes this state folds, the partial advance included as an `advance` to
        the segment shown (what a reader folding them again, such as the stats, needs)."""
        events = super().effective_events()
        if self.partial is not None:
            events.append(Event("advance", {"to": self.now}, self.partial.seq, self.partial.by))
        return events

    def drive(self, index: int) -> None:
        """Apply the fight's event at `index` (one of its effective events)."""
        event = self.events[index]
        self._current_seq = event.seq
        self._handlers[event.kind](self, event.args)
        self._applied.append(index)

    def advance_to(self, segment: int, standing_for: Event) -> None:
        """Move the clock on to `segment` as `standing_for` (the advance past it) would."""
        self._current_seq = standing_for.seq
        self.partial = standing_for
        self._advance({"to": segment})


@dataclass(frozen=True, slots=True)
class Mark:
    """The fold after `depth` effective events: a checkpoint and the lists it counts into."""

    depth: int
    state: Checkpoint
    log: Log
    actions: list[Action]


def clocks(events: list[Event], applied: Iterable[int]) -> list[int]:
    """The clock after each effective event (only `advance` moves it, to its `to`)."""
    now, out = 0, []
    for index in applied:
        event = events[index]
        if event.kind == "advance":
            now = int(event.args["to"])
        out.append(now)
    return out


def fold_at(encounter: Encounter, segment: int, label: str = "segment") -> Fold:
    """The fight as it stood at the end of `segment`, folded once (no marks): what
    `tracker show --at` needs. Raises TrackerError naming the range if out of it
    (`label`: how the caller names the segment, such as `--at`)."""
    check_segment(segment, encounter.now, label)
    applied = encounter.effective_indexes()
    after = clocks(encounter.events, applied)
    depth = bisect.bisect_right(after, segment)
    fold = Fold(encounter.setup, encounter.now)
    fold.events = encounter.events
    for index in applied[:depth]:
        fold.drive(index)
    if fold.now < segment:
        fold.advance_to(segment, encounter.events[applied[depth]])
    return fold


def check_segment(segment: int, last: int, label: str = "segment") -> None:
    if isinstance(segment, bool) or not isinstance(segment, int) or not 0 <= segment <= last:
        raise TrackerError(f"{label} {segment}: this fight's segments run from 0 to {last}")


class Replay:
    """The fight of `encounter` (as it is now) at any segment from 0 to its last: `at`
    moves the fold and returns it. The fold is the replay's own; nothing here changes
    the encounter it was made from."""

    def __init__(self, encounter: Encounter, every: int = MARK_EVERY) -> None:
        self.source = encounter
        self.events = encounter.events
        self.indexes = encounter.effective_indexes()  # the effective events, in order
        self.after = clocks(self.events, self.indexes)
        self.last = encounter.now
        self.every = max(1, every)
        self.fold = fold = Fold(encounter.setup, encounter.now)
        fold.events = self.events
        self.marks: list[Mark] = []
        self._mark()
        for i, index in enumerate(self.indexes, 1):
            fold.drive(index)
            if not i % self.every:
                self._mark()
        self.whole_log = fold.log  # the whole fight's lines, as the fold wrote them
        self._depths = [m.depth for m in self.marks]
        self._share_log(encounter.log)
        # The values a restored mark's actions go back to (see the module docstring).
        self._pristine: dict[int, tuple[Action, tuple[Any, ...]]] = {}
        for mark in self.marks:
            for action in mark.state.live:
                self._pristine.setdefault(id(action), (action, action_values(action)))
        self._handed: list[Action] = []  # actions a restored mark handed to the fold
        # The fold at the end goes on from here with lists of its own (marks keep theirs).
        fold.log, fold.actions = fold.log.copy(), list(fold.actions)
        self.depth = len(self.indexes)
        self._base: Checkpoint | None = None  # the fold at `depth`, before a partial advance
        self.segment = self.last
        self._moments: list[int] | None = None

    # ------------------------------------------------------------------ building
    def _mark(self) -> None:
        fold = self.fold
        state = snapshot(fold)
        if self.marks:
            state = _reuse(state, self.marks[-1].state)
        self.marks.append(Mark(len(fold._applied), state, fold.log, fold.actions))

    def _share_log(self, live: Log) -> None:
        """Make the fold's log lines the live fight's own objects where equal (frozen; the
        log view finds a line by identity). Line i of any of the fold's logs is line i of
        the live fight's, or differs (a mark's lines before a rename name the old name)."""
        done: set[int] = set()
        for log in (self.whole_log, *(mark.log for mark in self.marks)):
            if id(log) in done:
                continue
            done.add(id(log))
            for i, (mine, theirs) in enumerate(zip(log, live)):
                if mine is not theirs and mine == theirs:
                    log[i] = theirs

    # ------------------------------------------------------------------ moving
    def depth_at(self, segment: int) -> int:
        """How many effective events the state at the end of `segment` folds."""
        return bisect.bisect_right(self.after, segment)

    def at(self, segment: int) -> Fold:
        """The fold as the fight stood at the end of `segment` (TrackerError if out of range)."""
        check_segment(segment, self.last)
        if segment == self.segment:
            return self.fold
        fold = self.fold
        depth = self.depth_at(segment)
        mark = self.marks[bisect.bisect_right(self._depths, depth) - 1]
        if fold.partial is not None:
            # Shown inside a jump of time: go on from here if splitting the jump there
            # cannot change what it writes and no mark is nearer; else start again from
            # the state before the partial advance, or from the mark.
            nearest = mark.depth <= self.depth <= depth
            if not (nearest and segment > fold.now and not fold.bulk_risk):
                if nearest:
                    self._back_to_base()
                else:
                    self._restore(mark)
        if fold.partial is None:
            if self.depth > depth or self.depth < mark.depth:
                self._restore(mark)
        elif depth > self.depth:
            fold.partial = None  # the advance that jumped over goes on from where it stands
        for index in self.indexes[self.depth:depth]:
            fold.drive(index)
        self.depth = depth
        if fold.now < segment:
            if fold.partial is None:
                self._base = snapshot(fold)
                fold.bulk_risk = False
            fold.advance_to(segment, self.events[self.indexes[depth]])
        self.segment = segment
        return fold

    def _back_to_base(self) -> None:
        """Back to the fold at `depth` before the partial advance (its own lists: truncated)."""
        assert self._base is not None
        restore(self.fold, self._base)
        self.fold.partial = None

    def _restore(self, mark: Mark) -> None:
        fold = self.fold
        for action in self._handed:
            values = self._pristine[id(action)][1]
            for name, value in zip(ACTION_CHANGES, values):
                setattr(action, name, value)
        self._handed = list(mark.state.live)
        fold.log = mark.log[: mark.state.log]
        fold.actions = mark.actions[: mark.state.actions]
        restore(fold, mark.state)
        fold._applied = self.indexes[: mark.depth]
        fold.partial = None
        self._base = None
        self.depth = mark.depth

    # ------------------------------------------------------------------ reading
    def moments(self) -> list[int]:
        """Every segment on which anything happened (the fight wrote a log line), with the
        first and the last, in order."""
        if self._moments is None:
            self._moments = sorted({0, self.last, *(entry.segment for entry in self.whole_log)})
        return self._moments


def _reuse(state: Checkpoint, previous: Checkpoint) -> Checkpoint:
    """`state` with every value equal to `previous`'s replaced by `previous`'s own object
    (a combatant's row, the timeline, the settings): consecutive marks share what did not
    change, so marks cost what changed between them."""
    rows_before = {row[0]: row for row in previous.combatants}
    rows = tuple(rows_before[row[0]] if rows_before.get(row[0]) == row else row for row in state.combatants)
    changes: dict[str, Any] = {"combatants": rows}
    for name in ("folded", "first", "scheduled", "timeline", "verdicts", "table"):
        mine, theirs = getattr(state, name), getattr(previous, name)
        if mine == theirs:
            changes[name] = theirs
    return dataclasses.replace(state, **changes)


__all__ = ["Fold", "MARK_EVERY", "Mark", "Replay", "check_segment", "clocks", "fold_at"]
