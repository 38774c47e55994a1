"""Direct tests of tracker.engine.changes: the GM's changes by hand (damage, set,
conditions, scheduled events, surprise, hiding, notes, table rolls, table settings and
a campaign's end of the fight). Expected values are worked from the module docstring
("each is checked in full before it changes anything", numbers through
tracker.engine.bounds), tracker.engine.table's docstring, the user guide's commands and
docs/campaigns.md; a refusal is checked by its words and by the fight being as it was."""

from __future__ import annotations

from tracker.engine import INTERRUPTED, Encounter, Event, Resolution
from tracker.engine.bounds import MAX_SEGMENT
from tracker.engine.model import LogEntry
from tests.helpers import advance, encounter as make
from tests.test_mutation_roster import refused_unchanged as _refused


def _last(enc: Encounter) -> LogEntry:
    return enc.log[-1]


def _line(enc: Encounter) -> tuple[int, str, str, tuple[str, ...], bool, bool]:
    e = _last(enc)
    return e.segment, e.kind, e.text, e.about, e.secret, e.while_hidden


def _lines(enc: Encounter, since: int) -> list[str]:
    return [e.text for e in list(enc.log)[since:]]


def _declare(enc: Encounter, actor: str, pt: int) -> None:
    enc.apply(Event("declare", {"actor": actor, "template": "swing", "resolution": Resolution(pt=pt)}))


# --- damage -----------------------------------------------------------------------


def test_damage_takes_the_amount_from_the_resource_and_says_so() -> None:
    enc = make("Ann", "Bo")
    before = len(enc.log)
    enc.apply(Event("damage", {"target": "ann", "amount": 5, "resource": "hp"}))
    assert enc.combatants["Ann"].resources == {"hp": 15, "ep": 30}
    assert enc.combatants["Bo"].resources == {"hp": 20, "ep": 30}
    assert _lines(enc, before) == ["Ann takes 5 hp (hp 20 -> 15)"]
    assert _line(enc) == (0, "damage", "Ann takes 5 hp (hp 20 -> 15)", ("Ann",), False, False)


def test_damage_past_zero_goes_through_to_the_overflow() -> None:
    enc = make("Ann")
    enc.apply(Event("damage", {"target": "Ann", "amount": 26, "resource": "hp", "overflow": "ep"}))
    assert enc.combatants["Ann"].resources == {"hp": 0, "ep": 24}
    assert _lines(enc, -2) == ["Ann takes 26 hp; 6 goes through to ep (24 left) (hp 20 -> 0)", "Ann is down"]


def test_damage_on_several_hurts_each_in_its_own_resource_as_one_change() -> None:
    enc = make("Ann", "Bo", "Cy")
    before, events = len(enc.log), len(enc.events)
    enc.apply(Event("damage", {"target": "Ann", "amount": 4, "resource": "hp",
                               "also": [{"target": "bo", "resource": "ep"}, {"target": "Cy", "resource": "hp", "overflow": "ep"}]}))
    assert len(enc.events) == events + 1
    assert [c.resources for c in enc.combatants.values()] == [{"hp": 16, "ep": 30}, {"hp": 20, "ep": 26}, {"hp": 16, "ep": 30}]
    assert _lines(enc, before) == ["Ann takes 4 hp (hp 20 -> 16)", "Bo takes 4 ep (ep 30 -> 26)", "Cy takes 4 hp (hp 20 -> 16)"]
    enc.apply(Event("damage", {"target": "Ann", "amount": 1, "resource": "hp", "also": None}))
    enc.apply(Event("damage", {"target": "Ann", "amount": 1, "resource": "hp", "also": []}))
    assert enc.combatants["Ann"].resources["hp"] == 14


def test_damage_on_several_overflows_each_its_own_way() -> None:
    enc = make("Ann", "Bo", hp=3)
    enc.apply(Event("damage", {"target": "Ann", "amount": 5, "resource": "hp", "overflow": "ep",
                               "also": [{"target": "Bo", "resource": "hp"}]}))
    assert enc.combatants["Ann"].resources == {"hp": 0, "ep": 28}
    assert enc.combatants["Bo"].resources == {"hp": -2, "ep": 30}


