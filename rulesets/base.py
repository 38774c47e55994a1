"""The ruleset adapter contract.

An adapter is a class registered in the `tracker.rulesets` entry-point group. It is
pure: no Textual, no file writes, no `random` module functions; every die comes from
the `DiceSource` it is handed, so a roll can be random, seeded, or typed in by hand.

It declares its identity, time mapping, the combatant sheet (stats and resources as
typed `Field`s), settings, an action catalogue of `ActionTemplate`s, and implements:

- `resolve(request, dice) -> Resolution`: the roll made when an action is initiated,
  its performance time after the roll, and its effects (engine data types).
- `maintain(request, dice) -> Resolution`: the next link of a maintained attack.
- `roll(spec, dice, ...) -> RollResult`: a bare check from the command line.
- `chance(spec, ...) -> Fraction`: the exact probability of success (or of winning an
  opposed roll), computed, never simulated.
- `after_roll(request, resolution) -> str`: the choices a game makes after seeing the
  dice (Brand X Q, ORE wiggle dice), as the budget a form shows ("Q 6 to place ...");
  "" when there is nothing to choose. The choices themselves are the template's params
  whose `Field.stage` is AFTER_ROLL: a form shows the resolution made with the typed
  faces, offers those fields, then resolves again with the same faces plus the chosen
  values and commits that resolution. Scripts state them up front (`q_*=`, `wiggle=`).
- `chance_notes(spec, ...) -> list[str]`: what `odds` says beside the figure (USOR: a
  derived chart row was used), as `roll` does in its text.
- `damage_rule(target, amount, resource) -> ManualDamage`: how a GM's `damage`/`heal`
  lands (which resource, what it overflows to, whether it may pass the maximum), so
  manual damage follows the game's rule as an action's damage does.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, ClassVar

from tracker.engine.clock import TimeMapping
from tracker.engine.effects import Resolution
from tracker.engine.errors import TrackerError
from tracker.engine.encounter import Encounter
from tracker.engine.model import ACTIVE, Action, Combatant
from tracker.engine.table import TABLE_SETTINGS
from tracker.engine.table import check as table_check
from rulesets.dice import DiceSource
from rulesets.fields import AFTER_ROLL, RESOURCE, SETTING, STAT, Field, FieldError, coerce_all
from rulesets.tables import load_tables


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
    previous: Action | None = None  # for maintain: the link being continued
    pt: int | None = None  # a performance time the GM typed, overriding the template
    # The whole encounter, read-only, for rules that look at history (saving Q, chains).
    encounter: Encounter | None = None


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


class Ruleset(ABC):
    id: ClassVar[str]
    name: ClassVar[str]
    description: ClassVar[str]
    time: ClassVar[TimeMapping] = TimeMapping()
    sheet: ClassVar[tuple[Field, ...]] = ()
    settings: ClassVar[tuple[Field, ...]] = ()
    # Resources that put a combatant down when they reach 0 or less.
    down_when: ClassVar[tuple[str, ...]] = ()
    # A TOML file of data tables next to the adapter module, if it has one.
    tables_file: ClassVar[str | None] = None
    # Maintaining opens the form even with no dice to roll: the GM states each link's
    # outcome (freeform's damage and note), so `m` must ask for it.
    maintain_asks: ClassVar[bool] = False

    def __init__(self, house_rules: Path | Mapping[str, Any] | None = None) -> None:
        self.house_rules = house_rules
        self._tables: dict[str, Any] | None = None

    # -- data tables ---------------------------------------------------------
    @property
    def tables(self) -> dict[str, Any]:
        if self._tables is None:
            if self.tables_file is None:
                self._tables = {}
            else:
                import sys

                module_file = sys.modules[type(self).__module__].__file__ or ""
                shipped = Path(module_file).parent / self.tables_file
                self._tables = load_tables(shipped, self.house_rules)
        return self._tables

    # -- sheet ---------------------------------------------------------------
    def stat_fields(self) -> tuple[Field, ...]:
        return tuple(f for f in self.sheet if f.role == STAT)

    def resource_fields(self) -> tuple[Field, ...]:
        return tuple(f for f in self.sheet if f.role == RESOURCE)

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
    def catalogue(self) -> Mapping[str, ActionTemplate]: ...

    def template(self, name: str) -> ActionTemplate:
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
        return coerce_all(template.params, dict(raw), where)

    # -- resolution ----------------------------------------------------------
    @abstractmethod
    def resolve(self, request: ActionRequest, dice: DiceSource) -> Resolution: ...

    def maintainable(self, template: ActionTemplate, settings: Mapping[str, Any]) -> bool:
        """Whether an action of `template` may be maintained at a table with `settings`
        (the form says "maintainable" only when `maintain` will accept it)."""
        return template.maintainable

    def maintain(self, request: ActionRequest, dice: DiceSource) -> Resolution:
        raise TrackerError(f"{self.name} has no rule for maintaining {request.template.name}")

    def chance_of(self, request: ActionRequest) -> Fraction | None:
        """Exact chance the declared action succeeds, for the declare form; None if no roll."""
        return None

    def chance_note(self, request: ActionRequest) -> str:
        """More for the form's chance line beside the chance of success, saying what it
        is the chance of (Brand X: "to hit Sphinx (Defense +1 now): 55.00%"); "" if none."""
        return ""

    def after_roll(self, request: ActionRequest, resolution: Resolution) -> str:
        """What may still be chosen now the dice are known, as a short budget for the
        form ("Q 6 to place: speed, Attack ..."), or "" when nothing is. The choices are
        the template's AFTER_ROLL fields (see the module docstring)."""
        return ""

    def after_roll_fields(self, request: ActionRequest) -> tuple[Field, ...]:
        return tuple(f for f in request.template.params if f.stage == AFTER_ROLL)

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
        raise TrackerError(f"{self.id} has no dice to roll from the command line")

    def chance(
        self,
        spec: str,
        *,
        vs: str | None = None,
        difficulty: int | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> Fraction:
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
    "ActionRequest", "ActionTemplate", "DiceSource", "Field", "FieldError", "ManualDamage", "Resolution",
    "RollResult", "Ruleset", "TimeMapping",
]
