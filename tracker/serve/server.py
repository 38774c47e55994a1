"""`tracker serve`: the shared table over SSH, so players need no account on the host.

Each SSH connection gets one interactive session: a pseudo-terminal sized from the
client's pty request, with the app running on it (see pty_bridge). The server imports
the app once at start and forks a child per connection (`--spawn fork`, the default),
so a viewer costs the pages it writes, not a whole Python and Textual; `--spawn exec`
runs `python -m tracker` per connection instead (slower and heavier, kept as a fallback
and for measuring). The GM's
key (in the GM authorized_keys file) gets the editing app; everyone else allowed in gets
`--viewer`, which follows the file read-only and hides hidden combatants and their rolls.
The child processes share the encounter file exactly as separate `tracker open` users on
one host do (lock, revision, reload); the server's own copy of the fight (below) is only
a starting point for new apps, never written.

Decisions where the brief is silent:
- Only an interactive shell with a pty is served; `ssh host COMMAND`, subsystems (sftp),
  port and agent forwarding are refused. A client without a pty (`ssh -T`) is told to
  connect with a terminal.
- One app per connection, so `--max-connections` (the table's seats) also caps the
  apps. A connection takes a seat when it has authenticated; a connection over the cap
  is then disconnected with "the table is full".
- With `--encounter` and `--spawn fork`, viewers' apps share processes, up to
  `--viewers-per-process` (default 10) each (viewer_host: why, and how a viewer that
  stops reading or a process that dies is kept from the others); the GM's and players'
  apps keep a process each. `--viewers-per-process 1` gives every viewer its own.
- Strangers cannot fill the table (OpenSSH's MaxStartups and LoginGraceTime): connections
  that have not authenticated yet are counted apart from the seats, at most
  `--max-startups` (default 10) at once (more are dropped at once, before key exchange,
  and logged), and each has `--login-grace` seconds (default 10) to authenticate.
- A session without a pty (`ssh -T`), a command (`ssh host CMD`) and a subsystem (sftp)
  are answered on the client's stderr with what to do instead, with exit status 1, and
  the channel is closed; the connection's app slot stays free, so an asyncssh client may
  open a proper session afterwards on the same connection.
- Input is flow-controlled: keystrokes waiting for the app beyond 64 KiB stop the SSH
  channel's reading, so the client's window closes and it waits (the server holds at
  most that plus one window, 256 KiB, per connection, whatever a client sends).
- Keys files and the host key are checked as OpenSSH's StrictModes does (see keys).
- With `--encounter` and `--spawn fork`, the server also loads the encounter once at
  start and keeps it current (a worker thread folds in the GM's changes, checked every
  second), so a forked app starts with the fight already in memory, shared with its
  siblings, instead of reading and replaying the file; it then follows the file as any
  viewer does. While that refresh runs, a new app loads the file itself (a fork
  must not copy a half-updated state). Before the first fork the server also draws the
  encounter once, headless (what Textual caches, and what the widgets derive from the
  whole fight and keep with the encounter, such as the timeline's index of actions, is
  then inherited instead of rebuilt in every app), collects garbage, gives the memory
  that loading freed back to the system (glibc's malloc_trim: free pages left resident
  would be counted in every app's share) and freezes the collector. A forked viewer
  then writes (and so copies) only what its own app touches: measured with
  benchmarks/shared.py.
- Idle means nothing passed either way (no keystroke, no screen output) for
  `--idle-timeout` seconds; a viewer watching a live fight is not idle, an abandoned
  terminal on a finished fight is. SSH keepalives (every 30 s, 3 missed) drop dead links.
- The child gets the server's environment plus TERM from the pty request (default
  xterm-256color), LANG/LC_*/COLORTERM if the client sent them, TRACKER_SAVES, the
  package root on PYTHONPATH (so it runs from a checkout without the console script),
  TRACKER_USER (the SSH user name, for the log), and for viewers TRACKER_READ_ONLY=1,
  which the persistence layer enforces (nothing is written even if a key slipped through).
- Players (a key in `--players-keys`, naming its combatants): the app opens with the
  player's role for those names (`--player NAMES` on the command line the server
  builds, or the role set on the forked app's session), never from what the client
  sends. A player's app writes (their declarations) and every change passes the
  session's guard; without `--encounter` the start screen is offered read-only.
- Logs (stderr, one line each): start, connect (user, role, address, key fingerprint),
  refusals, disconnect with the session's length, shutdown.
- SIGTERM / SIGINT: stop listening, end every child's process group (SIGHUP+SIGTERM, then
  SIGKILL after 2 s), wait for all of them, close the connections, exit 0.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import logging
import threading
import os
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import asyncssh

import tracker
from tracker import paths
from tracker.engine import TrackerError
from tracker.serve.keys import HOST_KEY_DEFAULT, PLAYER, VIEWER, KeyRing, load_or_create_host_key
from tracker.serve.pty_bridge import PtyChild
from tracker.text import visible

log = logging.getLogger("tracker.serve")

PASS_ENV_PREFIXES = ("LC_",)
PASS_ENV = ("LANG", "COLORTERM", "NO_COLOR")
KEEPALIVE_INTERVAL = 30.0
WINDOW = 256 * 1024  # the most a client may send before the server reads (flow control)
NO_PTY = b"tracker: this is a full-screen terminal app; connect with a terminal: ssh -t (not -T), no command\r\n"
NO_COMMAND = b"tracker: commands are not run here; connect with a terminal and no command: ssh -t HOST\r\n"


@dataclass
class ServeOptions:
    saves: Path
    host: str = "127.0.0.1"
    port: int = 8022
    gm_keys: str | None = None
    viewer_keys: str | None = None
    open_viewers: bool = False
    players_keys: str | None = None
    encounter: Path | None = None
    host_key: Path | None = None
    max_connections: int = 32
    idle_timeout: float = 3600.0
    max_startups: int = 10
    login_grace: float = 10.0
    spawn: str = "fork"
    viewers_per_process: int = 10
    python: str = sys.executable

    @classmethod
    def from_args(cls, args: argparse.Namespace, saves: Path) -> "ServeOptions":
        saves = saves.resolve()
        encounter = None
        if args.encounter:
            encounter = paths.encounter_option(args.encounter, saves)
        if args.max_connections < 1:
            raise TrackerError(f"--max-connections: expected at least 1, got {args.max_connections}")
        if args.idle_timeout <= 0:
            raise TrackerError(f"--idle-timeout: expected a number of seconds above 0, got {args.idle_timeout:g}")
        if not 0 <= args.port <= 65535:
            raise TrackerError(f"--port: expected 0-65535, got {args.port}")
        max_startups = getattr(args, "max_startups", None)
        max_startups = cls.max_startups if max_startups is None else max_startups
        if max_startups < 1:
            raise TrackerError(f"--max-startups: expected at least 1, got {max_startups}")
        login_grace = getattr(args, "login_grace", None)
        login_grace = cls.login_grace if login_grace is None else login_grace
        if login_grace <= 0:
            raise TrackerError(f"--login-grace: expected a number of seconds above 0, got {login_grace:g}")
        spawn = getattr(args, "spawn", None) or cls.spawn
        if spawn not in ("fork", "exec"):
            raise TrackerError(f"--spawn: expected fork or exec, got {spawn}")
        per_process = getattr(args, "viewers_per_process", None)
        per_process = cls.viewers_per_process if per_process is None else per_process
        if per_process < 1:
            raise TrackerError(f"--viewers-per-process: expected at least 1, got {per_process}")
        return cls(
            saves=saves,
            host=args.host,
            port=args.port,
            gm_keys=args.gm_keys,
            viewer_keys=args.viewer_keys,
            open_viewers=bool(args.open_viewers),
            players_keys=getattr(args, "players_keys", None),
            encounter=encounter,
            host_key=Path(args.host_key) if args.host_key else saves / HOST_KEY_DEFAULT,
            max_connections=args.max_connections,
            idle_timeout=float(args.idle_timeout),
            max_startups=int(max_startups),
            login_grace=float(login_grace),
            spawn=spawn,
            viewers_per_process=int(per_process),
        )


def child_argv(options: ServeOptions, role: str, combatants: tuple[str, ...] = ()) -> list[str]:
    argv = [options.python, "-m", "tracker", "--saves", str(options.saves)]
    if options.encounter is not None:
        argv += ["open", str(options.encounter)]
        if role == VIEWER:
            argv.append("--viewer")
    elif role == VIEWER:
        argv += ["open", "--viewer"]  # the start screen, read-only
    elif role == PLAYER:
        argv += ["open"]  # the start screen, read-only for a player too
    if role == PLAYER:
        argv += ["--player", ",".join(combatants)]  # from the server's keys file only
    return argv


def preload() -> None:
    """Import the app and everything it may show, once, before any fork (`--spawn fork`);
    then freeze what is there so the children's collectors leave it alone."""
    import importlib
    import pkgutil

    import rulesets
    import tracker.cli  # noqa: F401
    import tracker.ui.app  # noqa: F401
    import tracker.ui.screens

    for package in (tracker.ui.screens, rulesets):
        for info in pkgutil.iter_modules(package.__path__, package.__name__ + "."):
            with contextlib.suppress(Exception):  # a module that fails here fails in the app, with a message
                importlib.import_module(info.name)
    gc.collect()
    gc.freeze()


