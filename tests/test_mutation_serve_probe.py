"""Direct tests of tracker.serve.probe: probing a running table from outside (the module
docstring). The tools the serve tests and benchmarks lean on are checked against small
stand-ins on 127.0.0.1 only: a stand-in for `python -m tracker serve` (a script that
logs as the server does), an asyncssh server that draws a line and echoes keys, a
stand-in for OpenSSH's `ssh`, and a TCP listener for the silent strangers. What a screen
shows is its text with the escape sequences taken out; every wait has a deadline and
says what it waited for."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import stat
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncssh
import pytest

from tracker.serve import probe
from tracker.serve.probe import ROOT, OpenSSHScreen, Screen, ServerProcess, Strangers, _Collector, alive, env, make_key, openssh_argv, plain
from tests.helpers import until

pytestmark = pytest.mark.serve

SOON = 10.0  # seconds: what is waited for takes milliseconds; a broken one fails in this time


# ----------------------------------------------------------------- text and environment


@pytest.mark.parametrize(
    ("drawn", "text"),
    [
        (b"\x1b[1;31mred\x1b[0m", "red"),
        (b"\x1b[?1049h\x1b[2J\x1b[10;4Hat", "at"),
        (b"\x1b]0;title\x07a\x1b]8;;http://x\x1b\\b", "ab"),  # OSC ended by BEL, then by ST
        (b"\x1bPq#0;2\x1b\\c", "c"),  # DCS
        (b"\x1bMd\x1bD\x1b\\", "d"),  # two-byte escapes (ESC and 0x40-0x5F)
        (b"\x1b(Be\x1b)0", "e"),  # character sets
        (b"\x1b[ qf", "f"),  # an intermediate byte
        (b"caf\xc3\xa9 \xff", "café \ufffd"),
        (b"plain [1m text", "plain [1m text"),
    ],
)
def test_a_screens_text_is_what_it_drew_without_escapes(drawn: bytes, text: str) -> None:
    assert plain(drawn) == text


def test_root_holds_the_tracker_and_the_rulesets() -> None:
    assert (ROOT / "tracker" / "serve" / "probe.py").is_file() and (ROOT / "rulesets").is_dir()


def test_the_servers_environment_finds_this_checkout_and_may_write(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", "/elsewhere")
    monkeypatch.setenv("TRACKER_READ_ONLY", "1")
    monkeypatch.setenv("SOMETHING", "kept")
    made = env()
    assert made["PYTHONPATH"] == f"{ROOT}{os.pathsep}/elsewhere"
    assert "TRACKER_READ_ONLY" not in made and made["SOMETHING"] == "kept"
    assert os.environ["TRACKER_READ_ONLY"] == "1" and os.environ["PYTHONPATH"] == "/elsewhere"  # the test's own unchanged
    monkeypatch.setenv("PYTHONPATH", "")
    assert env()["PYTHONPATH"] == str(ROOT)
    monkeypatch.delenv("PYTHONPATH")
    monkeypatch.delenv("TRACKER_READ_ONLY")
    assert env()["PYTHONPATH"] == str(ROOT)


def test_a_key_is_written_private_with_its_public_half(tmp_path: Path) -> None:
    key = make_key(tmp_path / "bob", "bob@laptop")
    assert stat.S_IMODE(os.stat(tmp_path / "bob").st_mode) == 0o600
    read = asyncssh.read_private_key(str(tmp_path / "bob"))
    assert read.public_data == key.public_data and key.get_comment() == "bob@laptop"
    public = (tmp_path / "bob.pub").read_text()
    assert public.split()[1] == key.export_public_key().decode().split()[1] and public.split()[2] == "bob@laptop"
    assert key.algorithm == b"ssh-ed25519"


# ----------------------------------------------------------------- the server as a subprocess


def stand_in(tmp_path: Path, body: str) -> str:
    """A `python` for ServerProcess.start: it logs its arguments and TRACKER_CONFIG on
    standard error as the server logs, then does `body`."""
    path = tmp_path / "python"
    path.write_text(
        f"#!{sys.executable}\n"
        + textwrap.dedent(
            """\
            import os, signal, sys, time
            def say(line):
                sys.stderr.write(line + "\\n")
                sys.stderr.flush()
            say("argv " + " ".join(sys.argv[1:]))
            say("config " + os.environ.get("TRACKER_CONFIG", "-") + " cwd " + os.getcwd())
            null = os.stat(os.devnull)
            say("stdin " + ("null" if os.path.samestat(os.fstat(0), null) else "other") + " stdout " + ("null" if os.path.samestat(os.fstat(1), null) else "other"))
            """
        )
        + textwrap.dedent(body)
    )
    path.chmod(0o755)
    return str(path)


LISTENS = """\
signal.signal(signal.SIGTERM, lambda *a: sys.exit(5))
say("tracker serve: listening on 127.0.0.1 port 4321")
say("seat #1 app pid 77")
say("seat #2 app pid 78")
say("a line that ends in X")
say("a line that ends in spaces  ")
parent = os.getppid()
for _ in range(600):  # a minute at most, and not past the test's process: never left behind
    if os.getppid() != parent:
        break
    time.sleep(0.1)
