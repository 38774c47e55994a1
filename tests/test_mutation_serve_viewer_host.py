"""Direct tests of tracker.serve.viewer_host: the viewers' process (the module docstring,
decisions 0036 and 0055). Viewers of one size share one view: one app, its frames fanned
out to every member, a newcomer given the modes and the view whole; a viewer who does
something (a key, a click, the wheel; not the terminal answering, a focus report or the
mouse passing over) or whose size changes leaves with an app of its own, made as the view
stands and given what was typed; the server's messages open, size, end viewers, nudge the
follower, carry the GM's replay and quit; each viewer that ends is told to the server
with its status. The test plays the server on the other end of the control socket, on
real ptys (os.openpty); the apps are stand-ins that run until told to exit."""

from __future__ import annotations

import asyncio
import contextlib
import os
import pty
import signal
import socket
import termios
import tty
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from tracker.serve import viewer_host
from tracker.serve.control import receive, send
from tracker.serve.pty_bridge import set_winsize
from tracker.serve.viewer_host import LEAVE_APP_MODE, QUIT_GRACE, Group, Host, Member, _raw, _use_environment, personal, start_host
from tracker.serve.viewer_output import SYNC_END, SYNC_START, FanOut, HostedDriver, HostWriter, Terminal
from tests.helpers import until
from tests.serve_log import log, said  # noqa: F401 (log: a fixture)

SOON = 10.0  # seconds: what is waited for takes milliseconds; a broken one fails in this time
# mutmut's mutants read which of them runs from this variable at each call: the host
# makes os.environ each viewer's, so the viewers' environments the test sends carry it.
MUTANT = "MUTANT_UNDER_TEST"


def carried(env: dict[str, Any]) -> dict[str, Any]:
    """`env`, with the variable naming the mutant under test when there is one."""
    return {**env, **{name: value for name, value in os.environ.items() if name == MUTANT}}


def made_with() -> dict[str, str]:
    """The environment an app is made with, but the mutant's variable."""
    return {name: value for name, value in os.environ.items() if name != MUTANT}


class Live:
    """A follower of the fight, as the apps of one process share it."""

    def __init__(self) -> None:
        self.looked = 0

    def look_now(self) -> None:
        self.looked += 1


class StandIn:
    """An app as the host sees one: it runs until exited, with the exit's status."""

    def __init__(self, notice: str, live: Live | None = None) -> None:
        self.notice = notice
        self.live = live
        self.env = made_with()
        self.return_code: int | None = None
        self.exits: list[int] = []
        self.followed: list[int | None] = []
        self.refreshed = 0
        self.crash: Exception | None = None
        self.started = False
        self.ended = asyncio.Event()
        self._driver: Any = None

    def follow_replay(self, segment: int | None) -> None:
        self.followed.append(segment)

    def refresh(self) -> None:
        self.refreshed += 1

    def exit(self, result: Any = None, return_code: int = 0) -> None:
        self.exits.append(return_code)
        self.return_code = return_code
        self.ended.set()

    async def run_async(self) -> None:
        self.started = True
        await self.ended.wait()
        if self.crash is not None:
            raise self.crash


class Maker:
    """The host's make_app: each app it made, in order."""

    def __init__(self, live: Live | None = None, fail: bool = False) -> None:
        self.made: list[StandIn] = []
        self.live = live
        self.fail = fail

    def __call__(self, notice: str) -> Any:
        if self.fail:
            raise RuntimeError("no app today")
        app = StandIn(notice, self.live)
        self.made.append(app)
        return app


@pytest.fixture(autouse=True)
def environment() -> Iterator[None]:
    """The host makes os.environ each viewer's: the test's is put back after."""
    before = dict(os.environ)
    yield
    os.environ.clear()
    os.environ.update(before)


@pytest.fixture
def ptys() -> Iterator[list[tuple[int, int]]]:
    made: list[tuple[int, int]] = []
    yield made
    for pair in made:
        for fd in pair:
            with contextlib.suppress(OSError):
                os.close(fd)


def handed(ptys: list[tuple[int, int]], slave: int) -> None:
    """The slave sent to the host: the test's copy closed, so the host's is the last."""
    os.close(slave)
    ptys[:] = [(m, -1 if s == slave else s) for m, s in ptys]


def ended(master: int) -> bool:
    """Whether every holder of the master's slave closed it (the host's last)."""
    try:
        return os.read(master, 65536) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def new_pty(ptys: list[tuple[int, int]], cols: int = 80, rows: int = 24) -> tuple[int, int]:
    """(master, slave): the slave is handed to the host, which closes it with the viewer."""
    master, slave = pty.openpty()
    os.set_blocking(master, False)
    set_winsize(slave, cols, rows)
    attrs = termios.tcgetattr(slave)
    attrs[1] &= ~termios.OPOST  # the bytes written are the bytes read
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    ptys.append((master, slave))
    return master, slave


def gathered(master: int, got: bytearray, wanted: bytes) -> bool:
    """Read what is there into `got`; whether it is `wanted` now."""
    got += read_all(master)
    return bytes(got) == wanted


def read_all(master: int) -> bytes:
    got = bytearray()
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            return bytes(got)
        if not chunk:
            return bytes(got)
        got += chunk


class Server:
    """The test's end of the host's control socket."""

    def __init__(self, host: Host, line: socket.socket) -> None:
        self.host, self.line = host, line
        self.got: list[dict[str, Any]] = []

    def say(self, message: dict[str, Any], fd: int | None = None) -> None:
        send(self.line, message, fd)
        self.host.readable()

    def heard(self) -> list[dict[str, Any]]:
        while True:
            try:
                message, fd = receive(self.line)
            except BlockingIOError:
                return self.got
            if fd is not None:
                os.close(fd)
            if message is None:
                return self.got
            self.got.append(message)


_HOSTS: list[Host] = []  # made by the test running: their views' tasks end with it


