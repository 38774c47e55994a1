"""Direct tests of tracker.play.roster: the roster's changes (add, rename, side, reorder)
as the session makes them (module docstring: each function checks what it can at once
and returns the builder run against the freshest fight; names and sides are people's
text, checked for control characters, blanks and look-alikes, docs/decisions/0052-look-alike-names.md).
Names are unique ignoring case (tracker.engine.roster); copies are "Goblin 1".."Goblin 4"."""

from __future__ import annotations

import pytest

from rulesets import registry
from rulesets.freeform import FreeformRuleset
from tracker.engine import CommandError, Event, TrackerError
from tracker.play.roster import adding, check_side, numbered, renaming, reordering, siding
from tests.helpers import encounter

FREEFORM = FreeformRuleset()
CYRILLIC_O = "\u043e"  # looks like "o"
LOOKS = r"looks like {!r}, {}, but is not the same \(they differ by .*\); choose one that reads differently$"


def looks(name: str, other: str, whose: str = "a combatant in the fight") -> str:
    return repr(name).replace("(", r"\(") + " " + LOOKS.format(other, whose)


# ------------------------------------------------------------------ add
def test_an_added_combatant_carries_its_sheet_side_and_state() -> None:
    enc = encounter("Ann")
    made = adding(FREEFORM, "  Goblin  ", {"hp": "7", "kind": "orc"}, side="foes", hidden=True, surprised_until=3)(enc)
    assert made == Event(
        "add",
        {"name": "Goblin", "side": "foes", "hidden": True, "surprised_until": 3, "stats": {"kind": "orc"}, "resources": {"hp": 7}},
    )
    enc.apply(made)
    goblin = enc.combatant("Goblin")
    assert (goblin.side, goblin.hidden, goblin.resources["hp"]) == ("foes", True, 7)


def test_a_plain_add_has_no_side_and_is_not_hidden() -> None:
    made = adding(FREEFORM, "Goblin", {})(encounter())
    assert made == Event("add", {"name": "Goblin", "stats": {}, "resources": {"hp": 10}})


def test_an_add_without_a_name_is_refused() -> None:
    for name in ("", "   "):
        with pytest.raises(CommandError, match="^add: a combatant needs a name$"):
            adding(FREEFORM, name, {})


def test_an_adds_name_side_keys_and_text_values_are_checked_naming_the_field() -> None:
    with pytest.raises(TrackerError, match="^add: name: control characters are not allowed"):
        adding(FREEFORM, "Gob\x07lin", {})
    with pytest.raises(TrackerError, match="^add: name: a name fits in 40 terminal cells, this one takes 41$"):
        adding(FREEFORM, "G" * 41, {})
    with pytest.raises(TrackerError, match="^add: side: control characters are not allowed"):
        adding(FREEFORM, "Goblin", {}, side="fo\x1bes")
    with pytest.raises(TrackerError, match="^add: side: characters that draw as blank are not allowed"):
        adding(FREEFORM, "Goblin", {}, side="fo\u2800es")
    with pytest.raises(TrackerError, match="^add: key: control characters are not allowed"):
        adding(FREEFORM, "Goblin", {"h\x00p": "3"})
    with pytest.raises(TrackerError, match="^add: kind: control characters are not allowed"):
        adding(FREEFORM, "Goblin", {"kind": "o\x7frc"})
    # a value that is no text is the sheet's to check, not refused here
    assert adding(FREEFORM, "Goblin", {"hp": 5})(encounter()).args["resources"] == {"hp": 5}


def test_copies_run_from_1_to_100() -> None:
    enc = encounter()
    assert adding(FREEFORM, "Goblin", {}, copies=1)(enc).args.get("names") is None
    assert len(adding(FREEFORM, "Goblin", {}, copies=100)(enc).args["names"]) == 100
    for bad in (0, -1, 101):
        with pytest.raises(CommandError, match=f"^copies: expected 1 to 100, got {bad}$"):
            adding(FREEFORM, "Goblin", {}, copies=bad)


