"""What a tester met at the table at 80x24: a long `:` answer over the roster and log,
ctrl+c's notice in markup, a player's q over `tracker serve` leaving at once, dice
examples that did not fit the dice, ORE's sets as "2 5", yes/no stats as `False`, the
roster's hint and footer naming different keys, a player's help offering `secret=`, and
a player's freeform damage "stated by the GM". Waits are on conditions only.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from textual.widgets import Input, Label, Static

from rulesets import registry
from rulesets.dice import DiceGroup, DiceNeeded
from tracker.play import verbs
from tracker.play.dice_plan import example, result_figures
from tracker.persistence.library import Library
from tracker.persistence.store import EncounterFile
from tracker.reading.roles import GM, PLAYER, VIEWER, Role
from tracker.serve.seat import SeatInfo, build_app
from tracker.engine.text import cells
from tracker.ui.widgets.footer import KeyFooter
from tracker.ui.app import TrackerApp
from tracker.ui.commands import ROSTER, shown_keys
from tracker.ui.screens.confirm import ConfirmScreen
from tracker.ui.screens.declare import DeclareScreen
from tracker.ui.screens.encounter import NOTICE_ROWS, TO_THE_LOG, EncounterScreen, notice_width
from tracker.ui.screens.form import FormScreen
from tracker.ui.screens.help import HelpScreen, ListingScreen
from tracker.ui.screens.roster import RosterScreen
from tracker.ui.widgets.log import CombatLog
from tracker.ui.widgets.roster import DetailView, RosterView
from tests.helpers import session_for
from tests.test_players import open_as
from tests.ui import press, settle, type_text, wait_for

pytestmark = pytest.mark.ui

SIZE = (80, 24)
SAVES = Path(__file__).resolve().parent.parent / "saves"


def copy_save(saves: Path, name: str) -> Path:
    shutil.copy(SAVES / name, saves / name)
    return saves / name


def notes(app: TrackerApp) -> list[str]:
    return [n.message for n in app.notifications_shown]


def toasts(app: TrackerApp) -> list[Any]:
    return list(app.screen.query("Toast"))


def log_text(app: TrackerApp) -> str:
    log = app.screen.query_one(CombatLog)
    return "\n".join(log.loaded_lines())


async def encounter(pilot: Any, app: TrackerApp) -> EncounterScreen:
    await wait_for(pilot, lambda: isinstance(app.screen, EncounterScreen), "the encounter screen")
    await settle(pilot)
    assert isinstance(app.screen, EncounterScreen)
    return app.screen


# ----------------------------------------------------------------- A1: a long `:` answer


async def test_a_long_command_answer_is_a_short_notification_and_whole_in_the_log(saves: Path) -> None:
    """A Brand X punch's confirmation ran to 14 rows at 80x24, over the roster and the
    log. Now the notification holds at most NOTICE_ROWS rows, at the top, and says the
    rest is in the combat log, which holds every word of it."""
    path = copy_save(saves, "seraph-vs-sphinx.toml")
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:  # toasts drawn, to measure one
        screen = await encounter(pilot, app)
        await type_text(pilot, ":declare Seraph punch target=Sphinx faces=6,9,5,6\r")
        await wait_for(pilot, lambda: any(TO_THE_LOG in n for n in notes(app)), "the change's notification")
        declared = next(e.text for e in reversed(screen.live.encounter.log) if e.kind == "declare")
        assert len(declared) > 4 * notice_width(80)  # the answer that used to cover the screen
        note = next(n for n in notes(app) if TO_THE_LOG in n)
        rows = note.split("\n")
        assert len(rows) <= NOTICE_ROWS and all(cells(row) <= notice_width(80) for row in rows)
        assert rows[0] == declared[: len(rows[0])]  # it starts with what happened
        await wait_for(pilot, lambda: bool(toasts(app)), "the notification drawn")
        assert max(t.size.height for t in toasts(app)) <= NOTICE_ROWS  # rows drawn, inside its padding
        # Drawn over the upcoming list, clear of the roster and the log's newest lines.
        for pane in (screen.query_one(CombatLog), screen.query_one(RosterView), screen.query_one(DetailView)):
            assert not any(t.region.overlaps(pane.region) for t in toasts(app)), pane
        assert " ".join(declared.split()) in " ".join(log_text(app).split())
        assert not app.errors


async def test_a_long_listing_that_is_not_in_the_log_opens_whole_in_a_view_of_its_own(saves: Path) -> None:
    """`library` with many sheets is an answer, not a change: it is not in the log, so a
    cut notification could not say where the rest is. It opens in a scrollable view."""
    path = copy_save(saves, "freeform-bridge-ambush.toml")
    library = Library.in_folder(saves, "freeform")
    names = [f"Sheet number {n:02d}" for n in range(30)]
    gm = open_as(path, "alice")
    gm.sheet_library = library
    gm.execute("add Template hp=4")
    for name in names:
        gm.execute(f'library save Template as="{name}"')
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        await encounter(pilot, app)
        await type_text(pilot, ":library\r")
        await wait_for(pilot, lambda: isinstance(app.screen, ListingScreen), "the listing")
        shown = str(app.screen.query_one("#listing-text", Static).content)
        assert all(name in shown for name in names)
        assert not any("Sheet number" in n for n in notes(app))
        await press(pilot, "escape")
        await wait_for(pilot, lambda: isinstance(app.screen, EncounterScreen), "back at the fight")
        assert not app.errors


# ----------------------------------------------------------------- A2: ctrl+c


async def test_ctrl_c_says_how_to_quit_in_plain_words(saves: Path) -> None:
    path = copy_save(saves, "seraph-vs-sphinx.toml")
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        await encounter(pilot, app)
        await press(pilot, "ctrl+c")
        await wait_for(pilot, lambda: bool(notes(app)), "the notice")
        assert notes(app) == ["Press q or ctrl+q to quit"]  # the screen's q, and Textual's own quit key
        assert [n.title for n in app.notifications_shown] == ["Do you want to quit?"]
        assert app.is_running
        # On the roster editor (no field focused) too, with its own keys: no q there.
        await press(pilot, "e")
        await wait_for(pilot, lambda: isinstance(app.screen, RosterScreen), "the roster")
        await press(pilot, "ctrl+c")
        await wait_for(pilot, lambda: "Press ctrl+q to quit" in notes(app), "the roster's notice")
        assert not any("[" in n for n in notes(app))


# ----------------------------------------------------------------- A3: q at a served seat


def served(saves: Path, path: Path, role: str) -> TrackerApp:
    """A seat's app as `tracker serve` builds it (a player's key names Seraph)."""
    info = SeatInfo(role, "bob@laptop" if role != VIEWER else "", ("Seraph",) if role == PLAYER else (), str(path), "Seraph vs Sphinx", "", str(saves))
    return build_app(info)


@pytest.mark.parametrize("role", [PLAYER, VIEWER])
async def test_q_at_a_served_players_or_viewers_seat_asks_before_leaving_the_table(saves: Path, role: str) -> None:
    path = copy_save(saves, "seraph-vs-sphinx.toml")
    app = served(saves, path, role)
    async with app.run_test(size=SIZE) as pilot:
        screen = await encounter(pilot, app)
        await press(pilot, "q")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        assert app.screen.question.startswith("Leave the table? This ends your connection")
        assert app.is_running
        await press(pilot, "escape")  # no: still at the table
        await wait_for(pilot, lambda: app.screen is screen, "back at the fight")
        assert app.is_running
        await press(pilot, "ctrl+c")
        await wait_for(pilot, lambda: "Press q or ctrl+q to leave the table" in notes(app), "how to leave")
        await press(pilot, "q")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question again")
        await press(pilot, "y")
        await wait_for(pilot, lambda: not app.is_running, "the seat left")
    assert app.return_code == 0


async def test_the_gms_q_still_quits_at_once_when_nothing_would_be_lost(saves: Path) -> None:
    path = copy_save(saves, "seraph-vs-sphinx.toml")
    for app in (TrackerApp(saves, path), served(saves, path, GM)):
        async with app.run_test(size=SIZE) as pilot:
            await encounter(pilot, app)
            await press(pilot, "q")
            await wait_for(pilot, lambda: not app.is_running, "the app quit")
        assert app.return_code == 0


# ----------------------------------------------------------------- A4: dice examples


@pytest.mark.parametrize(
    ("sides", "shown"),
    [((10, 10), "7,3"), ((4, 4), "3,1"), ((12, 12), "8,4"), ((4, 8, 8), "3,2,6"), ((6,), "4"), ((10,) * 5, "7,3,7,…"), ((2, 2), "1,1")],
)
def test_the_faces_example_fits_the_dice_asked_for(sides: tuple[int, ...], shown: str) -> None:
    assert example(DiceNeeded(DiceGroup("roll", sides), (), 0)) == shown
    faces = [int(f) for f in shown.split(",") if f != "…"]
    assert all(1 <= face <= side for face, side in zip(faces, sides))


def test_the_faces_example_leaves_out_the_faces_already_typed() -> None:
    assert example(DiceNeeded(DiceGroup("roll", (10, 4)), (9,), 0)) == "3"  # the d4's


async def test_the_declare_forms_faces_field_gives_an_example_each_die_can_show(saves: Path) -> None:
    """OGS's Action Check is 1d4+2d8: the example's first face is one a d4 shows."""
    path = copy_save(saves, "ogs-guard.toml")
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        await encounter(pilot, app)
        await press(pilot, "a")
        await wait_for(pilot, lambda: isinstance(app.screen, DeclareScreen), "the declare form")
        form = app.screen
        form.query_one("#d-actor", Input).value = "Michael"
        form.query_one("#d-template", Input).value = "attack"
        form.query_one("#d-targets", Input).value = "Guard"
        await press(pilot, "ctrl+s")
        faces = form.query_one("#dice-faces", Input)
        await wait_for(pilot, lambda: faces.has_focus, "the dice asked for")
        assert "1d4+2d8" in str(form.query_one("#dice-prompt", Label).content)
        example_faces = re.search(r"e\.g\. ([\d,]+)", faces.placeholder)
        assert example_faces is not None, faces.placeholder
        assert [int(f) for f in example_faces.group(1).split(",")] == [3, 2, 6]
        assert "7,3" not in faces.placeholder


# ----------------------------------------------------------------- A5: ORE sets


def test_ore_sets_read_width_x_height_as_the_game_writes_them() -> None:
    """Seed 003: "We abbreviate the results as “width x height”—so if three dice come up
    “5,” that’s 3x5. If two dice come up “7,” it’s 2x7." A pool of 5,5,3,9,1: one set, 2x5."""
    for faces, sets in (("5,5,3,9,1", "sets: 2x5"), ("7,7,7,2,2", "sets: 3x7, 2x2")):
        s = session_for(registry.get("ore"), "add Razor body=3d melee=2d", "add Vex body=2d")
        outcome = s.execute(f"declare Razor strike target=Vex faces={faces}")
        assert outcome.event is not None
        figures = result_figures(outcome.event.args["resolution"])
        assert sets in figures, figures


