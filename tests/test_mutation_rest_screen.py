"""Direct tests of tracker.ui.screens.rest, worked from its docstring, docs/campaigns.md
and seed 004's Healing Roll (as tests/test_ui_campaign_rest.py works it): the form takes
the hours, `full`, each character's amounts (`vp=5 ep=10`, or `full`) and a note; where
the game has a recovery rule the rest asks for each roll in turn (whose roll, the dice,
its exact chance), faces typed or Enter on an empty line and the app rolls them, ctrl+r
rolls all the rest, ctrl+b takes back the last group, Esc leaves the rest unrecorded;
then the rest is recorded and its result shown.

Seraph (constitution 10, DP 15) is at DP 7 after The Ford: hour 1's Healing Roll wants
16 or under (9 + 7), its chance 9/10; 9, 5 = 14 heals 2; hour 2 wants 17 (9 + Sphere(9)
8); 1, 6 asks for the 1's reroll, subtracted: 4, so 3, Q 14, DP 9 -> 15.

The screens are shown in a bare app (tests/ui.py's `ScreenApp`) at 80x24; the campaign
file is loaded again after every rest. Waits are on conditions, capped at 10 seconds."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from rich.text import Text
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Input, Label, Static

from rulesets.dice import DiceGroup, DiceNeeded, PromptingFaces, RandomDice, TypedFaces
from tracker.engine import TrackerError
from tracker.play import fights
from tracker.ui.screens.campaign_forms import BackgroundForm
from tracker.ui.screens.rest import (
    RestAsked,
    RestDiceScreen,
    RestedScreen,
    ThenRolled,
    _amounts,
    _yes_no,
    attempt,
    carry_on,
    rest_form,
)
from tracker.play.fights import ruleset_of
from tests.campaign_ui import BY, load, make_campaign, make_fight
from tests.ui import ScreenApp, wait_for

pytestmark = pytest.mark.ui

WAIT = 10.0
HOUR_1 = "Seraph: heal (period=hour), hour 1"
HOUR_2 = "Seraph: heal (period=hour), hour 2"
CHANCE_1 = "chance of success: 90.00% (9/10)"


def _road(saves: Path) -> Path:
    """The Long Road: Seraph down to DP 7 after The Ford, Nyx whole."""
    road = make_campaign(saves, "brandx", "The Long Road", {"Seraph": {"vp": "43", "dp": "15", "ep": "74"}, "Nyx": {"vp": "30", "dp": "10", "ep": "50"}})
    fights.end(make_fight(road, "ford", "The Ford", ["damage Seraph 8 resource=dp"]), BY)
    assert load(road).pcs["pc1"].resources["dp"] == 7
    return road


def _hill(saves: Path) -> Path:
    """Under the Hill (OGS, no recovery rule): Ayla down to 8 of 20 hp."""
    road = make_campaign(saves, "ogs", "Under the Hill", {"Ayla": {"hp": "20"}, "Brom": {"hp": "24"}})
    fights.end(make_fight(road, "cave", "The Cave", ["damage Ayla 12"]), BY)
    return road


class _App(ScreenApp):
    """The bare app, its notifications kept: (message, timeout)."""

    def __init__(self, screen: Any) -> None:
        super().__init__(screen)
        self.said: list[tuple[str, Any]] = []

    def notify(self, message: str, *, title: str = "", severity: str = "information", timeout: float | None = None, markup: bool = True) -> None:  # type: ignore[override]
        self.said.append((str(message), timeout))


class Host(Screen[None]):
    """The campaign screen's place: what the rest comes back to."""

    def compose(self) -> Any:
        yield Label("the campaign")


# ------------------------------------------------------------------ the pure parts
def test_amounts_are_key_value_pairs_or_full_between_spaces_or_commas() -> None:
    assert _amounts("vp=5 ep=10", "Seraph") == {"vp": "5", "ep": "10"}
    assert _amounts("vp=5,ep=10", "Seraph") == {"vp": "5", "ep": "10"}
    assert _amounts(" vp=5 , FULL ", "Seraph") == {"vp": "5", "full": "true"}
    assert _amounts("Full", "Seraph") == {"full": "true"}
    assert _amounts("", "Seraph") == {}
    assert _amounts("full vp=5", "Seraph") == {"full": "true", "vp": "5"}  # full first, the rest still read
    assert _amounts("note=a=b", "Seraph") == {"note": "a=b"}  # split at the first "="
    for bad in ("vp", "=5", "vp=", "vp5"):
        with pytest.raises(TrackerError) as refused:
            _amounts(f"ep=1 {bad}", "Seraph")
        assert str(refused.value) == f"Seraph: expected KEY=N (vp=5) or full, got {bad!r}"


