"""What a seat's role may do: the one place a change is allowed or refused for a role.

The role is decided when the seat opens (the app's `--viewer`, `tracker serve` from the
key, a player's combatants) and never by a command; a `Policy` holds it. A player's
combatants held by identity follow a rename (`Role.following`), worked out again only
when the encounter changes. Every change passes `guard` (from `Session.submit`),
whatever screen or command built it; `before_dice` refuses early, before any dice are
rolled, what the role may not do at all. Decisions: docs/decisions/0043-session-checks-at-the-door.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from fnmatch import fnmatchcase
from typing import Any

from tracker.engine import Combatant, CommandError, Encounter, Event, RuleRefusal, TrackerError, kinds, no_such_combatant, table
from tracker.engine.errors import listed
from tracker.engine.kinds import PLAYER_KINDS
from tracker.reading.roles import Role, is_players
from tracker.reading.viewing import sight


class Policy:
    """A seat's role, and what it may do and know."""

    def __init__(self, role: Role) -> None:
        self.stated = role  # as the seat was opened
        self._following = role
        self._seen: Encounter | None = None  # the state `_following` was worked out for
        self._seen_key = (-1, -1)

    def role_in(self, enc: Encounter) -> Role:
        """The role as the encounter stands now (a player's renamed combatants still theirs)."""
        key = (len(enc.events), len(enc.combatants))
        if self._seen is not enc or self._seen_key != key:
            self._following = self.stated.following(enc)
            self._seen, self._seen_key = enc, key
        return self._following

    # ----------------------------------------------------------------- knowing
    def lookup(self, name: str, enc: Encounter) -> Combatant:
        """`enc.combatant(name)` as this role may know it: to a player (or viewer) a hidden
        combatant not their own is unknown, and the refusal lists only those they see."""
        role = self.role_in(enc)
        if role.is_gm:
            return enc.combatant(name)
        view = sight(enc, role)
        try:
            found = enc.combatant(name)
        except TrackerError:
            found = None
        if found is None or not view.knows(found):
            raise no_such_combatant(name, view.names())
        return found

    def chosen(self, names: str, enc: Encounter) -> list[Combatant]:
        """The combatants `names` means: one name, a comma list ("Goblin 1,Goblin 2") or
        globs over names ("Goblin*", "Orc ?"), matched ignoring case, each once, in roster
        order for a glob. A glob sees only the combatants this role may know (`sight`), so
        it never matches, or reveals, a hidden one to a player; a glob matching no one and
        an unknown name are refused."""
        found: list[Combatant] = []
        seen: set[str] = set()
        for part in (p.strip() for p in names.split(",")):
            if not part:
                raise CommandError(f"{names!r}: an empty name in the list (names are separated by commas)")
            if any(ch in part for ch in "*?["):
                known = sight(enc, self.role_in(enc)).combatants()
                pattern = part.casefold()
                matched = [c for c in known if fnmatchcase(c.name.casefold(), pattern)]
                if not matched:
                    names_known = ", ".join(c.name for c in known) or "none yet"
                    raise CommandError(f"{part!r} matches no combatant (combatants: {names_known})")
            else:
                matched = [self.lookup(part, enc)]
            # a name and a glob may both reach one combatant ("Goblin 1,Goblin*"): it is
            # hurt once, so the event never names a target twice (tracker.engine.changes)
            found.extend(c for c in matched if c.name not in seen)
            seen.update(c.name for c in matched)
        return found

    def as_seen(self, exc: TrackerError, enc: Encounter) -> TrackerError:
        """A refusal naming the combatants, for a player: hidden ones left out."""
        text = str(exc)
        role = self.role_in(enc)
        if role.is_gm or type(exc) is not TrackerError or "(combatants: " not in text:
            return exc
        head = text[: text.rindex("(combatants: ")]
        return TrackerError(f"{head}(combatants: {listed(sight(enc, role).names())})")

    # ----------------------------------------------------------------- doing
    def before_dice(self, enc: Encounter, kind: str, actor: str = "") -> None:
        """Refuse at once what this role may not do at all, before anything is rolled."""
        role = self.role_in(enc)
        if role.is_gm:
            return
        if role.is_viewer:
            raise role.refuse(kind or "change")
        if kind and kinds.guard_of(kind) == kinds.GM_ONLY:
            raise role.refuse(kind)
        if actor and kind in PLAYER_KINDS and not role.owns(actor):
            raise _not_yours(kind, actor, role)
        if actor:
            self.lookup(actor, enc)  # a hidden combatant's name is not confirmed to a player

    def guard(self, enc: Encounter, event: Event, by: str) -> None:
        """Refuse, changing nothing, a change this role may not make; `by`: this seat's signature."""
        role = self.role_in(enc)
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
                raise _not_yours(kind if kind != "propose" else str(args.get("action")), actor, role)
            if args.get("secret"):
                raise _secret_is_the_gms()
            return
        if check == kinds.NOT_SECRET:  # anyone at the table rolls; only the GM in secret
            if args.get("secret"):
                raise _secret_is_the_gms()
            return
        if check == kinds.OWN_PROPOSAL:
            p = enc.proposal(args.get("target", 0))
            if not role.owns(p.actor) or enc.events[p.seq - 1].by != by:
                raise RuleRefusal("player", f"takeback: proposal {p.seq} is not yours")
            return
        if check == kinds.OWN_LAST:
            target = enc.undo_target() if kind == "undo" else enc.redo_target()
            if target is None:
                return  # the engine says "nothing to undo"
            if target.kind not in PLAYER_KINDS or target.by != by:
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

    def check_secret(self, enc: Encounter, secret: bool) -> None:
        if secret and not self.role_in(enc).is_gm:
            raise _secret_is_the_gms()

    def check_cap(self, enc: Encounter, params: Mapping[str, Any]) -> None:
        """A player's freeform `damage=` above the table's cap is refused (the GM's never)."""
        cap = table.damage_cap(enc.table)
        amount = params.get("damage")
        if cap is None or not self.role_in(enc).is_player or not isinstance(amount, (int, float)) or isinstance(amount, bool):
            return
        if amount > cap:
            raise RuleRefusal("damage cap", f"damage={amount:g}: the GM caps a player's damage at {cap} (setting player_damage_cap)")

    def proposes(self, enc: Encounter, kind: str) -> bool:
        """Whether this role's `kind` waits for the GM (`player_declarations = "approval"`)."""
        return (
            self.role_in(enc).is_player
            and kind in kinds.PROPOSABLE
            and enc.table.get(table.PLAYER_DECLARATIONS) == table.APPROVAL
        )


def _not_yours(kind: str, actor: str, role: Role) -> RuleRefusal:
    return RuleRefusal(
        "player", f"{kind} {actor}: not your combatant; a player declares only for their own ({', '.join(role.combatants)})"
    )


def _secret_is_the_gms() -> RuleRefusal:
    return RuleRefusal("player", "secret rolls are the GM's: a player's roll is seen by the table")
