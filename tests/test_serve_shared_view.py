"""Viewers who see the same thing share one app and one drawing (viewer_host: Group).

Over loopback SSH with real clients (asyncssh, and OpenSSH's `ssh -tt`): identical viewers
are drawn by one app and get the same bytes; one who presses a key leaves with an app of
its own while the others' screens stay as they were; a newcomer gets the whole screen at
once; a member that stops reading is given up while the others follow; and nothing a
viewer may not see (tracker.reading.viewing.sight) reaches any of them, shared or not.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import time
from pathlib import Path

import asyncssh
import pytest

from tests.helpers import DEADLINE, close_table, until, viewer_given_up
from tests.test_serve import NAME, Table, _serve, _table
from tracker.serve import viewer_output
from tracker.serve.probe import OpenSSHScreen, Screen, ServerProcess, plain
from tracker.serve.probe import _Collector as Collector

pytestmark = pytest.mark.serve

SSH = shutil.which("ssh")
HIDDEN = ("Lurker", "Ambush")  # the test table's hidden combatant and its declaration
PAGE_UP = b"\x1b[5~"


def _watching(server: ServerProcess) -> list[tuple[int, str, int]]:
    """(viewer, view size, how many others) for each viewer the host put in a shared view."""
    found = []
    for line in server.lines:
        m = re.search(r"viewer #(\d+) watches the (\d+x\d+) view of viewers' process \d+ with (\d+) other", line)
        if m:
            found.append((int(m.group(1)), m.group(2), int(m.group(3))))
    return found


def _alone(server: ServerProcess) -> list[int]:
    return [int(m.group(1)) for line in server.lines if (m := re.search(r"viewer #(\d+) draws alone from now on", line))]


async def _note_seen_by(table: Table, screens: list[Screen], text: str) -> None:
    marks = [len(s.session.data) for s in screens]
    table.play(f"note {text}")
    await asyncio.gather(*(s.wait_for(text, since=m) for s, m in zip(screens, marks)))


def _nothing_hidden(*screens: Screen) -> None:
    for screen in screens:
        for secret in HIDDEN:
            assert secret not in screen.text


async def test_identical_viewers_share_one_app_and_get_the_same_frames(tmp_path: Path) -> None:
    t = _table(tmp_path)
    server = _serve(t, "--encounter", "fight", "--viewers-per-process", "8")
    screens: list[Screen] = []
    try:
        for _ in range(3):
            screen = await Screen.connect(server.port, t.viewer, size=(80, 24))
            await screen.wait_for(NAME)
            screens.append(screen)
        wide = await Screen.connect(server.port, t.viewer, size=(100, 30))  # another size: another view
        await wide.wait_for(NAME)
        await until(lambda: len(_watching(server)) == 4, "four viewers placed")
        views = _watching(server)
        assert [(size, others) for _, size, others in views] == [("80x24", 0), ("80x24", 1), ("80x24", 2), ("100x30", 0)]
        assert _alone(server) == []

        # One change: the three of a size get the very same bytes (one rendering, fanned out).
        marks = [len(s.session.data) for s in screens]
        t.play("note the sphinx stirs")
        await asyncio.gather(*(s.wait_for("the sphinx stirs", since=m) for s, m in zip(screens, marks)))
        await wide.wait_for("the sphinx stirs")

        def same() -> bool:
            frames = [bytes(s.session.data[m:]) for s, m in zip(screens, marks)]
            return frames[0] == frames[1] == frames[2]

        await until(same, "the same frame bytes for every member")
        assert "the sphinx stirs" in plain(bytes(screens[0].session.data[marks[0] :]))
        _nothing_hidden(*screens, wide)
    finally:
        await close_table(server, [*screens, *([wide] if "wide" in locals() else [])])


async def test_a_viewer_who_scrolls_draws_alone_and_the_others_see_no_change(tmp_path: Path) -> None:
    t = _table(tmp_path)
    t.play(*(f"note line {n} of the long watch" for n in range(40)))  # a log longer than its pane
    server = _serve(t, "--encounter", "fight", "--viewers-per-process", "8")
    screens: list[Screen] = []
    try:
        for _ in range(2):
            screen = await Screen.connect(server.port, t.viewer, size=(80, 24))
            await screen.wait_for("line 39 of the long watch")
            screens.append(screen)
        scroller, other = screens
        await until(lambda: len(_watching(server)) == 2, "both in one view")
        assert _watching(server)[1][2] == 1

        other_mark, mark = len(other.session.data), len(scroller.session.data)
        scroller.send(PAGE_UP * 6)  # the log scrolls back to its start for this viewer alone
        await scroller.wait_for("line 2 of the long watch", since=mark)
        await until(lambda: len(_alone(server)) == 1, "the scroller drawing alone")
        # No jump: the scroller's own app started on the screen the view showed, which
        # it did not clear (no second switch to the alternate screen).
        assert b"\x1b[?1049h" not in bytes(scroller.session.data[mark:])
        marks = [len(other.session.data), len(scroller.session.data)]
        t.play("damage Sphinx 7", "note after the scroll")  # both follow: the roster shows it
        await asyncio.gather(*(s.wait_for("23/30", since=m) for s, m in zip((other, scroller), marks)))
        await other.wait_for("after the scroll", since=marks[0])
        assert "line 2 of the long watch" not in plain(bytes(other.session.data[other_mark:]))  # the other's log stayed at its end
        assert "line 2 of the long watch" in scroller.text[-3000:]  # the scroller's stays scrolled back

        assert len(_alone(server)) == 1
        _nothing_hidden(scroller, other)
    finally:
        await close_table(server, screens)


async def test_a_viewer_who_joins_gets_the_whole_screen_at_once(tmp_path: Path) -> None:
    t = _table(tmp_path)
    server = _serve(t, "--encounter", "fight", "--viewers-per-process", "8")
    screens: list[Screen] = []
    try:
        first = await Screen.connect(server.port, t.viewer, size=(80, 24))
        await first.wait_for(NAME)
        screens.append(first)
        await _note_seen_by(t, [first], "before the newcomer")
        newcomer = await Screen.connect(server.port, t.viewer, size=(80, 24))
        screens.append(newcomer)
        await newcomer.wait_for("before the newcomer")
        await until(lambda: len(_watching(server)) == 2, "the newcomer in the view")
        assert _watching(server)[1][2] == 1  # it joined the running view, no app of its own
        # One piece: the terminal modes, then the frame whole, drawn at once (between the
        # synchronized-output marks; its end may still be on its way on a busy machine).
        await until(lambda: b"\x1b[?2026l" in newcomer.session.data, "the end of the newcomer's whole frame")
        data = bytes(newcomer.session.data)
        assert data.startswith(b"\x1b[?1049h")  # the alternate screen, as the app's driver enters it
        assert data.index(b"\x1b[?2026h") < data.index(b"\x1b[?2026l")
        whole = plain(data[data.index(b"\x1b[?2026h") : data.index(b"\x1b[?2026l")])
        for part in (NAME, "Roster", "Combat log", "Seraph", "Sphinx", "before the newcomer", "Quit"):
            assert part in whole
        _nothing_hidden(*screens)
        await _note_seen_by(t, screens, "both follow")
    finally:
        await close_table(server, screens)


async def _stuck_viewer(port: int, key: asyncssh.SSHKey) -> Screen:
    """A viewer whose client lets little through before it must read (a small window), so
    that once it stops reading, its terminal fills in a few changes."""
    conn = await asyncssh.connect("127.0.0.1", port, known_hosts=None, client_keys=[key], username="player", agent_path=None)
    chan, session = await conn.create_session(Collector, term_type="xterm-256color", term_size=(80, 24), encoding=None, window=2048, max_pktsize=1024)
    assert isinstance(session, Collector)
    return Screen(conn, chan, session)


async def test_a_member_that_stops_reading_is_dropped_and_the_view_goes_on(tmp_path: Path) -> None:
    t = _table(tmp_path)
    server = _serve(t, "--encounter", "fight", "--viewers-per-process", "8")
    stuck = await _stuck_viewer(server.port, t.viewer)
    await stuck.wait_for(NAME)
    other = await Screen.connect(server.port, t.viewer, size=(80, 24))
    await other.wait_for(NAME)
    try:
        await until(lambda: len(_watching(server)) == 2, "both in one view")
        stuck.chan.pause_reading()
        started = time.monotonic()
        n = 0
        while not viewer_given_up(server.lines):
            n += 1
            sent = time.monotonic()
            mark = len(other.session.data)
            t.play(f"note still following {n} " + "long words " * 30)  # a big frame: the stuck terminal fills sooner
            await other.wait_for(f"still following {n} long", since=mark)
            assert time.monotonic() - sent < DEADLINE, "the view waited for the stuck member"
            assert time.monotonic() - started < viewer_output.STALLED + 3 * DEADLINE, "the stuck member was never given up"
        assert _alone(server) == []  # given up as a member: the view itself went on
        await _note_seen_by(t, [other], "after the stuck one")
        stuck.chan.resume_reading()
        await asyncio.wait_for(stuck.session.closed.wait(), DEADLINE)
        assert stuck.chan.get_exit_status() == 1
        _nothing_hidden(other)
        # The view still takes newcomers.
        late = await Screen.connect(server.port, t.viewer, size=(80, 24))
        await late.wait_for("after the stuck one")
        await late.close()
    finally:
        stuck.chan.resume_reading()
        await close_table(server, [stuck, other])


@pytest.mark.skipif(SSH is None, reason="OpenSSH's ssh is not installed")
async def test_openssh_and_asyncssh_viewers_share_a_view_and_a_key_leaves_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert SSH is not None
    monkeypatch.setenv("TERM", "xterm-256color")  # what OpenSSH sends: the same kind of terminal as the other
    t = _table(tmp_path)
    server = _serve(t, "--encounter", "fight", "--viewers-per-process", "8")
    ssh = await OpenSSHScreen.start(SSH, server.port, t.root / "keys" / "viewer")  # no local terminal: 80x24
    screens: list[Screen] = []
    try:
        await asyncio.wait_for(ssh.wait_for(NAME.encode()), DEADLINE)
        screen = await Screen.connect(server.port, t.viewer, size=(80, 24))
        screens.append(screen)
        await screen.wait_for(NAME)
        await until(lambda: len(_watching(server)) == 2, "both placed")
        assert [size for _, size, _ in _watching(server)] == ["80x24", "80x24"] and _watching(server)[1][2] == 1
        t.play("note over two clients")
        await asyncio.wait_for(ssh.wait_for(b"over two clients"), DEADLINE)
        await screen.wait_for("over two clients")
        await ssh.send(b"?")  # OpenSSH's viewer asks for the help: an app of its own shows it
        await asyncio.wait_for(ssh.wait_for(b"esc closes"), DEADLINE)
        await until(lambda: len(_alone(server)) == 1, "the OpenSSH viewer drawing alone")
        assert "esc closes" not in screen.text
        for secret in HIDDEN:
            assert secret.encode() not in ssh.seen and secret not in plain(ssh.seen)
        _nothing_hidden(screen)
    finally:
        await ssh.close()
        await close_table(server, screens)
