"""Viewers sharing a process (`tracker serve --viewers-per-process N`, viewer_host).

Over loopback SSH with real keys: viewers are placed up to N per process and all follow
the GM; a resize reaches a shared viewer; one leaving or its process dying leaves the
others and the GM alone; the last one out ends the process; SIGTERM leaves nothing.
In process: two apps on one encounter both redraw a change whichever folds it in first,
the follower ends with the last app, and the control socket's edges (a terminal that
stops reading, extra descriptors, bad messages).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pty
import signal
import socket
import time
from pathlib import Path

import pytest

from tests.helpers import DEADLINE, close_table, until, viewer_given_up
from tests.test_serve import NAME, Table, _serve, _table
from tests.test_ui_app import SIZE, encounter_screen, make_file, wait_for
from tracker.persistence.store import EncounterFile
from tracker.serve import control, viewer_output
from tracker.serve.probe import Screen, alive
from tracker.play.session import Session
from tracker.ui.app import TrackerApp
from tracker.play.live import Live
from tracker.ui.widgets.log import CombatLog
from tests.ui import press, settle

pytestmark = pytest.mark.serve


def _pids_by_viewer(server_lines: list[str]) -> list[int]:
    import re

    return [int(m.group(1)) for line in server_lines if "viewer key" in line and (m := re.search(r"app pid (\d+) .*\(a viewers' process\)", line))]


async def _viewers(server, t: Table, n: int) -> list[Screen]:  # type: ignore[no-untyped-def]
    """`n` viewers connected one after another, each drawn."""
    screens = []
    for _ in range(n):
        screen = await Screen.connect(server.port, t.viewer, size=(80, 24))
        await screen.wait_for(NAME)
        screens.append(screen)
    return screens


async def _note_seen_by(table: Table, screens: list[Screen], text: str) -> None:
    marks = [len(s.session.data) for s in screens]
    table.play(f"note {text}")
    await asyncio.gather(*(s.wait_for(text, since=m) for s, m in zip(screens, marks)))


async def test_viewers_share_processes_follow_the_gm_and_leave_alone(tmp_path: Path) -> None:
    t = _table(tmp_path)
    server = _serve(t, "--encounter", "fight", "--viewers-per-process", "3")
    screens: list[Screen] = []
    try:
        screens.extend(await _viewers(server, t, 4))
        server.wait_line(r"app pid \d+ .*viewer key.*\(a viewers' process\)")
        await until(lambda: len(_pids_by_viewer(server.lines)) == 4, "four viewers placed")
        pids = _pids_by_viewer(server.lines)
        assert pids[0] == pids[1] == pids[2] != pids[3]  # three to a process, the fourth in a new one
        assert all(alive(p) for p in set(pids))
        gm = await Screen.connect(server.port, t.gm, size=(80, 24))
        await gm.wait_for("Lurker")
        assert all("Lurker" not in s.text for s in screens)  # shared or not, a viewer's view
        await _note_seen_by(t, [*screens, gm], "the sphinx roars")

        # A resize reaches a viewer in a shared process (no SIGWINCH gets there).
        mark = len(screens[1].session.data)
        screens[1].chan.change_terminal_size(120, 30)
        await screens[1].wait_for("Combat log", since=mark)

        # One viewer leaves: the others in its process, and the GM, still follow.
        await screens.pop(0).close()
        await _note_seen_by(t, [*screens, gm], "one left")

        # The fourth viewer's process dies: only that viewer's session ends.
        os.kill(pids[3], signal.SIGKILL)
        lone = screens.pop()
        await asyncio.wait_for(lone.session.closed.wait(), DEADLINE)
        assert lone.chan.get_exit_status() == 1
        server.wait_line(rf"viewers' process {pids[3]} is gone: its 1 viewer\(s\) are disconnected")
        await _note_seen_by(t, [*screens, gm], "still here")

        # A new viewer goes to the process with a free place.
        newcomer = await Screen.connect(server.port, t.viewer, size=(80, 24))
        await newcomer.wait_for(NAME)
        screens.append(newcomer)
        await until(lambda: len(_pids_by_viewer(server.lines)) == 5, "the newcomer placed")
        assert _pids_by_viewer(server.lines)[-1] == pids[0]

        # The last viewers out end their process.
        for screen in screens:
            await screen.close()
        screens = []
        server.wait_line(rf"viewers' process {pids[0]} ended: its last viewer left")
        await until(lambda: not alive(pids[0]), "the viewers' process to exit")
        await _note_seen_by(t, [gm], "the GM goes on")
        await gm.close()
    finally:
        for screen in screens:
            await screen.close()
        code = server.stop()
    assert code == 0
    assert EncounterFile(t.file).load().encounter.setup.name == NAME


async def test_sigterm_ends_the_viewers_processes(tmp_path: Path) -> None:
    t = _table(tmp_path)
    server = _serve(t, "--encounter", "fight", "--viewers-per-process", "2")
    screens = []
    try:
        screens.extend(await _viewers(server, t, 3))
        await until(lambda: len(_pids_by_viewer(server.lines)) == 3, "three viewers placed")
        pids = set(_pids_by_viewer(server.lines))
        assert len(pids) == 2
    finally:
        code = server.stop()
    assert code == 0
    assert not [p for p in pids if alive(p)]
    for screen in screens:
        await asyncio.wait_for(screen.session.closed.wait(), DEADLINE)


async def test_one_per_process_is_a_process_each(tmp_path: Path) -> None:
    t = _table(tmp_path)
    server = _serve(t, "--encounter", "fight", "--viewers-per-process", "1")
    screens = []
    try:
        screens.extend(await _viewers(server, t, 2))
        pids = server.app_pids()
        assert len(set(pids)) == 2 and not _pids_by_viewer(server.lines)
        await _note_seen_by(t, screens, "each their own")
    finally:
        await close_table(server, screens)


def test_viewers_per_process_must_be_at_least_one(tmp_path: Path) -> None:
    import subprocess
    import sys

    from tracker.serve.probe import env

    t = _table(tmp_path)
    keys = t.root / "keys"
    result = subprocess.run(
        [sys.executable, "-m", "tracker", "--saves", str(t.saves), "serve", "--port", "0", "--gm-keys", str(keys / "gm_keys"), "--encounter", "fight", "--viewers-per-process", "0"],
        env=env(),
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode != 0
    assert "--viewers-per-process: expected at least 1, got 0" in result.stderr
    assert "Traceback" not in result.stderr


# ---------------------------------------------------------------- in process
async def test_two_apps_on_one_encounter_both_show_a_change(saves: Path) -> None:
    """As in a viewers' process: one Live, one follower; whichever app folds a change in,
    both redraw it, and the follower ends with the last app."""
    path = make_file(saves, "freeform", ["add Seraph", "add Sphinx"])
    live = Live.open(path, viewer=True)
    first, second = TrackerApp(saves, path, True, live), TrackerApp(saves, path, True, live)
    async with first.run_test(size=SIZE) as one:
        async with second.run_test(size=SIZE) as two:
            await settle(one)
            await settle(two)
            follower = live.follower
            assert follower is not None and len(follower.listeners) == 2
            gm_store = EncounterFile(path)
            loaded = gm_store.load()
            Session(loaded.encounter, loaded.ruleset, store=gm_store).execute("note both of you")
            for app, pilot in ((first, one), (second, two)):
                log = encounter_screen(app).query_one(CombatLog)
                await wait_for(pilot, lambda log=log: any("both of you" in e.text for e in log.loaded), "each app to show the note")
            assert not first.errors and not second.errors
            await press(two, "q")
        assert live.follower is follower and follower.alive and len(follower.listeners) == 1  # the first app still follows
    assert live.follower is None  # ended with the last app


async def test_a_terminal_that_stops_reading_is_given_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """The host's one writer never blocks on a terminal: what it cannot take waits in that
    terminal's own buffer, and after STALLED seconds without taking anything it is given up."""
    monkeypatch.setattr(viewer_output, "STALLED", 0.3)
    master, slave = pty.openpty()
    gone: list[bool] = []
    try:
        writer = viewer_output.HostWriter(asyncio.get_running_loop())
        out = viewer_output.Terminal(writer, slave, lambda: gone.append(True))
        started = time.monotonic()
        for _ in range(200):  # nobody reads the master: the pty's buffer fills, the rest waits
            out.write("x" * 4096)
        assert time.monotonic() - started < 1  # never blocked
        assert out.pending and not out.gone
        await until(lambda: out.gone, "the stalled terminal given up")
        assert gone == [True] and not out.pending
        assert time.monotonic() - started < 5
        out.write("more")  # dropped, not raised
        assert os.get_blocking(slave)  # the input side still blocks as the driver expects
        out.close()
    finally:
        os.close(master)
        os.close(slave)


