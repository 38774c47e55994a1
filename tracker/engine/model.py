"""The things on the timeline: combatants, actions, events, log entries."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, make_dataclass
from typing import Any

from tracker.engine.clock import TimeMapping
from tracker.engine.effects import Resolution, Upkeep

ACTIVE = "active"
PASSIVE = "passive"
MODES = (ACTIVE, PASSIVE)

IN_PROGRESS = "in progress"
COMPLETED = "completed"
INTERRUPTED = "interrupted"
ABORTED = "aborted"


@dataclass(slots=True)
class CombatantSetup:
    """A combatant as written in the roster: validated stats and starting resources."""

    name: str
    stats: dict[str, Any] = field(default_factory=dict)
    resources: dict[str, int | float] = field(default_factory=dict)
    side: str = ""
    hidden: bool = False
    surprised_until: int = 0

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name}
        if self.side:
            data["side"] = self.side
        if self.hidden:
            data["hidden"] = True
        if self.surprised_until:
            data["surprised_until"] = self.surprised_until
        data["stats"] = dict(self.stats)
        data["resources"] = dict(self.resources)
        return data


@dataclass(slots=True, eq=False)
class Combatant:
    """A combatant's current state, as folded from the log."""

    name: str
    stats: dict[str, Any]
    resources: dict[str, int | float]
    maxima: dict[str, int | float]
    side: str = ""
    hidden: bool = False
    surprised_until: int = 0
    airborne_until: int = -1
    conditions: dict[str, int] = field(default_factory=dict)
    upkeep: dict[str, tuple[str, int | float]] = field(default_factory=dict)
    # The per-round costs that change as time passes, by name: the Upkeep whose `rises`
    # are still to come (the queue holds the next one).
    rising: dict[str, Upkeep] = field(default_factory=dict)
    # Rule 1 bookkeeping: the segment of the last initiation and what started on it.
    initiated_on: int = -1
    initiated_now: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    active: "Action | None" = None
    in_progress: list["Action"] = field(default_factory=list)
    # Its latest action of each template, by template (the rules ask "its latest Move
    # Roll" on every blow: a look-up, not a scan of the whole fight).
    latest: dict[str, "Action"] = field(default_factory=dict)
    # The completed action a `maintain` would continue, and how long the chain is.
    chain_from: "Action | None" = None
    interrupted: "Action | None" = None
    down_keys: tuple[str, ...] = ()
    # Every name it has carried in this fight with the change that gave it (0: the setup's
    # roster), oldest first. The first pair is who it is, whatever it is called now
    # (`identity`): a player's combatant stays theirs through a rename, and a newcomer
    # that reuses an old name is someone else (tracker.reading.roles).
    called: tuple[tuple[str, int], ...] = ()
    # The draws of its player's app dice in force (tracker.engine.actions, "app dice"):
    # used by a declaration that stands or waits, or set aside by the GM's `reroll`.
    draws: frozenset[int] = frozenset()
    # The campaign's own id of the character it is ("" for anyone else: a foe, or a
    # fight outside a campaign). A rename keeps it; a newcomer never has another's.
    pc: str = ""

    @property
    def identity(self) -> tuple[str, int]:
        return self.called[0] if self.called else (self.name, 0)

    @property
    def down(self) -> bool:
        resources = self.resources
        for key in self.down_keys:  # a loop, not any(): asked on every initiation
            if resources.get(key, 1) <= 0:
                return True
        return False

    def airborne(self, now: int) -> bool:
        return now < self.airborne_until

    def surprised(self, now: int) -> bool:
        return now < self.surprised_until

    def state(self, now: int) -> str:
        """One word for the roster: down, airborne, surprised, acting or idle."""
        if self.down:
            return "down"
        if self.airborne(now):
            return "airborne"
        if self.surprised(now):
            return "surprised"
        if self.in_progress:
            return "acting"
        return "idle"


@dataclass(slots=True, eq=False)
class Action:
    """One action on the timeline: who initiated what, when, how it resolves, and where it stands."""

    id: int
    actor: str
    template: str
    mode: str
    pt: int
    start: int
    completes: int
    targets: tuple[str, ...]
    resolution: Resolution
    maintainable: bool = False
    chain: int = 0  # 0: a fresh action; k: the k-th maintained continuation
    secret: bool = False  # rolled behind the GM's screen: viewers see neither dice nor outcome
    status: str = IN_PROGRESS
    ended: int | None = None
    # The modifiers the action was asked with, as stated (its event's `params`): a
    # maintained link starts from them (tracker.reading.recent.link_params). None: none kept.
    asked: Mapping[str, Any] | None = None

    @property
    def maintained(self) -> bool:
        return self.chain > 0


