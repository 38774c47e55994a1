"""Direct tests of tracker.serve.table: the table every seat shares (the module
docstring; decisions 0003, 0025, 0036, 0037, 0038, 0050, 0054 and 0055). Only a fight
file of the saves folder is the table's; a GM's app moves the table and players and
viewers follow, told so (at a campaign's table, only to that campaign's fights; the GM
told why not); the campaign's file moving on moves the table; the GM's replay is
carried to every player and viewer and to the viewers' processes, and only its own GM
ends it; a seat is described to its app; connections are admitted as decision 0025
says (MaxStartups, penalties, room made), refused ones told why once they can hear it,
those not logged in within the grace closed, idle ones closed; shutdown closes
everything. The connections and sessions are stand-ins the test plays; the fights are
the shipped saves/ files in a folder of the test's."""

from __future__ import annotations

import asyncio
import re
import shutil
import socket
import threading
from pathlib import Path
from typing import Any

import asyncssh
import pytest

from tracker.engine.bounds import MAX_SEGMENT
from tracker.serve import table as table_module
from tracker.serve.admission import REFUSAL_GRACE, Startups
from tracker.serve.campaign import ServedCampaign
from tracker.serve.keys import GM, PLAYER, VIEWER
from tracker.serve.options import ServeOptions
from tracker.serve.seat import SeatInfo
from tracker.serve.table import KEEPALIVE_INTERVAL, USER_SHOWN, WINDOW, Connection, Loaded, TableServer
from tests.helpers import until
from tests.serve_log import log, said  # noqa: F401 (log: a fixture)

SOON = 10.0  # seconds: what is waited for takes milliseconds; a broken one fails in this time
SHIPPED = Path(__file__).resolve().parent.parent / "saves"
SPHINX, BRIDGE = "seraph-vs-sphinx.toml", "freeform-bridge-ambush.toml"  # "Seraph vs Sphinx", "Ambush at the rope bridge"
CITY = "city-nights.campaign.toml"
DOCKS, ROOF, MUSEUM = "city-nights-1-docks.toml", "city-nights-2-roof.toml", "city-nights-3-museum.toml"


class Session:
    """A seated connection's SSH session, as the table sees one."""

    def __init__(self) -> None:
        self.on: Path | None = None
        self.restarts: list[str] = []
        self.told: list[str] = []
        self.replays: list[int | None] = []
        self.hung_up = 0

    def restart(self, notice: str) -> None:
        self.restarts.append(notice)

    def tell(self, text: str) -> None:
        self.told.append(text)

    def tell_replay(self, segment: int | None) -> None:
        self.replays.append(segment)

    def hang_up(self) -> None:
        self.hung_up += 1


class Conn:
    """An SSH connection as the table sees one."""

    def __init__(self, peer: Any = ("10.0.0.7", 40000), version: str | None = "SSH-2.0-OpenSSH_9.6") -> None:
        self.extra = {"peername": peer, "client_version": version}
        self.aborted = 0
        self.disconnects: list[tuple[int, str]] = []

    def get_extra_info(self, name: str) -> Any:
        return self.extra.get(name)

    def abort(self) -> None:
        self.aborted += 1

    def disconnect(self, code: int, reason: str) -> None:
        self.disconnects.append((code, reason))


class Hosts:
    """The viewers' processes (viewer_processes.ViewerHosts), as the table sees them."""

    def __init__(self, room: bool = True) -> None:
        self.room = room
        self.told: list[dict[str, Any]] = []
        self.nudges = 0
        self.placed: list[tuple[Any, ...]] = []
        self.closed = 0

    def tell_all(self, message: dict[str, Any]) -> None:
        self.told.append(message)

    def nudge_all(self) -> None:
        self.nudges += 1

    def has_room(self, env: dict[str, str], fight: str) -> bool:
        self.asked = (env, fight)
        return self.room

    def place(self, *args: Any) -> str:
        self.placed.append(args)
        return "placed"

    async def close(self) -> None:
        self.closed += 1


@pytest.fixture
def saves(tmp_path: Path) -> Path:
    folder = tmp_path / "saves"
    folder.mkdir()
    for name in (SPHINX, BRIDGE, CITY, DOCKS, ROOF, MUSEUM):
        shutil.copy(SHIPPED / name, folder / name)
    return folder.resolve()


def unreadable(path: Path) -> str:
    """Why `path` does not load, in the words of the saves' reader."""
    from tracker.persistence.store import EncounterFile

    with pytest.raises(table_module.TrackerError) as why:
        EncounterFile(path).load()
    return str(why.value)


def make_table(saves: Path, **options: Any) -> TableServer:
    options.setdefault("spawn", "exec")
    return TableServer(ServeOptions(saves=saves, **options), None)  # type: ignore[arg-type]


def seated(table: TableServer, role: str | None, ident: int, **fields: Any) -> Connection:
    record = Connection(ident, f"10.0.0.{ident}:4000", f"10.0.0.{ident}", role=role, session=Session(), conn=Conn(), **fields)  # type: ignore[arg-type]
    table.connections[ident] = record
    return record


def session(record: Connection) -> Session:
    assert isinstance(record.session, Session)
    return record.session


# ----------------------------------------------------------------- who


def test_the_tables_constants() -> None:
    assert (KEEPALIVE_INTERVAL, WINDOW, USER_SHOWN) == (30.0, 262144, 64)
    assert Loaded("A", "").preloaded is None


def test_a_connection_is_described_for_the_log_by_its_key_never_its_user_name() -> None:
    record = Connection(3, "10.0.0.7:40000", "10.0.0.7", user="bob")
    assert (record.role, record.key, record.name, record.combatants, record.pcs, record.refusal) == (None, "", "", (), (), "")
    assert record.conn is None and record.session is None and record.since <= record.last_activity
    assert record.who() == '#3 "bob"@10.0.0.7:40000 unauthenticated'
    record.role = GM
    assert record.who() == '#3 "bob"@10.0.0.7:40000 gm without a key'
    record.key = "SHA256:abc"
    assert record.who() == '#3 "bob"@10.0.0.7:40000 gm key SHA256:abc'
    record.role, record.combatants = PLAYER, ("Seraph", "Nyx")
    assert record.who() == '#3 "bob"@10.0.0.7:40000 player of Seraph,Nyx key SHA256:abc'
    record.combatants, record.pcs = (), ("pc1",)
    assert record.who() == '#3 "bob"@10.0.0.7:40000 player of pc1 key SHA256:abc'
    record.combatants = ("Seraph",)
    assert record.who() == '#3 "bob"@10.0.0.7:40000 player of Seraph,pc1 key SHA256:abc'
    record.role, record.combatants, record.pcs = VIEWER, (), ()
    assert record.who() == '#3 "bob"@10.0.0.7:40000 viewer key SHA256:abc'


def test_a_long_or_deceiving_user_name_is_quoted_and_cut() -> None:
    record = Connection(1, "h:1", "h", user='x" gm key' + "u" * 100)
    who = record.who()
    assert who.startswith('#1 "x\\" gm key') and who.endswith('…"@h:1 unauthenticated')
    shown = who[len("#1 ") : who.index("@h:1")]
    assert len(shown) == 64 + 2 + 1  # 64 characters, the quotes, and the quote escaped


def test_a_new_table_starts_on_its_encounter_with_nobody(saves: Path) -> None:
    ring = object()
    table = TableServer(ServeOptions(saves=saves, encounter=saves / SPHINX, spawn="exec"), ring)  # type: ignore[arg-type]
    assert table.options.saves == saves and table.keyring is ring
    assert table.fight == saves / SPHINX and table.fight_name == "seraph-vs-sphinx"
    assert table.connections == {} and table.pending == {} and table.refusing == {} and table.children == set()
    assert table.penalties.until == {} and table.admission == table.options.admission
    assert table.preloaded is None and table.viewer_hosts is None and table.campaign is None
    assert table.replaying is None and table.replayed_by is None and table.tasks_running == 0
    bare = make_table(saves)
    assert bare.fight is None and bare.fight_name == ""
    assert bare.stays() == "The table stays without a fight"
    assert table.stays() == "The table stays on seraph-vs-sphinx"


# ----------------------------------------------------------------- the table's fight


