"""One encounter file on disk: load, create, follow, and change it safely with others.

Every change runs in `transaction`: take the sidecar lock, read what other sessions
appended since this one last read (only those bytes) and apply it, so the new event is
validated and applied on top of theirs; then append the new `[[events]]` tables and a
`# revision N` commit mark, fsync, and release the lock. The file is never rewritten
for a change, so a change costs the same on the first segment and the thousandth.
If the event is refused, nothing is written. A file that fails to load is never written.

Decisions: docs/decisions/0012-store-following.md
"""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tracker.engine import Encounter, Event, Setup, TrackerError
from tracker.persistence import codec, folder
from tracker.persistence.checks import SaveError
from tracker.persistence.codec import Loaded
from tracker.persistence.event_tables import events_from
from tracker.persistence.header import SCHEMA_VERSION
from tracker.persistence.folder import Refused, size_text
from tracker.persistence.lock import locked
from rulesets import registry

if TYPE_CHECKING:
    from rulesets.base import Ruleset

Install = Callable[[Encounter], None]
"""Told the encounter its caller must hold from now on (see `transaction`)."""


class _Handle:
    """An open file descriptor, closed when the last user lets go of it (a follower
    thread may still be reading through it when the session moves on to a new one)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.pid = os.getpid()
        st = os.fstat(fd)
        self.ident = (st.st_dev, st.st_ino)

    def valid(self) -> bool:
        """Still this process's descriptor on the same file? A process forked from ours
        (`tracker serve` forks its sessions) may have closed it, and reused the number."""
        try:
            st = os.fstat(self.fd)
        except OSError:
            return False
        return (st.st_dev, st.st_ino) == self.ident

    def __del__(self) -> None:
        # Only the process that opened it closes it: in a fork the number may already
        # have been closed and given to another file (even a new handle on this one).
        if os.getpid() == self.pid:
            try:
                os.close(self.fd)
            except OSError:
                pass


def refuse_if_read_only(path: Path) -> None:
    """`tracker serve` starts a viewer's app with TRACKER_READ_ONLY=1: even if a key
    binding slipped through the UI's viewer mode, nothing is written for a viewer."""
    if os.environ.get("TRACKER_READ_ONLY", "") not in ("", "0"):
        raise TrackerError(f"{path}: this is a read-only (viewer) session; changes are refused")


class RefusedSave(SaveError, Refused):
    """A save the tracker will not open: a link leading out of its folder, a FIFO, a
    device, or a file over the size limit (the start screen lists it as refused)."""


def _open_fd(path: Path, flags: int = os.O_RDONLY) -> int:
    """A descriptor of the save, opened through its folder (docs/decisions/0012-store-following.md)."""
    try:
        return folder.open_file(path, flags, limit=codec.MAX_SAVE_BYTES if flags == os.O_RDONLY else None, what="save")
    except Refused as exc:
        raise RefusedSave(str(exc)) from None
    except FileNotFoundError:
        raise SaveError(f"{path}: no such file") from None
    except OSError as exc:
        raise SaveError(f"{path}: cannot be {'read' if flags == os.O_RDONLY else 'written'}: {exc.strerror}") from None


def _open_save(path: Path) -> _Handle:
    return _Handle(_open_fd(path))


def _read_range(fd: int, start: int, size: int) -> bytes:
    parts, got = [], 0
    while got < size:
        part = folder.pread(fd, size - got, start + got)
        if not part:
            break
        parts.append(part)
        got += len(part)
    return b"".join(parts)


def _stat(path: Path) -> os.stat_result:
    """The save's own status (nothing is read): the entry itself, or for a link the file
    it leads to inside the folder (a link out is refused)."""
    st = os.lstat(path)  # the common case, one call: a save that is not a link
    if not stat.S_ISLNK(st.st_mode):
        return st
    try:
        found = folder.lstat(path)
    except Refused as exc:
        raise RefusedSave(str(exc)) from None
    if found is None:
        raise FileNotFoundError(path)
    return found


def reason(exc: BaseException) -> str:
    """Why something failed, for a message: the system's words, a refusal's, or the bug's type."""
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    if isinstance(exc, TrackerError):
        return str(exc)
    return f"internal error: {type(exc).__name__}: {exc}"


