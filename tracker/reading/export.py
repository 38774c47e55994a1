"""`tracker export FILE [--format md|html] [--viewer] [--at SEGMENT] [-o OUT]`: an encounter as a document.

The roster, the final state, every action and the whole combat log, as Markdown or a
standalone HTML page, for a campaign journal or a player handout; then "After the
fight": each combatant's and side's figures (tracker.reading.stats), and in HTML the three
charts as inline SVG (tracker.reading.charts: no script, no external reference). The data comes from
`tracker.reading.report.to_json` (the same view `tracker show` prints), so `--viewer` means
exactly what a viewer may see there: no hidden combatants, no secret dice, no log line
about a hidden combatant or a secret roll. `--at SEGMENT` is the fight as it stood at the
end of that segment (tracker.engine.replay), its figures up to it.

Decisions: docs/decisions/0027-export-escaping.md
"""

from __future__ import annotations

import argparse
import html
import re
from pathlib import Path
from typing import Any, TextIO

from tracker.persistence import paths
from tracker.persistence import folder
from tracker.engine.text import printable
from tracker.engine.kinds import fmt


def _md(value: Any) -> str:
    text = printable(str(value))
    return re.sub(r"([\\`*_\[\]<>#|~&])", r"\\\1", text)


def _h(value: Any) -> str:
    return html.escape(printable(str(value)), quote=True)


def _number(v: Any) -> str:
    return fmt(v)


def _resources(c: dict[str, Any]) -> str:
    parts = []
    for key, value in c["resources"].items():
        maximum = c["maxima"].get(key)
        parts.append(f"{key} {_number(value)}/{_number(maximum)}" if maximum is not None and isinstance(value, (int, float)) else f"{key} {value}")
    if c.get("health"):  # label mode: Healthy / Bloodied / Down, as `show --viewer` says
        parts.append(str(c["health"]))
    return ", ".join(parts) or "-"


def _stats(c: dict[str, Any]) -> str:
    return ", ".join(f"{k} {_number(v)}" for k, v in c["stats"].items()) or "-"


def _conditions(c: dict[str, Any]) -> str:
    return ", ".join(f"{n} until {s}" for n, s in c["conditions"].items()) or "-"


def _action(a: dict[str, Any]) -> str:
    chain = f" (maintained x{a['maintained']})" if a["maintained"] else ""
    targets = f" on {', '.join(a['targets'])}" if a["targets"] else ""
    summary = f": {a['summary']}" if a.get("summary") else ""
    return f"{a['actor']}: {a['mode']} {a['template']}{targets}{chain}, {a['start']} -> {a['completes']}, {a['status']}{summary}"


def document(data: dict[str, Any]) -> dict[str, Any]:
    """What the document shows, as rows of plain (not yet escaped) text."""
    replay = data.get("replay")
    return {
        "title": f"{data['name']} ({data['ruleset']})",
        "clock": data["clock"] + (f", as the fight stood at the end of that segment (a replay of segments {replay['first']} to {replay['last']})" if replay else ""),
        "state_title": "State at the end of that segment" if replay else "Final state",
        "roster": [(c["name"], c["side"] or "-", _stats(c)) for c in data["combatants"]],
        "state": [(c["name"], c["state"], _resources(c), _conditions(c)) for c in data["combatants"]],
        "actions": [_action(a) for a in data["actions"]],
        "log": [(e["segment"], e["text"]) for e in data["log"]],
    }


def markdown(data: dict[str, Any], figures: Any = None) -> str:
    doc = document(data)
    lines = [f"# {_md(doc['title'])}", "", f"At {_md(doc['clock'])}.", "", "## Roster", ""]
    lines += ["| Name | Side | Sheet |", "|---|---|---|"]
    lines += [f"| {' | '.join(_md(cell) for cell in row)} |" for row in doc["roster"]]
    lines += ["", f"## {doc['state_title']}", "", "| Name | State | Resources | Conditions |", "|---|---|---|---|"]
    lines += [f"| {' | '.join(_md(cell) for cell in row)} |" for row in doc["state"]]
    lines += ["", "## Actions", ""]
    lines += [f"- {_md(text)}" for text in doc["actions"]] or ["(none)"]
    lines += ["", "## Combat log", ""]
    lines += [f"- \\[{segment}\\] {_md(text)}" for segment, text in doc["log"]] or ["(empty)"]
    if figures is not None:
        lines += ["", "## After the fight", "", f"| {' | '.join(_AFTER_HEAD)} |", "|" + "---|" * len(_AFTER_HEAD)]
        lines += [f"| {' | '.join(_md(cell) for cell in row)} |" for row in _after_rows(figures)]
        lines += ["", _LUCK_NOTE + " The charts are in the HTML export."]
        lines += [f"- {_md(w)}" for w in figures.withheld]
    return "\n".join(lines) + "\n"


