"""Tablesaw: a d20-versus-AC game, the example of `rulesets/README.md`.

A third-party package as pip would install it (the `.dist-info` beside it declares the
entry point `tablesaw = tablesaw_rpg:TablesawRuleset` in the `tracker.rulesets` group);
tests/test_conformance.py runs it through the same contract as the built-in games.

The rules, all of them:
- A swing rolls a d20 and adds the swinger's skill and any bonus; it hits when the total
  reaches the target's AC as it is when the swing lands (a GM may change AC meanwhile,
  and a braced target has AC +2). A hit costs the target 1 wound; a natural 20 also
  rolls a d4 of extra wounds (the table's `crits` setting, on by default).
- After seeing the d20 the swinger may spend 1 grit for +2 to the total.
- A brace lasts to the end of the round unless the GM types a PT.
- 0 wounds is down.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from rulesets.base import JUDGE_KEY, ActionRequest, ActionTemplate, Details, RollResult, Ruleset
from rulesets.dice import DiceSource, roll_group
from rulesets.fields import PARAM, RESOURCE, SETTING, STAT, Field, staged
from tracker.engine import ACTIVE, PASSIVE, Damage, Resolution, TimeMapping, TrackerError
from tracker.engine.effects import Adjust, Blow, Effect, Note, landing

SWING_JUDGE = "tablesaw.swing"  # saved with each swing: keep it stable
BRACED = 2  # AC while a brace lasts
GRIT = 2  # to the total, for 1 grit

_SWING = staged((
    Field("bonus", "int", 0, minimum=-10, maximum=10, role=PARAM, help="a situational modifier to the total"),
    Field("grit", "bool", False, role=PARAM, help="spend 1 grit after the roll: +2 to the total"),
), main=("bonus",), after_roll=("grit",))


def _braced(target: Any) -> int:
    """The AC a brace in progress adds now."""
    return BRACED if any(a.template == "brace" for a in target.in_progress) else 0


def _chance(plus: int, ac: int) -> Fraction:
    """A d20 + `plus` reaching `ac`: the faces from ac - plus to 20, each 1/20."""
    return Fraction(min(20, max(0, 21 - (ac - plus))), 20)


def judge_swing(encounter: Any, action: Any, blow: Blow) -> list[Effect]:
    """A swing lands: its total against the target's AC now (braced: +2)."""
    found = landing(encounter, action, blow, action.resolution.details.get("hits", []))
    if isinstance(found, list):  # no record, or the target has left the fight
        return found
    record, target = found
    ac = int(target.stats.get("ac", 0)) + _braced(target)
    total = int(record["total"])
    head = f"{action.actor}'s swing lands: {total} vs AC {ac}"
    if total < ac:
        return [Note(f"{head}: a miss")]
    wounds = int(record["wounds"])
    return [Note(f"{head}: a hit, {wounds} wound{'s' if wounds != 1 else ''}"), Damage(target.name, wounds, "wounds")]


