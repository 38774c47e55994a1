"""Who gets in when the table is busy: OpenSSH's MaxStartups before the log-in, seats after.

Decisions: docs/decisions/0025-admission.md
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from tracker.engine import TrackerError

REFUSAL_GRACE = 5.0  # seconds a refused client has to reach the point where it can be told why


@dataclass(frozen=True, slots=True)
class Startups:
    """OpenSSH's MaxStartups start:rate:full."""

    start: int = 10
    rate: int = 30
    full: int = 100

    @classmethod
    def parse(cls, text: str) -> "Startups":
        parts = text.split(":")
        try:
            numbers = [int(p) for p in parts]
        except ValueError:
            numbers = []
        if len(numbers) == 1:
            numbers = [numbers[0], 100, numbers[0]]
        if len(numbers) != 3 or not (1 <= numbers[0] <= numbers[2] and 0 <= numbers[1] <= 100):
            raise TrackerError(f"--max-startups: expected N or START:RATE:FULL with 1 <= START <= FULL and RATE 0-100, got {text}")
        return cls(*numbers)

    def refusal_chance(self, logging_in: int) -> float:
        """The chance a new connection is refused while `logging_in` others have not logged in."""
        if logging_in < self.start:
            return 0.0
        if logging_in >= self.full:
            return 1.0
        return (self.rate + (100 - self.rate) * (logging_in - self.start) / (self.full - self.start)) / 100

    def __str__(self) -> str:
        return f"{self.start}:{self.rate}:{self.full}"


@dataclass(frozen=True, slots=True)
class Admission:
    startups: Startups = Startups()
    per_source: int = 30
    max_connections: int = 32
    gm_seats: int = 2

    def startup_refusal(self, logging_in: int, from_source: int, draw: float | None = None) -> str:
        """Why a new connection is refused before it logs in ("" to let it try), with
        `logging_in` connections not logged in yet, `from_source` of them from its address."""
        if from_source >= self.per_source:
            return f"too many connections from your address are logging in ({from_source}); try again in a moment"
        chance = self.startups.refusal_chance(logging_in)
        if chance > 0 and (random.random() if draw is None else draw) < chance:
            return f"too many connections are logging in ({logging_in}); try again in a moment"
        return ""

    def seat_refusal(self, gm: bool, seated: int, seated_gms: int) -> str:
        """Why an authenticated client gets no seat ("" for a seat)."""
        if seated >= self.max_connections:
            return f"the table is full ({self.max_connections} seats); try again later"
        if not gm and seated - seated_gms >= self.max_connections - self.gm_seats:
            kept = f"{self.gm_seats} kept for the GM" if self.gm_seats else "none kept"
            return f"the table is full ({self.max_connections} seats, {kept}); try again later"
        return ""
