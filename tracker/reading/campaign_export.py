"""`tracker campaign export NAME --format md|html`: the campaign as a document.

The party as it stands, the fights in order with their outcomes and what each cost the
party, the rests, and each character's figures over the campaign (tracker.reading.campaign),
with in HTML two charts as inline SVG (no script, no external reference): damage each
character dealt in each fight, and each character's main resource at the end of each
fight. Text is escaped as the fight's export escapes it (tracker.reading.export: `_md`, `_h`);
`--viewer` uses the viewers' view of each fight's figures.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tracker.reading import campaign as reading
from tracker.persistence.campaign import Campaign
from tracker.reading.charts import _PALETTE, _SVG, _e, _num, grouped_bars_svg
from tracker.engine.kinds import fmt
from tracker.reading.export import _STYLE, _h, _md


def _rows(camp: Campaign, folder: Path, viewer: bool) -> dict[str, Any]:
    figures = reading.stats(camp, viewer=viewer)
    party = [(pc.name, reading._figures(pc)) for pc in camp.party()]
    fights = []
    for n, fight in enumerate(camp.fights, 1):
        status = reading.fight_status(folder, fight)
        spent = {
            pid: ", ".join(f"{k} {fmt(fight.before[pid]['resources'].get(k, v))} -> {fmt(v)}" for k, v in after["resources"].items() if fight.before.get(pid, {}).get("resources", {}).get(k, v) != v)
            for pid, after in fight.after.items()
        }
        # A character the fight left as it was cost nothing: not listed (as `campaign end` says "unchanged").
        cost = "; ".join(f"{camp.pcs[pid].name if pid in camp.pcs else pid}: {what}" for pid, what in spent.items() if what)
        fights.append((str(n), fight.name, fight.file, fight.outcome or status, str(fight.segment) if not fight.open else "", cost or "nothing"))
    rests = [(fmt(r.args["hours"]), r.args["rule"], str(r.args.get("note") or "")) for r in camp.rests]
    totals = [
        (pc["name"], str(pc["fights"]), str(pc["declared"]), str(pc["succeeded"]), str(pc["missed"]),
         ", ".join(f"{k} {fmt(v)}" for k, v in pc["dealt"].items()) or "none",
         ", ".join(f"{k} {fmt(v)}" for k, v in pc["taken"].items()) or "none",
         ", ".join(f"{k} {fmt(v)}" for k, v in pc["costs"].items()) or "none",
         f"{pc['acting']}/{pc['idle']}/{pc['down']}", f"{pc['luck']['verdict']} ({pc['luck']['successes']} of {pc['luck']['rolls']})")
        for pc in figures["party"]
    ]
    return {"party": party, "fights": fights, "rests": rests, "totals": totals, "figures": figures}


_HEADS = {
    "party": ("Character", "As they stand"),
    "fights": ("#", "Fight", "File", "Outcome", "Segments", "What it cost the party"),
    "rests": ("Hours", "Rule", "Note"),
    "totals": ("Character", "Fights", "Actions", "Succeeded", "Missed", "Dealt", "Taken", "Costs", "Acting/idle/down", "Luck"),
}
_TITLES = {"party": "The party", "fights": "Fights", "rests": "Rests", "totals": "Over the whole campaign"}


def markdown(camp: Campaign, folder: Path, viewer: bool = False) -> str:
    data = _rows(camp, folder, viewer)
    lines = [f"# {_md(camp.name)}", "", f"A campaign of {_md(camp.ruleset)}."]
    for key in ("party", "fights", "rests", "totals"):
        lines += ["", f"## {_TITLES[key]}", ""]
        if not data[key]:
            lines.append("None yet.")
            continue
        lines.append("| " + " | ".join(_HEADS[key]) + " |")
        lines.append("|" + "---|" * len(_HEADS[key]))
        lines += ["| " + " | ".join(_md(cell) for cell in row) + " |" for row in data[key]]
    return "\n".join(lines) + "\n"


def _table(headers: tuple[str, ...], rows: list[tuple[str, ...]]) -> list[str]:
    out = ["<table>", "<tr>" + "".join(f"<th>{h}</th>" for h in headers) + "</tr>"]
    return out + ["<tr>" + "".join(f"<td>{_h(cell)}</td>" for cell in row) + "</tr>" for row in rows] + ["</table>"]


def dealt_svg(figures: dict[str, Any]) -> str:
    """Damage each character dealt in each fight (every resource summed), grouped by fight."""
    fights = figures["per_fight"]
    party = figures["party"]
    amounts = [[sum(row["party"].get(pc["pc"], {}).get("dealt", {}).values()) for pc in party] for row in fights]
    return grouped_bars_svg(
        "Damage dealt per fight", "no fight ended yet", len(fights), [pc["name"] for pc in party],
        lambda f, i: amounts[f][i],
        lambda f, i: f"{party[i]['name']}, {fights[f]['name']}: {_num(amounts[f][i])}",
        lambda i: str(party[i]["name"]),
    )


def standing_svg(camp: Campaign, down_when: tuple[str, ...]) -> str:
    """Each character's main resource (the first that puts them down) at the end of each
    fight, as a share of its maximum: who carried the damage, fight after fight."""
    ended = [f for f in camp.fights if not f.open]
    if not ended:
        return f'<svg {_SVG} aria-label="The party after each fight" width="300" height="20"><text x="2" y="14" font-size="12">no fight ended yet</text></svg>'
    name_w, plot_w, plot_h = 40, 640, 140
    step = plot_w / max(len(ended) - 1, 1)
    height = plot_h + 40 + 14 * len(camp.pcs)
    out = [f'<svg {_SVG} aria-label="The party after each fight" width="{name_w + plot_w + 10}" height="{height}" viewBox="0 0 {name_w + plot_w + 10} {height}">',
           f'<text x="{name_w - 4}" y="18" font-size="10" text-anchor="end">100%</text>',
           f'<line x1="{name_w}" y1="{plot_h + 10}" x2="{name_w + plot_w}" y2="{plot_h + 10}" stroke="#999"/>']
    for i, pc in enumerate(camp.pcs.values()):
        points = []
        for n, fight in enumerate(ended):
            after = fight.after.get(pc.id)
            if after is None:
                continue
            key = next((k for k in down_when if k in after["maxima"]), next(iter(after["maxima"]), ""))
            top = after["maxima"].get(key) or 0
            if not top:
                continue
            share = max(0.0, min(1.0, after["resources"].get(key, 0) / top))
            points.append((name_w + n * step, plot_h + 10 - plot_h * share, f"{pc.name}, {fight.name}: {key} {fmt(after['resources'].get(key, 0))}/{fmt(top)}"))
        colour = _PALETTE[i % len(_PALETTE)]
        if len(points) > 1:
            out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{" ".join(f"{x:.1f},{y:.1f}" for x, y, _ in points)}"/>')
        out += [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{colour}"><title>{_e(t)}</title></circle>' for x, y, t in points]
        out.append(f'<rect x="{name_w}" y="{plot_h + 40 + 14 * i - 9}" width="10" height="10" fill="{colour}"/><text x="{name_w + 14}" y="{plot_h + 40 + 14 * i}" font-size="11">{_e(pc.name)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def html_page(camp: Campaign, folder: Path, viewer: bool = False) -> str:
    from rulesets import registry

    data = _rows(camp, folder, viewer)
    title = _h(camp.name)
    lines = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">', f"<title>{title}</title>", f"<style>{_STYLE}</style>", "</head>", "<body>"]
    lines += [f"<h1>{title}</h1>", f"<p>A campaign of {_h(camp.ruleset)}.</p>"]
    for key in ("party", "fights", "rests", "totals"):
        lines.append(f"<h2>{_TITLES[key]}</h2>")
        lines += _table(_HEADS[key], data[key]) if data[key] else ["<p>None yet.</p>"]
    try:
        down_when = tuple(registry.get(camp.ruleset).down_when)
    except Exception:  # noqa: BLE001 - a game not installed: its first resource
        down_when = ()
    lines += ["<h3>Damage dealt in each fight</h3>", dealt_svg(data["figures"])]
    lines += ["<h3>The party after each fight</h3>", standing_svg(camp, down_when)]
    lines += ["</body>", "</html>"]
    return "\n".join(lines) + "\n"


def export(camp: Campaign, folder: Path, fmt_: str, viewer: bool = False) -> str:
    return html_page(camp, folder, viewer) if fmt_ == "html" else markdown(camp, folder, viewer)
