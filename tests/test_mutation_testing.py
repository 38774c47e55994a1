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
from collections.abc import Callable, Iterator, Mapping
from fractions import Fraction
from importlib.metadata import EntryPoint
from pathlib import Path
from typing import Any

import pytest

from rulesets import registry
from rulesets.base import JUDGE_KEY, ActionRequest, ActionTemplate, Details, RollResult, Ruleset
from rulesets.dice import DiceSource, roll_group
from rulesets.fields import MAIN, PARAM, RESOURCE, STAT, Field, staged
from tracker.engine import ACTIVE, PASSIVE, Damage, Resolution, TimeMapping, TrackerError
from tracker.engine.effects import JUDGES, Blow, Effect, Note, landing
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

    def landed(self, target: str, total: int) -> tuple[list[Effect], Details]:
        """What a flip's total does: 1 luck off the target on a success, at completion."""
        return ([Damage(target, 1, "luck")] if total >= GOAL else []), {}

    def resolve(self, request: ActionRequest, dice: DiceSource) -> Resolution:
        pt = request.performance_time
        if request.template.name == "wait":
            return Resolution(pt, summary=f"waits {pt} segments")
        if not request.targets:
            raise TrackerError("flip needs a target (target=NAME)")
        (face,) = roll_group(dice, "Flip", (6,))
        total = face + _plus(request)
        effects, more = self.landed(request.targets[0].name, total)
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

    def landed(self, target: str, total: int) -> tuple[list[Effect], Details]:
        return [Blow(target, 0)], {JUDGE_KEY: FLIP_JUDGE, "hits": [{"target": target, "total": total}]}

    def maintain(self, request: ActionRequest, dice: DiceSource) -> Resolution:
        return self.resolve(request, dice)

    # `tracker roll coin d6+2 --difficulty 6`
    def _bonus(self, spec: str) -> int:
        """"d6+N", or N alone (the d6 understood)."""
        return int(spec.removeprefix("d6") or 0)

    def roll(self, spec: str, dice: DiceSource, *, vs: str | None = None, vs_dice: DiceSource | None = None,
             difficulty: int | None = None, options: Mapping[str, Any] | None = None) -> RollResult:
        bonus, goal = self._bonus(spec), GOAL if difficulty is None else difficulty
        (face,) = roll_group(dice, "d6", (6,))
        return RollResult(self.id, [face], face + bonus >= goal, face + bonus - goal, f"{face} + {bonus} vs {goal}")

    def chance(self, spec: str, *, vs: str | None = None, difficulty: int | None = None,
               options: Mapping[str, Any] | None = None) -> Fraction:
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

    def landed(self, target: str, total: int) -> tuple[list[Effect], Details]:
        effects, more = super().landed(target, total)
        return effects, {**more, "odds": None}  # type: ignore[dict-item]


class Tupled(Calm):
    """Keeps a tuple in its details: a save gives it back as a list."""

    id = "tupled"

    def landed(self, target: str, total: int) -> tuple[list[Effect], Details]:
        effects, more = super().landed(target, total)
        return effects, {**more, "faces": (total, GOAL)}  # type: ignore[dict-item]


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


class Rerolling(Calm):
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


class Unknowing(Calm):
    """Refuses the odds of a flip with no words."""

    def chance_of(self, request: ActionRequest) -> Fraction | None:
        raise TrackerError("")


class Uncounted(Calm):
    """Refuses the odds of a flip, by name: the form shows why."""

    def chance_of(self, request: ActionRequest) -> Fraction | None:
        raise TrackerError("flip: no odds for a coin in the air")


class Cocky(Coin):
    """Says a d6+2 reaches 6 five times in six: it does three times in six."""

    def chance(self, spec: str, *, vs: str | None = None, difficulty: int | None = None,
               options: Mapping[str, Any] | None = None) -> Fraction:
        return Fraction(5, 6)


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


class Gruff(Calm):
    """Refuses command-line dice, but not by its name."""

    def roll(self, spec: str, dice: DiceSource, *, vs: str | None = None, vs_dice: DiceSource | None = None,
             difficulty: int | None = None, options: Mapping[str, Any] | None = None) -> RollResult:
        raise TrackerError("no dice to roll from the command line")

    def chance(self, spec: str, *, vs: str | None = None, difficulty: int | None = None,
               options: Mapping[str, Any] | None = None) -> Fraction:
        raise TrackerError("no dice, so no odds")


class HalfGruff(Calm):
    """Refuses `roll` by name, but `odds` answers."""

    def chance(self, spec: str, *, vs: str | None = None, difficulty: int | None = None,
               options: Mapping[str, Any] | None = None) -> Fraction:
        return Fraction(1, 2)


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

        def landed(self, target: str, total: int) -> tuple[list[Effect], Details]:
            effects, more = super().landed(target, total)
            return effects, {**more, JUDGE_KEY: name}
    return Judged


