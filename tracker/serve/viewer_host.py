"""Several viewers' apps in one process: `tracker serve --viewers-per-process N`.

Why: a viewer forked from the server as a process of its own writes, and so owns, the
pages its Python and Textual touch: about 10 MB for an empty Textual app alone, 20 to
25 MB with the fight (measured with benchmarks/shared.py, against a budget of 20 MB per
viewer). Viewers all see the same thing and write nothing, so up to N of them share one
process: one copy of the encounter, one follower reading the file, one apply per
change, and the process's own copying paid once. A viewer then costs what its own app
makes (its widgets and frames, about 3 MB).

How: the server forks a host process (from the preloaded server, as it forks an app)
and keeps a control socket to it (AF_UNIX, SOCK_SEQPACKET: one JSON message per
datagram). For each viewer the server still makes the pty pair and relays the SSH
channel to the master, as for any app (pty_bridge: flow control, pausing output), and
sends the slave's descriptor to the host with the viewer's environment (SCM_RIGHTS). The
host runs a TrackerApp for it on `HostedDriver`: Textual's Linux driver on that
descriptor instead of the process's stdin and stderr.

    server -> host   {"op": "open", "id": N, "env": {...}, "notice": "...", "replay": S} with the pty slave
                     {"op": "size", "id": N}    the window changed (set on the master)
                     {"op": "changed"}          the table's fight was written: read it now
                     {"op": "replay", "segment": S}  the GM's replay shows S (null: back to now)
                     {"op": "end", "id": N}     the client left: end that app
                     {"op": "quit"}             the host's last viewer left
    host -> server   {"op": "ended", "id": N, "code": C}

Inside the host, viewers of one size share one view (`Group`): one app, drawn once, its
frames written to every member; a viewer who does anything gets an app of its own, made
as the view stands. Every terminal is written by the host's one writer (`HostWriter`),
on its event loop, never blocking. Decisions: docs/decisions/0055-shared-views.md.

Decisions:
- Only viewers share a process. A GM's or a player's app writes, with a session and a
  guard of its own, and keeps a process of its own.
- The server alone decides a host's life: it sends a viewer to a host with a free
  place (or forks a new one) and ends a host when its last viewer has gone, so no
  viewer is sent to a host on its way out.
- The host leads no terminal, so no SIGWINCH reaches it: the server sets the size on the
  master as always and tells the host, which gives that app the new size.
- A client gone: the server asks the host to end that app (the terminal is restored as
  on any quit); without an answer within pty_bridge's grace it closes the master, and
  the app, reading end-of-file, ends.
- A host that dies takes only its own viewers: their sessions end with status 1, the
  server logs it, and the GM, players and other hosts go on.
- One viewer must never hold up the others: output goes to the terminal without
  blocking; a terminal that takes nothing for `STALLED` seconds (a client that stopped
  reading), or falls `BACKLOG` bytes behind, is given up and its app (or membership)
  ended, instead of its writes filling and stopping the host's event loop.
- Viewers share a process only with viewers of the same kind of terminal (`PROFILE`:
  TERM, COLORTERM, NO_COLOR, the locale). Textual picks colours from these as an app is
  made, but caches rendered lines process-wide: a 16-colour terminal in a process with
  a 256-colour one was sent the other's colours. Each app is still made with its
  viewer's own environment. The host's stdout is /dev/null (Textual redirects
  printing during each app's run; with several apps those redirections overlap, and
  nothing of the app prints); its stderr is the server's log, where an app's crash
  report lands.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import functools
import json
import logging
import os
import re
import signal
import socket
import struct
import termios
import threading
import time
import tty
from collections.abc import Callable
from typing import Any

from textual import events
from textual.app import App
from textual.geometry import Size

from tracker.serve.control import receive, send
from tracker.serve.pty_bridge import ForkedProcess, fork_flushed, leave_server, set_winsize
from tracker.text import printable
from tracker.ui.textual_private import DriverOnTerminal, EscapeParser, driver_of, install_direct_writer, whole_frame

log = logging.getLogger("tracker.serve")

# What a terminal's output depends on: viewers share a process only if these agree.
PROFILE = ("TERM", "COLORTERM", "NO_COLOR", "LANG", "LC_ALL", "LC_CTYPE")
STALLED = 10.0  # seconds a viewer's terminal may take no output before it is given up
BACKLOG = 4 * 1024 * 1024  # bytes a viewer's terminal may fall behind before it is given up
QUIT_GRACE = 2.0  # seconds the host's apps have to restore their terminals when it ends
ENTER_ALT_SCREEN = "\x1b[?1049h"  # as Textual's Linux driver writes it, on its own
SYNC_START, SYNC_END = "\x1b[?2026h", "\x1b[?2026l"  # a frame drawn at once (ignored where unknown)
# What Textual's Linux driver writes as its app ends (stop_application_mode), for a
# member of a shared view that leaves while the view goes on.
LEAVE_APP_MODE = b"\x1b[?2004l\x1b[?7h\x1b[?1000l\x1b[?1003l\x1b[?1015l\x1b[?1006l\x1b[<u\x1b[?1049l\x1b[?25h\x1b[?1004l"
CHANGED = json.dumps({"op": "changed"}).encode()
# What a terminal sends that is not the viewer doing something: replies to the driver's
# questions (DECRPM), focus reports, in-band sizes, and mouse reports (group 1: the
# button code; a bare motion has bits 32 and 3 set).
_NOT_PERSONAL = re.compile(rb"\x1b\[\?[0-9;]*\$y|\x1b\[[IO]|\x1b\[48;[0-9;]*t|\x1b\[<([0-9]+);[0-9]+;[0-9]+[Mm]")


# ---------------------------------------------------------------- in the host process
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

    def _terminal_gone(self) -> None:
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
            self._terminal_gone()


def size_of(fd: int) -> tuple[int, int]:
    """(columns, rows) of the terminal on `fd` (80x24 if it cannot say)."""
    try:
        rows, cols, _x, _y = struct.unpack("HHHH", fcntl.ioctl(fd, termios.TIOCGWINSZ, b"\0" * 8))
    except OSError:
        return 80, 24
    return cols or 80, rows or 24


def _raw(fd: int) -> list[Any] | None:
    """Put a viewer's terminal in the mode Textual's driver puts it in (no echo, keys as
    they come), as a shared view's member has no driver of its own; the mode before."""
    try:
        before = termios.tcgetattr(fd)
        mode = termios.tcgetattr(fd)
        mode[tty.LFLAG] &= ~(termios.ECHO | termios.ICANON | termios.IEXTEN | termios.ISIG)
        mode[tty.IFLAG] &= ~(termios.IXON | termios.IXOFF | termios.ICRNL | termios.INLCR | termios.IGNCR)
        mode[tty.CC][termios.VMIN] = 1
        termios.tcsetattr(fd, termios.TCSANOW, mode)
    except termios.error:
        return None
    return before


