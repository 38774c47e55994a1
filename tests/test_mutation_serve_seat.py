"""Direct tests of tracker.serve.seat: what runs on one seat of `tracker serve` (the module
docstring, decisions 0022, 0050 and 0054, docs/guide/serve.md and players.md). A seat is
what its key says and nothing more: a player holds only the combatants the key names
that are in the fight (at a campaign's table, the campaign's characters by their id,
never a foe that took a name), a player with none of theirs in the fight watches as a
viewer, a viewer signs nothing, and what comes over the seat's line is checked before it
is believed. The app is built, never run (no screen): what it would show is its state."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rulesets.dice import RandomDice
from tracker.engine import TrackerError
from tracker.play.live import Live
from tracker.reading.viewing import sight
from tracker.serve import control, seat
from tracker.serve.keys import GM, PLAYER, VIEWER
from tracker.serve.seat import NONE_OF_YOURS, NOT_OPENED, SEAT_FD, SeatInfo, build_app, player_role, replay_listener, replay_reporter, replay_segment, reporter
from tests.helpers import until

SOON = 10.0  # seconds: what is waited for takes milliseconds; a broken one fails in this time

SAVES = Path(__file__).resolve().parent.parent / "saves"


@pytest.fixture
def line() -> Iterator[tuple[socket.socket, socket.socket]]:
    """The server's end and the seat's end of a seat's line."""
    server, mine = control.pair()
    try:
        yield server, mine
    finally:
        server.close()
        mine.close()


def copy_save(folder: Path, name: str) -> Path:
    shutil.copy(SAVES / name, folder / name)
    return folder / name


# ----------------------------------------------------------------- SeatInfo on the line


def test_a_seat_goes_over_the_line_and_comes_back_the_same() -> None:
    info = SeatInfo(PLAYER, "bob@laptop", ("Seraph", "Nyx"), "/saves/docks.toml", "The docks", "the GM moved the table", "/saves", 4, "/saves/city.campaign.toml", ("pc1", "pc2"))
    data = info.to_json()
    assert data == {
        "role": PLAYER, "name": "bob@laptop", "combatants": ["Seraph", "Nyx"], "fight": "/saves/docks.toml", "fight_name": "The docks",
        "notice": "the GM moved the table", "saves": "/saves", "replaying": 4, "campaign": "/saves/city.campaign.toml", "pcs": ["pc1", "pc2"],
    }
    assert SeatInfo.from_json(data) == info


def test_a_seat_with_only_its_role_is_an_empty_viewer() -> None:
    assert SeatInfo.from_json({"role": VIEWER}) == SeatInfo(VIEWER, "", (), "", "", "", "", None, "", ())
    assert SeatInfo(VIEWER) == SeatInfo(VIEWER, "", (), "", "", "", "", None, "", ())


@pytest.mark.parametrize("data", [None, [], "gm", ["role", "gm"], {}, {"role": "admin"}, {"role": "GM"}, {"role": None}, {"name": "alice"}, {"role": ["gm"]}])
def test_anything_not_a_seat_is_refused(data: object) -> None:
    with pytest.raises(ValueError, match="not a seat"):
        SeatInfo.from_json(data)


@pytest.mark.parametrize("role", [GM, PLAYER, VIEWER])
def test_each_of_the_three_roles_is_a_seat(role: str) -> None:
    assert SeatInfo.from_json({"role": role}).role == role


def test_a_combatants_list_that_is_not_a_list_names_nobody() -> None:
    """A string is not split into one-letter combatants, a mapping not read as names."""
    for odd in ("Seraph", {"Seraph": 1}, 7, None):
        info = SeatInfo.from_json({"role": PLAYER, "combatants": odd, "pcs": odd})
        assert info.combatants == () and info.pcs == ()
    info = SeatInfo.from_json({"role": PLAYER, "combatants": ("Seraph", 2), "pcs": ["pc1", 3]})
    assert info.combatants == ("Seraph", "2") and info.pcs == ("pc1", "3")


