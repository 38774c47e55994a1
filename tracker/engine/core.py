"""The state an encounter folds from its events, and what every part of the engine does
with it: look combatants up, write log lines, queue what falls due, end an action.

`Encounter` (tracker.engine.encounter) holds its state here and three objects: the
timeline of what falls due (tracker.engine.timeline), its proposals
(tracker.engine.proposals) and its checkpoints (tracker.engine.checkpoints). The rules
are parts, each a class over this core that inherits the parts it uses, so every call
is to a method the type checker sees defined: the roster (roster.py, which uses
resolving), resolution and judging (resolving.py), the action queue (actions.py, over
resolving), the GM's changes by hand (changes.py, over resolving), proposals' events
(proposing.py, over actions) and moving time (advancing.py, over proposing).

The state is the set of attributes `fresh_state` gives a new fold; a checkpoint
(tracker.engine.checkpoints.Checkpoint) names each of them, and a test holds the two
lists equal.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tracker.engine import effects as fx
from tracker.engine import table
from tracker.engine.clock import TimeMapping
from tracker.engine.effects import Resolution
from tracker.engine.errors import no_such_combatant
from tracker.engine.kinds import fmt
from tracker.engine.log import Log
from tracker.engine.proposals import Proposals
from tracker.engine.timeline import EARLY_BLOW, RISE, Timeline, early_segment
from tracker.engine.model import (
    Action,
    Combatant,
    Event,
    LogEntry,
    Setup,
)

__all__ = ["Core", "resolution_of"]


class Core:
    """An encounter's folded state and the operations every part shares."""

    setup: Setup
    time: TimeMapping
    events: list[Event]
    _handlers: dict[str, Callable[[Any, dict[str, Any]], None]]  # handler(self, args)
    _applied: list[int]  # indexes into self.events of effective changes

    def fresh_state(self) -> None:
        """The state of a fold before any event, the opening roster not yet entered."""
        self.now = 0
        self.combatants: dict[str, Combatant] = {}
        self._folded: dict[str, str] = {}  # casefolded name -> name, for lookups ignoring case
        # casefolded name -> the identity of the first combatant to carry it (`bearer`);
        # kept when that combatant is renamed or leaves, so the name stays theirs.
        self._first: dict[str, tuple[str, int]] = {}
        self.actions: list[Action] = []
        self.log = Log()
        self.scheduled: dict[int, list[str]] = {}
        self.timeline = Timeline()
        self._current_seq = 0
        self.upkeep_count = 0  # per-round costs being paid, over all combatants
        self._verdicts: dict[tuple[int, str, int], list[fx.Effect]] = {}
        self.proposals = Proposals()
        # Set by a campaign's `end` of this fight (its campaign's name): closed, nothing
        # applies but the campaign's undo of the end (tracker.play.fights).
        self.ended = ""
        # Table settings (tracker.engine.table) the GM chose: the setup's, then `setting`
        # events. A key left unchosen is absent, so a reader can fall back on its own
        # default (the user's config for `viewer_resources`) before the built-in one.
        self.table = {k: self.setup.settings[k] for k in table.TABLE_SETTINGS if k in self.setup.settings}

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

    def _say(self, kind: str, text: str, *about: str, secret: bool = False, private: bool = False) -> None:
        # Called for every log line of a replayed fight: positional fields.
        self.log.write((self.now, kind, text, about, self._current_seq, secret, self._unseen(about), private))

    def _unseen(self, about: tuple[str, ...]) -> bool:
        """A line written now about these is written while one of them is hidden (a plain
        loop: asked for every log line)."""
        combatants = self.combatants
        for name in about:
            c = combatants.get(name)
            if c is not None and c.hidden:
                return True
        return False

    def author(self, entry: LogEntry) -> str:
        """The `by` of the change that wrote a log line ("" for the opening roster)."""
        return self.events[entry.seq - 1].by if 0 < entry.seq <= len(self.events) else ""

    def _per_round(self, c: Combatant, upkeep: fx.Upkeep, amount: int | float, changed: bool = False, ended: bool = False) -> None:
        """What `c` pays a round for `upkeep.name` is now `amount` (0: nothing), said in the
        log with the change to come, if any (`changed`: a rise, not a new cost; `ended`: a
        cost still to rise was running, and ends here)."""
        name, resource, a_round = upkeep.name, upkeep.resource, f"a {self.time.round_name}"
        rising = c.rising.get(name) is upkeep
        later = self._next_rise(upkeep) if rising else None
        then = f"{fmt(later[1])} {resource} {a_round} from segment {later[0]}" if later is not None else ""
        if amount:
            self.upkeep_count += name not in c.upkeep
            c.upkeep[name] = (resource, amount)
            if changed:
                text = f"{c.name}'s {name} now costs {fmt(amount)} {resource} {a_round}"
            else:
                text = f"{c.name} pays {fmt(amount)} {resource} {a_round} for {name}"
            self._say("upkeep", text + (f" ({then})" if then else ""), c.name)
            return
        if c.upkeep.pop(name, None) is not None:
            self.upkeep_count -= 1
            ended = True
        if ended and not then:
            self._say("upkeep", f"{c.name} no longer pays for {name}", c.name)
        if then:
            self._say("upkeep", f"{c.name} pays nothing for {name} yet ({then})", c.name)

    def _next_rise(self, upkeep: fx.Upkeep) -> tuple[int, int | float] | None:
        """The first of `upkeep.rises` after now, if any."""
        return next((pair for pair in upkeep.rises if pair[0] > self.now), None)

    def _set_upkeep(self, c: Combatant, upkeep: fx.Upkeep) -> None:
        """A per-round cost applied: its amount now (any rise already due included), and
        the next rise queued; a cost without rises ends the rises of the one it replaces."""
        amount = upkeep.amount
        ended = c.rising.pop(upkeep.name, None) is not None
        if upkeep.rises:
            for segment, value in upkeep.rises:
                if segment <= self.now:
                    amount = value
            c.rising[upkeep.name] = upkeep
            self._queue_rise(c, upkeep)
        self._per_round(c, upkeep, amount, ended=ended)

    def _queue_rise(self, c: Combatant, upkeep: fx.Upkeep) -> None:
        later = self._next_rise(upkeep)
        if later is not None:
            self.timeline.push(later[0], RISE, (c.name, upkeep, later[1]))

    def _push_early(self, action: Action, again: bool = False) -> None:
        """Queue the effects that land `lead` segments before the action completes.

        `again`: the action was queued before (pushed back by a passive initiation, or
        kept after throwback). An effect whose entry is still queued on the segment it
        now lands on is not queued twice, or it would land twice: a keep made before its
        segment came up finds the old entry due again, and a push back leaves an effect
        in place where the lead reaches back to one segment after the start."""
        queued: list[Any] = []  # the entries of this action found still queued, each used once
        for effect in action.resolution.effects:
            if getattr(effect, "lead", 0) > 0 and effect.timing == fx.COMPLETE:
                segment = early_segment(action, effect)
                if segment > self.now:
                    if again:
                        old = next((p for _, kind, _, p in self.timeline.buckets.get(segment, ())
                                    if kind == EARLY_BLOW and p[0] is action and p[1] is effect
                                    and not any(p is q for q in queued)), None)
                        if old is not None:
                            queued.append(old)
                            continue
                    self.timeline.push(segment, EARLY_BLOW, (action, effect))

    def _end(self, action: Action, status: str) -> None:
        action.status = status
        action.ended = self.now
        c = self.combatants.get(action.actor)
        if c is not None:
            if action in c.in_progress:
                c.in_progress.remove(action)
            if c.active is action:
                c.active = None


def resolution_of(value: Resolution | dict[str, Any]) -> Resolution:
    """A declaration's resolution, as given or read from a saved table."""
    return value if isinstance(value, Resolution) else Resolution.from_dict(value)
