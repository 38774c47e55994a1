"""Direct tests of tracker.ui.app, worked from its docstrings and
docs/decisions/0018-app-navigation-seats.md: `tracker` shows the start screen of the
saves folder, `tracker open FILE` the encounter (Esc: the saves folder's list, or the
file's own folder when there is none), a campaign file its screen over that list,
`--viewer` the fight read-only, `--replay` a replay over it; nothing ends the app but
quitting (a bug in a handler is a message); Esc then a key read together is Esc and the
key; notifications are plain text; `q` asks first only when a form holds input, always
at a player's or viewer's seat over `tracker serve`, and a browser tab's seat says to
close the tab; ctrl+c says how to quit in plain words; a seat never writes the config;
a player's or viewer's seat waits for the GM's fight, says where it is on Esc (once a
burst) and follows the GM's replay; `run` refuses a file that does not load, by name.

The app runs in Pilot at 80x24 over files made on disk (the saves folder of the test);
waits are on conditions, capped at 10 seconds. `run` is called with Textual's own start
stood in for (the app it made is kept, its result chosen)."""

from __future__ import annotations

import gc
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen, Screen
from textual.widgets import Input, Label

from tracker.engine import TrackerError
from tracker.persistence import store as store_module
from tracker.persistence.config import load as load_config
from tracker.persistence.store import EncounterFile
from tracker.play.live import Live, WriteBehindStore
from tracker.play.session import Session
from tracker.reading.roles import Role, account
from tracker.ui import app as app_module
from tracker.ui.app import TAB_STAYS, WHERE_SHOWN, TrackerApp, run, unsaved_input
from tracker.ui.screens.campaign import CampaignScreen
from tracker.ui.screens.confirm import ConfirmScreen
from tracker.ui.screens.encounter import EncounterScreen
from tracker.ui.screens.form import FormScreen
from tracker.ui.screens import replay as replay_module
from tracker.ui.screens.replay import FollowingScreen, ReplayScreen
from tracker.ui.screens.roster import RosterScreen
from tracker.ui.screens.start import StartScreen, WaitingScreen
from tracker.ui.seat import Seat
from tests.campaign_ui import make_campaign
from tests.test_ui_app import make_file
from tests.ui import post_keys, settle, wait_for

pytestmark = pytest.mark.ui

WAIT = 10.0
SIZE = (80, 24)
# A fight at segment 9: Seraph's attack (7 segments) completed at 7, two steps on.
FIGHT = ["add Seraph hp=12", "add Sphinx hp=9", "declare Seraph attack target=Sphinx damage=2 pt=7", "next", "step", "step"]
LEAVE = "Leave the table? This ends your connection; ssh again to come back."
LOST = " The open form's input is not saved."


class _App(TrackerApp):
    """The tracker's app, every notification it is asked for kept (as asked)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.said: list[tuple[str, str, str, float | None]] = []
        super().__init__(*args, **kwargs)

    def notify(self, message: str, *, title: str = "", severity: Any = "information", timeout: float | None = None, markup: bool = False) -> None:
        self.said.append((message, title, severity, timeout))
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)


def _fight(saves: Path, name: str = "fight") -> Path:
    return make_file(saves, "freeform", FIGHT, name=name)


def _encounter(app: App[Any]) -> bool:
    return type(app.screen) is EncounterScreen


def _said(app: _App) -> list[str]:
    return [message for message, *_ in app.said]


def _config(text: str) -> None:
    from tracker.persistence.config import config_path

    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


# ------------------------------------------------------------------ unsaved_input
class _Own(Screen[object]):
    """A screen that says itself whether it holds input."""

    def __init__(self, answer: Any) -> None:
        super().__init__()
        self.answer = answer

    def has_unsaved_input(self) -> Any:
        return self.answer


class _Fields(ModalScreen[object]):
    """A dialog of two fields and no word of its own on what it holds."""

    def compose(self) -> ComposeResult:
        yield Input("first", id="one")
        yield Input("second", id="two")


class _Plain(Screen[object]):
    """A full screen with a field (not a dialog: it holds no form's input)."""

    def compose(self) -> ComposeResult:
        yield Input("kept", id="one")


def test_a_screen_that_says_whether_it_holds_input_is_taken_at_its_word() -> None:
    assert unsaved_input(_Own(1)) is True and unsaved_input(_Own([])) is False
    # not a method: not its word; a full screen holds no form's input
    plain = _Own(None)
    plain.has_unsaved_input = True  # type: ignore[assignment,method-assign]
    assert unsaved_input(plain) is False


async def test_a_dialog_holds_input_once_a_field_focused_was_changed(saves: Path) -> None:
    app = _App(saves)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, StartScreen), "the start screen", WAIT)
        dialog = _Fields()
        app.push_screen(dialog)
        await wait_for(pilot, lambda: app.screen is dialog and any(w.has_focus for w in dialog.query("#one")), "the dialog", WAIT)
        one, two = dialog.query_one("#one", Input), dialog.query_one("#two", Input)
        await wait_for(pilot, lambda: hasattr(one, "tracker_initial"), "the first focus seen", WAIT)
        assert one.tracker_initial == "first" and one.cursor_blink is False  # type: ignore[attr-defined]
        assert not hasattr(two, "tracker_initial")
        two.value = "changed, never focused"  # not typed into: not the user's input
        assert unsaved_input(dialog) is False
        post_keys(app, ["end", "x"])
        await wait_for(pilot, lambda: one.value == "firstx", "typed", WAIT)
        assert unsaved_input(dialog) is True
        one.blur()
        two.focus()
        one.focus()  # focused again: what it held at first is what counts
        await wait_for(pilot, lambda: one.has_focus and getattr(two, "tracker_initial", None) == "changed, never focused", "focus back", WAIT)
        assert one.tracker_initial == "first" and unsaved_input(dialog) is True  # type: ignore[attr-defined]
        one.value = "first"
        assert unsaved_input(dialog) is False
        plain = _Plain()
        app.push_screen(plain)
        await wait_for(pilot, lambda: app.screen is plain and any(hasattr(w, "tracker_initial") for w in plain.query(Input)), "the full screen", WAIT)
        plain.query_one(Input).value = "typed"
        assert unsaved_input(plain) is False
        assert app.errors == []


