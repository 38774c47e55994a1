"""One child process on its own pseudo-terminal, driven from asyncio.

The child is a session leader (`setsid`) with the pty slave as its controlling terminal,
so the kernel delivers SIGWINCH to it when the window size changes (TIOCSWINSZ on the
master) and SIGHUP when the terminal goes away, exactly as under a real sshd. Keystrokes
are written to the master untouched (the app puts the terminal in raw mode itself);
output is read from the master and handed to a callback.

Decisions: docs/decisions/0020-pty-bridge.md
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import fcntl
import gc
import io
import os
import signal
import struct
import sys
import termios
from collections.abc import Callable, Sequence
from typing import Protocol

STOP_GRACE = 2.0  # seconds between SIGTERM and SIGKILL
INPUT_HIGH = 64 * 1024  # keystrokes waiting for the app: above this the caller should pause
INPUT_CAP = 1024 * 1024  # a caller that does not pause: beyond this, input is dropped


def set_winsize(fd: int, cols: int, rows: int, xpixels: int = 0, ypixels: int = 0) -> None:
    # A zero size would make some programs fall back to 80x24 silently; keep at least 1x1.
    rows, cols = max(1, min(rows, 0xFFFF)), max(1, min(cols, 0xFFFF))
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, max(0, xpixels) & 0xFFFF, max(0, ypixels) & 0xFFFF))


def _become_terminal_owner() -> None:  # runs in the child between fork and exec
    # start_new_session has already called setsid(); fd 0 is the pty slave.
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class ForkedProcess:
    """What PtyChild uses of asyncio.subprocess.Process, for a child made with os.fork.

    The exit is noticed through a pidfd (readable when the child ends) and reaped with
    waitpid for this pid only, so no thread and no SIGCHLD handler is involved."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.returncode: int | None = None
        self._done = asyncio.Event()
        self._loop = asyncio.get_running_loop()
        try:
            self._pidfd = os.pidfd_open(pid)
        except (AttributeError, OSError):  # kernels before 5.3: poll instead
            self._pidfd = -1
            self._poll = self._loop.create_task(self._poll_exit())
        else:
            self._loop.add_reader(self._pidfd, self._reap)

    def _reap(self) -> bool:
        try:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
        except ChildProcessError:  # reaped already (cannot happen unless someone else waits)
            pid, status = self.pid, 0
        if pid == 0:
            return False
        self.returncode = os.waitstatus_to_exitcode(status)
        if self._pidfd >= 0:
            self._loop.remove_reader(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = -1
        self._done.set()
        return True

    async def _poll_exit(self) -> None:
        while not self._reap():
            await asyncio.sleep(0.1)

    async def wait(self) -> int:
        await self._done.wait()
        assert self.returncode is not None
        return self.returncode


def _reopen_std() -> None:
    """Fresh sys.std* objects on fds 0-2 (now the pty): the server's may hold buffered
    bytes or a mode chosen for a file or pipe. The `__std*__` originals too (typed Final,
    as a program should leave them): Textual's driver reads and writes `sys.__stdin__` and
    `sys.__stderr__`, and in this forked child the originals are the server's."""
    sys.stdin = sys.__stdin__ = io.TextIOWrapper(io.FileIO(0, "r", closefd=False), encoding="utf-8", errors="replace")  # type: ignore[misc]
    sys.stdout = sys.__stdout__ = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8", errors="replace", line_buffering=True)  # type: ignore[misc]
    sys.stderr = sys.__stderr__ = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8", errors="backslashreplace", line_buffering=True)  # type: ignore[misc]


def fork_flushed() -> int:
    """os.fork, with nothing buffered in sys.stdout or sys.stderr (it would be written twice)."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            if stream is not None:
                stream.flush()
    return os.fork()


def leave_server(keep: int = -1) -> None:
    """In a child forked from the server: drop the server's descriptors above 2 (but
    `keep`), its signal handlers and its event loop; the inherited objects are frozen,
    so this process's collector never scans, and so never copies, them."""
    gc.freeze()
    limit = os.sysconf("SC_OPEN_MAX") if os.sysconf("SC_OPEN_MAX") > 0 else 65536
    if keep > 2:
        os.closerange(3, keep)
        os.closerange(keep + 1, limit)
    else:
        os.closerange(3, limit)
    with contextlib.suppress(ValueError):
        signal.set_wakeup_fd(-1)  # the server loop's wakeup socket is closed above
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD, signal.SIGWINCH, signal.SIGQUIT):
        signal.signal(sig, signal.SIG_DFL)
    asyncio.events._set_running_loop(None)  # we were forked from inside the server's loop
    asyncio.set_event_loop_policy(None)


