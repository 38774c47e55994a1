"""A session: one encounter, its ruleset adapter, a dice source, and the command language.

The commands are the same whether they come from `tracker play`, the TUI's `:` line or a
key binding (the TUI calls the same methods). Each verb is one row of `tracker.verbs`,
which reads a line's words and names the typed method here that it calls; this list is
checked against that table (tests/test_verbs.py):

    add NAME key=value ...            side=, hidden=true, surprised=SEGMENT, then sheet keys
    declare ACTOR TEMPLATE [target=NAME[,NAME]] [pt=N] [faces=N,N] [secret=true] [key=value ...]
    maintain ACTOR [pt=N] [faces=N,N] [key=value ...]
    abort ACTOR [TEMPLATE]
    damage NAME AMOUNT [resource=R]   (a negative amount heals; `heal NAME AMOUNT` too)
                                      NAME may be a list "Goblin 1,Goblin 2" or a glob Goblin*
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
    roll DICE [secret=true]           a table roll in the game's notation, or dice such as 2d10
    setting player_declarations at_once|approval
    proposals | approve N [target=NAME] [pt=N] [faces=N,N] [secret=true] [key=value ...] | refuse N REASON
    takeback | reroll NAME            reroll: the GM lets NAME's player roll the app's dice anew
    end [outcome=TEXT]                a campaign's fight ends: the party's state goes back

Decisions: docs/decisions/0002-session-commands.md,
docs/decisions/0043-session-checks-at-the-door.md,
docs/decisions/0049-player-app-dice-stand.md, docs/decisions/0053-maintained-links.md
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from collections.abc import Callable, Mapping
from contextlib import nullcontext
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ContextManager, Protocol

from pathlib import Path

from tracker.engine import bounds, draws
from tracker import player_dice
from tracker.campaign import fights
from tracker.campaign.fights import Preview
from tracker.engine import (
    ACTIVE,
    CombatantSetup,
    CommandError,
    Encounter,
    Event,
    Resolution,
    RuleRefusal,
    TrackerError,
    no_such_combatant,
)
from tracker.engine.errors import listed
from tracker.engine.model import PENDING, Proposal
from tracker.engine import kinds, table
from tracker.library import Library, sheet_of
from tracker.engine.kinds import PLAYER_KINDS
from tracker.roles import Role, is_players, who
from rulesets.base import ActionRequest, ActionTemplate, Ruleset
from rulesets.dice import DiceSource, RandomDice, Recorder, TypedFaces, for_actor, parse_faces, plain_roll
from rulesets.limits import MAX_TABLE_DICE, MAX_TABLE_SIDES
from tracker.text import check_name, refuse_blank, refuse_controls, refuse_lookalike, printable
from tracker.viewing import PLAYER_SIDES, sight
from tracker import verbs
from tracker.verbs import MAX_COPIES
from tracker.wording import change_line, describe, dice_words



class Store(Protocol):
    """What a session needs from persistence (see tracker.persistence.store): a change
    to the encounter it holds, under the file's lock; `install` is told the encounter
    to hold from now on (others' changes folded in, or the file read again)."""

    def transaction(self, encounter: Encounter, install: Callable[[Encounter], None]) -> ContextManager[Encounter]: ...


class _Replay:
    """A player's faces, in the order they were rolled, then fresh dice (an edited approval)."""

    def __init__(self, faces: list[int], then: DiceSource, seq: int) -> None:
        self.faces, self.then, self.seq, self.used = list(faces), then, seq, 0

    def roll(self, sides: int) -> int:
        if self.used >= len(self.faces):
            return self.then.roll(sides)
        face = self.faces[self.used]
        self.used += 1
        if not 1 <= face <= sides:
            raise CommandError(
                f"approve {self.seq}: the edited action rolls a d{sides} as die {self.used}, where the player "
                f"rolled {face}; give the dice with faces="
            )
        return face


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one command did: the event it recorded (if any) and the lines to show."""

    event: Event | None
    lines: list[str]


def _not_the_end(target: Event, verb: str) -> None:
    """A campaign's end of a fight is the campaign's to take back (tracker.campaign.fights.walk),
    never the fight's own undo: the party's state went back with it."""
    if target.kind == "end":
        raise RuleRefusal("campaign", f"{verb}: this fight's end belongs to its campaign {target.args.get('campaign')}: `tracker campaign {verb}` takes it back (while nothing later in the campaign depends on it)")


def _fmt_amount(value: int | float) -> str:
    return f"{value:g}"


def _asked(params: dict[str, Any] | None, pt: int | None) -> dict[str, Any]:
    """A declaration's modifiers and pt as plain data, kept in the declaration (the form
    offers "the same again" from it: tracker.recent) and in a proposal, so the GM can
    approve it edited (re-resolved with the player's dice)."""
    out: dict[str, Any] = {}
    kept = {k: v for k, v in (params or {}).items() if isinstance(v, (str, int, float, bool))}
    if kept:
        out["params"] = kept
    if pt is not None:
        out["pt"] = pt
    return out


def _check_side(enc: Encounter, side: str, what: str) -> None:
    """Refuse a side that looks like another side in the fight, or like a word that marks
    the players' side ("party", "PCs": tracker.viewing), without being it: the fight's
    figures are counted by side, and enemies' resources are shown to viewers by it."""
    if side:
        refuse_lookalike(side, {c.side: None for c in enc.combatants.values() if c.side}, what, "a side in the fight")
        refuse_lookalike(side, sorted(PLAYER_SIDES), what, "a word that marks the players' side")


# The command language's verbs (tracker.verbs), under the name the help and tests know.
COMMANDS = verbs.VERBS


class Session:
    def __init__(
        self,
        encounter: Encounter,
        ruleset: Ruleset,
        dice: DiceSource | None = None,
        store: Store | None = None,
        user: str = "",
        role: Role | None = None,
        library: Library | None = None,
    ) -> None:
        self.encounter = encounter
        self.ruleset = ruleset
        self.dice: DiceSource = dice if dice is not None else RandomDice()
        self.store = store
        # The ruleset's sheets, handed in by whoever opened the save (they know its
        # folder: `Library.in_folder`); None for an encounter not saved in a file.
        self.sheet_library = library
        self.user = user
        # Decided by whoever starts the session, never by a command (tracker.roles).
        self._role: Role = Role.gm()
        self._following: Role = self._role
        self._seen: Encounter | None = None  # the state `_following` was worked out for
        self._seen_key = (-1, -1)
        self.role = role if role is not None else Role.gm()
        self._recorder: Recorder | None = None
        self._asked: dict[str, Any] = {}  # the last declaration's modifiers and pt, for a proposal
        # The chances the declare form computed, by request: a commit records the one the
        # form showed without computing it again (an exact chance may take a while).
        self._chances: dict[tuple[Any, ...], Fraction | None] = {}
        self._marked: list[bool] | None = None  # which faces of the next declaration the app rolled

    @property
    def role(self) -> Role:
        """The session's role as the encounter stands now: a player's combatants held by
        identity follow a rename (and a newcomer reusing an old name is not theirs).
        Worked out again only when the encounter or its events change."""
        enc = self.encounter
        key = (len(enc.events), len(enc.combatants))
        if self._seen is not enc or self._seen_key != key:
            self._following = self._role.following(enc)
            self._seen, self._seen_key = enc, key
        return self._following

    @role.setter
    def role(self, role: Role) -> None:
        self._role = self._following = role
        self._seen = None
        self._seen_key = (-1, -1)

    @property
    def by(self) -> str:
        """What this session's changes are signed with (`Event.by`)."""
        return self.role.signature(self.user)

    # ----------------------------------------------------------------- role
    def guard(self, enc: Encounter, event: Event) -> None:
        """Refuse, changing nothing, a change this session's role may not make.

        Every change passes here (from `submit`), whatever screen or command built it."""
        role = self.role
        if role.is_gm:
            return
        kind, args = event.kind, event.args
        if role.is_viewer:
            raise role.refuse(kind)
        check = kinds.guard_of(kind)  # what the table of kinds says a player's event needs
        if check == kinds.OWN_ACTOR:
            actor = str(args.get("actor", ""))
            for target in args.get("targets") or ():
                self.lookup(str(target), enc)  # a hidden one is unknown to a player
            if not role.owns(actor):
                raise RuleRefusal(
                    "player",
                    f"{kind if kind != 'propose' else args.get('action')} {actor}: not your combatant; "
                    f"a player declares only for their own ({', '.join(role.combatants)})",
                )
            if args.get("secret"):
                raise RuleRefusal("player", "secret rolls are the GM's: a player's roll is seen by the table")
            return
        if check == kinds.NOT_SECRET:  # anyone at the table rolls; only the GM in secret
            if args.get("secret"):
                raise RuleRefusal("player", "secret rolls are the GM's: a player's roll is seen by the table")
            return
        if check == kinds.OWN_PROPOSAL:
            p = enc.proposal(args.get("target", 0))
            if not role.owns(p.actor) or enc.events[p.seq - 1].by != self.by:
                raise RuleRefusal("player", f"takeback: proposal {p.seq} is not yours")
            return
        if check == kinds.OWN_LAST:
            target = enc.undo_target() if kind == "undo" else enc.redo_target()
            if target is None:
                return  # the engine says "nothing to undo"
            if target.kind not in PLAYER_KINDS or target.by != self.by:
                # Whose it is, never what it is: it may be a secret roll or about a hidden
                # combatant (a player reads the log for what they may see of it).
                whose = "another player's" if is_players(target.by) else "the GM's"
                raise RuleRefusal(
                    "player",
                    f"{kind}: a player takes back only their own last declaration, before anything else "
                    f"happens; the latest change is {whose} (change {target.seq})",
                )
            return
        raise role.refuse(kind)

    def lookup(self, name: str, enc: Encounter | None = None) -> Any:
        """`encounter.combatant(name)` as this role may know it: to a player (or viewer) a
        hidden combatant not their own is unknown, and the refusal lists only those they see."""
        enc = enc if enc is not None else self.encounter
        if self.role.is_gm:
            return enc.combatant(name)
        view = sight(enc, self.role)
        try:
            found = enc.combatant(name)
        except TrackerError:
            found = None
        if found is None or not view.knows(found):
            raise no_such_combatant(name, view.names())
        return found

    def _as_seen(self, exc: TrackerError, enc: Encounter) -> TrackerError:
        """A refusal naming the combatants, for a player: hidden ones left out."""
        text = str(exc)
        if self.role.is_gm or type(exc) is not TrackerError or "(combatants: " not in text:
            return exc
        head = text[: text.rindex("(combatants: ")]
        return TrackerError(f"{head}(combatants: {listed(sight(enc, self.role).names())})")

    def _refuse_before_dice(self, kind: str, actor: str = "") -> None:
        role = self.role
        if role.is_gm:
            return
        if role.is_viewer:
            raise role.refuse(kind or "change")
        if kind and kinds.guard_of(kind) == kinds.GM_ONLY:
            raise role.refuse(kind)
        if actor and kind in PLAYER_KINDS and not role.owns(actor):
            raise RuleRefusal(
                "player", f"{kind} {actor}: not your combatant; a player declares only for their own ({', '.join(role.combatants)})"
            )

    def _propose_instead(self, enc: Encounter, event: Event) -> Event:
        """Under `player_declarations = "approval"`, a player's declaration waits for the GM."""
        if (
            not self.role.is_player
            or event.kind not in kinds.PROPOSABLE
            or enc.table.get(table.PLAYER_DECLARATIONS) != table.APPROVAL
        ):
            return event
        args: dict[str, Any] = {"action": event.kind, **event.args, **self._asked}
        if self._recorder is not None and self._recorder.faces:
            args["faces"] = list(self._recorder.faces)
        return Event("propose", args)

    # ----------------------------------------------------------------- core
    def submit(self, build: Callable[[Encounter], Event], *, kind: str = "", actor: str = "") -> Outcome:
        """Build an event against the freshest state, apply it, save, all under the store's lock.

        `kind` (and `actor`) say early what the change will be, so a role that may not
        make it hears why before any dice are rolled; `guard` checks the built event."""
        self._refuse_before_dice(kind, actor)
        if actor and not self.role.is_gm:
            self.lookup(actor)  # a hidden combatant's name is not confirmed to a player
        context = self.store.transaction(self.encounter, self._hold) if self.store is not None else nullcontext()
        with context:
            encounter = self.encounter
            if kind not in ("undo", "redo"):
                encounter.check_open()
            before = len(encounter.log)
            self._recorder, self._asked = None, {}
            try:
                built = build(encounter)
            except TrackerError as exc:
                raise self._as_seen(exc, encounter) from None
            event = self._propose_instead(encounter, built)
            self.guard(encounter, event)
            # A player's or viewer's change is always signed with its role, whatever the builder said.
            event.by = (event.by or self.by) if self.role.is_gm else self.by
            target = encounter.undo_target() if event.kind == "undo" else None
            # Undo: say it while the change's log lines still exist; redo: once they do again.
            taken = change_line(encounter, target, self.by) if target is not None else ""
            encounter.apply(event)
            if event.kind == "redo":
                index = event.args.get("target", 0) - 1  # events are numbered from 1 in order
                taken = change_line(encounter, encounter.events[index], self.by) if 0 <= index < len(encounter.events) else ""
            lines = [entry.text for entry in encounter.log[before:]]
        if event.kind in ("undo", "redo"):
            lines = [f"{event.kind}: {taken}" if taken else f"{event.kind} of change {event.args['target']}"]
        return Outcome(event, lines)

    def _hold(self, encounter: Encounter) -> None:
        """Hold the encounter the store read (others' changes folded in, or the file
        read again after a change that was not saved)."""
        self.encounter = encounter

    def execute(self, line: str) -> Outcome:
        """Run one line of the command language: the verb's row (tracker.verbs) reads the
        words, then its typed method here does the rest, through the role guard."""
        refuse_controls(line.replace("\t", " "), "command")
        call = verbs.read(line)
        outcome: Outcome = getattr(self, call.method)(*call.args, **call.kwargs)
        return outcome

    # ----------------------------------------------------------------- roster
    def add(self, name: str, values: dict[str, Any], *, side: str = "", hidden: bool = False, surprised_until: int = 0, copies: int = 1) -> Outcome:
        """Add one combatant, or `copies` numbered ones ("Goblin 1".."Goblin 4") as one change."""
        name = name.strip()
        if not name:
            raise CommandError("add: a combatant needs a name")
        check_name(name, "add: name")
        refuse_controls(side, "add: side")
        refuse_blank(side, "add: side")
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
            _check_side(enc, side, "add: side")
            if copies == 1:
                enc.check_new_name(name)
                refuse_lookalike(name, enc.combatants, "add: name")
                return Event("add", data)
            names = self._numbered(enc, name, copies)
            check_name(names[-1], "add: name")  # the longest: "Goblin 12" is wider than "Goblin"
            for each in (name, *names):  # "Gоblin" x3 beside "Goblin": the copies' name looks like it
                refuse_lookalike(each, enc.combatants, "add: name")
            return Event("add", {**data, "names": names})

        return self.submit(build, kind="add")

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

    def rename(self, name: str, new: str) -> Outcome:
        new = new.strip()
        if not new:
            raise CommandError("rename: the new name is empty")
        check_name(new, "rename: new name")

        def build(enc: Encounter) -> Event:
            c = enc.combatant(name)
            enc.check_new_name(new, keep=c.name)
            if new == c.name:
                raise CommandError(f"rename: {c.name} already has that name")
            refuse_lookalike(new, (other for other in enc.combatants if other != c.name), "rename: new name")
            return Event("rename", {"target": c.name, "name": new})

        return self.submit(build, kind="rename")

    def set_side(self, name: str, side: str) -> Outcome:
        side = side.strip()
        refuse_controls(side, "side")
        refuse_blank(side, "side")

        def build(enc: Encounter) -> Event:
            c = enc.combatant(name)
            _check_side(enc, side, "side")
            return Event("side", {"target": c.name, "side": side})

        return self.submit(build, kind="side")

    def reorder(self, name: str, position: int) -> Outcome:
        def build(enc: Encounter) -> Event:
            c = enc.combatant(name)
            if not 1 <= position <= len(enc.combatants):
                raise CommandError(f"reorder: position: expected 1 to {len(enc.combatants)}, got {position}")
            return Event("reorder", {"target": c.name, "position": position})

        return self.submit(build, kind="reorder")

    # ----------------------------------------------------------------- library
    def library(self) -> Library:
        """The ruleset's sheet library in the saves folder (handed in at the start)."""
        if not self.role.is_gm:
            raise self.role.refuse("library")
        if self.sheet_library is None:
            raise CommandError("library: this encounter has no saves folder (it is not saved in a file)")
        return self.sheet_library

    def save_sheet(self, name: str, entry: str | None = None) -> Outcome:
        sheet = sheet_of(self.encounter, name, entry)
        library = self.library()
        library.put(sheet)
        return Outcome(None, [printable(f"{sheet.name}: sheet saved in {library.path.name}")])

    def add_from_library(self, entry: str, name: str | None = None, *, copies: int = 1, side: str | None = None, hidden: bool = False) -> Outcome:
        sheet = self.library().get(entry)
        return self.add(name or sheet.name, sheet.values(), side=sheet.side if side is None else side, hidden=hidden, copies=copies)

    def library_sheets(self) -> Outcome:
        """`library`: the sheets kept in the library."""
        library = self.library()
        names = library.names()
        return Outcome(None, [printable(f"{library.path.name}: {', '.join(names) if names else 'no sheets yet (library save NAME)'}")])

    def delete_sheet(self, entry: str) -> Outcome:
        library = self.library()
        library.delete(entry)
        return Outcome(None, [printable(f"{entry}: sheet deleted from {library.path.name}")])

    def remove(self, name: str) -> Outcome:
        return self.submit(lambda enc: Event("remove", {"name": enc.combatant(name).name}), kind="remove")

    # ----------------------------------------------------------------- actions
    def request(
        self,
        actor: str,
        template_name: str,
        targets: list[str] | tuple[str, ...] = (),
        params: dict[str, Any] | None = None,
        pt: int | None = None,
        encounter: Encounter | None = None,
        by_player: bool | None = None,
    ) -> tuple[ActionRequest, ActionTemplate]:
        """An ActionRequest for the adapter, with validated parameters; `by_player`: who
        states it (None: this session's role; an approval says whose it is)."""
        enc = encounter or self.encounter
        # As this role knows them: a player is given no odds, and no result, against a
        # hidden combatant (nor a list of every name when one is unknown).
        c = self.lookup(actor, enc)
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
        foes = tuple(self.lookup(t, enc) for t in targets)
        if template.targets == 1 and len(foes) > 1:
            raise CommandError(f"{template.name} takes one target, not {len(foes)}")
        player = self.role.is_player if by_player is None else by_player
        request = ActionRequest(template, c, foes, coerced, enc.now, enc.setup.settings, None, pt, enc, player)
        return request, template

    def chance(self, actor: str, template: str, targets: list[str] | tuple[str, ...] = (), params: dict[str, Any] | None = None) -> Fraction | None:
        """The exact chance the action would succeed, for the declare form."""
        request, _ = self.request(actor, template, targets, params)
        return self.chance_of(request)

    def chance_of(self, request: ActionRequest) -> Fraction | None:
        """The adapter's exact chance for `request`, remembered for the latest few
        requests (the form asks as you type, the commit asks again for the event)."""
        enc = request.encounter
        key = (
            id(enc), len(enc.events) if enc is not None else 0, request.segment, request.template.name,
            request.actor.name, tuple(t.name for t in request.targets), repr(sorted(request.params.items())),
            request.pt, id(request.previous),
        )
        known = self._chances.get(key, self._chances)  # one lookup: the form asks from a worker thread
        if known is not self._chances:
            return known  # type: ignore[return-value]
        chance = self.ruleset.chance_of(request)
        if len(self._chances) >= 16:
            self._chances.clear()
        self._chances[key] = chance
        return chance

    def _chance_shown(self, request: ActionRequest) -> str | None:
        """The chance the declare form showed for this request, kept in the event as
        "n/d" (exact; `tracker stats` weighs each side's luck against it), or None
        where there is no roll. A chance that cannot be computed is left out rather
        than refusing the declaration: the form shows "-" for it too."""
        try:
            chance = self.chance_of(request)
        except Exception:  # noqa: BLE001 - the same tolerance as the form's chance line (declare.py)
            return None
        return None if chance is None else f"{chance.numerator}/{chance.denominator}"

    def app_roll(self, sides: list[int] | tuple[int, ...], drawn: int = 0, actor: str = "") -> list[int]:
        """The app's dice for a declare form (its "roll" key), one face per die.

        For a player they stand (tracker.player_dice): `actor`'s next draw, from die
        `drawn` (how many of the app's faces the asking form already holds), the same
        however often the form is closed or the declaration taken back; only the GM's
        `reroll` moves it on. The GM's are rolled afresh."""
        if not self.role.is_player:
            return [self.dice.roll(s) for s in sides]
        return player_dice.serve(self.encounter.setup, self.lookup(actor), sides, drawn)

    def mark_dice(self, rolled: list[bool] | None) -> None:
        """Say which of the next declaration's `faces` the app rolled (the declare form
        calls this); unsaid, typed faces count as typed."""
        self._marked = rolled

    def _dice_mark(self, enc: Encounter, c: Any, recorder: Recorder, typed: TypedFaces | None) -> tuple[str, int | None]:
        """Who decided the faces ("typed", "app" or "typed+app", shown to the GM and the
        table in the proposal, the log and the approval screen) and, for a player's app
        dice, the draw they came from (tracker.player_dice)."""
        marked, self._marked = self._marked, None
        player = self.role.is_player
        if typed is None:  # the session rolled them all
            return "app", (draws.next_draw(c) if player else None)
        faces = list(typed.faces)
        if not marked or len(marked) != len(faces):  # not said for these faces: typed
            return "typed", None
        app = [bool(m) for m in marked]
        if player:
            app = player_dice.served(enc.setup, c, faces, recorder.sides, app)
        mark = "app" if all(app) else "typed" if not any(app) else "typed+app"
        return mark, (draws.next_draw(c) if player and any(app) else None)

    def _check_cap(self, enc: Encounter, params: Mapping[str, Any]) -> None:
        """A player's freeform `damage=` above the table's cap is refused (the GM's never)."""
        cap = table.damage_cap(enc.table)
        amount = params.get("damage")
        if cap is None or not self.role.is_player or not isinstance(amount, (int, float)) or isinstance(amount, bool):
            return
        if amount > cap:
            raise RuleRefusal("damage cap", f"damage={_fmt_amount(amount)}: the GM caps a player's damage at {cap} (setting player_damage_cap)")

    def _dice(self, faces: str | list[int] | None, enc: Encounter, c: Any) -> tuple[Recorder, TypedFaces | None]:
        """The dice a declaration resolves with: the faces typed, else the app's (for a
        player, `c`'s next draw, which stands: tracker.player_dice)."""
        if faces is None or faces == "":
            source = player_dice.stream(enc.setup, c, draws.next_draw(c)) if self.role.is_player else self.dice
            self._recorder = Recorder(source)
            return self._recorder, None
        typed = TypedFaces(parse_faces(faces) if isinstance(faces, str) else faces)
        self._recorder = Recorder(typed)
        return self._recorder, typed

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
        if not template.strip():
            raise CommandError("declare: the action is empty")
        check_name(template.strip(), "declare: action")  # freeform keeps any action name typed
        return self.submit(lambda enc: self._declare_event(enc, actor, template, targets, pt, faces, params, secret), kind="declare", actor=actor)

    def _declare_event(
        self,
        enc: Encounter,
        actor: str,
        template: str,
        targets: list[str] | tuple[str, ...],
        pt: int | None,
        faces: str | list[int] | None,
        params: dict[str, Any] | None,
        secret: bool,
        source: DiceSource | None = None,
        by_player: bool | None = None,
    ) -> Event:
        request, tmpl = self.request(actor, template, targets, params, pt, enc, by_player)
        self._check_cap(enc, request.params)
        # The checked params may fill in a mode (Brand X: dropping a power is passive).
        mode = request.params.get("mode") or (params or {}).get("mode") or tmpl.mode
        enc.check_initiation(request.actor, tmpl.name, mode, tmpl.companions)
        if source is None:
            dice, typed = self._dice(faces, enc, request.actor)
        else:
            dice, typed = Recorder(source), None
        chance = self._chance_shown(request)
        resolution = self.ruleset.resolve(request, for_actor(dice, request.actor.name))
        self._all_used(typed)
        self._asked = _asked(params, pt)
        mark, draw = self._dice_mark(enc, request.actor, dice, typed) if source is None else ("app", None)
        return Event(
            "declare",
            {
                "actor": request.actor.name,
                "template": tmpl.name,
                "mode": mode,
                "targets": [t.name for t in request.targets],
                "companions": list(tmpl.companions),
                "maintainable": bool(request.params.get("maintainable", self.ruleset.maintainable(tmpl, request.settings))),
                "secret": secret or None,
                "chance": chance,
                "dice": mark,
                "resolution": resolution,
                **self._asked,  # what was asked (modifiers, PT): "the same again" reads it
                **({"draw": draw} if draw is not None else {}),
            },
        )

    def maintain(
        self, actor: str, *, pt: int | None = None, faces: str | list[int] | None = None, params: dict[str, Any] | None = None, kept: bool = True
    ) -> Outcome:
        """Maintain `actor`'s action that completed now. `kept`: the link starts from that
        action's own modifiers, `params` over them (the command line); False: `params`
        are the link's in full (the maintain form, which opened filled with them)."""
        return self.submit(lambda enc: self._maintain_event(enc, actor, pt, faces, params, kept=kept), kind="maintain", actor=actor)

    def _maintain_event(
        self,
        enc: Encounter,
        actor: str,
        pt: int | None,
        faces: str | list[int] | None,
        params: dict[str, Any] | None,
        source: DiceSource | None = None,
        by_player: bool | None = None,
        *,
        kept: bool = True,
    ) -> Event:
        request, stated = self.maintain_request(actor, params, pt, enc, kept=kept, by_player=by_player)
        c = request.actor
        if source is None:
            dice, typed = self._dice(faces, enc, c)
        else:
            dice, typed = Recorder(source), None
        chance = self._chance_shown(request)
        resolution = self.ruleset.maintain(request, for_actor(dice, c.name))
        self._all_used(typed)
        self._asked = _asked(stated, pt)
        mark, draw = self._dice_mark(enc, c, dice, typed) if source is None else ("app", None)
        # What was asked is kept as a declaration's is: the next link starts from it.
        args: dict[str, Any] = {"actor": c.name, "chance": chance, "resolution": resolution, "dice": mark, **self._asked}
        if draw is not None:
            args["draw"] = draw
        return Event("maintain", args)

    def maintain_request(
        self, actor: str, params: Mapping[str, Any] | None = None, pt: int | None = None, encounter: Encounter | None = None,
        *, kept: bool = True, by_player: bool | None = None,
    ) -> tuple[ActionRequest, dict[str, Any]]:
        """The adapter request maintaining `actor`'s action would make, and the modifiers
        stated for the link: with `kept`, the maintained action's own
        (`recent.link_params`) with `params` over them; else `params` alone. Refused at
        once where the game maintains nothing."""
        enc = encounter or self.encounter
        c = enc.combatant(actor)
        if not self.ruleset.maintains(enc.setup.settings):
            raise RuleRefusal(
                "maintained attack",
                f"{self.ruleset.name}'s attacks are not maintained: its rules have no maintained attack; "
                f"declare {c.name}'s next attack instead",
            )
        prev = enc.maintainable_action(c)
        enc.check_initiation(c, prev.template, ACTIVE)
        template = self.ruleset.template(prev.template)
        from tracker import recent  # a maintained link's parameters (start-up time)

        stated: dict[str, Any] = {**(recent.link_params(prev, template) if kept else {}), **(params or {})}
        for key, value in stated.items():
            if isinstance(value, str):
                refuse_controls(value, f"maintain: {key}")
        coerced = self.ruleset.params(template, stated, f"maintain {template.name}")
        targets = tuple(enc.combatant(t) for t in prev.targets if t in enc.combatants)
        player = self.role.is_player if by_player is None else by_player
        return ActionRequest(template, c, targets, coerced, enc.now, enc.setup.settings, prev, pt, enc, player), stated

    def abort(self, actor: str, template: str | None = None) -> Outcome:
        def build(enc: Encounter) -> Event:
            args: dict[str, Any] = {"actor": enc.combatant(actor).name}
            if template:
                args["template"] = template
            return Event("abort", args)

        return self.submit(build, kind="abort", actor=actor)

    # ----------------------------------------------------------------- changes
    def default_resource(self, name: str, encounter: Encounter | None = None) -> str:
        c = (encounter or self.encounter).combatant(name)
        for key in self.ruleset.down_when:
            if key in c.resources:
                return key
        if c.resources:
            return next(iter(c.resources))
        raise CommandError(f"{c.name} has no resources to damage")

    def chosen(self, names: str, enc: Encounter | None = None) -> list[Any]:
        """The combatants `names` means: one name, a comma list ("Goblin 1,Goblin 2") or
        globs over names ("Goblin*", "Orc ?"), matched ignoring case, each once, in roster
        order for a glob. A glob sees only the combatants this role may know (`sight`), so
        it never matches, or reveals, a hidden one to a player; a glob matching no one and
        an unknown name are refused."""
        enc = enc if enc is not None else self.encounter
        found: list[Any] = []
        seen: set[str] = set()
        for part in (p.strip() for p in names.split(",")):
            if not part:
                raise CommandError(f"{names!r}: an empty name in the list (names are separated by commas)")
            if any(ch in part for ch in "*?["):
                known = sight(enc, self.role).combatants()
                pattern = part.casefold()
                matched = [c for c in known if fnmatchcase(c.name.casefold(), pattern)]
                if not matched:
                    listed = ", ".join(c.name for c in known) or "none yet"
                    raise CommandError(f"{part!r} matches no combatant (combatants: {listed})")
            else:
                matched = [self.lookup(part, enc)]
            # a name and a glob may both reach one combatant ("Goblin 1,Goblin*"): it is
            # hurt once, so the event never names a target twice (tracker.engine.changes)
            found.extend(c for c in matched if c.name not in seen)
            seen.update(c.name for c in matched)
        return found

    def damage(self, name: str, amount: int | float, resource: str | None = None) -> Outcome:
        """Damage (or, negative, heal) through the ruleset's damage rule, as a blow lands:
        Brand X VP overflows to DP. Healing past the sheet's value is refused unless
        the ruleset allows it.

        `name` may be several (`chosen`): each combatant goes through the damage rule
        with its own sheet, all in one event that one undo takes back; if any one is
        refused, none is hurt and the refusal names which."""

        def one(c: Any) -> dict[str, Any]:
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
            if rule.resource not in c.resources:
                raise CommandError(f"{c.name} has no resource {rule.resource!r} (has: {', '.join(c.resources) or 'none'})")
            args: dict[str, Any] = {"target": c.name, "resource": rule.resource}
            if rule.overflow and amount > 0:
                args["overflow"] = rule.overflow
            return args

        def build(enc: Encounter) -> Event:
            each = [one(c) for c in self.chosen(name, enc)]
            first = each[0]
            args: dict[str, Any] = {"target": first.pop("target"), "amount": amount, **first}
            if len(each) > 1:
                args["also"] = each[1:]
            return Event("damage", args)

        return self.submit(build, kind="damage")

    def heal(self, name: str, amount: int | float, resource: str | None = None) -> Outcome:
        """`damage` by a negative amount."""
        return self.damage(name, -amount, resource)

    def set_value(self, name: str, key: str, raw: str) -> Outcome:
        """`set NAME KEY VALUE`: `raw` as typed, checked against the sheet."""
        refuse_controls(key, "set: key")
        return self.submit(lambda enc: self._set_event(enc, name, key, raw), kind="set")

    def _set_event(self, enc: Encounter, name: str, key: str, raw: str) -> Event:
        """A `set`, its value checked against the sheet: a resource takes a number, a
        stat its field's type and bounds (the adapter's `check_sheet`)."""
        c = enc.combatant(name)
        where = f"set {c.name} {key}"
        stat_fields = {f.name: f for f in self.ruleset.stat_fields()}
        is_resource = key not in stat_fields and (
            key in c.resources or (key not in c.stats and key in {f.name for f in self.ruleset.resource_fields()}))
        value: Any
        if key in stat_fields:
            # The sheet's field checks it as the add did (a D6 die code, a bounded number),
            # whether or not the combatant had it at creation.
            value = stat_fields[key].coerce(raw, where)
            checked, _ = self.ruleset.check_sheet({key: value}, {}, where)
            value = checked[key]
        elif is_resource:
            value = verbs.number(raw, where)
            _, checked = self.ruleset.check_sheet({}, {key: value}, where)
            value = checked[key]
        else:
            try:
                value = verbs.number(raw, where)
            except TrackerError:
                value = raw
            if key not in c.stats:
                # Not on the sheet: adapters with a fixed sheet refuse it, freeform takes it.
                stats, resources = self.ruleset.check_sheet({key: value} if isinstance(value, str) else {}, {} if isinstance(value, str) else {key: value}, where)
                is_resource = key in resources
                value = {**stats, **resources}[key]
            elif isinstance(c.stats[key], (int, float)) and not isinstance(c.stats[key], bool) and isinstance(value, str):
                raise CommandError(f"{where}: expected a number, got {raw!r}")
        if isinstance(value, str):
            refuse_controls(value, where)
        bounds.value(value, where)
        args: dict[str, Any] = {"target": c.name, "key": key, "value": value}
        if not is_resource:
            # Said in the event, not left to the engine to guess from what the sheet holds
            # now: a stat left blank at creation is not yet among the combatant's stats.
            args["stat"] = True
        return Event("set", args)

    def condition(self, names: str, condition: str, duration: int) -> Outcome:
        """A condition on one combatant or several (`chosen`), as one change."""
        refuse_controls(condition, "condition")

        def build(enc: Encounter) -> Event:
            found = [c.name for c in self.chosen(names, enc)]
            args: dict[str, Any] = {"target": found[0], "name": condition, "duration": duration}
            if len(found) > 1:
                args["also"] = found[1:]
            return Event("condition", args)

        return self.submit(build, kind="condition")

    def surprise(self, name: str, until: int) -> Outcome:
        return self.submit(lambda enc: Event("surprise", {"target": enc.combatant(name).name, "until": until}), kind="surprise")

    def hide(self, name: str, hidden: bool = True) -> Outcome:
        return self.submit(lambda enc: Event("hide", {"target": enc.combatant(name).name, "hidden": hidden}), kind="hide")

    def unhide(self, name: str) -> Outcome:
        return self.hide(name, False)

    def keep(self, name: str) -> Outcome:
        """Let `name`'s action interrupted by throwback stand."""
        return self.submit(lambda enc: Event("keep", {"target": enc.combatant(name).name}), kind="keep")

    def schedule(self, at: int, text: str) -> Outcome:
        """Something that happens on segment `at`, said in the log then."""
        refuse_controls(text, "schedule: text")
        return self.submit(lambda enc: Event("schedule", {"at": at, "text": text}), kind="schedule")

    def note(self, text: str) -> Outcome:
        if not text:
            raise CommandError("usage: note TEXT")
        refuse_controls(text, "note")
        return self.submit(lambda enc: Event("note", {"text": text}), kind="note")

    def roll(self, spec: str, *, secret: bool = False) -> Outcome:
        """A table roll, by the GM or a player, in the game's own notation: the ruleset's
        (`tracker roll`'s: ORE `5d+1wd`, D6 `3D+1`, OGS `3d6`, a Brand X target), else
        plain dice (`2d10`, `3d6+2`, rulesets.dice.plain_roll). Rolled through the
        session's dice source and saved as a `roll` event: everyone's log shows it, signed
        with who rolled when the table is shared; a GM's may be secret (viewers and
        players then see nothing of it). It changes nothing else."""
        spec = spec.strip()
        if not spec:
            raise CommandError("usage: roll DICE [secret=true] (the game's notation, or dice such as 2d10)")
        refuse_controls(spec, "roll")
        if secret and not self.role.is_gm:
            raise RuleRefusal("player", "secret rolls are the GM's: a player's roll is seen by the table")

        def build(enc: Encounter) -> Event:
            try:
                result = self.ruleset.roll(spec, self.dice)
                faces, text = list(result.dice), result.text
            except TrackerError as game:
                try:
                    faces, text = plain_roll(spec, self.dice, MAX_TABLE_DICE, MAX_TABLE_SIDES)
                except TrackerError:
                    raise CommandError(f"roll: {game}; or plain dice such as 2d10 or 3d6+2") from None
            if not text.startswith(spec):
                text = f"{spec}: {text}"
            args: dict[str, Any] = {"spec": spec, "dice": faces, "text": text}
            if secret:
                args["secret"] = True
            return Event("roll", args)

        return self.submit(build, kind="roll")

    # ----------------------------------------------------------------- time
    def next(self) -> Outcome:
        def build(enc: Encounter) -> Event:
            to = enc.next_happening()
            if to is None:
                raise RuleRefusal("next", "nothing is scheduled: declare an action, or step")
            return Event("advance", {"to": to})

        return self.submit(build, kind="advance")

    def step(self, segments: int = 1) -> Outcome:
        if segments < 1:
            raise CommandError(f"step: expected at least 1 segment, got {segments}")

        def build(enc: Encounter) -> Event:
            if enc.now + segments > bounds.MAX_SEGMENT:
                raise CommandError(f"step: the fight would pass segment {bounds.MAX_SEGMENT:,}")
            return Event("advance", {"to": enc.now + segments})

        return self.submit(build, kind="advance")

    def undo(self) -> Outcome:
        def build(enc: Encounter) -> Event:
            target = enc.undo_target()
            if target is None:
                raise RuleRefusal("undo", "nothing to undo")
            _not_the_end(target, "undo")
            return Event("undo", {"target": target.seq})

        return self.submit(build, kind="undo")

    def redo(self) -> Outcome:
        def build(enc: Encounter) -> Event:
            target = enc.redo_target()
            if target is None:
                raise RuleRefusal("redo", "nothing to redo")
            _not_the_end(target, "redo")
            return Event("redo", {"target": target.seq})

        return self.submit(build, kind="redo")

    # ----------------------------------------------------------------- players
    def _by_of(self, enc: Encounter, seq: int) -> str:
        return enc.events[seq - 1].by if 0 < seq <= len(enc.events) else ""

    def proposals(self) -> list[Proposal]:
        """Pending proposals this session may see: all for the GM, a player's own for a player."""
        enc = self.encounter
        if self.role.is_gm:
            return enc.pending()
        if self.role.is_player:
            return [p for p in enc.pending() if self.role.owns(p.actor)]
        return []

    def proposal_line(self, p: Proposal) -> str:
        """'proposal 5: Seraph, punch against Sphinx: Roll 9 vs 11 (player bob)', made visible."""
        roll = p.args.get("resolution")
        detail = f": {roll.summary}" if isinstance(roll, Resolution) and roll.summary else ""
        detail += dice_words(p.args)
        by = self._by_of(self.encounter, p.seq)
        signed = f" ({who(by)})" if by else ""
        return printable(f"proposal {p.seq}: {p.actor}, {p.what()}{detail}{signed}")

    def approve(
        self,
        seq: int,
        *,
        targets: list[str] | tuple[str, ...] | None = None,
        pt: int | None = None,
        faces: str | list[int] | None = None,
        params: dict[str, Any] | None = None,
        secret: bool = False,
    ) -> Outcome:
        """Apply proposal `seq`. With edits (targets, pt, modifiers) the action is resolved
        again with the player's dice, in the order they were rolled; dice the edited roll
        needs beyond those are rolled by this session, unless `faces` gives them all.
        `secret`: the GM makes a declaration's roll secret, as in a declaration of their own
        (a player proposes in the open: a secret roll is the GM's)."""
        edited = targets is not None or pt is not None or bool(faces) or bool(params) or secret

        def build(enc: Encounter) -> Event:
            p = enc.proposal(seq)
            if p.status != PENDING or not edited:
                return Event("approve", {"target": seq})  # the engine says why, if it is not pending
            if p.action == "abort":
                raise CommandError(f"approve {seq}: an abort has nothing to edit; approve it as it is")
            if secret and p.action != "declare":
                raise CommandError(f"approve {seq}: secret: only a declaration's roll may be made secret, not a {p.action}'s")
            merged = {**p.args.get("params", {}), **(params or {})}
            use_pt = pt if pt is not None else p.args.get("pt")
            source = None if faces else _Replay(enc.events[p.seq - 1].args.get("faces", []), self.dice, seq)
            # The player states what they declared unless the GM changed a modifier (a
            # freeform damage=): then the outcome is the GM's.
            theirs = merged == p.args.get("params", {})
            if p.action == "declare":
                aim = list(targets) if targets is not None else list(p.args.get("targets", ()))
                event = self._declare_event(enc, p.actor, p.args["template"], aim, use_pt, faces, merged, secret or bool(p.args.get("secret")), source, theirs)
            else:
                # The proposal holds the link's modifiers in full (the player's session
                # started them from the maintained action's): edits go over them.
                event = self._maintain_event(enc, p.actor, use_pt, faces, merged, source, theirs, kept=False)
            args: dict[str, Any] = {"target": seq, **event.args}  # what was asked included (`_asked`)
            return Event("approve", args)

        return self.submit(build, kind="approve")

    def show_proposals(self) -> Outcome:
        """`proposals`: the waiting ones this session may see, one line each."""
        if self.role.is_viewer:
            raise self.role.refuse("proposals")
        found = self.proposals()
        if not found:
            mode = self.encounter.table.get(table.PLAYER_DECLARATIONS, table.AT_ONCE)
            return Outcome(None, [f"no proposals waiting (player_declarations is {mode})"])
        return Outcome(None, [self.proposal_line(p) for p in found])

    def refuse(self, seq: int, reason: str = "") -> Outcome:
        """Refuse proposal `seq`; the player sees the reason."""
        reason = reason.strip()
        refuse_controls(reason, "refuse: reason")
        return self.submit(lambda enc: Event("refuse", {"target": seq, "reason": reason or None}), kind="refuse")

    def takeback(self) -> Outcome:
        """Take back this session's own last declaration: a pending proposal is withdrawn;
        a declaration applied at once is undone, if it is still the latest change (time
        has not moved and nobody has changed the fight since)."""

        def build(enc: Encounter) -> Event:
            mine = [p for p in enc.pending() if self._by_of(enc, p.seq) == self.by]
            if mine:
                return Event("withdraw", {"target": mine[-1].seq})
            top = enc.undo_target()
            if top is not None and top.by == self.by and top.kind in kinds.PROPOSABLE:
                return Event("undo", {"target": top.seq})
            own = [e for e in enc.effective_events() if e.by == self.by and e.kind in kinds.PROPOSABLE]
            if not own:
                raise RuleRefusal("take back", "nothing of yours to take back")
            # The latest change by whose and its number only: it may be the GM's secret.
            latest = f"change {top.seq}, {who(top.by) if top.by else 'the GM'}'s" if top is not None else "?"
            raise RuleRefusal(
                "take back",
                f"{printable(describe(own[-1], by=False))}: the fight has changed since (latest: {printable(latest)}); ask the GM",
            )

        return self.submit(build, kind="withdraw")

    # ----------------------------------------------------------------- campaigns
    def _fight_file(self, what: str) -> Path:
        path = getattr(self.store, "path", None)
        if not isinstance(path, Path):
            raise RuleRefusal("campaign", f"{what}: this fight is not kept in a file")
        flush = getattr(self.store, "flush", None)
        if flush is not None:
            flush()  # the app's queued changes reach the file before the end reads and writes it
        return path

    def end_preview(self, outcome: str = "") -> Preview:
        """What ending this campaign fight would send back to the campaign (nothing changes)."""
        if not self.role.is_gm:
            raise self.role.refuse("end")
        return fights.preview(self._fight_file("end"), outcome)

    def end_fight(self, outcome: str = "", expect: Preview | None = None) -> Outcome:
        """End this campaign fight (tracker.campaign.fights.end): the party's state goes back
        to the campaign and the fight closes. With `expect` (the preview the GM confirmed),
        refused if anything changed since."""
        if not self.role.is_gm:
            raise self.role.refuse("end")
        refuse_controls(outcome, "end: outcome")
        _, shown = fights.end(self._fight_file("end"), self.by, outcome, expect)
        refresh = getattr(self.store, "refresh", None)
        if refresh is not None:
            self.encounter = refresh(self.encounter) or self.encounter
        event = self.encounter.events[-1] if self.encounter.events else None
        return Outcome(event, shown.text().splitlines() + [f"ended: the party of {shown.campaign_name} goes on as shown"])

    def reroll(self, name: str) -> Outcome:
        """Set aside `name`'s standing app dice: its player's next app roll is a new one
        (tracker.player_dice). The GM's alone."""
        return self.submit(lambda enc: Event("reroll", {"target": enc.combatant(name).name}), kind="reroll")

    def setting(self, key: str, value: str) -> Outcome:
        """Change a table setting (tracker.engine.table) during the fight."""
        return self.submit(lambda enc: Event("setting", {"key": key, "value": table.check(key, value, "setting")}), kind="setting")
