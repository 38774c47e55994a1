"""The table's polish at 80x24: names follow renames on every widget, names are measured
in cells, long bursts are kept or refused with a word. Waits are on conditions only."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tracker.persistence.store import EncounterFile
from tracker.ui.app import TrackerApp
from tracker.ui.textual_private import screen_lines
from tracker.ui.screens.encounter import EncounterScreen
from tracker.ui.widgets.log import CombatLog
from tracker.ui.widgets.timeline import NAME, TimelineView
from tests.ui import press, settle, type_text, wait_for

pytestmark = pytest.mark.ui

SIZE = (80, 24)
SAVES = Path(__file__).resolve().parent.parent / "saves"
BARS = set("▀▄▒█▓┤×")
NOTE = "山田太郎と🐉🐉の長い長い長い長い長い長い長い長い長い長い長い長い戦いが始まる終わりの言葉"


def copy_save(saves: Path, name: str) -> Path:
    shutil.copy(SAVES / name, saves / name)
    return saves / name


def bars(app: TrackerApp, name: str) -> str:
    """The cells of `name`'s timeline row after the name column, as drawn (below the
    axis, the rows in the order of `names`; a few combatants: nothing scrolled)."""
    timeline = app.screen.query_one(TimelineView)
    assert timeline.scroll_offset.y == 0
    return timeline.render_line(1 + timeline.names.index(name)).text[NAME:]


async def encounter(pilot, app: TrackerApp) -> EncounterScreen:  # type: ignore[no-untyped-def]
    await wait_for(pilot, lambda: isinstance(app.screen, EncounterScreen), "the encounter screen")
    await settle(pilot)
    assert isinstance(app.screen, EncounterScreen)
    return app.screen


async def test_a_rename_moves_the_bars_and_the_log_filter(saves: Path) -> None:
    """Issue 22: after `:rename Ann Anna` Anna's row lost its bars and `:add Ann` drew the
    old bars on the newcomer. Kestrel (who attacked) is renamed Kes: Kes's row shows the
    bars Kestrel's did, a new Kestrel none; the log filtered on Kestrel follows to Kes."""
    path = copy_save(saves, "freeform-bridge-ambush.toml")
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await encounter(pilot, app)
        before = bars(app, "Kestrel")
        assert BARS & set(before), before
        screen.query_one("#roster").select_name("Kestrel")
        await press(pilot, "f")
        log = screen.query_one(CombatLog)
        assert log.only == "Kestrel"
        await type_text(pilot, ":rename Kestrel Kes\r")
        assert "Kes" in screen.live.encounter.combatants
        assert bars(app, "Kes") == before
        assert log.only == "Kes"
        await type_text(pilot, ":add Kestrel\r")
        assert "Kestrel" in screen.live.encounter.combatants
        assert not BARS & set(bars(app, "Kestrel")), bars(app, "Kestrel")
        assert log.only == "Kes" and bars(app, "Kes") == before
        assert not getattr(app, "errors", [])
    assert "Kes" in EncounterFile(path).load().encounter.combatants


