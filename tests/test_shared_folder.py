"""A saves folder shared with a group cannot be turned against the GM (docs/guide/threat-model.md;
tracker.persistence.folder).

A member of the group can put anything in the folder: a symbolic link named like a save,
a library, a lock, an export's temporary file or an example, leading to the GM's private
files; a FIFO where a file is read; a device; a file of gigabytes. Each test plants one
and checks that the GM's process neither writes nor reads through it, nor blocks on it:
the target is untouched, the refusal names the file and why. Every operation that could
block runs under `within`, which fails (rather than hangs) past the suite's deadline.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tracker.persistence import config, paths
from tracker.ui import settings
from tracker.engine import TrackerError
from tracker.persistence import codec, folder
from tracker.persistence.header import SCHEMA_VERSION
from tracker.persistence.folder import Refused
from tracker.persistence.lock import locked
from tracker.persistence.library import Library
from tracker.persistence.store import EncounterFile, RefusedSave
from tracker.play.session import Session
from rulesets.dice import RandomDice
from tests.helpers import DEADLINE, cli

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "saves" / "seraph-vs-sphinx.toml"
SECRET = "echo the GM's own login script\n"


def within(action: Callable[[], Any], unblock: Path | None = None) -> Any:
    """Run `action`, failing (not hanging) if it has not returned by the deadline: a FIFO
    opened without O_NONBLOCK blocks until someone opens its other end, which `unblock`
    does on the way out so the stuck thread ends."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = action()
        except BaseException as exc:  # noqa: BLE001 - handed to the test's thread
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(DEADLINE)
    if thread.is_alive():
        if unblock is not None:
            for flags in (os.O_RDONLY | os.O_NONBLOCK, os.O_WRONLY | os.O_NONBLOCK):
                try:
                    os.close(os.open(unblock, flags))
                except OSError:
                    pass
        raise AssertionError(f"blocked for {DEADLINE:g}s (on {unblock})")
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


@pytest.fixture
def table(tmp_path: Path) -> Path:
    folder_ = tmp_path / "table"
    folder_.mkdir()
    return folder_


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """The GM's private files, outside the shared folder."""
    place = tmp_path / "gm-home"
    place.mkdir()
    (place / ".bash_login").write_text(SECRET)
    (place / ".ssh").mkdir()
    return place


def _session(path: Path) -> Session:
    store = EncounterFile(path)
    loaded = store.load()
    return Session(loaded.encounter, loaded.ruleset, RandomDice(1), store, library=Library.in_folder(path.parent, loaded.encounter.setup.ruleset))


def _fight(table: Path, *lines: str) -> Path:
    path = table / "fight.toml"
    EncounterFile.create(path, "fight", "freeform")
    session = _session(path)
    for line in lines or ("add Ann hp=12", "add Bo hp=9"):
        session.execute(line)
    return path


# ---------------------------------------------------------------- links, per written file
@pytest.mark.parametrize("target", [".bash_login", ".ssh/rc"])
def test_a_library_linked_out_of_the_folder_is_never_written_nor_read(table: Path, home: Path, target: str) -> None:
    session = _session(_fight(table))
    library = table / "library-freeform.toml"
    os.symlink(home / target, library)
    for line in ("library save Ann", "library add Ann", "library"):
        with pytest.raises(Refused, match=r"library-freeform\.toml: is a symbolic link leading outside .* never read or written"):
            session.execute(line)
    assert library.is_symlink() and (home / ".bash_login").read_text() == SECRET
    assert not (home / ".ssh" / "rc").exists() and not list(home.glob("*.lock")) and not list(home.glob(".*.tmp"))


def test_a_library_linked_inside_the_folder_is_written_there(table: Path) -> None:
    session = _session(_fight(table))
    (table / "sheets").mkdir()
    os.symlink("sheets/monsters.toml", table / "library-freeform.toml")
    session.execute("library save Ann as=Hero")
    assert (table / "library-freeform.toml").is_symlink()
    assert "[sheets.Hero" in (table / "sheets" / "monsters.toml").read_text()
    session.execute("library add Hero Cleo")
    assert "Cleo" in session.encounter.combatants


