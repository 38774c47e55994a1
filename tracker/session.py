"""A session: one encounter, its ruleset adapter, a dice source, and the command language.

The commands are the same whether they come from `tracker play`, the TUI's `:` line or a
key binding (the TUI calls the same methods):

    add NAME key=value ...            side=, hidden=true, surprised=SEGMENT, then sheet keys
    declare ACTOR TEMPLATE [target=NAME[,NAME]] [pt=N] [faces=N,N] [secret=true] [key=value ...]
    maintain ACTOR [pt=N] [faces=N,N] [key=value ...]
    abort ACTOR [TEMPLATE]
    damage NAME AMOUNT [resource=R]   (a negative amount heals; `heal NAME AMOUNT` too)
    set NAME KEY VALUE                a manual adjustment of a resource or stat
    condition NAME CONDITION SEGMENTS
    schedule SEGMENT TEXT             something that happens on that segment
    surprise NAME SEGMENT             may not initiate before SEGMENT
    hide NAME / unhide NAME           hidden combatants are not shown to viewers
    keep NAME                         let an action interrupted by throwback stand
    remove NAME
    next | step [N] | undo | redo | note TEXT

Names with spaces are quoted ("Sun Ruler"). Every change goes through `submit`, which
lets the store (if any) lock the file, fold in changes made by others, apply the event
against the fresh state, and save before the lock is released.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ContextManager, Protocol

from tracker.engine import (
    ACTIVE,
    CombatantSetup,
    CommandError,
    Encounter,
    Event,
    RuleRefusal,
)
from rulesets.base import ActionRequest, ActionTemplate, Ruleset
from rulesets.dice import DiceSource, RandomDice, Recorder, TypedFaces, for_actor, parse_faces


class Store(Protocol):
    """What a session needs from persistence (see tracker.persistence.store)."""

    def transaction(self, session: "Session") -> ContextManager[None]: ...


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one command did: the event it recorded (if any) and the lines to show."""

    event: Event | None
    lines: list[str]


def split_command(line: str) -> tuple[str, list[str], dict[str, str]]:
    """'declare Seraph punch target=Sphinx' -> ('declare', ['Seraph', 'punch'], {'target': 'Sphinx'})."""
    try:
        words = shlex.split(line, comments=False)
    except ValueError as exc:
        raise CommandError(f"cannot read the command: {exc}") from None
    if not words:
        raise CommandError("empty command")
    verb, rest = words[0].lower(), words[1:]
    positional: list[str] = []
    options: dict[str, str] = {}
    for word in rest:
        key, eq, value = word.partition("=")
        if eq and key and key.replace("_", "").replace("-", "").isalnum() and not key[0].isdigit():
            options[key.lower()] = value
        else:
            positional.append(word)
    return verb, positional, options


