"""Keys files live where only the GM can write (issue 19, seen 6; docs/contributing/design.md#shared-table).

Seen: in a 2775 saves folder, a member of its group ran `mv .tracker_viewer_keys
.tracker_gm_keys` and every viewer became a GM. Now keys files (and the host key) live in
the GM's config folder by default; a keys file whose folder, or any folder above it, its
group or others may write (or another user owns) is refused, at start and while running,
naming the fix; files still in the old place stop the server with where to move them.

With two real Unix accounts in one group when the tests run as root (created and deleted
by the fixture; skipped otherwise): the GM's server refuses keys files in the shared
folder, and the member's `mv` in the saves folder no longer makes anyone a GM.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import asyncssh
import pytest

from tests.helpers import cli
from tracker.serve.keys import KeyRing, keys_folder, load_or_create_host_key
from tracker.serve.probe import Screen, ServerProcess, env, make_key

pytestmark = pytest.mark.serve


def _start(saves: Path, *args: str, environ: dict[str, str] | None = None, **popen: object) -> subprocess.CompletedProcess[str]:
    environ = dict(env() if environ is None else environ)
    environ.setdefault("TRACKER_CONFIG", str(saves.parent / "config" / "config.toml"))
    argv = [sys.executable, "-m", "tracker", "--saves", str(saves), "serve", "--port", "0", *args]
    return subprocess.run(argv, env=environ, capture_output=True, text=True, timeout=60, **popen)  # type: ignore[call-overload, no-any-return]


def _keys(folder: Path) -> dict[str, asyncssh.SSHKey]:
    folder.mkdir(parents=True, exist_ok=True)
    return {n: make_key(folder / n, f"{n}@laptop") for n in ("gm", "viewer")}


# ------------------------------------------------------------------ as this account (root or not)


def test_a_keys_file_in_a_folder_others_may_write_is_refused_with_the_fix(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    keys = _keys(tmp_path / "own")
    shared.mkdir()
    gm_keys = shared / "gm_keys"
    gm_keys.write_text(keys["gm"].export_public_key().decode())
    os.chmod(gm_keys, 0o600)  # the file itself is safe...
    for mode, who in ((0o2775, "its group"), (0o777, "its group and others")):
        os.chmod(shared, mode)  # ...its folder is not
        result = _start(tmp_path / "saves", "--gm-keys", str(gm_keys))
        assert result.returncode == 1 and "Traceback" not in result.stderr
        assert f"{shared}: writable by {who}" in result.stderr and f"chmod go-w {shared}" in result.stderr
    # A link in a folder the group may write, to a file in a safe one: the link could be re-pointed.
    os.chmod(shared, 0o755)
    links = tmp_path / "links"
    links.mkdir(mode=0o2775)
    os.chmod(links, 0o2775)
    (links / "gm_keys").symlink_to(gm_keys)
    result = _start(tmp_path / "saves", "--gm-keys", str(links / "gm_keys"))
    assert result.returncode == 1 and f"{links}: writable by its group" in result.stderr
    # A link in a safe folder to a file in a folder the group may write: that folder is checked too.
    os.chmod(links, 0o755)
    os.chmod(shared, 0o775)
    result = _start(tmp_path / "saves", "--gm-keys", str(links / "gm_keys"))
    assert result.returncode == 1 and f"{shared}: writable by its group" in result.stderr
    os.chmod(shared, 0o755)
    assert KeyRing.from_options(tmp_path, str(links / "gm_keys"), None, False).gm.current() is not None  # both safe: used
    os.chmod(tmp_path, 0o777)  # ...and now a folder above them all is writable by anyone
    try:
        result = _start(tmp_path / "saves", "--gm-keys", str(gm_keys))
        assert result.returncode == 1 and f"{tmp_path}: writable by its group and others" in result.stderr
    finally:
        os.chmod(tmp_path, 0o700)


def test_a_sticky_folder_like_tmp_is_accepted(tmp_path: Path) -> None:
    sticky = tmp_path / "tmp"
    sticky.mkdir()
    os.chmod(sticky, 0o1777)  # as /tmp: anyone may write, only an entry's owner may rename it
    keys = _keys(tmp_path / "k")
    gm_keys = sticky / "gm_keys"
    gm_keys.write_text(keys["gm"].export_public_key().decode())
    os.chmod(gm_keys, 0o644)
    ring = KeyRing.from_options(tmp_path, str(gm_keys), None, False)
    assert ring.gm.current() is not None and not ring.problems()
    os.chmod(sticky, 0o0777)  # without the sticky bit anyone could rename it away
    with pytest.raises(Exception, match=f"{sticky}: writable by its group and others"):
        KeyRing.from_options(tmp_path, str(gm_keys), None, False)


async def test_a_folder_made_writable_while_serving_lets_nobody_in_until_fixed(tmp_path: Path) -> None:
    saves = tmp_path / "saves"
    saves.mkdir()
    assert cli("new", str(saves / "fight.toml"), "--ruleset", "freeform", "--name", "Fight")[0] == 0
    folder = tmp_path / "keys"
    keys = _keys(folder)
    (folder / "gm_keys").write_text(keys["gm"].export_public_key().decode())
    server = ServerProcess.start(saves, "--gm-keys", str(folder / "gm_keys"), "--encounter", "fight")
    try:
        os.chmod(folder, 0o2775)
        with pytest.raises(asyncssh.PermissionDenied):
            await Screen.connect(server.port, keys["gm"])
        server.wait_line(f"{folder}: writable by its group .*chmod go-w")
        os.chmod(folder, 0o755)
        gm = await Screen.connect(server.port, keys["gm"])
        try:
            await gm.wait_for("Fight")
        finally:
            await gm.close()
    finally:
        assert server.stop() == 0


def test_keys_left_in_the_saves_folder_stop_the_server_with_where_to_move_them(tmp_path: Path) -> None:
    saves = tmp_path / "saves"
    saves.mkdir()
    keys = _keys(tmp_path / "k")
    old = saves / ".tracker_gm_keys"
    old.write_text(keys["gm"].export_public_key().decode())
    os.chmod(old, 0o600)
    config = tmp_path / "config"
    result = _start(saves, environ=dict(env(), TRACKER_CONFIG=str(config / "config.toml")))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert f"{old}: keys files and the host key no longer live in the saves folder" in result.stderr
    assert f"mv {old} {config / 'gm_keys'}" in result.stderr
    # Moved as told, the server starts with it; the host key is made in the same folder.
    config.mkdir(mode=0o700)
    old.rename(config / "gm_keys")
    server = ServerProcess.start(saves, environ=dict(env(), TRACKER_CONFIG=str(config / "config.toml")))
    try:
        server.wait_line(f"GM keys {config / 'gm_keys'}")
        assert (config / "host_key").is_file() and not (saves / ".tracker_host_key").exists()
    finally:
        assert server.stop() == 0
    # An old host key too.
    (saves / ".tracker_host_key").write_text("x")
    os.chmod(saves / ".tracker_host_key", 0o600)
    result = _start(saves, environ=dict(env(), TRACKER_CONFIG=str(config / "config.toml")))
    assert result.returncode == 1 and f"mv {saves / '.tracker_host_key'} {config / 'host_key'}" in result.stderr


def test_the_default_keys_folder_is_the_config_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TRACKER_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert keys_folder() == tmp_path / "xdg" / "segment-tracker"
    key, created = load_or_create_host_key(keys_folder() / "host_key")
    assert created and oct(os.stat(keys_folder()).st_mode & 0o777) == "0o700"  # made 0700, whatever the umask
    assert oct(os.stat(tmp_path / "xdg").st_mode & 0o777) == "0o700"


# ------------------------------------------------------------------ two real accounts in one group


@dataclass
class Accounts:
    base: Path
    group: str
    gm: str
    member: str
    saves: Path
    home: Path  # the GM's home: its config folder holds the keys
    python: str  # a Python the GM's account may run, with the tracker's packages


def _python_for(user: str, group: str) -> str | None:
    """This Python if the account may run it (a venv under /root is out of its reach),
    else the system's Python of the same version, given this one's packages."""
    for candidate in (sys.executable, f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}"):
        if not os.path.exists(candidate):
            continue
        try:
            tried = subprocess.run(
                [candidate, "-c", "import asyncssh, textual, rtoml, tracker.serve.server"], user=user, group=group, env=_packages_env(env()), capture_output=True, timeout=60, cwd="/"
            )
        except OSError:  # not the account's to run
            continue
        if tried.returncode == 0:
            return candidate
    return None


def _packages_env(environ: dict[str, str]) -> dict[str, str]:
    """`environ` with this Python's packages on PYTHONPATH, for another Python of its version."""
    import site

    environ = dict(environ)
    environ["PYTHONPATH"] = os.pathsep.join([environ.get("PYTHONPATH", ""), *site.getsitepackages()]).strip(os.pathsep)
    return environ


