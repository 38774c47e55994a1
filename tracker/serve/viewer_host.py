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
                     {"op": "replay", "segment": S}  the GM's replay shows S (null: back to now)
                     {"op": "end", "id": N}     the client left: end that app
                     {"op": "quit"}             the host's last viewer left
    host -> server   {"op": "ended", "id": N, "code": C}

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
  reading) is given up and its app ended, instead of the app's queue of writes filling
  and stopping the host's event loop.
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
import logging
import os
import select
import signal
import socket
import struct
import termios
import time
from collections.abc import Callable
from typing import Any

from textual import events
from textual.app import App
from textual.geometry import Size

from tracker.serve.control import receive, send
from tracker.serve.pty_bridge import ForkedProcess, fork_flushed, leave_server
from tracker.text import printable
from tracker.ui.textual_private import DriverOnTerminal, driver_of

log = logging.getLogger("tracker.serve")

# What a terminal's output depends on: viewers share a process only if these agree.
PROFILE = ("TERM", "COLORTERM", "NO_COLOR", "LANG", "LC_ALL", "LC_CTYPE")
STALLED = 10.0  # seconds a viewer's terminal may take no output before it is given up
QUIT_GRACE = 2.0  # seconds the host's apps have to restore their terminals when it ends


# ---------------------------------------------------------------- in the host process
class TerminalFile:
    """A viewer's terminal as the driver's writer thread sees it: text written as UTF-8
    without ever blocking for long (see the module doc: `STALLED`), and nothing raised
    once the terminal is gone."""

    def __init__(self, fd: int, gone: Callable[[], None]) -> None:
        self.gone = False
        self._on_gone = gone
        try:  # a description of its own, so the input thread's reads stay blocking
            self._out = os.open(os.ttyname(fd), os.O_WRONLY | os.O_NOCTTY | os.O_NONBLOCK)
        except OSError:  # no name to open it by: blocking writes, as Textual's own (no STALLED)
            self._out = os.dup(fd)

    def write(self, text: str) -> None:
        data = memoryview(text.encode("utf-8", "replace"))
        waited_since = time.monotonic()
        while data and not self.gone:
            try:
                sent = os.write(self._out, data)
            except BlockingIOError:
                left = STALLED - (time.monotonic() - waited_since)
                if left <= 0:
                    log.warning("a viewer's terminal took no output for %gs: its app ends", STALLED)
                    self._give_up()
                    return
                select.select([], [self._out], [], min(left, 1.0))
                continue
            except OSError:
                self._give_up()
                return
            data = data[sent:]
            waited_since = time.monotonic()

    def _give_up(self) -> None:
        self.gone = True
        self._on_gone()

    def flush(self) -> None:
        """Nothing is buffered here."""

    def fileno(self) -> int:
        return self._out

    def isatty(self) -> bool:
        return True

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self._out)


class HostedDriver(DriverOnTerminal):
    """Textual's Linux driver on one viewer's pty slave (the app's `terminal_fd`)."""

    def __init__(self, app: App[Any], *, debug: bool = False, mouse: bool = True, size: tuple[int, int] | None = None) -> None:
        super().__init__(app, debug=debug, mouse=mouse, size=size)
        fd: int = getattr(app, "terminal_fd")
        self.fileno = fd
        self.input_tty = True
        self.write_to(TerminalFile(fd, self._terminal_gone))

    @property
    def can_suspend(self) -> bool:
        return False  # a SIGTSTP would stop every viewer in the process

    def terminal_size(self) -> tuple[int, int]:
        try:
            rows, cols, _x, _y = struct.unpack("HHHH", fcntl.ioctl(self.fileno, termios.TIOCGWINSZ, b"\0" * 8))
        except OSError:
            return 80, 24
        return cols or 80, rows or 24

    def start_application_mode(self) -> None:
        self.keep_loop()
        super().start_application_mode()

    def resized(self) -> None:
        """The server set a new size on the master (on the event loop)."""
        if not self.sizes_in_band:
            size = Size(*self.terminal_size())
            self.driven_app.post_message(events.Resize(size, size))

    def _terminal_gone(self) -> None:
        """On a driver thread: the terminal went away or stopped reading; end the app."""
        loop = self.event_loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop is closing: the app is ending anyway
                loop.call_soon_threadsafe(functools.partial(self.driven_app.exit, return_code=1))

    def run_input_thread(self) -> None:
        # Anything but OSError goes on to Textual's report (tracker.ui.textual_private, 7).
        try:
            super().run_input_thread()
        except OSError:  # end of file on the pty: the server closed the master
            self._terminal_gone()

    def close(self) -> None:
        super().close()
        file = self.output
        if isinstance(file, TerminalFile):
            file.close()


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
    return asyncio.run(_host(sock, make_app))