def test_full_is_yes_or_no() -> None:
    assert _yes_no("yes") is True and _yes_no("No") is False and _yes_no("true") is True
    with pytest.raises(TrackerError) as refused:
        _yes_no("maybe")
    assert str(refused.value) == "full: expected true or false (or yes or no), got 'maybe'"


def test_then_rolled_takes_the_faces_typed_then_the_apps_dice() -> None:
    dice = ThenRolled([3], TypedFaces([7, 8]))
    assert [dice.roll(10), dice.roll(10), dice.roll(8)] == [3, 7, 8]
    assert dice.faces == [3, 7, 8] and dice.used == 3
    none_typed = ThenRolled([], TypedFaces([2]))
    assert none_typed.roll(4) == 2 and none_typed.faces == [2]


def test_an_attempt_names_the_next_roll_and_writes_nothing_until_every_face_is_there(tmp_path: Path) -> None:
    road = _road(tmp_path)
    before = road.read_bytes()
    asked = RestAsked(2.0)
    need = attempt(road, asked, PromptingFaces([]), BY)
    assert isinstance(need, DiceNeeded) and need.label == HOUR_1 and need.group.text() == "Seraph's Healing Roll: 2d10"  # type: ignore[attr-defined]
    need = attempt(road, asked, PromptingFaces([9, 5, 1, 6]), BY)
    assert isinstance(need, DiceNeeded) and need.label == HOUR_2 and need.group.sides == (10,)  # type: ignore[attr-defined]
    assert road.read_bytes() == before
    done = attempt(road, RestAsked(2.0, note="by the ford"), PromptingFaces([9, 5, 1, 6, 4]), "gm:carol")
    assert not isinstance(done, DiceNeeded)
    name, rested = done
    assert name == "The Long Road" and "  Seraph: dp 7 -> 15" in rested.said(name)
    camp = load(road)
    assert camp.pcs["pc1"].resources["dp"] == 15 and camp.rests[-1].args["note"] == "by the ford"
    assert [r["dice"] for r in camp.rests[-1].args["rolls"]] == [[9, 5], [1, 6, 4]]
    assert camp.events[-1].kind == "rest" and camp.events[-1].by == "gm:carol"


def test_an_attempt_passes_the_amounts_and_full_on(tmp_path: Path) -> None:
    hill = _hill(tmp_path)
    done = attempt(hill, RestAsked(8.0, {"pc1.hp": "5"}), PromptingFaces([]), BY)
    assert not isinstance(done, DiceNeeded) and "  Ayla: hp 8 -> 13" in done[1].said(done[0])
    done = attempt(hill, RestAsked(1.0, everyone=True), PromptingFaces([]), BY)
    assert not isinstance(done, DiceNeeded) and "  Ayla: hp 13 -> 20" in done[1].said(done[0])
    assert [pc.resources["hp"] for pc in load(hill).party()] == [20, 24]


