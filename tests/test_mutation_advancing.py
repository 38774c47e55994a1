"""Direct tests of tracker.engine.advancing: moving time on. Expected values are worked
from the module docstring and docs/contributing/design.md#advancing: on arriving at a
segment, completions first, then conditions expiring, landings, surprise ending,
scheduled events, a per-round cost changing, then per-round costs on a payment segment;
`next` finds the next segment where anything happens; a stretch holding nothing but
payment segments is charged in one go with one summary line per payer, payments made
one by one only where a payer's down state changes, so the fight is as if each segment
had been stepped."""

from __future__ import annotations

from typing import Any

import pytest

from tracker.engine import Damage, Encounter, Event, Resolution, Setup, TimeMapping, TrackerError, Upkeep
from tracker.engine.advancing import first_crossing
from tracker.engine.effects import Throwback
from tests.helpers import advance, encounter


def _declare(actor: str, template: str, pt: int, **args: Any) -> Event:
    return Event("declare", {"actor": actor, "template": template, "resolution": Resolution(pt=pt, **args.pop("res", {})), **args})


def _texts(enc: Encounter) -> list[str]:
    return [e.text for e in enc.log]


def _paying(*names: str, every: int = 10, hp: int = 20, ep: int = 30, below_zero: tuple[tuple[str, str], ...] = (),
            simultaneous: bool = True) -> Encounter:
    time = TimeMapping(50, "test", round_name="round", payment_every=every, simultaneous=simultaneous, below_zero=below_zero)
    enc = Encounter(Setup("test", "freeform", time, ("hp",)))
    for name in names:
        enc.apply(Event("add", {"name": name, "resources": {"hp": hp, "ep": ep}}))
    return enc


def _upkeep(enc: Encounter, who: str, name: str, resource: str, amount: int | float, rises: tuple[tuple[int, int | float], ...] = ()) -> None:
    """`who` starts paying `amount` of `resource` a round for `name` (a passive action of PT 1)."""
    enc.apply(_declare(who, name, 1, mode="passive", res={"effects": (Upkeep(who, name, resource, amount, rises=rises),)}))
    advance(enc, enc.now + 1)


# --- first_crossing ------------------------------------------------------------------


def _by_definition(value: float, per: float) -> int:
    """The docstring's first payment count j >= 1 after which `value - j * per` is on the
    other side of 0, counted one by one."""
    positive, j = value > 0, 1
    while (value - j * per > 0) == positive:
        j += 1
    return j


def test_first_crossing_is_the_first_payment_that_takes_a_value_across_zero() -> None:
    assert first_crossing(20, 3) == 7  # 20 - 18 = 2 > 0, 20 - 21 = -1
    assert first_crossing(21, 3) == 7  # 21 - 21 = 0: at most 0 counts as crossed
    assert first_crossing(1, 3) == 1
    assert first_crossing(3, 3) == 1
    assert first_crossing(0.3, 0.1) == 3  # float rounding: 0.3 - 3 * 0.1 is not above 0
    assert first_crossing(0.7, 0.1) == 7
    assert first_crossing(-5, -2) == 3  # -5 + 4 = -1, -5 + 6 = 1 > 0
    assert first_crossing(-4, -2) == 3  # -4 + 4 = 0 is not positive
    assert first_crossing(0, -1) == 1
    assert first_crossing(-0.5, -0.25) == 3
    # Where the estimate from a division rounds past the crossing, the first j is still the one.
    for value, per in ((4.2, 0.6), (4.2, 0.3), (9.64, 0.482), (-6.8, -0.4), (-7.8, -0.2), (-7.1, -0.02), (0.3, 0.1),
                       (3.6, 0.3), (0.9, 0.3), (7.2, 0.09), (-4.3, -0.1), (-8.6, -0.2)):  # and short of it
        assert first_crossing(value, per) == _by_definition(value, per), (value, per)
    # Found from an estimate, not by counting payments one by one (a long `step` costs the same).
    assert first_crossing(10**15, 2) == 5 * 10**14
    assert first_crossing(10**15 + 1, 2) == 5 * 10**14 + 1
    assert first_crossing(-(10**15), -2) == 5 * 10**14 + 1
    # A division that rounds up past a large answer steps back one, not down from the start.
    value, per, j = 4623117140906.586, 0.567, 8153645751158
    assert value - (j - 1) * per > 0 and not value - j * per > 0  # j is the first, by the definition
    assert first_crossing(value, per) == j
    # Never: a positive value paid nothing or gaining; a value at most 0 losing or paid nothing.
    for value, per in ((20, 0), (20, -1), (0, 0), (0, 1), (-3, 2), (1e-9, -1)):
        assert first_crossing(value, per) == 10**12 + 1


