"""The table: the fight every seat shares and the connections sitting at it
(`TableServer`), one connection (`Connection`), a fight read to become the table's
(`Loaded`). The table owns the listening socket, admits connections and seats them,
follows the fight (and with --campaign, the campaign's file), moves with the GM, carries
the GM's replay to the others, and closes everything on shutdown. What happens on one
connection's SSH session is tracker.serve.channel's; its log-in, tracker.serve.ssh_server's.

Decisions: docs/decisions/0003-ssh-server.md (one fight for the table, moved by the GM),
docs/decisions/0025-admission.md and docs/decisions/0037-serve-client-limits.md
(admission, seats, idle), docs/decisions/0036-serve-processes.md (the fight preloaded and
drawn once before forking; viewers sharing processes), docs/decisions/0038-serve-logs-signals.md
(what is logged), docs/decisions/0050-serve-campaign.md (a campaign's table),
docs/decisions/0054-replay.md (the GM's replay at the table),
docs/decisions/0055-shared-views.md (the viewers' processes nudged on each write)
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import socket
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Protocol

import asyncssh

from tracker.persistence import paths
from tracker.engine import TrackerError
from tracker.engine.bounds import MAX_SEGMENT
from tracker.reading.roles import campaign_characters
from tracker.serve.admission import REFUSAL_GRACE, LoggingIn, Penalties
from tracker.serve.campaign import FileWatch, ServedCampaign
from tracker.serve.keys import GM, PLAYER, VIEWER, KeyRing, load_or_create_host_key
from tracker.serve.options import ServeOptions
from tracker.serve.preload import Preloaded, preload, release_free_memory, reload_frozen
from tracker.serve.pty_bridge import PtyChild
from tracker.serve.seat import SeatInfo
from tracker.engine.text import printable, quoted

log = logging.getLogger("tracker.serve")

KEEPALIVE_INTERVAL = 30.0
WINDOW = 256 * 1024  # the most a client may send before the server reads (flow control)
USER_SHOWN = 64  # characters of the SSH user name a client typed shown in the log


@dataclass
class Loaded:
    """A fight read to become the table's (`TableServer._read`), not yet adopted."""

    name: str
    campaign: str  # the campaign file its setup names ("" for a fight of its own)
    preloaded: Preloaded | None = None  # with fork: loaded once, inherited by every app


class SeatSession(Protocol):
    """What the table asks of a seated connection's SSH session (tracker.serve.channel's
    TableSession), said here so that the table does not import the channel that uses it."""

    on: Path | None  # a GM's app: the fight it is on

    def restart(self, notice: str) -> None: ...

    def tell(self, text: str) -> None: ...

    def tell_replay(self, segment: int | None) -> None: ...

    def hang_up(self) -> None: ...


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
    session: SeatSession | None = None

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
        self.viewer_hosts: Any = None  # viewer_processes.ViewerHosts, when viewers share processes
        # The GM's replay (tracker.ui.screens.replay): the segment it shows, None when the
        # table is at now, and whose it is (it ends when that GM's app does).
        self.replaying: int | None = None
        self.replayed_by: Connection | None = None
        self.campaign: ServedCampaign | None = None  # with --campaign: the campaign as last read
        self._watch: FileWatch | None = None
        self._fight_watch: FileWatch | None = None  # the table's fight, for the viewers' processes
        self._reading: asyncio.Task[None] | None = None  # following the campaign's file
        self._read_again = False

    async def start(self, ssh_server: Callable[[], asyncssh.SSHServer]) -> None:
        """Load what the table starts with, then listen: each connection gets its own
        `ssh_server()` (tracker.serve.ssh_server's, given by tracker.serve.server)."""
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
                from tracker.serve.viewer_processes import ViewerHosts

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
            ssh_server,
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
        self.replaying, self.replayed_by = None, None  # a new fight starts at now, as on a GM's move
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
        if segment is not None and by.session is not None and by.session.on != self.fight:
            return  # a GM who stayed on another fight replays that one, not the table's
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

    @property
    def tasks_running(self) -> int:
        """The seats' tasks (a move of the table, an app stopped) not finished yet."""
        return len(self._child_tasks)

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

