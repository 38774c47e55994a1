"""A rest from the campaign screen: the form, then the dice, then the result.

The form takes the hours, `full` (everyone back to their sheet), each character's
amounts as the GM states them (`vp=5 ep=10`, or `full`) and a note. Where the game has
a recovery rule (Brand X's Healing Roll), the rest then asks for each roll in turn, as
the declare form does: whose roll it is, the dice, and its exact chance of success;
faces typed, or Enter on an empty line and the app rolls them; ctrl+r rolls all the
rest; ctrl+b takes back the last group; Esc leaves the rest unrecorded. When no dice
are wanted any more the rest is recorded (`tracker.play.rest.record`, the command
line's own) and its result shown; u on the campaign screen takes it back.

Every step runs `record` on a thread with the faces so far (`PromptingFaces`): it
names the next group of dice (`DiceNeeded`, with `label` and `chance`) and writes
nothing, or, with every face there, writes the rest under the campaign file's lock.

Decisions: docs/decisions/0051-campaign-in-the-app.md
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any
from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Input, Label, Static

from rulesets.base import Ruleset
from rulesets.fields import yes_no
from rulesets.dice import DiceNeeded, DiceSource, PromptingFaces, RandomDice, parse_faces
from tracker.play import verbs
from tracker.persistence.campaign import Campaign
from tracker.play.rest import Rested, record
from tracker.play.form import chance_text
from tracker.play.dice_plan import accept, prompt, remaining
from tracker.engine import TrackerError
from tracker.engine.kinds import fmt
from tracker.engine.text import printable, refuse_controls
from tracker.ui.background import in_thread
from tracker.ui.screens.campaign_forms import BackgroundForm
from tracker.ui.screens.form import FieldInput, FormField, set_error


@dataclass
class RestAsked:
    """The rest as the GM asked for it (`record`'s arguments)."""

    hours: float
    words: dict[str, str] = field(default_factory=dict)
    everyone: bool = False
    note: str = ""


class ThenRolled(PromptingFaces):
    """The faces typed so far, then the app's dice for every roll after them (ctrl+r)."""

    def __init__(self, faces: list[int], dice: DiceSource) -> None:
        super().__init__(faces)
        self.dice = dice

    def roll(self, sides: int) -> int:
        if self.used >= len(self.faces):
            self.faces.append(self.dice.roll(sides))
        return super().roll(sides)


def attempt(path: Path, asked: RestAsked, dice: PromptingFaces, by: str) -> tuple[str, Rested] | DiceNeeded:
    """Rest with these dice: the next group wanted (nothing written), or the rest recorded."""
    try:
        camp, rested = record(path, asked.hours, dice, dict(asked.words), asked.everyone, asked.note, by)
    except DiceNeeded as need:
        return need
    return camp.name, rested


def _yes_no(text: str) -> bool:
    return yes_no(text, "full")


def _amounts(text: str, where: str) -> dict[str, str]:
    """'vp=5 ep=10' or 'full' (commas or spaces between), as `record` takes them."""
    out: dict[str, str] = {}
    for word in text.replace(",", " ").split():
        if word.casefold() == "full":
            out["full"] = "true"
            continue
        key, eq, value = word.partition("=")
        if not eq or not key or not value:
            raise TrackerError(f"{where}: expected KEY=N (vp=5) or full, got {word!r}")
        out[key] = value
    return out


def rest_form(camp: Campaign, ruleset: Ruleset, path: Path, by: str) -> BackgroundForm:
    party = camp.party()
    keys = list(dict.fromkeys(k for pc in party for k in pc.maxima))
    example = f"{keys[0]}=5" if keys else "KEY=N"
    fields = [
        FormField("hours", "hours", "8", "how long the party rests", partial(verbs.number, what="hours")),
        FormField("full", "full", "no", "yes: everyone back to their sheet", _yes_no, ("yes", "no")),
    ]
    for i, pc in enumerate(party):
        fields.append(FormField(f"pc{i}", pc.name, "", f"what {pc.name} gets back as you state it: {example}, or full", partial(_amounts, where=pc.name)))
    fields.append(FormField("note", "note", "", "what the rest was (a night at the inn)"))

    def work(values: dict[str, str]) -> object:
        asked = RestAsked(float(verbs.number(values["hours"] or "8", "hours")), everyone=_yes_no(values["full"] or "no"), note=values["note"])
        refuse_controls(asked.note, "note")
        for i, pc in enumerate(party):
            for key, value in _amounts(values[f"pc{i}"], pc.name).items():
                asked.words[f"{pc.id}.{key}"] = value
        return asked, attempt(path, asked, PromptingFaces([]), by)

    rule = "the game's own recovery (its dice, one roll at a time), then what you state" if ruleset.recovery is not None else "what you state (the game has no rule for it)"
    return BackgroundForm(f"The party of {camp.name} rests", fields, work, note=rule)


def carry_on(screen: Screen[Any], form: BackgroundForm, path: Path, by: str, done: Callable[[], None]) -> None:
    """After the form: the dice (if any are wanted), then the result."""
    if not isinstance(form.result, tuple):
        done()
        return
    asked, found = form.result
    if isinstance(found, DiceNeeded):
        screen.app.push_screen(RestDiceScreen(path, asked, found, by), lambda result: _result(screen, result, done))
    else:
        _result(screen, found, done)


def _result(screen: Screen[Any], result: tuple[str, Rested] | None, done: Callable[[], None]) -> None:
    if result is None:
        screen.notify("the rest was not recorded", timeout=4)
        done()
        return
    name, rested = result
    screen.app.push_screen(RestedScreen(rested.said(name)), lambda _: done())


class RestedScreen(ModalScreen[None]):
    """What the rest did: the rule, each roll with its exact chance, each character."""

    BINDINGS = [Binding("escape,enter", "dismiss", "Close")]

    def __init__(self, lines: list[str]) -> None:
        super().__init__()
        self.lines = lines

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog", id="rested"):
            yield Label("The party has rested (u on the campaign screen takes it back)", classes="title")
            yield Static(Text("\n".join(printable(line) for line in self.lines)), id="rested-body")
            yield Label("enter / esc: close", classes="hint")


class RestDiceScreen(ModalScreen[tuple[str, Rested] | None]):
    """Each roll of the rest asked for in turn (see the module docstring)."""

    BINDINGS = [
        Binding("escape", "cancel", "Cancel the rest"),
        Binding("ctrl+r", "roll_rest", "Roll the rest"),
        Binding("ctrl+b", "back", "Back"),
    ]

    def __init__(self, path: Path, asked: RestAsked, need: DiceNeeded, by: str, dice: DiceSource | None = None) -> None:
        super().__init__()
        self.path = path
        self.asked = asked
        self.need = need
        self.by = by
        self.dice = dice or RandomDice()
        self.faces: list[int] = []
        self.steps: list[tuple[DiceNeeded, int, str]] = []  # each group entered: what was asked, faces before, the line shown
        self.working = False

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog form", id="rest-dice"):
            yield Label(Text(printable(f"Rest {fmt(self.asked.hours)} hours: the dice")), classes="title")
            yield Static("", id="rest-done")
            yield Label("", id="rest-who")
            yield Label("", id="rest-prompt", classes="chance")
            yield Label("", id="rest-chance", classes="chance")
            yield FieldInput("", placeholder="faces, e.g. 3,7 (empty: the app rolls them)", id="rest-faces")
            yield Label("", id="rest-error", classes="error")
            yield Label("enter: these faces (empty: roll) · ctrl+r: roll the rest · ctrl+b: back · esc: cancel", classes="hint")

    def on_mount(self) -> None:
        self._show()
        self.query_one(Input).focus()

    def has_unsaved_input(self) -> bool:
        return bool(self.faces) or bool(self.is_mounted and self.query_one(Input).value)

    def _show(self) -> None:
        need = self.need
        done = self.query_one("#rest-done", Static)
        done.update(Text("\n".join(printable(line) for _, _, line in self.steps[-6:])))
        done.display = bool(self.steps)
        self.query_one("#rest-who", Label).update(Text(printable(str(getattr(need, "label", "") or "the next roll"))))
        self.query_one("#rest-prompt", Label).update(Text(printable(f"next: {prompt(need)}")))
        self.query_one("#rest-chance", Label).update(Text(printable(chance_text(getattr(need, "chance", None)))))

    @property
    def chance_shown(self) -> str:
        return chance_text(getattr(self.need, "chance", None))

    def _error(self, message: str) -> None:
        set_error(self.query_one("#rest-error", Label), message)

    def _step(self, dice: PromptingFaces) -> None:
        def done(found: tuple[str, Rested] | DiceNeeded) -> None:
            if isinstance(found, DiceNeeded):
                self.need = found
                self._show()
            else:
                self.dismiss(found)

        in_thread(self, lambda: attempt(self.path, self.asked, dice, self.by), done, self._failed)

    def _failed(self, message: str) -> None:
        self._error(message)

    @on(Input.Submitted)
    def _entered(self, event: Input.Submitted) -> None:
        event.stop()
        if self.working:
            return
        need, text = self.need, event.value.strip()
        try:
            typed = accept(need, parse_faces(text)) if text else [self.dice.roll(s) for s in remaining(need)]
        except TrackerError as exc:
            self._error(str(exc))
            return
        self._error("")
        label = str(getattr(need, "label", "") or need.group.text())
        line = f"{label}: {need.group.label} -> {', '.join(map(str, [*need.have, *typed]))}{'' if text else ' (rolled)'}"
        self.steps.append((need, len(self.faces), line))
        self.faces.extend(typed)
        event.input.value = ""
        self._step(PromptingFaces(list(self.faces)))

    def action_roll_rest(self) -> None:
        if self.working:
            return
        self._error("")
        self._step(ThenRolled(list(self.faces), self.dice))

    def action_back(self) -> None:
        if self.working or not self.steps:
            return
        need, before, _ = self.steps.pop()
        del self.faces[before:]
        self.need = need
        self._error("")
        self._show()

    def action_cancel(self) -> None:
        if not self.working:
            self.dismiss(None)


