"""Maintaining an action: the next link starts from the maintained action's own choices,
and says what it really is.

- `maintain ACTOR` (the `:` line, `tracker play`) and the maintain form (`m`) start from
  the modifiers the maintained action was asked with, as "again" fills a declaration
  (docs/decisions/0041-declare-again.md): a freeform link deals the damage stated before
  unless the GM states other (or none: `damage=`, the field emptied).
- Brand X (seed 004): "The Performance Time is divided by 4 (usually meaning 5
  segments), and the same Attack is used. There is a penalty of 2 to the Attack for
  each successive action ... and a penalty of 1 to the EP use row for the blast." A
  link makes no Combat Roll of its own: it carries the first link's, so after a missed
  roll the link is a certain miss (chance 0, logged as a failure, left out of luck), and
  the modifiers that made that roll are the first link's.
- A game whose attacks are never maintained (OGS, USOR, D6, ORE) says so, at once, not
  that the combatant "has no completed attack".
"""

from __future__ import annotations

import shutil
from fractions import Fraction
from pathlib import Path

import pytest
from textual.widgets import Input, Label

from rulesets.brandx import BrandXRuleset
from rulesets.dice import RandomDice
from tracker.play import dice_plan
from tracker.play.declaring import DeclareFlow
from tracker.play.form import FormStage, Shown
from tracker.play import requests
from tracker.play.requests import MAINTAIN
from tracker.engine import TrackerError
from tracker.persistence.store import EncounterFile
from tracker.reading.roles import Role
from tracker.play.session import Session
from tracker.reading.stats import fight_stats
from tracker.ui.app import TrackerApp
from tracker.ui.screens.declare import DeclareScreen
from tracker.ui.screens.encounter import EncounterScreen
from tests.helpers import session_for
from tests.ui import press, settle, wait_for

SIZE = (80, 24)
SAVES = Path(__file__).resolve().parent.parent / "saves"

# Seed 004's Sun-Ruler: "he initiates a fire blast, using all 12 PR. He rolls 17, missing
# (he needed 13 or less: 12 plus his pool of 1). He uses 5 EP for this attack." Learning
# 10 gives the pool of 1 (learning // 10), read on the Sphere chart as +1.
SUN_RULER = "add Sun-Ruler agility=12 learning=10 ep=60"
TARGET = "add Target vp=100 dp=50"
# 8 + 9 = 17 against 13: missed by 4, dealt out to Attack, Damage, Defense, Attack:
# Attack -2, Damage -1, Defense 0 (its one point halved toward zero). Damage 5 - 1 = 4
# does damage, so the Target's Throwback Roll is made too (10, 10).
MISSED_BLAST = "declare Sun-Ruler blast target=Target pr=12 damage=5 faces=8,9,10,10"


def brandx(*lines: str) -> Session:
    return session_for(BrandXRuleset(), SUN_RULER, TARGET, *lines)


def file_of(saves: Path, ruleset: str, lines: list[str], name: str = "fight") -> Path:
    path = saves / f"{name}.toml"
    store, loaded = EncounterFile.create(path, name, ruleset)
    session = Session(loaded.encounter, loaded.ruleset, RandomDice(7), store)
    for line in lines:
        session.execute(line)
    return path


def flow_on(path: Path, actor: str) -> DeclareFlow:
    file = EncounterFile(path)
    loaded = file.load()
    session = Session(loaded.encounter, loaded.ruleset, RandomDice(3), file)
    return DeclareFlow(session, Role.gm(), actor, MAINTAIN)


