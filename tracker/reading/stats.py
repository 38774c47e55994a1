"""After the fight: who did what, what it cost, how lucky each side was.

`fight_stats(encounter, viewer=...)` folds the encounter's effective events again (the
changes in effect: undone ones are left out) through an `Encounter` that notes each
change as it happens, and returns a `FightStats`: per combatant and per side, the
actions declared, succeeded and missed; damage dealt and taken per resource; segments
spent acting, idle and down; costs paid (EP, upkeep); luck; and the series the charts
draw (tracker.reading.charts: the terminal's `tracker stats` and stats screen, and the SVG of
`tracker export --format html`). No Textual here: the screen and the export render it.

Decisions: docs/decisions/0009-fight-stats.md, docs/decisions/0046-fight-luck.md,
docs/decisions/0053-maintained-links.md
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from rulesets.base import CARRIED_ROLL
from rulesets.limits import MAX_LUCK_EXACT, MAX_LUCK_ROLLS
from tracker.engine import (
    ABORTED,
    IN_PROGRESS,
    INTERRUPTED,
    Action,
    Combatant,
    Encounter,
    Setup,
)
from tracker.engine import effects as fx
from tracker.reading.roles import Role
from tracker.reading.viewing import shown

# A difference from the expectation is called luck (or bad luck) when a count at least
# as far off had under this chance; above it the verdict is "about as expected".
NOTABLE = 0.2
BY_HAND = "by hand"  # damage the GM dealt with the `damage` command
UNSEEN = "unseen"  # damage dealt by a combatant viewers could not see


# --------------------------------------------------------------------- recording
@dataclass(slots=True)
class _Hit:
    segment: int
    dealer: Combatant | None
    dealer_hidden: bool
    target: Combatant
    resource: str
    amount: int | float  # > 0: lost; < 0: healed


@dataclass(slots=True)
class _Mark:
    """A throwback (`what` "throwback") or a condition on a combatant's row."""

    who: Combatant
    what: str
    start: int
    end: int


