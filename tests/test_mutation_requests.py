"""Direct tests of tracker.play.requests: the one request builder a declaration (or a
maintained link) goes through, refusals included (module docstring: the names as the
role may know them, the modifiers checked by the adapter, a player's damage cap, the
rules of initiation, and the mode the rules decided; `asked`: what the declaration
keeps for "the same again" and an edited approval)."""

from __future__ import annotations

import pytest

from rulesets import registry
from tests.helpers import declare, encounter
from tracker.engine import ACTIVE, CommandError, Encounter, Event, Resolution, RuleRefusal, TrackerError
from tracker.play.policy import Policy
from tracker.play.requests import DECLARE, MAINTAIN, Attempt, action_request, asked, build, link_request
from tracker.reading.roles import Role

FREEFORM = registry.get("freeform")
OGS = registry.get("ogs")
GM = Policy(Role.gm())


def _fight() -> Encounter:
    """Ann and Bo in the open, Spy hidden, at segment 0 of a freeform fight."""
    enc = encounter("Ann", "Bo")
    enc.apply(Event("add", {"name": "Spy", "resources": {"hp": 5}, "hidden": True}))
    return enc


def _ann(enc: Encounter) -> Policy:
    role, _ = Role.of(enc, ["Ann"])
    assert role is not None
    return Policy(role)


# ------------------------------------------------------------------ what a declaration keeps
def test_a_declaration_keeps_its_plain_modifiers_and_its_pt() -> None:
    assert asked({"pool": 2, "style": "wild", "half": 1.5, "aimed": True, "list": [1], "table": {"a": 1}, "none": None}, 4) == {
        "params": {"pool": 2, "style": "wild", "half": 1.5, "aimed": True}, "pt": 4}
    assert asked({"pool": 2}, None) == {"params": {"pool": 2}}
    assert asked({"list": [1]}, 1) == {"pt": 1}
    assert asked(None, None) == {}
    assert asked({}, 0) == {"pt": 0}


# ------------------------------------------------------------------ the request
def test_the_request_names_the_actor_its_targets_and_the_checked_modifiers() -> None:
    enc = _fight()
    request = action_request(GM, FREEFORM, enc, "ann", "attack", ["bo"], {"damage": "3", "note": "a jab"}, 4)
    assert request.template.name == "attack" and request.actor.name == "Ann"
    assert [t.name for t in request.targets] == ["Bo"]
    assert request.params["damage"] == 3 and request.params["note"] == "a jab"
    assert request.performance_time == 4 and request.previous is None and request.encounter is enc
    assert request.by_player is False
    assert action_request(GM, FREEFORM, enc, "Ann", "cast", ("Bo", "Spy")).by_player is False
    assert action_request(_ann(enc), FREEFORM, enc, "Ann", "cast").by_player is True
    assert action_request(_ann(enc), FREEFORM, enc, "Ann", "cast", by_player=False).by_player is False
    assert action_request(GM, FREEFORM, enc, "Ann", "cast", by_player=True).by_player is True
    assert action_request(GM, FREEFORM, enc, "Ann", "cast", pt=1).performance_time == 1


def test_a_player_is_given_no_request_against_a_hidden_combatant() -> None:
    enc = _fight()
    with pytest.raises(TrackerError, match=r"^no combatant named 'Spy' \(combatants: Ann, Bo\)$"):
        action_request(_ann(enc), FREEFORM, enc, "Ann", "cast", ["Bo", "Spy"])
    with pytest.raises(TrackerError, match=r"^no combatant named 'Spy' \(combatants: Ann, Bo\)$"):
        action_request(_ann(enc), FREEFORM, enc, "Spy", "cast")


def test_the_request_refuses_bad_modifiers_pt_and_targets() -> None:
    enc = _fight()
    with pytest.raises(TrackerError, match=r"declare: note"):
        action_request(GM, FREEFORM, enc, "Ann", "cast", params={"note": "a\x1b[2Jjab"})
    with pytest.raises(CommandError) as pt:
        action_request(GM, FREEFORM, enc, "Ann", "cast", pt=0)
    assert str(pt.value) == "pt: expected a performance time of at least 1 segment, got 0"
    with pytest.raises(CommandError) as two:
        action_request(GM, FREEFORM, enc, "Ann", "attack", ["Bo", "Spy"])
    assert str(two.value) == "attack takes one target, not 2"
    assert len(action_request(GM, FREEFORM, enc, "Ann", "attack", ["Bo"]).targets) == 1
    with pytest.raises(CommandError) as mode:
        action_request(GM, OGS, enc, "Ann", "attack", ["Bo"], {"mode": "sideways"})
    assert str(mode.value) == "mode: expected active or passive, got 'sideways'"


