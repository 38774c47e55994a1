"""Direct tests of tracker.play.declaring: the declare flow without a screen (its module
docstring, docs/decisions/0001-declare-form.md, 0041-declare-again.md,
0042-declare-secret-roll.md, 0053-maintained-links.md and docs/guide/declaring.md).

The game is tests/test_ui_declare.py's Gamble: a swing rolls a d6 against `target`
(4 unless typed; 1 to 7), a hit then rolls a d4 of damage; after the roll, `push` (0-2)
adds to the total, offered at 1 on a miss by one, else 0; `flourish` (0-3) is the one
modifier one key away; `wait` rolls nothing. The GM's dice come from `Faces`, so each
face the app rolls is known; a save written is loaded again.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from rulesets.base import ActionRequest, ActionTemplate
from rulesets.dice import DiceSource
from rulesets.fields import AFTER_ROLL, PARAM, Field
from tracker.engine import Resolution, TrackerError
from tracker.engine.model import ACTIVE, Proposal
from tracker.persistence.store import EncounterFile
from tracker.play import dice_plan
from tracker.play.declaring import DeclareFlow
from tracker.play.form import FieldChange, FormStage, Shown
from tracker.play.requests import DECLARE, MAINTAIN
from tracker.play.session import Outcome, Session
from tracker.reading.roles import Role
from tests.helpers import session_for
from tests.test_ui_declare import CASES, Gamble, copy_save, gamble, gamble_file  # noqa: F401 (gamble: a fixture)

SETUP_HINT = "enter: next, dice from the last · ctrl+s: dice · ctrl+r: roll · ctrl+o"
DICE_HINT = "enter: these faces (empty: roll) · ctrl+r: roll the rest · ctrl+b: back"
RESULT_HINT = "enter: next, commit from the last · ctrl+s: commit · ctrl+b: back · esc"
PUSH = "after the roll: push 0-2 to add to the total"


class Faces:
    """The app's dice, face by face as given (a test knows each roll)."""

    def __init__(self, *faces: int) -> None:
        self.faces = list(faces)
        self.sides: list[int] = []

    def roll(self, sides: int) -> int:
        self.sides.append(sides)
        return self.faces.pop(0)


def gm_session(*lines: str, faces: tuple[int, ...] = ()) -> Session:
    session: Session = session_for(Gamble(), "add Ann hp=10", "add Bob hp=10", *lines)
    session.dice = Faces(*faces)
    return session


def swung(session: Session, actor: str = "Ann", at: str = "Bob", steps: int = 0, pt: int | None = None, secret: bool = False,
          **params: str) -> Session:
    """`actor` swings at `at` with these modifiers (a die of 1: a miss), then `steps` segments pass."""
    session.declare(actor, "swing", [at], pt=pt, faces=[1], params=params, secret=secret)
    if steps:
        session.execute(f"step {steps}")
    return session


def player_session(session: Session, names: list[str]) -> Session:
    return Session(session.encounter, session.ruleset, session.dice, user="ann", role=Role.player(names))


def flow_of(session: Session, actor: str | None = None, kind: str = DECLARE, **kw: Any) -> DeclareFlow:
    role = session.role
    return DeclareFlow(session, role, actor, kind, **kw)


def swing(flow: DeclareFlow, actor: str = "Ann", target: str = "Bob") -> None:
    flow.set("d", "actor", actor)
    flow.set("d", "template", "swing")
    flow.set("d", "targets", target)


# ------------------------------------------------------------------ opening
def test_a_fresh_form_opens_on_the_first_combatant_and_the_first_action() -> None:
    session = gm_session()
    flow = flow_of(session)
    assert flow.names == ["Ann", "Bob"] and flow.actors == ["Ann", "Bob"] and flow.actor == "Ann"
    assert flow.catalogue == ["swing", "wait"]
    assert flow.values == {"actor": "Ann", "template": "swing", "targets": "", "pt": "", "secret": "false"}
    assert flow.stage == FormStage.SETUP and flow.faces == [] and flow.group_sizes == [] and flow.group_rolled == []
    assert flow.step is None and flow.error == "" and flow.outcome is None
    assert flow.template is not None and flow.template.name == "swing"
    assert [p.name for p in flow.params] == ["target", "flourish", "push"]
    # The modifiers before the roll, at their defaults; the after-roll choice is not offered yet.
    assert flow.param_values == {"swing": {"target": "4", "flourish": "0"}} and flow.after_values == {}
    assert flow.offers_recent and flow.offers_secret and not flow.secret
    assert flow.template_put == "swing" and flow.recent == []
    assert flow.hint() == SETUP_HINT
    enc = session.encounter
    assert flow.title() == f"Declare an action · {enc.time.clock(enc.now)}"
    assert flow.kind == DECLARE and flow.seen_as == Role.gm() and flow.proposal is None
    assert flow.maintained is None  # a declaration maintains nothing
    assert flow.more_names(flow.template) == ["flourish", "secret"]


def test_a_game_with_no_actions_opens_with_the_action_field_empty() -> None:
    class Bare(Gamble):
        def catalogue(self) -> dict[str, Any]:
            return {}

    flow = flow_of(session_for(Bare(), "add Ann hp=10"))
    assert flow.catalogue == [] and flow.values["template"] == "" and flow.template_put == ""
    assert flow.template is None and flow.params == () and flow.template_info() == ""
    assert flow.takes_again("1", "") is False and flow.go() == Shown.REFUSED
    assert flow.error == "action: expected an action's name"


def test_the_actor_named_is_the_one_acting() -> None:
    flow = flow_of(gm_session(), "Bob")
    assert flow.actor == "Bob" and flow.values["actor"] == "Bob"


def test_a_player_acts_for_their_own_combatants_only() -> None:
    gm = gm_session("add Cy hp=10")
    player = player_session(gm, ["Bob"])
    flow = flow_of(player, "Ann")  # not theirs: their own first combatant instead
    assert flow.actors == ["Bob"] and flow.actor == "Bob" and flow.values["actor"] == "Bob"
    assert flow_of(player, "bob").actor == "bob"  # their own, as typed
    assert flow_of(player).actor == "Bob"
    assert not flow.offers_secret and not flow.secret
    assert flow.template is not None and flow.more_names(flow.template) == ["flourish"]
    nobody = player_session(gm, ["Zed"])
    alone = flow_of(nobody)
    assert alone.actors == [] and alone.actor == "" and alone.values["actor"] == ""
    assert alone.check("d", "actor", "Ann") == "actor: Ann is not your combatant; you declare for none here"
    assert flow.check("d", "actor", "Cy") == "actor: Cy is not your combatant; you declare for Bob"
    assert flow.check("d", "actor", "Bob") == ""


def test_a_hidden_combatant_is_no_suggestion_for_a_player() -> None:
    gm = gm_session("add Cy hp=10", "hide Cy")
    assert flow_of(gm).names == ["Ann", "Bob", "Cy"]
    player = player_session(gm, ["Ann"])
    flow = DeclareFlow(player, Role.player(["Ann"]))
    assert flow.names == ["Ann", "Bob"]


def test_an_empty_fight_opens_with_no_actor() -> None:
    session: Session = session_for(Gamble())
    flow = flow_of(session)
    assert flow.actors == [] and flow.actor == "" and flow.values["actor"] == ""
    assert flow.chance_now() == "chance of success: - (actor: expected a combatant's name)"


def test_to_maintain_the_action_field_is_empty_and_no_secret_is_offered() -> None:
    flow = flow_of(gm_session(), "Ann", MAINTAIN)
    assert flow.values["template"] == "" and not flow.offers_secret
    assert flow.template is None and flow.params == ()
    assert flow.template_info() == "nothing to maintain"
    enc = flow.session.encounter
    assert flow.title() == f"Maintain an action · {enc.time.clock(enc.now)}"
    flow.values["secret"] = "true"
    assert not flow.secret


