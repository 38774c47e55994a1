"""Direct tests of tracker.play.party: a character's sheet for a campaign from `key=value`
words (module docstring: `join` from the words or the sheet library, `change` between
fights), as docs/campaigns.md gives them: "A character joins with a sheet, as `add` takes
one (`tracker campaign add road Ann hp=10`), or from the sheet library (`from=ENTRY`).
The campaign gives each its own id, `pc1`, `pc2`, ... in the order they joined";
"`campaign set` changes a character between fights: `KEY=N` sets a stat ... or a resource
as it stands, `KEY.max=N` a resource's maximum, `condition.NAME=SEGMENTS` a condition
(0 ends it), `name=NEW`, `side=S`"; the command line: `tracker campaign add NAME PC
key=value ... [from=ENTRY] [side=S]`."""

from __future__ import annotations

from pathlib import Path

import pytest

from tracker.engine import CommandError, Event, TrackerError
from tracker.persistence.campaign import Campaign
from tracker.persistence.library import Library, Sheet
from tracker.play.party import change, join


def _road(game: str = "freeform") -> Campaign:
    return Campaign("Road", game)


def _joined(camp: Campaign, folder: Path, name: str, **words: str) -> Event:
    event = join(camp, folder, name, dict(words))
    camp.apply(event)
    return event


# ------------------------------------------------------------------ join
def test_a_character_joins_with_the_sheet_its_words_give(tmp_path: Path) -> None:
    camp = _road()
    ann = _joined(camp, tmp_path, "  Ann  ", hp="12", kind="elf")
    assert (ann.kind, ann.args) == ("join", {"pc": "pc1", "name": "Ann", "stats": {"kind": "elf"}, "resources": {"hp": 12}})
    bo = _joined(camp, tmp_path, "Bo", side="party")
    assert (bo.kind, bo.args) == ("join", {"pc": "pc2", "name": "Bo", "stats": {}, "resources": {"hp": 10}, "side": "party"})
    assert [pc.name for pc in camp.party()] == ["Ann", "Bo"]


def test_a_characters_name_is_checked_as_a_combatants(tmp_path: Path) -> None:
    with pytest.raises(TrackerError, match="^campaign add: name: control characters are not allowed"):
        join(_road(), tmp_path, "An\x07n", {})
    with pytest.raises(TrackerError, match="^campaign add: name: a name fits in 40 terminal cells, this one takes 41$"):
        join(_road(), tmp_path, "A" * 41, {})


def test_a_sheets_words_are_the_games_and_refused_naming_the_character(tmp_path: Path) -> None:
    with pytest.raises(TrackerError, match=r"^campaign add Ann\.hp: expected one of the known keys"):
        join(_road("usor"), tmp_path, "Ann", {"hp": "10"})


def test_a_character_joins_from_the_library_with_its_side(tmp_path: Path) -> None:
    Library.in_folder(tmp_path, "freeform").put(Sheet("hero", "heroes", {"kind": "elf"}, {"hp": 15, "mp": 4}))
    camp = _road()
    ann = _joined(camp, tmp_path, "Ann", **{"from": "hero"})
    assert ann.args == {"pc": "pc1", "name": "Ann", "stats": {"kind": "elf"}, "resources": {"hp": 15, "mp": 4}, "side": "heroes"}
    # side= says otherwise
    assert join(camp, tmp_path, "Bo", {"from": "hero", "side": "allies"}).args["side"] == "allies"
    with pytest.raises(TrackerError, match="hero2"):
        join(camp, tmp_path, "Cy", {"from": "hero2"})


def test_words_beside_from_change_only_what_they_name(tmp_path: Path) -> None:
    Library.in_folder(tmp_path, "freeform").put(Sheet("hero", "", {"kind": "elf"}, {"hp": 15, "mp": 4}))
    made = join(_road(), tmp_path, "Ann", {"from": "hero", "mp": "3", "title": "Lady"})
    assert made.args["stats"] == {"kind": "elf", "title": "Lady"}
    assert made.args["resources"] == {"hp": 15, "mp": 3}
    assert "side" not in made.args
    Library.in_folder(tmp_path, "usor").put(Sheet("hero", "", {"agility": 30}, {"stun": 25}))
    usor = join(_road("usor"), tmp_path, "Ann", {"from": "hero", "dodge": "9"})
    assert (usor.args["stats"]["agility"], usor.args["stats"]["dodge"], usor.args["resources"]["stun"]) == (30, 9, 25)


def test_words_beside_from_are_refused_naming_the_character(tmp_path: Path) -> None:
    Library.in_folder(tmp_path, "usor").put(Sheet("hero", "", {"agility": 30}, {"stun": 25}))
    with pytest.raises(TrackerError, match=r"^campaign add Ann\.hp: expected one of the known keys"):
        join(_road("usor"), tmp_path, "Ann", {"from": "hero", "hp": "10"})


def test_the_campaigns_house_rules_are_read_beside_it(tmp_path: Path) -> None:
    (tmp_path / "house.toml").write_text("")  # no tables: the game as it is
    camp = Campaign("Road", "freeform", "house.toml")
    assert join(camp, tmp_path, "Ann", {"hp": "3"}).args["resources"] == {"hp": 3}
    _joined(camp, tmp_path, "Bo")
    assert change(camp, tmp_path, "Bo", {"hp": "4"}).args["resources"] == {"hp": 4}


