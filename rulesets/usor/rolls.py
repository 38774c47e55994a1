"""Event Rolls: roll the chart's dice, count successes, compare with the rival roll.

Every die that shows 4 or more is one success, whatever its size. Rolls are always
opposed. Between two characters a draw is a win for neither (docs/contributing/design.md#rules-decisions: each must act
again and pay the Action Time again); against an event (a falling boulder, a corner
taken at speed) both sides roll again until one wins. NOST, the Number of Successes
over Target, is the winner's margin.

Dice are read in the chart row's order (`--faces`: the chart's dice in order); against
an event, each repeat appends one more set for each side.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tracker.engine.errors import TrackerError
from rulesets.dice import DiceSource, roll_group
from rulesets.usor.chart import OFFICIAL, ChartRow

SUCCESS_FACE = 4
SELF, RIVAL, DRAW = "self", "rival", "draw"
# A safety stop for "roll until one side wins": with any die on either side a draw
# has probability below 1, so this is only reached by a broken source or chart.
MAX_REPEATS = 1000


def count_successes(faces: list[int] | tuple[int, ...]) -> int:
    return sum(1 for f in faces if f >= SUCCESS_FACE)


@dataclass(frozen=True, slots=True)
class EventRoll:
    """One Event Roll: the chart row used and the faces it showed."""

    row: ChartRow
    faces: tuple[int, ...]

    @property
    def successes(self) -> int:
        return count_successes(self.faces)

    def text(self, head: str | None = None) -> str:
        """'strike 14 (attack 20, right arm -6) [1d6+1d12, derived row]: d6 5, d12 9 -> 2 successes'."""
        shown = ", ".join(f"d{s} {f}" for s, f in zip(self.row.dice, self.faces)) or "no dice"
        n = self.successes
        if head is None:
            lead = self.row.label()
        else:
            tag = "" if self.row.source == OFFICIAL else f", {self.row.source} row"
            lead = f"{head} [{self.row.dice_text()}{tag}]"
        return f"{lead}: {shown} -> {n} success{'es' if n != 1 else ''}"


def roll_row(row: ChartRow, dice: DiceSource, label: str = "", who: str = "") -> EventRoll:
    """Roll one side's Event Roll as one dice group ("dodge (row 16)"); `who` names a
    roller other than the actor (the defender, the GM for an event)."""
    head = f"{label} (Event Chart row {row.rating})" if label else f"Event Chart row {row.rating}"
    return EventRoll(row, tuple(roll_group(dice, head, row.dice, who)))


@dataclass(frozen=True, slots=True)
class Exchange:
    """One pair of rolls and who won it."""

    own: EventRoll
    rival: EventRoll

    @property
    def winner(self) -> str:
        a, b = self.own.successes, self.rival.successes
        return SELF if a > b else RIVAL if b > a else DRAW

    @property
    def margin(self) -> int:
        """Own successes minus the rival's: the NOST, signed from this side's view."""
        return self.own.successes - self.rival.successes


@dataclass(frozen=True, slots=True)
class Contest:
    """An opposed Event Roll, possibly repeated (against an event) until one side wins."""

    exchanges: tuple[Exchange, ...]
    against_event: bool = False

    @property
    def last(self) -> Exchange:
        return self.exchanges[-1]

    @property
    def winner(self) -> str:
        return self.last.winner

    @property
    def margin(self) -> int:
        return self.last.margin

    @property
    def nost(self) -> int:
        """The winner's NOST (0 on a draw)."""
        return abs(self.last.margin)

    def own_faces(self) -> list[int]:
        return [f for x in self.exchanges for f in x.own.faces]

    def rival_faces(self) -> list[int]:
        return [f for x in self.exchanges for f in x.rival.faces]

    def text(self, own: str = "self", rival: str = "rival", own_head: str | None = None, rival_head: str | None = None) -> str:
        lines = []
        for i, x in enumerate(self.exchanges, 1):
            head = f"roll {i}: " if len(self.exchanges) > 1 else ""
            a = x.own.text(own_head) if own_head else f"{own} {x.own.text()}"
            b = x.rival.text(rival_head) if rival_head else f"{rival} {x.rival.text()}"
            lines.append(f"{head}{a} vs {b}")
        if self.winner == DRAW:
            lines.append(f"draw ({self.last.own.successes} each): neither side wins")
        else:
            who = own if self.winner == SELF else rival
            lines.append(f"{who} wins, NOST {self.nost}")
        return "; ".join(lines)


def contest(
    own: ChartRow, rival: ChartRow, dice: DiceSource, rival_dice: DiceSource, *, against_event: bool,
    own_label: str = "", rival_label: str = "", rival_who: str = "",
) -> Contest:
    """Roll both sides; against an event, repeat on a draw until one side wins.
    The labels name each side's dice group for a person typing the faces."""
    if against_event and not own.dice and not rival.dice:
        raise TrackerError("both rows have no dice, so the roll against the event could never be decided")
    exchanges: list[Exchange] = []
    for _ in range(MAX_REPEATS):
        again = f" (roll {len(exchanges) + 1})" if exchanges else ""
        x = Exchange(
            roll_row(own, dice, own_label + again if own_label else ""),
            roll_row(rival, rival_dice, rival_label + again if rival_label else "", rival_who),
        )
        exchanges.append(x)
        if not against_event or x.winner != DRAW:
            return Contest(tuple(exchanges), against_event)
    raise TrackerError(f"no winner after {MAX_REPEATS} repeated rolls against the event")


@dataclass(frozen=True, slots=True)
class Rating:
    """An Event Rating with how it was made up, for the log ('attack 16, head -10')."""

    value: int
    parts: tuple[tuple[str, int], ...] = field(default_factory=tuple)

    @property
    def name(self) -> str:
        """What is rolled: the first part's name ('agility', or 'rating' for a number given)."""
        return self.parts[0][0] if self.parts else ""

    def text(self, label: str | None = None) -> str:
        """'agility 18' when unmodified, 'strike 14 (attack 20, right arm -6)' otherwise."""
        if not self.parts:
            return f"{label} {self.value}" if label else str(self.value)
        (first, base), rest = self.parts[0], [(n, v) for n, v in self.parts[1:] if v]
        if not rest:
            return f"{label or first} {base}"
        shown = ", ".join([f"{first} {base}", *(f"{n} {v:+d}" for n, v in rest)])
        return f"{label + ' ' if label else ''}{self.value} ({shown})"


def rating_of(*parts: tuple[str, int]) -> Rating:
    return Rating(sum(v for _, v in parts), tuple(parts))


def parse_rating(spec: str, what: str = "rating") -> int:
    """'16' -> 16; '12+4' -> 16; '35-4' -> 31 (a rating with its situational modifiers)."""
    text = spec.replace(" ", "")
    if not text:
        raise TrackerError(f"{what}: expected an Event Rating such as 16 or 35-4")
    total, number, sign, seen, signed = 0, "", 1, False, False
    for ch in text + "+":
        if ch.isdigit():
            number += ch
            continue
        if ch in "+-":
            if number:
                total += sign * int(number)
                number, seen, signed = "", True, False
            elif seen or signed or ch == "+":  # "12++4", "--4": a sign with no number
                raise TrackerError(f"{what}: expected an Event Rating such as 16 or 35-4, got {spec!r}")
            else:
                signed = True  # a leading minus
            sign = 1 if ch == "+" else -1
            continue
        raise TrackerError(f"{what}: expected an Event Rating such as 16 or 35-4, got {spec!r}")
    return total