async def test_wide_names_and_conditions_are_measured_in_cells(saves: Path) -> None:
    """Issue 22: CJK and emoji shifted the columns by a cell per wide character. Every
    roster row is exactly the pane's width, a condition too wide for the row is counted
    in `+N` (never cut mid-glyph), and the log wraps a wide name's line inside the pane
    without losing its tail."""
    from rich.cells import cell_len

    from tests.test_ui_app import make_file
    from tracker.ui.widgets.roster import RosterView

    long_condition = "眩暈" * 3  # 6 characters, 12 cells: fits a row by characters, not by cells
    path = make_file(saves, "freeform", [
        "add 山田太郎 hp=10", "add 🐉🐉 hp=10", "add Zoë hp=10",
        f"condition 山田太郎 {long_condition} 20", "condition Zoë 怒 20",
        f"note {NOTE}",
    ])
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await encounter(pilot, app)
        roster = screen.query_one(RosterView)
        width = roster.scrollable_content_region.width
        rows = [roster.render_line(y).text for y in range(len(roster.combatants) * 2)]
        rows = [r for r in rows if r.strip()]
        assert rows and all(cell_len(r) == width for r in rows), [(r, cell_len(r), width) for r in rows]
        yamada = next(r for r in rows if "山田太郎" in r)
        assert long_condition + "→20" in yamada or "+" in yamada, yamada
        assert "怒→20" in next(r for r in rows if "Zoë" in r)
        log = screen.query_one(CombatLog)
        lines = [log.render_line(y).text for y in range(log.size.height)]
        assert all(cell_len(line) <= log.scrollable_content_region.width for line in lines)
        assert NOTE in "".join(line[6:].strip() for line in lines)
        assert not getattr(app, "errors", [])


BOSS = "[bold red]Boss[/]"


@pytest.mark.parametrize(("key", "title"), [
    ("r", f"Rename {BOSS}"),
    ("s", f"Side of {BOSS}"),
    ("w", f"Save {BOSS}'s sheet in the library"),
    ("x", f"Remove {BOSS} from the fight?"),
    ("e", f"Edit {BOSS}"),
])
async def test_roster_dialogs_show_a_bracketed_name_as_typed(saves: Path, key: str, title: str) -> None:
    """Issue 22: the Rename, Side and library dialogs showed `\\[bold red]Boss\\[/]`. The
    titles are plain text: the name shows exactly as typed. The roster editor opens with
    its first row selected, so the key acts at once (no Down first)."""
    from textual.widgets import Label

    from tests.test_ui_app import make_file
    from tracker.ui.screens.roster import RosterScreen

    path = make_file(saves, "freeform", [f'add "{BOSS}" hp=10', "add Ann hp=5"])
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        await encounter(pilot, app)
        await press(pilot, "e")
        await wait_for(pilot, lambda: isinstance(app.screen, RosterScreen), "the roster editor")
        editor = app.screen
        await press(pilot, key)
        await wait_for(pilot, lambda: app.screen is not editor, "the dialog")
        shown = [str(label.render()) for label in app.screen.query(Label)]
        assert title in shown, shown
        assert not any("\\[" in text for text in shown), shown
        assert not getattr(app, "errors", [])


PASTE = ("a long note pasted whole, " * 120)[:3000]


def notes(app: TrackerApp) -> list[str]:
    return [n.message for n in app.notifications_shown]


async def test_a_bracketed_paste_of_3000_characters_is_kept_whole(saves: Path) -> None:
    """Issue 22: more than 512 keys in one burst were dropped silently. A paste the
    terminal brackets is one Paste event: typed right after `N` (before the note form is
    up) it waits its turn, lands in the field whole, and Enter commits all of it."""
    from textual import events

    from tests.ui import post_keys

    path = copy_save(saves, "freeform-bridge-ambush.toml")
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await encounter(pilot, app)
        post_keys(app, ["N"])
        paste = events.Paste(PASTE)
        paste.set_sender(app)
        app.post_message(paste)
        post_keys(app, ["enter"])
        await settle(pilot)
        await wait_for(pilot, lambda: app.screen is screen, "the note committed")
        assert screen.live.encounter.events[-1].kind == "note"
        assert screen.live.encounter.events[-1].args["text"] == PASTE
        assert not getattr(app, "errors", [])
    assert EncounterFile(path).load().encounter.events[-1].args["text"] == PASTE


