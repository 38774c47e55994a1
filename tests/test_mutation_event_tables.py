"""Direct tests of tracker.persistence.event_tables: each event written as an `[[events]]`
table of its own, and read back with every key checked against the table of event kinds,
naming the file, the event and the key; the fast reading of a long fight and the checked
one accept and refuse exactly the same events, and only what does not pass at a glance
(and every `add`, whose sheet the game checks) takes the checked one (the module
docstring; docs/decisions/0007-save-format.md, 0045-opening-fast.md; docs/guide/saves.md)."""

from __future__ import annotations

import tomllib
from typing import Any

import pytest

from rulesets import registry
from tracker.engine import Event, Resolution
from tracker.engine.effects import EFFECT_TYPES, Damage
from tracker.persistence import event_tables
from tracker.persistence.checks import SaveError
from tracker.persistence.event_tables import EVENT_TABLES, events_from, events_text, read_event, read_event_checked

FREEFORM = registry.get("freeform")
BRANDX = registry.get("brandx")
WHERE = "f.toml: events[0]"
RESOLUTION_KEYS = "pt, success, margin, dice, summary, effects, order, details"
BIG = 2**63  # one past a 64-bit integer


def both(raw: dict[str, Any], index: int = 0, ruleset: Any = FREEFORM) -> Event:
    """The event both readings give (they must agree), or the SaveError both raise."""
    try:
        fast: Any = read_event(ruleset, raw, index, "f.toml")
    except SaveError as exc:
        fast = ("refused", str(exc))
    try:
        checked: Any = read_event_checked(ruleset, raw, index, f"f.toml: events[{index}]")
    except SaveError as exc:
        checked = ("refused", str(exc))
    assert fast == checked
    if isinstance(fast, tuple):
        raise SaveError(fast[1])
    return fast


def refused(raw: dict[str, Any], index: int = 0, ruleset: Any = FREEFORM) -> str:
    with pytest.raises(SaveError) as error:
        both(raw, index, ruleset)
    return str(error.value)