def test_the_rest_form_asks_hours_full_each_characters_amounts_and_a_note(tmp_path: Path) -> None:
    road = _road(tmp_path)
    camp = load(road)
    form = rest_form(camp, ruleset_of(camp, road.parent), road, BY)
    assert isinstance(form, BackgroundForm) and form.title_text == "The party of The Long Road rests"
    assert form.note == "the game's own recovery (its dice, one roll at a time), then what you state"
    rows = [(f.name, f.label, f.value, f.help, tuple(f.suggestions)) for f in form.fields]
    assert rows == [
        ("hours", "hours", "8", "how long the party rests", ()),
        ("full", "full", "no", "yes: everyone back to their sheet", ("yes", "no")),
        ("pc0", "Seraph", "", "what Seraph gets back as you state it: vp=5, or full", ()),
        ("pc1", "Nyx", "", "what Nyx gets back as you state it: vp=5, or full", ()),
        ("note", "note", "", "what the rest was (a night at the inn)", ()),
    ]
    hours, full, seraph, nyx, note = form.fields
    assert note.check is None
    with pytest.raises(TrackerError, match="^hours: expected a number, got 'x'$"):
        hours.check("x")  # type: ignore[misc]
    assert hours.check("1.5") == 1.5  # type: ignore[misc]
    with pytest.raises(TrackerError, match="full"):
        full.check("maybe")  # type: ignore[misc]
    assert full.check("yes") is True  # type: ignore[misc]
    with pytest.raises(TrackerError, match="^Nyx: expected KEY=N"):
        nyx.check("vp")  # type: ignore[misc]
    assert seraph.check("dp=3") == {"dp": "3"}  # type: ignore[misc]
    asked, found = form.work({"hours": "", "full": "", "pc0": "dp=3", "pc1": "full", "note": "  the inn "})  # type: ignore[misc]
    assert asked == RestAsked(8, {"pc1.dp": "3", "pc2.full": "true"}, False, "  the inn ")
    assert isinstance(asked.hours, float)
    assert isinstance(found, DiceNeeded) and found.label == HOUR_1  # type: ignore[attr-defined]
    asked, _ = form.work({"hours": "2", "full": "yes", "pc0": "", "pc1": "", "note": ""})  # type: ignore[misc]
    assert asked == RestAsked(2, {}, True, "")
    with pytest.raises(TrackerError, match="^note: control characters are not allowed"):
        form.work({"hours": "2", "full": "no", "pc0": "", "pc1": "", "note": "a\x1b[2J"})  # type: ignore[misc]
    with pytest.raises(TrackerError, match="^hours: expected a number, got 'x'$"):
        form.work({"hours": "x", "full": "no", "pc0": "", "pc1": "", "note": ""})  # type: ignore[misc]
    with pytest.raises(TrackerError, match="^Seraph: expected KEY=N"):
        form.work({"hours": "2", "full": "no", "pc0": "dp", "pc1": "", "note": ""})  # type: ignore[misc]


def test_a_game_without_a_rule_rests_by_what_the_gm_states(tmp_path: Path) -> None:
    hill = _hill(tmp_path)
    camp = load(hill)
    form = rest_form(camp, ruleset_of(camp, hill.parent), hill, BY)
    assert form.note == "what you state (the game has no rule for it)"
    assert [f.help for f in form.fields[2:4]] == ["what Ayla gets back as you state it: hp=5, or full", "what Brom gets back as you state it: hp=5, or full"]
    asked, found = form.work({"hours": "8", "full": "no", "pc0": "hp=5", "pc1": "", "note": ""})  # type: ignore[misc]
    assert asked.words == {"pc1.hp": "5"} and not isinstance(found, DiceNeeded)
    name, rested = found
    assert name == "Under the Hill" and "  Ayla: hp 8 -> 13" in rested.said(name)
    assert load(hill).events[-1].kind == "rest" and load(hill).events[-1].by == BY  # signed by who rested them


def test_a_party_with_no_resources_is_shown_the_form_of_the_example(tmp_path: Path) -> None:
    road = make_campaign(tmp_path, "ogs", "Empty Road", {})
    camp = load(road)
    ruleset = ruleset_of(camp, road.parent)
    form = rest_form(camp, ruleset, road, BY)
    assert [f.name for f in form.fields] == ["hours", "full", "note"]
    # Every shipped game gives a character resources; a sheet without any (a stand-in
    # campaign here) is shown the form of the amounts.
    bare = SimpleNamespace(name="Bare Road", party=lambda: [SimpleNamespace(id="pc1", name="Bo", maxima={})])
    form = rest_form(bare, ruleset, road, BY)  # type: ignore[arg-type]
    assert form.fields[2].help == "what Bo gets back as you state it: KEY=N, or full"


# ------------------------------------------------------------------ the screens
def _dice_screen(road: Path, dice: Any = None, hours: float = 2.0) -> RestDiceScreen:
    asked = RestAsked(hours)
    need = attempt(road, asked, PromptingFaces([]), BY)
    assert isinstance(need, DiceNeeded)
    return RestDiceScreen(road, asked, need, BY, dice)


def _text(screen: Any, ident: str) -> str:
    return str(screen.query_one(ident).render())