# ------------------------------------------------------------------ what is shown
def test_the_action_is_summed_up_under_its_field() -> None:
    flow = flow_of(gm_session())
    assert flow.template_info() == "swing: active, PT 5, maintainable, rolls 1d6; a d6 swing"
    flow.set("d", "template", "wait")
    assert flow.template_info() == "wait: active, PT 3; no dice"
    flow.set("d", "template", "dance")  # no such action: nothing to sum up
    assert flow.template is None and flow.template_info() == "" and flow.params == ()


def test_the_secret_mark_is_in_the_title() -> None:
    flow = flow_of(gm_session())
    enc = flow.session.encounter
    changed = flow.set("d", "secret", "yes")
    assert changed == FieldChange("", title=True)
    assert flow.secret and flow.title() == f"Declare an action · secret · {enc.time.clock(enc.now)}"
    changed = flow.set("d", "secret", "perhaps")  # a typo: not secret (and said so)
    assert changed is not None and changed.title and "secret: expected true or false" in changed.error
    assert not flow.secret and flow.title() == f"Declare an action · {enc.time.clock(enc.now)}"
    flow.set("d", "secret", "")  # emptied: not secret
    assert not flow.secret


def test_the_dice_asked_for_are_named_with_an_example_that_fits() -> None:
    flow = flow_of(gm_session())
    swing(flow)
    assert flow.dice_prompt() == "" and flow.dice_done() == []
    assert flow.faces_hint() == "faces rolled, comma separated · enter alone: roll them"
    assert flow.go() == Shown.ASKED and flow.stage == FormStage.DICE
    assert flow.hint() == DICE_HINT
    assert flow.dice_prompt() == "next: Ann's Swing: 1d6" and flow.dice_done() == []
    assert flow.step is not None and flow.step.need is not None
    example = dice_plan.example(flow.step.need)
    assert 1 <= int(example) <= 6
    assert flow.faces_hint() == f"faces rolled, e.g. {example} · enter alone: roll them"
    assert flow.go("5") == Shown.ASKED  # a hit: the damage die next
    assert flow.dice_done() == ["Ann's Swing: 1d6 -> 5"]
    assert flow.dice_prompt() == "next: Ann's damage on a hit: 1d4"
    assert int(flow.faces_hint().split("e.g. ")[1].split(" ")[0]) <= 4


def test_the_result_shows_every_group_the_figures_the_summary_and_the_choices() -> None:
    flow = flow_of(gm_session())
    swing(flow)
    flow.go()
    assert flow.go("5") == Shown.ASKED
    assert flow.go("2") == Shown.RESULT and flow.stage == FormStage.RESULT
    assert flow.hint() == RESULT_HINT
    # 5 against 4, no push (not a miss by one): a hit by 1.
    assert flow.result_lines() == [
        "Ann's Swing: 1d6 -> 5", "Ann's damage on a hit: 1d4 -> 2", "success: yes · margin: 1 · total: 5 · PT 5", "swing 5: hit", PUSH,
    ]
    assert flow.after_choices() == {"push": "0"} and flow.after_offered and flow.after_active
    assert [p.name for p in flow.after_fields()] == ["push"]


def test_a_rollless_result_has_no_dice_and_no_choices() -> None:
    flow = flow_of(gm_session())
    flow.set("d", "template", "wait")
    assert flow.go() == Shown.RESULT and flow.stage == FormStage.RESULT
    assert flow.result_lines() == ["PT 3", "waits"]
    assert flow.after_choices() == {} and not flow.after_offered and not flow.after_active
    assert flow.after_fields() == []


# ------------------------------------------------------------------ unsaved input
@pytest.mark.parametrize("game", sorted(CASES))
def test_a_form_just_opened_holds_no_unsaved_input_in_any_game(saves: Path, game: str) -> None:
    """`q` asks first only when a form holds input a quit would lose (docs/guide/app.md):
    an action's modifiers at their defaults were put there by the form, not typed (D6's
    shoot opens with skill, range and cover filled; USOR's strike with its location)."""
    save, actor, action, target = CASES[game]
    path = copy_save(saves, save)
    loaded = EncounterFile(path).load()
    flow = DeclareFlow(Session(loaded.encounter, loaded.ruleset, Faces()), Role.gm())
    assert not flow.has_unsaved_input()
    flow.set("d", "targets", target)
    assert flow.has_unsaved_input()


def test_unsaved_input_is_anything_typed_or_any_step_taken() -> None:
    flow = flow_of(gm_session())
    assert not flow.has_unsaved_input()  # swing's modifiers at their defaults
    flow.set("p", "target", "5")
    assert flow.has_unsaved_input()
    flow.set("p", "target", " 4 ")  # the default again: nothing to lose
    assert not flow.has_unsaved_input()
    flow.set("p", "flourish", "")  # a default emptied is a change
    assert flow.has_unsaved_input()
    flow.set("p", "flourish", "0")
    flow.set("d", "template", "wait")
    assert not flow.has_unsaved_input()
    flow.put("p", "target", "2", template="wait")  # typed for an action that has no such modifier
    assert flow.has_unsaved_input()
    flow.put("p", "target", "", template="wait")
    assert not flow.has_unsaved_input()
    flow.set("d", "targets", "  ")
    assert not flow.has_unsaved_input()
    flow.set("d", "targets", "Bob")
    assert flow.has_unsaved_input()
    flow.set("d", "targets", "")
    flow.set("d", "secret", "yes")
    assert flow.has_unsaved_input()
    flow.set("d", "secret", "no")
    flow.set("d", "pt", "3")  # the PT is the step's: not counted before a step
    assert not flow.has_unsaved_input()
    assert flow.go() == Shown.RESULT and flow.has_unsaved_input()  # a step taken


def test_a_maintenance_has_unsaved_input_only_when_changed() -> None:
    session = swung(gm_session(), steps=5, target="5")
    flow = flow_of(session, "Ann", MAINTAIN)
    assert flow.param_values["swing"] == {"target": "5", "flourish": "0"}
    assert not flow.has_unsaved_input()
    flow.set("p", "flourish", "2")
    assert flow.has_unsaved_input()
    flow.set("p", "flourish", "0")
    assert not flow.has_unsaved_input()
    flow.set("d", "pt", "3")
    assert flow.has_unsaved_input()
    flow.set("d", "pt", " ")
    flow.set("d", "targets", "Bob")  # no targets to maintain: not input
    assert not flow.has_unsaved_input()
    assert flow.go() == Shown.ASKED and flow.has_unsaved_input()
    nothing = flow_of(gm_session(), "Ann", MAINTAIN)  # nothing to maintain, nothing typed
    assert not nothing.has_unsaved_input()
    nothing.set("d", "pt", "2")
    assert nothing.has_unsaved_input()


