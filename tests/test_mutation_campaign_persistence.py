"""`tracker.persistence.campaign`, the campaign folded from its events, as its module
docstring and docs/campaigns.md ("Characters", "Fights", "Undo", "Rests") say: each kind
of change with its arguments and words, the party's ids in the order they joined, a
change refused part way leaving nothing changed, one fight under way at a time, an end
sending each character's new values back, undo and redo of the latest change only.
"""

from __future__ import annotations

from typing import Any

import pytest

from tracker.engine.errors import RuleRefusal, TrackerError
from tracker.engine.model import Event
from tracker.persistence import campaign as cp
from tracker.persistence.campaign import KINDS, PC, Campaign, changes


def ev(kind: str, **args: Any) -> Event:
    return Event(kind, args)


def road() -> Campaign:
    """Ann (hp 10, str 12, side party) and Bo (hp 8, mp 3)."""
    camp = Campaign("Road", "freeform")
    camp.apply(ev("join", pc="pc1", name="Ann", resources={"hp": 10}, stats={"str": 12}, side="party"))
    camp.apply(ev("join", pc="pc2", name="Bo", resources={"hp": 8, "mp": 3}))
    return camp


def refused(camp: Campaign, event: Event, kind: type[Exception] = TrackerError) -> str:
    before = [(p.id, p.name, dict(p.resources), dict(p.stats), dict(p.conditions), p.status) for p in camp.pcs.values()]
    fights, count = [(f.file, f.ended) for f in camp.fights], len(camp.events)
    with pytest.raises(kind) as said:
        camp.apply(event)
    assert [(p.id, p.name, dict(p.resources), dict(p.stats), dict(p.conditions), p.status) for p in camp.pcs.values()] == before
    assert [(f.file, f.ended) for f in camp.fights] == fights and len(camp.events) == count
    return str(said.value)


# ------------------------------------------------------------------ the kinds
def test_every_kind_with_its_arguments_and_which_are_required() -> None:
    shapes = {name: {k: (shape[0], required) for k, (shape, required) in row.args.items()} for name, row in KINDS.items()}
    assert list(shapes) == ["join", "leave", "set", "note", "fight", "end", "rest", "undo", "redo"]
    assert shapes["join"] == {"pc": ("text", True), "name": ("text", True), "stats": ("a table", False), "resources": ("a table", False),
                              "current": ("a table", False), "conditions": ("a table", False), "side": ("text", False), "at": ("text", False)}
    assert shapes["leave"] == {"pc": ("text", True), "reason": ("text", False), "note": ("text", False), "at": ("text", False)}
    assert shapes["set"] == {"pc": ("text", True), "stats": ("a table", False), "maxima": ("a table", False), "resources": ("a table", False),
                             "conditions": ("a table", False), "name": ("text", False), "side": ("text", False), "at": ("text", False)}
    assert shapes["note"] == {"text": ("text", True), "at": ("text", False)}
    assert shapes["fight"] == {"file": ("text", True), "name": ("text", True), "pcs": ("a list of names", False), "at": ("text", False)}
    assert shapes["end"] == {"file": ("text", True), "revision": ("an integer", True), "segment": ("an integer", False), "outcome": ("text", False),
                             "party": ("a table", False), "stats": ("a table", False), "at": ("text", False)}
    assert shapes["rest"] == {"hours": ("a finite number", True), "rule": ("text", True), "party": ("a table", False),
                              "rolls": ("a list of tables", False), "note": ("text", False), "at": ("text", False)}
    assert shapes["undo"] == shapes["redo"] == {"target": ("an integer", True), "revision": ("an integer", False), "at": ("text", False)}
    assert [row.apply for row in KINDS.values()] == ["_join", "_leave", "_set", "_note", "_fight", "_end", "_rest", "", ""]
    assert all(row.name == name for name, row in KINDS.items())


@pytest.mark.parametrize(("value", "ok"), [([], True), ([{"dice": [1]}, {}], True), ([{}, 3], False), ({}, False), ("x", False)])
def test_a_rests_rolls_are_a_list_of_tables(value: Any, ok: bool) -> None:
    (_, test), _ = KINDS["rest"].args["rolls"]
    assert test(value) is ok


