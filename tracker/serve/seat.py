"""What runs on one seat of `tracker serve`: the app for a GM, a player or a viewer, on the
table's fight, signed with the name the seat's key gives.

Decisions: docs/decisions/0022-seat-identity.md, docs/decisions/0050-serve-campaign.md,
docs/decisions/0054-replay.md (the GM's replay)
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sys
import threading
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tracker.engine import TrackerError
from tracker.serve import control
from tracker.serve.keys import GM, PLAYER, VIEWER

if TYPE_CHECKING:
    from tracker.reading.roles import Role
    from tracker.ui.app import TrackerApp
    from tracker.play.live import Live

SEAT_FD = "TRACKER_SEAT_FD"
NONE_OF_YOURS = "No combatant of yours is in this fight: you watch it as a viewer until the GM moves the table"
NOT_OPENED = "the table's fight could not be opened; the GM can see why"


@dataclass(frozen=True, slots=True)
class SeatInfo:
    role: str  # keys.GM, PLAYER or VIEWER
    name: str = ""  # who, from the key's line ("" for a viewer without a key)
    combatants: tuple[str, ...] = ()  # a player's, from the players' keys file
    fight: str = ""  # the table's fight (a path), "" while the GM has not opened one
    fight_name: str = ""
    notice: str = ""  # said when the app is up
    saves: str = ""
    replaying: int | None = None  # the segment the GM's replay shows as the seat opens (None: none)
    campaign: str = ""  # the campaign whose fights the table serves ("" : none)
    pcs: tuple[str, ...] = ()  # a player's characters at a campaign's table, by the campaign's id

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["combatants"] = list(self.combatants)
        data["pcs"] = list(self.pcs)
        return data

    @classmethod
    def from_json(cls, data: object) -> "SeatInfo":
        if not isinstance(data, dict) or data.get("role") not in (GM, PLAYER, VIEWER):
            raise ValueError("not a seat")
        text = {k: str(data.get(k, "")) for k in ("name", "fight", "fight_name", "notice", "saves", "campaign")}

        def words(key: str) -> tuple[str, ...]:
            found = data.get(key, [])
            return tuple(str(n) for n in found) if isinstance(found, (list, tuple)) else ()

        return cls(str(data["role"]), combatants=words("combatants"), pcs=words("pcs"), replaying=replay_segment(data.get("replaying")), **text)


def replay_segment(value: object) -> int | None:
    """A replay segment as the server's line carries it: a whole number from 0, else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def player_role(live: "Live", combatants: tuple[str, ...], pcs: tuple[str, ...] | None = None) -> "Role | None":
    """The player's role for those of its combatants that are in the fight, or None if
    none is. At a campaign's table (`pcs` given), the campaign's characters the server
    found for the key, by their id: the same character in every fight, whatever it is
    called, and never a foe that took its name. Else each of `combatants` is the
    combatant that first carried the name in this fight, as the fight calls it now."""
    from tracker.reading.roles import Role

    if pcs is not None:
        return Role.of_characters(live.encounter, pcs)
    return Role.of(live.encounter, combatants)[0]  # by identity: a rename keeps them


def build_app(info: SeatInfo, live: "Live | None" = None, moved: Any = None, sock: socket.socket | None = None) -> "TrackerApp":
    """The app for this seat; `live`: the fight already loaded (inherited from the server),
    else it is opened here. Raises TrackerError if the fight cannot be opened."""
    from rulesets.dice import RandomDice
    from tracker.reading.roles import Role
    from tracker.ui.app import TrackerApp
    from tracker.play.live import Live
    from tracker.ui.seat import Seat

    notices = [info.notice] if info.notice else []
    role: Role | None = None
    viewer = info.role != GM
    if live is None and info.fight:
        live = Live.open(Path(info.fight), viewer=viewer)
    if live is not None:
        if info.role == PLAYER:
            role = player_role(live, info.combatants, info.pcs if info.campaign else None)
            if role is None:
                notices.append(NONE_OF_YOURS)
        live.seat(role or (Role.viewer() if viewer else Role.gm()))  # from the key; the guard checks every change
        live.session.user = info.name if info.role != VIEWER else ""  # a viewer signs nothing
        # Dice of its own: a copy of the server's generator would roll, in every app
        # forked from it, the same numbers in the same order.
        live.session.dice = RandomDice()
    gm = info.role == GM
    seat = Seat(
        info.role, info.fight_name, "\n".join(notices), moved if gm else None,
        replayed=replay_reporter(sock) if gm else None, listen=replay_listener(sock) if not gm else None,
        replaying=None if gm else info.replaying,
    )
    file = Path(info.fight) if info.fight else None
    return TrackerApp(Path(info.saves), file, viewer and role is None, live, user=info.name, role=role, seat=seat)