# ------------------------------------------------------------------ the fields
def test_each_field_is_checked_in_its_own_words() -> None:
    flow = flow_of(gm_session())
    assert flow.check("d", "actor", "Zed") == "no combatant named 'Zed' (combatants: Ann, Bob)"
    assert flow.check("d", "actor", " Bob ") == ""
    assert flow.check("d", "template", "dance") == "gamble has no action 'dance' (actions: swing, wait)"
    assert flow.check("d", "template", "wait") == ""
    assert flow.check("d", "targets", "Bob, Zed") == "no combatant named 'Zed' (combatants: Ann, Bob)"
    assert flow.check("d", "targets", "Bob, Ann") == ""
    assert flow.check("d", "pt", "0") == "pt: expected at least 1 segment, got 0"
    assert flow.check("d", "pt", " 3 ") == ""
    assert flow.check("d", "secret", "maybe") == "secret: expected true or false (or yes or no), got 'maybe'"
    assert flow.check("p", "target", "9") == "target: expected an integer from 1 to 7, got '9'"
    assert flow.check("p", "target", "7") == ""
    assert flow.check("a", "push", "3") == "push: expected an integer from 0 to 2, got '3'"
    assert flow.check("a", "push", " 2 ") == ""
    # Empty: nothing wrong yet; a field the action does not have: nothing to say.
    for group, name in (("d", "actor"), ("d", "pt"), ("d", "template"), ("p", "target"), ("a", "push")):
        assert flow.check(group, name, "  ") == ""
    assert flow.check("p", "pool", "x") == "" and flow.check("a", "wiggle", "x") == ""
    # No such field of the flow's: None.
    assert flow.check("d", "pool", "x") is None and flow.check("x", "actor", "Ann") is None
    assert flow.check("D", "actor", "Zed") is None


def test_a_field_changed_says_what_the_form_has_to_show_again() -> None:
    flow = flow_of(gm_session())
    assert flow.set("d", "pool", "3") is None and "pool" not in flow.values
    assert flow.set("x", "actor", "Bob") is None and flow.values["actor"] == "Ann"
    flow.error = "an earlier refusal"
    changed = flow.set("d", "pt", "0")
    assert changed == FieldChange("pt: expected at least 1 segment, got 0", chance=True)
    assert flow.error == "" and flow.values["pt"] == "0"
    assert flow.set("p", "target", "6") == FieldChange("", chance=True) and flow.param_values["swing"]["target"] == "6"
    # An after-roll choice before the result: nothing shown again.
    assert flow.set("a", "push", "2") == FieldChange("", shown=None)
    flow.set("d", "pt", "")
    swing(flow)
    flow.go()
    assert flow.stage == FormStage.DICE
    flow.error = "kept"
    assert flow.set("d", "pt", "4") == FieldChange("")  # not at the choices: no chance line
    assert flow.error == "kept"


def test_a_field_handed_over_already_is_not_held_again() -> None:
    flow = flow_of(gm_session())
    flow.put("d", "actor", "Bob")
    assert flow.set("d", "actor", "Ann", hold=False) == FieldChange("", chance=True)
    assert flow.values["actor"] == "Bob"  # the newer text stays


def test_the_actor_changed_shows_their_recent_actions() -> None:
    session = gm_session("declare Bob swing target=Ann faces=1")
    flow = flow_of(session)
    assert flow.recent == []
    flow.set("d", "actor", "Bob")
    assert [r.label() for r in flow.recent] == ["again: swing -> Ann"]
    flow.set("d", "actor", "bob")  # typed another way: the same combatant
    assert [r.label() for r in flow.recent] == ["again: swing -> Ann"]
    flow.set("d", "actor", "Zed")
    assert flow.recent == []


def test_modifiers_are_kept_per_action() -> None:
    flow = flow_of(gm_session())
    flow.set("p", "target", "6")
    flow.set("d", "template", "wait")
    assert flow.params == () and flow.template is not None and flow.template.name == "wait"
    assert flow.param_values == {"swing": {"target": "6", "flourish": "0"}, "wait": {}}
    flow.set("d", "template", "swing")
    assert flow.param_values["swing"] == {"target": "6", "flourish": "0"}


def test_put_holds_a_modifier_for_the_action_named_or_the_current_one() -> None:
    flow = flow_of(gm_session())
    flow.put("p", "target", "2", template="wait")
    flow.put("a", "push", "1")
    flow.put("p", "flourish", "3")
    assert flow.param_values == {"swing": {"target": "4", "flourish": "3"}, "wait": {"target": "2"}}
    assert flow.after_values == {"swing": {"push": "1"}}
    flow.put("x", "target", "5")  # no such group: nothing held
    assert flow.param_values["swing"]["target"] == "4"
    flow.set("d", "template", "dance")
    flow.put("p", "target", "5")  # no action: nowhere to hold it
    assert set(flow.param_values) == {"swing", "wait"}
    flow.put("d", "targets", " Bob ")
    assert flow.values["targets"] == " Bob " and flow.value("targets") == "Bob"


# ------------------------------------------------------------------ gathering
def test_the_choices_made_are_gathered_as_typed() -> None:
    flow = flow_of(gm_session())
    flow.set("d", "targets", " Bob , Ann ")
    flow.set("d", "pt", " 7 ")
    flow.set("p", "target", " 6 ")
    flow.set("p", "flourish", "  ")
    flow.set("a", "push", "2")
    attempt = flow.attempt()
    assert (attempt.kind, attempt.actor, attempt.template, attempt.targets, attempt.pt) == (DECLARE, "Ann", "swing", ("Bob", "Ann"), 7)
    assert attempt.params == {"target": "6"}  # an emptied modifier is none; the choice after the roll not yet
    assert flow.attempt(after=True).params == {"target": "6", "push": "2"}
    flow.after_active = True
    assert flow.attempt().params == {"target": "6", "push": "2"}
    flow.after_values["swing"]["push"] = " "
    assert flow.attempt().params == {"target": "6"}


def test_a_choice_missing_names_the_field() -> None:
    flow = flow_of(gm_session())
    flow.set("d", "actor", " ")
    with pytest.raises(TrackerError, match="^actor: expected a combatant's name$"):
        flow.attempt()
    flow.set("d", "actor", "Ann")
    flow.set("d", "template", " ")
    with pytest.raises(TrackerError, match="^action: expected an action's name$"):
        flow.attempt()
    flow.set("d", "template", "swing")
    flow.set("d", "pt", "0")
    with pytest.raises(TrackerError, match="^pt: expected at least 1 segment, got 0$"):
        flow.attempt()
    flow.set("d", "pt", "")
    flow.set("d", "secret", "maybe")
    with pytest.raises(TrackerError, match="^secret: "):
        flow.attempt()
    assert flow.go() == Shown.REFUSED and flow.stage == FormStage.SETUP and flow.error.startswith("secret: ")


def test_a_players_typo_in_secret_does_not_matter() -> None:
    flow = flow_of(player_session(gm_session(), ["Ann"]))
    flow.values["secret"] = "maybe"  # not offered to a player: never read
    swing(flow)
    assert flow.attempt().template == "swing"


def test_a_maintenance_is_the_link_in_full() -> None:
    session = swung(gm_session(), steps=5, target="5", flourish="2")
    flow = flow_of(session, "Ann", MAINTAIN)
    flow.set("p", "flourish", "")  # emptied: none this time
    flow.set("d", "targets", "Ann")  # no targets for a link
    attempt = flow.attempt()
    assert (attempt.kind, attempt.actor, attempt.template, attempt.targets, attempt.pt) == (MAINTAIN, "Ann", "swing", (), None)
    assert attempt.params == {"target": "5"} and attempt.kept is False


# ------------------------------------------------------------------ the chance
def test_the_chance_line_says_what_is_wrong_at_once_or_works_the_odds_later() -> None:
    flow = flow_of(gm_session())
    flow.set("d", "pt", "x")
    assert flow.chance() == "chance of success: - (pt: expected a whole number of segments, got 'x')"
    flow.set("d", "pt", "")
    assert callable(flow.chance())
    flow.set("d", "targets", "Bob")
    assert flow.chance_now() == "chance of success: 50.00% (1/2)"  # 4, 5 or 6 on a d6
    flow.set("p", "target", "6")
    assert flow.chance_now() == "chance of success: 16.67% (1/6)"
    flow.set("d", "targets", "Zed")
    assert flow.chance_now() == "chance of success: - (no combatant named 'Zed' (combatants: Ann, Bob))"
    flow.set("d", "template", "wait")
    flow.set("d", "targets", "")
    assert flow.chance_now() == "chance of success: no roll"


