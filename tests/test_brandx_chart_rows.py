"""Brand X Action Chart rows that no printed row covers (seed 004 and the Action Chart,
reference/brandx.md 2.1-2.2).

The seed reads the charts past their printed ends: "His Bonus Pool is now -18 (for a
penalty of 11)" (a negative pool), "resulting in fractional throwback" (rows below 0).
The adapter computes such rows from the chart's pattern (rulesets/brandx/charts.py):
Square n^2, Sphere n for rows 1-8 then ceil((4/3)^(n-1)), Doubles 2^(n-1), Result n;
fractions: Result .9 (row 0), .7 (row -1), 1/|n| below, Square the Result fraction
squared, Sphere (4/3)^(n-1), Doubles 2^(n-1); a row's negative entry is minus the entry
of the mirrored positive row.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rulesets.brandx import BrandXRuleset
from rulesets.brandx.charts import CHART_NAMES, Chart
from tests.helpers import cli
from tracker.engine.errors import TrackerError

# The printed chart (reference/brandx.md 2.1), copied by hand: row -> fractional entry
# for rows 0, -1, -2, -3 and -13, and the parenthetical negative entry of rows -1, -9
# and -13.
PRINTED_FRACTIONS = {
    "result": {0: 0.9, -1: 0.7, -2: 0.5, -3: 0.33, -13: 0.077},
    "square": {0: 0.81, -1: 0.49, -2: 0.25, -3: 0.11, -13: 0.0059},
    "sphere": {0: 0.75, -1: 0.56, -2: 0.42, -3: 0.32, -13: 0.018},
    "doubles": {0: 0.5, -1: 0.25, -2: 0.13, -3: 0.063, -13: 0.000061},
}
PRINTED_NEGATIVES = {
    "result": {-1: -1, -9: -9, -13: -13},
    "square": {-1: -1, -9: -81, -13: -169},
    "sphere": {-1: -1, -9: -10, -13: -32},
    "doubles": {-1: -1, -9: -256, -13: -4096},
}
# Rows 1, 4, 8, 9, 13, 36 as printed (Sphere row 18 = 133 is printed data, not the pattern).
PRINTED_ENTRIES = {
    "result": {1: 1, 4: 4, 8: 8, 9: 9, 13: 13, 36: 36},
    "square": {1: 1, 4: 16, 8: 64, 9: 81, 13: 169, 36: 1296},
    "sphere": {1: 1, 4: 4, 8: 8, 9: 10, 13: 32, 36: 23597},
    "doubles": {1: 1, 4: 8, 8: 128, 9: 256, 13: 4096, 36: 2**35},
}


@pytest.mark.parametrize("name", CHART_NAMES)
def test_the_charts_pattern_gives_the_printed_rows(name: str) -> None:
    """A chart with no printed rows at all falls back on the pattern everywhere; the
    pattern must then give the printed figures (to the printed two figures for the
    fractions, exactly for the entries). By hand, e.g. Square row -1: .7 squared = .49;
    Sphere row -1: (3/4)^2 = .5625 -> .56; Doubles row -2: 2^-3 = .125 -> .13; Result row
    -13: 1/13 = .0769 -> .077; Sphere row 9: (4/3)^8 = 9.99 -> 10; the negative entry of
    Sphere row -9 is minus row 9's 10."""
    bare = Chart.from_table(name, {})
    for row, printed in PRINTED_FRACTIONS[name].items():
        assert bare.value(row) == pytest.approx(printed, rel=0.05), (name, row)
    for row, printed in PRINTED_ENTRIES[name].items():
        assert bare.value(row) == printed, (name, row)
    for row, printed in PRINTED_NEGATIVES[name].items():
        assert bare.negative_of(row) == printed, (name, row)
    assert bare.negative_of(0) == 0


def test_a_negative_value_below_the_printed_rows_reads_the_mirrored_entry() -> None:
    """The seed's movement example ("His Bonus Pool is now -18 (for a penalty of 11)")
    reads a negative pool on the mirrored side (docs/contributing/design.md#rules-decisions). The printed negatives stop
    at -32 (Sphere row -13). By hand: -50 lies between the Sphere entries 43 (row 14) and
    57 (row 15), so it reads row -14, whose negative entry is -43; the reverse lookup of
    row -14 gives the fraction (3/4)^15 = .0134 and the negative entry -43. Square: -200
    lies between 196 (row 14) and 225, so row -14, entry -196."""
    rs = BrandXRuleset()
    sphere = rs.chart_lookup("sphere", "-50")
    assert sphere["row"] == -14 and sphere["entry"] == -43
    back = rs.chart_lookup("sphere", "-14", reverse=True)
    assert back["negative"] == -43 and back["result"] == pytest.approx(0.75 ** 15)
    square = rs.chart_lookup("square", "-200")
    assert square["row"] == -14 and square["entry"] == -196
    # Within the printed rows the printed negative entry stands: -10 reads Sphere row -9 (-10).
    assert rs.chart_lookup("sphere", "-10")["entry"] == -10


