"""The start screen: the encounters in the saves folder.

Campaigns first (tracker.persistence.campaign), each followed by its fights in the campaign's order
with their state (`reading.fight_status`: under way, ended, missing, changed since it
ended), then the fights of their own under a heading. A campaign file that does not
load is listed with its error, as a bad save is. Enter on a campaign opens the campaign
screen (tracker.ui.screens.campaign).

`WaitingScreen`: a player's or viewer's seat at a served table (`tracker serve` without
`--encounter`) before the GM has opened a fight. It lists nothing and opens nothing; the
server starts the seat's app again on the fight as soon as the GM opens one.

Decisions: docs/decisions/0035-start-screen-files.md
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Label

from tracker.persistence import config, paths
from tracker.engine import TrackerError
from tracker.persistence.library import new_from_roster
from tracker.persistence import lock
from tracker.persistence.folder import Refused
from tracker.persistence.store import EncounterFile
from tracker.engine.text import cells as text_cells, check_name, printable
from tracker.ui.background import in_thread
from tracker.ui.naming import slug
from tracker.ui.commands import START, Command, bindings, for_viewer, viewer_may, in_table_order
from tracker.ui.screens.confirm import ConfirmScreen
from tracker.ui.screens.form import FormField, FormScreen, set_error
from tracker.ui.screens.help import HelpScreen
from tracker.ui.widgets.footer import KeyFooter

if TYPE_CHECKING:
    from tracker.ui.seat import Seat
from rulesets import registry


FIGHT, CAMPAIGN, HEADING = "fight", "campaign", "heading"


@dataclass(frozen=True, slots=True)
class Listing:
    """One row of the list: a fight, a campaign, or the heading over the fights of their own."""

    path: Path
    name: str
    ruleset: str
    segment: str
    changed: str
    error: str = ""
    refused: bool = False  # never opened: a link out of the folder, a FIFO, too big
    kind: str = FIGHT
    campaign: Path | None = None  # a fight listed under its campaign: that campaign's file
    status: str = ""  # such a fight's state in its campaign (reading.fight_status)


def listing_of(path: Path) -> Listing:
    """One row of the list; never raises for a bad file."""
    try:
        # The entry itself (a link's own time): nothing outside the folder is looked at.
        changed = time.strftime("%Y-%m-%d %H:%M", time.localtime(path.lstat().st_mtime))
    except OSError:
        changed = "?"
    try:
        loaded = EncounterFile(path).load()
    except Refused as exc:
        return Listing(path, path.stem, "?", "?", changed, str(exc), refused=True)
    except TrackerError as exc:
        return Listing(path, path.stem, "?", "?", changed, str(exc))
    except Exception as exc:  # a bug in an adapter must not take the list down
        return Listing(path, path.stem, "?", "?", changed, f"{type(exc).__name__}: {exc}")
    enc = loaded.encounter
    return Listing(path, enc.setup.name, enc.setup.ruleset, enc.time.brief(enc.now), changed)


def _changed_at(path: Path) -> str:
    try:
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(path.lstat().st_mtime))
    except OSError:
        return "?"


def campaign_rows(path: Path, fights: dict[str, Listing]) -> list[Listing]:
    """A campaign's row and its fights' rows (taken out of `fights`, the loose ones)."""
    from tracker.reading import campaign as reading
    from tracker.persistence.campaign_file import CampaignFile

    changed = _changed_at(path)
    try:
        camp = CampaignFile(path).load()
    except TrackerError as exc:
        return [Listing(path, path.name, "?", "campaign", changed, str(exc), kind=CAMPAIGN)]
    except Exception as exc:  # a bug must not take the list down
        return [Listing(path, path.name, "?", "campaign", changed, f"{type(exc).__name__}: {exc}", kind=CAMPAIGN)]
    party = len(camp.party())
    rows = [Listing(path, camp.name, camp.ruleset, f"campaign, party of {party}", changed, kind=CAMPAIGN)]
    for number, fight in enumerate(camp.fights, 1):
        status = reading.fight_status(path.parent, fight)
        item = fights.pop(fight.file, None)
        shown = f"{status} · {item.segment}" if status == reading.OPEN and item is not None and not item.error else status
        error = f"{fight.file}: no such file (the campaign lists it)" if status == reading.MISSING else item.error if item is not None else ""
        rows.append(Listing(path.parent / fight.file, f"  {number}. {fight.name}", camp.ruleset, shown, item.changed if item else "-", error,
                            item.refused if item else False, FIGHT, path, status))
    return rows


def read_folder(saves: Path) -> list[Listing]:
    """Every row of the list, in order (see the module docstring); never raises for a bad file."""
    fights = {p.name: listing_of(p) for p in paths.encounter_files(saves)}
    rows: list[Listing] = []
    for path in paths.campaign_files(saves):
        rows += campaign_rows(path, fights)
    if rows and fights:
        rows.append(Listing(saves, "fights of their own", "", "", "", kind=HEADING))
    return rows + list(fights.values())


def _check_ruleset(text: str) -> None:
    if text not in registry.available():
        raise TrackerError(f"ruleset: expected one of {', '.join(sorted(registry.available()))}, got {text!r}")


def _usual_ruleset(available: list[str]) -> str:
    """The config's default_ruleset when it names one of `available`, else the first."""
    try:
        chosen = config.load().default_ruleset
    except TrackerError:  # a bad config file is reported where the app starts
        chosen = None
    return chosen if chosen in available else available[0]


