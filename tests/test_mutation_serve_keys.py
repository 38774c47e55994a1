"""Direct tests of tracker.serve.keys: who may connect to `tracker serve`, as what and as
whom, and the server's own host key, against docs/decisions/0006-ssh-keys.md (roles from
the keys files), 0039-ssh-key-names.md (who a person is), 0040-ssh-keys-strict-modes.md
(where keys live, strict modes, the host key), docs/guide/serve.md and
docs/guide/players.md (the players' lines). No server: the files and keys themselves."""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import asyncssh
import pytest

import tracker.serve.keys as keys_module
from tracker.engine import TrackerError
from tracker.serve.keys import (
    GM,
    NAME_LIMIT,
    PLAYER,
    VIEWER,
    Entry,
    KeyRing,
    KeysFile,
    clean_name,
    combatants_of,
    fingerprint_name,
    folder_problem,
    host_key_problem,
    keys_file_problem,
    keys_folder,
    lines_without_combatant,
    load_or_create_host_key,
    old_place_problem,
)

HOST, ADDR = "client.example", "10.0.0.5"

# Giving a file to another account takes root.
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root: files given to another account")


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "config"
    folder.mkdir(mode=0o700)
    monkeypatch.setenv("TRACKER_CONFIG", str(folder / "config.toml"))
    return folder


@pytest.fixture
def umask_0() -> Iterator[None]:
    """No umask: the modes the code asks for are the modes made."""
    old = os.umask(0)
    try:
        yield
    finally:
        os.umask(old)


def _private() -> asyncssh.SSHKey:
    return asyncssh.generate_private_key("ssh-ed25519")


def _key() -> asyncssh.SSHKey:
    """A client's key as the server sees it: the public half."""
    return _private().convert_to_public()


def _line(key: asyncssh.SSHKey, options: str = "", comment: str | None = None) -> str:
    blob = key.export_public_key().decode().split()[:2]
    words = ([options] if options else []) + blob + ([comment] if comment else [])
    return " ".join(words) + "\n"


def _fingerprint8(key: asyncssh.SSHKey) -> str:
    """The first 8 characters of the key's SHA256 fingerprint, as ssh-keygen -l shows it."""
    return base64.b64encode(hashlib.sha256(key.public_data).digest()).decode().rstrip("=")[:8]


def _write(path: Path, text: str | bytes, mode: int = 0o600) -> Path:
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    os.chmod(path, mode)
    return path


# ------------------------------------------------------------------ where keys live


def test_the_keys_folder_is_the_config_folder(config: Path) -> None:
    assert keys_folder() == config


def test_a_file_in_a_folder_of_ones_own_is_trusted(tmp_path: Path, config: Path) -> None:
    assert folder_problem(tmp_path / "gm_keys", "the keys file") == ""
    sticky = tmp_path / "shared"
    sticky.mkdir()
    os.chmod(sticky, 0o1777)  # as /tmp: only an entry's owner may rename or remove it
    assert folder_problem(sticky / "gm_keys", "the keys file") == ""


@pytest.mark.parametrize(("mode", "who"), [(0o770, "its group"), (0o707, "others"), (0o777, "its group and others"), (0o720, "its group"), (0o702, "others")])
def test_a_folder_others_may_write_is_refused(tmp_path: Path, config: Path, mode: int, who: str) -> None:
    folder = tmp_path / "open"
    folder.mkdir()
    os.chmod(folder, mode)
    path = folder / "inner" / "gm_keys"
    (folder / "inner").mkdir(mode=0o700)
    assert folder_problem(path, "the keys file") == (
        f"{folder}: writable by {who} (mode {mode:04o}), so they could put their own the keys file in place of {path}; refused. "
        f"Fix: chmod go-w {folder}, or keep it in {config} (the default)"
    )


@as_root
def test_a_folder_of_another_user_is_refused(tmp_path: Path, config: Path) -> None:
    folder = tmp_path / "theirs"
    folder.mkdir(mode=0o755)
    os.chown(folder, 1, -1)  # uid 1: any account but this one and root
    assert folder_problem(folder / "host_key", "the host key") == (
        f"{folder}: belongs to another user (uid 1), who could replace the host key {folder / 'host_key'}; refused. "
        f"Fix: keep it in a folder of your own, such as {config}"
    )
    # A sticky folder of another user's is theirs all the same.
    os.chmod(folder, 0o1777)
    assert "belongs to another user (uid 1)" in folder_problem(folder / "host_key", "the host key")


def test_a_folder_that_cannot_be_checked_is_not_trusted(tmp_path: Path, config: Path) -> None:
    path = tmp_path / "missing" / "gm_keys"
    assert folder_problem(path, "the keys file") == f"{tmp_path / 'missing'}: cannot be checked (No such file or directory), so the keys file {path} is not trusted"


