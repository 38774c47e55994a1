"""Pilot tests of the terminal UI at 80x24: every test drives keys and checks the
encounter (in memory and on disk), never a fixed sleep.

Most use the freeform ruleset. Typed faces and the chance of success need dice, so
`D6Check` below is a real little adapter (a d6 against a target number, exact odds)
registered for these tests only.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from fractions import Fraction
from pathlib import Path

import pytest
from textual.widgets import Input, Label

from rulesets import registry
from rulesets.base import ActionRequest, ActionTemplate, Ruleset
from rulesets.dice import DiceSource
from rulesets.fields import PARAM, RESOURCE, Field
from tracker.reading import report
from tracker.engine import ACTIVE, Damage, Resolution, TimeMapping
from tracker.persistence.store import EncounterFile
from tracker.play.session import Session
from tracker.ui.app import TrackerApp
from tracker.ui.textual_private import screen_lines
from tracker.ui.screens.declare import DeclareScreen
from tracker.ui.screens.encounter import EncounterScreen
from tracker.ui.screens.form import FormScreen
from tracker.ui.screens.roster import RosterScreen
from tracker.ui.widgets.log import CombatLog
from tracker.ui.widgets.roster import RosterView
from tests.ui import press, settle, wait_for

pytestmark = pytest.mark.ui

SIZE = (80, 24)


class D6Check(Ruleset):
    """Roll one d6; at least `target` hits for 3 hp on completion."""

    id = "d6check"
    name = "D6 check"
    description = "a d6 against a target number (tests only)"
    time = TimeMapping(segments_per_round=10)
    sheet = (Field("hp", "int", 10, minimum=1, role=RESOURCE, help="hit points"),)
    down_when = ("hp",)
    _PARAMS = (Field("target", "int", 4, minimum=1, maximum=7, role=PARAM, help="roll this or more"),)
    _CATALOGUE = {"strike": ActionTemplate("strike", ACTIVE, 5, "a d6 strike", rolls="1d6", targets=1, params=_PARAMS, maintainable=True)}

    def catalogue(self) -> Mapping[str, ActionTemplate]:
        return self._CATALOGUE

    def resolve(self, request: ActionRequest, dice: DiceSource) -> Resolution:
        face = dice.roll(6)
        target = request.params["target"]
        hit = face >= target
        effects = tuple(Damage(t.name, 3, "hp") for t in request.targets) if hit else ()
        pt = request.pt or request.template.pt
        return Resolution(pt, hit, face - target, (face,), f"rolled {face} against {target}: {'hit' if hit else 'miss'}", effects)

    maintain = resolve

    def chance_of(self, request: ActionRequest) -> Fraction | None:
        return Fraction(max(0, 7 - request.params["target"]), 6)


@pytest.fixture
def d6check(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    from tests.helpers import install_game

    install_game(monkeypatch, D6Check)
    yield
    monkeypatch.undo()
    registry.forget()


def make_file(saves: Path, ruleset: str, lines: list[str], name: str = "fight") -> Path:
    path = saves / f"{name}.toml"
    store, loaded = EncounterFile.create(path, name, ruleset)
    session = Session(loaded.encounter, loaded.ruleset, store=store)
    for line in lines:
        session.execute(line)
    return path


def encounter_screen(app: TrackerApp) -> EncounterScreen:
    screen = app.screen
    assert isinstance(screen, EncounterScreen), screen
    return screen

async def type_into(pilot, selector: str, text: str) -> None:
    widget = pilot.app.screen.query_one(selector, Input)
    widget.focus()
    widget.value = ""
    await press(pilot, *text)


def on_disk(path: Path):
    return EncounterFile(path).load().encounter


def notes(app: TrackerApp) -> list[str]:
    return [n.message for n in app.notifications_shown]


async def test_new_encounter_from_start_screen_and_add_combatants(saves: Path) -> None:
    app = TrackerApp(saves)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "n")
        assert isinstance(app.screen, FormScreen)
        await type_into(pilot, "#f-name", "Bridge fight")
        app.screen.query_one("#f-ruleset").focus()  # chosen from the list: typing jumps to it
        await press(pilot, "ctrl+u", *"freeform")
        await press(pilot, "ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, RosterScreen), "the roster editor")
        for name, hp in (("Seraph", "30"), ("Sphinx", "40")):
            await press(pilot, "a")
            await type_into(pilot, "#f-name", name)
            await type_into(pilot, "#f-sheet_hp", hp)
            await press(pilot, "ctrl+s")
            await wait_for(pilot, lambda: isinstance(app.screen, RosterScreen), "back in the roster")
        # An invalid sheet value is shown inline and the form stays open.
        await press(pilot, "a")
        await type_into(pilot, "#f-name", "Seraph")
        await press(pilot, "ctrl+s")
        assert isinstance(app.screen, FormScreen)
        assert "already a combatant named 'Seraph'" in str(app.screen.query_one("#form-error", Label).render())
        await press(pilot, "escape", "escape")
        await wait_for(pilot, lambda: isinstance(app.screen, EncounterScreen), "the encounter screen")
        roster = app.screen.query_one(RosterView)
        assert [c.name for c in roster.combatants] == ["Seraph", "Sphinx"]
    enc = on_disk(saves / "bridge-fight.toml")
    assert enc.setup.name == "Bridge fight"
    assert {n: c.resources["hp"] for n, c in enc.combatants.items()} == {"Seraph": 30, "Sphinx": 40}


async def test_declare_with_typed_faces_resolves_on_next(saves: Path, d6check: None) -> None:
    path = make_file(saves, "d6check", ["add Seraph hp=10", "add Sphinx hp=10"])
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "a")
        screen = app.screen
        assert isinstance(screen, DeclareScreen)
        await type_into(pilot, "#d-targets", "Sphinx")
        chance = lambda: str(screen.query_one("#chance", Label).render())  # noqa: E731
        await wait_for(pilot, lambda: "50.00% (1/2)" in chance(), "the chance (computed off the event loop)")
        await type_into(pilot, "#p-target", "6")  # the chance follows the modifiers
        await wait_for(pilot, lambda: "16.67% (1/6)" in chance(), "the chance (computed off the event loop)")
        await type_into(pilot, "#p-target", "3")
        await wait_for(pilot, lambda: "66.67% (2/3)" in chance(), "the chance (computed off the event loop)")
        await press(pilot, "ctrl+s")  # the form names the die to roll, then takes its face
        await type_into(pilot, "#dice-faces", "5")
        await press(pilot, "enter", "enter")
        enc = encounter_screen(app).live.encounter
        assert enc.actions[-1].resolution.dice == (5,)
        log = app.screen.query_one(CombatLog)
        assert "[dice 5]" in "".join(log.render_line(y).text for y in range(log.size.height))
        await press(pilot, "n")
        assert app.screen.live.encounter.now == 5
        assert app.screen.live.encounter.combatants["Sphinx"].resources["hp"] == 7
    saved = on_disk(path)
    assert saved.now == 5 and saved.combatants["Sphinx"].resources["hp"] == 7
    assert "rolled 5 against 3: hit" in " ".join(e.text for e in saved.log)


async def test_log_shows_faces_and_meaning(saves: Path, d6check: None) -> None:
    path = make_file(saves, "d6check", ["add A", "add B", "declare A strike target=B faces=2"])
    app = TrackerApp(saves, path)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        log = app.screen.query_one(CombatLog)
        text = " ".join(" ".join(log.render_line(y).text for y in range(log.size.height)).split())
        assert "rolled 2 against 4: miss" in text and "[dice 2]" in text


async def test_undo_and_redo(saves: Path) -> None:
    path = make_file(saves, "freeform", ["add Seraph hp=10"])
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "d")
        await type_into(pilot, "#f-amount", "4")
        await press(pilot, "ctrl+s")
        live = encounter_screen(app).live
        assert live.encounter.combatants["Seraph"].resources["hp"] == 6
        await press(pilot, "u")
        assert live.encounter.combatants["Seraph"].resources["hp"] == 10
        assert on_disk(path).combatants["Seraph"].resources["hp"] == 10
        await press(pilot, "r")
        assert live.encounter.combatants["Seraph"].resources["hp"] == 6
    assert on_disk(path).combatants["Seraph"].resources["hp"] == 6


async def test_maintain_and_abort(saves: Path) -> None:
    path = make_file(saves, "freeform", ["add Seraph", "add Sphinx", "declare Seraph attack target=Sphinx pt=3"])
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        live = encounter_screen(app).live
        await press(pilot, "n")  # the attack completes on 3
        assert live.encounter.now == 3
        await press(pilot, "m")  # Seraph is selected: maintain it; the form asks for the link's damage
        assert isinstance(app.screen, DeclareScreen)
        await press(pilot, "ctrl+s")  # none stated: the link deals none
        await press(pilot, "enter")
        assert isinstance(app.screen, EncounterScreen)
        action = live.encounter.actions[-1]
        assert action.chain == 1 and action.status == "in progress" and action.start == 3
        await press(pilot, "x")
        assert action.status == "aborted"
        assert "Seraph aborts attack" in live.encounter.log[-1].text
    saved = on_disk(path)
    assert [a.status for a in saved.actions] == ["completed", "aborted"]


async def test_refused_initiation_names_the_rule(saves: Path) -> None:
    path = make_file(saves, "freeform", ["add Seraph", "add Sphinx", "declare Seraph attack target=Sphinx"])
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await press(pilot, "a")
        await type_into(pilot, "#d-template", "cast")
        await press(pilot, "ctrl+s")
        assert isinstance(app.screen, DeclareScreen)  # the form stays open with the refusal
        error = str(app.screen.query_one("#declare-error", Label).render())
        assert "rule: one initiation per segment" in error
        await press(pilot, "escape")
        await press(pilot, "m")  # nothing to maintain: a notification, not a crash
        assert any("rule: maintained attack" in n for n in notes(app))
        assert isinstance(app.screen, EncounterScreen)
    assert len(on_disk(path).events) == 3


async def test_command_line_runs_play_commands(saves: Path) -> None:
    path = make_file(saves, "freeform", ["add Seraph"])
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await press(pilot, "colon")
        await type_into(pilot, "#f-line", 'add "Sun Ruler" hp=5 hidden=true')
        await press(pilot, "enter")
        live = encounter_screen(app).live
        assert live.encounter.combatants["Sun Ruler"].hidden
        await press(pilot, "colon")
        await type_into(pilot, "#f-line", "frobnicate")
        await press(pilot, "enter")
        assert "unknown command 'frobnicate'" in str(app.screen.query_one("#form-error", Label).render())


async def test_quit_and_reopen_at_the_same_segment_with_the_same_log(saves: Path) -> None:
    path = make_file(saves, "freeform", ["add Seraph", "add Sphinx", "declare Seraph attack target=Sphinx damage=2 pt=7"])
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "n", "full_stop", "full_stop")
        before = report.to_json(encounter_screen(app).live.encounter)
        await press(pilot, "q")
    assert app.return_value == 0
    assert before["segment"] == 9
    again = TrackerApp(saves, path)
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        after = report.to_json(encounter_screen(again).live.encounter)
        shown = str(again.screen.query_one("#clock").render())
        assert "segment 9 · round 1, segment 9" in shown
    assert after["segment"] == before["segment"] and after["log"] == before["log"]


async def test_viewer_refuses_edits_follows_the_file_and_hides(saves: Path) -> None:
    path = make_file(saves, "freeform", ["add Seraph", "add Ghost hidden=true", "declare Ghost attack target=Seraph pt=4", "declare Seraph defend"])
    app = TrackerApp(saves, path, viewer=True)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        screen = encounter_screen(app)
        assert [c.name for c in screen.query_one(RosterView).combatants] == ["Seraph"]
        log = screen.query_one(CombatLog)
        assert all("Ghost" not in e.text for e in log.loaded) and log.loaded
        for key in ("n", "a", "d", "u", "colon"):
            await press(pilot, key)
            assert isinstance(app.screen, EncounterScreen)
        # GM keys are not offered to a viewer: not in the footer, and they do nothing.
        assert notes(app) == [] and not app.errors
        footer_keys = {b.binding.id for b in app.active_bindings.values() if b.binding.show and b.enabled}
        assert footer_keys == {"glance", "help", "quit"}
        assert on_disk(path).now == 0
        # Another session (the GM) changes the file; the viewer follows.
        gm_store = EncounterFile(path)
        loaded = gm_store.load()
        gm = Session(loaded.encounter, loaded.ruleset, store=gm_store)
        gm.execute("next")
        gm.execute("damage Seraph 3")
        await wait_for(pilot, lambda: screen.live.encounter.now == 4, "the viewer to follow the GM")
        await settle(pilot)
        assert "segment 4 ·" in str(screen.query_one("#clock").render())
        assert screen.live.encounter.combatants["Seraph"].resources["hp"] == 7
        assert all("Ghost" not in e.text for e in log.loaded)


async def test_two_gms_see_each_others_changes(saves: Path) -> None:
    path = make_file(saves, "freeform", ["add Seraph"])
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        live = encounter_screen(app).live
        other = Session(EncounterFile(path).load().encounter, live.ruleset, store=EncounterFile(path))
        other.store.load()  # type: ignore[union-attr]
        other.execute("add Sphinx hp=20")
        await wait_for(pilot, lambda: "Sphinx" in live.encounter.combatants, "the other GM's combatant")
        await press(pilot, "full_stop")
    saved = on_disk(path)
    assert "Sphinx" in saved.combatants and saved.now == 1


async def test_help_lists_every_key_and_palette_has_every_command(saves: Path) -> None:
    from tracker.ui.commands import ENCOUNTER, CommandTable

    path = make_file(saves, "freeform", ["add Seraph"])
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "question_mark")
        lines = screen_lines(app)
        shown = "\n".join(lines)
        for command in ENCOUNTER[:5]:  # the first rows fit on screen at 80x24
            assert f"{command.label}: {command.help}"[:30] in shown  # beside its key and config name
        await press(pilot, "escape")
        screen = encounter_screen(app)
        keys = {b.action for b in screen.BINDINGS}  # type: ignore[union-attr]
        assert keys == {f"cmd('{c.name}')" for c in ENCOUNTER}
        provider = CommandTable(screen)
        found = [hit async for hit in provider.discover()]
        assert len(found) == len([c for c in ENCOUNTER if c.gm])  # the GM's rows (take back is a player's)


def first_hit(app: TrackerApp) -> str:
    """The text of the command palette's first hit ("" while it lists none)."""
    from textual.command import CommandList

    hits = app.screen.query(CommandList)
    if not hits or hits.first().option_count == 0:
        return ""
    prompt = hits.first().get_option_at_index(0).prompt
    return str(getattr(prompt, "plain", prompt))


