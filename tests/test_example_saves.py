"""Every encounter shipped in saves/ opens and replays."""

from __future__ import annotations

from pathlib import Path

import pytest

from tracker.persistence.store import EncounterFile

SAVES = Path(__file__).resolve().parent.parent / "saves"
FILES = sorted(p for p in SAVES.glob("*.toml"))


def test_examples_are_shipped() -> None:
    assert FILES, "saves/ ships worked examples"


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_example_opens_and_replays(path: Path) -> None:
    loaded = EncounterFile(path).load()
    assert loaded.encounter.events, "an example shows a fight under way"
    assert loaded.revision >= 1
    assert loaded.encounter.combatants


def test_freeform_ambush_stands_where_the_log_says() -> None:
    enc = EncounterFile(SAVES / "freeform-bridge-ambush.toml").load().encounter
    assert enc.now == 10
    assert enc.combatants["Kestrel"].resources["hp"] == 20
    assert enc.combatants["Bandit Chief"].resources["hp"] == 13
    assert enc.combatants["Bandit Chief"].conditions == {"winded": 26}
    assert enc.next_happening() == 11