def test_every_text_field_is_read_as_text() -> None:
    info = SeatInfo.from_json({"role": GM, "name": 5, "fight": 1, "fight_name": 2, "notice": 3, "saves": 4, "campaign": 6})
    assert (info.name, info.fight, info.fight_name, info.notice, info.saves, info.campaign) == ("5", "1", "2", "3", "4", "6")


@pytest.mark.parametrize(("value", "segment"), [(0, 0), (1, 1), (40, 40), (-1, None), (True, None), (False, None), ("3", None), (2.0, None), (None, None), ([1], None)])
def test_a_replay_segment_is_a_whole_number_from_nought(value: object, segment: int | None) -> None:
    assert replay_segment(value) == segment
    assert SeatInfo.from_json({"role": VIEWER, "replaying": value}).replaying == segment


# ----------------------------------------------------------------- a player's role


def test_a_players_role_is_the_named_combatants_in_the_fight(tmp_path: Path) -> None:
    live = Live.open(copy_save(tmp_path, "seraph-vs-sphinx.toml"))
    role = player_role(live, ("Seraph", "Nobody"))
    assert role is not None and role.is_player and role.combatants == ("Seraph",)
    assert player_role(live, ("Nobody",)) is None
    assert player_role(live, ()) is None


def test_at_a_campaigns_table_the_characters_are_found_by_their_id_not_their_name(tmp_path: Path) -> None:
    """The docks: Seraph is pc1, Nyx pc2, the Thugs no character of anyone's."""
    live = Live.open(copy_save(tmp_path, "city-nights-1-docks.toml"))
    role = player_role(live, ("Thug 1",), ("pc2",))
    assert role is not None and role.combatants == ("Nyx",) and role.pcs == ("pc2",)
    assert player_role(live, ("Seraph",), ("pc9",)) is None  # the name given counts for nothing here
    assert player_role(live, ("Thug 1",), ()) is None
    by_name = player_role(live, ("Thug 1",))  # outside a campaign, the key's names
    assert by_name is not None and by_name.combatants == ("Thug 1",)


# ----------------------------------------------------------------- the seat's app


def served(tmp_path: Path, role: str, name: str = "bob@laptop", combatants: tuple[str, ...] = ("Seraph",), save: str = "seraph-vs-sphinx.toml", **more: Any) -> SeatInfo:
    path = copy_save(tmp_path, save)
    return SeatInfo(role, name, combatants, str(path), "Seraph vs Sphinx", saves=str(tmp_path), **more)


def test_the_gms_seat_is_the_gm_signed_with_the_keys_name(tmp_path: Path, line: tuple[socket.socket, socket.socket]) -> None:
    _server, mine = line
    moved = reporter(mine)
    info = served(tmp_path, GM, "alice@desk", replaying=3, notice="hello")
    app = build_app(info, None, moved, mine)
    live = app.live
    assert live is not None and live.path == Path(info.fight)
    assert live.session.role.is_gm and not live.viewer and not app.viewer
    assert live.session.user == "alice@desk" and app.user == "alice@desk"
    assert app.role is None and app.file == Path(info.fight) and app.saves == tmp_path
    assert app.seat is not None
    assert (app.seat.kind, app.seat.fight, app.seat.notice) == (GM, "Seraph vs Sphinx", "hello")
    assert app.seat.moved is moved and app.seat.replayed is not None and app.seat.listen is None
    assert app.seat.replaying is None  # the GM's replay is the GM's own


def test_a_player_holds_their_combatants_and_hears_the_gms_replay(tmp_path: Path, line: tuple[socket.socket, socket.socket]) -> None:
    _server, mine = line
    info = served(tmp_path, PLAYER, "bob@laptop", ("Seraph",), replaying=2)
    app = build_app(info, None, lambda path: None, mine)
    live = app.live
    assert live is not None and live.viewer and not app.viewer  # sees as a viewer does, and their own
    assert live.session.role == app.role and app.role is not None
    assert app.role.is_player and app.role.combatants == ("Seraph",)
    assert live.session.user == "bob@laptop"
    assert app.seat is not None and app.seat.kind == PLAYER
    assert app.seat.moved is None and app.seat.replayed is None  # only the GM moves the table or replays it
    assert app.seat.listen is not None and app.seat.replaying == 2
    assert app.seat.notice == ""


