"""Direct tests of tracker.web (`tracker web`: the table's fight in a browser, read-only;
docs/decisions/0011-web-viewer.md, 0047-web-textual-serve.md; the module docstring).

The pure parts are called directly: the Origins a page may open a tab from (0011: "only
this server's own pages", the loopback names when it listens on loopback, and each
`--allow-origin`), the origin of a URL as a browser writes it, the size a tab asks for
(clamped to 500 columns by 200 rows), the command run for each tab. The server runs in
this process, on 127.0.0.1 and a port the system gives, with a stand-in for the app (a
small script that speaks textual-serve's packets and says what it was given), so a
tab's whole life is seen: its environment (TRACKER_READ_ONLY=1, its size, a process
group of its own), what the browser sends reaching it, and its process ended with the
tab (asked to quit, then SIGTERM, then SIGKILL, and anything it left in its group).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import json
import logging
import os
import signal
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

import tracker.ui.app  # the tab's app, stood in for below (imported once, not in each test)
from tests.helpers import DEADLINE, cli, until
from tracker import web
from tracker.engine.errors import TrackerError
from tracker.serve.probe import alive

# A tab's first words come within a second when all is well; half the suite's deadline is
# ample on a busy machine and keeps a tab that never speaks from costing a minute.
TAB_WAIT = DEADLINE / 2

# ------------------------------------------------------------------ the pure parts


def test_each_tab_runs_a_viewer_of_the_one_fight(tmp_path: Path) -> None:
    link = tmp_path / "saves"
    link.symlink_to(tmp_path)
    fight = link / "fight.toml"
    assert web.tab_argv(link, fight) == [sys.executable, "-m", "tracker.web", "tab", str(tmp_path.resolve()), str(fight)]


@pytest.mark.parametrize(("host", "port", "url"), [
    ("127.0.0.1", 8000, "http://127.0.0.1:8000"),
    ("table.example", 80, "http://table.example:80"),
    ("::1", 8000, "http://[::1]:8000"),
    ("fe80::2", 1, "http://[fe80::2]:1"),
])
def test_the_url_shown_is_the_host_and_port_listened_on(host: str, port: int, url: str) -> None:
    assert web.public_url(host, port) == url


@pytest.mark.parametrize("host", ["0.0.0.0", "::", ""])
def test_a_server_on_every_address_is_shown_by_the_machines_name(host: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket, "gethostname", lambda: "gm-laptop")
    assert web.public_url(host, 8123) == "http://gm-laptop:8123"


@pytest.mark.parametrize(("url", "origin"), [
    ("http://Table.Example:8000/page?x=1#y", "http://table.example:8000"),
    ("  http://127.0.0.1:80/ ", "http://127.0.0.1"),  # the scheme's own port is not written
    ("https://table.example:443", "https://table.example"),
    ("https://table.example:80", "https://table.example:80"),
    ("http://table.example:443", "http://table.example:443"),
    ("ws://table.example:80", "ws://table.example:80"),  # no default port but http's and https's
    ("http://[::1]:8000", "http://[::1]:8000"),
    ("http://[::1]", "http://[::1]"),
    ("http://table.example:0", "http://table.example"),  # port 0 is no port
    ("http://table.example:65535", "http://table.example:65535"),
    ("http://table.example:65536", ""),
    ("http://table.example:x", ""),
    ("http://[::1", ""),
    ("table.example:8000", ""),  # no scheme: read as scheme "table.example", no host
    ("//table.example:8000", ""),  # no scheme
    ("http://", ""),  # no host
    ("", ""),
])
def test_the_origin_of_a_url_is_its_scheme_host_and_port_in_lower_case(url: str, origin: str) -> None:
    assert web.origin_of(url) == origin


@pytest.mark.parametrize(("header", "origin"), [
    ("http://127.0.0.1:8000", "http://127.0.0.1:8000"),
    ("HTTP://LOCALHOST:8000", "http://localhost:8000"),
    ("https://table.example", "https://table.example"),
    ("http://[::1]:8000", "http://[::1]:8000"),
    ("http://table.example:65535", "http://table.example:65535"),
    ("http://table.example:65536", ""),
    ("http://table.example:99999", ""),
    ("http://table.example:8000/", ""),  # a path
    ("http://user@table.example", ""),
    ("http://table.example:8000.evil.example", ""),
    ("http://tablé.example", ""),  # not ASCII
    ("null", ""),
    ("", ""),
    ("http://" + "a" * 293, "http://" + "a" * 293),  # 300 characters: the most a header may be
    ("http://" + "a" * 294, ""),
])
def test_a_sent_origin_is_exactly_scheme_host_and_port_or_nothing(header: str, origin: str) -> None:
    assert web.sent_origin(header) == origin


def test_the_origins_allowed_are_the_public_one_the_loopback_names_and_those_given() -> None:
    assert web.allowed_origins("127.0.0.1", 8000, "http://127.0.0.1:8000", []) == {
        "http://127.0.0.1:8000", "http://localhost:8000", "http://[::1]:8000"}
    for host in ("localhost", "::1"):
        assert web.allowed_origins(host, 8001, "http://table.example:9", []) == {
            "http://table.example:9", "http://127.0.0.1:8001", "http://localhost:8001", "http://[::1]:8001"}
    # Not on loopback: the public URL's origin only, then each one given.
    assert web.allowed_origins("0.0.0.0", 8000, "http://gm-laptop:8000/", ["HTTPS://Table.Example:8443/x", "http://b.example"]) == {
        "http://gm-laptop:8000", "https://table.example:8443", "http://b.example"}
    assert web.allowed_origins("0.0.0.0", 8000, "not a url", []) == set()  # never ""


@pytest.mark.parametrize("bad", ["table.example", "http://", "http://x:99999"])
def test_an_allowed_origin_that_is_none_is_refused_by_name(bad: str) -> None:
    with pytest.raises(TrackerError) as refused:
        web.allowed_origins("0.0.0.0", 8000, "http://x", ["http://fine.example", bad])
    assert str(refused.value) == f"--allow-origin {bad}: expected an origin such as http://table.example:8000"


@pytest.mark.parametrize(("width", "height", "size"), [
    (100, 30, (100, 30)),
    ("120", "40", (120, 40)),
    (500, 200, (500, 200)),
    (501, 201, (500, 200)),
    (10**9, 10**9, (500, 200)),
    (1, 1, (1, 1)),
    (0, 0, (1, 1)),
    (-5, -5, (1, 1)),
    (None, None, (80, 24)),  # not a number: the terminal's usual size
    ("wide", "tall", (80, 24)),
    ("12.5", "", (80, 24)),
])
def test_a_tabs_size_is_clamped_to_500_by_200_and_defaults_to_80_by_24(width: object, height: object, size: tuple[int, int]) -> None:
    assert web.clamp(width, height) == size


# ------------------------------------------------------------------ `tracker web`: its refusals and its start


@pytest.fixture
def saves(tmp_path: Path) -> Path:
    folder = tmp_path / "saves"
    folder.mkdir()
    assert cli("new", str(folder / "fight.toml"), "--ruleset", "freeform", "--name", "Table Night")[0] == 0
    return folder


def _args(**given: Any) -> argparse.Namespace:
    return argparse.Namespace(**{"encounter": "fight", "port": 0, "host": "127.0.0.1", **given})


class _Started:
    """What `tracker web` built and ran instead of the real server."""

    made: list[tuple[Any, ...]] = []

    def __init__(self, *args: Any) -> None:
        _Started.made.append(args)

    async def run(self) -> None:
        _Started.made.append(("ran",))


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    _Started.made = []
    monkeypatch.setattr(web, "_server_class", lambda: _Started)
    monkeypatch.setattr(logging.root, "level", logging.WARNING)
    monkeypatch.setattr(logging.getLogger("aiohttp.access"), "level", logging.NOTSET)
    return _Started.made


def test_web_starts_the_server_with_the_fights_tab_and_the_options(saves: Path, started: list[tuple[Any, ...]], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(logging.root, "handlers", [])  # pytest's own, set up for this test: basicConfig adds none beside them
    extra = ["https://table.example:8443"]
    assert web.web(_args(port=8123, max_sessions=3, allow_origin=extra, public_url="http://gm.example:80"), saves) == 0
    fight = saves.resolve() / "fight.toml"
    assert started == [(web.tab_argv(saves, fight), "127.0.0.1", 8123, "http://gm.example:80", extra, 3), ("ran",)]
    # Its log: the time and what happened, one line each; aiohttp's own access log only for warnings.
    (handler,) = logging.root.handlers
    assert logging.root.level == logging.INFO
    assert handler.formatter is not None and handler.formatter._fmt == "%(asctime)s tracker web: %(message)s"
    assert handler.formatter.datefmt == "%Y-%m-%d %H:%M:%S"
    assert logging.getLogger("aiohttp.access").level == logging.WARNING


def test_web_defaults_to_20_tabs_no_other_origin_and_its_own_url(saves: Path, started: list[tuple[Any, ...]]) -> None:
    assert web.web(_args(port=65535), saves) == 0
    assert started == [(web.tab_argv(saves, saves.resolve() / "fight.toml"), "127.0.0.1", 65535, None, [], 20), ("ran",)]
    started.clear()
    assert web.web(_args(allow_origin=None, max_sessions=1), saves) == 0
    assert started[0][4:] == ([], 1)


@pytest.mark.parametrize(("given", "said"), [
    ({"encounter": None}, "tracker web: --encounter NAME is required (a page shows one fight, the table's)"),
    ({"encounter": ""}, "tracker web: --encounter NAME is required (a page shows one fight, the table's)"),
    ({"port": -1}, "--port: expected 0-65535, got -1"),
    ({"port": 65536}, "--port: expected 0-65535, got 65536"),
    ({"max_sessions": 0}, "--max-sessions: expected at least 1, got 0"),
    ({"allow_origin": ["nowhere"]}, "--allow-origin nowhere: expected an origin such as http://table.example:8000"),
])
def test_web_refuses_what_it_cannot_serve_before_starting(saves: Path, started: list[tuple[Any, ...]], given: dict[str, Any], said: str) -> None:
    with pytest.raises(TrackerError) as refused:
        web.web(_args(**given), saves)
    assert str(refused.value) == said
    assert started == []


def test_web_refuses_a_fight_that_is_not_there(saves: Path, started: list[tuple[Any, ...]]) -> None:
    with pytest.raises(TrackerError, match="--encounter nope"):
        web.web(_args(encounter="nope"), saves)
    assert started == []


def test_web_without_textual_serve_says_what_to_install(saves: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def missing() -> Any:
        raise ImportError("no textual_serve")

    monkeypatch.setattr(web, "_server_class", missing)
    with pytest.raises(TrackerError) as refused:
        web.web(_args(), saves)
    assert str(refused.value) == "tracker web needs textual-serve (pip install textual-serve)"
    assert refused.value.__cause__ is None and refused.value.__suppress_context__


# ------------------------------------------------------------------ one tab's app


class _App:
    made: list[tuple[Any, ...]] = []
    answer: Any = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        _App.made.append((args, kwargs))

    def run(self) -> Any:
        return _App.answer


@pytest.mark.parametrize(("answer", "code"), [(None, 0), (3, 3)])
def test_a_tab_is_a_viewers_seat_on_the_fight(saves: Path, monkeypatch: pytest.MonkeyPatch, answer: Any, code: int) -> None:
    _App.made, _App.answer = [], answer
    monkeypatch.setattr(tracker.ui.app, "TrackerApp", _App)
    fight = saves / "fight.toml"
    assert web.tab(saves, fight) == code
    ((args, kwargs),) = _App.made
    assert args[:3] == (saves, fight, True) and kwargs["user"] == ""
    live, seat = args[3], kwargs["seat"]
    assert live.role.is_viewer and live.viewer and live.session.user == ""
    assert (seat.kind, seat.fight, seat.web) == ("viewer", "Table Night", True)


def test_a_tab_whose_fight_cannot_be_opened_says_so_and_ends(saves: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert web.tab(saves, saves / "gone.toml") == 1
    assert capsys.readouterr().err == "tracker: the table's fight could not be opened\n"


# ------------------------------------------------------------------ the server, in this process

# A stand-in for a tab's app: textual-serve's prelude, then a data packet saying what it was
# given (its environment, its process group), then each packet received said back as data.
# Modes: "" quits when asked; "stubborn" never quits when asked; "deaf" ignores SIGTERM too;
# "child" leaves a process of its own group behind when it quits.
APP = r'''
import json, os, signal, subprocess, sys, time
mode = sys.argv[1] if len(sys.argv) > 1 else ""
if mode == "deaf":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
out, inp = sys.stdout.buffer, sys.stdin.buffer
def send(kind, payload):
    out.write(kind + len(payload).to_bytes(4, "big") + payload)
    out.flush()
left = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"]).pid if mode == "child" else 0
out.write(b"__GANGLION__\n")
hello = {"read_only": os.environ.get("TRACKER_READ_ONLY"), "columns": os.environ.get("COLUMNS"), "rows": os.environ.get("ROWS"),
         "own_group": os.getpgid(0) == os.getpid(), "pid": os.getpid(), "left": left}
send(b"D", b"hello " + json.dumps(hello).encode())
while True:
    kind = inp.read(1)
    if not kind:
        break
    payload = inp.read(int.from_bytes(inp.read(4), "big"))
    if kind == b"M" and json.loads(payload)["type"] == "quit":
        if mode in ("stubborn", "deaf"):
            continue
        send(b"M", b'{"type": "exit"}')
        break
    send(b"D", (b"meta " if kind == b"M" else b"stdin ") + payload)
'''


@pytest.fixture
def app(tmp_path: Path) -> Path:
    path = tmp_path / "app.py"
    path.write_text(APP)
    return path


class _Served:
    def __init__(self, server: Any, url: str) -> None:
        self.server, self.url = server, url

    @property
    def port(self) -> int:
        return int(self.server.port)


@contextlib.asynccontextmanager
async def serving(argv: list[str], max_sessions: int = 20, extra: tuple[str, ...] = (), public: str | None = None) -> AsyncIterator[_Served]:
    server = web._server_class()(argv, "127.0.0.1", 0, public, list(extra), max_sessions)
    ready: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(server.run(ready))
    done, _ = await asyncio.wait([ready, task], timeout=TAB_WAIT, return_when=asyncio.FIRST_COMPLETED)
    if task in done:
        task.result()
    assert ready in done, "the server never said it was listening"
    try:
        yield _Served(server, ready.result())
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(task, TAB_WAIT)


class Tab:
    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.said: list[str] = []

    async def next(self) -> str:
        message = await self.ws.receive(timeout=TAB_WAIT)
        assert message.type in (aiohttp.WSMsgType.TEXT, aiohttp.WSMsgType.BINARY), message
        return message.data if isinstance(message.data, str) else message.data.decode()

    async def hello(self) -> dict[str, Any]:
        said = await self.next()
        assert said.startswith("hello "), said
        return dict(json.loads(said[len("hello "):]))

    async def closed(self) -> aiohttp.WSMessage:
        while True:
            message = await self.ws.receive(timeout=TAB_WAIT)
            if message.type not in (aiohttp.WSMsgType.TEXT, aiohttp.WSMsgType.BINARY):
                return message


async def _tab(session: aiohttp.ClientSession, served: _Served, query: str = "?width=80&height=24", origin: str | None = "") -> Tab:
    ws = await session.ws_connect(f"http://127.0.0.1:{served.port}/ws{query}", origin=served.url if origin == "" else origin)
    return Tab(ws)


def _gone(pid: int) -> bool:
    return not alive(pid)


async def test_the_server_says_where_it_listens_and_that_it_stopped(app: Path, capsys: pytest.CaptureFixture[str]) -> None:
    async with serving([sys.executable, str(app)], max_sessions=7) as served:
        assert served.url == f"http://127.0.0.1:{served.port}" and served.port > 0
        assert capsys.readouterr().err == f"tracker web: listening on {served.url} (port {served.port}); up to 7 tabs\n"
    assert capsys.readouterr().err == "tracker web: stopped\n"


async def test_a_public_url_given_is_kept_and_its_pages_may_open_tabs(app: Path) -> None:
    async with serving([sys.executable, str(app)], public="https://table.example") as served:
        assert served.url == "https://table.example"
        assert served.server.origins == {"https://table.example", f"http://127.0.0.1:{served.port}",
                                         f"http://localhost:{served.port}", f"http://[::1]:{served.port}"}
        async with aiohttp.ClientSession() as session:
            tab = await _tab(session, served, origin="https://table.example")
            await tab.hello()
            await tab.ws.close()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
async def test_sigterm_sigint_and_sighup_stop_the_server_and_every_tabs_app(app: Path, sig: int, capsys: pytest.CaptureFixture[str]) -> None:
    before = signal.signal(sig, lambda *_: None)  # if the server did not take the signal, it is lost, not fatal
    try:
        server = web._server_class()([sys.executable, str(app)], "127.0.0.1", 0, None, [], 20)
        ready: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        task = asyncio.create_task(server.run(ready))
        await asyncio.wait_for(ready, TAB_WAIT)
        async with aiohttp.ClientSession() as session:
            tab = await _tab(session, _Served(server, ready.result()))
            pid = (await tab.hello())["pid"]
            os.kill(os.getpid(), sig)
            await asyncio.wait_for(task, TAB_WAIT)
            assert _gone(pid) and not server.sessions
        assert capsys.readouterr().err.endswith("tracker web: stopped\n")
    finally:
        signal.signal(sig, before)


async def test_a_port_in_use_is_refused_by_name(app: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        server = web._server_class()([sys.executable, str(app)], "127.0.0.1", port, None, [], 20)
        with pytest.raises(TrackerError) as refused:
            await asyncio.wait_for(server.run(), DEADLINE)
    # The reason in words (the error's own text, "... address already in use"), not the
    # exception with its number ("[Errno 98] ...").
    said = str(refused.value)
    assert said.startswith(f"cannot listen on 127.0.0.1:{port}: ") and said.lower().endswith(os.strerror(errno.EADDRINUSE).lower())
    assert "[Errno" not in said and refused.value.__cause__ is None


async def test_the_page_names_the_viewer_and_its_websocket(app: Path) -> None:
    async with serving([sys.executable, str(app)]) as served, aiohttp.ClientSession() as session:
        async with session.get(f"http://127.0.0.1:{served.port}/") as page:
            assert page.status == 200
            text = await page.text()
        assert "<div>tracker (viewer)</div>" in text and f"ws://127.0.0.1:{served.port}/ws" in text
        # The script the page names loads from the server's own static files (textual-serve
        # 1.1.0 named it under /static//, which its server did not serve: a blank tab).
        assert f'"http://127.0.0.1:{served.port}/static/js/textual.js"' in text
        async with session.get(f"http://127.0.0.1:{served.port}/static/js/textual.js") as script:
            assert script.status == 200
        async with session.get(f"http://127.0.0.1:{served.port}/static/") as listing:
            assert listing.status in (403, 404)  # no index of the files
        async with session.get(f"http://127.0.0.1:{served.port}/ws") as plain:
            assert plain.status >= 400  # not a websocket request


async def test_a_tabs_app_is_read_only_in_a_group_of_its_own_at_the_size_asked(app: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="tracker.web")
    async with serving([sys.executable, str(app)]) as served, aiohttp.ClientSession() as session:
        tab = await _tab(session, served, "?width=132&height=50")
        hello = await tab.hello()
        assert hello["read_only"] == "1" and hello["own_group"] is True
        assert (hello["columns"], hello["rows"]) == ("132", "50")
        assert served.server.sessions and f"tab from 127.0.0.1 opened: app pid {hello['pid']} (1 open)" in caplog.messages
        big = await _tab(session, served, "?width=9999&height=9999")
        assert ((await big.hello())["columns"], (await _tab(session, served, "")).ws.closed) == ("500", False)
        await big.ws.close()
        await tab.ws.close()
        await tab.closed()
        await until(lambda: _gone(hello["pid"]), "the tab's app ended with the tab", timeout=TAB_WAIT)
        await until(lambda: "tab from 127.0.0.1 closed (1 open)" in caplog.messages, "the closing logged", timeout=TAB_WAIT)


async def test_a_tab_asking_no_size_gets_80_by_24(app: Path) -> None:
    async with serving([sys.executable, str(app)]) as served, aiohttp.ClientSession() as session:
        hello = await (await _tab(session, served, "")).hello()
        assert (hello["columns"], hello["rows"]) == ("80", "24")
        hello = await (await _tab(session, served, "?width=wide&height=0")).hello()
        assert (hello["columns"], hello["rows"]) == ("80", "1")


async def test_what_the_page_sends_reaches_the_app_and_nothing_else_does(app: Path) -> None:
    async with serving([sys.executable, str(app)]) as served, aiohttp.ClientSession() as session:
        tab = await _tab(session, served)
        await tab.hello()
        for ignored in ('["stdin", 5]', '["resize", "big"]', '["nonsense", 1]', "[]", '{"stdin": "x"}', "not json", '"stdin"'):
            await tab.ws.send_str(ignored)
        await tab.ws.send_bytes(b'["stdin", "bytes"]')
        await tab.ws.send_json(["stdin", "ab\u00e9"])
        assert await tab.next() == "stdin ab\u00e9"
        await tab.ws.send_json(["resize", {"width": 100, "height": 40}])
        assert json.loads((await tab.next())[len("meta "):]) == {"type": "resize", "width": 100, "height": 40}
        await tab.ws.send_json(["resize", {"width": 9000}])
        assert json.loads((await tab.next())[len("meta "):]) == {"type": "resize", "width": 500, "height": 24}
        await tab.ws.send_json(["ping", "t1"])
        assert json.loads(await tab.next()) == ["pong", "t1"]
        await tab.ws.send_json(["ping"])
        assert json.loads(await tab.next()) == ["pong", None]
        await tab.ws.send_json(["blur", None])
        assert json.loads((await tab.next())[len("meta "):]) == {"type": "blur"}
        await tab.ws.send_json(["focus"])
        assert json.loads((await tab.next())[len("meta "):]) == {"type": "focus"}
        await tab.ws.close()


async def test_a_frame_over_64_kib_ends_the_tab_and_its_app(app: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="tracker.web")
    async with serving([sys.executable, str(app)]) as served, aiohttp.ClientSession() as session:
        tab = await _tab(session, served)
        pid = (await tab.hello())["pid"]
        fits = "z" * (web.FRAME_CAP - 20)
        await tab.ws.send_json(["stdin", fits])
        assert await tab.next() == "stdin " + fits
        await tab.ws.send_json(["stdin", "z" * web.FRAME_CAP])
        await tab.closed()
        await until(lambda: _gone(pid), "the tab's app ended", timeout=TAB_WAIT)
        await until(lambda: not served.server.sessions, "the tab forgotten", timeout=TAB_WAIT)
        # The refusal's reason, as aiohttp gives it, names the limit: 64 KiB.
        assert any(m.startswith("a tab sent what is refused: ") and "65536" in m for m in caplog.messages)


async def test_the_tab_too_many_is_told_the_table_is_full(app: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="tracker.web")
    async with serving([sys.executable, str(app)], max_sessions=1) as served, aiohttp.ClientSession() as session:
        first = await _tab(session, served)
        pid = (await first.hello())["pid"]
        second = await _tab(session, served)
        message = await second.closed()
        assert message.type == aiohttp.WSMsgType.CLOSE and message.data == 1013
        assert message.extra == "the table is full (1 tabs); try again later"
        assert "refused a tab from 127.0.0.1: the table is full (1 tabs)" in caplog.messages
        assert alive(pid) and len(served.server.sessions) == 1
        await first.ws.close()
        await until(lambda: not served.server.sessions, "the first tab gone", timeout=TAB_WAIT)
        third = await _tab(session, served)
        await third.hello()
        await third.ws.close()


async def test_only_the_servers_own_pages_and_those_allowed_open_a_tab(app: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="tracker.web")
    async with serving([sys.executable, str(app)], extra=("https://table.example:8443",)) as served, aiohttp.ClientSession() as session:
        for origin in ("http://evil.example", f"http://127.0.0.1:{served.port + 1}", "null", f"http://127.0.0.1:{served.port}/"):
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await _tab(session, served, origin=origin)
            assert refused.value.status == 403
        assert not served.server.sessions
        assert 'refused a tab from 127.0.0.1: its page is at "http://evil.example", not this server\'s' in caplog.messages
        # An Origin someone else chose is one quoted token of at most 200 characters (the last "…").
        with pytest.raises(aiohttp.WSServerHandshakeError):
            await _tab(session, served, origin="http://" + "a" * 400)
        assert f'refused a tab from 127.0.0.1: its page is at "http://{"a" * 192}…", not this server\'s' in caplog.messages
        async with session.get(f"http://127.0.0.1:{served.port}/ws", headers={"Origin": "http://evil.example", "Upgrade": "websocket",
                                                                             "Connection": "Upgrade", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
                                                                             "Sec-WebSocket-Version": "13"}) as answer:
            assert answer.status == 403
            assert await answer.text() == "tracker web: pages from other sites may not open the table (see --allow-origin)\n"
        allowed: list[str | None] = [served.url, f"http://localhost:{served.port}", f"http://[::1]:{served.port}", "https://table.example:8443", None]
        for sent in allowed:
            tab = await _tab(session, served, origin=sent)  # None: no Origin at all (not a browser's page)
            await tab.hello()
            await tab.ws.close()


async def test_a_tab_whose_app_cannot_start_is_closed_and_the_server_goes_on(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="tracker.web")
    async with serving([str(tmp_path / "no-such-program")]) as served, aiohttp.ClientSession() as session:
        tab = await _tab(session, served)
        await tab.closed()
        await until(lambda: not served.server.sessions, "the tab forgotten", timeout=TAB_WAIT)
        # The error in the log with its own words, which name the program that is not there.
        assert any(m.startswith("tab from 127.0.0.1 failed: FileNotFoundError: ") and m.endswith(f"'{tmp_path / 'no-such-program'}'")
                   for m in caplog.messages)
        await until(lambda: "tab from 127.0.0.1 closed (0 open)" in caplog.messages, "the closing logged", timeout=TAB_WAIT)
        tab = await _tab(session, served)
        await tab.closed()


@pytest.mark.parametrize("mode", ["", "stubborn", "deaf", "child"])
async def test_a_closed_tabs_app_is_ended_whatever_it_does(app: Path, mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(web, "STOP_GRACE", 0.5)
    async with serving([sys.executable, str(app), mode]) as served, aiohttp.ClientSession() as session:
        tab = await _tab(session, served)
        hello = await tab.hello()
        assert alive(hello["pid"]) and (not hello["left"] or alive(hello["left"]))
        await tab.ws.close()
        # Asked to quit, then SIGTERM, then SIGKILL, each after STOP_GRACE (0.5 s here): well within 10 s.
        await until(lambda: not served.server.sessions, "the tab forgotten", timeout=10)
        assert _gone(hello["pid"])
        if hello["left"]:
            await until(lambda: _gone(hello["left"]), "what the app left in its group ended", timeout=10)


async def test_an_app_that_quits_by_itself_closes_its_tab(tmp_path: Path) -> None:
    quits = tmp_path / "quits.py"
    quits.write_text('import sys\nsys.stdout.buffer.write(b"__GANGLION__\\n" + b"M" + (16).to_bytes(4, "big") + b\'{"type": "exit"}\')\n'
                     "sys.stdout.flush()\n")
    async with serving([sys.executable, str(quits)]) as served, aiohttp.ClientSession() as session:
        tab = await _tab(session, served)
        message = await tab.closed()
        assert message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
        await until(lambda: not served.server.sessions, "the tab forgotten", timeout=TAB_WAIT)


async def test_end_all_ends_every_open_tabs_app(app: Path) -> None:
    async with serving([sys.executable, str(app)]) as served, aiohttp.ClientSession() as session:
        tabs = [await _tab(session, served) for _ in range(2)]
        pids = [(await tab.hello())["pid"] for tab in tabs]
        await served.server.end_all()
        assert all(_gone(pid) for pid in pids)
