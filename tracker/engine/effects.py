"""What a resolution does to the fight, as plain data.

Adapters compute effects when an action is initiated (the roll is made then); the
engine applies each effect at its `timing`: "initiate" (costs paid up front) or
"complete" (damage, throwback, conditions land on the completion segment, or `lead`
segments before it: a sweep at several opponents lands one blow a segment). Effects are
stored in the event log, so replaying a fight never re-rolls or re-consults a table.

A `Blow` is an effect judged when it lands (docs/contributing/design.md#judged-on-landing: the dice are rolled at
initiation; whether a blow hits and what its damage does depend on the target's state
at the start of the segment it lands on). The resolution's `details["judge"]` names a
judge an adapter declares in `Ruleset.judges` (registered here for it): a pure function of the
encounter's state, the action and the blow, returning the effects that land. All blows
landing on one segment are judged before any effect of that segment applies, so the
outcome never depends on the order the declarations were typed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from typing import Any, ClassVar, Union, final

INITIATE = "initiate"
COMPLETE = "complete"


@dataclass(frozen=True, slots=True)
class Damage:
    """Take `amount` from `resource` (negative heals); past zero the rest goes to `overflow`."""

    kind: ClassVar[str] = "damage"
    target: str
    amount: int | float
    resource: str
    overflow: str = ""
    timing: str = COMPLETE
    lead: int = 0


@dataclass(frozen=True, slots=True)
class Adjust:
    """Change a resource or stat by `delta`: EP paid, ability points spent, healing."""

    kind: ClassVar[str] = "adjust"
    target: str
    key: str
    delta: int | float
    reason: str = ""
    timing: str = INITIATE


@dataclass(frozen=True, slots=True)
class Throwback:
    """The target is thrown `distance` metres at `speed` m/segment, airborne `airborne` segments."""

    kind: ClassVar[str] = "throwback"
    target: str
    distance: float
    speed: float
    airborne: int
    timing: str = COMPLETE
    lead: int = 0


@dataclass(frozen=True, slots=True)
class Condition:
    """A named condition on `target` lasting `duration` segments from when it lands."""

    kind: ClassVar[str] = "condition"
    target: str
    name: str
    duration: int
    timing: str = COMPLETE
    lead: int = 0


@dataclass(frozen=True, slots=True)
class Upkeep:
    """A per-round cost charged on payment segments; amount 0 ends it.

    `rises`: (payment segment, amount) pairs, segments rising, for a cost that changes as
    time passes (Brand X's held breath, whose elapsed-time penalty builds): from each
    payment segment on, the amount is the pair's. With rises, an amount of 0 is a cost
    not charged yet. A later Upkeep of the same name replaces them."""

    kind: ClassVar[str] = "upkeep"
    target: str
    name: str
    resource: str
    amount: int | float
    timing: str = COMPLETE
    rises: tuple[tuple[int, int | float], ...] = ()


@dataclass(frozen=True, slots=True)
class Blow:
    """A blow on `target`, judged when it lands by the resolution's judge; `index`
    says which of the action's blows (a sweep at several opponents has one each)."""

    kind: ClassVar[str] = "blow"
    target: str
    index: int = 0
    timing: str = COMPLETE
    lead: int = 0


@dataclass(frozen=True, slots=True)
class Note:
    """A line the action adds to the log when it lands (`text`), changing nothing else."""

    kind: ClassVar[str] = "note"
    text: str
    timing: str = COMPLETE


Effect = Union[Damage, Adjust, Throwback, Condition, Upkeep, Note, Blow]
EFFECT_TYPES: dict[str, type] = {t.kind: t for t in (Damage, Adjust, Throwback, Condition, Upkeep, Note, Blow)}

# judge(encounter, action, blow) -> the effects that land (never another Blow). It must
# read the state and change nothing: the engine applies what it returns.
Judge = Callable[[Any, Any, Blow], "list[Effect]"]
JUDGES: dict[str, Judge] = {}


def register_judge(name: str, judge: Judge) -> None:
    """Adapters register their judges at import; a save names them by `name`."""
    JUDGES[name] = judge


def landing(encounter: Any, action: Any, blow: Blow, hits: list[Any]) -> tuple[Any, Any] | list[Effect]:
    """The record of `blow` among an action's `hits` and its target as it stands now, or
    the note a judge returns instead: no such record (a hand-edited save), or a target
    no longer in the fight."""
    if isinstance(blow.index, bool) or not isinstance(blow.index, int) or not 0 <= blow.index < len(hits):
        return [Note(f"{action.actor}'s {action.template}: no record of its blow on {blow.target}")]
    target = encounter.combatants.get(blow.target)
    if target is None:
        return [Note(f"{action.actor}'s {action.template} at {blow.target} lapses: not in the fight")]
    return hits[blow.index], target


def effect_to_dict(effect: Effect) -> dict[str, Any]:
    data: dict[str, Any] = {"kind": effect.kind}
    data.update(asdict(effect))
    if data.get("lead") == 0:
        del data["lead"]
    if "rises" in data:
        if data["rises"]:
            data["rises"] = [list(pair) for pair in data["rises"]]  # as a save reads them back
        else:
            del data["rises"]
    return data


def _rises(value: Any) -> tuple[tuple[int, int | float], ...]:
    """An Upkeep's stored `rises`: [segment, amount] pairs, segments rising."""
    pairs: list[tuple[int, int | float]] = []
    for pair in value if isinstance(value, (list, tuple)) else [value]:
        ok = isinstance(pair, (list, tuple)) and len(pair) == 2
        segment, amount = pair if ok else (None, None)
        ok = ok and isinstance(segment, int) and not isinstance(segment, bool) and (not pairs or segment > pairs[-1][0])
        if not ok or isinstance(amount, bool) or not isinstance(amount, (int, float)):
            raise ValueError(f"rises: expected [segment, amount] pairs with the segments rising, got {value!r}")
        pairs.append((segment, amount))  # type: ignore[arg-type]
    return tuple(pairs)


_FIELD_NAMES: dict[type, frozenset[str]] = {}  # an effect class -> its keys (and "kind")


def effect_from_dict(data: dict[str, Any]) -> Effect:
    """Build an effect from stored data; raises KeyError/TypeError/ValueError naming the problem."""
    kind = data.get("kind")
    cls = EFFECT_TYPES.get(kind)  # type: ignore[arg-type]
    if cls is None:
        raise ValueError(f"kind: expected one of {', '.join(EFFECT_TYPES)}, got {kind!r}")
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = frozenset(f.name for f in fields(cls)) | {"kind"}
    unknown = set(data) - names
    if unknown:
        raise ValueError(f"unexpected key {sorted(unknown)[0]!r} for a {kind} effect")
    values = {k: v for k, v in data.items() if k != "kind"}
    if cls is Upkeep and "rises" in values:
        values["rises"] = _rises(values["rises"])
    return cls(**values)


class _BuiltAsTwin(type):
    """Resolution's type: calling it builds an unfrozen twin and gives it the class (see
    `_built_as_twin`, below Resolution)."""


@final
@dataclass(frozen=True, slots=True)
class Resolution(metaclass=_BuiltAsTwin):
    """The outcome of rolling (or stating) an action when it is initiated.

    `pt` is the performance time after anything the roll did to it. `margin` is in the
    game's own terms (Q, NOST, result points, stages, "3x7"). `order` is the ruleset's
    ordering key inside a segment (larger first). `summary` is the log line that tells a
    reader what the dice meant. `details` carries game-specific figures (TOML-able).
    """

    pt: int
    success: bool | None = None
    margin: Any = None
    dice: tuple[int, ...] = ()
    summary: str = ""
    effects: tuple[Effect, ...] = ()
    order: tuple[int, ...] = ()
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"pt": self.pt}
        if self.success is not None:
            data["success"] = self.success
        if self.margin is not None:
            data["margin"] = self.margin
        if self.dice:
            data["dice"] = list(self.dice)
        if self.summary:
            data["summary"] = self.summary
        if self.effects:
            data["effects"] = [effect_to_dict(e) for e in self.effects]
        if self.order:
            data["order"] = list(self.order)
        if self.details:
            data["details"] = self.details
        return data

    def __init_subclass__(cls, **kwargs: Any) -> None:
        raise TypeError("Resolution is final: a game's own figures go in its `details`")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Resolution":
        # Positional, and no generator for an empty list: this runs for every declaration
        # of a fight being opened.
        effects = data.get("effects", ())
        return cls(
            data["pt"],
            data.get("success"),
            data.get("margin"),
            tuple(data.get("dice", ())),
            data.get("summary", ""),
            () if effects == [] or effects == () else tuple([effect_from_dict(e) for e in effects]),
            tuple(data.get("order", ())),
            dict(data.get("details", {})),
        )