# --- advance ---------------------------------------------------------------------------


def test_time_only_moves_forward_and_a_bad_segment_is_refused() -> None:
    enc = encounter("Ann")
    advance(enc, 3)
    for to, message in ((3, "time only moves forward: segment 3 is not after 3"),
                        (2, "time only moves forward: segment 2 is not after 3"),
                        ("5", "advance: segment: expected a whole number of segments, got '5'")):
        with pytest.raises(TrackerError) as refused:
            enc.apply(Event("advance", {"to": to}))
        assert str(refused.value) == message
        assert enc.now == 3 and len(enc.events) == 2
    advance(enc, 4)
    assert enc.now == 4


def test_advance_stops_on_its_segment_even_with_nothing_there_and_leaves_later_things_queued() -> None:
    enc = encounter("Ann")
    enc.apply(_declare("Ann", "punch", 10))
    advance(enc, 7)
    assert enc.now == 7 and enc.actions[0].status == "in progress"
    assert enc.next_happening() == 10
    advance(enc, 10)
    assert enc.actions[0].status == "completed" and enc.next_happening() is None


def test_moving_time_lapses_a_pending_proposal() -> None:
    enc = encounter("Ann")
    enc.apply(Event("setting", {"key": "player_declarations", "value": "approval"}))
    enc.apply(Event("propose", {"action": "declare", "actor": "Ann", "template": "punch", "mode": "active",
                                "resolution": Resolution(3)}, by="ann"))
    assert len(enc.pending()) == 1
    advance(enc, 1)
    assert enc.pending() == [] and any("lapses: time moved on" in t for t in _texts(enc))


def test_a_segment_brings_completions_expiries_landings_surprise_schedule_rises_then_payments() -> None:
    enc = _paying("Ann", "Bo", "Cy", "Di", every=10)
    _upkeep(enc, "Di", "breath", "ep", 1, rises=((10, 2), (20, 3)))  # 1 a round now, 2 from segment 10
    enc.apply(_declare("Ann", "punch", 9, targets=["Bo"]))  # from 1 to 10
    enc.apply(_declare("Bo", "sweep", 11, targets=["Cy"], res={"effects": (Damage("Cy", 1, "hp", lead=2),)}))  # blow on 10
    enc.apply(Event("condition", {"target": "Ann", "name": "dazed", "duration": 9}))  # until 10
    enc.apply(_declare("Cy", "shove", 1, targets=["Di"], res={"effects": (Throwback("Di", 1, 1, 8),)}))  # lands on 10
    enc.apply(Event("surprise", {"target": "Cy", "until": 10}))
    enc.apply(Event("schedule", {"at": 10, "text": "the bell rings"}))
    advance(enc, 9)
    start = len(enc.log)
    advance(enc, 10)
    assert [(e.kind, e.text) for e in list(enc.log)[start:]] == [
        ("complete", "Ann's punch completes"),
        ("damage", "Cy takes 1 hp (hp 20 -> 19)"),
        ("expire", "Ann is no longer dazed"),
        ("land", "Di lands"),
        ("surprise", "Cy may act now"),
        ("scheduled", "the bell rings"),
        ("upkeep", "Di's breath now costs 2 ep a round (3 ep a round from segment 20)"),
        ("upkeep", "payment segment 10: Di pays 2 ep for breath"),
    ]
    about = [e.about for e in list(enc.log)[start:]]
    assert about[2:6] == [("Ann",), ("Di",), ("Cy",), ()]
    assert enc.combatants["Di"].resources["ep"] == 28
    advance(enc, 20)
    assert _texts(enc)[-2:] == ["Di's breath now costs 3 ep a round", "payment segment 20: Di pays 3 ep for breath"]


