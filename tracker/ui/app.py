"""The Textual app and `run`, the entry point the CLI calls.

`tracker` shows the start screen over the saves folder; `tracker open FILE` opens the
encounter screen straight away (escape or q quits); `--viewer` opens it read-only,
following the file as the GM changes it, with hidden combatants left out.

No animation and no blinking (a slow SSH link, and a table of people reading the same
screen): the animation level is "none" and every text input's cursor is steady.

Decisions: docs/decisions/0018-app-navigation-seats.md
"""

from __future__ import annotations

import asyncio
import gc
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events
from textual.app import App, SystemCommand
from textual.notifications import SeverityLevel
from textual.screen import ModalScreen, Screen
from textual.widgets import Input

from tracker.engine import TrackerError
from tracker.engine.text import printable, printable_lines
from tracker.ui import guard
from tracker.reading.roles import GM, Role, account
from tracker.ui import commands
from tracker.ui.commands import CommandTable
from tracker.play.live import Live
from tracker.ui.screens.encounter import EncounterScreen
from tracker.ui.textual_private import MergedNotifications, install_key_readers

if TYPE_CHECKING:
    from tracker.ui.seat import Seat


WHERE_SHOWN = 6.0  # seconds Esc's "where you are" stays up at a seat (and is not said again)
TAB_STAYS = "This tab stays on the table's fight: close the tab to leave"


def unsaved_input(screen: Screen[object]) -> bool:
    """A form holds input a quit would lose: the screen says so, or a field was changed."""
    own = getattr(screen, "has_unsaved_input", None)
    if callable(own):
        return bool(own())
    if not isinstance(screen, ModalScreen):
        return False
    return any(hasattr(w, "tracker_initial") and w.value != w.tracker_initial for w in screen.query(Input))