class _Watch(Encounter):
    """An encounter that notes what each change did as the log is folded again."""

    def __init__(self, setup: Setup) -> None:
        self.hits: list[_Hit] = []
        self.costs: list[tuple[int, Combatant, str, int | float]] = []
        self.marks: list[_Mark] = []
        self.chances: dict[int, Fraction] = {}  # action id -> chance shown at declaration
        self.unseen: set[int] = set()  # ids of actions declared while the actor was hidden
        self.owner: dict[int, Combatant] = {}  # action id -> its actor
        self.seen: dict[int, Combatant] = {}  # every combatant ever in the fight, by id()
        self.joined: dict[int, int] = {}
        self.left: dict[int, int] = {}  # removed from the fight on this segment
        self.series: dict[int, list[tuple[int, int | float]]] = {}
        self.down: dict[int, list[list[int]]] = {}  # [start, end] intervals; end -1: still down
        self._by: Action | None = None
        super().__init__(setup)

    # -- the notes
    def sample(self) -> None:
        if len(self.seen) > len(self.combatants) + len(self.left):
            here = {id(c) for c in self.combatants.values()}
            for key in self.seen:
                if key not in here and key not in self.left:
                    self.left[key] = self.now
        for c in self.combatants.values():
            key = id(c)
            if key not in self.seen:
                self.seen[key], self.joined[key] = c, self.now
            main = main_resource(c, self.setup.down_when)
            if main:
                points = self.series.setdefault(key, [])
                value = c.resources[main]
                if not points or points[-1][1] != value:
                    points.append((self.now, value))
            spans = self.down.setdefault(key, [])
            if c.down and (not spans or spans[-1][1] != -1):
                spans.append([self.now, -1])
            elif not c.down and spans and spans[-1][1] == -1:
                spans[-1][1] = self.now

    def _changes(self, before: dict[int, dict[str, Any]]) -> list[tuple[Combatant, str, int | float]]:
        """(combatant, resource, loss) for every resource that changed since `before`."""
        out = []
        for c in self.combatants.values():
            old = before.get(id(c))
            if old is None:
                continue
            for key, value in c.resources.items():
                was = old.get(key)
                if isinstance(was, (int, float)) and isinstance(value, (int, float)) and was != value:
                    out.append((c, key, was - value))
        return out

    def _resources(self) -> dict[int, dict[str, Any]]:
        return {id(c): dict(c.resources) for c in self.combatants.values()}

    # -- the hooks (each calls the engine's own rule, then notes what changed)
    def _declare(self, args: dict[str, Any]) -> None:
        self._initiated(lambda: super(_Watch, self)._declare(args), args)

    def _maintain(self, args: dict[str, Any]) -> None:
        self._initiated(lambda: super(_Watch, self)._maintain(args), args)

    def _initiated(self, initiate: Any, args: dict[str, Any]) -> None:
        c = self.combatant(args["actor"])
        hidden = c.hidden
        count = len(self.actions)
        initiate()
        if len(self.actions) > count:
            action = self.actions[-1]
            self.owner[action.id] = c
            if hidden:
                self.unseen.add(action.id)
            chance = args.get("chance")
            if isinstance(chance, str):
                self.chances[action.id] = Fraction(chance)

    def _actor(self, action: Action) -> Combatant | None:
        # Costs paid on initiation apply before `_initiated` has noted the action's owner.
        return self.owner.get(action.id) or self.combatants.get(action.actor)

    def _apply_one(self, action: Action, effect: fx.Effect, interrupt_from: int) -> None:
        outer, self._by = self._by, action
        try:
            if isinstance(effect, fx.Adjust):
                before = self._resources()
                super()._apply_one(action, effect, interrupt_from)
                actor = self._actor(action)
                for c, key, loss in self._changes(before):
                    if c is actor and loss > 0:
                        self.costs.append((self.now, c, key, loss))
                    else:
                        self.hits.append(_Hit(self.now, actor, bool(actor and actor.hidden), c, key, loss))
            else:
                super()._apply_one(action, effect, interrupt_from)
        finally:
            self._by = outer

    def _hurt(self, effect: fx.Damage, interrupt_from: int) -> None:
        before = self._resources()
        super()._hurt(effect, interrupt_from)
        dealer = self._actor(self._by) if self._by is not None else None
        for c, key, loss in self._changes(before):
            self.hits.append(_Hit(self.now, dealer, bool(dealer and dealer.hidden), c, key, loss))

    def _paid(self, before: dict[int, dict[str, Any]]) -> None:
        for c, key, loss in self._changes(before):
            self.costs.append((self.now, c, key, loss))

    def _pay(self, segment: int) -> None:
        before = self._resources()
        super()._pay(segment)
        self._paid(before)

    def _pay_in_bulk(self, first: int, target: int) -> bool:
        before = self._resources()
        paid = super()._pay_in_bulk(first, target)
        self._paid(before)
        if paid:
            self.sample()
        return paid

    def _arrive(self, segment: int) -> None:
        super()._arrive(segment)
        self.sample()

    def _throw(self, c: Combatant, effect: fx.Throwback, interrupt_from: int) -> None:
        self.marks.append(_Mark(c, "throwback", self.now, self.now + max(effect.airborne, 0)))
        super()._throw(c, effect, interrupt_from)

    def _add_condition(self, c: Combatant, name: str, duration: int) -> None:
        self.marks.append(_Mark(c, name, self.now, self.now + duration))
        super()._add_condition(c, name, duration)


def main_resource(c: Combatant, down_when: tuple[str, ...]) -> str:
    """The resource a combatant's chart follows: the first that puts it down, else its first."""
    for key in down_when:
        if isinstance(c.resources.get(key), (int, float)):
            return key
    for key, value in c.resources.items():
        if isinstance(value, (int, float)):
            return key
    return ""


# --------------------------------------------------------------------- luck
@dataclass(frozen=True, slots=True)
class Luck:
    """Successes against the chances shown. `tail`: the probability, under the
    Poisson-binomial of the chances, of a count at least as far from `expected` as
    `successes`, either way (1 when nothing was rolled)."""

    rolls: int = 0
    successes: int = 0
    expected: Fraction = Fraction(0)
    tail: Fraction | float = Fraction(1)
    exact: bool = True
    unrecorded: int = 0  # rolled actions whose chance was not kept (older saves)
    weighed: bool = True  # False past MAX_LUCK_ROLLS rolls: `tail` not worked out

    @property
    def verdict(self) -> str:
        if not self.rolls:
            return "no chances recorded" if self.unrecorded else "no rolls"
        if not self.weighed:
            return f"not weighed (more than {MAX_LUCK_ROLLS:,} rolls)"
        lean = "luckier than expected" if self.successes > self.expected else "unluckier than expected" if self.successes < self.expected else "exactly as expected"
        if self.successes != self.expected and float(self.tail) >= NOTABLE:
            lean = "about as expected"
        return lean

    def to_json(self) -> dict[str, Any]:
        return {
            "rolls": self.rolls,
            "successes": self.successes,
            "expected": float(self.expected),
            "expected_fraction": f"{self.expected.numerator}/{self.expected.denominator}",
            "tail": float(self.tail) if self.weighed else None,
            "tail_exact": self.exact,
            "unrecorded": self.unrecorded,
            "weighed": self.weighed,
            "verdict": self.verdict,
        }