def test_each_kind_in_words() -> None:
    words = {name: row.describe for name, row in KINDS.items()}
    assert words["join"]({"name": "Ann"}) == "Ann joins the party"
    assert words["leave"]({"pc": "pc1"}) == "pc1 leaves the party"
    assert words["leave"]({"pc": "pc1", "reason": "left"}) == "pc1 leaves the party"
    assert words["leave"]({"pc": "pc1", "reason": "died"}) == "pc1 dies"
    assert words["set"]({"pc": "pc2"}) == "pc2's sheet changes"
    assert words["note"]({"text": "rain"}) == "note: rain"
    assert words["fight"]({"name": "The docks"}) == "the fight The docks begins"
    assert words["end"]({"file": "road-1.toml"}) == "the fight road-1.toml ends"
    assert words["rest"]({"hours": 8}) == "the party rests 8 hours"
    assert words["rest"]({"hours": 1}) == "the party rests 1 hour"
    assert words["rest"]({}) == "the party rests 0 hours"
    assert words["undo"]({"target": 4}) == "undo of change 4"
    assert words["redo"]({"target": 4}) == "redo of change 4"


def test_describe_names_a_character_as_they_are_called_now() -> None:
    camp = road()
    camp.apply(ev("set", pc="pc1", name="Anna"))
    camp.apply(ev("leave", pc="pc2", reason="died"))
    assert [camp.describe(e) for e in camp.events] == ["Ann joins the party", "Bo joins the party", "Anna's sheet changes", "Bo dies"]
    assert camp.describe(ev("leave", pc="pc9")) == "pc9 leaves the party"
    assert camp.describe(Event("set", {"pc": "pc1", "name": "pc1"})) == "Anna's sheet changes"


# ------------------------------------------------------------------ figures
def test_a_pc_copy_is_its_own_and_its_state_is_every_figure_a_fight_changes() -> None:
    pc = PC("pc1", "Ann", {"str": 10}, {"str": 12}, {"hp": 10}, {"hp": 6}, {"poisoned": 20}, "party", "left", 3, "gone home")
    twin = pc.copy()
    assert twin == pc and twin is not pc
    for table in (twin.stats, twin.sheet, twin.maxima, twin.resources, twin.conditions):
        table["x"] = 1
    assert (pc.stats, pc.sheet, pc.maxima, pc.resources, pc.conditions) == ({"str": 10}, {"str": 12}, {"hp": 10}, {"hp": 6}, {"poisoned": 20})
    state = pc.state()
    assert state == {"name": "Ann", "stats": {"str": 10}, "maxima": {"hp": 10}, "resources": {"hp": 6}, "conditions": {"poisoned": 20}}
    state["stats"]["str"] = 0
    state["maxima"]["hp"] = 0
    state["resources"]["hp"] = 0
    state["conditions"]["poisoned"] = 0
    assert (pc.stats, pc.maxima, pc.resources, pc.conditions) == ({"str": 10}, {"hp": 10}, {"hp": 6}, {"poisoned": 20})


def test_what_changed_is_the_new_values_and_0_for_a_condition_that_ended() -> None:
    before = {"name": "Ann", "stats": {"str": 12, "dex": 9}, "maxima": {"hp": 10}, "resources": {"hp": 10, "mp": 2},
              "conditions": {"poisoned": 20, "blind": 5, "slow": 3}}
    after = {"name": "Anna", "stats": {"str": 10, "dex": 9, "wis": 4}, "maxima": {"hp": 10, "ward": 0}, "resources": {"hp": 6, "mp": 2, "ward": 3},
             "conditions": {"poisoned": 20, "blind": 2, "dazed": 7}}
    assert changes(before, after) == {"name": "Anna", "stats": {"str": 10, "wis": 4}, "maxima": {"ward": 0},
                                      "resources": {"hp": 6, "ward": 3}, "conditions": {"blind": 2, "dazed": 7, "slow": 0}}
    assert changes(before, before) == {}


@pytest.mark.parametrize(("table", "plain"), [
    ({}, True), ({"hp": 3, "ep": 2.5}, True), ({"hp": -10**12}, True), ({"hp": 10**12}, True),
    ({"hp": 10**12 + 1}, False), ({"hp": -10**12 - 1}, False), ({"hp": True}, False), ({"hp": "3"}, False),
    ({"hp": float("nan")}, False), ([1], False), (None, False),
])
def test_a_plain_table_of_figures(table: Any, plain: bool) -> None:
    assert cp._plain_figures(table) is plain


def test_figures_are_checked_by_name() -> None:
    assert cp._figures({"hp": 3}, "here") == {"hp": 3}
    with pytest.raises(TrackerError, match="^here: expected a table of numbers$"):
        cp._figures([1], "here")
    with pytest.raises(TrackerError, match=r"^here\.hp: expected a number, got '3'$"):
        cp._figures({"hp": "3"}, "here")
    assert cp._figures({"hp": 2.0}, "x") == {"hp": 2.0}