class TablesawRuleset(Ruleset):
    id = "tablesaw"
    name = "Tablesaw"
    description = "a d20 plus skill against the target's AC (a third-party game)"
    time = TimeMapping(segments_per_round=6, segment_means="one second of a six-second round")
    sheet = (
        Field("skill", "int", 3, minimum=0, maximum=10, role=STAT, help="added to the d20"),
        Field("ac", "int", 12, minimum=5, maximum=30, role=STAT, help="a swing must reach this"),
        Field("grit", "int", 1, minimum=0, role=RESOURCE, help="spent for +2 after a roll"),
        Field("wounds", "int", 6, minimum=1, role=RESOURCE, help="0 is down"),
    )
    settings = (Field("crits", "bool", True, role=SETTING, help="a natural 20 rolls a d4 of extra wounds"),)
    down_when = ("wounds",)
    judges = {SWING_JUDGE: judge_swing}
    _CATALOGUE = {
        "swing": ActionTemplate("swing", ACTIVE, 4, "d20 + skill against the target's AC", rolls="1d20", targets=1, params=_SWING),
        "brace": ActionTemplate("brace", PASSIVE, 6, "AC +2 to the end of the round"),
    }

    def catalogue(self) -> Mapping[str, ActionTemplate]:
        return self._CATALOGUE

    def default_pt(self, request: ActionRequest) -> int:
        if request.template.name == "brace":  # to the end of the round
            spr = self.time.segments_per_round
            return spr - request.segment % spr
        return request.template.pt

    def _plus(self, request: ActionRequest) -> int:
        """What is added to the d20: skill, bonus, and grit if it is spent."""
        return int(request.actor.stats["skill"]) + int(request.params.get("bonus") or 0) + (GRIT if request.params.get("grit") else 0)

    def resolve(self, request: ActionRequest, dice: DiceSource) -> Resolution:
        pt = request.performance_time  # the GM's typed PT, else default_pt
        if request.template.name == "brace":
            return Resolution(pt, summary=f"braces: AC +{BRACED} for {pt} segments")
        target = request.targets[0] if request.targets else None
        if target is None:
            raise TrackerError("swing needs a target (target=NAME)")
        effects: list[Effect] = []
        if request.params.get("grit"):
            if request.actor.resources.get("grit", 0) < 1:
                raise TrackerError(f"grit: {request.actor.name} has no grit left to spend")
            effects.append(Adjust(request.actor.name, "grit", -1, "grit spent for +2"))  # paid as it starts
        (face,) = roll_group(dice, "Swing", (20,))
        wounds = 1
        faces = [face]
        if face == 20 and request.settings.get("crits", True):  # its own group, rolled only on a 20
            (extra,) = roll_group(dice, "crit damage", (4,))
            faces.append(extra)
            wounds += extra
        total = face + self._plus(request)
        ac = int(target.stats.get("ac", 0)) + _braced(target)
        details: Details = {
            "total": total, "target": ac, JUDGE_KEY: SWING_JUDGE,
            "hits": [{"target": target.name, "total": total, "wounds": wounds}],
        }
        effects.append(Blow(target.name, 0))
        summary = f"d20 {face} + {self._plus(request)} = {total} against AC {ac} as things stand; judged when it lands"
        # Whether it hits is the landing's to say; the margin is as things stand now.
        return Resolution(pt, None, total - ac, tuple(faces), summary, tuple(effects), details=details)

    def chance_of(self, request: ActionRequest) -> Fraction | None:
        if request.template.name != "swing" or not request.targets:
            return None
        target = request.targets[0]
        return _chance(self._plus(request), int(target.stats.get("ac", 0)) + _braced(target))

    def chance_note(self, request: ActionRequest) -> str:
        return f"to reach AC {request.targets[0].stats.get('ac')} now" if request.template.name == "swing" and request.targets else ""

    def after_roll(self, request: ActionRequest, resolution: Resolution) -> str:
        if request.template.name != "swing" or request.params.get("grit") or request.actor.resources.get("grit", 0) < 1:
            return ""
        return f"grit: +{GRIT} to the total for 1 grit ({request.actor.resources['grit']} left)"

    def after_roll_defaults(self, request: ActionRequest, resolution: Resolution) -> Mapping[str, Any]:
        """Offer grit when it turns a miss (as things stand) into a hit."""
        short = -resolution.margin if isinstance(resolution.margin, int) else 0
        return {"grit": 0 < short <= GRIT} if self.after_roll(request, resolution) else {}

    # `tracker roll tablesaw d20+5 --difficulty 14`, and `odds`: a bare check against an AC.
    def _bonus(self, spec: str) -> int:
        text = spec.replace(" ", "").lower()
        if not text.startswith("d20"):
            raise TrackerError(f"tablesaw spec {spec!r}: expected d20+N")
        try:
            return int(text[3:] or 0)
        except ValueError:
            raise TrackerError(f"tablesaw spec {spec!r}: expected d20+N, N a whole number") from None

    def _ac(self, vs: str | None, difficulty: int | None) -> int:
        if vs is not None:
            raise TrackerError("tablesaw has no opposed rolls: give --difficulty AC")
        return 11 if difficulty is None else difficulty

    def roll(self, spec: str, dice: DiceSource, *, vs: str | None = None, vs_dice: DiceSource | None = None,
             difficulty: int | None = None, options: Mapping[str, Any] | None = None) -> RollResult:
        bonus, ac = self._bonus(spec), self._ac(vs, difficulty)
        (face,) = roll_group(dice, "d20", (20,))
        return RollResult(self.id, [face], face + bonus >= ac, face + bonus - ac, f"{face} + {bonus} = {face + bonus} vs AC {ac}")

    def chance(self, spec: str, *, vs: str | None = None, difficulty: int | None = None,
               options: Mapping[str, Any] | None = None) -> Fraction:
        return _chance(self._bonus(spec), self._ac(vs, difficulty))