def test_an_action_that_rolls_has_no_odds_without_its_target(monkeypatch: pytest.MonkeyPatch) -> None:
    flow = flow_of(gm_session())
    monkeypatch.setattr(flow.session.ruleset, "chance_of", lambda request: None)
    assert flow.chance_now() == "chance of success: - (swing needs a target: name it under targets)"
    flow.set("d", "targets", "Bob")
    assert flow.chance_now() == "chance of success: no roll"  # the adapter's word, with its target
    flow.set("d", "targets", "")
    flow.set("d", "template", "wait")  # rolls nothing: no roll
    assert flow.chance_now() == "chance of success: no roll"


def test_a_bug_in_the_adapters_odds_does_not_end_the_form(monkeypatch: pytest.MonkeyPatch) -> None:
    flow = flow_of(gm_session())
    swing(flow)

    def broken(request: Any) -> Any:
        return 1 / 0

    monkeypatch.setattr(flow.session.ruleset, "chance_of", broken)
    assert flow.chance_now() == "chance of success: - (could not be computed: ZeroDivisionError)"


# ------------------------------------------------------------------ the steps
def test_the_app_rolls_all_the_rest_then_the_result() -> None:
    session = gm_session(faces=(5, 3))
    flow = flow_of(session)
    swing(flow)
    assert flow.roll_rest() == Shown.RESULT and flow.stage == FormStage.RESULT
    assert flow.faces == [5, 3] and flow.group_sizes == [1, 1] and flow.group_rolled == [True, True]
    assert session.dice.sides == [6, 4]  # type: ignore[attr-defined]
    assert flow.roll_rest() is None  # nothing to roll at the result
    assert flow.go() == Shown.COMMITTED
    assert flow.outcome is not None and flow.outcome.event.kind == "declare"
    assert flow.outcome.event.args["dice"] == "app"
    session.execute("step 5")  # the swing lands as it completes: 3 of damage
    assert session.encounter.combatants["Bob"].resources["hp"] == 7


def test_a_push_that_turns_a_miss_into_a_hit_asks_for_the_damage_die() -> None:
    """A miss by one offers push 1 (Gamble's default): the same die then hits, and the
    damage die is asked for before the result (docs/decisions/0001-declare-form.md)."""
    session = gm_session(faces=(3, 2))
    flow = flow_of(session)
    swing(flow)
    assert flow.roll_rest() == Shown.ASKED
    assert flow.stage == FormStage.DICE and flow.faces == [3] and flow.after_values == {"swing": {"push": "1"}}
    assert flow.dice_prompt() == "next: Ann's damage on a hit: 1d4"
    assert flow.roll_rest() == Shown.RESULT
    assert flow.faces == [3, 2] and flow.group_rolled == [True, True]
    assert flow.result_lines()[2:] == ["success: yes · margin: 0 · total: 4 · PT 5", "swing 4: hit", PUSH]


def test_faces_typed_before_ctrl_r_count_and_the_app_rolls_the_rest() -> None:
    session = gm_session(faces=(4, 5, 3))
    flow = flow_of(session)
    swing(flow)
    flow.go()
    assert flow.roll_rest("6") == Shown.RESULT
    assert flow.faces == [6, 4] and flow.group_rolled == [False, True]
    flow.back()
    flow.back()
    # A face typed wrong is said, not rolled over (a player's app roll would stand).
    assert flow.roll_rest("9") == Shown.REFUSED
    assert flow.stage == FormStage.DICE and flow.faces == [] and flow.error == "faces: die 1 is a d6; 9 is not one of its faces"
    assert session.dice.faces == [5, 3]  # type: ignore[attr-defined]
    assert flow.roll_rest("") == Shown.RESULT and flow.faces == [5, 3] and flow.error == ""


def test_faces_that_finish_the_roll_need_no_app_dice() -> None:
    session = gm_session()
    flow = flow_of(session)
    flow.set("d", "targets", "Bob")
    flow.set("p", "target", "7")  # a miss by two: no push offered, no damage die
    flow.go()
    assert flow.roll_rest("5") == Shown.RESULT and flow.faces == [5]
    assert session.dice.sides == []  # type: ignore[attr-defined]


def test_typed_and_rolled_groups_are_told_apart() -> None:
    session = gm_session(faces=(6,))
    flow = flow_of(session)
    swing(flow)
    assert flow.go() == Shown.ASKED
    assert flow.go("  ") == Shown.ASKED  # empty: the app rolls the swing
    assert flow.faces == [6] and flow.group_rolled == [True]
    assert flow.go("4") == Shown.RESULT
    assert flow.group_rolled == [True, False] and flow.group_sizes == [1, 1]
    assert flow.go() == Shown.COMMITTED
    assert flow.outcome is not None and flow.outcome.event.args["dice"] != "app"


def test_a_bad_face_is_refused_and_nothing_is_added() -> None:
    flow = flow_of(gm_session())
    swing(flow)
    flow.go()
    assert flow.enter_dice("7") == Shown.REFUSED
    assert flow.error == "faces: die 1 is a d6; 7 is not one of its faces" and flow.faces == [] and flow.group_sizes == []
    assert flow.enter_dice("5") == Shown.ASKED and flow.error == ""


def test_faces_with_nothing_asked_for_go_on() -> None:
    flow = flow_of(gm_session())
    flow.set("d", "template", "wait")
    assert flow.enter_dice("5") == Shown.RESULT and flow.faces == []
    assert flow.enter_dice("5") == Shown.RESULT and flow.faces == []  # at the result: nothing asked for


def test_a_refusal_at_the_choices_stays_there() -> None:
    flow = flow_of(gm_session())
    flow.set("d", "targets", "Zed")
    assert flow.go() == Shown.REFUSED and flow.stage == FormStage.SETUP
    assert flow.error == "no combatant named 'Zed' (combatants: Ann, Bob)" and flow.step is None
    flow.set("d", "targets", "Bob")
    assert flow.error == ""
    assert flow.go() == Shown.ASKED and flow.error == ""


def test_back_takes_off_one_group_then_goes_back_to_the_choices() -> None:
    flow = flow_of(gm_session())
    swing(flow)
    assert flow.back() is None
    flow.go()
    flow.go("5")
    flow.go("2")
    assert flow.after_active
    assert flow.back() == Shown.ASKED and flow.faces == [5] and flow.group_sizes == [1]
    assert flow.back() == Shown.ASKED and flow.faces == [] and flow.stage == FormStage.DICE
    flow.error = "a refusal"
    assert flow.back() == Shown.SETUP_AGAIN
    assert flow.stage == FormStage.SETUP and flow.step is None and not flow.after_active and flow.error == ""
    assert flow.dice_prompt() == ""


def test_back_takes_off_a_whole_group_of_several_faces(saves: Path) -> None:
    flow = DeclareFlow(_brandx(saves), Role.gm())
    flow.set("d", "actor", "Seraph")
    flow.set("d", "template", "punch")
    flow.set("d", "targets", "Sphinx")
    flow.go()
    flow.go("9,8")
    assert flow.faces == [9, 8] and flow.group_sizes == [2]
    assert flow.back() == Shown.ASKED and flow.faces == [] and flow.group_sizes == [] and flow.group_rolled == []


def _brandx(saves: Path) -> Session:
    path = copy_save(saves, "seraph-vs-sphinx.toml")
    file = EncounterFile(path)
    loaded = file.load()
    return Session(loaded.encounter, loaded.ruleset, Faces(), file)


