"""Every kind of event, defined once (docs/contributing/design.md#one-definition): one row per kind that the engine, the
codec, the descriptions, the roles and the role guard all read.

A row says:
- `args`: each argument's shape and whether it is required (tracker.engine.shapes); the
  codec checks a saved event against it (`tracker.persistence.event_tables.EVENT_ARGS` is this column);
- `describe`: the event in words, as undo, redo and the history say it (tracker.reading.wording);
- `apply`: the `Encounter` method that applies it ("" for undo and redo, which walk the
  history instead of changing the fight);
- `player`: a player's own change (`PLAYER_KINDS`): what a player's undo
  may take back;
- `guard`: what the role guard (`Policy.guard`, tracker.play.policy) checks before a player's event of this
  kind applies: the actor is the player's own (`OWN_ACTOR`), the proposal is theirs
  (`OWN_PROPOSAL`), the change taken back or brought back is their own latest
  (`OWN_LAST`), the roll is not secret (`NOT_SECRET`), or the GM alone makes it
  (`GM_ONLY`); a viewer makes none;
- `rewrites_history`: folding it rewrites earlier actions and log lines (a rename), so
  the checkpoints taken before it are dropped (tracker.engine.checkpoints);
- `proposable`: a player's proposal may stand for it (`propose`'s `action`);
- `refused_as`: how a refusal to a player or viewer names it, where the kind's own name
  would not say it ("moving time (next, step)" for `advance`; `tracker.reading.roles.Role.refuse`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from tracker.engine.shapes import (
    ANY,
    BOOL,
    CHANCE,
    DAMAGE_ALSO,
    DICE_MARK,
    INT,
    MODE,
    NUM,
    PROPOSED,
    STR,
    STRS,
    TABLE,
    Arg,
    is_ints,
)

# What the role guard checks before a player's event applies (see the module docstring).
GM_ONLY = "GM only"
OWN_ACTOR = "own combatant"
OWN_PROPOSAL = "own proposal"
OWN_LAST = "own latest change"
NOT_SECRET = "not secret"
GUARDS = (GM_ONLY, OWN_ACTOR, OWN_PROPOSAL, OWN_LAST, NOT_SECRET)

UNDO = "undo"
REDO = "redo"


@dataclass(frozen=True, slots=True)
class Kind:
    """One kind of event (see the module docstring for each column)."""

    name: str
    args: dict[str, Arg]
    describe: Callable[[dict[str, Any]], str]
    apply: str = ""
    player: bool = False
    guard: str = GM_ONLY
    rewrites_history: bool = False
    proposable: bool = False
    refused_as: str = ""


def counted(n: int | float, noun: str) -> str:
    """'1 fight', '2 fights', '0.5 hours': a number with its noun, as a person writes it."""
    return f"{fmt(n)} {noun if n == 1 else noun + 's'}"


def fmt(value: Any) -> str:
    """A value as a description, a log line or a sheet's field says it: 2.5, 3, "x"
    (floats without a trailing .0), yes or no (a yes/no stat, as the app says elsewhere)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return f"{value:g}" if isinstance(value, float) else str(value)


def _and_others(a: dict[str, Any]) -> str:
    """The target of a damage or condition event and those it also reaches."""
    also = [x.get("target", "?") if isinstance(x, dict) else x for x in a.get("also") or ()]
    return ", ".join([str(a.get("target"))] + [str(x) for x in also])


def describe_args(kind: Any, a: dict[str, Any]) -> str:
    """An event of `kind` with arguments `a` in words (the kind itself if unknown)."""
    row = KINDS.get(kind) if isinstance(kind, str) else None
    return kind if row is None else row.describe(a)


def _add(a: dict[str, Any]) -> str:
    names = a.get("names") or [a.get("name", "?")]
    return f"{', '.join(names)} {'joins' if len(names) == 1 else 'join'} the fight"


