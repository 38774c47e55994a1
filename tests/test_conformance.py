"""One contract for every registered ruleset, a third-party game's included.

A small third-party package (`tablesaw_rpg`, written here into a temporary folder with a
`.dist-info` declaring its entry point in the `tracker.rulesets` group, the way pip would
install it) is put on `sys.path`; the registry then finds it beside the built-in games,
and `tracker` in another process finds it too. Every ruleset, each the same way:

- templates: a catalogue whose names find their templates, with sane times and targets,
  and every modifier staged for the declare form;
- sheet: the defaults make a combatant, and what the sheet keeps checks again;
- dice prompts: every template, driven as the declare form drives it (faces typed group
  by group), either resolves or is refused with a TrackerError; each group it asks for
  is named with its dice; and declaring with the same faces commits that same resolution;
- after-roll choices: only AFTER_ROLL fields, choosing them asks for no further dice;
- odds: exact (a Fraction from 0 to 1) for the declare form and for `tracker odds`, and
  agreeing with the game's own rolls (fixed seeds: the same 400 rolls every run);
- a save and reload: the fight as saved opens with the same combatants, log and events.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from rulesets import registry
from rulesets.base import Ruleset
from rulesets.dice import RandomDice
from rulesets.fields import AFTER_ROLL, MAIN, MORE, PARAM
from tracker.engine import TrackerError
from tracker.persistence.store import EncounterFile
from tracker.session import Session
from tracker.ui.screens import dice_plan
from tracker.ui.screens.dice_plan import DECLARE, Attempt

THIRD_PARTY = "tablesaw"

# The third-party game: a d20 plus a bonus against a target number, with a choice made
# after the roll (spend grit for +2), and dice from the command line.
PACKAGE = '''
from fractions import Fraction

from rulesets.base import ActionTemplate, RollResult, Ruleset
from rulesets.dice import roll_group
from rulesets.fields import PARAM, RESOURCE, STAT, Field, staged
from tracker.engine import ACTIVE, PASSIVE, Damage, Resolution, TimeMapping, TrackerError

_SWING = staged((
    Field("target", "int", 11, minimum=2, maximum=30, role=PARAM, help="roll this or more"),
    Field("grit", "bool", False, role=PARAM, help="spend grit after the roll: +2"),
), main=("target",), after_roll=("grit",))


def _chance(bonus, target):
    return Fraction(min(20, max(0, 21 - (target - bonus))), 20)


class TablesawRuleset(Ruleset):
    id = "tablesaw"
    name = "Tablesaw"
    description = "a d20 against a target number (a third-party game)"
    time = TimeMapping(segments_per_round=6)
    sheet = (
        Field("skill", "int", 3, minimum=0, maximum=10, role=STAT, help="added to the d20"),
        Field("grit", "int", 1, minimum=0, role=RESOURCE, help="spent for +2 after a roll"),
        Field("wounds", "int", 6, minimum=1, role=RESOURCE, help="0 is down"),
    )
    down_when = ("wounds",)
    _CATALOGUE = {
        "swing": ActionTemplate("swing", ACTIVE, 4, "d20 + skill vs target", rolls="1d20", targets=1, params=_SWING),
        "brace": ActionTemplate("brace", PASSIVE, 6, "no roll"),
    }

    def catalogue(self):
        return self._CATALOGUE

    def resolve(self, request, dice):
        if request.template.name == "brace":
            return Resolution(request.pt or request.template.pt, None, None, (), "braces")
        skill = request.actor.stats["skill"]
        (face,) = roll_group(dice, "Swing", (20,))
        grit = 2 if request.params.get("grit") else 0
        total = face + skill + grit
        hit = total >= request.params["target"]
        effects = tuple(Damage(t.name, 1, "wounds") for t in request.targets) if hit else ()
        return Resolution(request.pt or request.template.pt, hit, total - request.params["target"], (face,),
                          f"{face} + {skill} = {total} vs {request.params['target']}", effects, details={"total": total})

    def chance_of(self, request):
        if request.template.name == "brace":
            return None
        return _chance(request.actor.stats["skill"], request.params["target"])

    def after_roll(self, request, resolution):
        return "grit: +2 for 1 grit" if request.actor.resources.get("grit", 0) > 0 else ""

    def _bonus(self, spec):
        text = spec.replace(" ", "").lower()
        if not text.startswith("d20"):
            raise TrackerError(f"tablesaw spec {spec!r}: expected d20+N")
        return int(text[3:] or 0)

    def roll(self, spec, dice, *, vs=None, vs_dice=None, difficulty=None, options=None):
        bonus, target = self._bonus(spec), difficulty or 11
        (face,) = roll_group(dice, "d20", (20,))
        return RollResult(self.id, [face], face + bonus >= target, face + bonus - target, f"{face} + {bonus} vs {target}")

    def chance(self, spec, *, vs=None, difficulty=None, options=None):
        return _chance(self._bonus(spec), difficulty or 11)
'''

METADATA = "Metadata-Version: 2.1\nName: tablesaw-rpg\nVersion: 1.0\n"
ENTRY_POINTS = f"[tracker.rulesets]\n{THIRD_PARTY} = tablesaw_rpg:TablesawRuleset\n"

# What `tracker odds` is asked for each game (the README's examples).
ODDS: dict[str, tuple[str, str | None, int | None]] = {
    "brandx": ("14", None, None),
    "d6": ("4D+2", None, 15),
    "ogs": ("d4+d8+d8+2", None, 8),
    "ore": ("6d+1hd+1wd", None, 5),
    "usor": ("16", None, 20),
    THIRD_PARTY: ("d20+3", None, 14),
}
NO_DICE = {"freeform"}  # states outcomes: no odds, no dice from the command line


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The third-party package installed as pip would lay it out, on sys.path."""
    site = tmp_path_factory.mktemp("site")
    (site / "tablesaw_rpg").mkdir()
    (site / "tablesaw_rpg" / "__init__.py").write_text(textwrap.dedent(PACKAGE), encoding="utf-8")
    info = site / "tablesaw_rpg-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(METADATA, encoding="utf-8")
    (info / "entry_points.txt").write_text(ENTRY_POINTS, encoding="utf-8")
    sys.path.insert(0, str(site))
    registry._classes.cache_clear()
    try:
        yield site
    finally:
        sys.path.remove(str(site))
        sys.modules.pop("tablesaw_rpg", None)
        registry._classes.cache_clear()


