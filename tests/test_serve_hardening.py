"""`tracker serve` under hostile or careless clients (docs/contributing/design.md#shared-table, issue 11 points 5 and 7).

One test per hardening point, over real clients on 127.0.0.1 (asyncssh, and OpenSSH's
`ssh` where it is installed): strangers stalling in the login cannot keep the GM out;
a session without a pty and a refused command are answered and closed; input is
flow-controlled; unsafe keys files and host keys are refused with the fix; a viewer's
app offers nothing that writes on the host. Every wait is on a condition, with a deadline.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import asyncssh
import pytest

from test_serve import NAME, Table, _serve, _table
from tests.helpers import DEADLINE, close_table
from tracker.serve.probe import OpenSSHScreen, Screen, ServerProcess, _Collector, env, openssh_argv
from tests.ui import settle

pytestmark = pytest.mark.serve

SSH = shutil.which("ssh")
needs_openssh = pytest.mark.skipif(SSH is None, reason="OpenSSH client `ssh` not installed (apt-get install openssh-client)")

SERVER_FAULTS = ("Traceback", "never retrieved", "BrokenPipeError", "Exception in callback")


def _faults(server: ServerProcess) -> list[str]:
    return [line for line in server.lines if any(f in line for f in SERVER_FAULTS)]


def _stall(port: int) -> socket.socket:
    """A client that says hello and then nothing: it stalls before authenticating."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    sock.sendall(b"SSH-2.0-Staller_1.0\r\n")
    return sock


