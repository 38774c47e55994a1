"""Direct tests of tracker.ui.screens.start, worked from its docstring and
docs/decisions/0035-start-screen-files.md: campaigns first, each followed by its fights in
the campaign's order with their state, then the fights of their own under a heading; a
file that does not load is listed with its error ("cannot load"), one the tracker will not
open as "refused", the reason under the list when highlighted; Enter opens a fight or a
campaign; n / C make a new encounter / campaign from a title and a ruleset (the config's
default_ruleset first); c duplicates a fight (everything, or its roster); D deletes one,
asking first; a viewer's or player's list is read-only; `WaitingScreen` is a seat's
screen before the GM opens a fight.

The screens are shown in a bare app (tests/ui.py's `ScreenApp`) at 80x24, over files made
on disk; every file written is loaded again. Waits are on conditions, capped at 10 seconds."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from rich.text import Text
from textual.screen import Screen
from textual.containers import Vertical
from textual.widgets import DataTable, Label
from textual.worker import get_current_worker

from tracker.engine import TrackerError
from tracker.persistence import lock
from tracker.persistence.campaign_file import CampaignFile
from tracker.persistence.folder import Refused
from tracker.persistence.store import EncounterFile
from tracker.play import fights
from rulesets import registry
from tracker.ui.commands import START, for_viewer
from tracker.ui.screens import start
from tracker.ui.screens.campaign import CampaignScreen
from tracker.ui.screens.confirm import ConfirmScreen
from tracker.ui.screens.form import FormScreen
from tracker.ui.screens.help import HelpScreen
from tracker.ui.widgets.footer import KeyFooter
from tracker.ui.screens.start import (
    CAMPAIGN,
    FIGHT,
    HEADING,
    Listing,
    StartScreen,
    WaitingScreen,
    _cells,
    _check_ruleset,
    _check_what,
    _usual_ruleset,
    campaign_rows,
    listing_of,
    read_folder,
)
from tests.campaign_ui import BY, make_campaign, make_fight
from tests.test_ui_app import make_file
from tests.ui import ScreenApp, wait_for

pytestmark = pytest.mark.ui

WAIT = 10.0
SIZE = (80, 24)
PARTY = {"Seraph": {"vp": "43", "dp": "15", "ep": "74"}, "Nyx": {"vp": "30", "dp": "10", "ep": "50"}}
AT = time.mktime((2026, 11, 28, 20, 5, 0, 0, 0, -1))  # 2026-11-28 20:05, local time


def _at(path: Path) -> Path:
    os.utime(path, (AT, AT), follow_symlinks=False)
    return path


def _garbage(saves: Path, name: str = "broken") -> Path:
    path = saves / f"{name}.toml"
    path.write_text("this = is not [ toml", encoding="utf-8")
    return path


def _road(saves: Path) -> tuple[Path, Path, Path, Path]:
    """The Long Road: The Ford ended, The Hill under way, The Pass listed but deleted."""
    road = make_campaign(saves, "brandx", "The Long Road", PARTY)
    ford = make_fight(road, "ford", "The Ford", ["damage Seraph 8 resource=dp"])
    fights.end(ford, BY)
    hill = make_fight(road, "hill", "The Hill", ["add Goblin vp=20"])
    fights.end(hill, BY)
    # a third fight, started after the hill ended, then its file deleted
    gone = make_fight(road, "pass", "The Pass", [])
    return road, ford, hill, gone


# ------------------------------------------------------------------ the screen
class _App(ScreenApp):
    """The bare app with what the start screen asks of the tracker's app, kept."""

    def __init__(self, screen: Any, viewer: bool = False, role: Any = None) -> None:
        super().__init__(screen)
        self.said: list[tuple[str, str, Any]] = []
        self.opened: list[tuple[Path, bool]] = []
        self.quits = 0
        self.backs = 0
        self.viewer = viewer
        if role is not None:
            self.role = role

    def notify(self, message: str, *, title: str = "", severity: str = "information", timeout: float | None = None, markup: bool = True) -> None:  # type: ignore[override]
        self.said.append((str(message), severity, timeout))

    def open_encounter(self, path: Path, roster: bool = False) -> None:
        self.opened.append((path, roster))

    def quit_asking(self) -> None:
        self.quits += 1

    def back_to_start(self) -> None:
        self.backs += 1


def _listed(screen: StartScreen, count: int) -> Any:
    return lambda: len(screen.listings) == count and screen.query_one(DataTable).row_count == count


def _cursor(screen: StartScreen, path: Path) -> None:
    screen.query_one(DataTable).move_cursor(row=[i for i, item in enumerate(screen.listings) if item.path == path][0])


def _error(screen: Screen[Any]) -> str:
    label = screen.query_one("#start-error", Label)
    return str(label.render()) if label.display else ""


def _title(screen: Screen[Any]) -> str:
    return str(screen.query_one("#start-title", Label).render())


def _footer(footer: Any) -> str:
    return "".join(s.text for y in range(footer.size.height) for s in footer.render_line(y))


def _rows(screen: StartScreen) -> list[list[str]]:
    table = screen.query_one(DataTable)
    return [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]


