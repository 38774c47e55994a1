"""D6 actions: shoot, strike, dodge, parry, check, move.

Time (docs/contributing/design.md#rulesets asks each adapter to choose): a D6 round is 5 seconds and is mapped to
10 segments (a segment is half a second). A character declares how many actions it
takes this round with `actions=N` (default 1): each then takes 10 // N segments (at
least 1) and every skill or attribute roll that round is at -(N-1)D. The tracker does
not count a round's actions for you; the GM declares the number, as at the table.

Roll = the skill's code (or its attribute) + `modifier` (a die code such as +1D or -2)
+ `situation` (the seed's scale) + range and cover (attacks) - (actions-1)D - the
wound-level penalty. Fewer than 1D left means the roll cannot be made.

Attacks (shoot: marksmanship; strike: melee or brawling):
- The difficulty is the target's active defence when it has one (a dodge or parry it
  initiated within the last round, up to and including this segment), else its passive
  defence 10. A defence rolled under 10 makes it easier to hit, as in OpenD6.
- Hit when total >= difficulty; result points = total - difficulty.
- Damage = the weapon's code (a "+" code adds to Strength Damage; a strike without a
  weapon does Strength Damage; shooting needs a weapon) + one fifth of the result points
  rounded up (the optional damage bonus, encounter setting damage_bonus, on by default).
- Resistance: with wound levels, Physique + armour dice; with Body Points, the armour
  dice only (0 without armour). The excess over resistance sets the wound level (see
  tables.toml) or comes off Body Points.
- With the table setting `wild_die`, every roll (attack, damage, resistance) uses the
  Wild Die, as OpenD6 says "one die of every roll". Typed faces are read: the attack
  roll, then the damage roll, then the resistance roll (each Wild Die first, the others,
  then its explosions when the Wild Die is on).
- The dice are rolled at initiation; the blow is judged when it lands (docs/contributing/design.md#judged-on-landing, the
  judge "d6.blow"): the attack total against the target's defence at the start of the
  completion segment (a dodge declared after the attack, within the round, counts,
  whatever order the two were typed in), the damage bonus from the result points then,
  and the wound step from the target's level then. The damage and resistance dice are
  always rolled at initiation, hit or miss as things stand then, and used only if the
  blow hits when it lands. The action itself has no success: the landing says hit or
  miss.

Active defence (dodge, parry): the roll (+10 for `full=true`, a full defence that
gives up the round's other actions) replaces the combat difficulty for attacks against
this combatant for one round from its initiation.

Not modelled (left to the GM's modifier): hit locations and called shots, combat
maneuvers, Character and Fate Points, the optional passive-defence bonus, stun weapons.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from tracker.engine.effects import Blow, Damage, Effect, Note, Resolution, landing
from tracker.engine.errors import TrackerError
from tracker.engine.model import ABORTED, ACTIVE, Combatant
from rulesets.base import JUDGE_KEY, MARGIN_NAME, ActionRequest, ActionTemplate
from rulesets.d6.codes import DieCode, DieCodeError, parse, strength_damage
from rulesets.d6.odds import chance_at_least
from rulesets.d6.rolls import D6Roll, roll_code, roll_mode
from rulesets.d6.sheet import BODY_POINTS, HEALTHY_WOUNDS, ROLLABLE, WOUNDS, code_of, strength_source
from rulesets.d6.tables import D6Tables
from rulesets.limits import MAX_D6_DIFFICULTY, limit_d6_dice, limit_d6_difficulty
from rulesets.dice import DiceSource
from rulesets.fields import PARAM, Field, staged

SEGMENTS_PER_ROUND = 10
DEFENSES = ("dodge", "parry")
ATTACKS = ("shoot", "strike")


# The declare form's fields, as data (as every game declares them). A choice whose
# choices are a table's rows (a GM's house table may add or drop rows) names the table
# in _CHOICES_FROM and is given its rows when the catalogue is built.
_SKILL_HELP = "the skill rolled"
_COVER = Field("cover", "choice", "none", role=PARAM, help="the target's cover")
_LEVEL = Field("level", "choice", None, role=PARAM, help="a standard difficulty")
_ROLL_FIELDS = (
    Field("modifier", "str", None, role=PARAM, help="a die code added to the roll: +1D, -2, +1D+1"),
    Field("situation", "choice", None, role=PARAM, help="the D6 rules' scale of situation modifiers (slightly advantaged +3 ... extremely disadvantaged -10)"),
    Field("situation_dice", "bool", None, role=PARAM, help="the situation in its die-code form where the D6 rules give one (advantaged: +5 or +1D)"),
    Field("carry", "bool", None, role=PARAM, help="add half the result points (rounded up) of this character's last successful roll (to a skill roll or a Supernatural or Special Ability effect)"),
    Field("actions", "int", 1, minimum=1, maximum=10, role=PARAM, help="actions declared this round: -(N-1)D each, PT 10//N"),
)
_DEFENCE_FIELDS = (Field("full", "bool", False, role=PARAM, help="full defence: +10, no other action this round"), *_ROLL_FIELDS)
_FIELDS: dict[str, tuple[Field, ...]] = {
    "shoot": (Field("skill", "choice", "marksmanship", choices=ROLLABLE, role=PARAM, help=_SKILL_HELP),
              Field("range", "choice", "short", role=PARAM, help="range band"), _COVER, *_ROLL_FIELDS),
    "strike": (Field("skill", "choice", "melee", choices=ROLLABLE, role=PARAM, help="melee or brawling"), _COVER, *_ROLL_FIELDS),
    # A parry names no skill: melee (its declared default), never dodge.
    "dodge": (Field("skill", "choice", "dodge", choices=ROLLABLE, role=PARAM, help=_SKILL_HELP), *_DEFENCE_FIELDS),
    "parry": (Field("skill", "choice", "melee", choices=ROLLABLE, role=PARAM, help=_SKILL_HELP), *_DEFENCE_FIELDS),
    "effect": (Field("code", "str", None, role=PARAM, help="the effect's die code, e.g. 4D+1"),
               Field("difficulty", "int", None, minimum=0, maximum=MAX_D6_DIFFICULTY, role=PARAM, help="a difficulty, if the effect has one"),
               _LEVEL, *_ROLL_FIELDS),
    "check": (Field("skill", "choice", "reflexes", choices=ROLLABLE, role=PARAM, help="the skill or attribute rolled"),
              Field("difficulty", "int", None, minimum=0, maximum=MAX_D6_DIFFICULTY, role=PARAM, help="the difficulty number"),
              _LEVEL, *_ROLL_FIELDS),
    "move": (Field("actions", "int", 1, minimum=1, maximum=10, role=PARAM, help="actions declared this round"),),
}
_CHOICES_FROM = {"situation": "situations", "range": "range", "cover": "cover", "level": "difficulties"}
# The first fields per action (the rest one key away); D6 chooses nothing after the roll.
_MAIN = {"shoot": ("skill", "range", "cover"), "strike": ("skill", "cover"), "dodge": ("skill", "full"),
         "parry": ("skill", "full"), "check": ("skill", "difficulty", "level"), "effect": ("code", "carry", "difficulty"), "move": ("actions",)}


def _params(tables: D6Tables, name: str) -> tuple[Field, ...]:
    """The action's form fields, each table choice offering the rows of the GM's tables."""
    fields = tuple(
        replace(f, choices=tuple(getattr(tables, _CHOICES_FROM[f.name]))) if f.name in _CHOICES_FROM else f
        for f in _FIELDS[name]
    )
    return staged(fields, _MAIN[name])


def _skill(request: ActionRequest) -> str:
    """The skill the action rolls: the one named, else its form's default (a parry's is
    melee, a check's reflexes)."""
    default = next(f.default for f in _FIELDS[request.template.name] if f.name == "skill")
    return str(request.params.get("skill", default))


