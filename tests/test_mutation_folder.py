"""Direct tests of tracker/persistence/folder.py: the saves folder read and written safely.

Expected values come from the module docstring, docs/decisions/0010-shared-folder-files.md
and docs/guide/threat-model.md: a link is followed only while it stays inside the folder,
FIFOs, devices, sockets and oversize files are refused by name, a written file keeps its
read and write bits and group. Most tests run twice: with the descriptor-relative calls
(`AT`, POSIX) and with the path fallback (`AT` False, as on Windows), forced here.
"""

from __future__ import annotations

import errno
import os
import re
import socket
import stat
import sys
from pathlib import Path

import pytest

from tracker.persistence import folder
from tracker.persistence.folder import Refused, Spot

# /proc/self/fd counts open descriptors, O_PATH opens a link or a socket to look at it.
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux descriptor checks")


@pytest.fixture(params=[True, False], ids=["at", "paths"])
def at(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    monkeypatch.setattr(folder, "AT", request.param)
    return bool(request.param)


@pytest.fixture
def table(tmp_path: Path) -> Path:
    place = tmp_path / "table"
    place.mkdir()
    return place


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    secret = tmp_path / "gm-home" / ".bash_login"
    secret.parent.mkdir()
    secret.write_text("secret")
    return secret


# ---------------------------------------------------------------- size_text
@pytest.mark.parametrize(
    ("size", "text"),
    [
        (0, "0 bytes"),
        (1023, "1,023 bytes"),
        (1024 * 1024 - 1, "1,048,575 bytes"),
        (1024 * 1024, "1,048,576 bytes (1 MB)"),
        (25_165_824, "25,165,824 bytes (24 MB)"),
        (1024 * 1024 * 3 // 2, "1,572,864 bytes (1.5 MB)"),
        (2048 * 1024 * 1024, "2,147,483,648 bytes (2,048 MB)"),
    ],
)
def test_size_text_reads_as_a_person_reads_it(size: int, text: str) -> None:
    assert folder.size_text(size) == text


# ---------------------------------------------------------------- Spot
def test_a_spot_names_its_path_its_neighbours_and_its_descriptor(table: Path) -> None:
    (table / "a").mkdir()
    (table / "a" / "f").write_text("x")
    fd = os.open(table / "a", os.O_RDONLY)
    try:
        spot = Spot(fd, "f", table, ("a",))
        assert spot.path == table / "a" / "f"
        assert spot.beside("g") == "g"
        assert spot.fd_arg == fd
        st = spot.lstat()
        assert st is not None and st.st_size == 1
        assert Spot(fd, "missing", table, ("a",)).lstat() is None
        os.symlink("f", table / "a" / "l")
        link = Spot(fd, "l", table, ("a",)).lstat()
        assert link is not None and stat.S_ISLNK(link.st_mode)
    finally:
        os.close(fd)
    paths = Spot(-1, "f", table, ("a",))
    assert paths.beside("g") == str(table / "a" / "g")
    assert paths.fd_arg is None
    st = paths.lstat()
    assert st is not None and st.st_size == 1
    assert Spot(-1, "missing", table, ("a",)).lstat() is None
    link = Spot(-1, "l", table, ("a",)).lstat()
    assert link is not None and stat.S_ISLNK(link.st_mode)


def test_a_spot_at_descriptor_zero_is_a_descriptor(table: Path) -> None:
    spot = Spot(0, "f", table)
    assert spot.fd_arg == 0
    assert spot.beside("g") == "g"


# ---------------------------------------------------------------- locate
def test_a_plain_name_is_found_in_the_folder(at: bool, table: Path) -> None:
    (table / "fight.toml").write_text("x")
    with folder.locate(table, "fight.toml") as spot:
        assert spot.leaf == "fight.toml"
        assert spot.path == table / "fight.toml"
        assert spot.below == ()
        assert (spot.dir_fd >= 0) == at


def test_a_name_below_a_folder_keeps_the_folders_between(at: bool, table: Path) -> None:
    (table / "a" / "b").mkdir(parents=True)
    with folder.locate(table, "a/./b//new.toml") as spot:
        assert spot.leaf == "new.toml"
        assert spot.below == ("a", "b")
        assert spot.path == table / "a" / "b" / "new.toml"
        assert spot.lstat() is None


def test_dot_dot_inside_the_folder_is_fine(at: bool, table: Path) -> None:
    (table / "a").mkdir()
    (table / "f").write_text("x")
    with folder.locate(table, "a/../f") as spot:
        assert spot.path == table / "f"
        assert spot.below == ()


@pytest.mark.parametrize("name", ["../x", "a/../../x"])
def test_dot_dot_climbing_out_is_refused(at: bool, table: Path, name: str) -> None:
    (table / "a").mkdir()
    with pytest.raises(Refused, match="outside"):
        with folder.locate(table, name):
            pass


def test_an_absolute_name_is_refused(at: bool, table: Path) -> None:
    with pytest.raises(Refused, match="expected a name inside .*, got an absolute path"):
        with folder.locate(table, "/etc/passwd"):
            pass


@pytest.mark.parametrize("name", ["", ".", "./", ".//."])
def test_an_empty_name_is_refused(at: bool, table: Path, name: str) -> None:
    with pytest.raises(Refused, match="expected a file name inside"):
        with folder.locate(table, name):
            pass


def test_a_missing_folder_is_not_found(at: bool, tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError) as caught:
        with folder.locate(tmp_path / "nowhere", "f"):
            pass
    assert caught.value.errno == errno.ENOENT
    assert "no such folder" in str(caught.value)


def test_a_missing_folder_on_the_way_is_not_found(at: bool, table: Path) -> None:
    with pytest.raises(FileNotFoundError) as caught:
        with folder.locate(table, "gone/f"):
            pass
    assert caught.value.errno == errno.ENOENT
    assert "no such folder" in str(caught.value)
    assert "gone" in str(caught.value)


def test_a_file_on_the_way_is_not_a_folder(table: Path) -> None:
    (table / "f").write_text("x")
    with pytest.raises(Refused, match="f is not a folder"):
        with folder.locate(table, "f/g"):
            pass


def test_a_folder_that_cannot_be_opened_is_refused(table: Path) -> None:
    (table / "f").write_text("x")
    with pytest.raises(Refused, match="cannot be opened"):
        with folder.locate(table / "f", "g"):
            pass


def test_a_link_inside_the_folder_is_followed(at: bool, table: Path) -> None:
    (table / "fight-3.toml").write_text("x")
    os.symlink("fight-3.toml", table / "current.toml")
    with folder.locate(table, "current.toml") as spot:
        assert spot.leaf == "fight-3.toml"
        assert spot.path == table / "fight-3.toml"


def test_follow_false_keeps_the_link(at: bool, table: Path, outside: Path) -> None:
    os.symlink(outside, table / "out.md")
    with folder.locate(table, "out.md", follow=False) as spot:
        assert spot.leaf == "out.md"
        st = spot.lstat()
        assert st is not None and stat.S_ISLNK(st.st_mode)


def test_a_relative_link_into_a_subfolder_is_followed(at: bool, table: Path) -> None:
    (table / "old").mkdir()
    (table / "old" / "f.toml").write_text("x")
    os.symlink("old/./f.toml", table / "f.toml")
    with folder.locate(table, "f.toml") as spot:
        assert spot.path == table / "old" / "f.toml"


def test_an_absolute_link_inside_the_folder_is_followed(at: bool, table: Path) -> None:
    (table / "old").mkdir()
    (table / "old" / "f.toml").write_text("x")
    (table / "sub").mkdir()
    os.symlink(table / "old" / "f.toml", table / "sub" / "f.toml")
    with folder.locate(table, "sub/f.toml") as spot:
        assert spot.path == table / "old" / "f.toml"
        assert spot.below == ("old",)
        st = spot.lstat()
        assert st is not None and st.st_size == 1


def test_an_absolute_link_through_the_folders_own_link_is_followed(at: bool, tmp_path: Path) -> None:
    real_table = tmp_path / "srv-table"
    real_table.mkdir()
    (real_table / "f.toml").write_text("x")
    os.symlink(real_table, tmp_path / "table")
    os.symlink(real_table / "f.toml", real_table / "current.toml")
    with folder.locate(tmp_path / "table", "current.toml") as spot:
        assert spot.leaf == "f.toml"
        assert os.path.realpath(spot.path) == str(real_table / "f.toml")


@pytest.mark.parametrize("kind", ["absolute", "relative"])
def test_a_link_leading_out_is_refused_naming_where_it_leads(at: bool, table: Path, outside: Path, kind: str) -> None:
    target = str(outside) if kind == "absolute" else "../gm-home/.bash_login"
    os.symlink(target, table / "fight.toml")
    with pytest.raises(Refused) as caught:
        with folder.locate(table, "fight.toml"):
            pass
    assert "outside" in str(caught.value)
    assert "fight.toml" in str(caught.value)


def test_an_absolute_link_to_a_sibling_with_the_folders_name_as_prefix_is_refused(at: bool, tmp_path: Path) -> None:
    (tmp_path / "table").mkdir()
    (tmp_path / "table2").mkdir()
    (tmp_path / "table2" / "f").write_text("x")
    os.symlink(tmp_path / "table2" / "f", tmp_path / "table" / "f")
    with pytest.raises(Refused, match="outside"):
        with folder.locate(tmp_path / "table", "f"):
            pass


@pytest.mark.parametrize("target", ["sub", ".", "sub/.", "ABS"])
def test_a_link_to_a_folder_is_not_a_file(at: bool, table: Path, target: str) -> None:
    (table / "sub").mkdir()
    os.symlink(str(table) if target == "ABS" else target, table / "f")
    with pytest.raises(Refused):
        with folder.locate(table, "f") as spot:
            # the descriptor walk refuses a link to the folder itself; a link to a subfolder
            # yields a folder, which the open then refuses
            folder.open_at(spot, os.O_RDONLY)


def test_a_link_to_the_folder_itself_is_named_a_link_to_a_folder(at: bool, table: Path) -> None:
    os.symlink(".", table / "f")
    with pytest.raises(Refused, match="is a symbolic link to a folder, not a file"):
        with folder.locate(table, "f"):
            pass


def test_links_on_the_way_are_followed(at: bool, table: Path) -> None:
    (table / "real").mkdir()
    (table / "real" / "f").write_text("x")
    os.symlink("real", table / "via")
    with folder.locate(table, "via/f") as spot:
        assert spot.path == table / "real" / "f"


def test_a_chain_of_links_is_followed_up_to_the_limit(table: Path) -> None:
    (table / "f").write_text("x")
    previous = "f"
    for n in range(folder.MAX_LINKS):
        os.symlink(previous, table / f"l{n}")
        previous = f"l{n}"
    with folder.locate(table, previous) as spot:
        assert spot.leaf == "f"
    os.symlink(previous, table / "one-more")
    with pytest.raises(Refused, match=f"more than {folder.MAX_LINKS} symbolic links"):
        with folder.locate(table, "one-more"):
            pass


def test_a_link_loop_is_refused(at: bool, table: Path) -> None:
    os.symlink("b", table / "a")
    os.symlink("a", table / "b")
    with pytest.raises((Refused, OSError)):
        with folder.locate(table, "a") as spot:
            folder.open_at(spot, os.O_RDONLY)


def test_every_descriptor_opened_on_the_walk_is_closed(table: Path) -> None:
    (table / "a" / "b").mkdir(parents=True)
    os.symlink(str(table / "a"), table / "a" / "b" / "up")
    before = len(os.listdir("/proc/self/fd"))
    for name in ["a/b/f", "a/b/up/b/f", "a/b/../f", "a/b/up/../a/f"]:
        with folder.locate(table, name):
            pass
    with pytest.raises(Refused):
        with folder.locate(table, "a/b/../../../x"):
            pass
    assert len(os.listdir("/proc/self/fd")) == before


# ---------------------------------------------------------------- the path fallback only
def test_the_path_fallback_refuses_a_link_out_in_a_folder_on_the_way(monkeypatch: pytest.MonkeyPatch, table: Path, outside: Path) -> None:
    monkeypatch.setattr(folder, "AT", False)
    os.symlink(outside.parent, table / "sub")
    with pytest.raises(Refused, match=r"is a symbolic link leading outside .* \(to "):
        with folder.locate(table, "sub/x", follow=False):
            pass


def test_the_path_fallback_names_the_real_target(monkeypatch: pytest.MonkeyPatch, table: Path, outside: Path) -> None:
    monkeypatch.setattr(folder, "AT", False)
    os.symlink(outside, table / "f")
    with pytest.raises(Refused) as caught:
        with folder.locate(table, "f"):
            pass
    assert f"(to {outside})" in str(caught.value)
    assert str(table / "f") in str(caught.value)


def test_the_path_fallback_spot_is_the_real_place(monkeypatch: pytest.MonkeyPatch, table: Path) -> None:
    monkeypatch.setattr(folder, "AT", False)
    (table / "a").mkdir()
    with folder.locate(table, "a/new") as spot:
        assert spot.dir_fd == -1
        assert spot.folder == Path(os.path.realpath(table))
        assert spot.below == ("a",)
        assert spot.leaf == "new"


# ---------------------------------------------------------------- opening
def _fifo(table: Path, name: str = "f") -> Path:
    path = table / name
    os.mkfifo(path)
    return path


def test_a_leaf_that_is_a_link_is_never_opened_through(at: bool, table: Path, outside: Path) -> None:
    os.symlink(outside, table / "f")
    with folder.locate(table, "f", follow=False) as spot:
        with pytest.raises(Refused) as caught:
            folder.open_at(spot, os.O_RDONLY)
    assert "became a symbolic link while being opened; not followed" in str(caught.value)


def test_open_at_without_a_what_names_a_file(at: bool, table: Path) -> None:
    _fifo(table)
    with folder.locate(table, "f") as spot:
        with pytest.raises(Refused) as caught:
            folder.open_at(spot, os.O_RDONLY)
    assert str(caught.value) == f"{table / 'f'}: expected a regular file, found a FIFO; it is not opened"


def test_open_file_reads_a_regular_file_in_blocking_mode(at: bool, table: Path) -> None:
    (table / "f").write_text("hello")
    fd = folder.open_file(table / "f", limit=5)
    try:
        assert os.get_blocking(fd)
        assert os.read(fd, 10) == b"hello"
    finally:
        os.close(fd)


def test_open_file_takes_a_name_inside_a_given_folder(at: bool, table: Path) -> None:
    (table / "a").mkdir()
    (table / "a" / "f").write_text("hi")
    fd = folder.open_file(Path("a/f"), folder=table)
    try:
        assert os.read(fd, 10) == b"hi"
    finally:
        os.close(fd)


@pytest.mark.parametrize("flags", [os.O_RDONLY, os.O_WRONLY])
def test_a_fifo_is_refused_by_name_without_blocking(at: bool, table: Path, flags: int) -> None:
    path = _fifo(table)
    with pytest.raises(Refused) as caught:
        folder.open_file(path, flags, what="save")
    assert str(caught.value) == f"{path}: expected a regular save, found a FIFO; it is not opened"


def test_a_fifo_opened_for_writing_without_a_what_says_file(at: bool, table: Path) -> None:
    path = _fifo(table)
    with pytest.raises(Refused) as caught:
        folder.open_file(path, os.O_WRONLY)
    assert str(caught.value) == f"{path}: expected a regular file, found a FIFO; it is not opened"


def test_a_folder_is_refused_by_name(table: Path) -> None:
    (table / "d").mkdir()
    with pytest.raises(Refused) as caught:
        folder.open_file(table / "d")
    assert str(caught.value) == f"{table / 'd'}: expected a regular file, found a folder; it is not opened"


@pytest.mark.parametrize(("kind", "device"), [(stat.S_IFCHR, os.makedev(1, 3)), (stat.S_IFBLK, os.makedev(7, 200))])
def test_a_device_is_refused_by_name(at: bool, table: Path, kind: int, device: int) -> None:
    path = table / "dev"
    try:
        os.mknod(path, kind | 0o600, device)
    except PermissionError:
        pytest.skip("making a device needs privileges")
    with pytest.raises(Refused) as caught:
        folder.open_file(path, what="lock")
    assert str(caught.value) == f"{path}: expected a regular lock, found a device; it is not opened"


def test_a_socket_is_refused_by_name(table: Path) -> None:
    path = table / "s"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))
        spot = Spot(-1, "s", table)
        with pytest.raises(Refused) as caught:
            fd = os.open(path, os.O_RDONLY | os.O_PATH)  # a socket cannot be opened: check the kind directly
            try:
                folder._check_regular(fd, path, None, "")
            finally:
                os.close(fd)
        assert str(caught.value) == f"{path}: expected a regular file, found a socket; it is not opened"
        assert spot.lstat() is not None


