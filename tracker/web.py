"""`tracker web`: the table's fight in a browser, read-only, through textual-serve.

Every browser tab gets its own app process (`python -m tracker.web tab SAVES FIGHT`): a
viewer of the one fight named by `--encounter` (required: a page offers the table's fight
and nothing else: no start screen, no other file), with TRACKER_READ_ONLY=1 in its
environment, so the save layer refuses any write even if a key slipped through. There is
no GM mode here: a GM runs the terminal app (or `tracker serve`). In a tab, Esc on the
fight says where the tab is, and `q` (or the palette's Quit) says to close the tab: a tab
is left by closing it, so none is ever left showing a dead session.

Decisions: docs/decisions/0011-web-viewer.md, docs/decisions/0047-web-textual-serve.md
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import re
import signal
import socket
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tracker.persistence import paths
from tracker.engine.errors import TrackerError
from tracker.engine.text import quoted

log = logging.getLogger("tracker.web")

FRAME_CAP = 64 * 1024
STOP_GRACE = 2.0
MAX_COLUMNS, MAX_ROWS = 500, 200
LOOPBACK = ("127.0.0.1", "localhost", "::1")
MAX_ORIGIN = 300  # a scheme, a 253-character host name and a port fit
_ORIGIN = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::(?P<port>[0-9]{1,5}))?")


def tab_argv(saves: Path, encounter: Path) -> list[str]:
    """What runs for each browser tab: always a viewer of the one fight (the save's path is
    absolute with its last component unresolved, so the tab opens it through its folder:
    paths.encounter_option)."""
    return [sys.executable, "-m", "tracker.web", "tab", str(saves.resolve()), str(encounter)]


def public_url(host: str, port: int) -> str:
    shown = socket.gethostname() if host in ("0.0.0.0", "::", "") else host
    if ":" in shown:  # an IPv6 address
        shown = f"[{shown}]"
    return f"http://{shown}:{port}"


def origin_of(url: str) -> str:
    """scheme://host[:port] of a URL, lower case, as browsers send it in Origin ("" for
    what is not such a URL: no host, a port that is not a number from 0 to 65535, ...)."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:  # a bad port, an unclosed [IPv6 address
        return ""
    if not parts.scheme or not parts.hostname:
        return ""
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    default = {"http": 80, "https": 443}.get(parts.scheme)
    return f"{parts.scheme}://{host}" + (f":{port}" if port and port != default else "")


def sent_origin(header: str) -> str:
    """The Origin a browser sent, in `origin_of`'s form, or "" if it is not one: a
    browser sends exactly scheme://host[:port], in ASCII (a name in another script is
    sent as its xn-- form), so anything else (a user and password, a path, a port that
    is not a number up to 65535, an unclosed IPv6 address, other characters, more than
    `MAX_ORIGIN` characters) is refused, never parsed leniently into an allowed one."""
    if len(header) > MAX_ORIGIN or not header.isascii():
        return ""
    found = _ORIGIN.fullmatch(header)
    if found is None or (found["port"] and int(found["port"]) > 65535):
        return ""
    return origin_of(header)


def allowed_origins(host: str, port: int, public: str, extra: list[str]) -> set[str]:
    """The Origins whose pages may open a tab (docs/decisions/0011-web-viewer.md)."""
    allowed = {origin_of(public)}
    if host in LOOPBACK:
        allowed |= {origin_of(f"http://{name}:{port}") for name in ("127.0.0.1", "localhost", "[::1]")}
    for item in extra:
        origin = origin_of(item)
        if not origin:
            raise TrackerError(f"--allow-origin {item}: expected an origin such as http://table.example:8000")
        allowed.add(origin)
    return allowed - {""}


def clamp(width: object, height: object) -> tuple[int, int]:
    def number(value: object, default: int) -> int:
        try:
            return int(str(value))
        except ValueError:
            return default

    return max(1, min(number(width, 80), MAX_COLUMNS)), max(1, min(number(height, 24), MAX_ROWS))


