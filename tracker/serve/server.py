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
import gc
import logging
import os
import signal
import socket
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import asyncssh

import tracker
from tracker import paths
from tracker.engine import TrackerError
from tracker.engine.bounds import MAX_SEGMENT
from tracker.roles import campaign_characters
from tracker.serve import control
from tracker.serve.admission import REFUSAL_GRACE, LoggingIn, Penalties
from tracker.serve.campaign import FileWatch, ServedCampaign
from tracker.serve.keys import GM, PLAYER, VIEWER, KeyRing, load_or_create_host_key
from tracker.serve.options import ServeOptions
from tracker.serve.preload import Preloaded, preload, release_free_memory, reload_frozen
from tracker.serve.pty_bridge import PtyChild
from tracker.serve.seat import SEAT_FD, SeatInfo
from tracker.text import printable, quoted

log = logging.getLogger("tracker.serve")

PASS_ENV_PREFIXES = ("LC_",)
PASS_ENV = ("LANG", "COLORTERM", "NO_COLOR")
KEEPALIVE_INTERVAL = 30.0
WINDOW = 256 * 1024  # the most a client may send before the server reads (flow control)
MAX_COLUMNS, MAX_ROWS = 500, 200
USER_SHOWN = 64  # characters of the SSH user name a client typed shown in the log
RESIZE_EVERY = 0.1  # seconds between two sizes passed to an app
NO_PTY = b"tracker: this is a full-screen terminal app; connect with a terminal: ssh -t (not -T), no command\r\n"
NO_COMMAND = b"tracker: commands are not run here; connect with a terminal and no command: ssh -t HOST\r\n"


@dataclass
class Loaded:
    """A fight read to become the table's (`TableServer._read`), not yet adopted."""

    name: str
    campaign: str  # the campaign file its setup names ("" for a fight of its own)
    preloaded: Preloaded | None = None  # with fork: loaded once, inherited by every app


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


@dataclass
class Connection:
    """One client: who, from where, as what, and its app."""

    ident: int
    peer: str
    source: str = ""  # the address, for --per-source-startups
    user: str = ""  # the SSH user name the client typed: logged, never trusted
    role: str | None = None
    key: str = ""
    name: str = ""  # who, from the key's line (keys.KeyRing.identity)
    combatants: tuple[str, ...] = ()  # a player's, from the players' keys file
    pcs: tuple[str, ...] = ()  # a player's campaign characters by id (`pc=`), from the same line
    refusal: str = ""  # refused before logging in: said once the client can hear it
    since: float = field(default_factory=time.monotonic)
    last_activity: float = field(default_factory=time.monotonic)
    conn: asyncssh.SSHServerConnection | None = None
    session: "TableSession | None" = None

    def who(self) -> str:
        user = quoted(self.user, USER_SHOWN)  # the client's choice: quoted, so it cannot pose as the words after it
        if self.role is None:
            return f"#{self.ident} {user}@{self.peer} unauthenticated"
        role = f"player of {','.join(self.combatants + self.pcs)}" if self.combatants or self.pcs else self.role
        return f"#{self.ident} {user}@{self.peer} {role} " + (f"key {self.key}" if self.key else "without a key")


