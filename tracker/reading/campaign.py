"""A campaign read back: `campaign show` and `campaign stats`, as text and JSON.

Everything here comes from the campaign file alone: each fight's effect on the party
and its figures arrived whole in its `end` event, so nothing replays a fight. The only
look at a fight file is whether it is still as it ended (`fight_status`: its size and
last commit mark, a few hundred bytes), so a fight missing or changed since is listed
as such. Viewers see what the party's own tallies show them (the viewers' view of each
fight, kept beside the GM's), never a hidden combatant or a secret roll's outcome.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from tracker.persistence.campaign import ACTIVE, PC, Campaign, Fight
from tracker.engine.kinds import counted, fmt
from tracker.persistence import codec, folder
from rulesets.limits import MAX_LUCK_ROLLS
from tracker.reading.stats import luck_of, unweighed
from tracker.engine.text import printable

ENDED, OPEN, MISSING, CHANGED, UNREADABLE = "ended", "under way", "missing", "changed since it ended", "unreadable"
_TAIL = 256  # bytes read from a fight's end to find its last commit mark
_COUNTS = ("declared", "succeeded", "missed", "no_roll", "secret", "aborted", "interrupted", "acting", "idle", "down", "unrecorded")
_TABLES = ("dealt", "taken", "healed", "costs")


def fight_status(folder_path: Path, fight: Fight) -> str:
    """Whether a fight's file is there and as the campaign recorded it."""
    path = folder_path / fight.file
    try:
        fd = folder.open_file(path, os.O_RDONLY, limit=codec.MAX_SAVE_BYTES, what="save")
    except FileNotFoundError:
        return MISSING
    except (OSError, folder.Refused):
        return UNREADABLE
    try:
        size = os.fstat(fd).st_size
        tail = folder.pread(fd, _TAIL, max(0, size - _TAIL))
    finally:
        os.close(fd)
    if fight.open:
        return OPEN
    cut = codec.split(tail)
    return ENDED if cut.revision == fight.revision and not cut.torn else CHANGED


def pc_json(pc: PC) -> dict[str, Any]:
    """A character as `show --json` gives a combatant (name, resources, ...), plus its id."""
    return {
        "name": pc.name, "pc": pc.id, "side": pc.side, "status": pc.status,
        "resources": dict(pc.resources), "maxima": dict(pc.maxima), "stats": dict(pc.stats), "sheet": dict(pc.sheet),
        "conditions": dict(pc.conditions),
    }


def fight_json(camp: Campaign, fight: Fight, status: str) -> dict[str, Any]:
    return {
        "file": fight.file, "name": fight.name, "status": status, "ended": not fight.open,
        "started_at": fight.at, "ended_at": fight.ended_at or None, "outcome": fight.outcome or None,
        "segments": fight.segment if not fight.open else None,
        "party": [camp.pcs[p].name for p in fight.pcs if p in camp.pcs],
    }


def to_json(camp: Campaign, folder_path: Path) -> dict[str, Any]:
    return {
        "name": camp.name, "ruleset": camp.ruleset, "house_rules": camp.house_rules or None,
        "party": [pc_json(pc) for pc in camp.party()],
        "former": [pc_json(pc) for pc in camp.pcs.values() if pc.status != ACTIVE],
        "fights": [fight_json(camp, f, fight_status(folder_path, f)) for f in camp.fights],
        "events": [{"seq": e.seq, "kind": e.kind, "by": e.by, "at": e.args.get("at"), "what": camp.describe(e)} for e in camp.events],
        "can_undo": camp.undo_target() is not None, "can_redo": camp.redo_target() is not None,
    }


def _figures(pc: PC) -> str:
    parts = []
    for key, value in pc.resources.items():
        top = pc.maxima.get(key)
        parts.append(f"{key} {fmt(value)}/{fmt(top)}" if top not in (None, 0) or value != 0 else f"{key} {fmt(value)}")
    lowered = [f"{k} {fmt(v)} (sheet {fmt(pc.sheet[k])})" for k, v in pc.stats.items() if k in pc.sheet and v != pc.sheet[k]]
    conditions = [f"{k} ({v} segments left)" for k, v in pc.conditions.items()]
    return ", ".join(parts + lowered + conditions)


def to_text(camp: Campaign, folder_path: Path) -> str:
    lines = [f"{camp.name} ({camp.ruleset}{', house rules ' + camp.house_rules if camp.house_rules else ''})", "", "The party:"]
    party = camp.party()
    lines += [f"  {pc.name}: {_figures(pc)}" for pc in party] or ["  nobody yet"]
    former = [pc for pc in camp.pcs.values() if pc.status != ACTIVE]
    if former:
        lines += ["Gone:"] + [f"  {pc.name} ({pc.status}{': ' + pc.why if pc.why else ''})" for pc in former]
    lines += ["", "Fights:"]
    for n, fight in enumerate(camp.fights, 1):
        status = fight_status(folder_path, fight)
        what = f"{fight.outcome}, {fight.segment} segments" if not fight.open else "under way"
        flag = f" [{status}]" if status not in (ENDED, OPEN) else ""
        lines.append(f"  {n}. {fight.name} ({fight.file}): {what}{flag}")
    if not camp.fights:
        lines.append("  none yet")
    rests = camp.rests
    if rests:
        lines += ["", "Rests:"] + [f"  {counted(r.args['hours'], 'hour')} ({r.args['rule']}){': ' + r.args['note'] if r.args.get('note') else ''}" for r in rests]
    return "\n".join(printable(line) for line in lines)


