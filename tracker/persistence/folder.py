"""Files inside a folder others may write, opened so the folder cannot be turned against us.

The threat (docs/guide/threat-model.md): every member of the group that shares a saves
folder can create, rename and delete entries in it: a symbolic link named like a save
or a library that leads to the GM's `~/.bash_login`, a FIFO named like a lock, a
gigabyte "save". The folder itself, as the user names it (`--saves`, `TRACKER_SAVES`, a
path typed on the command line), is trusted: it may be a link (`~/table -> /srv/table`).
Nothing inside it is.

Decisions: docs/decisions/0010-shared-folder-files.md
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tracker.engine.errors import TrackerError

MAX_LINKS = 40  # as the kernel's own limit on links followed in one path
FILE_BITS = 0o666  # the permission bits a file the tracker writes may carry
# getattr: flags a platform lacks (Windows: O_DIRECTORY, O_CLOEXEC, ...) are not asked for.
_DIR = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NOCTTY = getattr(os, "O_NOCTTY", 0)
_OPEN = getattr(os, "O_NONBLOCK", 0) | _NOCTTY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
_NEW = getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
# Descriptor-relative calls (POSIX); False: the path fallback (docs/decisions/0010-shared-folder-files.md).
AT = {os.open, os.stat, os.readlink, os.rename, os.unlink} <= os.supports_dir_fd and hasattr(os, "O_DIRECTORY")


class Refused(TrackerError):
    """A file in a shared folder the tracker will not use: a link leading out of the
    folder, a FIFO, a device, or a file over its size limit. The message says which and why."""


def size_text(size: int) -> str:
    """A byte count as a person reads it: '25,165,824 bytes (24 MB)' (MB: 2**20 bytes)."""
    if size >= 1024 * 1024:
        megabytes = f"{size / (1024 * 1024):,.1f}".removesuffix(".0")
        return f"{size:,} bytes ({megabytes} MB)"
    return f"{size:,} bytes"


@dataclass
class Spot:
    """Where a name inside a folder really is: a descriptor of the folder that holds it
    and its name there (never a link unless `follow=False` said to keep one)."""

    dir_fd: int
    leaf: str
    folder: Path  # the folder it was looked for in
    below: tuple[str, ...] = ()  # the folders between that one and the leaf

    @property
    def path(self) -> Path:
        """Where the file really is, as a path (for messages and sidecar names)."""
        return self.folder.joinpath(*self.below, self.leaf)

    def lstat(self) -> os.stat_result | None:
        try:
            if self.dir_fd < 0:
                return os.lstat(self.path)
            return os.stat(self.leaf, dir_fd=self.dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            return None

    def beside(self, name: str) -> str:
        """`name` in the spot's folder, as the calls here take it (relative to `dir_fd`, else a path)."""
        return name if self.dir_fd >= 0 else str(self.path.with_name(name))

    @property
    def fd_arg(self) -> int | None:
        """The `dir_fd` argument: None on the path fallback."""
        return self.dir_fd if self.dir_fd >= 0 else None


def _components(name: str) -> list[str]:
    if not AT and os.altsep:  # Windows paths take either separator
        name = name.replace(os.altsep, "/")
    return [part for part in name.replace(os.sep, "/").split("/") if part not in ("", ".")]


def _under(root_real: str, target: str) -> list[str] | None:
    """The components of absolute `target` below `root_real`, or None if it is not under it."""
    norm = os.path.normpath(target)
    if norm == root_real:
        return []
    prefix = root_real.rstrip(os.sep) + os.sep
    return _components(norm[len(prefix):]) if norm.startswith(prefix) else None


