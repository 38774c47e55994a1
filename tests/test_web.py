"""`tracker web` hardened (issue 19, seen 8 and the web part of seen 1; docs/contributing/design.md#shared-table).

Seen: websockets from any Origin were accepted (any page a player visits could open
viewers); no cap (15 tabs = 1.07 GB); one 4 MB input frame left a process that outlived
its tab, ignored SIGTERM and grew to GBs; Esc reached the list of every fight, and `q`
ended the tab's session. Now: the Origin is checked, tabs are capped, a frame is capped,
a tab's process ends with the tab and with the server; a tab shows the table's fight
only. The server binds port 0 and prints the port it got (no race for a free port).
Real clients: aiohttp websockets speaking the page's protocol, under deadlines.
"""

from __future__ import annotations

import asyncio
import inspect
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp
import pytest

from tests.helpers import DEADLINE, cli, until
from tracker.serve.probe import alive, env, plain

pytestmark = pytest.mark.serve


@dataclass
class WebServer:
    proc: subprocess.Popen[str]
    port: int = 0
    lines: list[str] = field(default_factory=list)

    @classmethod
    def start(cls, saves: Path, *extra: str) -> "WebServer":
        argv = [sys.executable, "-m", "tracker", "--saves", str(saves), "web", "--port", "0", "--encounter", "fight", *extra]
        proc = subprocess.Popen(argv, env=env(), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        server = cls(proc)
        threading.Thread(target=server.read_stderr, daemon=True).start()
        line = server.wait_line(r"listening on http://127\.0\.0\.1:(\d+)")
        server.port = int(re.search(r"port (\d+)", line).group(1))  # type: ignore[union-attr]
        return server

    def read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line.rstrip("\n"))

    def wait_line(self, pattern: str, timeout: float = DEADLINE) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in list(self.lines):
                if re.search(pattern, line):
                    return line
            if self.proc.poll() is not None and not any(re.search(pattern, seen) for seen in self.lines):
                raise AssertionError(f"tracker web exited ({self.proc.returncode}) without {pattern!r}: {self.lines}")
            time.sleep(0.02)
        raise AssertionError(f"no {pattern!r} within {timeout}s: {self.lines}")

    def tab_pids(self) -> list[int]:
        return [int(m.group(1)) for line in list(self.lines) if (m := re.search(r"opened: app pid (\d+)", line))]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(60)


@pytest.fixture
def saves(tmp_path: Path) -> Path:
    folder = tmp_path / "saves"
    folder.mkdir()
    assert cli("new", str(folder / "fight.toml"), "--ruleset", "freeform", "--name", "Table Night")[0] == 0
    assert cli("play", str(folder / "fight.toml"), stdin="add Seraph hp=20\nadd Lurker hp=5 hidden=true\n")[0] == 0
    assert cli("new", str(folder / "other.toml"), "--ruleset", "freeform", "--name", "Other Fight")[0] == 0
    return folder


@pytest.fixture
def web(saves: Path) -> Iterator[WebServer]:
    server = WebServer.start(saves)
    try:
        yield server
    finally:
        assert server.stop() == 0


