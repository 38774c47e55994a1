"""The adapter contract: registry by entry point, dice sources, tables with GM overrides,
fields, and the base class (`rulesets/base.py`) as the one place a hook is declared."""

from __future__ import annotations

import math
import re
import sys
import types
from collections.abc import Mapping
from importlib.metadata import EntryPoint
from pathlib import Path
from typing import Any

import pytest

from tracker.engine import ACTIVE, Encounter, Resolution, Setup, TimeMapping, TrackerError
from tracker.engine.effects import JUDGES, Blow
from rulesets import registry
from rulesets.base import ActionRequest, ActionTemplate, Ruleset, check_details
from rulesets.dice import DiceSource, NotEnoughFaces, RandomDice, Recorder, TypedFaces, parse_faces, source_for
from rulesets.fields import Field, FieldError, coerce_all
from rulesets.freeform import FreeformRuleset
from rulesets.tables import load_tables


def test_a_third_party_game_is_found_through_the_entry_point_group(monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType("kitchen_sink_rpg")

    class KitchenSink(FreeformRuleset):
        id = "kitchen"
        name = "Kitchen Sink"
        description = "a third-party game"

    module.KitchenSink = KitchenSink  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "kitchen_sink_rpg", module)
    point = EntryPoint("kitchen", "kitchen_sink_rpg:KitchenSink", registry.GROUP)
    monkeypatch.setattr(registry, "entry_points", lambda group: [point] if group == registry.GROUP else [])
    registry.forget()
    try:
        assert registry.get("kitchen").name == "Kitchen Sink"
        assert "freeform" in registry.available()
    finally:
        registry.forget()


def test_unknown_ruleset_lists_the_known_ones() -> None:
    with pytest.raises(TrackerError, match="known: .*freeform"):
        registry.get("chess")


def test_seeded_dice_repeat_and_typed_faces_are_checked() -> None:
    a, b = RandomDice(7), RandomDice(7)
    assert [a.roll(10) for _ in range(20)] == [b.roll(10) for _ in range(20)]
    typed = TypedFaces([3, 10])
    assert typed.roll(10) == 3
    with pytest.raises(TrackerError, match="d6; 10 is not one of its faces"):
        typed.roll(6)
    typed.roll(10)
    with pytest.raises(NotEnoughFaces, match="more dice than the 2 typed"):
        typed.roll(10)
    recorder = Recorder(TypedFaces([4, 5]))
    recorder.roll(6), recorder.roll(6)
    assert recorder.faces == [4, 5]
    assert parse_faces("1, 2,3") == [1, 2, 3]
    with pytest.raises(TrackerError, match="entry 2"):
        parse_faces("1,x")
    assert isinstance(source_for(None, 3), RandomDice)
    assert isinstance(source_for("2,2"), TypedFaces)


def test_tables_are_overridden_row_by_row(tmp_path: Path) -> None:
    shipped = tmp_path / "tables.toml"
    shipped.write_text('[sphere]\n"1" = 1\n"2" = 2\n[note]\ntext = "shipped"\n')
    house = tmp_path / "house.toml"
    house.write_text('[sphere]\n"2" = 3\n')
    tables = load_tables(shipped, house)
    assert tables["sphere"] == {"1": 1, "2": 3}
    assert tables["note"]["text"] == "shipped"
    house.write_text("[sphere\n")
    with pytest.raises(TrackerError, match="house.toml: not valid TOML"):
        load_tables(shipped, house)


def test_fields_validate_with_named_messages() -> None:
    agility = Field("agility", "int", 10, minimum=0, maximum=100)
    assert agility.coerce("22") == 22
    with pytest.raises(FieldError, match=r"sheet.agility: expected an integer from 0 to 100, got '200'"):
        coerce_all((agility,), {"agility": "200"}, "sheet")
    with pytest.raises(FieldError, match="one of the known keys"):
        coerce_all((agility,), {"agilty": "3"}, "sheet")
    assert coerce_all((agility,), {}, "sheet") == {"agility": 10}
    assert Field("flag", "bool").coerce("yes") is True
    with pytest.raises(FieldError):
        Field("mode", "choice", choices=("a", "b")).coerce("c")


def test_freeform_states_outcomes() -> None:
    from tracker.engine import Encounter, Setup
    from tracker.play.session import Session

    ff = FreeformRuleset()
    enc = Encounter(Setup("t", "freeform", ff.time, ff.down_when))
    session = Session(enc, ff, RandomDice(1))
    session.execute("add Ann hp=5")
    session.execute("add Bo")
    assert enc.combatants["Bo"].resources == {"hp": 10}
    session.execute("declare Ann anything target=Bo pt=3 damage=4 note='a wild swing'")
    session.execute("declare Bo hide mode=passive")
    assert enc.actions[1].mode == "passive" and enc.actions[1].pt == 10
    session.execute("next")
    assert enc.combatants["Bo"].resources["hp"] == 6
    assert any(e.text == "a wild swing" for e in enc.log)
    with pytest.raises(TrackerError, match="faces: 1 typed but the roll used 0"):
        session.execute("declare Ann look pt=2 faces=4")


# -- the base class is the contract ---------------------------------------------------
ROOT = Path(__file__).resolve().parent.parent
# Brand X's own command (`tracker chart`) asks its adapter for a chart; no other game has one.
GAME_OWN = {"chart_lookup"}


