"""Direct tests of tracker.persistence.lock: the sidecar `NAME.toml.lock` beside a save,
held while changing it, made for the accounts that may write the save only, replaced
when others could open it, never a link, a FIFO or a device, deleted with its save (the
module docstring; docs/decisions/0031-sidecar-lock.md; docs/guide/saves.md, "Sharing";
docs/guide/threat-model.md). These tests run as one account, so "another account" is
the lock file's mode, group and owner as the decision words them."""

from __future__ import annotations

import errno
import fcntl
import os
import stat
from pathlib import Path
from collections.abc import Callable
from typing import Any

import pytest

from tracker.engine import TrackerError
from tracker.persistence import folder, lock
from tracker.persistence.checks import SaveError
from tracker.persistence.folder import Refused
from tracker.persistence.lock import delete, lock_mode, lock_path, locked, new_file_mode, too_open


# Giving a file another group or owner (a save of a group the writer is not in, a lock of
# another account) needs root; as any other account these cases cannot be set up.
AS_ROOT = pytest.mark.skipif(os.geteuid() != 0, reason="giving a file another group or owner needs root")


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def _save(tmp_path: Path, mode: int = 0o644, name: str = "fight.toml") -> Path:
    path = tmp_path / name
    path.write_text("schema_version = 2\n")
    os.chmod(path, mode)
    return path