def test_a_player_may_take_back_typed_dice_not_the_apps() -> None:
    gm = gm_session()
    player = player_session(gm, ["Ann"])
    flow = flow_of(player)
    swing(flow)
    flow.go()
    flow.go("")  # the app's roll (the player's own draw)
    assert len(flow.faces) == 1 and flow.group_rolled == [True]
    assert flow.back() == Shown.REFUSED
    assert flow.error == "the app's roll stands: a player may take back typed dice only; ask the GM"
    assert len(flow.faces) >= 1 and flow.group_rolled[0] is True
    typed = flow_of(player)
    swing(typed)
    typed.go()
    typed.go("1")
    assert typed.back() == Shown.ASKED and typed.faces == []
    rolled_by_gm = flow_of(gm_session(faces=(1,)))
    swing(rolled_by_gm)
    rolled_by_gm.go()
    rolled_by_gm.go("")
    assert rolled_by_gm.back() == Shown.ASKED and rolled_by_gm.faces == []


def test_the_players_app_dice_stand_however_often_asked() -> None:
    gm = gm_session()
    player = player_session(gm, ["Ann"])
    first = flow_of(player)
    swing(first)
    first.roll_rest()
    again = flow_of(player)
    swing(again)
    again.roll_rest()
    assert first.faces == again.faces and first.group_rolled == again.group_rolled
    assert all(first.group_rolled)


def test_an_after_roll_choice_changes_the_same_dice() -> None:
    flow = flow_of(gm_session())
    swing(flow)
    flow.go()
    flow.go("3")  # a miss by one: push 1 offered, so it hits: the damage die
    assert flow.go("2") == Shown.RESULT and flow.after_choices() == {"push": "1"}
    changed = flow.set("a", "push", "2")
    assert changed == FieldChange("", shown=Shown.UPDATED)
    assert flow.result_lines()[2:4] == ["success: yes · margin: 1 · total: 5 · PT 5", "swing 5: hit"]
    changed = flow.set("a", "push", "0")  # a miss: the damage die typed is unused
    assert changed is not None and changed.shown == Shown.REFUSED and "unused" in flow.error
    assert flow.stage == FormStage.RESULT
    changed = flow.set("a", "push", "9")
    assert changed is not None and changed.error == "push: expected an integer from 0 to 2, got '9'"
    flow.set("a", "push", "1")
    assert flow.error == ""
    assert flow.go() == Shown.COMMITTED
    assert flow.outcome is not None and flow.outcome.event.args["params"]["push"] == "1"


def test_an_after_roll_choice_that_wants_more_dice_asks_for_them() -> None:
    flow = flow_of(gm_session())
    swing(flow)
    flow.go()
    flow.go("2")  # a miss by two: push 0, no damage die
    assert flow.stage == FormStage.RESULT and flow.after_choices() == {"push": "0"}
    assert flow.set("a", "push", "2") == FieldChange("", shown=Shown.ASKED)
    assert flow.stage == FormStage.DICE and flow.dice_prompt() == "next: Ann's damage on a hit: 1d4"
    assert flow.after_changed() is None  # not at the result: nothing to work out again
    assert flow.go("4") == Shown.RESULT and flow.after_choices() == {"push": "2"}


def test_the_adapters_word_on_the_choices_is_asked_with_a_roll_only(monkeypatch: pytest.MonkeyPatch) -> None:
    flow = flow_of(gm_session())
    assert flow.after_budget(None) == ""
    swing(flow)
    flow.go()
    assert flow.step is not None and flow.after_budget(flow.step) == ""  # no resolution yet
    flow.go("5")
    flow.go("1")
    assert flow.after_budget(flow.step) == "push 0-2 to add to the total"

    def refused(request: Any, resolution: Any) -> str:
        raise TrackerError("no")

    monkeypatch.setattr(flow.session.ruleset, "after_roll", refused)
    assert flow.after_budget(flow.step) == ""
    monkeypatch.setattr(flow.session.ruleset, "after_roll_defaults", refused)
    assert flow.step is not None and flow.after_defaults(flow.step) == {}


def test_the_choices_start_at_the_field_default_where_the_adapter_offers_none(monkeypatch: pytest.MonkeyPatch) -> None:
    flow = flow_of(gm_session())
    monkeypatch.setattr(flow.session.ruleset, "after_roll_defaults", lambda request, resolution: None)
    swing(flow)
    flow.go()
    flow.go("6")
    assert flow.go("1") == Shown.RESULT and flow.after_choices() == {"push": ""}  # push has no default


def test_choices_made_for_a_roll_go_when_the_dice_offer_none(monkeypatch: pytest.MonkeyPatch) -> None:
    """After back(), other dice that leave nothing to choose: the earlier choices no
    longer apply and the result is worked out again without them."""
    flow = flow_of(gm_session())
    swing(flow)
    flow.go()
    flow.go("2")
    flow.set("a", "push", "2")
    flow.go("3")
    assert flow.stage == FormStage.RESULT and flow.after_active
    assert flow.result_lines()[2] == "success: yes · margin: 0 · total: 4 · PT 5"
    # This swing's budget: only on a six now.
    monkeypatch.setattr(flow.session.ruleset, "after_roll", lambda request, resolution: "push" if resolution.dice == (6,) else "")
    flow.back()
    flow.back()
    assert flow.go("5") == Shown.ASKED  # a hit without a push
    assert flow.go("1") == Shown.RESULT
    assert not flow.after_active and not flow.after_offered and flow.after_choices() == {}
    assert flow.result_lines()[2] == "success: yes · margin: 1 · total: 5 · PT 5"
    assert flow.go() == Shown.COMMITTED
    assert flow.outcome is not None and "push" not in flow.outcome.event.args["params"]


# ------------------------------------------------------------------ again
def test_a_digit_takes_a_recent_entry_only_in_the_action_field_as_put() -> None:
    session = gm_session("declare Ann swing target=Bob faces=1", "step 5", "declare Ann wait", "step 3")
    flow = flow_of(session, "Ann")
    assert [r.label() for r in flow.recent] == ["again: wait", "again: swing -> Bob"]
    assert flow.takes_again("1", "swing") and flow.takes_again("2", " swing ") and flow.takes_again("2", "")
    assert not flow.takes_again("3", "")  # no third entry
    assert not flow.takes_again("0", "") and not flow.takes_again("a", "") and not flow.takes_again("12", "")
    assert not flow.takes_again("", "") and not flow.takes_again(None, "")
    assert not flow.takes_again("1", "sw") and not flow.takes_again("1", None)
    flow.set("d", "targets", "Bob")
    flow.go()
    assert flow.stage == FormStage.RESULT or flow.stage == FormStage.DICE
    assert not flow.takes_again("1", "swing")


def test_taking_an_entry_fills_every_choice_asked() -> None:
    session = swung(gm_session(), steps=6, pt=6, secret=True, target="5")
    flow = flow_of(session, "Ann")
    flow.set("p", "flourish", "3")
    flow.put("a", "push", "2")
    assert not flow.take_recent(-1) and not flow.take_recent(1)
    assert flow.take_recent(0)
    assert flow.values == {"actor": "Ann", "template": "swing", "targets": "Bob", "pt": "6", "secret": "true"}
    assert flow.template_put == "swing"
    # The entry's modifiers, the others at their defaults; the choice after the roll stays.
    assert flow.param_values["swing"] == {"target": "5", "flourish": "0"}
    assert flow.after_values["swing"] == {"push": "2"}
    assert flow.advance() == Shown.ASKED
    assert not flow.take_recent(0)  # not at the choices


def test_an_entry_without_pt_or_secret_leaves_them_empty_and_open() -> None:
    session = gm_session("declare Ann wait", "step 3")
    flow = flow_of(session, "Ann")
    flow.set("d", "pt", "9")
    flow.set("d", "secret", "true")
    flow.set("d", "targets", "Bob")
    assert flow.take_recent(0)
    assert flow.values == {"actor": "Ann", "template": "wait", "targets": "", "pt": "", "secret": "false"}
    assert flow.template_put == "wait" and flow.takes_again("1", "wait")


