"""One table, one fight at a time; identity from the key alone (issue 19, seen 1, 2 and 3).

Over loopback SSH with real keys (asyncssh clients, and OpenSSH's `ssh -tt` where it is
installed), against `tracker serve` as a subprocess: a player and a viewer never leave
the table's fight (Esc, the palette, the `:` line), and follow the GM when the GM opens
another fight; a player acts only in the table's fight even where another file has a
combatant of the same name; a key whose combatants are all absent watches, told so,
with no roster in the message. Who a person is comes from the key's line: never the SSH
user name, nor any environment variable; locally, the OS account. Every wait is on a
condition, under a deadline.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import asyncssh
import pytest

from rulesets.dice import RandomDice
from tests.helpers import DEADLINE, cli, until
from tracker.persistence.store import EncounterFile
from tracker.reading.roles import Role
from tracker.serve import control
from tracker.serve.keys import GM, PLAYER, KeyRing, fingerprint_name
from tracker.serve.probe import OpenSSHScreen, Screen, ServerProcess, env, make_key
from tracker.play.session import Session

pytestmark = pytest.mark.serve

SSH = shutil.which("ssh")
SIZE = (80, 24)
ESC = b"\x1b"
CTRL_P = b"\x10"


@dataclass
class Table:
    root: Path
    saves: Path
    fight: Path  # "Table Night": Seraph (bob), Nyx (Dan), Sphinx, Lurker (hidden)
    other: Path  # "Other Fight": another Seraph, a Goblin
    keys: dict[str, asyncssh.SSHKey]
    args: tuple[str, ...]


def _fight(path: Path, name: str, *lines: str) -> None:
    assert cli("new", str(path), "--ruleset", "freeform", "--name", name)[0] == 0
    assert cli("play", str(path), stdin="\n".join(lines) + "\n")[0] == 0


def _events(path: Path) -> list:  # type: ignore[type-arg]
    return EncounterFile(path).load().encounter.events


@pytest.fixture
def table(tmp_path: Path) -> Table:
    saves = tmp_path / "saves"
    saves.mkdir()
    fight, other = saves / "fight.toml", saves / "other.toml"
    _fight(fight, "Table Night", "add Seraph hp=20", "add Nyx hp=20", "add Sphinx hp=30 side=foes", "add Lurker hp=5 hidden=true")
    _fight(other, "Other Fight", "add Seraph hp=9", "add Goblin hp=7 side=foes")
    folder = tmp_path / "keys"
    folder.mkdir()
    keys = {n: make_key(folder / n, f"{n}@laptop") for n in ("gm", "bob", "dan", "viewer", "ghost", "bob2")}
    pub = {n: k.export_public_key().decode() for n, k in keys.items()}
    (folder / "gm_keys").write_text(pub["gm"])
    (folder / "viewer_keys").write_text(pub["viewer"])
    (folder / "players_keys").write_text(
        f'combatant="Seraph" {pub["bob"]}'  # named by its comment: bob@laptop
        f'name="Dan",combatant="Nyx" {pub["dan"]}'
        f'combatant="Ghost" {pub["ghost"]}'  # nobody of that name in either fight
    )
    args = ("--gm-keys", str(folder / "gm_keys"), "--viewer-keys", str(folder / "viewer_keys"), "--players-keys", str(folder / "players_keys"))
    return Table(tmp_path, saves, fight, other, keys, args)


@pytest.fixture
def served(table: Table) -> Iterator[tuple[Table, ServerProcess]]:
    server = ServerProcess.start(table.saves, *table.args, "--encounter", "fight")
    try:
        yield table, server
    finally:
        assert server.stop() == 0


async def _command(screen: Screen, line: str) -> None:
    """The `:` line, a command, Enter (the form closes after it)."""
    mark = len(screen.session.data)
    screen.send(b":")
    await screen.wait_for("esc: cancel", since=mark)
    screen.send(line.encode() + b"\r")


async def _take_back(screen: Screen) -> None:
    """`u` (take back), then `?`: once the help is drawn, the `u` before it has been handled."""
    mark = len(screen.session.data)
    screen.send(b"u?")
    await screen.wait_for("keys (esc closes)", since=mark)
    screen.send(ESC)


# ------------------------------------------------------------------ seen 1: nobody leaves the fight


async def test_a_player_and_a_viewer_never_leave_the_tables_fight(served: tuple[Table, ServerProcess]) -> None:
    t, server = served
    other_before = t.other.read_bytes()
    bob = await Screen.connect(server.port, t.keys["bob"], size=SIZE)
    viewer = await Screen.connect(server.port, t.keys["viewer"], size=SIZE)
    try:
        for screen in (bob, viewer):
            await screen.wait_for("Table Night")
            # Esc, in a burst as over SSH, then Esc alone: where they are, and nothing else.
            mark = len(screen.session.data)
            screen.send(ESC + ESC + b"o" + ESC)
            await screen.wait_for("The GM chooses the table", since=mark)
            # The palette's Back (the Esc command) says the same.
            mark = len(screen.session.data)
            screen.send(CTRL_P)
            await screen.wait_for("Search for commands", since=mark)
            screen.send(b"Back")
            await screen.wait_for("Back (esc)", since=mark)
            mark = len(screen.session.data)
            screen.send(b"\r")
            await screen.wait_for("The GM chooses the table", since=mark)
        # The player acts in the table's fight (Seraph is theirs there)...
        await _command(bob, "declare Seraph sword pt=5")
        await until(lambda: any(e.kind == "declare" for e in _events(t.fight)), "bob's declaration in the table's fight")
        # ...and no command names another file: the `:` line has no verb for one.
        await _command(bob, "open other")
        await bob.wait_for("unknown command")
        for screen in (bob, viewer):
            assert "Encounters in" not in screen.text and str(t.saves) not in screen.text
            assert "Other Fight" not in screen.text and "Lurker" not in screen.text
        assert t.other.read_bytes() == other_before  # the other fight's Seraph is not bob's
    finally:
        await bob.close()
        await viewer.close()


async def test_players_and_viewers_follow_the_gm_to_another_fight(served: tuple[Table, ServerProcess]) -> None:
    t, server = served
    gm, bob, viewer = [await Screen.connect(server.port, t.keys[n], size=SIZE) for n in ("gm", "bob", "viewer")]
    try:
        for screen in (gm, bob, viewer):
            await screen.wait_for("Table Night")
        mark = len(gm.session.data)
        gm.send(ESC)  # the GM's Esc: the start screen, where the GM chooses the fight
        await gm.wait_for("Other Fight", since=mark)
        marks = [len(s.session.data) for s in (bob, viewer)]
        gm.send(b"\x1b[B\r")  # down to other.toml, open it: the table moves
        for screen, mark in zip((bob, viewer), marks):
            await screen.wait_for("The GM moved the table", since=mark)
            await screen.wait_for("Goblin", since=mark)
        server.wait_line(r"gm key .* moved the table to Other Fight")
        # bob's Seraph there is the table's now: bob acts in it, not in the old fight.
        old = len(_events(t.fight))
        await _command(bob, "declare Seraph dagger pt=3")
        await until(lambda: any(e.kind == "declare" for e in _events(t.other)), "bob's declaration in Other Fight")
        assert len(_events(t.fight)) == old
        # A viewer's Esc there still says where they are.
        mark = len(viewer.session.data)
        viewer.send(ESC)
        await viewer.wait_for("The GM chooses the table", since=mark)
    finally:
        for screen in (gm, bob, viewer):
            await screen.close()


async def test_without_a_fight_the_seats_wait_then_go_where_the_gm_opens(table: Table) -> None:
    server = ServerProcess.start(table.saves, *table.args, "--spawn", "exec")  # and the exec'd seats
    try:
        bob = await Screen.connect(server.port, table.keys["bob"], size=SIZE)
        gm = await Screen.connect(server.port, table.keys["gm"], size=SIZE)
        try:
            await bob.wait_for("The GM has not opened a fight yet")
            await gm.wait_for("Table Night")
            mark = len(bob.session.data)
            gm.send(b"\r")  # fight.toml, the first listed
            await bob.wait_for("The GM moved the table", since=mark)
            await bob.wait_for("Sphinx", since=mark)
            await _command(bob, "declare Seraph sword pt=5")
            await until(lambda: any(e.kind == "declare" and e.by == "player:bob@laptop" for e in _events(table.fight)), "bob's signed declaration")
        finally:
            await bob.close()
            await gm.close()
    finally:
        assert server.stop() == 0


async def test_a_key_whose_combatant_is_absent_watches_and_is_told_without_the_roster(served: tuple[Table, ServerProcess]) -> None:
    t, server = served
    ghost = await Screen.connect(server.port, t.keys["ghost"], size=(100, 30))
    try:
        await ghost.wait_for("No combatant of yours")
        await ghost.wait_for("Sphinx")  # watching, as a viewer
        before = t.fight.read_bytes()
        mark = len(ghost.session.data)
        # A viewer has no `:` line, so these keys reach the fight's screen, where none of them
        # writes; no `t` among them (it opens the stats screen, over which `?` means nothing).
        ghost.send(b":declare Ghos sword p=5\r?")  # the help shows the keys were read
        await ghost.wait_for("keys (esc closes)", since=mark)
        assert "Lurker" not in ghost.text  # no roster in a refusal, and nothing hidden anywhere
        assert t.fight.read_bytes() == before
    finally:
        await ghost.close()


def test_only_a_fight_in_the_saves_folder_moves_the_table(table: Table, tmp_path: Path) -> None:
    from tracker.serve.options import ServeOptions
    from tracker.serve.table import TableServer

    outside = tmp_path / "outside.toml"
    shutil.copy(table.other, outside)
    (table.saves / "link.toml").symlink_to(outside)
    (table.saves / "notes.txt").write_text("x")
    server = TableServer(ServeOptions(saves=table.saves.resolve()), KeyRing.from_options(table.saves, None, None, True))
    assert server.fight_path(str(table.other)) == table.other.resolve()
    for text in (str(outside), str(table.saves / "link.toml"), "other.toml", str(table.saves / "notes.txt"), str(table.saves / "gone.toml"), 7, None):
        assert server.fight_path(text) is None, text


async def test_only_a_gms_seat_can_move_the_table(table: Table) -> None:
    from tracker.serve.channel import TableSession
    from tracker.serve.options import ServeOptions
    from tracker.serve.table import Connection, TableServer

    server = TableServer(ServeOptions(saves=table.saves.resolve()), KeyRing.from_options(table.saves, None, None, True))
    moves: list[object] = []

    async def move(path: object, by: Connection) -> None:
        moves.append(path)

    server.move = move  # type: ignore[method-assign]
    for role, expected in ((PLAYER, []), ("viewer", []), (GM, [str(table.other)])):
        moves.clear()
        ours, theirs = control.pair()
        ours.setblocking(False)
        session = TableSession(server, Connection(1, "127.0.0.1:1", role=role))
        control.send(theirs, {"op": "move", "path": str(table.other)})
        session.heard_from_app(ours)  # what the loop calls when the app's line is readable
        await until(lambda: server.tasks_running == 0, "the move handled")
        assert moves == expected, role
        ours.close()
        theirs.close()


# ------------------------------------------------------------------ seen 2: identity from the key alone


async def test_the_ssh_user_name_is_never_who_someone_is(served: tuple[Table, ServerProcess]) -> None:
    t, server = served
    # Dan declares, connecting as "bob, approved by GM alice"; then bob's key, as "dan", tries to take it back.
    dan = await Screen.connect(server.port, t.keys["dan"], size=SIZE, username="bob, approved by GM alice")
    try:
        await dan.wait_for("Table Night")
        await _command(dan, "declare Nyx sword pt=5")
        await until(lambda: any(e.kind == "declare" for e in _events(t.fight)), "Dan's declaration")
    finally:
        await dan.close()
    bob = await Screen.connect(server.port, t.keys["bob"], size=SIZE, username="dan")
    try:
        await bob.wait_for("Table Night")
        await _take_back(bob)
    finally:
        await bob.close()
    events = _events(t.fight)
    (declared,) = [e for e in events if e.kind == "declare"]
    assert declared.by == "player:Dan" and declared.args["actor"] == "Nyx"
    assert not [e for e in events if e.kind == "undo"]  # still in force
    assert "approved by GM alice" not in t.fight.read_text()
    assert "player:dan" not in t.fight.read_text()
    log = "\n".join(server.lines)
    assert '"bob, approved by GM alice"@' in log and "(Dan)" in log  # the user name is only logged, quoted


async def test_two_keys_with_one_user_name_are_two_people(served: tuple[Table, ServerProcess]) -> None:
    t, server = served
    dan = await Screen.connect(server.port, t.keys["dan"], size=SIZE, username="player")
    bob = await Screen.connect(server.port, t.keys["bob"], size=SIZE, username="player")
    try:
        await dan.wait_for("Table Night")
        await bob.wait_for("Table Night")
        await _command(bob, "declare Seraph sword pt=5")
        await until(lambda: len([e for e in _events(t.fight) if e.kind == "declare"]) == 1, "bob's")
        await _command(dan, "declare Nyx sword pt=5")
        await until(lambda: len([e for e in _events(t.fight) if e.kind == "declare"]) == 2, "Dan's")
        await _take_back(bob)  # the latest is Dan's: bob's own is no longer the latest
    finally:
        await dan.close()
        await bob.close()
    by = [e.by for e in _events(t.fight) if e.kind == "declare"]
    assert by == ["player:bob@laptop", "player:Dan"]
    assert not [e for e in _events(t.fight) if e.kind == "undo"]


def test_locally_a_player_is_the_os_account_whatever_the_environment_says(table: Table) -> None:
    import pwd

    store = EncounterFile(table.fight)
    loaded = store.load()
    Session(loaded.encounter, loaded.ruleset, RandomDice(1), store, "dan", Role.player(["Nyx"])).execute("declare Nyx sword pt=5")
    forged = dict(env(), TRACKER_USER="dan", USER="dan", LOGNAME="dan")
    run = subprocess.run(
        [sys.executable, "-m", "tracker", "play", str(table.fight), "--player", "Nyx"], input="takeback\n", env=forged, capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 1 and "nothing of yours to take back" in run.stderr
    assert [e.kind for e in _events(table.fight)].count("undo") == 0  # Dan's declaration stands
    run = subprocess.run(
        [sys.executable, "-m", "tracker", "play", str(table.fight), "--player", "Seraph"], input="declare Seraph sword pt=5\n", env=forged, capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stderr
    assert _events(table.fight)[-1].by == "player:" + pwd.getpwuid(os.getuid()).pw_name


def test_who_a_key_is_comes_from_its_line(tmp_path: Path) -> None:
    keys = {n: make_key(tmp_path / n, n) for n in ("a", "b", "c", "d", "e")}
    pub = {n: k.export_public_key().decode().split(" ")[:2] for n, k in keys.items()}  # no comment
    line = {n: " ".join(pub[n]) for n in pub}
    players = tmp_path / "players"
    players.write_text(
        f'name="Ann Smith",combatant="A" {line["a"]} ann@laptop\n'  # name= wins over the comment
        f'combatant="B" {line["b"]} pi@raspberrypi\n'  # two keys, one comment: told apart
        f'combatant="C" {line["c"]} pi@raspberrypi\n'
        f'combatant="D" {line["d"]}\n'  # neither: the fingerprint
        f'name="\x1b]52;c;x\x07",combatant="E" {line["e"]} eve\n'  # not printable: the comment
    )
    os.chmod(players, 0o600)
    ring = KeyRing.from_options(tmp_path, None, None, False, str(players))
    who = {n: ring.identity(k.convert_to_public(), PLAYER) for n, k in keys.items()}
    assert who["a"] == "Ann Smith"
    assert who["b"] == f"pi@raspberrypi ({fingerprint_name(keys['b'])})" and who["c"] == f"pi@raspberrypi ({fingerprint_name(keys['c'])})"
    assert who["b"] != who["c"]
    assert who["d"] == fingerprint_name(keys["d"]) and who["d"].startswith("key-") and len(who["d"]) == 12
    assert who["e"] == "eve"


def test_an_execd_seat_takes_its_seat_only_from_its_parent_server(tmp_path: Path) -> None:
    """`python -m tracker.serve.seat` trusts only a socket whose other end is its parent."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    theirs.set_inheritable(True)
    seat = {"op": "seat", "seat": {"role": "gm", "name": "mallory", "saves": str(tmp_path)}}
    control.send(ours, seat)
    # Started through a shell that stays (so its parent is the shell, not the holder of the other end).
    argv = ["sh", "-c", f'{sys.executable} -m tracker.serve.seat; exit $?']
    run = subprocess.run(argv, env=dict(env(), TRACKER_SEAT_FD=str(theirs.fileno())), pass_fds=(theirs.fileno(),), capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "only as a seat started by `tracker serve`" in run.stderr
    for bad in ("", "x", "999"):
        run = subprocess.run([sys.executable, "-m", "tracker.serve.seat"], env=dict(env(), TRACKER_SEAT_FD=bad), capture_output=True, text=True, timeout=60)
        assert run.returncode == 2 and "only as a seat" in run.stderr
    ours.close()
    theirs.close()


# ------------------------------------------------------------------ by hand's twin: OpenSSH, a hostile player


@pytest.mark.skipif(SSH is None, reason="OpenSSH client `ssh` not installed (apt-get install openssh-client)")
async def test_openssh_player_with_an_odd_user_name_stays_on_the_fight(served: tuple[Table, ServerProcess]) -> None:
    t, server = served
    assert SSH is not None
    ssh = await OpenSSHScreen.start(SSH, server.port, t.root / "keys" / "bob", "-l", "Mallory-the-GM")
    try:
        async with asyncio.timeout(DEADLINE * 2):
            await ssh.wait_for(b"Table Night")
            await ssh.send(ESC)  # Esc alone, then a burst of everything a screen might take
            await ssh.wait_for(b"GM chooses")
            await ssh.send(ESC + b"[[" + ESC + b"]]" + ESC + b"o" + ESC + ESC + b"?")
            await ssh.wait_for(b"keys (esc closes)")
            await ssh.send(ESC + b"q")
            await ssh.wait_for(b"Leave the table?")  # a player's q asks first (it ends the connection)
            await ssh.send(b"y")
            code = await ssh.finish()
    finally:
        await ssh.close()
    assert code == 0
    assert b"Encounters in" not in ssh.seen and b"Other Fight" not in ssh.seen
    assert "Mallory" not in t.fight.read_text()