def test_the_reverse_lookup_of_row_1_prints_the_whole_entry() -> None:
    """Row 1 is the first whole row of every chart (Square 1, Sphere 1, Doubles 1,
    Result 1): `tracker chart NAME 1 --reverse` prints 1, not a fraction such as 1.0."""
    for name in CHART_NAMES:
        assert cli("chart", name, "1", "--reverse") == (0, "1\n"), name


def test_a_chart_value_is_read_as_typed_and_a_non_finite_one_is_refused() -> None:
    """The command line reads a value as the GM types it. By hand on the Sphere chart:
    0.5 lies between .42 (row -2) and .56 (row -1), so it reads row -2; "1,329" is the
    printed entry of row 26. "inf" and "nan" are no numbers a chart holds: refused,
    naming the value."""
    rs = BrandXRuleset()
    assert rs.chart_lookup("sphere", "0.5")["row"] == -2
    assert rs.chart_lookup("sphere", "1,329")["row"] == 26
    for text in ("inf", "nan"):
        with pytest.raises(TrackerError, match="chart sphere VALUE: expected a finite number"):
            rs.chart_lookup("sphere", text)


def test_a_negative_value_above_minus_one_reads_row_0() -> None:
    """docs/contributing/design.md#rules-decisions (rulesets/brandx/charts.py): negative values are mirrored, and "a
    negative value between -1 and 0 reads row 0", as 0 itself does (its parenthetical is
    0). By hand: -0.5 and -0.99 read row 0 on every chart; -1 reads row -1."""
    charts = BrandXRuleset().charts
    for name in CHART_NAMES:
        assert [charts.row(name, v) for v in (-0.5, -0.99, 0, -1)] == [0, 0, 0, -1], name


def test_a_house_fraction_row_without_its_negative_entry_mirrors_the_positive_row(tmp_path: Path) -> None:
    """tables.toml: a GM overrides any row with a house-rules file of the same shape. A
    fraction row that gives no `negative` takes the mirror of its positive row. By hand:
    Square row -3 set to { fraction = 0.1 } keeps the negative entry -9 (row 3 is 9);
    Sphere row -10 set to { fraction = 0.04 } gets -14 (row 10 is 14); row 0 set to
    { fraction = 0.8 } keeps 0 (the mirror of 0)."""
    rules = tmp_path / "house.toml"
    rules.write_text("[square]\n-3 = { fraction = 0.1 }\n0 = { fraction = 0.8 }\n[sphere]\n-10 = { fraction = 0.04 }\n", encoding="utf-8")
    charts = BrandXRuleset(rules).charts
    assert charts.value("square", -3) == 0.1 and charts.chart("square").negative_of(-3) == -9
    assert charts.chart("sphere").negative_of(-10) == -14
    assert charts.value("square", 0) == 0.8 and charts.chart("square").negative_of(0) == 0


@pytest.mark.parametrize("row,text,message", [
    ("5", '"lots"', r"tables: \[sphere\] row 5: expected a number, got 'lots'"),
    ("5", "true", r"tables: \[sphere\] row 5: expected a number, got True"),
    ("-3", "0.3", r"tables: \[sphere\] row -3: expected \{ fraction = \.\.\., negative = \.\.\. \}, got 0\.3"),
    ("-3", "{ negative = -3 }", r"tables: \[sphere\] row -3: expected \{ fraction = \.\.\., negative = \.\.\. \}"),
])
def test_a_bad_house_chart_row_is_refused_naming_chart_and_row(tmp_path: Path, row: str, text: str, message: str) -> None:
    """A house row >= 1 is a number; a row <= 0 is { fraction = ..., negative = ... }
    with at least the fraction. Anything else is refused, naming the chart and row."""
    rules = tmp_path / "house.toml"
    rules.write_text(f"[sphere]\n{row} = {text}\n", encoding="utf-8")
    with pytest.raises(TrackerError, match=message):
        _ = BrandXRuleset(rules).charts