# ------------------------------------------------------------------ the app as made
def test_a_new_app_is_the_saves_folder_and_nothing_else_yet(saves: Path) -> None:
    app = TrackerApp(saves)
    assert (app.saves, app.file, app.viewer, app.live, app.role, app.seat, app.campaign, app.replay_at) == (saves, None, False, None, None, None, None, None)
    assert app.user == account() and app.animation_level == "none"
    assert app.errors == [] and app.collector_off is False and not app.unsaved
    named = TrackerApp(saves, user="alice", role=Role.player(["Seraph"]))
    assert named.user == "alice" and named.role == Role.player(["Seraph"])
    assert TrackerApp(saves, user="").user == ""  # a name given, even empty, is the name


async def test_the_configs_theme_and_keys_are_the_apps(saves: Path) -> None:
    _config('theme = "nord"\n[keys]\nnew = "a"\n')
    app = _App(saves)
    assert app.theme == "nord"
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, StartScreen), "the start screen", WAIT)
        await settle(pilot)
        post_keys(app, ["a"])
        await wait_for(pilot, lambda: isinstance(app.screen, FormScreen), "the new encounter's form, on a", WAIT)


async def test_a_config_naming_a_command_the_app_lacks_leaves_its_defaults_and_is_not_written(saves: Path) -> None:
    # The CLI refuses it first; an app that meets it anyway keeps its own theme and keys,
    # and a theme picked then is not saved into it (it would not load), and says so.
    from tracker.persistence.config import config_path

    text = 'theme = "nord"\n[keys]\nfrobnicate = "a"\n'
    _config(text)
    app = _App(saves)
    assert app.theme == App[None]().theme
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, StartScreen), "the list", WAIT)
        app.theme = "gruvbox"
        await wait_for(pilot, lambda: bool(app.said), "the theme not saved", WAIT)
        [(message, title, severity, timeout)] = app.said
        assert message.startswith(f"theme not saved: {config_path()}: keys.frobnicate: unknown command (known: ") and (title, severity, timeout) == ("", "warning", None)
    assert config_path().read_text(encoding="utf-8") == text


# ------------------------------------------------------------------ what the app opens
async def test_tracker_alone_shows_the_start_screen_of_the_saves_folder(saves: Path) -> None:
    fight = _fight(saves)
    app = _App(saves)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, StartScreen) and bool(app.screen.listings), "the list", WAIT)
        start = app.screen
        assert start.saves == saves and [item.path for item in start.listings] == [fight]  # type: ignore[attr-defined]
        assert len(app.screen_stack) == 2 and app.said == [] and app.errors == []


async def test_tracker_open_shows_the_fight_and_esc_the_saves_folders_list(saves: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    fight = _fight(elsewhere)
    app = _App(saves, fight, user="alice")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _encounter(app), "the fight", WAIT)
        live = app.screen.live  # type: ignore[attr-defined]
        assert live.path == fight and live.role.is_gm and not live.viewer and live.encounter.now == 9
        assert live.session.user == "alice" and app.live is live
        assert len(app.screen_stack) == 2  # the fight only: no start screen under it, no replay over it
        await settle(pilot)
        post_keys(app, ["escape"])
        await wait_for(pilot, lambda: isinstance(app.screen, StartScreen), "the start screen", WAIT)
        assert app.screen.saves == saves  # type: ignore[attr-defined]
    # No saves folder: the file's own folder.
    app = _App(tmp_path / "no such folder", fight)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _encounter(app), "the fight", WAIT)
        await settle(pilot)
        post_keys(app, ["escape"])
        await wait_for(pilot, lambda: isinstance(app.screen, StartScreen), "the start screen", WAIT)
        assert app.screen.saves == elsewhere  # type: ignore[attr-defined]
        assert app.errors == []


async def test_a_viewers_app_shows_the_fight_read_only_and_a_players_their_role(saves: Path) -> None:
    fight = _fight(saves)
    app = _App(saves, fight, viewer=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _encounter(app), "the fight", WAIT)
        live = app.screen.live  # type: ignore[attr-defined]
        assert live.viewer and live.role.is_viewer
    player = Role.player(["Seraph"])
    app = _App(saves, fight, role=player)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _encounter(app), "the fight", WAIT)
        live = app.screen.live  # type: ignore[attr-defined]
        assert live.role == player and live.viewer
    # --viewer wins over a role: read-only, whether opened at the start or from the list
    app = _App(saves, fight, viewer=True, role=player)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _encounter(app), "the fight", WAIT)
        assert app.screen.live.role.is_viewer  # type: ignore[attr-defined]
        await settle(pilot)
        app.open_encounter(fight)
        await wait_for(pilot, lambda: _encounter(app) and len(app.screen_stack) == 3, "the fight again", WAIT)
        assert app.screen.live.role.is_viewer  # type: ignore[attr-defined]


