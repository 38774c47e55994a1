"""The bridge between the screens and the session: one open encounter file.

`Live` owns the `Session` and its store. Every change goes through a Session method
inside `Live.run`, which turns a refused change (TrackerError / RuleRefusal) into a
message for the screen instead of an exception.

Decisions: docs/decisions/0014-write-behind.md,
docs/decisions/0048-follow-and-fan-out.md
"""

from __future__ import annotations

import os
import threading
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from tracker.engine import Encounter, Event, TrackerError
from tracker.persistence.library import Library
from tracker.persistence.store import Change, EncounterFile, reason
from tracker.reading.roles import Role
from tracker.play.session import Outcome, Session
from rulesets.dice import RandomDice

if TYPE_CHECKING:
    from rulesets.base import Ruleset


class WriteBehindStore:
    """The session's store: changes applied at once, written by a thread (see module doc)."""

    def __init__(self, file: EncounterFile) -> None:
        self.file = file
        self.on_error: Callable[[str], None] | None = None  # called on the writer thread
        self.save_error: str = ""
        self._cond = threading.Condition()
        self._queue: deque[Callable[[], None]] = deque()
        self._hold: ExitStack | None = None  # the sidecar lock while writes are queued
        self._busy = False  # the writer thread is writing
        self._in_change = False  # a transaction is between lock and queue
        self._thread: threading.Thread | None = None

    @property
    def path(self) -> Path:
        """The fight's file: what a campaign's `end` writes besides this store
        (tracker.play.session, `end_fight`), once `flush` has put every queued change on it."""
        return self.file.path

    @property
    def pending(self) -> bool:
        with self._cond:
            return bool(self._queue) or self._busy or self._hold is not None

    @contextmanager
    def transaction(self, encounter: Encounter, install: Callable[[Encounter], None]) -> Iterator[Encounter]:
        with self._cond:
            hold, self._in_change = self._hold, True
        try:
            fresh = hold is None
            if fresh:
                hold, encounter = self.file.begin(encounter)
                install(encounter)
            assert hold is not None
            before = len(encounter.events)
            try:
                yield encounter
                write = self.file.prepare(encounter, before)
            except BaseException as exc:
                error: BaseException = exc
                try:
                    if self.file.ahead(encounter, before):
                        # Memory went ahead of the file: let the changes queued before
                        # this one land (the lock is ours), then read the file again.
                        self._wait_idle()
                        error, restored = self.file.abandon(encounter, before, exc)
                        if restored is not None:
                            install(restored)
                finally:
                    if fresh:
                        hold.close()
                if error is exc:
                    raise
                raise error from exc
            with self._cond:
                if write is None:
                    if fresh:
                        hold.close()
                    return
                self._hold = hold
                self._queue.append(write)
                self._start()
                self._cond.notify_all()
        finally:
            with self._cond:
                self._in_change = False
                self._release_if_idle()
                self._cond.notify_all()

    def _wait_idle(self, timeout: float = 30.0) -> None:
        with self._cond:
            self._cond.wait_for(lambda: not self._queue and not self._busy, timeout=timeout)

    def _start(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._run, name="save-writer", daemon=True)
            self._thread.start()

    def _release_if_idle(self) -> None:
        # Called with _cond held.
        if self._hold is not None and not self._queue and not self._busy and not self._in_change:
            hold, self._hold = self._hold, None
            hold.close()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._queue:
                    if not self._cond.wait(timeout=5.0) and not self._queue:
                        self._thread = None
                        return
                write = self._queue.popleft()
                self._busy = True
            error = ""
            try:
                write()
            except BaseException as exc:  # noqa: BLE001 - a thread must report, not vanish
                error = reason(exc)
            with self._cond:
                self._busy = False
                if error:
                    lost = 1 + len(self._queue)
                    self._queue.clear()  # later changes were built on the unsaved one
                    # The follower (or the next change) reads the file again: the screen
                    # goes back to what is saved, and nothing is appended out of order.
                    error = (
                        f"{self.file.path}: {'the last change was' if lost == 1 else f'the last {lost} changes were'} not saved: {error}; "
                        f"the file holds every change up to revision {self.file.revision}, and the fight goes back to it"
                    )
                    self.save_error = error
                else:
                    self.save_error = ""
                self._release_if_idle()
                self._cond.notify_all()
            if error and self.on_error is not None:
                try:
                    self.on_error(error)
                except Exception:  # noqa: BLE001 - the app may be closing
                    pass

    def flush(self, timeout: float = 30.0) -> None:
        """Wait until every queued change is on disk; raise if the last write failed."""
        with self._cond:
            self._cond.wait_for(lambda: not self._queue and not self._busy, timeout=timeout)
            self._release_if_idle()
            error, self.save_error = self.save_error, ""
        if error:
            raise TrackerError(error)


