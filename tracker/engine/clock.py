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
    `below_zero` pairs a resource with the note said when a per-round payment leaves it
    below 0 ({name}, {before} and {after} filled in), for a game whose rules give no
    consequence there and leave it to the GM (Brand X's EP).
    """

    segments_per_round: int = 10
    segment_means: str = "one tick of the fight"
    round_name: str = "round"
    payment_every: int = 0
    simultaneous: bool = True
    below_zero: tuple[tuple[str, str], ...] = ()
    # How long a segment lasts in the game's world, where its rules say (0: they do not);
    # a campaign's rest counts conditions down by it (tracker.play.rest).
    seconds_per_segment: float = 0.0

    def below_zero_note(self, resource: str, name: str, before: float, after: float) -> str | None:
        """The note for a payment taking `name`'s `resource` from `before` to `after`, if
        the game has one and `after` is below 0 (plain replacement: a name is data)."""
        if after >= 0:
            return None
        for key, text in self.below_zero:
            if key == resource:
                return text.replace("{before}", f"{before:g}").replace("{after}", f"{after:g}").replace("{name}", name)
        return None

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
