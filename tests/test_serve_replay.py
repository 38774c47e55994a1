"""The GM's replay at the served table (tracker serve): players and viewers follow it.

Over loopback SSH with real keys (asyncssh clients, and OpenSSH's `ssh -tt` where it is
installed), against `tracker serve` as a subprocess. The GM opens a replay (`w`) and
moves it; the player's and the viewer's screens show the same segment, each drawn by
their own app from their own copy of the fight and as their role may see it then: the
Lurker, hidden until segment 15, is drawn for nobody but the GM before 15, and for
everyone after. A player's keys do not move the replay; when the GM leaves it, every
screen is back to now. A seat that connects during the replay starts in it. Every wait
is on a condition, under a deadline.
"""

from __future__ import annotations

import asyncio
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import asyncssh
import pytest

from tests.helpers import cli
from tracker.serve.probe import OpenSSHScreen, Screen, ServerProcess, make_key, plain

pytestmark = [pytest.mark.serve, pytest.mark.slow]

SSH = shutil.which("ssh")
SIZE = (80, 24)
ESC = b"\x1b"


@dataclass
class Table:
    saves: Path
    keys: dict[str, asyncssh.SSHKey]
    key_files: dict[str, Path]
    args: tuple[str, ...]


@pytest.fixture
def table(tmp_path: Path) -> Table:
    saves = tmp_path / "saves"
    saves.mkdir()
    fight = saves / "fight.toml"
    assert cli("new", str(fight), "--ruleset", "freeform", "--name", "Table Night")[0] == 0
    lines = [
        "add Seraph hp=20", "add Nyx hp=20", "add Sphinx hp=30 side=foes", "add Lurker hp=5 side=foes hidden=true",
        "declare Sphinx claw target=Seraph pt=5 damage=3", "step 5",
        "declare Lurker bite target=Nyx pt=4 damage=2", "step 10",
        "unhide Lurker", "note the Lurker leaps out", "step 5",
    ]
    assert cli("play", str(fight), stdin="\n".join(lines) + "\n")[0] == 0
    folder = tmp_path / "keys"
    folder.mkdir()
    keys = {n: make_key(folder / n, f"{n}@laptop") for n in ("gm", "bob", "viewer", "late")}
    pub = {n: k.export_public_key().decode() for n, k in keys.items()}
    (folder / "gm_keys").write_text(pub["gm"])
    (folder / "viewer_keys").write_text(pub["viewer"] + pub["late"])
    (folder / "players_keys").write_text(f'combatant="Seraph" {pub["bob"]}')
    args = ("--gm-keys", str(folder / "gm_keys"), "--viewer-keys", str(folder / "viewer_keys"), "--players-keys", str(folder / "players_keys"))
    return Table(saves, keys, {n: folder / n for n in keys}, args)


@pytest.fixture(params=["shared", "own"], ids=["viewers-share-a-process", "a-process-each"])
def served(table: Table, request: pytest.FixtureRequest) -> Iterator[tuple[Table, ServerProcess]]:
    per = ("--viewers-per-process", "10" if request.param == "shared" else "1")
    server = ServerProcess.start(table.saves, *table.args, *per, "--encounter", "fight")
    try:
        yield table, server
    finally:
        assert server.stop() == 0


async def _key(screen: Screen, key: bytes, banner: str) -> int:
    """Send `key` on the GM's screen; wait for its banner; the byte offset before it."""
    mark = len(screen.session.data)
    screen.send(key)
    await screen.wait_for(banner, since=mark)
    return mark