@contextlib.contextmanager
def locate(folder: Path, name: str, *, follow: bool = True) -> Iterator[Spot]:
    """The place of `name` (a relative path) inside `folder`; see docs/decisions/0010-shared-folder-files.md.

    A missing last component is fine (the file is about to be created); a missing folder
    on the way is not. `follow=False` keeps a link at the last component as it is."""
    shown = folder / name  # for messages
    if os.path.isabs(name):
        raise Refused(f"{shown}: expected a name inside {folder}, got an absolute path")
    todo = list(reversed(_components(name)))
    if not todo:
        raise Refused(f"{shown}: expected a file name inside {folder}")
    if not AT:
        yield _locate_by_path(folder, name, follow)
        return
    try:
        root = os.open(folder, _DIR)
    except FileNotFoundError:
        raise FileNotFoundError(errno.ENOENT, f"no such folder: {folder}", str(shown)) from None
    except OSError as exc:
        raise Refused(f"{shown}: the folder {folder} cannot be opened: {exc.strerror}") from None
    dirs = [root]  # descriptors of the folders walked, the root first
    names: list[str] = []  # their names below the root
    root_real: str | None = None
    links = 0
    try:
        while todo:
            part = todo.pop()
            if part == "..":
                if not names:
                    raise Refused(f"{shown}: leads outside {folder} (through '..')")
                os.close(dirs.pop())
                names.pop()
                continue
            here = dirs[-1]
            last = not todo
            try:
                st = os.stat(part, dir_fd=here, follow_symlinks=False)
            except FileNotFoundError:
                if last:
                    yield Spot(here, part, folder, tuple(names))
                    return
                raise FileNotFoundError(errno.ENOENT, f"no such folder: {part}", str(shown)) from None
            if stat.S_ISLNK(st.st_mode) and (follow or not last):
                links += 1
                if links > MAX_LINKS:
                    raise Refused(f"{shown}: more than {MAX_LINKS} symbolic links on the way")
                target = os.readlink(part, dir_fd=here)
                if target.startswith("/"):
                    if root_real is None:
                        root_real = os.path.realpath(folder)
                    inside = _under(root_real, target)
                    if inside is None:
                        raise Refused(f"{shown}: is a symbolic link leading outside {folder} (to {target}); it is never read or written through")
                    while len(dirs) > 1:
                        os.close(dirs.pop())
                    names.clear()
                    todo.extend(reversed(inside))
                else:
                    todo.extend(reversed(target.split("/")))
                if not [p for p in todo if p not in ("", ".")]:
                    raise Refused(f"{shown}: is a symbolic link to a folder, not a file")
                continue
            if last:
                yield Spot(here, part, folder, tuple(names))
                return
            if not stat.S_ISDIR(st.st_mode):
                raise Refused(f"{shown}: {part} is not a folder")
            try:
                dirs.append(os.open(part, _DIR | _NOFOLLOW, dir_fd=here))
            except OSError as exc:
                # ELOOP: it became a link since it was looked at (someone is racing us).
                raise Refused(f"{shown}: {part}: cannot be opened as a folder: {exc.strerror}") from None
            names.append(part)
    finally:
        for fd in dirs:
            os.close(fd)


def _locate_by_path(folder: Path, name: str, follow: bool) -> Spot:
    """`locate` without descriptors: the same refusals, checked on the real path."""
    shown = folder / name
    if not os.path.isdir(folder):
        raise FileNotFoundError(errno.ENOENT, f"no such folder: {folder}", str(shown))
    root_real = os.path.realpath(folder)
    parent_real = os.path.realpath(shown.parent)
    target = os.path.realpath(shown) if follow else os.path.join(parent_real, shown.name)
    inside = _under(root_real, target) if _under(root_real, parent_real) is not None else None
    if inside == []:
        raise Refused(f"{shown}: is a symbolic link to a folder, not a file")
    if inside is None:
        raise Refused(f"{shown}: is a symbolic link leading outside {folder} (to {target}); it is never read or written through")
    if not os.path.isdir(os.path.join(root_real, *inside[:-1])):
        raise FileNotFoundError(errno.ENOENT, f"no such folder: {os.path.join(root_real, *inside[:-1])}", str(shown))
    return Spot(-1, inside[-1], Path(root_real), tuple(inside[:-1]))


def _check_regular(fd: int, shown: Path, limit: int | None, what: str) -> os.stat_result:
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        kind = "a FIFO" if stat.S_ISFIFO(st.st_mode) else "a folder" if stat.S_ISDIR(st.st_mode) else "a device" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode) else "a socket" if stat.S_ISSOCK(st.st_mode) else "not a file"
        raise Refused(f"{shown}: expected a regular {what or 'file'}, found {kind}; it is not opened")
    if limit is not None and st.st_size > limit:
        raise Refused(f"{shown}: {size_text(st.st_size)}; {what + 's' if what else 'files'} over {size_text(limit)} are refused before they are read")
    return st


