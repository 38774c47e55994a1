"""One seat's SSH session channel (`TableSession`): the pty request, the seat's app started
on the table's fight in a pseudo-terminal (pty_bridge, seat) and started again when the
table moves, the bytes both ways with flow control, sizes, and the seat's own line to the
server (the GM's moves and replay, the replay to the others). A session without a pty, a
command or a subsystem is answered with what to do instead.

Decisions: docs/decisions/0003-ssh-server.md (the GM's moves on a line only the GM's app
holds), docs/decisions/0020-pty-bridge.md, docs/decisions/0036-serve-processes.md (fork or
exec, viewers sharing processes, the child's environment),
docs/decisions/0037-serve-client-limits.md (no-pty sessions, sizes, input),
docs/decisions/0054-replay.md (the GM's replay at the table)
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import time
from pathlib import Path
from typing import Any, Protocol

import asyncssh

import tracker
from tracker.serve import control
from tracker.serve.keys import GM, VIEWER
from tracker.serve.options import ServeOptions
from tracker.serve.pty_bridge import PtyChild
from tracker.serve.seat import SEAT_FD
from tracker.serve.table import Connection, TableServer
from tracker.engine.text import printable

log = logging.getLogger("tracker.serve")

PASS_ENV_PREFIXES = ("LC_",)
PASS_ENV = ("LANG", "COLORTERM", "NO_COLOR")
MAX_COLUMNS, MAX_ROWS = 500, 200
RESIZE_EVERY = 0.1  # seconds between two sizes passed to an app
NO_PTY = b"tracker: this is a full-screen terminal app; connect with a terminal: ssh -t (not -T), no command\r\n"
NO_COMMAND = b"tracker: commands are not run here; connect with a terminal and no command: ssh -t HOST\r\n"


def seat_argv(options: ServeOptions) -> list[str]:
    """What `--spawn exec` runs for a seat (the seat itself comes on its socket)."""
    return [options.python, "-m", "tracker.serve.seat"]


def child_env(options: ServeOptions, role: str, term: str, client_env: dict[str, str]) -> dict[str, str]:
    env = dict(os.environ)
    root = str(Path(tracker.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["TERM"] = term or "xterm-256color"
    for key, value in client_env.items():
        if key in PASS_ENV or key.startswith(PASS_ENV_PREFIXES):
            env[key] = value
    env.setdefault("LANG", "C.UTF-8")
    env["TRACKER_SAVES"] = str(options.saves)
    # Nothing in the environment says who someone is (seat.py); drop what a parent set.
    for key in ("TRACKER_USER", "TRACKER_ROLE", "TRACKER_READ_ONLY", SEAT_FD):
        env.pop(key, None)
    if role == VIEWER:
        env["TRACKER_READ_ONLY"] = "1"
    # Textual's own dev-tools hooks would leak the server's settings to every player.
    for key in ("TEXTUAL", "TEXTUAL_DEVTOOLS_PORT"):
        env.pop(key, None)
    return env


def clamp_size(cols: int, rows: int) -> tuple[int, int]:
    return max(1, min(cols, MAX_COLUMNS)), max(1, min(rows, MAX_ROWS))


class SessionSlot(Protocol):
    """The connection a session belongs to (tracker.serve.ssh_server's TableSSHServer),
    said here so that the channel does not import what makes it."""

    def session_ended(self) -> None: ...


class TableSession(asyncssh.SSHServerSession[bytes]):
    """The SSH channel <-> the seat's app on its pty (started again when the table moves)."""

    def __init__(self, table: TableServer, record: Connection, owner: SessionSlot | None = None) -> None:
        self.table = table
        self.record = record
        self.owner = owner
        self.chan: asyncssh.SSHServerChannel[bytes] | None = None
        self.term = ""
        self.size = (80, 24, 0, 0)
        self.has_pty = False
        self.refusal = b""  # set when the request is answered with a message only
        self.child: PtyChild | None = None
        self._ended = False
        self._input_paused = False
        self._released = False
        self._restart = False  # the table moved: start the app again on the new fight
        self._notice = ""  # what the next app says first
        self._resized_at = 0.0
        self._resize_timer: asyncio.TimerHandle | None = None
        self._line: socket.socket | None = None  # the server's end of the app's own line
        self.on: Path | None = None  # a GM's app: the fight it is on (where it started, or last moved the table)
        self._control: socket.socket | None = None  # a GM's app: the line to it

    def connection_made(self, chan: asyncssh.SSHServerChannel[bytes]) -> None:
        self.chan = chan

    def pty_requested(self, term_type: str, term_size: tuple[int, int, int, int], term_modes: Any) -> bool:
        self.has_pty = True
        self.term = term_type
        if term_size[0] > 0 and term_size[1] > 0:
            cols, rows = clamp_size(term_size[0], term_size[1])
            self.size = (cols, rows, term_size[2], term_size[3])
        return True

    def shell_requested(self) -> bool:
        return True

    def exec_requested(self, command: str) -> bool:
        # Accepted only to be answered: a bare refusal leaves OpenSSH saying "exec request
        # failed" with no hint, and some clients waiting.
        log.info("refused command %r from %s", printable(command)[:200], self.record.who())
        self.refusal = NO_COMMAND
        return True

    def subsystem_requested(self, subsystem: str) -> bool:
        log.info("refused subsystem %r from %s", printable(subsystem)[:200], self.record.who())
        return False

    def session_started(self) -> None:
        if not self.refusal and not self.has_pty:
            self.refusal = NO_PTY
        if self.refusal:
            self._refuse()
            return
        self.record.session = self
        task = asyncio.get_running_loop().create_task(self._run())
        self.table.track(task)

    def _refuse(self) -> None:
        """Say why on the client's stderr, exit status 1, close the channel."""
        chan = self.chan
        assert chan is not None
        self._ended = True
        self._release()  # answered: the connection may open a proper session at once
        with contextlib.suppress(OSError):  # the client may have gone already
            chan.write_stderr(self.refusal)
            chan.exit(1)

    def _release(self) -> None:
        if not self._released and self.owner is not None:
            self._released = True
            self.owner.session_ended()

    async def _run(self) -> None:
        chan = self.chan
        assert chan is not None
        code: int | None = 0
        while not self._ended:
            self._restart = False
            code = await self._run_app()
            if code is None or not self._restart:
                break
        if code is not None and not self._ended:
            self._ended = True
            with contextlib.suppress(OSError):  # the client has already gone
                chan.exit(code if code >= 0 else 128 - code)

    async def _run_app(self) -> int | None:
        """Start the seat's app on the table's fight and wait for it; its exit status
        (None: it could not start, and the client was told)."""
        chan = self.chan
        assert chan is not None
        role = self.record.role or VIEWER
        client_env = {str(k): str(v) for k, v in (chan.get_environment() or {}).items()}
        options = self.table.options
        info = self.table.seat_info(self.record, self._notice)
        self._notice = ""
        self.on = Path(info.fight) if info.fight else None
        env = child_env(options, role, self.term, client_env)
        # The seat's own line to the server: the GM's moves and replay, the GM's replay to
        # the others, and (exec) the seat itself. A viewer in a shared process hears the
        # replay through that process's line (viewer_host).
        hosted = self.table.host_viewer(info, env)
        ours, theirs = control.pair() if hosted is None else (None, None)
        runner = self.table.runner(info, theirs)
        if theirs is not None and runner is None:
            env[SEAT_FD] = str(theirs.fileno())
        child = PtyChild(
            [] if runner else seat_argv(options),
            env,
            self.size,
            self._output,
            cwd=str(options.saves),
            in_process=runner,
            on_input_room=self._input_room,
            attach=hosted,
            control_fd=theirs.fileno() if theirs is not None and hosted is None else None,
        )
        self.child = child
        loop = asyncio.get_running_loop()
        try:
            try:
                await child.start()
            except OSError as exc:
                log.error("cannot start the app for %s: %s", self.record.who(), exc)
                with contextlib.suppress(OSError):
                    chan.write_stderr(f"tracker: the app could not start: {exc}\r\n".encode())
                    chan.exit(1)
                self._ended = True
                return None
            finally:
                if theirs is not None:
                    theirs.close()  # the child holds its end now
            if ours is not None:
                ours.setblocking(False)
                if runner is None:
                    with contextlib.suppress(OSError):
                        control.send(ours, {"op": "seat", "seat": info.to_json()})
                if role == GM:
                    loop.add_reader(ours.fileno(), self.heard_from_app, ours)
                    self._control = ours
                else:
                    self._line = ours
            self.table.children.add(child)
            log.info("app pid %d for %s%s", child.pid, self.record.who(), " (a viewers' process)" if hosted else "")
            try:
                if self._ended or self._restart:
                    # The client left, or the table moved, while the app was starting (exec
                    # waits for the new program): what asked found no process to stop.
                    return 0
                return await child.wait()
            finally:
                await child.stop()  # reap the group even if the leader left something behind
                self.table.children.discard(child)
        finally:
            self._line = None
            if role == GM and self.table.replayed_by is self.record:
                self.table.replay(None, self.record)  # the GM's app ended in a replay: back to now
            if ours is not None:
                self._control = None
                with contextlib.suppress(ValueError, OSError):
                    loop.remove_reader(ours.fileno())
                ours.close()

    def tell(self, text: str) -> None:
        """Say `text` in this GM's app (nothing if it is not a GM's, or has gone)."""
        if self._control is not None:
            with contextlib.suppress(OSError):  # the app has gone, or is not reading: it is only news
                control.send(self._control, {"op": "say", "text": text[:2000]})

    def heard_from_app(self, sock: socket.socket) -> None:
        """The GM's app said something on its line: a move of the table, or its replay."""
        message = control.next_message(sock)
        if message is None:
            with contextlib.suppress(ValueError, OSError):
                asyncio.get_running_loop().remove_reader(sock.fileno())
            return
        if message.get("op") == "move" and self.record.role == GM:
            self.table.track(asyncio.get_running_loop().create_task(self.table.move(message.get("path"), self.record)))
        elif message.get("op") == "replay" and self.record.role == GM:
            self.table.replay(message.get("segment"), self.record)

    def tell_replay(self, segment: int | None) -> None:
        """The GM's replay moved (or ended): tell this seat's app on its line."""
        line = self._line
        if line is not None:
            with contextlib.suppress(OSError):  # the app has ended, or stopped reading: it follows no more
                control.send(line, {"op": "replay", "segment": segment})

    def restart(self, notice: str) -> None:
        """The table moved: end this seat's app; `_run` starts it again on the new fight."""
        if self._ended:
            return
        self._notice, self._restart = notice, True
        child = self.child
        if child is not None:
            self.table.track(asyncio.get_running_loop().create_task(child.stop()))

    def _output(self, data: bytes) -> None:
        self.record.last_activity = time.monotonic()
        if self.chan is not None and not self._ended:
            # The client may have closed its channel while the app was still drawing; the
            # app is stopped when the connection's loss is seen, so its last frames go nowhere.
            with contextlib.suppress(BrokenPipeError):
                self.chan.write(data)

    # The channel's send window is full: stop reading the app's output (see pty_bridge).
    def pause_writing(self) -> None:
        if self.child is not None:
            self.child.pause()

    def resume_writing(self) -> None:
        if self.child is not None:
            self.child.resume()

    def data_received(self, data: bytes, datatype: Any) -> None:
        self.record.last_activity = time.monotonic()
        if self.child is None or self.chan is None:
            return  # before the app started (or a refused session): nothing reads it
        if not self.child.write(data) and not self._input_paused:
            # The app is not keeping up: stop reading, so the client's window closes.
            self._input_paused = True
            self.chan.pause_reading()

    def _input_room(self) -> None:
        if self._input_paused and self.chan is not None:
            self._input_paused = False
            with contextlib.suppress(OSError):
                self.chan.resume_reading()

    def terminal_size_changed(self, width: int, height: int, pixwidth: int, pixheight: int) -> None:
        if width <= 0 or height <= 0:
            return
        cols, rows = clamp_size(width, height)
        self.size = (cols, rows, pixwidth, pixheight)
        wait = self._resized_at + RESIZE_EVERY - time.monotonic()
        if wait <= 0:
            self._apply_size()
        elif self._resize_timer is None:
            self._resize_timer = asyncio.get_running_loop().call_later(wait, self._apply_size)

    def _apply_size(self) -> None:
        """Pass the latest size to the app (at most every RESIZE_EVERY seconds)."""
        self._resize_timer = None
        self._resized_at = time.monotonic()
        if self.child is not None and not self._ended:
            self.child.resize(*self.size)

    def break_received(self, msec: int) -> bool:
        return False

    def signal_received(self, signal_name: str) -> None:
        """Ignored on purpose: players do not signal the app; it has its own quit key."""

    def eof_received(self) -> bool:
        # Keep our side open: the client has no more to send (`ssh -T host </dev/null`),
        # but the answer or the app's screen may still be on its way.
        return True

    def connection_lost(self, exc: Exception | None) -> None:
        self.hang_up()
        if self.child is None:
            self._release()

    def hang_up(self) -> None:
        """The client went away: end the app (the _run task reaps it)."""
        self._ended = True
        if self._resize_timer is not None:
            self._resize_timer.cancel()
            self._resize_timer = None
        child = self.child
        if child is not None and child.process is not None and child.process.returncode is None:
            self.table.track(asyncio.get_running_loop().create_task(child.stop()))