async def test_an_unbracketed_burst_of_3000_keys_is_refused_with_a_word(saves: Path) -> None:
    """The same 3000 characters typed as keys (a terminal without bracketed paste): more
    than the 512 keys the app holds. The burst is refused whole, with a notification
    naming the limit; its final Enter commits nothing, and nothing of it turns up later.
    The next note, typed after a pause, is saved as typed."""
    from tests.ui import burst

    path = copy_save(saves, "freeform-bridge-ambush.toml")
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await encounter(pilot, app)
        events_before = len(screen.live.encounter.events)
        burst(app, "N" + PASTE + "\r")
        await settle(pilot)
        assert any("more than the 512" in n for n in notes(app)), notes(app)
        assert len(screen.live.encounter.events) == events_before
        assert app.screen is screen  # the `N` of the burst was refused with the rest
        # The GM's next keys come after a pause (the burst is over).
        await wait_for(pilot, lambda: not app.key_hold.refusing, "the end of the burst")
        await type_text(pilot, "Nshort note\r")
        await wait_for(pilot, lambda: len(screen.live.encounter.events) == events_before + 1, "the next note")
        assert screen.live.encounter.events[-1].args["text"] == "short note"
        assert not getattr(app, "errors", [])


async def test_a_remapped_key_is_shown_where_keys_are_shown(saves: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 22: with `declare = "ctrl+a"` in the config, `?` and the palette still showed
    `a`. The help screen, the palette and the footer show ctrl+a, the key works, and `?`
    names each command as the config's `[keys]` table takes it."""
    from textual.command import CommandPalette
    from textual.widgets import Static

    from tracker.ui.screens.declare import DeclareScreen
    from tracker.ui.screens.help import HelpScreen

    config = tmp_path / "config.toml"
    config.write_text('[keys]\ndeclare = "ctrl+a"\n')
    monkeypatch.setenv("TRACKER_CONFIG", str(config))
    path = copy_save(saves, "freeform-bridge-ambush.toml")
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await encounter(pilot, app)
        footer = screen_lines(app)[-1]  # as drawn at 80 columns
        assert "^a Declare" in footer and footer.index("Next") < footer.index("Declare") < footer.index("Maintain"), footer
        await press(pilot, "question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "the help screen")
        table = list(app.screen.query(Static))[-1].content
        from rich.console import Console

        console = Console(width=80, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
        console.print(table)
        text = console.export_text()
        declare_row = next(line for line in text.splitlines() if "Declare:" in line)
        assert declare_row.split()[:2] == ["ctrl+a", "declare"], declare_row
        assert "config name" in text and any(line.split()[:2] == ["/", "log_search"] for line in text.splitlines())
        await press(pilot, "escape")
        await press(pilot, "ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette")
        await type_text(pilot, "Declare")
        palette = app.screen

        def shown() -> str:
            return " ".join(str(palette.query_one("CommandList").get_option_at_index(i).prompt) for i in range(palette.query_one("CommandList").option_count))

        await wait_for(pilot, lambda: "Declare (ctrl+a)" in shown(), "the palette's declare row")
        await press(pilot, "escape")
        await wait_for(pilot, lambda: app.screen is screen, "back")
        await press(pilot, "ctrl+a")
        await wait_for(pilot, lambda: isinstance(app.screen, DeclareScreen), "the declare form from ctrl+a")
        assert not getattr(app, "errors", [])


@pytest.mark.parametrize("usual", [None, "brandx"])
async def test_the_new_encounter_ruleset_is_chosen_from_the_list(saves: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, usual: str | None) -> None:
    """Issue 22: the ruleset was a free text box preset to freeform (Tab then Enter made a
    Brand X night freeform). It is a list of the rulesets: it starts on the config's
    default_ruleset (else the first), typing `us` jumps to usor, Enter takes it."""
    from rulesets import registry
    from tracker.ui.screens.form import ChoiceList, FormScreen
    from tracker.ui.screens.roster import RosterScreen

    if usual:
        config = tmp_path / "config.toml"
        config.write_text(f'default_ruleset = "{usual}"\n')
        monkeypatch.setenv("TRACKER_CONFIG", str(config))
    app = TrackerApp(saves)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "n")
        await wait_for(pilot, lambda: isinstance(app.screen, FormScreen), "the new encounter form")
        choices = app.screen.query_one("#f-ruleset", ChoiceList)
        assert choices.choices == sorted(registry.available())
        assert choices.value == (usual or sorted(registry.available())[0])
        await type_text(pilot, "Night\t")
        assert app.screen.focused is choices
        await press(pilot, *"us")
        assert choices.value == "usor"
        await press(pilot, "ctrl+u", "f", "enter")  # typing over: freeform
        await wait_for(pilot, lambda: isinstance(app.screen, RosterScreen), "the roster editor")
        assert app.screen.live.ruleset.id == "freeform"
        assert not getattr(app, "errors", [])


async def test_a_long_sheet_label_never_runs_into_its_value(saves: Path) -> None:
    """Issue 22: `active_charis10` in the sheet editor at 80 columns. Each label is cut to
    leave a free cell before its value."""
    from textual.widgets import Input, Label

    from tracker.ui.screens.form import FormField, FormScreen

    app = TrackerApp(saves)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.push_screen(FormScreen("Edit", [FormField("active_charisma", "active_charisma", "10")]))
        await wait_for(pilot, lambda: isinstance(app.screen, FormScreen), "the form")
        await settle(pilot)
        label = app.screen.query(".row Label").first(Label)
        entry = app.screen.query_one(Input)
        row = screen_lines(app)[entry.region.y]
        assert str(label.render()) == "active_char…" and "active_char… 10" in row, row


async def test_identical_notifications_are_merged(saves: Path) -> None:
    """Issue 22: a held key stacked identical notifications over the log. The same
    refusal five times is shown once; a different one beside it."""
    path = copy_save(saves, "freeform-bridge-ambush.toml")
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await encounter(pilot, app)
        for _ in range(5):
            app.notify("rule: nothing to maintain", severity="warning")
        app.notify("something else")
        await settle(pilot)
        assert notes(app).count("rule: nothing to maintain") == 1
        assert notes(app).count("something else") == 1


async def test_the_roll_key_rolls_for_the_table(saves: Path) -> None:
    """Issue 22: a table roll from a key: `R`, the dice, Enter to the next field, Enter
    commits; the roll is in the log."""
    from tests.test_ui_app import make_file
    from tracker.ui.screens.form import FormScreen

    path = make_file(saves, "d6", ["add Hero"])
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await encounter(pilot, app)
        await press(pilot, "R")
        await wait_for(pilot, lambda: isinstance(app.screen, FormScreen), "the roll form")
        await type_text(pilot, "3D+1\r\r")
        await wait_for(pilot, lambda: app.screen is screen, "rolled")
        entry = screen.live.encounter.log[-1]
        assert entry.kind == "roll" and entry.text.startswith("roll 3D+1: dice ") and not entry.secret
        log = screen.query_one(CombatLog)
        assert any("roll 3D+1: dice" in log.render_line(y).text for y in range(log.size.height))
        assert not getattr(app, "errors", [])
    assert EncounterFile(path).load().encounter.events[-1].kind == "roll"


async def test_the_clock_bar_says_what_is_due_and_who_may_act(saves: Path) -> None:
    """Issue 22: a reminder on the clock bar of what completes next and who may act now
    (idle: not acting, not surprised). Ann acts until 6, Bob is surprised until 10: only
    Cid may act."""
    from textual.widgets import Static

    from tests.test_ui_app import make_file

    path = make_file(saves, "freeform", ["add Ann", "add Bob", "add Cid", "declare Ann attack pt=6", "surprise Bob 10"])
    app = TrackerApp(saves, path)
    async with app.run_test(size=(160, 24)) as pilot:
        screen = await encounter(pilot, app)
        clock = str(screen.query_one("#clock", Static).render())
        assert "next 6: Ann's attack completes" in clock and "may act: Cid " in clock, clock