async def test_picking_a_palette_command_performs_it(saves: Path) -> None:
    """Ctrl+P, a command's name, Enter: the command runs, as its key would run it."""
    from textual.command import CommandPalette

    from tests.ui import type_text

    path = make_file(saves, "freeform", ["add Seraph"])
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), "the command palette")
        await type_text(pilot, "Step")
        await wait_for(pilot, lambda: first_hit(app).startswith("Step"), "the Step command listed first")
        await press(pilot, "enter")
        await wait_for(pilot, lambda: encounter_screen(app).live.encounter.now == 1, "the palette's Step to move the fight on")
        await press(pilot, "ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), "the command palette again")
        await type_text(pilot, "Declare")
        await wait_for(pilot, lambda: first_hit(app).startswith("Declare"), "the Declare command listed first")
        await press(pilot, "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, DeclareScreen), "the declare form from the palette")
    assert on_disk(path).now == 1


async def test_duplicate_and_delete_from_the_start_screen(saves: Path) -> None:
    source = make_file(saves, "freeform", ["add Ann hp=7", "note first blood"], name="alpha")
    app = TrackerApp(saves)
    async with app.run_test(size=SIZE) as pilot:
        start = app.screen
        await wait_for(pilot, lambda: len(getattr(start, "listings", [])) == 1, "the list of encounters")
        await press(pilot, "c")
        await wait_for(pilot, lambda: isinstance(app.screen, FormScreen), "the duplicate form")
        await type_into(pilot, "#f-name", "Beta")
        await press(pilot, "ctrl+s")
        await wait_for(pilot, lambda: len(getattr(app.screen, "listings", [])) == 2, "the copy in the list")
        copy = saves / "beta.toml"
        enc = on_disk(copy)
        assert enc.setup.name == "Beta"
        assert [e.kind for e in enc.events] == [e.kind for e in on_disk(source).events]
        assert EncounterFile(copy).load().revision == 0
        # Duplicating onto an existing name is refused inside the form.
        await press(pilot, "c")
        await wait_for(pilot, lambda: isinstance(app.screen, FormScreen), "the duplicate form again")
        await type_into(pilot, "#f-name", "Beta")
        await press(pilot, "ctrl+s")
        assert "already exists" in str(app.screen.query_one("#form-error", Label).render())
        await press(pilot, "escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, FormScreen), "the list again")
        # Delete asks first: "n" keeps the file, "y" deletes it.
        table = app.screen.query_one("DataTable")
        table.move_cursor(row=[i.path for i in app.screen.listings].index(copy))
        await press(pilot, "delete")
        await press(pilot, "n")
        assert copy.exists()
        await press(pilot, "delete")
        await press(pilot, "y")
        await wait_for(pilot, lambda: len(getattr(app.screen, "listings", [])) == 1, "the list without the copy")
        assert not copy.exists() and source.exists()