@pytest.fixture
async def sockets() -> AsyncIterator[list[socket.socket]]:
    """The sockets of the hosts a test makes, closed after it. The views a test leaves
    running end first, in its own loop: a task left pending would be destroyed with the
    loop, and asyncio's log of it would land in a later test's."""
    made: list[socket.socket] = []
    yield made
    left = [task for host in _HOSTS for task in host.tasks if not task.done()]
    _HOSTS.clear()
    for task in left:
        task.cancel()
    await asyncio.gather(*left, return_exceptions=True)
    for sock in made:
        sock.close()


def make_host(sockets: list[socket.socket], maker: Maker) -> Server:
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    sockets += [ours, theirs]
    host = Host(ours, maker)
    _HOSTS.append(host)
    host.writer = HostWriter(asyncio.get_running_loop())
    ours.setblocking(False)
    theirs.setblocking(False)
    return Server(host, theirs)


# ----------------------------------------------------------------- what a viewer did


@pytest.mark.parametrize(
    ("data", "did"),
    [
        (b"j", True),  # a key
        (b"\x1b[5~", True),  # page up
        (b"", False),
        (b"\x1b[?2026;2$y", False),  # a reply to the driver's question (DECRPM)
        (b"\x1b[?1004;1$y\x1b[?2048;0$y", False),
        (b"\x1b[I", False),  # focus in
        (b"\x1b[O", False),  # focus out
        (b"\x1b[48;24;80;480;960t", False),  # an in-band size
        (b"\x1b[<35;10;5M", False),  # the mouse passing over: bits 32 and 3
        (b"\x1b[<39;10;5M", False),  # passing over with shift held
        (b"\x1b[<0;10;5M", True),  # a click
        (b"\x1b[<0;10;5m", True),  # its release
        (b"\x1b[<2;1;1M", True),  # the right button
        (b"\x1b[<32;10;5M", True),  # dragging with the button down
        (b"\x1b[<64;10;5M", True),  # the wheel
        (b"\x1b[<35;10;5M\x1b[<64;10;5M", True),  # passing over, then the wheel
        (b"\x1b[I\x1b[<35;1;1Mq", True),  # a focus report, a motion, then a key
        (b"\x1b[I\x1b[<35;1;1M\x1b[?1;2$y", False),
    ],
)
def test_what_the_viewer_did_is_told_from_what_the_terminal_said(data: bytes, did: bool) -> None:
    assert personal(data) is did


def test_a_members_terminal_is_put_in_the_drivers_mode_and_its_mode_before_kept(ptys: list[tuple[int, int]]) -> None:
    master, slave = new_pty(ptys)
    before = termios.tcgetattr(slave)
    cleared_in = termios.IXON | termios.IXOFF | termios.ICRNL | termios.INLCR | termios.IGNCR
    before[tty.IFLAG] |= cleared_in  # each one on, to be seen cleared
    termios.tcsetattr(slave, termios.TCSANOW, before)
    before = termios.tcgetattr(slave)
    cleared_l = termios.ECHO | termios.ICANON | termios.IEXTEN | termios.ISIG
    assert before[tty.LFLAG] & cleared_l == cleared_l and before[tty.IFLAG] & cleared_in == cleared_in
    assert _raw(slave) == before
    now = termios.tcgetattr(slave)
    # Those flags cleared, every other one as it was.
    assert now[tty.LFLAG] == before[tty.LFLAG] & ~cleared_l and now[tty.IFLAG] == before[tty.IFLAG] & ~cleared_in
    for flag in (termios.ECHO, termios.ICANON, termios.IEXTEN, termios.ISIG):
        assert not now[tty.LFLAG] & flag
    for flag in (termios.IXON, termios.IXOFF, termios.ICRNL, termios.INLCR, termios.IGNCR):
        assert not now[tty.IFLAG] & flag
    assert now[tty.CC][termios.VMIN] == 1
    assert now[tty.OFLAG] == before[tty.OFLAG]  # output untouched
    # Keys as they come: one byte is readable at once, unechoed.
    os.write(master, b"x")
    assert os.read(slave, 10) == b"x"
    assert read_all(master) == b""


def test_a_descriptor_that_is_no_terminal_has_no_mode() -> None:
    r, w = os.pipe()
    try:
        assert _raw(r) is None
    finally:
        os.close(r)
        os.close(w)


def test_the_environment_is_made_the_viewers_touching_only_what_differs(monkeypatch: pytest.MonkeyPatch) -> None:
    mark = carried({})
    os.environ.clear()
    os.environ.update({"TERM": "xterm", "HOME": "/root", "KEEP": "same", **mark})
    _use_environment(carried({"TERM": "vt100", "KEEP": "same", "LANG": "C.UTF-8"}))
    assert made_with() == {"TERM": "vt100", "KEEP": "same", "LANG": "C.UTF-8"}
    written: list[str] = []
    real = os.environ.__class__.__setitem__

    def setitem(self: Any, name: str, value: str) -> None:
        written.append(name)
        real(self, name, value)

    monkeypatch.setattr(os.environ.__class__, "__setitem__", setitem)
    _use_environment(carried({"TERM": "vt100", "KEEP": "other", "LANG": "C.UTF-8"}))
    assert written == ["KEEP"]
    assert made_with() == {"TERM": "vt100", "KEEP": "other", "LANG": "C.UTF-8"}
    _use_environment(carried({}))
    assert made_with() == {} and dict(os.environ) == mark


async def test_a_member_starts_in_no_view_and_with_no_app(ptys: list[tuple[int, int]]) -> None:
    master, slave = new_pty(ptys)
    out = Terminal(HostWriter(asyncio.get_running_loop()), slave, lambda: None)
    try:
        member = Member(7, slave, {"TERM": "xterm"}, out)
        assert (member.ident, member.fd, member.env, member.out) == (7, slave, {"TERM": "xterm"}, out)
        assert member.group is None and member.app is None and member.mode_before is None
    finally:
        out.close()


# ----------------------------------------------------------------- a shared view


