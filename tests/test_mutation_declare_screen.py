"""Direct tests of tracker.ui.screens.declare: the declare form alone in a bare app at 80x24
(tests/ui.py's `ScreenApp`), worked from its docstring, docs/guide/declaring.md and
docs/decisions/0001-declare-form.md, 0041-declare-again.md and 0042-declare-secret-roll.md.

The form renders a `DeclareFlow` (tests/test_mutation_declaring.py tests the flow alone):
actor, action, targets and PT, the action's summary, its main modifiers with the rest one
key away (ctrl+o, with "secret roll" for the GM), the chance under the title; then the dice
one named group at a time (typed, Enter alone or ctrl+r rolls), the result with the
choices made after the roll, ctrl+b back a step, Esc changes nothing, and the commit
closes the form with what was done. A digit in the action field takes a recent entry.

The game is tests/test_ui_declare.py's Gamble: a swing rolls a d6 against `target` (4
unless typed), a hit then a d4 of damage; `push` (0-2) after the roll; `flourish` the one
modifier one key away; `wait` rolls nothing. Its chance at target 4 is 3/6, at 6 is 1/6.
The app's dice are `Faces` (each face known). Every save written is loaded again. Waits are
on conditions, capped at 10 seconds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.compose import compose
from textual.widget import Widget
from textual.widgets import Input, Label

from rulesets.fields import PARAM, Field
from tracker.engine import TrackerError
from tracker.persistence.store import EncounterFile
from tracker.play.form import FormStage, int_at_least_1
from tracker.play.live import Live
from tracker.play.requests import DECLARE, MAINTAIN
from tracker.reading.roles import Role
from tracker.ui.screens.declare import LABEL_WIDTH, ActionField, ChanceReady, DeclareScreen, _label, _param_field
from tracker.ui.screens.form import FieldInput, FormField
from tests.test_mutation_declaring import DICE_HINT, RESULT_HINT, SETUP_HINT, Faces, proposed
from tests.test_ui_declare import Gamble, copy_save, gamble, gamble_file  # noqa: F401 (gamble: a fixture)
from tests.test_ui_screen import screen_text
from tests.ui import ScreenApp, wait_for

pytestmark = pytest.mark.ui

WAIT = 10.0
SIZE = (80, 24)
SWING_INFO = "swing: active, PT 5, maintainable, rolls 1d6; a d6 swing"
CHANCE_4 = "chance of success: 50.00% (1/2)"  # 4, 5 or 6 on a d6
CHANCE_6 = "chance of success: 16.67% (1/6)"
NO_FACES = "faces rolled, comma separated · enter alone: roll them"


# ------------------------------------------------------------------ the pure parts
def test_a_label_is_the_name_with_spaces_cut_with_an_ellipsis_past_the_width() -> None:
    assert LABEL_WIDTH == 16
    assert _label("flourish") == "flourish"
    assert _label("wiggle_dice_kept") == "wiggle dice kept"[:14] + "…"  # 16 letters: cut
    assert _label("a" * 15) == "a" * 15  # the widest shown whole
    assert _label("b" * 16) == "b" * 14 + "…" and len(_label("c" * 40)) == 15
    assert _label("x_y") == "x y" and _label("") == ""


def test_a_modifier_is_a_field_with_its_default_help_and_words() -> None:
    target = Gamble._PARAMS[0]
    f = _param_field(target)
    assert (f.name, f.label, f.value, f.help, tuple(f.suggestions)) == ("target", "target", "4", "roll this or more", ())
    assert f.check is not None and f.check("5") == 5
    with pytest.raises(TrackerError, match=r"^target: expected an integer from 1 to 7, got '9'$"):
        f.check("9")
    push = _param_field(Gamble._PARAMS[2])
    assert push.value == "" and push.help == "after the roll"  # no default: empty
    aimed = _param_field(Field("aimed_shot_at_range", "bool", False, role=PARAM))
    assert aimed.label == "aimed shot at …" and aimed.value == "false"
    assert tuple(aimed.suggestions) == ("true", "false") and aimed.help == Field("x", "bool", False).expected()
    stance = _param_field(Field("stance", "choice", "low", choices=("low", "high"), role=PARAM))
    assert tuple(stance.suggestions) == ("low", "high") and stance.help == "one of low, high"
    assert stance.check is not None and stance.check("high") == "high"
    with pytest.raises(TrackerError, match="^stance: "):
        stance.check("middle")
    count = _param_field(Field("count", "int", 2, minimum=1, role=PARAM))
    assert tuple(count.suggestions) == () and count.help == "an integer of at least 1" and count.value == "2"


def test_the_chance_message_carries_its_generation_and_text() -> None:
    ready = ChanceReady(3, "chance of success: no roll")
    assert ready.gen == 3 and ready.text == "chance of success: no roll"


class FormApp(ScreenApp):
    """The bare app; a fault in the form ends it at once, its traceback not drawn: Textual
    draws it with every frame's source highlighted, a minute for a mutant's module."""

    def _fatal_error(self) -> None:
        self._close_messages_no_wait()


def _live(saves: Path, *lines: str, role: Role | None = None, viewer: bool = False, faces: tuple[int, ...] = ()) -> Live:
    live = Live.open(gamble_file(saves, list(lines)), viewer=viewer, user="ann" if role and role.is_player else "", role=role)
    live.session.dice = Faces(*faces)
    return live


def test_the_form_opens_on_the_flow_its_fields_described(saves: Path, gamble: None) -> None:
    live = _live(saves)
    screen = DeclareScreen(live)
    assert screen.kind == DECLARE and screen.live is live and not screen.show_more
    assert screen.flow.kind == DECLARE and screen.flow.actor == "Ann" and screen.flow.proposal is None
    assert screen.flow.seen_as == Role.gm() and screen.flow.run == live.run
    assert screen.chance_shown == "" and screen._chance_gen == 0 and not screen._form_closed
    assert screen._setup_boxes == {} and screen._after_boxes == {} and screen.param_inputs == {} and screen.after_inputs == {}
    assert screen._error_labels == {}
    assert screen.secret is False  # not up yet
    assert screen.stage == FormStage.SETUP and screen.faces == [] and screen.actors == ["Ann", "Bob"] and screen.recent == []
    assert screen.template is not None and screen.template.name == "swing" and screen.step is None
    assert not screen.has_unsaved_input()
    assert screen._base_fields() == [
        FormField("actor", "actor", "Ann", "who acts", None, ["Ann", "Bob"]),
        FormField("template", "action", "swing", "what they do", None, ["swing", "wait"]),
        FormField("targets", "targets", "", "names, comma separated", None, ["Ann", "Bob"], multiple=True),
        FormField("pt", "PT", "", "blank: the action's own performance time", int_at_least_1),
    ]
    assert DeclareScreen(live, "Bob").flow.actor == "Bob"
    upkeep = DeclareScreen(live, "Bob", MAINTAIN)
    assert upkeep.kind == MAINTAIN and upkeep.flow.kind == MAINTAIN
    assert upkeep._base_fields() == [
        FormField("actor", "actor", "Bob", "who maintains", None, ["Ann", "Bob"]),
        FormField("pt", "PT", "", "blank: the action's own performance time", int_at_least_1),
    ]
    # Not yet up: the checks of keys and actions take nothing.
    assert screen.check_action("cancel", ()) is True and screen.check_action("again", (0,)) is False


async def composed(screen: DeclareScreen) -> list[Widget]:
    """The form's widgets as composed inside a bare app that does not show them (a fault
    in composing fails here at once, not inside the app's own mounting)."""
    async with App[None]().run_test(size=SIZE):
        return compose(screen)