def personal(data: bytes) -> bool:
    """Whether what a viewer's terminal sent is something the viewer did (a key, a click,
    the wheel), not the terminal answering the app's questions, reporting focus, or the
    mouse passing over (hover is not drawn in a shared view)."""
    for match in _NOT_PERSONAL.finditer(data):
        if match.group(1) is not None and int(match.group(1)) & 0x23 != 0x23:
            return True  # a button or the wheel, not a bare motion
    return bool(_NOT_PERSONAL.sub(b"", data))


class Member:
    """A viewer in the host: in a shared view (`group`), or with an app of its own."""

    def __init__(self, ident: int, fd: int, env: dict[str, str], out: Terminal) -> None:
        self.ident = ident
        self.fd = fd  # the pty slave the server sent
        self.env = env
        self.out = out
        self.group: Group | None = None
        self.app: App[Any] | None = None
        self.mode_before: list[Any] | None = None


class Group:
    """Viewers who see the same thing: one app drawing on a pty of the host's own, its
    output fanned out to every member's terminal."""

    def __init__(self, size: tuple[int, int], app: App[Any], writer: HostWriter) -> None:
        self.size = size
        self.app = app
        self.out = FanOut(writer)
        self.members: dict[int, Member] = {}
        self.master, self.slave = os.openpty()  # the app's own terminal: its size, no input
        set_winsize(self.slave, *size)
        setattr(app, "terminal_fd", self.slave)
        setattr(app, "terminal_output", self.out)
        app.driver_class = HostedDriver

    def join(self, member: Member) -> None:
        """Add `member`: the terminal modes and the view whole, then every frame."""
        member.group = self
        self.members[member.ident] = member
        frame = whole_frame(self.app) if self.out.drawn else None
        if self.out.drawn and frame is None:
            log.warning("viewer #%d: no whole frame to hand; the view is drawn whole for all its viewers", member.ident)
            self.app.refresh()  # the next frame is whole, for everyone
        member.out.send(bytes(self.out.preamble))
        if frame is not None:
            member.out.send((SYNC_START + frame + SYNC_END).encode("utf-8", "replace"))
        self.out.members[member.ident] = member.out
        member.out.in_app_mode = True

    def remove(self, member: Member) -> None:
        """Take `member` out; the caller ends the view with its last member (Host.leave)."""
        self.members.pop(member.ident, None)
        self.out.members.pop(member.ident, None)
        member.group = None

    def close(self) -> None:
        for fd in (self.master, self.slave):
            with contextlib.suppress(OSError):
                os.close(fd)


