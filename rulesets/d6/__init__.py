"""The D6 System (West End Games / OpenD6): die codes, the Wild Die, result points.

Sources: seeds/001_a7b21063c493c645.txt (die codes and pips, the shovel example,
situation modifiers, standard difficulties, result points, success levels) and
reference/systems.md section 2 (the OpenD6 SRD: Wild Die, combat, damage, wounds).

Decisions where the sources are silent (docs/contributing/design.md#rules-decisions and this adapter):
- Success is meeting or beating the difficulty (total >= difficulty); result points =
  total - difficulty. Success levels: Minimal 0, Solid 1-4, Good 5-8, Superior 9-12,
  Spectacular 13-15, Incredible 16+ (the seed's overlap at 16 goes to Incredible).
  Levels and difficulties are data in tables.toml, overridable by the GM.
- A roll is the plain sum of its dice plus pips, as the seed says ("add to the total
  result you roll on the dice"), so a Very Easy (1) roll of 1D always succeeds.
- The Wild Die is OpenD6's rule, not the seed's: the table setting `wild_die` (off by
  default; `--set wild_die=true` on the command line) makes one die of every roll the
  Wild Die (rolls.py): a 6 explodes without limit; a first 1 cancels itself and the
  highest other die by default, or counts normally with a complication when
  `critical_failure = "complication"`. Exact odds (odds.py) either way; with the Wild
  Die the unlimited explosion is treated in closed form, not by truncation.
- Opposed rolls: both roll, the higher total wins and ties go to the initiator (the
  side rolling SPEC). `success` is null for an opposed roll (see `winner`); the
  rival's total is the `difficulty` and `result_points` is measured against it.
- Modifiers apply to the roll, never to the difficulty (the seed); range and cover are
  shipped as roll modifiers with OpenD6's figures sign-reversed.
- Time: a 5-second round is 10 segments (actions.py explains `actions=N`).
- Damage: one fifth of an attack's result points, rounded up, is added to damage
  (encounter setting `damage_bonus`, on by default); wound levels or Body Points by the
  setting `damage_system` (sheet.py, actions.py).
- Faces on the command line and in `faces=`: the dice in order; with the Wild Die, the
  Wild Die first, then the other dice, then its explosions. An attack reads its attack,
  damage and resistance rolls in that order.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from functools import cached_property
from typing import Any

from tracker.engine.clock import TimeMapping
from tracker.engine.effects import Resolution
from tracker.engine.errors import TrackerError
from rulesets.base import ActionRequest, ActionTemplate, RollResult, Ruleset
from rulesets.d6.actions import BLOW_JUDGE, SEGMENTS_PER_ROUND, Resolver, build_catalogue, judge_blow
from rulesets.d6.codes import DieCode, DieCodeError, parse, parse_pool
from rulesets.limits import limit_d6_dice, limit_d6_difficulty, no_negative_difficulty
from rulesets.d6.odds import chance_at_least, chance_opposed
from rulesets.d6.rolls import CANCEL, CRITICAL_FAILURE_OPTIONS, PLAIN, roll_code, roll_mode
from rulesets.d6.sheet import BODY_POINTS, SHEET, WOUNDS
from rulesets.d6.tables import D6Tables
from rulesets.dice import DiceSource, check_all_used
from rulesets.fields import SETTING, Field, FieldError, coerce_all

SETTINGS = (
    Field("wild_die", "bool", False, role=SETTING, help="OpenD6's Wild Die (not in the D6 rules text: off by default): one die of every roll explodes on a 6, and a first 1 is a critical failure"),
    Field("critical_failure", "choice", CANCEL, choices=CRITICAL_FAILURE_OPTIONS, role=SETTING, help="with the Wild Die, a first 1: cancel (drop it and the highest die) or complication (count it)"),
    Field("damage_system", "choice", "wounds", choices=("wounds", "body_points"), role=SETTING, help="wound levels (Physique + armour resists) or Body Points (armour resists)"),
    Field("damage_bonus", "bool", True, role=SETTING, help="add one fifth of an attack's result points (rounded up) to damage"),
)



class D6Ruleset(Ruleset):
    id = "d6"
    name = "D6 System"
    description = "D6 System (OpenD6): die codes, difficulties, result points (the Wild Die a table setting); 5-second rounds"
    time = TimeMapping(segments_per_round=SEGMENTS_PER_ROUND, segment_means="half a second (a 5-second round is 10 segments)", seconds_per_segment=0.5)
    sheet = SHEET
    settings = SETTINGS
    down_when = (WOUNDS, BODY_POINTS)
    tables_file = "tables.toml"
    judges = {BLOW_JUDGE: judge_blow}

    # ----------------------------------------------------------- tables
    @cached_property
    def data(self) -> D6Tables:
        return D6Tables(self.tables)

    def resolver(self) -> Resolver:
        """What works out rolls and their chances from these tables."""
        return Resolver(self.data)

    # ----------------------------------------------------------- catalogue
    @cached_property
    def _catalogue(self) -> Mapping[str, ActionTemplate]:
        return build_catalogue(self.data)

    def catalogue(self) -> Mapping[str, ActionTemplate]:
        return self._catalogue

    def default_pt(self, request: ActionRequest) -> int:
        return Resolver.default_pt(request)

    def resolve(self, request: ActionRequest, dice: DiceSource) -> Resolution:
        return self.resolver().resolve(request, dice)

    def chance_of(self, request: ActionRequest) -> Fraction | None:
        return self.resolver().chance_of(request)

    # ----------------------------------------------------------- command line
    def _mode(self, options: Mapping[str, Any] | None) -> str:
        return roll_mode(coerce_all(self.settings, dict(options or {}), "--set"))

    @staticmethod
    def _code(spec: str, what: str) -> DieCode:
        try:
            code = parse_pool(spec, what)
        except DieCodeError as exc:
            raise TrackerError(str(exc)) from None
        limit_d6_dice(code.dice, what)
        return code

    @staticmethod
    def _difficulty(difficulty: int | None) -> None:
        no_negative_difficulty(difficulty, "D6")
        limit_d6_difficulty(difficulty, "--difficulty")

    def roll(
        self,
        spec: str,
        dice: DiceSource,
        *,
        vs: str | None = None,
        vs_dice: DiceSource | None = None,
        difficulty: int | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> RollResult:
        if vs is not None and difficulty is not None:
            raise TrackerError("give either --vs CODE (an opposed roll) or --difficulty N, not both")
        self._difficulty(difficulty)
        mode = self._mode(options)
        code = self._code(spec, "die code")
        if difficulty == 0 and vs is None:
            # Seed: "Automatic (0): Almost anyone can perform this action; there is no need to roll."
            check_all_used(dice, "--faces")
            return RollResult(self.id, [], True, None, f"{code} vs 0 (Automatic): no need to roll, success",
                              {"code": str(code), "total": None, "difficulty": 0, "difficulty_name": "Automatic",
                               "result_points": None, "level": None, "automatic": True})
        own = roll_code(code, dice, mode)
        check_all_used(dice, "--faces")
        fields: dict[str, Any] = {"code": str(code), "total": own.total, "wild_die": mode != PLAIN}
        if mode != PLAIN:
            fields.update(wild=own.status, critical_failure_rule=mode)
        text = own.text()
        success: bool | None = None
        if vs is not None:
            rival_code = self._code(vs, "--vs")
            if vs_dice is None:
                raise TrackerError("an opposed roll needs dice for the other side")
            rival = roll_code(rival_code, vs_dice, mode)
            check_all_used(vs_dice, "--vs-faces")
            target = rival.total
            winner = "self" if own.total >= rival.total else "rival"
            fields.update(rival_code=str(rival_code), rival_dice=list(rival.faces), rival_total=rival.total, winner=winner)
            if mode != PLAIN:
                fields["rival_wild"] = rival.status
            text += f" vs {rival.text()}: {'self' if winner == 'self' else 'rival'} wins" + (" (a tie goes to the initiator)" if own.total == rival.total else "")
        elif difficulty is not None:
            target = difficulty
        else:
            fields.update(difficulty=None, result_points=None, level=None)
            return RollResult(self.id, list(own.faces), None, None, text, fields)
        rp = own.total - target
        level = self.data.level_name(rp) if rp >= 0 else "Failure"
        if vs is None:
            success = rp >= 0
            text += f" vs {target} ({self.data.difficulty_name(target)}): {'success' if success else 'failure'}"
        text += f", result points {rp} ({level})"
        fields.update(difficulty=target, difficulty_name=self.data.difficulty_name(target), result_points=rp, level=level.lower().replace(" ", "_"))
        return RollResult(self.id, list(own.faces), success, rp, text, fields)

    def chance(
        self,
        spec: str,
        *,
        vs: str | None = None,
        difficulty: int | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> Fraction:
        if vs is not None and difficulty is not None:
            raise TrackerError("give either --vs CODE (an opposed roll) or --difficulty N, not both")
        self._difficulty(difficulty)
        mode = self._mode(options)
        code = self._code(spec, "die code")
        if vs is not None:
            return chance_opposed(code, self._code(vs, "--vs"), mode)
        if difficulty is None:
            raise TrackerError("odds need a difficulty (--difficulty N) or an opposing code (--vs 3D)")
        return chance_at_least(code, difficulty, mode)


__all__ = ["D6Ruleset", "DieCode", "parse", "FieldError"]