async def test_a_fight_read_before_is_shown_as_the_app_sees_it(saves: Path) -> None:
    fight = _fight(saves)
    read = Live.open(fight)  # the GM's, no user yet
    app = _App(saves, live=read, user="alice")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _encounter(app), "the fight", WAIT)
        assert app.screen.live is read and read.role.is_gm and not read.viewer  # type: ignore[attr-defined]
        assert read.session.user == "alice"
    signed = Live.open(fight, user="bob")
    app = _App(saves, viewer=True, live=signed, user="alice")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _encounter(app), "the fight", WAIT)
        assert app.screen.live is signed and signed.role.is_viewer and signed.viewer  # type: ignore[attr-defined]
        assert signed.session.user == "bob"  # its own name kept


async def test_replay_opens_a_replay_at_its_segment_over_the_fight(saves: Path) -> None:
    fight = _fight(saves)
    app = _App(saves, fight, replay=3)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen), "the replay", WAIT)
        screen = app.screen
        assert type(screen) is ReplayScreen and not screen.following and screen.flow.segment == 3
        assert type(app.screen_stack[-2]) is EncounterScreen and app.screen_stack[-2].live.path == fight
    app = _App(saves, fight, replay=0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen), "the replay at 0", WAIT)
        assert app.screen.flow.segment == 0  # type: ignore[attr-defined]
    app = _App(saves, fight)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _encounter(app), "the fight, no replay", WAIT)
        await settle(pilot)
        assert len(app.screen_stack) == 2
        post_keys(app, ["w"])  # the encounter screen's w: the replay, at the last segment
        await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen), "the replay", WAIT)
        assert app.screen.flow.segment == 9 and app.errors == []  # type: ignore[attr-defined]


async def test_a_campaign_opens_its_screen_over_the_saves_folders_list(saves: Path) -> None:
    road = make_campaign(saves, "brandx", "The Long Road", {"Seraph": {"vp": "43", "dp": "15", "ep": "74"}})
    app = _App(saves, campaign=road)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, CampaignScreen), "the campaign", WAIT)
        assert app.screen.path == road  # type: ignore[attr-defined]
        assert isinstance(app.screen_stack[-2], StartScreen) and app.screen_stack[-2].saves == saves


# ------------------------------------------------------------------ guard and keys
class _Boom(Screen[object]):
    BINDINGS = [Binding("x", "boom", "Boom"), Binding("alt+x", "marked", "Marked")]

    def __init__(self) -> None:
        super().__init__()
        self.marks = 0

    def compose(self) -> ComposeResult:
        yield Label("boom")

    def action_boom(self) -> None:
        raise RuntimeError("a bug in a screen")

    def action_marked(self) -> None:
        self.marks += 1


async def test_a_bug_in_the_app_or_a_screen_is_a_message_and_the_app_goes_on(saves: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = _App(saves)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, StartScreen), "the start screen", WAIT)

        def bug() -> None:
            raise LookupError("an app's bug")

        app.call_later(bug)
        await wait_for(pilot, lambda: len(app.errors) == 1, "the app's bug kept", WAIT)
        assert _said(app) == ["internal error: LookupError: an app's bug (the app goes on; the last saved change is on disk)"]
        closed: list[Any] = []
        boom = _Boom()
        app.push_screen(boom, closed.append)  # the callback as Textual's own argument
        await wait_for(pilot, lambda: app.screen is boom, "the screen", WAIT)
        await settle(pilot)
        post_keys(app, ["x"])
        await wait_for(pilot, lambda: len(app.errors) == 2, "the screen's bug kept", WAIT)
        assert _said(app)[-1] == "internal error: RuntimeError: a bug in a screen (the app goes on; the last saved change is on disk)"
        assert app.is_running and app.screen is boom
        post_keys(app, ["alt+x"])  # an alt key the screen binds stays that key
        await wait_for(pilot, lambda: boom.marks == 1, "alt+x", WAIT)
        boom.dismiss("done")
        await wait_for(pilot, lambda: closed == ["done"], "the callback", WAIT)
        kept: list[Any] = []
        other = _Boom()
        app.push_screen(other, callback=kept.append)  # and by name
        await wait_for(pilot, lambda: app.screen is other, "the other screen", WAIT)
        other.dismiss(7)
        await wait_for(pilot, lambda: kept == [7], "the named callback", WAIT)
        # a screen switched to (the start screen, from a fight) is guarded too
        monkeypatch.setattr(StartScreen, "do_help", lambda self: 1 / 0)
        fight = _fight(saves)
        app.open_encounter(fight)
        await wait_for(pilot, lambda: _encounter(app), "the fight", WAIT)
        app.back_to_start()
        await wait_for(pilot, lambda: isinstance(app.screen, StartScreen) and app.screen.is_mounted, "the start screen again", WAIT)
        await settle(pilot)
        post_keys(app, ["question_mark"])
        await wait_for(pilot, lambda: len(app.errors) == 3, "the switched screen's bug kept", WAIT)
        assert isinstance(app.errors[-1], ZeroDivisionError) and app.is_running