def test_damage_is_checked_for_every_target_before_any_is_hurt() -> None:
    enc = make("Ann", "Bo")
    enc.apply(Event("add", {"name": "Cy"}))
    _refused(enc, Event("damage", {"target": "Ann", "amount": 3, "resource": "mp"}), "Ann has no resource 'mp' (has: hp, ep)")
    _refused(enc, Event("damage", {"target": "Cy", "amount": 3, "resource": "hp"}), "Cy has no resource 'hp' (has: none)")
    _refused(enc, Event("damage", {"target": "Ann", "amount": 3, "resource": "hp", "overflow": "mp"}),
             "Ann has no resource 'mp' (has: hp, ep)")
    _refused(enc, Event("damage", {"target": "Ann", "amount": 3, "resource": "hp", "also": [{"target": "Bo", "resource": "mp"}]}),
             "Bo has no resource 'mp' (has: hp, ep)")
    _refused(enc, Event("damage", {"target": "Ann", "amount": 3, "resource": "hp",
                                   "also": [{"target": "Bo", "resource": "hp", "overflow": "mp"}]}),
             "Bo has no resource 'mp' (has: hp, ep)")
    _refused(enc, Event("damage", {"target": "Ann", "amount": 3, "resource": "hp", "also": [{"target": "Bo", "resource": "hp"}, {"target": "ANN", "resource": "ep"}]}),
             "damage: Ann is named twice")
    _refused(enc, Event("damage", {"target": "Ann", "amount": 3, "resource": "hp", "also": [{"target": "Dee", "resource": "hp"}]}),
             "no combatant named 'Dee' (combatants: Ann, Bo, Cy)")
    _refused(enc, Event("damage", {"target": "Ann", "amount": "lots", "resource": "hp"}), "amount: expected a number, got 'lots'")
    _refused(enc, Event("damage", {"target": "Ann", "amount": 10**13, "resource": "hp"}),
             "amount: expected a number of at most 1,000,000,000,000 in size, got 1e+13")


def test_an_empty_overflow_is_no_overflow() -> None:
    enc = make("Ann", hp=2)
    enc.apply(Event("damage", {"target": "Ann", "amount": 5, "resource": "hp", "overflow": ""}))
    assert enc.combatants["Ann"].resources == {"hp": -3, "ep": 30}


def test_damage_that_puts_a_combatant_down_interrupts_what_completes_from_the_next_segment() -> None:
    enc = make("Ann", "Bo")
    _declare(enc, "Ann", 1)
    _declare(enc, "Bo", 2)
    enc.apply(Event("damage", {"target": "Ann", "amount": 20, "resource": "hp"}))
    assert [(a.actor, a.status, a.ended) for a in enc.actions] == [("Ann", INTERRUPTED, 0), ("Bo", "in progress", None)]
    assert _lines(enc, -2) == ["Ann takes 20 hp (hp 20 -> 0)", "Ann is down; swing interrupted"]


# --- a campaign's end of the fight --------------------------------------------------


def test_a_campaign_ends_the_fight_with_or_without_an_outcome() -> None:
    enc = make("Ann")
    enc.apply(Event("end", {"campaign": "Marches", "outcome": "  the bandits flee "}))
    assert enc.ended == "Marches"
    assert _line(enc) == (0, "end", "the fight ends: the bandits flee; the party's state goes back to the campaign Marches", (), False, False)
    for outcome in ({}, {"outcome": "   "}, {"outcome": None}):
        other = make("Ann")
        other.apply(Event("end", {"campaign": "Marches", **outcome}))
        assert _line(other)[2] == "the fight ends; the party's state goes back to the campaign Marches"


def test_an_end_needs_the_campaigns_name() -> None:
    for campaign in ("", "   ", 7, None):
        _refused(make("Ann"), Event("end", {"campaign": campaign}), "end: campaign: expected the campaign's name")
    enc = make("Ann")
    _refused(enc, Event("end", {"campaign": " "}), "end: campaign: expected the campaign's name")
    assert enc.ended == ""


# --- set ----------------------------------------------------------------------------


