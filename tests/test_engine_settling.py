"""A long fight's state is moved out of the garbage collector's sight (tracker.engine.settling),
which is only safe because that state holds no reference cycle: a frozen fight that is let
go must still be freed, by reference counting alone.
"""

from __future__ import annotations

import gc
import subprocess
import sys
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tracker.engine import Event, Resolution, settling
from tracker.engine.effects import Damage
from tracker.persistence import codec
from tracker.persistence.store import EncounterFile
from tests.helpers import declare, encounter, next_

ROOT = Path(__file__).resolve().parent.parent
SAVES = sorted(p for p in (ROOT / "saves").glob("*.toml") if not p.name.endswith(".campaign.toml"))


@contextmanager
def cycles_counted() -> Iterator[list[Any]]:
    """The objects of the tracker's own types (tracker.*, rulesets.*) that only the cyclic
    collector could free, made inside (other threads of a test process may make cycles
    of their own meanwhile: those are not counted)."""
    found: list[Any] = []
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    try:
        yield found
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            gc.collect()
            found.extend(o for o in gc.garbage if type(o).__module__.startswith(("tracker.", "rulesets.")))
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
    finally:
        if was:
            gc.enable()


def busy_fight() -> Any:
    """A fight touching most of the engine: actions with effects, passive pushes, maintained
    links, conditions, undo and redo, proposals refused, checkpoints."""
    enc = encounter("Ann", "Bo", "Cy", payment_every=10)
    for i in range(300):
        actor, target = ("Ann", "Bo") if i % 2 else ("Bo", "Cy")
        if enc.combatants[actor].active is None:
            declare(enc, actor, "hit", 1 + i % 4, targets=(target,), maintainable=True,
                    effects=(Damage(target=target, amount=0, resource="hp"),))
        if i % 7 == 0 and not enc.combatants["Cy"].in_progress:
            declare(enc, "Cy", "watch", 3, mode="passive")
        if i % 11 == 0:
            enc.apply(Event("condition", {"target": "Cy", "name": "dazed", "duration": 2}))
        if i % 13 == 0:
            enc.apply(Event("undo", {}))
            enc.apply(Event("redo", {}))
        next_(enc)
    assert len(enc.events) > 2 * 64, "enough changes for checkpoints"
    return enc


def test_a_fight_let_go_leaves_no_cycle_for_the_collector() -> None:
    busy_fight()  # warm: first use fills module caches
    with cycles_counted() as found:
        enc = busy_fight()
        assert enc.checkpoints, "the fight took checkpoints"
        gone = weakref.ref(enc)
        del enc
        assert gone() is None, "freed by reference counting, the collector off"
    assert found == []


@pytest.mark.parametrize("path", SAVES, ids=[p.stem for p in SAVES])
def test_a_loaded_save_let_go_leaves_no_cycle_for_the_collector(path: Path) -> None:
    EncounterFile(path).load()  # warm: a ruleset's tables are read once per process
    with cycles_counted() as found:
        loaded = EncounterFile(path).load()
        assert loaded.encounter.events
        gone = weakref.ref(loaded.encounter)
        del loaded
        assert gone() is None, "freed by reference counting, the collector off"
    assert found == []


class Settles:
    """`settling.settle` recorded (and not run: the test process is left unfrozen)."""

    def __init__(self) -> None:
        self.calls: list[int] = []
        self.enc: Any = None

    def __call__(self) -> bool:
        if not gc.isenabled():  # as settle: a collector that is off is left alone
            return False
        self.calls.append(len(self.enc.events) if self.enc is not None else -1)
        return True


@pytest.fixture
def settles(monkeypatch: pytest.MonkeyPatch) -> Settles:
    recorder = Settles()
    monkeypatch.setattr(settling, "settle", recorder)
    monkeypatch.setattr(settling, "SETTLE_EVERY", 200)
    return recorder


def strikes(enc: Any, n: int) -> None:
    for _ in range(n):
        for name in list(enc.combatants):
            if enc.combatants[name].active is None:
                enc.apply(Event("declare", {"actor": name, "template": "strike", "mode": "active", "resolution": Resolution(3)}))
        next_(enc)


