"""Direct tests of tracker.engine.kinds, each written for a mutant that survived the rule
tests; expected values are worked from the module's docstring, the decision records and
the user guide."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tracker.engine import kinds
from tracker.engine.kinds import GM_ONLY, NOT_SECRET, OWN_ACTOR, OWN_LAST, OWN_PROPOSAL, counted, describe_args, fmt, guard_of, refused_as
from rulesets.freeform import FreeformRuleset
from tracker.engine import Event
from tracker.persistence.checks import SaveError
from tracker.persistence.event_tables import events_text, read_event, read_event_checked
from tests.test_engine_kinds import WORDS

FREEFORM = FreeformRuleset()


def test_a_number_is_written_with_its_noun_as_a_person_writes_it() -> None:
    """`counted`'s docstring: '1 fight', '2 fights', '0.5 hours'."""
    assert counted(1, "fight") == "1 fight"
    assert counted(2, "fight") == "2 fights"
    assert counted(0.5, "hour") == "0.5 hours"
    assert counted(1.0, "round") == "1 round"


def test_a_value_is_said_as_a_sheet_says_it() -> None:
    """`fmt`'s docstring: 2.5, 3, "x" (floats without a trailing .0), yes or no."""
    assert fmt(2.5) == "2.5" and fmt(3.0) == "3" and fmt(3) == "3" and fmt("x") == "x"
    assert fmt(True) == "yes" and fmt(False) == "no"


@pytest.mark.parametrize("kind", list(WORDS))
def test_each_kinds_row_says_the_words_it_always_had(kind: str) -> None:
    for args, words in WORDS[kind]:
        assert describe_args(kind, args) == words
    assert describe_args("shout", {}) == "shout" and describe_args(5, {}) == 5


def test_damage_on_several_and_a_proposal_of_each_action_are_worded() -> None:
    assert describe_args("damage", {"target": "Ann", "amount": 3, "resource": "hp", "also": ["Bo", {"target": "Cy"}, {}]}) == "Ann, Bo, Cy, ? takes 3 hp"
    assert describe_args("damage", {"target": "Ann", "amount": 0, "resource": "hp"}) == "Ann takes 0 hp"
    assert describe_args("damage", {"target": "Ann", "amount": "lots", "resource": "hp"}) == "Ann takes lots hp"
    assert describe_args("add", {}) == "? joins the fight"
    assert describe_args("propose", {"actor": "Ann", "template": "punch", "targets": ["Bo"]}) == "proposal: Ann declares punch against Bo"
    assert describe_args("propose", {"action": "maintain", "actor": "Ann"}) == "proposal: Ann maintains the attack"
    assert describe_args("refuse", {"target": 3, "reason": ""}) == "the GM refuses proposal 3"


def test_each_kind_is_guarded_as_the_module_docstring_says() -> None:
    """A player declares, maintains and aborts for their own combatant, and proposes for
    one (OWN_ACTOR); withdraws their own proposal; undoes or redoes their own latest
    change; rolls in the open; the GM alone makes every other change."""
    player = {"declare": OWN_ACTOR, "maintain": OWN_ACTOR, "abort": OWN_ACTOR, "propose": OWN_ACTOR,
              "withdraw": OWN_PROPOSAL, "undo": OWN_LAST, "redo": OWN_LAST, "roll": NOT_SECRET}
    assert {kind: guard_of(kind) for kind in kinds.KINDS} == {kind: player.get(kind, GM_ONLY) for kind in kinds.KINDS}


def test_an_unknown_kind_of_any_value_is_said_as_itself() -> None:
    """`describe_args`: the kind itself if unknown, whatever it is (a table is no kind)."""
    assert describe_args(["declare"], {}) == ["declare"]
    assert describe_args({"kind": "add"}, {}) == {"kind": "add"}


def test_a_refusal_names_a_kind_by_its_rows_words_else_by_its_name() -> None:
    assert refused_as("advance") == "moving time (next, step)"
    assert refused_as("damage") == "damage"  # no words of its own
    assert refused_as("library") == "library"  # not an event
    assert guard_of("declare") == OWN_ACTOR and guard_of("withdraw") == OWN_PROPOSAL
    assert guard_of("undo") == OWN_LAST and guard_of("roll") == NOT_SECRET
    assert guard_of("damage") == GM_ONLY and guard_of("library") == GM_ONLY
    assert kinds.KINDS["rename"].rewrites_history


