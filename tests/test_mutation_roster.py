"""The roster: combatants join, leave, are renamed, change side and place
(tracker/engine/roster.py).

Expected values come from the module docstring ("Names are unique ignoring case ... a
rename carries the new name into every earlier action, queue entry and log line about
the combatant"), decision 0023 (every event checked in full before it changes anything:
a refused `add` of copies enters none) and the model's fields (`Combatant.called`: every
name it carried with the change that gave it; `pc`: kept by a rename).
"""

from __future__ import annotations

from typing import Any

import pytest

from tracker.engine import Encounter, Event, Resolution, Setup, TimeMapping
from tracker.engine.effects import Damage, Note, Throwback, Upkeep
from tracker.engine.errors import TrackerError
from tracker.engine.model import ABORTED, CombatantSetup
from tests.helpers import encounter as make
from tests.test_engine_checkpoints import state


def _fresh(**setup: Any) -> Encounter:
    return Encounter(Setup("test", "freeform", TimeMapping(50, "test"), ("hp",), **setup))


def refused_unchanged(enc: Encounter, event: Event, message: str) -> None:
    """`event` refused with exactly `message`, the fight as it was (shared by the engine's direct tests)."""
    before, count = state(enc), len(enc.events)
    with pytest.raises(TrackerError) as refused:
        enc.apply(event)
    assert str(refused.value) == message
    assert state(enc) == before and len(enc.events) == count


def _texts(enc: Encounter) -> list[str]:
    return [e.text for e in enc.log]


def test_the_setups_roster_enters_as_written() -> None:
    enc = _fresh(roster=[CombatantSetup("Ann", {"str": 3}, {"hp": 9}, side="red", hidden=True, surprised_until=4)])
    ann = enc.combatants["Ann"]
    assert (ann.stats, ann.resources, ann.maxima) == ({"str": 3}, {"hp": 9}, {"hp": 9})
    assert (ann.side, ann.hidden, ann.surprised_until, ann.down_keys) == ("red", True, 4, ("hp",))
    assert ann.called == (("Ann", 0),)  # 0: the setup's roster
    assert ann.resources is not ann.maxima
    assert enc.upcoming() == [(4, "Ann may act")]
    assert enc.bearer("ann") is ann


def test_a_combatant_already_free_is_not_queued_to_be_alerted() -> None:
    enc = make()
    enc.apply(Event("advance", {"to": 5}))
    enc.apply(Event("add", {"name": "Ann", "surprised_until": 5}))
    assert enc.upcoming() == []
    enc.apply(Event("add", {"name": "Bo", "surprised_until": 6}))
    assert enc.upcoming() == [(6, "Bo may act")]


def test_an_add_takes_every_field_and_says_who_joins() -> None:
    enc = make("Ann")
    stats = {"str": 4}
    enc.apply(Event("add", {"name": "Bo", "stats": stats, "resources": {"hp": 7}, "side": "blue", "hidden": 1,
                            "surprised_until": 3}))
    bo = enc.combatants["Bo"]
    assert (bo.stats, bo.resources, bo.maxima, bo.side, bo.hidden, bo.surprised_until) == (
        {"str": 4}, {"hp": 7}, {"hp": 7}, "blue", True, 3)
    assert bo.hidden is True
    assert bo.stats is not stats
    assert bo.called == (("Bo", 2),)
    assert bo.pc == ""
    last = enc.log[-1]
    assert (last.kind, last.text, last.about, last.seq) == ("add", "Bo joins the fight", ("Bo",), 2)


def test_an_add_with_nothing_but_a_name_has_the_defaults() -> None:
    enc = make()
    enc.apply(Event("add", {"name": "Ann"}))
    ann = enc.combatants["Ann"]
    assert (ann.stats, ann.resources, ann.side, ann.hidden, ann.surprised_until) == ({}, {}, "", False, 0)
    assert ann.hidden is False


def test_copies_each_take_the_sheet_under_their_name() -> None:
    enc = make()
    enc.apply(Event("add", {"name": "Goblin", "names": ["Goblin 1", "Goblin 2"], "resources": {"hp": 5}}))
    assert list(enc.combatants) == ["Goblin 1", "Goblin 2"]
    g1, g2 = enc.combatants.values()
    g1.resources["hp"] = 1
    assert g2.resources == {"hp": 5}  # a sheet of its own
    assert _texts(enc) == ["Goblin 1 joins the fight", "Goblin 2 joins the fight"]


