"""`tracker serve`: the shared table over SSH, so players need no account on the host.

A table, not a file browser (DESIGN 8). The server serves one fight at a time, the
table's: the one named by `--encounter`, or the one the GM opens from the GM's start
screen; with `--campaign NAME`, the campaign's fight, following it from fight to fight
(tracker.serve.campaign). Each SSH connection gets one interactive session: a pseudo-terminal sized from
the client's pty request, with the seat's app on it (pty_bridge, seat).

Decisions: docs/decisions/0003-ssh-server.md, docs/decisions/0036-serve-processes.md,
docs/decisions/0037-serve-client-limits.md, docs/decisions/0038-serve-logs-signals.md,
docs/decisions/0050-serve-campaign.md, docs/decisions/0054-replay.md (the GM's replay at the table)
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import socket
import sys
import time
from pathlib import Path
from typing import Any

import asyncssh

import tracker
from tracker.engine import TrackerError
from tracker.serve import control
from tracker.serve.keys import GM, PLAYER, VIEWER, KeyRing
from tracker.serve.options import ServeOptions
from tracker.serve.pty_bridge import PtyChild
from tracker.serve.seat import SEAT_FD
from tracker.serve.table import USER_SHOWN, Connection, TableServer
from tracker.text import printable, quoted

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


class TableSSHServer(asyncssh.SSHServer):
    """Per-connection callbacks: admission, authentication, the one session."""

    def __init__(self, table: TableServer) -> None:
        self.table = table
        self.record: Connection | None = None
        self.conn: asyncssh.SSHServerConnection | None = None
        self._sessions = 0

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.conn = conn
        self.record = self.table.new_connection(conn)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.record is not None:
            self.table.lost_connection(self.record, exc)

    def begin_auth(self, username: str) -> bool:
        record = self.record
        if record is not None:
            record.user = username  # logged only: anyone may type any name
            if record.refusal:  # the key exchange is done: now the client hears why
                self.table.tell_refusal(record)
                self.record = None
        return True  # always authenticate: the key decides the role

    # Public keys: the role, the name and the seat by the authorized_keys files.
    def public_key_auth_supported(self) -> bool:
        return True

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        record = self.record
        if record is None:
            return False
        addr = record.source
        role = self.table.keyring.role_for(key, addr, addr)
        for problem in self.table.keyring.new_problems():
            log.error("%s", problem)  # a keys file made unsafe (or unreadable) while running
        if role is None:
            log.info("refused key %s for %s@%s", self.table.keyring.key_line(key), quoted(username, USER_SHOWN), record.peer)
            return False
        # Several keys may be offered; the last one accepted is the one that signed.
        record.role, record.key = role, self.table.keyring.key_line(key, role)
        record.name = self.table.keyring.identity(key, role)
        record.combatants, record.pcs = self.table.keyring.characters(key, addr, addr) if role == PLAYER else ((), ())
        # The seat is decided now, while the client still shows a reason it is given
        # (after authentication it would see only the connection close).
        reason = self.table.seat_refusal(role)
        if reason:
            self.table.refuse_seat(record, reason)
            self.record = None
            return False
        return True

    # Keyboard-interactive with no questions: a key-less viewer, only with --open-viewers.
    def kbdint_auth_supported(self) -> bool:
        return self.table.keyring.open_viewers

    def get_kbdint_challenge(self, username: str, lang: str, submethods: str) -> bool:
        record = self.record
        if not self.table.keyring.open_viewers or record is None:
            return False
        reason = self.table.seat_refusal(VIEWER)
        if reason:
            self.table.refuse_seat(record, reason)
            self.record = None
            return False
        record.role, record.key, record.name = VIEWER, "", ""
        return True

    def password_auth_supported(self) -> bool:
        return False

    def auth_completed(self) -> None:
        if self.record is None:
            return
        if not self.table.admit(self.record):
            self.record = None
            return
        log.info("connect %s", self.record.who())

    def session_requested(self) -> "TableSession | bool":
        if self.record is None or self.record.role is None or self._sessions:
            return False  # one app per connection
        self._sessions += 1
        session = TableSession(self.table, self.record, self)
        return session

    def session_ended(self) -> None:
        """A session that ran no app (refused: no pty, a command) frees the slot."""
        self._sessions = max(0, self._sessions - 1)


class TableSession(asyncssh.SSHServerSession[bytes]):
    """The SSH channel <-> the seat's app on its pty (started again when the table moves)."""

    def __init__(self, table: TableServer, record: Connection, owner: TableSSHServer | None = None) -> None:
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
                    loop.add_reader(ours.fileno(), self._control_readable, ours)
                    self._control = ours
                else:
                    self._line = ours
            self.table.children.add(child)
            log.info("app pid %d for %s%s", child.pid, self.record.who(), " (a viewers' process)" if hosted else "")
            try:
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

    def _control_readable(self, sock: socket.socket) -> None:
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


def _setup_logging() -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s tracker serve: %(message)s", "%Y-%m-%d %H:%M:%S"))
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    log.propagate = False
    logging.getLogger("asyncssh").setLevel(logging.WARNING)


async def run_server(options: ServeOptions, keyring: KeyRing, ready: "asyncio.Future[int] | None" = None) -> int:
    table = TableServer(options, keyring)
    try:
        await table.start(lambda: TableSSHServer(table))
    except OSError as exc:
        raise TrackerError(f"cannot listen on {options.host}:{options.port}: {exc.strerror or exc}") from None
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        # Not possible outside the main thread (tests run the server in one): then the
        # caller stops it through `stop` instead of a signal.
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, stop.set)
    who = []
    if keyring.gm.current() is not None:
        who.append(f"GM keys {keyring.gm.path}")
    if keyring.player.current() is not None:
        who.append(f"players' keys {keyring.player.path}")
    if keyring.viewer.current() is not None:
        who.append(f"viewer keys {keyring.viewer.path}")
    if keyring.open_viewers:
        who.append("anyone else as a viewer")
    target = f"encounter {options.encounter}" if options.encounter else f"saves {options.saves}, the fight the GM opens"
    if table.campaign is not None:
        target = f"campaign {printable(table.campaign.name)}, " + (f"its fight {table.fight.name}" if table.fight is not None else "no fight yet")
    log.info("listening on %s port %d (%s; %s); connect with: ssh -p %d %s", options.host, table.port, target, ", ".join(who), table.port, options.host)
    if ready is not None and not ready.done():
        ready.set_result(table.port)
    try:
        await stop.wait()
    finally:
        await table.close()
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.remove_signal_handler(sig)
    log.info("stopped")
    return 0


def serve(args: argparse.Namespace, saves: Path) -> int:
    """The CLI's `tracker serve`."""
    _setup_logging()
    saves.mkdir(parents=True, exist_ok=True)
    options = ServeOptions.from_args(args, saves)
    keyring = KeyRing.from_options(options.saves, options.gm_keys, options.viewer_keys, options.open_viewers, options.players_keys)
    if not keyring.anyone_can_connect():
        raise TrackerError(
            f"nobody could connect: put GM public keys (lines of ~/.ssh/id_ed25519.pub) in "
            f"{keyring.gm.path} or pass --gm-keys FILE; add --players-keys FILE, --viewer-keys FILE or --open-viewers for players"
        )
    if options.host not in ("127.0.0.1", "localhost", "::1"):
        log.info("listening beyond this machine (%s): only the keys above get in", options.host)
    return asyncio.run(run_server(options, keyring))