def test_one_landing_and_one_surprise_ending_a_segment_whoever_queued_them_twice() -> None:
    enc = encounter("Ann", "Bo", "Cy")
    enc.apply(_declare("Ann", "shove", 2, targets=["Cy"], res={"effects": (Throwback("Cy", 1, 1, 3),)}))
    enc.apply(_declare("Bo", "shove", 2, targets=["Cy"], res={"effects": (Throwback("Cy", 1, 1, 3),)}))
    enc.apply(Event("surprise", {"target": "Ann", "until": 5}))
    enc.apply(Event("surprise", {"target": "Ann", "until": 5}))
    advance(enc, 5)
    assert _texts(enc).count("Cy lands") == 1 and _texts(enc).count("Ann may act now") == 1


def test_a_renewed_condition_does_not_end_on_its_first_segment() -> None:
    enc = encounter("Ann")
    enc.apply(Event("condition", {"target": "Ann", "name": "dazed", "duration": 3}))
    advance(enc, 2)
    enc.apply(Event("condition", {"target": "Ann", "name": "dazed", "duration": 3}))
    advance(enc, 3)
    assert enc.combatants["Ann"].conditions == {"dazed": 5}
    advance(enc, 5)
    assert enc.combatants["Ann"].conditions == {} and _texts(enc).count("Ann is no longer dazed") == 1


def test_an_early_blow_lands_with_simultaneous_resolution_even_from_one_who_fell_on_its_segment() -> None:
    enc = encounter("Ann", "Bo", hp=5)
    enc.apply(_declare("Ann", "hit", 4, targets=["Bo"], res={"effects": (Damage("Bo", 9, "hp"),)}))
    enc.apply(_declare("Bo", "sweep", 6, targets=["Ann"], res={"effects": (Damage("Ann", 2, "hp", lead=2), Damage("Ann", 2, "hp", lead=1))}))
    advance(enc, 5)
    assert enc.combatants["Ann"].resources["hp"] == 3  # the blow due on 4 lands, the one on 5 not
    assert enc.actions[1].status == "interrupted"


def test_an_early_blow_in_ordered_resolution_is_lost_by_one_who_fell_first() -> None:
    enc = encounter("Ann", "Bo", hp=5, simultaneous=False)
    enc.apply(_declare("Ann", "hit", 4, targets=["Bo"], res={"effects": (Damage("Bo", 9, "hp"),)}))
    enc.apply(_declare("Bo", "sweep", 6, targets=["Ann"], res={"effects": (Damage("Ann", 2, "hp", lead=2),)}))
    advance(enc, 5)
    assert enc.combatants["Ann"].resources["hp"] == 5
    enc = encounter("Ann", "Bo", hp=5, simultaneous=False)
    enc.apply(_declare("Bo", "sweep", 6, targets=["Ann"], res={"effects": (Damage("Ann", 9, "hp", lead=2),)}))
    enc.apply(_declare("Ann", "hit", 5, targets=["Bo"]))
    advance(enc, 4)
    # A blow landing in ordered resolution puts down on this very segment: Ann's hit due
    # on 5 is lost, as a completion of the segment would be.
    assert enc.actions[1].status == "interrupted" and "Ann is down; hit interrupted" in _texts(enc)


