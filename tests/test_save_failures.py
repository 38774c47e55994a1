"""A change that cannot be saved leaves memory and file as they were, and says so.

Whatever fails after the session applied a change (encoding it: an adapter that puts
`None` in `details`, which TOML cannot hold; the size limit; writing it; a bug), the
session reads the file again under the lock, so memory is what is saved, the file is
never left with a number missing, and the message says what was not saved and up to
which revision the file holds (tracker.persistence.store, `abandon`). The same through
the app's write-behind store (tracker.play.live) and on the app's screen.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tracker.engine import Resolution, TrackerError, bounds
from tracker.persistence import store as store_module
from tracker.persistence.store import EncounterFile
from tracker.play.session import Session
from tracker.play.live import Live
from rulesets.dice import RandomDice
from rulesets.freeform import FreeformRuleset


def _session(path: Path) -> Session:
    store = EncounterFile(path)
    loaded = store.load()
    return Session(loaded.encounter, loaded.ruleset, RandomDice(1), store)


@pytest.fixture
def fight(tmp_path: Path) -> Path:
    path = tmp_path / "fight.toml"
    EncounterFile.create(path, "fight", "freeform")
    session = _session(path)
    for line in ("add Ann hp=12", "add Bo hp=9", "note ready"):
        session.execute(line)
    return path


@pytest.fixture
def none_in_details(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """An adapter whose resolution carries a value TOML cannot hold."""
    resolve = FreeformRuleset.resolve

    def careless(self: FreeformRuleset, request: Any, dice: Any) -> Resolution:
        done = resolve(self, request, dice)
        return Resolution(done.pt, done.success, done.margin, done.dice, done.summary, done.effects, done.order, {"reach": None})

    monkeypatch.setattr(FreeformRuleset, "resolve", careless)
    yield
    monkeypatch.undo()


def _whole(path: Path) -> list[int]:
    """The file loads, with tomllib too, and its events are numbered without a gap."""
    seqs = [e["seq"] for e in tomllib.loads(path.read_text())["events"]]
    assert seqs == list(range(1, len(seqs) + 1))
    assert len(EncounterFile(path).load().encounter.events) == len(seqs)
    return seqs


def test_a_change_that_cannot_be_encoded_changes_nothing(fight: Path, monkeypatch: pytest.MonkeyPatch, none_in_details: None) -> None:
    session = _session(fight)
    before, events = fight.read_bytes(), len(session.encounter.events)
    with pytest.raises(TrackerError, match=r"fight\.toml: the change \(declare\) was not saved: it could not be written as TOML: internal error: TypeError: .*; the file holds every change up to revision 3, and the fight is shown as saved there"):
        session.execute("declare Ann strike target=Bo pt=3 damage=4")
    assert fight.read_bytes() == before and len(session.encounter.events) == events
    assert not session.encounter.actions
    monkeypatch.undo()
    session.execute("declare Ann strike target=Bo pt=3 damage=4")
    session.execute("next")
    assert _whole(fight) == [1, 2, 3, 4, 5]
    assert EncounterFile(fight).load().encounter.combatant("Bo").resources["hp"] == 5


@pytest.mark.parametrize("failure", [OSError(28, "No space left on device"), RuntimeError("a bug in the writer")])
def test_a_write_that_fails_changes_nothing(fight: Path, monkeypatch: pytest.MonkeyPatch, failure: Exception) -> None:
    session = _session(fight)
    before = fight.read_bytes()

    def fails(self: EncounterFile, data: bytes, revision: int, count: int) -> None:
        raise failure

    monkeypatch.setattr(store_module.EncounterFile, "_append", fails)
    said = "No space left on device" if isinstance(failure, OSError) else "internal error: RuntimeError: a bug in the writer"
    with pytest.raises(TrackerError, match=rf"the change \(damage\) was not saved: {said}; the file holds every change up to revision 3"):
        session.execute("damage Ann 5")
    assert fight.read_bytes() == before and session.encounter.combatant("Ann").resources["hp"] == 12
    monkeypatch.undo()
    session.execute("damage Ann 1")
    assert _whole(fight) == [1, 2, 3, 4]
    assert EncounterFile(fight).load().encounter.combatant("Ann").resources["hp"] == 11


def test_the_write_behind_store_changes_nothing_when_encoding_fails(fight: Path, monkeypatch: pytest.MonkeyPatch, none_in_details: None) -> None:
    live = Live.open(fight)
    live.run(lambda s: s.execute("note queued first"))  # may still be on its way to disk
    with pytest.raises(TrackerError, match=r"the change \(declare\) was not saved: .*TypeError.*up to revision 4"):
        live.run(lambda s: s.execute("declare Ann strike target=Bo pt=3"))
    assert len(live.encounter.events) == 4 and not live.encounter.actions
    monkeypatch.undo()
    live.run(lambda s: s.execute("note after"))
    live.store.flush()
    assert _whole(fight) == [1, 2, 3, 4, 5]


def test_the_write_behind_store_goes_back_to_the_file_when_a_write_fails(fight: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    live = Live.open(fight)
    reports: list[str] = []
    live.store.on_error = reports.append

    def fails(self: EncounterFile, data: bytes, revision: int, count: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(store_module.EncounterFile, "_append", fails)
    live.run(lambda s: s.execute("note lost"))
    with pytest.raises(TrackerError, match=r"the last change was not saved: No space left on device; the file holds every change up to revision 3, and the fight goes back to it"):
        live.store.flush()
    assert reports and "not saved" in reports[0] and "on disk" not in reports[0]
    monkeypatch.undo()
    assert live.poll()  # no follower here: the poll reads the file again
    assert len(live.encounter.events) == 3
    live.run(lambda s: s.execute("note kept"))
    live.store.flush()
    assert _whole(fight) == [1, 2, 3, 4]
    texts = [entry.text for entry in EncounterFile(fight).load().encounter.log]
    assert any("kept" in t for t in texts) and not any("lost" in t for t in texts)


# A check each kind of change runs, and only it among these: damage keeps every figure
# within bounds (`bounds.clamp`), and a combatant added has its sheet checked (`bounds.sheet`).
_RUNS = {"damage": "clamp", "add": "sheet"}


def _faulty(monkeypatch: pytest.MonkeyPatch, kind: str, times: int) -> list[int]:
    """Make the engine's handling of `kind` fail (a fault, not a refusal) the next `times`
    times it runs, then work again, through a check only it runs; the list counts the
    failures."""
    name = _RUNS[kind]
    check = getattr(bounds, name)
    failed: list[int] = []

    def once(*args: Any) -> Any:
        if len(failed) < times:
            failed.append(1)
            raise RuntimeError("a fault while folding the log")
        return check(*args)

    monkeypatch.setattr(bounds, name, once)
    return failed


def _as_it_is(session: Session) -> tuple[Any, ...]:
    enc = session.encounter
    target = (enc.undo_target(), enc.redo_target())
    return tuple(e.seq if e else None for e in target), [e.text for e in enc.log], len(enc.events), {n: dict(c.resources) for n, c in enc.combatants.items()}


def test_a_redo_that_fails_changes_nothing(fight: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    session = _session(fight)
    session.execute("damage Ann 5")
    session.undo()
    seen, on_file = _as_it_is(session), fight.read_bytes()
    failed = _faulty(monkeypatch, "damage", times=3)  # the redone change fails, however often tried
    with pytest.raises(TrackerError, match=r"redo of change 4 could not be applied \(RuntimeError: a fault while folding the log\); nothing was changed"):
        session.redo()
    assert _as_it_is(session) == seen and fight.read_bytes() == on_file
    assert len(failed) == 1  # tried once, then the fold without it
    failed.extend([1, 1])  # the fault is gone
    # Both stacks whole: the redo goes through now, and undo takes it back again.
    session.redo()
    assert session.encounter.combatant("Ann").resources["hp"] == 7
    session.undo()
    assert session.encounter.combatant("Ann").resources["hp"] == 12
    session.redo()
    assert _whole(fight) == [1, 2, 3, 4, 5, 6, 7, 8]
    assert EncounterFile(fight).load().encounter.combatant("Ann").resources["hp"] == 7


def test_an_undo_that_fails_changes_nothing(fight: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    session = _session(fight)
    session.execute("damage Ann 5")
    seen, on_file = _as_it_is(session), fight.read_bytes()
    failed = _faulty(monkeypatch, "add", times=1)  # folding the log again without the damage
    with pytest.raises(TrackerError, match=r"undo of change 4 could not be applied \(RuntimeError: a fault while folding the log\); nothing was changed"):
        session.undo()
    assert failed and _as_it_is(session) == seen and fight.read_bytes() == on_file
    session.undo()
    assert session.encounter.combatant("Ann").resources["hp"] == 12
    session.redo()
    assert session.encounter.combatant("Ann").resources["hp"] == 7
    assert _whole(fight) == [1, 2, 3, 4, 5, 6]


@pytest.mark.ui
async def test_the_app_says_what_was_not_saved_and_shows_what_is(fight: Path, monkeypatch: pytest.MonkeyPatch, none_in_details: None) -> None:
    from textual.widgets import Label

    from tests.ui import type_text, wait_for
    from tracker.ui.app import TrackerApp
    from tracker.ui.screens.form import FormScreen

    app = TrackerApp(fight.parent, fight, user="gm")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        live = app.screen.live  # type: ignore[attr-defined]
        await type_text(pilot, ":declare Ann strike target=Bo pt=3\r")
        # The command line's refusals stay in its form, under the line typed.
        assert isinstance(app.screen, FormScreen)
        said = str(app.screen.query_one("#form-error", Label).render())
        assert "the change (declare) was not saved" in said and "up to revision 3" in said, said
        assert "on disk" not in said and not app.errors
        assert len(live.encounter.events) == 3 and not live.encounter.actions
        monkeypatch.undo()
        await type_text(pilot, "\x1b:declare Ann strike target=Bo pt=3\r")
        await wait_for(pilot, lambda: len(EncounterFile(fight).load().encounter.events) == 4, "the declaration on disk")
    assert _whole(fight) == [1, 2, 3, 4]


@pytest.mark.ui
async def test_the_app_goes_back_to_the_file_after_a_failed_write(fight: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.ui import type_text, wait_for
    from tracker.ui.app import TrackerApp

    def fails(self: EncounterFile, data: bytes, revision: int, count: int) -> None:
        raise OSError(28, "No space left on device")

    app = TrackerApp(fight.parent, fight, user="gm")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        live = app.screen.live  # type: ignore[attr-defined]
        monkeypatch.setattr(store_module.EncounterFile, "_append", fails)
        await type_text(pilot, ":note lost\r")
        await wait_for(pilot, lambda: any("not saved: No space left" in n.message for n in app.notifications_shown), "the report of the failed write")
        await wait_for(pilot, lambda: len(live.encounter.events) == 3, "the screen going back to the file")
        monkeypatch.undo()
        await type_text(pilot, ":note kept\r")
        assert not app.errors
    assert _whole(fight) == [1, 2, 3, 4]
    assert "kept" in EncounterFile(fight).load().encounter.log[-1].text