def test_both_the_path_as_given_and_where_its_links_lead(tmp_path: Path, config: Path) -> None:
    unsafe = tmp_path / "open"
    unsafe.mkdir()
    os.chmod(unsafe, 0o777)
    (unsafe / "gm_keys").write_text("")
    safe = tmp_path / "safe"
    safe.mkdir(mode=0o700)
    (safe / "gm_keys").symlink_to(unsafe / "gm_keys")
    assert folder_problem(safe / "gm_keys", "the keys file").startswith(f"{unsafe}: writable by its group and others (mode 0777)")
    # A folder linked into a safe place: the folder the link leads to is the one checked too.
    (tmp_path / "linked").symlink_to(unsafe)
    assert folder_problem(tmp_path / "linked" / "gm_keys", "the keys file").startswith(f"{tmp_path / 'linked'}: writable by its group and others")


def test_a_loop_of_links_still_has_its_path_checked(tmp_path: Path, config: Path) -> None:
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    assert folder_problem(tmp_path / "a", "the keys file") == ""
    os.chmod(tmp_path, 0o777)
    try:
        assert folder_problem(tmp_path / "a", "the keys file").startswith(f"{tmp_path}: writable by its group and others")
    finally:
        os.chmod(tmp_path, 0o700)


def test_a_keys_file_others_may_write_or_not_a_file_is_refused(tmp_path: Path, config: Path) -> None:
    path = _write(tmp_path / "gm_keys", "")
    assert keys_file_problem(path, os.stat(path)) == ""
    os.chmod(path, 0o644)
    assert keys_file_problem(path, os.stat(path)) == ""  # others may read it: it holds public keys
    for mode in (0o611, 0o755, 0o711):  # read or run: no one can put a key in it
        os.chmod(path, mode)
        assert keys_file_problem(path, os.stat(path)) == ""
    for mode, who in ((0o620, "its group"), (0o602, "others"), (0o666, "its group and others"), (0o603, "others"), (0o621, "its group"),
                      (0o632, "its group and others")):
        os.chmod(path, mode)
        assert keys_file_problem(path, os.stat(path)) == (
            f"{path}: writable by {who} (mode {mode:04o}), so they could add their own key and become GM; refused. Fix: chmod go-w {path}"
        )
    folder = tmp_path / "dir"
    folder.mkdir()
    assert keys_file_problem(folder, os.stat(folder)) == f"{folder}: not a regular file; an authorized_keys file is expected"
    os.mkfifo(tmp_path / "fifo", 0o600)
    assert keys_file_problem(tmp_path / "fifo", os.stat(tmp_path / "fifo")).endswith("not a regular file; an authorized_keys file is expected")


@as_root
def test_a_keys_file_of_another_user_is_refused(tmp_path: Path, config: Path) -> None:
    path = _write(tmp_path / "gm_keys", "")
    os.chown(path, 1, -1)  # uid 1: any account but this one and root
    assert keys_file_problem(path, os.stat(path)) == (
        f"{path}: belongs to another user (uid 1), who could make themselves GM; fix: chown {os.getuid()} {path}"
    )


def test_a_safe_keys_file_in_an_unsafe_folder_is_refused(tmp_path: Path, config: Path) -> None:
    folder = tmp_path / "open"
    folder.mkdir()
    os.chmod(folder, 0o775)
    path = _write(folder / "gm_keys", "")
    assert keys_file_problem(path, os.stat(path)).startswith(f"{folder}: writable by its group (mode 0775), so they could put their own the keys file in place of {path}")


def test_a_host_key_others_may_read_is_refused(tmp_path: Path, config: Path) -> None:
    path = _write(tmp_path / "host_key", "x")
    assert host_key_problem(path, os.stat(path)) == ""
    for mode, who in ((0o640, "its group"), (0o604, "others"), (0o644, "its group and others"), (0o610, "its group"),
                      (0o601, "others"), (0o620, "its group")):
        os.chmod(path, mode)
        assert host_key_problem(path, os.stat(path)) == (
            f"{path}: the host key is readable or writable by {who} (mode {mode:04o}); anyone who reads it can pose as this server. "
            f"Refused. Fix: chmod 600 {path}"
        )
    folder = tmp_path / "open"
    folder.mkdir()
    os.chmod(folder, 0o777)
    inside = _write(folder / "host_key", "x")
    assert host_key_problem(inside, os.stat(inside)).startswith(f"{folder}: writable by its group and others (mode 0777), so they could put their own the host key")


@as_root
def test_a_host_key_of_another_user_is_refused(tmp_path: Path, config: Path) -> None:
    path = _write(tmp_path / "host_key", "x")
    os.chown(path, 1, -1)
    assert host_key_problem(path, os.stat(path)) == f"{path}: the host key belongs to another user (uid 1); fix: chown {os.getuid()} {path}"


@pytest.mark.parametrize(("name", "old", "option"), [("gm_keys", ".tracker_gm_keys", "--gm-keys FILE"), ("viewer_keys", ".tracker_viewer_keys", "--viewer-keys FILE"),
                                                     ("players_keys", ".tracker_player_keys", "--players-keys FILE"), ("host_key", ".tracker_host_key", "--host-key FILE")])
