"""The ruleset adapter contract: what a game module defines, and what the tracker does for it.

An adapter is a `Ruleset` subclass registered in the `tracker.rulesets` entry-point group
(`rulesets/README.md` walks through a whole game). It is pure: no Textual, no file
writes, no `random` module functions; every die comes from the `DiceSource` it is handed
(random, seeded, or faces typed in by the GM), one `roll_group` per handful of dice.

Every hook is declared on `Ruleset` below with its docstring; only `catalogue` and
`resolve` must be written. The tracker, not the adapter:
- validates the sheet, settings and action modifiers from the `Field`s declared;
- honours a performance time the GM typed (`pt=`): `resolve` and `maintain` receive
  `request.pt` already set, to the typed PT or else `default_pt(request)`, and read it
  as `request.performance_time`;
- asks for typed dice group by group, re-resolving with the faces typed so far;
- applies the `Resolution`'s effects at their timing, judges each `Blow` when it lands
  with the judge named in `details[JUDGE_KEY]` (registered from `judges`), saves the
  resolution (its `details` must be `Details`: see `check_details`) and replays it
  without rolling again.
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path
from typing import Any, ClassVar, TypeAlias, Union

from tracker.engine.clock import TimeMapping
from tracker.engine.effects import Judge, Resolution, register_judge
from tracker.engine.errors import TrackerError
from tracker.engine.encounter import Encounter
from tracker.engine.model import ACTIVE, Action, Combatant
from tracker.engine.shapes import fits
from tracker.engine.table import TABLE_SETTINGS
from tracker.engine.table import check as table_check
from rulesets.dice import DiceSource, roll_group
from rulesets.fields import AFTER_ROLL, RESOURCE, SETTING, STAT, Field, FieldError, coerce_all
from rulesets.tables import load_tables


# -- what a resolution's `details` may hold ---------------------------------------------
# A save keeps each resolution as TOML and replays it without rolling again, so `details`
# holds only what TOML writes and reads back unchanged: text, truth values, integers
# that fit 64 bits, finite floats, lists and tables (str keys) of these. No None, no
# tuples (they come back as lists, and the reloaded fight would differ), no objects.
Detail: TypeAlias = Union[str, bool, int, float, list["Detail"], dict[str, "Detail"]]
Details: TypeAlias = dict[str, Detail]

# Keys of `details` the tracker itself reads (the rest are the game's own figures):
JUDGE_KEY = "judge"  # the name of the judge (from `Ruleset.judges`) for the resolution's Blows
MARGIN_NAME = "margin_name"  # the margin's name in the game's terms ("result points")
# The action rolls nothing of its own: its success is an earlier roll's, carried over (a
# Brand X maintained link keeps its first link's Combat Roll), and this key's text names
# that roll ("the miss of the Combat Roll ..."). The luck statistics leave such an action
# out: it is no roll against odds.
CARRIED_ROLL = "carried_roll"
# The figures the declare form shows after the roll, when the details hold them (a
# scalar or a list of scalars), beside success, the margin and the PT.
SHOWN_DETAILS = ("total", "q", "sets", "width", "height", "nost", "result", "rp", "roll", "target")

def check_details(details: Mapping[str, Any], where: str = "details") -> None:
    """Refuse a `details` value a save could not hold as it is, naming the key
    ("details.hits[0].attack: None cannot be saved")."""
    stack: list[tuple[Any, str]] = [(details, where)]
    while stack:
        item, at = stack.pop()
        if isinstance(item, dict):
            for key, value in item.items():
                if not isinstance(key, str):
                    raise TrackerError(f"{at}: key {key!r} cannot be saved (keys are text)")
                stack.append((value, f"{at}.{key}"))
        elif isinstance(item, list):
            stack.extend((v, f"{at}[{i}]") for i, v in enumerate(item))
        elif isinstance(item, bool) or isinstance(item, str):
            continue
        elif isinstance(item, (int, float)):
            if not fits(item):  # the one rule for numbers a save holds (tracker.engine.shapes)
                why = "integers must fit 64 bits" if isinstance(item, int) else "numbers must be finite"
                raise TrackerError(f"{at}: {item!r} cannot be saved ({why})")
        else:
            raise TrackerError(f"{at}: {item!r} cannot be saved (a {type(item).__name__}; details hold text, "
                               "numbers, truth values, lists and tables)")


@dataclass(frozen=True, slots=True)
class ActionTemplate:
    """An entry of the action catalogue.

    `params` are the modifiers the declare form and `declare ... key=value` accept.
    `companions` are templates that may start on the same segment (Brand X jump with
    move). `targets` is how many targets it takes: 0, 1, or -1 for any number.
    """

    name: str
    mode: str = ACTIVE
    pt: int = 10
    description: str = ""
    rolls: str = ""
    cost: str = ""
    companions: tuple[str, ...] = ()
    maintainable: bool = False
    targets: int = 0
    params: tuple[Field, ...] = ()


@dataclass(frozen=True, slots=True)
class ActionRequest:
    """Everything an adapter needs to resolve one initiation."""

    template: ActionTemplate
    actor: Combatant
    targets: tuple[Combatant, ...] = ()
    params: Mapping[str, Any] = field(default_factory=dict)
    segment: int = 0
    settings: Mapping[str, Any] = field(default_factory=dict)
    # For maintain: the link being continued (its `asked` holds the modifiers it was
    # asked with; `params` above start from them, with what the GM changed).
    previous: Action | None = None
    # The performance time before anything the roll changes. Built with the PT the GM
    # typed, or None; `Ruleset.resolve`/`maintain` receive it set (see `default_pt`).
    pt: int | None = None
    # The whole encounter, read-only, for rules that look at history (saving Q, chains).
    encounter: Encounter | None = None
    # Declared by a player for their own combatant (else by the GM): what the player
    # states (freeform's damage=) is theirs, and a game that says who stated it says so.
    by_player: bool = False

    @property
    def performance_time(self) -> int:
        """`pt` inside `resolve`/`maintain`, where the base class has always set it."""
        if self.pt is None:
            raise TrackerError(f"{self.template.name}: no performance time (a request not passed through Ruleset.resolve)")
        return self.pt


@dataclass(frozen=True, slots=True)
class ManualDamage:
    """Where a GM's `damage NAME N` lands: `resource`, with what VP cannot take going
    through to `overflow` (Brand X VP -> DP); `over_maximum` lets healing pass the
    sheet's starting value (refused otherwise)."""

    resource: str
    overflow: str = ""
    over_maximum: bool = False