def _int(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise CommandError(f"{what}: expected a whole number, got {text!r}") from None


def _number(text: str, what: str) -> int | float:
    try:
        value = float(text)
    except ValueError:
        raise CommandError(f"{what}: expected a number, got {text!r}") from None
    return int(value) if value.is_integer() else value


@dataclass(frozen=True, slots=True)
class CommandHelp:
    verb: str
    usage: str
    help: str


COMMANDS: tuple[CommandHelp, ...] = (
    CommandHelp("add", "add NAME key=value ...", "add a combatant (side=, hidden=true, surprised=N, sheet keys)"),
    CommandHelp("declare", "declare ACTOR TEMPLATE [target=NAME] [pt=N] [faces=N,N] [secret=true] [key=value]", "initiate an action (secret: the roll is hidden from viewers)"),
    CommandHelp("maintain", "maintain ACTOR [pt=N] [faces=N,N]", "maintain the attack that just completed"),
    CommandHelp("abort", "abort ACTOR [TEMPLATE]", "abort an action in progress"),
    CommandHelp("damage", "damage NAME AMOUNT [resource=R]", "deal damage (negative heals)"),
    CommandHelp("heal", "heal NAME AMOUNT [resource=R]", "restore a resource"),
    CommandHelp("set", "set NAME KEY VALUE", "adjust a resource or stat by hand"),
    CommandHelp("condition", "condition NAME CONDITION SEGMENTS", "a condition that expires on an exact segment"),
    CommandHelp("schedule", "schedule SEGMENT TEXT", "an event on a future segment"),
    CommandHelp("surprise", "surprise NAME SEGMENT", "may not initiate before SEGMENT"),
    CommandHelp("hide", "hide NAME", "hide a combatant from viewers"),
    CommandHelp("unhide", "unhide NAME", "show a hidden combatant to viewers"),
    CommandHelp("keep", "keep NAME", "let an action interrupted by throwback stand"),
    CommandHelp("remove", "remove NAME", "take a combatant out of the encounter"),
    CommandHelp("next", "next", "jump to the next segment where anything happens"),
    CommandHelp("step", "step [N]", "move N segments (default 1)"),
    CommandHelp("undo", "undo", "take back the latest change"),
    CommandHelp("redo", "redo", "bring back the latest undone change"),
    CommandHelp("note", "note TEXT", "write a note in the combat log"),
    CommandHelp("viewers", "viewers exact|label|hidden", "how enemies' resources show to viewers"),
)


class Session:
    def __init__(
        self,
        encounter: Encounter,
        ruleset: Ruleset,
        dice: DiceSource | None = None,
        store: Store | None = None,
        user: str = "",
    ) -> None:
        self.encounter = encounter
        self.ruleset = ruleset
        self.dice: DiceSource = dice if dice is not None else RandomDice()
        self.store = store
        self.user = user

    # ----------------------------------------------------------------- core
    def submit(self, build: Callable[[Encounter], Event]) -> Outcome:
        """Build an event against the freshest state, apply it, save, all under the store's lock."""
        context = self.store.transaction(self) if self.store is not None else nullcontext()
        with context:
            encounter = self.encounter
            before = len(encounter.log)
            event = build(encounter)
            event.by = event.by or self.user
            encounter.apply(event)
            lines = [entry.text for entry in encounter.log[before:]]
        if event.kind in ("undo", "redo"):
            lines = [f"{event.kind} of change {event.args['target']}"]
        return Outcome(event, lines)

    def execute(self, line: str) -> Outcome:
        """Run one line of the command language."""
        if line.split(None, 1)[:1] == ["note"]:
            # A note is free text: take it as typed, quotes and `=` included.
            return self.note(line.strip()[len("note") :].strip())
        verb, args, opts = split_command(line)
        handler = getattr(self, f"_cmd_{verb}", None)
        if handler is None:
            known = ", ".join(c.verb for c in COMMANDS)
            raise CommandError(f"unknown command {verb!r} (commands: {known})")
        return handler(args, opts)

    # ----------------------------------------------------------------- roster
    def add(self, name: str, values: dict[str, Any], *, side: str = "", hidden: bool = False, surprised_until: int = 0) -> Outcome:
        stats, resources = self.ruleset.build_sheet(values, f"add {name}")
        entry = CombatantSetup(name, stats, resources, side, hidden, surprised_until)
        data = entry.to_dict()
        return self.submit(lambda enc: Event("add", data))

    def _cmd_add(self, args: list[str], opts: dict[str, str]) -> Outcome:
        if len(args) != 1:
            raise CommandError("usage: add NAME key=value ... (quote a name with spaces)")
        side = opts.pop("side", "")
        hidden = opts.pop("hidden", "false").lower() in ("true", "yes", "1")
        surprised = _int(opts.pop("surprised", "0"), "surprised")
        return self.add(args[0], opts, side=side, hidden=hidden, surprised_until=surprised)

    def _cmd_remove(self, args: list[str], opts: dict[str, str]) -> Outcome:
        name = self._one_name(args, "remove NAME")
        return self.submit(lambda enc: Event("remove", {"name": enc.combatant(name).name}))

    # ----------------------------------------------------------------- actions
    def request(
        self,
        actor: str,
        template_name: str,
        targets: list[str] | tuple[str, ...] = (),
        params: dict[str, Any] | None = None,
        pt: int | None = None,
        encounter: Encounter | None = None,
    ) -> tuple[ActionRequest, ActionTemplate]:
        """An ActionRequest for the adapter, with validated parameters."""
        enc = encounter or self.encounter
        c = enc.combatant(actor)
        template = self.ruleset.template(template_name)
        raw = dict(params or {})
        mode = raw.pop("mode", None) if "mode" not in {f.name for f in template.params} else raw.get("mode")
        if mode is not None and mode not in ("active", "passive"):
            raise CommandError(f"mode: expected active or passive, got {mode!r}")
        if pt is not None and pt < 1:
            raise CommandError(f"pt: expected a performance time of at least 1 segment, got {pt}")
        coerced = self.ruleset.params(template, raw, f"declare {template.name}")
        foes = tuple(enc.combatant(t) for t in targets)
        if template.targets == 1 and len(foes) > 1:
            raise CommandError(f"{template.name} takes one target, not {len(foes)}")
        request = ActionRequest(template, c, foes, coerced, enc.now, enc.setup.settings, None, pt, enc)
        return request, template

    def chance(self, actor: str, template: str, targets: list[str] | tuple[str, ...] = (), params: dict[str, Any] | None = None) -> Fraction | None:
        """The exact chance the action would succeed, for the declare form."""
        request, _ = self.request(actor, template, targets, params)
        return self.ruleset.chance_of(request)

    def _dice(self, faces: str | list[int] | None) -> tuple[DiceSource, TypedFaces | None]:
        if faces is None or faces == "":
            return Recorder(self.dice), None
        typed = TypedFaces(parse_faces(faces) if isinstance(faces, str) else faces)
        return Recorder(typed), typed

    @staticmethod
    def _all_used(typed: TypedFaces | None) -> None:
        if typed is not None and typed.unused():
            raise CommandError(
                f"faces: {len(typed.faces)} typed but the roll used {typed.used}; "
                f"unused: {', '.join(map(str, typed.unused()))}"
            )

    def declare(
        self,
        actor: str,
        template: str,
        targets: list[str] | tuple[str, ...] = (),
        *,
        pt: int | None = None,
        faces: str | list[int] | None = None,
        params: dict[str, Any] | None = None,
        secret: bool = False,
    ) -> Outcome:
        def build(enc: Encounter) -> Event:
            request, tmpl = self.request(actor, template, targets, params, pt, enc)
            mode = (params or {}).get("mode") or tmpl.mode
            enc.check_initiation(request.actor, tmpl.name, mode, tmpl.companions)
            dice, typed = self._dice(faces)
            resolution = self.ruleset.resolve(request, for_actor(dice, request.actor.name))
            self._all_used(typed)
            return Event(
                "declare",
                {
                    "actor": request.actor.name,
                    "template": tmpl.name,
                    "mode": mode,
                    "targets": [t.name for t in request.targets],
                    "companions": list(tmpl.companions),
                    "maintainable": bool(request.params.get("maintainable", tmpl.maintainable)),
                    "secret": secret or None,
                    "resolution": resolution,
                },
            )

        return self.submit(build)

    def _cmd_declare(self, args: list[str], opts: dict[str, str]) -> Outcome:
        if len(args) < 2:
            raise CommandError("usage: declare ACTOR TEMPLATE [target=NAME] [pt=N] [faces=N,N] [key=value ...]")
        actor, template = args[0], " ".join(args[1:])
        targets = [t for t in opts.pop("target", opts.pop("targets", "")).split(",") if t]
        pt = _int(opts.pop("pt"), "pt") if "pt" in opts else None
        faces = opts.pop("faces", None)
        secret = opts.pop("secret", "false").lower() in ("true", "yes", "1")
        return self.declare(actor, template, targets, pt=pt, faces=faces, params=opts, secret=secret)

    def maintain(self, actor: str, *, pt: int | None = None, faces: str | list[int] | None = None, params: dict[str, Any] | None = None) -> Outcome:
        def build(enc: Encounter) -> Event:
            c = enc.combatant(actor)
            prev = enc.maintainable_action(c)
            enc.check_initiation(c, prev.template, ACTIVE)
            template = self.ruleset.template(prev.template)
            coerced = self.ruleset.params(template, dict(params or {}), f"maintain {template.name}")
            targets = tuple(enc.combatant(t) for t in prev.targets if t in enc.combatants)
            request = ActionRequest(template, c, targets, coerced, enc.now, enc.setup.settings, prev, pt, enc)
            dice, typed = self._dice(faces)
            resolution = self.ruleset.maintain(request, for_actor(dice, c.name))
            self._all_used(typed)
            return Event("maintain", {"actor": c.name, "resolution": resolution})

        return self.submit(build)

    def _cmd_maintain(self, args: list[str], opts: dict[str, str]) -> Outcome:
        name = self._one_name(args, "maintain ACTOR [pt=N] [faces=N,N]")
        faces = opts.pop("faces", None)
        pt = _int(opts.pop("pt"), "pt") if "pt" in opts else None
        return self.maintain(name, pt=pt, faces=faces, params=opts)

    def abort(self, actor: str, template: str | None = None) -> Outcome:
        def build(enc: Encounter) -> Event:
            args: dict[str, Any] = {"actor": enc.combatant(actor).name}
            if template:
                args["template"] = template
            return Event("abort", args)

        return self.submit(build)

    def _cmd_abort(self, args: list[str], opts: dict[str, str]) -> Outcome:
        if not args:
            raise CommandError("usage: abort ACTOR [TEMPLATE]")
        return self.abort(args[0], " ".join(args[1:]) or None)

    # ----------------------------------------------------------------- changes
    def default_resource(self, name: str, encounter: Encounter | None = None) -> str:
        c = (encounter or self.encounter).combatant(name)
        for key in self.ruleset.down_when:
            if key in c.resources:
                return key
        if c.resources:
            return next(iter(c.resources))
        raise CommandError(f"{c.name} has no resources to damage")

    def damage(self, name: str, amount: int | float, resource: str | None = None) -> Outcome:
        def build(enc: Encounter) -> Event:
            c = enc.combatant(name)
            return Event("damage", {"target": c.name, "amount": amount, "resource": resource or self.default_resource(c.name, enc)})

        return self.submit(build)

    def _cmd_damage(self, args: list[str], opts: dict[str, str], sign: int = 1) -> Outcome:
        if len(args) != 2:
            raise CommandError("usage: damage NAME AMOUNT [resource=R]")
        return self.damage(args[0], sign * _number(args[1], "amount"), opts.get("resource"))

    def _cmd_heal(self, args: list[str], opts: dict[str, str]) -> Outcome:
        return self._cmd_damage(args, opts, -1)

    def _cmd_set(self, args: list[str], opts: dict[str, str]) -> Outcome:
        if len(args) != 3:
            raise CommandError("usage: set NAME KEY VALUE")
        name, key, raw = args
        try:
            value: Any = _number(raw, key)
        except CommandError:
            value = raw
        return self.submit(lambda enc: Event("set", {"target": enc.combatant(name).name, "key": key, "value": value}))

    def _cmd_condition(self, args: list[str], opts: dict[str, str]) -> Outcome:
        if len(args) != 3:
            raise CommandError("usage: condition NAME CONDITION SEGMENTS")
        name, condition, duration = args[0], args[1], _int(args[2], "segments")
        return self.submit(lambda enc: Event("condition", {"target": enc.combatant(name).name, "name": condition, "duration": duration}))

    def _cmd_schedule(self, args: list[str], opts: dict[str, str]) -> Outcome:
        if len(args) < 2:
            raise CommandError("usage: schedule SEGMENT TEXT")
        at, text = _int(args[0], "segment"), " ".join(args[1:])
        return self.submit(lambda enc: Event("schedule", {"at": at, "text": text}))

    def _cmd_surprise(self, args: list[str], opts: dict[str, str]) -> Outcome:
        if len(args) != 2:
            raise CommandError("usage: surprise NAME SEGMENT")
        name, until = args[0], _int(args[1], "segment")
        return self.submit(lambda enc: Event("surprise", {"target": enc.combatant(name).name, "until": until}))

    def hide(self, name: str, hidden: bool = True) -> Outcome:
        return self.submit(lambda enc: Event("hide", {"target": enc.combatant(name).name, "hidden": hidden}))

    def _cmd_hide(self, args: list[str], opts: dict[str, str]) -> Outcome:
        return self.hide(self._one_name(args, "hide NAME"))

    def viewers(self, resources: str) -> Outcome:
        """How enemies' resources show to viewers: exact, label or hidden."""
        return self.submit(lambda enc: Event("viewers", {"resources": resources}))

    def _cmd_viewers(self, args: list[str], opts: dict[str, str]) -> Outcome:
        if len(args) != 1 or opts:
            raise CommandError("usage: viewers exact|label|hidden")
        return self.viewers(args[0])

    def _cmd_unhide(self, args: list[str], opts: dict[str, str]) -> Outcome:
        return self.hide(self._one_name(args, "unhide NAME"), False)

    def _cmd_keep(self, args: list[str], opts: dict[str, str]) -> Outcome:
        name = self._one_name(args, "keep NAME")
        return self.submit(lambda enc: Event("keep", {"target": enc.combatant(name).name}))

    def note(self, text: str) -> Outcome:
        if not text:
            raise CommandError("usage: note TEXT")
        return self.submit(lambda enc: Event("note", {"text": text}))

    # ----------------------------------------------------------------- time
    def next(self) -> Outcome:
        def build(enc: Encounter) -> Event:
            to = enc.next_happening()
            if to is None:
                raise RuleRefusal("next", "nothing is scheduled: declare an action, or step")
            return Event("advance", {"to": to})

        return self.submit(build)

    def step(self, segments: int = 1) -> Outcome:
        if segments < 1:
            raise CommandError(f"step: expected at least 1 segment, got {segments}")
        return self.submit(lambda enc: Event("advance", {"to": enc.now + segments}))

    def _cmd_next(self, args: list[str], opts: dict[str, str]) -> Outcome:
        return self.next()

    def _cmd_step(self, args: list[str], opts: dict[str, str]) -> Outcome:
        return self.step(_int(args[0], "segments") if args else 1)

    def undo(self) -> Outcome:
        def build(enc: Encounter) -> Event:
            target = enc.undo_target()
            if target is None:
                raise RuleRefusal("undo", "nothing to undo")
            return Event("undo", {"target": target.seq})

        return self.submit(build)

    def redo(self) -> Outcome:
        def build(enc: Encounter) -> Event:
            target = enc.redo_target()
            if target is None:
                raise RuleRefusal("redo", "nothing to redo")
            return Event("redo", {"target": target.seq})

        return self.submit(build)

    def _cmd_undo(self, args: list[str], opts: dict[str, str]) -> Outcome:
        return self.undo()

    def _cmd_redo(self, args: list[str], opts: dict[str, str]) -> Outcome:
        return self.redo()

    @staticmethod
    def _one_name(args: list[str], usage: str) -> str:
        if len(args) != 1:
            raise CommandError(f"usage: {usage}")
        return args[0]
