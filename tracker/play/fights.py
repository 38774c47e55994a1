"""A campaign's fights: start one with the party as it stands, end it (the party's state
goes back), and take an end back (docs/campaigns.md).

Two files change together here, always in this order and under both locks (the
campaign's first, then the fight's, so two GMs never wait on each other in a circle):
the fight file first, then the campaign file. A crash between the two leaves a fight
that says more than its campaign: a fight file that names the campaign but is not among
its fights (its start was not recorded: it opens as a fight of its own), or a fight that
ended in its file while the campaign still has it under way (`campaign end` again
records it). Either is listed as such; nothing else is lost.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rulesets import registry
from rulesets.base import Ruleset
from tracker.persistence.campaign import PC, Campaign, Fight, changes
from tracker.persistence.campaign_file import SUFFIX, CampaignFile, now
from tracker.engine import Encounter, Event, Setup
from tracker.engine.errors import RuleRefusal, TrackerError
from tracker.engine.kinds import fmt
from tracker.persistence.header import house_rules_tables
from tracker.persistence.store import EncounterFile

# A fight started from a campaign, untouched, holds only its party's entries.
_UNTOUCHED = ("add",)


def campaign_path(name: str, saves: Path) -> Path:
    """A campaign named on the command line: a path, or NAME in the saves folder
    (`NAME.campaign.toml`)."""
    given = Path(name)
    if given.name.endswith(SUFFIX) or given.parent != Path("."):
        return given if given.name.endswith(SUFFIX) else given.with_name(given.name + SUFFIX)
    return saves / f"{name}{SUFFIX}"


def ruleset_of(campaign: Campaign, folder: Path) -> Ruleset:
    """The campaign's game with its house rules (read beside the campaign file)."""
    rules = house_rules_tables(campaign.house_rules, folder, campaign.name) if campaign.house_rules else None
    return registry.get(campaign.ruleset, rules)


def entry_event(pc: PC) -> Event:
    """The `add` that brings a character into a fight as it stands."""
    args: dict[str, Any] = {"name": pc.name, "stats": {**pc.stats, **pc.sheet}, "resources": dict(pc.maxima), "pc": pc.id}
    if pc.side:
        args["side"] = pc.side
    current: dict[str, Any] = {k: v for k, v in pc.resources.items() if pc.maxima.get(k) != v}
    current.update({k: v for k, v in pc.stats.items() if pc.sheet.get(k, v) != v})
    if current:
        args["current"] = current
    if pc.conditions:
        args["conditions"] = dict(pc.conditions)
    return Event("add", args)


def state_in(enc: Encounter, pc: str) -> dict[str, Any] | None:
    """A character's state at the fight's present (None: not in the fight now)."""
    for c in enc.combatants.values():
        if c.pc == pc:
            left = {name: until - enc.now for name, until in c.conditions.items() if until > enc.now}
            # A resource the fight gave it that its sheet lacks (Brand X's Pushback, a
            # penetrating DP count) has 0 as its sheet value: it goes on from there.
            maxima = {**{k: 0 for k in c.resources if k not in c.maxima}, **c.maxima}
            return {"name": c.name, "stats": dict(c.stats), "maxima": maxima, "resources": dict(c.resources), "conditions": left}
    return None


def campaign_of(fight: Path, enc: Encounter) -> Path:
    """The campaign file a fight names, or a refusal saying it has none."""
    name = enc.setup.campaign
    if not name:
        raise RuleRefusal("campaign", f"{fight.name} is a fight of its own, not of a campaign")
    return fight.parent / name