def outline(widget: Widget) -> Any:
    """Kind, id and classes of `widget`, then of what it holds."""
    inner = tuple(outline(child) for child in widget._pending_children)
    classes = " ".join(sorted(c for c in widget.classes if not c.startswith("-")))  # not Input's own "-valid"
    return (type(widget).__name__, widget.id, classes, *((inner,) if inner else ()))


def row(kind: str, name: str) -> tuple[Any, ...]:
    return ("Horizontal", None, "row", (("Label", None, "label"), (kind, name, ""))), ("Label", f"{name}-error", "error")


async def test_the_form_is_composed_of_its_steps_each_in_its_box(saves: Path, gamble: None) -> None:
    live = _live(saves)
    screen = DeclareScreen(live)
    (top,) = await composed(screen)
    secret_box = ("Vertical", "secret-box", "more", row("FieldInput", "d-secret"))
    assert outline(top) == ("Vertical", "declare", "dialog form", (
        ("Label", "declare-title", "title"), ("Label", "chance", "chance"),
        ("VerticalScroll", "setup", "", (
            ("Label", "recent", "hint"), *row("FieldInput", "d-actor"), *row("ActionField", "d-template"), *row("FieldInput", "d-targets"),
            *row("FieldInput", "d-pt"), ("Label", "template-info", "hint"), ("Vertical", "params", ""), secret_box,
        )),
        ("Vertical", "dice-stage", "hidden-stage", (("Label", "dice-done", ""), ("Label", "dice-prompt", "chance"), ("Input", "dice-faces", ""))),
        ("VerticalScroll", "result-stage", "hidden-stage", (("Label", "result", ""), ("Vertical", "after", ""))),
        ("Label", "declare-error", "error"), ("Label", "declare-hint", "hint"),
    ))
    every: list[Any] = []
    stack: list[Any] = [top]
    while stack:
        w = stack.pop(0)
        every.append(w)
        stack.extend(w._pending_children)
    widgets = {w.id: w for w in every if w.id}
    rows = [w for w in every if w.has_class("row")]
    enc = live.encounter
    assert str(widgets["declare-title"].content) == f"Declare an action · {enc.time.clock(enc.now)}"
    assert str(widgets["chance"].content) == "chance of success: …"
    assert not widgets["setup"].can_focus and not widgets["result-stage"].can_focus  # no Tab stop on nothing
    assert not widgets["secret-box"].display  # one key away
    secret = widgets["d-secret"]
    assert (secret.value, secret.placeholder) == ("false", "true: viewers see no dice and no totals")
    assert secret.suggester is not None and secret.suggester.words == ["true", "false"]
    assert [str(w._pending_children[0].content) for w in rows] == ["actor", "action", "targets", "PT", "secret roll"]
    assert all(w._pending_children[0].styles.width.value == LABEL_WIDTH + 1 for w in rows)
    faces = widgets["dice-faces"]
    assert (faces.value, faces.placeholder, faces.cursor_blink) == ("", NO_FACES, False)
    assert {entry.id: label.id for entry, label in screen._error_labels.items()} == {
        f"d-{name}": f"d-{name}-error" for name in ("actor", "template", "targets", "pt", "secret")
    }
    # A player and a maintenance: no secret roll; to maintain, the actor and the PT only.
    (saves / "player").mkdir()
    player = DeclareScreen(_live(saves / "player", role=Role.player(["Ann"])))
    (top,) = await composed(player)
    assert "secret-box" not in str(outline(top)) and "d-template" in str(outline(top))
    upkeep = DeclareScreen(live, "Ann", MAINTAIN)
    (top,) = await composed(upkeep)
    setup = outline(top)[3][2][3]
    assert setup == (("Label", "recent", "hint"), *row("FieldInput", "d-actor"), *row("FieldInput", "d-pt"), ("Label", "template-info", "hint"),
                     ("Vertical", "params", ""))


