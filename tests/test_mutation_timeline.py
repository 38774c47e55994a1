"""Direct tests of tracker.engine.timeline, each written for a mutant that survived the rule
tests; expected values are worked from the module's docstring: an entry is `(segment,
kind, tick, payload)`, things on one segment are handled in the order of their kind, then
in the order queued, and an entry no longer due is checked against the fight when it
comes up, never removed before."""

from __future__ import annotations

from tracker.engine.effects import Damage, Resolution, Upkeep
from tracker.engine.model import ABORTED, COMPLETED, IN_PROGRESS, Action, Combatant
from tracker.engine.timeline import ALERT, COMPLETION, EARLY_BLOW, EXPIRY, LANDING, RISE, SCHEDULED, Timeline, early_segment


def _action(start: int = 10, completes: int = 15, status: str = IN_PROGRESS) -> Action:
    return Action(1, "Ann", "punch", "active", completes - start, start, completes, (), Resolution(completes - start), status=status)


def _ann(**fields: object) -> dict[str, Combatant]:
    return {"Ann": Combatant("Ann", {}, {"hp": 10}, {"hp": 10}, **fields)}  # type: ignore[arg-type]


def test_the_kinds_are_handled_in_the_order_the_docstring_gives() -> None:
    """Completions first, then early blows, conditions expiring, landings, surprise
    ending, scheduled events, and a per-round cost changing."""
    assert (COMPLETION, EARLY_BLOW, EXPIRY, LANDING, ALERT, SCHEDULED, RISE) == (0, 1, 2, 3, 4, 5, 6)


def test_an_early_blow_lands_lead_segments_before_completion_but_after_the_start() -> None:
    action = _action(start=10, completes=15)
    assert early_segment(action, Damage("Bo", 1, "hp", lead=2)) == 13
    assert early_segment(action, Damage("Bo", 1, "hp", lead=9)) == 11  # never on the start
    assert early_segment(action, Damage("Bo", 1, "hp")) == 15
    assert early_segment(action, object()) == 15  # an effect with no lead lands on completion


def test_a_timeline_is_its_entries_in_queue_order_each_with_its_tick() -> None:
    timeline = Timeline()
    assert len(timeline) == 0 and list(timeline) == [] and timeline.head_segment() is None
    timeline.push(7, SCHEDULED, "bell")
    timeline.push(5, SCHEDULED, "gong")
    timeline.push(5, COMPLETION, "done")
    assert len(timeline) == 3
    assert sorted(timeline) == [(5, COMPLETION, 3, "done"), (5, SCHEDULED, 2, "gong"), (7, SCHEDULED, 1, "bell")]
    assert timeline.head_segment() == 5
    assert timeline.tick == 3


def test_timelines_are_equal_by_entries_and_tick_and_a_copy_is_its_own() -> None:
    one, two = Timeline(), Timeline()
    assert one == two
    one.push(3, SCHEDULED, "x")
    assert one != two
    two.push(3, SCHEDULED, "x")
    assert one == two
    assert Timeline([(3, SCHEDULED, 1, "x")], 2) != Timeline([(3, SCHEDULED, 1, "x")], 1)  # the tick counts too
    assert Timeline().__eq__([]) is NotImplemented
    assert Timeline.__hash__ is None  # it changes, like a list
    copy = one.copy()
    assert copy == one and copy.entries is not one.entries
    copy.push(4, SCHEDULED, "y")
    assert len(one) == 1 and one.tick == 1
    assert Timeline(None).entries == [] and Timeline().tick == 0


def test_a_rewritten_timeline_is_still_a_queue() -> None:
    timeline = Timeline()
    for segment in (4, 9, 6):
        timeline.push(segment, SCHEDULED, f"at {segment}")
    # A rewrite that moves the latest entry first: the head is the new first.
    timeline.rewritten(lambda e: (1, e[1], e[2], e[3]) if e[0] == 9 else e)
    assert timeline.head_segment() == 1
    assert [timeline.take(s, {})[SCHEDULED] for s in (1, 4, 6)] == [["at 9"], ["at 4"], ["at 6"]]