# ------------------------------------------------------------------ a fight's figures
GOOD = {"declared": 2, "succeeded": 1, "dealt": {"hp": 3}, "luck": {"1/2": [2, 1], "0/1": [1, 0], "1/1": [1, 1]}}


@pytest.mark.parametrize(("views", "said"), [
    ([1], "end: stats.pc1: expected a table of views (gm, viewer)"),
    ({"player": GOOD}, "end: stats.pc1.player: expected the gm or viewer view, a table"),
    ({"gm": 3}, "end: stats.pc1.gm: expected the gm or viewer view, a table"),
    ({"gm": {"declared": -1}}, "end: stats.pc1.gm.declared: expected a whole number of at least 0, got -1"),
    ({"gm": {"unrecorded": 1.0}}, "end: stats.pc1.gm.unrecorded: expected a whole number of at least 0, got 1.0"),
    ({"gm": {"down": True}}, "end: stats.pc1.gm.down: expected a whole number of at least 0, got True"),
    ({"gm": {"costs": {"ep": "x"}}}, "end: stats.pc1.gm.costs.ep: expected a number, got 'x'"),
    ({"gm": {"healed": 3}}, "end: stats.pc1.gm.healed: expected a table of numbers"),
    ({"gm": {"luck": [1]}}, "end: stats.pc1.gm.luck: expected a table of chances"),
    ({"gm": {"luck": {"3/2": [1, 1]}}}, "end: stats.pc1.gm.luck: '3/2': expected a chance written n/d, from 0 to 1"),
    ({"gm": {"luck": {"1/0": [1, 1]}}}, "end: stats.pc1.gm.luck: '1/0': expected a chance written n/d, from 0 to 1"),
    ({"gm": {"luck": {"half": [1, 1]}}}, "end: stats.pc1.gm.luck: 'half': expected a chance written n/d, from 0 to 1"),
    ({"gm": {"luck": {"1/2": [1, 2]}}}, "end: stats.pc1.gm.luck.1/2: expected [rolls, successes], successes at most rolls, got [1, 2]"),
    ({"gm": {"luck": {"1/2": [1, -1]}}}, "end: stats.pc1.gm.luck.1/2: expected [rolls, successes], successes at most rolls, got [1, -1]"),
    ({"gm": {"luck": {"1/2": [1]}}}, "end: stats.pc1.gm.luck.1/2: expected [rolls, successes], successes at most rolls, got [1]"),
    ({"gm": {"luck": {"1/2": [1, 1, 1]}}}, "end: stats.pc1.gm.luck.1/2: expected [rolls, successes], successes at most rolls, got [1, 1, 1]"),
    ({"gm": {"luck": {"1/2": (1, 1)}}}, "end: stats.pc1.gm.luck.1/2: expected [rolls, successes], successes at most rolls, got (1, 1)"),
    ({"gm": {"luck": {"1/2": [1.0, 1]}}}, "end: stats.pc1.gm.luck.1/2: expected [rolls, successes], successes at most rolls, got [1.0, 1]"),
    ({"gm": {"luck": {"1/2": [1, 1.0]}}}, "end: stats.pc1.gm.luck.1/2: expected [rolls, successes], successes at most rolls, got [1, 1.0]"),
])
def test_a_fights_figures_are_checked_by_name(views: Any, said: str) -> None:
    with pytest.raises(TrackerError) as refusal:
        cp._views(views, "end: stats.pc1")
    assert str(refusal.value) == said


def test_a_fights_figures_that_check_are_kept_as_they_are() -> None:
    views = {"gm": GOOD, "viewer": {"secret": 1, "luck": None, "dealt": {"hp": 2.5}}}
    assert cp._views(views, "x") == views
    assert cp._views({}, "x") == {}


# ------------------------------------------------------------------ joining
def test_characters_join_with_their_sheet_and_ids_in_order() -> None:
    camp = Campaign("Road", "freeform")
    assert camp.next_id() == "pc1"
    camp.apply(ev("join", pc="pc1", name="Ann", resources={"hp": 10, "mp": 4}, current={"mp": 1}, stats={"str": 12, "nick": "A"},
                  conditions={"blessed": 30}, side="party"))
    ann = camp.pcs["pc1"]
    assert (ann.id, ann.name, ann.side, ann.status, ann.joined, ann.why) == ("pc1", "Ann", "party", "active", 1, "")
    assert (ann.maxima, ann.resources, ann.stats, ann.sheet, ann.conditions) == ({"hp": 10, "mp": 4}, {"hp": 10, "mp": 1}, {"str": 12, "nick": "A"}, {"str": 12, "nick": "A"}, {"blessed": 30})
    assert camp.next_id() == "pc2"
    camp.apply(ev("note", text="x"))
    camp.apply(ev("join", pc="pc2", name="Bo"))
    bo = camp.pcs["pc2"]
    assert (bo.side, bo.joined, bo.maxima, bo.stats, bo.conditions) == ("", 3, {}, {}, {})
    assert camp.next_id() == "pc3"
    camp.apply(ev("undo"))
    assert camp.next_id() == "pc3"  # an id once given is never given again