async def test_the_list_shows_every_row_its_columns_as_wide_as_their_widest_cell(saves: Path) -> None:
    road, ford, hill, gone = _road(saves)
    make_file(saves, "freeform", ["add Seraph"], name="own")
    screen = StartScreen(saves)
    app = _App(screen)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, _listed(screen, 6), "the list", WAIT)
        assert _title(screen) == f"Encounters in {saves}"
        rows = _rows(screen)
        assert [r[0] for r in rows] == ["The Long Road", "  1. The Ford", "  2. The Hill", "  3. The Pass", "fights of their own", "own"]
        table = screen.query_one(DataTable)
        labels = [str(c.label) for c in table.columns.values()]
        assert labels == ["name", "ruleset", "segment", "last change"]
        assert [str(k.value) for k in table.columns] == ["name", "ruleset", "segment", "changed"]
        # widths: the widest cell or the label, whichever is wider
        assert table.columns["name"].width == len("fights of their own")
        assert table.columns["ruleset"].width == len("freeform")
        assert table.columns["segment"].width == len("under way · 0 · round 1")  # The Pass, under way
        assert table.columns["changed"].width == len("last change") + 5  # "2026-11-28 20:05" is 16
        assert table.cursor_type == "row" and table.has_focus
        assert screen.focused is table
        assert [str(k.value) for k in table.rows][:2] == [f"0:{road}", f"1:{ford}"]


async def test_before_the_folder_is_read_the_screen_shows_its_title_and_the_columns_labels(saves: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_file(saves, "freeform", [], name="own")
    read, release = start.read_folder, threading.Event()

    def read_when_released(folder: Path) -> Any:
        release.wait(WAIT)
        return read(folder)

    monkeypatch.setattr(start, "read_folder", read_when_released)
    screen = StartScreen(saves)
    app = _App(screen)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: any(w.group == "start-list" and w.is_running for w in app.workers), "the reading under way", WAIT)
        table = screen.query_one(DataTable)
        assert [str(c.label) for c in table.columns.values()] == ["name", "ruleset", "segment", "last change"] and table.row_count == 0
        assert _title(screen) == f"Encounters in {saves}"
        assert screen.query_one("#start-title", Label).has_class("title") and screen.query_one("#start-error", Label).has_class("error")
        assert str(screen.query_one("#start-error", Label).render()) == ""  # nothing to say yet
        # the ids and classes tracker.tcss styles
        assert screen.query_one("#encounters") is table and table.parent is screen.query_one("#start", Vertical)
        assert isinstance(screen.query_one("#start"), Vertical) and not table.zebra_stripes and table.cursor_type == "row"
        release.set()
        await wait_for(pilot, _listed(screen, 1), "the list", WAIT)


async def test_a_reading_that_ends_after_a_later_one_is_not_shown(saves: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_file(saves, "freeform", [], name="a")
    gone = make_file(saves, "freeform", [], name="b")
    read, calls, release = start.read_folder, [], threading.Event()

    def read_slowly_the_second_time(folder: Path) -> Any:
        calls.append(folder)
        listed = read(folder)
        if len(calls) == 2:
            release.wait(WAIT)
        return listed

    monkeypatch.setattr(start, "read_folder", read_slowly_the_second_time)
    screen = StartScreen(saves)
    app = _App(screen)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, _listed(screen, 2), "the list", WAIT)
        screen.reload()
        await wait_for(pilot, lambda: len(calls) == 2, "the slow reading under way", WAIT)
        gone.unlink()
        screen.reload()
        await wait_for(pilot, _listed(screen, 1), "the later reading shown", WAIT)
        release.set()
        await wait_for(pilot, lambda: not any(w.is_running for w in app.workers), "the slow reading ended", WAIT)
        await pilot.pause()
        assert [item.name for item in screen.listings] == ["a"]


async def test_an_odd_folder_name_is_shown_as_it_is(saves: Path) -> None:
    odd = saves / "[b]night\x07"
    odd.mkdir()
    screen = StartScreen(odd)
    app = _App(screen)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "none yet" in _title(screen), "the empty list", WAIT)
        assert _title(screen) == f"Encounters in {saves}/[b]night␇: none yet (n: new)"
        make_file(odd, "freeform", [], name="own")
        await pilot.press("g")
        await wait_for(pilot, _listed(screen, 1), "the list", WAIT)
        assert _title(screen) == f"Encounters in {saves}/[b]night␇"


async def test_an_empty_folder_says_so_and_the_columns_are_their_labels(saves: Path) -> None:
    screen = StartScreen(saves)
    app = _App(screen)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "none yet" in _title(screen), "the empty list", WAIT)
        assert _title(screen) == f"Encounters in {saves}: none yet (n: new)"
        table = screen.query_one(DataTable)
        assert [c.width for c in table.columns.values()] == [4, 7, 7, 11]
        assert _error(screen) == ""
        await pilot.press("enter")  # nothing to open
        await pilot.press("c")
        await pilot.press("D")
        await wait_for(pilot, lambda: app.screen is screen, "still the list", WAIT)
        assert app.opened == [] and app.said == []
        make_file(saves, "freeform", [], name="own")
        await pilot.press("g")
        await wait_for(pilot, _listed(screen, 1), "the list read again", WAIT)
        assert _title(screen) == f"Encounters in {saves}"


