"""The USOR Event Chart: Event Rating -> the dice to roll.

The full chart is not public (reference/systems.md 1.3). Seven rows are known from the
rules text of seed 000 and its worked examples (16, 18, 19, 20, 24, 31, 35); they ship
marked `official`. An eighth, rating 11 = 1d6+1d8, is from the USOR glossary, outside
the seed: it ships in `[glossary_rows]` and is used only with the table setting
`glossary_rows` (off by default), marked `glossary`. Every other rating from 1 to 100
(11 included) ships marked `derived`, filled by this rule (docs/contributing/design.md#rules-decisions), fitted to the
seed's rows only:

1. Fit a least-squares line E(R) = a + b*R through the official rows, where E is the
   row's expected number of successes (each die succeeds on 4+, so a dS contributes
   (S-3)/S). The fit is done in exact fractions (a = 41611/86080 ~ 0.4834,
   b = 4537/86080 ~ 0.05271).
2. For rating R pick, among all sets of 1 to 8 dice drawn from d4, d6, d8, d10, d12 and
   d20, the set whose expected successes is nearest a + b*R.
3. Ties go to the set with fewer dice, then to the set whose sizes, listed from small
   to large, come first (so smaller dice are preferred at equal expectation).

Derived rows are written in `tables.toml` (so a GM can read and override them) and a
test checks that the shipped rows are exactly what this rule computes. A GM's
house-rules file replaces any row; a row it gives without `source` is marked `house`.
A row may list no dice at all (`dice = []`): such a roll scores no successes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import combinations_with_replacement
from typing import Any

from tracker.engine.errors import TrackerError
from rulesets.limits import MAX_TABLE_DICE, MAX_TABLE_SIDES
from rulesets.tables import only, row_number

OFFICIAL = "official"
DERIVED = "derived"
HOUSE = "house"
GLOSSARY = "glossary"  # a row from outside seed 000, used only with the `glossary_rows` setting
SOURCES = (OFFICIAL, DERIVED, HOUSE, GLOSSARY)

# Candidate dice for derived rows: the standard polyhedral set (the d4 included,
# though no official row uses it: low ratings need fewer expected successes).
CANDIDATE_SIZES = (4, 6, 8, 10, 12, 20)
MAX_DICE = 8
FIRST_RATING, LAST_RATING = 1, 100


def success_chance(sides: int) -> Fraction:
    """A die succeeds on 4 or more."""
    return Fraction(max(sides - 3, 0), sides)


def expected_successes(sizes: Iterable[int]) -> Fraction:
    return sum((success_chance(s) for s in sizes), Fraction(0))


@dataclass(frozen=True, slots=True)
class ChartRow:
    rating: int
    dice: tuple[int, ...]
    source: str = OFFICIAL
    note: str = ""

    @property
    def derived(self) -> bool:
        return self.source == DERIVED

    def dice_text(self) -> str:
        """'1d20+2d12' in the row's own order, grouping equal neighbours."""
        if not self.dice:
            return "no dice"
        parts: list[tuple[int, int]] = []
        for size in self.dice:
            if parts and parts[-1][1] == size:
                parts[-1] = (parts[-1][0] + 1, size)
            else:
                parts.append((1, size))
        return "+".join(f"{n}d{s}" for n, s in parts)

    def label(self) -> str:
        """'rating 17 (derived row: 1d10+1d12)': 'derived' shown wherever such a row is used."""
        tag = "" if self.source == OFFICIAL else f"{self.source} row: "
        return f"rating {self.rating} ({tag}{self.dice_text()})"