def test_an_early_blow_with_simultaneous_resolution_interrupts_from_the_next_segment() -> None:
    enc = encounter("Ann", "Bo", hp=5)
    enc.apply(_declare("Bo", "sweep", 6, targets=["Ann"], res={"effects": (Damage("Ann", 9, "hp", lead=2),)}))
    enc.apply(_declare("Ann", "aura", 5, mode="passive", companions=["hit"]))
    enc.apply(_declare("Ann", "hit", 4, targets=["Bo"], res={"effects": (Damage("Bo", 1, "hp"),)}))
    advance(enc, 4)
    # Ann's hit completes on 4 with the blow: it stands; her aura, due on 6, is lost.
    assert [a.status for a in enc.actions] == ["in progress", "interrupted", "completed"]
    assert enc.combatants["Bo"].resources["hp"] == 4


# --- payments ----------------------------------------------------------------------------


def test_payments_one_by_one_and_the_next_happening_is_the_first_payment_or_thing_due() -> None:
    enc = _paying("Ann", "Bo", every=10)
    assert enc.next_happening() is None  # no one pays: no payment segments
    _upkeep(enc, "Ann", "breath", "ep", 3)
    assert enc.combatants["Ann"].upkeep == {"breath": ("ep", 3)}
    assert enc.next_happening() == 10
    enc.apply(_declare("Bo", "punch", 5))
    assert enc.next_happening() == 6
    advance(enc, 6)
    assert enc.next_happening() == 10
    advance(enc, 10)
    line = enc.log[-1]
    assert (line.segment, line.kind, line.text, line.about) == (10, "upkeep", "payment segment 10: Ann pays 3 ep for breath", ("Ann",))
    assert enc.combatants["Ann"].resources["ep"] == 27 and enc.combatants["Bo"].resources["ep"] == 30
    enc.apply(_declare("Bo", "punch", 10))
    assert enc.next_happening() == 20  # a payment and a completion on one segment
    advance(enc, 20)
    assert _texts(enc)[-2:] == ["Bo's punch completes", "payment segment 20: Ann pays 3 ep for breath"]


def test_a_stretch_of_payments_is_charged_in_one_go_with_one_line_per_payer() -> None:
    enc = _paying("Ann", "Bo", "Cy", every=10, ep=100)
    _upkeep(enc, "Ann", "breath", "ep", 3)
    enc.apply(_declare("Ann", "ward", 1, mode="passive", res={"effects": (Upkeep("Ann", "ward", "hp", 0.5),)}))
    enc.apply(_declare("Bo", "glow", 1, mode="passive", res={"effects": (Upkeep("Bo", "glow", "ep", 2),)}))
    advance(enc, 35)
    assert enc.now == 35
    assert _texts(enc)[-2:] == [
        "payment segments 10-30 (3 payments): Ann pays 9 ep for breath; 1.5 hp for ward",
        "payment segments 10-30 (3 payments): Bo pays 6 ep for glow",
    ]
    assert [e.segment for e in list(enc.log)[-2:]] == [30, 30]
    assert enc.combatants["Ann"].resources == {"hp": 18.5, "ep": 91}
    assert enc.combatants["Bo"].resources == {"hp": 20, "ep": 94}
    assert enc.combatants["Cy"].resources == {"hp": 20, "ep": 100}
    advance(enc, 40)
    assert _texts(enc)[-3:] == ["payment segment 40: Ann pays 3 ep for breath", "payment segment 40: Ann pays 0.5 hp for ward",
                                "payment segment 40: Bo pays 2 ep for glow"]
    assert enc.combatants["Ann"].resources == {"hp": 18, "ep": 88}


