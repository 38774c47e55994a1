"""Checkpoints: the folded state copied as values, so undo costs do not grow with the log.

Every CHECKPOINT_EVERY effective changes (more on a big roster: `_interval`) the state
is copied into a `Checkpoint`, a record naming every piece of the fold (only what can
still change: combatants, the queue, the actions still in progress; finished actions and
log entries are kept by count), so an undo restores the nearest checkpoint at or below
the new top and replays a bounded stretch; a redo applies the one change again on the
current state. A checkpoint holds values, not objects: each combatant as a row of its
fields, each action still in progress as the fields that can change (status,
completion, end), which a restore puts back on the same action object; so the queue and
the combatants' rows point at the actions as they are, and nothing is remapped. The last
MAX_CHECKPOINTS are kept; an undo deeper than that refolds from the setup. Replaying a
whole file (`replay`) keeps checkpoints only near its end, where undo will look, so
opening a long fight pays for a few copies. A rename rewrites earlier actions and log
lines (`kinds.REWRITES_HISTORY`), so it drops the checkpoints before it.
"""

from __future__ import annotations

import copy
import dataclasses
import operator
from dataclasses import dataclass
from collections.abc import Callable
from typing import Any

from tracker.engine import effects as fx
from tracker.engine import settling
from tracker.engine.core import Core
from tracker.engine.kinds import REWRITES_HISTORY
from tracker.engine.model import ABORTED, COMPLETED, Action, Combatant, Proposal

CHECKPOINT_EVERY = 64
MAX_CHECKPOINTS = 16
_FINAL = (COMPLETED, ABORTED)


# The fields of an action that change while it may still change (passive initiation,
# completion, interruption, abort, keep). The only change to any other field, a rename,
# drops the checkpoints taken before it.
_ACTION_CHANGES = ("status", "completes", "ended")
_action_values = operator.attrgetter(*_ACTION_CHANGES)
_COMBATANT_FIELDS = tuple(f.name for f in dataclasses.fields(Combatant))
# Combatant fields holding containers of plain values, changed in place: a checkpoint
# copies them one level deep, as `_enter` itself copies a sheet (the rest are plain
# values, or actions, which are kept by identity: see `_snapshot`).
_FLAT = frozenset({"stats", "resources", "maxima", "conditions", "upkeep", "rising", "initiated_now", "in_progress", "latest"})
_FLAT_AT = tuple(i for i, name in enumerate(_COMBATANT_FIELDS) if name in _FLAT)
# Lists are kept as tuples in a row (a tuple of plain values is not tracked by gc).
_LIST_AT = tuple(i for i, name in enumerate(_COMBATANT_FIELDS) if name in ("initiated_now", "in_progress"))
_DICT_AT = tuple(i for i in _FLAT_AT if i not in _LIST_AT)


def _row_maker() -> Callable[[Combatant], tuple[Any, ...]]:
    """`_combatant_row`, written out from the field list: one tuple display of every field,
    each container copied where it stands (a checkpoint copies every combatant, so a
    thousand-strong roster pays it per checkpoint: a third of the generic loop's cost)."""
    values = []
    for i, name in enumerate(_COMBATANT_FIELDS):
        value = f"c.{name}"
        values.append(f"{value}.copy()" if i in _DICT_AT else f"tuple({value})" if i in _LIST_AT else value)
    namespace: dict[str, Any] = {}
    exec(f"def _combatant_row(c):\n    return ({', '.join(values)},)\n", namespace)  # noqa: S102 (our own field names)
    made: Callable[[Combatant], tuple[Any, ...]] = namespace["_combatant_row"]
    made.__doc__ = "A combatant's fields in order, its containers copied (a checkpoint's copy)."
    return made


_combatant_row = _row_maker()


def _combatant_from_row(row: tuple[Any, ...]) -> Combatant:
    """A live combatant from a checkpoint's row (containers copied again: the row stays
    as it was, for the next restore); slot by slot, without the constructor."""
    twin = object.__new__(Combatant)
    for name, value in zip(_COMBATANT_FIELDS, row):
        setattr(twin, name, value)
    for i in _DICT_AT:
        setattr(twin, _COMBATANT_FIELDS[i], row[i].copy())
    for i in _LIST_AT:
        setattr(twin, _COMBATANT_FIELDS[i], list(row[i]))
    return twin



@dataclass(frozen=True, slots=True)
class Checkpoint:
    """The folded state at one depth of the effective history, as values.

    One field per attribute that `Core._reset` gives the fold (its name without the
    leading underscore; tests/test_engine_checkpoints.py holds the two lists equal), plus
    the actions that may still change with their changing fields. The log and the
    actions only grow between checkpoints (a rename drops the checkpoints), so they are
    kept by count."""

    now: int
    combatants: tuple[tuple[Any, ...], ...]  # each combatant as a row (`_combatant_row`)
    folded: dict[str, str]
    first: dict[str, tuple[str, int]]
    actions: int
    log: int
    scheduled: dict[int, list[str]]
    queue: list[tuple[int, int, int, Any]]  # immutable entries: a shallow copy
    tick: int
    current_seq: int
    upkeep_count: int
    verdicts: dict[tuple[int, str, int], list[fx.Effect]]
    proposals: dict[int, Proposal]  # each copied: approving one changes its status
    table: dict[str, Any]
    ended: str
    live: tuple[Action, ...]  # kept by identity; their fields are put back from `live_values`
    live_values: tuple[tuple[Any, ...], ...]