@dataclass(slots=True)
class RollResult:
    """A check rolled from the command line; `fields` holds the per-game JSON keys."""

    ruleset: str
    dice: list[int]
    success: bool | None
    margin: Any
    text: str
    fields: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "ruleset": self.ruleset,
            "dice": self.dice,
            "success": self.success,
            "margin": self.margin,
        }
        data.update(self.fields)
        data["text"] = self.text
        return data


def _timed(hook: Callable[[Ruleset, ActionRequest, DiceSource], Resolution]) -> Callable[[Ruleset, ActionRequest, DiceSource], Resolution]:
    """`hook` given its request with `pt` set: the GM's typed PT, else `default_pt`."""
    if getattr(hook, "_timed", False):
        return hook

    @functools.wraps(hook)
    def timed(self: Ruleset, request: ActionRequest, dice: DiceSource) -> Resolution:
        if request.pt is None:
            request = replace(request, pt=self.default_pt(request))
        return hook(self, request, dice)

    timed._timed = True  # type: ignore[attr-defined]
    return timed


@dataclass(frozen=True)
class Recovery:
    """A game's own recovery between fights, where its rules give one (a campaign's
    rest: tracker.play.rest drives it). Data, not code: the driver resolves these
    actions of the game's own catalogue on each character at rest.

    - `name`: the rule's name and source, kept with every rest ("Brand X's Healing
      Roll (seed 004)"); `rule`: what it does, in words (the rest's help);
    - `per_round`: an action that needs no dice whose resolution's `details` give, by
      resource name, what one round of rest restores (or None);
    - `rolls`: (action, parameters, every N hours, needs): a roll made each N hours of
      rest, whose effects heal; a character rolls it only while it has something it
      heals: one of the `needs` resources off its sheet value, or (`needs` empty) any
      resource below its maximum or stat below its sheet.
    """

    name: str
    rule: str
    per_round: tuple[str, Mapping[str, Any]] | None = None
    rolls: tuple[tuple[str, Mapping[str, Any], int, tuple[str, ...]], ...] = ()


