"""The server's side of the viewers' processes (tracker.serve.viewer_host says what they
are, and the messages between them and the server): the processes it forks, one per fight
and kind of terminal (`PROFILE`), a viewer placed in one with a free place
(`ViewerHosts`); its socket to each (`ViewerHost`); and each viewer's app there as
pty_bridge.PtyChild sees a process (`HostedViewer`).

Decisions: docs/decisions/0036-serve-processes.md (viewers sharing processes),
docs/decisions/0055-shared-views.md (each host nudged when the table's fight is written)
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import socket
from collections.abc import Callable
from typing import Any

from textual.app import App

from tracker.serve.control import next_message, send
from tracker.serve.pty_bridge import ForkedProcess, fork_flushed
from tracker.serve.viewer_host import QUIT_GRACE, start_host
from tracker.engine.text import printable

log = logging.getLogger("tracker.serve")

# What a terminal's output depends on: viewers share a process only if these agree.
PROFILE = ("TERM", "COLORTERM", "NO_COLOR", "LANG", "LC_ALL", "LC_CTYPE")
CHANGED = json.dumps({"op": "changed"}).encode()


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
            # MSG_DONTWAIT alone is not enough: on a socket with a timeout (`_fork`'s 5 s)
            # Python waits for room before each try, so the send is made with none.
            timeout = self.sock.gettimeout()
            self.sock.settimeout(0.0)
            try:
                with contextlib.suppress(OSError):
                    self.sock.sendmsg([CHANGED], [], socket.MSG_DONTWAIT)
            finally:
                self.sock.settimeout(timeout)

    def attach(self, ident: int, slave: int, env: dict[str, str], notice: str = "", replaying: int | None = None) -> HostedViewer:
        viewer = HostedViewer(self, ident)
        self.viewers[ident] = viewer
        if not self.tell({"op": "open", "id": ident, "env": env, "notice": notice, "replay": replaying}, slave):
            viewer.ended(1)
        return viewer

    def _readable(self) -> None:
        message = next_message(self.sock)  # (the host sends no descriptor)
        if message is None:
            self.lost()
            return
        if not message:
            return  # nothing there after all
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
            start_host(theirs, self.saves, make_app)  # never returns
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
