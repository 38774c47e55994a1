"""Every encounter shipped in saves/ opens, passes `tracker check`, and replays to itself."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tracker.reading import report
from tracker.engine import Encounter, Event
from tracker.persistence.store import EncounterFile
from tests.helpers import cli, shipped_fights

SAVES = Path(__file__).resolve().parent.parent / "saves"
FILES = shipped_fights()
RULESETS = ("freeform", "brandx", "usor", "d6", "ogs", "ore")


def test_every_ruleset_ships_an_example() -> None:
    shipped = {EncounterFile(p).load().encounter.setup.ruleset for p in FILES}
    assert shipped >= set(RULESETS)


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_example_opens_checks_and_replays(path: Path, tmp_path: Path) -> None:
    loaded = EncounterFile(path).load()
    enc = loaded.encounter
    assert len(enc.events) > 5 and enc.actions, "an example shows a fight under way"
    assert loaded.revision >= 1 and enc.combatants
    # The stored data alone (no ruleset, no dice) rebuilds the same state and log.
    stored = [e.to_dict() for e in enc.events]
    replay = Encounter(enc.setup, [Event(d["kind"], {k: v for k, v in d.items() if k not in ("seq", "kind", "by")}, by=d.get("by", "")) for d in stored])
    assert report.to_json(replay) == report.to_json(enc)
    copy = tmp_path / path.name
    shutil.copy(path, copy)
    assert cli("check", str(copy))[0] == 0


def test_freeform_ambush_stands_where_the_log_says() -> None:
    enc = EncounterFile(SAVES / "freeform-bridge-ambush.toml").load().encounter
    assert enc.now == 10
    assert enc.combatants["Kestrel"].resources["hp"] == 20
    assert enc.combatants["Bandit Chief"].resources["hp"] == 13
    assert enc.combatants["Bandit Chief"].conditions == {"winded": 26}
    assert enc.next_happening() == 11


def test_the_example_campaign_holds_its_three_fights_and_its_party_as_the_last_fight_began() -> None:
    from tracker.persistence.campaign_file import CampaignFile

    camp = CampaignFile(SAVES / "city-nights.campaign.toml").load()
    assert camp.ruleset == "brandx" and [f.file for f in camp.fights] == ["city-nights-1-docks.toml", "city-nights-2-roof.toml", "city-nights-3-museum.toml"]
    assert [f.open for f in camp.fights] == [False, False, True] and len(camp.rests) == 1
    museum = EncounterFile(SAVES / "city-nights-3-museum.toml").load().encounter
    for pc in camp.party():
        entry = next(e for e in museum.events if e.kind == "add" and e.args.get("pc") == pc.id)
        came_in = {**entry.args["resources"], **entry.args.get("current", {})}
        assert (entry.args["name"], came_in, entry.args["resources"]) == (pc.name, pc.resources, pc.maxima)  # as it stood
    # Seraph's DP 11 of 15: the crate at the docks (4 DP), and the hour's Healing Roll of 19 missed its 18.
    assert camp.pc("Seraph").resources["dp"] == 11 and camp.rests[0].args["rolls"][0]["dice"] == [9, 10]
    assert cli("check", str(SAVES / "city-nights.campaign.toml"))[0] == 0
