"""Games installed beside the tracker's own: another game never breaks the tracker, and
one that cannot be loaded says why.

- An extra game registered through the `tracker.rulesets` entry points (monkeypatched,
  as an installed package's would be) passes the shipped contract suite, and the
  tracker's own games pass theirs with it installed.
- A plugin whose import fails (a missing dependency), whose entry point names no
  `Ruleset`, or one with another `id`, is listed by `tracker rulesets` with its error;
  opening a save of that game says why it cannot open, not "unknown ruleset".
"""

from __future__ import annotations

import json
import sys
import types
from collections.abc import Iterator, Mapping
from fractions import Fraction
from importlib.metadata import EntryPoint
from pathlib import Path
from typing import Any

import pytest

import tests.test_conformance as conformance
from rulesets import registry
from rulesets.base import ActionRequest, ActionTemplate, RollResult, Ruleset
from rulesets.dice import DiceSource, roll_group
from rulesets.fields import RESOURCE, Field
from tracker.testing import RulesetContract
from tracker.engine import ACTIVE, Damage, Resolution, TimeMapping, TrackerError
from tracker.persistence.store import EncounterFile
from tests.helpers import cli


class Kitchen(Ruleset):
    """A third party's game: a d6 against 4, a hit costs 1 crumb."""

    id = "kitchen"
    name = "Kitchen"
    description = "a d6 against 4 (a third-party game in a test)"
    time = TimeMapping(segments_per_round=4)
    sheet = (Field("crumbs", "int", 3, minimum=1, role=RESOURCE),)
    down_when = ("crumbs",)
    _CATALOGUE = {"whisk": ActionTemplate("whisk", ACTIVE, 2, "a d6: 4 or more hits", rolls="1d6", targets=1)}

    def catalogue(self) -> Mapping[str, ActionTemplate]:
        return self._CATALOGUE

    def resolve(self, request: ActionRequest, dice: DiceSource) -> Resolution:
        (face,) = roll_group(dice, "Whisk", (6,))
        hit = face >= 4
        effects = (Damage(request.targets[0].name, 1, "crumbs"),) if hit and request.targets else ()
        return Resolution(request.performance_time, hit, face - 4, (face,), f"whisk: {face}", effects)

    def chance_of(self, request: ActionRequest) -> Fraction | None:
        return Fraction(1, 2)

    def roll(self, spec: str, dice: DiceSource, *, vs: str | None = None, vs_dice: DiceSource | None = None,
             difficulty: int | None = None, options: Mapping[str, Any] | None = None) -> RollResult:
        (face,) = roll_group(dice, "d6", (6,))
        return RollResult(self.id, [face], face >= (difficulty or 4), face - (difficulty or 4), f"{face}")

    def chance(self, spec: str, *, vs: str | None = None, difficulty: int | None = None,
               options: Mapping[str, Any] | None = None) -> Fraction:
        return Fraction(7 - min(7, max(1, difficulty or 4)), 6)


def _install(monkeypatch: pytest.MonkeyPatch, *points: EntryPoint) -> None:
    """`points` in the entry-point group beside whatever is really installed."""
    real = registry.entry_points
    monkeypatch.setattr(registry, "entry_points", lambda group: [*real(group), *(p for p in points if p.group == group)])
    registry.forget()


@pytest.fixture
def kitchen(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    module = types.ModuleType("kitchen_rpg")
    module.Kitchen = Kitchen  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "kitchen_rpg", module)
    _install(monkeypatch, EntryPoint("kitchen", "kitchen_rpg:Kitchen", registry.GROUP))
    yield
    registry.forget()


class TestTheExtraGame(RulesetContract):
    ruleset_class = Kitchen
    command_line_dice = True
    odds = ("d6", None, 4)

    @pytest.fixture(autouse=True)
    def _installed(self, kitchen: None) -> None:
        pass


class _BesideTheExtraGame:
    @pytest.fixture(autouse=True)
    def _installed(self, kitchen: None) -> None:
        assert "kitchen" in registry.available()


