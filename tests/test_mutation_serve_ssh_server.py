"""Direct tests of tracker.serve.ssh_server: one SSH connection's log-in, asyncssh's
per-connection callbacks called as asyncssh calls them, on a real `TableServer` and
real keys files, with a stand-in for asyncssh's connection (what it was told, and
whether it was closed). The key decides the role and the name, never the user name
typed (decision 0003); a stranger's key is refused; a player's key holds only the
combatants and characters its own line names, from the addresses its line allows; the
seat is decided while the client can still be told why not (0037); a refusal made as
the client connected is told once it can hear it (0025); one session per connection;
the user name is logged quoted and cut (0038)."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

import asyncssh
import pytest

from tracker.serve.channel import TableSession
from tracker.serve.keys import GM, PLAYER, VIEWER, KeyRing, KeysFile
from tracker.serve.options import ServeOptions
from tracker.serve.ssh_server import TableSSHServer
from tracker.serve.table import TableServer
from tests.test_mutation_serve_keys import config  # noqa: F401 (a fixture: a config folder of its own)
from tests.serve_log import log, said  # noqa: F401 (log: a fixture)


@pytest.fixture(autouse=True)
def own_config(config: Path) -> Path:
    """Every test with a config folder of its own (the keys tests' fixture)."""
    return config


class Client:
    """asyncssh's connection as the callbacks use it: its peer, and how it was ended."""

    def __init__(self, host: str = "127.0.0.1", port: int = 40000) -> None:
        self.peer = (host, port)
        self.ended: list[tuple[int, str]] = []
        self.aborted = False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self.peer if name == "peername" else default

    def disconnect(self, code: int, reason: str) -> None:
        self.ended.append((code, reason))

    def abort(self) -> None:
        self.aborted = True


def key() -> asyncssh.SSHKey:
    return asyncssh.generate_private_key("ssh-ed25519").convert_to_public()


def line(of: asyncssh.SSHKey, options: str = "", comment: str = "") -> str:
    blob = " ".join(of.export_public_key().decode().split()[:2])
    return " ".join(w for w in (options, blob, comment) if w) + "\n"


def keys_file(path: Path, text: str, players: bool = False) -> KeysFile:
    path.write_text(text, encoding="utf-8")
    os.chmod(path, 0o600)
    return KeysFile(path, players=players)


class Table:
    """A table with a GM, a viewer and players (Bob holds Seraph and pc1, from anywhere;
    Dan holds Nyx, only from 10.0.0.1)."""

    def __init__(self, tmp_path: Path, open_viewers: bool = False, **options: Any) -> None:
        self.gm, self.viewer, self.bob, self.dan, self.stranger = key(), key(), key(), key(), key()
        ring = KeyRing(
            keys_file(tmp_path / "gm_keys", line(self.gm, comment="alice@desk")),
            keys_file(tmp_path / "viewer_keys", line(self.viewer, 'name="Eve"', "eve@home")),
            open_viewers,
            player=keys_file(tmp_path / "players_keys", line(self.bob, 'combatant="Seraph",pc=pc1', "bob@laptop") + line(self.dan, 'combatant="Nyx",from="10.0.0.1"', "dan@desk"), players=True),
        )
        saves = tmp_path / "saves"
        saves.mkdir(exist_ok=True)
        self.server = TableServer(ServeOptions(saves=saves, **options), ring)

    def connect(self, host: str = "127.0.0.1") -> tuple[TableSSHServer, Client]:
        ssh = TableSSHServer(self.server)
        client = Client(host)
        ssh.connection_made(client)  # type: ignore[arg-type]
        return ssh, client

    def logged_in(self, which: asyncssh.SSHKey, user: str = "anyone") -> TableSSHServer:
        ssh, _client = self.connect()
        assert ssh.begin_auth(user)
        assert ssh.validate_public_key(user, which)
        ssh.auth_completed()
        return ssh


async def test_a_connection_is_recorded_as_it_is_made(tmp_path: Path) -> None:
    table = Table(tmp_path)
    ssh, client = table.connect("192.0.2.7")
    assert ssh.conn is client and ssh.table is table.server
    record = ssh.record
    assert record is not None and record.peer == "192.0.2.7:40000" and record.source == "192.0.2.7" and record.role is None
    assert table.server.pending == {record.ident: record}


async def test_the_user_name_is_kept_for_the_log_and_never_decides_anything(tmp_path: Path, log: pytest.LogCaptureFixture) -> None:
    table = Table(tmp_path)
    ssh, client = table.connect()
    assert ssh.begin_auth("gm") is True  # always on to the keys
    assert ssh.record is not None and ssh.record.user == "gm"
    assert not ssh.validate_public_key("gm", table.stranger)  # the name "gm" counts for nothing
    assert ssh.record.role is None and client.ended == []
    odd = 'root" GM key alice\x1b[2J' + "x" * 100
    assert not ssh.validate_public_key(odd, table.stranger)
    refused = said(log, logging.INFO)
    fingerprint = table.stranger.get_fingerprint("sha256")
    assert refused[0] == f'refused key {fingerprint} (key-{fingerprint.split(":", 1)[1][:8]}) for "gm"@127.0.0.1:40000'
    shown = refused[1].split(" for ", 1)[1]
    assert shown.startswith('"root\\" GM key alice') and "\x1b" not in shown and shown.endswith('…"@127.0.0.1:40000')
    name = shown.removesuffix("@127.0.0.1:40000")[1:-1].replace('\\"', '"')
    assert len(name) == 64  # the user name's first 63 characters shown, then "…"


async def test_a_refusal_made_as_the_client_connected_is_told_once_it_can_hear_it(tmp_path: Path) -> None:
    table = Table(tmp_path)
    ssh, client = table.connect()
    record = ssh.record
    assert record is not None
    record.refusal = "too many connections are logging in; try again in a moment"
    table.server.refusing[record.ident] = record
    assert ssh.begin_auth("bob") is True
    assert client.ended == [(asyncssh.DISC_TOO_MANY_CONNECTIONS, "too many connections are logging in; try again in a moment")]
    assert ssh.record is None and record.user == "bob" and table.server.refusing == {}
    assert not ssh.validate_public_key("bob", table.gm)  # not even the GM's key, now
    assert record.role is None
    assert not ssh.get_kbdint_challenge("bob", "", "")
    assert ssh.session_requested() is False


async def test_only_keys_log_in_unless_viewers_are_let_in_without_one(tmp_path: Path) -> None:
    table = Table(tmp_path)
    ssh, _client = table.connect()
    assert ssh.public_key_auth_supported() is True
    assert ssh.password_auth_supported() is False
    assert ssh.kbdint_auth_supported() is False
    assert ssh.get_kbdint_challenge("eve", "", "") is False
    assert ssh.record is not None and ssh.record.role is None
    (tmp_path / "o").mkdir()
    opened = Table(tmp_path / "o", open_viewers=True)
    ssh, _client = opened.connect()
    assert ssh.kbdint_auth_supported() is True
    assert ssh.get_kbdint_challenge("root", "en", "") is True
    record = ssh.record
    assert record is not None and (record.role, record.key, record.name) == (VIEWER, "", "")


@pytest.mark.parametrize("who", ["gm", "viewer", "bob"])
async def test_the_key_that_signs_gives_the_role_and_the_name(tmp_path: Path, who: str, log: pytest.LogCaptureFixture) -> None:
    table = Table(tmp_path)
    signer = {"gm": table.gm, "viewer": table.viewer, "bob": table.bob}[who]
    ssh, client = table.connect()
    ssh.begin_auth("root")
    assert ssh.validate_public_key("root", signer) is True
    record = ssh.record
    assert record is not None and client.ended == []
    expected = {"gm": (GM, "alice@desk", (), ()), "viewer": (VIEWER, "Eve", (), ()), "bob": (PLAYER, "bob@laptop", ("Seraph",), ("pc1",))}[who]
    assert (record.role, record.name, record.combatants, record.pcs) == expected
    assert record.key == f"{signer.get_fingerprint('sha256')} ({expected[1]})"
    ssh.auth_completed()
    assert table.server.connections == {record.ident: record} and table.server.pending == {}
    assert said(log, logging.INFO) == [f"connect {record.who()}"]


async def test_a_gms_key_in_the_players_file_too_is_the_gm_holding_no_combatant(tmp_path: Path) -> None:
    table = Table(tmp_path)
    players = tmp_path / "players_keys"
    players.write_text(players.read_text() + line(table.gm, 'combatant="Sphinx",pc=pc9', "alice@desk"))
    ssh, _client = table.connect()
    ssh.begin_auth("alice")
    assert ssh.validate_public_key("alice", table.gm)
    record = ssh.record
    assert record is not None and (record.role, record.combatants, record.pcs) == (GM, (), ())
    assert "player of" not in record.who()


async def test_the_last_key_accepted_is_the_one_that_signed(tmp_path: Path) -> None:
    table = Table(tmp_path)
    ssh, _client = table.connect()
    ssh.begin_auth("x")
    assert ssh.validate_public_key("x", table.bob)
    assert ssh.validate_public_key("x", table.viewer)
    record = ssh.record
    assert record is not None and (record.role, record.name, record.combatants, record.pcs) == (VIEWER, "Eve", (), ())


async def test_a_players_key_counts_only_from_where_its_line_allows(tmp_path: Path) -> None:
    table = Table(tmp_path)
    ssh, _client = table.connect("127.0.0.1")
    ssh.begin_auth("dan")
    assert not ssh.validate_public_key("dan", table.dan)  # from= 10.0.0.1 only
    assert ssh.record is not None and ssh.record.combatants == ()
    ssh, _client = table.connect("10.0.0.1")
    ssh.begin_auth("dan")
    assert ssh.validate_public_key("dan", table.dan)
    assert ssh.record is not None and ssh.record.role == PLAYER and ssh.record.combatants == ("Nyx",) and ssh.record.pcs == ()


async def test_a_full_table_refuses_the_seat_while_the_client_can_be_told(tmp_path: Path) -> None:
    table = Table(tmp_path, max_connections=3, gm_seats=2)
    table.logged_in(table.viewer)
    ssh, client = table.connect()
    ssh.begin_auth("bob")
    assert ssh.validate_public_key("bob", table.bob) is False
    assert ssh.record is None and len(client.ended) == 1
    code, reason = client.ended[0]
    assert code == asyncssh.DISC_TOO_MANY_CONNECTIONS and "full" in reason
    ssh.auth_completed()  # nothing left to seat
    assert len(table.server.connections) == 1
    # The GM's key still gets in (a GM's seat is kept).
    gm = table.logged_in(table.gm)
    assert gm.record is not None and gm.record.ident in table.server.connections


async def test_a_full_table_refuses_a_viewer_without_a_key_too(tmp_path: Path) -> None:
    table = Table(tmp_path, open_viewers=True, max_connections=3, gm_seats=2)
    table.logged_in(table.viewer)
    ssh, client = table.connect()
    assert ssh.get_kbdint_challenge("eve", "", "") is False
    assert ssh.record is None and len(client.ended) == 1 and "full" in client.ended[0][1]


async def test_a_seat_taken_between_the_key_and_the_end_of_the_log_in_is_refused(tmp_path: Path) -> None:
    table = Table(tmp_path, max_connections=3, gm_seats=2)
    late, late_client = table.connect()
    late.begin_auth("x")
    assert late.validate_public_key("x", table.viewer)
    table.logged_in(table.bob)  # took the last seat meanwhile
    late.auth_completed()
    assert late.record is None and len(late_client.ended) == 1
    assert late.session_requested() is False


async def test_a_keys_file_made_unsafe_while_running_is_logged_once(tmp_path: Path, log: pytest.LogCaptureFixture) -> None:
    table = Table(tmp_path)
    table.logged_in(table.gm)
    os.chmod(tmp_path / "viewer_keys", 0o666)
    ssh, _client = table.connect()
    ssh.begin_auth("x")
    assert not ssh.validate_public_key("x", table.stranger)  # every file looked at
    errors = said(log, logging.ERROR)
    assert len(errors) == 1 and "viewer_keys" in errors[0]
    ssh, _client = table.connect()
    ssh.begin_auth("x")
    assert not ssh.validate_public_key("x", table.viewer)  # its file refused: the viewer with it
    assert said(log, logging.ERROR) == errors  # once


async def test_a_keys_problem_is_logged_as_it_is_said(tmp_path: Path, log: pytest.LogCaptureFixture) -> None:
    """A folder named with a % in it: the problem is the words, not a format."""
    folder = tmp_path / "50%s off %d"
    folder.mkdir()
    table = Table(folder)
    os.chmod(folder / "gm_keys", 0o666)
    ssh, _client = table.connect()
    ssh.begin_auth("x")
    assert not ssh.validate_public_key("x", table.gm)
    assert said(log, logging.ERROR) == table.server.keyring.problems()
    assert str(folder / "gm_keys") in said(log, logging.ERROR)[0]


async def test_one_session_per_connection(tmp_path: Path) -> None:
    table = Table(tmp_path)
    ssh, _client = table.connect()
    ssh.begin_auth("x")
    assert ssh.session_requested() is False  # not logged in
    assert ssh.validate_public_key("x", table.gm)
    ssh.auth_completed()
    session = ssh.session_requested()
    assert isinstance(session, TableSession)
    assert session.table is table.server and session.record is ssh.record and session.owner is ssh
    assert ssh.session_requested() is False
    ssh.session_ended()  # refused (no pty): the slot is free again
    assert isinstance(ssh.session_requested(), TableSession)
    assert ssh.session_requested() is False
    ssh.session_ended()
    ssh.session_ended()
    ssh.session_ended()  # never below none
    assert isinstance(ssh.session_requested(), TableSession)
    assert ssh.session_requested() is False


async def test_a_lost_connection_leaves_the_table(tmp_path: Path, log: pytest.LogCaptureFixture) -> None:
    table = Table(tmp_path)
    ssh = table.logged_in(table.gm)
    record = ssh.record
    assert record is not None
    ssh.connection_lost(None)
    assert table.server.connections == {}
    assert any(m.startswith(f"disconnect {record.who()} after ") for m in said(log, logging.INFO))
    waiting, _client = table.connect()
    gone = waiting.record
    assert gone is not None
    waiting.connection_lost(OSError("reset"))
    assert table.server.pending == {}
    assert said(log, logging.INFO)[-1] == f"gone before logging in: {gone.who()} (reset)"
    refused, _client = table.connect()
    refused.record = None
    refused.connection_lost(None)  # nothing of it left to drop
