"""`tracker serve --campaign NAME`: the table is the campaign's fight, from fight to fight.

Over loopback SSH with real keys (asyncssh clients, and OpenSSH's `ssh -tt` where it is
installed), against `tracker serve` as a subprocess: two players and a viewer wait for
the campaign's first fight, follow the table to it and to the next as the GM starts
them (from the command line) and ends them (from the GM's app), told each time; a
player's key is the same character in every fight, by the campaign's id (renamed in one
fight, still theirs in the next; a foe that takes the old name is not); a viewer never
sees a hidden combatant; the GM's key gets in to a full table; the GM's app cannot move
the table to a fight of another campaign or of its own, and is told why, naming it.
Every wait is on a condition, under a deadline.

Decisions: docs/decisions/0050-serve-campaign.md
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncssh
import pytest

from tests.helpers import DEADLINE, cli, until
from tracker.persistence.campaign import Campaign
from tracker.persistence.campaign_file import CampaignFile
from tracker.engine import Encounter, Event, Setup, TimeMapping
from tracker.persistence.store import EncounterFile
from tracker.reading.roles import Role, campaign_characters
from tracker.serve.campaign import FileWatch, ServedCampaign
from tracker.serve.keys import KeyRing, lines_without_combatant
from tracker.serve.probe import OpenSSHScreen, Screen, ServerProcess, make_key, plain

SSH = shutil.which("ssh")
SIZE = (80, 24)
ESC = b"\x1b"
DOWN = b"\x1b[B"
GAP = 16  # words of other panes a wrapped notification's next line may come after
TOP = b"\x1b[A" * 6  # the start list's first row, whichever fight it had selected


def _shown(text: str, screen: str) -> bool:
    """`text` is on `screen`, its words in order: a notification wraps over lines, between
    which a redraw may put the rest of those lines (another pane's words)."""
    seen, wanted = _words(screen), _words(text)

    def from_(i: int, k: int) -> bool:  # wanted[k:] follows seen[i], each within a line's reach
        if k == len(wanted):
            return True
        return any(seen[j] == wanted[k] and from_(j, k + 1) for j in range(i + 1, min(i + 1 + GAP, len(seen))))

    return any(w == wanted[0] and from_(i, 1) for i, w in enumerate(seen))


def _words(text: str) -> list[str]:
    return re.findall(r"[0-9a-z]+(?:[.\-][0-9a-z]+)*", text.casefold())  # a-raid.toml is one word; "yet." is "yet"


@dataclass
class Party:
    root: Path
    saves: Path
    keys: dict[str, asyncssh.SSHKey]
    args: tuple[str, ...]

    def run(self, *argv: str, stdin: str = "") -> str:
        code, out = cli("--saves", str(self.saves), *argv, stdin=stdin)
        assert code == 0, out
        return out

    def events(self, fight: str) -> list[Event]:
        return EncounterFile(self.saves / fight).load().encounter.events

    def campaign(self, name: str = "road") -> Campaign:
        return CampaignFile(self.saves / f"{name}.campaign.toml").load()


@pytest.fixture
def party(tmp_path: Path) -> Party:
    """The campaign road: Seraph (pc1, bob's key by name) and Nyx (pc2, dan's key by id)."""
    saves = tmp_path / "saves"
    saves.mkdir()
    folder = tmp_path / "keys"
    folder.mkdir()
    keys = {n: make_key(folder / n, f"{n}@laptop") for n in ("gm", "bob", "dan", "viewer", "ghost")}
    pub = {n: k.export_public_key().decode() for n, k in keys.items()}
    (folder / "gm_keys").write_text(pub["gm"])
    (folder / "viewer_keys").write_text(pub["viewer"])
    (folder / "players_keys").write_text(f'combatant="Seraph" {pub["bob"]}name="Dan",pc="pc2" {pub["dan"]}combatant="Ghost" {pub["ghost"]}')
    args = ("--gm-keys", str(folder / "gm_keys"), "--viewer-keys", str(folder / "viewer_keys"), "--players-keys", str(folder / "players_keys"))
    p = Party(tmp_path, saves, keys, args)
    p.run("campaign", "new", "road", "--ruleset", "freeform")
    p.run("campaign", "add", "road", "Seraph", "hp=20")
    p.run("campaign", "add", "road", "Nyx", "hp=18")
    return p


async def _command(screen: Screen, line: str) -> None:
    """The `:` line, a command, Enter."""
    mark = len(screen.session.data)
    screen.send(b":")
    await screen.wait_for("esc: cancel", since=mark)
    screen.send(line.encode() + b"\r")


async def _said(screen: Screen, text: str, since: int = 0) -> None:
    """Wait until `text` is on the screen, wherever a notification wrapped it."""
    try:
        await until(lambda: _shown(text, plain(bytes(screen.session.data[since:]))) or screen.session.closed.is_set(), f"{text!r} on the screen")
    except AssertionError as exc:
        raise AssertionError(f"{exc}; the screen: {plain(bytes(screen.session.data[since:]))[-3000:]!r}") from None
    assert _shown(text, plain(bytes(screen.session.data[since:]))), screen.text[-1500:]


class _Viewer:
    """The viewer's client: OpenSSH's `ssh -tt` where installed (else asyncssh); what it drew."""

    def __init__(self, ssh: OpenSSHScreen | None, screen: Screen | None) -> None:
        self.ssh, self.screen = ssh, screen
        self.reader: asyncio.Task[None] | None = None
        if ssh is not None:
            self.reader = asyncio.get_running_loop().create_task(self.read_output())

    @classmethod
    async def connect(cls, port: int, party: Party) -> "_Viewer":
        if SSH is not None:
            return cls(await OpenSSHScreen.start(SSH, port, party.root / "keys" / "viewer"), None)
        return cls(None, await Screen.connect(port, party.keys["viewer"], size=SIZE))

    async def read_output(self) -> None:
        assert self.ssh is not None and self.ssh.proc.stdout is not None
        while chunk := await self.ssh.proc.stdout.read(65536):
            self.ssh.seen += chunk

    @property
    def text(self) -> str:
        return plain(self.ssh.seen) if self.ssh is not None else self.screen.text if self.screen is not None else ""

    async def saw(self, text: str) -> None:
        await until(lambda: _shown(text, self.text), f"{text!r} on the viewer's screen")

    async def close(self) -> None:
        if self.ssh is not None:
            await self.ssh.close()
        if self.reader is not None:
            self.reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.reader
        if self.screen is not None:
            await self.screen.close()


def _declared(events: list[Event], actor: str, by: str) -> bool:
    return any(e.kind == "declare" and e.args.get("actor") == actor and e.by == by for e in events)


# ------------------------------------------------------------------ the table, fight to fight


@pytest.mark.serve
async def test_two_players_and_a_viewer_follow_the_campaign_from_fight_to_fight(party: Party) -> None:
    # Five seats, two kept for GM keys: the two players and the viewer fill the others.
    server = ServerProcess.start(party.saves, *party.args, "--campaign", "road", "--max-connections", "5")
    clients: list[Any] = []
    try:
        bob = await Screen.connect(server.port, party.keys["bob"], size=SIZE)
        dan = await Screen.connect(server.port, party.keys["dan"], size=SIZE)
        viewer = await _Viewer.connect(server.port, party)
        clients += [bob, dan, viewer]
        # No fight yet: they wait, told the table follows the campaign.
        for screen in (bob, dan):
            await screen.wait_for("The GM has not opened a fight yet")
            await _said(screen, "This table follows the campaign road")
        await viewer.saw("The GM has not opened a fight yet")

        # The GM starts the first fight from the command line: everyone is taken there.
        marks = [len(s.session.data) for s in (bob, dan)]
        await asyncio.to_thread(party.run, "new", "road-1", "--campaign", "road")
        for screen, mark in zip((bob, dan), marks):
            await _said(screen, "The GM moved the table to road 1", mark)
        await viewer.saw("The GM moved the table to road 1")
        server.wait_line(r"the campaign road moved the table to road 1")
        await asyncio.to_thread(party.run, "play", "road-1", stdin="add Lurker hp=5 side=foes hidden=true\nrename Seraph Sera\n")
        await bob.wait_for("Sera ")
        await _command(bob, "declare Sera sword pt=5")
        await until(lambda: _declared(party.events("road-1.toml"), "Sera", "player:bob@laptop"), "bob's declaration for Sera in road 1")

        # The table is full for anyone but a GM: the GM's key gets in, on the table's fight.
        with pytest.raises(asyncssh.DisconnectError, match="the table is full"):
            await Screen.connect(server.port, party.keys["ghost"], size=SIZE)
        gm = await Screen.connect(server.port, party.keys["gm"], size=SIZE)
        clients.append(gm)
        await gm.wait_for("Lurker")  # the GM's app sees everything

        # The GM ends it from the GM's app; the next starts from the command line.
        mark = len(gm.session.data)
        await _command(gm, "end")
        await gm.wait_for("The party's state goes back", since=mark)  # what goes back, shown first
        gm.send(b"y")
        await until(lambda: not party.campaign().fights[0].open, "road 1 ended in the campaign")
        marks = [len(s.session.data) for s in (bob, dan, gm)]
        await asyncio.to_thread(party.run, "new", "road-2", "--campaign", "road")
        for screen, mark in zip((bob, dan), marks):
            await _said(screen, "The GM moved the table to road 2", mark)
        await viewer.saw("The GM moved the table to road 2")
        await _said(gm, "The table moved to road 2", marks[2])  # the GM's app stays where it is, told
        await asyncio.to_thread(party.run, "play", "road-2", stdin="add Seraph hp=9 side=foes\nadd Shade hp=4 side=foes hidden=true\n")

        # bob's character, renamed in road 1, is bob's in road 2; the foe called Seraph is not.
        await _command(bob, "declare Sera sword pt=5")
        await until(lambda: _declared(party.events("road-2.toml"), "Sera", "player:bob@laptop"), "bob's declaration for Sera in road 2")
        mark = len(bob.session.data)
        await _command(bob, "declare Seraph dagger pt=3")
        await bob.wait_for("not your combatant", since=mark)
        # Dan's key names Nyx by the campaign's id (pc="pc2").
        await _command(dan, "declare Nyx bow pt=4")
        await until(lambda: _declared(party.events("road-2.toml"), "Nyx", "player:Dan"), "Dan's declaration for Nyx")
        await viewer.saw("Sera")
    finally:
        for client in clients:
            await client.close()
        assert server.stop() == 0
    road2 = party.events("road-2.toml")
    assert not any(e.kind == "declare" and e.args.get("actor") == "Seraph" for e in road2)
    seen = viewer.text
    assert "road 2" in seen and "Lurker" not in seen and "Shade" not in seen  # hidden, in either fight
    assert "Lurker" not in bob.text and "Shade" not in bob.text


@pytest.mark.serve
async def test_the_gms_app_moves_the_table_only_to_a_fight_of_the_campaign(party: Party) -> None:
    # The GM's start list: each campaign with its fights under it (raid: "1. Raid 1"; road:
    # "1. Road 1" ended, "2. Road 2" under way), then the fights of their own (Solo).
    rows = {"Raid 1": 1, "Road 1": 3, "Solo": 6}
    party.run("campaign", "new", "raid", "--ruleset", "freeform")
    party.run("campaign", "add", "raid", "Orc", "hp=7")
    party.run("new", "a-raid", "--campaign", "raid", "--name", "Raid 1")
    party.run("new", "b-solo", "--ruleset", "freeform", "--name", "Solo")
    party.run("new", "c-road-1", "--campaign", "road", "--name", "Road 1")
    party.run("campaign", "end", "c-road-1", "--yes")
    party.run("new", "d-road-2", "--campaign", "road", "--name", "Road 2")
    server = ServerProcess.start(party.saves, *party.args, "--campaign", "road")
    gm = await Screen.connect(server.port, party.keys["gm"], size=(100, 30))
    bob = await Screen.connect(server.port, party.keys["bob"], size=SIZE)
    try:
        await gm.wait_for("Road 2")  # the campaign's fight under way
        await bob.wait_for("Road 2")
        for downs, told in ((rows["Raid 1"], "a-raid.toml is a fight of the campaign raid, not of road"), (rows["Solo"], "b-solo.toml is a fight of its own, not of the campaign road")):
            mark = len(gm.session.data)
            gm.send(ESC)
            await gm.wait_for("Solo", since=mark)  # the start list, read (its last fight selected)
            gm.send(TOP + DOWN * downs + b"\r")
            await _said(gm, f"The table stays on Road 2: {told}", mark)
        server.wait_line(r"The table stays on Road 2: b-solo.toml is a fight of its own")
        assert "moved the table" not in bob.text and "Orc" not in bob.text
        # An earlier fight of the campaign may be the table's: the GM opens it, everyone follows.
        mark, seen = len(gm.session.data), len(bob.session.data)
        gm.send(ESC)
        await gm.wait_for("Solo", since=mark)
        gm.send(TOP + DOWN * rows["Road 1"] + b"\r")
        await _said(bob, "The GM moved the table to Road 1", seen)
    finally:
        await gm.close()
        await bob.close()
        assert server.stop() == 0


# ------------------------------------------------------------------ who a key is, by the campaign's id


def test_a_keys_character_is_the_campaigns_first_bearer_of_the_name(party: Party) -> None:
    party.run("campaign", "add", "road", "Vex", "hp=10")  # pc3
    party.run("new", "road-1", "--campaign", "road")
    party.run("play", "road-1", stdin="rename Seraph Sera\n")
    party.run("campaign", "end", "road-1", "--yes")  # the rename goes back to the campaign
    party.run("campaign", "set", "road", "pc2", "name=Nyxa")  # by id: `set NAME name=NEW` writes, then fails to name it
    party.run("campaign", "remove", "road", "Vex", "died=true")
    party.run("campaign", "add", "road", "Seraph", "hp=12")  # pc4: a newcomer with the old name
    camp = party.campaign()
    assert camp.pcs["pc1"].name == "Sera" and camp.pcs["pc4"].name == "Seraph"
    found = campaign_characters(camp, ["Seraph", "nyx", "Vex", "Ghost"], ["pc4", "pc9"])
    assert found.pcs == ("pc4", "pc1", "pc2")  # ids first, then names: Seraph is pc1's, Nyx pc2's
    assert found.gone == ("Vex has died",) and found.unknown == ("pc9", "Ghost")
    assert campaign_characters(camp, ["Seraph"]).pcs == ("pc1",)
    assert campaign_characters(camp, ["Sera", "Nyxa"]).pcs == ("pc1", "pc2")  # their names now, too


def test_a_players_combatants_in_a_campaign_fight_are_held_by_the_campaigns_id() -> None:
    enc = Encounter(Setup("road 2", "freeform", TimeMapping(50, "test"), ("hp",), campaign="road.campaign.toml"))
    enc.apply(Event("add", {"name": "Sera", "resources": {"hp": 20}, "pc": "pc1"}))
    enc.apply(Event("add", {"name": "Seraph", "resources": {"hp": 9}}))  # a foe with the old name
    role = Role.of_characters(enc, ["pc1"])
    assert role is not None and role.combatants == ("Sera",)
    assert not role.owns("Seraph")
    enc.apply(Event("rename", {"target": "Sera", "name": "Angel"}))
    assert role.following(enc).combatants == ("Angel",)
    enc.apply(Event("remove", {"name": "Angel"}))
    followed = role.following(enc)
    assert followed.combatants == () and followed.is_player and not followed.owns("Seraph")
    assert Role.of_characters(enc, ["pc2"]) is None


def test_a_players_key_may_name_a_character_by_its_id(tmp_path: Path) -> None:
    key = make_key(tmp_path / "k", "k")
    pub = key.export_public_key().decode()
    text = f'pc="pc2" {pub}name="Ann,pc=1" {pub}combatant="A B",no-pty {pub}'
    assert lines_without_combatant(text) == [2]  # a pc= in a quoted name is no option
    players = tmp_path / "players"
    players.write_text(f'name="Dan",pc="pc2,pc3" {pub}')
    players.chmod(0o600)
    ring = KeyRing.from_options(tmp_path, None, None, False, str(players))
    public = key.convert_to_public()
    assert ring.role_for(public, "127.0.0.1", "127.0.0.1") == "player"
    assert ring.characters(public, "127.0.0.1", "127.0.0.1") == ((), ("pc2", "pc3"))


# ------------------------------------------------------------------ the campaign's file, watched


async def _watched(path: Path, poll: bool, monkeypatch: pytest.MonkeyPatch, change: Callable[[], Any]) -> None:
    seen = asyncio.Event()
    if poll:
        monkeypatch.setattr("tracker.serve.campaign.POLL", 0.05)
        monkeypatch.setattr("tracker.serve.campaign.sys.platform", "darwin")
    watch = FileWatch(path, seen.set)
    try:
        assert watch.start() == ("polling" if poll else "inotify")
        await asyncio.sleep(0)  # the poller's first look
        (path.parent / "other.toml").write_text("x")  # another file of the folder: no news
        await asyncio.to_thread(change)
        await asyncio.wait_for(seen.wait(), DEADLINE)
    finally:
        watch.stop()


@pytest.mark.parametrize("poll", [False, True], ids=["inotify", "polling"])
async def test_a_change_to_the_campaigns_file_is_seen(party: Party, poll: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    path = party.saves / "road.campaign.toml"
    served = ServedCampaign.open(path)
    assert served.table == "" and served.moved_on() is None
    await _watched(path, poll, monkeypatch, lambda: party.run("new", "road-1", "--campaign", "road"))
    assert served.read() and served.moved_on() == "road-1.toml" and served.moved_on() is None
    assert not served.read()  # nothing new
    party.run("campaign", "undo", "road")  # its start taken back (nobody played it): no fight left
    assert served.read() and served.moved_on() == ""
    party.run("new", "road-2", "--campaign", "road")
    party.run("campaign", "end", "road-2", "--yes")
    assert served.read() and served.moved_on() == "road-2.toml"
    assert served.read() is False and served.moved_on() is None  # ended, still the latest: the table stays
    assert served.refusal(party.saves / "road-2.toml", "road.campaign.toml") == ""
    assert served.refusal(party.saves / "road-1.toml", "road.campaign.toml") == "road-1.toml is not among the fights of the campaign road (its fights: road-2.toml)"
    assert served.refusal(party.saves / "x.toml", "") == "x.toml is a fight of its own, not of the campaign road"
    assert served.refusal(party.saves / "x.toml", "raid.campaign.toml") == "x.toml is a fight of the campaign raid, not of road"


def test_serve_campaign_options_are_checked(party: Party, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for argv, said in (
        (("serve", "--campaign", "road", "--encounter", "x"), "leave out --encounter"),
        (("serve", "--campaign", str(elsewhere / "road")), "a served campaign and its fights live in the saves folder"),
        (("serve", "--campaign", "nowhere", "--port", "0"), "nowhere.campaign.toml: no such campaign file"),
    ):
        code, _ = cli("--saves", str(party.saves), *argv, *party.args)
        assert code != 0 and said in capsys.readouterr().err, argv