@pytest.fixture
def checked_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Which events the fast reading handed to the checked one (by index)."""
    calls: list[int] = []
    real = event_tables.read_event_checked

    def spy(ruleset: Any, raw: dict[str, Any], index: int, where: str) -> Event:
        calls.append(index)
        assert where == f"f.toml: events[{index}]"
        return real(ruleset, raw, index, where)

    monkeypatch.setattr(event_tables, "read_event_checked", spy)
    return calls


def declaration(**resolution: Any) -> dict[str, Any]:
    return {"seq": 1, "kind": "declare", "actor": "Ann", "template": "swing", "mode": "active", "resolution": resolution}


# ------------------------------------------------------------------ writing
def test_each_event_is_a_table_of_its_own() -> None:
    events = [Event("note", {"text": "a"}, 1), Event("advance", {"to": 5}, 2, "gm")]
    assert events_text(events) == '[[events]]\nseq = 1\nkind = "note"\ntext = "a"\n\n[[events]]\nseq = 2\nkind = "advance"\nby = "gm"\nto = 5\n'
    assert events_text([]) == ""


def test_a_table_inside_an_event_is_written_under_it() -> None:
    add = Event("add", {"name": "Ann", "resources": {"hp": 20}, "side": "party"}, 1)
    text = events_text([add])
    assert text == '[[events]]\nseq = 1\nkind = "add"\nname = "Ann"\nside = "party"\n\n[events.resources]\nhp = 20\n'
    assert tomllib.loads(text) == {"events": [{"seq": 1, "kind": "add", "name": "Ann", "side": "party", "resources": {"hp": 20}}]}


def test_a_list_of_tables_inside_an_event_is_one_table_each_under_it() -> None:
    hit = Event("damage", {"target": "Ann", "amount": 3, "resource": "hp",
                           "also": [{"target": "Bo", "resource": "hp"}, {"target": "Cy", "resource": "ep"}]}, 4)
    text = events_text([hit, Event("note", {"text": "after"}, 5)])
    assert text == (
        '[[events]]\nseq = 4\nkind = "damage"\ntarget = "Ann"\namount = 3\nresource = "hp"\n'
        '\n[[events.also]]\ntarget = "Bo"\nresource = "hp"\n'
        '\n[[events.also]]\ntarget = "Cy"\nresource = "ep"\n'
        '\n[[events]]\nseq = 5\nkind = "note"\ntext = "after"\n'
    )
    doc = tomllib.loads(text)
    assert doc["events"][0]["also"] == [{"target": "Bo", "resource": "hp"}, {"target": "Cy", "resource": "ep"}]
    assert doc["events"][1] == {"seq": 5, "kind": "note", "text": "after"}


def test_a_declarations_resolution_and_its_effects_read_back_as_written() -> None:
    resolution = Resolution(7, True, 2, (3, 4), "hit", (Damage(target="Bo", amount=5, resource="hp"),), (), {"k": 1})
    event = Event("declare", {"actor": "Ann", "template": "swing", "mode": "active", "targets": ["Bo"], "resolution": resolution}, 1)
    text = events_text([event])
    assert text.startswith('[[events]]\nseq = 1\nkind = "declare"\nactor = "Ann"\ntemplate = "swing"\nmode = "active"\ntargets = [\n    "Bo",\n]\n\n[events.resolution]\n')
    raw = tomllib.loads(text)["events"][0]
    assert both(raw) == event


def test_an_empty_list_stays_a_value_not_a_table() -> None:
    text = events_text([Event("note", {"text": "x", "about": ["Ann"]}, 1)])
    assert 'about = [\n    "Ann",\n]' in text
    assert event_tables._is_aot([]) is False
    assert event_tables._is_aot([{}]) is True
    assert event_tables._is_aot([{}, 1]) is False
    assert event_tables._is_aot({"a": 1}) is False


def test_a_number_toml_cannot_hold_is_never_written_and_names_the_event() -> None:
    with pytest.raises(SaveError) as error:
        events_text([Event("set", {"target": "Ann", "key": "hp", "value": float("nan")}, 3)])
    assert str(error.value) == "event 3 (set).value: nan cannot be saved (integers must fit 64 bits, numbers must be finite)"


# ------------------------------------------------------------------ reading: what is accepted
def test_a_plain_event_is_read_at_a_glance(checked_calls: list[int]) -> None:
    raws = [{"seq": 5, "kind": "note", "text": "a", "about": ["Ann"]}, {"seq": 6, "kind": "advance", "to": 9, "by": "gm"},
            {"seq": 7, "kind": "set", "target": "Ann", "key": "hp", "value": 3}]
    events = events_from(FREEFORM, raws, 4, "f.toml")
    assert events == [Event("note", {"text": "a", "about": ["Ann"]}, 5), Event("advance", {"to": 9}, 6, "gm"),
                      Event("set", {"target": "Ann", "key": "hp", "value": 3}, 7)]
    assert checked_calls == []


def test_a_declaration_with_a_plain_resolution_is_read_at_a_glance(checked_calls: list[int]) -> None:
    raw = declaration(pt=4, success=True, margin=2, dice=[3], summary="hit", order=[1], details={"a": 1},
                      effects=[{"kind": "damage", "target": "Bo", "amount": 2, "resource": "hp"}])
    event = read_event(FREEFORM, raw, 0, "f.toml")
    assert event.args["resolution"] == Resolution(4, True, 2, (3,), "hit", (Damage(target="Bo", amount=2, resource="hp"),), (1,), {"a": 1})
    assert checked_calls == []
    plain = read_event(FREEFORM, declaration(pt=1, margin=1.5, details={"a": 2**62}), 0, "f.toml")
    assert plain.args["resolution"].pt == 1
    assert checked_calls == []


def test_an_add_always_has_its_sheet_checked_by_the_game(checked_calls: list[int]) -> None:
    event = read_event(FREEFORM, {"seq": 1, "kind": "add", "name": "Ann", "resources": {"hp": 20}}, 0, "f.toml")
    assert event == Event("add", {"name": "Ann", "resources": {"hp": 20}, "stats": {}}, 1)
    assert checked_calls == [0]


@pytest.mark.parametrize(
    "raw",
    [
        {"seq": 2, "kind": "note", "text": "a"},  # out of order
        {"seq": True, "kind": "note", "text": "a"},
        {"seq": 1, "kind": "nothing", "text": "a"},
        {"seq": 1, "kind": 3, "text": "a"},
        {"seq": 1, "text": "a"},
        {"seq": 1, "kind": "note", "text": "a", "by": 3},
        {"seq": 1, "kind": "note", "text": "a", "extra": 1},
        {"seq": 1, "kind": "note", "text": 3},
        {"seq": 1, "kind": "note"},
        {"seq": 1, "kind": "set", "target": "Ann", "key": "hp", "value": float("inf")},
        {"seq": 1, "kind": "set", "target": "Ann", "key": "hp", "value": {"a": BIG}},
        declaration(pt=0),
        declaration(pt="3"),
        declaration(success=True),
        declaration(pt=3, extra=1),
        declaration(pt=3, margin=float("nan")),
        declaration(pt=3, details={"a": BIG}),
        declaration(pt=3, effects=[{"kind": "boom"}]),
        declaration(pt=3, effects=[{"kind": 3}]),
        declaration(pt=3, effects=[{"kind": "damage"}]),
    ],
)
def test_what_does_not_pass_at_a_glance_is_checked_and_both_agree(checked_calls: list[int], raw: dict[str, Any]) -> None:
    with pytest.raises(SaveError):
        read_event(FREEFORM, raw, 0, "f.toml")
    assert checked_calls == [0]
    refused(raw)


def test_a_value_not_plain_but_fitting_is_checked_and_kept(checked_calls: list[int]) -> None:
    raw = {"seq": 1, "kind": "set", "target": "Ann", "key": "notes", "value": {"a": [1, 2.5, "x"]}}
    assert read_event(FREEFORM, raw, 0, "f.toml").args["value"] == {"a": [1, 2.5, "x"]}
    assert checked_calls == [0]
    assert both(raw).args["value"] == {"a": [1, 2.5, "x"]}


def test_an_event_whose_optional_keys_are_missing_is_read_at_a_glance(checked_calls: list[int]) -> None:
    raw = {"seq": 1, "kind": "damage", "target": "Ann", "amount": 2, "resource": "hp", "overflow": "dp"}
    assert read_event(FREEFORM, raw, 0, "f.toml") == Event("damage", {"target": "Ann", "amount": 2, "resource": "hp", "overflow": "dp"}, 1)
    assert checked_calls == []


# ------------------------------------------------------------------ refusals name file, event, key
def test_events_are_numbered_in_order() -> None:
    assert refused({"seq": 3, "kind": "note", "text": "a"}, 1) == "f.toml: events[1].seq: expected 2 (events are numbered in order), got 3"
    assert refused({"seq": "1", "kind": "note", "text": "a"}) == f"{WHERE}.seq: expected an integer, got '1'"
    assert refused({"seq": True, "kind": "note", "text": "a"}) == f"{WHERE}.seq: expected an integer, got True"
    assert refused({"seq": BIG, "kind": "note", "text": "a"}) == f"{WHERE}.seq: expected an integer, got {BIG}"
    assert refused({"kind": "note", "text": "a"}) == f"{WHERE}: missing key 'seq' (an integer)"
    assert both({"seq": 8, "kind": "note", "text": "a"}, 7).seq == 8


def test_an_event_needs_a_kind_the_tracker_knows() -> None:
    assert refused({"seq": 1, "text": "a"}) == f"{WHERE}: missing key 'kind' (an event kind)"
    assert refused({"seq": 1, "kind": "hit", "text": "a"}) == f"{WHERE}.kind: expected an event kind, got 'hit'"
    assert refused({"seq": 1, "kind": ["note"], "text": "a"}) == f"{WHERE}.kind: expected an event kind, got ['note']"
    assert refused({"seq": 1, "kind": "", "text": "a"}) == f"{WHERE}.kind: expected an event kind, got ''"


def test_who_made_a_change_is_text() -> None:
    assert refused({"seq": 1, "kind": "note", "text": "a", "by": 7}) == f"{WHERE}.by: expected text, got 7"
    assert both({"seq": 1, "kind": "note", "text": "a", "by": "Kim"}).by == "Kim"
    assert both({"seq": 1, "kind": "note", "text": "a"}).by == ""


def test_every_key_is_one_the_kind_has_of_the_shape_it_takes() -> None:
    assert refused({"seq": 1, "kind": "note", "text": "a", "colour": "red"}) == (
        f"{WHERE} (seq 1, note): unexpected key 'colour' (a note event has text, about)"
    )
    assert refused({"seq": 1, "kind": "note", "text": 5}) == f"{WHERE} (seq 1, note).text: expected text, got 5"
    assert refused({"seq": 1, "kind": "advance", "to": "5"}) == f"{WHERE} (seq 1, advance).to: expected an integer, got '5'"
    assert refused({"seq": 1, "kind": "note"}) == f"{WHERE} (seq 1, note): missing key 'text' (text)"
    assert refused({"seq": 1, "kind": "damage", "target": "Ann", "resource": "hp"}) == (
        f"{WHERE} (seq 1, damage): missing key 'amount' (a finite number)"
    )
    assert refused({"seq": 1, "kind": "damage", "amount": 1, "target": "Ann", "overflow": "dp"}) == (
        f"{WHERE} (seq 1, damage): missing key 'resource' (text)"
    )


def test_numbers_toml_cannot_hold_are_named_where_they_are() -> None:
    assert refused({"seq": 1, "kind": "set", "target": "Ann", "key": "hp", "value": float("inf")}) == (
        f"{WHERE} (seq 1, set).value: inf cannot be saved (integers must fit 64 bits, numbers must be finite)"
    )
    assert refused({"seq": 1, "kind": "set", "target": "Ann", "key": "hp", "value": {"a": [1, BIG]}}) == (
        f"{WHERE} (seq 1, set).value.a[1]: {BIG} cannot be saved (integers must fit 64 bits, numbers must be finite)"
    )
    assert refused({"seq": 1, "kind": "add", "name": "Ann", "stats": {"str": float("nan")}}) == (
        f"{WHERE} (seq 1, add).stats.str: nan cannot be saved (integers must fit 64 bits, numbers must be finite)"
    )
    assert refused({"seq": 1, "kind": "add", "name": "Ann", "resources": {"hp": -BIG - 1}}) == (
        f"{WHERE} (seq 1, add).resources.hp: {-BIG - 1} cannot be saved (integers must fit 64 bits, numbers must be finite)"
    )
    assert refused(declaration(pt=3, margin=float("-inf"))) == (
        f"{WHERE} (seq 1, declare).resolution.margin: -inf cannot be saved (integers must fit 64 bits, numbers must be finite)"
    )
    assert refused(declaration(pt=3, details={"x": [BIG]})) == (
        f"{WHERE} (seq 1, declare).resolution.details.x[0]: {BIG} cannot be saved (integers must fit 64 bits, numbers must be finite)"
    )
    assert refused(declaration(pt=3, effects=[{"kind": "damage", "target": "Bo", "amount": float("nan"), "resource": "hp"}])) == (
        f"{WHERE} (seq 1, declare).resolution.effects[0].amount: nan cannot be saved (integers must fit 64 bits, numbers must be finite)"
    )


def test_an_add_whose_sheet_the_game_refuses_is_named_by_the_game() -> None:
    message = refused({"seq": 1, "kind": "add", "name": "Seraph", "stats": {"nonsense": 3}}, ruleset=BRANDX)
    assert message.startswith(f"{WHERE} (seq 1, add)")
    assert "nonsense" in message
    event = both({"seq": 1, "kind": "add", "name": "Ann", "stats": {"speed": 3}, "resources": {"hp": 20}})
    assert event.args["stats"] == {"speed": 3} and event.args["resources"] == {"hp": 20}


def test_a_set_names_its_event_in_its_value_refusal() -> None:
    # `set` and `add` name their event on every later check, as a resolution does.
    assert refused({"seq": 1, "kind": "set", "target": "Ann", "key": "hp", "value": float("nan")}).startswith(f"{WHERE} (seq 1, set).value:")


# ------------------------------------------------------------------ a declaration's resolution
def test_a_resolution_names_its_keys_and_their_shapes() -> None:
    at = f"{WHERE} (seq 1, declare).resolution"
    assert refused(declaration(pt=3, colour=1)) == f"{at}: unexpected key 'colour' (expected {RESOLUTION_KEYS})"
    assert refused(declaration(pt="3")) == f"{at}.pt: expected an integer, got '3'"
    assert refused(declaration(pt=3, success="yes")) == f"{at}.success: expected true or false, got 'yes'"
    assert refused(declaration(pt=3, dice=[1, "2"])) == f"{at}.dice: expected a list of integers, got [1, '2']"
    assert refused(declaration(pt=3, order=3)) == f"{at}.order: expected a list of integers, got 3"
    assert refused(declaration(pt=3, summary=3)) == f"{at}.summary: expected text, got 3"
    assert refused(declaration(pt=3, effects={"kind": "damage"})) == f"{at}.effects: expected a list of tables, got {{'kind': 'damage'}}"
    assert refused(declaration(pt=3, details=[1])) == f"{at}.details: expected a table, got [1]"
    assert both(declaration(pt=3, margin="by a lot")).args["resolution"].margin == "by a lot"


def test_a_resolution_takes_at_least_one_segment() -> None:
    at = f"{WHERE} (seq 1, declare).resolution"
    assert refused(declaration()) == f"{at}: missing key 'pt' (an integer)"
    assert refused(declaration(summary="x")) == f"{at}: missing key 'pt' (an integer)"
    assert refused(declaration(pt=0)) == f"{at}.pt: expected an integer of at least 1, got 0"
    assert refused(declaration(pt=-4)) == f"{at}.pt: expected an integer of at least 1, got -4"
    assert both(declaration(pt=1)).args["resolution"] == Resolution(1)


def test_each_effect_is_one_the_engine_knows_and_whole() -> None:
    at = f"{WHERE} (seq 1, declare).resolution"
    kinds = ", ".join(EFFECT_TYPES)
    assert refused(declaration(pt=3, effects=[{"kind": "note", "text": "x"}, {"kind": "boom"}])) == (
        f"{at}.effects[1].kind: expected one of {kinds}, got 'boom'"
    )
    assert refused(declaration(pt=3, effects=[{"target": "Bo"}])) == f"{at}.effects[0].kind: expected one of {kinds}, got None"
    assert refused(declaration(pt=3, effects=[{"kind": 4}])) == f"{at}.effects[0].kind: expected one of {kinds}, got 4"
    broken = refused(declaration(pt=3, effects=[{"kind": "damage", "target": "Bo"}]))
    assert broken.startswith(f"{at}.effects: ")
    assert both(declaration(pt=3, effects=[{"kind": "note", "text": "x"}])).args["resolution"].effects[0].kind == "note"


def test_the_fast_resolution_builds_only_what_needs_no_word() -> None:
    fast = event_tables._resolution_fast
    assert fast({"pt": 2, "summary": "s"}) == Resolution(2, summary="s")
    assert fast({"pt": 1}) == Resolution(1)
    assert fast({"pt": 0}) is None
    assert fast({"summary": "s"}) is None
    assert fast({"pt": 2, "x": 1}) is None
    assert fast({"pt": "2"}) is None
    assert fast({"pt": 2, "effects": [{"kind": "boom"}]}) is None
    assert fast({"pt": 2, "effects": [{"kind": 1}]}) is None
    assert fast({"pt": 2, "effects": [{"target": "Bo"}]}) is None
    assert fast({"pt": 2, "effects": [{"kind": "damage"}]}) is None
    assert fast({"pt": 2, "effects": [{"kind": "note", "text": "x"}]}) is not None


# ------------------------------------------------------------------ plain values
@pytest.mark.parametrize(
    ("value", "plain"),
    [("x", True), (True, True), (False, True), (0, True), (2**63 - 1, True), (-(2**63), True), (2**63, False),
     (-(2**63) - 1, False), ({}, True), ([], True), ({"a": 1}, False), ([1], False), (1.5, False), (None, False)],
)
def test_a_plain_value_passes_at_a_glance(value: Any, plain: bool) -> None:
    assert event_tables._plain(value) is plain


def test_the_events_of_a_save_are_an_array_of_tables() -> None:
    expected, test = EVENT_TABLES
    assert expected == "an array of tables [[events]]"
    assert test([]) and test([{}, {"a": 1}])
    assert not test({}) and not test([{}, 1]) and not test("x")


def test_appended_tables_are_numbered_from_the_first_new_one() -> None:
    raws = [{"seq": 3, "kind": "note", "text": "a"}, {"seq": 4, "kind": "note", "text": "b"}]
    assert [e.seq for e in events_from(FREEFORM, raws, 2, "f.toml")] == [3, 4]
    with pytest.raises(SaveError) as error:
        events_from(FREEFORM, raws, 3, "f.toml")
    assert str(error.value) == "f.toml: events[3].seq: expected 4 (events are numbered in order), got 3"
    with pytest.raises(SaveError) as second:
        events_from(FREEFORM, [raws[0], {"seq": 4, "kind": "note"}], 2, "f.toml")
    assert str(second.value) == "f.toml: events[3] (seq 4, note): missing key 'text' (text)"


# ------------------------------------------------------------------ added for survivors
def test_an_add_with_no_sheet_at_all_is_still_checked_by_the_game(checked_calls: list[int]) -> None:
    bare = {"seq": 1, "kind": "add", "name": "Ann"}
    assert read_event(FREEFORM, bare, 0, "f.toml") == Event("add", {"name": "Ann", "stats": {}, "resources": {}}, 1)
    assert checked_calls == [0]
    assert events_from(FREEFORM, [bare], 0, "f.toml") == [Event("add", {"name": "Ann", "stats": {}, "resources": {}}, 1)]


def test_an_event_numbered_below_its_place_is_refused() -> None:
    assert refused({"seq": 1, "kind": "note", "text": "a"}, 2) == "f.toml: events[2].seq: expected 3 (events are numbered in order), got 1"
    assert refused({"seq": 0, "kind": "note", "text": "a"}, 1) == "f.toml: events[1].seq: expected 2 (events are numbered in order), got 0"
