"""The command language, one row per verb: the only place a verb is defined.

A `Verb` row holds the verb's usage and help, its arguments and options with their
types, the roles that may use it, and the typed `Session` method it calls. Everything
that speaks the language reads this table: `Session.execute` (parses a line through it,
then calls the row's method), `tracker play --help`, the app's `:` line and its
completion, the help screen (`?`); the user guide's (docs/guide/verbs.md) and
`tracker.play.session`'s lists of commands are checked against it by tests/test_verbs.py,
which also checks that each row's method exists and takes what the row's parser gives
it, and that each row's roles agree with the session's role guard.

Parsing only turns words into typed values (`whole`, `number`, yes/no words): whether a
change is allowed, and what it means, stays with the `Session` method and its guard, so
a key binding calling the method directly is checked exactly as a typed line is.

Most verbs fit one pattern (positional arguments in order, the last one may take the
rest of the line; options `key=value`; other options go to the method's `params` or are
ignored), read by `Verb.call`. The few that do not (`add` with its `xN`, `library` with
its sub-commands, `refuse` whose reason may hold `=`, `roll` refusing unknown options)
name a small parser function of their own. A usage refusal keeps each verb's own wording
(`misuse`), as users and tests know it.

Decisions: `note` takes the rest of the line as typed (quotes and `=` included), so it
is read before the line is split into words (`raw`). A verb is read in any case: `NOTE
hi` is a note (it used to be refused as an unknown command while the refusal listed
`note`). No Textual here: the CLI reads it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rulesets.fields import yes_no
from tracker.engine import CommandError, bounds
from tracker.reading.roles import GM, PLAYER, VIEWER

MAX_COPIES = 100

# Kinds of values, for parsing and for completion (a NAME or NAMES is offered the names
# of the combatants the one typing may see).
NAME = "name"  # one combatant
NAMES = "names"  # one combatant, a comma list or a glob ("Goblin*")
WORD = "word"  # a word as typed
INT = "int"  # a whole number (`whole`)
NUMBER = "number"  # a number (`number`)
TEXT = "text"  # the rest of the words, joined by spaces
YES_NO = "yes/no"  # true/false, yes/no (rulesets.fields.yes_no)
LIST = "list"  # comma separated, empty parts dropped
COPIES = "copies"  # xN: N numbered copies

ROLES = (GM, PLAYER, VIEWER)


def split_command(line: str) -> tuple[str, list[str], dict[str, str]]:
    """'declare Seraph punch target=Sphinx' -> ('declare', ['Seraph', 'punch'], {'target': 'Sphinx'})."""
    try:
        import shlex  # on the first command typed, not at the app's start

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


def whole(text: str, what: str) -> int:
    """A whole number typed for `what`, bounded like a segment."""
    try:
        value = int(text)
    except ValueError:
        raise CommandError(f"{what}: expected a whole number, got {text!r}") from None
    if abs(value) > bounds.MAX_SEGMENT:
        raise CommandError(f"{what}: expected a whole number of at most {bounds.MAX_SEGMENT:,} in size, got {text}")
    return value


def at_least(text: str, what: str, least: int, expected: str, enough: str) -> int:
    """A whole number typed in a form's field, `least` or more: "pt: expected a whole
    number of segments" (`expected`), "pt: expected at least 1 segment" (`enough`)."""
    try:
        value = int(text)
    except ValueError:
        raise CommandError(f"{what}: expected {expected}, got {text!r}") from None
    if value < least:
        raise CommandError(f"{what}: expected {enough}, got {value}")
    return value


def number(text: str, what: str) -> int | float:
    """A finite, bounded number typed for `what`; whole numbers stay `int`."""
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


def copies(word: str) -> int | None:
    """'x4' or '×4' -> 4; None if the word is not a count of copies."""
    if len(word) > 1 and word[0] in "x×" and word[1:].isdigit():
        count = int(word[1:])
        if not 1 <= count <= MAX_COPIES:
            raise CommandError(f"copies: expected x1 to x{MAX_COPIES}, got {word}")
        return count
    return None