def test_a_save_turned_into_a_link_is_refused_and_nothing_is_made_beside_its_target(table: Path, home: Path) -> None:
    path = _fight(table)
    session = _session(path)
    private = home / "private.toml"
    shutil.copy(path, private)  # a save-shaped private file: the worst case, it would load
    before = private.read_bytes()
    os.unlink(path)
    os.symlink(private, path)
    with pytest.raises(Refused, match=r"fight\.toml: is a symbolic link leading outside"):
        session.execute("note through the link")
    with pytest.raises(RefusedSave, match="symbolic link leading outside"):
        EncounterFile(path).load()
    assert private.read_bytes() == before
    assert sorted(p.name for p in home.iterdir()) == [".bash_login", ".ssh", "private.toml"]  # no private.toml.lock


def test_a_link_planted_at_the_lock_is_refused(table: Path, home: Path) -> None:
    path = _fight(table)
    session = _session(path)
    os.unlink(table / "fight.toml.lock")
    os.symlink(home / ".bash_login", table / "fight.toml.lock")
    before = path.read_bytes()
    with pytest.raises(Refused, match=r"fight\.toml\.lock: the lock file is a symbolic link"):
        session.execute("note x")
    assert path.read_bytes() == before and (home / ".bash_login").read_text() == SECRET


def test_planted_temporary_files_are_never_written_nor_removed_through(table: Path, home: Path) -> None:
    """A whole write (here the migration of a first-format save) makes its temporary file
    with a fresh name and O_EXCL; the clean-up of crashed writers' temporaries removes
    regular files only."""
    path = table / "fight.toml"
    shutil.copy(ROOT / "tests" / "data" / "first-format.toml", path)
    for name in (".fight.toml.tmp", ".fight.toml.0000.tmp"):
        os.symlink(home / ".bash_login", table / name)
    _session(path).execute("note migrated")
    assert "schema_version = 2" in path.read_text()
    assert (table / ".fight.toml.tmp").is_symlink() and (table / ".fight.toml.0000.tmp").is_symlink()
    assert (home / ".bash_login").read_text() == SECRET


@pytest.mark.parametrize("planted", ["temporary", "output"])
def test_export_never_writes_through_a_link(table: Path, home: Path, planted: str) -> None:
    path = _fight(table)
    out = table / "x.html"
    os.symlink(home / ".bash_login", table / ".x.html.tmp" if planted == "temporary" else out)
    code, said = cli("export", str(path), "-o", str(out))
    assert code == 0 and not out.is_symlink() and out.read_text().startswith("<!DOCTYPE html>")
    assert (home / ".bash_login").read_text() == SECRET
    if planted == "output":
        assert "replaced a symbolic link" in said
    else:
        assert (table / ".x.html.tmp").is_symlink()


