"""Proposals: the player's declarations waiting for the GM, by the seq of their event.

Under `player_declarations = "approval"` a player's declaration is a `propose` event: a
`Proposal` that changes nothing in the fight until the GM approves it. `Proposals` is
the encounter's table of them (read as a mapping, seq -> Proposal, oldest first); the
events that make and close them are the encounter's (tracker.engine.proposing). Holds
no reference to the encounter.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from dataclasses import replace

from tracker.engine.effects import Note, Resolution
from tracker.engine.errors import RuleRefusal, TrackerError
from tracker.engine.model import LAPSED, PENDING, Proposal


class Proposals(Mapping[int, Proposal]):
    """Every proposal of the fight, by the seq of its `propose` event."""

    __slots__ = ("_by_seq",)

    def __init__(self, by_seq: dict[int, Proposal] | None = None) -> None:
        self._by_seq: dict[int, Proposal] = {} if by_seq is None else by_seq

    def __getitem__(self, seq: int) -> Proposal:
        return self._by_seq[seq]

    def __iter__(self) -> Iterator[int]:
        return iter(self._by_seq)

    def __len__(self) -> int:
        return len(self._by_seq)

    def __repr__(self) -> str:
        return f"Proposals({self._by_seq!r})"

    def add(self, proposal: Proposal) -> None:
        self._by_seq[proposal.seq] = proposal

    def copy(self) -> Proposals:
        """Each proposal copied: approving, refusing or lapsing one changes its status in place."""
        return Proposals({seq: copy.copy(p) for seq, p in self._by_seq.items()})

    def pending(self) -> list[Proposal]:
        """The proposals waiting for the GM, oldest first."""
        return [p for p in self._by_seq.values() if p.status == PENDING]

    def proposal(self, seq: int) -> Proposal:
        """Proposal `seq`, or a refusal naming those waiting."""
        found = self._by_seq.get(seq)
        if found is None:
            waiting = ", ".join(str(p.seq) for p in self.pending()) or "none"
            raise RuleRefusal("approval", f"no proposal {seq} (waiting: {waiting})")
        return found

    def waiting(self, seq: object, verb: str) -> Proposal:
        """Proposal `seq` if it still waits for the GM, or a refusal saying why not."""
        if isinstance(seq, bool) or not isinstance(seq, int):
            raise TrackerError(f"{verb}: target: expected the number of a proposal, got {seq!r}")
        p = self.proposal(seq)
        if p.status != PENDING:
            raise RuleRefusal("approval", f"{verb}: proposal {seq} ({p.actor}, {p.what()}) is already {p.status}")
        return p

    def lapse(self) -> list[Proposal]:
        """Time moves on: every pending proposal lapses (the player declares again); the
        ones that lapsed."""
        lapsed = self.pending()
        for p in lapsed:
            p.status = LAPSED
        return lapsed

    def renamed(self, old: str, new: str) -> None:
        """A waiting proposal is still its combatant's after a rename, and still aimed at
        the combatants it names (so the GM can approve it as made)."""
        for p in self._by_seq.values():
            targets = p.args.get("targets") or ()
            if p.actor == old:
                p.actor = new
                p.args = {**p.args, "actor": new, "targets": [new if t == old else t for t in targets]}
            elif old in targets:
                p.args = {**p.args, "targets": [new if t == old else t for t in targets]}
            roll = p.args.get("resolution")
            if isinstance(roll, Resolution) and any(getattr(e, "target", None) == old for e in roll.effects):
                effects = tuple(replace(e, target=new) if not isinstance(e, Note) and e.target == old else e for e in roll.effects)
                p.args = {**p.args, "resolution": replace(roll, effects=effects)}


__all__ = ["Proposals"]