RULESETS = sorted([*registry.BUILT_IN, THIRD_PARTY])


@pytest.fixture(params=RULESETS)
def ruleset(request: pytest.FixtureRequest, installed: Path) -> Ruleset:
    return registry.get(request.param)


def test_the_third_party_game_is_registered_beside_the_built_in_ones(installed: Path) -> None:
    assert set(registry.ids()) == set(RULESETS)
    assert set(registry.available()) == set(RULESETS)
    assert registry.get(THIRD_PARTY).name == "Tablesaw"


def _session(ruleset: Ruleset, path: Path | None = None) -> Session:
    if path is None:
        from tests.helpers import session_for

        session: Session = session_for(ruleset, seed=5)
    else:
        store, loaded = EncounterFile.create(path, "contract", ruleset.id)
        session = Session(loaded.encounter, loaded.ruleset, RandomDice(5), store)
    session.execute("add Ann")
    session.execute("add Bo side=foes")
    return session


def test_templates(ruleset: Ruleset) -> None:
    catalogue = ruleset.catalogue()
    assert catalogue, f"{ruleset.id}: an empty catalogue"
    for name, template in catalogue.items():
        assert template.name == name and ruleset.template(name.upper()) == template
        assert template.pt >= 1 and template.targets >= -1, f"{ruleset.id} {name}"
        for f in template.params:
            assert f.role == PARAM and f.stage in (MAIN, MORE, AFTER_ROLL), f"{ruleset.id} {name}.{f.name}: {f.role}, {f.stage}"
    try:  # an unknown name is refused by name, or (freeform) kept as the GM typed it
        kept = ruleset.template("no-such-action")
    except TrackerError as refusal:
        assert "no-such-action" in str(refusal)
    else:
        assert kept.name == "no-such-action"


def test_sheet(ruleset: Ruleset) -> None:
    stats, resources = ruleset.build_sheet({}, "sheet")
    assert set(stats) | set(resources) == {f.name for f in ruleset.sheet if f.default is not None}
    assert ruleset.check_sheet(stats, resources, "sheet") == (stats, resources)
    assert all(name in {f.name for f in ruleset.resource_fields()} for name in ruleset.down_when)
    session = _session(ruleset)
    ann = session.encounter.combatant("Ann")
    assert (ann.stats, ann.resources) == (stats, resources)


def _targets(template: Any) -> tuple[str, ...]:
    return ("Bo",) if template.targets != 0 else ()


def _drive(session: Session, attempt: Attempt) -> tuple[dice_plan.Step, list[int], list[str]]:
    """The declare form's dry run: faces typed group by group (rolled by a seeded
    source), until the adapter resolves; the groups it asked for, in order."""
    faces: list[int] = []
    asked: list[str] = []
    dice = RandomDice(11)
    for _ in range(100):
        step = dice_plan.dry_run(session, attempt, faces)
        if step.done:
            return step, faces, asked
        assert step.need is not None
        asked.append(dice_plan.prompt(step.need))
        faces += dice_plan.roll(step.need, dice)
    raise AssertionError(f"{attempt.template}: still asking for dice after 100 groups: {asked[-3:]}")


