"""Direct tests of tracker.testing, the contract suite a game's tests subclass, worked
from its module docstring, rulesets/base.py and rulesets/README.md's section 9: each
check run on a game that keeps the contract passes (or is skipped exactly for what the
game declares it lacks), and run on a game with one defect fails, naming the game and
what was expected.

The games are small and made here: Calm (a d6 plus nerve against 6, nothing beyond the
base class: no command-line dice, no blows, nothing maintained, no hit locations) and
Coin (Calm with every capability), and one subclass of them a defect. Each is put where
the registry finds it, as pip would, through a stand-in for the entry-point group.
The contract's classes here are not named `Test...`: pytest does not collect them; each
test calls one of their checks on an instance, as pytest would.
"""

from __future__ import annotations

import re
import sys
import types
from dataclasses import replace
from collections.abc import Callable, Iterator, Mapping
from fractions import Fraction
from importlib.metadata import EntryPoint
from pathlib import Path
from typing import Any, ClassVar

import pytest

from rulesets import registry
from rulesets.base import JUDGE_KEY, ActionRequest, ActionTemplate, Details, RollResult, Ruleset
from rulesets.dice import DiceSource, RandomDice, roll_group
from rulesets.fields import AFTER_ROLL, MAIN, PARAM, RESOURCE, SETTING, STAT, Field, staged
from tracker.engine import ACTIVE, PASSIVE, Damage, Resolution, TimeMapping, TrackerError
from tracker.engine.effects import INITIATE, JUDGES, Blow, Effect, Note, landing
from tracker.persistence.store import EncounterFile
from tracker.play.requests import DECLARE, Attempt
from tracker.testing import MAX_GROUPS, RulesetContract

GOAL = 6  # a flip's d6 + nerve + bonus (+1 pushed) reaches this: a success
FLIP_JUDGE = "coin_contract.flip"
MODULE = "coin_contract_rpg"  # the stand-in package the entry points name

_FLIP = staged((
    Field("bonus", "int", 0, minimum=-3, maximum=3, role=PARAM, help="added to the total"),
    Field("push", "bool", False, role=PARAM, help="after the roll: +1 to the total"),
), main=("bonus",), after_roll=("push",))


def _plus(request: ActionRequest) -> int:
    return int(request.actor.stats["nerve"]) + int(request.params.get("bonus") or 0) + (1 if request.params.get("push") else 0)


def _reaching(plus: int, goal: int) -> Fraction:
    """A d6 + `plus` reaching `goal`: the faces from goal - plus to 6, each 1/6."""
    return Fraction(min(6, max(0, 7 - (goal - plus))), 6)


def judge_flip(encounter: Any, action: Any, blow: Blow) -> list[Effect]:
    """A flip lands: a total that reached GOAL costs the target 1 luck."""
    found = landing(encounter, action, blow, action.resolution.details.get("hits", []))
    if isinstance(found, list):
        return found
    record, target = found
    if int(record["total"]) < GOAL:
        return [Note(f"{action.actor}'s flip misses {target.name}")]
    return [Note(f"{action.actor}'s flip hits {target.name}"), Damage(target.name, 1, "luck")]


class Calm(Ruleset):
    """Keeps the contract with nothing beyond the base class's defaults."""

    id = "calm"
    name = "Calm"
    description = "a d6 plus nerve against 6 (the contract suite's own test game)"
    time = TimeMapping(segments_per_round=6)
    sheet = (
        Field("nerve", "int", 2, minimum=0, maximum=6, role=STAT, help="added to the d6"),
        Field("luck", "int", 4, minimum=1, role=RESOURCE, help="0 is down"),
        Field("head", "int", 3, minimum=1, role=RESOURCE, help="a body location"),
        Field("arm", "int", 3, minimum=1, role=RESOURCE, help="a body location"),
    )
    settings: ClassVar[tuple[Field, ...]] = (Field("stakes", "int", 1, minimum=1, maximum=3, role=SETTING, help="the luck a success costs"),)
    down_when = ("luck",)
    maintainable_flip = False

    def catalogue(self) -> Mapping[str, ActionTemplate]:
        return {
            "flip": ActionTemplate("flip", ACTIVE, 4, "d6 + nerve against 6", rolls="1d6", targets=1,
                                   params=_FLIP, maintainable=self.maintainable_flip),
            "wait": ActionTemplate("wait", PASSIVE, 3, "to the end of the round"),
        }

    def default_pt(self, request: ActionRequest) -> int:
        if request.template.name == "wait":  # to the end of the round: not the template's 3
            spr = self.time.segments_per_round
            return spr - request.segment % spr
        return request.template.pt

    def landed(self, target: str, total: int, stakes: int = 1) -> tuple[list[Effect], Details]:
        """What a flip's total does: the stakes in luck off the target on a success, at completion."""
        return ([Damage(target, stakes, "luck")] if total >= GOAL else []), {}

    def resolve(self, request: ActionRequest, dice: DiceSource) -> Resolution:
        pt = request.performance_time
        if request.template.name == "wait":
            return Resolution(pt, summary=f"waits {pt} segments")
        if not request.targets:
            raise TrackerError("flip needs a target (target=NAME)")
        (face,) = roll_group(dice, "Flip", (6,))
        total = face + _plus(request)
        effects, more = self.landed(request.targets[0].name, total, int(request.settings["stakes"]))
        details: Details = {"total": total, **more}
        return Resolution(pt, total >= GOAL, total - GOAL, (face,), f"d6 {face} = {total} against {GOAL}", tuple(effects), details=details)

    def chance_of(self, request: ActionRequest) -> Fraction | None:
        if request.template.name != "flip":
            return None
        return _reaching(_plus(request), GOAL)


class Coin(Calm):
    """Calm with every capability: command-line dice, blows judged on landing, a
    maintainable flip, and two hit locations."""

    id = "coin"
    name = "Coin"
    maintainable_flip = True
    judges = {FLIP_JUDGE: judge_flip}

    def landed(self, target: str, total: int, stakes: int = 1) -> tuple[list[Effect], Details]:
        return [Blow(target, 0)], {JUDGE_KEY: FLIP_JUDGE, "hits": [{"target": target, "total": total}]}

    def maintain(self, request: ActionRequest, dice: DiceSource) -> Resolution:
        return self.resolve(request, dice)

    # `tracker roll coin d6+2 --difficulty 6`
    def _bonus(self, spec: str) -> int:
        """"d6+N", or N alone (the d6 understood)."""
        return int(spec.removeprefix("d6") or 0)

    # Against `vs` (another d6+N, rolled from `vs_dice`), a tie goes to the roller.
    def roll(self, spec: str, dice: DiceSource, *, vs: str | None = None, vs_dice: DiceSource | None = None,
             difficulty: int | None = None, options: Mapping[str, Any] | None = None) -> RollResult:
        bonus, goal = self._bonus(spec), GOAL if difficulty is None else difficulty
        (face,) = roll_group(dice, "d6", (6,))
        if vs is not None:
            assert vs_dice is not None
            goal = roll_group(vs_dice, "vs d6", (6,))[0] + self._bonus(vs)
        return RollResult(self.id, [face], face + bonus >= goal, face + bonus - goal, f"{face} + {bonus} vs {goal}")

    def chance(self, spec: str, *, vs: str | None = None, difficulty: int | None = None,
               options: Mapping[str, Any] | None = None) -> Fraction:
        if vs is not None:
            return sum((_reaching(self._bonus(spec), other + self._bonus(vs)) for other in range(1, 7)), Fraction(0)) / 6
        return _reaching(self._bonus(spec), GOAL if difficulty is None else difficulty)