async def test_enter_opens_the_highlighted_fight_or_campaign_and_nothing_on_the_heading(saves: Path) -> None:
    road, ford, hill, gone = _road(saves)
    gone.unlink()
    own = make_file(saves, "freeform", [], name="own")
    screen = StartScreen(saves)
    app = _App(screen)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, _listed(screen, 6), "the list", WAIT)
        _cursor(screen, own)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.opened == [(own, False)], "the fight opened", WAIT)
        _cursor(screen, ford)
        await pilot.press("o")
        await wait_for(pilot, lambda: app.opened[-1:] == [(ford, False)], "the campaign's fight opened", WAIT)
        screen.query_one(DataTable).move_cursor(row=4)  # the heading
        await pilot.press("enter")
        _cursor(screen, gone)  # missing: refused with its error
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(app.said), "the refusal", WAIT)
        assert len(app.opened) == 2
        assert app.said == [("cannot open: pass.toml: no such file (the campaign lists it)", "error", 6)]
        _cursor(screen, road)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, CampaignScreen), "the campaign screen", WAIT)
        assert app.screen.path == road  # type: ignore[attr-defined]
        assert len(app.opened) == 2


async def test_the_highlighted_files_error_is_shown_under_the_list(saves: Path, tmp_path: Path) -> None:
    road, ford, hill, gone = _road(saves)
    gone.unlink()
    bad = _garbage(saves, "a-broken")
    outside = make_file(tmp_path, "freeform", [], name="elsewhere")
    link = saves / "b-link.toml"
    link.symlink_to(outside)
    screen = StartScreen(saves)
    app = _App(screen)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, _listed(screen, 7), "the list", WAIT)
        by_path = {item.path: item for item in screen.listings}
        _cursor(screen, bad)
        await wait_for(pilot, lambda: _error(screen) == f"cannot load: {by_path[bad].error}", "the load error", WAIT)
        _cursor(screen, link)
        await wait_for(pilot, lambda: _error(screen) == f"refused: {by_path[link].error}", "the refusal", WAIT)
        _cursor(screen, gone)
        await wait_for(pilot, lambda: _error(screen) == "missing: pass.toml: no such file (the campaign lists it)", "missing", WAIT)
        _cursor(screen, ford)
        await wait_for(pilot, lambda: _error(screen) == "", "no error", WAIT)
        assert _rows(screen)[[i for i, it in enumerate(screen.listings) if it.path == link][0]][2] == "refused"
        # refused and missing: neither opens
        _cursor(screen, link)
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(app.said), "refused", WAIT)
        assert app.said[-1][0] == f"cannot open: {by_path[link].error}" and app.opened == []


async def test_a_campaign_file_that_does_not_load_shows_its_error_and_does_not_open(saves: Path) -> None:
    road = saves / "road.campaign.toml"
    road.write_text("not [ toml", encoding="utf-8")
    screen = StartScreen(saves)
    app = _App(screen)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, _listed(screen, 1), "the list", WAIT)
        await wait_for(pilot, lambda: _error(screen).startswith("cannot load: "), "the error", WAIT)
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(app.said), "refused", WAIT)
        assert app.said[0][0].startswith("cannot open: ") and app.screen is screen


async def _new(pilot: Any, app: _App, key: str, name: str) -> FormScreen:
    await pilot.press(key)
    await wait_for(pilot, lambda: isinstance(app.screen, FormScreen), "the form", WAIT)
    form = app.screen
    assert isinstance(form, FormScreen)
    for ch in name:
        await pilot.press(ch if ch.isalnum() else {" ": "space", "[": "left_square_bracket", "]": "right_square_bracket", "/": "slash", "'": "apostrophe"}[ch])
    return form


async def test_new_makes_a_file_from_its_title_and_the_usual_ruleset_then_its_roster(saves: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text('default_ruleset = "ogs"\n', encoding="utf-8")
    monkeypatch.setenv("TRACKER_CONFIG", str(cfg))
    screen = StartScreen(saves)
    app = _App(screen)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "none yet" in _title(screen), "the empty list", WAIT)
        form = await _new(pilot, app, "n", "")
        assert form.title_text == "New encounter" and form.note == "then add combatants in the roster editor"
        assert form.values()["ruleset"] == "ogs"
        games = sorted(registry.available())
        name, ruleset = form.fields
        assert (name.name, name.label, name.value, name.help, name.pick) == ("name", "name", "", "the encounter's title", False)
        assert (ruleset.name, ruleset.label, ruleset.value, ruleset.help, list(ruleset.suggestions), ruleset.pick) == ("ruleset", "ruleset", "ogs", ", ".join(games), games, True)
        assert ruleset.check is not None and ruleset.check("d6") is None
        with pytest.raises(TrackerError):
            ruleset.check("chess")
        await pilot.press("ctrl+s")  # no title
        await wait_for(pilot, lambda: "name: expected a title for the encounter" in str(form.query_one("#form-error", Label).render()), "the refusal", WAIT)
        assert list(saves.iterdir()) == []
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, "back to the list", WAIT)
        assert app.opened == []
        form = await _new(pilot, app, "n", "[b]Night's Ford[/b]")
        await pilot.press("enter", "enter")
        made = saves / "b-night-s-ford-b.toml"
        await wait_for(pilot, lambda: app.opened == [(made, True)], "the roster opened", WAIT)
        enc = EncounterFile(made).load().encounter
        assert (enc.setup.name, enc.setup.ruleset) == ("[b]Night's Ford[/b]", "ogs")