def _value(kind: str, text: str, label: str) -> Any:
    if kind == INT:
        return whole(text, label)
    if kind == NUMBER:
        return number(text, label)
    if kind == YES_NO:
        return yes_no(text, label)
    if kind == LIST:
        return [part for part in text.split(",") if part]
    return text


@dataclass(frozen=True, slots=True)
class Arg:
    """A positional argument: its placeholder in the usage, its kind, and the name a
    refusal of its value gives it ("segments: expected a whole number")."""

    name: str
    kind: str = WORD
    label: str = ""
    optional: bool = False
    default: Any = None


@dataclass(frozen=True, slots=True)
class Opt:
    """A `key=value` option, passed to the method as the keyword `dest`."""

    key: str
    kind: str = WORD
    dest: str = ""
    default: Any = None
    alias: str = ""  # a second spelling (`targets=`); the first one wins
    roles: frozenset[str] = frozenset(ROLES)  # who is offered it (a secret roll: the GM); the guard decides
    note: str = ""  # what the help adds for the roles offered it ("secret: ...")


@dataclass(frozen=True, slots=True)
class Call:
    """What a line asks for: a `Session` method and what to pass it."""

    method: str
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)


Parser = Callable[["Verb", list[str], dict[str, str]], Call]


@dataclass(frozen=True, slots=True)
class Verb:
    """One verb of the command language. `roles` says who may use it, for what is offered
    and documented; the session's guard is what refuses (the tests hold the two equal)."""

    name: str
    usage: str  # as the help lists it
    help: str
    method: str  # the typed Session method it calls
    roles: frozenset[str]  # who may use it (tracker.reading.roles); the session's guard decides
    args: tuple[Arg, ...] = ()
    options: tuple[Opt, ...] = ()
    params: bool = False  # other options go to the method's `params` (else they are ignored)
    strict: bool = True  # False: words beyond the arguments are ignored (`next 3`)
    misuse: str = ""  # the refusal of a wrong number of words, if not "usage: " + usage
    parser: Parser | None = None  # for a verb whose words do not fit the pattern
    also: tuple[str, ...] = ()  # other Session methods its parser may call (library)
    raw: bool = False  # takes the rest of the line as typed (note)

    @property
    def verb(self) -> str:
        """The name, as the rows of `tracker.play.session.COMMANDS` have always called it."""
        return self.name

    def usage_for(self, kind: str) -> str:
        """The usage as a role of `kind` is shown it: without the options it may not use
        (a player's `declare` and `roll` offer no `[secret=true]`)."""
        usage = self.usage
        for opt in self.options:
            if kind not in opt.roles:
                usage = re.sub(rf"\s*\[{re.escape(opt.key)}=[^\]]*\]", "", usage)
        return usage

    def help_for(self, kind: str) -> str:
        """The help line, with the notes of the options a role of `kind` is offered."""
        notes = [opt.note for opt in self.options if opt.note and kind in opt.roles]
        return f"{self.help} ({'; '.join(notes)})" if notes else self.help

    @property
    def refusal(self) -> str:
        return self.misuse or f"usage: {self.usage}"

    @property
    def methods(self) -> tuple[str, ...]:
        return (self.method, *self.also)

    @property
    def takes_name(self) -> bool:
        """Whether its first argument is a combatant's name (the `:` line offers names)."""
        return bool(self.args) and self.args[0].kind in (NAME, NAMES)

    def call(self, args: list[str], opts: dict[str, str]) -> Call:
        """The call a line's words ask for, or a CommandError naming what is wrong."""
        if self.parser is not None:
            return self.parser(self, list(args), dict(opts))
        return Call(self.method, self.positional(args), self.keywords(dict(opts)))

    def positional(self, args: list[str]) -> tuple[Any, ...]:
        fixed = [a for a in self.args if a.kind != TEXT]
        text = next((a for a in self.args if a.kind == TEXT), None)
        least = sum(1 for a in self.args if not a.optional)
        if len(args) < least or (self.strict and text is None and len(args) > len(self.args)):
            raise CommandError(self.refusal)
        out: list[Any] = []
        for i, arg in enumerate(fixed):
            out.append(_value(arg.kind, args[i], arg.label or arg.name.lower()) if i < len(args) else arg.default)
        if text is not None:
            joined = " ".join(args[len(fixed) :])
            out.append(text.default if text.optional and not joined else joined)
        return tuple(out)

    def keywords(self, opts: dict[str, str]) -> dict[str, Any]:
        """The options as keywords, read in the row's order; `opts` keeps the others."""
        out: dict[str, Any] = {}
        for opt in self.options:
            held = opts.pop(opt.alias, None) if opt.alias else None
            raw = opts.pop(opt.key, held)
            out[opt.dest or opt.key] = opt.default if raw is None else _value(opt.kind, raw, opt.key)
        if self.params:
            out["params"] = opts
        return out


