"""Direct tests of tracker.play.dice_plan: the declare form's dry run (module docstring:
resolve with the faces typed so far; when they run out the adapter names the group it
wants next, "Seraph's Combat Roll: 2d10", "reroll of a 1: 1d10"; a conditional group
appears only when the rule calls for it; nothing changes the encounter), and the text
the form shows of it (the function docstrings' own examples).

The Brand X fight is the shipped `seraph-vs-sphinx.toml` (Seraph punches Sphinx, whose
Throwback Roll answers); seed 004: a 1 on the Combat Roll is rolled again."""

from __future__ import annotations

import pytest

from rulesets.base import MARGIN_NAME
from rulesets.dice import DiceGroup, DiceNeeded
from rulesets.freeform import FreeformRuleset
from tracker.engine import Resolution, TrackerError
from tracker.persistence.store import EncounterFile
from tracker.play.dice_plan import (
    Step,
    _figure,
    _sets,
    accept,
    dry_run,
    example,
    group_lines,
    maintain_takes_dice,
    prompt,
    remaining,
    result_figures,
    roll,
)
from tracker.play.requests import DECLARE, MAINTAIN, Attempt
from tracker.play.session import Session
from rulesets.dice import RandomDice
from tests.helpers import SHIPPED, session_for

COMBAT = DiceGroup("Combat Roll", (10, 10), "Seraph")
REROLL = DiceGroup("Combat Roll: reroll of a 1 (subtracted)", (10,), "Seraph")
THROWBACK = DiceGroup("Throwback Roll", (10, 10), "Sphinx")
PUNCH = Attempt(DECLARE, "Seraph", "punch", ("Sphinx",))


def _brandx(**settings: object) -> Session:
    loaded = EncounterFile(SHIPPED / "seraph-vs-sphinx.toml").load()
    loaded.encounter.setup.settings.update(settings)
    return Session(loaded.encounter, loaded.ruleset, RandomDice(1))


# ------------------------------------------------------------------ the dry run
def test_the_dry_run_asks_for_each_group_in_turn() -> None:
    session = _brandx()
    events, actions = len(session.encounter.events), len(session.encounter.actions)
    step = dry_run(session, PUNCH, ())
    assert not step.done and step.resolution is None
    assert step.need is not None and (step.need.group, step.need.have, step.need.index) == (COMBAT, (), 0)
    assert step.groups == [(COMBAT, [])] and step.request is not None and step.request.actor.name == "Seraph"
    step = dry_run(session, PUNCH, (7,))
    assert step.need is not None and (step.need.group, step.need.have) == (COMBAT, (7,))
    step = dry_run(session, PUNCH, (7, 3))
    assert step.need is not None and (step.need.group, step.need.have, step.need.index) == (THROWBACK, (), 2)
    assert step.groups == [(COMBAT, [7, 3]), (THROWBACK, [])]
    step = dry_run(session, PUNCH, (7, 3, 9, 9))
    assert step.done and step.need is None and step.resolution is not None and step.resolution.dice == (7, 3, 9, 9)
    assert step.groups == [(COMBAT, [7, 3]), (THROWBACK, [9, 9])]
    assert step.request is not None and [t.name for t in step.request.targets] == ["Sphinx"]
    assert (len(session.encounter.events), len(session.encounter.actions)) == (events, actions)  # nothing changed


def test_a_conditional_group_is_asked_for_only_when_the_rule_calls_for_it() -> None:
    step = dry_run(_brandx(), PUNCH, (1, 5))  # a 1: rolled again
    assert step.need is not None and (step.need.group, step.need.index) == (REROLL, 2)
    step = dry_run(_brandx(), PUNCH, (1, 5, 3, 9, 9))
    assert step.done and step.groups == [(COMBAT, [1, 5]), (REROLL, [3]), (THROWBACK, [9, 9])]


def test_faces_the_roll_did_not_use_are_refused() -> None:
    with pytest.raises(TrackerError, match="^faces: 5 typed but the roll used 4; unused: 1$"):
        dry_run(_brandx(), PUNCH, (7, 3, 9, 9, 1))
    with pytest.raises(TrackerError, match="no combatant"):
        dry_run(_brandx(), Attempt(DECLARE, "Nobody", "punch", ("Sphinx",)), ())


def test_a_maintained_link_is_resolved_as_maintained() -> None:
    session = session_for(FreeformRuleset(), "add Ann", "add Bo", "declare Ann attack target=Bo pt=2", "next")
    step = dry_run(session, Attempt(MAINTAIN, "Ann"), ())
    assert step.done and step.resolution is not None
    assert step.resolution.summary == "nothing stated: the link deals no damage"  # the game's maintain, not resolve
    declared = dry_run(session, Attempt(DECLARE, "Ann", "attack", ("Bo",)), ())
    assert declared.resolution is not None and declared.resolution.summary == ""


def test_maintaining_takes_the_form_when_it_rolls_or_the_game_asks() -> None:
    free = session_for(FreeformRuleset(), "add Ann", "add Bo", "declare Ann attack target=Bo pt=2", "next")
    assert maintain_takes_dice(free, "Ann")  # freeform: the GM states each link
    assert not maintain_takes_dice(free, "Bo")  # nothing to maintain: refused, so no form
    assert not maintain_takes_dice(_brandx(), "Seraph")  # a punch is not maintained at this table
    assert maintain_takes_dice(_brandx(maintain_hand_attacks=True), "Seraph")  # the Throwback Roll


# ------------------------------------------------------------------ the dice asked for
def _need(group: DiceGroup, have: tuple[int, ...] = (), index: int = 0) -> DiceNeeded:
    return DiceNeeded(group, have, index)