def test_a_file_over_the_limit_is_refused_with_its_size(at: bool, table: Path) -> None:
    path = table / "f"
    path.write_bytes(b"x" * 11)
    with pytest.raises(Refused) as caught:
        folder.open_file(path, limit=10, what="save")
    assert str(caught.value) == f"{path}: 11 bytes; saves over 10 bytes are refused before they are read"
    with pytest.raises(Refused) as caught:
        folder.open_file(path, limit=10)
    assert str(caught.value) == f"{path}: 11 bytes; files over 10 bytes are refused before they are read"
    fd = folder.open_file(path, limit=11)
    os.close(fd)


def test_other_open_errors_pass_through(at: bool, table: Path) -> None:
    with pytest.raises(FileNotFoundError):
        folder.open_file(table / "missing")


def test_a_refused_open_leaves_no_descriptor_open(table: Path) -> None:
    (table / "d").mkdir()
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(3):
        with pytest.raises(Refused):
            folder.open_file(table / "d")
    assert len(os.listdir("/proc/self/fd")) == before


# ---------------------------------------------------------------- reading
def test_read_bytes_reads_the_whole_file(at: bool, table: Path) -> None:
    data = bytes(range(256)) * 5000  # over one read of 1 MB? no: many parts via pread
    (table / "f").write_bytes(data)
    assert folder.read_bytes(table / "f", len(data)) == data
    (table / "e").write_bytes(b"")
    assert folder.read_bytes(table / "e", 0) == b""