# ------------------------------------------------------------------ the command
def test_maintain_without_modifiers_takes_the_maintained_actions_own() -> None:
    """A freeform link deals what the GM stated for the action it continues: 2 hp and the
    note, link after link; `damage=5` changes the damage only (the note stays), and the
    next link starts from that link's 5. An empty value is refused, as on `declare`."""
    from rulesets.freeform import FreeformRuleset

    s = session_for(FreeformRuleset(), "add Ann", "add Bo hp=20",
                    'declare Ann attack target=Bo pt=3 damage=2 note="a quick cut"', "next")
    assert s.encounter.combatant("Bo").resources["hp"] == 18
    s.execute("maintain Ann")
    link = s.encounter.actions[-1]
    assert link.chain == 1 and link.pt == 3  # freeform: a link takes as long as the last one
    assert [e.kind for e in link.resolution.effects] == ["damage", "note"]
    s.execute("next")
    assert s.encounter.combatant("Bo").resources["hp"] == 16
    assert "a quick cut" in s.encounter.log[-1].text
    s.execute("maintain Ann damage=5")
    s.execute("next")
    assert s.encounter.combatant("Bo").resources["hp"] == 11
    assert "a quick cut" in s.encounter.log[-1].text
    s.execute("maintain Ann")
    s.execute("next")
    assert s.encounter.combatant("Bo").resources["hp"] == 6
    with pytest.raises(TrackerError, match="maintain attack.damage"):
        s.execute("maintain Ann damage=")
    assert len(s.encounter.actions) == 4


def test_a_links_modifiers_are_kept_in_the_save(saves: Path) -> None:
    """What a link was asked with is written with it, so the next link starts from it
    after the file is opened again."""
    path = file_of(saves, "freeform", ["add Ann", "add Bo hp=20", "declare Ann attack target=Bo pt=3 damage=2", "next",
                                       "maintain Ann damage=4", "next"])
    loaded = EncounterFile(path).load()
    assert loaded.encounter.combatant("Bo").resources["hp"] == 20 - 2 - 4
    assert dict(loaded.encounter.actions[-1].asked or {}) == {"damage": "4"}
    session = Session(loaded.encounter, loaded.ruleset, RandomDice(1), EncounterFile(path))
    session.execute("maintain Ann")
    session.execute("next")
    assert EncounterFile(path).load().encounter.combatant("Bo").resources["hp"] == 20 - 2 - 4 - 4


# ------------------------------------------------------------------ the form's flow
def test_the_maintain_form_opens_filled_with_the_maintained_actions_modifiers(saves: Path) -> None:
    path = file_of(saves, "freeform", ["add Ann", "add Cy", "add Bo hp=20",
                                       'declare Ann attack target=Bo pt=3 damage=2 note="a quick cut"',
                                       "declare Cy cast target=Bo pt=3 damage=1", "next"])
    flow = flow_on(path, "Ann")
    assert flow.param_values["attack"]["damage"] == "2" and flow.param_values["attack"]["note"] == "a quick cut"
    assert not flow.has_unsaved_input()  # filled, not typed
    assert flow.template_info().startswith("link 1 of Ann's attack at Bo")
    # Another actor: their action's own modifiers; back again: Ann's.
    flow.set("d", "actor", "Cy")
    assert flow.template is not None and flow.template.name == "cast" and flow.param_values["cast"]["damage"] == "1"
    flow.set("d", "actor", "Ann")
    flow.set("p", "damage", "")  # the GM empties the damage: none this time
    assert flow.has_unsaved_input()
    assert flow.go() == Shown.RESULT
    assert flow.step is not None and flow.step.resolution is not None
    assert [e.kind for e in flow.step.resolution.effects] == ["note"]  # the result shown is what commits
    assert flow.go() == Shown.COMMITTED
    saved = EncounterFile(path).load().encounter
    link = saved.actions[-1]
    assert link.chain == 1 and [e.kind for e in link.resolution.effects] == ["note"]
    assert dict(link.asked or {}) == {"note": "a quick cut"}
    # The next link starts from this one: no damage; the note emptied too, it says so.
    flow.session.execute("next")
    flow = flow_on(path, "Ann")
    assert flow.param_values["attack"]["damage"] == "" and flow.param_values["attack"]["note"] == "a quick cut"
    flow.set("p", "note", "")
    assert flow.go() == Shown.RESULT and flow.go() == Shown.COMMITTED
    assert "nothing stated: the link deals no damage" in EncounterFile(path).load().encounter.actions[-1].resolution.summary


