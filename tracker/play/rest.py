"""A rest between fights: the game's own recovery where its rules give one, and what the
GM states (docs/campaigns.md, "Rests").

Where the game has a recovery rule (`Ruleset.recovery`: Brand X's Healing Roll, seed
004), the party rests in a scratch fight, never saved: each character comes in as it
stands, and the rule's actions of the game's own catalogue are resolved on them as the
hours pass, through the same adapter, dice and odds as in a fight (the dice typed, or
rolled by the injected source; each roll's exact chance kept). Per round, the
resources the rule restores each round of rest; each N hours, its rolls, for those who
have something the roll heals. The scratch fight's clock runs through the rest, so a
condition with less time left than the rest ends in it (in a game whose segment has a
length in seconds; elsewhere conditions stay until the GM clears them).

Then the GM's own amounts (`PC.KEY=N` heals N of a resource, up to its maximum;
`full=true` restores everything of everyone, `PC.full=true` of one): in a game without a
rule they are the whole rest. What the rest changed and its rolls go into the `rest`
event, so the campaign never rolls the same rest twice.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from rulesets.base import Ruleset
from rulesets.dice import DiceNeeded, DiceSource, for_actor
from rulesets.dice import check_all_used
from tracker.play.fights import entry_event, state_in
from tracker.persistence.campaign import PC, Campaign, changes
from tracker.engine import Encounter, Event, Setup
from tracker.engine import effects as fx
from tracker.engine.errors import RuleRefusal, TrackerError
from tracker.engine.kinds import counted, fmt
from tracker.play.session import Session

STATED = "stated by the GM"
MAX_HOURS = 24 * 366  # a year of rest at most in one go


@dataclass
class Rested:
    """What a rest did: each character's state after, the rolls, and the lines said."""

    hours: float
    rule: str
    party: dict[str, dict[str, Any]] = field(default_factory=dict)
    rolls: list[dict[str, Any]] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)

    def said(self, campaign: str) -> list[str]:
        """The rest in words: the rule, each roll with its exact chance, what changed."""
        lines = [f"{campaign}: the party rests {counted(self.hours, 'hour')} ({self.rule})"]
        for roll in self.rolls:
            chance = f" ({float(Fraction(roll['chance'])):.2%})" if roll["chance"] else ""
            lines.append(f"  {roll['label']}{chance}: {roll['summary']}")
        return lines + ["  " + line for line in self.lines]

    def event(self, note: str = "") -> Event:
        args: dict[str, Any] = {"hours": self.hours, "rule": self.rule, "party": self.party, "rolls": self.rolls}
        if note:
            args["note"] = note
        return Event("rest", args)


def _off_sheet(c: Any, sheet: dict[str, Any], needs: tuple[str, ...]) -> bool:
    if needs:
        return any(c.resources.get(k, 0) != c.maxima.get(k, 0) for k in needs)
    low = any(isinstance(v, (int, float)) and v < c.maxima.get(k, v) for k, v in c.resources.items())
    return low or any(isinstance(v, (int, float)) and isinstance(sheet.get(k), (int, float)) and v < sheet[k] for k, v in c.stats.items())


def rest(camp: Campaign, ruleset: Ruleset, hours: float, dice: DiceSource, stated: dict[str, dict[str, float]] | None = None,
         full: set[str] | None = None, everyone_full: bool = False) -> Rested:
    """Rest the party `hours` (nothing is saved: the caller appends `Rested.event()`)."""
    if not 0 < hours <= MAX_HOURS:
        raise TrackerError(f"rest: hours: expected more than 0 and at most {MAX_HOURS:,}, got {fmt(hours)}")
    party = camp.party()
    if not party:
        raise RuleRefusal("campaign", f"the campaign {camp.name} has nobody in its party to rest")
    under_way = camp.open_fight()
    if under_way is not None and any(pc.id in under_way.pcs for pc in party):
        raise RuleRefusal("campaign", f"the party is in the fight {under_way.name} ({under_way.file}), still under way: end it first (tracker campaign end {under_way.file})")
    recovery = ruleset.recovery
    result = Rested(hours, recovery.name if recovery is not None else STATED)
    setup = Setup("rest", camp.ruleset, ruleset.time, ruleset.down_when, {}, [])
    enc = Encounter(setup)
    session = Session(enc, ruleset, dice)
    for pc in party:
        enc.apply(entry_event(pc))
    by_name = {pc.id: pc for pc in party}
    time = ruleset.time
    segment_seconds = time.seconds_per_segment
    if recovery is not None:
        _by_the_rule(session, recovery, party, hours, result)
    if segment_seconds:
        end = int(hours * 3600 / segment_seconds)
        if end > enc.now:
            session.step(end - enc.now)
    _stated(session, party, stated or {}, full or set(), everyone_full, result)
    for pc in party:
        after = state_in(session.encounter, pc.id)
        assert after is not None
        result.party[pc.id] = changes(pc.state(), after)
        result.lines.append(_line(by_name[pc.id], after))
    return result