async def test_a_proposal_opens_as_the_player_made_it_and_is_approved() -> None:
    """The GM edits a player's proposal (an encounter in memory: approving writes nothing here)."""
    gm, seq = proposed(target="5", flourish="1")
    live = Live(Path("in-memory.toml"), gm, None)  # type: ignore[arg-type]
    screen = DeclareScreen(live, proposal=gm.encounter.proposal(seq))
    app = FormApp(screen)
    async with app.run_test(size=SIZE) as pilot:
        await up(pilot, screen)
        assert shown(screen, "#declare-title") == f"Edit proposal {seq} (Ann, swing against Bob), then approve"
        values = {name: entry(screen, f"#d-{name}").value for name in ("actor", "template", "targets", "pt")}
        assert values == {"actor": "Ann", "template": "swing", "targets": "Bob", "pt": "6"}
        assert entry(screen, "#p-target").value == "5" and entry(screen, "#p-flourish").value == "1"
        assert hidden(screen.query_one("#recent")) and not screen.takes_again("1")
        await pilot.press("ctrl+s")  # the player's dice: straight to the result
        await stage(pilot, screen, FormStage.RESULT)
        assert screen.faces == [5, 2] and shown(screen, "#result").splitlines()[0] == "Ann's Swing: 1d6 -> 5"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.closed, "the form closed", WAIT)
    assert app.result is not None and app.result.event.kind == "approve"
    assert gm.encounter.actions[-1].resolution.dice == (5,)


# ------------------------------------------------------------------ on screen
def shown(screen: DeclareScreen, selector: str) -> str:
    return str(screen.query_one(selector, Label).render())


def entry(screen: DeclareScreen, selector: str) -> Input:
    return screen.query_one(selector, Input)


def hidden(widget: Any) -> bool:
    """Not shown: itself or a box around it out of the display."""
    return not widget.display or any(not a.display or a.has_class("hidden-stage") for a in widget.ancestors_with_self if hasattr(a, "display"))


async def up(pilot: Any, screen: DeclareScreen) -> None:
    await wait_for(pilot, lambda: screen.is_mounted and screen.focused is not None, "the form up", WAIT)


async def chance(pilot: Any, screen: DeclareScreen, text: str) -> None:
    await wait_for(pilot, lambda: screen.chance_shown == text, f"the chance {text!r} (now {screen.chance_shown!r})", WAIT)
    assert shown(screen, "#chance") == text


async def stage(pilot: Any, screen: DeclareScreen, at: FormStage) -> None:
    try:
        await wait_for(pilot, lambda: screen.stage == at, f"the {at} step", WAIT)
    except AssertionError:
        raise AssertionError(f"{screen.stage} {screen.flow.error!r} {screen.focused}") from None


async def typed(pilot: Any, screen: DeclareScreen, selector: str, text: str) -> None:
    """Empty the field (select all the ways a user does: ctrl+u) and type `text` into it."""
    field = entry(screen, selector)
    field.focus()
    await wait_for(pilot, lambda: screen.focused is field, f"{selector} focused", WAIT)
    await pilot.press("ctrl+u", *text)
    await wait_for(pilot, lambda: field.value == text, f"{selector} holding {text!r}", WAIT)


async def rolled_and_committed(pilot: Any, app: Any, screen: DeclareScreen, live: Live) -> None:
    """ctrl+r rolls the app's dice, ctrl+s commits the result; waits for the form to close
    and the save to be written."""
    await pilot.press("ctrl+r")
    await stage(pilot, screen, FormStage.RESULT)
    await pilot.press("ctrl+s")
    await wait_for(pilot, lambda: app.closed, "the form closed", WAIT)
    await wait_for(pilot, lambda: not live.store.pending, "the save written", WAIT)


def written(live: Live) -> Any:
    """The save loaded again, once the write-behind store has written it."""
    return EncounterFile(live.path).load().encounter