def _use_environment(env: dict[str, str]) -> None:
    """Make os.environ `env`, touching only what differs (the other apps' threads may be
    reading it; viewers' environments differ in a few names at most)."""
    for name in [n for n in os.environ if n not in env]:
        del os.environ[name]
    for name, value in env.items():
        if os.environ.get(name) != value:
            os.environ[name] = value


def run_host(sock: socket.socket, make_app: Callable[[str], App[Any]]) -> int:
    """The host process's main: apps for the viewers the server sends, until told to quit."""
    return asyncio.run(Host(sock, make_app).run())


class Host:
    """The viewers' apps in this process: shared views and viewers' own apps, one writer."""

    def __init__(self, sock: socket.socket, make_app: Callable[[str], App[Any]]) -> None:
        self.sock = sock
        self.make_app = make_app
        self.writer: HostWriter | None = None
        self.members: dict[int, Member] = {}
        self.groups: dict[tuple[int, int], Group] = {}
        self.tasks: set[asyncio.Task[Any]] = set()
        self.quit_now = asyncio.Event()
        self.replaying: int | None = None  # the GM's replay, as the server last said

    def tell(self, message: dict[str, Any]) -> None:
        with contextlib.suppress(OSError):  # the server has gone: this host ends next
            send(self.sock, message)

    def apps(self) -> list[App[Any]]:
        return [g.app for g in self.groups.values()] + [m.app for m in self.members.values() if m.app is not None]

    def _follow(self, app: App[Any]) -> None:
        follow_replay = getattr(app, "follow_replay", None)  # a TrackerApp's (tracker.ui.app)
        if follow_replay is not None and self.replaying is not None:
            follow_replay(self.replaying)

    def _new_app(self, env: dict[str, str], notice: str) -> App[Any]:
        _use_environment(env)  # read by Textual as the app is made (TERM, COLORTERM, NO_COLOR)
        app = self.make_app(notice)
        self._follow(app)  # kept until the app is up
        return app

    def _start(self, coroutine: Any) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    # ------------------------------------------------------------ a viewer arrives
    def open(self, ident: int, fd: int, env: dict[str, str], notice: str) -> None:
        assert self.writer is not None
        try:
            out = Terminal(self.writer, fd, functools.partial(self._gone, ident))
        except OSError as exc:
            log.error("viewer #%d: its terminal cannot be opened: %s", ident, exc)
            with contextlib.suppress(OSError):
                os.close(fd)
            self.tell({"op": "ended", "id": ident, "code": 1})
            return
        member = Member(ident, fd, env, out)
        self.members[ident] = member
        member.mode_before = _raw(fd)
        size = size_of(fd)
        group = self.groups.get(size)
        if group is None:
            try:
                app = self._new_app(env, notice)
            except Exception as exc:  # noqa: BLE001 - one viewer's failure is that viewer's
                log.error("viewer #%d: the app failed: %s: %s", ident, type(exc).__name__, exc)
                self._end(member, 1)
                return
            group = self.groups[size] = Group(size, app, self.writer)
            self._start(self._run_group(group))
        group.join(member)
        asyncio.get_running_loop().add_reader(out.fd, self._typed, member)
        log.info("viewer #%d watches the %dx%d view of viewers' process %d with %d other(s): one app draws it", ident, size[0], size[1], os.getpid(), len(group.members) - 1)

    async def _run_group(self, group: Group) -> None:
        code = 1
        try:
            await group.app.run_async()
            code = int(group.app.return_code or 0)
        except Exception as exc:  # noqa: BLE001 - that view's failure is its viewers'
            log.error("a shared view (%dx%d) failed: %s: %s", group.size[0], group.size[1], type(exc).__name__, exc)
        finally:
            if self.groups.get(group.size) is group:
                del self.groups[group.size]
            group.close()
            for member in list(group.members.values()):  # the view ended under them (a crash): they end too
                group.members.pop(member.ident, None)
                self._end(member, code or 1)

    def leave(self, group: Group, member: Member) -> None:
        """`member` leaves `group`; a view without members ends, and a viewer who comes
        meanwhile starts a new one (never joins one ending)."""
        group.remove(member)
        if not group.members:
            if self.groups.get(group.size) is group:
                del self.groups[group.size]
            group.app.exit()

    # ------------------------------------------------------------ a viewer of its own
    def _typed(self, member: Member) -> None:
        """A shared view's member's terminal sent something: if the viewer did something
        (a key, a click), the viewer leaves the view with an app of its own, which reads it."""
        try:
            data = os.read(member.out.fd, 4096)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:  # the server closed the master: the client has gone
            self._stop_reading(member)
            self._gone(member.ident)
            return
        if personal(data):
            self.alone(member, data, "a key")

    def _stop_reading(self, member: Member) -> None:
        with contextlib.suppress(ValueError, OSError):
            asyncio.get_running_loop().remove_reader(member.out.fd)

    def alone(self, member: Member, typed: bytes, why: str) -> None:
        """`member` leaves its shared view: an app of its own from now on, made as the
        view stands (the same fight, the same screen: the view was untouched), then given
        what the viewer typed."""
        group = member.group
        if group is None:
            return
        self._stop_reading(member)
        self.leave(group, member)
        try:
            app = self._new_app(member.env, "")
        except Exception as exc:  # noqa: BLE001
            log.error("viewer #%d: the app failed: %s: %s", member.ident, type(exc).__name__, exc)
            self._end(member, 1)
            return
        setattr(app, "terminal_fd", member.fd)
        setattr(app, "terminal_output", member.out)
        setattr(app, "typed_first", typed)
        app.driver_class = HostedDriver
        member.app = app
        log.info("viewer #%d draws alone from now on (%s)", member.ident, why)
        self._start(self._run_own(member, app))

    async def _run_own(self, member: Member, app: App[Any]) -> None:
        code = 1
        try:
            await app.run_async()
            code = int(app.return_code or 0)
        except Exception as exc:  # noqa: BLE001 - one viewer's failure is that viewer's
            log.error("viewer #%d: the app failed: %s: %s", member.ident, type(exc).__name__, exc)
        finally:
            member.app = None
            self._end(member, code)

    # ------------------------------------------------------------ a viewer leaves
    def _gone(self, ident: int) -> None:
        """The viewer's terminal went away or stopped reading: end its app or membership."""
        member = self.members.get(ident)
        if member is None:
            return
        if member.app is not None:
            member.app.exit(return_code=1)
        elif member.group is not None:
            self.leave(member.group, member)
            self._end(member, 1)

    def end(self, ident: int) -> None:
        """The server asks: the client left."""
        member = self.members.get(ident)
        if member is None:
            return
        if member.app is not None:
            member.app.exit()
            return
        if member.group is not None:
            self.leave(member.group, member)
        if not member.out.gone:
            member.out.send(LEAVE_APP_MODE)  # the terminal as the app would leave it
        self._end(member, 0)

    def _end(self, member: Member, code: int) -> None:
        if self.members.pop(member.ident, None) is None:
            return
        self._stop_reading(member)
        if member.mode_before is not None:
            with contextlib.suppress(termios.error):
                termios.tcsetattr(member.fd, termios.TCSANOW, member.mode_before)
        self.writer_close(member.out)
        with contextlib.suppress(OSError):
            os.close(member.fd)  # the last holder of the slave: the server's master reads EOF
        self.tell({"op": "ended", "id": member.ident, "code": code})

    def writer_close(self, out: Terminal) -> None:
        if out.pending and not out.gone:
            with contextlib.suppress(OSError):  # a last try: what is left is lost with the viewer
                os.write(out.fd, out.pending)
        out.close()

    # ------------------------------------------------------------ the server says
    def readable(self) -> None:
        try:
            message, fd = receive(self.sock)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            message, fd = None, None
        if message is None:
            self.quit_now.set()  # the server has gone
            asyncio.get_running_loop().remove_reader(self.sock.fileno())
            return
        op, ident = message.get("op"), message.get("id")
        if op == "replay" or (op == "open" and "replay" in message):
            segment = message.get("segment" if op == "replay" else "replay")
            self.replaying = segment if isinstance(segment, int) and not isinstance(segment, bool) and segment >= 0 else None
            if op == "replay":
                for app in self.apps():
                    follow_replay = getattr(app, "follow_replay", None)
                    if follow_replay is not None:
                        follow_replay(self.replaying)
        if op == "open" and fd is not None and isinstance(ident, int) and ident not in self.members:
            env = message.get("env")
            env = env if isinstance(env, dict) else {}
            self.open(ident, fd, {str(k): str(v) for k, v in env.items()}, str(message.get("notice", "")))
            return
        if fd is not None:
            os.close(fd)
        member = self.members.get(ident) if isinstance(ident, int) else None
        if op == "changed":
            self.look_now()
        elif op == "size" and member is not None:
            if member.group is not None and size_of(member.fd) != member.group.size:
                self.alone(member, b"", "a new size")
            elif member.app is not None:
                driver = driver_of(member.app)
                if isinstance(driver, HostedDriver):
                    driver.resized()
        elif op == "end" and member is not None:
            self.end(member.ident)
        elif op == "quit":
            self.quit_now.set()

    def look_now(self) -> None:
        """The table's fight was written: the follower this process's apps share reads it now."""
        seen: set[int] = set()
        for app in self.apps():
            live = getattr(app, "live", None)
            if live is not None and id(live) not in seen:
                seen.add(id(live))
                live.look_now()

    async def run(self) -> int:
        loop = asyncio.get_running_loop()
        self.writer = HostWriter(loop)
        install_direct_writer()
        self.sock.setblocking(False)
        loop.add_reader(self.sock.fileno(), self.readable)
        await self.quit_now.wait()
        for member in list(self.members.values()):
            if member.app is None:
                self.end(member.ident)
        for app in self.apps():
            app.exit()
        if self.tasks:
            await asyncio.wait(list(self.tasks), timeout=QUIT_GRACE)
        return 0