Meddling = _judged_by(judge_meddling, "coin_contract.meddling")
Again = _judged_by(judge_again, "coin_contract.again")
TupledJudge = _judged_by(judge_tupled, "coin_contract.tupled")
FirstHardest = _judged_by(judge_first_hardest, "coin_contract.first_hardest")


class Misjudged(Coin):
    """Its blows name a judge that is not the class's."""

    def landed(self, target: str, total: int) -> tuple[list[Effect], Details]:
        effects, more = super().landed(target, total)
        return effects, {**more, JUDGE_KEY: "coin_contract.nobody"}


class Blowless(Coin):
    """Declares judges, but its flips land as they are: no Blow."""

    def landed(self, target: str, total: int) -> tuple[list[Effect], Details]:
        return Calm.landed(self, target, total)


class OneByOne(Coin):
    """Completions on one segment land in the game's order."""

    time = TimeMapping(segments_per_round=6, simultaneous=False)


class Shy(Coin):
    """Bo never flips (by name): no action both combatants could declare at each other."""

    def resolve(self, request: ActionRequest, dice: DiceSource) -> Resolution:
        if request.template.name == "flip" and request.actor.name == "Bo":
            raise TrackerError("flip: Bo will not")
        return super().resolve(request, dice)


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


def check(game: type[Ruleset], name: str, *fixtures: Any, **declared: Any) -> None:
    """Run the check `name` of `game`'s contract class, with the fixtures it takes."""
    contract = suite(game, **declared)
    if name == "test_registered":
        contract.test_registered()
    else:
        getattr(contract, name)(game(), *fixtures)


def fails(game: type[Ruleset], name: str, match: str, *fixtures: Any, **declared: Any) -> None:
    with pytest.raises(AssertionError, match=match):
        check(game, name, *fixtures, **declared)


def skipped(game: type[Ruleset], name: str, why: str, *fixtures: Any, **declared: Any) -> None:
    with pytest.raises(pytest.skip.Exception) as skip:
        check(game, name, *fixtures, **declared)
    assert skip.value.msg == why


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
    skipped(Shy, "test_blows_landing_together_do_not_depend_on_the_order_declared",
            "no action both combatants could declare at each other on one segment")


def test_certain_and_impossible_odds_agree_with_every_roll() -> None:
    check(Coin, "test_command_line_dice", odds=("d6+5", None, 6))  # every face reaches 6
    check(Coin, "test_command_line_dice", odds=("d6", None, 7))  # none reaches 7


def test_a_game_that_takes_any_name_keeps_it_as_typed() -> None:
    check(Anything, "test_templates")


def test_odds_refused_by_name_pass() -> None:
    check(Uncounted, "test_odds_of_a_declaration")


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


def test_a_combatant_that_does_not_hold_the_sheet_its_values_make_fails() -> None:
    fails(Drifting, "test_sheet", "^calm: add Ann nerve=3$", combatants=("Ann nerve=3", "Bo side=foes"))


# -- dice prompts, after-roll choices and the commit -----------------------------------------
DICE = "test_dice_prompts_after_roll_choices_and_the_commit"


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
    fails(Rerolling, DICE, "^calm flip: push=True asked for more dice$")


def test_a_commit_that_is_not_what_the_form_showed_fails() -> None:
    fails(Fickle, DICE, "^calm flip$")


# -- the performance time --------------------------------------------------------------------
def test_a_typed_pt_not_honoured_fails() -> None:
    fails(Hasty, "test_a_typed_pt_and_the_default_pt", "^calm flip: typed PT 7, took 4$")


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
        check(Cocky, "test_command_line_dice")
    wins = int(failed.value.args[0].split(": ")[1].split("/")[0])
    assert abs(wins - 200) <= 45  # within 4.5 deviations (10) of 1/2


@pytest.mark.parametrize(("game", "odds"), [(Fumbling, ("d6+5", None, 6)), (Lucky, ("d6", None, 7))])
def test_certain_or_impossible_odds_a_roll_belies_fail(game: type[Ruleset], odds: tuple[str, None, int]) -> None:
    fails(game, "test_command_line_dice", "^$", odds=odds)


def test_rolling_command_line_dice_without_declaring_it_fails() -> None:
    with pytest.raises(pytest.fail.Exception, match="DID NOT RAISE"):
        check(Coin, WITHOUT[0], command_line_dice=False)


def test_refusing_command_line_dice_not_by_name_fails() -> None:
    with pytest.raises(AssertionError, match="Regex pattern did not match"):
        check(Gruff, WITHOUT[0])


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


def test_blows_whose_outcome_depends_on_the_order_declared_fail() -> None:
    fails(FirstHardest, "test_blows_landing_together_do_not_depend_on_the_order_declared",
          r"^coin flip: the order declared changed the fight: ")


# -- maintained actions ----------------------------------------------------------------------------
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


def test_damage_at_a_location_that_lands_elsewhere_fails() -> None:
    fails(Numb, "test_hit_locations", r"^coin: damage at head changed \{'luck': \(4, 3\)\}$")