def poisson_binomial(chances: list[Fraction]) -> list[Fraction] | list[float]:
    """P(exactly k successes) for k = 0..n, the rolls independent with these chances.
    Exact up to MAX_LUCK_EXACT rolls (whole-number weights over one common denominator,
    no fraction arithmetic in the loop), floats beyond (the exact denominators multiply
    with every roll)."""
    if len(chances) > MAX_LUCK_EXACT:
        floats = [1.0]
        for p in chances:
            q = float(p)
            floats = [a * (1 - q) + b * q for a, b in zip(floats + [0.0], [0.0] + floats)]
        return floats
    weights, denominator = [1], 1
    for p in chances:
        yes, all_ = p.numerator, p.denominator
        no = all_ - yes
        weights = [a * no + b * yes for a, b in zip(weights + [0], [0] + weights)]
        denominator *= all_
    return [Fraction(w, denominator) for w in weights]


def luck_of(chances: list[Fraction], outcomes: list[bool], unrecorded: int = 0) -> Luck:
    if not chances:
        return Luck(unrecorded=unrecorded)
    expected = sum(chances, Fraction(0))
    successes = sum(outcomes)
    if len(chances) > MAX_LUCK_ROLLS:
        return unweighed(len(chances), successes, expected, unrecorded)
    dist = poisson_binomial(chances)
    far = abs(successes - expected)
    tail: Any = dist[0] * 0
    for k, weight in enumerate(dist):
        if abs(k - expected) >= far:  # as far from the expectation as the count seen, or further
            tail += weight
    exact = isinstance(tail, Fraction)
    return Luck(len(chances), successes, expected, min(tail, 1) if exact else min(float(tail), 1.0), exact, unrecorded)


def unweighed(rolls: int, successes: int, expected: Fraction, unrecorded: int = 0) -> Luck:
    """The luck of more than MAX_LUCK_ROLLS rolls: counted, not weighed."""
    return Luck(rolls, successes, expected, Fraction(1), False, unrecorded, weighed=False)


# --------------------------------------------------------------------- results
@dataclass(slots=True)
class Tally:
    """One combatant's or one side's figures."""

    name: str
    side: str = ""
    declared: int = 0
    succeeded: int = 0
    missed: int = 0
    no_roll: int = 0
    secret: int = 0  # outcome rolled in secret (viewers only)
    aborted: int = 0
    interrupted: int = 0
    dealt: dict[str, int | float] = field(default_factory=dict)
    taken: dict[str, int | float] = field(default_factory=dict)
    healed: dict[str, int | float] = field(default_factory=dict)
    costs: dict[str, int | float] = field(default_factory=dict)
    acting: int = 0
    idle: int = 0
    down: int = 0
    withheld: bool = False  # figures withheld from viewers (label or hidden mode)
    label: str = ""  # the health label viewers see instead
    luck: Luck = field(default_factory=Luck)
    _chances: list[Fraction] = field(default_factory=list, repr=False)
    _outcomes: list[bool] = field(default_factory=list, repr=False)
    _unrecorded: int = 0

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name}
        if self.side:
            out["side"] = self.side
        out.update(
            declared=self.declared, succeeded=self.succeeded, missed=self.missed, no_roll=self.no_roll,
            rolled_in_secret=self.secret, aborted=self.aborted, interrupted=self.interrupted,
            dealt=dict(self.dealt), taken=dict(self.taken), healed=dict(self.healed), costs=dict(self.costs),
            acting=self.acting, idle=self.idle, down=self.down, luck=self.luck.to_json(),
        )
        if self.withheld:
            out["withheld"] = True
            for key in ("taken", "healed", "costs"):
                out[key] = None
            if self.label:
                out["health"] = self.label
        return out


@dataclass(frozen=True, slots=True)
class Bar:
    """An action on the fight's timeline: from `start` to `end` (the completion, or
    where it was cut)."""

    start: int
    end: int
    mode: str
    maintained: bool
    status: str
    template: str


@dataclass(slots=True)
class Row:
    """One combatant's row of the whole-fight timeline and its resource series."""

    name: str
    side: str
    bars: list[Bar] = field(default_factory=list)
    marks: list[tuple[str, int, int]] = field(default_factory=list)  # (what, start, end)
    resource: str = ""
    maximum: int | float | None = None
    series: list[tuple[int, int | float]] = field(default_factory=list)  # (segment, value) at each change
    withheld: bool = False
    label: str = ""


