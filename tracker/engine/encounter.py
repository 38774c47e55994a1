"""The segment timeline: an encounter folded from its setup and an append-only event log.

Every change is an `Event`. `Encounter.apply` validates an event against the current
state and either refuses it (nothing changes) or applies it and appends it to the log,
so the current state is always the fold of the setup plus the effective events.

Undo and redo are events too: `undo` names the change it reverts, `redo` the change
it brings back. The effective history is the stack of applied changes; a new change
after an undo clears what could be redone, as in any editor. Because undo is appended
rather than erasing, several people sharing one file can merge their logs, and the
log keeps a record of what was taken back.

Undo and redo cost does not grow with the log: every CHECKPOINT_EVERY effective
changes (more on a big roster: `_interval`) the state is copied (only what can still
change: combatants, the queue, the actions still in progress; finished actions and
log entries are kept by count), so an undo restores the nearest checkpoint at or
below the new top and replays a bounded stretch; a redo applies the one change again
on the current state. A checkpoint holds values, not objects: each combatant as a row
of its fields, each action still in progress as the fields that can change (status,
completion, end), which a restore puts back on the same action object; so the queue
and the combatants' rows point at the actions as they are, and nothing is remapped. The last MAX_CHECKPOINTS are kept; an undo deeper than that
refolds from the setup. Replaying a whole file (`replay`) keeps checkpoints only near
its end, where undo will look, so opening a long fight pays for a few copies. A
rename rewrites earlier actions and log lines, so it drops the checkpoints before it.

Timing, as decided in DESIGN section 3:
- An action initiated on segment s with performance time p completes on s + p. Its
  roll was made at initiation (stored in the event as a `Resolution`); effects with
  timing "initiate" (costs) apply at once, the rest on the completion segment.
- On arriving at a segment: completions first, then conditions expiring, landings,
  surprise ending, scheduled events, then per-round costs if it is a payment segment.
  Only after that may combatants initiate on that segment.
- Blows (`effects.Blow`) are judged when they land: every blow due on a segment is
  judged by its ruleset's registered judge against the state at the start of that
  segment, before any completion or effect of the segment applies; then the verdicts
  land with the other effects. Replay re-judges the same state, so it agrees.
- Completions on one segment either all land together (`TimeMapping.simultaneous`,
  Brand X: a blow from a fighter knocked out on the same segment still lands) or one
  by one in the resolution's `order` key, largest first, where an actor put down or
  thrown earlier in the segment loses its action (ORE). Completions with equal keys
  happen at once (ORE's identical sets): none loses its action to another, and their
  effects apply by actor name, start and template, never in typing order.
- Initiation rules: (1) one initiation per combatant per segment, unless the templates
  name each other as companions; (2) no active action while an active one is in
  progress; (3) initiating a passive action pushes the initiator's own in-progress
  actions back one segment. A combatant that is down, surprised (before its segment)
  or airborne (active actions only) may not initiate.
- A maintained attack continues a completed maintainable action on the segment that
  action completed; the chain ends when the attacker initiates any other active action
  or lets a segment pass.
- A combatant that goes down, or is thrown back, loses its in-progress active action
  (interrupted); `keep` lets the GM overrule a throwback interruption.
- `next` finds the next segment where anything happens through a priority queue with
  lazy deletion, so its cost does not depend on how many empty segments it skips.
- A stretch of time holding nothing but payment segments is charged in one go, with
  one summary line per payer ("payment segments 50-100000000 (2000000 payments): ..."),
  so `step N` and loading its save cost the same whatever N. Payments are made one by
  one only on the segment where a payer's down state changes, so who goes down, when,
  and what that interrupts are exactly as if each segment had been stepped.

Proposals: a player's declaration under `player_declarations = "approval"` is a
`propose` event, checked against the initiation rules when made but changing nothing in
the fight; `approve` applies it (its own arguments when the GM edited it), `refuse` and
`withdraw` close it, and moving time lapses every pending one. Their log lines are
private: shown to the GM and the players of the combatants they are about, never to
viewers (`LogEntry.private`, `tracker.roles.visible_to`).

Validation: every event is checked in full before it changes anything (numbers through
`tracker.engine.bounds`, names unique ignoring case, a resolution's effects before the
first applies), so a refused event leaves the state as it was. Should a handler still
fail part-way (a bug), the effective events are folded again and the event is refused.
"""

from __future__ import annotations

import copy
import dataclasses
import heapq
import itertools
import operator
from dataclasses import replace
import math
from collections.abc import Callable, Iterable
from typing import Any

from tracker.engine import bounds
from tracker.engine import effects as fx
from tracker.engine import table
from tracker.engine.effects import Resolution
from tracker.engine.errors import RuleRefusal, TrackerError, no_such_combatant
from tracker.engine.model import (
    ABORTED,
    ACTIVE,
    COMPLETED,
    IN_PROGRESS,
    INTERRUPTED,
    MODES,
    PASSIVE,
    Action,
    Combatant,
    CombatantSetup,
    Event,
    LogEntry,
    PENDING,
    APPROVED,
    REFUSED,
    WITHDRAWN,
    LAPSED,
    Proposal,
    Setup,
    _LogEntryDraft,
)

# Kinds of queue entry, in the order they are handled on one segment.
_COMPLETE, _EARLY, _EXPIRE, _LAND, _ALERT, _SCHEDULED = range(6)

UNDO = "undo"
REDO = "redo"

CHECKPOINT_EVERY = 64
MAX_CHECKPOINTS = 16
# Attributes that are not the folded state: the log of events and the undo stacks are
# kept across a restore; the setup and handlers never change.
_NOT_STATE = frozenset({"setup", "time", "events", "_handlers", "_applied", "_redo", "_checkpoints", "_keep_from"})
_FINAL = (COMPLETED, ABORTED)
# Events that rewrite what checkpoints share (finished actions, earlier log lines): once
# one is folded in, every checkpoint taken before it is dropped.
_REWRITES_HISTORY = frozenset({"rename"})


_ORDER = operator.attrgetter("resolution.order")  # the ruleset's key inside a segment


def _tied(action: Action) -> tuple[Any, ...]:
    """Actions of one order key apply their effects by actor, start and template."""
    return (action.actor, action.start, action.template, tuple(action.targets))


def _fmt(value: int | float) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