def test_a_player_with_nothing_in_the_fight_watches_as_a_viewer(tmp_path: Path) -> None:
    info = served(tmp_path, PLAYER, "carol", ("Nyx",), notice="the GM moved the table to Seraph vs Sphinx")
    app = build_app(info)
    live = app.live
    assert live is not None and app.role is None and app.viewer
    assert live.session.role.is_viewer and live.viewer
    assert app.seat is not None and app.seat.notice == f"the GM moved the table to Seraph vs Sphinx\n{NONE_OF_YOURS}"
    with pytest.raises(TrackerError):
        live.run(lambda session: session.execute("remove Seraph"))


def test_a_player_with_nothing_in_the_fight_is_told_so_alone(tmp_path: Path) -> None:
    app = build_app(served(tmp_path, PLAYER, "carol", ("Nyx",)))
    assert app.seat is not None and app.seat.notice == NONE_OF_YOURS  # no empty line before it


def test_a_player_at_a_campaigns_table_is_given_the_character_by_its_id(tmp_path: Path) -> None:
    info = served(tmp_path, PLAYER, "dora", ("Thug 1",), save="city-nights-1-docks.toml", campaign=str(tmp_path / "city.campaign.toml"), pcs=("pc2",))
    app = build_app(info)
    assert app.role is not None and app.role.combatants == ("Nyx",) and app.role.pcs == ("pc2",)
    outside = served(tmp_path, PLAYER, "dora", ("Thug 1",), save="city-nights-1-docks.toml", pcs=("pc2",))  # no campaign: the names
    app = build_app(outside)
    assert app.role is not None and app.role.combatants == ("Thug 1",)


def test_a_viewer_signs_nothing_and_changes_nothing(tmp_path: Path, line: tuple[socket.socket, socket.socket]) -> None:
    _server, mine = line
    info = served(tmp_path, VIEWER, "eve@somewhere", ("Seraph",), replaying=0)
    app = build_app(info, None, lambda path: None, mine)
    live = app.live
    assert live is not None and live.viewer and app.viewer and app.role is None
    assert live.session.role.is_viewer and live.session.user == ""
    assert app.seat is not None and app.seat.kind == VIEWER and app.seat.notice == ""
    assert app.seat.moved is None and app.seat.replayed is None and app.seat.listen is not None and app.seat.replaying == 0
    with pytest.raises(TrackerError):
        live.run(lambda session: session.execute("remove Seraph"))


def test_hidden_combatants_stay_hidden_from_a_viewers_and_a_players_seat(tmp_path: Path) -> None:
    gm = build_app(served(tmp_path, GM, "alice")).live
    assert gm is not None
    gm.run(lambda session: session.execute("add Lurker hidden=true"))
    gm.store.flush()
    assert "Lurker" in sight(gm.encounter, gm.session.role).names()
    for role in (VIEWER, PLAYER):
        info = SeatInfo(role, "bob", ("Seraph",), str(tmp_path / "seraph-vs-sphinx.toml"), "Seraph vs Sphinx", saves=str(tmp_path))
        live = build_app(info).live
        assert live is not None and "Lurker" in live.encounter.combatants
        assert sight(live.encounter, live.session.role).names() == ["Seraph", "Sphinx"]


def served_again(tmp_path: Path, role: str) -> SeatInfo:
    return SeatInfo(role, "", (), str(tmp_path / "seraph-vs-sphinx.toml"), "Seraph vs Sphinx", saves=str(tmp_path))


def test_a_seat_rolls_dice_of_its_own(tmp_path: Path) -> None:
    live = Live.open(copy_save(tmp_path, "seraph-vs-sphinx.toml"))
    servers = live.session.dice
    app = build_app(served_again(tmp_path, GM), live)
    assert app.live is live  # the fight the server loaded, not opened again
    assert isinstance(live.session.dice, RandomDice) and live.session.dice is not servers


