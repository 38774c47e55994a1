"""The Brand X Action Charts (Square, Sphere, Doubles and the shared Result column).

The printed rows live in `tables.toml` beside this module (a GM may override any row).
Rows past the printed ones are computed:

- Square: n^2 for n >= 1; the fraction of a row n <= 0 is the Result fraction squared.
- Sphere: n for rows 1-8, ceil((4/3)^(n-1)) for rows >= 9 (docs/contributing/design.md#rules-decisions; the printed row 18
  = 133 is data and wins over the formula's 134); fractions (4/3)^(n-1).
- Doubles: 2^(n-1) on both sides.
- Result: n; fractions .9 (row 0), .7 (row -1), 1/|n| below.

Lookups, both ways:

- value -> row ("forward"): the largest chart entry <= the value gives the row (the
  printed rule: Sphere 42 -> 32 -> row 13). A value between 0 and 1 is read against the
  fractional entries the same way. Zero is row 0 (its parenthetical is 0).
- Negative values are mirrored (docs/contributing/design.md#rules-decisions): the row of -v is minus the row of v, so a
  pool of -17 reads -10 and -18 reads -11 as in the seed's movement example. (The
  literal rule on the printed parentheticals would read -17 as -11.) A negative value
  between -1 and 0 reads row 0.
- row -> value ("reverse"): rows >= 1 give the entry; rows <= 0 give the fractional
  entry (with the parenthetical negative entry alongside).
"""

from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from tracker.engine.errors import TrackerError
from rulesets.tables import number, row_number, section

CHART_NAMES = ("square", "sphere", "doubles", "result")
# How far the computed rows reach; beyond this a lookup is an error, not a hang.
MAX_ROW = 2000


def _formula(chart: str, row: int) -> int | float:
    """The chart entry for a row >= 1 that is not printed."""
    if chart == "square":
        return row * row
    if chart == "sphere":
        return row if row <= 8 else math.ceil(Fraction(4, 3) ** (row - 1))
    if chart == "doubles":
        return 2 ** (row - 1)
    return row


def _shown(value: int | float | Fraction) -> str:
    """A value in a message: as %g shows it, or its digits' count past a float's range."""
    try:
        return f"{float(value):g}"
    except OverflowError:  # a whole number past a float's range (Doubles' last rows)
        return f"a number of {len(str(int(value)))} digits"


def _result_fraction(row: int) -> float:
    if row == 0:
        return 0.9
    if row == -1:
        return 0.7
    return 1 / abs(row)


def _fraction_formula(chart: str, row: int) -> float:
    """The fractional entry of a row <= 0 that is not printed."""
    if chart == "square":
        return _result_fraction(row) ** 2
    if chart == "sphere":
        return float(Fraction(4, 3) ** (row - 1))
    if chart == "doubles":
        return 2.0 ** (row - 1)
    return _result_fraction(row)