def test_a_file_left_in_the_saves_folder_is_to_be_moved(tmp_path: Path, config: Path, name: str, old: str, option: str) -> None:
    saves = tmp_path / "saves"
    saves.mkdir()
    assert old_place_problem(saves, name, option) == ""
    (saves / old).write_text("")
    why = "keys files and the host key no longer live in the saves folder, where anyone who may write the folder (its group) could rename one into another and become GM"
    assert old_place_problem(saves, name, option) == (
        f"{saves / old}: {why}. Move it: mkdir -p -m 700 {config} && mv {saves / old} {config / name} (or name it with {option})"
    )


def test_a_file_planted_in_the_saves_folder_is_to_be_removed_never_moved(tmp_path: Path, config: Path) -> None:
    saves = tmp_path / "saves"
    saves.mkdir()
    (saves / ".tracker_gm_keys").symlink_to(tmp_path / "elsewhere")  # a link, even one leading nowhere
    said = old_place_problem(saves, "gm_keys", "--gm-keys FILE")
    assert said.endswith(f"; this one a link, so you did not put it there: look at it, then remove it (rm {saves / '.tracker_gm_keys'})")
    assert "mv " not in said


@as_root
def test_a_file_of_another_user_in_the_saves_folder_is_to_be_removed(tmp_path: Path, config: Path) -> None:
    saves = tmp_path / "saves"
    saves.mkdir()
    (saves / ".tracker_host_key").write_text("")
    os.chown(saves / ".tracker_host_key", 4321, -1)
    said = old_place_problem(saves, "host_key", "--host-key FILE")
    assert said.endswith(f"; this one belongs to another user (uid 4321), so you did not put it there: look at it, then remove it (rm {saves / '.tracker_host_key'})")
    assert said.startswith(f"{saves / '.tracker_host_key'}: keys files and the host key no longer live in the saves folder")


def _as_another_account(work: Any) -> str:
    """`work()`'s answer in a forked child running as uid 4321 (not root)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            os.setgid(4321)
            os.setuid(4321)
            answer = str(work())
        except BaseException as exc:  # the child never returns into the test run
            answer = f"error: {exc!r}"
        os.write(w, answer.encode())
        os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as got:
        data = got.read().decode()
    os.waitpid(pid, 0)
    return data


@as_root
def test_an_accounts_own_folders_and_files_are_trusted_by_it(config: Path) -> None:
    """Not only root's: run as another account, what that account owns is its own."""
    own = Path(tempfile.mkdtemp(prefix="tracker-keys-"))  # under /tmp (sticky, root's), where that account can reach it
    try:
        keys = _write(own / "gm_keys", "")
        host_key = _write(own / "host_key", "x")
        for made in (own, keys, host_key):
            os.chown(made, 4321, 4321)
        assert _as_another_account(lambda: folder_problem(keys, "the keys file")) == ""
        assert _as_another_account(lambda: keys_file_problem(keys, os.stat(keys))) == ""
        assert _as_another_account(lambda: host_key_problem(host_key, os.stat(host_key))) == ""
        os.chown(keys, 0, 0)  # root's: trusted too
        assert _as_another_account(lambda: keys_file_problem(keys, os.stat(keys))) == ""
    finally:
        shutil.rmtree(own)


# ------------------------------------------------------------------ who a person is


def test_a_name_as_the_log_shows_it() -> None:
    assert clean_name("  Bob \t Smith\n") == "Bob Smith"
    assert clean_name("") == clean_name("   ") == ""
    assert clean_name("bob\x1b[31m") == ""  # a terminal control: not a name
    assert clean_name("zoë") == "zoë"
    assert clean_name("x" * 70) == "x" * NAME_LIMIT == "x" * 64
    assert clean_name("y" * 64) == "y" * 64


def test_a_key_with_no_name_is_named_by_its_fingerprint() -> None:
    key = _key()
    assert fingerprint_name(key) == "key-" + _fingerprint8(key)
    assert len(fingerprint_name(key)) == 12


def _file(tmp_path: Path, name: str, text: str, players: bool = False) -> KeysFile:
    return KeysFile(_write(tmp_path / name, text), players=players)


def test_each_lines_comment_and_name(tmp_path: Path, config: Path) -> None:
    bob, dan, eve, ann, quoted, bare, odd, sly, x11 = (_key() for _ in range(9))
    text = (
        "# the table's keys\n\n"
        + _line(bob, comment="bob@laptop")
        + _line(dan, 'name="Dan",combatant="Nyx,Ghost",from="10.0.0.*"', "dan@desk")
        + _line(eve, 'combatant="A B",name="Eve Long"', "eve at home")
        + _line(ann, "name=Ann,pc=pc1")
        + _line(quoted, r'name="Say \"hi\""', "q")
        + _line(bare)
        + _line(odd, 'xname="Nope",rename=x,name=')
        + _line(sly, "from=\"*\"", "sly,name=Mallory")
        + _line(x11, 'no-X11-forwarding,name="Xena"', "x")
        + "ssh-ed25519 notakey comment\n"
        + "ssh-ed25519\n"
    )
    f = _file(tmp_path, "gm_keys", text)
    f.current()
    assert f.entries == {
        bob.public_data: Entry("bob@laptop", ""),
        dan.public_data: Entry("dan@desk", "Dan"),
        eve.public_data: Entry("eve at home", "Eve Long"),
        ann.public_data: Entry("", "Ann"),
        quoted.public_data: Entry("q", 'Say "hi"'),
        bare.public_data: Entry("", ""),
        odd.public_data: Entry("", ""),
        sly.public_data: Entry("sly,name=Mallory", ""),  # a comment names nobody
        x11.public_data: Entry("x", "Xena"),
    }