async def _closed_by_server(sock: socket.socket, timeout: float) -> float:
    """Seconds until the server closes `sock` (reading whatever it sent first)."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    sock.setblocking(False)
    while True:
        try:
            data = await asyncio.wait_for(loop.sock_recv(sock, 65536), timeout - (loop.time() - start))
        except ConnectionResetError:
            data = b""
        if not data:
            return loop.time() - start


def _ssh(port: int, key: Path, *args: str, stdin: int | None = subprocess.DEVNULL, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    assert SSH is not None
    return subprocess.run(openssh_argv(SSH, port, key, *args), stdin=stdin, capture_output=True, text=True, timeout=timeout)


def _rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


# ------------------------------------------------------------------ MaxStartups, LoginGraceTime


async def test_strangers_stalling_in_login_do_not_take_seats_and_are_dropped_after_the_grace(tmp_path: Path) -> None:
    t = _table(tmp_path)
    server = _serve(t, "--encounter", "fight", "--max-connections", "2", "--login-grace", "3")
    stallers = [_stall(server.port), _stall(server.port)]
    screens: list[Screen] = []
    try:
        # Two strangers stalling in the login, a two-seat table: the GM and a player still get in.
        for key in (t.gm, t.viewer):
            screens.append(await Screen.connect(server.port, key))
        for screen in screens:
            await screen.wait_for(NAME)
        # And the strangers are cut off once the login grace time has passed.
        for sock in stallers:
            assert await _closed_by_server(sock, 15) < 15
        server.wait_line("closed #.* unauthenticated: not logged in within 3s")
        # The seats really were two: a third authenticated client is told the table is full.
        with pytest.raises((asyncssh.DisconnectError, ConnectionError)) as full:
            await Screen.connect(server.port, t.viewer)
        assert "full" in str(full.value)
    finally:
        for sock in stallers:
            sock.close()
        await close_table(server, screens)
    assert not _faults(server)


async def test_too_many_connections_logging_in_at_once_are_dropped_apart_from_the_seats(tmp_path: Path) -> None:
    t = _table(tmp_path)
    server = _serve(t, "--encounter", "fight", "--max-startups", "2", "--login-grace", "60")
    stallers = [_stall(server.port), _stall(server.port)]
    try:
        third = _stall(server.port)
        assert await _closed_by_server(third, 10) < 10  # refused, and a silent one closed soon, not after 60 s
        server.wait_line(r"refused #\d+ .*too many connections .*logging in")
        third.close()
        for sock in stallers:
            sock.close()  # the strangers give up: the GM gets in
        loop = asyncio.get_running_loop()
        deadline = loop.time() + DEADLINE
        while True:
            try:
                gm = await Screen.connect(server.port, t.gm)
                break
            except (asyncssh.Error, ConnectionError):
                if loop.time() > deadline:
                    raise
                await asyncio.sleep(0.05)  # the server has not seen the strangers go yet
        try:
            await gm.wait_for(NAME)
        finally:
            await gm.close()
    finally:
        assert server.stop() == 0
    assert not _faults(server)


# ------------------------------------------------------------------ no pty, exec


@pytest.fixture(scope="module")
def one_seat(tmp_path_factory: pytest.TempPathFactory) -> Table:
    """A one-seat table: anything that kept the seat after it was refused shows at once."""
    t = _table(tmp_path_factory.mktemp("one_seat"))
    t.server = _serve(t, "--encounter", "fight", "--max-connections", "1")
    yield t  # type: ignore[misc]
    assert t.server.stop() == 0
    assert not _faults(t.server)


async def _seat_is_free(t: Table) -> None:
    """The GM gets the one seat and its app (retrying while the last client is leaving)."""
    assert t.server is not None
    loop = asyncio.get_running_loop()
    deadline = loop.time() + DEADLINE
    while True:
        try:
            gm = await Screen.connect(t.server.port, t.gm)
            break
        except (asyncssh.DisconnectError, ConnectionError):
            if loop.time() > deadline:
                raise
            await asyncio.sleep(0.05)
    try:
        await gm.wait_for(NAME)
    finally:
        await gm.close()


async def test_asyncssh_session_without_pty_is_answered_and_closed(one_seat: Table) -> None:
    assert one_seat.server is not None
    async with asyncssh.connect("127.0.0.1", one_seat.server.port, known_hosts=None, client_keys=[one_seat.gm], username="gm", agent_path=None) as conn:
        result = await asyncio.wait_for(conn.run(input="", term_type=None), DEADLINE)  # a shell, no pty, stdin at EOF
        assert result.exit_status == 1
        assert "connect with a terminal" in str(result.stderr) and "ssh -t" in str(result.stderr)
    await _seat_is_free(one_seat)


async def test_asyncssh_refused_command_is_answered_and_the_connection_can_still_open_the_app(one_seat: Table) -> None:
    assert one_seat.server is not None
    async with asyncssh.connect("127.0.0.1", one_seat.server.port, known_hosts=None, client_keys=[one_seat.gm], username="gm", agent_path=None) as conn:
        result = await asyncio.wait_for(conn.run("cat /etc/passwd", term_type="xterm"), DEADLINE)
        assert result.exit_status == 1
        assert "commands are not run here" in str(result.stderr) and "root:" not in str(result.stdout)
        # The refused command did not use up the connection's session: the app opens.
        chan, session = await conn.create_session(_Collector, term_type="xterm", term_size=(100, 30), encoding=None)
        screen = Screen(conn, chan, session)
        await screen.wait_for(NAME)
    one_seat.server.wait_line(r"refused command 'cat /etc/passwd'")
    await _seat_is_free(one_seat)


@needs_openssh
async def test_openssh_without_pty_gets_a_message_and_exits_at_once(one_seat: Table) -> None:
    assert one_seat.server is not None
    started = time.monotonic()
    result = await asyncio.to_thread(_ssh, one_seat.server.port, one_seat.root / "keys" / "gm", "-T", "127.0.0.1")
    assert time.monotonic() - started < 20  # not the idle timeout
    assert result.returncode == 1, result
    assert "connect with a terminal" in result.stderr
    await _seat_is_free(one_seat)  # no seat held


@needs_openssh
async def test_openssh_command_is_refused_with_a_message(one_seat: Table) -> None:
    assert one_seat.server is not None
    result = await asyncio.to_thread(_ssh, one_seat.server.port, one_seat.root / "keys" / "gm", "127.0.0.1", "id")
    assert result.returncode == 1, result
    assert "commands are not run here" in result.stderr and "uid=" not in result.stdout
    await _seat_is_free(one_seat)


@needs_openssh
async def test_openssh_with_a_pty_runs_the_app_and_quits_cleanly(one_seat: Table) -> None:
    """`ssh -tt`: the real client on a forced pty draws the GM's screen; q ends it, exit 0."""
    assert one_seat.server is not None and SSH is not None
    ssh = await OpenSSHScreen.start(SSH, one_seat.server.port, one_seat.root / "keys" / "gm")
    try:
        async with asyncio.timeout(30):
            await ssh.wait_for(NAME.encode())
            await ssh.send(b"q")
            code = await ssh.finish()
    finally:
        await ssh.close()
    assert code == 0
    await _seat_is_free(one_seat)