def test_a_brandx_link_asks_nothing_again_and_offers_no_q(saves: Path) -> None:
    """Rolled 2 + 2 = 4 against 13: Q 9, placed 3 on Attack. The link's form holds the
    blast's PR and damage as declared, no Q (a choice after that roll, not this link's),
    and after the link's "roll" nothing is to be placed: it made none."""
    path = file_of(saves, "brandx", [SUN_RULER, TARGET, "declare Sun-Ruler blast target=Target pr=12 damage=5 faces=2,2,10,10 q_attack=3",
                                     "next"])
    flow = flow_on(path, "Sun-Ruler")
    values = flow.param_values["blast"]
    assert (values["pr"], values["damage"]) == ("12", "5")
    assert "q_attack" not in values and not flow.has_unsaved_input()
    assert flow.chance_now().startswith("chance of success: 100.00% (1/1) · carries the success of segment 0's Combat Roll (rolled 4 against 13)")
    flow.go()
    while flow.stage != FormStage.RESULT:
        flow.go("10,10")  # the Target's Throwback Roll
    assert flow.after_budget(flow.step) == "" and flow.after_choices() == {}
    assert flow.go() == Shown.COMMITTED
    link = EncounterFile(path).load().encounter.actions[-1]
    assert link.chain == 1 and link.resolution.success is True and link.resolution.details["attack"] == 9 - 2


# ------------------------------------------------------------------ Brand X: what a link is
def test_a_link_carrying_a_missed_roll_is_a_certain_miss() -> None:
    """Sun-Ruler's blast misses by 4 (17 against 13). "The same Attack is used": the link
    makes no roll, so it carries that miss: chance 0, a failure when it completes, its
    Attack -2 - 2 = -4, PT 20 / 4 = 5, and the blast's EP row 9 + 1 = 10: 6 EP (5 before)."""
    s = brandx(MISSED_BLAST)
    first = s.encounter.actions[-1]
    assert first.resolution.success is False and first.resolution.margin == -4
    assert s.encounter.combatant("Sun-Ruler").resources["ep"] == 55  # "He uses 5 EP for this attack."
    s.execute("next")
    request = requests.build(s.policy, s.ruleset, s.encounter, requests.Attempt(MAINTAIN, "Sun-Ruler")).request
    assert s.chance_of(request) == 0
    note = s.ruleset.chance_note(request)
    assert note.startswith("carries the miss of segment 0's Combat Roll (rolled 17 against 13)")
    assert "Attack -4 vs Target's Defense +0 now: a miss as things stand" in note
    s.execute("maintain Sun-Ruler faces=10,10")
    link = s.encounter.actions[-1]
    event = s.encounter.events[-1]
    assert event.kind == "maintain" and event.args["chance"] == "0/1"
    assert link.resolution.success is False and link.resolution.details["attack"] == -4 and link.pt == 5
    assert "maintained link 1: carries the miss of segment 0's Combat Roll (rolled 17 against 13)" in link.resolution.summary
    assert s.encounter.combatant("Sun-Ruler").resources["ep"] == 55 - 6
    s.execute("next")
    assert any(e.text == "Sun-Ruler's blast completes: failure" for e in s.encounter.log if e.segment == link.completes)


def test_a_link_carrying_a_roll_is_no_roll_against_odds() -> None:
    """Luck weighs each roll against the chance the form showed. The link rolled nothing:
    Sun-Ruler's luck is the blast's one roll (missed, at its own chance), not two."""
    s = brandx(MISSED_BLAST, "next", "maintain Sun-Ruler faces=10,10", "next")
    sun = next(c for c in fight_stats(s.encounter).combatants if c.name == "Sun-Ruler")
    assert (sun.declared, sun.succeeded, sun.missed) == (2, 0, 2)  # the link logs a failure
    blast_chance = Fraction(s.encounter.events[2].args["chance"])
    assert (sun.luck.rolls, sun.luck.successes, sun.luck.expected) == (1, 0, blast_chance)