def test_only_a_fight_file_of_the_saves_folder_is_a_fight(saves: Path, tmp_path: Path) -> None:
    table = make_table(saves)
    assert table.fight_path(str(saves / SPHINX)) == saves / SPHINX
    (saves / "x").mkdir()
    assert table.fight_path(str(saves / "x" / ".." / SPHINX)) == saves / SPHINX  # resolved
    assert table.fight_path(saves / SPHINX) is None  # not text
    assert table.fight_path(None) is None
    assert table.fight_path(SPHINX) is None  # relative
    assert table.fight_path(str(saves / "absent.toml")) is None
    (saves / "notes.txt").write_text("x")
    assert table.fight_path(str(saves / "notes.txt")) is None
    (saves / "folder.toml").mkdir()
    assert table.fight_path(str(saves / "folder.toml")) is None
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.copy(saves / SPHINX, elsewhere / SPHINX)
    assert table.fight_path(str(elsewhere / SPHINX)) is None
    (saves / "link.toml").symlink_to(elsewhere / SPHINX)  # a link out of the folder: where it leads
    assert table.fight_path(str(saves / "link.toml")) is None
    (saves / "loop.toml").symlink_to(saves / "loop.toml")
    assert table.fight_path(str(saves / "loop.toml")) is None


async def test_a_gm_moves_the_table_and_players_and_viewers_follow(saves: Path, log: pytest.LogCaptureFixture) -> None:
    table = make_table(saves, encounter=saves / SPHINX)
    hosts = table.viewer_hosts = Hosts()
    gm, player, viewer = seated(table, GM, 1, key="SHA256:g"), seated(table, PLAYER, 2), seated(table, VIEWER, 3)
    other_gm = seated(table, GM, 4)
    table.replaying, table.replayed_by = 5, gm
    await table.move(str(saves / BRIDGE), gm)
    assert table.fight == saves / BRIDGE and table.fight_name == "Ambush at the rope bridge"
    assert session(gm).on == saves / BRIDGE and session(other_gm).on is None
    assert (table.replaying, table.replayed_by) == (None, None)  # a new fight starts at now
    assert session(player).restarts == ["The GM moved the table to Ambush at the rope bridge"] == session(viewer).restarts
    assert session(gm).restarts == [] == session(other_gm).restarts and session(gm).told == []
    assert said(log) == [f'#1 ""@10.0.0.1:4000 gm key SHA256:g moved the table to Ambush at the rope bridge ({saves / BRIDGE})']
    assert hosts.told == []
    # The same fight again: the GM's app is on it; nobody is restarted.
    await table.move(str(saves / BRIDGE), other_gm)
    assert session(other_gm).on == saves / BRIDGE and session(player).restarts == ["The GM moved the table to Ambush at the rope bridge"]


async def test_a_move_to_what_is_not_a_fight_of_the_folder_is_ignored(saves: Path, log: pytest.LogCaptureFixture) -> None:
    table = make_table(saves, encounter=saves / SPHINX)
    gm, viewer = seated(table, GM, 1), seated(table, VIEWER, 2)
    await table.move("/etc/\x1bpasswd" + "x" * 300, gm)
    assert table.fight == saves / SPHINX and session(gm).on is None and session(viewer).restarts == []
    message = said(log)[0]
    assert message.startswith(f'ignored a move of the table by #1 ""@10.0.0.1:4000 gm without a key: not a fight in {saves}: /etc/\u241bpasswd')
    assert len(message.split(": ", 2)[2]) == 200
    await table.move(None, gm)
    assert said(log)[-1].endswith(": None")


async def test_a_fight_that_cannot_be_read_leaves_the_table_where_it_is(saves: Path, log: pytest.LogCaptureFixture) -> None:
    table = make_table(saves, encounter=saves / SPHINX)
    table.fight_name = "Seraph vs Sphinx"
    gm, viewer = seated(table, GM, 1), seated(table, VIEWER, 2)
    broken = saves / "broken.toml"
    broken.write_text("kind = 3\n[[[", encoding="utf-8")
    await table.move(str(broken), gm)
    assert table.fight == saves / SPHINX and table.fight_name == "Seraph vs Sphinx" and session(viewer).restarts == []
    assert session(gm).on == broken  # the GM's app is on it, whatever the table does
    assert len(session(gm).told) == 1 and session(gm).told[0].startswith("The table stays on Seraph vs Sphinx: broken.toml cannot be opened: ")
    assert said(log) == [f"the table stays where it is: {broken} cannot be loaded: {unreadable(broken)}"]


async def test_a_gm_without_a_session_moves_the_table_all_the_same(saves: Path) -> None:
    table = make_table(saves)
    gm = Connection(1, "h:1", "h", role=GM)
    await table.move(str(saves / BRIDGE), gm)
    assert table.fight == saves / BRIDGE


async def test_moves_are_made_one_at_a_time_in_order(saves: Path) -> None:
    table = make_table(saves, encounter=saves / SPHINX)
    gm, viewer = seated(table, GM, 1), seated(table, VIEWER, 2)
    await table._moving.acquire()
    first = asyncio.get_running_loop().create_task(table.move(str(saves / BRIDGE), gm))
    second = asyncio.get_running_loop().create_task(table.move(str(saves / SPHINX), gm))
    await asyncio.sleep(0)
    assert session(gm).on is None  # waiting for the move under way
    table._moving.release()
    await asyncio.gather(first, second)
    assert table.fight == saves / SPHINX and len(session(viewer).restarts) == 2


# ----------------------------------------------------------------- a campaign's table


def at_revision(revision: int) -> str:
    text = (SHIPPED / CITY).read_text(encoding="utf-8")
    mark = f"# revision {revision}\n"
    return text[: text.index(mark) + len(mark)]


def campaign_table(saves: Path, revision: int) -> TableServer:
    (saves / CITY).write_text(at_revision(revision), encoding="utf-8")
    table = make_table(saves)
    table.campaign = ServedCampaign.open(saves / CITY)
    if table.campaign.table:
        table.fight = saves / table.campaign.table
    return table


async def test_at_a_campaigns_table_a_gm_moves_only_to_its_fights(saves: Path, log: pytest.LogCaptureFixture) -> None:
    table = campaign_table(saves, 6)
    assert table.fight == saves / ROOF
    table.fight_name = "The rooftop"
    gm, viewer = seated(table, GM, 1), seated(table, VIEWER, 2)
    await table.move(str(saves / SPHINX), gm)
    assert table.fight == saves / ROOF and session(viewer).restarts == []
    assert session(gm).told == ["The table stays on The rooftop: seraph-vs-sphinx.toml is a fight of its own, not of the campaign City Nights"]
    assert said(log) == ['#1 ""@10.0.0.1:4000 gm without a key: The table stays on The rooftop: seraph-vs-sphinx.toml is a fight of its own, not of the campaign City Nights']
    await table.move(str(saves / DOCKS), gm)  # an earlier fight of the campaign
    assert table.fight == saves / DOCKS and session(viewer).restarts == ["The GM moved the table to The docks"]


async def test_at_a_campaigns_table_a_gms_move_reads_the_campaign_first(saves: Path) -> None:
    table = campaign_table(saves, 6)
    gm = seated(table, GM, 1)
    (saves / CITY).write_text(at_revision(8), encoding="utf-8")  # the museum started, not yet seen
    await table.move(str(saves / MUSEUM), gm)
    assert table.fight == saves / MUSEUM and session(gm).told == []
    assert table.campaign is not None and table.campaign.revision == 8 and table.campaign.table == MUSEUM


async def test_the_campaign_starting_a_fight_moves_the_table(saves: Path, log: pytest.LogCaptureFixture) -> None:
    table = campaign_table(saves, 4)
    assert table.fight == saves / DOCKS
    gm_there, gm_elsewhere, player = seated(table, GM, 1), seated(table, GM, 2), seated(table, PLAYER, 3)
    session(gm_there).on = saves / ROOF
    session(gm_elsewhere).on = saves / DOCKS
    (saves / CITY).write_text(at_revision(6), encoding="utf-8")
    table._campaign_changed()
    await until(lambda: table.fight == saves / ROOF, "the table on the rooftop", SOON)
    await until(lambda: table.tasks_running == 0, "the campaign read", SOON)
    assert table.fight_name == "The rooftop"
    assert session(player).restarts == ["The GM moved the table to The rooftop"]
    assert session(gm_there).told == [] and session(gm_there).restarts == []
    assert session(gm_elsewhere).told == [f"The table moved to The rooftop, the campaign's fight now: Esc, then open {ROOF} to join it"]
    assert said(log) == [f"the campaign City Nights moved the table to The rooftop ({saves / ROOF})"]
    # Read again with nothing new: nothing moves.
    table._campaign_changed()
    await until(lambda: table.tasks_running == 0, "the campaign read again", SOON)
    assert len(session(player).restarts) == 1


