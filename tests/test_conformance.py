"""One contract for every registered ruleset, a third-party game's included.

A small third-party package (`tests/data/tablesaw_rpg`, the example game of
`rulesets/README.md`, with a `.dist-info` declaring its entry point in the
`tracker.rulesets` group, the way pip would install it) is put on `sys.path`; the
registry then finds it beside the built-in games, and `tracker` in another process finds
it too. Every ruleset, each the same way (`rulesets/base.py` is the contract):

- templates: a catalogue whose names find their templates, with sane times and targets,
  and every modifier staged for the declare form;
- sheet: the defaults make a combatant, and what the sheet keeps checks again;
- dice prompts: every template, driven as the declare form drives it (faces typed group
  by group), either resolves or is refused with a TrackerError; each group it asks for
  is named with its dice; and declaring with the same faces commits that same resolution,
  whose `details` a save holds as they are (`check_details`);
- performance time: with none typed, the action takes the game's `default_pt`; a PT the
  GM types is the action's PT, in every game, with no code for it in the adapter;
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
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from rulesets import registry
from rulesets.base import Ruleset, check_details
from rulesets.dice import RandomDice, TypedFaces
from rulesets.fields import AFTER_ROLL, MAIN, MORE, PARAM
from tracker.engine import TrackerError
from tracker.persistence.store import EncounterFile
from tracker.session import Session
from tracker import dice_plan
from tracker.dice_plan import DECLARE, Attempt

THIRD_PARTY = "tablesaw"
# The third-party game (rulesets/README.md's example): a package and its `.dist-info`,
# laid out as pip installs them, in a folder put on sys.path.
SITE = Path(__file__).parent / "data"
PACKAGE = SITE / "tablesaw_rpg"

# What `tracker odds` is asked for each game (the examples of docs/rulesets/).
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
def installed() -> Iterator[Path]:
    """The third-party package on sys.path, as if pip had installed it there."""
    sys.path.insert(0, str(SITE))
    registry._classes.cache_clear()
    try:
        yield SITE
    finally:
        sys.path.remove(str(SITE))
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
        check_details(step.resolution.details, f"{ruleset.id} {name} details")
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


def test_a_typed_pt_and_the_default_pt(ruleset: Ruleset) -> None:
    """A typed PT reaches every game's resolution (and the action) through the base
    class; with none typed the action takes the game's own `default_pt`. (With no
    after-roll choice made, nothing the roll does changes the PT.)"""
    resolved = 0
    for name, template in ruleset.catalogue().items():
        session = _session(ruleset)
        try:
            default, faces, _ = _drive(session, Attempt(DECLARE, "Ann", name, _targets(template)))
            typed, _, _ = _drive(session, Attempt(DECLARE, "Ann", name, _targets(template), pt=7))
        except TrackerError:
            continue  # refused by the rules with a default sheet (see the test above)
        assert default.request is not None and default.resolution is not None and typed.resolution is not None
        assert default.request.pt is None  # as the form builds it: the base class fills it in
        assert default.resolution.pt == ruleset.default_pt(default.request), f"{ruleset.id} {name}"
        assert typed.resolution.pt == 7, f"{ruleset.id} {name}: typed PT 7, took {typed.resolution.pt}"
        session.declare("Ann", name, list(_targets(template)), pt=7, faces=faces)
        assert session.encounter.actions[-1].pt == 7
        resolved += 1
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