@dataclass(slots=True)
class Chart:
    """One chart: printed rows from the tables plus computed rows beyond them."""

    name: str
    positive: dict[int, int | float] = field(default_factory=dict)
    fraction: dict[int, float] = field(default_factory=dict)
    negative: dict[int, int | float] = field(default_factory=dict)
    _up: list[int | float] = field(default_factory=list)  # entries of rows 1, 2, ...
    _down: list[float] = field(default_factory=list)  # fractions of rows 0, -1, ...

    @classmethod
    def from_table(cls, name: str, table: dict[str, Any]) -> "Chart":
        chart = cls(name)
        for key, value in table.items():
            row = row_number(key)
            if row is None:
                raise TrackerError(f"tables: [{name}] row {key!r}: expected a whole row number")
            if abs(row) > MAX_ROW:
                raise TrackerError(f"tables: [{name}] row {row}: expected a row from {-MAX_ROW} to {MAX_ROW}")
            if row >= 1:
                if isinstance(value, bool) or not isinstance(value, (int, float)):
                    raise TrackerError(f"tables: [{name}] row {row}: expected a number, got {value!r}")
                # Rows >= 1 read values of 1 and more; below 1 the fractional entries do.
                chart.positive[row] = number(value, f"tables: [{name}] row {row}", 1)
            else:
                if not isinstance(value, dict) or "fraction" not in value:
                    raise TrackerError(
                        f"tables: [{name}] row {row}: expected {{ fraction = ..., negative = ... }}, got {value!r}"
                    )
                extra = sorted(value.keys() - {"fraction", "negative"})
                if extra:
                    raise TrackerError(f"tables: [{name}] row {row}.{extra[0]}: expected only fraction and negative")
                chart.fraction[row] = float(number(value["fraction"], f"tables: [{name}] row {row}.fraction", 0, 1))
                negative = value.get("negative", -_formula(name, -row) if row else 0)
                chart.negative[row] = number(negative, f"tables: [{name}] row {row}.negative", maximum=0)
        chart._check_rising()
        return chart

    def _check_rising(self) -> None:
        """A value is read as the row of the largest entry at or below it, so entries may
        not fall as the row rises (through the first computed row past the printed ones)."""
        if not self.positive:
            return
        previous = self.entry(1)
        for row in range(2, max(self.positive) + 2):
            entry = self.entry(row)
            if entry < previous:
                raise TrackerError(f"tables: [{self.name}] row {row}: expected an entry of at least {previous:g} "
                                   f"(row {row - 1}'s; entries may not fall as the row rises), got {entry:g}")
            previous = entry

    # -------------------------------------------------------------- rows -> values
    def entry(self, row: int) -> int | float:
        """The chart entry of a row >= 1."""
        if row in self.positive:
            return self.positive[row]
        return _formula(self.name, row)

    def fraction_of(self, row: int) -> float:
        """The fractional entry of a row <= 0."""
        if row in self.fraction:
            return self.fraction[row]
        return _fraction_formula(self.name, row)

    def negative_of(self, row: int) -> int | float:
        """The parenthetical negative entry of a row <= 0."""
        if row in self.negative:
            return self.negative[row]
        return -self.entry(-row) if row else 0

    def value(self, row: int) -> int | float:
        """Reverse lookup: the chart's entry for a Result row (a fraction for rows <= 0)."""
        if abs(row) > MAX_ROW:
            raise TrackerError(f"{self.name} chart: row {row} is beyond the charts (at most {MAX_ROW})")
        return self.entry(row) if row >= 1 else self.fraction_of(row)

    # -------------------------------------------------------------- values -> rows
    def _grow_up(self, value: int | float | Fraction) -> None:
        """Grow the entries through the first one above `value`: row MAX_ROW + 1's, which
        is computed to know that a value below it reads row MAX_ROW, and refuses one at it.
        The value is compared exactly (Doubles' last rows are past a float's range)."""
        up = self._up
        while not up or up[-1] <= value:
            if len(up) > MAX_ROW:
                raise TrackerError(f"{self.name} chart: {_shown(value)} is beyond the charts")
            up.append(self.entry(len(up) + 1))

    def _grow_down(self, value: float) -> None:
        """Grow the fractions (rows 0, -1, ...) through the first one at or below `value`,
        as far as row -MAX_ROW's."""
        down = self._down
        while not down or down[-1] > value:
            if len(down) > MAX_ROW:
                raise TrackerError(f"{self.name} chart: {value:g} is too small for the charts")
            down.append(self.fraction_of(-len(down)))

    def row(self, value: int | float | Fraction) -> int:
        """Forward lookup: the Result row of a value (largest entry <= value; negatives mirrored)."""
        if value < 0:
            return -self.row(-value) if value <= -1 else 0
        if value == 0:
            return 0
        if value >= 1:
            self._grow_up(value)
            # Rows are 1-based: the number of entries <= value is the row.
            return bisect_right(self._up, value)
        self._grow_down(float(value))
        # Fractions fall with the row; find the first row whose fraction is <= value.
        for index, frac in enumerate(self._down):
            if frac <= value:
                return -index
        raise TrackerError(f"{self.name} chart: {value} is too small for the charts")  # pragma: no cover


class Charts:
    """The four charts of one ruleset instance (tables as shipped plus house rules)."""

    def __init__(self, tables: dict[str, Any]) -> None:
        self.charts: dict[str, Chart] = {}
        for name in CHART_NAMES:
            if name not in tables:
                raise TrackerError(f"tables: the [{name}] chart is missing")
            self.charts[name] = Chart.from_table(name, dict(section(tables, name, f"tables: [{name}]")))

    def chart(self, name: str) -> Chart:
        found = self.charts.get(name.casefold())
        if found is None:
            raise TrackerError(f"no chart named {name!r} (charts: {', '.join(CHART_NAMES)})")
        return found

    def row(self, name: str, value: int | float | Fraction) -> int:
        return self.chart(name).row(value)

    def value(self, name: str, row: int) -> int | float:
        return self.chart(name).value(row)

    # Shorthands used all over the rules.
    def sphere(self, value: int | float) -> int:
        """A value (a bonus pool, a mass, an ability) read on the Sphere chart."""
        return self.chart("sphere").row(value)

    def square(self, value: int | float) -> int:
        return self.chart("square").row(value)

    def doubles(self, value: int | float) -> int:
        return self.chart("doubles").row(value)


def parse_number(text: Any, what: str) -> int | float:
    """'42' -> 42, '0.5' -> 0.5, '1,329' -> 1329, with a message naming what was expected."""
    if isinstance(text, bool):
        raise TrackerError(f"{what}: expected a number such as 42, got {text!r}")
    if isinstance(text, (int, float)):
        value = text
    else:
        cleaned = str(text).strip().replace(",", "").replace("_", "")
        try:
            value = int(cleaned)
        except ValueError:
            try:
                value = float(cleaned)
            except ValueError:
                raise TrackerError(f"{what}: expected a number such as 42 or 0.5, got {text!r}") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise TrackerError(f"{what}: expected a finite number, got {text!r}")
    return value