# ------------------------------------------------------------------ input flow control


async def test_a_flood_of_keys_does_not_grow_the_server(tmp_path: Path) -> None:
    t = _table(tmp_path)
    server = _serve(t, "--encounter", "fight")
    viewer = await Screen.connect(server.port, t.viewer)
    try:
        await viewer.wait_for(NAME)
        before = _rss_kb(server.proc.pid)
        flood = 64 * 1024 * 1024
        viewer.send(b"z" * flood)  # a key the app ignores; 64 MB of it
        # The server reads at most its window plus the app's queue, then stops reading:
        # the rest stays with the client. Wait until the client's buffer stops shrinking.
        loop = asyncio.get_running_loop()
        deadline = loop.time() + DEADLINE
        last = viewer.chan.get_write_buffer_size()
        steady = 0
        while steady < 20 and loop.time() < deadline:
            await asyncio.sleep(0.05)
            now = viewer.chan.get_write_buffer_size()
            steady = steady + 1 if now >= last - 65536 else 0
            last = now
        assert last > flood - 8 * 1024 * 1024, f"the server took {flood - last} bytes of input"
        grown = _rss_kb(server.proc.pid) - before
        assert grown < 16 * 1024, f"server grew by {grown} kB"
        # And it still serves: the GM gets in and draws while the flood waits.
        gm = await Screen.connect(server.port, t.gm)
        try:
            await gm.wait_for(NAME)
        finally:
            await gm.close()
    finally:
        viewer.conn.abort()
        assert server.stop() == 0
    assert not _faults(server)


# ------------------------------------------------------------------ strict modes


def _start(saves: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tracker", "--saves", str(saves), "serve", "--port", "0", *args], env=env(), capture_output=True, text=True, timeout=30
    )


def test_keys_file_writable_by_others_or_group_is_refused_at_start(tmp_path: Path) -> None:
    t = _table(tmp_path)
    gm_keys = t.root / "keys" / "gm_keys"
    for mode, who in ((0o666, "its group and others"), (0o620, "its group")):
        os.chmod(gm_keys, mode)
        result = _start(t.saves, "--gm-keys", str(gm_keys))
        assert result.returncode == 1
        assert f"{gm_keys}: writable by {who}" in result.stderr and f"chmod go-w {gm_keys}" in result.stderr
        assert "Traceback" not in result.stderr


def test_host_key_readable_by_others_is_refused_at_start(tmp_path: Path) -> None:
    t = _table(tmp_path)
    host_key = t.root / "host_key"
    os.chmod(t.root / "keys" / "gm", 0o600)
    shutil.copy(t.root / "keys" / "gm", host_key)  # any private key will do as a host key
    os.chmod(host_key, 0o644)
    result = _start(t.saves, "--gm-keys", str(t.root / "keys" / "gm_keys"), "--host-key", str(host_key))
    assert result.returncode == 1
    assert f"{host_key}: the host key is readable or writable by its group and others" in result.stderr
    assert f"chmod 600 {host_key}" in result.stderr and "Traceback" not in result.stderr


async def test_keys_file_made_writable_while_serving_is_refused_until_fixed(tmp_path: Path) -> None:
    t = _table(tmp_path)
    gm_keys = t.root / "keys" / "gm_keys"
    server = _serve(t, "--encounter", "fight")
    try:
        os.chmod(gm_keys, 0o666)
        with pytest.raises(asyncssh.PermissionDenied):
            await Screen.connect(server.port, t.gm)
        server.wait_line(f"{gm_keys}: writable by its group and others .*chmod go-w")
        os.chmod(gm_keys, 0o644)
        gm = await Screen.connect(server.port, t.gm)
        try:
            await gm.wait_for(NAME)
        finally:
            await gm.close()
    finally:
        assert server.stop() == 0


# ------------------------------------------------------------------ nothing that writes on the host