def _add(verb: Verb, args: list[str], opts: dict[str, str]) -> Call:
    count = copies(args[-1]) if len(args) == 2 else None
    if count is not None:
        args = args[:1]
    if len(args) != 1:
        raise CommandError(verb.refusal)
    kwargs = verb.keywords(opts)
    return Call(verb.method, (args[0], opts), {**kwargs, "copies": count or 1})


def _library(verb: Verb, args: list[str], opts: dict[str, str]) -> Call:
    if not args:
        return Call("library_sheets")
    action, rest = args[0].lower(), args[1:]
    if action == "save" and len(rest) == 1:
        return Call("save_sheet", (rest[0], opts.get("as")))
    if action == "add" and rest:
        count = copies(rest[-1]) if len(rest) > 1 else None
        if count is not None:
            rest = rest[:-1]
        if len(rest) > 2:
            raise CommandError(verb.refusal)
        hidden = yes_no(opts.get("hidden", "false"), "hidden")
        return Call("add_from_library", (rest[0], rest[1] if len(rest) == 2 else None), {"copies": count or 1, "side": opts.get("side"), "hidden": hidden})
    if action == "delete" and len(rest) == 1:
        return Call("delete_sheet", (rest[0],))
    raise CommandError(verb.refusal)


def _refuse(verb: Verb, args: list[str], opts: dict[str, str]) -> Call:
    if not args:
        raise CommandError(verb.refusal)
    # A reason is free text: a `key=value` in it is part of it, in the order typed.
    reason = " ".join(args[1:] + [f"{k}={v}" for k, v in opts.items()])
    return Call(verb.method, (whole(args[0], "refuse: proposal"), reason))


def _roll(verb: Verb, args: list[str], opts: dict[str, str]) -> Call:
    kwargs = verb.keywords(opts)
    if opts:
        raise CommandError(f"roll: unknown option {next(iter(opts))!r} (only secret=true)")
    return Call(verb.method, (" ".join(args),), kwargs)


_GM = frozenset({GM})
_PLAYERS = frozenset({GM, PLAYER})
_DICE = (Opt("pt", INT), Opt("faces"))
# A secret roll is the GM's: a player's is seen by the table (the session's guard refuses it).
_SECRET = Opt("secret", YES_NO, default=False, roles=_GM)

