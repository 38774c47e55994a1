"""`tracker serve` over loopback SSH with the real app on each connection.

The server runs as a subprocess (`python -m tracker serve --port 0`, so a free port is
chosen and read from its log); clients are asyncssh connections with a pty that read
what the app draws until a text appears, always under a deadline.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import asyncssh
import pytest

from tracker.persistence.store import EncounterFile
from tracker.serve.probe import Screen, ServerProcess, alive, env, make_key
from tracker.engine.text import quoted
from tests.helpers import DEADLINE

pytestmark = pytest.mark.serve

NAME = "Seraph vs Sphinx"


@dataclass
class Table:
    root: Path
    saves: Path
    file: Path
    gm: asyncssh.SSHKey
    viewer: asyncssh.SSHKey
    stranger: asyncssh.SSHKey
    server: ServerProcess | None = None

    def revision(self) -> int:
        return EncounterFile(self.file).load().revision

    def play(self, *lines: str) -> None:
        result = subprocess.run(
            [sys.executable, "-m", "tracker", "play", str(self.file)], input="\n".join(lines) + "\n", env=env(), capture_output=True, text=True, timeout=30
        )
        assert result.returncode == 0, result.stderr


def _table(root: Path) -> Table:
    saves = root / "saves"
    saves.mkdir()
    file = saves / "fight.toml"
    keys = root / "keys"
    keys.mkdir()
    gm, viewer, stranger = (make_key(keys / n, n) for n in ("gm", "viewer", "stranger"))
    (keys / "gm_keys").write_text(gm.export_public_key().decode())
    (keys / "viewer_keys").write_text("# the players\n" + viewer.export_public_key().decode())
    table = Table(root, saves, file, gm, viewer, stranger)
    subprocess.run([sys.executable, "-m", "tracker", "new", str(file), "--ruleset", "freeform", "--name", NAME], env=env(), check=True, capture_output=True, timeout=30)
    table.play("add Seraph hp=20", "add Sphinx hp=30", "add Lurker hp=5 hidden=true", "declare Lurker Ambush pt=5")
    return table


def _serve(table: Table, *extra: str) -> ServerProcess:
    keys = table.root / "keys"
    return ServerProcess.start(table.saves, "--gm-keys", str(keys / "gm_keys"), "--viewer-keys", str(keys / "viewer_keys"), *extra)


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Table]:
    t = _table(tmp_path_factory.mktemp("table"))
    t.server = _serve(t, "--encounter", "fight")
    try:
        yield t
    finally:
        t.server.stop()


async def test_viewer_sees_the_encounter_but_not_hidden_combatants(table: Table) -> None:
    assert table.server is not None
    viewer = await Screen.connect(table.server.port, table.viewer)
    gm = await Screen.connect(table.server.port, table.gm)
    try:
        await viewer.wait_for(NAME)
        await viewer.wait_for("Sphinx")
        await gm.wait_for(NAME)
        await gm.wait_for("Lurker")  # the GM's screen shows the hidden combatant...
        assert "Lurker" not in viewer.text  # ...the viewer's never does, nor its roll
        assert "Ambush" not in viewer.text
    finally:
        await viewer.close()
        await gm.close()
    log = "\n".join(table.server.lines)
    assert " viewer key " in log and " gm key " in log and "127.0.0.1:" in log


async def test_gm_change_reaches_the_viewers_screen(table: Table) -> None:
    assert table.server is not None
    viewer = await Screen.connect(table.server.port, table.viewer)
    try:
        await viewer.wait_for(NAME)
        mark = len(viewer.session.data)
        table.play("note the sphinx roars")
        await viewer.wait_for("the sphinx roars", since=mark)
    finally:
        await viewer.close()


async def test_viewer_keys_change_nothing(table: Table) -> None:
    assert table.server is not None
    viewer = await Screen.connect(table.server.port, table.viewer)
    try:
        await viewer.wait_for(NAME)
        before = table.revision()
        # Every editing key of the encounter screen, and the command line with a change
        # (no escape or q: on a screen opened directly those quit, which is allowed).
        for keys in (b"n", b" ", b".", b"d", b"u", b"r", b"a", b"m", b"x", b"h", b":", b"note sneaky\r"):
            viewer.send(keys)
        # The `t` of "note" opens the stats screen (a viewer may read it); esc goes back.
        await viewer.wait_for("esc Back")
        viewer.send(b"\x1b")
        # GM keys are not bound for a viewer: they do nothing. A GM change made after
        # the keys: once the viewer shows it, the keys sent before it have been read.
        mark = len(viewer.session.data)
        table.play("damage Sphinx 7")
        await viewer.wait_for("23/30", since=mark)
        assert table.revision() == before + 1
        notes = [e.args["text"] for e in EncounterFile(table.file).load().encounter.events if e.kind == "note"]
        assert "sneaky" not in notes
    finally:
        await viewer.close()


async def test_gm_over_ssh_changes_the_file(table: Table) -> None:
    assert table.server is not None
    gm = await Screen.connect(table.server.port, table.gm)
    try:
        await gm.wait_for(NAME)
        before = table.revision()
        gm.send(b":")
        await gm.wait_for("esc: cancel")  # the command line is open and focused
        gm.send(b"note typed over ssh\r")
        await gm.wait_for("typed over ssh")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + DEADLINE
        while table.revision() == before and loop.time() < deadline:
            await asyncio.sleep(0.05)  # the app writes right after drawing the change
        notes = [e.args["text"] for e in EncounterFile(table.file).load().encounter.events if e.kind == "note"]
        assert "typed over ssh" in notes
    finally:
        await gm.close()


async def test_unknown_key_is_refused(table: Table) -> None:
    assert table.server is not None
    with pytest.raises(asyncssh.PermissionDenied):
        await Screen.connect(table.server.port, table.stranger)
    table.server.wait_line("refused key " + re.escape(table.stranger.get_fingerprint("sha256")))


async def test_the_log_quotes_the_user_name_a_client_chose(table: Table) -> None:
    # Seen: the name was printed bare, so one with spaces could pose as the words after
    # it ('bob@10.0.0.1:22 gm key SHA256:...@127.0.0.1:5000 viewer key ...'). Now it is
    # one quoted token: quotes and backslashes escaped, at most 64 characters. (Control
    # and bidi characters never arrive: the SSH layer refuses such a name (SASLprep) before
    # it is logged; `quoted` would show them as pictures and tags all the same.)
    assert quoted('a\x1b[2J\u202e"\\') == '"a␛[2J<U+202E>\\"\\\\"'
    assert table.server is not None
    start = len(table.server.lines)
    posing = 'bob\\"@10.0.0.1:22 gm key SHA256:x'
    viewer = await Screen.connect(table.server.port, table.viewer, username=posing)
    try:
        await viewer.wait_for(NAME)
    finally:
        await viewer.close()
    with pytest.raises(asyncssh.PermissionDenied):
        await Screen.connect(table.server.port, table.stranger, username="eve gm key SHA256:fake")
    shown = r'"bob\\\"@10.0.0.1:22 gm key SHA256:x"'
    connected = table.server.wait_line(r"connect #\d+ " + re.escape(shown) + r"@127\.0\.0\.1:\d+ viewer key ", start=start)
    table.server.wait_line(r"disconnect #\d+ " + re.escape(shown) + "@127", start=start)
    table.server.wait_line(r'refused key .* for "eve gm key SHA256:fake"@127\.0\.0\.1:\d+$', start=start)
    assert " gm key " not in connected.replace(shown, "") and "@10.0.0.1" not in connected.replace(shown, "")
    viewer = await Screen.connect(table.server.port, table.viewer, username="x" * 100)
    await viewer.close()
    table.server.wait_line(r'connect #\d+ "x{63}…"@127', start=start)


async def test_without_a_fight_viewers_wait_and_only_the_gms_start_screen_lists_the_encounters(tmp_path: Path) -> None:
    t = _table(tmp_path)
    server = _serve(t, "--open-viewers")  # no --encounter: the GM chooses the fight
    try:
        viewer = await Screen.connect(server.port, t.stranger)  # any key: a viewer
        gm = await Screen.connect(server.port, t.gm)
        try:
            await viewer.wait_for("The GM has not opened a fight yet")
            await gm.wait_for(NAME)  # the GM's start screen lists the fights
            await gm.wait_for("Encounters in")
            viewer.send(b"\x1b[3~")  # Delete, Enter, o: nothing is listed, nothing opens
            viewer.send(b"y\ro\x1b")
            await viewer.wait_for("No fight yet")  # Esc says where they are
            assert t.file.exists() and NAME not in viewer.text and str(t.saves) not in viewer.text
        finally:
            await viewer.close()
            await gm.close()
        server.wait_line(r"connect .* viewer key")
    finally:
        assert server.stop() == 0


async def test_connection_cap_and_sigterm_leave_no_process(tmp_path: Path) -> None:
    t = _table(tmp_path)
    server = _serve(t, "--encounter", "fight", "--max-connections", "2")
    screens = []
    try:
        for key in (t.gm, t.viewer):
            screens.append(await Screen.connect(server.port, key))
        for screen in screens:
            await screen.wait_for(NAME)
        with pytest.raises((asyncssh.DisconnectError, ConnectionError)) as refused:
            await Screen.connect(server.port, t.viewer)
        assert "full" in str(refused.value)
        pids = server.app_pids()
        assert len(pids) == 2 and all(alive(p) for p in pids)
    finally:
        code = server.stop()
    assert code == 0
    assert not [p for p in pids if alive(p)]
    server.wait_line("stopped")
    for screen in screens:
        await asyncio.wait_for(screen.session.closed.wait(), DEADLINE)
    loaded = EncounterFile(t.file).load()
    assert loaded.encounter.setup.name == NAME
    check = subprocess.run([sys.executable, "-m", "tracker", "check", str(t.file)], env=env(), capture_output=True, text=True, timeout=30)
    assert check.returncode == 0, check.stderr


async def test_idle_connection_is_closed(tmp_path: Path) -> None:
    t = _table(tmp_path)
    server = _serve(t, "--encounter", "fight", "--idle-timeout", "1.5")
    try:
        viewer = await Screen.connect(server.port, t.viewer)
        await viewer.wait_for(NAME)
        await asyncio.wait_for(viewer.session.closed.wait(), DEADLINE)
        server.wait_line(r"idle #\d+ .*viewer")
        pids = server.app_pids()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + DEADLINE
        while any(alive(p) for p in pids) and loop.time() < deadline:
            await asyncio.sleep(0.05)
        assert not [p for p in pids if alive(p)]  # reaped on disconnect, server still up
        assert server.proc.poll() is None
    finally:
        assert server.stop() == 0


def test_serve_refuses_to_start_when_nobody_could_connect(tmp_path: Path) -> None:
    saves = tmp_path / "saves"
    saves.mkdir()
    result = subprocess.run([sys.executable, "-m", "tracker", "--saves", str(saves), "serve", "--port", "0"], env=env(), capture_output=True, text=True, timeout=30)
    assert result.returncode == 1
    assert "nobody could connect" in result.stderr and "Traceback" not in result.stderr
    result = subprocess.run(
        [sys.executable, "-m", "tracker", "--saves", str(saves), "serve", "--port", "0", "--open-viewers", "--encounter", "nope"],
        env=env(), capture_output=True, text=True, timeout=30,
    )
    assert result.returncode == 1 and "--encounter nope: no such encounter" in result.stderr


def test_host_key_is_created_once_and_kept(tmp_path: Path) -> None:
    from tracker.serve.keys import load_or_create_host_key

    path = tmp_path / "saves" / ".tracker_host_key"
    key, created = load_or_create_host_key(path)
    assert created and (os.stat(path).st_mode & 0o777) == 0o600
    again, created_again = load_or_create_host_key(path)
    assert not created_again and again.get_fingerprint() == key.get_fingerprint()