async def test_viewer_app_offers_no_screenshot_but_the_gm_app_does(tmp_path: Path) -> None:
    from tracker.ui.app import TrackerApp

    t = _table(tmp_path)
    for viewer in (True, False):
        app = TrackerApp(t.saves, t.file, viewer=viewer)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            titles = {command.title for command in app.get_system_commands(app.screen)}
        assert "Quit" in titles
        assert ("Screenshot" in titles) is not viewer


async def test_viewer_over_ssh_finds_no_screenshot_in_the_palette(tmp_path: Path) -> None:
    t = _table(tmp_path)
    server = _serve(t, "--encounter", "fight")
    try:
        for key, offered in ((t.gm, True), (t.viewer, False)):
            screen = await Screen.connect(server.port, key)
            try:
                await screen.wait_for(NAME)
                mark = len(screen.session.data)
                screen.send(b"\x10")  # ctrl+p: the command palette
                await screen.wait_for("Search for commands", since=mark)
                mark = len(screen.session.data)
                screen.send(b"Screensh")
                if offered:
                    await screen.wait_for("Save an SVG", since=mark)
                else:
                    # Were Screenshot offered, "Screensh" and each of its prefixes would match it.
                    await screen.wait_for("No matches found", since=mark)
                    assert "Save an SVG" not in screen.text
            finally:
                await screen.close()
    finally:
        assert server.stop() == 0


# ------------------------------------------------------------------ light viewers (fork) and the exec fallback


def _smaps_kb(pid: int, *fields: str) -> int:
    total = 0
    with open(f"/proc/{pid}/smaps_rollup") as handle:
        for line in handle:
            name, _, rest = line.partition(":")
            if name in fields:
                total += int(rest.split()[0])
    return total


async def test_forked_viewers_share_the_servers_memory_and_see_changes_made_before_they_joined(tmp_path: Path) -> None:
    t = _table(tmp_path)
    server = _serve(t, "--encounter", "fight")
    screens: list[Screen] = []
    try:
        server.wait_line("loaded in .* shared by every app")
        t.play("note made after the server loaded the fight")  # the preloaded copy is now stale
        for _ in range(2):
            screens.append(await Screen.connect(server.port, t.viewer))
        for screen in screens:
            await screen.wait_for("made after the server loaded")
        pids = server.app_pids()
        assert len(pids) == 2
        for pid in pids:
            with open(f"/proc/{pid}/stat") as handle:
                assert int(handle.read().rsplit(") ", 1)[1].split()[1]) == server.proc.pid  # forked by the server
            # Most of what an app maps is the server's pages, shared, not its own copy.
            shared = _smaps_kb(pid, "Shared_Clean", "Shared_Dirty")
            assert shared > 15 * 1024, f"app {pid} shares only {shared} kB"
    finally:
        await close_table(server, screens)
    assert not _faults(server)


async def test_exec_spawn_still_serves(tmp_path: Path) -> None:
    t = _table(tmp_path)
    server = _serve(t, "--encounter", "fight", "--spawn", "exec")
    try:
        viewer = await Screen.connect(server.port, t.viewer)
        try:
            await viewer.wait_for("Sphinx")
            pid = server.app_pids()[0]
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                assert b"-m\x00tracker.serve.seat\x00" in handle.read()  # a new program: the seat's module
            with open(f"/proc/{pid}/environ", "rb") as handle:
                assert b"TRACKER_READ_ONLY=1\x00" in handle.read()  # a viewer's
        finally:
            await viewer.close()
    finally:
        assert server.stop() == 0


def test_limits_out_of_range_are_refused_with_a_message(tmp_path: Path) -> None:
    t = _table(tmp_path)
    keys = ("--gm-keys", str(t.root / "keys" / "gm_keys"))
    for args, message in (
        (("--max-startups", "0"), "--max-startups: expected N or START:RATE:FULL"),
        (("--max-startups", "10:30"), "--max-startups: expected N or START:RATE:FULL"),
        (("--max-startups", "20:30:10"), "1 <= START <= FULL"),
        (("--per-source-startups", "0"), "--per-source-startups: expected at least 1, got 0"),
        (("--gm-seats", "40"), "--gm-seats: expected 0 to --max-connections (32), got 40"),
        (("--login-grace", "0"), "--login-grace: expected a number of seconds above 0"),
    ):
        result = _start(t.saves, *keys, *args)
        assert result.returncode == 1 and message in result.stderr and "Traceback" not in result.stderr
