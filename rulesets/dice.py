"""Dice sources. Every roll in every adapter goes through one of these.

- `RandomDice`: a private `random.Random` (seeded for replay, or from the OS).
- `KeyedDice`: faces fixed by a key and a position (a player's app dice: they stand).
- `TypedFaces`: the faces a person rolled at the table, in the order the roll uses them.
- `Recorder`: wraps any source and keeps the faces it produced, for the log.
- `PromptingFaces`: the faces typed so far; when the roll needs more, it stops and names
  the next group of dice (`DiceNeeded`), so a form can ask for exactly those.

Dice groups (the contract the declare form relies on): an adapter rolls every die
through `roll_group(dice, label, sides)`, one call per group of dice a person would
pick up and throw together ("Combat Roll: 2d10", "reroll of a 1: 1d10", "Wild Die
explosion: 1d6", "Sphinx's dodge: 1d6+1d8", "damage: 3d6"). Conditional dice (a reroll,
an explosion, damage only on a hit) are their own group, rolled only when the rule
calls for them, so a form that resolves again with the faces typed so far learns what
comes next from the adapter itself. `for_actor(dice, name)` names whose roll the
following groups are ("Seraph's Combat Roll").
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from tracker.engine.errors import TrackerError


class DiceSource(Protocol):
    def roll(self, sides: int) -> int:
        """One die with faces 1..sides."""
        ...


@dataclass(frozen=True, slots=True)
class DiceGroup:
    """Dice thrown together at the table, in the order the roll reads them."""

    label: str
    sides: tuple[int, ...]
    who: str = ""

    def dice_text(self) -> str:
        """(10, 10) -> '2d10'; (6, 8, 8) -> '1d6+2d8' (in order, runs merged)."""
        runs: list[list[int]] = []
        for s in self.sides:
            if runs and runs[-1][0] == s:
                runs[-1][1] += 1
            else:
                runs.append([s, 1])
        return "+".join(f"{n}d{s}" for s, n in runs) or "no dice"

    def text(self) -> str:
        """"Seraph's Combat Roll: 2d10"."""
        head = f"{self.who}'s {self.label}" if self.who else self.label
        return f"{head}: {self.dice_text()}"


def roll_group(dice: DiceSource, label: str, sides: Sequence[int], who: str = "") -> list[int]:
    """Roll one group of dice through `dice`, announcing it first if the source listens.

    `who` names a roller other than the actor (the defender's dodge); left empty, the
    group is the actor's (see `for_actor`)."""
    group = DiceGroup(label, tuple(sides), who)
    begin = getattr(dice, "begin", None)
    if begin is not None:
        begin(group)
    return [dice.roll(s) for s in group.sides]


class _Forwarding:
    """A source that passes rolls (and group announcements) on to another."""

    def __init__(self, source: DiceSource) -> None:
        self.source = source

    def begin(self, group: DiceGroup) -> None:
        begin = getattr(self.source, "begin", None)
        if begin is not None:
            begin(group)

    def roll(self, sides: int) -> int:
        return self.source.roll(sides)


class ForActor(_Forwarding):
    """Names whose roll the following groups are, unless a group already says."""

    def __init__(self, source: DiceSource, who: str) -> None:
        super().__init__(source)
        self.who = who

    def begin(self, group: DiceGroup) -> None:
        super().begin(group if group.who else replace(group, who=self.who))


def for_actor(dice: DiceSource, who: str) -> DiceSource:
    return ForActor(dice, who)


class RandomDice:
    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def roll(self, sides: int) -> int:
        return self._rng.randint(1, sides)


class KeyedDice:
    """Dice fixed in advance by a key: die `i` of stream `label` always shows the same
    face, in any process that holds the key. A player's app dice come from here (one
    stream per combatant and draw, tracker.play's `player_dice`), so a roll once made
    is the same roll however often the form is closed, the seat reconnects or the
    declaration is taken back; only the GM moves the stream on."""

    def __init__(self, key: bytes, label: str, start: int = 0) -> None:
        self._key = key
        self._label = label.encode("utf-8")
        self.index = start

    def face(self, index: int, sides: int) -> int:
        """Die `index` of the stream as a d`sides` (256 bits reduced: no bias that matters)."""
        import hashlib  # here: only a player's app dice need them, and they cost every start 3 ms
        import hmac

        digest = hmac.new(self._key, self._label + b"\0" + str(index).encode("ascii"), hashlib.sha256).digest()
        return 1 + int.from_bytes(digest, "big") % sides

    def roll(self, sides: int) -> int:
        face = self.face(self.index, sides)
        self.index += 1
        return face


class NotEnoughFaces(TrackerError):
    """The person typed fewer faces than the roll needs."""


def _face_error(label: str, index: int, sides: int, face: int) -> TrackerError:
    # The same words wherever faces are typed: `--faces`, `faces=`, the declare form.
    return TrackerError(f"{label}: die {index} is a d{sides}; {face} is not one of its faces")


class TypedFaces:
    """Faces typed in by hand. Running short or typing an impossible face is an error."""

    def __init__(self, faces: Iterable[int], label: str = "faces") -> None:
        self.faces = list(faces)
        self.label = label
        self.used = 0

    def roll(self, sides: int) -> int:
        if self.used >= len(self.faces):
            raise NotEnoughFaces(
                f"{self.label}: the roll needs more dice than the {len(self.faces)} typed "
                f"(die {self.used + 1} is a d{sides})"
            )
        face = self.faces[self.used]
        if not 1 <= face <= sides:
            raise _face_error(self.label, self.used + 1, sides, face)
        self.used += 1
        return face

    def unused(self) -> Sequence[int]:
        return self.faces[self.used :]


def check_all_used(dice: DiceSource | None, label: str = "faces") -> None:
    """Typed faces the roll did not read mean the person typed a different roll: refuse
    it, naming them. The one check of unused faces: the command line's `roll` and `rest`,
    the games' contests, a declaration and the declare form's dry run all use it.
    Dice rolled by the app (or none) pass."""
    if isinstance(dice, TypedFaces) and dice.unused():
        raise TrackerError(
            f"{label}: {len(dice.faces)} typed but the roll used {dice.used}; "
            f"unused: {', '.join(map(str, dice.unused()))}"
        )


class DiceNeeded(Exception):
    """The roll needs dice nobody has typed yet: `group`, of which `have` faces are typed.

    A signal to the form that asks for dice, not an error: it is no `TrackerError`, so no
    handler that reports refusals to the person at the keyboard can take it for one."""

    def __init__(self, group: DiceGroup, have: Sequence[int], index: int) -> None:
        super().__init__(f"next: {group.text()}")
        self.group = group
        self.have = tuple(have)
        self.index = index  # 0-based position of the group's first die among all faces


class PromptingFaces(TypedFaces):
    """Typed faces that, when they run out, name the group of dice the roll needs next.

    A form resolves with the faces typed so far; `DiceNeeded` says which dice to ask
    for (`group.sides[len(have):]`), and the form resolves again with them added.
    An adapter that rolls without announcing a group still gets one die at a time.
    """

    def __init__(self, faces: Iterable[int], label: str = "faces") -> None:
        super().__init__(faces, label)
        self._group: DiceGroup | None = None
        self._group_start = 0

    def begin(self, group: DiceGroup) -> None:
        self._group, self._group_start = group, self.used

    def roll(self, sides: int) -> int:
        if self.used >= len(self.faces):
            group, start = self._group, self._group_start
            if group is None or self.used - start >= len(group.sides):
                group, start = DiceGroup(f"die {self.used + 1}", (sides,)), self.used
            raise DiceNeeded(group, self.faces[start : self.used], start)
        return super().roll(sides)


def check_faces(group: DiceGroup, faces: Sequence[int], label: str = "faces", first: int = 1) -> None:
    """Refuse a face that does not fit its die, or more faces than the group has."""
    if len(faces) > len(group.sides):
        raise TrackerError(
            f"{label}: {group.text()} is {len(group.sides)} "
            f"{'die' if len(group.sides) == 1 else 'dice'}; {len(faces)} faces were typed"
        )
    for i, (sides, face) in enumerate(zip(group.sides, faces)):
        if not 1 <= face <= sides:
            raise _face_error(label, first + i, sides, face)


class Recorder(_Forwarding):
    """Keeps every face its source produced, and which group each belonged to."""

    def __init__(self, source: DiceSource) -> None:
        super().__init__(source)
        self.faces: list[int] = []
        self.sides: list[int] = []  # the die each face was rolled on, in order
        self.groups: list[tuple[DiceGroup, list[int]]] = []

    def begin(self, group: DiceGroup) -> None:
        super().begin(group)
        self.groups.append((group, []))

    def roll(self, sides: int) -> int:
        face = self.source.roll(sides)
        self.faces.append(face)
        self.sides.append(sides)
        if self.groups and len(self.groups[-1][1]) < len(self.groups[-1][0].sides):
            self.groups[-1][1].append(face)
        return face


def parse_faces(text: str, label: str = "faces") -> list[int]:
    """'3,7,1' -> [3, 7, 1], with a message naming the bad entry. An empty entry
    ('1,,5') is refused, not skipped: a missed die is a typing slip, not a choice."""
    text = text.strip()
    parts = [p.strip() for p in text.split(",")] if "," in text else text.split()
    faces = []
    for i, part in enumerate(parts):
        if not part:
            raise TrackerError(f"{label}: entry {i + 1} is empty (faces are written 3,7,1)")
        try:
            faces.append(int(part))
        except ValueError:
            raise TrackerError(f"{label}: entry {i + 1} ({part!r}) is not a whole number") from None
    if not faces:
        raise TrackerError(f"{label}: expected die faces such as 3,7")
    return faces


def source_for(faces: str | Sequence[int] | None = None, seed: int | None = None, label: str = "faces") -> DiceSource:
    """Typed faces if given, else seeded or OS-random dice."""
    if faces is not None and faces != "":
        return TypedFaces(parse_faces(faces, label) if isinstance(faces, str) else faces, label)
    return RandomDice(seed)


_PLAIN_TERM = re.compile(r"([+-]?)(?:(\d*)[dD](\d+)|(\d+))")


def plain_roll(spec: str, dice: DiceSource, max_dice: int, max_sides: int) -> tuple[list[int], str]:
    """Dice in plain notation (`2d10`, `3d6+2`, `d20-1`, `2d6+1d4`), rolled through `dice`:
    the faces and a line saying them ("2d10: 7 3 = 10"). Refuses, naming what was
    expected, anything else, and more than `max_dice` dice or `max_sides` sides."""
    text = spec.replace(" ", "")
    terms = list(_PLAIN_TERM.finditer(text))
    if not text or "".join(t.group(0) for t in terms) != text or not any(t.group(3) for t in terms) or text[0] in "+":
        raise TrackerError(f"roll: expected dice such as 2d10 or 3d6+2, got {spec!r}")
    faces: list[int] = []
    total = 0
    for term in terms:
        sign = -1 if term.group(1) == "-" else 1
        if term.group(3) is None:
            total += sign * int(term.group(4))
            continue
        count, sides = int(term.group(2) or 1), int(term.group(3))
        if count < 1 or sides < 2:
            raise TrackerError(f"roll {spec!r}: a term needs at least 1 die of at least 2 sides")
        if len(faces) + count > max_dice or sides > max_sides:
            raise TrackerError(f"roll {spec!r}: at most {max_dice} dice of at most {max_sides} sides")
        rolled = roll_group(dice, spec, (sides,) * count)
        faces.extend(rolled)
        total += sign * sum(rolled)
    return faces, f"{text}: {' '.join(map(str, faces))} = {total}"
