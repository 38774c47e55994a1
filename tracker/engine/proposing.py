"""Proposals' events: a player's declaration under `player_declarations = "approval"`.

A proposal is a `propose` event, checked against the initiation rules when made (so the
player hears at once of a refusal) but changing nothing in the fight; `approve` applies
it (its own arguments when the GM edited it), `refuse` and `withdraw` close it, and
moving time lapses every pending one (the player declares again). Their log lines are
private: shown to the GM and the players of the combatants they are about, never to
viewers (`LogEntry.private`, `tracker.reading.roles.visible_to`). The proposals themselves are
the encounter's `Proposals` (tracker.engine.proposals).
"""

from __future__ import annotations

from typing import Any

from tracker.engine import draws
from tracker.engine.actions import Actions
from tracker.engine.core import resolution_of
from tracker.engine.effects import Resolution
from tracker.engine.errors import RuleRefusal, TrackerError
from tracker.engine.kinds import PROPOSABLE
from tracker.engine.model import ACTIVE, APPROVED, REFUSED, WITHDRAWN, Combatant, Proposal


class Proposing(Actions):
    """The `propose`, `approve`, `refuse` and `withdraw` events, and lapsing (see model.Proposal)."""

    _PROPOSABLE = PROPOSABLE

    def pending(self) -> list[Proposal]:
        """The proposals waiting for the GM, oldest first."""
        return self.proposals.pending()

    def proposal(self, seq: int) -> Proposal:
        return self.proposals.proposal(seq)

    def _check_proposed(self, action: str, args: dict[str, Any]) -> Combatant:
        """Refuse a proposal the rules would refuse now, changing nothing."""
        if action not in self._PROPOSABLE:
            raise TrackerError(f"propose: action: expected one of {', '.join(self._PROPOSABLE)}, got {action!r}")
        c = self.combatant(args["actor"])
        if action == "declare":
            mode = args.get("mode", ACTIVE)
            self.check_initiation(c, args["template"], mode, tuple(args.get("companions", ())))
            for target in args.get("targets", ()):
                self.combatant(target)
            self._checked(args["resolution"])
        elif action == "maintain":
            prev = self.maintainable_action(c)
            self.check_initiation(c, prev.template, ACTIVE)
            self._checked(args["resolution"])
        else:
            wanted = args.get("template")
            if not any(wanted in (None, a.template) for a in c.in_progress):
                what = f" {wanted}" if wanted else ""
                raise RuleRefusal("abort", f"{c.name} has no{what} action in progress to abort")
        return c

    @staticmethod
    def _proposed_args(args: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in args.items() if k not in ("action", "target", "reason", "faces")}

    def _propose(self, args: dict[str, Any]) -> None:
        action = args["action"]
        proposed = self._proposed_args(args)
        if "resolution" in proposed:
            proposed["resolution"] = resolution_of(proposed["resolution"])
        c = self._check_proposed(action, proposed)
        draw = draws.check(c, proposed)
        p = Proposal(self._current_seq, action, c.name, proposed, self.now)
        self.proposals.add(p)
        draws.hold(c, draw)
        roll = proposed.get("resolution")
        detail = f": {roll.summary}" if isinstance(roll, Resolution) and roll.summary else ""
        self._say("propose", f"proposal {p.seq}: {c.name}, {p.what()}{detail} (waiting for the GM)", c.name, private=True)

    def _approve(self, args: dict[str, Any]) -> None:
        p = self.proposals.waiting(args["target"], "approve")
        applied = self._proposed_args(args) if "actor" in args else dict(p.args)
        if applied.get("actor", p.actor) != p.actor:
            raise TrackerError(f"approve: proposal {p.seq} is {p.actor}'s, not {applied.get('actor')}'s")
        applied["actor"] = p.actor
        # The player's draw of app dice stays in force with the approved change (the
        # proposal holds it now: handed over, so the change may take it).
        if p.args.get("draw") is not None:
            applied["draw"] = p.args["draw"]
        else:
            applied.pop("draw", None)
        p.changes = _changes(p.args, applied) if "actor" in args else ""
        if p.changes:  # the player reads what the GM changed, not a plain approval
            self._say("approve", f"the GM approves proposal {p.seq} with changes ({p.changes}): {p.actor}, {p.what()}", p.actor, private=True)
        else:
            self._say("approve", f"the GM approves proposal {p.seq}: {p.actor}, {p.what()}", p.actor, private=True)
        actor = self.combatants.get(p.actor)
        draws.release(actor, p.args)
        try:
            self._handlers[p.action](self, applied)
        except TrackerError:
            self.log.pop()  # the approval line: the proposed change was refused, nothing changed
            if actor is not None:
                draws.hold(actor, p.args.get("draw"))
            raise
        p.status = APPROVED

    def _refuse(self, args: dict[str, Any]) -> None:
        p = self.proposals.waiting(args["target"], "refuse")
        reason = str(args.get("reason") or "").strip()
        p.status, p.reason = REFUSED, reason
        draws.release(self.combatants.get(p.actor), p.args)
        why = f": {reason}" if reason else ""
        self._say("refuse", f"the GM refuses proposal {p.seq} ({p.actor}, {p.what()}){why}", p.actor, private=True)

    def _withdraw(self, args: dict[str, Any]) -> None:
        p = self.proposals.waiting(args["target"], "withdraw")
        p.status = WITHDRAWN
        draws.release(self.combatants.get(p.actor), p.args)
        self._say("withdraw", f"proposal {p.seq} ({p.actor}, {p.what()}) is taken back", p.actor, private=True)

    def _lapse(self) -> None:
        """Time moves on: proposals made for this segment lapse (the player declares again)."""
        for p in self.proposals.lapse():
            draws.release(self.combatants.get(p.actor), p.args)
            self._say("lapse", f"proposal {p.seq} ({p.actor}, {p.what()}) lapses: time moved on before the GM approved it", p.actor, private=True)

def _changes(proposed: dict[str, Any], applied: dict[str, Any]) -> str:
    """What an edited approval changed of a proposal, in words: "targets Sphinx -> Nyx;
    pt 15 -> 10; dice 5 4 -> 9 9; roll made secret" ("" when nothing differs)."""

    def words(value: Any) -> str:
        if isinstance(value, (list, tuple)):
            return ", ".join(map(str, value)) or "none"
        if isinstance(value, dict):
            return ", ".join(f"{k}={v}" for k, v in value.items()) or "none"
        return "none" if value is None or value == "" else str(value)

    said = []
    for key in ("template", "mode", "targets", "pt", "params"):
        if key in applied and (proposed.get(key) or None) != (applied.get(key) or None):
            said.append(f"{key} {words(proposed.get(key))} -> {words(applied.get(key))}")
    before, after = proposed.get("resolution"), applied.get("resolution")
    dice = [tuple(getattr(r, "dice", None) or (r.get("dice", ()) if isinstance(r, dict) else ())) for r in (before, after)]
    if dice[0] != dice[1]:
        said.append(f"dice {' '.join(map(str, dice[0])) or 'none'} -> {' '.join(map(str, dice[1])) or 'none'}")
    # Who may see the roll is a change too (`approve N secret=true`; a player proposes in the open).
    if bool(applied.get("secret")) and not proposed.get("secret"):
        said.append("roll made secret")
    return "; ".join(said)
