"""What a viewer may see of a combatant's resources (the app's viewer and `show --viewer`).

The GM sets, per encounter, how enemies' resources show to viewers (the table setting
`viewer_resources`: `setting viewer_resources label`, or `v` in the app; an event, so it
is undoable and reaches every viewer following the file): `exact` figures, a `label`
(Healthy / Bloodied / Down), or `hidden`. Until set, exact (what viewers saw before
the setting existed).

Decisions where the design is silent:
- An enemy is a combatant whose side is not the players': a side named PC, PCs, player,
  players, party, hero, heroes, ally or allies (any case) is the players'; every other
  side, and no side at all, is an enemy. The players always see their own figures.
- The label reads the resources that put a combatant down (the ruleset's `down_when`):
  Down when down, Bloodied at or under `BLOODIED_AT` (one half) of the maximum of any
  of them, Healthy above. A ruleset may set its own threshold as `bloodied_at`.
- In label and hidden modes the log lines that state an enemy's figures (damage,
  adjustments, `set`, upkeep payments) read "NAME: figures withheld" for viewers; the
  action lines (declarations, completions) stay: the players saw the blow land.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tracker.engine import Combatant, Encounter, LogEntry
from tracker.engine.table import TABLE_SETTINGS, VIEWER_RESOURCES

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
    from tracker.config import default_viewer_resources  # reads the config file once

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


def log_text(encounter: Encounter, entry: LogEntry, viewer: bool) -> str:
    """The text of a log line for this reader (figures of enemies withheld per the mode)."""
    if not viewer or entry.kind not in FIGURE_KINDS or not entry.about or mode_of(encounter) == "exact":
        return entry.text
    c = encounter.combatants.get(entry.about[0])
    if c is None or not is_enemy(c):
        return entry.text
    return f"{c.name}: figures withheld from viewers"
