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

Here: the host process. Its terminals and its writer are tracker.serve.viewer_output's;
the server's side (forking hosts, placing viewers, the messages to them) is
tracker.serve.viewer_processes'.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import re
import signal
import socket
import termios
import tty
from collections.abc import Callable
from typing import Any

from textual.app import App

from tracker.serve.control import receive, send
from tracker.serve.pty_bridge import leave_server, set_winsize
from tracker.serve.viewer_output import SYNC_END, SYNC_START, FanOut, HostedDriver, HostWriter, Terminal, size_of
from tracker.ui.textual_private import driver_of, install_direct_writer, whole_frame

log = logging.getLogger("tracker.serve")

QUIT_GRACE = 2.0  # seconds the host's apps have to restore their terminals when it ends
# What Textual's Linux driver writes as its app ends (stop_application_mode), for a
# member of a shared view that leaves while the view goes on.
LEAVE_APP_MODE = b"\x1b[?2004l\x1b[?7h\x1b[?1000l\x1b[?1003l\x1b[?1015l\x1b[?1006l\x1b[<u\x1b[?1049l\x1b[?25h\x1b[?1004l"
# What a terminal sends that is not the viewer doing something: replies to the driver's
# questions (DECRPM), focus reports, in-band sizes, and mouse reports (group 1: the
# button code; a bare motion has bits 32 and 3 set).
_NOT_PERSONAL = re.compile(rb"\x1b\[\?[0-9;]*\$y|\x1b\[[IO]|\x1b\[48;[0-9;]*t|\x1b\[<([0-9]+);[0-9]+;[0-9]+[Mm]")


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
        # RuntimeError: no loop runs (a view's task closed after the loop ended, its
        # readers gone with it), so there is nothing to stop.
        with contextlib.suppress(ValueError, OSError, RuntimeError):
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


def start_host(sock: socket.socket, saves: str, make_app: Callable[[str], App[Any]]) -> None:
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