def test_a_fight_settles_each_time_it_has_grown_by_settle_every_changes(settles: Settles) -> None:
    enc = encounter("Ann", "Bo")
    settles.enc = enc
    strikes(enc, 300)  # 3 changes a round: 900 changes after the 2 adds
    # At checkpoints (every 64 changes on a small roster), never closer than 200 changes.
    assert settles.calls, "a fight of 900 changes settled"
    assert 200 <= settles.calls[0] < 200 + 64
    assert all(200 <= b - a < 200 + 64 for a, b in zip(settles.calls, settles.calls[1:]))
    assert len(enc.events) - settles.calls[-1] < 200 + 64


def test_a_short_fight_never_settles(settles: Settles) -> None:
    enc = encounter("Ann", "Bo")
    settles.enc = enc
    strikes(enc, 60)  # 182 changes: below 200
    assert len(enc.events) < 200 and settles.calls == []


def test_opening_a_long_save_settles_once_after_it_is_read(settles: Settles, tmp_path: Path) -> None:
    enc = encounter("Ann", "Bo")
    strikes(enc, 100)
    path = tmp_path / "long.toml"
    path.write_text(codec.dumps(enc, len(enc.events)))
    settles.calls.clear()
    # Read with the collector paused: nothing settles while the events are replayed.
    EncounterFile(path).load()
    assert settles.calls == [-1]


def test_with_the_collector_off_nothing_is_frozen() -> None:
    before = gc.get_freeze_count()
    gc.disable()
    try:
        assert settling.settle() is False
    finally:
        gc.enable()
    assert gc.get_freeze_count() == before


FROZEN_AND_FREED = """
import gc, sys
sys.path.insert(0, sys.argv[1])
from tracker.engine import Event, Resolution, settling
from tests.helpers import encounter, next_
settling.SETTLE_EVERY = 256
def fight():
    enc = encounter(*[f"c{i}" for i in range(20)])
    for _ in range(150):
        for name in list(enc.combatants):
            if enc.combatants[name].active is None:
                enc.apply(Event("declare", {"actor": name, "template": "strike", "mode": "active", "resolution": Resolution(2)}))
        next_(enc)
    return enc
fight()
gc.collect()
base = gc.get_freeze_count()
enc = fight()
grown = gc.get_freeze_count()
del enc
print(base, grown, gc.get_freeze_count())
"""


def test_a_frozen_fight_let_go_is_freed() -> None:
    """In a process of its own (freezing is for the whole process): a fight that settled
    several times, then let go, gives every object it froze back."""
    out = subprocess.run([sys.executable, "-c", FROZEN_AND_FREED, str(ROOT)], capture_output=True, text=True, check=True, cwd=ROOT)
    base, grown, after = map(int, out.stdout.split())
    assert grown > base + 5_000, "the fight's state was frozen as it grew"
    assert after <= base + 100, "and freed once let go"


YOUNG_AFTER_SETTLES = """
import gc, sys
sys.path.insert(0, sys.argv[1])
from tracker.engine import settling
gc.set_threshold(700, 10, 10)
before = gc.get_threshold()
settling.settle()
after = gc.get_threshold()
gc.set_threshold(0, 10, 10)  # automatic collection turned off by its owner
settling.settle()
print(*before, *after, *gc.get_threshold())
"""


def test_once_settled_the_young_generation_waits_for_what_a_long_fight_makes_between_settles() -> None:
    """Decision 0061: the objects a long fight makes between two settles (SETTLE_EVERY
    changes, some ten objects a change) are walked by the settle, not first by young
    collections every 700 new objects; a threshold of 0 (collection off) is left so."""
    out = subprocess.run([sys.executable, "-c", YOUNG_AFTER_SETTLES, str(ROOT)], capture_output=True, text=True, check=True, cwd=ROOT)
    numbers = list(map(int, out.stdout.split()))
    assert numbers[:3] == [700, 10, 10]
    assert numbers[3:6] == [settling.SETTLED_YOUNG, 10, 10]
    assert settling.SETTLED_YOUNG >= 10 * settling.SETTLE_EVERY
    assert numbers[6:] == [0, 10, 10]
