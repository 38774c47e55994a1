"""How a ruleset's own time maps onto the segment clock."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TimeMapping:
    """A ruleset's time: how many segments make a round and what a segment means.

    `payment_every` is the spacing of payment segments (per-round costs are charged on
    every multiple of it); 0 means the game has none. `simultaneous` says whether all
    completions on one segment land together (Brand X) or in the ruleset's order, where
    an actor put down earlier in the same segment no longer acts (ORE).
    """

    segments_per_round: int = 10
    segment_means: str = "one tick of the fight"
    round_name: str = "round"
    payment_every: int = 0
    simultaneous: bool = True

    def round_of(self, segment: int) -> tuple[int, int]:
        """(round number from 1, segment within that round from 0)."""
        return segment // self.segments_per_round + 1, segment % self.segments_per_round

    def clock(self, segment: int) -> str:
        rnd, within = self.round_of(segment)
        return f"segment {segment} · {self.round_name} {rnd}, segment {within}"

    def brief(self, segment: int) -> str:
        """The clock in a list's column: "30 · round 4" (the full form runs past 80 columns)."""
        return f"{segment} · {self.round_name} {self.round_of(segment)[0]}"

    def next_payment(self, after: int) -> int | None:
        """The first payment segment strictly after `after`, if the game has them."""
        if self.payment_every <= 0:
            return None
        return (after // self.payment_every + 1) * self.payment_every
