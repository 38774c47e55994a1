"""Direct tests of rulesets.brandx.charts at its edges: the charts' rows run from -2000 to
2000 (`MAX_ROW`), both ways, and a GM's printed rows are checked as the rules read them.

Why: the rows past the printed ones are grown on demand, and the tests of the printed
rows (rows -13 to 39) never reach the last rows, where a lookup must still answer and
one row further must be refused by name rather than grown for ever. Expected values are
worked from the module docstring: Result n and 1/|n| below row -1, Square n^2,
Doubles 2^(n-1); "the largest chart entry <= the value gives the row"; zero's
parenthetical is 0; rows >= 1 read values of 1 and more.
"""

from __future__ import annotations

import pytest

from rulesets.brandx.charts import MAX_ROW, Chart
from tracker.engine.errors import TrackerError
from tests.helpers import cli


def test_the_charts_reach_row_2000_either_way() -> None:
    assert MAX_ROW == 2000
    result = Chart("result")
    assert result.value(2000) == 2000 and result.value(-2000) == 1 / 2000
    with pytest.raises(TrackerError, match=r"^result chart: row 2001 is beyond the charts \(at most 2000\)$"):
        result.value(2001)
    with pytest.raises(TrackerError, match=r"^result chart: row -2001 is beyond the charts \(at most 2000\)$"):
        result.value(-2001)


def test_a_value_on_the_last_rows_reads_them() -> None:
    # Result: 2000 is row 2000's entry, 2000.5 lies below row 2001's (2001).
    assert Chart("result").row(2000) == 2000
    assert Chart("result").row(2000.5) == 2000
    assert Chart("result").row(1999.5) == 1999
    # Square: 2000^2 = 4,000,000 is row 2000; 4,004,000 is still below 2001^2 = 4,004,001.
    assert Chart("square").row(4_000_000) == 2000
    assert Chart("square").row(4_004_000) == 2000
    # Negatives mirror: -2000 on the Result chart is row -2000.
    assert Chart("result").row(-2000) == -2000
    # Fractions: 1/2000 is row -2000's fraction, 1/1999 row -1999's.
    assert Chart("result").row(1 / 2000) == -2000
    assert Chart("result").row(1 / 1999) == -1999
    # Square's fractions: 1/n^2 below row -1.
    assert Chart("square").row(1 / 2000**2) == -2000


def test_one_row_past_the_last_is_refused_by_name() -> None:
    with pytest.raises(TrackerError, match=r"^result chart: 2001 is beyond the charts$"):
        Chart("result").row(2001)  # row 2001's entry
    with pytest.raises(TrackerError, match=r"^square chart: 4\.004e\+06 is beyond the charts$"):
        Chart("square").row(4_004_001)
    with pytest.raises(TrackerError, match=r"^result chart: 0\.0004 is too small for the charts$"):
        Chart("result").row(0.0004)  # 1/2500: below row -2000's 1/2000
    with pytest.raises(TrackerError, match=r"^result chart: 2001 is beyond the charts$"):
        Chart("result").row(-2001)


def test_the_doubles_last_rows_are_read_exactly() -> None:
    """Doubles' entries pass a float's range near row 1025 (2^1024); the chart's last
    rows are whole numbers all the same, read exactly, and one past them is refused."""
    doubles = Chart("doubles")
    assert doubles.value(2000) == 2**1999
    assert doubles.row(2**1999) == 2000
    assert doubles.row(2**2000 - 1) == 2000
    assert doubles.row(2**1100 + 1) == 1101
    with pytest.raises(TrackerError, match=r"^doubles chart: a number of 603 digits is beyond the charts$"):
        doubles.row(2**2000)


def test_a_house_row_may_be_the_last_row() -> None:
    chart = Chart.from_table("result", {"2000": 2000.5, "-2000": {"fraction": 0.0004, "negative": -2000}})
    assert chart.value(2000) == 2000.5 and chart.value(-2000) == 0.0004
    with pytest.raises(TrackerError, match=r"^tables: \[result\] row 2001: expected a row from -2000 to 2000$"):
        Chart.from_table("result", {"2001": 2001})
    with pytest.raises(TrackerError, match=r"^tables: \[result\] row -2001: expected a row from -2000 to 2000$"):
        Chart.from_table("result", {"-2001": {"fraction": 0.0004}})


@pytest.mark.parametrize("value", [0.5, 0, -3])
def test_a_row_at_or_above_1_reads_values_of_1_and_more(value: float) -> None:
    with pytest.raises(TrackerError, match=rf"^tables: \[result\] row 1: expected a number of at least 1, got {value}$"):
        Chart.from_table("result", {"1": value})
    assert Chart.from_table("result", {"1": 1}).value(1) == 1


def test_row_zero_without_its_negative_has_the_parenthetical_0() -> None:
    # Doubles' formula would give row 0 a mirror of 2^-1; zero's parenthetical is 0.
    chart = Chart.from_table("doubles", {"0": {"fraction": 0.6}, "-2": {"fraction": 0.2}})
    assert chart.fraction_of(0) == 0.6 and chart.negative_of(0) == 0
    # Below row 0 the parenthetical mirrors the row above it: Doubles row 2 is 2.
    assert chart.negative_of(-2) == -2


def test_tracker_chart_reads_a_doubles_value_of_hundreds_of_digits(capsys: pytest.CaptureFixture[str]) -> None:
    # 10^400 = 2^1328.77...: the largest Doubles entry at or below it is 2^1328, row 1329.
    code, out = cli("chart", "doubles", "1" + "0" * 400)
    assert code == 0 and out.strip() == "1329"
    # 10^700 is past 2^2000 (row 2001's entry, 603 digits): refused by name.
    code, out = cli("chart", "doubles", "1" + "0" * 700)
    assert code == 1 and out == ""
    assert "doubles chart: a number of 701 digits is beyond the charts" in capsys.readouterr().err