def test_identity_from_the_name_else_the_comment_else_the_fingerprint(tmp_path: Path, config: Path) -> None:
    named, commented, bare, controlled = _key(), _key(), _key(), _key()
    gm = _file(tmp_path, "gm_keys", _line(named, 'name="  Ann  Lee "', "ann@laptop") + _line(commented, comment="bob@laptop")
               + _line(bare) + _line(controlled, 'name="\x1b]0;x\x07"', "carl@desk"))
    ring = KeyRing(gm, KeysFile(None))
    gm.current()
    assert ring.identity(named, GM) == "Ann Lee"
    assert ring.identity(commented, GM) == "bob@laptop"
    assert ring.identity(bare, GM) == "key-" + _fingerprint8(bare)
    assert ring.identity(controlled, GM) == "carl@desk"  # a name that cannot be shown: the next source
    assert ring.key_line(commented, GM) == f"{commented.get_fingerprint('sha256')} (bob@laptop)"
    # Looked up in the file that gave the role: not in the viewers' file, so nameless there.
    assert ring.identity(named, VIEWER) == "key-" + _fingerprint8(named)
    assert ring.key_line(named) == f"{named.get_fingerprint('sha256')} (key-{_fingerprint8(named)})"


def test_two_keys_that_share_only_a_comment_are_told_apart(tmp_path: Path, config: Path) -> None:
    one, two, laptop, desktop, solo = _key(), _key(), _key(), _key(), _key()
    gm = _file(tmp_path, "gm_keys", _line(one, comment="pi@raspberrypi") + _line(laptop, 'name="Dan"', "dan@laptop"))
    viewers = _file(tmp_path, "viewer_keys", _line(two, comment="PI@RaspberryPi") + _line(solo, comment="sol")
                    + _line(desktop, 'name="Dan"', "dan@desk") + _line(one, comment="pi@raspberrypi"))
    players = _file(tmp_path, "players_keys", _line(_key(), 'combatant="Seraph",name="sol"', "x"), players=True)
    ring = KeyRing(gm, viewers, player=players)
    for f in (gm, viewers, players):
        f.current()
    assert ring.identity(one, GM) == f"pi@raspberrypi ({fingerprint_name(one)})"
    assert ring.identity(two, VIEWER) == f"PI@RaspberryPi ({fingerprint_name(two)})"
    # One person on two machines, by name= on purpose.
    assert ring.identity(laptop, GM) == ring.identity(desktop, VIEWER) == "Dan"
    # A comment another key gives as its name is shared too.
    assert ring.identity(solo, VIEWER) == f"sol ({fingerprint_name(solo)})"


def test_the_same_key_in_two_files_is_one_person(tmp_path: Path, config: Path) -> None:
    key = _key()
    gm = _file(tmp_path, "gm_keys", _line(key, comment="gm@home"))
    viewers = _file(tmp_path, "viewer_keys", _line(key, comment="gm@home"))
    ring = KeyRing(gm, viewers)
    gm.current()
    viewers.current()
    assert ring.identity(key, GM) == "gm@home"


# ------------------------------------------------------------------ the players' lines


def test_the_combatants_a_line_names() -> None:
    assert combatants_of({"combatant": ["Seraph"]}) == ("Seraph",)
    assert combatants_of({"combatant": ["Nyx, Ghost", " Seraph ", "Nyx", "", "Bad\x07", 7]}) == ("Nyx", "Ghost", "Seraph", "7")
    assert combatants_of({"combatant": "Seraph"}) == ()  # not as asyncssh keeps it
    assert combatants_of({"pc": ["pc1,pc2"]}, "pc") == ("pc1", "pc2")
    assert combatants_of({"pc": ["pc1"]}) == ()
    assert combatants_of(None) == combatants_of(["combatant"]) == ()


def test_lines_that_name_no_combatant() -> None:
    text = ("# players\n\n"
            'combatant="Seraph" ssh-ed25519 AAAA bob\n'
            "ssh-ed25519 AAAA nobody\n"
            'name="Dan",combatant="Nyx,Ghost",from="10.0.0.*" ssh-ed25519 AAAA dan\n'
            'pc="pc2" ssh-ed25519 AAAA ann\n'
            'name="combatant=x" ssh-ed25519 AAAA sly\n'
            'xcombatant="Seraph",combatants="Nyx" ssh-ed25519 AAAA sly\n'
            '  # an indented comment\n'
            'from="10.0.0.1,10.0.0.2",combatant="Nyx"\tssh-ed25519 AAAA tabbed\n'
            ' combatant = "Seraph" ssh-ed25519 AAAA spaced\n'
            'name="a b",pc="pc1" ssh-ed25519 AAAA spaced-name\n'
            'name="Sly,combatant=Seraph" ssh-ed25519 AAAA sly\n'
            'from="*" ssh-ed25519 AAAA sly,combatant=Seraph\n'
            'no-X11-forwarding,combatant="Seraph" ssh-ed25519 AAAA x11\n')
    # A name, a quoted value or a comment that says `combatant=` names nobody.
    assert lines_without_combatant(text) == [4, 7, 8, 13, 14]
    assert lines_without_combatant("") == []