async def test_a_terminal_too_far_behind_is_given_up_and_a_slow_one_catches_up(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(viewer_output, "BACKLOG", 64 * 1024)
    writer = viewer_output.HostWriter(asyncio.get_running_loop())
    master, slave = pty.openpty()
    master2, slave2 = pty.openpty()
    try:
        behind: list[bool] = []
        out = viewer_output.Terminal(writer, slave, lambda: behind.append(True))
        slow = viewer_output.Terminal(writer, slave2, lambda: behind.append(False))
        for n in range(40):
            out.send(b"y" * 4096)
            slow.send(bytes([65 + n % 26]) * 1024)
        assert behind == [True] and out.gone  # given up at once, not after STALLED
        got = bytearray()
        os.set_blocking(master2, False)
        while len(got) < 40 * 1024:  # the slow reader gets everything, in order
            with contextlib.suppress(BlockingIOError):
                got += os.read(master2, 65536)
            await asyncio.sleep(0.01)
        assert bytes(got) == b"".join(bytes([65 + n % 26]) * 1024 for n in range(40))
        assert not slow.gone
        out.close()
        slow.close()
    finally:
        for fd in (master, slave, master2, slave2):
            os.close(fd)


def test_control_messages_close_stray_descriptors_and_survive_garbage() -> None:
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    r1, w1 = os.pipe()
    r2, w2 = os.pipe()
    try:
        import array

        fds = array.array("i", [r1, r2])
        ours.sendmsg([b'{"op": "open", "id": 1}'], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)])
        message, fd = control.receive(theirs)
        assert message == {"op": "open", "id": 1} and fd is not None
        os.close(fd)
        ours.sendmsg([b"not json [ \x1b"])
        assert control.receive(theirs) == ({}, None)
        ours.sendmsg([b"[1, 2]"])
        assert control.receive(theirs) == ({}, None)
        before = len(os.listdir("/proc/self/fd"))
        ours.sendmsg([b'{"op": "size", "id": 2}'], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [r1, r2]))])
        message, fd = control.receive(theirs)
        assert message == {"op": "size", "id": 2} and fd is not None
        os.close(fd)
        assert len(os.listdir("/proc/self/fd")) == before  # the second descriptor was closed
        ours.close()
        assert control.receive(theirs) == (None, None)
    finally:
        theirs.close()
        for fd in (r1, w1, r2, w2):
            os.close(fd)