async def test_a_declaration_through_the_form_step_by_step(saves: Path, gamble: None) -> None:
    live = _live(saves)
    screen = DeclareScreen(live)
    app = FormApp(screen)
    enc = live.encounter
    async with app.run_test(size=SIZE) as pilot:
        await up(pilot, screen)
        await chance(pilot, screen, CHANCE_4)
        assert shown(screen, "#declare-title") == f"Declare an action · {enc.time.clock(enc.now)}"
        assert screen.focused is entry(screen, "#d-template") and isinstance(screen.focused, ActionField)
        assert type(entry(screen, "#d-actor")) is FieldInput and type(entry(screen, "#d-pt")) is FieldInput
        fields = {f.id: (f.value, f.placeholder) for f in screen.query("#setup Input").results(Input)}
        assert fields == {
            "d-actor": ("Ann", "who acts"), "d-template": ("swing", "what they do"), "d-targets": ("", "names, comma separated"),
            "d-pt": ("", "blank: the action's own performance time"), "p-target": ("4", "roll this or more"),
            "p-flourish": ("0", "style"), "d-secret": ("false", "true: viewers see no dice and no totals"),
        }
        rows = [str(label.render()) for label in screen.query("#setup .row > .label").results(Label)]
        assert rows == ["actor", "action", "targets", "PT", "target", "flourish", "secret roll"]
        assert shown(screen, "#template-info") == SWING_INFO
        column = entry(screen, "#d-targets").region.x  # every field starts in one column, after its label
        target = entry(screen, "#p-target")
        target.focus()  # scrolled into view
        await wait_for(pilot, lambda: target.region.width > 0, "the modifier in view", WAIT)
        assert column == LABEL_WIDTH + 1 + entry(screen, "#d-targets").parent.region.x and target.region.x == column
        entry(screen, "#d-template").focus()
        assert hidden(screen.query_one("#recent")) and shown(screen, "#recent") == ""
        assert shown(screen, ".more-hint") == "ctrl+o: 2 more modifiers (flourish, secret)"
        assert not hidden(entry(screen, "#p-target")) and hidden(entry(screen, "#p-flourish")) and hidden(entry(screen, "#d-secret"))
        assert screen.query_one("#tpl-0").has_class("tpl") and screen.query_one("#secret-box").has_class("more")
        assert screen._setup_boxes == {"swing": 0} and set(screen.param_inputs["swing"]) == {"target", "flourish"}
        assert screen.query_one("#dice-stage").has_class("hidden-stage") and screen.query_one("#result-stage").has_class("hidden-stage")
        assert not hidden(screen.query_one("#setup"))
        assert shown(screen, "#declare-hint") == SETUP_HINT and shown(screen, "#declare-error") == ""
        assert hidden(screen.query_one("#declare-error"))
        assert entry(screen, "#dice-faces").placeholder == NO_FACES and not entry(screen, "#dice-faces").cursor_blink
        assert all(not f.cursor_blink for f in screen.query("#setup Input").results(Input))
        # A bad target names itself under its field; the chance line says why there are no odds.
        await typed(pilot, screen, "#d-targets", "Zed")
        await wait_for(pilot, lambda: "Zed" in shown(screen, "#d-targets-error"), "the target refused", WAIT)
        assert not hidden(screen.query_one("#d-targets-error"))
        await typed(pilot, screen, "#d-targets", "Bob")
        await wait_for(pilot, lambda: shown(screen, "#d-targets-error") == "", "the target taken", WAIT)
        await typed(pilot, screen, "#d-pt", "0")  # a field wrong: said at once on the chance line
        await wait_for(pilot, lambda: screen.chance_shown == "chance of success: - (pt: expected at least 1 segment, got 0)", "the PT refused", WAIT)
        await typed(pilot, screen, "#d-pt", "")
        await chance(pilot, screen, CHANCE_4)
        await typed(pilot, screen, "#p-target", "6")
        await chance(pilot, screen, CHANCE_6)
        await typed(pilot, screen, "#p-target", "4")
        await chance(pilot, screen, CHANCE_4)
        assert screen.has_unsaved_input()
        # Enter moves on field by field; from the last one it asks for the dice.
        entry(screen, "#d-template").focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.focused is entry(screen, "#d-targets"), "enter: the next field", WAIT)
        entry(screen, "#p-target").focus()
        await pilot.press("enter")
        await stage(pilot, screen, FormStage.DICE)
        faces = entry(screen, "#dice-faces")
        assert screen.focused is faces and faces.value == ""
        assert shown(screen, "#dice-prompt") == "next: Ann's Swing: 1d6"
        assert hidden(screen.query_one("#dice-done")) and shown(screen, "#dice-done") == ""
        example = faces.placeholder.split("e.g. ")[1].split(" ")[0]
        assert faces.placeholder == f"faces rolled, e.g. {example} · enter alone: roll them" and 1 <= int(example) <= 6
        assert hidden(screen.query_one("#setup")) and not screen.query_one("#dice-stage").has_class("hidden-stage")
        assert screen.query_one("#result-stage").has_class("hidden-stage")
        assert shown(screen, "#declare-hint") == DICE_HINT
        await pilot.press("9", "enter")  # no face of a d6: refused, said so
        await wait_for(pilot, lambda: shown(screen, "#declare-error") != "", "the face refused", WAIT)
        assert "9" in shown(screen, "#declare-error") and screen.stage == FormStage.DICE
        await pilot.press("ctrl+u", "5")  # typing again clears the refusal
        await wait_for(pilot, lambda: shown(screen, "#declare-error") == "", "the refusal cleared", WAIT)
        await pilot.press("enter")
        await wait_for(pilot, lambda: shown(screen, "#dice-prompt") == "next: Ann's damage on a hit: 1d4", "the damage die", WAIT)
        assert shown(screen, "#dice-done") == "Ann's Swing: 1d6 -> 5" and not hidden(screen.query_one("#dice-done"))
        assert faces.value == "" and screen.focused is faces
        assert int(faces.placeholder.split("e.g. ")[1].split(" ")[0]) <= 4
        await pilot.press("2", "enter")
        await stage(pilot, screen, FormStage.RESULT)
        assert shown(screen, "#result").splitlines() == [
            "Ann's Swing: 1d6 -> 5", "Ann's damage on a hit: 1d4 -> 2", "success: yes · margin: 1 · total: 5 · PT 5", "swing 5: hit",
            "after the roll: push 0-2 to add to the total",
        ]
        push = entry(screen, "#a-push")
        assert screen.focused is push and push.value == "0" and push.placeholder == "after the roll" and push.region.x == column
        assert screen._after_boxes == {"swing": 0} and not hidden(push) and screen.query_one("#after-0").has_class("after")
        assert hidden(screen.query_one("#setup")) and screen.query_one("#dice-stage").has_class("hidden-stage")
        assert not screen.query_one("#result-stage").has_class("hidden-stage")
        assert shown(screen, "#declare-hint") == RESULT_HINT
        assert screen.faces == [5, 2]
        await pilot.press("enter")  # from the last (only) choice: the commit
        await wait_for(pilot, lambda: app.closed, "the form closed", WAIT)
        assert app.result is not None and app.result.event.kind == "declare"
        for late in (screen.action_go, screen.action_roll_rest, screen.action_back, screen.action_more, screen.action_cancel):
            late()  # a key that arrives after the commit: let go
        screen.action_again(0)
        await wait_for(pilot, lambda: not live.store.pending, "the save written", WAIT)
    saved = written(live)
    assert [e.kind for e in saved.events].count("declare") == 1
    action = saved.actions[-1]
    assert saved.events[-1].kind == "declare" and (action.actor, action.template, action.targets) == ("Ann", "swing", ("Bob",))
    assert action.resolution.dice == (5,) and action.resolution.summary == "swing 5: hit"


async def test_escape_at_each_step_leaves_the_save_as_it_was(saves: Path, gamble: None) -> None:
    for i, steps in enumerate(([], ["ctrl+s"], ["ctrl+r"])):
        (saves / str(i)).mkdir()
        live = _live(saves / str(i), faces=(5, 2))
        before = live.path.read_bytes()
        screen = DeclareScreen(live)
        app = FormApp(screen)
        async with app.run_test(size=SIZE) as pilot:
            await up(pilot, screen)
            await typed(pilot, screen, "#d-targets", "Bob")
            for key in steps:
                await pilot.press(key)
            await wait_for(pilot, lambda: screen.stage == {(): FormStage.SETUP, ("ctrl+s",): FormStage.DICE}.get(tuple(steps), FormStage.RESULT),
                           "the step", WAIT)
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.closed, "the form closed", WAIT)
            assert app.result is None and screen._form_closed
            screen.action_cancel()  # once closed, nothing more happens
            screen.action_go()
            screen.action_back()
            screen.action_roll_rest()
            screen.action_more()
            screen.action_again(0)
            screen.action_previous()
            assert not screen.takes_again("1")
        assert live.path.read_bytes() == before