_TEMPLATES = {
    "shoot": ("a ranged attack: marksmanship against the target's defence, then damage against resistance", "skill vs defence; damage vs resistance", 1),
    "strike": ("a melee or brawling attack against the target's defence, then damage against resistance", "skill vs defence; damage vs resistance", 1),
    "dodge": ("active defence: the roll becomes the difficulty to hit you for a round", "dodge", 0),
    "parry": ("active defence with melee or brawling: the roll becomes the difficulty for a round", "melee or brawling", 0),
    "check": ("a skill or attribute roll against a difficulty", "skill vs difficulty", 0),
    "effect": ("a Supernatural or Special Ability effect: its own die code (code=4D), with carry= to add half an earlier roll's result points", "the effect's code", 0),
    "move": ("move (up to the Move rate; no roll)", "", 0),
}


def build_catalogue(tables: D6Tables) -> dict[str, ActionTemplate]:
    return {
        name: ActionTemplate(name, ACTIVE, SEGMENTS_PER_ROUND, f"{text}; one round (10 segments) / actions", rolls=rolls, targets=targets, params=_params(tables, name))
        for name, (text, rolls, targets) in _TEMPLATES.items()
    }


@dataclass(frozen=True, slots=True)
class Pool:
    """A code to roll and where its parts came from, for the log."""

    code: DieCode
    parts: tuple[tuple[str, DieCode], ...]

    def shown(self, roll: D6Roll) -> str:
        """The pool and its roll: 'dodge 3D+1, 2 actions -1D = 2D+1: wild 4; dice 5 = 10'."""
        if len(self.parts) == 1 or all(c == DieCode(0, 0) for _, c in self.parts[1:]):
            return f"{self.text()}: {roll.text(code=False)}"
        return f"{self.text()} = {roll.text()}"

    def text(self) -> str:
        base, *rest = self.parts
        extra = "".join(f", {name} {code.signed()}" for name, code in rest if code != DieCode(0, 0))
        return f"{base[0]} {base[1]}{extra}" if extra else f"{base[0]} {base[1]}"


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def defense_at(enc: Any, name: str, segment: int, passive: int, landing: bool = False) -> tuple[int, str]:
    """The combat difficulty to hit `name` on `segment`: the active defence (a dodge or
    parry initiated within the last round, up to and including it) or the passive one.
    A blow `landing` at the start of a segment still meets a defence whose round ends on
    that segment: its completion has not yet taken effect."""
    reach = SEGMENTS_PER_ROUND + (1 if landing else 0)
    best = None
    if enc is not None:
        for action in enc.actions:
            if (
                action.actor == name
                and action.template in DEFENSES
                and action.status != ABORTED
                and action.start <= segment < action.start + reach
                and "defense" in action.resolution.details
                and (best is None or action.start >= best.start)
            ):
                best = action
    if best is not None:
        value = int(best.resolution.details["defense"])
        return value, f"{name}'s active {best.template} {value} (segment {best.start})"
    return passive, f"{name}'s passive defence {passive}"