class Tab:
    """A browser tab: the page's websocket, what it has drawn (escapes stripped)."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.data = ""
        self.closed = False

    async def wait_for(self, text: str, since: int = 0, timeout: float = DEADLINE) -> None:
        deadline = time.monotonic() + timeout
        while text not in plain(self.data[since:].encode()):
            left = deadline - time.monotonic()
            assert left > 0 and not self.closed, f"{text!r} not drawn: {plain(self.data[-1500:].encode())!r}"
            try:
                message = await self.ws.receive(timeout=left)
            except asyncio.TimeoutError:
                continue
            if message.type in (aiohttp.WSMsgType.TEXT, aiohttp.WSMsgType.BINARY):
                self.data += message.data if isinstance(message.data, str) else message.data.decode("utf-8", "replace")
            else:
                self.closed = True

    async def keys(self, text: str) -> None:
        await self.ws.send_json(["stdin", text])


async def _tab(session: aiohttp.ClientSession, server: WebServer, origin: str | None = None) -> Tab:
    ws = await session.ws_connect(f"{server.url}/ws?width=80&height=24", origin=origin or server.url)
    return Tab(ws)


# ------------------------------------------------------------------ a tab shows the table's fight only


async def test_a_tab_shows_the_fight_and_neither_esc_nor_q_take_it_elsewhere_or_end_it(web: WebServer, saves: Path) -> None:
    before = (saves / "fight.toml").read_bytes()
    async with aiohttp.ClientSession() as session:
        async with session.get(web.url + "/") as response:
            page = await response.text()
        assert f"ws://127.0.0.1:{web.port}/ws" in page and "textual.js" in page  # the port it got, read back
        tab = await _tab(session, web)
        await tab.wait_for("Seraph")
        mark = len(tab.data)
        await tab.keys("\x1b")
        await tab.wait_for("The GM chooses the table", since=mark)
        mark = len(tab.data)
        await tab.keys("q")
        await tab.wait_for("This tab stays on the table", since=mark)
        mark = len(tab.data)
        await tab.keys("n.du:")  # GM keys: nothing (a viewer)
        await tab.keys("?")
        await tab.wait_for("keys (esc closes)", since=mark)
        (pid,) = web.tab_pids()
        assert alive(pid) and not tab.closed
        text = plain(tab.data.encode())
        assert "Other Fight" not in text and "Encounters in" not in text and "Lurker" not in text
        await tab.ws.close()
    await until(lambda: not alive(pid), "the tab's process ended with the tab")
    assert (saves / "fight.toml").read_bytes() == before


def test_web_needs_the_fight_and_refuses_an_unknown_one(saves: Path) -> None:
    for extra, message in (((), "--encounter NAME is required"), (("--encounter", "nope"), "--encounter nope: no such encounter")):
        run = subprocess.run([sys.executable, "-m", "tracker", "--saves", str(saves), "web", "--port", "0", *extra], env=env(), capture_output=True, text=True, timeout=60)
        # The GM's own command at start: naming the folder searched and its fights helps the
        # GM; no tab is open yet, so nobody else reads it.
        assert run.returncode == 1 and message in run.stderr and "Traceback" not in run.stderr


# ------------------------------------------------------------------ origin, sessions, frames


async def test_only_this_servers_own_pages_may_open_a_tab(web: WebServer, saves: Path) -> None:
    async with aiohttp.ClientSession() as session:
        for origin in ("http://evil.example", f"http://127.0.0.1:{web.port + 1}", "null"):
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await _tab(session, web, origin)
            assert refused.value.status == 403
        assert not web.tab_pids()  # nothing started
        web.wait_line('refused a tab from 127.0.0.1: its page is at "http://evil.example"')
        for origin in (web.url, f"http://localhost:{web.port}"):
            tab = await _tab(session, web, origin)
            await tab.wait_for("Seraph")
            await tab.ws.close()
    other = WebServer.start(saves, "--allow-origin", "https://table.example:8443")
    try:
        async with aiohttp.ClientSession() as session:
            tab = await _tab(session, other, "https://table.example:8443")
            await tab.wait_for("Seraph")
            await tab.ws.close()
    finally:
        assert other.stop() == 0


def _upgrade(port: int, origin: bytes) -> bytes:
    """A browser's websocket request with `origin` as its Origin's bytes, exactly: the
    server's status line."""
    request = (
        b"GET /ws?width=80&height=24 HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nOrigin: %s\r\n\r\n"
    ) % (port, origin)
    with socket.create_connection(("127.0.0.1", port), timeout=DEADLINE) as sock:
        sock.sendall(request)
        answer = b""
        while b"\r\n" not in answer:
            part = sock.recv(4096)
            if not part:
                break
            answer += part
    return answer.split(b"\r\n", 1)[0]


def test_an_odd_origin_is_refused_with_403_and_no_traceback(web: WebServer) -> None:
    # Seen: Origin http://127.0.0.1:18000.evil.example got a 500 and a traceback in the
    # log (the port could not be read). Every Origin that is not exactly this server's
    # scheme://host:port, in ASCII, is refused, and said so in one quoted log line.
    port = web.port
    odd = [
        b"http://127.0.0.1:%d.evil.example" % port,  # the one seen
        b"http://127.0.0.1:99999", b"http://127.0.0.1:%d0" % port, b"http://127.0.0.1:-1", b"http://127.0.0.1:+%d" % port,
        b"http://127.0.0.1:", b"http://127.0.0.1:%d:%d" % (port, port),
        b"http://user@127.0.0.1:%d" % port, b"http://user:pw@127.0.0.1:%d" % port, b"http://evil.example@127.0.0.1:%d" % port,
        b"http://127.0.0.1:%d/" % port, b"http://127.0.0.1:%d/page?x#y" % port,
        b"http://[::1", b"http://[::1]]:%d" % port, b"http://::1:%d" % port, b"http://[fe80::1%%25eth0]:%d" % port, b"http://[::1:%d" % port,
        "http://127.0.0.1:１８０００".replace("１８０００", "".join(chr(0xFF10 + int(d)) for d in str(port))).encode(),  # fullwidth digits
        "http://ｌｏｃａｌｈｏｓｔ:%d".encode() % port, b"http://127.0.0.1:\xff%d" % port, "http://127.0.0.1\u202e:%d".encode() % port,
        b"http://" + b"a" * 4000 + b":%d" % port, b"", b"null", b"127.0.0.1:%d" % port,
    ]
    for origin in odd:
        assert _upgrade(port, origin).startswith(b"HTTP/1.1 403"), origin
    assert _upgrade(port, b"http://127.0.0.1:%d" % port).startswith(b"HTTP/1.1 101")  # its own page still opens a tab
    web.wait_line(r"tab from 127\.0\.0\.1 opened")
    log = "\n".join(web.lines)
    assert "Traceback" not in log and "Error handling request" not in log and " 500" not in log, log
    assert sum("refused a tab" in line for line in web.lines) == len(odd)
    assert 'its page is at "http://127.0.0.1:%d.evil.example"' % port in log and "\x1b" not in log and "\u202e" not in log
    assert len(max(web.lines, key=len)) < 500  # a huge Origin is cut in the log


