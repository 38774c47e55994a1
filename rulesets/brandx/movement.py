"""Moving and jumping in Brand X: the Move Roll, its speed and its per-round EP, and
the jump that may start from a move.

Decisions where the sources are silent (each also named in the summary it produces):
- Move (passive, PT 6, row 9): see the seed's walk-through; `slow=N` lowers the speed Q
  by up to Sphere(current speed Q) (less half the failure on a miss); `stop=true` ends
  the movement and its per-round EP. Speed in dm/segment is the Result value of
  Sphere(speed Q) (Q 0 -> .9, Q 17 -> 10). `q_defense` adds Defense (2:1) until the
  next Move Roll and takes the same from Attack. EP: paid on the roll and then every
  payment segment (Upkeep), the cost of the latest Move Roll.
- Jump (passive, PT 6, row 9, may start with Move): height in cm is the Square entry of
  the Q row (Q 10 -> 100 cm); air time is Square(4 x height in m) segments (at least 0);
  length = speed (m/segment, from `speed=` or the latest Move Roll) x air time.
"""


from __future__ import annotations

from fractions import Fraction
from math import ceil
from typing import Any

from tracker.engine.effects import Effect, Resolution, Upkeep
from rulesets.brandx.actions import ep_cost, spend_q
from rulesets.brandx.combat import combat_pool
from rulesets.brandx.common import Ctx, latest_action
from rulesets.brandx.rolls import action_roll, round_half_up
from rulesets.brandx.strength import own_combat_base
from rulesets.dice import DiceSource


# ---------------------------------------------------------------------- movement
def _move_roll(ctx: Ctx) -> tuple[int, str]:
    if ctx.p("roll") is not None:
        return int(ctx.p("roll")), f"Move Roll {ctx.p('roll')}"
    if ctx.actor.stats.get("move_roll") is not None:
        return int(ctx.actor.stats["move_roll"]), f"Move Roll {ctx.actor.stats['move_roll']}"
    agility, strength, height = ctx.stat("agility"), ctx.stat("strength"), ctx.stat("height")
    value = int(agility + ceil(strength / 2) + ctx.charts.square(height))
    return value, f"Move Roll {value} (agility {agility:g} + strength/2 {ceil(strength / 2)} + Square(height {height:g}) {ctx.charts.square(height)})"


def speed_of(ctx: Ctx, speed_q: int) -> float:
    """dm/segment: the Result value of Sphere(speed Q)."""
    row = ctx.charts.sphere(speed_q)
    return float(row) if row >= 1 else float(ctx.charts.value("result", row))