def test_a_seat_given_the_fight_holds_the_role_its_key_gives(tmp_path: Path) -> None:
    live = Live.open(copy_save(tmp_path, "seraph-vs-sphinx.toml"))  # as the server loaded it: the GM's
    app = build_app(SeatInfo(VIEWER, "eve", (), str(live.path), "x", saves=str(tmp_path)), live)
    assert live.session.role.is_viewer and live.viewer and app.viewer and live.session.user == ""


def test_a_seat_before_the_gm_opens_a_fight_has_none(tmp_path: Path) -> None:
    for role in (GM, PLAYER, VIEWER):
        app = build_app(SeatInfo(role, "bob", ("Seraph",), saves=str(tmp_path)))
        assert app.live is None and app.file is None and app.role is None
        assert app.viewer is (role != GM)
        assert app.seat is not None and app.seat.notice == ""  # nothing to say "none of yours" about yet


def test_a_fight_that_cannot_be_opened_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(TrackerError):
        build_app(SeatInfo(GM, "alice", fight=str(tmp_path / "gone.toml"), saves=str(tmp_path)))


# ----------------------------------------------------------------- the seat's line


def test_the_gm_tells_the_server_where_the_table_moved(line: tuple[socket.socket, socket.socket]) -> None:
    server, mine = line
    assert reporter(None) is None
    moved = reporter(mine)
    moved(Path("/saves/next.toml"))
    assert control.receive(server) == ({"op": "move", "path": "/saves/next.toml"}, None)
    server.close()
    moved(Path("/saves/after.toml"))  # the server has gone: nothing raised


def test_the_gm_tells_the_server_the_replays_segment(line: tuple[socket.socket, socket.socket]) -> None:
    server, mine = line
    assert replay_reporter(None) is None
    replayed = replay_reporter(mine)
    replayed(3)
    replayed(None)
    assert control.receive(server) == ({"op": "replay", "segment": 3}, None)
    assert control.receive(server) == ({"op": "replay", "segment": None}, None)
    server.close()
    replayed(4)


def test_a_players_seat_follows_the_gms_replay_and_nothing_else(line: tuple[socket.socket, socket.socket]) -> None:
    server, mine = line
    assert replay_listener(None) is None
    listen = replay_listener(mine)
    heard: list[int | None] = []

    async def follow() -> bool:
        loop = asyncio.get_running_loop()
        listen(heard.append)
        control.send(server, {"op": "say", "text": "not for a player"})
        control.send(server, {"op": "replay", "segment": 5})
        control.send(server, {"op": "replay", "segment": -2})
        control.send(server, {"op": "replay", "segment": "7"})
        control.send(server, {"op": "replay"})
        for _ in range(400):
            if len(heard) == 4:
                break
            await asyncio.sleep(0.01)
        server.close()
        for _ in range(400):
            await asyncio.sleep(0.01)
            if not loop._selector.get_map() or mine.fileno() not in loop._selector.get_map():  # type: ignore[attr-defined]
                return True
        return False

    removed = asyncio.run(follow())
    assert heard == [5, None, None, None]
    assert not mine.getblocking()
    assert removed  # the server gone: the seat stops reading its line


class NewsApp:
    """What `listen` needs of an app: `call_from_thread`, `notify`, `return_code`; it fails
    as Textual's does until the app runs."""

    def __init__(self, running_after: int = 0, return_code: int | None = None) -> None:
        self.notes: list[tuple[str, dict[str, Any]]] = []
        self.refusals = running_after
        self.return_code = return_code
        self.calls = 0

    def notify(self, text: str, **options: Any) -> None:
        self.notes.append((text, options))

    def call_from_thread(self, callback: Any, *args: Any, **kwargs: Any) -> None:
        self.calls += 1
        if self.refusals:
            self.refusals -= 1
            raise RuntimeError("App is not running")
        callback(*args, **kwargs)