class TableServer:
    """Owns the listening socket, the connections, their children and the table's fight."""

    def __init__(self, options: ServeOptions, keyring: KeyRing) -> None:
        self.options = options
        self.keyring = keyring
        self.admission = options.admission
        self.connections: dict[int, Connection] = {}  # authenticated: the seats
        self.pending: dict[int, Connection] = {}  # still logging in (MaxStartups)
        self.refusing: dict[int, Connection] = {}  # refused, waiting to be told why
        self.penalties = Penalties()  # addresses whose connections did not log in
        self.children: set[PtyChild] = set()
        self.fight: Path | None = options.encounter
        self.fight_name = options.encounter.stem if options.encounter else ""
        self._moving = asyncio.Lock()
        self._ident = 0
        self._listener: asyncssh.SSHAcceptor | None = None
        self._closing = False
        self._watchdog: asyncio.Task[None] | None = None
        self._child_tasks: set[asyncio.Task[Any]] = set()
        self.preloaded: Preloaded | None = None
        self._keeper: asyncio.Task[None] | None = None
        self.viewer_hosts: Any = None  # viewer_host.ViewerHosts, when viewers share processes
        # The GM's replay (tracker.ui.screens.replay): the segment it shows, None when the
        # table is at now, and whose it is (it ends when that GM's app does).
        self.replaying: int | None = None
        self.replayed_by: Connection | None = None
        self.campaign: ServedCampaign | None = None  # with --campaign: the campaign as last read
        self._watch: FileWatch | None = None
        self._fight_watch: FileWatch | None = None  # the table's fight, for the viewers' processes
        self._reading: asyncio.Task[None] | None = None  # following the campaign's file
        self._read_again = False

    async def start(self) -> None:
        if self.options.campaign is not None:  # first: a campaign that does not load stops the server at once, naming it
            self.campaign = await asyncio.to_thread(ServedCampaign.open, self.options.campaign)
            if self.campaign.table:
                self.fight = self.fight_path(str(self.options.saves / self.campaign.table))
                self.fight_name = self.fight.stem if self.fight is not None else ""
                if self.fight is None:
                    log.warning("the campaign %s names the fight %s, which is not a fight file in %s: the table waits", printable(self.campaign.name), printable(self.campaign.table), self.options.saves)
        host_key_path = self.options.host_key
        assert host_key_path is not None
        key, created = load_or_create_host_key(host_key_path)
        log.info("host key %s %s: %s", host_key_path, "created" if created else "loaded", key.get_fingerprint("sha256"))
        if self.options.spawn == "fork":
            preload()
            if self.options.viewers_per_process > 1:
                from tracker.serve.viewer_host import ViewerHosts

                self.viewer_hosts = ViewerHosts(self.options.viewers_per_process, str(self.options.saves))
        if self.fight is not None:
            started = time.monotonic()
            try:
                await self._load(self.fight)
            except TrackerError as exc:  # each app will say it on its screen
                log.warning("%s: not loaded: %s", self.fight, exc)
            else:
                if self.preloaded is not None:
                    await self._warm_up()
                    log.info("encounter %s loaded in %.1fs, shared by every app", self.fight, time.monotonic() - started)
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
            login_timeout=self.options.login_grace + 1.0,  # a backstop: _grace_over closes first
            window=WINDOW,
        )
        self._watchdog = asyncio.create_task(self._idle_watch())
        if self.campaign is not None:
            self._watch = FileWatch(self.campaign.path, self._campaign_changed)
            how = self._watch.start()
            log.info("following the campaign %s (%s, %s)", printable(self.campaign.name), self.campaign.path, how)

    async def _warm_up(self) -> None:
        """Draw the fight once, headless, before any fork: what Textual builds and caches
        on a first run (widgets imported on use, parsed styles) is then shared by every
        app instead of made again in each (measured: about 3 MB less per app)."""
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

    async def _load(self, path: Path) -> None:
        """Load `path` as the table's fight (raises TrackerError): preloaded with fork,
        else only read for its name."""
        self._adopt(await self._read(path))

    async def _read(self, path: Path) -> "Loaded":
        """Read `path` (raises TrackerError); nothing changes until `_adopt`."""
        if self.options.spawn == "fork":
            preloaded = await asyncio.to_thread(Preloaded, path, self.options.saves)
            setup = preloaded.live.encounter.setup
            return Loaded(setup.name, setup.campaign, preloaded)
        from tracker.persistence.store import EncounterFile

        loaded = await asyncio.to_thread(EncounterFile(path).load)
        setup = loaded.encounter.setup
        return Loaded(setup.name, setup.campaign)

    def _adopt(self, loaded: "Loaded") -> None:
        self.fight_name = loaded.name
        if loaded.preloaded is not None:
            old, self.preloaded = self.preloaded, loaded.preloaded
            if old is not None:
                del old
                reload_frozen()
            if self._keeper is None:
                self._keeper = asyncio.create_task(self._keep_current())
            if self.viewer_hosts is not None:
                self._watch_fight(loaded.preloaded.path)

    def _watch_fight(self, path: Path) -> None:
        """The viewers' processes hear of each write to the table's fight as it lands
        (inotify on the saves folder), so their apps read it at once instead of at their
        follower's next probe (the GM's key to the viewers' screens has no poll on it)."""
        if self._fight_watch is not None:
            if self._fight_watch.path == path:
                return
            self._fight_watch.stop()
        self._fight_watch = FileWatch(path, self._fight_written)
        self._fight_watch.start()

    def _fight_written(self) -> None:
        if self.viewer_hosts is not None:
            self.viewer_hosts.nudge_all()

    async def _keep_current(self) -> None:
        while True:
            await asyncio.sleep(1.0)
            preloaded = self.preloaded
            if preloaded is None:
                continue
            try:
                if await asyncio.to_thread(preloaded.changed):
                    await asyncio.to_thread(preloaded.refresh)
            except (OSError, TrackerError) as exc:
                log.warning("%s: could not follow the file: %s", preloaded.path, exc)

    # ---------------------------------------------------------- the table's fight
    def fight_path(self, text: object) -> Path | None:
        """The fight a GM's app names, if it is one of the saves folder's, else None."""
        if not isinstance(text, str) or not os.path.isabs(text):
            return None
        try:
            path = Path(text).resolve(strict=True)
        except (OSError, RuntimeError):
            return None
        if path.parent != self.options.saves or path.suffix != paths.SUFFIX or not path.is_file():
            return None
        return path

    async def move(self, text: object, by: Connection) -> None:
        """A GM's app opened a fight: the table follows (players and viewers too). At a
        campaign's table, only to a fight of that campaign: else the GM is told why."""
        path = self.fight_path(text)
        if path is None:
            log.warning("ignored a move of the table by %s: not a fight in %s: %s", by.who(), self.options.saves, printable(str(text))[:200])
            return
        async with self._moving:  # one move at a time, in the order they came
            if by.session is not None:
                by.session.on = path
            if path == self.fight:
                return
            try:
                loaded = await self._read(path)
            except TrackerError as exc:
                log.warning("the table stays where it is: %s cannot be loaded: %s", path, exc)
                self._tell(by, f"{self.stays()}: {path.name} cannot be opened: {exc}")
                return
            if self.campaign is not None:
                # The GM's app nudges: the campaign is read now, whatever the watch has seen.
                await asyncio.to_thread(self.campaign.read)
                self.campaign.moved_on()
                refusal = self.campaign.refusal(path, loaded.campaign)
                if refusal:
                    log.warning("%s: %s: %s", by.who(), printable(self.stays()), refusal)
                    self._tell(by, f"{self.stays()}: {refusal}")
                    return
            self._adopt(loaded)
            self.fight = path
            self.replaying, self.replayed_by = None, None  # a new fight starts at now
            log.info("%s moved the table to %s (%s)", by.who(), printable(self.fight_name), path)
            self._announce(f"The GM moved the table to {self.fight_name}")

    def stays(self) -> str:
        """That the table does not move, in words, for what the GM is told."""
        return f"The table stays on {self.fight_name}" if self.fight is not None else "The table stays without a fight"

    def _announce(self, notice: str) -> None:
        """Players and viewers follow the table: their apps start again on its fight."""
        for record in list(self.connections.values()):
            if record.role != GM and record.session is not None:
                record.session.restart(notice)

    def _tell(self, record: Connection, text: str) -> None:
        """A line for a GM's app, shown there (tracker.serve.seat, `listen`)."""
        if record.session is not None:
            record.session.tell(text)

    # ---------------------------------------------------------- a campaign's table
    def _campaign_changed(self) -> None:
        """The campaign's file may have changed: read it (once at a time; a change seen
        meanwhile reads it again after)."""
        if self._reading is not None and not self._reading.done():
            self._read_again = True
            return
        self._reading = asyncio.get_running_loop().create_task(self._follow_campaign())
        self.track(self._reading)

    async def _follow_campaign(self) -> None:
        campaign = self.campaign
        assert campaign is not None
        self._read_again = True
        while self._read_again and not self._closing:
            self._read_again = False
            async with self._moving:
                if not await asyncio.to_thread(campaign.read):
                    continue
                file = campaign.moved_on()
                if file is None:
                    continue
                await self._campaign_moved(campaign, file)

    async def _campaign_moved(self, campaign: ServedCampaign, file: str) -> None:
        """The campaign's fight is another (a fight started, or its start taken back): the
        table goes there, and every seat is told (a GM's app stays where it is)."""
        if not file:
            if self.fight is None:
                return
            log.info("the campaign %s has no fight any more: the table waits for the next", printable(campaign.name))
            self.fight, self.fight_name = None, ""
            self._announce(f"The campaign {campaign.name} has no fight now: the table waits for the GM's next")
            return
        path = self.fight_path(str(self.options.saves / file))
        if path is None or path == self.fight:
            if path is None:
                log.warning("the campaign %s names the fight %s, which is not a fight file in %s: the table stays", printable(campaign.name), printable(file), self.options.saves)
            return
        try:
            loaded = await self._read(path)
        except TrackerError as exc:
            log.warning("the campaign's fight %s cannot be loaded; the table stays: %s", path, exc)
            return
        refusal = campaign.refusal(path, loaded.campaign)
        if refusal:
            log.warning("%s: %s", printable(self.stays()), refusal)
            return
        self._adopt(loaded)
        self.fight = path
        log.info("the campaign %s moved the table to %s (%s)", printable(campaign.name), printable(self.fight_name), path)
        self._announce(f"The GM moved the table to {self.fight_name}")
        for record in list(self.connections.values()):
            if record.role == GM and record.session is not None and record.session.on != path:
                self._tell(record, f"The table moved to {self.fight_name}, the campaign's fight now: Esc, then open {path.name} to join it")

    def replay(self, segment: object, by: Connection) -> None:
        """A GM's replay shows `segment` (None: back to now): every player and viewer
        follows it, each app on its own copy of the fight (only the number travels)."""
        if segment is not None and (isinstance(segment, bool) or not isinstance(segment, int) or not 0 <= segment <= MAX_SEGMENT):
            log.warning("ignored a replay segment from %s: %s", by.who(), printable(str(segment))[:40])
            return
        if segment == self.replaying and (segment is None or by is self.replayed_by):
            return
        if segment is None and self.replayed_by is not None and by is not self.replayed_by:
            return  # another GM's replay ended; the one the table follows goes on
        if (self.replaying is None) != (segment is None):
            log.info("%s %s", by.who(), "replays the fight; players and viewers follow" if segment is not None else "ended the replay; the table is back to now")
        self.replaying, self.replayed_by = segment, (by if segment is not None else None)
        for record in list(self.connections.values()):
            if record.role != GM and record.session is not None:
                record.session.tell_replay(segment)
        if self.viewer_hosts is not None:
            self.viewer_hosts.tell_all({"op": "replay", "segment": segment})

    def seat_info(self, record: Connection, notice: str = "") -> SeatInfo:
        lines = [notice] if notice else []
        name, pcs = "", tuple[str, ...]()
        if self.campaign is not None:
            name = self.campaign.name
            if record.role == PLAYER:
                characters = campaign_characters(self.campaign.campaign, record.combatants, record.pcs)
                pcs = characters.pcs
                lines += [f"Your character {gone}" for gone in characters.gone]
                if characters.unknown:
                    log.warning("%s: the key names %s, no character of the campaign %s", record.who(), printable(", ".join(characters.unknown))[:200], printable(name))
            if self.fight is None:
                lines.append(f"This table follows the campaign {name}: it goes to the campaign's fight as soon as the GM starts one")
        return SeatInfo(
            record.role or VIEWER,
            record.name,
            record.combatants,
            str(self.fight) if self.fight is not None else "",
            self.fight_name,
            "\n".join(lines),
            str(self.options.saves),
            replaying=self.replaying if record.role != GM else None,
            campaign=name,
            pcs=pcs,
        )

    def runner(self, info: SeatInfo, sock: socket.socket | None) -> "Callable[[], int] | None":
        """What a forked child runs: the seat's app, started directly (None: exec a new
        program, `python -m tracker.serve.seat`)."""
        if self.options.spawn != "fork":
            return None
        from tracker.serve import seat

        preloaded = self.preloaded
        live = preloaded.usable(Path(info.fight)) if preloaded is not None and info.fight else None
        return lambda: seat.run(info, live, sock)

    def host_viewer(self, info: SeatInfo, env: dict[str, str]) -> "Callable[[int], Any] | None":
        """Where a viewer's app runs when viewers share processes: a function given the
        pty slave (None: a process of its own, as for the GM and players)."""
        hosts, preloaded = self.viewer_hosts, self.preloaded
        if info.role != VIEWER or hosts is None or preloaded is None or not info.fight or Path(info.fight) != preloaded.path:
            return None
        fight = str(preloaded.path)
        if not hosts.has_room(env, fight) and preloaded.busy.locked():
            return None  # a new process forked now would copy a half-updated fight
        return lambda slave: hosts.place(slave, env, preloaded.viewer_app, fight, info.notice, self.replaying)

    @property
    def port(self) -> int:
        assert self._listener is not None
        return int(self._listener.sockets[0].getsockname()[1])

    # ---------------------------------------------------------- connections
    def new_connection(self, conn: asyncssh.SSHServerConnection) -> Connection | None:
        """A connection to log in, one refused (told why once it can hear it), or None
        (closed at once)."""
        peer = conn.get_extra_info("peername") or ("?", 0)
        self._ident += 1
        record = Connection(self._ident, f"{peer[0]}:{peer[1]}", str(peer[0]), conn=conn)
        if self._closing:
            asyncio.get_running_loop().call_soon(conn.abort)
            return None
        now = time.monotonic()
        entry = self.admission.entry(record.source, (self._logging_in(r) for r in self.pending.values()), self.penalties, now)
        refusal = entry.refusal
        if entry.room is not None:
            self._make_room(self.pending[entry.room.ident], entry.why)
        if refusal:
            log.warning("refused %s: %s", record.who(), refusal)
            if len(self.refusing) >= self.admission.startups.full:
                asyncio.get_running_loop().call_soon(conn.abort)  # no honest table: untold
                return None
            record.refusal = refusal
            self.refusing[record.ident] = record
            asyncio.get_running_loop().call_later(REFUSAL_GRACE, self._give_up, record)
            return record
        self.pending[record.ident] = record
        asyncio.get_running_loop().call_later(self.options.login_grace, self._grace_over, record)
        return record

    @staticmethod
    def _logging_in(record: Connection) -> LoggingIn:
        spoke = record.conn is not None and record.conn.get_extra_info("client_version") is not None
        return LoggingIn(record.ident, record.source, record.since, spoke, record.role is not None)

    def _make_room(self, record: Connection, why: str) -> None:
        """Close a connection still logging in so a newcomer takes its place; its address
        earns a penalty (docs/decisions/0025-admission.md)."""
        self.pending.pop(record.ident, None)
        self.penalties.add(record.source, time.monotonic())
        log.info("closed %s to make room: %s", record.who(), why)
        if record.conn is not None:
            if self._logging_in(record).spoke:
                record.conn.disconnect(asyncssh.DISC_TOO_MANY_CONNECTIONS, f"closed to make room for others ({why}); try again")
            else:
                record.conn.abort()

    def _grace_over(self, record: Connection) -> None:
        """Not logged in within --login-grace: closed, and its address earns a penalty."""
        if self.pending.pop(record.ident, None) is None:
            return
        self.penalties.add(record.source, time.monotonic())
        log.info("closed %s: not logged in within %gs", record.who(), self.options.login_grace)
        if record.conn is not None:
            record.conn.disconnect(asyncssh.DISC_CONNECTION_LOST, f"not logged in within {self.options.login_grace:g}s")

    def _give_up(self, record: Connection) -> None:
        """A refused client that never got as far as hearing why."""
        if self.refusing.pop(record.ident, None) is not None and record.conn is not None:
            record.conn.abort()

    def tell_refusal(self, record: Connection) -> None:
        assert record.conn is not None
        self.refusing.pop(record.ident, None)
        record.conn.disconnect(asyncssh.DISC_TOO_MANY_CONNECTIONS, record.refusal)

    def seat_refusal(self, role: str) -> str:
        """Why an authenticated client with `role` gets no seat now ("" if it does)."""
        if self._closing:
            return "the table is closing"
        gms = sum(1 for r in self.connections.values() if r.role == GM)
        return self.admission.seat_refusal(role == GM, len(self.connections), gms)

    def refuse_seat(self, record: Connection, reason: str) -> None:
        assert record.conn is not None
        self.pending.pop(record.ident, None)
        log.warning("refused %s: %s", record.who(), reason)
        record.conn.disconnect(asyncssh.DISC_TOO_MANY_CONNECTIONS, reason)

    def admit(self, record: Connection) -> bool:
        """Seat an authenticated connection, or disconnect it with the reason."""
        reason = self.seat_refusal(record.role or VIEWER)
        if reason:
            self.refuse_seat(record, reason)
            return False
        self.pending.pop(record.ident, None)
        self.connections[record.ident] = record
        return True

    def lost_connection(self, record: Connection, exc: Exception | None) -> None:
        self.refusing.pop(record.ident, None)
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
        if self._watch is not None:
            self._watch.stop()
        if self._fight_watch is not None:
            self._fight_watch.stop()
        children = list(self.children)
        log.info("shutting down: %d connection(s), %d app(s)", len(self.connections), len(children))
        await asyncio.gather(*(child.stop() for child in children), return_exceptions=True)
        if self.viewer_hosts is not None:
            await self.viewer_hosts.close()
        for record in [*self.connections.values(), *self.pending.values(), *self.refusing.values()]:
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