async def test_a_view_draws_on_a_pty_of_its_own_at_its_size() -> None:
    app = StandIn("")
    group = Group((100, 30), app, HostWriter(asyncio.get_running_loop()))  # type: ignore[arg-type]
    try:
        assert group.size == (100, 30) and group.app is app and group.members == {}
        assert isinstance(group.out, FanOut) and group.out.members == {}
        assert viewer_host.size_of(group.slave) == (100, 30)
        assert os.ttyname(group.slave) and group.master != group.slave
        assert getattr(app, "terminal_fd") == group.slave and getattr(app, "terminal_output") is group.out
        assert getattr(app, "driver_class") is HostedDriver
    finally:
        group.close()
    for fd in (group.master, group.slave):
        with pytest.raises(OSError):
            os.fstat(fd)
    group.close()  # twice: quiet


async def test_a_member_joining_a_view_not_drawn_yet_gets_the_modes_only(ptys: list[tuple[int, int]]) -> None:
    master, slave = new_pty(ptys)
    writer = HostWriter(asyncio.get_running_loop())
    app = StandIn("")
    group = Group((80, 24), app, writer)  # type: ignore[arg-type]
    out = Terminal(writer, slave, lambda: None)
    try:
        group.out.preamble += b"\x1b[?1049h"
        member = Member(1, slave, {}, out)
        group.join(member)
        assert member.group is group and group.members == {1: member} and group.out.members == {1: out}
        assert out.in_app_mode is True and app.refreshed == 0
        await until(lambda: read_all(master) == b"\x1b[?1049h", "the modes", SOON)
        group.out.write("frame")  # then every frame
        await until(lambda: read_all(master) == b"frame", "a frame", SOON)
        group.remove(member)
        assert member.group is None and group.members == {} and group.out.members == {}
        group.remove(member)  # twice: quiet
        group.out.write("later")
        assert read_all(master) == b""
    finally:
        out.close()
        group.close()


async def test_a_member_joining_a_drawn_view_gets_it_whole_at_once(ptys: list[tuple[int, int]], monkeypatch: pytest.MonkeyPatch) -> None:
    master, slave = new_pty(ptys)
    writer = HostWriter(asyncio.get_running_loop())
    app = StandIn("")
    group = Group((80, 24), app, writer)  # type: ignore[arg-type]
    out = Terminal(writer, slave, lambda: None)
    monkeypatch.setattr(viewer_host, "whole_frame", lambda a: "the whole é\ud800" if a is app else None)
    try:
        group.out.preamble += b"MODES"
        group.out.drawn = True
        group.join(Member(1, slave, {}, out))
        want = b"MODES" + (SYNC_START + "the whole é?" + SYNC_END).encode()  # what cannot be encoded replaced
        got = bytearray()
        await until(lambda: gathered(master, got, want), "the whole view", SOON)
        assert app.refreshed == 0
    finally:
        out.close()
        group.close()


async def test_without_a_whole_frame_the_view_is_drawn_whole_for_all(ptys: list[tuple[int, int]], monkeypatch: pytest.MonkeyPatch, log: pytest.LogCaptureFixture) -> None:
    master, slave = new_pty(ptys)
    writer = HostWriter(asyncio.get_running_loop())
    app = StandIn("")
    group = Group((80, 24), app, writer)  # type: ignore[arg-type]
    out = Terminal(writer, slave, lambda: None)
    monkeypatch.setattr(viewer_host, "whole_frame", lambda a: None)
    try:
        group.out.preamble += b"MODES"
        group.out.drawn = True
        group.join(Member(4, slave, {}, out))
        assert app.refreshed == 1
        assert said(log) == ["viewer #4: no whole frame to hand; the view is drawn whole for all its viewers"]
        await until(lambda: read_all(master) == b"MODES", "the modes", SOON)
    finally:
        out.close()
        group.close()


async def test_the_frame_is_only_asked_for_once_the_view_is_drawn(ptys: list[tuple[int, int]], monkeypatch: pytest.MonkeyPatch) -> None:
    master, slave = new_pty(ptys)
    writer = HostWriter(asyncio.get_running_loop())
    group = Group((80, 24), StandIn(""), writer)  # type: ignore[arg-type]
    out = Terminal(writer, slave, lambda: None)
    asked: list[Any] = []

    def whole_frame(app: Any) -> str:
        asked.append(app)
        return "F"

    monkeypatch.setattr(viewer_host, "whole_frame", whole_frame)
    try:
        group.join(Member(1, slave, {}, out))
        assert asked == []
    finally:
        out.close()
        group.close()


# ----------------------------------------------------------------- the host


def viewer(server: Server, ptys: list[tuple[int, int]], ident: int, cols: int = 80, rows: int = 24, **extra: Any) -> int:
    """Open viewer `ident` on a new pty; its master."""
    master, slave = new_pty(ptys, cols, rows)
    server.say({"op": "open", "id": ident, "env": carried({"TERM": "xterm-256color", "N": 5}), "notice": "hello", **extra}, slave)
    handed(ptys, slave)
    return master