def test_examples_never_write_through_links(table: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    names = [p.name for p in paths.example_files()]
    assert len(names) >= 2
    profile = home / ".profile"
    profile.write_text("# the GM's profile\n")
    os.symlink(profile, table / names[0])
    os.symlink(home / ".ssh" / "rc", table / names[1])  # dangling: it would create ~/.ssh/rc
    code, out = cli("--saves", str(table), "examples")
    assert code == 0 and f"kept {table / names[0]}" in out and f"kept {table / names[1]}" in out
    assert profile.read_text() == "# the GM's profile\n" and not (home / ".ssh" / "rc").exists()
    code, out = cli("--saves", str(table), "examples", "--force")
    assert code == 0
    for name in names[:2]:
        assert not (table / name).is_symlink() and EncounterFile(table / name).load().encounter.events
    assert profile.read_text() == "# the GM's profile\n" and not (home / ".ssh" / "rc").exists()


@pytest.fixture
def config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    place = tmp_path / "config"
    place.mkdir()
    path = place / "config.toml"
    monkeypatch.setenv("TRACKER_CONFIG", str(path))
    return path


def test_a_config_linked_out_of_its_folder_is_neither_read_nor_wiped(config_file: Path, home: Path) -> None:
    os.symlink(home / ".bash_login", config_file)
    with pytest.raises(config.ConfigError, match=r"config\.toml: is a symbolic link leading outside"):
        config.load()
    with pytest.raises(config.ConfigError, match="symbolic link leading outside"):
        settings.remember_theme("nord")
    code, _ = cli("config")
    assert code == 1 and (home / ".bash_login").read_text() == SECRET


def test_a_planted_temporary_config_file_is_never_written_through(config_file: Path, home: Path) -> None:
    config_file.write_text('default_ruleset = "brandx"\n')
    os.symlink(home / ".bash_login", config_file.with_name(".config.toml.tmp"))
    settings.remember_theme("nord")
    assert config.load().theme == "nord" and config.load().default_ruleset == "brandx"
    assert (home / ".bash_login").read_text() == SECRET and config_file.with_name(".config.toml.tmp").is_symlink()


# --------------------------------------------------------------- FIFOs, per read file
def test_a_fifo_at_the_config_file_never_freezes(config_file: Path) -> None:
    os.mkfifo(config_file)
    with pytest.raises(config.ConfigError, match="found a FIFO"):
        within(config.load, config_file)
    assert within(lambda: cli("config"), config_file)[0] == 1
    with pytest.raises(config.ConfigError, match="found a FIFO"):
        within(lambda: settings.remember_theme("nord"), config_file)


def test_a_fifo_at_the_lock_is_refused_without_blocking(table: Path) -> None:
    path = _fight(table)
    session = _session(path)
    lock = table / "fight.toml.lock"
    os.unlink(lock)
    os.mkfifo(lock)
    before = path.read_bytes()
    with pytest.raises(Refused, match=r"fight\.toml\.lock: the lock file is not a regular file"):
        within(lambda: session.execute("note x"), lock)
    assert path.read_bytes() == before and stat.S_ISFIFO(os.lstat(lock).st_mode)


def test_a_fifo_named_like_a_save_never_blocks(table: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fifo = table / "fight.toml"
    os.mkfifo(fifo)
    with pytest.raises(RefusedSave, match="expected a regular save, found a FIFO"):
        within(lambda: EncounterFile(fifo).load(), fifo)
    for command in ("show", "check"):
        assert within(functools.partial(cli, command, str(fifo)), fifo)[0] == 1
    assert "found a FIFO" in capsys.readouterr().err
    with pytest.raises(TrackerError, match="already exists"):
        within(lambda: EncounterFile.create(fifo, "x", "freeform"), fifo)


def test_a_fifo_named_like_a_library_never_blocks(table: Path) -> None:
    session = _session(_fight(table))
    fifo = table / "library-freeform.toml"
    os.mkfifo(fifo)
    for line in ("library save Ann", "library add Ann"):
        with pytest.raises(Refused, match="found a FIFO"):
            within(functools.partial(session.execute, line), fifo)


def test_a_fifo_as_the_export_output_is_refused(table: Path) -> None:
    path = _fight(table)
    fifo = table / "x.md"
    os.mkfifo(fifo)
    assert within(lambda: cli("export", str(path), "-o", str(fifo)), fifo)[0] == 1
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


# ------------------------------------------------------------ devices, oversize files
def test_a_link_to_a_device_is_refused(table: Path) -> None:
    os.symlink("/dev/zero", table / "zero.toml")
    with pytest.raises(RefusedSave, match=r"zero\.toml: is a symbolic link leading outside .* \(to /dev/zero\)"):
        within(lambda: EncounterFile(table / "zero.toml").load())


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
def test_a_device_in_the_folder_is_refused(table: Path) -> None:
    device = table / "zero.toml"
    os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 5))  # the same device as /dev/zero
    with pytest.raises(RefusedSave, match="expected a regular save, found a device"):
        within(lambda: EncounterFile(device).load())