class Encounter:
    """An encounter's live state. Construct from a setup, then `apply` events."""

    def __init__(self, setup: Setup, events: Iterable[Event] = ()) -> None:
        self.setup = setup
        self.time = setup.time
        self.events: list[Event] = []
        self._handlers: dict[str, Callable[[dict[str, Any]], None]] = {
            "add": self._add,
            "remove": self._remove,
            "declare": self._declare,
            "maintain": self._maintain,
            "abort": self._abort,
            "damage": self._damage,
            "set": self._set,
            "advance": self._advance,
            "condition": self._condition,
            "schedule": self._schedule,
            "surprise": self._surprise,
            "hide": self._hide,
            "keep": self._keep,
            "note": self._note,
            "roll": self._roll,
            "rename": self._rename,
            "side": self._side,
            "reorder": self._reorder,
            "propose": self._propose,
            "approve": self._approve,
            "refuse": self._refuse,
            "withdraw": self._withdraw,
            "setting": self._setting,
        }
        self._checkpoints: dict[int, dict[str, Any]] = {}
        self._keep_from = 0  # replaying up to this depth: checkpoints only near its end
        self._reset()
        for event in events:
            self.apply(event)

    # ----------------------------------------------------------------- state
    def _reset(self) -> None:
        self.now = 0
        self.combatants: dict[str, Combatant] = {}
        self._folded: dict[str, str] = {}  # casefolded name -> name, for lookups ignoring case
        # casefolded name -> the identity of the first combatant to carry it (`bearer`);
        # kept when that combatant is renamed or leaves, so the name stays theirs.
        self._first: dict[str, tuple[str, int]] = {}
        self.actions: list[Action] = []
        self.log: list[LogEntry] = []
        self.scheduled: dict[int, list[str]] = {}
        self._queue: list[tuple[int, int, int, Any]] = []
        self._tick = 0  # the last tie-breaker handed out: queue entries never compare payloads
        self._applied: list[int] = []  # indexes into self.events of effective changes
        self._redo: list[int] = []
        self._current_seq = 0
        self._upkeep_count = 0
        self._verdicts: dict[tuple[int, str, int], list[fx.Effect]] = {}
        self.proposals: dict[int, Proposal] = {}  # by the seq of the propose event
        # Table settings (tracker.engine.table) the GM chose: the setup's, then `setting`
        # events. A key left unchosen is absent, so a reader can fall back on its own
        # default (the user's config for `viewer_resources`) before the built-in one.
        self.table = {k: self.setup.settings[k] for k in table.TABLE_SETTINGS if k in self.setup.settings}
        for entry in self.setup.roster:
            self._enter(entry)

    @property
    def revision_events(self) -> int:
        return len(self.events)

    def combatant(self, name: str) -> Combatant:
        found = self.combatants.get(name)
        if found is None:
            found = self.combatants.get(self._folded.get(name.casefold(), ""))
        if found is None:
            raise no_such_combatant(name, list(self.combatants))
        return found

    def bearer(self, name: str) -> Combatant | None:
        """The combatant that first carried `name` in this fight (ignoring case), under
        whatever name it has now; None if it has left, or nobody ever carried the name.
        A newcomer given a name someone else carried before is not its bearer."""
        first = self._first.get(name.casefold())
        if first is None:
            return None
        for c in self.combatants.values():
            if c.identity == first:
                return c
        return None

    def in_progress(self) -> list[Action]:
        return [a for c in self.combatants.values() for a in c.in_progress]

    def can_undo(self) -> bool:
        return bool(self._applied)

    def can_redo(self) -> bool:
        return bool(self._redo)

    def undo_target(self) -> Event | None:
        return self.events[self._applied[-1]] if self._applied else None

    def redo_target(self) -> Event | None:
        return self.events[self._redo[-1]] if self._redo else None

    def effective_events(self) -> list[Event]:
        return [self.events[i] for i in self._applied]

    # ----------------------------------------------------------------- apply
    def apply(self, event: Event) -> Event:
        """Validate and apply one event; on refusal raise and change nothing."""
        kind = event.kind
        if kind == UNDO or kind == REDO:
            self._walk(event)
        else:
            handler = self._handlers.get(kind)
            if handler is None:
                raise TrackerError(f"unknown event kind {kind!r}")
            index = len(self.events)
            self._current_seq = index + 1
            try:
                handler(event.args)
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
            if kind in _REWRITES_HISTORY:
                self._checkpoints.clear()
            if not len(applied) % CHECKPOINT_EVERY:  # checkpoints fall on multiples
                self._maybe_checkpoint()
        event.seq = len(self.events) + 1
        self.events.append(event)
        return event

    def replay(self, events: list[Event]) -> None:
        """Apply events read from a file (checkpoints only near the end; see module doc)."""
        self._keep_from = len(self._applied) + len(events)
        try:
            for event in events:
                self.apply(event)
        finally:
            self._keep_from = 0

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
            self._handlers[again.kind](again.args)
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
        if again.kind in _REWRITES_HISTORY:
            self._checkpoints.clear()
        self._maybe_checkpoint()

    def _rebuild(self) -> None:
        """Refold the effective events from the setup (after undo or redo)."""
        events, applied, redo = self.events, self._applied, self._redo
        self._checkpoints.clear()
        self._reset()
        self._keep_from = len(applied)
        self._applied = []
        try:
            for index in applied:
                event = events[index]
                self._current_seq = event.seq
                self._handlers[event.kind](event.args)
                self._applied.append(index)
                if event.kind in _REWRITES_HISTORY:
                    self._checkpoints.clear()
                self._maybe_checkpoint()
        finally:
            # Whatever happens, the log and both stacks stay as they were (a fault part
            # way is the caller's to handle: `_walk` folds its stacks again).
            self.events, self._applied, self._redo = events, applied, redo
            self._keep_from = 0

    # ------------------------------------------------------------ checkpoints
    def _interval(self) -> int:
        """Changes between checkpoints: at least CHECKPOINT_EVERY, and more on a big roster,
        so copying the state costs a bounded share of each change (about half a copy of
        one combatant or queue entry per change) while undo replays a bounded stretch."""
        return max(CHECKPOINT_EVERY, 2 * (len(self.combatants) + len(self._queue)))

    def _maybe_checkpoint(self) -> None:
        depth = len(self._applied)
        if depth % CHECKPOINT_EVERY:  # checkpoints fall on multiples: a cheap test per change
            return
        top = max(self._checkpoints, default=0)
        interval = self._interval()
        if depth - top < interval or depth < self._keep_from - 2 * interval:
            return
        self._checkpoints[depth] = self._snapshot()
        while len(self._checkpoints) > MAX_CHECKPOINTS:  # deeper undo rebuilds from the start
            del self._checkpoints[min(self._checkpoints)]

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

    def _snapshot(self) -> dict[str, Any]:
        """The state as values: each combatant as a row of its fields (containers copied),
        each action that may still change with its fields as they are now, the queue's
        entries (immutable tuples, shared). Actions are kept by identity: a restore puts
        their fields back, so the combatants and queue entries may point at them as is.
        Finished actions, resolutions, effects and log entries never change: shared."""
        state: dict[str, Any] = {}
        for key, value in self.__dict__.items():
            if key in _NOT_STATE or key in ("log", "actions"):
                continue
            if key == "combatants":
                state[key] = [_combatant_row(c) for c in value.values()]
            elif key == "_queue" or key == "_folded" or key == "_first":
                state[key] = value.copy()  # immutable entries / names: a shallow copy
            else:
                state[key] = _copy_value(value, self)
        live = self._live_actions()
        values = [_action_values(action) for action in live]  # plain values: not tracked by gc
        return {"state": state, "live": live, "values": values, "log": len(self.log), "actions": len(self.actions)}

    def _restore(self, snap: dict[str, Any]) -> None:
        del self.log[snap["log"]:]
        del self.actions[snap["actions"]:]
        for action, values in zip(snap["live"], snap["values"]):
            for name, value in zip(_ACTION_CHANGES, values):
                setattr(action, name, value)
        for key, value in snap["state"].items():
            if key == "combatants":
                value = {row[0]: _combatant_from_row(row) for row in value}
            elif key == "_queue" or key == "_folded" or key == "_first":
                value = value.copy()
            else:
                value = _copy_value(value, self)
            setattr(self, key, value)

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
            self._handlers[event.kind](event.args)
            if event.kind in _REWRITES_HISTORY:
                self._checkpoints.clear()

    # ------------------------------------------------------------ log helpers
    def _say(self, kind: str, text: str, *about: str, secret: bool = False, private: bool = False) -> None:
        # Called for every log line of a replayed fight: a plain loop, positional fields.
        unseen = False
        if about:
            combatants = self.combatants
            for name in about:
                c = combatants.get(name)
                if c is not None and c.hidden:
                    unseen = True
                    break
        # `model.log_entry`, inlined: a LogEntry at the cost of an unfrozen dataclass.
        entry: Any = _LogEntryDraft(self.now, kind, text, about, self._current_seq, secret, unseen, private)
        entry.__class__ = LogEntry
        self.log.append(entry)

    def author(self, entry: LogEntry) -> str:
        """The `by` of the change that wrote a log line ("" for the opening roster)."""
        return self.events[entry.seq - 1].by if 0 < entry.seq <= len(self.events) else ""

    def _push(self, segment: int, kind: int, payload: Any) -> None:
        self._tick += 1
        heapq.heappush(self._queue, (segment, kind, self._tick, payload))

    @staticmethod
    def _early_segment(action: Action, effect: fx.Effect) -> int:
        return max(action.start + 1, action.completes - getattr(effect, "lead", 0))

    def _push_early(self, action: Action) -> None:
        """Queue the effects that land `lead` segments before the action completes."""
        for effect in action.resolution.effects:
            if getattr(effect, "lead", 0) > 0 and effect.timing == fx.COMPLETE:
                segment = self._early_segment(action, effect)
                if segment > self.now:
                    self._push(segment, _EARLY, (action, effect))

    # ------------------------------------------------------------ roster
    def _enter(self, entry: CombatantSetup) -> Combatant:
        if not isinstance(entry.name, str) or not entry.name.strip():
            raise TrackerError("a combatant needs a name")
        self.check_new_name(entry.name)
        bounds.sheet(entry.stats, entry.resources, entry.name)
        bounds.segment(entry.surprised_until, f"{entry.name}: surprised_until")
        c = Combatant(
            name=entry.name,
            stats=dict(entry.stats),
            resources=dict(entry.resources),
            maxima=dict(entry.resources),
            side=entry.side,
            hidden=entry.hidden,
            surprised_until=entry.surprised_until,
            down_keys=self.setup.down_when,
            called=((entry.name, self._current_seq),),
        )
        self.combatants[c.name] = c
        self._folded[c.name.casefold()] = c.name
        self._first.setdefault(c.name.casefold(), c.called[0])
        if c.surprised_until > self.now:
            self._push(c.surprised_until, _ALERT, c.name)
        return c

    def check_new_name(self, name: str, keep: str | None = None) -> None:
        """Refuse `name` if a combatant (other than `keep`) already has it, ignoring case.

        Names are looked up ignoring case, so two that differ only by case could never
        both be reached.
        """
        other = self._folded.get(name.casefold())
        if other is not None and other != keep:
            raise TrackerError(f"there is already a combatant named {other!r} (names are unique ignoring case)")

    def _add(self, args: dict[str, Any]) -> None:
        # `names` (copies: "Goblin 1".."Goblin 4") adds the same sheet under each name.
        names = list(args.get("names") or [args["name"]])
        entries = [
            CombatantSetup(
                name=name,
                stats=dict(args.get("stats", {})),
                resources=dict(args.get("resources", {})),
                side=args.get("side", ""),
                hidden=bool(args.get("hidden", False)),
                surprised_until=bounds.segment(args.get("surprised_until", 0), "surprised_until"),
            )
            for name in names
        ]
        folded = [n.casefold() if isinstance(n, str) else n for n in names]
        if len(set(folded)) != len(folded):
            raise TrackerError(f"add: the names repeat ({', '.join(map(str, names))})")
        for entry in entries:  # every check before the first one enters
            if not isinstance(entry.name, str) or not entry.name.strip():
                raise TrackerError("a combatant needs a name")
            self.check_new_name(entry.name)
            bounds.sheet(entry.stats, entry.resources, entry.name)
        for entry in entries:
            c = self._enter(entry)
            self._say("add", f"{c.name} joins the fight", c.name)

    def _rename(self, args: dict[str, Any]) -> None:
        c = self.combatant(args["target"])
        old, new = c.name, args["name"]
        if not isinstance(new, str) or not new.strip():
            raise TrackerError("rename: a combatant needs a name")
        self.check_new_name(new, keep=old)
        # Everything that refers to the combatant by name follows it.
        self.combatants = {(new if n == old else n): other for n, other in self.combatants.items()}
        del self._folded[old.casefold()]
        self._folded[new.casefold()] = new
        c.name = new
        c.called = c.called + ((new, self._current_seq),)
        self._first.setdefault(new.casefold(), c.identity)

        def swap(name: str) -> str:
            return new if name == old else name

        renamed: dict[int, fx.Effect] = {}  # id(old effect) -> the effect aimed at the new name
        for action in self.actions:
            action.actor = swap(action.actor)
            action.targets = tuple(swap(t) for t in action.targets)
            if any(getattr(e, "target", None) == old for e in action.resolution.effects):
                effects = []
                for effect in action.resolution.effects:
                    if not isinstance(effect, fx.Note) and effect.target == old:  # a note names no one
                        renamed[id(effect)] = replace(effect, target=new)
                    effects.append(renamed.get(id(effect), effect))
                action.resolution = replace(action.resolution, effects=tuple(effects))
        queue = []
        for segment, kind, tick, payload in self._queue:
            if kind in (_LAND, _ALERT):
                payload = swap(payload)
            elif kind == _EXPIRE:
                payload = (swap(payload[0]), payload[1])
            elif kind == _EARLY:
                payload = (payload[0], renamed.get(id(payload[1]), payload[1]))
            queue.append((segment, kind, tick, payload))
        heapq.heapify(queue)
        self._queue = queue
        self.log = [replace(e, about=tuple(swap(n) for n in e.about)) if old in e.about else e for e in self.log]
        self._say("rename", f"{old} is now called {new}", new)

    def _side(self, args: dict[str, Any]) -> None:
        c = self.combatant(args["target"])
        c.side = args["side"]
        self._say("side", f"{c.name} is on side {c.side}" if c.side else f"{c.name} is on no side", c.name)

    def _reorder(self, args: dict[str, Any]) -> None:
        c = self.combatant(args["target"])
        position = args["position"]
        if isinstance(position, bool) or not isinstance(position, int) or not 1 <= position <= len(self.combatants):
            raise TrackerError(f"reorder: position: expected 1 to {len(self.combatants)}, got {position!r}")
        order = [n for n in self.combatants if n != c.name]
        order.insert(position - 1, c.name)
        self.combatants = {n: self.combatants[n] for n in order}
        self._say("reorder", f"{c.name} moves to place {position} in the roster", c.name)

    def _remove(self, args: dict[str, Any]) -> None:
        c = self.combatant(args["name"])
        for action in list(c.in_progress):
            self._end(action, ABORTED)
        del self.combatants[c.name]
        del self._folded[c.name.casefold()]
        self._say("remove", f"{c.name} leaves the fight", c.name)

    # ------------------------------------------------------------ initiation
    def check_initiation(self, c: Combatant, template: str, mode: str, companions: Iterable[str] = ()) -> None:
        """Raise RuleRefusal naming the rule if `c` may not initiate this now."""
        now = self.now
        if mode not in MODES:
            raise TrackerError(f"mode must be active or passive, not {mode!r}")
        if c.down:
            raise RuleRefusal("down", f"{c.name} is down and cannot act")
        if now < c.surprised_until:  # c.surprised(now), asked on every initiation
            raise RuleRefusal(
                "surprise", f"{c.name} is surprised and may not initiate before segment {c.surprised_until}"
            )
        if mode == ACTIVE and now < c.airborne_until:  # c.airborne(now)
            raise RuleRefusal(
                "throwback",
                f"{c.name} is airborne until segment {c.airborne_until} and may not initiate an active action",
            )
        if c.initiated_on == now:
            companions = tuple(companions)
            for other, other_companions in c.initiated_now:
                if template not in other_companions and other not in companions:
                    raise RuleRefusal(
                        "one initiation per segment",
                        f"{c.name} already initiated {other} on segment {now}",
                    )
        if mode == ACTIVE and c.active is not None:
            raise RuleRefusal(
                "one active action at a time",
                f"{c.name}'s active {c.active.template} is in progress until segment {c.active.completes}",
            )

    def _initiate(
        self,
        c: Combatant,
        template: str,
        mode: str,
        targets: tuple[str, ...],
        resolution: Resolution,
        companions: tuple[str, ...],
        maintainable: bool,
        chain: int,
        secret: bool = False,
    ) -> Action:
        now = self.now
        if resolution.pt < 1:
            raise TrackerError(f"performance time must be at least 1 segment, not {resolution.pt}")
        combatants = self.combatants
        for target in targets:
            if target not in combatants:
                self.combatant(target)  # found ignoring case, or refused by name
        if mode == PASSIVE:
            for pending in c.in_progress:
                pending.completes += 1
                self._push(pending.completes, _COMPLETE, pending)
                self._push_early(pending)
        else:
            c.chain_from = None
        if c.initiated_on != now:
            c.initiated_on = now
            c.initiated_now.clear()  # in place: a new list a declaration would live on for gc to scan
        c.initiated_now.append((template, companions))
        # id, actor, template, mode, pt, start, completes, targets, resolution,
        # maintainable, chain, secret (positional: this runs for every replayed action)
        action = Action(len(self.actions) + 1, c.name, template, mode, resolution.pt, now, now + resolution.pt, targets, resolution, maintainable, chain, secret)
        self.actions.append(action)
        c.in_progress.append(action)
        if mode == ACTIVE:
            c.active = action
        self._tick += 1
        heapq.heappush(self._queue, (action.completes, _COMPLETE, self._tick, action))
        if resolution.effects:
            self._push_early(action)
        verb = f"maintains {template} (link {chain})" if chain else f"initiates {mode} {template}"
        aim = f" at {', '.join(targets)}" if targets else ""
        if not secret:
            detail = f": {resolution.summary}" if resolution.summary else ""
            self._say("declare", f"{c.name} {verb}{aim}, PT {resolution.pt}, completes on segment {action.completes}{detail}", c.name, *targets)
        else:
            line = f"{c.name} {verb}{aim}, PT {resolution.pt}, completes on segment {action.completes}"
            # Viewers see that something was started; the roll itself stays behind the screen.
            self._say("declare", line + " (rolled in secret)", c.name, *targets)
            if resolution.summary:
                self._say("roll", f"secret roll for {c.name}'s {template}: {resolution.summary}", c.name, secret=True)
        if resolution.effects:
            self._apply_effects(action, fx.INITIATE)
        return action

    def _declare(self, args: dict[str, Any]) -> None:
        actor = args["actor"]
        c = self.combatants.get(actor) or self.combatant(actor)
        template, mode = args["template"], args.get("mode", ACTIVE)
        companions = tuple(args.get("companions", ()))
        self.check_initiation(c, template, mode, companions)
        resolution = self._checked(args["resolution"])
        # actor, template, mode, targets, resolution, companions, maintainable, chain,
        # secret (positional: this runs for every declaration)
        self._initiate(c, template, mode, tuple(args.get("targets", ())), resolution, companions,
                       bool(args.get("maintainable", False)), 0, bool(args.get("secret", False)))

    def maintainable_action(self, c: Combatant) -> Action:
        """The completed action `c` may maintain now, or RuleRefusal saying why not."""
        prev = c.chain_from
        if prev is None:
            raise RuleRefusal("maintained attack", f"{c.name} has no completed attack that can be maintained")
        if prev.ended != self.now:
            raise RuleRefusal(
                "maintained attack",
                f"{c.name}'s {prev.template} completed on segment {prev.ended}; a maintained "
                f"attack continues on the segment the previous one completes",
            )
        return prev

    def _maintain(self, args: dict[str, Any]) -> None:
        c = self.combatant(args["actor"])
        prev = self.maintainable_action(c)
        self.check_initiation(c, prev.template, ACTIVE)
        targets = tuple(args.get("targets", ())) or prev.targets
        self._initiate(c, prev.template, ACTIVE, targets, self._checked(args["resolution"]), (), True, prev.chain + 1, prev.secret)

    def _checked(self, value: Resolution | dict[str, Any]) -> Resolution:
        """The resolution, refused now if any number it would apply is out of bounds."""
        resolution = value if value.__class__ is Resolution else _resolution(value)
        bounds.resolution(resolution, "resolution")
        if self.now + resolution.pt > bounds.MAX_SEGMENT:
            raise TrackerError(f"resolution: pt: the action would complete after segment {bounds.MAX_SEGMENT:,}")
        return resolution

    def _abort(self, args: dict[str, Any]) -> None:
        c = self.combatant(args["actor"])
        wanted = args.get("template")
        candidates = [a for a in c.in_progress if wanted in (None, a.template)]
        if not candidates:
            what = f" {wanted}" if wanted else ""
            raise RuleRefusal("abort", f"{c.name} has no{what} action in progress to abort")
        action = c.active if c.active in candidates else candidates[-1]
        self._end(action, ABORTED)
        self._say("abort", f"{c.name} aborts {action.template}", c.name)

    def _end(self, action: Action, status: str) -> None:
        action.status = status
        action.ended = self.now
        c = self.combatants.get(action.actor)
        if c is not None:
            if action in c.in_progress:
                c.in_progress.remove(action)
            if c.active is action:
                c.active = None

    # ------------------------------------------------------------ manual changes
    def _damage(self, args: dict[str, Any]) -> None:
        """Damage on one combatant, or (`also`: more targets, each with its own resource
        and overflow) on several as one change: every one is checked before any is hurt."""
        bounds.number(args["amount"], "amount")
        each = [args, *(args.get("also") or ())]
        blows: list[fx.Damage] = []
        for one in each:
            c = self.combatant(one["target"])
            resource = one["resource"]
            if resource not in c.resources:
                raise TrackerError(f"{c.name} has no resource {resource!r} (has: {', '.join(c.resources) or 'none'})")
            overflow = one.get("overflow", "")
            if overflow and overflow not in c.resources:
                raise TrackerError(f"{c.name} has no resource {overflow!r} (has: {', '.join(c.resources)})")
            if any(b.target == c.name for b in blows):
                raise TrackerError(f"damage: {c.name} is named twice")
            blows.append(fx.Damage(c.name, args["amount"], resource, overflow))
        for blow in blows:
            self._hurt(blow, self.now + 1)

    def _set(self, args: dict[str, Any]) -> None:
        c = self.combatant(args["target"])
        key, value = args["key"], bounds.value(args["value"], f"set {args['key']}")
        table = c.stats if key in c.stats and key not in c.resources else c.resources
        if table is c.resources and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise TrackerError(f"set {c.name} {key}: {key} is a resource and takes a number, got {value!r}")
        table[key] = value
        self._say("set", f"{c.name}: {key} set to {_fmt(value) if isinstance(value, (int, float)) else value}", c.name)
        self._check_down(c, self.now + 1)

    def _condition(self, args: dict[str, Any]) -> None:
        """A condition on one combatant, or (`also`: more names) on several as one change."""
        found = [self.combatant(name) for name in [args["target"], *(args.get("also") or ())]]
        duration = bounds.segment(args["duration"], "condition: segments", 1)
        if self.now + duration > bounds.MAX_SEGMENT:
            raise TrackerError(f"condition: it would end after segment {bounds.MAX_SEGMENT:,}")
        for c in found:
            self._add_condition(c, args["name"], duration)

    def _add_condition(self, c: Combatant, name: str, duration: int) -> None:
        expires = self.now + duration
        c.conditions[name] = expires
        self._push(expires, _EXPIRE, (c.name, name))
        self._say("condition", f"{c.name} is {name} until segment {expires}", c.name)

    def _schedule(self, args: dict[str, Any]) -> None:
        at, text = bounds.segment(args["at"], "schedule: segment"), args["text"]
        if at <= self.now:
            raise TrackerError(f"a scheduled event must be after the current segment {self.now}, not {at}")
        self.scheduled.setdefault(at, []).append(text)
        self._push(at, _SCHEDULED, text)
        self._say("schedule", f"scheduled for segment {at}: {text}")

    def _surprise(self, args: dict[str, Any]) -> None:
        c = self.combatant(args["target"])
        until = bounds.segment(args["until"], "surprise: segment")
        c.surprised_until = until
        if until > self.now:
            self._push(until, _ALERT, c.name)
            self._say("surprise", f"{c.name} is surprised: no initiation before segment {until}", c.name)
        else:
            self._say("surprise", f"{c.name} is no longer surprised", c.name)

    def _hide(self, args: dict[str, Any]) -> None:
        c = self.combatant(args["target"])
        c.hidden = bool(args.get("hidden", True))
        self._say("hide", f"{c.name} is {'hidden from' if c.hidden else 'shown to'} viewers", c.name)

    def _keep(self, args: dict[str, Any]) -> None:
        c = self.combatant(args["target"])
        action = c.interrupted
        if action is None or action.status != INTERRUPTED:
            raise RuleRefusal("throwback", f"{c.name} has no interrupted action to keep")
        if action.completes <= self.now:
            raise RuleRefusal("throwback", f"{c.name}'s {action.template} would have completed on {action.completes}")
        if action.mode == ACTIVE and c.active is not None:
            raise RuleRefusal("one active action at a time", f"{c.name} has started {c.active.template} since")
        action.status, action.ended = IN_PROGRESS, None
        c.in_progress.append(action)
        if action.mode == ACTIVE:
            c.active = action
        c.interrupted = None
        self._push(action.completes, _COMPLETE, action)
        self._push_early(action)
        self._say("keep", f"the GM keeps {c.name}'s {action.template}: it completes on segment {action.completes}", c.name)

    def _note(self, args: dict[str, Any]) -> None:
        self._say("note", str(args["text"]), *args.get("about", ()))

    def _roll(self, args: dict[str, Any]) -> None:
        """A table roll (Session.roll): a line in the log, nothing else changes. A secret
        one (the GM's) is kept from viewers and players, as a secret declaration's dice."""
        secret = bool(args.get("secret"))
        self._say("roll", f"roll {args['text']}" + (" (secret)" if secret else ""), secret=secret)

    # ------------------------------------------------------------ proposals
    # A player's declaration under `player_declarations = "approval"` (see model.Proposal).
    # It is checked against the rules when made, so the player hears at once of a
    # refusal; it changes nothing until the GM approves it, and lapses when time moves.
    _PROPOSABLE = ("declare", "maintain", "abort")

    def pending(self) -> list[Proposal]:
        """The proposals waiting for the GM, oldest first."""
        return [p for p in self.proposals.values() if p.status == PENDING]

    def proposal(self, seq: int) -> Proposal:
        found = self.proposals.get(seq)
        if found is None:
            waiting = ", ".join(str(p.seq) for p in self.pending()) or "none"
            raise RuleRefusal("approval", f"no proposal {seq} (waiting: {waiting})")
        return found

    def _check_proposed(self, action: str, args: dict[str, Any]) -> Combatant:
        """Refuse a proposal the rules would refuse now, changing nothing."""
        if action not in self._PROPOSABLE:
            raise TrackerError(f"propose: action: expected one of {', '.join(self._PROPOSABLE)}, got {action!r}")
        c = self.combatant(args["actor"])
        if action == "declare":
            mode = args.get("mode", ACTIVE)
            self.check_initiation(c, args["template"], mode, tuple(args.get("companions", ())))
            for target in args.get("targets", ()):
                self.combatant(target)
            self._checked(args["resolution"])
        elif action == "maintain":
            prev = self.maintainable_action(c)
            self.check_initiation(c, prev.template, ACTIVE)
            self._checked(args["resolution"])
        else:
            wanted = args.get("template")
            if not any(wanted in (None, a.template) for a in c.in_progress):
                what = f" {wanted}" if wanted else ""
                raise RuleRefusal("abort", f"{c.name} has no{what} action in progress to abort")
        return c

    @staticmethod
    def _proposed_args(args: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in args.items() if k not in ("action", "target", "reason", "faces")}

    def _propose(self, args: dict[str, Any]) -> None:
        action = args["action"]
        proposed = self._proposed_args(args)
        if "resolution" in proposed:
            proposed["resolution"] = _resolution(proposed["resolution"])
        c = self._check_proposed(action, proposed)
        p = Proposal(self._current_seq, action, c.name, proposed, self.now)
        self.proposals[p.seq] = p
        roll = proposed.get("resolution")
        detail = f": {roll.summary}" if isinstance(roll, Resolution) and roll.summary else ""
        self._say("propose", f"proposal {p.seq}: {c.name}, {p.what()}{detail} (waiting for the GM)", c.name, private=True)

    def _waiting(self, seq: Any, verb: str) -> Proposal:
        if isinstance(seq, bool) or not isinstance(seq, int):
            raise TrackerError(f"{verb}: target: expected the number of a proposal, got {seq!r}")
        p = self.proposal(seq)
        if p.status != PENDING:
            raise RuleRefusal("approval", f"{verb}: proposal {seq} ({p.actor}, {p.what()}) is already {p.status}")
        return p

    def _approve(self, args: dict[str, Any]) -> None:
        p = self._waiting(args["target"], "approve")
        applied = self._proposed_args(args) if "actor" in args else dict(p.args)
        if applied.get("actor", p.actor) != p.actor:
            raise TrackerError(f"approve: proposal {p.seq} is {p.actor}'s, not {applied.get('actor')}'s")
        applied["actor"] = p.actor
        p.changes = _changes(p.args, applied) if "actor" in args else ""
        if p.changes:  # the player reads what the GM changed, not a plain approval
            self._say("approve", f"the GM approves proposal {p.seq} with changes ({p.changes}): {p.actor}, {p.what()}", p.actor, private=True)
        else:
            self._say("approve", f"the GM approves proposal {p.seq}: {p.actor}, {p.what()}", p.actor, private=True)
        try:
            self._handlers[p.action](applied)
        except TrackerError:
            self.log.pop()  # the approval line: the proposed change was refused, nothing changed
            raise
        p.status = APPROVED

    def _refuse(self, args: dict[str, Any]) -> None:
        p = self._waiting(args["target"], "refuse")
        reason = str(args.get("reason") or "").strip()
        p.status, p.reason = REFUSED, reason
        why = f": {reason}" if reason else ""
        self._say("refuse", f"the GM refuses proposal {p.seq} ({p.actor}, {p.what()}){why}", p.actor, private=True)

    def _withdraw(self, args: dict[str, Any]) -> None:
        p = self._waiting(args["target"], "withdraw")
        p.status = WITHDRAWN
        self._say("withdraw", f"proposal {p.seq} ({p.actor}, {p.what()}) is taken back", p.actor, private=True)

    def _setting(self, args: dict[str, Any]) -> None:
        key = args["key"]
        value = table.check(key, args["value"], "setting")
        self.table[key] = value
        self._say("setting", f"setting: {key} is now {value}")

    def _lapse(self) -> None:
        """Time moves on: proposals made for this segment lapse (the player declares again)."""
        for p in self.pending():
            p.status = LAPSED
            self._say("lapse", f"proposal {p.seq} ({p.actor}, {p.what()}) lapses: time moved on before the GM approved it", p.actor, private=True)

    # ------------------------------------------------------------ effects
    def _apply_effects(self, action: Action, timing: str, interrupt_from: int | None = None) -> None:
        if interrupt_from is None:
            interrupt_from = self.now + 1
        for effect in action.resolution.effects:
            if effect.timing != timing or getattr(effect, "lead", 0) > 0:
                continue
            self._apply_one(action, effect, interrupt_from)

    def _judge(self, action: Action, blow: fx.Blow) -> list[fx.Effect]:
        """The effects a blow lands, judged against the state now (see the docstring)."""
        name = action.resolution.details.get("judge", "")
        judge = fx.JUDGES.get(name)
        if judge is None:
            raise ValueError(f"{action.actor}'s {action.template}: no judge {name!r} for its blow on {blow.target}")
        try:
            landed = judge(self, action, blow)
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            # A stored record the judge cannot read (a hand-edited save): refuse by name.
            # Not a TrackerError: time may have moved already, so `apply` folds again.
            raise ValueError(f"{action.actor}'s {action.template}: its blow on {blow.target} cannot be judged "
                               f"from the stored record ({type(exc).__name__}: {exc})") from None
        return [e for e in landed if not isinstance(e, fx.Blow)]

    def _judge_due(self, completing: list[Action], early: list[tuple[Action, fx.Effect]]) -> None:
        """Judge every blow landing on this segment before anything of it applies. In a
        game that resolves one by one (ORE), each blow is judged as its turn comes."""
        self._verdicts = {}
        if not self.time.simultaneous:
            return
        due = [(a, e) for a in completing for e in a.resolution.effects if e.timing == fx.COMPLETE and getattr(e, "lead", 0) == 0]
        for action, effect in due + early:
            if isinstance(effect, fx.Blow):
                self._verdicts[(action.id, effect.target, effect.index)] = self._judge(action, effect)

    def _apply_one(self, action: Action, effect: fx.Effect, interrupt_from: int) -> None:
        if isinstance(effect, fx.Blow):
            verdict = self._verdicts.pop((action.id, effect.target, effect.index), None)
            for landed in self._judge(action, effect) if verdict is None else verdict:
                self._apply_one(action, landed, interrupt_from)
            return
        if isinstance(effect, fx.Note):
            self._say("note", effect.text, action.actor, *action.targets, secret=action.secret)
            return
        c = self.combatants.get(effect.target)
        if c is None:
            self._say("note", f"{effect.kind} on {effect.target} lapses: not in the fight", action.actor)
            return
        if isinstance(effect, fx.Damage):
            self._hurt(effect, interrupt_from)
        elif isinstance(effect, fx.Adjust):
            table = c.stats if effect.key in c.stats and effect.key not in c.resources else c.resources
            table[effect.key] = bounds.clamp(table.get(effect.key, 0) + effect.delta)
            why = f" ({effect.reason})" if effect.reason else ""
            self._say("adjust", f"{c.name}: {effect.key} {effect.delta:+g}{why}", c.name)
            self._check_down(c, interrupt_from)
        elif isinstance(effect, fx.Throwback):
            self._throw(c, effect, interrupt_from)
        elif isinstance(effect, fx.Condition):
            self._add_condition(c, effect.name, effect.duration)
        elif isinstance(effect, fx.Upkeep):
            if effect.amount:
                self._upkeep_count += effect.name not in c.upkeep
                c.upkeep[effect.name] = (effect.resource, effect.amount)
                self._say("upkeep", f"{c.name} pays {_fmt(effect.amount)} {effect.resource} a {self.time.round_name} for {effect.name}", c.name)
            elif c.upkeep.pop(effect.name, None) is not None:
                self._upkeep_count -= 1
                self._say("upkeep", f"{c.name} no longer pays for {effect.name}", c.name)

    def _hurt(self, effect: fx.Damage, interrupt_from: int) -> None:
        c = self.combatants[effect.target]
        before = c.resources.get(effect.resource, 0)
        after = before - effect.amount
        text = f"{c.name} takes {_fmt(effect.amount)} {effect.resource}" if effect.amount >= 0 else f"{c.name} heals {_fmt(-effect.amount)} {effect.resource}"
        after = bounds.clamp(after)
        if after < 0 and effect.overflow:
            c.resources[effect.resource] = 0
            c.resources[effect.overflow] = bounds.clamp(c.resources.get(effect.overflow, 0) + after)
            text += f"; {_fmt(-after)} goes through to {effect.overflow} ({_fmt(c.resources[effect.overflow])} left)"
        else:
            c.resources[effect.resource] = after
        self._say("damage", f"{text} ({effect.resource} {_fmt(before)} -> {_fmt(c.resources[effect.resource])})", c.name)
        self._check_down(c, interrupt_from)

    def _check_down(self, c: Combatant, interrupt_from: int) -> None:
        if not c.down:
            return
        lost = [a for a in c.in_progress if a.completes >= interrupt_from]
        for action in lost:
            self._end(action, INTERRUPTED)
        what = f"; {', '.join(a.template for a in lost)} interrupted" if lost else ""
        self._say("down", f"{c.name} is down{what}", c.name)

    def _throw(self, c: Combatant, effect: fx.Throwback, interrupt_from: int) -> None:
        c.airborne_until = max(c.airborne_until, self.now + effect.airborne)
        if effect.airborne > 0:
            self._push(c.airborne_until, _LAND, c.name)
        text = (
            f"{c.name} is thrown back {effect.distance:g} m at {effect.speed:g} m/segment, "
            f"airborne until segment {c.airborne_until}"
        )
        action = c.active
        if action is not None and action.completes >= interrupt_from:
            self._end(action, INTERRUPTED)
            c.interrupted = action
            text += f"; {action.template} interrupted (`keep {c.name}` lets it stand)"
        self._say("throwback", text, c.name)

    # ------------------------------------------------------------ advancing
    def _valid(self, entry: tuple[int, int, int, Any]) -> bool:
        segment, kind, _, payload = entry
        if kind == _COMPLETE:
            return payload.status == IN_PROGRESS and payload.completes == segment
        if kind == _EARLY:
            action, effect = payload
            return action.status == IN_PROGRESS and self._early_segment(action, effect) == segment
        if kind == _EXPIRE:
            c = self.combatants.get(payload[0])
            return c is not None and c.conditions.get(payload[1]) == segment
        if kind == _LAND:
            c = self.combatants.get(payload)
            return c is not None and c.airborne_until == segment
        if kind == _ALERT:
            c = self.combatants.get(payload)
            return c is not None and c.surprised_until == segment
        return True

    def next_happening(self) -> int | None:
        """The next segment after now on which anything happens, or None."""
        queue = self._queue
        while queue and not self._valid(queue[0]):
            heapq.heappop(queue)
        best = queue[0][0] if queue else None
        if self._upkeep_count:
            payment = self.time.next_payment(self.now)
            if payment is not None and (best is None or payment < best):
                best = payment
        return best

    def _advance(self, args: dict[str, Any]) -> None:
        target = bounds.segment(args["to"], "advance: segment")
        if target <= self.now:
            raise TrackerError(f"time only moves forward: segment {target} is not after {self.now}")
        self._lapse()
        while True:
            nxt = self.next_happening()
            if nxt is None or nxt > target:
                break
            if not self._pay_in_bulk(nxt, target):
                self._arrive(nxt)
        self.now = target

    # A long stretch with nothing but payment segments in it is charged in one go, so
    # the cost of `step N` (and of loading its save) does not grow with N. Payments are
    # made one at a time only where a combatant's down state changes on one.
    def _pay_in_bulk(self, first: int, target: int) -> bool:
        every = self.time.payment_every
        if not self._upkeep_count or every <= 0 or first % every:
            return False
        queue = self._queue  # next_happening has dropped the invalid entries at its head
        end = min(target, queue[0][0] - 1) if queue else target
        count = min(end // every - (first - 1) // every, self._steady_payments())
        if count < 2:
            return False
        last = first + (count - 1) * every
        self.now = last
        span = f"payment segments {first}-{last} ({count} payments)"
        for c in self.combatants.values():
            if not c.upkeep:
                continue
            parts = []
            before = dict(c.resources)
            for name, (resource, amount) in c.upkeep.items():
                total = amount * count
                c.resources[resource] = bounds.clamp(c.resources.get(resource, 0) - total)
                parts.append(f"{_fmt(total)} {resource} for {name}")
            self._say("upkeep", f"{span}: {c.name} pays {'; '.join(parts)}", c.name)
            self._say_below_zero(c, before)
            self._check_down(c, last + 1)
        return True

    def _steady_payments(self) -> int:
        """How many payments can be made before any payer's down state could change."""
        best = bounds.MAX_SEGMENT
        for c in self.combatants.values():
            if not c.upkeep:
                continue
            drain: dict[str, int | float] = {}
            for resource, amount in c.upkeep.values():
                drain[resource] = drain.get(resource, 0) + amount
            for key in c.down_keys:
                per, now = drain.get(key, 0), c.resources.get(key, 1)
                if key in drain and per != 0:
                    best = min(best, _first_crossing(now, per) - 1)
        return best

    def _arrive(self, segment: int) -> None:
        self.now = segment
        queue = self._queue
        due: list[list[Any]] = [[], [], [], [], [], []]
        while queue and queue[0][0] == segment:
            entry = heapq.heappop(queue)
            if entry[1] == _COMPLETE:  # `_valid` inlined for the commonest entry
                action = entry[3]
                if action.status == IN_PROGRESS and action.completes == segment:
                    due[_COMPLETE].append(action)
            elif self._valid(entry):
                due[entry[1]].append(entry[3])
        completing = list(dict.fromkeys(due[_COMPLETE]))  # a kept action may be queued twice
        self._judge_due(completing, due[_EARLY])
        if completing:
            self._complete_all(completing)
        for action, effect in due[_EARLY]:
            # A blow of a sweep that lands before the action completes. It was due at the
            # start of the segment, so with simultaneous resolution it lands even if its
            # actor fell to a completion on this same segment.
            if self.time.simultaneous or action.status == IN_PROGRESS:
                self._apply_one(action, effect, segment + 1 if self.time.simultaneous else segment)
        for name, condition in due[_EXPIRE]:
            c = self.combatants[name]
            if c.conditions.get(condition) == segment:
                del c.conditions[condition]
                self._say("expire", f"{name} is no longer {condition}", name)
        for name in dict.fromkeys(due[_LAND]):
            self._say("land", f"{name} lands", name)
        for name in dict.fromkeys(due[_ALERT]):
            self._say("surprise", f"{name} may act now", name)
        for text in due[_SCHEDULED]:
            self._say("scheduled", text)
        self._verdicts = {}
        if self._upkeep_count and self.time.payment_every and segment % self.time.payment_every == 0:
            self._pay(segment)

    def _complete_all(self, completing: list[Action]) -> None:
        now = self.now
        if len(completing) > 1:
            completing.sort(key=_ORDER, reverse=True)
        if self.time.simultaneous:
            for action in completing:
                self._complete(action)
            for action in completing:
                if action.resolution.effects:  # most actions have none: no call
                    self._apply_effects(action, fx.COMPLETE, now + 1)
        else:
            # Resolved one by one, but actions with the same order key (ORE: sets of the
            # same width and height) happen at once: all of them complete before any of
            # their effects apply, so one put down by a tied set still acts, and the
            # effects go in a key of who acted, never of the order they were typed.
            for _, same in itertools.groupby(completing, key=_ORDER):
                tied = sorted((a for a in same if a.status == IN_PROGRESS), key=_tied)
                for action in tied:
                    self._complete(action)
                for action in tied:
                    self._apply_effects(action, fx.COMPLETE, now)

    def _complete(self, action: Action) -> None:
        # `_end(action, COMPLETED)` inlined (this runs for every action), then the chain.
        action.status = COMPLETED
        action.ended = self.now
        c = self.combatants.get(action.actor)
        if c is not None:
            in_progress = c.in_progress
            if action in in_progress:
                in_progress.remove(action)
            if c.active is action:
                c.active = None
            if action.maintainable and action.mode == ACTIVE:
                c.chain_from = action
        outcome = ""
        if action.resolution.success is not None and not action.secret:
            outcome = ": success" if action.resolution.success else ": failure"
        self._say("complete", f"{action.actor}'s {action.template} completes{outcome}", action.actor, *action.targets)

    def _pay(self, segment: int) -> None:
        for c in self.combatants.values():
            before = dict(c.resources) if c.upkeep else {}
            for name, (resource, amount) in c.upkeep.items():
                c.resources[resource] = bounds.clamp(c.resources.get(resource, 0) - amount)
                self._say("upkeep", f"payment segment {segment}: {c.name} pays {_fmt(amount)} {resource} for {name}", c.name)
            if c.upkeep:
                self._say_below_zero(c, before)
                self._check_down(c, segment + 1)

    def _say_below_zero(self, c: Combatant, before: dict[str, int | float]) -> None:
        """The game's note for a resource that per-round payments left below 0."""
        if not self.time.below_zero:
            return
        for resource in dict.fromkeys(r for r, _ in c.upkeep.values()):
            note = self.time.below_zero_note(resource, c.name, before.get(resource, 0), c.resources.get(resource, 0))
            if note is not None:
                self._say("note", note, c.name)

    # ------------------------------------------------------------ reading
    def upcoming(self, limit: int = 20) -> list[tuple[int, str]]:
        """The next things due, soonest first, as (segment, description)."""
        return [(s, t) for s, t, _ in self.upcoming_about(limit)]

    def upcoming_about(self, limit: int | None = 20) -> list[tuple[int, str, tuple[str, ...]]]:
        """`upcoming` with the combatants each item is about (so a reader that may not see
        one of them is not told of it: tracker.viewing.Sight)."""
        found: list[tuple[int, int, str, tuple[str, ...]]] = []
        seen: set[tuple[int, int, int]] = set()
        for segment, kind, tick, payload in self._queue:
            if not self._valid((segment, kind, tick, payload)):
                continue
            # An action kept after throwback is queued again; it completes once.
            key = (segment, kind, id(payload))
            if key in seen:
                continue
            seen.add(key)
            about: tuple[str, ...] = ()
            if kind == _COMPLETE:
                text = f"{payload.actor}'s {payload.template} completes"
                about = (payload.actor, *payload.targets)
            elif kind == _EARLY:
                text = f"{payload[0].actor}'s {payload[0].template}: {payload[1].kind} on {payload[1].target}"
                about = (payload[0].actor, *payload[0].targets, payload[1].target)
            elif kind == _EXPIRE:
                text = f"{payload[0]} stops being {payload[1]}"
                about = (payload[0],)
            elif kind == _LAND:
                text = f"{payload} lands"
                about = (payload,)
            elif kind == _ALERT:
                text = f"{payload} may act"
                about = (payload,)
            else:
                text = str(payload)
            found.append((segment, tick, text, about))
        found.sort()
        if self._upkeep_count:
            payment = self.time.next_payment(self.now)
            if payment is not None:
                found.append((payment, -1, "payment segment: per-round costs are charged", ()))
                found.sort()
        return [(s, t, a) for s, _, t, a in found[:limit]]

    def visible_to_viewers(self, entry: LogEntry) -> bool:
        if entry.secret or entry.private or entry.while_hidden:
            return False
        return not any(self.combatants[n].hidden for n in entry.about if n in self.combatants)


# The fields of an action that change while it may still change (passive initiation,
# completion, interruption, abort, keep). The only change to any other field, a rename,
# drops the checkpoints taken before it.
_ACTION_CHANGES = ("status", "completes", "ended")
_action_values = operator.attrgetter(*_ACTION_CHANGES)
_COMBATANT_FIELDS = tuple(f.name for f in dataclasses.fields(Combatant))
_combatant_values = operator.attrgetter(*_COMBATANT_FIELDS)
# Combatant fields holding containers of plain values, changed in place: a checkpoint
# copies them one level deep, as `_enter` itself copies a sheet (the rest are plain
# values, or actions, which are kept by identity: see `_snapshot`).
_FLAT = frozenset({"stats", "resources", "maxima", "conditions", "upkeep", "initiated_now", "in_progress"})
_FLAT_AT = tuple(i for i, name in enumerate(_COMBATANT_FIELDS) if name in _FLAT)
# Lists are kept as tuples in a row (a tuple of plain values is not tracked by gc).
_LIST_AT = tuple(i for i, name in enumerate(_COMBATANT_FIELDS) if name in ("initiated_now", "in_progress"))
_DICT_AT = tuple(i for i in _FLAT_AT if i not in _LIST_AT)


def _combatant_row(c: Combatant) -> tuple[Any, ...]:
    """A combatant's fields in order, its containers copied (a checkpoint's copy)."""
    row = list(_combatant_values(c))
    for i in _DICT_AT:
        row[i] = row[i].copy()
    for i in _LIST_AT:
        row[i] = tuple(row[i])
    return tuple(row)


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


# Never changed in place once made (actions are put back by `_restore` itself): shared.
_KEPT = (str, int, float, bool, tuple, type(None), Action, Resolution, LogEntry, *fx.EFFECT_TYPES.values())


def _copy_value(value: Any, owner: Any) -> Any:
    """Any other state attribute: dicts and lists copied all the way down (their
    elements may be changed in place), proposals copied (approving one changes its
    status), immutable values kept, anything else copied deep."""
    if isinstance(value, dict):
        return {k: _copy_value(v, owner) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy_value(v, owner) for v in value]
    if isinstance(value, _KEPT):
        return value
    if isinstance(value, Proposal):
        return copy.copy(value)
    return copy.deepcopy(value, {id(owner): owner})


def _changes(proposed: dict[str, Any], applied: dict[str, Any]) -> str:
    """What an edited approval changed of a proposal, in words: "targets Sphinx -> Nyx;
    pt 15 -> 10; dice 5 4 -> 9 9" ("" when nothing the player chose differs)."""

    def words(value: Any) -> str:
        if isinstance(value, (list, tuple)):
            return ", ".join(map(str, value)) or "none"
        if isinstance(value, dict):
            return ", ".join(f"{k}={v}" for k, v in value.items()) or "none"
        return "none" if value is None or value == "" else str(value)

    said = []
    for key in ("template", "mode", "targets", "pt", "params"):
        if key in applied and (proposed.get(key) or None) != (applied.get(key) or None):
            said.append(f"{key} {words(proposed.get(key))} -> {words(applied.get(key))}")
    before, after = proposed.get("resolution"), applied.get("resolution")
    dice = [tuple(getattr(r, "dice", None) or (r.get("dice", ()) if isinstance(r, dict) else ())) for r in (before, after)]
    if dice[0] != dice[1]:
        said.append(f"dice {' '.join(map(str, dice[0])) or 'none'} -> {' '.join(map(str, dice[1])) or 'none'}")
    return "; ".join(said)


def _first_crossing(value: int | float, per: int | float) -> int:
    """The first payment count j >= 1 after which `value - j * per` is on the other side of 0
    (positive -> at most 0, or at most 0 -> positive); a large number if never."""
    positive = value > 0
    if (positive and per <= 0) or (not positive and per >= 0):
        return bounds.MAX_SEGMENT + 1
    j = max(1, math.ceil(value / per) if positive else math.floor(-value / -per) + 1)
    # Guard against float rounding: step to the exact first crossing.
    while j > 1 and ((value - (j - 1) * per > 0) != positive):
        j -= 1
    while (value - j * per > 0) == positive:
        j += 1
    return j


def _resolution(value: Resolution | dict[str, Any]) -> Resolution:
    return value if isinstance(value, Resolution) else Resolution.from_dict(value)
