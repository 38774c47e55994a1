"""Combat Rolls, Hand Damage, blasts, maintained attacks and throwback.

Combat Roll = Sphere(2 x Agility) (or the sheet's `combat_roll`, or `roll=`), with a bonus
pool of learning // 10 + `sight=` + `size=` + `pool=` - 1 per extra opponent, read on the
Sphere chart. Q buys Attack (1:1), Defense (2:1), speed (docs/contributing/design.md#rules-decisions PT formula), Damage
(the Doubles chart entry of the Q spent: 1, 2, 4, 8, ...) and EP (one row per Q).
A miss is dealt out point by point to Attack, Damage, Defense, Attack, ...; the Defense
share is halved toward zero (miss 5 -> -2, -2, 0). A miss does not raise the EP row of a
Combat Roll: the worked combat has Seraph miss by 5 and still pay 4 EP.

Decisions where the sources are silent (docs/contributing/design.md#judged-on-landing, revised: the dice are rolled at
initiation, and Q sets the PT then; a blow is judged when it lands):
- Each blow is a `Blow` effect judged on the segment it lands (`judge_blow`, registered
  as "brandx.blow"): its Attack against the Defense in force at the start of that
  segment (the seed: Defense Q lasts "for the duration of the action", so a defender's
  action completing on that very segment still defends), i.e. the Defense of the
  target's in-progress actions plus the Defense of its latest Move Roll; `defense=N`
  states it instead. Damage goes against what the target has then (VP overflowing to
  DP). So two punches on one segment give the same result whatever order they were
  typed in. The summary at initiation shows what the blow would do against the state
  then, marked as judged when it lands. An attacker's own movement Defense is taken
  off its Attack (seed, Move Roll).
- The Throwback Roll is the target's, made with the attack's dice at initiation for
  every blow that does damage, whatever the state then says (docs/contributing/design.md#judged-on-landing: every die a
  judgment may need is rolled up front), unless throwback is off for the table or the
  GM says `throwback=false`. Both of its readings (VP only, or DP lost) are kept, and
  the judge uses the one the state at landing calls for, if the blow hits then and
  takes DP or the target was surprised.
- Damage goes to VP and what VP cannot take goes through to DP (`to=dp` puts it on DP
  directly, e.g. penetrating weapons).
- Several opponents: the seed, "The player must apply Attack separately for each
  opponent": `q_attacks=3,2` places the Attack Q per opponent in target order (chosen
  after the roll; it must add up to the Attack Q); left unsaid, it is shared out evenly
  (the first opponents get any odd point) and the summary says so. The attacks are made on successive segments, so the action takes PT + (n - 1)
  segments, and each opponent's blow lands on its own segment, the last on the
  completion segment (effects carry a `lead`); the summary names each attack's segment.
  A strike with an automatic firearm (`automatic=true`) attacks them all on the
  completion segment and takes no longer (seed: "Each attack takes place on successive
  segments (except for automatic firearms)").
- Throwback is rolled with the next dice after the attack's (see above); it throws the
  target when a hit takes DP (the VP the target has as the blow lands cannot absorb it,
  or `to=dp`) or the target is surprised (`surprised=true`, or by the encounter).
  Throwback roll: Sphere(mass) + bonus - damage, no pool; bonus Sphere(max(agility,
  strength)) when only VP is lost, Sphere(strength) when DP is lost, halved (toward
  zero) if surprised. A miss by n reads row n of the Sphere chart: the speed in
  m/segment; halved for penetrating damage, again for small projectiles; airborne for
  Square(2 x height) segments (at least 1); distance = speed x airborne. The miss is
  added to Pushback (recorded in the details and the summary).
- Maintained attack: PT / 4 rounded half up (of the unmodified PT), the first link's
  Attack - 2 per link, the same Damage and Defense, every EP row of the action + 1; no
  new Combat Roll (the seed: "the same Attack is used"). So a link carries the first
  link's Combat Roll: it succeeds or fails as that roll did, certainly (its chance is 1
  or 0, and the form and the log say which roll it carries: `carried_roll`), it offers
  no Q to place, and the modifiers that made that roll, its Attack and its damage (pr,
  pool, damage, ...) are the first link's: a link stating other values for them is
  refused by name. What a link may state again is the hit's options (`_PER_LINK`: where
  the damage goes, its kind, throwback, the target's Defense or surprise).
- Blast: the Combat Roll is made against the PR put into the attack plus the pool (the
  Sun-Ruler example: all 12 PR, pool 1, needs 13), and its EP is the power's (row 9 less
  the PR and Q put on EP), with no separate Combat Roll EP (the example: 5 EP).
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

from tracker.engine.effects import COMPLETE, Adjust, Blow, Damage, Effect, Note, Resolution, Throwback, landing
from tracker.engine.errors import TrackerError
from tracker.engine.model import Action, Combatant
from rulesets.base import CARRIED_ROLL, JUDGE_KEY, ActionRequest
from rulesets.brandx.charts import Charts
from rulesets.brandx.common import Ctx, defense_of, passive_defense
from rulesets.brandx.rolls import ActionRoll, action_roll, round_half_up, speed_pt
from rulesets.dice import DiceSource
from rulesets.fields import AFTER_ROLL, FieldError, coerce_all

# Options of a hit that a maintained link keeps from the first link.
_CARRIED = ("to", "penetrating", "injury", "small_projectile", "throwback")
# What a maintained link may state for itself: its hit's options. Every other modifier
# made the first link's Combat Roll, Attack or damage, which the link keeps.
_PER_LINK = _CARRIED + ("defense", "surprised", "automatic")
# Healing tells DP apart (seed: the Healing Roll "is made each hour (for Bludgeoning
# DP ...). It is made each day (for Penetrating Damage), and each month, for Injury
# Damage"): the DP a blow takes is counted on the target by kind; bludgeoning is the rest.
DP_KINDS = {"penetrating": "penetrating_dp", "injury": "injury_dp"}
COMBAT_SPEND = ("q_speed", "q_attack", "q_defense", "q_damage", "q_ep", "q_save")
LABELS = {
    "q_speed": "speed", "q_attack": "Attack", "q_defense": "Defense", "q_damage": "Damage",
    "q_ep": "EP", "q_save": "saved", "unspent": "unspent",
}


def hand_damage(charts: Charts, mass: float, strength: float) -> int:
    """Doubles(mass / 10) + strength // 4 (mass // 4 when strength exceeds mass)."""
    by_mass = charts.doubles(mass / 10)
    extra = mass if strength > mass else strength
    return by_mass + int(extra // 4)


def miss_shares(miss: int) -> tuple[int, int, int]:
    """A miss dealt out to Attack, Damage, Defense, Attack, ...; Defense halved toward zero."""
    shares = [0, 0, 0]
    for point in range(miss):
        shares[point % 3] += 1
    return -shares[0], -shares[1], -int(shares[2] / 2)


def combat_base(ctx: Ctx) -> tuple[int, str]:
    rolled = ctx.p("roll")
    if rolled is not None:
        return int(rolled), f"Combat Roll {rolled}"
    sheet = ctx.actor.stats.get("combat_roll")
    if sheet is not None:
        return int(sheet), f"Combat Roll {sheet}"
    agility = ctx.stat("agility")
    value = ctx.charts.sphere(2 * agility)
    return value, f"Combat Roll {value} (Sphere of 2 x agility {agility:g})"


def combat_pool(ctx: Ctx, opponents: int) -> int:
    learning = ctx.stat("learning")
    pool = int(learning // 10) + int(ctx.p("sight", 0)) + int(ctx.p("size", 0)) + int(ctx.p("pool", 0))
    return pool - max(0, opponents - 1)


def actor_hand_damage(ctx: Ctx) -> int:
    sheet = ctx.actor.stats.get("hand_damage")
    if sheet is not None:
        return int(sheet)
    return hand_damage(ctx.charts, float(ctx.stat("mass")), float(ctx.stat("strength")))


def _surprised(ctx: Ctx, target: Combatant) -> bool:
    stated = ctx.p("surprised")
    if stated is not None:
        return bool(stated)
    return target.surprised(ctx.segment)


def throwback(
    ctx: Ctx, target: Combatant, damage: int, dp_lost: bool, surprised: bool, dice: DiceSource,
    rolled: ActionRoll | None = None,
) -> tuple[list[Effect], str, dict[str, Any]]:
    """The target's Throwback Roll; `rolled` reads dice already rolled (the other
    reading of the same roll) instead of rolling."""
    charts = ctx.charts
    mass = float(ctx.stat("mass", target))
    strength = float(ctx.stat("strength", target))
    agility = float(ctx.stat("agility", target))
    mass_row = charts.sphere(mass)
    if dp_lost:
        bonus = charts.sphere(strength)
        if surprised:
            bonus = int(bonus / 2)
        bonus_text = f"strength {bonus:+d}" + (" (halved: surprised)" if surprised else "")
    else:
        bonus = charts.sphere(max(agility, strength))
        bonus_text = f"agility/strength {bonus:+d}"
    number = mass_row + bonus - damage
    if rolled is None:
        roll = action_roll(dice, number, label="Throwback Roll", who=target.name)
    else:
        roll = ActionRoll(rolled.faces, rolled.rerolls, rolled.total, number)
    details: dict[str, Any] = {"target": target.name, "roll": number, "dice": list(roll.dice), "q": roll.q}
    head = f"{target.name}'s Throwback Roll mass {mass_row} + {bonus_text} - damage {damage} = {number}; rolled {roll.shown()}"
    fractional = roll.success and roll.q > 0 and bool(ctx.request.settings.get("fractional_throwback", False))
    if roll.success and not fractional:
        return [], f"{head}: stands (Q {roll.q})", details
    # Seed: "you may want to apply throwback for positive Q (making it negative), thus
    # resulting in fractional throwback" (an encounter setting): row -Q, a fraction.
    miss = -roll.q
    speed = float(charts.value("sphere", miss))
    halvings = []
    if ctx.p("penetrating", False):
        speed /= 2
        halvings.append("penetrating")
    if ctx.p("small_projectile", False):
        speed /= 2
        halvings.append("small projectile")
    speed = round(speed, 2)
    height = float(ctx.stat("height", target))
    airborne = max(1, charts.square(2 * height))
    distance = round(speed * airborne, 2)
    details.update({"speed": speed, "distance": distance, "airborne": airborne, "pushback": max(0, miss)})
    if fractional:
        details["fractional"] = True
    halved = f" (halved: {', '.join(halvings)})" if halvings else ""
    text = (
        f"{head}: thrown {distance:g} m at {speed:g} m/segment{halved}, airborne {airborne} "
        f"segment{'s' if airborne != 1 else ''}; " + (f"fractional throwback (Q {roll.q})" if fractional else f"Pushback +{miss}")
    )
    return [Throwback(target.name, distance, speed, airborne)], text, details


JUDGE = "brandx.blow"


def land_blows(
    ctx: Ctx, targets: tuple[Combatant, ...], attacks: list[int], damage: int, dice: DiceSource,
    lowered: int | None = None,
) -> tuple[list[Effect], list[str], list[dict[str, Any]]]:
    """One `Blow` per target, judged when it lands (`judge_blow`); the texts say what
    each would do against the state now, and the Throwback Roll is made now. `lowered`
    is the attacker's passive Defense already taken off `attacks`: the judge takes off
    the passive Defense in force when the blow lands instead."""
    effects: list[Effect] = []
    texts: list[str] = []
    hits: list[dict[str, Any]] = []
    resource = str(ctx.p("to", "vp"))
    overflow = "dp" if resource == "vp" else ""
    stated_defense = ctx.p("defense")
    allowed = ctx.request.settings.get("throwback", True) is not False
    for index, (target, attack) in enumerate(zip(targets, attacks)):
        if stated_defense is not None:
            defense, why = int(stated_defense), "stated"
        else:
            defense, why = defense_of(ctx.encounter, target)
        hit = attack >= defense
        dealt = max(0, damage)
        # A sweep lands one blow a segment, the last on the completion segment.
        lead = 0 if ctx.p("automatic", False) else len(targets) - 1 - index
        surprised = _surprised(ctx, target)
        wanted = ctx.p("throwback")
        record: dict[str, Any] = {
            "target": target.name, "attack": attack, "defense": defense, "hit": hit, "damage": dealt,
            "resource": resource, "overflow": overflow, "surprised": surprised, "throwback_allowed": allowed,
        }
        kind = "injury" if ctx.p("injury", False) else "penetrating" if ctx.p("penetrating", False) else ""
        if kind:
            record["dp_kind"] = kind
        if stated_defense is not None:
            record["defense_stated"] = int(stated_defense)
        if lowered is not None:
            record["passive_defense"] = lowered
        if wanted is not None:
            record["throwback_wanted"] = bool(wanted)
        when = f" (segment +{index})" if len(targets) > 1 and not ctx.p("automatic", False) else ""
        text = f"Attack {attack:+d} vs {target.name}'s Defense {defense:+d} now{f' ({why})' if why else ''}{when}: "
        effects.append(Blow(target.name, index, lead=lead))
        if hit:
            text += f"a hit for {dealt} {resource.upper()} as things stand (judged when it lands)"
        else:
            text += "a miss as things stand (judged when it lands)"
        dp_lost = resource == "dp" or dealt > target.resources.get("vp", 0)
        qualifies = hit and ((dp_lost or surprised) if wanted is None else bool(wanted))
        # docs/contributing/design.md#judged-on-landing: every die a judgment may need when the blow lands is rolled now,
        # whatever the state now says: the Throwback Roll is made for every blow that
        # does damage (unless the table or the GM turned throwback off), and the judge
        # uses it only if the blow, as it lands, hits and calls for it.
        if dealt > 0 and allowed and wanted is not False:
            thrown, throw_text, throw_details = throwback(ctx, target, dealt, dp_lost, surprised, dice)
            # The same roll read the other way, for a target whose VP changed by then.
            roll = ActionRoll(tuple(throw_details["dice"][:2]), tuple(throw_details["dice"][2:]),
                              throw_details["roll"] - throw_details["q"], 0)
            other, other_text, other_details = throwback(ctx, target, dealt, not dp_lost, surprised, dice, roll)
            readings = {("dp" if dp_lost else "vp"): (thrown, throw_text, throw_details),
                        ("vp" if dp_lost else "dp"): (other, other_text, other_details)}
            record["throwback"] = dict(throw_details)
            record["throwback"]["readings"] = {
                key: {"text": t, **({"speed": d["speed"], "distance": d["distance"], "airborne": d["airborne"],
                                     "pushback": d["pushback"]} if e else {})}
                for key, (e, t, d) in readings.items()
            }
            text += f"; {throw_text}" if qualifies else f"; Throwback Roll made in case the blow calls for it when it lands ({throw_text})"
        texts.append(text)
        hits.append(record)
    return effects, texts, hits


def _hits_of(details: dict[str, Any]) -> list[dict[str, Any]]:
    if "hits" in details:
        return list(details["hits"])
    return list(details.get("attack", {}).get("hits", []))


def judge_blow(encounter: Any, action: Any, blow: Blow) -> list[Effect]:
    """A blow judged as it lands: Attack against the Defense in force now (the start of
    this segment), damage against what the target has now. Reads, never changes."""
    found = landing(encounter, action, blow, _hits_of(action.resolution.details))
    if isinstance(found, list):
        return found
    hit, target = found
    attack = int(hit["attack"])
    attacker = encounter.combatants.get(action.actor)
    if "passive_defense" in hit and attacker is not None:
        # The attacker's own passive Defense as it stands now comes off its Attack.
        attack += int(hit["passive_defense"]) - passive_defense(encounter, attacker)[0]
    if hit.get("defense_stated") is not None:
        defense, why = int(hit["defense_stated"]), "stated"
    else:
        defense, why = defense_of(encounter, target)
    head = (f"{action.actor}'s {action.template} lands: Attack {attack:+d} vs {target.name}'s Defense "
            f"{defense:+d}{f' ({why})' if why else ''}")
    if attack < defense:
        return [Note(f"{head}: miss")]
    dealt = int(hit.get("damage", 0))
    resource = str(hit.get("resource", "vp"))
    overflow = str(hit.get("overflow", "dp" if resource == "vp" else ""))
    if dealt <= 0:
        return [Note(f"{head}: hit, no damage")]
    effects: list[Effect] = [Note(f"{head}: hit for {dealt} {resource.upper()}"), Damage(target.name, dealt, resource, overflow)]
    dp_lost = resource == "dp" or dealt > target.resources.get("vp", 0)
    kind = DP_KINDS.get(str(hit.get("dp_kind", "")))
    if kind and dp_lost:
        dp_part = dealt if resource == "dp" else dealt - max(0, int(target.resources.get("vp", 0)))
        effects.append(Adjust(target.name, kind, dp_part, f"{dp_part} of the DP lost is {hit['dp_kind']} damage", timing=COMPLETE))
    wanted = hit.get("throwback_wanted")
    roll_it = (dp_lost or bool(hit.get("surprised"))) if wanted is None else bool(wanted)
    if not roll_it or not hit.get("throwback_allowed", True):
        return effects
    readings = hit.get("throwback", {}).get("readings")
    if not readings:
        effects.append(Note(f"{target.name} may be thrown back (the blow takes DP as it lands), but no Throwback "
                            f"Roll was made when it was rolled: the GM rolls it"))
        return effects
    reading = readings["dp" if dp_lost else "vp"]
    effects.append(Note(reading["text"]))
    if "speed" in reading:
        effects.append(Throwback(target.name, reading["distance"], reading["speed"], reading["airborne"]))
        if reading.get("pushback"):
            # "The Throwback penalty Q is added to Pushback": kept as a number on the target.
            effects.append(Adjust(target.name, "pushback", int(reading["pushback"]), "the Throwback penalty Q added to Pushback",
                                  timing=COMPLETE))
    return effects


def place_attacks(ctx: Ctx, attack_q: int, targets: tuple[Combatant, ...], notes: list[str]) -> list[int]:
    """Attack Q per opponent: as placed by `q_attacks`, else shared out evenly."""
    placed = ctx.p("q_attacks")
    n = len(targets)
    if placed is None or str(placed).strip() == "":
        if n > 1:
            notes.append(f"Attack Q {attack_q} shared evenly (q_attacks=... places it per opponent)")
        return share_attack(attack_q, n)
    try:
        values = [int(v) for v in str(placed).split(",")]
    except ValueError:
        raise TrackerError(f"q_attacks={placed}: expected whole numbers per opponent, such as 3,2") from None
    if len(values) != n or any(v < 0 for v in values):
        raise TrackerError(f"q_attacks={placed}: expected {n} numbers of 0 or more, one per opponent ({', '.join(t.name for t in targets)})")
    if sum(values) != attack_q:
        raise TrackerError(f"q_attacks={placed}: adds up to {sum(values)}, but the Attack Q is {attack_q}")
    return values


def share_attack(total: int, opponents: int) -> list[int]:
    base, odd = divmod(total, opponents)
    return [base + (1 if i < odd else 0) for i in range(opponents)]


def resolve_attack(ctx: Ctx, dice: DiceSource, kind: str) -> Resolution:
    """punch, strike (a hand weapon) or blast (a power)."""
    request = ctx.request
    targets = request.targets
    if not targets:
        raise TrackerError(f"{request.template.name} needs a target (target=NAME, several as target=A,B)")
    n = len(targets)
    notes: list[str] = []
    ep_items: list[tuple[str, int]] = []
    if kind == "blast":
        pr = ctx.p("pr")
        if pr is None:
            raise TrackerError("blast needs pr=N, the Power Roll of the power")
        pr_effect, pr_ep, pr_speed = power_budget(ctx, int(pr))
        base, base_text = (int(ctx.p("roll")), f"roll {ctx.p('roll')}") if ctx.p("roll") is not None else (pr_effect, f"PR {pr_effect}")
        damage_base = int(ctx.p("damage", 0))
        if ctx.p("damage") is None:
            notes.append("no damage= stated: the blast's damage is 0")
        damage_text = f"blast damage {damage_base}"
        ep_kind_row = ctx.start_row("power") - pr_ep
    else:
        pr_speed = 0
        base, base_text = combat_base(ctx)
        full = actor_hand_damage(ctx)
        held = ctx.p("hand_damage")
        used = full if held is None else int(held)
        if not 0 <= used <= full:
            raise TrackerError(f"hand_damage={used}: {ctx.actor.name}'s Hand Damage is {full}; use 0 to {full}")
        weapon = int(ctx.p("damage", 0))
        damage_base = used + weapon
        damage_text = f"Hand Damage {used}" + (f" of {full}" if used != full else "") + (f" + weapon {weapon}" if weapon else "")
        hand_row = ctx.start_row("hand_damage") - (full - used)
        ep_kind_row = ctx.start_row("combat")
    pool = combat_pool(ctx, n)
    target_number, target_text, costs, target_details = ctx.target(base, base_text, pool)
    roll = action_roll(dice, target_number, label="Combat Roll")
    q = roll.q
    if roll.success:
        spent = ctx.spend(q, COMBAT_SPEND, "q_attack", LABELS)
        attack_q, defense = spent["q_attack"], spent["q_defense"] // 2
        damage_mod = int(ctx.charts.value("doubles", spent["q_damage"])) if spent["q_damage"] > 0 else 0
        attacks = place_attacks(ctx, attack_q, targets, notes)
        outcome = f"Q {q}: {spent.text(LABELS)}"
        notes.extend(spent.notes)
        q_speed, q_ep, saved = spent["q_speed"], spent["q_ep"], spent["q_save"] // 2
    else:
        a, d, f = miss_shares(-q)
        attacks, damage_mod, defense = [a] * n, d, f
        outcome = f"missed by {-q}: Attack {a:+d}, Damage {d:+d}, Defense {f:+d}"
        if any(int(ctx.p(k, 0)) for k in COMBAT_SPEND):
            notes.append("no Q to spend")
        q_speed = q_ep = saved = 0
    lowered, why = passive_defense(ctx.encounter, ctx.actor)
    if lowered:
        attacks = [a - lowered for a in attacks]
        notes.append(f"Attack -{lowered} for Defense from passive actions ({why}) as things stand")
    automatic = bool(ctx.p("automatic", False))
    pt = speed_pt(ctx.base_pt(), q_speed + pr_speed) + (0 if automatic else n - 1)
    if kind == "blast":
        ep_items.append(("blast", ep_kind_row - q_ep))
    else:
        ep_items.append(("combat roll", ep_kind_row - q_ep))
        ep_items.append(("hand damage", hand_row))
    bill = ctx.bill(ep_items)
    effects: list[Effect] = list(costs)
    if bill.total:
        effects.extend(ctx.pay_ep(bill.total, f"{request.template.name}: {bill.text()}"))
    damage = damage_base + damage_mod
    blows, blow_texts, hits = land_blows(ctx, targets, attacks, damage, dice, lowered)
    effects.extend(blows)
    if n > 1 and automatic:
        notes.append(f"{n} opponents, all on segment {request.segment + pt} (an automatic firearm)")
    elif n > 1:
        notes.append(f"{n} opponents on successive segments {request.segment + pt - n + 1}-{request.segment + pt}")
    summary = "; ".join(
        [f"{target_text}; rolled {roll.shown()}: {outcome}", f"damage {damage_text} {damage_mod:+d} = {damage}",
         f"PT {pt}", bill.text()] + blow_texts + notes
    )
    details: dict[str, Any] = {
        "kind": kind, JUDGE_KEY: JUDGE, "q": q, "roll": target_number, "total": roll.total, **target_details,
        "attack": attacks[0], "attack_base": attacks[0], "attacks": attacks, "defense": defense,
        "damage": damage, "damage_mod": damage_mod, "base_pt": ctx.base_pt(),
        "ep_uses": bill.uses, "ep_rows": [{"what": w, "row": r} for w, r in ep_items], "hits": hits,
        "hit_options": {k: ctx.params[k] for k in _CARRIED if ctx.params.get(k) is not None},
    }
    if saved:
        details["saved_pool"] = saved
    return Resolution(
        pt=pt, success=roll.success, margin=q, dice=roll.dice + tuple(_throw_dice(hits)),
        summary=summary, effects=tuple(effects), details=details,
    )


def _throw_dice(hits: list[dict[str, Any]]) -> list[int]:
    faces: list[int] = []
    for hit in hits:
        faces.extend(hit.get("throwback", {}).get("dice", []))
    return faces


def carried_roll(ctx: Ctx) -> tuple[bool, str]:
    """The Combat Roll a maintained link carries (the first link's: "the same Attack is
    used"): whether it succeeded, and words naming it ("the miss of segment 19's Combat
    Roll (rolled 18 against 11)"). Refuses a link that states another value for a
    modifier of that roll (`_same_roll`)."""
    request = ctx.request
    prev = request.previous
    if prev is None:
        raise TrackerError("nothing to maintain")
    d = prev.resolution.details
    if "attack_base" not in d:
        raise TrackerError(f"{prev.template} has no Attack to maintain")
    _same_roll(request)
    q = int(d.get("q", 0))
    success = q >= 0
    known = d.get(CARRIED_ROLL)
    if isinstance(known, str) and known:
        return success, known
    figures = f"rolled {d['total']} against {d['roll']}" if "total" in d and "roll" in d else (f"Q {q}" if success else f"missed by {-q}")
    return success, f"the {'success' if success else 'miss'} of segment {prev.start}'s Combat Roll ({figures})"


def _same_roll(request: ActionRequest) -> None:
    """Refuse a link stating a modifier of the first link's roll other than it was (the
    link rolls nothing, so it would change nothing), or a choice made after a roll."""
    prev = request.previous
    assert prev is not None
    fields = request.template.params
    try:
        first = coerce_all(fields, dict(prev.asked or {}), "asked", fill=False, extra_ok=True)
    except FieldError:
        first = {}
    stages = {f.name: f.stage for f in fields}
    changed = []
    for name, value in request.params.items():
        if value is None or name in _PER_LINK:
            continue
        if stages.get(name) == AFTER_ROLL:
            changed.append(f"{name}={_word(value)} (a link makes no roll: no Q to place)")
        elif value != first.get(name):
            was = first.get(name)
            changed.append(f"{name} {'unstated' if was is None else _word(was)} -> {_word(value)}")
    if changed:
        raise TrackerError(
            f"{'; '.join(changed)}: a maintained link keeps the first link's Combat Roll, Attack and damage "
            f"(\"the same Attack is used\"); declare a new {request.template.name} to change them; a link may "
            f"state only {', '.join(_PER_LINK)}"
        )


def _word(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def link_attacks(prev: Action, targets: int) -> tuple[list[int], list[int], int]:
    """The first link's Attack per opponent, the next link's (-2 per link), and its number."""
    d = prev.resolution.details
    link = prev.chain + 1
    base_attacks = list(d.get("attacks", [d["attack_base"]]))
    attacks = [(base_attacks[i] if i < len(base_attacks) else base_attacks[-1]) - 2 * link for i in range(targets)]
    return base_attacks, attacks, link


def maintain_attack(ctx: Ctx, dice: DiceSource) -> Resolution:
    request = ctx.request
    success, carries = carried_roll(ctx)
    prev = request.previous
    assert prev is not None
    d = prev.resolution.details
    pt = ctx.base_pt()  # typed, or a quarter of the first link's (`maintained_pt`)
    why = f"PT {first_link_pt(request)} / 4" if pt == maintained_pt(request) else "as stated"
    targets = request.targets
    if not targets:
        raise TrackerError(f"{prev.template}: the target is no longer in the fight")
    base_attacks, attacks, link = link_attacks(prev, len(targets))
    damage = int(d.get("damage", 0))
    rows = [(r["what"], int(r["row"]) + 1) for r in d.get("ep_rows", [])]
    bill = ctx.bill(rows)
    effects: list[Effect] = []
    if bill.total:
        effects.extend(ctx.pay_ep(bill.total, f"maintained {prev.template}: {bill.text()}"))
    # The maintained link keeps the first link's damage kind and throwback options,
    # unless the GM states them again on `maintain`.
    carried = dict(d.get("hit_options", {}))
    carried.update({k: v for k, v in request.params.items() if v is not None})
    link_ctx = Ctx(ctx.charts, ctx.ep_chart, ctx.tables, replace(request, params=carried))
    blows, texts, hits = land_blows(link_ctx, targets, attacks, damage, dice)
    effects.extend(blows)
    summary = "; ".join(
        [f"maintained link {link}: carries {carries}", f"Attack {base_attacks[0]:+d} - {2 * link} = {attacks[0]:+d}, PT {pt} "
         f"({why}), damage {damage}, EP rows +1", bill.text()] + texts
    )
    details = dict(d)
    details.update({
        "attack": attacks[0], "attacks": base_attacks, "link": link, "ep_uses": bill.uses, "hits": hits,
        "ep_rows": d.get("ep_rows", []), CARRIED_ROLL: carries,
    })
    details.pop("saved_pool", None)
    return Resolution(pt=pt, success=success, margin=int(d.get("q", 0)), dice=tuple(_throw_dice(hits)),
                      summary=summary, effects=tuple(effects), details=details)


def first_link_pt(request: ActionRequest) -> int:
    """The first link's PT before Q on speed; a link saved before it was kept, or none:
    the action's own PT."""
    prev = request.previous
    return int(prev.resolution.details.get("base_pt", request.template.pt) if prev is not None else request.template.pt)


def maintained_pt(request: ActionRequest) -> int:
    """A maintained link's PT when the GM types none: the first link's PT before Q on
    speed, divided by 4, rounded half up (seed: "The Performance Time is divided by 4")."""
    return max(1, round_half_up(Fraction(first_link_pt(request), 4)))


def power_budget(ctx: Ctx, pr: int) -> tuple[int, int, int]:
    """Split a PR among effect, EP and speed; the one left unsaid takes the rest."""
    if pr < 0:
        raise TrackerError(f"pr={pr}: expected a Power Roll of at least 0")
    effect, ep, speed = ctx.p("pr_effect"), ctx.p("pr_ep"), int(ctx.p("pr_speed", 0))
    if effect is None and ep is None:
        effect, ep = pr - speed, 0
    elif effect is None:
        effect = pr - int(ep) - speed
    elif ep is None:
        ep = pr - int(effect) - speed
    effect, ep = int(effect), int(ep)
    if min(effect, ep, speed) < 0 or effect + ep + speed > pr:
        raise TrackerError(
            f"PR budget: pr_effect {effect} + pr_ep {ep} + pr_speed {speed} must be at least 0 each "
            f"and at most the PR {pr}"
        )
    return effect, ep, speed


__all__ = ["carried_roll", "hand_damage", "link_attacks", "maintain_attack", "miss_shares", "power_budget", "resolve_attack", "throwback"]