def test_a_players_file_names_its_lines_without_combatants(tmp_path: Path, config: Path) -> None:
    seraph, stranger = _key(), _key()
    players = _file(tmp_path, "players_keys", "# players\n" + _line(seraph, 'combatant="Seraph"') + _line(stranger) + _line(_key(), "from=\"*\""),
                    players=True)
    ring = KeyRing(KeysFile(None), KeysFile(None), player=players)
    assert players.current() is not None
    assert players.problem == (
        f"{players.path}: line 3, 4 names no combatant; such a key is refused. "
        'Fix: begin the line with combatant="NAME" (or "NAME,NAME"; at a campaign\'s table pc="pc1" names a character by its id)'
    )
    # The others still get in; the line without a combatant admits nobody.
    assert ring.role_for(seraph, HOST, ADDR) == PLAYER and ring.combatants(seraph, HOST, ADDR) == ("Seraph",)
    assert ring.role_for(stranger, HOST, ADDR) is None
    # The same lines in a GM's file are no problem.
    gm = _file(tmp_path, "gm_keys", _line(stranger))
    gm.current()
    assert gm.problem == ""


# ------------------------------------------------------------------ a keys file, read again when it changes


def test_no_file_named_or_none_there(tmp_path: Path) -> None:
    assert KeysFile(None).current() is None
    missing = KeysFile(tmp_path / "gm_keys")
    assert missing.current() is None and missing.problem == f"{tmp_path / 'gm_keys'}: no such file"


def test_an_empty_file_or_only_comments_is_nobody_yet(tmp_path: Path, config: Path) -> None:
    for text in ("", "\n  \n", "# the GM's keys\n   # indented\n"):
        f = _file(tmp_path, "gm_keys", text)
        assert f.current() is None and f.problem == "" and f.entries == {}


def test_read_again_when_it_changes_in_any_way(tmp_path: Path, config: Path) -> None:
    one, two = _key(), _key()
    f = _file(tmp_path, "gm_keys", _line(one))
    first = f.current()
    assert first is not None and first.validate(one.convert_to_public(), HOST, ADDR) is not None
    assert f.current() is first  # unchanged: not read again
    stamp = os.stat(f.path)  # type: ignore[arg-type]
    # Same size, same time, another key: a file renamed into place.
    other = _write(tmp_path / "new_keys", _line(two))
    os.utime(other, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    os.replace(other, tmp_path / "gm_keys")
    got = f.current()
    assert got is not None and got.validate(two.convert_to_public(), HOST, ADDR) is not None
    assert got.validate(one.convert_to_public(), HOST, ADDR) is None
    # Written in place, same size, the time put back: the inode alone would not tell, the size would not either.
    stamp = os.stat(f.path)  # type: ignore[arg-type]
    _write(f.path, _line(one))  # type: ignore[arg-type]
    os.utime(f.path, ns=(stamp.st_atime_ns, stamp.st_mtime_ns + 1_000_000))  # type: ignore[arg-type]
    got = f.current()
    assert got is not None and got.validate(one.convert_to_public(), HOST, ADDR) is not None
    # A line added, the time put back: the size tells.
    stamp = os.stat(f.path)  # type: ignore[arg-type]
    with open(f.path, "a", encoding="utf-8") as more:  # type: ignore[arg-type]
        more.write(_line(two))
    os.utime(f.path, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))  # type: ignore[arg-type]
    got = f.current()
    assert got is not None and got.validate(two.convert_to_public(), HOST, ADDR) is not None


def test_a_file_made_unsafe_lets_nobody_in_until_fixed(tmp_path: Path, config: Path) -> None:
    key = _key()
    f = _file(tmp_path, "gm_keys", _line(key, comment="gm@home"))
    assert f.current() is not None
    os.chmod(f.path, 0o666)  # type: ignore[arg-type]
    assert f.current() is None
    assert f.problem.startswith(f"{f.path}: writable by its group and others (mode 0666)") and f.entries == {}
    os.chmod(f.path, 0o600)  # type: ignore[arg-type]
    assert f.current() is not None and f.problem == "" and f.entries == {key.public_data: Entry("gm@home", "")}