# A frozen dataclass's __init__ sets each field through object.__setattr__, which costs
# more than the engine's whole handling of some changes; and a Resolution is built for
# every declaration, by the rulesets and by the loader. So `Resolution(...)` is one
# function written out from the field list (as checkpoints' `_combatant_row`): it fills
# an unfrozen twin with the same slots in the same order, plain attribute stores, and
# gives it Resolution's class (as `model.log_entry` builds a log line). The same
# signature and defaults, and the result an ordinary frozen Resolution
# (tests/test_engine_speed.py checks both against the generated one); `details` left
# out, or None, is a new table of its own. Resolution is final: a game's own figures go
# in `details`.
class _ResolutionDraft:
    __slots__ = tuple(f.name for f in fields(Resolution))


def _built_as_twin() -> Callable[..., Resolution]:
    names = [f.name for f in fields(Resolution)]
    defaults = {f"_{f.name}": None if f.name == "details" else f.default for f in fields(Resolution) if f.name != "pt"}
    signature = ", ".join(name if name == "pt" else f"{name}=_{name}" for name in names)
    stores = "".join(f"    made.{name} = {name}\n" for name in names if name != "details")
    code = (
        f"def __call__(cls, {signature}):\n"
        f"    made = new(Draft)\n{stores}"
        f"    made.details = {{}} if details is None else details\n"
        f"    made.__class__ = cls\n"
        f"    return made\n"
    )
    namespace: dict[str, Any] = {"Draft": _ResolutionDraft, "new": object.__new__, **defaults}
    exec(code, namespace)  # noqa: S102 (our own field names)
    made: Callable[..., Resolution] = namespace["__call__"]
    return made


setattr(_BuiltAsTwin, "__call__", _built_as_twin())  # set, not defined: the type checker reads the dataclass's own signature
_dataclass_init = Resolution.__init__