async def test_the_campaign_taking_back_its_fight_leaves_the_table_waiting(saves: Path, log: pytest.LogCaptureFixture) -> None:
    table = campaign_table(saves, 3)  # the docks under way
    assert table.fight == saves / DOCKS
    table.fight_name = "The docks"
    viewer = seated(table, VIEWER, 1)
    (saves / CITY).write_text(at_revision(2), encoding="utf-8")  # its start taken back
    table._campaign_changed()
    await until(lambda: table.fight is None, "the table without a fight", SOON)
    assert table.fight_name == ""
    assert session(viewer).restarts == ["The campaign City Nights has no fight now: the table waits for the GM's next"]
    assert said(log) == ["the campaign City Nights has no fight any more: the table waits for the next"]
    assert table.stays() == "The table stays without a fight"
    # Without a fight already: nothing to say.
    assert table.campaign is not None
    await table._campaign_moved(table.campaign, "")
    assert len(session(viewer).restarts) == 1


async def test_a_campaign_naming_what_is_not_its_fight_leaves_the_table(saves: Path, log: pytest.LogCaptureFixture) -> None:
    table = campaign_table(saves, 6)
    table.fight_name = "The rooftop"
    viewer = seated(table, VIEWER, 1)
    campaign = table.campaign
    assert campaign is not None
    await table._campaign_moved(campaign, "absent.toml")
    assert said(log) == [f"the campaign City Nights names the fight absent.toml, which is not a fight file in {saves}: the table stays"]
    await table._campaign_moved(campaign, ROOF)  # where it is
    (saves / "broken.toml").write_text("[[[", encoding="utf-8")
    await table._campaign_moved(campaign, "broken.toml")
    assert said(log)[-1] == f"the campaign's fight {saves / 'broken.toml'} cannot be loaded; the table stays: {unreadable(saves / 'broken.toml')}"
    await table._campaign_moved(campaign, SPHINX)
    assert said(log)[-1] == "The table stays on The rooftop: seraph-vs-sphinx.toml is a fight of its own, not of the campaign City Nights"
    assert len(said(log)) == 3
    assert table.fight == saves / ROOF and session(viewer).restarts == []


