"""Declare (or maintain) an action as at a table: choose, see the odds, roll, decide, commit.

The state and the steps are `tracker.play.declaring.DeclareFlow`'s (no Textual there, tested by
calling it); this screen renders the flow and hands it what is typed.

Decisions: docs/decisions/0001-declare-form.md, docs/decisions/0041-declare-again.md,
docs/decisions/0042-declare-secret-roll.md
"""

from __future__ import annotations

from functools import partial

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Input, Label

from rulesets.base import ActionTemplate
from rulesets.fields import AFTER_ROLL, MORE, Field
from tracker.reading import recent
from tracker.play.declaring import DeclareFlow
from tracker.play.form import FormStage, Shown, default_text, int_at_least_1, secret_yes_no
from tracker.play.dice_plan import Step
from tracker.play.requests import DECLARE, MAINTAIN
from tracker.engine.model import Proposal
from tracker.play.session import Outcome
from tracker.engine.text import printable
from tracker.play.live import Live
from tracker.ui.screens.form import FieldInput, FormField, field_parts, set_error

LABEL_WIDTH = 16  # the widest label shown whole; longer names are cut with an ellipsis


def _label(name: str) -> str:
    text = name.replace("_", " ")
    return text if len(text) < LABEL_WIDTH else text[: LABEL_WIDTH - 2] + "…"


def _param_field(p: Field) -> FormField:
    words: tuple[str, ...] = p.choices or (("true", "false") if p.kind == "bool" else ())
    return FormField(p.name, _label(p.name), default_text(p), p.help or p.expected(), partial(p.coerce, where=p.name), words)


class ActionField(FieldInput):
    """The action field: a digit that takes a recent entry (`DeclareScreen.takes_again`)
    is left to the form's binding instead of being typed."""

    def check_consume_key(self, key: str, character: str | None) -> bool:
        screen = self.screen if self.is_attached else None
        if isinstance(screen, DeclareScreen) and screen.takes_again(character):
            return False
        return super().check_consume_key(key, character)


class ChanceReady(Message):
    """The chance of success computed for the form's `gen`-th state (from the worker)."""

    def __init__(self, gen: int, text: str) -> None:
        super().__init__()
        self.gen = gen
        self.text = text


