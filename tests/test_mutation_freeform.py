"""Direct tests of `rulesets/freeform`, the game with no dice where the GM states outcomes.

Expected values are worked from the module's docstring and rulesets/README.md: any
action name is accepted (active, 10 segments unless `mode=`/`pt=` say otherwise);
`damage=N` lands on each target's `hp` (or `resource=`), `note=` goes to the log, and
the summary says who stated them; a maintained link takes as long as the last one and
says so when it states nothing; a round is 10 segments, paid every 10.
"""

from __future__ import annotations

from typing import Any

import pytest

from rulesets.base import ActionRequest, ActionTemplate
from rulesets.dice import RandomDice
from rulesets.fields import MAIN, MORE, PARAM, FieldError
from rulesets.freeform import FreeformRuleset
from tracker.engine.effects import Damage, Note, Resolution
from tracker.engine.errors import TrackerError
from tracker.engine.model import ACTIVE, Action, Combatant


def _c(name: str) -> Combatant:
    return Combatant(name, {}, {"hp": 10}, {"hp": 10})


def _request(template: ActionTemplate, *targets: str, pt: int | None = None, previous: Action | None = None,
             by_player: bool = False, **params: Any) -> ActionRequest:
    return ActionRequest(template, _c("Ada"), tuple(_c(t) for t in targets), params, pt=pt,
                         previous=previous, by_player=by_player)


def _previous(pt: int) -> Action:
    return Action(1, "Ada", "attack", ACTIVE, pt, 0, pt, ("Orc",), Resolution(pt=pt))


GAME = FreeformRuleset()


def test_the_game_as_described() -> None:
    assert FreeformRuleset.id == "freeform"
    assert FreeformRuleset.name == "Freeform"
    assert FreeformRuleset.description == "Any game: the GM names actions, sets their time and states outcomes"
    time = FreeformRuleset.time
    assert (time.segments_per_round, time.payment_every) == (10, 10)
    assert time.segment_means == "a tenth of a round"
    assert FreeformRuleset.down_when == ("hp",)
    assert FreeformRuleset.maintain_asks is True
    (hp,) = FreeformRuleset.sheet
    assert (hp.name, hp.kind, hp.default) == ("hp", "float", 10)
    assert [f.name for f in GAME.resource_fields()] == ["hp"]


def test_the_catalogue() -> None:
    catalogue = GAME.catalogue()
    assert list(catalogue) == ["attack", "move", "defend", "cast"]
    got = {k: (t.name, t.mode, t.pt, t.targets, t.maintainable) for k, t in catalogue.items()}
    assert got == {
        "attack": ("attack", ACTIVE, 10, 1, True),
        "move": ("move", "passive", 5, 0, False),
        "defend": ("defend", "passive", 5, 0, False),
        "cast": ("cast", ACTIVE, 20, -1, True),
    }
    assert catalogue["attack"].description == "strike at a target"
    assert catalogue["move"].description == "move while doing something else"
    assert catalogue["defend"].description == "take a defensive stance"
    assert catalogue["cast"].description == "a spell or power"


def test_the_modifiers_and_their_stages() -> None:
    params = {f.name: f for f in GAME.catalogue()["attack"].params}
    assert list(params) == ["mode", "damage", "resource", "note", "maintainable"]
    assert {n: f.stage for n, f in params.items()} == {
        "mode": MORE, "damage": MAIN, "resource": MORE, "note": MAIN, "maintainable": MORE}
    assert {n: f.kind for n, f in params.items()} == {
        "mode": "choice", "damage": "float", "resource": "str", "note": "str", "maintainable": "bool"}
    assert params["mode"].choices == ("active", "passive")
    assert all(f.role == PARAM and f.default is None for f in params.values())
    # Nothing is filled in that was not typed.
    assert GAME.params(GAME.template("attack"), {}) == {}
    assert GAME.params(GAME.template("attack"), {"mode": "passive", "damage": "2"}) == {"mode": "passive", "damage": 2.0}


def test_any_name_is_an_action() -> None:
    assert GAME.template("ATTACK") is GAME.catalogue()["attack"]
    assert GAME.template("Cast") is GAME.catalogue()["cast"]
    dance = GAME.template("Dance of Blades")
    assert (dance.name, dance.mode, dance.pt, dance.targets) == ("Dance of Blades", ACTIVE, 10, -1)
    assert dance.params == GAME.catalogue()["attack"].params