def _cell(text: str) -> Text:
    """A table cell from a file: plain text, controls made visible (DataTable reads str as markup)."""
    return Text(printable(text), no_wrap=True, overflow="ellipsis")


COLUMNS = (("name", "name"), ("ruleset", "ruleset"), ("segment", "segment"), ("changed", "last change"))  # key, label


def _cells(item: Listing) -> tuple[Text, ...]:
    if item.kind == HEADING:
        return Text(item.name, style="italic dim", no_wrap=True), _cell(""), _cell(""), _cell("")
    if item.kind == CAMPAIGN and not item.error:
        return Text(printable(item.name), style="bold", no_wrap=True, overflow="ellipsis"), _cell(item.ruleset), _cell(item.segment), _cell(item.changed)
    if item.campaign is not None and item.status:
        return _cell(item.name), _cell(item.ruleset), _cell(item.segment), _cell(item.changed)
    if item.error:
        state = "refused" if item.refused else "cannot load"
        return _cell(item.path.name), _cell("-"), _cell(state), _cell(item.changed)
    return _cell(item.name), _cell(item.ruleset), _cell(item.segment), _cell(item.changed)


def fill(table: DataTable[Any], rows: list[tuple[str, tuple[Text, ...]]]) -> None:
    """`table` holding only `rows` (key, cells), each column as wide as its widest cell or
    label. The widths are given, not left to the table: Textual's DataTable measures
    auto-width columns only when it next idles and keeps the rows it drew before that,
    so a frame in between (a busy machine) left every column at its label's width for
    good (decision 0035)."""
    table.clear(columns=True)
    for i, (key, label) in enumerate(COLUMNS):
        table.add_column(label, key=key, width=max([text_cells(label), *(cells[i].cell_len for _, cells in rows)]))
    for key, cells in rows:
        table.add_row(*cells, key=key)


def _check_what(text: str) -> None:
    if text not in ("everything", "roster"):
        raise TrackerError(f"copy: expected everything or roster, got {text!r}")


