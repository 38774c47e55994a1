"""Changes to a combatant's sheet: damage and healing through the game's damage rule,
and `set NAME KEY VALUE` checked against the sheet. Each returns the builder the
session runs under the file's lock (`Session.submit`); `chosen` (tracker.play.policy)
says which combatants a name, a list or a glob means to this seat.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rulesets.base import Ruleset
from tracker.play import verbs
from tracker.engine import Combatant, CommandError, Encounter, Event, TrackerError, bounds
from tracker.engine.text import refuse_controls

Build = Callable[[Encounter], Event]
Chosen = Callable[[str, Encounter], list[Combatant]]


def default_resource(ruleset: Ruleset, c: Combatant) -> str:
    """What a blow takes from `c` when no resource is named: the first the game counts
    towards going down, else the sheet's first resource."""
    for key in ruleset.down_when:
        if key in c.resources:
            return key
    if c.resources:
        return next(iter(c.resources))
    raise CommandError(f"{c.name} has no resources to damage")


def _amount(value: int | float) -> str:
    return f"{value:g}"


def damaging(ruleset: Ruleset, chosen: Chosen, name: str, amount: int | float, resource: str | None = None) -> Build:
    """Damage (or, negative, heal) through the ruleset's damage rule, as a blow lands:
    Brand X VP overflows to DP. Healing past the sheet's value is refused unless
    the ruleset allows it.

    `name` may be several (`chosen`): each combatant goes through the damage rule
    with its own sheet, all in one event that one undo takes back; if any one is
    refused, none is hurt and the refusal names which."""

    def one(c: Combatant) -> dict[str, Any]:
        rule = ruleset.damage_rule(c, amount, resource)
        if amount < 0 and not rule.over_maximum:
            top = c.maxima.get(rule.resource)
            now = c.resources.get(rule.resource, 0)
            if top is not None and now - amount > top:
                room = max(0, top - now)
                raise CommandError(
                    f"heal {c.name} {_amount(-amount)}: {rule.resource} is {_amount(now)} of "
                    f"{_amount(top)}; healing more than {_amount(room)} would pass the maximum"
                )
        if rule.resource not in c.resources:
            raise CommandError(f"{c.name} has no resource {rule.resource!r} (has: {', '.join(c.resources) or 'none'})")
        args: dict[str, Any] = {"target": c.name, "resource": rule.resource}
        if rule.overflow and amount > 0:
            args["overflow"] = rule.overflow
        return args

    def build(enc: Encounter) -> Event:
        each = [one(c) for c in chosen(name, enc)]
        first = each[0]
        args: dict[str, Any] = {"target": first.pop("target"), "amount": amount, **first}
        if len(each) > 1:
            args["also"] = each[1:]
        return Event("damage", args)

    return build


def setting(ruleset: Ruleset, name: str, key: str, raw: str) -> Build:
    """`set NAME KEY VALUE`: `raw` as typed, checked against the sheet when it is made."""
    refuse_controls(key, "set: key")
    return lambda enc: set_event(ruleset, enc, name, key, raw)


def set_event(ruleset: Ruleset, enc: Encounter, name: str, key: str, raw: str) -> Event:
    """A `set`, its value checked against the sheet: a resource takes a number, a
    stat its field's type and bounds (the adapter's `check_sheet`)."""
    c = enc.combatant(name)
    where = f"set {c.name} {key}"
    stat_fields = {f.name: f for f in ruleset.stat_fields()}
    is_resource = key not in stat_fields and (
        key in c.resources or (key not in c.stats and key in {f.name for f in ruleset.resource_fields()}))
    value: Any
    if key in stat_fields:
        # The sheet's field checks it as the add did (a D6 die code, a bounded number),
        # whether or not the combatant had it at creation.
        value = stat_fields[key].coerce(raw, where)
        checked, _ = ruleset.check_sheet({key: value}, {}, where)
        value = checked[key]
    elif is_resource:
        value = verbs.number(raw, where)
        _, checked = ruleset.check_sheet({}, {key: value}, where)
        value = checked[key]
    else:
        try:
            value = verbs.number(raw, where)
        except TrackerError:
            value = raw
        if key not in c.stats:
            # Not on the sheet: adapters with a fixed sheet refuse it, freeform takes it.
            stats, resources = ruleset.check_sheet({key: value} if isinstance(value, str) else {}, {} if isinstance(value, str) else {key: value}, where)
            is_resource = key in resources
            value = {**stats, **resources}[key]
        elif isinstance(c.stats[key], (int, float)) and not isinstance(c.stats[key], bool) and isinstance(value, str):
            raise CommandError(f"{where}: expected a number, got {raw!r}")
    if isinstance(value, str):
        refuse_controls(value, where)
    bounds.value(value, where)
    args: dict[str, Any] = {"target": c.name, "key": key, "value": value}
    if not is_resource:
        # Said in the event, not left to the engine to guess from what the sheet holds
        # now: a stat left blank at creation is not yet among the combatant's stats.
        args["stat"] = True
    return Event("set", args)