VERBS: tuple[Verb, ...] = (
    Verb(
        "add", "add NAME [xN] key=value ...", "add a combatant, or N numbered copies (side=, hidden=true, surprised=N, sheet keys)",
        "add", _GM, (Arg("NAME"), Arg("xN", COPIES, optional=True)),
        (Opt("side", default=""), Opt("hidden", YES_NO, default=False), Opt("surprised", INT, "surprised_until", 0)),
        misuse="usage: add NAME [xN] key=value ... (quote a name with spaces)", parser=_add,
    ),
    Verb(
        "declare", "declare ACTOR TEMPLATE [target=NAME] [pt=N] [faces=N,N] [secret=true] [key=value]",
        "initiate an action",
        "declare", _PLAYERS, (Arg("ACTOR", NAME), Arg("TEMPLATE", TEXT)),
        (Opt("target", LIST, "targets", (), alias="targets"), *_DICE, Opt("secret", YES_NO, default=False, roles=_GM, note="secret: the roll is hidden from viewers")), params=True,
        misuse="usage: declare ACTOR TEMPLATE [target=NAME] [pt=N] [faces=N,N] [key=value ...]",
    ),
    Verb(
        "maintain", "maintain ACTOR [pt=N] [faces=N,N]", "maintain the attack that just completed, with its modifiers (key=value changes one)",
        "maintain", _PLAYERS, (Arg("ACTOR", NAME),), _DICE, params=True,
    ),
    Verb("abort", "abort ACTOR [TEMPLATE]", "abort an action in progress", "abort", _PLAYERS, (Arg("ACTOR", NAME), Arg("TEMPLATE", TEXT, optional=True))),
    Verb(
        "damage", "damage NAME[,NAME|GLOB*] AMOUNT [resource=R]", "deal damage (negative heals)",
        "damage", _GM, (Arg("NAME", NAMES), Arg("AMOUNT", NUMBER)), (Opt("resource"),),
        misuse="usage: damage NAME[,NAME|GLOB] AMOUNT [resource=R]",
    ),
    Verb(
        "heal", "heal NAME[,NAME|GLOB*] AMOUNT [resource=R]", "restore a resource",
        "heal", _GM, (Arg("NAME", NAMES), Arg("AMOUNT", NUMBER)), (Opt("resource"),),
        misuse="usage: damage NAME[,NAME|GLOB] AMOUNT [resource=R]",
    ),
    Verb("set", "set NAME KEY VALUE", "adjust a resource or stat by hand", "set_value", _GM, (Arg("NAME", NAME), Arg("KEY"), Arg("VALUE"))),
    Verb(
        "condition", "condition NAME[,NAME|GLOB*] CONDITION SEGMENTS", "a condition that expires on an exact segment",
        "condition", _GM, (Arg("NAME", NAMES), Arg("CONDITION"), Arg("SEGMENTS", INT)),
        misuse="usage: condition NAME CONDITION SEGMENTS",
    ),
    Verb("schedule", "schedule SEGMENT TEXT", "an event on a future segment", "schedule", _GM, (Arg("SEGMENT", INT), Arg("TEXT", TEXT))),
    Verb("surprise", "surprise NAME SEGMENT", "may not initiate before SEGMENT", "surprise", _GM, (Arg("NAME", NAME), Arg("SEGMENT", INT))),
    Verb("hide", "hide NAME", "hide a combatant from viewers", "hide", _GM, (Arg("NAME", NAME),)),
    Verb("unhide", "unhide NAME", "show a hidden combatant to viewers", "unhide", _GM, (Arg("NAME", NAME),)),
    Verb("keep", "keep NAME", "let an action interrupted by throwback stand", "keep", _GM, (Arg("NAME", NAME),)),
    Verb("remove", "remove NAME", "take a combatant out of the encounter", "remove", _GM, (Arg("NAME", NAME),)),
    Verb(
        "rename", "rename NAME NEW-NAME", "rename a combatant", "rename", _GM, (Arg("NAME", NAME), Arg("NEW-NAME")),
        misuse="usage: rename NAME NEW-NAME (quote names with spaces)",
    ),
    Verb(
        "side", "side NAME SIDE", "change a combatant's side (\"\" for none)", "set_side", _GM,
        (Arg("NAME", NAME), Arg("SIDE", optional=True, default="")), misuse='usage: side NAME SIDE (side "" for none)',
    ),
    Verb(
        "reorder", "reorder NAME POSITION", "move a combatant to a place in the roster (1 = top)", "reorder", _GM,
        (Arg("NAME", NAME), Arg("POSITION", INT)), misuse="usage: reorder NAME POSITION (1 = top)",
    ),
    Verb(
        "library", "library [save NAME [as=ENTRY] | add ENTRY [NAME] [xN] [side=S] | delete ENTRY]",
        "the ruleset's library of sheets in the saves folder", "library_sheets", _GM,
        (Arg("save|add|delete", optional=True), Arg("NAME", NAME, optional=True)), parser=_library,
        also=("save_sheet", "add_from_library", "delete_sheet"),
    ),
    Verb("next", "next", "jump to the next segment where anything happens", "next", _GM, strict=False),
    Verb("step", "step [N]", "move N segments (default 1)", "step", _GM, (Arg("N", INT, "segments", optional=True, default=1),), strict=False),
    Verb("undo", "undo", "take back the latest change", "undo", _PLAYERS, strict=False),
    Verb("redo", "redo", "bring back the latest undone change", "redo", _PLAYERS, strict=False),
    Verb("note", "note TEXT", "write a note in the combat log", "note", _GM, (Arg("TEXT", TEXT, optional=True, default=""),), raw=True),
    Verb(
        "roll", "roll DICE [secret=true]", "roll dice in the game's notation (2d10, ORE 5d+1wd, D6 3D+1) for everyone's log",
        "roll", _PLAYERS, (Arg("DICE", TEXT, optional=True, default=""),), (_SECRET,), parser=_roll,
    ),
    Verb(
        "proposals", "proposals", "players' declarations waiting for the GM (setting player_declarations approval)",
        "show_proposals", _PLAYERS, strict=False,
    ),
    Verb(
        "approve", "approve N [target=NAME] [pt=N] [faces=N,N] [secret=true] [key=value]", "apply proposal N, edited by any options (the player's dice are kept)",
        "approve", _GM, (Arg("N", INT, "approve: proposal"),), (Opt("target", LIST, "targets"), *_DICE, _SECRET), params=True,
        misuse="usage: approve N [target=NAME] [pt=N] [faces=N,N] [secret=true] [key=value ...] (N: the proposal's number)",
    ),
    Verb(
        "refuse", "refuse N REASON", "refuse proposal N; the player sees the reason", "refuse", _GM,
        (Arg("N", INT, "refuse: proposal"), Arg("REASON", TEXT, optional=True, default="")), misuse="usage: refuse N REASON (N: the proposal's number)", parser=_refuse,
    ),
    Verb(
        "end", "end [outcome=TEXT]", "end this campaign fight: the party's state goes back to its campaign (the app shows what first)",
        "end_fight", _GM, (), (Opt("outcome", default=""),),
    ),
    Verb(
        "reroll", "reroll NAME", "let NAME's player roll the app's dice anew (a player's app roll otherwise stands)",
        "reroll", _GM, (Arg("NAME", NAME),),
    ),
    Verb("takeback", "takeback", "a player takes back their own last declaration (before anything else happens)", "takeback", _PLAYERS),
    Verb(
        "setting", "setting KEY VALUE", "a table setting: player_declarations at_once|approval; viewer_resources exact|label|hidden",
        "setting", _GM, (Arg("KEY"), Arg("VALUE")),
        misuse="usage: setting KEY VALUE (player_declarations at_once|approval; viewer_resources exact|label|hidden)",
    ),
)