class StartScreen(Screen[None]):
    COMMAND_TABLE: tuple[Command, ...] = START

    @property
    def active_bindings(self) -> dict[str, Any]:
        return in_table_order(super().active_bindings, self.COMMAND_TABLE)
    BINDINGS = bindings(START)

    def __init__(self, saves: Path) -> None:
        super().__init__()
        self.saves = saves
        self.listings: list[Listing] = []
        # The row a reading under way is to highlight (a new copy, a new campaign): kept
        # until a reading is shown, as the screen's resume reads the folder again right
        # after the form that made it closes, and that later reading is the one shown.
        self.selecting: Path | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="start"):
            yield Label(Text(printable(f"Encounters in {self.saves}")), classes="title", id="start-title")
            yield DataTable(id="encounters", cursor_type="row", zebra_stripes=False)
            yield Label("", id="start-error", classes="error")
        yield KeyFooter()

    def on_mount(self) -> None:
        fill(self.query_one(DataTable), [])  # the labels while the files are read
        # The files are read once the screen is up: the reading thread (every save
        # replayed, each ruleset and the dice library imported) would otherwise hold the
        # interpreter while the first frame is built, and the screen would come later.
        self.call_after_refresh(self.reload)

    def on_screen_resume(self) -> None:
        if self.is_mounted and self.listings:
            self.reload()

    @property
    def viewer(self) -> bool:
        role = getattr(self.app, "role", None)  # a player's start screen is read-only too
        return bool(getattr(self.app, "viewer", False)) or bool(role is not None and role.is_player)

    def reload(self, select: Path | None = None) -> None:
        """Read the folder again, keeping the highlighted encounter unless told otherwise."""
        if select is not None:
            self.selecting = select
        else:
            item = self._current()
            select = self.selecting or (item.path if item is not None else None)
        in_thread(self, functools.partial(read_folder, self.saves), functools.partial(self._show, select=select), group="start-list", latest=True)

    def _show(self, listings: list[Listing], select: Path | None = None) -> None:
        self.listings, self.selecting = listings, None
        table = self.query_one(DataTable)
        # Keyed by place too: a file two campaigns both list (a file made by hand) is two rows.
        fill(table, [(f"{i}:{item.path}", _cells(item)) for i, item in enumerate(listings)])
        if not listings:
            self.query_one("#start-title", Label).update(Text(printable(f"Encounters in {self.saves}: none yet (n: new)")))
        else:
            self.query_one("#start-title", Label).update(Text(printable(f"Encounters in {self.saves}")))
        for i, item in enumerate(listings):
            if item.path == select:
                table.move_cursor(row=i)
        self._show_error()
        table.focus()

    def _current(self) -> Listing | None:
        table = self.query_one(DataTable)
        if not self.listings or table.cursor_row is None or table.cursor_row >= len(self.listings):
            return None
        return self.listings[table.cursor_row]

    @on(DataTable.RowHighlighted)
    def _show_error(self) -> None:
        item = self._current()
        state = "refused" if item is not None and item.refused else "cannot load"
        if item is not None and item.status == "missing":
            state = "missing"
        set_error(self.query_one("#start-error", Label), Text(printable(f"{state}: {item.error}")) if item and item.error else "")

    @on(DataTable.RowSelected)
    def _selected(self) -> None:
        self.action_cmd("open")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cmd" and self.viewer:
            return viewer_may(START, str(parameters[0]) if parameters else "")
        return True

    def action_cmd(self, name: str) -> None:
        command = next(c for c in START if c.name == name)
        if command.edits and self.viewer:
            self.notify(f"{command.label}: refused, this is a read-only viewer", severity="warning")
            return
        try:
            getattr(self, f"do_{name}")()
        except TrackerError as exc:
            self.notify(str(exc), severity="error", timeout=6)

    def do_open(self) -> None:
        item = self._current()
        if item is None or item.kind == HEADING:
            return
        if item.error:
            raise TrackerError(f"cannot open: {item.error}")
        if item.kind == CAMPAIGN:
            from tracker.ui.screens.campaign import CampaignScreen  # loads on first use

            self.app.push_screen(CampaignScreen(item.path))
            return
        self.app.open_encounter(item.path)  # type: ignore[attr-defined]

    def _fight_only(self, item: Listing | None, what: str) -> Listing | None:
        if item is None or item.kind == HEADING:
            return None
        if item.kind == CAMPAIGN:
            raise TrackerError(f"{what}: {item.path.name} is a campaign; its file stays as it is (the campaign screen changes it: enter)")
        return item

    def _title_and_ruleset(self, what: str, note: str, create: Callable[[Path, str, str], object], suffix: str, opened: Callable[[Path], None]) -> None:
        """A new file from its title and game: `create(path, title, ruleset)`, then `opened(path)`."""
        available = sorted(registry.available())
        fields = [
            FormField("name", "name", "", f"the {what}'s title", lambda t: None),
            # Chosen from the list, never typed: starting on the config's default_ruleset
            # (else the first), so Tab then Enter makes what the GM set as usual.
            FormField("ruleset", "ruleset", _usual_ruleset(available), ", ".join(available), _check_ruleset, available, pick=True),
        ]
        created: list[Path] = []

        def submit(values: dict[str, str]) -> None:
            if not values["name"]:
                raise TrackerError(f"name: expected a title for the {what}")
            _check_ruleset(values["ruleset"])
            path = self.saves / f"{slug(values['name'])}{suffix}"
            create(path, values["name"], values["ruleset"])
            created.append(path)

        def done(values: dict[str, str] | None) -> None:
            if created:
                opened(created[0])

        self.app.push_screen(FormScreen(f"New {what}", fields, submit, note=note), done)

    def do_new(self) -> None:
        self._title_and_ruleset("encounter", "then add combatants in the roster editor", EncounterFile.create, paths.SUFFIX,
                                lambda path: self.app.open_encounter(path, roster=True))  # type: ignore[attr-defined]

    def do_new_campaign(self) -> None:
        from tracker.persistence.campaign_file import SUFFIX, CampaignFile

        def opened(path: Path) -> None:
            from tracker.ui.screens.campaign import CampaignScreen

            self.reload(path)
            self.app.push_screen(CampaignScreen(path))

        def create(path: Path, title: str, ruleset: str) -> object:
            check_name(title, "name")  # as the command line's --title
            return CampaignFile.create(path, title, ruleset)

        self._title_and_ruleset("campaign", "then add its characters (a) and start its first fight (n)", create, SUFFIX, opened)

    def do_duplicate(self) -> None:
        item = self._fight_only(self._current(), "duplicate")
        if item is None:
            return
        if item.error:
            raise TrackerError(f"cannot duplicate a file that does not load: {item.error}")
        created: list[Path] = []

        def submit(values: dict[str, str]) -> None:
            name = values["name"]
            if not name:
                raise TrackerError("name: expected a title for the copy")
            path = self.saves / f"{slug(name)}{paths.SUFFIX}"
            if values.get("what") == "roster":
                new_from_roster(item.path, path, name)  # the combatants, fresh, no log
            else:
                EncounterFile(item.path).duplicate(path, name)
            created.append(path)

        def done(values: dict[str, str] | None) -> None:
            if created:
                self.reload(created[0])

        what = FormField("what", "copy", "everything", "everything, or roster: the combatants with full resources and no log", _check_what, ("everything", "roster"))
        self.app.push_screen(FormScreen(f"Duplicate {item.name}", [FormField("name", "new name", f"{item.name} copy", "the copy's title"), what], submit), done)

    def do_delete(self) -> None:
        item = self._fight_only(self._current(), "delete")
        if item is None:
            return
        if item.status == "missing":
            raise TrackerError(f"{item.path.name} is not there to delete")
        also = " Its campaign will list it as missing." if item.campaign is not None else ""

        def answer(yes: bool | None) -> None:
            if yes:
                self._delete(item.path)

        self.app.push_screen(ConfirmScreen(f"Delete {item.name.strip()} ({item.path.name})? This cannot be undone.{also}"), answer)

    @work(thread=True, group="start-delete")
    def _delete(self, path: Path) -> None:
        """Delete the save and its lock file (lock.delete: it may wait for a change under
        way, so not on the event loop), then list the folder again."""
        try:
            lock.delete(path)
        except FileNotFoundError:
            pass  # already gone: the list shows it
        except OSError as exc:
            self.app.call_from_thread(self.notify, f"{path}: cannot delete: {exc.strerror}", severity="error")
        except TrackerError as exc:
            self.app.call_from_thread(self.notify, f"{path}: cannot delete: {exc}", severity="error")
        self.app.call_from_thread(self.reload)

    def do_reload(self) -> None:
        self.reload()

    def do_help(self) -> None:
        self.app.push_screen(HelpScreen("Encounters", for_viewer(START) if self.viewer else START))

    def do_quit(self) -> None:
        self.app.quit_asking()  # type: ignore[attr-defined]


class WaitingScreen(Screen[None]):
    """A seat at a table with no fight yet (see the module docstring)."""

    BINDINGS = [Binding("escape", "where", "Where am I", show=False), Binding("q", "app.quit", "Quit")]

    def __init__(self, seat: "Seat") -> None:
        super().__init__()
        self.seat = seat

    def compose(self) -> ComposeResult:
        with Vertical(id="start"):
            yield Label("The GM has not opened a fight yet.", classes="title", id="waiting-title")
            yield Label("This screen changes to the table's fight as soon as the GM opens one.", id="waiting-note")
        yield KeyFooter()

    def action_where(self) -> None:
        self.app.back_to_start()  # type: ignore[attr-defined]  # at a seat: says where it is, once a burst
