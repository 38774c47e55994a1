"""Moving time on: `advance`, what each segment brings, and per-round payments.

- On arriving at a segment: completions first, then conditions expiring, landings,
  surprise ending, scheduled events, a per-round cost changing as time passes (an
  Upkeep's rises, queued one at a time), then per-round costs if it is a payment segment.
  Only after that may combatants initiate on that segment.
- `next` finds the next segment where anything happens through the timeline
  (tracker.engine.timeline), so its cost does not depend on how many empty segments it skips.
- A stretch of time holding nothing but payment segments is charged in one go, with
  one summary line per payer ("payment segments 50-100000000 (2000000 payments): ..."),
  so `step N` and loading its save cost the same whatever N. Payments are made one by
  one only on the segment where a payer's down state changes, so who goes down, when,
  and what that interrupts are exactly as if each segment had been stepped.
"""

from __future__ import annotations

import math
from typing import Any

from tracker.engine import bounds
from tracker.engine.errors import TrackerError
from tracker.engine.kinds import fmt
from tracker.engine.model import IN_PROGRESS, Combatant
from tracker.engine.proposing import Proposing
from tracker.engine.timeline import ALERT, COMPLETION, EARLY_BLOW, EXPIRY, LANDING, RISE, SCHEDULED


class Advancing(Proposing):
    """`advance`, and reading what comes next (moving time lapses pending proposals)."""

    def next_happening(self) -> int | None:
        """The next segment after now on which anything happens, or None."""
        best = self.timeline.first(self.combatants)
        if self.upkeep_count:
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
        if not self.upkeep_count or every <= 0 or first % every:
            return False
        head = self.timeline.head_segment()  # next_happening has dropped the entries no longer due
        end = min(target, head - 1) if head is not None else target
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
                parts.append(f"{fmt(total)} {resource} for {name}")
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
            if c.in_progress and c.down:
                # An action the GM kept for a payer that is down is lost on the first
                # payment (`_check_down`, as on every payment): paid one at a time.
                return 0
            drain: dict[str, int | float] = {}
            for resource, amount in c.upkeep.values():
                drain[resource] = drain.get(resource, 0) + amount
            for key in c.down_keys:
                if key not in drain:
                    continue
                per, now = drain[key], c.resources.get(key)
                if now is None:
                    # Not held, so not down; the first payment counts from 0 (`_pay`) and
                    # may put it down at once: paid one at a time.
                    return 0
                if per != 0:
                    best = min(best, first_crossing(now, per) - 1)
        return best

    def _arrive(self, segment: int) -> None:
        self.now = segment
        due = self.timeline.take(segment, self.combatants)
        completing = list(dict.fromkeys(due[COMPLETION]))  # a kept action may be queued twice
        self._judge_due(completing, due[EARLY_BLOW])
        if completing:
            self._complete_all(completing)
        for action, effect in due[EARLY_BLOW]:
            # A blow of a sweep that lands before the action completes. It was due at the
            # start of the segment, so with simultaneous resolution it lands even if its
            # actor fell to a completion on this same segment.
            if self.time.simultaneous or action.status == IN_PROGRESS:
                self._apply_one(action, effect, segment + 1 if self.time.simultaneous else segment)
        for name, condition in due[EXPIRY]:
            c = self.combatants[name]
            if c.conditions.get(condition) == segment:
                del c.conditions[condition]
                self._say("expire", f"{name} is no longer {condition}", name)
        for name in dict.fromkeys(due[LANDING]):
            self._say("land", f"{name} lands", name)
        for name in dict.fromkeys(due[ALERT]):
            self._say("surprise", f"{name} may act now", name)
        for text in due[SCHEDULED]:
            self._say("scheduled", text)
        for name, upkeep, amount in due[RISE]:
            # A cost that changes as time passes, before the payment that charges it.
            c = self.combatants[name]
            self._per_round(c, upkeep, amount, changed=True)
            self._queue_rise(c, upkeep)
        self._verdicts = {}
        if self.upkeep_count and self.time.payment_every and segment % self.time.payment_every == 0:
            self._pay(segment)

    def _pay(self, segment: int) -> None:
        for c in self.combatants.values():
            before = dict(c.resources) if c.upkeep else {}
            for name, (resource, amount) in c.upkeep.items():
                c.resources[resource] = bounds.clamp(c.resources.get(resource, 0) - amount)
                self._say("upkeep", f"payment segment {segment}: {c.name} pays {fmt(amount)} {resource} for {name}", c.name)
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

    def upcoming(self, limit: int = 20) -> list[tuple[int, str]]:
        """The next things due, soonest first, as (segment, description)."""
        return [(s, t) for s, t, _ in self.upcoming_about(limit)]

    def upcoming_about(self, limit: int | None = 20) -> list[tuple[int, str, tuple[str, ...]]]:
        """`upcoming` with the combatants each item is about (so a reader that may not see
        one of them is not told of it: tracker.reading.viewing.Sight)."""
        found: list[tuple[int, int, str, tuple[str, ...]]] = []
        seen: set[tuple[int, int, int]] = set()
        for segment, kind, tick, payload in self.timeline.due(self.combatants):
            # An action kept after throwback is queued again; it completes once.
            key = (segment, kind, id(payload))
            if key in seen:
                continue
            seen.add(key)
            about: tuple[str, ...] = ()
            if kind == COMPLETION:
                text = f"{payload.actor}'s {payload.template} completes"
                about = (payload.actor, *payload.targets)
            elif kind == EARLY_BLOW:
                text = f"{payload[0].actor}'s {payload[0].template}: {payload[1].kind} on {payload[1].target}"
                about = (payload[0].actor, *payload[0].targets, payload[1].target)
            elif kind == EXPIRY:
                text = f"{payload[0]} stops being {payload[1]}"
                about = (payload[0],)
            elif kind == LANDING:
                text = f"{payload} lands"
                about = (payload,)
            elif kind == ALERT:
                text = f"{payload} may act"
                about = (payload,)
            elif kind == RISE:
                # No figure here: what a viewer may see of a cost is the log's to decide.
                c = self.combatants[payload[0]]
                now = c.upkeep.get(payload[1].name, ("", 0))[1]
                text = f"{payload[0]}'s {payload[1].name} costs {'more' if payload[2] > now else 'less'} a {self.time.round_name}"
                about = (payload[0],)
            else:
                text = str(payload)
            found.append((segment, tick, text, about))
        found.sort()
        if self.upkeep_count:
            payment = self.time.next_payment(self.now)
            if payment is not None:
                found.append((payment, -1, "payment segment: per-round costs are charged", ()))
                found.sort()
        return [(s, t, a) for s, _, t, a in found[:limit]]


def first_crossing(value: int | float, per: int | float) -> int:
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


__all__ = ["Advancing", "first_crossing"]
