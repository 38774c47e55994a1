"""One child process on its own pseudo-terminal, driven from asyncio.

The child is a session leader (`setsid`) with the pty slave as its controlling terminal,
so the kernel delivers SIGWINCH to it when the window size changes (TIOCSWINSZ on the
master) and SIGHUP when the terminal goes away, exactly as under a real sshd. Keystrokes
are written to the master untouched (the app puts the terminal in raw mode itself);
output is read from the master and handed to a callback.

Back-pressure: when the SSH channel's buffer fills (a slow link), `pause()` stops
reading the master; the pty's buffer then fills and the child blocks in write() instead
of the server buffering an unbounded amount of screen updates.

Stopping: SIGHUP then SIGTERM to the whole process group (anything the app started goes
too), SIGKILL after a grace period, and the child is always waited for (no zombies).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import fcntl
import os
import signal
import struct
import termios
from collections.abc import Callable, Sequence

STOP_GRACE = 2.0  # seconds between SIGTERM and SIGKILL


def set_winsize(fd: int, cols: int, rows: int, xpixels: int = 0, ypixels: int = 0) -> None:
    # A zero size would make some programs fall back to 80x24 silently; keep at least 1x1.
    rows, cols = max(1, min(rows, 0xFFFF)), max(1, min(cols, 0xFFFF))
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, max(0, xpixels) & 0xFFFF, max(0, ypixels) & 0xFFFF))


def _become_terminal_owner() -> None:  # runs in the child between fork and exec
    # start_new_session has already called setsid(); fd 0 is the pty slave.
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class PtyChild:
    def __init__(
        self,
        argv: Sequence[str],
        env: dict[str, str],
        size: tuple[int, int, int, int],
        on_output: Callable[[bytes], None],
        cwd: str | None = None,
    ) -> None:
        self.argv = list(argv)
        self.env = env
        self.size = size
        self.cwd = cwd
        self.on_output = on_output
        self.process: asyncio.subprocess.Process | None = None
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
            )
        except BaseException:
            os.close(master)
            raise
        finally:
            os.close(slave)  # only the child holds the slave now: its exit gives EIO on the master
        self.master = master
        os.set_blocking(master, False)
        self._start_reading()

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
    def write(self, data: bytes) -> None:
        if self.master < 0 or self._output_closed.is_set():
            return
        if self._pending:
            self._pending += data
            return
        self._pending += data
        self._flush_input()

    def _flush_input(self) -> None:
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

    def resize(self, cols: int, rows: int, xpixels: int = 0, ypixels: int = 0) -> None:
        self.size = (cols, rows, xpixels, ypixels)
        if self.master >= 0:
            with contextlib.suppress(OSError):  # the child is already gone
                set_winsize(self.master, cols, rows, xpixels, ypixels)

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
