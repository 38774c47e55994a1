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
    rename NAME NEW-NAME / side NAME SIDE / reorder NAME POSITION
    library [save NAME [as=ENTRY] | add ENTRY [NAME] [xN] [side=S] | delete ENTRY]
    next | step [N] | undo | redo | note TEXT

`add Goblin x4 hp=10` adds Goblin 1 to Goblin 4 (numbers already taken are skipped), as
one change that one undo takes back. The library is the per-ruleset sheet file in the
saves folder (tracker.library).

Text is checked at the door: a command line, a name, a side, a sheet value or a note
holding a control character is refused (`refuse_controls`), so nothing typed can put an
escape sequence in a save. Numbers are finite and bounded (tracker.engine.bounds);
`set` values are checked against the sheet's field types (an integer stat refuses
"abc"; a resource takes only a number). Every command is checked in full before the
encounter changes, so a refusal leaves memory and file as they were.

Undo and redo say what they take back in words (`describe`): "undo: Seraph declares
punch against Sphinx at segment 19"; `history` lists the effective changes, newest first.

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
from pathlib import Path
from typing import Any, ContextManager, Protocol

from tracker.engine import bounds
from tracker.engine import (
    ACTIVE,
    CombatantSetup,
    CommandError,
    Encounter,
    Event,
    RuleRefusal,
    TrackerError,
)
from tracker.library import Library, library_path, sheet_of
from rulesets.base import ActionRequest, ActionTemplate, Ruleset
from rulesets.dice import DiceSource, RandomDice, Recorder, TypedFaces, for_actor, parse_faces
from tracker.text import refuse_controls, visible

MAX_COPIES = 100


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


def _fmt_amount(value: int | float) -> str:
    return f"{value:g}"