def test_names_are_unique_ignoring_case() -> None:
    enc = make("Ann")
    refused_unchanged(enc, Event("add", {"name": "ANN"}),
             "there is already a combatant named 'Ann' (names are unique ignoring case)")
    refused_unchanged(enc, Event("add", {"name": "Bo", "names": ["Bo", "bo"]}), "add: the names repeat (Bo, bo)")
    # every copy checked before the first enters
    refused_unchanged(enc, Event("add", {"name": "x", "names": ["Cy", "ann"]}),
             "there is already a combatant named 'Ann' (names are unique ignoring case)")
    refused_unchanged(enc, Event("add", {"name": "x", "names": ["Cy", " "]}), "a combatant needs a name")
    refused_unchanged(enc, Event("add", {"name": "x", "names": ["Cy", 7]}), "a combatant needs a name")
    refused_unchanged(enc, Event("add", {"name": "x", "names": ["Cy", "Di"], "resources": {"hp": "lots"}}),
             "Cy: hp: expected a number, got 'lots'")
    refused_unchanged(enc, Event("add", {"name": "Cy", "surprised_until": -1}),
             "surprised_until: expected a whole number from 0 to 1,000,000,000,000, got -1")
    assert enc.combatant("ann").name == "Ann"


def test_the_setups_roster_is_checked_as_an_add_is() -> None:
    with pytest.raises(TrackerError) as blank:
        _fresh(roster=[CombatantSetup(" ", {}, {})])
    assert str(blank.value) == "a combatant needs a name"
    with pytest.raises(TrackerError) as twice:
        _fresh(roster=[CombatantSetup("Ann", {}, {}), CombatantSetup("aNN", {}, {})])
    assert str(twice.value) == "there is already a combatant named 'Ann' (names are unique ignoring case)"
    with pytest.raises(TrackerError) as late:
        _fresh(roster=[CombatantSetup("Ann", {}, {}, surprised_until=-2)])
    assert str(late.value) == "Ann: surprised_until: expected a whole number from 0 to 1,000,000,000,000, got -2"
    with pytest.raises(TrackerError) as sheet:
        _fresh(roster=[CombatantSetup("Ann", {"str": [1]}, {})])
    assert str(sheet.value) == "Ann: str: expected a number, got [1]"


def test_a_campaigns_character_comes_in_as_it_stands() -> None:
    enc = make()
    enc.apply(Event("add", {"name": "Ann", "stats": {"str": 3}, "resources": {"hp": 20, "ep": 30}, "pc": "c1",
                            "current": {"hp": 12, "str": 2}, "conditions": {"dazed": 2}}))
    ann = enc.combatants["Ann"]
    assert ann.pc == "c1"
    assert ann.resources == {"hp": 12, "ep": 30} and ann.maxima == {"hp": 20, "ep": 30}
    assert ann.stats == {"str": 2}
    assert ann.conditions == {"dazed": 2}
    assert _texts(enc) == ["Ann is dazed until segment 2", "Ann joins the fight"]


def test_a_campaigns_character_is_refused_as_copies_or_with_a_bad_current_or_condition() -> None:
    enc = make("Bo")
    alone = "add: a campaign's character (pc, current, conditions) comes in alone, not as copies"
    refused_unchanged(enc, Event("add", {"name": "A", "names": ["A1", "A2"], "pc": "c1"}), alone)
    refused_unchanged(enc, Event("add", {"name": "A", "names": ["A1", "A2"], "current": {"hp": 1}, "resources": {"hp": 2}}), alone)
    refused_unchanged(enc, Event("add", {"name": "A", "names": ["A1", "A2"], "conditions": {"dazed": 1}}), alone)
    refused_unchanged(enc, Event("add", {"name": "Ann", "resources": {"hp": 2}, "stats": {"str": 1}, "current": {"mp": 1}}),
             "add Ann: current: mp is not one of its resources or stats (hp, str)")
    refused_unchanged(enc, Event("add", {"name": "Ann", "current": {"mp": 1}}),
             "add Ann: current: mp is not one of its resources or stats (none)")
    refused_unchanged(enc, Event("add", {"name": "Ann", "resources": {"hp": 2}, "current": {"hp": [1]}}),
             "add Ann: current.hp: expected a number, got [1]")
    refused_unchanged(enc, Event("add", {"name": "Ann", "conditions": {"dazed": 0}}),
             "add Ann: conditions.dazed: expected a whole number from 1 to 1,000,000,000,000, got 0")
    # one copy alone may be a character
    enc.apply(Event("add", {"name": "x", "names": ["Cy"], "pc": "c2"}))
    assert enc.combatants["Cy"].pc == "c2"


