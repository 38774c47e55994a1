"""Saves: named errors for bad input, bad files never overwritten, permissions kept,
and a save that survives being SIGKILLed at any moment."""

from __future__ import annotations

import multiprocessing
import os
import random
import signal
import stat
import time
from pathlib import Path

import pytest

from tracker.engine import Event, TrackerError
from tracker.persistence.checks import SaveError
from tracker.persistence.store import EncounterFile
from tracker.play.session import Session
from rulesets.dice import RandomDice
from tests.helpers import cli as run


@pytest.fixture
def fight(saves: Path) -> Path:
    assert run("new", "fight", "--ruleset", "freeform")[0] == 0
    code, _ = run("play", "fight", stdin="add Ann hp=12\nadd Bo hp=9\ndeclare Ann punch target=Bo pt=5 damage=3\nnext\n")
    assert code == 0
    return saves / "fight.toml"


def corrupt(path: Path, old: str, new: str) -> None:
    """Replace the last occurrence of `old` (the latest event holding it)."""
    text = path.read_text()
    assert old in text, old
    head, _, tail = text.rpartition(old)
    path.write_text(head + new + tail)


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ('ruleset = "freeform"', 'ruleset = = "freeform"', "not valid TOML"),
        ('ruleset = "freeform"', 'ruleset = "chess"', "ruleset: unknown ruleset 'chess'"),
        ("schema_version = 2\n", "", "missing key 'schema_version'"),
        ("schema_version = 2\n", "schema_version = 3\n", "schema_version: expected 1 or 2, got 3"),
        ('kind = "declare"\nactor = "Ann"', 'kind = "declare"\nactor = 7', "events[2] (seq 3, declare).actor: expected text, got 7"),
        ("pt = 5", "pt = 0", "events[2] (seq 3, declare).resolution.pt: expected an integer of at least 1, got 0"),
        ('mode = "active"', 'mode = "sideways"', ".mode: expected active or passive"),
        ("[events.resources]\nhp = 12", '[events.resources]\nhp = "lots"', "events[0] (seq 1, add).resources.hp: expected a number"),
        ('name = "fight"', "name = 3", "fight.toml: name: expected text, got 3"),
        ("seq = 2", "seq = 7", "events[1].seq: expected 2"),
        ('kind = "advance"\nto = 5', 'kind = "advance"\nto = 0', "events[3] (seq 4, advance) does not replay: time only moves forward"),
        ('target = "Bo"', 'target = "Nobody"', "does not replay"),
        ('kind = "note"', 'kind = "teleport"', "expected an event kind"),
    ],
)
def test_bad_files_get_a_named_error_and_are_never_overwritten(fight: Path, old: str, new: str, expected: str) -> None:
    if "Nobody" in new:
        run("play", "fight", stdin="damage Bo 1\n")
        old = 'kind = "damage"\ntarget = "Bo"'
        new = 'kind = "damage"\ntarget = "Nobody"'
    if "teleport" in new:
        run("play", "fight", stdin="note hello\n")
    corrupt(fight, old, new)
    before = fight.read_bytes()
    with pytest.raises(SaveError) as error:
        EncounterFile(fight).load()
    assert expected in str(error.value)
    assert str(fight) in str(error.value)
    code, _ = run("check", "fight")
    assert code == 1
    code, _ = run("play", "fight", stdin="note overwrite?\n")
    assert code == 1
    assert fight.read_bytes() == before