# ------------------------------------------------------------------ starting
def start(campaign_file: Path, fight_file: Path, name: str, by: str = "", settings: dict[str, Any] | None = None, foes: Path | None = None) -> tuple[Campaign, Encounter]:
    """Create `fight_file` with the campaign's party at its current state (and the foes
    of `foes`' roster, if given), and record the fight in the campaign."""
    store = CampaignFile(campaign_file)
    if fight_file.parent.resolve() != campaign_file.parent.resolve():
        raise TrackerError(f"{fight_file}: a campaign's fights live beside its file, in {campaign_file.parent}")
    if fight_file.name.endswith(SUFFIX):
        raise TrackerError(f"{fight_file}: a fight's file name may not end with {SUFFIX} (that is a campaign's)")
    with store.transaction() as camp:
        under_way = camp.open_fight()
        if under_way is not None:
            raise RuleRefusal("campaign", f"the fight {under_way.name} ({under_way.file}) is still under way: end it first (tracker campaign end {under_way.file})")
        party = camp.party()
        if not party:
            raise RuleRefusal("campaign", f"the campaign {camp.name} has nobody in its party yet: tracker campaign add {campaign_file.stem.removesuffix('.campaign')} NAME key=value ...")
        ruleset = ruleset_of(camp, campaign_file.parent)
        checked = ruleset.validate_settings(settings or {}, "settings")
        setup = Setup(name, camp.ruleset, ruleset.time, ruleset.down_when, checked, [], campaign=campaign_file.name)
        enc = Encounter(setup)
        for pc in party:
            event = entry_event(pc)
            event.by = by
            enc.apply(event)
        if foes is not None:
            for event in _foes(foes, camp, enc):
                event.by = by
                enc.apply(event)
        EncounterFile._write_new(fight_file, enc, camp.house_rules)
        camp.apply(Event("fight", {"file": fight_file.name, "name": name, "pcs": [pc.id for pc in party], "at": now()}, by=by))
    return camp, enc


def _foes(source: Path, camp: Campaign, enc: Encounter) -> list[Event]:
    """The combatants of another fight's roster who are not the campaign's characters,
    at full strength, after the party (`tracker new FIGHT --campaign C --from OTHER`)."""
    loaded = EncounterFile(source).load()
    other = loaded.encounter
    if other.setup.ruleset != camp.ruleset:
        raise RuleRefusal("campaign", f"{source.name} plays {other.setup.ruleset}; the campaign {camp.name} plays {camp.ruleset}")
    events = []
    for c in other.combatants.values():
        if c.pc or c.name.casefold() in {n.casefold() for n in enc.combatants}:
            continue
        args: dict[str, Any] = {"name": c.name, "stats": dict(c.stats), "resources": dict(c.maxima)}
        if c.side:
            args["side"] = c.side
        if c.hidden:
            args["hidden"] = True
        events.append(Event("add", args))
    return events


# ------------------------------------------------------------------ ending
@dataclass
class Change:
    """One character's figures before the fight and what goes back."""

    pc: str
    before: dict[str, Any]
    after: dict[str, Any] | None  # None: no longer in the fight (their state stays as it was)

    def lines(self) -> list[str]:
        name = self.before["name"]
        if self.after is None:
            return [f"{name}: left the fight; their state stays as it was"]
        after, parts = self.after, []
        if after["name"] != name:
            parts.append(f"now called {after['name']}")
        for key, was in self.before["resources"].items():
            new = after["resources"].get(key, was)
            if new != was:
                top = after["maxima"].get(key)
                delta = new - was
                parts.append(f"{key} {fmt(was)} -> {fmt(new)}" + (f" of {fmt(top)}" if top is not None else "") + f" ({'+' if delta > 0 else ''}{fmt(delta)})")
        for key, was in self.before["stats"].items():
            new = after["stats"].get(key, was)
            if new != was:
                parts.append(f"{key} {fmt(was)} -> {fmt(new)}")
        for key, was in self.before["maxima"].items():
            if after["maxima"].get(key, was) != was:
                parts.append(f"{key} maximum {fmt(was)} -> {fmt(after['maxima'][key])}")
        gained = {k: v for k, v in after["conditions"].items() if self.before["conditions"].get(k) != v}
        lost = [k for k in self.before["conditions"] if k not in after["conditions"]]
        parts += [f"{k} ({v} segments left)" for k, v in gained.items()]
        parts += [f"no longer {k}" for k in lost]
        return [f"{name}: " + ("; ".join(parts) if parts else "unchanged")]


