"""The fight drawn: the after-the-fight report as text and SVG, in the timeline's glyphs
(tracker.reading.glyphs, which the app's timeline strip draws with too).

`report_text(stats, width)` is what `tracker stats` prints and the app's stats screen
shows (the same lines, so they cannot disagree): the tables, then three charts scaled
to the width: the whole fight's timeline (one row per combatant), each combatant's
main resource over the fight's segments (a sparkline against its maximum), and the
damage dealt per round by side. `report_svg(stats)` draws the same three charts as
inline SVG for `tracker export --format html`: no script, no external reference, every
name escaped. Text from the save is data: made visible (tracker.engine.text.visible) and
clipped in cells, never markup.
"""

from __future__ import annotations

from collections.abc import Callable

import math
from typing import TYPE_CHECKING, Any

from tracker.engine.text import clip, fit, printable
from tracker.reading.glyphs import (
    CONDITION_GLYPH, CUT_GLYPH, END_GLYPH, LEGEND, OVER_PASSIVE, PASSIVE_GLYPH, THROWBACK_GLYPH, bar_glyph,
)

if TYPE_CHECKING:  # names for the annotations: the figures' module and html load with the report
    from tracker.reading.stats import Bar, FightStats, Luck, Row, Tally

SPARKS = "▁▂▃▄▅▆▇█"
NAME = 12
COMPLETED = "completed"


def _num(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.2f}".rstrip("0").rstrip(".") if value != int(value) else str(int(value))
    return str(value)


def amounts_text(table: dict[str, Any] | None, withheld: bool = False) -> str:
    if withheld:
        return "withheld"
    return ", ".join(f"{k} {_num(v)}" for k, v in (table or {}).items()) or "-"


def luck_line(luck: Luck) -> str:
    """'2 of 3 hit, expected 2.55; 42.1% for a result this far off: about as expected'."""
    if not luck.rolls:
        extra = f" ({luck.unrecorded} roll(s) made before chances were kept)" if luck.unrecorded else ""
        return luck.verdict + extra
    extra = f"; {luck.unrecorded} more without a chance" if luck.unrecorded else ""
    if not luck.weighed:
        return f"{luck.successes} of {luck.rolls} (expected {float(luck.expected):.2f}): {luck.verdict}{extra}"
    tail = float(luck.tail)
    return (f"{luck.successes} of {luck.rolls} (expected {float(luck.expected):.2f}), "
            f"{tail:.1%}{'' if luck.exact else ' approx.'}: {luck.verdict}{extra}")


# ------------------------------------------------------------------ text
def _scale(stats: FightStats, cells: int) -> int:
    """Segments per column so the fight (to its last bar) fits in `cells` columns."""
    last = max([stats.now] + [b.end for r in stats.rows for b in r.bars]) + 1
    return max(1, math.ceil(last / max(cells, 1)))


def timeline_lines(stats: FightStats, width: int) -> list[str]:
    cells = max(8, width - NAME)
    per = _scale(stats, cells)
    columns = min(cells, math.ceil((max([stats.now] + [b.end for r in stats.rows for b in r.bars]) + 1) / per))
    axis = [" "] * columns
    for col in range(0, columns, 10):
        label = str(col * per)
        if col + len(label) <= columns and all(c == " " for c in axis[col: col + len(label)]):
            axis[col: col + len(label)] = list(label)
    now_col = stats.now // per
    if now_col < columns and axis[now_col] == " ":
        axis[now_col] = "▼"
    head = fit("segment" if per == 1 else f"seg (x{per})", NAME)
    lines = [head + "".join(axis)]
    for row in stats.rows:
        lines.append(fit(clip(printable(row.name), NAME - 1), NAME) + _row_cells(row, per, columns))
    lines.append(f"{'':{NAME}}{LEGEND.replace(chr(10), ' ')} {THROWBACK_GLYPH}throwback ▼now")
    return lines