async def _typed(pilot: Any, screen: RestDiceScreen, faces: str) -> None:
    field = screen.query_one("#rest-faces", Input)
    field.value = faces
    await pilot.press("enter")


async def test_each_roll_is_asked_for_in_turn_with_whose_it_is_and_its_chance(tmp_path: Path) -> None:
    road = _road(tmp_path)
    dice = _dice_screen(road)
    app = _App(dice)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.screen is dice and dice.query_one(Input).has_focus, "the first roll asked for", WAIT)
        box = dice.query_one("#rest-dice", VerticalScroll)
        assert box.has_class("dialog") and box.has_class("form")
        labels = list(box.query(Label))
        assert labels[0].has_class("title") and str(labels[0].render()) == "Rest 2 hours: the dice"
        done = dice.query_one("#rest-done", Static)
        assert not done.display  # nothing entered yet
        assert _text(dice, "#rest-who") == HOUR_1
        assert _text(dice, "#rest-prompt") == "next: Seraph's Healing Roll: 2d10"
        assert _text(dice, "#rest-chance") == CHANCE_1 == dice.chance_shown
        assert dice.query_one("#rest-prompt").has_class("chance") and dice.query_one("#rest-chance").has_class("chance")
        field = dice.query_one("#rest-faces", Input)
        assert field.placeholder == "faces, e.g. 3,7 (empty: the app rolls them)" and field.value == ""
        error = dice.query_one("#rest-error", Label)
        assert error.has_class("error") and str(error.render()) == "" and str(labels[-1].render()) == "enter: these faces (empty: roll) · ctrl+r: roll the rest · ctrl+b: back · esc: cancel"
        assert labels[-1].has_class("hint")
        assert not dice.has_unsaved_input()
        field.value = "9"  # typed, not yet entered
        assert dice.has_unsaved_input()
        await pilot.press("enter")  # part of the group: the rest of it asked for
        await wait_for(pilot, lambda: _text(dice, "#rest-prompt") == "next: Seraph's Healing Roll: 2d10 (have 9; 1d10 to go)", "the second die", WAIT)
        assert dice.faces == [9] and dice.has_unsaved_input() and field.value == ""
        assert done.display and str(done.render()) == f"{HOUR_1}: Healing Roll -> 9"
        await _typed(pilot, dice, "5")
        await wait_for(pilot, lambda: _text(dice, "#rest-who") == HOUR_2, "hour 2", WAIT)
        assert str(done.render()) == f"{HOUR_1}: Healing Roll -> 9\n{HOUR_1}: Healing Roll -> 9, 5"
        assert _text(dice, "#rest-chance") == "chance of success: 94.00% (47/50)"
        await _typed(pilot, dice, " 1, 6 ")
        await wait_for(pilot, lambda: "reroll" in _text(dice, "#rest-prompt"), "the reroll of the 1", WAIT)
        assert _text(dice, "#rest-prompt") == "next: Seraph's Healing Roll: reroll of a 1 (subtracted): 1d10"
        await _typed(pilot, dice, "11")  # no d10 shows 11: refused, asked again
        await wait_for(pilot, lambda: error.display and "11" in str(error.render()), "the face refused", WAIT)
        assert dice.faces == [9, 5, 1, 6] and field.value == "11" and len(dice.steps) == 3
        await _typed(pilot, dice, "4")
        await wait_for(pilot, lambda: app.closed, "the rest recorded", WAIT)
    name, rested = app.result
    assert name == "The Long Road" and "  Seraph: dp 7 -> 15" in rested.said(name)
    camp = load(road)
    assert camp.pcs["pc1"].resources["dp"] == 15 and camp.rests[-1].args["hours"] == 2
    assert [r["dice"] for r in camp.rests[-1].args["rolls"]] == [[9, 5], [1, 6, 4]]
    assert camp.events[-1].kind == "rest" and camp.events[-1].by == BY


async def test_enter_on_an_empty_line_rolls_and_the_line_says_so(tmp_path: Path) -> None:
    road = _road(tmp_path)
    dice = _dice_screen(road, TypedFaces([9, 5, 2, 2]))
    app = _App(dice)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.screen is dice and dice.query_one(Input).has_focus, "the first roll", WAIT)
        await _typed(pilot, dice, "  ")
        await wait_for(pilot, lambda: _text(dice, "#rest-who") == HOUR_2, "hour 2", WAIT)
        assert str(dice.query_one("#rest-done").render()) == f"{HOUR_1}: Healing Roll -> 9, 5 (rolled)"
        assert dice.faces == [9, 5]
        await _typed(pilot, dice, "")
        await wait_for(pilot, lambda: app.closed, "the rest recorded", WAIT)
    assert [r["dice"] for r in load(road).rests[-1].args["rolls"]] == [[9, 5], [2, 2]]