async def test_tabs_are_capped_and_the_one_too_many_is_told(saves: Path) -> None:
    server = WebServer.start(saves, "--max-sessions", "2")
    try:
        async with aiohttp.ClientSession() as session:
            tabs = [await _tab(session, server) for _ in range(2)]
            for tab in tabs:
                await tab.wait_for("Seraph")
            third = await _tab(session, server)
            message = await third.ws.receive(timeout=DEADLINE)
            assert message.type == aiohttp.WSMsgType.CLOSE and message.data == 1013
            assert "the table is full (2 tabs)" in str(message.extra)
            assert len(server.tab_pids()) == 2
            await tabs[0].ws.close()
            await until(lambda: any("closed (1 open)" in line for line in server.lines), "a tab closed")
            again = await _tab(session, server)  # a place again
            await again.wait_for("Seraph")
            for tab in (tabs[1], again):
                await tab.ws.close()
    finally:
        assert server.stop() == 0


def _rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as handle:
        return next(int(line.split()[1]) for line in handle if line.startswith("VmRSS:"))


async def test_a_4_mb_frame_is_refused_and_its_tabs_process_ends(web: WebServer) -> None:
    async with aiohttp.ClientSession() as session:
        tab = await _tab(session, web)
        await tab.wait_for("Seraph")
        (pid,) = web.tab_pids()
        before = _rss_kb(web.proc.pid)
        try:
            await tab.ws.send_str('["stdin", "' + "z" * (4 * 1000 * 1000) + '"]')
        except ConnectionError:
            pass  # refused while it was still being sent: the server closed on the frame's length
        else:
            message = await tab.ws.receive(timeout=DEADLINE)
            while message.type in (aiohttp.WSMsgType.TEXT, aiohttp.WSMsgType.BINARY):
                message = await tab.ws.receive(timeout=DEADLINE)
            assert message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR), message
        web.wait_line("exceeds limit 65536")
    await until(lambda: not alive(pid), "the tab's process ended")
    grown = _rss_kb(web.proc.pid) - before
    assert grown < 16 * 1024, f"tracker web grew by {grown} kB"
    async with aiohttp.ClientSession() as session:  # and it still serves
        tab = await _tab(session, web)
        await tab.wait_for("Seraph")
        await tab.ws.close()


async def test_sigterm_ends_every_tabs_process(saves: Path) -> None:
    server = WebServer.start(saves)
    async with aiohttp.ClientSession() as session:
        tabs = [await _tab(session, server) for _ in range(2)]
        for tab in tabs:
            await tab.wait_for("Seraph")
        pids = server.tab_pids()
        assert len(pids) == 2 and all(alive(p) for p in pids)
        assert await asyncio.to_thread(server.stop) == 0
        assert not [p for p in pids if alive(p)]
        server.wait_line("tracker web: stopped")


def test_the_one_private_method_reached_in_textual_serve_is_still_there() -> None:
    """tracker.web overrides AppService._open_app_process and sets the attributes it sets."""
    from textual_serve.app_service import AppService

    method = AppService._open_app_process
    assert list(inspect.signature(method).parameters) == ["self", "width", "height"]
    source = inspect.getsource(method)
    assert "self._process" in source and "self._stdin" in source
    assert "self._process" in inspect.getsource(AppService.run)  # what the service reads back
    assert "return self._stdin" in inspect.getsource(AppService)
