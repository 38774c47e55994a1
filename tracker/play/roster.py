"""Who is in the fight: the roster's changes (add, rename, side, reorder) as the session
makes them. Each function checks what it can at once and returns the builder the session
runs against the freshest state under the file's lock (`Session.submit`).

Names and sides are people's text: checked for control characters, blanks and names
that look like another (tracker.engine.text; docs/decisions/0052-look-alike-names.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rulesets.base import Ruleset
from tracker.engine import CombatantSetup, CommandError, Encounter, Event, bounds
from tracker.engine.text import check_name, refuse_blank, refuse_controls, refuse_lookalike
from tracker.play.verbs import MAX_COPIES
from tracker.reading.viewing import PLAYER_SIDES

Build = Callable[[Encounter], Event]


def adding(
    ruleset: Ruleset, name: str, values: dict[str, Any], *, side: str = "", hidden: bool = False, surprised_until: int = 0, copies: int = 1
) -> Build:
    """Add one combatant, or `copies` numbered ones ("Goblin 1".."Goblin 4") as one change."""
    name = name.strip()
    if not name:
        raise CommandError("add: a combatant needs a name")
    check_name(name, "add: name")
    refuse_controls(side, "add: side")
    refuse_blank(side, "add: side")
    for key, value in values.items():
        refuse_controls(str(key), "add: key")
        if isinstance(value, str):
            refuse_controls(value, f"add: {key}")
    if not 1 <= copies <= MAX_COPIES:
        raise CommandError(f"copies: expected 1 to {MAX_COPIES}, got {copies}")
    stats, resources = ruleset.build_sheet(values, f"add {name}")
    bounds.sheet(stats, resources, f"add {name}")
    if surprised_until:
        bounds.segment(surprised_until, "surprised")
    data = CombatantSetup(name, stats, resources, side, hidden, surprised_until).to_dict()

    def build(enc: Encounter) -> Event:
        check_side(enc, side, "add: side")
        if copies == 1:
            enc.check_new_name(name)
            refuse_lookalike(name, enc.combatants, "add: name")
            return Event("add", data)
        names = numbered(enc, name, copies)
        check_name(names[-1], "add: name")  # the longest: "Goblin 12" is wider than "Goblin"
        for each in (name, *names):  # "Gоblin" x3 beside "Goblin": the copies' name looks like it
            refuse_lookalike(each, enc.combatants, "add: name")
        return Event("add", {**data, "names": names})

    return build


def numbered(enc: Encounter, base: str, copies: int) -> list[str]:
    """`copies` free names "BASE 1", "BASE 2", ... (numbers already taken are skipped)."""
    taken = {n.casefold() for n in enc.combatants}
    names: list[str] = []
    number = 1
    while len(names) < copies:
        candidate = f"{base} {number}"
        if candidate.casefold() not in taken:
            names.append(candidate)
        number += 1
    return names


def renaming(name: str, new: str) -> Build:
    new = new.strip()
    if not new:
        raise CommandError("rename: the new name is empty")
    check_name(new, "rename: new name")

    def build(enc: Encounter) -> Event:
        c = enc.combatant(name)
        enc.check_new_name(new, keep=c.name)
        if new == c.name:
            raise CommandError(f"rename: {c.name} already has that name")
        refuse_lookalike(new, (other for other in enc.combatants if other != c.name), "rename: new name")
        return Event("rename", {"target": c.name, "name": new})

    return build


def siding(name: str, side: str) -> Build:
    side = side.strip()
    refuse_controls(side, "side")
    refuse_blank(side, "side")

    def build(enc: Encounter) -> Event:
        c = enc.combatant(name)
        check_side(enc, side, "side")
        return Event("side", {"target": c.name, "side": side})

    return build


def reordering(name: str, position: int) -> Build:
    def build(enc: Encounter) -> Event:
        c = enc.combatant(name)
        if not 1 <= position <= len(enc.combatants):
            raise CommandError(f"reorder: position: expected 1 to {len(enc.combatants)}, got {position}")
        return Event("reorder", {"target": c.name, "position": position})

    return build


def check_side(enc: Encounter, side: str, what: str) -> None:
    """Refuse a side that looks like another side in the fight, or like a word that marks
    the players' side ("party", "PCs": tracker.reading.viewing), without being it: the fight's
    figures are counted by side, and enemies' resources are shown to viewers by it."""
    if side:
        refuse_lookalike(side, {c.side: None for c in enc.combatants.values() if c.side}, what, "a side in the fight")
        refuse_lookalike(side, sorted(PLAYER_SIDES), what, "a word that marks the players' side")