@pytest.mark.parametrize("text", [b"\xff\xfe not text\n", b'from="x ssh-ed25519 AAAA\n'])
def test_a_broken_file_counts_as_empty_never_as_the_old_list(tmp_path: Path, config: Path, text: bytes) -> None:
    """A GM who removes a key and breaks the file must not leave the key valid."""
    key = _key()
    f = _file(tmp_path, "gm_keys", _line(key, comment="old"))
    assert f.current() is not None
    _write(f.path, text + _line(key).encode())  # type: ignore[arg-type]
    assert f.current() is None
    assert f.entries == {} and f.problem.startswith(f"{f.path}: cannot be read as an authorized_keys file: ")
    assert f.problem != f"{f.path}: cannot be read as an authorized_keys file: "


# ------------------------------------------------------------------ roles


def test_roles_the_more_capable_wins_everything_else_refused(tmp_path: Path, config: Path) -> None:
    gm, both, player, viewer, stranger, penned = (_key() for _ in range(6))
    ring = KeyRing.from_options(tmp_path, str(_file(tmp_path, "g", _line(gm) + _line(both)).path),
                                str(_file(tmp_path, "v", _line(viewer) + _line(both) + _line(player)).path), False,
                                str(_file(tmp_path, "p", _line(player, 'combatant="Seraph,Nyx",pc="pc2"') + _line(both, 'combatant="Ghost"')
                                          + _line(penned, 'from="192.0.2.*",combatant="Sphinx"')).path))
    assert ring.role_for(gm, HOST, ADDR) == GM
    assert ring.role_for(both, HOST, ADDR) == GM  # in every file: the GM listed it on purpose
    assert ring.role_for(player, HOST, ADDR) == PLAYER  # a player and a viewer: a player
    assert ring.role_for(viewer, HOST, ADDR) == VIEWER
    assert ring.role_for(stranger, HOST, ADDR) is None
    # `from=` is honoured: elsewhere the line admits nobody.
    assert ring.role_for(penned, HOST, ADDR) is None
    assert ring.role_for(penned, "192.0.2.9", "192.0.2.9") == PLAYER
    # The names are the file's, never the client's.
    assert ring.characters(player, HOST, ADDR) == (("Seraph", "Nyx"), ("pc2",))
    assert ring.combatants(player, HOST, ADDR) == ("Seraph", "Nyx")
    assert ring.characters(gm, HOST, ADDR) == ((), ())
    assert ring.characters(stranger, HOST, ADDR) == ((), ())
    ring.open_viewers = True
    assert ring.role_for(stranger, HOST, ADDR) == VIEWER
    assert ring.role_for(gm, HOST, ADDR) == GM


@pytest.mark.parametrize("role", [GM, PLAYER, VIEWER])
def test_from_checked_against_the_clients_name_and_its_address(tmp_path: Path, config: Path, role: str) -> None:
    """`from=` patterns match the client's host name or its address (OpenSSH's), in every file."""
    by_name, by_address = _key(), _key()
    combatant = 'combatant="Seraph",' if role == PLAYER else ""
    f = _file(tmp_path, role, _line(by_name, f'{combatant}from="*.example.org"') + _line(by_address, f'{combatant}from="10.0.0.*"'), players=role == PLAYER)
    ring = KeyRing(f if role == GM else KeysFile(None), f if role == VIEWER else KeysFile(None), player=f if role == PLAYER else KeysFile(None))
    assert ring.role_for(by_name, "pc.example.org", "192.0.2.1") == role
    assert ring.role_for(by_address, "client.example", "10.0.0.5") == role
    assert ring.role_for(by_name, "pc.example.com", "192.0.2.1") is None
    assert ring.role_for(by_address, "client.example", "10.0.1.5") is None
    if role == PLAYER:
        assert ring.combatants(by_name, "pc.example.org", "192.0.2.1") == ("Seraph",)
        assert ring.combatants(by_address, "client.example", "10.0.0.5") == ("Seraph",)
        assert ring.characters(by_name, "pc.example.org", "192.0.2.1") == (("Seraph",), ())


def test_a_player_line_naming_nobody_usable_is_no_player(tmp_path: Path, config: Path) -> None:
    blank, pc_only = _key(), _key()
    players = _file(tmp_path, "p", _line(blank, 'combatant=" , "') + _line(pc_only, 'pc="pc1"'), players=True)
    ring = KeyRing(KeysFile(None), KeysFile(None), player=players)
    assert ring.role_for(blank, HOST, ADDR) is None
    assert ring.role_for(pc_only, HOST, ADDR) == PLAYER  # a campaign's character by its id
    assert ring.characters(pc_only, HOST, ADDR) == ((), ("pc1",))


def test_with_no_players_file_nobody_is_a_player(tmp_path: Path, config: Path) -> None:
    ring = KeyRing(KeysFile(None), KeysFile(None))
    assert ring.characters(_key(), HOST, ADDR) == ((), ())
    assert ring.role_for(_key(), HOST, ADDR) is None


def test_anyone_can_connect_only_with_a_key_listed_or_open_viewers(tmp_path: Path, config: Path) -> None:
    empty = _file(tmp_path, "empty", "# nobody yet\n")
    assert not KeyRing(empty, KeysFile(None), player=KeysFile(None)).anyone_can_connect()
    assert KeyRing(empty, KeysFile(None), open_viewers=True).anyone_can_connect()
    listed = _file(tmp_path, "listed", _line(_key(), 'combatant="Seraph"'), players=True)
    assert KeyRing(KeysFile(None), KeysFile(None), player=listed).anyone_can_connect()
    assert KeyRing(KeysFile(None), listed).anyone_can_connect()
    assert KeyRing(listed, KeysFile(None)).anyone_can_connect()