def _server_class() -> Any:
    """The textual-serve server, subclassed (imported only when `tracker web` runs)."""
    import aiohttp_jinja2
    import jinja2
    from aiohttp import WSCloseCode, WSMsgType, web
    from textual_serve.app_service import AppService
    from textual_serve.server import Server

    class TabService(AppService):
        """One tab's app process: no shell, its own process group, ended with the tab."""

        def __init__(self, argv: list[str], **kwargs: Any) -> None:
            super().__init__(" ".join(argv), **kwargs)
            self.argv = argv
            self.process: asyncio.subprocess.Process | None = None

        async def _open_app_process(self, width: int = 80, height: int = 24) -> asyncio.subprocess.Process:
            environment = self._build_environment(width=width, height=height)
            environment["TRACKER_READ_ONLY"] = "1"
            self.process = process = await asyncio.create_subprocess_exec(
                *self.argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=environment,
                start_new_session=True,
            )
            assert process.stdin is not None
            self._process, self._stdin = process, process.stdin
            return process

        def kill_group(self, sig: int) -> None:
            if self.process is not None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(self.process.pid, sig)

        async def end(self) -> None:
            """Ask the app to quit; then SIGTERM, then SIGKILL, its whole group; reap it."""
            process = self.process
            with contextlib.suppress(Exception):  # a process that is gone or stuck: the signals follow
                await asyncio.wait_for(self.stop(), STOP_GRACE)
            if process is None:
                return
            if process.returncode is None:
                self.kill_group(signal.SIGTERM)
                try:
                    await asyncio.wait_for(process.wait(), STOP_GRACE)
                except asyncio.TimeoutError:
                    self.kill_group(signal.SIGKILL)
                    await process.wait()
            self.kill_group(signal.SIGKILL)  # anything the app left in its group

    class TableWebServer(Server):
        def __init__(self, argv: list[str], host: str, port: int, public: str | None, extra_origins: list[str], max_sessions: int) -> None:
            super().__init__(" ".join(argv), host=host, port=port, title="tracker (viewer)", public_url=public)
            self.argv = argv
            self.public_given = public is not None
            self.extra_origins = extra_origins
            self.max_sessions = max_sessions
            self.sessions: set[TabService] = set()
            self.origins: set[str] = set()

        def make_app(self) -> web.Application:
            app = web.Application()
            aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(self.templates_path))
            app.add_routes(
                [
                    web.get("/", self.handle_index, name="index"),
                    web.get("/ws", self.handle_websocket, name="websocket"),
                    web.static("/static", self.statics_path, show_index=False, name="static"),
                ]
            )
            return app

        async def handle_websocket(self, request: web.Request) -> web.StreamResponse:  # type: ignore[override]
            origin = request.headers.get("Origin")
            if origin is not None and sent_origin(origin) not in self.origins:
                log.warning("refused a tab from %s: its page is at %s, not this server's", request.remote, quoted(origin, 200))
                return web.Response(status=403, text="tracker web: pages from other sites may not open the table (see --allow-origin)\n")
            websocket = web.WebSocketResponse(heartbeat=15, max_msg_size=FRAME_CAP)
            await websocket.prepare(request)
            if len(self.sessions) >= self.max_sessions:
                log.warning("refused a tab from %s: the table is full (%d tabs)", request.remote, self.max_sessions)
                await websocket.close(code=WSCloseCode.TRY_AGAIN_LATER, message=f"the table is full ({self.max_sessions} tabs); try again later".encode())
                return websocket
            width, height = clamp(request.query.get("width", "80"), request.query.get("height", "24"))
            service = TabService(
                self.argv, write_bytes=websocket.send_bytes, write_str=websocket.send_str, close=websocket.close, download_manager=self.download_manager
            )
            self.sessions.add(service)
            try:
                await service.start(width, height)
                log.info("tab from %s opened: app pid %d (%d open)", request.remote, service.process.pid if service.process else 0, len(self.sessions))
                await self.relay(websocket, service)
            except asyncio.CancelledError:
                pass
            except Exception as exc:  # noqa: BLE001 - one tab's failure ends that tab only
                log.error("tab from %s failed: %s: %s", request.remote, type(exc).__name__, exc)
            finally:
                await service.end()
                self.sessions.discard(service)
                with contextlib.suppress(Exception):
                    await websocket.close()
                log.info("tab from %s closed (%d open)", request.remote, len(self.sessions))
            return websocket

        async def relay(self, websocket: web.WebSocketResponse, service: TabService) -> None:
            """The browser's messages to the app, until the tab closes (or sends too much)."""
            async for message in websocket:
                if message.type == WSMsgType.ERROR:
                    log.warning("a tab sent what is refused: %s", message.data)  # e.g. a frame over FRAME_CAP
                    return
                if message.type != WSMsgType.TEXT:
                    continue
                try:
                    envelope = message.json()
                except ValueError:
                    continue
                if not isinstance(envelope, list) or not envelope:
                    continue
                kind, data = envelope[0], envelope[1] if len(envelope) > 1 else None
                if kind == "stdin" and isinstance(data, str):
                    await service.send_bytes(data.encode("utf-8"))
                elif kind == "resize" and isinstance(data, dict):
                    await service.set_terminal_size(*clamp(data.get("width"), data.get("height")))
                elif kind == "ping":
                    await websocket.send_json(["pong", data])
                elif kind == "blur":
                    await service.blur()
                elif kind == "focus":
                    await service.focus()

        async def end_all(self) -> None:
            await asyncio.gather(*(s.end() for s in list(self.sessions)), return_exceptions=True)

        async def run(self, ready: "asyncio.Future[str] | None" = None) -> None:
            runner = web.AppRunner(self.make_app(), handle_signals=False, access_log=None)
            await runner.setup()
            site = web.TCPSite(runner, self.host, self.port)
            try:
                await site.start()
            except OSError as exc:
                await runner.cleanup()
                raise TrackerError(f"cannot listen on {self.host}:{self.port}: {exc.strerror or exc}") from None
            self.port = int(runner.addresses[0][1])
            if not self.public_given:
                self.public_url = public_url(self.host, self.port)
            self.origins = allowed_origins(self.host, self.port, self.public_url, self.extra_origins)
            stop = asyncio.Event()
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
                with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                    loop.add_signal_handler(sig, stop.set)
            sys.stderr.write(f"tracker web: listening on {self.public_url} (port {self.port}); up to {self.max_sessions} tabs\n")
            sys.stderr.flush()
            if ready is not None:
                ready.set_result(self.public_url)
            try:
                await stop.wait()
            finally:
                await self.end_all()
                await runner.cleanup()
                sys.stderr.write("tracker web: stopped\n")

    return TableWebServer