async def test_a_change_seen_while_the_campaign_is_read_reads_it_again_after(saves: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    table = campaign_table(saves, 4)
    campaign = table.campaign
    assert campaign is not None
    reads: list[int] = []
    gate = threading.Event()
    real = ServedCampaign.read

    def read(self: ServedCampaign) -> bool:
        reads.append(1)
        gate.wait(SOON)
        return real(self)

    monkeypatch.setattr(ServedCampaign, "read", read)
    (saves / CITY).write_text(at_revision(6), encoding="utf-8")
    table._campaign_changed()
    reading = table._reading
    await until(lambda: len(reads) == 1, "a read under way", SOON)
    table._campaign_changed()  # seen meanwhile: once more after, not a second reader
    assert table._reading is reading and table._read_again
    (saves / CITY).write_text(at_revision(8), encoding="utf-8")
    gate.set()
    await until(lambda: reading is not None and reading.done(), "the reading over", SOON)
    assert len(reads) == 2 and table.fight == saves / MUSEUM


@pytest.mark.parametrize("first", [4, 5])  # the first read finds nothing new, or a change that moves nothing
async def test_a_change_seen_while_a_read_finds_nothing_to_move_is_read_after(saves: Path, monkeypatch: pytest.MonkeyPatch, first: int) -> None:
    table = campaign_table(saves, 4)
    (saves / CITY).write_text(at_revision(first), encoding="utf-8")  # revision 5: a rest, the table stays
    reads: list[bool] = []
    gate = threading.Event()
    real = ServedCampaign.read

    def read(self: ServedCampaign) -> bool:
        changed = real(self)
        reads.append(changed)
        gate.wait(SOON)
        return changed

    monkeypatch.setattr(ServedCampaign, "read", read)
    table._campaign_changed()
    await until(lambda: len(reads) == 1, "the first read", SOON)
    (saves / CITY).write_text(at_revision(6), encoding="utf-8")
    table._campaign_changed()
    gate.set()
    await until(lambda: table.tasks_running == 0, "the reading over", SOON)
    assert reads == [first == 5, True] and table.fight == saves / ROOF


async def test_a_closing_table_reads_its_campaign_no_more(saves: Path) -> None:
    table = campaign_table(saves, 4)
    table._closing = True
    (saves / CITY).write_text(at_revision(6), encoding="utf-8")
    table._campaign_changed()
    await until(lambda: table.tasks_running == 0, "the reader over", SOON)
    assert table.fight == saves / DOCKS


# ----------------------------------------------------------------- the GM's replay


async def test_the_gms_replay_is_followed_by_players_and_viewers_and_the_viewers_processes(saves: Path, log: pytest.LogCaptureFixture) -> None:
    table = make_table(saves, encounter=saves / SPHINX)
    hosts = table.viewer_hosts = Hosts()
    gm, other_gm, player, viewer = seated(table, GM, 1), seated(table, GM, 2), seated(table, PLAYER, 3), seated(table, VIEWER, 4)
    session(gm).on = session(other_gm).on = saves / SPHINX  # a GM's app starts on the table's fight
    table.replay(3, gm)
    assert (table.replaying, table.replayed_by) == (3, gm)
    assert session(player).replays == [3] == session(viewer).replays and session(gm).replays == [] == session(other_gm).replays
    assert hosts.told == [{"op": "replay", "segment": 3}]
    assert said(log) == ['#1 ""@10.0.0.1:4000 gm without a key replays the fight; players and viewers follow']
    table.replay(3, gm)  # the same again: nothing
    assert session(player).replays == [3] and len(hosts.told) == 1
    table.replay(0, gm)  # another segment: no new line in the log
    assert session(player).replays == [3, 0] and len(said(log)) == 1
    table.replay(0, other_gm)  # another GM shows the same: it is now theirs
    assert table.replayed_by is other_gm and session(player).replays == [3, 0, 0]
    table.replay(None, gm)  # not the replay the table follows: it goes on
    assert (table.replaying, table.replayed_by) == (0, other_gm) and session(player).replays == [3, 0, 0]
    table.replay(None, other_gm)
    assert (table.replaying, table.replayed_by) == (None, None)
    assert session(viewer).replays == [3, 0, 0, None] and hosts.told[-1] == {"op": "replay", "segment": None}
    assert said(log)[-1] == '#2 ""@10.0.0.2:4000 gm without a key ended the replay; the table is back to now'
    table.replay(None, gm)  # at now already: nothing
    assert len(session(viewer).replays) == 4 and len(said(log)) == 2


async def test_a_replay_segment_that_is_not_one_is_ignored(saves: Path, log: pytest.LogCaptureFixture) -> None:
    table = make_table(saves)
    gm, viewer = seated(table, GM, 1), seated(table, VIEWER, 2)
    for bad in (True, -1, MAX_SEGMENT + 1, "3", 2.0):
        table.replay(bad, gm)
    assert table.replaying is None and session(viewer).replays == []
    assert said(log)[0] == 'ignored a replay segment from #1 ""@10.0.0.1:4000 gm without a key: True'
    assert said(log)[1:4] == [f'ignored a replay segment from #1 ""@10.0.0.1:4000 gm without a key: {v}' for v in (-1, MAX_SEGMENT + 1, 3)]
    table.replay("\x1b" + "9" * 100, gm)
    assert said(log)[-1].endswith(": \u241b" + "9" * 39)
    table.replay(MAX_SEGMENT, gm)
    table.replay(0, gm)
    assert session(viewer).replays == [MAX_SEGMENT, 0]


async def test_a_replay_without_viewers_processes_or_sessions_is_quiet(saves: Path) -> None:
    table = make_table(saves)
    gm = seated(table, GM, 1)
    table.connections[2] = Connection(2, "h:2", "h", role=VIEWER)  # no session yet
    table.replay(1, gm)
    assert table.replaying == 1


async def test_a_gm_whose_replay_ended_cannot_end_a_replay_at_now(saves: Path) -> None:
    table = make_table(saves)
    gm, viewer = seated(table, GM, 1), seated(table, VIEWER, 2)
    table.replay(2, gm)
    table.replay(None, gm)
    table.replay(None, gm)
    assert session(viewer).replays == [2, None]
    table.replay(None, seated(table, GM, 3))
    assert session(viewer).replays == [2, None]


async def test_a_campaigns_new_fight_starts_at_now_whatever_the_gm_replays_of_the_last(saves: Path) -> None:
    table = campaign_table(saves, 4)  # on the docks
    replaying, viewer = seated(table, GM, 1), seated(table, VIEWER, 2)
    session(replaying).on = saves / DOCKS
    table.replay(7, replaying)
    assert session(viewer).replays == [7]
    (saves / CITY).write_text(at_revision(6), encoding="utf-8")  # another GM started the rooftop
    table._campaign_changed()
    await until(lambda: table.fight == saves / ROOF, "the table on the rooftop", SOON)
    assert (table.replaying, table.replayed_by) == (None, None)
    assert table.seat_info(viewer).replaying is None  # the viewer's app opens the rooftop at now
    # The GM still on the docks goes on replaying them: not the table's fight.
    table.replay(8, replaying)
    assert table.replaying is None and session(viewer).replays == [7]


async def test_only_a_gm_on_the_tables_fight_leads_its_replay(saves: Path) -> None:
    table = make_table(saves, encounter=saves / SPHINX)
    here, elsewhere, viewer = seated(table, GM, 1), seated(table, GM, 2), seated(table, VIEWER, 3)
    session(here).on, session(elsewhere).on = saves / SPHINX, saves / BRIDGE  # the second stayed where it was
    table.replay(4, elsewhere)
    assert table.replaying is None and session(viewer).replays == []
    table.replay(4, here)
    table.replay(None, elsewhere)
    assert (table.replaying, table.replayed_by) == (4, here) and session(viewer).replays == [4]


# ----------------------------------------------------------------- a seat


def test_a_seat_is_described_to_its_app(saves: Path) -> None:
    table = make_table(saves, encounter=saves / SPHINX)
    table.fight_name = "Seraph vs Sphinx"
    table.replaying = 4
    viewer = seated(table, VIEWER, 1, name="Ann")
    info = table.seat_info(viewer, "welcome")
    assert info == SeatInfo(VIEWER, "Ann", (), str(saves / SPHINX), "Seraph vs Sphinx", "welcome", str(saves), replaying=4, campaign="", pcs=())
    player = seated(table, PLAYER, 2, combatants=("Seraph",))
    assert table.seat_info(player) == SeatInfo(PLAYER, "", ("Seraph",), str(saves / SPHINX), "Seraph vs Sphinx", "", str(saves), replaying=4)
    gm = seated(table, GM, 3)
    assert table.seat_info(gm).replaying is None  # a GM's app has its own replay
    nobody = seated(table, None, 4)
    assert table.seat_info(nobody).role == VIEWER
    empty = make_table(saves)
    assert empty.seat_info(viewer) == SeatInfo(VIEWER, "Ann", (), "", "", "", str(saves), replaying=None)


def test_a_seat_at_a_campaigns_table_is_told_of_its_characters(saves: Path, log: pytest.LogCaptureFixture) -> None:
    table = campaign_table(saves, 2)  # two characters, no fight yet
    assert table.fight is None
    player = seated(table, PLAYER, 1, combatants=("seraph", "Ghost"), pcs=("pc2", "pc9"))
    info = table.seat_info(player, "hello")
    assert info.campaign == "City Nights" and info.pcs == ("pc2", "pc1")
    assert info.notice == "hello\nThis table follows the campaign City Nights: it goes to the campaign's fight as soon as the GM starts one"
    assert said(log) == ['#1 ""@10.0.0.1:4000 player of seraph,Ghost,pc2,pc9 without a key: the key names pc9, Ghost, no character of the campaign City Nights']
    viewer = seated(table, VIEWER, 2)
    assert table.seat_info(viewer).pcs == () and len(said(log)) == 1
    assert table.seat_info(viewer).notice == "This table follows the campaign City Nights: it goes to the campaign's fight as soon as the GM starts one"
    table.fight = saves / DOCKS
    player.combatants, player.pcs = ("Nyx",), ()
    info = table.seat_info(player)
    assert info.notice == "" and info.pcs == ("pc2",) and len(said(log)) == 1


def test_a_seat_is_told_when_its_character_has_left(saves: Path) -> None:
    (saves / CITY).write_text(at_revision(2) + '\n[[events]]\nseq = 3\nkind = "leave"\nby = "gm"\npc = "pc2"\nat = "2026-11-29T10:15:39Z"\n# revision 3\n', encoding="utf-8")
    table = make_table(saves)
    table.campaign = ServedCampaign.open(saves / CITY)
    player = seated(table, PLAYER, 1, combatants=("Nyx", "Seraph"))
    info = table.seat_info(player, "hi")
    assert info.pcs == ("pc1",)
    assert info.notice.split("\n")[:2] == ["hi", "Your character Nyx has left the party"]


def test_with_exec_a_seat_runs_a_new_program(saves: Path) -> None:
    table = make_table(saves, encounter=saves / SPHINX)
    assert table.runner(SeatInfo(VIEWER, fight=str(saves / SPHINX)), None) is None


class Preload:
    """The table's fight loaded once (preload.Preloaded), as the table asks of it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.busy = threading.Lock()
        self.live = object()
        self.asked: list[Path] = []

    def usable(self, fight: Path) -> Any:
        self.asked.append(fight)
        return self.live

    def viewer_app(self, notice: str) -> Any:
        return notice


def test_with_fork_a_seat_runs_its_app_on_the_preloaded_fight(saves: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tracker.serve import seat

    ran: list[tuple[Any, ...]] = []

    def run_seat(info: SeatInfo, live: Any, sock: Any) -> int:
        ran.append((info, live, sock))
        return 7

    monkeypatch.setattr(seat, "run", run_seat)
    table = make_table(saves, spawn="fork")
    info = SeatInfo(VIEWER, fight=str(saves / SPHINX))
    sock = socket.socket()
    try:
        run = table.runner(info, sock)
        assert run is not None and run() == 7 and ran == [(info, None, sock)]  # nothing preloaded
        preloaded = table.preloaded = Preload(saves / SPHINX)  # type: ignore[assignment]
        run = table.runner(info, None)
        assert run is not None and run() == 7 and ran[-1] == (info, preloaded.live, None) and preloaded.asked == [saves / SPHINX]
        run = table.runner(SeatInfo(VIEWER), None)  # no fight yet
        assert run is not None and run() == 7 and ran[-1][1] is None and len(preloaded.asked) == 1
    finally:
        sock.close()


def test_a_viewer_is_placed_in_a_viewers_process_only_on_the_preloaded_fight(saves: Path) -> None:
    table = make_table(saves, spawn="fork")
    info = SeatInfo(VIEWER, fight=str(saves / SPHINX), notice="hi")
    env = {"TERM": "xterm"}
    assert table.host_viewer(info, env) is None  # no viewers' processes
    hosts = table.viewer_hosts = Hosts()
    assert table.host_viewer(info, env) is None  # nothing preloaded
    preloaded = table.preloaded = Preload(saves / SPHINX)  # type: ignore[assignment]
    assert table.host_viewer(SeatInfo(PLAYER, fight=str(saves / SPHINX)), env) is None
    assert table.host_viewer(SeatInfo(VIEWER), env) is None
    assert table.host_viewer(SeatInfo(VIEWER, fight=str(saves / BRIDGE)), env) is None
    table.replaying = 6
    place = table.host_viewer(info, env)
    assert place is not None and hosts.asked == (env, str(saves / SPHINX))
    assert place(12) == "placed" and hosts.placed == [(12, env, preloaded.viewer_app, str(saves / SPHINX), "hi", 6)]
    with preloaded.busy:  # a refresh half done: a process already forked takes it, not a new one
        assert table.host_viewer(info, env) is not None
        hosts.room = False
        assert table.host_viewer(info, env) is None
    assert table.host_viewer(info, env) is not None


# ----------------------------------------------------------------- connections


def options_for_admission(saves: Path, **options: Any) -> TableServer:
    return make_table(saves, startups=Startups.parse(options.pop("startups", "10:30:100")), **options)


async def test_a_connection_logs_in_within_the_grace_or_is_closed(saves: Path, log: pytest.LogCaptureFixture) -> None:
    table = options_for_admission(saves, login_grace=0.05)
    conn = Conn(("10.0.0.7", 40000))
    record = table.new_connection(conn)  # type: ignore[arg-type]
    assert record is not None and record.ident == 1 and record.peer == "10.0.0.7:40000" and record.source == "10.0.0.7"
    assert record.conn is conn and table.pending == {1: record}
    await until(lambda: not table.pending, "the grace over", SOON)
    assert conn.disconnects == [(asyncssh.DISC_CONNECTION_LOST, "not logged in within 0.05s")]
    assert table.penalties.active("10.0.0.7", record.since + 0.1)
    assert said(log) == ['closed #1 ""@10.0.0.7:40000 unauthenticated: not logged in within 0.05s']
    table._grace_over(record)  # twice: nothing
    assert len(conn.disconnects) == 1
    second = table.new_connection(Conn(("10.0.0.8", 1)))  # type: ignore[arg-type]
    assert second is not None and second.ident == 2
    assert table.admit(second)  # logged in in time: the grace passes by
    await asyncio.sleep(0.1)
    assert table.connections == {2: second} and second.conn is not None and second.conn.disconnects == []  # type: ignore[attr-defined]


async def test_a_connection_without_a_peer_name_is_still_one(saves: Path) -> None:
    table = options_for_admission(saves)
    record = table.new_connection(Conn(None))  # type: ignore[arg-type]
    assert record is not None and record.peer == "?:0" and record.source == "?"


async def test_a_closing_table_takes_no_connection(saves: Path) -> None:
    table = options_for_admission(saves)
    table._closing = True
    conn = Conn()
    assert table.new_connection(conn) is None  # type: ignore[arg-type]
    await until(lambda: conn.aborted == 1, "aborted", SOON)
    assert table.pending == {} and table.refusing == {} and table._ident == 1
    assert table.seat_refusal(GM) == "the table is closing"


async def test_too_many_from_one_address_are_refused_and_told_why(saves: Path, log: pytest.LogCaptureFixture) -> None:
    table = options_for_admission(saves, per_source=2)
    first, second = table.new_connection(Conn(("10.0.0.7", 1))), table.new_connection(Conn(("10.0.0.7", 2)))  # type: ignore[arg-type]
    conn = Conn(("10.0.0.7", 3))
    refused = table.new_connection(conn)  # type: ignore[arg-type]
    assert first is not None and second is not None and refused is not None
    assert refused.refusal == "too many connections from your address are logging in (2); try again in a moment"
    assert table.refusing == {3: refused} and 3 not in table.pending
    assert said(log) == ['refused #3 ""@10.0.0.7:3 unauthenticated: too many connections from your address are logging in (2); try again in a moment']
    table.tell_refusal(refused)
    assert table.refusing == {} and conn.disconnects == [(asyncssh.DISC_TOO_MANY_CONNECTIONS, refused.refusal)]
    table._give_up(refused)  # told already: nothing more
    assert conn.aborted == 0


async def test_a_refused_client_that_never_hears_why_is_given_up(saves: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(table_module, "REFUSAL_GRACE", 0.05)
    assert REFUSAL_GRACE == 5.0
    table = options_for_admission(saves, per_source=1)
    table.new_connection(Conn(("10.0.0.7", 1)))  # type: ignore[arg-type]
    conn = Conn(("10.0.0.7", 2))
    refused = table.new_connection(conn)  # type: ignore[arg-type]
    assert refused is not None and table.refusing == {2: refused}
    await until(lambda: conn.aborted == 1, "given up", SOON)
    assert table.refusing == {}
    refused.conn = None
    table.refusing[2] = refused
    table._give_up(refused)  # its connection gone already: only forgotten
    assert table.refusing == {}


async def test_refused_clients_waiting_to_hear_why_are_no_more_than_full(saves: Path) -> None:
    table = options_for_admission(saves, per_source=1, startups="1:100:2")
    table.new_connection(Conn(("10.0.0.7", 1)))  # type: ignore[arg-type]
    first = table.new_connection(Conn(("10.0.0.7", 2)))  # type: ignore[arg-type]
    second = table.new_connection(Conn(("10.0.0.7", 3)))  # type: ignore[arg-type]
    assert first is not None and second is not None and len(table.refusing) == 2
    conn = Conn(("10.0.0.7", 4))
    assert table.new_connection(conn) is None  # type: ignore[arg-type]
    await until(lambda: conn.aborted == 1, "aborted untold", SOON)
    assert len(table.refusing) == 2


async def test_a_newcomer_takes_the_place_of_one_from_a_penalized_address(saves: Path, log: pytest.LogCaptureFixture) -> None:
    table = options_for_admission(saves, startups="1:100:1")
    silent = Conn(("10.0.0.9", 1), version=None)
    old = table.new_connection(silent)  # type: ignore[arg-type]
    assert old is not None
    table.penalties.add("10.0.0.9", old.since)
    newcomer = table.new_connection(Conn(("10.0.0.7", 2)))  # type: ignore[arg-type]
    assert newcomer is not None and newcomer.refusal == "" and table.pending == {2: newcomer}
    assert silent.aborted == 1 and silent.disconnects == []  # it never spoke: no words for it
    assert said(log) == ['closed #1 ""@10.0.0.9:1 unauthenticated to make room: its address has had connections that did not log in']
    spoke = Conn(("10.0.0.9", 3))
    third = table.new_connection(spoke)  # type: ignore[arg-type]
    assert third is not None and third.refusal  # from a penalized address: refused, no room made
    table.pending[3] = third
    table.refusing.clear()
    table._make_room(third, "a reason")
    assert spoke.disconnects == [(asyncssh.DISC_TOO_MANY_CONNECTIONS, "closed to make room for others (a reason); try again")]
    assert 3 not in table.pending and spoke.aborted == 0
    gone = Connection(9, "h:1", "h")
    table._make_room(gone, "no connection")  # quiet
    assert table.penalties.active("h", gone.since)


def test_what_admission_knows_of_a_connection_logging_in() -> None:
    record = Connection(4, "h:1", "h", since=12.5)
    assert TableServer._logging_in(record) == table_module.LoggingIn(4, "h", 12.5, False, False)
    record.conn = Conn(version=None)  # type: ignore[assignment]
    assert TableServer._logging_in(record).spoke is False
    record.conn = Conn()  # type: ignore[assignment]
    record.role = VIEWER
    assert TableServer._logging_in(record) == table_module.LoggingIn(4, "h", 12.5, True, True)


def test_seats_are_refused_when_the_table_is_full_keeping_the_gms(saves: Path, log: pytest.LogCaptureFixture) -> None:
    table = make_table(saves, max_connections=3, gm_seats=1)
    records = []
    for ident in (1, 2):
        record = Connection(ident, f"h:{ident}", "h", role=VIEWER, conn=Conn())  # type: ignore[arg-type]
        table.pending[ident] = record
        assert table.admit(record) and ident not in table.pending
        records.append(record)
    third = Connection(3, "h:3", "h", role=None, conn=Conn())  # type: ignore[arg-type]
    table.pending[3] = third
    assert table.seat_refusal(VIEWER) == "the table is full (3 seats, 1 kept for the GM); try again later"
    assert not table.admit(third)  # no role yet: as a viewer
    assert 3 not in table.pending and 3 not in table.connections
    assert third.conn.disconnects == [(asyncssh.DISC_TOO_MANY_CONNECTIONS, "the table is full (3 seats, 1 kept for the GM); try again later")]  # type: ignore[union-attr]
    assert said(log) == ['refused #3 ""@h:3 unauthenticated: the table is full (3 seats, 1 kept for the GM); try again later']
    gm = Connection(4, "h:4", "h", role=GM, conn=Conn())  # type: ignore[arg-type]
    assert table.seat_refusal(GM) == "" and table.admit(gm)
    assert table.seat_refusal(GM) == "the table is full (3 seats); try again later"
    table.connections.pop(2)
    assert table.seat_refusal(GM) == ""  # the one GM seated counts as a GM
    assert table.seat_refusal(VIEWER) == ""


async def test_a_connection_lost_is_forgotten_and_its_session_hung_up(saves: Path, log: pytest.LogCaptureFixture) -> None:
    table = make_table(saves)
    pending = Connection(1, "h:1", "h")
    table.pending[1] = pending
    table.refusing[1] = pending
    table.lost_connection(pending, None)
    assert table.pending == {} and table.refusing == {} and said(log) == []
    table.pending[1] = pending
    table.lost_connection(pending, ConnectionResetError("reset"))
    assert said(log) == ['gone before logging in: #1 ""@h:1 unauthenticated (reset)']
    viewer = seated(table, VIEWER, 2)
    viewer.since -= 42
    table.lost_connection(viewer, None)
    assert table.connections == {} and session(viewer).hung_up == 1
    assert said(log)[-1] == 'disconnect #2 ""@10.0.0.2:4000 viewer without a key after 42s'
    table.lost_connection(viewer, None)  # twice: nothing more
    assert session(viewer).hung_up == 1 and len(said(log)) == 2
    gm = seated(table, GM, 3)
    table.lost_connection(gm, OSError("broken pipe"))
    assert said(log)[-1] == 'disconnect #3 ""@10.0.0.3:4000 gm without a key after 0s (broken pipe)'
    anonymous = seated(table, None, 4)
    anonymous.session = None
    table.lost_connection(anonymous, None)
    assert len(said(log)) == 3 and table.connections == {}


async def test_a_seats_task_that_fails_is_logged_in_one_line(saves: Path, log: pytest.LogCaptureFixture) -> None:
    table = make_table(saves)
    gate = asyncio.Event()

    async def fails() -> None:
        await gate.wait()
        raise ValueError("bad seat")

    async def fine() -> None:
        await gate.wait()

    loop = asyncio.get_running_loop()
    tasks = [loop.create_task(fails()), loop.create_task(fine()), loop.create_task(fine())]
    for task in tasks:
        table.track(task)
    assert table.tasks_running == 3
    tasks[2].cancel()
    gate.set()
    await until(lambda: table.tasks_running == 0, "the tasks done", SOON)
    assert said(log) == ["session task failed: ValueError: bad seat"]


class Sleeps:
    """The table module's asyncio with its sleeps cut short (each one recorded)."""

    def __init__(self) -> None:
        self.slept: list[float] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(asyncio, name)

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        await asyncio.sleep(0.01)


@pytest.mark.parametrize(("timeout", "period"), [(0.1, 0.05), (8.0, 2.0), (400.0, 30.0)])
async def test_the_idle_watch_looks_a_quarter_of_the_timeout_apart(saves: Path, monkeypatch: pytest.MonkeyPatch, timeout: float, period: float) -> None:
    sleeps = Sleeps()
    monkeypatch.setattr(table_module, "asyncio", sleeps)
    table = make_table(saves, idle_timeout=timeout)
    watch = asyncio.get_running_loop().create_task(table._idle_watch())
    await until(lambda: len(sleeps.slept) >= 2, "two looks", SOON)
    watch.cancel()
    assert sleeps.slept[:2] == [period, period]


async def test_an_idle_connection_is_closed(saves: Path, monkeypatch: pytest.MonkeyPatch, log: pytest.LogCaptureFixture) -> None:
    sleeps = Sleeps()
    monkeypatch.setattr(table_module, "asyncio", sleeps)
    table = make_table(saves, idle_timeout=60.0)
    idle, busy = seated(table, VIEWER, 1), seated(table, GM, 2)
    nobody = seated(table, VIEWER, 3)
    nobody.conn = None
    idle.last_activity -= 61
    busy.last_activity -= 59
    nobody.last_activity -= 100
    watch = asyncio.get_running_loop().create_task(table._idle_watch())
    await until(lambda: 1 not in table.connections, "the idle one closed", SOON)
    watch.cancel()
    assert idle.conn.disconnects == [(asyncssh.DISC_BY_APPLICATION, "idle for 60s")]  # type: ignore[union-attr]
    assert busy.conn.disconnects == []  # type: ignore[union-attr]
    assert sorted(table.connections) == [2, 3] and session(idle).hung_up == 1
    assert said(log)[0] == 'idle #1 ""@10.0.0.1:4000 viewer without a key: nothing for 61s, closing'


# ----------------------------------------------------------------- shutdown


class Child:
    def __init__(self, fails: bool = False) -> None:
        self.stopped = 0
        self.fails = fails

    async def stop(self) -> None:
        self.stopped += 1
        if self.fails:
            raise OSError("already gone")


async def test_closing_the_table_closes_every_connection_and_app(saves: Path, log: pytest.LogCaptureFixture) -> None:
    table = make_table(saves)
    hosts = table.viewer_hosts = Hosts()
    children = [Child(), Child(fails=True)]
    table.children = set(children)  # type: ignore[arg-type]
    seat, waiting, refused = seated(table, VIEWER, 1), Connection(2, "h:2", "h", conn=Conn()), Connection(3, "h:3", "h", conn=Conn())  # type: ignore[arg-type]
    table.pending[2], table.refusing[3] = waiting, refused
    bare = Connection(4, "h:4", "h")
    table.pending[4] = bare
    gate = asyncio.Event()
    task = asyncio.get_running_loop().create_task(gate.wait())
    table.track(task)
    closing = asyncio.get_running_loop().create_task(table.close())
    await until(lambda: table._closing and not table.connections, "the connections closed", SOON)
    assert not closing.done()  # the seats' tasks are waited for
    gate.set()
    await asyncio.wait_for(closing, SOON)
    assert [c.stopped for c in children] == [1, 1] and hosts.closed == 1
    for record in (seat, waiting, refused):
        assert record.conn.disconnects == [(asyncssh.DISC_BY_APPLICATION, "the table is closing")]  # type: ignore[union-attr]
    assert table.pending == {} and table.refusing == {} and session(seat).hung_up == 1
    assert said(log)[0] == "shutting down: 1 connection(s), 2 app(s)"


async def test_a_seats_task_that_never_ends_holds_shutdown_no_longer_than_five_seconds(saves: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    waits: list[float | None] = []
    real = asyncio.wait

    async def wait(tasks: Any, timeout: float | None = None) -> Any:
        waits.append(timeout)
        return await real(tasks, timeout=0.01)

    sleeps = Sleeps()
    monkeypatch.setattr(table_module, "asyncio", sleeps)
    monkeypatch.setattr(sleeps, "wait", wait, raising=False)
    table = make_table(saves)
    task = asyncio.get_running_loop().create_task(asyncio.Event().wait())
    table.track(task)
    await asyncio.wait_for(table.close(), SOON)
    task.cancel()
    assert waits == [5.0]


# ----------------------------------------------------------------- with fork: the fight preloaded


class Frozen:
    """The table module's gc and memory calls, recorded (the test's process is not frozen)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[str] = []
        monkeypatch.setattr(table_module, "gc", self)
        monkeypatch.setattr(table_module, "release_free_memory", lambda: self.calls.append("release"))
        monkeypatch.setattr(table_module, "reload_frozen", lambda: self.calls.append("reload"))
        monkeypatch.setattr(table_module, "preload", lambda: self.calls.append("preload"))

    def collect(self) -> None:
        self.calls.append("collect")

    def freeze(self) -> None:
        self.calls.append("freeze")


async def test_with_fork_the_fight_is_preloaded_and_kept_and_the_viewers_processes_nudged(saves: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    frozen = Frozen(monkeypatch)
    table = make_table(saves, spawn="fork")
    loaded = await table._read(saves / SPHINX)
    assert (loaded.name, loaded.campaign) == ("Seraph vs Sphinx", "")
    assert loaded.preloaded is not None and loaded.preloaded.path == saves / SPHINX and loaded.preloaded.saves == saves
    assert table.preloaded is None  # read, not adopted
    table._adopt(loaded)
    assert table.preloaded is loaded.preloaded and table.fight_name == "Seraph vs Sphinx"
    keeper = table._keeper
    assert keeper is not None and not keeper.done() and frozen.calls == [] and table._fight_watch is None
    hosts = table.viewer_hosts = Hosts()
    await table._load(saves / BRIDGE)
    assert table.preloaded is not None and table.preloaded.path == saves / BRIDGE and table.fight_name == "Ambush at the rope bridge"
    assert frozen.calls == ["reload"] and table._keeper is keeper
    watch = table._fight_watch
    assert watch is not None and watch.path == saves / BRIDGE
    table._watch_fight(saves / BRIDGE)  # the same fight: the same watch
    assert table._fight_watch is watch
    (saves / BRIDGE).write_bytes((saves / BRIDGE).read_bytes())
    await until(lambda: hosts.nudges >= 1, "the viewers' processes nudged", SOON)
    await table._load(saves / SPHINX)
    assert table._fight_watch is not watch and table._fight_watch is not None and table._fight_watch.path == saves / SPHINX
    assert watch._fd == -1  # the old one stopped
    nudges = hosts.nudges
    (saves / SPHINX).write_bytes((saves / SPHINX).read_bytes())
    await until(lambda: hosts.nudges > nudges, "nudged for the new fight", SOON)
    await table.close()
    await until(keeper.done, "the keeper stopped", SOON)
    assert keeper.cancelled()
    assert table._fight_watch._fd == -1
    table.viewer_hosts = None
    table._fight_written()  # no viewers' processes: nothing to nudge


async def test_with_exec_the_fight_is_only_read_for_its_name(saves: Path) -> None:
    table = make_table(saves, encounter=saves / DOCKS)
    await table._load(saves / DOCKS)
    assert table.fight_name == "The docks" and table.preloaded is None and table._keeper is None
    loaded = await table._read(saves / DOCKS)
    assert loaded == Loaded("The docks", CITY)


class Kept:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.changes = [True, False]
        self.refreshed = 0
        self.broken: Exception | None = None

    def changed(self) -> bool:
        if self.broken is not None:
            raise self.broken
        return self.changes.pop(0) if self.changes else False

    def refresh(self) -> None:
        self.refreshed += 1


async def test_the_preloaded_fight_is_kept_current_every_second(saves: Path, monkeypatch: pytest.MonkeyPatch, log: pytest.LogCaptureFixture) -> None:
    sleeps = Sleeps()
    monkeypatch.setattr(table_module, "asyncio", sleeps)
    table = make_table(saves, spawn="fork")
    keeper = asyncio.get_running_loop().create_task(table._keep_current())
    try:
        await until(lambda: len(sleeps.slept) >= 2, "nothing preloaded yet: waits on", SOON)
        kept = table.preloaded = Kept(saves / SPHINX)  # type: ignore[assignment]
        await until(lambda: kept.refreshed == 1 and not kept.changes, "a change folded in", SOON)
        kept.broken = OSError("gone")
        await until(lambda: len(said(log)) >= 1, "a failure logged", SOON)
        assert said(log)[0] == f"{saves / SPHINX}: could not follow the file: gone"
        kept.broken = table_module.TrackerError("bad")
        await until(lambda: said(log)[-1] == f"{saves / SPHINX}: could not follow the file: bad", "another logged", SOON)
        assert not keeper.done() and kept.refreshed == 1
        assert set(sleeps.slept) == {1.0}
    finally:
        keeper.cancel()


class WarmApp:
    """The app as the warm-up makes it (tracker.ui.app.TrackerApp), drawn headless."""

    made: list["WarmApp"] = []
    fails = False

    def __init__(self, *args: Any) -> None:
        self.args = args
        self.size: Any = None
        self.paused = 0
        WarmApp.made.append(self)

    def run_test(self, size: Any) -> "WarmApp":
        self.size = size
        return self

    async def __aenter__(self) -> "WarmApp":
        if WarmApp.fails:
            raise RuntimeError("no screen")
        return self

    async def __aexit__(self, *exc: Any) -> None:
        return None

    async def pause(self) -> None:
        self.paused += 1


async def test_with_fork_the_fight_is_drawn_once_before_any_app(saves: Path, monkeypatch: pytest.MonkeyPatch, log: pytest.LogCaptureFixture) -> None:
    from tracker.ui import app

    frozen = Frozen(monkeypatch)
    monkeypatch.setattr(app, "TrackerApp", WarmApp)
    monkeypatch.setattr(WarmApp, "made", [])
    table = make_table(saves, spawn="fork")
    await table._load(saves / SPHINX)
    await table._warm_up()
    assert table.preloaded is not None
    [made] = WarmApp.made
    assert made.args == (saves, saves / SPHINX, True, table.preloaded.live) and made.size == (80, 24) and made.paused == 1
    assert frozen.calls == ["collect", "release", "freeze"] and said(log) == []
    monkeypatch.setattr(WarmApp, "fails", True)
    await table._warm_up()
    assert said(log) == ["warm-up of the app failed (RuntimeError: no screen); continuing"]
    assert frozen.calls[3:] == ["collect", "release", "freeze"]
    await table.close()


# ----------------------------------------------------------------- listening (loopback)


class Created:
    """asyncssh.create_server, its arguments recorded."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
        self.real = asyncssh.create_server
        monkeypatch.setattr(asyncssh, "create_server", self)

    async def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls.append((args, kwargs))
        return await self.real(*args, **kwargs)


async def banner(port: int) -> bytes:
    reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), SOON)
    try:
        return await asyncio.wait_for(reader.readline(), SOON)
    finally:
        writer.close()


