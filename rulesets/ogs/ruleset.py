"""The OGS adapter (`seeds/002_...`): Action Checks, Opposed Checks, Open Rolls.

What the seed gives (reproduced by tests/test_ogs.py): a check totals a stat die, a
skill or force die and the enhancement pool plus flat bonuses against a GM
difficulty (total >= difficulty succeeds); critical stages are (total - difficulty)
div 2 once the margin is 2 or more; an attack gains one damage die per stage; opposed
ties break on die values, die sizes, then opposed d12s; Die Increases step d4 -> d6 ->
d8 -> d10 -> d12 -> [d8+d6], further stages of the same effect going to the d6, and an
Open Roll's increase affects all its dice (Fireball 10d6 +2 -> 10d10).

Decisions where the seed is silent (nothing else is known of the game):
- Time: a round is 10 segments, one segment a tenth of a round; an attack, power or
  check takes a round (10 segments), an open roll or a move 5 (passive for a move).
  There are no payment segments. All completions on a segment land together.
- The extra damage die per stage is the largest die of the weapon's damage dice.
- An attack's difficulty: `difficulty=` on the declare, else the target's `defense`
  (default 8, the seed's example difficulty). A miss does nothing. The damage dice
  are rolled at declaration, hit or miss, with one extra die per stage as things
  stand; the hit and its stages are judged when the blow lands (docs/contributing/design.md#judged-on-landing), against
  the target's defense then. Stages past those rolled for (the defense fell in
  between) are put to the GM in the log as the blow lands, with the dice to roll and
  the commands that roll and deal them; the damage rolled lands meanwhile.
- A `contest` is settled as it lands too: each side's check is read from its sheet
  then; faces stand for a side whose dice are unchanged (its flat bonus is the one
  then), the tie-breaks use the d12s rolled at declaration, and a side whose dice
  changed, or a tie past those d12s, is left to the GM, named.
- Damage (an Open Roll) comes off the target's `hp`; the seed has no soak or armour.
- `contest` is an Opposed Check against the target's own stat + skill + enhancement
  + flat; in the timeline both sides' dice come from the one dice source, the actor's
  dice first, then the target's, then d12 pairs (actor, target) if it comes to that.
- `increase=N` on a check targets the enhancement die (the first die after the stat
  and skill dice; the last die if there is no enhancement); `increase_die=K` picks
  another (1 = first die). On the command line: `--set increase=N`, `--set
  increase_die=K`; an Open Roll (no `--difficulty`, no `--vs`) increases every die.
- "Reroll ones", the enhancement modifier the seed names: `reroll_ones=true` on the
  sheet (or the declare) rerolls each enhancement die showing 1 once; the new face
  stands. Its odds are exact (the rerolled die's distribution), opposed ones too (the
  tie-breaks read the new faces). On the command line `--set reroll_ones=true` (and
  `vs_reroll_ones` for the other side) rerolls the dice after the first two.
- A `contest` may name several targets (an Opposed Check of more than two sides): the
  highest total wins; sides tied at the top go through the seed's tie-breaks together
  (die values, die sizes, then d12s rolled by each still-tied side, in target order).
  The declare form's chance is offered for two sides only.
- Opposed results have no stages (the seed defines stages against a difficulty); the
  margin of an opposed roll is own total minus rival total.
- Which flat bonus applies to which roll is the effect's (the seed: "an applicable flat
  bonus"): the sheet's `flat` is the one applicable to the character's checks (an
  attack's and a contest's too); an Open Roll adds only the `bonus=` stated with it (a
  magic weapon's to its damage, say), never the sheet's.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from tracker.engine.bounds import MAX_SEGMENT
from tracker.engine.clock import TimeMapping
from tracker.engine.effects import Blow, Damage, Effect, Note, Resolution, landing
from tracker.engine.errors import TrackerError
from tracker.engine.model import ACTIVE, PASSIVE, Combatant
from rulesets.base import JUDGE_KEY, MARGIN_NAME, ActionRequest, ActionTemplate, RollResult, Ruleset
from rulesets.dice import DiceSource, NotEnoughFaces, TypedFaces
from rulesets.fields import PARAM, Field, coerce_all
from rulesets.limits import limit_ogs_opposed, no_negative_difficulty
from rulesets.ogs import odds
from rulesets.ogs.check import Rolled, StageRule, opposed, rank_many, roll
from rulesets.ogs.notation import DiceSpec, DiceSteps, increased, parse
from rulesets.ogs.sheet import ATTACK_PARAMS, CHECK_PARAMS, OPEN_PARAMS, SHEET, dice_of
from rulesets.tables import only, section, whole

_ROLL_OPTIONS: tuple[Field, ...] = (
    Field("increase", "int", 0, 0, 10, role=PARAM, help="Die Increase stages"),
    Field("increase_die", "int", None, 1, 60, role=PARAM, help="which die the increase targets (1 = first)"),
    Field("vs_increase", "int", 0, 0, 10, role=PARAM, help="Die Increase stages on the opposing roll"),
    Field("open", "bool", False, role=PARAM, help="an Open Roll: total only, every die increased"),
    Field("reroll_ones", "bool", False, role=PARAM, help="reroll ones on the enhancement dice (every die after the first two: stat, skill)"),
    Field("vs_reroll_ones", "bool", False, role=PARAM, help="the opposing check rerolls ones on its enhancement dice"),
)


def _cli_reroll(spec: DiceSpec, on: bool, label: str) -> int | None:
    """On the command line the enhancement dice are those after the stat and skill dice,
    the seed's order of an Action Check."""
    if not on:
        return None
    if len(spec.sides) < 3:
        raise TrackerError(f"{label} {spec.text()}: reroll_ones needs enhancement dice (a third die after the stat and skill dice)")
    return 2