class EventChart:
    """Rows by rating, read from the `event_chart` table (after any GM override)."""

    def __init__(self, rows: Mapping[int, ChartRow]) -> None:
        self.rows = dict(sorted(rows.items()))

    @classmethod
    def from_table(cls, table: Mapping[str, Any], where: str = "event_chart") -> "EventChart":
        if not isinstance(table, Mapping) or not table:
            raise TrackerError(f"{where}: expected a table of rows such as 16 = {{ dice = [8, 12] }}, got {table!r}")
        rows: dict[int, ChartRow] = {}
        for key, raw in table.items():
            here = f"{where}.{key}"
            rating = row_number(key)
            if rating is None:
                raise TrackerError(f"{here}: expected a whole-number Event Rating as the key")
            if isinstance(raw, list):
                raw = {"dice": raw}
            if not isinstance(raw, Mapping):
                raise TrackerError(f"{here}: expected a row such as {{ dice = [8, 12] }}, got {raw!r}")
            only(raw, ("dice", "source", "note"), here, "field")
            dice = raw.get("dice")
            if not isinstance(dice, list) or len(dice) > MAX_TABLE_DICE or \
                    not all(isinstance(d, int) and not isinstance(d, bool) and 2 <= d <= MAX_TABLE_SIDES for d in dice):
                raise TrackerError(f"{here}.dice: expected a list of die sizes such as [8, 12] (at most {MAX_TABLE_DICE} dice "
                                   f"of 2 to {MAX_TABLE_SIDES} sides), got {dice!r}")
            source = raw.get("source", HOUSE)
            if source not in SOURCES:
                raise TrackerError(f"{here}.source: expected one of {', '.join(SOURCES)}, got {source!r}")
            note = raw.get("note", "")
            if not isinstance(note, str):
                raise TrackerError(f"{here}.note: expected text, got {note!r}")
            rows[rating] = ChartRow(rating, tuple(dice), source, note)
        return cls(rows)

    def row(self, rating: int, what: str = "") -> ChartRow:
        """The row for `rating`; `what` names the roll in the message ('strike rating -2 (...)')."""
        found = self.rows.get(rating)
        if found is None:
            low, high = min(self.rows), max(self.rows)
            raise TrackerError(
                f"{what or f'rating {rating}'} is not on the Event Chart (rows {low} to {high}); "
                f"add a row for it in a house-rules file ([event_chart] {rating} = {{ dice = [...] }})"
            )
        return found

    def with_rows(self, table: Mapping[str, Any], source: str, where: str) -> "EventChart":
        """This chart with the rows of `table` put in place, marked `source`."""
        if not isinstance(table, Mapping):
            raise TrackerError(f"{where}: expected a table of rows such as 11 = {{ dice = [6, 8] }}, got {table!r}")
        extra = EventChart.from_table(table, where).rows if table else {}
        return EventChart({**self.rows, **{r: ChartRow(r, row.dice, source, row.note) for r, row in extra.items()}})

    def official(self) -> dict[int, tuple[int, ...]]:
        return {r: row.dice for r, row in self.rows.items() if row.source == OFFICIAL}


# ---------------------------------------------------------------- the derivation rule
def trend(official: Mapping[int, Iterable[int]]) -> tuple[Fraction, Fraction]:
    """Exact least-squares (a, b) of expected successes against rating."""
    points = [(Fraction(r), expected_successes(d)) for r, d in official.items()]
    if len(points) < 2:
        raise TrackerError("the Event Chart needs at least two official rows to derive the others")
    n = len(points)
    zero = Fraction(0)  # exact sums: a plain 0 to start would type them as maybe int
    mean_x = sum((x for x, _ in points), zero) / n
    mean_y = sum((y for _, y in points), zero) / n
    sxx = sum(((x - mean_x) ** 2 for x, _ in points), zero)
    sxy = sum(((x - mean_x) * (y - mean_y) for x, y in points), zero)
    b = sxy / sxx
    return mean_y - b * mean_x, b


@lru_cache(maxsize=1)
def _candidates() -> tuple[tuple[Fraction, tuple[int, ...]], ...]:
    found = []
    for count in range(1, MAX_DICE + 1):
        for sizes in combinations_with_replacement(CANDIDATE_SIZES, count):
            found.append((expected_successes(sizes), sizes))
    return tuple(found)


def nearest_set(target: Fraction) -> tuple[int, ...]:
    """The dice set (sizes small to large) whose expectation is nearest `target`."""
    best = min(_candidates(), key=lambda c: (abs(c[0] - target), len(c[1]), c[1]))
    return best[1]


def derive_rows(official: Mapping[int, Iterable[int]], first: int = FIRST_RATING, last: int = LAST_RATING) -> dict[int, tuple[int, ...]]:
    """Dice for every rating in [first, last] that has no official row."""
    a, b = trend(official)
    return {r: nearest_set(a + b * r) for r in range(first, last + 1) if r not in official}


def render_toml(official: Mapping[int, tuple[tuple[int, ...], str]]) -> str:
    """The `[event_chart]` table as shipped: official rows with their notes, derived rows.

    Used to write tables.toml; kept here so the file can be regenerated by the rule.
    """
    derived = derive_rows({r: d for r, (d, _) in official.items()})
    lines = ["[event_chart]"]
    for rating in range(FIRST_RATING, LAST_RATING + 1):
        if rating in official:
            dice, note = official[rating]
            lines.append(f'{rating} = {{ dice = {list(dice)}, source = "official", note = "{note}" }}')
        else:
            lines.append(f'{rating} = {{ dice = {list(derived[rating])}, source = "derived" }}')
    return "\n".join(lines) + "\n"