def _held_elsewhere(sidecar: Path) -> int:
    """Another session's hold on the lock: a descriptor of its own, flock'd."""
    fd = os.open(sidecar, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return fd


def _is_held(sidecar: Path) -> bool:
    fd = os.open(sidecar, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


# ------------------------------------------------------------------ modes
@pytest.mark.parametrize(
    ("file_mode", "expected"),
    [
        (0o664, 0o660), (0o644, 0o600), (0o666, 0o666), (0o600, 0o600), (0o400, 0o600),
        (0o620, 0o660), (0o602, 0o606), (0o777, 0o666), (0o7777, 0o666), (0o4755, 0o600), (0o000, 0o600),
    ],
)
def test_the_lock_is_read_write_for_its_owner_and_for_group_and_others_only_if_they_may_write(file_mode: int, expected: int) -> None:
    assert lock_mode(file_mode) == expected


def test_a_new_file_gets_the_umasks_default_and_the_umask_is_left_as_it_was() -> None:
    old = os.umask(0o027)
    try:
        assert new_file_mode() == 0o640
        assert new_file_mode() == 0o640
        os.umask(0o002)
        assert new_file_mode() == 0o664
        assert os.umask(0o002) == 0o002
    finally:
        os.umask(old)


def _st(mode: int, gid: int = 100, uid: int = 1000) -> Any:
    return os.stat_result((stat.S_IFREG | mode, 0, 0, 1, uid, gid, 0, 0, 0, 0))


@pytest.mark.parametrize(
    ("bits", "mode", "gid", "uid", "lock_gid", "lock_uid", "open"),
    [
        (0o600, 0o600, 100, 1000, 100, 1000, False),
        (0o660, 0o660, 100, 1000, 100, 1000, False),
        (0o664, 0o660, 100, 1000, 100, 1000, True),  # others may read it: wider than the mode
        (0o640, 0o600, 100, 1000, 100, 1000, True),  # the group may read a lock only the owner should
        (0o4600, 0o600, 100, 1000, 100, 1000, True),  # setuid
        (0o2600, 0o600, 100, 1000, 100, 1000, True),  # setgid
        (0o1600, 0o600, 100, 1000, 100, 1000, True),  # sticky
        (0o700, 0o600, 100, 1000, 100, 1000, True),  # execute
        (0o610, 0o660, 100, 1000, 100, 1000, True),
        (0o601, 0o606, 100, 1000, 100, 1000, True),
        (0o400, 0o600, 100, 1000, 100, 1000, False),  # narrower than it should be is not too open
        (0o660, 0o660, 100, 1000, 200, 1000, True),  # another group may open it
        (0o600, 0o600, 100, 1000, 200, 1000, False),  # no group bits: the group does not matter
        (0o660, 0o660, None, None, 200, 1000, False),  # a file not made yet: no group to compare
        (0o600, 0o600, 100, 1000, 100, 2000, True),  # only the owner writes the file, and another owns the lock
        (0o660, 0o660, 100, 1000, 100, 2000, False),  # the group writes it too: any writer may own it
        (0o606, 0o606, 100, 1000, 100, 2000, False),
        (0o600, 0o600, 100, None, 100, 2000, False),
    ],
)
def test_a_lock_is_too_open_when_accounts_that_may_not_write_the_file_could_open_it(
    bits: int, mode: int, gid: int | None, uid: int | None, lock_gid: int, lock_uid: int, open: bool
) -> None:
    assert too_open(_st(bits, lock_gid, lock_uid), mode, gid, uid) is open


# ------------------------------------------------------------------ where
def test_the_lock_is_the_saves_name_and_lock_beside_it(tmp_path: Path) -> None:
    assert lock_path(tmp_path / "fight.toml") == tmp_path / "fight.toml.lock"


def test_a_save_that_is_a_link_inside_the_folder_is_locked_at_the_file_it_leads_to(tmp_path: Path) -> None:
    real = _save(tmp_path, name="fight-3.toml")
    (tmp_path / "current.toml").symlink_to("fight-3.toml")
    assert lock.target(tmp_path / "current.toml") == real
    assert lock_path(tmp_path / "current.toml") == tmp_path / "fight-3.toml.lock"
    with locked(tmp_path / "current.toml"):
        assert _is_held(tmp_path / "fight-3.toml.lock")
        assert not (tmp_path / "current.toml.lock").exists()
    assert not _is_held(tmp_path / "fight-3.toml.lock")


# ------------------------------------------------------------------ taking it
def test_the_lock_is_made_with_the_mode_for_the_saves_writers_held_and_let_go(tmp_path: Path) -> None:
    for file_mode, expected in ((0o664, 0o660), (0o644, 0o600), (0o666, 0o666)):
        save = _save(tmp_path, file_mode)
        sidecar = tmp_path / "fight.toml.lock"
        with locked(save):
            assert stat.S_ISREG(os.lstat(sidecar).st_mode) and _mode(sidecar) == expected
            assert _is_held(sidecar)
        assert not _is_held(sidecar)
        assert sidecar.read_bytes() == b""
        sidecar.unlink()


@AS_ROOT
def test_the_lock_takes_the_saves_group(tmp_path: Path) -> None:
    save = _save(tmp_path, 0o664)
    other = next(g for g in (1, 2, 3, 100, 65534) if g != os.getgid())
    os.chown(save, -1, other)
    with locked(save):
        pass
    assert os.lstat(tmp_path / "fight.toml.lock").st_gid == other
    assert _mode(tmp_path / "fight.toml.lock") == 0o660


@AS_ROOT
def test_a_group_that_cannot_be_given_drops_the_group_bits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    save = _save(tmp_path, 0o664)
    other = next(g for g in (1, 2, 3, 100, 65534) if g != os.getgid())
    os.chown(save, -1, other)

    def not_a_member(fd: int, uid: int, gid: int) -> None:
        raise PermissionError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "fchown", not_a_member)
    with locked(save):
        pass
    assert _mode(tmp_path / "fight.toml.lock") == 0o600


def test_the_lock_of_a_file_being_made_has_the_umasks_mode(tmp_path: Path) -> None:
    old = os.umask(0o002)
    try:
        with locked(tmp_path / "new.toml", create=True):
            assert _is_held(tmp_path / "new.toml.lock")
        assert _mode(tmp_path / "new.toml.lock") == 0o660
        os.umask(0o022)
        with locked(tmp_path / "new2.toml", create=True):
            pass
        assert _mode(tmp_path / "new2.toml.lock") == 0o600
    finally:
        os.umask(old)
    assert not (tmp_path / "new.toml").exists()


def test_a_missing_save_is_refused_before_any_lock_file_is_made(tmp_path: Path) -> None:
    with pytest.raises(SaveError) as refused:
        with locked(tmp_path / "gone.toml"):
            pass
    assert str(refused.value) == f"{tmp_path / 'gone.toml'}: no such file (moved or deleted?)"
    assert os.listdir(tmp_path) == []


def test_an_existing_lock_file_is_used_again(tmp_path: Path) -> None:
    save = _save(tmp_path, 0o644)
    sidecar = tmp_path / "fight.toml.lock"
    with locked(save):
        pass
    inode = os.lstat(sidecar).st_ino
    with locked(save):
        assert os.lstat(sidecar).st_ino == inode and _is_held(sidecar)


def test_a_lock_held_by_another_session_is_waited_for_then_refused_by_name(tmp_path: Path) -> None:
    save = _save(tmp_path, 0o644)
    with locked(save):
        pass
    other = _held_elsewhere(tmp_path / "fight.toml.lock")
    try:
        with pytest.raises(TrackerError) as refused:
            with locked(save, timeout=0.05):
                pass
        assert str(refused.value) == f"{save}: another session has held the lock for 0.05s; try again"
    finally:
        os.close(other)
    with locked(save, timeout=0.05):
        pass


def test_a_held_lock_that_others_could_open_says_so_and_what_to_do(tmp_path: Path) -> None:
    save = _save(tmp_path, 0o644)
    sidecar = tmp_path / "fight.toml.lock"
    sidecar.write_bytes(b"")
    os.chmod(sidecar, 0o664)
    other = _held_elsewhere(sidecar)
    try:
        with pytest.raises(TrackerError) as refused:
            with locked(save, timeout=0.05):
                pass
    finally:
        os.close(other)
    assert str(refused.value) == (
        f"{save}: another session has held the lock for 0.05s; try again. Its lock file fight.toml.lock (mode 0664) can be"
        " opened by accounts that may not write the save (made by an older version?), so one of them may be holding it:"
        " when nobody is changing the fight, remove it (it is made again for the writers only)"
    )


def test_a_lock_file_others_could_open_is_replaced_while_held_by_a_fresh_one(tmp_path: Path) -> None:
    save = _save(tmp_path, 0o644)
    sidecar = tmp_path / "fight.toml.lock"
    sidecar.write_bytes(b"")
    os.chmod(sidecar, 0o666)
    kept = os.open(sidecar, os.O_RDONLY)  # a reader kept a descriptor of the old one
    old = os.fstat(kept).st_ino
    try:
        with locked(save):
            assert os.lstat(sidecar).st_ino != old and _mode(sidecar) == 0o600
            assert _is_held(sidecar)
            fcntl.flock(kept, fcntl.LOCK_EX | fcntl.LOCK_NB)  # the old one: nobody waits for it
            fcntl.flock(kept, fcntl.LOCK_UN)
        assert not _is_held(sidecar)
    finally:
        os.close(kept)
    assert sorted(os.listdir(tmp_path)) == ["fight.toml", "fight.toml.lock"]  # no temporary left


def test_a_setuid_lock_file_is_replaced_and_the_new_one_has_no_such_bit(tmp_path: Path) -> None:
    save = _save(tmp_path, 0o664)
    sidecar = tmp_path / "fight.toml.lock"
    sidecar.write_bytes(b"")
    os.chmod(sidecar, 0o4660)
    old = os.lstat(sidecar).st_ino
    with locked(save):
        pass
    assert os.lstat(sidecar).st_ino != old and _mode(sidecar) == 0o660


def test_a_lock_file_that_cannot_be_replaced_is_kept_and_held(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    save = _save(tmp_path, 0o644)
    sidecar = tmp_path / "fight.toml.lock"
    sidecar.write_bytes(b"")
    os.chmod(sidecar, 0o666)
    old = os.lstat(sidecar).st_ino
    real_replace = os.replace

    def fails(*args: Any, **kwargs: Any) -> None:
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(os, "replace", fails)
    with locked(save):
        assert os.lstat(sidecar).st_ino == old and _is_held(sidecar)
    monkeypatch.setattr(os, "replace", real_replace)
    assert sorted(os.listdir(tmp_path)) == ["fight.toml", "fight.toml.lock"]  # the fresh one removed


def test_a_lock_narrower_than_it_should_be_is_widened_for_the_other_writers(tmp_path: Path) -> None:
    save = _save(tmp_path, 0o664)
    sidecar = tmp_path / "fight.toml.lock"
    sidecar.write_bytes(b"")
    os.chmod(sidecar, 0o600)
    old = os.lstat(sidecar).st_ino
    with locked(save):
        pass
    assert os.lstat(sidecar).st_ino == old and _mode(sidecar) == 0o660


def test_a_lock_replaced_while_waiting_for_it_is_taken_again_on_the_new_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    save = _save(tmp_path, 0o644)
    sidecar = tmp_path / "fight.toml.lock"
    with locked(save):
        pass
    first = os.lstat(sidecar).st_ino
    def replaced(tries: int) -> None:
        if tries == 1:  # another session replaced the lock file as we got it
            sidecar.unlink()
            sidecar.write_bytes(b"")
            os.chmod(sidecar, 0o600)

    calls = _before_each_try(monkeypatch, replaced)
    with locked(save):
        assert len(calls) == 2 and os.lstat(sidecar).st_ino != first
        assert _is_held(sidecar)


def test_a_lock_deleted_while_waiting_for_it_is_made_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    save = _save(tmp_path, 0o644)
    sidecar = tmp_path / "fight.toml.lock"
    with locked(save):
        pass
    calls = _before_each_try(monkeypatch, lambda tries: sidecar.unlink() if tries == 1 else None)
    with locked(save):
        assert len(calls) == 2 and _is_held(sidecar)


# ------------------------------------------------------------------ what is at the lock's name
def test_a_lock_file_that_is_a_link_is_refused_and_not_followed(tmp_path: Path) -> None:
    save = _save(tmp_path)
    target = tmp_path / "elsewhere"
    target.write_text("keep")
    (tmp_path / "fight.toml.lock").symlink_to(target)
    with pytest.raises(Refused) as refused:
        with locked(save):
            pass
    assert str(refused.value) == f"{tmp_path / 'fight.toml.lock'}: the lock file is a symbolic link; remove it (it is recreated safely)"
    assert target.read_text() == "keep" and _mode(target) == 0o644


@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_a_lock_file_that_is_a_fifo_or_a_folder_is_refused(tmp_path: Path, kind: str) -> None:
    save = _save(tmp_path)
    sidecar = tmp_path / "fight.toml.lock"
    os.mkfifo(sidecar) if kind == "fifo" else sidecar.mkdir()
    with pytest.raises(Refused) as refused:
        with locked(save, timeout=0.05):
            pass
    assert str(refused.value) == (
        f"{sidecar}: the lock file is not a regular file (a FIFO or a device?); remove it (it is recreated safely)"
    )


@pytest.mark.parametrize(
    ("code", "message"),
    [
        (errno.ELOOP, "{s}: the lock file is a symbolic link; remove it (it is recreated safely)"),
        (errno.ENXIO, "{s}: the lock file is a FIFO; remove it (it is recreated safely)"),
        (errno.EIO, "{s}: cannot open the lock file: Input/output error"),
    ],
)
def test_a_lock_file_that_cannot_be_opened_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int, message: str) -> None:
    save = _save(tmp_path)
    real_open = os.open

    def failing(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if str(path).endswith(".lock"):
            raise OSError(code, os.strerror(code))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", failing)
    with pytest.raises(TrackerError) as refused:
        with locked(save):
            pass
    assert str(refused.value) == message.format(s=tmp_path / "fight.toml.lock")
    assert isinstance(refused.value, Refused) is (code != errno.EIO)


def test_a_lock_file_that_cannot_be_made_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    save = _save(tmp_path)
    real_open = os.open

    def failing(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if str(path).endswith(".lock") and flags & os.O_CREAT:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", failing)
    with pytest.raises(TrackerError) as refused:
        with locked(save):
            pass
    assert str(refused.value) == f"{tmp_path / 'fight.toml.lock'}: cannot create the lock file: No space left on device"


def test_a_lock_file_that_keeps_disappearing_is_given_up_after_three_tries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    save = _save(tmp_path)
    real_open = os.open
    tries: list[int] = []

    def racing(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if str(path).endswith(".lock"):
            if flags & os.O_CREAT:
                tries.append(flags)
                raise FileExistsError(errno.EEXIST, "File exists")
            raise FileNotFoundError(errno.ENOENT, "No such file or directory")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", racing)
    with pytest.raises(TrackerError) as refused:
        with locked(save):
            pass
    assert str(refused.value) == f"{tmp_path / 'fight.toml.lock'}: the lock file keeps appearing and disappearing; try again"
    assert len(tries) == 3


def test_a_lock_made_by_another_session_a_moment_ago_is_opened(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    save = _save(tmp_path)
    sidecar = tmp_path / "fight.toml.lock"
    real_open = os.open
    made: list[bool] = []

    def racing(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if str(path).endswith(".lock") and flags & os.O_CREAT and not made:
            made.append(True)
            sidecar.write_bytes(b"")  # another session made it first
            os.chmod(sidecar, 0o600)
            raise FileExistsError(errno.EEXIST, "File exists")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", racing)
    inode: list[int] = []
    with locked(save):
        inode.append(os.lstat(sidecar).st_ino)
        assert _is_held(sidecar)
    assert made


def _before_each_try(monkeypatch: pytest.MonkeyPatch, change: Callable[[int], object]) -> list[int]:
    """Another session's doing between the lock file's opening and each try for its lock
    (`change(tries so far)`); the descriptors tried, in order."""
    real_try = lock._try_lock
    tries: list[int] = []

    def meanwhile(fd: int) -> bool:
        tries.append(fd)
        change(len(tries))
        return real_try(fd)

    monkeypatch.setattr(lock, "_try_lock", meanwhile)
    return tries


def _behind_a_link(sidecar: Path) -> None:
    """The same lock file, now behind a symbolic link at its name."""
    if not sidecar.is_symlink():
        os.rename(sidecar, sidecar.parent / "moved.lock")
        sidecar.symlink_to("moved.lock")


# ------------------------------------------------------------------ who may take it
def _may_not_write(monkeypatch: pytest.MonkeyPatch) -> None:
    """This account may read the saves folder's files but not open one for writing."""
    real = folder.open_at

    def may_not_write(spot: Any, flags: int, **kwargs: Any) -> int:
        if flags & os.O_WRONLY:
            raise PermissionError(errno.EACCES, "Permission denied")
        return real(spot, flags, **kwargs)

    monkeypatch.setattr(folder, "open_at", may_not_write)


def test_an_account_that_may_not_write_the_save_is_refused_before_a_lock_file_is_made(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    save = _save(tmp_path, 0o644)
    _may_not_write(monkeypatch)
    with pytest.raises(TrackerError) as refused:
        with locked(save):
            pass
    assert str(refused.value) == f"{save}: cannot be written: Permission denied"
    assert os.listdir(tmp_path) == ["fight.toml"]


def test_a_lock_file_this_account_cannot_open_says_who_it_is_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    save = _save(tmp_path, 0o644)
    (tmp_path / "fight.toml.lock").write_bytes(b"")
    real_open = os.open

    def denied(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if str(path).endswith(".lock"):
            raise PermissionError(errno.EACCES, "Permission denied")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", denied)
    with pytest.raises(TrackerError) as refused:
        with locked(save):
            pass
    assert str(refused.value) == (
        f"{tmp_path / 'fight.toml.lock'}: cannot open the lock file: permission denied (it is made for the accounts that may write"
        " fight.toml); if you may write it, the lock file was made by another account: when nobody is changing it, remove the"
        " lock file (it is made again)"
    )
    _may_not_write(monkeypatch)
    with pytest.raises(TrackerError) as refused:
        with locked(save):
            pass
    assert str(refused.value) == f"{save}: cannot be written: Permission denied"


def test_a_save_gone_while_checking_who_may_write_it_is_left_to_the_caller(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    save = _save(tmp_path, 0o644)
    real = folder.open_at

    def gone(spot: Any, flags: int, **kwargs: Any) -> int:
        if flags & os.O_WRONLY:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory")
        return real(spot, flags, **kwargs)

    monkeypatch.setattr(folder, "open_at", gone)
    with locked(save):
        assert _is_held(tmp_path / "fight.toml.lock")


# ------------------------------------------------------------------ delete
def test_deleting_a_save_deletes_its_lock_file(tmp_path: Path) -> None:
    save = _save(tmp_path)
    _save(tmp_path, name="other.toml")
    with locked(save):
        pass
    delete(save)
    assert os.listdir(tmp_path) == ["other.toml"]


def test_deleting_a_save_without_a_lock_file_deletes_the_save(tmp_path: Path) -> None:
    save = _save(tmp_path)
    with locked(save):
        pass
    (tmp_path / "fight.toml.lock").unlink()
    delete(save, timeout=0.05)
    assert os.listdir(tmp_path) == []


def test_a_lock_file_that_is_a_link_is_left_when_its_save_is_deleted(tmp_path: Path) -> None:
    save = _save(tmp_path)
    keep = tmp_path / "keep.txt"
    keep.write_text("mine")
    (tmp_path / "fight.toml.lock").symlink_to(keep)
    delete(save)
    assert sorted(os.listdir(tmp_path)) == ["fight.toml.lock", "keep.txt"] and keep.read_text() == "mine"


def test_deleting_a_link_removes_the_link_alone(tmp_path: Path) -> None:
    real = _save(tmp_path, name="fight-3.toml")
    with locked(real):
        pass
    (tmp_path / "current.toml").symlink_to("fight-3.toml")
    delete(tmp_path / "current.toml")
    assert sorted(os.listdir(tmp_path)) == ["fight-3.toml", "fight-3.toml.lock"]
    outside = tmp_path.parent / f"{tmp_path.name}-out.toml"
    outside.write_text("x")
    (tmp_path / "away.toml").symlink_to(outside)
    delete(tmp_path / "away.toml")
    assert outside.read_text() == "x" and not (tmp_path / "away.toml").exists()
    outside.unlink()


def test_deleting_what_is_not_a_regular_save_removes_only_its_name(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.toml")
    (tmp_path / "pipe.toml.lock").write_bytes(b"")
    delete(tmp_path / "pipe.toml")
    assert os.listdir(tmp_path) == ["pipe.toml.lock"]


def test_deleting_nothing_is_file_not_found(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError) as missing:
        delete(tmp_path / "gone.toml")
    assert missing.value.errno == errno.ENOENT and missing.value.filename == str(tmp_path / "gone.toml")


def test_a_save_is_deleted_even_when_its_lock_is_held_too_long(tmp_path: Path) -> None:
    save = _save(tmp_path)
    with locked(save):
        pass
    other = _held_elsewhere(tmp_path / "fight.toml.lock")
    try:
        delete(save, timeout=0.05)
    finally:
        os.close(other)
    assert os.listdir(tmp_path) == []


def test_a_lock_file_that_cannot_be_removed_is_an_error_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    save = _save(tmp_path)
    with locked(save):
        pass
    real_unlink = os.unlink

    def denied(path: Any, *args: Any, **kwargs: Any) -> None:
        if str(path).endswith(".lock"):
            raise PermissionError(errno.EACCES, "Permission denied")
        real_unlink(path, *args, **kwargs)

    monkeypatch.setattr(os, "unlink", denied)
    with pytest.raises(PermissionError):
        delete(save)
    assert os.listdir(tmp_path) == ["fight.toml.lock"]


def test_a_lock_whose_mode_cannot_be_set_stays_as_made_for_its_owner_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    save = _save(tmp_path, 0o666)
    old = os.umask(0)

    def refused(fd: int, mode: int) -> None:
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "fchmod", refused)
    try:
        with locked(save):
            assert _is_held(tmp_path / "fight.toml.lock")
    finally:
        os.umask(old)
    assert _mode(tmp_path / "fight.toml.lock") == 0o600  # narrower than wanted: safe


def test_without_modes_or_groups_the_lock_is_made_all_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    save = _save(tmp_path, 0o644)
    monkeypatch.delattr(os, "fchown")
    monkeypatch.delattr(os, "fchmod")
    with locked(save):
        assert _is_held(tmp_path / "fight.toml.lock")
    assert _mode(tmp_path / "fight.toml.lock") == 0o600 & ~_umask()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_a_link_planted_at_the_locks_name_as_it_is_made_is_never_followed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    save = _save(tmp_path, 0o644)
    sidecar = tmp_path / "fight.toml.lock"
    planted = tmp_path / "planted-target"
    real_open = os.open

    def racing(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if str(path).endswith(".lock") and flags & os.O_CREAT and not os.path.lexists(sidecar):
            sidecar.symlink_to(planted)  # a member plants a link in between
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", racing)
    with pytest.raises(Refused) as refused:
        with locked(save):
            pass
    assert str(refused.value) == f"{sidecar}: the lock file is a symbolic link; remove it (it is recreated safely)"
    assert not planted.exists()


def test_the_lock_is_owned_by_whoever_made_it(tmp_path: Path) -> None:
    save = _save(tmp_path, 0o664)
    with locked(save):
        pass
    st = os.lstat(tmp_path / "fight.toml.lock")
    assert (st.st_uid, st.st_gid) == (os.geteuid(), os.stat(save).st_gid)


def _other_group() -> int:
    return next(g for g in (1, 2, 3, 100, 65534) if g != os.getgid())


@AS_ROOT
def test_a_lock_for_a_save_of_another_group_is_made_once_with_that_group(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    save = _save(tmp_path, 0o664)
    os.chown(save, -1, _other_group())
    made: list[str] = []
    real_create = lock._create

    def counted(spot: Any, name: str, mode: int, gid: int | None) -> int:
        made.append(name)
        return real_create(spot, name, mode, gid)

    monkeypatch.setattr(lock, "_create", counted)
    with locked(save):
        pass
    assert made == ["fight.toml.lock"]  # never made in the wrong group, then replaced
    st = os.lstat(tmp_path / "fight.toml.lock")
    assert (st.st_gid, st.st_uid) == (_other_group(), os.geteuid())  # the group given, the owner kept


@AS_ROOT
def test_a_lock_of_the_wrong_group_is_replaced_by_one_of_the_saves_group(tmp_path: Path) -> None:
    save = _save(tmp_path, 0o664)
    os.chown(save, -1, _other_group())
    sidecar = tmp_path / "fight.toml.lock"
    sidecar.write_bytes(b"")
    os.chmod(sidecar, 0o660)  # the right mode, our own group: that group could open it
    old = os.lstat(sidecar).st_ino
    with locked(save):
        pass
    st = os.lstat(sidecar)
    assert st.st_ino != old and st.st_gid == _other_group() and _mode(sidecar) == 0o660


@AS_ROOT
def test_a_lock_owned_by_another_account_when_only_the_owner_writes_is_replaced(tmp_path: Path) -> None:
    save = _save(tmp_path, 0o644)
    sidecar = tmp_path / "fight.toml.lock"
    sidecar.write_bytes(b"")
    os.chmod(sidecar, 0o600)
    os.chown(sidecar, 12345, -1)
    old = os.lstat(sidecar).st_ino
    with locked(save):
        pass
    st = os.lstat(sidecar)
    assert st.st_ino != old and st.st_uid == os.geteuid() and _mode(sidecar) == 0o600


@AS_ROOT
def test_a_narrower_lock_of_another_account_is_left_as_it_is(tmp_path: Path) -> None:
    save = _save(tmp_path, 0o664)
    sidecar = tmp_path / "fight.toml.lock"
    sidecar.write_bytes(b"")
    os.chmod(sidecar, 0o600)
    os.chown(sidecar, 12345, -1)
    old = os.lstat(sidecar).st_ino
    with locked(save):
        pass
    assert os.lstat(sidecar).st_ino == old and _mode(sidecar) == 0o600  # only its owner widens it


def test_a_narrower_lock_that_cannot_be_widened_is_held_all_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    save = _save(tmp_path, 0o664)
    sidecar = tmp_path / "fight.toml.lock"
    sidecar.write_bytes(b"")
    os.chmod(sidecar, 0o600)

    def refused(fd: int, mode: int) -> None:
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "fchmod", refused)
    with locked(save):
        assert _is_held(sidecar)
    assert _mode(sidecar) == 0o600


def test_a_fresh_lock_that_can_be_neither_put_in_place_nor_removed_leaves_the_old_one_held(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    save = _save(tmp_path, 0o644)
    sidecar = tmp_path / "fight.toml.lock"
    sidecar.write_bytes(b"")
    os.chmod(sidecar, 0o666)
    old = os.lstat(sidecar).st_ino

    def fails(*args: Any, **kwargs: Any) -> None:
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(os, "replace", fails)
    monkeypatch.setattr(os, "unlink", fails)
    with locked(save):
        assert os.lstat(sidecar).st_ino == old and _is_held(sidecar)


def test_a_lock_name_turned_into_a_link_while_waiting_is_not_taken_for_the_lock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    save = _save(tmp_path, 0o644)
    sidecar = tmp_path / "fight.toml.lock"
    with locked(save):
        pass
    _before_each_try(monkeypatch, lambda _: _behind_a_link(sidecar))
    with pytest.raises(Refused) as refused:
        with locked(save):
            pass
    assert str(refused.value) == f"{sidecar}: the lock file is a symbolic link; remove it (it is recreated safely)"


def test_a_lock_deleted_while_held_too_long_is_said_held_without_a_mode(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    save = _save(tmp_path, 0o644)
    sidecar = tmp_path / "fight.toml.lock"
    sidecar.write_bytes(b"")
    os.chmod(sidecar, 0o666)
    other = _held_elsewhere(sidecar)
    _before_each_try(monkeypatch, lambda _: sidecar.unlink(missing_ok=True))
    try:
        with pytest.raises(TrackerError) as refused:
            with locked(save, timeout=0.05):
                pass
    finally:
        os.close(other)
    assert str(refused.value) == f"{save}: another session has held the lock for 0.05s; try again"


def test_a_lock_name_turned_into_a_link_while_held_too_long_is_said_open_by_the_links_mode(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    save = _save(tmp_path, 0o644)
    sidecar = tmp_path / "fight.toml.lock"
    sidecar.write_bytes(b"")
    os.chmod(sidecar, 0o600)
    other = _held_elsewhere(sidecar)
    _before_each_try(monkeypatch, lambda _: _behind_a_link(sidecar))
    try:
        with pytest.raises(TrackerError) as refused:
            with locked(save, timeout=0.05):
                pass
    finally:
        os.close(other)
    assert f"Its lock file fight.toml.lock (mode {_mode(sidecar):04o}) can be opened" in str(refused.value)


def test_delete_waits_for_the_lock_as_long_as_it_is_told_ten_seconds_unless_told(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[float] = []
    real_locked = lock.locked

    def spy(path: Path, timeout: float = 10.0, **kwargs: Any) -> Any:
        asked.append(timeout)
        return real_locked(path, timeout, **kwargs)

    monkeypatch.setattr(lock, "locked", spy)
    delete(_save(tmp_path))
    delete(_save(tmp_path), timeout=0.05)
    assert asked == [10.0, 0.05]


def test_deleting_nothing_says_no_such_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError) as missing:
        delete(tmp_path / "gone.toml")
    assert missing.value.strerror == "no such file"