def test_a_stretch_stops_before_the_next_thing_due_and_at_the_segment_asked() -> None:
    enc = _paying("Ann", "Bo", every=10, ep=100)
    _upkeep(enc, "Ann", "breath", "ep", 3)
    enc.apply(_declare("Bo", "punch", 40))  # completes on 41: the stretch ends on 40
    advance(enc, 100)
    upkeep = [(e.segment, e.text) for e in enc.log if e.kind in ("upkeep", "complete")][2:]
    assert upkeep == [
        (40, "payment segments 10-40 (4 payments): Ann pays 12 ep for breath"),
        (41, "Bo's punch completes"),
        (100, "payment segments 50-100 (6 payments): Ann pays 18 ep for breath"),
    ]
    assert enc.combatants["Ann"].resources["ep"] == 70
    enc = _paying("Ann", every=10, ep=100)
    _upkeep(enc, "Ann", "breath", "ep", 3)
    advance(enc, 29)
    assert [e.text for e in enc.log][-1] == "payment segments 10-20 (2 payments): Ann pays 6 ep for breath"
    enc = _paying("Ann", every=10, ep=100)
    _upkeep(enc, "Ann", "breath", "ep", 3)
    enc.apply(Event("schedule", {"at": 20, "text": "the bell rings"}))
    advance(enc, 30)
    assert [e.text for e in enc.log][-4:] == ["payment segment 10: Ann pays 3 ep for breath", "the bell rings",
                                               "payment segment 20: Ann pays 3 ep for breath", "payment segment 30: Ann pays 3 ep for breath"]


def test_payments_go_one_by_one_where_a_payer_goes_down_as_if_each_segment_was_stepped() -> None:
    enc = _paying("Ann", every=10, hp=20)
    _upkeep(enc, "Ann", "bleed", "hp", 3)
    enc.apply(_declare("Ann", "aura", 70, mode="passive"))  # due on 71: lost on 70
    advance(enc, 1000)
    lines = [(e.segment, e.text) for e in enc.log if e.kind in ("upkeep", "down")][1:]
    assert lines == [
        (60, "payment segments 10-60 (6 payments): Ann pays 18 hp for bleed"),
        (70, "payment segment 70: Ann pays 3 hp for bleed"),
        (70, "Ann is down; aura interrupted"),
        (1000, "payment segments 80-1000 (93 payments): Ann pays 279 hp for bleed"),
        (1000, "Ann is down"),
    ]
    assert enc.combatants["Ann"].resources["hp"] == 20 - 3 * 100
    stepped = _paying("Ann", every=10, hp=20)
    _upkeep(stepped, "Ann", "bleed", "hp", 3)
    stepped.apply(_declare("Ann", "aura", 70, mode="passive"))
    for to in range(10, 1001, 10):
        advance(stepped, to)
    assert stepped.combatants["Ann"].resources == enc.combatants["Ann"].resources
    assert [a.status for a in stepped.actions] == [a.status for a in enc.actions]


def test_a_payer_that_heals_back_up_is_paid_one_by_one_where_it_rises() -> None:
    enc = _paying("Ann", "Bo", every=10, hp=-5)
    enc.apply(Event("set", {"target": "Bo", "key": "hp", "value": 20}))
    enc.apply(_declare("Bo", "mend", 1, targets=["Ann"], res={"effects": (Upkeep("Ann", "mend", "hp", -2),)}))
    advance(enc, 100)
    lines = [(e.segment, e.text) for e in enc.log if e.kind == "upkeep"][1:]
    assert lines == [
        (20, "payment segments 10-20 (2 payments): Ann pays -4 hp for mend"),
        (30, "payment segment 30: Ann pays -2 hp for mend"),
        (100, "payment segments 40-100 (7 payments): Ann pays -14 hp for mend"),
    ]
    assert enc.combatants["Ann"].resources["hp"] == 15


