"""USOR actions: strike, check (against an event), contest (against a character), move.

Strike (the "Striking an Opponent" and "Damage" pages):
1. Strike rating = weapon skill (`attack`) + the location's penalty + 1 per Size Level
   the attacker is below the defender (-1 per level above) + `modifier`.
2. Dodge rating = `dodge` + the defender's `parry` (when it has one and `parry` is not
   turned off) + `dodge_modifier`. More successes than the dodge is a hit; a draw is no
   hit (between characters a draw is a win for neither).
3. On a hit: Damage Rating = `damage` + 5 per Size Level the weapon is above the
   defender (-5 per level below) + `damage_modifier`, against Defense = Vitality + Armor
   + Natural Armor. Damage = damage successes - Defense successes when positive, taken
   off the struck location (physical) or off `stun` with `stun=true` (the source does not
   say how an attack is designated stun or physical; the GM says so per strike).
Faces typed for a strike are read: strike dice, dodge dice, then (on a hit) damage dice
and Defense dice, each in chart order.

Check: an Event Roll against an event of rating `against` (the GM's number); draws are
rolled again until one side wins. Faces: own dice then the event's, per exchange.
Contest: against the target's rating; a draw is no win for either (act again, pay the
time again). Faces: own dice then the rival's.

Critical Strike and Disarm bonuses by NOST are not public beyond single examples; the
GM applies them through `damage_modifier` / `modifier`.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from math import floor
from typing import Any

from tracker.engine.effects import Damage, Effect, Note, Resolution
from tracker.engine.errors import TrackerError
from tracker.engine.model import ACTIVE, PASSIVE, Combatant
from rulesets.base import ActionRequest, ActionTemplate
from rulesets.dice import DiceSource
from rulesets.fields import PARAM, Field, staged
from rulesets.usor.chart import ChartRow, EventChart
from rulesets.usor.odds import chance_to_win
from rulesets.usor.rolls import DRAW, SELF, Contest, Rating, contest, rating_of
from rulesets.usor.sheet import LOCATIONS, ROLLABLE, STUN, rating

STRIKE_PARAMS: tuple[Field, ...] = (
    Field("location", "choice", "chest", choices=LOCATIONS, role=PARAM, help="where the strike is aimed"),
    Field("modifier", "int", 0, role=PARAM, help="situational modifier to the strike rating"),
    Field("dodge_modifier", "int", 0, role=PARAM, help="situational modifier to the defender's Dodge rating"),
    Field("damage_modifier", "int", 0, role=PARAM, help="modifier to the Damage Rating (e.g. a Critical Strike bonus)"),
    Field("parry", "bool", True, role=PARAM, help="the defender's Parry Rating counts (a covered weapon in hand)"),
    Field("stun", "bool", False, role=PARAM, help="the blow deals stun damage instead of physical damage"),
)
CHECK_PARAMS: tuple[Field, ...] = (
    Field("stat", "choice", "agility", choices=ROLLABLE, role=PARAM, help="the rating rolled"),
    Field("rating", "int", None, role=PARAM, help="roll this rating instead of a stat"),
    Field("modifier", "int", 0, role=PARAM, help="situational modifier to the rating"),
    Field("against", "int", None, role=PARAM, help="the event's rating (the GM's number)"),
)
CONTEST_PARAMS: tuple[Field, ...] = (
    Field("stat", "choice", "agility", choices=ROLLABLE, role=PARAM, help="the rating rolled"),
    Field("modifier", "int", 0, role=PARAM, help="situational modifier to the rating"),
    Field("rival_stat", "choice", None, choices=ROLLABLE, role=PARAM, help="the rival's rating (default: the same stat)"),
    Field("rival_modifier", "int", 0, role=PARAM, help="situational modifier to the rival's rating"),
)

# The declare form's first fields (the rest one key away); USOR chooses nothing after the roll.
STRIKE_PARAMS = staged(STRIKE_PARAMS, ("location", "modifier"))
CHECK_PARAMS = staged(CHECK_PARAMS, ("stat", "against", "modifier"))
CONTEST_PARAMS = staged(CONTEST_PARAMS, ("stat", "rival_stat", "modifier"))

_DESCRIPTIONS = {
    "strike": ("strike a target: weapon skill against Dodge, then Damage against Defense", "Event Rolls: attack vs dodge, damage vs Defense", ACTIVE, 1, STRIKE_PARAMS),
    "check": ("an Event Roll against an event (rolled again on a draw until one side wins)", "Event Roll vs the event's rating", ACTIVE, 0, CHECK_PARAMS),
    "contest": ("an Event Roll against another character (a draw is no win)", "Event Roll vs the target's rating", ACTIVE, 1, CONTEST_PARAMS),
    "move": ("move (distance by Agility)", "", ACTIVE, 0, ()),
}


def build_catalogue(tables: Mapping[str, Any]) -> dict[str, ActionTemplate]:
    times = tables.get("actions", {})
    catalogue = {}
    for name, (description, rolls, mode, targets, params) in _DESCRIPTIONS.items():
        row = times.get(name, {})
        bat = row.get("bat", 10)
        if not isinstance(bat, int) or isinstance(bat, bool) or bat < 1:
            raise TrackerError(f"actions.{name}.bat: expected a whole number of seconds of at least 1, got {bat!r}")
        scaled = row.get("scaled", True)
        if not isinstance(scaled, bool):
            raise TrackerError(f"actions.{name}.scaled: expected true or false, got {scaled!r}")
        how = "BAT x ATM" if scaled else "fixed"
        catalogue[name] = ActionTemplate(
            name, mode if mode in (ACTIVE, PASSIVE) else ACTIVE, bat, f"{description}; {bat} s ({how})",
            rolls=rolls, targets=targets, params=params,
        )
    return catalogue


def action_time(bat: int, atm: float, scaled: bool) -> int:
    """AT = BAT x ATM, rounded half up, at least 1 second (= 1 segment)."""
    if not scaled:
        return max(1, bat)
    exact = Fraction(bat) * Fraction(repr(float(atm)))
    return max(1, floor(exact + Fraction(1, 2)))


class Resolver:
    """Resolves USOR actions against one chart and its tables."""

    def __init__(self, chart: EventChart, tables: Mapping[str, Any]) -> None:
        self.chart = chart
        self.tables = tables

    # ----------------------------------------------------------- time
    def pt(self, request: ActionRequest) -> int:
        if request.pt is not None:
            return request.pt
        row = self.tables.get("actions", {}).get(request.template.name, {})
        return action_time(request.template.pt, request.actor.stats.get("atm", 1.0), bool(row.get("scaled", True)))

    # ----------------------------------------------------------- ratings
    def strike_ratings(self, request: ActionRequest) -> tuple[Rating, Rating]:
        attacker, target = request.actor, self._target(request)
        p = request.params
        location = p.get("location", "chest")
        penalty = int(self.tables.get("locations", {}).get(location, {}).get("penalty", 0))
        per_size = int(self.tables.get("damage", {}).get("strike_per_size", 1))
        size = per_size * (int(target.stats.get("size", 0)) - int(attacker.stats.get("size", 0)))
        strike = rating_of(("attack", rating(attacker.stats, "attack")), (location.replace("_", " "), penalty), ("size", size), ("modifier", int(p.get("modifier", 0))))
        parry = int(target.stats.get("parry", 0)) if p.get("parry", True) else 0
        dodge = rating_of(("dodge", rating(target.stats, "dodge")), ("parry", parry), ("modifier", int(p.get("dodge_modifier", 0))))
        return strike, dodge

    def critical_bonus(self, attacker: Combatant, nost: int) -> int:
        """Damage Rating a Critical Strike adds for this NOST (0 without the ability)."""
        if not attacker.stats.get("critical_strike") or nost < 2:
            return 0
        table = {int(k): int(v) for k, v in self.tables.get("critical_strike", {}).items()}
        if not table:
            return 0
        reached = [n for n in table if n <= nost]
        return table[max(reached)] if reached else 0

    def damage_ratings(self, request: ActionRequest, critical: int = 0) -> tuple[Rating, Rating]:
        attacker, target = request.actor, self._target(request)
        per_size = int(self.tables.get("damage", {}).get("damage_per_size", 5))
        size = per_size * (int(attacker.stats.get("weapon_size", 0)) - int(target.stats.get("size", 0)))
        dmg = rating_of(("damage", rating(attacker.stats, "damage")), ("size", size), ("modifier", int(request.params.get("damage_modifier", 0))),
                        ("Critical Strike", critical))
        s = target.stats
        guard = rating_of(("vitality", int(s.get("vitality", 0))), ("armor", int(s.get("armor", 0))), ("natural armor", int(s.get("natural_armor", 0))))
        return dmg, guard

    def check_ratings(self, request: ActionRequest) -> tuple[Rating, Rating]:
        p = request.params
        against = p.get("against")
        if against is None:
            raise TrackerError("check needs the event's rating: against=N (e.g. against=24 for a falling boulder)")
        if p.get("rating") is not None:
            own = rating_of(("rating", int(p["rating"])), ("modifier", int(p.get("modifier", 0))))
        else:
            stat = p.get("stat", "agility")
            own = rating_of((stat, rating(request.actor.stats, stat)), ("modifier", int(p.get("modifier", 0))))
        return own, rating_of(("rating", int(against)))

    def contest_ratings(self, request: ActionRequest) -> tuple[Rating, Rating]:
        p = request.params
        target = self._target(request)
        stat = p.get("stat", "agility")
        rival_stat = p.get("rival_stat") or stat
        own = rating_of((stat, rating(request.actor.stats, stat)), ("modifier", int(p.get("modifier", 0))))
        rival = rating_of((rival_stat, rating(target.stats, rival_stat)), ("modifier", int(p.get("rival_modifier", 0))))
        return own, rival

    @staticmethod
    def _target(request: ActionRequest) -> Combatant:
        if len(request.targets) != 1:
            raise TrackerError(f"{request.template.name} needs one target (target=NAME)")
        return request.targets[0]

    def _row(self, r: Rating, what: str) -> ChartRow:
        return self.chart.row(r.value, f"{what} rating {r.text()}")

    # ----------------------------------------------------------- resolution
    def resolve(self, request: ActionRequest, dice: DiceSource) -> Resolution:
        name = request.template.name
        pt = self.pt(request)
        if name == "strike":
            return self._strike(request, dice, pt)
        if name == "check":
            own, event = self.check_ratings(request)
            result = contest(self._row(own, "check"), self._row(event, "event"), dice, dice, against_event=True,
                             own_label=f"{own.text(str(request.params.get('stat', 'check')))} roll", rival_label="roll for the event", rival_who="the GM")
            return self._contest_resolution(request, pt, result, own, event, "the event")
        if name == "contest":
            own, rival = self.contest_ratings(request)
            result = contest(self._row(own, "contest"), self._row(rival, "rival"), dice, dice, against_event=False,
                             own_label="opposed roll", rival_label="opposed roll", rival_who=self._target(request).name)
            return self._contest_resolution(request, pt, result, own, rival, self._target(request).name)
        return Resolution(pt=pt, summary=f"AT {pt} s")

    def _contest_resolution(self, request: ActionRequest, pt: int, result: Contest, own: Rating, rival: Rating, rival_name: str) -> Resolution:
        actor = request.actor.name
        summary = result.text(actor, rival_name, f"{actor} {own.text()}", f"{rival_name} {rival.text()}")
        success = result.winner == SELF
        effects: list[Effect] = []
        if result.winner == DRAW:
            effects.append(Note(f"{actor} and {rival_name} draw: neither wins; trying again means acting again and paying the time again"))
        return Resolution(
            pt=pt,
            success=success,
            margin=result.margin,
            dice=tuple(f for x in result.exchanges for f in (*x.own.faces, *x.rival.faces)),
            summary=summary,
            effects=tuple(effects),
            details=self._details(result, own, rival),
        )

    @staticmethod
    def _details(result: Contest, own: Rating, rival: Rating) -> dict[str, Any]:
        rows = [x.own.row for x in result.exchanges[:1]] + [x.rival.row for x in result.exchanges[:1]]
        return {
            "rating": own.value,
            "rival_rating": rival.value,
            "winner": result.winner,
            "nost": result.nost,
            "exchanges": len(result.exchanges),
            "chart": [row.source for row in rows],
        }

    def _strike(self, request: ActionRequest, dice: DiceSource, pt: int) -> Resolution:
        target = self._target(request)
        strike_r, dodge_r = self.strike_ratings(request)
        hit = contest(self._row(strike_r, "strike"), self._row(dodge_r, "dodge"), dice, dice, against_event=False,
                      own_label="strike", rival_label="dodge", rival_who=target.name)
        x = hit.last
        faces = [*x.own.faces, *x.rival.faces]
        lines = [f"{x.own.text(strike_r.text('strike'))} vs {x.rival.text(dodge_r.text('dodge'))}"]
        effects: list[Effect] = []
        details: dict[str, Any] = {"nost": hit.nost, "winner": hit.winner, "location": request.params.get("location", "chest")}
        sources = [x.own.row.source, x.rival.row.source]
        if hit.winner != SELF:
            lines.append("a draw: no hit" if hit.winner == DRAW else f"{target.name} dodges (NOST {hit.nost})")
            details["damage"] = 0
        else:
            critical = self.critical_bonus(request.actor, hit.nost)
            dmg_r, def_r = self.damage_ratings(request, critical)
            if critical:
                details["critical_strike"] = critical
            blow = contest(self._row(dmg_r, "damage"), self._row(def_r, "Defense"), dice, dice, against_event=False,
                           own_label="damage", rival_label="Defense", rival_who=target.name)
            y = blow.last
            faces += [*y.own.faces, *y.rival.faces]
            sources += [y.own.row.source, y.rival.row.source]
            amount = max(0, blow.margin)
            location = request.params.get("location", "chest")
            resource = STUN if request.params.get("stun") else location
            where = "stun" if resource == STUN else f"to the {location.replace('_', ' ')}"
            lines.append(f"hit, NOST {hit.nost}; {y.own.text(dmg_r.text('damage'))} vs {y.rival.text(def_r.text('Defense'))}")
            if amount:
                lines.append(f"{amount} {where}")
                effects.append(Damage(target.name, amount, resource))
            else:
                lines.append("the Defense holds: no damage")
            details["damage"] = amount
        details["chart"] = sources
        return Resolution(
            pt=pt,
            success=hit.winner == SELF,
            margin=hit.margin,
            dice=tuple(faces),
            summary="; ".join(lines),
            effects=tuple(effects),
            details=details,
        )

    # ----------------------------------------------------------- odds
    def chance_of(self, request: ActionRequest) -> Fraction | None:
        name = request.template.name
        if name == "strike":
            if len(request.targets) != 1:
                return None
            strike_r, dodge_r = self.strike_ratings(request)
            return chance_to_win(self._row(strike_r, "strike").dice, self._row(dodge_r, "dodge").dice, against_event=False)
        if name == "check":
            if request.params.get("against") is None:
                return None
            own, event = self.check_ratings(request)
            return chance_to_win(self._row(own, "check").dice, self._row(event, "event").dice, against_event=True)
        if name == "contest":
            if len(request.targets) != 1:
                return None
            own, rival = self.contest_ratings(request)
            return chance_to_win(self._row(own, "contest").dice, self._row(rival, "rival").dice, against_event=False)
        return None