async def test_esc_then_a_key_read_together_is_esc_and_the_key_and_what_follows_waits(saves: Path) -> None:
    app = _App(saves)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, StartScreen), "the start screen", WAIT)
        await settle(pilot)
        paste = events.Paste("Bridge")
        paste.set_sender(app)
        post_keys(app, ["alt+n", "space"])  # Esc and n, as a terminal reads them together, then a space
        app.post_message(paste)
        await wait_for(pilot, lambda: isinstance(app.screen, FormScreen), "the new encounter's form", WAIT)
        form = app.screen
        await settle(pilot)
        assert form.query_one("#f-name", Input).value == " Bridge"
        assert app.errors == [] and app.said == []


# ------------------------------------------------------------------ notifications
async def test_notifications_are_plain_text_line_by_line(saves: Path) -> None:
    app = TrackerApp(saves)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, StartScreen), "the start screen", WAIT)
        app.notify("[b]Ford[/b]\x1b[31m\nnext\x07line", title="[i]T[/i]\x07", severity="warning", timeout=7)
        app.notify("plain")
        await wait_for(pilot, lambda: len(app.notifications_shown) == 2, "the notes", WAIT)
        first, second = app.notifications_shown
        assert (first.message, first.title, first.severity, first.timeout, first.markup) == ("[b]Ford[/b]\u241b[31m\nnext\u2407line", "[i]T[/i]\u2407", "warning", 7, False)
        assert (second.message, second.title, second.severity, second.markup) == ("plain", "", "information", False)
        assert second.timeout == app.NOTIFICATION_TIMEOUT


# ------------------------------------------------------------------ opening and following
async def test_a_fight_opened_from_the_list_its_roster_over_it_and_the_table_told(saves: Path) -> None:
    fight = _fight(saves)
    moved: list[Path] = []
    app = _App(saves, user="alice", seat=Seat(kind="gm", moved=moved.append))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, StartScreen), "the GM's seat keeps the start screen", WAIT)
        app.open_encounter(fight)
        await wait_for(pilot, lambda: _encounter(app), "the fight", WAIT)
        live = app.screen.live  # type: ignore[attr-defined]
        assert live.path == fight and live.role.is_gm and live.session.user == "alice" and moved == [fight]
        await settle(pilot)
        app.pop_screen()
        await wait_for(pilot, lambda: isinstance(app.screen, StartScreen), "back", WAIT)
        read = Live.open(fight)
        app.open_encounter(fight, roster=True, live=read)
        await wait_for(pilot, lambda: isinstance(app.screen, RosterScreen), "the roster", WAIT)
        assert app.screen.live is read and app.screen_stack[-2].live is read and moved == [fight, fight]  # type: ignore[attr-defined]
    viewer = _App(saves, viewer=True)
    async with viewer.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(viewer.screen, StartScreen), "the viewer's list", WAIT)
        viewer.open_encounter(fight)
        await wait_for(pilot, lambda: _encounter(viewer), "the fight", WAIT)
        assert viewer.screen.live.role.is_viewer  # type: ignore[attr-defined]
    player = Role.player(["Seraph"])
    app = _App(saves, role=player)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, StartScreen), "the list", WAIT)
        app.open_encounter(fight)
        await wait_for(pilot, lambda: _encounter(app), "the fight", WAIT)
        assert app.screen.live.role == player  # type: ignore[attr-defined]


async def test_another_sessions_change_is_folded_in_and_a_file_gone_bad_is_said(saves: Path) -> None:
    fight = _fight(saves)
    app = _App(saves, fight)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _encounter(app), "the fight", WAIT)
        live = app.screen.live  # type: ignore[attr-defined]
        store = EncounterFile(fight)  # the GM's other session on the same file
        loaded = store.load()
        gm = Session(loaded.encounter, loaded.ruleset, store=store)
        gm.execute("add Ghost hp=3")
        await wait_for(pilot, lambda: "Ghost" in live.encounter.combatants, "the other change", WAIT)
        fight.write_text("this = is not [ toml", encoding="utf-8")
        await wait_for(pilot, lambda: any(m.startswith("the file changed but cannot be read: ") for m in _said(app)), "the bad file said", WAIT)
        said = next(s for s in app.said if s[0].startswith("the file changed"))
        assert (said[2], said[3]) == ("error", 4) and app.errors == []