def test_problems_each_told_once_until_they_change(tmp_path: Path, config: Path) -> None:
    gm = _file(tmp_path, "gm_keys", _line(_key()))
    players = _file(tmp_path, "players_keys", _line(_key()), players=True)
    viewers = KeysFile(tmp_path / "viewer_keys")  # missing: no problem worth telling
    ring = KeyRing(gm, viewers, player=players)
    for f in (gm, viewers, players):
        f.current()
    assert ring.problems() == [players.problem]
    assert ring.new_problems() == [players.problem]
    assert ring.new_problems() == []
    os.chmod(gm.path, 0o622)  # type: ignore[arg-type]
    gm.current()
    assert ring.new_problems() == [gm.problem]
    os.chmod(gm.path, 0o600)  # type: ignore[arg-type]
    gm.current()
    assert ring.new_problems() == []
    os.chmod(gm.path, 0o622)  # type: ignore[arg-type]
    gm.current()
    assert ring.new_problems() == [gm.problem]  # broken again: told again


# ------------------------------------------------------------------ from the command line


def test_named_files_must_be_there(tmp_path: Path, config: Path) -> None:
    missing = str(tmp_path / "nope")
    for given, said in (
        ({"gm_keys": missing}, f"--gm-keys {missing}: no such file (an authorized_keys file: one public key per line)"),
        ({"viewer_keys": missing}, f"--viewer-keys {missing}: no such file (an authorized_keys file: one public key per line)"),
        ({"player_keys": missing}, f'--players-keys {missing}: no such file (an authorized_keys file: one public key per line, each with combatant="NAME")'),
    ):
        args: dict[str, Any] = {"gm_keys": None, "viewer_keys": None, "open_viewers": False, **given}
        with pytest.raises(TrackerError) as refused:
            KeyRing.from_options(tmp_path, **args)
        assert str(refused.value) == said


def test_default_files_in_the_config_folder(tmp_path: Path, config: Path) -> None:
    gm = _key()
    _write(config / "gm_keys", _line(gm))
    ring = KeyRing.from_options(tmp_path, None, None, True)
    assert (ring.gm.path, ring.viewer.path, ring.player.path) == (config / "gm_keys", config / "viewer_keys", config / "players_keys")
    assert ring.player.players and not ring.gm.players and not ring.viewer.players and ring.open_viewers
    assert ring.role_for(gm, HOST, ADDR) == GM
    assert not KeyRing.from_options(tmp_path, None, None, False).open_viewers


def test_an_unsafe_or_unreadable_file_stops_the_start(tmp_path: Path, config: Path) -> None:
    _write(config / "viewer_keys", _line(_key()), 0o666)
    with pytest.raises(TrackerError) as refused:
        KeyRing.from_options(tmp_path, None, None, False)
    assert str(refused.value).startswith(f"{config / 'viewer_keys'}: writable by its group and others (mode 0666)")
    os.remove(config / "viewer_keys")
    _write(config / "players_keys", _line(_key()))
    with pytest.raises(TrackerError) as refused:
        KeyRing.from_options(tmp_path, None, None, False)
    assert str(refused.value).startswith(f"{config / 'players_keys'}: line 1 names no combatant")
    os.remove(config / "players_keys")
    named = _write(tmp_path / "gm", b'from="x ssh-ed25519 AAAA\n')
    with pytest.raises(TrackerError) as refused:
        KeyRing.from_options(tmp_path, str(named), None, False)
    assert str(refused.value).startswith(f"{named}: cannot be read as an authorized_keys file: ")


@pytest.mark.parametrize(("old", "flag", "given"), [(".tracker_gm_keys", "--gm-keys FILE", "gm_keys"), (".tracker_viewer_keys", "--viewer-keys FILE", "viewer_keys"),
                                                    (".tracker_player_keys", "--players-keys FILE", "player_keys")])
def test_a_keys_file_left_in_the_saves_folder_stops_the_start_unless_named(tmp_path: Path, config: Path, old: str, flag: str, given: str) -> None:
    saves = tmp_path / "saves"
    saves.mkdir()
    (saves / old).write_text("")
    with pytest.raises(TrackerError) as refused:
        KeyRing.from_options(saves, None, None, False)
    assert str(refused.value).endswith(f"(or name it with {flag})")
    named = _write(tmp_path / "named", "")
    args: dict[str, Any] = {"gm_keys": None, "viewer_keys": None, "open_viewers": False, given: str(named)}
    ring = KeyRing.from_options(saves, **args)
    assert {GM: ring.gm, PLAYER: ring.player, VIEWER: ring.viewer}[{"gm_keys": GM, "player_keys": PLAYER, "viewer_keys": VIEWER}[given]].path == named


# ------------------------------------------------------------------ the host key