def test_a_sheets_numbers_and_the_surprise_are_bounded_at_once() -> None:
    with pytest.raises(TrackerError, match=r"^add Goblin: hp: expected a number of at most 1,000,000,000,000 in size, got 1e\+13$"):
        adding(FREEFORM, "Goblin", {"hp": str(10**13)})
    with pytest.raises(TrackerError, match=r"^surprised: expected a whole number from 0 to 1,000,000,000,000, got -1$"):
        adding(FREEFORM, "Goblin", {}, surprised_until=-1)
    # the game's own refusal names the change
    with pytest.raises(TrackerError, match=r"^add Goblin\.nonsense: expected one of the known keys"):
        adding(registry.get("brandx"), "Goblin", {"nonsense": "3"})
    # surprised until segment 0 is no surprise: not written
    assert "surprised_until" not in adding(FREEFORM, "Goblin", {}, surprised_until=0)(encounter()).args


def test_copies_are_numbered_and_share_the_sheet() -> None:
    made = adding(FREEFORM, "Goblin", {"hp": "4"}, side="foes", copies=3)(encounter("Ann"))
    assert made == Event(
        "add", {"name": "Goblin", "side": "foes", "stats": {}, "resources": {"hp": 4}, "names": ["Goblin 1", "Goblin 2", "Goblin 3"]}
    )


def test_copies_skip_the_numbers_already_taken_ignoring_case() -> None:
    enc = encounter("goblin 1", "Goblin 3")
    assert numbered(enc, "Goblin", 3) == ["Goblin 2", "Goblin 4", "Goblin 5"]
    assert numbered(encounter(), "Goblin", 1) == ["Goblin 1"]
    assert adding(FREEFORM, "Goblin", {}, copies=2)(enc).args["names"] == ["Goblin 2", "Goblin 4"]


def test_the_longest_copys_name_must_fit() -> None:
    base = "G" * 38  # "G...G 9" fits in 40 cells, "G...G 10" does not
    assert adding(FREEFORM, base, {}, copies=9)(encounter()).args["names"][-1] == base + " 9"
    with pytest.raises(TrackerError, match="^add: name: a name fits in 40 terminal cells, this one takes 41$"):
        adding(FREEFORM, base, {}, copies=10)(encounter())


def test_a_name_taken_or_looking_like_one_in_the_fight_is_refused() -> None:
    enc = encounter("Goblin")
    with pytest.raises(TrackerError, match=r"^there is already a combatant named 'Goblin' \(names are unique ignoring case\)$"):
        adding(FREEFORM, "GOBLIN", {})(enc)
    fake = f"G{CYRILLIC_O}blin"
    with pytest.raises(TrackerError, match="^add: name: " + looks(fake, "Goblin")):
        adding(FREEFORM, fake, {})(enc)


def test_copies_looking_like_a_combatant_are_refused_by_their_base_or_numbered_name() -> None:
    fake = f"G{CYRILLIC_O}blin"
    with pytest.raises(TrackerError, match="^add: name: " + looks(fake, "Goblin")):
        adding(FREEFORM, fake, {}, copies=2)(encounter("Goblin"))
    with pytest.raises(TrackerError, match="^add: name: " + looks(f"{fake} 2", "Goblin 2")):
        adding(FREEFORM, fake, {}, copies=2)(encounter("Goblin 2"))


def test_an_adds_side_is_checked_against_the_fight() -> None:
    enc = encounter()
    enc.apply(adding(FREEFORM, "Orc", {}, side="foes")(enc))
    fake = f"f{CYRILLIC_O}es"
    for copies in (1, 2):
        with pytest.raises(TrackerError, match="^add: side: " + looks(fake, "foes", "a side in the fight")):
            adding(FREEFORM, "Goblin", {}, side=fake, copies=copies)(enc)
    assert adding(FREEFORM, "Goblin", {}, side="foes")(enc).args["side"] == "foes"


# ------------------------------------------------------------------ rename
def test_a_rename_names_the_combatant_as_the_fight_spells_it() -> None:
    enc = encounter("Goblin", "Ann")
    assert renaming("goblin", "  Grub  ")(enc) == Event("rename", {"target": "Goblin", "name": "Grub"})
    # a change of case only is allowed: the name is the combatant's own
    assert renaming("Goblin", "GOBLIN")(enc) == Event("rename", {"target": "Goblin", "name": "GOBLIN"})


