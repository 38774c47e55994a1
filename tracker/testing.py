"""The contract suite a game runs to show it plays in the tracker (needs pytest).

A game, the tracker's own or a third party's, subclasses `RulesetContract` in one short
test file, names its class and says what it can do; pytest runs every check below on it:

```python
# tests/test_contract.py of the game's package
from tracker.testing import RulesetContract

from coin_rpg import CoinRuleset


class TestCoin(RulesetContract):
    ruleset_class = CoinRuleset
    combatants = ("Ann nerve=5", "Bo side=foes")  # `add` lines: the first acts, the second is the target
    actions = ("flip target=Bo call=tails",)      # `declare Ann ...` lines beyond each action's defaults
    command_line_dice = True                      # capabilities: see below
    odds = ("heads", None, None)                  # an example `tracker odds`: spec, vs, difficulty
```

What every game is checked for (`rulesets/base.py` is the contract they come from):
- registered: the `tracker.rulesets` entry point finds this very class by its `id`;
- templates: a catalogue whose names find their templates (any case), sane times and
  targets, every modifier a PARAM staged for the declare form, an unknown name refused
  by name (or kept, for a game that takes any name);
- sheet: the defaults make a combatant, what the sheet keeps checks again, and the
  `down_when` resources are on it;
- dice prompts and the commit: each catalogue action with its defaults, and each of
  `actions`, driven as the declare form drives it (faces typed group by group), either
  resolves or is refused with a `TrackerError` that says why; each group is named with
  its dice; its `details` are what a save holds as it is; after-roll choices are
  AFTER_ROLL fields that roll no further dice; declaring with the same faces commits
  that same resolution; at least one action resolves with the default sheets;
- performance time: with none typed, the game's `default_pt`; a typed PT is the PT;
- odds of a declaration: None or an exact Fraction from 0 to 1 (or refused by name);
- a save and reload: the fight as saved opens with the same combatants, log and events.

Capabilities, declared as class flags: a check for what a game lacks is skipped; a game
that declares what it does not do fails, and so does one that rolls command-line dice,
lands Blows or maintains actions without declaring it:
- `command_line_dice` (with `odds = (spec, vs, difficulty)`, the example `tracker odds`
  is asked): `tracker roll`/`odds` read the game's notation, the odds are exact and
  agree with 400 seeded rolls. False: both refuse by name (`Ruleset.roll`'s default).
- `judged_on_landing`: some action's resolution holds `Blow`s; each names a judge of
  the class's `judges` (registered by name), which, when the blow lands, returns
  effects (never another Blow) and changes nothing itself; in a game whose completions
  land together (`time.simultaneous`), two blows on one segment give the same fight
  whichever was declared first. False: no resolution holds a Blow.
- `maintainable_actions`: some action may be maintained with the table's settings, and
  maintaining it once it completes adds the next link. False: `maintain` is refused at
  once, saying the game's attacks are not maintained.
- `hit_locations` (the sheet's resources that are body locations; empty: none): each
  is a RESOURCE of the sheet, and a GM's `damage NAME N resource=LOCATION` lands on that
  location alone.

It imports nothing from the tracker's own tests: a game's package runs it as it is.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any, ClassVar

import pytest

from rulesets import registry
from rulesets.base import JUDGE_KEY, Ruleset, check_details
from rulesets.dice import RandomDice
from rulesets.fields import AFTER_ROLL, MAIN, MORE, PARAM, RESOURCE
from tracker.play import dice_plan, verbs
from tracker.play import requests
from tracker.play.requests import DECLARE, MAINTAIN, Attempt
from tracker.engine import Encounter, Setup, TrackerError
from tracker.engine.effects import EFFECT_TYPES, JUDGES, Blow, Effect
from tracker.persistence.store import EncounterFile
from tracker.play.session import Session

# Dice groups a single action may ask for before the suite calls it a runaway.
MAX_GROUPS = 100
# Seeded `tracker roll`s the odds are held against, and how far off (in standard
# deviations) their share of successes may be.
ROLLS = 400
SPREAD = 4.5


class RulesetContract:
    """Subclass as `TestYourGame` and set the class attributes; pytest runs the rest."""

    ruleset_class: ClassVar[type[Ruleset]]
    # `add` lines, without `add`: the first combatant acts, the second is the target.
    combatants: ClassVar[tuple[str, ...]] = ("Ann", "Bo side=foes")
    # Declarations for the first combatant, without `declare NAME` ("swing target=Bo
    # bonus=2"), driven beside each catalogue action with its defaults.
    actions: ClassVar[tuple[str, ...]] = ()
    # The table's settings (`tracker new --set`), for every fight the suite makes.
    settings: ClassVar[dict[str, Any]] = {}

    # -- capabilities ---------------------------------------------------------------
    command_line_dice: ClassVar[bool] = False
    odds: ClassVar[tuple[str, str | None, int | None]] = ("", None, None)  # spec, vs, difficulty
    judged_on_landing: ClassVar[bool] = False
    maintainable_actions: ClassVar[bool] = False
    hit_locations: ClassVar[tuple[str, ...]] = ()

    # -- the suite's own tools ----------------------------------------------------------
    @pytest.fixture
    def ruleset(self) -> Ruleset:
        return self.ruleset_class()

    def session(self, ruleset: Ruleset, path: Path | None = None, seed: int = 5) -> Session:
        """A fight of this game with `combatants` added: in memory, or saved at `path`."""
        if path is None:
            checked = ruleset.validate_settings(self.settings, "settings")
            setup = Setup("contract", ruleset.id, ruleset.time, ruleset.down_when, checked, [])
            session = Session(Encounter(setup), ruleset, RandomDice(seed))
        else:
            store, loaded = EncounterFile.create(path, "contract", ruleset.id, dict(self.settings))
            session = Session(loaded.encounter, loaded.ruleset, RandomDice(seed), store)
        for line in self.combatants:
            session.execute(f"add {line}")
        return session

    def actor(self) -> str:
        return verbs.read(f"add {self.combatants[0]}").args[0]

    def target(self) -> str:
        return verbs.read(f"add {self.combatants[1]}").args[0]

    def attempts(self, ruleset: Ruleset, actor: str | None = None, target: str | None = None) -> list[Attempt]:
        """Each catalogue action with its defaults (a target when it takes one), then
        each of `actions`, as the declare form would attempt them."""
        actor, target = actor or self.actor(), target or self.target()
        found = [Attempt(DECLARE, actor, name, (target,) if t.targets != 0 else ()) for name, t in ruleset.catalogue().items()]
        for line in self.actions:
            call = verbs.read(f"declare {actor} {line}")
            kw = call.kwargs
            found.append(Attempt(DECLARE, actor, call.args[1], tuple(kw.get("targets") or ()), kw.get("pt"), dict(kw.get("params") or {})))
        return found

    @staticmethod
    def drive(session: Session, attempt: Attempt, seed: int = 11) -> tuple[dice_plan.Step, list[int], list[str]]:
        """The declare form's dry run: faces typed group by group (rolled from a seeded
        source) until the game resolves; the step, the faces and the prompts asked."""
        faces: list[int] = []
        asked: list[str] = []
        dice = RandomDice(seed)
        for _ in range(MAX_GROUPS):
            step = dice_plan.dry_run(session, attempt, faces)
            if step.done:
                return step, faces, asked
            assert step.need is not None
            asked.append(dice_plan.prompt(step.need))
            faces += dice_plan.roll(step.need, dice)
        raise AssertionError(f"{attempt.template}: still asking for dice after {MAX_GROUPS} groups: {asked[-3:]}")

    def declared(self, session: Session, attempt: Attempt, seed: int = 11) -> tuple[dice_plan.Step, list[int]] | None:
        """Declare `attempt` with the faces its dry run asked for; None if refused."""
        try:
            step, faces, _ = self.drive(session, attempt, seed)
            session.declare(attempt.actor, attempt.template, list(attempt.targets), pt=attempt.pt, faces=faces, params=dict(attempt.params))
        except TrackerError:
            return None
        return step, faces

    # -- every game ---------------------------------------------------------------------
    def test_registered(self) -> None:
        """The entry point's name is the class's `id` and finds this very class."""
        registry.forget()
        assert registry.exists(self.ruleset_class.id), f"{self.ruleset_class.id}: not in the tracker.rulesets entry points (failed: {registry.failures()})"
        found = type(registry.get(self.ruleset_class.id))
        assert found is self.ruleset_class, f"{self.ruleset_class.id}: the entry point finds {found.__module__}.{found.__qualname__}"
        assert self.ruleset_class.name and self.ruleset_class.description

    def test_templates(self, ruleset: Ruleset) -> None:
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

    def test_sheet(self, ruleset: Ruleset) -> None:
        stats, resources = ruleset.build_sheet({}, "sheet")
        assert set(stats) | set(resources) == {f.name for f in ruleset.sheet if f.default is not None}
        assert ruleset.check_sheet(stats, resources, "sheet") == (stats, resources)
        assert all(name in {f.name for f in ruleset.resource_fields()} for name in ruleset.down_when), f"{ruleset.id}: down_when names a resource the sheet lacks"
        session = self.session(ruleset)
        for line in self.combatants:  # each sample combatant holds the sheet its values make
            name, values = verbs.read(f"add {line}").args
            held = session.encounter.combatant(name)
            assert (held.stats, held.resources) == ruleset.build_sheet(values, "sheet"), f"{ruleset.id}: add {line}"

    def test_dice_prompts_after_roll_choices_and_the_commit(self, ruleset: Ruleset) -> None:
        resolved = 0
        for attempt in self.attempts(ruleset):
            session = self.session(ruleset)
            try:
                step, faces, asked = self.drive(session, attempt)
            except TrackerError as refusal:
                assert str(refusal), f"{ruleset.id} {attempt.template}: a refusal that says nothing"
                continue  # a refusal by the rules, named (an action that needs more set up)
            resolved += 1
            where = f"{ruleset.id} {attempt.template}"
            for text in asked:  # "Ann's Combat Roll: 2d10": whose, which, and the dice
                assert ": " in text and "d" in text.rsplit(": ", 1)[1], f"{where}: {text!r}"
            assert step.request is not None and step.resolution is not None
            check_details(step.resolution.details, f"{where} details")
            blows = [e for e in step.resolution.effects if isinstance(e, Blow)]
            assert not blows or self.judged_on_landing, f"{where}: its resolution holds Blows: declare judged_on_landing = True"
            # After-roll choices: AFTER_ROLL fields only, and choosing them rolls nothing more.
            later = ruleset.after_roll_fields(step.request)
            assert all(f.stage == AFTER_ROLL for f in later)
            assert isinstance(ruleset.after_roll(step.request, step.resolution), str)
            for f in later:
                if f.default is not None or f.choices:
                    value = f.choices[-1] if f.choices else (not f.default if f.kind == "bool" else f.default)
                    chosen = Attempt(DECLARE, attempt.actor, attempt.template, attempt.targets, attempt.pt, {**attempt.params, f.name: value})
                    assert dice_plan.dry_run(session, chosen, faces).done, f"{where}: {f.name}={value} asked for more dice"
            # Declaring with the same faces commits what the form showed.
            before = len(session.encounter.actions)
            session.declare(attempt.actor, attempt.template, list(attempt.targets), pt=attempt.pt, faces=faces, params=dict(attempt.params))
            assert session.encounter.actions[before].resolution == step.resolution, where
        assert resolved, f"{ruleset.id}: no action could be declared with the sample sheets"

    def test_a_typed_pt_and_the_default_pt(self, ruleset: Ruleset) -> None:
        """A typed PT reaches the resolution (and the action) through the base class;
        with none typed the action takes the game's own `default_pt`."""
        resolved = 0
        for attempt in self.attempts(ruleset):
            if attempt.params or attempt.pt is not None:
                continue  # the catalogue's own actions, as the form opens them: no choice made changes the PT
            session = self.session(ruleset)
            typed_attempt = Attempt(DECLARE, attempt.actor, attempt.template, attempt.targets, 7)
            try:
                default, _, _ = self.drive(session, attempt)
                typed, typed_faces, _ = self.drive(session, typed_attempt)
            except TrackerError:
                continue  # refused by the rules with these sheets (see the test above)
            where = f"{ruleset.id} {attempt.template}"
            assert default.request is not None and default.resolution is not None and typed.resolution is not None
            assert default.request.pt is None  # as the form builds it: the base class fills it in
            assert default.resolution.pt == ruleset.default_pt(default.request), where
            assert typed.resolution.pt == 7, f"{where}: typed PT 7, took {typed.resolution.pt}"
            session.declare(attempt.actor, attempt.template, list(attempt.targets), pt=7, faces=typed_faces)
            assert session.encounter.actions[-1].pt == 7
            resolved += 1
        assert resolved, f"{ruleset.id}: no action could be declared with the sample sheets"

    def test_odds_of_a_declaration(self, ruleset: Ruleset) -> None:
        session = self.session(ruleset)
        for attempt in self.attempts(ruleset):
            try:
                request = requests.build(session.policy, session.ruleset, session.encounter, attempt).request
                chance = ruleset.chance_of(request)
            except TrackerError as refusal:  # refused by name: the form shows why
                assert str(refusal)
                continue
            assert chance is None or (isinstance(chance, Fraction) and 0 <= chance <= 1), f"{ruleset.id} {attempt.template}: {chance!r}"

    def test_a_save_and_reload(self, ruleset: Ruleset, tmp_path: Path) -> None:
        path = tmp_path / "contract.toml"
        session = self.session(ruleset, path)
        for attempt in self.attempts(ruleset):
            if self.declared(session, attempt) is not None:
                break
        session.execute("note the contract")
        session.execute("step 12")
        session.execute(f"damage {self.target()} 1")
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

    # -- command-line dice ------------------------------------------------------------------
    def test_command_line_dice(self, ruleset: Ruleset) -> None:
        """`tracker odds` is exact, and the game's own `tracker roll`s agree with it."""
        if not self.command_line_dice:
            pytest.skip("declared without command-line dice")
        spec, vs, difficulty = self.odds
        assert spec, "command_line_dice = True needs odds = (spec, vs, difficulty): an example `tracker odds`"
        p = ruleset.chance(spec, vs=vs, difficulty=difficulty)
        assert isinstance(p, Fraction) and 0 <= p <= 1, f"{ruleset.id}: odds {p!r}"
        wins = sum(bool(ruleset.roll(spec, RandomDice(seed), vs=vs, vs_dice=RandomDice(ROLLS + seed), difficulty=difficulty).success) for seed in range(ROLLS))
        if p in (0, 1):
            assert wins == p * ROLLS
        else:
            assert abs(wins / ROLLS - float(p)) <= SPREAD * math.sqrt(float(p * (1 - p)) / ROLLS), f"{ruleset.id}: {wins}/{ROLLS} against {p}"

    def test_without_command_line_dice_roll_and_odds_are_refused_by_name(self, ruleset: Ruleset) -> None:
        if self.command_line_dice:
            pytest.skip("declared with command-line dice")
        with pytest.raises(TrackerError, match=ruleset.id):
            ruleset.roll("1", RandomDice(1))
        with pytest.raises(TrackerError, match=ruleset.id):
            ruleset.chance("1")

    # -- judged on landing ----------------------------------------------------------------
    @staticmethod
    def landed(session: Session) -> None:
        """Step the fight until every action declared so far has completed."""
        last = max((a.completes for a in session.encounter.actions), default=0)
        while session.encounter.now < last:
            session.execute("next")

    def test_judged_on_landing(self, ruleset: Ruleset, monkeypatch: pytest.MonkeyPatch) -> None:
        """Blows name a judge of the class; judged when they land, the judge returns
        effects (never another Blow) and changes nothing itself."""
        if not self.judged_on_landing:
            pytest.skip("declared without blows judged on landing")
        judges = type(ruleset).judges
        assert judges, f"{ruleset.id}: judged_on_landing = True needs judges = {{name: judge}} on the class"
        for name, judge in judges.items():
            assert JUDGES.get(name) is judge, f"{ruleset.id}: judge {name!r} is not registered (declare it in the class's judges)"
        calls: list[str] = []

        def watched(name: str, judge: Callable[..., list[Effect]]) -> Callable[..., list[Effect]]:
            def run(encounter: Any, action: Any, blow: Blow) -> list[Effect]:
                before = _state(encounter)
                landed = judge(encounter, action, blow)
                assert _state(encounter) == before, f"{ruleset.id}: judge {name!r} changed the fight itself"
                assert isinstance(landed, list) and all(type(e) in EFFECT_TYPES.values() and not isinstance(e, Blow) for e in landed), f"{name}: {landed!r}"
                calls.append(name)
                return landed
            return run

        for name, judge in judges.items():
            monkeypatch.setitem(JUDGES, name, watched(name, judge))
        with_blows = 0
        for attempt in self.attempts(ruleset):
            session = self.session(ruleset)
            done = self.declared(session, attempt)
            if done is None:
                continue
            step, _ = done
            assert step.resolution is not None
            blows = [e for e in step.resolution.effects if isinstance(e, Blow)]
            if not blows:
                continue
            with_blows += 1
            named = step.resolution.details.get(JUDGE_KEY)
            assert named in judges, f"{ruleset.id} {attempt.template}: details[JUDGE_KEY] is {named!r}, not one of {sorted(judges)}"
            before = len(calls)
            self.landed(session)
            assert len(calls) > before, f"{ruleset.id} {attempt.template}: its blow landed unjudged"
        assert with_blows, f"{ruleset.id}: declared judged_on_landing but no action's resolution holds a Blow"

    def test_blows_landing_together_do_not_depend_on_the_order_declared(self, ruleset: Ruleset) -> None:
        if not self.judged_on_landing:
            pytest.skip("declared without blows judged on landing")
        if not ruleset.time.simultaneous:
            pytest.skip("completions on one segment resolve one by one in this game")
        actor, target = self.actor(), self.target()
        compared = 0
        for attempt in self.attempts(ruleset):
            if attempt.targets != (target,):
                continue
            back = Attempt(DECLARE, target, attempt.template, (actor,), attempt.pt, attempt.params)
            ends = []
            for first, second in ((attempt, back), (back, attempt)):
                session = self.session(ruleset)
                if self.declared(session, first, seed=11 if first is attempt else 12) is None:
                    break
                if self.declared(session, second, seed=11 if second is attempt else 12) is None:
                    break
                self.landed(session)
                ends.append({n: (c.resources, c.down) for n, c in session.encounter.combatants.items()})
            if len(ends) == 2:
                assert ends[0] == ends[1], f"{ruleset.id} {attempt.template}: the order declared changed the fight: {ends}"
                compared += 1
        if not compared:
            pytest.skip("no action both combatants could declare at each other on one segment")

    # -- maintained actions ----------------------------------------------------------------
    def test_maintaining_an_action(self, ruleset: Ruleset) -> None:
        if not self.maintainable_actions:
            pytest.skip("declared without maintainable actions")
        settings = ruleset.validate_settings(self.settings, "settings")
        assert ruleset.maintains(settings), f"{ruleset.id}: maintainable_actions = True, but Ruleset.maintains says no"
        maintained = 0
        for attempt in self.attempts(ruleset):
            if not ruleset.maintainable(ruleset.template(attempt.template), settings):
                continue
            session = self.session(ruleset)
            if self.declared(session, attempt) is None:
                continue
            first = session.encounter.actions[-1]
            while session.encounter.now < first.completes:
                session.execute("next")
            step, faces, _ = self.drive(session, Attempt(MAINTAIN, attempt.actor))
            session.maintain(attempt.actor, faces=faces)
            link = session.encounter.actions[-1]
            assert link is not first and link.template == first.template, f"{ruleset.id} {attempt.template}: no next link"
            assert link.resolution == step.resolution
            maintained += 1
        assert maintained, f"{ruleset.id}: no maintainable action could be declared and maintained with the sample sheets"

    def test_without_maintainable_actions_maintain_is_refused_at_once(self, ruleset: Ruleset) -> None:
        if self.maintainable_actions:
            pytest.skip("declared with maintainable actions")
        settings = ruleset.validate_settings(self.settings, "settings")
        assert not ruleset.maintains(settings), f"{ruleset.id}: an action is maintainable: declare maintainable_actions = True"
        session = self.session(ruleset)
        with pytest.raises(TrackerError, match="not maintained"):
            session.maintain(self.actor())

    # -- hit locations -----------------------------------------------------------------------
    def test_hit_locations(self, ruleset: Ruleset) -> None:
        if not self.hit_locations:
            pytest.skip("declared without hit locations")
        resources = {f.name for f in ruleset.sheet if f.role == RESOURCE}
        assert set(self.hit_locations) <= resources, f"{ruleset.id}: hit locations not on the sheet: {set(self.hit_locations) - resources}"
        target = self.target()
        for location in self.hit_locations:
            session = self.session(ruleset)
            before = dict(session.encounter.combatant(target).resources)
            session.execute(f"damage {target} 1 resource={location}")
            after = session.encounter.combatant(target).resources
            changed = {k: (before[k], after[k]) for k in before if after[k] != before[k]}
            assert changed == {location: (before[location], before[location] - 1)}, f"{ruleset.id}: damage at {location} changed {changed}"


def _state(encounter: Any) -> list[Any]:
    """What a judge must leave as it found it: every combatant's sheet and conditions."""
    return [(n, dict(c.stats), dict(c.resources), dict(c.conditions), c.down) for n, c in encounter.combatants.items()]


__all__ = ["RulesetContract"]