def test_an_oversize_save_is_refused_with_its_size_before_it_is_read(table: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    big = table / "big.toml"
    with open(big, "wb") as handle:
        handle.truncate(10 * 1024**3)  # 10 GiB, sparse: reading it would take minutes and the memory
    reads: list[int] = []
    monkeypatch.setattr(folder, "read_fd", lambda *a, **k: reads.append(1))
    with pytest.raises(RefusedSave, match=r"big\.toml: 10,737,418,240 bytes \(10,240 MB\); saves over 25,165,824 bytes \(24 MB\) are refused before they are read"):
        within(lambda: EncounterFile(big).load())
    assert within(lambda: cli("check", str(big)))[0] == 1
    assert "10,737,418,240 bytes" in capsys.readouterr().err and not reads


def test_the_limit_leaves_room_for_a_long_fight_and_no_more() -> None:
    # The measurement behind the figure is benchmarks/save_size.py (docs/guide/saves.md).
    assert codec.MAX_SAVE_BYTES == 24 * 1024 * 1024


def test_a_follower_refuses_a_save_grown_past_the_limit_without_reading_it(table: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _fight(table)
    follower = EncounterFile(path)
    follower.load()
    with open(path, "r+b") as handle:
        handle.truncate(10 * 1024**3)
    reads: list[int] = []
    monkeypatch.setattr(folder, "read_fd", lambda *a, **k: reads.append(1))
    with pytest.raises(RefusedSave, match="10,737,418,240 bytes"):
        within(follower.probe)
    assert not reads


def test_a_change_that_would_pass_the_limit_is_refused_and_nothing_changes(table: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _fight(table)
    session = _session(path)
    before = path.read_bytes()
    monkeypatch.setattr(codec, "MAX_SAVE_BYTES", len(before) + 100)
    with pytest.raises(TrackerError, match=r"fight\.toml: the change \(note\) was not saved: the save is full: .*tracker new NEXT --from fight"):
        session.execute("note " + "a long note " * 10)
    assert path.read_bytes() == before and len(session.encounter.events) == 2
    session.execute("note ok")  # a small change still fits
    assert EncounterFile(path).load().encounter.log[-1].text.endswith("ok")


# ------------------------------------------------------------ every command refuses
@pytest.fixture
def linked_out(table: Path, home: Path) -> Path:
    private = home / "private.toml"
    shutil.copy(EXAMPLE, private)
    os.symlink(private, table / "private.toml")
    return table / "private.toml"


@pytest.mark.parametrize(
    "argv",
    [
        ("show", "private"),
        ("show", "private", "--json"),
        ("check", "private"),
        ("play", "private"),
        ("export", "private"),
        ("new", "copy", "--from", "private"),
        ("serve", "--encounter", "private", "--port", "0"),
        ("web", "--encounter", "private", "--port", "0"),
    ],
)
def test_every_command_refuses_a_save_linked_out_of_the_folder(table: Path, home: Path, linked_out: Path, argv: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> None:
    before = (home / "private.toml").read_bytes()
    code, out = cli("--saves", str(table), *argv)
    err = capsys.readouterr().err
    assert code == 1 and "private.toml: is a symbolic link leading outside" in err, err
    assert "Seraph" not in out and (home / "private.toml").read_bytes() == before
    assert not (table / "copy.toml").exists()


def test_open_refuses_a_save_linked_out_of_the_folder(table: Path, linked_out: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT), TRACKER_SAVES=str(table))
    result = subprocess.run([sys.executable, "-m", "tracker", "open", "private"], env=env, capture_output=True, text=True, timeout=DEADLINE, stdin=subprocess.DEVNULL, check=False)
    assert result.returncode == 1 and "private.toml: is a symbolic link leading outside" in result.stderr


@pytest.mark.ui
async def test_the_start_screen_lists_saves_linked_out_as_refused(table: Path, linked_out: Path) -> None:
    from textual.widgets import DataTable, Label

    from tests.ui import press, wait_for
    from tracker.ui.app import TrackerApp

    _fight(table)
    os.mkfifo(table / "pipe.toml")
    app = TrackerApp(table)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        start = app.screen
        await wait_for(pilot, lambda: len(getattr(start, "listings", [])) == 3, "the list of encounters")
        rows = {item.path.name: item for item in start.listings}  # type: ignore[attr-defined]
        assert not rows["fight.toml"].error
        assert rows["private.toml"].refused and rows["pipe.toml"].refused
        grid = start.query_one(DataTable)
        cells = [str(grid.get_row_at(i)[2]) for i in range(grid.row_count)]
        assert cells.count("refused") == 2
        await press(pilot, "down", "down")  # private.toml sorts last
        reason = str(start.query_one("#start-error", Label).render())
        assert reason.startswith("refused: ") and "symbolic link leading outside" in reason
        await press(pilot, "enter")
        assert any("cannot open" in n.message for n in app.notifications_shown)
        assert app.screen is start and not app.errors


# ------------------------------------------------------------ modes of the files written
def test_no_file_written_carries_a_setuid_setgid_sticky_or_execute_bit(table: Path, config_file: Path) -> None:
    # Seen: a member's planted file passed its mode on to the GM's file written in its
    # place (GM-owned -rwsrwsrwx). Each file the tracker writes over is planted with every
    # bit; what is written keeps only read and write bits.
    path = _fight(table)
    first = Path(__file__).resolve().parent / "data" / "first-format.toml"
    old = table / "old.toml"
    shutil.copy(first, old)
    planted = [table / "library-freeform.toml", old, table / "out.html", table / "fight.toml.lock", config_file, table / paths.example_files()[0].name]
    (table / "library-freeform.toml").write_text("[sheets]\n")
    config_file.write_text("# mine\n")
    (table / "out.html").write_text("old\n")
    shutil.copy(paths.example_files()[0], table / paths.example_files()[0].name)
    for each in planted:
        os.chmod(each, 0o7777)
    session = _session(path)
    session.execute("library save Ann")  # the library
    session.execute("note x")  # a change: the save's lock, replaced
    _session(old).execute("note migrated")  # a first-format save written whole
    assert cli("export", str(path), "-o", str(table / "out.html"))[0] == 0
    settings.remember_theme("nord")
    assert cli("--saves", str(table), "examples", "--force")[0] == 0
    for each in planted:
        assert stat.S_IMODE(os.stat(each).st_mode) in (0o666, 0o660, 0o600), (each, oct(os.stat(each).st_mode))
    # And what is new: the folder's files, temporary ones included, whatever the umask.
    old_umask = os.umask(0)
    try:
        made = table / "new.toml"
        EncounterFile.create(made, "new", "freeform")
        _session(made).execute("add Ann hp=3")
    finally:
        os.umask(old_umask)
    for each in table.iterdir():
        assert not stat.S_IMODE(os.stat(each).st_mode) & 0o7111, (each, oct(os.stat(each).st_mode))


# ------------------------------------------------------------ deleting an encounter
def test_deleting_an_encounter_removes_its_lock_file_and_nothing_else(table: Path, home: Path) -> None:
    from tracker.persistence import lock

    path = _fight(table)
    assert (table / "fight.toml.lock").is_file()
    lock.delete(path)
    assert not path.exists() and not (table / "fight.toml.lock").exists()
    # A link to another save: the link goes, the save it leads to and that save's lock stay.
    target = _fight(table)
    os.symlink("fight.toml", table / "current.toml")
    lock.delete(table / "current.toml")
    assert not (table / "current.toml").is_symlink() and target.is_file() and (table / "fight.toml.lock").is_file()
    # A lock sidecar that is a link (planted) is left as it is, and nothing is done through it.
    other = table / "other.toml"
    EncounterFile.create(other, "other", "freeform")
    os.unlink(table / "other.toml.lock")
    os.symlink(home / ".bash_login", table / "other.toml.lock")
    lock.delete(other)
    assert not other.exists() and (table / "other.toml.lock").is_symlink() and (home / ".bash_login").read_text() == SECRET
    with pytest.raises(FileNotFoundError):
        lock.delete(other)
    # A change under way is finished first: the delete waits for the lock.
    held = threading.Event()
    letting_go = threading.Event()

    def change() -> None:
        with lock.locked(target):
            held.set()
            letting_go.wait(DEADLINE)
            _session(target)  # still there while the change holds the lock

    worker = threading.Thread(target=change)
    worker.start()
    assert held.wait(DEADLINE)
    deleting = threading.Thread(target=lambda: lock.delete(target))
    deleting.start()
    deleting.join(0.3)
    assert deleting.is_alive() and target.exists()
    letting_go.set()
    worker.join(DEADLINE)
    deleting.join(DEADLINE)
    assert not target.exists() and not (table / "fight.toml.lock").exists()


async def test_delete_on_the_start_screen_removes_the_lock_file_too(table: Path) -> None:
    from tests.ui import press, wait_for
    from tracker.ui.app import TrackerApp
    from tracker.ui.screens.confirm import ConfirmScreen

    path = _fight(table)
    keep = table / "keep.toml"
    EncounterFile.create(keep, "keep", "freeform")
    app = TrackerApp(table)
    async with app.run_test(size=(80, 24)) as pilot:
        start = app.screen
        await wait_for(pilot, lambda: len(getattr(start, "listings", [])) == 2, "the list of encounters")
        start.query_one("DataTable").move_cursor(row=[i.path for i in start.listings].index(path))  # type: ignore[attr-defined]
        await press(pilot, "delete")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        await press(pilot, "y")
        await wait_for(pilot, lambda: len(getattr(app.screen, "listings", [])) == 1, "the list without it")
        assert not app.errors
    assert not path.exists() and not (table / "fight.toml.lock").exists()
    assert keep.exists() and (table / "keep.toml.lock").exists()


# ------------------------------------------------------------ two real accounts
def _run_as(uid: int, gid: int, groups: list[int], action: Callable[[], None]) -> int:
    """Fork, become the account (the kernel then judges every access as it would for
    that person's own process), run `action`, and return the exit status (0: no error)."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 1
        try:
            os.setgroups(groups)
            os.setresgid(gid, gid, gid)
            os.setresuid(uid, uid, uid)
            os.umask(0o002)
            action()
            code = 0
        except Refused:
            code = 2
        except BaseException as exc:  # noqa: BLE001 - any other failure: its own status, said
            os.write(2, f"{type(exc).__name__}: {exc}\n".encode())
            code = 3
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


@pytest.fixture
def accounts() -> Iterator[dict[str, Any]]:
    """A GM and a player in one group, and a reader outside it (the user guide's read-only
    player), made for this test and removed after."""
    if os.geteuid() != 0 or not shutil.which("useradd"):
        pytest.skip("needs root and useradd to make two real accounts")
    tag = f"{os.getpid() % 100000}"
    group, gm, member = f"trk{tag}", f"trkgm{tag}", f"trkpl{tag}"
    others, reader = f"trko{tag}", f"trkrd{tag}"
    base = Path(tempfile_dir())
    made: list[list[str]] = []
    try:
        for each in (group, others):
            subprocess.run(["groupadd", each], check=True, capture_output=True)
            made.append(["groupdel", each])
        for user, primary in ((gm, group), (member, group), (reader, others)):
            subprocess.run(["useradd", "-M", "-N", "-g", primary, "-d", str(base / user), "-s", "/bin/sh", user], check=True, capture_output=True)
            made.append(["userdel", user])
        import grp
        import pwd

        gid = grp.getgrnam(group).gr_gid
        info = {name: pwd.getpwnam(name) for name in (gm, member, reader)}
        home = base / gm
        home.mkdir()
        (home / ".bash_login").write_text(SECRET)
        os.chown(home, info[gm].pw_uid, gid)
        os.chown(home / ".bash_login", info[gm].pw_uid, gid)
        os.chmod(home, 0o700)
        table_ = base / "table"
        table_.mkdir()
        os.chown(table_, info[gm].pw_uid, gid)
        os.chmod(table_, 0o2775)  # the user guide's group-shared saves folder
        yield {
            "gid": gid, "gm": info[gm].pw_uid, "member": info[member].pw_uid, "home": home, "table": table_,
            "reader": info[reader].pw_uid, "reader_gid": grp.getgrnam(others).gr_gid,
        }  # fmt: skip
    finally:
        for command in reversed(made):
            subprocess.run(command, capture_output=True, check=False)
        shutil.rmtree(base, ignore_errors=True)


def tempfile_dir() -> str:
    import tempfile

    place = tempfile.mkdtemp(prefix="tracker-accounts-", dir="/tmp")
    os.chmod(place, 0o755)  # the accounts must reach their folders
    return place


def test_a_group_member_cannot_make_the_gm_write_their_login_script(accounts: dict[str, Any]) -> None:
    table_, home, gid = accounts["table"], accounts["home"], accounts["gid"]
    path = table_ / "fight.toml"

    def gm_creates() -> None:
        EncounterFile.create(path, "fight", "freeform")
        _session(path).execute('add "$(touch /tmp/pwned)" hp=3')

    def member_plants() -> None:
        os.symlink(home / ".bash_login", table_ / "library-freeform.toml")

    def gm_saves_the_sheet() -> None:
        _session(path).execute('library save "$(touch /tmp/pwned)"')

    assert _run_as(accounts["gm"], gid, [gid], gm_creates) == 0
    assert _run_as(accounts["member"], gid, [gid], member_plants) == 0
    assert os.lstat(table_ / "library-freeform.toml").st_uid == accounts["member"]
    assert _run_as(accounts["gm"], gid, [gid], gm_saves_the_sheet) == 2  # refused, by name
    assert (home / ".bash_login").read_text() == SECRET
    # Without the link the same account saves the sheet in the shared folder.
    os.unlink(table_ / "library-freeform.toml")
    assert _run_as(accounts["gm"], gid, [gid], gm_saves_the_sheet) == 0
    assert "touch /tmp/pwned" in (table_ / "library-freeform.toml").read_text()


class _Reader:
    """A process of an account that may only read the fight, doing what such an account
    can do to hold up the GM: open every file named (read-only is all flock needs) and,
    when told, flock each one it opened, holding them until stopped."""

    def __init__(self, accounts: dict[str, Any], names: list[Path]) -> None:
        import fcntl

        said, says = os.pipe()
        told, self.told = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            try:
                os.setgroups([])
                os.setresgid(accounts["reader_gid"], accounts["reader_gid"], accounts["reader_gid"])
                os.setresuid(accounts["reader"], accounts["reader"], accounts["reader"])
                opened = {}
                for name in names:
                    with contextlib.suppress(OSError):
                        opened[name.name] = os.open(name, os.O_RDONLY | os.O_NONBLOCK)
                os.write(says, (" ".join(opened) + "\n").encode())
                os.read(told, 1)
                held = []
                for name, fd in opened.items():
                    with contextlib.suppress(OSError):
                        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                        held.append(name)
                os.write(says, (" ".join(held) + "\n").encode())
                os.read(told, 1)
            finally:
                os._exit(0)
        os.close(told)
        os.close(says)
        self.pid, self.reading = pid, os.fdopen(said)
        self.opened = self.reading.readline().split()

    def hold(self) -> list[str]:
        os.write(self.told, b"x")
        return self.reading.readline().split()

    def stop(self) -> None:
        with contextlib.suppress(OSError):
            os.write(self.told, b"xx")
        os.waitpid(self.pid, 0)
        os.close(self.told)
        self.reading.close()


def _timed_change(accounts: dict[str, Any], who: str, path: Path, line: str) -> tuple[int, float]:
    gid = accounts["reader_gid"] if who == "reader" else accounts["gid"]
    started = time.monotonic()
    code = _run_as(accounts[who], gid, [gid], lambda: _session(path).execute(line))
    return code, time.monotonic() - started


def test_an_account_that_may_only_read_the_fight_cannot_delay_the_gm(accounts: dict[str, Any]) -> None:
    # Seen: the lock file took the save's mode (0664), so a reader outside the group
    # opened it and held its flock: every change of the GM's was refused after 10 s.
    table_, gid = accounts["table"], accounts["gid"]
    path = table_ / "fight.toml"
    lock_file = table_ / "fight.toml.lock"
    assert _run_as(accounts["gm"], gid, [gid], lambda: _fight(table_)) == 0  # as the user guide: umask 002, a 2775 folder
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o664 and stat.S_IMODE(os.stat(lock_file).st_mode) == 0o660
    reader = _Reader(accounts, [lock_file, path, table_])
    try:
        assert reader.opened == ["fight.toml", "table"]  # the lock file is not the reader's to open
        assert reader.hold() == ["fight.toml", "table"]  # the rest it holds: nothing the GM waits for
        code, took = _timed_change(accounts, "gm", path, "note the GM is not kept waiting")
        assert code == 0 and took < 2.0, took
        code, took = _timed_change(accounts, "member", path, "note nor is a player of the group")
        assert code == 0 and took < 2.0, took
        # The reader still reads and follows the fight without the lock...
        def reads() -> None:
            assert "nor is a player" in EncounterFile(path).read_text()
            assert SCHEMA_VERSION and EncounterFile(path).load().encounter.events

        assert _run_as(accounts["reader"], accounts["reader_gid"], [], reads) == 0
        # ...and a change of its own is refused at once (it may not write), making no lock file.
        code, took = _timed_change(accounts, "reader", path, "note mine")
        assert code == 3 and took < 2.0
    finally:
        reader.stop()
    assert os.stat(lock_file).st_uid in (accounts["gm"], accounts["member"])


def test_a_lock_file_an_older_version_left_open_to_readers_is_replaced(accounts: dict[str, Any]) -> None:
    table_, gid = accounts["table"], accounts["gid"]
    path = table_ / "fight.toml"
    lock_file = table_ / "fight.toml.lock"
    assert _run_as(accounts["gm"], gid, [gid], lambda: _fight(table_)) == 0
    os.chmod(lock_file, 0o664)  # as an older version made it: readable by everyone
    reader = _Reader(accounts, [lock_file])  # a reader kept a descriptor of it
    try:
        assert reader.opened == ["fight.toml.lock"]
        code, took = _timed_change(accounts, "gm", path, "note the first change after the upgrade")
        assert code == 0 and stat.S_IMODE(os.stat(lock_file).st_mode) == 0o660
        assert reader.hold() == ["fight.toml.lock"]  # it holds the old file: nobody waits on that one
        code, took = _timed_change(accounts, "gm", path, "note and the next")
        assert code == 0 and took < 2.0, took
    finally:
        reader.stop()
    # One held by a reader before any writer could replace it: the GM is told what to do.
    os.chmod(lock_file, 0o664)
    reader = _Reader(accounts, [lock_file])
    try:
        assert reader.hold() == ["fight.toml.lock"]
        with pytest.raises(TrackerError, match=r"held the lock for 0\.3s; try again\. Its lock file fight\.toml\.lock \(mode 0664\) can be opened by accounts that may not write the save"):
            with locked(path, timeout=0.3):
                pass
    finally:
        reader.stop()