@dataclass(slots=True)
class FightStats:
    name: str
    ruleset: str
    now: int
    rounds: int
    round_name: str
    segments_per_round: int
    viewer: bool
    combatants: list[Tally]
    sides: list[Tally]
    rows: list[Row]
    # damage dealt per round, by the dealer's side: {side: [round 1, round 2, ...]}
    by_round: dict[str, list[int | float]]
    withheld: list[str]  # what viewers are not shown, in words

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "ruleset": self.ruleset,
            "segment": self.now,
            "rounds": self.rounds,
            "viewer": self.viewer,
            "combatants": [t.to_json() for t in self.combatants],
            "sides": [t.to_json() | {"members": members} for t, members in zip(self.sides, self.members())],
            "timeline": [
                {
                    "name": r.name,
                    "actions": [{"start": b.start, "end": b.end, "mode": b.mode, "maintained": b.maintained, "status": b.status, "template": b.template} for b in r.bars],
                    "marks": [{"what": w, "start": s, "end": e} for w, s, e in r.marks],
                }
                for r in self.rows
            ],
            "resources": [
                {"name": r.name, "resource": r.resource, "maximum": r.maximum, "points": [list(p) for p in r.series]}
                if not r.withheld else {"name": r.name, "resource": r.resource, "withheld": True, "health": r.label or None}
                for r in self.rows
            ],
            "damage_by_round": {"round_name": self.round_name, "sides": {k: list(v) for k, v in self.by_round.items()}},
            "withheld": list(self.withheld),
        }

    def members(self) -> list[list[str]]:
        return [[t.name for t in self.combatants if t.side == s.name] for s in self.sides]


def _add(table: dict[str, int | float], key: str, amount: float) -> None:
    table[key] = table.get(key, 0) + amount


