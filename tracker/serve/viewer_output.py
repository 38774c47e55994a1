"""What a viewers' process (tracker.serve.viewer_host) writes to its viewers' terminals:
the host's one writer (`HostWriter`), which never blocks and gives up a terminal that
stalls or falls behind; one viewer's terminal (`Terminal`); the terminals of a shared
view as one file (`FanOut`); and Textual's Linux driver on a viewer's pty (`HostedDriver`).

Decisions: docs/decisions/0055-shared-views.md (one writer per viewers' process),
docs/decisions/0036-serve-processes.md (viewers sharing processes)
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import functools
import logging
import os
import struct
import termios
import threading
import time
from collections.abc import Callable
from typing import Any

from textual import events
from textual.app import App
from textual.geometry import Size

from tracker.ui.textual_private import DriverOnTerminal, EscapeParser

log = logging.getLogger("tracker.serve")

STALLED = 10.0  # seconds a viewer's terminal may take no output before it is given up
BACKLOG = 4 * 1024 * 1024  # bytes a viewer's terminal may fall behind before it is given up
ENTER_ALT_SCREEN = "\x1b[?1049h"  # as Textual's Linux driver writes it, on its own
SYNC_START, SYNC_END = "\x1b[?2026h", "\x1b[?2026l"  # a frame drawn at once (ignored where unknown)


class HostWriter:
    """The host's one writer: every viewer's terminal is written on the host's event loop
    without blocking; what a terminal cannot take yet waits in its own buffer, drained
    when it can (so a slow terminal never holds up another). A terminal that takes
    nothing for `STALLED` seconds, or falls `BACKLOG` bytes behind, is given up."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self._thread = threading.get_ident()

    def send(self, out: "Terminal", data: bytes) -> None:
        if threading.get_ident() != self._thread:  # a driver's thread: hand it to the loop, in order
            with contextlib.suppress(RuntimeError):  # the loop is closing: the host is ending
                self.loop.call_soon_threadsafe(self.send, out, data)
            return
        if out.gone or not data:
            return
        if out.pending:
            out.pending += data
            if len(out.pending) > BACKLOG:
                log.warning("a viewer's terminal fell %d bytes behind: it is given up", len(out.pending))
                self.give_up(out)
            return
        try:
            sent = os.write(out.fd, data)
        except BlockingIOError:
            sent = 0
        except OSError:
            self.give_up(out)
            return
        if sent < len(data):
            out.pending += data[sent:]
            out.waiting_since = time.monotonic()
            self.loop.add_writer(out.fd, self._drain, out)
            if out.check is None:
                out.check = self.loop.call_later(STALLED, self._stalled, out)

    def _drain(self, out: "Terminal") -> None:
        try:
            sent = os.write(out.fd, out.pending)
        except BlockingIOError:
            return
        except OSError:
            self.give_up(out)
            return
        if sent:
            out.waiting_since = time.monotonic()
            del out.pending[:sent]
        if not out.pending:
            self.loop.remove_writer(out.fd)

    def _stalled(self, out: "Terminal") -> None:
        out.check = None
        if out.gone or not out.pending:
            return
        left = STALLED - (time.monotonic() - out.waiting_since)
        if left > 0:
            out.check = self.loop.call_later(left, self._stalled, out)
            return
        log.warning("a viewer's terminal took no output for %gs: its app ends", STALLED)
        self.give_up(out)

    def give_up(self, out: "Terminal") -> None:
        if out.gone:
            return
        out.gone = True
        out.pending.clear()
        with contextlib.suppress(ValueError, OSError):
            self.loop.remove_writer(out.fd)
        if out.check is not None:
            out.check.cancel()
            out.check = None
        out.on_gone()


class Terminal:
    """One viewer's terminal as the host writes to it (a file for a driver: `write`
    hands the text to the host's writer, never blocking). Its own open description of
    the pty, non-blocking, so the app's input thread still reads the slave blocking."""

    writes_without_blocking = True  # tracker.ui.textual_private.install_direct_writer

    def __init__(self, writer: HostWriter, fd: int, gone: Callable[[], None]) -> None:
        self.writer = writer
        self.on_gone = gone
        self.gone = False
        self.pending = bytearray()
        self.waiting_since = 0.0
        self.check: asyncio.TimerHandle | None = None
        self.in_app_mode = False  # a view was drawn on it: a new app does not clear it again
        self.fd = os.open(os.ttyname(fd), os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)

    def write(self, text: str) -> None:
        if self.in_app_mode and text == ENTER_ALT_SCREEN:
            return  # on the alternate screen already: entering it again would blank it (no jump)
        self.send(text.encode("utf-8", "replace"))

    def send(self, data: bytes) -> None:
        self.writer.send(self, data)

    def flush(self) -> None:
        """Nothing is buffered here."""

    def fileno(self) -> int:
        return self.fd

    def isatty(self) -> bool:
        return True

    def close(self) -> None:
        if self.fd >= 0:
            with contextlib.suppress(ValueError, OSError):
                self.writer.loop.remove_writer(self.fd)
                self.writer.loop.remove_reader(self.fd)
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = -1
        if self.check is not None:
            self.check.cancel()
            self.check = None
        self.gone = True