def _lists(table: dict[Any, list[Any]]) -> dict[Any, list[Any]]:
    """A table of lists, each list copied (their elements never change in place)."""
    return {key: list(value) for key, value in table.items()}


def _proposals(table: dict[int, Proposal]) -> dict[int, Proposal]:
    """Proposals copied: approving, refusing or lapsing one changes its status in place."""
    return {seq: copy.copy(p) for seq, p in table.items()}


class Checkpoints(Core):
    """Taking checkpoints, and undoing to the nearest one (see the module docstring)."""

    def _interval(self) -> int:
        """Changes between checkpoints: at least CHECKPOINT_EVERY, and more on a big roster,
        so copying the state costs a bounded share of each change (about half a copy of
        one combatant or queue entry per change) while undo replays a bounded stretch."""
        return max(CHECKPOINT_EVERY, 2 * (len(self.combatants) + len(self._queue)))

    def _maybe_checkpoint(self) -> None:
        depth = len(self._applied)
        if depth % CHECKPOINT_EVERY:  # checkpoints fall on multiples: a cheap test per change
            return
        self.settle()
        top = max(self._checkpoints, default=0)
        interval = self._interval()
        if depth - top < interval or depth < self._keep_from - 2 * interval:
            return
        self._checkpoints[depth] = self._snapshot()
        while len(self._checkpoints) > MAX_CHECKPOINTS:  # deeper undo rebuilds from the start
            del self._checkpoints[min(self._checkpoints)]

    def settle(self) -> None:
        """Move the state out of the garbage collector's sight if the fight has grown by
        SETTLE_EVERY changes since it last was (tracker.engine.settling): asked every
        CHECKPOINT_EVERY changes, and after a batch such as opening a save."""
        if len(self.events) - self._settled >= settling.SETTLE_EVERY and settling.settle():
            self._settled = len(self.events)

    def _live_actions(self) -> list[Action]:
        """The actions that may still change (in progress, or interrupted and keepable),
        found through the combatants and the queue (never a scan of every action)."""
        found: dict[int, Action] = {}
        for c in self.combatants.values():
            for action in c.in_progress:
                found[id(action)] = action
            if c.interrupted is not None:
                found[id(c.interrupted)] = c.interrupted
        for entry in self._queue:
            payload = entry[3]
            if payload.__class__ is tuple and payload:
                payload = payload[0]
            if payload.__class__ is Action and payload.status not in _FINAL:
                found[id(payload)] = payload
        return list(found.values())

    def _snapshot(self) -> Checkpoint:
        """The state as values: each combatant as a row of its fields (containers copied),
        each action that may still change with its fields as they are now, the queue's
        entries (immutable tuples, shared). Actions are kept by identity: a restore puts
        their fields back, so the combatants and queue entries may point at them as is.
        Finished actions, resolutions, effects and log entries never change: shared."""
        live = self._live_actions()
        return Checkpoint(
            now=self.now,
            combatants=tuple(_combatant_row(c) for c in self.combatants.values()),
            folded=self._folded.copy(),
            first=self._first.copy(),
            actions=len(self.actions),
            log=len(self.log),
            scheduled=_lists(self.scheduled),
            queue=self._queue.copy(),
            tick=self._tick,
            current_seq=self._current_seq,
            upkeep_count=self._upkeep_count,
            verdicts=_lists(self._verdicts),
            proposals=_proposals(self.proposals),
            table=dict(self.table),
            ended=self.ended,
            live=tuple(live),
            live_values=tuple(_action_values(action) for action in live),  # plain values: not tracked by gc
        )

    def _restore(self, snap: Checkpoint) -> None:
        """Put the state back as `snap` holds it (copying again: the checkpoint stays as it
        was, for the next restore)."""
        self.log.truncate(snap.log)
        del self.actions[snap.actions:]
        for action, values in zip(snap.live, snap.live_values):
            for name, value in zip(_ACTION_CHANGES, values):
                setattr(action, name, value)
        self.now = snap.now
        self.combatants = {row[0]: _combatant_from_row(row) for row in snap.combatants}
        self._folded = snap.folded.copy()
        self._first = snap.first.copy()
        self.scheduled = _lists(snap.scheduled)
        self._queue = snap.queue.copy()
        self._tick = snap.tick
        self._current_seq = snap.current_seq
        self._upkeep_count = snap.upkeep_count
        self._verdicts = _lists(snap.verdicts)
        self.proposals = _proposals(snap.proposals)
        self.table = dict(snap.table)
        self.ended = snap.ended

    def _back_to_top(self) -> None:
        """Make the state the fold of `_applied` after an undo, from the nearest checkpoint."""
        depth = len(self._applied)
        for key in [k for k in self._checkpoints if k > depth]:
            del self._checkpoints[key]
        base = max(self._checkpoints, default=None)
        if base is None:
            self._rebuild()
            return
        self._restore(self._checkpoints[base])
        for index in self._applied[base:]:
            event = self.events[index]
            self._current_seq = event.seq
            self._handlers[event.kind](self, event.args)
            if event.kind in REWRITES_HISTORY:
                self._checkpoints.clear()