def _disk_full(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every write of a fight's file fails from now on, as on a full disk."""

    def fails(self: EncounterFile, data: bytes, revision: int, count: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(store_module.EncounterFile, "_append", fails)


async def test_a_save_that_fails_is_said_as_the_store_says_it(saves: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fight = _fight(saves)
    app = _App(saves, fight)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _encounter(app), "the fight", WAIT)
        live = app.screen.live  # type: ignore[attr-defined]
        _disk_full(monkeypatch)
        live.run(lambda s: s.execute("note lost"))
        await wait_for(pilot, lambda: any("not saved" in m for m in _said(app)), "the failed save said", WAIT)
        [said] = [s for s in app.said if "not saved" in s[0]]
        assert said[0].startswith(f"{fight}: the last change was not saved: No space left on device; the file holds every change up to revision ")
        assert (said[2], said[3]) == ("error", 10)
        monkeypatch.undo()
    app._report_save_error("after the end")  # the app is not running: nothing to say it on, no error
    assert _said(app)[-1] != "after the end"


async def test_a_store_that_cannot_flush_is_said(saves: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fight = _fight(saves)
    alone = Live.open(fight)  # not this app's: nobody hears its writer
    app = _App(saves)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, StartScreen), "the list", WAIT)
        _disk_full(monkeypatch)
        alone.run(lambda s: s.execute("note lost"))
        app.flush_store(alone)
        monkeypatch.undo()
        [said] = app.said
        assert said[0].startswith(f"{fight}: the last change was not saved: No space left on device; ") and (said[2], said[3]) == ("error", 10)
        app.flush_store(alone)  # nothing more to say
        assert len(app.said) == 1


async def test_a_theme_picked_is_remembered_but_never_by_a_viewer_or_a_seat(saves: Path) -> None:
    app = _App(saves)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, StartScreen), "the list", WAIT)
        app.theme = "nord"
        await wait_for(pilot, lambda: load_config().theme == "nord", "the theme written", WAIT)
    for other in (_App(saves, viewer=True), _App(saves, seat=Seat(kind="gm"))):
        async with other.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(other.screen, StartScreen), "the list", WAIT)
            other.theme = "gruvbox"
            await settle(pilot)
            assert other.theme == "gruvbox" and load_config().theme == "nord" and other.said == []


async def test_the_palette_offers_no_screenshot_to_a_viewer_or_player_and_no_quit_to_a_tab(saves: Path) -> None:
    def titles(app: TrackerApp) -> list[str]:
        return [c.title for c in app.get_system_commands(app.screen)]

    def textuals(app: TrackerApp) -> list[str]:
        return [c.title for c in App.get_system_commands(app, app.screen)]

    for made, left_out in (
        (_App(saves), set()),
        (_App(saves, seat=Seat(kind="gm")), set()),
        (_App(saves, viewer=True), {"Screenshot"}),
        (_App(saves, role=Role.player(["Seraph"])), {"Screenshot"}),
        (_App(saves, role=Role.gm()), set()),
        (_App(saves, seat=Seat(kind="gm", web=True)), {"Quit"}),
        (_App(saves, viewer=True, seat=Seat(kind="viewer", web=True)), {"Screenshot", "Quit"}),
    ):
        async with made.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: made.screen_stack[-1] is not made.screen_stack[0], "the first screen", WAIT)
            own = textuals(made)
            assert {"Screenshot", "Quit"} <= set(own) and own.index("Quit") < len(own) - 1
            assert titles(made) == [t for t in own if t not in left_out]


# ------------------------------------------------------------------ seats
async def test_a_players_seat_waits_for_the_gm_and_esc_says_where_it_is_once_a_burst(monkeypatch: pytest.MonkeyPatch, saves: Path) -> None:
    clock = [0.5]  # the first Esc is said, however soon after the clock's start
    monkeypatch.setattr(app_module, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    heard: list[Any] = []
    seat = Seat(kind="player", notice="the GM moved the table\nto [b]nowhere[/b]", listen=heard.append)
    app = _App(saves, seat=seat)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, WaitingScreen), "the waiting screen", WAIT)
        assert app.screen.seat is seat and len(app.screen_stack) == 2  # type: ignore[attr-defined]
        assert app.said == [("the GM moved the table", "", "information", 10), ("to [b]nowhere[/b]", "", "information", 10)]
        assert heard == [app.follow_replay]
        app.follow_replay(3)  # the GM replays a fight this seat does not have yet: nothing
        await settle(pilot)
        where = ("No fight yet: this screen changes when the GM opens one (q leaves)", "", "information", WHERE_SHOWN)
        post_keys(app, ["escape"])
        await wait_for(pilot, lambda: len(app.said) == 3, "where", WAIT)
        assert app.said[-1] == where
        clock[0] = 0.5 + WHERE_SHOWN  # still the same burst
        post_keys(app, ["escape"])
        await settle(pilot)
        assert len(app.said) == 3
        clock[0] = 0.6 + WHERE_SHOWN
        post_keys(app, ["escape"])
        await wait_for(pilot, lambda: len(app.said) == 4, "where again", WAIT)
        assert app.said[-1] == where and isinstance(app.screen, WaitingScreen) and app.errors == []


async def test_a_gms_seat_keeps_the_start_screen_and_hears_no_replay(saves: Path) -> None:
    heard: list[Any] = []
    app = _App(saves, seat=Seat(kind="gm", notice="you hold the table", listen=heard.append, replaying=4))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, StartScreen), "the start screen", WAIT)
        await settle(pilot)
        assert app.said == [("you hold the table", "", "information", 10)] and heard == []
        fight = _fight(saves)
        app.open_encounter(fight)
        await wait_for(pilot, lambda: _encounter(app), "the fight", WAIT)
        await settle(pilot)
        post_keys(app, ["escape"])  # the GM's Esc: the start screen, as a local app's
        await wait_for(pilot, lambda: isinstance(app.screen, StartScreen), "the start screen again", WAIT)
        assert len(app.said) == 1


def _segment(app: App[Any]) -> int | None:
    screen = app.screen
    return screen.flow.segment if isinstance(screen, FollowingScreen) and screen.is_mounted else None


