"""Probing a running table from outside: a `tracker serve` subprocess and SSH screens.

Used by tests/test_serve*.py, benchmarks/shared.py and benchmarks/serve_logins.py (and
handy for a smoke test of a server you just started).

A `Screen` is an asyncssh client session with a pty that collects what the app draws;
`wait_for` reads until a text appears (escape sequences stripped), with a deadline, so
nothing depends on fixed sleeps.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncssh

ROOT = Path(__file__).resolve().parent.parent.parent  # the folder holding tracker/ and rulesets/

# CSI ... final byte, OSC ... BEL/ST, and two-byte escapes.
_ESCAPES = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[PX^_][^\x1b]*\x1b\\|\x1b[@-Z\\-_]|\x1b[()][0-9A-Za-z]")


def plain(data: bytes) -> str:
    return _ESCAPES.sub(b"", data).decode("utf-8", "replace")


def env() -> dict[str, str]:
    e = dict(os.environ)
    e["PYTHONPATH"] = str(ROOT) + (os.pathsep + e["PYTHONPATH"] if e.get("PYTHONPATH") else "")
    e.pop("TRACKER_READ_ONLY", None)
    return e


def make_key(path: Path, comment: str) -> asyncssh.SSHKey:
    key = asyncssh.generate_private_key("ssh-ed25519", comment=comment)
    key.write_private_key(str(path))
    os.chmod(path, 0o600)
    key.write_public_key(str(path) + ".pub")
    return key


@dataclass
class ServerProcess:
    """`python -m tracker serve` as a subprocess; its stderr lines are kept in `lines`."""

    proc: subprocess.Popen[str]
    port: int = 0
    lines: list[str] = field(default_factory=list)
    _seen: threading.Condition = field(default_factory=threading.Condition)

    @classmethod
    def start(
        cls, saves: Path, *extra: str, timeout: float = 60.0, environ: dict[str, str] | None = None, python: str = sys.executable, **popen: Any
    ) -> "ServerProcess":
        """The server on a free port. Its config folder (default keys files, host key) is
        `config` beside `saves` unless `environ` says otherwise: never the real one."""
        argv = [python, "-m", "tracker", "--saves", str(saves), "serve", "--port", "0", *extra]
        environ = dict(env() if environ is None else environ)
        environ.setdefault("TRACKER_CONFIG", str(saves.parent / "config" / "config.toml"))
        proc = subprocess.Popen(argv, env=environ, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, **popen)
        server = cls(proc)
        threading.Thread(target=server._pump, daemon=True).start()
        line = server.wait_line(r"listening on .* port (\d+)", timeout)
        server.port = int(re.search(r"port (\d+)", line).group(1))  # type: ignore[union-attr]
        return server

    def _pump(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            with self._seen:
                self.lines.append(line.rstrip("\n"))
                self._seen.notify_all()
        with self._seen:
            self._seen.notify_all()

    def wait_line(self, pattern: str, timeout: float = 30.0, start: int = 0) -> str:
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        with self._seen:
            while True:
                for line in self.lines[start:]:
                    if regex.search(line):
                        return line
                left = deadline - time.monotonic()
                if left <= 0 or (self.proc.poll() is not None and not any(regex.search(line) for line in self.lines)):
                    if self.proc.poll() is not None:
                        raise AssertionError(f"server exited ({self.proc.returncode}) without {pattern!r}: {self.lines}")
                    if left <= 0:
                        raise AssertionError(f"no {pattern!r} in the server log within {timeout}s: {self.lines}")
                self._seen.wait(min(left, 0.2))

    def app_pids(self) -> list[int]:
        return [int(m.group(1)) for line in self.lines if (m := re.search(r"app pid (\d+)", line))]

    def stop(self, timeout: float = 30.0) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
            raise


class _Collector(asyncssh.SSHClientSession[bytes]):
    def __init__(self) -> None:
        self.data = bytearray()
        self.changed = asyncio.Event()
        self.closed = asyncio.Event()
        self.arrivals: list[tuple[float, int]] = []  # (time, len(data) after) for latency

    def data_received(self, data: bytes, datatype: asyncssh.DataType) -> None:
        self.data += data
        self.arrivals.append((time.perf_counter(), len(self.data)))
        self.changed.set()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed.set()
        self.changed.set()


@dataclass
class Screen:
    conn: asyncssh.SSHClientConnection
    chan: asyncssh.SSHClientChannel[bytes]
    session: _Collector

    @classmethod
    async def connect(
        cls, port: int, key: asyncssh.SSHKey | None, size: tuple[int, int] = (100, 30), term: str = "xterm-256color", timeout: float = 30.0, username: str = "player"
    ) -> "Screen":
        conn = await asyncio.wait_for(
            asyncssh.connect("127.0.0.1", port, known_hosts=None, client_keys=[key] if key is not None else None, username=username, agent_path=None),
            timeout,
        )
        chan, session = await conn.create_session(_Collector, term_type=term, term_size=size, encoding=None)
        assert isinstance(session, _Collector)  # what the factory made (asyncssh types it as its base)
        return cls(conn, chan, session)

    @property
    def text(self) -> str:
        return plain(bytes(self.session.data))

    async def wait_for(self, needle: str, timeout: float = 30.0, since: int = 0) -> float:
        """Wait until `needle` is drawn (after byte offset `since`); the arrival time."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            if needle in plain(bytes(self.session.data[since:])):
                return self._arrival_of(needle, since)
            if self.session.closed.is_set():
                raise AssertionError(f"connection closed before {needle!r} appeared; screen: {self.text[-2000:]!r}")
            left = deadline - loop.time()
            if left <= 0:
                raise AssertionError(f"{needle!r} not drawn within {timeout}s; screen: {self.text[-2000:]!r}")
            self.session.changed.clear()
            with contextlib.suppress(asyncio.TimeoutError):  # the loop checks the deadline
                await asyncio.wait_for(self.session.changed.wait(), left)

    def _arrival_of(self, needle: str, since: int) -> float:
        # The first chunk after which the needle is present: when it reached the screen.
        for at, length in self.session.arrivals:
            if length > since and needle in plain(bytes(self.session.data[since:length])):
                return at
        return time.perf_counter()

    def send(self, data: bytes) -> None:
        self.chan.write(data)

    async def close(self) -> None:
        self.conn.close()
        with contextlib.suppress(asyncio.TimeoutError):  # closing: do not hang the caller
            await asyncio.wait_for(self.conn.wait_closed(), 5)


