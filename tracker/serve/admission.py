"""Who gets in when the table is busy: OpenSSH's MaxStartups before the log-in, seats after.

Decisions: docs/decisions/0025-admission.md
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, field

from tracker.engine import TrackerError
from tracker.serve.arguments import GM_SEATS, PER_SOURCE, defaults

REFUSAL_GRACE = 5.0  # seconds a refused client has to reach the point where it can be told why
SILENT_MIN = 1.0  # a client sends its SSH version line at once: silent this long, it is the first closed to make room
STALL_MIN = 5.0  # logging in this long without a key accepted: closed to make room (a log-in takes well under 2 s)
PENALTY = 10.0  # seconds added to a source's penalty for each connection closed without logging in
PENALTY_MOST = 60.0  # a penalty never runs longer than this from now
PENALTY_SOURCES = 10_000  # sources remembered at most (the soonest to expire are forgotten first)


@dataclass(frozen=True, slots=True)
class LoggingIn:
    """What admission needs to know of a connection that has not logged in yet."""

    ident: int
    source: str
    since: float  # when it connected (time.monotonic)
    spoke: bool  # it sent its SSH version line: a key exchange is under way
    accepted: bool = False  # a key was accepted: about to take a seat


@dataclass(slots=True)
class Penalties:
    """Sources whose connections were closed without logging in (as OpenSSH's
    PerSourcePenalties): each such close adds `PENALTY` seconds, up to `PENALTY_MOST` from now."""

    until: dict[str, float] = field(default_factory=dict)

    def add(self, source: str, now: float) -> None:
        start = max(now, self.until.get(source, now))
        self.until[source] = min(start + PENALTY, now + PENALTY_MOST)
        if len(self.until) > PENALTY_SOURCES:
            for gone in [s for s, end in self.until.items() if end <= now]:
                del self.until[gone]
            while len(self.until) > PENALTY_SOURCES:
                del self.until[min(self.until, key=self.until.__getitem__)]

    def active(self, source: str, now: float) -> bool:
        return self.until.get(source, 0.0) > now


@dataclass(frozen=True, slots=True)
class Entry:
    """A new connection's fate: refused with `refusal`, or let in; `room` names a
    connection logging in to close first, so the new one takes its place."""

    refusal: str = ""
    room: LoggingIn | None = None
    why: str = ""  # why `room` is closed, for the log and its client


@dataclass(frozen=True, slots=True)
class Startups:
    """OpenSSH's MaxStartups start:rate:full."""

    start: int
    rate: int
    full: int

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


_DEFAULT = defaults()  # the command line's (tracker.serve.arguments)


@dataclass(frozen=True, slots=True)
class Admission:
    startups: Startups = Startups.parse(_DEFAULT.max_startups)
    per_source: int = PER_SOURCE
    max_connections: int = _DEFAULT.max_connections
    gm_seats: int = GM_SEATS

    def startup_refusal(self, logging_in: int, from_source: int, draw: float | None = None) -> str:
        """Why a new connection is refused before it logs in ("" to let it try), with
        `logging_in` connections not logged in yet, `from_source` of them from its address."""
        if from_source >= self.per_source:
            return f"too many connections from your address are logging in ({from_source}); try again in a moment"
        chance = self.startups.refusal_chance(logging_in)
        if chance > 0 and (random.random() if draw is None else draw) < chance:
            return f"too many connections are logging in ({logging_in}); try again in a moment"
        return ""

    def entry(self, source: str, logging_in: Iterable[LoggingIn], penalties: Penalties, now: float, draw: float | None = None) -> Entry:
        """Let a new connection from `source` in, refuse it, or let it in in place of one
        that is wasting its place (docs/decisions/0025-admission.md).

        MaxStartups' random refusal counts the connections logging in that have spoken
        (a silent one costs a socket, not a key exchange) from sources with no penalty;
        FULL counts every one. A newcomer those would refuse, from a source with no
        penalty, takes the place of (first) a connection from a penalized source, else one
        silent for `SILENT_MIN`, else one logging in for `STALL_MIN` with no key accepted."""
        waiting = list(logging_in)
        from_source = sum(1 for c in waiting if c.source == source)
        if from_source >= self.per_source:
            return Entry(f"too many connections from your address are logging in ({from_source}); try again in a moment")
        counted = sum(1 for c in waiting if c.spoke and not c.accepted and not penalties.active(c.source, now))
        refusal = ""
        if len(waiting) >= self.startups.full:
            refusal = f"too many connections are logging in ({len(waiting)}); try again in a moment"
        else:
            refusal = self.startup_refusal(counted, 0, draw)
        if not refusal or penalties.active(source, now):
            return Entry(refusal)
        room, why = _room(waiting, penalties, now)
        return Entry(refusal, None) if room is None else Entry("", room, why)

    def seat_refusal(self, gm: bool, seated: int, seated_gms: int) -> str:
        """Why an authenticated client gets no seat ("" for a seat)."""
        if seated >= self.max_connections:
            return f"the table is full ({self.max_connections} seats); try again later"
        if not gm and seated - seated_gms >= self.max_connections - self.gm_seats:
            kept = f"{self.gm_seats} kept for the GM" if self.gm_seats else "none kept"
            return f"the table is full ({self.max_connections} seats, {kept}); try again later"
        return ""


def _room(waiting: list[LoggingIn], penalties: Penalties, now: float) -> tuple[LoggingIn | None, str]:
    """The connection to close so a newcomer may log in, and why (None: none may be)."""
    open_ = sorted((c for c in waiting if not c.accepted), key=lambda c: c.since)
    for c in open_:
        if penalties.active(c.source, now):
            return c, "its address has had connections that did not log in"
    for c in open_:
        if not c.spoke and now - c.since >= SILENT_MIN:
            return c, f"silent for {now - c.since:.1f}s"
    for c in open_:
        if now - c.since >= STALL_MIN:
            return c, f"not logged in after {now - c.since:.1f}s"
    return None, ""