class Follower:
    """A thread that probes the file for others' changes and keeps the latest for `poll`."""

    def __init__(self, store: WriteBehindStore, every: float = 0.1, notify: Callable[[], None] | None = None) -> None:
        self.store = store
        self.every = every
        # Called on this thread when something was found (see Live.follow): one per app
        # showing this encounter (several viewers' apps share one in tracker serve).
        self.listeners: list[Callable[[], None]] = [notify] if notify is not None else []
        self._found: Change | None = None
        self._error = ""
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._wake = threading.Event()
        self.pid = os.getpid()
        self._thread = threading.Thread(target=self._run, name="save-follower", daemon=True)
        self._thread.start()

    @property
    def alive(self) -> bool:
        """Running in this process (a fork inherits the object but not the thread)."""
        return self.pid == os.getpid() and self._thread.is_alive()

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self.every)
            self._wake.clear()
            if self._stop.is_set():
                return
            with self._lock:
                untaken = self._found is not None
            if untaken:
                # Not yet taken by the event loop (`poll` leaves a change while this
                # session's own writes go out): say so again, as nothing else will.
                self._tell()
                continue
            if self.store.pending:
                continue  # our own writes are going out; they are not news
            try:
                found = self.store.file.probe()
                error = ""
            except TrackerError as exc:
                found, error = None, str(exc)
            except Exception as exc:  # noqa: BLE001 - report, never kill the follower
                found, error = None, f"{type(exc).__name__}: {exc}"
            with self._lock:
                self._found, self._error = found, error
            if found is not None or error:
                self._tell()

    def _tell(self) -> None:
        for notify in list(self.listeners):
            with suppress(Exception):  # that app may be closing
                notify()

    def wake(self) -> None:
        """Probe now, not at the next tick: someone said the file changed."""
        self._wake.set()

    def take(self) -> tuple[Change | None, str]:
        with self._lock:
            found, error, self._found, self._error = self._found, self._error, None, ""
        return found, error

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()


@dataclass(frozen=True, slots=True)
class Changed:
    """One change as the panes hear of it (docs/decisions/0048-follow-and-fan-out.md)."""

    events: tuple[Event, ...]  # appended since the last Changed, oldest first
    whole: bool = False  # the encounter may differ beyond `events` (the file was read again)

    def only(self, kinds: frozenset[str]) -> bool:
        """Nothing changed but events of these kinds were appended."""
        return not self.whole and all(event.kind in kinds for event in self.events)


Listener = Callable[[Changed], None]