class TrackerApp(MergedNotifications[int]):
    CSS_PATH = str(Path(__file__).with_name("tracker.tcss"))
    TITLE = "tracker"
    COMMANDS = App.COMMANDS | {CommandTable}
    # q and ? are screen commands; ctrl+q stays Textual's own quit.

    def __init__(
        self, saves: Path, file: Path | None = None, viewer: bool = False, live: Live | None = None, user: str | None = None, role: Role | None = None, seat: Seat | None = None,
        replay: int | None = None,
        campaign: Path | None = None,
    ) -> None:
        super().__init__()
        self.campaign = campaign  # `tracker open NAME.campaign.toml`: its screen, over the saves folder's
        self.role = role
        self.seat = seat
        self.replay_at = replay  # `tracker open FILE --replay [SEGMENT]`: start in a replay there
        self._replay_wanted: int | None = None  # the GM's replay segment a seat follows (None: now)
        self._replay_opening = False
        self._told_where = -WHERE_SHOWN  # when Esc last said where a seat is
        from tracker.ui import settings

        settings.apply(self, viewer, commands.tables())  # theme and key bindings from the user's config file
        self.saves = saves
        self.file = file
        self.viewer = viewer
        self.user = account() if user is None else user
        self.live = live
        self.animation_level = "none"
        self.errors: list[BaseException] = []  # bugs turned into messages (tests check it stays empty)
        self.key_hold = guard.KeyHold(self, self._forward_key)
        self._attached: list[Live] = []  # every encounter this app opened (see on_unmount)
        self._news_loop: asyncio.AbstractEventLoop | None = None  # where followers' news goes (on_mount)
        self.collector_off = False  # `run`: the collector is off until the first screen is drawn
        install_key_readers()  # Esc then a key, read together, is not lost; nor is the app on a bad byte
        guard.protect(self)  # a bug in a handler is a message, not the end of the app

    # ------------------------------------------------------------ guard and key hold

    def push_screen(self, screen, *args, **kwargs):  # Textual's overloads, as they are
        return super().push_screen(guard.protect(screen), *args, **kwargs)

    def switch_screen(self, screen):
        return super().switch_screen(guard.protect(screen))

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and not event.is_forwarded:
            split = guard.split_escape(event, self._binds)
            if split is not None:  # escape then a key, read together (guard.py)
                self.key_hold.hold(split)
                return
            if self.key_hold.wants(event):
                return
        elif isinstance(event, events.Paste) and not event.is_forwarded and self.key_hold.wants(event):
            return  # after the keys typed before it (guard.py)
        await super().on_event(event)

    def _binds(self, key: str) -> bool:
        try:
            return key in self.screen.active_bindings
        except Exception:  # no screen yet
            return False

    async def _forward_key(self, event: events.Key | events.Paste) -> None:
        await super().on_event(event)

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information", timeout: float | None = None, markup: bool = False) -> None:
        """Notifications quote names, notes and file contents: always plain text (screens'
        and widgets' `notify` pass markup=True by default; it is ignored here)."""
        super().notify(printable_lines(str(message)), title=printable(title), severity=severity, timeout=timeout, markup=False)

    def on_ready(self) -> None:
        # (Textual's Ready: the first screen has been drawn.)
        if self.collector_off:
            self.collector_off = False
            gc.enable()

    def on_mount(self) -> None:
        self._news_loop = asyncio.get_running_loop()
        if self.live is None and self.file is not None:
            self.live = Live.open(self.file, self.viewer, self.user, self.role)
        if self.live is not None:
            self._follow(self.live)
            self.push_screen(EncounterScreen(self.live))
            if self.replay_at is not None:
                self.run_worker(self._open_replay(self.live, self.replay_at), group="replay")
        elif self.seat is not None and self.seat.kind != GM:
            from tracker.ui.screens.start import WaitingScreen

            self.push_screen(WaitingScreen(self.seat))
        else:
            from tracker.ui.screens.start import StartScreen  # not needed for `tracker open`

            self.push_screen(StartScreen(self.saves))
            if self.campaign is not None:
                from tracker.ui.screens.campaign import CampaignScreen

                self.push_screen(CampaignScreen(self.campaign))  # Esc: the saves folder's list
        if self.seat is not None:
            for line in self.seat.notice.splitlines():  # a notification each: they quote names
                self.notify(line, timeout=10)
            if self.seat.kind != GM:
                if self.seat.listen is not None:
                    self.seat.listen(self.follow_replay)
                if self.seat.replaying is not None or self._replay_wanted is not None:
                    self.follow_replay(self._replay_wanted if self._replay_wanted is not None else self.seat.replaying)

    # ------------------------------------------------------------ replay (tracker.ui.screens.replay)
    def start_replay(self, screen: EncounterScreen) -> None:
        """`w` on an encounter screen: the replay of its fight."""
        from tracker.ui.screens.replay import start_replay  # loads on first use

        start_replay(screen)

    def follow_replay(self, segment: int | None) -> None:
        """A seat at a served table: the GM's replay shows `segment` (None: it ended, back
        to now). This app's replay of its own copy of the fight follows it
        (tracker.ui.screens.replay); a call before the app is up is kept for `on_mount`."""
        self._replay_wanted = segment
        if self._replay_opening:
            return  # the replay being made goes to the latest segment when it is up
        from tracker.ui.screens.replay import ReplayScreen

        screen = next((s for s in reversed(self.screen_stack) if isinstance(s, ReplayScreen)), None)
        if segment is None:
            if screen is not None:
                screen.leave()
            return
        if screen is not None:
            screen.follow(segment)
            return
        live = next((s.live for s in self.screen_stack if isinstance(s, EncounterScreen)), None)
        if live is None:
            return  # not up yet (on_mount follows), or waiting for the GM to open a fight
        self._replay_opening = True
        self.run_worker(self._open_following(live), group="replay")

    async def _open_replay(self, live: Live, segment: int | None, following: bool = False) -> object:
        from tracker.ui.screens.replay import open_replay

        try:
            return await open_replay(self, live, segment, following)
        except Exception as error:  # noqa: BLE001 - a fault folding the fight is a message, as in any handler
            guard.report(self, error)
            return None

    async def _open_following(self, live: Live) -> None:
        from tracker.ui.screens.replay import ReplayScreen

        try:
            screen = await self._open_replay(live, self._replay_wanted, following=True)
        finally:
            self._replay_opening = False
        if not isinstance(screen, ReplayScreen):
            return
        if self._replay_wanted is None:
            screen.leave()
        else:
            screen.follow(self._replay_wanted)

    def _follow(self, live: Live) -> None:
        # (Not `_attach`: that name is Textual's own, for a node joining its parent.)
        if not any(live is known for known in self._attached):
            self._attached.append(live)
        if self.viewer and live.role.is_gm:
            live.seat(Role.viewer())  # a viewer's app shows a fight opened elsewhere as a viewer sees it
        live.session.user = live.session.user or self.user
        # Saving and following run on threads (tracker.play.live); a failed save comes back
        # to the event loop as a message.
        live.store.on_error = lambda message: self._report_save_error(message)
        live.follow(notify=self._news)

    @property
    def unsaved(self) -> bool:
        """Whether a change made here is still on its way to its file (the store writes
        behind, on a thread)."""
        return any(live.store.pending for live in self._attached)

    def _news(self) -> None:
        """On the follower's thread: another session's change was read; fold it in now."""
        loop = self._news_loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._fold_news)

    def _fold_news(self) -> None:
        """Fold in what the followers read; the screens showing an encounter hear of it
        through its listeners (tracker.play.live, `Changed`). Apps sharing an encounter
        (viewers in one process) share its listeners: whichever folds it in first tells
        them all."""
        for live in self._attached:
            try:
                live.poll()
            except TrackerError as exc:
                self.notify(f"the file changed but cannot be read: {exc}", severity="error", timeout=4)

    def _report_save_error(self, message: str) -> None:
        try:
            self.call_from_thread(self.notify, message, severity="error", timeout=10)
        except RuntimeError:  # the app is not running any more
            pass

    def flush_store(self, live: Live) -> None:
        try:
            live.store.flush()
        except TrackerError as exc:
            self.notify(str(exc), severity="error", timeout=10)

    def watch_theme(self, theme: str) -> None:
        from tracker.ui import settings

        # A theme picked in the palette is remembered, never by a seat at a served table.
        settings.theme_changed(self, theme, getattr(self, "viewer", False) or getattr(self, "seat", None) is not None, commands.tables())

    def open_encounter(self, path: Path, roster: bool = False, live: Live | None = None) -> None:
        """Open a save from the start screen (and the roster editor for a new one); `live`:
        already read (by a screen's thread: tracker.ui.background)."""
        live = live if live is not None else Live.open(path, self.viewer, self.user, self.role)
        self._follow(live)
        self.push_screen(EncounterScreen(live))
        if roster:
            from tracker.ui.screens.roster import RosterScreen

            self.push_screen(RosterScreen(live))
        if self.seat is not None and self.seat.moved is not None:
            self.seat.moved(path)  # the GM's start screen: the table follows

    def back_to_start(self) -> None:
        """Escape on the bottom encounter screen: the start screen of the saves folder;
        at a player's or viewer's seat, where they are instead."""
        if self.seat is not None and self.seat.kind != GM:
            if time.monotonic() - self._told_where > WHERE_SHOWN:  # a burst of Esc: said once
                self._told_where = time.monotonic()
                self.notify(self.seat.where(), timeout=WHERE_SHOWN)
            return
        from tracker.ui.screens.start import StartScreen

        saves = self.saves if self.saves.is_dir() or self.file is None else self.file.parent
        self.switch_screen(StartScreen(saves))
    # System commands that write files on the host (Textual's "Screenshot" saves an SVG):
    # a viewer or a player (e.g. at `tracker serve`) is not offered them.
    HOST_WRITING_COMMANDS = frozenset({"Screenshot"})

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        for command in super().get_system_commands(screen):
            writes_host = command.title in self.HOST_WRITING_COMMANDS
            if writes_host and (self.viewer or (self.role is not None and self.role.is_player)):
                continue
            if command.title == "Quit" and self.seat is not None and self.seat.web:
                continue  # a tab is left by closing it (docs/decisions/0018-app-navigation-seats.md)
            yield command

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        widget = event.widget
        if isinstance(widget, Input):
            widget.cursor_blink = False
            if not hasattr(widget, "tracker_initial"):  # typing starts after the first focus
                widget.tracker_initial = widget.value  # type: ignore[attr-defined]

    async def action_quit(self) -> None:
        self.quit_asking()

    @property
    def at_served_table(self) -> bool:
        """A player's or viewer's seat over `tracker serve`: quitting ends the connection."""
        return self.seat is not None and not self.seat.web and self.seat.kind != GM

    def quit_asking(self) -> None:
        """Quit, asking first when an open form holds input that would be lost, and always
        at a player's or viewer's seat over `tracker serve`, where quitting leaves the table
        (a browser tab's seat: say how to leave instead)."""
        if self.seat is not None and self.seat.web:
            self.notify(TAB_STAYS, timeout=6)
            return
        unsaved = [s for s in self.screen_stack if unsaved_input(s)]
        lost = " The open form's input is not saved." if unsaved else ""
        if self.at_served_table:
            question = f"Leave the table? This ends your connection; ssh again to come back.{lost}"
        elif unsaved:
            question = f"Quit?{lost}"
        else:
            self.quit_now()
            return
        from tracker.ui.screens.confirm import ConfirmScreen

        self.push_screen(ConfirmScreen(question), lambda yes: self.quit_now() if yes else None)

    def action_help_quit(self) -> None:
        """ctrl+c (Textual's binding): say how to quit, as plain text. (Textual's own notice
        is markup, "Press [b]ctrl+q[/b]", and notifications here show text as typed.)"""
        if self.seat is not None and self.seat.web:
            self.notify(TAB_STAYS, timeout=6)
            return
        keys: list[str] = []
        for _, binding, _enabled, _tooltip in self.active_bindings.values():
            if binding.action in ("quit", "app.quit") or getattr(binding, "id", None) == "quit":
                shown = commands.key_text(binding.key)  # "ctrl+q", as the user guide and help say it
                if shown not in keys:
                    keys.append(shown)
        verb = "leave the table" if self.at_served_table else "quit"
        self.notify(f"Press {' or '.join(keys) or 'ctrl+q'} to {verb}", title="Do you want to quit?")

    def quit_now(self) -> None:
        for screen in self.screen_stack:
            live = getattr(screen, "live", None)
            if live is not None:
                self.flush_store(live)
        self.exit(0)

    def on_unmount(self) -> None:
        # Textual has closed the screens by now: the encounters this app attached are
        # remembered here, so each one's writes finish and its follower thread ends (with
        # the last app on it: viewers in `tracker serve` share one).
        for live in self._attached:
            if live.store.pending:
                self.flush_store(live)
            live.unfollow(self._news)