def test_a_rename_follows_the_combatant_everywhere() -> None:
    enc = make("Ann", "Bo", "Cy")
    enc.apply(Event("add", {"name": "Di", "surprised_until": 40}))
    enc.apply(Event("condition", {"target": "Ann", "name": "dazed", "duration": 30}))
    enc.apply(Event("declare", {"actor": "Bo", "template": "throw", "mode": "active", "targets": ["Ann"],
                                "resolution": Resolution(pt=10, effects=(Note("Ann is thrown"),
                                                                          Throwback("Ann", 2.0, 1.0, 3),
                                                                          Damage("Ann", 2, "hp", lead=4),
                                                                          Damage("Cy", 1, "hp", lead=2)))}))
    enc.apply(Event("declare", {"actor": "Ann", "template": "hold", "mode": "active",
                                "resolution": Resolution(pt=5, effects=(Upkeep("Ann", "breath", "ep", 0, rises=((20, 2),)),))}))
    enc.apply(Event("advance", {"to": 5}))  # the breath is held: a rise on segment 20
    enc.apply(Event("declare", {"actor": "Ann", "template": "kick", "mode": "active", "targets": ["Bo"],
                                "resolution": Resolution(pt=12, effects=(Damage("Bo", 1, "hp"),))}))
    before = enc.upcoming()
    assert any("Ann" in text for _, text in before)
    enc.apply(Event("rename", {"target": "Ann", "name": "Ada"}))
    after = enc.upcoming()
    assert after == [(s, t.replace("Ann", "Ada")) for s, t in before]
    assert list(enc.combatants) == ["Ada", "Bo", "Cy", "Di"]
    ada = enc.combatants["Ada"]
    assert ada.name == "Ada" and ada.called == (("Ann", 1), ("Ada", 10))
    assert enc.combatant("ADA") is ada
    with pytest.raises(TrackerError):
        enc.combatant("Ann")
    throw = next(a for a in enc.actions if a.template == "throw")
    assert throw.targets == ("Ada",)
    assert [getattr(e, "target", None) for e in throw.resolution.effects] == [None, "Ada", "Ada", "Cy"]
    assert throw.resolution.effects[0] == Note("Ann is thrown")  # a note names no one; its text stays
    kick = next(a for a in enc.actions if a.template == "kick")
    assert kick.actor == "Ada" and kick.targets == ("Bo",)
    # the log keeps its words and is about the new name
    dazed = next(e for e in enc.log if e.kind == "condition")
    assert dazed.text == "Ann is dazed until segment 30" and dazed.about == ("Ada",)
    last = enc.log[-1]
    assert (last.kind, last.text, last.about) == ("rename", "Ann is now called Ada", ("Ada",))
    # what falls due still falls due under the new name
    enc.apply(Event("advance", {"to": 30}))
    texts = _texts(enc)
    assert "Ada is no longer dazed" in texts
    assert "Ada lands" in texts
    assert ada.resources["hp"] == 18 and enc.combatants["Cy"].resources["hp"] == 19
    assert ada.upkeep["breath"] == ("ep", 2)


def test_a_rename_of_an_unrelated_combatant_leaves_the_others_be() -> None:
    enc = make("Ann", "Bo")
    enc.apply(Event("declare", {"actor": "Bo", "template": "hit", "mode": "active",
                                "resolution": Resolution(pt=4, effects=(Damage("Bo", 1, "hp", lead=2),))}))
    enc.apply(Event("condition", {"target": "Bo", "name": "dazed", "duration": 9}))
    before = enc.upcoming()
    effects = enc.actions[0].resolution
    enc.apply(Event("rename", {"target": "Ann", "name": "Ada"}))
    assert enc.upcoming() == before
    assert enc.actions[0].resolution is effects
    assert [e.about for e in enc.log] == [("Ada",), ("Bo",), ("Bo",), ("Bo",), ("Ada",)]


def test_a_rename_may_change_only_the_case_but_not_take_anothers_name() -> None:
    enc = make("Ann", "Bo")
    refused_unchanged(enc, Event("rename", {"target": "Ann", "name": "bo"}),
             "there is already a combatant named 'Bo' (names are unique ignoring case)")
    refused_unchanged(enc, Event("rename", {"target": "Ann", "name": "  "}), "rename: a combatant needs a name")
    refused_unchanged(enc, Event("rename", {"target": "Ann", "name": None}), "rename: a combatant needs a name")
    enc.apply(Event("rename", {"target": "Ann", "name": "ANN"}))
    assert list(enc.combatants) == ["ANN", "Bo"]
    assert enc.combatant("ann").name == "ANN"