async def test_viewers_of_one_size_share_one_view_and_another_size_gets_another(sockets: list[socket.socket], ptys: list[tuple[int, int]], log: pytest.LogCaptureFixture) -> None:
    maker = Maker()
    server = make_host(sockets, maker)
    host = server.host
    first = viewer(server, ptys, 1)
    assert len(maker.made) == 1 and maker.made[0].notice == "hello"
    assert maker.made[0].env == {"TERM": "xterm-256color", "N": "5"}  # the viewer's environment, strings
    group = host.groups[(80, 24)]
    assert group.app is maker.made[0] and list(group.members) == [1]
    second = viewer(server, ptys, 2)
    assert len(maker.made) == 1 and list(group.members) == [1, 2]
    getattr(group.app, "terminal_output").write("one frame")  # the view's app draws: both get it
    for master in (first, second):
        got = bytearray()
        await until(lambda: gathered(master, got, b"one frame"), "the frame", SOON)
    viewer(server, ptys, 3, 100, 30)
    assert len(maker.made) == 2 and sorted(host.groups) == [(80, 24), (100, 30)]
    assert sorted(host.members) == [1, 2, 3] and host.apps() == maker.made
    pid = os.getpid()
    assert said(log) == [
        f"viewer #1 watches the 80x24 view of viewers' process {pid} with 0 other(s): one app draws it",
        f"viewer #2 watches the 80x24 view of viewers' process {pid} with 1 other(s): one app draws it",
        f"viewer #3 watches the 100x30 view of viewers' process {pid} with 0 other(s): one app draws it",
    ]
    await until(lambda: all(app.started for app in maker.made), "the views' apps running", SOON)
    assert len(host.tasks) == 2
    member = host.members[1]
    assert member.mode_before is not None and not termios.tcgetattr(member.fd)[tty.LFLAG] & termios.ECHO
    assert member.out.in_app_mode and {k: v for k, v in member.env.items() if k != MUTANT} == {"TERM": "xterm-256color", "N": "5"}
    assert server.heard() == []


async def test_a_viewer_whose_terminal_cannot_be_opened_ends_at_once(sockets: list[socket.socket], log: pytest.LogCaptureFixture) -> None:
    maker = Maker()
    server = make_host(sockets, maker)
    r, w = os.pipe()
    try:
        server.say({"op": "open", "id": 9, "env": carried({}), "notice": ""}, r)
        assert server.heard() == [{"op": "ended", "id": 9, "code": 1}]
        assert maker.made == [] and server.host.members == {}
        with pytest.raises(OSError) as why:
            os.ttyname(r)
        assert said(log) == [f"viewer #9: its terminal cannot be opened: {why.value}"]
    finally:
        os.close(r)
        os.close(w)


async def test_a_viewer_whose_app_fails_ends_with_status_1(sockets: list[socket.socket], ptys: list[tuple[int, int]], log: pytest.LogCaptureFixture) -> None:
    server = make_host(sockets, Maker(fail=True))
    master = viewer(server, ptys, 3)
    assert server.heard() == [{"op": "ended", "id": 3, "code": 1}]
    assert server.host.members == {} and server.host.groups == {}
    assert said(log) == ["viewer #3: the app failed: RuntimeError: no app today"]
    assert ended(master)  # the host closed its slave


async def test_an_open_that_is_not_one_closes_what_came_with_it(sockets: list[socket.socket], ptys: list[tuple[int, int]]) -> None:
    maker = Maker()
    server = make_host(sockets, maker)
    viewer(server, ptys, 1)
    master, slave = new_pty(ptys)
    server.say({"op": "open", "id": 1, "env": carried({})}, slave)  # one already here
    handed(ptys, slave)
    assert ended(master)
    master, slave = new_pty(ptys)
    server.say({"op": "open", "id": "2", "env": carried({})}, slave)  # not a number
    handed(ptys, slave)
    assert ended(master)
    server.say({"op": "open", "id": 3, "env": carried({})})  # without its pty
    master, slave = new_pty(ptys)
    server.say({"op": "open", "id": 4, "env": ["TERM"], "notice": 5}, slave)  # an environment that is none
    handed(ptys, slave)
    assert not ended(master)
    assert len(maker.made) == 1 and sorted(server.host.members) == [1, 4]
    assert server.host.members[4].env == {}
    assert server.heard() == []


async def test_a_viewers_notice_is_its_apps(sockets: list[socket.socket], ptys: list[tuple[int, int]]) -> None:
    maker = Maker()
    server = make_host(sockets, maker)
    master, slave = new_pty(ptys)
    server.say({"op": "open", "id": 1, "env": carried({}), "notice": 42}, slave)
    master, slave = new_pty(ptys, 90, 30)
    server.say({"op": "open", "id": 2, "env": carried({})}, slave)
    assert [app.notice for app in maker.made] == ["42", ""]


async def test_a_viewer_who_presses_a_key_leaves_the_view_with_an_app_of_its_own(sockets: list[socket.socket], ptys: list[tuple[int, int]], log: pytest.LogCaptureFixture) -> None:
    maker = Maker()
    server = make_host(sockets, maker)
    host = server.host
    master = viewer(server, ptys, 1)
    other = viewer(server, ptys, 2)
    shared = maker.made[0]
    os.write(master, b"\x1b[I")  # a focus report: not the viewer
    os.write(other, b"q")
    await until(lambda: len(maker.made) == 2, "viewer 2's own app", SOON)
    own = maker.made[1]
    member = host.members[2]
    assert member.app is own and member.group is None and list(host.groups[(80, 24)].members) == [1]
    assert own.notice == "" and own.env == {"TERM": "xterm-256color", "N": "5"}
    assert getattr(own, "terminal_fd") == member.fd and getattr(own, "terminal_output") is member.out
    assert getattr(own, "typed_first") == b"q" and getattr(own, "driver_class") is HostedDriver
    assert member.out.fd not in asyncio.get_running_loop()._selector.get_map()  # type: ignore[attr-defined] # its app reads it now
    assert "viewer #2 draws alone from now on (a key)" in said(log)
    await until(lambda: own.started, "its app running", SOON)
    assert shared.exits == [] and host.members[1].app is None
    # The last member leaves by a click: the view ends, and a newcomer starts another.
    os.write(master, b"\x1b[<0;3;3M")
    await until(lambda: len(maker.made) == 3, "viewer 1's own app", SOON)
    assert shared.exits == [0] and host.groups == {}
    assert getattr(maker.made[2], "typed_first") == b"\x1b[<0;3;3M"
    viewer(server, ptys, 5)
    assert len(maker.made) == 4 and host.groups[(80, 24)].app is maker.made[3]
    assert server.heard() == []
    # Its own app reads the terminal now: what is typed no longer makes another.
    os.write(other, b"x")
    assert len(maker.made) == 4
    # Its own app ends: the viewer ends with the app's status.
    own.exit(return_code=0)
    await until(lambda: server.heard() == [{"op": "ended", "id": 2, "code": 0}], "viewer 2 ended", SOON)
    assert 2 not in host.members and member.app is None