def open_at(spot: Spot, flags: int, *, limit: int | None = None, what: str = "") -> int:
    """Open the file at `spot` (never through a link, never blocking on a FIFO); a
    regular file of at most `limit` bytes, else Refused. The caller closes the descriptor."""
    try:
        fd = os.open(spot.beside(spot.leaf), flags | _NOFOLLOW | _OPEN, dir_fd=spot.fd_arg)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Refused(f"{spot.path}: became a symbolic link while being opened; not followed") from None
        if exc.errno == errno.ENXIO:  # a FIFO opened for writing with no reader
            raise Refused(f"{spot.path}: expected a regular {what or 'file'}, found a FIFO; it is not opened") from None
        raise
    try:
        _check_regular(fd, spot.path, limit, what)
        # Regular files ignore O_NONBLOCK; clear it anyway so later reads are plain.
        if _OPEN & getattr(os, "O_NONBLOCK", 0):
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_file(path: Path, flags: int = os.O_RDONLY, *, limit: int | None = None, what: str = "", folder: Path | None = None) -> int:
    """Open `path` (inside `folder`, by default its own folder) as `open_at` does."""
    base, name = _split(path, folder)
    with locate(base, name) as spot:
        return open_at(spot, flags, limit=limit, what=what)


def _split(path: Path, folder: Path | None) -> tuple[Path, str]:
    if folder is None:
        return path.parent, path.name
    return folder, str(path)


def read_fd(fd: int, limit: int | None, shown: Path, what: str = "") -> bytes:
    """Everything in `fd` from the start, refusing more than `limit` bytes even if the
    file grew after it was checked."""
    parts: list[bytes] = []
    got = 0
    want = os.fstat(fd).st_size + 1  # one read for a file that does not grow meanwhile
    while True:
        if limit is not None:
            want = min(want, limit + 1 - got)
            if want <= 0:
                raise Refused(f"{shown}: over {size_text(limit)} (it grew while being read); {what or 'file'}s that big are refused")
        part = pread(fd, want, got)
        if not part:
            return b"".join(parts)
        parts.append(part)
        got += len(part)
        want = 1 << 20


def pread(fd: int, size: int, offset: int) -> bytes:
    """`os.pread`, or a seek and a read where there is none (Windows)."""
    if hasattr(os, "pread"):
        return os.pread(fd, size, offset)
    os.lseek(fd, offset, os.SEEK_SET)
    return os.read(fd, size)


def read_bytes(path: Path, limit: int, *, what: str = "", folder: Path | None = None, missing_ok: bool = False) -> bytes | None:
    """The bytes of a regular file of at most `limit` bytes inside its folder; None if it
    does not exist and `missing_ok`. Refused (or OSError) otherwise."""
    base, name = _split(path, folder)
    try:
        with locate(base, name) as spot:
            fd = open_at(spot, os.O_RDONLY, limit=limit, what=what)
            try:
                return read_fd(fd, limit, spot.path, what)
            finally:
                os.close(fd)
    except FileNotFoundError:
        if missing_ok:
            return None
        raise


def lstat(path: Path) -> os.stat_result | None:
    """The status of the file `path` stands for inside its folder (links inside it
    followed); None if it does not exist. Refused for a link out. Nothing is opened."""
    with locate(path.parent, path.name) as spot:
        return spot.lstat()


def exists(path: Path) -> bool:
    """Anything at `path` itself (a link counts, wherever it leads)."""
    try:
        os.lstat(path)
    except FileNotFoundError:
        return False
    return True


def real(path: Path) -> Path:
    """The file `path` stands for (links inside its folder followed), as a path."""
    with locate(path.parent, path.name) as spot:
        return spot.path