async def test_the_gm_is_told_what_the_server_says_and_only_that(line: tuple[socket.socket, socket.socket]) -> None:
    server, mine = line
    app = NewsApp(running_after=3)
    thread = seat.listen(app, mine)  # type: ignore[arg-type]
    assert thread.daemon and thread.name == "table-news"
    r, w = os.pipe()
    try:
        control.send(server, {"op": "say", "text": "the table did not move"}, w)
        control.send(server, {"op": "move", "path": "x"})
        control.send(server, {"op": "say", "text": "x" * 3000})
        control.send(server, {"op": "say"})
        await until(lambda: len(app.notes) == 3, "the notes", SOON)
        os.close(w)
        assert os.read(r, 1) == b""  # the descriptor sent along was closed: no writer left
    finally:
        os.close(r)
    assert app.notes == [
        ("the table did not move", {"severity": "warning", "timeout": 12}),
        ("x" * 2000, {"severity": "warning", "timeout": 12}),
        ("", {"severity": "warning", "timeout": 12}),
    ]
    server.close()
    thread.join(5)
    assert not thread.is_alive()


async def test_a_note_for_an_app_that_has_ended_is_dropped(line: tuple[socket.socket, socket.socket]) -> None:
    server, mine = line
    app = NewsApp(running_after=1000, return_code=0)
    thread = seat.listen(app, mine)  # type: ignore[arg-type]
    control.send(server, {"op": "say", "text": "too late"})
    control.send(server, {"op": "say", "text": "later still"})
    await until(lambda: app.calls == 2, "both tried", SOON)
    server.close()
    thread.join(5)
    assert not thread.is_alive() and app.notes == [] and app.calls == 2


def test_a_broken_line_ends_the_news(line: tuple[socket.socket, socket.socket]) -> None:
    _server, mine = line
    app = NewsApp()
    thread = seat.listen(app, mine)  # type: ignore[arg-type]
    mine.shutdown(socket.SHUT_RDWR)
    thread.join(5)
    assert not thread.is_alive()


# ----------------------------------------------------------------- run and main


def test_a_fight_that_cannot_be_opened_is_told_to_the_gm_and_kept_from_the_others(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gone = str(tmp_path / "gone.toml")
    assert seat.run(SeatInfo(GM, "alice", fight=gone, saves=str(tmp_path))) == 1
    err = capsys.readouterr().err
    assert err.startswith("tracker: ") and err.endswith("\r\n") and NOT_OPENED not in err and "gone.toml" in err
    for role in (PLAYER, VIEWER):
        assert seat.run(SeatInfo(role, "bob", ("Seraph",), fight=gone, saves=str(tmp_path))) == 1
        assert capsys.readouterr().err == f"tracker: {NOT_OPENED}\r\n"


@pytest.mark.parametrize(("role", "result", "status"), [(GM, None, 0), (GM, 3, 3), (PLAYER, 0, 0), (VIEWER, 5, 5)])
def test_run_gives_the_apps_exit_status_and_listens_for_the_gm_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, line: tuple[socket.socket, socket.socket], role: str, result: int | None, status: int,
) -> None:
    from tracker.ui.app import TrackerApp

    _server, mine = line
    ran: list[Any] = []
    monkeypatch.setattr(TrackerApp, "run", lambda app: ran.append(app) or result)
    listened: list[Any] = []
    monkeypatch.setattr(seat, "listen", lambda app, sock: listened.append((app, sock)))
    info = served(tmp_path, role)
    assert seat.run(info, None, mine) == status
    assert len(ran) == 1
    app = ran[0]
    assert listened == ([(app, mine)] if role == GM else [])
    assert app.seat is not None
    if role == GM:
        assert app.seat.moved is not None and app.seat.replayed is not None
    else:
        assert app.seat.listen is not None
    assert seat.run(served_again(tmp_path, role), None, None) == status
    assert len(listened) == (1 if role == GM else 0)  # no line: nothing to listen on
    live = Live.open(tmp_path / "seraph-vs-sphinx.toml")  # as the server holds it
    assert seat.run(served_again(tmp_path, role), live, None) == status
    assert ran[-1].live is live  # the fight given, not opened again


