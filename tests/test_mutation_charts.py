"""Direct tests of tracker.reading.charts: the glyphs, figures and charts of `tracker stats`, the
app's stats screen and the HTML export, each worked by hand from the module docstring
(active `▀`, passive `▄`, both at once `█`, maintained `▒` (`▓` over passive), `┤` where
an action completed, `×` where it was cut, `┄` while a condition lasts, `↯` where a
throwback landed) on small figures made here."""

from __future__ import annotations

from fractions import Fraction

import pytest

from tracker.reading import charts
from tracker.reading.stats import Bar, FightStats, Luck, Row, Tally


def _stats(rows: list[Row], now: int, by_round: dict[str, list[int | float]] | None = None, rounds: int = 1) -> FightStats:
    return FightStats("duel", "freeform", now, rounds, "round", 10, False, [Tally("Ann")], [Tally("Ann")], rows, by_round or {}, [])


# ------------------------------------------------------------------ small pieces
def test_a_bars_glyph() -> None:
    assert charts.bar_glyph("active", False) == "▀"
    assert charts.bar_glyph("passive", False) == "▄"
    assert charts.bar_glyph("active", True) == "▒"
    assert charts.bar_glyph("passive", True) == "▒"


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
