"""Feats of strength in Brand X: lifting and pushing a weight, arm wrestling, and
throwing (a thrown object may be an attack).

Decisions where the sources are silent (each also named in the summary it produces):
- Lift (active, PT 10, powers 20, row 9): `weight=KG` (x2 overhead, x1/2 worn) needs Q of
  at least Sphere(weight) (+ Sphere(distance) for a power at a distance); the rest of Q
  goes to EP or speed. A failure costs 1 EP. Pushing (`push=true friction=F`, F from 0
  to 20): friction is a penalty; missing the weight's Q by m doubles PT m times; more
  than 20 - F cannot move it. Friction 20 ("impossible to overcome") is not refused: the
  character may try, the roll is made as normal and fails whatever it shows (1 EP), so
  the GM need not tell the player the friction; the chance line shows 0.
- Throw (active, PT 15, row 9): `weight=KG` needs Q >= Sphere(weight); leftover Q to
  distance (Result row -> Sphere entry, metres; speed the same in m/segment), EP, lob.
  A failed throw (or a weight above the Q) costs 5 EP and goes Sphere(row Q) metres.
  Lob/precision: airborne Square(height x f) segments, f = 2 with no lob and 4 + 2 x
  lob Q (the seed's 6, 8, 10 for 1, 2, 3), distance = speed x airborne. With a target
  it is an attack: a Combat Roll follows with the next dice (damage= states the
  object's damage); a target beyond the maximum range (the speed) is missed.
- Arm wrestling: both make a Lift Roll lifting nothing (the actor's dice, then the
  target's). One failing loses (1 EP); both failing pay 5 EP each and go again; both
  succeeding cut each other's Q 2:1 with the Q not put on EP (`q_ep`, `vs_q_ep`); a
  Q below 0 loses; if neither or both go below 0 nobody has won yet.
"""


from __future__ import annotations

from dataclasses import replace
from typing import Any

from tracker.engine.effects import Effect, Note, Resolution
from tracker.engine.errors import TrackerError
from tracker.engine.model import Combatant
from rulesets.brandx.actions import ep_cost, spend_q
from rulesets.brandx.combat import JUDGE, combat_base, combat_pool, land_blows, miss_shares, place_attacks
from rulesets.brandx.common import Ctx, passive_defense
from rulesets.brandx.ep import bill as make_bill
from rulesets.brandx.rolls import action_roll, speed_pt
from rulesets.base import JUDGE_KEY
from rulesets.dice import DiceSource

# Seed: "A friction of 20 is impossible to overcome." (the top of the friction scale)
IMPOSSIBLE_FRICTION = 20


def own_combat_base(ctx: Ctx) -> tuple[int, str]:
    """The Combat Roll of an attack made inside another roll (a throw at a target, a
    grab in a jump): the sheet's `combat_roll` or Sphere(2 x agility). That roll's own
    `roll=` states the Throw or Jump Roll, not this one."""
    params = {key: value for key, value in ctx.params.items() if key != "roll"}
    return combat_base(replace(ctx, request=replace(ctx.request, params=params)))


# ---------------------------------------------------------------------- lift
def _weight(ctx: Ctx, name: str = "weight") -> tuple[float, str]:
    weight = ctx.p(name)
    if weight is None:
        raise TrackerError(f"{ctx.request.template.name} needs {name}=KG, the object's mass in kg")
    w = float(weight)
    parts = [f"{w:g} kg"]
    if ctx.p("overhead", False):
        w *= 2
        parts.append("x2 overhead")
    if ctx.p("worn", False):
        w /= 2
        parts.append("x1/2 worn")
    return w, " ".join(parts)


def lift_roll(ctx: Ctx, who: Combatant) -> tuple[int, str]:
    strength, mass = ctx.stat("strength", who), float(ctx.stat("mass", who))
    bonus = ctx.charts.sphere(mass)
    value = int(strength - 9 + bonus)
    return value, f"Lift Roll {value} (strength {strength:g} - 9 + Sphere(mass {mass:g}) {bonus})"


