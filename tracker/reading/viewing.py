"""What a reader may see of a fight: `sight(encounter, role)` decides it, in one place.

Every output a player or a viewer reads passes through a `Sight`: the app's roster,
log, upcoming list and forms, the `:` line's completion, refusals naming combatants,
`tracker show` / `--json`, `tracker export`, and the web page (which runs the app). A GM
sees everything. A viewer sees no hidden combatant (not its name, its actions, what is
due for it, nor a log line about it), no secret roll's figures and no private line, and
enemies' resources as the table's `viewer_resources` setting says. A player sees what a
viewer sees plus their own combatants in full (hidden or not) and the proposals and
refusals about them.

Decisions: docs/decisions/0017-viewer-resources.md
"""

from __future__ import annotations

import bisect
import operator
from dataclasses import dataclass, field
from typing import Any

from tracker.engine import Combatant, Encounter, Event, LogEntry, Resolution
from tracker.engine.model import Action, Proposal
from tracker.engine.table import TABLE_SETTINGS, VIEWER_RESOURCES
from tracker.reading.roles import Role, visible_to

MODES, DEFAULT, _ = TABLE_SETTINGS[VIEWER_RESOURCES]
BLOODIED_AT = 0.5
PLAYER_SIDES = frozenset({"pc", "pcs", "player", "players", "party", "hero", "heroes", "ally", "allies"})


def is_enemy(c: Combatant) -> bool:
    return c.side.strip().casefold() not in PLAYER_SIDES


def mode_of(encounter: Encounter) -> str:
    """The encounter's own setting, else the user's config default, else exact."""
    chosen = getattr(encounter, "table", {}).get(VIEWER_RESOURCES)
    if chosen:
        return str(chosen)
    from tracker.persistence.config import default_viewer_resources  # reads the config file once

    return default_viewer_resources() or DEFAULT


def health_label(c: Combatant, bloodied_at: float = BLOODIED_AT) -> str:
    if c.down:
        return "Down"
    keys = [k for k in c.down_keys if k in c.resources] or list(c.resources)
    for key in keys:
        value, maximum = c.resources.get(key), c.maxima.get(key)
        if isinstance(value, (int, float)) and isinstance(maximum, (int, float)) and maximum > 0 and value <= maximum * bloodied_at:
            return "Bloodied"
    return "Healthy"


@dataclass(frozen=True, slots=True)
class Shown:
    """A combatant's resources as one reader may see them."""

    resources: dict[str, Any] = field(default_factory=dict)
    maxima: dict[str, Any] = field(default_factory=dict)
    label: str = ""  # set in label mode: Healthy / Bloodied / Down
    withheld: bool = False  # label or hidden: the figures are not shown


def shown(encounter: Encounter, c: Combatant, viewer: bool, bloodied_at: float = BLOODIED_AT) -> Shown:
    """`c`'s resources for a GM (`viewer` False: everything) or a viewer."""
    mode = mode_of(encounter) if viewer and is_enemy(c) else "exact"
    if mode == "exact":
        return Shown(dict(c.resources), dict(c.maxima))
    if mode == "label":
        return Shown(label=health_label(c, bloodied_at), withheld=True)
    return Shown(withheld=True)


FIGURE_KINDS = frozenset({"damage", "adjust", "set", "upkeep"})
WITHHELD_KINDS = FIGURE_KINDS | {"note", "declare"}


def _enemy_named(encounter: Encounter, names: tuple[str, ...]) -> str | None:
    """The first of `names` that is an enemy (one that has left counts: nothing says it
    was not), or None."""
    for name in names:
        c = encounter.combatants.get(name)
        if c is None or is_enemy(c):
            return name
    return None


def log_text(encounter: Encounter, entry: LogEntry, viewer: bool) -> str:
    """The text of a log line for this reader (figures of enemies withheld per the mode).

    A figure line is about its combatant first. An action's result line (a `note` about
    the actor and its targets) states the targets' figures, or the actor's own when it has
    no target; a declaration against an enemy keeps who, at whom and when, and loses its
    roll's summary ("... : Attack +1 vs Sphinx's Defense +0: hit for 6 VP"). One with no
    summary (a freeform declaration: the GM states the outcome) or rolled in secret
    states no figures and is kept whole (decision 0017: "the declaration and completion
    lines stay"). A declaration line none of its actor's actions wrote (the engine writes
    none) reads "NAME acts: figures withheld from viewers": what it states is not known."""
    if not viewer or not entry.about or entry.kind not in WITHHELD_KINDS or mode_of(encounter) == "exact":
        return entry.text
    if entry.kind == "declare":
        if _enemy_named(encounter, entry.about[1:]) is None:
            return entry.text
        summary = _summary_of(encounter, entry)
        if summary:
            return entry.text[: -len(summary) - 2] + " (figures withheld from viewers)"
        if summary is not None or entry.text.endswith(" (rolled in secret)"):
            return entry.text
        return f"{entry.about[0]} acts: figures withheld from viewers"
    about = entry.about[:1] if entry.kind != "note" else (entry.about[1:] or entry.about[:1])
    enemy = _enemy_named(encounter, about)
    return entry.text if enemy is None else f"{enemy}: figures withheld from viewers"