def _run(*argv: str) -> None:
    subprocess.run(list(argv), check=True, capture_output=True, timeout=60)


@pytest.fixture
def accounts() -> Iterator[Accounts]:
    if os.geteuid() != 0 or shutil.which("useradd") is None or shutil.which("groupadd") is None:
        pytest.skip("needs root and useradd/groupadd to create two accounts in one group")
    tag = uuid.uuid4().hex[:6]
    group, gm, member = f"trk{tag}", f"trk{tag}gm", f"trk{tag}mb"
    base = Path(tempfile.mkdtemp(prefix="tracker-accounts-", dir="/tmp"))
    os.chmod(base, 0o755)
    made: list[tuple[str, str]] = []
    try:
        _run("groupadd", group)
        made.append(("groupdel", group))
        for name in (gm, member):
            _run("useradd", "--no-create-home", "--home-dir", str(base / name), "--gid", group, "--shell", "/usr/sbin/nologin", name)
            made.insert(0, ("userdel", name))
        home = base / gm
        home.mkdir(mode=0o700)
        shutil.chown(home, gm, group)
        saves = base / "saves"
        saves.mkdir()
        shutil.chown(saves, gm, group)
        os.chmod(saves, 0o2775)  # the user guide's shared folder
        python = _python_for(gm, group)
        if python is None:
            pytest.skip(f"no Python with the tracker's packages that the account {gm} may run")
        yield Accounts(base, group, gm, member, saves, home, python)
    finally:
        for command, name in made:
            subprocess.run([command, name], capture_output=True, timeout=60)
        shutil.rmtree(base, ignore_errors=True)


