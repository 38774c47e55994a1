"""Two GM processes on a campaign and one of its fights at once stay consistent: every
change of each lands once, in one order, under the files' locks, and the fight's end
holds exactly the fight as it stood when it ended."""

from __future__ import annotations

import multiprocessing
import time
from pathlib import Path

import pytest

from rulesets.dice import RandomDice
from tracker.play import fights
from tracker.persistence.campaign_file import CampaignFile
from tracker.engine import Event, RuleRefusal
from tracker.persistence.store import EncounterFile
from tracker.play.session import Session
from tests.helpers import DEADLINE
from tests.test_campaign import run

ROUNDS = 12

pytestmark = pytest.mark.slow


def _notes(path: str, who: str) -> None:
    for i in range(ROUNDS):
        CampaignFile(path).change(lambda camp, i=i: [Event("note", {"text": f"{who} {i}"})], who)


def _blows(fight: str) -> None:
    loaded = EncounterFile(fight).load()
    session = Session(loaded.encounter, loaded.ruleset, RandomDice(1), EncounterFile(fight), "gm:b")
    for _ in range(ROUNDS):
        try:
            session.execute("damage Ann 1")
        except RuleRefusal:
            return  # the other GM ended the fight: every later blow is refused, none is lost half-way


def _end_midway(fight: str) -> None:
    """End the fight once the other GM has landed a few blows (waiting on the file)."""
    deadline = time.monotonic() + DEADLINE
    while len(EncounterFile(fight).load().encounter.events) < 4 and time.monotonic() < deadline:
        time.sleep(0.005)
    fights.end(Path(fight), "gm:a")


def test_two_gms_on_a_campaign_and_its_fight_lose_nothing(tmp_path: Path) -> None:
    saves = tmp_path / "saves"
    saves.mkdir()
    run(saves, "campaign", "new", "road", "--ruleset", "freeform")
    run(saves, "campaign", "add", "road", "Ann", "hp=100")
    run(saves, "new", "road-1", "--campaign", "road")
    path, fight = str(saves / "road.campaign.toml"), str(saves / "road-1.toml")
    ctx = multiprocessing.get_context("fork")
    workers = [ctx.Process(target=_notes, args=(path, "gm:a")), ctx.Process(target=_notes, args=(path, "gm:b")),
               ctx.Process(target=_blows, args=(fight,)), ctx.Process(target=_end_midway, args=(fight,))]
    for w in workers:
        w.start()
    for w in workers:
        w.join(120)
        assert w.exitcode == 0
    camp = CampaignFile(path).load()
    notes = [text for _, text in camp.notes]
    for who in ("gm:a", "gm:b"):
        assert [n for n in notes if n.startswith(who)] == [f"{who} {i}" for i in range(ROUNDS)]  # each once, in order
    enc = EncounterFile(fight).load().encounter
    blows = [e for e in enc.events if e.kind == "damage"]
    assert enc.ended and enc.events[-1].kind == "end"  # nothing after the end
    # The campaign holds exactly the fight as it ended: every blow before the end counted.
    assert camp.pc("Ann").resources == {"hp": 100 - len(blows)}
    assert not camp.fights[0].open