# ------------------------------------------------------------------ the arguments column, as a save reads it
# One event of every kind with every argument it may carry, as the app writes them
# (a declaration's resolution, a damage on several, a proposal's faces...); each kind's
# required arguments are those the change means nothing without: who or what it is
# about, and what it does (a declaration's template, mode and resolution; a damage's
# amount and resource). Everything else may be left out, as the app leaves out what
# was not given (no targets, no params, no reason).
_RESOLUTION = {"pt": 3}
_FULL: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "add": ({"name": "Ann", "stats": {"str": 3}, "resources": {"hp": 20}, "side": "red", "hidden": True, "surprised_until": 4,
             "names": ["Ann"], "pc": "pc-1", "current": {"hp": 18}, "conditions": {"dazed": 5}}, ("name",)),
    "remove": ({"name": "Ann"}, ("name",)),
    "declare": ({"actor": "Ann", "template": "punch", "mode": "active", "targets": ["Bo"], "companions": ["Cy"], "maintainable": True,
                 "secret": True, "chance": "1/2", "resolution": _RESOLUTION, "dice": "typed", "params": {"damage": 3}, "pt": 3, "draw": 2},
                ("actor", "template", "mode", "resolution")),
    "maintain": ({"actor": "Ann", "targets": ["Bo"], "chance": "1/3", "resolution": _RESOLUTION, "dice": "app", "params": {"damage": 3},
                  "pt": 3, "draw": 1}, ("actor", "resolution")),
    "abort": ({"actor": "Ann", "template": "punch"}, ("actor",)),
    "damage": ({"target": "Ann", "amount": 4, "resource": "hp", "overflow": "wounds", "also": [{"target": "Bo", "resource": "hp"}]},
               ("target", "amount", "resource")),
    "set": ({"target": "Ann", "key": "hp", "value": 7, "stat": False}, ("target", "key", "value")),
    "advance": ({"to": 12}, ("to",)),
    "condition": ({"target": "Ann", "name": "dazed", "duration": 3, "also": ["Bo"]}, ("target", "name", "duration")),
    "schedule": ({"at": 40, "text": "the bridge falls"}, ("at", "text")),
    "surprise": ({"target": "Ann", "until": 9}, ("target", "until")),
    "hide": ({"target": "Ann", "hidden": False}, ("target",)),
    "reroll": ({"target": "Ann"}, ("target",)),
    "keep": ({"target": "Ann"}, ("target",)),
    "note": ({"text": "rain", "about": ["Ann"]}, ("text",)),
    "roll": ({"spec": "2d10", "dice": [3, 4], "text": "2d10: 3 4 = 7", "secret": True}, ("spec", "dice", "text")),
    "rename": ({"target": "Ann", "name": "Anna"}, ("target", "name")),
    "side": ({"target": "Ann", "side": "red"}, ("target", "side")),
    "reorder": ({"target": "Ann", "position": 2}, ("target", "position")),
    "undo": ({"target": 4}, ("target",)),
    "redo": ({"target": 4}, ("target",)),
    "propose": ({"action": "declare", "actor": "Ann", "params": {"damage": 3}, "pt": 3, "template": "punch", "mode": "active",
                 "targets": ["Bo"], "companions": ["Cy"], "maintainable": True, "secret": False, "chance": "1/2", "resolution": _RESOLUTION,
                 "dice": "typed+app", "draw": 1, "faces": [3, 4]}, ("action",)),
    "approve": ({"target": 3, "actor": "Ann", "params": {"damage": 3}, "pt": 3, "template": "punch", "mode": "passive",
                 "targets": ["Bo"], "companions": ["Cy"], "maintainable": False, "secret": True, "chance": "0/1", "resolution": _RESOLUTION,
                 "dice": "typed", "draw": 1, "faces": [1]}, ("target",)),
    "refuse": ({"target": 3, "reason": "too far"}, ("target",)),
    "withdraw": ({"target": 3}, ("target",)),
    "end": ({"campaign": "The Long Road", "outcome": "won"}, ("campaign",)),
    "setting": ({"key": "player_declarations", "value": "approval"}, ("key", "value")),
}


