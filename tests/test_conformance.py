"""Every game of the tracker, and the guide's third-party example, through the contract
suite the tracker ships (`tracker.testing.RulesetContract`), each declaring what it
can do; then the example game's own rules, and `tracker` in another process finding it.

A small third-party package (`tests/data/tablesaw_rpg`, the example game of
`rulesets/README.md`, with a `.dist-info` declaring its entry point in the
`tracker.rulesets` group, the way pip would install it) is put on `sys.path`; the
registry then finds it beside the built-in games, and `tracker` in another process finds
it too.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import pytest

from rulesets import registry
from rulesets.brandx import BrandXRuleset
from rulesets.d6 import D6Ruleset
from rulesets.dice import TypedFaces
from rulesets.freeform import FreeformRuleset
from rulesets.ogs import OgsRuleset
from rulesets.ore import OreRuleset
from tracker.testing import RulesetContract
from rulesets.usor import UsorRuleset
from tracker.engine import TrackerError

THIRD_PARTY = "tablesaw"
# The third-party game (rulesets/README.md's example): a package and its `.dist-info`,
# laid out as pip installs them, in a folder put on sys.path.
SITE = Path(__file__).parent / "data"
PACKAGE = SITE / "tablesaw_rpg"


@pytest.fixture(scope="module")
def installed() -> Iterator[Path]:
    """The third-party package on sys.path, as if pip had installed it there."""
    sys.path.insert(0, str(SITE))
    registry.forget()
    try:
        yield SITE
    finally:
        sys.path.remove(str(SITE))
        registry.forget()


class TestFreeform(RulesetContract):
    ruleset_class = FreeformRuleset
    combatants = ("Ann hp=12", "Bo side=foes")
    actions = ("attack target=Bo pt=3 damage=4 note='a wild swing'", "hide mode=passive")
    maintainable_actions = True  # the GM states each link's outcome


class TestBrandX(RulesetContract):
    ruleset_class = BrandXRuleset
    combatants = ("Ann combat_roll=11 learning=10 agility=12 ep=100 hand_damage=5 vp=40", "Bo combat_roll=11 vp=40 side=foes")
    actions = ("punch target=Bo q_defense=2", "blast target=Bo pr=12 damage=5")
    command_line_dice = True
    odds = ("14", None, None)
    judged_on_landing = True
    maintainable_actions = True  # blasts (seed 004)


class TestUsor(RulesetContract):
    ruleset_class = UsorRuleset
    command_line_dice = True
    odds = ("16", None, 20)
    judged_on_landing = True
    hit_locations = ("chest", "head", "right_arm", "left_arm", "right_leg", "left_leg")


class TestD6(RulesetContract):
    ruleset_class = D6Ruleset
    command_line_dice = True
    odds = ("4D+2", None, 15)
    judged_on_landing = True


class TestOgs(RulesetContract):
    ruleset_class = OgsRuleset
    command_line_dice = True
    odds = ("d4+d8+d8+2", None, 8)
    judged_on_landing = True


class TestOre(RulesetContract):
    ruleset_class = OreRuleset
    combatants = ("Ann body=5d brawling=5d", "Bo side=foes")  # ten dice: a set, so a blow
    actions = ("punch target=Bo bonus=2",)
    command_line_dice = True
    odds = ("6d+1hd+1wd", None, 5)
    judged_on_landing = True
    hit_locations = ("head", "torso", "left_arm", "right_arm", "left_leg", "right_leg")


class TestTablesaw(RulesetContract):
    """The guide's example, installed beside the tracker as a plugin."""

    @pytest.fixture(autouse=True)
    def _installed(self, installed: Path) -> None:
        from tablesaw_rpg import TablesawRuleset  # type: ignore[import-not-found]

        type(self).ruleset_class = TablesawRuleset

    actions = ("swing target=Bo bonus=2", "swing target=Bo grit=true")
    command_line_dice = True
    odds = ("d20+3", None, 14)
    judged_on_landing = True


def test_the_third_party_game_is_registered_beside_the_built_in_ones(installed: Path) -> None:
    assert {*registry.BUILT_IN, THIRD_PARTY} <= set(registry.ids())
    assert {*registry.BUILT_IN, THIRD_PARTY} <= set(registry.available())
    assert registry.get(THIRD_PARTY).name == "Tablesaw"