def test_a_library_sheet_is_checked_as_the_game_reads_it(tmp_path: Path) -> None:
    Library.in_folder(tmp_path, "freeform").put(Sheet("hero", "", {}, {"hp": "lots"}))
    for words in ({}, {"mp": "3"}):
        with pytest.raises(TrackerError, match=r"^campaign add Ann\.resources\.hp: expected a number, got 'lots'$"):
            join(_road(), tmp_path, "Ann", {"from": "hero", **words})


# ------------------------------------------------------------------ change
@pytest.fixture
def road(tmp_path: Path) -> Campaign:
    camp = _road()
    _joined(camp, tmp_path, "Ann", hp="12", kind="elf")
    return camp


def test_a_stat_and_a_resource_are_set_as_they_stand(road: Campaign, tmp_path: Path) -> None:
    assert change(road, tmp_path, "ann", {"kind": "dwarf"}).args["stats"] == {"kind": "dwarf"}
    made = change(road, tmp_path, "pc1", {"hp": "7"})
    assert made == Event("set", {"pc": "pc1", "resources": {"hp": 7}})


def test_only_the_keys_named_are_set_not_the_sheets_defaults(tmp_path: Path) -> None:
    camp = _road("usor")
    _joined(camp, tmp_path, "Max", agility="30")
    assert change(camp, tmp_path, "Max", {"dodge": "9"}).args == {"pc": "pc1", "stats": {"dodge": 9}, "resources": {}}
    assert change(camp, tmp_path, "Max", {"stun": "5"}).args == {"pc": "pc1", "resources": {"stun": 5}}
    assert change(camp, tmp_path, "Max", {"stun.max": "30"}).args == {"pc": "pc1", "maxima": {"stun": 30}}


def test_a_maximum_is_set_only_for_a_resource_of_the_game(road: Campaign, tmp_path: Path) -> None:
    assert change(road, tmp_path, "Ann", {"hp.max": "20"}).args == {"pc": "pc1", "maxima": {"hp": 20}}
    with pytest.raises(CommandError, match=r"^campaign set Ann: mp\.max: mp is not a resource of Freeform \(hp\)$"):
        change(road, tmp_path, "Ann", {"hp.max": "20", "mp.max": "3"})
    camp = _road("usor")
    _joined(camp, tmp_path, "Max")
    for key in ("stun.max", "stun"):  # the game's own refusal names the character
        with pytest.raises(TrackerError, match=r"^campaign set Max\.stun: expected an integer of at least 1, got 'lots'$"):
            change(camp, tmp_path, "Max", {key: "lots"})
    with pytest.raises(CommandError, match=r"^campaign set Max: hp\.max: hp is not a resource of USOR \(chest, head, left_arm, left_leg, right_arm, right_leg, stun\)$"):
        change(camp, tmp_path, "Max", {"hp.max": "1"})


def test_conditions_are_segments_and_checked_as_numbers(road: Campaign, tmp_path: Path) -> None:
    assert change(road, tmp_path, "Ann", {"condition.dazed": "5", "condition.prone": "0"}).args == {
        "pc": "pc1", "conditions": {"dazed": 5, "prone": 0},
    }
    with pytest.raises(CommandError, match=r"^campaign set Ann: condition\.dazed: expected a number, got 'soon'$"):
        change(road, tmp_path, "Ann", {"condition.dazed": "soon"})


def test_a_new_name_and_side(road: Campaign, tmp_path: Path) -> None:
    assert change(road, tmp_path, "Ann", {"name": "  Anneke ", "side": "party"}).args == {"pc": "pc1", "name": "Anneke", "side": "party"}
    with pytest.raises(TrackerError, match="^campaign set Ann: name: control characters are not allowed"):
        change(road, tmp_path, "Ann", {"name": "An\x07n"})
    assert change(road, tmp_path, "Ann", {"side": ""}).args == {"pc": "pc1", "side": ""}


def test_a_change_of_nothing_or_of_nobody_is_refused(road: Campaign, tmp_path: Path) -> None:
    with pytest.raises(CommandError, match=r"^campaign set Ann: nothing to change \(KEY=N, KEY\.max=N, condition\.NAME=SEGMENTS, name=NEW, side=S\)$"):
        change(road, tmp_path, "Ann", {})
    with pytest.raises(TrackerError):
        change(road, tmp_path, "Nobody", {"hp": "3"})


def test_all_of_a_change_in_one_event(road: Campaign, tmp_path: Path) -> None:
    made = change(road, tmp_path, "Ann", {"hp": "5", "hp.max": "14", "condition.dazed": "2", "kind": "orc", "side": "foes"})
    assert made == Event(
        "set",
        {"pc": "pc1", "side": "foes", "maxima": {"hp": 14}, "stats": {"kind": "orc"}, "resources": {"hp": 5}, "conditions": {"dazed": 2}},
    )
    road.apply(made)
    ann = road.pc("Ann")
    assert (ann.resources["hp"], ann.maxima["hp"], ann.conditions, ann.side) == (5, 14, {"dazed": 2}, "foes")