async def test_a_viewer_who_cannot_have_an_app_of_its_own_ends(sockets: list[socket.socket], ptys: list[tuple[int, int]], log: pytest.LogCaptureFixture) -> None:
    maker = Maker()
    server = make_host(sockets, maker)
    master = viewer(server, ptys, 1)
    viewer(server, ptys, 2)
    maker.fail = True
    os.write(master, b"k")
    await until(lambda: server.heard() == [{"op": "ended", "id": 1, "code": 1}], "viewer 1 ended", SOON)
    assert said(log)[-1] == "viewer #1: the app failed: RuntimeError: no app today"
    assert sorted(server.host.members) == [2]


async def test_an_own_app_that_crashes_ends_its_viewer_with_status_1(sockets: list[socket.socket], ptys: list[tuple[int, int]], log: pytest.LogCaptureFixture) -> None:
    maker = Maker()
    server = make_host(sockets, maker)
    master = viewer(server, ptys, 1)
    os.write(master, b"k")
    await until(lambda: len(maker.made) == 2 and maker.made[1].started, "its own app running", SOON)
    own = maker.made[1]
    own.crash = ValueError("broken")
    own.exit(return_code=0)
    await until(lambda: server.heard() == [{"op": "ended", "id": 1, "code": 1}], "viewer 1 ended", SOON)
    assert said(log)[-1] == "viewer #1: the app failed: ValueError: broken"


async def test_an_own_apps_status_is_its_viewers(sockets: list[socket.socket], ptys: list[tuple[int, int]]) -> None:
    maker = Maker()
    server = make_host(sockets, maker)
    master = viewer(server, ptys, 1)
    os.write(master, b"k")
    await until(lambda: len(maker.made) == 2 and maker.made[1].started, "its own app running", SOON)
    maker.made[1].exit(return_code=3)
    await until(lambda: server.heard() == [{"op": "ended", "id": 1, "code": 3}], "viewer 1 ended with 3", SOON)


async def test_a_view_that_ends_under_its_viewers_ends_them(sockets: list[socket.socket], ptys: list[tuple[int, int]], log: pytest.LogCaptureFixture) -> None:
    maker = Maker()
    server = make_host(sockets, maker)
    host = server.host
    viewer(server, ptys, 1)
    viewer(server, ptys, 2)
    group = host.groups[(80, 24)]
    app = maker.made[0]
    await until(lambda: app.started, "the view running", SOON)
    app.crash = KeyError("gone")
    app.exit(return_code=0)
    await until(lambda: len(server.heard()) == 2, "both viewers ended", SOON)
    assert server.got == [{"op": "ended", "id": 1, "code": 1}, {"op": "ended", "id": 2, "code": 1}]
    assert host.groups == {} and host.members == {} and group.members == {}
    assert said(log)[-1] == "a shared view (80x24) failed: KeyError: 'gone'"
    with pytest.raises(OSError):
        os.fstat(group.master)


async def test_a_view_that_quits_gives_its_status_to_its_viewers(sockets: list[socket.socket], ptys: list[tuple[int, int]]) -> None:
    maker = Maker()
    server = make_host(sockets, maker)
    viewer(server, ptys, 1)
    await until(lambda: maker.made[0].started, "the view running", SOON)
    maker.made[0].exit(return_code=2)
    await until(lambda: server.heard() == [{"op": "ended", "id": 1, "code": 2}], "viewer 1 ended with 2", SOON)
    viewer(server, ptys, 2)
    await until(lambda: maker.made[1].started, "the next view running", SOON)
    maker.made[1].exit(return_code=0)  # a view is never left with status 0 by a viewer still in it
    await until(lambda: server.heard()[1:] == [{"op": "ended", "id": 2, "code": 1}], "viewer 2 ended with 1", SOON)


async def test_a_view_ending_late_does_not_take_the_next_one_of_its_size(sockets: list[socket.socket], ptys: list[tuple[int, int]]) -> None:
    maker = Maker()
    server = make_host(sockets, maker)
    host = server.host
    viewer(server, ptys, 1)
    first = host.groups[(80, 24)]
    server.say({"op": "end", "id": 1})  # its last viewer leaves: the view is ending
    assert host.groups == {} and maker.made[0].exits == [0]
    viewer(server, ptys, 2)
    second = host.groups[(80, 24)]
    assert second is not first
    await until(lambda: len(host.tasks) == 1, "the first view's run over", SOON)
    assert host.groups == {(80, 24): second}


async def test_the_server_ending_a_member_restores_its_terminal(sockets: list[socket.socket], ptys: list[tuple[int, int]]) -> None:
    maker = Maker()
    server = make_host(sockets, maker)
    host = server.host
    master = viewer(server, ptys, 1)
    viewer(server, ptys, 2)
    before = host.members[1].mode_before
    assert before is not None and termios.tcgetattr(master) != before
    read_all(master)
    server.say({"op": "end", "id": 1})
    assert server.heard() == [{"op": "ended", "id": 1, "code": 0}]
    assert list(host.groups[(80, 24)].members) == [2] and maker.made[0].exits == []
    # The terminal modes as they were (Linux: a pty's master and slave share them), and
    # what the app would write as it ends.
    assert termios.tcgetattr(master) == before
    got = bytearray()
    await until(lambda: gathered(master, got, LEAVE_APP_MODE), "the terminal left as an app leaves it", SOON)
    server.say({"op": "end", "id": 1})  # twice: nothing more
    server.say({"op": "end", "id": 77})
    server.say({"op": "end", "id": 2.0})  # not a viewer's number
    server.say({"op": "end", "id": True})
    assert server.heard() == [{"op": "ended", "id": 1, "code": 0}]