def refusal(path: Path, limit: int | None = None, what: str = "") -> str:
    """Why `path` would be refused (a link out, a FIFO, a device, too big), or "".
    A missing file is not a refusal (the caller says it is missing)."""
    try:
        with locate(path.parent, path.name) as spot:
            if spot.lstat() is None:
                return ""
            os.close(open_at(spot, os.O_RDONLY, limit=limit, what=what))
    except Refused as exc:
        return str(exc)
    except OSError:
        return ""
    return ""


def fsync_dir(dir_fd: int) -> None:
    # Some filesystems refuse fsync on a folder; the rename is still atomic.
    if dir_fd < 0:
        return  # the path fallback: no folder descriptor (Windows cannot fsync a folder)
    with contextlib.suppress(OSError):
        os.fsync(dir_fd)


def _umask_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def write_at(spot: Spot, data: bytes, *, mode: int | None = None, what: str = "") -> None:
    """Replace the file at `spot` with `data` atomically (see `replace`)."""
    current = spot.lstat()
    gid = None
    if current is not None and not stat.S_ISLNK(current.st_mode):
        if not stat.S_ISREG(current.st_mode):
            raise Refused(f"{spot.path}: expected a regular {what or 'file'}, found something else (a FIFO, device or folder); it is not replaced")
        mode, gid = stat.S_IMODE(current.st_mode), current.st_gid
    elif mode is None:
        mode = _umask_mode()
    # Read and write bits only: a file planted with setuid, setgid, sticky or execute
    # bits (`-rwsrwsrwx`) does not pass them on to the file written in its place.
    mode &= FILE_BITS
    tmp = ""
    fd = -1
    for _ in range(100):
        tmp = f".{spot.leaf}.{os.urandom(4).hex()}.tmp"  # as secrets.token_hex, without loading hashlib at start-up
        try:
            fd = os.open(spot.beside(tmp), os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _NEW, 0o600, dir_fd=spot.fd_arg)
            break
        except FileExistsError:
            continue
    else:  # pragma: no cover - a hundred random names taken
        raise Refused(f"{spot.path}: cannot create a temporary file beside it")
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
            if gid is not None and os.fstat(fd).st_gid != gid and hasattr(os, "fchown"):
                with contextlib.suppress(OSError):  # keep the file's group where we may
                    os.fchown(fd, -1, gid)
            if hasattr(os, "fchmod"):  # Windows (before 3.13) has none: no modes to keep there
                os.fchmod(fd, mode)
        finally:
            os.close(fd)
        os.replace(spot.beside(tmp), spot.beside(spot.leaf), src_dir_fd=spot.fd_arg, dst_dir_fd=spot.fd_arg)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):  # never created, or already renamed
            os.unlink(spot.beside(tmp), dir_fd=spot.fd_arg)
        raise
    fsync_dir(spot.dir_fd)


def replace(path: Path, data: bytes, *, follow: bool = True, mode: int | None = None, what: str = "") -> bool:
    """Write `data` to `path` atomically inside its folder; True if a link was replaced.

    The file keeps its read and write bits and group (a group-shared folder stays
    shared; never a setuid, setgid, sticky or execute bit); a new one gets `mode`, else
    the umask's default. `follow=False`: a link at `path` is
    replaced by the file (its target untouched); otherwise a link is followed only
    inside the folder (see `locate`)."""
    with locate(path.parent, path.name, follow=follow) as spot:
        current = spot.lstat()
        was_link = current is not None and stat.S_ISLNK(current.st_mode)
        write_at(spot, data, mode=mode, what=what)
    return was_link


def remove_temporaries(path: Path) -> int:
    """Remove the `.NAME.*.tmp` files a writer killed mid-write left beside `path` (call
    it holding the file's lock, so no live writer is using one): regular files only."""
    with locate(path.parent, path.name) as spot:
        prefix, removed = f".{spot.leaf}.", 0
        try:
            with os.scandir(spot.dir_fd if spot.dir_fd >= 0 else spot.path.parent) as entries:
                names = [e.name for e in entries if e.name.startswith(prefix) and e.name.endswith(".tmp") and len(e.name) > len(prefix) + 4 and e.is_file(follow_symlinks=False)]
        except OSError:
            return 0
        for name in names:
            with contextlib.suppress(OSError):
                os.unlink(spot.beside(name), dir_fd=spot.fd_arg)
                removed += 1
    return removed