def _declare(a: dict[str, Any]) -> str:
    aim = f" against {', '.join(a['targets'])}" if a.get("targets") else ""
    return f"{a.get('actor')} declares {a.get('template')}{aim}"


def _damage(a: dict[str, Any]) -> str:
    amount = a.get("amount", 0)
    verb = "takes" if not isinstance(amount, (int, float)) or amount >= 0 else "heals"
    shown = amount if verb == "takes" else -amount
    return f"{_and_others(a)} {verb} {fmt(shown)} {a.get('resource')}"


def _propose(a: dict[str, Any]) -> str:
    proposed = describe_args(a.get("action", "declare"), a)
    return f"proposal: {proposed}"


def _refuse(a: dict[str, Any]) -> str:
    why = f": {a.get('reason')}" if a.get("reason") else ""
    return f"the GM refuses proposal {a.get('target')}{why}"


def _rows() -> dict[str, Kind]:
    rows = (
        Kind("add", {"name": (STR, True), "stats": (TABLE, False), "resources": (TABLE, False), "side": (STR, False), "hidden": (BOOL, False), "surprised_until": (INT, False), "names": (STRS, False),
                     "pc": (STR, False), "current": (TABLE, False), "conditions": (TABLE, False)},
             _add, "_add"),
        Kind("remove", {"name": (STR, True)},
             lambda a: f"{a.get('name')} leaves the fight", "_remove"),
        Kind("declare", {
            "actor": (STR, True), "template": (STR, True), "mode": (MODE, True), "targets": (STRS, False), "companions": (STRS, False),
            "maintainable": (BOOL, False), "secret": (BOOL, False), "chance": (CHANCE, False), "resolution": (TABLE, True),
            "dice": (DICE_MARK, False), "params": (TABLE, False), "pt": (INT, False), "draw": (INT, False),
        }, _declare, "_declare", player=True, guard=OWN_ACTOR, proposable=True),
        Kind("maintain", {
            "actor": (STR, True), "targets": (STRS, False), "chance": (CHANCE, False), "resolution": (TABLE, True), "dice": (DICE_MARK, False),
            "params": (TABLE, False), "pt": (INT, False), "draw": (INT, False),
        },
             lambda a: f"{a.get('actor')} maintains the attack", "_maintain", player=True, guard=OWN_ACTOR, proposable=True),
        Kind("abort", {"actor": (STR, True), "template": (STR, False)},
             lambda a: f"{a.get('actor')} aborts {a.get('template') or 'an action'}", "_abort", player=True, guard=OWN_ACTOR, proposable=True),
        Kind("damage", {"target": (STR, True), "amount": (NUM, True), "resource": (STR, True), "overflow": (STR, False), "also": (DAMAGE_ALSO, False)},
             _damage, "_damage"),
        Kind("set", {"target": (STR, True), "key": (STR, True), "value": (ANY, True), "stat": (BOOL, False)},
             lambda a: f"{a.get('target')}: {a.get('key')} set to {fmt(a.get('value'))}", "_set", refused_as="set (a resource or stat)"),
        Kind("advance", {"to": (INT, True)},
             lambda a: f"time moves on to segment {a.get('to')}", "_advance", refused_as="moving time (next, step)"),
        Kind("condition", {"target": (STR, True), "name": (STR, True), "duration": (INT, True), "also": (STRS, False)},
             lambda a: f"{_and_others(a)} {'is' if not a.get('also') else 'are'} {a.get('name')} for {a.get('duration')} segments", "_condition"),
        Kind("schedule", {"at": (INT, True), "text": (STR, True)},
             lambda a: f"scheduled for segment {a.get('at')}: {a.get('text')}", "_schedule"),
        Kind("surprise", {"target": (STR, True), "until": (INT, True)},
             lambda a: f"{a.get('target')} is surprised until segment {a.get('until')}", "_surprise"),
        Kind("hide", {"target": (STR, True), "hidden": (BOOL, False)},
             lambda a: f"{a.get('target')} is {'hidden from' if a.get('hidden', True) else 'shown to'} viewers", "_hide"),
        Kind("reroll", {"target": (STR, True)},
             lambda a: f"the GM lets {a.get('target')}'s player roll the app's dice again", "_reroll",
             refused_as="a new roll of the app's dice (reroll)"),
        Kind("keep", {"target": (STR, True)},
             lambda a: f"the GM keeps {a.get('target')}'s interrupted action", "_keep"),
        Kind("note", {"text": (STR, True), "about": (STRS, False)},
             lambda a: f"note: {a.get('text')}", "_note"),
        Kind("roll", {"spec": (STR, True), "dice": (("a list of integers", is_ints), True), "text": (STR, True), "secret": (BOOL, False)},
             lambda a: f"roll {a.get('text')}" + (" (secret)" if a.get("secret") else ""), "_roll", guard=NOT_SECRET),
        Kind("rename", {"target": (STR, True), "name": (STR, True)},
             lambda a: f"{a.get('target')} is renamed {a.get('name')}", "_rename", rewrites_history=True),
        Kind("side", {"target": (STR, True), "side": (STR, True)},
             lambda a: f"{a.get('target')} joins side {a.get('side')}" if a.get("side") else f"{a.get('target')} leaves its side", "_side"),
        Kind("reorder", {"target": (STR, True), "position": (INT, True)},
             lambda a: f"{a.get('target')} moves to place {a.get('position')} in the roster", "_reorder"),
        Kind(UNDO, {"target": (INT, True)},
             lambda a: f"undo of change {a.get('target')}", guard=OWN_LAST),
        Kind(REDO, {"target": (INT, True)},
             lambda a: f"redo of change {a.get('target')}", guard=OWN_LAST),
        Kind("propose", {"action": (("declare, maintain or abort", lambda v: v in PROPOSABLE), True), **PROPOSED},
             _propose, "_propose", player=True, guard=OWN_ACTOR),
        Kind("approve", {"target": (INT, True), **PROPOSED},
             lambda a: f"the GM approves proposal {a.get('target')}" + (" (edited)" if a.get("actor") else ""), "_approve",
             refused_as="approving a proposal"),
        Kind("refuse", {"target": (INT, True), "reason": (STR, False)},
             _refuse, "_refuse", refused_as="refusing a proposal"),
        Kind("withdraw", {"target": (INT, True)},
             lambda a: f"proposal {a.get('target')} is taken back", "_withdraw", player=True, guard=OWN_PROPOSAL),
        Kind("end", {"campaign": (STR, True), "outcome": (STR, False)},
             lambda a: f"the fight ends (campaign {a.get('campaign')})", "_close", refused_as="ending a campaign's fight (tracker campaign end)"),
        Kind("setting", {"key": (STR, True), "value": (ANY, True)},
             lambda a: f"setting: {a.get('key')} is now {a.get('value')}", "_setting"),
    )
    return {row.name: row for row in rows}


KINDS: Mapping[str, Kind] = _rows()

# The columns other layers read, by name.
PLAYER_KINDS = tuple(name for name, row in KINDS.items() if row.player)
PROPOSABLE = tuple(name for name, row in KINDS.items() if row.proposable)
REWRITES_HISTORY = frozenset(name for name, row in KINDS.items() if row.rewrites_history)


def refused_as(what: str) -> str:
    """How a refusal names `what`: its row's words, else `what` itself (a kind without
    words of its own, or a change that is not an event, such as the sheet library)."""
    row = KINDS.get(what)
    return what if row is None or not row.refused_as else row.refused_as


def guard_of(kind: str) -> str:
    """What the role guard checks for `kind` (anything not in the table: the GM's alone)."""
    row = KINDS.get(kind)
    return GM_ONLY if row is None else row.guard
