"""The shipped Seraph vs Sphinx save opens, checks and replays to the worked combat."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

from tracker.command import cli
from tracker.persistence.store import EncounterFile

SAVE = Path(__file__).resolve().parent.parent / "saves" / "seraph-vs-sphinx.toml"


def test_save_checks() -> None:
    out = io.StringIO()
    assert cli.main(["check", str(SAVE)], stdout=out) == 0
    assert "ok (brandx" in out.getvalue()


def test_save_replays_to_the_worked_combat() -> None:
    loaded = EncounterFile(SAVE).load()
    enc = loaded.encounter
    assert loaded.ruleset.id == "brandx" and enc.now == 19
    seraph, sphinx = enc.combatant("Seraph"), enc.combatant("Sphinx")
    assert seraph.resources["vp"] == 36 and seraph.resources["ep"] == 66
    assert sphinx.resources["vp"] == 28 and sphinx.resources["ep"] == 30
    punches = [a for a in enc.actions if a.template == "punch"]
    assert [(a.actor, a.start, a.completes, a.resolution.margin) for a in punches] == [
        ("Seraph", 0, 15, -5), ("Sphinx", 0, 15, 0), ("Seraph", 15, 19, 9), ("Sphinx", 15, 30, -2),
    ]
    assert punches[2].pt == 4
    assert (punches[2].resolution.details["attack"], punches[2].resolution.details["defense"]) == (1, 1)
    assert sphinx.active is punches[3]


def test_save_plays_on(tmp_path: Path) -> None:
    copy = tmp_path / "fight.toml"
    shutil.copy(SAVE, copy)
    out = io.StringIO()
    script = "declare Seraph punch target=Sphinx faces=5,5,10,10\nnext\nnext\n"
    code = cli.main(["play", str(copy)], stdin=io.StringIO(script), stdout=out)
    assert code == 0
    enc = EncounterFile(copy).load().encounter
    # 30: Sphinx's punch (Attack -1 against Seraph's Defense +1) misses; 34: Seraph's
    # new punch (Q 5, all to Attack) lands for 6.
    assert enc.now == 34
    assert enc.combatant("Seraph").resources["vp"] == 36
    assert enc.combatant("Sphinx").resources["vp"] == 22