async def test_a_players_seat_follows_the_gms_replay(saves: Path) -> None:
    fight = _fight(saves)
    heard: list[Any] = []
    app = _App(saves, fight, seat=Seat(kind="player", fight="Ford", listen=heard.append))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _encounter(app), "the fight", WAIT)
        await settle(pilot)
        assert heard == [app.follow_replay] and len(app.screen_stack) == 2
        heard[0](4)
        await wait_for(pilot, lambda: _segment(app) == 4, "the replay at 4", WAIT)
        assert app.screen.following  # type: ignore[attr-defined]
        heard[0](6)
        await wait_for(pilot, lambda: _segment(app) == 6, "moved to 6", WAIT)
        assert len([s for s in app.screen_stack if isinstance(s, ReplayScreen)]) == 1
        heard[0](None)
        await wait_for(pilot, lambda: _encounter(app), "back to now", WAIT)
        heard[0](2)
        heard[0](7)  # while the first is being made: it goes to the latest
        await wait_for(pilot, lambda: _segment(app) == 7, "the latest", WAIT)
        await settle(pilot)
        assert len([s for s in app.screen_stack if isinstance(s, ReplayScreen)]) == 1
        heard[0](None)
        await wait_for(pilot, lambda: _encounter(app), "back", WAIT)
        heard[0](5)
        heard[0](None)  # ended before its replay was up
        await settle(pilot)
        await wait_for(pilot, lambda: _encounter(app), "no replay", WAIT)
        assert app.errors == []


async def test_a_seat_starts_on_the_gms_replay_or_the_latest_it_heard(saves: Path) -> None:
    fight = _fight(saves)
    app = _App(saves, fight, seat=Seat(kind="viewer", replaying=5))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _segment(app) == 5, "the GM's replay at 5", WAIT)
    app = _App(saves, fight, seat=Seat(kind="viewer", replaying=5))
    app.follow_replay(8)  # heard before the app was up
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _segment(app) == 8, "the latest, 8", WAIT)
    app = _App(saves, fight, seat=Seat(kind="viewer"))
    app.follow_replay(2)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _segment(app) == 2, "2", WAIT)
    app = _App(saves, fight, seat=Seat(kind="viewer"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _encounter(app), "the fight", WAIT)
        await settle(pilot)
        assert _encounter(app) and app.errors == [] and app.said == []


async def test_a_seats_replay_opens_at_the_gms_segment_never_the_last_first(saves: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fight = _fight(saves)
    real = replay_module.open_replay
    opened: list[tuple[int, bool]] = []

    async def recording(app: Any, live: Live, segment: int | None = None, following: bool = False) -> ReplayScreen:
        screen = await real(app, live, segment, following)
        opened.append((screen.flow.segment, screen.following))  # as it was first shown
        return screen

    monkeypatch.setattr(replay_module, "open_replay", recording)
    heard: list[Any] = []
    app = _App(saves, fight, seat=Seat(kind="player", listen=heard.append, replaying=3))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _segment(app) == 3, "the GM's replay at 3", WAIT)
        heard[0](None)
        await wait_for(pilot, lambda: _encounter(app), "back to now", WAIT)
        heard[0](6)
        await wait_for(pilot, lambda: _segment(app) == 6, "the GM's replay at 6", WAIT)
    assert opened == [(3, True), (6, True)]


async def test_a_replay_that_cannot_be_made_is_a_message(saves: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fight = _fight(saves)
    real = replay_module.open_replay

    async def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("cannot fold")

    monkeypatch.setattr(replay_module, "open_replay", broken)
    app = _App(saves, fight, seat=Seat(kind="player"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _encounter(app), "the fight", WAIT)
        app.follow_replay(3)
        await wait_for(pilot, lambda: len(app.errors) == 1, "the fault kept", WAIT)
        assert _said(app) == ["internal error: RuntimeError: cannot fold (the app goes on; the last saved change is on disk)"]
        monkeypatch.setattr(replay_module, "open_replay", real)
        app.follow_replay(4)  # the next one opens
        await wait_for(pilot, lambda: _segment(app) == 4, "the replay at 4", WAIT)


# ------------------------------------------------------------------ quitting
async def _form_typed_into(pilot: Any, app: _App) -> FormScreen:
    await wait_for(pilot, lambda: isinstance(app.screen, StartScreen), "the start screen", WAIT)
    await settle(pilot)
    post_keys(app, ["n"])
    await wait_for(pilot, lambda: isinstance(app.screen, FormScreen), "the form", WAIT)
    await settle(pilot)
    post_keys(app, ["x"])
    await settle(pilot)
    form = app.screen
    assert isinstance(form, FormScreen) and form.has_unsaved_input()
    return form


async def test_q_quits_at_once_unless_a_form_holds_input(saves: Path) -> None:
    app = _App(saves)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, StartScreen), "the start screen", WAIT)
        await settle(pilot)
        post_keys(app, ["q"])
        await wait_for(pilot, lambda: not app.is_running, "quit", WAIT)
    assert app.return_value == 0 and app.return_code == 0
    app = _App(saves)
    async with app.run_test(size=SIZE) as pilot:
        form = await _form_typed_into(pilot, app)
        await app.action_quit()  # ctrl+q
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question", WAIT)
        assert app.screen.question == "Quit?" + LOST  # type: ignore[attr-defined]
        post_keys(app, ["n"])
        await wait_for(pilot, lambda: app.screen is form, "back to the form", WAIT)
        assert app.is_running
        await app.action_quit()
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question again", WAIT)
        post_keys(app, ["y"])
        await wait_for(pilot, lambda: not app.is_running, "quit", WAIT)
    assert app.return_value == 0


async def test_q_at_a_served_seat_always_asks_and_a_tab_says_to_close_it(saves: Path) -> None:
    app = _App(saves, seat=Seat(kind="player"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, WaitingScreen), "the waiting screen", WAIT)
        assert app.at_served_table
        await settle(pilot)
        post_keys(app, ["q"])
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question", WAIT)
        assert app.screen.question == LEAVE  # type: ignore[attr-defined]
        post_keys(app, ["y"])
        await wait_for(pilot, lambda: not app.is_running, "left", WAIT)
    assert app.return_value == 0
    # The GM's seat over ssh asks only when a form holds input (then as a local app does).
    app = _App(saves, seat=Seat(kind="gm"))
    async with app.run_test(size=SIZE) as pilot:
        assert not app.at_served_table
        await _form_typed_into(pilot, app)
        app.quit_asking()
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question", WAIT)
        assert app.screen.question == "Quit?" + LOST  # type: ignore[attr-defined]
    app = _App(saves, seat=Seat(kind="viewer"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, WaitingScreen), "the waiting screen", WAIT)
        dialog = _Fields()
        app.push_screen(dialog)
        await wait_for(pilot, lambda: app.screen is dialog and any(hasattr(w, "tracker_initial") for w in dialog.query("#one")), "the dialog", WAIT)
        await settle(pilot)
        post_keys(app, ["x"])
        await wait_for(pilot, lambda: unsaved_input(dialog), "typed", WAIT)
        app.quit_asking()
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question", WAIT)
        assert app.screen.question == LEAVE + LOST  # type: ignore[attr-defined]
    for kind in ("player", "gm"):
        app = _App(saves, seat=Seat(kind=kind, web=True))
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: len(app.screen_stack) == 2, "the first screen", WAIT)
            assert not app.at_served_table
            await settle(pilot)
            post_keys(app, ["q"])
            await wait_for(pilot, lambda: bool(app.said), "what to do", WAIT)
            app.action_help_quit()
            assert app.said == [(TAB_STAYS, "", "information", 6)] * 2
            assert app.is_running and not isinstance(app.screen, ConfirmScreen)


