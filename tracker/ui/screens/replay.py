"""The replay screen: the encounter screen, read-only, showing the fight as it stood at a
chosen segment (`w` on the encounter screen, `tracker open FILE --replay`).

Every pane (clock, timeline, upcoming list, roster, detail, log) draws from a
`ReplayView`: a `Live` whose encounter is the replay's fold at the segment shown
(tracker.play.replaying, tracker.engine.replay) and whose role is the reader's as it was then,
so what a player or viewer may see is still `tracker.reading.viewing.sight`'s, at that segment (a
combatant hidden then is hidden, even if shown later). Its `run` refuses every change,
and the screen binds only the REPLAY table (tracker.ui.commands): no key changes the
fight. Esc pops it, and the encounter screen under it, which kept following the fight
all along, shows it as it stands now. The clock bar says "replay S/LAST" first; the
timeline marks with `▽` the next segment where anything happens, and the ends of the
actions that land on it.

At a served table (tracker.serve) the GM's replay is shown to everyone: the GM's screen
tells the server each segment it shows (`Seat.replayed`), the server tells the other
seats, and each seat's app opens a screen like this one on its own copy of the fight
(`follow`), moving with the GM's and leaving with it; a seat computes its own view, so
nothing but a segment number travels. A following screen (`FollowingScreen`) offers
only what does not move it (FOLLOWING); its esc says who leads.

Decisions: docs/decisions/0054-replay.md
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from textual.timer import Timer

from tracker.engine import TrackerError
from tracker.engine.replay import Replay
from tracker.play.replaying import Replaying
from tracker.reading.roles import Role
from tracker.reading.roles import GM
from tracker.play.session import Outcome
from tracker.ui import guard
from tracker.ui.commands import FOLLOWING, REPLAY, Command, bindings, for_role, role_may
from tracker.play.live import Changed, Live
from tracker.ui.screens.encounter import EncounterScreen
from tracker.ui.screens.form import FormField, FormScreen

READ_ONLY = "the replay is read-only: esc goes back to the fight as it stands now"
FOLLOWED = "The GM leads this replay: your screen moves with the GM's and goes back to now with it"


class ReplayView(Live):
    """The fight of `base` as it stood at `flow`'s segment, for the screens (read-only)."""

    def __init__(self, base: Live, flow: Replaying, following: bool = False) -> None:
        self.base, self.flow, self.following = base, flow, following
        self._role_key: tuple[int, int] = (-1, -1)
        self._role: Role = flow.reader
        super().__init__(base.path, base.session, base.store, base.viewer)

    @property
    def encounter(self) -> Any:
        return self.flow.encounter

    @property
    def seen_as(self) -> Role:
        """The reader's role at the segment shown (a player's own, named as they were then)."""
        enc = self.flow.encounter
        key = (self.flow.segment, id(enc.combatants))
        if key != self._role_key:
            self._role, self._role_key = self.flow.reader.following(enc), key
        return self._role

    def as_viewer(self, name: str) -> bool:
        return self.viewer and not self.seen_as.owns(name)

    @property
    def coming(self) -> int | None:
        return self.flow.coming

    @property
    def banner(self) -> str:
        flow = self.flow
        playing = f" ▶ x{flow.speed:g}" if flow.playing else ""
        return ("GM's " if self.following else "") + f"replay {flow.segment}/{flow.last}{playing}"

    def run(self, change: Any) -> Outcome:
        raise TrackerError(READ_ONLY)

    def follow(self, every: float = 0.05, notify: Any = None) -> None:
        """The base follows the file; the replay shows what the base had when it began."""

    def unfollow(self, notify: Any = None) -> None:
        """Nothing to stop (see `follow`)."""

    def poll(self) -> bool:
        return False

    def moved(self) -> None:
        """The segment shown changed: every pane draws it again."""
        self.version += 1
        for listener in list(self.listeners):
            listener(Changed((), True))


@dataclass
class Shared:
    """A replay being made or made, kept in `Live.cache` while screens show it."""

    key: tuple[int, int]  # the encounter and its number of events it was made of
    future: "asyncio.Future[Replay]"
    screens: int = 0


async def replay_of(live: Live) -> Replay:
    """The replay of `live`'s fight as it is now, folded on a thread (a long fight takes a
    moment) and shared by the apps showing this `live` (viewers in one process)."""
    encounter = live.encounter
    key = (id(encounter), len(encounter.events))
    shared = live.cache.get("replay")
    if not isinstance(shared, Shared) or shared.key != key:
        shared = live.cache["replay"] = Shared(key, asyncio.get_running_loop().run_in_executor(None, Replay, encounter))
    try:
        return await shared.future
    except Exception:
        live.cache.pop("replay", None)  # a fault folding it (a bug): the next try starts afresh
        raise