def _fighter(enc: Encounter) -> None:
    enc.apply(Event("add", {"name": "Dee", "stats": {"str": 3, "note": "tall"}, "resources": {"hp": 10}}))


def test_a_set_key_the_combatant_holds_as_a_stat_is_a_stat_any_other_a_resource() -> None:
    enc = make()
    _fighter(enc)
    dee = enc.combatants["Dee"]
    enc.apply(Event("set", {"target": "dee", "key": "str", "value": 5}))
    assert (dee.stats, dee.resources) == ({"str": 5, "note": "tall"}, {"hp": 10})
    assert _line(enc) == (0, "set", "Dee: str set to 5", ("Dee",), False, False)
    enc.apply(Event("set", {"target": "Dee", "key": "note", "value": "short"}))
    assert dee.stats["note"] == "short"
    enc.apply(Event("set", {"target": "Dee", "key": "hp", "value": 2.5}))
    assert (dee.stats, dee.resources) == ({"str": 5, "note": "short"}, {"hp": 2.5})
    assert _line(enc)[2] == "Dee: hp set to 2.5"
    enc.apply(Event("set", {"target": "Dee", "key": "mp", "value": 4}))
    assert dee.resources == {"hp": 2.5, "mp": 4} and "mp" not in dee.stats


def test_a_set_said_to_be_a_stat_is_one_even_where_an_earlier_save_made_it_a_resource() -> None:
    enc = make()
    _fighter(enc)
    dee = enc.combatants["Dee"]
    assert dee.maxima == {"hp": 10}
    enc.apply(Event("set", {"target": "Dee", "key": "hp", "value": "high", "stat": True}))
    assert (dee.stats["hp"], dee.resources, dee.maxima) == ("high", {}, {})
    assert _line(enc)[2] == "Dee: hp set to high"
    # a resource a set made (no maximum) taken for a stat
    enc.apply(Event("set", {"target": "Dee", "key": "mp", "value": 4}))
    assert dee.resources == {"mp": 4} and dee.maxima == {}
    enc.apply(Event("set", {"target": "Dee", "key": "mp", "value": 2, "stat": True}))
    assert (dee.stats["mp"], dee.resources) == (2, {})
    enc.apply(Event("set", {"target": "Dee", "key": "agi", "value": True, "stat": True}))
    assert dee.stats["agi"] is True and _line(enc)[2] == "Dee: agi set to yes"
    enc.apply(Event("set", {"target": "Dee", "key": "wits", "value": 2, "stat": False}))
    assert dee.resources["wits"] == 2


def test_a_key_held_both_ways_is_set_as_the_resource() -> None:
    enc = make()
    enc.apply(Event("add", {"name": "Dee", "stats": {"hp": 1}, "resources": {"hp": 10}}))
    dee = enc.combatants["Dee"]
    enc.apply(Event("set", {"target": "Dee", "key": "hp", "value": 7}))
    assert (dee.stats, dee.resources) == ({"hp": 1}, {"hp": 7})
    _refused(enc, Event("set", {"target": "Dee", "key": "hp", "value": "x"}),
             "set Dee hp: hp is a resource and takes a number, got 'x'")


def test_a_resource_takes_a_number_only() -> None:
    enc = make()
    _fighter(enc)
    _refused(enc, Event("set", {"target": "Dee", "key": "hp", "value": "lots"}),
             "set Dee hp: hp is a resource and takes a number, got 'lots'")
    _refused(enc, Event("set", {"target": "Dee", "key": "hp", "value": True}),
             "set Dee hp: hp is a resource and takes a number, got True")
    _refused(enc, Event("set", {"target": "Dee", "key": "mp", "value": "x"}),
             "set Dee mp: mp is a resource and takes a number, got 'x'")
    _refused(enc, Event("set", {"target": "Eve", "key": "hp", "value": 1}), "no combatant named 'Eve' (combatants: Dee)")
    _refused(enc, Event("set", {"target": "Dee", "key": "str", "value": 10**13}),
             "set str: expected a number of at most 1,000,000,000,000 in size, got 1e+13")
    _refused(enc, Event("set", {"target": "Dee", "key": "hp", "value": float("nan")}), "set hp: expected a finite number, got nan")