@pytest.mark.parametrize(("args", "said"), [
    ({"pc": "pc1", "name": "Cy"}, "join: pc1 is already a character of the campaign"),
    ({"pc": "pc3", "name": "ann"}, "there is already a character named 'Ann' in the party (names are unique ignoring case)"),
    ({"pc": "pc3", "name": "  "}, "a character needs a name"),
    ({"pc": "pc3", "name": 5}, "a character needs a name"),
    ({"pc": "pc3", "name": "Cy", "resources": {"hp": "x"}}, "join Cy: resources.hp: expected a number, got 'x'"),
    ({"pc": "pc3", "name": "Cy", "resources": {"hp": 5}, "current": {"mp": 1, "xp": 2}}, "join Cy: current: mp, xp is not one of its resources (hp)"),
    ({"pc": "pc3", "name": "Cy", "current": {"mp": 1}}, "join Cy: current: mp is not one of its resources (none)"),
    ({"pc": "pc3", "name": "Cy", "resources": {"hp": 5, "mp": 2}, "current": {"xp": 1}}, "join Cy: current: xp is not one of its resources (hp, mp)"),
    ({"pc": "pc3", "name": "Cy", "current": {"mp": "x"}}, "join Cy: current.mp: expected a number, got 'x'"),
    ({"pc": "pc3", "name": "Cy", "conditions": {"slow": -1}}, "join Cy.conditions.slow: expected a whole number from 1 to 1,000,000,000,000, got -1"),
])
def test_a_join_refused_changes_nothing(args: dict[str, Any], said: str) -> None:
    assert refused(road(), Event("join", args)) == said


def test_a_name_of_one_who_left_may_be_taken_again() -> None:
    camp = road()
    camp.apply(ev("leave", pc="pc1"))
    camp.apply(ev("join", pc="pc3", name="ANN"))
    assert camp.pc("ann").id == "pc3"  # the party first
    assert camp.pc("pc1").name == "Ann"


# ------------------------------------------------------------------ finding
def test_a_character_by_id_or_by_name_ignoring_case_else_refused_naming_the_party() -> None:
    camp = road()
    assert camp.pc("pc2").name == "Bo" and camp.pc("bO").id == "pc2" and camp.pc("ANN").id == "pc1"
    with pytest.raises(TrackerError) as said:
        camp.pc("Cy")
    assert str(said.value) == "no character 'Cy' in the campaign Road (the party: Ann, Bo)"
    camp.apply(ev("leave", pc="pc1"))
    camp.apply(ev("leave", pc="pc2"))
    assert camp.pc("ann").status == "left"
    with pytest.raises(TrackerError, match=r"\(the party: nobody yet\)$"):
        camp.pc("Cy")
    assert camp.party() == []


def test_fights_by_file_the_one_under_way_and_the_tables() -> None:
    camp = road()
    assert camp.open_fight() is None and camp.current_fight() is None
    with pytest.raises(RuleRefusal) as said:
        camp.fight("road-1.toml")
    assert str(said.value) == "road-1.toml is not a fight of the campaign Road (its fights: none yet) (rule: campaign)"
    camp.apply(ev("fight", file="road-1.toml", name="The docks", pcs=["pc1"], at="t1"))
    one = camp.fight("road-1.toml")
    assert camp.open_fight() is one and camp.current_fight() is one and one.open
    camp.apply(ev("end", file="road-1.toml", revision=3))
    assert camp.open_fight() is None and camp.current_fight() is one and not one.open
    camp.apply(ev("fight", file="road-2.toml", name="The roof"))
    two = camp.fight("road-2.toml")
    assert camp.current_fight() is two and camp.open_fight() is two
    camp.apply(ev("end", file="road-2.toml", revision=1))
    assert camp.current_fight() is two
    with pytest.raises(RuleRefusal) as said:
        camp.fight("road-3.toml")
    assert said.value.args[0].startswith("road-3.toml is not a fight of the campaign Road (its fights: road-1.toml, road-2.toml)")


