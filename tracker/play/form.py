"""What the declare form is made of, apart from its steps (`tracker.play.declaring`): where it
stands (`FormStage`), what a step leaves for the screen to show (`Shown`, `FieldChange`),
and the text of its fields and lines: the chance line, an action's summary, a field's
value as typed. No Textual here: the screen (tracker.ui.screens.declare) and the flow
share these.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from fractions import Fraction
from typing import Any

from rulesets.base import ActionTemplate
from rulesets.fields import Field, yes_no
from tracker.play.verbs import at_least


class FormStage(Enum):
    """Where the form is: the choices, the dice, or the result."""

    SETUP = "setup"
    DICE = "dice"
    RESULT = "result"


class Shown(Enum):
    """What a step left for the screen to show."""

    ASKED = "asked"  # the next group of dice is wanted (`step.need`): an empty dice line
    RESULT = "result"  # the result, newly reached: its choices start at their defaults
    UPDATED = "updated"  # the same result, worked out again (an after-roll choice changed)
    SETUP_AGAIN = "setup again"  # back at the choices, as they were typed
    REFUSED = "refused"  # nothing changed but `error`
    COMMITTED = "committed"  # done: `outcome` holds what the session did


@dataclass(frozen=True)
class FieldChange:
    """What a field's change left to show: its own message, what the result became
    (`Shown.UPDATED`, `Shown.ASKED`, `Shown.REFUSED` for an after-roll choice; None: the
    result is not shown), whether the title and the recent actions may have changed, and whether the
    chance line is to be worked out again."""

    error: str
    shown: Shown | None = None
    title: bool = False
    chance: bool = False


def chance_text(chance: Fraction | None, note: str = "") -> str:
    if chance is None:
        return "chance of success: no roll"
    return f"chance of success: {float(chance):.2%} ({chance.numerator}/{chance.denominator})" + (f" · {note}" if note else "")


def template_text(t: ActionTemplate, maintainable: bool) -> str:
    bits = [t.mode, f"PT {t.pt}"]
    if maintainable:
        bits.append("maintainable")
    if t.rolls:
        bits.append(f"rolls {t.rolls}")
    if t.cost:
        bits.append(f"cost {t.cost}")
    text = f"{t.name}: {', '.join(bits)}"
    return text + (f"; {t.description}" if t.description else "")


def int_at_least_1(text: str) -> int:
    return at_least(text, "pt", 1, "a whole number of segments", "at least 1 segment")


def secret_yes_no(text: str) -> bool:
    return yes_no(text.strip() or "false", "secret")  # an emptied field: not secret


def field_text(value: Any) -> str:
    """A value as typed in a field: "" for none, "true"/"false" for a yes or no."""
    return "" if value is None else str(value).lower() if isinstance(value, bool) else str(value)


def default_text(p: Field) -> str:
    """A modifier's starting text in the form ("" when it has no default)."""
    return field_text(p.default)


def split_names(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]