def test_every_hook_the_tracker_calls_is_declared_on_the_base_class() -> None:
    """Whatever the tracker asks of a ruleset (`ruleset.X`, `getattr(ruleset, "X")`) is
    declared on `Ruleset`, so the base class is the whole list of hooks."""
    asked: dict[str, str] = {}
    for path in sorted((ROOT / "tracker").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for name in re.findall(r"\bruleset\.([a-z_]+)\b", text) + re.findall(r"getattr\([\w.]*ruleset, \"(\w+)\"", text):
            asked.setdefault(name, str(path.relative_to(ROOT)))
    assert {"resolve", "after_roll", "after_roll_defaults", "chance_of", "damage_rule"} <= set(asked)  # the scan sees them
    undeclared = {name: where for name, where in asked.items() if name not in GAME_OWN and not hasattr(Ruleset, name) and name not in Ruleset.__annotations__}
    assert not undeclared, f"asked of a ruleset but not declared on rulesets.base.Ruleset: {undeclared}"
    for name in asked.keys() - GAME_OWN:
        hook = getattr(Ruleset, name, None)
        if callable(hook) or isinstance(hook, property):
            assert hook.__doc__, f"Ruleset.{name} has no docstring"


class _Clock(Ruleset):
    """An adapter that never looks for a typed PT: it reads the one it is given."""

    id = "clock"
    name = "Clock"
    description = "tests only"
    time = TimeMapping(segments_per_round=10)
    _CATALOGUE = {"wait": ActionTemplate("wait", ACTIVE, 5, maintainable=True)}

    def catalogue(self) -> Mapping[str, ActionTemplate]:
        return self._CATALOGUE

    def default_pt(self, request: ActionRequest) -> int:
        return 10 - request.segment % 10  # to the end of the round

    def resolve(self, request: ActionRequest, dice: DiceSource) -> Resolution:
        return Resolution(request.performance_time, summary=f"waits {request.performance_time}")

    maintain = resolve


class _Later(_Clock):
    """A subclass that adds to its parent's resolve: the PT is filled once, the same."""

    def resolve(self, request: ActionRequest, dice: DiceSource) -> Resolution:
        done = super().resolve(request, dice)
        return Resolution(done.pt, summary=done.summary + " (later)")


def _request(ruleset: Ruleset, pt: int | None, segment: int = 3) -> ActionRequest:
    from tracker.engine import Combatant

    return ActionRequest(ruleset.template("wait"), Combatant("Ann", {}, {}, {}), segment=segment, pt=pt)


@pytest.mark.parametrize("adapter", [_Clock, _Later])
def test_a_typed_pt_is_honoured_for_an_adapter_that_never_looks_for_one(adapter: type[Ruleset]) -> None:
    """The GM's `pt=` is the PT; with none, the adapter's `default_pt` (here: to the end
    of the round, 10 - 3 = 7 segments on segment 3). For `resolve` and `maintain` alike."""
    ruleset = adapter()
    for hook in (ruleset.resolve, ruleset.maintain):
        assert hook(_request(ruleset, None), RandomDice(1)).pt == 7
        assert hook(_request(ruleset, 4), RandomDice(1)).pt == 4
        assert hook(_request(ruleset, None, segment=10), RandomDice(1)).pt == 10
    assert ruleset.resolve(_request(ruleset, 4), RandomDice(1)).summary.startswith("waits 4")
    with pytest.raises(TrackerError, match="no performance time"):
        _ = _request(ruleset, None).performance_time  # outside resolve/maintain nothing fills it


def test_a_typed_pt_through_a_session_and_the_default_without_one() -> None:
    from tracker.play.session import Session

    clock = _Clock()
    session = Session(Encounter(Setup("t", "clock", clock.time)), clock, RandomDice(1))
    session.execute("add Ann")
    session.execute("add Bo")
    session.execute("step 3")
    session.execute("declare Ann wait")
    session.execute("declare Bo wait pt=2")
    assert [a.pt for a in session.encounter.actions] == [7, 2]


def test_judges_declared_on_a_class_are_registered_by_name() -> None:
    def judge(encounter: Any, action: Any, blow: Blow) -> list[Any]:
        return []

    class Judged(_Clock):
        judges = {"contract.test-judge": judge}

    try:
        assert JUDGES["contract.test-judge"] is judge
        assert Judged.judges["contract.test-judge"] is judge
    finally:
        JUDGES.pop("contract.test-judge", None)


def test_details_hold_only_what_a_save_holds_as_it_is() -> None:
    check_details({"total": 14, "q": -2, "ratio": 0.5, "hit": True, "who": "Bo", "hits": [{"faces": [1, 2]}], "none": []})
    for bad, named in (
        ({"reach": None}, "details.reach: None"),
        ({"hits": [{"faces": (1, 2)}]}, r"details.hits\[0\].faces: \(1, 2\)"),
        ({"x": math.nan}, "details.x: nan"),
        ({"big": 2**64}, "details.big: 18446744073709551616"),
        ({"t": {1: "a"}}, "details.t: key 1"),
        ({"s": {"a"}}, "details.s: {'a'}"),
    ):
        with pytest.raises(TrackerError, match=named):
            check_details(bad)