def test_a_mode_is_the_trackers_where_the_game_has_no_such_modifier() -> None:
    enc = _fight()
    # OGS's attack has no `mode` modifier: the mode is taken out before the game checks the rest
    request = action_request(GM, OGS, enc, "Ann", "attack", ["Bo"], {"mode": "passive", "bonus": "1"})
    assert "mode" not in request.params and request.params["bonus"] == 1
    # freeform's actions have one: it stays, checked by the game
    assert action_request(GM, FREEFORM, enc, "Ann", "cast", params={"mode": "passive"}).params["mode"] == "passive"


# ------------------------------------------------------------------ the checked declaration
def test_the_mode_is_the_modifiers_else_the_actions_own() -> None:
    enc = _fight()
    move = build(GM, FREEFORM, enc, Attempt(DECLARE, "Ann", "move"))
    assert move.mode == "passive" and move.template.name == "move" and move.asked == {}
    active = build(GM, FREEFORM, enc, Attempt(DECLARE, "Ann", "move", pt=3, params={"mode": "active", "damage": 2}))
    assert active.mode == "active" and active.asked == {"params": {"mode": "active", "damage": 2}, "pt": 3}
    ogs = build(GM, OGS, enc, Attempt(DECLARE, "Ann", "attack", ("Bo",), params={"mode": "passive"}))
    assert ogs.mode == "passive" and ogs.asked == {"params": {"mode": "passive"}}
    assert build(GM, OGS, enc, Attempt(DECLARE, "Ann", "attack", ("Bo",))).mode == ACTIVE


def test_a_declaration_the_rules_of_initiation_refuse_is_refused() -> None:
    enc = _fight()
    declare(enc, "Ann", "cast", 5)
    enc.apply(Event("advance", {"to": 1}))
    with pytest.raises(RuleRefusal, match=r"\(rule: one active action at a time\)$"):
        build(GM, FREEFORM, enc, Attempt(DECLARE, "Ann", "attack", ("Bo",)))
    assert build(GM, FREEFORM, enc, Attempt(DECLARE, "Ann", "move")).mode == "passive"


def test_a_players_stated_damage_above_the_cap_is_refused() -> None:
    enc = _fight()
    enc.apply(Event("setting", {"key": "player_damage_cap", "value": 8}))
    with pytest.raises(RuleRefusal, match=r"^damage=9: the GM caps a player's damage at 8"):
        build(_ann(enc), FREEFORM, enc, Attempt(DECLARE, "Ann", "attack", ("Bo",), params={"damage": "9"}))
    assert build(GM, FREEFORM, enc, Attempt(DECLARE, "Ann", "attack", ("Bo",), params={"damage": "9"})).request.params["damage"] == 9


# ------------------------------------------------------------------ a maintained link
def _completed(enc: Encounter) -> None:
    declare(enc, "Ann", "attack", 2, targets=("Bo",), maintainable=True)
    enc.apply(Event("advance", {"to": 2}))


def test_a_link_starts_from_the_maintained_actions_modifiers() -> None:
    enc = _fight()
    enc.apply(Event("declare", {"actor": "Ann", "template": "attack", "mode": "active", "targets": ["Bo"], "maintainable": True,
                                "params": {"damage": 4, "note": "jab"}, "resolution": Resolution(2)}))
    enc.apply(Event("advance", {"to": 2}))
    request, stated = link_request(GM, FREEFORM, enc, "Ann", {"note": "again"}, 3)
    assert request.previous is not None and request.previous.template == "attack"
    assert [t.name for t in request.targets] == ["Bo"] and request.performance_time == 3
    assert stated["note"] == "again" and request.params["note"] == "again"
    alone, stated_alone = link_request(GM, FREEFORM, enc, "Ann", {"note": "again"}, kept=False)
    assert stated_alone == {"note": "again"} and "damage" not in {k for k, v in alone.params.items() if v is not None}
    assert link_request(_ann(enc), FREEFORM, enc, "Ann")[0].by_player is True
    assert link_request(_ann(enc), FREEFORM, enc, "Ann", by_player=False)[0].by_player is False
    assert link_request(GM, FREEFORM, enc, "Ann")[0].by_player is False
    built = build(GM, FREEFORM, enc, Attempt(MAINTAIN, "Ann", params={"note": "third"}, pt=2))
    assert built.mode == ACTIVE and built.asked["pt"] == 2 and built.asked["params"]["note"] == "third"
    with pytest.raises(TrackerError, match="maintain: note"):
        link_request(GM, FREEFORM, enc, "Ann", {"note": "a\x1bb"})


def test_a_link_aims_only_at_targets_still_in_the_fight() -> None:
    enc = _fight()
    _completed(enc)
    enc.apply(Event("remove", {"name": "Bo"}))
    request, _ = link_request(GM, FREEFORM, enc, "Ann")
    assert request.targets == ()