def _union(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[list[int]] = []
    for lo, hi in sorted(spans):
        if hi <= lo:
            continue
        if merged and lo <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    return [(a, b) for a, b in merged]


def _length(spans: list[tuple[int, int]]) -> int:
    return sum(b - a for a, b in _union(spans))


def bar_end(action: Action, now: int) -> int:
    """Where an action's bar ends: its completion, or the segment it was cut on."""
    if action.status == IN_PROGRESS or action.ended is None:
        return action.completes
    return action.ended


def side_of(c: Combatant) -> str:
    return c.side or c.name


def fold(encounter: Encounter) -> _Watch:
    """The fight folded again with every change noted: what `fight_stats` reads (fold
    once to read several views of the same fight)."""
    watch = _Watch(encounter.setup)
    watch.sample()
    for event in encounter.effective_events():
        watch._current_seq = event.seq
        watch._handlers[event.kind](watch, event.args)
        watch.sample()
    return watch


def fight_stats(encounter: Encounter, *, viewer: bool = False, role: Role | None = None, folded: _Watch | None = None, luck: bool = True) -> FightStats:
    """The figures of the fight so far (docs/decisions/0009-fight-stats.md: what counts, what viewers see).
    `role`: a player's view, what a viewer sees plus its own combatants in full (as
    `tracker.reading.report.to_json` shows them). `folded`: the fight as `fold` gave it (else
    folded here); `luck=False` leaves the luck tails uncomputed (each tally keeps its
    chances and outcomes: a campaign sums them over fights)."""
    player = role is not None and role.is_player
    viewer = viewer or player

    def own(c: Combatant) -> bool:
        return player and role is not None and role.owns(c.name)

    watch = folded if folded is not None else fold(encounter)
    now = watch.now
    for spans in watch.down.values():
        for span in spans:
            if span[1] == -1:
                span[1] = now

    people = list(watch.seen.values())
    if viewer:
        people = [c for c in people if not c.hidden or own(c)]
    keep = {id(c) for c in people}
    views = {id(c): shown(encounter, c, viewer and not own(c)) for c in people}
    tallies = {id(c): Tally(c.name, side_of(c)) for c in people}
    withheld_notes: list[str] = []
    for c in people:
        view = views[id(c)]
        if view.withheld:
            tallies[id(c)].withheld, tallies[id(c)].label = True, view.label
            withheld_notes.append(f"{c.name}: figures withheld from viewers" + (f" ({view.label})" if view.label else ""))

    acting: dict[int, list[tuple[int, int]]] = {k: [] for k in keep}
    rows = {id(c): Row(c.name, side_of(c)) for c in people}
    unseen_actions = 0
    for action in watch.actions:
        actor = watch.owner.get(action.id)
        if actor is None or id(actor) not in keep:
            continue
        if viewer and action.id in watch.unseen and not own(actor):
            unseen_actions += 1
            continue
        t = tallies[id(actor)]
        t.declared += 1
        end = bar_end(action, now)
        acting[id(actor)].append((action.start, min(end, now)))
        rows[id(actor)].bars.append(Bar(action.start, end, action.mode, action.maintained, action.status, action.template))
        t.aborted += action.status == ABORTED
        t.interrupted += action.status == INTERRUPTED
        success = action.resolution.success
        if viewer and action.secret and not own(actor):
            t.secret += 1
        elif success is None:
            t.no_roll += 1
        else:
            t.succeeded += success is True
            t.missed += success is False
            if action.resolution.details.get(CARRIED_ROLL):
                continue  # an earlier roll carried over (a maintained link): no roll against odds
            chance = watch.chances.get(action.id)
            if chance is None:
                t._unrecorded += 1
            else:
                t._chances.append(chance)
                t._outcomes.append(bool(success))
    if unseen_actions:
        withheld_notes.append(f"{unseen_actions} action(s) taken while hidden are not counted")

    time = encounter.setup.time
    rounds = time.round_of(now)[0]
    by_round: dict[str, list[int | float]] = {}
    hidden_dealt = 0
    for hit in watch.hits:
        if id(hit.target) not in keep:
            continue
        target = tallies[id(hit.target)]
        figures_shown = not target.withheld
        if hit.amount > 0:
            if figures_shown:
                _add(target.taken, hit.resource, hit.amount)
        elif figures_shown:
            _add(target.healed, hit.resource, -hit.amount)
        if hit.amount <= 0:
            continue
        if not figures_shown:
            continue  # damage dealt to an enemy whose figures are withheld: withheld too
        if hit.dealer is None:
            who = BY_HAND
        elif viewer and (hit.dealer_hidden or id(hit.dealer) not in keep):
            who, hidden_dealt = UNSEEN, hidden_dealt + 1
        else:
            dealer = tallies[id(hit.dealer)]
            _add(dealer.dealt, hit.resource, hit.amount)
            who = dealer.side
        per = by_round.setdefault(who, [0] * rounds)
        per[min(time.round_of(hit.segment)[0], rounds) - 1] += hit.amount
    if hidden_dealt:
        withheld_notes.append(f"damage from {hidden_dealt} blow(s) by unseen combatants is not credited to anyone")
    for _, c, key, amount in watch.costs:
        if id(c) in keep and not tallies[id(c)].withheld:
            _add(tallies[id(c)].costs, key, amount)

    down_when = encounter.setup.down_when
    for c in people:
        ident, t, row = id(c), tallies[id(c)], rows[id(c)]
        present = max(watch.left.get(ident, now) - watch.joined.get(ident, 0), 0)
        acted = _union(acting[ident])
        down = [(a, b) for a, b in watch.down.get(ident, ())]
        if t.withheld:
            down = []  # its time down would tell viewers its figures: counted as idle
        t.acting = _length(acted)
        t.down = _length(down)
        t.idle = max(present - _length(acted + down), 0)
        if luck:
            t.luck = luck_of(t._chances, t._outcomes, t._unrecorded)
        row.marks = [(m.what, m.start, m.end) for m in watch.marks if m.who is c]
        row.resource = main_resource(c, down_when)
        row.withheld, row.label = t.withheld, t.label
        if not t.withheld and row.resource:
            row.maximum = c.maxima.get(row.resource)
            row.series = list(watch.series.get(ident, ()))

    sides: dict[str, Tally] = {}
    for c in people:
        t = tallies[id(c)]
        s = sides.setdefault(t.side, Tally(t.side))
        for name in ("declared", "succeeded", "missed", "no_roll", "secret", "aborted", "interrupted", "acting", "idle", "down", "_unrecorded"):
            setattr(s, name, getattr(s, name) + getattr(t, name))
        s._chances += t._chances
        s._outcomes += t._outcomes
        for name in ("dealt", "taken", "healed", "costs"):
            for k, v in getattr(t, name).items():
                _add(getattr(s, name), k, v)
        s.withheld = s.withheld or t.withheld
    for s in sides.values():
        if luck:
            s.luck = luck_of(s._chances, s._outcomes, s._unrecorded)
        s.withheld = all(tallies[id(c)].withheld for c in people if tallies[id(c)].side == s.name)
    return FightStats(
        encounter.setup.name, encounter.setup.ruleset, now, rounds, time.round_name, time.segments_per_round, viewer,
        [tallies[id(c)] for c in people], list(sides.values()), [rows[id(c)] for c in people], by_round, withheld_notes,
    )