BY_NAME: dict[str, Verb] = {v.name: v for v in VERBS}


def find(name: str) -> Verb:
    """The verb called `name` (as typed, any case), or the refusal listing them all."""
    verb = BY_NAME.get(name.lower())
    if verb is None:
        raise CommandError(f"unknown command {name!r} (commands: {', '.join(v.name for v in VERBS)})")
    return verb


def read(line: str) -> Call:
    """The call one line of the command language asks for (tabs count as spaces)."""
    line = line.replace("\t", " ")
    head = [word.lower() for word in line.split(None, 1)[:1]]
    if head and head[0] in BY_NAME and BY_NAME[head[0]].raw:
        # Free text: taken as typed, quotes and `=` included.
        verb = BY_NAME[head[0]]
        return Call(verb.method, (line.strip()[len(verb.name) :].strip(),))
    name, args, opts = split_command(line)
    return find(name).call(args, opts)


def offered(kind: str = GM) -> tuple[Verb, ...]:
    """The verbs a role of `kind` (tracker.reading.roles: gm, player, viewer) may use, in the
    table's order: what the help and the `:` line offer it (a viewer: none)."""
    return tuple(v for v in VERBS if kind in v.roles)


def completions(names: list[str], kind: str = GM) -> list[str]:
    """What the `:` line offers a role of `kind`: each verb it may use, and each such
    verb taking a combatant followed by each of `names` (quoted as the line needs them)."""
    mine = offered(kind)
    words = [f"{v.name} " for v in mine]
    import shlex

    return words + [f"{v.name} {shlex.quote(n)} " for v in mine if v.takes_name for n in names]
