"""Players at `tracker serve` over loopback SSH with real keys (issue 14).

A GM, two players (bob plays Seraph, dan plays Nyx, by the players' keys file) and a
viewer on the real Brand X fight, declarations waiting for approval. Each player
declares a punch through the declare form with typed dice; the GM approves bob's and
refuses dan's with a reason (one key each on the approvals screen); the viewer sees the
approved action only; dan sees the reason. Then the roles' refusals: a player cannot
change another combatant, move time or undo the GM's change, even typed on the `:`
line; and a key whose line names no combatant is refused. Everything is read from the
screens (escape sequences stripped) and the file, under deadlines; no fixed sleeps.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import asyncssh
import pytest

from tracker.persistence.store import EncounterFile
from tracker.serve.keys import KeyRing, lines_without_combatant
from tracker.serve.probe import Screen, ServerProcess, env, make_key
from tests.helpers import until

pytestmark = pytest.mark.serve

ROOT = Path(__file__).resolve().parent.parent
FIGHT = ROOT / "saves" / "seraph-vs-sphinx.toml"
SIZE = (80, 24)
CTRL_S = b"\x13"
CLEAR_LINE = b"\x01\x0b"  # ctrl+a, ctrl+k: the input emptied


def play(file: Path, *lines: str) -> None:
    result = subprocess.run([sys.executable, "-m", "tracker", "play", str(file)], input="\n".join(lines) + "\n", env=env(), capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr


def loaded(file: Path):  # type: ignore[no-untyped-def]
    return EncounterFile(file).load()

async def declare_punch(screen: Screen, faces: bytes) -> None:
    """`a`, the targets, ctrl+s: the dice asked for, typed; ctrl+s commits the result."""
    mark = len(screen.session.data)
    screen.send(b"a")
    await screen.wait_for("Declare an action", since=mark)
    screen.send(b"\tSphinx" + CTRL_S)
    await screen.wait_for("Combat Roll: 2d10", since=mark)
    screen.send(faces + b"\r")
    # The target's Throwback Roll is asked for up front (judged when the blow lands).
    await screen.wait_for("Throwback Roll: 2d10", since=mark)
    screen.send(b"10,10\r")
    await screen.wait_for("commit", since=mark)
    screen.send(CTRL_S)  # enter only moves between the Q fields; ctrl+s commits


@pytest.fixture
def table(tmp_path: Path):  # type: ignore[no-untyped-def]
    saves = tmp_path / "saves"
    saves.mkdir()
    file = saves / "fight.toml"
    shutil.copy(FIGHT, file)
    play(file, "add Nyx", "setting player_declarations approval")
    keys = tmp_path / "keys"
    keys.mkdir()
    made = {n: make_key(keys / n, n) for n in ("gm", "bob", "dan", "viewer", "nameless")}
    (keys / "gm_keys").write_text(made["gm"].export_public_key().decode())
    (keys / "viewer_keys").write_text(made["viewer"].export_public_key().decode())
    players = keys / "players_keys"
    players.write_text(
        f'combatant="Seraph" {made["bob"].export_public_key().decode()}'
        f'combatant="Nyx",from="127.0.0.1" {made["dan"].export_public_key().decode()}'
    )
    os.chmod(players, 0o644)
    server = ServerProcess.start(
        saves, "--gm-keys", str(keys / "gm_keys"), "--viewer-keys", str(keys / "viewer_keys"), "--players-keys", str(players), "--encounter", "fight"
    )
    try:
        yield file, made, server
    finally:
        assert server.stop() == 0


async def test_two_players_declare_the_gm_approves_one_and_refuses_one(table) -> None:  # type: ignore[no-untyped-def]
    file, keys, server = table
    bob, dan, gm, viewer = [await Screen.connect(server.port, keys[n], size=SIZE) for n in ("bob", "dan", "gm", "viewer")]
    try:
        for screen in (bob, dan, gm, viewer):
            await screen.wait_for("Seraph vs Sphinx")
        await bob.wait_for("[player: Seraph]")
        await dan.wait_for("[player: Nyx]")
        await declare_punch(bob, b"5,4")
        await declare_punch(dan, b"3,3")
        await until(lambda: len(loaded(file).encounter.pending()) == 2, "both proposals saved")
        first, second = loaded(file).encounter.pending()
        assert (first.actor, second.actor) == ("Seraph", "Nyx")
        events = loaded(file).encounter.events
        assert events[first.seq - 1].by.startswith("player:") and events[first.seq - 1].args["faces"] == [5, 4, 10, 10]
        assert events[second.seq - 1].args["faces"] == [3, 3, 10, 10]
        await bob.wait_for("waiting for the GM")

        await gm.wait_for("2 waiting for approval (p)")
        mark = len(gm.session.data)
        gm.send(b"p")
        await gm.wait_for("Approvals", since=mark)
        await gm.wait_for(f"proposal {second.seq}", since=mark)
        gm.send(b"a")  # the oldest, bob's, is highlighted
        await until(lambda: loaded(file).encounter.proposals[first.seq].status == "approved", "bob's approved")
        mark = len(gm.session.data)
        gm.send(b"r")
        await gm.wait_for("reason", since=mark)
        gm.send(b"unreachable\r")  # one word: a wrapped notice cannot split it across lines
        await until(lambda: loaded(file).encounter.proposals[second.seq].status == "refused", "dan's refused")

        await dan.wait_for("unreachable")
        enc = loaded(file).encounter
        (action,) = enc.combatant("Seraph").in_progress
        assert action.resolution.dice[:2] == (5, 4) and enc.combatant("Nyx").in_progress == []
        await viewer.wait_for("Seraph's punch")  # in the upcoming list: it completes later
        await gm.wait_for("unreachable")
        assert "unreachable" not in viewer.text and "proposal" not in viewer.text
        assert "Nyx's punch" not in viewer.text and "Nyx's punch" not in gm.text
    finally:
        for screen in (bob, dan, gm, viewer):
            await screen.close()
    log = "\n".join(server.lines)
    assert "player of Seraph key" in log and "player of Nyx key" in log


async def test_a_player_cannot_change_another_move_time_or_undo_the_gm(table) -> None:  # type: ignore[no-untyped-def]
    file, keys, server = table
    play(file, "setting player_declarations at_once")
    bob = await Screen.connect(server.port, keys["bob"], size=SIZE)
    try:
        await bob.wait_for("[player: Seraph]")
        mark = len(bob.session.data)
        bob.send(b":")  # bob declares, typed on the : line, applied at once...
        await bob.wait_for("esc: cancel", since=mark)
        bob.send(b"declare Seraph punch target=Sphinx faces=5,4,10,10\r")
        await until(lambda: len(loaded(file).encounter.combatant("Seraph").in_progress) == 1, "bob's punch")
        play(file, "damage Sphinx 1")  # ...then the GM changes the fight
        await bob.wait_for("27/34")
        before = loaded(file)
        # GM keys are not bound for a player: nothing happens.
        for key in (b"n", b" ", b".", b"d", b"r", b"h", b"e", b"p"):
            bob.send(key)
        mark = len(bob.session.data)
        bob.send(b"u")  # take back: the latest change is the GM's, so no longer
        await bob.wait_for("has changed since", since=mark)
        for line, words in (
            (b"next", "moving time"),
            (b"undo", "takes back only their own"),
            (b"damage Sphinx 5", "a player declares"),
            (b"declare Nyx punch target=Sphinx faces=1,1", "not your combatant"),
            (b"abort Sphinx", "not your combatant"),
        ):
            mark = len(bob.session.data)
            bob.send(b":")
            await bob.wait_for("esc: cancel", since=mark)
            bob.send(CLEAR_LINE + line + b"\r")
            await bob.wait_for(words, since=mark)
            bob.send(b"\x1b")
            await bob.wait_for("Take back", since=mark)  # the footer again: the form closed
        after = loaded(file)
        assert after.revision == before.revision and after.encounter.now == before.encounter.now
    finally:
        await bob.close()
    with pytest.raises(asyncssh.PermissionDenied):
        await Screen.connect(server.port, keys["nameless"], size=SIZE)


def test_players_keys_lines_without_a_combatant_are_named(tmp_path: Path) -> None:
    key = make_key(tmp_path / "k", "k").export_public_key().decode()
    text = f'combatant="Seraph" {key}{key}# a comment\ncombatant="A B",no-pty {key}'
    assert lines_without_combatant(text) == [2]
    bad = tmp_path / "players"
    bad.write_text(text)
    os.chmod(bad, 0o600)
    with pytest.raises(Exception, match=r"line 2 names no combatant"):
        KeyRing.from_options(tmp_path, None, None, False, str(bad))
    os.chmod(bad, 0o666)
    with pytest.raises(Exception, match="writable by its group and others"):
        KeyRing.from_options(tmp_path, None, None, False, str(bad))


def test_a_players_app_is_started_with_the_keys_names_and_may_write(tmp_path: Path) -> None:
    from tracker.serve.keys import PLAYER, VIEWER
    from tracker.serve.seat import SeatInfo
    from tracker.serve.channel import child_env
    from tracker.serve.options import ServeOptions

    options = ServeOptions(saves=tmp_path, encounter=tmp_path / "fight.toml")
    info = SeatInfo(PLAYER, "bob", ("Seraph", "Nyx"), str(tmp_path / "fight.toml"), "Fight", "", str(tmp_path))
    assert SeatInfo.from_json(info.to_json()) == info  # what an exec'd seat reads on its socket
    env_ = child_env(options, PLAYER, "xterm", {"TRACKER_READ_ONLY": "0"})
    assert "TRACKER_READ_ONLY" not in env_
    assert child_env(options, VIEWER, "xterm", {})["TRACKER_READ_ONLY"] == "1"