def test_build_sheet_numbers_are_resources_the_rest_stats() -> None:
    stats, resources = GAME.build_sheet({}, "roster")
    assert (stats, resources) == ({}, {"hp": 10})
    stats, resources = GAME.build_sheet({"hp": "7", "mana": "2.5", "ki": 3.0, "class": "monk", "x": None}, "roster")
    assert resources == {"hp": 7, "mana": 2.5, "ki": 3}
    assert type(resources["hp"]) is int and type(resources["ki"]) is int
    assert stats == {"class": "monk", "x": "None"}


def test_check_sheet_refuses_a_resource_not_a_number() -> None:
    stats, resources = GAME.check_sheet({"class": "monk"}, {"hp": -2, "mana": 0.5}, "save.Ada")
    assert (stats, resources) == ({"class": "monk"}, {"hp": -2, "mana": 0.5})
    with pytest.raises(FieldError, match=r"^save\.Ada\.resources\.hp: expected a number, got True$"):
        GAME.check_sheet({}, {"hp": True}, "save.Ada")
    with pytest.raises(FieldError, match=r"^save\.Ada\.resources\.mana: expected a number, got 'lots'$"):
        GAME.check_sheet({}, {"hp": 1, "mana": "lots"}, "save.Ada")


def test_time_typed_or_the_templates_or_the_last_links() -> None:
    attack = GAME.template("attack")
    assert GAME.default_pt(_request(attack)) == 10
    assert GAME.default_pt(_request(attack, previous=_previous(4))) == 4
    assert GAME.resolve(_request(GAME.template("cast")), RandomDice()).pt == 20
    assert GAME.resolve(_request(attack, pt=3), RandomDice()).pt == 3
    assert GAME.maintain(_request(attack, previous=_previous(6)), RandomDice()).pt == 6
    assert GAME.maintain(_request(attack, pt=2, previous=_previous(6)), RandomDice()).pt == 2


def test_damage_lands_on_each_target_whole_numbers_as_integers() -> None:
    cast = GAME.template("cast")
    got = GAME.resolve(_request(cast, "Orc", "Goblin", damage=3.0), RandomDice())
    assert got.effects == (Damage("Orc", 3, "hp"), Damage("Goblin", 3, "hp"))
    assert type(got.effects[0].amount) is int
    assert got.summary == "stated by the GM"
    half = GAME.resolve(_request(cast, "Orc", damage=2.5, resource="mana"), RandomDice())
    assert half.effects == (Damage("Orc", 2.5, "mana"),)
    # resource= left empty: hp.
    assert GAME.resolve(_request(cast, "Orc", damage=1, resource=""), RandomDice()).effects == (Damage("Orc", 1, "hp"),)
    # 0 damage is stated damage.
    assert GAME.resolve(_request(cast, "Orc", damage=0), RandomDice()).effects == (Damage("Orc", 0, "hp"),)


def test_damage_needs_a_target() -> None:
    with pytest.raises(TrackerError, match=r"^damage= needs a target \(target=NAME\)$"):
        GAME.resolve(_request(GAME.template("attack"), damage=2), RandomDice())


def test_a_note_and_who_stated_it() -> None:
    attack = GAME.template("attack")
    got = GAME.resolve(_request(attack, "Orc", damage=2, note="a feint", by_player=True), RandomDice())
    assert got.effects == (Damage("Orc", 2, "hp"), Note("a feint"))
    assert got.summary == "stated by the player"
    only_note = GAME.resolve(_request(attack, note="waits"), RandomDice())
    assert only_note.effects == (Note("waits"),)
    assert only_note.summary == "stated by the GM"
    silent = GAME.resolve(_request(attack, "Orc", note=""), RandomDice())
    assert (silent.effects, silent.summary) == ((), "")
    assert silent.success is None and silent.dice == ()


def test_a_maintained_link_that_states_nothing_says_so() -> None:
    attack = GAME.template("attack")
    empty = GAME.maintain(_request(attack, "Orc", previous=_previous(10)), RandomDice())
    assert (empty.effects, empty.summary) == ((), "nothing stated: the link deals no damage")
    stated = GAME.maintain(_request(attack, "Orc", previous=_previous(10), damage=4), RandomDice())
    assert stated.effects == (Damage("Orc", 4, "hp"),)
    assert stated.summary == "stated by the GM"
