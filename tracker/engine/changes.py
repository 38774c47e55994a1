"""The GM's changes by hand: damage, set, conditions, scheduled events, surprise,
hiding, notes, table rolls and table settings. Each is checked in full before it
changes anything (numbers through `tracker.engine.bounds`).
"""

from __future__ import annotations

from typing import Any

from tracker.engine import bounds
from tracker.engine import effects as fx
from tracker.engine import table
from tracker.engine.resolving import Resolving
from tracker.engine.timeline import ALERT, SCHEDULED
from tracker.engine.kinds import fmt
from tracker.engine.errors import TrackerError


class Changes(Resolving):
    """The `damage`, `set`, `condition`, `schedule`, `surprise`, `hide`, `note`, `roll`
    and `setting` events."""

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

    def _close(self, args: dict[str, Any]) -> None:
        """A campaign ends this fight: its characters' state has gone back to the
        campaign, and the fight is closed (tracker.play.fights)."""
        campaign = args["campaign"]
        if not isinstance(campaign, str) or not campaign.strip():
            raise TrackerError("end: campaign: expected the campaign's name")
        outcome = str(args.get("outcome") or "").strip()
        self.ended = campaign
        self._say("end", f"the fight ends{': ' + outcome if outcome else ''}; the party's state goes back to the campaign {campaign}")

    def _set(self, args: dict[str, Any]) -> None:
        """A value set by hand. `stat` says it is a stat (a sheet's stat left blank when the
        combatant was made, or text on a freeform sheet); without it, as in saves written
        before it was said, a key the combatant holds as a stat is one, any other a resource."""
        c = self.combatant(args["target"])
        key, value = args["key"], bounds.value(args["value"], f"set {args['key']}")
        if args.get("stat"):
            table = c.stats
            if key in c.resources:  # an earlier save's set took this stat for a resource
                del c.resources[key]
                c.maxima.pop(key, None)
        else:
            table = c.stats if key in c.stats and key not in c.resources else c.resources
        if table is c.resources and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise TrackerError(f"set {c.name} {key}: {key} is a resource and takes a number, got {value!r}")
        table[key] = value
        self._say("set", f"{c.name}: {key} set to {fmt(value)}", c.name)
        self._check_down(c, self.now + 1)

    def _condition(self, args: dict[str, Any]) -> None:
        """A condition on one combatant, or (`also`: more names) on several as one change."""
        found = [self.combatant(name) for name in [args["target"], *(args.get("also") or ())]]
        duration = bounds.segment(args["duration"], "condition: segments", 1)
        if self.now + duration > bounds.MAX_SEGMENT:
            raise TrackerError(f"condition: it would end after segment {bounds.MAX_SEGMENT:,}")
        for c in found:
            self._add_condition(c, args["name"], duration)

    def _schedule(self, args: dict[str, Any]) -> None:
        at, text = bounds.segment(args["at"], "schedule: segment"), args["text"]
        if at <= self.now:
            raise TrackerError(f"a scheduled event must be after the current segment {self.now}, not {at}")
        self.scheduled.setdefault(at, []).append(text)
        self.timeline.push(at, SCHEDULED, text)
        self._say("schedule", f"scheduled for segment {at}: {text}")

    def _surprise(self, args: dict[str, Any]) -> None:
        c = self.combatant(args["target"])
        until = bounds.segment(args["until"], "surprise: segment")
        c.surprised_until = until
        if until > self.now:
            self.timeline.push(until, ALERT, c.name)
            self._say("surprise", f"{c.name} is surprised: no initiation before segment {until}", c.name)
        else:
            self._say("surprise", f"{c.name} is no longer surprised", c.name)

    def _hide(self, args: dict[str, Any]) -> None:
        c = self.combatant(args["target"])
        c.hidden = bool(args.get("hidden", True))
        self._say("hide", f"{c.name} is {'hidden from' if c.hidden else 'shown to'} viewers", c.name)

    def _note(self, args: dict[str, Any]) -> None:
        self._say("note", str(args["text"]), *args.get("about", ()))

    def _roll(self, args: dict[str, Any]) -> None:
        """A table roll (Session.roll): a line in the log, nothing else changes. A secret
        one (the GM's) is kept from viewers and players, as a secret declaration's dice."""
        secret = bool(args.get("secret"))
        self._say("roll", f"roll {args['text']}" + (" (secret)" if secret else ""), secret=secret)

    def _setting(self, args: dict[str, Any]) -> None:
        key = args["key"]
        value = table.check(key, args["value"], "setting")
        self.table[key] = value
        self._say("setting", f"setting: {key} is now {value}")