"""


def test_the_server_is_started_on_a_free_port_and_its_log_kept(tmp_path: Path) -> None:
    saves = tmp_path / "saves"
    server = ServerProcess.start(saves, "--open-viewers", python=stand_in(tmp_path, LISTENS), cwd=str(tmp_path), timeout=SOON)
    try:
        assert server.port == 4321
        assert server.lines[0] == f"argv -m tracker --saves {saves} serve --port 0 --open-viewers"
        assert server.lines[1] == f"config {tmp_path / 'config' / 'config.toml'} cwd {tmp_path}"  # beside the saves: never the real one
        assert server.wait_line(r"app pid 78", timeout=SOON) == "seat #2 app pid 78"
        assert server.app_pids() == [77, 78]
        assert server.wait_line(r"app pid", timeout=SOON, start=5) == "seat #2 app pid 78"
        assert server.wait_line("argv", timeout=SOON).startswith("argv -m tracker")  # from the first line
        assert server.wait_line("ends in", timeout=SOON, start=6) == "a line that ends in X"  # the line as said, its newline alone taken off
        assert server.wait_line("spaces", timeout=SOON) == "a line that ends in spaces  "
        pumps = [t for t in threading.enumerate() if getattr(t, "_target", None) == server._pump]
        assert len(pumps) == 1 and pumps[0].daemon  # never holds the test's process at its end
        started = time.monotonic()
        refused = in_thread(lambda: server.wait_line("never said", timeout=0.3))
        assert isinstance(refused, AssertionError) and str(refused).startswith("no 'never said' in the server log within 0.3s: ['argv")
        assert 0.3 <= time.monotonic() - started < SOON
    finally:
        assert server.stop(timeout=SOON) == 5  # SIGTERM, as a person's ctrl+c would
    assert server.stop(timeout=SOON) == 5  # stopped already: its status again


def in_thread(call: Any) -> BaseException | None:
    """What `call` raised, run on a thread: a wait that never ended fails the test, not holds it."""
    raised: list[BaseException | None] = []

    def run() -> None:
        try:
            call()
        except BaseException as exc:  # noqa: B036 - what the call ended with is the result
            raised.append(exc)
        else:
            raised.append(None)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(SOON)
    ended = not thread.is_alive()
    assert ended
    return raised[0]


def test_a_server_that_never_listens_is_given_up_at_its_timeout(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    python = stand_in(tmp_path, f"open({str(pid_file)!r}, 'w').write(str(os.getpid()))\n" + LISTENS.split("say(", 1)[0] + LISTENS[LISTENS.index("parent = "):])
    started = time.monotonic()
    try:
        with pytest.raises(AssertionError, match=r"no 'listening on .*' in the server log within 0.5s"):
            ServerProcess.start(tmp_path / "saves", python=python, timeout=0.5)
        assert time.monotonic() - started < SOON
    finally:
        with contextlib.suppress(FileNotFoundError, ProcessLookupError, ValueError):
            os.kill(int(pid_file.read_text()), signal.SIGKILL)


def test_the_server_reads_nothing_and_writes_only_its_log(tmp_path: Path) -> None:
    """Its standard input and output are /dev/null whatever the test's are (here a pipe
    in place of the test's input, so a terminal's keys never reach the server)."""
    r, w = os.pipe()
    saved = os.dup(0)
    try:
        os.dup2(r, 0)
        server = ServerProcess.start(tmp_path / "saves", python=stand_in(tmp_path, LISTENS), timeout=SOON)
    finally:
        os.dup2(saved, 0)
        for fd in (saved, r, w):
            os.close(fd)
    try:
        assert server.lines[2] == "stdin null stdout null"
    finally:
        server.stop(timeout=SOON)


def test_the_servers_environment_is_its_own_when_given(tmp_path: Path) -> None:
    given = {"PATH": os.environ.get("PATH", ""), "TRACKER_CONFIG": str(tmp_path / "mine.toml")}
    server = ServerProcess.start(tmp_path / "saves", python=stand_in(tmp_path, LISTENS), environ=given, timeout=SOON)
    try:
        assert server.lines[1].startswith(f"config {tmp_path / 'mine.toml'} ")
    finally:
        server.stop(timeout=SOON)
    assert given == {"PATH": os.environ.get("PATH", ""), "TRACKER_CONFIG": str(tmp_path / "mine.toml")}  # not changed


def test_a_server_that_exits_is_said_at_once(tmp_path: Path) -> None:
    python = stand_in(tmp_path, 'say("tracker: --campaign: no such file")\nsys.exit(2)\n')
    started = time.monotonic()
    with pytest.raises(AssertionError, match=r"server exited \(2\) without 'listening on \.\* port \(\\\\d\+\)': \[.*no such file"):
        ServerProcess.start(tmp_path / "saves", python=python, timeout=SOON * 3)
    assert time.monotonic() - started < SOON  # not the whole timeout


def test_a_line_the_server_said_before_it_exited_is_still_found(tmp_path: Path) -> None:
    python = stand_in(tmp_path, 'say("tracker serve: listening on 127.0.0.1 port 99")\nsay("bye")\nsys.exit(0)\n')
    server = ServerProcess.start(tmp_path / "saves", python=python, timeout=SOON)
    assert server.port == 99
    server.proc.wait(SOON)
    assert server.wait_line("bye", timeout=0.5) == "bye"
    with pytest.raises(AssertionError, match=r"server exited \(0\) without 'nothing'"):
        server.wait_line("nothing", timeout=SOON)


def test_a_server_that_does_not_stop_is_killed(tmp_path: Path) -> None:
    python = stand_in(tmp_path, LISTENS.replace("sys.exit(5)", "None"))
    server = ServerProcess.start(tmp_path / "saves", python=python, timeout=SOON)
    try:
        assert isinstance(in_thread(lambda: server.stop(timeout=0.3)), subprocess.TimeoutExpired)
    finally:
        if server.proc.returncode is None:
            server.proc.kill()
            server.proc.wait()
    assert server.proc.returncode == -signal.SIGKILL


# ----------------------------------------------------------------- an SSH screen


class Drawing(asyncssh.SSHServer):
    def begin_auth(self, username: str) -> bool:
        return username != "player"  # the default user needs no key here

    def public_key_auth_supported(self) -> bool:
        return True

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        return True

    def kbdint_auth_supported(self) -> bool:
        return True

    def get_kbdint_challenge(self, username: str, lang: str, submethods: str) -> bool:
        return True


async def draw(process: asyncssh.SSHServerProcess[bytes]) -> None:
    """Draws who and what it was asked for, then echoes; `q` ends."""
    cols, rows, _w, _h = process.term_size
    who = process.get_extra_info("username")
    process.stdout.write(f"\x1b[2J\x1b[1m{who} {process.term_type} {cols}x{rows}\x1b[0m\r\n".encode())
    while True:
        data = await process.stdin.read(100)
        if not data or b"q" in data:
            break
        process.stdout.write(b"got " + data + b"\r\n")
    process.exit(0)


@pytest.fixture
async def ssh_port(tmp_path: Path) -> AsyncIterator[int]:
    host_key = asyncssh.generate_private_key("ssh-ed25519")
    server = await asyncssh.create_server(Drawing, "127.0.0.1", 0, server_host_keys=[host_key], process_factory=draw, encoding=None)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()
        await server.wait_closed()


async def test_a_screen_is_a_pty_session_that_collects_what_is_drawn(ssh_port: int, tmp_path: Path) -> None:
    key = make_key(tmp_path / "k", "k")
    screen = await Screen.connect(ssh_port, key, size=(90, 27), term="vt220", username="bob")
    try:
        before = time.perf_counter()
        arrived = await screen.wait_for("bob vt220 90x27", timeout=SOON)
        assert before - SOON <= arrived <= time.perf_counter()
        assert screen.text.startswith("bob vt220 90x27")
        mark = len(screen.session.data)
        screen.send(b"hello")
        await screen.wait_for("got hello", timeout=SOON, since=mark)
        for n in range(30):  # a screen longer than the 2,000 characters an error shows
            screen.send(b"%099d" % n)
            await asyncio.wait_for(screen.wait_for("got %099d" % n, timeout=SOON), SOON)
        assert len(screen.text) > 2000
        started = time.monotonic()
        with pytest.raises(AssertionError) as late:
            await asyncio.wait_for(screen.wait_for("bob vt220", timeout=0.2, since=len(screen.session.data)), SOON)
        assert time.monotonic() - started >= 0.2
        assert str(late.value) == f"'bob vt220' not drawn within 0.2s; screen: {screen.text[-2000:]!r}"
        screen.send(b"q")
        with pytest.raises(AssertionError) as closed:
            await asyncio.wait_for(screen.wait_for("never", timeout=SOON), SOON)
        assert str(closed.value) == f"connection closed before 'never' appeared; screen: {screen.text[-2000:]!r}"
    finally:
        await screen.close()


async def test_a_screen_connects_without_a_key_and_as_the_default_user(ssh_port: int) -> None:
    screen = await Screen.connect(ssh_port, None)
    try:
        await screen.wait_for("player xterm-256color 100x30", timeout=SOON)
    finally:
        await screen.close()


async def test_a_screen_that_cannot_connect_in_time_says_so(tmp_path: Path) -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)  # accepts, never speaks
    try:
        with pytest.raises(asyncio.TimeoutError):
            await Screen.connect(listener.getsockname()[1], None, timeout=0.3)
    finally:
        listener.close()


def test_the_arrival_is_the_chunk_that_completed_the_text() -> None:
    collector = _Collector()
    assert collector.data == b"" and collector.arrivals == [] and not collector.changed.is_set() and not collector.closed.is_set()
    collector.data_received(b"\x1b[1mhel", None)
    assert collector.changed.is_set()
    collector.changed.clear()
    collector.data_received(b"lo\x1b[0m wor", None)
    collector.data_received(b"ld", None)
    assert collector.data == b"\x1b[1mhello\x1b[0m world" and [n for _t, n in collector.arrivals] == [7, 17, 19]
    screen = Screen(None, None, collector)  # type: ignore[arg-type]
    assert screen._arrival_of("hello", 0) == collector.arrivals[1][0]
    assert screen._arrival_of("world", 0) == collector.arrivals[2][0]
    assert screen._arrival_of("hel", 0) == collector.arrivals[0][0]
    assert screen._arrival_of("wor", 7) == collector.arrivals[1][0]
    assert screen._arrival_of("hel", 7) > collector.arrivals[2][0]  # not there after 7: now
    collector.connection_lost(None)
    assert collector.closed.is_set() and collector.changed.is_set()


# ----------------------------------------------------------------- OpenSSH


def test_openssh_is_asked_for_this_key_alone_with_no_config() -> None:
    assert openssh_argv("/usr/bin/ssh", 2222, Path("/k/id"), "-tt", "127.0.0.1") == [
        "/usr/bin/ssh", "-p", "2222", "-i", "/k/id", "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no",
        "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR", "-F", "/dev/null", "-tt", "127.0.0.1",
    ]


def fake_ssh(tmp_path: Path, body: str) -> str:
    path = tmp_path / "ssh"
    path.write_text(f"#!{sys.executable}\nimport sys, time\nout = sys.stdout.buffer\n" + textwrap.dedent(body))
    path.chmod(0o755)
    return str(path)


ECHOES = """\
sys.stderr.write("ssh: a warning\\n")
sys.stderr.flush()
out.write(b"\\x1b[2J" + " ".join(sys.argv[1:]).encode() + b"\\r\\n")
out.flush()
while True:
    line = sys.stdin.buffer.readline()
    if not line or line.strip() == b"q":
        break
    out.write(b"\\x1b[1mgot\\x1b[0m " + line)
    out.flush()
