"""Direct tests of tracker.serve.pty_bridge: one child on its own pseudo-terminal (the
module docstring and decision 0020). The child leads its own session with the pty as
its controlling terminal, of the size asked (at least 1x1, pixels never negative); its
output is read from the master and handed on; keystrokes wait in the bridge when the
pty is full, the caller told to stop above `INPUT_HIGH` and told again once below half
of it, and dropped beyond `INPUT_CAP`. Stopping: SIGHUP then SIGTERM to the group,
SIGKILL after the grace, the group killed after its leader, the child always reaped. A
forked child (`in_process`) drops the server's descriptors but the one it keeps, its
signal handlers and its event loop, gets fresh std streams on the pty, the environment
given, and leaves with the status its function gave (an error said on the terminal). A
hosted child (`attach`) is ended by asking it.

The children are small programs of the test's: `python -S -c` for exec, functions
for fork (they report on their terminal, which the test reads)."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import fcntl
import gc
import io
import json
import os
import select
import signal
import socket
import struct
import sys
import termios
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tracker.serve import pty_bridge
from tracker.serve.pty_bridge import INPUT_CAP, INPUT_HIGH, STOP_GRACE, ForkedProcess, PtyChild, set_winsize
from tests.helpers import until

pytestmark = pytest.mark.serve

SOON = 10.0  # seconds: what is waited for takes milliseconds; a broken one fails in this time
PIPE = 4096  # the pipes the input tests write to hold this much (F_SETPIPE_SZ)


def winsize(fd: int) -> tuple[int, int, int, int]:
    """(cols, rows, xpixels, ypixels) of a terminal, as the kernel holds them."""
    rows, cols, xpix, ypix = struct.unpack("HHHH", fcntl.ioctl(fd, termios.TIOCGWINSZ, b"\0" * 8))
    return cols, rows, xpix, ypix


def open_fds() -> set[int]:
    """The descriptors open in this process (without opening one to look)."""
    found = set()
    for fd in range(4096):
        try:
            fcntl.fcntl(fd, fcntl.F_GETFD)
        except OSError:
            continue
        found.add(fd)
    return found


def terminals() -> set[str]:
    """The pty slaves this process holds (a master is /dev/ptmx, a slave /dev/pts/N)."""
    held = set()
    for fd in open_fds():
        with contextlib.suppress(OSError):
            target = os.readlink(f"/proc/self/fd/{fd}")
            if target.startswith("/dev/pts/"):
                held.add(target)
    return held


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(") ", 1)[1][0] != "Z"
    except FileNotFoundError:
        return False


class Out:
    """What the child wrote on its terminal."""

    def __init__(self) -> None:
        self.data = bytearray()

    def __call__(self, data: bytes) -> None:
        self.data.extend(data)

    def text(self) -> str:
        return bytes(self.data).decode(errors="replace")

    def report(self, word: str = "REPORT") -> Any:
        for line in self.text().split("\r\n"):
            if line.startswith(word + " "):
                return json.loads(line[len(word) + 1:])
        raise AssertionError(f"no {word} in {self.text()!r}")

    async def saw(self, text: str) -> None:
        await until(lambda: text in self.text(), f"{text!r} on the terminal, in {self.text()!r}", SOON)


# ------------------------------------------------------------------ the size


def test_the_size_asked_is_the_terminals() -> None:
    master, slave = os.openpty()
    try:
        set_winsize(slave, 132, 43, 640, 480)
        assert winsize(master) == (132, 43, 640, 480)
        set_winsize(master, 80, 24)  # pixels: none said, none
        assert winsize(slave) == (80, 24, 0, 0)
        set_winsize(slave, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF)
        assert winsize(slave) == (0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF)
        set_winsize(slave, 1, 1, 1, 1)
        assert winsize(slave) == (1, 1, 1, 1)
    finally:
        os.close(master)
        os.close(slave)


def test_a_size_out_of_range_is_kept_in_it() -> None:
    master, slave = os.openpty()
    try:
        set_winsize(slave, 0, 0)  # a zero size would read as "unknown": at least 1x1
        assert winsize(slave) == (1, 1, 0, 0)
        set_winsize(slave, -5, -9, -1, -20)
        assert winsize(slave) == (1, 1, 0, 0)
        set_winsize(slave, 70000, 0x10000, 0x10005, 0x1FFFF)  # the kernel's fields hold 16 bits
        assert winsize(slave) == (0xFFFF, 0xFFFF, 5, 0xFFFF)
        set_winsize(slave, 100, 30, 0x10000, 2)
        assert winsize(slave) == (100, 30, 0, 2)
        set_winsize(slave, 2, 3, 0, 0)
        assert winsize(slave) == (2, 3, 0, 0)
    finally:
        os.close(master)
        os.close(slave)


# ------------------------------------------------------------------ exec

REPORTER = r"""
import fcntl, json, os, struct, sys, termios
rows, cols, xpix, ypix = struct.unpack("HHHH", fcntl.ioctl(0, termios.TIOCGWINSZ, b"\0" * 8))
fds = []
for fd in range(4096):
    try:
        fcntl.fcntl(fd, fcntl.F_GETFD)
    except OSError:
        continue
    fds.append(fd)