def _start_host(sock: socket.socket, saves: str, make_app: Callable[[str], App[Any]]) -> None:
    """In the forked host, never returns: drop the server's descriptors, signal handlers
    and event loop (as pty_bridge's forked app does), then run the viewers' apps."""
    code = 1
    try:
        os.setsid()  # out of the server's group: a ctrl+c at the server's terminal is the server's
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)
        leave_server(keep=sock.fileno())  # closes `null` too
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the server ends hosts by their socket
        os.chdir(saves)
        code = run_host(sock, make_app)
    except BaseException as exc:  # noqa: BLE001 - say it in the server's log, then leave
        with contextlib.suppress(BaseException):
            os.write(2, f"tracker serve: viewers' process {os.getpid()} failed: {type(exc).__name__}: {exc}\n".encode("utf-8", "replace"))
    finally:
        os._exit(code & 0xFF)


# ---------------------------------------------------------------- in the server
def profile_of(env: dict[str, str]) -> tuple[str, ...]:
    return tuple(env.get(name, "") for name in PROFILE)


class HostedViewer:
    """One viewer's app in a host, as pty_bridge.PtyChild sees a process."""

    def __init__(self, host: "ViewerHost", ident: int) -> None:
        self.host = host
        self.ident = ident
        self.pid = host.pid
        self.returncode: int | None = None
        self._done = asyncio.Event()

    def ended(self, code: int) -> None:
        if self.returncode is None:
            self.returncode = code
            self._done.set()

    async def wait(self) -> int:
        await self._done.wait()
        assert self.returncode is not None
        return self.returncode

    def resized(self) -> None:
        self.host.tell({"op": "size", "id": self.ident})

    async def end(self, grace: float) -> int | None:
        """Ask the host to end this app; None if it did not within `grace` seconds."""
        if self.returncode is None:
            self.host.tell({"op": "end", "id": self.ident})
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._done.wait(), timeout=grace)
        return self.returncode