def resolve_lift(ctx: Ctx, dice: DiceSource) -> Resolution:
    me = ctx.actor
    power = bool(ctx.p("power", False))
    if power and ctx.p("roll") is None:
        raise TrackerError("lift with power=true needs roll=N, the power's Lift Roll")
    base, base_text = (int(ctx.p("roll")), f"roll {ctx.p('roll')}") if ctx.p("roll") is not None else lift_roll(ctx, me)
    weight, weight_text = _weight(ctx)
    need = ctx.charts.sphere(weight) if weight > 0 else 0
    need_text = f"Sphere({weight_text}) {need}"
    if ctx.p("distance") is not None and not power:
        raise TrackerError("distance= is for a power that lifts at a distance (power=true)")
    if ctx.p("inanimate", False):
        return _inanimate_lift(ctx, base, base_text, need, need_text)
    if ctx.p("distance") is not None:
        far = ctx.charts.sphere(float(ctx.p("distance")))
        need += far
        need_text += f" + Sphere(distance {float(ctx.p('distance')):g} m) {far}"
    push, friction = bool(ctx.p("push", False)), int(ctx.p("friction", 0))
    target, text, costs, tdetails = ctx.target(base, base_text, int(ctx.p("pool", 0)), "strength")
    if push and friction:
        target -= friction
        text += f" - friction {friction} = {target}"
    immovable = push and friction >= IMPOSSIBLE_FRICTION
    # What the chance line gives is the chance the object moves: a push still moves it
    # when the miss is at most 20 - friction; nothing moves it against friction 20.
    moves_at = None if immovable else need - (IMPOSSIBLE_FRICTION - friction) if push else need
    roll = action_roll(dice, target, moves_at, label="Lift Roll")
    q = roll.q
    margin = q - need
    pt = ctx.base_pt()  # 20 segments for a lift by power (`default_pt`)
    notes: list[str] = []
    if immovable:
        # Seed: "A friction of 20 is impossible to overcome": the roll is made as normal
        # and fails whatever it shows (a failure costs 1 EP).
        success, outcome = False, f"Q {q}: a friction of {friction} is impossible to overcome: it will not move"
        bill = ctx.bill([("failed lift", ctx.ep_chart.first_paid_row)])
    elif margin >= 0:
        amounts, spent_text, more = spend_q(ctx, margin, ("q_speed", "q_ep"), "q_ep")
        notes.extend(more)
        pt = speed_pt(pt, amounts.get("q_speed", 0))
        bill = ctx.bill([("lift", ctx.start_row("lift") - amounts.get("q_ep", 0))])
        success, outcome = True, f"Q {q} against {need_text}: lifted, {margin} over: {spent_text}"
    elif push:
        miss = -margin
        if miss > IMPOSSIBLE_FRICTION - friction:
            success, outcome = False, f"Q {q} against {need_text}: missed by {miss}, more than 20 - friction {friction}: it will not move"
        else:
            pt = pt * 2 ** miss
            success, outcome = True, f"Q {q} against {need_text}: missed by {miss}, PT doubled {miss} times to {pt}"
        bill = ctx.bill([("failed lift", ctx.ep_chart.first_paid_row)])
    else:
        success, outcome = False, f"Q {q} against {need_text}: missed by {-margin}, not lifted"
        bill = ctx.bill([("failed lift", ctx.ep_chart.first_paid_row)])
    effects = list(costs) + ep_cost(ctx, bill.text(), bill.total, "lift")
    summary = "; ".join([f"{text}; rolled {roll.shown()}: {outcome}", f"PT {pt}", bill.text()] + notes)
    details = {"q": q, "roll": target, "total": roll.total, **tdetails, "needed": need, "ep_uses": bill.uses}
    return Resolution(pt=pt, success=success, margin=margin, dice=roll.dice, summary=summary,
                      effects=tuple(effects), details=details)


def _inanimate_lift(ctx: Ctx, base: int, base_text: str, need: int, need_text: str) -> Resolution:
    """Seed: "Inanimate objects (ropes, webs) do not normally need to roll the Lift Roll.
    Their Lift Q is the Roll plus the Pool (Sphere Chart, of course)." No dice, no EP."""
    pool = int(ctx.p("pool", 0))
    bonus = ctx.charts.sphere(pool)
    q = base + bonus
    margin = q - need
    held = margin >= 0
    summary = (f"inanimate: Lift Q = {base_text} + Sphere(pool {pool}) {bonus} = {q}, no roll; against {need_text}: "
               + (f"holds, {margin} over" if held else f"gives way, short by {-margin}"))
    return Resolution(pt=ctx.base_pt(), success=held, margin=margin, summary=summary,
                      details={"q": q, "needed": need, "inanimate": True})