ctty = os.open("/dev/tty", os.O_RDWR)  # fails without a controlling terminal
print("STDERR here", file=sys.stderr, flush=True)
print("REPORT " + json.dumps({"argv": sys.argv[1:], "cwd": os.getcwd(), "size": [cols, rows, xpix, ypix], "fds": fds,
      "leader": os.getsid(0) == os.getpid() == os.getpgrp(), "ctty": os.tcgetpgrp(ctty) == os.getpgrp(),
      "env": os.environ.get("ONLY_THIS"), "path": "PATH" in os.environ}), flush=True)
sys.stdin.readline()
raise SystemExit(int(sys.argv[1]))
"""


async def test_an_exec_child_leads_its_session_on_the_pty_with_only_its_line(tmp_path: Path) -> None:
    out = Out()
    ours, theirs = socket.socketpair()
    stray_r, stray_w = os.pipe()
    os.set_inheritable(stray_r, True)  # inheritable, and still not the child's
    before = open_fds()
    child = PtyChild([sys.executable, "-S", "-c", REPORTER, "5", "x y"], {"ONLY_THIS": "1"}, (100, 30, 8, 9), out, cwd=str(tmp_path), control_fd=theirs.fileno())
    try:
        assert child.pid is None
        await child.start()
        assert child.pid is not None and child.pid > 0
        assert open_fds() == before | {child.master}  # the slave is the child's only
        assert os.get_blocking(child.master) is False
        await out.saw("REPORT ")
        assert "STDERR here" in out.text()  # its standard error is the terminal too
        got = out.report()
        assert got["argv"] == ["5", "x y"] and got["cwd"] == str(tmp_path) and got["size"] == [100, 30, 8, 9]
        assert got["leader"] and got["ctty"] and got["env"] == "1" and got["path"] is False
        assert got["fds"] == [0, 1, 2, theirs.fileno()]
        assert child.write(b"go\r") is True
        assert await asyncio.wait_for(child.wait(), SOON) == 5
        assert child.returncode == 5
    finally:
        await asyncio.wait_for(child.stop(), SOON)
        ours.close()
        theirs.close()
        os.close(stray_r)
        os.close(stray_w)
    assert child.master == -1 and child.pid is not None


async def test_an_exec_child_without_a_line_gets_no_descriptor_but_the_pty(tmp_path: Path) -> None:
    out = Out()
    stray_r, stray_w = os.pipe()
    os.set_inheritable(stray_w, True)  # inheritable, and still not the child's
    child = PtyChild([sys.executable, "-S", "-c", REPORTER, "0"], {}, (80, 24, 0, 0), out)
    await child.start()
    try:
        await out.saw("REPORT ")
        got = out.report()
        assert got["fds"] == [0, 1, 2] and got["cwd"] == os.getcwd() and got["size"] == [80, 24, 0, 0]
    finally:
        await asyncio.wait_for(child.stop(), SOON)
        os.close(stray_r)
        os.close(stray_w)


async def test_a_program_that_cannot_start_leaves_nothing_open(tmp_path: Path) -> None:
    before = open_fds()
    child = PtyChild([str(tmp_path / "missing")], {}, (80, 24, 0, 0), Out())
    with pytest.raises(OSError) as raised:
        await child.start()
    assert raised.value.errno == errno.ENOENT
    assert child.process is None
    assert await child.stop() is None  # nothing started: nothing to stop
    assert child.write(b"keys") is True  # nowhere to go, and no error
    assert open_fds() == before


# ------------------------------------------------------------------ fork


async def run_forked(function: Callable[[], int], cwd: str | None = None) -> tuple[int, str]:
    out = Out()
    child = PtyChild([], {}, (80, 24, 0, 0), out, cwd=cwd, in_process=function)
    await child.start()
    try:
        code = await asyncio.wait_for(child.wait(), SOON)
    finally:
        await asyncio.wait_for(child.stop(), SOON)
    return code, out.text()


def ends(how: Any) -> Callable[[], int]:
    def function() -> int:
        if isinstance(how, BaseException):
            raise how
        return int(how)

    return function


# The first forked children of the file end with status 1: a mutant that runs the
# child's side in the test's own process then ends that process as a failure.


@pytest.mark.parametrize(
    ("how", "said"), [(ValueError("boom"), "ValueError: boom"), (KeyboardInterrupt(), "KeyboardInterrupt: "), (OSError("bad \udcff name"), "OSError: bad ? name")]
)
async def test_an_error_in_a_forked_child_is_said_on_its_terminal(how: BaseException, said: str) -> None:
    code, text = await run_forked(ends(how))
    assert code == 1
    assert text == f"\r\r\ntracker: internal error: {said}\r\r\n"  # each \n a \r\n on the terminal (ONLCR)


@pytest.mark.parametrize(
    ("how", "code"),
    [(0, 0), (7, 7), (255, 255), (256, 0), (300, 44), (-3, 1), (SystemExit(4), 4), (SystemExit(None), 0), (SystemExit("bye"), 1), (SystemExit(-2), 1)],
)
async def test_a_forked_child_leaves_with_the_status_its_function_gave(how: Any, code: int) -> None:
    got, text = await run_forked(ends(how))
    assert got == code
    assert "internal error" not in text and "bye" not in text


async def test_a_forked_child_whose_output_cannot_be_flushed_leaves_with_its_status() -> None:
    def closes_its_output() -> int:
        sys.stdout.write("held in the buffer")  # no newline: still buffered...
        os.close(1)  # ...when its descriptor goes: the last flush fails
        return 5

    code, text = await run_forked(closes_its_output)
    assert code == 5 and "held" not in text


async def test_a_forked_child_that_cannot_go_to_its_folder_says_why(tmp_path: Path) -> None:
    code, text = await run_forked(ends(0), cwd=str(tmp_path / "gone"))
    assert code == 1
    assert text.startswith("\r\r\ntracker: internal error: FileNotFoundError: ") and str(tmp_path / "gone") in text


def in_child(**facts: Any) -> Callable[[], int]:
    """A forked child's function: report how it finds itself, then wait for a line."""

    def report() -> int:
        fds = sorted(open_fds())
        ctty = os.open("/dev/tty", os.O_RDWR)
        os.close(ctty)
        std = {}
        for name, stream in (("stdin", sys.stdin), ("stdout", sys.stdout), ("stderr", sys.stderr)):
            raw: Any = stream.buffer  # the FileIO itself: no buffer between
            std[name] = [stream.encoding, stream.errors, stream.line_buffering, raw.fileno(), raw.mode, raw.closefd]
        std["same"] = [sys.stdin is sys.__stdin__, sys.stdout is sys.__stdout__, sys.stderr is sys.__stderr__]
        handlers = {int(sig): signal.getsignal(sig) == signal.SIG_DFL for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD, signal.SIGWINCH, signal.SIGQUIT)}
        got = {
            "argv": sys.argv,
            "cwd": os.getcwd(),
            "env": dict(os.environ),
            "fds": fds,
            "leader": os.getsid(0) == os.getpid() == os.getpgrp() and os.tcgetpgrp(0) == os.getpgrp(),
            "std": std,
            "handlers": handlers,
            "sigint": signal.getsignal(signal.SIGINT) is signal.default_int_handler,
            "wakeup": signal.set_wakeup_fd(-1),
            "frozen": gc.get_freeze_count() > facts["frozen"],
            "loop": asyncio.run(asyncio.sleep(0, "ran")),
            "policy": id(asyncio.get_event_loop_policy()) != facts["policy"],
            "size": list(winsize(0)),
        }
        print("REPORT " + json.dumps(got))
        line = sys.stdin.readline()
        print("READ " + json.dumps(line))
        sys.stdout.write("\udcff")
        sys.stderr.write(" \udcff")
        sys.stdout.write(" no newline")  # flushed on the way out all the same
        sys.stderr.write(" nor here")
        return int(facts["code"])

    return report