def test_syntax_error_names_the_line(fight: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corrupt(fight, 'name = "fight"', 'name = "fight')
    code, _ = run("check", "fight")
    err = capsys.readouterr().err
    assert code == 1
    assert "line 5" in err and "fight.toml" in err  # three comment lines, then schema_version
    assert "Traceback" not in err


def test_permissions_are_kept(fight: Path) -> None:
    os.chmod(fight, 0o640)
    assert run("play", "fight", stdin="note still shared\n")[0] == 0
    assert stat.S_IMODE(os.stat(fight).st_mode) == 0o640
    os.chmod(fight, 0o664)
    assert run("play", "fight", stdin="note group writable\n")[0] == 0
    assert stat.S_IMODE(os.stat(fight).st_mode) == 0o664


def test_every_change_bumps_the_revision_and_is_saved_at_once(fight: Path) -> None:
    store = EncounterFile(fight)
    loaded = store.load()
    session = Session(loaded.encounter, loaded.ruleset, RandomDice(1), store)
    revision = store.revision
    for i in range(3):
        session.note(f"note {i}")
        again = EncounterFile(fight).load()
        assert again.revision == revision + i + 1
        assert again.encounter.log[-1].text == f"note {i}"
    assert (fight.parent / "fight.toml.lock").exists()


def test_a_refused_change_leaves_the_file_untouched(fight: Path) -> None:
    before = fight.read_bytes()
    code, _ = run("play", "fight", stdin="declare Bo punch pt=0\n")
    assert code == 1
    code, _ = run("play", "fight", stdin="undo\nundo\nundo\nundo\nundo\nundo\nundo\n")
    assert code == 1  # the seventh undo has nothing left to take back
    assert EncounterFile(fight).load().encounter.events[-1].kind == "undo"
    assert before != fight.read_bytes()


def _writer(path: str) -> None:
    store = EncounterFile(path)
    loaded = store.load()
    session = Session(loaded.encounter, loaded.ruleset, RandomDice(0), store)
    while True:
        session.note("x" * random.randint(1, 400))


@pytest.mark.slow
def test_sigkill_at_random_moments_never_leaves_a_broken_file(saves: Path) -> None:
    """A process saving in a loop is SIGKILLed 200 times; the file always loads, whole."""
    assert run("new", "crash", "--ruleset", "freeform")[0] == 0
    path = saves / "crash.toml"
    ctx = multiprocessing.get_context("fork")
    rng = random.Random(20261121)
    last = 0
    for _ in range(200):
        child = ctx.Process(target=_writer, args=(str(path),))
        child.start()
        time.sleep(rng.uniform(0.0, 0.03))
        os.kill(child.pid, signal.SIGKILL)
        child.join()
        loaded = EncounterFile(path).load()
        # Each write adds one event and bumps the revision by one: old or new, never a mix.
        assert loaded.revision == len(loaded.encounter.events)
        assert loaded.revision >= last
        last = loaded.revision
        # Changes are appended, so a killed writer leaves no temporary file behind.
        assert not list(saves.glob(".crash.toml.*.tmp"))
    assert last > 0


def test_duplicate_copies_the_log_under_a_new_title(fight: Path) -> None:
    copy = fight.with_name("rematch.toml")
    EncounterFile(fight).duplicate(copy, "Rematch")
    original, loaded = EncounterFile(fight).load(), EncounterFile(copy).load()
    assert loaded.revision == 0 and loaded.encounter.setup.name == "Rematch"
    assert [e.to_dict() for e in loaded.encounter.events] == [e.to_dict() for e in original.encounter.events]
    with pytest.raises(TrackerError, match="already exists"):
        EncounterFile(fight).duplicate(copy, "Again")


def test_the_store_returns_the_encounter_to_hold_and_never_touches_a_session(fight: Path) -> None:
    """Persistence takes and returns data (docs/contributing/design.md#layers): handed the encounter its caller
    holds, it gives back the one to hold from now on, or None when nothing changed."""
    store = EncounterFile(fight)
    held = store.load().encounter
    assert store.refresh(held) is None  # nothing new on disk
    other = EncounterFile(fight)
    loaded = other.load()
    Session(loaded.encounter, loaded.ruleset, RandomDice(1), other).note("appended")
    assert store.refresh(held) is held  # appended events: replayed onto the same encounter
    assert held.log[-1].text == "appended"
    assert store.refresh(held) is None
    replaced = fight.with_name("replaced.toml")
    replaced.write_bytes(fight.read_bytes())
    os.replace(replaced, fight)  # another file moved in: read whole, a new encounter
    fresh = store.refresh(held)
    assert fresh is not None and fresh is not held and fresh.log[-1].text == "appended"
    # A change: `install` is told the encounter the body must change (after folding in).
    installed = []
    Session(loaded.encounter, loaded.ruleset, RandomDice(1), other).note("again")
    with store.transaction(fresh, installed.append) as current:
        assert installed == [current] and current.log[-1].text == "again"
        current.apply(Event("note", {"text": "mine"}))
    assert EncounterFile(fight).load().encounter.log[-1].text == "mine"