def test_a_seat_started_by_hand_is_refused(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], line: tuple[socket.socket, socket.socket], tmp_path: Path) -> None:
    said = "tracker: this runs only as a seat started by `tracker serve`\n"
    monkeypatch.delenv(SEAT_FD, raising=False)
    assert seat.main() == 2
    assert capsys.readouterr().err == said
    monkeypatch.setenv(SEAT_FD, "three")
    assert seat.main() == 2
    assert capsys.readouterr().err == said
    with open(tmp_path / "file", "w") as not_a_socket:
        monkeypatch.setenv(SEAT_FD, str(os.dup(not_a_socket.fileno())))
        assert seat.main() == 2
        assert capsys.readouterr().err == said
    # A line from this process, not the parent that started it, even one that sends a seat.
    server, mine = line
    ran: list[SeatInfo] = []
    monkeypatch.setattr(seat, "run", lambda info, live, sock: ran.append(info) or 0)
    control.send(server, {"seat": SeatInfo(GM, "mallory").to_json()})
    monkeypatch.setenv(SEAT_FD, str(os.dup(mine.fileno())))
    assert seat.main() == 2 and ran == []
    assert capsys.readouterr().err == said
    # A socket that is not a local one.
    inet = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    monkeypatch.setenv(SEAT_FD, str(inet.detach()))
    monkeypatch.setattr(control, "peer_is_parent", lambda sock: True)
    assert seat.main() == 2
    assert capsys.readouterr().err == said


def started(monkeypatch: pytest.MonkeyPatch, mine: socket.socket) -> list[Any]:
    """main() as the seat the server started: its line's descriptor in the environment,
    the peer taken as the parent (it is this process here)."""
    monkeypatch.setenv(SEAT_FD, str(os.dup(mine.fileno())))
    monkeypatch.setattr(control, "peer_is_parent", lambda sock: True)
    ran: list[Any] = []

    def run(info: SeatInfo, live: Any, sock: socket.socket) -> int:
        ran.append((info, live, sock.fileno(), os.environ.get(SEAT_FD)))
        return 7

    monkeypatch.setattr(seat, "run", run)
    return ran


def test_the_seat_the_server_sends_runs(monkeypatch: pytest.MonkeyPatch, line: tuple[socket.socket, socket.socket]) -> None:
    server, mine = line
    ran = started(monkeypatch, mine)
    fd = int(os.environ[SEAT_FD])
    info = SeatInfo(PLAYER, "bob", ("Seraph",), "/saves/f.toml", "F", saves="/saves")
    r, w = os.pipe()
    os.close(r)
    control.send(server, {"seat": info.to_json()}, w)
    os.close(w)
    assert seat.main() == 7
    assert ran == [(info, None, fd, None)]  # the descriptor no longer in the environment for the app


@pytest.mark.parametrize("message", [{}, {"seat": None}, {"seat": {"role": "root"}}, {"other": {"role": "gm"}}])
def test_a_seat_the_server_did_not_send_is_refused(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], line: tuple[socket.socket, socket.socket], message: dict[str, Any]) -> None:
    server, mine = line
    ran = started(monkeypatch, mine)
    control.send(server, message)
    assert seat.main() == 2 and ran == []
    assert capsys.readouterr().err == "tracker: this runs only as a seat started by `tracker serve`\n"


def test_a_line_closed_before_the_seat_is_sent_is_refused(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], line: tuple[socket.socket, socket.socket]) -> None:
    server, mine = line
    ran = started(monkeypatch, mine)
    server.close()
    assert seat.main() == 2 and ran == []


def test_a_descriptor_sent_with_the_seat_is_closed(monkeypatch: pytest.MonkeyPatch, line: tuple[socket.socket, socket.socket]) -> None:
    server, mine = line
    started(monkeypatch, mine)
    r, w = os.pipe()
    try:
        control.send(server, {"seat": {"role": VIEWER}}, w)
        os.close(w)
        assert seat.main() == 7
        assert os.read(r, 1) == b""  # every writer closed
    finally:
        os.close(r)
