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
Faces typed for a strike are read: strike dice, dodge dice, damage dice and Defense
dice, each in chart order. Damage and Defense are rolled whether or not the strike hits
as things stand at declaration (docs/contributing/design.md#judged-on-landing: every judgment at landing), so the dice asked
never depend on the state then; a strike that misses shows them as "rolled all the
same". The strike is judged when it lands (`judge_strike`), against the state at the
start of that segment: the strike and dodge ratings are worked again from the sheets as
they are then and, unchanged, the faces decide the hit; only a hit then reads the damage
and Defense ratings, and the damage is taken off what the target has then. If a GM
changed a rating the landing needs in between, the faces were rolled for other dice:
the log names the rating and leaves the blow to the GM.

Check: an Event Roll against an event of rating `against` (the GM's number); draws are
rolled again until one side wins. Faces: own dice then the event's, per exchange.
Contest: against the target's rating; a draw is no win for either (act again, pay the
time again). Faces: own dice then the rival's.

Critical Strike (seed: "A NOST of 1 is sufficient to strike an opponent but a NOST of 2
adds additional damage to the attack. A NOST of 3 would add even more ... Simply put,
the higher the NOST, the better"): a striker with `critical_strike=true` adds the
`[critical_strike]` table's Damage Rating for the strike's NOST. The seed gives no
figures, so the table is the tracker's (2, 4, 6, 8, 10 for NOST 2-6) for a GM to
replace; it must grow with every NOST (a table that does not is refused, naming the
row), and past its last row each NOST adds the last row's step again (NOST 7: 12), so
the bonus never stops growing. (`critical_table`.)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from math import floor
from typing import Any

from tracker.engine.bounds import MAX_SEGMENT
from tracker.engine.effects import Blow, Damage, Effect, Note, Resolution, landing
from tracker.engine.errors import TrackerError
from tracker.engine.model import ACTIVE, PASSIVE, Combatant
from rulesets.base import JUDGE_KEY, ActionRequest, ActionTemplate
from rulesets.dice import DiceSource
from rulesets.fields import PARAM, Field, staged
from rulesets.usor.chart import ChartRow, EventChart
from rulesets.usor.odds import chance_to_win
from rulesets.usor.rolls import DRAW, SELF, Contest, Rating, contest, rating_of
from rulesets.tables import only, section
from rulesets.usor.sheet import LOCATIONS, ROLLABLE, STUN, damage_figures, location_rows, rating

STRIKE_PARAMS: tuple[Field, ...] = (
    Field("location", "choice", "chest", choices=LOCATIONS, role=PARAM, help="where the strike is aimed"),
    Field("modifier", "int", 0, role=PARAM, help="situational modifier to the strike rating"),
    Field("dodge_modifier", "int", 0, role=PARAM, help="situational modifier to the defender's Dodge rating"),
    Field("damage_modifier", "int", 0, role=PARAM, help="situational modifier to the Damage Rating (a Critical Strike adds its own bonus by NOST)"),
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
    times = section(tables, "actions", "actions")
    for name, row in times.items():
        if name not in _DESCRIPTIONS:
            raise TrackerError(f"actions.{name}: expected one of the actions {', '.join(_DESCRIPTIONS)}")
        if not isinstance(row, Mapping):
            raise TrackerError(f"actions.{name}: expected a row such as {{ bat = 10, scaled = true }}, got {row!r}")
        only(row, ("bat", "scaled"), f"actions.{name}", "field")
    catalogue = {}
    for name, (description, rolls, mode, targets, params) in _DESCRIPTIONS.items():
        row = times.get(name, {})
        bat = row.get("bat", 10)
        if not isinstance(bat, int) or isinstance(bat, bool) or not 1 <= bat <= MAX_SEGMENT:
            raise TrackerError(f"actions.{name}.bat: expected a whole number of seconds from 1 to {MAX_SEGMENT:,}, got {bat!r}")
        scaled = row.get("scaled", True)
        if not isinstance(scaled, bool):
            raise TrackerError(f"actions.{name}.scaled: expected true or false, got {scaled!r}")
        how = "BAT x ATM" if scaled else "fixed"
        catalogue[name] = ActionTemplate(
            name, mode if mode in (ACTIVE, PASSIVE) else ACTIVE, bat, f"{description}; {bat} s ({how})",
            rolls=rolls, targets=targets, params=params,
        )
    return catalogue


@dataclass(frozen=True, slots=True)
class CriticalTable:
    """Damage Rating added by NOST, from NOST 2 up; NOST 1 adds nothing ("A NOST of 1
    is sufficient to strike an opponent")."""

    rows: tuple[int, ...]  # rows[0] is NOST 2

    def bonus(self, nost: int) -> int:
        if nost < 2:
            return 0
        if nost - 2 < len(self.rows):
            return self.rows[nost - 2]
        # Past the last row: "the higher the NOST, the better", so keep the last step.
        last = self.rows[-1]
        step = last - (self.rows[-2] if len(self.rows) > 1 else 0)
        return last + step * (nost - 1 - len(self.rows))


def critical_table(tables: Mapping[str, Any], where: str = "critical_strike") -> CriticalTable:
    """The `[critical_strike]` table checked: rows NOST 2, 3, ... with no gap, each a
    whole number larger than the one before (the first more than 0)."""
    raw = tables.get("critical_strike", {})
    if not isinstance(raw, Mapping) or not raw:
        raise TrackerError(f"{where}: expected rows by NOST such as 2 = 2, 3 = 4 (the Damage Rating each NOST adds), got {raw!r}")
    rows: dict[int, int] = {}
    for key, value in raw.items():
        try:
            nost = int(str(key).strip())
        except ValueError:
            raise TrackerError(f"{where}.{key}: expected a NOST of 2 or more as the key") from None
        if nost < 2:
            raise TrackerError(f"{where}.{key}: expected a NOST of 2 or more (a NOST of 1 only strikes)")
        if isinstance(value, bool) or not isinstance(value, int):
            raise TrackerError(f"{where}.{key}: expected a whole Damage Rating, got {value!r}")
        rows[nost] = value
    ordered = sorted(rows)
    if ordered != list(range(2, 2 + len(ordered))):
        missing = next(n for n in range(2, ordered[-1] + 1) if n not in rows)
        raise TrackerError(f"{where}: expected a row for every NOST from 2 to {ordered[-1]}; NOST {missing} has none")
    previous, previous_text = 0, "NOST 1 adds 0"
    for nost in ordered:
        if rows[nost] <= previous:
            raise TrackerError(
                f"{where}.{nost}: a Critical Strike must add more with every NOST (\"the higher the NOST, "
                f"the better\"); {rows[nost]} is not more than {previous} ({previous_text})"
            )
        previous, previous_text = rows[nost], f"NOST {nost} adds {rows[nost]}"
    return CriticalTable(tuple(rows[n] for n in ordered))


def action_time(bat: int, atm: float, scaled: bool) -> int:
    """AT = BAT x ATM, rounded half up, at least 1 second (= 1 segment)."""
    if not scaled:
        return max(1, bat)
    exact = Fraction(bat) * Fraction(repr(float(atm)))
    return max(1, floor(exact + Fraction(1, 2)))


def strike_ratings(attacker: Combatant, target: Combatant, p: Mapping[str, Any], k: Mapping[str, int]) -> tuple[Rating, Rating]:
    """(strike, dodge) from the sheets as they stand and the table figures `k`."""
    location = p.get("location", "chest")
    size = k["strike_per_size"] * (int(target.stats.get("size", 0)) - int(attacker.stats.get("size", 0)))
    strike = rating_of(("attack", rating(attacker.stats, "attack")), (location.replace("_", " "), k["penalty"]), ("size", size),
                       ("modifier", int(p.get("modifier", 0))))
    parry = int(target.stats.get("parry", 0)) if p.get("parry", True) else 0
    dodge = rating_of(("dodge", rating(target.stats, "dodge")), ("parry", parry), ("modifier", int(p.get("dodge_modifier", 0))))
    return strike, dodge


def damage_ratings(attacker: Combatant, target: Combatant, p: Mapping[str, Any], k: Mapping[str, int], critical: int) -> tuple[Rating, Rating]:
    """(damage, Defense) from the sheets as they stand, with a Critical Strike's bonus."""
    size = k["damage_per_size"] * (int(attacker.stats.get("weapon_size", 0)) - int(target.stats.get("size", 0)))
    dmg = rating_of(("damage", rating(attacker.stats, "damage")), ("size", size), ("modifier", int(p.get("damage_modifier", 0))),
                    ("Critical Strike", critical))
    s = target.stats
    guard = rating_of(("vitality", int(s.get("vitality", 0))), ("armor", int(s.get("armor", 0))), ("natural armor", int(s.get("natural_armor", 0))))
    return dmg, guard


STRIKE_JUDGE = "usor.strike"


def judge_strike(encounter: Any, action: Any, blow: Blow) -> list[Effect]:
    """A strike judged as it lands (docs/contributing/design.md#judged-on-landing): the faces were rolled at declaration for
    the ratings then; the ratings are worked again from the sheets as they stand now.
    Unchanged, the strike lands as rolled, its damage on what the target has now. If a
    rating changed in between (a GM's `set`), the faces were rolled for other dice: the
    log says which rating changed and leaves the blow to the GM, never guessing."""
    found = landing(encounter, action, blow, list(action.resolution.details.get("hits", [])))
    if isinstance(found, list):
        return found
    hit, target = found
    attacker = encounter.combatants.get(action.actor)
    if attacker is None:
        return [Note(f"{action.actor}'s strike at {target.name} lapses: {action.actor} is not in the fight")]
    params, k = hit["params"], hit["constants"]
    head = f"{action.actor}'s strike at {target.name} lands"
    ratings: dict[str, int] = hit["ratings"]
    now = dict(zip(("strike", "dodge"), (r.value for r in strike_ratings(attacker, target, params, k))))
    # Whether it hits is judged first; damage and Defense matter only to a hit.
    changed = _changed(ratings, now, ("strike", "dodge"))
    if not changed and not hit.get("hit"):
        return [Note(f"{head}: {hit.get('outcome', 'no hit')}")]
    if not changed and "damage" in ratings:
        critical = int(hit.get("critical", 0)) if attacker.stats.get("critical_strike") else 0
        now.update(zip(("damage", "Defense"), (r.value for r in damage_ratings(attacker, target, params, k, critical))))
        changed = _changed(ratings, now, ("damage", "Defense"))
    if changed or "damage" not in ratings:
        what = ", ".join(changed) if changed else "no damage dice were rolled (an older save)"
        return [Note(f"{head}, but {what} since it was rolled: the faces were rolled for the old "
                     f"rating's dice, so the GM rolls it again (`roll usor RATING --vs RATING`) and applies "
                     f"the damage by hand (`damage {target.name} N resource={hit['resource']}`)")]
    amount = int(hit.get("damage", 0))
    if amount <= 0:
        return [Note(f"{head}: hit, the Defense holds: no damage")]
    return [Note(f"{head}: hit for {amount} {hit['where']}"), Damage(target.name, amount, hit["resource"])]


def _changed(was: Mapping[str, int], now: Mapping[str, int], names: tuple[str, ...]) -> list[str]:
    return [f"{name} {was[name]} -> {now[name]}" for name in names if name in was and now.get(name) != was[name]]


class Resolver:
    """Resolves USOR actions against one chart and its tables."""

    def __init__(self, chart: EventChart, tables: Mapping[str, Any]) -> None:
        self.chart = chart
        self.tables = tables

    # ----------------------------------------------------------- ratings
    def constants(self, request: ActionRequest) -> dict[str, int]:
        """The table figures a strike's ratings use, kept with the blow for its landing."""
        location = request.params.get("location", "chest")
        damage = damage_figures(self.tables)
        return {
            "penalty": location_rows(self.tables).get(location, (0, 0))[0],
            "strike_per_size": damage["strike_per_size"],
            "damage_per_size": damage["damage_per_size"],
        }

    def strike_ratings(self, request: ActionRequest) -> tuple[Rating, Rating]:
        return strike_ratings(request.actor, self._target(request), request.params, self.constants(request))

    def critical_bonus(self, attacker: Combatant, nost: int) -> int:
        """Damage Rating a Critical Strike adds for this NOST (0 without the ability)."""
        if not attacker.stats.get("critical_strike") or nost < 2:
            return 0
        return critical_table(self.tables).bonus(nost)

    def damage_ratings(self, request: ActionRequest, critical: int = 0) -> tuple[Rating, Rating]:
        return damage_ratings(request.actor, self._target(request), request.params, self.constants(request), critical)

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
        pt = request.performance_time
        if name == "strike":
            return self._strike(request, dice, pt)
        if name == "check":
            own, event = self.check_ratings(request)
            result = contest(self._row(own, "check"), self._row(event, "event"), dice, dice, against_event=True,
                             own_label=f"{own.text(own.name)} roll", rival_label="roll for the event", rival_who="the GM")
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
        location = request.params.get("location", "chest")
        resource = STUN if request.params.get("stun") else location
        where = "stun" if resource == STUN else f"to the {location.replace('_', ' ')}"
        details: dict[str, Any] = {"nost": hit.nost, "winner": hit.winner, "location": location, JUDGE_KEY: STRIKE_JUDGE}
        # What the judge needs when the blow lands (the faces decide; the ratings are checked).
        record: dict[str, Any] = {
            "target": target.name, "hit": hit.winner == SELF, "resource": resource, "where": where,
            "params": {k: v for k, v in request.params.items() if v is not None},
            "constants": self.constants(request), "ratings": {"strike": strike_r.value, "dodge": dodge_r.value},
        }
        sources = [x.own.row.source, x.rival.row.source]
        # Damage and Defense are rolled whatever the strike did (docs/contributing/design.md#judged-on-landing: every judgment
        # at landing): which dice are asked never depends on the state at declaration,
        # and the landing uses them only if the blow hits as things stand then.
        critical = self.critical_bonus(request.actor, hit.nost) if hit.winner == SELF else 0
        dmg_r, def_r = self.damage_ratings(request, critical)
        if critical:
            details["critical_strike"] = critical
            record["critical"] = critical
        blow = contest(self._row(dmg_r, "damage"), self._row(def_r, "Defense"), dice, dice, against_event=False,
                       own_label="damage", rival_label="Defense", rival_who=target.name)
        y = blow.last
        faces += [*y.own.faces, *y.rival.faces]
        sources += [y.own.row.source, y.rival.row.source]
        amount = max(0, blow.margin)
        record["ratings"].update({"damage": dmg_r.value, "Defense": def_r.value})
        record["damage"] = amount
        rolled = f"{y.own.text(dmg_r.text('damage'))} vs {y.rival.text(def_r.text('Defense'))}"
        if hit.winner != SELF:
            outcome = "a draw: no hit" if hit.winner == DRAW else f"{target.name} dodges (NOST {hit.nost})"
            lines.append(outcome)
            lines.append(f"damage rolled all the same, used only on a hit: {rolled}")
            record["outcome"] = outcome
            details["damage"] = 0
        else:
            lines.append(f"hit, NOST {hit.nost}; {rolled}")
            lines.append(f"{amount} {where}" if amount else "the Defense holds: no damage")
            details["damage"] = amount
        lines.append("judged when it lands")
        details["chart"] = sources
        details["hits"] = [record]
        return Resolution(
            pt=pt,
            success=hit.winner == SELF,
            margin=hit.margin,
            dice=tuple(faces),
            summary="; ".join(lines),
            effects=(Blow(target.name, 0),),
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
            # Without `against` there is no rival roll: refused by name (check_ratings), so
            # the form's chance line says what is missing rather than "no roll".
            own, event = self.check_ratings(request)
            return chance_to_win(self._row(own, "check").dice, self._row(event, "event").dice, against_event=True)
        if name == "contest":
            if len(request.targets) != 1:
                return None
            own, rival = self.contest_ratings(request)
            return chance_to_win(self._row(own, "contest").dice, self._row(rival, "rival").dice, against_event=False)
        return None