def test_a_set_that_puts_a_combatant_down_interrupts_its_action() -> None:
    enc = make("Ann")
    _declare(enc, "Ann", 1)
    enc.apply(Event("set", {"target": "Ann", "key": "hp", "value": 0}))
    assert enc.actions[0].status == INTERRUPTED
    assert _lines(enc, -2) == ["Ann: hp set to 0", "Ann is down; swing interrupted"]


# --- conditions -----------------------------------------------------------------------


def test_a_condition_lands_on_each_named_and_ends_after_its_segments() -> None:
    enc = make("Ann", "Bo", "Cy")
    advance(enc, 2)
    before = len(enc.log)
    enc.apply(Event("condition", {"target": "ann", "name": "dazed", "duration": 3, "also": ["Bo"]}))
    assert [c.conditions for c in enc.combatants.values()] == [{"dazed": 5}, {"dazed": 5}, {}]
    assert _lines(enc, before) == ["Ann is dazed until segment 5", "Bo is dazed until segment 5"]
    assert enc.next_happening() == 5
    enc.apply(Event("condition", {"target": "Cy", "name": "prone", "duration": 1, "also": None}))
    assert enc.combatants["Cy"].conditions == {"prone": 3}


def test_a_condition_is_checked_before_it_lands_on_anyone() -> None:
    enc = make("Ann", "Bo")
    _refused(enc, Event("condition", {"target": "Ann", "name": "dazed", "duration": 0}),
             "condition: segments: expected a whole number from 1 to 1,000,000,000,000, got 0")
    _refused(enc, Event("condition", {"target": "Ann", "name": "dazed", "duration": 2, "also": ["Cy"]}),
             "no combatant named 'Cy' (combatants: Ann, Bo)")
    advance(enc, 1)
    _refused(enc, Event("condition", {"target": "Ann", "name": "dazed", "duration": MAX_SEGMENT}),
             "condition: it would end after segment 1,000,000,000,000")
    enc.apply(Event("condition", {"target": "Ann", "name": "dazed", "duration": MAX_SEGMENT - 1}))
    assert enc.combatants["Ann"].conditions == {"dazed": MAX_SEGMENT}


# --- scheduled events ---------------------------------------------------------------


def test_a_scheduled_event_waits_for_its_segment() -> None:
    enc = make("Ann")
    advance(enc, 3)
    enc.apply(Event("schedule", {"at": 4, "text": "the bridge falls"}))
    enc.apply(Event("schedule", {"at": 4, "text": "reinforcements"}))
    assert enc.scheduled == {4: ["the bridge falls", "reinforcements"]}
    assert _line(enc) == (3, "schedule", "scheduled for segment 4: reinforcements", (), False, False)
    assert enc.next_happening() == 4
    advance(enc, 4)
    assert _lines(enc, -2) == ["the bridge falls", "reinforcements"]
    assert [(e.kind, e.segment) for e in list(enc.log)[-2:]] == [("scheduled", 4), ("scheduled", 4)]


def test_a_scheduled_event_must_be_after_now() -> None:
    enc = make("Ann")
    advance(enc, 3)
    _refused(enc, Event("schedule", {"at": 3, "text": "x"}), "a scheduled event must be after the current segment 3, not 3")
    _refused(enc, Event("schedule", {"at": 2, "text": "x"}), "a scheduled event must be after the current segment 3, not 2")
    _refused(enc, Event("schedule", {"at": -1, "text": "x"}),
             "schedule: segment: expected a whole number from 0 to 1,000,000,000,000, got -1")


# --- surprise, hiding ---------------------------------------------------------------