@pytest.fixture
def server_handlers() -> Iterator[None]:
    """Handlers of the server's own for the signals a child must not keep, and a wakeup
    descriptor, as a server's loop sets them."""

    def handler(signum: int, frame: Any) -> None:
        """The server's."""

    sigs = (signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD, signal.SIGWINCH, signal.SIGQUIT)
    old = {sig: signal.getsignal(sig) for sig in (*sigs, signal.SIGINT)}
    wake_r, wake_w = socket.socketpair()
    wake_w.setblocking(False)
    for sig in sigs:
        signal.signal(sig, handler)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    old_wakeup = signal.set_wakeup_fd(wake_w.fileno())
    try:
        yield
    finally:
        signal.set_wakeup_fd(old_wakeup)
        for sig, was in old.items():
            signal.signal(sig, was)
        wake_r.close()
        wake_w.close()


async def test_a_forked_child_leaves_the_server_behind_but_its_line(tmp_path: Path, server_handlers: None) -> None:
    out = Out()
    ours, theirs = socket.socketpair()
    after_r, after_w = os.pipe()  # descriptors just above the one kept
    assert theirs.fileno() > 3
    facts = {"frozen": gc.get_freeze_count(), "policy": id(asyncio.get_event_loop_policy()), "code": 300}
    env = {"ONLY": "this", "LANG": "C.UTF-8"}
    before, slaves = open_fds(), terminals()
    child = PtyChild(["not", "run"], env, (90, 20, 3, 4), out, cwd=str(tmp_path), in_process=in_child(**facts), control_fd=theirs.fileno())
    try:
        await child.start()
        assert child.master in open_fds() - before and terminals() == slaves  # the slave is the child's only
        await out.saw("REPORT ")
        got = out.report()
        assert got["argv"] == ["tracker"] and got["cwd"] == str(tmp_path) and got["env"] == env
        assert got["fds"] == [0, 1, 2, theirs.fileno()] and got["leader"] is True
        assert got["std"]["stdin"] == ["utf-8", "replace", False, 0, "rb", False]
        assert got["std"]["stdout"] == ["utf-8", "replace", True, 1, "wb", False]
        assert got["std"]["stderr"] == ["utf-8", "backslashreplace", True, 2, "wb", False]
        assert got["std"]["same"] == [True, True, True]
        assert all(got["handlers"].values()) and got["sigint"] is True
        assert got["wakeup"] == -1 and got["frozen"] is True and got["loop"] == "ran" and got["policy"] is True
        assert got["size"] == [90, 20, 3, 4]
        child.write("é".encode() + b"\xff\r")  # a byte that is no UTF-8: replaced, not fatal
        await out.saw("READ ")
        assert out.report("READ") == "\u00e9\ufffd\n"
        assert await asyncio.wait_for(child.wait(), SOON) == 300 & 0xFF
        await out.saw("nor here")
        assert out.text().endswith("? no newline \\udcff nor here")  # each stream flushed on the way out
        assert child.write(b"late") is True  # the child has gone: nothing waits
    finally:
        await asyncio.wait_for(child.stop(), SOON)
        for sock in (ours, theirs):
            sock.close()
        os.close(after_r)
        os.close(after_w)