async def test_new_campaign_makes_the_file_and_opens_the_campaign_screen(saves: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACKER_CONFIG", str(tmp_path / "none.toml"))
    make_file(saves, "freeform", [], name="own")
    screen = StartScreen(saves)
    app = _App(screen)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, _listed(screen, 1), "the list", WAIT)
        form = await _new(pilot, app, "C", "")
        assert form.title_text == "New campaign" and form.values()["ruleset"] == "brandx"
        assert form.note == "then add its characters (a) and start its first fight (n)" and form.fields[0].help == "the campaign's title"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "name: expected a title for the campaign" in str(form.query_one("#form-error", Label).render()), "the refusal", WAIT)
        for ch in "The Road":
            await pilot.press("space" if ch == " " else ch)
        await pilot.press("enter", "enter")
        made = saves / "the-road.campaign.toml"
        await wait_for(pilot, lambda: isinstance(app.screen, CampaignScreen), "the campaign screen", WAIT)
        assert app.screen.path == made  # type: ignore[attr-defined]
        camp = CampaignFile(made).load()
        assert (camp.name, camp.ruleset) == ("The Road", "brandx")
        await wait_for(pilot, _listed(screen, 3), "the list read again, the campaign in it", WAIT)
        assert screen.listings[screen.query_one(DataTable).cursor_row].path == made


async def test_a_campaigns_title_is_checked_as_the_command_lines(saves: Path) -> None:
    screen = StartScreen(saves)
    app = _App(screen)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "none yet" in _title(screen), "the empty list", WAIT)
        form = await _new(pilot, app, "C", "")
        form.query_one("#f-name").value = "The\x07Road"  # type: ignore[attr-defined]
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "name: control characters are not allowed (found ␇, a control character, at character 4)" == str(form.query_one("#form-error", Label).render()), "the refusal", WAIT)
        assert list(saves.iterdir()) == [] and app.screen is form


async def test_duplicate_copies_a_fight_with_its_log_or_only_its_roster(saves: Path) -> None:
    night = make_file(saves, "freeform", ["add Seraph", "add Goblin", "damage Goblin 3"], name="night")
    screen = StartScreen(saves)
    app = _App(screen)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, _listed(screen, 1), "the list", WAIT)
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(app.screen, FormScreen), "the form", WAIT)
        form = app.screen
        assert form.title_text == "Duplicate night"  # type: ignore[attr-defined]
        assert form.values() == {"name": "night copy", "what": "everything"}  # type: ignore[attr-defined]
        name, what = form.fields  # type: ignore[attr-defined]
        assert (name.name, name.label, name.value, name.help) == ("name", "new name", "night copy", "the copy's title")
        assert (what.name, what.label, what.value, list(what.suggestions)) == ("what", "copy", "everything", ["everything", "roster"])
        assert what.help == "everything, or roster: the combatants with full resources and no log"
        assert what.check is not None and what.check("roster") is None
        with pytest.raises(TrackerError):
            what.check("half")
        await pilot.press("ctrl+s")
        copy = saves / "night-copy.toml"
        await wait_for(pilot, _listed(screen, 2), "the copy listed", WAIT)
        assert screen.listings[screen.query_one(DataTable).cursor_row].path == copy
        original, copied = EncounterFile(night).load().encounter, EncounterFile(copy).load().encounter
        assert copied.setup.name == "night copy" and len(copied.log) == len(original.log) > 0
        # the roster only: the combatants fresh, no log
        _cursor(screen, night)
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(app.screen, FormScreen), "the form", WAIT)
        form = app.screen
        form.query_one("#f-name").value = "Round Two"  # type: ignore[attr-defined]
        form.query_one("#f-what").value = "roster"  # type: ignore[attr-defined]
        await pilot.press("ctrl+s")
        fresh = saves / "round-two.toml"
        await wait_for(pilot, _listed(screen, 3), "the roster copy listed", WAIT)
        assert screen.listings[screen.query_one(DataTable).cursor_row].path == fresh
        enc = EncounterFile(fresh).load().encounter
        assert enc.setup.name == "Round Two" and len(enc.log) == 0 and len(enc.combatants) == 2
        # an empty name is refused in the form; Esc makes nothing
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(app.screen, FormScreen), "the form", WAIT)
        form = app.screen
        form.query_one("#f-name").value = ""  # type: ignore[attr-defined]
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "name: expected a title for the copy" == str(form.query_one("#form-error", Label).render()), "the refusal", WAIT)
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, "back", WAIT)
        assert len(list(saves.glob("*.toml"))) == 3


