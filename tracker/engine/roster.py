"""The roster part of the engine: combatants join, leave, are renamed, change side and
place. Names are unique ignoring case, so two that differ only by case could never both
be reached; a rename carries the new name into every earlier action, queue entry and log
line about the combatant.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tracker.engine import bounds
from tracker.engine import effects as fx
from tracker.engine.resolving import Resolving
from tracker.engine.timeline import ALERT, EARLY_BLOW, EXPIRY, LANDING, RISE, Entry
from tracker.engine.errors import TrackerError
from tracker.engine.model import ABORTED, Combatant, CombatantSetup


class Roster(Resolving):
    """Joining, leaving and naming: the `add`, `remove`, `rename`, `side` and `reorder` events."""

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
            self.timeline.push(c.surprised_until, ALERT, c.name)
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
        pc, current, conditions = args.get("pc") or "", dict(args.get("current") or {}), dict(args.get("conditions") or {})
        if (pc or current or conditions) and len(entries) != 1:
            raise TrackerError("add: a campaign's character (pc, current, conditions) comes in alone, not as copies")
        for key, value in current.items():  # a campaign's character comes in as it stands
            if key not in entries[0].resources and key not in entries[0].stats:
                raise TrackerError(f"add {entries[0].name}: current: {key} is not one of its resources or stats ({', '.join([*entries[0].resources, *entries[0].stats]) or 'none'})")
            bounds.value(value, f"add {entries[0].name}: current.{key}")
        for name, left in conditions.items():
            bounds.segment(left, f"add {entries[0].name}: conditions.{name}", 1)
        for entry in entries:
            c = self._enter(entry)
            if pc:
                c.pc = pc
            for key, value in current.items():
                (c.resources if key in c.resources else c.stats)[key] = value
            for name, left in conditions.items():
                self._add_condition(c, name, left)
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
        def entry(item: Entry) -> Entry:
            segment, kind, tick, payload = item
            if kind in (LANDING, ALERT):
                payload = swap(payload)
            elif kind == EXPIRY:
                payload = (swap(payload[0]), payload[1])
            elif kind == EARLY_BLOW:
                payload = (payload[0], renamed.get(id(payload[1]), payload[1]))
            elif kind == RISE:
                payload = (swap(payload[0]), *payload[1:])
            return (segment, kind, tick, payload)

        self.timeline.rewritten(entry)
        self.log = self.log.renamed(old, swap)
        self.proposals.renamed(old, new)
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
