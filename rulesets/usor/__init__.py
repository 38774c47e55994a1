"""USOR (USOR Games, "Fragments of Karn"): Event Rolls on the Event Chart.

Sources: seeds/000_b3433775ad955451.txt (Event Rolls, NOST, four worked examples) and
reference/systems.md section 1 (the public blog pages: Action Time, striking, damage).

Decisions where the sources are silent (docs/contributing/design.md#rules-decisions and this adapter):
- Event Chart: seven rows are known from seed 000 (16, 18, 19, 20, 24, 31, 35); they
  ship as `official`. Ratings 1-100 without a known row are `derived` by the rule in
  `chart.py` (the dice set whose expected successes is nearest the least-squares trend
  of the official rows) and every summary, log line and JSON result that uses one says
  "derived". The USOR glossary's row 11 (1d6+1d8) is not in the seed: the table
  setting `glossary_rows` (off by default; `--set glossary_rows=true`) puts it in place
  of the derived row, shown as a "glossary" row. Ratings off the chart are refused with a message saying how to add a row.
  A GM replaces any row with a house-rules file (`[event_chart] 23 = { dice = [...] }`).
- Ties: between two characters a draw is a win for neither (each must act again and
  pay the AT again); against an event the rolls repeat until one side wins. So `roll
  --vs R` (a character) can end in a draw and `roll --difficulty R` (an event) cannot.
  `success` is null for a roll against a character (it is opposed: see `winner`).
- Time: USOR counts Action Time in seconds with no rounds; one second is one segment.
  The clock shows minutes of 60 segments only as a reading aid. AT = BAT x ATM rounded
  half up, at least 1. Default BATs are in tables.toml: move 5 s (fixed, from the
  rules), strike/check/contest 10 s (tracker defaults; the GM types pt=N for others).
- Initiative (the Reaction Roll and Readiness Delays) is not automated: the rules on
  how far non-initiators are delayed are not public. Roll `check stat=reaction` or use
  `tracker roll usor`, then `surprise NAME SEGMENT` to delay a late starter.
- The sheet, stun and per-location damage are described in `sheet.py`; strikes, checks
  and contests (with the order in which typed faces are read) in `actions.py`.
- Face order on the command line: the chart row's dice in order (`--faces` for the
  rating rolled, `--vs-faces` for the rival or event); each repeat against an event
  takes the next set of faces from each list.

The seed's third example prints Juan's first roll of 1d20+2d12 as "a 2, a 13, and a
20", which no such roll can show (only the d20 can exceed 12). The tests reproduce its
success counts from the printed faces and show that typing them for the chart's dice
is refused with a message naming the die; its second roll (1, 14, 6) is typed in chart
order (d20 first) as 14, 1, 6.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from functools import cached_property
from pathlib import Path
from typing import Any

from tracker.engine.clock import TimeMapping
from tracker.engine.effects import Resolution
from tracker.engine.errors import TrackerError
from rulesets.base import ActionRequest, ActionTemplate, RollResult, Ruleset
from rulesets.dice import DiceSource, check_all_used
from rulesets.fields import SETTING, Field, coerce_all
from rulesets.usor.actions import STRIKE_JUDGE, Resolver, action_time, build_catalogue, critical_table, judge_strike
from rulesets.usor.chart import GLOSSARY, OFFICIAL, ChartRow, EventChart
from rulesets.usor.odds import chance_to_win
from rulesets.usor.rolls import DRAW, SELF, Contest, roll_row, contest, parse_rating
from rulesets.usor.sheet import LOCATIONS, SHEET, STUN, damage_figures, location_rows, starting_resources


SETTINGS = (
    Field("glossary_rows", "bool", False, role=SETTING,
          help="the USOR glossary's Event Chart row 11 = 1d6+1d8 (not in the Event Rolls text: off by default, "
               "rating 11 then rolls the derived row)"),
)



class UsorRuleset(Ruleset):
    id = "usor"
    name = "USOR"
    description = "USOR Event Rolls: chart dice, successes on 4+, NOST; Action Time in seconds"
    time = TimeMapping(segments_per_round=60, segment_means="one second of Action Time", round_name="minute", seconds_per_segment=1.0)
    sheet = SHEET
    settings = SETTINGS
    down_when = (STUN, "head", "chest")
    tables_file = "tables.toml"
    judges = {STRIKE_JUDGE: judge_strike}

    # ----------------------------------------------------------- tables
    def check_tables(self) -> None:
        """The Event Chart (with the glossary rows), [critical_strike], [actions],
        [locations] and [damage]: every table read."""
        _ = self.chart, self.glossary_chart
        critical_table(self.tables)
        location_rows(self.tables)
        damage_figures(self.tables)
        self.catalogue()

    @cached_property
    def chart(self) -> EventChart:
        return EventChart.from_table(self.tables.get("event_chart", {}))

    @cached_property
    def glossary_chart(self) -> EventChart:
        """The chart with the rows from outside seed 000 (`[glossary_rows]`) in place."""
        return self.chart.with_rows(self.tables.get("glossary_rows", {}), GLOSSARY, "glossary_rows")

    def chart_for(self, settings: Mapping[str, Any] | None) -> EventChart:
        return self.glossary_chart if (settings or {}).get("glossary_rows") else self.chart

    def row(self, rating: int, what: str = "", settings: Mapping[str, Any] | None = None) -> ChartRow:
        return self.chart_for(settings).row(rating, what)

    def resolver(self, settings: Mapping[str, Any] | None = None) -> Resolver:
        """What works out strikes, damage and Critical Strikes under these settings."""
        return Resolver(self.chart_for(settings), self.tables)

    # ----------------------------------------------------------- sheet
    def build_sheet(self, values: Mapping[str, Any], where: str) -> tuple[dict[str, Any], dict[str, Any]]:
        merged = coerce_all(self.sheet, dict(values), where, fill=False)
        full = starting_resources(self.tables)
        for f in self.sheet:
            if f.name not in merged:
                if f.name in full:
                    merged[f.name] = full[f.name]
                elif f.default is not None:
                    merged[f.name] = f.default
        stats = {f.name: merged[f.name] for f in self.stat_fields() if f.name in merged}
        resources = {f.name: merged[f.name] for f in self.resource_fields() if f.name in merged}
        return stats, resources

    # ----------------------------------------------------------- catalogue
    @cached_property
    def _catalogue(self) -> Mapping[str, ActionTemplate]:
        # A house table that breaks a rule is refused when the game is opened, not at
        # the first strike that needs it.
        try:
            critical_table(self.tables)
        except TrackerError as bad:
            where = f"{self.house_rules}: " if isinstance(self.house_rules, Path) else ""
            raise TrackerError(f"{where}{bad}") from None
        return build_catalogue(self.tables)

    def catalogue(self) -> Mapping[str, ActionTemplate]:
        return self._catalogue

    def default_pt(self, request: ActionRequest) -> int:
        """The action's time in seconds (a segment each): its base time from the tables,
        scaled by the actor's ATM unless the row says `scaled = false`."""
        row = self.tables.get("actions", {}).get(request.template.name, {})
        return action_time(request.template.pt, request.actor.stats.get("atm", 1.0), bool(row.get("scaled", True)))

    def resolve(self, request: ActionRequest, dice: DiceSource) -> Resolution:
        return self.resolver(request.settings).resolve(request, dice)

    def chance_of(self, request: ActionRequest) -> Fraction | None:
        return self.resolver(request.settings).chance_of(request)

    def action_time(self, bat: int, atm: float, scaled: bool = True) -> int:
        return action_time(bat, atm, scaled)

    # ----------------------------------------------------------- command line
    def _sides(self, spec: str, vs: str | None, difficulty: int | None,
               options: Mapping[str, Any] | None) -> tuple[ChartRow, ChartRow | None, bool]:
        if vs is not None and difficulty is not None:
            raise TrackerError("give either --vs RATING (another character) or --difficulty RATING (an event), not both")
        chart = self.chart_for(coerce_all(self.settings, dict(options or {}), "--set"))
        own = chart.row(parse_rating(spec, "rating"), f"rating {spec}")
        if vs is not None:
            return own, chart.row(parse_rating(vs, "--vs"), f"--vs rating {vs}"), False
        if difficulty is not None:
            return own, chart.row(difficulty, f"--difficulty rating {difficulty}"), True
        return own, None, False

    def roll(
        self,
        spec: str,
        dice: DiceSource,
        *,
        vs: str | None = None,
        vs_dice: DiceSource | None = None,
        difficulty: int | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> RollResult:
        own, rival, against_event = self._sides(spec, vs, difficulty, options)
        fields: dict[str, Any] = {"rating": own.rating, "dice_sizes": list(own.dice), "chart": own.source}
        if rival is None:
            single = roll_row(own, dice)
            check_all_used(dice, "--faces")
            fields.update(successes=single.successes, rival_successes=None, winner=None, nost=None)
            return RollResult(self.id, list(single.faces), None, single.successes, single.text(), fields)
        if vs_dice is None:
            raise TrackerError("an opposed roll needs dice for the other side")
        result: Contest = contest(own, rival, dice, vs_dice, against_event=against_event)
        check_all_used(dice, "--faces")
        check_all_used(vs_dice, "--vs-faces")
        fields.update(
            successes=result.last.own.successes,
            rival_successes=result.last.rival.successes,
            winner=result.winner,
            nost=result.nost,
            rival_rating=rival.rating,
            rival_dice=result.rival_faces(),
            rival_dice_sizes=list(rival.dice),
            rival_chart=rival.source,
            against="event" if against_event else "character",
            rounds=[
                {"dice": list(x.own.faces), "rival_dice": list(x.rival.faces), "successes": x.own.successes, "rival_successes": x.rival.successes}
                for x in result.exchanges
            ],
        )
        success = (result.winner == SELF) if against_event else None
        text = result.text("self", "event" if against_event else "rival")
        return RollResult(self.id, result.own_faces(), success, result.margin, text, fields)

    def chance(
        self,
        spec: str,
        *,
        vs: str | None = None,
        difficulty: int | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> Fraction:
        own, rival, against_event = self._sides(spec, vs, difficulty, options)
        if rival is None:
            raise TrackerError("USOR rolls are always opposed: give --vs RATING (another character) or --difficulty RATING (an event)")
        return chance_to_win(own.dice, rival.dice, against_event=against_event)

    def chance_notes(self, spec: str, *, vs: str | None = None, difficulty: int | None = None,
                     options: Mapping[str, Any] | None = None) -> list[str]:
        """docs/contributing/design.md#rules-decisions: show "derived" wherever a derived (or house) row is used."""
        own, rival, _ = self._sides(spec, vs, difficulty, options)
        notes = [f"{row.source} row: rating {row.rating} = {row.dice_text()}" for row in (own, rival)
                 if row is not None and row.source != OFFICIAL]
        return list(dict.fromkeys(notes))


__all__ = ["UsorRuleset", "LOCATIONS", "DRAW", "SELF"]