BLOW_JUDGE = "d6.blow"


def judge_blow(encounter: Any, action: Any, blow: Blow) -> list[Effect]:
    """A D6 attack lands: its total against the defence in force now, the damage bonus
    from the result points now, the wound step from the target's level now."""
    found = landing(encounter, action, blow, action.resolution.details.get("hits", []))
    if isinstance(found, list):
        return found
    rec, target = found
    difficulty, against = defense_at(encounter, target.name, encounter.now, int(rec["passive"]), landing=True)
    total = int(rec["total"])
    rp = total - difficulty
    head = f"{action.actor}'s {action.template} lands: {total} vs {against}"
    if rp < 0:
        return [Note(f"{head}: miss by {-rp}")]
    if rec.get("damage_dice") is None:
        return [Note(f"{head}: a hit, but no damage was rolled when it was declared (it missed then): the GM rolls it")]
    divisor = int(rec.get("bonus_divisor", 5))
    bonus = ceil_div(rp, divisor) if rp > 0 and rec.get("damage_bonus", True) else 0
    damage = int(rec["damage_dice"]) + bonus
    over = damage - int(rec["resistance"])
    text = f"{head}: hit, result points {rp}; damage {damage}" + (f" (+{bonus} from the result points)" if bonus else "")
    if over <= 0:
        return [Note(f"{text}; {target.name} resists: no damage")]
    if rec.get("system") == "body_points":
        if BODY_POINTS not in target.resources:
            return [Note(f"{text}; {target.name} has no body_points to take {over} from")]
        return [Note(f"{text}; {over} over: {over} Body Points"), Damage(target.name, over, BODY_POINTS)]
    rank = max((int(r) for o, r in rec.get("levels", []) if over >= int(o)), default=0)
    before = HEALTHY_WOUNDS - int(target.resources.get(WOUNDS, HEALTHY_WOUNDS))
    new = min(max(rank, before + 1), int(rec.get("max_rank", HEALTHY_WOUNDS)))
    name = dict(rec.get("names", {})).get(str(new), f"wound rank {new}")
    bumped = " (a further wound raises the level by one)" if new > rank else ""
    return [Note(f"{text}; {over} over: {target.name} is {name}{bumped}"),
            Damage(target.name, new - before, WOUNDS), Note(f"{target.name} is {name}")]