# -- one defect each -----------------------------------------------------------------
class Stray(Calm):
    """Keeps the rules, but no entry point names it."""

    id = "stray"


class Shadow(Coin):
    """Takes Coin's id, but the entry point `coin` finds Coin, not this class."""


class Nameless(Calm):
    id = "nameless"
    description = ""


class Renamed(Calm):
    """Its catalogue's key is not its template's name."""

    def catalogue(self) -> Mapping[str, ActionTemplate]:
        return {"toss": super().catalogue()["flip"], "wait": super().catalogue()["wait"]}


class Folded(Calm):
    """Any name in capitals finds the flip, whatever it names."""

    def template(self, name: str) -> ActionTemplate:
        return self.catalogue()["flip"] if name.isupper() else super().template(name)


class Empty(Calm):
    def catalogue(self) -> Mapping[str, ActionTemplate]:
        return {}


class Instant(Calm):
    """A wait that takes no time."""

    def catalogue(self) -> Mapping[str, ActionTemplate]:
        return {**super().catalogue(), "wait": ActionTemplate("wait", PASSIVE, 0)}


class Quick(Calm):
    """A wait of one segment: the least time an action may take."""

    def catalogue(self) -> Mapping[str, ActionTemplate]:
        return {**super().catalogue(), "wait": ActionTemplate("wait", PASSIVE, 1)}


class Sweeping(Calm):
    """A flip at any number of targets."""

    def catalogue(self) -> Mapping[str, ActionTemplate]:
        return {**super().catalogue(), "flip": ActionTemplate("flip", ACTIVE, 4, targets=-1, params=_FLIP)}


class Crowd(Calm):
    """A flip at -2 targets (-1 is any number)."""

    def catalogue(self) -> Mapping[str, ActionTemplate]:
        return {**super().catalogue(), "flip": ActionTemplate("flip", ACTIVE, 4, targets=-2, params=_FLIP)}


class Unstaged(Calm):
    """A modifier that is a sheet's STAT, not a PARAM."""

    def catalogue(self) -> Mapping[str, ActionTemplate]:
        odd = (Field("bonus", "int", 0, role=STAT),)
        return {**super().catalogue(), "flip": ActionTemplate("flip", ACTIVE, 4, targets=1, params=odd)}


class Offstage(Calm):
    """A PARAM on no stage of the declare form."""

    def catalogue(self) -> Mapping[str, ActionTemplate]:
        odd = (Field("bonus", "int", 0, role=PARAM, stage="later"),)
        return {**super().catalogue(), "flip": ActionTemplate("flip", ACTIVE, 4, targets=1, params=odd)}


class Mumbled(Calm):
    """Refuses an unknown action without saying which."""

    def template(self, name: str) -> ActionTemplate:
        try:
            return super().template(name)
        except TrackerError:
            raise TrackerError("no such action") from None


class Anything(Calm):
    """Takes any name, as the GM typed it (freeform)."""

    def template(self, name: str) -> ActionTemplate:
        try:
            return super().template(name)
        except TrackerError:
            return ActionTemplate(name)


class Misnamed(Calm):
    """Takes any name, but keeps it as another."""

    def template(self, name: str) -> ActionTemplate:
        try:
            return super().template(name)
        except TrackerError:
            return ActionTemplate("improvised")


class Forgetful(Calm):
    """Its defaults make a sheet without the arm."""

    def build_sheet(self, values: Mapping[str, Any], where: str) -> tuple[dict[str, Any], dict[str, Any]]:
        stats, resources = super().build_sheet(values, where)
        resources.pop("arm", None)
        return stats, resources