def test_a_game_that_maintains_nothing_refuses_at_once() -> None:
    enc = _fight()
    with pytest.raises(RuleRefusal) as refused:
        link_request(GM, OGS, enc, "ann")
    assert str(refused.value) == (
        "OGS's attacks are not maintained: its rules have no maintained attack; declare Ann's next attack instead "
        "(rule: maintained attack)")
    with pytest.raises(RuleRefusal, match=r"^Ann has no completed attack that can be maintained"):
        link_request(GM, FREEFORM, enc, "Ann")


def test_the_request_carries_the_fights_time_settings_and_the_checked_modifiers_words() -> None:
    enc = _fight()
    enc.apply(Event("advance", {"to": 3}))
    request = action_request(GM, FREEFORM, enc, "Ann", "cast")
    assert request.segment == 3 and request.settings == enc.setup.settings and request.encounter is enc
    # freeform's actions have a mode modifier: the tracker's own check still words the refusal
    with pytest.raises(CommandError, match=r"^mode: expected active or passive, got 'sideways'$"):
        action_request(GM, FREEFORM, enc, "Ann", "cast", params={"mode": "sideways"})
    with pytest.raises(TrackerError, match=r"^declare attack\.damage: expected a number, got 'abc'$"):
        action_request(GM, FREEFORM, enc, "Ann", "attack", ["Bo"], {"damage": "abc"})


def test_a_built_declaration_keeps_its_pt_whose_it_is_and_the_second_initiation_rule() -> None:
    enc = _fight()
    built = build(GM, FREEFORM, enc, Attempt(DECLARE, "Ann", "cast", pt=3))
    assert built.request.performance_time == 3 and built.request.by_player is False
    assert build(GM, FREEFORM, enc, Attempt(DECLARE, "Ann", "cast"), by_player=True).request.by_player is True
    assert build(_ann(enc), FREEFORM, enc, Attempt(DECLARE, "Ann", "cast"), by_player=False).request.by_player is False
    declare(enc, "Ann", "move", 5, "passive")
    with pytest.raises(RuleRefusal, match=r"^Ann already initiated move on segment 0 \(rule: one initiation per segment\)$"):
        build(GM, FREEFORM, enc, Attempt(DECLARE, "Ann", "cast"))


def _jab(enc: Encounter) -> None:
    """Ann's attack at Bo (PT 2, maintainable, damage 4, note "jab"), completed on 2."""
    enc.apply(Event("declare", {"actor": "Ann", "template": "attack", "mode": "active", "targets": ["Bo"], "maintainable": True,
                                "params": {"damage": 4, "note": "jab"}, "resolution": Resolution(2)}))
    enc.apply(Event("advance", {"to": 2}))


def test_a_maintained_link_keeps_the_first_links_modifiers_its_pt_and_whose_it_is() -> None:
    enc = _fight()
    _jab(enc)
    request, stated = link_request(GM, FREEFORM, enc, "Ann", {"note": "again"})
    assert request.params["damage"] == 4 and stated["note"] == "again" and "damage" in stated
    assert request.template.name == "attack" and request.actor.name == "Ann" and request.segment == 2
    assert request.settings == enc.setup.settings and request.encounter is enc
    built = build(_ann(enc), FREEFORM, enc, Attempt(MAINTAIN, "Ann", pt=5))
    assert built.request.actor.name == "Ann" and built.request.performance_time == 5 and built.request.by_player is True
    assert built.request.params["damage"] == 4 and built.asked["pt"] == 5 and "damage" in built.asked["params"]
    assert build(_ann(enc), FREEFORM, enc, Attempt(MAINTAIN, "Ann"), by_player=False).request.by_player is False
    alone = build(GM, FREEFORM, enc, Attempt(MAINTAIN, "Ann", params={"note": "new"}, kept=False))
    assert alone.asked == {"params": {"note": "new"}}
    with pytest.raises(TrackerError, match=r"^maintain attack\.damage: expected a number, got 'abc'$"):
        link_request(GM, FREEFORM, enc, "Ann", {"damage": "abc"})


def test_letting_go_of_a_power_is_passive_so_it_is_allowed_during_an_active_action() -> None:
    """docs/rulesets/brandx.md: `power label=NAME stop=true` drops a power ("passive, PT 1,
    so allowed during an active action"); the module docstring: the mode the rules decided."""
    brandx = registry.get("brandx")
    enc = _fight()
    declare(enc, "Ann", "blast", 10)  # an active action in progress
    enc.apply(Event("advance", {"to": 1}))
    stop = build(GM, brandx, enc, Attempt(DECLARE, "Ann", "power", params={"label": "glow", "stop": "true"}))
    assert stop.mode == "passive" and stop.asked == {"params": {"label": "glow", "stop": "true"}}
    # Typed, the mode is the one asked: an active use waits for the blast.
    with pytest.raises(RuleRefusal, match=r"\(rule: one active action at a time\)$"):
        build(GM, brandx, enc, Attempt(DECLARE, "Ann", "power", params={"label": "glow", "stop": "true", "mode": "active"}))