def test_a_player_taking_an_entry_has_no_secret_mark_set() -> None:
    gm = gm_session("declare Ann swing target=Bob faces=1 secret=true", "step 5")
    flow = flow_of(player_session(gm, ["Ann"]), "Ann")
    assert flow.take_recent(0)
    assert flow.values["secret"] == "false"


def test_no_recent_actions_to_maintain() -> None:
    session = gm_session("declare Ann swing target=Bob faces=1", "step 5")
    assert flow_of(session, "Ann", MAINTAIN).recent == []
    assert [r.label() for r in flow_of(session, "Ann").recent] == ["again: swing -> Bob"]


# ------------------------------------------------------------------ maintaining
def test_maintaining_opens_with_the_links_own_modifiers() -> None:
    session = swung(gm_session(), steps=5, target="5", flourish="2")
    flow = flow_of(session, "Ann", MAINTAIN)
    assert flow.template is not None and flow.template.name == "swing" and flow.maintained is not None
    assert flow.param_values == {"swing": {"target": "5", "flourish": "2"}}
    assert flow.template_info() == "link 1 of Ann's swing at Bob; a d6 swing"
    assert flow.chance_now() == "chance of success: 33.33% (1/3)"  # 5 or 6
    flow.go()
    flow.go("6")
    flow.go("3")
    assert flow.stage == FormStage.RESULT and flow.go() == Shown.COMMITTED
    assert flow.outcome is not None and flow.outcome.event.kind == "maintain"
    session.execute("step 5")
    assert session.encounter.combatants["Bob"].resources["hp"] == 7


def test_a_second_link_is_named_so_and_a_hidden_target_is_not_named() -> None:
    session = gm_session("declare Ann swing target=Bob faces=1", "step 5", "maintain Ann faces=1", "step 5")
    flow = flow_of(session, "Ann", MAINTAIN)
    assert flow.template_info() == "link 2 of Ann's swing at Bob; a d6 swing"
    session.execute("hide Bob")
    player = player_session(session, ["Ann"])
    assert DeclareFlow(player, Role.player(["Ann"]), "Ann", MAINTAIN).template_info() == "link 2 of Ann's swing; a d6 swing"


def test_another_actor_to_maintain_fills_their_link_or_nothing() -> None:
    session = swung(swung(gm_session(), target="5"), "Bob", "Ann", steps=5, target="6")
    flow = flow_of(session, "Ann", MAINTAIN)
    flow.set("p", "target", "3")
    flow.set("d", "actor", "Bob")
    assert flow.param_values["swing"] == {"target": "6", "flourish": "0"}
    assert flow.template_info() == "link 1 of Bob's swing at Ann; a d6 swing"
    assert not flow.has_unsaved_input()
    flow.set("d", "actor", "Zed")
    assert flow.template is None and flow.maintained is None and flow.params == ()
    assert flow.template_info() == "nothing to maintain"
    flow.set("d", "actor", "Ann")
    assert flow.param_values["swing"] == {"target": "5", "flourish": "0"}  # filled again from Ann's link
    flow.set("p", "target", "2")
    flow.set("d", "actor", "Ann")  # the same link: what was typed stays
    assert flow.param_values["swing"]["target"] == "2"


def test_a_maintenance_commits_the_link_in_full(saves: Path, gamble: None) -> None:
    path = gamble_file(saves)
    file = EncounterFile(path)
    loaded = file.load()
    session = swung(Session(loaded.encounter, loaded.ruleset, Faces(), file), steps=5, target="5", flourish="2")
    flow = flow_of(session, "Ann", MAINTAIN)
    flow.set("p", "flourish", "")
    flow.set("d", "pt", "4")
    flow.go()
    flow.go("6")
    flow.go("1")
    assert flow.go() == Shown.COMMITTED
    saved = EncounterFile(path).load().encounter
    assert saved.events[-1].kind == "maintain"
    assert saved.events[-1].args["params"] == {"target": "5", "push": "0"}
    assert saved.actions[-1].pt == 4 and saved.actions[-1].resolution.dice == (6,)


# ------------------------------------------------------------------ the commit
def test_the_commit_goes_through_the_run_given_with_exactly_these_faces(saves: Path, gamble: None) -> None:
    path = gamble_file(saves)
    file = EncounterFile(path)
    loaded = file.load()
    session = Session(loaded.encounter, loaded.ruleset, Faces(), file)
    ran: list[Session] = []

    def run(change: Any) -> Outcome:
        ran.append(session)
        done: Outcome = change(session)
        return done

    flow = DeclareFlow(session, Role.gm(), "Ann", run=run)
    swing(flow)
    flow.set("d", "pt", "6")
    flow.set("d", "secret", "yes")
    flow.set("p", "flourish", "1")
    flow.go()
    flow.go("6")
    flow.go("4")
    flow.set("a", "push", "2")
    assert flow.go() == Shown.COMMITTED and len(ran) == 1
    saved = EncounterFile(path).load().encounter
    event = saved.events[-1]
    assert event.kind == "declare" and event.args["secret"] is True and event.args["targets"] == ["Bob"]
    assert event.args["params"] == {"target": "4", "flourish": "1", "push": "2"} and event.args["dice"] == "typed"
    assert saved.actions[-1].pt == 6 and saved.actions[-1].resolution.dice == (6,)
    session.execute("step 6")
    assert EncounterFile(path).load().encounter.combatants["Bob"].resources["hp"] == 6


def test_a_refused_commit_says_why_and_changes_nothing() -> None:
    session = gm_session()
    flow = flow_of(session)
    swing(flow)
    flow.go()
    flow.go("5")
    flow.go("1")
    events = len(session.encounter.events)
    flow.values["targets"] = "Zed"  # handed over after the result
    assert flow.commit() == Shown.REFUSED and flow.error == "no combatant named 'Zed' (combatants: Ann, Bob)"
    assert flow.outcome is None and len(session.encounter.events) == events


def test_a_rollless_commit_has_no_faces() -> None:
    session = gm_session()
    flow = flow_of(session)
    flow.set("d", "template", "wait")
    flow.go()
    assert flow.go() == Shown.COMMITTED
    assert flow.outcome is not None and flow.outcome.event.args["template"] == "wait"
    assert session.encounter.actions[-1].resolution.dice == ()


# ------------------------------------------------------------------ a player's proposal, edited
def proposed(*lines: str, pt: int | None = 6, faces: tuple[int, ...] = (5, 2), **params: str) -> tuple[Session, int]:
    """Ann's player proposes a swing at Bob (player_declarations = approval); the GM's session."""
    gm: Session = session_for(Gamble(), "add Ann hp=10", "add Bob hp=10", *lines, player_declarations="approval")
    gm.dice = Faces()
    player = player_session(gm, ["Ann"])
    done = player.declare("Ann", "swing", ["Bob"], pt=pt, faces=list(faces), params=params)
    assert done.event.kind == "propose"
    return gm, done.event.seq


