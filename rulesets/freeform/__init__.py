"""Freeform: any game, no dice. The GM names the action and states the outcome.

Any template name is accepted; `mode=` and `pt=` say what it is (default: active, 10
segments). Outcomes are stated with `damage=N` (to the target's `hp`, or `resource=`)
and `note=TEXT`; the log says who stated them, the GM or the player declaring for their
own combatant. Combatants may carry any numeric resources; `hp` at 0 means down.
Maintaining (`m` in the app) opens the form filled with the last link's damage and note
(the same again, as `maintain ACTOR` takes them too), for the GM to keep or change; a
link stated with none (the fields emptied) deals none, and its log line says so.
A round is 10 segments; per-round costs are charged on the last segment of each round
(every multiple of 10).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from tracker.engine.clock import TimeMapping
from tracker.engine.effects import Damage, Effect, Note, Resolution
from tracker.engine.errors import TrackerError
from tracker.engine.model import ACTIVE
from rulesets.base import ActionRequest, ActionTemplate, Ruleset
from rulesets.dice import DiceSource
from rulesets.fields import PARAM, RESOURCE, Field, FieldError, staged

_PARAMS: tuple[Field, ...] = (
    Field("mode", "choice", None, choices=("active", "passive"), role=PARAM, help="active or passive"),
    Field("damage", "float", None, role=PARAM, help="damage dealt to each target on completion"),
    Field("resource", "str", None, role=PARAM, help="which resource the damage comes off"),
    Field("note", "str", None, role=PARAM, help="what happens, for the log"),
    Field("maintainable", "bool", None, role=PARAM, help="may be maintained after it completes"),
)
# No dice, so nothing is chosen after a roll: the outcome and its words are the essentials.
_PARAMS = staged(_PARAMS, main=("damage", "note"))


class FreeformRuleset(Ruleset):
    id = "freeform"
    name = "Freeform"
    description = "Any game: the GM names actions, sets their time and states outcomes"
    time = TimeMapping(segments_per_round=10, segment_means="a tenth of a round", payment_every=10)
    sheet = (Field("hp", "float", 10, role=RESOURCE, help="hit points; 0 means down"),)
    down_when = ("hp",)
    maintain_asks = True  # each link's damage is stated anew, so `m` asks for it

    _CATALOGUE = {
        "attack": ActionTemplate("attack", ACTIVE, 10, "strike at a target", targets=1, params=_PARAMS, maintainable=True),
        "move": ActionTemplate("move", "passive", 5, "move while doing something else", params=_PARAMS),
        "defend": ActionTemplate("defend", "passive", 5, "take a defensive stance", params=_PARAMS),
        "cast": ActionTemplate("cast", ACTIVE, 20, "a spell or power", targets=-1, params=_PARAMS, maintainable=True),
    }

    def catalogue(self) -> Mapping[str, ActionTemplate]:
        return self._CATALOGUE

    def template(self, name: str) -> ActionTemplate:
        found = self._CATALOGUE.get(name.casefold())
        return found if found is not None else ActionTemplate(name, ACTIVE, 10, targets=-1, params=_PARAMS)

    def build_sheet(self, values: Mapping[str, Any], where: str) -> tuple[dict[str, Any], dict[str, Any]]:
        resources: dict[str, Any] = {"hp": 10}
        stats: dict[str, Any] = {}
        for key, raw in values.items():
            try:
                number = float(raw)
                resources[key] = int(number) if number.is_integer() else number
            except (TypeError, ValueError):
                stats[key] = str(raw)
        return stats, resources

    def check_sheet(self, stats: Mapping[str, Any], resources: Mapping[str, Any], where: str) -> tuple[dict[str, Any], dict[str, Any]]:
        for key, value in resources.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise FieldError(f"{where}.resources.{key}", "a number", value)
        return dict(stats), dict(resources)

    def default_pt(self, request: ActionRequest) -> int:
        """A maintained link takes as long as the last one unless pt= says otherwise."""
        return request.previous.pt if request.previous is not None else request.template.pt

    def resolve(self, request: ActionRequest, dice: DiceSource) -> Resolution:
        params = request.params
        pt = request.performance_time
        effects: list[Effect] = []
        amount = params.get("damage")
        if amount is not None:
            if not request.targets:
                raise TrackerError("damage= needs a target (target=NAME)")
            resource = params.get("resource") or "hp"
            for target in request.targets:
                effects.append(Damage(target.name, int(amount) if float(amount).is_integer() else amount, resource))
        if params.get("note"):
            effects.append(Note(str(params["note"])))
        summary = f"stated by the {'player' if request.by_player else 'GM'}" if effects else ""
        return Resolution(pt=pt, summary=summary, effects=tuple(effects))

    def maintain(self, request: ActionRequest, dice: DiceSource) -> Resolution:
        """The GM states each link, as for a new action (its time: `default_pt`); a
        link that states nothing says so rather than passing in silence."""
        link = self.resolve(request, dice)
        if link.effects:
            return link
        return replace(link, summary="nothing stated: the link deals no damage")