# ------------------------------------------------------------------ leaving and changing
def test_a_character_leaves_or_dies_with_the_words_kept() -> None:
    camp = road()
    camp.apply(ev("leave", pc="Ann", note="gone home"))
    camp.apply(ev("leave", pc="pc2", reason="died"))
    assert [(p.status, p.why) for p in camp.pcs.values()] == [("left", "gone home"), ("died", "")]
    assert refused(camp, ev("leave", pc="pc2"), RuleRefusal) == "Bo has already died (rule: campaign)"


def test_a_leave_for_a_reason_no_one_has_is_refused() -> None:
    assert refused(road(), ev("leave", pc="pc1", reason="vanished")) == "leave: reason: expected left or died, got 'vanished'"


def test_one_in_a_fight_under_way_is_changed_there_not_here() -> None:
    camp = road()
    camp.apply(ev("fight", file="f.toml", name="F", pcs=["pc1"]))
    said = "{}: Ann is in the fight F (f.toml), still under way: change them there, or end it first (tracker campaign end f.toml) (rule: campaign)"
    assert refused(camp, ev("leave", pc="pc1"), RuleRefusal) == said.format("leave")
    assert refused(camp, ev("set", pc="pc1", side="x"), RuleRefusal) == said.format("set")
    assert refused(camp, ev("rest", hours=1, rule="r", party={"pc1": {}}), RuleRefusal) == said.format("rest")
    camp.apply(ev("set", pc="pc2", side="x"))  # Bo is not in it
    camp.apply(ev("leave", pc="pc2"))


def test_a_set_changes_the_sheet_between_fights() -> None:
    camp = road()
    camp.apply(ev("set", pc="Ann", name="Anna", side="heroes", stats={"str": 14, "dex": 9}, maxima={"hp": 12, "ward": 2},
                  resources={"hp": 7}, conditions={"blessed": 30}))
    ann = camp.pcs["pc1"]
    assert (ann.name, ann.side, ann.stats, ann.sheet) == ("Anna", "heroes", {"str": 14, "dex": 9}, {"str": 14, "dex": 9})
    assert (ann.maxima, ann.resources, ann.conditions) == ({"hp": 12, "ward": 2}, {"hp": 7, "ward": 2}, {"blessed": 30})
    camp.apply(ev("set", pc="pc1", conditions={"blessed": 0}, maxima={"ward": 5}, name="anna"))
    assert (ann.conditions, camp.pcs["pc1"].conditions, camp.pcs["pc1"].resources["ward"], camp.pcs["pc1"].name) == ({"blessed": 30}, {}, 2, "anna")
    camp.apply(ev("set", pc="pc1", side=""))
    assert camp.pcs["pc1"].side == ""


@pytest.mark.parametrize(("args", "said"), [
    ({"pc": "pc1", "name": "bo"}, "there is already a character named 'Bo' in the party (names are unique ignoring case)"),
    ({"pc": "pc1", "name": ""}, "a character needs a name"),
    ({"pc": "pc1", "stats": {"str": [1]}}, "set Ann: str: "),
    ({"pc": "pc1", "maxima": {"hp": "x"}}, "set Ann: maxima.hp: expected a number, got 'x'"),
    ({"pc": "pc1", "resources": {"mp": 1}}, "set Ann: mp is not one of Ann's resources (hp)"),
    ({"pc": "pc1", "resources": {"hp": "x"}}, "set Ann.hp: expected a number, got 'x'"),
    ({"pc": "pc1", "conditions": [1]}, "set Ann: conditions: expected a table"),
    ({"pc": "pc1", "conditions": {"slow": 0}}, "set Ann: Ann is not slow (conditions: none)"),
    ({"pc": "pc1", "conditions": {"slow": -2}}, "set Ann: condition slow: expected a whole number from 1 to 1,000,000,000,000, got -2"),
    ({"pc": "pc1", "stats": {"str": 1}, "resources": {"mp": 1}}, "set Ann: mp is not one of Ann's resources (hp)"),
])
def test_a_set_refused_changes_nothing(args: dict[str, Any], said: str) -> None:
    assert refused(road(), Event("set", args)).startswith(said)


def test_a_set_names_the_conditions_there_are_and_the_resources_when_none() -> None:
    camp = Campaign("Road", "freeform")
    camp.apply(ev("join", pc="pc1", name="Cy", conditions={"slow": 3, "blind": 2}))
    assert refused(camp, ev("set", pc="pc1", conditions={"dazed": 0})) == "set Cy: Cy is not dazed (conditions: slow, blind)"
    assert refused(camp, ev("set", pc="pc1", resources={"hp": 1})) == "set Cy: hp is not one of Cy's resources (none)"


def test_a_set_of_a_resource_not_there_names_every_resource() -> None:
    assert refused(road(), ev("set", pc="pc2", resources={"xp": 1})) == "set Bo: xp is not one of Bo's resources (hp, mp)"