@dataclass
class Preview:
    """What ending a fight would send back to its campaign (the GM sees it, then confirms)."""

    fight: Path
    campaign: Path
    campaign_name: str
    name: str
    segment: int
    revision: int
    outcome: str
    changes: list[Change] = field(default_factory=list)

    def party(self) -> dict[str, Any]:
        return {c.pc: c.after for c in self.changes if c.after is not None}

    def key(self) -> tuple[Any, ...]:
        """What a confirmation was given for: the fight's revision and the party's figures."""
        return (self.revision, repr(sorted(self.party().items())))

    def text(self) -> str:
        lines = [f"End {self.name} ({self.fight.name}) at segment {self.segment}: {self.outcome}",
                 f"The party's state goes back to the campaign {self.campaign_name}:"]
        for change in self.changes:
            lines += ["  " + line for line in change.lines()]
        return "\n".join(lines)


def outcome_of(enc: Encounter) -> str:
    """Who is still standing, in words (the GM may say it otherwise)."""
    party = [c for c in enc.combatants.values() if c.pc]
    foes = [c for c in enc.combatants.values() if not c.pc]
    up = [c for c in party if not c.down]
    said = f"{len(up)} of {len(party)} of the party standing"
    if foes:
        said += f", {len([c for c in foes if not c.down])} of {len(foes)} others"
    return said


def preview(fight_file: Path, outcome: str = "") -> Preview:
    """What `end` would do now (nothing is written)."""
    store = EncounterFile(fight_file)
    enc = store.load().encounter
    cpath = campaign_of(fight_file, enc)
    camp = CampaignFile(cpath).load()
    return _preview(camp, camp.fight(fight_file.name), fight_file, cpath, enc, store.revision, outcome)


def _preview(camp: Campaign, fight: Fight, fight_file: Path, cpath: Path, enc: Encounter, revision: int, outcome: str) -> Preview:
    if not fight.open:
        raise RuleRefusal("campaign", f"the fight {fight.name} ({fight.file}) has already ended (campaign change {fight.ended}); `tracker campaign undo` reopens it")
    found = Preview(fight_file, cpath, camp.name, enc.setup.name, enc.now, revision, outcome.strip() or outcome_of(enc))
    for pid in fight.pcs:
        pc = camp.pcs.get(pid)
        if pc is None:
            continue
        found.changes.append(Change(pid, pc.state(), state_in(enc, pid)))
    return found


def stats_of(enc: Encounter) -> dict[str, Any]:
    """Each character's figures of this fight, for the campaign's statistics (the GM's and
    the viewers' views), kept in the `end` event so no later reading replays the fight.
    The rolls against the odds shown are kept as counts by chance (`luck`: "17/20" ->
    [rolls, successes]): the exact luck over the whole campaign needs nothing more."""
    from tracker.reading.stats import fight_stats, fold

    out: dict[str, Any] = {}
    names = {c.name: c.pc for c in enc.combatants.values() if c.pc}
    watch = fold(enc)
    for view, flag in (("gm", False), ("viewer", True)):
        for tally in fight_stats(enc, viewer=flag, folded=watch, luck=False).combatants:
            pid = names.get(tally.name)
            if pid is None:
                continue
            rolls: dict[str, list[int]] = {}
            for chance, success in zip(tally._chances, tally._outcomes):
                counts = rolls.setdefault(f"{chance.numerator}/{chance.denominator}", [0, 0])
                counts[0] += 1
                counts[1] += bool(success)
            figures = {
                "declared": tally.declared, "succeeded": tally.succeeded, "missed": tally.missed, "no_roll": tally.no_roll,
                "secret": tally.secret, "aborted": tally.aborted, "interrupted": tally.interrupted,
                "dealt": dict(tally.dealt), "taken": dict(tally.taken), "healed": dict(tally.healed), "costs": dict(tally.costs),
                "acting": tally.acting, "idle": tally.idle, "down": tally.down,
                "luck": rolls, "unrecorded": tally._unrecorded,
            }
            out.setdefault(pid, {})[view] = {k: v for k, v in figures.items() if v}  # a figure left out is 0 (or none)
    return out