def test_surprise_holds_back_initiation_until_its_segment() -> None:
    enc = make("Ann", "Bo")
    advance(enc, 2)
    enc.apply(Event("surprise", {"target": "ann", "until": 5}))
    assert enc.combatants["Ann"].surprised_until == 5
    assert _line(enc) == (2, "surprise", "Ann is surprised: no initiation before segment 5", ("Ann",), False, False)
    assert enc.next_happening() == 5
    enc.apply(Event("surprise", {"target": "Bo", "until": 4}))
    advance(enc, 5)
    assert [(e.segment, e.kind, e.text, e.about) for e in enc.log if e.kind == "surprise" and e.segment > 2] == [
        (4, "surprise", "Bo may act now", ("Bo",)), (5, "surprise", "Ann may act now", ("Ann",))]
    enc.apply(Event("surprise", {"target": "Ann", "until": 9}))
    enc.apply(Event("surprise", {"target": "Ann", "until": 5}))
    assert enc.combatants["Ann"].surprised_until == 5
    assert _line(enc) == (5, "surprise", "Ann is no longer surprised", ("Ann",), False, False)
    _refused(enc, Event("surprise", {"target": "Ann", "until": "soon"}),
             "surprise: segment: expected a whole number of segments, got 'soon'")


def test_surprise_until_now_queues_nothing() -> None:
    enc = make("Ann")
    advance(enc, 2)
    enc.apply(Event("surprise", {"target": "Ann", "until": 2}))
    assert enc.next_happening() is None


def test_hiding_and_showing_a_combatant() -> None:
    enc = make("Ann")
    enc.apply(Event("hide", {"target": "ann"}))
    assert enc.combatants["Ann"].hidden is True
    assert _line(enc) == (0, "hide", "Ann is hidden from viewers", ("Ann",), False, True)
    enc.apply(Event("hide", {"target": "Ann", "hidden": False}))
    assert enc.combatants["Ann"].hidden is False
    assert _line(enc) == (0, "hide", "Ann is shown to viewers", ("Ann",), False, False)
    enc.apply(Event("hide", {"target": "Ann", "hidden": True}))
    assert enc.combatants["Ann"].hidden is True


# --- notes, rolls, settings ---------------------------------------------------------


def test_a_note_is_a_line_about_whom_it_names() -> None:
    enc = make("Ann")
    enc.apply(Event("note", {"text": "the torches gutter"}))
    assert _line(enc) == (0, "note", "the torches gutter", (), False, False)
    enc.apply(Event("note", {"text": "Ann looks pale", "about": ["Ann"]}))
    assert _line(enc) == (0, "note", "Ann looks pale", ("Ann",), False, False)


def test_a_table_roll_is_a_line_and_a_secret_one_is_kept_secret() -> None:
    enc = make("Ann")
    state_before = [dict(c.resources) for c in enc.combatants.values()]
    enc.apply(Event("roll", {"spec": "2d6", "dice": [3, 4], "text": "2d6: 7"}))
    assert _line(enc) == (0, "roll", "roll 2d6: 7", (), False, False)
    enc.apply(Event("roll", {"spec": "2d6", "dice": [3, 4], "text": "2d6: 7", "secret": True}))
    assert _line(enc) == (0, "roll", "roll 2d6: 7 (secret)", (), True, False)
    enc.apply(Event("roll", {"spec": "2d6", "dice": [3, 4], "text": "2d6: 7", "secret": False}))
    assert _line(enc)[2:5] == ("roll 2d6: 7", (), False)
    assert [dict(c.resources) for c in enc.combatants.values()] == state_before


def test_a_table_setting_is_checked_and_said() -> None:
    enc = make("Ann")
    assert enc.table == {}
    enc.apply(Event("setting", {"key": "viewer_resources", "value": "label"}))
    assert enc.table == {"viewer_resources": "label"}
    assert _line(enc) == (0, "setting", "setting: viewer_resources is now label", (), False, False)
    enc.apply(Event("setting", {"key": "player_damage_cap", "value": " 012 "}))
    assert enc.table["player_damage_cap"] == "12"
    assert _line(enc)[2] == "setting: player_damage_cap is now 12"
    _refused(enc, Event("setting", {"key": "viewer_resources", "value": "vague"}),
             "setting.viewer_resources: expected one of exact, label, hidden, got 'vague'")
    _refused(enc, Event("setting", {"key": "colour", "value": "red"}),
             "setting: expected one of the table settings (player_declarations, viewer_resources, player_damage_cap), got 'colour'")