def _read(kind: str, args: dict[str, Any]) -> dict[str, Any]:
    """The event as a save holds it (written as the app writes it, parsed), read back by
    both readers, which must agree; its arguments."""
    import tomllib

    text = events_text([Event(kind, copy.deepcopy(args), 1, "gm")])
    raw = tomllib.loads(text)["events"][0]
    checked = read_event_checked(FREEFORM, copy.deepcopy(raw), 0, "f.toml: events[0]")
    fast = read_event(FREEFORM, copy.deepcopy(raw), 0, "f.toml")
    assert (fast.kind, fast.seq, fast.by) == (checked.kind, checked.seq, checked.by) == (kind, 1, "gm")
    assert fast.args == checked.args
    return checked.args


def test_the_table_names_every_kind_the_save_holds() -> None:
    assert sorted(kinds.KINDS) == sorted(_FULL)


@pytest.mark.parametrize("kind", sorted(_FULL))
def test_every_argument_a_kind_may_carry_is_read_back_from_a_save(kind: str) -> None:
    args, _ = _FULL[kind]
    back = _read(kind, args)
    assert sorted(back) == sorted(args)
    assert {k: v for k, v in back.items() if k != "resolution"} == {k: v for k, v in args.items() if k != "resolution"}


@pytest.mark.parametrize("kind", sorted(_FULL))
def test_a_kind_needs_only_its_required_arguments_and_refuses_an_event_without_one(kind: str) -> None:
    args, required = _FULL[kind]
    least = {k: v for k, v in args.items() if k in required}
    # Every other argument may be left out (an add's sheet is then the game's empty one).
    assert set(_read(kind, least)) - ({"stats", "resources"} if kind == "add" else set()) == set(required)
    for key in required:
        raw = {"seq": 1, "kind": kind, **{k: v for k, v in least.items() if k != key}}
        with pytest.raises(SaveError, match=rf"^f\.toml: events\[0\] \(seq 1, {kind}\): missing key '{key}' "):
            read_event_checked(FREEFORM, raw, 0, "f.toml: events[0]")
        with pytest.raises(SaveError, match=rf"missing key '{key}' "):
            read_event(FREEFORM, copy.deepcopy(raw), 0, "f.toml")


@pytest.mark.parametrize("kind", sorted(_FULL))
def test_an_argument_of_the_wrong_shape_is_refused_by_name(kind: str) -> None:
    args, _ = _FULL[kind]
    for key in args:
        if key == "value":  # a setting's or a set's value may be anything
            continue
        raw = {"seq": 1, "kind": kind, **copy.deepcopy(args), key: object()}
        with pytest.raises(SaveError, match=rf"\(seq 1, {kind}\)\.{key}: expected "):
            read_event_checked(FREEFORM, raw, 0, "f.toml: events[0]")


def test_a_refused_roll_or_proposal_says_what_was_expected() -> None:
    """A bad save is refused naming the field and what was expected (the guide's standard):
    a roll's faces are whole numbers, a proposal stands for a declare, maintain or abort."""
    with pytest.raises(SaveError, match=r"\(seq 1, roll\)\.dice: expected a list of integers, got "):
        read_event_checked(FREEFORM, {"seq": 1, "kind": "roll", "spec": "d6", "dice": ["six"], "text": "d6: six"}, 0, "f.toml: events[0]")
    with pytest.raises(SaveError, match=r"\(seq 1, roll\): missing key 'dice' \(a list of integers\)$"):
        read_event_checked(FREEFORM, {"seq": 1, "kind": "roll", "spec": "d6", "text": "d6: 6"}, 0, "f.toml: events[0]")
    with pytest.raises(SaveError, match=r"\(seq 1, propose\)\.action: expected declare, maintain or abort, got "):
        read_event_checked(FREEFORM, {"seq": 1, "kind": "propose", "action": "damage"}, 0, "f.toml: events[0]")