def build_check(who: Combatant, params: Mapping[str, Any], second: str, steps: DiceSteps) -> tuple[DiceSpec, int | None]:
    """The Action Check a combatant rolls: stat + skill/force + enhancement + flat,
    and the index of the first enhancement die when its ones are rerolled."""
    stats = who.stats
    stat = params.get("stat") or stats.get("stat", "")
    other = (params.get("skill") or stats.get("skill", "")) if second == "skill" else stats.get("force", "")
    enhancement = params["enhancement"] if params.get("enhancement") is not None else stats.get("enhancement", "")
    if not stat:
        raise TrackerError(f"{who.name} has no stat die")
    if not other:
        raise TrackerError(f"{who.name} has no {second} die (set {second}=d8 on the sheet)")
    parts = [dice_of(p, steps, f"{who.name}.{n}") for n, p in (("stat", stat), (second, other), ("enhancement", enhancement))]
    flat = int(stats.get("flat", 0)) + int(params.get("bonus") or 0)
    sides: list[int] = []
    groups: list[int] = []
    for n, part in enumerate(parts):
        sides.extend(part.sides)
        groups.extend(g + 100 * n for g in part.groups)
    spec = DiceSpec(tuple(sides), flat, tuple(groups))
    stages = int(params.get("increase") or 0)
    which = params.get("increase_die")
    if which is None:
        lead = len(parts[0].sides) + len(parts[1].sides)
        which = lead + 1 if parts[2].sides else len(sides)
    spec = increased(spec, stages, steps, f"{who.name}'s check", which - 1)
    reroll = params.get("reroll_ones")
    if reroll is None:
        reroll = bool(stats.get("reroll_ones", False))
    lead = len(parts[0].sides) + len(parts[1].sides)
    # An increase on the stat or skill die adds dice before the enhancement pool.
    shift = len(spec.sides) - len(sides) if stages and int(params.get("increase_die") or lead + 1) - 1 < lead else 0
    start = lead + shift if reroll and parts[2].sides else None
    return spec, start


# The actions whose performance time is a row of [time].
_TIMED = ("attack", "power", "check", "contest", "open", "move")
CONTEST_JUDGE = "ogs.contest"


