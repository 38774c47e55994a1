"""Direct tests of tracker.serve.viewer_processes: the server's side of the viewers'
processes (the module docstring, decisions 0036 and 0055). A viewer joins a running
process only on the same fight with the same kind of terminal (`PROFILE`) and a free
place, else a new one is forked; the server speaks to each on its own socket (each
viewer opened with its pty, sized, ended; the fight written: a nudge that never waits);
a process that stops answering or dies ends its viewers' sessions and is killed; one
whose last viewer left is ended and reaped. The test plays the viewers' process on the
other end of the socket; its process is a real child of the test's that waits to be
ended (or killed)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import re
import signal
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from tracker.serve import viewer_processes
from tracker.serve.control import receive, send
from tracker.serve.pty_bridge import ForkedProcess
from tracker.serve.viewer_processes import CHANGED, PROFILE, HostedViewer, ViewerHost, ViewerHosts, profile_of
from tests.helpers import until
from tests.serve_log import log, said  # noqa: F401 (log: a fixture)

SOON = 10.0  # seconds: what is waited for takes milliseconds; a broken one fails in this time


class Made:
    """A viewers' process the test plays: `line` is the process's end of the socket, and
    closing `release` lets the child exit (status 3)."""

    def __init__(self, host: ViewerHost, line: socket.socket, release: int) -> None:
        self.host, self.line, self.release = host, line, release

    def let_go(self) -> None:
        if self.release >= 0:
            os.close(self.release)
            self.release = -1

    def heard(self) -> list[dict[str, Any]]:
        got = []
        self.line.setblocking(False)
        while True:
            try:
                message, fd = receive(self.line)
            except BlockingIOError:
                return got
            if fd is not None:
                os.close(fd)
            if message is None:
                return got
            got.append(message)


@pytest.fixture
def made() -> Iterator[list[Made]]:
    hosts: list[Made] = []
    yield hosts
    for one in hosts:
        one.let_go()
        one.line.close()
        with contextlib.suppress(OSError):
            one.host.sock.close()
        with contextlib.suppress(ProcessLookupError):
            os.kill(one.host.pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(one.host.pid, 0)


def make_host(pool: ViewerHosts, made: list[Made], profile: tuple[str, ...] = ()) -> ViewerHost:
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: waits until let go, then exits 3
        try:
            for fd in [w] + [one.release for one in made if one.release >= 0]:  # only the test lets each go
                os.close(fd)
            os.read(r, 1)
        finally:
            os._exit(3)
    os.close(r)
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)  # after the fork: the child holds neither end
    host = ViewerHost(pool, ForkedProcess(pid), ours, profile)
    made.append(Made(host, theirs, w))
    return host


SHOWN_ESCAPE = "\u241b"  # how the log shows an escape character (tracker.engine.text.printable)


def test_a_terminals_kind_is_what_its_output_depends_on() -> None:
    assert PROFILE == ("TERM", "COLORTERM", "NO_COLOR", "LANG", "LC_ALL", "LC_CTYPE")
    env = {"TERM": "xterm-256color", "LANG": "C.UTF-8", "HOME": "/root", "NO_COLOR": "1"}
    assert profile_of(env) == ("xterm-256color", "", "1", "C.UTF-8", "", "")
    assert profile_of({}) == ("", "", "", "", "", "")
    assert json.loads(CHANGED) == {"op": "changed"}


# ----------------------------------------------------------------- one host


async def test_a_viewer_is_opened_in_the_host_with_its_pty(made: list[Made]) -> None:
    pool = ViewerHosts(4, "/saves")
    host = make_host(pool, made, ("fight.toml",))
    assert host.pool is pool and host.profile == ("fight.toml",) and host.pid == host.process.pid and not host.closed
    process = made[0]
    r, w = os.pipe()
    try:
        viewer = host.attach(7, w, {"TERM": "xterm"}, "the GM moved the table", 3)
        assert host.viewers == {7: viewer} and viewer.host is host and viewer.ident == 7 and viewer.pid == host.pid and viewer.returncode is None
        process.line.setblocking(True)
        message, fd = receive(process.line)
        assert message == {"op": "open", "id": 7, "env": {"TERM": "xterm"}, "notice": "the GM moved the table", "replay": 3}
        assert fd is not None and os.path.samestat(os.fstat(fd), os.fstat(w))
        os.close(fd)
        plain = host.attach(8, w, {})
        message, fd = receive(process.line)
        assert message == {"op": "open", "id": 8, "env": {}, "notice": "", "replay": None} and fd is not None
        os.close(fd)
        assert plain.returncode is None
    finally:
        os.close(r)
        os.close(w)


async def test_a_viewer_is_sized_and_ended_through_its_host(made: list[Made]) -> None:
    pool = ViewerHosts(4, "/saves")
    host = make_host(pool, made)
    viewer = host.attach(1, 0, {})
    process = made[0]
    process.heard()
    viewer.resized()
    assert process.heard() == [{"op": "size", "id": 1}]
    assert await asyncio.wait_for(viewer.end(0.05), SOON) is None  # the host did not end it in time: given up after 0.05 s
    assert process.heard() == [{"op": "end", "id": 1}]
    ending = asyncio.get_running_loop().create_task(viewer.end(30))
    await until(lambda: bool(process.heard()), "asked to end", SOON)
    send(process.line, {"op": "ended", "id": 1, "code": 0})
    assert await ending == 0
    assert await viewer.wait() == 0
    assert await viewer.end(30) == 0
    await until(lambda: host.closed, "the host, its last viewer gone, told to quit", SOON)
    assert process.heard() == [{"op": "quit"}]  # and the viewer, ended already, not asked again
    process.let_go()
    await until(lambda: not pool._ending, "the host reaped", SOON)


def test_a_viewers_end_is_its_first() -> None:
    class Host:
        pid = 42

    async def main() -> None:
        viewer = HostedViewer(Host(), 5)  # type: ignore[arg-type]
        viewer.ended(4)
        viewer.ended(1)
        assert viewer.returncode == 4 and await viewer.wait() == 4

    asyncio.run(main())


async def test_the_host_says_which_viewer_ended_and_how(made: list[Made], log: pytest.LogCaptureFixture) -> None:
    pool = ViewerHosts(4, "/saves")
    host = make_host(pool, made)
    pool.hosts.append(host)
    one, two, three = host.attach(1, 0, {}), host.attach(2, 0, {}), host.attach(3, 0, {})
    process = made[0]
    process.heard()
    send(process.line, {"op": "ended", "id": 2, "code": 5})
    await until(lambda: two.returncode is not None, "the second ended", SOON)
    assert two.returncode == 5 and set(host.viewers) == {1, 3}
    send(process.line, {"op": "ended", "id": 1, "code": "bad"})
    send(process.line, {"op": "ended", "id": "3", "code": 0})  # not an id
    send(process.line, {"op": "started", "id": 3, "code": 0})  # not an end
    send(process.line, {"op": "ended", "id": 99, "code": 0})  # nobody's
    await until(lambda: one.returncode is not None, "the first ended", SOON)
    assert one.returncode == 1 and three.returncode is None and host.viewers == {3: three}
    for _ in range(5):
        await asyncio.sleep(0.01)
    assert pool.hosts == [host] and not host.closed
    assert [r.getMessage() for r in log.records if r.name == "asyncio"] == []  # nobody's end read without an error
    send(process.line, {"op": "ended", "id": 3})
    await until(lambda: host not in pool.hosts, "the host retired", SOON)
    assert three.returncode == 1
    assert f"viewers' process {host.pid} ended: its last viewer left" in said(log)
    await until(lambda: process.heard() == [{"op": "quit"}], "told to quit", SOON)
    process.let_go()
    await until(lambda: host.process.returncode is not None, "the host reaped", SOON)
    assert host.process.returncode == 3
    await until(lambda: not pool._ending, "the ending done", SOON)


async def test_a_host_that_stops_answering_is_ended_and_its_viewers_with_it(made: list[Made], log: pytest.LogCaptureFixture) -> None:
    pool = ViewerHosts(4, "/saves")
    host = make_host(pool, made)
    pool.hosts.append(host)
    one, two = host.attach(1, 0, {}), host.attach(2, 0, {})
    process = made[0]
    process.line.close()  # gone: sending fails
    assert host.tell({"op": "size", "id": 1}) is False
    assert host.closed and pool.hosts == [] and host.viewers == {}
    assert one.returncode == 1 and two.returncode == 1
    errors = said(log, logging.ERROR)  # the server's own: not asyncio's, of a task another test left
    assert len(errors) == 1 and re.fullmatch(rf"viewers' process {host.pid} does not answer \(\[Errno \d+\] [A-Za-z ]+\); ending it", errors[0])  # the error, named
    assert f"viewers' process {host.pid} is gone: its 2 viewer(s) are disconnected" in said(log)
    await until(lambda: host.process.returncode is not None, "the host reaped", SOON)
    assert host.process.returncode == -signal.SIGKILL  # killed, not let go
    assert host.sock.fileno() == -1
    assert host.tell({"op": "size", "id": 1}) is False  # closed: nothing tried
    late = host.attach(3, 0, {})
    assert late.returncode == 1  # a viewer sent to a lost host ends at once
    host.lost()
    assert said(log).count(f"viewers' process {host.pid} is gone: its 2 viewer(s) are disconnected") == 1


async def test_a_host_that_dies_ends_its_viewers(made: list[Made], log: pytest.LogCaptureFixture) -> None:
    pool = ViewerHosts(4, "/saves")
    host = make_host(pool, made)
    pool.hosts.append(host)
    viewer = host.attach(1, 0, {})
    fd = host.sock.fileno()
    made[0].line.close()  # the other end gone: end of file on the host's socket
    await until(lambda: host.closed, "the host lost", SOON)
    assert viewer.returncode == 1 and pool.hosts == []
    loop = asyncio.get_running_loop()
    assert host.sock.fileno() == -1
    assert fd not in loop._selector.get_map()  # type: ignore[attr-defined]  # no longer read


async def test_a_nudge_never_waits(made: list[Made]) -> None:
    pool = ViewerHosts(4, "/saves")
    host = make_host(pool, made)
    host.sock.settimeout(5.0)  # as `_fork` makes it: a send to a host that stopped reading waits 5 s
    process = made[0]
    host.nudge()
    assert process.heard() == [{"op": "changed"}]
    loop = asyncio.get_running_loop()
    for _ in range(2000):  # nobody reads: the socket fills, the rest are dropped
        started = loop.time()
        host.nudge()
        assert loop.time() - started < 0.5  # not 5 s a nudge, nor any wait
    assert not host.closed and host.sock.gettimeout() == 5.0  # its sends still wait as `_fork` wants
    process.heard()
    host.closed = True
    host.nudge()
    assert process.heard() == []


async def test_quitting_a_host_ends_its_viewers_and_reaps_it(made: list[Made]) -> None:
    pool = ViewerHosts(4, "/saves")
    host = make_host(pool, made)
    viewer = host.attach(1, 0, {})
    process = made[0]
    process.heard()
    quitting = asyncio.get_running_loop().create_task(host.quit(5.0))
    await until(lambda: host.closed, "closed", SOON)
    assert process.heard() == [{"op": "quit"}]
    assert not quitting.done()  # waits for the process
    process.let_go()
    await quitting
    assert host.process.returncode == 3 and viewer.returncode == 0 and host.viewers == {}
    assert host.sock.fileno() == -1


async def test_a_host_that_does_not_quit_is_killed(made: list[Made]) -> None:
    pool = ViewerHosts(4, "/saves")
    host = make_host(pool, made)
    loop = asyncio.get_running_loop()
    started = loop.time()
    await asyncio.wait_for(host.quit(0.0), SOON)
    assert host.process.returncode == -signal.SIGKILL
    assert 0.9 <= loop.time() - started < 30  # a second past the grace
    await host.quit(0.0)  # twice: nothing more


# ----------------------------------------------------------------- the hosts


def test_a_viewer_joins_a_host_only_on_the_same_fight_and_terminal_with_room(monkeypatch: pytest.MonkeyPatch) -> None:
    pool = ViewerHosts(2, "/saves")

    class Host:
        def __init__(self, profile: tuple[str, ...], viewers: int, closed: bool = False) -> None:
            self.profile, self.viewers, self.closed = profile, dict.fromkeys(range(viewers)), closed

    env = {"TERM": "xterm", "LANG": "C.UTF-8"}
    key = ("a.toml", *profile_of(env))
    full, closed, other_fight, other_term = Host(key, 2), Host(key, 0, True), Host(("b.toml", *profile_of(env)), 0), Host(("a.toml", *profile_of({"TERM": "xterm"})), 0)
    pool.hosts = [full, closed, other_fight, other_term]  # type: ignore[list-item]
    assert not pool.has_room(env, "a.toml")
    room = Host(key, 1)
    pool.hosts.append(room)  # type: ignore[arg-type]
    assert pool.has_room(env, "a.toml") and pool._with_room(env, "a.toml") is room
    assert not pool.has_room({**env, "COLORTERM": "truecolor"}, "a.toml")
    assert pool.has_room({"TERM": "xterm"}, "a.toml")
    assert not pool.has_room(env)  # no fight: none of these
    pool.hosts.append(Host(("", *profile_of(env)), 0))  # type: ignore[arg-type]
    assert pool.has_room(env)  # on no fight yet
    pool.hosts.insert(0, Host(key, 0))  # type: ignore[arg-type]
    assert pool._with_room(env, "a.toml") is pool.hosts[0]  # the first with room


async def test_placing_viewers_forks_a_host_only_when_none_has_room(made: list[Made], monkeypatch: pytest.MonkeyPatch, log: pytest.LogCaptureFixture) -> None:
    pool = ViewerHosts(2, "/saves")
    assert (pool.per_host, pool.saves, pool.hosts) == (2, "/saves", [])
    forks: list[tuple[Any, tuple[str, ...]]] = []

    def fork(make_app: Any, profile: tuple[str, ...]) -> ViewerHost:
        forks.append((make_app, profile))
        return make_host(pool, made, profile)

    monkeypatch.setattr(pool, "_fork", fork)
    make_app = object()
    env = {"TERM": "xterm-256color"}
    first = pool.place(10, env, make_app, "a.toml", "hello", 2)  # type: ignore[arg-type]
    assert forks == [(make_app, ("a.toml", *profile_of(env)))] and len(pool.hosts) == 1
    host = pool.hosts[0]
    assert first.ident == 1 and first.host is host
    message, fd = receive(made[0].line)
    assert message == {"op": "open", "id": 1, "env": env, "notice": "hello", "replay": 2} and fd is not None
    os.close(fd)
    second = pool.place(10, env, make_app, "a.toml")  # type: ignore[arg-type]
    assert second.ident == 2 and second.host is host and len(forks) == 1
    third = pool.place(10, env, make_app, "a.toml")  # type: ignore[arg-type]
    assert third.ident == 3 and third.host is not host and len(forks) == 2 and len(pool.hosts) == 2
    pool.place(10, {}, make_app)  # type: ignore[arg-type]
    assert forks[-1][1] == ("", *profile_of({}))  # no fight yet
    pool.place(10, {"TERM": "\x1b[31m" + "t" * 60}, make_app)  # type: ignore[arg-type]
    started = [m for m in said(log) if " started " in m]
    assert started == [
        f"viewers' process {pool.hosts[0].pid} started (up to 2 viewers, TERM xterm-256color)",
        f"viewers' process {pool.hosts[1].pid} started (up to 2 viewers, TERM xterm-256color)",
        f"viewers' process {pool.hosts[2].pid} started (up to 2 viewers, TERM unset)",
        f"viewers' process {pool.hosts[3].pid} started (up to 2 viewers, TERM {SHOWN_ESCAPE}[31m{'t' * 35})",  # the escape shown as a symbol; 40 characters
    ]
    for one in made:
        one.heard()
    pool.tell_all({"op": "replay", "segment": 4})
    assert [one.heard() for one in made] == [[{"op": "replay", "segment": 4}]] * 4
    pool.nudge_all()
    assert [one.heard() for one in made] == [[{"op": "changed"}]] * 4
    for one in made:
        one.let_go()
    await pool.close()
    assert pool.hosts == [] and all(one.host.process.returncode == 3 for one in made)
    assert all(v.returncode == 0 for v in (first, second, third))


async def test_forgetting_a_host_it_does_not_hold_says_nothing(made: list[Made], log: pytest.LogCaptureFixture) -> None:
    pool = ViewerHosts(2, "/saves")
    host = make_host(pool, made)
    pool.forget(host, "whatever")
    assert said(log) == []
    pool.hosts.append(host)
    pool.forget(host, "is gone")
    assert said(log) == [f"viewers' process {host.pid} is gone"] and pool.hosts == []


async def test_a_retired_host_is_ended_in_the_background(made: list[Made]) -> None:
    pool = ViewerHosts(2, "/saves")
    host = make_host(pool, made)
    pool.hosts.append(host)
    pool.retire(host)
    assert pool.hosts == [] and len(pool._ending) == 1
    made[0].let_go()
    await until(lambda: not pool._ending, "the ending done", SOON)
    assert host.process.returncode == 3


async def test_closing_waits_for_hosts_still_ending(made: list[Made]) -> None:
    pool = ViewerHosts(2, "/saves")
    host, other = make_host(pool, made), make_host(pool, made)
    pool.hosts = [host, other]
    pool.retire(host)
    closing = asyncio.get_running_loop().create_task(pool.close())
    await until(lambda: other.closed, "the other told to quit", SOON)
    assert pool.hosts == [] and not closing.done()
    made[1].let_go()
    for _ in range(5):
        await asyncio.sleep(0.01)
    assert not closing.done()  # the retired one is still ending
    made[0].let_go()
    await closing
    assert host.process.returncode == 3 and other.process.returncode == 3


async def test_closing_is_not_stopped_by_a_host_that_fails_to_end(made: list[Made]) -> None:
    class Failing:
        ended = False

        async def quit(self) -> None:
            raise OSError("cannot end it")

    pool = ViewerHosts(2, "/saves")
    host = make_host(pool, made)
    failing = Failing()
    pool.hosts = [failing, host]  # type: ignore[list-item]
    made[0].let_go()
    await asyncio.wait_for(pool.close(), SOON)  # nothing raised: the others are ended all the same
    assert pool.hosts == [] and host.process.returncode == 3


async def test_a_host_is_a_forked_process_on_its_own_socket(made: list[Made], monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    """`_fork` for real: the child (here, standing in for start_host) gets the other end
    of the socket, the saves folder and the app maker; it ends the viewer it is given."""
    told = tmp_path / "told"

    server = os.getpid()

    def host_stand_in(line: socket.socket, saves: str, make_app: Any) -> None:
        assert os.getpid() != server, "the host started in the server's own process"
        try:
            message, fd = receive(line)
            told.write_text(json.dumps([saves, make_app("x"), message, fd is not None]))
            send(line, {"op": "ended", "id": message["id"] if message else 0, "code": 6})
            receive(line)  # the quit
        finally:
            os._exit(0)

    monkeypatch.setattr(viewer_processes, "start_host", host_stand_in)
    pool = ViewerHosts(2, "/the/saves")
    viewer = pool.place(0, {"TERM": "xterm"}, lambda notice: f"app {notice}", "f.toml")  # type: ignore[arg-type,return-value]
    host = viewer.host
    assert host.sock.gettimeout() == 5.0 and host.profile == ("f.toml", "xterm", "", "", "", "", "")
    assert (host.sock.family, host.sock.type) == (socket.AF_UNIX, socket.SOCK_SEQPACKET)  # a message a datagram
    assert await asyncio.wait_for(viewer.wait(), 30) == 6
    await until(lambda: host not in pool.hosts and not pool._ending, "retired and reaped", SOON)
    assert host.process.returncode == 0
    assert json.loads(told.read_text()) == ["/the/saves", "app x", {"op": "open", "id": 1, "env": {"TERM": "xterm"}, "notice": "", "replay": None}, True]