def test_one_who_left_no_longer_changes() -> None:
    camp = road()
    camp.apply(ev("leave", pc="pc2", reason="died"))
    assert refused(camp, ev("set", pc="pc2", side="x"), RuleRefusal) == "Bo has died: their sheet no longer changes (rule: campaign)"


def test_a_note_is_kept_with_its_change() -> None:
    camp = road()
    camp.apply(ev("note", text="rain"))
    camp.apply(ev("note", text=5))
    assert camp.notes == [(3, "rain"), (4, "5")]


# ------------------------------------------------------------------ fights
def test_a_fight_takes_the_party_and_only_one_is_under_way() -> None:
    camp = road()
    camp.apply(ev("fight", file="f1.toml", name="The docks", pcs=["pc1", "pc2"], at="t1"))
    fight = camp.fights[0]
    assert (fight.file, fight.name, fight.started, fight.at, fight.pcs, fight.ended) == ("f1.toml", "The docks", 3, "t1", ("pc1", "pc2"), 0)
    assert refused(camp, ev("fight", file="f2.toml", name="X"), RuleRefusal) == (
        "the fight The docks (f1.toml) is still under way: end it first (tracker campaign end f1.toml) (rule: campaign)")
    camp.apply(ev("end", file="f1.toml", revision=2))
    assert refused(camp, ev("fight", file="f1.toml", name="X"), RuleRefusal) == "f1.toml is already a fight of this campaign (rule: campaign)"
    assert refused(camp, ev("fight", file="f2.toml", name="X", pcs=["pc1", "pc9"])) == "fight: pc9 is not in the party"
    camp.apply(ev("leave", pc="pc2"))
    assert refused(camp, ev("fight", file="f2.toml", name="X", pcs=["pc2"])) == "fight: pc2 is not in the party"
    camp.apply(ev("fight", file="f2.toml", name=7))
    assert (camp.fights[1].name, camp.fights[1].at, camp.fights[1].pcs) == ("7", "", ())


def test_an_end_sends_each_characters_new_values_back() -> None:
    camp = road()
    camp.pcs["pc1"].conditions["blessed"] = 50
    camp.apply(ev("fight", file="f1.toml", name="F", pcs=["pc1", "pc2"]))
    views = {"pc1": {"gm": {"declared": 2}, "viewer": {"declared": 2}}}
    camp.apply(ev("end", file="f1.toml", revision=7, segment=45, outcome="won", at="t2", stats=views,
                  party={"pc1": {"name": "Anna", "resources": {"hp": 6}, "stats": {"str": 10}, "conditions": {"blessed": 0, "poisoned": 20}},
                         "pc2": {"maxima": {"ward": 0}, "resources": {"ward": 3}}}))
    fight = camp.fights[0]
    assert (fight.ended, fight.ended_at, fight.revision, fight.segment, fight.outcome, fight.stats) == (4, "t2", 7, 45, "won", views)
    ann, bo = camp.pcs["pc1"], camp.pcs["pc2"]
    assert (ann.name, ann.resources, ann.stats, ann.sheet, ann.conditions) == ("Anna", {"hp": 6}, {"str": 10}, {"str": 12}, {"poisoned": 20})
    assert (bo.maxima, bo.resources) == ({"hp": 8, "mp": 3, "ward": 0}, {"hp": 8, "mp": 3, "ward": 3})
    assert fight.before == {"pc1": {"name": "Ann", "stats": {"str": 12}, "maxima": {"hp": 10}, "resources": {"hp": 10}, "conditions": {"blessed": 50}},
                            "pc2": {"name": "Bo", "stats": {}, "maxima": {"hp": 8, "mp": 3}, "resources": {"hp": 8, "mp": 3}, "conditions": {}}}
    assert fight.after == {"pc1": ann.state(), "pc2": bo.state()}
    assert refused(camp, ev("end", file="f1.toml", revision=8), RuleRefusal) == "the fight F (f1.toml) has already ended (change 4) (rule: campaign)"


def test_an_end_with_nothing_but_its_revision() -> None:
    camp = road()
    camp.apply(ev("fight", file="f1.toml", name="F", pcs=["pc1"]))
    camp.apply(ev("end", file="f1.toml", revision=2))
    fight = camp.fights[0]
    assert (fight.segment, fight.outcome, fight.ended_at, fight.stats, fight.before, fight.after) == (0, "", "", {}, {}, {})