def judge_contest(encounter: Any, action: Any, blow: Blow) -> list[Effect]:
    """An Opposed Check settled as it lands (docs/contributing/design.md#judged-on-landing): every side's check is read from
    its sheet as it stands at the start of that segment. The faces were rolled at
    declaration for the dice then: where a side's dice are the same now, its faces stand
    and its total takes its flat bonus now; the seed's tie-breaks (die values, die sizes,
    then the d12s rolled at declaration) settle a tie. A side whose dice changed, or a
    tie past the d12s rolled, is left to the GM, named, never guessed."""
    found = landing(encounter, action, blow, action.resolution.details.get("hits", []))
    if isinstance(found, list):
        return found
    rec, _ = found
    steps = DiceSteps.from_table(rec.get("steps", {}))
    head = f"{action.actor}'s contest lands"
    names = [str(side["name"]) for side in rec["sides"]]
    rolls: list[Rolled] = []
    for side in rec["sides"]:
        who = encounter.combatants.get(side["name"])
        if who is None:
            return [Note(f"{head}: {side['name']} is no longer in the fight: no contest")]
        spec, start = build_check(who, side.get("params", {}), "skill", steps)
        was = [int(x) for x in side["sizes"]]
        reroll_was = side.get("reroll_from", -1)
        if list(spec.sides) != was or (start if start is not None else -1) != reroll_was:
            now = DiceSpec(spec.sides).text()
            return [Note(f"{head}, but {who.name}'s check is {now} now, not the {DiceSpec(tuple(was)).text()} rolled for: "
                         f"the GM settles it again (`roll ogs DICE --vs DICE`)")]
        rolls.append(Rolled(spec, [int(f) for f in side["faces"]]))
    offs = TypedFaces([int(f) for off in rec.get("roll_off", []) for f in off], "d12 roll-off")
    try:
        (winner,), how, used = rank_many(rolls, offs, names)
    except NotEnoughFaces:
        return [Note(f"{head}: {'; '.join(f'{n} {r.shown()}' for n, r in zip(names, rolls))}: still tied after the die "
                     f"values and sizes, past the d12s rolled at declaration: the GM rolls opposed d12s")]
    shown = "; ".join(f"{n} {r.shown()}" for n, r in zip(names, rolls))
    rolled_off = (" (" + "; ".join(", ".join(map(str, f)) for f in used) + ")") if used else ""
    return [Note(f"{head}: {shown}: {names[winner]} wins on {how}{rolled_off}")]


BLOW_JUDGE = "ogs.blow"


def judge_blow(encounter: Any, action: Any, blow: Blow) -> list[Effect]:
    """An OGS attack lands: its total against the target's defense now (or the stated
    difficulty), its critical stages then, and one extra damage die per stage."""
    found = landing(encounter, action, blow, action.resolution.details.get("hits", []))
    if isinstance(found, list):
        return found
    rec, target = found
    total = int(rec["total"])
    difficulty = int(rec["difficulty"]) if rec.get("difficulty") is not None else int(target.stats.get("defense", 8))
    head = f"{action.actor}'s {action.template} lands: {total} vs {target.name}'s {'difficulty' if rec.get('difficulty') is not None else 'defense'} {difficulty}"
    if total < difficulty:
        return [Note(f"{head}: miss")]
    stages = StageRule(int(rec["first_stage"]), int(rec["stage_size"])).stages(total, difficulty)
    extra = [int(f) for f in rec["extra"]]
    damage = int(rec["base"]) + sum(extra[:stages])
    text = f"{head}: hit" + (f", {stages}-stage critical" if stages else "") + f"; {damage} damage"
    effects: list[Effect] = [Note(text), Damage(target.name, damage, "hp")]
    if stages > len(extra):
        # The rules: "every stage adding another die to the damage roll". Dice for the
        # stages as they stood were rolled at declaration; the defense has fallen since,
        # so the rest are put to the GM now, with the commands that roll and deal them.
        more = stages - len(extra)
        dice = f"{more}d{int(rec['die'])}"
        effects.append(Note(f"{action.actor}'s {action.template}: a {stages}-stage critical, {more} stage{'s' if more != 1 else ''} "
                            f"more than the {len(extra)} rolled for at declaration; each stage adds a damage die, so the GM "
                            f"decides: roll {dice} (`roll {dice}`) and deal it (`damage {target.name} N resource=hp`), "
                            f"or let the {damage} stand"))
    return effects


