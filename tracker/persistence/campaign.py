"""A campaign's state: the party, the fights in order, what happened between them.

A campaign is folded from its events, as a fight is (docs/campaigns.md): each event is
one row of `KINDS` (its arguments' shapes and its words), applied by the method the row
names, and `undo` / `redo` walk the effective history (the latest change first, so
nothing later can depend on what an undo takes back). No file I/O here: the campaign
file (tracker.persistence.campaign_file) reads and writes it; the fights are other files, whose
effect on the party arrives whole in the `end` event, so reading a campaign never
reads its fights.

A character (`PC`) has the campaign's own id (`pc1`, `pc2`, ... in the order they
joined), which the fights carry on their combatant (`Combatant.pc`): a rename in a
fight or here keeps it, and a newcomer that takes a character's name is someone else.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tracker.engine import bounds
from tracker.engine.errors import RuleRefusal, TrackerError
from tracker.engine.kinds import counted, fmt
from tracker.engine.model import Event
from tracker.engine.shapes import INT, NUM, STR, STRS, TABLE, Arg

ACTIVE, LEFT, DIED = "active", "left", "died"
UNDO, REDO = "undo", "redo"


@dataclass
class PC:
    """A player character as the campaign holds it between fights."""

    id: str
    name: str
    stats: dict[str, Any] = field(default_factory=dict)  # as they stand now
    sheet: dict[str, Any] = field(default_factory=dict)  # the stats as the sheet says (healing stops there)
    maxima: dict[str, int | float] = field(default_factory=dict)  # the sheet's resources
    resources: dict[str, int | float] = field(default_factory=dict)  # as they stand now
    conditions: dict[str, int] = field(default_factory=dict)  # name -> segments left
    side: str = ""
    status: str = ACTIVE
    joined: int = 0  # the event that brought them in
    why: str = ""  # a leave's words

    def copy(self) -> "PC":
        return PC(self.id, self.name, dict(self.stats), dict(self.sheet), dict(self.maxima), dict(self.resources), dict(self.conditions), self.side, self.status, self.joined, self.why)

    def state(self) -> dict[str, Any]:
        """What a fight's end sends back and a preview compares: every figure that can
        change in a fight."""
        return {"name": self.name, "stats": dict(self.stats), "maxima": dict(self.maxima), "resources": dict(self.resources), "conditions": dict(self.conditions)}


@dataclass
class Fight:
    """A fight of the campaign, as the campaign file records it."""

    file: str  # its file name, in the campaign's folder
    name: str
    started: int  # the `fight` event's seq
    at: str  # when it started (UTC, ISO 8601)
    pcs: tuple[str, ...]  # the characters that went in
    ended: int = 0  # the `end` event's seq (0: still open)
    ended_at: str = ""
    revision: int = -1  # the fight file's revision when it ended
    segment: int = 0  # how long it lasted, in segments
    outcome: str = ""
    before: dict[str, dict[str, Any]] = field(default_factory=dict)  # pc -> state when it ended, before
    after: dict[str, dict[str, Any]] = field(default_factory=dict)  # pc -> state it sent back
    stats: dict[str, Any] = field(default_factory=dict)  # pc -> {"gm": tally, "viewer": tally}

    @property
    def open(self) -> bool:
        return not self.ended


@dataclass(frozen=True, slots=True)
class Kind:
    """One kind of change to a campaign: the arguments it takes and how the log words it."""

    name: str
    args: dict[str, Arg]
    describe: Callable[[dict[str, Any]], str]
    apply: str = ""


_AT: dict[str, Arg] = {"at": (STR, False)}


def _rows() -> dict[str, Kind]:
    rows = (
        Kind("join", {"pc": (STR, True), "name": (STR, True), "stats": (TABLE, False), "resources": (TABLE, False),
                      "current": (TABLE, False), "conditions": (TABLE, False), "side": (STR, False), **_AT},
             lambda a: f"{a.get('name')} joins the party", "_join"),
        Kind("leave", {"pc": (STR, True), "reason": (STR, False), "note": (STR, False), **_AT},
             lambda a: f"{a.get('pc')} {'dies' if a.get('reason') == DIED else 'leaves the party'}", "_leave"),
        Kind("set", {"pc": (STR, True), "stats": (TABLE, False), "maxima": (TABLE, False), "resources": (TABLE, False),
                     "conditions": (TABLE, False), "name": (STR, False), "side": (STR, False), **_AT},
             lambda a: f"{a.get('pc')}'s sheet changes", "_set"),
        Kind("note", {"text": (STR, True), **_AT}, lambda a: f"note: {a.get('text')}", "_note"),
        Kind("fight", {"file": (STR, True), "name": (STR, True), "pcs": (STRS, False), **_AT},
             lambda a: f"the fight {a.get('name')} begins", "_fight"),
        Kind("end", {"file": (STR, True), "revision": (INT, True), "segment": (INT, False), "outcome": (STR, False),
                     "party": (TABLE, False), "stats": (TABLE, False), **_AT},
             lambda a: f"the fight {a.get('file')} ends", "_end"),
        Kind("rest", {"hours": (NUM, True), "rule": (STR, True), "party": (TABLE, False), "rolls": (("a list of tables", lambda v: isinstance(v, list) and all(isinstance(x, dict) for x in v)), False),
                      "note": (STR, False), **_AT},
             lambda a: f"the party rests {counted(a.get('hours') or 0, 'hour')}", "_rest"),
        # `revision`: a fight's end undone or redone: the fight file's revision after its
        # own end was undone or redone with it (what `campaign show` checks it against).
        Kind(UNDO, {"target": (INT, True), "revision": (INT, False), **_AT}, lambda a: f"undo of change {a.get('target')}"),
        Kind(REDO, {"target": (INT, True), "revision": (INT, False), **_AT}, lambda a: f"redo of change {a.get('target')}"),
    )
    return {row.name: row for row in rows}


KINDS: Mapping[str, Kind] = _rows()


def _plain_figures(table: Any) -> bool:
    """Whether `table` is a table of numbers each within bounds (a quick look; `_figures`
    names what is wrong)."""
    if table.__class__ is not dict:
        return False
    top = bounds.MAX_AMOUNT
    for v in table.values():
        kind = v.__class__
        if not ((kind is int or kind is float) and -top <= v <= top):
            return False
    return True


def _figures(table: Any, where: str) -> dict[str, int | float]:
    if _plain_figures(table):
        return dict(table)
    if not isinstance(table, dict):
        raise TrackerError(f"{where}: expected a table of numbers")
    return {str(k): bounds.number(v, f"{where}.{k}") for k, v in table.items()}


_COUNTS = ("declared", "succeeded", "missed", "no_roll", "secret", "aborted", "interrupted", "acting", "idle", "down", "unrecorded")
_AMOUNTS = ("dealt", "taken", "healed", "costs")
_CHANCE = re.compile(r"([0-9]{1,400})/([1-9][0-9]{0,400})")


def _views(views: Any, where: str) -> dict[str, dict[str, Any]]:
    """A character's figures of one fight (the GM's and the viewers' view), checked:
    counts are whole numbers, amounts tables of numbers, `luck` a table of chances
    ("n/d", from 0 to 1) to [rolls, successes]."""
    if not isinstance(views, dict):
        raise TrackerError(f"{where}: expected a table of views (gm, viewer)")
    out: dict[str, dict[str, Any]] = {}
    for view, tally in views.items():
        if view not in ("gm", "viewer") or not isinstance(tally, dict):
            raise TrackerError(f"{where}.{view}: expected the gm or viewer view, a table")
        for key in _COUNTS:
            n = tally.get(key, 0)
            if n.__class__ is not int or n < 0:
                raise TrackerError(f"{where}.{view}.{key}: expected a whole number of at least 0, got {n!r}")
        for key in _AMOUNTS:
            if key in tally and not _plain_figures(tally[key]):
                _figures(tally[key], f"{where}.{view}.{key}")
        luck = tally.get("luck") or {}
        if not isinstance(luck, dict):
            raise TrackerError(f"{where}.{view}.luck: expected a table of chances")
        for chance, counts in luck.items():
            match = _CHANCE.fullmatch(chance)
            if match is None or int(match.group(1)) > int(match.group(2)):
                raise TrackerError(f"{where}.{view}.luck: {chance!r}: expected a chance written n/d, from 0 to 1")
            if not (counts.__class__ is list and len(counts) == 2 and counts[0].__class__ is int and counts[1].__class__ is int and 0 <= counts[1] <= counts[0]):
                raise TrackerError(f"{where}.{view}.luck.{chance}: expected [rolls, successes], successes at most rolls, got {counts!r}")
        out[view] = tally
    return out


def changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
    """What a fight or a rest changed of a character (two `PC.state`s): the new name, and
    each stat, maximum and resource whose value changed (or is new), and each condition
    whose time left changed, 0 for one that ended. What an `end` or a `rest` keeps."""
    out: dict[str, Any] = {}
    if after["name"] != before["name"]:
        out["name"] = after["name"]
    for part in ("stats", "maxima", "resources"):
        was = before[part]
        changed = {k: v for k, v in after[part].items() if k not in was or was[k] != v}
        if changed:
            out[part] = changed
    lasting = {k: v for k, v in after["conditions"].items() if before["conditions"].get(k) != v}
    lasting.update({k: 0 for k in before["conditions"] if k not in after["conditions"]})
    if lasting:
        out["conditions"] = lasting
    return out


def _state(pc: PC, state: Mapping[str, Any], where: str) -> None:
    """Put what changed (`changes`) on `pc`, checked: the name, stats, maxima and
    resources given, and conditions (0: it ended)."""
    if "name" in state:
        if not isinstance(state["name"], str) or not state["name"].strip():
            raise TrackerError(f"{where}.name: expected a name")
        pc.name = state["name"]
    stats = state.get("stats") or {}
    if not isinstance(stats, dict):
        raise TrackerError(f"{where}.stats: expected a table")
    for key, value in stats.items():
        pc.stats[str(key)] = bounds.value(value, f"{where}.stats.{key}")
    pc.maxima.update(_figures(state.get("maxima") or {}, f"{where}.maxima"))
    pc.resources.update(_figures(state.get("resources") or {}, f"{where}.resources"))
    lasting = state.get("conditions") or {}
    if not isinstance(lasting, dict):
        raise TrackerError(f"{where}.conditions: expected a table of segments left")
    for name, left in lasting.items():
        if left == 0 and not isinstance(left, bool):
            pc.conditions.pop(str(name), None)
        else:
            pc.conditions[str(name)] = bounds.segment(left, f"{where}.conditions.{name}", 1)


class Campaign:
    """A campaign's live state: construct from its header, then `apply` events."""

    def __init__(self, name: str, ruleset: str, house_rules: str = "", events: list[Event] | None = None) -> None:
        self.name = name
        self.ruleset = ruleset
        self.house_rules = house_rules
        self.events: list[Event] = []
        self._applied: list[int] = []
        self._redo: list[int] = []
        self._reset()
        for event in events or ():
            self.apply(event)

    def _reset(self) -> None:
        self.pcs: dict[str, PC] = {}
        self.fights: list[Fight] = []
        self.notes: list[tuple[int, str]] = []
        self.rests: list[Event] = []

    # ------------------------------------------------------------ reading
    def party(self) -> list[PC]:
        """The characters still in the party, in the order they joined."""
        return [pc for pc in self.pcs.values() if pc.status == ACTIVE]

    def pc(self, name_or_id: str) -> PC:
        """A character by id (`pc2`) or by name, ignoring case (the party first, then
        those who left); refused naming the party."""
        found = self.pcs.get(name_or_id)
        if found is not None:
            return found
        wanted = name_or_id.casefold()
        for pc in sorted(self.pcs.values(), key=lambda p: p.status != ACTIVE):
            if pc.name.casefold() == wanted:
                return pc
        names = ", ".join(p.name for p in self.party()) or "nobody yet"
        raise TrackerError(f"no character {name_or_id!r} in the campaign {self.name} (the party: {names})")

    def fight(self, file: str) -> Fight:
        for f in self.fights:
            if f.file == file:
                return f
        listed = ", ".join(f.file for f in self.fights) or "none yet"
        raise RuleRefusal("campaign", f"{file} is not a fight of the campaign {self.name} (its fights: {listed})")

    def open_fight(self) -> Fight | None:
        """The fight under way (at most one: a fight starts with the party as it stands)."""
        return next((f for f in self.fights if f.open), None)

    def current_fight(self) -> Fight | None:
        """The table's fight: the one under way, else the latest."""
        return self.open_fight() or (self.fights[-1] if self.fights else None)

    def next_id(self) -> str:
        return f"pc{len([e for e in self.events if e.kind == 'join']) + 1}"

    def describe(self, event: Event) -> str:
        """An event in words, a character named as they are called now."""
        text = KINDS[event.kind].describe(event.args)
        pid = event.args.get("pc")
        if isinstance(pid, str) and pid in self.pcs:
            text = text.replace(pid, self.pcs[pid].name, 1)
        return text

    def undo_target(self) -> Event | None:
        return self.events[self._applied[-1]] if self._applied else None

    def redo_target(self) -> Event | None:
        return self.events[self._redo[-1]] if self._redo else None

    def effective_events(self) -> list[Event]:
        return [self.events[i] for i in self._applied]

    # ------------------------------------------------------------ changing
    def apply(self, event: Event) -> Event:
        """Check and apply one event; refused, nothing changes."""
        if event.kind in (UNDO, REDO):
            self._walk(event)
        else:
            row = KINDS.get(event.kind)
            if row is None or not row.apply:
                raise TrackerError(f"unknown campaign event kind {event.kind!r} (kinds: {', '.join(KINDS)})")
            saved = (self.pcs, list(self.fights))
            # A character an event changes is a copy (`_own`), so one refused part way
            # leaves nothing changed (a fight's record is changed only once all is checked).
            self.pcs = dict(self.pcs)
            self._seq = len(self.events) + 1
            try:
                getattr(self, row.apply)(event.args)
            except Exception:
                self.pcs, self.fights = saved  # handlers check first; this keeps it so
                raise
            self._applied.append(len(self.events))
            self._redo.clear()
        event.seq = len(self.events) + 1
        self.events.append(event)
        if event.kind == REDO:
            self._recorded()
        return event

    def _recorded(self) -> None:
        """Each ended fight's file revision as last recorded: the end's own, or that of the
        latest redo that closed it again (its file gained an undo and a redo meanwhile)."""
        latest = {e.args["target"]: e.args["revision"] for e in self.events if e.kind == REDO and "revision" in e.args}
        for fight in self.fights:
            if fight.ended in latest:
                fight.revision = latest[fight.ended]

    def _walk(self, event: Event) -> None:
        undo = event.kind == UNDO
        stack = self._applied if undo else self._redo
        if not stack:
            raise RuleRefusal(event.kind, "nothing to undo" if undo else "nothing to redo")
        top = self.events[stack[-1]]
        target = event.args.setdefault("target", top.seq)
        if target != top.seq:
            raise RuleRefusal(event.kind, f"{event.kind} of change {target} refused: the latest change that can be {'undone' if undo else 'redone'} is {top.seq} ({top.kind})")
        index = stack.pop()
        (self._redo if undo else self._applied).append(index)
        try:
            self._refold()
        except Exception:
            (self._redo if undo else self._applied).pop()
            stack.append(index)
            self._refold()
            raise

    def _refold(self) -> None:
        self._reset()
        for index in self._applied:
            event = self.events[index]
            self._seq = event.seq
            getattr(self, KINDS[event.kind].apply)(event.args)
        self._recorded()

    # ------------------------------------------------------------ the kinds
    def _check_name(self, name: Any, keep: PC | None = None) -> str:
        if not isinstance(name, str) or not name.strip():
            raise TrackerError("a character needs a name")
        for pc in self.party():
            if pc is not keep and pc.name.casefold() == name.casefold():
                raise TrackerError(f"there is already a character named {pc.name!r} in the party (names are unique ignoring case)")
        return name

    def _join(self, a: dict[str, Any]) -> None:
        pid = a["pc"]
        if pid in self.pcs:
            raise TrackerError(f"join: {pid} is already a character of the campaign")
        name = self._check_name(a["name"])
        maxima = _figures(a.get("resources") or {}, f"join {name}: resources")
        pc = PC(pid, name, {}, {}, maxima, dict(maxima), {}, str(a.get("side") or ""), ACTIVE, self._seq)
        _state(pc, {"stats": a.get("stats") or {}, "conditions": a.get("conditions") or {}}, f"join {name}")
        pc.sheet = dict(pc.stats)
        current = _figures(a.get("current") or {}, f"join {name}: current")
        unknown = [k for k in current if k not in maxima]
        if unknown:
            raise TrackerError(f"join {name}: current: {', '.join(unknown)} is not one of its resources ({', '.join(maxima) or 'none'})")
        pc.resources.update(current)
        self.pcs[pid] = pc

    def _in_open_fight(self, pc: PC, what: str) -> None:
        fight = self.open_fight()
        if fight is not None and pc.id in fight.pcs:
            raise RuleRefusal("campaign", f"{what}: {pc.name} is in the fight {fight.name} ({fight.file}), still under way: change them there, or end it first (tracker campaign end {fight.file})")

    def _own(self, name_or_id: str) -> PC:
        """The character, as a copy this event may change (kept if the event applies)."""
        pc = self.pc(name_or_id).copy()
        self.pcs[pc.id] = pc
        return pc

    def _leave(self, a: dict[str, Any]) -> None:
        pc = self._own(a["pc"])
        reason = a.get("reason") or LEFT
        if reason not in (LEFT, DIED):
            raise TrackerError(f"leave: reason: expected {LEFT} or {DIED}, got {reason!r}")
        if pc.status != ACTIVE:
            raise RuleRefusal("campaign", f"{pc.name} has already {pc.status}")
        self._in_open_fight(pc, "leave")
        pc.status, pc.why = reason, str(a.get("note") or "")

    def _set(self, a: dict[str, Any]) -> None:
        pc = self._own(a["pc"])
        if pc.status != ACTIVE:
            raise RuleRefusal("campaign", f"{pc.name} has {pc.status}: their sheet no longer changes")
        self._in_open_fight(pc, "set")
        where = f"set {pc.name}"
        if a.get("name") is not None:
            pc.name = self._check_name(a["name"], keep=pc)
        if a.get("side") is not None:
            pc.side = str(a["side"])
        for key, value in (a.get("stats") or {}).items():  # the sheet changes, and the stat with it
            pc.stats[str(key)] = pc.sheet[str(key)] = bounds.value(value, f"{where}: {key}")
        for key, value in _figures(a.get("maxima") or {}, f"{where}: maxima").items():
            pc.maxima[key] = value
            pc.resources.setdefault(key, value)
        for key, value in _figures(a.get("resources") or {}, where).items():
            if key not in pc.maxima:
                raise TrackerError(f"{where}: {key} is not one of {pc.name}'s resources ({', '.join(pc.maxima) or 'none'})")
            pc.resources[key] = value
        conditions = a.get("conditions") or {}
        if not isinstance(conditions, dict):
            raise TrackerError(f"{where}: conditions: expected a table")
        for key, left in conditions.items():
            if left == 0:
                if key not in pc.conditions:
                    raise TrackerError(f"{where}: {pc.name} is not {key} (conditions: {', '.join(pc.conditions) or 'none'})")
                del pc.conditions[key]
            else:
                pc.conditions[str(key)] = bounds.segment(left, f"{where}: condition {key}", 1)

    def _note(self, a: dict[str, Any]) -> None:
        self.notes.append((self._seq, str(a["text"])))

    def _fight(self, a: dict[str, Any]) -> None:
        under_way = self.open_fight()
        if under_way is not None:
            raise RuleRefusal("campaign", f"the fight {under_way.name} ({under_way.file}) is still under way: end it first (tracker campaign end {under_way.file})")
        file = a["file"]
        if any(f.file == file for f in self.fights):
            raise RuleRefusal("campaign", f"{file} is already a fight of this campaign")
        pcs = tuple(a.get("pcs") or ())
        for pid in pcs:
            if self.pcs.get(pid) is None or self.pcs[pid].status != ACTIVE:
                raise TrackerError(f"fight: {pid} is not in the party")
        self.fights.append(Fight(file, str(a["name"]), self._seq, str(a.get("at") or ""), pcs))

    def _end(self, a: dict[str, Any]) -> None:
        fight = self.fight(a["file"])
        if not fight.open:
            raise RuleRefusal("campaign", f"the fight {fight.name} ({fight.file}) has already ended (change {fight.ended})")
        party = a.get("party") or {}
        if not isinstance(party, dict):
            raise TrackerError("end: party: expected a table of characters")
        checked: dict[str, PC] = {}
        for pid, state in party.items():
            if pid not in fight.pcs:
                raise TrackerError(f"end: party: {pid} did not go into the fight {fight.file}")
            if not isinstance(state, dict):
                raise TrackerError(f"end: party.{pid}: expected a table")
            pc = self.pcs[pid].copy()
            _state(pc, state, f"end: party.{pid}")
            checked[pid] = pc
        stats = {pid: _views(views, f"end: stats.{pid}") for pid, views in (a.get("stats") or {}).items()}
        fight.before = {pid: self.pcs[pid].state() for pid in checked}
        for pid, pc in checked.items():
            self.pcs[pid] = pc
        fight.after = {pid: pc.state() for pid, pc in checked.items()}
        fight.ended, fight.ended_at = self._seq, str(a.get("at") or "")
        fight.revision = int(a["revision"])
        fight.segment = int(a.get("segment") or 0)
        fight.outcome = str(a.get("outcome") or "")
        fight.stats = stats

    def _rest(self, a: dict[str, Any]) -> None:
        hours = bounds.number(a["hours"], "rest: hours")
        if hours <= 0:
            raise TrackerError(f"rest: hours: expected more than 0, got {fmt(hours)}")
        party = a.get("party") or {}
        if not isinstance(party, dict):
            raise TrackerError("rest: party: expected a table of characters")
        changed: dict[str, PC] = {}
        for pid, state in party.items():
            pc = self.pcs.get(pid)
            if pc is None or pc.status != ACTIVE:
                raise TrackerError(f"rest: party: {pid} is not in the party")
            self._in_open_fight(pc, "rest")
            twin = pc.copy()
            if not isinstance(state, dict):
                raise TrackerError(f"rest: party.{pid}: expected a table")
            _state(twin, state, f"rest: party.{pid}")
            changed[pid] = twin
        self.pcs.update(changed)
        self.rests.append(Event("rest", a, self._seq))