async def test_ctrl_c_says_how_to_quit_in_plain_words(saves: Path) -> None:
    app = _App(saves)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, StartScreen), "the start screen", WAIT)
        await settle(pilot)
        post_keys(app, ["ctrl+c"])
        await wait_for(pilot, lambda: bool(app.said), "how to quit", WAIT)
        assert app.said == [("Press q or ctrl+q to quit", "Do you want to quit?", "information", None)]
        boom = _Boom()  # no quit of its own: only the app's
        app.push_screen(boom)
        await wait_for(pilot, lambda: app.screen is boom, "a screen without q", WAIT)
        app.action_help_quit()
        assert app.said[-1] == ("Press ctrl+q to quit", "Do you want to quit?", "information", None)
    app = _App(saves, seat=Seat(kind="viewer"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, WaitingScreen), "the waiting screen", WAIT)
        app.action_help_quit()  # the waiting screen's q is the app's quit, not a command
        assert app.said[-1] == ("Press q or ctrl+q to leave the table", "Do you want to quit?", "information", None)


# ------------------------------------------------------------------ the end
async def test_the_end_writes_what_is_on_its_way_and_stops_following(saves: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fight, other = _fight(saves), _fight(saves, "other")
    gate = threading.Event()
    append = store_module.EncounterFile._append

    def slow(self: EncounterFile, data: bytes, revision: int, count: int) -> None:
        gate.wait(WAIT)
        append(self, data, revision, count)

    real_flush = WriteBehindStore.flush

    def flush_opens_the_gate(self: Any, timeout: float = 30.0) -> None:
        gate.set()
        real_flush(self, timeout)

    monkeypatch.setattr(WriteBehindStore, "flush", flush_opens_the_gate)
    app = _App(saves, fight)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _encounter(app), "the fight", WAIT)
        first = app.screen.live  # type: ignore[attr-defined]
        app.open_encounter(other)
        await wait_for(pilot, lambda: _encounter(app) and app.screen.live is not first, "the other fight", WAIT)  # type: ignore[attr-defined]
        second = app.screen.live  # type: ignore[attr-defined]
        await settle(pilot)
        assert first.follower is not None and second.follower is not None
        monkeypatch.setattr(store_module.EncounterFile, "_append", slow)
        second.run(lambda s: s.execute("note on its way"))
        assert app.unsaved
        app.exit()  # not through q: the end itself writes it
    assert app.errors == [] and gate.is_set()
    assert "on its way" in EncounterFile(other).load().encounter.log[-1].text
    assert first.follower is None and second.follower is None


async def test_q_writes_every_open_fights_changes_first(saves: Path) -> None:
    fight = _fight(saves)
    app = _App(saves, fight)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _encounter(app), "the fight", WAIT)
        live = app.screen.live  # type: ignore[attr-defined]
        live.run(lambda s: s.execute("note last words"))
        app.quit_now()
        await wait_for(pilot, lambda: not app.is_running, "quit", WAIT)
    assert app.return_value == 0 and app.errors == []
    assert "last words" in EncounterFile(fight).load().encounter.log[-1].text