def test_a_proposal_opens_as_the_player_made_it() -> None:
    gm, seq = proposed(target="5", flourish="1")
    flow = flow_of(gm, proposal=gm.encounter.proposal(seq))
    assert flow.title() == f"Edit proposal {seq} (Ann, swing against Bob), then approve"
    assert flow.actors == ["Ann"] and flow.actor == "Ann"
    assert flow.values == {"actor": "Ann", "template": "swing", "targets": "Bob", "pt": "6", "secret": "false"}
    assert flow.param_values == {"swing": {"target": "5", "flourish": "1"}}
    # The player's dice, one group, not this app's roll; no recent action replaces it.
    assert flow.faces == [5, 2] and flow.group_sizes == [2] and flow.group_rolled == [False]
    assert flow.recent == [] and not flow.offers_recent and flow.offers_secret
    assert flow.check("d", "actor", "Bob") == f"actor: proposal {seq} is Ann's; refuse it instead"
    assert flow.check("d", "actor", "ann") == ""
    assert flow.check("d", "template", "wait") == "action: the player proposed swing; refuse it (r) to have them declare another"
    assert flow.check("d", "template", "Swing") == ""
    flow.set("d", "secret", "yes")
    assert flow.title() == f"Edit proposal {seq} (Ann, swing against Bob) · secret, then approve"


def test_a_proposal_without_pt_leaves_it_empty() -> None:
    gm, seq = proposed(pt=None)
    flow = flow_of(gm, proposal=gm.encounter.proposal(seq))
    assert flow.values["pt"] == "" and flow.param_values == {"swing": {"target": "4", "flourish": "0"}}


def test_a_proposal_is_approved_as_edited_with_the_players_dice() -> None:
    gm, seq = proposed("add Cy hp=10", target="5")
    ran: list[str] = []

    def run(change: Any) -> Outcome:
        ran.append("approve")
        done: Outcome = change(gm)
        return done

    flow = flow_of(gm, proposal=gm.encounter.proposal(seq), run=run)
    flow.set("d", "targets", "Cy")
    flow.set("d", "pt", "7")
    flow.set("d", "secret", "true")
    assert flow.go() == Shown.RESULT and flow.faces == [5, 2]
    assert flow.after_choices() == {"push": "0"}  # the adapter's: the player chose none
    assert flow.go() == Shown.COMMITTED and ran == ["approve"]
    assert flow.outcome is not None and flow.outcome.event.kind == "approve"
    action = gm.encounter.actions[-1]
    assert (action.actor, action.template, action.targets, action.pt, action.secret) == ("Ann", "swing", ("Cy",), 7, True)
    assert action.resolution.dice == (5,)
    assert gm.encounter.proposal(seq).status != "pending"


def test_the_players_after_roll_choice_holds_for_their_dice() -> None:
    """A push of 2 turned the player's 3 into a hit, so their dice hold the damage die:
    the proposal opens with their push, and its dice are the result at once."""
    gm, seq = proposed(faces=(3, 2), target="5", push="2")
    flow = flow_of(gm, proposal=gm.encounter.proposal(seq))
    assert flow.go() == Shown.RESULT, flow.error
    assert flow.after_choices() == {"push": "2"}
    assert flow.result_lines()[2:4] == ["success: yes · margin: 0 · total: 5 · PT 6", "swing 5: hit"]
    assert flow.back() == Shown.ASKED and flow.faces == []  # the player's dice dropped at once
    assert flow.back() == Shown.SETUP_AGAIN and not flow.after_active
    assert flow.go() == Shown.ASKED
    assert flow.go("4") == Shown.ASKED  # the player's push again by default: a hit, the damage die
    assert flow.after_values["swing"] == {"push": "2"}
    assert flow.go("1") == Shown.RESULT and flow.go() == Shown.COMMITTED
    action = gm.encounter.actions[-1]
    assert action.resolution.summary == "swing 6: hit" and action.resolution.dice == (4,)  # the GM's dice, not the player's


def test_the_gms_edits_of_the_modifiers_and_choices_are_approved() -> None:
    gm, seq = proposed(faces=(3, 2), target="5", push="2")
    flow = flow_of(gm, proposal=gm.encounter.proposal(seq))
    flow.set("p", "target", "4")
    assert flow.go() == Shown.RESULT
    assert flow.set("a", "push", "1") == FieldChange("", shown=Shown.UPDATED)  # 3 and 1 make 4: still a hit
    assert flow.go() == Shown.COMMITTED
    action = gm.encounter.actions[-1]
    assert action.resolution.summary == "swing 4: hit" and action.resolution.dice == (3,)


def test_a_proposed_maintenance_is_approved_with_no_targets_to_edit() -> None:
    gm: Session = session_for(Gamble(), "add Ann hp=10", "add Bob hp=10", player_declarations="approval")
    gm.dice = Faces()
    swung(gm, steps=5, target="5")
    player = player_session(gm, ["Ann"])
    done = player.maintain("Ann", pt=4, faces=[6, 3], params={"target": "5"}, kept=False)
    assert done.event.kind == "propose"
    flow = flow_of(gm, "Ann", MAINTAIN, proposal=gm.encounter.proposal(done.event.seq))
    assert flow.values["template"] == "" and flow.values["targets"] == "" and flow.values["pt"] == "4"
    assert flow.template is not None and flow.template.name == "swing" and not flow.offers_secret
    assert flow.param_values["swing"]["target"] == "5" and flow.faces == [6, 3]
    assert flow.has_unsaved_input()  # a proposal being decided: the GM's to approve or refuse
    assert flow.check("d", "template", "wait") == ""  # a maintenance's action is the link's: not checked against the proposal
    assert flow.go() == Shown.RESULT and flow.go() == Shown.COMMITTED
    assert flow.outcome is not None and flow.outcome.event.kind == "approve" and "targets" not in flow.outcome.event.args
    link = gm.encounter.actions[-1]
    assert (link.actor, link.template, link.pt, link.resolution.dice) == ("Ann", "swing", 4, (6,))


def test_a_proposed_maintenance_whose_moment_has_passed_opens_with_nothing_to_maintain() -> None:
    gm: Session = session_for(Gamble(), "add Ann hp=10", "add Bob hp=10", player_declarations="approval")
    gm.dice = Faces()
    swung(gm, steps=5, target="5")
    done = player_session(gm, ["Ann"]).maintain("Ann", faces=[6, 3], params={"target": "5"}, kept=False)
    gm.execute("step 1")  # the moment to maintain has passed
    flow = flow_of(gm, "Ann", MAINTAIN, proposal=gm.encounter.proposal(done.event.seq))
    assert flow.template is None and flow.template_info() == "nothing to maintain" and flow.param_values == {}


class Volleys(Gamble):
    """Gamble with a second after-roll choice, `spin` (0-3, 1 unless chosen), and a
    `volley` at two targets that rolls nothing."""

    id = "volleys"
    _SWING = Gamble._CATALOGUE["swing"]
    _CATALOGUE = {
        "swing": replace(_SWING, params=(*_SWING.params, Field("spin", "int", 1, minimum=0, maximum=3, role=PARAM, stage=AFTER_ROLL))),
        "volley": ActionTemplate("volley", ACTIVE, 4, "two at once", targets=2, maintainable=True),
        "guard": ActionTemplate("guard", ACTIVE, 2, maintainable=True),
        "brace": ActionTemplate("brace", ACTIVE, 2, rolls="1d6"),  # rolls, at nobody
        "wait": Gamble._CATALOGUE["wait"],
    }

    def resolve(self, request: ActionRequest, dice: DiceSource) -> Resolution:
        if request.template.name in ("volley", "guard"):
            return Resolution(request.pt or request.template.pt, summary=f"a {request.template.name}")
        return super().resolve(request, dice)

    maintain = resolve

    def after_roll(self, request: ActionRequest, resolution: Resolution) -> str:
        # A guard has a word after the roll but no choice to make.
        return "stand fast" if request.template.name == "guard" else super().after_roll(request, resolution)


def volley_proposed(template: str, targets: list[str], faces: list[int] | None = None, **params: str) -> tuple[Session, Proposal]:
    gm: Session = session_for(Volleys(), "add Ann hp=10", "add Bob hp=10", "add Cy hp=10", player_declarations="approval")
    gm.dice = Faces()
    done = player_session(gm, ["Ann"]).declare("Ann", template, targets, faces=faces, params=params)
    return gm, gm.encounter.proposal(done.event.seq)