def web(args: argparse.Namespace, saves: Path) -> int:
    if not args.encounter:
        raise TrackerError("tracker web: --encounter NAME is required (a page shows one fight, the table's)")
    encounter = paths.encounter_option(args.encounter, saves)
    if not 0 <= args.port <= 65535:
        raise TrackerError(f"--port: expected 0-65535, got {args.port}")
    max_sessions = getattr(args, "max_sessions", 20)
    if max_sessions < 1:
        raise TrackerError(f"--max-sessions: expected at least 1, got {max_sessions}")
    extra = list(getattr(args, "allow_origin", []) or [])
    allowed_origins(args.host, args.port, "http://x", extra)  # a bad --allow-origin is named now
    try:
        server_class = _server_class()
    except ImportError:
        raise TrackerError("tracker web needs textual-serve (pip install textual-serve)") from None
    logging.basicConfig(level=logging.INFO, format="%(asctime)s tracker web: %(message)s", datefmt="%Y-%m-%d %H:%M:%S")
    logging.getLogger("aiohttp.access").setLevel(logging.WARNING)
    server = server_class(tab_argv(saves, encounter), args.host, args.port, getattr(args, "public_url", None), extra, max_sessions)
    asyncio.run(server.run())
    return 0


def tab(saves: Path, fight: Path) -> int:
    """One browser tab's app: a viewer's seat on the fight (see the module docstring)."""
    from tracker.ui.app import TrackerApp
    from tracker.ui.seat import Seat
    from tracker.play.live import Live

    try:
        live = Live.open(fight, viewer=True, user="")
    except TrackerError:
        sys.stderr.write("tracker: the table's fight could not be opened\n")
        return 1
    seat = Seat("viewer", live.encounter.setup.name, web=True)
    return int(TrackerApp(saves, fight, True, live, user="", seat=seat).run() or 0)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "tab":
        raise SystemExit(tab(Path(sys.argv[2]), Path(sys.argv[3])))
    sys.stderr.write("usage: python -m tracker.web tab SAVES FIGHT (run by `tracker web` for each tab)\n")
    raise SystemExit(2)