def test_only_down_keys_limit_a_stretch_and_several_costs_on_one_key_add_up() -> None:
    enc = _paying("Ann", every=10, hp=20, ep=5)
    _upkeep(enc, "Ann", "breath", "ep", 3)  # ep is not a down key: no limit
    enc.apply(_declare("Ann", "bleed", 1, mode="passive", res={"effects": (Upkeep("Ann", "bleed", "hp", 2),)}))
    advance(enc, 2)
    enc.apply(_declare("Ann", "cut", 1, mode="passive", res={"effects": (Upkeep("Ann", "cut", "hp", 3),)}))
    advance(enc, 100)
    lines = [(e.segment, e.text) for e in enc.log if e.kind in ("upkeep", "down")][3:]
    assert lines[0] == (30, "payment segments 10-30 (3 payments): Ann pays 9 ep for breath; 6 hp for bleed; 9 hp for cut")
    assert lines[1:4] == [(40, "payment segment 40: Ann pays 3 ep for breath"), (40, "payment segment 40: Ann pays 2 hp for bleed"),
                          (40, "payment segment 40: Ann pays 3 hp for cut")]
    assert lines[4] == (40, "Ann is down")


def test_a_cost_of_nothing_on_a_down_key_does_not_limit_a_stretch() -> None:
    enc = _paying("Ann", every=10, hp=20)
    _upkeep(enc, "Ann", "hold", "hp", 0.0)
    _upkeep(enc, "Ann", "breath", "ep", 1)
    advance(enc, 50)
    assert [e.text for e in enc.log if e.kind == "upkeep"][-1] == "payment segments 10-50 (5 payments): Ann pays 5 ep for breath"


def test_a_payment_below_zero_gets_the_games_note() -> None:
    note = (("ep", "{name}'s EP went from {before} to {after}: the GM decides"),)
    enc = _paying("Ann", "Bo", every=10, ep=4, below_zero=note)
    _upkeep(enc, "Ann", "breath", "ep", 3)
    advance(enc, 10)
    assert [e for e in enc.log if e.kind == "note"] == []
    advance(enc, 20)
    line = enc.log[-1]
    assert (line.kind, line.text, line.about) == ("note", "Ann's EP went from 1 to -2: the GM decides", ("Ann",))
    advance(enc, 50)
    assert _texts(enc)[-2:] == ["payment segments 30-50 (3 payments): Ann pays 9 ep for breath",
                                "Ann's EP went from -2 to -11: the GM decides"]
    enc = _paying("Ann", every=10, ep=4)
    _upkeep(enc, "Ann", "breath", "ep", 3)
    advance(enc, 20)
    assert [e for e in enc.log if e.kind == "note"] == []
    # A resource not held is paid from 0.
    enc = _paying("Ann", every=10, below_zero=note)
    enc.apply(Event("add", {"name": "Di", "resources": {"hp": 5}}))
    enc.apply(_declare("Ann", "curse", 1, targets=["Di"], res={"effects": (Upkeep("Di", "drain", "ep", 3),)}))
    advance(enc, 10)
    assert _texts(enc)[-2:] == ["payment segment 10: Di pays 3 ep for drain", "Di's EP went from 0 to -3: the GM decides"]


def test_no_payments_where_the_game_has_none() -> None:
    enc = _paying("Ann", every=0)
    _upkeep(enc, "Ann", "breath", "ep", 3)
    assert enc.next_happening() is None and enc.upcoming() == []
    enc.apply(_declare("Ann", "punch", 49))
    advance(enc, 100)
    assert enc.combatants["Ann"].resources["ep"] == 30 and enc.actions[-1].status == "completed"


def test_a_payment_every_segment_is_charged_in_one_go_too() -> None:
    enc = _paying("Ann", every=1)
    _upkeep(enc, "Ann", "breath", "ep", 3)  # set on segment 1, and paid on it
    advance(enc, 6)
    assert [e.text for e in enc.log if e.kind == "upkeep"] == [
        "Ann pays 3 ep a round for breath", "payment segment 1: Ann pays 3 ep for breath",
        "payment segments 2-6 (5 payments): Ann pays 15 ep for breath"]
    assert enc.combatants["Ann"].resources["ep"] == 12


# --- upcoming ----------------------------------------------------------------------------


