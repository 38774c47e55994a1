"""What every Brand X resolution needs: the request's figures, bonus pools, Q spending.

Decisions where the sources are silent:
- Q the GM does not place goes to the template's usual use (Attack for a Combat Roll,
  speed for a Move Roll, height for a Jump, distance for a Throw, EP for a power);
  asking for more Q than the roll produced is cut back in the order the parameters
  are listed, and the summary says what was cut. With random dice the GM states the
  split before the roll, so a cut is not an error.
- Saving Quality: `q_save=N` sets aside N Q of a successful roll; N // 2 is added to the
  bonus pool of the actor's next action of the same template if it is initiated on the
  segment this one completes ("immediately", "same kind").
- Editing Points: `editing=N` adds N to the target number; if the sheet carries
  `editing_points`, they are taken from it.
- Extra Effort: `effort=N` raises the roll's ability by N after the roll; the ability
  then drops by N (an Adjust on the stat), never below 0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from tracker.engine.clock import TimeMapping
from tracker.engine.effects import INITIATE, Adjust, Effect, Note
from tracker.engine.encounter import Encounter
from tracker.engine.errors import TrackerError
from tracker.engine.model import COMPLETED, PASSIVE, Action, Combatant
from rulesets.base import ActionRequest
from rulesets.brandx.charts import Charts
from rulesets.brandx.ep import EpBill, EpChart, bill

# The rules give no consequence for EP below 0: whatever takes it there (an action's
# cost, a maintained link, a per-round payment) puts it to the GM, in these words. A
# per-round cost is not ended by `abort` (its action may be long done): the payment's
# note names the way that ends it (actions.py, Stopping).
EP_BELOW_ZERO = ("{name}'s EP goes from {before} to {after}: the rules say nothing of EP below 0, so the GM "
                 "decides what it costs {name} (stop the action: `abort {name}`; or take it from VP or DP: "
                 "`damage {name} N`)")
EP_BELOW_ZERO_A_ROUND = ("{name}'s EP goes from {before} to {after}: the rules say nothing of EP below 0, so the GM "
                         "decides what it costs {name} (end a per-round cost: `declare {name} power label=NAME stop=true`, "
                         "`hold-breath stop=true` or `move stop=true`; or take it from VP or DP: `damage {name} N`)")
# 50 segments a round; payment segments at every multiple of 50 (docs/contributing/design.md#rules-decisions).
TIME = TimeMapping(
    segments_per_round=50, segment_means="0.24 s (50 segments a 12-second round)",
    payment_every=50, simultaneous=True, below_zero=(("ep", EP_BELOW_ZERO_A_ROUND),), seconds_per_segment=0.24,
)
# An action's own cost, paid as it starts (`Ctx.pay_ep`): its note says `abort`.
_ACTION_COST = replace(TIME, below_zero=(("ep", EP_BELOW_ZERO),))

# Defaults for stats a combatant may lack (the sheet's defaults, used when a stat was
# added after the combatant was created).
STAT_DEFAULTS: dict[str, int | float] = {
    "strength": 10, "agility": 10, "constitution": 10, "learning": 10, "newoen": 10,
    "active_charisma": 10, "normal_charisma": 10, "sight": 10, "hearing": 10,
    "build": 10, "beauty": 10, "mass": 70.0, "height": 1.75,
}


@dataclass(slots=True)
class Spent:
    """How the Q of one roll was placed."""

    q: int
    amounts: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def __getitem__(self, key: str) -> int:
        return self.amounts.get(key, 0)

    def text(self, labels: Mapping[str, str]) -> str:
        parts = [f"{n} to {labels.get(k, k)}" for k, n in self.amounts.items() if n]
        return ", ".join(parts) if parts else "nothing spent"


@dataclass(slots=True)
class Ctx:
    """What resolving one Brand X action reads: the charts, the EP chart, the tables, the request."""

    charts: Charts
    ep_chart: EpChart
    tables: dict[str, Any]
    request: ActionRequest

    @property
    def actor(self) -> Combatant:
        return self.request.actor

    @property
    def params(self) -> Mapping[str, Any]:
        return self.request.params

    @property
    def encounter(self) -> Encounter | None:
        return self.request.encounter

    @property
    def segment(self) -> int:
        return self.request.segment

    def p(self, name: str, default: Any = None) -> Any:
        value = self.params.get(name)
        return default if value is None else value

    def stat(self, name: str, who: Combatant | None = None) -> int | float:
        c = who or self.actor
        value = c.stats.get(name, STAT_DEFAULTS.get(name))
        if value is None:
            raise TrackerError(f"{c.name} has no {name} on the sheet")
        return value

    def base_pt(self) -> int:
        """The PT before Q or PR on speed: typed, or `actions.default_pt`."""
        return self.request.performance_time

    def bill(self, items: Sequence[tuple[str, int]] = ()) -> EpBill:
        return bill(self.ep_chart, self.encounter, self.actor.name, items)

    def pay_ep(self, total: float, why: str, who: Combatant | None = None) -> list[Effect]:
        """EP paid as the action starts. The rules give no consequence for EP below 0,
        so when a cost takes it there the log says so for the GM to decide, at the
        moment it happens, rather than passing over it."""
        payer = who or self.actor
        if not total:
            return []
        effects: list[Effect] = [Adjust(payer.name, "ep", -total, why)]
        have = payer.resources.get("ep")
        note = None if have is None else _ACTION_COST.below_zero_note("ep", payer.name, have, have - total)
        if note is not None:
            effects.append(Note(note, timing=INITIATE))
        return effects

    def start_row(self, kind: str) -> int:
        override = self.p("ep_row")
        if override is not None:
            return int(override)
        return self.ep_chart.start(kind)

    # ---------------------------------------------------------------- pools
    def saved_pool(self) -> tuple[int, str]:
        """Saving Quality carried from the actor's same-kind action that just completed."""
        enc = self.encounter
        if enc is None:
            return 0, ""
        for action in reversed(enc.actions):
            if action.actor != self.actor.name or action.status != COMPLETED:
                continue
            if action.ended != self.segment:
                return 0, ""
            if action.template != self.request.template.name:
                return 0, ""
            saved = int(action.resolution.details.get("saved_pool", 0))
            return saved, (f"saved Q +{saved} pool" if saved else "")
        return 0, ""

    def editing(self) -> tuple[int, list[Effect]]:
        points = int(self.p("editing", 0))
        if points <= 0:
            return 0, []
        have = self.actor.stats.get("editing_points")
        if have is None:
            return points, []
        if points > have:
            raise TrackerError(f"editing={points}: {self.actor.name} has only {have} Editing Points")
        return points, [Adjust(self.actor.name, "editing_points", -points, "Editing Points spent")]

    def effort(self, ability: str) -> tuple[int, list[Effect], str]:
        """Extra Effort on `ability`: (bonus, the drop afterwards, text)."""
        points = int(self.p("effort", 0))
        if points <= 0:
            return 0, [], ""
        stat = str(self.p("effort_on", ability))
        current = self.stat(stat)
        if points > current:
            raise TrackerError(
                f"effort={points}: {self.actor.name}'s {stat} is {current:g}; Extra Effort may not drop it below 0"
            )
        drop = Adjust(self.actor.name, stat, -points, f"Extra Effort: {stat} {current:g} -> {current - points:g}")
        return points, [drop], f"Extra Effort +{points} {stat}"

    def target(self, base: int, base_text: str, pool: int, ability: str | None = None) -> tuple[int, str, list[Effect], dict[str, Any]]:
        """The target number: base + Sphere(pool + saved Q) + editing + effort."""
        saved, saved_text = self.saved_pool()
        pool_total = pool + saved
        bonus = self.charts.sphere(pool_total)
        points, costs = self.editing()
        effort, drops, effort_text = self.effort(ability) if ability else (0, [], "")
        target = base + bonus + points + effort
        parts = [base_text]
        if pool_total:
            parts.append(f"pool {pool_total} ({bonus:+d})")
        if points:
            parts.append(f"editing +{points}")
        if effort:
            parts.append(effort_text)
        if saved_text:
            parts.append(saved_text)
        text = " + ".join(parts) + f" = {target}"
        details = {"base": base, "pool": pool_total, "pool_bonus": bonus, "editing": points, "effort": effort}
        return target, text, costs + drops, details

    # ---------------------------------------------------------------- Q
    def spend(self, q: int, order: Sequence[str], sink: str | None, labels: Mapping[str, str]) -> Spent:
        """Place Q on the named params in order, the rest on `sink` (or unspent)."""
        spent = Spent(q)
        asked = {key: int(self.p(key, 0)) for key in order}
        if q <= 0:
            if any(asked.values()):
                spent.notes.append("no Q to spend")
            return spent
        left = q
        for key in order:
            want = asked[key]
            if want <= 0:
                continue
            take = min(want, left)
            if take < want:
                spent.notes.append(f"{labels.get(key, key)} cut from {want} to {take}")
            spent.amounts[key] = take
            left -= take
        if left and sink:
            spent.amounts[sink] = spent.amounts.get(sink, 0) + left
            left = 0
        if left:
            spent.amounts["unspent"] = left
        return spent


