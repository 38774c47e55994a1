"""Brand X (Jerry Stratton's superhero game) as a ruleset adapter.

Sources: `seeds/004_...` (the rolls), `reference/brandx.md` (the charts, the worked
combat), and docs/contributing/design.md#rules-decisions, which decides where they are silent or disagree:

- Time: 50 segments a round (0.1 m/segment = 5 m/round); payment segments every 50,
  where per-round costs (movement EP, passive power upkeep, holding breath) are
  charged; an action's own EP is paid when it is initiated. A segment is 0.24 s
  (25 m a minute at 0.1 m/segment is 5 rounds a minute).
- Action Roll: 2d10 roll-under with the subtracting reroll (rolls.py); bonus pools
  through the Sphere chart, negative pools mirrored (charts.py); Editing Points +1
  each; Saving Quality 2:1 into the next same-kind action (common.py).
- The charts and the EP use chart are data (`tables.toml`), overridable by a GM's
  house-rules file; `chart_lookup` reads them both ways for `tracker chart`.
- Combat, Hand Damage, throwback and maintained attacks: combat.py. Moving and
  jumping: movement.py; lifting, arm wrestling and throwing: strength.py; the other
  rolls of the seed: actions.py. Each module's docstring lists its own decisions.

The sheet's VP, DP and EP have no published formula; the defaults (30, 15, 30) are
placeholders a GM overrides on `add`. `combat_roll`, `move_roll` and `hand_damage`
may be given on the sheet to override the figures derived from the abilities.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from fractions import Fraction
from typing import Any

from tracker.engine.effects import Resolution
from tracker.engine.errors import TrackerError
from tracker.engine.model import ACTIVE, PASSIVE, Combatant
from rulesets.base import ActionRequest, ActionTemplate, ManualDamage, Recovery, RollResult, Ruleset
from rulesets.brandx import actions, combat, movement, strength
from rulesets.brandx.charts import CHART_NAMES, Charts, parse_number
from rulesets.brandx.common import TIME, Ctx, defense_of
from rulesets.brandx.ep import EpChart
from rulesets.brandx.rolls import (
    ProbeHit,
    TargetProbe,
    action_roll,
    chance_at_most,
    chance_d100_at_most,
    faces_for_total,
    roll_d100,
    total_chances,
)
from rulesets.dice import DiceSource, TypedFaces
from rulesets.fields import PARAM, RESOURCE, SETTING, STAT, Field, staged

ABILITY_NAMES = actions.ABILITIES
HAND_ATTACKS = ("punch", "strike")
# Actions whose chance line adds the chance to hit their target. A throw's first roll is
# the Throw Roll (its chance of success is that one's); its Combat Roll comes after.
ATTACKS = ("punch", "strike", "blast", "throw")


def _hits(resolution: Resolution) -> list[dict[str, Any]]:
    details = resolution.details
    return list(details["hits"] if "hits" in details else details.get("attack", {}).get("hits", []))


def _stat(name: str, default: int | float, help: str, kind: str = "int", minimum: float = 0, maximum: float = 1000) -> Field:
    return Field(name, kind, default, minimum, maximum, role=STAT, help=help)


def _p(name: str, help: str, kind: str = "int", minimum: float | None = 0, maximum: float | None = None, choices: tuple[str, ...] = ()) -> Field:
    return Field(name, kind, None, minimum, maximum, choices, role=PARAM, help=help)


SHEET: tuple[Field, ...] = (
    _stat("strength", 10, "Strength (3d6 for ordinary people)"),
    _stat("agility", 10, "Agility; the Combat Roll is Sphere(2 x agility)"),
    _stat("constitution", 10, "Constitution; Healing and Hold Breath rolls"),
    _stat("learning", 10, "Learning; learning // 10 joins the combat pool"),
    _stat("newoen", 10, "Newoen; Discernment is vs newoen // 2"),
    _stat("active_charisma", 10, "Active Charisma"),
    _stat("normal_charisma", 10, "Normal Charisma"),
    _stat("sight", 10, "Sight"),
    _stat("hearing", 10, "Hearing"),
    _stat("build", 10, "Build"),
    _stat("beauty", 10, "Beauty"),
    _stat("mass", 70.0, "mass in kg (Hand Damage, Lift, Throw, Throwback)", "float", 0.1, 1e9),
    _stat("height", 1.75, "height in metres (Move, Jump, airborne time)", "float", 0.01, 1000),
    Field("editing_points", "int", None, 0, None, role=STAT, help="Editing Points left to spend (+1 each on a roll)"),
    Field("combat_roll", "int", None, -100, 1000, role=STAT, help="override the derived Combat Roll"),
    Field("move_roll", "int", None, -100, 1000, role=STAT, help="override the derived Move Roll"),
    Field("hand_damage", "int", None, 0, 1e9, role=STAT, help="override the derived Hand Damage"),
    Field("vp", "int", 30, 0, None, role=RESOURCE, help="Vitality Points; 0 means down"),
    Field("dp", "int", 15, 0, None, role=RESOURCE, help="Body Damage Points; 0 means down"),
    Field("ep", "float", 30, 0, None, role=RESOURCE, help="Endurance Points, paid for actions"),
    Field("penetrating_dp", "int", None, 0, None, role=RESOURCE,
          help="of the DP lost, how much is penetrating damage (healed by the day, not the hour)"),
    Field("injury_dp", "int", None, 0, None, role=RESOURCE,
          help="of the DP lost, how much is injury damage (healed by the month)"),
    Field("pushback", "int", None, 0, None, role=RESOURCE,
          help="Pushback: the Throwback Rolls' penalty Q added up (\"The Throwback penalty Q is added to Pushback\")"),
)

SETTINGS: tuple[Field, ...] = (
    Field("throwback", "bool", True, role=SETTING,
          help="make the target's Throwback Roll for every blow that does damage (used when a hit takes DP or the target is surprised)"),
    Field("negative_movement", "bool", False, role=SETTING, help="allow negative speed Q (fractional speeds)"),
    Field("fractional_throwback", "bool", False, role=SETTING,
          help="throwback for positive Q too, read as a fraction (the rules: \"this should be rare, as it is quite tedious\"); off by default"),
    Field("maintain_hand_attacks", "bool", False, role=SETTING,
          help="house rule, off by default: punches and hand-weapon strikes may be maintained (the rules maintain blast/ray powers)"),
)

# ---------------------------------------------------------------------------- params
ROLL = (
    _p("roll", "the Action Roll, if not the one derived from the sheet", minimum=None),
    _p("pool", "extra bonus pool (read on the Sphere chart)", minimum=None),
    _p("editing", "Editing Points spent: +1 each"),
    _p("effort", "Extra Effort: raise the ability by N, which then drops by N"),
    _p("effort_on", "the ability Extra Effort raises", "choice", None, None, ABILITY_NAMES),
    _p("ep_row", "start on this EP row instead", minimum=None),
)
Q_GENERIC = (
    _p("q_speed", "Q to speed (3 Q halve the PT)"),
    _p("q_defense", "Q to Defense (2 Q: +1)"),
    _p("q_ep", "Q to EP (one row each)"),
    _p("q_save", "Q saved for the next same-kind action (2 Q: +1 pool)"),
)
HIT = (
    _p("defense", "the target's Defense, if not the one in force", minimum=None),
    _p("to", "damage to vp (overflowing to dp) or dp", "choice", None, None, ("vp", "dp")),
    _p("penetrating", "mainly penetrating damage (halves throwback; its DP heal by the day)", "bool", None),
    _p("injury", "injury damage: its DP heal by the month", "bool", None),
    _p("small_projectile", "a small projectile (halves throwback again)", "bool", None),
    _p("surprised", "the target was surprised", "bool", None),
    _p("throwback", "force (true) or skip (false) the throwback roll", "bool", None),
)
COMBAT_Q = (
    _p("q_speed", "Q to speed (3 Q halve the PT)"),
    _p("q_attack", "Q to Attack (1:1)"),
    _p("q_attacks", "Attack Q per opponent, in target order (3,2): Attack is applied separately for each", "str", None),
    _p("q_defense", "Q to Defense (2 Q: +1)"),
    _p("q_damage", "Q to Damage (Doubles chart: 1, 2, 4, 8 ...)"),
    _p("q_ep", "Q to EP (one row each)"),
    _p("q_save", "Q saved for the next same-kind action (2 Q: +1 pool)"),
)
COMBAT = ROLL[:3] + (ROLL[5],) + (
    _p("sight", "sight bonus or penalty to the combat pool", minimum=None),
    _p("size", "size difference modifier to the combat pool", minimum=None),
) + COMBAT_Q + HIT
PUNCH = COMBAT + (
    _p("hand_damage", "Hand Damage used, holding back to lower the EP row"),
    _p("damage", "a weapon's damage added to Hand Damage"),
)
POWER_PR = (
    _p("pr", "the Power Roll with the power"),
    _p("pr_effect", "PR put into the effect"),
    _p("pr_ep", "PR put into EP (one row each)"),
    _p("pr_speed", "PR put into speed"),
)
# Seed: "Each attack takes place on successive segments (except for automatic firearms)."
STRIKE = PUNCH + (_p("automatic", "an automatic firearm: every opponent is attacked on the same segment", "bool", None),)
BLAST = COMBAT + POWER_PR + (_p("damage", "the blast's damage"),)
POWER = POWER_PR + (
    _p("mode", "active, or passive (half time)", "choice", None, None, ("active", "passive")),
    _p("label", "the power's name, for the log and its upkeep", "str", None),
    _p("upkeep", "charge its EP every round", "bool", None),
    _p("stop", "drop the power: its per-round EP (under its label) ends; no roll, no EP", "bool", None),
    _p("effort", "Extra Effort on the power (+PR), if the Editor allows; the PR then drops by as much"),
    _p("rested", "the PR lost to Extra Effort has returned (healing)", "bool", None),
    _p("ep_row", "start on this EP row instead", minimum=None),
)
MOVE = ROLL + (
    _p("q_ep", "Q to EP (one row each)"),
    _p("q_speed", "Q to speed Q"),
    _p("q_turn", "Q to turning (45 degrees each)"),
    _p("q_defense", "Q to Defense (2 Q: +1, and -1 Attack)"),
    _p("q_save", "Q saved for the next Move Roll"),
    _p("slow", "lower the speed Q by up to Sphere(speed Q)"),
    _p("stop", "stop moving (ends movement EP)", "bool", None),
    _p("maneuverability", "degrees turned per Q (people 45)", minimum=1),
)
WEIGHT = (
    _p("weight", "the object's mass in kg", "float"),
    _p("overhead", "lifted overhead (counts double)", "bool", None),
    _p("worn", "worn (counts half)", "bool", None),
)


def _t(name: str, mode: str, pt: int, description: str, rolls: str, cost: str, params: tuple[Field, ...], **kw: Any) -> ActionTemplate:
    return ActionTemplate(name, mode, pt, description, rolls, cost, params=params, **kw)


CATALOGUE: dict[str, ActionTemplate] = {t.name: t for t in (
    _t("punch", ACTIVE, 15, "hand-to-hand attack with Hand Damage", "Combat Roll: Sphere(2 x agility) + pool",
       "combat row 5 + Hand Damage row 7 (4 EP)", PUNCH, targets=-1),
    _t("strike", ACTIVE, 15, "attack with a hand weapon (damage= plus Hand Damage)", "Combat Roll",
       "combat row 5 + Hand Damage row 7", STRIKE, targets=-1),
    _t("blast", ACTIVE, 20, "a blast or ray power; can be maintained (PT/4, Attack -2 a link)",
       "Combat Roll vs the PR put in + pool", "power row 9 less PR to EP", BLAST, targets=-1, maintainable=True),
    _t("power", ACTIVE, 20, "use a power (non-random: Q is the PR); mode=passive halves the PT",
       "none: Q = PR", "power row 9 less PR to EP; passive: every round", POWER),
    _t("ability", ACTIVE, 10, "an Ability Roll (ability=...), with Extra Effort", "2d10 vs the ability",
       "none", ROLL + Q_GENERIC + (_p("ability", "which ability", "choice", None, None, ABILITY_NAMES),
                                   _p("calm", "no stress: assume a roll of 7", "bool", None))),
    _t("discernment", ACTIVE, 6, "know the right, true and good course", "2d10 vs newoen // 2", "none",
       ROLL[:3] + Q_GENERIC),
    _t("heal", ACTIVE, 15000, "Healing Roll: period=round|hour|day|month, mental=true", "2d10 vs Sphere(constitution) + Sphere(DP)",
       "none", (_p("period", "round, hour, day or month", "choice", None, None, ("round", "hour", "day", "month")),
                _p("mental", "mental healing", "bool", None), ROLL[1], ROLL[2], ROLL[3])),
    _t("hold-breath", PASSIVE, 10, "hold breath: EP each round, rising with time", "2d10 vs constitution + strength/2 + Sphere(DP)",
       "row 9 less Q, every round", ROLL + (_p("elapsed", "rounds held so far (Sphere penalty to Q)"),
                                            _p("again", "continue the attempt: no new roll, the penalty grows with the rounds held", "bool", None),
                                            _p("air_gone", "segment the air is gone (vacuum penalty)"),
                                            _p("stop", "breathe again: the per-round EP (and DP) end; no roll", "bool", None))),
    _t("jump", PASSIVE, 6, "jump; may start with move", "2d10 vs agility + strength + Square(2 x height)", "row 9 less Q",
       ROLL + (_p("q_ep", "Q to EP"), _p("q_height", "Q to height"), _p("speed", "speed in m/segment", "float"),
               _p("reach", "grabbing: add height to reach", "bool", None),
               _p("grab", "grab something in the jump: a Combat Roll (close combat) follows", "bool", None),
               _p("density", "the character's density, if extremely low (kg/m3)", "float", 1e-9),
               _p("air_density", "the atmosphere's density (kg/m3, default 1.2)", "float", 0)), companions=("move",)),
    _t("lift", ACTIVE, 10, "lift, push or pull (weight=KG); power=true for a power at distance=M", "2d10 vs strength - 9 + Sphere(mass)",
       "row 9 less Q; failure 1 EP", ROLL + WEIGHT + (_p("q_ep", "Q to EP"), _p("q_speed", "Q to speed"),
                                                       _p("push", "push or pull", "bool", None), _p("friction", "friction 0-20 (20: impossible to overcome)", maximum=20),
                                                       _p("distance", "a power's distance to the object in m", "float"),
                                                       _p("power", "a power lifts (PT 20; roll= its Lift Roll)", "bool", None),
                                                       _p("inanimate", "an inanimate object (rope, web) holds: Q = roll + Sphere(pool), no dice", "bool", None))),
    _t("move", PASSIVE, 6, "Move Roll: speed, turning, EP, Defense; may start with jump", "2d10 vs Move Roll - Sphere(speed Q)",
       "row 9 less Q, every round", MOVE, companions=("jump",)),
    _t("throw", ACTIVE, 15, "throw an object (weight=KG), at a target as an attack", "2d10 vs strength - 9 + Sphere(mass)",
       "row 9 less Q; failure 5 EP", ROLL + WEIGHT + COMBAT_Q[:3] + (
           _p("q_ep", "Q to EP"), _p("q_distance", "Q to distance"), _p("q_lob", "Q to lobbing"),
           _p("precise", "count airborne segments", "bool", None), _p("damage", "the object's damage"),
           _p("range", "distance to the target in m", "float"), _p("sight", "sight bonus", minimum=None),
           _p("size", "size modifier", minimum=None)) + HIT, targets=-1),
    _t("skill", ACTIVE, 10, "a Skill Roll (roll= its Action Roll, level= its Skill Level)", "2d10 vs the skill",
       "none unless ep_row=", ROLL + Q_GENERIC + (_p("level", "Skill Level"), _p("more_time", "doublings of time (+2 each)"),
                                                  _p("hurry", "halvings of time (-2 each)"), _p("knowledge", "a same-named Knowledge Score"))),
    _t("knowledge", ACTIVE, 6, "a Knowledge Roll (d100 vs score x multiplier)", "d100, no reroll", "none",
       (_p("score", "Knowledge Score"), _p("multiplier", "how likely (20 easy, 0.25 obscure)", "float"),
        _p("skill", "a same-named Skill Level"))),
    _t("arm-wrestle", ACTIVE, 10, "an opposed Lift Roll (arm wrestling)", "2d10 each: Lift Rolls", "row 9; both failing 5 EP each",
       (ROLL[1], ROLL[2], _p("q_ep", "Q to EP"), _p("vs_q_ep", "the opponent's Q to EP"),
        _p("q_cut", "Q spent cutting the opponent's Q (2 for 1); comes off your own"),
        _p("vs_q_cut", "the opponent's Q spent cutting yours")), targets=1),
)}

# The declare form's stages. MAIN: the few modifiers that matter for the action; the
# rest are one key away; Q (and the speed slowed by it) is placed after the roll is seen
# (docs/contributing/design.md#rules-decisions), where Q left unplaced goes to the action's usual use.
_MAIN: dict[str, tuple[str, ...]] = {
    "punch": ("pool", "hand_damage"), "strike": ("pool", "damage", "hand_damage"),
    "blast": ("pr", "pr_effect", "damage", "pool"), "power": ("pr", "pr_effect", "label", "mode", "stop"),
    "ability": ("ability", "pool", "effort"), "discernment": ("pool",), "heal": ("period", "mental"),
    "hold-breath": ("elapsed", "again", "stop"), "jump": ("speed", "reach"), "lift": ("weight", "overhead", "push", "power", "inanimate"),
    "move": ("stop",), "throw": ("weight", "damage", "range"), "skill": ("roll", "level"),
    "knowledge": ("score", "multiplier"), "arm-wrestle": ("pool",),
}


# Where Q nobody placed goes, per action (common.py), and the words for each use.
_USUAL_Q = {"punch": "Attack", "strike": "Attack", "blast": "Attack", "move": "speed", "jump": "height",
            "lift": "EP", "throw": "distance"}
_Q_NAMES = {"q_speed": "speed", "q_attack": "Attack", "q_attacks": "Attack per opponent", "q_cut": "cutting the opponent's Q", "q_defense": "Defense", "q_damage": "Damage",
            "q_ep": "EP", "q_save": "saved", "q_height": "height", "q_distance": "distance", "q_lob": "lob",
            "q_turn": "turning"}


def after_roll_param(name: str) -> bool:
    return name.startswith(("q_", "vs_q_")) or name == "slow"


CATALOGUE = {
    name: replace(t, params=staged(t.params, _MAIN.get(name, ()), after_roll_param)) for name, t in CATALOGUE.items()
}

_RESOLVERS = {
    "punch": lambda ctx, dice: combat.resolve_attack(ctx, dice, "punch"),
    "strike": lambda ctx, dice: combat.resolve_attack(ctx, dice, "strike"),
    "blast": lambda ctx, dice: combat.resolve_attack(ctx, dice, "blast"),
    "power": actions.resolve_power,
    "ability": actions.resolve_ability,
    "discernment": actions.resolve_discernment,
    "heal": actions.resolve_heal,
    "hold-breath": actions.resolve_hold_breath,
    "jump": movement.resolve_jump,
    "lift": strength.resolve_lift,
    "move": movement.resolve_move,
    "throw": strength.resolve_throw,
    "skill": actions.resolve_skill,
    "knowledge": actions.resolve_knowledge,
    "arm-wrestle": strength.resolve_arm_wrestle,
}


class BrandXRuleset(Ruleset):
    id = "brandx"
    name = "Brand X"
    description = "Brand X superheroes: 2d10 roll-under Action Rolls, Q, Sphere charts, EP rows"
    time = TIME
    sheet = SHEET
    settings = SETTINGS
    down_when = ("vp", "dp")
    tables_file = "tables.toml"
    judges = {combat.JUDGE: combat.judge_blow}
    # Seed 004, "Healing Roll": VP and EP heal each round of rest (half the Healing Roll
    # plus its pool, up and down); the physical Healing Roll is made each hour (bludgeoning
    # DP, abilities, EP), each day (penetrating DP) and each month (injury DP).
    recovery = Recovery(
        "Brand X's Healing Roll (seed 004)",
        "each round of rest VP and EP heal by the Healing Roll; "
        "each hour a physical Healing Roll heals DP, strength, agility, constitution and EP with its Q; "
        "each day one heals penetrating DP, each month injury DP",
        per_round=("heal", {"period": "round"}),
        rolls=(("heal", {"period": "hour"}, 1, ()), ("heal", {"period": "day"}, 24, ("penetrating_dp",)), ("heal", {"period": "month"}, 720, ("injury_dp",))),
    )

    def __init__(self, house_rules: Any = None) -> None:
        super().__init__(house_rules)
        self._charts: Charts | None = None
        self._ep: EpChart | None = None

    @property
    def charts(self) -> Charts:
        if self._charts is None:
            self._charts = Charts(self.tables)
        return self._charts

    @property
    def ep_chart(self) -> EpChart:
        if self._ep is None:
            self._ep = EpChart.from_tables(self.tables)
        return self._ep

    def check_tables(self) -> None:
        """The four charts and the EP chart (with its start rows): every table read."""
        _ = self.charts, self.ep_chart

    def ctx(self, request: ActionRequest) -> Ctx:
        return Ctx(self.charts, self.ep_chart, self.tables, request)

    # ------------------------------------------------------------------ catalogue
    def catalogue(self) -> Mapping[str, ActionTemplate]:
        return CATALOGUE

    def template(self, name: str) -> ActionTemplate:
        # "hold breath", "hold_breath" and "hold-breath" all name the same action.
        return super().template(name.strip().replace(" ", "-").replace("_", "-"))

    def default_pt(self, request: ActionRequest) -> int:
        return actions.default_pt(request)

    def params(self, template: ActionTemplate, raw: Mapping[str, Any], where: str = "declare") -> dict[str, Any]:
        """Dropping a power (`stop=true`) is a passive action unless a mode is typed, so
        it may be done while an active action is in progress (actions.py, Stopping)."""
        out = super().params(template, raw, where)
        if template.name == "power" and out.get("stop") and out.get("mode") is None:
            out["mode"] = PASSIVE
        return out

    def resolve(self, request: ActionRequest, dice: DiceSource) -> Resolution:
        resolver = _RESOLVERS.get(request.template.name)
        if resolver is None:
            raise TrackerError(f"Brand X has no rule for {request.template.name!r}")
        return resolver(self.ctx(request), dice)

    def maintainable(self, template: ActionTemplate, settings: Mapping[str, Any]) -> bool:
        """Brand X maintains blast/ray powers ("Most blast/ray attack powers can be
        maintained"); punches and hand-weapon strikes only where the table's
        `maintain_hand_attacks` setting (a house rule, off by default) says so."""
        if template.name in HAND_ATTACKS:
            return bool(settings.get("maintain_hand_attacks", False))
        return template.maintainable

    def maintain(self, request: ActionRequest, dice: DiceSource) -> Resolution:
        self._check_maintainable(request)
        return combat.maintain_attack(self.ctx(request), dice)

    def _check_maintainable(self, request: ActionRequest) -> None:
        if not self.maintainable(request.template, request.settings):
            if request.template.name in HAND_ATTACKS:
                raise TrackerError(
                    f"{request.template.name} cannot be maintained: Brand X maintains blast and ray powers (\"Most "
                    f"blast/ray attack powers can be maintained\"); a table whose house rules maintain hand attacks "
                    f"turns on the setting maintain_hand_attacks (`setting maintain_hand_attacks true`)"
                )
            raise TrackerError(f"{request.template.name} cannot be maintained")

    def after_roll(self, request: ActionRequest, resolution: Resolution) -> str:
        """Q is spent after the roll is seen (docs/contributing/design.md#rules-decisions): 'Q 6 to place on speed, Attack,
        ...; unplaced Q goes to Attack'. Nothing to place after a failure or Q 0; an
        arm-wrestle's Q is placed when both Lift Rolls succeed, whoever it then makes win."""
        fields = self.after_roll_fields(request)
        q = resolution.margin
        if request.previous is not None:  # a maintained link rolls nothing: no Q of its own
            return ""
        rolled = resolution.success
        if request.template.name == "arm-wrestle":
            # Its success is winning, which the Q placed decides; the Q is there to place
            # when both Lift Rolls succeed (seed: "If both succeed, they can use the Q").
            rolled = min(int(resolution.details.get("q", -1)), int(resolution.details.get("vs_q", -1))) >= 0
        if not fields or not rolled or not isinstance(q, int) or q <= 0:
            return ""
        single = len(request.targets) <= 1  # Attack per opponent only matters for several
        names = ", ".join(_Q_NAMES.get(f.name, f.name) for f in fields
                          if f.name.startswith("q_") and not (single and f.name == "q_attacks"))
        usual = _USUAL_Q.get(request.template.name, "nothing (left unspent)")
        return f"Q {q} to place on {names}; unplaced Q goes to {usual}"

    def damage_rule(self, target: Combatant, amount: int | float, resource: str | None = None) -> ManualDamage:
        """As a blow lands: VP first, what VP cannot take goes through to DP (`resource=dp`
        puts it on DP directly). Healing VP stops at the maximum."""
        rule = super().damage_rule(target, amount, resource or ("vp" if "vp" in target.resources else None))
        if rule.resource == "vp" and "dp" in target.resources:
            return ManualDamage("vp", "dp")
        return rule

    def chance_of(self, request: ActionRequest) -> Fraction | None:
        """Exact chance the declared action succeeds (the first roll it makes). A
        maintained link carries its first link's Combat Roll: 1 or 0, certainly."""
        if request.previous is not None:
            self._check_maintainable(request)
            success, _ = combat.carried_roll(self.ctx(request))
            return Fraction(int(success))
        try:
            self.resolve(request, TargetProbe())
        except ProbeHit as hit:
            return hit.chance
        return None  # no dice: powers, resting a round

    def chance_to_hit(self, request: ActionRequest) -> Fraction:
        """The chance an attack hits its (first) target's Defense as things stand: the
        attack is resolved at every total of the 2d10 (with the Q placed as the form
        says, unplaced Q to Attack) and the chances of the totals whose Attack meets the
        Defense are added up. Exact, never sampled."""
        quiet = replace(request, settings={**request.settings, "throwback": False})
        # A throw rolls its Throw Roll first: the attack is made only if that succeeds,
        # so each Throw Roll total weighs the Combat Roll's chance under it.
        leads = [(faces_for_total(t), w) for t, w in total_chances()] if request.template.name == "throw" else [((), Fraction(1))]
        chance = Fraction(0)
        for lead, lead_weight in leads:
            for total, weight in total_chances():
                hits = _hits(self.resolve(quiet, TypedFaces(lead + faces_for_total(total))))
                if not hits:
                    break  # the throw failed: no attack, whatever the Combat Roll
                if int(hits[0]["attack"]) >= int(hits[0]["defense"]):
                    chance += lead_weight * weight
        return chance

    def chance_note(self, request: ActionRequest) -> str:
        """A roll that succeeds may still miss: the form's line adds the chance to hit.
        A maintained link says which roll it carries and, its Attack being known, whether
        it hits as things stand."""
        if request.previous is not None:
            return self._link_note(request)
        if request.template.name in ATTACKS and request.targets:
            target = request.targets[0]
            stated = request.params.get("defense")
            defense, why = (int(stated), "stated") if stated is not None else defense_of(request.encounter, target)
            return (f"to hit {target.name} (Defense {defense:+d}{f', {why}' if why else ''} now): "
                    f"{float(self.chance_to_hit(request)):.2%}")
        return ""

    def _link_note(self, request: ActionRequest) -> str:
        """'carries the miss of segment 19's Combat Roll (rolled 18 against 11); Attack -5
        vs Sphinx's Defense +0 now: a miss as things stand'."""
        assert request.previous is not None
        _, carries = combat.carried_roll(self.ctx(request))
        note = f"carries {carries}"
        if request.targets:
            target = request.targets[0]
            _, attacks, _ = combat.link_attacks(request.previous, len(request.targets))
            stated = request.params.get("defense")
            defense, why = (int(stated), "stated") if stated is not None else defense_of(request.encounter, target)
            verdict = "a hit" if attacks[0] >= defense else "a miss"
            note += (f"; Attack {attacks[0]:+d} vs {target.name}'s Defense {defense:+d}{f' ({why})' if why else ''} now: "
                     f"{verdict} as things stand")
        return note

    # ------------------------------------------------------------------ command line
    def _options(self, spec: str, options: Mapping[str, Any] | None) -> tuple[int, int, int, str]:
        opts = dict(options or {})
        target = parse_number(spec, "brandx TARGET")
        if not isinstance(target, int):
            raise TrackerError(f"brandx TARGET: expected a whole number such as 15, got {spec!r}")
        pool = parse_number(opts.pop("pool", 0), "--pool")
        editing = parse_number(opts.pop("editing", 0), "--set editing")
        kind = str(opts.pop("kind", "action"))
        if kind not in ("action", "knowledge"):
            raise TrackerError(f"--set kind={kind}: expected action or knowledge")
        if opts:
            raise TrackerError(f"brandx: unknown option {next(iter(opts))!r} (options: pool, editing, kind)")
        if not isinstance(pool, int) or not isinstance(editing, int):
            raise TrackerError("brandx: --pool and editing take whole numbers")
        return target, pool, editing, kind

    def roll(self, spec: str, dice: DiceSource, *, vs: str | None = None, vs_dice: DiceSource | None = None,
             difficulty: int | None = None, options: Mapping[str, Any] | None = None) -> RollResult:
        if vs is not None:
            raise TrackerError("brandx: opposed rolls are declared in an encounter (arm-wrestle); --vs is not used")
        base, pool, editing, kind = self._options(spec, options)
        bonus = self.charts.sphere(pool)
        target = base + bonus + editing
        if kind == "knowledge":
            k = roll_d100(dice, target)
            dice_shown, total, q, success = list(k.dice), k.total, k.q, k.success
            shown = f"d100 {k.tens},{k.units} -> {k.total}"
        else:
            r = action_roll(dice, target)
            dice_shown, total, q, success = list(r.dice), r.total, r.q, r.success
            shown = f"2d10 {r.shown()}"
        parts = [f"target {base}"]
        if pool:
            parts.append(f"pool {pool} ({bonus:+d})")
        if editing:
            parts.append(f"editing +{editing}")
        outcome = f"success, Q {q}" if success else f"failure, missed by {-q}"
        text = f"{shown} vs {' + '.join(parts)} = {target}: {outcome}"
        return RollResult(self.id, dice_shown, success, q, text, {
            "total": total, "target": target, "q": q, "base": base, "pool": pool, "pool_bonus": bonus, "editing": editing,
        })

    def chance(self, spec: str, *, vs: str | None = None, difficulty: int | None = None,
               options: Mapping[str, Any] | None = None) -> Fraction:
        if vs is not None:
            raise TrackerError("brandx: odds of opposed rolls are not offered; give a TARGET")
        base, pool, editing, kind = self._options(spec, options)
        target = base + self.charts.sphere(pool) + editing
        return chance_d100_at_most(target) if kind == "knowledge" else chance_at_most(target)

    def chart_lookup(self, name: str, value: Any, reverse: bool = False) -> dict[str, Any]:
        """`tracker chart NAME VALUE [--reverse]`: value -> Result row, or row -> chart entry."""
        chart_name = str(name).strip().casefold()
        number = parse_number(value, f"chart {chart_name} VALUE")
        if chart_name == "ep":
            if not isinstance(number, int):
                raise TrackerError(f"chart ep ROW: expected a whole row number, got {value!r}")
            cost = self.ep_chart.per_use(number)
            return {"chart": "ep", "value": number, "reverse": False, "result": self.ep_chart.row_cost(number),
                    "ep_per_use": float(cost), "fraction": f"{cost.numerator}/{cost.denominator}"}
        if chart_name not in CHART_NAMES:
            raise TrackerError(f"chart {name!r}: expected one of {', '.join(CHART_NAMES)} or ep")
        chart = self.charts.chart(chart_name)
        if reverse:
            if not isinstance(number, int):
                raise TrackerError(f"chart {chart_name} --reverse ROW: expected a whole Result row, got {value!r}")
            entry = chart.value(number)
            data: dict[str, Any] = {"chart": chart_name, "value": number, "reverse": True, "row": number, "result": entry}
            if number <= 0:
                data["negative"] = chart.negative_of(number)
            return data
        row = chart.row(number)
        matched = chart.value(row) if row != 0 or number != 0 else 0
        if number < 0:
            matched = chart.negative_of(row) if row <= 0 else matched
        return {"chart": chart_name, "value": number, "reverse": False, "row": row, "result": row, "entry": matched}


__all__ = ["BrandXRuleset", "CATALOGUE"]
