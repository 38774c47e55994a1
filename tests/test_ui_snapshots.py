"""SVG snapshots of the main screens at 80x24 (pytest-textual-snapshot).

Deterministic by construction: a relative saves folder, fixed file names and
modification times (shown in UTC), freeform rulesets only, no wall-clock text, no
notifications, no animation and no cursor blink. Update deliberately with
`pytest tests/test_ui_snapshots.py --snapshot-update` after a visible change.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tracker.persistence.store import EncounterFile
from tracker.play.session import Session
from tracker.ui.app import TrackerApp
from tests.ui import settle

pytestmark = pytest.mark.ui

SIZE = (80, 24)
STAMP = 1_700_000_000  # 2023-11-14 22:13 UTC

FIGHT = [
    "add Seraph hp=30 side=PC",
    "add Sphinx hp=40 side=foe",
    'add "Sun Ruler" hp=12 hidden=true',
    "declare Seraph attack target=Sphinx damage=5 pt=6 maintainable=true",
    "declare Sphinx cast target=Seraph pt=15 note=flames",
    "step 2",
    'declare "Sun Ruler" defend',
    "next",
    "condition Sphinx stunned 8",
    "next",
]


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    saves = Path("saves")
    saves.mkdir()
    store, loaded = EncounterFile.create(saves / "seraph-vs-sphinx.toml", "Seraph vs Sphinx", "freeform")
    session = Session(loaded.encounter, loaded.ruleset, store=store, user="gm")
    for line in FIGHT:
        session.execute(line)
    (saves / "broken.toml").write_text("schema_version = 1\nrevision = 'x'\n", encoding="utf-8")
    for p in saves.iterdir():
        os.utime(p, (STAMP, STAMP))
    yield saves
    time.tzset()


def test_start_screen(snap_compare, folder: Path) -> None:
    assert snap_compare(TrackerApp(folder, user="gm"), terminal_size=SIZE, run_before=settle)


def test_encounter_screen(snap_compare, folder: Path) -> None:
    app = TrackerApp(folder, folder / "seraph-vs-sphinx.toml", user="gm")
    assert snap_compare(app, terminal_size=SIZE, run_before=settle)


def test_declare_dialog(snap_compare, folder: Path) -> None:
    app = TrackerApp(folder, folder / "seraph-vs-sphinx.toml", user="gm")
    assert snap_compare(app, press=["down", "a"], terminal_size=SIZE, run_before=settle)


def test_help_screen(snap_compare, folder: Path) -> None:
    app = TrackerApp(folder, folder / "seraph-vs-sphinx.toml", user="gm")
    assert snap_compare(app, press=["question_mark"], terminal_size=SIZE, run_before=settle)


def test_viewer_screen(snap_compare, folder: Path) -> None:
    app = TrackerApp(folder, folder / "seraph-vs-sphinx.toml", viewer=True, user="gm")
    assert snap_compare(app, terminal_size=SIZE, run_before=settle)


def test_roster_editor_add_form(snap_compare, folder: Path) -> None:
    app = TrackerApp(folder, folder / "seraph-vs-sphinx.toml", user="gm")
    assert snap_compare(app, press=["e", "a"], terminal_size=SIZE, run_before=settle)