async def test_ctrl_b_takes_back_the_last_group_and_ctrl_r_rolls_the_rest(tmp_path: Path) -> None:
    road = _road(tmp_path)
    dice = _dice_screen(road, TypedFaces([1, 6, 4]), hours=2.0)
    app = _App(dice)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.screen is dice and dice.query_one(Input).has_focus, "the first roll", WAIT)
        await pilot.press("ctrl+b")  # nothing to take back
        assert dice.faces == [] and _text(dice, "#rest-who") == HOUR_1
        await _typed(pilot, dice, "9,9")  # 18 over 16: missed
        await wait_for(pilot, lambda: _text(dice, "#rest-who") == HOUR_2, "hour 2", WAIT)
        await _typed(pilot, dice, "x")
        error = dice.query_one("#rest-error", Label)
        await wait_for(pilot, lambda: error.display, "the faces refused", WAIT)
        await pilot.press("ctrl+b")
        await wait_for(pilot, lambda: _text(dice, "#rest-who") == HOUR_1, "hour 1 again", WAIT)
        assert dice.faces == [] and dice.steps == [] and not error.display
        assert not dice.query_one("#rest-done").display and _text(dice, "#rest-chance") == CHANCE_1
        await _typed(pilot, dice, "9,5")
        await wait_for(pilot, lambda: _text(dice, "#rest-who") == HOUR_2, "hour 2", WAIT)
        await _typed(pilot, dice, "x")
        await wait_for(pilot, lambda: error.display, "refused again", WAIT)
        await pilot.press("ctrl+r")  # hour 2 from the app's dice: 1, 6, the 1's reroll 4
        await wait_for(pilot, lambda: app.closed, "the rest recorded", WAIT)
    assert [r["dice"] for r in load(road).rests[-1].args["rolls"]] == [[9, 5], [1, 6, 4]]


async def test_ctrl_b_puts_the_faces_back_to_before_the_group(tmp_path: Path) -> None:
    road = _road(tmp_path)
    dice = _dice_screen(road, hours=3.0)
    app = _App(dice)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.screen is dice and dice.query_one(Input).has_focus, "the first roll", WAIT)
        await _typed(pilot, dice, "9,9")
        await wait_for(pilot, lambda: _text(dice, "#rest-who") == HOUR_2, "hour 2", WAIT)
        await _typed(pilot, dice, "9")
        await wait_for(pilot, lambda: "(have 9; 1d10 to go)" in _text(dice, "#rest-prompt"), "half of hour 2", WAIT)
        await pilot.press("ctrl+b")
        await wait_for(pilot, lambda: _text(dice, "#rest-prompt") == "next: Seraph's Healing Roll: 2d10", "hour 2 whole again", WAIT)
        assert dice.faces == [9, 9] and _text(dice, "#rest-who") == HOUR_2
        assert str(dice.query_one("#rest-done").render()) == f"{HOUR_1}: Healing Roll -> 9, 9"


async def test_esc_leaves_the_rest_unrecorded(tmp_path: Path) -> None:
    road = _road(tmp_path)
    before = road.read_bytes()
    dice = _dice_screen(road)
    app = _App(dice)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.screen is dice and dice.query_one(Input).has_focus, "the first roll", WAIT)
        await _typed(pilot, dice, "9,5")
        await wait_for(pilot, lambda: _text(dice, "#rest-who") == HOUR_2, "hour 2", WAIT)
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.closed, "cancelled", WAIT)
    assert app.result is None and road.read_bytes() == before


