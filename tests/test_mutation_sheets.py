"""Direct tests of tracker.play.sheets: damage and healing through the game's damage rule,
and `set NAME KEY VALUE` checked against the sheet (module docstring; docs/guide/verbs.md
"Several combatants at once": each through the damage rule with its own sheet, one
change, none applied if any one is refused; Brand X VP overflowing to DP)."""

from __future__ import annotations

import pytest

from rulesets import registry
from rulesets.base import ManualDamage
from rulesets.freeform import FreeformRuleset
from tests.helpers import encounter
from tracker.engine import Combatant, CommandError, Encounter, Event, TrackerError
from tracker.play.policy import Policy
from tracker.play.sheets import damaging, default_resource, set_event, setting
from tracker.reading.roles import Role

FREEFORM = registry.get("freeform")
BRANDX = registry.get("brandx")
CHOSEN = Policy(Role.gm()).chosen


def _add(enc: Encounter, name: str, resources: dict[str, int], **stats: object) -> Combatant:
    enc.apply(Event("add", {"name": name, "resources": resources, "stats": dict(stats)}))
    return enc.combatant(name)


# ------------------------------------------------------------------ where a blow lands
def test_a_blow_takes_the_first_resource_the_game_counts_towards_going_down() -> None:
    enc = encounter()
    assert default_resource(FREEFORM, _add(enc, "Ann", {"ep": 5, "hp": 3})) == "hp"
    assert default_resource(FREEFORM, _add(enc, "Bo", {"ep": 5, "mana": 2})) == "ep"  # else the sheet's first
    assert default_resource(BRANDX, _add(enc, "Cy", {"ep": 9, "dp": 4, "vp": 6})) == "vp"  # vp before dp
    assert default_resource(BRANDX, _add(enc, "Di", {"ep": 9, "dp": 4})) == "dp"
    with pytest.raises(CommandError) as none:
        default_resource(FREEFORM, _add(enc, "Ghost", {}))
    assert str(none.value) == "Ghost has no resources to damage"


# ------------------------------------------------------------------ damage and healing
def test_damage_is_one_event_naming_each_combatant_and_its_resource() -> None:
    enc = encounter("Ann", "Goblin 1", "Goblin 2")
    event = damaging(FREEFORM, CHOSEN, "Goblin*", 3)(enc)
    assert event.kind == "damage"
    assert event.args == {"target": "Goblin 1", "amount": 3, "resource": "hp",
                          "also": [{"target": "Goblin 2", "resource": "hp"}]}
    one = damaging(FREEFORM, CHOSEN, "Ann", 2.5, "ep")(enc)
    assert one.args == {"target": "Ann", "amount": 2.5, "resource": "ep"}  # one: no `also`
    enc.apply(event)
    assert enc.combatant("Goblin 1").resources["hp"] == 17 and enc.combatant("Goblin 2").resources["hp"] == 17


def test_brandx_vp_overflows_to_dp_on_a_blow_never_on_a_heal() -> None:
    enc = encounter()
    _add(enc, "Cy", {"vp": 6, "dp": 4, "ep": 9})
    _add(enc, "Di", {"dp": 4, "ep": 9})
    blow = damaging(BRANDX, CHOSEN, "Cy,Di", 8)(enc)
    assert blow.args == {"target": "Cy", "amount": 8, "resource": "vp", "overflow": "dp",
                         "also": [{"target": "Di", "resource": "dp"}]}
    enc.apply(Event("damage", {"target": "Cy", "amount": 3, "resource": "vp"}))
    heal = damaging(BRANDX, CHOSEN, "Cy", -2)(enc)
    assert heal.args == {"target": "Cy", "amount": -2, "resource": "vp"}
    assert damaging(BRANDX, CHOSEN, "Cy", 1)(enc).args == {"target": "Cy", "amount": 1, "resource": "vp", "overflow": "dp"}
    assert damaging(BRANDX, CHOSEN, "Cy", 0)(enc).args == {"target": "Cy", "amount": 0, "resource": "vp"}