@dataclass
class Live:
    """An open encounter: its file, session and whether it is shown as a viewer sees it.

    `viewer` is what the screens show (hidden combatants and secret rolls left out): true
    for a viewer and for a player. What may be changed is the session's role
    (`session.role`, tracker.reading.roles), checked by the session's guard on every change."""

    path: Path
    session: Session
    store: WriteBehindStore
    viewer: bool = False
    version: int = field(default=0)  # bumped on every change seen, so widgets can cache
    follower: Follower | None = field(default=None, repr=False)
    # What widgets derive from the whole fight and then extend (the timeline's index of
    # actions by actor), kept with the encounter: a viewer forked from `tracker serve`
    # inherits it built instead of walking (and so copying) every action again.
    cache: dict[str, object] = field(default_factory=dict, repr=False)
    # Who hears of every change (`Changed`), on the event loop: the encounter screens
    # showing this encounter (several apps' in tracker serve's viewer host).
    listeners: list[Listener] = field(default_factory=list, repr=False)
    # A campaign's fight: the campaign's title, once read (the clock bar shows it).
    campaign_title: str = field(default="", repr=False)
    # What the last Changed reached: the encounter, its number of events and its last one.
    _mark: tuple[object, int, object] = field(default=(None, 0, None), init=False, repr=False)

    def __post_init__(self) -> None:
        self._mark = self._reached()

    def _reached(self) -> tuple[object, int, object]:
        events = self.encounter.events
        return (self.encounter, len(events), events[-1] if events else None)

    def publish(self) -> None:
        """Tell the listeners what changed since the last time (nothing: say nothing)."""
        encounter, count, last = self._mark
        events = self.encounter.events
        appended = encounter is self.encounter and len(events) >= count and (count == 0 or events[count - 1] is last)
        self._mark = self._reached()
        if appended and len(events) == count:
            return
        change = Changed(tuple(events[count:]), False) if appended else Changed(tuple(events), True)
        for listener in list(self.listeners):
            listener(change)

    @classmethod
    def open(cls, path: Path, viewer: bool = False, user: str = "", role: Role | None = None) -> "Live":
        file = EncounterFile(path)
        loaded = file.load()
        store = WriteBehindStore(file)
        role = Role.viewer() if viewer else (role or Role.gm())
        library = Library.in_folder(path.parent, loaded.encounter.setup.ruleset)
        session = Session(loaded.encounter, loaded.ruleset, RandomDice(), store, user, role, library)
        return cls(path, session, store, viewer or role.is_player)

    @property
    def role(self) -> Role:
        return self.session.role

    @property
    def seen_as(self) -> Role:
        """The role the screens offer commands to and filter for: a player's own role,
        else a viewer's or the GM's as `viewer` says."""
        if self.session.role.is_player:
            return self.session.role
        return Role.viewer() if self.viewer else Role.gm()

    def as_viewer(self, name: str) -> bool:
        """Whether combatant `name` is shown as a viewer sees it: a player sees their own
        combatants' sheets in full (hidden or not, figures exact)."""
        return self.viewer and not self.session.role.owns(name)

    @property
    def encounter(self) -> Encounter:
        return self.session.encounter

    @property
    def coming(self) -> int | None:
        """A segment the timeline marks as about to happen: a replay's next moment
        (tracker.ui.screens.replay); none while the fight is shown as it stands."""
        return None

    @property
    def banner(self) -> str:
        """What the clock bar says first ("replay 12/40 ..." in a replay; nothing live)."""
        return ""

    @property
    def ruleset(self) -> "Ruleset":
        return self.session.ruleset

    def seat(self, role: Role) -> None:
        """Who this is, decided once as the seat opens (the app's --viewer, `tracker
        serve` from the key, a player's combatants): what the session may change and
        what the screens show (a player sees what a viewer sees, and their own)."""
        self.session.role = role
        self.viewer = not role.is_gm

    def run(self, change: Callable[[Session], Outcome]) -> Outcome:
        """Apply one change through the session; TrackerError propagates with its message."""
        if self.session.role.is_viewer:
            raise self.session.role.refuse("change")
        try:
            outcome = change(self.session)  # the session's guard refuses what a player may not do
        finally:
            # A refused change may still have brought in others' changes (read under the
            # lock) or read the file again: the panes hear of whatever happened.
            self.publish()
        self.version += 1
        return outcome

    def follow(self, every: float = 0.05, notify: Callable[[], None] | None = None) -> None:
        """Probe the file on a thread from now on (the app calls this once mounted).

        `notify`, called on the follower's thread when it has read a change (and again
        at each probe until it is taken), is how the app hears of it: it then calls
        `poll` on its event loop."""
        if self.follower is None or not self.follower.alive:
            self.follower = Follower(self.store, every, notify)
        elif notify is not None and notify not in self.follower.listeners:
            self.follower.listeners.append(notify)  # another app on this encounter

    def unfollow(self, notify: Callable[[], None] | None = None) -> None:
        """An app stops showing this encounter; the follower ends with the last one."""
        follower = self.follower
        if follower is not None and notify in follower.listeners:
            follower.listeners.remove(notify)
        if follower is None or not follower.listeners:
            self.close()

    def look_now(self) -> None:
        """The file was written (tracker serve's viewers' processes hear it from the
        server as the write lands): the follower reads it now instead of at its next probe."""
        follower = self.follower
        if follower is not None:
            follower.wake()

    def close(self) -> None:
        if self.follower is not None:
            self.follower.stop()
            self.follower = None

    def poll(self) -> bool:
        """Fold in a change another session saved; True if the encounter changed.

        With a follower thread this only applies what it already read; without one (a
        script, a test) it reads the file here."""
        if self.store.pending:
            return False
        if self.follower is not None and not self.follower.alive:
            self.follower = None  # inherited through a fork: read the file here instead
        if self.follower is not None:
            change, error = self.follower.take()
            if error:
                raise TrackerError(error)
            found = self.store.file.commit(self.session.encounter, change) if change is not None else None
        else:
            found = self.store.file.refresh(self.session.encounter)
        if found is None:
            return False
        self.session.encounter = found
        self.version += 1
        self.publish()
        return True