@pytest.mark.parametrize(("party", "said"), [
    ([1], "end: party: expected a table of characters"),
    ({"pc2": {}}, "end: party: pc2 did not go into the fight f1.toml"),
    ({"pc1": 3}, "end: party.pc1: expected a table"),
    ({"pc1": {"name": " "}}, "end: party.pc1.name: expected a name"),
    ({"pc1": {"name": 4}}, "end: party.pc1.name: expected a name"),
    ({"pc1": {"stats": [1]}}, "end: party.pc1.stats: expected a table"),
    ({"pc1": {"stats": {"str": [1]}}}, "end: party.pc1.stats.str: "),
    ({"pc1": {"maxima": {"hp": "x"}}}, "end: party.pc1.maxima.hp: expected a number, got 'x'"),
    ({"pc1": {"resources": {"hp": "x"}}}, "end: party.pc1.resources.hp: expected a number, got 'x'"),
    ({"pc1": {"conditions": [1]}}, "end: party.pc1.conditions: expected a table of segments left"),
    ({"pc1": {"conditions": {"slow": -1}}}, "end: party.pc1.conditions.slow: expected a whole number from 1 to 1,000,000,000,000, got -1"),
    ({"pc1": {"conditions": {"slow": False}}}, "end: party.pc1.conditions.slow: expected a whole number of segments, got False"),
])
def test_an_end_refused_changes_nothing(party: Any, said: str) -> None:
    camp = road()
    camp.apply(ev("fight", file="f1.toml", name="F", pcs=["pc1"]))
    assert refused(camp, ev("end", file="f1.toml", revision=2, party=party)).startswith(said)
    assert camp.fights[0].open


def test_an_end_that_ends_a_condition_the_character_did_not_have_changes_nothing_else() -> None:
    camp = road()
    camp.apply(ev("fight", file="f1.toml", name="F", pcs=["pc1"]))
    camp.apply(ev("end", file="f1.toml", revision=2, party={"pc1": {"conditions": {"slow": 0}, "resources": {"hp": 4}}}))
    assert (camp.pcs["pc1"].conditions, camp.pcs["pc1"].resources) == ({}, {"hp": 4})


def test_an_end_with_figures_wrong_changes_nothing() -> None:
    camp = road()
    camp.apply(ev("fight", file="f1.toml", name="F", pcs=["pc1"]))
    said = refused(camp, ev("end", file="f1.toml", revision=2, party={"pc1": {"resources": {"hp": 1}}}, stats={"pc1": {"gm": {"declared": -1}}}))
    assert said == "end: stats.pc1.gm.declared: expected a whole number of at least 0, got -1"
    assert camp.fights[0].open and camp.pcs["pc1"].resources == {"hp": 10} and camp.fights[0].before == {}


def test_an_end_of_a_fight_that_is_not_the_campaigns_is_refused() -> None:
    assert refused(road(), ev("end", file="nope.toml", revision=1), RuleRefusal).startswith("nope.toml is not a fight of the campaign Road")


# ------------------------------------------------------------------ rests
def test_a_rest_puts_what_it_changed_on_the_party() -> None:
    camp = road()
    camp.apply(ev("rest", hours=8, rule="stated by the GM", party={"pc1": {"resources": {"hp": 9}}, "pc2": {"conditions": {}}}))
    assert camp.pcs["pc1"].resources == {"hp": 9} and len(camp.rests) == 1
    rest = camp.rests[0]
    assert (rest.kind, rest.seq, rest.args["hours"]) == ("rest", 3, 8)
    camp.apply(ev("rest", hours=0.5, rule="x"))
    assert camp.rests[1].seq == 4


@pytest.mark.parametrize(("args", "said"), [
    ({"hours": 0, "rule": "x"}, "rest: hours: expected more than 0, got 0"),
    ({"hours": -1.5, "rule": "x"}, "rest: hours: expected more than 0, got -1.5"),
    ({"hours": "8", "rule": "x"}, "rest: hours: expected a number, got '8'"),
    ({"hours": 1, "rule": "x", "party": [1]}, "rest: party: expected a table of characters"),
    ({"hours": 1, "rule": "x", "party": {"pc9": {}}}, "rest: party: pc9 is not in the party"),
    ({"hours": 1, "rule": "x", "party": {"pc1": 2}}, "rest: party.pc1: expected a table"),
    ({"hours": 1, "rule": "x", "party": {"pc2": {"resources": {"hp": 1}}, "pc1": {"resources": {"hp": "x"}}}}, "rest: party.pc1.resources.hp: expected a number, got 'x'"),
])
def test_a_rest_refused_changes_nothing(args: dict[str, Any], said: str) -> None:
    camp = road()
    assert refused(camp, Event("rest", args)) == said
    assert camp.rests == [] and camp.pcs["pc2"].resources == {"hp": 8, "mp": 3}


