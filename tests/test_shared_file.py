"""Several sessions on one encounter file: nothing lost, refusals write nothing, changes seen.

These run real separate processes (the `tracker play` command, and multiprocessing
workers each with its own Session and EncounterFile), because the lock and the reload
only matter between processes.
"""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tracker.engine import TrackerError
from tracker.persistence import store as store_module
from tracker.persistence.store import EncounterFile
from tracker.play.session import Session
from rulesets.dice import RandomDice
from tests.helpers import DEADLINE, refresh

ROOT = Path(__file__).resolve().parent.parent
CHANGES = 200


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.pop("TRACKER_READ_ONLY", None)
    return env


def _new(path: Path, roster: str = "") -> None:
    EncounterFile.create(path, "Shared fight", "freeform")
    if roster:
        _session(path).execute(roster)


def _session(path: Path) -> Session:
    store = EncounterFile(path)
    loaded = store.load()
    return Session(loaded.encounter, loaded.ruleset, RandomDice(1), store)


def test_two_gm_processes_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "fight.toml"
    _new(path, "add Seraph hp=1000")
    scripts = []
    for gm in ("gm1", "gm2"):
        script = tmp_path / f"{gm}.txt"
        script.write_text("".join(f"note {gm} change {i}\n" for i in range(1, CHANGES + 1)))
        scripts.append(script)
    procs = [
        subprocess.Popen([sys.executable, "-m", "tracker", "play", str(path), "--script", str(s)], env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        for s in scripts
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
    loaded = EncounterFile(path).load()
    notes = [e.args["text"] for e in loaded.encounter.events if e.kind == "note"]
    assert len(notes) == 2 * CHANGES
    for gm in ("gm1", "gm2"):
        # Each GM's changes are all there, in the order that GM made them.
        assert [n for n in notes if n.startswith(gm)] == [f"{gm} change {i}" for i in range(1, CHANGES + 1)]
    # create writes revision 0, the roster line 1, then one write per change.
    assert loaded.revision == 1 + 2 * CHANGES
    assert [e.seq for e in loaded.encounter.events] == list(range(1, 2 + 2 * CHANGES))
    check = subprocess.run([sys.executable, "-m", "tracker", "check", str(path)], env=_env(), capture_output=True, text=True, timeout=30)
    assert check.returncode == 0 and "ok" in check.stdout


def _damage_worker(path: str, name: str, count: int, start: "multiprocessing.synchronize.Barrier", out: "multiprocessing.Queue[int]") -> None:
    session = _session(Path(path))
    start.wait()
    writes = 0
    for _ in range(count):
        session.damage(name, 1)
        writes += 1
    out.put(writes)


def test_two_gm_workers_damage_concurrently(tmp_path: Path) -> None:
    path = tmp_path / "fight.toml"
    _new(path, "add Sphinx hp=1000")
    ctx = multiprocessing.get_context("spawn")  # a fresh interpreter each: no shared state
    barrier = ctx.Barrier(2)
    out: multiprocessing.Queue[int] = ctx.Queue()
    workers = [ctx.Process(target=_damage_worker, args=(str(path), "Sphinx", CHANGES, barrier, out)) for _ in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=60)
        assert w.exitcode == 0
    assert out.get(timeout=5) + out.get(timeout=5) == 2 * CHANGES
    loaded = EncounterFile(path).load()
    damage = [e for e in loaded.encounter.events if e.kind == "damage"]
    assert len(damage) == 2 * CHANGES
    assert loaded.encounter.combatant("Sphinx").resources["hp"] == 1000 - 2 * CHANGES
    assert loaded.revision == 1 + 2 * CHANGES


def test_refused_change_says_why_and_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "fight.toml"
    _new(path, "add Seraph hp=10")
    before = path.read_bytes()
    session = _session(path)
    with pytest.raises(TrackerError, match="Nobody"):
        session.damage("Nobody", 3)
    with pytest.raises(TrackerError, match="nothing to redo"):
        session.redo()
    assert path.read_bytes() == before
    assert session.store is not None and EncounterFile(path).load().revision == 1

    # Refused against a change another session made meanwhile: the refusal is judged on
    # the fresh state, and the other session's file is left exactly as it wrote it.
    other = _session(path)
    other.execute("remove Seraph")
    theirs = path.read_bytes()
    with pytest.raises(TrackerError, match="Seraph"):
        session.damage("Seraph", 1)
    assert path.read_bytes() == theirs
    assert "Seraph" not in session.encounter.combatants  # the refusing session caught up

    # The same through the command: exit 1, a message naming the line, file untouched.
    result = subprocess.run(
        [sys.executable, "-m", "tracker", "play", str(path)], input="damage Ghost 4\n", env=_env(), capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 1
    assert "line 1" in result.stderr and "Ghost" in result.stderr and "Traceback" not in result.stderr
    assert path.read_bytes() == theirs


def test_other_sessions_change_is_seen_within_half_a_second(tmp_path: Path) -> None:
    path = tmp_path / "fight.toml"
    _new(path, "add Seraph hp=10")
    watcher = _session(path)
    assert watcher.store is not None
    store = watcher.store
    assert isinstance(store, EncounterFile) and not store.changed_on_disk()

    # The writer is another process; the moment it has written is the file's new mtime
    # as reported by it (stdout), taken right after its write returned.
    code = (
        "import sys, time; sys.path.insert(0, sys.argv[2]);"
        "from tracker.persistence.store import EncounterFile; from tracker.play.session import Session;"
        "s = EncounterFile(sys.argv[1]); l = s.load(); Session(l.encounter, l.ruleset, None, s).damage('Seraph', 4);"
        "print(time.time(), flush=True)"
    )
    writer = subprocess.Popen([sys.executable, "-c", code, str(path), str(ROOT)], env=_env(), stdout=subprocess.PIPE, text=True)
    deadline = time.monotonic() + DEADLINE
    seen_at = None
    while time.monotonic() < deadline:
        if store.changed_on_disk():
            seen_at = time.time()
            break
        time.sleep(0.02)  # a UI polls a few times a second; this is a tighter poll
    out, _ = writer.communicate(timeout=20)
    assert seen_at is not None, "the change never showed"
    written_at = float(out.split()[-1])
    # seen_at can precede the writer's own report (it prints after writing); what must
    # not happen is seeing it long after.
    assert seen_at - written_at < 0.5
    assert refresh(watcher)
    assert watcher.encounter.combatant("Seraph").resources["hp"] == 6
    assert not store.changed_on_disk()


def test_replaced_file_with_the_same_size_and_time_is_still_a_change(tmp_path: Path) -> None:
    # A coarse filesystem clock and an equal size can make a replaced file look unchanged;
    # the session holds its file open, so the inode cannot be reused and still differs.
    path = tmp_path / "fight.toml"
    _new(path, "add Seraph hp=10")
    watcher = _session(path)
    store = watcher.store
    assert isinstance(store, EncounterFile)
    other = tmp_path / "other.toml"
    _new(other, "add Seraph hp=12")  # another fight, as long to the byte
    seen = os.stat(path)
    assert os.stat(other).st_size == seen.st_size
    os.utime(other, ns=(seen.st_atime_ns, seen.st_mtime_ns))  # the collision: the same time too
    os.replace(other, path)
    assert (os.stat(path).st_size, os.stat(path).st_mtime_ns) == (seen.st_size, seen.st_mtime_ns)
    assert store.changed_on_disk()
    watcher.damage("Seraph", 2)  # must reload first, not write over the other change
    loaded = EncounterFile(path).load()
    assert loaded.encounter.combatant("Seraph").resources["hp"] == 10
    assert loaded.revision == 2


def test_follower_reads_only_what_was_appended(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "fight.toml"
    _new(path, "add Seraph hp=10")
    watcher, gm = _session(path), _session(path)
    store = watcher.store
    assert isinstance(store, EncounterFile)
    size = path.stat().st_size
    gm.damage("Seraph", 3)
    reads: list[tuple[int, int]] = []
    real = store_module._read_range

    def spy(fd: int, start: int, length: int) -> bytes:
        reads.append((start, length))
        return real(fd, start, length)

    monkeypatch.setattr(store_module, "_read_range", spy)
    monkeypatch.setattr(store_module.EncounterFile, "_read_file", lambda self: pytest.fail("whole reload"))
    assert refresh(watcher)
    assert watcher.encounter.combatant("Seraph").resources["hp"] == 7
    # The commit mark before the new bytes, then exactly the appended bytes.
    assert max(length for _, length in reads) == path.stat().st_size - size
    assert all(start >= size - 20 for start, _ in reads)
    assert not refresh(watcher)


def test_failed_write_is_reported_and_never_written_later(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "fight.toml"
    _new(path, "add Seraph hp=10")
    session = _session(path)

    def disk_full(self: EncounterFile, data: bytes, revision: int, count: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(store_module.EncounterFile, "_append", disk_full)
    with pytest.raises(TrackerError, match="not saved: No space left"):
        session.damage("Seraph", 5)
    monkeypatch.undo()
    session.damage("Seraph", 1)
    loaded = EncounterFile(path).load()
    # The unsaved 5 points are gone (the session reloaded), the next change is kept.
    assert loaded.encounter.combatant("Seraph").resources["hp"] == 9
    assert loaded.revision == 2


def test_read_only_session_refuses_to_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "fight.toml"
    _new(path, "add Seraph hp=10")
    before = path.read_bytes()
    session = _session(path)
    monkeypatch.setenv("TRACKER_READ_ONLY", "1")
    with pytest.raises(TrackerError, match="read-only"):
        session.damage("Seraph", 5)
    assert path.read_bytes() == before
    assert session.encounter.combatant("Seraph").resources["hp"] == 10