class FanOut:
    """The terminals of the viewers sharing one view, as their app's driver sees one file:
    each frame is encoded once and the same bytes go to every member (HostWriter). What
    the driver writes as it starts (the terminal modes) is kept for those who join."""

    writes_without_blocking = True

    def __init__(self, writer: HostWriter) -> None:
        self.writer = writer
        self.members: dict[int, Terminal] = {}
        self.starting = False
        self.preamble = bytearray()  # what the driver wrote while starting
        self.drawn = False  # a frame went out after the preamble

    def write(self, text: str) -> None:
        data = text.encode("utf-8", "replace")
        if self.starting:
            self.preamble += data
        elif data:
            self.drawn = True
        for out in list(self.members.values()):
            self.writer.send(out, data)

    def flush(self) -> None:
        """Nothing is buffered here."""

    def fileno(self) -> int:
        return -1

    def isatty(self) -> bool:
        return True

    def close(self) -> None:
        """The members' terminals are closed with the members."""


class HostedDriver(DriverOnTerminal):
    """Textual's Linux driver on one pty (the app's `terminal_fd`), its output to the
    app's `terminal_output` (a viewer's Terminal, or a shared view's FanOut), written by
    the host's writer; keys a viewer typed before its own app existed (`typed_first`) are
    read first."""

    def __init__(self, app: App[Any], *, debug: bool = False, mouse: bool = True, size: tuple[int, int] | None = None) -> None:
        super().__init__(app, debug=debug, mouse=mouse, size=size)
        fd: int = getattr(app, "terminal_fd")
        self.fileno = fd
        self.input_tty = True
        self.write_to(getattr(app, "terminal_output"))

    @property
    def can_suspend(self) -> bool:
        return False  # a SIGTSTP would stop every viewer in the process

    def terminal_size(self) -> tuple[int, int]:
        return size_of(self.fileno)

    def start_application_mode(self) -> None:
        self.keep_loop()
        out = self.output
        if isinstance(out, FanOut):
            out.starting = True
        try:
            super().start_application_mode()
        finally:
            if isinstance(out, FanOut):
                out.starting = False
            elif isinstance(out, Terminal):
                out.in_app_mode = True

    def resized(self) -> None:
        """The server set a new size on the master (on the event loop)."""
        if not self.sizes_in_band:
            size = Size(*self.terminal_size())
            self.driven_app.post_message(events.Resize(size, size))

    def terminal_gone(self) -> None:
        """On any thread: the terminal went away or stopped reading; end the app."""
        loop = self.event_loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop is closing: the app is ending anyway
                loop.call_soon_threadsafe(functools.partial(self.driven_app.exit, return_code=1))

    def run_input_thread(self) -> None:
        # Anything but OSError goes on to Textual's report (tracker.ui.textual_private, 7).
        typed = getattr(self.driven_app, "typed_first", b"")
        if typed:  # before anything the terminal sends now, in the order typed
            parser = EscapeParser()
            with contextlib.suppress(Exception):  # what it cannot read is lost, as a bad byte is
                # Then the end: what was typed last is whole (a lone Esc is the Esc key).
                for event in [*parser.feed(typed.decode("utf-8", "replace")), *parser.feed("")]:
                    self.process_message(event)
        try:
            super().run_input_thread()
        except OSError:  # end of file on the pty: the server closed the master
            self.terminal_gone()


def size_of(fd: int) -> tuple[int, int]:
    """(columns, rows) of the terminal on `fd` (80x24 if it cannot say)."""
    try:
        rows, cols, _x, _y = struct.unpack("HHHH", fcntl.ioctl(fd, termios.TIOCGWINSZ, b"\0" * 8))
    except OSError:
        return 80, 24
    return cols or 80, rows or 24