out.write(b"bye\\n")
out.flush()
sys.exit(3)
"""


async def test_openssh_on_a_forced_pty_is_read_sent_to_and_finished(tmp_path: Path) -> None:
    ssh = fake_ssh(tmp_path, ECHOES)
    screen = await OpenSSHScreen.start(ssh, 2200, tmp_path / "key", "-l", "bob")
    try:
        assert screen.seen == b""
        asked = " ".join(openssh_argv(ssh, 2200, tmp_path / "key", "-tt", "-l", "bob", "127.0.0.1")[1:])
        await asyncio.wait_for(screen.wait_for(asked.encode()), SOON)  # this port and key, the host last
        await screen.send(b"one\n")
        await asyncio.wait_for(screen.wait_for(b"got one"), SOON)
        await screen.send(b"q\n")
        assert await asyncio.wait_for(screen.finish(), SOON) == 3
        assert screen.seen.endswith(b"bye\n") and plain(screen.seen).count("got one") == 1
        assert screen.proc.stderr is not None  # ssh's own messages kept apart from the screen
        assert await asyncio.wait_for(screen.proc.stderr.read(), SOON) == b"ssh: a warning\n"
    finally:
        await screen.close()


async def test_waiting_on_openssh_reads_only_what_is_new(tmp_path: Path) -> None:
    ssh = fake_ssh(tmp_path, ECHOES)
    screen = await OpenSSHScreen.start(ssh, 2200, tmp_path / "key")
    try:
        await asyncio.wait_for(screen.wait_for(b"127.0.0.1"), SOON)
        await screen.send(b"one\n")
        await asyncio.wait_for(screen.wait_for(b"got one"), SOON)
        waiting = asyncio.get_running_loop().create_task(screen.wait_for(b"got one"))
        await asyncio.sleep(0.2)
        assert not waiting.done()  # drawn before: waits for it again
        await screen.send(b"one\n")
        await asyncio.wait_for(waiting, SOON)
        await screen.send(b"x" * 600 + b"\n")  # more than the 500 bytes an error shows
        await asyncio.wait_for(screen.wait_for(b"x" * 600), SOON)
        await screen.send(b"q\n")
        with pytest.raises(AssertionError) as ended:
            await asyncio.wait_for(screen.wait_for(b"never"), SOON)
        assert str(ended.value).startswith("ssh ended before b'never': ")
        assert str(ended.value).split("\n")[0] == f"ssh ended before b'never': {screen.seen[-500:]!r}"
    finally:
        await screen.close()


async def test_closing_openssh_kills_it_if_it_still_runs(tmp_path: Path) -> None:
    ssh = fake_ssh(tmp_path, "time.sleep(60)\n")
    screen = await OpenSSHScreen.start(ssh, 2200, tmp_path / "key")
    await screen.close()
    assert screen.proc.returncode == -signal.SIGKILL
    await screen.close()  # ended: nothing more


# ----------------------------------------------------------------- strangers


@pytest.fixture
async def listener() -> AsyncIterator[tuple[int, list[tuple[str, bytes]], list[asyncio.StreamWriter]]]:
    """A TCP listener on 127.0.0.1 that notes where each client came from and its first
    line, and keeps the connection open (the test closes it)."""
    seen: list[tuple[str, bytes]] = []
    open_ones: list[asyncio.StreamWriter] = []

    async def client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        open_ones.append(writer)
        host = writer.get_extra_info("peername")[0]
        try:
            first = await asyncio.wait_for(reader.readline(), 0.3)
        except asyncio.TimeoutError:
            first = b""
        seen.append((host, first))

    server = await asyncio.start_server(client, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1], seen, open_ones
    finally:
        for writer in open_ones:
            writer.close()
        server.close()
        await server.wait_closed()


async def test_strangers_connect_from_their_addresses_and_come_back(listener: Any) -> None:
    port, seen, open_ones = listener
    strangers = Strangers(port, 3, first=5, sources=2, speak=True)
    assert (strangers.port, strangers.count, strangers.first, strangers.sources, strangers.speak) == (port, 3, 5, 2, True)
    assert (strangers.reconnects, strangers.connected, strangers.tasks) == (0, 0, [])
    strangers.start()
    try:
        await until(lambda: len(seen) == 3 and strangers.connected == 3, "three strangers", SOON)
        assert sorted(seen) == [("127.0.0.5", b"SSH-2.0-Staller\r\n"), ("127.0.0.5", b"SSH-2.0-Staller\r\n"), ("127.0.0.6", b"SSH-2.0-Staller\r\n")]
        assert strangers.reconnects == 0
        open_ones[0].write(b"SSH-2.0-server\r\n")  # read, and nothing said back
        open_ones[0].close()
        await until(lambda: strangers.reconnects == 1 and len(seen) == 4 and strangers.connected == 3, "one back", SOON)
    finally:
        await strangers.stop()
    assert all(task.done() for task in strangers.tasks) and strangers.connected == 0


async def test_silent_strangers_say_nothing(listener: Any) -> None:
    port, seen, _open_ones = listener
    strangers = Strangers(port, 2)
    strangers.start()
    try:
        await until(lambda: len(seen) == 2, "two strangers", SOON)
        assert seen == [("127.0.0.2", b""), ("127.0.0.2", b"")]
    finally:
        await strangers.stop()


async def test_a_stranger_that_cannot_connect_tries_again(unused_tcp_port: int) -> None:
    strangers = Strangers(unused_tcp_port, 1)
    strangers.start()
    try:
        await until(lambda: strangers.reconnects >= 2, "tried again", SOON)
        assert strangers.connected == 0
    finally:
        await strangers.stop()


# ----------------------------------------------------------------- processes


def test_a_process_is_alive_until_it_is_a_zombie() -> None:
    assert alive(os.getpid())
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        assert alive(child.pid)
        child.kill()
        deadline = time.monotonic() + SOON
        while alive(child.pid):  # a zombie until reaped
            assert time.monotonic() < deadline
            time.sleep(0.01)
        assert os.path.exists(f"/proc/{child.pid}")
    finally:
        child.wait()
    assert not alive(child.pid)
    assert probe.alive(2**22 + 7) is False  # past pid_max: no such process


def test_a_process_whose_name_looks_like_a_state_is_read_by_its_state(tmp_path: Path) -> None:
    """/proc/PID/stat gives the name in parentheses, then the state: a name holding ") Z"
    is not the state."""
    odd = tmp_path / "x) Z y) Z"
    odd.symlink_to(sys.executable)
    child = subprocess.Popen([str(odd), "-c", "import time; time.sleep(60)"])
    try:
        with open(f"/proc/{child.pid}/stat") as handle:
            assert ") Z y) Z)" in handle.read()  # the name, as the kernel gives it
        assert alive(child.pid)
    finally:
        child.kill()
        child.wait()