def test_the_host_key_made_once_mode_0600_and_kept(tmp_path: Path, config: Path, umask_0: None) -> None:
    path = tmp_path / "made" / "deeper" / "host_key"
    key, created = load_or_create_host_key(path)
    assert created and key.algorithm == b"ssh-ed25519"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert [stat.S_IMODE(os.stat(f).st_mode) for f in (tmp_path / "made", tmp_path / "made" / "deeper")] == [0o700, 0o700]
    again, created = load_or_create_host_key(path)
    assert not created and again.public_data == key.public_data
    assert asyncssh.read_private_key(str(path)).public_data == key.public_data
    assert key.get_comment() == "tracker serve host key"


def test_a_host_key_others_may_read_is_not_used(tmp_path: Path, config: Path) -> None:
    path = tmp_path / "host_key"
    load_or_create_host_key(path)
    os.chmod(path, 0o644)
    with pytest.raises(TrackerError) as refused:
        load_or_create_host_key(path)
    assert str(refused.value).startswith(f"{path}: the host key is readable or writable by its group and others (mode 0644)")


def test_a_host_key_that_cannot_be_read(tmp_path: Path, config: Path) -> None:
    path = _write(tmp_path / "host_key", "not a key\n")
    with pytest.raises(TrackerError) as refused:
        load_or_create_host_key(path)
    said = str(refused.value)
    assert said.startswith(f"{path}: cannot be read as an SSH private key (") and said.endswith("); move it away to have a new one made")
    assert refused.value.__suppress_context__


def test_a_host_key_in_an_unsafe_folder_is_not_made(tmp_path: Path, config: Path) -> None:
    folder = tmp_path / "open"
    folder.mkdir()
    os.chmod(folder, 0o777)
    with pytest.raises(TrackerError) as refused:
        load_or_create_host_key(folder / "host_key")
    assert str(refused.value).startswith(f"{folder}: writable by its group and others (mode 0777), so they could put their own the host key")
    assert not (folder / "host_key").exists()


def test_a_folder_for_the_host_key_that_cannot_be_made(tmp_path: Path, config: Path) -> None:
    (tmp_path / "file").write_text("")
    with pytest.raises(TrackerError) as refused:
        load_or_create_host_key(tmp_path / "file" / "keys" / "host_key")
    assert str(refused.value) == f"{tmp_path / 'file' / 'keys'}: cannot create the folder for the host key: Not a directory"


def test_two_servers_starting_at_once_present_the_same_key(tmp_path: Path, config: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "host_key"
    theirs = _private()
    real_open = os.open

    def raced(name: Any, flags: int, mode: int = 0o777, **kw: Any) -> int:
        if Path(name) == path and not path.exists():  # the other server writes it first
            _write(path, theirs.export_private_key())
        return real_open(name, flags, mode, **kw)

    monkeypatch.setattr(keys_module.os, "open", raced)
    key, created = load_or_create_host_key(path)
    assert not created and key.public_data == theirs.public_data


def test_a_racing_host_key_others_may_read_is_not_used(tmp_path: Path, config: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "host_key"
    real_open = os.open

    def raced(name: Any, flags: int, mode: int = 0o777, **kw: Any) -> int:
        if Path(name) == path and not path.exists():
            _write(path, _private().export_private_key(), 0o644)
        return real_open(name, flags, mode, **kw)

    monkeypatch.setattr(keys_module.os, "open", raced)
    with pytest.raises(TrackerError) as refused:
        load_or_create_host_key(path)
    assert str(refused.value).startswith(f"{path}: the host key is readable or writable by its group and others (mode 0644)")


def test_a_host_key_that_cannot_be_created(tmp_path: Path, config: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "host_key"

    def refused_open(name: Any, flags: int, mode: int = 0o777, **kw: Any) -> int:
        raise PermissionError(13, "Permission denied", str(name))

    monkeypatch.setattr(keys_module.os, "open", refused_open)
    with pytest.raises(TrackerError) as refused:
        load_or_create_host_key(path)
    assert str(refused.value) == f"{path}: cannot create the host key: Permission denied"


def test_the_host_key_is_never_written_through_a_link(tmp_path: Path, config: Path) -> None:
    """O_EXCL and O_NOFOLLOW: a link put at the key's name is not followed to write the key
    elsewhere; one that leads nowhere is refused in words (it was an OSError, which
    `tracker serve` said as "cannot listen on HOST:PORT: No such file or directory")."""
    target = tmp_path / "elsewhere"
    (tmp_path / "host_key").symlink_to(target)
    with pytest.raises(TrackerError) as refused:
        load_or_create_host_key(tmp_path / "host_key")
    assert str(refused.value) == (f"{tmp_path / 'host_key'}: cannot create the host key: a link that leads nowhere is in its place "
                                  f"(No such file or directory); look at it, then remove it (rm {tmp_path / 'host_key'})")
    assert not target.exists()
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    with pytest.raises(TrackerError) as refused:
        load_or_create_host_key(tmp_path / "loop")
    assert "a link that leads nowhere is in its place (Too many levels of symbolic links)" in str(refused.value)
