"""Encounter settings that belong to the table, not to a ruleset.

`player_declarations`: "at_once" (default) applies a player's declaration as soon as it
is made; "approval" records it as a proposal that changes nothing until the GM approves
it (possibly edited) or refuses it with a reason. Set it when creating the encounter
(`tracker new FILE --ruleset R --set player_declarations=approval`) or during the fight
(`setting player_declarations approval`, an event like any other, so undo takes it back).

`viewer_resources`: how enemies' resources show to viewers (the app's viewer and
`tracker show --viewer`): "exact" figures (default), a "label" (Healthy / Bloodied /
Down), or "hidden". Set the same ways, or with `v` in the app (tracker/reading/viewing.py).

`player_damage_cap`: the most damage a player may state for their own action with a
freeform `damage=` ("none", the default: no cap; else a whole number). A player's
declaration above it is refused naming the cap (tracker.play.session); the GM's never is.
"""

from __future__ import annotations

from typing import Any

from tracker.engine.errors import TrackerError

PLAYER_DECLARATIONS = "player_declarations"
VIEWER_RESOURCES = "viewer_resources"
PLAYER_DAMAGE_CAP = "player_damage_cap"
NO_CAP = "none"
MAX_CAP = 10**9  # far above any blow; a number, not a way to write an endless one
AT_ONCE = "at_once"
APPROVAL = "approval"

# name -> (choices, default, help)
TABLE_SETTINGS: dict[str, tuple[tuple[str, ...], str, str]] = {
    PLAYER_DECLARATIONS: ((AT_ONCE, APPROVAL), AT_ONCE, "a player's declaration applies at once, or waits for the GM's approval"),
    VIEWER_RESOURCES: (("exact", "label", "hidden"), "exact", "enemies' resources to viewers: exact figures, Healthy/Bloodied/Down, or hidden"),
    # No list of choices: "none" or a whole number (`check`).
    PLAYER_DAMAGE_CAP: ((), NO_CAP, "the most damage a player may state with a freeform damage=: none, or a whole number"),
}


def damage_cap(table: dict[str, Any]) -> int | None:
    """The table's cap on a player's freeform damage, or None (no cap)."""
    value = str(table.get(PLAYER_DAMAGE_CAP, NO_CAP))
    return int(value) if value.isdigit() else None


def check(key: str, value: Any, where: str) -> str:
    """A table setting's value, or TrackerError naming what was expected."""
    if key not in TABLE_SETTINGS:
        raise TrackerError(f"{where}: expected one of the table settings ({', '.join(TABLE_SETTINGS)}), got {key!r}")
    choices = TABLE_SETTINGS[key][0]
    if not choices:  # player_damage_cap
        text = str(value).strip()
        if text == NO_CAP or (text.isdigit() and text.isascii() and int(text) <= MAX_CAP):
            return text if text == NO_CAP else str(int(text))
        raise TrackerError(f"{where}.{key}: expected none or a whole number from 0 to {MAX_CAP}, got {value!r}")
    if value not in choices:
        raise TrackerError(f"{where}.{key}: expected one of {', '.join(choices)}, got {value!r}")
    return str(value)