def latest_action(encounter: Encounter | None, name: str, template: str, before_segment: int | None = None) -> Action | None:
    """The combatant's most recent action of a template (any status but aborted)."""
    if encounter is None:
        return None
    c = encounter.combatants.get(name)
    if c is not None:
        last = c.latest.get(template)
        if last is None:
            return None  # it never started one (a newcomer under an old name is not the old one)
        if last.status != "aborted" and (before_segment is None or last.start <= before_segment):
            return last
    for action in reversed(encounter.actions):
        if action.actor == name and action.template == template and action.status != "aborted":
            if before_segment is None or action.start <= before_segment:
                return action
    return None


def passive_defense(encounter: Encounter | None, attacker: Combatant) -> tuple[int, str]:
    """Defense the attacker has from passive actions, which its Attack loses (the rules:
    "If this is a Passive Action, the character's Attack will almost always be reduced
    by the same amount Defense is increased"): its in-progress passive actions' Defense
    plus the Defense of its latest Move Roll (movement is passive)."""
    return _defense(encounter, attacker, passive_only=True)


def defense_of(encounter: Encounter | None, target: Combatant) -> tuple[int, str]:
    """The Defense a target has now: its in-progress actions' Defense plus movement Defense."""
    return _defense(encounter, target, passive_only=False)


def _defense(encounter: Encounter | None, c: Combatant, passive_only: bool) -> tuple[int, str]:
    total, parts = 0, []
    for action in c.in_progress:
        value = int(action.resolution.details.get("defense", 0))
        if value and action.template != "move" and (action.mode == PASSIVE or not passive_only):
            total += value
            parts.append(f"{action.template} {value:+d}")
    move = latest_action(encounter, c.name, "move")
    if move is not None:
        value = int(move.resolution.details.get("move_defense", 0))
        if value:
            total += value
            parts.append(f"moving {value:+d}")
    return total, ", ".join(parts)
