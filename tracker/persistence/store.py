"""One encounter file on disk: load, create, and change it safely with others.

Every change runs in `transaction`: take the sidecar lock, and if the file moved on
since this session last read it (another GM's change), reload it first, so the new
event is validated and applied on top of theirs; then write the whole file atomically
with the revision bumped, and release the lock. If the event is refused, nothing is
written. A file that fails to load is never written over.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tracker.engine import Encounter, Setup, TrackerError
from tracker.persistence import codec
from tracker.persistence.atomic import atomic_write
from tracker.persistence.codec import Loaded, SaveError
from tracker.persistence.lock import locked
from rulesets import registry

if TYPE_CHECKING:
    from tracker.session import Session


def _stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def _head_revision(path: Path) -> int | None:
    """The `revision = N` line near the top of a save (codec writes it second), or None."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(512)
    except OSError:
        return None
    for line in head.splitlines()[:8]:
        key, eq, value = line.partition(b"=")
        if eq and key.strip() == b"revision":
            try:
                return int(value.strip())
            except ValueError:
                return None
    return None


class EncounterFile:
    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.revision = -1
        self.house_rules = ""
        self._stamp: tuple[int, int, int] | None = None

    # -------------------------------------------------------------- reading
    def read_text(self) -> str:
        try:
            return self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise SaveError(f"{self.path}: no such file") from None
        except UnicodeDecodeError as exc:
            raise SaveError(f"{self.path}: not UTF-8 text (byte {exc.start})") from None
        except OSError as exc:
            raise SaveError(f"{self.path}: cannot be read: {exc.strerror}") from None

    def load(self) -> Loaded:
        stamp = _stamp(self.path)
        loaded = codec.loads(self.read_text(), str(self.path), self.path.parent)
        self.revision = loaded.revision
        self.house_rules = loaded.house_rules
        self._stamp = stamp
        return loaded

    def changed_on_disk(self) -> bool:
        """True if the file is not the one this session last read or wrote.

        The (mtime, size, inode) stamp alone can be fooled: the filesystem clock is
        coarse (a few ms), an atomic replace frees the old inode for reuse, and two
        revisions can have the same size; so an unchanged stamp is confirmed by the
        revision written at the head of the file (a cheap read of a few hundred bytes).
        """
        if _stamp(self.path) != self._stamp:
            return True
        return _head_revision(self.path) != self.revision

    # -------------------------------------------------------------- writing
    @classmethod
    def create(cls, path: Path | str, name: str, ruleset_id: str, settings: dict[str, Any] | None = None) -> tuple["EncounterFile", Loaded]:
        ruleset = registry.get(ruleset_id)
        checked = ruleset.validate_settings(settings or {}, "settings")
        encounter = Encounter(Setup(name, ruleset_id, ruleset.time, ruleset.down_when, checked, []))
        return cls._write_new(Path(path), encounter), Loaded(encounter, ruleset, 0, "")

    def duplicate(self, path: Path | str, name: str) -> "EncounterFile":
        """A copy of this encounter, log and all, under a new title, starting at revision 0."""
        loaded = self.load()
        loaded.encounter.setup.name = name
        return self._write_new(Path(path), loaded.encounter, loaded.house_rules)

    @classmethod
    def _write_new(cls, path: Path, encounter: Encounter, house_rules: str = "") -> "EncounterFile":
        store = cls(path)
        store.house_rules = house_rules
        store.path.parent.mkdir(parents=True, exist_ok=True)
        with locked(store.path):
            if store.path.exists():
                raise TrackerError(f"{store.path}: already exists; choose another name or delete it first")
            store.revision = 0
            store._write(encounter)
        return store

    def _refuse_if_read_only(self) -> None:
        # `tracker serve` starts a viewer's app with TRACKER_READ_ONLY=1: even if a key
        # binding slipped through the UI's viewer mode, nothing is written for a viewer.
        if os.environ.get("TRACKER_READ_ONLY", "") not in ("", "0"):
            raise TrackerError(f"{self.path}: this is a read-only (viewer) session; changes are refused")

    def _write(self, encounter: Encounter) -> None:
        self._refuse_if_read_only()
        text = codec.dumps(encounter, self.revision, self.house_rules)
        atomic_write(self.path, text.encode("utf-8"))
        self._stamp = _stamp(self.path)

    @contextmanager
    def transaction(self, session: "Session", later: Callable[[Callable[[], None]], object] | None = None) -> Iterator[None]:
        """Lock, fold in others' changes, let the body apply one event, write, unlock.

        With `later`, the write (and the unlock) is handed to `later` to run soon after,
        still under the lock: the UI uses it to draw the change before encoding the file.
        """
        self._refuse_if_read_only()
        hold = ExitStack()
        hold.enter_context(locked(self.path))
        try:
            if self.changed_on_disk():
                loaded = self.load()
                session.encounter = loaded.encounter
            before = len(session.encounter.events)
            yield
        except BaseException:
            hold.close()
            raise
        if len(session.encounter.events) == before:
            hold.close()
            return
        self.revision += 1
        encounter = session.encounter

        def write() -> None:
            try:
                self._write(encounter)
            except OSError as exc:
                # The event is in memory but not on disk: forget the stamp so the
                # next change reloads the file (dropping the unsaved event) instead
                # of writing it later behind everyone's back.
                self._stamp = None
                raise TrackerError(f"{self.path}: the change was not saved: {exc.strerror or exc}") from None
            except BaseException:
                self._stamp = None
                raise
            finally:
                hold.close()

        if later is None:
            write()
        else:
            later(write)

    def refresh(self, session: "Session") -> bool:
        """Reload into `session` if someone else changed the file; True if it did."""
        if not self.changed_on_disk():
            return False
        loaded = self.load()
        session.encounter = loaded.encounter
        return True