def _run_forked(slave: int, env: dict[str, str], cwd: str | None, in_process: Callable[[], int], keep: int = -1) -> None:
    """In the child, right after os.fork: become the pty's session, run, never return.
    `keep`: a descriptor of the server's the child keeps (its control socket)."""
    code = 1
    try:
        os.setsid()
        fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
        for fd in (0, 1, 2):
            os.dup2(slave, fd)
        leave_server(keep)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        if cwd is not None:
            os.chdir(cwd)
        os.environ.clear()
        os.environ.update(env)
        _reopen_std()
        sys.argv = ["tracker"]  # not the server's command line
        code = in_process()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException as exc:  # anything else: say so on the player's terminal, then leave
        with contextlib.suppress(BaseException):
            os.write(2, f"\r\ntracker: internal error: {type(exc).__name__}: {exc}\r\n".encode("utf-8", "replace"))
        code = 1
    finally:
        with contextlib.suppress(BaseException):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code & 0xFF if code >= 0 else 1)


class HostedApp(Protocol):
    """An app that runs in a process shared with others (viewer_processes.HostedViewer)."""

    pid: int
    returncode: int | None

    async def wait(self) -> int: ...

    def resized(self) -> None: ...

    async def end(self, grace: float) -> int | None: ...

    def ended(self, code: int) -> None: ...


