"""Typed fields for sheets, settings and action modifiers, with named validation."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

from tracker.engine.errors import TrackerError

STAT = "stat"
RESOURCE = "resource"
PARAM = "param"
SETTING = "setting"

# Where the declare form offers an action modifier (`Field.stage`): MAIN fields are the
# few that matter for the action, shown at once; MORE fields are one key away;
# AFTER_ROLL fields are the choices a game makes after seeing the dice (Brand X Q,
# ORE wiggle dice), offered once the roll is known and before the action is committed.
MAIN = "main"
MORE = "more"
AFTER_ROLL = "after_roll"


class FieldError(TrackerError):
    """A value that does not fit its field. `where` is the path (file, table, key)."""

    def __init__(self, where: str, expected: str, got: Any) -> None:
        super().__init__(f"{where}: expected {expected}, got {got!r}")
        self.where = where
        self.expected = expected


YES_WORDS = ("true", "yes")
NO_WORDS = ("false", "no")
YES_NO = "true or false (or yes or no)"


def yes_no(raw: Any, where: str) -> bool:
    """A yes/no option (`secret=`, `hidden=`, `throwback=`, a bool setting): true or
    false, or yes or no, in any case; anything else is refused with the accepted words.

    Only these words: a typo (`secret=ture`) or a guess (`hidden=1`, `on`) must not
    quietly mean either answer, since one of them shows a secret roll to the table."""
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, str):
        word = raw.strip().lower()
        if word in YES_WORDS:
            return True
        if word in NO_WORDS:
            return False
    raise FieldError(where, YES_NO, raw)


@dataclass(frozen=True, slots=True)
class Field:
    """One named value: a stat, a tracked resource, a setting, or an action modifier.

    kind is "int", "float", "str", "bool" or "choice"; numbers may have bounds.
    """

    name: str
    kind: str = "int"
    default: Any = None
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] = ()
    role: str = STAT
    help: str = ""
    stage: str = MAIN

    def expected(self) -> str:
        if self.kind == "choice":
            return "one of " + ", ".join(self.choices)
        if self.kind == "bool":
            return YES_NO
        if self.kind == "str":
            return "text"
        noun = "an integer" if self.kind == "int" else "a number"
        if self.minimum is not None and self.maximum is not None:
            return f"{noun} from {self.minimum:g} to {self.maximum:g}"
        if self.minimum is not None:
            return f"{noun} of at least {self.minimum:g}"
        if self.maximum is not None:
            return f"{noun} of at most {self.maximum:g}"
        return noun

    def coerce(self, raw: Any, where: str | None = None) -> Any:
        """Turn typed text or stored data into the field's value, or raise FieldError."""
        where = where or self.name
        value: Any
        try:
            if self.kind == "int":
                if isinstance(raw, bool):
                    raise ValueError
                if isinstance(raw, float):
                    if not raw.is_integer():
                        raise ValueError
                    raw = int(raw)
                value = int(raw) if isinstance(raw, int) else int(str(raw).strip())
            elif self.kind == "float":
                if isinstance(raw, bool):
                    raise ValueError
                value = float(raw)
            elif self.kind == "bool":
                value = yes_no(raw, where)
            elif self.kind == "choice":
                value = str(raw)
                if value not in self.choices:
                    raise ValueError
            else:
                if not isinstance(raw, (str, int, float)) or isinstance(raw, bool):
                    raise ValueError
                value = str(raw)
        except (TypeError, ValueError):
            raise FieldError(where, self.expected(), raw) from None
        if self.kind in ("int", "float"):
            if (self.minimum is not None and value < self.minimum) or (
                self.maximum is not None and value > self.maximum
            ):
                raise FieldError(where, self.expected(), raw)
        return value


def coerce_all(fields: tuple[Field, ...], values: dict[str, Any], where: str, *, fill: bool = True, extra_ok: bool = False) -> dict[str, Any]:
    """Validate `values` against `fields`; unknown keys are an error unless `extra_ok`."""
    by_name = {f.name: f for f in fields}
    out: dict[str, Any] = {}
    for key, raw in values.items():
        field = by_name.get(key)
        if field is None:
            if extra_ok:
                out[key] = raw
                continue
            known = ", ".join(by_name) or "none"
            raise FieldError(f"{where}.{key}", f"one of the known keys ({known})", key)
        out[key] = field.coerce(raw, f"{where}.{key}")
    if fill:
        for field in fields:
            if field.name not in out and field.default is not None:
                out[field.name] = field.default
    return out


def staged(fields: tuple[Field, ...], main: Iterable[str] = (), after_roll: Iterable[str] | Callable[[str], bool] = ()) -> tuple[Field, ...]:
    """The same fields with their declare-form stage set: those named in `main` are
    MAIN, those in `after_roll` (names, or a test on the name) AFTER_ROLL, the rest MORE."""
    wanted = set(main)
    later = after_roll if callable(after_roll) else set(after_roll).__contains__
    out = []
    for f in fields:
        stage = AFTER_ROLL if later(f.name) else MAIN if f.name in wanted else MORE
        out.append(replace(f, stage=stage))
    return tuple(out)