def test_a_renamed_name_stays_its_first_bearers() -> None:
    enc = make("Ann")
    ann = enc.combatants["Ann"]
    enc.apply(Event("rename", {"target": "Ann", "name": "Ada"}))
    assert enc.bearer("Ada") is ann and enc.bearer("Ann") is ann
    enc.apply(Event("add", {"name": "Ann"}))
    assert enc.bearer("Ann") is ann  # the newcomer is someone else
    enc.apply(Event("rename", {"target": "Ann", "name": "Eve"}))
    assert enc.bearer("Eve") is enc.combatants["Eve"]


def test_a_waiting_proposal_follows_a_rename() -> None:
    enc = make("Ann", "Bo")
    enc.apply(Event("setting", {"key": "player_declarations", "value": "approval"}))
    enc.apply(Event("propose", {"action": "declare", "actor": "Ann", "template": "hit", "mode": "active",
                                "targets": ["Bo"], "resolution": Resolution(2)}))
    enc.apply(Event("rename", {"target": "Ann", "name": "Ada"}))
    p = enc.pending()[0]
    assert p.actor == "Ada" and p.args["actor"] == "Ada"


def test_a_side_is_set_and_said() -> None:
    enc = make("Ann")
    enc.apply(Event("side", {"target": "ann", "side": "red"}))
    assert enc.combatants["Ann"].side == "red"
    assert (enc.log[-1].kind, enc.log[-1].text, enc.log[-1].about) == ("side", "Ann is on side red", ("Ann",))
    enc.apply(Event("side", {"target": "Ann", "side": ""}))
    assert enc.combatants["Ann"].side == ""
    assert enc.log[-1].text == "Ann is on no side"


def test_a_reorder_moves_one_combatant_to_its_place() -> None:
    enc = make("Ann", "Bo", "Cy")
    enc.apply(Event("reorder", {"target": "cy", "position": 1}))
    assert list(enc.combatants) == ["Cy", "Ann", "Bo"]
    assert (enc.log[-1].kind, enc.log[-1].text, enc.log[-1].about) == ("reorder", "Cy moves to place 1 in the roster", ("Cy",))
    enc.apply(Event("reorder", {"target": "Cy", "position": 3}))
    assert list(enc.combatants) == ["Ann", "Bo", "Cy"]
    enc.apply(Event("reorder", {"target": "Ann", "position": 2}))
    assert list(enc.combatants) == ["Bo", "Ann", "Cy"]
    for bad in (0, 4, True, 1.0, "2"):
        refused_unchanged(enc, Event("reorder", {"target": "Ann", "position": bad}),
                 f"reorder: position: expected 1 to 3, got {bad!r}")


def test_a_combatant_that_leaves_aborts_its_actions_and_frees_its_name() -> None:
    enc = make("Ann", "Bo")
    enc.apply(Event("declare", {"actor": "Ann", "template": "hit", "mode": "active", "targets": ["Bo"],
                                "resolution": Resolution(pt=4, effects=(Damage("Bo", 3, "hp"),))}))
    enc.apply(Event("advance", {"to": 1}))
    enc.apply(Event("declare", {"actor": "Ann", "template": "watch", "mode": "passive",
                                "resolution": Resolution(pt=6)}))
    hit, watch = enc.actions
    enc.apply(Event("remove", {"name": "ann"}))
    assert list(enc.combatants) == ["Bo"]
    assert hit.status == ABORTED and watch.status == ABORTED
    assert (enc.log[-1].kind, enc.log[-1].text, enc.log[-1].about) == ("remove", "Ann leaves the fight", ("Ann",))
    enc.apply(Event("advance", {"to": 6}))
    assert enc.combatants["Bo"].resources["hp"] == 20
    enc.apply(Event("add", {"name": "ANN"}))
    assert list(enc.combatants) == ["Bo", "ANN"]
    refused_unchanged(enc, Event("remove", {"name": "Ann2"}), "no combatant named 'Ann2' (combatants: Bo, ANN)")


def test_the_condition_a_character_brings_runs_from_now() -> None:
    enc = make()
    enc.apply(Event("advance", {"to": 4}))
    enc.apply(Event("add", {"name": "Ann", "conditions": {"dazed": 3}}))
    assert enc.combatants["Ann"].conditions == {"dazed": 7}
    assert enc.upcoming() == [(7, "Ann stops being dazed")]