async def test_a_campaign_or_a_bad_file_is_not_duplicated_nor_a_campaign_deleted(saves: Path) -> None:
    road = make_campaign(saves, "brandx", "The Long Road", PARTY)
    bad = _garbage(saves)
    screen = StartScreen(saves)
    app = _App(screen)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, _listed(screen, 3), "the list", WAIT)
        _cursor(screen, road)
        await pilot.press("c")
        await wait_for(pilot, lambda: bool(app.said), "refused", WAIT)
        assert app.said[-1] == ("duplicate: road.campaign.toml is a campaign; its file stays as it is (the campaign screen changes it: enter)", "error", 6)
        await pilot.press("D")
        await wait_for(pilot, lambda: len(app.said) == 2, "refused", WAIT)
        assert app.said[-1][0] == "delete: road.campaign.toml is a campaign; its file stays as it is (the campaign screen changes it: enter)"
        screen.query_one(DataTable).move_cursor(row=1)  # the heading: nothing
        await pilot.press("c")
        await pilot.press("D")
        _cursor(screen, bad)
        await pilot.press("c")
        await wait_for(pilot, lambda: len(app.said) == 3, "refused", WAIT)
        item = [i for i in screen.listings if i.path == bad][0]
        assert app.said[-1][0] == f"cannot duplicate a file that does not load: {item.error}"
        assert app.screen is screen and road.exists()


async def test_delete_asks_first_then_deletes_the_save_and_lists_the_folder_again(saves: Path) -> None:
    road, ford, hill, gone = _road(saves)
    gone.unlink()
    own = make_file(saves, "freeform", [], name="own")
    screen = StartScreen(saves)
    app = _App(screen)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, _listed(screen, 6), "the list", WAIT)
        _cursor(screen, own)
        await pilot.press("D")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question", WAIT)
        assert app.screen.question == "Delete own (own.toml)? This cannot be undone."  # type: ignore[attr-defined]
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is screen, "back", WAIT)
        assert own.exists()
        await pilot.press("delete")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question", WAIT)
        await pilot.press("y")
        await wait_for(pilot, _listed(screen, 4), "the list without it", WAIT)
        assert not own.exists() and [i.name for i in screen.listings][-1] == "  3. The Pass"
        _cursor(screen, hill)
        await pilot.press("D")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question", WAIT)
        assert app.screen.question == "Delete 2. The Hill (hill.toml)? This cannot be undone. Its campaign will list it as missing."  # type: ignore[attr-defined]
        await pilot.press("y")
        await wait_for(pilot, lambda: [i.status for i in screen.listings[1:]] == ["ended", "missing", "missing"], "listed as missing", WAIT)
        assert not hill.exists()
        _cursor(screen, gone)
        await pilot.press("D")
        await wait_for(pilot, lambda: bool(app.said), "refused", WAIT)
        assert app.said == [("pass.toml is not there to delete", "error", 6)] and app.screen is screen


@pytest.mark.parametrize("failure", ["gone", "os", "tracker"])
async def test_a_delete_that_fails_says_why_and_lists_the_folder_again(saves: Path, monkeypatch: pytest.MonkeyPatch, failure: str) -> None:
    own = make_file(saves, "freeform", [], name="own")
    other = make_file(saves, "freeform", [], name="other")

    threads: list[tuple[str, bool]] = []

    def refuse(path: Path) -> None:
        threads.append((get_current_worker().group, threading.current_thread() is threading.main_thread()))
        other.unlink()  # the list is read again after it
        if failure == "gone":
            raise FileNotFoundError(2, "No such file or directory")
        if failure == "os":
            raise PermissionError(13, "Permission denied")
        raise TrackerError("held by another")

    monkeypatch.setattr(lock, "delete", refuse)
    screen = StartScreen(saves)
    app = _App(screen)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, _listed(screen, 2), "the list", WAIT)
        _cursor(screen, own)
        await pilot.press("D")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question", WAIT)
        await pilot.press("y")
        await wait_for(pilot, _listed(screen, 1), "the list read again", WAIT)
        said = {"gone": [], "os": [(f"{own}: cannot delete: Permission denied", "error", None)], "tracker": [(f"{own}: cannot delete: held by another", "error", None)]}
        assert app.said == said[failure]
        assert threads == [("start-delete", False)]  # off the event loop: lock.delete may wait


async def test_the_list_is_read_again_when_the_screen_comes_back(saves: Path) -> None:
    make_file(saves, "freeform", [], name="a")
    b = make_file(saves, "freeform", [], name="b")
    screen = StartScreen(saves)
    app = _App(screen)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, _listed(screen, 2), "the list", WAIT)
        _cursor(screen, b)
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "the help", WAIT)
        assert app.screen.commands == START and app.screen.title_text == "Encounters"  # type: ignore[attr-defined]
        make_file(saves, "freeform", [], name="c")
        app.pop_screen()
        await wait_for(pilot, _listed(screen, 3), "the list read again", WAIT)
        assert screen.listings[screen.query_one(DataTable).cursor_row].path == b  # the highlight kept
        assert screen.__dict__["_in_thread_started"] == {"start-list": 2}  # on mount, and on coming back
        await pilot.press("q")
        await wait_for(pilot, lambda: app.quits == 1, "asked to quit", WAIT)


