"""The One-Roll Engine adapter (`seeds/003_...`, CyberORE; combat from Wild Talents/Reign).

Rules from the seed (reproduced by tests/test_ore.py): pools of d10s; matching dice
make sets, width x height; any set succeeds, a difficulty asks for a set at least that
high; hard dice are 10s; wiggle dice are set after the roll; penalty dice come off
hard, then normal, then wiggle; in a dynamic contest the wider set goes first and the
narrower must beat its height; widths tied (or order not mattering), the higher wins;
an extra set can serve an extra action whose pool is at least as large.
Combat (reference/systems.md): hit location by height, Shock and Killing damage by
width, heavy and light armour, gobble dice, wound boxes per location.

Decisions where the sources are silent:
- Time: a round is 10 segments (declare, roll, resolve). Every action declared in a
  round completes on the first segment of the next round, where the engine resolves
  them one by one, widest set first, then highest (`order = (width, height)`,
  `TimeMapping(simultaneous=False)`): a combatant put down by a faster set loses its
  own. The seed orders sets by width, then height, and says no more; sets of the same
  width and height happen at once (as Wild Talents resolves identical sets): neither
  loses its action to the other, whichever was typed first, and their effects apply
  by the acting character's name (then start, then action). The default performance time is "to the end of the round"; `pt=` overrides.
  A move is passive and takes 5 segments.
- At most 12 normal dice are rolled (table data): the largest pool the rules text
  describes, a stat of "no more than 5d", a skill "from 0 dice to 5d" and a bonus for
  an easier action ("you might add 1d or even 2d"). Hard and wiggle dice are not rolled
  and do not count against it; dice over it soak penalty dice first.
- Multiple actions follow the seed, not the usual ORE penalty: "If you roll an extra
  matching set, you can use it on an extra action with no penalty—but only if your
  extra action has a dice pool equal to or larger than that of your primary action".
  An attack given several targets is one action per target with the same pool, so no
  die is lost; each target needs its own set (widest first); a target left without a
  set is not hit. A set left over is reported as free for an extra action whose pool
  is at least as large.
- A failed roll of all low dice (every rolled die 5 or less: the lower half of the
  d10) is flagged as the seed's worse failure ("A failed roll is worse than usual if
  you roll all low dice"); what goes wrong is the GM's call.
- Wiggle dice: `wiggle=7,7` states their faces (the GM's choice); otherwise the
  adapter puts them all where they make the widest, then highest set that meets the
  difficulty (in a dynamic contest: the highest, then widest).
- Dynamic contest (`contest` in the timeline, `--vs` on the command line): the wider
  set wins (it goes first and takes effect); the narrower "must beat the wider roll's
  height as a Difficulty number", and a Difficulty is met by a height that does "equal
  or beat" it, so by default a narrower set of equal height also succeeds afterwards.
  The GM may read "beat" strictly instead: the encounter setting
  `narrower_equal_height = "fails"` (`--set narrower_equal_height=fails`). Identical
  sets, or no set on either side, are a draw; a set beats none.
  `first_matters=false` judges on height alone. In the timeline both sides roll at
  declaration (the actor's dice first, then the target's), the target with the same
  stat and skill unless `vs_stat=`, `vs_skill=` or `vs_pool=` say otherwise.
- Gobble dice: a `dodge` or `block` landing on the same segment as an attack gives
  gobble dice (its width, at its height), whenever in the round either was typed. An
  attack resolving no sooner than it (order not greater) loses one die per gobble die
  of equal or greater height, as many as it takes to spoil the set, or all that are
  left; blows on one target meet the dice widest first, then highest, then by
  attacker's name. All of this is judged when the blow lands (docs/contributing/design.md#judged-on-landing), as is the
  target's armour. `gobble=WxH` states them by hand.
- Wound boxes are marked when the blow lands (docs/contributing/design.md#judged-on-landing: damage is judged against what
  the target has then): each hit is a `Blow` judged by "ore.wound" in the round's
  resolution order (widest, then highest), so two attacks on one target fill its boxes
  in the order they resolve, never the order they were typed. The summary at
  initiation shows the boxes as things stood then.
- Head or torso with no empty box puts the combatant down: full of Killing is dead,
  otherwise out. Excess Shock past a full location is lost; Killing from a limb goes
  to the torso (`overflow` table).
- ORE has no payment segments.

History: docs/decisions/0033-ore-extra-actions.md
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from fractions import Fraction
from functools import cached_property
from typing import Any

from tracker.engine.clock import TimeMapping
from tracker.engine.effects import Blow, Damage, Effect, Note, Resolution, landing
from tracker.engine.errors import TrackerError
from tracker.engine.model import ACTIVE, COMPLETED, IN_PROGRESS, PASSIVE, Combatant
from rulesets.base import JUDGE_KEY, ActionRequest, ActionTemplate, RollResult, Ruleset
from rulesets.dice import DiceSource, parse_faces
from rulesets.fields import PARAM, SETTING, Field, coerce_all
from rulesets.ore import odds
from rulesets.ore.combat import armour, boxes_of, gobble, location_for, mark, parse_damage
from rulesets.ore.pool import (EQUAL_HEIGHT_READINGS, EQUAL_SUCCEEDS, Outcome, Penalised, Pool, contest, highest,
                               narrower_succeeds, penalise, roll, widest)
from rulesets.ore.pool import parse as parse_pool
from rulesets.ore.sheet import ATTACK_PARAMS, CHECK_PARAMS, CONTEST_PARAMS, DEFENCE_PARAMS, LOCATIONS, SHEET
from rulesets.ore.tables import OreTables

SETTINGS = (
    Field("narrower_equal_height", "choice", EQUAL_SUCCEEDS, choices=EQUAL_HEIGHT_READINGS, role=SETTING,
          help="dynamic contest: a narrower set of the wider one's height succeeds afterwards (its height meets it "
               "'as a Difficulty number', equal or beat), or fails (it must beat it)"),
)

_ROLL_OPTIONS: tuple[Field, ...] = SETTINGS + (
    Field("penalty", "int", 0, 0, 40, role=PARAM, help="penalty dice"),
    Field("wiggle", "str", None, role=PARAM, help="faces for the wiggle dice, e.g. 7,7"),
    Field("vs_penalty", "int", 0, 0, 40, role=PARAM, help="penalty dice on the other side"),
    Field("vs_wiggle", "str", None, role=PARAM, help="the other side's wiggle faces"),
    Field("first_matters", "bool", True, role=PARAM, help="a dynamic contest where who goes first matters"),
)

_ATTACKS = ("punch", "strike", "shoot")
_DEFENCES = ("dodge", "block")


def _wiggles(text: str | None, label: str) -> list[int] | None:
    if text is None or text == "":
        return None
    return parse_faces(text, label)


WOUND_JUDGE = "ore.wound"


def wound_effects(target: Combatant, location: str, shock: int, killing: int, sizes: Mapping[str, int],
                  overflow: Mapping[str, str], resources: Mapping[str, Any] | None = None) -> list[Effect]:
    """Boxes marked on `target` as it stands now (or with `resources` in place of its
    own), Killing from a limb going on (overflow)."""
    resources = dict(target.resources if resources is None else resources)
    effects: list[Effect] = []
    loc, s, k = location, shock, killing
    seen: set[str] = set()
    while loc and loc not in seen:
        seen.add(loc)
        size = int(sizes.get(loc, target.maxima.get(loc, 1)))
        before = boxes_of(resources, target.maxima, loc, size)
        after, over = mark(before, s, k)
        for key, old, new in ((loc, before.empty, after.empty), (f"{loc}_k", before.unkilled, after.unkilled)):
            if old != new:
                effects.append(Damage(target.name, old - new, key))
                resources[key] = new
        if after.empty == 0 and loc in ("head", "torso") and before.empty > 0:
            state = "dead" if after.unkilled == 0 else "out"
            effects.append(Note(f"{target.name}'s {loc} is full{' of Killing' if state == 'dead' else ''}: {target.name} is {state}"))
        nxt = overflow.get(loc, "")
        if over and nxt:
            effects.append(Note(f"{over} killing overflows from {target.name}'s {loc.replace('_', ' ')} to the {nxt}"))
            loc, s, k = nxt, 0, over
        else:
            loc = ""
    return effects


def _manual_gobble(text: str | None) -> tuple[int, int] | None:
    """`gobble=WxH` stated by hand: (dice, height); None when not stated (or 0)."""
    if text is None or text.strip() in ("", "0"):
        return None
    match = re.fullmatch(r"\s*(\d+)\s*x\s*(\d+)\s*", text)
    if match is None:
        raise TrackerError(f"gobble: expected gobble dice as WxH such as 2x8, got {text!r}")
    return int(match.group(1)), int(match.group(2))


def _blow_key(action: Any, index: int) -> tuple[Any, ...]:
    """The order blows on one target meet its gobble dice: the round's resolution order
    (widest, then highest), then by who struck, never by the order they were typed."""
    order = tuple(action.resolution.order)
    return (tuple(-x for x in order), action.actor, action.start, index)


def gobbled_at_landing(encounter: Any, action: Any, index: int) -> list[tuple[Any, int]]:
    """The target's gobble dice this blow meets when it lands: every dodge or block of
    the target landing on this segment whose set resolves no later than the blow
    (order not lower), less what blows ahead of this one took. Returns (defence, dice
    used) pairs; the width lost is their sum."""
    rec = action.resolution.details["hits"][index]
    target, now = rec["target"], encounter.now
    defences = sorted(
        (a for a in encounter.actions
         if a.actor == target and a.resolution.details.get("gobble") and a.completes == now
         and a.status in (IN_PROGRESS, COMPLETED)),
        key=lambda a: (a.start, a.template))
    if not defences:
        return []
    left = {d.id: int(d.resolution.details["gobble"][0]) for d in defences}
    blows = sorted(
        ((a, i) for a in encounter.actions if a.completes == now and a.status in (IN_PROGRESS, COMPLETED)
         and a.resolution.details.get(JUDGE_KEY) == WOUND_JUDGE
         for i, r in enumerate(a.resolution.details.get("hits", []))
         if r.get("target") == target and r.get("gobble") is None),
        key=lambda pair: _blow_key(*pair))
    for other, i in blows:
        width, height = (int(x) for x in other.resolution.details["hits"][i]["set"])
        used_here: list[tuple[Any, int]] = []
        for d in defences:
            if tuple(d.resolution.details["gobble"]) < tuple(other.resolution.order):
                continue
            new, used = gobble(width, height, left[d.id], int(d.resolution.details["gobble"][1]))
            if used:
                left[d.id] -= used
                used_here.append((d, used))
                width = new
        if other is action and i == index:
            return used_here
    return []


def judge_wound(encounter: Any, action: Any, blow: Blow) -> list[Effect]:
    """An ORE hit lands: gobble dice, armour and wound boxes as they are now."""
    found = landing(encounter, action, blow, action.resolution.details.get("hits", []))
    if isinstance(found, list):
        return found
    hit, target = found
    head = f"{action.actor}'s {action.template} lands on {target.name}"
    if "set" not in hit:  # stored before gobble was judged at landing: as it was rolled
        return wound_effects(target, str(hit["location"]), int(hit["shock"]), int(hit["killing"]),
                             dict(hit.get("sizes", {})), dict(hit.get("overflow", {})))
    width, height = (int(x) for x in hit["set"])
    notes = [f"{width}x{height}"]
    manual = _manual_gobble(hit.get("gobble"))
    if manual is not None:
        new, used = gobble(width, height, *manual)
        if used:
            notes.append(f"gobbled {used} (stated): width {width} -> {new}")
        width = new
    else:
        for defence, used in gobbled_at_landing(encounter, action, blow.index):
            notes.append(f"{target.name}'s {defence.template} gobbles {used}: width {width} -> {width - used}")
            width -= used
    if width < 2:
        return [Note(f"{head}: {'; '.join(notes)}: spoiled")]
    formula = parse_damage(str(hit["damage"]), "damage")
    har, lar = int(target.stats.get("har", 0)), int(target.stats.get("lar", 0))
    armoured = armour(width, formula, har, lar, int(hit.get("penetration", 0)))
    location = str(hit["location"])
    notes.append(f"hits the {location.replace('_', ' ')}")
    if armoured.note:
        notes.append(f"({armoured.note})")
    if armoured.width <= 1:
        return [Note(f"{head}: {' '.join(notes)}")]
    notes.append(f"for {armoured.shock} shock, {armoured.killing} killing")
    return [Note(f"{head}: {' '.join(notes)}"),
            *wound_effects(target, location, armoured.shock, armoured.killing,
                           dict(hit.get("sizes", {})), dict(hit.get("overflow", {})))]


def worse_failure(outcome: Outcome) -> bool:
    """No set meets the difficulty and every rolled die is low (1-5)."""
    valid = [s for s in outcome.sets() if s[1] >= outcome.difficulty]
    return not valid and bool(outcome.normal) and all(f <= 5 for f in outcome.normal) and not outcome.hard and not outcome.wiggle


def _set_text(s: tuple[int, int] | None) -> str:
    return f"{s[0]}x{s[1]}" if s else "no set"


def _rolls(row: Mapping[str, str]) -> str:
    """What an action's row rolls, as `pool_for` reads it: its stat (Body where a house
    row names none) and its skill, if it names one."""
    stat = row.get("stat") or "body"
    return f"{stat} + {row['skill']}" if row.get("skill") else stat


def _stated_pool(spec: str, label: str) -> Pool:
    """A pool typed for a roll (`pool=` in the timeline, SPEC on the command line) rolls
    something: "0d" (a term of no dice) and an empty pool are refused, where a sheet's
    untrained skill may be 0d."""
    for term in spec.replace(" ", "").lower().split("+"):
        if re.fullmatch(r"0+(d|hd|wd)", term):
            raise TrackerError(f"{label} {spec!r}: term {term!r} has no dice (leave it out)")
    pool = parse_pool(spec, label)
    if pool.size == 0:
        raise TrackerError(f"{label} {spec!r}: no dice to roll")
    return pool


class OreRuleset(Ruleset):
    id = "ore"
    name = "One-Roll Engine"
    description = "ORE: d10 pools, width x height sets, hard and wiggle dice, hit locations"
    time = TimeMapping(segments_per_round=10, segment_means="a tenth of a round; sets resolve at the round's end",
                       simultaneous=False)
    sheet = SHEET
    settings = SETTINGS
    down_when = ("head", "torso")
    tables_file = "tables.toml"
    judges = {WOUND_JUDGE: judge_wound}

    # ------------------------------------------------------------ tables
    @cached_property
    def data(self) -> OreTables:
        """Every table read and checked (`OreTables.read`), once."""
        return OreTables.read(self.tables, _ATTACKS + _DEFENCES)

    def check_tables(self) -> None:
        _ = self.data

    def _dice_rules(self) -> tuple[int, tuple[str, ...]]:
        return self.data.max_rolled, self.data.penalty_order

    def penalise(self, pool: Pool, penalty: int) -> Penalised:
        cap, order = self._dice_rules()
        return penalise(pool, penalty, cap, order)

    def build_sheet(self, values: Mapping[str, Any], where: str) -> tuple[dict[str, Any], dict[str, Any]]:
        """As the base, with wound boxes from the (possibly house-ruled) table, and
        each `<location>_k` starting equal to its location's boxes."""
        boxes = self.data.wound_boxes
        given = dict(values)
        for loc in LOCATIONS:
            if loc not in given and loc in boxes:
                given[loc] = boxes[loc]
            if f"{loc}_k" not in given and loc in given:
                given[f"{loc}_k"] = given[loc]
        stats, resources = super().build_sheet(given, where)
        for loc in LOCATIONS:
            if resources.get(f"{loc}_k", 0) > resources.get(loc, 0):
                resources[f"{loc}_k"] = resources[loc]
        return stats, resources

    # ------------------------------------------------------------ catalogue
    def catalogue(self) -> Mapping[str, ActionTemplate]:
        out: dict[str, ActionTemplate] = {}
        for name in _ATTACKS:
            row = self.data.action(name)
            rolls = _rolls(row)
            out[name] = ActionTemplate(name, ACTIVE, self.time.segments_per_round,
                                       f"{rolls}; damage {row.get('damage', 'width shock')}; several targets = several actions",
                                       rolls=rolls, targets=-1, params=ATTACK_PARAMS)
        for name in _DEFENCES:
            rolls = _rolls(self.data.action(name))
            out[name] = ActionTemplate(name, ACTIVE, self.time.segments_per_round,
                                       f"{rolls}: gobble dice against this round's attacks", rolls=rolls, params=DEFENCE_PARAMS)
        out["contest"] = ActionTemplate("contest", ACTIVE, self.time.segments_per_round,
                                        "a dynamic contest: both roll; the wider set goes first and takes effect, "
                                        "the narrower must meet its height", rolls="stat + skill, both sides", targets=1,
                                        params=CONTEST_PARAMS)
        out["check"] = ActionTemplate("check", ACTIVE, self.time.segments_per_round, "any roll: stat= skill= or pool=, difficulty=",
                                      rolls="stat + skill", params=CHECK_PARAMS)
        out["move"] = ActionTemplate("move", PASSIVE, 5, "move while doing something else")
        return out

    # ------------------------------------------------------------ pools
    def pool_for(self, who: Combatant, name: str, params: Mapping[str, Any]) -> Pool:
        if params.get("pool") is not None:
            pool = _stated_pool(str(params["pool"]), "pool")
        else:
            row = self.data.action(name)
            stat = params.get("stat") or row.get("stat") or "body"
            skill = params.get("skill") or row.get("skill")
            pool = parse_pool(str(who.stats.get(stat, "0d")), f"{who.name}.{stat}")
            if skill:
                pool = pool + parse_pool(str(who.stats.get(skill, "0d")), f"{who.name}.{skill}")
        return pool + Pool(int(params.get("bonus") or 0))

    def default_pt(self, request: ActionRequest) -> int:
        """To the end of the round (a passive action: its template's time)."""
        if request.template.mode == PASSIVE:
            return request.template.pt
        spr = self.time.segments_per_round
        return spr - request.segment % spr

    # ------------------------------------------------------------ resolve
    def resolve(self, request: ActionRequest, dice: DiceSource) -> Resolution:
        name = request.template.name
        pt = request.performance_time
        if name == "move":
            return Resolution(pt=pt)
        params = request.params
        if name == "contest":
            return self._contest(request, dice, pt)
        actions = max(1, len(request.targets)) if name in _ATTACKS else 1
        pool = self.pool_for(request.actor, name, params)
        rolled_pool = self.penalise(pool, int(params.get("penalty") or 0))
        difficulty = int(params.get("difficulty") or 1)
        outcome = roll(rolled_pool.pool, dice, difficulty, _wiggles(params.get("wiggle"), "wiggle"), label=name)
        valid = [s for s in outcome.sets() if s[1] >= difficulty]
        best = valid[0] if valid else None
        order = best if best else (0, 0)
        summary = f"{rolled_pool.text()}: {outcome.shown()} -> {', '.join(map(_set_text, outcome.sets())) or 'no set'}"
        if difficulty > 1:
            summary += f" (difficulty {difficulty})"
        details: dict[str, Any] = {"pool": pool.text(), "rolled": rolled_pool.pool.text(),
                                   "sets": [list(s) for s in outcome.sets()], "best": list(best) if best else [],
                                   "wiggle": outcome.wiggle}
        effects: list[Effect] = []
        success: bool | None = best is not None
        if worse_failure(outcome):
            details["worse_failure"] = True
            summary += "; a failure of all low dice: worse than usual (the GM says how)"
        if name in _DEFENCES:
            if best:
                details["gobble"] = list(best)
                summary += f"; {best[0]} gobble dice at height {best[1]}"
        elif name in _ATTACKS:
            if not request.targets:
                raise TrackerError(f"{name} needs a target (target=NAME)")
            landing: list[dict[str, Any]] = []
            for i, target in enumerate(request.targets):
                if i >= len(valid):
                    summary += f"; no set left for {target.name}"
                    continue
                text, record = self._aim(request, target, valid[i])
                summary += f"; {text}"
                landing.append(record)
                effects.append(Blow(target.name, len(landing) - 1))
            if landing:
                details["hits"] = landing
                details[JUDGE_KEY] = WOUND_JUDGE
                summary += "; gobble dice, armour and wounds judged when it lands"
            # Whether a set gets through (gobble dice, armour) is the landing's judgment:
            # the completion announces no success first.
            success = None
        spare = valid[actions:] if name != "check" else valid[1:]
        if request.params.get("also"):
            spare = self._also(request, pool, spare, details, effects)
            summary += f"; {details['also_text']}"
            if name not in _ATTACKS and effects:
                details[JUDGE_KEY] = WOUND_JUDGE
        if spare:
            summary += f"; extra set {', '.join(map(_set_text, spare))} free for another action with a pool of {pool.size}+ dice"
        return Resolution(pt=pt, success=success, margin=_set_text(best) if best else None,
                          dice=tuple(outcome.normal), summary=summary, effects=tuple(effects),
                          order=order, details=details)

    def _also(self, request: ActionRequest, pool: Pool, spare: list[tuple[int, int]], details: dict[str, Any],
              effects: list[Effect]) -> list[tuple[int, int]]:
        """`also=ACTION` or `also=ACTION:TARGET`: the next spare set serves an extra action,
        as the rules text allows: "If you roll an extra matching set, you can use it on an
        extra action with no penalty—but only if your extra action has a dice pool equal
        to or larger than that of your primary action, and only if the two actions are
        mutually compatible" (the GM's call, made by typing it). A dodge or block gives
        gobble dice, an attack lands on its target like the primary's, a check succeeds.
        Returns the sets still spare."""
        text = str(request.params["also"]).strip()
        name, _, aim = text.partition(":")
        name = name.strip().lower()
        if name not in (*_ATTACKS, *_DEFENCES, "check") or name == "contest":
            raise TrackerError(f"also={text}: expected an extra action such as dodge, block, check or punch:NAME "
                               f"(one of {', '.join((*_ATTACKS, *_DEFENCES, 'check'))})")
        extra_pool = self.pool_for(request.actor, name, {})
        if extra_pool.size < pool.size:
            raise TrackerError(f"also={text}: {name}'s pool {extra_pool.text()} is smaller than this action's {pool.text()}; "
                               "an extra set serves an extra action only if its pool is equal or larger")
        if not spare:
            raise TrackerError(f"also={text}: the roll has no extra set for it")
        chosen, rest = spare[0], spare[1:]
        if name in _ATTACKS:
            if not aim.strip():
                raise TrackerError(f"also={text}: an extra attack needs its target (also={name}:NAME)")
            enc = request.encounter
            if enc is None:
                raise TrackerError(f"also={text}: no fight to find {aim.strip()} in")
            target = enc.combatant(aim.strip())
            line, record = self._aim(request, target, chosen, name)
            hits = details.setdefault("hits", [])
            hits.append(record)
            effects.append(Blow(target.name, len(hits) - 1))
            details["also_text"] = f"extra set for {name}: {line}"
        elif name in _DEFENCES:
            details["gobble"] = list(chosen)
            details["also_text"] = f"extra set {_set_text(chosen)} for {name}: {chosen[0]} gobble dice at height {chosen[1]}"
        else:
            details["also_text"] = f"extra set {_set_text(chosen)} for check: success"
        details["also"] = [name, list(chosen)]
        return rest

    def _sides(self, request: ActionRequest) -> tuple[Combatant, Penalised, Penalised, bool]:
        """A contest's target, both sides' pools after penalty dice, and whether going
        first matters."""
        if len(request.targets) != 1:
            raise TrackerError("contest needs one target (target=NAME)")
        p = request.params
        rival = request.targets[0]
        own = self.penalise(self.pool_for(request.actor, "check", p), int(p.get("penalty") or 0))
        theirs = {"stat": p.get("vs_stat") or p.get("stat"), "skill": p.get("vs_skill") or p.get("skill"), "pool": p.get("vs_pool")}
        other = self.penalise(self.pool_for(rival, "check", theirs), int(p.get("vs_penalty") or 0))
        first = p.get("first_matters")
        return rival, own, other, True if first is None else bool(first)

    def _contest(self, request: ActionRequest, dice: DiceSource, pt: int) -> Resolution:
        """A dynamic contest (the rules text): both sides roll at declaration, the
        actor's dice first; the wider set goes first and takes effect, the narrower
        succeeds afterwards if its height meets the wider's (see the setting
        `narrower_equal_height`); widths tied or order not mattering, the higher wins."""
        rival, own_pool, rival_pool, first = self._sides(request)
        key = widest if first else highest
        own = roll(own_pool.pool, dice, 1, _wiggles(request.params.get("wiggle"), "wiggle"), key, label="contest")
        theirs = roll(rival_pool.pool, dice, 1, None, key, label="contest", who=rival.name)
        a, b = own.best(key), theirs.best(key)
        winner = contest(a, b, first)
        equal = str(request.settings.get("narrower_equal_height", EQUAL_SUCCEEDS))
        after = first and narrower_succeeds(a, b, equal)
        names = {"self": request.actor.name, "rival": rival.name}
        summary = (f"{own_pool.text()}: {own.shown()} -> {_set_text(a)} vs {rival.name} {rival_pool.text()}: "
                   f"{theirs.shown()} -> {_set_text(b)}: ")
        if winner == "draw":
            summary += "draw"
        elif a is None or b is None:
            summary += f"{names[winner]} wins: the only set"
        elif first and a[0] != b[0]:
            summary += f"{names[winner]} is wider, goes first and takes effect"
            loser = names["rival" if winner == "self" else "self"]
            summary += (f"; {loser}'s narrower set meets its height and also succeeds, afterwards" if after
                        else f"; {loser}'s narrower set does not meet its height")
        else:
            summary += f"{names[winner]} wins on height"
        order = a if a else (0, 0)
        return Resolution(pt=pt, success=None if winner == "draw" else winner == "self", margin=_set_text(a) if a else None,
                          dice=tuple(own.normal + theirs.normal), summary=summary, effects=(Note(summary),), order=order,
                          details={"best": list(a) if a else [], "vs_best": list(b) if b else [], "winner": winner,
                                   "narrower_succeeds": after})

    def _aim(self, request: ActionRequest, target: Combatant, chosen: tuple[int, int], template: str = "") -> tuple[str, dict[str, Any]]:
        """A set aimed at `target` (by `template`, the declared action's unless an extra
        action's): its record for the landing (docs/contributing/design.md#judged-on-landing), and the text as things stand
        now (no gobble dice yet: those are counted when it lands)."""
        width, height = chosen
        location = location_for(height, self.data.hit_locations)
        row = self.data.action(template or request.template.name)
        own = not template or template == request.template.name
        formula_text = (request.params.get("damage") if own else None) or row.get("damage", "width shock")
        if formula_text in ("weapon", "gun"):
            formula_text = str(request.actor.stats.get(formula_text, "width shock"))
        formula = parse_damage(formula_text, "damage")
        manual = request.params.get("gobble")
        _manual_gobble(manual)  # a malformed one is refused now, by name
        penetration = int(request.params.get("penetration") or 0)
        shock, killing = formula.at(width)
        record = {"target": target.name, "set": [width, height], "location": location, "damage": formula_text,
                  "penetration": penetration,
                  "sizes": dict(self.data.wound_boxes), "overflow": dict(self.data.overflow)}
        if manual not in (None, "", "0"):  # stated gobble dice (no None in a record: a save has no null)
            record["gobble"] = manual
        text = f"{_set_text(chosen)} at {target.name}'s {location.replace('_', ' ')} ({formula_text}: {shock} shock, {killing} killing before armour)"
        return text, record

    def after_roll(self, request: ActionRequest, resolution: Resolution) -> str:
        """Wiggle dice are set after the roll (the seed): '2 wiggle dice to set (1-10)'."""
        if not self.after_roll_fields(request):
            return ""
        count = len(resolution.details.get("wiggle", ()))
        if not count:
            return ""
        placed = " ".join(map(str, resolution.details["wiggle"]))
        return (f"{count} wiggle {'die' if count == 1 else 'dice'} to set, each to a face from 1 to 10 "
                f"(wiggle=7,7); unset, they go where they make the widest, then highest set (now {placed})")

    def chance_of(self, request: ActionRequest) -> Fraction | None:
        name = request.template.name
        if name == "move":
            return None
        if name == "contest":
            if len(request.targets) != 1:
                return None
            _, own, other, first = self._sides(request)
            return odds.win(own.pool, other.pool, first)
        # Extra targets take extra sets, not dice (the rules text), so the chance is the pool's.
        pool = self.pool_for(request.actor, name, request.params)
        rolled = self.penalise(pool, int(request.params.get("penalty") or 0))
        return odds.success(rolled.pool, int(request.params.get("difficulty") or 1))

    # ------------------------------------------------------------ command line
    def _side(self, spec: str, penalty: int, label: str) -> Penalised:
        return self.penalise(_stated_pool(spec, label), penalty)

    def roll(self, spec: str, dice: DiceSource, *, vs: str | None = None, vs_dice: DiceSource | None = None,
             difficulty: int | None = None, options: Mapping[str, Any] | None = None) -> RollResult:
        opts = coerce_all(_ROLL_OPTIONS, dict(options or {}), "--set")
        own_pool = self._side(spec, opts["penalty"], "ore pool")
        key = highest if vs is not None and not opts["first_matters"] else widest
        d = difficulty if difficulty is not None else 1
        own = roll(own_pool.pool, dice, d, _wiggles(opts.get("wiggle"), "--set wiggle"), key)
        best = own.best(key)
        fields: dict[str, Any] = {
            "sets": [list(s) for s in own.sets()], "best": list(best) if best else None,
            "difficulty": difficulty, "pool": own_pool.pool.text(), "removed": list(own_pool.removed),
            "hard": own.hard, "wiggle": own.wiggle, "loose": own.loose(), "winner": None,
        }
        text = f"{own_pool.text()}: {own.shown()} -> {', '.join(map(_set_text, own.sets())) or 'no set'}"
        if vs is not None:
            if vs_dice is None:
                raise TrackerError("an opposed roll needs the other side's dice")
            rival_pool = self._side(vs, opts["vs_penalty"], "--vs")
            rival = roll(rival_pool.pool, vs_dice, 1, _wiggles(opts.get("vs_wiggle"), "--set vs_wiggle"), key)
            rival_best = rival.best(key)
            winner = contest(best, rival_best, opts["first_matters"])
            after = bool(opts["first_matters"]) and narrower_succeeds(best, rival_best, opts["narrower_equal_height"])
            fields.update({"winner": winner, "vs_dice": rival.normal, "vs_sets": [list(s) for s in rival.sets()],
                           "vs_best": list(rival_best) if rival_best else None})
            text += f" vs {rival_pool.text()}: {rival.shown()} -> {_set_text(rival_best)}: "
            if winner == "draw":
                text += "draw"
            elif opts["first_matters"] and best and rival_best and best[0] != rival_best[0]:
                text += f"{winner} is wider, goes first and takes effect"
                text += "; the narrower set meets its height and also succeeds, afterwards" if after else "; the narrower set does not meet its height"
            else:
                text += f"{winner} wins on height"
            fields["narrower_succeeds"] = after
            return RollResult(self.id, own.normal, None, _set_text(best) if best else None, text, fields)
        valid = [s for s in own.sets() if s[1] >= d]
        fields["extra_sets"] = [list(s) for s in valid if s != best]
        text += f"; best {_set_text(best)}" + (f" vs difficulty {difficulty}" if difficulty else "")
        text += ": success" if best else ": failure"
        fields["worse_failure"] = best is None and worse_failure(own)
        if fields["worse_failure"]:
            text += " of all low dice: worse than usual (the GM says how)"
        return RollResult(self.id, own.normal, best is not None, _set_text(best) if best else None, text, fields)

    def chance(self, spec: str, *, vs: str | None = None, difficulty: int | None = None,
               options: Mapping[str, Any] | None = None) -> Fraction:
        opts = coerce_all(_ROLL_OPTIONS, dict(options or {}), "--set")
        own = self._side(spec, opts["penalty"], "ore pool")
        if vs is not None:
            rival = self._side(vs, opts["vs_penalty"], "--vs")
            return odds.win(own.pool, rival.pool, opts["first_matters"])
        d = difficulty if difficulty is not None else 1
        if not 1 <= d <= 10:
            raise TrackerError(f"--difficulty: expected a height from 1 to 10, got {d}")
        return odds.success(own.pool, d)