class PtyChild:
    def __init__(
        self,
        argv: Sequence[str],
        env: dict[str, str],
        size: tuple[int, int, int, int],
        on_output: Callable[[bytes], None],
        cwd: str | None = None,
        in_process: Callable[[], int] | None = None,
        on_input_room: Callable[[], None] | None = None,
        attach: Callable[[int], HostedApp] | None = None,
        control_fd: int | None = None,
    ) -> None:
        self.argv = list(argv)
        self.env = env
        self.size = size
        self.cwd = cwd
        self.on_output = on_output
        self.in_process = in_process  # fork and call this (see the module doc) instead of exec
        self.attach = attach  # give the slave to a shared process (see the module doc)
        self.control_fd = control_fd  # the child's end of its line to the server: inherited, nothing else is
        self.process: asyncio.subprocess.Process | ForkedProcess | HostedApp | None = None
        self.on_input_room = on_input_room  # called when waiting input drops below INPUT_HIGH / 2
        self.dropped_input = 0  # bytes dropped at INPUT_CAP
        self.master = -1
        self._loop: asyncio.AbstractEventLoop | None = None
        self._reading = False
        self._paused = False
        self._pending = bytearray()  # keystrokes the pty could not take yet
        self._output_closed = asyncio.Event()
        self.returncode: int | None = None

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        master, slave = os.openpty()
        try:
            cols, rows, xpix, ypix = self.size
            set_winsize(slave, cols, rows, xpix, ypix)
            if self.attach is not None:
                self.process = self.attach(slave)
            elif self.in_process is not None:
                self.process = self._fork(slave)
            else:
                self.process = await asyncio.create_subprocess_exec(
                    *self.argv,
                    stdin=slave,
                    stdout=slave,
                    stderr=slave,
                    env=self.env,
                    cwd=self.cwd,
                    start_new_session=True,
                    preexec_fn=_become_terminal_owner,
                    close_fds=True,
                    pass_fds=() if self.control_fd is None else (self.control_fd,),
                )
        except BaseException:
            os.close(master)
            raise
        finally:
            os.close(slave)  # only the child holds the slave now: its exit gives EIO on the master
        self.master = master
        os.set_blocking(master, False)
        self._start_reading()

    def _fork(self, slave: int) -> ForkedProcess:
        assert self.in_process is not None
        pid = fork_flushed()
        if pid == 0:
            _run_forked(slave, self.env, self.cwd, self.in_process, -1 if self.control_fd is None else self.control_fd)  # never returns
        return ForkedProcess(pid)

    # ------------------------------------------------------------ output
    def _start_reading(self) -> None:
        if not self._reading and not self._output_closed.is_set() and self._loop is not None:
            self._loop.add_reader(self.master, self._readable)
            self._reading = True

    def _stop_reading(self) -> None:
        if self._reading and self._loop is not None:
            self._loop.remove_reader(self.master)
            self._reading = False

    def _readable(self) -> None:
        try:
            data = os.read(self.master, 65536)
        except BlockingIOError:
            return
        except OSError as exc:
            if exc.errno not in (errno.EIO, errno.EBADF):
                raise
            data = b""  # EIO: every slave fd is closed (the child has gone)
        if not data:
            self._stop_reading()
            self._output_closed.set()
            return
        self.on_output(data)

    def pause(self) -> None:
        self._paused = True
        self._stop_reading()

    def resume(self) -> None:
        self._paused = False
        self._start_reading()

    # ------------------------------------------------------------ input
    def write(self, data: bytes) -> bool:
        """Queue keystrokes for the app; False when the caller should stop sending until
        `on_input_room` is called (flow control); beyond INPUT_CAP input is dropped."""
        if self.master < 0 or self._output_closed.is_set():
            return True
        if len(self._pending) + len(data) > INPUT_CAP:
            self.dropped_input += len(data)
            return False
        if self._pending:
            self._pending += data
            return len(self._pending) < INPUT_HIGH
        self._pending += data
        self._flush_input()
        return len(self._pending) < INPUT_HIGH

    def _flush_input(self) -> None:
        was_full = len(self._pending) >= INPUT_HIGH // 2
        while self._pending:
            try:
                sent = os.write(self.master, self._pending)
            except BlockingIOError:
                break
            except OSError:
                self._pending.clear()  # the child has gone; nothing will read it
                break
            del self._pending[:sent]
        if self._loop is None:
            return
        if self._pending:
            self._loop.add_writer(self.master, self._flush_input)
        else:
            self._loop.remove_writer(self.master)
        if was_full and len(self._pending) < INPUT_HIGH // 2 and self.on_input_room is not None:
            self.on_input_room()

    def resize(self, cols: int, rows: int, xpixels: int = 0, ypixels: int = 0) -> None:
        self.size = (cols, rows, xpixels, ypixels)
        if self.master >= 0:
            with contextlib.suppress(OSError):  # the child is already gone
                set_winsize(self.master, cols, rows, xpixels, ypixels)
            if self.attach is not None and self.process is not None:
                self.process.resized()  # type: ignore[union-attr]  # no SIGWINCH reaches a shared process

    # ------------------------------------------------------------ ending
    async def wait(self) -> int:
        """Wait for the child to exit and its output to be read; its exit status."""
        assert self.process is not None
        code = await self.process.wait()
        # The master reports EIO once the child and anything it started have closed the
        # slave; a grandchild could keep it open, so do not wait for ever.
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._output_closed.wait(), timeout=1.0)
        self.returncode = code
        return code

    def _signal_group(self, sig: int) -> None:
        if self.process is None:
            return
        # The child leads its own session and group; it may already be gone (or, for a
        # setuid grandchild, not ours to signal): either way there is nothing to do.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, sig)

    async def stop(self, grace: float = STOP_GRACE) -> int | None:
        """End the child and its process group, and reap it."""
        if self.process is None:
            self.close()
            return None
        if self.attach is not None:
            hosted: HostedApp = self.process  # type: ignore[assignment]
            if await hosted.end(grace) is None:
                hosted.ended(-signal.SIGKILL)  # no answer: closing the master below ends it
            self.returncode = hosted.returncode
            self.close()
            return self.returncode
        if self.process.returncode is None:
            self._signal_group(signal.SIGHUP)
            self._signal_group(signal.SIGTERM)
            try:
                await asyncio.wait_for(self.process.wait(), timeout=grace)
            except asyncio.TimeoutError:
                self._signal_group(signal.SIGKILL)
                await self.process.wait()
        # Whatever the group leader left behind in its group goes too.
        self._signal_group(signal.SIGKILL)
        self.returncode = self.process.returncode
        self.close()
        return self.returncode

    def close(self) -> None:
        if self.master >= 0:
            self._stop_reading()
            if self._loop is not None:
                self._loop.remove_writer(self.master)
            with contextlib.suppress(OSError):  # already closed by a failed read
                os.close(self.master)
            self.master = -1
        self._output_closed.set()