async def test_a_viewer_that_stops_reading_holds_up_nobody(tmp_path: Path) -> None:
    """A client that stops reading (a frozen laptop) fills its channel, then its pty; the
    others in its process keep following, and its app ends (after `STALLED` seconds, or
    sooner once `BACKLOG` bytes wait for it)."""
    t = _table(tmp_path)
    server = _serve(t, "--encounter", "fight", "--viewers-per-process", "4")
    stuck, other = await _viewers(server, t, 2)
    try:
        await until(lambda: len(set(_pids_by_viewer(server.lines))) == 1 and len(_pids_by_viewer(server.lines)) == 2, "both in one process")
        stuck.chan.pause_reading()  # the client reads nothing more: the server's window to it closes
        started = time.monotonic()
        n = 0
        while not viewer_given_up(server.lines):
            n += 1
            # Big repaints for the stuck one (each resize redraws it whole), changes for all.
            stuck.chan.change_terminal_size(200 + n % 2, 60)
            await _note_seen_by(t, [other], f"still following {n}")
            # Filling the window and the pty takes more changes the busier the host (each
            # one slower to arrive): the deadline is generous, the stall itself is STALLED.
            assert time.monotonic() - started < viewer_output.STALLED + 3 * DEADLINE, "the stuck viewer was never given up"
        await _note_seen_by(t, [other], "after the stuck one")
        stuck.chan.resume_reading()  # the laptop wakes: what was sent arrives, then the end
        await asyncio.wait_for(stuck.session.closed.wait(), DEADLINE)
        assert stuck.chan.get_exit_status() == 1
    finally:
        stuck.chan.resume_reading()
        await close_table(server, [stuck, other])