@pytest.mark.serve
async def test_the_table_listens_on_loopback_with_its_host_key(saves: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, log: pytest.LogCaptureFixture) -> None:
    created = Created(monkeypatch)
    key = tmp_path / "host_key"
    table = make_table(saves, host="127.0.0.1", port=0, host_key=key, encounter=saves / SPHINX, login_grace=7.0)
    await table.start(asyncssh.SSHServer)
    try:
        assert table.port > 0 and (await banner(table.port)).startswith(b"SSH-2.0-")
        assert table.fight == saves / SPHINX and table.fight_name == "Seraph vs Sphinx" and table.campaign is None
        [(args, kwargs)] = created.calls
        assert args == (asyncssh.SSHServer, "127.0.0.1", 0)
        assert kwargs["keepalive_interval"] == 30.0 and kwargs["keepalive_count_max"] == 3 and kwargs["login_timeout"] == 8.0 and kwargs["window"] == 262144
        assert kwargs["encoding"] is None and kwargs["line_editor"] is False
        assert (kwargs["agent_forwarding"], kwargs["x11_forwarding"], kwargs["allow_scp"]) == (False, False, False)
        [host_key] = kwargs["server_host_keys"]
        fingerprint = host_key.get_fingerprint("sha256")
        assert said(log) == [f"host key {key} created: {fingerprint}"]
        assert table._watchdog is not None and not table._watchdog.done()
    finally:
        await table.close()
    watchdog = table._watchdog
    await until(watchdog.done, "the idle watch stopped", SOON)
    assert watchdog.cancelled()
    again = make_table(saves, host="127.0.0.1", port=0, host_key=key)
    await again.start(asyncssh.SSHServer)
    try:
        assert said(log)[-1] == f"host key {key} loaded: {fingerprint}"
        assert again.fight is None and again.fight_name == ""
    finally:
        await again.close()