class ViewerHost:
    """The server's side of one host process: its socket, process and viewers."""

    def __init__(self, pool: "ViewerHosts", process: ForkedProcess, sock: socket.socket, profile: tuple[str, ...] = ()) -> None:
        self.pool = pool
        self.profile = profile  # its fight, and the kind of terminal its viewers have (PROFILE)
        self.process = process
        self.pid = process.pid
        self.sock = sock
        self.viewers: dict[int, HostedViewer] = {}  # until the host says each has ended
        self.closed = False
        self._loop = asyncio.get_running_loop()
        self._loop.add_reader(sock.fileno(), self._readable)

    def tell(self, message: dict[str, Any], fd: int | None = None) -> bool:
        if self.closed:
            return False
        try:
            send(self.sock, message, fd)
        except OSError as exc:  # a full socket for seconds, or the host gone: it is lost
            log.error("viewers' process %d does not answer (%s); ending it", self.pid, exc)
            self.lost()
            return False
        return True

    def nudge(self) -> None:
        """The table's fight was written: read it now. Never waits: a host whose socket is
        full hears of the next write, or finds it at its follower's next probe."""
        if not self.closed:
            with contextlib.suppress(OSError):
                self.sock.sendmsg([CHANGED], [], socket.MSG_DONTWAIT)

    def attach(self, ident: int, slave: int, env: dict[str, str], notice: str = "", replaying: int | None = None) -> HostedViewer:
        viewer = HostedViewer(self, ident)
        self.viewers[ident] = viewer
        if not self.tell({"op": "open", "id": ident, "env": env, "notice": notice, "replay": replaying}, slave):
            viewer.ended(1)
        return viewer

    def _readable(self) -> None:
        try:
            message, fd = receive(self.sock)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            message, fd = None, None
        if fd is not None:
            os.close(fd)  # the host sends none
        if message is None:
            self.lost()
            return
        ident, code = message.get("id"), message.get("code")
        if message.get("op") == "ended" and isinstance(ident, int):
            viewer = self.viewers.pop(ident, None)
            if viewer is not None:
                viewer.ended(code if isinstance(code, int) else 1)
            if not self.viewers:
                self.pool.retire(self)

    def lost(self) -> None:
        """The host died or stopped answering: its viewers' sessions end."""
        if not self.closed:
            self.closed = True
            self._loop.remove_reader(self.sock.fileno())
            self.sock.close()
            self.pool.forget(self, f"is gone: its {len(self.viewers)} viewer(s) are disconnected")
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
        for viewer in list(self.viewers.values()):
            viewer.ended(1)
        self.viewers.clear()

    async def quit(self, grace: float = QUIT_GRACE) -> None:
        """End the host (its viewers' apps first) and reap it."""
        if not self.closed:
            self.tell({"op": "quit"})
            self.closed = True
            self._loop.remove_reader(self.sock.fileno())
        try:
            await asyncio.wait_for(self.process.wait(), timeout=grace + 1.0)
        except asyncio.TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            await self.process.wait()
        with contextlib.suppress(OSError):
            self.sock.close()
        for viewer in list(self.viewers.values()):
            viewer.ended(0)
        self.viewers.clear()


