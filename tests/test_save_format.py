"""The append-only save (docs/contributing/design.md#saves): migration of the first format, commit marks and torn
tails, followers that read only what is new, the lock sidecar, house rules, limits."""

from __future__ import annotations

from tests.helpers import shipped_fights

import copy
import datetime
import functools
import multiprocessing
import os
import shutil
import signal
import stat
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tracker.reading import report
from tracker.engine import TrackerError
from tracker.persistence import codec
from tracker.persistence import store as store_module
from tracker.persistence.checks import SaveError
from tracker.persistence.event_tables import read_event, read_event_checked
from tracker.persistence.lock import lock_path
from tracker.persistence.store import EncounterFile
from tracker.play.session import Session
from rulesets.dice import RandomDice
from tests.helpers import cli, refresh
from tests.ui import post_keys, press, settle, wait_for

FIRST = Path(__file__).resolve().parent / "data" / "first-format.toml"


def _session(path: Path) -> Session:
    store = EncounterFile(path)
    loaded = store.load()
    return Session(loaded.encounter, loaded.ruleset, RandomDice(1), store)


def _new(path: Path, *lines: str) -> Session:
    EncounterFile.create(path, "fight", "freeform")
    session = _session(path)
    for line in lines:
        session.execute(line)
    return session


def test_a_change_appends_and_never_rewrites(tmp_path: Path) -> None:
    path = tmp_path / "fight.toml"
    session = _new(path, "add Ann hp=12")
    before = path.read_bytes()
    inode = path.stat().st_ino
    session.execute("note hello there")
    after = path.read_bytes()
    assert after.startswith(before) and path.stat().st_ino == inode
    added = after[len(before):].decode()
    assert added.startswith("\n[[events]]\nseq = 2\nkind = \"note\"") and added.endswith("#   hello there\n# revision 2\n")
    # tomllib reads the whole file; the log replays to the same state.
    assert len(tomllib.loads(after.decode())["events"]) == 2
    assert EncounterFile(path).load().encounter.log[-1].text == "hello there"


def test_first_format_opens_unchanged_and_is_migrated_on_its_first_write(tmp_path: Path) -> None:
    path = tmp_path / "old.toml"
    shutil.copy(FIRST, path)
    original = path.read_bytes()
    assert b"schema_version = 1" in original
    loaded = EncounterFile(path).load()
    assert loaded.schema == 1 and loaded.revision == 16
    assert cli("check", str(path))[0] == 0 and cli("show", str(path))[0] == 0
    assert path.read_bytes() == original  # reading never writes
    state = report.to_json(loaded.encounter)
    session = _session(path)
    session.execute("note migrated")
    text = path.read_text()
    assert "schema_version = 2" in text and text.endswith("# revision 17\n") and "[state]" not in text
    again = EncounterFile(path).load()
    assert again.schema == 2 and again.revision == 17
    assert report.to_json(again.encounter)["log"][:-1] == state["log"]
    session.execute("note appended")
    assert path.read_text().startswith(text) and EncounterFile(path).load().revision == 18


def test_torn_tail_is_never_parsed_and_is_cut_by_the_next_write(tmp_path: Path) -> None:
    path = tmp_path / "fight.toml"
    session = _new(path, "add Ann hp=12", "damage Ann 2")
    whole = path.read_bytes()
    # A crash mid-append: half a change, no commit mark (and even bad TOML).
    torn = b'\n[[events]]\nseq = 3\nkind = "note"\ntext = "half a wri'
    with open(path, "ab") as handle:
        handle.write(torn)
    loaded = EncounterFile(path).load()
    assert loaded.revision == 2 and loaded.encounter.combatant("Ann").resources["hp"] == 10
    assert cli("check", str(path))[0] == 0
    other = _session(path)
    other.execute("damage Ann 1")
    text = path.read_bytes()
    assert text.startswith(whole) and torn not in text and text.endswith(b"# revision 3\n")
    assert EncounterFile(path).load().encounter.combatant("Ann").resources["hp"] == 9
    # The first session folds that change in before its own.
    session.execute("damage Ann 1")
    assert EncounterFile(path).load().encounter.combatant("Ann").resources["hp"] == 8


