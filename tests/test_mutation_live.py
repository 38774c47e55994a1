"""Direct tests of tracker.play.live: the bridge between the screens and the session, with
no screen (module docstring; docs/decisions/0014-write-behind.md: changes applied in
memory at once, written by a thread, the lock held until every queued change is on
disk, a failed write drops the changes queued after it and says how many were lost and
up to which revision the file holds; docs/decisions/0048-follow-and-fan-out.md: a
follower thread probes the file for others' changes, `poll` applies them, and every
change seen goes to the listeners as one `Changed`).

Waits are on events the threads set (never a fixed sleep), each bounded by DEADLINE."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from rulesets.dice import RandomDice
from rulesets.freeform import FreeformRuleset
from tracker.engine import Encounter, Event, Resolution, RuleRefusal, TrackerError
from tracker.persistence import store as store_module
from tracker.persistence.library import library_path
from tracker.persistence.store import EncounterFile
from tracker.play.live import Changed, Follower, Live, WriteBehindStore
from tracker.play.session import Session
from tracker.reading.roles import Role
from tests.helpers import DEADLINE
from tests.test_save_failures import _session, fight  # noqa: F401 (fight: a fixture, Ann, Bo and a note, 3 events)

SEEN_BY_VIEWERS = "a viewer's session is read-only; changes are made by the GM"


def _on_disk(path: Path) -> int:
    return path.read_bytes().count(b"\n[[events]]\n")


class Gate:
    """Holds every write of the writer thread until opened; then each write runs, or
    fails with `failure` if set. Another session's writes go through at once."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.open = threading.Event()
        self.reached = threading.Event()
        self.failure: BaseException | None = None
        self.threads: list[threading.Thread] = []
        append = EncounterFile._append

        def held(file: EncounterFile, data: bytes, revision: int, count: int) -> None:
            if threading.current_thread().name != "save-writer":  # another app's session writes at once
                return append(file, data, revision, count)
            self.threads.append(threading.current_thread())
            self.reached.set()
            assert self.open.wait(DEADLINE), "the gate was never opened"
            if self.failure is not None:
                raise self.failure
            append(file, data, revision, count)

        monkeypatch.setattr(store_module.EncounterFile, "_append", held)


def _waited(event: threading.Event, what: str) -> None:
    assert event.wait(DEADLINE), f"timed out waiting for: {what}"


def _open_once_waiting(store: WriteBehindStore, worker: threading.Thread, gate: Gate) -> None:
    """Open the gate once `worker` waits on the store (or, if it did not wait, once it is
    over): the held write cannot land before `worker` goes on unless it waited for it."""
    waits = store._cond._waiters  # type: ignore[attr-defined]
    for _ in range(int(DEADLINE / 0.01)):
        if waits or not worker.is_alive():
            break
        worker.join(0.01)
    gate.open.set()
    worker.join(DEADLINE / 2)  # at once, not at the end of the wait's own 30-second bound
    assert not worker.is_alive()


class Hurried(threading.Condition):
    """A condition whose timed waits time out at once: a writer idle for its 5 seconds."""

    def wait(self, timeout: float | None = None) -> bool:
        return super().wait(None if timeout is None else min(timeout, 0.01))