async def test_the_app_rolls_the_rest_and_back_takes_a_step_at_a_time(saves: Path, gamble: None) -> None:
    live = _live(saves, faces=(5, 3, 6))
    screen = DeclareScreen(live)
    app = FormApp(screen)
    async with app.run_test(size=SIZE) as pilot:
        await up(pilot, screen)
        await typed(pilot, screen, "#d-targets", "Bob")
        await pilot.press("ctrl+r")
        await stage(pilot, screen, FormStage.RESULT)
        assert screen.faces == [5, 3] and shown(screen, "#result").splitlines()[:2] == ["Ann's Swing: 1d6 -> 5", "Ann's damage on a hit: 1d4 -> 3"]
        await pilot.press("ctrl+b")  # from the result: back to the dice, the last group off
        await stage(pilot, screen, FormStage.DICE)
        assert screen.faces == [5] and shown(screen, "#dice-prompt") == "next: Ann's damage on a hit: 1d4"
        assert screen.focused is entry(screen, "#dice-faces")
        await pilot.press("ctrl+b")
        await wait_for(pilot, lambda: screen.faces == [] and shown(screen, "#dice-prompt") == "next: Ann's Swing: 1d6", "the swing die again", WAIT)
        assert hidden(screen.query_one("#dice-done"))
        await pilot.press("ctrl+b")  # past the first group: the choices again, as typed
        await stage(pilot, screen, FormStage.SETUP)
        assert screen.focused is entry(screen, "#d-template") and entry(screen, "#d-targets").value == "Bob"
        assert not hidden(screen.query_one("#setup")) and screen.query_one("#dice-stage").has_class("hidden-stage")
        assert shown(screen, "#declare-hint") == SETUP_HINT
        await chance(pilot, screen, CHANCE_4)
        # The rollless action: the result at once, nothing to choose, the focus on nothing.
        await typed(pilot, screen, "#d-template", "wait")
        await wait_for(pilot, lambda: shown(screen, "#template-info") == "wait: active, PT 3; no dice", "the wait summed up", WAIT)
        assert hidden(entry(screen, "#p-target"))  # the swing's modifiers out of sight
        await chance(pilot, screen, "chance of success: no roll")
        await pilot.press("ctrl+s")
        await stage(pilot, screen, FormStage.RESULT)
        assert shown(screen, "#result").splitlines() == ["PT 3", "waits"] and screen.focused is None
        await pilot.press("tab")  # nothing to choose: nowhere to go
        assert screen.stage == FormStage.RESULT and screen.focused is None
        await pilot.press("shift+tab")  # and back a step, never a dead end
        await stage(pilot, screen, FormStage.SETUP)
        await pilot.press("ctrl+s")
        await stage(pilot, screen, FormStage.RESULT)
        assert hidden(entry(screen, "#a-push")) if screen.query("#a-push") else True
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.closed, "the form closed", WAIT)
        await wait_for(pilot, lambda: not live.store.pending, "the save written", WAIT)
    assert written(live).events[-1].args["template"] == "wait"


async def test_more_modifiers_and_the_secret_roll_are_one_key_away(saves: Path, gamble: None) -> None:
    live = _live(saves, faces=(6, 4))
    screen = DeclareScreen(live)
    app = FormApp(screen)
    enc = live.encounter
    async with app.run_test(size=SIZE) as pilot:
        await up(pilot, screen)
        await typed(pilot, screen, "#d-targets", "Bob")
        await pilot.press("ctrl+o")  # opened: the first of them focused, in view
        await wait_for(pilot, lambda: screen.focused is entry(screen, "#p-flourish"), "flourish focused", WAIT)
        assert screen.show_more and not hidden(entry(screen, "#p-flourish")) and not hidden(entry(screen, "#d-secret"))
        await pilot.press("ctrl+u", "9")
        await wait_for(pilot, lambda: shown(screen, "#p-flourish-error") != "", "flourish refused", WAIT)
        assert shown(screen, "#p-flourish-error") == "flourish: expected an integer from 0 to 3, got '9'"
        await chance(pilot, screen, "chance of success: - (declare swing.flourish: expected an integer from 0 to 3, got '9')")
        await pilot.press("backspace", "3")
        await wait_for(pilot, lambda: shown(screen, "#p-flourish-error") == "", "flourish taken", WAIT)
        await chance(pilot, screen, CHANCE_4)
        await typed(pilot, screen, "#d-secret", "true")
        await wait_for(pilot, lambda: shown(screen, "#declare-title") == f"Declare an action · secret · {enc.time.clock(enc.now)}", "secret titled", WAIT)
        assert screen.secret and screen.has_unsaved_input()
        await typed(pilot, screen, "#d-secret", "maybe")
        await wait_for(pilot, lambda: "secret: expected true or false" in shown(screen, "#d-secret-error"), "the typo said", WAIT)
        assert shown(screen, "#declare-title") == f"Declare an action · {enc.time.clock(enc.now)}" and not screen.secret
        await typed(pilot, screen, "#d-secret", "yes")
        await pilot.press("ctrl+o")  # closed with the cursor inside: back to the action
        await wait_for(pilot, lambda: screen.focused is entry(screen, "#d-template"), "back to the action", WAIT)
        assert not screen.show_more and hidden(entry(screen, "#p-flourish")) and hidden(entry(screen, "#d-secret"))
        entry(screen, "#d-targets").focus()
        await pilot.press("ctrl+o", "ctrl+o")  # opened (the cursor in them) and closed: back to the action
        await wait_for(pilot, lambda: not screen.show_more, "closed again", WAIT)
        assert screen.focused is entry(screen, "#d-template") and entry(screen, "#d-secret").value == "yes"
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: screen.show_more, "opened again", WAIT)
        entry(screen, "#d-targets").focus()
        await pilot.press("ctrl+o")  # closed with the cursor outside them: it stays
        await wait_for(pilot, lambda: not screen.show_more, "closed again", WAIT)
        assert screen.focused is entry(screen, "#d-targets")
        await typed(pilot, screen, "#d-template", "dance")  # no such action: only the secret roll one key away
        await wait_for(pilot, lambda: shown(screen, "#template-info") == "" and hidden(entry(screen, "#p-target")), "no action", WAIT)
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: screen.focused is entry(screen, "#d-secret"), "the secret roll focused", WAIT)
        await pilot.press("ctrl+o")
        await typed(pilot, screen, "#d-template", "swing")
        await pilot.press("ctrl+s")
        await stage(pilot, screen, FormStage.DICE)
        await rolled_and_committed(pilot, app, screen, live)
    action = written(live).actions[-1]
    assert action.secret and action.resolution.dice == (6,) and action.asked is not None and action.asked["flourish"] == "3"