async def test_players_and_viewers_follow_the_gms_replay_each_seeing_what_they_may(served: tuple[Table, ServerProcess]) -> None:
    t, server = served
    gm = await Screen.connect(server.port, t.keys["gm"], size=SIZE)
    bob = await Screen.connect(server.port, t.keys["bob"], size=SIZE)
    viewer = await Screen.connect(server.port, t.keys["viewer"], size=SIZE)
    late: Screen | None = None
    try:
        for screen in (gm, bob, viewer):
            await screen.wait_for("Table Night")
        await viewer.wait_for("Lurker")  # shown at now: unhidden on 15
        # A player does not start a replay of their own at the table: the GM leads it.
        mark = len(bob.session.data)
        bob.send(b"w")
        await bob.wait_for("At this table the GM leads", since=mark)
        # The GM replays; everyone's screen shows the last segment, in a replay.
        marks = [len(s.session.data) for s in (bob, viewer)]
        await _key(gm, b"w", "replay 20/20")
        for screen, mark in zip((bob, viewer), marks):
            await screen.wait_for("replay 20/20", since=mark)
        server.wait_line(r"replays the fight")
        # Back to segment 5 (home, then → x5): the Lurker was hidden then.
        marks = [len(s.session.data) for s in (bob, viewer)]
        await _key(gm, b"\x1b[H", "replay 0/20")
        gm_mark = await _key(gm, b"\x1b[C" * 5, "replay 5/20")
        await gm.wait_for("Lurker", since=gm_mark)  # the GM sees every combatant, hidden or not
        for screen, mark in zip((bob, viewer), marks):
            await screen.wait_for("replay 5/20", since=mark)
            await screen.wait_for("Sphinx", since=mark)
        # Each follower has drawn 5: nothing it drew since its first frame before 15 (it
        # may skip a segment the GM passed quickly) names the Lurker or its bite.
        for screen, mark in zip((bob, viewer), marks):
            drawn = plain(bytes(screen.session.data[mark:]))
            first = next(m for m in re.finditer(r"replay (\d+)/20", drawn) if int(m.group(1)) < 15)
            shown = drawn[first.start():]
            assert "Lurker" not in shown and "bite" not in shown, shown[-1500:]
        # A player's keys do not move the GM's replay, nor change the fight: → n a and
        # the `:` line do nothing there (their screen offers none of them); Esc says who
        # leads; `?` lists only what they may do.
        mark = len(bob.session.data)
        bob.send(b"\x1b[C" + b"n" + b"a" + b":")
        bob.send(ESC)
        await bob.wait_for("GM leads this replay", since=mark)
        bob.send(b"?")
        await bob.wait_for("keys (esc closes)", since=mark)
        after = plain(bytes(bob.session.data[mark:]))
        assert "replay 6/20" not in after and "Declare" not in after and "Go to" not in after, after[-1500:]
        assert "following the GM" in after
        assert "replay 6/20" not in plain(bytes(gm.session.data[gm_mark:]))
        bob.send(ESC)
        # A viewer connecting now starts in the replay, at the GM's segment.
        late = await Screen.connect(server.port, t.keys["late"], size=SIZE)
        await late.wait_for("replay 5/20")
        assert "Lurker" not in late.text
        # The GM goes on past the unhide (15): the Lurker is shown to everyone.
        marks = [len(s.session.data) for s in (bob, viewer, late)]
        await _key(gm, b"\x1b[F", "replay 20/20")
        for screen, mark in zip((bob, viewer, late), marks):
            await screen.wait_for("replay 20/20", since=mark)
            await screen.wait_for("Lurker", since=mark)
        # The GM leaves the replay: every screen is back to now.
        marks = [len(s.session.data) for s in (bob, viewer, late)]
        gm.send(ESC)
        server.wait_line(r"ended the replay")
        for screen, mark in zip((bob, viewer, late), marks):
            await screen.wait_for("segment 20 · round 3", since=mark)
            await asyncio.sleep(0)  # nothing: the banner's absence is checked below
        mark = len(bob.session.data)
        bob.send(b"?")  # a key that answers: the player's own screen again, at now
        await bob.wait_for("keys (esc closes)", since=mark)
        assert "Encounter (player of Seraph)" in plain(bytes(bob.session.data[mark:]))
    finally:
        for screen in (gm, bob, viewer, *([late] if late is not None else [])):
            await screen.close()


async def test_the_replay_ends_for_everyone_when_the_gm_leaves_the_table(served: tuple[Table, ServerProcess]) -> None:
    t, server = served
    gm = await Screen.connect(server.port, t.keys["gm"], size=SIZE)
    viewer = await Screen.connect(server.port, t.keys["viewer"], size=SIZE)
    try:
        await viewer.wait_for("Table Night")
        await gm.wait_for("Table Night")
        mark = len(viewer.session.data)
        await _key(gm, b"w", "replay 20/20")
        await _key(gm, b"p", "replay 15/20")
        await viewer.wait_for("replay 15/20", since=mark)
        mark = len(viewer.session.data)
        await gm.close()
        server.wait_line(r"ended the replay")
        await viewer.wait_for("segment 20 · round 3", since=mark)
        viewer.send(b"?")
        await viewer.wait_for("Encounter (viewer)", since=mark)
    finally:
        await viewer.close()


@pytest.mark.skipif(SSH is None, reason="OpenSSH's ssh is not installed")
async def test_an_openssh_player_follows_the_replay(table: Table) -> None:
    server = ServerProcess.start(table.saves, *table.args, "--encounter", "fight")
    gm = await Screen.connect(server.port, table.keys["gm"], size=SIZE)
    assert SSH is not None
    bob = await OpenSSHScreen.start(SSH, server.port, table.key_files["bob"])
    try:
        await asyncio.wait_for(bob.wait_for(b"Table Night"), 30)
        await gm.wait_for("Table Night")
        await _key(gm, b"w", "replay 20/20")
        await _key(gm, b"\x1b[H", "replay 0/20")
        await asyncio.wait_for(bob.wait_for(b"replay 0/20"), 30)
        await _key(gm, b"n", "replay 5/20")
        await asyncio.wait_for(bob.wait_for(b"replay 5/20"), 30)
        gm.send(ESC)
        await asyncio.wait_for(bob.wait_for(b"segment 20"), 30)
    finally:
        await gm.close()
        await bob.close()
        assert server.stop() == 0