async def test_q_after_a_save_that_failed_says_so_again_and_quits(saves: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fight = _fight(saves)
    app = _App(saves, fight)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _encounter(app), "the fight", WAIT)
        live = app.screen.live  # type: ignore[attr-defined]
        _disk_full(monkeypatch)
        live.run(lambda s: s.execute("note lost"))
        await wait_for(pilot, lambda: len(app.said) == 1, "the failed save said", WAIT)
        await settle(pilot)
        assert not live.store.pending
        app.quit_now()  # nothing on its way: the failure is said again as the app quits
        await wait_for(pilot, lambda: not app.is_running, "quit", WAIT)
        monkeypatch.undo()
    assert len(app.said) == 2 and app.said[1] == app.said[0] and app.said[1][0].startswith(f"{fight}: the last change was not saved: No space left on device; ")
    assert app.return_value == 0 and app.errors == []


async def test_the_collector_is_turned_on_only_for_a_caller_that_turned_it_off(saves: Path) -> None:
    gc.disable()
    try:
        app = _App(saves)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, StartScreen), "the start screen", WAIT)
            await settle(pilot)
            assert not gc.isenabled()
        app = _App(saves)
        app.collector_off = True
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, gc.isenabled, "the collector on", WAIT)
            assert app.collector_off is False
    finally:
        gc.enable()


# ------------------------------------------------------------------ run
@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Textual's own start stood in for: the app `run` made, and what it ends with."""
    made: dict[str, Any] = {"apps": [], "result": 0, "code": 0}

    def start(self: TrackerApp) -> Any:
        made["apps"].append(self)
        self._return_code = made["code"]
        return made["result"]

    monkeypatch.setattr(TrackerApp, "run", start)
    return made


def _run(capsys: pytest.CaptureFixture[str], *args: Any, **kwargs: Any) -> tuple[int, str]:
    capsys.readouterr()
    code = run(*args, **kwargs)
    return code, capsys.readouterr().err


def test_run_opens_the_fight_read_first_as_asked(saves: Path, started: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    fight = _fight(saves)
    assert _run(capsys, saves, None, False) == (0, "")
    [app] = started["apps"]
    assert (app.saves, app.file, app.viewer, app.live, app.campaign, app.replay_at, app.role, app.collector_off) == (saves, None, False, None, None, None, None, False)
    player = Role.player(["Seraph"])
    assert _run(capsys, saves, fight, False, role=player, replay=9, collector_off=True) == (0, "")
    app = started["apps"][-1]
    assert (app.saves, app.file, app.replay_at, app.role, app.collector_off, app.viewer) == (saves, fight, 9, player, True, False)
    assert app.live.path == fight and app.live.role == player and app.live.session.user == account()
    assert _run(capsys, saves, fight, True, replay=0) == (0, "")
    app = started["apps"][-1]
    assert app.viewer is True and app.live.role.is_viewer and app.replay_at == 0


def test_run_opens_a_campaign_over_its_own_folder(saves: Path, started: dict[str, Any], capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    folder = tmp_path / "camp"
    folder.mkdir()
    road = make_campaign(folder, "brandx", "The Long Road", {"Seraph": {"vp": "43", "dp": "15", "ep": "74"}})
    assert _run(capsys, saves, road, False, replay=99) == (0, "")  # no fight yet: no segment to check
    [app] = started["apps"]
    assert (app.saves, app.campaign, app.file, app.live, app.replay_at) == (folder, road, None, None, 99)


def test_run_refuses_a_file_that_does_not_load_by_name(saves: Path, started: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    bad = saves / "bad.campaign.toml"
    bad.write_text("this = is not [ toml", encoding="utf-8")
    code, err = _run(capsys, saves, bad, False)
    from tracker.persistence.campaign_file import CampaignFile

    with pytest.raises(TrackerError) as campaign_error:
        CampaignFile(bad).load()
    assert (code, err) == (1, f"tracker: {campaign_error.value}\n")
    broken = saves / "broken.toml"
    broken.write_text("this = is not [ toml", encoding="utf-8")
    with pytest.raises(TrackerError) as fight_error:
        EncounterFile(broken).load()
    assert _run(capsys, saves, broken, False) == (1, f"tracker: {fight_error.value}\n")
    fight = _fight(saves)
    from tracker.engine.replay import check_segment

    with pytest.raises(TrackerError) as past:
        check_segment(10, 9, "--replay")
    assert _run(capsys, saves, fight, False, replay=10) == (1, f"tracker: {past.value}\n")
    assert "--replay" in str(past.value) and started["apps"] == []


def test_run_says_when_textual_itself_stopped_the_app(saves: Path, started: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    started["result"], started["code"] = None, 1
    assert _run(capsys, saves, None, False) == (3, "tracker: internal error: the app stopped unexpectedly (the last saved change is on disk)\n")
    started["result"], started["code"] = None, 0
    assert _run(capsys, saves, None, False) == (0, "")
    started["result"], started["code"] = 2, 1
    assert _run(capsys, saves, None, False) == (2, "")
    started["result"], started["code"] = 5, 0
    assert _run(capsys, saves, None, False) == (5, "")