def resolve_move(ctx: Ctx, dice: DiceSource) -> Resolution:
    me = ctx.actor
    prev = latest_action(ctx.encounter, me.name, "move")
    pd = prev.resolution.details if prev is not None else {}
    speed_q = int(pd.get("speed_q", 0))
    extra_rows = int(pd.get("ep_extra_rows", 0))
    base, base_text = _move_roll(ctx)
    pool = -speed_q + int(ctx.p("pool", 0))
    target, text, costs, tdetails = ctx.target(base, base_text, pool, "agility")
    if speed_q:
        text += f" (pool -{speed_q} for speed Q already applied)" if speed_q > 0 else ""
    roll = action_roll(dice, target, label="Move Roll")
    q = roll.q
    notes: list[str] = []
    stop = bool(ctx.p("stop", False))
    slow = int(ctx.p("slow", 0))
    most = max(0, ctx.charts.sphere(speed_q))
    if slow > most:
        notes.append(f"slowing cut from {slow} to {most} (Sphere of speed Q {speed_q})")
        slow = most
    amounts: dict[str, int] = {}
    if roll.success:
        amounts, spent_text, more = spend_q(ctx, q, ("q_ep", "q_speed", "q_turn", "q_defense", "q_save"), "q_speed")
        notes.extend(more)
        new_q = speed_q + amounts.get("q_speed", 0) - slow
        extra_rows = 0
        outcome = f"Q {q}: {spent_text}"
    else:
        miss = -q
        slow = max(0, slow - miss // 2)
        new_q = speed_q - slow - (miss if miss > 5 else 0)
        extra_rows += miss // 5
        outcome = f"missed by {miss}" + (f": speed Q -{miss}" if miss > 5 else "") + (f", EP row +{miss // 5} until a successful Move Roll" if miss >= 5 else "")
    if new_q < 0 and not ctx.request.settings.get("negative_movement", False):
        new_q = 0
    if stop:
        new_q = 0
    speed_dm = 0.0 if stop else speed_of(ctx, new_q)
    row = ctx.start_row("move") - amounts.get("q_ep", 0) + extra_rows
    bill = ctx.bill([("movement", row)])
    per_round = 0 if stop else ctx.ep_chart.per_round(row)
    effects: list[Effect] = list(costs) + ep_cost(ctx, bill.text(), bill.total, "Move Roll")
    effects.append(Upkeep(me.name, "movement", "ep", per_round, timing="initiate"))
    turn = amounts.get("q_turn", 0) * int(ctx.p("maneuverability", 45))
    move_defense = amounts.get("q_defense", 0) // 2
    if turn:
        notes.append(f"turns up to {turn} degrees")
    if move_defense:
        notes.append(f"Defense +{move_defense} against all, Attack -{move_defense}, until the next Move Roll")
    ended = f": movement stops costing {me.upkeep['movement'][1]:g} EP a round from segment {ctx.segment}" if "movement" in me.upkeep else ""
    speed_text = f"stops{ended}" if stop else f"speed Q {new_q}: {speed_dm:g} dm/segment ({speed_dm / 10:g} m/segment, {speed_dm * 5:g} m/round)"
    summary = "; ".join([f"{text}; rolled {roll.shown()}: {outcome}", speed_text,
                         f"EP row {row}: {bill.text()} now, {per_round:g} EP a round", f"PT {ctx.base_pt()}"] + notes)
    details = {"q": q, "roll": target, "total": roll.total, **tdetails, "speed_q": new_q, "speed_dm": speed_dm,
               "speed_m": speed_dm / 10, "ep_extra_rows": extra_rows, "ep_row": row, "ep_per_round": per_round,
               "move_defense": move_defense, "turn": turn, "ep_uses": bill.uses, "stopped": stop}
    if amounts.get("q_save"):
        details["saved_pool"] = amounts["q_save"] // 2
    return Resolution(pt=ctx.base_pt(), success=roll.success, margin=q, dice=roll.dice, summary=summary,
                      effects=tuple(effects), details=details)


# ---------------------------------------------------------------------- jump
def resolve_jump(ctx: Ctx, dice: DiceSource) -> Resolution:
    me = ctx.actor
    agility, strength, height = ctx.stat("agility"), ctx.stat("strength"), float(ctx.stat("height"))
    base = int(ctx.p("roll", int(agility + strength)))
    bonus = ctx.charts.square(2 * height)
    target, text, costs, tdetails = ctx.target(base + bonus, f"agility + strength {base} + Square(2 x height) {bonus}",
                                               int(ctx.p("pool", 0)), "agility")
    roll = action_roll(dice, target, label="Jump Roll")
    q = roll.q
    notes: list[str] = []
    if roll.success:
        amounts, spent_text, more = spend_q(ctx, q, ("q_ep", "q_height"), "q_height")
        notes.extend(more)
        height_row = amounts.get("q_height", 0)
        row = ctx.start_row("jump") - amounts.get("q_ep", 0)
        outcome = f"Q {q}: {spent_text}"
    else:
        height_row, row = q, ctx.start_row("jump") - q
        outcome = f"missed by {-q}: jumps, but not as high"
    cm = float(ctx.charts.value("square", height_row))
    metres = cm / 100
    air = max(0, ctx.charts.square(4 * metres))
    speed = ctx.p("speed")
    if speed is None:
        move = latest_action(ctx.encounter, me.name, "move")
        speed = float(move.resolution.details.get("speed_m", 0)) if move is not None else 0.0
    length = round(float(speed) * air, 2)
    density = ctx.p("density")
    if density is not None:
        # Seed: "If the character's density is extremely low, multiply the time in the air
        # by the atmospheric density plus the character's density, and divide by the
        # character's density. Movement should be multiplied by the same amount."
        air_density = float(ctx.p("air_density", 1.2))
        factor = (air_density + float(density)) / float(density)
        air = round_half_up(Fraction(air * factor).limit_denominator(10**6))
        length = round(length * factor, 2)
        notes.append(f"low density {float(density):g} in air {air_density:g}: time in the air and movement x {factor:.3g}")
    items = [("jump", row)]
    faces = roll.dice
    grab: dict[str, Any] = {}
    if ctx.p("grab", False):
        # Seed: "A Combat Roll (close combat) is required to actually grab something in
        # a jump": made with the next dice, at its own EP row (5).
        base, base_text = own_combat_base(ctx)
        number = base + ctx.charts.sphere(combat_pool(ctx, 1))
        combat = action_roll(dice, number, label="Combat Roll to grab")
        faces += combat.dice
        items.append(("grab: combat roll", ctx.start_row("combat")))
        grab = {"roll": number, "total": combat.total, "q": combat.q, "success": combat.success}
        notes.append(f"grab: {base_text} + pool = {number}; rolled {combat.shown()}: "
                     + ("grabs it" if combat.success else f"missed by {-combat.q}: no grip"))
    bill = ctx.bill(items)
    effects = list(costs) + ep_cost(ctx, bill.text(), bill.total, "jump")
    if ctx.p("reach", False):
        notes.append(f"reaching: up to +{height:g} m to height or length")
    summary = "; ".join([f"{text}; rolled {roll.shown()}: {outcome}",
                         f"height {cm:g} cm, {air} segments in the air, {length:g} m at {float(speed):g} m/segment",
                         f"PT {ctx.base_pt()}", bill.text()] + notes)
    details = {"q": q, "roll": target, "total": roll.total, **tdetails, "height_cm": cm, "air": air,
               "length_m": length, "ep_uses": bill.uses}
    if grab:
        details["grab"] = grab
    return Resolution(pt=ctx.base_pt(), success=roll.success, margin=q, dice=faces, summary=summary,
                      effects=tuple(effects), details=details)

