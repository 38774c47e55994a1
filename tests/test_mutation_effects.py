"""Direct tests of tracker.engine.effects: what a resolution does to the fight, as plain
data, and how it is stored. Expected values are worked from the module and class
docstrings: each effect's timing ("initiate" for costs paid up front, "complete"
otherwise), a stored effect read back as it was written (a lead of 0 and empty rises
left out; rises as [segment, amount] pairs, segments rising), a blow with no record or
at a target gone lands as a note, and a Resolution is final and built as an ordinary
frozen one."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace
from typing import Any

import pytest

from tracker.engine import effects as fx
from tracker.engine.effects import (COMPLETE, EFFECT_TYPES, INITIATE, JUDGES, Adjust, Blow, Condition, Damage, Note, Resolution,
                                    Throwback, Upkeep, effect_from_dict, effect_to_dict, landing, register_judge)


def test_each_effect_has_its_kind_and_timing() -> None:
    assert (INITIATE, COMPLETE) == ("initiate", "complete")
    assert EFFECT_TYPES == {"damage": Damage, "adjust": Adjust, "throwback": Throwback, "condition": Condition,
                            "upkeep": Upkeep, "note": Note, "blow": Blow}
    assert Damage("Ann", 3, "hp") == Damage("Ann", 3, "hp", "", COMPLETE, 0)
    assert Adjust("Ann", "ep", -2) == Adjust("Ann", "ep", -2, "", INITIATE)
    assert Throwback("Ann", 2.0, 1.0, 3) == Throwback("Ann", 2.0, 1.0, 3, COMPLETE, 0)
    assert Condition("Ann", "dazed", 4) == Condition("Ann", "dazed", 4, COMPLETE, 0)
    assert Upkeep("Ann", "flight", "ep", 2) == Upkeep("Ann", "flight", "ep", 2, COMPLETE, ())
    assert Blow("Ann") == Blow("Ann", 0, COMPLETE, 0)
    assert Note("x").timing == COMPLETE


def test_a_judge_is_registered_by_name() -> None:
    def judge(enc: Any, action: Any, blow: Blow) -> list[fx.Effect]:
        return []
    register_judge("test-mutation-effects", judge)
    assert JUDGES["test-mutation-effects"] is judge


def test_a_blow_lands_on_its_record_and_its_target_as_it_stands() -> None:
    enc = SimpleNamespace(combatants={"Bo": "Bo's state"})
    action = SimpleNamespace(actor="Ann", template="sweep")
    hits = ["first", "second"]
    assert landing(enc, action, Blow("Bo", 0), hits) == ("first", "Bo's state")
    assert landing(enc, action, Blow("Bo", 1), hits) == ("second", "Bo's state")
    for index in (2, -1, True, False, 1.0, "0", None):
        assert landing(enc, action, Blow("Bo", index), hits) == [Note("Ann's sweep: no record of its blow on Bo")], index  # type: ignore[arg-type]
    assert landing(enc, action, Blow("Bo", 0), []) == [Note("Ann's sweep: no record of its blow on Bo")]
    assert landing(enc, action, Blow("Cy", 1), hits) == [Note("Ann's sweep at Cy lapses: not in the fight")]


def test_an_effect_is_stored_with_its_kind_and_without_a_lead_of_zero_or_empty_rises() -> None:
    assert effect_to_dict(Damage("Ann", 3, "hp")) == {"kind": "damage", "target": "Ann", "amount": 3, "resource": "hp",
                                                      "overflow": "", "timing": "complete"}
    assert effect_to_dict(Damage("Ann", 3, "hp", lead=2))["lead"] == 2
    assert effect_to_dict(Note("x")) == {"kind": "note", "text": "x", "timing": "complete"}
    assert effect_to_dict(Upkeep("Ann", "flight", "ep", 2)) == {"kind": "upkeep", "target": "Ann", "name": "flight",
                                                                "resource": "ep", "amount": 2, "timing": "complete"}
    assert effect_to_dict(Upkeep("Ann", "breath", "ep", 0, rises=((10, 1), (20, 2.5))))["rises"] == [[10, 1], [20, 2.5]]


def test_every_effect_reads_back_as_it_was_stored() -> None:
    for effect in (Damage("Ann", 3.5, "hp", "ep", lead=1), Adjust("Ann", "ep", -2, "paid"), Throwback("Ann", 2.5, 1.5, 3, lead=2),
                   Condition("Ann", "dazed", 4), Upkeep("Ann", "breath", "ep", 0, rises=((10, 1), (20, 2))), Note("x"), Blow("Bo", 2, lead=1),
                   Upkeep("Ann", "flight", "ep", 2)):
        assert effect_from_dict(effect_to_dict(effect)) == effect
    assert effect_from_dict({"kind": "blow", "target": "Bo"}) == Blow("Bo")
    assert effect_from_dict({"kind": "upkeep", "target": "A", "name": "n", "resource": "ep", "amount": 1, "rises": [[10, 2]]}) == Upkeep(
        "A", "n", "ep", 1, rises=((10, 2),))


def test_a_stored_effect_of_no_known_kind_or_with_a_stray_key_is_refused() -> None:
    with pytest.raises(ValueError) as e:
        effect_from_dict({"kind": "heal", "target": "Ann"})
    assert str(e.value) == "kind: expected one of damage, adjust, throwback, condition, upkeep, note, blow, got 'heal'"
    with pytest.raises(ValueError) as e:
        effect_from_dict({"target": "Ann"})
    assert str(e.value) == "kind: expected one of damage, adjust, throwback, condition, upkeep, note, blow, got None"
    for _ in range(2):  # the second time from the known keys already worked out
        with pytest.raises(ValueError) as e:
            effect_from_dict({"kind": "note", "text": "x", "zz": 1, "target": "Ann"})
        assert str(e.value) == "unexpected key 'target' for a note effect"
    with pytest.raises(TypeError):
        effect_from_dict({"kind": "damage", "target": "Ann"})


def test_stored_rises_are_pairs_with_the_segments_rising() -> None:
    def read(rises: Any) -> Any:
        made = effect_from_dict({"kind": "upkeep", "target": "A", "name": "n", "resource": "ep", "amount": 0, "rises": rises})
        assert isinstance(made, Upkeep)
        return made.rises
    assert read([[10, 1], [20, 2.5], (30, 3)]) == ((10, 1), (20, 2.5), (30, 3))
    assert read([]) == ()
    for bad in ([[10, 1], [10, 2]], [[20, 1], [10, 2]], [[10]], [[10, 1, 2]], [["10", 1]], [[True, 1]], [[10.0, 1]],
                [[10, True]], [[10, "1"]], [[10, None]], 7, [7], "ab", [None]):
        with pytest.raises(ValueError) as e:
            read(bad)
        assert str(e.value) == f"rises: expected [segment, amount] pairs with the segments rising, got {bad!r}", bad


def test_a_resolution_stores_only_what_it_holds() -> None:
    assert Resolution(pt=3).to_dict() == {"pt": 3}
    full = Resolution(pt=4, success=False, margin=0, dice=(3, 5), summary="missed", effects=(Note("x"), Damage("Bo", 1, "hp")),
                      order=(2, 1), details={"judge": "j"})
    assert full.to_dict() == {"pt": 4, "success": False, "margin": 0, "dice": [3, 5], "summary": "missed",
                              "effects": [{"kind": "note", "text": "x", "timing": "complete"},
                                          {"kind": "damage", "target": "Bo", "amount": 1, "resource": "hp", "overflow": "", "timing": "complete"}],
                              "order": [2, 1], "details": {"judge": "j"}}
    assert Resolution.from_dict(full.to_dict()) == full
    assert Resolution.from_dict({"pt": 2}) == Resolution(2)
    assert Resolution.from_dict({"pt": 2, "effects": []}).effects == ()
    read = Resolution.from_dict({"pt": 2, "details": (d := {"a": 1})})
    assert read.details == d and read.details is not d


def test_a_resolution_is_an_ordinary_frozen_one_with_the_dataclass_defaults() -> None:
    made = Resolution(5)
    assert type(made) is Resolution
    assert (made.pt, made.success, made.margin, made.dice, made.summary, made.effects, made.order, made.details) == (
        5, None, None, (), "", (), (), {})
    assert made == Resolution(pt=5) and hash(dataclasses.astuple(made)[:7]) == hash(dataclasses.astuple(Resolution(5))[:7])
    assert Resolution(5).details is not Resolution(5).details
    details = {"judge": "j"}
    assert Resolution(5, details=details).details is details
    assert Resolution(5, True, 2, (1,), "s", (Note("n"),), (1,), None).details == {}  # type: ignore[arg-type]
    assert Resolution(5, True, 2, (1,), "s", (Note("n"),), (1,), {"a": 1}) == Resolution(
        pt=5, success=True, margin=2, dice=(1,), summary="s", effects=(Note("n"),), order=(1,), details={"a": 1})
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.pt = 6  # type: ignore[misc]
    with pytest.raises(TypeError) as e:
        type("Mine", (Resolution,), {})
    assert str(e.value) == "Resolution is final: a game's own figures go in its `details`"
