"""ORE combat arithmetic against what is known of the rules (reference/systems.md, 4.3
and 4.4: the seed has no combat text), each number worked by hand from the sentence."""

from __future__ import annotations

import pytest

from rulesets.ore.combat import Boxes, DamageFormula, armour, boxes_of, gobble, location_for, mark, parse_damage
from tracker.engine.errors import TrackerError


def test_gobble_dice_take_one_die_each_from_a_set_no_higher_down_to_a_failed_set() -> None:
    """ "each gobble die removes one die from an incoming attack set of equal or lower
    Height; a set reduced below width 2 fails"; O8: "incoming attack 3x7, defender gobble
    set 2x8: both gobble dice usable -> attack 1x7 -> fails"."""
    assert gobble(3, 7, 2, 8) == (1, 2)  # O8
    assert gobble(3, 7, 2, 7) == (1, 2)  # equal Height: usable
    assert gobble(3, 7, 2, 6) == (3, 0)  # lower Height: none usable
    assert gobble(3, 7, 1, 8) == (2, 1)  # one die takes one die: 2x7 still stands
    # The defender uses what it takes to spoil the set: a 2x5 needs one of four dice.
    assert gobble(2, 5, 4, 9) == (1, 1)
    assert gobble(4, 5, 2, 9) == (2, 2)
    assert gobble(1, 5, 2, 9) == (1, 0)  # no set to spoil
    assert gobble(3, 7, 0, 9) == (3, 0)  # no gobble dice


def test_heavy_armour_takes_width_first_and_light_armour_turns_killing_into_shock() -> None:
    """ "Heavy armour (HAR) reduces the attack's Width; if Width falls to 1 or less the
    attack does nothing. Light armour (LAR) reduces all Shock of the attack to 1 point and
    converts Killing equal to LAR into Shock. Penetration lowers HAR and LAR by 1 per
    point [...] HAR applies before LAR." """
    width_killing = parse_damage("width killing")
    hit = armour(4, width_killing, har=2, lar=0)  # width 4 - 2 = 2: 2 Killing
    assert (hit.width, hit.shock, hit.killing) == (2, 0, 2)
    assert "HAR 2: width 4 -> 2" in hit.note
    stopped = armour(4, width_killing, har=3, lar=0)  # width 1: nothing
    assert (stopped.width, stopped.shock, stopped.killing) == (1, 0, 0)
    assert stopped.note == "HAR 3: width 4 -> 1; the armour stops it"
    assert armour(3, width_killing, har=3, lar=0).note == "HAR 3: width 3 -> 0; the armour stops it"
    assert armour(2, width_killing, har=4, lar=0).width == 0  # below 0 is shown as 0
    both = armour(5, width_killing, har=1, lar=1)  # width 4: 4 Killing, 1 turned
    assert both.note == "HAR 1: width 5 -> 4; LAR 1: 1 shock, 3 killing"
    assert armour(2, width_killing, har=0, lar=0).killing == 2  # no armour: width 2 hits
    # LAR 1 against width+1 Killing at width 3: 4 Killing, 1 of it turned into Shock.
    light = armour(3, parse_damage("width+1 killing"), har=0, lar=1)
    assert (light.shock, light.killing) == (1, 3)
    assert "LAR 1: 1 shock, 3 killing" in light.note
    # LAR 2 against 1 Killing + width Shock at width 3: Shock 3 cut to 1, the 1 Killing
    # turned: 2 Shock, 0 Killing.
    mixed = armour(3, parse_damage("1 killing + width shock"), har=0, lar=2)
    assert (mixed.shock, mixed.killing) == (2, 0)
    # LAR 3 against width Killing at width 2: only the 2 Killing there are turns.
    assert (armour(2, width_killing, har=0, lar=3).shock, armour(2, width_killing, har=0, lar=3).killing) == (2, 0)
    # Penetration 1 against HAR 2 and LAR 1: HAR 1 (width 4 -> 3), LAR 0 (3 Killing stand).
    pierced = armour(4, width_killing, har=2, lar=1, penetration=1)
    assert (pierced.width, pierced.shock, pierced.killing) == (3, 0, 3)
    assert pierced.note == "HAR 1: width 4 -> 3"
    # Penetration past the rating leaves no armour, never a negative one.
    assert armour(3, width_killing, har=1, lar=1, penetration=3).killing == 3