async def test_a_player_has_no_secret_roll_and_acts_for_their_own(saves: Path, gamble: None) -> None:
    live = _live(saves, "declare Bob wait", "step 3", role=Role.player(["Bob"]), faces=(1,))
    screen = DeclareScreen(live)
    app = FormApp(screen)
    async with app.run_test(size=SIZE) as pilot:
        await up(pilot, screen)
        assert screen.flow.seen_as == Role.player(["Bob"]) and screen.actors == ["Bob"]
        assert entry(screen, "#d-actor").value == "Bob" and not screen.query("#secret-box") and not screen.query("#d-secret")
        assert shown(screen, ".more-hint") == "ctrl+o: 1 more modifiers (flourish)"
        assert shown(screen, "#recent") == "1 again: wait"
        await pilot.press("1")  # the same again (no secret mark to fill): a wait rolls nothing, the result at once
        await stage(pilot, screen, FormStage.RESULT)
        assert shown(screen, "#result").splitlines() == ["PT 3", "waits"]
        await pilot.press("ctrl+b")
        await stage(pilot, screen, FormStage.SETUP)
        await typed(pilot, screen, "#d-template", "swing")
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: screen.focused is entry(screen, "#p-flourish"), "flourish focused", WAIT)
        assert screen.secret is False
        await typed(pilot, screen, "#d-actor", "Ann")
        await wait_for(pilot, lambda: "Ann is not your combatant" in shown(screen, "#d-actor-error"), "not theirs", WAIT)
        await typed(pilot, screen, "#d-actor", "Bob")
        await typed(pilot, screen, "#d-targets", "Ann")
        await pilot.press("ctrl+s")
        await stage(pilot, screen, FormStage.DICE)
        await pilot.press("1", "enter")  # a 1: a miss
        await stage(pilot, screen, FormStage.RESULT)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.closed, "the form closed", WAIT)
        await wait_for(pilot, lambda: not live.store.pending, "the save written", WAIT)
    action = written(live).actions[-1]
    assert (action.actor, action.targets, action.resolution.dice, action.secret) == ("Bob", ("Ann",), (1,), False)


async def test_a_viewer_is_told_the_form_changes_nothing(saves: Path, gamble: None) -> None:
    live = _live(saves, viewer=True)
    before = live.path.read_bytes()
    screen = DeclareScreen(live)
    app = FormApp(screen)
    async with app.run_test(size=SIZE) as pilot:
        await up(pilot, screen)
        assert not screen.query("#secret-box")
        await typed(pilot, screen, "#d-template", "wait")
        assert not screen.has_unsaved_input()  # another action chosen: nothing typed yet
        await pilot.press("ctrl+s")
        await stage(pilot, screen, FormStage.RESULT)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "read-only" in shown(screen, "#declare-error"), "the refusal", WAIT)
        assert not app.closed and not hidden(screen.query_one("#declare-error"))
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.closed, "the form closed", WAIT)
    assert live.path.read_bytes() == before and app.result is None


async def test_maintaining_shows_the_link_and_its_own_modifiers(saves: Path, gamble: None) -> None:
    live = _live(saves, faces=())
    live.session.declare("Ann", "swing", ["Bob"], faces=[1], params={"target": "5", "flourish": "2"})
    live.session.execute("step 5")
    live.session.dice = Faces(6, 3)
    enc = live.encounter
    screen = DeclareScreen(live, "Ann", MAINTAIN)
    app = FormApp(screen)
    async with app.run_test(size=SIZE) as pilot:
        await up(pilot, screen)
        assert screen.focused is entry(screen, "#d-actor")
        assert not screen.query("#d-template") and not screen.query("#d-targets") and not screen.query("#secret-box")
        assert shown(screen, "#declare-title") == f"Maintain an action · {enc.time.clock(enc.now)}"
        assert shown(screen, "#template-info") == "link 1 of Ann's swing at Bob; a d6 swing"
        assert entry(screen, "#p-target").value == "5" and entry(screen, "#p-flourish").value == "2"
        assert hidden(screen.query_one("#recent"))
        await chance(pilot, screen, "chance of success: 33.33% (1/3)")
        await pilot.press("up")  # the first field of the choices: nowhere further up
        assert screen.focused is entry(screen, "#d-actor")
        await typed(pilot, screen, "#d-actor", "Bob")
        await wait_for(pilot, lambda: shown(screen, "#template-info") == "nothing to maintain", "nothing of Bob's", WAIT)
        assert hidden(entry(screen, "#p-target"))
        await typed(pilot, screen, "#d-actor", "Ann")
        await wait_for(pilot, lambda: not hidden(entry(screen, "#p-target")), "Ann's link again", WAIT)
        assert entry(screen, "#p-target").value == "5" and shown(screen, "#template-info") == "link 1 of Ann's swing at Bob; a d6 swing"
        await pilot.press("ctrl+s")
        await stage(pilot, screen, FormStage.DICE)
        await pilot.press("ctrl+b")  # back to the choices: the actor, the first of them
        await stage(pilot, screen, FormStage.SETUP)
        assert screen.focused is entry(screen, "#d-actor")
        await pilot.press("ctrl+s")
        await stage(pilot, screen, FormStage.DICE)
        await pilot.press("6", "enter")
        await wait_for(pilot, lambda: shown(screen, "#dice-prompt") == "next: Ann's damage on a hit: 1d4", "the damage die", WAIT)
        await pilot.press("3", "enter")
        await stage(pilot, screen, FormStage.RESULT)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.closed, "the form closed", WAIT)
        await wait_for(pilot, lambda: not live.store.pending, "the save written", WAIT)
    saved = written(live)
    assert saved.events[-1].kind == "maintain" and saved.actions[-1].resolution.dice == (6,)