def test_a_proposal_at_two_targets_names_both() -> None:
    gm, proposal = volley_proposed("volley", ["Bob", "Cy"])
    flow = flow_of(gm, proposal=proposal)
    assert flow.values["targets"] == "Bob, Cy" and flow.values["template"] == "volley"
    assert flow.faces == [] and flow.group_sizes == [] and flow.group_rolled == []  # no dice proposed: none to take back
    assert flow.go() == Shown.RESULT and flow.back() == Shown.SETUP_AGAIN
    assert flow.go() == Shown.RESULT and flow.go() == Shown.COMMITTED  # approved: no choice after a roll to gather
    assert gm.encounter.actions[-1].targets == ("Bob", "Cy")


def test_nothing_to_maintain_is_said_on_the_chance_line_and_refused() -> None:
    flow = flow_of(gm_session(), "Ann", MAINTAIN)
    said = "Ann has no completed attack that can be maintained (rule: maintained attack)"
    assert flow.chance_now() == f"chance of success: - ({said})"
    assert flow.go() == Shown.REFUSED and flow.error == said and flow.stage == FormStage.SETUP


def test_taking_an_entry_at_two_targets_names_both() -> None:
    gm: Session = session_for(Volleys(), "add Ann hp=10", "add Bob hp=10", "add Cy hp=10")
    gm.declare("Ann", "volley", ["Bob", "Cy"])
    gm.execute("step 4")
    flow = flow_of(gm, "Ann")
    assert flow.take_recent(0) and flow.values["targets"] == "Bob, Cy" and flow.values["template"] == "volley"


def test_the_players_after_roll_choices_not_made_start_at_their_defaults() -> None:
    gm, proposal = volley_proposed("swing", ["Bob"], faces=[3, 2], target="5", push="2")
    flow = flow_of(gm, proposal=proposal)
    assert flow.after_values["swing"] == {"push": "2", "spin": "1"}
    assert flow.go() == Shown.RESULT and flow.after_choices() == {"push": "2", "spin": "1"}


def test_a_proposal_whose_event_is_not_in_the_log_opens_with_no_dice() -> None:
    gm, proposal = volley_proposed("swing", ["Bob"], faces=[5, 2])
    for seq in (0, len(gm.encounter.events) + 1):
        flow = flow_of(gm, proposal=replace(proposal, seq=seq))
        assert flow.faces == [] and flow.group_sizes == [] and flow.group_rolled == []
    assert flow_of(gm, proposal=proposal).faces == [5, 2]


def test_a_maintained_link_names_each_target_and_a_description_only_if_it_has_one() -> None:
    gm: Session = session_for(Volleys(), "add Ann hp=10", "add Bob hp=10", "add Cy hp=10")
    gm.declare("Ann", "volley", ["Bob", "Cy"])  # completes on 4
    gm.declare("Bob", "guard", [])  # completes on 2, maintained to 4
    gm.execute("step 2")
    gm.maintain("Bob")
    gm.execute("step 2")
    assert flow_of(gm, "Ann", MAINTAIN).template_info() == "link 1 of Ann's volley at Bob, Cy; two at once"
    assert flow_of(gm, "Bob", MAINTAIN).template_info() == "link 2 of Bob's guard"
    fresh = flow_of(gm)
    fresh.set("d", "template", "guard")
    assert fresh.template_info() == "guard: active, PT 2, maintainable"


def test_a_word_after_the_roll_with_nothing_to_choose_is_not_shown() -> None:
    flow = flow_of(session_for(Volleys(), "add Ann hp=10"))
    flow.set("d", "template", "guard")
    assert flow.go() == Shown.RESULT
    assert flow.after_fields() == [] and not flow.after_active
    assert flow.result_lines() == ["PT 2", "a guard"]


def test_the_result_is_asked_for_only_once_there_is_one() -> None:
    flow = flow_of(gm_session())
    swing(flow)
    flow.go()
    with pytest.raises(AssertionError):
        flow.result_lines()


def test_maintainable_is_said_as_the_table_settings_have_it(saves: Path) -> None:
    """Brand X maintains a punch only where `maintain_hand_attacks` says so."""
    session = _brandx(saves)
    flow = DeclareFlow(session, Role.gm(), "Seraph")
    flow.set("d", "template", "punch")
    assert "maintainable" not in flow.template_info()
    session.encounter.setup.settings["maintain_hand_attacks"] = True  # the table's house rule, as a save sets it
    assert flow.template_info().startswith("punch: active, PT ") and ", maintainable" in flow.template_info()


def test_an_action_that_rolls_at_nobody_has_no_roll_without_odds(monkeypatch: pytest.MonkeyPatch) -> None:
    flow = flow_of(session_for(Volleys(), "add Ann hp=10"))
    monkeypatch.setattr(flow.session.ruleset, "chance_of", lambda request: None)
    flow.set("d", "template", "brace")
    assert flow.chance_now() == "chance of success: no roll"


def test_the_adapters_note_follows_the_odds(monkeypatch: pytest.MonkeyPatch) -> None:
    flow = flow_of(gm_session())
    swing(flow)
    monkeypatch.setattr(flow.session.ruleset, "chance_note", lambda request: f"{request.actor.name}'s {request.template.name}")
    assert flow.chance_now() == "chance of success: 50.00% (1/2) · Ann's swing"


def test_the_adapters_defaults_after_the_roll_are_asked_of_the_request(monkeypatch: pytest.MonkeyPatch) -> None:
    flow = flow_of(gm_session())
    monkeypatch.setattr(flow.session.ruleset, "after_roll_defaults", lambda request, resolution: {"push": request.params["target"] - 3})
    swing(flow)
    flow.set("p", "target", "5")
    flow.go()
    assert flow.go("6") == Shown.ASKED and flow.go("1") == Shown.RESULT
    assert flow.after_choices() == {"push": "2"}


def test_enter_alone_at_the_dice_rolls_them_and_text_at_the_choices_is_no_faces() -> None:
    flow = flow_of(gm_session(faces=(5, 1, 6, 2)))
    swing(flow)
    flow.go()
    assert flow.go() == Shown.ASKED and flow.faces == [5] and flow.group_rolled == [True]
    fresh = flow_of(flow.session)
    swing(fresh)
    assert fresh.roll_rest("9") == Shown.RESULT and fresh.faces == [1]  # the app's 1: a miss, no damage die


def test_a_player_of_two_is_told_both_names() -> None:
    flow = flow_of(player_session(gm_session("add Cy hp=10"), ["Ann", "Bob"]))
    assert flow.check("d", "actor", "Cy") == "actor: Cy is not your combatant; you declare for Ann, Bob"


def test_only_a_digit_from_1_to_9_takes_an_entry() -> None:
    flow = flow_of(swung(gm_session(), steps=5), "Ann")
    assert flow.takes_again("1", "")
    for character in (":", "0", "/", "a"):
        assert not flow.takes_again(character, "")


def test_a_modifier_held_for_an_action_not_yet_chosen_is_input() -> None:
    flow = flow_of(gm_session())
    flow.put("p", "note", "x", template="wait")
    assert flow.has_unsaved_input()


def test_a_maintenance_rolled_by_the_app_is_marked_so() -> None:
    session = swung(gm_session(faces=(6, 3)), steps=5)
    flow = flow_of(session, "Ann", MAINTAIN)
    assert flow.roll_rest() == Shown.RESULT and flow.go() == Shown.COMMITTED
    assert flow.outcome is not None and flow.outcome.event.kind == "maintain" and flow.outcome.event.args["dice"] == "app"
