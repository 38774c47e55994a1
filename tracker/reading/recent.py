"""A combatant's recent actions, offered first in the declare form ("the same again").

`recent(encounter, ruleset, role, actor)` reads the encounter's declarations (its
effective events, newest first: an undone declaration is not offered) and gives at
most `MAX_RECENT` of `actor`'s, one per distinct choice (action, targets and options:
PT, modifiers, secret roll). The form shows each one key away and fills itself with
it; this module decides which, without the screen (no Textual). A maintained link
starts from its action's modifiers kept in the same way (`link_params`).

Decisions: docs/decisions/0024-recent-actions.md, docs/decisions/0053-maintained-links.md
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from rulesets.base import ActionTemplate, Ruleset
from rulesets.fields import AFTER_ROLL
from tracker.engine import Encounter, TrackerError
from tracker.engine.model import Action, Event
from tracker.reading.roles import Role
from tracker.reading.viewing import sight

MAX_RECENT = 3  # one key each (1-3), and three lines of the form at 80x24


@dataclass(frozen=True, slots=True)
class Asked:
    """The PT and modifiers a declaration asked for (`None`: the action's own PT)."""

    pt: int | None = None
    params: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class Recent:
    """One recent choice of an actor's, with names as they are now."""

    actor: str
    template: str
    targets: tuple[str, ...] = ()
    pt: int | None = None
    params: tuple[tuple[str, str], ...] = ()  # (field, value as typed), sorted by field
    secret: bool = False

    @property
    def key(self) -> tuple[Any, ...]:
        """What makes two choices the same: action, targets and options (not the actor)."""
        return (self.template.casefold(), self.targets, self.pt, self.params, self.secret)

    def label(self) -> str:
        """'again: punch -> Goblin (PT 3, pool=2)'; plain text (names are data)."""
        aim = f" -> {', '.join(self.targets)}" if self.targets else ""
        options = ([f"PT {self.pt}"] if self.pt is not None else []) + [f"{k}={v}" for k, v in self.params]
        if self.secret:
            options.append("secret")
        return f"again: {self.template}{aim}" + (f" ({', '.join(options)})" if options else "")


def asked(pt: int | None, params: Mapping[str, Any], template: ActionTemplate | None = None) -> Asked:
    """The options worth keeping: PT and the modifiers that differ from their default
    (after-roll choices are the roll's, never kept)."""
    fields = {p.name: p for p in template.params} if template is not None else {}
    kept: list[tuple[str, str]] = []
    for name, value in params.items():
        text = str(value).strip()
        field = fields.get(name)
        if not text or (field is not None and field.stage == AFTER_ROLL):
            continue
        if field is not None and field.default is not None and text.casefold() == _text(field.default).casefold():
            continue
        kept.append((name, text))
    return Asked(pt, tuple(sorted(kept)))


def _text(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def link_params(action: Action, template: ActionTemplate) -> dict[str, str]:
    """The modifiers a maintained link of `action` starts from: those it was asked with
    (`Action.asked`), kept as "again" keeps a declaration's (after-roll choices were that
    roll's, values at their default say nothing), as typed text. The maintain form opens
    with them and `maintain ACTOR` uses them unless told otherwise."""
    given = {str(k): _text(v) for k, v in (action.asked or {}).items()}
    return dict(asked(None, given, template).params)


def _template(ruleset: Ruleset, name: str) -> ActionTemplate | None:
    try:
        return ruleset.template(name)
    except TrackerError:
        return None


class _Names:
    """Combatants' identities through renames, adds and removals, event by event."""

    def __init__(self) -> None:
        self._ids: dict[str, int] = {}
        self.current: dict[int, str] = {}
        self._made = 0

    def of(self, name: str) -> int:
        found = self._ids.get(name)
        if found is None:
            found = self._new(name)
        return found

    def _new(self, name: str) -> int:
        self._made += 1
        ident = self._made  # never reused: a newcomer under an old name is someone else
        self._ids[name] = ident
        self.current[ident] = name
        return ident

    def follow(self, event: Event) -> None:
        args = event.args
        if event.kind == "rename":
            old, new = str(args.get("target", "")), str(args.get("name", ""))
            ident = self.of(old)
            del self._ids[old]
            self._ids[new] = ident
            self.current[ident] = new
        elif event.kind == "add":
            for name in args.get("names") or [args.get("name", "")]:
                gone = self._ids.pop(str(name), None)
                if gone is not None:
                    self.current.pop(gone, None)
                self._new(str(name))
        elif event.kind == "remove":
            gone = self._ids.pop(str(args.get("name", "")), None)
            if gone is not None:
                self.current.pop(gone, None)


@dataclass(frozen=True, slots=True)
class _Said:
    actor: int
    template: str
    targets: tuple[int, ...]
    asked: Asked
    secret: bool


def _declared(event: Event, events: list[Event]) -> tuple[dict[str, Any], Asked] | None:
    """A declaration put in force by `event` (its arguments and what it asked), or None."""
    if event.kind == "declare":
        args = event.args
    elif event.kind == "approve":
        target = event.args.get("target")
        if not isinstance(target, int) or not 0 < target <= len(events):
            return None
        proposal = events[target - 1]
        if proposal.kind != "propose" or proposal.args.get("action") != "declare":
            return None
        args = event.args if "actor" in event.args else proposal.args
    else:
        return None
    pt = args.get("pt")
    params = args.get("params") or {}
    return args, Asked(pt if isinstance(pt, int) and not isinstance(pt, bool) else None, tuple(sorted((str(k), _text(v)) for k, v in params.items())))


# The last reading of each encounter's declarations: the form asks on every opening and
# every change of actor, and a long fight's log takes milliseconds to read. The log only
# grows (an undo is an event too), so its length says whether the reading still holds.
_READ: weakref.WeakKeyDictionary[Encounter, tuple[int, list[_Said], _Names]] = weakref.WeakKeyDictionary()


def _history(encounter: Encounter) -> tuple[list[_Said], _Names]:
    key = len(encounter.events)
    found = _READ.get(encounter)
    if found is not None and found[0] == key:
        return found[1], found[2]
    said, names = _read(encounter)
    _READ[encounter] = (key, said, names)
    return said, names


def _read(encounter: Encounter) -> tuple[list[_Said], _Names]:
    names = _Names()
    said: list[_Said] = []
    events = encounter.events
    for event in encounter.effective_events():
        found = _declared(event, events)
        if found is None:
            names.follow(event)
            continue
        args, what = found
        actor = args.get("actor")
        template = args.get("template")
        if not isinstance(actor, str) or not isinstance(template, str):
            continue
        targets = tuple(names.of(str(t)) for t in args.get("targets") or ())
        said.append(_Said(names.of(actor), template, targets, what, bool(args.get("secret"))))
    return said, names


def recent(encounter: Encounter, ruleset: Ruleset, role: Role, actor: str, limit: int = MAX_RECENT) -> list[Recent]:
    """`actor`'s recent choices, newest first, at most `limit`, each offered once (see
    docs/decisions/0024-recent-actions.md for which are left out)."""
    seen = sight(encounter, role)
    if actor not in encounter.combatants or not seen.knows_name(actor):
        return []
    said, names = _history(encounter)
    out: list[Recent] = []
    keys: set[tuple[Any, ...]] = set()
    for item in reversed(said):
        if names.current.get(item.actor) != actor:
            continue
        targets = tuple(names.current.get(t, "") for t in item.targets)
        if not all(t in encounter.combatants and seen.knows_name(t) for t in targets):
            continue  # gone, or hidden from this reader: never named to them
        template = _template(ruleset, item.template)
        if template is None:
            continue
        kept = asked(item.asked.pt, dict(item.asked.params), template)
        choice = Recent(actor, template.name, targets, kept.pt, kept.params, item.secret and role.is_gm)
        if choice.key in keys:
            continue
        keys.add(choice.key)
        out.append(choice)
        if len(out) >= limit:
            break
    return out


def labels(choices: Iterable[Recent]) -> list[str]:
    """'1 again: punch -> Sphinx (PT 3)': the keys the form answers, with each choice."""
    return [f"{i} {choice.label()}" for i, choice in enumerate(choices, 1)]