async def _host(sock: socket.socket, make_app: Callable[[str], App[Any]]) -> int:
    loop = asyncio.get_running_loop()
    sock.setblocking(False)
    apps: dict[int, App[Any]] = {}
    tasks: set[asyncio.Task[Any]] = set()
    quit_now = asyncio.Event()

    def tell(message: dict[str, Any]) -> None:
        with contextlib.suppress(OSError):  # the server has gone: this host ends next
            send(sock, message)

    replaying: list[int | None] = [None]  # the GM's replay, as the server last said

    def follow(app: App[Any], segment: int | None) -> None:
        follow_replay = getattr(app, "follow_replay", None)  # a TrackerApp's (tracker.ui.app)
        if follow_replay is not None:
            follow_replay(segment)

    async def run_one(ident: int, fd: int, env: dict[str, str], notice: str) -> None:
        code = 1
        try:
            _use_environment(env)  # read by Textual as the app is made (TERM, COLORTERM, NO_COLOR)
            app = make_app(notice)
            if replaying[0] is not None:
                follow(app, replaying[0])  # kept until the app is up
            setattr(app, "terminal_fd", fd)
            app.driver_class = HostedDriver
            apps[ident] = app
            await app.run_async()
            code = int(app.return_code or 0)
        except Exception as exc:  # noqa: BLE001 - one viewer's failure is that viewer's
            log.error("viewer #%d: the app failed: %s: %s", ident, type(exc).__name__, exc)
        finally:
            apps.pop(ident, None)
            with contextlib.suppress(OSError):
                os.close(fd)  # the last holder of the slave: the server's master reads EOF
            tell({"op": "ended", "id": ident, "code": code})

    def readable() -> None:
        try:
            message, fd = receive(sock)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            message, fd = None, None
        if message is None:
            quit_now.set()  # the server has gone
            loop.remove_reader(sock.fileno())
            return
        op, ident = message.get("op"), message.get("id")
        if op == "replay" or (op == "open" and "replay" in message):
            segment = message.get("segment" if op == "replay" else "replay")
            replaying[0] = segment if isinstance(segment, int) and not isinstance(segment, bool) and segment >= 0 else None
            if op == "replay":
                for each in list(apps.values()):
                    follow(each, replaying[0])
        if op == "open" and fd is not None and isinstance(ident, int):
            env = message.get("env")
            env = env if isinstance(env, dict) else {}
            task = loop.create_task(run_one(ident, fd, {str(k): str(v) for k, v in env.items()}, str(message.get("notice", ""))))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
            return
        if fd is not None:
            os.close(fd)
        app = apps.get(ident) if isinstance(ident, int) else None
        driver = driver_of(app) if app is not None else None
        if op == "size" and isinstance(driver, HostedDriver):
            driver.resized()
        elif op == "end" and app is not None:
            app.exit()
        elif op == "quit":
            quit_now.set()

    loop.add_reader(sock.fileno(), readable)
    await quit_now.wait()
    for app in list(apps.values()):
        app.exit()
    if tasks:
        await asyncio.wait(list(tasks), timeout=QUIT_GRACE)
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