def _summary_of(encounter: Encounter, entry: LogEntry) -> str | None:
    """The roll's summary a declaration line ends with: that of the actor's action begun
    on the line's segment (actions are kept in the order they began: a binary search);
    "" for the line of such an action declared with no summary (it ends at the segment
    the action completes on, as tracker.engine.actions words it); None if neither."""
    actions = encounter.actions
    at = bisect.bisect_left(actions, entry.segment, key=_START)
    found: str | None = None
    while at < len(actions) and actions[at].start == entry.segment:
        action = actions[at]
        if action.actor == entry.about[0]:
            summary = action.resolution.summary
            if summary and entry.text.endswith(": " + summary):
                return summary
            if not summary and entry.text.endswith(f" completes on segment {action.completes}"):
                found = ""
        at += 1
    return found


_START = operator.attrgetter("start")


# Who decided a declaration's faces (tracker.play.rolling), one wording
# each: the long one in a proposal and the approval screen, the short one after the faces
# on a log line.
DICE_WORDS = {"typed": "dice typed by the player", "app": "the app's dice", "typed+app": "dice partly typed, partly the app's"}
DICE_MARKS = {"typed": "typed", "app": "app's roll", "typed+app": "partly typed"}


def dice_of(event: Event | None) -> tuple[int, ...]:
    """The faces a declaration's roll used, as the adapter recorded them."""
    if event is None:
        return ()
    resolution = event.args.get("resolution")
    if isinstance(resolution, Resolution):
        return resolution.dice
    if isinstance(resolution, dict):
        return tuple(resolution.get("dice", ()))
    return ()


@dataclass(frozen=True, slots=True)
class Sight:
    """What `role` may see of `encounter` (see the module docstring); made by `sight`."""

    encounter: Encounter
    role: Role

    @property
    def everything(self) -> bool:
        return self.role.is_gm

    def knows(self, c: Combatant) -> bool:
        """Whether this reader may know `c` is in the fight at all."""
        return self.role.is_gm or not c.hidden or self.role.owns(c.name)

    def knows_name(self, name: str) -> bool:
        c = self.encounter.combatants.get(name)
        if c is None:  # one that has left: who it was is no longer known, so not shown
            return self.role.is_gm
        return self.knows(c)

    def combatants(self) -> list[Combatant]:
        return [c for c in self.encounter.combatants.values() if self.knows(c)]

    def names(self) -> list[str]:
        return [c.name for c in self.combatants()]

    def exact(self, c: Combatant) -> bool:
        """Whether `c` is shown in full (the GM; a player's own), not as a viewer sees it."""
        return self.role.is_gm or self.role.owns(c.name)

    def resources(self, c: Combatant) -> Shown:
        return shown(self.encounter, c, not self.exact(c))

    def entry(self, entry: LogEntry) -> bool:
        """Whether a log line is shown (tracker.reading.roles.visible_to: secret, private, hidden)."""
        if self.role.is_gm:
            return True
        hidden = [n for n, c in self.encounter.combatants.items() if c.hidden]
        return visible_to(self.role, entry, hidden)

    def log(self) -> list[LogEntry]:
        if self.role.is_gm:
            return list(self.encounter.log)
        hidden = [n for n, c in self.encounter.combatants.items() if c.hidden]
        return [e for e in self.encounter.log if visible_to(self.role, e, hidden)]

    def text(self, entry: LogEntry) -> str:
        """A shown log line's words (a player's own figures are theirs: exact)."""
        mine = self.role.is_player and bool(entry.about) and all(self.role.owns(n) for n in entry.about)
        return log_text(self.encounter, entry, not self.role.is_gm and not mine)

    def line(self, entry: LogEntry) -> str:
        """A shown log line as every output prints it: its words (`text`), then a
        declaration's faces and who decided them ("[dice 5 4] (typed)"); a secret roll's
        faces are the GM's alone."""
        text = self.text(entry)
        events = self.encounter.events
        if entry.kind != "declare" or not 0 < entry.seq <= len(events):
            return text
        event = events[entry.seq - 1]
        faces = dice_of(event)
        if not faces or (event.args.get("secret") and not self.role.is_gm):
            return text
        mark = DICE_MARKS.get(str(event.args.get("dice", "")))
        return f"{text} [dice {' '.join(map(str, faces))}]" + (f" ({mark})" if mark else "")

    def action(self, a: Action) -> bool:
        """Whether an action is shown: its actor and every target known to this reader."""
        return self.knows_name(a.actor) and all(self.knows_name(t) for t in a.targets)

    def secret(self, a: Action) -> bool:
        """Whether an action's roll is withheld (a secret roll: the GM's alone)."""
        return a.secret and not self.role.is_gm

    def withheld(self, a: Action) -> bool:
        """Whether an action's result figures are withheld: aimed at an enemy while the
        table shows enemies' figures to viewers as a label, or not at all."""
        if self.role.is_gm or not a.targets or mode_of(self.encounter) == "exact":
            return False
        return _enemy_named(self.encounter, tuple(t for t in a.targets if not self.role.owns(t))) is not None

    def upcoming(self, limit: int = 20) -> list[tuple[int, str]]:
        items = self.encounter.upcoming_about(None if not self.role.is_gm else limit)
        return [(s, t) for s, t, about in items if all(self.knows_name(n) for n in about)][:limit]

    def proposal(self, p: Proposal) -> bool:
        return self.role.is_gm or (self.role.is_player and self.role.owns(p.actor))


def sight(encounter: Encounter, role: Role) -> Sight:
    """What `role` may see of `encounter`: the one place that decides it."""
    return Sight(encounter, role)