def test_healing_past_the_sheets_value_is_refused_naming_the_room_left() -> None:
    enc = encounter("Ann", "Bo")
    enc.apply(Event("damage", {"target": "Ann", "amount": 5, "resource": "hp"}))  # hp 15 of 20
    assert damaging(FREEFORM, CHOSEN, "Ann", -5)(enc).args["amount"] == -5  # back to 20: allowed
    with pytest.raises(CommandError) as past:
        damaging(FREEFORM, CHOSEN, "Ann", -5.5)(enc)
    assert str(past.value) == "heal Ann 5.5: hp is 15 of 20; healing more than 5 would pass the maximum"
    # several at once: none is healed, and the refusal names which
    with pytest.raises(CommandError, match=r"^heal Bo 1: hp is 20 of 20; healing more than 0 would pass the maximum$"):
        damaging(FREEFORM, CHOSEN, "Ann,Bo", -1)(enc)
    enc.apply(Event("set", {"target": "Bo", "key": "hp", "value": 25}))  # set by hand above its maximum
    with pytest.raises(CommandError, match=r"^heal Bo 1: hp is 25 of 20; healing more than 0 would pass the maximum$"):
        damaging(FREEFORM, CHOSEN, "Bo", -1)(enc)
    for blow in (1, 0.5, 0):  # a blow, however small, is no heal
        assert damaging(FREEFORM, CHOSEN, "Bo", blow)(enc).args["amount"] == blow


def test_a_resource_without_a_maximum_heals_freely() -> None:
    enc = encounter("Ann")
    enc.apply(Event("set", {"target": "Ann", "key": "luck", "value": 3}))  # a resource set later: no maximum
    assert "luck" not in enc.combatant("Ann").maxima
    assert damaging(FREEFORM, CHOSEN, "Ann", -10, "luck")(enc).args == {"target": "Ann", "amount": -10, "resource": "luck"}


class _Generous(FreeformRuleset):
    """A game whose healing may pass the sheet's value, and whose blows land on `ward`."""

    def damage_rule(self, target: Combatant, amount: int | float, resource: str | None = None) -> ManualDamage:
        if resource == "ward":
            return ManualDamage("ward")
        return ManualDamage(super().damage_rule(target, amount, resource).resource, over_maximum=True)


def test_a_game_may_let_healing_pass_the_maximum_and_an_absent_resource_is_named() -> None:
    enc = encounter("Ann")
    assert damaging(_Generous(), CHOSEN, "Ann", -7)(enc).args == {"target": "Ann", "amount": -7, "resource": "hp"}
    with pytest.raises(CommandError) as absent:
        damaging(_Generous(), CHOSEN, "Ann", 2, "ward")(enc)
    assert str(absent.value) == "Ann has no resource 'ward' (has: hp, ep)"
    _add(enc, "Ghost", {})
    with pytest.raises(CommandError, match=r"^Ghost has no resource 'ward' \(has: none\)$"):
        damaging(_Generous(), CHOSEN, "Ghost", 2, "ward")(enc)


# ------------------------------------------------------------------ set NAME KEY VALUE
def test_set_a_resource_takes_a_number_and_a_stat_its_own_type() -> None:
    enc = encounter("Ann")
    assert set_event(FREEFORM, enc, "ann", "hp", "15").args == {"target": "Ann", "key": "hp", "value": 15}
    assert set_event(FREEFORM, enc, "Ann", "hp", "2.5").args["value"] == 2.5
    with pytest.raises(TrackerError, match=r"^set Ann hp: expected a number, got 'lots'$"):
        set_event(FREEFORM, enc, "Ann", "hp", "lots")
    # a resource the combatant holds, on the game's sheet or not, takes only a number
    with pytest.raises(TrackerError, match=r"^set Ann ep: expected a number, got 'lots'$"):
        set_event(FREEFORM, enc, "Ann", "ep", "lots")
    # not on the sheet: freeform takes a number as a resource and words as a stat
    assert set_event(FREEFORM, enc, "Ann", "luck", "3").args == {"target": "Ann", "key": "luck", "value": 3}
    assert set_event(FREEFORM, enc, "Ann", "mood", "grim").args == {"target": "Ann", "key": "mood", "value": "grim", "stat": True}
    enc.apply(set_event(FREEFORM, enc, "Ann", "mood", "grim"))
    assert set_event(FREEFORM, enc, "Ann", "mood", "7").args == {"target": "Ann", "key": "mood", "value": 7, "stat": True}