async def test_a_forked_child_without_a_line_keeps_only_its_terminal(tmp_path: Path, server_handlers: None) -> None:
    out = Out()
    facts = {"frozen": gc.get_freeze_count(), "policy": id(asyncio.get_event_loop_policy()), "code": 0}
    child = PtyChild([], {}, (80, 24, 0, 0), out, in_process=in_child(**facts))
    await child.start()
    try:
        await out.saw("REPORT ")
        got = out.report()
        assert got["fds"] == [0, 1, 2] and got["cwd"] == os.getcwd() and got["env"] == {}
        child.write(b"\r")
        assert await asyncio.wait_for(child.wait(), SOON) == 0
    finally:
        await asyncio.wait_for(child.stop(), SOON)


def test_a_forked_child_gets_fresh_std_streams_on_its_terminal() -> None:
    """`_reopen_std` in a child of this process whose 0-2 are a pty's slave (as
    `_run_forked` makes them); it reports on a pipe, and writes on the terminal."""
    master, slave = os.openpty()
    report_r, report_w = os.pipe()
    os.write(master, "é".encode() + b"\xff\n")  # a line waiting for it, with a byte that is no UTF-8
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            for fd in (0, 1, 2):
                os.dup2(slave, fd)
            pty_bridge._reopen_std()
            std: dict[str, Any] = {}
            for name, stream in (("stdin", sys.stdin), ("stdout", sys.stdout), ("stderr", sys.stderr)):
                raw: Any = stream.buffer
                std[name] = [stream.encoding, stream.errors, stream.line_buffering, raw.fileno(), raw.mode, raw.closefd]
            std["same"] = [sys.stdin is sys.__stdin__, sys.stdout is sys.__stdout__, sys.stderr is sys.__stderr__]
            std["line"] = sys.stdin.readline()
            sys.stdout.write("\udcff out\n")  # line-buffered: on the terminal at once
            sys.stderr.write("\udcff err\n")
            os.write(report_w, json.dumps(std).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(report_w)
    os.close(slave)
    try:
        assert select.select([report_r], [], [], SOON)[0], "no report from the child"
        with os.fdopen(report_r, "rb") as report:
            std = json.loads(report.read() or b"null")
        assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0
        terminal = bytearray()
        with contextlib.suppress(OSError):  # EIO: the child has gone
            while select.select([master], [], [], 0)[0]:
                data = os.read(master, 4096)
                if not data:
                    break
                terminal += data
    finally:
        os.close(master)
    assert std["stdin"] == ["utf-8", "replace", False, 0, "rb", False]
    assert std["stdout"] == ["utf-8", "replace", True, 1, "wb", False]
    assert std["stderr"] == ["utf-8", "backslashreplace", True, 2, "wb", False]
    assert std["same"] == [True, True, True]
    assert std["line"] == "\u00e9\ufffd\n"
    assert b"? out\r\n" in terminal and b"\\udcff err\r\n" in terminal


async def test_nothing_buffered_in_the_servers_streams_is_written_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    read_out, write_out = os.pipe()
    read_err, write_err = os.pipe()
    os.set_blocking(read_out, False)
    os.set_blocking(read_err, False)
    stdout = io.TextIOWrapper(io.FileIO(write_out, "w"), encoding="utf-8")
    stderr = io.TextIOWrapper(io.FileIO(write_err, "w"), encoding="utf-8")
    monkeypatch.setattr(sys, "stdout", stdout)
    monkeypatch.setattr(sys, "stderr", stderr)
    stdout.write("said once")
    stderr.write("warned once")
    try:
        code, _text = await run_forked(ends(0))
        assert code == 0
        assert os.read(read_out, 100) == b"said once"  # flushed before the fork, by the server
        assert os.read(read_err, 100) == b"warned once"
    finally:
        monkeypatch.undo()
        stdout.close()
        stderr.close()
        os.close(read_out)
        os.close(read_err)


async def test_a_stream_that_cannot_flush_does_not_stop_the_fork(monkeypatch: pytest.MonkeyPatch) -> None:
    class Broken:
        def flush(self) -> None:
            raise OSError("gone")

    monkeypatch.setattr(sys, "stdout", Broken())
    monkeypatch.setattr(sys, "stderr", None)
    code, _text = await run_forked(ends(3))
    monkeypatch.undo()
    assert code == 3


# ------------------------------------------------------------------ ForkedProcess


def forked(code: int | None) -> int:
    """A child of this process that exits with `code` (None: waits to be killed, or
    exits 0 by itself after SOON, so that a wait that blocks ends in a failure)."""
    pid = os.fork()
    if pid == 0:
        if code is None:
            signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR1])
            signal.sigtimedwait([signal.SIGUSR1], SOON)
        os._exit(code or 0)
    return pid