_STYLE = "body{font-family:sans-serif;max-width:60em;margin:2em auto}table{border-collapse:collapse}td,th{border:1px solid #999;padding:.2em .5em;text-align:left}"


def _table(headers: tuple[str, ...], rows: list[tuple[Any, ...]]) -> list[str]:
    out = ["<table>", "<tr>" + "".join(f"<th>{h}</th>" for h in headers) + "</tr>"]
    out += ["<tr>" + "".join(f"<td>{_h(cell)}</td>" for cell in row) + "</tr>" for row in rows]
    return out + ["</table>"]


def _after_rows(figures: Any) -> list[tuple[str, ...]]:
    """One row per combatant, then per side: the after-the-fight figures as text."""
    from tracker.reading.charts import amounts_text, luck_line

    rows: list[tuple[str, ...]] = []
    for group, tallies in (("", figures.combatants), ("side ", figures.sides)):
        for t in tallies:
            rows.append((
                group + t.name, str(t.declared), str(t.succeeded), str(t.missed), str(t.no_roll + t.secret),
                amounts_text(t.dealt), amounts_text(t.taken, t.withheld), amounts_text(t.costs, t.withheld),
                f"{t.acting}/{t.idle}/{t.down}", luck_line(t.luck),
            ))
    return rows


_LUCK_NOTE = ("Luck: successes against the chances the declare form showed; the percentage is the exact chance, "
              "under the Poisson-binomial of those chances, of a count at least this far from the expectation either way.")
_AFTER_HEAD = ("Who", "Declared", "Succeeded", "Missed", "No roll / secret", "Dealt", "Taken", "Costs", "Acting/idle/down", "Luck")


def html_page(data: dict[str, Any], figures: Any = None) -> str:
    doc = document(data)
    title = _h(doc["title"])
    lines = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">', f"<title>{title}</title>", f"<style>{_STYLE}</style>", "</head>", "<body>"]
    lines += [f"<h1>{title}</h1>", f"<p>At {_h(doc['clock'])}.</p>", "<h2>Roster</h2>"]
    lines += _table(("Name", "Side", "Sheet"), doc["roster"])
    lines += [f"<h2>{doc['state_title']}</h2>"] + _table(("Name", "State", "Resources", "Conditions"), doc["state"])
    lines += ["<h2>Actions</h2>", "<ul>"] + [f"<li>{_h(text)}</li>" for text in doc["actions"]] + ["</ul>"]
    lines += ["<h2>Combat log</h2>", "<ol>"] + [f"<li>[{_h(segment)}] {_h(text)}</li>" for segment, text in doc["log"]] + ["</ol>"]
    if figures is not None:
        from tracker.reading.charts import damage_svg, resource_svg, timeline_svg

        lines += ["<h2>After the fight</h2>"] + _table(_AFTER_HEAD, _after_rows(figures))
        lines += [f"<p>{_LUCK_NOTE}</p>"]
        if figures.withheld:
            lines += ["<p>Not shown to viewers:</p>", "<ul>"] + [f"<li>{_h(w)}</li>" for w in figures.withheld] + ["</ul>"]
        lines += ["<h3>Timeline of the whole fight</h3>", timeline_svg(figures)]
        lines += ["<h3>Main resource over the fight</h3>", resource_svg(figures)]
        lines += [f"<h3>Damage dealt per {_h(figures.round_name)}, by side</h3>", damage_svg(figures)]
    lines += ["</body>", "</html>"]
    return "\n".join(lines) + "\n"


def render(encounter: Any, fmt: str, viewer: bool) -> str:
    from tracker.reading import report
    from tracker.reading.stats import fight_stats

    data = report.to_json(encounter, viewer=viewer)
    figures = fight_stats(encounter, viewer=viewer)
    return html_page(data, figures) if fmt == "html" else markdown(data, figures)


def chosen_format(fmt: str | None, output: str | None) -> str:
    if fmt:
        return fmt
    if output and Path(output).suffix.lower() in (".html", ".htm"):
        return "html"
    return "md"


def export(args: argparse.Namespace, saves: Path, out: TextIO) -> int:
    from tracker.engine import TrackerError
    from tracker.engine.replay import fold_at
    from tracker.persistence.store import EncounterFile

    loaded = EncounterFile(paths.resolve(args.file, saves)).load()
    shown = loaded.encounter if args.at is None else fold_at(loaded.encounter, args.at, "--at")  # a replay
    text = render(shown, chosen_format(args.format, args.output), args.viewer)
    if not args.output:
        out.write(text)
        return 0
    target = Path(args.output)
    try:
        was_link = folder.replace(target, text.encode("utf-8"), follow=False, what="export")
    except OSError as exc:
        raise TrackerError(f"{target}: cannot be written: {exc.strerror}") from None
    out.write(f"wrote {target}" + (" (it replaced a symbolic link that was there; the link's target is untouched)" if was_link else "") + "\n")
    return 0