def test_upcoming_lists_what_is_due_soonest_first_with_whom_it_is_about() -> None:
    enc = _paying("Ann", "Bo", "Cy", every=10)
    _upkeep(enc, "Cy", "breath", "ep", 2, rises=((20, 1), (30, 4)))
    enc.apply(_declare("Ann", "punch", 3, targets=["Bo"], res={"effects": (Damage("Bo", 1, "hp", lead=1),)}))  # 1 -> 4
    enc.apply(Event("condition", {"target": "Bo", "name": "dazed", "duration": 5}))
    enc.apply(_declare("Bo", "daze", 4, targets=["Ann"], res={"effects": (Throwback("Ann", 1, 1, 1),)}))
    enc.apply(Event("surprise", {"target": "Cy", "until": 7}))
    enc.apply(Event("schedule", {"at": 8, "text": "the bell rings"}))
    assert enc.upcoming_about() == [
        (3, "Ann's punch: damage on Bo", ("Ann", "Bo", "Bo")),
        (4, "Ann's punch completes", ("Ann", "Bo")),
        (5, "Bo's daze completes", ("Bo", "Ann")),
        (6, "Bo stops being dazed", ("Bo",)),
        (7, "Cy may act", ("Cy",)),
        (8, "the bell rings", ()),
        (10, "payment segment: per-round costs are charged", ()),
        (20, "Cy's breath costs less a round", ("Cy",)),
    ]
    assert enc.upcoming(3) == [(3, "Ann's punch: damage on Bo"), (4, "Ann's punch completes"), (5, "Bo's daze completes")]
    advance(enc, 5)
    assert enc.upcoming_about()[:2] == [(6, "Bo stops being dazed", ("Bo",)), (6, "Ann lands", ("Ann",))]
    advance(enc, 20)
    assert enc.upcoming()[:2] == [(30, "payment segment: per-round costs are charged"), (30, "Cy's breath costs more a round")]


def test_upcoming_gives_twenty_things_at_most_by_default() -> None:
    enc = encounter(*[f"F{i}" for i in range(25)])
    for i in range(25):
        enc.apply(_declare(f"F{i}", "punch", i + 1))
    assert len(enc.upcoming()) == 20 and len(enc.upcoming_about()) == 20
    assert enc.upcoming()[-1] == (20, "F19's punch completes")
    assert len(enc.upcoming_about(None)) == 25


def test_a_kept_action_is_listed_once() -> None:
    enc = encounter("Ann", "Bo", "Cy")
    enc.apply(_declare("Bo", "punch", 10))
    enc.apply(_declare("Cy", "punch", 10))
    enc.apply(_declare("Ann", "shove", 2, targets=["Bo"], res={"effects": (Throwback("Bo", 1, 1, 1),)}))
    advance(enc, 2)
    enc.apply(Event("keep", {"target": "Bo"}))
    assert enc.upcoming() == [(3, "Bo lands"), (10, "Bo's punch completes"), (10, "Cy's punch completes")]


def test_a_cost_not_charged_yet_is_listed_as_costing_more_when_it_rises() -> None:
    enc = _paying("Ann", every=10)
    _upkeep(enc, "Ann", "breath", "ep", 0, rises=((20, 1),))
    assert enc.combatants["Ann"].upkeep == {}
    assert enc.upcoming_about() == [(20, "Ann's breath costs more a round", ("Ann",))]


def test_a_payer_paying_from_a_down_key_it_does_not_hold_goes_down_on_the_first_payment() -> None:
    """A resource not held counts from 0 when paid: a quarter of hp a round leaves -0.25
    on segment 10, down there, as if each segment had been stepped (it was charged in one
    go to 30 and went down there, its aura interrupted on 30)."""
    enc = _paying("Ann", every=10)
    enc.apply(Event("add", {"name": "Di", "resources": {"ep": 30}}))
    enc.apply(_declare("Ann", "curse", 1, targets=["Di"], res={"effects": (Upkeep("Di", "bleed", "hp", 0.25),)}))
    enc.apply(_declare("Di", "aura", 34, mode="passive"))
    advance(enc, 30)
    assert [(e.segment, e.text) for e in enc.log if e.kind in ("upkeep", "down")][1:] == [
        (10, "payment segment 10: Di pays 0.25 hp for bleed"),
        (10, "Di is down; aura interrupted"),
        (30, "payment segments 20-30 (2 payments): Di pays 0.5 hp for bleed"),
        (30, "Di is down"),
    ]
    assert enc.combatants["Di"].resources["hp"] == -0.75 and enc.actions[-1].ended == 10


