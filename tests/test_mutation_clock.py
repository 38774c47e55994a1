"""Direct tests of tracker.engine.clock: how a ruleset's own time maps onto the segment
clock. Expected values are worked from the class docstring (payment segments are the
multiples of `payment_every`, 0: none; `below_zero` notes filled in by plain
replacement, said only below 0) and the method docstrings."""

from __future__ import annotations

from tracker.engine.clock import TimeMapping


def test_the_defaults_are_ten_segment_rounds_without_payments() -> None:
    t = TimeMapping()
    assert (t.segments_per_round, t.segment_means, t.round_name, t.payment_every, t.simultaneous,
            t.below_zero, t.seconds_per_segment) == (10, "one tick of the fight", "round", 0, True, (), 0.0)


def test_a_segment_falls_in_a_round_counted_from_one() -> None:
    t = TimeMapping(12, "a twelfth of a turn", "turn")
    assert [t.round_of(s) for s in (0, 1, 11, 12, 13, 25)] == [(1, 0), (1, 1), (1, 11), (2, 0), (2, 1), (3, 1)]
    assert t.clock(25) == "segment 25 · turn 3, segment 1"
    assert t.brief(25) == "25 · turn 3"
    assert TimeMapping().clock(0) == "segment 0 · round 1, segment 0"
    assert TimeMapping().brief(30) == "30 · round 4"


def test_the_next_payment_is_the_first_multiple_strictly_after() -> None:
    t = TimeMapping(payment_every=10)
    assert [t.next_payment(a) for a in (0, 1, 9, 10, 11, 19, 20)] == [10, 10, 10, 20, 20, 20, 30]
    assert TimeMapping(payment_every=1).next_payment(5) == 6
    assert TimeMapping(payment_every=3).next_payment(3) == 6
    assert TimeMapping().next_payment(5) is None
    assert TimeMapping(payment_every=-2).next_payment(5) is None


def test_the_below_zero_note_is_said_only_below_zero_for_its_resource() -> None:
    t = TimeMapping(below_zero=(("hp", "no note"), ("ep", "{name}'s EP went from {before} to {after}: {name} strains")))
    assert t.below_zero_note("ep", "Ann", 2, -1.5) == "Ann's EP went from 2 to -1.5: Ann strains"
    assert t.below_zero_note("ep", "Ann", 2.0, -3.0) == "Ann's EP went from 2 to -3: Ann strains"
    assert t.below_zero_note("ep", "Ann", 2, 0) is None
    assert t.below_zero_note("ep", "Ann", 2, 1) is None
    assert t.below_zero_note("mp", "Ann", 2, -1) is None
    assert t.below_zero_note("hp", "Ann", 2, -1) == "no note"
    # a name is data, never a template
    assert t.below_zero_note("ep", "{after}", 1, -1) == "{after}'s EP went from 1 to -1: {after} strains"
    assert TimeMapping().below_zero_note("ep", "Ann", 2, -1) is None
