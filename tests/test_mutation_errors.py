"""Direct tests of tracker.engine.errors: the refusals a user can act on. Expected values
are worked from the module's comments: a refusal names the combatants a reader may
know; past NAMES_IN_A_REFUSAL (8) those that look like what was typed first (starting
with it, or holding it, ignoring case), then the first ones, and how many more."""

from __future__ import annotations

from tracker.engine.errors import NAMES_IN_A_REFUSAL, CommandError, RuleRefusal, TrackerError, listed, no_such_combatant


def test_a_rule_refusal_names_its_rule() -> None:
    e = RuleRefusal("one active action at a time", "Ann is busy")
    assert str(e) == "Ann is busy (rule: one active action at a time)"
    assert e.rule == "one active action at a time"
    assert isinstance(e, TrackerError) and issubclass(CommandError, TrackerError)


def test_a_few_names_are_all_listed() -> None:
    assert NAMES_IN_A_REFUSAL == 8
    assert listed([]) == "none yet"
    assert listed(["Ann"]) == "Ann"
    eight = [f"G{i}" for i in range(1, 9)]
    assert listed(eight, "x") == "G1, G2, G3, G4, G5, G6, G7, G8"


def test_of_many_names_those_like_the_typed_one_come_first() -> None:
    names = ["Ann", "Bo", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal", "Orc 1", "big orc", "Orca"]
    assert listed(names) == "Ann, Bo, Cy, Dee, Eve, Fay, Gus, Hal and 3 more"
    assert listed(names + ["Xxxx"]) == "Ann, Bo, Cy, Dee, Eve, Fay, Gus, Hal and 4 more"
    assert listed(names, " ORC ") == "Orc 1, big orc, Orca, Ann, Bo, Cy, Dee, Eve and 3 more"
    assert listed(names, "a") == "Ann, Fay, Hal, Orca, Bo, Cy, Dee, Eve and 3 more"
    assert listed(names, "zz") == "Ann, Bo, Cy, Dee, Eve, Fay, Gus, Hal and 3 more"
    nine = [f"Goblin {i}" for i in range(1, 10)]
    assert listed(nine, "goblin") == "Goblin 1, Goblin 2, Goblin 3, Goblin 4, Goblin 5, Goblin 6, Goblin 7, Goblin 8 and 1 more"
    assert listed(nine + ["Ann"], "ann") == "Ann, Goblin 1, Goblin 2, Goblin 3, Goblin 4, Goblin 5, Goblin 6, Goblin 7 and 2 more"


def test_no_such_combatant_names_what_was_typed_and_who_is_there() -> None:
    e = no_such_combatant("Zed", ["Ann", "Bo"])
    assert isinstance(e, TrackerError)
    assert str(e) == "no combatant named 'Zed' (combatants: Ann, Bo)"
    assert str(no_such_combatant("Zed", [], "damage: ")) == "damage: no combatant named 'Zed' (combatants: none yet)"
    many = [f"Orc {i}" for i in range(1, 10)] + ["Zedd"]
    assert str(no_such_combatant("zed", many)) == (
        "no combatant named 'zed' (combatants: Zedd, Orc 1, Orc 2, Orc 3, Orc 4, Orc 5, Orc 6, Orc 7 and 2 more)")
