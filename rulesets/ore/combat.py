"""ORE combat arithmetic: hit location, damage by width, armour, gobble dice, wound boxes.

Each location has two countdown resources on the sheet:
- `<location>`: its empty wound boxes (head and torso at 0 put the combatant down);
- `<location>_k`: its boxes not holding Killing damage (0: full of Killing).
So Shock boxes = `<location>_k` - `<location>`, Killing = boxes - `<location>_k`.

Marking (Wild Talents / Reign as described in reference/systems.md): Killing is
marked first and Shock fills the boxes left; Shock that does not fit turns that many
Shock boxes into Killing; Killing past a full location overflows (limbs -> torso, as
the `overflow` table says; head and torso keep nothing more).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tracker.engine.errors import TrackerError

_PART = re.compile(r"(width(?:\s*[+-]\s*\d+)?|\d+)\s*(shock|killing)")


@dataclass(frozen=True, slots=True)
class DamageFormula:
    """Shock and Killing as (width multiplier, constant) pairs: 'width+1 killing'."""

    shock: tuple[int, int] = (0, 0)
    killing: tuple[int, int] = (0, 0)

    def at(self, width: int) -> tuple[int, int]:
        """(shock, killing) for a set of this width."""
        s = self.shock[0] * width + self.shock[1]
        k = self.killing[0] * width + self.killing[1]
        return max(0, s), max(0, k)


def parse_damage(text: str, where: str = "damage") -> DamageFormula:
    """'width shock', 'width+1 killing', '1 killing + width shock'."""
    source = text.strip().lower()
    found = list(_PART.finditer(source))
    rest = _PART.sub("", source)
    if not found or re.sub(r"[\s+,]|and", "", rest):
        raise TrackerError(f"{where}: expected damage such as 'width shock', 'width+1 killing' or '1 killing + width shock', got {text!r}")
    shock, killing = [0, 0], [0, 0]
    for match in found:
        amount, kind = match.group(1).replace(" ", ""), match.group(2)
        target = shock if kind == "shock" else killing
        if amount.startswith("width"):
            target[0] += 1
            target[1] += int(amount[5:] or 0)
        else:
            target[1] += int(amount)
    return DamageFormula((shock[0], shock[1]), (killing[0], killing[1]))


def location_for(height: int, table: dict[str, str]) -> str:
    found = table.get(str(height))
    if not found:
        raise TrackerError(f"ore tables [hit_locations]: no location for height {height}")
    return found


@dataclass(frozen=True, slots=True)
class Armoured:
    width: int
    shock: int
    killing: int
    note: str = ""


def armour(width: int, formula: DamageFormula, har: int, lar: int, penetration: int = 0) -> Armoured:
    """Heavy armour (HAR) takes width off first; an attack left at width 1 or less does
    nothing. Light armour (LAR) then cuts all Shock to 1 point and turns up to LAR
    Killing into Shock. Penetration lowers both ratings by one per point."""
    har_left = max(0, har - penetration)
    lar_left = max(0, lar - penetration)
    w = width - har_left
    notes = []
    if har_left:
        notes.append(f"HAR {har_left}: width {width} -> {max(w, 0)}")
    if w <= 1:
        return Armoured(max(w, 0), 0, 0, "; ".join(notes + ["the armour stops it"]))
    shock, killing = formula.at(w)
    if lar_left and (shock or killing):
        turned = min(killing, lar_left)
        shock = min(shock, 1) + turned
        killing -= turned
        notes.append(f"LAR {lar_left}: {shock} shock, {killing} killing")
    return Armoured(w, shock, killing, "; ".join(notes))


@dataclass(frozen=True, slots=True)
class Boxes:
    """One location: its size, Killing and Shock marked."""

    size: int
    killing: int
    shock: int

    @property
    def empty(self) -> int:
        return self.size - self.killing - self.shock

    @property
    def unkilled(self) -> int:
        return self.size - self.killing


def mark(boxes: Boxes, shock: int, killing: int) -> tuple[Boxes, int]:
    """New boxes after marking, and the Killing that overflows."""
    k = boxes.killing + killing
    s = boxes.shock + shock
    over = 0
    if k >= boxes.size:
        over = k - boxes.size
        return Boxes(boxes.size, boxes.size, 0), over
    room = boxes.size - k
    if s > room:
        excess = s - room
        k = min(boxes.size, k + excess)
        s = boxes.size - k
    return Boxes(boxes.size, k, s), over


def boxes_of(resources: dict[str, float], maxima: dict[str, float], location: str, size: int) -> Boxes:
    empty = int(resources.get(location, size))
    unkilled = int(resources.get(f"{location}_k", size))
    size = int(maxima.get(location, size))
    return Boxes(size, max(0, size - unkilled), max(0, unkilled - empty))


def gobble(width: int, height: int, gobble_dice: int, gobble_height: int) -> tuple[int, int]:
    """Gobble dice at `gobble_height` each take one die from a set no higher; the
    defender uses what it takes to spoil the set (down to width 1), or all it has.
    Returns (new width, dice used)."""
    if gobble_dice <= 0 or gobble_height < height or width < 2:
        return width, 0
    used = min(gobble_dice, width - 1)
    return width - used, used