def test_remaining_is_the_dice_not_typed_yet() -> None:
    assert remaining(_need(COMBAT)) == (10, 10)
    assert remaining(_need(COMBAT, (7,))) == (10,)
    assert remaining(_need(DiceGroup("mixed", (6, 8, 8)), (3,))) == (8, 8)


def test_faces_typed_are_checked_with_the_command_lines_words() -> None:
    assert accept(_need(COMBAT), [7, 3]) == [7, 3]
    assert accept(_need(COMBAT, (7,)), [3]) == [3]
    with pytest.raises(TrackerError, match="^faces: die 3 is a d10; 11 is not one of its faces$"):
        accept(_need(THROWBACK, (), 2), [11])
    with pytest.raises(TrackerError, match="^faces: die 4 is a d10; 0 is not one of its faces$"):
        accept(_need(THROWBACK, (9,), 2), [0])
    with pytest.raises(TrackerError, match="^faces: Sphinx's Throwback Roll: 2d10 is 2 dice; 3 faces were typed$"):
        accept(_need(THROWBACK, (9,), 2), [9, 9])


def test_roll_rolls_only_the_rest_of_the_group() -> None:
    asked: list[int] = []

    class Highest:
        def roll(self, sides: int) -> int:
            asked.append(sides)
            return sides

    assert roll(_need(DiceGroup("mixed", (6, 8, 4)), (2,)), Highest()) == [8, 4]  # type: ignore[arg-type]
    assert asked == [8, 4]


def test_the_prompt_names_the_group_and_what_is_still_missing() -> None:
    assert prompt(_need(COMBAT)) == "Seraph's Combat Roll: 2d10"
    assert prompt(_need(COMBAT, (7,))) == "Seraph's Combat Roll: 2d10 (have 7; 1d10 to go)"
    assert prompt(_need(DiceGroup("damage", (6, 8, 8, 8)), (3, 5))) == "damage: 1d6+3d8 (have 3, 5; 2d8 to go)"


def test_the_example_is_faces_the_dice_have_high_and_low_by_turns() -> None:
    assert example(_need(COMBAT)) == "7,3"
    assert example(_need(DiceGroup("d4s", (4, 4)))) == "3,1"
    assert example(_need(DiceGroup("d12s", (12, 12)))) == "8,4"
    assert example(_need(DiceGroup("many", (10, 10, 10, 10)))) == "7,3,7,…"
    assert example(_need(DiceGroup("many", (10, 10, 10)))) == "7,3,7"
    assert example(_need(DiceGroup("many", (10, 10, 10)), (4,))) == "7,3"
    assert example(_need(COMBAT), shown=1) == "7,…"
    assert example(_need(DiceGroup("coins", (1, 1, 2)))) == "1,1,1"  # never 0, never over the die


def test_group_lines_list_the_complete_groups_rolled() -> None:
    assert group_lines([(COMBAT, [7, 3]), (REROLL, []), (THROWBACK, [9])]) == ["Seraph's Combat Roll: 2d10 -> 7, 3"]
    assert group_lines([(REROLL, [3])]) == ["Seraph's Combat Roll: reroll of a 1 (subtracted): 1d10 -> 3"]
    assert group_lines([]) == []


# ------------------------------------------------------------------ the result's figures
def test_figures_are_written_as_the_game_says_them() -> None:
    assert (_figure(True), _figure(False)) == ("yes", "no")
    assert (_figure(3.0), _figure(2.5), _figure(4), _figure("hit")) == ("3", "2.5", "4", "hit")
    assert _figure([1, 2.0, (True, "x")]) == "1 2 yes x"
    assert _sets([[2, 5], [3, 1]]) == "2x5, 3x1"
    assert _sets(((2.0, 5), (3, 1.0))) == "2x5, 3x1"
    assert _sets([[2, 5], [3]]) == "2 5 3"  # not all pairs: the figures as they are
    assert _sets([2, 5]) == "2 5"
    assert _sets(7) == "7"


def test_the_result_lists_success_margin_shown_details_and_pt() -> None:
    plain = Resolution(4)
    assert result_figures(plain) == ["PT 4"]
    assert result_figures(Resolution(4, False, 0)) == ["success: no", "margin: 0", "PT 4"]
    full = Resolution(
        15,
        True,
        3.0,
        details={
            MARGIN_NAME: "critical stages", "target": 9, "total": 14, "q": 0, "sets": [[2, 5]], "rp": "", "roll": [],
            "width": (), "height": None, "hits": {"a": 1}, "nost": False, "unknown": 5, "result": {"x": 1},
        },
    )
    assert result_figures(full) == [
        "success: yes", "critical stages: 3", "total: 14", "q: 0", "sets: 2x5", "nost: no", "target: 9", "PT 15",
    ]
    assert result_figures(Resolution(2, None, 1, details={MARGIN_NAME: ""}))[0] == "margin: 1"
    assert result_figures(Resolution(2, None, 1, details={MARGIN_NAME: 5}))[0] == "margin: 1"
    assert result_figures(Resolution(2, details={"width": 3, "sets": 4}))[:2] == ["sets: 4", "width: 3"]
    # only ORE's sets are written as sets: pairs under another key are figures
    assert result_figures(Resolution(2, details={"roll": [[2, 5], [3, 1]]}))[0] == "roll: 2 5 3 1"


def test_a_step_is_done_only_with_a_resolution() -> None:
    assert not Step([]).done
    assert Step([], resolution=Resolution(1)).done