@pytest.mark.serve
async def test_a_fight_that_does_not_load_leaves_each_app_to_say_so(saves: Path, tmp_path: Path, log: pytest.LogCaptureFixture) -> None:
    broken = saves / "broken.toml"
    broken.write_text("[[[", encoding="utf-8")
    table = make_table(saves, host="127.0.0.1", port=0, host_key=tmp_path / "host_key", encounter=broken)
    await table.start(asyncssh.SSHServer)
    try:
        assert table.port > 0 and table.fight == broken and table.fight_name == "broken"
        assert said(log)[1] == f"{broken}: not loaded: {unreadable(broken)}"
    finally:
        await table.close()


@pytest.mark.serve
async def test_a_campaigns_table_starts_on_its_fight_and_follows_its_file(saves: Path, tmp_path: Path, log: pytest.LogCaptureFixture) -> None:
    (saves / CITY).write_text(at_revision(6), encoding="utf-8")
    table = make_table(saves, host="127.0.0.1", port=0, host_key=tmp_path / "host_key", campaign=saves / CITY)
    await table.start(asyncssh.SSHServer)
    try:
        assert table.campaign is not None and table.campaign.name == "City Nights"
        assert table.fight == saves / ROOF and table.fight_name == "The rooftop"
        assert said(log)[-1] == f"following the campaign City Nights ({saves / CITY}, inotify)"
        (saves / CITY).write_text(at_revision(8), encoding="utf-8")
        await until(lambda: table.fight == saves / MUSEUM, "the table on the museum", SOON)
    finally:
        await table.close()
    assert table._watch is not None and table._watch._fd == -1