async def test_one_viewers_hostile_keys_leave_the_others_following(tmp_path: Path) -> None:
    """Random bursts (escape sequences, brackets, pastes, half a UTF-8 character) from
    one viewer, as SSH delivers them: the process they share goes on, the other viewer
    follows the GM, the noisy one still answers keys, and nothing fails in the log."""
    import random

    rng = random.Random(20261123)
    pieces = [b"\x1b", b"\x1b[", b"\x1b[A", b"\x1b[200~", b"\x1b[201~", b"[", b"]", b"[/]", b"\x1bO", b"\t", b"\r", b":", b"/", b"?", b"h", b"H", b"a", b"\xc3", b"\xe2\x82", b"\x00", b"\x7f", b"\x1b[<0;5;5M", b"\x1b[99;99R", "ä[b]".encode()]
    t = _table(tmp_path)
    server = _serve(t, "--encounter", "fight", "--viewers-per-process", "4")
    noisy, calm = await _viewers(server, t, 2)
    try:
        for n in range(30):
            if noisy.session.closed.is_set():
                raise AssertionError(f"closed after burst {n}: {server.lines[-3:]} {noisy.text[-1500:]!r}")
            noisy.send(b"".join(rng.choice(pieces) for _ in range(rng.randint(1, 40))))
            if n % 10 == 9:
                await _note_seen_by(t, [calm], f"calm follows {n}")
        noisy.send(b"\x1b\x1b\x1b")
        mark = len(noisy.session.data)
        noisy.send(b"?")
        await noisy.wait_for("keys (esc closes)", since=mark)
        assert not noisy.session.closed.is_set()
        log = "\n".join(server.lines)
        assert "failed" not in log and "Traceback" not in log and "ended" not in log
    finally:
        await close_table(server, [noisy, calm])


async def test_viewers_share_a_process_only_with_the_same_kind_of_terminal(tmp_path: Path) -> None:
    """Textual picks colours from TERM as an app is made but caches rendered lines for the
    whole process: a 16-colour terminal gets a process apart from 256-colour ones, and
    each gets the colours it shows."""
    t = _table(tmp_path)
    server = _serve(t, "--encounter", "fight", "--viewers-per-process", "4")
    screens = []
    try:
        for term in ("xterm-256color", "xterm", "xterm-256color"):
            screen = await Screen.connect(server.port, t.viewer, size=(80, 24), term=term)
            await screen.wait_for(NAME)
            screens.append(screen)
        await until(lambda: len(_pids_by_viewer(server.lines)) == 3, "all placed")
        first, few, second = _pids_by_viewer(server.lines)
        assert first == second != few
        assert b"38;5;" in screens[0].session.data and b"38;5;" in screens[2].session.data  # 256 colours
        assert b"38;5;" not in screens[1].session.data and b"38;2;" not in screens[1].session.data
    finally:
        await close_table(server, screens)
