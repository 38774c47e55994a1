"""The action queue: initiating, maintaining, aborting and keeping actions.

Initiation rules (docs/contributing/design.md#initiation-rules): (1) one initiation per combatant per segment, unless the
templates name each other as companions; (2) no active action while an active one is in
progress; (3) initiating a passive action pushes the initiator's own in-progress actions
back one segment. A combatant that is down, surprised (before its segment) or airborne
(active actions only) may not initiate. An action initiated on segment s with
performance time p completes on s + p; its roll was made at initiation (stored in the
event as a `Resolution`); effects with timing "initiate" (costs) apply at once, the rest
on the completion segment (tracker.engine.resolving).

A maintained attack continues a completed maintainable action on the segment that action
completed; the chain ends when the attacker initiates any other active action or lets a
segment pass. Each action keeps the modifiers it was asked with (`Action.asked`, from its
event's `params`), so the next link can start from them. `keep` lets the GM overrule a
throwback's interruption.

A declaration or maintenance made with a player's app dice holds its draw while it
stands (tracker.engine.draws); the GM's `reroll` sets the next draw aside.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from tracker.engine import bounds, draws
from tracker.engine import effects as fx
from tracker.engine.core import resolution_of
from tracker.engine.effects import Resolution
from tracker.engine.errors import RuleRefusal, TrackerError
from tracker.engine.resolving import Resolving
from tracker.engine.timeline import COMPLETION
from tracker.engine.model import ABORTED, ACTIVE, IN_PROGRESS, INTERRUPTED, MODES, PASSIVE, Action, Combatant


# The line a declaration writes (worded when read: tracker.engine.log), and its ending for a roll
# made behind the GM's screen.
_INITIATES = "{} initiates {} {}{}, PT {}, completes on segment {}{}"
_MAINTAINS = "{} maintains {} (link {}){}, PT {}, completes on segment {}{}"
_IN_SECRET = " (rolled in secret)"


class Actions(Resolving):
    """The `declare`, `maintain`, `abort` and `keep` events, and the initiation rules."""

    def check_initiation(self, c: Combatant, template: str, mode: str, companions: Iterable[str] = ()) -> None:
        """Raise RuleRefusal naming the rule if `c` may not initiate this now."""
        now = self.now
        if mode not in MODES:
            raise TrackerError(f"mode must be active or passive, not {mode!r}")
        if c.down:
            raise RuleRefusal("down", f"{c.name} is down and cannot act")
        if now < c.surprised_until:  # c.surprised(now), asked on every initiation
            raise RuleRefusal(
                "surprise", f"{c.name} is surprised and may not initiate before segment {c.surprised_until}"
            )
        if mode == ACTIVE and now < c.airborne_until:  # c.airborne(now)
            raise RuleRefusal(
                "throwback",
                f"{c.name} is airborne until segment {c.airborne_until} and may not initiate an active action",
            )
        if c.initiated_on == now:
            companions = tuple(companions)
            for other, other_companions in c.initiated_now:
                if template not in other_companions and other not in companions:
                    raise RuleRefusal(
                        "one initiation per segment",
                        f"{c.name} already initiated {other} on segment {now}",
                    )
        if mode == ACTIVE and c.active is not None:
            raise RuleRefusal(
                "one active action at a time",
                f"{c.name}'s active {c.active.template} is in progress until segment {c.active.completes}",
            )

    def _initiate(
        self,
        c: Combatant,
        template: str,
        mode: str,
        targets: tuple[str, ...],
        resolution: Resolution,
        companions: tuple[str, ...],
        maintainable: bool,
        chain: int,
        secret: bool = False,
        asked: Mapping[str, Any] | None = None,
    ) -> Action:
        now = self.now
        if resolution.pt < 1:
            raise TrackerError(f"performance time must be at least 1 segment, not {resolution.pt}")
        combatants = self.combatants
        for target in targets:
            if target not in combatants:
                self.combatant(target)  # found ignoring case, or refused by name
        if mode == PASSIVE:
            for pending in c.in_progress:
                pending.completes += 1
                self.timeline.push(pending.completes, COMPLETION, pending)
                self._push_early(pending, True)
        else:
            c.chain_from = None
        if c.initiated_on != now:
            c.initiated_on = now
            c.initiated_now.clear()  # in place: a new list a declaration would live on for gc to scan
        c.initiated_now.append((template, companions))
        # id, actor, template, mode, pt, start, completes, targets, resolution,
        # maintainable, chain, secret (positional: this runs for every replayed action)
        action = Action(len(self.actions) + 1, c.name, template, mode, resolution.pt, now, now + resolution.pt, targets, resolution, maintainable, chain, secret)
        if asked:
            action.asked = asked
        self.actions.append(action)
        c.in_progress.append(action)
        c.latest[template] = action
        if mode == ACTIVE:
            c.active = action
        self.timeline.push(action.completes, COMPLETION, action)
        if resolution.effects:
            self._push_early(action)
        aim = f" at {', '.join(targets)}" if targets else ""
        about = (c.name, *targets) if targets else c.name  # one name: kept as itself (tracker.engine.log)
        summary = resolution.summary
        # Viewers see that something was started; a secret roll itself stays behind the screen.
        ending = _IN_SECRET if secret else f": {summary}" if summary else ""
        unseen = c.hidden or (self._unseen(targets) if targets else False)
        # The line, worded when read: "Ann initiates active hit at Bo, PT 5, completes on
        # segment 5: 2d6 -> 7", or "Ann maintains hit (link 2) ...". Stored as
        # tracker.engine.log keeps a line: its eight fields, then the template's values
        # (written here, not through a helper: this runs for every action).
        if chain:
            self.log.write((now, "declare", _MAINTAINS, about, self._current_seq, False, unseen, False,
                            c.name, template, chain, aim, resolution.pt, action.completes, ending))
        else:
            self.log.write((now, "declare", _INITIATES, about, self._current_seq, False, unseen, False,
                            c.name, mode, template, aim, resolution.pt, action.completes, ending))
        if secret and summary:
            self._say("roll", f"secret roll for {c.name}'s {template}: {summary}", c.name, secret=True)
        if resolution.effects:
            self._apply_effects(action, fx.INITIATE)
        return action

    def _declare(self, args: dict[str, Any]) -> None:
        actor = args["actor"]
        c = self.combatants.get(actor) or self.combatant(actor)
        template, mode = args["template"], args.get("mode", ACTIVE)
        companions = tuple(args.get("companions", ()))
        self.check_initiation(c, template, mode, companions)
        resolution = self._checked(args["resolution"])
        # Only a player's declaration with the app's dice holds a draw (a look-up, not a call, for the rest).
        draw = draws.check(c, args) if "draw" in args else None
        # actor, template, mode, targets, resolution, companions, maintainable, chain,
        # secret, asked (positional: this runs for every declaration)
        self._initiate(c, template, mode, tuple(args.get("targets", ())), resolution, companions,
                       bool(args.get("maintainable", False)), 0, bool(args.get("secret", False)), args.get("params"))
        if draw is not None:
            draws.hold(c, draw)

    def _reroll(self, args: dict[str, Any]) -> None:
        c = self.combatant(args["target"])
        draw = draws.next_draw(c)
        draws.hold(c, draw)
        self._say("reroll", f"the GM sets aside {c.name}'s standing app dice (draw {draw}): the next roll is a new one", c.name)

    def maintainable_action(self, c: Combatant) -> Action:
        """The completed action `c` may maintain now, or RuleRefusal saying why not."""
        prev = c.chain_from
        if prev is None:
            raise RuleRefusal("maintained attack", f"{c.name} has no completed attack that can be maintained")
        if prev.ended != self.now:
            raise RuleRefusal(
                "maintained attack",
                f"{c.name}'s {prev.template} completed on segment {prev.ended}; a maintained "
                f"attack continues on the segment the previous one completes",
            )
        return prev

    def _maintain(self, args: dict[str, Any]) -> None:
        c = self.combatant(args["actor"])
        prev = self.maintainable_action(c)
        self.check_initiation(c, prev.template, ACTIVE)
        targets = tuple(args.get("targets", ())) or prev.targets
        resolution = self._checked(args["resolution"])
        draw = draws.check(c, args)
        self._initiate(c, prev.template, ACTIVE, targets, resolution, (), True, prev.chain + 1, prev.secret, args.get("params"))
        draws.hold(c, draw)

    def _checked(self, value: Resolution | dict[str, Any]) -> Resolution:
        """The resolution, refused now if any number it would apply is out of bounds."""
        resolution = value if value.__class__ is Resolution else resolution_of(value)
        pt = resolution.pt
        # A plain resolution in bounds passes on one test; anything else is looked at whole.
        if resolution.effects or pt.__class__ is not int or not 1 <= pt <= bounds.MAX_SEGMENT - self.now:
            bounds.resolution(resolution, "resolution")
            if self.now + pt > bounds.MAX_SEGMENT:
                raise TrackerError(f"resolution: pt: the action would complete after segment {bounds.MAX_SEGMENT:,}")
        return resolution

    def _abort(self, args: dict[str, Any]) -> None:
        c = self.combatant(args["actor"])
        wanted = args.get("template")
        candidates = [a for a in c.in_progress if wanted in (None, a.template)]
        if not candidates:
            what = f" {wanted}" if wanted else ""
            raise RuleRefusal("abort", f"{c.name} has no{what} action in progress to abort")
        action = c.active if c.active in candidates else candidates[-1]
        self._end(action, ABORTED)
        self._say("abort", f"{c.name} aborts {action.template}", c.name)

    def _keep(self, args: dict[str, Any]) -> None:
        c = self.combatant(args["target"])
        action = c.interrupted
        if action is None or action.status != INTERRUPTED:
            raise RuleRefusal("throwback", f"{c.name} has no interrupted action to keep")
        if action.completes <= self.now:
            raise RuleRefusal("throwback", f"{c.name}'s {action.template} would have completed on {action.completes}")
        if action.mode == ACTIVE and c.active is not None:
            raise RuleRefusal("one active action at a time", f"{c.name} has started {c.active.template} since")
        action.status, action.ended = IN_PROGRESS, None
        c.in_progress.append(action)
        if action.mode == ACTIVE:
            c.active = action
        c.interrupted = None
        self.timeline.push(action.completes, COMPLETION, action)
        self._push_early(action, True)
        self._say("keep", f"the GM keeps {c.name}'s {action.template}: it completes on segment {action.completes}", c.name)