def test_a_number_stat_refuses_words() -> None:
    enc = encounter()
    _add(enc, "Ann", {"hp": 5}, rank=3)
    assert set_event(FREEFORM, enc, "Ann", "rank", "4").args == {"target": "Ann", "key": "rank", "value": 4, "stat": True}
    with pytest.raises(CommandError) as words:
        set_event(FREEFORM, enc, "Ann", "rank", "high")
    assert str(words.value) == "set Ann rank: expected a number, got 'high'"


def test_brandx_checks_a_stat_by_its_field_and_a_resource_by_the_sheet() -> None:
    enc = encounter()
    _add(enc, "Cy", {"vp": 6, "dp": 4, "ep": 9}, strength=10)
    assert set_event(BRANDX, enc, "Cy", "strength", "12").args == {"target": "Cy", "key": "strength", "value": 12, "stat": True}
    assert set_event(BRANDX, enc, "Cy", "agility", "9").args == {"target": "Cy", "key": "agility", "value": 9, "stat": True}
    with pytest.raises(TrackerError, match=r"^set Cy strength"):
        set_event(BRANDX, enc, "Cy", "strength", "strong")
    assert set_event(BRANDX, enc, "Cy", "vp", "3").args == {"target": "Cy", "key": "vp", "value": 3}
    assert set_event(BRANDX, enc, "Cy", "pushback", "1").args == {"target": "Cy", "key": "pushback", "value": 1}  # a resource field not yet held
    with pytest.raises(TrackerError, match=r"^set Cy vp: expected a number, got 'x'$"):
        set_event(BRANDX, enc, "Cy", "vp", "x")
    with pytest.raises(TrackerError, match=r"^set Cy pushback: expected a number, got 'x'$"):
        set_event(BRANDX, enc, "Cy", "pushback", "x")  # a resource of the sheet, not held yet
    with pytest.raises(TrackerError, match=r"^set Cy mana\.resources\.mana: expected one of the known resources"):
        set_event(BRANDX, enc, "Cy", "mana", "3")


def test_set_refuses_control_characters_and_numbers_past_the_bounds() -> None:
    enc = encounter("Ann")
    with pytest.raises(TrackerError, match="^set: key: control characters are not allowed"):
        setting(FREEFORM, "Ann", "mo\x1bod", "x")
    with pytest.raises(TrackerError, match="set Ann mood"):
        set_event(FREEFORM, enc, "Ann", "mood", "gr\x1bim")
    with pytest.raises(TrackerError, match="set Ann hp"):
        set_event(FREEFORM, enc, "Ann", "hp", "1e300")
    # a stat whose field has no top is held to the tracker's bound (docs/guide/verbs.md: "at most 10^12")
    usor = encounter()
    usor.apply(Event("add", {"name": "Cy", "resources": {"stun": 6}}))
    assert set_event(registry.get("usor"), usor, "Cy", "agility", str(10**12)).args["value"] == 10**12
    with pytest.raises(TrackerError, match=r"^set Cy agility: expected a number of at most 1,000,000,000,000 in size"):
        set_event(registry.get("usor"), usor, "Cy", "agility", str(10**13))
    built = setting(FREEFORM, "Ann", "hp", "4")
    assert built(enc).args == {"target": "Ann", "key": "hp", "value": 4}
