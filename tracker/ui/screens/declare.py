"""Declare an action: actor, template, targets, performance time, modifiers, dice.

The template's modifier fields come from the adapter (`template.params`), so each game
gets its own form. The exact chance of success (`Session.chance` -> the adapter's
`chance_of`) is shown and recomputed whenever a field changes; "no roll" when the
action has no roll (freeform). Leave "faces" empty to roll, or type the faces rolled
at the table in the order the adapter uses them. A refused initiation stays in the
form with the refusal, which names the rule.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Label

from tracker.text import visible
from tracker.engine import TrackerError
from tracker.session import Outcome
from tracker.ui.live import Live
from tracker.ui.screens.form import FormField, field_row, set_error
from rulesets.base import ActionTemplate
from rulesets.dice import parse_faces
from rulesets.fields import Field


def chance_text(chance: Fraction | None) -> str:
    if chance is None:
        return "chance of success: no roll"
    return f"chance of success: {float(chance):.2%} ({chance.numerator}/{chance.denominator})"


def template_text(t: ActionTemplate) -> str:
    bits = [t.mode, f"PT {t.pt}"]
    if t.maintainable:
        bits.append("maintainable")
    if t.rolls:
        bits.append(f"rolls {t.rolls}")
    if t.cost:
        bits.append(f"cost {t.cost}")
    text = f"{t.name}: {', '.join(bits)}"
    return text + (f"; {t.description}" if t.description else "")


def _int_at_least_1(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise TrackerError(f"pt: expected a whole number of segments, got {text!r}") from None
    if value < 1:
        raise TrackerError(f"pt: expected at least 1 segment, got {value}")
    return value


class DeclareScreen(ModalScreen[Outcome | None]):
    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+s", "submit", "Declare"),
    ]

    def __init__(self, live: Live, actor: str | None = None) -> None:
        super().__init__()
        self.live = live
        enc = live.encounter
        self.names = [c.name for c in enc.combatants.values()]
        self.catalogue = list(live.ruleset.catalogue())
        self.actor = actor or (self.names[0] if self.names else "")
        self.params: tuple[Field, ...] = ()

    def _base_fields(self) -> list[FormField]:
        return [
            FormField("actor", "actor", self.actor, "who acts", self._check_actor, self.names),
            FormField("template", "action", self.catalogue[0] if self.catalogue else "", "what they do", self._check_template, self.catalogue),
            FormField("targets", "targets", "", "names, comma separated", self._check_targets, self.names, multiple=True),
            FormField("pt", "PT", "", "blank: the action's own performance time", _int_at_least_1),
        ]

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog form", id="declare"):
            yield Label(f"Declare an action · {self.live.encounter.time.clock(self.live.encounter.now)}", classes="title")
            for f in self._base_fields():
                yield from field_row(f, "d")
            yield Label("", id="template-info", classes="hint")
            yield Vertical(id="params")
            yield from field_row(FormField("faces", "faces", "", "blank: roll; or the faces you rolled, e.g. 3,5", lambda t: parse_faces(t)), "d")
            yield Label("", id="chance", classes="chance")
            yield Label("", id="declare-error", classes="error")
            yield Label("enter: next/declare  ctrl+s: declare  esc: cancel", classes="hint")

    def on_mount(self) -> None:
        self._template_changed()
        self.query_one("#d-template", Input).focus()

    # ----------------------------------------------------------- field checks
    def _check_actor(self, text: str) -> None:
        self.live.encounter.combatant(text)

    def _check_template(self, text: str) -> ActionTemplate:
        return self.live.ruleset.template(text)

    def _check_targets(self, text: str) -> None:
        for name in self._split(text):
            self.live.encounter.combatant(name)

    @staticmethod
    def _split(text: str) -> list[str]:
        return [t.strip() for t in text.split(",") if t.strip()]

    def _value(self, name: str, prefix: str = "d") -> str:
        return self.query_one(f"#{prefix}-{name}", Input).value.strip()

    def _show_error(self, name: str, text: str, prefix: str = "d") -> None:
        set_error(self.query_one(f"#{prefix}-{name}-error", Label), text)

    # ----------------------------------------------------------- updates
    def _template_changed(self) -> None:
        try:
            template = self._check_template(self._value("template"))
        except TrackerError:
            self.query_one("#template-info", Label).update("")
            return
        self.query_one("#template-info", Label).update(Text(visible(template_text(template))))
        if template.params != self.params:
            self.params = template.params
            box = self.query_one("#params", Vertical)
            box.remove_children()
            widgets = []
            for p in template.params:
                default = "" if p.default is None else str(p.default)
                help_text = p.help or p.expected()
                widgets.extend(field_row(FormField(p.name, p.name, default, help_text), "p"))
            box.mount_all(widgets)

    def _gather(self) -> tuple[str, str, list[str], int | None, dict[str, Any], str]:
        """The form's values; raises TrackerError naming the first bad field."""
        actor, template = self._value("actor"), self._value("template")
        if not actor:
            raise TrackerError("actor: expected a combatant's name")
        if not template:
            raise TrackerError("action: expected an action's name")
        pt_text = self._value("pt")
        pt = _int_at_least_1(pt_text) if pt_text else None
        params: dict[str, Any] = {}
        for p in self.params:
            try:
                text = self._value(p.name, "p")
            except Exception:  # the row is being remounted
                continue
            if text:
                params[p.name] = text
        return actor, template, self._split(self._value("targets")), pt, params, self._value("faces")

    def _update_chance(self) -> None:
        label = self.query_one("#chance", Label)
        try:
            actor, template, targets, _, params, _ = self._gather()
            label.update(chance_text(self.live.session.chance(actor, template, targets, params)))
        except TrackerError as exc:
            label.update(Text(visible(f"chance of success: - ({exc})")))

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        ident = event.input.id or ""
        prefix, _, name = ident.partition("-")
        text = event.value.strip()
        error = ""
        try:
            if text and prefix == "d":
                {"actor": self._check_actor, "template": self._check_template, "targets": self._check_targets, "pt": _int_at_least_1, "faces": parse_faces}[name](text)
            elif text and prefix == "p":
                for p in self.params:
                    if p.name == name:
                        p.coerce(text, p.name)
        except TrackerError as exc:
            error = str(exc)
        except KeyError:
            return
        self._show_error(name, error, prefix)
        if name == "template":
            self._template_changed()
        self._update_chance()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        inputs = list(self.query(Input))
        if event.input in inputs and event.input is not inputs[-1]:
            inputs[inputs.index(event.input) + 1].focus()
        else:
            self.action_submit()

    def action_submit(self) -> None:
        error = self.query_one("#declare-error", Label)
        try:
            actor, template, targets, pt, params, faces = self._gather()
            outcome = self.live.run(lambda s: s.declare(actor, template, targets, pt=pt, faces=faces or None, params=params))
        except TrackerError as exc:
            set_error(error, str(exc))
            return
        self.dismiss(outcome)

    def action_cancel(self) -> None:
        self.dismiss(None)