def run(saves: Path, file: Path | None, viewer: bool, role: Role | None = None, replay: int | None = None, collector_off: bool = False) -> int:
    """Run the UI; returns the exit code. A file that does not load is reported, not opened.
    `collector_off`: the caller turned Python's cyclic garbage collector off to start
    faster; the app turns it on again once its first screen is drawn."""
    from tracker.persistence.paths import CAMPAIGN_SUFFIX

    live, campaign = None, None
    if file is not None and str(file).endswith(CAMPAIGN_SUFFIX):  # tracker.persistence.campaign_file.is_campaign, without loading it
        from tracker.persistence.campaign_file import CampaignFile

        try:
            CampaignFile(file).load()  # refused here, named, rather than on an empty screen
        except TrackerError as exc:
            sys.stderr.write(f"tracker: {exc}\n")
            return 1
        saves, campaign, file = file.parent, file, None
    elif file is not None:
        try:
            live = Live.open(file, viewer, account(), role)
        except TrackerError as exc:
            sys.stderr.write(f"tracker: {exc}\n")
            return 1
    if replay is not None and live is not None:
        from tracker.engine.replay import check_segment

        try:
            check_segment(replay, live.encounter.now, "--replay")
        except TrackerError as exc:
            sys.stderr.write(f"tracker: {exc}\n")
            return 1
    app = TrackerApp(saves, file, viewer, live, role=role, replay=replay, campaign=campaign)
    app.collector_off = collector_off
    result = app.run()
    if result is None and app.return_code:
        # The guard turns handler errors into messages, so this is Textual itself failing:
        # say so and exit as the CLI does for an internal error, never 0.
        sys.stderr.write("tracker: internal error: the app stopped unexpectedly (the last saved change is on disk)\n")
        return 3
    return int(result or 0)
