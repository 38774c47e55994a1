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
  own. The default performance time is "to the end of the round"; `pt=` overrides.
  A move is passive and takes 5 segments.
- At most 10 normal dice are rolled (table data); hard and wiggle dice are not rolled
  and do not count against it; dice over it soak penalty dice first.
- Multiple actions follow the seed, not the usual ORE penalty: "If you roll an extra
  matching set, you can use it on an extra action with no penalty—but only if your
  extra action has a dice pool equal to or larger than that of your primary action".
  An attack given several targets is one action per target with the same pool, so no
  die is lost; each target needs its own set (widest first); a target left without a
  set is not hit. A set left over is reported as free for an extra action whose pool
  is at least as large. (The command line's old `--set actions=N`, one die less per
  extra action, is withdrawn and refused as an unknown option.)
- A failed roll of all low dice (every rolled die 5 or less: the lower half of the
  d10) is flagged as the seed's worse failure ("A failed roll is worse than usual if
  you roll all low dice"); what goes wrong is the GM's call.
- Wiggle dice: `wiggle=7,7` states their faces (the GM's choice); otherwise the
  adapter puts them all where they make the widest, then highest set that meets the
  difficulty (in a dynamic contest: the highest, then widest).
- Dynamic contest: "beat" means strictly higher, so an equal height leaves the wider
  set standing; identical sets, or no set on either side, are a draw; a set beats
  none. `--set first_matters=false` judges on height alone.
- Gobble dice: a `dodge` or `block` declared earlier in the same round gives gobble
  dice (its width, at its height). An attack resolving no sooner than it (order not
  greater) loses one die per gobble die of equal or greater height, as many as it
  takes to spoil the set, or all that are left. `gobble=WxH` states them by hand.
- Wound boxes are marked when the blow lands (DESIGN 3: damage is judged against what
  the target has then): each hit is a `Blow` judged by "ore.wound" in the round's
  resolution order (widest, then highest), so two attacks on one target fill its boxes
  in the order they resolve, never the order they were typed. The summary at
  initiation shows the boxes as things stood then.
- Head or torso with no empty box puts the combatant down: full of Killing is dead,
  otherwise out. Excess Shock past a full location is lost; Killing from a limb goes
  to the torso (`overflow` table).
- ORE has no payment segments.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from tracker.engine.clock import TimeMapping
from tracker.engine.effects import Blow, Damage, Effect, Note, Resolution, landing, register_judge
from tracker.engine.errors import TrackerError
from tracker.engine.model import ACTIVE, COMPLETED, IN_PROGRESS, PASSIVE, Combatant
from rulesets.base import ActionRequest, ActionTemplate, RollResult, Ruleset
from rulesets.dice import DiceSource, parse_faces
from rulesets.fields import PARAM, Field, coerce_all
from rulesets.ore import odds
from rulesets.ore.combat import armour, boxes_of, gobble, location_for, mark, parse_damage
from rulesets.ore.pool import Outcome, Penalised, Pool, contest, highest, narrower_succeeds, penalise, roll, widest
from rulesets.ore.pool import parse as parse_pool
from rulesets.ore.sheet import ATTACK_PARAMS, CHECK_PARAMS, DEFENCE_PARAMS, LOCATIONS, SHEET

_ROLL_OPTIONS: tuple[Field, ...] = (
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


def judge_wound(encounter: Any, action: Any, blow: Blow) -> list[Effect]:
    """An ORE hit lands: its boxes are marked against the target's boxes now."""
    found = landing(encounter, action, blow, action.resolution.details.get("hits", []))
    if isinstance(found, list):
        return found
    hit, target = found
    return wound_effects(target, str(hit["location"]), int(hit["shock"]), int(hit["killing"]),
                         dict(hit.get("sizes", {})), dict(hit.get("overflow", {})))


register_judge(WOUND_JUDGE, judge_wound)


def worse_failure(outcome: Outcome) -> bool:
    """No set meets the difficulty and every rolled die is low (1-5)."""
    valid = [s for s in outcome.sets() if s[1] >= outcome.difficulty]
    return not valid and bool(outcome.normal) and all(f <= 5 for f in outcome.normal) and not outcome.hard and not outcome.wiggle


def _set_text(s: tuple[int, int] | None) -> str:
    return f"{s[0]}x{s[1]}" if s else "no set"


class OreRuleset(Ruleset):
    id = "ore"
    name = "One-Roll Engine"
    description = "ORE: d10 pools, width x height sets, hard and wiggle dice, hit locations"
    time = TimeMapping(segments_per_round=10, segment_means="a tenth of a round; sets resolve at the round's end",
                       simultaneous=False)
    sheet = SHEET
    down_when = ("head", "torso")
    tables_file = "tables.toml"

    # ------------------------------------------------------------ tables
    def _dice_rules(self) -> tuple[int, tuple[str, ...]]:
        table = self.tables.get("dice", {})
        cap = table.get("max_rolled", 10)
        order = tuple(table.get("penalty_order", ("hard", "normal", "wiggle")))
        if not isinstance(cap, int) or cap < 1:
            raise TrackerError(f"ore tables [dice].max_rolled: expected a whole number of at least 1, got {cap!r}")
        if sorted(order) != ["hard", "normal", "wiggle"]:
            raise TrackerError(f"ore tables [dice].penalty_order: expected hard, normal and wiggle in some order, got {list(order)}")
        return cap, order

    def penalise(self, pool: Pool, penalty: int) -> Penalised:
        cap, order = self._dice_rules()
        return penalise(pool, penalty, cap, order)

    def build_sheet(self, values: Mapping[str, Any], where: str) -> tuple[dict[str, Any], dict[str, Any]]:
        """As the base, with wound boxes from the (possibly house-ruled) table, and
        each `<location>_k` starting equal to its location's boxes."""
        boxes = self.tables.get("wound_boxes", {})
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
        actions = self.tables.get("actions", {})
        out: dict[str, ActionTemplate] = {}
        for name in _ATTACKS:
            row = actions.get(name, {})
            out[name] = ActionTemplate(name, ACTIVE, self.time.segments_per_round,
                                       f"{row.get('stat', '?')} + {row.get('skill', '?')}; damage {row.get('damage', '?')}; "
                                       "several targets = several actions",
                                       rolls=f"{row.get('stat')} + {row.get('skill')}", targets=-1, params=ATTACK_PARAMS)
        for name in _DEFENCES:
            row = actions.get(name, {})
            out[name] = ActionTemplate(name, ACTIVE, self.time.segments_per_round,
                                       f"{row.get('stat', '?')} + {row.get('skill', '?')}: gobble dice against this round's attacks",
                                       rolls=f"{row.get('stat')} + {row.get('skill')}", params=DEFENCE_PARAMS)
        out["check"] = ActionTemplate("check", ACTIVE, self.time.segments_per_round, "any roll: stat= skill= or pool=, difficulty=",
                                      rolls="stat + skill", params=CHECK_PARAMS)
        out["move"] = ActionTemplate("move", PASSIVE, 5, "move while doing something else")
        return out

    # ------------------------------------------------------------ pools
    def pool_for(self, who: Combatant, name: str, params: Mapping[str, Any]) -> Pool:
        if params.get("pool") is not None:
            pool = parse_pool(params["pool"], "pool")
        else:
            row = self.tables.get("actions", {}).get(name, {})
            stat = params.get("stat") or row.get("stat") or "body"
            skill = params.get("skill") or row.get("skill")
            pool = parse_pool(str(who.stats.get(stat, "0d")), f"{who.name}.{stat}")
            if skill:
                pool = pool + parse_pool(str(who.stats.get(skill, "0d")), f"{who.name}.{skill}")
        return pool + Pool(int(params.get("bonus") or 0))

    def _pt(self, request: ActionRequest) -> int:
        if request.pt is not None:
            return request.pt
        if request.template.mode == PASSIVE:
            return request.template.pt
        spr = self.time.segments_per_round
        return spr - request.segment % spr

    # ------------------------------------------------------------ resolve
    def resolve(self, request: ActionRequest, dice: DiceSource) -> Resolution:
        name = request.template.name
        pt = self._pt(request)
        if name == "move":
            return Resolution(pt=pt)
        params = request.params
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
        success = best is not None
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
            gobbled: list[list[int]] = []
            landed = 0
            landing: list[dict[str, Any]] = []
            for i, target in enumerate(request.targets):
                if i >= len(valid):
                    summary += f"; no set left for {target.name}"
                    continue
                text, hurt, hit = self._hit(request, target, valid[i], pt, gobbled, landing)
                summary += f"; {text}"
                effects.extend(hurt)
                landed += hit
            if gobbled:
                details["gobbled"] = gobbled
            if landing:
                details["hits"] = landing
                details["judge"] = WOUND_JUDGE
            # The roll made a set, but an attack only succeeds if a set got through.
            success = landed > 0
        spare = valid[actions:] if name != "check" else valid[1:]
        if spare:
            summary += f"; extra set {', '.join(map(_set_text, spare))} free for another action with a pool of {pool.size}+ dice"
        return Resolution(pt=pt, success=success, margin=_set_text(best) if best else None,
                          dice=tuple(outcome.normal), summary=summary, effects=tuple(effects),
                          order=order, details=details)

    def _hit(self, request: ActionRequest, target: Combatant, chosen: tuple[int, int], pt: int,
             gobbled: list[list[int]], landing: list[dict[str, Any]]) -> tuple[str, list[Effect], bool]:
        width, height = chosen
        lines = [f"{_set_text(chosen)} at {target.name}"]
        width = self._gobble(request, target, width, height, pt, gobbled, lines)
        if width < 2:
            return " ".join(lines) + ": spoiled", [], False
        location = location_for(height, self.tables.get("hit_locations", {}))
        row = self.tables.get("actions", {}).get(request.template.name, {})
        formula_text = request.params.get("damage") or row.get("damage", "width shock")
        if formula_text in ("weapon", "gun"):
            formula_text = str(request.actor.stats.get(formula_text, "width shock"))
        formula = parse_damage(formula_text, "damage")
        har, lar = int(target.stats.get("har", 0)), int(target.stats.get("lar", 0))
        hit = armour(width, formula, har, lar, int(request.params.get("penetration") or 0))
        lines.append(f"hits the {location.replace('_', ' ')}")
        if hit.note:
            lines.append(f"({hit.note})")
        if hit.width <= 1:
            return " ".join(lines), [], False
        lines.append(f"for {hit.shock} shock, {hit.killing} killing")
        self._wound(request, target, location, hit.shock, hit.killing, pt)  # checks the tables now
        record = {"target": target.name, "location": location, "shock": hit.shock, "killing": hit.killing,
                  "sizes": {k: int(v) for k, v in self.tables.get("wound_boxes", {}).items()},
                  "overflow": dict(self.tables.get("overflow", {}))}
        landing.append(record)
        return " ".join(lines), [Blow(target.name, len(landing) - 1)], True

    def _gobble(self, request: ActionRequest, target: Combatant, width: int, height: int, pt: int,
                gobbled: list[list[int]], lines: list[str]) -> int:
        manual = request.params.get("gobble")
        if manual is not None:
            if manual.strip() in ("", "0"):
                return width
            match = re.fullmatch(r"\s*(\d+)\s*x\s*(\d+)\s*", manual)
            if match is None:
                raise TrackerError(f"gobble: expected gobble dice as WxH such as 2x8, got {manual!r}")
            new, used = gobble(width, height, int(match.group(1)), int(match.group(2)))
            if used:
                lines.append(f"(gobbled {used}: width {width} -> {new})")
            return new
        enc = request.encounter
        if enc is None:
            return width
        lands = request.segment + pt
        order = (width, height)
        for action in enc.actions:
            gob = action.resolution.details.get("gobble")
            if (action.actor != target.name or not gob or action.completes != lands
                    or action.status not in (IN_PROGRESS, COMPLETED) or tuple(action.resolution.order) < order):
                continue
            spent = sum(used for other in enc.actions for aid, used in other.resolution.details.get("gobbled", ()) if aid == action.id)
            spent += sum(used for aid, used in gobbled if aid == action.id)
            left = gob[0] - spent
            new, used = gobble(width, height, left, gob[1])
            if used:
                gobbled.append([action.id, used])
                lines.append(f"({target.name}'s {action.template} gobbles {used}: width {width} -> {new})")
                width = new
        return width

    def _wound(self, request: ActionRequest, target: Combatant, location: str, shock: int, killing: int,
               pt: int) -> list[Effect]:
        sizes = self.tables.get("wound_boxes", {})
        resources = dict(target.resources)
        enc = request.encounter
        if enc is not None:  # damage already rolled against this target this round
            lands = request.segment + pt
            for action in enc.actions:
                if action.status == IN_PROGRESS and action.completes == lands:
                    for e in action.resolution.effects:
                        if isinstance(e, Damage) and e.target == target.name and e.resource in resources:
                            resources[e.resource] -= e.amount
        return wound_effects(target, location, shock, killing, sizes, self.tables.get("overflow", {}), resources)

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
        # Extra targets take extra sets, not dice (the seed), so the chance is the pool's.
        pool = self.pool_for(request.actor, name, request.params)
        rolled = self.penalise(pool, int(request.params.get("penalty") or 0))
        return odds.success(rolled.pool, int(request.params.get("difficulty") or 1))

    # ------------------------------------------------------------ command line
    def _side(self, spec: str, penalty: int, label: str) -> Penalised:
        # A check from the command line rolls something: "0d" (a term of no dice) and an
        # empty pool are refused, where a sheet's untrained skill may be 0d.
        for term in spec.replace(" ", "").lower().split("+"):
            if re.fullmatch(r"0+(d|hd|wd)", term):
                raise TrackerError(f"{label} {spec!r}: term {term!r} has no dice (leave it out)")
        pool = parse_pool(spec, label)
        if pool.size == 0:
            raise TrackerError(f"{label} {spec!r}: no dice to roll")
        return self.penalise(pool, penalty)

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
            after = bool(opts["first_matters"]) and narrower_succeeds(best, rival_best)
            fields.update({"winner": winner, "vs_dice": rival.normal, "vs_sets": [list(s) for s in rival.sets()],
                           "vs_best": list(rival_best) if rival_best else None})
            text += f" vs {rival_pool.text()}: {rival.shown()} -> {_set_text(rival_best)}: "
            if winner == "draw":
                text += "draw"
            elif opts["first_matters"] and best and rival_best and best[0] != rival_best[0]:
                text += f"{winner} is wider, goes first and takes effect"
                text += "; the narrower set beats its height and also succeeds, afterwards" if after else "; the narrower set does not beat its height"
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
