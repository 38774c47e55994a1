"""Direct tests of tracker.engine.kinds, each written for a mutant that survived the rule
tests; expected values are worked from the module's docstring, the decision records and
the user guide."""

from __future__ import annotations

import pytest

from tracker.engine import kinds
from tracker.engine.kinds import GM_ONLY, NOT_SECRET, OWN_ACTOR, OWN_LAST, OWN_PROPOSAL, counted, describe_args, fmt, guard_of, refused_as
from tests.test_engine_kinds import WORDS


def test_a_number_is_written_with_its_noun_as_a_person_writes_it() -> None:
    """`counted`'s docstring: '1 fight', '2 fights', '0.5 hours'."""
    assert counted(1, "fight") == "1 fight"
    assert counted(2, "fight") == "2 fights"
    assert counted(0.5, "hour") == "0.5 hours"
    assert counted(1.0, "round") == "1 round"


def test_a_value_is_said_as_a_sheet_says_it() -> None:
    """`fmt`'s docstring: 2.5, 3, "x" (floats without a trailing .0), yes or no."""
    assert fmt(2.5) == "2.5" and fmt(3.0) == "3" and fmt(3) == "3" and fmt("x") == "x"
    assert fmt(True) == "yes" and fmt(False) == "no"


@pytest.mark.parametrize("kind", list(WORDS))
def test_each_kinds_row_says_the_words_it_always_had(kind: str) -> None:
    for args, words in WORDS[kind]:
        assert describe_args(kind, args) == words
    assert describe_args("shout", {}) == "shout" and describe_args(5, {}) == 5


def test_damage_on_several_and_a_proposal_of_each_action_are_worded() -> None:
    assert describe_args("damage", {"target": "Ann", "amount": 3, "resource": "hp", "also": ["Bo", {"target": "Cy"}, {}]}) == "Ann, Bo, Cy, ? takes 3 hp"
    assert describe_args("damage", {"target": "Ann", "amount": 0, "resource": "hp"}) == "Ann takes 0 hp"
    assert describe_args("damage", {"target": "Ann", "amount": "lots", "resource": "hp"}) == "Ann takes lots hp"
    assert describe_args("add", {}) == "? joins the fight"
    assert describe_args("propose", {"actor": "Ann", "template": "punch", "targets": ["Bo"]}) == "proposal: Ann declares punch against Bo"
    assert describe_args("propose", {"action": "maintain", "actor": "Ann"}) == "proposal: Ann maintains the attack"
    assert describe_args("refuse", {"target": 3, "reason": ""}) == "the GM refuses proposal 3"


def test_a_refusal_names_a_kind_by_its_rows_words_else_by_its_name() -> None:
    assert refused_as("advance") == "moving time (next, step)"
    assert refused_as("damage") == "damage"  # no words of its own
    assert refused_as("library") == "library"  # not an event
    assert guard_of("declare") == OWN_ACTOR and guard_of("withdraw") == OWN_PROPOSAL
    assert guard_of("undo") == OWN_LAST and guard_of("roll") == NOT_SECRET
    assert guard_of("damage") == GM_ONLY and guard_of("library") == GM_ONLY
    assert kinds.KINDS["rename"].rewrites_history