def _row_cells(row: Row, per: int, columns: int) -> str:
    cells = [" "] * columns
    # Passive first so an active bar drawn later wins the cells they share, as in the app.
    for bar in sorted(row.bars, key=lambda b: (b.mode == "active", b.start)):
        g = bar_glyph(bar.mode, bar.maintained)
        for col in range(bar.start // per, min(max(bar.end // per, bar.start // per + 1), columns)):
            under = cells[col]
            cells[col] = OVER_PASSIVE.get(g, g) if under == PASSIVE_GLYPH else g
    # Ends last, so an action started on the segment another completed leaves the cap seen.
    for bar in row.bars:
        end = bar.end // per
        if end < columns and bar.status != "in progress":
            cells[end] = END_GLYPH if bar.status == COMPLETED else CUT_GLYPH
    for what, start, end in row.marks:
        if what == "throwback":
            if start // per < columns:
                cells[start // per] = THROWBACK_GLYPH
            continue
        for col in range(start // per, min(end // per + 1, columns)):
            if cells[col] == " ":
                cells[col] = CONDITION_GLYPH
    return "".join(cells)


def value_at(series: list[tuple[int, int | float]], segment: int) -> int | float | None:
    """The value a step series holds on `segment` (its last change at or before it)."""
    found = None
    for at, value in series:
        if at > segment:
            break
        found = value
    return found


def _full(row: Row) -> int | float:
    """What a resource's full height stands for: its maximum, else the highest value it
    held. A resource never above zero has none (1): its values are drawn empty, not full."""
    if isinstance(row.maximum, (int, float)) and row.maximum > 0:
        return row.maximum
    return max((v for _, v in row.series if v > 0), default=1)


def resource_lines(stats: FightStats, width: int) -> list[str]:
    lines = []
    label_cells = 24
    cells = max(8, width - label_cells - 1)
    per = max(1, math.ceil((stats.now + 1) / cells))
    columns = min(cells, stats.now // per + 1)
    for row in stats.rows:
        name = clip(printable(row.name), 11)
        if row.withheld:
            lines.append(fit(name, 12) + "figures withheld from viewers" + (f" ({row.label})" if row.label else ""))
            continue
        if not row.series or not row.resource:
            lines.append(fit(name, 12) + "no resource to follow")
            continue
        top = _full(row)
        spark = []
        for col in range(columns):
            v = value_at(row.series, min(col * per + per - 1, stats.now))
            share = 0.0 if v is None else max(0.0, min(1.0, float(v) / float(top)))
            spark.append(" " if v is None else SPARKS[min(len(SPARKS) - 1, int(share * (len(SPARKS) - 1) + 0.5))] if v > 0 else "_")
        first, last = row.series[0][1], row.series[-1][1]
        label = fit(f"{name} {clip(printable(row.resource), 5)} {_num(first)}>{_num(last)}", label_cells)
        lines.append(label + " " + "".join(spark))
    lines.append(f"  one column a segment{'' if per == 1 else f' per {per}'}; full height: the starting value")
    return lines


def damage_lines(stats: FightStats, width: int) -> list[str]:
    if not stats.by_round:
        return ["(no damage dealt)"]
    rounds = stats.rounds
    group = max(1, math.ceil(rounds / 12))  # at most 12 groups of rounds in view
    sides = list(stats.by_round)
    totals = {s: [sum(v[i: i + group]) for i in range(0, rounds, group)] for s, v in stats.by_round.items()}
    top = max([max(v) for v in totals.values()] + [1])
    side_cells = 12
    room = max(5, width - 8 - side_cells - 8)
    lines = []
    rn = stats.round_name
    for g in range(len(next(iter(totals.values())))):
        first = g * group + 1
        last = min(rounds, first + group - 1)
        head = f"{rn[:1].upper()}{first}" if first == last else f"{rn[:1].upper()}{first}-{last}"
        for i, side in enumerate(sides):
            amount = totals[side][g]
            bar = "█" * (round(room * amount / top) if amount > 0 else 0)
            lines.append(fit(head if i == 0 else "", 8) + fit(clip(printable(side), side_cells - 1), side_cells) + f"{bar} {_num(amount)}")
    return lines


_ACTION_HEAD = ("decl", "succ", "miss", "none", "secr", "cut", "act", "idle", "down")


def _action_cells(t: Tally) -> list[str]:
    return [str(v) for v in (t.declared, t.succeeded, t.missed, t.no_roll, t.secret, t.aborted + t.interrupted, t.acting, t.idle, t.down)]


def report_text(stats: FightStats, width: int = 80) -> str:
    width = max(width, 40)
    title = f"{stats.name} ({stats.ruleset}) after segment {stats.now}, {stats.round_name} {stats.rounds}"
    if stats.viewer:
        title += " (as viewers see it)"
    lines = [clip(printable(title), width), ""]
    name_cells = max(10, min(16, width - 6 * len(_ACTION_HEAD)))
    head = fit("Actions", name_cells) + "".join(f"{h:>6}" for h in _ACTION_HEAD)
    lines.append(head)
    for group, tallies in (("", stats.combatants), ("side ", stats.sides)):
        for t in tallies:
            lines.append(fit(clip(printable(group + t.name), name_cells - 1), name_cells) + "".join(f"{c:>6}" for c in _action_cells(t)))
    lines.append("  succ/miss: succeeded or missed by the roll; none: no roll; secr: secret;")
    lines.append("  cut: aborted or interrupted; act, idle, down: segments")
    lines += ["", "Damage and costs (per resource)"]
    for group, tallies in (("", stats.combatants), ("side ", stats.sides)):
        for t in tallies:
            who = clip(printable(group + t.name), name_cells - 1)
            parts = [f"dealt {amounts_text(t.dealt)}", f"taken {amounts_text(t.taken, t.withheld)}", f"costs {amounts_text(t.costs, t.withheld)}"]
            if t.healed and not t.withheld:
                parts.append(f"healed {amounts_text(t.healed)}")
            if t.withheld and t.label:
                parts.append(t.label)
            lines.append(fit(who, name_cells) + printable("; ".join(parts)))
    if "by hand" in stats.by_round:
        lines.append("  by hand: damage the GM entered with the damage command")
    lines += ["", "Luck: successes against the chances the declare form showed; the % is the",
              "exact chance (Poisson-binomial of those chances) of a count this far from",
              "the expectation or further, either way"]
    for group, tallies in (("", stats.combatants), ("side ", stats.sides)):
        for t in tallies:
            lines.append(fit(clip(printable(group + t.name), name_cells - 1), name_cells) + luck_line(t.luck))
    if stats.withheld:
        lines += ["", "Not shown to viewers:"] + [f"  {printable(w)}" for w in stats.withheld]
    lines += ["", "Timeline of the whole fight"] + timeline_lines(stats, width)
    lines += ["", "Main resource over the fight"] + resource_lines(stats, width)
    lines += ["", f"Damage dealt per {stats.round_name}, by side"] + damage_lines(stats, width)
    # Cut in cells, not characters: a CJK resource name takes two cells a character.
    return "\n".join(clip(line, width) for line in lines)


# ------------------------------------------------------------------ SVG
def _e(value: Any) -> str:
    import html  # only the exports' SVG escapes (not loaded for the terminal)

    return html.escape(printable(str(value)), quote=True)


_PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22")
_SVG = 'xmlns="http://www.w3.org/2000/svg" role="img" font-family="sans-serif"'


def _bar_rect(bar: Bar, x0: float, y: float, sx: float, h: float) -> str:
    x, w = x0 + bar.start * sx, max((bar.end - bar.start) * sx, 1.0)
    title = f"<title>{_e(bar.template)}: {bar.mode}{' (maintained)' if bar.maintained else ''}, {bar.start} to {bar.end}, {bar.status}</title>"
    if bar.maintained:
        shape = f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h / 2:.1f}" fill="url(#maint)" stroke="#333"/>'
    elif bar.mode == "active":
        shape = f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h / 2:.1f}" fill="#1f77b4"/>'
    else:
        shape = f'<rect x="{x:.1f}" y="{y + h / 2:.1f}" width="{w:.1f}" height="{h / 2:.1f}" fill="#ff7f0e"/>'
    mark = ""
    if bar.status != "in progress":
        xe = x0 + bar.end * sx
        if bar.status == COMPLETED:
            mark = f'<line x1="{xe:.1f}" y1="{y:.1f}" x2="{xe:.1f}" y2="{y + h:.1f}" stroke="#000"/>'
        else:
            mark = f'<text x="{xe:.1f}" y="{y + h - 2:.1f}" font-size="12" text-anchor="middle" fill="#c00">×</text>'
    return f"<g>{title}{shape}{mark}</g>"


def tick_step(span: int) -> int:
    """A round step (1, 2, 5, 10, 20, 50, ...) giving at most a dozen ticks over `span`."""
    step = 1
    while span / step > 12:
        for factor in (2, 5, 10):
            if span / (step * factor) <= 12:
                return step * factor
        step *= 10
    return step


def timeline_svg(stats: FightStats) -> str:
    name_w, plot_w, row_h = 120, 600, 20
    last = max([stats.now] + [b.end for r in stats.rows for b in r.bars]) + 1
    sx = plot_w / last
    height = row_h * (len(stats.rows) + 3)
    out = [f'<svg {_SVG} aria-label="Timeline of the whole fight" width="{name_w + plot_w + 10}" height="{height}" viewBox="0 0 {name_w + plot_w + 10} {height}">',
           '<defs><pattern id="maint" width="4" height="4" patternUnits="userSpaceOnUse"><path d="M0,4 L4,0" stroke="#2ca02c" stroke-width="1.5"/></pattern></defs>']
    step = tick_step(last)
    for s in range(0, last, step):
        x = name_w + s * sx
        out.append(f'<line x1="{x:.1f}" y1="{row_h - 4}" x2="{x:.1f}" y2="{height - 2 * row_h}" stroke="#ddd"/><text x="{x:.1f}" y="{row_h - 6}" font-size="10">{s}</text>')
    xn = name_w + stats.now * sx
    out.append(f'<line x1="{xn:.1f}" y1="{row_h - 4}" x2="{xn:.1f}" y2="{height - 2 * row_h}" stroke="#c00" stroke-dasharray="3,2"><title>now: segment {stats.now}</title></line>')
    for i, row in enumerate(stats.rows):
        y = row_h * (i + 1)
        out.append(f'<text x="2" y="{y + row_h - 6}" font-size="12">{_e(row.name)}</text>')
        for bar in sorted(row.bars, key=lambda b: (b.mode == "active", b.start)):
            out.append(_bar_rect(bar, name_w, y + 2, sx, row_h - 4))
        for what, start, end in row.marks:
            if what == "throwback":
                x = name_w + start * sx
                out.append(f'<text x="{x:.1f}" y="{y + row_h - 5}" font-size="13" fill="#9467bd"><title>throwback on segment {start}, airborne until {end}</title>↯</text>')
            else:
                out.append(f'<line x1="{name_w + start * sx:.1f}" y1="{y + row_h - 2}" x2="{name_w + min(end, last) * sx:.1f}" y2="{y + row_h - 2}" stroke="#9467bd" stroke-dasharray="2,2"><title>{_e(what)}: segments {start} to {end}</title></line>')
    out.append(f'<text x="2" y="{height - row_h - 4}" font-size="10">blue, upper half: active · orange, lower half: passive · hatched: maintained · end line: completed</text>')
    out.append(f'<text x="2" y="{height - 6}" font-size="10">×: aborted or interrupted · dotted: a condition · ↯: a throwback · red dashes: now (segment {stats.now})</text>')
    out.append("</svg>")
    return "\n".join(out)


def resource_svg(stats: FightStats) -> str:
    name_w, plot_w, plot_h = 120, 600, 120
    last = max(stats.now, 1)
    sx = plot_w / last
    rows = [r for r in stats.rows if r.series and not r.withheld]
    height = plot_h + 30 + 14 * (len(stats.rows) + 1)
    out = [f'<svg {_SVG} aria-label="Main resource over the fight" width="{name_w + plot_w + 10}" height="{height}" viewBox="0 0 {name_w + plot_w + 10} {height}">',
           f'<rect x="{name_w}" y="10" width="{plot_w}" height="{plot_h}" fill="none" stroke="#999"/>',
           f'<text x="{name_w - 4}" y="18" font-size="10" text-anchor="end">full</text><text x="{name_w - 4}" y="{plot_h + 10}" font-size="10" text-anchor="end">0</text>',
           f'<text x="{name_w}" y="{plot_h + 24}" font-size="10">segment 0</text><text x="{name_w + plot_w}" y="{plot_h + 24}" font-size="10" text-anchor="end">segment {stats.now}</text>']
    for i, row in enumerate(rows):
        top = _full(row)
        points = []
        prev = None
        for at, value in row.series + [(stats.now, row.series[-1][1])]:
            y = 10 + plot_h * (1 - max(0.0, min(1.0, float(value) / float(top))))
            x = name_w + at * sx
            if prev is not None:
                points.append(f"{x:.1f},{prev:.1f}")
            points.append(f"{x:.1f},{y:.1f}")
            prev = y
        colour = _PALETTE[i % len(_PALETTE)]
        out.append(f'<polyline points="{" ".join(points)}" fill="none" stroke="{colour}" stroke-width="2"><title>{_e(row.name)}: {_e(row.resource)}</title></polyline>')
    y = plot_h + 40
    for row in stats.rows:
        if row.withheld:
            out.append(f'<text x="{name_w}" y="{y}" font-size="11">{_e(row.name)}: figures withheld from viewers{_e(" (" + row.label + ")") if row.label else ""}</text>')
        elif row.series:
            colour = _PALETTE[rows.index(row) % len(_PALETTE)]
            values = " → ".join(_num(v) for _, v in row.series)
            of = "" if row.maximum is None else f" of {_e(_num(row.maximum))}"  # no maximum: none to name
            out.append(f'<rect x="{name_w}" y="{y - 9}" width="10" height="10" fill="{colour}"/><text x="{name_w + 14}" y="{y}" font-size="11">{_e(row.name)} {_e(row.resource)}{of}: {_e(values)}</text>')
        y += 14
    out.append("</svg>")
    return "\n".join(out)


def grouped_bars_svg(label: str, empty: str, slots: int, series: list[str], amount: Callable[[int, int], int | float],
                     title: Callable[[int, int], str], legend: Callable[[int], str]) -> str:
    """Bars in groups along a line: one group per slot (a round, a fight), one bar per
    series (a side, a character) in the palette's colours, a legend below. `amount(slot,
    i)` is the height's figure; `title` and `legend` say it in words (escaped here)."""
    name_w, plot_w, plot_h = 40, 640, 140
    if not series or not slots:
        return f'<svg {_SVG} aria-label="{_e(label)}" width="300" height="20"><text x="2" y="14" font-size="12">{_e(empty)}</text></svg>'
    top = max([amount(r, i) for r in range(slots) for i in range(len(series))] + [1])
    slot = plot_w / slots
    bw = max(slot / (len(series) + 1), 1.0)
    height = plot_h + 40 + 14 * len(series)
    out = [f'<svg {_SVG} aria-label="{_e(label)}" width="{name_w + plot_w + 10}" height="{height}" viewBox="0 0 {name_w + plot_w + 10} {height}">',
           f'<line x1="{name_w}" y1="{plot_h + 10}" x2="{name_w + plot_w}" y2="{plot_h + 10}" stroke="#999"/>',
           f'<text x="{name_w - 4}" y="18" font-size="10" text-anchor="end">{_e(_num(top))}</text>']
    for r in range(slots):
        x = name_w + r * slot
        if slots <= 24 or r % math.ceil(slots / 24) == 0:
            out.append(f'<text x="{x + slot / 2:.1f}" y="{plot_h + 24}" font-size="10" text-anchor="middle">{r + 1}</text>')
        for i in range(len(series)):
            figure = amount(r, i)
            if figure <= 0:
                continue
            h = plot_h * figure / top
            out.append(f'<rect x="{x + bw * (i + 0.5):.1f}" y="{plot_h + 10 - h:.1f}" width="{bw:.1f}" height="{h:.1f}" fill="{_PALETTE[i % len(_PALETTE)]}"><title>{_e(title(r, i))}</title></rect>')
    y = plot_h + 40
    for i in range(len(series)):
        out.append(f'<rect x="{name_w}" y="{y - 9}" width="10" height="10" fill="{_PALETTE[i % len(_PALETTE)]}"/><text x="{name_w + 14}" y="{y}" font-size="11">{_e(legend(i))}</text>')
        y += 14
    out.append("</svg>")
    return "\n".join(out)


def damage_svg(stats: FightStats) -> str:
    sides = list(stats.by_round)
    return grouped_bars_svg(
        "Damage per round by side", "no damage dealt", max(stats.rounds, 1) if sides else 0, sides,
        lambda r, i: stats.by_round[sides[i]][r] if r < stats.rounds else 0,
        lambda r, i: f"{sides[i]}, {stats.round_name} {r + 1}: {_num(stats.by_round[sides[i]][r])}",
        lambda i: f"{sides[i]}: {_num(sum(stats.by_round[sides[i]]))} in all",
    )