async def test_a_member_is_ended_once_whatever_was_closed_before(sockets: list[socket.socket], ptys: list[tuple[int, int]]) -> None:
    server = make_host(sockets, Maker())
    viewer(server, ptys, 1)
    member = server.host.members[1]
    server.host.leave(member.group, member)  # type: ignore[arg-type]
    os.close(member.fd)  # its slave gone already
    server.host._end(member, 0)
    server.host._end(member, 0)
    assert server.heard() == [{"op": "ended", "id": 1, "code": 0}]


def test_a_views_end_after_its_loop_has_ended_stops_no_reader(ptys: list[tuple[int, int]]) -> None:
    """A view's task closed once its loop is gone (at exit, or collected later) ends its
    members without a loop to stop reading them on: nothing to stop, nothing raised."""
    master, slave = new_pty(ptys)
    loop = asyncio.new_event_loop()
    try:
        out = Terminal(HostWriter(loop), slave, lambda: None)
    finally:
        loop.close()
    mine, theirs = socket.socketpair()
    host = Host(mine, lambda _env: None)  # type: ignore[arg-type,return-value]
    try:
        host._stop_reading(Member(1, slave, {}, out))
    finally:
        for end in (mine, theirs):
            end.close()
        out.close()


async def test_a_last_try_at_a_full_terminal_is_given_up_quietly(sockets: list[socket.socket], ptys: list[tuple[int, int]]) -> None:
    server = make_host(sockets, Maker())
    master, slave = new_pty(ptys)
    out = Terminal(server.host.writer, slave, lambda: None)  # type: ignore[arg-type]
    with contextlib.suppress(BlockingIOError):
        while True:  # nobody reads the master: the pty fills
            os.write(out.fd, b"x" * 4096)
    out.pending += b"left over"
    server.host.writer_close(out)
    assert out.gone and out.fd == -1


async def test_what_is_left_for_a_terminal_is_tried_once_more_as_it_closes(sockets: list[socket.socket], ptys: list[tuple[int, int]]) -> None:
    server = make_host(sockets, Maker())
    master, slave = new_pty(ptys)
    out = Terminal(server.host.writer, slave, lambda: None)  # type: ignore[arg-type]
    out.pending += b"left over"
    server.host.writer_close(out)
    assert out.gone and out.fd == -1
    assert read_all(master) == b"left over"
    out2 = Terminal(server.host.writer, slave, lambda: None)  # type: ignore[arg-type]
    out2.pending += b"not again"
    out2.gone = True
    server.host.writer_close(out2)
    assert out2.fd == -1 and read_all(master) == b""


async def test_the_server_ending_a_viewer_with_its_own_app_exits_that_app(sockets: list[socket.socket], ptys: list[tuple[int, int]]) -> None:
    maker = Maker()
    server = make_host(sockets, maker)
    master = viewer(server, ptys, 1)
    os.write(master, b"k")
    await until(lambda: len(maker.made) == 2 and maker.made[1].started, "its own app running", SOON)
    server.say({"op": "end", "id": 1})
    assert maker.made[1].exits == [0]
    await until(lambda: server.heard() == [{"op": "ended", "id": 1, "code": 0}], "viewer 1 ended", SOON)


async def test_a_member_whose_client_left_is_ended_with_status_1(sockets: list[socket.socket], ptys: list[tuple[int, int]]) -> None:
    maker = Maker()
    server = make_host(sockets, maker)
    master = viewer(server, ptys, 1)
    viewer(server, ptys, 2)
    loop = asyncio.get_running_loop()
    fd = server.host.members[1].out.fd
    assert fd in loop._selector.get_map()  # type: ignore[attr-defined]
    os.close(master)  # the server closed the master
    await until(lambda: server.heard() == [{"op": "ended", "id": 1, "code": 1}], "viewer 1 ended", SOON)
    assert fd not in loop._selector.get_map()  # type: ignore[attr-defined]
    assert list(server.host.groups[(80, 24)].members) == [2]


async def test_a_member_whose_terminal_cannot_be_read_is_ended_with_status_1(sockets: list[socket.socket], ptys: list[tuple[int, int]]) -> None:
    maker = Maker()
    server = make_host(sockets, maker)
    viewer(server, ptys, 1)
    member = server.host.members[1]
    os.close(member.out.fd)  # its descriptor gone behind the host's back: reading it fails
    server.host._typed(member)
    assert server.heard() == [{"op": "ended", "id": 1, "code": 1}] and len(maker.made) == 1
    assert server.host.members == {} and server.host.groups == {}


async def test_a_terminal_given_up_ends_its_member_or_its_app(sockets: list[socket.socket], ptys: list[tuple[int, int]]) -> None:
    maker = Maker()
    server = make_host(sockets, maker)
    host = server.host
    viewer(server, ptys, 1)
    master = viewer(server, ptys, 2)
    host.members[1].out.on_gone()  # the writer gave up on its terminal
    assert server.heard() == [{"op": "ended", "id": 1, "code": 1}]
    assert list(host.groups[(80, 24)].members) == [2]
    host._gone(1)  # twice: nothing more
    assert server.heard() == [{"op": "ended", "id": 1, "code": 1}]
    os.write(master, b"k")
    await until(lambda: len(maker.made) == 2 and maker.made[1].started, "its own app running", SOON)
    host.members[2].out.on_gone()
    assert maker.made[1].exits == [1]
    await until(lambda: server.heard()[1:] == [{"op": "ended", "id": 2, "code": 1}], "viewer 2 ended", SOON)


class Resizable(HostedDriver):
    def __init__(self) -> None:  # noqa: D107 - no app: only resized is asked of it
        self.times = 0

    def resized(self) -> None:
        self.times += 1