@dataclass
class Change:
    """What `probe` found on disk: the whole file again, or events appended after ours."""

    base: int  # the store's generation it was read against
    loaded: Loaded | None = None
    handle: _Handle | None = None
    events: list[Event] = field(default_factory=list)
    offset: int = 0
    seen: tuple[int, int] = (0, 0)
    revision: int = 0
    mark: bytes = b""  # the commit mark ending the bytes read


class EncounterFile:
    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.revision = -1
        self.house_rules = ""
        self.schema = SCHEMA_VERSION
        self._handle: _Handle | None = None
        self._offset = 0  # bytes up to and including the last commit mark read
        self._seen: tuple[int, int] = (-1, -1)  # (size, mtime_ns) at the last read
        self._count = 0  # events in the file up to _offset
        self._ruleset: Ruleset | None = None
        self._stale = True  # the next read must be a whole one
        self._generation = 0  # bumped whenever the reading state moves on
        self._mutex = threading.RLock()
        self._cleaned = False
        self._planned = -1  # the revision of the last change encoded (written or queued)
        self._planned_end = 0  # the file's size once every encoded change is written
        self._mark = b""  # the commit mark that ends the bytes read (_offset)

    @property
    def descriptor(self) -> int | None:
        """The descriptor the file is held open by since it was read (None before): a
        process forked from this one (`tracker serve`) inherits it, and may close it."""
        handle = self._handle
        return handle.fd if handle is not None else None

    # -------------------------------------------------------------- reading
    def read_text(self) -> str:
        handle = _open_save(self.path)
        data = self._read_whole(handle)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise SaveError(f"{self.path}: not UTF-8 text (byte {exc.start})") from None

    def _read_whole(self, handle: _Handle) -> bytes:
        try:
            return folder.read_fd(handle.fd, codec.MAX_SAVE_BYTES, self.path, "save")
        except Refused as exc:
            raise RefusedSave(str(exc)) from None
        except OSError as exc:
            raise SaveError(f"{self.path}: cannot be read: {exc.strerror}") from None

    def _read_file(self) -> Change:
        handle = _open_save(self.path)
        data = self._read_whole(handle)
        st = os.fstat(handle.fd)
        cut = codec.split(data)
        loaded = codec.load_bytes(cut, str(self.path), self.path.parent)
        return Change(self._generation, loaded, handle, offset=len(cut.committed), seen=(st.st_size, st.st_mtime_ns), revision=loaded.revision, mark=cut.mark)

    def load(self) -> Loaded:
        change = self._read_file()
        with self._mutex:
            self._install(change)
        assert change.loaded is not None
        return change.loaded

    def _install(self, change: Change) -> None:
        loaded = change.loaded
        if loaded is not None:
            self._handle = change.handle
            self._count = len(loaded.encounter.events)
            self.house_rules = loaded.house_rules
            self.schema = loaded.schema
            self._ruleset = loaded.ruleset
            self._stale = False
        else:
            self._count += len(change.events)
        self._offset, self._seen, self.revision = change.offset, change.seen, change.revision
        if change.mark:
            self._mark = change.mark
        self._generation += 1

    def changed_on_disk(self) -> bool:
        """True if the file is not the one this session last read or wrote, or grew."""
        handle = self._handle
        if handle is None or self._stale:
            return True
        try:
            st = _stat(self.path)
        except (OSError, TrackerError):
            return True
        if (st.st_dev, st.st_ino) != handle.ident:
            return True
        return (st.st_size, st.st_mtime_ns) != self._seen

    def probe(self) -> Change | None:
        """Read what changed on disk since the last read, without applying it (safe to
        call from a follower thread; `commit` applies it on the session's thread)."""
        with self._mutex:
            handle, offset, seen, count = self._handle, self._offset, self._seen, self._count
            stale, schema, ruleset, base = self._stale, self.schema, self._ruleset, self._generation
            revision = self.revision
        if handle is None or stale or ruleset is None or schema != SCHEMA_VERSION:
            return self._read_file() if (stale or handle is None or self.changed_on_disk()) else None
        try:
            st = _stat(self.path)
        except FileNotFoundError:
            raise SaveError(f"{self.path}: no such file (moved or deleted?)") from None
        except OSError as exc:
            raise SaveError(f"{self.path}: cannot be read: {exc.strerror}") from None
        if (st.st_dev, st.st_ino) != handle.ident or st.st_size < offset or st.st_size > codec.MAX_SAVE_BYTES:
            return self._read_file()  # replaced, cut short, or grown past the limit (refused there)
        if handle.pid != os.getpid() and not handle.valid():
            # Forked, and the descriptor closed: open the same file again and go on from
            # where the parent had read (the commit mark check below still guards it).
            try:
                fresh = _open_save(self.path)
            except SaveError:
                return self._read_file()
            if fresh.ident != handle.ident:
                return self._read_file()
            with self._mutex:
                if self._handle is handle:
                    self._handle = fresh
            handle = fresh
        if (st.st_size, st.st_mtime_ns) == seen:
            return None
        # The commit mark this session last read must still end where it did.
        mark = self._mark or f"# revision {revision}\n".encode()
        if _read_range(handle.fd, offset - len(mark), len(mark)) != mark:
            return self._read_file()
        tail = _read_range(handle.fd, offset, min(st.st_size, codec.MAX_SAVE_BYTES) - offset)
        cut = codec.split(tail, after=revision)
        if cut.revision is None:  # nothing whole yet: an append under way, or a torn tail
            return Change(base, offset=offset, seen=(st.st_size, st.st_mtime_ns), revision=revision)
        try:
            text = cut.committed.decode("utf-8")
            raws = codec.parse_events(text, str(self.path))
        except (UnicodeDecodeError, SaveError):
            return self._read_file()  # the whole file names the problem with its line
        if raws is None:
            return self._read_file()
        events = events_from(ruleset, raws, count, str(self.path))
        return Change(base, events=events, offset=offset + len(cut.committed), seen=(st.st_size, st.st_mtime_ns), revision=cut.revision, mark=cut.mark)

    def commit(self, encounter: Encounter, change: Change) -> Encounter | None:
        """Apply a probed change on top of `encounter` (the one this store last read or
        wrote): the encounter to hold from now on (a new one if the file was read whole,
        else `encounter` itself with the others' events replayed), or None if nothing
        changed or it was read against a state this store has since moved past (the next
        probe reads it again)."""
        with self._mutex:
            if change.base != self._generation:
                return None  # read against a state this store has since moved past
            if change.loaded is not None:
                self._install(change)
                return change.loaded.encounter
            try:
                codec.replay(encounter, change.events, str(self.path))
            except SaveError:
                self._stale = True  # read it whole next time (and refuse to write meanwhile)
                raise
            self._install(change)
            return encounter if change.events else None

    def refresh(self, encounter: Encounter) -> Encounter | None:
        """Fold in what others appended (or reload a replaced file): the encounter to
        hold from now on, or None if nothing changed (see `commit`)."""
        change = self.probe()
        if change is None:
            return None
        return self.commit(encounter, change)

    # -------------------------------------------------------------- writing
    @classmethod
    def create(cls, path: Path | str, name: str, ruleset_id: str, settings: dict[str, Any] | None = None) -> tuple["EncounterFile", Loaded]:
        ruleset = registry.get(ruleset_id)
        checked = ruleset.validate_settings(settings or {}, "settings")
        encounter = Encounter(Setup(name, ruleset_id, ruleset.time, ruleset.down_when, checked, []))
        store = cls._write_new(Path(path), encounter)
        store._ruleset = ruleset
        return store, Loaded(encounter, ruleset, 0, "")

    def duplicate(self, path: Path | str, name: str) -> "EncounterFile":
        """A copy of this encounter, log and all, under a new title, starting at revision 0."""
        loaded = EncounterFile(self.path).load()
        loaded.encounter.setup.name = name
        store = self._write_new(Path(path), loaded.encounter, loaded.house_rules)
        store._ruleset = loaded.ruleset
        return store

    @classmethod
    def _write_new(cls, path: Path, encounter: Encounter, house_rules: str = "") -> "EncounterFile":
        store = cls(path)
        store._refuse_if_read_only()
        store.house_rules = house_rules
        store.path.parent.mkdir(parents=True, exist_ok=True)
        # Every new file (a copy too) gets its own key for the players' app dice.
        import secrets  # here: opening a fight (every start) never makes a key

        encounter.setup.dice_key = secrets.token_hex(16)
        with locked(store.path, create=True):
            if folder.exists(store.path):
                raise TrackerError(f"{store.path}: already exists; choose another name or delete it first")
            store._write_whole(codec.dumps(encounter, 0, house_rules).encode("utf-8"), 0, len(encounter.events))
        return store

    def rewrite(self, encounter: Encounter) -> None:
        """Write the whole file for `encounter` at this store's revision (tools and
        benchmarks that build a fight in memory; a session never needs this)."""
        with locked(self.path, create=True):
            self._write_whole(codec.dumps(encounter, self.revision, self.house_rules).encode("utf-8"), self.revision, len(encounter.events))

    def _refuse_if_read_only(self) -> None:
        refuse_if_read_only(self.path)

    def _write_whole(self, data: bytes, revision: int, count: int) -> None:
        """Replace the file (lock held): creation and migration only."""
        self._refuse_if_read_only()
        folder.remove_temporaries(self.path)
        folder.replace(self.path, data, what="save")
        handle = _open_save(self.path)
        st = os.fstat(handle.fd)
        with self._mutex:
            self._handle, self._offset, self._seen = handle, len(data), (st.st_size, st.st_mtime_ns)
            self._count, self.revision, self.schema, self._stale = count, revision, SCHEMA_VERSION, False
            self._mark = codec.split(data).mark
            self._generation += 1

    def _append(self, data: bytes, revision: int, count: int) -> None:
        """Append one change after the last commit mark (lock held), cutting a torn tail."""
        self._refuse_if_read_only()
        handle = self._handle
        assert handle is not None
        fd = _open_fd(self.path, os.O_WRONLY)
        try:
            st = os.fstat(fd)
            if (st.st_dev, st.st_ino) != handle.ident:
                raise TrackerError(f"{self.path}: the file was replaced while it was locked; the change was not saved")
            if st.st_size != self._offset:
                os.ftruncate(fd, self._offset)  # a torn tail from a crashed writer
            written = 0
            while written < len(data):
                written += os.pwrite(fd, data[written:], self._offset + written)
            os.fsync(fd)
            st = os.fstat(fd)
        finally:
            os.close(fd)
        with self._mutex:
            self._offset += len(data)
            self._seen = (st.st_size, st.st_mtime_ns)
            self._count, self.revision = count, revision
            self._mark = codec.split(data).mark
            self._generation += 1

    def restore(self) -> Encounter:
        """Read the whole file again (lock held): the encounter as saved, to hold from now on."""
        change = self._read_file()
        with self._mutex:
            assert change.loaded is not None
            self._install(change)
        return change.loaded.encounter

    def abandon(self, encounter: Encounter, before: int, error: BaseException) -> tuple[BaseException, Encounter | None]:
        """A change to `encounter` failed (`error`) with the lock held, `before` being the
        number of events it had when the change began. If memory went ahead of the file,
        read the file again so memory is what is saved. Return the error to raise, saying
        what was and was not saved, and the encounter to hold from now on (None: keep
        `encounter`, nothing changed or the file could not be read again)."""
        if not self.ahead(encounter, before):
            return error, None  # refused before anything changed: memory and file as they were
        kinds = ", ".join(e.kind for e in encounter.events[before:])
        self._stale = True
        fresh, held = self.recover()
        if not isinstance(error, Exception):
            return error, fresh  # Ctrl+C and the like go on as they are, memory as saved
        what = f"the change ({kinds})" if kinds else "the change"
        return TrackerError(f"{self.path}: {what} was not saved: {reason(error)}; {held}"), fresh

    def ahead(self, encounter: Encounter, before: int) -> bool:
        """Whether memory (`encounter`) may hold events the file does not (after a
        failure): it gained events since `before`, or an earlier write failed."""
        return len(encounter.events) != before or self._stale

    def recover(self) -> tuple[Encounter | None, str]:
        """Read what the file holds after a change was not saved (lock held, or nobody
        writing for this store): the encounter to hold (None if the file could not be
        read) and what the file holds, in words."""
        try:
            fresh = self.restore()
        except Exception as exc:  # noqa: BLE001 - say so; the next change reads it again
            return None, f"the file could not be read again ({reason(exc)}), so nothing more is saved until it can be"
        return fresh, f"the file holds every change up to revision {self.revision}, and the fight is shown as saved there"

    def begin(self, encounter: Encounter) -> tuple[ExitStack, Encounter]:
        """Take the lock and fold in others' changes on top of `encounter`: the lock (the
        caller closes the stack, releasing it, once its write is on disk) and the
        encounter to change and hold from now on (`encounter`, or the file read whole)."""
        self._refuse_if_read_only()
        hold = ExitStack()
        hold.enter_context(locked(self.path))
        try:
            if not self._cleaned:
                folder.remove_temporaries(self.path)
                self._cleaned = True
            if self.changed_on_disk() or self._stale:
                change = self.probe()
                if change is not None:
                    encounter = self.commit(encounter, change) or encounter
            with self._mutex:
                self._planned, self._planned_end = self.revision, self._offset
        except BaseException:
            hold.close()
            raise
        return hold, encounter

    def prepare(self, encounter: Encounter, before: int) -> Callable[[], None] | None:
        """Encode the events `encounter` gained since `before` (lock held): a function that
        writes them (append, or a whole write for a first-format file), or None if there
        are none. Encoding happens now, on the caller's thread, so the write can run later
        on another thread while the caller moves on. Any failure raises (the caller then
        calls `abandon`)."""
        after = len(encounter.events)
        if after == before:
            return None
        if self._stale:
            raise TrackerError("an earlier change was not saved, so this one is not either")
        revision = self._planned + 1
        whole = self.schema != SCHEMA_VERSION
        try:
            data = codec.dumps(encounter, revision, self.house_rules) if whole else codec.chunk(encounter, before, revision)
            payload = data.encode("utf-8") if isinstance(data, str) else data
        except Exception as exc:
            raise TrackerError(f"it could not be written as TOML: {reason(exc)}") from exc
        end = len(payload) if whole else self._planned_end + len(payload)
        if end > codec.MAX_SAVE_BYTES:
            raise TrackerError(f"the save is full: this change would make it {size_text(end)}, over the limit of {size_text(codec.MAX_SAVE_BYTES)}; go on in a new encounter (tracker new NEXT --from {self.path.stem})")
        self._planned, self._planned_end = revision, end
        if whole:
            self.schema = SCHEMA_VERSION  # what the file will be once this is written

        def write() -> None:
            try:
                if self._stale:
                    raise TrackerError("an earlier change was not saved, so this one is not either")
                if whole:
                    self._write_whole(payload, revision, after)
                else:
                    self._append(payload, revision, after)
            except BaseException:
                # The event is in memory but not on disk: the next change (or the
                # follower) reads the file again, dropping it, instead of writing it
                # later behind everyone's back.
                self._stale = True
                raise

        return write

    @contextmanager
    def transaction(self, encounter: Encounter, install: Install, later: Callable[[Callable[[], None]], object] | None = None) -> Iterator[Encounter]:
        """Lock, fold in others' changes, let the body apply events, append them, unlock.

        `encounter` is the one the caller holds; `install` is told the encounter to hold
        from now on: once others' changes are folded in (before the body runs, it is also
        what the `with` yields) and again if the change fails after memory went ahead of
        the file (the file read again). The body changes the installed encounter.

        With `later`, the write (and the unlock) is handed to `later` to run soon after,
        still under the lock.
        """
        hold, encounter = self.begin(encounter)
        install(encounter)
        before = len(encounter.events)
        try:
            yield encounter
            write = self.prepare(encounter, before)
        except BaseException as exc:
            try:
                error, fresh = self.abandon(encounter, before, exc)
                if fresh is not None:
                    install(fresh)
            finally:
                hold.close()
            if error is exc:
                raise
            raise error from exc
        if write is None:
            hold.close()
            return

        def write_and_unlock() -> None:
            try:
                write()
            except BaseException as exc:
                error, fresh = self.abandon(encounter, before, exc)
                if fresh is not None:
                    install(fresh)
                if error is exc:
                    raise
                raise error from exc
            finally:
                hold.close()

        if later is None:
            write_and_unlock()
        else:
            later(write_and_unlock)
