"""Who is at the keyboard: the GM, a player of some combatants, or a viewer.

The role is decided by whoever starts the session (the account on a shared host with
`tracker open FILE --player NAME`, or `tracker serve` from the key a person logged in
with), never by anything typed into the session. `Session` checks every change against
its role in one place (`tracker.play.policy.Policy.guard`), so a command that slips past a screen is
refused all the same.

- GM: everything.
- Player: declares, maintains and aborts actions for its own combatants only, and takes
  back its own last declaration while nothing has happened since. Everything else
  (damage, set, add, next/step, undo of anyone else's change, approving, GM commands,
  the sheet library) is refused with a message naming the rule.
- Viewer: nothing at all.

A player's combatants are held by identity: in a fight of its own, each is the combatant
that first carried the name the player was given (`Role.of`); at a campaign's table, each
is a character of the campaign by its own id (`Combatant.pc`), the same character in
every fight (`campaign_characters`, `Role.of_characters`).

Decisions: docs/decisions/0016-roles-identity.md, docs/decisions/0050-serve-campaign.md
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from typing import TYPE_CHECKING

from tracker.engine.errors import RuleRefusal
from tracker.engine import kinds
from tracker.engine.model import LogEntry

if TYPE_CHECKING:
    from tracker.persistence.campaign import Campaign
    from tracker.engine.encounter import Encounter

GM = "gm"
PLAYER = "player"
VIEWER = "viewer"

PLAYER_TAG = "player:"
GM_TAG = "gm:"

# What a player may do, by event kind (each still limited to its own combatants), is
# tracker.engine.kinds.PLAYER_KINDS: the `player` column of the table of kinds.


@dataclass(frozen=True, slots=True)
class Role:
    """A session's role. `combatants` are a player's own by their names now; `ids`, when
    set, by identity (`Combatant.identity`), and `pcs`, when set, by the campaign's own id
    of the character (`Combatant.pc`), which `following` turns into names."""

    kind: str = GM
    combatants: tuple[str, ...] = ()
    ids: tuple[tuple[str, int], ...] = ()
    pcs: tuple[str, ...] = ()
    # Which kind, as plain attributes: asked on every change and every line drawn.
    is_gm: bool = field(init=False, repr=False, compare=False)
    is_player: bool = field(init=False, repr=False, compare=False)
    is_viewer: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.kind not in (GM, PLAYER, VIEWER):
            raise ValueError(f"role: expected gm, player or viewer, got {self.kind!r}")
        if self.kind == PLAYER and not self.combatants and not self.ids and not self.pcs:
            raise ValueError("a player's role names at least one combatant")
        object.__setattr__(self, "is_gm", self.kind == GM)
        object.__setattr__(self, "is_player", self.kind == PLAYER)
        object.__setattr__(self, "is_viewer", self.kind == VIEWER)

    @classmethod
    def of(cls, encounter: "Encounter", names: Iterable[str]) -> "tuple[Role | None, list[str]]":
        """A player's role for `names` in `encounter`, held by identity: each name is its
        first bearer (`Encounter.bearer`). Returns the role (None if no name is found) and
        the names not found, as given."""
        found: dict[tuple[str, int], str] = {}
        missing: list[str] = []
        for name in dict.fromkeys(n.strip() for n in names if n.strip()):
            c = encounter.bearer(name)
            if c is None:
                missing.append(name)
            else:
                found.setdefault(c.identity, c.name)
        if not found:
            return None, missing
        return cls(PLAYER, tuple(found.values()), tuple(found)), missing

    @classmethod
    def of_characters(cls, encounter: "Encounter", pcs: Iterable[str]) -> "Role | None":
        """A player's role for the campaign's characters `pcs` (their ids) in `encounter`,
        held by that id: a rename keeps them, and a combatant without it (a foe, whatever
        its name) is never theirs. None if none of them is in the fight."""
        wanted = tuple(dict.fromkeys(p for p in pcs if p))
        names = _carrying(encounter, wanted)
        return cls(PLAYER, names, pcs=wanted) if names else None

    def following(self, encounter: "Encounter") -> "Role":
        """This role with its combatants as `encounter` names them now (a player's held by
        identity, or by the campaign's id); a combatant that has left is nobody's."""
        if self.kind != PLAYER or not (self.ids or self.pcs):
            return self
        if self.pcs:
            names = _carrying(encounter, self.pcs)
        else:
            ids = set(self.ids)
            names = tuple(c.name for c in encounter.combatants.values() if c.identity in ids)
        return self if names == self.combatants else Role(PLAYER, names, self.ids, self.pcs)

    @classmethod
    def gm(cls) -> "Role":
        return cls(GM)

    @classmethod
    def viewer(cls) -> "Role":
        return cls(VIEWER)

    @classmethod
    def player(cls, names: Iterable[str]) -> "Role":
        cleaned = tuple(dict.fromkeys(n.strip() for n in names if n.strip()))
        return cls(PLAYER, cleaned)

    def owns(self, name: str) -> bool:
        """True if `name` is one of this player's combatants (ignoring case, as lookups do)."""
        folded = name.casefold()
        return any(n.casefold() == folded for n in self.combatants)

    def label(self) -> str:
        if self.kind == PLAYER:
            return f"player of {', '.join(self.combatants)}" if self.combatants else "player (none of yours is in this fight)"
        return "GM" if self.kind == GM else "viewer"

    def signature(self, user: str) -> str:
        """The `by` this role's changes carry (docs/decisions/0016-roles-identity.md)."""
        if self.kind == PLAYER:
            return PLAYER_TAG + (user or ",".join(self.combatants))
        if user.startswith(PLAYER_TAG) or user.startswith(GM_TAG):
            return GM_TAG + user  # an account whose name looks like a tag stays a GM's
        return user

    def refuse(self, what: str) -> RuleRefusal:
        """The refusal for something this role may not do."""
        what = kinds.refused_as(what)
        if self.kind == VIEWER:
            return RuleRefusal("viewer", f"{what}: a viewer's session is read-only; changes are made by the GM")
        mine = ", ".join(self.combatants)
        return RuleRefusal(
            "player",
            f"{what}: a player declares, maintains and aborts actions for their own combatants ({mine}) "
            f"and takes back their own last declaration; everything else is the GM's",
        )


def _carrying(encounter: "Encounter", pcs: Iterable[str]) -> tuple[str, ...]:
    """The names now of the fight's combatants that are the campaign's characters `pcs`."""
    wanted = set(pcs)
    return tuple(c.name for c in encounter.combatants.values() if c.pc and c.pc in wanted)


@dataclass(frozen=True, slots=True)
class Characters:
    """What a player's key gives at a campaign's table: the characters it plays (ids, in
    the party now), and, in words, those it names who are nobody's any more."""

    pcs: tuple[str, ...] = ()
    gone: tuple[str, ...] = ()  # "Seraph has died", "Nyx has left the party"
    unknown: tuple[str, ...] = ()  # names and ids no character of the campaign ever had


def campaign_characters(campaign: "Campaign", names: Iterable[str] = (), ids: Iterable[str] = ()) -> Characters:
    """The characters a player's key names in `campaign`: by id (`pc="pc2"`), or by name
    (`combatant="Seraph"`), a name being the character that first carried it in the
    campaign (ignoring case), as `Role.of` reads a name in one fight: a rename (in a fight,
    or with `campaign set`) keeps them, and a newcomer given an old name is someone else.
    A character who has left the party or died is nobody's."""
    from tracker.persistence.campaign import ACTIVE, DIED

    first: dict[str, str] = {}  # folded name -> the id of its first bearer
    called: dict[str, str] = {}  # id -> the character's name at this point of the story
    left: set[str] = set()
    for event in campaign.effective_events():
        args = event.args
        named, given = args.get("pc"), args.get("name")
        if event.kind == "join" and isinstance(named, str) and isinstance(given, str):
            called[named] = given
            first.setdefault(given.casefold(), named)
        elif event.kind == "set" and isinstance(named, str) and isinstance(given, str):
            renamed = _called(called, left, named)
            called[renamed] = given
            first.setdefault(given.casefold(), renamed)
        elif event.kind == "leave" and isinstance(named, str):
            left.add(_called(called, left, named))
        elif event.kind == "end" and isinstance(args.get("party"), dict):
            for pid, state in args["party"].items():
                if isinstance(state, dict) and isinstance(state.get("name"), str):
                    called[str(pid)] = state["name"]
                    first.setdefault(state["name"].casefold(), str(pid))
    chosen: list[str] = []
    unknown: list[str] = []
    for pid in ids:
        (chosen if pid in campaign.pcs else unknown).append(pid)
    for name in names:
        pid = first.get(name.strip().casefold())
        if pid is None or pid not in campaign.pcs:
            unknown.append(name)
        else:
            chosen.append(pid)
    pcs: list[str] = []
    gone: list[str] = []
    for pid in dict.fromkeys(chosen):
        pc = campaign.pcs[pid]
        if pc.status == ACTIVE:
            pcs.append(pid)
        else:
            gone.append(f"{pc.name} has died" if pc.status == DIED else f"{pc.name} has left the party")
    return Characters(tuple(pcs), tuple(gone), tuple(unknown))


def _called(called: dict[str, str], left: set[str], name_or_id: str) -> str:
    """The id of the character a campaign event names (`pc`), as `Campaign.pc` found it
    then: by id, else by the name it had then (ignoring case), the party before those who
    left. A set or leave may name its character (a hand-written campaign file)."""
    if name_or_id in called:
        return name_or_id
    wanted = name_or_id.casefold()
    named = [pid for pid, name in called.items() if name.casefold() == wanted]
    return next((pid for pid in named if pid not in left), named[0] if named else "")


def is_players(by: str) -> bool:
    return by.startswith(PLAYER_TAG)


def who(by: str) -> str:
    """`by` in words: 'player bob', 'GM alice', 'GM' (an unsigned change), ''."""
    if by.startswith(PLAYER_TAG):
        return f"player {by[len(PLAYER_TAG):]}"
    if by.startswith(GM_TAG):
        return f"GM {by[len(GM_TAG):]}"
    return f"GM {by}" if by else "GM"


def visible_to(role: Role, entry: LogEntry, hidden: Iterable[str] = ()) -> bool:
    """Whether a log line is shown to `role`. `hidden`: names of hidden combatants.

    The GM sees everything. Nobody else sees a secret roll. A private line (a proposal,
    a refusal) is shown to the players of the combatants it is about. Other lines are
    shown unless they concern a hidden combatant (a player always sees its own)."""
    if role.is_gm:
        return True
    if entry.secret:
        return False
    mine = [n for n in entry.about if role.owns(n)] if role.is_player else []
    if entry.private:
        return bool(mine)
    concealed = set(hidden)
    if getattr(entry, "while_hidden", False) and not mine:
        return False  # written while a combatant it is about was hidden: stays unseen
    return not any(n in concealed and not role.owns(n) for n in entry.about)


def account() -> str:
    """Who a local session is: the OS account this process runs as (its passwd entry, else
    `uid N`). Never an environment variable (`$USER`, `$LOGNAME`, `$TRACKER_USER`), which
    anyone sets as they like: `TRACKER_USER=dan tracker play F --player Ann` is still the
    account that ran it. A seat at `tracker serve` is named by its key instead, by the
    server (tracker.serve.seat), which hands the name to the app it starts."""
    import os

    try:
        import pwd
    except ImportError:  # Windows: the logged-on account (GetUserNameW), not an environment variable
        try:
            return os.getlogin()
        except OSError:
            return "local account"
    try:
        return pwd.getpwuid(os.getuid()).pw_name
    except KeyError:  # no passwd entry (containers): still one stable name per account
        return f"uid {os.getuid()}"