async def test_a_new_size_takes_a_member_out_of_its_view_and_resizes_an_own_app(sockets: list[socket.socket], ptys: list[tuple[int, int]], log: pytest.LogCaptureFixture) -> None:
    maker = Maker()
    server = make_host(sockets, maker)
    host = server.host
    master = viewer(server, ptys, 1)
    viewer(server, ptys, 2)
    server.say({"op": "size", "id": 1})  # the same size: nothing
    assert len(maker.made) == 1 and host.members[1].group is not None
    set_winsize(master, 120, 40)
    server.say({"op": "size", "id": 1})
    assert len(maker.made) == 2 and host.members[1].app is maker.made[1]
    assert getattr(maker.made[1], "typed_first") == b""
    assert "viewer #1 draws alone from now on (a new size)" in said(log)
    own = maker.made[1]
    driver = Resizable()
    own._driver = driver
    server.say({"op": "size", "id": 1})
    assert driver.times == 1
    own._driver = object()  # not the host's driver (yet): nothing to tell
    server.say({"op": "size", "id": 1})
    server.say({"op": "size", "id": 99})
    assert driver.times == 1 and len(maker.made) == 2


async def test_a_write_to_the_fight_is_read_once_per_follower(sockets: list[socket.socket], ptys: list[tuple[int, int]]) -> None:
    live = Live()
    maker = Maker(live)
    server = make_host(sockets, maker)
    viewer(server, ptys, 1)
    viewer(server, ptys, 2, 90, 30)
    server.say({"op": "changed"})
    assert live.looked == 1
    other = Live()
    maker.live = other
    viewer(server, ptys, 3, 70, 20)
    maker.live = None
    viewer(server, ptys, 4, 60, 20)
    server.say({"op": "changed"})
    assert (live.looked, other.looked) == (2, 1)


async def test_the_gms_replay_is_followed_by_every_app_and_by_the_next(sockets: list[socket.socket], ptys: list[tuple[int, int]]) -> None:
    maker = Maker()
    server = make_host(sockets, maker)
    host = server.host
    assert host.replaying is None
    viewer(server, ptys, 1)
    assert maker.made[0].followed == []  # at now: nothing to follow
    server.say({"op": "replay", "segment": 4})
    assert host.replaying == 4 and maker.made[0].followed == [4]
    viewer(server, ptys, 2, 90, 30)
    assert maker.made[1].followed == [4]  # made as the table stands
    server.say({"op": "replay", "segment": None})
    assert host.replaying is None and [a.followed for a in maker.made] == [[4, None], [4, None]]
    for bad in (True, -1, "3", 2.0):
        server.say({"op": "replay", "segment": 0})
        server.say({"op": "replay", "segment": bad})
        assert host.replaying is None
    assert maker.made[0].followed[-2:] == [0, None]
    viewer(server, ptys, 3, 70, 20, replay=0)  # an opening viewer brings the table's replay
    assert host.replaying == 0 and maker.made[2].followed == [0] and maker.made[0].followed[-1] is None
    viewer(server, ptys, 4, 60, 20, replay=None)
    assert host.replaying is None and maker.made[3].followed == []
    server.say({"op": "replay", "segment": 6})
    viewer(server, ptys, 5, 50, 20)  # no word of the replay: as it was
    assert host.replaying == 6 and maker.made[4].followed == [6]
    server.say({"op": "size", "segment": 2})  # only a replay says a segment
    assert host.replaying == 6


async def test_apps_without_a_replay_to_follow_are_left_be(sockets: list[socket.socket], ptys: list[tuple[int, int]]) -> None:
    class Plain:
        """An app with no replay to follow (not a TrackerApp)."""

        def __init__(self, notice: str) -> None:
            self.notice = notice

        async def run_async(self) -> None:
            await asyncio.Event().wait()

    server = make_host(sockets, lambda notice: Plain(notice))  # type: ignore[arg-type]
    viewer(server, ptys, 1, replay=2)
    server.say({"op": "replay", "segment": 3})
    server.say({"op": "changed"})  # nor a follower to nudge
    assert server.host.replaying == 3 and len(server.host.groups) == 1 and server.heard() == []
    for task in list(server.host.tasks):
        task.cancel()


async def test_the_server_gone_or_saying_quit_ends_the_host(sockets: list[socket.socket]) -> None:
    server = make_host(sockets, Maker())
    host = server.host
    loop = asyncio.get_running_loop()
    server.say({"op": "nonsense"})
    server.say({"op": "quit"})
    assert host.quit_now.is_set()
    server2 = make_host(sockets, Maker())
    loop.add_reader(server2.host.sock.fileno(), lambda: None)
    server2.line.close()
    server2.host.readable()
    assert server2.host.quit_now.is_set()
    assert server2.host.sock.fileno() not in loop._selector.get_map()  # type: ignore[attr-defined]
    server2.host.readable()  # nothing to read: nothing happens
    sockets.remove(server2.line)


async def test_a_line_to_the_server_that_fails_ends_the_host(sockets: list[socket.socket]) -> None:
    server = make_host(sockets, Maker())
    sock = server.host.sock
    os.close(sock.fileno())  # closed behind its back: reading it fails
    try:
        server.host.readable()
        assert server.host.quit_now.is_set()
    finally:
        sock.detach()
        sockets.remove(sock)


async def test_nothing_to_read_from_the_server_is_nothing(sockets: list[socket.socket]) -> None:
    server = make_host(sockets, Maker())
    server.host.readable()
    assert not server.host.quit_now.is_set()


async def test_a_server_gone_is_told_nothing_more(sockets: list[socket.socket], ptys: list[tuple[int, int]]) -> None:
    server = make_host(sockets, Maker())
    server.line.close()
    sockets.remove(server.line)
    server.host.tell({"op": "ended", "id": 1, "code": 0})  # quiet