async def test_an_empty_list_is_not_read_again_on_coming_back(saves: Path) -> None:
    screen = StartScreen(saves)
    app = _App(screen)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "none yet" in _title(screen), "the empty list", WAIT)
        make_file(saves, "freeform", [], name="c")
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "the help", WAIT)
        app.pop_screen()
        await wait_for(pilot, lambda: app.screen is screen, "back", WAIT)
        await pilot.press("g")  # after the resume's reading, if there were one
        await wait_for(pilot, _listed(screen, 1), "the list read again", WAIT)
        assert screen.__dict__["_in_thread_started"] == {"start-list": 2}  # on mount, and g: none on coming back


@pytest.mark.parametrize("who", ["viewer", "player"])
async def test_a_viewers_or_players_list_opens_but_changes_nothing(saves: Path, who: str) -> None:
    own = make_file(saves, "freeform", [], name="own")
    screen = StartScreen(saves)
    app = _App(screen, viewer=who == "viewer", role=SimpleNamespace(is_player=True) if who == "player" else SimpleNamespace(is_player=False))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, _listed(screen, 1), "the list", WAIT)
        assert screen.viewer
        for key in ("n", "c", "D", "C"):
            await pilot.press(key)
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "the help", WAIT)
        assert app.screen.commands == for_viewer(START)  # type: ignore[attr-defined]
        app.pop_screen()
        await wait_for(pilot, lambda: app.screen is screen, "back", WAIT)
        assert own.exists() and list(saves.glob("*.toml")) == [own]
        assert not screen.check_action("cmd", ("new",)) and screen.check_action("cmd", ("open",))
        assert screen.check_action("cmd", ()) is False
        screen.action_cmd("delete")  # reached some other way: refused still
        assert app.said == [("Delete: refused, this is a read-only viewer", "warning", None)]
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.opened == [(own, False)], "opened", WAIT)


async def test_a_gms_list_allows_every_command(saves: Path) -> None:
    screen = StartScreen(saves)
    app = _App(screen, role=SimpleNamespace(is_player=False))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "none yet" in _title(screen), "the empty list", WAIT)
        assert not screen.viewer
        assert screen.check_action("cmd", ("new",)) is True and screen.check_action("other", ()) is True
        # the footer's keys in the command table's order (enter is the table's own select)
        assert list(screen.active_bindings)[:6] == ["o", "n", "c", "delete", "D", "g"]


async def test_a_seat_waiting_for_the_gm_says_so_and_esc_says_where_it_is() -> None:
    waiting = WaitingScreen(SimpleNamespace(name="seat"))  # type: ignore[arg-type]
    app = _App(waiting)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.screen is waiting, "the waiting screen", WAIT)
        assert str(waiting.query_one("#waiting-title", Label).render()) == "The GM has not opened a fight yet."
        assert str(waiting.query_one("#waiting-note", Label).render()) == "This screen changes to the table's fight as soon as the GM opens one."
        assert waiting.seat.name == "seat"  # type: ignore[attr-defined]
        # the ids and classes tracker.tcss styles, as the start screen's
        assert waiting.query_one("#waiting-title", Label).has_class("title") and waiting.query_one("#waiting-title").parent is waiting.query_one("#start", Vertical)
        footer = waiting.query_one(KeyFooter)
        await wait_for(pilot, lambda: "Quit" in _footer(footer), "the footer", WAIT)
        assert "Where am I" not in _footer(footer)  # Esc: not in the footer
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.backs == 1, "where am I", WAIT)
        await pilot.press("q")
        await wait_for(pilot, lambda: not app.is_running, "quit", WAIT)


# ------------------------------------------------------------------ the pure parts
def test_a_fight_is_listed_with_its_name_ruleset_segment_and_last_change(saves: Path) -> None:
    fight = _at(make_file(saves, "freeform", ["add Seraph"], name="night"))
    item = listing_of(fight)
    assert item == Listing(fight, "night", "freeform", "0 · round 1", "2026-11-28 20:05")
    assert item.kind == FIGHT and item.campaign is None and item.status == "" and not item.refused and item.error == ""


def test_a_file_that_does_not_load_is_listed_with_its_error_never_raised(saves: Path) -> None:
    bad = _at(_garbage(saves))
    item = listing_of(bad)
    assert (item.path, item.name, item.ruleset, item.segment, item.changed) == (bad, "broken", "?", "?", "2026-11-28 20:05")
    assert item.error and str(bad.name) in item.error and not item.refused and item.kind == FIGHT


def test_a_link_out_of_the_folder_is_refused_never_read(saves: Path, tmp_path: Path) -> None:
    outside = make_file(tmp_path, "freeform", [], name="elsewhere")
    link = saves / "link.toml"
    link.symlink_to(outside)
    _at(link)
    os.utime(outside, (0, 0))  # the link's own time is listed, not its target's
    item = listing_of(link)
    with pytest.raises(Refused) as refused:
        EncounterFile(link).load()
    assert item.refused and item.error == str(refused.value) and item.path == link and (item.name, item.ruleset, item.segment, item.changed) == ("link", "?", "?", "2026-11-28 20:05")


def test_a_file_gone_before_it_is_looked_at_has_no_time(saves: Path) -> None:
    item = listing_of(saves / "gone.toml")
    assert item.changed == "?" and item.error and item.name == "gone"