class Halving(Calm):
    """Checking a stored sheet halves its luck."""

    def check_sheet(self, stats: Mapping[str, Any], resources: Mapping[str, Any], where: str) -> tuple[dict[str, Any], dict[str, Any]]:
        stats, checked = super().check_sheet(stats, resources, where)
        return stats, {**checked, "luck": checked.get("luck", 0) // 2}


class Unnerved(Calm):
    """Down when a STAT reaches 0."""

    down_when = ("nerve",)


class Demanding(Calm):
    """Its defaults make no combatant: nerve must be typed."""

    def build_sheet(self, values: Mapping[str, Any], where: str) -> tuple[dict[str, Any], dict[str, Any]]:
        if "nerve" not in values:
            raise TrackerError(f"{where}.nerve: no default, type nerve=N")
        return super().build_sheet(values, where)


class Truthful(Calm):
    """Its defaults make a luck of True, which no stored sheet holds."""

    def build_sheet(self, values: Mapping[str, Any], where: str) -> tuple[dict[str, Any], dict[str, Any]]:
        stats, resources = super().build_sheet(values, where)
        return stats, {**resources, "luck": True}


class Labelled(Calm):
    """Keeps the contract, its flip's group labelled with words of its own after a colon."""

    def resolve(self, request: ActionRequest, dice: DiceSource) -> Resolution:
        if request.template.name == "flip":
            dice = _Relabelled(dice)
        return super().resolve(request, dice)


class _Relabelled:
    """Hands on the rolls, the group announced as "Flip: coin"."""

    def __init__(self, dice: DiceSource) -> None:
        self.dice = dice

    def begin(self, group: Any) -> None:
        self.dice.begin(replace(group, label="Flip: coin"))  # type: ignore[attr-defined]

    def roll(self, sides: int) -> int:
        return self.dice.roll(sides)


_CALL = (
    Field("call", "choice", "none", choices=("none", "keep", "reroll"), role=PARAM, stage=AFTER_ROLL, help="after the roll"),
    Field("spare", "int", 0, minimum=0, maximum=3, role=PARAM, stage=AFTER_ROLL, help="luck set aside after the roll"),
)


class Calling(Calm):
    """Keeps the contract: after the roll a flip may be called (none, keep: nothing
    rolled) and luck set aside."""

    rerolls = False

    def catalogue(self) -> Mapping[str, ActionTemplate]:
        return {**super().catalogue(), "flip": ActionTemplate("flip", ACTIVE, 4, targets=1, params=_FLIP + _CALL)}

    def resolve(self, request: ActionRequest, dice: DiceSource) -> Resolution:
        if self.rerolls and request.params.get("call") == "reroll":
            roll_group(dice, "Reroll", (6,))
        return super().resolve(request, dice)


class Rerolling(Calling):
    """Calling "reroll" after the roll (the last choice) rolls another d6."""

    rerolls = True


class Hurried(Calm):
    """Keeps the contract: a flip of PT under 4 rolls one d6, otherwise two (the better counts)."""

    def resolve(self, request: ActionRequest, dice: DiceSource) -> Resolution:
        if request.template.name == "flip" and request.performance_time >= 4 and request.targets:
            roll_group(dice, "Careful flip", (6,))
        return super().resolve(request, dice)


class Picky(Calm):
    """Keeps the contract: only a flip at Cy can be declared (Bo is out of reach, and
    nobody waits)."""

    def resolve(self, request: ActionRequest, dice: DiceSource) -> Resolution:
        if request.template.name == "wait" or any(t.name == "Bo" for t in request.targets):
            raise TrackerError(f"{request.template.name}: out of reach")
        return super().resolve(request, dice)


class Drifting(Calm):
    """Each sheet it builds holds one more luck than the last."""

    built = 0

    def build_sheet(self, values: Mapping[str, Any], where: str) -> tuple[dict[str, Any], dict[str, Any]]:
        stats, resources = super().build_sheet(values, where)
        type(self).built += 1
        return stats, {**resources, "luck": resources["luck"] + type(self).built}


class Silent(Calm):
    """Refuses a flip with no words."""

    def resolve(self, request: ActionRequest, dice: DiceSource) -> Resolution:
        if request.template.name == "flip":
            raise TrackerError("")
        return super().resolve(request, dice)


class Refusing(Calm):
    """Refuses everything (by name): nothing can be declared."""

    def resolve(self, request: ActionRequest, dice: DiceSource) -> Resolution:
        raise TrackerError(f"{request.template.name}: {request.actor.name} is asleep")


class Noted(Calm):
    """Keeps a None in its details: a save cannot hold it."""

    def landed(self, target: str, total: int, stakes: int = 1) -> tuple[list[Effect], Details]:
        effects, more = super().landed(target, total, stakes)
        return effects, {**more, "odds": None}  # type: ignore[dict-item]


class Tupled(Calm):
    """Keeps a tuple in a wait's details: a save gives it back as a list. (Its flips
    are refused, by name: Bo is out of reach.)"""

    id = "tupled"

    def resolve(self, request: ActionRequest, dice: DiceSource) -> Resolution:
        if request.template.name == "flip":
            raise TrackerError("flip: out of reach")
        got = super().resolve(request, dice)
        return Resolution(got.pt, summary=got.summary, details={"waited": (got.pt, GOAL)})


class Endless(Calm):
    """A flip that asks for dice for ever."""

    def resolve(self, request: ActionRequest, dice: DiceSource) -> Resolution:
        if request.template.name == "flip":
            while True:
                roll_group(dice, "Flip", (6,))
        return super().resolve(request, dice)


class Offered(Calm):
    """Offers the bonus (a MAIN field) after the roll."""

    def after_roll_fields(self, request: ActionRequest) -> tuple[Field, ...]:
        return tuple(f for f in request.template.params if f.stage == MAIN)


class Wordless(Calm):
    """Says nothing about after-roll choices: not even ""."""

    def after_roll(self, request: ActionRequest, resolution: Resolution) -> str:
        return None  # type: ignore[return-value]


class Pushing(Calm):
    """A push rolls another d6: an after-roll choice that asks for more dice."""

    def resolve(self, request: ActionRequest, dice: DiceSource) -> Resolution:
        if request.template.name == "flip" and request.params.get("push"):
            roll_group(dice, "Push", (6,))
        return super().resolve(request, dice)


class Fickle(Calm):
    """The same faces do not give the same resolution: each says how many came before."""

    made = 0

    def resolve(self, request: ActionRequest, dice: DiceSource) -> Resolution:
        type(self).made += 1
        got = super().resolve(request, dice)
        return Resolution(got.pt, got.success, got.margin, got.dice, f"{got.summary} (#{type(self).made})", got.effects, details=got.details)


class Hasty(Calm):
    """A flip takes its template's PT whatever the GM typed."""

    def resolve(self, request: ActionRequest, dice: DiceSource) -> Resolution:
        got = super().resolve(request, dice)
        return Resolution(request.template.pt, got.success, got.margin, got.dice, got.summary, got.effects, details=got.details) if request.template.name == "flip" else got


class Idle(Calm):
    """A wait takes its template's 3 segments, not its own `default_pt`."""

    def resolve(self, request: ActionRequest, dice: DiceSource) -> Resolution:
        got = super().resolve(request, dice)
        typed = request.performance_time if request.pt != self.default_pt(request) else request.template.pt
        return Resolution(typed, summary=got.summary) if request.template.name == "wait" else got


def _odds_of(chance: Any) -> type[Calm]:
    class Odd(Calm):
        def chance_of(self, request: ActionRequest) -> Fraction | None:
            return chance if request.template.name == "flip" else None
    return Odd


class Refused(Calm):
    """Refuses the odds of a flip (by name), and says a wait succeeds twice over."""

    def chance_of(self, request: ActionRequest) -> Fraction | None:
        if request.template.name == "flip":
            raise TrackerError("flip: no odds for a coin in the air")
        return Fraction(2)


class Unknowing(Calm):
    """Refuses the odds of a flip with no words."""

    def chance_of(self, request: ActionRequest) -> Fraction | None:
        raise TrackerError("")


class Uncounted(Calm):
    """Refuses the odds of a flip, by name: the form shows why."""

    def chance_of(self, request: ActionRequest) -> Fraction | None:
        raise TrackerError("flip: no odds for a coin in the air")


def _claiming(odds: Fraction) -> type[Coin]:
    """Coin, its odds of any roll said to be `odds`."""
    class Claiming(Coin):
        def chance(self, spec: str, *, vs: str | None = None, difficulty: int | None = None,
                   options: Mapping[str, Any] | None = None) -> Fraction:
            return odds
    return Claiming


class Overcertain(Coin):
    """Its odds above 1."""

    def chance(self, spec: str, *, vs: str | None = None, difficulty: int | None = None,
               options: Mapping[str, Any] | None = None) -> Fraction:
        return Fraction(3, 2)


class Floating(Coin):
    """Its odds a float, not exact."""

    def chance(self, spec: str, *, vs: str | None = None, difficulty: int | None = None,
               options: Mapping[str, Any] | None = None) -> Fraction:
        return float(super().chance(spec, vs=vs, difficulty=difficulty))  # type: ignore[return-value]


class Fumbling(Coin):
    """A rolled 1 always fails, which its odds do not count."""

    def roll(self, spec: str, dice: DiceSource, *, vs: str | None = None, vs_dice: DiceSource | None = None,
             difficulty: int | None = None, options: Mapping[str, Any] | None = None) -> RollResult:
        got = super().roll(spec, dice, vs=vs, vs_dice=vs_dice, difficulty=difficulty)
        return RollResult(got.ruleset, got.dice, got.success and got.dice != [1], got.margin, got.text)


class Lucky(Coin):
    """A rolled 6 always succeeds, which its odds do not count."""

    def roll(self, spec: str, dice: DiceSource, *, vs: str | None = None, vs_dice: DiceSource | None = None,
             difficulty: int | None = None, options: Mapping[str, Any] | None = None) -> RollResult:
        got = super().roll(spec, dice, vs=vs, vs_dice=vs_dice, difficulty=difficulty)
        return RollResult(got.ruleset, got.dice, got.success or got.dice == [6], got.margin, got.text)


class GruffRoll(Calm):
    """Refuses `roll`, but not by its name (`odds` by name, the base class's)."""

    def roll(self, spec: str, dice: DiceSource, *, vs: str | None = None, vs_dice: DiceSource | None = None,
             difficulty: int | None = None, options: Mapping[str, Any] | None = None) -> RollResult:
        raise TrackerError("no dice to roll from the command line")


class GruffOdds(Calm):
    """Refuses `odds`, but not by its name (`roll` by name, the base class's)."""

    def chance(self, spec: str, *, vs: str | None = None, difficulty: int | None = None,
               options: Mapping[str, Any] | None = None) -> Fraction:
        raise TrackerError("no dice, so no odds")


class CrashingRoll(Calm):
    """`roll` fails with an error of Python's, not a refusal (though it names the game)."""

    def roll(self, spec: str, dice: DiceSource, *, vs: str | None = None, vs_dice: DiceSource | None = None,
             difficulty: int | None = None, options: Mapping[str, Any] | None = None) -> RollResult:
        raise ValueError(f"{self.id}: no dice")


class CrashingOdds(Calm):
    """`odds` fails with an error of Python's, not a refusal (though it names the game)."""

    def chance(self, spec: str, *, vs: str | None = None, difficulty: int | None = None,
               options: Mapping[str, Any] | None = None) -> Fraction:
        raise ValueError(f"{self.id}: no odds")


class HalfGruff(Calm):
    """Refuses `roll` by name, but `odds` reads the game's notation (d6+N, or N)."""

    def chance(self, spec: str, *, vs: str | None = None, difficulty: int | None = None,
               options: Mapping[str, Any] | None = None) -> Fraction:
        return _reaching(int(spec.removeprefix("d6") or 0), GOAL)


def judge_meddling(encounter: Any, action: Any, blow: Blow) -> list[Effect]:
    """Takes the luck off the target itself instead of returning the Damage."""
    landed = judge_flip(encounter, action, blow)
    for effect in landed:
        if isinstance(effect, Damage):
            encounter.combatants[effect.target].resources["luck"] -= 1
    return [e for e in landed if not isinstance(e, Damage)]


def judge_again(encounter: Any, action: Any, blow: Blow) -> list[Effect]:
    """Returns another Blow."""
    return [*judge_flip(encounter, action, blow), Blow(blow.target, 0)]


def judge_tupled(encounter: Any, action: Any, blow: Blow) -> list[Effect]:
    """Returns a tuple, not a list."""
    return tuple(judge_flip(encounter, action, blow))  # type: ignore[return-value]


def judge_first_hardest(encounter: Any, action: Any, blow: Blow) -> list[Effect]:
    """The flip declared first among those landing now costs 2 luck: the order matters."""
    landed = judge_flip(encounter, action, blow)
    first = min(a.id for a in encounter.actions if a.completes == action.completes)
    return [Damage(e.target, 2, e.resource) if isinstance(e, Damage) and action.id == first else e for e in landed]


def _judged_by(judge: Callable[..., list[Effect]], name: str) -> type[Coin]:
    class Judged(Coin):
        judges = {name: judge}

        def landed(self, target: str, total: int, stakes: int = 1) -> tuple[list[Effect], Details]:
            effects, more = super().landed(target, total, stakes)
            return effects, {**more, JUDGE_KEY: name}
    return Judged


Meddling = _judged_by(judge_meddling, "coin_contract.meddling")
Again = _judged_by(judge_again, "coin_contract.again")
TupledJudge = _judged_by(judge_tupled, "coin_contract.tupled")


_PACE = (Field("pace", "int", None, minimum=1, maximum=9, role=PARAM, stage=MAIN, help="the flip's PT"),)


class FirstHardest(_judged_by(judge_first_hardest, "coin_contract.first_hardest")):  # type: ignore[misc]
    """Its blows' outcome depends on the order declared. A flip takes 6 - nerve
    segments (Ann's 3, Bo's 4: they land together only at a PT or `pace` typed), and
    its catalogue lists the wait (no target) before the flip."""

    def catalogue(self) -> Mapping[str, ActionTemplate]:
        listed = dict(reversed(list(super().catalogue().items())))
        flip = listed["flip"]
        return {**listed, "flip": replace(flip, params=flip.params + _PACE)}

    def default_pt(self, request: ActionRequest) -> int:
        if request.template.name == "flip":
            return int(request.params.get("pace") or 6 - int(request.actor.stats["nerve"]))
        return super().default_pt(request)


class Early(Coin):
    """Its blows are judged as the flip starts, not when it lands."""

    def landed(self, target: str, total: int, stakes: int = 1) -> tuple[list[Effect], Details]:
        _, more = super().landed(target, total, stakes)
        return [Blow(target, 0, timing=INITIATE)], more


class Misjudged(Coin):
    """Its blows name a judge that is not the class's."""

    def landed(self, target: str, total: int, stakes: int = 1) -> tuple[list[Effect], Details]:
        effects, more = super().landed(target, total, stakes)
        return effects, {**more, JUDGE_KEY: "coin_contract.nobody"}


class Blowless(Coin):
    """Declares judges, but its flips land as they are: no Blow."""

    def landed(self, target: str, total: int, stakes: int = 1) -> tuple[list[Effect], Details]:
        return Calm.landed(self, target, total, stakes)


class OneByOne(Coin):
    """Completions on one segment land in the game's order."""

    time = TimeMapping(segments_per_round=6, simultaneous=False)


class Shy(Coin):
    """Bo never flips (by name): no action both combatants could declare at each other."""

    def resolve(self, request: ActionRequest, dice: DiceSource) -> Resolution:
        if request.template.name == "flip" and request.actor.name == "Bo":
            raise TrackerError("flip: Bo will not")
        return super().resolve(request, dice)


class ShyAnn(Coin):
    """Ann never flips (by name): no action both combatants could declare at each other."""

    def resolve(self, request: ActionRequest, dice: DiceSource) -> Resolution:
        if request.template.name == "flip" and request.actor.name == "Ann":
            raise TrackerError("flip: Ann will not")
        return super().resolve(request, dice)


class Lingering(Calm):
    """Keeps the contract: a flip may be maintained at a table that sets `lingering`."""

    settings = (*Calm.settings, Field("lingering", "bool", False, role=SETTING, help="flips may be maintained"))

    def maintainable(self, template: ActionTemplate, settings: Mapping[str, Any]) -> bool:
        return template.name == "flip" and bool(settings["lingering"])

    def maintain(self, request: ActionRequest, dice: DiceSource) -> Resolution:
        return self.resolve(request, dice)


class Claiming(Calm):
    """Says it maintains actions, but none is maintainable."""

    def maintains(self, settings: Mapping[str, Any]) -> bool:
        return True


class Wandering(Coin):
    """A maintained flip's link is not what the form showed: each says how many came before."""

    made = 0

    def maintain(self, request: ActionRequest, dice: DiceSource) -> Resolution:
        type(self).made += 1
        got = super().maintain(request, dice)
        return Resolution(got.pt, got.success, got.margin, got.dice, f"{got.summary} (#{type(self).made})", got.effects, details=got.details)


class Numb(Coin):
    """Every `damage` lands on luck, whatever location the GM names."""

    def damage_rule(self, target: Any, amount: int | float, resource: str | None = None) -> Any:
        return super().damage_rule(target, amount, "luck")


# The games the stand-in entry-point group names (by id); the others are found by none.
REGISTERED = (Calm, Coin, Nameless, Tupled)


@pytest.fixture(autouse=True)
def installed(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The REGISTERED games installed as a plugin package would be: a module and an entry
    point each in the `tracker.rulesets` group."""
    module = types.ModuleType(MODULE)
    points = []
    for game in REGISTERED:
        setattr(module, game.__name__, game)
        points.append(EntryPoint(game.id, f"{MODULE}:{game.__name__}", registry.GROUP))
    monkeypatch.setitem(sys.modules, MODULE, module)
    monkeypatch.setattr(registry, "entry_points", lambda group: points if group == registry.GROUP else [])
    registry.forget()
    yield
    registry.forget()


COIN = {
    "combatants": ("Ann nerve=3", "Bo side=foes"),
    "actions": ("flip target=Bo bonus=1", "flip target=Bo push=true"),
    "command_line_dice": True,
    "odds": ("d6+2", None, 6),  # faces 4 to 6: 1/2
    "judged_on_landing": True,
    "maintainable_actions": True,
    "hit_locations": ("head", "arm"),
}


def suite(game: type[Ruleset], **declared: Any) -> RulesetContract:
    """A game's contract class (as a game's test file writes it), made ready to call."""
    base = COIN if issubclass(game, Coin) else {}
    return type(f"Contract{game.__name__}", (RulesetContract,), {"ruleset_class": game, **base, **declared})()


class CheckSkipped(Exception):
    """A check skipped itself: raised in its place, so that a check that skips where it
    should pass or fail fails the test here instead of skipping it."""


def check(game: type[Ruleset], name: str, *fixtures: Any, **declared: Any) -> None:
    """Run the check `name` of `game`'s contract class, with the fixtures it takes."""
    contract = suite(game, **declared)
    try:
        if name == "test_registered":
            contract.test_registered()
        else:
            getattr(contract, name)(game(), *fixtures)
    except pytest.skip.Exception as skip:
        raise CheckSkipped(skip.msg) from None


def fails(game: type[Ruleset], name: str, match: str, *fixtures: Any, **declared: Any) -> None:
    with pytest.raises(AssertionError, match=match):
        check(game, name, *fixtures, **declared)


def skipped(game: type[Ruleset], name: str, why: str, *fixtures: Any, **declared: Any) -> None:
    with pytest.raises(CheckSkipped) as skip:
        check(game, name, *fixtures, **declared)
    assert skip.value.args == (why,)


EVERY_GAME = ("test_registered", "test_templates", "test_sheet", "test_dice_prompts_after_roll_choices_and_the_commit",
              "test_a_typed_pt_and_the_default_pt", "test_odds_of_a_declaration")
WITH = ("test_command_line_dice", "test_blows_landing_together_do_not_depend_on_the_order_declared",
        "test_maintaining_an_action", "test_hit_locations")
WITHOUT = ("test_without_command_line_dice_roll_and_odds_are_refused_by_name", "test_without_maintainable_actions_maintain_is_refused_at_once")


# -- games that keep the contract --------------------------------------------------------
def test_a_game_with_every_capability_passes_every_check_and_skips_only_the_refusals(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (*EVERY_GAME, *WITH):
        check(Coin, name)
    check(Coin, "test_a_save_and_reload", tmp_path)
    check(Coin, "test_judged_on_landing", monkeypatch)
    skipped(Coin, WITHOUT[0], "declared with command-line dice")
    skipped(Coin, WITHOUT[1], "declared with maintainable actions")


def test_a_game_with_no_capability_passes_every_check_and_skips_what_it_lacks(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (*EVERY_GAME, *WITHOUT):
        check(Calm, name)
    check(Calm, "test_a_save_and_reload", tmp_path)
    skipped(Calm, "test_command_line_dice", "declared without command-line dice")
    skipped(Calm, "test_judged_on_landing", "declared without blows judged on landing", monkeypatch)
    skipped(Calm, "test_blows_landing_together_do_not_depend_on_the_order_declared", "declared without blows judged on landing")
    skipped(Calm, "test_maintaining_an_action", "declared without maintainable actions")
    skipped(Calm, "test_hit_locations", "declared without hit locations")


def test_blows_in_order_are_skipped_where_completions_land_one_by_one_or_no_action_goes_both_ways() -> None:
    skipped(OneByOne, "test_blows_landing_together_do_not_depend_on_the_order_declared",
            "completions on one segment resolve one by one in this game")
    for shy in (Shy, ShyAnn):
        skipped(shy, "test_blows_landing_together_do_not_depend_on_the_order_declared",
                "no action both combatants could declare at each other on one segment")


def test_certain_and_impossible_odds_agree_with_every_roll() -> None:
    check(Coin, "test_command_line_dice", odds=("d6+5", None, 6))  # every face reaches 6
    check(Coin, "test_command_line_dice", odds=("d6", None, 7))  # none reaches 7


def test_a_game_that_takes_any_name_keeps_it_as_typed() -> None:
    check(Anything, "test_templates")


def test_odds_refused_by_name_pass() -> None:
    check(Uncounted, "test_odds_of_a_declaration")


def test_a_template_of_one_segment_and_any_number_of_targets_passes() -> None:
    check(Quick, "test_templates")
    check(Sweeping, "test_templates")


# -- the suite's own tools ------------------------------------------------------------------
def test_the_suites_fights_are_of_the_game_at_the_tables_settings_with_the_combatants(tmp_path: Path) -> None:
    """"settings: the table's settings, for every fight the suite makes"; `session`: "a
    fight of this game with `combatants` added: in memory, or saved at `path`"."""
    contract = suite(Calm, settings={"stakes": 2}, combatants=("Ann nerve=3", "Bo luck=9 side=foes"))
    live = contract.session(Calm()).encounter
    saved = contract.session(Calm(), tmp_path / "fight.toml").encounter
    reopened = EncounterFile(tmp_path / "fight.toml").load().encounter
    for fight in (live, saved, reopened):
        assert fight.setup.ruleset == "calm" and fight.setup.settings["stakes"] == 2
        assert list(fight.combatants) == ["Ann", "Bo"] and fight.combatant("Bo").resources["luck"] == 9
    assert (contract.actor(), contract.target()) == ("Ann", "Bo")


def test_the_suites_fights_refuse_settings_the_game_does_not_take_by_name() -> None:
    with pytest.raises(TrackerError, match=r"^settings\.stakes: "):
        suite(Calm, settings={"stakes": 9}).session(Calm())


@pytest.mark.parametrize(("game", "name"), [(Coin, "test_maintaining_an_action"), (Calm, "test_without_maintainable_actions_maintain_is_refused_at_once")])
def test_the_maintaining_checks_refuse_settings_the_game_does_not_take_by_name(game: type[Ruleset], name: str) -> None:
    with pytest.raises(TrackerError, match=r"^settings\.stakes: "):
        check(game, name, settings={"stakes": 9})


def test_the_suites_attempts_are_the_catalogue_with_its_defaults_then_the_actions_as_typed() -> None:
    contract = suite(Calm, actions=("flip target=Bo bonus=1 pt=2", "wait"))
    assert contract.attempts(Calm()) == [
        Attempt(DECLARE, "Ann", "flip", ("Bo",)), Attempt(DECLARE, "Ann", "wait"),
        Attempt(DECLARE, "Ann", "flip", ("Bo",), 2, {"bonus": "1"}), Attempt(DECLARE, "Ann", "wait"),  # as typed: the form checks them
    ]
    assert contract.attempts(Calm(), "Bo", "Ann")[:2] == [Attempt(DECLARE, "Bo", "flip", ("Ann",)), Attempt(DECLARE, "Bo", "wait")]


def test_declared_commits_the_faces_its_dry_run_asked_for_with_the_typed_pt() -> None:
    contract = suite(Calm)
    session = contract.session(Calm())
    done = contract.declared(session, Attempt(DECLARE, "Ann", "flip", ("Bo",), 2, {"bonus": 1}))
    assert done is not None
    step, faces = done
    action = session.encounter.actions[-1]
    assert (action.template, action.pt, action.resolution) == ("flip", 2, step.resolution)
    assert len(faces) == 1 and list(action.resolution.dice) == faces
    assert contract.declared(contract.session(Calm()), Attempt(DECLARE, "Ann", "flip")) is None  # no target: refused


# -- registered ---------------------------------------------------------------------------
def test_a_game_no_entry_point_names_fails() -> None:
    fails(Stray, "test_registered", r"^stray: not in the tracker.rulesets entry points \(failed: \{\}\)$")


def test_an_entry_point_that_finds_another_class_fails() -> None:
    fails(Shadow, "test_registered", rf"^coin: the entry point finds {Coin.__module__}\.Coin$")


def test_a_game_without_a_description_fails() -> None:
    fails(Nameless, "test_registered", "^$")
    check(Nameless, "test_templates")  # the rest of it keeps the contract


# -- templates ---------------------------------------------------------------------------
def test_an_empty_catalogue_fails() -> None:
    fails(Empty, "test_templates", "^calm: an empty catalogue$")


@pytest.mark.parametrize("game", [Renamed, Folded])
def test_a_name_that_does_not_find_its_template_in_any_case_fails(game: type[Ruleset]) -> None:
    fails(game, "test_templates", "^$")


@pytest.mark.parametrize(("game", "where"), [(Instant, "calm wait"), (Crowd, "calm flip")])
def test_a_template_that_takes_no_time_or_fewer_than_any_targets_fails(game: type[Ruleset], where: str) -> None:
    fails(game, "test_templates", f"^{where}$")


@pytest.mark.parametrize(("game", "why"), [(Unstaged, "stat, main"), (Offstage, "param, later")])
def test_a_modifier_not_a_param_on_a_stage_of_the_form_fails(game: type[Ruleset], why: str) -> None:
    fails(game, "test_templates", f"^calm flip.bonus: {why}$")


@pytest.mark.parametrize("game", [Mumbled, Misnamed])
def test_an_unknown_name_refused_without_naming_it_or_kept_as_another_fails(game: type[Ruleset]) -> None:
    fails(game, "test_templates", "^$")


# -- the sheet -------------------------------------------------------------------------------
@pytest.mark.parametrize("game", [Forgetful, Halving])
def test_a_sheet_its_defaults_do_not_make_or_its_check_changes_fails(game: type[Ruleset]) -> None:
    fails(game, "test_sheet", "^$")


def test_down_when_naming_what_is_not_a_resource_fails() -> None:
    fails(Unnerved, "test_sheet", "^calm: down_when names a resource the sheet lacks$")


def test_defaults_that_make_no_combatant_or_a_sheet_no_save_holds_are_named() -> None:
    with pytest.raises(TrackerError, match=r"^sheet\.nerve: no default, type nerve=N$"):
        check(Demanding, "test_sheet")
    with pytest.raises(TrackerError, match=r"^sheet\.resources\.luck: "):
        check(Truthful, "test_sheet")


def test_a_combatant_that_does_not_hold_the_sheet_its_values_make_fails() -> None:
    fails(Drifting, "test_sheet", "^calm: add Ann nerve=3$", combatants=("Ann nerve=3", "Bo side=foes"))


# -- dice prompts, after-roll choices and the commit -----------------------------------------
DICE = "test_dice_prompts_after_roll_choices_and_the_commit"


def test_a_group_labelled_with_a_colon_of_its_own_is_asked_for_by_its_dice() -> None:
    """"Ann's Flip: coin: 1d6": the dice are after the last colon."""
    check(Labelled, DICE)


def test_a_refusal_that_says_nothing_fails() -> None:
    fails(Silent, DICE, "^calm flip: a refusal that says nothing$")


def test_a_refusal_by_name_passes_while_another_action_resolves() -> None:
    check(Shy, DICE)  # Ann flips; the catalogue's wait resolves too


def test_a_game_where_nothing_can_be_declared_fails() -> None:
    fails(Refusing, DICE, "^calm: no action could be declared with the sample sheets$")
    fails(Refusing, "test_a_typed_pt_and_the_default_pt", "^calm: no action could be declared with the sample sheets$")


def test_details_a_save_cannot_hold_are_refused_by_name() -> None:
    with pytest.raises(TrackerError, match=r"^calm flip details\.odds: None cannot be saved"):
        check(Noted, DICE)


def test_a_game_still_asking_for_dice_is_stopped() -> None:
    asked = re.escape(repr(["Ann's Flip: 1d6"] * 3))  # the last three prompts
    fails(Endless, DICE, rf"^flip: still asking for dice after {MAX_GROUPS} groups: {asked}$")


def test_blows_without_declaring_judged_on_landing_fail() -> None:
    fails(Coin, DICE, "^coin flip: its resolution holds Blows: declare judged_on_landing = True$", judged_on_landing=False)


@pytest.mark.parametrize("game", [Offered, Wordless])
def test_after_roll_choices_that_are_not_after_roll_fields_or_no_words_fail(game: type[Ruleset]) -> None:
    fails(game, DICE, "^$")


def test_an_after_roll_choice_that_asks_for_more_dice_fails() -> None:
    fails(Pushing, DICE, "^calm flip: push=True asked for more dice$")
    fails(Rerolling, DICE, "^calm flip: call=reroll asked for more dice$")
    check(Calling, DICE)  # none and keep roll nothing; luck set aside is a number


def test_a_commit_that_is_not_what_the_form_showed_fails() -> None:
    fails(Fickle, DICE, "^calm flip$")


def test_after_roll_choices_are_tried_with_the_pt_typed() -> None:
    check(Hurried, DICE, actions=("flip target=Bo pt=2 push=true",))


def test_an_action_only_the_actions_lines_declare_counts() -> None:
    check(Picky, DICE, combatants=("Ann", "Bo side=foes", "Cy side=foes"), actions=("flip target=Bo bonus=1", "flip target=Cy"))
    check(Picky, "test_a_typed_pt_and_the_default_pt", combatants=("Ann", "Bo side=foes", "Cy side=foes"), actions=("flip target=Bo bonus=1", "flip target=Cy"))


# -- the performance time --------------------------------------------------------------------
def test_a_typed_pt_not_honoured_fails() -> None:
    fails(Hasty, "test_a_typed_pt_and_the_default_pt", "^calm flip: typed PT 7, took 4$")


def test_actions_with_choices_or_a_typed_pt_are_left_to_the_other_checks() -> None:
    """Only the catalogue's actions as the form opens them are held to `default_pt`: a
    typed PT is the PT."""
    check(Hurried, "test_a_typed_pt_and_the_default_pt", actions=("flip target=Bo pt=2",))


def test_default_pt_not_honoured_fails() -> None:
    fails(Idle, "test_a_typed_pt_and_the_default_pt", "^calm wait$")
    check(Idle, "test_templates")  # only its time is wrong


# -- odds of a declaration ---------------------------------------------------------------------
@pytest.mark.parametrize("chance", [Fraction(7, 6), Fraction(-1, 6), 0.5, 1])
def test_odds_outside_0_to_1_or_not_exact_fail(chance: Any) -> None:
    fails(_odds_of(chance), "test_odds_of_a_declaration", f"^calm flip: {chance!r}$".replace("(", r"\(").replace(")", r"\)"))


@pytest.mark.parametrize("chance", [Fraction(0), Fraction(1), None])
def test_odds_of_none_0_and_1_pass(chance: Any) -> None:
    check(_odds_of(chance), "test_odds_of_a_declaration")


def test_odds_after_one_refused_are_still_checked() -> None:
    fails(Refused, "test_odds_of_a_declaration", r"^calm wait: Fraction\(2, 1\)$")


def test_odds_refused_with_no_words_fail() -> None:
    fails(Unknowing, "test_odds_of_a_declaration", "^$")


# -- a save and reload -------------------------------------------------------------------------
def test_details_a_save_gives_back_otherwise_fail_the_reload(tmp_path: Path) -> None:
    fails(Tupled, "test_a_save_and_reload", "^$", tmp_path)


# -- command-line dice --------------------------------------------------------------------------
def test_command_line_dice_without_an_example_fails() -> None:
    fails(Coin, "test_command_line_dice", r"^command_line_dice = True needs odds = \(spec, vs, difficulty\): an example `tracker odds`$",
          odds=("", None, None))


@pytest.mark.parametrize(("game", "shown"), [(Overcertain, "Fraction(3, 2)"), (Floating, "0.5")])
def test_command_line_odds_outside_0_to_1_or_not_exact_fail(game: type[Ruleset], shown: str) -> None:
    fails(game, "test_command_line_dice", rf"^coin: odds {re.escape(shown)}$")


def test_command_line_odds_the_rolls_do_not_bear_out_fail() -> None:
    """d6+2 against 6 succeeds on 4, 5, 6: 1/2, some 200 of 400; not 5/6 (333 give or
    take 4.5 deviations of 7.5)."""
    with pytest.raises(AssertionError, match=r"^coin: (\d+)/400 against 5/6$") as failed:
        check(_claiming(Fraction(5, 6)), "test_command_line_dice")
    wins = int(failed.value.args[0].split(": ")[1].split("/")[0])
    assert abs(wins - 200) <= 45  # within 4.5 deviations (10) of 1/2


def test_command_line_odds_are_held_to_four_and_a_half_deviations_of_the_odds_said() -> None:
    """The 400 seeded rolls of d6+2 against 6 (the suite's seeds 0 to 399, a d6 each)
    win `wins` times; odds said 0.05 off that share (about 2 deviations at 400 rolls)
    pass, 0.15 off (about 6) fail, above and below."""
    wins = sum(RandomDice(seed).roll(6) >= 4 for seed in range(400))
    share = Fraction(wins, 400)
    for near in (share + Fraction(1, 20), share - Fraction(1, 20)):
        check(_claiming(near), "test_command_line_dice")
    for far in (share + Fraction(3, 20), share - Fraction(3, 20)):
        fails(_claiming(far), "test_command_line_dice", rf"^coin: {wins}/400 against {far}$")


def test_opposed_odds_are_asked_and_rolled_against_the_other_side() -> None:
    """d6+2 against an opposing d6 (a tie to the roller) wins unless the other die is
    3 or more higher: 1 - (3 + 2 + 1)/36 = 5/6."""
    assert Coin().chance("d6+2", vs="d6") == Fraction(5, 6)
    check(Coin, "test_command_line_dice", odds=("d6+2", "d6", None))


@pytest.mark.parametrize(("game", "odds"), [(Fumbling, ("d6+5", None, 6)), (Lucky, ("d6", None, 7))])
def test_certain_or_impossible_odds_a_roll_belies_fail(game: type[Ruleset], odds: tuple[str, None, int]) -> None:
    fails(game, "test_command_line_dice", "^$", odds=odds)


def test_rolling_command_line_dice_without_declaring_it_fails() -> None:
    with pytest.raises(pytest.fail.Exception, match="DID NOT RAISE"):
        check(Coin, WITHOUT[0], command_line_dice=False)


@pytest.mark.parametrize("game", [GruffRoll, GruffOdds])
def test_refusing_command_line_dice_not_by_name_fails(game: type[Ruleset]) -> None:
    with pytest.raises(AssertionError, match="Regex pattern did not match"):
        check(game, WITHOUT[0])


@pytest.mark.parametrize("game", [CrashingRoll, CrashingOdds])
def test_command_line_dice_failing_with_another_error_than_a_refusal_fail(game: type[Ruleset]) -> None:
    with pytest.raises(ValueError, match="^calm: no (dice|odds)$"):
        check(game, WITHOUT[0])


def test_refusing_a_roll_but_giving_odds_fails() -> None:
    with pytest.raises(pytest.fail.Exception, match="DID NOT RAISE"):
        check(HalfGruff, WITHOUT[0])


# -- judged on landing ----------------------------------------------------------------------------
JUDGED = "test_judged_on_landing"


def test_judged_on_landing_without_judges_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    fails(Calm, JUDGED, r"^calm: judged_on_landing = True needs judges = \{name: judge\} on the class$", monkeypatch, judged_on_landing=True)


def test_a_judge_not_registered_by_its_name_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(JUDGES, FLIP_JUDGE, judge_again)
    fails(Coin, JUDGED, rf"^coin: judge '{FLIP_JUDGE}' is not registered \(declare it in the class's judges\)$", monkeypatch)


def judged_wrong(game: type[Ruleset], why: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The watched judge's failure, as the engine reports a judge that raised: the blow's
    landing is not applied, and says why."""
    with pytest.raises(TrackerError, match=rf"^advance could not be applied \(AssertionError: {why}\); nothing was changed$"):
        check(game, JUDGED, monkeypatch)


def test_a_judge_that_changes_the_fight_itself_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    judged_wrong(Meddling, "coin: judge 'coin_contract.meddling' changed the fight itself", monkeypatch)


@pytest.mark.parametrize(("game", "name"), [(Again, "coin_contract.again"), (TupledJudge, "coin_contract.tupled")])
def test_a_judge_that_returns_a_blow_or_no_list_fails(monkeypatch: pytest.MonkeyPatch, game: type[Ruleset], name: str) -> None:
    judged_wrong(game, rf"{re.escape(name)}: [\[(]Note.*[\])]", monkeypatch)


def test_blows_naming_a_judge_not_of_the_class_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    fails(Misjudged, JUDGED, rf"^coin flip: details\[JUDGE_KEY\] is 'coin_contract.nobody', not one of \['{FLIP_JUDGE}'\]$", monkeypatch)


def test_judged_on_landing_with_no_blow_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    fails(Blowless, JUDGED, "^coin: declared judged_on_landing but no action's resolution holds a Blow$", monkeypatch)


def test_each_blow_is_judged_once_it_lands(monkeypatch: pytest.MonkeyPatch) -> None:
    """The judge is called, watched, for every action whose resolution holds a Blow."""
    seen: list[int] = []

    def counted(encounter: Any, action: Any, blow: Blow) -> list[Effect]:
        seen.append(action.id)
        return judge_flip(encounter, action, blow)

    monkeypatch.setitem(Coin.judges, FLIP_JUDGE, counted)
    monkeypatch.setitem(JUDGES, FLIP_JUDGE, counted)
    check(Coin, JUDGED, monkeypatch)
    assert len(seen) == 3  # the catalogue's flip, and the two of `actions`; the wait holds none


def test_a_blow_judged_before_it_lands_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    fails(Early, JUDGED, "^coin flip: its blow landed unjudged$", monkeypatch)


@pytest.mark.parametrize("together", ["flip target=Bo pt=2", "flip target=Bo pace=2"])
def test_blows_whose_outcome_depends_on_the_order_declared_fail(together: str) -> None:
    """Each side's flip as the actions line declares it (its PT or its pace as typed)
    lands on segment 2 with the other's."""
    fails(FirstHardest, "test_blows_landing_together_do_not_depend_on_the_order_declared",
          r"^coin flip: the order declared changed the fight: ", actions=(together,))
    check(FirstHardest, "test_blows_landing_together_do_not_depend_on_the_order_declared", actions=())  # apart: each first


# -- maintained actions ----------------------------------------------------------------------------
def test_a_game_whose_table_decides_what_is_maintained_is_checked_at_the_tables_settings() -> None:
    check(Lingering, WITHOUT[1])
    check(Lingering, "test_maintaining_an_action", settings={"lingering": True}, maintainable_actions=True)
    fails(Lingering, WITHOUT[1], "^calm: an action is maintainable: declare maintainable_actions = True$", settings={"lingering": True})
    fails(Lingering, "test_maintaining_an_action", "^calm: maintainable_actions = True, but Ruleset.maintains says no$", maintainable_actions=True)


def test_maintainable_actions_declared_but_not_maintained_fail() -> None:
    fails(Calm, "test_maintaining_an_action", r"^calm: maintainable_actions = True, but Ruleset.maintains says no$", maintainable_actions=True)


def test_maintains_with_no_maintainable_action_fails() -> None:
    fails(Claiming, "test_maintaining_an_action", "^calm: no maintainable action could be declared and maintained with the sample sheets$",
          maintainable_actions=True)


def test_a_maintained_link_that_is_not_what_the_form_showed_fails() -> None:
    fails(Wandering, "test_maintaining_an_action", "^$")


def test_maintaining_without_declaring_it_fails() -> None:
    fails(Coin, WITHOUT[1], "^coin: an action is maintainable: declare maintainable_actions = True$", maintainable_actions=False)
    fails(Claiming, WITHOUT[1], "^calm: an action is maintainable: declare maintainable_actions = True$")


# -- hit locations ----------------------------------------------------------------------------------
def test_hit_locations_not_on_the_sheet_fail() -> None:
    fails(Coin, "test_hit_locations", r"^coin: hit locations not on the sheet: \{'nerve'\}$", hit_locations=("head", "nerve"))


def test_every_resource_a_hit_location_passes() -> None:
    check(Coin, "test_hit_locations", hit_locations=("luck", "head", "arm"))


def test_damage_at_a_location_that_lands_elsewhere_fails() -> None:
    fails(Numb, "test_hit_locations", r"^coin: damage at head changed \{'luck': \(4, 3\)\}$")