def _by_the_rule(session: Session, recovery: Any, party: list[PC], hours: float, result: Rested) -> None:
    enc = session.encounter
    ruleset = session.ruleset
    seconds = ruleset.time.seconds_per_segment * ruleset.time.segments_per_round
    rounds_per_hour = int(round(3600 / seconds)) if seconds else 0
    whole = int(hours)
    spans = [1.0] * whole + ([hours - whole] if hours > whole else [])
    for hour, span in enumerate(spans, start=1):
        if recovery.per_round is not None and rounds_per_hour:
            template, params = recovery.per_round
            for pc in party:
                c = _combatant(session.encounter, pc.id)
                request, _ = session.request(c.name, template, [], dict(params))
                gains = ruleset.resolve(request, session.dice).details
                for key in c.resources:
                    gain = gains.get(key)
                    if not isinstance(gain, (int, float)) or gain <= 0:
                        continue
                    c = _combatant(session.encounter, pc.id)
                    room = c.maxima.get(key, 0) - c.resources.get(key, 0)
                    amount = min(room, gain * int(rounds_per_hour * span))
                    if amount > 0:
                        session.heal(c.name, amount, key)
        if span < 1:
            continue  # a part of an hour: the rounds' healing only, no hourly roll
        for template, params, every, needs in recovery.rolls:
            if hour % every:
                continue
            for pc in party:
                c = _combatant(session.encounter, pc.id)
                if not _off_sheet(c, pc.sheet, needs):
                    continue
                label = f"{c.name}: {template} ({', '.join(f'{k}={v}' for k, v in params.items())}), hour {hour}"
                request, _ = session.request(c.name, template, [], dict(params))
                chance = session.chance_of(request)
                try:
                    # Resolved and applied here, not declared: a character who is down
                    # heals at rest too, and the hour has passed for everyone alike.
                    res = ruleset.resolve(request, for_actor(session.dice, c.name))
                except DiceNeeded as need:
                    need.chance, need.label = chance, label  # type: ignore[attr-defined]
                    raise  # a form asks for these dice: whose roll it is, and its exact chance
                _heal(session.encounter, c, res.effects)
                result.rolls.append({"pc": pc.id, "label": label, "dice": list(res.dice), "chance": f"{chance.numerator}/{chance.denominator}" if chance is not None else "", "summary": res.summary})
    del enc


def _heal(enc: Encounter, c: Any, effects: tuple[Any, ...]) -> None:
    """A healing roll's effects on `c`, as the GM's own changes (they apply whether or not
    it could act): healing through the damage rule, a stat or count raised with `set`."""
    for effect in effects:
        if isinstance(effect, fx.Damage):
            enc.apply(Event("damage", {"target": c.name, "amount": effect.amount, "resource": effect.resource}))
        elif isinstance(effect, fx.Adjust):
            stat = effect.key in c.stats and effect.key not in c.resources
            table = c.stats if stat else c.resources
            args: dict[str, Any] = {"target": c.name, "key": effect.key, "value": table.get(effect.key, 0) + effect.delta}
            if stat:
                args["stat"] = True
            enc.apply(Event("set", args))


def _combatant(enc: Encounter, pid: str) -> Any:
    return next(c for c in enc.combatants.values() if c.pc == pid)


def _stated(session: Session, party: list[PC], stated: dict[str, dict[str, float]], full: set[str], everyone: bool, result: Rested) -> None:
    for pc in party:
        c = _combatant(session.encounter, pc.id)
        if everyone or pc.id in full:
            for key, top in c.maxima.items():
                if isinstance(top, (int, float)) and c.resources.get(key) != top:
                    c.resources[key] = top
            for key, value in pc.sheet.items():
                c.stats[key] = value
            c.conditions.clear()
        for key, amount in stated.get(pc.id, {}).items():
            if key not in c.resources:
                raise TrackerError(f"rest: {pc.name}.{key}: not one of {pc.name}'s resources ({', '.join(c.resources) or 'none'})")
            now, top = c.resources[key], c.maxima.get(key, c.resources[key])
            # Healing stops at the maximum, and never lowers one the GM set above it.
            c.resources[key] = max(now, min(top, now + amount)) if amount > 0 else now + amount


def _line(pc: PC, after: dict[str, Any]) -> str:
    parts = []
    for key, was in pc.resources.items():
        new = after["resources"].get(key, was)
        if new != was:
            parts.append(f"{key} {fmt(was)} -> {fmt(new)}")
    for key, was in pc.stats.items():
        new = after["stats"].get(key, was)
        if new != was:
            parts.append(f"{key} {fmt(was)} -> {fmt(new)}")
    parts += [f"no longer {k}" for k in pc.conditions if k not in after["conditions"]]
    return f"{pc.name}: " + ("; ".join(parts) if parts else "nothing to recover")


def record(campaign_file: Path, hours: float, dice: DiceSource, words: dict[str, str], everyone: bool = False, note: str = "", by: str = "") -> tuple[Campaign, Rested]:
    """Rest the party of the campaign in `campaign_file` and record it: `words` are the
    GM's amounts (`PC.KEY`: N, `PC.full`: true). The campaign after, and the rest."""
    from tracker.play import verbs
    from tracker.play.fights import ruleset_of
    from tracker.persistence.campaign_file import CampaignFile

    done: list[Rested] = []

    def build(camp: Campaign) -> list[Event]:
        stated: dict[str, dict[str, float]] = {}
        full: set[str] = set()
        for key, value in words.items():
            who, dot, what = key.rpartition(".")
            if not dot:
                raise TrackerError(f"rest: {key}: expected hours=N, full=true, PC.KEY=N or PC.full=true")
            pc = camp.pc(who)
            if what == "full":
                if verbs.yes_no(value, key):
                    full.add(pc.id)
            else:
                stated.setdefault(pc.id, {})[what] = verbs.number(value, f"rest: {key}")
        rested = rest(camp, ruleset_of(camp, campaign_file.parent), hours, dice, stated, full, everyone)
        check_all_used(dice, "--faces")  # typed faces the rest did not use: nothing is recorded
        done.append(rested)
        return [rested.event(note)]

    camp, _ = CampaignFile(campaign_file).change(build, by)
    return camp, done[0]
