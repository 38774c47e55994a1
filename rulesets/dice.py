"""Dice sources. Every roll in every adapter goes through one of these.

- `RandomDice`: a private `random.Random` (seeded for replay, or from the OS).
- `TypedFaces`: the faces a person rolled at the table, in the order the roll uses them.
- `Recorder`: wraps any source and keeps the faces it produced, for the log.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Protocol

from tracker.engine.errors import TrackerError


class DiceSource(Protocol):
    def roll(self, sides: int) -> int:
        """One die with faces 1..sides."""
        ...


class RandomDice:
    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def roll(self, sides: int) -> int:
        return self._rng.randint(1, sides)


class NotEnoughFaces(TrackerError):
    """The person typed fewer faces than the roll needs."""


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
            raise TrackerError(f"{self.label}: die {self.used + 1} is a d{sides}; {face} is not one of its faces")
        self.used += 1
        return face

    def unused(self) -> Sequence[int]:
        return self.faces[self.used :]


class Recorder:
    def __init__(self, source: DiceSource) -> None:
        self.source = source
        self.faces: list[int] = []

    def roll(self, sides: int) -> int:
        face = self.source.roll(sides)
        self.faces.append(face)
        return face


def parse_faces(text: str, label: str = "faces") -> list[int]:
    """'3,7,1' -> [3, 7, 1], with a message naming the bad entry."""
    faces = []
    for i, part in enumerate(p for p in text.replace(" ", ",").split(",") if p):
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
