"""The encounter as text and as JSON, for `tracker show` and scripts.

Names, notes and log lines come from people and files, so they may hold control
characters (an old or hand-edited save). The text form passes every line through
`tracker.engine.text.visible`: no raw ESC (or any other control) reaches the terminal, and a
newline inside a name cannot forge a line. The JSON form keeps the data exact, so a
script can use a name in a command as it is; that is safe because the JSON is written
with `ensure_ascii` (the default of `json.dumps`): every control character and every
non-ASCII character, bidi overrides included, is written as a `\\uXXXX` escape, so the
bytes on the terminal are plain printable ASCII and the document stays valid JSON.
A program that decodes it and prints the strings must make them visible itself.
"""

from __future__ import annotations

from typing import Any

from tracker.engine import Encounter
from tracker.engine.replay import Fold
from tracker.reading.viewing import Sight, sight
from tracker.reading.roles import Role, who
from tracker.engine.text import printable


def _resources(view: Sight, c: Any) -> dict[str, Any]:
    """Resources as the reader may see them (enemies' per the encounter's `viewers` setting)."""
    shown = view.resources(c)
    out: dict[str, Any] = {"resources": shown.resources, "maxima": shown.maxima}
    if shown.label:
        out["health"] = shown.label
    return out


def _reader(viewer: bool, role: Role | None) -> Role:
    if role is not None and role.is_player:
        return role
    return Role.viewer() if viewer or (role is not None and role.is_viewer) else Role.gm()


def to_json(encounter: Encounter, *, viewer: bool = False, log_limit: int | None = None, role: Role | None = None) -> dict[str, Any]:
    """`role`: a player's view, what a viewer sees plus its own combatants (hidden or not)
    and the proposals and refusals about them. What a reader sees is `tracker.reading.viewing.sight`'s."""
    rnd, within = encounter.time.round_of(encounter.now)
    view = sight(encounter, _reader(viewer, role))
    log = view.log()
    if log_limit is not None:
        log = log[-log_limit:]
    now = encounter.now
    replay = {"replay": {"segment": now, "first": 0, "last": encounter.last}} if isinstance(encounter, Fold) else {}
    return {
        **replay,
        "name": encounter.setup.name,
        "ruleset": encounter.setup.ruleset,
        "segment": encounter.now,
        "round": rnd,
        "segment_in_round": within,
        "clock": encounter.time.clock(encounter.now),
        "next": encounter.next_happening() if view.everything else _next(view),
        "combatants": [
            {
                "name": c.name,
                "side": c.side,
                "state": c.state(encounter.now),
                "hidden": c.hidden,
                **_resources(view, c),
                "stats": dict(c.stats),
                "conditions": dict(c.conditions),
                "conditions_left": {name: until - now for name, until in c.conditions.items()},
                "airborne_until": c.airborne_until if c.airborne(encounter.now) else None,
                "surprised_until": c.surprised_until if c.surprised(encounter.now) else None,
                "upkeep": {k: {"resource": r, "amount": a} for k, (r, a) in c.upkeep.items()},
            }
            for c in view.combatants()
        ],
        "actions": [
            {
                "id": a.id,
                "actor": a.actor,
                "template": a.template,
                "mode": a.mode,
                "pt": a.pt,
                "start": a.start,
                "completes": a.completes,
                "status": a.status,
                "targets": list(a.targets),
                "maintained": a.chain,
                **(
                    {"success": None, "margin": None, "dice": [], "summary": "rolled in secret"}
                    if view.secret(a)
                    else {"success": a.resolution.success, "margin": None, "dice": [], "summary": "figures withheld from viewers"}
                    if view.withheld(a)
                    else {
                        "success": a.resolution.success,
                        "margin": a.resolution.margin,
                        "dice": list(a.resolution.dice),
                        "summary": a.resolution.summary,
                    }
                ),
            }
            for a in encounter.actions
            if view.action(a)
        ],
        "upcoming": [{"segment": s, "what": t} for s, t in view.upcoming()],
        "log": [{"segment": e.segment, "kind": e.kind, "text": view.line(e), "seq": e.seq, "by": encounter.author(e)} for e in log],
        # Players' declarations waiting for the GM (player_declarations = "approval").
        "proposals": [
            {"seq": p.seq, "action": p.action, "actor": p.actor, "what": p.what(), "segment": p.segment, "by": encounter.events[p.seq - 1].by}
            for p in encounter.pending()
            if view.proposal(p)
        ],
        "can_undo": encounter.can_undo(),
        "can_redo": encounter.can_redo(),
    }


def _next(view: Sight) -> int | None:
    """The next segment where something this reader may see happens."""
    upcoming = view.upcoming(1)
    return upcoming[0][0] if upcoming else None


def to_text(encounter: Encounter, *, viewer: bool = False, log_limit: int = 15, role: Role | None = None) -> str:
    data = to_json(encounter, viewer=viewer, log_limit=log_limit, role=role)
    lines = [f"{data['name']} ({data['ruleset']}) · {data['clock']}", ""]
    if "replay" in data:
        lines[1:1] = [f"Replay: the fight as it stood at the end of segment {data['segment']} (segments {data['replay']['first']} to {data['replay']['last']})"]
    lines.append("Combatants:")
    for c in data["combatants"]:
        res = ", ".join(f"{k} {v:g}/{c['maxima'].get(k, v):g}" if isinstance(v, (int, float)) else f"{k} {v}" for k, v in c["resources"].items())
        res = c.get("health", res) if not res else res
        extra = []
        if c["conditions"]:
            extra.append(", ".join(f"{n} until {s} ({c['conditions_left'][n]} left)" for n, s in c["conditions"].items()))
        if c["hidden"]:
            extra.append("hidden")
        side = f" [{c['side']}]" if c["side"] else ""
        lines.append(f"  {c['name']}{side}: {c['state']}; {res}" + (f"; {'; '.join(extra)}" if extra else ""))
    if not data["combatants"]:
        lines.append("  (none yet: `add NAME key=value ...`)")
    active = [a for a in data["actions"] if a["status"] == "in progress"]
    lines.append("")
    lines.append("In progress:")
    for a in active:
        chain = f" (maintained x{a['maintained']})" if a["maintained"] else ""
        lines.append(f"  {a['actor']}: {a['mode']} {a['template']}{chain}, {a['start']} -> {a['completes']}")
    if not active:
        lines.append("  (nothing)")
    if data["upcoming"]:
        lines.append("")
        lines.append("Upcoming:")
        for u in data["upcoming"][:8]:
            lines.append(f"  segment {u['segment']}: {u['what']}")
    lines.append("")
    if data["proposals"]:
        lines.append("")
        lines.append("Waiting for the GM:")
        for p in data["proposals"]:
            lines.append(f"  proposal {p['seq']}: {p['actor']}, {p['what']} ({who(p['by'])})")
    lines.append("")
    lines.append("Log:")
    previous = None
    for entry in data["log"]:
        # The first line of each signed change names who made it.
        signed = f"  ({who(entry['by'])})" if entry["by"] and entry["seq"] != previous else ""
        previous = entry["seq"]
        lines.append(f"  [{entry['segment']}] {entry['text']}{signed}")
    return "\n".join(printable(line) for line in lines)