def test_a_link_keeps_the_first_links_roll_and_damage() -> None:
    """A link stating another PR or damage would change nothing (no new roll, "the same
    Attack is used"): refused by name; where the damage goes may change (to=dp)."""
    s = brandx(MISSED_BLAST, "next")
    for changed, said in (("pr=10", "pr 12 -> 10"), ("damage=8", "damage 5 -> 8"), ("pool=2", "pool unstated -> 2"),
                          ("q_attack=1", "q_attack=1 (a link makes no roll: no Q to place)")):
        with pytest.raises(TrackerError, match="the same Attack is used") as refused:
            s.execute(f"maintain Sun-Ruler faces=10,10 {changed}")
        assert said in str(refused.value)
    assert len(s.encounter.actions) == 1
    s.execute("maintain Sun-Ruler faces=10,10 to=dp pr=12")  # the same PR is no change
    assert s.encounter.actions[-1].resolution.details["hits"][0]["resource"] == "dp"


# ------------------------------------------------------------------ games that maintain nothing
@pytest.mark.parametrize(("game", "save", "actor", "action", "target", "name"), [
    ("ogs", "ogs-guard.toml", "Michael", "attack", "Guard", "OGS"),
    ("usor", "usor-mountain-pass.toml", "Max", "strike", "Bandit", "USOR"),
    ("d6", "d6-warehouse.toml", "Hero", "shoot", "Merc", "D6 System"),
    ("ore", "ore-knife-fight.toml", "Razor", "strike", "Vex", "One-Roll Engine"),
])
def test_a_game_without_maintained_attacks_says_so(saves: Path, game: str, save: str, actor: str, action: str, target: str, name: str) -> None:
    path = saves / save
    shutil.copy(SAVES / save, path)
    loaded = EncounterFile(path).load()
    s = Session(loaded.encounter, loaded.ruleset, RandomDice(5), EncounterFile(path))
    s.execute(f"declare {actor} {action} target={target}")
    attack = s.encounter.actions[-1]
    while s.encounter.now < attack.completes:
        s.execute("next")
    assert attack.status == "completed"
    before = len(s.encounter.events)
    with pytest.raises(TrackerError) as refused:
        s.execute(f"maintain {actor}")
    said = str(refused.value)
    assert f"{name}'s attacks are not maintained" in said and "no completed attack" not in said
    assert not dice_plan.maintain_takes_dice(s, actor)  # `m` maintains at once: the refusal, no form
    assert len(EncounterFile(path).load().encounter.events) == before


# ------------------------------------------------------------------ the app at 80x24


def on_disk(path: Path):
    return EncounterFile(path).load().encounter


def chance_line(app: TrackerApp) -> str:
    return str(app.screen.query_one("#chance", Label).render())


async def press_m(pilot, app: TrackerApp, actor: str) -> tuple[EncounterScreen, DeclareScreen]:
    """The file just opened, `actor` selected: `m` opens the maintain form."""
    await settle(pilot)
    screen = app.screen
    assert isinstance(screen, EncounterScreen) and screen.selected == actor
    await press(pilot, "m")
    await wait_for(pilot, lambda: isinstance(app.screen, DeclareScreen), "the maintain form")
    form = app.screen
    assert isinstance(form, DeclareScreen)
    return screen, form


