"""Resolution and judging: what a completing action and its effects do to the fight.

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
- A combatant that goes down, or is thrown back, loses its in-progress active action
  (interrupted); `keep` (tracker.engine.actions) lets the GM overrule a throwback.
"""

from __future__ import annotations

import itertools
import operator
from typing import Any

from tracker.engine import bounds
from tracker.engine import effects as fx
from tracker.engine.core import Core
from tracker.engine.kinds import fmt
from tracker.engine.timeline import EXPIRY, LANDING
from tracker.engine.model import ACTIVE, COMPLETED, IN_PROGRESS, INTERRUPTED, Action, Combatant

_COMPLETES = "{}'s {} completes{}"  # the line a completion writes
_ORDER = operator.attrgetter("resolution.order")  # the ruleset's key inside a segment


def _tied(action: Action) -> tuple[Any, ...]:
    """Actions of one order key apply their effects by actor, start and template."""
    return (action.actor, action.start, action.template, tuple(action.targets))


class Resolving(Core):
    """Completing actions, judging blows and applying effects (damage, adjustments,
    throwback, conditions, per-round costs)."""

    def _complete_all(self, completing: list[Action]) -> None:
        now = self.now
        if len(completing) > 1:
            completing.sort(key=_ORDER, reverse=True)
        if self.time.simultaneous:
            self._complete_each(completing)
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
                self._complete_each(tied)
                for action in tied:
                    self._apply_effects(action, fx.COMPLETE, now)

    def _complete_each(self, actions: list[Action]) -> None:
        """Complete each of `actions`, in order (one call for a segment's completions:
        this runs for every action)."""
        now, combatants, write, seq = self.now, self.combatants, self.log.write, self._current_seq
        for action in actions:
            # `_end(action, COMPLETED)` inlined, then the chain.
            action.status = COMPLETED
            action.ended = now
            c = combatants.get(action.actor)
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
            targets = action.targets
            unseen = (c is not None and c.hidden) or (self._unseen(targets) if targets else False)
            # "Ann's hit completes: success", worded when read: a stored line of
            # tracker.engine.log, its eight fields then the template's values.
            write((now, "complete", _COMPLETES, (action.actor, *targets) if targets else action.actor, seq, False, unseen, False,
                   action.actor, action.template, outcome))

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
            self._set_upkeep(c, effect)

    def _hurt(self, effect: fx.Damage, interrupt_from: int) -> None:
        c = self.combatants[effect.target]
        before = c.resources.get(effect.resource, 0)
        after = before - effect.amount
        text = f"{c.name} takes {fmt(effect.amount)} {effect.resource}" if effect.amount >= 0 else f"{c.name} heals {fmt(-effect.amount)} {effect.resource}"
        after = bounds.clamp(after)
        if after < 0 and effect.overflow:
            c.resources[effect.resource] = 0
            c.resources[effect.overflow] = bounds.clamp(c.resources.get(effect.overflow, 0) + after)
            text += f"; {fmt(-after)} goes through to {effect.overflow} ({fmt(c.resources[effect.overflow])} left)"
        else:
            c.resources[effect.resource] = after
        self._say("damage", f"{text} ({effect.resource} {fmt(before)} -> {fmt(c.resources[effect.resource])})", c.name)
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
            self.timeline.push(c.airborne_until, LANDING, c.name)
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

    def _add_condition(self, c: Combatant, name: str, duration: int) -> None:
        expires = self.now + duration
        c.conditions[name] = expires
        self.timeline.push(expires, EXPIRY, (c.name, name))
        self._say("condition", f"{c.name} is {name} until segment {expires}", c.name)
