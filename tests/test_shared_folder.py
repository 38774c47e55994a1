"""A saves folder shared with a group cannot be turned against the GM (README, "Threat
model"; tracker.persistence.folder).

A member of the group can put anything in the folder: a symbolic link named like a save,
a library, a lock, an export's temporary file or an example, leading to the GM's private
files; a FIFO where a file is read; a device; a file of gigabytes. Each test plants one
and checks that the GM's process neither writes nor reads through it, nor blocks on it:
the target is untouched, the refusal names the file and why. Every operation that could
block runs under `within`, which fails (rather than hangs) past the suite's deadline.
"""

from __future__ import annotations

import functools
import os
import shutil
import stat
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tracker import config, paths
from tracker.engine import TrackerError
from tracker.persistence import codec, folder
from tracker.persistence.folder import Refused
from tracker.library import Library
from tracker.persistence.store import EncounterFile, RefusedSave
from tracker.session import Session
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
        config.remember_theme("nord")
    code, _ = cli("config")
    assert code == 1 and (home / ".bash_login").read_text() == SECRET


def test_a_planted_temporary_config_file_is_never_written_through(config_file: Path, home: Path) -> None:
    config_file.write_text('default_ruleset = "brandx"\n')
    os.symlink(home / ".bash_login", config_file.with_name(".config.toml.tmp"))
    config.remember_theme("nord")
    assert config.load().theme == "nord" and config.load().default_ruleset == "brandx"
    assert (home / ".bash_login").read_text() == SECRET and config_file.with_name(".config.toml.tmp").is_symlink()


# --------------------------------------------------------------- FIFOs, per read file
def test_a_fifo_at_the_config_file_never_freezes(config_file: Path) -> None:
    os.mkfifo(config_file)
    with pytest.raises(config.ConfigError, match="found a FIFO"):
        within(config.load, config_file)
    assert within(lambda: cli("config"), config_file)[0] == 1
    with pytest.raises(config.ConfigError, match="found a FIFO"):
        within(lambda: config.remember_theme("nord"), config_file)


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
    # The measurement behind the figure is benchmarks/save_size.py (README, Saves).
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
        assert any("cannot open" in n.message for n in app._notifications)
        assert app.screen is start and not app.errors


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
    """A GM and a player in one group, made for this test and removed after."""
    if os.geteuid() != 0 or not shutil.which("useradd"):
        pytest.skip("needs root and useradd to make two real accounts")
    tag = f"{os.getpid() % 100000}"
    group, gm, member = f"trk{tag}", f"trkgm{tag}", f"trkpl{tag}"
    base = Path(tempfile_dir())
    made: list[list[str]] = []
    try:
        subprocess.run(["groupadd", group], check=True, capture_output=True)
        made.append(["groupdel", group])
        for user in (gm, member):
            subprocess.run(["useradd", "-M", "-N", "-g", group, "-d", str(base / user), "-s", "/bin/sh", user], check=True, capture_output=True)
            made.append(["userdel", user])
        import grp
        import pwd

        gid = grp.getgrnam(group).gr_gid
        info = {name: pwd.getpwnam(name) for name in (gm, member)}
        home = base / gm
        home.mkdir()
        (home / ".bash_login").write_text(SECRET)
        os.chown(home, info[gm].pw_uid, gid)
        os.chown(home / ".bash_login", info[gm].pw_uid, gid)
        os.chmod(home, 0o700)
        table_ = base / "table"
        table_.mkdir()
        os.chown(table_, info[gm].pw_uid, gid)
        os.chmod(table_, 0o2775)  # the README's group-shared saves folder
        yield {"gid": gid, "gm": info[gm].pw_uid, "member": info[member].pw_uid, "home": home, "table": table_}
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
