"""A session: one encounter, its ruleset adapter, a dice source, and the command language.

The commands are the same whether they come from `tracker play`, the TUI's `:` line or a
key binding (the TUI calls the same methods). Each verb is one row of `tracker.play.verbs`,
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

What a role may do is the seat's `Policy` (tracker.play.policy), the request a
declaration makes is built in one place (tracker.play.requests), its dice rolled and
resolved in another (tracker.play.rolling); the roster's and the sheets' changes are
tracker.play.roster and tracker.play.sheets. The session holds the encounter, submits
each change under the file's lock and passes nothing between its methods on `self`.

Decisions: docs/decisions/0002-session-commands.md, docs/decisions/0060-floors-as-folders.md,
docs/decisions/0043-session-checks-at-the-door.md,
docs/decisions/0049-player-app-dice-stand.md, docs/decisions/0053-maintained-links.md
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ContextManager, Protocol

from pathlib import Path

from tracker.engine import bounds
from tracker.play import player_dice
from tracker.engine import (
    Combatant,
    CommandError,
    Encounter,
    Event,
    Resolution,
    RuleRefusal,
    TrackerError,
)
from tracker.engine.model import PENDING, Proposal
from tracker.engine import kinds, table
from tracker.persistence.library import Library, sheet_of
from tracker.play import requests, rolling, roster, sheets
from tracker.play.policy import Policy
from tracker.reading.roles import Role, who
from rulesets.base import ActionRequest, ActionTemplate, Ruleset
from rulesets.dice import DiceSource, RandomDice, plain_roll
from rulesets.limits import MAX_TABLE_DICE, MAX_TABLE_SIDES
from tracker.engine.text import check_name, refuse_controls, printable
from tracker.play import verbs
from tracker.reading.wording import change_line, describe, dice_words

if TYPE_CHECKING:  # a campaign's fights load when one is ended, not at every start
    from tracker.play.fights import Preview


class Store(Protocol):
    """What a session needs from persistence (see tracker.persistence.store): a change
    to the encounter it holds, under the file's lock; `install` is told the encounter
    to hold from now on (others' changes folded in, or the file read again)."""

    def transaction(self, encounter: Encounter, install: Callable[[Encounter], None]) -> ContextManager[Encounter]: ...


@dataclass(frozen=True, slots=True)
class Declared:
    """A declaration's (or a link's) event and every face it rolled, in order: a player's
    that waits for the GM carries the faces in its proposal (the GM re-resolves an edit
    with them)."""

    event: Event
    faces: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one command did: the event it recorded (if any) and the lines to show."""

    event: Event | None
    lines: list[str]


def _not_the_end(target: Event, verb: str) -> None:
    """A campaign's end of a fight is the campaign's to take back (tracker.play.fights.walk),
    never the fight's own undo: the party's state went back with it."""
    if target.kind == "end":
        raise RuleRefusal("campaign", f"{verb}: this fight's end belongs to its campaign {target.args.get('campaign')}: `tracker campaign {verb}` takes it back (while nothing later in the campaign depends on it)")


# The command language's verbs (tracker.play.verbs), under the name the help and tests know.
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
        # Decided by whoever opens the seat, never by a command (tracker.play.policy).
        self.policy = Policy(role if role is not None else Role.gm())
        # The chances the declare form computed, by request: a commit records the one the
        # form showed without computing it again (an exact chance may take a while).
        self._chances: dict[tuple[Any, ...], Fraction | None] = {}

    @property
    def role(self) -> Role:
        """The seat's role as the encounter stands now (tracker.play.policy)."""
        return self.policy.role_in(self.encounter)

    @role.setter
    def role(self, role: Role) -> None:
        self.policy = Policy(role)

    @property
    def by(self) -> str:
        """What this session's changes are signed with (`Event.by`)."""
        return self.role.signature(self.user)

    def lookup(self, name: str) -> Any:
        """A combatant of the fight as this seat may know it (tracker.play.policy)."""
        return self.policy.lookup(name, self.encounter)

    def _proposal_of(self, enc: Encounter, built: Event | Declared) -> Event:
        """The event to apply: under `player_declarations = "approval"`, a player's
        declaration becomes a proposal that waits for the GM, with its faces."""
        event, faces = (built.event, built.faces) if isinstance(built, Declared) else (built, ())
        if not self.policy.proposes(enc, event.kind):
            return event
        args: dict[str, Any] = {"action": event.kind, **event.args}
        if faces:
            args["faces"] = list(faces)
        return Event("propose", args)

    # ----------------------------------------------------------------- core
    def submit(self, build: Callable[[Encounter], Event | Declared], *, kind: str = "", actor: str = "") -> Outcome:
        """Build an event against the freshest state, apply it, save, all under the store's lock.

        `kind` (and `actor`) say early what the change will be, so a role that may not
        make it hears why before any dice are rolled; `guard` checks the built event."""
        policy = self.policy
        policy.before_dice(self.encounter, kind, actor)
        context = self.store.transaction(self.encounter, self._hold) if self.store is not None else nullcontext()
        with context:
            encounter = self.encounter
            if kind not in ("undo", "redo"):
                encounter.check_open()
            before = len(encounter.log)
            try:
                built = build(encounter)
            except TrackerError as exc:
                raise policy.as_seen(exc, encounter) from None
            event = self._proposal_of(encounter, built)
            role = policy.role_in(encounter)  # the seat's, as the fight stands under the lock
            by = role.signature(self.user)
            policy.guard(encounter, event, by)
            # A player's or viewer's change is always signed with its role, whatever the builder said.
            event.by = (event.by or by) if role.is_gm else by
            target = encounter.undo_target() if event.kind == "undo" else None
            # Undo: say it while the change's log lines still exist; redo: once they do again.
            taken = change_line(encounter, target, by) if target is not None else ""
            encounter.apply(event)
            if event.kind == "redo":
                index = event.args.get("target", 0) - 1  # events are numbered from 1 in order
                taken = change_line(encounter, encounter.events[index], by) if 0 <= index < len(encounter.events) else ""
            lines = [entry.text for entry in encounter.log[before:]]
        if event.kind in ("undo", "redo"):
            lines = [f"{event.kind}: {taken}" if taken else f"{event.kind} of change {event.args['target']}"]
        return Outcome(event, lines)

    def _hold(self, encounter: Encounter) -> None:
        """Hold the encounter the store read (others' changes folded in, or the file
        read again after a change that was not saved)."""
        self.encounter = encounter

    def execute(self, line: str) -> Outcome:
        """Run one line of the command language: the verb's row (tracker.play.verbs) reads the
        words, then its typed method here does the rest, through the role guard (tracker.play.policy)."""
        refuse_controls(line.replace("\t", " "), "command")
        call = verbs.read(line)
        outcome: Outcome = getattr(self, call.method)(*call.args, **call.kwargs)
        return outcome

    # ----------------------------------------------------------------- roster (tracker.play.roster)
    def add(self, name: str, values: dict[str, Any], *, side: str = "", hidden: bool = False, surprised_until: int = 0, copies: int = 1) -> Outcome:
        """Add one combatant, or `copies` numbered ones ("Goblin 1".."Goblin 4") as one change."""
        return self.submit(roster.adding(self.ruleset, name, values, side=side, hidden=hidden, surprised_until=surprised_until, copies=copies), kind="add")

    def rename(self, name: str, new: str) -> Outcome:
        return self.submit(roster.renaming(name, new), kind="rename")

    def set_side(self, name: str, side: str) -> Outcome:
        return self.submit(roster.siding(name, side), kind="side")

    def reorder(self, name: str, position: int) -> Outcome:
        return self.submit(roster.reordering(name, position), kind="reorder")

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
        self, actor: str, template: str, targets: list[str] | tuple[str, ...] = (), params: dict[str, Any] | None = None, pt: int | None = None
    ) -> tuple[ActionRequest, ActionTemplate]:
        """The adapter request for `actor`'s action as this seat states it (no rules of
        initiation: tracker.play.requests)."""
        request = requests.action_request(self.policy, self.ruleset, self.encounter, actor, template, targets, params, pt)
        return request, request.template

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

        For a player they stand (tracker.play.player_dice): `actor`'s next draw, from die
        `drawn` (how many of the app's faces the asking form already holds), the same
        however often the form is closed or the declaration taken back; only the GM's
        `reroll` moves it on. The GM's are rolled afresh."""
        if not self.role.is_player:
            return [self.dice.roll(s) for s in sides]
        return player_dice.serve(self.encounter.setup, self.lookup(actor), sides, drawn)

    def _rolled(
        self, enc: Encounter, built: requests.Built, faces: str | list[int] | None, replayed: rolling.ReplayedFaces | None,
        app_rolled: list[bool] | None, *, maintain: bool = False,
    ) -> rolling.Rolled:
        hands = rolling.Hands(self.dice, self.policy.role_in(enc).is_player)
        return rolling.roll(
            self.ruleset, built.request, hands, faces, maintain=maintain, replayed=replayed, app_rolled=app_rolled, chance=self._chance_shown
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
        app_rolled: list[bool] | None = None,
    ) -> Outcome:
        """Declare `actor`'s action. `app_rolled`: which of `faces` the declare form's app
        rolled (the mark the log and a proposal carry); unsaid, typed faces count as typed."""
        if not template.strip():
            raise CommandError("declare: the action is empty")
        check_name(template.strip(), "declare: action")  # freeform keeps any action name typed
        attempt = requests.Attempt(requests.DECLARE, actor, template, tuple(targets), pt, dict(params or {}))
        return self.submit(lambda enc: self._declaration(enc, attempt, faces, secret, app_rolled=app_rolled), kind="declare", actor=actor)

    def _declaration(
        self, enc: Encounter, attempt: requests.Attempt, faces: str | list[int] | None, secret: bool,
        replayed: rolling.ReplayedFaces | None = None, by_player: bool | None = None, app_rolled: list[bool] | None = None,
    ) -> Declared:
        built = requests.build(self.policy, self.ruleset, enc, attempt, by_player)
        rolled = self._rolled(enc, built, faces, replayed, app_rolled)
        request, template = built.request, built.template
        args: dict[str, Any] = {
            "actor": request.actor.name,
            "template": template.name,
            "mode": built.mode,
            "targets": [t.name for t in request.targets],
            "companions": list(template.companions),
            "maintainable": bool(request.params.get("maintainable", self.ruleset.maintainable(template, request.settings))),
            "secret": secret or None,
            "chance": rolled.chance,
            "dice": rolled.mark,
            "resolution": rolled.resolution,
            **built.asked,  # what was asked (modifiers, PT): "the same again" reads it
        }
        if rolled.draw is not None:
            args["draw"] = rolled.draw
        return Declared(Event("declare", args), rolled.faces)

    def maintain(
        self, actor: str, *, pt: int | None = None, faces: str | list[int] | None = None, params: dict[str, Any] | None = None,
        kept: bool = True, app_rolled: list[bool] | None = None,
    ) -> Outcome:
        """Maintain `actor`'s action that completed now. `kept`: the link starts from that
        action's own modifiers, `params` over them (the command line); False: `params`
        are the link's in full (the maintain form, which opened filled with them)."""
        attempt = requests.Attempt(requests.MAINTAIN, actor, "", (), pt, dict(params or {}), kept)
        return self.submit(lambda enc: self._link(enc, attempt, faces, app_rolled=app_rolled), kind="maintain", actor=actor)

    def _link(
        self, enc: Encounter, attempt: requests.Attempt, faces: str | list[int] | None,
        replayed: rolling.ReplayedFaces | None = None, by_player: bool | None = None, app_rolled: list[bool] | None = None,
    ) -> Declared:
        built = requests.build(self.policy, self.ruleset, enc, attempt, by_player)
        rolled = self._rolled(enc, built, faces, replayed, app_rolled, maintain=True)
        # What was asked is kept as a declaration's is: the next link starts from it.
        args: dict[str, Any] = {
            "actor": built.request.actor.name, "chance": rolled.chance, "resolution": rolled.resolution, "dice": rolled.mark, **built.asked,
        }
        if rolled.draw is not None:
            args["draw"] = rolled.draw
        return Declared(Event("maintain", args), rolled.faces)

    def abort(self, actor: str, template: str | None = None) -> Outcome:
        def build(enc: Encounter) -> Event:
            args: dict[str, Any] = {"actor": enc.combatant(actor).name}
            if template:
                args["template"] = template
            return Event("abort", args)

        return self.submit(build, kind="abort", actor=actor)

    # ----------------------------------------------------------------- changes
    # ----------------------------------------------------------------- sheets (tracker.play.sheets)
    def default_resource(self, name: str) -> str:
        return sheets.default_resource(self.ruleset, self.encounter.combatant(name))

    def chosen(self, names: str) -> list[Combatant]:
        """The combatants `names` means to this seat (`Policy.chosen`)."""
        return self.policy.chosen(names, self.encounter)

    def damage(self, name: str, amount: int | float, resource: str | None = None) -> Outcome:
        """Damage (or, negative, heal) one combatant or several, as one change (tracker.play.sheets)."""
        return self.submit(sheets.damaging(self.ruleset, self.policy.chosen, name, amount, resource), kind="damage")

    def heal(self, name: str, amount: int | float, resource: str | None = None) -> Outcome:
        """`damage` by a negative amount."""
        return self.damage(name, -amount, resource)

    def set_value(self, name: str, key: str, raw: str) -> Outcome:
        """`set NAME KEY VALUE`: `raw` as typed, checked against the sheet."""
        return self.submit(sheets.setting(self.ruleset, name, key, raw), kind="set")

    def condition(self, names: str, condition: str, duration: int) -> Outcome:
        """A condition on one combatant or several (`chosen`), as one change."""
        refuse_controls(condition, "condition")

        def build(enc: Encounter) -> Event:
            found = [c.name for c in self.policy.chosen(names, enc)]
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
        self.policy.check_secret(self.encounter, secret)

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
        return self._walk("undo")

    def redo(self) -> Outcome:
        return self._walk("redo")

    def _walk(self, kind: str) -> Outcome:
        """Undo or redo the latest change that may be taken back (or put back)."""

        def build(enc: Encounter) -> Event:
            target = enc.undo_target() if kind == "undo" else enc.redo_target()
            if target is None:
                raise RuleRefusal(kind, f"nothing to {kind}")
            _not_the_end(target, kind)
            return Event(kind, {"target": target.seq})

        return self.submit(build, kind=kind)

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
            proposed = enc.events[p.seq - 1].args
            replayed = None if faces else rolling.ReplayedFaces(proposed.get("faces", []), self.dice, seq, proposed.get("dice", "app"))
            # The player states what they declared unless the GM changed a modifier (a
            # freeform damage=): then the outcome is the GM's.
            theirs = merged == p.args.get("params", {})
            if p.action == "declare":
                aim = list(targets) if targets is not None else list(p.args.get("targets", ()))
                attempt = requests.Attempt(requests.DECLARE, p.actor, p.args["template"], tuple(aim), use_pt, merged)
                declared = self._declaration(enc, attempt, faces, secret or bool(p.args.get("secret")), replayed, theirs)
            else:
                # The proposal holds the link's modifiers in full (the player's session
                # started them from the maintained action's): edits go over them.
                attempt = requests.Attempt(requests.MAINTAIN, p.actor, "", (), use_pt, merged, kept=False)
                declared = self._link(enc, attempt, faces, replayed, theirs)
            args: dict[str, Any] = {"target": seq, **declared.event.args}  # what was asked included
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
        from tracker.play import fights

        return fights.preview(self._fight_file("end"), outcome)

    def end_fight(self, outcome: str = "", expect: Preview | None = None) -> Outcome:
        """End this campaign fight (tracker.play.fights.end): the party's state goes back
        to the campaign and the fight closes. With `expect` (the preview the GM confirmed),
        refused if anything changed since."""
        if not self.role.is_gm:
            raise self.role.refuse("end")
        refuse_controls(outcome, "end: outcome")
        from tracker.play import fights

        _, shown = fights.end(self._fight_file("end"), self.by, outcome, expect)
        refresh = getattr(self.store, "refresh", None)
        if refresh is not None:
            self.encounter = refresh(self.encounter) or self.encounter
        event = self.encounter.events[-1] if self.encounter.events else None
        return Outcome(event, shown.text().splitlines() + [f"ended: the party of {shown.campaign_name} goes on as shown"])

    def reroll(self, name: str) -> Outcome:
        """Set aside `name`'s standing app dice: its player's next app roll is a new one
        (tracker.play.player_dice). The GM's alone."""
        return self.submit(lambda enc: Event("reroll", {"target": enc.combatant(name).name}), kind="reroll")

    def setting(self, key: str, value: str) -> Outcome:
        """Change a table setting (tracker.engine.table) during the fight."""
        return self.submit(lambda enc: Event("setting", {"key": key, "value": table.check(key, value, "setting")}), kind="setting")
