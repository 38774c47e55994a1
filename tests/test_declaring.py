"""The declare flow without a screen (`tracker.play.declaring`), in every shipped ruleset.

Choose -> dice (one named group at a time, typed or rolled by the app) -> result and
after-roll choices -> commit, driven by calls as the form drives it; the form itself
(keys, focus, layout, the chance worker) is tests/test_ui_declare.py's. Every save
written is loaded again and compared.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulesets.dice import RandomDice
from rulesets.fields import AFTER_ROLL
from tracker.play import dice_plan
from tracker.play.declaring import DeclareFlow
from tracker.play.form import FormStage, Shown
from tracker.play.requests import DECLARE, MAINTAIN
from tracker.persistence.store import EncounterFile
from tracker.reading.roles import Role
from tracker.play.session import Session
from tracker.reading.viewing import sight
from tests.helpers import check_declared
from tests.test_ui_declare import CASES, SAVES, copy_save, faces_for, gamble, gamble_file  # noqa: F401 (gamble: a fixture)

ROOT = Path(__file__).resolve().parent.parent


def open_flow(path: Path, actor: str | None = None, kind: str = DECLARE, role: Role | None = None, seen_as: Role | None = None, user: str = "", **kw: object) -> DeclareFlow:
    """A flow over a session of its own on the file, as the app opens one (changes are written)."""
    file = EncounterFile(path)
    loaded = file.load()
    session = Session(loaded.encounter, loaded.ruleset, RandomDice(), file, user, role)
    return DeclareFlow(session, seen_as or (role if role is not None and role.is_player else Role.gm()), actor, kind, **kw)  # type: ignore[arg-type]


def fill(flow: DeclareFlow, actor: str, action: str, target: str = "", **params: str) -> None:
    """Type into the fields, as the form hands each change to the flow."""
    flow.set("d", "actor", actor)
    flow.set("d", "template", action)
    if target:
        flow.set("d", "targets", target)
    for name, text in params.items():
        flow.set("p", name, text)


def result(flow: DeclareFlow) -> str:
    return "\n".join(flow.result_lines())


def test_the_flow_imports_no_textual() -> None:
    code = "import sys, tracker.play.declaring, tracker.play.dice_plan\nassert not [m for m in sys.modules if m.split('.')[0] == 'textual']"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


# ------------------------------------------------------------------ every ruleset
@pytest.mark.parametrize("game", sorted(CASES))
@pytest.mark.parametrize("typed", [True, False], ids=["typed", "rolled"])
def test_declare_through_the_flow(saves: Path, game: str, typed: bool) -> None:
    save, actor, action, target = CASES[game]
    path = copy_save(saves, save)
    before = len(EncounterFile(path).load().encounter.events)
    flow = open_flow(path)
    fill(flow, actor, action, target)
    chance = flow.chance_now()
    if game == "freeform":
        assert chance == "chance of success: no roll"
    else:
        assert re.search(r"\d+\.\d\d% \(\d+/\d+\)", chance), chance
    flow.go()
    prompts, typed_faces = [], []
    while flow.stage == FormStage.DICE:
        text = flow.dice_prompt()
        assert text.startswith(f"next: {actor}'s ") or "'s " in text, text  # a named, labelled group
        prompts.append(text)
        if typed:
            faces = faces_for(text)
            typed_faces += faces
            flow.go(",".join(map(str, faces)))
        else:
            flow.go("")  # empty: the flow rolls this group
        assert len(prompts) < 20
    assert flow.stage == FormStage.RESULT, flow.error
    assert bool(prompts) == (game != "freeform")
    if typed:
        assert flow.faces == typed_faces
    shown = result(flow)
    faces = list(flow.faces)
    assert flow.commit() == Shown.COMMITTED
    check_declared(path, before, flow.session.encounter.actions[-1], actor, action, shown, faces)


def test_typed_group_refusals_use_the_cli_words(saves: Path) -> None:
    flow = open_flow(copy_save(saves, "seraph-vs-sphinx.toml"))
    fill(flow, "Seraph", "punch", "Sphinx")
    assert flow.go() == Shown.ASKED and flow.stage == FormStage.DICE
    assert flow.dice_prompt() == "next: Seraph's Combat Roll: 2d10"
    assert flow.go("11") == Shown.REFUSED
    assert flow.error == "faces: die 1 is a d10; 11 is not one of its faces"
    flow.go("7,3,5")
    assert "2 dice; 3 faces were typed" in flow.error
    flow.go("7")  # part of a group: the rest is asked for
    assert "(have 7; 1d10 to go)" in flow.dice_prompt()
    flow.go("0")
    assert flow.error == "faces: die 2 is a d10; 0 is not one of its faces"
    assert flow.stage == FormStage.DICE and flow.faces == [7]


# ------------------------------------------------------------------ after the roll
def test_after_roll_choice_defaults_and_changes_the_result(saves: Path, gamble: None) -> None:
    path = gamble_file(saves)
    flow = open_flow(path)
    fill(flow, "Ann", "swing", "Bob")
    assert flow.chance_now().endswith("(1/2)")
    assert "push" not in flow.param_values["swing"] and not flow.after_choices()  # not before the roll
    flow.go()
    assert flow.dice_prompt() == "next: Ann's Swing: 1d6"
    flow.go("3")  # a miss by one: the adapter offers push 1 ...
    assert flow.stage == FormStage.DICE and flow.dice_prompt() == "next: Ann's damage on a hit: 1d4"  # ... so it hits
    assert flow.go("2") == Shown.RESULT and flow.stage == FormStage.RESULT
    assert flow.after_choices() == {"push": "1"}
    assert "swing 4: hit" in result(flow)
    assert flow.set("a", "push", "2").shown == Shown.UPDATED  # type: ignore[union-attr]  # the player pushes harder: same dice, new total
    assert "swing 5: hit" in result(flow)
    assert flow.set("a", "push", "0").shown == Shown.REFUSED  # type: ignore[union-attr]  # no push: a miss, the damage die is not wanted
    assert "unused" in flow.error
    flow.set("a", "push", "2")
    assert flow.go() == Shown.COMMITTED
    action = flow.session.encounter.actions[-1]
    assert action.resolution.summary == "swing 5: hit" and action.resolution.dice == (3,)
    saved = EncounterFile(path).load().encounter
    assert saved.actions[-1].resolution.summary == "swing 5: hit"
    assert saved.events[-1].kind == "declare"


def test_more_modifiers_are_named_and_checked(saves: Path, gamble: None) -> None:
    flow = open_flow(gamble_file(saves))
    fill(flow, "Ann", "swing", "Bob")
    assert flow.template is not None and flow.more_names(flow.template) == ["flourish", "secret"]
    changed = flow.set("p", "flourish", "9")
    assert changed is not None and "flourish: expected an integer from 0 to 3, got '9'" in changed.error


def test_brandx_q_is_placed_after_the_roll(saves: Path) -> None:
    """Seed 004: "Speed: Three points of Q divide Performance Time by 2." A punch's PT 15
    with 6 Q on speed is 15 / 4, rounded: 4 (docs/contributing/design.md#rules-decisions). Q is placed once the dice are
    seen, not split before the roll."""
    path = copy_save(saves, "seraph-vs-sphinx.toml")
    flow = open_flow(path)
    fill(flow, "Seraph", "punch", "Sphinx")
    flow.go()
    assert flow.dice_prompt() == "next: Seraph's Combat Roll: 2d10"
    flow.go("1,5")
    assert flow.dice_prompt() == "next: Seraph's Combat Roll: reroll of a 1 (subtracted): 1d10"
    flow.go("3")
    assert flow.dice_prompt() == "next: Sphinx's Throwback Roll: 2d10"
    flow.go("9,9")
    assert flow.stage == FormStage.RESULT and "q: 12" in result(flow)
    flow.set("a", "q_speed", "6")
    flow.set("a", "q_attack", "6")
    assert flow.commit() == Shown.COMMITTED
    punch = flow.session.encounter.actions[-1]
    assert (punch.actor, punch.template, punch.pt) == ("Seraph", "punch", 4)
    saved = EncounterFile(path).load().encounter.actions[-1]
    assert saved.pt == 4 and list(saved.resolution.dice) == [1, 5, 3, 9, 9]


def test_ore_wiggle_is_set_after_the_roll(saves: Path) -> None:
    """Seed (ORE): wiggle dice are set after the roll. Vex shoots with 5d+1wd; unset, the
    wiggle die goes where it makes the widest set (the adapter's default, named in the
    budget); set to 9 it makes 2x9 instead, and that is what is committed."""
    path = copy_save(saves, "ore-knife-fight.toml")
    flow = open_flow(path)
    fill(flow, "Vex", "shoot", "Razor")
    flow.go()
    assert flow.dice_prompt() == "next: Vex's shoot pool: 5d10"
    flow.go("9,6,6,4,2")
    assert "wiggle 6 -> 3x6" in result(flow) and "after the roll: 1 wiggle die to set" in result(flow)
    assert flow.after_choices() == {"wiggle": ""}
    flow.set("a", "wiggle", "11")
    assert "a wiggle die is set to a face from 1 to 10, not 11" in flow.error
    flow.set("a", "wiggle", "9")
    assert "wiggle 9 -> 2x9" in result(flow) and not flow.error
    assert flow.go() == Shown.COMMITTED
    shot = flow.session.encounter.actions[-1]
    assert (shot.actor, shot.template, shot.resolution.details["wiggle"]) == ("Vex", "shoot", [9])
    saved = EncounterFile(path).load().encounter.actions[-1]
    assert saved.resolution.details["wiggle"] == [9] and list(saved.resolution.dice) == [9, 6, 6, 4, 2]


def test_no_after_roll_choice_when_the_adapter_offers_none(saves: Path) -> None:
    """Razor's punch pool (3d, no wiggle dice) leaves nothing to set after the roll: the
    flow offers no wiggle choice (ORE's `after_roll` is empty) and commits."""
    flow = open_flow(copy_save(saves, "ore-knife-fight.toml"))
    fill(flow, "Razor", "punch", "Vex")
    flow.go()
    flow.go("5,5,2")
    assert flow.stage == FormStage.RESULT and not flow.after_choices()
    assert "after the roll" not in result(flow)
    assert flow.go() == Shown.COMMITTED
    assert flow.session.encounter.actions[-1].resolution.dice == (5, 5, 2)


def test_choices_for_an_earlier_roll_do_not_outlive_it(saves: Path) -> None:
    """Q placed on a roll that left 12 Q, then the dice taken back and a miss typed
    instead: a miss leaves no Q, so no Q choices are offered and the 3 Q on speed typed
    for the earlier roll do not halve the punch's PT."""
    path = copy_save(saves, "seraph-vs-sphinx.toml")
    flow = open_flow(path)
    fill(flow, "Seraph", "punch", "Sphinx")
    flow.go()
    flow.go("1,5")
    flow.go("3")
    assert "Throwback Roll" in flow.dice_prompt()
    flow.go("9,9")
    assert flow.stage == FormStage.RESULT
    flow.set("a", "q_speed", "3")
    assert "3 to speed" in result(flow)
    flow.back()
    flow.back()
    flow.back()
    assert flow.stage == FormStage.DICE and flow.faces == []
    flow.go("9,9")
    assert "Throwback Roll" in flow.dice_prompt()
    flow.go("9,9")
    assert flow.stage == FormStage.RESULT and not flow.after_choices()
    shown = result(flow)
    assert "to speed" not in shown and "PT 15" in shown and "Q to spend" not in shown
    assert flow.go() == Shown.COMMITTED
    punch = flow.session.encounter.actions[-1]
    assert punch.pt == 15 and punch.resolution.dice == (9, 9, 9, 9)
    assert EncounterFile(path).load().encounter.actions[-1].pt == 15


# ------------------------------------------------------------------ refusals and the chance line
def test_a_refusal_clears_when_a_field_changes(saves: Path) -> None:
    """Seen by hand: a blast tried without pr kept "blast needs pr=N" under the form after
    pr was typed, while the chance line already showed the odds."""
    flow = open_flow(copy_save(saves, "seraph-vs-sphinx.toml"))
    fill(flow, "Seraph", "blast", "Sphinx")
    assert flow.go() == Shown.REFUSED
    assert flow.stage == FormStage.SETUP and "blast needs pr=N" in flow.error
    changed = flow.set("p", "pr", "10")
    assert changed is not None and changed.chance and flow.error == ""
    assert "%" in flow.chance_now()


def test_the_chance_line_names_a_rule_that_refuses_the_action(saves: Path) -> None:
    """Seen by hand (ORE): Vex, who had just shot this segment, was shown "chance of
    success: 100.00%" for a second shot the rules refuse; the line now names the rule."""
    path = copy_save(saves, "ore-knife-fight.toml")
    flow = open_flow(path)
    flow.session.declare("Vex", "shoot", ["Razor"], faces=[9, 6, 6, 4, 2])
    fill(flow, "Vex", "shoot", "Bruiser")
    chance = flow.chance_now()
    assert "rule: one initiation per segment" in chance and "%" not in chance


def test_no_target_is_not_shown_as_no_roll(saves: Path) -> None:
    """Seen by hand (USOR, D6): a strike with no target yet said "chance of success: no
    roll", though it rolls (and is refused without its target)."""
    flow = open_flow(copy_save(saves, "usor-mountain-pass.toml"))
    fill(flow, "Max", "strike")
    chance = flow.chance_now()
    assert "needs a target" in chance and "no roll" not in chance
    flow.set("d", "targets", "Bandit")
    assert "%" in flow.chance_now()


# ------------------------------------------------------------------ nothing changes before the commit
@pytest.mark.parametrize("step", [FormStage.SETUP, FormStage.DICE, "dice-partly", FormStage.RESULT])
def test_no_step_before_the_commit_changes_anything(saves: Path, gamble: None, step: str) -> None:
    path = gamble_file(saves)
    before = path.read_bytes()
    flow = open_flow(path)
    fill(flow, "Ann", "swing", "Bob")
    events_before = len(flow.session.encounter.events)
    if step != FormStage.SETUP:
        flow.go()
    if step in ("dice-partly", FormStage.RESULT):
        flow.go("6")
    if step == FormStage.RESULT:
        flow.go("4")
    assert flow.stage == {"dice-partly": FormStage.DICE}.get(step, step)
    assert len(flow.session.encounter.events) == events_before
    assert flow.session.encounter.combatants["Bob"].resources["hp"] == 10
    assert path.read_bytes() == before


def test_back_takes_back_the_last_group(saves: Path, gamble: None) -> None:
    path = gamble_file(saves)
    flow = open_flow(path)
    fill(flow, "Ann", "swing", "Bob")
    flow.go()
    flow.go("6")
    flow.go("4")
    assert flow.stage == FormStage.RESULT and flow.faces == [6, 4]
    assert flow.back() == Shown.ASKED
    assert flow.stage == FormStage.DICE and flow.faces == [6] and "damage on a hit: 1d4" in flow.dice_prompt()
    flow.back()
    assert flow.stage == FormStage.DICE and flow.faces == [] and "Swing: 1d6" in flow.dice_prompt()
    assert flow.back() == Shown.SETUP_AGAIN and flow.stage == FormStage.SETUP
    assert flow.back() is None  # at the choices: nothing further back
    flow.set("p", "target", "3")
    flow.go()
    flow.go("1")  # a miss by two: no push offered, no damage die
    assert flow.stage == FormStage.RESULT and flow.faces == [1]
    assert flow.go() == Shown.COMMITTED
    assert EncounterFile(path).load().encounter.actions[-1].resolution.dice == (1,)


def test_a_player_may_take_back_typed_dice_only(saves: Path, gamble: None) -> None:
    flow = open_flow(gamble_file(saves), "Ann", role=Role.player(["Ann"]))
    fill(flow, "Ann", "swing", "Bob")
    flow.go()
    flow.go("")  # the app rolls the swing
    assert flow.back() == Shown.REFUSED and "the app's roll stands" in flow.error and len(flow.faces) >= 1


def test_the_commit_step_of_a_rollless_action_goes_back_as_typed(saves: Path) -> None:
    path = copy_save(saves, "freeform-bridge-ambush.toml")
    flow = open_flow(path)
    fill(flow, "Kestrel", "attack", "Brother-Oak")
    flow.set("d", "pt", "4")
    assert flow.go() == Shown.RESULT
    assert flow.back() == Shown.SETUP_AGAIN and flow.stage == FormStage.SETUP
    assert (flow.value("template"), flow.value("targets"), flow.value("pt")) == ("attack", "Brother-Oak", "4")
    assert flow.go() == Shown.RESULT
    assert flow.go() == Shown.COMMITTED
    assert EncounterFile(path).load().encounter.actions[-1].pt == 4


def test_maintain_with_dice_goes_through_the_flow(saves: Path, gamble: None) -> None:
    path = gamble_file(saves, ["declare Ann swing target=Bob faces=1", "next"])
    flow = open_flow(path)
    assert dice_plan.maintain_takes_dice(flow.session, "Ann")
    flow = open_flow(path, "Ann", MAINTAIN)
    assert flow.template is not None and flow.template.name == "swing"
    flow.go()
    assert flow.dice_prompt() == "next: Ann's Swing: 1d6"
    flow.go("5")
    flow.go("2")
    assert flow.stage == FormStage.RESULT
    assert flow.go() == Shown.COMMITTED
    saved = EncounterFile(path).load().encounter
    assert saved.events[-1].kind == "maintain" and saved.actions[-1].resolution.dice == (5,)


# ------------------------------------------------------------------ secret rolls
def test_a_secret_roll_is_committed_secret(saves: Path) -> None:
    """Issue 9: "Secret rolls show no dice and no totals." The GM marks the roll secret
    (one of the choices one key away); what viewers then see is test_ui_declare's."""
    path = copy_save(saves, "seraph-vs-sphinx.toml")
    flow = open_flow(path)
    fill(flow, "Seraph", "punch", "Sphinx")
    assert flow.template is not None and "secret" in flow.more_names(flow.template)
    changed = flow.set("d", "secret", "yes")
    assert changed is not None and changed.title
    assert flow.secret and "· secret ·" in flow.title()
    flow.go()
    flow.go("9,8")
    assert "Throwback Roll" in flow.dice_prompt()
    flow.go("9,9")
    assert flow.go() == Shown.COMMITTED
    assert flow.session.encounter.events[-1].args.get("secret") is True
    saved = EncounterFile(path).load().encounter
    assert saved.events[-1].args.get("secret") is True and saved.actions[-1].resolution.dice == (9, 8, 9, 9)


def test_a_typo_in_the_secret_mark_rolls_nothing(saves: Path) -> None:
    flow = open_flow(copy_save(saves, "seraph-vs-sphinx.toml"))
    fill(flow, "Seraph", "punch", "Sphinx")
    flow.set("d", "secret", "maybe")
    assert flow.go() == Shown.REFUSED and flow.stage == FormStage.SETUP and "secret" in flow.error


def test_a_player_is_not_offered_a_secret_roll(saves: Path) -> None:
    flow = open_flow(copy_save(saves, "seraph-vs-sphinx.toml"), "Seraph", role=Role.player(("Seraph",)))
    assert not flow.offers_secret and not flow.secret
    assert flow.template is not None and "secret" not in flow.more_names(flow.template)


# ------------------------------------------------------------------ again
@pytest.mark.parametrize("game", sorted(CASES))
def test_the_same_again_is_one_call_plus_the_dice_in_every_game(saves: Path, game: str) -> None:
    save, actor, action, _ = CASES[game]
    path = copy_save(saves, save)
    before = len(EncounterFile(path).load().encounter.events)
    flow = open_flow(path)
    flow.set("d", "actor", actor)
    assert flow.recent, "the save holds a declaration of the actor's"
    # The saves' blows (a D6 check made on the : line wants its difficulty again).
    index = next((i for i, r in enumerate(flow.recent) if r.targets), 0)
    again = flow.recent[index]
    assert flow.takes_again(str(index + 1), flow.values["template"])
    assert flow.take_recent(index)
    flow.advance()
    flow.roll_rest()
    assert flow.commit() == Shown.COMMITTED, flow.error
    made = flow.session.encounter.actions[-1]
    assert (made.actor, made.template, made.targets) == (actor, again.template, again.targets)
    saved = EncounterFile(path).load().encounter
    assert len(saved.events) == before + 1 and saved.events[-1].kind == "declare"


def test_taking_an_entry_fills_the_choices_and_asks_for_the_dice(saves: Path) -> None:
    flow = open_flow(copy_save(saves, "seraph-vs-sphinx.toml"))
    flow.set("d", "actor", "Seraph")
    assert [r.label() for r in flow.recent] == ["again: punch -> Sphinx"]
    assert flow.take_recent(0) and flow.advance() == Shown.ASKED
    flow.go("9,2")
    assert flow.stage == FormStage.DICE and flow.faces == [9, 2]
    assert (flow.value("template"), flow.value("targets")) == ("punch", "Sphinx")
    assert "85.00% (17/20)" in flow.chance_now()  # the chance of the choice taken


def test_the_last_ones_pt_and_modifiers_are_the_defaults_and_stay_editable(saves: Path, gamble: None) -> None:
    path = gamble_file(saves)
    flow = open_flow(path)
    flow.set("d", "actor", "Ann")
    assert not flow.recent
    fill(flow, "Ann", "swing", "Bob")
    flow.set("d", "pt", "6")
    flow.set("p", "target", "5")
    flow.go()
    flow.go("4")
    flow.go("3")
    assert flow.stage == FormStage.RESULT and flow.go() == Shown.COMMITTED
    flow.session.execute("next")  # the swing completes: Ann may act again
    flow = open_flow(path, "Ann")
    assert [r.label() for r in flow.recent] == ["again: swing -> Bob (PT 6, target=5)"]
    assert not flow.takes_again("2", flow.values["template"])  # no second entry: typed as usual
    assert not flow.takes_again("1", "x")  # after one's own typing a digit is typed
    assert flow.takes_again("1", "")  # emptied: the digit takes the entry again
    assert not flow.takes_again("1", None)  # a digit in another field is typed
    flow.set("d", "template", "")
    assert flow.take_recent(0) and flow.advance() == Shown.ASKED and flow.stage == FormStage.DICE
    assert flow.back() == Shown.SETUP_AGAIN  # back to the choices, filled with the last one's
    assert [flow.value(n) for n in ("template", "targets", "pt")] + [flow.param_values["swing"]["target"]] == ["swing", "Bob", "6", "5"]
    flow.set("d", "pt", "12")
    flow.go()
    flow.go("6")
    flow.go("1")
    assert flow.stage == FormStage.RESULT and flow.go() == Shown.COMMITTED
    made = flow.session.encounter.actions[-1]
    assert (made.template, made.targets, made.resolution.pt) == ("swing", ("Bob",), 12)


def test_a_player_is_never_offered_a_hidden_target(saves: Path, gamble: None) -> None:
    path = gamble_file(saves, ["add Cy hp=10", "declare Ann swing target=Bob faces=6,1", "step 10", "declare Ann swing target=Cy faces=6,1", "hide Cy"])
    gm = open_flow(path, "Ann")
    assert [r.label() for r in gm.recent] == ["again: swing -> Cy", "again: swing -> Bob"]
    player = open_flow(path, "Ann", role=Role.player(["Ann"]), user="ann")
    assert [r.label() for r in player.recent] == ["again: swing -> Bob"]
    assert "Cy" not in player.names


# ------------------------------------------------------------------ a player's proposal, edited
def _proposal(saves: Path) -> tuple[Path, int]:
    from tests.test_players import open_as
    from tracker.engine import table

    path = copy_save(saves, "seraph-vs-sphinx.toml")  # Seraph punched Sphinx before
    open_as(path, "alice").execute("add Nyx")
    open_as(path, "alice").setting(table.PLAYER_DECLARATIONS, table.APPROVAL)
    seq = open_as(path, "bob", Role.player(["Seraph"])).execute("declare Seraph punch target=Nyx faces=5,4,10,10").event.seq  # type: ignore[union-attr]
    return path, seq


def test_a_proposal_being_edited_is_never_replaced_by_a_recent_action(saves: Path) -> None:
    path, seq = _proposal(saves)
    flow = open_flow(path, user="alice", proposal=EncounterFile(path).load().encounter.proposal(seq))
    assert flow.recent == [] and not flow.takes_again("1", flow.values["template"]) and not flow.take_recent(0)
    assert flow.stage == FormStage.SETUP and flow.value("targets") == "Nyx"


def test_a_proposal_is_approved_as_edited_with_the_players_dice(saves: Path) -> None:
    path, seq = _proposal(saves)
    enc = EncounterFile(path).load().encounter
    flow = open_flow(path, user="alice", proposal=enc.proposal(seq))
    assert flow.actors == ["Seraph"] and flow.faces == [5, 4, 10, 10]
    assert flow.title().startswith(f"Edit proposal {seq} (Seraph, ")
    assert "the player proposed punch" in (flow.check("d", "template", "blast") or "")
    assert "refuse it instead" in (flow.check("d", "actor", "Sphinx") or "")
    flow.set("d", "targets", "Sphinx")
    assert flow.go() == Shown.RESULT and flow.faces == [5, 4, 10, 10]
    assert flow.go() == Shown.COMMITTED
    saved = EncounterFile(path).load().encounter
    assert saved.actions[-1].targets == ("Sphinx",) and list(saved.actions[-1].resolution.dice) == [5, 4, 10, 10]
    from tracker.engine.model import PENDING

    assert saved.proposal(seq).status != PENDING and saved.proposal(seq).changes


def test_a_proposal_marked_secret_in_the_form_is_approved_secret(saves: Path) -> None:
    """The form the GM edits a proposal in offers "secret" (and titles itself so): the
    approval carries it, as a declaration's does. Issue 9: "Secret rolls show no dice
    and no totals": the player who proposed it reads the roll as withheld."""
    path, seq = _proposal(saves)
    flow = open_flow(path, user="alice", proposal=EncounterFile(path).load().encounter.proposal(seq))
    assert flow.template is not None and "secret" in flow.more_names(flow.template)
    flow.set("d", "secret", "yes")
    assert flow.title() == f"Edit proposal {seq} (Seraph, punch against Nyx) · secret, then approve"
    assert flow.go() == Shown.RESULT and flow.go() == Shown.COMMITTED
    saved = EncounterFile(path).load().encounter
    assert saved.events[-1].kind == "approve" and saved.events[-1].args.get("secret") is True
    assert saved.actions[-1].secret and list(saved.actions[-1].resolution.dice) == [5, 4, 10, 10]
    initiated = [e.text for e in sight(saved, Role.player(["Seraph"])).log() if "initiates" in e.text]
    assert initiated[-1] == "Seraph initiates active punch at Nyx, PT 15, completes on segment 34 (rolled in secret)"


def test_approve_secret_true_on_the_command_line_approves_it_secret(saves: Path) -> None:
    """The same edit typed: `approve N secret=true` (a player's proposal is never secret)."""
    from tests.test_players import open_as

    path, seq = _proposal(saves)
    assert not EncounterFile(path).load().encounter.proposal(seq).args.get("secret")
    open_as(path, "alice").execute(f"approve {seq} secret=true")
    saved = EncounterFile(path).load().encounter
    assert saved.actions[-1].secret and list(saved.actions[-1].resolution.dice) == [5, 4, 10, 10]


def test_a_maintenance_is_not_made_secret_by_its_approval() -> None:
    """A maintenance keeps its action's secrecy (the form offers "secret" to declare
    only): `approve N secret=true` on one is refused, nothing changed."""
    from rulesets import registry
    from tracker.engine import CommandError
    from tests.helpers import session_for

    gm = session_for(registry.get("freeform"), "add Seraph hp=10", "add Sphinx hp=10", "declare Seraph attack target=Sphinx pt=3 damage=2", "step 3")
    gm.execute("setting player_declarations approval")
    player = Session(gm.encounter, gm.ruleset, RandomDice(1), user="bob", role=Role.player(["Seraph"]))
    seq = player.execute("maintain Seraph damage=1").event.seq  # type: ignore[union-attr]
    before = len(gm.encounter.events)
    with pytest.raises(CommandError, match="secret: only a declaration's roll may be made secret, not a maintain's"):
        gm.execute(f"approve {seq} secret=true")
    assert len(gm.encounter.events) == before and gm.encounter.proposal(seq).status == "pending"


def test_back_drops_a_proposals_dice_for_new_ones(saves: Path) -> None:
    """ctrl+b drops the player's dice at once: the GM then rolls or types new ones."""
    path, seq = _proposal(saves)
    flow = open_flow(path, user="alice", proposal=EncounterFile(path).load().encounter.proposal(seq))
    assert flow.go() == Shown.RESULT
    assert flow.back() == Shown.ASKED and flow.faces == [] and flow.stage == FormStage.DICE
    assert flow.dice_prompt() == "next: Seraph's Combat Roll: 2d10"


# ------------------------------------------------------------------ any order of steps
STEPS = st.sampled_from(["go", "go-typed", "go-roll", "roll_rest", "back", "again", "template", "targets", "pt", "param", "after"])


@pytest.mark.parametrize("game", sorted(CASES))
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(st.tuples(STEPS, st.sampled_from(["", "1", "3", "x", "2,2", "99", "true"])), max_size=25))
def test_any_order_of_steps_leaves_the_flow_whole(saves: Path, game: str, steps: list[tuple[str, str]]) -> None:
    """Whatever is called in whatever order, a step either does what it says or leaves a
    refusal in `error`; nothing changes the encounter until a commit; the save loads."""
    save, actor, action, target = CASES[game]
    path = saves / save
    shutil.copy(SAVES / save, path)
    flow = open_flow(path)
    fill(flow, actor, action, target)
    events = len(flow.session.encounter.events)
    for step, text in steps:
        template = flow.template
        if step == "go":
            fitting = faces_for(flow.dice_prompt()) if flow.stage == FormStage.DICE else []
            shown = flow.go(",".join(map(str, fitting)))  # faces that fit (none: the app rolls)
        elif step == "go-typed":
            shown = flow.go(text)
        elif step == "go-roll":
            shown = flow.go("")
        elif step == "roll_rest":
            shown = flow.roll_rest(text) or ""
        elif step == "back":
            shown = flow.back() or ""
        elif step == "again":
            shown = flow.advance() if flow.take_recent(0) else ""
        elif step in ("template", "targets", "pt"):
            flow.set("d", step, {"template": action, "targets": target}.get(step, text) if text != "x" else text)
            shown = ""
        else:
            fields = [p for p in flow.params if (p.stage == AFTER_ROLL) == (step == "after")]
            if template is None or not fields:
                continue
            flow.set("a" if step == "after" else "p", fields[0].name, text)
            shown = ""
        assert shown in ("", Shown.ASKED, Shown.RESULT, Shown.UPDATED, Shown.SETUP_AGAIN, Shown.REFUSED, Shown.COMMITTED), shown
        assert (shown == Shown.REFUSED) <= bool(flow.error)
        if shown == Shown.COMMITTED:
            assert len(flow.session.encounter.events) == events + 1
            break
        assert len(flow.session.encounter.events) == events
        assert flow.stage in (FormStage.SETUP, FormStage.DICE, FormStage.RESULT)
        # Every face belongs to one group, each group known as typed or rolled (back() takes one off).
        assert sum(flow.group_sizes) == len(flow.faces) and len(flow.group_rolled) == len(flow.group_sizes)
        assert flow.stage != FormStage.SETUP or not flow.faces
        if flow.stage == FormStage.DICE:
            assert flow.dice_prompt().startswith("next: ")
        if flow.stage == FormStage.RESULT:
            assert flow.result_lines()
    EncounterFile(path).load()  # the save still loads