def test_the_example_game_plays_by_its_rules(installed: Path) -> None:
    """tests/data/tablesaw_rpg's rules (its docstring), numbers worked by hand: "it hits
    when the total reaches the target's AC as it is when the swing lands ... a braced
    target has AC +2"; "A hit costs the target 1 wound; a natural 20 also rolls a d4 of
    extra wounds"; "spend 1 grit for +2 to the total"; "A brace lasts to the end of the
    round unless the GM types a PT" (6 segments a round)."""
    from tests.helpers import session_for

    saw = registry.get(THIRD_PARTY)
    s = session_for(saw, "add Ann", "add Bo side=foes")  # skill 3, AC 12, 1 grit, 6 wounds each
    s.execute("declare Ann swing target=Bo faces=9")  # 9 + 3 = 12: AC 12 reached as things stand
    assert s.encounter.actions[-1].resolution.margin == 0
    s.execute("declare Bo brace")  # on segment 0: to the end of the round, 6 segments
    assert s.encounter.actions[-1].pt == 6
    s.execute("next")  # segment 4: the swing lands on a braced Bo, AC 14
    assert s.encounter.now == 4 and s.encounter.combatant("Bo").resources["wounds"] == 6
    assert any(e.text == "Ann's swing lands: 12 vs AC 14: a miss" for e in s.encounter.log)
    s.execute("declare Ann swing target=Bo faces=8 grit=true")  # 8 + 3 + 2 = 13; the brace is over at 6
    assert s.encounter.combatant("Ann").resources["grit"] == 0  # paid as it starts
    s.execute("next")  # 6: the brace ends
    s.execute("next")
    assert s.encounter.now == 8 and s.encounter.combatant("Bo").resources["wounds"] == 5
    with pytest.raises(TrackerError, match="grit: Ann has no grit left"):
        s.execute("declare Ann swing target=Bo faces=8 grit=true")
    s.execute("declare Bo brace")  # on segment 8: to the end of the round at 12, 4 segments
    assert s.encounter.actions[-1].pt == 4
    s.execute("declare Ann swing target=Bo faces=20,3")  # a natural 20: 1 + d4 3 = 4 wounds
    s.execute("next")
    assert s.encounter.combatant("Bo").resources["wounds"] == 1
    plain = session_for(saw, "add Ann", "add Bo", crits=False)
    plain.execute("declare Ann swing target=Bo faces=20")  # no crit die asked for
    assert plain.encounter.actions[-1].resolution.dice == (20,)
    request, _ = plain.request("Ann", "swing", ["Bo"])
    # Grit offered after the roll when it turns a miss into a hit: 8 + 3 = 11, 1 short.
    assert saw.after_roll_defaults(request, saw.resolve(request, TypedFaces([8]))) == {"grit": True}
    assert saw.after_roll_defaults(request, saw.resolve(request, TypedFaces([5]))) == {"grit": False}
    assert saw.chance_of(request) == Fraction(12, 20)  # faces 9 to 20 reach AC 12


@pytest.mark.slow
def test_tracker_itself_finds_the_third_party_game(installed: Path, tmp_path: Path) -> None:
    """In another process, through the installed entry point alone."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(installed), os.environ.get("PYTHONPATH", "")]))
    tracker = [sys.executable, "-m", "tracker", "--saves", str(tmp_path)]

    def run(*argv: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.run([*tracker, *argv], input=stdin, env=env, capture_output=True, text=True, timeout=120)

    listed = run("rulesets")
    assert listed.returncode == 0 and THIRD_PARTY in listed.stdout, listed.stderr
    assert run("new", "saw", "--ruleset", THIRD_PARTY).returncode == 0
    played = run("play", "saw", stdin="add Ann skill=5\nadd Bo side=foes\ndeclare Ann swing target=Bo faces=19\nnext\n")
    assert played.returncode == 0, played.stderr
    shown = run("show", "saw", "--json")
    assert shown.returncode == 0, shown.stderr
    assert '"wounds": 5' in shown.stdout.replace("5.0", "5")
    odds = run("odds", THIRD_PARTY, "d20+3", "--difficulty", "14")
    assert odds.returncode == 0 and "50" in odds.stdout, odds.stdout + odds.stderr