def test_dice_prompts_after_roll_choices_and_the_commit(ruleset: Ruleset) -> None:
    resolved = 0
    for name, template in ruleset.catalogue().items():
        session = _session(ruleset)
        attempt = Attempt(DECLARE, "Ann", name, _targets(template))
        try:
            step, faces, asked = _drive(session, attempt)
        except TrackerError as refusal:
            assert str(refusal), f"{ruleset.id} {name}: a refusal that says nothing"
            continue  # a refusal by the rules, named (an action that needs more set up)
        resolved += 1
        for text in asked:  # "Ann's Combat Roll: 2d10": whose, which, and the dice
            assert ": " in text and "d" in text.rsplit(": ", 1)[1], f"{ruleset.id} {name}: {text!r}"
        assert step.request is not None and step.resolution is not None
        # After-roll choices: AFTER_ROLL fields only, and choosing them rolls nothing more.
        later = ruleset.after_roll_fields(step.request)
        assert all(f.stage == AFTER_ROLL for f in later)
        assert isinstance(ruleset.after_roll(step.request, step.resolution), str)
        for f in later:
            if f.default is not None or f.choices:
                value = f.choices[-1] if f.choices else (not f.default if f.kind == "bool" else f.default)
                chosen = Attempt(DECLARE, "Ann", name, _targets(template), params={f.name: value})
                assert dice_plan.dry_run(session, chosen, faces).done, f"{ruleset.id} {name}: {f.name}={value} asked for more dice"
        # Declaring with the same faces commits what the form showed.
        before = len(session.encounter.actions)
        session.declare("Ann", name, list(_targets(template)), faces=faces)
        action = session.encounter.actions[before]
        assert action.resolution == step.resolution, f"{ruleset.id} {name}"
    assert resolved, f"{ruleset.id}: no action could be declared with a default sheet"


def test_odds(ruleset: Ruleset) -> None:
    session = _session(ruleset)
    for name, template in ruleset.catalogue().items():
        try:
            request, _ = dice_plan.request_for(session, Attempt(DECLARE, "Ann", name, _targets(template)))
        except TrackerError:
            continue
        try:
            chance = ruleset.chance_of(request)
        except TrackerError as refusal:  # refused by name: the form shows why
            assert str(refusal)
            continue
        assert chance is None or (isinstance(chance, Fraction) and 0 <= chance <= 1), f"{ruleset.id} {name}: {chance!r}"
    if ruleset.id in NO_DICE:
        with pytest.raises(TrackerError, match="no dice"):
            ruleset.chance("1")
        return
    spec, vs, difficulty = ODDS[ruleset.id]
    p = ruleset.chance(spec, vs=vs, difficulty=difficulty)
    assert isinstance(p, Fraction) and 0 <= p <= 1
    # The game's own rolls agree with its odds: 400 seeded rolls, within 4.5 standard
    # deviations (and exactly, for a certainty).
    n = 400
    wins = sum(bool(ruleset.roll(spec, RandomDice(seed), vs=vs, vs_dice=RandomDice(n + seed), difficulty=difficulty).success) for seed in range(n))
    if p in (0, 1):
        assert wins == p * n
    else:
        assert abs(wins / n - float(p)) <= 4.5 * math.sqrt(float(p * (1 - p)) / n), f"{ruleset.id}: {wins}/{n} against {p}"


def test_a_save_and_reload(ruleset: Ruleset, tmp_path: Path) -> None:
    path = tmp_path / "contract.toml"
    session = _session(ruleset, path)
    for name, template in ruleset.catalogue().items():
        try:
            session.declare("Ann", name, list(_targets(template)))
            break
        except TrackerError:
            continue
    session.execute("note the contract")
    session.execute("step 12")
    session.execute("damage Bo 1")
    session.undo()
    session.redo()
    loaded = EncounterFile(path).load()
    again, live = loaded.encounter, session.encounter
    assert loaded.ruleset.id == ruleset.id
    assert [(e.kind, e.seq) for e in again.events] == [(e.kind, e.seq) for e in live.events]
    assert [entry.text for entry in again.log] == [entry.text for entry in live.log]
    assert {n: (c.stats, c.resources) for n, c in again.combatants.items()} == {n: (c.stats, c.resources) for n, c in live.combatants.items()}
    assert [a.resolution for a in again.actions] == [a.resolution for a in live.actions]
    assert again.now == live.now == 12


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
    played = run("play", "saw", stdin="add Ann skill=5\nadd Bo side=foes\ndeclare Ann swing target=Bo faces=20\nnext\n")
    assert played.returncode == 0, played.stderr
    shown = run("show", "saw", "--json")
    assert shown.returncode == 0, shown.stderr
    assert '"wounds": 5' in shown.stdout.replace("5.0", "5")
    odds = run("odds", THIRD_PARTY, "d20+3", "--difficulty", "14")
    assert odds.returncode == 0 and "50" in odds.stdout, odds.stdout + odds.stderr