async def test_the_host_runs_until_told_to_quit_and_ends_every_viewer(sockets: list[socket.socket], ptys: list[tuple[int, int]]) -> None:
    maker = Maker()
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    sockets += [ours, theirs]
    host = Host(ours, maker)
    running = asyncio.get_running_loop().create_task(host.run())
    await until(lambda: host.writer is not None, "the host's writer", SOON)
    assert not ours.getblocking()
    from textual.drivers import linux_driver
    from tracker.ui.textual_private import DirectWriter

    assert getattr(linux_driver, "WriterThread") is not DirectWriter  # install_direct_writer's stand-in writer
    master, slave = new_pty(ptys)
    send(theirs, {"op": "open", "id": 1, "env": carried({}), "notice": ""}, slave)
    other, slave2 = new_pty(ptys)
    send(theirs, {"op": "open", "id": 2, "env": carried({}), "notice": ""}, slave2)
    await until(lambda: len(host.members) == 2, "two viewers", SOON)
    os.write(other, b"k")
    await until(lambda: len(maker.made) == 2 and maker.made[1].started, "viewer 2's own app", SOON)
    send(theirs, {"op": "quit"})
    assert await asyncio.wait_for(running, SOON) == 0
    assert maker.made[0].exits == [0] and maker.made[1].exits == [0]
    theirs.setblocking(False)
    got: list[dict[str, Any]] = []
    with contextlib.suppress(BlockingIOError):
        while (message := receive(theirs)[0]) is not None:
            got.append(message)
    assert sorted(got, key=lambda m: m["id"]) == [{"op": "ended", "id": 1, "code": 0}, {"op": "ended", "id": 2, "code": 0}]
    assert LEAVE_APP_MODE in read_all(master)


async def test_the_host_waits_for_its_apps_no_longer_than_its_grace(sockets: list[socket.socket], ptys: list[tuple[int, int]], monkeypatch: pytest.MonkeyPatch) -> None:
    assert QUIT_GRACE == 2.0

    class Stubborn(StandIn):
        def exit(self, result: Any = None, return_code: int = 0) -> None:
            self.exits.append(return_code)  # never ends

    maker_made: list[StandIn] = []

    def make(notice: str) -> Any:
        app = Stubborn(notice)
        maker_made.append(app)
        return app

    monkeypatch.setattr(viewer_host, "QUIT_GRACE", 0.2)
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    sockets += [ours, theirs]
    host = Host(ours, make)
    running = asyncio.get_running_loop().create_task(host.run())
    master, slave = new_pty(ptys)
    send(theirs, {"op": "open", "id": 1, "env": carried({}), "notice": ""}, slave)
    await until(lambda: len(host.members) == 1, "a viewer", SOON)
    os.write(master, b"k")
    await until(lambda: len(maker_made) == 2, "its own app", SOON)
    send(theirs, {"op": "quit"})
    assert await asyncio.wait_for(running, SOON) == 0
    assert maker_made[1].exits == [0]
    for task in list(host.tasks):
        task.cancel()


# ----------------------------------------------------------------- the forked host


def _fork_host(saves: str, line: socket.socket, err: int) -> int:
    pid = os.fork()
    if pid == 0:  # the child: the host, its stderr the test's pipe, its stdin another pipe
        try:
            os.dup2(err, 2)
            os.dup2(os.pipe()[0], 0)
            start_host(line, saves, Maker())
        finally:
            os._exit(99)  # start_host never returns
    return pid


def test_a_forked_host_runs_until_told_to_quit(tmp_path: Any) -> None:
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    r, w = os.pipe()
    pid = _fork_host(str(tmp_path), theirs, w)
    os.close(w)
    theirs.close()
    master, slave = pty.openpty()
    try:
        send(ours, {"op": "open", "id": 1, "env": carried({}), "notice": ""}, slave)  # a viewer: an app made for it
        send(ours, {"op": "end", "id": 1})
        ours.settimeout(SOON)
        assert receive(ours)[0] == {"op": "ended", "id": 1, "code": 0}
        send(ours, {"op": "quit"})
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert os.read(r, 1000) == b""
    finally:
        for fd in (r, master, slave):
            os.close(fd)
        ours.close()


def test_a_forked_host_that_fails_says_so_and_exits_1(tmp_path: Any) -> None:
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    r, w = os.pipe()
    pid = _fork_host(str(tmp_path / "absent"), theirs, w)
    os.close(w)
    theirs.close()
    try:
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 1
        said = os.read(r, 1000).decode()
        assert said == f"tracker serve: viewers' process {pid} failed: FileNotFoundError: [Errno 2] No such file or directory: '{tmp_path / 'absent'}'\n"
    finally:
        os.close(r)
        ours.close()


class Unreadable:
    """A control line whose failure is not text (a lone surrogate)."""

    def fileno(self) -> int:
        raise ValueError("no line \udcff here")


def test_a_failure_that_is_not_text_is_said_all_the_same(tmp_path: Any) -> None:
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.dup2(w, 2)
            start_host(Unreadable(), str(tmp_path), Maker())  # type: ignore[arg-type]
        finally:
            os._exit(99)
    os.close(w)
    try:
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 1
        assert os.read(r, 1000) == f"tracker serve: viewers' process {pid} failed: ValueError: no line ? here\n".encode()
    finally:
        os.close(r)


def test_a_forked_host_leads_no_terminal_ignores_ctrl_c_and_runs_in_the_saves_folder(tmp_path: Any) -> None:
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    r, w = os.pipe()
    pid = _fork_host(str(tmp_path), theirs, w)
    os.close(w)
    theirs.close()
    a, b = os.pipe()
    try:
        send(ours, {"op": "open", "id": 1, "env": carried({}), "notice": ""}, a)  # no terminal: ended at once
        ours.settimeout(SOON)
        assert receive(ours)[0] == {"op": "ended", "id": 1, "code": 1}  # the host is running
        assert os.getsid(pid) == pid and os.getsid(0) != pid
        assert os.readlink(f"/proc/{pid}/cwd") == str(tmp_path)
        assert os.path.samefile(f"/proc/{pid}/fd/1", os.devnull) and os.path.samefile(f"/proc/{pid}/fd/0", os.devnull)
        os.kill(pid, signal.SIGINT)  # the server's ctrl+c is not the host's
        send(ours, {"op": "quit"})
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
    finally:
        for fd in (r, a, b):
            os.close(fd)
        ours.close()
