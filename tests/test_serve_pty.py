"""The pty bridge on its own (no SSH): size, TERM, resizes, raw keys, and a clean stop."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from tracker.serve.pty_bridge import PtyChild
from tracker.serve.channel import child_env, seat_argv
from tracker.serve.options import ServeOptions
from tracker.serve.keys import GM, VIEWER
from tests.helpers import DEADLINE

pytestmark = pytest.mark.serve

# A small terminal program: reports what it got, follows SIGWINCH, echoes raw keys, and
# starts a grandchild in its own process group (to see that stop() ends the group).
CHILD = r"""
import os, signal, subprocess, sys, termios, tty
grand = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
print(f"GRANDCHILD {grand.pid}", flush=True)
def report(*_):
    cols, rows = os.get_terminal_size(1)
    print(f"SIZE {cols}x{rows}", flush=True)
signal.signal(signal.SIGWINCH, report)
tty_name = os.ttyname(0)
ctty = os.open("/dev/tty", os.O_RDWR)  # fails without a controlling terminal
print(f"TERM={os.environ.get('TERM')} CTTY={os.tcgetpgrp(ctty) == os.getpgrp() == os.getsid(0)}", flush=True)
report()
tty.setraw(0)
while True:
    data = os.read(0, 100)
    if not data or b"q" in data:
        break
    os.write(1, b"GOT " + data.hex().encode() + b"\r\n")
"""


async def _until(buffer: bytearray, text: bytes, timeout: float = 30.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while text not in buffer:
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"{text!r} not seen in {bytes(buffer)!r}")
        await asyncio.sleep(0.01)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(") ", 1)[1][0] != "Z"
    except FileNotFoundError:
        return False


async def test_child_gets_size_term_resizes_and_raw_keys() -> None:
    out = bytearray()
    env = dict(os.environ, TERM="xterm-256color")
    child = PtyChild([sys.executable, "-c", CHILD], env, (100, 30, 0, 0), out.extend)
    await child.start()
    try:
        await _until(out, b"TERM=xterm-256color CTTY=True")
        await _until(out, b"SIZE 100x30")
        child.resize(132, 43)
        await _until(out, b"SIZE 132x43")
        child.write(b"\x1b[A\x03x")  # an arrow key and ctrl-c pass through untouched in raw mode
        await _until(out, b"GOT 1b5b4103")
        grandchild = int(bytes(out).split(b"GRANDCHILD ")[1].split()[0])
        assert _alive(grandchild)
    finally:
        code = await asyncio.wait_for(child.stop(), DEADLINE)
    assert code is not None
    assert child.process is not None and child.process.returncode is not None
    # The grandchild was in the child's process group: gone as well.
    for _ in range(100):
        if not _alive(grandchild):
            break
        await asyncio.sleep(0.02)
    assert not _alive(grandchild)


async def test_child_exit_is_seen_and_reaped() -> None:
    out = bytearray()
    child = PtyChild([sys.executable, "-c", "print('bye'); raise SystemExit(3)"], dict(os.environ), (80, 24, 0, 0), out.extend)
    await child.start()
    assert await asyncio.wait_for(child.wait(), DEADLINE) == 3
    assert b"bye" in out
    await child.stop()


def test_child_command_and_environment(tmp_path: Path) -> None:
    saves = tmp_path / "saves"
    opts = ServeOptions(saves=saves, python="/usr/bin/python3")
    # --spawn exec runs the seat's module; who sits there comes on its socket, never in argv or env.
    assert seat_argv(opts) == ["/usr/bin/python3", "-m", "tracker.serve.seat"]
    os.environ["TRACKER_USER"] = "mallory"
    try:
        env = child_env(opts, VIEWER, "screen-256color", {"LANG": "de_DE.UTF-8", "LD_PRELOAD": "/evil.so", "TRACKER_USER": "dan"})
    finally:
        del os.environ["TRACKER_USER"]
    assert env["TERM"] == "screen-256color" and env["LANG"] == "de_DE.UTF-8"
    assert env["TRACKER_READ_ONLY"] == "1" and env["TRACKER_SAVES"] == str(saves)
    assert env.get("LD_PRELOAD") != "/evil.so"  # only terminal and locale settings pass
    assert "TRACKER_USER" not in env and "TRACKER_ROLE" not in env  # no identity in the environment
    gm_env = child_env(opts, GM, "", {})
    assert "TRACKER_READ_ONLY" not in gm_env and gm_env["TERM"] == "xterm-256color"