def _int(text: str, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise CommandError(f"{what}: expected a whole number, got {text!r}") from None
    if abs(value) > bounds.MAX_SEGMENT:
        raise CommandError(f"{what}: expected a whole number of at most {bounds.MAX_SEGMENT:,} in size, got {text}")
    return value


def _number(text: str, what: str) -> int | float:
    try:
        value = float(text)
    except ValueError:
        raise CommandError(f"{what}: expected a number, got {text!r}") from None
    bounds.number(value, what)
    if value.is_integer():
        # Whole numbers typed as such stay exact (float() would round 2**60 + 1).
        try:
            return int(text)
        except ValueError:
            return int(value)
    return value


def _copies(word: str) -> int | None:
    """'x4' or '×4' -> 4; None if the word is not a count of copies."""
    if len(word) > 1 and word[0] in "x×" and word[1:].isdigit():
        count = int(word[1:])
        if not 1 <= count <= MAX_COPIES:
            raise CommandError(f"copies: expected x1 to x{MAX_COPIES}, got {word}")
        return count
    return None


def _fmt(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def describe(event: Event) -> str:
    """One event in words, as `undo`, `redo` and the history view say it."""
    a = event.args
    kind = event.kind
    if kind == "add":
        names = a.get("names") or [a.get("name", "?")]
        return f"{', '.join(names)} {'joins' if len(names) == 1 else 'join'} the fight"
    if kind == "remove":
        return f"{a.get('name')} leaves the fight"
    if kind == "declare":
        aim = f" against {', '.join(a['targets'])}" if a.get("targets") else ""
        return f"{a.get('actor')} declares {a.get('template')}{aim}"
    if kind == "maintain":
        return f"{a.get('actor')} maintains the attack"
    if kind == "abort":
        return f"{a.get('actor')} aborts {a.get('template') or 'an action'}"
    if kind == "damage":
        amount = a.get("amount", 0)
        verb = "takes" if not isinstance(amount, (int, float)) or amount >= 0 else "heals"
        shown = amount if verb == "takes" else -amount
        return f"{a.get('target')} {verb} {_fmt(shown)} {a.get('resource')}"
    if kind == "set":
        return f"{a.get('target')}: {a.get('key')} set to {_fmt(a.get('value'))}"
    if kind == "advance":
        return f"time moves on to segment {a.get('to')}"
    if kind == "condition":
        return f"{a.get('target')} is {a.get('name')} for {a.get('duration')} segments"
    if kind == "schedule":
        return f"scheduled for segment {a.get('at')}: {a.get('text')}"
    if kind == "surprise":
        return f"{a.get('target')} is surprised until segment {a.get('until')}"
    if kind == "hide":
        return f"{a.get('target')} is {'hidden from' if a.get('hidden', True) else 'shown to'} viewers"
    if kind == "keep":
        return f"the GM keeps {a.get('target')}'s interrupted action"
    if kind == "note":
        return f"note: {a.get('text')}"
    if kind == "rename":
        return f"{a.get('target')} is renamed {a.get('name')}"
    if kind == "side":
        return f"{a.get('target')} joins side {a.get('side')}" if a.get("side") else f"{a.get('target')} leaves its side"
    if kind == "reorder":
        return f"{a.get('target')} moves to place {a.get('position')} in the roster"
    if kind in ("undo", "redo"):
        return f"{kind} of change {a.get('target')}"
    return kind


def segment_of(encounter: Encounter, event: Event) -> int | None:
    """The segment an effective event was made on (from its first log line), if known.

    The log is in the order of the changes, so this reads back from the end: an undo
    (of the latest change) costs a few steps however long the fight."""
    found: int | None = None
    for entry in reversed(encounter.log):
        if entry.seq == event.seq:
            found = entry.segment
        elif found is not None or entry.seq < event.seq:
            break
    return found


def said(encounter: Encounter, event: Event) -> str:
    """`describe` plus the segment, with control characters made visible."""
    at = segment_of(encounter, event) if event.kind != "advance" else None
    where = f" at segment {at}" if at is not None else ""
    return visible(describe(event) + where)


@dataclass(frozen=True, slots=True)
class HistoryLine:
    seq: int
    segment: int | None
    text: str
    by: str


def history(encounter: Encounter) -> list[HistoryLine]:
    """The effective changes, newest first (what undo would take back, in order)."""
    first: dict[int, int] = {}
    for entry in encounter.log:
        first.setdefault(entry.seq, entry.segment)
    out = []
    for event in reversed(encounter.effective_events()):
        at = event.args.get("to") if event.kind == "advance" else first.get(event.seq)
        out.append(HistoryLine(event.seq, at, visible(describe(event)), visible(event.by)))
    return out


@dataclass(frozen=True, slots=True)
class CommandHelp:
    verb: str
    usage: str
    help: str


COMMANDS: tuple[CommandHelp, ...] = (
    CommandHelp("add", "add NAME [xN] key=value ...", "add a combatant, or N numbered copies (side=, hidden=true, surprised=N, sheet keys)"),
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
    CommandHelp("rename", "rename NAME NEW-NAME", "rename a combatant"),
    CommandHelp("side", "side NAME SIDE", "change a combatant's side (\"\" for none)"),
    CommandHelp("reorder", "reorder NAME POSITION", "move a combatant to a place in the roster (1 = top)"),
    CommandHelp("library", "library [save NAME [as=ENTRY] | add ENTRY [NAME] [xN] [side=S] | delete ENTRY]", "the ruleset's library of sheets in the saves folder"),
    CommandHelp("next", "next", "jump to the next segment where anything happens"),
    CommandHelp("step", "step [N]", "move N segments (default 1)"),
    CommandHelp("undo", "undo", "take back the latest change"),
    CommandHelp("redo", "redo", "bring back the latest undone change"),
    CommandHelp("note", "note TEXT", "write a note in the combat log"),
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
            target = encounter.undo_target() if event.kind == "undo" else None
            # Undo: say it while the change's log lines still exist; redo: once they do again.
            told = said(encounter, target) if target is not None else ""
            encounter.apply(event)
            if event.kind == "redo":
                index = event.args.get("target", 0) - 1  # events are numbered from 1 in order
                told = said(encounter, encounter.events[index]) if 0 <= index < len(encounter.events) else ""
            lines = [entry.text for entry in encounter.log[before:]]
        if event.kind in ("undo", "redo"):
            lines = [f"{event.kind}: {told}" if told else f"{event.kind} of change {event.args['target']}"]
        return Outcome(event, lines)

    def execute(self, line: str) -> Outcome:
        """Run one line of the command language."""
        refuse_controls(line.replace("\t", " "), "command")
        line = line.replace("\t", " ")
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
    def add(self, name: str, values: dict[str, Any], *, side: str = "", hidden: bool = False, surprised_until: int = 0, copies: int = 1) -> Outcome:
        """Add one combatant, or `copies` numbered ones ("Goblin 1".."Goblin 4") as one change."""
        name = name.strip()
        refuse_controls(name, "add: name")
        refuse_controls(side, "add: side")
        if not name:
            raise CommandError("add: a combatant needs a name")
        for key, value in values.items():
            refuse_controls(str(key), "add: key")
            if isinstance(value, str):
                refuse_controls(value, f"add: {key}")
        if not 1 <= copies <= MAX_COPIES:
            raise CommandError(f"copies: expected 1 to {MAX_COPIES}, got {copies}")
        stats, resources = self.ruleset.build_sheet(values, f"add {name}")
        bounds.sheet(stats, resources, f"add {name}")
        if surprised_until:
            bounds.segment(surprised_until, "surprised")
        entry = CombatantSetup(name, stats, resources, side, hidden, surprised_until)
        data = entry.to_dict()

        def build(enc: Encounter) -> Event:
            if copies == 1:
                enc.check_new_name(name)
                return Event("add", data)
            return Event("add", {**data, "names": self._numbered(enc, name, copies)})

        return self.submit(build)

    @staticmethod
    def _numbered(enc: Encounter, base: str, copies: int) -> list[str]:
        taken = {n.casefold() for n in enc.combatants}
        names: list[str] = []
        number = 1
        while len(names) < copies:
            candidate = f"{base} {number}"
            if candidate.casefold() not in taken:
                names.append(candidate)
            number += 1
        return names

    def _cmd_add(self, args: list[str], opts: dict[str, str]) -> Outcome:
        copies = _copies(args[-1]) if len(args) == 2 else None
        if copies is not None:
            args = args[:1]
        if len(args) != 1:
            raise CommandError("usage: add NAME [xN] key=value ... (quote a name with spaces)")
        side = opts.pop("side", "")
        hidden = opts.pop("hidden", "false").lower() in ("true", "yes", "1")
        surprised = _int(opts.pop("surprised", "0"), "surprised")
        return self.add(args[0], opts, side=side, hidden=hidden, surprised_until=surprised, copies=copies or 1)

    def rename(self, name: str, new: str) -> Outcome:
        new = new.strip()
        refuse_controls(new, "rename: new name")
        if not new:
            raise CommandError("rename: the new name is empty")

        def build(enc: Encounter) -> Event:
            c = enc.combatant(name)
            enc.check_new_name(new, keep=c.name)
            if new == c.name:
                raise CommandError(f"rename: {c.name} already has that name")
            return Event("rename", {"target": c.name, "name": new})

        return self.submit(build)

    def _cmd_rename(self, args: list[str], opts: dict[str, str]) -> Outcome:
        if len(args) != 2:
            raise CommandError("usage: rename NAME NEW-NAME (quote names with spaces)")
        return self.rename(args[0], args[1])

    def set_side(self, name: str, side: str) -> Outcome:
        side = side.strip()
        refuse_controls(side, "side")
        return self.submit(lambda enc: Event("side", {"target": enc.combatant(name).name, "side": side}))

    def _cmd_side(self, args: list[str], opts: dict[str, str]) -> Outcome:
        if len(args) not in (1, 2):
            raise CommandError('usage: side NAME SIDE (side "" for none)')
        return self.set_side(args[0], args[1] if len(args) == 2 else "")

    def reorder(self, name: str, position: int) -> Outcome:
        def build(enc: Encounter) -> Event:
            c = enc.combatant(name)
            if not 1 <= position <= len(enc.combatants):
                raise CommandError(f"reorder: position: expected 1 to {len(enc.combatants)}, got {position}")
            return Event("reorder", {"target": c.name, "position": position})

        return self.submit(build)

    def _cmd_reorder(self, args: list[str], opts: dict[str, str]) -> Outcome:
        if len(args) != 2:
            raise CommandError("usage: reorder NAME POSITION (1 = top)")
        return self.reorder(args[0], _int(args[1], "position"))

    # ----------------------------------------------------------------- library
    library_folder: Path | None = None

    def library(self) -> Library:
        """The ruleset's sheet library in the saves folder (the save file's folder)."""
        folder = self.library_folder
        if folder is None:
            store = self.store
            path = getattr(store, "path", None) or getattr(getattr(store, "file", None), "path", None)
            if path is None:
                raise CommandError("library: this encounter has no saves folder (it is not saved in a file)")
            folder = Path(path).parent
        return Library(library_path(folder, self.encounter.setup.ruleset))

    def save_sheet(self, name: str, entry: str | None = None) -> Outcome:
        sheet = sheet_of(self.encounter, name, entry)
        library = self.library()
        library.put(sheet)
        return Outcome(None, [visible(f"{sheet.name}: sheet saved in {library.path.name}")])

    def add_from_library(self, entry: str, name: str | None = None, *, copies: int = 1, side: str | None = None, hidden: bool = False) -> Outcome:
        sheet = self.library().get(entry)
        return self.add(name or sheet.name, sheet.values(), side=sheet.side if side is None else side, hidden=hidden, copies=copies)

    def _cmd_library(self, args: list[str], opts: dict[str, str]) -> Outcome:
        usage = "usage: library [save NAME [as=ENTRY] | add ENTRY [NAME] [xN] [side=S] | delete ENTRY]"
        if not args:
            library = self.library()
            names = library.names()
            return Outcome(None, [visible(f"{library.path.name}: {', '.join(names) if names else 'no sheets yet (library save NAME)'}")])
        action, rest = args[0].lower(), args[1:]
        if action == "save" and len(rest) == 1:
            return self.save_sheet(rest[0], opts.get("as"))
        if action == "add" and rest:
            copies = _copies(rest[-1]) if len(rest) > 1 else None
            if copies is not None:
                rest = rest[:-1]
            if len(rest) > 2:
                raise CommandError(usage)
            hidden = opts.get("hidden", "false").lower() in ("true", "yes", "1")
            return self.add_from_library(rest[0], rest[1] if len(rest) == 2 else None, copies=copies or 1, side=opts.get("side"), hidden=hidden)
        if action == "delete" and len(rest) == 1:
            library = self.library()
            library.delete(rest[0])
            return Outcome(None, [visible(f"{rest[0]}: sheet deleted from {library.path.name}")])
        raise CommandError(usage)

    def remove(self, name: str) -> Outcome:
        return self.submit(lambda enc: Event("remove", {"name": enc.combatant(name).name}))

    def _cmd_remove(self, args: list[str], opts: dict[str, str]) -> Outcome:
        return self.remove(self._one_name(args, "remove NAME"))

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
        for key, value in raw.items():
            if isinstance(value, str):
                refuse_controls(value, f"declare: {key}")
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
        """Damage (or, negative, heal) through the ruleset's damage rule, as a blow lands:
        Brand X VP overflows to DP. Healing past the sheet's value is refused unless
        the ruleset allows it."""

        def build(enc: Encounter) -> Event:
            c = enc.combatant(name)
            rule = self.ruleset.damage_rule(c, amount, resource)
            if amount < 0 and not rule.over_maximum:
                top = c.maxima.get(rule.resource)
                now = c.resources.get(rule.resource, 0)
                if top is not None and now - amount > top:
                    room = max(0, top - now)
                    raise CommandError(
                        f"heal {c.name} {_fmt_amount(-amount)}: {rule.resource} is {_fmt_amount(now)} of "
                        f"{_fmt_amount(top)}; healing more than {_fmt_amount(room)} would pass the maximum"
                    )
            args: dict[str, Any] = {"target": c.name, "amount": amount, "resource": rule.resource}
            if rule.overflow and amount > 0:
                args["overflow"] = rule.overflow
            return Event("damage", args)

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
        return self.set_value(*args)

    def set_value(self, name: str, key: str, raw: str) -> Outcome:
        """`set NAME KEY VALUE`: `raw` as typed, checked against the sheet."""
        refuse_controls(key, "set: key")
        return self.submit(lambda enc: self._set_event(enc, name, key, raw))

    def _set_event(self, enc: Encounter, name: str, key: str, raw: str) -> Event:
        """A `set`, its value checked against the sheet: a resource takes a number, a
        stat its field's type and bounds (the adapter's `check_sheet`)."""
        c = enc.combatant(name)
        where = f"set {c.name} {key}"
        is_resource = key in c.resources or (key not in c.stats and key in {f.name for f in self.ruleset.resource_fields()})
        value: Any
        if is_resource:
            value = _number(raw, where)
            _, checked = self.ruleset.check_sheet({}, {key: value}, where)
            value = checked[key]
        else:
            try:
                value = _number(raw, where)
            except TrackerError:
                value = raw
            if key in {f.name for f in self.ruleset.stat_fields()}:
                checked, _ = self.ruleset.check_sheet({key: raw}, {}, where)
                value = checked[key]
            elif key not in c.stats:
                # Not on the sheet: adapters with a fixed sheet refuse it, freeform takes it.
                stats, resources = self.ruleset.check_sheet({key: value} if isinstance(value, str) else {}, {} if isinstance(value, str) else {key: value}, where)
                value = {**stats, **resources}[key]
            elif isinstance(c.stats[key], (int, float)) and not isinstance(c.stats[key], bool) and isinstance(value, str):
                raise CommandError(f"{where}: expected a number, got {raw!r}")
        if isinstance(value, str):
            refuse_controls(value, where)
        bounds.value(value, where)
        return Event("set", {"target": c.name, "key": key, "value": value})

    def _cmd_condition(self, args: list[str], opts: dict[str, str]) -> Outcome:
        if len(args) != 3:
            raise CommandError("usage: condition NAME CONDITION SEGMENTS")
        name, condition, duration = args[0], args[1], _int(args[2], "segments")
        refuse_controls(condition, "condition")
        return self.submit(lambda enc: Event("condition", {"target": enc.combatant(name).name, "name": condition, "duration": duration}))

    def _cmd_schedule(self, args: list[str], opts: dict[str, str]) -> Outcome:
        if len(args) < 2:
            raise CommandError("usage: schedule SEGMENT TEXT")
        at, text = _int(args[0], "segment"), " ".join(args[1:])
        refuse_controls(text, "schedule: text")
        return self.submit(lambda enc: Event("schedule", {"at": at, "text": text}))

    def _cmd_surprise(self, args: list[str], opts: dict[str, str]) -> Outcome:
        if len(args) != 2:
            raise CommandError("usage: surprise NAME SEGMENT")
        return self.surprise(args[0], _int(args[1], "segment"))

    def surprise(self, name: str, until: int) -> Outcome:
        return self.submit(lambda enc: Event("surprise", {"target": enc.combatant(name).name, "until": until}))

    def hide(self, name: str, hidden: bool = True) -> Outcome:
        return self.submit(lambda enc: Event("hide", {"target": enc.combatant(name).name, "hidden": hidden}))

    def _cmd_hide(self, args: list[str], opts: dict[str, str]) -> Outcome:
        return self.hide(self._one_name(args, "hide NAME"))

    def _cmd_unhide(self, args: list[str], opts: dict[str, str]) -> Outcome:
        return self.hide(self._one_name(args, "unhide NAME"), False)

    def _cmd_keep(self, args: list[str], opts: dict[str, str]) -> Outcome:
        name = self._one_name(args, "keep NAME")
        return self.submit(lambda enc: Event("keep", {"target": enc.combatant(name).name}))

    def note(self, text: str) -> Outcome:
        if not text:
            raise CommandError("usage: note TEXT")
        refuse_controls(text, "note")
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

        def build(enc: Encounter) -> Event:
            if enc.now + segments > bounds.MAX_SEGMENT:
                raise CommandError(f"step: the fight would pass segment {bounds.MAX_SEGMENT:,}")
            return Event("advance", {"to": enc.now + segments})

        return self.submit(build)

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