class Resolver:
    def __init__(self, tables: D6Tables) -> None:
        self.tables = tables

    # ----------------------------------------------------------- pools
    def pool(self, request: ActionRequest, skill: str, base: tuple[str, DieCode] | None = None) -> Pool:
        """The code rolled: the skill's (or `base`, an effect's own code) and the modifiers."""
        actor, p, t = request.actor, request.params, self.tables
        if base is None:
            label = skill if actor.stats.get(skill) or skill not in t.skills else f"{skill} ({t.skills[skill]})"
            base = (label, code_of(actor.stats, skill, t.skills))
        parts: list[tuple[str, DieCode]] = [base]
        if p.get("modifier"):
            try:
                parts.append(("modifier", parse(str(p["modifier"]), "modifier")))
            except DieCodeError as exc:
                raise TrackerError(str(exc)) from None
        if p.get("situation"):
            name = p["situation"]
            code = t.situations_dice.get(name) if p.get("situation_dice") else None
            if p.get("situation_dice") and code is None:
                raise TrackerError(f"situation={name}: the D6 modifiers table gives it no die-code form (only {t.situations[name].signed()})")
            parts.append((name.replace("_", " "), code if code is not None else t.situations[name]))
        if p.get("carry"):
            source, bonus, _ = self.carried(request)
            parts.append((f"half the result points of {source}", DieCode(0, bonus)))
        if "range" in p and p.get("range"):
            parts.append((f"{p['range'].replace('_', ' ')} range", t.range[p["range"]]))
        if p.get("cover") and p["cover"] != "none":
            parts.append((f"{p['cover']} cover", t.cover[p["cover"]]))
        actions = int(p.get("actions", 1) or 1)
        if actions > 1:
            parts.append((f"{actions} actions", DieCode(-(actions - 1), 0)))
        level = t.wound_level(int(actor.resources.get(WOUNDS, HEALTHY_WOUNDS)))
        if level is not None and level.penalty != DieCode(0, 0):
            parts.append((level.name, level.penalty))
        code = DieCode(0, 0)
        for _, c in parts:
            code = code + c
        pool = Pool(code, tuple(parts))
        limit_d6_dice(code.dice, f"{actor.name}'s {skill} roll")
        if code.dice < 1:
            raise TrackerError(f"{actor.name} cannot roll {pool.text()}: {code.dice}D left, and a roll needs at least 1D")
        return pool

    @staticmethod
    def default_pt(request: ActionRequest) -> int:
        """A round shared by the actions the character declares for it (`actions=`)."""
        return max(1, SEGMENTS_PER_ROUND // int(request.params.get("actions", 1) or 1))

    @staticmethod
    def mode(request: ActionRequest) -> str:
        return roll_mode(request.settings)

    @staticmethod
    def carried(request: ActionRequest) -> tuple[str, int, int]:
        """The D6 rules: "The gamemaster may allow a player to add one-half of the result
        points (rounded up) as a bonus to another skill roll or Supernatural or Special
        Ability effect": the actor's latest roll with result points, if it succeeded and
        no roll or effect has used them yet."""
        enc = request.encounter
        found = None
        if enc is not None:
            for action in reversed(enc.actions):
                if action.actor == request.actor.name and "result_points" in action.resolution.details:
                    found = action
                    break
        if found is None or found.status == ABORTED:
            raise TrackerError(f"carry: {request.actor.name} has no earlier roll whose result points could carry over")
        rp = int(found.resolution.details["result_points"])
        if rp < 1:
            raise TrackerError(f"carry: {request.actor.name}'s {found.template} on segment {found.start} had no result points to spare ({rp})")
        if any(a.resolution.details.get("carried_from") == found.id for a in enc.actions):  # type: ignore[union-attr]
            raise TrackerError(f"carry: the result points of {request.actor.name}'s {found.template} on segment {found.start} were already used")
        return f"{found.template} (segment {found.start})", ceil_div(rp, 2), found.id

    # ----------------------------------------------------------- defence
    def defense_of(self, request: ActionRequest, target: Combatant) -> tuple[int, str]:
        """The combat difficulty to hit `target` now: its active defence or passive 10."""
        return defense_at(request.encounter, target.name, request.segment, self.tables.passive)

    # ----------------------------------------------------------- resolution
    def resolve(self, request: ActionRequest, dice: DiceSource) -> Resolution:
        name = request.template.name
        pt = request.performance_time
        if name in ATTACKS:
            return self._attack(request, dice, pt)
        if name in DEFENSES:
            return self._defend(request, dice, pt)
        if name == "check":
            return self._check(request, dice, pt)
        if name == "effect":
            return self._effect(request, dice, pt)
        return Resolution(pt=pt, summary=f"{pt} segments")

    def effect_code(self, request: ActionRequest) -> DieCode:
        text = request.params.get("code")
        if not text:
            raise TrackerError("effect needs its die code: code=4D (the Supernatural or Special Ability effect's value)")
        try:
            return parse(str(text), "code")
        except DieCodeError as exc:
            raise TrackerError(str(exc)) from None

    def _effect(self, request: ActionRequest, dice: DiceSource, pt: int) -> Resolution:
        """A Supernatural or Special Ability effect rolls its own die code; carry adds
        half the result points of an earlier roll to it, as the rules text allows. With a
        difficulty it is judged like a check; without one its total is the effect."""
        code = self.effect_code(request)
        pool = self.pool(request, "effect", ("effect", code))
        roll = roll_code(pool.code, dice, self.mode(request), "effect")
        details: dict[str, Any] = {"total": roll.total}
        self._mark_carry(request, details)
        if request.params.get("difficulty") is None and not request.params.get("level"):
            return Resolution(pt=pt, margin=roll.total, dice=roll.faces, summary=f"{pool.shown(roll)}: the effect's total",
                              details=details)
        difficulty, label = self._difficulty(request)
        rp = roll.total - difficulty
        success = rp >= 0
        level = self.tables.level_name(rp) if success else "Failure"
        details.update(self._roll_details(roll, difficulty, rp, level))
        summary = f"{pool.shown(roll)} vs {label}: {'success' if success else 'failure'}, result points {rp} ({level})"
        return Resolution(pt=pt, success=success, margin=rp, dice=roll.faces, summary=summary, details=details)

    def _difficulty(self, request: ActionRequest) -> tuple[int, str]:
        p = request.params
        if p.get("difficulty") is not None:
            number = int(p["difficulty"])
            limit_d6_difficulty(number, "difficulty")
            return number, f"difficulty {number} ({self.tables.difficulty_name(number)})"
        if p.get("level"):
            number, name = self.tables.difficulties[p["level"]]
            return number, f"{name} ({number})"
        raise TrackerError("check needs a difficulty: difficulty=N or level=moderate (levels: " + ", ".join(self.tables.difficulties) + ")")

    def _check(self, request: ActionRequest, dice: DiceSource, pt: int) -> Resolution:
        difficulty, label = self._difficulty(request)
        if difficulty == 0:
            # Seed: "Automatic (0): Almost anyone can perform this action; there is no need to roll."
            return Resolution(pt=pt, success=True, margin=0, summary=f"{label}: no need to roll",
                              details={"difficulty": 0, "automatic": True})
        skill = _skill(request)
        pool = self.pool(request, skill)
        roll = roll_code(pool.code, dice, self.mode(request), skill)
        rp = roll.total - difficulty
        success = rp >= 0
        level = self.tables.level_name(rp) if success else "Failure"
        summary = f"{pool.shown(roll)} vs {label}: {'success' if success else 'failure'}, result points {rp} ({level})"
        details = self._roll_details(roll, difficulty, rp, level)
        self._mark_carry(request, details)
        return Resolution(pt=pt, success=success, margin=rp, dice=roll.faces, summary=summary, details=details)

    def _defend(self, request: ActionRequest, dice: DiceSource, pt: int) -> Resolution:
        skill = _skill(request)
        pool = self.pool(request, skill)
        roll = roll_code(pool.code, dice, self.mode(request), f"{request.template.name} ({skill})" if skill != request.template.name else skill)
        full = bool(request.params.get("full"))
        value = roll.total + (self.tables.full_bonus if full else 0)
        until = request.segment + SEGMENTS_PER_ROUND
        how = f" + {self.tables.full_bonus} full defence" if full else ""
        summary = f"{pool.shown(roll)}{how}; attacks on {request.actor.name} need {value} until segment {until}"
        details: dict[str, Any] = {"defense": value, "total": roll.total}
        if roll.status:
            details["wild"] = roll.status
        return Resolution(pt=pt, margin=value, dice=roll.faces, summary=summary, details=details)

    def _mark_carry(self, request: ActionRequest, details: dict[str, Any]) -> None:
        if request.params.get("carry"):
            details["carried_from"] = self.carried(request)[2]

    @staticmethod
    def _roll_details(roll: D6Roll, difficulty: int, rp: int, level: str) -> dict[str, Any]:
        details: dict[str, Any] = {"total": roll.total, "difficulty": difficulty, "result_points": rp, "level": level.lower().replace(" ", "_"),
                                   MARGIN_NAME: "result points"}
        if roll.status:
            details["wild"] = roll.status
        return details

    def _target(self, request: ActionRequest) -> Combatant:
        if len(request.targets) != 1:
            raise TrackerError(f"{request.template.name} needs one target (target=NAME)")
        return request.targets[0]

    def damage_code(self, request: ActionRequest) -> tuple[DieCode, str]:
        stats = request.actor.stats
        weapon = stats.get("weapon")
        source, strength = strength_source(stats)
        bonus = strength_damage(strength)
        if weapon is None:
            if request.template.name == "shoot":
                name = request.actor.name
                raise TrackerError(f"{name} has no weapon to shoot with: give the sheet one (set {name} weapon 4D, "
                                   "or e in the roster), or strike instead")
            return bonus, f"Strength Damage {bonus} ({source} {strength})"
        code = parse(str(weapon), "weapon")
        if str(weapon).startswith("+"):
            return bonus + code, f"Strength Damage {bonus} ({source} {strength}) {code.signed()}"
        return code, f"weapon {code}"

    def _attack(self, request: ActionRequest, dice: DiceSource, pt: int) -> Resolution:
        # What the sheet cannot do is refused before any die is asked for (shooting
        # without a weapon), first, as the chance line refuses it.
        code, label = self.damage_code(request)
        target = self._target(request)
        skill = _skill(request)
        pool = self.pool(request, skill)
        difficulty, against = self.defense_of(request, target)
        mode = self.mode(request)
        attack = roll_code(pool.code, dice, mode, f"{request.template.name} ({skill})")
        rp = attack.total - difficulty
        hit = rp >= 0
        level = self.tables.level_name(rp) if hit else "Failure"
        lines = [f"{pool.shown(attack)} vs {against}, as things stand: " + (f"hit, result points {rp} ({level})" if hit else f"miss by {-rp}")]
        faces = list(attack.faces)
        effects: list[Effect] = []
        details = self._roll_details(attack, difficulty, rp, level)
        self._mark_carry(request, details)
        system = request.settings.get("damage_system", "wounds")
        t = self.tables
        record: dict[str, Any] = {
            "target": target.name, "total": attack.total, "passive": t.passive, "system": system,
            "bonus_divisor": t.bonus_divisor, "damage_bonus": bool(request.settings.get("damage_bonus", True)),
            "levels": [[w.over, w.rank] for w in t.wounds if w.over is not None],
            "names": {str(w.rank): w.name for w in t.wounds}, "max_rank": t.max_rank,
        }
        # Every die the landing may need is rolled now, whatever the defence now says
        # (docs/contributing/design.md#judged-on-landing): a dodge typed later on this segment must not change which dice
        # were rolled, only whether they are used.
        bonus = ceil_div(rp, self.tables.bonus_divisor) if rp > 0 and request.settings.get("damage_bonus", True) else 0
        blow = roll_code(code, dice, mode, "damage")
        faces += blow.faces
        damage = blow.total + bonus
        # The roll's text ends in its total already: a total of its own only with a bonus.
        shown_bonus = f" + {bonus} (result points {rp} / {self.tables.bonus_divisor}, rounded up) = {damage}" if bonus else ""
        lines.append(f"damage {label}: {blow.text(code=False)}{shown_bonus}")
        resist_code, resist_label = self.resistance(target, system)
        if resist_code.dice >= 1:
            guard = roll_code(resist_code, dice, mode, "resistance", target.name)
            faces += guard.faces
            resistance = guard.total
            lines.append(f"resistance {resist_label} = {guard.text()}" if " + armour" in resist_label else f"resistance {resist_label}: {guard.text(code=False)}")
        else:
            resistance = max(0, resist_code.pips)
            lines.append(f"resistance {resist_label}: {resistance}")
        record.update(damage_dice=blow.total, resistance=resistance)
        if hit:
            details.update(damage=damage, resistance=resistance)
            self.injury(target, damage - resistance, system, lines)  # as things stand: the judge decides at landing
        lines.append("judged when it lands")
        details["hits"] = [record]
        details[JUDGE_KEY] = BLOW_JUDGE
        effects.append(Blow(target.name, 0))
        # No success at initiation: whether it hits is the landing's judgment (the judge's
        # "lands: hit/miss" line), so completion does not announce one first.
        return Resolution(pt=pt, success=None, margin=rp, dice=tuple(faces), summary="; ".join(lines), effects=tuple(effects), details=details)

    def resistance(self, target: Combatant, system: str) -> tuple[DieCode, str]:
        armor = parse(str(target.stats.get("armor") or "0D"), "armor")
        if system == "body_points":
            return armor, f"armour {armor}" if armor != DieCode(0, 0) else "no armour"
        physique = parse(str(target.stats.get("physique", "3D")), "physique")
        if armor == DieCode(0, 0):
            return physique, f"Physique {physique}"
        return physique + armor, f"Physique {physique} + armour {armor}"

    def injury(self, target: Combatant, over: int, system: str, lines: list[str]) -> list[Effect]:
        if over <= 0:
            lines.append(f"{target.name} resists: no damage")
            return []
        if system == "body_points":
            if BODY_POINTS not in target.resources:
                raise TrackerError(f"{target.name} has no body_points (this encounter uses Body Points: add the combatant with body_points=N)")
            lines.append(f"{over} over: {over} Body Points")
            return [Damage(target.name, over, BODY_POINTS)]
        current = int(target.resources.get(WOUNDS, HEALTHY_WOUNDS))
        before = HEALTHY_WOUNDS - current
        rank = self.tables.rank_for(over)
        new = min(max(rank, before + 1), self.tables.max_rank)
        name = self.tables.rank_name(new)
        bumped = " (a further wound raises the level by one)" if new > rank else ""
        lines.append(f"{over} over: {target.name} is {name}{bumped}")
        return [Damage(target.name, new - before, WOUNDS), Note(f"{target.name} is {name}")]

    # ----------------------------------------------------------- odds
    def chance_of(self, request: ActionRequest) -> Fraction | None:
        name = request.template.name
        mode = self.mode(request)
        if name in ATTACKS:
            self.damage_code(request)  # an attack the sheet cannot make says why here, before any dice
            if len(request.targets) != 1:
                return None
            pool = self.pool(request, _skill(request))
            difficulty, _ = self.defense_of(request, request.targets[0])
            return chance_at_least(pool.code, difficulty, mode)
        if name in ("check", "effect"):
            p = request.params
            if name == "effect":
                self.effect_code(request)  # an effect without its code says so here, not "no roll"
            if name == "effect" and p.get("difficulty") is None and not p.get("level"):
                return None  # an effect without a difficulty is its total alone: nothing to reach
            # A check without one is refused by name (`_difficulty`), so the form's chance
            # line says what is missing rather than "no roll".
            difficulty, _ = self._difficulty(request)
            if difficulty == 0 and name == "check":
                return Fraction(1)
            if name == "effect":
                code = self.effect_code(request)
                return chance_at_least(self.pool(request, "effect", ("effect", code)).code, difficulty, mode)
            return chance_at_least(self.pool(request, _skill(request)).code, difficulty, mode)
        return None