def test_a_non_payer_before_a_payer_neither_stops_the_charge_nor_its_limit() -> None:
    enc = _paying("Cy", "Ann", every=10, hp=20)
    enc.apply(Event("add", {"name": "Di", "resources": {"hp": 10}}))
    _upkeep(enc, "Ann", "bleed", "hp", 3)
    enc.apply(_declare("Cy", "hex", 1, targets=["Di"], res={"effects": (Upkeep("Di", "drain", "mana", 2),)}))
    advance(enc, 100)
    lines = [(e.segment, e.text, e.about) for e in enc.log if e.kind in ("upkeep", "down")][2:]
    assert lines[:3] == [
        (60, "payment segments 10-60 (6 payments): Ann pays 18 hp for bleed", ("Ann",)),
        (60, "payment segments 10-60 (6 payments): Di pays 12 mana for drain", ("Di",)),
        (70, "payment segment 70: Ann pays 3 hp for bleed", ("Ann",)),
    ]
    assert enc.combatants["Di"].resources == {"hp": 10, "mana": -20}


def _kept_while_down() -> Encounter:
    """Bo pays 3 hp a round; his punch (due on 41) is thrown back on 2, he is set down, and
    the GM keeps the punch: a payer that is down with an action in progress."""
    enc = _paying("Ann", "Bo", every=10)
    _upkeep(enc, "Bo", "bleed", "hp", 3)
    enc.apply(_declare("Bo", "punch", 40))
    enc.apply(_declare("Ann", "shove", 1, targets=["Bo"], res={"effects": (Throwback("Bo", 1, 1, 1),)}))
    advance(enc, 2)
    enc.apply(Event("set", {"target": "Bo", "key": "hp", "value": 0}))
    enc.apply(Event("keep", {"target": "Bo"}))
    assert enc.actions[1].status == "in progress" and enc.combatants["Bo"].down
    return enc


def test_a_down_payers_kept_action_is_lost_on_the_first_payment_as_when_stepped() -> None:
    enc = _kept_while_down()
    advance(enc, 100)
    lines = [(e.segment, e.text) for e in enc.log if e.kind in ("upkeep", "down")][-4:]
    assert lines == [
        (10, "payment segment 10: Bo pays 3 hp for bleed"),
        (10, "Bo is down; punch interrupted"),
        (100, "payment segments 20-100 (9 payments): Bo pays 27 hp for bleed"),
        (100, "Bo is down"),
    ]
    stepped = _kept_while_down()
    for to in range(10, 101, 10):
        advance(stepped, to)
    assert stepped.actions[1].ended == enc.actions[1].ended == 10
    assert stepped.combatants["Bo"].resources == enc.combatants["Bo"].resources


def test_every_down_key_limits_a_stretch_and_a_cost_of_one_does_too() -> None:
    time = TimeMapping(50, "test", payment_every=10)
    enc = Encounter(Setup("test", "freeform", time, ("body", "hp")))
    enc.apply(Event("add", {"name": "Ann", "resources": {"body": 5, "hp": 3, "ep": 30}}))
    _upkeep(enc, "Ann", "bleed", "hp", 1)
    advance(enc, 100)
    assert [(e.segment, e.text) for e in enc.log if e.kind in ("upkeep", "down")][1:4] == [
        (20, "payment segments 10-20 (2 payments): Ann pays 2 hp for bleed"),
        (30, "payment segment 30: Ann pays 1 hp for bleed"),
        (30, "Ann is down"),
    ]