def test_a_follower_never_applies_half_a_change(tmp_path: Path) -> None:
    path = tmp_path / "fight.toml"
    _new(path, "add Ann hp=12")
    watcher = _session(path)
    gm = _session(path)
    size = path.stat().st_size
    gm.execute("damage Ann 5")
    full = path.read_bytes()
    change = full[size:]
    for cut in range(1, len(change)):
        with open(path, "r+b") as handle:
            handle.truncate(size + cut)
        assert not refresh(watcher)
        assert watcher.encounter.combatant("Ann").resources["hp"] == 12
    path.write_bytes(full)
    assert refresh(watcher)
    assert watcher.encounter.combatant("Ann").resources["hp"] == 7


def _append_then_die(path: str, conn: "multiprocessing.connection.Connection") -> None:
    """Make changes, reporting each acknowledged revision; on the fifth, write half of the
    append, say so, and wait to be killed."""
    session = _session(Path(path))
    real = os.pwrite
    count = {"n": 0}

    def half(fd: int, data: bytes, offset: int) -> int:
        count["n"] += 1
        if count["n"] == 5:
            real(fd, data[: len(data) // 2], offset)
            conn.send("torn")
            signal.pause()
        return real(fd, data, offset)

    store_module.os.pwrite = half  # type: ignore[attr-defined]
    for i in range(10):
        session.execute(f"note change {i}")
        conn.send(session.store.revision)  # type: ignore[union-attr]


@pytest.mark.slow
def test_sigkill_in_the_middle_of_an_append_loses_no_acknowledged_change(tmp_path: Path) -> None:
    path = tmp_path / "fight.toml"
    _new(path)
    ctx = multiprocessing.get_context("fork")
    parent, child_end = ctx.Pipe()
    child = ctx.Process(target=_append_then_die, args=(str(path), child_end))
    child.start()
    acknowledged = []
    while True:
        message = parent.recv()
        if message == "torn":
            break
        acknowledged.append(message)
    os.kill(child.pid, signal.SIGKILL)
    child.join()
    assert acknowledged == [1, 2, 3, 4]
    data = path.read_bytes()
    assert not data.endswith(b"# revision 4\n")  # half a change is on disk
    loaded = EncounterFile(path).load()
    assert loaded.revision == 4 and [e.args["text"] for e in loaded.encounter.events] == [f"change {i}" for i in range(4)]
    assert not list(tmp_path.glob(".fight.toml.*.tmp"))
    _session(path).execute("note after the crash")
    loaded = EncounterFile(path).load()
    assert loaded.revision == 5 and loaded.encounter.events[-1].args["text"] == "after the crash"


def test_a_save_edited_on_windows_loads_and_takes_changes(tmp_path: Path) -> None:
    path = tmp_path / "fight.toml"
    _new(path, "add Ann hp=12", "damage Ann 2", "note crlf")
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    loaded = EncounterFile(path).load()
    assert loaded.revision == 3 and loaded.encounter.combatant("Ann").resources["hp"] == 10
    assert cli("check", str(path))[0] == 0
    # A follower that read the CRLF file reads only what is appended after it.
    follower = _session(path)
    _session(path).execute("damage Ann 1")
    assert refresh(follower) and follower.encounter.combatant("Ann").resources["hp"] == 9
    follower.execute("damage Ann 1")
    data = path.read_bytes()
    assert tomllib.loads(data.decode())["events"][-1]["seq"] == 5
    assert EncounterFile(path).load().encounter.combatant("Ann").resources["hp"] == 8


@pytest.mark.parametrize("end", [b"", b"\r"])
def test_a_last_line_without_its_newline_still_loads(tmp_path: Path, end: bytes) -> None:
    path = tmp_path / "fight.toml"
    _new(path, "add Ann hp=12", "damage Ann 2")
    assert path.read_bytes().endswith(b"# revision 2\n")
    path.write_bytes(path.read_bytes()[:-1] + end)  # an editor dropped the final newline
    loaded = EncounterFile(path).load()
    assert loaded.revision == 2 and loaded.encounter.combatant("Ann").resources["hp"] == 10
    _session(path).execute("damage Ann 1")
    assert EncounterFile(path).load().encounter.combatant("Ann").resources["hp"] == 9


@pytest.mark.parametrize("cut", [b"# revision 1", b"# revision ", b"# revision 12"])
def test_an_append_torn_inside_its_commit_mark_is_still_caught(tmp_path: Path, cut: bytes) -> None:
    """A crash can stop an append anywhere, even inside `# revision 12`: what is left
    (`# revision 1`) is below the mark before it, so it is not taken as one; the whole
    mark without its newline is the change, complete."""
    path = tmp_path / "fight.toml"
    session = _new(path, "add Ann hp=100", *["damage Ann 1"] * 10)
    assert path.read_bytes().endswith(b"# revision 11\n")
    whole = path.read_bytes()
    change = b'\n[[events]]\nseq = 12\nkind = "damage"\ntarget = "Ann"\namount = 5\nresource = "hp"\n'
    path.write_bytes(whole + change + cut)
    loaded = EncounterFile(path).load()
    complete = cut == b"# revision 12"
    assert loaded.revision == (12 if complete else 11)
    assert loaded.encounter.combatant("Ann").resources["hp"] == (85 if complete else 90)
    # A follower holding revision 11 reads the same from the appended bytes alone.
    assert refresh(session) is complete
    _session(path).execute("damage Ann 1")
    final = EncounterFile(path).load()
    assert final.revision == (13 if complete else 12)
    assert final.encounter.combatant("Ann").resources["hp"] == (84 if complete else 89)


def test_orphan_temporary_files_are_removed(tmp_path: Path) -> None:
    path = tmp_path / "fight.toml"
    session = _new(path)
    orphan = tmp_path / ".fight.toml.abc123.tmp"
    orphan.write_text("half a file")
    unrelated = tmp_path / ".other.toml.abc123.tmp"
    unrelated.write_text("someone else's")
    session.store = EncounterFile(path)
    session.store.load()
    session.execute("note x")
    assert not orphan.exists() and unrelated.exists()


@pytest.mark.parametrize(
    ("save_mode", "lock_mode"),
    [
        (0o664, 0o660),  # the user guide's shared table: the group writes, others read
        (0o644, 0o600),  # shared read-only: only the owner writes, so only the owner locks
        (0o640, 0o600),
        (0o666, 0o666),  # anyone may write it: anyone may lock it
        (0o600, 0o600),
        (0o6777, 0o666),  # planted setuid and setgid: never passed on
    ],
)
def test_only_accounts_that_may_write_the_save_can_open_its_lock_whatever_the_umask(tmp_path: Path, save_mode: int, lock_mode: int) -> None:
    # flock works on a read-only descriptor: a lock file its readers could open is one
    # they could hold, and every writer would wait on them (docs/decisions/0031-sidecar-lock.md).
    path = tmp_path / "fight.toml"
    session = _new(path)
    lock = lock_path(path)
    os.unlink(lock)
    os.chmod(path, save_mode)
    old = os.umask(0o077)
    try:
        session.execute("note shared")
    finally:
        os.umask(old)
    st, saved = os.stat(lock), os.stat(path)
    assert stat.S_IMODE(st.st_mode) == lock_mode and st.st_gid == saved.st_gid
    # A lock file others could open (an older version gave it the save's mode) is replaced,
    # while held, by a new one: a descriptor a reader kept of the old one locks nothing.
    os.chmod(lock, 0o664 | save_mode & 0o7000)
    before = os.stat(lock).st_ino
    session.execute("note still fine")
    st = os.stat(lock)
    assert stat.S_IMODE(st.st_mode) == lock_mode and (st.st_ino != before) == (lock_mode & 0o066 != 0o066 or save_mode & 0o7000 != 0)
    assert not list(tmp_path.glob(".*.tmp"))


def test_a_new_saves_lock_follows_the_umask_the_save_gets(tmp_path: Path) -> None:
    for umask, save_mode, lock_mode in ((0o002, 0o664, 0o660), (0o022, 0o644, 0o600), (0o077, 0o600, 0o600)):
        old = os.umask(umask)
        try:
            path = tmp_path / f"fight-{umask:o}.toml"
            _new(path)
        finally:
            os.umask(old)
        assert (stat.S_IMODE(os.stat(path).st_mode), stat.S_IMODE(os.stat(lock_path(path)).st_mode)) == (save_mode, lock_mode)


def test_a_symlinked_lock_file_is_refused_and_never_followed(tmp_path: Path) -> None:
    path = tmp_path / "fight.toml"
    session = _new(path)
    lock = lock_path(path)
    os.unlink(lock)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.symlink(elsewhere / "planted", lock)
    before = path.read_bytes()
    with pytest.raises(TrackerError, match="lock file is a symbolic link"):
        session.execute("note x")
    assert not (elsewhere / "planted").exists() and path.read_bytes() == before


def test_a_symlinked_save_is_written_through_to_its_target(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    target = shared / "fight.toml"
    _new(target, "add Ann hp=12")
    link = tmp_path / "mine.toml"
    os.symlink(target, link)
    session = _session(link)
    session.execute("damage Ann 3")
    assert link.is_symlink() and EncounterFile(target).load().encounter.combatant("Ann").resources["hp"] == 9
    assert lock_path(link) == shared / "fight.toml.lock"
    # A first-format file behind a link is migrated in place at its target.
    shutil.copy(FIRST, target)
    session = _session(link)
    session.execute("note migrated")
    assert link.is_symlink() and "schema_version = 2" in target.read_text()


@pytest.mark.parametrize(
    ("rules", "expected"),
    [
        ("/dev/zero", "expected a path relative to the save's folder"),
        ("../rules.toml", "no '..'"),
        ("sub/../../rules.toml", "no '..'"),
        ("missing.toml", "file not found"),
        ("dir", "expected a regular house rules file, found a folder"),
        ("outside.toml", "is a symbolic link leading outside"),
        ("big.toml", "(1 MB) are refused before they are read"),
        ("fifo", "expected a regular house rules file, found a FIFO"),
    ],
)
def test_house_rules_must_be_a_small_regular_file_in_the_saves_folder(tmp_path: Path, rules: str, expected: str) -> None:
    folder = tmp_path / "saves"
    folder.mkdir()
    path = folder / "fight.toml"
    _new(path, "add Ann hp=12")
    (folder / "dir").mkdir()
    (tmp_path / "rules.toml").write_text("")
    os.symlink(tmp_path / "rules.toml", folder / "outside.toml")
    (folder / "big.toml").write_text("# x\n" * 300_000)
    os.mkfifo(folder / "fifo")
    text = path.read_text().replace('ruleset = "freeform"\n', f'ruleset = "freeform"\nhouse_rules = "{rules}"\n')
    path.write_text(text)
    with pytest.raises(SaveError, match="house_rules") as error:
        EncounterFile(path).load()
    assert expected in str(error.value)
    assert cli("check", str(path))[0] == 1


def test_house_rules_beside_the_save_still_work(tmp_path: Path) -> None:
    path = tmp_path / "fight.toml"
    _new(path, "add Ann hp=12")
    (tmp_path / "house").mkdir()
    (tmp_path / "house" / "rules.toml").write_text("")
    path.write_text(path.read_text().replace('ruleset = "freeform"\n', 'ruleset = "freeform"\nhouse_rules = "house/rules.toml"\n'))
    assert EncounterFile(path).load().house_rules == "house/rules.toml"


def test_nesting_the_compiled_reader_refuses_and_tomllib_reads_is_held_to_the_same_limit(tmp_path: Path) -> None:
    """codec.parse: "The compiled reader stops at about 80 levels; hold tomllib's answer
    to the same limit": a value 100 lists deep (over MAX_DEPTH, 64) is refused by name
    when tomllib, not the compiled reader, read it."""
    path = tmp_path / "fight.toml"
    _new(path, "add Ann hp=12")
    text = path.read_text()
    path.write_text(text.replace("# revision 2\n", "") + "[[events]]\nseq = 2\nkind = \"set\"\ntarget = \"Ann\"\nkey = \"x\"\nvalue = " + "[" * 100 + "]" * 100 + "\n# revision 3\n")
    with pytest.raises(SaveError, match="nested deeper than 64 levels"):
        EncounterFile(path).load()


def test_deep_nesting_and_big_files_get_named_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "fight.toml"
    _new(path, "add Ann hp=12")
    text = path.read_text()
    deep = text.replace("# revision 2\n", "") + "[[events]]\nseq = 2\nkind = \"set\"\ntarget = \"Ann\"\nkey = \"x\"\nvalue = " + "[" * 5000 + "]" * 5000 + "\n# revision 3\n"
    path.write_text(deep)
    with pytest.raises(SaveError, match="nested deeper than"):
        EncounterFile(path).load()
    path.write_text(text)
    monkeypatch.setattr(codec, "MAX_SAVE_BYTES", 100)
    with pytest.raises(SaveError, match="saves over 0 MB are refused|bytes; saves over"):
        EncounterFile(path).load()


@pytest.mark.parametrize("value", ["99999999999999999999", "-9223372036854775809", "nan", "inf"])
def test_numbers_toml_cannot_hold_are_refused_on_reading(tmp_path: Path, value: str) -> None:
    path = tmp_path / "fight.toml"
    _new(path, "add Ann hp=12", "damage Ann 2")
    path.write_text(path.read_text().replace("amount = 2", f"amount = {value}"))
    with pytest.raises(SaveError, match="amount: expected a finite number"):
        EncounterFile(path).load()


def test_numbers_toml_cannot_hold_are_never_written(tmp_path: Path) -> None:
    path = tmp_path / "fight.toml"
    session = _new(path, "add Ann hp=12")
    before = path.read_bytes()
    with pytest.raises(TrackerError):
        session.execute("set Ann hp 99999999999999999999")
    assert path.read_bytes() == before
    # The session reloads the file before its next change: nothing unsaved survives.
    session.execute("damage Ann 1")
    assert EncounterFile(path).load().encounter.combatant("Ann").resources["hp"] == 11


def test_two_writers_interleave_appends_in_one_order(tmp_path: Path) -> None:
    path = tmp_path / "fight.toml"
    _new(path, "add Ann hp=100")
    a, b = _session(path), _session(path)
    for i in range(20):
        (a if i % 2 else b).execute("damage Ann 1")
    loaded = EncounterFile(path).load()
    assert loaded.revision == 21 and loaded.encounter.combatant("Ann").resources["hp"] == 80
    assert [e.seq for e in loaded.encounter.events] == list(range(1, 22))


def test_undo_and_redo_from_checkpoints_match_a_full_replay(monkeypatch: pytest.MonkeyPatch) -> None:
    """Undo restores the nearest checkpoint and replays the rest; the result must equal
    folding the effective events from scratch, at every depth, through redo too."""
    import random

    from tracker.engine import Encounter, Event
    from tracker.engine import checkpoints
    from tests.helpers import encounter as make

    monkeypatch.setattr(checkpoints, "CHECKPOINT_EVERY", 3)
    rng = random.Random(7)
    enc = make("Ann", "Bo", "Cy", hp=500)
    for step in range(120):
        roll = rng.random()
        if roll < 0.25 and enc.can_undo():
            enc.apply(Event("undo", {}))
        elif roll < 0.35 and enc.can_redo():
            enc.apply(Event("redo", {}))
        elif roll < 0.6:
            enc.apply(Event("damage", {"target": rng.choice(sorted(enc.combatants)), "amount": rng.randint(1, 5), "resource": "hp"}))
        elif roll < 0.7:
            from tracker.engine.effects import Damage
            from tests.helpers import declare

            actor, target = rng.sample(sorted(enc.combatants), 2)
            try:
                declare(enc, actor, "hit", rng.randint(1, 4), rng.choice(["active", "passive"]), effects=(Damage(target, 2, "hp"),), targets=(target,))
            except TrackerError:
                pass  # refused by a rule: nothing changed
        elif roll < 0.72:
            # A rename rewrites earlier actions and log lines: checkpoints before it go.
            old = rng.choice(sorted(enc.combatants))
            try:
                enc.apply(Event("rename", {"target": old, "name": old + "x" if len(old) < 6 else old[:2]}))
            except TrackerError:
                pass  # the new name is taken
        elif roll < 0.8:
            enc.apply(Event("condition", {"target": rng.choice(sorted(enc.combatants)), "name": f"c{step}", "duration": rng.randint(1, 4)}))
        else:
            enc.apply(Event("advance", {"to": enc.now + rng.randint(1, 3)}))
        # The effective changes folded from scratch, with no undo anywhere.
        fresh = Encounter(enc.setup, [Event(e.kind, dict(e.args)) for e in enc.effective_events()])
        mine, theirs = report.to_json(enc), report.to_json(fresh)
        assert mine["combatants"] == theirs["combatants"] and mine["segment"] == theirs["segment"], step
        assert mine["actions"] == theirs["actions"], step
        assert [e.text for e in enc.log] == [e.text for e in fresh.log], step
        assert enc.upcoming() == fresh.upcoming() and enc.next_happening() == fresh.next_happening()


@pytest.mark.ui
async def test_the_app_never_waits_on_the_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the disk stalled, changes are still applied and drawn at once, queued behind
    each other under the one lock, and all reach the file, in order, once it moves."""
    import threading

    from tracker.ui.app import TrackerApp

    path = tmp_path / "fight.toml"
    _new(path, "add Ann hp=12")
    stall = threading.Event()
    real = store_module.EncounterFile._append

    def slow(self: EncounterFile, data: bytes, revision: int, count: int) -> None:
        assert stall.wait(10), "the disk never moved"
        real(self, data, revision, count)

    monkeypatch.setattr(store_module.EncounterFile, "_append", slow)
    app = TrackerApp(tmp_path, path, user="gm")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        live = app.screen.live  # type: ignore[attr-defined]
        post_keys(app, ["full_stop"] * 3)  # no `press`: it would wait for the stalled disk
        await wait_for(pilot, lambda: live.encounter.now == 3 and "segment 3" in str(app.screen.query_one("#clock").render()), "three steps handled and shown")
        assert live.store.pending  # handled, not yet on disk
        assert EncounterFile(path).load().encounter.now == 0
        stall.set()
        await press(pilot, "q")
    loaded = EncounterFile(path).load()
    assert loaded.encounter.now == 3 and loaded.revision == 4


def _forked_follower(path: str, fd: int, conn: "multiprocessing.connection.Connection") -> None:
    """A child like `tracker serve` makes: it inherits an open Live, its descriptors
    closed (and one reused), and must still follow the file."""

    live = _LIVE[0]
    os.close(fd)
    os.open(path, os.O_RDONLY)  # takes the closed number: same file, a new descriptor
    live.follow(0.02)
    conn.send("ready")
    for _ in range(250):
        if live.poll():
            conn.send(live.encounter.log[-1].text)
            return
        import time

        time.sleep(0.02)
    conn.send("never saw it")


_LIVE: list[object] = []


def test_a_forked_session_follows_with_its_own_descriptor_and_thread(tmp_path: Path) -> None:
    from tracker.play.live import Live

    path = tmp_path / "fight.toml"
    _new(path, "add Ann hp=12")
    live = Live.open(path, viewer=True)
    live.follow(0.02)  # the parent's follower thread does not cross the fork
    _LIVE[:] = [live]
    descriptor = live.store.file.descriptor
    assert descriptor is not None
    ctx = multiprocessing.get_context("fork")
    parent, child_end = ctx.Pipe()
    child = ctx.Process(target=_forked_follower, args=(str(path), descriptor, child_end))
    child.start()
    assert parent.recv() == "ready"
    _session(path).execute("note the sphinx roars")
    assert parent.recv() == "the sphinx roars"
    child.join()
    live.close()


# ------------------------------------------------------------------ opening fast
# Opening a long fight checks each event through a fast path that builds no message;
# anything it does not pass at a glance goes through the general check. The two must
# accept and refuse exactly the same events, with the same words.
SHIPPED = Path(__file__).resolve().parent.parent / "saves"


@functools.lru_cache(maxsize=1)
def _shipped_events() -> list[tuple[str, dict]]:
    out = []
    for path in shipped_fights():
        doc = tomllib.loads(path.read_text())
        out.extend((doc["ruleset"], raw) for raw in doc.get("events", []))
    return out


def _outcome(fn, *args):  # type: ignore[no-untyped-def]
    try:
        return ("ok", fn(*args))
    except SaveError as exc:
        return ("refused", str(exc))


def _both(ruleset_id: str, raw: dict, index: int) -> None:
    from rulesets import registry

    ruleset = registry.get(ruleset_id)
    fast = _outcome(read_event, ruleset, copy.deepcopy(raw), index, "f.toml")
    slow = _outcome(read_event_checked, ruleset, copy.deepcopy(raw), index, f"f.toml: events[{index}]")
    assert fast == slow


ODD_VALUES = [
    None, True, 0, -1, 2**70, 1.5, float("nan"), float("inf"), "x", "", [], {}, [1, "a"], ["a"], [2**70], {"kind": "zap"}, [{"kind": "zap"}],
    [{"kind": "damage", "target": "A", "amount": 1, "resource": "hp", "colour": 1}], {"a": float("nan")}, datetime.date(2020, 1, 1),
]


def test_fast_and_general_event_checks_agree_on_every_shipped_event() -> None:
    events = _shipped_events()
    assert sum(1 for _, raw in events if raw.get("resolution", {}).get("effects")) >= 5  # effects and details covered
    for ruleset_id, raw in events:
        _both(ruleset_id, raw, raw["seq"] - 1)
        _both(ruleset_id, raw, raw["seq"])  # out of order


@settings(max_examples=int(os.environ.get("FAST_CHECK_EXAMPLES", "300")), deadline=None)
@given(st.data())
def test_fast_and_general_event_checks_agree_on_damaged_events(data: st.DataObject) -> None:
    events = _shipped_events()
    ruleset_id, raw = data.draw(st.sampled_from(events))
    raw = copy.deepcopy(raw)
    # Damage one place: a key of the event, of its resolution, or of a nested table.
    tables = [raw] + [raw[k] for k in ("resolution",) if isinstance(raw.get(k), dict)]
    res = raw.get("resolution")
    if isinstance(res, dict):
        tables += [e for e in res.get("effects", []) if isinstance(e, dict)]
        if isinstance(res.get("details"), dict):
            tables.append(res["details"])
    table = data.draw(st.sampled_from(tables))
    key = data.draw(st.sampled_from(sorted(table) + ["extra", "pt", "seq", "kind", "by", "margin", "effects", "stats"]))
    if data.draw(st.booleans()) and key in table:
        del table[key]
    else:
        table[key] = data.draw(st.sampled_from(ODD_VALUES))
    _both(ruleset_id, raw, raw.get("seq", 1) - 1 if isinstance(raw.get("seq"), int) and not isinstance(raw.get("seq"), bool) else 0)


@pytest.mark.parametrize("enabled", [True, False])
def test_opening_leaves_the_garbage_collector_as_it_found_it(tmp_path: Path, enabled: bool) -> None:
    import gc

    path = tmp_path / "fight.toml"
    _new(path, "add Ann hp=12", "note hello")
    bad = tmp_path / "bad.toml"
    bad.write_text(path.read_text().replace('kind = "note"', 'kind = "nonsense"'))
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        assert EncounterFile(path).load().encounter.log[-1].text == "hello"
        assert gc.isenabled() is enabled
        with pytest.raises(SaveError, match=r"events\[1\]\.kind"):
            EncounterFile(bad).load()
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()


def test_a_kind_that_is_not_text_is_refused_by_name(tmp_path: Path) -> None:
    # A hand-edited `kind = []` (an event's or an effect's) once escaped as a TypeError.
    path = tmp_path / "fight.toml"
    _new(path, "add Ann hp=12", "note hello")
    bad = tmp_path / "bad.toml"
    bad.write_text(path.read_text().replace('kind = "note"', "kind = []"))
    with pytest.raises(SaveError, match=r"bad\.toml: events\[1\]\.kind: expected an event kind, got \[\]"):
        EncounterFile(bad).load()
    effect = tmp_path / "effect.toml"
    effect.write_text(path.read_text().replace('kind = "note"\ntext = "hello"', 'kind = "declare"\nactor = "Ann"\ntemplate = "hit"\nmode = "active"\nresolution = { pt = 2, effects = [{ kind = [] }] }'))
    with pytest.raises(SaveError, match=r"effects\[0\]\.kind: expected one of"):
        EncounterFile(effect).load()