def release_free_memory() -> None:
    """Give back to the system the memory that loading and the warm-up freed (glibc's
    malloc_trim). Left resident, those free pages would be inherited by every app and
    counted in each one's share of memory; trimmed, they cost nothing. Elsewhere than
    glibc this does nothing."""
    try:
        import ctypes
        import ctypes.util

        name = ctypes.util.find_library("c")
        if name:
            trim = getattr(ctypes.CDLL(name), "malloc_trim", None)
            if trim is not None:
                trim(0)
    except (OSError, AttributeError, ValueError):
        pass  # no C library to ask: the memory stays resident, and only the figure is worse


def run_app(argv: list[str]) -> int:
    """In a forked child: the CLI as `python -m tracker ARGV` would run it."""
    from tracker.cli import main

    return main(argv)


class Preloaded:
    """The encounter loaded once in the server, kept current, inherited by every fork."""

    def __init__(self, path: Path) -> None:
        from tracker.ui.live import Live

        self.path = path
        self.live = Live.open(path, viewer=True)
        self.busy = threading.Lock()  # held while the worker thread folds in a change

    def refresh(self) -> None:
        with self.busy:
            self.live.poll()

    def changed(self) -> bool:
        return self.live.store.file.changed_on_disk()

    def runner(self, options: ServeOptions, role: str, combatants: tuple[str, ...] = ()) -> "Callable[[list[str]], int]":
        """What the forked child runs: the app on the inherited encounter, or (while a
        refresh is half done, or for a player whose names are not all in it: the CLI
        says which) the CLI, which loads the file itself."""
        if self.busy.locked():
            return run_app
        live = self.live
        player = player_role(live, combatants) if role == PLAYER else None
        if role == PLAYER and player is None:
            return run_app

        def run(argv: list[str]) -> int:
            from tracker.ui.app import TrackerApp

            from rulesets.dice import RandomDice

            live.viewer = role in (VIEWER, PLAYER)  # a player sees what a viewer sees, and their own
            if player is not None:
                live.session.role = player  # decided here, from the key; the guard checks every change
            live.session.user = os.environ.get("TRACKER_USER", "")
            # Dice of its own: a copy of the server's generator would roll, in every app
            # forked from it, the same numbers in the same order.
            live.session.dice = RandomDice()
            return int(TrackerApp(options.saves, self.path, role == VIEWER, live, role=player).run() or 0)

        return run

    def viewer_app(self, saves: Path) -> Any:
        """A viewer's app on the inherited encounter, in a process shared by several
        viewers (viewer_host): one encounter, one follower, for all of them."""
        from tracker.ui.app import TrackerApp

        from rulesets.dice import RandomDice

        live = self.live
        live.viewer = True
        live.session.user = ""  # a viewer signs nothing
        live.session.dice = RandomDice()  # not a copy of the server's generator (see runner)
        return TrackerApp(saves, self.path, True, live)