@dataclass(slots=True)
class Event:
    """One entry of the append-only log. `args` is plain data (TOML-able)."""

    kind: str
    args: dict[str, Any]
    seq: int = 0
    by: str = ""

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"seq": self.seq, "kind": self.kind}
        if self.by:
            data["by"] = self.by
        for key, value in self.args.items():
            if isinstance(value, Resolution):
                data[key] = value.to_dict()
            elif value is not None and value != [] and value != {}:
                data[key] = value
        return data


@dataclass(frozen=True, slots=True)
class LogEntry:
    """A line of the combat log players read; `about` names who it concerns (for hiding)."""

    segment: int
    kind: str
    text: str
    about: tuple[str, ...] = ()
    seq: int = 0
    secret: bool = False  # a GM's hidden roll: never shown to viewers
    # Written while a combatant it is about was hidden: stays hidden from viewers after
    # the combatant is shown (what it did unseen stays unseen).
    while_hidden: bool = False
    # Between the GM and the players of the combatants in `about` (a proposal, a
    # refusal): not shown to viewers or other players (tracker.reading.roles.visible_to).
    private: bool = False


# A frozen dataclass's __init__ sets each field through object.__setattr__, four times
# the cost of a plain one, and the engine writes a log line or two for every change. So
# it fills an unfrozen twin with the same slots, in the same order, and then gives it
# LogEntry's class (allowed: the layouts are the same): the result is an ordinary frozen
# LogEntry (tests/test_engine_speed.py checks that it is equal, hashes alike, refuses
# changes). Made from LogEntry's own fields, so the two cannot drift apart.
_LogEntryDraft = make_dataclass(
    "_LogEntryDraft", [(f.name, f.type, field(default=f.default)) for f in fields(LogEntry)], slots=True, eq=False, repr=False
)


def log_entry(segment: int, kind: str, text: str, about: tuple[str, ...] = (), seq: int = 0,
              secret: bool = False, while_hidden: bool = False, private: bool = False) -> LogEntry:
    """`LogEntry(...)`, built at the cost of an unfrozen dataclass (see above)."""
    entry: Any = _LogEntryDraft(segment, kind, text, about, seq, secret, while_hidden, private)
    entry.__class__ = LogEntry
    return entry


PENDING = "pending"
APPROVED = "approved"
REFUSED = "refused"
WITHDRAWN = "withdrawn"
LAPSED = "lapsed"


@dataclass(slots=True, eq=False)
class Proposal:
    """A player's declaration waiting for the GM (encounter setting
    `player_declarations = "approval"`). It changes nothing in the fight until approved.

    `action` is the kind of change proposed (declare, maintain or abort) and `args` its
    event arguments, resolution included (the player's dice are rolled when proposing)."""

    seq: int
    action: str
    actor: str
    args: dict[str, Any]
    segment: int
    status: str = PENDING
    reason: str = ""
    changes: str = ""  # what the GM changed when approving it edited ("" if as proposed)

    def what(self) -> str:
        """'punch against Sphinx', 'maintains punch', 'aborts punch' (for log lines)."""
        template = self.args.get("template") or ""
        if self.action == "maintain":
            return "a maintained attack"
        if self.action == "abort":
            return f"aborting {template or 'an action'}"
        aim = f" against {', '.join(self.args.get('targets') or ())}" if self.args.get("targets") else ""
        return f"{template}{aim}"


@dataclass(slots=True)
class Setup:
    """What an encounter starts from: the ruleset, its settings and the opening roster."""

    name: str
    ruleset: str
    time: TimeMapping
    down_when: tuple[str, ...] = ()
    settings: dict[str, Any] = field(default_factory=dict)
    roster: list[CombatantSetup] = field(default_factory=list)
    # The key of the players' app dice (hex; `rulesets.dice.KeyedDice`): made with the
    # file, kept in its header, never shown. "" in a file made before it was kept.
    dice_key: str = ""
    # The campaign this fight belongs to: its file's name in the same folder ("" for a
    # fight of its own). Its characters are the campaign's (`Combatant.pc`).
    campaign: str = ""