@pytest.mark.ui
async def test_m_opens_the_form_filled_and_says_what_the_link_is(saves: Path) -> None:
    """Brand X: the blast missed (17 against 13) and did damage, so the link needs the
    Target's Throwback Roll and `m` opens the form: filled with PR 12 and damage 5, the
    chance line a certain miss. A change of mind (damage 8) shows the refusal; Esc; `m`
    again is filled again; the throwback faces, commit: the link is saved as a failure."""
    path = file_of(saves, "brandx", [SUN_RULER, TARGET, MISSED_BLAST, "next"])
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        screen, form = await press_m(pilot, app, "Sun-Ruler")
        assert form.query_one("#p-pr", Input).value == "12" and form.query_one("#p-damage", Input).value == "5"
        await wait_for(pilot, lambda: "0.00% (0/1)" in chance_line(app), "the link's chance")
        assert "carries the miss of segment 0's Combat Roll" in chance_line(app)
        form.query_one("#p-damage", Input).focus()
        await press(pilot, "ctrl+u", "8")
        await wait_for(pilot, lambda: "damage 5 -> 8" in chance_line(app), "the refusal on the chance line")
        await press(pilot, "escape")
        await wait_for(pilot, lambda: app.screen is screen, "the form closed")
        assert len(on_disk(path).actions) == 1
        await press(pilot, "m")
        await wait_for(pilot, lambda: isinstance(app.screen, DeclareScreen), "the maintain form again")
        assert app.screen.query_one("#p-damage", Input).value == "5"
        await press(pilot, "ctrl+s")
        await wait_for(pilot, lambda: app.screen.stage != FormStage.SETUP, "the dice asked for")
        await press(pilot, *"10,10", "enter")
        await wait_for(pilot, lambda: app.screen.stage == FormStage.RESULT, "the link's result")
        await press(pilot, "ctrl+s")
        await wait_for(pilot, lambda: app.screen is screen, "the link committed")
        await press(pilot, "n")
    saved = on_disk(path)
    link = saved.actions[-1]
    assert link.chain == 1 and link.resolution.success is False and link.status == "completed"
    assert dict(link.asked or {}) == {"pr": "12", "damage": "5"}
    assert saved.events[-2].kind == "maintain" and saved.events[-2].args["chance"] == "0/1"
    assert any(e.text == "Sun-Ruler's blast completes: failure" for e in saved.log if e.segment == link.completes)


@pytest.mark.ui
async def test_m_in_a_game_without_maintained_attacks_says_so_at_once(saves: Path) -> None:
    path = saves / "ogs-guard.toml"
    shutil.copy(SAVES / "ogs-guard.toml", path)
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, EncounterScreen)
        await press(pilot, "m")
        notes = [n.message for n in app.notifications_shown]
        assert any("OGS's attacks are not maintained" in n for n in notes), notes
        assert app.screen is screen  # no form opened


@pytest.mark.ui
async def test_the_forms_modifiers_follow_the_actor_maintaining(saves: Path) -> None:
    """Freeform: Ann's attack dealt 2, Cy's 1. `m` on Ann shows 2; the actor changed to
    Cy, the same fields show Cy's 1; committed as it stands, Cy's link deals 1 again."""
    path = file_of(saves, "freeform", ["add Ann", "add Cy", "add Bo hp=20", "declare Ann attack target=Bo pt=3 damage=2",
                                       "declare Cy attack target=Bo pt=3 damage=1", "next"])
    app = TrackerApp(saves, path)
    async with app.run_test(size=SIZE) as pilot:
        screen, form = await press_m(pilot, app, "Ann")
        assert form.query_one("#p-damage", Input).value == "2"
        assert form.focused is form.query_one("#d-actor", Input)
        await press(pilot, "ctrl+u", *"Cy")
        await wait_for(pilot, lambda: form.query_one("#p-damage", Input).value == "1", "Cy's damage in the form")
        await press(pilot, "ctrl+s")
        await wait_for(pilot, lambda: form.stage == FormStage.RESULT, "the link's result")
        await press(pilot, "ctrl+s")
        await wait_for(pilot, lambda: app.screen is screen, "the link committed")
        await press(pilot, "n")
    saved = on_disk(path)
    link = saved.actions[-1]
    assert (link.actor, link.chain) == ("Cy", 1) and saved.combatant("Bo").resources["hp"] == 20 - 2 - 1 - 1