def test_read_fd_reads_a_file_that_grew_after_the_check(table: Path) -> None:
    path = table / "f"
    path.write_bytes(b"abc")
    fd = os.open(path, os.O_RDWR)
    try:
        os.pwrite(fd, b"x" * (3 << 20), 3)  # grows by 3 MB: more than one read after the first
        assert folder.read_fd(fd, None, path) == b"abc" + b"x" * (3 << 20)
    finally:
        os.close(fd)


def test_read_fd_refuses_a_file_grown_past_the_limit(table: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = table / "f"
    path.write_bytes(b"x" * 20)
    fd = os.open(path, os.O_RDONLY)
    try:
        assert folder.read_fd(fd, 20, path) == b"x" * 20
        with pytest.raises(Refused) as caught:
            folder.read_fd(fd, 19, path, "save")
        assert str(caught.value) == f"{path}: over 19 bytes (it grew while being read); saves that big are refused"
        with pytest.raises(Refused) as caught:
            folder.read_fd(fd, 19, path)
        assert str(caught.value) == f"{path}: over 19 bytes (it grew while being read); files that big are refused"
    finally:
        os.close(fd)


def test_read_fd_without_pread(table: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = table / "f"
    path.write_bytes(b"0123456789")
    monkeypatch.delattr(os, "pread")
    fd = os.open(path, os.O_RDONLY)
    try:
        assert folder.pread(fd, 4, 3) == b"3456"
        assert folder.read_fd(fd, 10, path) == b"0123456789"
    finally:
        os.close(fd)


def test_pread_reads_at_the_offset(table: Path) -> None:
    path = table / "f"
    path.write_bytes(b"0123456789")
    fd = os.open(path, os.O_RDONLY)
    try:
        assert folder.pread(fd, 4, 3) == b"3456"
    finally:
        os.close(fd)


def test_read_bytes_of_a_missing_file(at: bool, table: Path) -> None:
    assert folder.read_bytes(table / "f", 10, missing_ok=True) is None
    with pytest.raises(FileNotFoundError):
        folder.read_bytes(table / "f", 10)
    with pytest.raises(FileNotFoundError):
        folder.read_bytes(table / "f", 10, missing_ok=False)


def test_read_bytes_inside_a_given_folder_refuses_oversize(at: bool, table: Path) -> None:
    (table / "a").mkdir()
    (table / "a" / "f").write_bytes(b"12345")
    assert folder.read_bytes(Path("a/f"), 5, folder=table) == b"12345"
    with pytest.raises(Refused, match="libraries over 4 bytes|librarys over 4 bytes"):
        folder.read_bytes(Path("a/f"), 4, folder=table, what="library")


# ---------------------------------------------------------------- lstat, exists, real, refusal
def test_lstat_exists_and_real(at: bool, table: Path, outside: Path) -> None:
    (table / "f").write_text("abc")
    os.symlink("f", table / "cur")
    st = folder.lstat(table / "cur")
    assert st is not None and st.st_size == 3 and stat.S_ISREG(st.st_mode)
    assert folder.lstat(table / "none") is None
    assert folder.real(table / "cur") == Path(os.path.realpath(table)) / "f"
    assert folder.exists(table / "cur")
    assert not folder.exists(table / "none")
    os.symlink(outside, table / "out")
    assert folder.exists(table / "out")
    os.symlink(table / "gone", table / "dangling")
    assert folder.exists(table / "dangling")
    with pytest.raises(Refused):
        folder.lstat(table / "out")


def test_refusal_says_why_or_nothing(at: bool, table: Path, outside: Path) -> None:
    (table / "ok").write_text("abc")
    assert folder.refusal(table / "ok") == ""
    assert folder.refusal(table / "ok", limit=3) == ""
    assert folder.refusal(table / "ok", limit=2, what="save") == f"{table / 'ok'}: 3 bytes; saves over 2 bytes are refused before they are read"
    assert folder.refusal(table / "missing") == ""
    os.symlink(outside, table / "out")
    assert "leading outside" in folder.refusal(table / "out")
    _fifo(table, "fifo")
    assert "found a FIFO" in folder.refusal(table / "fifo")
    assert folder.refusal(table / "gone" / "x") == ""


def test_refusal_closes_what_it_opened(table: Path) -> None:
    (table / "ok").write_text("abc")
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(3):
        assert folder.refusal(table / "ok") == ""
    assert len(os.listdir("/proc/self/fd")) == before


# ---------------------------------------------------------------- writing
def test_replace_writes_a_new_file_with_the_umasks_mode(at: bool, table: Path) -> None:
    old = os.umask(0o027)
    try:
        assert folder.replace(table / "f", b"data") is False
    finally:
        os.umask(old)
    assert (table / "f").read_bytes() == b"data"
    assert stat.S_IMODE((table / "f").stat().st_mode) == 0o640
    assert os.umask(old) == old  # the umask is left as it was


def test_replace_gives_a_new_file_the_mode_asked_for_without_exec_bits(at: bool, table: Path) -> None:
    folder.replace(table / "f", b"d", mode=0o4777)
    assert stat.S_IMODE((table / "f").stat().st_mode) == 0o666


def test_replace_keeps_read_and_write_bits_and_drops_the_rest(at: bool, table: Path) -> None:
    path = table / "f"
    path.write_text("old")
    os.chmod(path, 0o6775)
    folder.replace(path, b"new", mode=0o600)
    assert path.read_bytes() == b"new"
    assert stat.S_IMODE(path.stat().st_mode) == 0o664


def test_replace_keeps_the_files_group(at: bool, table: Path) -> None:
    path = table / "f"
    path.write_text("old")
    os.chown(path, -1, 4242)
    folder.replace(path, b"new")
    assert path.stat().st_gid == 4242
    assert path.stat().st_uid == os.getuid()  # the owner is the writer, as before


def test_a_group_that_cannot_be_kept_is_no_error(at: bool, table: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = table / "f"
    path.write_text("old")
    os.chown(path, -1, 4242)

    def refuses(*args: object) -> None:
        raise PermissionError(errno.EPERM, "not a member of that group")

    monkeypatch.setattr(os, "fchown", refuses)
    folder.replace(path, b"new")
    assert path.read_bytes() == b"new"


def test_replace_writes_a_large_file_whole(at: bool, table: Path) -> None:
    data = os.urandom(3 << 20)
    folder.replace(table / "f", data)
    assert (table / "f").read_bytes() == data


def test_replace_follows_a_link_inside_the_folder(at: bool, table: Path) -> None:
    (table / "fight-3.toml").write_text("old")
    os.symlink("fight-3.toml", table / "current.toml")
    assert folder.replace(table / "current.toml", b"new") is False
    assert (table / "fight-3.toml").read_bytes() == b"new"
    assert os.path.islink(table / "current.toml")


def test_replace_without_follow_replaces_the_link_itself(at: bool, table: Path, outside: Path) -> None:
    os.symlink(outside, table / "out.md")
    assert folder.replace(table / "out.md", b"export", follow=False) is True
    assert not os.path.islink(table / "out.md")
    assert (table / "out.md").read_bytes() == b"export"
    assert outside.read_text() == "secret"
    assert sorted(os.listdir(table)) == ["out.md"]


def test_replace_refuses_a_link_out(at: bool, table: Path, outside: Path) -> None:
    os.symlink(outside, table / "f")
    with pytest.raises(Refused):
        folder.replace(table / "f", b"x")
    assert outside.read_text() == "secret"


def test_replace_refuses_a_fifo_and_leaves_nothing_beside_it(at: bool, table: Path) -> None:
    _fifo(table)
    with pytest.raises(Refused) as caught:
        folder.replace(table / "f", b"x", what="lock")
    assert str(caught.value).startswith(f"{table / 'f'}: expected a regular lock, found something else")
    assert os.listdir(table) == ["f"]


def test_a_failed_write_leaves_no_temporary_file(at: bool, table: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (table / "f").write_text("old")

    def broken(fd: int) -> None:
        raise OSError(errno.EIO, "broken disk")

    monkeypatch.setattr(os, "fsync", broken)
    with pytest.raises(OSError, match="broken disk"):
        folder.replace(table / "f", b"new")
    assert os.listdir(table) == ["f"]
    assert (table / "f").read_text() == "old"


def test_a_failed_rename_leaves_no_temporary_file(at: bool, table: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (table / "f").write_text("old")

    def broken(*args: object, **kwargs: object) -> None:
        raise OSError(errno.EIO, "broken rename")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(OSError, match="broken rename"):
        folder.replace(table / "f", b"new")
    assert os.listdir(table) == ["f"]


def test_the_temporary_name_is_random_and_beside_the_file(at: bool, table: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[str, object]] = []
    real_replace = os.replace

    def spy(src: str, dst: str, **kwargs: object) -> None:
        seen.append((os.path.basename(src), kwargs.get("src_dir_fd")))
        real_replace(src, dst, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "replace", spy)
    (table / ".f.00000000.tmp").symlink_to(table / "planted")
    draws = iter([b"\0\0\0\0", b"\1\2\3\4"])
    monkeypatch.setattr(os, "urandom", lambda n: next(draws))
    folder.replace(table / "f", b"x")
    assert seen[0][0] == ".f.01020304.tmp"
    assert not (table / "planted").exists()
    assert (table / "f").read_bytes() == b"x"


def test_fsync_dir_on_the_path_fallback_is_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    called: list[int] = []
    monkeypatch.setattr(os, "fsync", called.append)
    folder.fsync_dir(-1)
    assert called == []
    folder.fsync_dir(5)
    folder.fsync_dir(0)
    assert called == [5, 0]

    def refuses(fd: int) -> None:
        raise OSError(errno.EINVAL, "no")

    monkeypatch.setattr(os, "fsync", refuses)
    folder.fsync_dir(5)  # a filesystem refusing it is not an error


def test_the_folder_is_synced_after_the_rename(table: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[bool] = []
    real_fsync = os.fsync

    def spy(fd: int) -> None:
        synced.append(stat.S_ISDIR(os.fstat(fd).st_mode))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", spy)
    folder.replace(table / "f", b"x")
    assert synced == [False, True]


# ---------------------------------------------------------------- remove_temporaries
def test_remove_temporaries_removes_only_leftover_regular_files(at: bool, table: Path, outside: Path) -> None:
    (table / "f.toml").write_text("x")
    for name in [".f.toml.0a1b2c3d.tmp", ".f.toml.x.tmp"]:
        (table / name).write_text("left")
    keep = [".f.toml..tmp", ".f.toml.0a1b2c3d.tmpx", ".g.toml.0a1b2c3d.tmp", "f.toml.0a1b2c3d.tmp", ".f.toml.dir.tmp", ".f.toml.link.tmp"]
    for name in keep[:4]:
        (table / name).write_text("keep")
    (table / ".f.toml.dir.tmp").mkdir()
    os.symlink(outside, table / ".f.toml.link.tmp")
    assert folder.remove_temporaries(table / "f.toml") == 2
    assert sorted(os.listdir(table)) == sorted(["f.toml", *keep])
    assert outside.read_text() == "secret"
    assert folder.remove_temporaries(table / "f.toml") == 0


def test_remove_temporaries_in_an_unreadable_folder_removes_nothing(at: bool, table: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (table / ".f.0a1b2c3d.tmp").write_text("left")

    def refuses(*args: object) -> None:
        raise PermissionError(errno.EACCES, "no")

    monkeypatch.setattr(os, "scandir", refuses)
    assert folder.remove_temporaries(table / "f") == 0


def test_remove_temporaries_counts_only_what_it_removed(at: bool, table: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (table / ".f.0a1b2c3d.tmp").write_text("left")
    (table / ".f.1a1b2c3d.tmp").write_text("left")
    real_unlink = os.unlink
    calls = []

    def flaky(path: str, **kwargs: object) -> None:
        calls.append(path)
        if len(calls) == 1:
            raise PermissionError(errno.EACCES, "no")
        real_unlink(path, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "unlink", flaky)
    assert folder.remove_temporaries(table / "f") == 1
    assert len(os.listdir(table)) == 1


# ---------------------------------------------------------------- names and places
def test_a_backslash_separates_only_on_the_path_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "altsep", "\\")
    monkeypatch.setattr(folder, "AT", False)
    assert folder._components("a\\b/./c\\") == ["a", "b", "c"]
    monkeypatch.setattr(folder, "AT", True)
    assert folder._components("a\\b/./c") == ["a\\b", "c"]  # a backslash is a letter of a POSIX name


@pytest.mark.parametrize(
    ("root", "target", "inside"),
    [
        ("/srv/table", "/srv/table", []),
        ("/srv/table", "/srv/table/a/./b", ["a", "b"]),
        ("/srv/table", "/srv/table/a/../b", ["b"]),
        ("/srv/table", "/srv/table2/b", None),
        ("/srv/table", "/srv/b", None),
        ("/", "/etc/passwd", ["etc", "passwd"]),
        ("/srv/table ", "/srv/table /f", ["f"]),
    ],
)
def test_under_gives_the_components_below_the_root(root: str, target: str, inside: list[str] | None) -> None:
    assert folder._under(root, target) == inside


def test_a_spot_at_descriptor_zero_is_looked_at_through_it(table: Path) -> None:
    (table / "f").write_text("abc")
    kept = os.dup(0)
    fd = os.open(table, os.O_RDONLY)
    try:
        os.dup2(fd, 0)
        st = Spot(0, "f", table / "elsewhere").lstat()
    finally:
        os.dup2(kept, 0)
        os.close(kept)
        os.close(fd)
    assert st is not None and st.st_size == 3


def test_a_missing_folder_names_the_folder_and_the_file(at: bool, tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError) as caught:
        with folder.locate(tmp_path / "nowhere", "f"):
            pass
    assert caught.value.strerror == f"no such folder: {tmp_path / 'nowhere'}"
    assert caught.value.filename == str(tmp_path / "nowhere" / "f")


def test_a_missing_folder_on_the_way_names_it_and_the_file(at: bool, table: Path) -> None:
    (table / "a").mkdir()
    with pytest.raises(FileNotFoundError) as caught:
        with folder.locate(table, "a/b/f"):
            pass
    assert caught.value.filename == str(table / "a" / "b" / "f")
    # the descriptor walk names the missing component, the path fallback its real path
    assert caught.value.strerror == ("no such folder: b" if at else f"no such folder: {os.path.realpath(table)}/a/b")


def test_a_link_out_and_back_in_is_refused(at: bool, table: Path, outside: Path) -> None:
    (table / "real.toml").write_text("x")
    os.symlink(table / "real.toml", outside.parent / "back.toml")
    os.symlink(outside.parent, table / "sub")
    with pytest.raises(Refused, match="outside"):
        with folder.locate(table, "sub/back.toml"):
            pass


def test_a_kind_with_no_name_is_not_a_file(table: Path) -> None:
    os.symlink("elsewhere", table / "l")
    fd = os.open(table / "l", os.O_PATH | os.O_NOFOLLOW)  # the link itself: neither file, FIFO, folder, device nor socket
    try:
        with pytest.raises(Refused) as caught:
            folder._check_regular(fd, table / "l", None, "")
    finally:
        os.close(fd)
    assert str(caught.value) == f"{table / 'l'}: expected a regular file, found not a file; it is not opened"


def test_without_o_nonblock_the_descriptor_is_left_as_opened(table: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (table / "f").write_text("x")
    calls: list[tuple[int, bool]] = []
    monkeypatch.delattr(os, "O_NONBLOCK")  # a platform without it (Windows): nothing to clear
    monkeypatch.setattr(os, "set_blocking", lambda fd, blocking: calls.append((fd, blocking)))
    with folder.locate(table, "f") as spot:
        os.close(folder.open_at(spot, os.O_RDONLY))
    assert calls == []


def test_read_fd_joins_parts_handed_over_a_few_bytes_at_a_time(table: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = table / "f"
    path.write_bytes(b"0123456789")
    calls: list[int] = []

    def trickle(fd: int, size: int, offset: int) -> bytes:
        calls.append(offset)
        assert len(calls) < 20, "read_fd does not move on"
        return os.pread(fd, min(size, 3), offset)

    monkeypatch.setattr(folder, "pread", trickle)
    fd = os.open(path, os.O_RDONLY)
    try:
        assert folder.read_fd(fd, 10, path) == b"0123456789"
        calls.clear()
        assert folder.read_fd(fd, None, path) == b"0123456789"
    finally:
        os.close(fd)
    assert calls == [0, 3, 6, 9, 10]


def test_read_bytes_without_a_what_names_a_file(at: bool, table: Path) -> None:
    (table / "f").write_bytes(b"12345")
    with pytest.raises(Refused) as caught:
        folder.read_bytes(table / "f", 4)
    assert str(caught.value) == f"{table / 'f'}: 5 bytes; files over 4 bytes are refused before they are read"


def test_read_bytes_refuses_a_file_that_grows_past_the_limit_while_read(at: bool, table: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = table / "f"
    path.write_bytes(b"12345")
    real_pread = folder.pread

    def grow_then_read(fd: int, size: int, offset: int) -> bytes:
        if offset == 0:  # once, between the check and the first read
            with open(path, "ab") as more:
                more.write(b"67890")
        return real_pread(fd, size, offset)

    monkeypatch.setattr(folder, "pread", grow_then_read)
    with pytest.raises(Refused) as caught:
        folder.read_bytes(path, 5, what="save")
    assert str(caught.value) == f"{os.path.realpath(path)}: over 5 bytes (it grew while being read); saves that big are refused"


def test_refusal_without_a_what_names_a_file(table: Path) -> None:
    (table / "f").write_bytes(b"123")
    assert folder.refusal(table / "f", limit=2) == f"{table / 'f'}: 3 bytes; files over 2 bytes are refused before they are read"


def test_the_temporary_file_is_private_and_named_with_eight_hex_digits(at: bool, table: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (table / "f").write_text("old")
    os.chmod(table / "f", 0o664)
    seen: list[tuple[int, str]] = []
    real_write, real_replace = os.write, os.replace

    def spy_write(fd: int, data: bytes) -> int:
        seen.append((stat.S_IMODE(os.fstat(fd).st_mode), ""))
        return real_write(fd, data)

    def spy_replace(src: str, dst: str, **kwargs: object) -> None:
        seen.append((0, os.path.basename(src)))
        real_replace(src, dst, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "write", spy_write)
    monkeypatch.setattr(os, "replace", spy_replace)
    folder.replace(table / "f", b"new")
    assert seen[0] == (0o600, "")  # nobody else may read the bytes before they are whole
    assert re.fullmatch(r"\.f\.[0-9a-f]{8}\.tmp", seen[-1][1])
    assert stat.S_IMODE((table / "f").stat().st_mode) == 0o664


def test_replace_without_a_what_names_a_file(at: bool, table: Path) -> None:
    _fifo(table)
    with pytest.raises(Refused) as caught:
        folder.replace(table / "f", b"x")
    assert str(caught.value) == f"{table / 'f'}: expected a regular file, found something else (a FIFO, device or folder); it is not replaced"


def test_a_hundred_temporary_names_taken_is_a_refusal(at: bool, table: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (table / ".f.00000000.tmp").write_text("planted")
    draws: list[int] = []
    monkeypatch.setattr(os, "urandom", lambda n: draws.append(n) or bytes(n))
    with pytest.raises(Refused) as caught:
        folder.replace(table / "f", b"x")
    assert str(caught.value) == f"{table / 'f'}: cannot create a temporary file beside it"
    assert draws == [4] * 100
    assert (table / ".f.00000000.tmp").read_text() == "planted"


def test_a_rename_that_finds_its_temporary_gone_says_so(at: bool, table: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (table / "f").write_text("old")
    real_unlink = os.unlink

    def vanished(src: str, dst: str, **kwargs: object) -> None:
        real_unlink(src, dir_fd=kwargs.get("src_dir_fd"))  # type: ignore[arg-type]
        raise FileNotFoundError(errno.ENOENT, "the temporary file was removed", src)

    monkeypatch.setattr(os, "replace", vanished)
    with pytest.raises(FileNotFoundError, match="the temporary file was removed"):
        folder.replace(table / "f", b"new")
    assert os.listdir(table) == ["f"]


def test_write_at_without_a_what_names_a_file(at: bool, table: Path) -> None:
    _fifo(table)
    with folder.locate(table, "f") as spot:
        with pytest.raises(Refused) as caught:
            folder.write_at(spot, b"x")
    assert str(caught.value) == f"{table / 'f'}: expected a regular file, found something else (a FIFO, device or folder); it is not replaced"