class OgsRuleset(Ruleset):
    id = "ogs"
    name = "OGS"
    description = "OGS: stat + skill/force + enhancement dice vs a difficulty; critical stages add damage dice"
    time = TimeMapping(segments_per_round=10, segment_means="a tenth of a round")
    sheet = SHEET
    down_when = ("hp",)
    tables_file = "tables.toml"
    judges = {CONTEST_JUDGE: judge_contest, BLOW_JUDGE: judge_blow}

    # ------------------------------------------------------------ tables
    def check_tables(self) -> None:
        """[dice], [check] (the stage rule and the default difficulty) and [time]."""
        _ = self.steps, self.stage_rule, self._default_difficulty()
        only(section(self.tables, "check", "ogs tables [check]"), ("first_stage", "stage_size", "default_difficulty"),
             "ogs tables [check]")
        only(section(self.tables, "time", "ogs tables [time]"), _TIMED, "ogs tables [time]")
        self.catalogue()

    @property
    def steps(self) -> DiceSteps:
        return DiceSteps.from_table(section(self.tables, "dice", "ogs tables [dice]"))

    @property
    def stage_rule(self) -> StageRule:
        return StageRule.from_table(section(self.tables, "check", "ogs tables [check]"))

    def _pt(self, name: str) -> int:
        value = section(self.tables, "time", "ogs tables [time]").get(name, 10)
        return whole(value, f"ogs tables [time].{name}", 1, MAX_SEGMENT, "a whole number of segments")

    def _default_difficulty(self) -> int:
        """The difficulty of an attack when neither the action nor the target gives one."""
        value = section(self.tables, "check", "ogs tables [check]").get("default_difficulty", 8)
        return whole(value, "ogs tables [check].default_difficulty", 0)

    # ------------------------------------------------------------ catalogue
    def catalogue(self) -> Mapping[str, ActionTemplate]:
        return {
            "attack": ActionTemplate("attack", ACTIVE, self._pt("attack"), "Action Check vs the target's defense; each stage adds a damage die",
                                     rolls="stat + skill + enhancement", targets=1, params=ATTACK_PARAMS),
            "power": ActionTemplate("power", ACTIVE, self._pt("power"), "a force power: stat + force + enhancement vs the target's defense",
                                    rolls="stat + force + enhancement", targets=1, params=ATTACK_PARAMS),
            "check": ActionTemplate("check", ACTIVE, self._pt("check"), "an Action Check against a difficulty",
                                    rolls="stat + skill + enhancement", params=CHECK_PARAMS),
            "contest": ActionTemplate("contest", ACTIVE, self._pt("contest"), "an Opposed Check against the target's check (several targets: every side rolls)",
                                      rolls="every side's check", targets=-1, params=CHECK_PARAMS),
            "open": ActionTemplate("open", ACTIVE, self._pt("open"), "an Open Roll (e.g. a Fireball); its total is dealt to each target",
                                   rolls="the dice given", targets=-1, params=OPEN_PARAMS),
            "move": ActionTemplate("move", PASSIVE, self._pt("move"), "move while doing something else"),
        }

    # ------------------------------------------------------------ building checks
    def check_spec(self, who: Combatant, params: Mapping[str, Any], second: str = "skill") -> DiceSpec:
        return self.check(who, params, second)[0]

    def check(self, who: Combatant, params: Mapping[str, Any], second: str = "skill") -> tuple[DiceSpec, int | None]:
        """The Action Check a combatant rolls (`build_check`) with this table's dice steps."""
        return build_check(who, params, second, self.steps)

    def _contest_record(self, request: ActionRequest, sides: list[tuple[Combatant, Mapping[str, Any], Rolled, int | None]],
                        offs: list[list[int]]) -> dict[str, Any]:
        """What the contest's landing reads: each side's dice, faces and the params its
        check was built from; the d12s rolled; the dice steps."""
        return {"target": request.targets[0].name, "steps": dict(section(self.tables, "dice", "ogs tables [dice]")), "roll_off": offs,
                "sides": [{"name": c.name, "params": {k: v for k, v in p.items() if v is not None and k != "difficulty"},
                           "sizes": list(r.spec.sides), "faces": list(r.faces),
                           "reroll_from": -1 if start is None else start} for c, p, r, start in sides]}

    # ------------------------------------------------------------ resolve
    def resolve(self, request: ActionRequest, dice: DiceSource) -> Resolution:
        name = request.template.name
        pt = request.performance_time
        params = request.params
        if name == "move":
            return Resolution(pt=pt)
        if name == "open":
            return self._open(request, dice, pt)
        if name == "contest":
            return self._contest(request, dice, pt)
        second = "force" if name == "power" else "skill"
        spec, reroll_from = self.check(request.actor, params, second)
        difficulty = self._difficulty(request)
        rolled = roll(spec, dice, "Action Check", reroll_from=reroll_from)
        total = rolled.total
        success = total >= difficulty
        stages = self.stage_rule.stages(total, difficulty)
        faces = list(rolled.faces)
        summary = f"{rolled.shown()} vs {difficulty}: {'success' if success else 'failure'}"
        if stages:
            summary += f", {stages}-stage critical"
        effects: list[Effect] = []
        details: dict[str, Any] = {"total": total, "difficulty": difficulty, "stages": stages, "sizes": list(spec.sides),
                                   MARGIN_NAME: "critical stages"}
        if name in ("attack", "power") and request.targets:
            return self._attack(request, dice, pt, rolled, spec, difficulty, stages, summary, details)
        return Resolution(pt=pt, success=success, margin=stages, dice=tuple(faces), summary=summary,
                          effects=tuple(effects), details=details)

    def _attack(self, request: ActionRequest, dice: DiceSource, pt: int, rolled: Any, spec: DiceSpec, difficulty: int,
                stages: int, summary: str, details: dict[str, Any]) -> Resolution:
        """The damage is an Open Roll made now, hit or miss as things stand, with one
        extra die per stage as things stand (docs/contributing/design.md#judged-on-landing); the hit, the stages and so the
        damage are judged when the blow lands, against the target's defense then."""
        params = request.params
        base = params.get("damage") or request.actor.stats.get("damage", "")
        damage = dice_of(base, self.steps, f"{request.actor.name}.damage")
        if not damage.sides:
            raise TrackerError(f"{request.actor.name} has no damage dice (damage=d8 on the sheet or the declare)")
        # Each stage adds one die of damage: the weapon's largest die.
        die = max(damage.sides)
        hurt = roll(DiceSpec(damage.sides + (die,) * stages, damage.flat),
                    dice, f"damage ({stages} stage{'s' if stages != 1 else ''} of criticals)" if stages else "damage")
        faces = list(rolled.faces) + list(hurt.faces)
        summary = summary.replace(": success", ", as things stand: hit").replace(": failure", ", as things stand: miss")
        summary += f"; damage {hurt.shown()}; judged when it lands"
        base_total = sum(hurt.faces[:len(damage.sides)]) + damage.flat
        rule = self.stage_rule
        given = params.get("difficulty")
        # A stated difficulty is kept; without one the target's defense is read at landing.
        # (No None in a record: a save has no null.)
        stated = {} if given is None else {"difficulty": int(given)}
        hits = [{"target": t.name, "total": rolled.total, **stated,
                 "first_stage": rule.first_stage, "stage_size": rule.stage_size, "base": base_total,
                 "extra": list(hurt.faces[len(damage.sides):]), "die": die} for t in request.targets]
        details.update(damage=hurt.total, hits=hits, judge=BLOW_JUDGE)
        return Resolution(pt=pt, success=None, margin=stages, dice=tuple(faces), summary=summary,
                          effects=tuple(Blow(t.name, i) for i, t in enumerate(request.targets)), details=details)

    def _difficulty(self, request: ActionRequest) -> int:
        given = request.params.get("difficulty")
        if given is not None:
            return int(given)
        if request.targets and request.template.name in ("attack", "power"):
            return int(request.targets[0].stats.get("defense", 8))
        return self._default_difficulty()

    def _contest(self, request: ActionRequest, dice: DiceSource, pt: int) -> Resolution:
        if not request.targets:
            raise TrackerError("contest needs a target (target=NAME)")
        if len(request.targets) > 1:
            return self._contest_many(request, dice, pt)
        rival = request.targets[0]
        own_spec, own_reroll = self.check(request.actor, request.params)
        rival_spec, rival_reroll = self.check(rival, {})
        own = roll(own_spec, dice, "Opposed Check", reroll_from=own_reroll)
        theirs = roll(rival_spec, dice, "Opposed Check", rival.name, rival_reroll)
        result = opposed(own, theirs, dice, dice, rival.name)
        faces = own.faces + theirs.faces + [f for pair in result.roll_off for f in pair]
        who = request.actor.name if result.winner == "self" else rival.name
        summary = f"{own.shown()} vs {rival.name} {theirs.shown()}, as things stand: {who} wins on {result.decided_by}"
        if result.roll_off:
            summary += " (" + ", ".join(f"d12 {a} vs {b}" for a, b in result.roll_off) + ")"
        record = self._contest_record(request, [(request.actor, request.params, own, own_reroll), (rival, {}, theirs, rival_reroll)],
                                      [list(pair) for pair in result.roll_off])
        # Settled when it lands, against the sheets then (docs/contributing/design.md#judged-on-landing): no verdict yet.
        return Resolution(pt=pt, success=None, margin=own.total - theirs.total,
                          dice=tuple(faces), summary=summary + "; judged when it lands", effects=(Blow(rival.name, 0),),
                          details={"total": own.total, "rival_total": theirs.total, "winner": who,
                                   "decided_by": result.decided_by, JUDGE_KEY: CONTEST_JUDGE, "hits": [record]})

    def _contest_many(self, request: ActionRequest, dice: DiceSource, pt: int) -> Resolution:
        sides = [request.actor, *request.targets]
        names = [c.name for c in sides]
        rolls = []
        built = []
        for i, c in enumerate(sides):
            params = request.params if i == 0 else {}
            spec, reroll_from = self.check(c, params)
            rolls.append(roll(spec, dice, "Opposed Check", "" if i == 0 else c.name, reroll_from))
            built.append((c, params, rolls[-1], reroll_from))
        (winner,), how, offs = rank_many(rolls, dice, names)
        shown = "; ".join(f"{n} {r.shown()}" for n, r in zip(names, rolls))
        summary = f"{shown}, as things stand: {names[winner]} wins on {how}"
        if offs:
            summary += " (" + "; ".join(", ".join(map(str, f)) for f in offs) + ")"
        faces = [f for r in rolls for f in r.faces] + [f for off in offs for f in off]
        best_other = max(r.total for i, r in enumerate(rolls) if i != 0)
        return Resolution(pt=pt, success=None, margin=rolls[0].total - best_other, dice=tuple(faces),
                          summary=summary + "; judged when it lands", effects=(Blow(request.targets[0].name, 0),),
                          details={"total": rolls[0].total, "totals": {n: r.total for n, r in zip(names, rolls)},
                                   "winner": names[winner], "decided_by": how, JUDGE_KEY: CONTEST_JUDGE,
                                   "hits": [self._contest_record(request, built, offs)]})

    def _open(self, request: ActionRequest, dice: DiceSource, pt: int) -> Resolution:
        params = request.params
        base = params.get("dice") or request.actor.stats.get("damage", "")
        spec = dice_of(base, self.steps, "dice")
        if not spec.sides:
            raise TrackerError("open needs dice (dice=10d6)")
        spec = increased(spec, int(params.get("increase") or 0), self.steps, f"{request.actor.name}'s open roll", all_dice=True)
        spec = DiceSpec(spec.sides, spec.flat + int(params.get("bonus") or 0), spec.groups)
        rolled = roll(spec, dice, "Open Roll")
        effects = tuple(Damage(t.name, rolled.total, "hp") for t in request.targets)
        return Resolution(pt=pt, margin=rolled.total, dice=tuple(rolled.faces), summary=f"open roll {spec.text()}: {rolled.shown()}",
                          effects=effects, details={"total": rolled.total, "sizes": list(spec.sides)})

    def chance_of(self, request: ActionRequest) -> Fraction | None:
        name = request.template.name
        if name in ("move", "open"):
            return None
        if name == "contest":
            if len(request.targets) != 1:
                return None
            own, own_reroll = self.check(request.actor, request.params)
            rival, rival_reroll = self.check(request.targets[0], {})
            limit_ogs_opposed(own.sides, rival.sides, request.actor.name, request.targets[0].name)
            return odds.win(own.sides, own.flat, rival.sides, rival.flat, own_reroll, rival_reroll)
        spec, reroll_from = self.check(request.actor, request.params, "force" if name == "power" else "skill")
        return odds.success(spec.sides, spec.flat, self._difficulty(request), reroll_from)

    # ------------------------------------------------------------ command line
    def _options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        return coerce_all(_ROLL_OPTIONS, dict(options or {}), "--set")

    def _cli_spec(self, spec: str, stages: int, which: int | None, open_roll: bool, label: str) -> DiceSpec:
        parsed = parse(spec, self.steps, label)
        if not parsed.sides:
            raise TrackerError(f"{label} {spec!r}: no dice to roll")
        named = f"{label} {spec!r}" + (f" with increase={stages}" if stages else "")
        if open_roll:
            return increased(parsed, stages, self.steps, named, all_dice=True)
        return increased(parsed, stages, self.steps, named, None if which is None else which - 1)

    def roll(self, spec: str, dice: DiceSource, *, vs: str | None = None, vs_dice: DiceSource | None = None,
             difficulty: int | None = None, options: Mapping[str, Any] | None = None) -> RollResult:
        opts = self._options(options)
        no_negative_difficulty(difficulty, "OGS")
        if vs is not None and difficulty is not None:
            raise TrackerError("an Opposed Check has no --difficulty: the other side's total is the mark (give --vs or --difficulty, not both)")
        open_roll = bool(opts["open"]) or (vs is None and difficulty is None)
        if open_roll and (vs is not None or difficulty is not None):
            raise TrackerError("an Open Roll has no --difficulty or --vs")
        own_spec = self._cli_spec(spec, opts["increase"], opts.get("increase_die"), open_roll, "ogs dice")
        if open_roll and opts["reroll_ones"]:
            raise TrackerError("--set reroll_ones: an Open Roll has no enhancement dice to reroll (give --difficulty or --vs)")
        own = roll(own_spec, dice, reroll_from=_cli_reroll(own_spec, opts["reroll_ones"], "ogs dice"))
        fields: dict[str, Any] = {"total": own.total, "difficulty": difficulty, "stages": None, "winner": None,
                                  "sizes": list(own_spec.sides), "spec": own_spec.text()}
        if vs is not None:
            rival_spec = self._cli_spec(vs, opts["vs_increase"], None, False, "--vs")
            if vs_dice is None:
                raise TrackerError("an opposed roll needs the other side's dice")
            rival = roll(rival_spec, vs_dice, reroll_from=_cli_reroll(rival_spec, opts["vs_reroll_ones"], "--vs"))
            result = opposed(own, rival, dice, vs_dice)
            fields.update({"winner": result.winner, "vs_dice": rival.faces, "vs_sizes": list(rival_spec.sides),
                           "vs_total": rival.total, "decided_by": result.decided_by,
                           "roll_off": [list(p) for p in result.roll_off]})
            text = f"{own.shown()} vs {rival.shown()}: {result.text()}"
            return RollResult(self.id, own.faces, None, own.total - rival.total, text, fields)
        if difficulty is not None:
            stages = self.stage_rule.stages(own.total, difficulty)
            success = own.total >= difficulty
            fields["stages"] = stages
            text = f"{own.shown()} vs {difficulty}: {'success' if success else 'failure'}"
            if stages:
                text += f", {stages}-stage critical"
            return RollResult(self.id, own.faces, success, stages, text, fields)
        return RollResult(self.id, own.faces, None, None, f"open roll {own_spec.text()}: {own.shown()}", fields)

    def chance(self, spec: str, *, vs: str | None = None, difficulty: int | None = None,
               options: Mapping[str, Any] | None = None) -> Fraction:
        opts = self._options(options)
        no_negative_difficulty(difficulty, "OGS")
        if vs is not None and difficulty is not None:
            raise TrackerError("an Opposed Check has no --difficulty: the other side's total is the mark (give --vs or --difficulty, not both)")
        own = self._cli_spec(spec, opts["increase"], opts.get("increase_die"), False, "ogs dice")
        own_reroll = _cli_reroll(own, opts["reroll_ones"], "ogs dice")
        if vs is not None:
            rival = self._cli_spec(vs, opts["vs_increase"], None, False, "--vs")
            limit_ogs_opposed(own.sides, rival.sides)
            return odds.win(own.sides, own.flat, rival.sides, rival.flat, own_reroll,
                            _cli_reroll(rival, opts["vs_reroll_ones"], "--vs"))
        if difficulty is None:
            raise TrackerError("ogs odds needs --difficulty N or --vs SPEC")
        return odds.success(own.sides, own.flat, difficulty, own_reroll)
