"""The declare flow without a screen: choose, dice, result, commit (docs/contributing/design.md#flows).

`DeclareFlow` holds what the declare form holds (the fields as typed, the faces so far,
the dry run's step, the after-roll choices, the actor's recent actions) and does each
step; `tracker.ui.screens.declare.DeclareScreen` renders it and hands it the keys. The
steps are those docs/decisions/0001-declare-form.md describes (a `FormStage`): choose
(SETUP), dice (DICE, one named group at a time, typed or rolled by the app), result
(RESULT, with the choices made after seeing the dice), then commit through
`Session.declare` / `Session.maintain` with exactly those faces. Each step method returns
what the screen has to do next (a `Shown`: dice asked for, the result, the result
updated, the choices again, a refusal, committed); the form's refusal line is `error`.

A GM editing a player's proposal is the same flow configured with the proposal
(`DeclareFlow(..., proposal=p)`): the actor and action are the player's and stay, the
player's dice come first (one group, not this app's roll: `back` drops them all), the
player's after-roll choices are the defaults, and the commit approves the proposal as
edited.

Maintaining (`kind=MAINTAIN`) opens with the maintained action's own modifiers, and the
actor's action's again when the actor changes; what the fields hold is the link's in
full (one emptied: none this time): docs/decisions/0053-maintained-links.md.

No Textual here: the flow is tested by calling it (tests/test_declaring.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rulesets.base import ActionTemplate
from rulesets.dice import DiceNeeded, parse_faces
from rulesets.fields import AFTER_ROLL, MORE, Field
from tracker.reading import recent
from tracker.play.dice_plan import Step, accept, dry_run, example, group_lines, prompt, remaining, result_figures
from tracker.play import requests
from tracker.play.form import (
    FieldChange, FormStage, Shown, chance_text, default_text, field_text, int_at_least_1, secret_yes_no, split_names, template_text,
)
from tracker.play.requests import DECLARE, MAINTAIN, Attempt
from tracker.engine import TrackerError
from tracker.engine.model import Action, Proposal
from tracker.reading.roles import Role
from tracker.play.session import Outcome, Session
from tracker.reading.viewing import sight


Run = Callable[[Callable[[Session], Outcome]], Outcome]


class DeclareFlow:
    """One declaration (or maintenance) being made: the form's state and its steps."""

    def __init__(
        self,
        session: Session,
        seen_as: Role,
        actor: str | None = None,
        kind: str = DECLARE,
        *,
        run: Run | None = None,
        proposal: Proposal | None = None,
    ) -> None:
        self.session = session
        self.kind = kind
        self.seen_as = seen_as
        self.run: Run = run or (lambda change: change(session))
        self.proposal = proposal
        enc = session.encounter
        # Suggested targets: those this reader is shown (a player's or viewer's leave hidden ones out).
        self.names = sight(enc, seen_as).names()
        # The actor list: a player acts for their own combatants only (tracker.reading.roles).
        role = session.role
        self.actors = [n for n in self.names if role.owns(n)] if role.is_player else self.names
        self.catalogue = list(session.ruleset.catalogue())
        self.actor = actor if actor and (not role.is_player or role.owns(actor)) else (self.actors[0] if self.actors else "")
        # A fresh declaration offers the actor's recent actions; a proposal being decided
        # does not: a digit must not replace it.
        self.offers_recent = proposal is None
        self.offers_secret = kind == DECLARE and role.is_gm
        self.values: dict[str, str] = {
            "actor": self.actor,
            "template": self.catalogue[0] if self.catalogue and kind == DECLARE else "",
            "targets": "",
            "pt": "",
            "secret": "false",
        }
        self.stage: FormStage = FormStage.SETUP
        self.faces: list[int] = []
        self.group_sizes: list[int] = []  # how many faces each step added, for back()
        self.group_rolled: list[bool] = []  # whether the app rolled each step's faces (else typed)
        self.step: Step | None = None
        self.error = ""
        self.outcome: Outcome | None = None
        # Per action, the modifiers as typed (kept when another action is chosen) and
        # the after-roll choices (set to their defaults when first offered).
        self.param_values: dict[str, dict[str, str]] = {}
        # What the form put in each action's modifiers (their defaults): not typed, so
        # no input a quit would lose.
        self._defaults: dict[str, dict[str, str]] = {}
        self.after_values: dict[str, dict[str, str]] = {}
        # After-roll choices apply once offered (at the first result) until back at the start.
        self.after_active = False
        self.after_offered = False  # the result shown offers choices (the adapter's `after_roll`)
        self.params: tuple[Field, ...] = ()  # the current action's modifier fields
        self.template: ActionTemplate | None = None
        self.recent: list[recent.Recent] = []  # the actor's recent actions, offered first
        # To maintain: the action maintained, the one the modifiers were filled from, and
        # the values they were filled with (what the GM has not changed).
        self.maintained: Action | None = None
        self._filled_from: Action | None = None
        self._filled: dict[str, str] = {}
        # The action field's text as the flow last put it (opened, or an entry taken):
        # a digit typed while it still holds that, or nothing, takes a recent entry.
        self.template_put = self.catalogue[0] if self.catalogue else ""
        self._proposed_params: dict[str, Any] = {}
        if proposal is not None:
            self._configure_for(proposal)
        self.show_recent()
        self.template_changed()
        if proposal is not None and self.template is not None:
            values = self.param_values[self.template.name]
            for name in values:
                if name in self._proposed_params:
                    values[name] = field_text(self._proposed_params[name])
            # The player's after-roll choices hold for their dice from the start: a push
            # that made a hit is why those dice hold the damage die.
            chosen = {p.name: self._proposed_params[p.name] for p in self.after_fields() if p.name in self._proposed_params}
            if chosen:
                self.after_values[self.template.name] = {p.name: field_text(chosen.get(p.name, p.default)) for p in self.after_fields()}
                self.after_active = True

    def _configure_for(self, proposal: Proposal) -> None:
        """A player's proposal to edit: their actor, action, targets, PT and dice first."""
        self.actors = [proposal.actor]
        events = self.session.encounter.events
        self.faces = [int(f) for f in events[proposal.seq - 1].args.get("faces", [])] if 0 < proposal.seq <= len(events) else []
        # back() drops the player's dice at once: the GM then rolls or types new ones.
        self.group_sizes = [len(self.faces)] if self.faces else []
        self.group_rolled = [False] if self.faces else []  # the player's, not this app's roll
        self._proposed_params = dict(proposal.args.get("params") or {})
        args = proposal.args
        if self.kind == DECLARE:
            self.values["template"] = str(args.get("template") or "")
            self.values["targets"] = ", ".join(args.get("targets") or ())
        self.values["pt"] = "" if args.get("pt") is None else str(args["pt"])

    # ----------------------------------------------------------- what is shown
    def title(self) -> str:
        """The form's title: what is being done (a proposal's names the proposal decided,
        for as long as the form is open) and whether the roll is secret."""
        secret = " · secret" if self.secret else ""
        p = self.proposal
        if p is not None:
            return f"Edit proposal {p.seq} ({p.actor}, {p.what()}){secret}, then approve"
        verb = "Maintain" if self.kind == MAINTAIN else "Declare"
        enc = self.session.encounter
        return f"{verb} an action{secret} · {enc.time.clock(enc.now)}"

    @property
    def secret(self) -> bool:
        """The GM marked the roll secret ("secret roll")."""
        if not self.offers_secret:
            return False
        try:
            return secret_yes_no(self.values["secret"])
        except TrackerError:
            return False

    def template_info(self) -> str:
        template = self.template
        if template is None:
            return "" if self.kind == DECLARE else "nothing to maintain"
        link = self.maintained
        if self.kind == MAINTAIN and link is not None:
            # What is maintained, not the catalogue's entry: a link is no new declaration.
            aim = [t for t in link.targets if t in self.names]  # as this reader knows them
            return f"link {link.chain + 1} of {link.actor}'s {template.name}" + (f" at {', '.join(aim)}" if aim else "") + (
                f"; {template.description}" if template.description else "")
        maintainable = self.session.ruleset.maintainable(template, self.session.encounter.setup.settings)
        return template_text(template, maintainable)

    def more_names(self, template: ActionTemplate) -> list[str]:
        """The choices one key away (ctrl+o): the action's MORE modifiers, then "secret"."""
        return [p.name for p in template.params if p.stage == MORE] + (["secret"] if self.offers_secret else [])

    def after_fields(self) -> list[Field]:
        return [p for p in self.params if p.stage == AFTER_ROLL]

    def dice_done(self) -> list[str]:
        """Every group of dice rolled so far, as shown over the dice asked for."""
        return group_lines(self.step.groups) if self.step is not None else []

    def dice_prompt(self) -> str:
        """'next: Seraph's Combat Roll: 2d10': the group of dice asked for."""
        need = self.step.need if self.step is not None else None
        return f"next: {prompt(need)}" if need is not None else ""

    def faces_hint(self) -> str:
        """The faces field's hint, its example fitting the dice asked for (a d4's faces
        are at most 4): 'faces rolled, e.g. 7,3 · enter alone: roll them'."""
        need = self.step.need if self.step is not None else None
        shown = f"e.g. {example(need)}" if need is not None else "comma separated"
        return f"faces rolled, {shown} · enter alone: roll them"

    def result_lines(self) -> list[str]:
        """The result shown: every group of dice, the figures, the adapter's summary and
        what may still be chosen."""
        step = self.step
        assert step is not None and step.resolution is not None
        lines = group_lines(step.groups)
        lines.append(" · ".join(result_figures(step.resolution)))
        if step.resolution.summary:
            lines.append(step.resolution.summary)
        budget = self.after_budget(step) if self.after_active else ""
        if budget:
            lines.append(f"after the roll: {budget}")
        return lines

    def hint(self) -> str:
        return {
            FormStage.SETUP: "enter: next, dice from the last · ctrl+s: dice · ctrl+r: roll · ctrl+o",
            FormStage.DICE: "enter: these faces (empty: roll) · ctrl+r: roll the rest · ctrl+b: back",
            FormStage.RESULT: "enter: next, commit from the last · ctrl+s: commit · ctrl+b: back · esc",
        }[self.stage]

    def has_unsaved_input(self) -> bool:
        if self.kind == MAINTAIN and self.proposal is None:
            # Filled with the maintained action's own modifiers: only a change is input.
            now = self.param_values.get(self.template.name, {}) if self.template is not None else {}
            return self.stage != FormStage.SETUP or bool(self.value("pt")) or now != self._filled
        return self.stage != FormStage.SETUP or self.secret or any(
            text.strip() != self._defaults.get(action, {}).get(name, "")
            for action, values in self.param_values.items() for name, text in values.items()
        ) or bool(self.values["targets"].strip() if self.kind == DECLARE else "")

    # ----------------------------------------------------------- the fields
    def check(self, group: str, name: str, text: str) -> str | None:
        """What is wrong with `text` in field `name` ("" when nothing; None when the flow
        has no such field). `group`: "d" for the base fields, "p" for a modifier, "a" for
        an after-roll choice."""
        text = text.strip()
        if group == "d":
            checks: dict[str, Callable[[str], object]] = {
                "actor": self._check_actor, "template": self._check_template, "targets": self._check_targets,
                "pt": int_at_least_1, "secret": secret_yes_no,
            }
            if name not in checks:
                return None
            check = checks[name]
        elif group in ("p", "a"):
            found = {p.name: p for p in self.params}.get(name)
            if found is None:
                return ""
            check = lambda t: found.coerce(t, found.name)  # noqa: E731
        else:
            return None
        if not text:
            return ""
        try:
            check(text)
        except TrackerError as exc:
            return str(exc)
        return ""

    def set(self, group: str, name: str, text: str, hold: bool = True) -> FieldChange | None:
        """A field changed (as typed): its own message (see `check`), and the flow follows
        it (the actor's recent actions, the action's modifiers, the result). None: the
        flow has no such field. `hold=False`: the caller has handed over every field
        already (`put`), `text` may be older than what it holds now."""
        error = self.check(group, name, text)
        if error is None:
            return None
        if hold:
            self.put(group, name, text)
        if group == "d" and name == "actor":
            self.show_recent()
        if group == "d" and name in ("template", "actor"):
            self.template_changed()
        if group == "d" and name == "secret":
            return FieldChange(error, title=True)
        if group == "a":
            return FieldChange(error, shown=self.after_changed())
        if self.stage == FormStage.SETUP:
            # A refusal from the last try is about the form as it was: the field's own
            # line and the chance line now say what is wrong, if anything still is.
            self.error = ""
            return FieldChange(error, chance=True)
        return FieldChange(error)

    def put(self, group: str, name: str, text: str, template: str | None = None) -> None:
        """Hold `text` for a field, with no other effect (the screen hands its fields over
        before each step, so the step sees them as they are on screen). A modifier ("p")
        or an after-roll choice ("a") is `template`'s, by default the current action's."""
        if group == "d":
            self.values[name] = text
            return
        owner = template if template is not None else (self.template.name if self.template else None)
        if owner is not None and group in ("p", "a"):
            (self.param_values if group == "p" else self.after_values).setdefault(owner, {})[name] = text

    def value(self, name: str) -> str:
        return self.values[name].strip()

    def _check_actor(self, text: str) -> None:
        if self.proposal is not None:
            found = self.session.encounter.combatant(text)
            if found.name != self.proposal.actor:
                raise TrackerError(f"actor: proposal {self.proposal.seq} is {self.proposal.actor}'s; refuse it instead")
            return
        found = self.session.lookup(text)
        role = self.session.role
        if role.is_player and not role.owns(found.name):
            raise TrackerError(f"actor: {text} is not your combatant; you declare for {', '.join(self.actors) or 'none here'}")

    def _check_template(self, text: str) -> ActionTemplate:
        found = self.session.ruleset.template(text)
        if self.proposal is not None and self.kind == DECLARE:
            wanted = str(self.proposal.args.get("template") or "")
            if found.name != wanted:
                raise TrackerError(f"action: the player proposed {wanted}; refuse it (r) to have them declare another")
        return found

    def _check_targets(self, text: str) -> None:
        for name in split_names(text):
            self.session.lookup(name)  # as this role knows them (hidden ones: a GM's)

    def _current_template(self) -> ActionTemplate | None:
        if self.kind == MAINTAIN:
            self.maintained = None
            try:
                enc = self.session.encounter
                c = enc.combatant(self.value("actor"))
                action = enc.maintainable_action(c)
                template = self.session.ruleset.template(action.template)
            except TrackerError:
                return None
            self.maintained = action
            return template
        try:
            return self._check_template(self.value("template"))
        except TrackerError:
            return None

    def template_changed(self) -> None:
        """The action (or, to maintain, the actor) changed: its modifiers, kept per action."""
        template = self._current_template()
        self.template = template
        if template is None:
            self.params = ()
            return
        self.params = template.params
        fields = [p for p in template.params if p.stage not in (MORE, AFTER_ROLL)] + [p for p in template.params if p.stage == MORE]
        if self.kind == MAINTAIN and self.proposal is None and self.maintained is not self._filled_from:
            # Another action to maintain (the form opened, or another actor): its own
            # modifiers, as "again" fills a declaration (a proposal's are the player's).
            self._filled_from = self.maintained
            kept = recent.link_params(self.maintained, template) if self.maintained is not None else {}
            self.param_values[template.name] = {p.name: kept.get(p.name, default_text(p)) for p in fields}
            self._filled = dict(self.param_values[template.name])
        elif template.name not in self.param_values:
            self.param_values[template.name] = {p.name: default_text(p) for p in fields}
            self._defaults[template.name] = dict(self.param_values[template.name])

    # ----------------------------------------------------------- again
    def show_recent(self) -> None:
        """The actor in the actor field: their recent actions, one key each."""
        session = self.session
        actor = self.value("actor")
        found = session.encounter.combatants.get(actor)
        if found is None:  # typed another way ("seraph"): the name as the session knows it
            try:
                found = session.lookup(actor)
            except TrackerError:
                found = None
        if self.kind != DECLARE or not self.offers_recent or found is None:
            self.recent = []
        else:
            self.recent = recent.recent(session.encounter, session.ruleset, self.seen_as, found.name)

    def takes_again(self, character: str | None, action_text: str | None) -> bool:
        """Whether `character` typed now takes a recent entry: a digit naming one, typed
        in the action field (`action_text`, its text; None: typed elsewhere) while it
        holds no typing of one's own (as the flow put it, or emptied)."""
        if character is None or len(character) != 1 or not "1" <= character <= "9":
            return False
        if self.stage != FormStage.SETUP or int(character) > len(self.recent) or action_text is None:
            return False
        return action_text.strip() in ("", self.template_put)

    def take_recent(self, index: int) -> bool:
        """Take recent entry `index`: fill the fields with it (then `advance` asks for the
        dice). False: there is no such entry, or the choices are not shown."""
        if self.stage != FormStage.SETUP or not 0 <= index < len(self.recent):
            return False
        choice = self.recent[index]
        self.template_put = choice.template
        self.values["template"] = choice.template
        self.values["targets"] = ", ".join(choice.targets)
        self.values["pt"] = "" if choice.pt is None else str(choice.pt)
        if self.offers_secret:
            self.values["secret"] = "true" if choice.secret else "false"
        self.template_changed()
        template = self.template
        if template is not None:
            given = dict(choice.params)
            values = self.param_values[template.name]
            for p in template.params:
                if p.name in values and p.stage != AFTER_ROLL:
                    values[p.name] = given.get(p.name, default_text(p))
        return True

    # ----------------------------------------------------------- gathering
    def attempt(self, after: bool = False) -> Attempt:
        """The choices made; raises TrackerError naming the first bad field."""
        actor = self.value("actor")
        if not actor:
            raise TrackerError("actor: expected a combatant's name")
        pt_text = self.value("pt")
        pt = int_at_least_1(pt_text) if pt_text else None
        template = self.template
        params: dict[str, Any] = {}
        if template is not None:
            for name, text in self.param_values.get(template.name, {}).items():
                if text.strip():
                    params[name] = text.strip()
            if after or self.after_active:
                for name, text in self.after_values.get(template.name, {}).items():
                    if text.strip():
                        params[name] = text.strip()
        if self.kind == MAINTAIN:
            # The fields opened filled with the maintained action's modifiers: what they
            # hold now is the link's, a field emptied is none this time.
            return Attempt(MAINTAIN, actor, template.name if template else "", (), pt, params, kept=False)
        if self.offers_secret:
            secret_yes_no(self.values["secret"])  # a typo must not roll in the open
        name = self.value("template")
        if not name:
            raise TrackerError("action: expected an action's name")
        return Attempt(DECLARE, actor, name, tuple(split_names(self.value("targets"))), pt, params)

    # ----------------------------------------------------------- the chance
    def chance(self) -> str | Callable[[], str]:
        """The chance line for the choices as they are now: the text at once (a field is
        wrong), or a function computing it, slow enough to run off the event loop."""
        try:
            attempt = self.attempt()
        except TrackerError as exc:
            return f"chance of success: - ({exc})"
        session = self.session

        def compute() -> str:
            try:
                # The request a commit would build, the rules of initiation included: an
                # action the rules refuse shows the refusal here, not odds.
                request = requests.build(session.policy, session.ruleset, session.encounter, attempt).request
                template = request.template
                chance = session.chance_of(request)  # remembered: the commit records this one
                if chance is None and template.rolls and template.targets > 0 and not request.targets:
                    # The adapter has no odds without the target, but the action does roll.
                    return f"chance of success: - ({template.name} needs a target: name it under targets)"
                return chance_text(chance, session.ruleset.chance_note(request))
            except TrackerError as exc:
                return f"chance of success: - ({exc})"
            except Exception as exc:  # a bug in an adapter's odds must not end the form
                return f"chance of success: - (could not be computed: {type(exc).__name__})"

        return compute

    def chance_now(self) -> str:
        """The chance line, computed here and now."""
        found = self.chance()
        return found if isinstance(found, str) else found()

    # ----------------------------------------------------------- steps
    def go(self, dice_text: str = "") -> Shown:
        """Enter (or ctrl+s): from the choices, the dice; at the dice, these faces
        (`dice_text`; empty: the app rolls them); at the result, commit."""
        if self.stage == FormStage.SETUP:
            return self.advance()
        if self.stage == FormStage.DICE:
            return self.enter_dice(dice_text)
        return self.commit()

    def advance(self, roll_all: bool = False) -> Shown:
        """Resolve with the faces so far: ask for the next group, or show the result."""
        try:
            attempt = self.attempt(after=self.stage == FormStage.RESULT)
            step = dry_run(self.session, attempt, self.faces)
            while roll_all and step.need is not None:
                rolled = self._app_roll(step.need)
                self.faces.extend(rolled)
                self.group_sizes.append(len(rolled))
                self.group_rolled.append(True)
                step = dry_run(self.session, attempt, self.faces)
        except TrackerError as exc:
            self.error = str(exc)
            return Shown.REFUSED
        self.error = ""
        self.step = step
        if step.need is not None:
            self.stage = FormStage.DICE
            return Shown.ASKED
        return self._result(step)

    def enter_dice(self, text: str) -> Shown:
        """Faces typed for the group asked for (empty: the app rolls them)."""
        step = self.step
        if step is None or step.need is None:
            return self.advance()
        try:
            rolled = not text.strip()
            typed = accept(step.need, parse_faces(text)) if not rolled else self._app_roll(step.need)
        except TrackerError as exc:
            self.error = str(exc)
            return Shown.REFUSED
        self.faces.extend(typed)
        self.group_sizes.append(len(typed))
        self.group_rolled.append(rolled)
        return self.advance()

    def _app_roll(self, need: DiceNeeded) -> list[int]:
        """The app's dice for the wanted group, through the session: for a player, a roll
        once made stands (Session.app_roll serves faces backed out of again)."""
        drawn = sum(n for n, rolled in zip(self.group_sizes, self.group_rolled) if rolled)
        return self.session.app_roll(remaining(need), drawn, self.attempt().actor)

    def roll_rest(self, dice_text: str = "") -> Shown | None:
        """ctrl+r: faces typed on the dice line first, then the app rolls the rest (None:
        nothing to do at the result)."""
        if self.stage == FormStage.RESULT:
            return None
        if self.stage == FormStage.DICE and dice_text.strip():
            shown = self.enter_dice(dice_text)
            if shown == Shown.REFUSED or self.stage != FormStage.DICE:
                return shown  # a typo is said, not rolled over: the faces are the person's to retype
        return self.advance(roll_all=True)

    def _result(self, step: Step) -> Shown:
        template = self.template
        offered = self.after_budget(step) != ""
        self.after_offered = offered
        if not offered and self.after_active:
            # Other dice (after back()) leave nothing to choose: the choices made for the
            # earlier roll no longer apply; the result is worked out again without them.
            self.after_active = False
            return self.advance()
        if not offered:
            template = None  # nothing to choose after this roll: no after-roll fields
        if template is not None and self.after_fields() and not self.after_active:
            defaults = self.after_defaults(step)
            self.after_values[template.name] = {p.name: str(defaults.get(p.name, default_text(p))) for p in self.after_fields()}
            self.after_active = True
            self.stage = FormStage.RESULT
            # The same dice with the choices' defaults: a push that turns a miss into a
            # hit wants the damage die next.
            if self.after_changed() == Shown.ASKED:
                return Shown.ASKED
            return Shown.RESULT
        self.stage = FormStage.RESULT
        return Shown.RESULT

    def after_choices(self) -> dict[str, str]:
        """The after-roll choices offered at the result, by name, with their values."""
        template = self.template
        if template is None or not self.after_offered or not self.after_active:
            return {}
        return self.after_values.get(template.name, {})

    def after_defaults(self, step: Step) -> dict[str, Any]:
        """The after-roll choices' starting values: the adapter's, where it offers them
        (for a proposal, the player's own choices first)."""
        defaults: dict[str, Any] = {}
        if step.request is not None and step.resolution is not None:
            try:
                defaults = dict(self.session.ruleset.after_roll_defaults(step.request, step.resolution) or {})
            except TrackerError:
                defaults = {}
        if self.proposal is not None:
            for p in self.params:
                if p.stage == AFTER_ROLL and p.name in self._proposed_params:
                    defaults[p.name] = self._proposed_params[p.name]
        return defaults

    def after_budget(self, step: Step | None) -> str:
        """The adapter's word on what may still be chosen ("" when nothing may)."""
        if step is None or step.request is None or step.resolution is None:
            return ""
        try:
            return self.session.ruleset.after_roll(step.request, step.resolution)
        except TrackerError:
            return ""

    def after_changed(self) -> Shown | None:
        """An after-roll choice changed: what the same dice now mean."""
        if self.stage != FormStage.RESULT:
            return None
        try:
            step = dry_run(self.session, self.attempt(after=True), self.faces)
        except TrackerError as exc:
            self.error = str(exc)
            return Shown.REFUSED
        self.error = ""
        self.step = step
        if step.resolution is None:  # the choice made the roll want more dice
            self.stage = FormStage.DICE
            return Shown.ASKED
        return Shown.UPDATED

    def back(self) -> Shown | None:
        """Take back the last group of dice (from the result: back to the dice; with no
        dice: back to the choices). None: already at the choices."""
        if self.stage == FormStage.SETUP:
            return None
        if self.group_sizes:
            if self.group_rolled[-1] and self.session.role.is_player:
                # The app's roll stands: taking it back is the GM's (typed faces may go).
                self.error = "the app's roll stands: a player may take back typed dice only; ask the GM"
                return Shown.REFUSED
            n = self.group_sizes.pop()
            self.group_rolled.pop()
            del self.faces[len(self.faces) - n :]
        else:  # no dice yet (or an action that rolls none): back to the choices, as typed
            self.step = None
            self.after_active = False
            self.stage = FormStage.SETUP
            self.error = ""
            return Shown.SETUP_AGAIN
        return self.advance()

    def commit(self) -> Shown:
        """Make the change shown, with exactly these faces."""
        try:
            if self.proposal is not None:
                outcome = self._approve()
            else:
                attempt = self.attempt()  # the after-roll choices when offered, as shown
                faces = list(self.faces) or None
                # Which faces the app rolled, for the mark the proposal and the log carry.
                app = [rolled for n, rolled in zip(self.group_sizes, self.group_rolled) for _ in range(n)]
                secret = self.secret

                def change(s: Session) -> Outcome:
                    if self.kind == MAINTAIN:
                        return s.maintain(attempt.actor, pt=attempt.pt, faces=faces, params=attempt.params, kept=False, app_rolled=app)
                    return s.declare(
                        attempt.actor, attempt.template, list(attempt.targets), pt=attempt.pt, faces=faces, params=attempt.params, secret=secret, app_rolled=app
                    )

                outcome = self.run(change)
        except TrackerError as exc:
            self.error = str(exc)
            return Shown.REFUSED
        self.outcome = outcome
        return Shown.COMMITTED

    def _approve(self) -> Outcome:
        """A proposal's commit: approved with the values as edited."""
        assert self.proposal is not None
        attempt = self.attempt(after=True)
        faces = list(self.faces) or None
        seq = self.proposal.seq
        targets = list(attempt.targets) if self.kind == DECLARE else None
        secret = self.secret  # offered for a declaration only (`offers_secret`)
        return self.run(lambda s: s.approve(seq, targets=targets, pt=attempt.pt, faces=faces, params=attempt.params, secret=secret))
