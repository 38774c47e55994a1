"""The EP use chart (docs/contributing/design.md#rules-decisions) and the per-combatant count of fractional rows.

Row r >= 5 costs r - 4 EP a use; row 4 costs 1 EP per 5 uses; rows 3, 2, 1 one EP per
10, 20, 50 uses; a row <= 0 is free (all figures in `tables.toml`, [ep] and
[ep_uses_per_point]).

Fractional rows are counted per combatant and per row, from the encounter's own
history: each resolution lists its EP uses in `details["ep_uses"]` (and an opposed
roll its one target's in `details["target_ep_uses"]`), so the count
follows undo and redo and survives save and resume. Decision (the sources are silent):
the EP is paid on the first use of each run (uses 1, 6, 11, ... on row 4), because
Brand X pays an action's EP when it is initiated. A row between the free rows and the
first paid row that the table does not list costs nothing (a GM's house table that
leaves a row out has made it free); a free row stays free even if listed.

Per-round costs (movement, passive powers, holding breath) are charged on payment
segments as `Upkeep`; on a fractional row the per-round amount is the fraction
(0.2 EP a round on row 4), since the engine charges an amount a round (one that changes
with time, a held breath's, says when in the Upkeep's rises).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from tracker.engine.encounter import Encounter
from tracker.engine.errors import TrackerError
from rulesets.tables import only, row_number, section, whole


# The kinds of use whose start row `Ctx.start_row` reads (actions.py: the shipped
# [ep_start] rows, and discernment, which starts on row 0 unless a GM's table says).
EP_KINDS = ("combat", "hand_damage", "move", "jump", "lift", "throw", "hold_breath", "power", "skill", "ability",
            "discernment")


@dataclass(frozen=True, slots=True)
class EpChart:
    """The EP chart: which rows are free, from which row EP are paid, and the uses a point buys."""

    first_paid_row: int = 5
    free_at_or_below: int = 0
    uses_per_point: tuple[tuple[int, int], ...] = ((4, 5), (3, 10), (2, 20), (1, 50))

    # The row each kind of use starts on before Q is spent on EP ([ep_start]).
    start_rows: tuple[tuple[str, int], ...] = ()

    @classmethod
    def from_tables(cls, tables: dict[str, Any]) -> "EpChart":
        ep = section(tables, "ep", "tables: [ep]")
        only(ep, ("first_paid_row", "free_at_or_below"), "tables: [ep]")
        first = whole(ep.get("first_paid_row", 5), "tables: [ep].first_paid_row")
        free = whole(ep.get("free_at_or_below", 0), "tables: [ep].free_at_or_below")
        if free >= first:  # a row both free and paid
            raise TrackerError(f"tables: [ep].free_at_or_below: expected a row below first_paid_row ({first}), got {free}")
        pairs = []
        for key, value in section(tables, "ep_uses_per_point", "tables: [ep_uses_per_point]").items():
            where = f"tables: [ep_uses_per_point] row {key}"
            row = row_number(key)
            if row is None:
                raise TrackerError(f"{where}: expected a whole row number")
            # "one EP per N uses": N of 0 or less would be no cost or a refund.
            pairs.append((row, whole(value, where, 1)))
        start_table = section(tables, "ep_start", "tables: [ep_start]")
        only(start_table, EP_KINDS, "tables: [ep_start]")
        starts = tuple((kind, whole(row, f"tables: [ep_start].{kind}")) for kind, row in start_table.items())
        return cls(first, free, tuple(sorted(pairs, reverse=True)), starts)

    def start(self, kind: str) -> int:
        """The EP row a use of this kind starts on ([ep_start]; 0, free, if not listed)."""
        return dict(self.start_rows).get(kind, 0)

    def every(self, row: int) -> int | None:
        """For a fractional row, how many uses make one EP."""
        for r, n in self.uses_per_point:
            if r == row:
                return n
        return None

    def per_use(self, row: int) -> Fraction:
        """The cost of one use, as an exact fraction (row 4 -> 1/5)."""
        if row <= self.free_at_or_below:
            return Fraction(0)
        if row >= self.first_paid_row:
            return Fraction(row - self.first_paid_row + 1)
        n = self.every(row)
        return Fraction(1, n) if n else Fraction(0)

    def row_cost(self, row: int) -> str:
        cost = self.per_use(row)
        if cost == 0:
            return "free"
        if cost.denominator == 1:
            return f"{cost.numerator} EP"
        return f"1 EP per {cost.denominator} uses"

    def charge(self, row: int, previous_uses: int) -> int:
        """EP actually paid for one use, given how often this row was used before."""
        cost = self.per_use(row)
        if cost.denominator == 1:
            return cost.numerator
        return 1 if previous_uses % cost.denominator == 0 else 0

    def per_round(self, row: int) -> int | float:
        """A per-round (upkeep) cost: whole EP, or the fraction as a float."""
        cost = self.per_use(row)
        return cost.numerator if cost.denominator == 1 else float(cost)


def previous_uses(encounter: Encounter | None, actor: str, row: int) -> int:
    """How many EP uses on `row` the actor made before, from the encounter's actions: its
    own (`ep_uses`), and those an opposed roll it was the target of made it pay
    (`target_ep_uses`: the opponent's side of arm wrestling)."""
    if encounter is None:
        return 0
    count = 0
    for action in encounter.actions:
        if action.actor == actor:
            uses = action.resolution.details.get("ep_uses", ())
        elif actor in action.targets:
            uses = action.resolution.details.get("target_ep_uses", ())
        else:
            continue
        for use in uses:
            if use.get("row") == row:
                count += 1
    return count


@dataclass(slots=True)
class EpBill:
    """The EP uses of one action, charged against the actor's history."""

    chart: EpChart
    encounter: Encounter | None
    actor: str
    uses: list[dict[str, Any]]

    def add(self, what: str, row: int) -> int:
        earlier = previous_uses(self.encounter, self.actor, row) + sum(1 for u in self.uses if u["row"] == row)
        paid = self.chart.charge(row, earlier)
        self.uses.append({"what": what, "row": row, "paid": paid})
        return paid

    @property
    def total(self) -> int:
        return sum(u["paid"] for u in self.uses)

    def text(self) -> str:
        if not self.uses:
            return "no EP"
        parts = [f"{u['what']} row {u['row']}: {u['paid']}" for u in self.uses]
        return f"{self.total} EP ({', '.join(parts)})"


def bill(chart: EpChart, encounter: Encounter | None, actor: str, items: Iterable[tuple[str, int]] = ()) -> EpBill:
    b = EpBill(chart, encounter, actor, [])
    for what, row in items:
        b.add(what, row)
    return b
