"""Checkpoints: the folded state copied as values, so undo costs do not grow with the log.

Every CHECKPOINT_EVERY effective changes (more on a big roster: `Checkpoints.interval`)
the state is copied into a `Checkpoint`, a record naming every piece of the fold (only what can
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

`Checkpoints` is the encounter's record of them and of when to take the next; `snapshot`
and `restore` read and write the named state of a fold (tracker.engine.core). Neither
holds a reference to the encounter.
"""

from __future__ import annotations

import dataclasses
import operator
from dataclasses import dataclass
from collections.abc import Callable
from typing import Any

from tracker.engine import effects as fx
from tracker.engine import settling
from tracker.engine.core import Core
from tracker.engine.proposals import Proposals
from tracker.engine.timeline import Timeline
from tracker.engine.model import ABORTED, COMPLETED, Action, Combatant

CHECKPOINT_EVERY = 64
MAX_CHECKPOINTS = 16
_FINAL = (COMPLETED, ABORTED)


# The fields of an action that change while it may still change (passive initiation,
# completion, interruption, abort, keep). The only change to any other field, a rename,
# drops the checkpoints taken before it.
ACTION_CHANGES = ("status", "completes", "ended")
action_values = operator.attrgetter(*ACTION_CHANGES)
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

    One field per attribute that `Core.fresh_state` gives the fold (its name without the
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
    timeline: Timeline  # its entries are immutable: a shallow copy
    current_seq: int
    upkeep_count: int
    verdicts: dict[tuple[int, str, int], list[fx.Effect]]
    proposals: Proposals  # each copied: approving one changes its status
    table: dict[str, Any]
    ended: str
    live: tuple[Action, ...]  # kept by identity; their fields are put back from `live_values`
    live_values: tuple[tuple[Any, ...], ...]


def _lists(table: dict[Any, list[Any]]) -> dict[Any, list[Any]]:
    """A table of lists, each list copied (their elements never change in place)."""
    return {key: list(value) for key, value in table.items()}


class Checkpoints:
    """The checkpoints of one fight by depth (effective changes folded), and when to take
    the next and to settle (see the module docstring)."""

    __slots__ = ("taken", "keep_from", "settled")

    def __init__(self) -> None:
        self.taken: dict[int, Checkpoint] = {}
        self.keep_from = 0  # replaying up to this depth: checkpoints only near its end
        self.settled = 0  # the fight's length in events at the last settle

    def __len__(self) -> int:
        return len(self.taken)

    def clear(self) -> None:
        self.taken.clear()

    def interval(self, state: Core) -> int:
        """Changes between checkpoints: at least CHECKPOINT_EVERY, and more on a big roster,
        so copying the state costs a bounded share of each change (about half a copy of
        one combatant or queue entry per change) while undo replays a bounded stretch."""
        return max(CHECKPOINT_EVERY, 2 * (len(state.combatants) + len(state.timeline)))

    def consider(self, state: Core, depth: int, events: int) -> None:
        """After a change at `depth` (a multiple of CHECKPOINT_EVERY) of a fight of
        `events` events: settle if it is time, take a checkpoint if it is time."""
        self.settle(events)
        top = max(self.taken, default=0)
        interval = self.interval(state)
        if depth - top < interval or depth < self.keep_from - 2 * interval:
            return
        self.taken[depth] = snapshot(state)
        while len(self.taken) > MAX_CHECKPOINTS:  # deeper undo rebuilds from the start
            del self.taken[min(self.taken)]

    def settle(self, events: int) -> None:
        """Move the state out of the garbage collector's sight if the fight has grown by
        SETTLE_EVERY changes since it last was (tracker.engine.settling): asked every
        CHECKPOINT_EVERY changes, and after a batch such as opening a save."""
        if events - self.settled >= settling.SETTLE_EVERY and settling.settle():
            self.settled = events

    def nearest(self, depth: int) -> tuple[int, Checkpoint] | None:
        """The deepest checkpoint at or below `depth` (those above are dropped: undone)."""
        for key in [k for k in self.taken if k > depth]:
            del self.taken[key]
        base = max(self.taken, default=None)
        return None if base is None else (base, self.taken[base])


def live_actions(state: Core) -> list[Action]:
    """The actions that may still change (in progress, or interrupted and keepable),
    found through the combatants and the timeline (never a scan of every action)."""
    found: dict[int, Action] = {}
    for c in state.combatants.values():
        for action in c.in_progress:
            found[id(action)] = action
        if c.interrupted is not None:
            found[id(c.interrupted)] = c.interrupted
    for entry in state.timeline:
        payload = entry[3]
        if payload.__class__ is tuple and payload:
            payload = payload[0]
        if payload.__class__ is Action and payload.status not in _FINAL:
            found[id(payload)] = payload
    return list(found.values())


def snapshot(state: Core) -> Checkpoint:
    """The state as values: each combatant as a row of its fields (containers copied),
    each action that may still change with its fields as they are now, the timeline's
    entries (immutable tuples, shared). Actions are kept by identity: a restore puts
    their fields back, so the combatants and timeline entries may point at them as is.
    Finished actions, resolutions, effects and log entries never change: shared."""
    live = live_actions(state)
    return Checkpoint(
        now=state.now,
        combatants=tuple(_combatant_row(c) for c in state.combatants.values()),
        folded=state._folded.copy(),
        first=state._first.copy(),
        actions=len(state.actions),
        log=len(state.log),
        scheduled=_lists(state.scheduled),
        timeline=state.timeline.copy(),
        current_seq=state._current_seq,
        upkeep_count=state.upkeep_count,
        verdicts=_lists(state._verdicts),
        proposals=state.proposals.copy(),
        table=dict(state.table),
        ended=state.ended,
        live=tuple(live),
        live_values=tuple(action_values(action) for action in live),  # plain values: not tracked by gc
    )


def restore(state: Core, snap: Checkpoint) -> None:
    """Put the state back as `snap` holds it (copying again: the checkpoint stays as it
    was, for the next restore)."""
    state.log.truncate(snap.log)
    del state.actions[snap.actions:]
    for action, values in zip(snap.live, snap.live_values):
        for name, value in zip(ACTION_CHANGES, values):
            setattr(action, name, value)
    state.now = snap.now
    state.combatants = {row[0]: _combatant_from_row(row) for row in snap.combatants}
    state._folded = snap.folded.copy()
    state._first = snap.first.copy()
    state.scheduled = _lists(snap.scheduled)
    state.timeline = snap.timeline.copy()
    state._current_seq = snap.current_seq
    state.upkeep_count = snap.upkeep_count
    state._verdicts = _lists(snap.verdicts)
    state.proposals = snap.proposals.copy()
    state.table = dict(snap.table)
    state.ended = snap.ended


__all__ = ["ACTION_CHANGES", "CHECKPOINT_EVERY", "MAX_CHECKPOINTS", "Checkpoint", "Checkpoints", "action_values", "restore", "snapshot"]