def test_a_bug_in_loading_names_its_exception_and_the_list_goes_on(saves: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fight = _at(make_file(saves, "freeform", [], name="night"))

    def broken(self: Any) -> Any:
        raise ValueError("an adapter's bug")

    monkeypatch.setattr(EncounterFile, "load", broken)
    item = listing_of(fight)
    assert item.error == "ValueError: an adapter's bug" and item.name == "night" and not item.refused
    assert (item.path, item.ruleset, item.segment, item.changed) == (fight, "?", "?", "2026-11-28 20:05")


def test_a_campaign_is_followed_by_its_fights_in_order_with_their_state(saves: Path) -> None:
    road, ford, hill, gone = _road(saves)
    gone.unlink()
    own = make_file(saves, "freeform", [], name="own")
    _at(road)
    _at(ford)
    loose = {p.name: listing_of(p) for p in (ford, hill, own)}
    rows = campaign_rows(road, loose)
    assert list(loose) == ["own.toml"]  # the campaign's fights taken out of the loose ones
    assert [r.kind for r in rows] == [CAMPAIGN, FIGHT, FIGHT, FIGHT]
    head = rows[0]
    assert (head.path, head.name, head.ruleset, head.segment, head.changed, head.error) == (road, "The Long Road", "brandx", "campaign, party of 2", "2026-11-28 20:05", "")
    assert head.campaign is None and head.status == ""
    names = [r.name for r in rows[1:]]
    assert names == ["  1. The Ford", "  2. The Hill", "  3. The Pass"]
    assert [r.status for r in rows[1:]] == ["ended", "ended", "missing"]
    assert [r.segment for r in rows[1:]] == ["ended", "ended", "missing"]
    assert all(r.campaign == road and r.ruleset == "brandx" for r in rows[1:])
    assert [r.path for r in rows[1:]] == [ford, hill, gone]
    assert rows[1].changed == "2026-11-28 20:05" and rows[3].changed == "-"
    assert rows[3].error == "pass.toml: no such file (the campaign lists it)" and rows[1].error == "" and not rows[3].refused


def test_a_fight_under_way_shows_its_segment_beside_its_state(saves: Path) -> None:
    road = make_campaign(saves, "brandx", "The Long Road", PARTY)
    hill = make_fight(road, "hill", "The Hill", ["add Goblin vp=20"])
    loose = {hill.name: listing_of(hill)}
    rows = campaign_rows(road, loose)
    assert rows[1].status == "under way" and rows[1].segment == f"under way · {listing_of(hill).segment}"
    assert listing_of(hill).segment.startswith("0 · ")
    assert not loose
    # a fight under way whose file is not among the loose ones: its state alone
    alone = campaign_rows(road, {})[1]
    assert (alone.segment, alone.changed, alone.error, alone.refused) == ("under way", "-", "", False)


def test_a_campaign_fight_that_does_not_load_keeps_its_error_and_refusal(saves: Path) -> None:
    road = make_campaign(saves, "brandx", "The Long Road", PARTY)
    hill = make_fight(road, "hill", "The Hill", [])
    hill.write_text("not [ toml", encoding="utf-8")
    bad = listing_of(hill)
    rows = campaign_rows(road, {hill.name: bad})
    assert rows[1].error == bad.error and rows[1].error and rows[1].segment == rows[1].status
    refused = Listing(hill, "hill", "?", "?", "x", "too big", refused=True)
    assert campaign_rows(road, {hill.name: refused})[1].refused is True


def test_a_campaign_file_that_does_not_load_is_one_row_with_its_error(saves: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    road = saves / "road.campaign.toml"
    road.write_text("not [ toml", encoding="utf-8")
    _at(road)
    loose = {"x.toml": Listing(saves / "x.toml", "x", "freeform", "0", "-")}
    rows = campaign_rows(road, loose)
    assert len(rows) == 1 and len(loose) == 1
    row = rows[0]
    assert (row.path, row.name, row.ruleset, row.segment, row.changed, row.kind) == (road, "road.campaign.toml", "?", "campaign", "2026-11-28 20:05", CAMPAIGN)
    with pytest.raises(TrackerError) as refused:
        CampaignFile(road).load()
    assert row.error == str(refused.value) and not row.refused

    def broken(self: Any) -> Any:
        raise KeyError("a bug")

    monkeypatch.setattr(CampaignFile, "load", broken)
    row = campaign_rows(road, loose)[0]
    assert row.error == "KeyError: 'a bug'" and row.path == road and (row.name, row.ruleset, row.segment, row.kind) == ("road.campaign.toml", "?", "campaign", CAMPAIGN)
    assert row.changed == "2026-11-28 20:05"


def test_a_campaign_file_gone_has_no_time(saves: Path) -> None:
    assert campaign_rows(saves / "gone.campaign.toml", {})[0].changed == "?"


def test_the_folder_lists_campaigns_then_a_heading_then_the_fights_of_their_own(saves: Path) -> None:
    road, ford, hill, gone = _road(saves)
    own = make_file(saves, "freeform", [], name="own")
    rows = read_folder(saves)
    assert [r.name for r in rows] == ["The Long Road", "  1. The Ford", "  2. The Hill", "  3. The Pass", "fights of their own", "own"]
    heading = rows[4]
    assert (heading.path, heading.kind, heading.ruleset, heading.segment, heading.changed, heading.error) == (saves, HEADING, "", "", "", "")
    assert rows[-1].path == own


def test_every_campaign_is_listed_each_with_its_fights(saves: Path) -> None:
    make_campaign(saves, "brandx", "The Long Road", PARTY, file="a-road")
    hill = make_campaign(saves, "ogs", "Under the Hill", {"Ayla": {"hp": "20"}}, file="b-hill")
    make_fight(hill, "cave", "The Cave", [])
    make_file(saves, "freeform", [], name="own")
    rows = read_folder(saves)
    assert [r.name for r in rows] == ["The Long Road", "Under the Hill", "  1. The Cave", "fights of their own", "own"]


def test_no_heading_without_campaigns_or_without_fights_of_their_own(saves: Path) -> None:
    assert read_folder(saves) == []
    make_file(saves, "freeform", [], name="own")
    assert [r.name for r in read_folder(saves)] == ["own"]
    (saves / "own.toml").unlink()
    make_campaign(saves, "brandx", "The Long Road", PARTY)
    assert [r.name for r in read_folder(saves)] == ["The Long Road"]


def test_the_ruleset_is_one_of_the_registry(saves: Path) -> None:
    _check_ruleset("ogs")
    with pytest.raises(TrackerError) as refused:
        _check_ruleset("chess")
    # every game installed, in name order (the tests' own games among them)
    assert str(refused.value) == f"ruleset: expected one of {', '.join(sorted(registry.available()))}, got 'chess'"
    assert str(refused.value).startswith("ruleset: expected one of brandx, d6, freeform, ogs")


def test_a_copy_is_everything_or_roster(saves: Path) -> None:
    _check_what("everything")
    _check_what("roster")
    with pytest.raises(TrackerError) as refused:
        _check_what("half")
    assert str(refused.value) == "copy: expected everything or roster, got 'half'"


def test_the_usual_ruleset_is_the_configs_else_the_first(saves: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = tmp_path / "config.toml"
    monkeypatch.setenv("TRACKER_CONFIG", str(cfg))
    assert _usual_ruleset(["brandx", "ogs"]) == "brandx"  # no config file
    cfg.write_text('default_ruleset = "ogs"\n', encoding="utf-8")
    assert _usual_ruleset(["brandx", "ogs"]) == "ogs"
    assert _usual_ruleset(["brandx", "d6"]) == "brandx"  # the config's is not offered
    cfg.write_text('default_ruleset = "chess"\n', encoding="utf-8")
    assert _usual_ruleset(["d6", "ogs"]) == "d6"  # a bad config: the first
    cfg.write_text("theme = [", encoding="utf-8")
    assert _usual_ruleset(["d6", "ogs"]) == "d6"


def test_each_kind_of_row_has_its_cells(saves: Path) -> None:
    heading = _cells(Listing(saves, "fights of their own", "", "", "", kind=HEADING))
    assert [c.plain for c in heading] == ["fights of their own", "", "", ""]
    assert str(heading[0].style) == "italic dim" and heading[0].no_wrap
    camp = _cells(Listing(saves / "r.campaign.toml", "The [b]Road\x07", "brandx", "campaign, party of 2", "2026-11-28 20:05", kind=CAMPAIGN))
    assert camp[0].plain != "The [b]Road\x07" and camp[0].plain.startswith("The [b]Road") and "\x07" not in camp[0].plain
    assert str(camp[0].style) == "bold" and camp[0].no_wrap and camp[0].overflow == "ellipsis"
    assert [c.plain for c in camp[1:]] == ["brandx", "campaign, party of 2", "2026-11-28 20:05"]
    bad_camp = _cells(Listing(saves / "r.campaign.toml", "r.campaign.toml", "?", "campaign", "-", "bad toml", kind=CAMPAIGN))
    assert [c.plain for c in bad_camp] == ["r.campaign.toml", "-", "cannot load", "-"] and str(bad_camp[0].style) != "bold"
    missing = _cells(Listing(saves / "pass.toml", "  3. The Pass", "brandx", "missing", "-", "pass.toml: no such file", campaign=saves / "r", status="missing"))
    assert [c.plain for c in missing] == ["  3. The Pass", "brandx", "missing", "-"]
    refused = _cells(Listing(saves / "link.toml", "link", "?", "?", "-", "a link out", refused=True))
    assert [c.plain for c in refused] == ["link.toml", "-", "refused", "-"]
    cannot = _cells(Listing(saves / "bad.toml", "bad", "?", "?", "x", "bad toml"))
    assert [c.plain for c in cannot] == ["bad.toml", "-", "cannot load", "x"]
    fight = _cells(Listing(saves / "a.toml", "[red]Night[/red]", "ogs", "0 · round 1", "x"))
    assert [c.plain for c in fight] == ["[red]Night[/red]", "ogs", "0 · round 1", "x"]
    assert all(isinstance(c, Text) and c.no_wrap and c.overflow == "ellipsis" and not c.spans and str(c.style) == "" for c in fight)
    under_campaign_no_status = _cells(Listing(saves / "a.toml", "a", "ogs", "?", "x", "bad", campaign=saves / "r"))
    assert [c.plain for c in under_campaign_no_status] == ["a.toml", "-", "cannot load", "x"]