class TestFreeformBesideAnExtraGame(_BesideTheExtraGame, conformance.TestFreeform):
    pass


class TestBrandXBesideAnExtraGame(_BesideTheExtraGame, conformance.TestBrandX):
    pass


class TestUsorBesideAnExtraGame(_BesideTheExtraGame, conformance.TestUsor):
    pass


class TestD6BesideAnExtraGame(_BesideTheExtraGame, conformance.TestD6):
    pass


class TestOgsBesideAnExtraGame(_BesideTheExtraGame, conformance.TestOgs):
    pass


class TestOreBesideAnExtraGame(_BesideTheExtraGame, conformance.TestOre):
    pass


def test_the_extra_game_is_listed_beside_the_tracker_s_own(kitchen: None) -> None:
    code, out = cli("rulesets", "--json")
    assert code == 0
    assert {*registry.BUILT_IN, "kitchen"} <= {r["id"] for r in json.loads(out)}
    assert not registry.failures()


# -- a plugin that cannot be loaded --------------------------------------------------------
@pytest.fixture
def broken(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """Three plugins that cannot load: one whose import fails on a missing dependency,
    one whose entry point names a function, one whose class has another id."""
    package = tmp_path / "site" / "crumble_rpg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("import crumble_dice_engine  # not installed\n")
    module = types.ModuleType("misfit_rpg")
    module.helper = lambda: None  # type: ignore[attr-defined]
    module.Misnamed = Kitchen  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "misfit_rpg", module)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    _install(
        monkeypatch,
        EntryPoint("crumble", "crumble_rpg:CrumbleRuleset", registry.GROUP),
        EntryPoint("helper", "misfit_rpg:helper", registry.GROUP),
        EntryPoint("misnamed", "misfit_rpg:Misnamed", registry.GROUP),
    )
    yield
    registry.forget()


def test_tracker_rulesets_names_a_plugin_that_failed_with_its_error(broken: None) -> None:
    code, out = cli("rulesets")
    assert code == 0
    lines = {line.split()[0]: line for line in out.splitlines()}
    assert set(registry.BUILT_IN) <= set(lines)  # the tracker's own games are all there
    assert "cannot be loaded: crumble_rpg:CrumbleRuleset: ModuleNotFoundError: No module named 'crumble_dice_engine'" in lines["crumble"]
    assert "misfit_rpg:helper: not a rulesets.base.Ruleset subclass" in lines["helper"]
    assert "its id is 'kitchen', but its entry point is named 'misnamed'" in lines["misnamed"]
    code, out = cli("rulesets", "--json")
    failed = {r["id"]: r["error"] for r in json.loads(out) if "error" in r}
    assert set(failed) == {"crumble", "helper", "misnamed"}
    assert "No module named 'crumble_dice_engine'" in failed["crumble"]


def test_a_save_of_a_game_that_failed_to_load_says_why_it_cannot_open(broken: None, saves: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store, _ = EncounterFile.create(saves / "siege.toml", "siege", "freeform")
    text = store.path.read_text(encoding="utf-8")
    assert 'ruleset = "freeform"' in text
    store.path.write_text(text.replace('ruleset = "freeform"', 'ruleset = "crumble"'), encoding="utf-8")
    with pytest.raises(TrackerError) as refused:
        EncounterFile(store.path).load()
    message = str(refused.value)
    assert "siege.toml" in message and "game 'crumble' is installed but could not be loaded" in message
    assert "No module named 'crumble_dice_engine'" in message and "unknown ruleset" not in message
    capsys.readouterr()
    code, out = cli("show", "siege")
    said = capsys.readouterr().err
    assert code != 0 and "No module named 'crumble_dice_engine'" in said and "Traceback" not in said, said


def test_an_unknown_game_is_still_called_unknown(broken: None) -> None:
    with pytest.raises(TrackerError, match="unknown ruleset 'chess'"):
        registry.get("chess")