def test_killing_is_marked_first_shock_fills_what_is_left_and_killing_overflows() -> None:
    """ "Killing is marked first; Shock fills remaining boxes; Shock that does not fit turns
    into Killing; Killing beyond the location's boxes overflows"; O10: "location with 5
    boxes holding 3 Killing takes 4 Shock: ends at 5 Killing, 0 Shock, 0 overflow"."""
    assert mark(Boxes(5, 3, 0), 4, 0) == (Boxes(5, 5, 0), 0)  # O10
    assert mark(Boxes(5, 3, 0), 0, 4) == (Boxes(5, 5, 0), 2)  # 7 Killing in 5 boxes: 2 over
    assert mark(Boxes(5, 3, 0), 0, 2) == (Boxes(5, 5, 0), 0)  # exactly full: nothing over
    assert mark(Boxes(5, 1, 0), 2, 0) == (Boxes(5, 1, 2), 0)  # Shock fits
    assert mark(Boxes(5, 1, 0), 4, 0) == (Boxes(5, 1, 4), 0)  # Shock fills the 4 left exactly
    assert mark(Boxes(5, 0, 3), 2, 0) == (Boxes(5, 0, 5), 0)
    assert mark(Boxes(5, 0, 3), 3, 0) == (Boxes(5, 1, 4), 0)  # 1 Shock over: one box to Killing
    assert mark(Boxes(10, 2, 2), 1, 1) == (Boxes(10, 3, 3), 0)


def test_a_locations_boxes_read_from_its_two_countdowns() -> None:
    """The module's sheet rule: "Shock boxes = `<location>_k` - `<location>`, Killing =
    boxes - `<location>_k`", boxes from the location's maximum."""
    assert boxes_of({"torso": 6, "torso_k": 8}, {"torso": 10}, "torso", 10) == Boxes(10, 2, 2)
    assert boxes_of({}, {}, "head", 4) == Boxes(4, 0, 0)  # untouched: all empty
    assert boxes_of({"head": 0, "head_k": 0}, {"head": 4}, "head", 4) == Boxes(4, 4, 0)  # full of Killing
    assert boxes_of({"arm": 1, "arm_k": 5}, {"arm": 5}, "arm", 5) == Boxes(5, 0, 4)  # 4 Shock
    # The sheet's own maximum, not the table's size, is the location's size.
    assert boxes_of({"arm": 6, "arm_k": 6}, {"arm": 6}, "arm", 5) == Boxes(6, 0, 0)


def test_damage_by_width_reads_the_formulas_the_sources_give() -> None:
    """ "weapons give damage as a formula of Width in Shock and/or Killing points, e.g.
    "Width Shock" (unarmed), "Width+1 Killing", "1 Killing + Width Shock"." """
    assert parse_damage("Width Shock").at(3) == (3, 0)
    assert parse_damage("width+1 killing").at(3) == (0, 4)
    assert parse_damage("width-1 killing").at(3) == (0, 2)
    assert parse_damage("Width + 1 Killing").at(3) == (0, 4)  # spaced as people type it
    assert parse_damage("1 killing + width shock").at(2) == (2, 1)
    assert parse_damage("width+2 shock").at(2) == (4, 0)  # club
    assert parse_damage("2 shock and 1 killing").at(5) == (2, 1)
    # Parts of one kind add up.
    assert parse_damage("width shock + width shock").at(2) == (4, 0)
    assert parse_damage("2 killing + width+1 killing").at(3) == (0, 6)
    assert parse_damage("width+1 killing + 2 killing").at(3) == (0, 6)
    assert DamageFormula((1, -5), (0, 0)).at(2) == (0, 0)  # never below 0
    for bad in ("", "width", "3 fire", "width shock + axe"):
        with pytest.raises(TrackerError, match="^damage: expected damage such as"):
            parse_damage(bad)


def test_a_height_with_no_location_is_refused_by_name() -> None:
    """ "Hit location by Height: 1 left leg; 2 right leg; 3-4 left arm; 5-6 right arm;
    7-9 torso; 10 head" (O9): a table that leaves a height out is named, not guessed."""
    table = {"1": "left leg", "10": "head"}
    assert location_for(10, table) == "head" and location_for(1, table) == "left leg"
    with pytest.raises(TrackerError, match=r"ore tables \[hit_locations\]: no location for height 7"):
        location_for(7, table)
