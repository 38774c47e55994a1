"""The other Action Rolls of the seed: abilities, discernment, healing, holding breath,
skills, powers and knowledge (moving and jumping: movement.py; lifting, arm wrestling
and throwing: strength.py), and what they share: the PT an action starts from, the EP
it pays and the Q it spends.

Decisions where the sources are silent (each also named in the summary it produces):
- Ability rolls: PT 10, no EP; `calm=true` takes the seed's assumed roll of 7 instead
  of dice (no stress). Extra Effort (`effort=N`, `effort_on=STAT`) on any roll based on
  an ability; the ability drops by N afterwards.
- Healing: `period=round` needs no dice: the Healing Roll (Sphere(constitution) plus
  Sphere(pool), pool = current DP, + newoen // 4 if mental) halved restores VP (round
  up) and EP (round down) over one round of rest (PT 50), never above the maxima.
  `period=hour|day|month` rolls. The hour heals bludgeoning DP, the day penetrating DP,
  the month injury DP (the DP a blow with `penetrating=true` or `injury=true` takes is
  counted on the target as `penetrating_dp` / `injury_dp`; the rest is bludgeoning).
  By the hour, Q heals DP, strength, agility, constitution, EP in that
  order (mental: EP, both charismas, learning), each up to its starting value, then
  the other abilities Extra Effort lowered (PHYSICAL_HEALING, MENTAL_HEALING). PT: an
  hour is 15000 segments (a segment is 0.24 s), a day 24 hours, a month 30 days.
- Hold Breath (passive, PT 10, row 9): the per-round EP cost is an Upkeep, with 1 DP a
  round (to the head) per 5 EP a round. The roll is made once; the elapsed-time penalty
  Sphere(rounds held) then raises both costs by itself as time passes (the Upkeep's
  rises): a payment segment charges the round ending on it at the penalty of the whole
  rounds held by the segment before it, so the first round is charged at the roll's Q
  (the seed does not say which moment of a round its penalty is read at).
  `elapsed=R` says R rounds were held already when declared; `again=true` continues
  an attempt with no new roll (the same costs); `air_gone=SEGMENT` gives the vacuum
  penalty (segments of PT left then: start 34, gone 36 -> 8). `stop=true` breathes
  again: both per-round costs end, rises and all (see Stopping below).
- Skill: `roll=` is the skill's Action Roll, `level=` its Skill Level; `more_time=N`
  doubles the PT N times for +2 each (at most the Skill Level doublings, so at most
  +2 x level); `hurry=N` takes -2 each and halves the PT (rounding down, at least 1).
  `knowledge=SCORE` adds score // 10 to the pool. Q left over is the skill's own.
- Power: non-random: Q is the PR. `pr_effect`, `pr_ep`, `pr_speed` share it (the one
  unsaid takes the rest); `mode=passive` halves the PT; a passive power's EP is paid
  on initiation and then each round (Upkeep, under its `label`) unless `upkeep=false`.
  Each passive use of one label replaces the last one's charge ("Each action uses EP
  separately", so a use with `upkeep=false` leaves the earlier charge running, and
  its summary says how to end it). `label=NAME stop=true` drops the power.
- Stopping a per-round cost: the seed ends movement's cost when the character "stops
  moving" (with a Move Roll: `move stop=true`) and says nothing of how a power or a
  held breath ends; the character simply lets go. So `power label=NAME stop=true` and
  `hold-breath stop=true` roll nothing, cost nothing and end that per-round cost from
  the segment they are declared on (the next payment segment charges nothing for it).
  Letting go is a passive action (a power's `mode` defaults to passive with stop, so it
  may be done while an active blast is in progress), PT 1: like any passive
  initiation it takes that combatant's one initiation of the segment and pushes its
  pending actions back one segment (docs/contributing/design.md#initiation-rules). Stopping what is not being paid for is
  refused by name. Undo takes the stop back and the charge with it.
- Knowledge: d100 (tens die then units die) against score x `multiplier` + `skill`,
  no subtracting reroll, PT 6, no EP.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from math import ceil
from typing import Any

from tracker.engine.effects import Adjust, Damage, Effect, Resolution, Upkeep
from tracker.engine.bounds import MAX_SEGMENT
from tracker.engine.errors import TrackerError
from tracker.engine.model import Combatant
from rulesets.brandx.charts import MAX_ROW
from rulesets.brandx.combat import LABELS, maintained_pt, power_budget
from rulesets.brandx.common import TIME, Ctx, latest_action
from rulesets.brandx.rolls import action_roll, roll_d100, round_half_up, speed_pt
from rulesets.base import ActionRequest
from rulesets.dice import DiceSource

ABILITIES = (
    "strength", "agility", "constitution", "learning", "newoen", "active_charisma",
    "normal_charisma", "sight", "hearing", "build", "beauty",
)
SEGMENTS = {"round": 50, "hour": 15000, "day": 360000, "month": 10800000}
# The actions `stop=true` lets go of with no roll (movement stops with a Move Roll).
STOPPABLE = ("power", "hold-breath")
HOLD_BREATH_COSTS = ("holding breath", "holding breath: head")


def default_pt(request: ActionRequest) -> int:
    """The PT an action starts from when the GM typed none; Q or PR spent on speed then
    shortens it (`speed_pt`), a typed PT included. A healing period takes its length
    (`SEGMENTS`); a power, or a lift by power, 20 segments (seed: "For powers, the
    Performance Time is 20 segments"), half that, rounded half up, for a passive power;
    a maintained link a quarter of the first link's (`combat.maintained_pt`)."""
    params, template = request.params, request.template

    def p(name: str, default: Any) -> Any:
        value = params.get(name)
        return default if value is None else value

    if request.previous is not None:  # a maintained link: a quarter of the first's
        return maintained_pt(request)
    if template.name in STOPPABLE and p("stop", False):  # letting go: the least the clock allows
        return 1
    if template.name == "heal":
        return SEGMENTS[str(p("period", "hour"))]
    if template.name == "lift" and p("power", False) and not p("inanimate", False):  # a web holding is no power's act
        return 20
    if template.name == "power" and p("mode", template.mode) == "passive":
        return max(1, round_half_up(Fraction(template.pt, 2)))
    return template.pt


# Where a Healing Roll's Q goes, in order (seed: "Physical Healing Roll Q is
# automatically applied to healing DP, strength, agility, constitution, and EP";
# "Mental Healing Roll Q is automatically applied to healing EP (Astral Form),
# charisma, and learning"). Extra Effort's lost points "return per hour when resting"
# for every ability: those the seed's lists do not name take the Q left over, the
# bodily ones after a physical roll, newoen after a mental one (a decision: the seed
# does not say which roll returns them). Both charismas are "charisma".
PHYSICAL_HEALING = ("dp", "strength", "agility", "constitution", "ep", "sight", "hearing", "build", "beauty")
MENTAL_HEALING = ("ep", "active_charisma", "normal_charisma", "learning", "newoen")


def ep_cost(ctx: Ctx, bill_text: str, total: int, what: str, who: Combatant | None = None) -> list[Effect]:
    """The effects paying `total` EP for `what` (its bill in the note), by the actor or `who`."""
    return ctx.pay_ep(total, f"{what}: {bill_text}", who)


def spend_q(ctx: Ctx, q: int, order: tuple[str, ...], sink: str | None) -> tuple[dict[str, int], str, list[str]]:
    """Q spent in `order` (the rest to `sink`): the amounts, their text and any notes."""
    labels = LABELS | {"q_height": "height", "q_distance": "distance", "q_lob": "lob", "q_turn": "turning"}
    spent = ctx.spend(q, order, sink, labels)
    return spent.amounts, spent.text(labels), spent.notes


# ---------------------------------------------------------------------- abilities
def resolve_ability(ctx: Ctx, dice: DiceSource) -> Resolution:
    ability = str(ctx.p("ability", "strength"))
    if ability not in ABILITIES:
        raise TrackerError(f"ability={ability}: expected one of {', '.join(ABILITIES)}")
    base = int(ctx.p("roll", ctx.stat(ability)))
    target, text, costs, tdetails = ctx.target(base, f"{ability} {base}", int(ctx.p("pool", 0)), ability)
    faces: tuple[int, ...]
    if ctx.p("calm", False):
        total, faces, shown = 7, (), "no stress: 7 assumed"
    else:
        roll = action_roll(dice, target, label="Ability Roll")
        total, faces, shown = roll.total, roll.dice, roll.shown()
    return _generic(ctx, target, text, costs, tdetails, total, faces, shown, "ability", f"{ability} roll")


def _generic(
    ctx: Ctx, target: int, text: str, costs: list[Effect], tdetails: dict[str, Any], total: int,
    faces: tuple[int, ...], shown: str, ep_kind: str, what: str,
) -> Resolution:
    """An Action Roll whose Q goes to speed, Defense, EP or is saved; the rest is its own."""
    q = target - total
    success = q >= 0
    amounts, spent_text, notes = spend_q(ctx, q, ("q_speed", "q_defense", "q_ep", "q_save"), None)
    pt = speed_pt(ctx.base_pt(), amounts.get("q_speed", 0))
    start = ctx.start_row(ep_kind)
    # Negative Q raises the EP row (docs/contributing/design.md#rules-decisions), for rolls that cost EP at all.
    raise_by = -q if (not success and start > 0) else 0
    row = start - amounts.get("q_ep", 0) + raise_by
    bill = ctx.bill([(what, row)] if row > 0 else [])
    effects = list(costs) + ep_cost(ctx, bill.text(), bill.total, what)
    outcome = f"Q {q}: {spent_text}" if success else f"missed by {-q}"
    summary = "; ".join([f"{text}; rolled {shown}: {outcome}", f"PT {pt}", bill.text()] + notes)
    details = {"q": q, "roll": target, "total": total, **tdetails, "ep_uses": bill.uses,
               "defense": amounts.get("q_defense", 0) // 2, "spent": amounts}
    if amounts.get("q_save"):
        details["saved_pool"] = amounts["q_save"] // 2
    return Resolution(pt=pt, success=success, margin=q, dice=tuple(faces), summary=summary,
                      effects=tuple(effects), details=details)


def resolve_discernment(ctx: Ctx, dice: DiceSource) -> Resolution:
    newoen = ctx.stat("newoen")
    base = int(ctx.p("roll", int(newoen // 2)))
    target, text, costs, tdetails = ctx.target(base, f"half newoen {base}", int(ctx.p("pool", 0)))
    roll = action_roll(dice, target, label="Discernment Roll")
    res = _generic(ctx, target, text, costs, tdetails, roll.total, roll.dice, roll.shown(), "discernment", "discernment")
    verdict = "knows the right course" if roll.success else "cannot tell the good course"
    return _amend(res, f"; {ctx.actor.name} {verdict}")


def _amend(res: Resolution, extra: str, **changes: Any) -> Resolution:
    data = {"pt": res.pt, "success": res.success, "margin": res.margin, "dice": res.dice,
            "summary": res.summary + extra, "effects": res.effects, "order": res.order, "details": res.details}
    data.update(changes)
    return Resolution(**data)


# ---------------------------------------------------------------------- healing
def _original_stats(ctx: Ctx, who: Combatant) -> dict[str, Any]:
    enc = ctx.encounter
    if enc is not None:
        for entry in enc.setup.roster:
            if entry.name == who.name:
                return dict(entry.stats)
        for event in enc.effective_events():
            if event.kind == "add" and event.args.get("name") == who.name:
                return dict(event.args.get("stats", {}))
    return dict(who.stats)


def resolve_heal(ctx: Ctx, dice: DiceSource) -> Resolution:
    if ctx.p("effort"):
        raise TrackerError("effort=: the Healing Roll cannot be increased by Extra Effort")
    period = str(ctx.p("period", "hour"))
    mental = bool(ctx.p("mental", False))
    me = ctx.actor
    con = ctx.stat("constitution")
    base = ctx.charts.sphere(con)
    pool = int(me.resources.get("dp", 0)) + int(ctx.p("pool", 0))
    if mental:
        pool += int(ctx.stat("newoen") // 4)
    target, text, costs, tdetails = ctx.target(base, f"Sphere(constitution {con:g}) {base}", pool)
    pt = ctx.base_pt()
    effects: list[Effect] = list(costs)
    if period == "round":
        vp_gain, ep_gain = ceil(target / 2), target // 2
        parts = []
        for key, gain in (("vp", vp_gain), ("ep", ep_gain)):
            room = me.maxima.get(key, 0) - me.resources.get(key, 0)
            amount = max(0, min(gain, room))
            if amount:
                effects.append(Damage(me.name, -amount, key))
            parts.append(f"{key.upper()} +{amount}" + (f" of {gain}" if amount != gain else ""))
        summary = f"{text}; resting one round: {', '.join(parts)} (VP half the roll rounded up, EP rounded down)"
        return Resolution(pt=pt, success=True, margin=0, summary=summary, effects=tuple(effects),
                          details={"roll": target, "vp": vp_gain, "ep": ep_gain, **tdetails})
    roll = action_roll(dice, target, label="Healing Roll")
    q = roll.q
    order = MENTAL_HEALING if mental else PHYSICAL_HEALING if period == "hour" else ("dp",)
    # Which DP this period heals: bludgeoning by the hour, penetrating by the day,
    # injury by the month; abilities and EP only by the hour.
    kinds = {"penetrating_dp": int(me.resources.get("penetrating_dp", 0) or 0), "injury_dp": int(me.resources.get("injury_dp", 0) or 0)}
    lost_dp = me.maxima.get("dp", 0) - me.resources.get("dp", 0)
    dp_room = {"hour": lost_dp - sum(kinds.values()), "day": kinds["penetrating_dp"], "month": kinds["injury_dp"]}[period]
    dp_kind = {"day": "penetrating_dp", "month": "injury_dp"}.get(period)
    original = _original_stats(ctx, me)
    left, parts = max(0, q), []
    for key in order:
        if left <= 0:
            break
        if key == "dp":
            room = min(dp_room, me.maxima.get(key, 0) - me.resources.get(key, 0))
        elif key in me.resources:
            room = me.maxima.get(key, 0) - me.resources.get(key, 0)
        else:
            room = original.get(key, me.stats.get(key, 0)) - me.stats.get(key, 0)
        amount = int(max(0, min(left, room)))
        if not amount:
            continue
        left -= amount
        if key in me.resources:
            effects.append(Damage(me.name, -amount, key))
            if key == "dp" and dp_kind:
                effects.append(Adjust(me.name, dp_kind, -amount, f"{dp_kind.replace('_dp', '')} DP healed", timing="complete"))
        else:
            effects.append(Adjust(me.name, key, amount, "healing", timing="complete"))
        parts.append(f"{key} +{amount}")
    healed = ", ".join(parts) if parts else "nothing to heal"
    outcome = f"Q {q}: {healed}" if roll.success else f"missed by {-q}: no healing"
    summary = f"{'mental' if mental else 'physical'} Healing Roll ({period}): {text}; rolled {roll.shown()}: {outcome}"
    return Resolution(pt=pt, success=roll.success, margin=q, dice=roll.dice, summary=summary,
                      effects=tuple(effects), details={"q": q, "roll": target, "total": roll.total, **tdetails})


# ---------------------------------------------------------------------- hold breath
def resolve_hold_breath(ctx: Ctx, dice: DiceSource) -> Resolution:
    me = ctx.actor
    if ctx.p("stop", False):
        return stop_upkeep(ctx, HOLD_BREATH_COSTS, "stops holding breath")
    con, strength = ctx.stat("constitution"), ctx.stat("strength")
    base = int(ctx.p("roll", int(con + strength // 2)))
    pool = int(me.resources.get("dp", 0)) + int(ctx.p("pool", 0))
    pt = ctx.base_pt()
    air_gone = ctx.p("air_gone")
    vacuum = max(0, ctx.segment + pt - int(air_gone)) if air_gone is not None else 0
    target, text, costs, tdetails = ctx.target(base, f"constitution + strength/2 {base}", pool, "constitution")
    if vacuum:
        target -= vacuum
        text += f" - {vacuum} (air gone on segment {air_gone}, {vacuum} segments of PT left) = {target}"
    # Seed: "The roll is only made once for any specific attempt, and the elapsed time
    # penalty builds as time passes". `again=true` continues the attempt: no new roll,
    # the first roll's Q less Sphere(rounds since the attempt began, or `elapsed=`).
    first = latest_action(ctx.encounter, me.name, "hold-breath") if ctx.p("again", False) else None
    if ctx.p("again", False) and (first is None or "raw_q" not in first.resolution.details):
        raise TrackerError(f"again=true: {me.name} has no Hold Breath attempt to continue")
    rounds = TIME.segments_per_round
    if first is not None:
        raw_q = int(first.resolution.details["raw_q"])
        began = int(first.resolution.details.get("attempt_start", first.start))
        shown = f"no new roll: the attempt's Q {raw_q} (rolled on segment {began})"
        faces: tuple[int, ...] = ()
        total = None
        default_elapsed = (ctx.segment - began) // rounds
    else:
        roll = action_roll(dice, target, label="Hold Breath Roll")
        raw_q, began, faces, total = roll.q, ctx.segment, roll.dice, roll.total
        shown = f"rolled {roll.shown()}: Q {roll.q}"
        default_elapsed = 0
    elapsed = int(ctx.p("elapsed", default_elapsed))
    # Held since: the attempt's start, or as many rounds back as `elapsed=` says.
    held_from = ctx.segment - elapsed * rounds if ctx.p("elapsed") is not None else began
    start_row = ctx.start_row("hold_breath")

    def costs_after(rounds_held: int) -> tuple[int, int, int | float, int]:
        """(time penalty, EP row, EP a round, DP to the head a round) once held that long."""
        penalty = ctx.charts.sphere(rounds_held) if rounds_held > 0 else 0
        ep_row = start_row - (raw_q - penalty)
        ep = ctx.ep_chart.per_round(ep_row)
        return penalty, ep_row, ep, int(ep // 5)

    time_penalty, row, per_round, head = costs_after(elapsed)
    q = raw_q - time_penalty
    ep_rises, head_rises = _held_breath_rises(ctx, held_from, time_penalty, costs_after, (per_round, head))
    # Both costs are stated every time: a head cost of 0 ends one an earlier, costlier
    # attempt left running (the engine ends an upkeep given a zero amount and no rises).
    effects: list[Effect] = list(costs) + [
        Upkeep(me.name, HOLD_BREATH_COSTS[0], "ep", per_round, timing="initiate", rises=ep_rises),
        Upkeep(me.name, HOLD_BREATH_COSTS[1], "dp", head, timing="initiate", rises=head_rises),
    ]
    rising = f"; rising as the rounds pass ({ep_rises[0][1]:g} EP from segment {ep_rises[0][0]})" if ep_rises else ""
    summary = (
        f"{text}; {shown}"
        + (f" - {time_penalty} for {elapsed} rounds held = {q}" if time_penalty else "")
        + f"; EP row {row}: {per_round:g} EP a round" + (f", {head} DP (head) a round" if head else "")
        + rising + f"; PT {pt}"
    )
    details = {"q": q, "roll": target, "total": total, "vacuum_penalty": vacuum, "time_penalty": time_penalty,
               "ep_row": row, "ep_per_round": per_round, "raw_q": raw_q, "attempt_start": began, **tdetails}
    if total is None:
        del details["total"]
    return Resolution(pt=pt, success=q >= 0, margin=q, dice=faces, summary=summary,
                      effects=tuple(effects), details=details)


def _held_breath_rises(ctx: Ctx, held_from: int, penalty_now: int,
                       costs_after: Callable[[int], tuple[int, int, int | float, int]],
                       now: tuple[int | float, int]) -> tuple[tuple[tuple[int, int | float], ...], tuple[tuple[int, int | float], ...]]:
    """The payment segments on which a held breath's EP and head DP a round go up, with
    the new amounts (the engine's `Upkeep.rises`).

    Seed: "There is a penalty to the Quality equal to the elapsed time, in rounds, on the
    Sphere Chart. [...] the elapsed time penalty builds as time passes, thus increasing the
    EP cost." A payment charges the round that ends on it, at the penalty of the rounds
    held by its last segment: (payment - 1 - held_from) // 50 rounds. The penalty rises by
    one row each time the rounds held reach the next Sphere entry (rows 1-8 at 1-8
    rounds, row 9 at 10, row 10 at 14, ...), so a held breath has few rises however
    long it lasts; they are listed up to the last segment a fight may reach."""
    rounds = TIME.segments_per_round
    sphere = ctx.charts.chart("sphere")
    ep_rises: list[tuple[int, int | float]] = []
    head_rises: list[tuple[int, int | float]] = []
    ep_now, head_now = now
    for row in range(penalty_now + 1, MAX_ROW + 1):
        held = int(ceil(sphere.entry(row)))  # the first number of rounds read as this row
        payment = TIME.next_payment(max(ctx.segment, held_from + held * rounds))
        if payment is None or payment > MAX_SEGMENT:
            break
        _, _, ep, head = costs_after((payment - 1 - held_from) // rounds)
        if ep != ep_now:
            ep_rises.append((payment, ep))
            ep_now = ep
        if head != head_now:
            head_rises.append((payment, head))
            head_now = head
    return tuple(ep_rises), tuple(head_rises)



# ---------------------------------------------------------------------- skills
def resolve_skill(ctx: Ctx, dice: DiceSource) -> Resolution:
    if ctx.p("roll") is None:
        raise TrackerError("skill needs roll=N, the skill's Action Roll")
    base = int(ctx.p("roll"))
    level = int(ctx.p("level", 0))
    more, hurry = int(ctx.p("more_time", 0)), int(ctx.p("hurry", 0))
    if more and hurry:
        raise TrackerError("more_time= and hurry= pull opposite ways; use one")
    if more > level:
        raise TrackerError(f"more_time={more}: at most the Skill Level ({level}) doublings (+2 each, at most twice the level)")
    pt = ctx.base_pt()
    base_text = f"skill {base}"
    if more:
        pt *= 2 ** more
        base += 2 * more
        base_text += f" + {2 * more} for {more} doublings of time"
    if hurry:
        for _ in range(hurry):
            pt = max(1, pt // 2)
        base -= 2 * hurry
        base_text += f" - {2 * hurry} hurrying"
    pool = int(ctx.p("pool", 0)) + int(ctx.p("knowledge", 0)) // 10
    target, text, costs, tdetails = ctx.target(base, base_text, pool)
    roll = action_roll(dice, target, label="Skill Roll")
    req = ctx.request
    shifted = Ctx(ctx.charts, ctx.ep_chart, ctx.tables, req.__class__(
        req.template, req.actor, req.targets, req.params, req.segment, req.settings, req.previous, pt, req.encounter))
    return _generic(shifted, target, text, costs, tdetails, roll.total, roll.dice, roll.shown(), "skill", "skill")


# ---------------------------------------------------------------------- powers
def _pr_lost(ctx: Ctx, label: str) -> int:
    """PR this power has lost to Extra Effort since it last rested."""
    enc = ctx.encounter
    if enc is None:
        return 0
    lost = 0
    for action in enc.actions:
        d = action.resolution.details
        if action.actor != ctx.actor.name or action.template != "power" or d.get("label") != label or action.status == "aborted":
            continue
        lost = 0 if d.get("rested") else lost
        lost += int(d.get("pr_lost", 0))
    return lost


def stop_upkeep(ctx: Ctx, names: tuple[str, ...], verb: str) -> Resolution:
    """Let go of the per-round costs `names` (`verb` says what stops): no roll, no EP;
    each one the actor pays ends from this segment. Refused if it pays none of them."""
    me = ctx.actor
    # A cost that has not started yet but will rise with time (a held breath) is let go
    # of too: it is running, at nothing a round for now.
    paying = {name: me.upkeep[name] if name in me.upkeep else (me.rising[name].resource, 0)
              for name in names if name in me.upkeep or name in me.rising}
    if not paying:
        others = f" (it pays a round for {', '.join(me.upkeep)})" if me.upkeep else ""
        raise TrackerError(f"stop=true: {me.name} pays nothing a round for {names[0]}{others}")
    costs = " and ".join(f"{amount:g} {resource.upper()}" if amount else f"{resource.upper()} (nothing yet, rising with time)"
                         for resource, amount in paying.values())
    summary = (f"{me.name} {verb}: no more {costs} a round from segment {ctx.segment}"
               f" (payment segment {TIME.next_payment(ctx.segment)} charges nothing for it)")
    effects = tuple(Upkeep(me.name, name, resource, 0, timing="initiate") for name, (resource, _) in paying.items())
    return Resolution(pt=ctx.base_pt(), success=True, margin=0, summary=summary, effects=effects,
                      details={"label": names[0], "stopped": {n: a for n, (_, a) in paying.items()}})


def resolve_power(ctx: Ctx, dice: DiceSource) -> Resolution:
    me = ctx.actor
    if ctx.p("stop", False):
        label = str(ctx.p("label", "power"))
        return stop_upkeep(ctx, (label,), f"drops {label}")
    if ctx.p("pr") is None:
        raise TrackerError("power needs pr=N, the character's Power Roll with the power")
    pr = int(ctx.p("pr"))
    label = str(ctx.p("label", "power"))
    # Extra Effort (Ability Rolls): "The ability that was increased is immediately
    # decreased by the same amount". On a power it is the PR: earlier Extra Effort with
    # this power (same label) lowers the PR given, until it returns with healing
    # (`rested=true`: the GM says it has).
    lost = 0 if ctx.p("rested", False) else _pr_lost(ctx, label)
    pr -= lost
    if pr < 0:
        raise TrackerError(f"{label}: PR {pr + lost} less {lost} lost to Extra Effort leaves nothing (rested=true once it returns)")
    effort = int(ctx.p("effort", 0))
    if effort:
        pr += effort
    effect, pr_ep, pr_speed = power_budget(ctx, pr)
    passive = ctx.p("mode", ctx.request.template.mode) == "passive"
    pt = speed_pt(ctx.base_pt(), pr_speed)  # a passive power starts from half its PT (`default_pt`)
    row = ctx.start_row("power") - pr_ep
    bill = ctx.bill([(label, row)])
    effects: list[Effect] = ep_cost(ctx, bill.text(), bill.total, label)
    upkeep = ctx.p("upkeep", passive)
    per_round = ctx.ep_chart.per_round(row)
    notes: list[str] = []
    if upkeep:
        effects.append(Upkeep(me.name, label, "ep", per_round, timing="initiate"))
    elif label in me.upkeep:  # this use is not charged a round; an earlier one still is
        earlier = me.upkeep[label][1]
        import shlex  # this note alone quotes: not loaded with the ruleset

        notes = [f"the earlier {label} still costs {earlier:g} EP a round (to end it: power label={shlex.quote(label)} stop=true)"]
    parts = [f"{label}: PR {pr}" + (f" (less {lost} lost to earlier Extra Effort)" if lost else "")
             + (f" (Extra Effort +{effort}; the PR drops by {effort} afterwards)" if effort else ""),
             f"{effect} PR to effect, {pr_ep} to EP, {pr_speed} to speed",
             f"{'passive, half time' if passive else 'active'}: PT {pt}",
             f"EP row {row}: {bill.text()}" + (f", then {per_round:g} EP a round" if upkeep else "")] + notes
    details = {"pr": pr, "pr_effect": effect, "pr_ep": pr_ep, "pr_speed": pr_speed, "ep_row": row,
               "ep_uses": bill.uses, "label": label, "pr_lost": effort}
    if ctx.p("rested", False):
        details["rested"] = True
    return Resolution(pt=pt, success=True, margin=pr, summary="; ".join(parts), effects=tuple(effects), details=details)


# ---------------------------------------------------------------------- knowledge
def resolve_knowledge(ctx: Ctx, dice: DiceSource) -> Resolution:
    if ctx.p("score") is None and ctx.p("skill") is None:
        raise TrackerError("knowledge needs score=N (the Knowledge Score) and/or skill=N (a same-named Skill Level)")
    score = int(ctx.p("score", 0))
    multiplier = float(ctx.p("multiplier", 1.0))
    skill = int(ctx.p("skill", 0))
    target = int(score * multiplier) + skill
    roll = roll_d100(dice, target)
    outcome = f"knows it by {roll.q}" if roll.success else f"does not know (missed by {-roll.q})"
    summary = (f"Knowledge {score} x {multiplier:g}" + (f" + skill {skill}" if skill else "") + f" = {target}; "
               f"d100 {roll.tens},{roll.units} -> {roll.total}: {outcome}; PT {ctx.base_pt()}")
    return Resolution(pt=ctx.base_pt(), success=roll.success, margin=roll.q, dice=roll.dice, summary=summary,
                      details={"q": roll.q, "roll": target, "total": roll.total})
