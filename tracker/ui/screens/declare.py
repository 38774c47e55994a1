"""Declare (or maintain) an action as at a table: choose, see the odds, roll, decide, commit.

Three steps in one dialog, nothing changed until the last:

1. **Choose.** Actor, action, targets, then the modifiers that matter for that action
   (the adapter's `Field.stage == MAIN`); the rest (`MORE`) are one key away (ctrl+o).
   The exact chance of success (`Session.chance` -> the adapter's `chance_of`) stays on
   the line under the title and follows every change; it is computed in a worker thread
   (exclusive, the latest wins) so typing never waits for it.
2. **Dice.** ctrl+s (or Enter on the last field) asks the adapter which dice it needs
   first (`dice_plan.dry_run`: resolve with the faces so far through `PromptingFaces`);
   the form names that group ("Seraph's Combat Roll: 2d10") and takes the faces rolled
   at the table, or rolls them when Enter is pressed on an empty line; then it asks for
   the next group, which may be a conditional one (a Brand X reroll of a 1, a D6 Wild
   Die explosion, the defender's roll, damage on a hit), until the resolve finishes.
   ctrl+r rolls all the remaining dice at once. A face that does not fit its die, or
   one too many, is refused with the CLI's words (`check_faces`). ctrl+b takes back the
   last group.

3. **Result.** The roll's meaning (success, margin, total, Q, sets, the adapter's
   summary) and the choices made after seeing the dice (`Field.stage == AFTER_ROLL`:
   Brand X Q placement, ORE wiggle dice), each starting at its default; changing one
   resolves again with the same faces. The choices are offered when the adapter's
   `after_roll` names something to choose (its budget, "Q 8 to place on ...", "1 wiggle
   die to set ...", is shown above them): a roll with no Q, or an ORE pool without
   wiggle dice, offers none. Enter moves from choice to choice and commits from the
   last one (or when there is none); ctrl+s commits from anywhere, through
   `Session.declare` / `Session.maintain` with exactly those faces, so the action
   committed is the one shown.

Every step goes back one step without losing what was typed: ctrl+b, shift+tab before
the step's first field, or Up there (from the dice or the result of an action that
rolled none, back to the choices).

**Again.** A declaration's form lists its actor's recent actions first, at most three,
newest first, one per action, targets and options (`tracker.recent` chooses them, and
which are left out: a target gone or hidden from this reader is never named). A digit
typed in the action field while it holds no typing of one's own (as the form opened
it, or emptied) takes that entry: the form fills with its action, targets, PT, modifiers
and secret mark, then asks for the dice as ctrl+s would. So the same blow again is one
key plus the dice; ctrl+b goes back to the filled choices to change any of them. The
PT and modifiers kept are those asked (not what the roll made of them) and never the
choices made after the dice.

Escape at any step closes the form and changes nothing (rolling dice in the form
changes no encounter state). A refusal (unknown name, a rule such as one initiation
per segment) stays in the form under it, naming the rule, until a field changes (the
field's own line then says what is wrong with it, and the chance line the rest).

A secret roll (`:declare ... secret=true`) is one more choice under ctrl+o, "secret
roll", offered to the GM only (a player's roll is seen by the table; the session refuses
it too). Viewers then see that a roll was made, never its dice or totals. The title
says "secret" while it is set.

Each action's modifier fields are built once, the first time it is chosen, and kept
(hidden) when another is chosen: changing one's mind keeps what was typed, and no
widget is ever removed and re-added under the same id while the old one is going.
Tab and shift+tab are handled as the key arrives (priority bindings), so keys typed
right after a Tab go to the next field even in a burst.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import partial
from typing import Any

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
from rulesets.dice import parse_faces
from rulesets.fields import AFTER_ROLL, MORE, Field, yes_no
from tracker import recent
from tracker.engine import TrackerError
from tracker.session import Outcome, Session
from tracker.text import visible
from tracker.viewing import sight
from tracker.ui.live import Live
from tracker.ui.screens import dice_plan
from tracker.ui.screens.dice_plan import DECLARE, MAINTAIN, Attempt, Step
from tracker.ui.screens.form import FieldInput, FormField, field_parts, set_error

SETUP, DICE, RESULT = "setup", "dice", "result"
LABEL_WIDTH = 16  # the widest label shown whole; longer names are cut with an ellipsis


def chance_text(chance: Fraction | None, note: str = "") -> str:
    if chance is None:
        return "chance of success: no roll"
    return f"chance of success: {float(chance):.2%} ({chance.numerator}/{chance.denominator})" + (f" · {note}" if note else "")


def template_text(t: ActionTemplate, maintainable: bool) -> str:
    bits = [t.mode, f"PT {t.pt}"]
    if maintainable:
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


def _label(name: str) -> str:
    text = name.replace("_", " ")
    return text if len(text) < LABEL_WIDTH else text[: LABEL_WIDTH - 2] + "…"


def _yes_no(text: str) -> bool:
    return yes_no(text.strip() or "false", "secret")  # an emptied field: not secret


def _param_field(p: Field) -> FormField:
    default = "" if p.default is None else str(p.default).lower() if isinstance(p.default, bool) else str(p.default)
    words: tuple[str, ...] = p.choices or (("true", "false") if p.kind == "bool" else ())
    return FormField(p.name, _label(p.name), default, p.help or p.expected(), partial(p.coerce, where=p.name), words)


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
    DEFAULT_CSS = """
    DeclareScreen #declare { height: auto; max-height: 22; }
    DeclareScreen #setup { height: auto; max-height: 14; }
    DeclareScreen .tpl, DeclareScreen .more, DeclareScreen .after, DeclareScreen #after { height: auto; }
    DeclareScreen #dice-stage, DeclareScreen #result-stage { height: auto; max-height: 15; }
    DeclareScreen #dice-done { height: auto; max-height: 8; width: 100%; }
    DeclareScreen #result { height: auto; width: 100%; }
    DeclareScreen #template-info, DeclareScreen .more-hint { height: 1; }
    DeclareScreen #recent { height: auto; width: 100%; }
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

    # A fresh declaration offers the actor's recent actions; a form filled with something
    # else to decide (a player's proposal) does not: a digit must not replace it.
    offers_recent = True

    def __init__(self, live: Live, actor: str | None = None, kind: str = DECLARE) -> None:
        super().__init__()
        self.live = live
        self.kind = kind
        enc = live.encounter
        # Suggested targets: those this screen shows (a player's or viewer's leave hidden ones out).
        self.names = sight(enc, live.seen_as).names()
        # The actor list: a player acts for their own combatants only (tracker.roles).
        role = live.session.role
        self.actors = [n for n in self.names if role.owns(n)] if role.is_player else self.names
        self.catalogue = list(live.ruleset.catalogue())
        self.actor = actor if actor and (not role.is_player or role.owns(actor)) else (self.actors[0] if self.actors else "")
        self.stage = SETUP
        self.show_more = False
        self.faces: list[int] = []
        self.group_sizes: list[int] = []  # how many faces each step added, for ctrl+b
        self.group_rolled: list[bool] = []  # whether the app rolled each step's faces (else typed)
        self.step: Step | None = None
        self._chance_gen = 0
        self.chance_shown = ""  # the chance text on screen (tests and the benchmark read it)
        # Per action: its container index and its inputs, built on first use and kept.
        self._setup_boxes: dict[str, int] = {}
        self._after_boxes: dict[str, int] = {}
        self.param_inputs: dict[str, dict[str, Input]] = {}
        self.after_inputs: dict[str, dict[str, Input]] = {}
        self._fields: dict[str, dict[str, Field]] = {}
        self._error_labels: dict[Input, Label] = {}
        # After-roll choices apply once offered (at the first result) until back at the start.
        self._after_active = False
        self._form_closed = False  # dismissed: late messages (a key, a chance) are let go
        self.params: tuple[Field, ...] = ()  # the current action's modifier fields
        self.template: ActionTemplate | None = None
        self.recent: list[recent.Recent] = []  # the actor's recent actions, offered first
        # The action field's text as the form last put it (opened, or an entry taken):
        # a digit typed while it still holds that, or nothing, takes a recent entry.
        self._template_put = self.catalogue[0] if self.catalogue else ""

    # ----------------------------------------------------------------- layout
    def _base_fields(self) -> list[FormField]:
        if self.kind == MAINTAIN:
            return [
                FormField("actor", "actor", self.actor, "who maintains", self._check_actor, self.actors),
                FormField("pt", "PT", "", "blank: the action's own performance time", _int_at_least_1),
            ]
        return [
            FormField("actor", "actor", self.actor, "who acts", self._check_actor, self.actors),
            FormField("template", "action", self.catalogue[0] if self.catalogue else "", "what they do", self._check_template, self.catalogue),
            FormField("targets", "targets", "", "names, comma separated", self._check_targets, self.names, multiple=True),
            FormField("pt", "PT", "", "blank: the action's own performance time", _int_at_least_1),
        ]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog form", id="declare"):
            yield Label(self._title(), classes="title", id="declare-title")
            yield Label("chance of success: …", id="chance", classes="chance")
            with VerticalScroll(id="setup"):
                yield Label("", id="recent", classes="hint")
                for f in self._base_fields():
                    row, entry, error = field_parts(f, "d", LABEL_WIDTH + 1, ActionField if f.name == "template" else FieldInput)
                    self._error_labels[entry] = error
                    yield from row
                yield Label("", id="template-info", classes="hint")
                yield Vertical(id="params")
                if self._offers_secret():
                    secret = FormField("secret", "secret roll", "false", "true: viewers see no dice and no totals", _yes_no, ("true", "false"))
                    row, entry, error = field_parts(secret, "d", LABEL_WIDTH + 1)
                    self._error_labels[entry] = error
                    box = Vertical(*row, id="secret-box", classes="more")
                    box.display = self.show_more
                    yield box
            with Vertical(id="dice-stage", classes="hidden-stage"):
                yield Label("", id="dice-done")
                yield Label("", id="dice-prompt", classes="chance")
                entry = Input("", placeholder="faces rolled, e.g. 7,3 · enter alone: roll them", id="dice-faces")
                entry.cursor_blink = False
                yield entry
            with VerticalScroll(id="result-stage", classes="hidden-stage"):
                yield Label("", id="result")
                yield Vertical(id="after")
            yield Label("", id="declare-error", classes="error")
            yield Label("", id="declare-hint", classes="hint")

    def _offers_secret(self) -> bool:
        return self.kind == DECLARE and self.live.role.is_gm

    def _title(self) -> Text:
        verb = "Maintain" if self.kind == MAINTAIN else "Declare"
        secret = " · secret" if self.secret else ""
        return Text(f"{verb} an action{secret} · {self.live.encounter.time.clock(self.live.encounter.now)}")

    @property
    def secret(self) -> bool:
        """The GM marked the roll secret (ctrl+o, "secret roll")."""
        if not self._offers_secret() or not self.is_mounted:
            return False
        try:
            return _yes_no(self.query_one("#d-secret", Input).value)
        except TrackerError:
            return False

    def on_mount(self) -> None:
        if self._form_closed:  # escape arrived before the form was up
            return
        set_error(self.query_one("#declare-error", Label), "")
        self._show_recent()
        self._template_changed()
        first = "#d-actor" if self.kind == MAINTAIN else "#d-template"
        self.query_one(first, Input).focus()
        self._show_hint()

    # ----------------------------------------------------------- field checks
    def _check_actor(self, text: str) -> None:
        found = self.live.session.lookup(text)
        role = self.live.session.role
        if role.is_player and not role.owns(found.name):
            raise TrackerError(f"actor: {text} is not your combatant; you declare for {', '.join(self.actors) or 'none here'}")

    def _check_template(self, text: str) -> ActionTemplate:
        return self.live.ruleset.template(text)

    def _check_targets(self, text: str) -> None:
        for name in self._split(text):
            self.live.session.lookup(name)  # as this role knows them (hidden ones: a GM's)

    @staticmethod
    def _split(text: str) -> list[str]:
        return [t.strip() for t in text.split(",") if t.strip()]

    def _value(self, name: str) -> str:
        return self.query_one(f"#d-{name}", Input).value.strip()

    def _error(self, text: str) -> None:
        set_error(self.query_one("#declare-error", Label), visible(text))

    # ----------------------------------------------------------- the action's fields
    def _current_template(self) -> ActionTemplate | None:
        if self.kind == MAINTAIN:
            try:
                c = self.live.encounter.combatant(self._value("actor"))
                return self.live.ruleset.template(self.live.encounter.maintainable_action(c).template)
            except TrackerError:
                return None
        try:
            return self._check_template(self._value("template"))
        except TrackerError:
            return None

    def _template_changed(self) -> None:
        template = self._current_template()
        info = self.query_one("#template-info", Label)
        self.template = template
        if template is None:
            info.update("" if self.kind == DECLARE else "nothing to maintain")
            self.params = ()
            for box in self.query("#params > .tpl"):
                box.display = False
            return
        live = self.live
        maintainable = live.ruleset.maintainable(template, live.encounter.setup.settings)
        info.update(Text(visible(template_text(template, maintainable)), no_wrap=True, overflow="ellipsis"))
        self.params = template.params
        self._fields.setdefault(template.name, {p.name: p for p in template.params})
        if template.name not in self._setup_boxes:
            self._build_setup_box(template)
        for box in self.query("#params > .tpl"):
            box.display = box.id == f"tpl-{self._setup_boxes[template.name]}"

    def _rows(self, fields: list[Field], prefix: str, inputs: dict[str, Input], defaults: dict[str, Any] | None = None) -> list[Widget]:
        widgets: list[Widget] = []
        for p in fields:
            f = _param_field(p)
            if defaults and p.name in defaults:
                f.value = str(defaults[p.name])
            row, entry, error = field_parts(f, prefix, LABEL_WIDTH + 1)
            inputs[p.name] = entry
            self._error_labels[entry] = error
            widgets.extend(row)
        return widgets

    def _build_setup_box(self, template: ActionTemplate) -> None:
        index = len(self._setup_boxes)
        self._setup_boxes[template.name] = index
        inputs: dict[str, Input] = {}
        main = self._rows([p for p in template.params if p.stage not in (MORE, AFTER_ROLL)], "p", inputs)
        more_fields = [p for p in template.params if p.stage == MORE]
        more = self._rows(more_fields, "p", inputs)
        more_names = [p.name for p in more_fields] + (["secret"] if self._offers_secret() else [])
        if more_names:
            names = ", ".join(more_names)
            main.append(Label(Text(f"ctrl+o: {len(more_names)} more modifiers ({names})", no_wrap=True, overflow="ellipsis"), classes="hint more-hint"))
        more_box = Vertical(*more, classes="more")
        more_box.display = self.show_more
        self.param_inputs[template.name] = inputs
        self.query_one("#params", Vertical).mount(Vertical(*main, more_box, classes="tpl", id=f"tpl-{index}"))

    def _build_after_box(self, template: ActionTemplate, defaults: dict[str, Any]) -> None:
        index = len(self._after_boxes)
        self._after_boxes[template.name] = index
        inputs: dict[str, Input] = {}
        rows = self._rows([p for p in template.params if p.stage == AFTER_ROLL], "a", inputs, defaults)
        self.after_inputs[template.name] = inputs
        self.query_one("#after", Vertical).mount(Vertical(*rows, classes="after", id=f"after-{index}"))

    def _after_fields(self) -> list[Field]:
        return [p for p in self.params if p.stage == AFTER_ROLL]

    # ----------------------------------------------------------- gathering
    def _attempt(self, after: bool = False) -> Attempt:
        """The form's choices; raises TrackerError naming the first bad field."""
        actor = self._value("actor")
        if not actor:
            raise TrackerError("actor: expected a combatant's name")
        pt_text = self._value("pt")
        pt = _int_at_least_1(pt_text) if pt_text else None
        template = self.template
        params: dict[str, Any] = {}
        if template is not None:
            for name, entry in self.param_inputs.get(template.name, {}).items():
                if entry.value.strip():
                    params[name] = entry.value.strip()
            if after or self._after_active:
                for name, entry in self.after_inputs.get(template.name, {}).items():
                    if entry.value.strip():
                        params[name] = entry.value.strip()
        if self.kind == MAINTAIN:
            return Attempt(MAINTAIN, actor, template.name if template else "", (), pt, params)
        if self._offers_secret() and self.is_mounted:
            _yes_no(self.query_one("#d-secret", Input).value)  # a typo must not roll in the open
        name = self._value("template")
        if not name:
            raise TrackerError("action: expected an action's name")
        return Attempt(DECLARE, actor, name, tuple(self._split(self._value("targets"))), pt, params)

    # ----------------------------------------------------------- the chance
    def _update_chance(self) -> None:
        """Start computing the chance for the form as it is now; the latest request wins."""
        self._chance_gen += 1
        gen = self._chance_gen
        try:
            attempt = self._attempt()
        except TrackerError as exc:
            self._show_chance(gen, f"chance of success: - ({exc})")
            return
        session = self.live.session

        def compute() -> None:
            try:
                # The request a commit would build, the rules of initiation included: an
                # action the rules refuse shows the refusal here, not odds.
                request, template = dice_plan.request_for(session, attempt)
                chance = session.chance_of(request)  # remembered: the commit records this one
                if chance is None and template.rolls and template.targets > 0 and not request.targets:
                    # The adapter has no odds without the target, but the action does roll.
                    text = f"chance of success: - ({template.name} needs a target: name it under targets)"
                else:
                    text = chance_text(chance, session.ruleset.chance_note(request))
            except TrackerError as exc:
                text = f"chance of success: - ({exc})"
            except Exception as exc:  # a bug in an adapter's odds must not end the form
                text = f"chance of success: - (could not be computed: {type(exc).__name__})"
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
        self.query_one("#chance", Label).update(Text(visible(text), no_wrap=True, overflow="ellipsis"))

    # ----------------------------------------------------------- events
    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        if self._form_closed:
            return
        ident = event.input.id or ""
        prefix, _, name = ident.partition("-")
        text = event.value.strip()
        error = ""
        if ident == "dice-faces":
            self._error("")
            return
        try:
            if text and prefix == "d":
                {"actor": self._check_actor, "template": self._check_template, "targets": self._check_targets, "pt": _int_at_least_1, "secret": _yes_no}[name](text)
            elif text and prefix in ("p", "a"):
                field = self._fields.get(self.template.name if self.template else "", {}).get(name)
                if field is not None:
                    field.coerce(text, field.name)
        except TrackerError as exc:
            error = str(exc)
        except KeyError:
            return
        error_label = self._error_labels.get(event.input)
        if error_label is not None:
            set_error(error_label, visible(error))
        if name == "actor" and prefix == "d":
            self._show_recent()
        if name in ("template", "actor") and prefix == "d":
            self._template_changed()
        if name == "secret" and prefix == "d":
            self.query_one("#declare-title", Label).update(self._title())
            return
        if prefix == "a":
            self._after_changed()
        elif self.stage == SETUP:
            # A refusal from the last try is about the form as it was: the field's own
            # line and the chance line now say what is wrong, if anything still is.
            self._error("")
            self._update_chance()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self._form_closed:
            return
        if event.input.id == "dice-faces":
            self._dice_entered(event.value)
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
        if step < 0 and self.stage != SETUP and index <= 0:
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
        if self.stage == SETUP and chain and self.focused is chain[0]:
            return
        self.action_focus_step(-1)

    # ----------------------------------------------------------- again
    def _show_recent(self) -> None:
        """The actor in the actor field: their recent actions, one key each."""
        live = self.live
        actor = self._value("actor") if self.is_mounted else self.actor
        found = live.encounter.combatants.get(actor)
        if found is None:  # typed another way ("seraph"): the name as the session knows it
            try:
                found = live.session.lookup(actor)
            except TrackerError:
                found = None
        if self.kind != DECLARE or not self.offers_recent or found is None:
            self.recent = []
        else:
            self.recent = recent.recent(live.encounter, live.ruleset, live.seen_as, found.name)
        label = self.query_one("#recent", Label)
        # One line each, names made visible one by one (a newline in a name stays a mark).
        label.update(Text("\n".join(visible(line) for line in recent.labels(self.recent)), no_wrap=True, overflow="ellipsis"))
        label.display = bool(self.recent)

    def takes_again(self, character: str | None) -> bool:
        """Whether `character` typed now takes a recent entry: a digit naming one, in the
        action field while it holds no typing of one's own (as the form put it, or
        emptied). Anywhere else (a PT, a target, a modifier) a digit is typed as usual."""
        if character is None or len(character) != 1 or not "1" <= character <= "9":
            return False
        if self._form_closed or self.stage != SETUP or int(character) > len(self.recent):
            return False
        focused = self.focused
        if not isinstance(focused, ActionField):
            return False
        return focused.value.strip() in ("", self._template_put)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action != "again":
            return True
        index = parameters[0] if parameters else -1
        return isinstance(index, int) and self.takes_again(str(index + 1))

    def action_again(self, index: int) -> None:
        """Take recent entry `index`: fill the form with it and ask for the dice."""
        if self._form_closed or self.stage != SETUP or not 0 <= index < len(self.recent):
            return
        choice = self.recent[index]
        self._template_put = choice.template
        self.query_one("#d-template", Input).value = choice.template
        self.query_one("#d-targets", Input).value = ", ".join(choice.targets)
        self.query_one("#d-pt", Input).value = "" if choice.pt is None else str(choice.pt)
        if self._offers_secret():
            self.query_one("#d-secret", Input).value = "true" if choice.secret else "false"
        self._template_changed()  # at once: the Changed messages come after the dice are asked for
        template = self.template
        if template is not None:
            given = dict(choice.params)
            for p in template.params:
                entry = self.param_inputs.get(template.name, {}).get(p.name)
                if entry is not None and p.stage != AFTER_ROLL:
                    entry.value = given.get(p.name, _param_field(p).value)
        self.query_one("#declare-title", Label).update(self._title())
        self._update_chance()  # the chance of this choice, shown over the dice
        self._advance()

    def action_more(self) -> None:
        if self._form_closed:
            return
        self.show_more = not self.show_more
        for box in self.query("#params .more, #secret-box"):
            box.display = self.show_more
        self._show_hint()

    # ----------------------------------------------------------- stages
    def _show_stage(self, stage: str) -> None:
        self.stage = stage
        self.query_one("#setup").display = stage == SETUP
        self.query_one("#dice-stage").set_class(stage != DICE, "hidden-stage")
        self.query_one("#result-stage").set_class(stage != RESULT, "hidden-stage")
        self._show_hint()

    def _show_hint(self) -> None:
        hints = {
            SETUP: "enter: next, dice from the last · ctrl+s: dice · ctrl+r: roll · ctrl+o",
            DICE: "enter: these faces (empty: roll) · ctrl+r: roll the rest · ctrl+b: back",
            RESULT: "enter: next, commit from the last · ctrl+s: commit · ctrl+b: back · esc",
        }
        self.query_one("#declare-hint", Label).update(hints[self.stage])

    def action_go(self) -> None:
        if self._form_closed:
            return
        if self.stage == SETUP:
            self._advance()
        elif self.stage == DICE:
            self._dice_entered(self.query_one("#dice-faces", Input).value)
        else:
            self._commit()

    def _advance(self, roll_all: bool = False) -> None:
        """Resolve with the faces so far: ask for the next group, or show the result."""
        try:
            attempt = self._attempt(after=self.stage == RESULT)
            step = dice_plan.dry_run(self.live.session, attempt, self.faces)
            while roll_all and step.need is not None:
                rolled = self._app_roll(step.need)
                self.faces.extend(rolled)
                self.group_sizes.append(len(rolled))
                self.group_rolled.append(True)
                step = dice_plan.dry_run(self.live.session, attempt, self.faces)
        except TrackerError as exc:
            self._error(str(exc))
            return
        self._error("")
        self.step = step
        if step.need is not None:
            self._ask(step)
        else:
            self._result(step)

    def _ask(self, step: Step) -> None:
        need = step.need
        assert need is not None
        done = dice_plan.group_lines(step.groups)
        self.query_one("#dice-done", Label).update(Text("\n".join(visible(line) for line in done)))
        self.query_one("#dice-done", Label).display = bool(done)
        self.query_one("#dice-prompt", Label).update(Text(visible(f"next: {dice_plan.prompt(need)}")))
        entry = self.query_one("#dice-faces", Input)
        entry.value = ""
        self._show_stage(DICE)
        self.set_focus(entry)

    def _dice_entered(self, text: str) -> None:
        step = self.step
        if step is None or step.need is None:
            self._advance()
            return
        try:
            rolled = not text.strip()
            if not rolled:
                typed = dice_plan.accept(step.need, parse_faces(text))
            else:
                typed = self._app_roll(step.need)
        except TrackerError as exc:
            self._error(str(exc))
            return
        self.faces.extend(typed)
        self.group_sizes.append(len(typed))
        self.group_rolled.append(rolled)
        self._advance()

    def _app_roll(self, need: Any) -> list[int]:
        """The app's dice for the wanted group, through the session: for a player, a roll
        once made stands (Session.app_roll serves faces backed out of again)."""
        drawn = sum(n for n, rolled in zip(self.group_sizes, self.group_rolled) if rolled)
        return self.live.session.app_roll(dice_plan.remaining(need), drawn)

    def action_roll_rest(self) -> None:
        if self._form_closed:
            return
        if self.stage == RESULT:
            return
        if self.stage == DICE and self.query_one("#dice-faces", Input).value.strip():
            self._dice_entered(self.query_one("#dice-faces", Input).value)
            if self.stage != DICE:
                return
        self._advance(roll_all=True)

    def _result(self, step: Step) -> None:
        resolution = step.resolution
        assert resolution is not None
        template = self.template
        offered = self._after_budget(step) != ""
        if not offered and self._after_active:
            # Other dice (after ctrl+b) leave nothing to choose: the choices made for the
            # earlier roll no longer apply; the result is worked out again without them.
            self._after_active = False
            self._advance()
            return
        if not offered:
            template = None  # nothing to choose after this roll: no after-roll fields
        if template is not None and self._after_fields() and not self._after_active:
            defaults = self._after_defaults(step)
            if template.name not in self._after_boxes:
                self._build_after_box(template, defaults)
            else:
                for p in self._after_fields():
                    f = _param_field(p)
                    self.after_inputs[template.name][p.name].value = str(defaults.get(p.name, f.value))
            self._after_active = True
        for box in self.query("#after > .after"):
            box.display = template is not None and box.id == f"after-{self._after_boxes.get(template.name, -1)}"
        self._show_resolution(step)
        self._show_stage(RESULT)
        inputs = list(self.after_inputs.get(template.name, {}).values()) if template and self._after_active else []
        if inputs:
            self.set_focus(inputs[0])
        else:
            self.set_focus(None)

    def _after_defaults(self, step: Step) -> dict[str, Any]:
        """The after-roll choices' starting values: the adapter's, where it offers them."""
        offer: Callable[..., Any] | None = getattr(self.live.ruleset, "after_roll_defaults", None)
        if offer is None or step.request is None or step.resolution is None:
            return {}
        try:
            return dict(offer(step.request, step.resolution) or {})
        except TrackerError:
            return {}

    def _after_budget(self, step: Step) -> str:
        """The adapter's word on what may still be chosen ("" when nothing may)."""
        if step.request is None or step.resolution is None:
            return ""
        try:
            return self.live.ruleset.after_roll(step.request, step.resolution)
        except TrackerError:
            return ""

    def _show_resolution(self, step: Step) -> None:
        resolution = step.resolution
        assert resolution is not None
        lines = dice_plan.group_lines(step.groups)
        lines.append(" · ".join(dice_plan.result_figures(resolution)))
        if resolution.summary:
            lines.append(resolution.summary)
        budget = self._after_budget(step) if self._after_active else ""
        if budget:
            lines.append(f"after the roll: {budget}")
        self.query_one("#result", Label).update(Text("\n".join(visible(line) for line in lines)))

    def _after_changed(self) -> None:
        """An after-roll choice changed: show what the same dice now mean."""
        if self.stage != RESULT:
            return
        try:
            step = dice_plan.dry_run(self.live.session, self._attempt(after=True), self.faces)
        except TrackerError as exc:
            self._error(str(exc))
            return
        if step.resolution is None:  # the choice made the roll want more dice
            self._error("")
            self.step = step
            self._ask(step)
            return
        self._error("")
        self.step = step
        self._show_resolution(step)

    def action_back(self) -> None:
        """Take back the last group of dice (from the result: back to the dice)."""
        if self._form_closed:
            return
        if self.stage == SETUP:
            return
        if self.group_sizes:
            if self.group_rolled[-1] and self.live.session.role.is_player:
                # The app's roll stands: taking it back is the GM's (typed faces may go).
                self._error("the app's roll stands: a player may take back typed dice only; ask the GM")
                return
            n = self.group_sizes.pop()
            self.group_rolled.pop()
            del self.faces[len(self.faces) - n :]
        else:  # no dice yet (or an action that rolls none): back to the choices, as typed
            self.step = None
            self._after_active = False
            self._show_stage(SETUP)
            self._error("")
            self.set_focus(self.query_one("#d-actor" if self.kind == MAINTAIN else "#d-template", Input))
            self._update_chance()
            return
        self._advance()

    def _commit(self) -> None:
        try:
            attempt = self._attempt()  # the after-roll choices when offered, as shown
            faces = list(self.faces) or None
            # Which faces the app rolled, for the mark the proposal and the log carry.
            self.live.session.mark_dice([rolled for n, rolled in zip(self.group_sizes, self.group_rolled) for _ in range(n)])
            secret = self.secret

            def change(s: Session) -> Outcome:
                if self.kind == MAINTAIN:
                    return s.maintain(attempt.actor, pt=attempt.pt, faces=faces, params=attempt.params)
                return s.declare(attempt.actor, attempt.template, list(attempt.targets), pt=attempt.pt, faces=faces, params=attempt.params, secret=secret)

            outcome = self.live.run(change)
        except TrackerError as exc:
            self._error(str(exc))
            return
        self._form_closed = True
        self.dismiss(outcome)

    def action_submit(self) -> None:
        """Roll whatever is still needed and commit: the quick path (and older callers)."""
        if self._form_closed:
            return
        if self.stage != RESULT:
            self._advance(roll_all=True)
        if self.stage == RESULT:
            self._commit()

    def has_unsaved_input(self) -> bool:
        return self.stage != SETUP or self.secret or any(
            entry.value.strip() for inputs in self.param_inputs.values() for entry in inputs.values()
        ) or bool(self._value("targets") if self.kind == DECLARE else "")

    def action_cancel(self) -> None:
        if self._form_closed:
            return
        self._form_closed = True
        self.dismiss(None)