async def test_a_digit_in_the_action_field_takes_a_recent_entry(saves: Path, gamble: None) -> None:
    live = _live(saves, "declare Ann wait", "step 3")
    live.session.declare("Ann", "swing", ["Bob"], pt=6, faces=[1], params={"target": "5"}, secret=True)
    live.session.execute("step 6")
    live.session.dice = Faces(5, 2)
    screen = DeclareScreen(live, "Ann")
    app = FormApp(screen)
    enc = live.encounter
    async with app.run_test(size=SIZE) as pilot:
        await up(pilot, screen)
        assert shown(screen, "#recent").splitlines() == ["1 again: swing -> Bob (PT 6, target=5, secret)", "2 again: wait"]
        assert not hidden(screen.query_one("#recent"))
        assert screen.check_action("again", (0,)) is True and screen.check_action("again", (1,)) is True
        assert screen.check_action("again", (2,)) is False
        assert screen.check_action("again", ()) is False and screen.check_action("again", ("0",)) is False
        assert screen.takes_again("1") and screen.takes_again("2") and not screen.takes_again("3") and not screen.takes_again(None)
        entry(screen, "#d-pt").focus()
        await pilot.press("1")  # in the PT field a digit is typed
        await wait_for(pilot, lambda: entry(screen, "#d-pt").value == "1", "the digit typed", WAIT)
        assert not screen.takes_again("1") and screen.check_action("again", (0,)) is False
        await typed(pilot, screen, "#d-actor", "Bob")  # Bob has done nothing yet
        await wait_for(pilot, lambda: hidden(screen.query_one("#recent")), "no entries for Bob", WAIT)
        await typed(pilot, screen, "#d-actor", "Ann")
        await wait_for(pilot, lambda: not hidden(screen.query_one("#recent")), "Ann's entries", WAIT)
        field = entry(screen, "#d-template")
        field.focus()
        await wait_for(pilot, lambda: screen.focused is field, "the action field", WAIT)
        await pilot.press("1")
        await stage(pilot, screen, FormStage.DICE)
        assert field.value == "swing"  # not typed into
        values = {name: entry(screen, f"#d-{name}").value for name in ("template", "targets", "pt", "secret")}
        assert values == {"template": "swing", "targets": "Bob", "pt": "6", "secret": "true"}
        assert entry(screen, "#p-target").value == "5" and entry(screen, "#p-flourish").value == "0"
        assert shown(screen, "#declare-title") == f"Declare an action · secret · {enc.time.clock(enc.now)}"
        await chance(pilot, screen, "chance of success: 33.33% (1/3)")
        assert shown(screen, "#dice-prompt") == "next: Ann's Swing: 1d6" and screen.focused is entry(screen, "#dice-faces")
        assert not screen.takes_again("1")  # past the choices
        await rolled_and_committed(pilot, app, screen, live)
    action = written(live).actions[-1]
    assert (action.template, action.targets, action.pt, action.secret, (action.asked or {})["target"]) == ("swing", ("Bob",), 6, True, "5")


async def test_names_and_text_with_brackets_are_shown_as_typed(saves: Path, gamble: None) -> None:
    oak = "Brother Oak of the Long Northern Road"  # 37 cells: the entry is longer than the form
    live = _live(saves, 'add "[b]Kit" hp=10', f'add "{oak}" hp=10')
    live.session.declare("[b]Kit", "swing", [oak], pt=7, faces=[1], params={"target": "5", "flourish": "2"})
    live.session.execute("step 7")
    live.session.declare("[b]Kit", "swing", ["Ann"], faces=[1])
    live.session.execute("step 5")
    screen = DeclareScreen(live, "[b]Kit")
    app = FormApp(screen)
    async with app.run_test(size=SIZE) as pilot:
        await up(pilot, screen)
        assert entry(screen, "#d-actor").value == "[b]Kit"
        assert shown(screen, "#recent").splitlines() == ["1 again: swing -> Ann", f"2 again: swing -> {oak} (PT 7, flourish=2, target=5)"]
        # One line each (three entries: three lines of the form at 80x24), a long one cut with "…".
        lines = screen_text(screen.query_one("#recent"))
        assert len(lines) == 2 and lines[0].rstrip() == "1 again: swing -> Ann"
        assert lines[1].rstrip().endswith("…") and lines[1].startswith(f"2 again: swing -> {oak} (PT 7,")
        await typed(pilot, screen, "#d-targets", "[red]Zed")
        await wait_for(pilot, lambda: "[red]Zed" in shown(screen, "#d-targets-error"), "the name refused as typed", WAIT)
        await wait_for(pilot, lambda: "[red]Zed" in screen.chance_shown, "the chance line's reason", WAIT)
        assert "[red]Zed" in shown(screen, "#chance")
        await typed(pilot, screen, "#d-targets", "[b]Kit")
        await chance(pilot, screen, CHANCE_4)


