"""The bridge between the screens and the session: one open encounter file.

`Live` owns the `Session` and its store. Every change goes through a Session method
inside `Live.run`, which turns a refused change (TrackerError / RuleRefusal) into a
message for the screen instead of an exception.

Write-behind (a decision the brief leaves open): `Session.submit` normally writes the
whole TOML file inside the change. A long fight (5,000 events) takes ~0.2 s to encode,
which would sit between the key press and the frame that shows its result. So the UI's
store does the same locked sequence as `EncounterFile.transaction` (lock, fold in other
sessions' changes, apply, bump the revision, write) but runs the final write right
after the next frame is drawn (`call_after_refresh`), still holding the sidecar lock
until the file is on disk. Nobody else can write in between, the next change waits
for the pending write, and quitting flushes it; what the GM sees is on disk a frame
later instead of a frame earlier.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from tracker.engine import Encounter, TrackerError
from tracker.persistence.store import EncounterFile
from tracker.roles import Role
from tracker.session import Outcome, Session
from rulesets.dice import RandomDice

if TYPE_CHECKING:
    from rulesets.base import Ruleset


class WriteBehindStore:
    """`EncounterFile.transaction` with the write deferred to `flush` (see module doc)."""

    def __init__(self, file: EncounterFile, schedule: Callable[[Callable[[], None]], object] | None = None) -> None:
        self.file = file
        self.schedule = schedule
        self._pending: Callable[[], None] | None = None
        self.save_error: str = ""

    @property
    def pending(self) -> bool:
        return self._pending is not None

    @contextmanager
    def transaction(self, session: Session) -> Iterator[None]:
        self.flush()
        with self.file.transaction(session, later=self._hold):
            yield

    def _hold(self, write: Callable[[], None]) -> None:
        self._pending = write
        if self.schedule is None:
            self.flush()
        else:
            self.schedule(self.flush)

    def flush(self) -> None:
        """Write the pending change (if any) and release the lock."""
        write, self._pending = self._pending, None
        if write is None:
            return
        try:
            write()
            self.save_error = ""
        except (OSError, TrackerError) as exc:
            self.save_error = f"could not save {self.file.path}: {exc}"
            raise TrackerError(self.save_error) from None


@dataclass
class Live:
    """An open encounter: its file, session and whether it is shown as a viewer sees it.

    `viewer` is what the screens show (hidden combatants and secret rolls left out): true
    for a viewer and for a player. What may be changed is the session's role
    (`session.role`, tracker.roles), checked by the session's guard on every change."""

    path: Path
    session: Session
    store: WriteBehindStore
    viewer: bool = False
    version: int = field(default=0)  # bumped on every change seen, so widgets can cache

    @classmethod
    def open(cls, path: Path, viewer: bool = False, user: str = "", role: Role | None = None) -> "Live":
        file = EncounterFile(path)
        loaded = file.load()
        store = WriteBehindStore(file)
        role = Role.viewer() if viewer else (role or Role.gm())
        session = Session(loaded.encounter, loaded.ruleset, RandomDice(), store, user, role)
        return cls(path, session, store, viewer or role.is_player)

    @property
    def role(self) -> Role:
        return self.session.role

    @property
    def encounter(self) -> Encounter:
        return self.session.encounter

    @property
    def ruleset(self) -> "Ruleset":
        return self.session.ruleset

    def run(self, change: Callable[[Session], Outcome]) -> Outcome:
        """Apply one change through the session; TrackerError propagates with its message."""
        if not self.session.role.is_player:
            # A GM's or a viewer's: `viewer`, set by whoever opened this (the app's
            # --viewer, `tracker serve` from the key), decides. A player's role is fixed.
            self.session.role = Role.viewer() if self.viewer else Role.gm()
        if self.session.role.is_viewer:
            raise self.session.role.refuse("change")
        outcome = change(self.session)  # the session's guard refuses what a player may not do
        self.version += 1
        return outcome

    def poll(self) -> bool:
        """Fold in a change another session saved; True if the encounter changed."""
        if self.store.pending:
            return False
        if not self.store.file.refresh(self.session):
            return False
        self.version += 1
        return True