@pytest.mark.serve
async def test_a_campaign_naming_a_fight_not_in_the_folder_leaves_the_table_waiting(saves: Path, tmp_path: Path, log: pytest.LogCaptureFixture) -> None:
    (saves / CITY).write_text(at_revision(3), encoding="utf-8")
    (saves / DOCKS).unlink()
    table = make_table(saves, host="127.0.0.1", port=0, host_key=tmp_path / "host_key", campaign=saves / CITY, encounter=None)
    await table.start(asyncssh.SSHServer)
    try:
        assert table.fight is None and table.fight_name == ""
        assert said(log)[0] == f"the campaign City Nights names the fight {DOCKS}, which is not a fight file in {saves}: the table waits"
    finally:
        await table.close()


class Pool(Hosts):
    made: list["Pool"] = []

    def __init__(self, per_process: int, saves: str) -> None:
        super().__init__()
        self.args = (per_process, saves)
        Pool.made.append(self)


@pytest.mark.serve
@pytest.mark.parametrize("per_process", [1, 2])
async def test_with_fork_the_table_preloads_draws_and_shares_viewers_processes(saves: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, log: pytest.LogCaptureFixture, per_process: int) -> None:
    from tracker.serve import viewer_processes
    from tracker.ui import app

    frozen = Frozen(monkeypatch)
    monkeypatch.setattr(app, "TrackerApp", WarmApp)
    monkeypatch.setattr(WarmApp, "made", [])
    monkeypatch.setattr(viewer_processes, "ViewerHosts", Pool)
    monkeypatch.setattr(Pool, "made", [])
    table = make_table(saves, host="127.0.0.1", port=0, host_key=tmp_path / "host_key", encounter=saves / SPHINX, spawn="fork", viewers_per_process=per_process)
    await table.start(asyncssh.SSHServer)
    try:
        assert frozen.calls == ["preload", "collect", "release", "freeze"] and len(WarmApp.made) == 1
        assert table.preloaded is not None and table.preloaded.path == saves / SPHINX and table._keeper is not None
        loaded = [m for m in said(log) if m.startswith("encounter ")]
        assert len(loaded) == 1 and re.fullmatch(rf"encounter {re.escape(str(saves / SPHINX))} loaded in [0-9]+\.[0-9]s, shared by every app", loaded[0])
        if per_process == 1:
            assert table.viewer_hosts is None and Pool.made == [] and table._fight_watch is None
        else:
            assert Pool.made == [table.viewer_hosts] and Pool.made[0].args == (2, str(saves))
            assert table._fight_watch is not None and table._fight_watch.path == saves / SPHINX
    finally:
        await table.close()
    assert Pool.made == [] or Pool.made[0].closed == 1


