"""The segment timeline: an encounter folded from its setup and an append-only event log.

Every change is an `Event`. `Encounter.apply` validates an event against the current
state and either refuses it (nothing changes) or applies it and appends it to the log,
so the current state is always the fold of the setup plus the effective events. Each
kind of event is one row of `tracker.engine.kinds.KINDS`, which names the method that
applies it.

`Encounter` is the face other layers use. It holds the fold's state (tracker.engine.core)
and three objects: the timeline of what falls due (`timeline`, tracker.engine.timeline),
the players' proposals (`proposals`, tracker.engine.proposals) and the checkpoints undo
starts from (`checkpoints`, tracker.engine.checkpoints). The rules live in its parts,
each a module with one job that inherits the parts it uses: the roster (roster.py),
resolution and judging (resolving.py), the action queue and initiation rules
(actions.py), the GM's changes by hand (changes.py), proposals' events (proposing.py)
and moving time (advancing.py). Timing, as decided in
docs/contributing/design.md#timeline, is written where each rule lives.

Decisions: docs/decisions/0023-undo-validation.md, docs/decisions/0058-engine-by-object.md
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from tracker.engine import checkpoints
from tracker.engine.advancing import Advancing
from tracker.engine.changes import Changes
from tracker.engine.checkpoints import Checkpoints
from tracker.engine.errors import RuleRefusal, TrackerError
from tracker.engine.kinds import KINDS, REDO, REWRITES_HISTORY, UNDO
from tracker.engine.model import Event, Setup
from tracker.engine.roster import Roster


class Encounter(Roster, Changes, Advancing):
    """An encounter's live state. Construct from a setup, then `apply` events."""

    def __init__(self, setup: Setup, events: Iterable[Event] = ()) -> None:
        self.setup = setup
        self.time = setup.time
        self.events: list[Event] = []
        # Each kind of event applied by the method its row names (undo and redo walk the
        # history instead: `_walk`), called as `handler(self, args)`: the class's plain
        # functions, not methods bound to this encounter, which would make it a cycle that
        # only the garbage collector could free (tracker.engine.settling).
        self._handlers: dict[str, Callable[[Any, dict[str, Any]], None]] = {
            name: getattr(type(self), row.apply) for name, row in KINDS.items() if row.apply
        }
        self.checkpoints = Checkpoints()
        self._applied: list[int] = []  # indexes into self.events of effective changes
        self._redo: list[int] = []
        self._reset()
        for event in events:
            self.apply(event)

    def _reset(self) -> None:
        """The fold before any event: a fresh state, the opening roster entered."""
        self.fresh_state()
        for entry in self.setup.roster:
            self._enter(entry)

    def effective_indexes(self) -> list[int]:
        """Where each effective change is in `events`, in order (a copy)."""
        return list(self._applied)

    def can_undo(self) -> bool:
        return bool(self._applied)

    def can_redo(self) -> bool:
        return bool(self._redo)

    def undo_target(self) -> Event | None:
        return self.events[self._applied[-1]] if self._applied else None

    def redo_target(self) -> Event | None:
        return self.events[self._redo[-1]] if self._redo else None

    def check_open(self) -> None:
        """Refuse any change to a fight its campaign has ended (undo and redo walk on)."""
        if self.ended:
            raise RuleRefusal(
                "ended", f"this fight has ended (campaign {self.ended}); `tracker campaign undo` reopens it while nothing later in the campaign depends on its end"
            )

    def effective_events(self) -> list[Event]:
        return [self.events[i] for i in self._applied]

    def apply(self, event: Event) -> Event:
        """Validate and apply one event; on refusal raise and change nothing."""
        kind = event.kind
        if kind == UNDO or kind == REDO:
            self._walk(event)
        else:
            handler = self._handlers.get(kind)
            if handler is None:
                raise TrackerError(f"unknown event kind {kind!r}")
            if self.ended:  # check_open, asked only of a fight that has ended
                self.check_open()
            index = len(self.events)
            self._current_seq = index + 1
            try:
                handler(self, event.args)
            except TrackerError:
                # Handlers refuse before they change anything (validation comes first).
                raise
            except Exception as exc:
                # A fault in a handler (a bug, or a value no check foresaw) may have left
                # state half-changed: fold the effective events again, then refuse.
                self._rebuild()
                raise TrackerError(f"{event.kind} could not be applied ({type(exc).__name__}: {exc}); nothing was changed") from exc
            applied = self._applied
            applied.append(index)
            if self._redo:
                self._redo.clear()
            if kind in REWRITES_HISTORY:
                self.checkpoints.clear()
            if not len(applied) % checkpoints.CHECKPOINT_EVERY:  # checkpoints fall on multiples
                self._maybe_checkpoint()
        event.seq = len(self.events) + 1
        self.events.append(event)
        return event

    def replay(self, events: list[Event]) -> None:
        """Apply events read from a file (checkpoints only near the end; see module doc)."""
        self.checkpoints.keep_from = len(self._applied) + len(events)
        try:
            for event in events:
                self.apply(event)
        finally:
            self.checkpoints.keep_from = 0

    def _walk(self, event: Event) -> None:
        undo = event.kind == UNDO
        stack = self._applied if undo else self._redo
        if not stack:
            raise RuleRefusal(event.kind, "nothing to undo" if undo else "nothing to redo")
        top = self.events[stack[-1]]
        target = event.args.setdefault("target", top.seq)
        if target != top.seq:
            raise RuleRefusal(
                "undo",
                f"{event.kind} of change {target} refused: the latest change that can be "
                f"{'undone' if undo else 'redone'} is {top.seq} ({top.kind})",
            )
        index = stack.pop()
        other = self._redo if undo else self._applied
        other.append(index)
        try:
            if undo:
                self._back_to_top()
                return
            # Redo: the state is the fold of every applied change but this one; apply it.
            again = self.events[index]
            self._current_seq = again.seq
            self._handlers[again.kind](self, again.args)
        except Exception as exc:
            # A fault (a bug: the engine is deterministic) part way: undo or redo either
            # completes or changes nothing, so put both stacks back and fold the state
            # they describe again, then refuse.
            other.pop()
            stack.append(index)
            try:
                self._rebuild()
            except Exception as again_exc:
                raise TrackerError(f"{event.kind} of change {target} failed ({type(exc).__name__}: {exc}), and the fight could not be folded again ({type(again_exc).__name__}: {again_exc})") from exc
            raise TrackerError(f"{event.kind} of change {target} could not be applied ({type(exc).__name__}: {exc}); nothing was changed") from exc
        if again.kind in REWRITES_HISTORY:
            self.checkpoints.clear()
        self._maybe_checkpoint()

    def _rebuild(self) -> None:
        """Refold the effective events from the setup (after undo or redo)."""
        events, applied, redo = self.events, self._applied, self._redo
        self.checkpoints.clear()
        self._reset()
        self.checkpoints.keep_from = len(applied)
        self._applied = []
        try:
            for index in applied:
                event = events[index]
                self._current_seq = event.seq
                self._handlers[event.kind](self, event.args)
                self._applied.append(index)
                if event.kind in REWRITES_HISTORY:
                    self.checkpoints.clear()
                self._maybe_checkpoint()
        finally:
            # Whatever happens, the log and both stacks stay as they were (a fault part
            # way is the caller's to handle: `_walk` folds its stacks again).
            self.events, self._applied, self._redo = events, applied, redo
            self.checkpoints.keep_from = 0

    def _maybe_checkpoint(self) -> None:
        depth = len(self._applied)
        if depth % checkpoints.CHECKPOINT_EVERY:  # checkpoints fall on multiples: a cheap test per change
            return
        self.checkpoints.consider(self, depth, len(self.events))

    def settle(self) -> None:
        """Move the state out of the garbage collector's sight if the fight has grown
        enough since it last was (after a batch such as opening a save)."""
        self.checkpoints.settle(len(self.events))

    def _back_to_top(self) -> None:
        """Make the state the fold of `_applied` after an undo, from the nearest checkpoint."""
        nearest = self.checkpoints.nearest(len(self._applied))
        if nearest is None:
            self._rebuild()
            return
        base, snap = nearest
        checkpoints.restore(self, snap)
        for index in self._applied[base:]:
            event = self.events[index]
            self._current_seq = event.seq
            self._handlers[event.kind](self, event.args)
            if event.kind in REWRITES_HISTORY:
                self.checkpoints.clear()