def test_one_who_left_does_not_rest() -> None:
    camp = road()
    camp.apply(ev("leave", pc="pc2"))
    assert refused(camp, ev("rest", hours=1, rule="x", party={"pc2": {}})) == "rest: party: pc2 is not in the party"


# ------------------------------------------------------------------ apply, undo, redo
def test_an_unknown_kind_is_refused_naming_the_kinds() -> None:
    said = refused(road(), ev("vanish"))
    assert said == "unknown campaign event kind 'vanish' (kinds: join, leave, set, note, fight, end, rest, undo, redo)"


def test_events_are_numbered_as_applied_and_a_campaign_made_from_its_events_is_the_same() -> None:
    camp = road()
    camp.apply(ev("note", text="x"))
    assert [e.seq for e in camp.events] == [1, 2, 3]
    again = Campaign("Road", "freeform", "house.toml", events=[Event(e.kind, dict(e.args)) for e in camp.events])
    assert again.house_rules == "house.toml" and [p.state() for p in again.pcs.values()] == [p.state() for p in camp.pcs.values()]
    assert again.notes == camp.notes and [e.seq for e in again.events] == [1, 2, 3]


def test_undo_and_redo_walk_the_latest_change_only() -> None:
    assert Campaign("Empty", "freeform").undo_target() is None
    camp = road()
    assert camp.undo_target() is camp.events[1] and camp.redo_target() is None
    assert refused(camp, ev("redo"), RuleRefusal) == "nothing to redo (rule: redo)"
    camp.apply(ev("set", pc="pc1", resources={"hp": 4}))
    assert camp.undo_target() is camp.events[2]
    assert refused(camp, ev("undo", target=2), RuleRefusal) == "undo of change 2 refused: the latest change that can be undone is 3 (set) (rule: undo)"
    undo = camp.apply(ev("undo"))
    assert undo.args["target"] == 3 and undo.seq == 4
    assert camp.pcs["pc1"].resources == {"hp": 10} and camp.undo_target() is camp.events[1] and camp.redo_target() is camp.events[2]
    assert [e.seq for e in camp.effective_events()] == [1, 2]
    assert refused(camp, ev("redo", target=2), RuleRefusal) == "redo of change 2 refused: the latest change that can be redone is 3 (set) (rule: redo)"
    camp.apply(ev("redo", target=3))
    assert camp.pcs["pc1"].resources == {"hp": 4} and camp.redo_target() is None
    camp.apply(ev("undo"))
    camp.apply(ev("undo"))
    camp.apply(ev("undo"))
    assert camp.pcs == {} and refused(camp, ev("undo"), RuleRefusal) == "nothing to undo (rule: undo)"
    camp.apply(ev("redo"))
    assert list(camp.pcs) == ["pc1"]
    camp.apply(ev("note", text="new"))  # a new change forgets what could be redone
    assert camp.redo_target() is None and refused(camp, ev("redo"), RuleRefusal) == "nothing to redo (rule: redo)"


def test_an_undone_end_reopens_its_fight_and_a_redo_records_the_files_revision() -> None:
    camp = road()
    camp.apply(ev("fight", file="f1.toml", name="F", pcs=["pc1"]))
    camp.apply(ev("end", file="f1.toml", revision=5, party={"pc1": {"resources": {"hp": 3}}}))
    camp.apply(ev("undo", revision=6))
    assert camp.fights[0].open and camp.pcs["pc1"].resources == {"hp": 10}
    camp.apply(ev("redo", revision=7))
    assert not camp.fights[0].open and camp.fights[0].revision == 7 and camp.pcs["pc1"].resources == {"hp": 3}
    camp.apply(ev("undo", revision=8))
    camp.apply(ev("redo", revision=9))
    assert camp.fights[0].revision == 9
    camp.apply(ev("undo"))
    camp.apply(ev("redo"))  # no revision said: the latest one said stands
    assert camp.fights[0].revision == 9


def test_a_redo_of_a_change_that_fails_again_is_put_back() -> None:
    camp = road()
    camp.apply(ev("set", pc="pc1", name="Cy"))
    camp.apply(ev("undo"))
    camp._applied.append(len(camp.events))  # a join of a second Cy, applied under the redo
    camp.events.append(Event("join", {"pc": "pc3", "name": "Cy"}, len(camp.events) + 1))
    camp._refold()
    with pytest.raises(TrackerError, match="already a character named 'Cy'"):
        camp.apply(ev("redo"))
    assert camp.redo_target() is camp.events[2] and camp.pcs["pc1"].name == "Ann" and camp.pcs["pc3"].name == "Cy"