@pytest.mark.serve
async def test_with_fork_a_fight_that_does_not_load_is_not_drawn(saves: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, log: pytest.LogCaptureFixture) -> None:
    from tracker.ui import app

    frozen = Frozen(monkeypatch)
    monkeypatch.setattr(app, "TrackerApp", WarmApp)
    monkeypatch.setattr(WarmApp, "made", [])
    broken = saves / "broken.toml"
    broken.write_text("[[[", encoding="utf-8")
    table = make_table(saves, host="127.0.0.1", port=0, host_key=tmp_path / "host_key", encounter=broken, spawn="fork")
    await table.start(asyncssh.SSHServer)
    try:
        assert frozen.calls == ["preload"] and WarmApp.made == [] and table.preloaded is None
        assert not any(m.startswith("encounter ") for m in said(log))
    finally:
        await table.close()


@pytest.mark.serve
async def test_a_campaigns_fight_that_does_not_load_is_named_by_its_file(saves: Path, tmp_path: Path, log: pytest.LogCaptureFixture) -> None:
    (saves / CITY).write_text(at_revision(6), encoding="utf-8")
    (saves / ROOF).write_text("[[[", encoding="utf-8")
    table = make_table(saves, host="127.0.0.1", port=0, host_key=tmp_path / "host_key", campaign=saves / CITY)
    await table.start(asyncssh.SSHServer)
    try:
        assert table.fight == saves / ROOF and table.fight_name == "city-nights-2-roof"
        assert any(m.startswith(f"{saves / ROOF}: not loaded: ") for m in said(log))
    finally:
        await table.close()


def test_the_seats_kept_for_gms_count_each_gm_once(saves: Path) -> None:
    table = make_table(saves, max_connections=4, gm_seats=2)
    seated(table, GM, 1)
    seated(table, VIEWER, 2)
    assert table.seat_refusal(VIEWER) == ""
    seated(table, VIEWER, 3)  # two seats left, both kept for GMs
    assert table.seat_refusal(VIEWER) == "the table is full (4 seats, 2 kept for the GM); try again later"
    assert table.seat_refusal(GM) == ""


def test_a_seat_refused_to_a_connection_no_longer_waiting_is_refused_all_the_same(saves: Path, log: pytest.LogCaptureFixture) -> None:
    table = make_table(saves)
    record = Connection(5, "h:5", "h", conn=Conn())  # type: ignore[arg-type]
    table.refuse_seat(record, "the table is closing")
    assert record.conn.disconnects == [(asyncssh.DISC_TOO_MANY_CONNECTIONS, "the table is closing")]  # type: ignore[union-attr]


def test_the_names_a_key_gives_that_are_nobodys_are_cut_in_the_log(saves: Path, log: pytest.LogCaptureFixture) -> None:
    table = campaign_table(saves, 2)
    player = seated(table, PLAYER, 1, combatants=("Q" * 300,))
    table.seat_info(player)
    [line] = said(log)
    assert line.endswith(": the key names " + "Q" * 200 + ", no character of the campaign City Nights")


def test_a_refusal_told_to_a_connection_no_longer_waiting_is_told_all_the_same(saves: Path) -> None:
    table = make_table(saves)
    record = Connection(6, "h:6", "h", conn=Conn(), refusal="too many")  # type: ignore[arg-type]
    table.tell_refusal(record)
    assert record.conn.disconnects == [(asyncssh.DISC_TOO_MANY_CONNECTIONS, "too many")]  # type: ignore[union-attr]


class Listener:
    """asyncssh's listener, as the table closes it."""

    def __init__(self) -> None:
        self.closed = 0

    def close(self) -> None:
        self.closed += 1

    async def wait_closed(self) -> None:
        await asyncio.Event().wait()  # never says it closed


async def test_shutdown_waits_five_seconds_at_most_for_the_listener(saves: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    waited: list[Any] = []

    async def wait_for(awaitable: Any, timeout: Any) -> None:
        waited.append(timeout)
        awaitable.close()  # never awaited: the time is out at once
        raise asyncio.TimeoutError

    sleeps = Sleeps()
    monkeypatch.setattr(table_module, "asyncio", sleeps)
    monkeypatch.setattr(sleeps, "wait_for", wait_for, raising=False)
    table = make_table(saves)
    listener = table._listener = Listener()  # type: ignore[assignment]
    await asyncio.wait_for(table.close(), SOON)
    assert waited == [5.0] and listener.closed == 1