class ViewerHosts:
    """The server's hosts: a viewer goes to one with a free place, else to a new one."""

    def __init__(self, per_host: int, saves: str) -> None:
        self.per_host = per_host
        self.saves = saves
        self.hosts: list[ViewerHost] = []
        self._ending: set[asyncio.Task[None]] = set()
        self._ident = 0

    def _with_room(self, env: dict[str, str], fight: str) -> ViewerHost | None:
        profile = (fight, *profile_of(env))
        return next((h for h in self.hosts if not h.closed and h.profile == profile and len(h.viewers) < self.per_host), None)

    def has_room(self, env: dict[str, str], fight: str = "") -> bool:
        """Whether a viewer with this environment would join a running host on `fight`."""
        return self._with_room(env, fight) is not None

    def place(self, slave: int, env: dict[str, str], make_app: Callable[[str], App[Any]], fight: str = "", notice: str = "", replaying: int | None = None) -> HostedViewer:
        """Send the viewer on pty `slave` to a host on `fight` for its kind of terminal
        with a free place; else fork one, whose apps `make_app(notice)` builds (on the
        fight the server holds now: a host's fight never changes; when the table moves,
        its viewers go to hosts on the new fight, and it ends with its last viewer)."""
        host = self._with_room(env, fight)
        if host is None:
            host = self._fork(make_app, (fight, *profile_of(env)))
            self.hosts.append(host)
            log.info("viewers' process %d started (up to %d viewers, TERM %s)", host.pid, self.per_host, printable(env.get("TERM", ""))[:40] or "unset")
        self._ident += 1
        return host.attach(self._ident, slave, env, notice, replaying)

    def tell_all(self, message: dict[str, Any]) -> None:
        """Say `message` to every host (the GM's replay: each tells its viewers' apps)."""
        for host in list(self.hosts):
            host.tell(message)

    def nudge_all(self) -> None:
        """The table's fight was written: every host reads it now."""
        for host in list(self.hosts):
            host.nudge()

    def _fork(self, make_app: Callable[[str], App[Any]], profile: tuple[str, ...]) -> ViewerHost:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        ours.settimeout(5.0)  # sends only ever wait this long for a host that stopped reading
        pid = fork_flushed()
        if pid == 0:
            ours.close()
            _start_host(theirs, self.saves, make_app)  # never returns
        theirs.close()
        return ViewerHost(self, ForkedProcess(pid), ours, profile)

    def retire(self, host: ViewerHost) -> None:
        """A host whose last viewer has gone: end it."""
        self.forget(host, "ended: its last viewer left")
        task = asyncio.get_running_loop().create_task(host.quit())
        self._ending.add(task)
        task.add_done_callback(self._ending.discard)

    def forget(self, host: ViewerHost, why: str) -> None:
        if host in self.hosts:
            self.hosts.remove(host)
            log.info("viewers' process %d %s", host.pid, why)

    async def close(self) -> None:
        hosts, self.hosts = list(self.hosts), []
        await asyncio.gather(*(h.quit() for h in hosts), *self._ending, return_exceptions=True)
