"""The one request builder: what a declaration (or a maintained action's next link)
asks of the game's adapter, refusals included.

The declare form's dry run (`tracker.play.dice_plan`), its chance line and the commit
(`Session.declare`, `Session.maintain`, an approval) all build the request here, so
what the form showed is what the change makes: the names as the role may know them
(`Policy.lookup`), the modifiers checked by the adapter, a player's damage cap, the
rules of initiation, and the mode the rules decided.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rulesets.base import ActionRequest, ActionTemplate, Ruleset
from tracker.engine import ACTIVE, CommandError, Encounter, RuleRefusal
from tracker.play.policy import Policy
from tracker.engine.text import refuse_controls

DECLARE = "declare"
MAINTAIN = "maintain"


@dataclass(frozen=True)
class Attempt:
    """What the form (or a command) would do: declare (or maintain) with these choices."""

    kind: str
    actor: str
    template: str = ""
    targets: tuple[str, ...] = ()
    pt: int | None = None
    params: dict[str, Any] = field(default_factory=dict)
    # To maintain: start from the maintained action's own modifiers (as `maintain ACTOR`
    # does); False: `params` are the link's in full (the form shows them all).
    kept: bool = True


@dataclass(frozen=True)
class Built:
    """A checked request, with the mode the action is made in and what was asked (the
    modifiers as stated and the PT: kept in the event, "the same again" reads them)."""

    request: ActionRequest
    mode: str
    asked: dict[str, Any]

    @property
    def template(self) -> ActionTemplate:
        return self.request.template


def asked(params: Mapping[str, Any] | None, pt: int | None) -> dict[str, Any]:
    """A declaration's modifiers and pt as plain data, kept in the declaration (the form
    offers "the same again" from it: tracker.reading.recent) and in a proposal, so the GM can
    approve it edited (re-resolved with the player's dice)."""
    out: dict[str, Any] = {}
    kept = {k: v for k, v in (params or {}).items() if isinstance(v, (str, int, float, bool))}
    if kept:
        out["params"] = kept
    if pt is not None:
        out["pt"] = pt
    return out


def build(policy: Policy, ruleset: Ruleset, enc: Encounter, attempt: Attempt, by_player: bool | None = None) -> Built:
    """The request `attempt` makes against `enc`, or the refusal naming what is wrong.
    `by_player`: who states it (None: the policy's role; an approval says whose it is)."""
    if attempt.kind == MAINTAIN:
        request, stated = link_request(policy, ruleset, enc, attempt.actor, attempt.params, attempt.pt, kept=attempt.kept, by_player=by_player)
        return Built(request, ACTIVE, asked(stated, attempt.pt))
    request = action_request(policy, ruleset, enc, attempt.actor, attempt.template, attempt.targets, attempt.params, attempt.pt, by_player)
    policy.check_cap(enc, request.params)
    template = request.template
    # The checked params may fill in a mode (Brand X: dropping a power is passive).
    mode = request.params.get("mode") or attempt.params.get("mode") or template.mode
    enc.check_initiation(request.actor, template.name, mode, template.companions)
    return Built(request, mode, asked(attempt.params, attempt.pt))


def action_request(
    policy: Policy,
    ruleset: Ruleset,
    enc: Encounter,
    actor: str,
    template_name: str,
    targets: list[str] | tuple[str, ...] = (),
    params: Mapping[str, Any] | None = None,
    pt: int | None = None,
    by_player: bool | None = None,
) -> ActionRequest:
    """The adapter request for an action, with its parameters checked (no rules of
    initiation: a healing roll between fights asks for one too)."""
    # As this role knows them: a player is given no odds, and no result, against a
    # hidden combatant (nor a list of every name when one is unknown).
    c = policy.lookup(actor, enc)
    template = ruleset.template(template_name)
    raw = dict(params or {})
    for key, value in raw.items():
        if isinstance(value, str):
            refuse_controls(value, f"declare: {key}")
    mode = raw.pop("mode", None) if "mode" not in {f.name for f in template.params} else raw.get("mode")
    if mode is not None and mode not in ("active", "passive"):
        raise CommandError(f"mode: expected active or passive, got {mode!r}")
    if pt is not None and pt < 1:
        raise CommandError(f"pt: expected a performance time of at least 1 segment, got {pt}")
    coerced = ruleset.params(template, raw, f"declare {template.name}")
    foes = tuple(policy.lookup(t, enc) for t in targets)
    if template.targets == 1 and len(foes) > 1:
        raise CommandError(f"{template.name} takes one target, not {len(foes)}")
    player = policy.role_in(enc).is_player if by_player is None else by_player
    return ActionRequest(template, c, foes, coerced, enc.now, enc.setup.settings, None, pt, enc, player)


def link_request(
    policy: Policy, ruleset: Ruleset, enc: Encounter, actor: str, params: Mapping[str, Any] | None = None, pt: int | None = None,
    *, kept: bool = True, by_player: bool | None = None,
) -> tuple[ActionRequest, dict[str, Any]]:
    """The adapter request maintaining `actor`'s action would make, and the modifiers
    stated for the link: with `kept`, the maintained action's own
    (`recent.link_params`) with `params` over them; else `params` alone. Refused at
    once where the game maintains nothing."""
    c = enc.combatant(actor)
    if not ruleset.maintains(enc.setup.settings):
        raise RuleRefusal(
            "maintained attack",
            f"{ruleset.name}'s attacks are not maintained: its rules have no maintained attack; "
            f"declare {c.name}'s next attack instead",
        )
    prev = enc.maintainable_action(c)
    enc.check_initiation(c, prev.template, ACTIVE)
    template = ruleset.template(prev.template)
    from tracker.reading import recent  # a maintained link's parameters (start-up time)

    stated: dict[str, Any] = {**(recent.link_params(prev, template) if kept else {}), **(params or {})}
    for key, value in stated.items():
        if isinstance(value, str):
            refuse_controls(value, f"maintain: {key}")
    coerced = ruleset.params(template, stated, f"maintain {template.name}")
    targets = tuple(enc.combatant(t) for t in prev.targets if t in enc.combatants)
    player = policy.role_in(enc).is_player if by_player is None else by_player
    return ActionRequest(template, c, targets, coerced, enc.now, enc.setup.settings, prev, pt, enc, player), stated
