"""D6 die codes: 'XD+Y' is X six-sided dice plus Y pips.

Parsing accepts a sum of terms, so a bonus can be written where it applies:
'4D+2', '3d+1', '4D+1D' (a shovel's +1D on lifting 4D rolls five dice), '5D-1D+2',
'+1D', '-2', '2d6+1' (the '6' after D is allowed). Dice bonuses add dice; number
bonuses add to the total rolled (the seed: "If the bonus is in the form of a number
(such as +2), then you add the amount to the total that you rolled").

Pip arithmetic: three pips make a die when a code moves along the ladder
1D, 1D+1, 1D+2, 2D, ... (`advance`, `normalized`). A roll never carries pips into
dice on its own: 4D+3 (4D and a Slightly Advantaged +3) rolls four dice and adds 3,
which is not the same distribution as 5D.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tracker.engine.errors import TrackerError

_TERM = re.compile(r"([+-]?)(\d*)\s*(?:([dD])(?:6(?!\d))?)?")
EXAMPLE = "a die code such as 3D, 4D+2 or 2D-1"


class DieCodeError(TrackerError):
    """A die code that does not parse (the message shows the expected form)."""


@dataclass(frozen=True, slots=True, order=True)
class DieCode:
    dice: int
    pips: int = 0

    def __add__(self, other: "DieCode") -> "DieCode":
        return DieCode(self.dice + other.dice, self.pips + other.pips)

    def advance(self, pips: int) -> "DieCode":
        """Move `pips` steps along the ladder 1D, 1D+1, 1D+2, 2D (negative steps back)."""
        steps = self.dice * 3 + self.pips + pips
        return DieCode(steps // 3, steps % 3)

    def normalized(self) -> "DieCode":
        """Carry every three pips into a die: 2D+5 -> 3D+2, 3D-1 -> 2D+2."""
        return self.advance(0)

    def __str__(self) -> str:
        if self.dice == 0 and self.pips:
            return f"{self.pips:+d}"
        text = f"{self.dice}D"
        if self.pips:
            text += f"{self.pips:+d}"
        return text

    def signed(self) -> str:
        """'+1D', '-1D+2', '+3': how a modifier is written."""
        text = str(self)
        return text if text.startswith(("+", "-")) else f"+{text}"


def parse(text: str, what: str = "die code") -> DieCode:
    """Parse a die code or a sum of them, or raise DieCodeError naming `what`."""
    if not isinstance(text, str):
        raise DieCodeError(f"{what}: expected {EXAMPLE}, got {text!r}")
    compact = text.replace(" ", "")
    if not compact:
        raise DieCodeError(f"{what}: expected {EXAMPLE}, got an empty value")
    dice = pips = 0
    pos = 0
    first = True
    while pos < len(compact):
        match = _TERM.match(compact, pos)
        if match is None or match.end() == pos:
            raise DieCodeError(f"{what}: expected {EXAMPLE}, got {text!r}")
        sign, number, d = match.groups()
        if not first and not sign:
            raise DieCodeError(f"{what}: expected {EXAMPLE}, got {text!r}")
        if not number and not d:
            raise DieCodeError(f"{what}: expected {EXAMPLE}, got {text!r}")
        value = int(number) if number else 1
        if d and not number:
            # 'D' alone means one die ('+D'); keep it, it is unambiguous.
            value = 1
        factor = -1 if sign == "-" else 1
        if d:
            dice += factor * value
        else:
            pips += factor * value
        pos = match.end()
        first = False
    return DieCode(dice, pips)


def parse_pool(text: str, what: str = "die code", minimum: int = 1) -> DieCode:
    """A code to roll: at least `minimum` dice (a skill reduced to 0D cannot be used)."""
    code = parse(text, what)
    if code.dice < minimum:
        raise DieCodeError(f"{what}: {text!r} has {code.dice} dice; a roll needs at least {minimum}D")
    return code


def strength_damage(code: DieCode) -> DieCode:
    """Half the dice, rounded up, pips dropped (Physique 3D -> 2D; lifting 6D+2 -> 3D)."""
    return DieCode(-(-max(code.dice, 0) // 2), 0)