def _shown(live: Live, replay: Replay, by: int) -> None:
    """A screen starts (`by` 1) or stops (-1) showing `replay`; with the last, the cache
    lets it go (the replay is most of a fold's memory)."""
    shared = live.cache.get("replay")
    if isinstance(shared, Shared) and shared.future.done() and not shared.future.exception() and shared.future.result() is replay:
        shared.screens += by
        if shared.screens <= 0:
            del live.cache["replay"]


class ReplayScreen(EncounterScreen, inherit_bindings=False):  # the encounter screen's keys change the fight
    """The encounter screen over a `ReplayView` (see the module docstring)."""

    COMMAND_TABLE: tuple[Command, ...] = REPLAY
    BINDINGS = bindings(REPLAY)

    def __init__(self, view: ReplayView, following: bool = False) -> None:
        super().__init__(view)
        self.view = view
        self.following = following
        self._timer: Timer | None = None

    @property
    def flow(self) -> Replaying:
        return self.view.flow

    # Textual runs the encounter screen's own on_mount and on_unmount too (its handlers
    # are called down the class's ancestry): these add only the replay's part.
    def on_mount(self) -> None:
        self.view.base.listeners.append(self._fight_changed)
        _shown(self.view.base, self.flow.replay, 1)
        self._tell_table()

    def on_unmount(self) -> None:
        _shown(self.view.base, self.flow.replay, -1)
        if self._fight_changed in self.view.base.listeners:
            self.view.base.listeners.remove(self._fight_changed)
        self._stop()

    def _tell_proposals(self) -> None:
        """A replay tells nothing new: the proposals it shows were answered long ago."""

    # ------------------------------------------------------------ dispatch
    def _offered(self, name: str) -> bool:
        return role_may(self.COMMAND_TABLE, self.role, name)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cmd":
            return self._offered(str(parameters[0]) if parameters else "")
        return True

    def action_cmd(self, name: str) -> None:
        command = next(c for c in self.COMMAND_TABLE if c.name == name)
        if not self._offered(name):
            self.notify(f"{command.label}: refused", severity="warning")
            return
        try:
            getattr(self, f"do_{name}")()
        except TrackerError as exc:
            self.notify(str(exc), severity="error", timeout=6)

    def change(self, run: Any, quiet: bool = True) -> Outcome | None:
        self.notify(READ_ONLY, severity="warning")
        return None

    # ------------------------------------------------------------ moving
    def _moved(self) -> None:
        self.view.moved()
        self._tell_table()

    def _tell_table(self) -> None:
        """At a served table, the GM's screen tells the server the segment it shows."""
        seat = getattr(self.app, "seat", None)
        replayed = getattr(seat, "replayed", None)
        if not self.following and replayed is not None:
            replayed(self.flow.segment)

    def _move(self, move: Any) -> None:
        self._stop()
        self.flow.playing = False
        before = self.flow.segment
        move()
        if self.flow.segment != before:
            self._moved()
        else:
            self.view.moved()  # the banner says it stopped playing

    def do_replay_back(self) -> None:
        self._move(lambda: self.flow.step(-1))

    def do_replay_forward(self) -> None:
        self._move(lambda: self.flow.step(1))

    def do_replay_previous(self) -> None:
        self._move(self.flow.previous_moment)

    def do_replay_next(self) -> None:
        self._move(self.flow.next_moment)

    def do_replay_first(self) -> None:
        self._move(self.flow.first)

    def do_replay_last(self) -> None:
        self._move(self.flow.end)

    def do_replay_go(self) -> None:
        flow = self.flow

        field = FormField("segment", "segment", "", f"0 to {flow.last} (shown: {flow.segment})", flow.parse)

        def done(values: dict[str, str] | None) -> None:
            if values is not None and values["segment"].strip():
                self._move(lambda: flow.typed(values["segment"]))

        self.app.push_screen(FormScreen("Go to segment", [field]), done)

    def do_replay_play(self) -> None:
        self._stop()
        if self.flow.toggle():
            self._moved()
            self._arm()
        else:
            self.view.moved()

    def do_replay_faster(self) -> None:
        self.flow.faster()
        self._rearm()

    def do_replay_slower(self) -> None:
        self.flow.slower()
        self._rearm()

    def _rearm(self) -> None:
        if self.flow.playing:
            self._stop()
            self._arm()
        self.view.moved()
        self.notify(f"replay speed: {self.flow.speed:g} moves a second", timeout=2)

    def _arm(self) -> None:
        self._timer = self.set_timer(1 / self.flow.speed, self._tick)

    def _stop(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def _tick(self) -> None:
        self._timer = None
        moved = self.flow.tick()
        if moved:
            self._moved()
        else:
            self.view.moved()
        if self.flow.playing:
            self._arm()

    def follow(self, segment: int) -> None:
        """The GM's replay moved to `segment` (a seat following it)."""
        self.flow.go(max(0, min(segment, self.flow.last)))
        self.view.moved()

    def _fight_changed(self, change: Changed) -> None:
        """The fight changed while replayed (another writer): replay it as it is now,
        staying at the segment shown."""
        self.run_worker(self._replay_again(), group="replay-again", exclusive=True)

    async def _replay_again(self) -> None:
        replay = await replay_of(self.view.base)
        flow = self.flow
        again = Replaying.over(replay, self.view.base.seen_as, min(flow.segment, replay.last))
        again.speed, again.playing = flow.speed, flow.playing
        _shown(self.view.base, flow.replay, -1)
        _shown(self.view.base, replay, 1)
        self.view.flow = again
        self.view.moved()

    # ------------------------------------------------------------ leaving
    def do_close(self) -> None:
        if self.following:
            self.notify(FOLLOWED, timeout=6)
            return
        self.leave()

    def leave(self) -> None:
        """Back to the fight as it stands now (the encounter screen under this one)."""
        self._stop()
        seat = getattr(self.app, "seat", None)
        replayed = getattr(seat, "replayed", None)
        if not self.following and replayed is not None:
            replayed(None)
        if self.app.screen is self:
            self.dismiss(None)
        else:
            self.app.call_later(self._leave_from_below)

    def _leave_from_below(self) -> None:
        while len(self.app.screen_stack) > 1 and self.app.screen is not self:
            self.app.pop_screen()
        if self.app.screen is self:
            self.dismiss(None)

    def do_help(self) -> None:
        from tracker.ui.screens.help import HelpScreen

        role = self.role
        title = "Replay" + ("" if role.is_gm else f" ({role.label()})") + (", following the GM" if self.following else "")
        self.app.push_screen(HelpScreen(title, for_role(self.COMMAND_TABLE, role)))


LONG = 2000  # events: a fight this long says it is being prepared (about a second a 20,000)


class FollowingScreen(ReplayScreen, inherit_bindings=False):
    """A player's or viewer's replay screen at a served table: it moves with the GM's
    (`follow`) and offers only what does not move it (FOLLOWING)."""

    COMMAND_TABLE: tuple[Command, ...] = FOLLOWING
    BINDINGS = bindings(FOLLOWING)

    def __init__(self, view: ReplayView) -> None:
        super().__init__(view, following=True)


async def open_replay(app: Any, live: Live, segment: int | None = None, following: bool = False) -> ReplayScreen:
    """Push a replay of `live`'s fight at `segment` (default: the last) over the screens."""
    if len(live.encounter.events) > LONG:
        app.notify(f"Preparing the replay of {len(live.encounter.events):,} changes…", timeout=3)
    replay = await replay_of(live)
    last = replay.last
    shown = last if segment is None else max(0, min(segment, last))
    flow = Replaying.over(replay, live.seen_as, shown)
    view = ReplayView(live, flow, following)
    screen = FollowingScreen(view) if following else ReplayScreen(view)
    await app.push_screen(screen)
    return screen


def start_replay(screen: EncounterScreen) -> None:
    """`w` on the encounter screen: the replay of its fight, at the last segment. At a
    served table only the GM's screen starts one (the others follow the GM's); a browser
    tab of `tracker web` replays on its own."""
    app = screen.app
    seat = getattr(app, "seat", None)
    if seat is not None and seat.kind != GM and not seat.web:  # a browser tab has no GM to follow
        screen.notify("At this table the GM leads the replay: your screen follows the GM's", timeout=6)
        return
    if getattr(screen, "replay_opening", False):
        return  # a burst of `w`: one replay

    async def opening() -> None:
        setattr(screen, "replay_opening", True)
        try:
            await open_replay(app, screen.live)
        except Exception as error:  # noqa: BLE001 - a fault folding the fight is a message, as in any handler
            guard.report(app, error)
        finally:
            setattr(screen, "replay_opening", False)

    screen.run_worker(opening(), group="replay")


__all__ = ["FollowingScreen", "ReplayScreen", "ReplayView", "open_replay", "replay_of", "start_replay"]