def end(fight_file: Path, by: str = "", outcome: str = "", expect: Preview | None = None) -> tuple[Campaign, Preview]:
    """End the fight: close its file and send its characters' state back to the
    campaign. With `expect` (the preview the GM confirmed), refused if the fight has
    changed since."""
    fstore = EncounterFile(fight_file)
    held = [fstore.load().encounter]
    cpath = campaign_of(fight_file, held[0])
    with CampaignFile(cpath).transaction() as camp:
        fight = camp.fight(fight_file.name)
        with fstore.transaction(held[0], lambda e: held.__setitem__(0, e)) as enc:
            if enc.ended and enc.ended != camp.name:
                raise RuleRefusal("campaign", f"{fight_file.name} was ended by the campaign {enc.ended}, not {camp.name}")
            already = bool(enc.ended)  # ended in its file, not yet in the campaign (a crash between)
            found = _preview(camp, fight, fight_file, cpath, enc, fstore.revision, outcome)
            if expect is not None and expect.key() != found.key():
                raise RuleRefusal("campaign", f"{fight_file.name} changed since its end was shown: look again (tracker campaign end {fight_file.name})")
            if not already:
                enc.apply(Event("end", {"campaign": camp.name, "outcome": found.outcome}, by=by))
        stats = stats_of(held[0])
        party = {pid: changes(camp.pcs[pid].state(), after) for pid, after in found.party().items()}
        camp.apply(Event("end", {"file": fight_file.name, "revision": fstore.revision, "segment": found.segment, "outcome": found.outcome,
                                 "party": party, "stats": stats, "at": now()}, by=by))
    return camp, found


# ------------------------------------------------------------------ undo and redo
def walk(campaign_file: Path, kind: str, by: str = "", target: int | None = None) -> tuple[Campaign, str]:
    """The campaign's `undo` or `redo`: the latest change (or the latest undone). A
    fight's end taken back reopens the fight (its file's own end is undone with it);
    brought back, closes it again. A fight's start taken back leaves its file as a fight
    of its own, and only while nobody has changed it. With `target` (the change the app
    looked at), refused if another has become the latest since."""
    folder = campaign_file.parent
    with CampaignFile(campaign_file).transaction() as camp:
        top = camp.undo_target() if kind == "undo" else camp.redo_target()
        if top is None:
            raise RuleRefusal(kind, f"nothing to {kind} in the campaign {camp.name}")
        if target is not None and top.seq != target:
            raise RuleRefusal(kind, f"the campaign {camp.name} has changed: its latest change is now {top.seq} ({camp.describe(top)}), not {target}")
        said = f"{kind}: {camp.describe(top)}"
        args: dict[str, Any] = {"target": top.seq, "at": now()}
        if top.kind == "end":
            revision = _walk_fight_end(folder / top.args["file"], camp.name, kind, by)
            if revision is not None:
                args["revision"] = revision
        elif top.kind == "fight" and kind == "undo":
            _check_untouched(folder / top.args["file"])
        camp.apply(Event(kind, args, by=by))
    return camp, said


def _walk_fight_end(fight_file: Path, campaign: str, kind: str, by: str) -> int | None:
    """Undo or redo a fight file's own end with its campaign's: the file's revision after
    (None: the file was never closed, a crash before it was; nothing to reopen)."""
    fstore = EncounterFile(fight_file)
    try:
        held = [fstore.load().encounter]
    except TrackerError as exc:
        raise RuleRefusal(kind, f"the fight's file cannot be read, so its end stays as it is: {exc}") from None
    with fstore.transaction(held[0], lambda e: held.__setitem__(0, e)) as enc:
        target = enc.undo_target() if kind == "undo" else enc.redo_target()
        if target is None or target.kind != "end":
            if kind == "undo" and not enc.ended:
                return None
            raise RuleRefusal(kind, f"{fight_file.name} has changed since it was {'ended' if kind == 'undo' else 'reopened'}: "
                                    + ("" if kind == "undo" else f"end it again (tracker campaign end {fight_file.name})"))
        enc.apply(Event(kind, {"target": target.seq}, by=by))
    return fstore.revision


def _check_untouched(fight_file: Path) -> None:
    try:
        enc = EncounterFile(fight_file).load().encounter
    except TrackerError:
        return  # missing or unreadable: the campaign only forgets it
    played = [e for e in enc.events if e.kind not in _UNTOUCHED]
    if played:
        raise RuleRefusal("undo", f"the fight {enc.setup.name} ({fight_file.name}) has been played ({len(played)} changes): end it (tracker campaign end {fight_file.name}) rather than undo its start")