def test_a_rename_to_nothing_or_to_a_bad_name_is_refused_at_once() -> None:
    for new in ("", "  "):
        with pytest.raises(CommandError, match="^rename: the new name is empty$"):
            renaming("Goblin", new)
    with pytest.raises(TrackerError, match="^rename: new name: control characters are not allowed"):
        renaming("Goblin", "Gr\x07ub")


def test_a_rename_to_the_same_name_another_has_or_a_look_alike_is_refused() -> None:
    enc = encounter("Goblin", "Ann")
    with pytest.raises(CommandError, match="^rename: Goblin already has that name$"):
        renaming("goblin", "Goblin")(enc)
    with pytest.raises(TrackerError, match=r"^there is already a combatant named 'Ann' \(names are unique ignoring case\)$"):
        renaming("Goblin", "ann")(enc)
    fake = f"Ann{CYRILLIC_O}"
    enc.apply(Event("add", {"name": "Anno"}))
    with pytest.raises(TrackerError, match="^rename: new name: " + looks(fake, "Anno")):
        renaming("Goblin", fake)(enc)
    # a name that looks like the combatant's own is no look-alike of another
    assert renaming("Goblin", f"G{CYRILLIC_O}blin")(enc).args == {"target": "Goblin", "name": f"G{CYRILLIC_O}blin"}
    with pytest.raises(TrackerError, match="^no combatant"):
        renaming("Nobody", "Grub")(enc)


# ------------------------------------------------------------------ side
def test_a_side_is_set_by_the_combatants_name_as_the_fight_spells_it() -> None:
    enc = encounter("Goblin")
    assert siding("goblin", "  foes ")(enc) == Event("side", {"target": "Goblin", "side": "foes"})
    assert siding("goblin", "")(enc) == Event("side", {"target": "Goblin", "side": ""})


def test_a_bad_side_is_refused_naming_side() -> None:
    with pytest.raises(TrackerError, match="^side: control characters are not allowed"):
        siding("Goblin", "fo\x1bes")
    with pytest.raises(TrackerError, match="^side: characters that draw as blank are not allowed"):
        siding("Goblin", "fo\u3164es")
    enc = encounter("Goblin", "Ann")
    enc.apply(siding("Ann", "foes")(enc))
    fake = f"f{CYRILLIC_O}es"
    with pytest.raises(TrackerError, match="^side: " + looks(fake, "foes", "a side in the fight")):
        siding("Goblin", fake)(enc)
    with pytest.raises(TrackerError, match="^no combatant"):
        siding("Nobody", "foes")(enc)


def test_a_side_looking_like_a_players_word_is_refused() -> None:
    fake = "part\u0443"  # Cyrillic u, looks like "y"
    with pytest.raises(TrackerError, match="^side: " + looks(fake, "party", "a word that marks the players' side")):
        check_side(encounter(), fake, "side")
    check_side(encounter(), "party", "side")  # the word itself is the players' side
    check_side(encounter(), "", "side")  # no side: nothing to look like


def test_check_side_compares_only_with_the_sides_in_the_fight() -> None:
    enc = encounter("Ann", "Bo")  # no sides: an empty side looks like nothing
    check_side(enc, "foes", "side")
    enc.apply(Event("side", {"target": "Bo", "side": "foes"}))
    fake = f"f{CYRILLIC_O}es"
    with pytest.raises(TrackerError, match="^x: " + looks(fake, "foes", "a side in the fight")):
        check_side(enc, fake, "x")


# ------------------------------------------------------------------ reorder
def test_a_reorder_is_to_a_place_from_1_to_the_number_in_the_fight() -> None:
    enc = encounter("Ann", "Bo", "Cy")
    assert reordering("cy", 1)(enc) == Event("reorder", {"target": "Cy", "position": 1})
    assert reordering("Ann", 3)(enc) == Event("reorder", {"target": "Ann", "position": 3})
    for bad in (0, 4):
        with pytest.raises(CommandError, match=f"^reorder: position: expected 1 to 3, got {bad}$"):
            reordering("Ann", bad)(enc)
    with pytest.raises(TrackerError, match="^no combatant"):
        reordering("Nobody", 1)(enc)