def _as(user: str, group: str, *argv: str, environ: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(argv), user=user, group=group, extra_groups=[group], env=environ or env(), capture_output=True, text=True, timeout=60, cwd="/")


def _gm_env(a: Accounts) -> dict[str, str]:
    environ = _packages_env(env())
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "TRACKER_CONFIG", "TRACKER_SAVES"):
        environ.pop(name, None)
    environ["HOME"] = str(a.home)
    return environ


async def test_a_member_of_the_group_cannot_make_a_viewer_gm(accounts: Accounts) -> None:
    a = accounts
    keys = _keys(a.base / "client")  # the players' own machines (root here; only their public keys matter)
    fight = a.saves / "fight.toml"
    assert cli("new", str(fight), "--ruleset", "freeform", "--name", "Table Night")[0] == 0
    shutil.chown(fight, a.gm, a.group)
    os.chmod(fight, 0o664)
    gm_pub, viewer_pub = (keys[n].export_public_key().decode() for n in ("gm", "viewer"))
    # The old layout: both keys files in the shared saves folder, the GM's own, mode 644.
    for name, text in ((".tracker_gm_keys", gm_pub), (".tracker_viewer_keys", viewer_pub)):
        (a.saves / name).write_text(text)
        shutil.chown(a.saves / name, a.gm, a.group)
        os.chmod(a.saves / name, 0o644)
    # The member renames the viewers' file over the GM's: in the shared folder they may.
    moved = _as(a.member, a.group, "mv", str(a.saves / ".tracker_viewer_keys"), str(a.saves / ".tracker_gm_keys"))
    assert moved.returncode == 0, moved.stderr
    # Named on the command line, the GM's server refuses them: their folder is the group's.
    gm_env = _gm_env(a)
    argv = [a.python, "-m", "tracker", "--saves", str(a.saves), "serve", "--port", "0", "--encounter", "fight"]
    named = _as(a.gm, a.group, *argv, "--gm-keys", str(a.saves / ".tracker_gm_keys"), environ=gm_env)
    assert named.returncode == 1 and f"{a.saves}: writable by its group (mode 2775)" in named.stderr, named.stderr
    # By default, it says the file must not stay there; planted by another account, not to move it.
    default = _as(a.gm, a.group, *argv, environ=gm_env)
    assert default.returncode == 1 and "no longer live in the saves folder" in default.stderr, default.stderr
    (a.saves / ".tracker_gm_keys").unlink()
    (a.saves / ".tracker_gm_keys").write_text(viewer_pub)  # planted by root here: not the GM's
    planted = _as(a.gm, a.group, *argv, environ=gm_env)
    assert planted.returncode == 1 and "belongs to another user" in planted.stderr and "remove it" in planted.stderr
    (a.saves / ".tracker_gm_keys").unlink()
    # The GM keeps the keys in the GM's config folder; the member can no longer reach them.
    config = a.home / ".config" / "segment-tracker"
    made = _as(a.gm, a.group, "mkdir", "-p", "-m", "700", str(config), environ=gm_env)
    assert made.returncode == 0, made.stderr
    for name, text in (("gm_keys", gm_pub), ("viewer_keys", viewer_pub)):
        (config / name).write_text(text)
        shutil.chown(config / name, a.gm, a.group)
        os.chmod(config / name, 0o600)
    server = ServerProcess.start(
        a.saves, "--encounter", "fight", environ=dict(gm_env, TRACKER_CONFIG=str(config / "config.toml")), python=a.python, user=a.gm, group=a.group, extra_groups=[a.group], cwd="/"
    )
    try:
        denied = _as(a.member, a.group, "mv", str(config / "viewer_keys"), str(config / "gm_keys"))
        assert denied.returncode != 0 and "Permission denied" in denied.stderr
        planted_file = _as(a.member, a.group, "sh", "-c", f"printf '%s' '{viewer_pub.strip()}' > {a.saves / '.tracker_gm_keys'}")
        assert planted_file.returncode == 0, planted_file.stderr
        viewer = await Screen.connect(server.port, keys["viewer"])
        try:
            await viewer.wait_for("Table Night")
        finally:
            await viewer.close()
        server.wait_line(r"connect .* viewer key")  # still a viewer
        assert not [line for line in server.lines if " gm key " in line and "viewer@laptop" in line]
    finally:
        assert server.stop() == 0