def resolve_arm_wrestle(ctx: Ctx, dice: DiceSource) -> Resolution:
    me = ctx.actor
    if len(ctx.request.targets) != 1:
        raise TrackerError("arm-wrestle takes one opponent (target=NAME)")
    foe = ctx.request.targets[0]
    mine, _ = lift_roll(ctx, me)
    target, text, costs, tdetails = ctx.target(mine, f"{me.name}'s Lift Roll {mine}", int(ctx.p("pool", 0)), "strength")
    theirs, _ = lift_roll(ctx, foe)
    a = action_roll(dice, target, label="Lift Roll (arm-wrestling)")
    b = action_roll(dice, theirs, label="Lift Roll (arm-wrestling)", who=foe.name)
    a_ep, b_ep = int(ctx.p("q_ep", 0)), int(ctx.p("vs_q_ep", 0))
    rows = {me.name: 9, foe.name: 9}
    winner: str | None
    if not a.success and not b.success:
        winner, outcome = None, "both fail: each uses 5 EP and they try again"
    elif not a.success or not b.success:
        winner = me.name if a.success else foe.name
        loser = foe.name if a.success else me.name
        rows[loser] = ctx.ep_chart.first_paid_row  # a failed lift costs 1 EP
        outcome = f"{loser} fails and loses"
    else:
        a_ep, b_ep = min(a_ep, a.q), min(b_ep, b.q)
        rows[me.name] -= a_ep
        rows[foe.name] -= b_ep
        # Seed: "Q can also be used to reduce the opponent's Q, at a 2 to 1 ratio": Q
        # spent cutting is spent, so it comes off the spender's own Q. Unsaid, each
        # side spends what would take the other below 0 if it can, else nothing.
        a_left, b_left = a.q - a_ep, b.q - b_ep
        a_cut = _cut(ctx.p("q_cut"), a_left, b_left, "q_cut")
        b_cut = _cut(ctx.p("vs_q_cut"), b_left, a_left, "vs_q_cut")
        qa = a_left - a_cut - b_cut // 2
        qb = b_left - b_cut - a_cut // 2
        if (qa < 0) == (qb < 0):
            winner, outcome = None, f"Q {a.q} and {b.q} (cutting with {a_cut} and {b_cut}) end at {qa} and {qb}: nobody has won yet"
        else:
            winner = me.name if qb < 0 else foe.name
            outcome = f"Q {a.q} and {b.q} (cutting with {a_cut} and {b_cut}) end at {qa} and {qb}: {winner} wins"
    mine_bill = ctx.bill([("arm wrestling", rows[me.name])])
    their_bill = make_bill(ctx.ep_chart, ctx.encounter, foe.name, [("arm wrestling", rows[foe.name])])
    effects = list(costs) + ep_cost(ctx, mine_bill.text(), mine_bill.total, "arm wrestling")
    effects += ep_cost(ctx, their_bill.text(), their_bill.total, "arm wrestling", foe)
    effects.append(Note(f"arm wrestling: {outcome}"))
    summary = (f"{text}; rolled {a.shown()} ({a.outcome()}); {foe.name}'s Lift Roll {theirs}, rolled {b.shown()} "
               f"({b.outcome()}): {outcome}; {me.name} {mine_bill.text()}, {foe.name} {their_bill.text()}")
    # The opponent's uses are its own: its fractional rows count them (ep.previous_uses).
    details = {"q": a.q, "vs_q": b.q, "winner": winner or "", "ep_uses": mine_bill.uses,
               "target_ep_uses": their_bill.uses, **tdetails}
    return Resolution(pt=ctx.base_pt(), success=(winner == me.name) if winner else False, margin=a.q,
                      dice=a.dice + b.dice, summary=summary, effects=tuple(effects), details=details)


def _cut(stated: Any, own: int, other: int, name: str) -> int:
    if stated is not None:
        cut = int(stated)
        if cut > own:
            raise TrackerError(f"{name}={cut}: only {max(own, 0)} Q is left to spend after EP")
        return cut
    wanted = 2 * (other + 1)
    return wanted if 0 < wanted <= own else 0