def reporter(sock: socket.socket | None) -> Any:
    """The GM's `Seat.moved`: tell the server, on this seat's own socket, where the table went."""
    if sock is None:
        return None

    def moved(path: Path) -> None:
        with contextlib.suppress(OSError):  # the server has gone: the app is about to end too
            control.send(sock, {"op": "move", "path": str(path)})

    return moved


def replay_reporter(sock: socket.socket | None) -> Any:
    """The GM's `Seat.replayed`: tell the server the segment the GM's replay shows (None: ended)."""
    if sock is None:
        return None

    def replayed(segment: int | None) -> None:
        with contextlib.suppress(OSError):  # the server has gone: the app is about to end too
            control.send(sock, {"op": "replay", "segment": segment})

    return replayed


def replay_listener(sock: socket.socket | None) -> Any:
    """A player's or viewer's `Seat.listen`: on the app's event loop, hear the GM's replay
    from the server on this seat's line and pass each segment to `follow` (the app's
    `follow_replay`). Only the server holds the other end (tracker.serve.control)."""
    if sock is None:
        return None

    def listen(follow: Any) -> None:
        import asyncio

        loop = asyncio.get_running_loop()
        sock.setblocking(False)

        def readable() -> None:
            message = control.next_message(sock)
            if message is None:  # the server has gone: the app ends with the pty
                with contextlib.suppress(ValueError, OSError):
                    loop.remove_reader(sock.fileno())
                return
            if message.get("op") == "replay":
                follow(replay_segment(message.get("segment")))

        loop.add_reader(sock.fileno(), readable)

    return listen


def listen(app: "TrackerApp", sock: socket.socket) -> threading.Thread:
    """What the server says to the GM's app on its line (`{"op": "say"}`: why the table
    did not move, or that the campaign moved it), shown as a notification. On a thread
    of its own: the app's event loop never waits on the socket."""

    def show(text: str) -> None:
        for _ in range(200):  # a line that comes while the app is still starting waits for it (10 s at most)
            try:
                app.call_from_thread(app.notify, text, severity="warning", timeout=12)
                return
            except RuntimeError:  # not running yet (or any more)
                if app.return_code is not None:
                    return
                threading.Event().wait(0.05)

    def read() -> None:
        while True:
            try:
                message, fd = control.receive(sock)
            except OSError:
                return
            if fd is not None:
                os.close(fd)
            if message is None:
                return
            if message.get("op") == "say":
                show(str(message.get("text", ""))[:2000])

    thread = threading.Thread(target=read, name="table-news", daemon=True)
    thread.start()
    return thread


def run(info: SeatInfo, live: "Live | None" = None, sock: socket.socket | None = None) -> int:
    """Run the seat's app on this terminal; the exit status."""
    try:
        app = build_app(info, live, reporter(sock), sock)
    except TrackerError as exc:
        message = str(exc) if info.role == GM else NOT_OPENED
        sys.stderr.write(f"tracker: {message}\r\n")
        return 1
    if sock is not None and info.role == GM:
        listen(app, sock)
    result = app.run()
    return int(result or 0)


def main() -> int:
    """`python -m tracker.serve.seat` (`--spawn exec`): the seat from the inherited socket."""
    try:
        fd = int(os.environ.get(SEAT_FD, ""))
        sock = socket.socket(fileno=fd)
    except (ValueError, OSError):
        sys.stderr.write("tracker: this runs only as a seat started by `tracker serve`\n")
        return 2
    try:
        if sock.family != socket.AF_UNIX or not control.peer_is_parent(sock):
            raise ValueError("not the server")
        message, extra = control.receive(sock)
        if extra is not None:
            os.close(extra)
        info = SeatInfo.from_json((message or {}).get("seat"))
    except (ValueError, OSError, json.JSONDecodeError):
        sys.stderr.write("tracker: this runs only as a seat started by `tracker serve`\n")
        return 2
    os.environ.pop(SEAT_FD, None)
    return run(info, None, sock)


if __name__ == "__main__":
    raise SystemExit(main())