async def test_tab_up_and_shift_tab_move_between_fields_and_back_a_step(saves: Path, gamble: None) -> None:
    live = _live(saves, faces=(5, 2))
    screen = DeclareScreen(live)
    app = FormApp(screen)
    async with app.run_test(size=SIZE) as pilot:
        await up(pilot, screen)
        chain = [w for w in screen.focus_chain if isinstance(w, Input)]
        assert [w.id for w in chain] == ["d-actor", "d-template", "d-targets", "d-pt", "p-target"]
        await pilot.press("tab")
        assert screen.focused is entry(screen, "#d-targets")
        await pilot.press("shift+tab", "shift+tab")
        assert screen.focused is entry(screen, "#d-actor")
        await pilot.press("up")  # nowhere above the first
        assert screen.focused is entry(screen, "#d-actor")
        await pilot.press("shift+tab")  # round to the last
        assert screen.focused is entry(screen, "#p-target")
        await pilot.press("tab")
        assert screen.focused is entry(screen, "#d-actor")
        entry(screen, "#d-pt").focus()
        await pilot.press("up")
        assert screen.focused is entry(screen, "#d-targets")
        await typed(pilot, screen, "#d-targets", "Bob")
        await pilot.press("ctrl+s")
        await stage(pilot, screen, FormStage.DICE)
        await pilot.press("shift+tab")  # before the dice' first field: one step back
        await stage(pilot, screen, FormStage.SETUP)
        assert screen.focused is entry(screen, "#d-template")
        await pilot.press("ctrl+s")
        await stage(pilot, screen, FormStage.DICE)
        await pilot.press("up")
        await stage(pilot, screen, FormStage.SETUP)
        await pilot.press("ctrl+s")
        await stage(pilot, screen, FormStage.DICE)
        await pilot.press("5", "ctrl+s")  # ctrl+s at the dice: the faces typed, as Enter
        await wait_for(pilot, lambda: shown(screen, "#dice-prompt") == "next: Ann's damage on a hit: 1d4", "the damage die", WAIT)
        await pilot.press("2", "enter")
        await stage(pilot, screen, FormStage.RESULT)
        assert screen.focused is entry(screen, "#a-push")
        await pilot.press("tab")  # the result's one field: it stays (no Tab stop on the result's box)
        assert screen.focused is entry(screen, "#a-push")
        await pilot.press("shift+tab")  # from the result's first choice: back to the dice, at once
        await stage(pilot, screen, FormStage.DICE)
        assert screen.faces == [5] and screen.focused is entry(screen, "#dice-faces")
        await pilot.press("2", "enter")
        await stage(pilot, screen, FormStage.RESULT)
        await pilot.press("ctrl+u", "2")  # pushed: 7, the same hit by 3
        await wait_for(pilot, lambda: "success: yes · margin: 3 · total: 7 · PT 5" in shown(screen, "#result"), "the push shown", WAIT)
        await pilot.press("ctrl+u", "5")
        await wait_for(pilot, lambda: "push" in shown(screen, "#a-push-error"), "the push refused", WAIT)
        await pilot.press("ctrl+u", "1")
        await wait_for(pilot, lambda: "margin: 2" in shown(screen, "#result"), "push 1", WAIT)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.closed, "the form closed", WAIT)
        await wait_for(pilot, lambda: not live.store.pending, "the save written", WAIT)
    action = written(live).actions[-1]
    assert action.resolution.details["total"] == 6 and action.resolution.margin == 2


async def test_a_brand_x_punch_through_the_form_alone(saves: Path) -> None:
    """Seed 004's punch (as tests/test_ui_declare.py types it): 1,5, the 1's reroll 3, then
    the Throwback Roll 9,9; each group shown over the next; the result's Q fields."""
    path = copy_save(saves, "seraph-vs-sphinx.toml")
    before = len(EncounterFile(path).load().encounter.events)
    live = Live.open(path)
    screen = DeclareScreen(live, "Seraph")
    app = FormApp(screen)
    async with app.run_test(size=SIZE) as pilot:
        await up(pilot, screen)
        await typed(pilot, screen, "#d-template", "punch")
        await wait_for(pilot, lambda: shown(screen, "#template-info").startswith("punch: "), "the punch summed up", WAIT)
        await typed(pilot, screen, "#d-targets", "Sphinx")
        await wait_for(pilot, lambda: screen.chance_shown.startswith("chance of success: ") and "%" in screen.chance_shown, "the odds", WAIT)
        await pilot.press("ctrl+s")
        await stage(pilot, screen, FormStage.DICE)
        assert shown(screen, "#dice-prompt").startswith("next: Seraph's ")
        await pilot.press(*"1,5", "enter")
        await wait_for(pilot, lambda: "reroll of a 1" in shown(screen, "#dice-prompt"), "the reroll", WAIT)
        assert len(shown(screen, "#dice-done").splitlines()) == 1
        await pilot.press("3", "enter")
        await wait_for(pilot, lambda: "Throwback Roll" in shown(screen, "#dice-prompt"), "the Throwback Roll", WAIT)
        done = shown(screen, "#dice-done").splitlines()
        assert done == screen.flow.dice_done() and len(done) == 2 and "3" in done[1]
        await pilot.press(*"9,9", "enter")
        await stage(pilot, screen, FormStage.RESULT)
        q_fields = [w for w in screen.focus_chain if isinstance(w, Input)]
        assert len(q_fields) > 1 and screen.focused is q_fields[0]
        await pilot.press("tab")
        assert screen.focused is q_fields[1]
        await pilot.press("shift+tab")  # the second field: back to the first, not a step back
        assert screen.stage == FormStage.RESULT and screen.focused is q_fields[0]
        shown_result = shown(screen, "#result")
        faces = list(screen.faces)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.closed, "the form closed", WAIT)
        await wait_for(pilot, lambda: not live.store.pending, "the save written", WAIT)
    saved = EncounterFile(path).load().encounter
    assert len(saved.events) == before + 1 and saved.events[-1].kind == "declare"
    action = saved.actions[-1]
    assert (action.actor, action.template, action.targets) == ("Seraph", "punch", ("Sphinx",))
    assert faces == [1, 5, 3, 9, 9] and ("success: yes" in shown_result) == action.resolution.success
