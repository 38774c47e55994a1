"""Direct tests of tracker.reading.charts: the glyphs, figures and charts of `tracker stats`, the
app's stats screen and the HTML export, each worked by hand from the module docstring
(active `▀`, passive `▄`, both at once `█`, maintained `▒` (`▓` over passive), `┤` where
an action completed, `×` where it was cut, `┄` while a condition lasts, `↯` where a
throwback landed) on small figures made here."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from fractions import Fraction

import pytest

from tracker.engine.text import cells
from tracker.reading import charts
from tracker.reading.stats import Bar, FightStats, Luck, Row, Tally


def _stats(rows: list[Row], now: int, by_round: dict[str, list[int | float]] | None = None, rounds: int = 1, round_name: str = "round") -> FightStats:
    return FightStats("duel", "freeform", now, rounds, round_name, 10, False, [Tally("Ann")], [Tally("Ann")], rows, by_round or {}, [])


# ------------------------------------------------------------------ small pieces
def test_the_glyph_of_a_bar_is_maintained_else_active_or_passive() -> None:
    from tracker.reading.glyphs import bar_glyph

    assert bar_glyph("active", False) == "▀"
    assert bar_glyph("passive", False) == "▄"
    assert bar_glyph("active", True) == "▒"
    assert bar_glyph("passive", True) == "▒"


@pytest.mark.parametrize(("table", "withheld", "text"), [
    ({"hp": 4}, False, "hp 4"),
    ({"hp": 4.0, "ep": 2.5}, False, "hp 4, ep 2.5"),
    ({"hp": 1 / 3}, False, "hp 0.33"),
    ({"hp": 2.50}, False, "hp 2.5"),
    ({"hp": 2.0049}, False, "hp 2"),  # two decimals, trailing zeros and point dropped
    ({}, False, "-"),
    (None, False, "-"),
    ({"hp": 4}, True, "withheld"),
])
def test_amounts_as_text(table: dict[str, float] | None, withheld: bool, text: str) -> None:
    assert charts.amounts_text(table, withheld) == text


def test_the_luck_line() -> None:
    """Module example: '2 of 3 hit, expected 2.55; 42.1% for a result this far off'."""
    luck = Luck(rolls=3, successes=2, expected=Fraction(51, 20), tail=Fraction(421, 1000))
    assert charts.luck_line(luck) == "2 of 3 (expected 2.55), 42.1%: about as expected"
    rough = Luck(rolls=3, successes=3, expected=Fraction(3, 2), tail=0.125, exact=False, unrecorded=2)
    assert charts.luck_line(rough) == "3 of 3 (expected 1.50), 12.5% approx.: luckier than expected; 2 more without a chance"
    assert charts.luck_line(Luck()) == "no rolls"
    assert charts.luck_line(Luck(unrecorded=2)) == "no chances recorded (2 roll(s) made before chances were kept)"


def test_the_value_a_step_series_holds() -> None:
    series: list[tuple[int, int | float]] = [(0, 20), (3, 10), (5, 0)]
    assert [charts.value_at(series, s) for s in range(7)] == [20, 20, 20, 10, 10, 0, 0]
    assert charts.value_at([(2, 5)], 1) is None  # before its first value


@pytest.mark.parametrize(("span", "step"), [(1, 1), (12, 1), (13, 2), (24, 2), (25, 5), (60, 5), (61, 10), (120, 10), (121, 20), (600, 50), (1300, 200)])
def test_ticks_are_round_steps_at_most_a_dozen(span: int, step: int) -> None:
    assert charts.tick_step(span) == step
    assert span / step <= 12


# ------------------------------------------------------------------ the timeline
def test_the_timeline_draws_each_glyph_where_it_belongs() -> None:
    """Width 30: 18 columns, one segment each (the fight to segment 6 fits). Ann: an
    active action 0->3 completed, a passive one 2->6 still in progress, stunned 4->5
    (under the passive bar: the bar wins), thrown back at 6. Now is 5."""
    ann = Row("Ann", "Ann", bars=[Bar(0, 3, "active", False, "completed", "punch"), Bar(2, 6, "passive", False, "in progress", "dodge")],
              marks=[("stunned", 4, 5), ("throwback", 6, 8)])
    bo = Row("Bo", "Bo", bars=[Bar(1, 3, "active", True, "aborted", "hold")], marks=[("prone", 4, 5)])
    lines = charts.timeline_lines(_stats([ann, bo], now=5), 30)
    assert lines == [
        "segment     0    ▼ ",
        "Ann         ▀▀█┤▄▄↯",
        "Bo           ▒▒×┄┄ ",
        " " * 12 + "▀act ▄pass ▒maint ┤end ×cut ┄condition ↯throwback ▼now",
    ]


def test_a_long_fight_is_scaled_to_the_width() -> None:
    """Width 20: 8 columns for 40 segments (0..39 with now at 39): 5 segments a column;
    a maintained passive bar 10->25 fills columns 2-4 and ends in column 5."""
    row = Row("Ann", "Ann", bars=[Bar(10, 25, "passive", True, "completed", "aim")])
    lines = charts.timeline_lines(_stats([row], now=39), 20)
    assert lines[0] == "seg (x5)    0      ▼"
    assert lines[1] == "Ann" + " " * 9 + "  ▒▒▒┤  "


def test_a_long_name_is_clipped_in_its_column() -> None:
    row = Row("Bartholomew the Bold", "x", bars=[Bar(0, 1, "active", False, "completed", "x")])
    line = charts.timeline_lines(_stats([row], now=1), 20)[1]
    assert line.startswith("Bartholome… ")


# ------------------------------------------------------------------ resources and damage
def test_the_main_resource_as_a_sparkline() -> None:
    """hp 20 -> 10 at 3 -> 0 at 5; width 40: 15 columns, one a segment, 6 used (0..5).
    Full height is the maximum: 20 -> █, 10 -> half (▅), 0 -> '_'."""
    ann = Row("Ann", "Ann", resource="hp", maximum=20, series=[(0, 20), (3, 10), (5, 0)])
    hidden = Row("Orc", "raiders", withheld=True, label="Bloodied")
    blank = Row("Ghost", "Ghost")
    lines = charts.resource_lines(_stats([ann, hidden, blank], now=5), 40)
    assert lines == [
        "Ann hp 20>0" + " " * 13 + " ███▅▅_",
        "Orc         figures withheld from viewers (Bloodied)",
        "Ghost       no resource to follow",
        "  one column a segment; full height: the starting value",
    ]


def test_a_resource_without_a_maximum_is_drawn_against_its_highest() -> None:
    ann = Row("Ann", "Ann", resource="ep", maximum=None, series=[(0, 8), (1, 4)])
    assert charts.resource_lines(_stats([ann], now=1), 40)[0] == "Ann ep 8>4" + " " * 14 + " █▅"
    long = _stats([ann], now=29)
    assert charts.resource_lines(long, 40)[-1] == "  one column a segment per 2; full height: the starting value"


def test_damage_per_round_by_side() -> None:
    """Width 40: bars of up to 12 cells; the biggest round (6) is the full bar."""
    stats = _stats([], now=25, by_round={"red": [4, 0, 6], "blue": [0, 2, 0]}, rounds=3)
    assert charts.damage_lines(stats, 40) == [
        "R1      red         ████████ 4",
        "        blue         0",
        "R2      red          0",
        "        blue        ████ 2",
        "R3      red         ████████████ 6",
        "        blue         0",
    ]
    assert charts.damage_lines(_stats([], now=0), 40) == ["(no damage dealt)"]


def test_more_than_twelve_rounds_are_grouped() -> None:
    """13 rounds: groups of 2 (at most 12 groups), the last one round alone."""
    stats = _stats([], now=130, by_round={"red": [1] * 13}, rounds=13)
    lines = charts.damage_lines(stats, 40)
    assert len(lines) == 7
    assert lines[0].startswith("R1-2    red ") and lines[0].endswith(" 2")
    assert lines[-1].startswith("R13     red ") and lines[-1].endswith(" 1")


# ------------------------------------------------------------------ the whole report
def test_the_report_heads_and_what_viewers_see() -> None:
    ann = Tally("Ann", "Ann", declared=2, succeeded=1, missed=1, acting=3, idle=2, dealt={"hp": 4}, healed={"hp": 1})
    orc = Tally("Orc", "raiders", withheld=True, label="Bloodied", taken={"hp": 4})
    stats = FightStats("duel", "freeform", 5, 1, "round", 10, True, [ann, orc], [ann], [Row("Ann", "Ann")],
                       {"by hand": [3]}, ["Orc: figures withheld from viewers (Bloodied)"])
    text = charts.report_text(stats, 80)
    lines = text.splitlines()
    assert lines[0] == "duel (freeform) after segment 5, round 1 (as viewers see it)"
    assert lines[2] == "Actions         " + "".join(f"{h:>6}" for h in ("decl", "succ", "miss", "none", "secr", "cut", "act", "idle", "down"))
    assert lines[3] == "Ann             " + "".join(f"{v:>6}" for v in (2, 1, 1, 0, 0, 0, 3, 2, 0))
    assert "Ann             dealt hp 4; taken -; costs -; healed hp 1" in lines
    assert "Orc             dealt -; taken withheld; costs withheld; Bloodied" in lines
    assert "  by hand: damage the GM entered with the damage command" in lines
    assert lines[lines.index("Not shown to viewers:") + 1] == "  Orc: figures withheld from viewers (Bloodied)"
    assert all(len(line) <= 80 for line in lines)
    narrow = charts.report_text(stats, 10)  # at least 40 wide
    assert max(len(line) for line in narrow.splitlines()) <= 40


# ------------------------------------------------------------------ SVG
def test_the_svg_charts_escape_names_and_mark_each_bar() -> None:
    ann = Row("<b>Ann</b>", "x", bars=[Bar(0, 3, "active", False, "completed", "<i>"), Bar(2, 6, "passive", False, "aborted", "dodge"),
                                      Bar(4, 5, "active", True, "in progress", "hold")],
              marks=[("stunned", 1, 2), ("throwback", 3, 4)], resource="hp", maximum=20, series=[(0, 20), (3, 10)])
    stats = _stats([ann], now=6, by_round={"red": [5]}, rounds=1)
    svg = charts.timeline_svg(stats)
    assert "<b>" not in svg and "&lt;b&gt;Ann&lt;/b&gt;" in svg
    assert "<title>&lt;i&gt;: active, 0 to 3, completed</title>" in svg
    assert "<title>dodge: passive, 2 to 6, aborted</title>" in svg
    assert "<title>hold: active (maintained), 4 to 5, in progress</title>" in svg
    assert 'fill="url(#maint)"' in svg and 'fill="#1f77b4"' in svg and 'fill="#ff7f0e"' in svg
    assert "×</text>" in svg  # the aborted one
    assert "<title>throwback on segment 3, airborne until 4</title>↯" in svg
    assert "<title>stunned: segments 1 to 2</title>" in svg
    assert "<title>now: segment 6</title>" in svg
    resource = charts.resource_svg(stats)
    assert "&lt;b&gt;Ann&lt;/b&gt; hp of 20: 20 → 10" in resource
    assert "segment 6</text>" in resource
    damage = charts.damage_svg(stats)
    assert 'aria-label="Damage per round by side"' in damage
    assert "<title>red, round 1: 5</title>" in damage and "red: 5 in all" in damage
    empty = charts.damage_svg(_stats([], now=0))
    assert "no damage dealt" in empty
    for drawn in (svg, resource, damage, empty):
        assert drawn.startswith("<svg ") and drawn.endswith("</svg>") and "<script" not in drawn


# ------------------------------------------------------------------ the text charts' layout
# timeline_lines: a 12-cell name column (NAME), then max(8, width - 12) cells; `_scale`
# gives ceil((last bar end or now, + 1) / cells) segments a column; an axis label every
# 10 columns where it fits whole without touching another; `▼` on now's column if free.
_LEGEND_LINE = " " * 12 + "▀act ▄pass ▒maint ┤end ×cut ┄condition ↯throwback ▼now"


def test_a_narrow_timeline_keeps_eight_columns() -> None:
    """Width 12 leaves no room past the names: 8 columns still (max(8, 0)). The fight runs
    to segment 8, 9 segments (0..8): ceil(9 / 8) = 2 a column, so ceil(9 / 2) = 5 columns
    are used, not 8. Now (8) is in column 8 // 2 = 4. The bar 2->7 fills columns 1 and 2
    (2 // 2 up to 7 // 2 = 3) and its end is capped in column 3."""
    row = Row("Ann", "Ann", bars=[Bar(2, 7, "active", False, "completed", "x")])
    assert charts.timeline_lines(_stats([row], now=8), 12) == [
        "seg (x2)    0   ▼",
        "Ann          ▀▀┤ ",
        _LEGEND_LINE,
    ]


def test_the_axis_labels_every_tenth_column_where_they_fit() -> None:
    """Width 40: 28 cells, one segment a column. Now 21: 22 columns; "20" at column 20 ends
    exactly at the edge (20 + 2 <= 22) and is drawn; now's column 21 holds its "0", so no
    `▼`. Now 20: 21 columns, "20" would overrun (22 > 21): left out, `▼` on column 20."""
    assert charts.timeline_lines(_stats([], now=21), 40)[0] == "segment     " + "0" + " " * 9 + "10" + " " * 8 + "20"
    assert charts.timeline_lines(_stats([], now=20), 40)[0] == "segment     " + "0" + " " * 9 + "10" + " " * 8 + "▼"


def test_an_axis_label_never_runs_into_the_one_before() -> None:
    """Width 60: 48 cells. 960,000,000,000 segments (now one less): 2e10 a column, 48 columns.
    The labels are 12 digits long: column 10's (200000000000) covers columns 10-21, so
    column 20's would land on it and is left out; column 30's fits (30-41); column 40's
    would overrun (52 > 48). Now is in column 959999999999 // 2e10 = 47. The head
    "seg (x20000000000)" is cut to its 12 cells."""
    lines = charts.timeline_lines(_stats([], now=959_999_999_999), 60)
    assert lines[0] == "seg (x20000…" + "0" + " " * 9 + "200000000000" + " " * 8 + "600000000000" + " " * 5 + "▼"


def test_segments_per_column_fit_the_fight_in_the_cells() -> None:
    """Segments 0..9 (10 of them): 10 a column in one cell, 5 in two, 1 in ten or more; no
    cells at all count as one."""
    stats = _stats([], now=9)
    assert [charts._scale(stats, n) for n in (0, 1, 2, 3, 10, 50)] == [10, 10, 5, 4, 1, 1]


def test_a_row_of_cells_piece_by_piece() -> None:
    """`_row_cells(row, per, columns)`, per segments a column."""
    def drawn(bars: list[Bar], per: int = 1, columns: int = 4, marks: list[tuple[str, int, int]] | None = None) -> str:
        return charts._row_cells(Row("Ann", "Ann", bars=bars, marks=marks or []), per, columns)

    # 5 a column: a bar 11->13 starts and ends in column 2; it still takes that one
    # cell, and being in progress it has no cap.
    assert drawn([Bar(11, 13, "active", False, "in progress", "x")], per=5) == "  ▀ "
    # Two passive bars over each other stay passive; the one in progress has no cap
    # (its end, 3, is under the other bar), the completed one ends at 4.
    assert drawn([Bar(0, 3, "passive", False, "in progress", "x"), Bar(1, 4, "passive", False, "completed", "y")], columns=6) == "▄▄▄▄┤ "
    # A maintained action over a passive one: `▓` where they share a cell.
    assert drawn([Bar(1, 3, "active", True, "in progress", "x"), Bar(0, 2, "passive", False, "in progress", "y")]) == "▄▓▒ "
    # The columns cut the row: a bar ending on (or past) the edge has no cap drawn.
    assert drawn([Bar(0, 4, "active", False, "completed", "x")]) == "▀▀▀▀"
    assert drawn([Bar(0, 9, "active", False, "aborted", "x")]) == "▀▀▀▀"
    # A throwback past the edge is left out; one before a condition does not hide it;
    # a condition running past the edge stops there.
    assert drawn([], marks=[("throwback", 0, 1), ("stunned", 1, 2), ("throwback", 4, 6)]) == "↯┄┄ "
    assert drawn([], marks=[("prone", 2, 9)]) == "  ┄┄"


# resource_lines: a 24-cell label (name clipped to 11, resource to 5, first>last value),
# a space, then max(8, width - 25) cells of ceil((now + 1) / cells) segments each; a
# column shows the value on its last segment, as one of 8 heights (share of full x 7,
# rounded) when above zero, `_` at or below zero, blank before the first value.
def test_the_sparkline_in_a_narrow_report() -> None:
    """Width 30: 8 cells (max(8, 5)), now 8: ceil(9 / 8) = 2 segments a column, 8 // 2 + 1 =
    5 columns. hp 8 of 8, 4 from 3, 1 from 6. Columns end on segments 1, 3, 5, 7, 8 (the
    last cut at now): 8 -> full `█`; 4 -> 4/8 x 7 = 3.5 -> 4 `▅`; 1 -> 1/8 x 7 = 0.875 -> 1 `▂`."""
    ann = Row("Ann", "Ann", resource="hp", maximum=8, series=[(0, 8), (3, 4), (6, 1)])
    assert charts.resource_lines(_stats([ann], now=8), 30) == [
        "Ann hp 8>1" + " " * 14 + " █▅▅▂▂",
        "  one column a segment per 2; full height: the starting value",
    ]


def test_the_sparkline_scale_follows_the_width() -> None:
    """Width 40: 15 cells (40 - 24 - 1); now 15 is 16 segments: ceil(16 / 15) = 2 a column,
    15 // 2 + 1 = 8 columns."""
    ann = Row("Ann", "Ann", resource="hp", maximum=5, series=[(0, 5)])
    assert charts.resource_lines(_stats([ann], now=15), 40) == [
        "Ann hp 5>5" + " " * 14 + " " + "█" * 8,
        "  one column a segment per 2; full height: the starting value",
    ]


def test_each_kind_of_resource_row() -> None:
    """Width 40, now 5: 6 columns, one segment each."""
    rows = [
        # Clipped: the name to 11 cells, the resource to 5: the label fills its 24 cells.
        # Blank before its first value (segment 2); 10 of 10 full; 0.5 of 10 is
        # 0.05 x 7 = 0.35 -> 0 `▁`, still above zero so not `_`.
        Row("Bartholomew the Bold", "x", resource="stamina", maximum=10, series=[(2, 10), (4, 0.5)]),
        Row("Orc", "x", withheld=True),  # no label: nothing in brackets
        Row("Ghost", "x", resource="hp"),  # a resource never recorded
        Row("Wisp", "x", series=[(0, 3)]),  # values without a resource's name
        Row("Di", "x", resource="hp", maximum=0, series=[(0, 4), (3, 2)]),  # maximum 0: against the highest (4)
        Row("Fy", "x", resource="hp", maximum=1, series=[(0, 0.5)]),  # maximum 1: half
        Row("Eli", "x", resource="hp", maximum=20, series=[(0, 10)]),  # 10 of 20: half, though it never went higher
        Row("Neg", "x", resource="debt", series=[(0, -3)]),  # never above zero: empty, not full
    ]
    assert charts.resource_lines(_stats(rows, now=5), 40)[:-1] == [
        "Bartholome… stam… 10>0.5" + " " + "  ██▁▁",
        "Orc" + " " * 9 + "figures withheld from viewers",
        "Ghost" + " " * 7 + "no resource to follow",
        "Wisp" + " " * 8 + "no resource to follow",
        "Di hp 4>2" + " " * 15 + " " + "███▅▅▅",
        "Fy hp 0.5>0.5" + " " * 11 + " " + "▅" * 6,
        "Eli hp 10>10" + " " * 12 + " " + "▅" * 6,
        "Neg debt -3>-3" + " " * 10 + " " + "_" * 6,
    ]


# damage_lines: an 8-cell round head, a 12-cell side (clipped to 11), then a bar of
# round(room x amount / top) cells, room = max(5, width - 28), top the biggest amount
# (at least 1), and the amount.
def test_damage_bars_in_a_narrow_report() -> None:
    """Width 30: room max(5, 2) = 5. The biggest amount is 1, so 1 is the full 5 cells and
    0.4 is round(5 x 0.4) = 2; a long side's name is clipped to 11 cells."""
    stats = _stats([], now=15, by_round={"red": [1, 0], "the raiders of the north": [0.4, 0]}, rounds=2)
    assert charts.damage_lines(stats, 30) == [
        "R1      red         █████ 1",
        "        the raider… ██ 0.4",
        "R2      red          0",
        "        the raider…  0",
    ]


def test_damage_below_one_is_drawn_against_one() -> None:
    """top = max(biggest, 1): a fight of half points draws half bars (round(12 x 0.5) = 6 of 12)."""
    stats = _stats([], now=5, by_round={"red": [0.5]}, rounds=1, round_name="turn")
    assert charts.damage_lines(stats, 40) == ["T1      red         ██████ 0.5"]


# ------------------------------------------------------------------ the whole report, line by line
def _fight_to_report() -> FightStats:
    ann = Tally("Ann", "red", declared=3, succeeded=1, missed=1, no_roll=1, aborted=2, interrupted=1, acting=2, idle=1,
                dealt={"hp": 4}, costs={"ep": 1}, luck=Luck(rolls=2, successes=1, expected=Fraction(1), tail=Fraction(1)))
    bart = Tally("Bartholomew the Bold", "blue", withheld=True)
    red = Tally("red", declared=3, succeeded=1, missed=1, no_roll=1, aborted=2, interrupted=1, acting=2, idle=1,
                dealt={"hp": 4}, costs={"ep": 1}, healed={"hp": 2}, luck=Luck(rolls=2, successes=2, expected=Fraction(1), tail=Fraction(1, 2)))
    blue = Tally("blue", withheld=True, label="Bloodied")
    rows = [Row("Ann", "red", bars=[Bar(0, 2, "active", False, "completed", "cut")], resource="hp", maximum=10, series=[(0, 10), (2, 5)]),
            Row("Bartholomew the Bold", "blue", withheld=True)]
    return FightStats("duel", "freeform", 3, 1, "turn", 10, False, [ann, bart], [red, blue], rows, {"red": [4]},
                      ["Bartholomew the Bold: figures withheld from viewers"])


def test_the_whole_report_line_by_line() -> None:
    """Width 80: names in min(16, 80 - 6 x 9) = 16 cells (clipped to 15), then 9 columns of
    6; the charts as their own tests work them out: now 3 and the last bar ending at 2 give
    4 timeline columns and 4 resource columns; the one turn's 4 damage is the full 80 - 28
    = 52 cells."""
    heads = "  decl  succ  miss  none  secr   cut   act  idle  down"
    assert charts.report_text(_fight_to_report(), 80).split("\n") == [
        "duel (freeform) after segment 3, turn 1",
        "",
        "Actions         " + heads,
        "Ann             " + "     3     1     1     1     0     3     2     1     0",  # cut: 2 aborted + 1 interrupted
        "Bartholomew th… " + "     0" * 9,
        "side red        " + "     3     1     1     1     0     3     2     1     0",
        "side blue       " + "     0" * 9,
        "  succ/miss: succeeded or missed by the roll; none: no roll; secr: secret;",
        "  cut: aborted or interrupted; act, idle, down: segments",
        "",
        "Damage and costs (per resource)",
        "Ann             dealt hp 4; taken -; costs ep 1",  # no healing: no "healed"
        "Bartholomew th… dealt -; taken withheld; costs withheld",  # withheld without a label
        "side red        dealt hp 4; taken -; costs ep 1; healed hp 2",
        "side blue       dealt -; taken withheld; costs withheld; Bloodied",
        "",
        "Luck: successes against the chances the declare form showed; the % is the",
        "exact chance (Poisson-binomial of those chances) of a count this far from",
        "the expectation or further, either way",
        "Ann             1 of 2 (expected 1.00), 100.0%: exactly as expected",
        "Bartholomew th… no rolls",
        "side red        2 of 2 (expected 1.00), 50.0%: about as expected",
        "side blue       no rolls",
        "",
        "Not shown to viewers:",
        "  Bartholomew the Bold: figures withheld from viewers",
        "",
        "Timeline of the whole fight",
        "segment     0  ▼",
        "Ann         ▀▀┤ ",
        "Bartholome…     ",
        _LEGEND_LINE,
        "",
        "Main resource over the fight",
        "Ann hp 10>5" + " " * 13 + " ██▅▅",
        "Bartholome… figures withheld from viewers",
        "  one column a segment; full height: the starting value",
        "",
        "Damage dealt per turn, by side",
        "T1      red         " + "█" * 52 + " 4",
    ]


def test_the_report_is_eighty_wide_unless_told() -> None:
    """At 81 the damage bar would be 53 cells, not 52."""
    assert charts.report_text(_fight_to_report()) == charts.report_text(_fight_to_report(), 80)


@pytest.mark.parametrize(("width", "name_cells"), [(66, 12), (60, 10), (100, 16)])
def test_the_name_column_narrows_with_the_width(width: int, name_cells: int) -> None:
    """name cells = width - 6 x 9 columns, between 10 and 16; the line is cut at the width."""
    head = charts.report_text(_fight_to_report(), width).split("\n")[2]
    whole = "Actions".ljust(name_cells) + "  decl  succ  miss  none  secr   cut   act  idle  down"
    assert head == (whole if len(whole) <= width else whole[: width - 1] + "…")


def test_a_wide_resource_name_is_cut_at_the_width_in_cells() -> None:
    """A resource named in CJK takes two cells a character: the line is 56 characters but
    76 cells, and is cut at 60 cells (59 and the ellipsis: 16 + 20 x 2 + " 4;" = 59)."""
    ann = Tally("Ann", "Ann", dealt={"体" * 20: 4})
    stats = FightStats("duel", "freeform", 5, 1, "round", 10, False, [ann], [], [Row("Ann", "Ann")], {}, [])
    lines = charts.report_text(stats, 60).split("\n")
    assert "Ann       dealt " + "体" * 20 + " 4;…" in lines
    assert all(cells(line) <= 60 for line in lines)


# ------------------------------------------------------------------ the SVG charts' geometry
_NS = "{http://www.w3.org/2000/svg}"


def _svg(drawn: str) -> ET.Element:
    """The drawing parsed as XML (so a name's `<` can only be text), one element a line and
    no stray text between the elements: words only inside <text> and <title>."""
    assert all(line.startswith("<") and line.endswith(">") for line in drawn.split("\n"))
    root = ET.fromstring(drawn)
    assert root.tag == _NS + "svg"
    for parent in root.iter():
        if parent.tag not in (_NS + "text", _NS + "title"):
            assert not (parent.text or "").strip(), parent.tag
            assert all(not (child.tail or "").strip() for child in parent), parent.tag
    return root


def _kids(root: ET.Element, tag: str, **attrs: str) -> list[ET.Element]:
    """The drawing's own elements (not a bar group's) of that tag, with those attributes."""
    return [el for el in root if el.tag == _NS + tag and all(el.get(k.replace("_", "-")) == v for k, v in attrs.items())]


def _at(el: ET.Element, *names: str) -> tuple[float, ...]:
    return tuple(float(el.get(n, "nan")) for n in names)


def _title(el: ET.Element) -> str:
    found = el.find(_NS + "title")
    if found is None:
        found = el.find("title")
    assert found is not None
    return found.text or ""


# _bar_rect(bar, x0, y, sx, h): x = x0 + start x sx, width max((end - start) x sx, 1);
# active and maintained in the upper half (y, h/2 tall), passive in the lower (y + h/2);
# a completed bar's end a line over the whole height at x0 + end x sx, a cut one's a `×`
# 2 above the bottom there; one in progress neither.
def _bar(bar: Bar, sx: float = 10) -> ET.Element:
    g = ET.fromstring(charts._bar_rect(bar, 120, 22, sx, 16))  # a fragment: no namespace
    assert g.tag == "g" and g[0].tag == "title"
    return g


def test_an_active_completed_bar() -> None:
    g = _bar(Bar(2, 5, "active", False, "completed", '<i>&"jab"'))
    assert [el.tag for el in g] == ["title", "rect", "line"]
    assert g[0].text == '<i>&"jab": active, 2 to 5, completed'
    rect, end = g[1], g[2]
    assert _at(rect, "x", "y", "width", "height") == (140.0, 22.0, 30.0, 8.0)  # 120 + 2 x 10; (5 - 2) x 10; 16 / 2
    assert rect.get("fill") == "#1f77b4" and rect.get("stroke") is None
    assert _at(end, "x1", "y1", "x2", "y2") == (170.0, 22.0, 170.0, 38.0)  # 120 + 5 x 10, over 22..22 + 16
    assert end.get("stroke") == "#000"


@pytest.mark.parametrize("status", ["aborted", "interrupted"])
def test_a_passive_cut_bar(status: str) -> None:
    g = _bar(Bar(1, 4, "passive", False, status, "dodge"))
    assert [el.tag for el in g] == ["title", "rect", "text"]
    assert g[0].text == f"dodge: passive, 1 to 4, {status}"
    rect, cut = g[1], g[2]
    assert _at(rect, "x", "y", "width", "height") == (130.0, 30.0, 30.0, 8.0)  # lower half: 22 + 16 / 2
    assert rect.get("fill") == "#ff7f0e"
    assert _at(cut, "x", "y") == (160.0, 36.0)  # 120 + 4 x 10; 22 + 16 - 2
    assert (cut.text, cut.get("font-size"), cut.get("text-anchor"), cut.get("fill")) == ("×", "12", "middle", "#c00")


def test_a_maintained_bar_in_progress() -> None:
    """Maintained: hatched in the upper half whatever its mode; in progress: no end mark."""
    g = _bar(Bar(3, 6, "passive", True, "in progress", "hold"))
    assert [el.tag for el in g] == ["title", "rect"]
    assert "".join(g.itertext()) == "hold: passive (maintained), 3 to 6, in progress"
    assert _at(g[1], "x", "y", "width", "height") == (150.0, 22.0, 30.0, 8.0)
    assert (g[1].get("fill"), g[1].get("stroke")) == ("url(#maint)", "#333")


@pytest.mark.parametrize(("start", "end", "sx", "width"), [
    (3, 3, 10, 1.0),  # no length: a sliver 1 wide
    (0, 1, 0.5, 1.0),  # 0.5 wide at this scale: still 1
    (0, 3, 0.5, 1.5),  # 3 x 0.5: wider than the sliver, drawn as it is
])
def test_a_bar_is_at_least_one_wide(start: int, end: int, sx: float, width: float) -> None:
    rect = _bar(Bar(start, end, "active", False, "in progress", "x"), sx)[1]
    assert _at(rect, "x", "width") == (120 + start * sx, width)


# timeline_svg: names in 120 px, the plot 600 px wide (sx = 600 / (last end or now, + 1)
# a segment), rows 20 px from y = 20 (the axis row above); height 20 x (rows + 3), width
# 730. Ticks every tick_step(segments) from the axis (y 16) to the last row's foot.
def _timeline() -> FightStats:
    """Now 5, the last bar ends at 5: 6 segments, sx = 600 / 6 = 100 px."""
    ann = Row("Ann", "red", bars=[Bar(0, 3, "active", False, "completed", "punch"), Bar(2, 5, "passive", False, "aborted", "dodge")],
              marks=[("throwback", 3, 4), ("stunned", 4, 9)])
    bo = Row("Bo", "blue", bars=[Bar(1, 2, "active", True, "in progress", "hold")], marks=[("prone", 1, 3)])
    return _stats([ann, bo], now=5)


def test_the_timeline_frame_axis_and_now() -> None:
    root = _svg(charts.timeline_svg(_timeline()))
    assert (root.get("width"), root.get("height"), root.get("viewBox")) == ("730", "100", "0 0 730 100")  # 20 x (2 + 3)
    assert root.get("aria-label") == "Timeline of the whole fight"
    pattern = root.find(f"{_NS}defs/{_NS}pattern")
    assert pattern is not None and pattern.get("id") == "maint" and pattern.get("patternUnits") == "userSpaceOnUse"
    assert pattern[0].get("d") == "M0,4 L4,0"
    # tick_step(6) = 1: a tick a segment, 0..5, at 120 + 100 s, down to 100 - 2 x 20 = 60.
    ticks = _kids(root, "line", stroke="#ddd")
    assert [_at(t, "x1", "y1", "x2", "y2") for t in ticks] == [(120.0 + 100 * s, 16.0, 120.0 + 100 * s, 60.0) for s in range(6)]
    labels = [t for t in _kids(root, "text", font_size="10") if t.get("x") != "2"]
    assert [(_at(t, "x", "y"), t.text) for t in labels] == [((120.0 + 100 * s, 14.0), str(s)) for s in range(6)]
    (now,) = _kids(root, "line", stroke="#c00")
    assert _at(now, "x1", "y1", "x2", "y2") == (620.0, 16.0, 620.0, 60.0)  # 120 + 5 x 100
    assert now.get("stroke-dasharray") == "3,2" and _title(now) == "now: segment 5"
    legend = _kids(root, "text", x="2", font_size="10")
    assert [_at(t, "y") for t in legend] == [(76.0,), (94.0,)]  # 100 - 20 - 4, 100 - 6
    assert (legend[0].text or "").startswith("blue, upper half: active")
    assert (legend[1].text or "").endswith("red dashes: now (segment 5)")


def test_the_timeline_rows_bars_and_marks() -> None:
    root = _svg(charts.timeline_svg(_timeline()))
    names = _kids(root, "text", x="2", font_size="12")
    assert [(n.text, _at(n, "y")) for n in names] == [("Ann", (34.0,)), ("Bo", (54.0,))]  # row y 20, 40; + 20 - 6
    # Passive bars first, so the active ones are drawn over them; each row's bars from y + 2, 16 px tall.
    groups = _kids(root, "g")
    assert [_title(g).split(":")[0] for g in groups] == ["dodge", "punch", "hold"]
    dodge, punch, hold = (g.find(_NS + "rect") for g in groups)
    assert dodge is not None and punch is not None and hold is not None
    assert _at(dodge, "x", "y", "width", "height") == (320.0, 30.0, 300.0, 8.0)  # 120 + 2 x 100; 22 + 8
    assert _at(punch, "x", "y", "width", "height") == (120.0, 22.0, 300.0, 8.0)
    assert _at(hold, "x", "y", "width", "height") == (220.0, 42.0, 100.0, 8.0)  # row 2: 40 + 2
    cut = groups[0].find(_NS + "text")
    end = groups[1].find(_NS + "line")
    assert cut is not None and _at(cut, "x", "y") == (620.0, 36.0)  # dodge cut at 5: 22 + 16 - 2
    assert end is not None and _at(end, "x1", "y1", "x2", "y2") == (420.0, 22.0, 420.0, 38.0)  # punch completed at 3
    (throwback,) = _kids(root, "text", font_size="13")
    assert _at(throwback, "x", "y") == (420.0, 35.0)  # 120 + 3 x 100; 20 + 20 - 5
    assert _title(throwback) == "throwback on segment 3, airborne until 4"
    assert throwback[0].tail == "↯" and throwback.get("fill") == "#9467bd"
    conditions = _kids(root, "line", stroke="#9467bd")
    # stunned 4->9 stops at the plot's end (segment 6: 720); prone on row 2: 40 + 20 - 2.
    assert [_at(c, "x1", "y1", "x2", "y2") for c in conditions] == [(520.0, 38.0, 720.0, 38.0), (220.0, 58.0, 420.0, 58.0)]
    assert [_title(c) for c in conditions] == ["stunned: segments 4 to 9", "prone: segments 1 to 3"]
    assert all(c.get("stroke-dasharray") == "2,2" for c in conditions)


def test_a_long_timeline_ticks_in_round_steps() -> None:
    """Now 29, no bars: 30 segments, sx = 20; tick_step(30) = 5: ticks 0, 5, .. 25."""
    root = _svg(charts.timeline_svg(_stats([Row("Ann", "Ann")], now=29)))
    assert root.get("height") == "80"  # 20 x (1 + 3)
    ticks = _kids(root, "line", stroke="#ddd")
    assert [_at(t, "x1", "y2") for t in ticks] == [(120.0 + 20 * s, 40.0) for s in range(0, 30, 5)]
    assert [t.text for t in _kids(root, "text", font_size="10", y="14")] == ["0", "5", "10", "15", "20", "25"]
    assert _at(_kids(root, "line", stroke="#c00")[0], "x1") == (700.0,)  # 120 + 29 x 20


def test_an_empty_timeline() -> None:
    """No one, segment 0: one segment 600 px wide, 60 px high (20 x 3)."""
    root = _svg(charts.timeline_svg(_stats([], now=0)))
    assert (root.get("height"), root.get("viewBox")) == ("60", "0 0 730 60")
    assert [_at(t, "x1", "y1", "y2") for t in _kids(root, "line", stroke="#ddd")] == [(120.0, 16.0, 20.0)]
    assert _kids(root, "g") == [] and _kids(root, "text", font_size="12") == []


# resource_svg: the plot a 600 x 120 frame at (120, 10), x = 120 + segment x 600 / max(now, 1),
# y = 10 + 120 x (1 - value / full, kept in 0..1); each change a step (across at the old
# height, then up or down), held on to now. Legend from y = 160, 14 px a row, every row
# taking its place; height 150 + 14 x (rows + 1).
def test_the_resource_plot_frame_and_steps() -> None:
    rows = [
        Row("Ann", "red", resource="hp", maximum=20, series=[(0, 20), (3, 10), (5, 0)]),
        Row("Orc", "blue", withheld=True, label="Bloodied"),
        Row("Ghost", "blue"),
        Row("Bo", "red", resource="ep", series=[(0, 8), (2, 12), (4, -2)]),  # no maximum: full is 12, the highest
        Row("Cy", "red", resource="hp", maximum=10, series=[(0, 15), (3, 5)]),  # above its maximum: at the top
        Row("Eve", "blue", withheld=True),
    ]
    root = _svg(charts.resource_svg(_stats(rows, now=6)))  # 600 / 6 = 100 px a segment
    assert (root.get("width"), root.get("height"), root.get("viewBox")) == ("730", "248", "0 0 730 248")  # 150 + 14 x 7
    assert root.get("aria-label") == "Main resource over the fight"
    (frame,) = _kids(root, "rect", stroke="#999")
    assert _at(frame, "x", "y", "width", "height") == (120.0, 10.0, 600.0, 120.0)
    marks = {t.text: (_at(t, "x", "y"), t.get("text-anchor")) for t in _kids(root, "text", font_size="10")}
    assert marks == {"full": ((116.0, 18.0), "end"), "0": ((116.0, 130.0), "end"),
                     "segment 0": ((120.0, 144.0), None), "segment 6": ((720.0, 144.0), "end")}
    lines = _kids(root, "polyline")
    assert [(_title(p), p.get("stroke")) for p in lines] == [("Ann: hp", "#1f77b4"), ("Bo: ep", "#d62728"), ("Cy: hp", "#2ca02c")]
    # Ann: 20 of 20 at y 10 from x 120, 10 at 70 from 420 (segment 3), 0 at 130 from 620 (5), held to 720 (now, 6).
    assert lines[0].get("points") == "120.0,10.0 420.0,10.0 420.0,70.0 620.0,70.0 620.0,130.0 720.0,130.0 720.0,130.0"
    # Bo: 8 of 12 at 10 + 120 / 3 = 50, 12 at 10, -2 kept at 0 (130).
    assert lines[1].get("points") == "120.0,50.0 320.0,50.0 320.0,10.0 520.0,10.0 520.0,130.0 720.0,130.0 720.0,130.0"
    # Cy: 15 of 10 kept at the top; 5 of 10 at 70.
    assert lines[2].get("points") == "120.0,10.0 420.0,10.0 420.0,70.0 720.0,70.0 720.0,70.0"
    assert all(p.get("fill") == "none" and p.get("stroke-width") == "2" for p in lines)
    keys = [(_at(r, "x", "y", "width", "height"), r.get("fill")) for r in _kids(root, "rect") if r.get("stroke") is None]
    assert keys == [((120.0, 151.0, 10.0, 10.0), "#1f77b4"), ((120.0, 193.0, 10.0, 10.0), "#d62728"), ((120.0, 207.0, 10.0, 10.0), "#2ca02c")]
    legend = [(_at(t, "x", "y"), t.text) for t in _kids(root, "text", font_size="11")]
    assert legend == [
        ((134.0, 160.0), "Ann hp of 20: 20 → 10 → 0"),
        ((120.0, 174.0), "Orc: figures withheld from viewers (Bloodied)"),
        # Ghost's place (188) stays empty
        ((134.0, 202.0), "Bo ep: 8 → 12 → -2"),  # no maximum to name
        ((134.0, 216.0), "Cy hp of 10: 15 → 5"),
        ((120.0, 230.0), "Eve: figures withheld from viewers"),
    ]


@pytest.mark.parametrize(("now", "points"), [
    (1, "120.0,10.0 720.0,10.0 720.0,70.0 720.0,70.0 720.0,70.0"),  # 600 px a segment
    (0, "120.0,10.0 120.0,10.0 120.0,10.0"),  # still 600 (max(0, 1)); all at segment 0
])
def test_a_short_fight_takes_the_whole_plot(now: int, points: str) -> None:
    series: list[tuple[int, int | float]] = [(0, 4), (1, 2)] if now else [(0, 4)]
    root = _svg(charts.resource_svg(_stats([Row("Ann", "Ann", resource="hp", maximum=4, series=series)], now=now)))
    assert _kids(root, "polyline")[0].get("points") == points
    assert f"segment {now}" in [t.text for t in _kids(root, "text")]


@pytest.mark.parametrize(("maximum", "value", "y"), [
    (20, 10, 70.0),  # against the maximum: half way down
    (None, 10, 10.0),  # no maximum: against its highest, itself
    (None, 0.5, 10.0),  # even a highest below 1
    (0, 10, 10.0),  # a maximum of 0 is none
    (1, 0.5, 70.0),  # a maximum of 1 is one
    (None, 0, 130.0),  # never above zero: at the bottom
    (None, -3, 130.0),  # below zero, never above: at the bottom, not full
])
def test_what_full_height_stands_for(maximum: int | None, value: float, y: float) -> None:
    """The same rule in the SVG as in the text (`█` full, `▅` half, `_` none)."""
    row = Row("Ann", "Ann", resource="hp", maximum=maximum, series=[(0, value)])
    root = _svg(charts.resource_svg(_stats([row], now=1)))
    assert _kids(root, "polyline")[0].get("points") == f"120.0,{y:.1f} 720.0,{y:.1f} 720.0,{y:.1f}"
    spark = charts.resource_lines(_stats([row], now=1), 40)[0][-2:]
    assert spark == {10.0: "██", 70.0: "▅▅", 130.0: "__"}[y]


# grouped_bars_svg: names in 40 px, the plot 640 x 140 above a base line at y 150; a slot
# 640 / slots wide, bars bw = max(slot / (series + 1), 1) wide starting half a bar in
# (x = 40 + slot x r + bw x (i + 0.5)), height 140 x amount / top (top: the biggest, at
# least 1); nothing for 0 or less. Slot numbers under the middles (y 164), every
# ceil(slots / 24)th past 24; the legend from y 180, 14 px a series; height 180 + 14 x series.
_AMOUNTS = {(0, 0): 4, (0, 1): 0, (0, 2): 2, (1, 0): 8, (1, 1): -1, (1, 2): 1}


def _grouped(slots: int, series: list[str], amount: dict[tuple[int, int], float] | None = None, label: str = "Damage") -> str:
    table = amount if amount is not None else _AMOUNTS
    return charts.grouped_bars_svg(label, "nothing yet", slots, series, lambda r, i: table.get((r, i), 0),
                                   lambda r, i: f"slot {r} series {i}", lambda i: f"series {i} in all")


def test_grouped_bars_geometry() -> None:
    """2 slots of 320 px, 3 series: bars 80 wide; top 8."""
    root = _svg(_grouped(2, ["red", "blue", "green"]))
    assert (root.get("width"), root.get("height"), root.get("viewBox")) == ("690", "222", "0 0 690 222")  # 180 + 14 x 3
    assert root.get("aria-label") == "Damage"
    (base,) = _kids(root, "line")
    assert _at(base, "x1", "y1", "x2", "y2") == (40.0, 150.0, 680.0, 150.0) and base.get("stroke") == "#999"
    (top,) = _kids(root, "text", font_size="10", text_anchor="end")
    assert (_at(top, "x", "y"), top.text) == ((36.0, 18.0), "8")
    numbers = _kids(root, "text", font_size="10", text_anchor="middle")
    assert [(_at(n, "x", "y"), n.text) for n in numbers] == [((200.0, 164.0), "1"), ((520.0, 164.0), "2")]  # 40 + 160, 40 + 320 + 160
    bars = [r for r in _kids(root, "rect") if r.find(_NS + "title") is not None]
    assert [(_at(b, "x", "y", "width", "height"), b.get("fill"), _title(b)) for b in bars] == [
        ((80.0, 80.0, 80.0, 70.0), "#1f77b4", "slot 0 series 0"),  # 40 + 80 x 0.5; 140 x 4 / 8
        # series 1 in slot 0 is 0: no bar, and the next series is still drawn
        ((240.0, 115.0, 80.0, 35.0), "#2ca02c", "slot 0 series 2"),  # 40 + 80 x 2.5; 140 x 2 / 8
        ((400.0, 10.0, 80.0, 140.0), "#1f77b4", "slot 1 series 0"),  # 40 + 320 + 40; the biggest: the whole height
        # series 1 in slot 1 is -1: no bar
        ((560.0, 132.5, 80.0, 17.5), "#2ca02c", "slot 1 series 2"),  # 360 + 200; 140 x 1 / 8
    ]
    keys = [r for r in _kids(root, "rect") if r.find(_NS + "title") is None]
    assert [(_at(k, "x", "y", "width", "height"), k.get("fill")) for k in keys] == [
        ((40.0, 171.0, 10.0, 10.0), "#1f77b4"), ((40.0, 185.0, 10.0, 10.0), "#d62728"), ((40.0, 199.0, 10.0, 10.0), "#2ca02c")]
    legend = _kids(root, "text", font_size="11")
    assert [(_at(t, "x", "y"), t.text) for t in legend] == [((54.0, 180.0 + 14 * i), f"series {i} in all") for i in range(3)]


def test_grouped_bars_past_the_palette() -> None:
    """11 series in one slot: bars 640 / 12 wide; the 11th takes the first colour again."""
    ones = {(0, i): 1 for i in range(11)}
    root = _svg(_grouped(1, [str(i) for i in range(11)], ones))
    bars = [r for r in _kids(root, "rect") if r.find(_NS + "title") is not None]
    assert _at(bars[10], "x", "width", "height") == (600.0, 53.3, 140.0)  # 40 + 53.33 x 10.5; all 1 of top 1
    assert [b.get("fill") for b in bars] == list(charts._PALETTE) + [charts._PALETTE[0]]
    keys = [r.get("fill") for r in _kids(root, "rect") if r.find(_NS + "title") is None]
    assert keys == list(charts._PALETTE) + [charts._PALETTE[0]]


@pytest.mark.parametrize(("amounts", "top", "height"), [
    ({(0, 0): 0.5}, "1", 70.0),  # below 1: drawn against 1
    ({(0, 0): 2.5, (1, 0): 1}, "2.5", 140.0),
    ({(0, 0): 0}, "1", None),  # nothing to draw
])
def test_grouped_bars_top(amounts: dict[tuple[int, int], float], top: str, height: float | None) -> None:
    root = _svg(_grouped(2, ["red"], amounts))
    assert _kids(root, "text", text_anchor="end")[0].text == top
    bars = [r for r in _kids(root, "rect") if r.find(_NS + "title") is not None]
    assert [_at(b, "height") for b in bars][:1] == ([] if height is None else [(height,)])


@pytest.mark.parametrize(("slots", "numbered"), [
    (24, list(range(24))),  # up to 24: every slot
    (25, list(range(0, 25, 2))),  # ceil(25 / 24) = 2: every other
    (50, list(range(0, 50, 3))),  # ceil(50 / 24) = 3
])
def test_grouped_bars_number_at_most_about_two_dozen_slots(slots: int, numbered: list[int]) -> None:
    root = _svg(_grouped(slots, ["red"], {}))
    numbers = _kids(root, "text", text_anchor="middle")
    slot = 640 / slots
    assert [(n.get("x"), n.text) for n in numbers] == [(f"{40 + r * slot + slot / 2:.1f}", str(r + 1)) for r in numbered]


def test_grouped_bars_are_never_thinner_than_one() -> None:
    """320 slots of 2 px, 3 series: 2 / 4 = 0.5 a bar, drawn 1 wide; slot 1's third bar at
    40 + 2 + 1 x 2.5 = 44.5."""
    root = _svg(_grouped(320, ["a", "b", "c"], {(1, 2): 1}))
    (bar,) = [r for r in _kids(root, "rect") if r.find(_NS + "title") is not None]
    assert _at(bar, "x", "width") == (44.5, 1.0)


@pytest.mark.parametrize(("slots", "series"), [(3, []), (0, ["red"])])
def test_grouped_bars_with_nothing_to_draw(slots: int, series: list[str]) -> None:
    root = _svg(_grouped(slots, series, label='<b>"Loot"</b>'))
    assert (root.get("aria-label"), root.get("width"), root.get("height")) == ('<b>"Loot"</b>', "300", "20")
    (text,) = list(root)
    assert (text.text, _at(text, "x", "y")) == ("nothing yet", (2.0, 14.0))


# damage_svg: grouped_bars_svg of the rounds (at least one) and the sides.
def test_damage_per_round_as_bars() -> None:
    """4 turns of 160 px, 3 sides: bars 40 wide; top 7, so 20 px a point."""
    stats = _stats([], now=35, by_round={"red": [4, 0, 7, 2], "blue": [0, 2.5, 0, 0], "green": [1, 0, 0, 0]}, rounds=4, round_name="turn")
    root = _svg(charts.damage_svg(stats))
    assert root.get("aria-label") == "Damage per round by side" and root.get("height") == "222"
    bars = [r for r in _kids(root, "rect") if r.find(_NS + "title") is not None]
    assert [(_at(b, "x", "y", "height"), b.get("fill"), _title(b)) for b in bars] == [
        ((60.0, 70.0, 80.0), "#1f77b4", "red, turn 1: 4"),  # 40 + 20
        ((140.0, 130.0, 20.0), "#2ca02c", "green, turn 1: 1"),  # 40 + 100
        ((260.0, 100.0, 50.0), "#d62728", "blue, turn 2: 2.5"),  # 40 + 160 + 60
        ((380.0, 10.0, 140.0), "#1f77b4", "red, turn 3: 7"),
        ((540.0, 110.0, 40.0), "#1f77b4", "red, turn 4: 2"),
    ]
    assert [n.text for n in _kids(root, "text", text_anchor="middle")] == ["1", "2", "3", "4"]
    assert [t.text for t in _kids(root, "text", font_size="11")] == ["red: 13 in all", "blue: 2.5 in all", "green: 1 in all"]


def test_damage_in_one_round_and_in_none() -> None:
    """One round: one slot the whole 640 px, the bar 320 wide at 40 + 160. A side with no
    round counted yet (a FightStats made by hand): one empty slot, nothing read past its list."""
    one = _svg(charts.damage_svg(_stats([], now=3, by_round={"red": [5]}, rounds=1)))
    (bar,) = [r for r in _kids(one, "rect") if r.find(_NS + "title") is not None]
    assert _at(bar, "x", "width", "height") == (200.0, 320.0, 140.0)
    assert [(n.text, n.get("x")) for n in _kids(one, "text", text_anchor="middle")] == [("1", "360.0")]
    none = _svg(charts.damage_svg(_stats([], now=0, by_round={"red": []}, rounds=0)))
    assert [r for r in _kids(none, "rect") if r.find(_NS + "title") is not None] == []
    assert [t.text for t in _kids(none, "text", font_size="11")] == ["red: 0 in all"]
    empty = _svg(charts.damage_svg(_stats([], now=0)))
    assert [t.text for t in empty] == ["no damage dealt"]


# ------------------------------------------------------------------ names are data in the SVG
def test_every_name_in_the_svg_is_text_never_markup() -> None:
    """Names, templates, conditions, resources, labels and sides holding `<&"` come back
    as the same characters once parsed, and no element of theirs appears."""
    odd = '<b>&"x"</b>'
    row = Row(odd, odd, bars=[Bar(0, 2, "active", False, "completed", odd)], marks=[(odd, 0, 1)],
              resource=odd, maximum=5, series=[(0, 5)])
    hidden = Row(odd, odd, withheld=True, label=odd)
    stats = _stats([row, hidden], now=2, by_round={odd: [3]}, rounds=1)
    for drawn in (charts.timeline_svg(stats), charts.resource_svg(stats), charts.damage_svg(stats),
                  _grouped(1, [odd], {(0, 0): 1}, label=odd)):
        root = _svg(drawn)
        assert "<b>" not in drawn and all(el.tag.rsplit("}", 1)[-1] != "b" for el in root.iter())
        words = [t for el in root.iter() for t in (el.text, el.get("aria-label")) if t]
        assert any(odd in w for w in words), drawn
    timeline = _svg(charts.timeline_svg(stats))
    assert _kids(timeline, "text", font_size="12")[0].text == odd
    assert _title(_kids(timeline, "g")[0]) == f"{odd}: active, 0 to 2, completed"
    assert _title(_kids(timeline, "line", stroke="#9467bd")[0]) == f"{odd}: segments 0 to 1"
    resource = _svg(charts.resource_svg(stats))
    assert _title(_kids(resource, "polyline")[0]) == f"{odd}: {odd}"
    assert [t.text for t in _kids(resource, "text", font_size="11")] == [f"{odd} {odd} of 5: 5", f"{odd}: figures withheld from viewers ({odd})"]
    damage = _svg(charts.damage_svg(stats))
    assert [t.text for t in _kids(damage, "text", font_size="11")] == [f"{odd}: 3 in all"]