# ------------------------------------------------------------------ the write-behind store
def test_flush_waits_until_the_queue_is_on_disk(fight: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gate = Gate(monkeypatch)
    live = Live.open(fight)
    reports: list[str] = []
    live.store.on_error = reports.append
    live.run(lambda s: s.execute("note one"))
    _waited(gate.reached, "the write")
    on_disk_then: list[int] = []
    flushing = threading.Thread(target=lambda: (live.store.flush(), on_disk_then.append(_on_disk(fight))))
    flushing.start()
    _open_once_waiting(live.store, flushing, gate)
    assert on_disk_then == [4] and not live.store.pending
    assert reports == []  # written well: the app hears nothing


def test_a_change_is_in_memory_at_once_and_on_disk_once_written(fight: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gate = Gate(monkeypatch)
    live = Live.open(fight)
    assert live.store.path == fight and not live.store.pending
    live.store.flush()  # nothing written yet: nothing to say
    live.run(lambda s: s.execute("note queued"))
    assert len(live.encounter.events) == 4  # in memory at once
    _waited(gate.reached, "the write to start")
    assert live.store.pending and _on_disk(fight) == 3
    writer = gate.threads[0]
    assert writer.name == "save-writer" and writer.daemon and writer is not threading.main_thread()
    gate.open.set()
    live.store.flush()
    assert not live.store.pending and _on_disk(fight) == 4
    assert EncounterFile(fight).load().encounter.log[-1].text.endswith("queued")


def test_a_writer_idle_for_its_time_ends_and_the_next_change_starts_another(fight: Path) -> None:
    live = Live.open(fight)
    live.store._cond = Hurried()
    live.run(lambda s: s.execute("note one"))
    live.store.flush()
    first = live.store._thread
    assert first is not None
    first.join(DEADLINE)
    assert not first.is_alive() and live.store._thread is None
    live.run(lambda s: s.execute("note two"))
    live.store.flush()
    assert _on_disk(fight) == 5 and live.store._thread is not first


def test_a_change_that_changes_nothing_queues_nothing_and_frees_the_lock(fight: Path) -> None:
    live = Live.open(fight)
    store = live.store
    with store.transaction(live.encounter, lambda enc: setattr(live.session, "encounter", enc)):
        pass
    assert not store.pending
    _session(fight).execute("note another app writes: the lock is free")
    assert _on_disk(fight) == 4


def test_the_lock_is_held_until_the_queue_is_written(fight: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gate = Gate(monkeypatch)
    live = Live.open(fight)
    live.run(lambda s: s.execute("note one"))
    live.run(lambda s: s.execute("note two"))  # queued behind the first, no lock of its own
    _waited(gate.reached, "the first write")
    assert live.store.pending
    gate.open.set()
    live.store.flush()
    assert _on_disk(fight) == 5 and not live.store.pending
    monkeypatch.undo()
    _session(fight).execute("note three")  # the lock was given back
    assert _on_disk(fight) == 6


@pytest.mark.parametrize(("changes", "said"), [(1, "the last change was"), (2, "the last 2 changes were"), (3, "the last 3 changes were")])
def test_a_failed_write_says_how_many_changes_were_lost(fight: Path, monkeypatch: pytest.MonkeyPatch, changes: int, said: str) -> None:
    gate = Gate(monkeypatch)
    gate.failure = OSError(28, "No space left on device")
    live = Live.open(fight)
    reports: list[str] = []
    told = threading.Event()
    live.store.on_error = lambda error: (reports.append(error), told.set())
    for n in range(changes):
        live.run(lambda s, n=n: s.execute(f"note {n}"))
    _waited(gate.reached, "the first write")
    gate.open.set()
    _waited(told, "the writer to report")
    message = (
        f"{fight}: {said} not saved: No space left on device; "
        "the file holds every change up to revision 3, and the fight goes back to it"
    )
    assert reports == [message] and live.store.save_error == message
    assert not live.store.pending  # the queue was dropped and the lock given back
    with pytest.raises(TrackerError) as caught:
        live.store.flush()
    assert str(caught.value) == message
    live.store.flush()  # said once
    assert _on_disk(fight) == 3
    assert len(gate.threads) == 1  # the changes queued after it were never written


def test_a_write_after_a_failed_one_clears_the_failure(fight: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gate = Gate(monkeypatch)
    gate.failure = OSError(28, "No space left on device")
    live = Live.open(fight)
    told = threading.Event()
    live.store.on_error = lambda error: told.set()
    live.run(lambda s: s.execute("note lost"))
    gate.open.set()
    _waited(told, "the writer to report")
    gate.failure = None
    assert live.poll() and len(live.encounter.events) == 3  # back to the file
    live.run(lambda s: s.execute("note kept"))
    live.store.flush()  # the last write went well: nothing to say
    assert live.store.save_error == "" and _on_disk(fight) == 4


def test_an_app_that_fails_to_hear_of_a_failure_leaves_the_writer_working(fight: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gate = Gate(monkeypatch)
    gate.failure = OSError(5, "Input/output error")
    live = Live.open(fight)
    told = threading.Event()

    def closing(error: str) -> None:
        told.set()
        raise RuntimeError("the app is closing")

    live.store.on_error = closing
    live.run(lambda s: s.execute("note lost"))
    gate.open.set()
    _waited(told, "the writer to report")
    with pytest.raises(TrackerError, match="the last change was not saved: Input/output error"):
        live.store.flush()
    gate.failure = None
    assert live.poll()
    live.run(lambda s: s.execute("note kept"))
    live.store.flush()
    assert _on_disk(fight) == 4


def test_a_change_failing_before_it_is_queued_waits_for_the_queue_then_reads_the_file(fight: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gate = Gate(monkeypatch)
    resolve = FreeformRuleset.resolve

    def careless(self: FreeformRuleset, request: Any, dice: Any) -> Resolution:
        done = resolve(self, request, dice)  # a value TOML cannot hold: the change cannot be encoded
        return Resolution(done.pt, done.success, done.margin, done.dice, done.summary, done.effects, done.order, {"reach": None})

    monkeypatch.setattr(FreeformRuleset, "resolve", careless)
    failing = threading.Event()
    on_disk_then: list[int] = []
    ahead, abandon = EncounterFile.ahead, EncounterFile.abandon

    def noticed(file: EncounterFile, encounter: Encounter, before: int) -> bool:
        failing.set()
        return ahead(file, encounter, before)

    def abandoning(file: EncounterFile, encounter: Encounter, before: int, error: BaseException) -> Any:
        on_disk_then.append(_on_disk(fight))
        return abandon(file, encounter, before, error)

    monkeypatch.setattr(store_module.EncounterFile, "ahead", noticed)
    monkeypatch.setattr(store_module.EncounterFile, "abandon", abandoning)
    live = Live.open(fight)
    live.run(lambda s: s.execute("note queued first"))
    _waited(gate.reached, "the first write")
    errors: list[BaseException] = []

    def declare() -> None:
        try:
            live.run(lambda s: s.execute("declare Ann strike target=Bo pt=3"))
        except BaseException as exc:  # noqa: BLE001 - looked at below
            errors.append(exc)

    worker = threading.Thread(target=declare)
    worker.start()
    _waited(failing, "the change to fail")
    _open_once_waiting(live.store, worker, gate)
    assert on_disk_then == [4]  # the queued change landed before the file was read again
    assert len(errors) == 1 and isinstance(errors[0], TrackerError)
    assert "the change (declare) was not saved" in str(errors[0]) and "up to revision 4" in str(errors[0])
    assert len(live.encounter.events) == 4 and not live.encounter.actions
    live.store.flush()


# ------------------------------------------------------------------ the follower
@pytest.fixture
def store(fight: Path) -> Iterator[WriteBehindStore]:
    file = EncounterFile(fight)
    file.load()
    yield WriteBehindStore(file)


def _follower(store: WriteBehindStore, *listeners: Callable[[], None]) -> Follower:
    follower = Follower(store, 3600.0)  # probes only when woken
    follower.listeners.extend(listeners)
    return follower


def test_a_follower_without_a_listener_has_none_and_runs_on_its_own_thread(store: WriteBehindStore) -> None:
    follower = Follower(store, 3600.0)
    try:
        assert follower.listeners == [] and follower.every == 3600.0 and follower.store is store
        assert follower.alive and follower._thread.name == "save-follower" and follower._thread.daemon
        assert follower.take() == (None, "")
        heard = threading.Event()
        with_one = Follower(store, 3600.0, heard.set)
        assert with_one.listeners == [heard.set]
        with_one.stop()
    finally:
        follower.stop()


def test_a_follower_finds_anothers_change_when_woken_and_hands_it_over_once(fight: Path, store: WriteBehindStore) -> None:
    heard = threading.Event()
    follower = _follower(store, heard.set)
    try:
        _session(fight).execute("note from afar")
        follower.wake()
        _waited(heard, "the follower to hear of the change")
        change, error = follower.take()
        assert error == "" and change is not None
        assert [e.kind for e in change.events] == ["note"]
        assert follower.take() == (None, "")
    finally:
        follower.stop()


def test_a_follower_probes_every_so_often_without_being_woken(fight: Path, store: WriteBehindStore) -> None:
    heard = threading.Event()
    follower = Follower(store, 0.01, heard.set)
    try:
        _session(fight).execute("note from afar")
        _waited(heard, "the follower's own probe")
        assert follower.take()[0] is not None
    finally:
        follower.stop()


def test_a_change_not_taken_is_announced_again(fight: Path, store: WriteBehindStore) -> None:
    calls: list[int] = []
    again = threading.Event()

    def heard() -> None:
        calls.append(1)
        if len(calls) == 2:
            again.set()

    follower = _follower(store, heard)
    try:
        _session(fight).execute("note from afar")
        follower.wake()
        while not calls:
            follower.wake()
            again.wait(0.01)
        follower.wake()
        _waited(again, "the change announced again")
        change, _ = follower.take()
        assert change is not None and [e.kind for e in change.events] == ["note"]
    finally:
        follower.stop()


@pytest.mark.parametrize(
    ("failure", "said"), [(TrackerError("fight.toml: cannot be read"), "fight.toml: cannot be read"), (ValueError("odd"), "ValueError: odd")]
)
def test_a_probe_that_fails_is_reported_not_fatal(store: WriteBehindStore, monkeypatch: pytest.MonkeyPatch, failure: Exception, said: str) -> None:
    def broken() -> None:
        raise failure

    monkeypatch.setattr(store.file, "probe", broken)
    heard = threading.Event()
    follower = _follower(store, heard.set)
    try:
        follower.wake()
        _waited(heard, "the follower to report")
        assert follower.take() == (None, said)
        assert follower.alive
    finally:
        follower.stop()


def test_a_listener_that_fails_does_not_keep_the_others_from_hearing(fight: Path, store: WriteBehindStore) -> None:
    heard = threading.Event()

    def closing() -> None:
        raise RuntimeError("that app is closing")

    follower = _follower(store, closing, heard.set)
    try:
        _session(fight).execute("note from afar")
        follower.wake()
        _waited(heard, "the second listener")
        assert follower.alive
    finally:
        follower.stop()


def test_a_stopped_follower_ends_and_one_inherited_through_a_fork_is_not_alive(store: WriteBehindStore) -> None:
    follower = _follower(store)
    assert follower.alive and follower.pid == os.getpid()
    follower.pid = os.getpid() + 1  # as a forked process sees it
    assert not follower.alive
    follower.pid = os.getpid()
    follower.stop()
    follower._thread.join(DEADLINE)
    assert not follower._thread.is_alive() and not follower.alive


def test_the_follower_says_nothing_of_this_sessions_own_writes_going_out(fight: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gate = Gate(monkeypatch)
    live = Live.open(fight)
    probes: list[int] = []
    probe = live.store.file.probe

    def counted() -> Any:
        probes.append(1)
        return probe()

    monkeypatch.setattr(live.store.file, "probe", counted)
    live.run(lambda s: s.execute("note ours"))
    _waited(gate.reached, "our write")
    heard = threading.Event()
    follower = _follower(live.store, heard.set)
    try:
        for _ in range(3):
            follower.wake()
            follower._stop.wait(0.01)
        assert probes == []  # pending: not probed
        gate.open.set()
        live.store.flush()
        _session(fight).execute("note from afar")
        follower.wake()  # ours are out: it looks again
        _waited(heard, "the follower to look again")
        change, _ = follower.take()
        assert change is not None and [e.kind for e in change.events] == ["note"]
    finally:
        follower.stop()


def test_a_change_not_taken_while_our_own_go_out_is_announced_at_each_probe(fight: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gate = Gate(monkeypatch)
    live = Live.open(fight)
    told: list[threading.Event] = [threading.Event() for _ in range(3)]
    count: list[int] = []

    def heard() -> None:
        count.append(1)
        told[min(len(count), 3) - 1].set()

    follower = _follower(live.store, heard)
    try:
        _session(fight).execute("note from afar")
        follower.wake()
        _waited(told[0], "the follower to hear of the change")
        live.run(lambda s: s.execute("note ours"))  # now our write goes out, and poll would leave it
        _waited(gate.reached, "our write")
        assert not live.poll()
        follower.wake()
        _waited(told[1], "the change announced again")
        follower.wake()
        _waited(told[2], "the change announced once more")
        gate.open.set()
        live.store.flush()
    finally:
        follower.stop()


# ------------------------------------------------------------------ Changed
def test_changed_only_when_nothing_but_those_kinds_were_appended() -> None:
    notes = (Event("note", {"text": "a"}), Event("note", {"text": "b"}))
    assert Changed(notes).only(frozenset({"note"}))
    assert Changed(()).only(frozenset({"note"}))
    assert not Changed((*notes, Event("damage", {})), False).only(frozenset({"note"}))
    assert not Changed(notes, True).only(frozenset({"note"}))
    assert Changed(notes).whole is False


# ------------------------------------------------------------------ Live
def test_a_gm_opens_a_fight_with_the_folders_library_and_random_dice(fight: Path) -> None:
    live = Live.open(fight, user="alice")
    assert live.path == fight and live.store.file.path == fight
    assert live.role == Role.gm() and live.seen_as == Role.gm() and not live.viewer
    assert live.session.user == "alice" and isinstance(live.session.dice, RandomDice)
    assert live.session.store is live.store
    assert live.session.sheet_library is not None and live.session.sheet_library.path == library_path(fight.parent, "freeform")
    assert live.ruleset.id == "freeform" and list(live.encounter.combatants) == ["Ann", "Bo"]
    assert live.coming is None and live.banner == "" and live.version == 0 and live.follower is None
    assert not live.as_viewer("Ann")
    unnamed = Live.open(fight)  # a script's or a test's: its changes are signed by nobody in particular
    unnamed.run(lambda s: s.execute("note unsigned"))
    assert unnamed.encounter.events[-1].by == ""
    unnamed.store.flush()


def test_a_viewer_and_a_player_open_it_as_a_viewer_sees_it(fight: Path) -> None:
    viewer = Live.open(fight, viewer=True, user="carol", role=Role.gm())
    assert viewer.role == Role.viewer() and viewer.viewer and viewer.seen_as == Role.viewer()
    assert viewer.as_viewer("Ann")
    ann = Role.player(["Ann"])
    player = Live.open(fight, user="bob", role=ann)
    assert player.role == ann and player.viewer and player.seen_as == ann
    assert not player.as_viewer("ann") and player.as_viewer("Bo")
    gm = Live.open(fight, viewer=False, role=None)
    assert gm.role == Role.gm() and not gm.viewer


def test_a_seat_decides_the_role_and_what_is_shown(fight: Path) -> None:
    live = Live.open(fight)
    live.seat(Role.viewer())
    assert live.role == Role.viewer() and live.viewer and live.seen_as == Role.viewer()
    live.seat(Role.player(["Bo"]))
    assert live.viewer and live.seen_as == Role.player(["Bo"])
    live.seat(Role.gm())
    assert not live.viewer and live.seen_as == Role.gm()
    live.viewer = True  # the GM's own app, showing the fight as viewers see it
    assert live.seen_as == Role.viewer() and live.as_viewer("Ann")


def test_a_viewers_change_is_refused_and_changes_nothing(fight: Path) -> None:
    viewer = Live.open(fight, viewer=True)
    ran: list[Session] = []
    with pytest.raises(RuleRefusal) as caught:
        viewer.run(lambda s: ran.append(s))  # type: ignore[func-returns-value]
    assert str(caught.value) == f"change: {SEEN_BY_VIEWERS} (rule: viewer)" and caught.value.rule == "viewer"
    assert ran == [] and viewer.version == 0


def test_every_change_run_is_told_to_the_listeners_once(fight: Path) -> None:
    live = Live.open(fight)
    heard: list[Changed] = []
    live.listeners.append(heard.append)
    outcome = live.run(lambda s: s.execute("note one"))
    assert outcome is not None and live.version == 1
    assert heard == [Changed((live.encounter.events[3],), False)]
    live.publish()  # nothing since: nothing said
    assert len(heard) == 1
    live.run(lambda s: s.execute("note two"))
    live.run(lambda s: s.execute("note three"))
    assert [c.events for c in heard[1:]] == [(live.encounter.events[4],), (live.encounter.events[5],)]
    assert live.version == 3
    live.store.flush()


def test_a_refused_change_bumps_no_version_but_tells_of_others_changes_it_brought_in(fight: Path) -> None:
    live = Live.open(fight)
    heard: list[Changed] = []
    live.listeners.append(heard.append)
    _session(fight).execute("note from afar")
    with pytest.raises(TrackerError, match="^there is already a combatant named 'Ann'"):
        live.run(lambda s: s.execute("add ann"))
    assert live.version == 0
    assert len(heard) == 1 and [e.kind for e in heard[0].events] == ["note"] and not heard[0].whole
    with pytest.raises(TrackerError):
        live.run(lambda s: s.execute("add ann"))
    assert len(heard) == 1  # nothing new: nothing said


def test_a_fight_read_again_is_told_whole(fight: Path) -> None:
    live = Live.open(fight)
    heard: list[Changed] = []
    live.listeners.append(heard.append)
    other = _session(fight).encounter  # another Encounter with the same events
    live.session.encounter = other
    live.publish()
    assert heard == [Changed(tuple(other.events), True)]
    live.publish()
    assert len(heard) == 1


def test_a_fight_that_lost_or_replaced_its_last_event_is_told_whole(fight: Path) -> None:
    live = Live.open(fight)
    heard: list[Changed] = []
    live.listeners.append(heard.append)
    events = live.encounter.events
    last = events[-1]
    events[-1] = Event(last.kind, dict(last.args), last.seq, last.by)  # as many, not the one told
    live.publish()
    assert heard == [Changed(tuple(events), True)]
    events.pop()
    live.publish()  # fewer events than were told
    assert heard[1] == Changed(tuple(events), True)
    live.publish()
    assert len(heard) == 2


def test_the_first_change_to_an_empty_fight_is_told_as_appended(tmp_path: Path) -> None:
    path = tmp_path / "empty.toml"
    EncounterFile.create(path, "empty", "freeform")
    live = Live.open(path)
    heard: list[Changed] = []
    live.listeners.append(heard.append)
    live.publish()
    assert heard == []
    live.run(lambda s: s.execute("add Ann"))
    assert heard == [Changed((live.encounter.events[0],), False)]
    live.store.flush()


def test_a_listener_may_stop_listening_while_hearing(fight: Path) -> None:
    live = Live.open(fight)
    heard: list[str] = []

    def once(change: Changed) -> None:
        heard.append("once")
        live.listeners.remove(once)

    live.listeners.extend([once, lambda change: heard.append("always")])
    live.run(lambda s: s.execute("note one"))
    assert heard == ["once", "always"]
    live.store.flush()


# ------------------------------------------------------------------ poll
def test_poll_without_a_follower_reads_the_file_itself(fight: Path) -> None:
    live = Live.open(fight)
    heard: list[Changed] = []
    live.listeners.append(heard.append)
    assert not live.poll() and live.version == 0
    _session(fight).execute("note from afar")
    assert live.poll() and live.version == 1
    assert live.encounter.log[-1].text.endswith("from afar")
    assert len(heard) == 1 and [e.kind for e in heard[0].events] == ["note"]
    assert not live.poll() and live.version == 1
    _session(fight).execute("note again")
    assert live.poll() and live.version == 2  # every change seen bumps it


def test_poll_takes_what_the_follower_read(fight: Path) -> None:
    live = Live.open(fight)
    heard = threading.Event()
    live.follow(3600.0, heard.set)
    try:
        assert not live.poll()
        _session(fight).execute("note from afar")
        live.look_now()
        _waited(heard, "the follower")
        assert live.poll() and live.version == 1 and live.encounter.log[-1].text.endswith("from afar")
        assert not live.poll()
    finally:
        live.close()


def test_poll_raises_what_the_follower_could_not_read(fight: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    live = Live.open(fight)
    heard = threading.Event()

    def broken() -> None:
        raise TrackerError("fight.toml: cannot be read")

    monkeypatch.setattr(live.store.file, "probe", broken)
    live.follow(3600.0, heard.set)
    try:
        live.look_now()
        _waited(heard, "the follower")
        with pytest.raises(TrackerError, match="^fight.toml: cannot be read$"):
            live.poll()
        assert live.version == 0
    finally:
        live.close()


def test_poll_leaves_others_changes_while_our_own_go_out(fight: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gate = Gate(monkeypatch)
    live = Live.open(fight)
    live.run(lambda s: s.execute("note ours"))
    _waited(gate.reached, "our write")
    assert not live.poll() and live.version == 1
    gate.open.set()
    live.store.flush()


def test_poll_after_a_fork_reads_the_file_itself(fight: Path) -> None:
    live = Live.open(fight)
    live.follow(3600.0, lambda: None)
    follower = live.follower
    assert follower is not None
    try:
        follower.pid = os.getpid() + 1  # the follower's thread is another process's
        _session(fight).execute("note from afar")
        assert live.poll() and live.follower is None
        assert live.encounter.log[-1].text.endswith("from afar")
    finally:
        follower.stop()


# ------------------------------------------------------------------ follow
def test_follow_starts_one_follower_for_every_app_showing_the_fight(fight: Path) -> None:
    live = Live.open(fight)

    def first() -> None: ...

    def second() -> None: ...

    live.follow(2.5, first)
    follower = live.follower
    assert follower is not None and follower.alive and follower.every == 2.5 and follower.listeners == [first]
    try:
        live.follow(1.0, second)
        live.follow(1.0, first)
        live.follow(1.0, None)
        assert live.follower is follower and follower.listeners == [first, second]
        live.unfollow(first)
        assert live.follower is follower and follower.listeners == [second]
        live.unfollow(first)  # not listening: nothing changes
        assert live.follower is follower and follower.listeners == [second]
        live.unfollow(second)
        assert live.follower is None and follower._stop.is_set()
    finally:
        follower.stop()


def test_follow_by_default_probes_often_and_with_no_listener(fight: Path) -> None:
    live = Live.open(fight)
    live.follow()
    follower = live.follower
    assert follower is not None
    try:
        assert follower.every == 0.05 and follower.listeners == []
        live.unfollow()  # nobody listens: it ends
        assert live.follower is None and follower._stop.is_set()
    finally:
        follower.stop()


def test_follow_again_after_the_follower_died_starts_a_new_one(fight: Path) -> None:
    live = Live.open(fight)

    def first() -> None: ...

    live.follow(3600.0, first)
    old = live.follower
    assert old is not None
    old.stop()
    old._thread.join(DEADLINE)
    live.follow(3600.0, first)
    try:
        assert live.follower is not None and live.follower is not old and live.follower.alive
    finally:
        live.close()
    assert live.follower is None


def test_unfollow_and_look_now_without_a_follower_do_nothing_harmful(fight: Path) -> None:
    live = Live.open(fight)
    live.look_now()
    live.unfollow(lambda: None)
    live.close()
    assert live.follower is None