def player_role(live: Any, combatants: tuple[str, ...]) -> Any:
    """The player's role for `combatants` as the encounter names them, or None if one is
    not in it (the CLI then says so to the player)."""
    from tracker.roles import Role

    try:
        return Role.player([live.encounter.combatant(name).name for name in combatants]) if combatants else None
    except TrackerError:
        return None


def child_env(options: ServeOptions, role: str, term: str, client_env: dict[str, str], user: str) -> dict[str, str]:
    env = dict(os.environ)
    root = str(Path(tracker.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["TERM"] = term or "xterm-256color"
    for key, value in client_env.items():
        if key in PASS_ENV or key.startswith(PASS_ENV_PREFIXES):
            env[key] = value
    env.setdefault("LANG", "C.UTF-8")
    env["TRACKER_SAVES"] = str(options.saves)
    env["TRACKER_USER"] = user
    env["TRACKER_ROLE"] = role
    env.pop("TRACKER_READ_ONLY", None)
    if role == VIEWER:
        env["TRACKER_READ_ONLY"] = "1"
    # Textual's own dev-tools hooks would leak the server's settings to every player.
    for key in ("TEXTUAL", "TEXTUAL_DEVTOOLS_PORT"):
        env.pop(key, None)
    return env


@dataclass
class Connection:
    """One client: who, from where, as what, and its app."""

    ident: int
    peer: str
    user: str = ""
    role: str | None = None
    key: str = ""
    combatants: tuple[str, ...] = ()  # a player's, from the players' keys file
    since: float = field(default_factory=time.monotonic)
    last_activity: float = field(default_factory=time.monotonic)
    conn: asyncssh.SSHServerConnection | None = None
    session: "TableSession | None" = None

    def who(self) -> str:
        if self.role is None:
            return f"#{self.ident} {self.user or '?'}@{self.peer} unauthenticated"
        role = f"player of {','.join(self.combatants)}" if self.role == PLAYER else self.role
        return f"#{self.ident} {self.user or '?'}@{self.peer} {role} " + (f"key {self.key}" if self.key else "without a key")


class TableServer:
    """Owns the listening socket, the connections and their children."""

    def __init__(self, options: ServeOptions, keyring: KeyRing) -> None:
        self.options = options
        self.keyring = keyring
        self.connections: dict[int, Connection] = {}  # authenticated: the seats
        self.pending: dict[int, Connection] = {}  # still logging in (MaxStartups)
        self.children: set[PtyChild] = set()
        self._ident = 0
        self._listener: asyncssh.SSHAcceptor | None = None
        self._closing = False
        self._watchdog: asyncio.Task[None] | None = None
        self._child_tasks: set[asyncio.Task[Any]] = set()
        self.preloaded: Preloaded | None = None
        self._keeper: asyncio.Task[None] | None = None
        self.viewer_hosts: Any = None  # viewer_host.ViewerHosts, when viewers share processes

    async def start(self) -> None:
        host_key_path = self.options.host_key
        assert host_key_path is not None
        key, created = load_or_create_host_key(host_key_path)
        log.info("host key %s %s: %s", host_key_path, "created" if created else "loaded", key.get_fingerprint("sha256"))
        if self.options.spawn == "fork":
            preload()
            if self.options.encounter is not None:
                started = time.monotonic()
                try:
                    self.preloaded = await asyncio.to_thread(Preloaded, self.options.encounter)
                except TrackerError as exc:  # each app will say it on its screen
                    log.warning("%s: not preloaded: %s", self.options.encounter, exc)
                else:
                    await self._warm_up()
                    log.info("encounter %s loaded in %.1fs, shared by every app", self.options.encounter, time.monotonic() - started)
                    self._keeper = asyncio.create_task(self._keep_current())
                    if self.options.viewers_per_process > 1:
                        from tracker.serve.viewer_host import ViewerHosts

                        self.viewer_hosts = ViewerHosts(self.options.viewers_per_process, str(self.options.saves))
        self._listener = await asyncssh.create_server(
            lambda: TableSSHServer(self),
            self.options.host,
            self.options.port,
            server_host_keys=[key],
            encoding=None,  # bytes both ways: the app's output is passed through untouched
            line_editor=False,  # keystrokes go raw to the app, which edits its own lines
            agent_forwarding=False,
            x11_forwarding=False,
            allow_scp=False,
            keepalive_interval=KEEPALIVE_INTERVAL,
            keepalive_count_max=3,
            login_timeout=self.options.login_grace,
            window=WINDOW,
        )
        self._watchdog = asyncio.create_task(self._idle_watch())

    async def _warm_up(self) -> None:
        """Draw the encounter once, headless, before any fork: what Textual builds and
        caches on a first run (widgets imported on use, parsed styles) is then shared by
        every app instead of made again in each (measured: about 3 MB less per app)."""
        assert self.preloaded is not None
        from tracker.ui.app import TrackerApp

        app = TrackerApp(self.options.saves, self.preloaded.path, True, self.preloaded.live)
        try:
            async with app.run_test(size=(80, 24)) as pilot:
                await pilot.pause()
        except Exception as exc:  # only an optimisation: the apps still run without it
            log.warning("warm-up of the app failed (%s: %s); continuing", type(exc).__name__, exc)
        gc.collect()
        release_free_memory()
        gc.freeze()

    async def _keep_current(self) -> None:
        preloaded = self.preloaded
        assert preloaded is not None
        while True:
            await asyncio.sleep(1.0)
            try:
                if await asyncio.to_thread(preloaded.changed):
                    await asyncio.to_thread(preloaded.refresh)
            except (OSError, TrackerError) as exc:
                log.warning("%s: could not follow the file: %s", preloaded.path, exc)

    def runner(self, role: str, combatants: tuple[str, ...] = ()) -> "Callable[[list[str]], int] | None":
        """What a forked child runs (None: exec a new program)."""
        if self.options.spawn != "fork":
            return None
        if self.preloaded is not None:
            return self.preloaded.runner(self.options, role, combatants)
        return run_app

    def host_viewer(self, role: str, env: dict[str, str]) -> "Callable[[int], Any] | None":
        """Where a viewer's app runs when viewers share processes: a function given the
        pty slave (None: a process of its own, as for the GM and players)."""
        hosts, preloaded = self.viewer_hosts, self.preloaded
        if role != VIEWER or hosts is None or preloaded is None:
            return None
        if not hosts.has_room(env) and preloaded.busy.locked():
            return None  # a new process forked now would copy a half-updated fight
        saves = self.options.saves
        return lambda slave: hosts.place(slave, env, lambda: preloaded.viewer_app(saves))

    @property
    def port(self) -> int:
        assert self._listener is not None
        return self._listener.sockets[0].getsockname()[1]

    # ---------------------------------------------------------- connections
    def new_connection(self, conn: asyncssh.SSHServerConnection) -> Connection | None:
        """A connection still logging in, or None (dropped) if too many are (MaxStartups)."""
        peer = conn.get_extra_info("peername") or ("?", 0)
        self._ident += 1
        record = Connection(self._ident, f"{peer[0]}:{peer[1]}", conn=conn)
        if self._closing or len(self.pending) >= self.options.max_startups:
            if not self._closing:
                log.warning("dropped %s: %d connections are still logging in (--max-startups)", record.who(), len(self.pending))
            asyncio.get_running_loop().call_soon(conn.abort)
            return None
        self.pending[record.ident] = record
        return record

    def seat_free(self, record: Connection) -> bool:
        """Whether a seat is free now; if not, disconnect with the reason."""
        assert record.conn is not None
        if self._closing or len(self.connections) >= self.options.max_connections:
            self.pending.pop(record.ident, None)
            self._refuse_full(record)
            return False
        return True

    def _refuse_full(self, record: Connection) -> None:
        assert record.conn is not None
        if self._closing:
            record.conn.disconnect(asyncssh.DISC_BY_APPLICATION, "the table is closing")
            return
        log.warning("refused %s: the table is full (%d connections)", record.who(), len(self.connections))
        record.conn.disconnect(asyncssh.DISC_TOO_MANY_CONNECTIONS, f"the table is full ({self.options.max_connections} connections); try again later")

    def admit(self, record: Connection) -> bool:
        """Seat an authenticated connection, or disconnect it with the reason (the
        client's ssh prints it)."""
        assert record.conn is not None
        self.pending.pop(record.ident, None)
        if self._closing:
            record.conn.disconnect(asyncssh.DISC_BY_APPLICATION, "the table is closing")
            return False
        if len(self.connections) >= self.options.max_connections:
            log.warning("refused %s: the table is full (%d connections)", record.who(), len(self.connections))
            record.conn.disconnect(asyncssh.DISC_TOO_MANY_CONNECTIONS, f"the table is full ({self.options.max_connections} connections); try again later")
            return False
        self.connections[record.ident] = record
        return True

    def lost_connection(self, record: Connection, exc: Exception | None) -> None:
        if self.pending.pop(record.ident, None) is not None:
            if exc is not None:
                log.info("gone before logging in: %s (%s)", record.who(), exc)
            return
        if self.connections.pop(record.ident, None) is None:
            return
        length = time.monotonic() - record.since
        if record.role is not None:
            log.info("disconnect %s after %.0fs%s", record.who(), length, f" ({exc})" if exc else "")
        if record.session is not None:
            record.session.hang_up()

    def track(self, task: asyncio.Task[Any]) -> None:
        self._child_tasks.add(task)
        task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self._child_tasks.discard(task)
        # Retrieve the outcome here, so a failure is logged as one line, never as
        # "Task exception was never retrieved" at exit.
        if not task.cancelled() and task.exception() is not None:
            exc = task.exception()
            log.error("session task failed: %s: %s", type(exc).__name__, exc)

    async def _idle_watch(self) -> None:
        timeout = self.options.idle_timeout
        period = max(0.05, min(30.0, timeout / 4))
        while True:
            await asyncio.sleep(period)
            now = time.monotonic()
            for record in list(self.connections.values()):
                if record.conn is not None and now - record.last_activity > timeout:
                    log.info("idle %s: nothing for %.0fs, closing", record.who(), now - record.last_activity)
                    record.conn.disconnect(asyncssh.DISC_BY_APPLICATION, f"idle for {timeout:g}s")
                    self.lost_connection(record, None)

    # ---------------------------------------------------------- shutdown
    async def close(self) -> None:
        self._closing = True
        if self._listener is not None:
            self._listener.close()
        if self._watchdog is not None:
            self._watchdog.cancel()
        if self._keeper is not None:
            self._keeper.cancel()
        children = list(self.children)
        log.info("shutting down: %d connection(s), %d app(s)", len(self.connections), len(children))
        await asyncio.gather(*(child.stop() for child in children), return_exceptions=True)
        if self.viewer_hosts is not None:
            await self.viewer_hosts.close()
        for record in [*self.connections.values(), *self.pending.values()]:
            if record.conn is not None:
                record.conn.disconnect(asyncssh.DISC_BY_APPLICATION, "the table is closing")
            self.lost_connection(record, None)
        if self._child_tasks:
            await asyncio.wait(list(self._child_tasks), timeout=5.0)
        if self._listener is not None:
            # Shutting down: do not hang on a listener that will not say it closed.
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._listener.wait_closed(), timeout=5.0)


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
        if self.record is not None:
            self.record.user = username
            # A full table says so now, while the client still shows the reason (after
            # authentication it would only see the connection close); the seat itself
            # is taken when authentication succeeds (auth_completed).
            if not self.table.seat_free(self.record):
                self.record = None
        return True  # always authenticate: the key decides the role

    # Public keys: GM or viewer by the authorized_keys files.
    def public_key_auth_supported(self) -> bool:
        return True

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        record = self.record
        if record is None:
            return False
        addr = record.peer.rsplit(":", 1)[0]
        role = self.table.keyring.role_for(key, addr, addr)
        for problem in self.table.keyring.new_problems():
            log.error("%s", problem)  # a keys file made unsafe (or unreadable) while running
        if role is None:
            log.info("refused key %s for %s@%s", self.table.keyring.describe(key), username, record.peer)
            return False
        # Several keys may be offered; the last one accepted is the one that signed.
        record.role, record.key = role, self.table.keyring.describe(key)
        record.combatants = self.table.keyring.combatants(key, addr, addr) if role == PLAYER else ()
        return True

    # Keyboard-interactive with no questions: a key-less player, only with --open-viewers.
    def kbdint_auth_supported(self) -> bool:
        return self.table.keyring.open_viewers

    def get_kbdint_challenge(self, username: str, lang: str, submethods: str) -> bool:
        if not self.table.keyring.open_viewers or self.record is None:
            return False
        self.record.role, self.record.key = VIEWER, ""
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
    """The SSH channel <-> the app on its pty."""

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

    def connection_made(self, chan: asyncssh.SSHServerChannel[bytes]) -> None:
        self.chan = chan

    def pty_requested(self, term_type: str, term_size: tuple[int, int, int, int], term_modes: Any) -> bool:
        self.has_pty = True
        self.term = term_type
        if term_size[0] > 0 and term_size[1] > 0:
            self.size = tuple(term_size)  # type: ignore[assignment]
        return True

    def shell_requested(self) -> bool:
        return True

    def exec_requested(self, command: str) -> bool:
        # Accepted only to be answered: a bare refusal leaves OpenSSH saying "exec request
        # failed" with no hint, and some clients waiting.
        log.info("refused command %r from %s", visible(command)[:200], self.record.who())
        self.refusal = NO_COMMAND
        return True

    def subsystem_requested(self, subsystem: str) -> bool:
        log.info("refused subsystem %r from %s", visible(subsystem)[:200], self.record.who())
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
        role = self.record.role or VIEWER
        client_env = {str(k): str(v) for k, v in (chan.get_environment() or {}).items()}
        options = self.table.options
        argv = child_argv(options, role, self.record.combatants)
        runner = self.table.runner(role, self.record.combatants)
        env = child_env(options, role, self.term, client_env, self.record.user)
        hosted = self.table.host_viewer(role, env)
        child = PtyChild(
            argv[3:] if runner else argv,  # forked: the arguments after `python -m tracker`
            env,
            self.size,
            self._output,
            cwd=str(options.saves),
            in_process=runner,
            on_input_room=self._input_room,
            attach=hosted,
        )
        self.child = child
        try:
            await child.start()
        except OSError as exc:
            log.error("cannot start the app for %s: %s", self.record.who(), exc)
            with contextlib.suppress(OSError):
                chan.write_stderr(f"tracker: the app could not start: {exc}\r\n".encode())
                chan.exit(1)
            return
        self.table.children.add(child)
        log.info("app pid %d for %s%s", child.pid, self.record.who(), " (a viewers' process)" if hosted else "")
        try:
            code = await child.wait()
        finally:
            await child.stop()  # reap the group even if the leader left something behind
            self.table.children.discard(child)
        if not self._ended:
            self._ended = True
            with contextlib.suppress(OSError):  # the client has already gone
                chan.exit(code if code >= 0 else 128 - code)

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
        if width > 0 and height > 0:
            self.size = (width, height, pixwidth, pixheight)
            if self.child is not None:
                self.child.resize(width, height, pixwidth, pixheight)

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
        await table.start()
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
    target = f"encounter {options.encounter}" if options.encounter else f"saves {options.saves}"
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