# ---------------------------------------------------------------------- throw
def resolve_throw(ctx: Ctx, dice: DiceSource) -> Resolution:
    strength, mass = ctx.stat("strength"), float(ctx.stat("mass"))
    base = int(ctx.p("roll", int(strength - 9)))
    bonus = ctx.charts.sphere(mass)
    weight, weight_text = _weight(ctx)
    need = ctx.charts.sphere(weight) if weight > 0 else 0
    target, text, costs, tdetails = ctx.target(base + bonus, f"strength - 9 {base} + Sphere(mass {mass:g}) {bonus}",
                                               int(ctx.p("pool", 0)), "strength")
    roll = action_roll(dice, target, need, label="Throw Roll")
    q = roll.q
    margin = q - need
    notes: list[str] = []
    lob = 0
    if margin >= 0:
        amounts, spent_text, more = spend_q(ctx, margin, ("q_speed", "q_ep", "q_lob", "q_distance"), "q_distance")
        notes.extend(more)
        distance_row, lob = amounts.get("q_distance", 0), amounts.get("q_lob", 0)
        row = ctx.start_row("throw") - amounts.get("q_ep", 0)
        pt = speed_pt(ctx.base_pt(), amounts.get("q_speed", 0))
        outcome = f"Q {q} against Sphere({weight_text}) {need}: thrown, {margin} over: {spent_text}"
        success = True
    else:
        distance_row, row, pt, success = margin, ctx.ep_chart.first_paid_row + 4, ctx.base_pt(), False
        outcome = f"Q {q} against Sphere({weight_text}) {need}: missed by {-margin}, thrown only a little"
    speed = round(float(ctx.charts.value("sphere", distance_row)), 2)
    if lob or ctx.p("precise", False):
        height = float(ctx.stat("height"))
        factor = 2 if lob == 0 else 4 + 2 * lob
        air = max(1, ctx.charts.square(height * factor))
        distance = round(speed * air, 2)
        flight = f"{air} segments in the air (Square of height x {factor})"
    else:
        air, distance, flight = 1, speed, "distance as read"
    bill = ctx.bill([("throw", row)])
    effects: list[Effect] = list(costs) + ep_cost(ctx, bill.text(), bill.total, "throw")
    parts = [f"{text}; rolled {roll.shown()}: {outcome}", f"{distance:g} m at {speed:g} m/segment, {flight}",
             f"PT {pt}", bill.text()]
    details: dict[str, Any] = {"q": q, "roll": target, "total": roll.total, **tdetails, "needed": need,
                               "distance": distance, "speed": speed, "ep_uses": bill.uses}
    faces = roll.dice
    if ctx.request.targets and success:
        blows, texts, attack_faces, attack_details = _throw_attack(ctx, dice, speed, distance_row)
        effects.extend(blows)
        parts.extend(texts)
        faces += attack_faces
        details["attack"] = attack_details
        details[JUDGE_KEY] = JUDGE
    elif ctx.request.targets:
        parts.append("no attack: the throw failed")
    return Resolution(pt=pt, success=success, margin=margin, dice=faces, summary="; ".join(parts + notes),
                      effects=tuple(effects), details=details)


def _throw_attack(ctx: Ctx, dice: DiceSource, speed: float, q_distance: int = 0) -> tuple[list[Effect], list[str], tuple[int, ...], dict[str, Any]]:
    """The Combat Roll of a thrown attack, made with the dice after the Throw Roll's.
    Seed: "The Maximum Range is the speed. The Short Range is equal to the Q used for
    speed, and the Range Set is half this." The bands are reported; what they do to the
    attack the seed does not say (the GM's `pool=`)."""
    targets = ctx.request.targets
    if ctx.p("damage") is None:
        raise TrackerError("a throw at a target needs damage=N, the thrown object's damage")
    base, base_text = own_combat_base(ctx)
    pool = combat_pool(ctx, len(targets))
    number = base + ctx.charts.sphere(pool)
    roll = action_roll(dice, number, label="Combat Roll")
    rng = ctx.p("range")
    short = max(0, q_distance)
    bands = f"Maximum Range {speed:g} m, Short Range {short} m, Range Set {short / 2:g} m"
    if rng is not None and float(rng) > speed:
        return [], [f"{base_text} + pool: the target at {float(rng):g} m is beyond the maximum range {speed:g} m ({bands})"], roll.dice, {"q": roll.q}
    where = ""
    if rng is not None:
        band = "within the Range Set" if float(rng) <= short / 2 else "within Short Range" if float(rng) <= short else "past Short Range"
        where = f"; the target at {float(rng):g} m is {band}"
    if roll.success:
        attack_q = roll.q - int(ctx.p("q_defense", 0))
        defense = min(int(ctx.p("q_defense", 0)), roll.q) // 2
        notes: list[str] = []
        attacks, dmg_mod = place_attacks(ctx, max(0, attack_q), targets, notes), 0
        head = f"Combat Roll {number} (thrown): rolled {roll.shown()}: Q {roll.q}" + "".join(f"; {n}" for n in notes)
    else:
        a, dmg_mod, defense = miss_shares(-roll.q)
        attacks = [a] * len(targets)
        head = f"Combat Roll {number} (thrown): rolled {roll.shown()}: missed by {-roll.q}: Attack {a:+d}, Damage {dmg_mod:+d}"
    damage = int(ctx.p("damage")) + dmg_mod
    lowered, why = passive_defense(ctx.encounter, ctx.actor)
    if lowered:
        attacks = [a - lowered for a in attacks]
        head += f"; Attack -{lowered} for Defense from passive actions ({why}) as things stand"
    blows, texts, hits = land_blows(ctx, targets, attacks, damage, dice, lowered)
    faces = roll.dice + tuple(f for h in hits for f in h.get("throwback", {}).get("dice", []))
    return blows, [head + f" ({bands}{where})"] + texts, faces, {"q": roll.q, "attack": attacks[0], "defense": defense, "hits": hits,
                                                             "short_range": short, "range_set": short / 2}

