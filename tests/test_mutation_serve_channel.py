"""Direct tests of tracker.serve.channel: one seat's SSH session (`TableSession`), its
callbacks called as asyncssh calls them, with a stand-in for asyncssh's channel (what it
was sent, on which stream, and the exit status). What the module docstring and the
decisions promise: a session without a pty, a command or a subsystem is answered with
what to do instead, exit status 1, and the connection's slot is free again (0037); the
seat's app runs on a pty of the client's size (clamped to 500x200, resizes at most
every `RESIZE_EVERY` seconds, the last one always arriving), with the environment of
decision 0036 and no identity in it; keystrokes are flow-controlled (0037); the GM's
app, and only the GM's, moves the table and replays on a line it alone holds (0003,
0054); the others hear the replay on their own line; the table moving starts the app
again, saying why; the app's exit status is the session's (a signal as a shell gives
it, 128 + the signal).

The apps run here are small programs of the test's (`PLAY`), started as the channel
starts the seat's: `--spawn exec` runs `options.python -m tracker.serve.seat`, so
`python` is a script that plays the seat; fork and a viewers' process are the table's
`runner` and `host_viewer`, given stand-ins of the same."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import socket
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

import tracker
from tracker.serve.channel import (
    MAX_COLUMNS,
    MAX_ROWS,
    NO_COMMAND,
    NO_PTY,
    RESIZE_EVERY,
    TableSession,
    child_env,
    clamp_size,
    seat_argv,
)
from tracker.serve.keys import GM, PLAYER, VIEWER, KeyRing
from tracker.serve.options import ServeOptions
from tracker.serve.seat import SEAT_FD
from tracker.serve.table import Connection, TableServer
from tests.helpers import until
from tests.test_mutation_serve_keys import config  # noqa: F401 (a fixture: a config folder of its own)
from tests.serve_log import log, said  # noqa: F401 (log: a fixture)

SOON = 10.0  # seconds: what is waited for takes milliseconds; a broken one fails in this time


@pytest.fixture(autouse=True)
def own_config(config: Path) -> Path:
    """Every test with a config folder of its own (the keys tests' fixture)."""
    return config


class Chan:
    """asyncssh's channel as the session uses it: what was written where, the exit
    statuses, the reading paused and resumed, and the client's environment."""

    def __init__(self, env: dict[Any, Any] | None = None, broken: type[BaseException] | None = None) -> None:
        self.out = bytearray()
        self.err = bytearray()
        self.exits: list[int] = []
        self.paused = 0
        self.resumed = 0
        self.env = env
        self.broken = broken  # raised by every write: the client has gone

    def write(self, data: bytes) -> None:
        if self.broken is not None:
            raise self.broken()
        self.out.extend(data)

    def write_stderr(self, data: bytes) -> None:
        if self.broken is not None:
            raise self.broken()
        self.err.extend(data)

    def exit(self, status: int) -> None:
        if self.broken is not None:
            raise self.broken()
        self.exits.append(status)

    def get_environment(self) -> dict[Any, Any] | None:
        return self.env

    def pause_reading(self) -> None:
        self.paused += 1

    def resume_reading(self) -> None:
        if self.broken is not None:
            raise self.broken()
        self.resumed += 1

    def lines(self, word: str) -> list[str]:
        """The app's lines starting with `word` (the rest of each)."""
        text = bytes(self.out).decode(errors="replace")
        return [line[len(word) + 1:] for line in text.split("\r\n") if line.startswith(word + " ")]


class Owner:
    """The connection a session belongs to (ssh_server's TableSSHServer): its slot."""

    def __init__(self) -> None:
        self.ended = 0

    def session_ended(self) -> None:
        self.ended += 1


class Child:
    """PtyChild as the session's callbacks use it, recording what it was asked."""

    def __init__(self, takes: bool = True, returncode: int | None = None) -> None:
        self.takes = takes
        self.written: list[bytes] = []
        self.sizes: list[tuple[int, int, int, int]] = []
        self.paused = 0
        self.resumed = 0
        self.stopped = 0
        self.process = type("Process", (), {"returncode": returncode, "pid": 0})()

    def write(self, data: bytes) -> bool:
        self.written.append(data)
        return self.takes

    def resize(self, cols: int, rows: int, xpixels: int = 0, ypixels: int = 0) -> None:
        self.sizes.append((cols, rows, xpixels, ypixels))

    def pause(self) -> None:
        self.paused += 1

    def resume(self) -> None:
        self.resumed += 1

    async def stop(self) -> int | None:
        self.stopped += 1
        return 0


def make_table(tmp_path: Path, **options: Any) -> TableServer:
    saves = tmp_path / "saves"
    saves.mkdir(exist_ok=True)
    return TableServer(ServeOptions(saves=saves, **options), KeyRing.from_options(tmp_path, None, None, True))


def seated(table: TableServer, role: str | None, ident: int = 1, owner: Owner | None = None, chan: Chan | None = None) -> tuple[TableSession, Chan]:
    record = Connection(ident, f"127.0.0.1:{40000 + ident}", "127.0.0.1", user="someone", role=role, name=f"seat{ident}")
    if role is not None:
        table.connections[ident] = record
    session = TableSession(table, record, owner)
    chan = chan if chan is not None else Chan()
    session.connection_made(chan)  # type: ignore[arg-type]
    return session, chan


# ------------------------------------------------------------------ the pure parts


def test_exec_runs_the_seats_module_with_the_servers_python(tmp_path: Path) -> None:
    options = ServeOptions(saves=tmp_path, python="/opt/py/bin/python3.12")
    assert seat_argv(options) == ["/opt/py/bin/python3.12", "-m", "tracker.serve.seat"]


def test_window_sizes_are_clamped_to_500_by_200_and_at_least_1_by_1() -> None:
    assert (MAX_COLUMNS, MAX_ROWS) == (500, 200)
    assert clamp_size(80, 24) == (80, 24)
    assert clamp_size(500, 200) == (500, 200)
    assert clamp_size(501, 201) == (500, 200)
    assert clamp_size(30000, 30000) == (500, 200)
    assert clamp_size(1, 1) == (1, 1)
    assert clamp_size(0, 0) == (1, 1)
    assert clamp_size(-7, -3) == (1, 1)
    assert clamp_size(2, 3) == (2, 3)
    assert clamp_size(499, 199) == (499, 199)
    assert clamp_size(700, 5) == (500, 5) and clamp_size(5, 700) == (5, 200)


def package_root() -> str:
    """The folder that holds the `tracker` package (decision 0036: on PYTHONPATH)."""
    return str(Path(tracker.__file__).resolve().parent.parent)


def test_the_child_gets_the_servers_environment_plus_the_terminals(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/table")
    monkeypatch.delenv("PYTHONPATH", raising=False)
    monkeypatch.delenv("LANG", raising=False)
    monkeypatch.delenv("COLORTERM", raising=False)
    options = ServeOptions(saves=tmp_path / "saves")
    client = {"LANG": "de_DE.UTF-8", "LC_ALL": "de_DE.UTF-8", "LC_TIME": "C", "COLORTERM": "truecolor", "NO_COLOR": "1",
              "LD_PRELOAD": "/evil.so", "PATH": "/evil", "XLC_X": "no", "LANGUAGE": "no", "TERM": "evil"}
    env = child_env(options, PLAYER, "screen-256color", client)
    assert env["HOME"] == "/home/table"  # the server's own
    assert env["PYTHONPATH"] == package_root()
    assert env["TERM"] == "screen-256color"  # from the pty request, never the client's environment
    for key in ("LANG", "LC_ALL", "LC_TIME", "COLORTERM", "NO_COLOR"):
        assert env[key] == client[key]
    assert env.get("LD_PRELOAD") != "/evil.so" and env["PATH"] != "/evil"
    assert "XLC_X" not in env and "LANGUAGE" not in env
    assert env["TRACKER_SAVES"] == str(tmp_path / "saves")
    assert "TRACKER_READ_ONLY" not in env  # a player's app writes


def test_pythonpath_keeps_what_the_server_had_after_the_package_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    options = ServeOptions(saves=tmp_path)
    monkeypatch.setenv("PYTHONPATH", "/srv/lib")
    assert child_env(options, GM, "xterm", {})["PYTHONPATH"] == package_root() + os.pathsep + "/srv/lib"
    monkeypatch.setenv("PYTHONPATH", "")
    assert child_env(options, GM, "xterm", {})["PYTHONPATH"] == package_root()


def test_lang_is_the_clients_else_the_servers_else_c_utf8(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    options = ServeOptions(saves=tmp_path)
    monkeypatch.delenv("LANG", raising=False)
    assert child_env(options, GM, "", {})["LANG"] == "C.UTF-8"
    monkeypatch.setenv("LANG", "fr_FR.UTF-8")
    assert child_env(options, GM, "", {})["LANG"] == "fr_FR.UTF-8"
    assert child_env(options, GM, "", {"LANG": "pt_BR.UTF-8"})["LANG"] == "pt_BR.UTF-8"


def test_the_term_defaults_to_xterm_256color(tmp_path: Path) -> None:
    assert child_env(ServeOptions(saves=tmp_path), GM, "", {})["TERM"] == "xterm-256color"
    assert child_env(ServeOptions(saves=tmp_path), GM, "vt100", {})["TERM"] == "vt100"


@pytest.mark.parametrize("role", [GM, PLAYER, VIEWER])
def test_no_identity_and_no_dev_tools_travel_in_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, role: str) -> None:
    for key in ("TRACKER_USER", "TRACKER_ROLE", "TRACKER_READ_ONLY", SEAT_FD, "TEXTUAL", "TEXTUAL_DEVTOOLS_PORT"):
        monkeypatch.setenv(key, "from the server")
    client = {"TRACKER_USER": "dan", "TRACKER_ROLE": GM, "TRACKER_READ_ONLY": "0", SEAT_FD: "3", "TEXTUAL": "devtools"}
    env = child_env(ServeOptions(saves=tmp_path), role, "xterm", client)
    for key in ("TRACKER_USER", "TRACKER_ROLE", SEAT_FD, "TEXTUAL", "TEXTUAL_DEVTOOLS_PORT"):
        assert key not in env
    # Only a viewer's app is read-only, whatever the server's own environment said.
    assert env.get("TRACKER_READ_ONLY") == ("1" if role == VIEWER else None)


# ------------------------------------------------------------------ the requests


async def test_a_pty_request_is_taken_with_its_size_clamped(tmp_path: Path) -> None:
    table = make_table(tmp_path)
    session, _chan = seated(table, VIEWER)
    assert session.size == (80, 24, 0, 0) and session.has_pty is False
    assert session.pty_requested("screen", (30000, 30000, 640, 480), {}) is True
    assert session.has_pty is True and session.term == "screen"
    assert session.size == (500, 200, 640, 480)
    assert session.pty_requested("xterm", (1, 1, 0, 0), {}) is True
    assert session.size == (1, 1, 0, 0)


@pytest.mark.parametrize("size", [(0, 30, 0, 0), (100, 0, 0, 0), (0, 0, 800, 600)])
async def test_a_pty_request_without_a_size_keeps_80_by_24(tmp_path: Path, size: tuple[int, int, int, int]) -> None:
    table = make_table(tmp_path)
    session, _chan = seated(table, VIEWER)
    assert session.pty_requested("xterm", size, {}) is True
    assert session.size == (80, 24, 0, 0) and session.has_pty is True


async def test_a_shell_is_taken_a_subsystem_refused_and_a_command_answered(tmp_path: Path, log: pytest.LogCaptureFixture) -> None:
    table = make_table(tmp_path)
    session, _chan = seated(table, GM)
    assert session.shell_requested() is True
    assert session.subsystem_requested("sftp\x1b[2J") is False
    who = session.record.who()
    refused = said(log, logging.INFO)
    assert refused[0].startswith("refused subsystem 'sftp") and refused[0].endswith(f"[2J' from {who}") and "\x1b" not in refused[0]
    assert session.refusal == b""
    assert session.exec_requested("x" * 300 + "\x07") is True  # accepted, only to be answered
    assert session.refusal == NO_COMMAND
    assert said(log, logging.INFO)[1] == f"refused command {'x' * 200!r} from {who}"  # cut: the bell is past 200
    assert session.break_received(100) is False
    session.signal_received("INT")  # ignored: the app has its own quit key
    assert session.eof_received() is True  # our side stays open: the answer is on its way


async def test_a_long_subsystem_name_is_logged_cut(tmp_path: Path, log: pytest.LogCaptureFixture) -> None:
    table = make_table(tmp_path)
    session, _chan = seated(table, GM)
    assert session.subsystem_requested("s" * 250) is False
    assert said(log, logging.INFO) == [f"refused subsystem {'s' * 200!r} from {session.record.who()}"]


def test_the_answers_say_what_to_do_instead() -> None:
    assert NO_PTY.startswith(b"tracker: ") and b"ssh -t" in NO_PTY and NO_PTY.endswith(b"\r\n")
    assert NO_COMMAND.startswith(b"tracker: ") and b"no command" in NO_COMMAND and NO_COMMAND.endswith(b"\r\n")


async def test_a_session_without_a_pty_is_answered_on_stderr_and_frees_its_slot(tmp_path: Path) -> None:
    table = make_table(tmp_path)
    owner = Owner()
    session, chan = seated(table, VIEWER, owner=owner)
    session.shell_requested()
    session.session_started()
    assert bytes(chan.err) == NO_PTY and chan.out == b"" and chan.exits == [1]
    assert owner.ended == 1 and session.record.session is None and table.tasks_running == 0
    session.data_received(b"keys", None)  # nothing reads it, nothing breaks
    session.connection_lost(None)
    assert owner.ended == 1  # freed once


@pytest.mark.parametrize("pty", [False, True])
async def test_a_command_is_answered_whether_or_not_a_pty_came(tmp_path: Path, pty: bool) -> None:
    table = make_table(tmp_path)
    owner = Owner()
    session, chan = seated(table, GM, owner=owner)
    if pty:
        session.pty_requested("xterm", (80, 24, 0, 0), {})
    session.exec_requested("ls")
    session.session_started()
    assert bytes(chan.err) == NO_COMMAND and chan.exits == [1] and owner.ended == 1
    assert session.record.session is None


async def test_an_answer_to_a_client_already_gone_is_no_error(tmp_path: Path) -> None:
    table = make_table(tmp_path)
    owner = Owner()
    session, chan = seated(table, VIEWER, owner=owner, chan=Chan(broken=BrokenPipeError))
    session.session_started()
    assert owner.ended == 1 and chan.exits == []


async def test_a_session_of_no_connection_slot_is_answered_too(tmp_path: Path) -> None:
    table = make_table(tmp_path)
    session, chan = seated(table, VIEWER, owner=None)
    session.session_started()
    assert chan.exits == [1]
    session.connection_lost(None)


async def test_a_session_lost_before_its_app_frees_its_slot_once(tmp_path: Path) -> None:
    table = make_table(tmp_path)
    owner = Owner()
    session, _chan = seated(table, VIEWER, owner=owner)
    session.connection_lost(None)
    session.connection_lost(OSError("reset"))
    assert owner.ended == 1


# ------------------------------------------------------------------ the callbacks on their own


async def test_the_apps_output_goes_to_the_client_until_the_session_ends(tmp_path: Path) -> None:
    table = make_table(tmp_path)
    session, chan = seated(table, VIEWER)
    session.record.last_activity = 0.0
    before = time.monotonic()
    session._output(b"frame 1")
    assert bytes(chan.out) == b"frame 1" and session.record.last_activity >= before
    session.hang_up()
    session.record.last_activity = 0.0
    session._output(b"frame 2")  # the app's last frames go nowhere...
    assert bytes(chan.out) == b"frame 1" and session.record.last_activity >= before  # ...but count as activity
    gone, _chan = seated(table, VIEWER, 2, chan=Chan(broken=BrokenPipeError))
    gone._output(b"frame")  # the client closed its channel: no error


async def test_keystrokes_before_the_app_count_as_activity_and_go_nowhere(tmp_path: Path) -> None:
    table = make_table(tmp_path)
    session, chan = seated(table, VIEWER)
    session.record.last_activity = 0.0
    session.data_received(b"x", None)
    assert session.record.last_activity > 0.0 and chan.paused == 0
    bare = TableSession(table, Connection(9, "127.0.0.1:9", role=VIEWER))
    keys = Child()
    bare.child = keys  # type: ignore[assignment]
    bare.data_received(b"x", None)  # no channel yet: nothing reads it
    assert keys.written == []


async def test_a_slow_app_pauses_the_clients_input_once_and_room_resumes_it_once(tmp_path: Path) -> None:
    table = make_table(tmp_path)
    session, chan = seated(table, VIEWER)
    child = Child(takes=True)
    session.child = child  # type: ignore[assignment]
    session._input_room()  # not paused: nothing to resume
    assert chan.resumed == 0
    session.data_received(b"a", None)
    assert child.written == [b"a"] and chan.paused == 0
    child.takes = False
    session.data_received(b"b", None)
    session.data_received(b"c", None)
    assert child.written == [b"a", b"b", b"c"] and chan.paused == 1
    session._input_room()
    session._input_room()
    assert chan.resumed == 1
    session.data_received(b"d", None)
    assert chan.paused == 2


async def test_room_for_input_on_a_channel_gone_is_no_error(tmp_path: Path) -> None:
    table = make_table(tmp_path)
    session, chan = seated(table, VIEWER, chan=Chan(broken=OSError))
    session.child = Child(takes=False)  # type: ignore[assignment]
    session.data_received(b"x", None)
    assert chan.paused == 1
    session._input_room()
    session.chan = None
    session._input_room()


async def test_a_full_channel_pauses_the_apps_output(tmp_path: Path) -> None:
    table = make_table(tmp_path)
    session, _chan = seated(table, VIEWER)
    session.pause_writing()  # no app yet: nothing to pause
    session.resume_writing()
    child = Child()
    session.child = child  # type: ignore[assignment]
    session.pause_writing()
    assert (child.paused, child.resumed) == (1, 0)
    session.resume_writing()
    assert (child.paused, child.resumed) == (1, 1)


async def test_resizes_reach_the_app_at_most_every_resize_every_and_the_last_arrives(tmp_path: Path) -> None:
    table = make_table(tmp_path)
    session, _chan = seated(table, VIEWER)
    child = Child()
    session.child = child  # type: ignore[assignment]
    session.terminal_size_changed(0, 40, 0, 0)
    session.terminal_size_changed(120, 0, 0, 0)
    assert child.sizes == [] and session.size == (80, 24, 0, 0)  # no size: ignored
    session.terminal_size_changed(1, 1, 0, 0)
    assert child.sizes == [(1, 1, 0, 0)]  # the first at once
    started = time.monotonic()
    session.terminal_size_changed(100, 30, 7, 8)
    session.terminal_size_changed(30000, 40, 9, 9)
    assert child.sizes == [(1, 1, 0, 0)] and session.size == (500, 40, 9, 9)  # held back, the latest kept
    await until(lambda: len(child.sizes) == 2, "the latest size, after the pause", SOON)
    assert child.sizes[1] == (500, 40, 9, 9)
    applied = time.monotonic()  # the latest size was passed at or before this
    assert applied - started >= RESIZE_EVERY * 0.5
    await until(lambda: time.monotonic() > applied + RESIZE_EVERY + 0.01, "the pause to pass", SOON)
    session.terminal_size_changed(90, 30, 0, 0)
    assert child.sizes[2:] == [(90, 30, 0, 0)]  # the pause has passed: at once


async def test_a_size_held_back_goes_nowhere_once_the_client_has_gone(tmp_path: Path) -> None:
    table = make_table(tmp_path)
    session, _chan = seated(table, VIEWER)
    child = Child(returncode=0)
    session.child = child  # type: ignore[assignment]
    session.terminal_size_changed(100, 30, 0, 0)
    session.terminal_size_changed(110, 30, 0, 0)
    session.hang_up()
    session.connection_lost(None)  # hung up first (idle, say), then the connection's loss seen
    assert child.stopped == 0  # its app had ended already: nothing to stop
    await asyncio.sleep(0)
    started = time.monotonic()
    await until(lambda: time.monotonic() - started > 3 * RESIZE_EVERY, "longer than the pause", SOON)
    assert child.sizes == [(100, 30, 0, 0)]
    session._apply_size()  # a timer that fired anyway: the app is not sized after the end
    assert child.sizes == [(100, 30, 0, 0)]


async def test_a_hang_up_stops_a_running_app_and_a_restart_after_it_does_nothing(tmp_path: Path) -> None:
    table = make_table(tmp_path)
    owner = Owner()
    session, _chan = seated(table, VIEWER, owner=owner)
    child = Child(returncode=None)
    session.child = child  # type: ignore[assignment]
    session.connection_lost(None)
    await until(lambda: child.stopped == 1, "the app stopped", SOON)
    assert owner.ended == 0  # the app's run frees nothing: the connection is gone with it
    session.restart("The GM moved the table to Elsewhere")
    await asyncio.sleep(0)
    assert child.stopped == 1 and table.tasks_running == 0


async def test_a_restart_stops_the_app_to_start_it_again(tmp_path: Path) -> None:
    table = make_table(tmp_path)
    session, _chan = seated(table, VIEWER)
    session.restart("nothing started yet")  # no app: nothing to stop
    child = Child(returncode=None)
    session.child = child  # type: ignore[assignment]
    session.restart("The GM moved the table to Elsewhere")
    assert table.tasks_running == 1
    await until(lambda: child.stopped == 1, "the app stopped", SOON)


# ------------------------------------------------------------------ the lines, on their own


def pair() -> tuple[socket.socket, socket.socket]:
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    ours.setblocking(False)
    return ours, theirs


def message(theirs: socket.socket, what: dict[str, Any]) -> None:
    theirs.send(json.dumps(what).encode())


@pytest.mark.parametrize("role", [GM, PLAYER, VIEWER])
async def test_only_a_gms_app_replays_the_table(tmp_path: Path, role: str) -> None:
    table = make_table(tmp_path)
    session, _chan = seated(table, role)
    ours, theirs = pair()
    with ours, theirs:
        message(theirs, {"op": "replay", "segment": 7})
        session.heard_from_app(ours)
        assert (table.replaying, table.replayed_by) == ((7, session.record) if role == GM else (None, None))
        message(theirs, {"op": "replay", "segment": None})
        session.heard_from_app(ours)
        assert (table.replaying, table.replayed_by) == (None, None)


@pytest.mark.parametrize("role", [GM, VIEWER])
async def test_only_a_gms_app_moves_the_table(tmp_path: Path, role: str, log: pytest.LogCaptureFixture) -> None:
    table = make_table(tmp_path)
    session, _chan = seated(table, role)
    ours, theirs = pair()
    with ours, theirs:
        message(theirs, {"op": "move", "path": "/etc/passwd"})
        session.heard_from_app(ours)
        if role == GM:
            assert table.tasks_running == 1
            await until(lambda: table.tasks_running == 0, "the move looked at", SOON)
        assert table.tasks_running == 0
        moves = [m for m in said(log, logging.WARNING) if m.startswith("ignored a move of the table by")]
        assert moves == ([f"ignored a move of the table by {session.record.who()}: not a fight in {table.options.saves}: /etc/passwd"] if role == GM else [])


async def test_a_line_that_says_nothing_known_is_kept_and_one_that_ends_is_dropped(tmp_path: Path) -> None:
    table = make_table(tmp_path)
    session, _chan = seated(table, GM)
    loop = asyncio.get_running_loop()
    ours, theirs = pair()
    with ours:
        heard: list[int] = []
        loop.add_reader(ours.fileno(), heard.append, 1)
        session.heard_from_app(ours)  # readable, they said, but nothing there after all
        message(theirs, {"op": "dance", "segment": 3})
        session.heard_from_app(ours)
        message(theirs, {"segment": 3})
        session.heard_from_app(ours)
        assert (table.replaying, table.tasks_running) == (None, 0)
        assert loop.remove_reader(ours.fileno()) is True  # still followed
        loop.add_reader(ours.fileno(), heard.append, 1)
        theirs.close()
        session.heard_from_app(ours)  # the app has gone: not followed any more
        assert loop.remove_reader(ours.fileno()) is False
    closed, other = pair()
    other.close()
    closed.close()
    session.heard_from_app(closed)  # a line closed already: nothing to stop following


async def test_tell_and_the_replay_go_nowhere_without_a_line(tmp_path: Path) -> None:
    table = make_table(tmp_path)
    session, _chan = seated(table, GM)
    session.tell("nobody hears this")
    session.tell_replay(3)


async def test_a_line_whose_app_has_gone_is_only_news(tmp_path: Path) -> None:
    table = make_table(tmp_path)
    session, _chan = seated(table, GM)
    ours, theirs = pair()
    theirs.close()
    with ours:
        session._control = ours
        session._line = ours
        session.tell("nobody hears this")
        session.tell_replay(3)


# ------------------------------------------------------------------ the seat's app, for real

PLAY = r'''
def play(seat, line):
    """A seat's app for the tests: says what it got, then follows keys and its line."""
    import json, os, select, signal, sys, tty

    def say(text):
        os.write(1, (text + "\r\n").encode())

    def size(*_):
        cols, rows = os.get_terminal_size(0)
        say(f"SIZE {cols}x{rows}")

    tty.setraw(0)
    cols, rows = os.get_terminal_size(0)
    env = os.environ
    said = {"argv": sys.argv[1:], "cwd": os.getcwd(), "size": [cols, rows], "TERM": env.get("TERM"),
            "RO": env.get("TRACKER_READ_ONLY"), "LANG": env.get("LANG"), "SEAT_FD": "TRACKER_SEAT_FD" in env,
            "line": line is not None}
    if seat is not None:
        said.update(role=seat["role"], notice=seat["notice"], fight=seat["fight"])
    signal.signal(signal.SIGWINCH, size)
    say("START " + json.dumps(said))
    while True:
        ready = select.select([0] + ([line] if line is not None else []), [], [])[0]
        if line is not None and line in ready:
            heard = line.recv(1 << 18)
            if heard:
                say("HEARD " + heard.decode())
            else:
                line = None
        if 0 not in ready:
            continue
        try:
            keys = os.read(0, 1024).decode()
        except OSError:
            return 0
        if not keys:
            return 0
        for key in keys:
            if key.isdigit():
                return int(key)
            if key == "r":
                line.send(json.dumps({"op": "replay", "segment": 5}).encode())
            if key == "g":  # leave a child of its own holding the line, then end
                import subprocess
                held = subprocess.Popen([sys.executable, "-S", "-c", "import time; time.sleep(30)"], pass_fds=[line.fileno()], start_new_session=True,
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                say(f"HOLDER {held.pid}")
                return 0
            if key == "w":  # hold every key until SIGUSR1, then count them up to a "."
                signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR1])
                say("WAITING for SIGUSR1")
                signal.sigwait([signal.SIGUSR1])
                count = 0
                while True:
                    data = os.read(0, 65536)
                    if b"." in data:
                        count += data.index(b".")
                        break
                    count += len(data)
                say(f"COUNT {count}")
'''

EXEC_MAIN = r'''
import json, os, socket
fd = os.environ.get("TRACKER_SEAT_FD")
line = socket.socket(fileno=int(fd)) if fd else None
said = json.loads(line.recv(1 << 18)) if line is not None else {"op": "seat", "seat": None}
assert said["op"] == "seat", said  # the first message: who sits here
seat = said["seat"]
raise SystemExit(play(seat, line))
'''


def app_script(tmp_path: Path) -> str:
    """`python` for `--spawn exec`: a script that plays the seat (`PLAY`)."""
    path = tmp_path / "seat-python"
    path.write_text(f"#!{sys.executable} -S\n{PLAY}\n{EXEC_MAIN}", encoding="utf-8")
    path.chmod(0o755)
    return str(path)


def forked_play() -> Callable[[dict[str, Any] | None, socket.socket | None], int]:
    found: dict[str, Any] = {}
    exec(PLAY, found)  # noqa: S102 (the test's own program, as the exec script runs it)
    return found["play"]


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[TableServer]:
    """A table whose `--spawn exec` runs the test's seat (`PLAY`); closed after, its apps
    stopped."""
    made = make_table(tmp_path, spawn="exec", python=app_script(tmp_path))
    yield made
    for record in list(made.connections.values()):
        if record.session is not None:
            record.session.hang_up()
    await asyncio.wait_for(made.close(), SOON)


def started(session: TableSession, chan: Chan, term: str = "xterm", size: tuple[int, int] = (100, 30)) -> None:
    """As asyncssh does: a pty, a shell, the session started."""
    assert session.pty_requested(term, (size[0], size[1], 0, 0), {})
    assert session.shell_requested()
    session.session_started()


async def start(chan: Chan, count: int = 1) -> dict[str, Any]:
    await until(lambda: len(chan.lines("START")) >= count, f"app {count} started", SOON)
    return json.loads(chan.lines("START")[count - 1])


async def heard(chan: Chan, count: int = 1) -> dict[str, Any]:
    await until(lambda: len(chan.lines("HEARD")) >= count, f"message {count} heard", SOON)
    return json.loads(chan.lines("HEARD")[count - 1])


def open_fds() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


@pytest.mark.serve
async def test_a_viewers_app_runs_on_the_tables_fight_on_a_pty_of_the_clients_size(table: TableServer, tmp_path: Path, log: pytest.LogCaptureFixture) -> None:
    table.fight = table.options.saves / "night.fight"
    before = open_fds()
    session, chan = seated(table, VIEWER, chan=Chan(env={"LANG": "de_DE.UTF-8", "LD_PRELOAD": "/evil.so"}))
    started(session, chan, "screen-256color", (100, 30))
    assert session.record.session is session
    got = await start(chan)
    assert got == {"argv": ["-m", "tracker.serve.seat"], "cwd": str(table.options.saves), "size": [100, 30], "TERM": "screen-256color",
                   "RO": "1", "LANG": "de_DE.UTF-8", "SEAT_FD": True, "line": True, "role": VIEWER, "notice": "",
                   "fight": str(table.options.saves / "night.fight")}
    assert session.on == table.options.saves / "night.fight"
    child = session.child
    assert child is not None and table.children == {child}
    assert f"app pid {child.pid} for {session.record.who()}" in said(log, logging.INFO)
    session.tell("a viewer is told nothing")  # only a GM's app hears this
    session.tell_replay(4)
    assert await heard(chan) == {"op": "replay", "segment": 4}
    session.tell_replay(None)
    assert await heard(chan, 2) == {"op": "replay", "segment": None}
    session.terminal_size_changed(132, 43, 0, 0)
    await until(lambda: "132x43" in chan.lines("SIZE"), "the app resized", SOON)
    session.data_received(b"3", None)
    await until(lambda: chan.exits == [3], "the app's exit status, the session's", SOON)
    assert table.children == set() and len(chan.lines("HEARD")) == 2
    session.tell_replay(6)  # its line is gone with it
    await until(lambda: table.tasks_running == 0, "the session's run over", SOON)
    assert open_fds() == before  # nothing of the app's left open
    assert chan.err == b""


@pytest.mark.serve
async def test_a_client_sending_no_environment_gets_the_servers(table: TableServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANG", "fr_FR.UTF-8")
    session, chan = seated(table, None, chan=Chan(env=None))  # not seated as anything: a viewer
    started(session, chan, "")
    got = await start(chan)
    assert (got["LANG"], got["TERM"], got["RO"], got["role"], got["fight"]) == ("fr_FR.UTF-8", "xterm-256color", "1", VIEWER, "")
    assert session.on is None
    session.data_received(b"0", None)
    await until(lambda: chan.exits == [0], "the app ended", SOON)


@pytest.mark.serve
async def test_a_gms_app_replays_and_hears_on_its_own_line(table: TableServer, log: pytest.LogCaptureFixture) -> None:
    gm, gm_chan = seated(table, GM, 1)
    viewer, viewer_chan = seated(table, VIEWER, 2)
    started(gm, gm_chan)
    started(viewer, viewer_chan)
    got = await start(gm_chan)
    assert (got["role"], got["RO"], got["line"], got["SEAT_FD"]) == (GM, None, True, True)
    line = gm._control
    assert line is not None
    followed = line.fileno()
    await start(viewer_chan)
    gm.data_received(b"r", None)  # the GM's app replays segment 5: the others follow
    await until(lambda: table.replaying == 5, "the table replaying", SOON)
    assert table.replayed_by is gm.record
    assert await heard(viewer_chan) == {"op": "replay", "segment": 5}
    gm.tell("y" * 2500)
    assert await heard(gm_chan) == {"op": "say", "text": "y" * 2000}
    gm.data_received(b"0", None)  # the GM's app ends in its replay: the table is back to now
    await until(lambda: gm_chan.exits == [0], "the GM's app ended", SOON)
    assert (table.replaying, table.replayed_by) == (None, None)
    assert line.fileno() == -1 and asyncio.get_running_loop().remove_reader(followed) is False  # closed, not followed
    assert await heard(viewer_chan, 2) == {"op": "replay", "segment": None}
    gm.tell("nobody hears this")
    await asyncio.sleep(0)
    assert len(gm_chan.lines("HEARD")) == 1
    viewer.data_received(b"0", None)
    await until(lambda: viewer_chan.exits == [0], "the viewer's app ended", SOON)


@pytest.mark.serve
async def test_a_gms_line_held_by_what_its_app_left_is_not_followed_after_the_app(table: TableServer) -> None:
    gm, chan = seated(table, GM)
    started(gm, chan)
    await start(chan)
    line = gm._control
    assert line is not None
    followed = line.fileno()
    gm.data_received(b"g", None)  # its app ends, a process it started (in a session of its own) still holding its end of the line
    await until(lambda: chan.exits == [0], "the GM's app ended", SOON)
    holder = int(chan.lines("HOLDER")[0])
    try:
        assert line.fileno() == -1 and asyncio.get_running_loop().remove_reader(followed) is False
    finally:
        os.kill(holder, signal.SIGKILL)


@pytest.mark.serve
async def test_another_gms_replay_goes_on_when_one_gms_app_ends(table: TableServer) -> None:
    gm, gm_chan = seated(table, GM, 1)
    other, other_chan = seated(table, GM, 2)
    started(gm, gm_chan)
    started(other, other_chan)
    await start(gm_chan)
    await start(other_chan)
    other.data_received(b"r", None)
    await until(lambda: table.replaying == 5, "the table replaying", SOON)
    gm.data_received(b"0", None)
    await until(lambda: gm_chan.exits == [0], "the first GM's app ended", SOON)
    assert (table.replaying, table.replayed_by) == (5, other.record)
    other.data_received(b"0", None)
    await until(lambda: other_chan.exits == [0], "the other GM's app ended", SOON)
    assert (table.replaying, table.replayed_by) == (None, None)


@pytest.mark.serve
async def test_the_table_moving_starts_the_app_again_saying_why(table: TableServer) -> None:
    session, chan = seated(table, PLAYER)
    started(session, chan)
    first = await start(chan)
    assert first["notice"] == "" and first["role"] == PLAYER and first["RO"] is None
    pid = session.child.pid if session.child is not None else None
    session.restart("The GM moved the table to Ambush")
    second = await start(chan, 2)
    assert second["notice"] == "The GM moved the table to Ambush"
    assert session.child is not None and session.child.pid != pid and chan.exits == []
    session.restart("")
    assert (await start(chan, 3))["notice"] == ""  # said once, not again
    session.data_received(b"4", None)
    await until(lambda: chan.exits == [4], "the app's own end, the session's", SOON)
    await until(lambda: table.tasks_running == 0, "the session's run over", SOON)
    assert chan.exits == [4] and len(chan.lines("START")) == 3
    session.restart("The GM moved the table to Ambush")  # its app has ended: nothing to stop or start
    assert table.tasks_running == 0


@pytest.mark.serve
async def test_an_app_ended_by_a_signal_exits_as_a_shell_says_it(table: TableServer) -> None:
    session, chan = seated(table, VIEWER)
    started(session, chan)
    await start(chan)
    assert session.child is not None and session.child.pid is not None
    os.kill(session.child.pid, signal.SIGTERM)
    await until(lambda: chan.exits == [128 + signal.SIGTERM], "exit status 143", SOON)


@pytest.mark.serve
async def test_an_app_ending_for_a_client_gone_is_no_error(table: TableServer, log: pytest.LogCaptureFixture) -> None:
    session, chan = seated(table, VIEWER, chan=Chan(broken=BrokenPipeError))
    started(session, chan)
    await until(lambda: session.child is not None and session.child.pid is not None, "the app started", SOON)
    assert session.child is not None and session.child.pid is not None
    os.kill(session.child.pid, signal.SIGTERM)
    await until(lambda: session.child is not None and session.child.returncode is not None and table.tasks_running == 0, "the session's run over", SOON)
    assert said(log, logging.ERROR) == [] and chan.exits == []


@pytest.mark.serve
async def test_the_client_gone_ends_the_app_and_nothing_is_said_to_it(table: TableServer) -> None:
    owner = Owner()
    session, chan = seated(table, VIEWER, owner=owner)
    started(session, chan)
    await start(chan)
    child = session.child
    assert child is not None
    session.connection_lost(None)
    await until(lambda: child.returncode is not None and table.tasks_running == 0, "the app ended and reaped", SOON)
    assert chan.exits == [] and owner.ended == 0 and table.children == set()


async def starting(session: TableSession) -> None:
    """Until the session's app is being started: made, its process not yet (`--spawn
    exec` waits for the new program on the loop)."""
    for _ in range(10000):
        if session.child is not None:
            break
        await asyncio.sleep(0)
    assert session.child is not None and session.child.process is None


@pytest.mark.serve
async def test_a_client_gone_while_its_app_starts_ends_the_app(table: TableServer) -> None:
    session, chan = seated(table, VIEWER)
    started(session, chan)
    await starting(session)
    child = session.child
    assert child is not None
    session.connection_lost(None)
    await until(lambda: child.returncode is not None and table.tasks_running == 0, "the app ended and reaped", SOON)
    assert chan.exits == [] and table.children == set()


@pytest.mark.serve
async def test_the_table_moving_while_the_app_starts_starts_it_again(table: TableServer) -> None:
    session, chan = seated(table, VIEWER)
    started(session, chan)
    await starting(session)
    first = session.child
    assert first is not None
    session.restart("The GM moved the table to Ambush")
    await until(lambda: session.child is not first and first.returncode is not None, "the app started again", SOON)
    got = await start(chan)
    assert got["notice"] == "The GM moved the table to Ambush"
    session.data_received(b"0", None)
    await until(lambda: chan.exits == [0], "the app ended", SOON)


@pytest.mark.serve
async def test_an_app_that_cannot_start_is_said_so_on_stderr(tmp_path: Path, log: pytest.LogCaptureFixture) -> None:
    table = make_table(tmp_path, spawn="exec", python=str(tmp_path / "no-such-python"))
    before = open_fds()
    session, chan = seated(table, GM)
    started(session, chan)
    await until(lambda: chan.exits == [1], "the session ended", SOON)
    await until(lambda: table.tasks_running == 0, "the session's run over", SOON)
    assert bytes(chan.err).startswith(b"tracker: the app could not start: ") and bytes(chan.err).endswith(b"\r\n")
    assert b"no-such-python" in chan.err and chan.exits == [1]
    errors = said(log, logging.ERROR)
    assert len(errors) == 1 and errors[0].startswith(f"cannot start the app for {session.record.who()}: [Errno 2] No such file or directory")
    assert errors[0].endswith("no-such-python'")
    assert table.children == set() and open_fds() == before
    session.restart("The GM moved the table to Ambush")  # ended: nothing starts again
    await asyncio.sleep(0)
    assert table.tasks_running == 0


@pytest.mark.serve
async def test_an_app_that_cannot_start_for_a_client_gone_is_no_error(tmp_path: Path, log: pytest.LogCaptureFixture) -> None:
    table = make_table(tmp_path, spawn="exec", python=str(tmp_path / "no-such-python"))
    session, chan = seated(table, VIEWER, chan=Chan(broken=OSError))
    started(session, chan)
    await until(lambda: table.tasks_running == 0, "the session's run over", SOON)
    assert session.child is not None and session.child.process is None
    errors = said(log, logging.ERROR)
    assert len(errors) == 1 and errors[0].startswith("cannot start the app for ")  # and nothing else went wrong


@pytest.mark.serve
async def test_keystrokes_the_app_does_not_take_pause_the_client_and_none_is_lost(table: TableServer) -> None:
    session, chan = seated(table, VIEWER)
    started(session, chan)
    await start(chan)
    session.data_received(b"w", None)
    await until(lambda: bool(chan.lines("WAITING")), "the app holding its keys", SOON)
    sent = 0
    for _ in range(10):
        session.data_received(b"k" * 16384, None)
        sent += 16384
    assert chan.paused == 1 and chan.resumed == 0  # well past 64 KiB waiting: the client waits
    session.data_received(b".", None)
    assert session.child is not None and session.child.pid is not None
    os.kill(session.child.pid, signal.SIGUSR1)
    await until(lambda: chan.resumed == 1, "the client let go again", SOON)
    await until(lambda: bool(chan.lines("COUNT")), "the keys counted", SOON)
    assert chan.lines("COUNT") == [str(sent)]
    session.data_received(b"0", None)
    await until(lambda: chan.exits == [0], "the app ended", SOON)


@pytest.mark.serve
async def test_a_forked_app_gets_its_line_and_no_seat_message(table: TableServer) -> None:
    play = forked_play()
    given: list[tuple[Any, Any]] = []

    def runner(info: Any, sock: socket.socket | None) -> Callable[[], int]:
        given.append((info, sock))
        return lambda: play(info.to_json(), sock)

    table.runner = runner  # type: ignore[method-assign]
    session, chan = seated(table, GM)
    started(session, chan)
    got = await start(chan)
    assert (got["argv"], got["SEAT_FD"], got["line"], got["role"]) == ([], False, True, GM)
    assert len(given) == 1 and given[0][0].role == GM and isinstance(given[0][1], socket.socket)
    assert given[0][1].fileno() == -1  # the server's copy of the app's end, closed once the app holds it
    session.tell("hello")
    assert await heard(chan) == {"op": "say", "text": "hello"}  # the first thing on its line: no seat
    session.data_received(b"r", None)
    await until(lambda: table.replaying == 5, "the forked GM's replay", SOON)
    session.data_received(b"2", None)
    await until(lambda: chan.exits == [2], "the forked app ended", SOON)


class Hosted:
    """A viewers' process's app as the channel attaches it (viewer_processes.HostedViewer):
    it holds the slave it was given and writes there; `end` ends it."""

    def __init__(self, slave: int) -> None:
        self.slave = os.dup(slave)
        self.pid = os.getpid()
        self.returncode: int | None = None
        self.resizes = 0
        self.ended_as: list[int] = []
        self._done = asyncio.Event()
        os.write(self.slave, b"HOSTED\r\n")

    async def wait(self) -> int:
        await self._done.wait()
        assert self.returncode is not None
        return self.returncode

    def resized(self) -> None:
        self.resizes += 1

    async def end(self, grace: float) -> int | None:
        self.ended(0)
        return 0

    def ended(self, code: int) -> None:
        self.ended_as.append(code)
        if self.returncode is None:
            self.returncode = code
            os.close(self.slave)
            self._done.set()


@pytest.mark.serve
async def test_a_viewer_in_a_viewers_process_hears_the_replay_there(table: TableServer, log: pytest.LogCaptureFixture) -> None:
    apps: list[Hosted] = []
    envs: list[dict[str, str]] = []
    runners: list[Any] = []

    def host_viewer(info: Any, env: dict[str, str]) -> Callable[[int], Hosted]:
        envs.append(env)

        def attach(slave: int) -> Hosted:
            apps.append(Hosted(slave))
            return apps[-1]
        return attach

    real_runner = table.runner

    def runner(info: Any, sock: socket.socket | None) -> Any:
        runners.append(sock)
        return real_runner(info, sock)

    table.host_viewer = host_viewer  # type: ignore[method-assign]
    table.runner = runner  # type: ignore[method-assign]
    before = open_fds()
    session, chan = seated(table, VIEWER)
    started(session, chan)
    await until(lambda: b"HOSTED" in chan.out, "the hosted app drawing", SOON)
    assert runners == [None] and SEAT_FD not in envs[0] and envs[0]["TRACKER_READ_ONLY"] == "1"
    assert any(m.endswith(" (a viewers' process)") and m.startswith("app pid ") for m in said(log, logging.INFO))
    session.tell_replay(3)  # the viewers' process hears it on its own line, not here
    session.terminal_size_changed(90, 20, 0, 0)
    await until(lambda: apps[0].resizes == 1, "the hosted app told of its size", SOON)
    session.connection_lost(None)
    await until(lambda: table.tasks_running == 0 and apps[0].returncode is not None, "the hosted app ended", SOON)
    assert apps[0].ended_as[0] == 0 and table.children == set() and chan.exits == []
    assert open_fds() == before