@pytest.fixture(params=["pidfd", "poll"])
def notice(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """How the exit is noticed: a pidfd, or polling (a kernel before 5.3)."""
    if request.param == "poll":
        monkeypatch.delattr(os, "pidfd_open")
    return str(request.param)


async def test_a_forked_process_is_reaped_with_its_status(notice: str) -> None:
    before = open_fds()
    pid = forked(None)
    process = ForkedProcess(pid)
    assert process.pid == pid and process.returncode is None
    await asyncio.sleep(0)
    assert process.returncode is None and alive(pid)  # still running: not reaped
    os.kill(pid, signal.SIGKILL)
    assert await asyncio.wait_for(process.wait(), SOON) == -signal.SIGKILL
    assert process.returncode == -signal.SIGKILL
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reaped
    assert open_fds() == before  # the pidfd closed
    process = ForkedProcess(forked(6))
    assert await asyncio.wait_for(process.wait(), SOON) == 6
    assert await process.wait() == 6  # asked again: the same
    if notice == "poll":
        await until(lambda: process._poll.done(), "the polling over once the process is reaped", SOON)
        assert process.returncode == 6


async def test_a_kernel_without_pidfd_open_refusing_it_polls(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(pid: int) -> int:
        raise OSError(errno.ENOSYS, "no pidfd")

    monkeypatch.setattr(os, "pidfd_open", refused)
    process = ForkedProcess(forked(9))
    assert await asyncio.wait_for(process.wait(), SOON) == 9


async def test_a_process_reaped_by_someone_else_counts_as_ended(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(os, "pidfd_open")
    pid = forked(4)
    os.waitpid(pid, 0)
    process = ForkedProcess(pid)
    assert await asyncio.wait_for(process.wait(), SOON) == 0


def test_leaving_the_server_closes_every_descriptor_above_2_but_the_one_kept() -> None:
    """`leave_server` run in a child of this process; it reports on a pipe it keeps."""
    below = [os.pipe() for _ in range(2)]  # descriptors below the one kept
    report_r, report_w = os.pipe()
    extra = [os.pipe() for _ in range(2)]  # and just above it
    assert min(open_fds() - {0, 1, 2}) == 3 and report_w > 4
    pid = os.fork()
    if pid == 0:  # the child: report the descriptors left, as JSON
        code = 0
        try:
            pty_bridge.leave_server(report_w)
            os.write(report_w, json.dumps(sorted(open_fds())).encode())
        except BaseException:
            code = 1
        os._exit(code)
    os.close(report_w)
    with os.fdopen(report_r, "rb") as report:
        fds = json.loads(report.read() or b"null")
    assert os.waitpid(pid, 0)[1] == 0
    for pair in below + extra:
        for fd in pair:
            os.close(fd)
    assert fds == [0, 1, 2, report_w]


def test_leaving_the_server_keeps_descriptor_3_when_asked() -> None:
    report_r, report_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            os.dup2(report_w, 3)
            pty_bridge.leave_server(3)
            os.write(3, json.dumps(sorted(open_fds())).encode())
        except BaseException:
            code = 1
        os._exit(code)
    os.close(report_w)
    with os.fdopen(report_r, "rb") as report:
        fds = json.loads(report.read() or b"null")
    assert os.waitpid(pid, 0)[1] == 0
    assert fds == [0, 1, 2, 3]


def test_leaving_the_server_keeping_nothing_closes_every_descriptor_above_2() -> None:
    report_r, report_w = os.pipe()
    std = open_fds() & {0, 1, 2}
    assert 3 in open_fds()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            pty_bridge.leave_server()
            code = 10 + len(open_fds())
        except BaseException:
            code = 1
        os._exit(code)
    os.close(report_w)
    os.close(report_r)
    assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 10 + len(std)  # 0, 1 and 2 only


# ------------------------------------------------------------------ output


def quiet_pipe() -> tuple[int, int]:
    """A pipe holding exactly PIPE bytes (read end, write end), both non-blocking."""
    r, w = os.pipe()
    fcntl.fcntl(w, 1031, PIPE)  # F_SETPIPE_SZ
    os.set_blocking(r, False)
    os.set_blocking(w, False)
    return r, w


def on_pipe(w: int, rooms: list[int] | None = None, loop: bool = True) -> PtyChild:
    """A PtyChild whose master is the write end of a pipe nobody reads yet."""
    child = PtyChild([], {}, (80, 24, 0, 0), Out(), on_input_room=(lambda: rooms.append(len(child._pending))) if rooms is not None else None)
    child.master = w
    child._loop = asyncio.get_running_loop() if loop else None
    return child


def drain(r: int) -> bytes:
    got = bytearray()
    with contextlib.suppress(BlockingIOError):
        while True:
            data = os.read(r, 65536)
            if not data:
                break
            got += data
    return bytes(got)


async def test_keystrokes_the_pty_cannot_take_wait_and_the_caller_is_told_to_stop() -> None:
    assert (INPUT_HIGH, INPUT_CAP) == (64 * 1024, 1024 * 1024)
    r, w = quiet_pipe()
    rooms: list[int] = []
    child = on_pipe(w, rooms)
    try:
        assert child.write(b"a" * (PIPE + INPUT_HIGH - 1)) is True  # the pipe full, just under 64 KiB waiting
        assert child.write(b"b") is False  # 64 KiB waiting: stop
        assert child.write(b"") is False
        assert rooms == []
        got = bytearray()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + SOON
        # Room in the pipe: the keys waiting go on; below 32 KiB waiting, the caller is told, once.
        while len(got) < PIPE + INPUT_HIGH:
            got += drain(r)
            assert loop.time() < deadline, "the keys stopped flowing"
            await asyncio.sleep(0.001)
        assert bytes(got) == b"a" * (PIPE + INPUT_HIGH - 1) + b"b"
        assert len(rooms) == 1 and rooms[0] < INPUT_HIGH // 2
        assert loop.remove_writer(w) is False  # nothing waits: the pipe is not watched
    finally:
        os.close(r)
        child.close()


async def test_the_caller_is_told_at_half_of_input_high_exactly() -> None:
    r, w = quiet_pipe()
    rooms: list[int] = []
    child = on_pipe(w, rooms)
    loop = asyncio.get_running_loop()
    try:
        # Waiting, after the pipe took its share: 32 KiB + one pipe, then 32 KiB, then less.
        assert child.write(b"x" * (PIPE + INPUT_HIGH // 2 + PIPE)) is True
        assert len(child._pending) == INPUT_HIGH // 2 + PIPE
        os.read(r, PIPE)
        await until(lambda: len(child._pending) == INPUT_HIGH // 2, "one pipe's worth written", SOON)
        assert rooms == []  # 32 KiB waiting: not yet below half
        os.read(r, PIPE)
        await until(lambda: len(child._pending) == INPUT_HIGH // 2 - PIPE, "another", SOON)
        assert rooms == [INPUT_HIGH // 2 - PIPE]  # was at half, now below: told
        os.read(r, PIPE)
        await until(lambda: len(child._pending) == INPUT_HIGH // 2 - 2 * PIPE, "another", SOON)
        assert len(rooms) == 1  # told once: it was below half already
        assert loop.remove_writer(w) is True  # still waiting: the pipe is watched
    finally:
        os.close(r)
        child.close()


async def test_keystrokes_beyond_the_cap_are_dropped_and_counted() -> None:
    r, w = quiet_pipe()
    child = on_pipe(w)
    try:
        assert child.write(b"a" * PIPE) is True and child._pending == bytearray()
        assert child.write(b"b" * (INPUT_CAP - 10)) is False
        assert child.write(b"c" * 10) is False  # exactly at the cap: kept
        assert child.dropped_input == 0 and len(child._pending) == INPUT_CAP
        assert child.write(b"d") is False
        assert child.write(b"e" * 5) is False
        assert child.dropped_input == 6 and len(child._pending) == INPUT_CAP
        child.close()
        assert asyncio.get_running_loop().remove_writer(w) is False  # closed: no longer watched
        assert child.master == -1 and child.write(b"x") is True
    finally:
        os.close(r)
        child.close()


async def test_exactly_input_high_waiting_tells_the_caller_to_stop() -> None:
    r, w = quiet_pipe()
    child = on_pipe(w)
    try:
        assert child.write(b"a" * (PIPE + INPUT_HIGH)) is False
        assert len(child._pending) == INPUT_HIGH
    finally:
        os.close(r)
        child.close()


async def test_a_child_gone_with_keys_waiting_lets_the_caller_send_again() -> None:
    r, w = quiet_pipe()
    rooms: list[int] = []
    child = on_pipe(w, rooms)
    try:
        assert child.write(b"a" * (PIPE + INPUT_HIGH)) is False
        os.close(r)  # nobody will read them now: dropped, and the caller told there is room
        await until(lambda: rooms == [0], "the caller told", SOON)
        assert child._pending == bytearray() and asyncio.get_running_loop().remove_writer(w) is False
    finally:
        child.close()


async def test_keystrokes_for_a_child_gone_are_dropped_without_error() -> None:
    r, w = quiet_pipe()
    os.close(r)  # nobody will ever read: the write fails (EPIPE), as EIO on a pty whose child left
    child = on_pipe(w)
    try:
        assert child.write(b"k" * 10) is True
        assert child._pending == bytearray()
    finally:
        child.close()


async def test_keystrokes_without_a_loop_are_written_as_far_as_they_go() -> None:
    r, w = quiet_pipe()
    child = on_pipe(w, [], loop=False)
    try:
        assert child.write(b"z" * (PIPE + 10)) is True
        assert drain(r) == b"z" * PIPE and len(child._pending) == 10
    finally:
        os.close(r)
        child.close()


async def test_output_is_handed_on_paused_resumed_and_ends_at_the_end() -> None:
    out = Out()
    r, w = os.pipe()
    os.set_blocking(r, False)
    child = PtyChild([], {}, (80, 24, 0, 0), out)
    child.master = r
    child._loop = asyncio.get_running_loop()
    try:
        child._start_reading()
        os.write(w, b"frame 1")
        await out.saw("frame 1")
        child.pause()
        child.pause()
        os.write(w, b"frame 2")
        started = time.monotonic()
        await until(lambda: time.monotonic() - started > 0.2, "a moment", SOON)
        assert bytes(out.data) == b"frame 1"  # paused: not read
        child.resume()
        child.resume()
        await out.saw("frame 2")
        child._readable()  # said readable, nothing there: nothing happens
        assert bytes(out.data) == b"frame 1frame 2"
        os.close(w)
        w = -1
        await until(lambda: child._output_closed.is_set(), "the end seen", SOON)
        child.resume()  # no more to read
        assert asyncio.get_running_loop().remove_reader(r) is False
        assert child.write(b"x") is True  # nothing reads it: taken, and gone
    finally:
        if w >= 0:
            os.close(w)
        child.close()


async def test_a_read_error_other_than_the_end_is_raised() -> None:
    child = PtyChild([], {}, (80, 24, 0, 0), Out())
    r, w = os.pipe()
    child.master = w  # reading a write end: EBADF, the end
    child._readable()
    assert child._output_closed.is_set()
    child.resize(100, 30)  # not a terminal: only remembered
    assert child.size == (100, 30, 0, 0)
    child.close()  # never started: no loop to tell
    assert child.master == -1
    os.close(r)
    directory = os.open("/", os.O_RDONLY)
    other = PtyChild([], {}, (80, 24, 0, 0), Out())
    other.master = directory  # EISDIR: not the end of a child, so raised
    try:
        with pytest.raises(IsADirectoryError):
            other._readable()
        assert not other._output_closed.is_set()
    finally:
        os.close(directory)


async def test_the_end_of_a_childs_pty_is_seen_as_the_end_of_its_output() -> None:
    out = Out()
    child = PtyChild([sys.executable, "-S", "-c", "print('bye')"], {}, (80, 24, 0, 0), out)
    await child.start()
    assert await asyncio.wait_for(child.wait(), SOON) == 0
    assert "bye" in out.text() and child._output_closed.is_set()
    await child.stop()


# ------------------------------------------------------------------ resize


async def test_a_resize_before_the_start_is_the_size_it_starts_with_and_after_reaches_the_pty() -> None:
    out = Out()
    child = PtyChild([sys.executable, "-S", "-c", REPORTER, "0"], {}, (80, 24, 0, 0), out)
    child.resize(120, 40)
    assert child.size == (120, 40, 0, 0)
    await child.start()
    try:
        await out.saw("REPORT ")
        assert out.report()["size"] == [120, 40, 0, 0]
        child.resize(100, 35, 5, 6)
        assert child.size == (100, 35, 5, 6) and winsize(child.master) == (100, 35, 5, 6)
    finally:
        await asyncio.wait_for(child.stop(), SOON)
    child.resize(90, 20)  # closed: only remembered
    assert child.size == (90, 20, 0, 0)


class Hosted:
    """A viewers' process's app (viewer_processes.HostedViewer) as the bridge uses it."""

    def __init__(self, slave: int, answer: int | None = 0) -> None:
        self.slave = os.dup(slave)
        self.pid = 0
        self.returncode: int | None = None
        self.resizes = 0
        self.answer = answer
        self.asked: list[float] = []
        self.ended_as: list[int] = []
        os.write(self.slave, b"hosted here")

    async def wait(self) -> int:
        await until(lambda: self.returncode is not None, "ended", SOON)
        assert self.returncode is not None
        return self.returncode

    def resized(self) -> None:
        self.resizes += 1

    async def end(self, grace: float) -> int | None:
        self.asked.append(grace)
        if self.answer is not None:
            self.ended(self.answer)
        return self.answer

    def ended(self, code: int) -> None:
        self.ended_as.append(code)
        self.returncode = code
        os.close(self.slave)


@pytest.mark.parametrize("answer", [0, None])
async def test_a_hosted_app_is_sized_and_ended_by_asking_it(answer: int | None) -> None:
    out = Out()
    made: list[Hosted] = []

    def attach(slave: int) -> Hosted:
        made.append(Hosted(slave, answer))
        return made[-1]

    before = open_fds()
    child = PtyChild(["never", "run"], {}, (70, 20, 0, 0), out, attach=attach)
    await child.start()
    hosted = made[0]
    assert child.process is hosted and child.pid == 0
    assert winsize(hosted.slave)[:2] == (70, 20)
    await out.saw("hosted here")
    child.resize(100, 30)
    assert hosted.resizes == 1 and winsize(hosted.slave)[:2] == (100, 30)  # no SIGWINCH reaches a shared process
    assert await asyncio.wait_for(child.stop(1.5), SOON) == (0 if answer == 0 else -signal.SIGKILL)
    assert hosted.asked == [1.5] and hosted.ended_as == [0 if answer == 0 else -signal.SIGKILL]
    assert child.master == -1 and child._output_closed.is_set() and open_fds() == before
    child.resize(90, 20)
    assert hosted.resizes == 1


async def test_an_attach_that_fails_leaves_nothing_open() -> None:
    def attach(slave: int) -> Hosted:
        raise OSError(errno.EMFILE, "too many")

    before = open_fds()
    child = PtyChild([], {}, (80, 24, 0, 0), Out(), attach=attach)
    with pytest.raises(OSError):
        await child.start()
    assert open_fds() == before and child.master == -1


async def test_an_exec_child_resized_is_not_asked_as_a_hosted_one() -> None:
    child = PtyChild([sys.executable, "-S", "-c", "import sys; sys.stdin.readline()"], {}, (80, 24, 0, 0), Out())
    await child.start()
    try:
        child.resize(81, 25)  # no `resized` to call on a process of its own
        assert winsize(child.master)[:2] == (81, 25)
    finally:
        await asyncio.wait_for(child.stop(), SOON)


# ------------------------------------------------------------------ stopping

TRAPS = r"""
import os, signal, subprocess, sys, time
seen = []
def trap(signum, frame):
    seen.append(signal.Signals(signum).name)
    with open(sys.argv[2], "w") as record:
        record.write(" ".join(seen))
    if len(seen) == 2 and sys.argv[1] == "obliging":
        raise SystemExit(0)
grand = subprocess.Popen([sys.executable, "-S", "-c", "import signal, time; signal.signal(signal.SIGHUP, signal.SIG_IGN); signal.signal(signal.SIGTERM, signal.SIG_IGN); print('GRAND', flush=True); time.sleep(60)"])
signal.signal(signal.SIGHUP, trap)
signal.signal(signal.SIGTERM, trap)
os.write(1, f"READY {grand.pid}\r\n".encode())
time.sleep(60)  # bounded: a stop that fails leaves nothing running for long
"""


async def started(kind: str, record: Path) -> tuple[PtyChild, Out, int]:
    """A child that records the signals it gets in `record`; "obliging": it ends on
    the second."""
    out = Out()
    child = PtyChild([sys.executable, "-S", "-c", TRAPS, kind, str(record)], {}, (80, 24, 0, 0), out)
    await child.start()
    await out.saw("READY ")
    await out.saw("GRAND")
    grand = int(out.text().split("READY ")[1].split()[0])
    return child, out, grand


async def test_a_stop_hangs_up_then_terminates_and_ends_the_group(tmp_path: Path) -> None:
    child, out, grand = await started("obliging", tmp_path / "signals")
    assert alive(grand)
    started_at = time.monotonic()
    assert await asyncio.wait_for(child.stop(), SOON) == 0
    assert time.monotonic() - started_at < STOP_GRACE
    assert (tmp_path / "signals").read_text() == "SIGHUP SIGTERM"
    assert child.returncode == 0 and child.master == -1
    await until(lambda: not alive(grand), "the grandchild ended with its group", SOON)
    assert await child.stop() == 0  # again: nothing more to do
    child.pause()  # the client's window filling after the end: nothing to pause or resume
    child.resume()


async def test_a_child_that_will_not_end_is_killed_after_the_grace(tmp_path: Path) -> None:
    assert STOP_GRACE == 2.0
    child, out, grand = await started("stubborn", tmp_path / "signals")
    started_at = time.monotonic()
    assert await asyncio.wait_for(child.stop(0.3), SOON) == -signal.SIGKILL
    assert 0.3 <= time.monotonic() - started_at < STOP_GRACE
    await until(lambda: not alive(grand), "the grandchild killed with its group", SOON)


async def test_the_grace_is_two_seconds_unless_said(tmp_path: Path) -> None:
    child, _out, _grand = await started("stubborn", tmp_path / "signals")
    started_at = time.monotonic()
    assert await asyncio.wait_for(child.stop(), SOON) == -signal.SIGKILL
    assert STOP_GRACE - 0.1 <= time.monotonic() - started_at < STOP_GRACE + 0.9


async def test_a_child_gone_leaves_its_group_ended_all_the_same(tmp_path: Path) -> None:
    child, out, grand = await started("stubborn", tmp_path / "signals")
    assert child.pid is not None
    os.kill(child.pid, signal.SIGKILL)
    assert await asyncio.wait_for(child.wait(), SOON) == -signal.SIGKILL
    assert alive(grand)  # still holding the terminal: the wait did not wait for it for ever
    assert await asyncio.wait_for(child.stop(), SOON) == -signal.SIGKILL
    await until(lambda: not alive(grand), "what the leader left behind, killed", SOON)


async def test_the_wait_does_not_wait_for_ever_for_a_grandchild_holding_the_pty(tmp_path: Path) -> None:
    child, _out, grand = await started("stubborn", tmp_path / "signals")
    assert child.pid is not None
    os.kill(child.pid, signal.SIGKILL)
    started_at = time.monotonic()
    assert await asyncio.wait_for(child.wait(), SOON) == -signal.SIGKILL
    assert 0.9 <= time.monotonic() - started_at  # a moment for the output, no more
    assert child.returncode == -signal.SIGKILL and not child._output_closed.is_set()
    await asyncio.wait_for(child.stop(), SOON)
    await until(lambda: not alive(grand), "the grandchild killed with its group", SOON)


async def test_a_group_that_cannot_be_signalled_is_left_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    child, _out, _grand = await started("obliging", tmp_path / "signals")

    def refused(pgid: int, sig: int) -> None:
        raise PermissionError(errno.EPERM, "not ours")

    monkeypatch.setattr(os, "killpg", refused)
    child._signal_group(signal.SIGTERM)  # not ours to signal: nothing to do
    monkeypatch.undo()
    assert await asyncio.wait_for(child.stop(), SOON) == 0


async def test_a_forked_child_is_stopped_as_an_exec_one() -> None:
    def waits() -> int:
        signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR1])
        print("WAITING here", flush=True)
        signal.sigwait([signal.SIGUSR1])
        return 0

    out = Out()
    child = PtyChild([], {}, (80, 24, 0, 0), out, in_process=waits)
    await child.start()
    assert isinstance(child.process, ForkedProcess) and child.pid == child.process.pid
    await out.saw("WAITING")
    assert await asyncio.wait_for(child.stop(), SOON) == -signal.SIGHUP


async def test_a_master_closed_already_is_closed_without_error() -> None:
    child = PtyChild([sys.executable, "-S", "-c", "import sys; sys.stdin.readline()"], {}, (80, 24, 0, 0), Out())
    await child.start()
    try:
        os.close(child.master)  # as a failed read may have
        child.close()
        assert child.master == -1
    finally:
        if child.process is not None and child.pid is not None:
            # It may have ended with its terminal, and been reaped, already.
            with contextlib.suppress(ProcessLookupError):
                os.kill(child.pid, signal.SIGKILL)
        await asyncio.wait_for(child.stop(), SOON)


def test_a_child_never_started_closes_without_error() -> None:
    child = PtyChild([], {}, (80, 24, 0, 0), Out())
    assert child.write(b"x" * (INPUT_CAP + 1)) is True  # no terminal yet: nowhere to go, nothing to wait for
    assert child.dropped_input == 0
    child._signal_group(signal.SIGKILL)  # no process: no signal
    child.close()
    child.close()
    assert child.master == -1 and child._output_closed.is_set() and child.returncode is None
