"""The declare form at 80x24, driven from the keyboard in every shipped ruleset.

The flow's steps and words are tested without a screen (tests/test_declaring.py); here,
end to end: choose -> dice (one named group at a time, typed) -> result and after-roll
choices -> commit in each game; escape changes nothing; back from the commit step with
each key; Enter and ctrl+s at the result; the chance line off the event loop; changing
the action mid-form, even in a burst, never ends the app; a burst with a Tab lands in two fields; random
key sequences leave the app alive and the save loadable. Every save written is loaded
again and compared. No fixed sleeps: waits are on conditions.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import threading
from collections.abc import Iterator, Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from textual.widgets import Input, Label

from rulesets import registry
from rulesets.base import ActionRequest, ActionTemplate, Ruleset
from rulesets.dice import DiceSource, roll_group
from rulesets.fields import AFTER_ROLL, MORE, PARAM, RESOURCE, Field
from tracker.engine import ACTIVE, Damage, Resolution, TimeMapping
from tracker.persistence.store import EncounterFile
from tracker.play.session import Session
from tracker.ui.app import TrackerApp
from tracker.play.form import FormStage
from tracker.ui.screens.declare import DeclareScreen
from tracker.ui.screens.encounter import EncounterScreen
from tests.helpers import check_declared
from tests.ui import post_keys, press, settle, wait_for

pytestmark = pytest.mark.ui

SIZE = (80, 24)
SAVES = Path(__file__).resolve().parent.parent / "saves"

# (save, actor, action, target) for a declaration that rolls dice in each game.
CASES = {
    "brandx": ("seraph-vs-sphinx.toml", "Seraph", "punch", "Sphinx"),
    "d6": ("d6-warehouse.toml", "Hero", "shoot", "Merc"),
    "ogs": ("ogs-guard.toml", "Michael", "attack", "Guard"),
    "ore": ("ore-knife-fight.toml", "Razor", "strike", "Vex"),
    "usor": ("usor-mountain-pass.toml", "Max", "strike", "Bandit"),
    "freeform": ("freeform-bridge-ambush.toml", "Kestrel", "attack", "Brother-Oak"),
}


class Gamble(Ruleset):
    """A d6 attack; on a hit, a d4 of damage. After the roll, `push` (0-2) adds to the
    total (the form's after-roll step); its default is the adapter's offer: 1 on a miss
    by one, else 0. Chance can be made slow (a test of the worker)."""

    id = "gamble"
    name = "Gamble"
    description = "tests only"
    time = TimeMapping(segments_per_round=10)
    sheet = (Field("hp", "int", 10, minimum=1, role=RESOURCE),)
    down_when = ("hp",)
    _PARAMS = (
        Field("target", "int", 4, minimum=1, maximum=7, role=PARAM, help="roll this or more"),
        Field("flourish", "int", 0, minimum=0, maximum=3, role=PARAM, help="style", stage=MORE),
        Field("push", "int", None, minimum=0, maximum=2, role=PARAM, help="after the roll", stage=AFTER_ROLL),
    )
    _CATALOGUE = {
        "swing": ActionTemplate("swing", ACTIVE, 5, "a d6 swing", rolls="1d6", targets=1, params=_PARAMS, maintainable=True),
        "wait": ActionTemplate("wait", ACTIVE, 3, "no dice"),
    }
    gate: threading.Event | None = None

    def catalogue(self) -> Mapping[str, ActionTemplate]:
        return self._CATALOGUE

    def resolve(self, request: ActionRequest, dice: DiceSource) -> Resolution:
        pt = request.pt or request.template.pt
        if request.template.name == "wait":
            return Resolution(pt, summary="waits")
        (face,) = roll_group(dice, "Swing", (6,))
        total = face + int(request.params.get("push") or 0)
        hit = total >= request.params["target"]
        effects: tuple[Any, ...] = ()
        if hit:
            (dmg,) = roll_group(dice, "damage on a hit", (4,))
            effects = tuple(Damage(t.name, dmg, "hp") for t in request.targets)
        return Resolution(pt, hit, total - request.params["target"], (face,), f"swing {total}: {'hit' if hit else 'miss'}", effects, details={"total": total})

    maintain = resolve

    def after_roll(self, request: ActionRequest, resolution: Resolution) -> str:
        return "push 0-2 to add to the total" if request.template.name == "swing" else ""

    def after_roll_defaults(self, request: ActionRequest, resolution: Resolution) -> dict[str, Any]:
        return {"push": 1 if resolution.margin == -1 else 0}

    def chance_of(self, request: ActionRequest) -> Fraction | None:
        if self.gate is not None:
            self.gate.wait(5)
        if request.template.name == "wait":
            return None
        return Fraction(max(0, 7 - request.params["target"]), 6)


@pytest.fixture
def gamble(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    from tests.helpers import install_game

    install_game(monkeypatch, Gamble)
    Gamble.gate = None
    yield
    monkeypatch.undo()
    registry.forget()


def gamble_file(saves: Path, lines: list[str] = ()) -> Path:  # type: ignore[assignment]
    path = saves / "gamble.toml"
    store, loaded = EncounterFile.create(path, "gamble", "gamble")
    session = Session(loaded.encounter, loaded.ruleset, store=store)
    for line in ["add Ann hp=10", "add Bob hp=10", *lines]:
        session.execute(line)
    return path


def copy_save(saves: Path, name: str) -> Path:
    shutil.copy(SAVES / name, saves / name)
    return saves / name

async def set_field(pilot: Any, selector: str, text: str) -> None:
    widget = pilot.app.screen.query_one(selector, Input)
    widget.focus()
    await settle(pilot)
    await press(pilot, "ctrl+u", *text)


def form(app: TrackerApp) -> DeclareScreen:
    assert isinstance(app.screen, DeclareScreen), app.screen
    return app.screen


def prompt(app: TrackerApp) -> str:
    return str(form(app).query_one("#dice-prompt", Label).render())


def faces_for(prompt_text: str) -> list[int]:
    """Faces that fit the dice the prompt names ("... 1d8+1d12" or "(...; 1d10 to go)")."""
    dice = prompt_text.rsplit(";", 1)[1] if "to go" in prompt_text else prompt_text.rsplit(":", 1)[1]
    faces = []
    for count, sides in re.findall(r"(\d+)d(\d+)", dice):
        faces += [min(int(sides), 3)] * int(count)
    return faces


def no_bugs(app: TrackerApp) -> None:
    assert not getattr(app, "errors", []), app.errors  # type: ignore[attr-defined]


async def ask_for_dice(pilot: Any, screen: DeclareScreen) -> None:
    """ctrl+s on a filled form: the dice are asked for."""
    await press(pilot, "ctrl+s")
    await wait_for(pilot, lambda: screen.stage == FormStage.DICE, "the dice")


async def type_faces(pilot: Any, screen: DeclareScreen, faces: str) -> None:
    """Type the faces asked for ("9,6,2"), then wait for the result."""
    await press(pilot, *faces, "enter")
    await wait_for(pilot, lambda: screen.stage == FormStage.RESULT, "the result")


async def open_form(pilot: Any, app: TrackerApp, actor: str, action: str, target: str) -> DeclareScreen:
    await wait_for(pilot, lambda: isinstance(app.screen, EncounterScreen), "the encounter screen")
    await press(pilot, "a")
    await wait_for(pilot, lambda: isinstance(app.screen, DeclareScreen) and app.screen.focused is not None, "the declare form")
    await set_field(pilot, "#d-actor", actor)
    await set_field(pilot, "#d-template", action)
    if target:
        await set_field(pilot, "#d-targets", target)
    return form(app)


# ------------------------------------------------------------------ every ruleset
@pytest.mark.parametrize("game", sorted(CASES))
@pytest.mark.parametrize("typed", [True], ids=["typed"])  # the app's dice: tests/test_declaring.py
async def test_declare_through_the_form(saves: Path, game: str, typed: bool) -> None:
    save, actor, action, target = CASES[game]
    path = copy_save(saves, save)
    before = len(EncounterFile(path).load().encounter.events)
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_form(pilot, app, actor, action, target)
        await wait_for(pilot, lambda: "chance of success: " in screen.chance_shown and "…" not in screen.chance_shown, "the chance")
        if game == "freeform":
            assert screen.chance_shown == "chance of success: no roll"
        else:
            assert re.search(r"\d+\.\d\d% \(\d+/\d+\)", screen.chance_shown), screen.chance_shown
        await press(pilot, "ctrl+s")
        prompts, typed_faces = [], []
        while screen.stage == FormStage.DICE:
            text = prompt(app)
            assert text.startswith(f"next: {actor}'s ") or "'s " in text, text  # a named, labelled group
            prompts.append(text)
            if typed:
                faces = faces_for(text)
                typed_faces += faces
                await press(pilot, *",".join(map(str, faces)), "enter")
            else:
                await press(pilot, "enter")  # empty: the form rolls this group
            assert len(prompts) < 20
        assert screen.stage == FormStage.RESULT, str(screen.query_one("#declare-error", Label).render())
        assert bool(prompts) == (game != "freeform")
        if typed:
            assert screen.faces == typed_faces
        shown = str(screen.query_one("#result", Label).render())
        faces = list(screen.faces)
        await press(pilot, "ctrl+s")  # commits from any field (enter moves through the Q fields)
        await wait_for(pilot, lambda: isinstance(app.screen, EncounterScreen), "back on the encounter screen")
        action_made = app.screen.live.encounter.actions[-1]
        no_bugs(app)
    check_declared(path, before, action_made, actor, action, shown, faces)


# ------------------------------------------------------------------ after the roll
async def test_more_modifiers_one_key_away(saves: Path, gamble: None) -> None:
    path = gamble_file(saves)
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_form(pilot, app, "Ann", "swing", "Bob")
        flourish = screen.query_one("#p-flourish", Input)
        assert not flourish.display or not flourish.parent.parent.display
        await press(pilot, "ctrl+o")
        assert flourish.parent.parent.display and flourish.region.height == 1
        await set_field(pilot, "#p-flourish", "9")
        assert "flourish: expected an integer from 0 to 3, got '9'" in str(screen.query_one("#p-flourish-error", Label).render())
        no_bugs(app)


async def test_more_modifiers_open_in_view_and_tab_never_lands_on_nothing(saves: Path) -> None:
    """At 80x24 D6's shoot fills the form: ctrl+o opens its six more modifiers below the
    fold. The GM must see them open (the cursor goes to the first, scrolled into view),
    Tab from the last field goes back to the first (no stop on the scrolling box, where
    typing does nothing), and ctrl+o again closes them with the cursor on the action."""
    path = copy_save(saves, "d6-warehouse.toml")
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_form(pilot, app, "Hero", "shoot", "Merc")
        setup = screen.query_one("#setup")

        def in_view(widget: Any) -> bool:
            return widget.region.height == 1 and setup.region.contains_region(widget.region)

        await press(pilot, "ctrl+o")
        modifier = screen.query_one("#p-modifier", Input)
        await wait_for(pilot, lambda: screen.focused is modifier and in_view(modifier), "the first more modifier, in view")
        seen = []
        for _ in range(12):
            await press(pilot, "tab")
            seen.append(screen.focused)
            await wait_for(pilot, lambda: isinstance(screen.focused, Input) and in_view(screen.focused), "the focused field, in view")
        assert screen.query_one("#d-actor", Input) in seen
        screen.query_one("#p-carry", Input).focus()
        await settle(pilot)
        await press(pilot, "ctrl+o")
        await wait_for(pilot, lambda: screen.focused is screen.query_one("#d-template", Input), "the cursor back on the action")
        assert not modifier.parent.parent.display  # type: ignore[union-attr]
        no_bugs(app)


# ------------------------------------------------------------------ changing one's mind
async def test_changing_the_action_mid_form_keeps_the_app(saves: Path) -> None:
    path = copy_save(saves, "seraph-vs-sphinx.toml")
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_form(pilot, app, "Seraph", "punch", "Sphinx")
        await set_field(pilot, "#p-pool", "2")
        await set_field(pilot, "#d-template", "blast")
        await set_field(pilot, "#d-template", "punch")
        screen.query_one("#d-template", Input).focus()
        await settle(pilot)
        entry = screen.query_one("#d-template", Input)
        for _ in range(3):  # changes faster than any widget can be mounted or removed
            for name in ("blast", "strike", "power", "punch"):
                entry.value = name
        await wait_for(pilot, lambda: screen.template is not None and screen.template.name == "punch", "back on punch")
        for _ in range(3):  # a burst of keys, as over SSH: whatever it leaves, the form follows it
            await press(pilot, "ctrl+u", *"blast", "ctrl+u", *"strike", "backspace", "ctrl+u", *"punch")
        await wait_for(pilot, lambda: (screen.template.name if screen.template else "") == entry.value.strip(), "the form follows the field")
        entry.value = "punch"
        await wait_for(pilot, lambda: screen.template is not None and screen.template.name == "punch", "back on punch")
        visible_pool = [w for w in screen.query("#p-pool") if w.parent.parent.display]
        assert [w.value for w in visible_pool] == ["2"]  # what was typed for punch is kept
        await wait_for(pilot, lambda: "%" in screen.chance_shown, "the chance")
        d6_path = copy_save(saves, "d6-warehouse.toml")
        no_bugs(app)
    app = TrackerApp(saves, d6_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_form(pilot, app, "Hero", "shoot", "Merc")
        entry = screen.query_one("#d-template", Input)
        for name in ("strike", "shoot", "strike"):
            entry.value = name
        await wait_for(pilot, lambda: screen.template is not None and screen.template.name == "strike", "strike")
        await press(pilot, "ctrl+r")  # roll everything and look
        assert screen.stage == FormStage.RESULT
        no_bugs(app)


async def test_a_burst_with_tab_lands_in_two_fields(saves: Path) -> None:
    path = copy_save(saves, "seraph-vs-sphinx.toml")
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, EncounterScreen), "the encounter screen")
        await press(pilot, "a")
        await wait_for(pilot, lambda: isinstance(app.screen, DeclareScreen) and app.screen.focused is not None, "the form")
        screen = form(app)
        fields = [screen.query_one(f"#d-{name}", Input) for name in ("actor", "template", "targets")]
        for entry in fields:
            entry.value = ""
        fields[0].focus()
        await settle(pilot)
        await press(pilot, *"Seraph", "tab", *"PC")
        assert fields[0].value == "Seraph"
        assert fields[1].value == "PC"
        for entry in fields:
            entry.value = ""
        await press(pilot, "shift+tab", *"Sphinx", "tab", *"punch", "tab", *"Seraph")
        assert screen.query_one("#d-actor", Input).value == "Sphinx"
        assert screen.query_one("#d-template", Input).value == "punch"
        assert screen.query_one("#d-targets", Input).value == "Seraph"
        no_bugs(app)


# ------------------------------------------------------------------ escape changes nothing
@pytest.mark.parametrize("step", [FormStage.RESULT])  # each step: tests/test_declaring.py
async def test_escape_at_each_step_changes_nothing(saves: Path, gamble: None, step: str) -> None:
    path = gamble_file(saves)
    before = path.read_bytes()
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_form(pilot, app, "Ann", "swing", "Bob")
        live = screen.live
        events_before = len(live.encounter.events)
        if step != FormStage.SETUP:
            await press(pilot, "ctrl+s")
        if step in ("dice-partly", FormStage.RESULT):
            await press(pilot, "6", "enter")
        if step == FormStage.RESULT:
            await press(pilot, "4", "enter")
        assert screen.stage == {"dice-partly": FormStage.DICE}.get(step, step)
        await press(pilot, "escape")
        await wait_for(pilot, lambda: isinstance(app.screen, EncounterScreen), "the encounter screen")
        assert len(live.encounter.events) == events_before
        assert live.encounter.combatants["Bob"].resources["hp"] == 10
        no_bugs(app)
    assert path.read_bytes() == before


# ------------------------------------------------------------------ the chance, off the loop
async def test_chance_is_computed_off_the_event_loop(saves: Path, gamble: None) -> None:
    path = gamble_file(saves)
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_form(pilot, app, "Ann", "swing", "Bob")
        await wait_for(pilot, lambda: screen.chance_shown.endswith("(1/2)"), "the first chance")
        Gamble.gate = threading.Event()  # every chance now waits until released
        field = screen.query_one("#p-target", Input)
        field.focus()
        # Not `press`: it waits for running workers, and the odds are blocked on purpose.
        post_keys(app, ["ctrl+u", "6", "ctrl+u", "3"])
        # Typing goes on while the odds are blocked: the field holds what was typed.
        await wait_for(pilot, lambda: field.value == "3" and not app.key_hold.keys, "the keys typed while the odds are blocked")
        assert screen.chance_shown.endswith("(1/2)")
        Gamble.gate.set()
        await wait_for(pilot, lambda: screen.chance_shown.endswith("(2/3)"), "the latest chance wins")
        Gamble.gate = None
        await set_field(pilot, "#d-template", "wait")
        await wait_for(pilot, lambda: screen.chance_shown == "chance of success: no roll", "no roll")
        no_bugs(app)


# ------------------------------------------------------------------ maintain
async def test_maintain_with_dice_goes_through_the_form(saves: Path, gamble: None) -> None:
    path = gamble_file(saves, ["declare Ann swing target=Bob faces=1", "next"])
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, EncounterScreen), "the encounter screen")
        assert app.screen.selected == "Ann"
        await press(pilot, "m")
        await wait_for(pilot, lambda: isinstance(app.screen, DeclareScreen), "the maintain form")
        screen = form(app)
        await press(pilot, "ctrl+s")
        assert prompt(app) == "next: Ann's Swing: 1d6"
        await press(pilot, "5", "enter", "2", "enter")
        assert screen.stage == FormStage.RESULT
        await press(pilot, "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, EncounterScreen), "committed")
        no_bugs(app)
    saved = EncounterFile(path).load().encounter
    assert saved.events[-1].kind == "maintain" and saved.actions[-1].resolution.dice == (5,)


# ------------------------------------------------------------------ random keys
KEYS = st.sampled_from(
    [*"abcdefghijkPQS0123456789", "comma", "left_square_bracket", "right_square_bracket", "space",
     "tab", "shift+tab", "enter", "escape", "ctrl+u", "ctrl+s", "ctrl+r", "ctrl+b", "ctrl+o", "backspace"]
)


# Two games with choices after the roll; every game's flow, in any order: tests/test_declaring.py.
@pytest.mark.parametrize("game", ["brandx", "ore"])
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(keys=st.lists(st.lists(KEYS, min_size=1, max_size=12), min_size=1, max_size=6))
def test_random_keys_leave_the_app_alive(saves: Path, game: str, keys: list[list[str]]) -> None:
    save = CASES[game][0]
    path = saves / save
    shutil.copy(SAVES / save, path)

    async def run() -> None:
        app = TrackerApp(saves, path)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, EncounterScreen), "the encounter screen")
            for chunk in keys:
                if isinstance(app.screen, EncounterScreen):
                    await press(pilot, "a")
                    await settle(pilot)
                assert isinstance(app.screen, DeclareScreen), app.screen
                # A burst ends with the first key that may close the form, so no key of
                # it lands on the encounter screen (whose own keys are tested elsewhere).
                closing = [i for i, key in enumerate(chunk) if key in ("escape", "enter", "ctrl+s")]
                await press(pilot, *(chunk[: closing[0] + 1] if closing else chunk))
                assert app.is_running
                no_bugs(app)

    asyncio.run(run())
    EncounterFile(path).load()  # the save still loads


async def test_brandx_form_hints_fit_one_line_each_at_80_columns(saves: Path) -> None:
    """The action's line and the ctrl+o line are one line each (the form gives them one):
    Brand X's punch, whose description and 14 more modifiers ran to 3 lines each at 80x24,
    shows the start of each, cut with an ellipsis (the more modifiers are all one key away)."""
    from tests.test_ui_screen import screen_text

    path = copy_save(saves, "seraph-vs-sphinx.toml")
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, EncounterScreen), "the encounter screen")
        await press(pilot, "a")
        await wait_for(pilot, lambda: isinstance(app.screen, DeclareScreen) and app.screen.focused is not None, "the declare form")
        screen = form(app)
        info = screen.query_one("#template-info", Label)
        (more,) = [w for w in screen.query(".more-hint") if w.parent is not None and w.parent.display]
        await wait_for(pilot, lambda: info.region.height > 0 and more.region.height > 0, "the hints laid out")
        width = info.region.width
        for hint, start in ((info, "punch: active, PT 15, rolls Combat Roll"), (more, "ctrl+o: 14 more modifiers (roll, editing")):
            lines = screen_text(hint)
            assert len(lines) == 1 and lines[0].startswith(start) and lines[0].rstrip().endswith("…"), lines
            assert len(lines[0].rstrip()) <= width


async def test_a_secret_roll_from_the_form_shows_viewers_no_dice(saves: Path) -> None:
    """Issue 9: "Secret rolls show no dice and no totals." The GM marks the roll secret in
    the form (ctrl+o, "secret roll"); a viewer's log then says a roll was made and shows
    neither its faces nor its total; the GM's log keeps both."""
    from tests.test_ui_screen import screen_text
    from tracker.ui.widgets.log import CombatLog

    path = copy_save(saves, "seraph-vs-sphinx.toml")
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_form(pilot, app, "Seraph", "punch", "Sphinx")
        secret = screen.query_one("#d-secret", Input)
        assert not secret.parent.parent.display  # one key away, and the hint says so
        assert [w for w in screen.query(".more-hint") if w.parent.display and "secret)" in str(w.render())]
        await press(pilot, "ctrl+o")
        assert secret.parent.parent.display
        await set_field(pilot, "#d-secret", "yes")
        assert screen.secret and "· secret ·" in str(screen.query_one("#declare-title", Label).render())
        await ask_for_dice(pilot, screen)
        await press(pilot, *"9,8", "enter")
        await wait_for(pilot, lambda: "Throwback Roll" in prompt(app), "the Throwback Roll")
        await type_faces(pilot, screen, "9,9")
        await press(pilot, "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, EncounterScreen), "committed")
        assert app.screen.live.encounter.events[-1].args.get("secret") is True
        no_bugs(app)
    saved = EncounterFile(path).load().encounter
    assert saved.events[-1].args.get("secret") is True and saved.actions[-1].resolution.dice == (9, 8, 9, 9)
    total = saved.actions[-1].resolution.details["total"]
    viewer = TrackerApp(saves, path, viewer=True)
    async with viewer.run_test(size=(80, 60)) as pilot:
        await settle(pilot)
        log = viewer.screen.query_one(CombatLog)
        text = " ".join(" ".join(screen_text(log)).split())
        assert "(rolled in secret)" in text
        assert "[dice 9 8" not in text and "rolled 9+8" not in text and f"= {total}" not in text
        assert "Seraph" in text


async def test_a_failing_key_does_not_strand_the_keys_after_it(saves: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A priority binding (Tab in the form) runs as the held key is handed on; a bug in it
    is reported, and the keys held after it still arrive."""
    path = copy_save(saves, "seraph-vs-sphinx.toml")
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_form(pilot, app, "Seraph", "punch", "")
        target = screen.query_one("#d-template", Input)
        target.focus()
        await settle(pilot)

        def broken(step: int) -> None:
            raise RuntimeError("focus step failed")

        monkeypatch.setattr(screen, "action_focus_step", broken)
        await press(pilot, "ctrl+u", "tab", *"blast")
        await wait_for(pilot, lambda: target.value == "blast", "the keys after the failing one")
        assert [type(e) for e in app.errors] == [RuntimeError]


async def test_the_whole_result_is_in_view(saves: Path) -> None:
    """Seen by hand: a USOR strike's result (four groups of dice, then a summary of five
    lines) was cut after eight lines, hiding "the Defense holds: no damage"."""
    from tests.test_ui_screen import screen_text

    path = copy_save(saves, "usor-mountain-pass.toml")
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_form(pilot, app, "Max", "strike", "Bandit")
        await press(pilot, "ctrl+s")
        for faces in ("7,11", "3,12", "2,20", "4,8"):  # Defense 8: derived 1d4+1d8
            await wait_for(pilot, lambda: screen.stage == FormStage.DICE, "the dice")
            await press(pilot, *faces, "enter")
        await wait_for(pilot, lambda: screen.stage == FormStage.RESULT, "the result")
        result = screen.query_one("#result", Label)
        text = " ".join(" ".join(screen_text(result)).split())
        assert "the Defense holds: no damage" in text
        stage = screen.query_one("#result-stage")
        assert result.region.bottom <= stage.region.bottom <= SIZE[1] and stage.max_scroll_y == 0
        no_bugs(app)


# ------------------------------------------------------------------ no dead ends
async def test_enter_in_the_first_q_field_moves_on_and_does_not_commit(saves: Path) -> None:
    """Issue 22: Enter in the first Q field of a Brand X result committed a wrong Q split.
    Enter means "next field" there too: it commits only from the last field (or ctrl+s).
    Seed 004's punch: 1,5 then a reroll of 3 leaves q 12 (as above)."""
    path = copy_save(saves, "seraph-vs-sphinx.toml")
    before = len(EncounterFile(path).load().encounter.actions)
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_form(pilot, app, "Seraph", "punch", "Sphinx")
        await ask_for_dice(pilot, screen)
        await press(pilot, *"1,5", "enter")
        await wait_for(pilot, lambda: "reroll of a 1" in prompt(app), "the reroll")
        await press(pilot, "3", "enter")
        await wait_for(pilot, lambda: "Throwback Roll" in prompt(app), "the Throwback Roll")
        await press(pilot, *"9,9", "enter")
        await wait_for(pilot, lambda: screen.stage == FormStage.RESULT, "the result")
        q_fields = [w for w in screen.focus_chain if isinstance(w, Input)]
        assert len(q_fields) > 1 and screen.focused is q_fields[0]
        await press(pilot, "ctrl+u", "6", "enter")
        assert isinstance(app.screen, DeclareScreen) and screen.stage == FormStage.RESULT
        assert screen.focused is q_fields[1]
        assert "commit from the last" in str(screen.query_one("#declare-hint", Label).render())
        await press(pilot, "ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, EncounterScreen), "committed with ctrl+s")
        no_bugs(app)
    assert len(EncounterFile(path).load().encounter.actions) == before + 1


@pytest.mark.parametrize("key", ["ctrl+b", "shift+tab", "up"])
async def test_the_commit_step_of_a_rollless_action_goes_back(saves: Path, key: str) -> None:
    """Issue 22: the freeform commit step was a dead end (ctrl+b, shift+tab and Up did
    nothing; Esc threw the form away). Each goes back to the choices, as they were typed."""
    path = copy_save(saves, "freeform-bridge-ambush.toml")
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_form(pilot, app, "Kestrel", "attack", "Brother-Oak")
        await set_field(pilot, "#d-pt", "4")
        await press(pilot, "ctrl+s")
        await wait_for(pilot, lambda: screen.stage == FormStage.RESULT, "the commit step")
        await press(pilot, key)
        await wait_for(pilot, lambda: screen.stage == FormStage.SETUP, "back at the choices")
        assert isinstance(app.screen, DeclareScreen)
        typed = [screen.query_one(f"#d-{name}", Input).value for name in ("template", "targets", "pt")]
        assert typed == ["attack", "Brother-Oak", "4"]
        await press(pilot, "ctrl+s")
        await wait_for(pilot, lambda: screen.stage == FormStage.RESULT, "the commit step again")
        await press(pilot, "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, EncounterScreen), "committed")
        no_bugs(app)
    assert EncounterFile(path).load().encounter.actions[-1].pt == 4