async def test_keys_wait_while_a_step_is_working(tmp_path: Path) -> None:
    road = _road(tmp_path)
    dice = _dice_screen(road, TypedFaces([9, 5]))
    app = _App(dice)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.screen is dice and dice.query_one(Input).has_focus, "the first roll", WAIT)
        await _typed(pilot, dice, "9,9")
        await wait_for(pilot, lambda: _text(dice, "#rest-who") == HOUR_2 and not dice.working, "hour 2", WAIT)
        dice.working = True  # as while `record` runs on its thread
        await _typed(pilot, dice, "1,1")
        await pilot.press("ctrl+b", "ctrl+r", "escape")
        assert dice.faces == [9, 9] and _text(dice, "#rest-who") == HOUR_2 and not app.closed
        assert dice.query_one("#rest-faces", Input).value == "1,1"
        dice.working = False
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.closed, "cancelled", WAIT)


async def test_a_rest_refused_by_the_campaign_says_why_in_the_dice_screen(tmp_path: Path) -> None:
    road = _road(tmp_path)
    dice = _dice_screen(road, hours=1.0)
    app = _App(dice)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.screen is dice and dice.query_one(Input).has_focus, "the first roll", WAIT)
        dice.asked.words["pc9.vp"] = "3"  # no such character: `record` refuses
        await _typed(pilot, dice, "9,5")
        error = dice.query_one("#rest-error", Label)
        await wait_for(pilot, lambda: error.display and "pc9" in str(error.render()), "the refusal", WAIT)
        assert app.screen is dice and not app.closed


async def test_a_roll_with_no_label_or_chance_is_the_next_roll(tmp_path: Path) -> None:
    road = _road(tmp_path)
    need = DiceNeeded(DiceGroup("Luck [b]", (6, 6)), (), 0)
    dice = RestDiceScreen(road, RestAsked(1.5), need, BY, TypedFaces([]))
    assert isinstance(dice.dice, TypedFaces)
    default = RestDiceScreen(road, RestAsked(1.5), need, BY)
    assert isinstance(default.dice, RandomDice) and default.faces == [] and default.steps == [] and default.working is False
    assert default.path == road and default.by == BY and default.need is need and default.asked == RestAsked(1.5)
    app = _App(dice)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.screen is dice and dice.query_one(Input).has_focus, "the roll", WAIT)
        assert _text(dice, "#rest-who") == "the next roll"
        assert _text(dice, "#rest-prompt") == "next: Luck [b]: 2d6"
        assert _text(dice, "#rest-chance") == "chance of success: no roll" == dice.chance_shown
        assert str(dice.query_one(".title").render()) == "Rest 1.5 hours: the dice"
        dice.steps.append((need, 0, "x"))
        dice.faces.append(3)
        await _typed(pilot, dice, "")  # the app's dice have none left: said, nothing breaks
        dice.steps.clear()
        await _typed(pilot, dice, "2,3")  # the label of a group with none: its dice
        await wait_for(pilot, lambda: bool(dice.steps), "the faces taken", WAIT)
        assert dice.steps[-1][2] == "Luck [b]: 2d6: Luck [b] -> 2, 3"


async def test_the_result_says_what_the_rest_did_and_closes_on_enter_or_esc(tmp_path: Path) -> None:
    for key in ("enter", "escape"):
        rested = RestedScreen(["The Long Road: the party rests 2 hours", "  Seraph: dp 7 -> 15 [b]", "  Nyx: \x1b"])
        app = _App(rested)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: app.screen is rested, "the result", WAIT)
            box = rested.query_one("#rested", VerticalScroll)
            assert box.has_class("dialog")
            title = box.query(Label)[0]
            assert title.has_class("title") and str(title.render()) == "The party has rested (u on the campaign screen takes it back)"
            body = rested.query_one("#rested-body", Static)
            assert isinstance(body.content, Text) and body.content.plain == "The Long Road: the party rests 2 hours\n  Seraph: dp 7 -> 15 [b]\n  Nyx: ␛"
            hint = box.query(Label)[-1]
            assert hint.has_class("hint") and str(hint.render()) == "enter / esc: close"
            await pilot.press(key)
            await wait_for(pilot, lambda: app.closed, f"{key} closing it", WAIT)