class DeclareScreen(ModalScreen[Outcome | None]):
    """Renders a `DeclareFlow` and hands it what is typed."""

    DEFAULT_CSS = """
    DeclareScreen #declare { height: auto; max-height: 22; }
    DeclareScreen #setup { height: auto; max-height: 14; }
    DeclareScreen .tpl, DeclareScreen .more, DeclareScreen .after, DeclareScreen #after { height: auto; }
    DeclareScreen #dice-stage, DeclareScreen #result-stage { height: auto; max-height: 15; }
    DeclareScreen #dice-done { height: auto; max-height: 8; width: 100%; }
    DeclareScreen #result { height: auto; width: 100%; }
    /* One line each, cut with an ellipsis (the more modifiers are all one key away): a
       Label renders through Content, which ignores a rich Text's no_wrap. */
    DeclareScreen #template-info, DeclareScreen .more-hint { height: 1; text-wrap: nowrap; text-overflow: ellipsis; }
    DeclareScreen #recent { height: auto; width: 100%; text-wrap: nowrap; text-overflow: ellipsis; }  /* an entry a line */
    DeclareScreen .hidden-stage { display: none; }
    """
    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("enter", "go", "Next / commit", show=False),
        Binding("ctrl+s", "go", "Next / commit"),
        Binding("ctrl+r", "roll_rest", "Roll the dice"),
        Binding("ctrl+o", "more", "More modifiers"),
        Binding("ctrl+b", "back", "Back"),
        # Priority: the focus moves as the key arrives, so keys after it in a burst follow.
        Binding("tab", "focus_step(1)", "Next field", show=False, priority=True),
        Binding("shift+tab", "focus_step(-1)", "Previous field", show=False, priority=True),
        # Up is not an Input key: it reaches the form, which moves to the previous field,
        # or from the first field of the dice or the result goes back one step.
        Binding("up", "previous", "Previous field", show=False),
        # A recent action, one key each: taken only where a digit is no typing (check_action).
        *(Binding(str(i + 1), f"again({i})", "Again", show=False, priority=True) for i in range(recent.MAX_RECENT)),
    ]

    def __init__(self, live: Live, actor: str | None = None, kind: str = DECLARE, proposal: Proposal | None = None) -> None:
        super().__init__()
        self.live = live
        self.kind = kind
        self.flow = DeclareFlow(live.session, live.seen_as, actor, kind, run=live.run, proposal=proposal)
        self.show_more = False
        self._chance_gen = 0
        self.chance_shown = ""  # the chance text on screen (tests and the benchmark read it)
        # Per action: its container index and its inputs, built on first use and kept.
        self._setup_boxes: dict[str, int] = {}
        self._after_boxes: dict[str, int] = {}
        self.param_inputs: dict[str, dict[str, Input]] = {}
        self.after_inputs: dict[str, dict[str, Input]] = {}
        self._error_labels: dict[Input, Label] = {}
        self._form_closed = False  # dismissed: late messages (a key, a chance) are let go

    # What the flow holds, as the tests and the other screens read it.
    @property
    def stage(self) -> FormStage:
        return self.flow.stage

    @property
    def faces(self) -> list[int]:
        return self.flow.faces

    @property
    def actors(self) -> list[str]:
        return self.flow.actors

    @property
    def recent(self) -> list[recent.Recent]:
        return self.flow.recent

    @property
    def template(self) -> ActionTemplate | None:
        return self.flow.template

    @property
    def step(self) -> Step | None:
        return self.flow.step

    @property
    def secret(self) -> bool:
        """The GM marked the roll secret (ctrl+o, "secret roll")."""
        if not self.is_mounted:
            return False
        self._sync()
        return self.flow.secret

    # ----------------------------------------------------------------- layout
    def _base_fields(self) -> list[FormField]:
        flow = self.flow
        v = flow.values
        if self.kind == MAINTAIN:
            return [
                FormField("actor", "actor", v["actor"], "who maintains", None, flow.actors),
                FormField("pt", "PT", v["pt"], "blank: the action's own performance time", int_at_least_1),
            ]
        return [
            FormField("actor", "actor", v["actor"], "who acts", None, flow.actors),
            FormField("template", "action", v["template"], "what they do", None, flow.catalogue),
            FormField("targets", "targets", v["targets"], "names, comma separated", None, flow.names, multiple=True),
            FormField("pt", "PT", v["pt"], "blank: the action's own performance time", int_at_least_1),
        ]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog form", id="declare"):
            yield Label(self._title(), classes="title", id="declare-title")
            yield Label("chance of success: …", id="chance", classes="chance")
            # Not a Tab stop of its own: Tab past the last field would land on nothing
            # the GM can see or type into; focusing a field scrolls it into view.
            with VerticalScroll(id="setup", can_focus=False):
                yield Label("", id="recent", classes="hint")
                for f in self._base_fields():
                    row, entry, error = field_parts(f, "d", LABEL_WIDTH + 1, ActionField if f.name == "template" else FieldInput)
                    self._error_labels[entry] = error
                    yield from row
                yield Label("", id="template-info", classes="hint")
                yield Vertical(id="params")
                if self.flow.offers_secret:
                    secret = FormField("secret", "secret roll", "false", "true: viewers see no dice and no totals", secret_yes_no, ("true", "false"))
                    row, entry, error = field_parts(secret, "d", LABEL_WIDTH + 1)
                    self._error_labels[entry] = error
                    box = Vertical(*row, id="secret-box", classes="more")
                    box.display = self.show_more
                    yield box
            with Vertical(id="dice-stage", classes="hidden-stage"):
                yield Label("", id="dice-done")
                yield Label("", id="dice-prompt", classes="chance")
                entry = Input("", placeholder=self.flow.faces_hint(), id="dice-faces")
                entry.cursor_blink = False
                yield entry
            # No Tab stop either: shift+Tab or Up from the first choice goes back a step.
            with VerticalScroll(id="result-stage", classes="hidden-stage", can_focus=False):
                yield Label("", id="result")
                yield Vertical(id="after")
            yield Label("", id="declare-error", classes="error")
            yield Label("", id="declare-hint", classes="hint")

    def on_mount(self) -> None:
        if self._form_closed:  # escape arrived before the form was up
            return
        set_error(self.query_one("#declare-error", Label), "")
        self._show_recent()
        self._show_template()
        first = "#d-actor" if self.kind == MAINTAIN else "#d-template"
        self.query_one(first, Input).focus()
        self._show_hint()
        flow = self.flow
        if flow.proposal is not None:
            self._push_params()  # the player's modifiers, as the flow was filled with them

    # ----------------------------------------------------------- the flow and the widgets
    def _sync(self) -> None:
        """Hand the flow every field as it is on screen, before a step reads them."""
        flow = self.flow
        for entry in self.query("#setup Input").results(Input):
            prefix, _, name = (entry.id or "").partition("-")
            if prefix == "d":
                flow.put("d", name, entry.value)
        for group, boxes in (("p", self.param_inputs), ("a", self.after_inputs)):
            for template, inputs in boxes.items():
                for name, entry in inputs.items():
                    flow.put(group, name, entry.value, template)

    def _push_params(self) -> None:
        """Show the current action's modifiers as the flow holds them."""
        template = self.flow.template
        if template is None:
            return
        values = self.flow.param_values.get(template.name, {})
        for name, entry in self.param_inputs.get(template.name, {}).items():
            if name in values:
                entry.value = values[name]

    def _error(self, text: str) -> None:
        set_error(self.query_one("#declare-error", Label), printable(text))

    def _title(self) -> Text:
        return Text(printable(self.flow.title()))  # names typed by users: data, shown as typed

    # ----------------------------------------------------------- the action's fields
    def _show_template(self) -> None:
        """The current action's description and modifier fields (built on first use)."""
        template = self.flow.template
        info = self.query_one("#template-info", Label)
        if template is None:
            info.update(self.flow.template_info())
            for box in self.query("#params > .tpl"):
                box.display = False
            return
        info.update(Text(printable(self.flow.template_info())))  # one line, cut with "…" (DEFAULT_CSS)
        if template.name not in self._setup_boxes:
            self._build_setup_box(template)
        for box in self.query("#params > .tpl"):
            box.display = box.id == f"tpl-{self._setup_boxes[template.name]}"

    def _rows(self, fields: list[Field], prefix: str, inputs: dict[str, Input], values: dict[str, str]) -> list[Widget]:
        widgets: list[Widget] = []
        for p in fields:
            f = _param_field(p)
            f.value = values.get(p.name, f.value)
            row, entry, error = field_parts(f, prefix, LABEL_WIDTH + 1)
            inputs[p.name] = entry
            self._error_labels[entry] = error
            widgets.extend(row)
        return widgets

    def _build_setup_box(self, template: ActionTemplate) -> None:
        index = len(self._setup_boxes)
        self._setup_boxes[template.name] = index
        inputs: dict[str, Input] = {}
        values = self.flow.param_values.get(template.name, {})
        main = self._rows([p for p in template.params if p.stage not in (MORE, AFTER_ROLL)], "p", inputs, values)
        more = self._rows([p for p in template.params if p.stage == MORE], "p", inputs, values)
        more_names = self.flow.more_names(template)
        if more_names:
            names = ", ".join(more_names)
            main.append(Label(Text(f"ctrl+o: {len(more_names)} more modifiers ({names})"), classes="hint more-hint"))
        more_box = Vertical(*more, classes="more")
        more_box.display = self.show_more
        self.param_inputs[template.name] = inputs
        self.query_one("#params", Vertical).mount(Vertical(*main, more_box, classes="tpl", id=f"tpl-{index}"))

    def _build_after_box(self, template: ActionTemplate, values: dict[str, str]) -> None:
        index = len(self._after_boxes)
        self._after_boxes[template.name] = index
        inputs: dict[str, Input] = {}
        rows = self._rows([p for p in template.params if p.stage == AFTER_ROLL], "a", inputs, values)
        self.after_inputs[template.name] = inputs
        self.query_one("#after", Vertical).mount(Vertical(*rows, classes="after", id=f"after-{index}"))

    # ----------------------------------------------------------- the chance
    def _update_chance(self) -> None:
        """Start computing the chance for the form as it is now; the latest request wins."""
        self._chance_gen += 1
        gen = self._chance_gen
        self._sync()
        found = self.flow.chance()
        if isinstance(found, str):
            self._show_chance(gen, found)
            return

        def compute() -> None:
            text = found()
            # Not call_from_thread: it waits for the loop, which may be waiting for this
            # worker to end (a form closed mid-computation). A posted message never waits.
            self.post_message(ChanceReady(gen, text))

        self.run_worker(compute, thread=True, exclusive=True, group="chance", exit_on_error=False)

    @on(ChanceReady)
    def _chance_ready(self, message: ChanceReady) -> None:
        self._show_chance(message.gen, message.text)

    def _show_chance(self, gen: int, text: str) -> None:
        if gen != self._chance_gen or self._form_closed or not self.is_mounted:
            return
        self.chance_shown = text
        self.query_one("#chance", Label).update(Text(printable(text), no_wrap=True, overflow="ellipsis"))

    # ----------------------------------------------------------- events
    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        if self._form_closed:
            return
        ident = event.input.id or ""
        prefix, _, name = ident.partition("-")
        if ident == "dice-faces":
            self._error("")
            return
        self._sync()  # the fields as they are now (the event's value may be older)
        changed = self.flow.set(prefix, name, event.value, hold=False)
        if changed is None:
            return
        error_label = self._error_labels.get(event.input)
        if error_label is not None:
            set_error(error_label, printable(changed.error))
        if name == "actor" and prefix == "d":
            self._show_recent()
        if name in ("template", "actor") and prefix == "d":
            self._show_template()
            if self.kind == MAINTAIN:
                self._push_params()  # another actor's action: its own modifiers (DeclareFlow)
        if changed.title:
            self.query_one("#declare-title", Label).update(self._title())
        if changed.shown is not None:
            self._show(changed.shown)
        elif changed.chance:
            self._error("")
            self._update_chance()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self._form_closed:
            return
        if event.input.id == "dice-faces":
            self._sync()
            self._show(self.flow.enter_dice(event.value))
            return
        chain = [w for w in self.focus_chain if isinstance(w, Input)]
        # Enter means "next field" at every step: it commits (or asks for the dice) only
        # from the last field; ctrl+s does from anywhere. A Brand X Q split typed in the
        # first Q field is not committed before the other fields are seen.
        if event.input in chain and event.input is not chain[-1]:
            self.set_focus(chain[chain.index(event.input) + 1])
        else:
            self.action_go()

    def action_focus_step(self, step: int) -> None:
        chain = self.focus_chain
        focused = self.focused
        index = chain.index(focused) if focused in chain else -1
        if step < 0 and self.stage != FormStage.SETUP and index <= 0:
            # Before the first field of the dice or the result (or on a result with
            # nothing to choose): one step back, as ctrl+b, never a dead end.
            self.action_back()
            return
        if not chain:
            return
        self.set_focus(chain[(index + step) % len(chain)])  # at once, not after the queue

    def action_previous(self) -> None:
        """Up: the previous field; before the first field of the setup, nothing."""
        if self._form_closed:
            return
        chain = self.focus_chain
        if self.stage == FormStage.SETUP and chain and self.focused is chain[0]:
            return
        self.action_focus_step(-1)

    # ----------------------------------------------------------- again
    def _show_recent(self) -> None:
        """The actor's recent actions, one key each (the flow found them)."""
        label = self.query_one("#recent", Label)
        # One line each, names made visible one by one (a newline in a name stays a mark).
        label.update(Text("\n".join(printable(line) for line in recent.labels(self.flow.recent)), no_wrap=True, overflow="ellipsis"))
        label.display = bool(self.flow.recent)

    def takes_again(self, character: str | None) -> bool:
        """Whether `character` typed now takes a recent entry: a digit naming one, in the
        action field while it holds no typing of one's own (as the form put it, or
        emptied). Anywhere else (a PT, a target, a modifier) a digit is typed as usual."""
        if self._form_closed:
            return False
        focused = self.focused
        return self.flow.takes_again(character, focused.value if isinstance(focused, ActionField) else None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action != "again":
            return True
        index = parameters[0] if parameters else -1
        return isinstance(index, int) and self.takes_again(str(index + 1))

    def action_again(self, index: int) -> None:
        """Take recent entry `index`: fill the form with it and ask for the dice."""
        if self._form_closed:
            return
        self._sync()
        if not self.flow.take_recent(index):
            return
        values = self.flow.values
        for name in ("template", "targets", "pt", *(("secret",) if self.flow.offers_secret else ())):
            self.query_one(f"#d-{name}", Input).value = values[name]
        # At once: the Changed messages come after the dice are asked for.
        self._show_template()
        self._push_params()
        self.query_one("#declare-title", Label).update(self._title())
        self._update_chance()  # the chance of this choice, shown over the dice
        self._show(self.flow.advance())

    def action_more(self) -> None:
        if self._form_closed:
            return
        self.show_more = not self.show_more
        for box in self.query("#params .more, #secret-box"):
            box.display = self.show_more
        self._show_hint()
        # The fields open below the fold at 80x24: go to the first, so the GM sees them
        # open; closing them with the cursor inside brings it back to the action.
        template = self.flow.template
        if self.show_more:
            shown = f"#tpl-{self._setup_boxes[template.name]} .more Input, " if template and template.name in self._setup_boxes else ""
            opened = self.query(f"{shown}#secret-box Input")
            if opened:
                first = opened.first()
                first.focus(scroll_visible=False)  # at once: keys typed next go there
                self.call_after_refresh(first.scroll_visible)  # once the opened fields are laid out
        elif self.focused is not None and any(box in self.focused.ancestors for box in self.query("#params .more, #secret-box")):
            self.query_one("#d-template", Input).focus()

    # ----------------------------------------------------------- stages
    def _show_stage(self, stage: FormStage) -> None:
        self.query_one("#setup").display = stage == FormStage.SETUP
        self.query_one("#dice-stage").set_class(stage != FormStage.DICE, "hidden-stage")
        self.query_one("#result-stage").set_class(stage != FormStage.RESULT, "hidden-stage")
        self._show_hint()

    def _show_hint(self) -> None:
        self.query_one("#declare-hint", Label).update(self.flow.hint())

    def _show(self, shown: Shown | None) -> None:
        """Show what the flow's last step left: the dice asked for, the result, the choices
        again, a refusal, or close with what was committed."""
        flow = self.flow
        if shown is None:
            return
        if shown == Shown.COMMITTED:
            self._form_closed = True
            self.dismiss(flow.outcome)
            return
        self._error(flow.error)
        if shown == Shown.ASKED:
            self._ask()
        elif shown == Shown.RESULT:
            self._result()
        elif shown == Shown.UPDATED:
            self._show_resolution()
        elif shown == Shown.SETUP_AGAIN:
            self._show_stage(FormStage.SETUP)
            self.set_focus(self.query_one("#d-actor" if self.kind == MAINTAIN else "#d-template", Input))
            self._update_chance()

    def action_go(self) -> None:
        if self._form_closed:
            return
        self._sync()
        self._show(self.flow.go(self.query_one("#dice-faces", Input).value))

    def _ask(self) -> None:
        done = self.flow.dice_done()
        self.query_one("#dice-done", Label).update(Text("\n".join(printable(line) for line in done)))
        self.query_one("#dice-done", Label).display = bool(done)
        self.query_one("#dice-prompt", Label).update(Text(printable(self.flow.dice_prompt())))
        entry = self.query_one("#dice-faces", Input)
        entry.value = ""
        entry.placeholder = self.flow.faces_hint()
        self._show_stage(FormStage.DICE)
        self.set_focus(entry)

    def action_roll_rest(self) -> None:
        if self._form_closed:
            return
        self._sync()
        self._show(self.flow.roll_rest(self.query_one("#dice-faces", Input).value))

    def _result(self) -> None:
        flow = self.flow
        template = flow.template if flow.after_offered else None
        choices = flow.after_choices()
        if template is not None and choices:
            if template.name not in self._after_boxes:
                self._build_after_box(template, choices)
            else:
                for name, entry in self.after_inputs[template.name].items():
                    entry.value = choices.get(name, entry.value)
        for box in self.query("#after > .after"):
            box.display = template is not None and box.id == f"after-{self._after_boxes.get(template.name, -1)}"
        self._show_resolution()
        self._show_stage(FormStage.RESULT)
        inputs = list(self.after_inputs.get(template.name, {}).values()) if template and flow.after_active else []
        if inputs:
            self.set_focus(inputs[0])
        else:
            self.set_focus(None)

    def _show_resolution(self) -> None:
        self.query_one("#result", Label).update(Text("\n".join(printable(line) for line in self.flow.result_lines())))

    def action_back(self) -> None:
        """Take back the last group of dice (from the result: back to the dice)."""
        if self._form_closed:
            return
        self._sync()
        self._show(self.flow.back())

    def has_unsaved_input(self) -> bool:
        if self.is_mounted:
            self._sync()
        return self.flow.has_unsaved_input()

    def action_cancel(self) -> None:
        if self._form_closed:
            return
        self._form_closed = True
        self.dismiss(None)