# ------------------------------------------------------------------ statistics
@dataclass
class Total:
    """One character's figures over the campaign (a fight's `Tally`, summed)."""

    name: str
    pc: str
    fights: int = 0
    counts: dict[str, int] | None = None
    tables: dict[str, dict[str, float]] | None = None
    chances: list[Fraction] | None = None
    outcomes: list[bool] | None = None
    # Past MAX_LUCK_ROLLS rolls the luck is only counted: rolls, successes, expected.
    counted: tuple[int, int, Fraction] | None = None

    def add(self, tally: dict[str, Any]) -> None:
        self.fights += 1
        counts = self.counts if self.counts is not None else {}
        tables = self.tables if self.tables is not None else {}
        for key in _COUNTS:
            counts[key] = counts.get(key, 0) + int(tally.get(key, 0) or 0)
        for key in _TABLES:
            into = tables.setdefault(key, {})
            for resource, amount in (tally.get(key) or {}).items():
                into[resource] = into.get(resource, 0) + amount
        self.counts, self.tables = counts, tables
        chances, outcomes = self.chances if self.chances is not None else [], self.outcomes if self.outcomes is not None else []
        rolls_in = sum(int(counts[0]) for counts in (tally.get("luck") or {}).values())
        if self.counted is None and len(chances) + rolls_in <= MAX_LUCK_ROLLS:
            for chance, counts in (tally.get("luck") or {}).items():
                rolls, successes = int(counts[0]), int(counts[1])
                chances += [Fraction(chance)] * rolls
                outcomes += [True] * successes + [False] * (rolls - successes)
            self.chances, self.outcomes = chances, outcomes
            return
        # Too many to weigh (a long campaign, or a hand-edited count): counted only, never
        # made into a list of every roll.
        rolls_so_far, successes_so_far, expected = self.counted or (len(chances), sum(outcomes), sum(chances, Fraction(0)))
        for chance, counts in (tally.get("luck") or {}).items():
            rolls_so_far += int(counts[0])
            successes_so_far += int(counts[1])
            expected += Fraction(chance) * int(counts[0])
        self.counted, self.chances, self.outcomes = (rolls_so_far, successes_so_far, expected), [], []

    def to_json(self) -> dict[str, Any]:
        counts = self.counts or {k: 0 for k in _COUNTS}
        unrecorded = counts.get("unrecorded", 0)
        luck = unweighed(*self.counted, unrecorded) if self.counted is not None else luck_of(self.chances or [], self.outcomes or [], unrecorded)
        out: dict[str, Any] = {"name": self.name, "pc": self.pc, "fights": self.fights}
        out.update({("rolled_in_secret" if k == "secret" else k): v for k, v in counts.items() if k != "unrecorded"})
        for key in _TABLES:
            out[key] = dict((self.tables or {}).get(key, {}))
        out["luck"] = luck.to_json()
        return out


def stats(camp: Campaign, viewer: bool = False) -> dict[str, Any]:
    """Per character, over every ended fight: actions, damage dealt and taken, costs,
    time acting, idle and down, and luck against the odds shown (exact, as one fight's)."""
    view = "viewer" if viewer else "gm"
    totals = {pid: Total(pc.name, pid) for pid, pc in camp.pcs.items()}
    per_fight = []
    for fight in camp.fights:
        if fight.open:
            continue
        row: dict[str, Any] = {"file": fight.file, "name": fight.name, "segments": fight.segment, "outcome": fight.outcome, "party": {}}
        for pid, views in fight.stats.items():
            tally = views.get(view) if isinstance(views, dict) else None
            if not isinstance(tally, dict) or pid not in totals:
                continue
            totals[pid].add(tally)
            one = Total(totals[pid].name, pid)
            one.add(tally)
            row["party"][pid] = one.to_json()
        per_fight.append(row)
    return {
        "campaign": camp.name, "ruleset": camp.ruleset, "viewer": viewer,
        "fights": len(per_fight), "party": [totals[pid].to_json() for pid in totals if totals[pid].fights],
        "per_fight": per_fight,
    }


def stats_text(figures: dict[str, Any]) -> str:
    lines = [f"{figures['campaign']}: {counted(figures['fights'], 'fight')} ended" + (" (as viewers see it)" if figures["viewer"] else "")]
    for pc in figures["party"]:
        dealt = ", ".join(f"{k} {fmt(v)}" for k, v in pc["dealt"].items()) or "none"
        taken = ", ".join(f"{k} {fmt(v)}" for k, v in pc["taken"].items()) or "none"
        costs = ", ".join(f"{k} {fmt(v)}" for k, v in pc["costs"].items()) or "none"
        luck = pc["luck"]
        lines += [
            f"  {pc['name']} ({counted(pc['fights'], 'fight')}): {counted(pc['declared'], 'action')}, {pc['succeeded']} succeeded, {pc['missed']} missed",
            f"    dealt {dealt}; taken {taken}; costs {costs}",
            f"    acting {pc['acting']}, idle {pc['idle']}, down {pc['down']} segments",
            f"    luck: {luck['successes']} successes of {luck['rolls']} rolls, {luck['expected']:.2f} expected: {luck['verdict']}",
        ]
    return "\n".join(printable(line) for line in lines)
