"""Direct tests of tracker.engine.model: the things on the timeline. Expected values are
worked from the class docstrings and comments: a roster row stores only what differs
from a fresh combatant; a combatant is down when one of its down keys is at 0 or below,
and its roster word is the first of down, airborne, surprised, acting, idle; a saved
event leaves out empty values; `log_entry` builds an ordinary frozen LogEntry; a
proposal says what it proposes for the log."""

from __future__ import annotations

import dataclasses

import pytest

from tracker.engine.effects import Resolution
from tracker.engine.model import Action, Combatant, CombatantSetup, Event, LogEntry, Proposal, log_entry


def test_a_roster_row_stores_only_what_it_holds() -> None:
    assert CombatantSetup("Ann").to_dict() == {"name": "Ann", "stats": {}, "resources": {}}
    row = CombatantSetup("Ann", {"str": 3}, {"hp": 5}, side="party", hidden=True, surprised_until=4)
    assert row.to_dict() == {"name": "Ann", "side": "party", "hidden": True, "surprised_until": 4, "stats": {"str": 3}, "resources": {"hp": 5}}
    stored = row.to_dict()
    stored["stats"]["str"] = 9
    stored["resources"]["hp"] = 9
    assert (row.stats, row.resources) == ({"str": 3}, {"hp": 5})


def _ann(**kw: object) -> Combatant:
    return Combatant("Ann", {}, {"hp": 5, "ep": 3}, {"hp": 5, "ep": 3}, **kw)  # type: ignore[arg-type]


def test_a_combatant_is_who_it_first_was() -> None:
    assert _ann().identity == ("Ann", 0)
    assert _ann(called=(("Ann", 3), ("Bea", 7))).identity == ("Ann", 3)


def test_a_combatant_is_down_when_a_down_key_is_at_zero_or_below() -> None:
    assert not _ann().down
    assert not _ann(down_keys=("hp", "ep")).down
    downs: list[dict[str, int | float]] = [{"hp": 0, "ep": 3}, {"hp": 5, "ep": 0}, {"hp": -1, "ep": 3}, {"hp": 5, "ep": -0.5}]
    for resources in downs:
        assert Combatant("Ann", {}, resources, {}, down_keys=("hp", "ep")).down, resources
    assert not Combatant("Ann", {}, {"hp": 0.5}, {}, down_keys=("hp", "mp")).down  # a key it does not hold: not down


def test_the_roster_word_is_the_first_that_holds() -> None:
    assert _ann().state(0) == "idle"
    assert _ann(surprised_until=3).state(2) == "surprised"
    assert _ann(surprised_until=3).state(3) == "idle"
    assert _ann(airborne_until=3).state(2) == "airborne"
    assert _ann(airborne_until=3).state(3) == "idle"
    assert _ann(airborne_until=3, surprised_until=5).state(2) == "airborne"
    action = Action(1, "Ann", "hit", "active", 2, 0, 2, (), Resolution(2))
    assert _ann(in_progress=[action]).state(0) == "acting"
    assert _ann(in_progress=[action], surprised_until=3).state(0) == "surprised"
    down = Combatant("Ann", {}, {"hp": 0}, {}, down_keys=("hp",), airborne_until=9, in_progress=[action])
    assert down.state(0) == "down"
    assert (_ann(airborne_until=3).airborne(2), _ann(airborne_until=3).airborne(3)) == (True, False)
    assert (_ann(surprised_until=3).surprised(2), _ann(surprised_until=3).surprised(3)) == (True, False)


def test_an_action_is_maintained_past_its_first_link() -> None:
    fresh = Action(1, "Ann", "hit", "active", 2, 0, 2, ("Bo",), Resolution(2))
    assert (fresh.maintainable, fresh.chain, fresh.secret, fresh.status, fresh.ended, fresh.asked, fresh.maintained) == (
        False, 0, False, "in progress", None, None, False)
    assert dataclasses.replace(fresh, chain=1).maintained


def test_a_saved_event_leaves_out_empty_values_and_stores_its_resolution_as_a_table() -> None:
    event = Event("declare", {"actor": "Ann", "targets": [], "params": {}, "secret": False, "pt": 0, "note": None,
                              "resolution": Resolution(3, summary="hit")}, seq=4)
    assert event.to_dict() == {"seq": 4, "kind": "declare", "actor": "Ann", "secret": False, "pt": 0, "resolution": {"pt": 3, "summary": "hit"}}
    assert Event("note", {"text": "x"}, 2, "gm").to_dict() == {"seq": 2, "kind": "note", "by": "gm", "text": "x"}
    assert (Event("note", {}).seq, Event("note", {}).by) == (0, "")


def test_a_log_entry_is_built_as_an_ordinary_frozen_one() -> None:
    made = log_entry(3, "note", "x", ("Ann",), 5, True, True, True)
    assert type(made) is LogEntry
    assert made == LogEntry(3, "note", "x", ("Ann",), 5, True, True, True)
    assert hash(made) == hash(LogEntry(3, "note", "x", ("Ann",), 5, True, True, True))
    assert log_entry(1, "note", "y") == LogEntry(1, "note", "y", (), 0, False, False, False)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.text = "z"  # type: ignore[misc]


def test_a_proposal_says_what_it_proposes() -> None:
    def what(action: str, **args: object) -> str:
        return Proposal(1, action, "Ann", dict(args), 0).what()
    assert what("declare", template="punch", targets=["Sphinx", "Bo"]) == "punch against Sphinx, Bo"
    assert what("declare", template="punch") == "punch"
    assert what("declare", template="punch", targets=[]) == "punch"
    assert what("declare") == ""
    assert what("maintain", template="punch") == "a maintained attack"
    assert what("abort", template="punch") == "aborting punch"
    assert what("abort") == "aborting an action"
    assert what("abort", template=None) == "aborting an action"
    p = Proposal(1, "declare", "Ann", {}, 0)
    assert (p.status, p.reason, p.changes) == ("pending", "", "")
