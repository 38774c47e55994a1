"""Direct tests of `rulesets/base.py`, the `Ruleset` base class a game subclasses.

Expected values are worked from the module's docstrings and rulesets/README.md: the
defaults a game inherits (hooks that refuse by name, say nothing, or read the template),
the sheet split into stats and resources, the table's own settings beside the game's,
the `details` a save can hold, and the typed PT the base class hands `resolve`/`maintain`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pytest

from rulesets.base import (
    ActionRequest,
    ActionTemplate,
    ManualDamage,
    RollResult,
    Ruleset,
    check_details,
)
from rulesets.dice import DiceSource, RandomDice
from rulesets.fields import AFTER_ROLL, MAIN, PARAM, RESOURCE, SETTING, STAT, Field, FieldError
from tracker.engine.effects import JUDGES, Effect, Resolution
from tracker.engine.errors import TrackerError
from tracker.engine.model import ACTIVE, Combatant


def _judge(encounter: Any, action: Any, blow: Any) -> list[Effect]:
    return []


class _Game(Ruleset):
    """A small game: two stats, two resources, one setting, two actions."""

    id = "tinygame"
    name = "Tiny Game"
    description = "for the base class's tests"
    sheet = (
        Field("str", "int", 3, minimum=1, maximum=6, role=STAT),
        Field("hp", "int", 10, minimum=0, role=RESOURCE),
        Field("dex", "int", 2, role=STAT),
        Field("mp", "float", 4.0, role=RESOURCE),
    )
    settings = (Field("lethal", "bool", False, role=SETTING),)
    down_when = ("hp",)
    judges = {"tinygame.blow": _judge}

    CATALOGUE = {
        "Strike": ActionTemplate("Strike", pt=7, targets=1, maintainable=False, params=(
            Field("bonus", "int", 0, role=PARAM),
            Field("aim", "int", 1, role=PARAM, stage=AFTER_ROLL),
        )),
        "Guard": ActionTemplate("Guard", mode="passive", pt=4, maintainable=True),
    }

    def catalogue(self) -> Mapping[str, ActionTemplate]:
        return self.CATALOGUE

    def resolve(self, request: ActionRequest, dice: DiceSource) -> Resolution:
        return Resolution(pt=request.performance_time, summary="done")


class _Unmaintained(_Game):
    CATALOGUE = {"Strike": _Game.CATALOGUE["Strike"]}


def _fighter(resources: dict[str, int | float] | None = None, name: str = "Ada") -> Combatant:
    res = {"hp": 10, "mp": 4} if resources is None else resources
    return Combatant(name, {}, dict(res), dict(res))


def _request(template: ActionTemplate, **kw: Any) -> ActionRequest:
    return ActionRequest(template, _fighter(), **kw)


# -- details a save can hold ------------------------------------------------------------

def test_check_details_accepts_what_toml_holds() -> None:
    check_details({"a": "text", "b": True, "c": 2**63 - 1, "d": -(2**63), "e": 1.5,
                   "f": [1, "x", [False]], "g": {"h": {"i": 0.0}}})


@pytest.mark.parametrize(("details", "message"), [
    ({"a": None}, "details.a: None cannot be saved (a NoneType; details hold text, numbers, truth values, lists and tables)"),
    ({"hits": [{"attack": None}]}, "details.hits[0].attack: None cannot be saved"),
    ({"hits": [1, (2,)]}, "details.hits[1]: (2,) cannot be saved (a tuple;"),
    ({"big": 2**63}, f"details.big: {2**63} cannot be saved (integers must fit 64 bits)"),
    ({"x": {"y": math.inf}}, "details.x.y: inf cannot be saved (numbers must be finite)"),
    ({"x": math.nan}, "details.x: nan cannot be saved (numbers must be finite)"),
    ({"x": {3: "a"}}, "details.x: key 3 cannot be saved (keys are text)"),
])
def test_check_details_names_the_key_and_why(details: dict[str, Any], message: str) -> None:
    with pytest.raises(TrackerError) as caught:
        check_details(details)
    assert str(caught.value).startswith(message)


def test_check_details_names_its_place() -> None:
    with pytest.raises(TrackerError, match=r"^event 3\.q: None cannot be saved"):
        check_details({"q": None}, "event 3")
    # A list inside a list is walked too, by index.
    with pytest.raises(TrackerError, match=r"^details\.a\[1\]\[0\]: None"):
        check_details({"a": [[1], [None]]})


def test_check_details_bool_and_text_pass_before_numbers() -> None:
    # True is an int to Python; it must pass as a truth value, as must any text.
    check_details({"t": True, "f": False, "s": "", "long": "x" * 1000})


# -- the data classes ---------------------------------------------------------------------

def test_action_template_defaults() -> None:
    template = ActionTemplate("Wait")
    assert (template.mode, template.pt, template.description, template.rolls, template.cost) == (ACTIVE, 10, "", "", "")
    assert (template.companions, template.maintainable, template.targets, template.params) == ((), False, 0, ())


def test_action_request_defaults_and_performance_time() -> None:
    request = _request(ActionTemplate("Wait"))
    assert (request.targets, dict(request.params), request.segment, dict(request.settings)) == ((), {}, 0, {})
    assert (request.previous, request.pt, request.encounter, request.by_player) == (None, None, None, False)
    with pytest.raises(TrackerError, match=r"^Wait: no performance time \(a request not passed through Ruleset\.resolve\)$"):
        request.performance_time  # noqa: B018
    assert _request(ActionTemplate("Wait"), pt=0).performance_time == 0
    assert _request(ActionTemplate("Wait"), pt=13).performance_time == 13


def test_manual_damage_defaults() -> None:
    damage = ManualDamage("hp")
    assert (damage.resource, damage.overflow, damage.over_maximum) == ("hp", "", False)


def test_roll_result_json_keeps_its_order_and_fields() -> None:
    result = RollResult("tinygame", [3, 5], True, 2, "hit by 2", {"total": 8, "text": "ignored"})
    data = result.to_json()
    assert list(data) == ["ruleset", "dice", "success", "margin", "total", "text"]
    assert data == {"ruleset": "tinygame", "dice": [3, 5], "success": True, "margin": 2, "total": 8, "text": "hit by 2"}
    assert RollResult("g", [], None, None, "t").to_json() == {"ruleset": "g", "dice": [], "success": None, "margin": None, "text": "t"}


# -- the typed PT -------------------------------------------------------------------------

def test_resolve_receives_the_typed_pt_or_the_default() -> None:
    game = _Game()
    strike = game.template("Strike")
    assert game.resolve(_request(strike), RandomDice()).pt == 7  # the template's pt
    assert game.resolve(_request(strike, pt=2), RandomDice()).pt == 2  # typed wins
    assert game.resolve(_request(strike, pt=0), RandomDice()).pt == 0  # 0 is typed, not missing


def test_timed_wraps_once_and_keeps_the_name() -> None:
    # A subclass of a subclass inherits the wrapped hook: it is not wrapped again.
    assert _Unmaintained.resolve is _Game.resolve
    assert _Game.resolve.__name__ == "resolve"
    assert getattr(_Game.resolve, "_timed", False) is True

    class Again(_Game):
        resolve = _Game.resolve

    assert Again.resolve is _Game.resolve


def test_judges_are_registered_when_the_class_is_made() -> None:
    assert JUDGES["tinygame.blow"] is _judge


def test_maintain_is_refused_by_default_naming_the_game() -> None:
    game = _Game()
    with pytest.raises(TrackerError, match=r"^Tiny Game has no rule for maintaining Guard$"):
        game.maintain(_request(game.template("Guard")), RandomDice())


# -- the sheet ----------------------------------------------------------------------------

def test_stat_and_resource_fields_keep_the_sheet_order() -> None:
    game = _Game()
    assert [f.name for f in game.stat_fields()] == ["str", "dex"]
    assert [f.name for f in game.resource_fields()] == ["hp", "mp"]
    # Worked out once per sheet: asked again, the same tuple.
    assert game.stat_fields() is game.stat_fields()


def test_fields_follow_a_changed_sheet() -> None:
    game = _Game()
    assert [f.name for f in game.stat_fields()] == ["str", "dex"]
    game.__dict__["sheet"] = (Field("wis", "int", 1, role=STAT),)
    assert [f.name for f in game.stat_fields()] == ["wis"]
    assert game.resource_fields() == ()


def test_build_sheet_splits_and_fills_defaults() -> None:
    game = _Game()
    stats, resources = game.build_sheet({"str": "5", "hp": 12}, "roster.Ada")
    assert stats == {"str": 5, "dex": 2}
    assert resources == {"hp": 12, "mp": 4.0}
    with pytest.raises(FieldError, match=r"^roster\.Ada\.str: expected an integer from 1 to 6, got '9'$"):
        game.build_sheet({"str": "9"}, "roster.Ada")


def test_check_sheet_checks_stats_and_resource_names_and_types() -> None:
    game = _Game()
    # Stored resources may be below the field's minimum (damage taken); no defaults filled.
    stats, resources = game.check_sheet({"str": 4}, {"hp": -3, "mp": 1.5}, "save.Ada")
    assert stats == {"str": 4}
    assert resources == {"hp": -3, "mp": 1.5}
    with pytest.raises(FieldError, match=r"^save\.Ada\.stats\.str: expected an integer from 1 to 6, got 0$"):
        game.check_sheet({"str": 0}, {}, "save.Ada")
    with pytest.raises(FieldError, match=r"^save\.Ada\.resources\.sp: expected one of the known resources \(hp, mp\), got 'sp'$"):
        game.check_sheet({}, {"sp": 1}, "save.Ada")
    with pytest.raises(FieldError, match=r"^save\.Ada\.resources\.hp: expected a number, got True$"):
        game.check_sheet({}, {"hp": True}, "save.Ada")
    with pytest.raises(FieldError, match=r"^save\.Ada\.resources\.hp: expected a number, got '3'$"):
        game.check_sheet({}, {"hp": "3"}, "save.Ada")


def test_check_sheet_with_no_resources_says_none() -> None:
    game = _Game()
    game.__dict__["sheet"] = (Field("str", "int", 3, role=STAT),)
    with pytest.raises(FieldError, match=r"known resources \(none\), got 'hp'$"):
        game.check_sheet({}, {"hp": 1}, "save.Ada")


def test_validate_settings_accepts_the_tables_own_beside_the_games() -> None:
    game = _Game()
    assert game.validate_settings({}, "table") == {"lethal": False}
    checked = game.validate_settings({"lethal": "yes", "player_declarations": "approval",
                                      "viewer_resources": "label", "player_damage_cap": " 007 "}, "table")
    assert checked == {"lethal": True, "player_declarations": "approval", "viewer_resources": "label", "player_damage_cap": "7"}
    with pytest.raises(TrackerError, match=r"^table\.viewer_resources: expected one of exact, label, hidden, got 'all'$"):
        game.validate_settings({"viewer_resources": "all"}, "table")
    with pytest.raises(TrackerError, match=r"^table\.player_damage_cap: expected none or a whole number"):
        game.validate_settings({"player_damage_cap": "lots"}, "table")
    with pytest.raises(TrackerError, match=r"^table\.speed: expected one of the known keys"):
        game.validate_settings({"speed": 1}, "table")


# -- the catalogue ------------------------------------------------------------------------

def test_template_by_name_any_case_or_refused_listing_the_actions() -> None:
    game = _Game()
    assert game.template("Strike") is _Game.CATALOGUE["Strike"]
    assert game.template("gUARD") is _Game.CATALOGUE["Guard"]
    with pytest.raises(TrackerError, match=r"^tinygame has no action 'Dance' \(actions: Strike, Guard\)$"):
        game.template("Dance")


def test_params_checked_with_defaults_filled() -> None:
    game = _Game()
    strike = game.template("Strike")
    assert game.params(strike, {"bonus": "2"}) == {"bonus": 2, "aim": 1}
    with pytest.raises(FieldError, match=r"^declare\.bonus: expected an integer"):
        game.params(strike, {"bonus": "x"})
    with pytest.raises(FieldError, match=r"^script\.bonus: expected an integer"):
        game.params(strike, {"bonus": "x"}, "script")


def test_maintainable_and_maintains() -> None:
    game = _Game()
    assert game.maintainable(game.template("Guard"), {}) is True
    assert game.maintainable(game.template("Strike"), {}) is False
    assert game.maintains({}) is True
    assert _Unmaintained().maintains({}) is False


def test_the_quiet_defaults() -> None:
    game = _Game()
    request = _request(game.template("Strike"), pt=7)
    resolution = Resolution(pt=7)
    assert game.chance_of(request) is None
    assert game.chance_note(request) == ""
    assert game.after_roll(request, resolution) == ""
    assert dict(game.after_roll_defaults(request, resolution)) == {}
    assert [f.name for f in game.after_roll_fields(request)] == ["aim"]
    assert game.after_roll_fields(_request(game.template("Guard"))) == ()
    assert game.template("Strike").params[0].stage == MAIN
    assert game.chance_notes("2d6") == []


def test_command_line_checks_refuse_by_name() -> None:
    game = _Game()
    with pytest.raises(TrackerError, match=r"^tinygame has no dice to roll from the command line$"):
        game.roll("2d6", RandomDice())
    with pytest.raises(TrackerError, match=r"^tinygame has no dice, so no odds$"):
        game.chance("2d6")


# -- manual damage --------------------------------------------------------------------------

def test_damage_rule_lands_on_the_named_then_down_when_then_first() -> None:
    game = _Game()
    assert game.damage_rule(_fighter({"mp": 4, "hp": 10}), 3) == ManualDamage("hp")
    assert game.damage_rule(_fighter({"mp": 4, "hp": 10}), 3, "mp") == ManualDamage("mp")
    # No down_when resource: the first it has.
    assert game.damage_rule(_fighter({"sp": 2, "mp": 4}), 3) == ManualDamage("sp")
    with pytest.raises(TrackerError, match=r"^Ada has no resources to damage$"):
        game.damage_rule(_fighter({}), 3)
    with pytest.raises(TrackerError, match=r"^Ada has no resource 'sp' \(has: hp, mp\)$"):
        game.damage_rule(_fighter({"hp": 1, "mp": 1}), 3, "sp")
    with pytest.raises(TrackerError, match=r"^Ada has no resource 'sp' \(has: none\)$"):
        game.damage_rule(_fighter({}), 3, "sp")


def test_damage_rule_down_when_order_wins() -> None:
    game = _Game()
    game.__dict__["down_when"] = ("mp", "hp")
    assert game.damage_rule(_fighter({"hp": 10, "mp": 4}), 1).resource == "mp"
    assert game.damage_rule(_fighter({"hp": 10}), 1).resource == "hp"


# -- data tables ----------------------------------------------------------------------------

def test_no_tables_file_means_no_tables_and_check_builds_the_catalogue() -> None:
    game = _Game()
    assert game.tables == {}
    assert game.tables is game.tables  # read once
    assert game.house_rules is None
    calls: list[int] = []

    class Counting(_Game):
        def catalogue(self) -> Mapping[str, ActionTemplate]:
            calls.append(1)
            return super().catalogue()

    Counting().check_tables()
    assert calls == [1]


def test_tables_file_is_read_next_to_the_module_with_house_rows(tmp_path: Any) -> None:
    from rulesets.registry import get

    shipped = get("d6")
    assert shipped.tables_file is not None
    plain = type(shipped)()
    assert plain.tables  # the shipped file, next to the adapter's module
    first = next(iter(plain.tables))
    assert type(shipped)(house_rules={}).tables == plain.tables
    assert isinstance(first, str)



# -- what the class does when a game is made (classes made inside the tests, so the
# -- base class's `__init_subclass__` runs as each test runs) --------------------------

@pytest.fixture(autouse=True)
def _forget_made_judges() -> Any:
    # A game made in a test registers its judges; they leave with the test.
    yield
    JUDGES.pop("made.blow", None)
    JUDGES.pop("made.other", None)


def _made() -> tuple[type[Ruleset], list[int | None]]:
    seen: list[int | None] = []

    class Made(Ruleset):
        id = "made"
        name = "Made"
        description = "made in a test"
        judges = {"made.blow": _judge, "made.other": _judge}

        def catalogue(self) -> Mapping[str, ActionTemplate]:
            return {"Wait": ActionTemplate("Wait", pt=6, maintainable=True)}

        def resolve(self, request: ActionRequest, dice: DiceSource) -> Resolution:
            seen.append(request.pt)
            return Resolution(pt=request.performance_time)

        def maintain(self, request: ActionRequest, dice: DiceSource) -> Resolution:
            seen.append(request.pt)
            return Resolution(pt=request.performance_time)

    return Made, seen


def test_a_new_games_resolve_and_maintain_receive_the_pt_set() -> None:
    assert "made.blow" not in JUDGES
    made, seen = _made()
    game = made()
    wait = game.template("Wait")
    assert game.resolve(_request(wait), RandomDice()).pt == 6
    assert game.maintain(_request(wait), RandomDice()).pt == 6
    assert game.maintain(_request(wait, pt=3), RandomDice()).pt == 3
    assert seen == [6, 6, 3]
    assert getattr(made.resolve, "_timed", False) is True
    assert getattr(made.maintain, "_timed", False) is True
    # Both judges registered, each under its own name.
    assert JUDGES["made.blow"] is _judge
    assert JUDGES["made.other"] is _judge


def test_an_abstract_hook_is_left_abstract() -> None:
    from abc import abstractmethod

    class StillAbstract(Ruleset):
        id = "abstract"
        name = "Abstract"
        description = ""

        @abstractmethod
        def resolve(self, request: ActionRequest, dice: DiceSource) -> Resolution: ...

    assert getattr(StillAbstract.resolve, "__isabstractmethod__", False) is True
    assert not getattr(StillAbstract.resolve, "_timed", False)
    with pytest.raises(TypeError):
        StillAbstract()  # type: ignore[abstract]


def test_a_hook_already_timed_is_not_wrapped_again() -> None:
    made, _ = _made()

    class Again(made):  # type: ignore[valid-type, misc]
        resolve = made.resolve

    class Plain(made):  # type: ignore[valid-type, misc]
        """A subclass that defines no hook of its own: it inherits the one already timed."""

    assert Again.resolve is made.resolve
    assert Plain.resolve is made.resolve


# -- the remaining single behaviours ------------------------------------------------------

def test_check_details_checks_what_comes_after_text() -> None:
    # Text or a truth value met on the way does not end the walk.
    with pytest.raises(TrackerError, match=r"^details\.a: None"):
        check_details({"a": None, "b": "text"})
    with pytest.raises(TrackerError, match=r"^details\.a: None"):
        check_details({"a": None, "b": True})


def test_template_exact_name_wins_over_its_folded_twin() -> None:
    lower, upper = ActionTemplate("aim", pt=1), ActionTemplate("Aim", pt=2)

    class Twins(_Game):
        def catalogue(self) -> Mapping[str, ActionTemplate]:
            return {"aim": lower, "Aim": upper}

    assert Twins().template("aim") is lower
    assert Twins().template("Aim") is upper


def test_maintains_asks_with_the_tables_settings() -> None:
    class BySetting(_Game):
        def maintainable(self, template: ActionTemplate, settings: Mapping[str, Any]) -> bool:
            return bool(settings.get("lethal"))

    assert BySetting().maintains({"lethal": True}) is True
    assert BySetting().maintains({"lethal": False}) is False


def test_a_choice_setting_refuses_a_list_as_one_of_its_choices() -> None:
    with pytest.raises(FieldError, match=r"^table\.viewer_resources: expected one of exact, label, hidden, got \['exact'\]$"):
        _Game().validate_settings({"viewer_resources": ["exact"]}, "table")
    with pytest.raises(FieldError, match=r"^table\.player_damage_cap: expected text, got \[3\]$"):
        _Game().validate_settings({"player_damage_cap": [3]}, "table")


def _game_with_tables(tmp_path: Any, monkeypatch: pytest.MonkeyPatch, house: Any) -> Ruleset:
    import sys
    import types

    (tmp_path / "tables.toml").write_text("[speed]\nwalk = 3\nrun = 6\n", encoding="utf-8")
    module = types.ModuleType("tiny_tables_game")
    module.__file__ = str(tmp_path / "__init__.py")
    monkeypatch.setitem(sys.modules, "tiny_tables_game", module)

    class WithTables(_Game):
        tables_file = "tables.toml"

    WithTables.__module__ = "tiny_tables_game"
    return WithTables(house_rules=house)


def test_tables_read_next_to_the_module_with_the_gms_rows_over_them(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _game_with_tables(tmp_path, monkeypatch, None).tables == {"speed": {"walk": 3, "run": 6}}
    game = _game_with_tables(tmp_path, monkeypatch, {"speed": {"run": 8}})
    assert game.house_rules == {"speed": {"run": 8}}
    assert game.tables == {"speed": {"walk": 3, "run": 8}}


def test_check_tables_refuses_a_bad_house_file(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    game = _game_with_tables(tmp_path, monkeypatch, {"sped": {"run": 8}})
    with pytest.raises(TrackerError, match=r"^\[sped\]: expected one of the tables speed"):
        game.check_tables()