# ------------------------------------------------------------------ the rest from its form
async def test_the_form_then_the_dice_then_the_result_then_back(tmp_path: Path) -> None:
    road = _road(tmp_path)
    host = Host()
    app = _App(host)
    back: list[bool] = []
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.screen is host, "the campaign", WAIT)
        camp = load(road)
        form = rest_form(camp, ruleset_of(camp, road.parent), road, BY)
        app.push_screen(form, lambda _: carry_on(host, form, road, BY, lambda: back.append(True)))
        await wait_for(pilot, lambda: app.screen is form and form.focused is not None, "the form", WAIT)
        form.query_one("#f-hours", Input).value = "1"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, RestDiceScreen), "the dice", WAIT)
        dice = app.screen
        assert isinstance(dice, RestDiceScreen) and dice.asked.hours == 1 and dice.by == BY and dice.path == road
        assert _text(dice, "#rest-who") == HOUR_1 and not back
        await _typed(pilot, dice, "9,5")
        await wait_for(pilot, lambda: isinstance(app.screen, RestedScreen), "the result", WAIT)
        shown = app.screen
        assert isinstance(shown, RestedScreen) and shown.lines[0] == "The Long Road: the party rests 1 hour (Brand X's Healing Roll (seed 004))"
        assert "  Seraph: dp 7 -> 9" in shown.lines and not back
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is host and back == [True], "back on the campaign", WAIT)
    assert load(road).pcs["pc1"].resources["dp"] == 9


async def test_dice_cancelled_the_rest_is_said_unrecorded_and_a_cancelled_form_does_nothing(tmp_path: Path) -> None:
    road = _road(tmp_path)
    before = road.read_bytes()
    host = Host()
    app = _App(host)
    back: list[str] = []
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.screen is host, "the campaign", WAIT)
        camp = load(road)
        form = rest_form(camp, ruleset_of(camp, road.parent), road, BY)
        app.push_screen(form, lambda _: carry_on(host, form, road, BY, lambda: back.append("form")))
        await wait_for(pilot, lambda: app.screen is form and form.focused is not None, "the form", WAIT)
        await pilot.press("escape")
        await wait_for(pilot, lambda: back == ["form"], "back, nothing asked", WAIT)
        assert app.screen is host and app.said == []
        form = rest_form(camp, ruleset_of(camp, road.parent), road, BY)
        app.push_screen(form, lambda _: carry_on(host, form, road, BY, lambda: back.append("dice")))
        await wait_for(pilot, lambda: app.screen is form and form.focused is not None, "the form again", WAIT)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, RestDiceScreen), "the dice", WAIT)
        await pilot.press("escape")
        await wait_for(pilot, lambda: back == ["form", "dice"], "back", WAIT)
        assert app.screen is host and app.said == [("the rest was not recorded", 4)]
    assert road.read_bytes() == before


async def test_a_rest_with_no_dice_goes_from_the_form_to_its_result(tmp_path: Path) -> None:
    hill = _hill(tmp_path)
    host = Host()
    app = _App(host)
    back: list[bool] = []
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.screen is host, "the campaign", WAIT)
        camp = load(hill)
        form = rest_form(camp, ruleset_of(camp, hill.parent), hill, BY)
        app.push_screen(form, lambda _: carry_on(host, form, hill, BY, lambda: back.append(True)))
        await wait_for(pilot, lambda: app.screen is form and form.focused is not None, "the form", WAIT)
        form.query_one("#f-pc0", Input).value = "hp=5"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, RestedScreen), "the result", WAIT)
        shown = app.screen
        assert isinstance(shown, RestedScreen) and "  Ayla: hp 8 -> 13" in shown.lines and shown.lines[0].startswith("Under the Hill: the party rests 8 hours")
        assert not back
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is host and back == [True], "back on the campaign", WAIT)
    assert load(hill).party()[0].resources["hp"] == 13


async def test_the_last_six_groups_entered_are_shown(tmp_path: Path) -> None:
    road = _road(tmp_path)
    dice = _dice_screen(road, hours=8.0)
    app = _App(dice)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.screen is dice and dice.query_one(Input).has_focus, "the first roll", WAIT)
        for hour in range(1, 8):  # 9, 9 = 18 over the target: missed, hour after hour
            await _typed(pilot, dice, "9,9")
            await wait_for(pilot, lambda: _text(dice, "#rest-who") == f"Seraph: heal (period=hour), hour {hour + 1}", f"hour {hour + 1}", WAIT)
        shown = str(dice.query_one("#rest-done").render()).split("\n")
        assert shown == [f"Seraph: heal (period=hour), hour {hour}: Healing Roll -> 9, 9" for hour in range(2, 8)]