def openssh_argv(ssh: str, port: int, key: Path, *args: str) -> list[str]:
    """OpenSSH's `ssh` to 127.0.0.1:`port` with `key` alone, no config, no known hosts;
    `args` go last (e.g. "-tt", "127.0.0.1", or a command)."""
    return [
        ssh, "-p", str(port), "-i", str(key), "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no",
        "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR", "-F", "/dev/null", *args,
    ]


class OpenSSHScreen:
    """A real OpenSSH client on a forced pty (`ssh -tt`): what it has drawn, keys sent to it."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.seen = b""

    @classmethod
    async def start(cls, ssh: str, port: int, key: Path, *args: str) -> "OpenSSHScreen":
        argv = openssh_argv(ssh, port, key, "-tt", *args, "127.0.0.1")
        proc = await asyncio.create_subprocess_exec(*argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        return cls(proc)

    async def wait_for(self, text: bytes) -> None:
        """Read until `text` is drawn after what was seen so far (the caller bounds the
        time), read as `Screen.wait_for` reads it: escape sequences stripped, since a line
        crossing two widgets (a notification over the timeline and the upcoming list) is
        drawn in pieces with a cursor move between them."""
        assert self.proc.stdout is not None
        start = len(self.seen)
        while text.decode() not in plain(self.seen[start:]):
            chunk = await self.proc.stdout.read(65536)
            assert chunk, f"ssh ended before {text!r}: {self.seen[-500:]!r}"
            self.seen += chunk

    async def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        await self.proc.stdin.drain()

    async def finish(self) -> int:
        """Read to the end; ssh's exit status."""
        assert self.proc.stdout is not None
        while chunk := await self.proc.stdout.read(65536):
            self.seen += chunk
        return await self.proc.wait()

    async def close(self) -> None:
        if self.proc.returncode is None:
            self.proc.kill()
            await self.proc.wait()


class Strangers:
    """`count` silent TCP clients (from 127.0.0.`first`, or spread over `sources`
    addresses from there on) that reconnect as soon as they are closed; with `speak`,
    each sends an SSH version line first, then nothing (a key exchange that never goes on)."""

    def __init__(self, port: int, count: int, first: int = 2, sources: int = 1, speak: bool = False) -> None:
        self.port, self.count, self.first, self.sources, self.speak = port, count, first, sources, speak
        self.reconnects = 0
        self.connected = 0
        self.tasks: list[asyncio.Task[None]] = []

    async def _one(self, address: str) -> None:
        loop = asyncio.get_running_loop()
        while True:
            sock = socket.socket()
            sock.setblocking(False)
            try:
                sock.bind((address, 0))
                await loop.sock_connect(sock, ("127.0.0.1", self.port))
                self.connected += 1
                try:
                    if self.speak:
                        await loop.sock_sendall(sock, b"SSH-2.0-Staller\r\n")
                    while await loop.sock_recv(sock, 65536):
                        pass  # read what the server says, send nothing more, until it closes
                finally:
                    self.connected -= 1
            except OSError:
                await asyncio.sleep(0.05)
            finally:
                sock.close()
            self.reconnects += 1

    def start(self) -> None:
        addresses = [f"127.0.0.{self.first + n % self.sources}" for n in range(self.count)]
        self.tasks = [asyncio.get_running_loop().create_task(self._one(address)) for address in addresses]

    async def stop(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)


def alive(pid: int) -> bool:
    """True if `pid` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(") ", 1)[1][0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False