# ----------------------------------------------------------------- A6: yes/no stats


async def test_a_yes_no_stat_reads_yes_or_no_in_the_sheet_form_and_the_log(saves: Path) -> None:
    """USOR's critical_strike is a yes/no stat: the roster's edit form showed `False`."""
    store, _ = EncounterFile.create(saves / "pass.toml", "pass", "usor")
    path = store.path
    open_as(path, "alice").execute("add Max")
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await encounter(pilot, app)
        events = len(screen.live.encounter.events)
        await press(pilot, "e")
        await wait_for(pilot, lambda: isinstance(app.screen, RosterScreen), "the roster")
        await press(pilot, "e")  # edit the highlighted combatant (Max)
        await wait_for(pilot, lambda: isinstance(app.screen, FormScreen), "the sheet form")
        field = app.screen.query_one("#f-sheet_critical_strike", Input)
        assert field.value == "no"
        await press(pilot, "ctrl+s")  # unchanged: nothing is recorded
        await wait_for(pilot, lambda: isinstance(app.screen, RosterScreen), "back at the roster")
        assert len(screen.live.encounter.events) == events
        await press(pilot, "e")
        await wait_for(pilot, lambda: isinstance(app.screen, FormScreen), "the sheet form again")
        field = app.screen.query_one("#f-sheet_critical_strike", Input)
        field.value = "yes"
        await press(pilot, "ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, RosterScreen), "saved")
        assert screen.live.encounter.log[-1].text == "Max: critical_strike set to yes"
    reloaded = EncounterFile(path).load().encounter
    assert reloaded.combatant("Max").stats["critical_strike"] is True
    assert reloaded.log[-1].text == "Max: critical_strike set to yes"


# ----------------------------------------------------------------- A7: the roster's keys


def footer_keys(app: TrackerApp) -> dict[str, str]:
    """The footer as drawn: each label with its key."""
    return {key.description: key.key_display for key in app.screen.query_one(KeyFooter).entries()}


async def test_the_roster_hint_and_footer_say_the_same_keys(saves: Path) -> None:
    """The hint said "x remove" while the footer said "del Remove". The hint now holds the
    commands the footer leaves out, with the keys the footer would draw for them."""
    path = copy_save(saves, "seraph-vs-sphinx.toml")
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        await encounter(pilot, app)
        await press(pilot, "e")
        await wait_for(pilot, lambda: isinstance(app.screen, RosterScreen), "the roster")
        hint = app.screen.query_one("#roster-hint", Label)
        await wait_for(pilot, lambda: bool(str(hint.content)), "the hint")
        keys = shown_keys(app.screen)
        footer = footer_keys(app)
        assert footer["Remove"] == keys["remove"] == "del"
        hinted = str(hint.content)
        assert "remove" not in hinted and "x " not in hinted
        for command in ROSTER:
            in_footer = command.label in footer
            assert in_footer == command.footer, command.name
            assert (f"{keys[command.name]} {command.label.lower()}" in hinted) == (not command.footer), command.name
        assert hinted == "r rename  s side  [ move up  ] move down  w to library"
        # What the hint says is what the keys do: ] moves Seraph down.
        await press(pilot, "right_square_bracket")
        assert list(app.screen.live.encounter.combatants)[1] == "Seraph"


# ----------------------------------------------------------------- A8: help by role


def test_a_players_usages_offer_only_what_a_player_may_use() -> None:
    declare, roll, approve = verbs.BY_NAME["declare"], verbs.BY_NAME["roll"], verbs.BY_NAME["approve"]
    assert declare.usage_for(PLAYER) == "declare ACTOR TEMPLATE [target=NAME] [pt=N] [faces=N,N] [key=value]"
    assert declare.help_for(PLAYER) == "initiate an action"
    assert roll.usage_for(PLAYER) == "roll DICE"
    assert declare.usage_for(GM) == declare.usage and "[secret=true]" in declare.usage
    assert declare.help_for(GM) == "initiate an action (secret: the roll is hidden from viewers)"
    assert roll.usage_for(GM) == "roll DICE [secret=true]" and approve.usage_for(GM) == approve.usage
    for verb in verbs.offered(PLAYER):
        assert "secret" not in verb.usage_for(PLAYER) + verb.help_for(PLAYER), verb.name


def test_the_option_offered_only_to_the_gm_is_the_one_the_guard_refuses_a_player() -> None:
    from tracker.engine import TrackerError

    s = session_for(registry.get("freeform"), "add Ann hp=5", "add Bo hp=5")
    s.role = Role.player(["Ann"])
    for line in ("declare Ann sword target=Bo pt=3 secret=true", "roll 2d6 secret=true"):
        with pytest.raises(TrackerError, match="secret rolls are the GM's"):
            s.execute(line)
    gm_only = {opt.key for verb in verbs.VERBS for opt in verb.options if PLAYER not in opt.roles and PLAYER in verb.roles}
    assert gm_only == {"secret"}


async def test_a_players_help_and_command_line_offer_no_secret_roll(saves: Path) -> None:
    path = copy_save(saves, "seraph-vs-sphinx.toml")
    app = served(saves, path, PLAYER)
    async with app.run_test(size=SIZE) as pilot:
        await encounter(pilot, app)
        await press(pilot, "question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        console = Console(width=400, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
        console.print(list(app.screen.query(Static))[-1].content)
        text = console.export_text()
        assert "roll DICE  (" in text and "declare ACTOR TEMPLATE" in text
        assert "secret=" not in text and "secret:" not in text
        await press(pilot, "escape")
        await press(pilot, "colon")
        await wait_for(pilot, lambda: isinstance(app.screen, FormScreen), "the command line")
        note = " ".join(str(label.content) for label in app.screen.query(Label))
        assert "declare ACTOR TEMPLATE" in note and "secret" not in note
        assert app.screen.query_one("#f-line", Input).placeholder == "a play command, e.g. roll 2d10"  # not damage, the GM's


# ----------------------------------------------------------------- A9: who stated it


def test_a_players_own_freeform_damage_is_stated_by_the_player(tmp_path: Path) -> None:
    from tracker.engine import table

    store, _ = EncounterFile.create(tmp_path / "fight.toml", "fight", "freeform")
    path = store.path
    gm = open_as(path, "alice")
    gm.execute("add Ann hp=10")
    gm.execute("add Bo hp=10 side=foes")
    bob = open_as(path, "bob", Role.player(["Ann"]))
    assert bob.execute("declare Ann sword target=Bo pt=3 damage=4").lines[0].endswith(": stated by the player")
    gm = open_as(path, "alice")
    assert gm.execute("declare Bo club target=Ann pt=3 damage=2").lines[0].endswith(": stated by the GM")
    # Waiting for approval: approved as the player made it, the player stated it; with
    # the GM's own damage, the GM did.
    gm.execute(f"setting {table.PLAYER_DECLARATIONS} approval")
    gm.execute("next")
    for approve, who in (("approve {}", "player"), ("approve {} damage=1", "GM")):
        bob = open_as(path, "bob", Role.player(["Ann"]))
        proposal = bob.execute("declare Ann kick target=Bo pt=1 damage=3").event
        assert proposal is not None and proposal.kind == "propose"
        gm = open_as(path, "alice")
        lines = gm.execute(approve.format(proposal.seq)).lines
        assert [line for line in lines if " initiates " in line][0].endswith(f": stated by the {who}"), lines
        gm.execute("next")
    log = [e.text for e in EncounterFile(path).load().encounter.log if " initiates " in e.text]
    assert [line.rsplit(": ", 1)[1] for line in log] == ["stated by the player", "stated by the GM", "stated by the player", "stated by the GM"]