def test_each_kind_is_due_only_while_the_fight_still_holds_it() -> None:
    valid = Timeline.valid
    running, done = _action(10, 15), _action(10, 15, COMPLETED)
    assert valid((15, COMPLETION, 1, running), {})
    assert not valid((14, COMPLETION, 1, running), {})  # its completion moved
    assert not valid((15, COMPLETION, 1, done), {})
    blow = Damage("Bo", 1, "hp", lead=2)
    assert valid((13, EARLY_BLOW, 1, (running, blow)), {})
    assert not valid((12, EARLY_BLOW, 1, (running, blow)), {})
    assert not valid((13, EARLY_BLOW, 1, (_action(10, 15, ABORTED), blow)), {})
    dazed = _ann(conditions={"dazed": 20})
    assert valid((20, EXPIRY, 1, ("Ann", "dazed")), dazed)
    assert not valid((19, EXPIRY, 1, ("Ann", "dazed")), dazed)  # renewed: it ends later
    assert not valid((20, EXPIRY, 1, ("Bo", "dazed")), dazed)  # gone from the fight
    assert not valid((20, EXPIRY, 1, ("Ann", "stunned")), dazed)
    flying = _ann(airborne_until=8)
    assert valid((8, LANDING, 1, "Ann"), flying)
    assert not valid((7, LANDING, 1, "Ann"), flying)
    assert not valid((8, LANDING, 1, "Bo"), flying)
    surprised = _ann(surprised_until=4)
    assert valid((4, ALERT, 1, "Ann"), surprised)
    assert not valid((5, ALERT, 1, "Ann"), surprised)
    assert not valid((4, ALERT, 1, "Bo"), surprised)
    breath = Upkeep("Ann", "breath", "ep", 1, rises=((12, 2),))
    holding = _ann(rising={"breath": breath})
    assert valid((12, RISE, 1, ("Ann", breath)), holding)
    assert not valid((12, RISE, 1, ("Ann", Upkeep("Ann", "breath", "ep", 1, rises=((12, 2),)))), holding)  # replaced
    assert not valid((12, RISE, 1, ("Bo", breath)), holding)
    assert valid((30, SCHEDULED, 1, "the bridge falls"), {})  # scheduled text is always due


def test_first_drops_what_is_no_longer_due_at_the_head_and_due_lists_the_rest() -> None:
    ann = _ann(surprised_until=6)
    timeline = Timeline()
    timeline.push(2, ALERT, "Ann")  # no longer due: Ann is surprised until 6
    timeline.push(6, ALERT, "Ann")
    timeline.push(9, LANDING, "Ann")  # never due: Ann is not airborne
    assert timeline.due(ann) == [(6, ALERT, 2, "Ann")]
    assert timeline.first(ann) == 6
    assert len(timeline) == 2  # the stale head dropped, the one behind the head kept
    assert Timeline().first(ann) is None
    stale = Timeline()
    stale.push(3, LANDING, "Ann")
    assert stale.first(ann) is None and len(stale) == 0


def test_take_gives_what_falls_due_on_a_segment_by_kind_in_the_order_queued() -> None:
    ann = _ann(surprised_until=5, conditions={"dazed": 5})
    first, second, late = _action(1, 5), _action(2, 5), _action(1, 9)
    stopped = _action(1, 5, ABORTED)
    timeline = Timeline()
    timeline.push(5, SCHEDULED, "gong")
    timeline.push(5, COMPLETION, second)
    timeline.push(5, COMPLETION, stopped)
    timeline.push(5, ALERT, "Ann")
    timeline.push(5, COMPLETION, first)
    timeline.push(5, EXPIRY, ("Ann", "dazed"))
    timeline.push(5, COMPLETION, late)  # its completion is on 9: not due on 5
    timeline.push(5, LANDING, "Ann")  # not airborne: not due
    timeline.push(6, SCHEDULED, "later")
    due = timeline.take(5, ann)
    assert due == [[second, first], [], [("Ann", "dazed")], [], ["Ann"], ["gong"], []]
    assert list(timeline) == [(6, SCHEDULED, 9, "later")]  # the rest stays queued
    assert timeline.take(4, ann) == [[], [], [], [], [], [], []]
    assert len(timeline) == 1