class Ruleset(ABC):
    """A game. Class attributes describe it; methods are the hooks the tracker calls.

    `id` is the name saves and `--ruleset` use (the entry point's name); `name` and
    `description` are shown when choosing a game. `time` maps segments to the game's
    time (segments a round, payment segments). `sheet` holds the combatant's STAT and
    RESOURCE `Field`s (types, defaults, limits: the forms and the loader come from
    them); `settings` the table's SETTING fields (`tracker new --set`, `setting`).
    """

    id: ClassVar[str]
    name: ClassVar[str]
    description: ClassVar[str]
    time: ClassVar[TimeMapping] = TimeMapping()
    sheet: ClassVar[tuple[Field, ...]] = ()
    settings: ClassVar[tuple[Field, ...]] = ()
    # Resources that put a combatant down when they reach 0 or less.
    down_when: ClassVar[tuple[str, ...]] = ()
    # A TOML file of data tables next to the adapter module, if it has one; a GM's
    # house-rules file overrides it row by row (`tables`).
    tables_file: ClassVar[str | None] = None
    # Maintaining opens the form even with no dice to roll: the GM states each link's
    # outcome (freeform's damage and note), so `m` must ask for it.
    maintain_asks: ClassVar[bool] = False
    # Judges for blows judged when they land (docs/contributing/design.md#judged-on-landing), by name. A resolution whose
    # effects hold `Blow`s names its judge in `details[JUDGE_KEY]`; on the segment a blow
    # lands the engine calls `judge(encounter, action, blow)`, which reads the state as
    # it is then (`effects.landing` finds the blow's record and its target) and returns
    # the effects that land (never another Blow), changing nothing itself. The names
    # are saved with the fight, so keep them stable ("d6.blow"); they are registered
    # when the class is made.
    judges: ClassVar[Mapping[str, Judge]] = {}
    # The game's own recovery between a campaign's fights (None: its rules give none, and
    # the GM states what a rest restores).
    recovery: ClassVar[Recovery | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # The tracker, not each adapter, honours a typed PT: every `resolve`/`maintain`
        # an adapter writes receives its request with `pt` set (see `default_pt`).
        super().__init_subclass__(**kwargs)
        for name in ("resolve", "maintain"):
            hook = cls.__dict__.get(name)
            if hook is not None and not getattr(hook, "__isabstractmethod__", False):
                setattr(cls, name, _timed(hook))
        for name, judge in cls.__dict__.get("judges", {}).items():
            register_judge(name, judge)

    def __init__(self, house_rules: Path | Mapping[str, Any] | None = None) -> None:
        self.house_rules = house_rules
        self._tables: dict[str, Any] | None = None

    # -- data tables ---------------------------------------------------------
    @property
    def tables(self) -> dict[str, Any]:
        """The data tables of `tables_file` (next to the adapter's module), with the
        GM's house-rules file, if any, laid over them row by row; read once."""
        if self._tables is None:
            if self.tables_file is None:
                self._tables = {}
            else:
                import sys

                module_file = sys.modules[type(self).__module__].__file__ or ""
                shipped = Path(module_file).parent / self.tables_file
                self._tables = load_tables(shipped, self.house_rules)
        return self._tables

    def check_tables(self) -> None:
        """Read every data table this adapter uses, shipped with the GM's rows laid over,
        into its typed form; raise `TrackerError` naming the table, row and field and
        what was expected. Called when a save is loaded (and by `registry.get` given a
        house-rules path), so a bad house file is refused as the save's problem, not at
        the table's first use. This default reads the tables and builds the catalogue
        (where a game reads its tables if nothing else); an adapter with tables
        overrides it to read each of them with its own readers."""
        _ = self.tables
        self.catalogue()

    # -- sheet ---------------------------------------------------------------
    def stat_fields(self) -> tuple[Field, ...]:
        """The sheet's STAT fields."""
        return self._fields(STAT)

    def resource_fields(self) -> tuple[Field, ...]:
        """The sheet's RESOURCE fields (tracked, with a maximum: the starting value)."""
        return self._fields(RESOURCE)

    def _fields(self, role: str) -> tuple[Field, ...]:
        # Asked for every sheet a save or campaign holds: worked out once per sheet.
        known = self.__dict__.setdefault("_by_role", {})
        key = (role, id(self.sheet))
        found = known.get(key)
        if found is None:
            found = known[key] = tuple(f for f in self.sheet if f.role == role)
        return found

    def build_sheet(self, values: Mapping[str, Any], where: str) -> tuple[dict[str, Any], dict[str, Any]]:
        """Split and validate `key=value` pairs into (stats, resources)."""
        merged = coerce_all(self.sheet, dict(values), where)
        stats = {f.name: merged[f.name] for f in self.stat_fields() if f.name in merged}
        resources = {f.name: merged[f.name] for f in self.resource_fields() if f.name in merged}
        return stats, resources

    def check_sheet(self, stats: Mapping[str, Any], resources: Mapping[str, Any], where: str) -> tuple[dict[str, Any], dict[str, Any]]:
        """Check stored stats and resources against the sheet, naming the bad key.

        Stored resources hold current values (which may be below a field's minimum once
        damage is taken), so only their type and name are checked here.
        """
        stats = coerce_all(self.stat_fields(), dict(stats), f"{where}.stats", fill=False)
        checked: dict[str, Any] = {}
        by_name = {f.name: f for f in self.resource_fields()}
        for key, value in resources.items():
            field = by_name.get(key)
            if field is None:
                raise FieldError(f"{where}.resources.{key}", f"one of the known resources ({', '.join(by_name) or 'none'})", key)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise FieldError(f"{where}.resources.{key}", "a number", value)
            checked[key] = value
        return stats, checked

    def validate_settings(self, values: Mapping[str, Any], where: str) -> dict[str, Any]:
        """The table's settings checked against `settings`, defaults filled in."""
        # The table's own settings (tracker.engine.table) are accepted beside the
        # ruleset's, and written only when set (no default fills them in).
        fields = self.settings + tuple(
            Field(name, "choice" if choices else "str", None, choices=choices, role=SETTING, help=text)
            for name, (choices, _, text) in TABLE_SETTINGS.items()
        )
        checked = coerce_all(fields, dict(values), where)
        for name in TABLE_SETTINGS:
            if name in checked and checked[name] is not None:
                checked[name] = table_check(name, checked[name], where)  # a number, for the cap
        return checked

    # -- catalogue -----------------------------------------------------------
    @abstractmethod
    def catalogue(self) -> Mapping[str, ActionTemplate]:
        """The actions, by name: what the declare form lists and `declare` accepts."""

    def template(self, name: str) -> ActionTemplate:
        """The template `name` names (any case), or a refusal listing the actions.
        Override for other spellings (Brand X "hold breath") or to accept any name
        (freeform)."""
        found = self.catalogue().get(name)
        if found is None:
            folded = {k.casefold(): v for k, v in self.catalogue().items()}
            found = folded.get(name.casefold())
        if found is None:
            raise TrackerError(
                f"{self.id} has no action {name!r} (actions: {', '.join(self.catalogue())})"
            )
        return found

    def params(self, template: ActionTemplate, raw: Mapping[str, Any], where: str = "declare") -> dict[str, Any]:
        """The modifiers typed for `template` checked against its params, defaults filled in."""
        return coerce_all(template.params, dict(raw), where)

    # -- resolution ----------------------------------------------------------
    def default_pt(self, request: ActionRequest) -> int:
        """The performance time when the GM typed none: the template's `pt`. A game whose
        time depends on the request says so here (D6: a round shared by the actions
        declared; ORE: to the end of the round; USOR: scaled by the actor's ATM); the PT
        a roll changes afterwards (Brand X Q on speed) is `resolve`'s business."""
        return request.template.pt

    @abstractmethod
    def resolve(self, request: ActionRequest, dice: DiceSource) -> Resolution:
        """Roll (or state) the action as it is initiated and say what it does.

        `request.performance_time` is the PT to start from (typed or `default_pt`).
        Every die comes from `dice` through `roll_group(dice, label, sides)`, one call
        per group a person would throw together; a die that is rolled only on some
        outcome (a reroll, damage on a hit) is its own group, rolled only then. The
        declare form resolves again with the faces typed so far, so the adapter itself
        says which group comes next, and the same faces must give the same Resolution.
        Refuse what the rules forbid with a `TrackerError` that says why.

        The `Resolution`: `pt` after anything the roll did to it, `success` (None: no
        pass/fail), `margin` in the game's terms (name it with `details[MARGIN_NAME]`),
        `dice`, a `summary` for the log, `effects` (engine data: `Damage`, `Adjust`,
        `Condition`, `Throwback`, `Upkeep`, `Note`, `Blow`), and `details`: `Details`
        (see `check_details`), where `SHOWN_DETAILS` keys are shown by the form."""

    def maintainable(self, template: ActionTemplate, settings: Mapping[str, Any]) -> bool:
        """Whether an action of `template` may be maintained at a table with `settings`
        (the form says "maintainable" only when `maintain` will accept it)."""
        return template.maintainable

    def maintains(self, settings: Mapping[str, Any]) -> bool:
        """Whether the game maintains any of its actions at a table with `settings`: by
        default, whether any catalogue action is `maintainable`. False: `maintain` is
        refused at once, saying the game's attacks are not maintained (before any form
        opens), not that the actor has nothing to maintain."""
        return any(self.maintainable(t, settings) for t in self.catalogue().values())

    def maintain(self, request: ActionRequest, dice: DiceSource) -> Resolution:
        """The next link of a maintained action: `request.previous` is the link being
        continued, `request.performance_time` the typed PT or `default_pt` (which
        sees `previous`). Refused unless the game has a rule for it."""
        raise TrackerError(f"{self.name} has no rule for maintaining {request.template.name}")

    def chance_of(self, request: ActionRequest) -> Fraction | None:
        """Exact chance the declared action succeeds, for the declare form and the odds
        kept with the event; None if it rolls nothing. A Fraction, computed (icepool
        where it fits), never simulated; refuse by name what cannot be computed."""
        return None

    def chance_note(self, request: ActionRequest) -> str:
        """More for the form's chance line beside the chance of success, saying what it
        is the chance of (Brand X: "to hit Sphinx (Defense +1 now): 55.00%"); "" if none."""
        return ""

    def after_roll(self, request: ActionRequest, resolution: Resolution) -> str:
        """What may still be chosen now the dice are known, as a short budget for the
        form ("Q 6 to place: speed, Attack ..."), or "" when nothing is.

        The choices are `after_roll_fields` (Brand X Q, ORE wiggle dice): the form shows
        the resolution made with the typed faces, offers those fields (starting from
        `after_roll_defaults`), then resolves again with the same faces plus the chosen
        values and commits that resolution. Scripts state them up front (`q_*=`,
        `wiggle=`), so `resolve` reads them from `request.params` like any other."""
        return ""

    def after_roll_fields(self, request: ActionRequest) -> tuple[Field, ...]:
        """The choices offered once the dice are known: the template's AFTER_ROLL params
        (`fields.staged(..., after_roll=...)`). Choosing them must roll no more dice."""
        return tuple(f for f in request.template.params if f.stage == AFTER_ROLL)

    def after_roll_defaults(self, request: ActionRequest, resolution: Resolution) -> Mapping[str, Any]:
        """Starting values for the after-roll choices, given the roll (the form fills
        them in for the GM to change); the fields' own defaults when empty."""
        return {}

    # -- manual damage -------------------------------------------------------
    def damage_rule(self, target: Combatant, amount: int | float, resource: str | None = None) -> ManualDamage:
        """Where `damage`/`heal` lands: the named resource, else the first of `down_when`
        the combatant has, else its first resource. No overflow by default."""
        if resource is None:
            resource = next((k for k in self.down_when if k in target.resources), None)
            if resource is None:
                if not target.resources:
                    raise TrackerError(f"{target.name} has no resources to damage")
                resource = next(iter(target.resources))
        if resource not in target.resources:
            raise TrackerError(f"{target.name} has no resource {resource!r} (has: {', '.join(target.resources) or 'none'})")
        return ManualDamage(resource)

    # -- command line checks -------------------------------------------------
    # `tracker roll`/`odds` and the `roll` verb: a bare check from a spec in the game's
    # notation ("4D+2", "d4+d8+2"), against `difficulty` or an opposing `vs` spec;
    # `options` are `--set key=value` (validated against `settings`). A game without
    # dice keeps these defaults, which refuse by name.
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
        """Roll `spec` with `dice` (`vs_dice` for the opponent), through `roll_group`."""
        raise TrackerError(f"{self.id} has no dice to roll from the command line")

    def chance(
        self,
        spec: str,
        *,
        vs: str | None = None,
        difficulty: int | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> Fraction:
        """The exact chance `roll` succeeds (or wins), computed, never sampled."""
        raise TrackerError(f"{self.id} has no dice, so no odds")

    def chance_notes(
        self,
        spec: str,
        *,
        vs: str | None = None,
        difficulty: int | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> list[str]:
        """What `odds` should say beside the figure, as `roll` does (USOR: a derived
        chart row was used). Empty by default."""
        return []


__all__ = [
    "CARRIED_ROLL", "JUDGE_KEY", "MARGIN_NAME", "SHOWN_DETAILS", "ActionRequest", "ActionTemplate", "Detail", "Details", "DiceSource", "Field",
    "FieldError", "ManualDamage", "Resolution", "RollResult", "Ruleset", "TimeMapping", "check_details", "roll_group",
]
